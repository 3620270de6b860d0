r"""Coefficients of vector fields in a list of fields: constant or functions.

A field :math:`Y` is a *constant* combination :math:`Y = \sum_k c_k X_k` of fields
:math:`X_k` when the :math:`c_k` do not depend on the coordinates (parameters allowed): the
condition for :math:`[X_i, X_j] = \sum_k c^k_{ij} X_k` to define the structure constants of a
finite-dimensional Lie algebra of vector fields.  The constants are found from exact
evaluations at random rational points and confirmed symbolically by the zero policy;
coefficients over *functions* come from an exact square solve
(:func:`geomech.core.algebra.solve_linear`).

>>> from geomech.core import Manifold
>>> M = Manifold("M", "x y"); x, y = M.coords
>>> X, Y = M.vector_field([1, y]), M.vector_field([0, 1])
>>> constant_coefficients([X, Y], M.vector_field([2, 2*y - 3]))
(2, -3)
>>> constant_coefficients([X], M.vector_field([0, x])) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra import nullspace, rank, solve_linear
from geomech.core.algebra.matrices import expr_rref
from geomech.core.fields import VectorField, check_same_manifold
from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.lie.subspace import normalized

__all__ = ["ConstantSolver", "constant_coefficients", "constant_dependency",
           "function_coefficients", "vector_fields", "sampled_rref", "particular_solution"]


def vector_fields(objs, what: str = "fields") -> tuple[list[VectorField], Manifold]:
    """The non-empty list of vector fields ``objs`` and their common manifold.

    Raises ``ValueError`` for an empty list or fields on different manifolds and
    ``TypeError`` naming ``what`` for anything that is not a :class:`VectorField`.

    >>> M = Manifold("M", "x y")
    >>> vector_fields([M.vector_field([1, 0])])[1] is M
    True
    """
    fields = list(objs)
    if not fields:
        raise ValueError(f"at least one of the {what} is needed")
    for f in fields:
        if not isinstance(f, VectorField):
            raise TypeError(f"{what} must be VectorFields, got {type(f).__name__}")
    return fields, check_same_manifold(*fields)


def _coordinate_like(M, exprs) -> tuple[list, dict]:
    """Rewrite expressions for exact evaluation: jets and half-angle tangents become symbols.

    Returns the rewritten expressions and the symbols to be sampled (coordinates of ``M``,
    their half-angle variables and jet variables); other symbols (parameters) stay symbolic.
    """
    from geomech.core.zero import half_angle_symbol, is_auxiliary_symbol, rational_rewrite

    out = [rational_rewrite(e) for e in exprs]
    coords = set(M.coords)
    half_angles = {half_angle_symbol(c) for c in coords}
    sample = set()
    for e in out:
        for s in e.free_symbols:
            if s in coords or s in half_angles or is_auxiliary_symbol(s, "jet"):
                sample.add(s)
    return out, sorted(sample, key=sp.default_sort_key)


def _evaluation_system(fields: Sequence[VectorField], target: Sequence | None, npoints: int):
    """Stack ``F(p) c = b(p)`` at random exact points ``p`` (parameters stay symbolic)."""
    M = fields[0].manifold
    n, k = M.dim, len(fields)
    flat = [f.components[i] for i in range(n) for f in fields]
    tgt = list(target) if target is not None else [0] * n
    rew, sample = _coordinate_like(M, flat + tgt)
    fmat, bvec = rew[:n * k], rew[n * k:]
    rows, rhs = [], []
    pol = default_policy()
    tries = 0
    while len(rows) < npoints * n and tries < 4 * npoints:
        tries += 1
        pt = pol.random_point(sample)
        vals = [e.xreplace(pt) for e in fmat]
        bv = [e.xreplace(pt) for e in bvec]
        if any(v.has(sp.zoo, sp.nan, sp.oo) for v in vals + bv):
            continue
        for i in range(n):
            rows.append(vals[i * k:(i + 1) * k])
            rhs.append(bv[i])
    return sp.Matrix(rows), sp.Matrix(rhs)


def sampled_rref(a: sp.Matrix) -> tuple[list[list], list[int]]:
    r"""Reduced row echelon form of a matrix sampled at exact points: its non-zero rows and
    pivot columns.

    Entries in :math:`\mathbb Q(\text{parameters})` are reduced in that field
    (:func:`geomech.core.algebra.matrices.expr_rref`: exact pivots); other entries
    (algebraic numbers, functions of parameters) by sympy's Gauss-Jordan elimination with
    the zero policy deciding each pivot.

    >>> k = sp.Symbol("k")
    >>> sampled_rref(sp.Matrix([[k, 1], [2*k, 2]]))
    ([[1, 1/k]], [0])
    >>> sampled_rref(sp.Matrix([[sp.sqrt(2), 1], [2, sp.sqrt(2)]]))[1]
    [0]
    """
    got = expr_rref(a)
    if got is not None:
        return got
    red, piv = a.rref(iszerofunc=default_policy().is_zero, simplify=False)
    return [list(red.row(i)) for i in range(len(piv))], list(piv)


def particular_solution(a: sp.Matrix, b: sp.Matrix) -> list | None:
    r"""The solution of :math:`a x = b` with every free unknown set to 0, or ``None`` when
    the system is inconsistent.

    From :math:`R = \operatorname{rref}([a \mid b])` (:func:`sampled_rref`) with pivot
    columns :math:`P`: :math:`x_{P_i} = R_{i,n}`, other unknowns 0 (sympy's
    ``gauss_jordan_solve`` with its parameters set to 0); inconsistent when the last column
    is a pivot.

    >>> particular_solution(sp.Matrix([[1, 1], [2, 2]]), sp.Matrix([3, 6]))
    [3, 0]
    >>> particular_solution(sp.Matrix([[1, 1], [2, 2]]), sp.Matrix([3, 5])) is None
    True
    """
    n = a.cols
    red, piv = sampled_rref(a.row_join(b))
    if n in piv:
        return None
    x = [sp.S.Zero] * n
    for row, p in zip(red, piv):
        x[p] = row[n]
    return x


class ConstantSolver:
    """Constant coefficients of targets in a fixed list of fields, with one factorisation.

    The fields are evaluated once at random exact points; ``k`` independent rows of the
    stacked system are kept and inverted.  Each target is evaluated on those rows only, and
    the candidate coefficients are confirmed symbolically (zero policy).
    """

    def __init__(self, fields: Sequence[VectorField]):
        self.fields = list(fields)
        self.M = self.fields[0].manifold
        n, k = self.M.dim, len(self.fields)
        flat = [f.components[i] for i in range(n) for f in self.fields]
        rew, self.sample = _coordinate_like(self.M, flat)
        pol = default_policy()
        self.points, rows, where = [], [], []
        tries = 0
        while len(self.points) < k + 2 and tries < 4 * (k + 2):
            tries += 1
            pt = pol.random_point(self.sample)
            vals = [e.xreplace(pt) for e in rew]
            if any(v.has(sp.zoo, sp.nan, sp.oo) for v in vals):
                continue
            for i in range(n):
                rows.append(vals[i * k:(i + 1) * k])
                where.append((len(self.points), i))
            self.points.append(pt)
        a = sp.Matrix(rows)
        pivots = sampled_rref(a.T)[1]
        self.where = [where[r] for r in pivots]
        self.inverse = _inverse(a.extract(pivots, list(range(k)))) if len(pivots) == k \
            else None

    def solve(self, target: VectorField) -> tuple | None:
        if self.inverse is None:  # degenerate sample: fall back to the general routine
            return constant_coefficients(self.fields, target)
        comps, _ = _coordinate_like(self.M, target.components)
        b = sp.Matrix([comps[i].xreplace(self.points[p]) for p, i in self.where])
        if any(v.has(sp.zoo, sp.nan, sp.oo) for v in b):
            return constant_coefficients(self.fields, target)
        c = tuple(normalized(x) for x in self.inverse * b)
        pol = default_policy()
        for i in range(self.M.dim):
            res = target.components[i] - sum(ci * f.components[i]
                                             for ci, f in zip(c, self.fields) if ci != 0)
            if not pol.is_zero(res):
                return None
        return c


def _inverse(a: sp.Matrix) -> sp.Matrix | None:
    """Inverse of a square matrix: the right block of rref([a | I]); ``None`` if singular."""
    k = a.rows
    red, piv = sampled_rref(a.row_join(sp.eye(k)))
    if piv != list(range(k)):
        return None
    return sp.Matrix([r[k:] for r in red])


def constant_dependency(fields: Sequence[VectorField]) -> tuple | None:
    """A non-trivial constant relation ``sum c_i X_i = 0`` or ``None`` if independent."""
    a, _ = _evaluation_system(fields, None, len(fields) + 2)
    ns = nullspace(a)
    if not ns:
        return None
    c = [normalized(x) for x in ns[0]]
    M = fields[0].manifold
    combo = [normalized(sum(ci * f.components[i] for ci, f in zip(c, fields)))
             for i in range(M.dim)]
    if all(default_policy().is_zero(x) for x in combo):
        return tuple(c)
    return None  # the sample was degenerate; the fields are independent


def constant_coefficients(fields: Sequence[VectorField], target: VectorField) -> tuple | None:
    r"""Constants :math:`c_k` with ``target`` :math:`= \sum_k c_k X_k` identically, or ``None``.

    "Constant" means independent of the coordinates (parameters may appear).  The
    coefficients are found from exact evaluations at random points and then confirmed
    symbolically by the zero policy.

    >>> from geomech.core import Manifold
    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> X, Y = M.vector_field([1, y]), M.vector_field([0, 1])
    >>> constant_coefficients([X, Y], M.vector_field([2, 2*y - 3]))
    (2, -3)
    """
    M = check_same_manifold(*fields, target)
    a, b = _evaluation_system(fields, target.components, len(fields) + 2)
    sol = particular_solution(a, b)
    if sol is None:
        return None
    c = tuple(normalized(x) for x in sol)
    pol = default_policy()
    for i in range(M.dim):
        res = target.components[i] - sum(ci * f.components[i] for ci, f in zip(c, fields))
        if not pol.is_zero(res):
            return None
    return c


def function_coefficients(fields: Sequence[VectorField], target: VectorField) -> tuple | None:
    r"""Functions :math:`f_k` with ``target`` :math:`= \sum_k f_k X_k` (span over functions).

    Returns ``None`` when ``target`` is not in the span.  When the fields are dependent over
    functions, the coefficients of a maximal independent subset are returned (zeros
    elsewhere).

    >>> from geomech.core import Manifold
    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> function_coefficients([M.vector_field([0, x])], M.vector_field([0, 1]))
    (1/x,)
    """
    M = check_same_manifold(*fields, target)
    cols = []
    for idx, f in enumerate(fields):
        trial = [fields[i] for i in cols] + [f]
        mat = sp.Matrix([list(g.components) for g in trial]).T
        if rank(mat) == len(trial):
            cols.append(idx)
    base = sp.Matrix([list(fields[i].components) for i in cols]).T if cols else sp.zeros(M.dim, 0)
    if not cols:
        return tuple([0] * len(fields)) if target.is_zero() else None
    aug = base.row_join(sp.Matrix(target.components))
    if rank(aug) != len(cols):
        return None
    # solve on a non-singular square minor
    rows = []
    for r in range(M.dim):
        trial = rows + [r]
        if rank(base.extract(trial, list(range(len(cols))))) == len(trial):
            rows.append(r)
        if len(rows) == len(cols):
            break
    sub = base.extract(rows, list(range(len(cols))))
    rhs = sp.Matrix([target.components[r] for r in rows])
    sol = solve_linear(sub, rhs, what="system of the coefficients")
    out = [sp.S.Zero] * len(fields)
    for i, c in zip(cols, sol):
        out[i] = sp.factor(normalized(c))
    return tuple(out)
