r"""Dynamics tools: Poincaré sections, Lyapunov exponents, phase portraits, and their figures.

* :func:`poincare_section` -- the crossings of trajectories with a hypersurface
  :math:`\Sigma = \{s(x) = 0\}` of the phase space, in a chosen direction (located by the
  solver's event detection on its dense output, so every point lies on :math:`\Sigma` to
  rounding level);
* :func:`lyapunov_spectrum`, :func:`max_lyapunov` -- Lyapunov characteristic exponents by
  the QR method of Benettin, Galgani, Giorgilli & Strelcyn (Meccanica 15, 1980) and Shimada &
  Nagashima (Prog. Theor. Phys. 61, 1979): the variational equation
  :math:`\dot\Xi = J(x)\,\Xi` (with the compiled symbolic Jacobian
  :math:`J = \partial X/\partial x`) is integrated along the trajectory and re-orthonormalised
  every ``interval``; :math:`\lambda_i = \frac1T\sum\log R_{ii}`;
* :func:`phase_portrait` -- trajectories of a (reduced) system in a coordinate plane, with
  the direction field of a planar field;
* every result has ``plot()`` returning a matplotlib :class:`~matplotlib.figure.Figure`.

>>> import geomech as gm
>>> M = gm.Manifold("M", "x v"); x, v = M.coords
>>> from geomech.numeric.poincare import poincare_section
>>> sec = poincare_section(M.vector_field([v, -x]), [[2, 0]], "x", (0, 10), direction=0)
>>> bool(np.allclose(sec.times[0], [np.pi / 2, 3 * np.pi / 2, 5 * np.pi / 2], atol=1e-9))
True

Modules: :mod:`~geomech.numeric.poincare` (sections), :mod:`~geomech.numeric.lyapunov`
(exponents); this module draws phase portraits.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .compile import CompiledField
from .inputs import compiled_field_of, initial_states, time_span
from .result import coordinate_index, figure_axes

__all__ = ["phase_portrait"]


def phase_portrait(system, initial_conditions, t_span, axes=None,
                   parameters: Mapping | None = None, direction_field: bool = True,
                   grid: int = 25, points: int = 600, rtol: float = 1e-10,
                   atol: float = 1e-12):
    r"""Figure of trajectories in a coordinate plane of the phase space.

    One curve per initial condition, in the plane of ``axes = (a, b)`` (default the first two
    coordinates).  For a planar field -- a reduced system, e.g. ``gm.reduce(...).vector_field``
    or the Chaplygin sleigh in its body velocities -- the direction field is drawn under the
    curves (``streamplot`` of the field evaluated on a ``grid x grid`` mesh in one batch).

    Returns
    -------
    matplotlib.figure.Figure
        ``fig.axes[0].lines[k]`` is the curve of run ``k`` (``points`` samples).

    Examples
    --------
    >>> import geomech as gm
    >>> M = gm.Manifold("M", "x v"); x, v = M.coords
    >>> fig = phase_portrait(M.vector_field([v, -x]), [[1, 0], [2, 0]], 7.0)
    >>> xs, vs = fig.axes[0].lines[1].get_data()
    >>> bool(np.allclose(xs**2 + vs**2, 4.0, atol=1e-8))
    True
    """
    from scipy.integrate import solve_ivp

    field, f = compiled_field_of(system, parameters)
    coords = f.coords
    if axes is None:
        if len(coords) < 2:
            raise ValueError("a phase portrait needs a phase space of dimension 2 or more")
        axes = coords[:2]
    if len(axes) != 2:
        raise ValueError(f"axes must name two coordinates, got {axes!r}")
    i, j = coordinate_index(coords, axes[0]), coordinate_index(coords, axes[1])
    states = initial_states(initial_conditions, coords)
    t0, t1 = time_span(t_span, forward=True)
    fig, axs = figure_axes()
    ax = axs[0, 0]
    t_eval = np.linspace(t0, t1, points)
    curves = []
    for y0 in states:
        sol = solve_ivp(f, (t0, t1), y0, method="DOP853", rtol=rtol, atol=atol, t_eval=t_eval)
        ax.plot(sol.y[i], sol.y[j], linewidth=1.2)
        curves.append(sol.y)
    if direction_field and len(coords) == 2 and curves:
        _direction_field(ax, f, curves, (i, j), grid)
    ax.set_xlabel(str(coords[i]))
    ax.set_ylabel(str(coords[j]))
    return fig


def _direction_field(ax, f: CompiledField, curves, ij, grid: int) -> None:
    i, j = ij
    allc = np.hstack(curves)
    lo, hi = allc.min(axis=1), allc.max(axis=1)
    pad = 0.1 * np.maximum(hi - lo, 1e-3)
    xs = np.linspace(lo[i] - pad[i], hi[i] + pad[i], grid)
    ys = np.linspace(lo[j] - pad[j], hi[j] + pad[j], grid)
    X, Y = np.meshgrid(xs, ys)
    states = np.zeros((X.size, 2))
    states[:, i], states[:, j] = X.ravel(), Y.ravel()
    V = f.batch(states)
    U, W = V[:, i].reshape(X.shape), V[:, j].reshape(X.shape)
    if np.all(np.isfinite(U)) and np.all(np.isfinite(W)):
        ax.streamplot(X, Y, U, W, color="0.75", density=0.8, linewidth=0.6, zorder=0)
