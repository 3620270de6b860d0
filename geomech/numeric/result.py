r"""The result of :func:`~geomech.numeric.simulate.simulate`: :class:`SimulationResult`, and
:func:`coordinate_index`, the look-up of a phase-space coordinate by symbol or name shared by
every numeric result (simulation, sweep, Poincaré section).

>>> import sympy as sp
>>> x, v = sp.symbols("x v")
>>> coordinate_index((x, v), "v"), coordinate_index((x, v), x)
(1, 0)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import sympy as sp

from geomech.numeric.functions import CompiledFunction

__all__ = ["SimulationResult", "coordinate_index", "UnknownCoordinate", "ABS_THRESHOLD",
           "figure_axes"]

ABS_THRESHOLD = 1e-12
"""Below this modulus of the initial value a drift is absolute, not relative."""


class UnknownCoordinate(KeyError, ValueError):
    """A name that is not a phase-space coordinate (both a ``KeyError``, for ``res[key]``,
    and a ``ValueError``, for arguments naming coordinates)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def coordinate_index(coords: Sequence[sp.Symbol], key) -> int:
    """Position of the coordinate ``key`` (a symbol or its name) in ``coords``.

    Raises :class:`UnknownCoordinate` (a ``KeyError`` and a ``ValueError``) naming the
    coordinates when there is none of that name.

    >>> x, y = sp.symbols("x y")
    >>> coordinate_index((x, y), "z")
    Traceback (most recent call last):
    ...
    geomech.numeric.result.UnknownCoordinate: 'z' is not a phase-space coordinate; they are x, y
    """
    name = key.name if isinstance(key, sp.Symbol) else key
    for i, c in enumerate(coords):
        if c.name == name:
            return i
    raise UnknownCoordinate(f"{key!r} is not a phase-space coordinate; they are "
                            f"{', '.join(map(str, coords))}")


