r"""The figures of a report, made by a registry of figure makers.

A maker is a function ``make(ctx: FigureContext) -> Figure | None`` registered with
:func:`figure_maker` (``None``: the figure does not apply to this system or run).  The
report's Figures step (:func:`figures_section`) asks every maker in turn, under the step's
time limit.  The makers here draw the report's simulation run: the path of the contact point
or centre in the plane with the body drawn along it (:mod:`geomech.numeric.shapes`), the drift
of the energy and of the constraints, and a phase portrait of the run; the stability diagram
of the steady motions joins them when the system has them.

Figures are SVG (matplotlib's SVG backend, text as paths), each with its alt text:
what the figure shows, in words, with the numbers that matter.

>>> sorted(FIGURE_MAKERS)[:2]
['drift', 'path']
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from geomech.core.budget import check
from geomech.mechanics.system import NonholonomicSystem
from geomech.reporting.formulas import latex_name
from geomech.reporting.model import Figure, Section
from geomech.reporting.simulation import numeric_defaults

__all__ = ["FigureContext", "FIGURE_MAKERS", "figure_maker", "figures_section", "svg_figure",
           "run_samples"]


@dataclass(frozen=True)
class FigureContext:
    """What a figure maker draws from: the system, the report's simulation run (a
    :class:`~geomech.numeric.result.SimulationResult`, or ``None`` when it was not run) and
    the numeric parameter values of that run."""

    system: object
    run: object = None
    parameters: dict = field(default_factory=dict)


#: The figure makers, in the order of the report: name -> ``make(ctx) -> Figure | None``.
FIGURE_MAKERS: dict[str, Callable[[FigureContext], Figure | None]] = {}


def figure_maker(name: str) -> Callable:
    """Decorator registering a figure maker under ``name`` (figures appear in registration
    order)."""
    def deco(make: Callable) -> Callable:
        if name in FIGURE_MAKERS:
            raise ValueError(f"a figure maker {name!r} is already registered")
        FIGURE_MAKERS[name] = make
        return make
    return deco


def svg_figure(fig, title: str, alt: str) -> Figure:
    """A matplotlib figure as a report :class:`~geomech.reporting.model.Figure` (SVG, no
    date in the file, so the same figure gives the same bytes)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    return Figure(title, alt, buf.getvalue(), "image/svg+xml")


def run_samples(run, points: int = 600) -> tuple[np.ndarray, np.ndarray]:
    """``(times, states)`` of a run at ``points`` equally spaced times (its dense output
    when it has one, else its own samples)."""
    sol = getattr(run.solution, "sol", None)
    if callable(sol):
        t = np.linspace(run.t[0], run.t[-1], points)
        return t, np.asarray(sol(t), dtype=float).T
    return np.asarray(run.t, float), np.asarray(run.states, float)


def figures_section(system, run=None, parameters: dict | None = None,
                    reason: str = "") -> Section:
    """The Figures section: every registered maker that applies.  ``reason`` says why there
    is no run (e.g. the simulation was not asked for)."""
    ctx = FigureContext(system, run, dict(parameters or getattr(run, "parameters", {}) or {}))
    s = Section("Figures")
    for name, make in FIGURE_MAKERS.items():
        check()
        try:
            fig = make(ctx)
        except Exception as exc:  # noqa: BLE001 - one figure failing does not hide the others
            s.add(f"figure {name!r} could not be drawn: {type(exc).__name__}: {exc}")
            continue
        if fig is not None:
            s.figures.append(fig)
    if run is None and reason:
        s.add(f"the figures of the motion are not drawn: {reason}")
    elif not s.figures and not s.lines and run is not None:
        s.add("no figure applies to this system")
    return s


def _tex(name) -> str:
    """A coordinate's name as matplotlib mathtext (``phidot`` -> :math:`\\dot\\phi`)."""
    return f"${latex_name(str(name))}$"


def _names(exprs) -> set[str]:
    out: set[str] = set()
    for e in exprs:
        out |= {str(s) for s in getattr(e, "free_symbols", ())}
    return out


