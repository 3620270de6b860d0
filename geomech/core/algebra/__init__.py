r"""The one exact engine: rings, normal forms and exact linear algebra.

* :mod:`~geomech.core.algebra.rings` -- polynomial rings and fraction fields for given
  generators (:func:`polynomial_ring`, :func:`fraction_field`), the ring of a set of
  expressions modulo :math:`\sin^2+\cos^2=1` and :math:`(\sqrt b)^2=b`
  (:class:`RationalAlgebra`);
* :mod:`~geomech.core.algebra.calculus` -- derivatives in that ring, with square roots as
  generators (:class:`RingCalculus`, ``RadicalCalculus``, ``FactoredCalculus``);
* :mod:`~geomech.core.algebra.free_calculus` -- Lie brackets of rational fields with every
  atom a free generator (the generic route's normal forms without its ``cancel``);
* :mod:`~geomech.core.algebra.reduction` -- the normal form modulo the relations
  :math:`\sin^2+\cos^2=1` and :math:`r^2=b`
  (:class:`~geomech.core.algebra.reduction.RelationReducer`);
* :mod:`~geomech.core.algebra.fraction_forms` -- cancellation by known factors and display
  forms of ring fractions;
* :mod:`~geomech.core.algebra.normal_form` -- trigonometric, polynomial and rational normal
  forms (:func:`trig_reduce`, :func:`compact`) and the ring zero certificate
  (:func:`ring_zero_test`, the first exact stage of :mod:`geomech.core.zero`);
* :mod:`~geomech.core.algebra.presentation` -- the presentation form of an expression
  collected in given variables (:func:`~geomech.core.algebra.presentation.tidy`: the
  Lagrangians and constraints of the catalogue, the right-hand sides of equations of motion);
* :mod:`~geomech.core.algebra.linear` -- rank, null space and constant solutions over
  :math:`\mathbb Q(\text{parameters})` and over functions;
* :mod:`~geomech.core.algebra.linear_forms` -- expressions linear in unknowns written as one
  ring numerator per unknown over a shared denominator;
* :mod:`~geomech.core.algebra.matrices` -- the one implementation of dense exact matrix
  operations over :math:`\mathbb Q` and :math:`\mathbb Q(\text{parameters})` (rank, reduced
  echelon form, independent rows, null space, solve);
* :mod:`~geomech.core.algebra.solve` -- exact solves: square systems in the ring, and
  :math:`AX=b` over the field of functions.

The sparse differential ring of brackets lives in :mod:`geomech.core.algebra.differential_ring` and
the packed-monomial kernel in :mod:`geomech.core.kernel`.  Zero decisions are made only by the
zero policy (:mod:`geomech.core.zero`).

>>> import sympy as sp
>>> from geomech.core.algebra import compact, rank
>>> s, k = sp.symbols("s k")
>>> compact(k*sp.sin(s)**2 + k*sp.cos(s)**2), rank([[1, sp.sin(s)], [sp.sin(s), 1]])
(k, 2)
"""

from geomech.core.algebra.fraction_forms import content_expr, factor_expr
from geomech.core.algebra.matrices import fraction_free

from .calculus import RingCalculus
from .linear import (
    CoefficientRows,
    nullspace,
    primitive_vector,
    rank,
    ring_linear_rows,
    solve_constant_linear,
    solve_homogeneous,
)
from .matrices import (
    annihilates,
    clear_denominators,
    domain_nullspace,
    domain_rref,
    first_independent_rows,
    independent_rows,
    matrix_nullspace,
    polynomial_domain_matrix,
    polynomial_rank,
    rational_rank,
    rational_rref,
    rational_rref_pivots,
    rational_solve,
    verified_subspace,
)
from .normal_form import compact, has_denominator, ring_zero_test, trig_reduce
from .rings import (
    RationalAlgebra,
    UnsupportedExpression,
    fraction_field,
    polynomial_ring,
)
from .solve import (
    function_rref,
    policy_algebra,
    solve_linear,
    solve_over_functions,
)

__all__ = [
    "polynomial_ring", "fraction_field", "RationalAlgebra", "RingCalculus",
    "UnsupportedExpression", "content_expr", "factor_expr",
    "trig_reduce", "compact", "ring_zero_test", "has_denominator",
    "rank", "nullspace", "solve_linear", "ring_linear_rows", "solve_constant_linear",
    "solve_homogeneous", "CoefficientRows", "solve_over_functions",
    "primitive_vector", "fraction_free", "policy_algebra",
    "rational_rank", "rational_rref", "rational_rref_pivots", "independent_rows",
    "first_independent_rows", "rational_solve", "domain_rref", "domain_nullspace",
    "clear_denominators", "polynomial_rank", "polynomial_domain_matrix", "function_rref",
    "matrix_nullspace", "annihilates", "verified_subspace",
]
