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
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.lie.reduction import ReducedSystem, independent_subset, jacobian_rank, reduce

__all__ = ["OrbitChart", "orbit_chart", "NumericReconstruction", "reconstruct_numerically",
           "GroupReconstruction", "integrate_on_group", "group_symbols"]


# ---------------------------------------------------------------------------------------------
# orbit chart: (zeta, Y)
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OrbitChart:
    r"""The chart :math:`(\zeta, Y)` of :func:`orbit_chart` and the cascade field on it.

    Attributes
    ----------
    reduced : ReducedSystem
        Invariants :math:`Z(x)` and the reduced field :math:`V(\zeta)`.
    orbit_coords : tuple of Symbol
        The coordinates :math:`Y = x_J` of ``M`` along the orbits.
    solved : dict
        ``{x_i: phi_i(zeta, Y)}`` for the other coordinates of ``M``.
    rates : tuple of expressions
        :math:`G_k(\zeta, Y) = v(Y_k)` in the chart.
    manifold : Manifold
        The chart with coordinates ``(zeta..., Y...)``.
    original : Manifold
        The manifold ``M`` of the system.
    sources : tuple of Symbol
        The coordinates of ``M`` that :attr:`orbit_coords` stand for (they differ only when
        a name clashes with a reduced coordinate).
    """

    reduced: ReducedSystem
    orbit_coords: tuple
    solved: dict
    rates: tuple
    manifold: Manifold
    original: Manifold
    sources: tuple = ()

    def vector_field(self) -> VectorField:
        r"""The cascade :math:`(\dot\zeta, \dot Y) = (V(\zeta), G(\zeta, Y))`."""
        return self.manifold.vector_field([*self.reduced.vector_field.components, *self.rates])

    def to_original(self) -> list[sp.Expr]:
        """The coordinates of ``M`` as expressions on the chart, in the order of ``M``."""
        ren = dict(zip(self.sources, self.orbit_coords))
        return [self.solved.get(c, ren.get(c, c)) for c in self.original.coords]

    def from_original(self) -> list[sp.Expr]:
        """The chart coordinates as functions on ``M``: ``[Z_1..Z_m, Y_1..Y_r]``."""
        return [*self.reduced.invariants, *self.sources]

    def is_triangular(self) -> bool:
        r"""True when :math:`G_k` depends only on :math:`\zeta, Y_1..Y_{k-1}` (quadratures)."""
        Y = self.orbit_coords
        return all(not (as_expr(g).free_symbols & set(Y[k:])) for k, g in enumerate(self.rates))


def _orbit_candidates(fields, M, red: ReducedSystem):
    """Index sets J (|J| = orbit dim) with the fields non-singular on the columns J."""
    pol = default_policy()
    indep = independent_subset(fields)
    r = len(indep)
    U = sp.Matrix([list(f.components) for f in indep])
    pref = [M.coords.index(c) for c in red.section] if red.section else []
    combos = list(itertools.combinations(range(M.dim), r))
    combos.sort(key=lambda J: (sorted(J) != sorted(pref), J))
    for J in combos:
        if pol.rank(U.extract(list(range(r)), list(J))) == r:
            yield J


def _solve_branch(eqs, unknowns, point: Mapping | None):
    """Solve ``eqs = 0`` for ``unknowns``; choose the branch reproducing ``point`` if given."""
    try:
        sols = sp.solve(eqs, unknowns, dict=True)
    except (NotImplementedError, ValueError):
        return None
    sols = [s for s in sols if all(u in s for u in unknowns)
            and not any(s[u].free_symbols & set(unknowns) for u in unknowns)]
    if not sols:
        return None
    if point is None or len(sols) == 1:
        return sols[0]
    for s in sols:
        ok = True
        for u in unknowns:
            try:
                val = complex(sp.N(s[u].xreplace(point)))
            except (TypeError, ValueError):
                ok = False
                break
            if abs(val - complex(point[u])) > 1e-9 * (1 + abs(complex(point[u]))):
                ok = False
                break
        if ok:
            return s
    return None


def _regular_at(Z, xI, pt) -> bool:
    """Whether Z(x_I, Y) = zeta is solvable for x_I near ``pt`` (implicit function theorem)."""
    J = sp.Matrix([[sp.diff(f, x) for x in xI] for f in Z])
    try:
        vals = np.array(sp.N(J.xreplace(pt)), dtype=float)
    except (TypeError, ValueError):
        return False
    sv = np.linalg.svd(vals, compute_uv=False)
    return bool(sv.size and sv[-1] > 1e-8 * max(1.0, sv[0]))