def figure_axes(nrows: int = 1, ncols: int = 1, size=(6.4, 4.8)):
    """A matplotlib ``Figure`` (not attached to pyplot) and its ``(nrows, ncols)`` array of
    axes: the canvas of every numeric figure (matplotlib imported lazily; a clear
    ``ImportError`` without it)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plots need matplotlib: pip install matplotlib") from None
    fig = Figure(figsize=size)
    return fig, fig.subplots(nrows, ncols, squeeze=False)


class SimulationResult:
    r"""Trajectory of :func:`simulate` and the drift of the monitored quantities.

    Attributes
    ----------
    t : ndarray, shape (T,)
        Times.
    states : ndarray, shape (T, n)
        States, one row per time, columns in the order of ``coords``.
    coords : tuple of Symbol
        Phase-space coordinates.
    series : dict
        ``{name: ndarray (T,)}`` of every monitored quantity (``"energy"``, the integrals,
        ``"constraint 1"`` ... -- for constraints the relative residual).
    drift : dict
        ``{name: float}``: relative drift :math:`\max_t|F(t) - F(0)|/|F(0)|` of the energy and
        of the integrals (absolute if :math:`|F(0)| < 10^{-12}`), and the maximal relative
        residual of each constraint.
    success, message, nfev : solver status.  ``success`` is False when the run stopped
        early (non-finite right-hand side, collapsed step size, time limit, failed Newton
        solve); ``message`` says why, and warns of chart singularities.
    singularities : list of (float, Expr, float)
        ``(t, d, d(t))``: times where a denominator ``d`` of the right-hand side (the
        determinant of the dependent-velocity solve or of the mass matrix, ``cos(phi)`` for
        the Chaplygin sleigh) crosses zero (value 0.0, interpolated time) or has a local
        minimum below 1e-3 of its largest value along the trajectory (for a mass-matrix
        form: :math:`\det M/\prod_i\|M_i\|` below 1e-6 of its largest value).  Empty when the
        trajectory stays in the regular part of its chart.
    solution : the raw solver result (a :class:`scipy.optimize.OptimizeResult` with the
        fields of ``solve_ivp``'s result).
    system : the simulated system (``None`` for a bare vector field); with it the result
        knows the body's :attr:`shape` (for :func:`~geomech.numeric.animation.animate`).
    """

    def __init__(self, t, states, coords, series, drift, solution, parameters, field,
                 singularities=None, system=None):
        self.t = t
        self.states = states
        self.coords = tuple(coords)
        self.series = series
        self.drift = drift
        self.solution = solution
        self.success = bool(solution.success)
        self.message = solution.message
        self.nfev = int(solution.nfev)
        self.parameters = parameters
        self.field = field
        if singularities is None:        # e.g. rebuilt from a pickled solution
            singularities = getattr(solution, "singularities", None) or ()
        self.singularities = list(singularities)
        self.system = system

    @property
    def shape(self):
        """The :class:`~geomech.numeric.shapes.BodyShape` of the simulated body (the one its
        catalogue entry registers, else a marker at ``(x, y)``), or ``None``."""
        from .shapes import body_shape

        return body_shape(self.system) if self.system is not None else None

    # -- access --------------------------------------------------------------------------
    def __getitem__(self, key) -> np.ndarray:
        """Time series of a coordinate (symbol or name) or of a monitored quantity."""
        if isinstance(key, str) and key in self.series:
            return self.series[key]
        return self.states[:, coordinate_index(self.coords, key)]

    @property
    def final(self) -> dict:
        """``{coordinate: value}`` at the last time."""
        return dict(zip(self.coords, self.states[-1]))

    @property
    def energy_drift(self) -> float | None:
        """Relative drift of the energy (None if no energy was monitored)."""
        return self.drift.get("energy")

    def evaluate(self, expr) -> np.ndarray:
        """Values of an expression of the phase-space coordinates along the trajectory."""
        f = CompiledFunction([expr], self.coords, self.parameters, what="expression")
        return f(self.states.T)[0]

    def summary(self) -> str:
        """One line per monitored quantity: the drift."""
        status = "ok" if self.success and not self.singularities else self.message
        lines = [f"t in [{self.t[0]:g}, {self.t[-1]:g}]: {len(self.t)} points, "
                 f"{self.nfev} evaluations, {status}"]
        for k, v in self.drift.items():
            lines.append(f"  drift of {k}: {v:.3e}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        d = ", ".join(f"{k}: {v:.1e}" for k, v in self.drift.items())
        flags = ("" if self.success else ", FAILED") + (
            f", {len(self.singularities)} chart singularities" if self.singularities else "")
        return (f"SimulationResult(t=[{self.t[0]:g}, {self.t[-1]:g}], {len(self.t)} points, "
                f"drift {{{d}}}{flags})")

    def __str__(self) -> str:
        return self.summary()

    # -- plots ---------------------------------------------------------------------------
    def plot(self, coords: Sequence | None = None, drift: bool = True, path=None):
        """A matplotlib figure: coordinates against time and the drift of the monitored
        quantities (log scale); ``path=("x", "y")`` adds the curve of ``y`` against ``x``.

        Requires matplotlib (imported lazily).
        """
        names = list(coords) if coords is not None else list(self.coords)
        panels = 1 + bool(drift and self.series) + (path is not None)
        fig, axs = figure_axes(panels, 1, size=(6.4, 2.8 * panels))
        axes = axs[:, 0]
        ax = axes[0]
        for c in names:
            ax.plot(self.t, self[c], label=str(c))
        ax.set_xlabel("t")
        ax.legend(loc="best", fontsize="small")
        k = 1
        if drift and self.series:
            self.plot_drift(axes[k])
            k += 1
        if path is not None:
            ax = axes[k]
            ax.plot(self[path[0]], self[path[1]])
            ax.set_xlabel(str(path[0]))
            ax.set_ylabel(str(path[1]))
            ax.set_aspect("equal", adjustable="datalim")
        fig.tight_layout()
        return fig

    def plot_drift(self, ax=None):
        """The drift of the monitored quantities against time (log scale): relative change of
        the energy and of the integrals, relative residual of the constraints.  Draws on
        ``ax`` (a matplotlib Axes) or on a new figure; returns the figure."""
        if ax is None:
            fig, axs = figure_axes(size=(6.4, 3.2))
            ax = axs[0, 0]
        for name, vals in self.series.items():
            if name.startswith("constraint"):
                err = np.abs(vals)
            else:
                v0 = vals[0]
                err = np.abs(vals - v0) / (abs(v0) if abs(v0) > ABS_THRESHOLD else 1.0)
            ax.semilogy(self.t, np.maximum(err, 1e-18), label=name)
        ax.set_xlabel("t")
        ax.set_ylabel("relative drift")
        ax.legend(loc="best", fontsize="small")
        return ax.figure

