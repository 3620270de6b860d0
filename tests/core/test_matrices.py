"""Exact matrices (geomech.core.algebra.matrices) against sympy's Matrix on random rational
and parametric matrices: rank, reduced echelon form, independent rows, null space, solve."""

from __future__ import annotations

import math

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.core.algebra import matrices as mx
from geomech.core.algebra.matrices import (
    clear_denominators,
    domain_nullspace,
    domain_rref,
    first_independent_rows,
    independent_rows,
    polynomial_rank,
    rational_rank,
    rational_rref,
    rational_solve,
)

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
k, a = sp.symbols("k a")
QQka = sp.QQ.frac_field(k, a)

rationals = st.builds(sp.Rational, st.integers(-6, 6), st.integers(1, 4))


@st.composite
def low_rank(draw, entries=rationals, max_dim: int = 5):
    """``A B`` with ``A`` m x r and ``B`` r x n: rank at most r (often deficient)."""
    m, n = draw(st.integers(1, max_dim)), draw(st.integers(1, max_dim))
    r = draw(st.integers(0, min(m, n)))
    A = sp.Matrix(m, r, lambda i, j: draw(entries))
    B = sp.Matrix(r, n, lambda i, j: draw(entries))
    M = (A * B).applyfunc(sp.expand) if r else sp.zeros(m, n)
    return M


polys = st.builds(lambda c, i, j: c * k**i * a**j, st.integers(-3, 3), st.integers(0, 2),
                  st.integers(0, 1))
parametric = st.builds(lambda *t: sp.Add(*t), polys, polys)


def rows_of(M: sp.Matrix) -> list[list]:
    return [list(M.row(i)) for i in range(M.rows)]


@FAST
@given(low_rank())
def test_rational_rank_and_rref_agree_with_sympy(M):
    R, piv = M.rref()
    red, mine = rational_rref(rows_of(M), M.cols)
    assert rational_rank(rows_of(M), M.cols) == M.rank() == len(mine)
    assert tuple(mine) == piv
    assert sp.Matrix(red) == R[: len(piv), :] if piv else red == []


@FAST
@given(low_rank(), st.integers(1, 4))
def test_independent_rows_are_the_first_maximal_independent_set(M, chunk):
    rows = rows_of(M)
    sel = independent_rows(rows)
    assert len(sel) == M.rank()
    assert sp.Matrix([rows[i] for i in sel]).rank() == len(sel) if sel else True
    for i in range(len(rows)):        # greedy: row i is chosen iff it is new w.r.t. 0..i-1
        before = sp.Matrix(rows[: i + 1]).rank() > (sp.Matrix(rows[:i]).rank() if i else 0)
        assert (i in sel) == before
    assert first_independent_rows(iter(rows), M.cols, chunk=chunk) == sel


@FAST
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(st.lists(rationals, min_size=n, max_size=n), min_size=n, max_size=n),
    st.lists(rationals, min_size=n, max_size=n))))
def test_rational_solve_agrees_with_LUsolve(Ab):
    A, b = Ab
    M = sp.Matrix(A)
    if M.det() == 0:
        with pytest.raises(ValueError, match="singular"):
            rational_solve(A, b)
        return
    x = rational_solve(A, b)
    assert sp.Matrix(x) == M.LUsolve(sp.Matrix(b))
    assert M * sp.Matrix(x) == sp.Matrix(b)


@FAST
@given(low_rank(entries=parametric, max_dim=4))
def test_parametric_null_space_annihilates_and_has_the_right_dimension(M):
    rows = [[QQka.from_sympy(e) for e in r] for r in rows_of(M)]
    vecs = domain_nullspace(rows, M.cols, QQka)
    assert len(vecs) == M.cols - M.rank(iszerofunc=lambda e: sp.expand(e) == 0)
    for v in vecs:                    # exact annihilation in Q(k, a)
        assert all(sum((x * y for x, y in zip(r, v)), QQka.zero) == QQka.zero for r in rows)
    red, piv = domain_rref(rows, M.cols, QQka)
    for f, v in zip([j for j in range(M.cols) if j not in piv], vecs):   # reduced basis
        assert v[f] == QQka.one and all(v[g] == QQka.zero for g in range(M.cols)
                                        if g != f and g not in piv)
    assert polynomial_rank(M) == len(piv)


SMALL = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SMALL
@given(low_rank(entries=parametric, max_dim=3))
def test_parametric_null_space_spans_sympys(M):
    """sympy's null space (slow on parametric matrices: ~1 s each) lies in the span of ours
    and has the same dimension."""
    ours = [sp.Matrix([QQka.to_sympy(x) for x in v])
            for v in domain_nullspace([[QQka.from_sympy(e) for e in r] for r in rows_of(M)],
                                      M.cols, QQka)]
    theirs = M.nullspace(iszerofunc=lambda e: sp.cancel(e) == 0, simplify=sp.cancel)
    assert len(ours) == len(theirs)
    if ours:
        both = sp.Matrix.hstack(*ours, *theirs).applyfunc(sp.cancel)
        assert polynomial_rank(both) == len(ours)


