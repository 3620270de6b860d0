"""Command line: ``python -m geomech report NAME`` and ``python -m geomech list``."""

from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m geomech",
                                description="Geometric mechanics of nonholonomic systems.")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the catalogue systems")
    r = sub.add_parser("report", help="analysis report of a catalogue system")
    r.add_argument("name", help="catalogue name, e.g. chaplygin_sleigh")
    r.add_argument("--format", choices=("text", "markdown", "latex"), default="text")
    r.add_argument("--method", default="lagrange_dalembert",
                   help="form of the equations of motion to print")
    r.add_argument("--no-simulation", action="store_true", help="skip the numerical run")
    r.add_argument("--t-end", type=float, default=5.0, help="length of the numerical run")
    r.add_argument("--step-timeout", type=float, default=300.0,
                   help="seconds allowed to each step (default 300; 0 = no limit)")
    r.add_argument("--analysis-timeout", type=float, default=30.0,
                   help="seconds allowed to each analysis (symmetries, integrals, measure, "
                        "Hamiltonian structure); default 30, 0 = no limit")
    r.add_argument("--no-analyses", action="store_true",
                   help="skip symmetries, integrals, measure and Hamiltonian structure")
    r.add_argument("--quiet", action="store_true", help="no progress on stderr")
    r.add_argument("-o", "--output", help="write to this file instead of stdout")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    args = _parser().parse_args(argv)
    from . import examples

    if args.command == "list":
        for name in examples.list():
            doc = (examples.REGISTRY[name].__doc__ or "").strip().splitlines()
            print(f"{name:32s} {doc[0] if doc else ''}")
        return 0
    try:
        obj = examples.get(args.name)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from .report import build_report

    rep = build_report(obj, method=args.method, simulate=not args.no_simulation,
                       t_end=args.t_end, progress=not args.quiet,
                       step_timeout=args.step_timeout or None,
                       analyses=not args.no_analyses,
                       analysis_timeout=args.analysis_timeout or None)
    text = rep.render(args.format)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    if not rep.ok:
        print("error: some report steps failed (see FAILED sections)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
