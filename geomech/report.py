r"""Analysis report of a system: text, Markdown, LaTeX, JSON or a web page (HTML with MathML
and figures), computed section by section.

A report is a list of :class:`Section` objects, each computed by one step (configuration
space, constraint geometry, equations of motion, energy or power balance, integrals,
measure, a short simulation ...).  :func:`iter_report` yields the sections as they are
computed (the command line streams them); :func:`report` / :func:`build_report` collect them
in a :class:`Report`.  Every section ends in one of four states: computed (``"ok"``),
``"not computed"`` (a time limit; the text names the option that would compute it),
``"does not apply"`` (e.g. a pseudo-Hamiltonian form with non-potential forces) or
``"failed"`` (an error, shown in the section; the command line then exits with status 1).

The module is the front: the value types are in :mod:`geomech.reporting.model`, the sections
and the steps computing them in :mod:`geomech.reporting.sections`, the rendering in
:mod:`geomech.reporting.render`, each name in its own module.

Time limits are cooperative (:func:`geomech.core.budget.time_limit`): they hold in any
thread, without signals.

Examples
--------
>>> import geomech as gm
>>> rep = gm.report(gm.examples.chaplygin_sleigh(), simulation=False, analyses=False)
>>> [s.title for s in rep.sections][:3]
['System', 'Configuration space', 'Lagrangian and constraints']
>>> "growth vector" in rep.render("text")
True
>>> rep.to_dict()["sections"][0]["status"]
'ok'
"""

from __future__ import annotations

import sys
import time
import types
from collections.abc import Callable, Iterator, Mapping

from geomech.reporting.model import Report, Section
from geomech.reporting.sections import report_steps, run_step

__all__ = ["report", "build_report", "iter_report"]


def iter_report(obj, method: str = "lagrange_dalembert", simulate: bool = True,
                t_end: float = 5.0, step_timeout: float | None = None, analyses: bool = True,
                analysis_timeout: float | None = 30.0, parameters: Mapping | None = None,
                on_step: Callable | None = None, figures: bool = True) -> Iterator[Section]:
    """Compute the sections of the report of ``obj`` one by one and yield each as soon as it
    is done (the arguments are those of :func:`build_report`).

    ``on_step(k, n, label, seconds)`` is called before step ``k`` of ``n`` (with
    ``seconds=None``) and after it (with its duration).

    >>> import geomech as gm
    >>> it = iter_report(gm.examples.chaplygin_sleigh(), simulate=False, analyses=False)
    >>> next(it).title
    'System'
    """
    steps = report_steps(obj, method, simulate, t_end, analyses, parameters, figures)
    for k, step in enumerate(steps, 1):
        if on_step is not None:
            on_step(k, len(steps), step.label, None)
        limit = analysis_timeout if step.kind == "analysis" else step_timeout
        t0 = time.perf_counter()
        sections = run_step(step, limit)
        dt = time.perf_counter() - t0
        for sec in sections:
            sec.seconds = dt
        if on_step is not None:
            on_step(k, len(steps), step.label, dt)
        yield from sections


def _stderr_progress(k: int, n: int, label: str, seconds: float | None) -> None:
    if seconds is None:
        print(f"[{k}/{n}] {label} ...", end="", file=sys.stderr, flush=True)
    else:
        print(f" {seconds:.2f} s", file=sys.stderr, flush=True)


def build_report(obj, method: str = "lagrange_dalembert", simulate: bool = True,
                 t_end: float = 5.0, progress: bool = False,
                 step_timeout: float | None = None, analyses: bool = True,
                 analysis_timeout: float | None = 30.0,
                 parameters: Mapping | None = None, figures: bool = True) -> Report:
    """Compute every section of the report of ``obj`` (a system or a catalogue object).

    Parameters
    ----------
    obj : NonholonomicSystem or an object with ``report_sections()``
    method : str
        Form of the equations of motion to print.
    simulate : bool
        Include a short numerical run (drift of the integrals, or the power balance when
        there are forces).
    t_end : float
        Length of that run.
    progress : bool
        Print each step and its time on ``stderr`` as it runs.
    step_timeout : float, optional
        Seconds allowed to each step; one that exceeds it is reported as not computed.
    analyses : bool
        Include the analyses of :data:`ANALYSES` (symmetries, integrals, measure,
        Hamiltonian structure).
    analysis_timeout : float, optional
        Seconds allowed to each analysis; one that exceeds it is reported as not computed.
    parameters : mapping, optional
        Parameter values ``{name: number}`` for the simulation (the others keep their
        defaults).
    figures : bool
        Include the Figures section (:mod:`geomech.reporting.figures`: the path in the
        plane, the drift, a phase portrait ... of the simulation), shown by
        ``render("html")``.

    Returns
    -------
    Report
    """
    rep = Report(getattr(obj, "name", type(obj).__name__))
    rep.sections.extend(iter_report(obj, method, simulate, t_end, step_timeout, analyses,
                                    analysis_timeout, parameters,
                                    _stderr_progress if progress else None, figures))
    return rep


def report(system, *, method: str = "lagrange_dalembert", simulation: bool = True,
           t_end: float = 5.0, analyses: bool = True, analysis_timeout: float | None = 30.0,
           step_timeout: float | None = None, parameters: Mapping | None = None,
           progress: bool = False, figures: bool = True) -> Report:
    """The analysis report of ``system`` (``gm.report``): a :class:`Report`.

    The same sections as ``geomech report`` on the command line (see :func:`build_report`
    for the arguments); ``rep.render("text" | "markdown" | "latex" | "json" | "html")``
    (``"html"``: one self-contained page, formulas in MathML, the figures inline),
    ``rep.to_dict()``, and in Jupyter the report displays itself (as that page).

    >>> import geomech as gm
    >>> rep = gm.report(gm.examples.chaplygin_sleigh(), simulation=False, analyses=False)
    >>> rep.ok, rep.sections[-1].title
    (True, 'Energy')
    """
    return build_report(system, method=method, simulate=simulation, t_end=t_end,
                        progress=progress, step_timeout=step_timeout, analyses=analyses,
                        analysis_timeout=analysis_timeout, parameters=parameters,
                        figures=figures)


class _CallableModule(types.ModuleType):
    """``geomech.report`` is both this module and the function :func:`report`: Python binds
    the submodule ``geomech.report`` as the package attribute ``gm.report``, so the module
    itself forwards calls to :func:`report` (``gm.report(S)``, the public API)."""

    def __call__(self, system, **options) -> Report:
        return report(system, **options)


sys.modules[__name__].__class__ = _CallableModule
