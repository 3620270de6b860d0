"""Command line: the console script ``geomech`` (also ``python -m geomech``).

::

    geomech list
    geomech report NAME | model.toml | package.module:function
            [--format text|markdown|latex|json|html] [--no-simulation] [--t-end T]
            [--analysis-timeout S] [--step-timeout S] [--quiet] [-o FILE] [--full]
            [--arg n=4] [--param m=2.5] [--method NAME] [--no-analyses] [--no-figures]
    geomech --version

Every format is written section by section as the sections are computed (JSON too: one
document whose sections arrive one by one; into a file, a complete document after every
section).  ``--format html`` writes one self-contained page: formulas in MathML, figures
inline (the path in the plane, the drift, a phase portrait of the simulation).

Exit status: 0 when every section was computed, was not computed for a stated reason or
does not apply; 1 when a section failed; 2 for a usage or input error (checked before any
computation); 130 when interrupted (the sections already computed are kept).

>>> main(["--version"]) == 0     # doctest: +ELLIPSIS
geomech ...
True
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import re
import sys
from collections.abc import Sequence

__all__ = ["main", "build_parser", "load_target", "UsageError"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class UsageError(ValueError):
    """A wrong option or target: reported in one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``geomech`` command."""
    from . import __version__

    p = argparse.ArgumentParser(prog="geomech",
                                description="Geometric mechanics of nonholonomic systems.")
    p.add_argument("--version", action="version", version=f"geomech {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the catalogue systems")
    r = sub.add_parser("report", help="analysis report of a system")
    r.add_argument("target", metavar="NAME|model.toml|module:function",
                   help="a catalogue name (see 'geomech list'), a model file (.toml) or a "
                        "Python function returning a system (package.module:function)")
    r.add_argument("--format", choices=("text", "markdown", "latex", "json", "html"),
                   default="text",
                   help="output format (html: one self-contained web page with MathML "
                        "formulas and figures)")
    r.add_argument("--method", default="lagrange_dalembert",
                   help="form of the equations of motion to print (default lagrange_dalembert)")
    r.add_argument("--no-simulation", action="store_true", help="skip the numerical run")
    r.add_argument("--t-end", type=float, default=5.0, metavar="T",
                   help="length of the numerical run (default 5)")
    r.add_argument("--step-timeout", type=float, default=300.0, metavar="S",
                   help="seconds allowed to each step (default 300; 0 = no limit)")
    r.add_argument("--analysis-timeout", type=float, default=30.0, metavar="S",
                   help="seconds allowed to each analysis (symmetries, integrals, measure, "
                        "Hamiltonian structure); default 30, 0 = no limit")
    r.add_argument("--no-analyses", action="store_true",
                   help="skip symmetries, integrals, measure and Hamiltonian structure")
    r.add_argument("--no-figures", action="store_true",
                   help="html: leave out the figures (they are drawn for html only)")
    r.add_argument("--quiet", action="store_true", help="no progress on stderr")
    r.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE (section by section) instead of stdout")
    r.add_argument("--full", action="store_true",
                   help="print every expression in full (no abbreviations, no appendix, no "
                        "line wrapping)")
    r.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                   help="argument of the catalogue constructor or of the function, e.g. "
                        "--arg n=4 (repeatable)")
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="value of a parameter for the simulation, e.g. --param m=2.5 "
                        "(repeatable)")
    return p


def _pairs(items: Sequence[str], option: str) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name) or not value.strip():
            raise UsageError(f"{option} expects NAME=VALUE, got {item!r}")
        out[name] = value.strip()
    return out


def _literal(text: str):
    """A constructor argument: an integer, a number, or the text itself (never evaluated)."""
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    try:
        value = float(text)
    except ValueError:
        return {"true": True, "false": False, "none": None}.get(text.lower(), text)
    return value


def _check_options(args) -> None:
    """Every option checked before any computation (``UsageError``)."""
    for opt, value in (("--t-end", args.t_end), ("--step-timeout", args.step_timeout),
                       ("--analysis-timeout", args.analysis_timeout)):
        if not math.isfinite(value) or value < 0 or (opt == "--t-end" and value == 0):
            need = "> 0" if opt == "--t-end" else ">= 0 (0 = no limit)"
            raise UsageError(f"{opt} must be a finite number {need}, got {value:g}")
    from geomech.mechanics.equations import available_methods

    methods = available_methods()
    if args.method not in methods:
        raise UsageError(f"--method: unknown form {args.method!r}; choose one of "
                         f"{', '.join(methods)}")
    if args.output:
        folder = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(folder):
            raise UsageError(f"-o: the folder {folder} does not exist")
        if os.path.isdir(args.output) or not os.access(folder, os.W_OK):
            raise UsageError(f"-o: cannot write {args.output}")


def _import_function(target: str):
    module_name, _, func_name = target.partition(":")
    if not module_name or not func_name:
        raise UsageError(f"expected package.module:function, got {target!r}")
    if os.getcwd() not in sys.path and "" not in sys.path:   # like 'python -m'
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import the module {module_name!r} of {target!r}: "
                         f"{exc}") from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise UsageError(f"the module {module_name!r} has no function {func_name!r}")
    return func


def load_target(target: str, args: dict | None = None):
    """The object named on the command line: a model file (``.toml``), a function
    ``package.module:function`` called with ``args``, or a catalogue name built with
    ``args``.  Input errors raise :class:`UsageError` naming the problem."""
    from . import examples
    from .interop.model import load_model

    args = args or {}
    if target.endswith(".toml") or os.path.isfile(target):
        if args:
            raise UsageError("--arg applies to catalogue systems and functions, not to model "
                             "files (put the values in the file's [parameters])")
        try:
            return load_model(target)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if ":" in target:
        func = _import_function(target)
        try:
            obj = func(**args)
        except TypeError as exc:
            raise UsageError(f"calling {target} with {args}: {exc}") from None
        if not (hasattr(obj, "phase_space") or hasattr(obj, "report_sections")):
            raise UsageError(f"{target} returned {type(obj).__name__}, not a system (a "
                             "NonholonomicSystem or a catalogue object)")
        return obj
    try:
        return examples.get(target, **args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except TypeError as exc:
        raise UsageError(f"catalogue system {target!r}: {exc}") from None


def _parameter_values(obj, given: dict[str, str]) -> dict[str, float]:
    if not given:
        return {}
    chart = getattr(obj, "manifold", None) or getattr(obj, "phase_space", None)
    known = {p.name for p in getattr(chart, "parameters", ())}
    out = {}
    for name, text in given.items():
        if name not in known:
            raise UsageError(f"--param: {name!r} is not a parameter of the system; its "
                             f"parameters are {', '.join(sorted(known)) or 'none'}")
        try:
            value = float(text)
        except ValueError:
            raise UsageError(f"--param {name}: expected a number, got {text!r}") from None
        if not math.isfinite(value):
            raise UsageError(f"--param {name}: expected a finite number, got {text!r}")
        out[name] = value
    return out


def _describe(func) -> str:
    """One plain line for ``geomech list``: the first sentence of the docstring, without
    markup or references to internal notes."""
    from geomech.reporting.sections import first_sentence

    text = first_sentence(func.__doc__ or "")
    text = re.sub(r"\s*\((?:spec |seeds?[_ \d])[^)]*\)", "", text)
    text = re.sub(r";\s*(?:spec |seeds?[_ \d])[^)]*", "", text)
    return text if text.endswith(".") or not text else text + "."


def _list() -> int:
    from . import examples

    names = examples.list()
    width = max(map(len, names))
    for name in names:
        print(f"{name:{width}s}  {_describe(examples.REGISTRY[name])}")
    return EXIT_OK


def _progress(k: int, n: int, label: str, seconds: float | None) -> None:
    if seconds is None:
        print(f"[{k}/{n}] {label} ...", end="", file=sys.stderr, flush=True)
    else:
        print(f" {seconds:.2f} s", file=sys.stderr, flush=True)


def _stream(obj, args, params, out):
    """Compute the report section by section, writing (and flushing) each one."""
    from geomech.reporting.model import Report
    from geomech.reporting.render import writer

    from .report import iter_report

    rep = Report(getattr(obj, "name", type(obj).__name__))
    sections = iter_report(obj, method=args.method, simulate=not args.no_simulation,
                           t_end=args.t_end, step_timeout=args.step_timeout or None,
                           analyses=not args.no_analyses,
                           analysis_timeout=args.analysis_timeout or None,
                           parameters=params, on_step=None if args.quiet else _progress,
                           figures=args.format == "html" and not args.no_figures)
    if args.format == "json" and out is not sys.stdout:
        for sec in sections:                   # a file: a complete document after each section
            rep.sections.append(sec)
            out.seek(0)
            out.truncate()
            json.dump(rep.to_dict(), out, indent=2)
            out.flush()
        return rep
    w = writer(args.format, full=args.full)
    out.write(w.header(rep.name))
    out.flush()
    for sec in sections:
        rep.sections.append(sec)
        out.write(w.section(sec))
        out.flush()
    out.write(w.footer())
    out.flush()
    return rep


def _report(args) -> int:
    try:
        _check_options(args)
        ctor_args = {k: _literal(v) for k, v in _pairs(args.arg, "--arg").items()}
        given = _pairs(args.param, "--param")
        obj = load_target(args.target, ctor_args)
        params = _parameter_values(obj, given)
        out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    except (UsageError, OSError) as exc:
        print(f"geomech report: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        rep = _stream(obj, args, params, out)
    except KeyboardInterrupt:
        where = f" in {args.output}" if args.output else ""
        print("\ninterrupted: the sections computed so far are kept" + where, file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        if out is not sys.stdout:
            out.close()
    if not rep.ok:
        failed = ", ".join(s.title for s in rep.sections if s.status == "failed")
        print(f"geomech report: some sections failed: {failed}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``geomech`` / ``python -m geomech``; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:            # --help, --version (0) and usage errors (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        return _list() if args.command == "list" else _report(args)
    except BrokenPipeError:              # `geomech list | head`: the reader left, not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)                # stdout now refers to it; the spare descriptor goes
        return EXIT_OK
