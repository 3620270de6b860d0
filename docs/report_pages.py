"""The report page of every catalogue system, built with the documentation.

``conf.py`` calls :func:`build` when the build starts: each system's page
(``gm.report(S, analyses=False).render("html")``) is written to
``docs/generated/report_site/reports/NAME.html`` -- copied into the site by
``html_extra_path`` -- and the list of pages to ``docs/generated/report_pages_list.inc``,
included by ``report_pages.rst``.  The analyses (symmetries, integrals, measure, Hamiltonian
structure) are left out to keep the build short (the heavy bodies' analyses take minutes; each
page says so); the simulation and its figures are in.  Pages are rebuilt only when a source
file of the package is newer than them; two worker processes share the systems (the CI
machine has two cores).  Run it alone from the repository root with
``python docs/report_pages.py``.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
SITE = DOCS / "generated" / "report_site"
PAGES = SITE / "reports"
LISTING = DOCS / "generated" / "report_pages_list.inc"
STEP_TIMEOUT = 240.0


def _newest_source() -> float:
    return max(p.stat().st_mtime for p in (ROOT / "geomech").rglob("*.py"))


def _page(name: str) -> tuple[str, str, int, float, str]:
    """Build one page: ``(name, first sentence, bytes, seconds, problem or "")``."""
    sys.path.insert(0, str(ROOT))
    import geomech as gm
    from geomech.reporting.sections import first_sentence

    t0 = time.process_time()
    about = first_sentence(gm.examples.REGISTRY[name].__doc__ or "")
    try:
        rep = gm.report(gm.examples.get(name), analyses=False, step_timeout=STEP_TIMEOUT)
        page = rep.render("html")
        problem = "" if rep.ok else "a section failed"
    except Exception as exc:  # noqa: BLE001 - a page that cannot be built says why
        page = (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{name}"
                f"</title></head><body><h1>{name}</h1><p>The report could not be built: "
                f"{type(exc).__name__}: {exc}</p></body></html>")
        problem = f"{type(exc).__name__}: {exc}"
    (PAGES / f"{name}.html").write_text(page, encoding="utf-8")
    return name, about, len(page.encode()), time.process_time() - t0, problem


def _listing(rows) -> str:
    out = [".. list-table::", "   :header-rows: 1", "   :widths: 30 55 15", "",
           "   * - System", "     - What it is", "     - Page"]
    for name, about, size, _, problem in sorted(rows):
        note = f" (*{problem}*)" if problem else ""
        out += [f"   * - `{name} <reports/{name}.html>`__", f"     - {about}{note}",
                f"     - {size / 1024:.0f} kB"]
    return "\n".join(out) + "\n"


def build(workers: int = 2, quiet: bool = False, skip: bool = False) -> list:
    """Build the pages that are missing or older than the package's sources, and the
    listing; returns the rows ``(name, about, bytes, CPU seconds, problem)`` of the pages
    built now.  ``skip``: build none (the listing says so for the missing ones)."""
    sys.path.insert(0, str(ROOT))
    import geomech as gm

    PAGES.mkdir(parents=True, exist_ok=True)
    newest = _newest_source()
    names = gm.examples.list()
    stale = [] if skip else [n for n in names if not (PAGES / f"{n}.html").exists()
                             or (PAGES / f"{n}.html").stat().st_mtime < newest]
    built = []
    if stale:
        ctx = mp.get_context("spawn")
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            for row in pool.map(_page, stale):
                built.append(row)
                if not quiet:
                    print(f"report page {row[0]}: {row[2] / 1024:.0f} kB, {row[3]:.1f} s CPU"
                          + (f" ({row[4]})" if row[4] else ""), flush=True)
    from geomech.reporting.sections import first_sentence

    rows = []
    for n in names:
        path = PAGES / f"{n}.html"
        if not path.exists():
            path.write_text(f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
                            f"<title>{n}</title></head><body><p>This page was not built "
                            "(GEOMECH_DOCS_REPORT_PAGES=0).</p></body></html>", encoding="utf-8")
        problem = next((r[4] for r in built if r[0] == n), "")
        rows.append((n, first_sentence(gm.examples.REGISTRY[n].__doc__ or ""),
                     path.stat().st_size, 0.0, problem))
    LISTING.write_text(_listing(rows), encoding="utf-8")
    return built


if __name__ == "__main__":
    t0 = time.perf_counter()
    rows = build()
    print(f"{len(rows)} pages built in {time.perf_counter() - t0:.0f} s "
          f"({sum(r[3] for r in rows):.0f} s CPU in the workers)")