@figure_maker("path")
def path_figure(ctx: FigureContext) -> Figure | None:
    """The path of the traced point (contact point or centre) in the plane, with the body
    drawn at six instants along it."""
    from geomech.numeric.result import figure_axes
    from geomech.numeric.shapes import ShapeTrack

    run = ctx.run
    shape = getattr(run, "shape", None)
    if run is None or shape is None:
        return None
    t, Y = run_samples(run)
    track = ShapeTrack(shape, run.coords, run.parameters, Y)
    if np.ptp(track.trace, axis=0).max() < 1e-9 and shape.kind == "point":
        return None                               # nothing moves in the plane
    fig, axs = figure_axes(size=(6.0, 4.6))
    ax = axs[0, 0]
    ax.plot(track.trace[:, 0], track.trace[:, 1], color="tab:purple", lw=1.3)
    picks = np.linspace(0, len(t) - 1, 6).round().astype(int)
    for k, i in enumerate(picks):
        for j, c in enumerate(track.curves(i)):
            ax.plot(c[:, 0], c[:, 1], lw=1.6 if j == 0 else 0.9,
                    color="0.2" if j == 0 else f"C{j}", alpha=0.35 + 0.65 * k / 5)
    ax.plot(*track.trace[0], "o", color="tab:purple", ms=4)
    where = ", ".join(sorted(_names(shape.traced))) or "the body"
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_title(f"Path of ({', '.join(_tex(n) for n in sorted(_names(shape.traced)))}), "
                 f"$t$ in [{t[0]:g}, {t[-1]:g}]")
    (x0, y0), (x1, y1) = track.trace[0], track.trace[-1]
    length = float(np.sum(np.hypot(*np.diff(track.trace, axis=0).T)))
    alt = (f"The path of the point ({where}) in the plane for t from {t[0]:g} to {t[-1]:g}: "
           f"from ({x0:.3g}, {y0:.3g}) to ({x1:.3g}, {y1:.3g}), length {length:.3g}; "
           f"drawn at six instants, fading in: {shape.label or shape.kind}.")
    return svg_figure(fig, "Path in the plane", alt)


@figure_maker("drift")
def drift_figure(ctx: FigureContext) -> Figure | None:
    """Relative drift of the energy and of the integrals, residual of the constraints."""
    run = ctx.run
    if run is None or not run.series:
        return None
    fig = run.plot_drift()
    fig.set_size_inches(6.0, 3.4)
    fig.axes[0].set_title("Drift along the simulated run")
    worst = ", ".join(f"{k} {v:.1e}" for k, v in run.drift.items())
    alt = ("Relative drift of the monitored quantities against time, on a logarithmic "
           f"scale (largest values: {worst}); the integrator keeps them at rounding or "
           "tolerance level when they stay flat at the bottom.")
    return svg_figure(fig, "Energy and constraint drift", alt)


def _rate_pairs(run) -> list[tuple[int, int]]:
    r"""``(i, j)`` where the flow of the run says :math:`\dot x_i = x_j` (a coordinate and the
    coordinate that is its velocity, e.g. :math:`\dot\xi = z_2` of Shamolin's pendulum)."""
    index = {c: j for j, c in enumerate(run.coords)}
    comps = getattr(run.field, "components", None) or ()
    return [(i, index[c]) for i, c in enumerate(comps) if c in index and index[c] != i]


def _phase_axes(run, shape) -> tuple[int, int] | None:
    r"""A coordinate and its velocity (named ``q``, ``qdot``, or :math:`\dot q = v` in the
    flow; the pair whose velocity varies most), else the first two coordinates that are not
    the traced point."""
    names = [c.name for c in run.coords]
    traced = _names(shape.traced) if shape is not None else set()
    pairs = [(i, names.index(n + "dot")) for i, n in enumerate(names)
             if n + "dot" in names and n not in traced]
    pairs += [(i, j) for i, j in _rate_pairs(run) if names[i] not in traced
              and (i, j) not in pairs]
    if pairs:
        spread = [np.ptp(run.states[:, j]) for _, j in pairs]
        return pairs[int(np.argmax(spread))]
    rest = [i for i, n in enumerate(names) if n not in traced]
    return (rest[0], rest[1]) if len(rest) >= 2 else None


@figure_maker("phase portrait")
def phase_figure(ctx: FigureContext) -> Figure | None:
    """The run in the plane of a coordinate and its velocity (or of two coordinates)."""
    from geomech.numeric.result import figure_axes

    run = ctx.run
    if run is None:
        return None
    pair = _phase_axes(run, getattr(run, "shape", None))
    if pair is None:
        return None
    i, j = pair
    t, Y = run_samples(run)
    a, b = run.coords[i], run.coords[j]
    fig, axs = figure_axes(size=(5.0, 4.2))
    ax = axs[0, 0]
    ax.plot(Y[:, i], Y[:, j], color="tab:blue", lw=1.1)
    ax.plot(Y[0, i], Y[0, j], "o", color="tab:blue", ms=4)
    ax.set_xlabel(_tex(a))
    ax.set_ylabel(_tex(b))
    ax.set_title(f"Phase portrait of the run: {_tex(b)} against {_tex(a)}")
    alt = (f"The simulated run in the plane ({a}, {b}) for t from {t[0]:g} to {t[-1]:g}: "
           f"{a} between {Y[:, i].min():.3g} and {Y[:, i].max():.3g}, {b} between "
           f"{Y[:, j].min():.3g} and {Y[:, j].max():.3g}; the dot marks the start.")
    return svg_figure(fig, "Phase portrait", alt)