def orbit_chart(v: VectorField, symmetries, *, invariants: Sequence | None = None,
                orbit_coords: Sequence | None = None, names: Sequence | None = None,
                point: Mapping | None = None) -> OrbitChart:
    r"""The chart :math:`(\zeta, Y)` adapted to the orbits and the reconstruction field.

    Reduces ``v`` by the symmetry fields (any Lie algebra, solvable or not), picks coordinates
    :math:`Y = x_J` of ``M`` along the orbits and solves :math:`Z(x_I, Y) = \zeta` for the
    others.  On the chart, :math:`\dot\zeta = V(\zeta)` and
    :math:`\dot Y_k = v(Y_k)|_{x_I = \phi(\zeta, Y)} = G_k(\zeta, Y)`.

    Parameters
    ----------
    v : VectorField
        The system.
    symmetries : sequence of VectorField (or an action/distribution)
        Symmetry fields spanning a symmetry distribution of ``v`` (Prop. 1).
    invariants : sequence, optional
        Invariants :math:`Z`; computed by :func:`geomech.lie.action.orbit_invariants` when
        omitted.
    orbit_coords : sequence, optional
        Coordinates of ``M`` (symbols or names) to use as :math:`Y`; searched otherwise.
    names : sequence, optional
        Names of the reduced coordinates.
    point : mapping, optional
        A point of ``M`` (with parameter values); among several solution branches of
        :math:`Z(x_I, Y) = \zeta` the one through this point is used.

    Returns
    -------
    OrbitChart

    Raises
    ------
    ValueError
        When no set of coordinates along the orbits admits an explicit inverse.

    Examples
    --------
    >>> from geomech.core import Manifold
    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> ch = orbit_chart(M.vector_field([-y*z, x*z, 1]), [M.vector_field([-y, x, 0])],
    ...                  invariants=[x**2 + y**2, z], orbit_coords=["y"], names=["r2", "z"],
    ...                  point={x: 1, y: 0, z: 0})
    >>> ch.solved, ch.rates
    ({x: sqrt(r2 - y**2)}, (z*sqrt(r2 - y**2),))
    """
    red = reduce(v, symmetries, invariants=invariants, names=names)
    M = v.manifold
    if point is not None:
        point = {M.sympify(k) if isinstance(k, str) else k: sp.nsimplify(val, rational=True)
                 if isinstance(val, float) else as_expr(val) for k, val in point.items()}
    # the reduced symbols may coincide with coordinates of M (an invariant that is a coordinate)
    tmp = [sp.Dummy(f"zeta{i}") for i in range(len(red.manifold.coords))]
    for J in _chart_candidates(red, M, orbit_coords):
        chart = _chart_from(v, red, [M.coords[j] for j in J], tmp, point)
        if chart is not None:
            return chart
    raise ValueError(
        "could not build a chart (zeta, Y) adapted to the orbits: no set of coordinates along "
        "the orbits lets Z(x) = zeta be solved explicitly for the others; pass orbit_coords=")


def _chart_candidates(red, M: Manifold, orbit_coords) -> list[tuple[int, ...]]:
    """Index sets of the coordinates to keep along the orbits (given or searched)."""
    fields = list(red.symmetries)
    r = len(independent_subset(fields))
    if orbit_coords is None:
        return _orbit_candidates(fields, M, red)
    Ys = [M.sympify(c) if isinstance(c, str) else c for c in orbit_coords]
    bad = [c for c in Ys if c not in M.coords]
    if bad:
        raise ValueError(f"orbit coordinates must be coordinates of {M.name}: {bad}")
    if len(Ys) != r:
        raise ValueError(f"{len(Ys)} orbit coordinates given; the orbits have dimension {r}")
    return [tuple(M.coords.index(c) for c in Ys)]


