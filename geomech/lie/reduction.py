r"""Symmetry reduction of a vector field and Lie's reconstruction by quadratures.

**Reduction** (Borisov & Mamaev (2015), Prop. 1 and Thm 1).  Let :math:`\dot x = v(x)` on ``M``
and let
:math:`u_1,\dots,u_r` span an involutive distribution :math:`S` with
:math:`[u_\alpha, v] \in S` (a *symmetry distribution*; genuine symmetry fields have
:math:`[u_\alpha, v] = 0`).  The common invariants :math:`Z_1,\dots,Z_m`
(:math:`u_\alpha(Z_i) = 0`, :math:`m = \dim M - \operatorname{rank} S`) satisfy a closed system

.. math:: \dot Z_i = v(Z_i) = V_i(Z_1,\dots,Z_m),

because :math:`u_\alpha(v Z_i) = [u_\alpha, v] Z_i + v(u_\alpha Z_i) = 0`.  The functions
:math:`V_i` are found by the *cross-section method*: on a slice :math:`x_J = c` transversal to
the orbits, :math:`Z` is invertible; solve :math:`Z(x_I, c) = \zeta` and substitute.

**Reconstruction** (Borisov & Mamaev (2015), Thm 2).  If the :math:`u_\alpha` are symmetry fields
closing into a *solvable* Lie algebra acting locally freely, take a basis
:math:`e_1,\dots,e_r` adapted to the derived series and cyclic coordinates :math:`Y_k` with
:math:`e_j(Y_k) = 0` (:math:`j>k`), :math:`e_k(Y_k) = 1`.  Then

.. math:: \dot Y_k = G_k(Z, Y_1, \dots, Y_{k-1}), \qquad k = 1..r,

so the full motion follows from a solution :math:`Z(t)` of the reduced system by successive
quadratures.

Examples
--------
>>> import sympy as sp
>>> from geomech.core import Manifold
>>> M = Manifold("M", "x y phi v1 omega", parameters="m a I")
>>> x, y, phi, v1, om = M.coords; m, a, I = M.parameters
>>> v = M.vector_field([v1*sp.cos(phi), v1*sp.sin(phi), om, a*om**2, -m*a*om*v1/I])
>>> u = [M.vector_field([-y, x, 1, 0, 0]), M.vector_field([1, 0, 0, 0, 0]),
...      M.vector_field([0, 1, 0, 0, 0])]
>>> red = reduce(v, symmetries=u)
>>> red.invariants, red.vector_field
((v1, omega), VectorField(M/G, [a*omega**2, -a*m*omega*v1/I]))
>>> rec = reconstruct(v, symmetries=u)
>>> [(q.symbol, q.rate) for q in rec.quadratures]
[(phi, omega), (x, v1*cos(phi)), (y, v1*sin(phi))]
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.polys.polyerrors import BasePolynomialError

from geomech.core.fields import VectorField, check_same_manifold
from geomech.core.manifold import Manifold
from geomech.core.maps import Map
from geomech.core.parse import as_expr
from geomech.core.zero import UndecidedZero, default_policy
from geomech.lie.algebra import LieAlgebra, NotALieAlgebraError, function_coefficients
from geomech.lie.graph import BracketGraph

__all__ = ["reduce", "reconstruct", "ReducedSystem", "Reconstruction", "Quadrature",
           "GeneralSolution", "express_in_invariants"]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def _symmetry_fields(v, symmetries) -> list[VectorField]:
    """Normalise ``symmetries`` (fields, a LieAlgebraAction or a Distribution) to a list."""
    if not isinstance(v, VectorField):
        raise TypeError(f"the system must be a VectorField, got {type(v).__name__}")
    if symmetries is None:
        raise ValueError("symmetries= is required (symmetry fields, an action or a distribution)")
    if hasattr(symmetries, "generators") and not isinstance(symmetries, VectorField):
        fields = list(symmetries.generators)
    elif hasattr(symmetries, "fields") and not isinstance(symmetries, (list, tuple)):
        fields = list(symmetries.fields)
    elif isinstance(symmetries, VectorField):
        fields = [symmetries]
    else:
        fields = list(symmetries)
    if not fields:
        raise ValueError("at least one symmetry field is needed")
    for f in fields:
        if not isinstance(f, VectorField):
            raise TypeError(f"symmetries must be VectorFields, got {type(f).__name__}")
    check_same_manifold(v, *fields)
    return fields


def _rank(rows: Sequence[Sequence]) -> int:
    if not rows:
        return 0
    return default_policy().rank(sp.Matrix([list(r) for r in rows]))


def independent_subset(fields: Sequence[VectorField]) -> list[VectorField]:
    """A maximal subset of fields independent over functions (greedy, in order)."""
    out: list[VectorField] = []
    for f in fields:
        if _rank([g.components for g in out] + [f.components]) == len(out) + 1:
            out.append(f)
    return out


def jacobian_rank(funcs: Sequence, coords: Sequence) -> int:
    r"""Generic rank of the Jacobian :math:`\partial f_i/\partial x_j` (functional
    independence of ``funcs``), decided by the zero policy."""
    if not funcs:
        return 0
    return default_policy().rank(sp.Matrix([[sp.diff(f, c) for c in coords] for f in funcs]))


def _positive_point(symbols: Sequence[sp.Symbol], rng: random.Random) -> dict:
    return {s: sp.Rational(rng.randint(2, 60), rng.randint(7, 31)) for s in symbols}


def _numeric_zero(e, pt: Mapping) -> bool | None:
    """Whether the number ``e(pt)`` is zero, decided by the zero policy (exact for rational and
    algebraic values, guaranteed relative accuracy otherwise -- no absolute threshold);
    ``None`` when undefined there or when the policy cannot prove its verdict."""
    try:
        val = as_expr(e).xreplace(dict(pt))
    except (ZeroDivisionError, TypeError, ValueError):
        return None
    if not val.is_number or val.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return None
    try:
        verdict = default_policy().zero_test(val)
    except UndecidedZero:           # a strict policy: an unproved verdict is no answer here
        return None
    return verdict.zero if verdict.certain else None


def _on_slice(exprs, invariants, slice_: dict, xI: list, zeta: list, M: Manifold, rng):
    r"""On the slice ``slice_``: solve :math:`F(x_I, c) = \zeta` for :math:`x_I`, choose a
    branch, substitute into the expressions and check the result at three sample points of
    the branch domain; ``(expressions in zeta, branch point)`` or ``None``."""
    pol = default_policy()
    Fs = [f.xreplace(slice_) for f in invariants]
    jac = sp.Matrix([[sp.diff(f, c) for c in xI] for f in Fs])
    if pol.rank(jac) < len(xI):
        return None
    sols = sp.solve([f - z for f, z in zip(Fs, zeta)], xI, dict=True)
    sols = [s for s in sols if all(x in s for x in xI)
            and not any(s[x].free_symbols & set(xI) for x in xI)]
    if not sols:
        return None
    best, bpoint = _choose_branch(sols, Fs, xI, zeta, M, rng)
    if best is None:
        return None
    out = [pol.normalize(e.xreplace(slice_).xreplace(best)) for e in exprs]
    for _ in range(3):
        pt = _positive_point(xI + list(M.parameters), rng)
        zpt = {z: f.xreplace(pt) for z, f in zip(zeta, Fs)}
        for e, res in zip(exprs, out):
            chk = _numeric_zero(e.xreplace(slice_).xreplace(pt) - res.xreplace(
                {**zpt, **{p: pt[p] for p in M.parameters}}), {})
            if chk is False:
                return None
    return out, bpoint


def express_in_invariants(exprs: Sequence, invariants: Sequence, fields: Sequence[VectorField],
                          symbols: Sequence[sp.Symbol], *, seed: int = 1
                          ) -> tuple[list, dict, dict]:
    r"""Write invariant functions :math:`W(x)` as functions of given invariants :math:`F(x)`.

    Cross-section method (Borisov & Mamaev (2015), §1.2 step 4a): choose coordinates :math:`x_J`
    (``|J| = rank``) on which the fields are non-singular, fix them at a constant value
    (``0`` when allowed, else ``1``, ``2``), solve :math:`F(x_I, c) = \zeta` for
    :math:`x_I` and substitute into :math:`W`.  Among several solution branches the one that
    reproduces sample points with positive slice coordinates is chosen and the result is
    checked at those points.  The result is *local*: when the invariants do not separate
    orbits (e.g. a square root was needed to invert them), it holds on the orbits through a
    neighbourhood of the returned branch point.

    Parameters
    ----------
    exprs : sequence of expressions
        Functions annihilated by every field (checked by the caller).
    invariants : sequence of expressions
        A complete set of functionally independent invariants :math:`F`.
    fields : sequence of VectorField
        Fields spanning the orbit distribution.
    symbols : sequence of Symbol
        Names :math:`\zeta` of the invariants in the result.

    Returns
    -------
    (list, dict, dict)
        The expressions :math:`V(\zeta)`, the slice ``{x_j: c}`` used and a point of ``M`` (on
        the slice) where the chosen branch was verified (empty when no inversion was needed).

    Examples
    --------
    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> rot = M.vector_field([-y, x, 0])
    >>> r2, Z = sp.symbols("r2 Z")
    >>> express_in_invariants([z*(x**2 + y**2)], [x**2 + y**2, z], [rot], [r2, Z])
    ([Z*r2], {x: 0}, {...})
    """
    fields = list(fields)
    M = check_same_manifold(*fields)
    coords = list(M.coords)
    invariants = [M.sympify(f) for f in invariants]
    exprs = [M.sympify(e) for e in exprs]
    pol = default_policy()
    indep = independent_subset(fields)
    r = len(indep)
    if len(invariants) != M.dim - r:
        raise ValueError(f"{len(invariants)} invariants given; a complete set has "
                         f"{M.dim - r} = dim {M.dim} - orbit dim {r}")
    zeta = [sp.Dummy(f"zeta{i}") for i in range(len(invariants))]
    back = dict(zip(zeta, symbols))
    # trivial case: every invariant is a distinct coordinate and the expressions use only them
    if all(f in coords for f in invariants) and all(
            e.free_symbols & set(coords) <= set(invariants) for e in exprs):
        rep = dict(zip(invariants, symbols))
        return [pol.normalize(e.xreplace(rep)) for e in exprs], {}, {}
    U = sp.Matrix([list(f.components) for f in indep])
    rng = random.Random(seed)
    used = set().union(*(f.free_symbols for f in invariants)) & set(coords)
    # prefer slice coordinates not appearing bare in the invariants' simplest terms
    candidates = sorted(itertools.combinations(range(M.dim), r),
                        key=lambda J: sum(coords[j] in used for j in J))
    last_error = None
    for J in candidates:
        sub = U.extract(list(range(r)), list(J))
        if pol.rank(sub) < r:
            continue
        xI = [coords[i] for i in range(M.dim) if i not in J]
        for cval in (0, 1, 2):
            slice_ = {coords[j]: sp.Integer(cval) for j in J}
            if pol.rank(sub.xreplace(slice_)) < r:
                continue
            try:
                found = _on_slice(exprs, invariants, slice_, xI, zeta, M, rng)
            except (NotImplementedError, ValueError) as exc:  # pragma: no cover - sympy
                last_error = exc
                continue
            if found is not None:
                out, bpoint = found
                return ([pol.normalize(o.xreplace(back)) for o in out], slice_,
                        {**bpoint, **slice_})
    extra = f"; {last_error}" if last_error else ""
    raise ValueError(
        "could not express the functions through the invariants by the cross-section method "
        f"(no transversal slice with an explicit inverse found{extra})")


def _choose_branch(sols, Fs, xI, zeta, M, rng) -> tuple[dict | None, dict]:
    """The solution branch that maps Z(x) back to x at sample points with positive x."""
    for _ in range(4):
        pt = _positive_point(xI + list(M.parameters), rng)
        zpt = {z: f.xreplace(pt) for z, f in zip(zeta, Fs)}
        good = []
        for s in sols:
            ok = True
            for x in xI:
                chk = _numeric_zero(s[x].xreplace(zpt).xreplace(
                    {p: pt[p] for p in M.parameters}) - pt[x], {})
                if chk is not True:
                    ok = False
                    break
            if ok:
                good.append(s)
        if good:
            return good[0], pt
    return None, {}


# ---------------------------------------------------------------------------------------------
# reduction
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReducedSystem:
    r"""Result of :func:`reduce`.

    Attributes
    ----------
    invariants : tuple of expressions
        :math:`Z_i(x)` on the original manifold.
    vector_field : VectorField
        :math:`\dot Z = V(Z)` on :attr:`manifold` (one coordinate per invariant; a
        coordinate of ``M`` used as an invariant keeps its symbol).
    manifold : Manifold
        The orbit-space chart.
    symmetries : tuple of VectorField
        The fields reduced by.
    structure : dict
        ``{(alpha, "v"): coefficients}`` of :math:`[u_\alpha, v]` in the symmetry fields
        (zero for genuine symmetries) -- the functions :math:`b^\beta_\alpha` of (1.4).
    section : dict
        The slice ``{x_j: c}`` of the cross-section method (empty when trivial).
    companion : bool
        True for the single-invariant construction (the
        remark in §1.3 of Borisov & Mamaev (2015)).
    branch_point : dict
        A point of ``M`` (with parameter values) where the branch of the cross-section
        inverse was chosen and verified.  The reduced field is the pushforward of ``v`` on the
        orbits through a neighbourhood of this point; it is global when the invariants
        separate the orbits (empty when no inversion was needed).
    """

    invariants: tuple
    vector_field: VectorField
    manifold: Manifold
    symmetries: tuple
    structure: dict = field(default_factory=dict)
    section: dict = field(default_factory=dict)
    companion: bool = False
    branch_point: dict = field(default_factory=dict)

    @property
    def projection(self) -> Map:
        """The map :math:`x \\mapsto Z(x)` to the orbit space."""
        return Map(self.symmetries[0].manifold, self.manifold, list(self.invariants))

    def singular_locus(self) -> list[sp.Expr]:
        """Equations (on ``M``) of the singular orbits, excluded from the reduction."""
        from geomech.lie.distribution import Distribution

        return Distribution(list(self.symmetries)).singular_locus()

    def equations(self, t=None) -> list[sp.Eq]:
        """The reduced equations as ``Eq(Z_i', V_i)``."""
        t = sp.Symbol("t") if t is None else t
        fs = {z: sp.Function(z.name)(t) for z in self.manifold.coords}
        return [sp.Eq(fs[z].diff(t), c.xreplace(fs))
                for z, c in zip(self.manifold.coords, self.vector_field.components)]

    def __repr__(self) -> str:
        return (f"ReducedSystem(invariants={list(self.invariants)}, "
                f"vector_field={self.vector_field!r})")


def _check_symmetry_distribution(v: VectorField, fields: list[VectorField]) -> dict:
    """Prop. 1 checks: involutive span and ``[u_a, v]`` in the span; returns the b's."""
    G = BracketGraph.of(v.manifold)
    indep = independent_subset(fields)
    r = len(indep)
    base = [f.components for f in indep]
    for (i, a), (j, b) in itertools.combinations(enumerate(fields), 2):
        br = G.bracket(a, b)
        if not br.is_zero() and _rank(base + [br.components]) > r:
            raise ValueError(
                f"the symmetry fields do not span an involutive distribution: [u{i + 1}, "
                f"u{j + 1}] = {br} is not in their span (Frobenius fails; Borisov & Mamaev "
                "(2015), Prop. 1)")
    out = {}
    for i, a in enumerate(fields):
        br = G.bracket(a, v)
        if br.is_zero():
            out[(i, "v")] = (0,) * len(fields)
            continue
        if _rank(base + [br.components]) > r:
            raise ValueError(
                f"the field is not symmetric: [u{i + 1}, v] = {br} is not in the span of the "
                "symmetry fields, so they do not span a symmetry distribution "
                "(Borisov & Mamaev (2015), Prop. 1: [u_a, v] must lie in span(u))")
        out[(i, "v")] = function_coefficients(fields, br)
    return out


def _reduced_symbols(M: Manifold, invariants, names) -> list[sp.Symbol]:
    coords = set(M.coords)
    out = []
    for i, z in enumerate(invariants):
        if names is not None:
            nm = names[i]
            out.append(nm if isinstance(nm, sp.Symbol) else sp.Symbol(str(nm), real=True))
        elif z in coords:
            out.append(z)
        else:
            out.append(sp.Symbol(f"Z{i + 1}", real=True))
    if len(set(out)) != len(out):
        raise ValueError(f"repeated names for the reduced coordinates: {out}")
    return out


def reduce(v: VectorField, symmetries=None, *, invariants: Sequence | None = None,
           seed=None, names: Sequence | None = None, name: str | None = None,
           max_degree: int = 4) -> ReducedSystem:
    r"""Reduce :math:`\dot x = v(x)` to the orbit space of a symmetry distribution.

    Parameters
    ----------
    v : VectorField
        The system on ``M``.
    symmetries : sequence of VectorField, LieAlgebraAction or Distribution
        Fields :math:`u_\alpha` spanning an involutive distribution :math:`S` with
        :math:`[u_\alpha, v] \in S` (checked through the bracket graph; ``ValueError``
        otherwise).
    invariants : sequence of expressions, optional
        The reduced variables :math:`Z`; computed (:func:`~geomech.lie.action.orbit_invariants`)
        when omitted.  Checked: :math:`u_\alpha(Z_i) = 0`, independent, and
        ``dim M - rank S`` of them.
    seed : expression, optional
        One invariant :math:`Z_1`: build :math:`Z_{j+1} = v(Z_j)` until the rank stops
        growing (the single-invariant remark in §1.3 of Borisov & Mamaev (2015)); the reduced
        system is in
        companion form :math:`\dot Z_j = Z_{j+1}`, and may be coarser than the full
        reduction when the rank stops early.
    names : sequence, optional
        Names (or symbols) of the reduced coordinates (default: the coordinate itself when an
        invariant is a coordinate of ``M``, else ``Z1, Z2, ...``).
    name : str, optional
        Name of the reduced manifold (default ``M/G``).

    Returns
    -------
    ReducedSystem

    Examples
    --------
    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> v = M.vector_field([-y + x*z, x + y*z, -x**2 - y**2])
    >>> red = reduce(v, symmetries=[M.vector_field([-y, x, 0])], names=["z", "r2"])
    >>> red.invariants, red.vector_field.components
    ((z, x**2 + y**2), (-r2, 2*r2*z))
    """
    fields = _symmetry_fields(v, symmetries)
    M = v.manifold
    structure = _check_symmetry_distribution(v, fields)
    r = len(independent_subset(fields))
    m = M.dim - r
    if seed is not None:
        return _companion_reduction(v, fields, M.sympify(seed), m, names, name, structure)
    if invariants is None:
        from geomech.lie.action import orbit_invariants

        Z = orbit_invariants(fields, max_degree=max_degree)
    else:
        Z = [M.sympify(z) for z in invariants]
        _verify_invariants(fields, Z, m)
    # v(Z_i) without normalisation: it is only evaluated on the slice below.  That it is
    # invariant follows exactly from Prop. 1 ([u_a, v] in span(u) and u_a(Z) = 0, both
    # verified above); the slice check in express_in_invariants guards the result.
    W = [sp.Add(*[ci * sp.diff(z, x) for ci, x in zip(v.components, M.coords) if ci != 0])
         for z in Z]
    syms = _reduced_symbols(M, Z, names)
    V, section, bpoint = express_in_invariants(W, Z, fields, syms)
    R = M.submanifold_chart(name or f"{M.name}/G", syms)
    return ReducedSystem(tuple(Z), R.vector_field(V), R, tuple(fields), structure, section,
                         branch_point=bpoint)


def _verify_invariants(fields, Z, m) -> None:
    from geomech.lie.action import invariance_problems

    problems = invariance_problems(fields, Z)
    if problems:
        raise ValueError("the given functions are not independent invariants of the symmetry "
                         "fields: " + "; ".join(problems))
    if len(Z) != m:
        raise ValueError(f"{len(Z)} invariants given; the orbit space has dimension {m} "
                         "(dim M - rank of the symmetry fields)")


def _companion_reduction(v, fields, z1, m, names, name, structure) -> ReducedSystem:
    """Borisov & Mamaev (2015), remark in §1.3: Z_{j+1} = v(Z_j) until the rank stops growing."""
    M = v.manifold
    pol = default_policy()
    for a, u in enumerate(fields):
        if not pol.is_zero(u(z1)):
            raise ValueError(f"the seed {z1} is not an invariant: u{a + 1}(seed) = {u(z1)}")
    Z = [z1]
    if jacobian_rank(Z, M.coords) == 0:
        raise ValueError(f"the seed {z1} is constant")
    while len(Z) < m:
        nxt = v(Z[-1])
        if jacobian_rank(Z + [nxt], M.coords) == len(Z):
            break
        Z.append(nxt)
    last = v(Z[-1])
    syms = _reduced_symbols(M, Z, names)
    if len(Z) == m:
        (VL,), section, bpoint = express_in_invariants([last], Z, fields, syms)
    else:
        # coarser reduction: express v(Z_m') through Z_1..Z_m' on the level of the orbits of
        # the fields together with the remaining directions (complete the invariants first)
        from geomech.lie.action import orbit_invariants

        full = orbit_invariants(fields)
        extra = [f for f in full if jacobian_rank(Z + [f], M.coords) > len(Z)]
        comp = list(Z)
        for f in extra:
            if jacobian_rank(comp + [f], M.coords) > len(comp):
                comp.append(f)
        tmp = [sp.Dummy(f"w{i}") for i in range(len(comp) - len(Z))]
        (VL,), section, bpoint = express_in_invariants([last], comp, fields, syms + tmp)
        if VL.free_symbols & set(tmp):
            raise ValueError("internal: v(Z_m') does not close on Z_1..Z_m'")
    comps = list(syms[1:]) + [VL]
    R = M.submanifold_chart(name or f"{M.name}/G", syms)
    return ReducedSystem(tuple(Z), R.vector_field(comps), R, tuple(fields), structure, section,
                         companion=True, branch_point=bpoint)


# ---------------------------------------------------------------------------------------------
# reconstruction
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Quadrature:
    r"""One step :math:`\dot Y_k = G_k(Z, Y_1..Y_{k-1})` of Lie's triangular system.

    Attributes
    ----------
    coordinate : expression
        :math:`Y_k` as a function on ``M`` (often a coordinate).
    symbol : Symbol
        Its name in :attr:`rate` of later steps (the coordinate itself when it is one).
    rate : expression
        :math:`G_k` in the reduced symbols and the earlier :math:`Y` symbols.
    field : VectorField
        The adapted basis element :math:`e_k`, with :math:`e_k(Y_k) = 1`.
    """

    coordinate: sp.Expr
    symbol: sp.Symbol
    rate: sp.Expr
    field: VectorField

    def equation(self, t=None) -> sp.Eq:
        """``Eq(Y_k, G_k)`` with ``Y_k`` differentiated in ``t`` when ``t`` is given."""
        if t is None:
            return sp.Eq(sp.Symbol(f"{self.symbol}dot"), self.rate)
        return sp.Eq(sp.Function(str(self.symbol))(t).diff(t), self.rate)


@dataclass(frozen=True)
class Reconstruction:
    """Result of :func:`reconstruct`: reduced system plus Lie's quadratures, in order."""

    reduced: ReducedSystem
    algebra: LieAlgebra
    quadratures: tuple
    notes: tuple = ()

    @property
    def cyclic(self) -> tuple:
        """The cyclic coordinates :math:`Y_k` as functions on ``M``."""
        return tuple(q.coordinate for q in self.quadratures)

    def triangular_system(self) -> list[sp.Eq]:
        """Reduced equations followed by the quadratures, as equations in ``t``."""
        t = sp.Symbol("t")
        return self.reduced.equations(t) + [q.equation(t) for q in self.quadratures]

    def general_solution(self, t, reduced_solution: Mapping | None = None, *,
                         solve_reduced: bool = True, chart: str = "original") -> GeneralSolution:
        r"""The motion by quadratures, in the coordinates of the original manifold.

        Lie's reconstruction (Borisov & Mamaev 2015, Theorem 2) gives the motion in the
        adapted chart :math:`(Z, Y)`: a solution :math:`Z(t)` of the reduced system and the
        cyclic coordinates :math:`Y_k(t) = Y_k^0 + \int G_k\,dt`.  The result is then mapped
        back through the inverse of the chart, i.e. the equations :math:`Z_i(x) = Z_i(t)`,
        :math:`Y_k(x) = Y_k(t)` are solved for the coordinates :math:`x` of ``M``.

        Parameters
        ----------
        t : Symbol
            Time.
        reduced_solution : mapping, optional
            ``{Z_i: Z_i(t)}`` for every reduced coordinate.  Without it the reduced system
            is solved by ``sympy.dsolve`` when possible (undefined functions ``Z_i(t)``
            stay otherwise).
        solve_reduced : bool
            Set to false to skip ``dsolve`` (it can take a minute on nonlinear reduced
            systems, e.g. the sleigh with ``a != 0``) and keep ``Z_i(t)`` undefined.
        chart : {"original", "adapted"}
            ``"original"`` (default): keys are the coordinates of ``M``; ``"adapted"``:
            keys are the reduced coordinates and the symbols of the cyclic coordinates.

        Returns
        -------
        GeneralSolution
            A dict ``{coordinate: expression in t and constants}``.  Quadratures sympy
            cannot evaluate stay unevaluated ``Integral`` objects; constants are named
            ``<symbol>_0``; generic branches of piecewise antiderivatives are kept.  Where
            the chart cannot be inverted, the coordinates that could not be solved for are
            missing, :attr:`GeneralSolution.relations` holds the implicit relations and
            :attr:`GeneralSolution.failed` says which step failed.

        Examples
        --------
        A cyclic coordinate that is not a coordinate of ``M`` (``log y`` for the scaling
        symmetry :math:`y\partial_y`) is mapped back:

        >>> import sympy as sp
        >>> from geomech.core import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> rec = reconstruct(M.vector_field([0, x*y]), symmetries=[M.vector_field([0, y])])
        >>> rec.quadratures[0].coordinate
        log(y)
        >>> sol = rec.general_solution(sp.Symbol("t"))
        >>> sol
        {x: x_0, y: exp(Y1_0 + t*x_0)}
        >>> sol.adapted
        {x: x_0, Y1: Y1_0 + t*x_0}
        """
        if chart not in ("original", "adapted"):
            raise ValueError(f"chart must be 'original' or 'adapted', got {chart!r}")
        adapted = self._adapted_solution(t, reduced_solution, solve_reduced)
        if chart == "adapted":
            return GeneralSolution(adapted, adapted=adapted)
        return self._to_original(adapted)

    def _adapted_solution(self, t, reduced_solution, solve_reduced) -> dict:
        red = self.reduced
        zs = list(red.manifold.coords)
        if reduced_solution is not None:
            sol = {red.manifold.sympify(k): as_expr(v) for k, v in reduced_solution.items()}
            missing = [z for z in zs if z not in sol]
            if missing:
                raise ValueError(f"the reduced solution lacks {missing}")
        elif solve_reduced:
            sol = _solve_reduced(red, t)
        else:
            sol = {z: sp.Function(z.name)(t) for z in zs}
        out = dict(sol)
        for q in self.quadratures:
            out[q.symbol] = sp.Symbol(f"{q.symbol}_0", real=True) + _quadrature(
                q.rate.xreplace(out), t)
        return out

    def _to_original(self, adapted: dict) -> GeneralSolution:
        """Invert the chart ``x -> (Z(x), Y(x))`` on the adapted solution."""
        red = self.reduced
        M = self.quadratures[0].field.manifold if self.quadratures else \
            red.symmetries[0].manifold
        pairs = [(Zi, adapted[z]) for Zi, z in zip(red.invariants, red.manifold.coords)]
        pairs += [(q.coordinate, adapted[q.symbol]) for q in self.quadratures]
        out: dict = {}
        rest = []
        for f, val in pairs:
            if f in M.coords and f not in out:
                out[f] = val
            else:
                rest.append((f, val))
        unknown = [c for c in M.coords if c not in out]
        if not rest:
            return GeneralSolution(out, adapted=adapted)
        eqs = [sp.Eq(f.xreplace(out), val) for f, val in rest]
        reason = "no solution found"
        try:
            sols = sp.solve(eqs, unknown, dict=True)
        except (NotImplementedError, ValueError, TypeError) as exc:
            sols, reason = [], f"sympy.solve: {exc}"
        sols = [s for s in sols if set(unknown) <= set(s)]
        if not sols:
            failed = (f"the chart (Z, Y) -> {tuple(M.coords)} could not be inverted for "
                      f"{unknown} ({reason}); the relations are returned implicitly")
            return GeneralSolution(out, adapted=adapted, relations=tuple(eqs), failed=failed)
        notes = () if len(sols) == 1 else (
            f"{len(sols)} branches of the chart inverse; the first is returned",)
        out.update({c: sols[0][c] for c in unknown})
        return GeneralSolution(out, adapted=adapted, notes=notes)


class GeneralSolution(dict):
    """A general solution ``{coordinate: expression in t}`` with its provenance.

    Attributes
    ----------
    adapted : dict
        The solution in the adapted chart (reduced coordinates and cyclic symbols).
    relations : tuple of sympy.Eq
        Implicit relations :math:`f(x) = g(t)` for the coordinates that could not be solved
        for (empty when the chart was inverted).
    failed : str or None
        Which step failed, when the inversion did.
    notes : tuple of str
        Remarks, e.g. the branch chosen among several.
    """

    def __init__(self, values: Mapping, *, adapted: Mapping, relations: tuple = (),
                 failed: str | None = None, notes: tuple = ()):
        super().__init__(values)
        self.adapted = dict(adapted)
        self.relations = tuple(relations)
        self.failed = failed
        self.notes = tuple(notes)

    def __reduce__(self):
        return (_rebuild_general_solution,
                (dict(self), self.adapted, self.relations, self.failed, self.notes))


def _rebuild_general_solution(values, adapted, relations, failed, notes) -> GeneralSolution:
    return GeneralSolution(values, adapted=adapted, relations=relations, failed=failed,
                           notes=notes)


def _quadrature(g, t):
    r""":math:`\int_0^t g\,d\tau` where sympy finds it, an unevaluated integral otherwise."""
    tau = sp.Dummy("tau")
    if not g.has(t):
        return g * t
    if g.atoms(AppliedUndef) or g.has(sp.Integral):
        # the reduced solution is not explicit: keep the quadrature unevaluated
        return sp.Integral(g.xreplace({t: tau}), (tau, 0, t))
    F = sp.piecewise_fold(sp.integrate(g, t))
    if isinstance(F, sp.Piecewise):  # keep the generic branch (first condition)
        F = F.args[0].expr
    if F.has(sp.Integral):
        return sp.Integral(g.xreplace({t: tau}), (tau, 0, t))
    return F


def _solve_reduced(red: ReducedSystem, t) -> dict:
    zs = list(red.manifold.coords)
    V = red.vector_field.components
    pol = default_policy()
    if all(pol.is_zero(c) for c in V):
        return {z: sp.Symbol(f"{z}_0", real=True) for z in zs}
    fs = {z: sp.Function(z.name)(t) for z in zs}
    eqs = [sp.Eq(fs[z].diff(t), c.xreplace(fs)) for z, c in zip(zs, V)]
    try:
        res = sp.dsolve(eqs if len(eqs) > 1 else eqs[0])
        res = res if isinstance(res, list) else [res]
        out = {}
        for eq in res:
            for z in zs:
                if eq.lhs == fs[z]:
                    out[z] = eq.rhs
        if len(out) == len(zs):
            return out
    except (NotImplementedError, ValueError, BasePolynomialError):  # no closed form: Z(t)
        pass
    return dict(fs)


def _symmetry_algebra(v: VectorField, fields: list[VectorField]) -> LieAlgebra:
    G = BracketGraph.of(v.manifold)
    for i, u in enumerate(fields):
        br = G.bracket(u, v)
        if not br.is_zero():
            raise ValueError(
                f"u{i + 1} is not a symmetry field of v: [u{i + 1}, v] = {br} != 0 (Lie's "
                "reconstruction theorem needs genuine symmetry fields, [u_a, v] = 0)")
    try:
        return LieAlgebra.from_vector_fields(fields, names=[f"u{i + 1}" for i in
                                                            range(len(fields))])
    except NotALieAlgebraError as exc:
        raise ValueError(f"the symmetry fields do not form a Lie algebra: {exc}") from exc


def _cyclic_candidates(M: Manifold):
    cs = list(M.coords)
    yield from cs
    for a, b in itertools.permutations(cs, 2):
        yield sp.atan2(b, a)
    for c in cs:
        yield sp.log(c)


def _find_cyclic(e: list[VectorField], k: int, M: Manifold, known: list) -> sp.Expr:
    pol = default_policy()
    for cand in _cyclic_candidates(M):
        if any(pol.is_zero(cand - y) for y in known):
            continue
        if not all(pol.is_zero(e[j](cand)) for j in range(k + 1, len(e))):
            continue
        val = e[k](cand)
        if pol.is_zero(val):
            continue
        if pol.is_constant(val, M.coords):
            return pol.normalize(cand / val)
    raise ValueError(
        f"could not find a cyclic coordinate Y{k + 1} with e_{k + 1}(Y) = 1 and e_j(Y) = 0 for "
        "j > k among coordinates, angles atan2 and logarithms; pass cyclic=[...]")


def reconstruct(v: VectorField, symmetries=None, *, invariants: Sequence | None = None,
                cyclic: Sequence | None = None, names: Sequence | None = None) -> Reconstruction:
    r"""Lie's reconstruction by quadratures for a solvable algebra of symmetry fields.

    Parameters
    ----------
    v : VectorField
        The system.
    symmetries : sequence of VectorField or LieAlgebraAction
        Symmetry fields, :math:`[u_\alpha, v] = 0`, closing into a solvable Lie algebra
        whose dimension equals the generic orbit dimension (locally free action).
    invariants : sequence, optional
        Reduced variables :math:`Z` (computed when omitted).
    cyclic : sequence, optional
        Cyclic coordinates :math:`Y_k` for the adapted basis (searched among coordinates,
        ``atan2`` angles and logarithms when omitted); checked
        :math:`e_j(Y_k) = \delta_{jk}` for :math:`j \ge k`.
    names : sequence, optional
        Names of the reduced coordinates.

    Returns
    -------
    Reconstruction
        ``.reduced`` (the reduced system), ``.algebra`` (adapted basis),
        ``.quadratures`` (in order: :math:`\dot Y_k = G_k(Z, Y_1..Y_{k-1})`) and
        ``.general_solution(t)``.

    Raises
    ------
    ValueError
        For a field that is not a symmetry, fields that do not close, a non-solvable
        algebra (e.g. :math:`\mathfrak{so}(3)`), or an action that is not locally free.
    """
    fields = _symmetry_fields(v, symmetries)
    M = v.manifold
    pol = default_policy()
    g = _symmetry_algebra(v, fields)
    series = g.derived_series()
    if series[-1].dim:
        dims = [s.dim for s in series]
        raise ValueError(
            f"the symmetry algebra is not solvable (derived series dimensions {dims}, "
            f"stopping at {series[-1]!r}); Lie's Theorem 2 does not apply: the reconstruction "
            "needs a non-autonomous linear ODE on the group, not quadratures (integrate it "
            "numerically with geomech.numeric.reconstruction.reconstruct_numerically or "
            "integrate_on_group)")
    orbit = len(independent_subset(fields))
    if orbit != g.dim:
        raise ValueError(f"the action is not locally free: algebra dimension {g.dim} but orbit "
                         f"dimension {orbit}; reconstruct with a subalgebra acting freely")
    red = reduce(v, fields, invariants=invariants, names=names)
    ga = g.adapted()
    if not ga.is_triangular():  # pragma: no cover - guaranteed by the construction
        raise ValueError("internal: the adapted basis is not triangular")
    e = list(ga.fields)
    r = len(e)
    if cyclic is not None:
        Y = [M.sympify(y) for y in cyclic]
        if len(Y) != r:
            raise ValueError(f"{len(Y)} cyclic coordinates given for {r} symmetry fields")
        for k, y in enumerate(Y):
            for j in range(k, r):
                want = 1 if j == k else 0
                got = e[j](y)
                if not pol.is_zero(got - want):
                    raise ValueError(f"cyclic coordinate Y{k + 1} = {y}: e{j + 1}(Y{k + 1}) = "
                                     f"{got}, expected {want} (adapted basis {ga.names})")
    else:
        Y = []
        for k in range(r):
            Y.append(_find_cyclic(e, k, M, Y))
    if jacobian_rank(list(red.invariants) + Y, M.coords) < M.dim:
        raise ValueError("the reduced variables and cyclic coordinates are not independent "
                         f"(Z = {red.invariants}, Y = {Y})")
    ysyms = []
    used = set(red.manifold.coords)
    for k, y in enumerate(Y):
        s = y if (y in M.coords and y not in used) else sp.Symbol(f"Y{k + 1}", real=True)
        ysyms.append(s)
        used.add(s)
    quads = []
    notes = []
    for k in range(r):
        Gk = v(Y[k])
        for j in range(k, r):
            if not pol.is_zero(e[j](Gk)):
                raise ValueError(f"internal check failed: e{j + 1}(G{k + 1}) != 0")
        funcs = list(red.invariants) + Y[:k]
        syms = list(red.manifold.coords) + ysyms[:k]
        (rate,), _, _ = express_in_invariants([Gk], funcs, e[k:], syms)
        quads.append(Quadrature(Y[k], ysyms[k], rate, e[k]))
    return Reconstruction(red, ga, tuple(quads), tuple(notes))
