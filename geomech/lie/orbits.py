r"""The orbit space of a distribution of symmetry fields: invariants as coordinates.

The common invariants :math:`Z_1,\dots,Z_m` of fields :math:`u_\alpha` spanning an involutive
distribution (:math:`u_\alpha(Z_i) = 0`, :math:`m = \dim M - \operatorname{rank}`) are
coordinates on the orbit space.  A function :math:`W` annihilated by the fields is a function
:math:`V(Z)` of them; :func:`express_in_invariants` finds :math:`V` by the *cross-section
method* (Borisov & Mamaev (2015), §1.2 step 4a): on a slice :math:`x_J = c` transversal to
the orbits, :math:`Z` is invertible; solve :math:`Z(x_I, c) = \zeta` and substitute.
:class:`ReducedSystem` is the reduced field :math:`\dot Z = V(Z)` on that chart.

>>> import sympy as sp
>>> from geomech.core import Manifold
>>> M = Manifold("M", "x y z"); x, y, z = M.coords
>>> rot = M.vector_field([-y, x, 0])
>>> independent_subset([rot, 2*rot]) == [rot], jacobian_rank([x**2 + y**2, z], M.coords)
(True, 2)
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sympy as sp

from geomech.core.algebra import rank
from geomech.core.fields import VectorField, check_same_manifold
from geomech.core.manifold import Manifold
from geomech.core.maps import Map
from geomech.core.parse import as_expr
from geomech.core.zero import UndecidedZero, default_policy

__all__ = ["ReducedSystem", "express_in_invariants", "independent_subset", "jacobian_rank",
           "vectors_rank", "orbit_invariants", "invariance_problems", "InvariantsNotFound"]


def vectors_rank(vectors: Sequence[Sequence]) -> int:
    """Generic rank over the functions of component vectors (:func:`geomech.core.algebra.rank`).

    >>> x = sp.Symbol("x")
    >>> vectors_rank([(1, x), (x, x**2)]), vectors_rank([])
    (1, 0)
    """
    return rank(sp.Matrix([list(r) for r in vectors])) if vectors else 0


def independent_subset(fields: Sequence[VectorField]) -> list[VectorField]:
    """A maximal subset of fields independent over functions (greedy, in order)."""
    out: list[VectorField] = []
    for f in fields:
        if vectors_rank([g.components for g in out] + [f.components]) == len(out) + 1:
            out.append(f)
    return out


def jacobian_rank(funcs: Sequence, coords: Sequence) -> int:
    r"""Generic rank of the Jacobian :math:`\partial f_i/\partial x_j` (functional
    independence of ``funcs``), decided by the zero policy."""
    if not funcs:
        return 0
    return rank(sp.Matrix([[sp.diff(f, c) for c in coords] for f in funcs]))


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
    if rank(jac) < len(xI):
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
    invariants = [M.sympify(f) for f in invariants]
    exprs = [M.sympify(e) for e in exprs]
    indep = independent_subset(fields)
    if len(invariants) != M.dim - len(indep):
        raise ValueError(f"{len(invariants)} invariants given; a complete set has "
                         f"{M.dim - len(indep)} = dim {M.dim} - orbit dim {len(indep)}")
    coords = list(M.coords)
    # trivial case: every invariant is a distinct coordinate and the expressions use only them
    if all(f in coords for f in invariants) and all(
            e.free_symbols & set(coords) <= set(invariants) for e in exprs):
        rep = dict(zip(invariants, symbols))
        return [default_policy().normalize(e.xreplace(rep)) for e in exprs], {}, {}
    return _on_a_transversal_slice(exprs, invariants, indep, M, symbols, random.Random(seed))


def _transversal_slices(U: sp.Matrix, M: Manifold, used: set):
    """Slices ``({x_j: c}, x_I)`` with ``x_J = c`` transversal to the orbits spanned by the
    rows of ``U`` (the minor of the ``J`` columns stays invertible on the slice), ``c`` in
    0, 1, 2; slice coordinates not appearing in the invariants (``used``) first."""
    coords, r = list(M.coords), U.rows
    for J in sorted(itertools.combinations(range(M.dim), r),
                    key=lambda J: sum(coords[j] in used for j in J)):
        sub = U.extract(list(range(r)), list(J))
        if rank(sub) < r:
            continue
        xI = [coords[i] for i in range(M.dim) if i not in J]
        for cval in (0, 1, 2):
            slice_ = {coords[j]: sp.Integer(cval) for j in J}
            if rank(sub.xreplace(slice_)) >= r:
                yield slice_, xI


def _on_a_transversal_slice(exprs, invariants, indep, M, symbols, rng
                            ) -> tuple[list, dict, dict]:
    """The cross-section method on the first transversal slice where it succeeds."""
    pol = default_policy()
    zeta = [sp.Dummy(f"zeta{i}") for i in range(len(invariants))]
    back = dict(zip(zeta, symbols))
    U = sp.Matrix([list(f.components) for f in indep])
    used = set().union(*(f.free_symbols for f in invariants)) & set(M.coords)
    last_error = None
    for slice_, xI in _transversal_slices(U, M, used):
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
        return [sp.Eq(fs[z].diff(t), c.xreplace(fs), evaluate=False)
                for z, c in zip(self.manifold.coords, self.vector_field.components)]

    def __repr__(self) -> str:
        return (f"ReducedSystem(invariants={list(self.invariants)}, "
                f"vector_field={self.vector_field!r})")


class InvariantsNotFound(ValueError):
    """Fewer independent invariants than ``dim - orbit dim`` could be found.

    ``partial`` holds the verified invariants that were found.
    """

    def __init__(self, message, partial=(), expected=0):
        super().__init__(message)
        self.partial = tuple(partial)
        self.expected = expected


def invariance_problems(fields: Sequence[VectorField], funcs: Sequence) -> list[str]:
    """Problems with candidate invariants: non-invariance and dependence (empty if fine).

    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> invariance_problems([M.vector_field([-y, x, 0])], [x**2 + y**2, z, x])
    ['u1(x) = -y != 0']
    """
    fields = list(fields) if isinstance(fields, (list, tuple)) else None
    if not fields or not all(isinstance(u, VectorField) for u in fields):
        raise TypeError("fields must be a non-empty list of VectorField objects")
    M = fields[0].manifold
    for u in fields[1:]:
        check_same_manifold(fields[0], u)
    if not isinstance(funcs, (list, tuple)):
        raise TypeError(f"funcs must be a list of expressions, got {type(funcs).__name__}")
    funcs = [M.sympify(f) for f in funcs]
    pol = default_policy()
    problems = []
    for f in funcs:
        for a, u in enumerate(fields):
            val = u(f)
            if not pol.is_zero(val):
                problems.append(f"u{a + 1}({f}) = {val} != 0")
    if funcs:
        jac = sp.Matrix([[sp.diff(f, c) for c in M.coords] for f in funcs])
        if rank(jac) < len(funcs):
            problems.append("the functions are functionally dependent (Jacobian rank "
                            f"{rank(jac)} < {len(funcs)})")
    return problems


def orbit_invariants(fields: Sequence[VectorField], max_degree: int = 4) -> list[sp.Expr]:
    r"""Functionally independent common first integrals of the fields (orbit-space coordinates).

    Computed as the first integrals of the involutive distribution spanned by the fields
    (:meth:`geomech.lie.distribution.Distribution.first_integrals`: free coordinates,
    polynomial/trigonometric ansatz, characteristics), then verified here: every
    :math:`u_\alpha(f) = 0` exactly and the Jacobian has full rank, and their number equals
    ``dim - rank`` (Borisov & Mamaev (2015), §1.3).

    Raises
    ------
    ValueError
        If the fields do not span an involutive distribution.
    InvariantsNotFound
        (a ``ValueError``) if not all invariants could be found.

    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> orbit_invariants([M.vector_field([-y, x, 0])])
    [z, x**2 + y**2]
    """
    from geomech.lie.distribution import Distribution, NotFoundError

    fields = list(fields)
    if not fields:
        raise ValueError("orbit_invariants needs at least one field")
    M = check_same_manifold(*fields)
    D = Distribution(fields)
    if not D.is_involutive():
        fr = D.frobenius()
        raise ValueError(f"the fields do not span an involutive distribution (Frobenius fails: "
                         f"{getattr(fr, 'offending', None)} is not in the span); the orbits "
                         "are not the leaves of the fields and have no invariants of "
                         "dimension dim - rank")
    expected = M.dim - D.rank
    try:
        found = list(D.first_integrals(max_degree=max_degree))
    except NotFoundError as exc:
        raise InvariantsNotFound(
            f"found {len(exc.partial)} of the {expected} independent invariants of the orbits "
            f"of {len(fields)} fields on {M.name} (ansatz up to degree {max_degree}); "
            "pass the invariants explicitly", partial=exc.partial, expected=expected) from exc
    problems = invariance_problems(fields, found)
    if problems or len(found) != expected:
        raise InvariantsNotFound(
            f"invariant computation returned {len(found)} functions, expected {expected} = "
            f"dim {M.dim} - orbit dim {D.rank}; problems: {'; '.join(problems) or 'count'}",
            partial=found, expected=expected)
    return found