@SMALL
@given(low_rank(entries=parametric, max_dim=3))
def test_parametric_rref_agrees_with_sympy(M):
    red, piv = domain_rref([[QQka.from_sympy(e) for e in r] for r in rows_of(M)], M.cols,
                           QQka)
    R, spiv = M.rref(iszerofunc=lambda e: sp.cancel(e) == 0, simplify=sp.cancel)
    assert tuple(piv) == spiv
    for i, r in enumerate(red):
        assert all(sp.cancel(QQka.to_sympy(x) - R[i, j]) == 0 for j, x in enumerate(r))


@FAST
@given(st.lists(st.tuples(polys, st.integers(1, 3)), min_size=1, max_size=4))
def test_cleared_vectors_are_primitive_and_proportional(pairs):
    dom = sp.QQ[k, a]
    K = dom.get_field()
    vec = [K.from_sympy(p / (d * (k + 1))) for p, d in pairs]
    out = clear_denominators(vec, dom)
    nz = [i for i, x in enumerate(vec) if x]
    for i in nz:                      # proportional: out_i / vec_i is the same for all i
        assert K.convert_from(out[i], dom) * vec[nz[0]] == K.convert_from(out[nz[0]], dom) * vec[i]
    g = dom.zero
    for x in out:
        g = dom.gcd(g, x)
    assert not nz or dom.is_one(g) or dom.is_one(-g)
    q = clear_denominators([sp.QQ.from_sympy(p.subs({k: 2, a: 3}) / d) for p, d in pairs],
                           sp.QQ)
    assert all(x.denominator == 1 for x in q)
    assert math.gcd(*[int(x.numerator) for x in q]) in (0, 1)


def test_polynomial_rank_leaves_other_entries_to_the_policy():
    assert polynomial_rank(sp.Matrix([[sp.sin(k), 1]])) is None
    assert polynomial_rank(sp.Matrix([[sp.sqrt(k), 1]])) is None
    assert polynomial_rank(sp.zeros(0, 3)) == 0
    assert polynomial_rank(sp.Matrix([[1 / k, 1], [1, k]])) == 1     # det = 0 in Q(k)


def test_the_fallback_without_flint_agrees(monkeypatch):
    rows = [[1, 2, 3], [2, 4, 6], [sp.Rational(1, 2), 0, 1]]
    with_flint = (rational_rref(rows), rational_rank(rows), rational_solve(
        [[2, 1], [1, 3]], [3, 5]))
    monkeypatch.setattr(mx, "flint", None)
    assert (rational_rref(rows), rational_rank(rows),
            rational_solve([[2, 1], [1, 3]], [3, 5])) == with_flint
    with pytest.raises(ValueError, match="singular"):
        rational_solve([[1, 2], [2, 4]], [1, 1])


def test_non_rational_entries_are_refused():
    with pytest.raises(TypeError):
        rational_rank([[sp.sqrt(2), 1]])


def test_function_rref_over_trigonometric_entries():
    """The reduced form over the functions: pivot columns are the identity, the rank is the
    policy's, and every row of the matrix is a combination of the reduced rows."""
    from geomech.core.algebra import function_rref
    from geomech.core.zero import default_policy

    s = sp.Symbol("s")
    M = sp.Matrix([[sp.sin(s), sp.cos(s), 1], [sp.sin(s)**2, sp.sin(s)*sp.cos(s), sp.sin(s)],
                   [0, 1, sp.cos(s)]])
    R, piv = function_rref(M)
    pol = default_policy()
    assert len(piv) == pol.rank(M) == 2
    assert R[: len(piv), piv] == sp.eye(len(piv))
    for i in range(M.rows):        # row i of M = sum_k M[i, piv_k] R[k]
        comb = sum((M[i, p] * R.row(k) for k, p in enumerate(piv)), sp.zeros(1, M.cols))
        assert all(pol.is_zero(x) for x in comb - M.row(i))


def test_jet_replacement_undoes_to_the_expression():
    from geomech.core.zero import jet_replacement

    x = sp.Symbol("x")
    f = sp.Function("f")
    e, rep = jet_replacement(f(x).diff(x) * f(x) + x)
    assert not e.has(f) and set(rep) == {f(x), f(x).diff(x)}
    assert sp.expand(e.xreplace({v: k for k, v in rep.items()}) - (f(x).diff(x) * f(x) + x)) == 0
