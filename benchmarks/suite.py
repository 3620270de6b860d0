"""The growth studies of geomech against the user's usual route, one command (issue 22).

    python benchmarks/suite.py [--quick] [--only STUDY,...] [--repeat K] [--timeout S]

Every ``benchmarks/study_<name>.py`` defines ``STUDY`` (``name``, ``sizes``, ``quick_sizes``,
``tools``, ``peer``, ``floor``; optionally ``timeout`` per tool) and
``measure(size, tool) -> {"seconds", "ops", "result"}``.  Each (study, size, tool) runs in a
**fresh subprocess** (``python benchmarks/suite.py --one STUDY SIZE TOOL`` prints one JSON
row: CPU seconds of the computation after the imports, as the study measures it, and the
peak resident memory of the process), best of ``--repeat``; a run over its time limit is
recorded as a timeout.  The results table (ratios geomech/peer, the floor beside the
headline, fitted growth exponents per tool, agreement of the results) is written between
the markers in ``benchmarks/README.md`` and a copy of the rows to ``benchmarks/results.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import pathlib
import resource
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
BEGIN, END = "<!-- suite:begin -->", "<!-- suite:end -->"


def discover() -> dict:
    """``{name: module}`` of the study modules next to this file."""
    out = {}
    for path in sorted(HERE.glob("study_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out[mod.STUDY["name"]] = mod
    return out


def run_one(study: str, size: int, tool: str) -> dict:
    """The ``--one`` child: measure once and report CPU time and peak memory."""
    mod = discover()[study]
    row = mod.measure(size, tool)
    row["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return row


def child(study: str, size: int, tool: str, timeout: float) -> dict:
    """One fresh subprocess; ``{"timeout": True}`` when it runs over ``timeout`` seconds."""
    cmd = [sys.executable, str(HERE / "suite.py"), "--one", study, str(size), tool]
    env_path = str(ROOT)
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = env_path + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                    else "")
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"timeout": True, "seconds": None}
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"error": (out.stderr.strip().splitlines() or ["no output"])[-1],
                "seconds": None}
    return json.loads(lines[-1])


def best_of(study: str, size: int, tool: str, repeat: int, timeout: float) -> dict:
    best = None
    for _ in range(repeat):
        row = child(study, size, tool, timeout)
        if row.get("seconds") is None:
            return row if best is None else best
        if best is None or row["seconds"] < best["seconds"]:
            best = row
    return best


def slope(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of log(time) against log(size) (the growth exponent)."""
    pts = [(math.log(n), math.log(t)) for n, t in points if t and t > 0 and n > 0]
    if len(pts) < 3:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return None if den == 0 else sum((x - mx) * (y - my) for x, y in pts) / den


def _fmt(row: dict | None) -> str:
    if row is None:
        return "-"
    if row.get("timeout"):
        return "timeout"
    if row.get("error"):
        return "error"
    return f"{row['seconds']:.3g} s, {row.get('peak_mb', 0):.0f} MB"


def _ratio(a: dict | None, b: dict | None) -> str:
    if not a or not b or a.get("seconds") is None:
        return "-" if not (a and a.get("seconds") is not None and b and b.get("timeout")) \
            else "< 1 (peer timed out)"
    if b.get("seconds") is None:
        return "-"
    return f"{a['seconds'] / max(b['seconds'], 1e-9):.2f}"


def _agree(rows: dict) -> str:
    res = [r.get("result") for r in rows.values() if r and r.get("result") is not None]
    if len(res) < 2:
        return "-"
    key = [json.dumps({k: v for k, v in r.items() if k != "certain"}, sort_keys=True)
           for r in res]
    return "yes" if len(set(key)) == 1 else "**no**"


def table(mod, results: dict) -> list[str]:
    st = mod.STUDY
    tools = st["tools"]
    lines = [f"### {st['name']}", "", f"peer: {st['peer']}" + (
        f"; floor: {st['floor']}" if st.get("floor") else ""), ""]
    head = ["size", *tools, "geomech/peer"]
    if "floor" in tools:
        head.append("geomech/floor")
    head.append("results agree")
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for size in sorted(results, key=int):
        rows = results[size]
        cells = [str(size), *(_fmt(rows.get(t)) for t in tools),
                 _ratio(rows.get("geomech"), rows.get("peer"))]
        if "floor" in tools:
            cells.append(_ratio(rows.get("geomech"), rows.get("floor")))
        cells.append(_agree(rows))
        lines.append("| " + " | ".join(cells) + " |")
    exps = []
    for t in tools:
        pts = [(int(s), r[t]["seconds"]) for s, r in results.items()
               if r.get(t) and r[t].get("seconds")]
        k = slope(pts)
        exps.append(f"{t} {k:.2f}" if k is not None else f"{t} -")
    lines += ["", "growth exponent (log-log slope of time in size): " + ", ".join(exps), ""]
    return lines


def write_readme(sections: list[str], stamp: str) -> None:
    path = HERE / "README.md"
    text = path.read_text() if path.exists() else f"# Benchmarks\n\n{BEGIN}\n{END}\n"
    if BEGIN not in text:
        text += f"\n{BEGIN}\n{END}\n"
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    body = "\n".join([f"_Generated by `python benchmarks/suite.py` on {stamp}._", "",
                      *sections])
    path.write_text(f"{head}{BEGIN}\n{body}\n{END}{tail}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the studies' quick sizes")
    ap.add_argument("--only", default="", help="comma-separated study names")
    ap.add_argument("--repeat", type=int, default=2, help="runs per cell (best CPU time)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    ap.add_argument("--one", nargs=3, metavar=("STUDY", "SIZE", "TOOL"))
    ap.add_argument("--table", action="store_true",
                    help="only regenerate the README table from results.json")
    args = ap.parse_args(argv)
    if args.one:
        study, size, tool = args.one
        print(json.dumps(run_one(study, int(size), tool)), flush=True)
        return 0
    studies = discover()
    only = [s for s in args.only.split(",") if s]
    out_json = HERE / "results.json"
    saved = json.loads(out_json.read_text()) if out_json.exists() else {}
    sections = []
    for name, mod in studies.items():
        if args.table or (only and name not in only):
            if name in saved:
                sections += table(mod, saved[name])
            continue
        st = mod.STUDY
        sizes = st["quick_sizes"] if args.quick else st["sizes"]
        results: dict = {}
        for size in sizes:
            results[str(size)] = {}
            for tool in st["tools"]:
                limit = st.get("timeout", {}).get(tool, args.timeout)
                prev = [results[s].get(tool) for s in results if s != str(size)]
                if any(p and p.get("timeout") for p in prev):
                    results[str(size)][tool] = {"timeout": True, "seconds": None}
                    continue              # a smaller size already timed out
                row = best_of(name, size, tool, args.repeat, limit)
                results[str(size)][tool] = row
                print(f"{name} {size} {tool}: {_fmt(row)}", flush=True)
        saved[name] = results
        out_json.write_text(json.dumps(saved, indent=1, sort_keys=True) + "\n")
        sections += table(mod, results)
    write_readme(sections, time.strftime("%Y-%m-%d"))
    print("\n".join(sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
