"""The linear algebra of the natural polynomial-integral search (steps 3 and 4), on the
engine's exact matrices: the rows chosen at a parameter point are independent there and of
full rank; the graded basis spans the same space as the null space; cleared vectors stay in
the null space over Q[k]."""

from __future__ import annotations

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.core.algebra import domain_nullspace, rational_rank
from geomech.core.algebra.matrices import verified_subspace as _verified_span
from geomech.mechanics.analysis.field_integrals import graded_basis
from geomech.mechanics.analysis.field_integrals import (
    independent_rows_at as _independent_at,
)
from geomech.mechanics.analysis.field_integrals import (
    value_at as _value,
)

k = sp.Symbol("k")
R = sp.QQ[k]
K = R.get_field()
entries = st.builds(lambda a, b: R.from_sympy(a + b * k), st.integers(-2, 2), st.integers(-2, 2))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 4).flatmap(lambda n: st.lists(
    st.lists(entries, min_size=n, max_size=n), min_size=1, max_size=6)))
def test_rows_chosen_at_a_point_are_a_basis_there(rows):
    point = (sp.QQ(3, 7),)
    at = [[_value(x, R, point) for x in r] for r in rows]
    sel = _independent_at(rows, R, point)
    n = len(rows[0])
    assert len(sel) == rational_rank(at, n)
    assert rational_rank([at[i] for i in sel], n) == len(sel)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4).flatmap(lambda n: st.lists(
    st.lists(entries, min_size=n, max_size=n), min_size=1, max_size=3)))
def test_graded_basis_and_verified_span_keep_the_null_space(rows):
    n = len(rows[0])
    vecs = domain_nullspace(rows, n, R)
    if not vecs:
        return
    terms = [((j % 2,), 0) for j in range(n)]          # alternate degrees 0, 1
    graded = graded_basis(vecs, [sum(t[0]) for t in terms], K)
    assert len(graded) == len(vecs)
    both = [[K.to_sympy(x) for x in v] for v in vecs + graded]
    assert sp.Matrix(both).rank(simplify=True) == len(vecs)      # same span
    checked = _verified_span(rows, [[R.convert_from(x, R) for x in v] for v in
                                    _cleared_all(graded)], R)
    assert len(checked) == len(vecs)
    for v in checked:                                   # exactly in the null space over Q[k]
        assert all(sum((a * x for a, x in zip(r, v)), R.zero) == R.zero for r in rows)


def _cleared_all(vecs):
    from geomech.core.algebra import clear_denominators

    return [clear_denominators(v, R) for v in vecs]
