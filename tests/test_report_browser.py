"""The report pages in a real browser: headless Chromium loads each page, its DOM after
parsing holds the formulas (as MathML in the elements Chromium renders: MathML Core, no
``mfenced``) and the figures (with alt text), and its screenshot is not blank.

Skipped, with the reason, where no Chromium is installed (``.ci/run`` installs the Debian
``chromium`` package).  Two systems in the default suite, every catalogue system in the
slow one.
"""

from __future__ import annotations

import pytest

import geomech as gm
from geomech.reporting.mathml import MATHML_CORE
from tests.browser import dump_dom, find_chromium, ink, screenshot
from tests.test_report_html import parts_of

BROWSER = find_chromium()
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium-family browser installed (chromium, "
                            "chromium-browser, google-chrome): apt-get install chromium")

#: Catalogue systems whose report is out of reach here, with the reason.
OUT_OF_REACH: dict[str, str] = {}


def _check_in_browser(name: str, tmp_path, **options) -> dict:
    rep = gm.report(gm.examples.get(name), **options)
    page = rep.render("html")
    path = tmp_path / f"{name}.html"
    path.write_text(page, encoding="utf-8")
    assert len(page.encode()) < 5_000_000, (name, len(page))
    dom = parts_of(dump_dom(BROWSER, str(path)))
    formulas = sum(1 for s in rep.sections for _, o in s.lines if o is not None)
    assert len(dom.math) >= formulas > 0, (name, len(dom.math), formulas)
    used = {t for m in dom.math for t in m}
    assert "mfenced" not in used and used <= MATHML_CORE, (name, used - MATHML_CORE)
    figures = [f for s in rep.sections for f in s.figures]
    if options.get("simulation", True):
        assert len(figures) >= 2, (name, [f.title for f in figures])
    assert len(dom.images) == len(figures)
    assert all(img.get("alt") and img["src"].startswith("data:image/") for img in dom.images)
    assert dom.scripts == 0 and dom.external == []
    shot = screenshot(BROWSER, str(path), str(tmp_path / f"{name}.png"))
    spread, inked = ink(shot)
    assert spread > 10 and inked > 0.005, (name, spread, inked)
    return {"bytes": len(page.encode()), "formulas": formulas, "figures": len(figures)}


@needs_browser
@pytest.mark.parametrize("name", ["chaplygin_sleigh", "rolling_disk"])
def test_report_page_in_chromium(name, tmp_path):
    _check_in_browser(name, tmp_path, analyses=name == "chaplygin_sleigh", t_end=3.0)


@needs_browser
def test_a_blank_page_is_seen_as_blank(tmp_path):
    """The screenshot check can fail: an empty page has no ink."""
    path = tmp_path / "blank.html"
    path.write_text("<!DOCTYPE html><html><body></body></html>")
    spread, inked = ink(screenshot(BROWSER, str(path), str(tmp_path / "blank.png")))
    assert spread < 1 and inked == 0


@needs_browser
@pytest.mark.slow
@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.skip(reason=OUT_OF_REACH[n])) if n in OUT_OF_REACH
    else n for n in gm.examples.list()])
def test_every_catalogue_report_in_chromium(name, tmp_path):
    """Each step has the docs pages' 60 s (a symbolic section that needs longer -- the
    snake's and the rattleback's constraint geometry -- is shown as not computed; the page
    keeps its formulas, simulation and figures)."""
    _check_in_browser(name, tmp_path, step_timeout=60.0)
