"""The screenshot of a report page in the documentation: the Chaplygin ball's report,
rendered by headless Chromium (the browser of the test suite, ``tests/browser.py``).
Run from the repository root (Chromium installed)::

    python docs/figures/report_screenshot.py

It writes ``docs/figures/report_screenshot.png`` (the Equations section and the figures:
two crops of one full-page screenshot) next to this script.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import geomech as gm  # noqa: E402
from tests.browser import find_chromium, screenshot  # noqa: E402

OUT = Path(__file__).with_name("report_screenshot.png")


def main() -> None:
    from PIL import Image

    browser = find_chromium()
    if browser is None:
        raise SystemExit("no Chromium installed (apt-get install chromium)")
    rep = gm.report(gm.examples.chaplygin_ball(), analyses=False)
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "chaplygin_ball.html"
        page.write_text(rep.render("html"), encoding="utf-8")
        shot = screenshot(browser, str(page), str(Path(tmp) / "shot.png"), size=(1000, 5200))
        with Image.open(shot) as im:
            top = im.crop((0, 1050, 1000, 1900))         # equations in quasi-velocities
            figs = im.crop((0, 2850, 1000, 3700))        # the path in the plane
            both = Image.new("RGB", (1000, 1700), "white")
            both.paste(top, (0, 0))
            both.paste(figs, (0, 850))
            both.save(OUT, optimize=True)
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} kB)")


if __name__ == "__main__":
    main()
