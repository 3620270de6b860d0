r"""Numerical reconstruction of the full motion when Lie's quadratures do not apply.

Lie's Theorem 2 (:func:`geomech.lie.reduction.reconstruct`) recovers the motion by
quadratures only for a *solvable* symmetry algebra.  For any other algebra -- e.g.
:math:`\mathfrak{so}(3)` acting on a rigid body or on the Chaplygin ball -- the motion along
the orbits obeys a non-autonomous ODE driven by the reduced solution (Borisov & Mamaev (2015),
Thm 2 and
the remark after it).  This module integrates it numerically, in two forms.

**Orbit chart** (:func:`orbit_chart`, :func:`reconstruct_numerically`).  With invariants
:math:`Z(x)` of the symmetry fields (:func:`geomech.lie.reduction.reduce`) and coordinates
:math:`Y = x_J` *along the orbits* (the fields restricted to the columns ``J`` have full
rank), the equations :math:`Z(x_I, Y) = \zeta` are solved for the remaining coordinates,
:math:`x_I = \phi(\zeta, Y)`, and

.. math:: \dot\zeta = V(\zeta), \qquad \dot Y_k = G_k(\zeta, Y) := v(Y_k)\big|_{x_I=\phi(\zeta,Y)} .

The first block is the reduced system; the second is the reconstruction equation, triangular
(quadratures) for solvable algebras, a genuine ODE otherwise.  The cascade is integrated and
mapped back by :math:`x = (\phi(\zeta, Y), Y)`.

**Matrix group** (:func:`integrate_on_group`).  For a matrix Lie group with the reduced
solution :math:`\zeta(t)` and a generator :math:`\xi(\zeta)` in the Lie algebra, the
reconstruction equation is the *linear* ODE

.. math:: \dot g = g\,\xi(\zeta(t)) \quad(\text{``right''}), \qquad
          \dot g = \xi(\zeta(t))\,g \quad(\text{``left''}),

together with optional quadratures :math:`\dot y_a = F_a(\zeta, g)` (e.g. the position of a
rolling ball).  For the rigid body :math:`g` is the attitude (body to space) and
:math:`\xi = \hat\omega`.

Examples
--------
>>> import sympy as sp
>>> from geomech.core import Manifold
>>> M = Manifold("M", "x y z"); x, y, z = M.coords
>>> v = M.vector_field([-y*z, x*z, -x**2 - y**2])     # rotation symmetry about the z axis
>>> rec = reconstruct_numerically(v, [M.vector_field([-y, x, 0])], {x: 1, y: 0, z: 0.5},
...                               (0, 1), invariants=[x**2 + y**2, z])
>>> rec.orbit_coords, rec.success
((y,), True)

Modules: :mod:`~geomech.numeric.orbit_chart` (the chart, symbolic),
:mod:`~geomech.numeric.group_reconstruction` (matrix groups); this module integrates the
cascade.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.numeric.functions import compile_functions, resolve_parameters

from .compile import compile_vector_field
from .inputs import ordered_values, time_span
from .orbit_chart import OrbitChart, orbit_chart
from .result import coordinate_index
from .simulate import simulate

__all__ = ["NumericReconstruction", "reconstruct_numerically"]


@dataclass
class NumericReconstruction:
    r"""Result of :func:`reconstruct_numerically`.

    Attributes
    ----------
    t : ndarray (T,)
    states : ndarray (T, n)
        The reconstructed motion in the coordinates of ``M`` (columns in ``coords``).
    coords : tuple of Symbol
    reduced : ndarray (T, m)
        :math:`\zeta(t)`.
    orbit : ndarray (T, r)
        :math:`Y(t)`.
    chart : OrbitChart
    orbit_coords : tuple of Symbol
    success : bool
    simulation : SimulationResult
        The raw integration of the cascade.
    """

    t: np.ndarray
    states: np.ndarray
    coords: tuple
    reduced: np.ndarray
    orbit: np.ndarray
    chart: OrbitChart
    orbit_coords: tuple
    success: bool
    simulation: object

    def __getitem__(self, key) -> np.ndarray:
        """The reconstructed series of a coordinate of ``M`` (symbol or name)."""
        return self.states[:, coordinate_index(self.coords, key)]


def _numeric_point(x0, M: Manifold, parameters) -> dict:
    """The initial point ``{coordinate: exact value}`` with the parameters' values (floats
    made rational, so that the chart's branch is chosen exactly)."""
    values = ordered_values(x0, M.coords)
    params = resolve_parameters(parameters, known=M.parameters)
    return {**{c: sp.nsimplify(val, rational=True) if isinstance(val, float) else as_expr(val)
               for c, val in zip(M.coords, values)}, **params}


def _check_chart_domain(chart: OrbitChart, states: np.ndarray, params: Mapping,
                        stopped: bool = False) -> None:
    """Warn when the motion leaves the domain of the chart (det dZ/dx_I changes sign or the
    inverse stops reproducing the invariants, or the integration stopped early at a
    non-finite value of the chart's field)."""
    M = chart.original
    xI = [c for c in M.coords if c not in chart.sources]
    Z = list(chart.reduced.invariants)
    if not xI:
        return
    det = sp.Matrix([[sp.diff(f, x) for x in xI] for f in Z]).det(method="berkowitz")
    vals = compile_functions([det], M.coords, params, what="chart determinant")(states.T)[0]
    vals = np.atleast_1d(vals)
    scale = max(1e-300, float(np.abs(vals).max()))
    if stopped or np.any(np.sign(vals) != np.sign(vals[0])) or \
            float(np.abs(vals).min()) < 1e-9 * scale:
        warnings.warn("the reconstructed motion reaches the boundary of the orbit chart "
                      "(det dZ/dx_I vanishes or changes sign): the result past that time is "
                      "not valid; choose other orbit_coords or a shorter interval",
                      RuntimeWarning, stacklevel=3)


