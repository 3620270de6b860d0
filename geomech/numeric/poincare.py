r"""Poincaré sections: the crossings of trajectories with a hypersurface
:math:`\Sigma = \{s(x) = 0\}` of the phase space, in a chosen direction, located by the
solver's event detection on its dense output (so every point lies on :math:`\Sigma` to
rounding level); any number of runs, serially or in parallel
(:func:`~geomech.numeric.sweep.parallel_map`).

>>> import geomech as gm
>>> M = gm.Manifold("M", "x v"); x, v = M.coords
>>> sec = poincare_section(M.vector_field([v, -x]), [{"x": 1, "v": 0}], "x", (0, 20))
>>> sec.points[0].shape, bool(sec.residual < 1e-12)     # x = cos t increasing through 0
((3, 2), True)
>>> bool(abs(sec.points[0][:, 1] - 1).max() < 1e-9)      # there v = 1
True
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import sympy as sp

from geomech.core.fields import VectorField
from geomech.numeric.functions import CompiledFunction

from .inputs import compiled_field_of, initial_states, time_span
from .result import coordinate_index, figure_axes
from .sweep import parallel_map

__all__ = ["poincare_section", "PoincareSection"]


class PoincareSection:
    r"""Crossings of trajectories with :math:`\Sigma = \{s(x) = 0\}`.

    Attributes
    ----------
    coords : tuple of Symbol
        Phase-space coordinates (columns of the points).
    section : sympy expression
        :math:`s(x)`, parameters substituted.
    direction : int
        ``+1``: crossings with :math:`s` increasing; ``-1``: decreasing; ``0``: both.
    points, times : list of ndarray
        Per run: the crossing states, shape ``(m, n)``, and their times, shape ``(m,)``.
    residual : float
        :math:`\max |s|` over all points (rounding level: points lie on the section).
    """

    def __init__(self, coords, section, direction, points, times, residual):
        self.coords = tuple(coords)
        self.section = section
        self.direction = direction
        self.points = points
        self.times = times
        self.residual = residual

    def __len__(self) -> int:
        return sum(len(p) for p in self.points)

    def project(self, a, b) -> tuple[np.ndarray, np.ndarray]:
        """All points in the plane of the coordinates ``a`` and ``b`` (names or symbols)."""
        i, j = coordinate_index(self.coords, a), coordinate_index(self.coords, b)
        pts = [p for p in self.points if len(p)]
        if not pts:
            return np.empty(0), np.empty(0)
        allp = np.vstack(pts)
        return allp[:, i], allp[:, j]

    def plot(self, a, b, markersize: float = 1.5):
        """Figure of the section in the ``(a, b)`` plane, one colour per run."""
        fig, axes = figure_axes()
        ax = axes[0, 0]
        i, j = coordinate_index(self.coords, a), coordinate_index(self.coords, b)
        for k, p in enumerate(self.points):
            if len(p):
                ax.plot(p[:, i], p[:, j], ".", markersize=markersize, label=f"run {k}")
        ax.set_xlabel(str(self.coords[i]))
        ax.set_ylabel(str(self.coords[j]))
        ax.set_title(f"Poincaré section {sp.sstr(self.section)} = 0")
        return fig

    def __repr__(self) -> str:
        return (f"PoincareSection({sp.sstr(self.section)} = 0, {len(self.points)} runs, "
                f"{len(self)} points, residual {self.residual:.1e})")


def _section_expr(section, field: VectorField) -> sp.Expr:
    if isinstance(section, str):
        section = field.manifold.parse(section)
    if not isinstance(section, sp.Expr):
        raise TypeError(f"section must be an expression on the phase space (or its text), "
                        f"got {type(section).__name__}")
    return section


def poincare_section(system, initial_conditions, section, t_span,
                     parameters: Mapping | None = None, direction: int = 1,
                     method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-12,
                     client=None, workers: int | None = None,
                     progress: bool | None = None, backend: str = "numpy") -> PoincareSection:
    r"""Points where trajectories cross :math:`\Sigma = \{s(x) = 0\}` in one direction.

    Each run integrates :math:`\dot x = X(x)` (compiled right-hand side) over ``t_span``;
    the crossings are roots of :math:`s` along the solver's dense output (scipy event
    location), so :math:`|s| = O(10^{-15})` at every point (``res.residual``).

    Parameters
    ----------
    system : NonholonomicSystem, object with ``.vector_field()``, or VectorField
    initial_conditions : list of dict or sequence
        One run per initial state (any number of runs).
    section : expression or str
        :math:`s(x)` on the phase space (text goes through the safe parser).
    t_span : (t0, t1) or float
    parameters : dict, optional
    direction : {1, -1, 0}
        Keep crossings with :math:`s` increasing (``1``), decreasing (``-1``) or both.
    client, workers, progress
        Where the runs are performed, as in :func:`~geomech.numeric.sweep.sweep`: ``None``
        (serially), ``"processes"``, ``"dask"``, a scheduler address, a dask ``Client`` or
        ``LocalCluster``, a ``concurrent.futures.Executor``; the points are the same in
        every mode.
    backend : {"numpy", "numba"}
        Compiler of the right-hand side (:func:`~geomech.numeric.compile.compile_vector_field`).

    Returns
    -------
    PoincareSection
    """
    if direction not in (-1, 0, 1) or isinstance(direction, bool):
        raise ValueError(f"direction must be 1 (s increasing), -1 (decreasing) or 0 (both), "
                         f"got {direction!r}")
    field, f = compiled_field_of(system, parameters, backend)
    s_expr = _section_expr(section, field)
    s = CompiledFunction([s_expr], f.coords, dict(f.parameters), what="the section")
    states = initial_states(initial_conditions, f.coords)
    shared = (f, s, time_span(t_span, forward=True), direction, method, rtol, atol)
    out = parallel_map(_section_run, shared, states, client=client, workers=workers,
                       progress=progress, desc="Poincaré section")
    points, times = [p for p, _ in out], [t for _, t in out]
    allp = [p for p in points if len(p)]
    residual = float(np.max(np.abs(s.batch(np.vstack(allp))))) if allp else 0.0
    return PoincareSection(f.coords, s.exprs[0], direction, points, times, residual)


def _section_run(shared: tuple, y0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Crossing states and times of one run (a worker's task)."""
    from scipy.integrate import solve_ivp

    f, s, (t0, t1), direction, method, rtol, atol = shared

    def event(t, y):
        return s(y)[0]

    event.direction = direction
    sol = solve_ivp(f, (t0, t1), y0, method=method, rtol=rtol, atol=atol, events=event)
    return np.asarray(sol.y_events[0]).reshape(-1, len(f.coords)), np.asarray(sol.t_events[0])
