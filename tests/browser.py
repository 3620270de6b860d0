"""Headless Chromium for the report tests and the documentation's screenshot: find the
browser, load a local page, return its DOM after layout or a screenshot.

Flags: no sandbox (CI runs as root), no GPU, no network activity of its own (no QUIC,
background networking, component updates or sync), a fresh profile per run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import numpy as np

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars")


def find_chromium() -> str | None:
    """Path of a Chromium-family browser, or None."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(browser: str, page: str, extra: list[str], timeout: float) -> str:
    url = "file://" + os.path.abspath(page)
    with tempfile.TemporaryDirectory(prefix="geomech-chromium-") as profile:
        done = subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *extra, url],
                              capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{browser} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def dump_dom(browser: str, page: str, timeout: float = 180.0) -> str:
    """The page's DOM after Chromium parsed and laid it out (``--dump-dom``)."""
    return _run(browser, page, ["--dump-dom"], timeout)


def screenshot(browser: str, page: str, out: str, size=(1100, 1600),
               timeout: float = 180.0) -> str:
    """A PNG of the top of the page (``--screenshot``); returns ``out``."""
    _run(browser, page, [f"--screenshot={os.path.abspath(out)}",
                         f"--window-size={size[0]},{size[1]}"], timeout)
    return out


def ink(png: str) -> tuple[float, float]:
    """``(standard deviation of the grey levels, fraction of non-white pixels)`` of an
    image: a blank page has ``(0, 0)``."""
    from PIL import Image

    with Image.open(png) as im:
        grey = np.asarray(im.convert("L"), dtype=float)
    return float(grey.std()), float((grey < 200).mean())