def reconstruct_numerically(v: VectorField, symmetries, x0, t_span, *,
                            invariants: Sequence | None = None,
                            orbit_coords: Sequence | None = None,
                            parameters: Mapping | None = None,
                            reduced_solution: Callable | None = None,
                            t_eval=None, method: str = "DOP853", rtol: float = 1e-11,
                            atol: float = 1e-12) -> NumericReconstruction:
    r"""Full motion from the reduced system and the reconstruction ODE along the orbits.

    Works for any symmetry algebra (for solvable ones it reproduces Lie's quadratures
    numerically).  The cascade :math:`\dot\zeta = V(\zeta)`,
    :math:`\dot Y = G(\zeta, Y)` of :func:`orbit_chart` is integrated from
    :math:`(\zeta(0), Y(0)) = (Z(x_0), Y(x_0))` and mapped back,
    :math:`x(t) = (\phi(\zeta(t), Y(t)), Y(t))`.

    Parameters
    ----------
    v : VectorField
        The system on ``M``.
    symmetries : sequence of VectorField
        Symmetry fields (any Lie algebra).
    x0 : mapping or sequence
        Initial point of ``M``.
    t_span : (t0, t1) or float
    invariants, orbit_coords : optional
        See :func:`orbit_chart`.
    parameters : mapping, optional
        Numeric parameter values.
    reduced_solution : callable, optional
        ``t -> zeta(t)`` (array of the reduced coordinates): a known reduced motion (e.g. a
        closed-form solution); only the reconstruction ODE :math:`\dot Y = G(\zeta(t), Y)` is
        integrated then.
    t_eval, method, rtol, atol
        Passed to :func:`scipy.integrate.solve_ivp`.

    Returns
    -------
    NumericReconstruction
        ``t``, ``states`` (in the coordinates of ``M``), ``reduced``, ``orbit``, ``chart``.

    Warns
    -----
    RuntimeWarning
        When the motion leaves the domain of the chart :math:`(\zeta, Y)` (the Jacobian
        :math:`\partial Z/\partial x_I` degenerates or changes sign along the trajectory).
        The chart is local; the integration is only valid inside it.

    Examples
    --------
    >>> from geomech.core import Manifold
    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> v = M.vector_field([-y*z, x*z, 0])
    >>> rec = reconstruct_numerically(v, [M.vector_field([-y, x, 0])], {x: 1, y: 0, z: 2},
    ...                               (0, 0.5), invariants=[x**2 + y**2, z])
    >>> rec.orbit_coords, bool(abs(rec["y"][-1] - np.sin(1.0)) < 1e-9)
    ((y,), True)
    """
    if not isinstance(v, VectorField):
        raise TypeError(f"the system must be a VectorField, got {type(v).__name__}")
    M = v.manifold
    pt = _numeric_point(x0, M, parameters)
    chart = orbit_chart(v, symmetries, invariants=invariants, orbit_coords=orbit_coords,
                        point=pt)
    params = {k: val for k, val in pt.items() if k in M.parameters}
    start = [float(sp.N(as_expr(f).xreplace(pt))) for f in chart.from_original()]
    m = len(chart.reduced.invariants)
    options = dict(t_eval=t_eval, method=method, rtol=rtol, atol=atol)
    if reduced_solution is None:
        raw = simulate(chart.vector_field(), start, t_span, parameters=params, energy=False,
                       **options)
        t, states_chart, ok = raw.t, raw.states, raw.success
    else:
        t, states_chart, raw = _driven(chart, params, reduced_solution, start[m:], t_span,
                                       options)
        ok = bool(raw.success)
    back = compile_functions(chart.to_original(), chart.manifold.coords, params,
                             what="inverse of the orbit chart")
    states = back(states_chart.T).T
    _check_chart_domain(chart, states, params, stopped=not ok and any(
        w in str(raw.message) for w in ("not finite", "step size collapsed")))
    return NumericReconstruction(t, states, tuple(M.coords), states_chart[:, :m],
                                 states_chart[:, m:], chart, chart.orbit_coords, ok, raw)


def _driven(chart: OrbitChart, params: dict, reduced_solution: Callable, Y0: list, t_span,
            options: dict):
    r"""``(t, chart states, solver result)`` of :math:`\dot Y = G(\zeta(t), Y)` driven by a
    known reduced motion ``reduced_solution(t) = zeta(t)``."""
    from scipy.integrate import solve_ivp

    m = len(chart.reduced.invariants)
    full = compile_vector_field(chart.vector_field(), params)

    def zeta(tt) -> np.ndarray:
        return np.asarray(reduced_solution(tt), dtype=float).reshape(m)

    def rhs(tt, Y):
        return full(tt, np.concatenate([zeta(tt), Y]))[m:]

    sol = solve_ivp(rhs, time_span(t_span), Y0, **options)
    zs = np.array([zeta(tt) for tt in sol.t]).reshape(len(sol.t), m)
    return sol.t, np.hstack([zs, sol.y.T]), sol