@figure_maker("time series")
def time_series_figure(ctx: FigureContext) -> Figure | None:
    """The coordinates of the run against time, for a run that draws no path in the plane
    (the so(n) body's angular velocity, the angles of Shamolin's pendulum)."""
    from geomech.numeric.result import figure_axes

    run = ctx.run
    if run is None or getattr(run, "shape", None) is not None:
        return None
    t, Y = run_samples(run)
    shown = list(range(min(len(run.coords), 6)))
    fig, axs = figure_axes(size=(6.0, 3.6))
    ax = axs[0, 0]
    for k in shown:
        ax.plot(t, Y[:, k], lw=1.2, label=_tex(run.coords[k]))
    ax.set_xlabel("$t$")
    ax.legend(loc="best", fontsize="small", ncol=2)
    ax.set_title("The state against time" if len(shown) == len(run.coords)
                 else f"The first {len(shown)} coordinates against time")
    ranges = "; ".join(f"{run.coords[k]} from {Y[:, k].min():.3g} to {Y[:, k].max():.3g}"
                       for k in shown)
    alt = (f"The coordinates of the simulated run against time t from {t[0]:g} to "
           f"{t[-1]:g}: {ranges}.")
    return svg_figure(fig, "Coordinates against time", alt)


def _stable_runs(values, real_parts, tol: float = 1e-9) -> str:
    """The intervals of ``values`` where every real part is <= ``tol`` (spectrally stable).

    >>> _stable_runs([0, 1, 2, 3, 4], [1, -1, -1, 1, -1])
    '[1, 2], [4, 4]'
    """
    ok = np.asarray(real_parts) <= tol
    runs, start = [], None
    for k, good in enumerate(ok):
        if good and start is None:
            start = k
        if start is not None and (not good or k == len(ok) - 1):
            end = k if good else k - 1
            runs.append((values[start], values[end]))
            start = None
    return ", ".join(f"[{a:.3g}, {b:.3g}]" for a, b in runs) or "nowhere"


@figure_maker("stability diagram")
def stability_figure(ctx: FigureContext) -> Figure | None:
    """The eigenvalues of the linearisation along the distinguished family of steady motions,
    against its first free constant (``S.stability_diagram``; systems with steady motions
    only).

    At the run's parameter values or, without a run, at those of the report's section
    "Steady motions and stability"
    (:func:`~geomech.reporting.simulation.numeric_defaults`)."""
    S = ctx.system
    if not isinstance(S, NonholonomicSystem):
        return None                       # steady motions are a NonholonomicSystem's
    families = S.steady_motions(search=False)       # the declared ones: no search
    # the first family whose constants, but one, have default values (the one is varied)
    family = next((f for f in families if f.constants
                   and sum(c.name not in dict(f.defaults) for c in f.constants) <= 1), None)
    if family is None:
        return None
    defaults = {k: float(v) for k, v in dict(family.defaults).items()}
    c = next((c for c in family.constants if c.name not in defaults), family.constants[0])
    centre = defaults.pop(c.name, 0.0)
    span = 3.0 * max(abs(centre), 1.0)
    low, high = dict(family.ranges).get(c.name, (centre - span, centre + span))
    values = np.linspace(float(low), float(high), 61)
    # without a run, the values of the section "Steady motions and stability"
    params = ctx.parameters or numeric_defaults(S)[0]
    diagram = S.stability_diagram(c.name, values, steady=family.name, parameters={
        **{str(k): v for k, v in params.items()}, **defaults} or None)
    fig = diagram.plot()
    where = (f"; spectrally stable (every real part <= 0, the zero roots of the family "
             f"aside) for {c.name} in {_stable_runs(values, diagram.max_real())}"
             if diagram.eigenvalues.size else "")
    alt = (f"Real parts of the eigenvalues of the linearisation along the steady motions "
           f"'{family.name}', against {c.name} from {values[0]:.3g} to {values[-1]:.3g}"
           f"{where}.")
    return svg_figure(fig, f"Stability of the steady motions ({family.name})", alt)
