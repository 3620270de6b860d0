"""The report page of every catalogue system, built with the documentation.

``conf.py`` calls :func:`build` when the build starts: each system's page
(``gm.report(S, analyses=False).render("html")``) is written to
``docs/generated/report_site/reports/NAME.html`` -- copied into the site by
``html_extra_path`` -- and the list of pages to ``docs/generated/report_pages_list.inc``,
included by ``report_pages.rst``.  The analyses (symmetries, integrals, measure, Hamiltonian
structure) are left out to keep the build short (the heavy bodies' analyses take minutes; each
page says so); the simulation and its figures are in.

Each page is built in a process of its own, two at a time (the CI machine has two cores),
under a wall-clock limit of :data:`PAGE_SECONDS`: a report that takes longer gets a page that
says so and names the command that builds it; so do the systems of :data:`NOT_BUILT`,
without trying.  Each step of a report has :data:`STEP_SECONDS`
(``step_timeout``): a symbolic section that needs longer is shown as not computed (the page
says so and names ``--step-timeout``), and the page still has its simulation and figures.
Pages are rebuilt only when a source file of the package is newer than them.  Run it alone
from the repository root with ``python docs/report_pages.py`` (``python docs/report_pages.py
NAME ...``: those pages only, rebuilt).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
SITE = DOCS / "generated" / "report_site"
PAGES = SITE / "reports"
LISTING = DOCS / "generated" / "report_pages_list.inc"
PAGE_SECONDS = 180.0
#: Seconds allowed to each step of a page's report (a cooperative limit, see
#: :func:`geomech.report.build_report`).
STEP_SECONDS = 60.0
#: Systems whose page is not built with the documentation, and why (each still gets a page
#: saying so, with the command that builds it).
NOT_BUILT: dict[str, str] = {}


def _newest_source() -> float:
    return max(p.stat().st_mtime for p in (ROOT / "geomech").rglob("*.py"))


def _placeholder(name: str, why: str) -> str:
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{name}</title>"
            f"</head><body><h1>geomech report: {name}</h1><p>{why}</p><p>Build it with "
            f"<code>geomech report {name} --format html -o {name}.html</code>.</p></body></html>")


def _page(name: str) -> None:
    """Build one page (in a worker process): the HTML file and ``NAME.json``, ``{"cpu":
    seconds, "problem": text}``."""
    sys.path.insert(0, str(ROOT))
    import geomech as gm

    t0 = time.process_time()
    try:
        rep = gm.report(gm.examples.get(name), analyses=False, step_timeout=STEP_SECONDS)
        page = rep.render("html")
        late = [f"{s.title} ({s.lines[0][0][:120]})" if s.lines else s.title
                for s in rep.sections if s.status == "not computed"]
        problem = ("a section failed" if not rep.ok else
                   f"not computed: {'; '.join(late)}" if late else "")
    except Exception as exc:  # noqa: BLE001 - a page that cannot be built says why
        page = _placeholder(name, f"The report could not be built: {type(exc).__name__}: "
                                  f"{exc}")
        problem = f"{type(exc).__name__}: {exc}"
    (PAGES / f"{name}.html").write_text(page, encoding="utf-8")
    (PAGES / f"{name}.json").write_text(json.dumps(
        {"cpu": time.process_time() - t0, "problem": problem}), encoding="utf-8")


def _run(names: list[str], workers: int, quiet: bool) -> dict[str, dict]:
    """Build the pages of ``names``, ``workers`` processes at a time, each stopped after
    :data:`PAGE_SECONDS`; returns ``{name: {"cpu", "problem", "seconds"}}``."""
    ctx = mp.get_context("spawn")
    todo, running, done = list(names), {}, {}
    while todo or running:
        while todo and len(running) < workers:
            name = todo.pop(0)
            (PAGES / f"{name}.json").unlink(missing_ok=True)
            proc = ctx.Process(target=_page, args=(name,), daemon=True)
            proc.start()
            running[name] = (proc, time.perf_counter())
        time.sleep(0.2)
        for name, (proc, start) in list(running.items()):
            elapsed = time.perf_counter() - start
            if proc.is_alive() and elapsed < PAGE_SECONDS:
                continue
            if proc.is_alive():
                proc.terminate()
                proc.join()
                why = (f"This page is not built with the documentation: the report takes more "
                       f"than {PAGE_SECONDS:.0f} s.")
                (PAGES / f"{name}.html").write_text(_placeholder(name, why), encoding="utf-8")
                row = {"cpu": None, "problem": f"not built: over {PAGE_SECONDS:.0f} s"}
            else:
                info = PAGES / f"{name}.json"
                row = (json.loads(info.read_text()) if info.exists() else
                       {"cpu": None, "problem": f"the build process ended ({proc.exitcode})"})
                info.unlink(missing_ok=True)
            row["seconds"] = elapsed
            done[name] = row
            del running[name]
            if not quiet:
                size = (PAGES / f"{name}.html").stat().st_size / 1024
                cpu = "" if row["cpu"] is None else f", {row['cpu']:.1f} s CPU"
                print(f"report page {name}: {size:.0f} kB, {elapsed:.0f} s{cpu}"
                      + (f" ({row['problem']})" if row["problem"] else ""), flush=True)
    return done


def _listing(rows) -> str:
    out = [".. list-table::", "   :header-rows: 1", "   :widths: 30 55 15", "",
           "   * - System", "     - What it is", "     - Page"]
    for name, about, size, problem in sorted(rows):
        note = f" (*{problem}*)" if problem else ""
        out += [f"   * - `{name} <reports/{name}.html>`__", f"     - {about}{note}",
                f"     - {size / 1024:.0f} kB"]
    return "\n".join(out) + "\n"


def build(workers: int = 2, quiet: bool = False, skip: bool = False,
          only: list[str] | None = None) -> dict:
    """Build the pages that are missing or older than the package's sources, and the
    listing; returns ``{name: {"cpu", "problem", "seconds"}}`` of the pages built now.
    ``skip``: build none (missing pages say so); ``only``: (re)build these pages, stale or
    not (``python docs/report_pages.py NAME ...``)."""
    sys.path.insert(0, str(ROOT))
    import geomech as gm
    from geomech.reporting.sections import first_sentence

    PAGES.mkdir(parents=True, exist_ok=True)
    newest = _newest_source()
    names = gm.examples.list()
    stale = [] if skip else [n for n in names if not (PAGES / f"{n}.html").exists()
                             or (PAGES / f"{n}.html").stat().st_mtime < newest]
    if only is not None:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise ValueError(f"not catalogue systems: {', '.join(unknown)}")
        stale = [n for n in names if n in only]
    for n in [n for n in stale if n in NOT_BUILT]:
        stale.remove(n)
        (PAGES / f"{n}.html").write_text(_placeholder(
            n, f"This page is not built with the documentation: {NOT_BUILT[n]}."),
            encoding="utf-8")
    built = _run(stale, workers, quiet) if stale else {}
    rows = []
    for n in names:
        path = PAGES / f"{n}.html"
        if not path.exists():
            path.write_text(_placeholder(n, "This page was not built "
                                            "(GEOMECH_DOCS_REPORT_PAGES=0)."), encoding="utf-8")
        problem = "not built with the docs" if n in NOT_BUILT else \
            built.get(n, {}).get("problem", "")
        rows.append((n, first_sentence(gm.examples.REGISTRY[n].__doc__ or ""),
                     path.stat().st_size, problem))
    LISTING.write_text(_listing(rows), encoding="utf-8")
    return built


if __name__ == "__main__":
    t0 = time.perf_counter()
    rows = build(only=sys.argv[1:] or None)
    cpu = sum(r["cpu"] or 0.0 for r in rows.values())
    print(f"{len(rows)} pages built in {time.perf_counter() - t0:.0f} s ({cpu:.0f} s CPU in "
          "the workers)")