def _chart_from(v: VectorField, red, Y: list, tmp: list, point) -> OrbitChart | None:
    """The chart (zeta, Y) when Z(x) = zeta can be solved for the other coordinates
    (regular at ``point`` when given), else None."""
    M, pol = v.manifold, default_policy()
    zeta, Z = list(red.manifold.coords), list(red.invariants)
    if jacobian_rank(Z + Y, M.coords) < M.dim:
        return None
    xI = [c for c in M.coords if c not in Y]
    eqs = [as_expr(f) - t for f, t in zip(Z, tmp)]
    pt = None
    if point is not None:
        pt = dict(point)
        pt.update({t: as_expr(f).xreplace(point) for t, f in zip(tmp, Z)})
    sol = _solve_branch(eqs, xI, pt)
    if sol is None or (pt is not None and not _regular_at(Z, xI, pt)):
        return None
    back = dict(zip(tmp, zeta))
    solved = {x: pol.normalize(sol[x]).xreplace(back) for x in xI}
    solved = {x: e for x, e in solved.items() if e != x}
    # keep coordinates that are invariants (x_i = zeta_i) readable
    rates = [pol.normalize(as_expr(v.components[M.coords.index(y)]).xreplace(
        {x: sol[x] for x in xI}).xreplace(back)) for y in Y]
    used = set(zeta)
    ys = [y if y not in used else sp.Symbol(f"{y.name}_orbit", real=True) for y in Y]
    if ys != Y:
        ren = dict(zip(Y, ys))
        solved = {x: e.xreplace(ren) for x, e in solved.items()}
        rates = [e.xreplace(ren) for e in rates]
    chart = Manifold(f"{M.name}_orbit_chart", (*zeta, *ys), parameters=M.parameters,
                     assumptions=M.assumptions)
    return OrbitChart(red, tuple(ys), solved, tuple(rates), chart, M, tuple(Y))


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
        name = key.name if isinstance(key, sp.Symbol) else key
        for i, c in enumerate(self.coords):
            if c.name == name:
                return self.states[:, i]
        raise KeyError(f"{name} is not a coordinate ({', '.join(map(str, self.coords))})")


def _numeric_point(x0, M: Manifold, parameters) -> dict:
    if isinstance(x0, Mapping):
        by_name = {c.name: c for c in M.coords}
        pt = {}
        for k, val in x0.items():
            name = k.name if isinstance(k, sp.Symbol) else k
            if name not in by_name:
                raise ValueError(f"unknown coordinate {name!r} in the initial state (the "
                                 f"coordinates are {', '.join(map(str, M.coords))})")
            pt[by_name[name]] = val
        missing = [str(c) for c in M.coords if c not in pt]
        if missing:
            raise ValueError(f"the initial state lacks {', '.join(missing)}")
    else:
        vals = list(x0)
        if len(vals) != M.dim:
            raise ValueError(f"the initial state has {len(vals)} values for {M.dim} coordinates")
        pt = dict(zip(M.coords, vals))
    from geomech.numeric import resolve_parameters

    params = resolve_parameters(parameters, known=M.parameters)
    return {**{k: sp.nsimplify(val, rational=True) if isinstance(val, float) else
               as_expr(val) for k, val in pt.items()}, **params}


def _check_chart_domain(chart: OrbitChart, states: np.ndarray, params: Mapping,
                        stopped: bool = False) -> None:
    """Warn when the motion leaves the domain of the chart (det dZ/dx_I changes sign or the
    inverse stops reproducing the invariants, or the integration stopped early at a
    non-finite value of the chart's field)."""
    import warnings

    from geomech.numeric import compile_functions

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
    from scipy.integrate import solve_ivp

    from geomech.numeric import compile_functions, compile_vector_field, simulate

    if not isinstance(v, VectorField):
        raise TypeError(f"the system must be a VectorField, got {type(v).__name__}")
    M = v.manifold
    pt = _numeric_point(x0, M, parameters)
    chart = orbit_chart(v, symmetries, invariants=invariants, orbit_coords=orbit_coords,
                        point=pt)
    params = {k: val for k, val in pt.items() if k in M.parameters}
    start = [float(sp.N(as_expr(f).xreplace(pt))) for f in chart.from_original()]
    zeta0, Y0 = start[:len(chart.reduced.invariants)], start[len(chart.reduced.invariants):]
    F = chart.vector_field()
    back = compile_functions(chart.to_original(), chart.manifold.coords, params,
                             what="inverse of the orbit chart")
    if reduced_solution is None:
        res = simulate(F, [*zeta0, *Y0], t_span, parameters=params, t_eval=t_eval,
                       method=method, rtol=rtol, atol=atol, energy=False)
        states_chart = res.states
        t = res.t
        ok = res.success
        raw = res
    else:
        m = len(zeta0)
        full = compile_vector_field(F, params)
        span = (0.0, float(t_span)) if np.isscalar(t_span) else tuple(map(float, t_span))

        def rhs(tt, Y):
            zt = np.asarray(reduced_solution(tt), dtype=float).reshape(m)
            return full(tt, np.concatenate([zt, Y]))[m:]

        sol = solve_ivp(rhs, span, Y0, method=method, rtol=rtol, atol=atol, t_eval=t_eval)
        t = sol.t
        zs = np.array([np.asarray(reduced_solution(tt), dtype=float).reshape(m) for tt in t])
        states_chart = np.hstack([zs, sol.y.T])
        ok = bool(sol.success)
        raw = sol
    m = len(zeta0)
    states = back(states_chart.T).T
    _check_chart_domain(chart, states, params, stopped=not ok and any(
        w in str(raw.message) for w in ("not finite", "step size collapsed")))
    return NumericReconstruction(t, states, tuple(M.coords), states_chart[:, :m],
                                 states_chart[:, m:], chart, chart.orbit_coords, ok, raw)


