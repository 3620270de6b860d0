"""Catalogue study: ``gm.report(S)`` of every catalogue system with its default options.

Issue 22's target: every catalogue report complete (no section "not computed") in under
30 s.  A report runs its steps in threads with wall-clock limits, so the table shows the
CPU time of the whole process after the imports (every thread counted, abandoned ones
included until the report returns) beside the wall time, and the sections that were not
computed.  No peer: no other tool writes these reports; the "size" of a row is the index of
the system in ``gm.examples.list()``, shown by name.
"""

from __future__ import annotations

import time

STUDY = {
    "name": "reports",
    "sizes": list(range(40)),            # cut to the catalogue's length by ``measure``
    "quick_sizes": [3, 10, 12],
    "tools": ["geomech"],
    "peer": "none (no other tool writes these reports); target: complete in under 30 s",
    "floor": None,
    "independent_sizes": True,           # a timeout of one system says nothing of the next
    "target": 30.0,
}


def catalogue() -> list[str]:
    import geomech as gm

    return list(gm.examples.list())


def measure(size: int, tool: str) -> dict:
    """CPU and wall seconds of ``gm.report(S)`` for the ``size``-th catalogue system, and
    the titles of the sections not computed."""
    from sympy.core.cache import clear_cache

    import geomech as gm

    names = catalogue()
    if size >= len(names):
        return {"seconds": None, "skip": True}
    name = names[size]
    S = gm.examples.get(name)
    clear_cache()
    t0, w0 = time.process_time(), time.perf_counter()
    rep = gm.report(S)
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    missing = [s.title for s in rep.sections if s.status != "ok"]
    return {"seconds": cpu, "ops": None,
            "result": {"system": name, "wall": round(wall, 1), "not_ok": missing}}


def table(results: dict) -> list[str]:
    """The study's own table: one row per system, the target checked."""
    head = ["system", "CPU s", "wall s", "peak MB", "sections not ok", "complete < 30 s"]
    lines = ["### reports", "", f"peer: {STUDY['peer']}", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    met = total = 0
    names = catalogue()
    for size in sorted(results, key=int):
        row = results[size].get("geomech") or {}
        if row.get("skip"):
            continue
        total += 1
        res = row.get("result") or {}
        name = res.get("system") or (names[int(size)] if int(size) < len(names) else size)
        if row.get("seconds") is None:
            cells = [name, "timeout" if row.get("timeout") else "error", "-", "-", "-", "no"]
        else:
            ok = not res.get("not_ok") and row["seconds"] < STUDY["target"]
            met += ok
            cells = [name, f"{row['seconds']:.1f}", f"{res.get('wall', 0):.1f}",
                     f"{row.get('peak_mb', 0):.0f}", ", ".join(res.get("not_ok") or []) or "-",
                     "yes" if ok else "**no**"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", f"complete in under {STUDY['target']:.0f} s CPU: {met} of {total} systems.",
              ""]
    return lines
