"""Values modulo the prime 2^61 - 1: rational reconstruction and linear algebra against the
exact rational results (small entries: a non-zero minor is below the prime, so the answers
must agree exactly)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.algebra.matrices import independent_rows, rational_solve
from geomech.core.algebra.modular import (
    PRIME,
    independent_rows_mod,
    rational_reconstruction,
    solve_mod,
    to_mod,
)

small = st.integers(-50, 50)


@settings(max_examples=200, deadline=None)
@given(st.integers(-10**8, 10**8), st.integers(1, 10**8))
def test_reconstruction_recovers_small_rationals(p, q):
    x = Fraction(p, q)
    assert rational_reconstruction(to_mod(x)) == x
    assert to_mod(x) * q % PRIME == p % PRIME


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4).flatmap(lambda r: st.tuples(
    st.lists(st.lists(small, min_size=4, max_size=4), min_size=r, max_size=r),
    st.lists(st.lists(small, min_size=r, max_size=r), min_size=3, max_size=3))))
def test_independent_rows_agree_with_the_rationals(data):
    """Rows that include combinations of others: the same rows are chosen."""
    base, combos = data
    rows = base + [[sum(c * b[j] for c, b in zip(co, base)) for j in range(4)]
                   for co in combos]
    assert independent_rows_mod(rows, 4) == independent_rows(rows, 4)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4).flatmap(lambda n: st.tuples(
    st.lists(st.lists(small, min_size=n, max_size=n), min_size=n, max_size=n),
    st.lists(small, min_size=n, max_size=n))))
def test_solve_mod_is_the_reduced_rational_solution(data):
    A, b = data
    if len(independent_rows(A, len(A))) < len(A):
        assert solve_mod(A, b) is None
        return
    exact = rational_solve(A, b)
    assert solve_mod(A, b) == [to_mod(Fraction(int(x.p), int(x.q))) for x in exact]


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4).flatmap(lambda r: st.tuples(
    st.lists(st.lists(small, min_size=5, max_size=5), min_size=r, max_size=r),
    st.lists(st.lists(small, min_size=r, max_size=r), min_size=2, max_size=2))))
def test_null_support_agrees_with_the_rational_null_space(data):
    """Small entries: the nullity and the support modulo the prime are the rational ones."""
    import sympy as sp

    from geomech.core.algebra.modular import null_support_mod

    base, combos = data
    rows = base + [[sum(c * b[j] for c, b in zip(co, base)) for j in range(5)]
                   for co in combos]
    null = sp.Matrix(rows).nullspace()
    support = sorted({j for v in null for j in range(5) if v[j] != 0})
    assert null_support_mod(rows, 5) == (len(null), support)
