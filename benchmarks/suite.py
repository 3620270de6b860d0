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
import signal
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


def _cpu_limit(seconds: float):
    """``preexec_fn`` of a child: at most ``seconds`` of CPU time (the kernel stops it)."""
    def limit():
        s = max(1, math.ceil(seconds))
        resource.setrlimit(resource.RLIMIT_CPU, (s, s + 1))
    return limit


def child(study: str, size: int, tool: str, timeout: float) -> dict:
    """One fresh subprocess; ``{"timeout": True}`` when it runs over ``timeout`` seconds of
    **CPU time** (a limit the kernel enforces: on a loaded machine a wall-clock limit would
    stop the slower tool early and flatter the other; the wall clock is only a backstop at
    20 times the limit)."""
    cmd = [sys.executable, str(HERE / "suite.py"), "--one", study, str(size), tool]
    env_path = str(ROOT)
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = env_path + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH")
                                    else "")
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20 * timeout + 60,
                             env=env, preexec_fn=_cpu_limit(timeout))
    except subprocess.TimeoutExpired:
        return {"timeout": True, "seconds": None}
    if out.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
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
    if b.get("seconds") is None or min(a["seconds"], b["seconds"]) < TICK:
        return "-"                      # below the resolution of a measurement
    return f"{a['seconds'] / b['seconds']:.2f}"


#: times below this (CPU seconds) are not compared: the ratio of two such times is noise
#: (a floor below a millisecond is timed as the mean of repeated calls,
#: ``_study_tools.timed_mean``, and compared)
TICK = 2e-4


def _agree(rows: dict) -> str:
    res = [r.get("result") for r in rows.values() if r and r.get("result") is not None]
    if len(res) < 2:
        return "-"
    key = [json.dumps({k: v for k, v in r.items() if k != "certain"}
                      if isinstance(r, dict) else r, sort_keys=True) for r in res]
    return "yes" if len(set(key)) == 1 else "**no**"


def _has_certainty(results: dict) -> bool:
    """Whether a study records the certainty of its verdicts (``result["certain"]``)."""
    return any(isinstance((r or {}).get("result"), dict) and "certain" in r["result"]
               for rows in results.values() for r in rows.values())


def _certain(row: dict | None) -> str:
    """``yes`` (a proof), ``no`` (a probable or uncertified verdict) or ``-``."""
    res = (row or {}).get("result")
    if not isinstance(res, dict) or "certain" not in res:
        return "-"
    return "yes" if res["certain"] else "no"


def table(mod, results: dict) -> list[str]:
    """The study's results table: the module's own ``table(results)`` when it defines one
    (a study that is not a growth study), else sizes against tools with ratios and fitted
    growth exponents."""
    if hasattr(mod, "table"):
        return mod.table(results)
    st = mod.STUDY
    tools = st["tools"]
    lines = [f"### {st['name']}", "", f"peer: {st['peer']}" + (
        f"; floor: {st['floor']}" if st.get("floor") else ""), "",
        f"ops: {st['ops']}" if st.get("ops") else "", ""]
    peer = tools[1]                     # the user's route; a third tool is the floor
    floor = tools[2] if len(tools) > 2 else None
    head = ["size", *tools, f"geomech/{peer}"]
    if floor:
        head.append(f"geomech/{floor}")
    head += [f"ops geomech / {peer}", "results agree"]
    certain = _has_certainty(results)
    if certain:
        head.append("certain (" + " / ".join(tools) + ")")
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for size in sorted(results, key=int):
        rows = results[size]
        cells = [str(size), *(_fmt(rows.get(t)) for t in tools),
                 _ratio(rows.get("geomech"), rows.get(peer))]
        if floor:
            cells.append(_ratio(rows.get("geomech"), rows.get(floor)))
        cells.append(" / ".join(str((rows.get(t) or {}).get("ops") or "-")
                                for t in ("geomech", peer)))
        cells.append(_agree(rows))
        if certain:
            cells.append(" / ".join(_certain(rows.get(t)) for t in tools))
        lines.append("| " + " | ".join(cells) + " |")
    exps = []
    for t in tools:
        pts = [(int(s), r[t]["seconds"]) for s, r in results.items()
               if r.get(t) and r[t].get("seconds")]
        k = slope(pts)
        exps.append(f"{t} {k:.2f}" if k is not None else f"{t} -")
    lines += ["", "growth exponent (log-log slope of time in size): " + ", ".join(exps)]
    lines += [_losses(results, tools), ""]
    return lines


def _losses(results: dict, tools: list[str]) -> str:
    """One sentence: the sizes where geomech is slower than the peer (and than the floor)."""
    out = []
    for other in [t for t in tools if t != "geomech"]:
        lost = [f"{s} ({float(_ratio(r.get('geomech'), r.get(other))):.2g}x)"
                for s, r in sorted(results.items(), key=lambda kv: int(kv[0]))
                if _ratio(r.get("geomech"), r.get(other))[:1].isdigit()
                and float(_ratio(r.get("geomech"), r.get(other))) > 1]
        out.append(f"slower than {other} at size {', '.join(lost)}" if lost
                   else f"never slower than {other}")
    return "geomech: " + "; ".join(out) + "."


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


def _save(path: pathlib.Path, name: str, results: dict) -> None:
    """Write the study's rows into ``results.json``, read again first (other studies may
    have been written meanwhile by another run)."""
    saved = json.loads(path.read_text()) if path.exists() else {}
    saved[name] = results
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(saved, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the studies' quick sizes")
    ap.add_argument("--only", default="", help="comma-separated study names")
    ap.add_argument("--repeat", type=int, default=2, help="runs per cell (best CPU time)")
    ap.add_argument("--timeout", type=float, default=300.0, help="CPU seconds per run")
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
                if not st.get("independent_sizes") and any(p and p.get("timeout")
                                                           for p in prev):
                    results[str(size)][tool] = {"timeout": True, "seconds": None}
                    continue              # a smaller size already timed out
                row = best_of(name, size, tool, args.repeat, limit)
                results[str(size)][tool] = row
                if row.get("skip"):       # past the end of the study's items
                    break
                print(f"{name} {size} {tool}: {_fmt(row)}", flush=True)
                _save(out_json, name, results)  # after every cell (a long run can stop)
            if any((r or {}).get("skip") for r in results[str(size)].values()):
                del results[str(size)]
                _save(out_json, name, results)
                break
        saved[name] = results
        sections += table(mod, results)
    write_readme(sections, time.strftime("%Y-%m-%d"))
    print("\n".join(sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