# ---------------------------------------------------------------------------------------------
# matrix groups: g' = g xi(zeta(t))
# ---------------------------------------------------------------------------------------------
def group_symbols(n: int, name: str = "g") -> sp.Matrix:
    """The ``n x n`` matrix of real symbols ``g11`` to ``gnn`` used by :func:`integrate_on_group`.

    >>> group_symbols(2)
    Matrix([
    [g11, g12],
    [g21, g22]])
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"the matrix size must be a positive integer, got {n!r}")
    return sp.Matrix(n, n, lambda i, j: sp.Symbol(f"{name}{i + 1}{j + 1}", real=True))


@dataclass
class GroupReconstruction:
    r"""Result of :func:`integrate_on_group`.

    Attributes
    ----------
    t : ndarray (T,)
    reduced : ndarray (T, m)
        :math:`\zeta(t)`.
    group : ndarray (T, n, n)
        :math:`g(t)`.
    extra : dict
        ``{name: ndarray (T,)}`` of the additional quadratures.
    success : bool
    simulation : SimulationResult
    """

    t: np.ndarray
    reduced: np.ndarray
    group: np.ndarray
    extra: dict
    success: bool
    simulation: object

    def orthogonality_drift(self) -> float:
        r""":math:`\max_t \|g^Tg - g_0^Tg_0\|_\infty` (for orthogonal groups: should be ~0)."""
        g0 = self.group[0]
        ref = g0.T @ g0
        return float(max(np.abs(g.T @ g - ref).max() for g in self.group))


def integrate_on_group(xi, reduced, z0, g0, t_span, *, side: str = "right",
                       extra: Mapping | None = None, parameters: Mapping | None = None,
                       t_eval=None, method: str = "DOP853", rtol: float = 1e-11,
                       atol: float = 1e-12, name: str = "g") -> GroupReconstruction:
    r"""Reconstruct a motion on a matrix group: :math:`\dot g = g\,\xi(\zeta)` (or
    :math:`\xi(\zeta)\,g`) along a solution of the reduced system :math:`\dot\zeta = V(\zeta)`.

    Parameters
    ----------
    xi : sympy Matrix (n x n)
        The Lie-algebra element :math:`\xi(\zeta)` as a function of the reduced coordinates
        (e.g. :math:`\hat\omega` for a rigid body).
    reduced : VectorField or ReducedSystem
        The reduced field :math:`V`.
    z0 : mapping or sequence
        Initial reduced state.
    g0 : array_like (n x n)
        Initial group element.
    t_span : (t0, t1) or float
    side : {"right", "left"}
        ``"right"``: :math:`\dot g = g\xi` (left-invariant, body velocity);
        ``"left"``: :math:`\dot g = \xi g` (right-invariant, space velocity).
    extra : mapping, optional
        ``{name: F(zeta, g)}``: further quadratures :math:`\dot y = F`, with the entries of
        :math:`g` written as the symbols of :func:`group_symbols` (``g11 .. gnn``); initial
        values 0.
    parameters : mapping, optional
        Numeric parameter values.
    t_eval, method, rtol, atol
        Passed to :func:`scipy.integrate.solve_ivp`.

    Returns
    -------
    GroupReconstruction

    Examples
    --------
    Uniform rotation about the third axis: :math:`g(t) = \exp(t\hat e_3)`.

    >>> from geomech.core import Manifold
    >>> Zm = Manifold("Z", "w"); (w,) = Zm.coords
    >>> xi = sp.Matrix([[0, -w, 0], [w, 0, 0], [0, 0, 0]])
    >>> rec = integrate_on_group(xi, Zm.vector_field([0]), [1.0], np.eye(3), (0, 1))
    >>> bool(abs(rec.group[-1][1, 0] - np.sin(1.0)) < 1e-10)
    True
    """
    from geomech.numeric import simulate

    V, xi, g0 = _group_inputs(xi, reduced, g0, side)
    n, R = xi.rows, V.manifold
    zc = list(R.coords)
    G = group_symbols(n, name)
    clash = set(G) & set(zc)
    if clash:
        raise ValueError(f"the group symbols {sorted(map(str, clash))} clash with reduced "
                         "coordinates; pass name=")
    gdot = G * xi if side == "right" else xi * G
    extra = dict(extra or {})
    ys = [sp.Symbol(str(k), real=True) for k in extra]
    rates = _quadratures(extra, set(zc) | set(G) | set(R.parameters))
    chart = Manifold(f"{R.name}_x_G", (*zc, *G, *ys), parameters=R.parameters,
                     assumptions=R.assumptions)
    F = chart.vector_field([*V.components, *list(gdot), *rates])
    y0 = [*_reduced_state(z0, zc), *g0.reshape(-1), *([0.0] * len(ys))]
    res = simulate(F, y0, t_span, parameters=parameters, t_eval=t_eval, method=method,
                   rtol=rtol, atol=atol, energy=False)
    m = len(zc)
    S = res.states
    group = S[:, m:m + n * n].reshape(-1, n, n)
    ex = {str(k): S[:, m + n * n + i] for i, k in enumerate(extra)}
    return GroupReconstruction(res.t, S[:, :m], group, ex, res.success, res)


def _group_inputs(xi, reduced, g0, side: str):
    """Checked ``(V, xi, g0)`` of :func:`integrate_on_group`."""
    V = reduced.vector_field if isinstance(reduced, ReducedSystem) else reduced
    if not isinstance(V, VectorField):
        raise TypeError(f"reduced must be a VectorField or ReducedSystem, got "
                        f"{type(reduced).__name__}")
    if side not in ("right", "left"):
        raise ValueError(f"side must be 'right' or 'left', got {side!r}")
    xi = sp.Matrix(xi)
    if xi.rows != xi.cols:
        raise ValueError(f"xi must be a square matrix, got shape {xi.shape}")
    g0 = np.asarray(g0, dtype=float)
    if g0.shape != (xi.rows, xi.rows):
        raise ValueError(f"g0 must have shape {(xi.rows, xi.rows)}, got {g0.shape}")
    R = V.manifold
    stray = set().union(*(e.free_symbols for e in xi)) - set(R.coords) - set(R.parameters)
    if stray:
        raise ValueError(f"xi involves {sorted(map(str, stray))}, which are neither reduced "
                         "coordinates nor parameters")
    return V, xi, g0


def _quadratures(extra: dict, allowed: set) -> list:
    """The rates of the extra quadratures, checked to involve only ``allowed`` symbols."""
    rates = []
    for k, e in extra.items():
        e = as_expr(e)
        bad = e.free_symbols - allowed
        if bad:
            raise ValueError(f"the quadrature {k} involves unknown symbols "
                             f"{sorted(map(str, bad))}")
        rates.append(e)
    return rates


def _reduced_state(z0, zc: list) -> list[float]:
    """The initial reduced state as floats in the order of ``zc``."""
    if isinstance(z0, Mapping):
        by = {c.name: c for c in zc}
        zmap = {by[k.name if isinstance(k, sp.Symbol) else k]: val for k, val in z0.items()}
        z0 = [zmap[c] for c in zc]
    z0 = [float(x) for x in z0]
    if len(z0) != len(zc):
        raise ValueError(f"z0 has {len(z0)} values for {len(zc)} reduced coordinates")
    return z0
