r"""Linear subspaces of a Lie algebra, as coordinate vectors over the constants.

A subspace :math:`V \subset \mathfrak g` is stored by the reduced row echelon basis of the
coordinate vectors spanning it (canonical: two spans are equal iff their bases are).
Coordinates are constants: rationals and parameters.  Membership :math:`v \in V` is the
solvability of :math:`\sum_i a_i b_i = v` (:func:`solve_in_span`, exact:
:func:`geomech.core.algebra.solve_over_functions`).  Zero decisions go through the zero
policy.

>>> import sympy as sp
>>> k = sp.Symbol("k")
>>> rref_basis([[1, k, 0], [2, 2*k, 0], [0, 0, 3]], 3)
((1, k, 0), (0, 0, 1))
>>> solve_in_span([[1, k, 0], [0, 0, 1]], [2, 2*k, 5]), solve_in_span([[1, k, 0]], [0, 1, 0])
((2, 5), None)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from geomech.core.algebra import function_rref, solve_over_functions
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

__all__ = ["Subspace", "normalized", "rref_basis", "solve_in_span"]


def normalized(e) -> sp.Expr:
    """An expression through the door, in the zero policy's normal form (numbers as they are).

    >>> x = sp.Symbol("x")
    >>> normalized(x*(x + 1) - x**2)
    x
    """
    e = as_expr(e)
    if e.is_Number:
        return e
    return default_policy().normalize(e)


def rref_basis(vectors: Sequence[Sequence], dim: int) -> tuple[tuple[sp.Expr, ...], ...]:
    """Reduced row echelon basis of the span of ``vectors`` (canonical, normalised).

    The reduced echelon form over the functions is :func:`geomech.core.algebra.function_rref`
    (pivots decided by the zero policy).

    >>> rref_basis([[2, 4], [1, 2]], 2)
    ((1, 2),)
    """
    pol = default_policy()
    rows = [list(v) for v in vectors if any(not pol.is_zero(x) for x in v)]
    if not rows:
        return ()
    red, pivots = function_rref(rows)
    return tuple(tuple(normalized(red[i, j]) for j in range(dim)) for i in range(len(pivots)))


def solve_in_span(basis: Sequence[Sequence], vec: Sequence) -> tuple | None:
    r"""Coefficients :math:`a` with :math:`v = \sum_i a_i b_i` for independent vectors
    :math:`b_i`, or ``None`` when ``vec`` is not in their span.

    >>> solve_in_span([[1, 1], [0, 1]], [2, 3])
    (2, 1)
    """
    if not basis:
        return () if all(default_policy().is_zero(x) for x in vec) else None
    A = sp.Matrix([list(b) for b in basis]).T
    sol, status = solve_over_functions(A, sp.Matrix([as_expr(x) for x in vec]), len(basis))
    if status != "ok":
        return None
    return tuple(normalized(x) for x in sol)


class Subspace:
    """A linear subspace of a Lie algebra, stored as a canonical (row echelon) basis.

    Attributes
    ----------
    algebra : LieAlgebra
    basis : tuple of tuples
        Coordinate vectors (in the algebra's basis) spanning the subspace.

    Examples
    --------
    >>> from geomech.lie.algebra import LieAlgebra
    >>> g = LieAlgebra.se(2)
    >>> d = g.derived_algebra(); d
    span(P1, P2)
    >>> d.is_ideal(), "J" in d
    (True, False)
    """

    __slots__ = ("algebra", "basis")

    def __init__(self, algebra: Any, vectors: Sequence[Sequence]):
        self.algebra = algebra
        self.basis = rref_basis(vectors, algebra.dim)

    @property
    def dim(self) -> int:
        """Dimension of the subspace."""
        return len(self.basis)

    def contains(self, vec) -> bool:
        """Whether the coordinate vector ``vec`` lies in the subspace."""
        return solve_in_span(self.basis, self.algebra._vector(vec)) is not None

    def __contains__(self, vec) -> bool:
        return self.contains(vec)

    def __le__(self, other: Subspace) -> bool:
        return all(other.contains(v) for v in self.basis)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Subspace) or other.algebra is not self.algebra:
            return NotImplemented
        return self.dim == other.dim and self <= other

    def __hash__(self) -> int:
        return hash((id(self.algebra), self.dim))

    def is_ideal(self) -> bool:
        """Whether ``[g, self] ⊂ self``."""
        g = self.algebra
        return all(self.contains(g.bracket(e, v)) for e in g.basis() for v in self.basis)

    def fields(self) -> list[VectorField]:
        """The realising vector fields of the basis (for an algebra built from fields)."""
        return [self.algebra.realize(v) for v in self.basis]

    def __repr__(self) -> str:
        if not self.basis:
            return "span()"
        return "span(" + ", ".join(self.algebra.format_vector(v) for v in self.basis) + ")"
