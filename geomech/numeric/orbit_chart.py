r"""The chart :math:`(\zeta, Y)` adapted to the orbits of a symmetry algebra, and the
reconstruction field on it.

With invariants :math:`Z(x)` of the symmetry fields (:func:`geomech.lie.reduction.reduce`)
and coordinates :math:`Y = x_J` *along the orbits* (the fields restricted to the columns
``J`` have full rank), the equations :math:`Z(x_I, Y) = \zeta` are solved for the remaining
coordinates, :math:`x_I = \phi(\zeta, Y)`, and

.. math:: \dot\zeta = V(\zeta), \qquad \dot Y_k = G_k(\zeta, Y) := v(Y_k)\big|_{x_I=\phi(\zeta,Y)}

(Borisov & Mamaev (2015), Thm 2 and the remark after it): the reduced system and the
reconstruction equation, triangular (Lie's quadratures) for solvable algebras, a genuine ODE
otherwise (integrated by :func:`~geomech.numeric.reconstruction.reconstruct_numerically`).
Symbolic: the zero decisions are the policy's (:func:`geomech.core.zero.default_policy`).

>>> from geomech.core import Manifold
>>> M = Manifold("M", "x y z"); x, y, z = M.coords
>>> ch = orbit_chart(M.vector_field([y*z, z, -y]), [M.vector_field([1, 0, 0])],
...                  invariants=[y, z], orbit_coords=["x"], names=["u", "w"])
>>> ch.rates, ch.is_triangular()                   # translations: a quadrature
((u*w,), True)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.lie.orbits import ReducedSystem, independent_subset, jacobian_rank
from geomech.lie.reduction import reduce

__all__ = ["OrbitChart", "orbit_chart"]


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
        Invariants :math:`Z`; computed by :func:`geomech.lie.orbits.orbit_invariants` when
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
