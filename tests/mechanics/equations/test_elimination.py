"""The structure-keeping solves of the equations of motion (``equations/elimination.py``):
each against an independent route (sympy's own solve and evaluation), and the certificates
never claiming a wrong "non-zero" / "full rank"."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.kernel import polynomial_coefficients
from geomech.core.zero.evaluation import interval_value
from geomech.core.zero.values import (
    certainly_full_rank,
    certainly_nonzero,
    exact_values,
)
from geomech.mechanics.equations.elimination import (
    adjugate_solve,
    eliminate,
    expansion_bound,
    triangular_order,
)

x, y, z, t = sp.symbols("x y z t", real=True)
ATOMS = [x, y, z, sp.sin(t), sp.cos(t), sp.cos(x - t), 2, -3, sp.Rational(1, 2)]


@st.composite
def entries(draw) -> sp.Expr:
    """A small expression in symbols and sines/cosines (also of differences)."""
    terms = draw(st.lists(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=3),
                          min_size=1, max_size=3))
    return sp.Add(*[sp.Mul(*f) for f in terms])


@st.composite
def triangular(draw, k: int) -> sp.Matrix:
    """A k x k matrix, lower triangular up to a permutation of rows and columns, with
    non-zero constant pivots."""
    A = sp.zeros(k, k)
    for i in range(k):
        A[i, i] = draw(st.sampled_from([1, 2, -3, sp.Rational(5, 2)]))
        for j in range(i):
            if draw(st.booleans()):
                A[i, j] = draw(entries())
    rows = draw(st.permutations(list(range(k))))
    cols = draw(st.permutations(list(range(k))))
    return A.extract(rows, cols)


@given(triangular(4), st.lists(entries(), min_size=4, max_size=4))
@settings(max_examples=25, deadline=None)
def test_forward_substitution_solves_the_system(A, b):
    assert triangular_order(A) is not None
    X = eliminate(A, sp.Matrix(b))
    residual = A * X - sp.Matrix(b)
    assert all(sp.simplify(sp.expand_trig(r)) == 0 for r in residual)   # sympy as oracle


def test_non_triangular_minor_takes_the_exact_solve():
    A = sp.Matrix([[sp.cos(t), sp.sin(t)], [-sp.sin(t), sp.cos(t)]])
    assert triangular_order(A) is None
    X = eliminate(A, sp.Matrix([x, y]))
    assert all(sp.simplify(e) == 0 for e in A * X - sp.Matrix([x, y]))


@given(st.lists(entries(), min_size=9, max_size=9), st.lists(entries(), min_size=3,
                                                             max_size=3))
@settings(max_examples=20, deadline=None)
def test_adjugate_solve_is_cramers_rule(m, b):
    M = sp.Matrix(3, 3, m) + 5 * sp.eye(3)     # generically non-singular
    pt = {x: sp.Rational(2, 3), y: sp.Rational(-5, 7), z: sp.Rational(3, 2),
          t: sp.Rational(1, 5)}
    try:
        sol = adjugate_solve(M, b)
    except ValueError:                          # singular: then det M vanishes identically
        assert sp.expand(sp.expand_trig(M.det())) == 0
        return
    Mn, bn = M.xreplace(pt).evalf(40), sp.Matrix(b).xreplace(pt).evalf(40)
    ref = Mn.LUsolve(bn)
    assert all(abs(sp.N(s.xreplace(pt), 40) - r) < 1e-25 * (1 + abs(r))
               for s, r in zip(sol, ref))


def test_adjugate_solve_names_a_singular_matrix():
    with pytest.raises(ValueError, match="mass matrix is singular"):
        adjugate_solve(sp.Matrix([[sp.sin(t)**2, 1], [1 - sp.cos(t)**2, 1]]), [x, y],
                       what="mass matrix")


@given(entries(), st.integers(1, 30), st.integers(1, 30))
@settings(max_examples=40, deadline=None)
def test_exact_value_is_the_value(e, a, b):
    tv = sp.Rational(a, b)
    c, s = (1 - tv**2) / (1 + tv**2), 2 * tv / (1 + tv**2)
    pt = {x: sp.Rational(a, 7), y: sp.Rational(b, 3), z: sp.Rational(a + b, 5)}
    angles = {t: (c, s), x: ((1 - pt[x]**2) / (1 + pt[x]**2), 2 * pt[x] / (1 + pt[x]**2))}
    v = exact_values([e], pt, angles)
    v = None if v is None else v[0]
    exact = {**pt, t: 2 * sp.atan(tv)}
    exact[x] = pt[x]
    # sin/cos of x are the ones of 2*atan(x): evaluate through that substitution
    ref = e.subs({sp.sin(x): angles[x][1], sp.cos(x): angles[x][0],
                  sp.cos(x - t): angles[x][0] * c + angles[x][1] * s}).xreplace(exact)
    assert v == sp.nsimplify(sp.N(ref, 60), rational=True) or abs(sp.N(ref - v, 50)) < 1e-40


@given(entries(), st.integers(1, 30))
@settings(max_examples=40, deadline=None)
def test_interval_encloses_the_value(e, a):
    pt = {x: sp.Rational(a, 7), y: sp.Rational(3, a), z: sp.Rational(a, 11),
          t: sp.Rational(2, a)}
    import mpmath

    box = interval_value(e + sp.sqrt(x + 1), pt)
    v = sp.N((e + sp.sqrt(x + 1)).xreplace(pt), 60)
    with mpmath.workdps(60):
        assert mpmath.mpf(str(v)) in box


def test_certificates_never_claim_a_zero_non_zero():
    zero = sp.sin(t)**2 + sp.cos(t)**2 - 1 + sp.cos(x - t) - sp.cos(x)*sp.cos(t) \
        - sp.sin(x)*sp.sin(t)
    assert not certainly_nonzero(zero)
    assert certainly_nonzero(zero + sp.sqrt(x**2 + 1) - 1 + x**2)
    assert not certainly_full_rank(sp.Matrix([[1, sp.cos(x - t)],
                                              [sp.cos(x)*sp.cos(t) + sp.sin(x)*sp.sin(t),
                                               sp.cos(x - t)**2]]))


@given(entries(), entries(), entries())
@settings(max_examples=30, deadline=None)
def test_expansion_bound_bounds_the_expansion(a, b, c):
    e = a * (b + c) ** 2 / (a + c) + b / c
    n, d = sp.fraction(sp.together(e))
    terms = len(sp.Add.make_args(sp.expand(n))) + len(sp.Add.make_args(sp.expand(d))) - 1
    assert expansion_bound(e) >= terms


@given(entries(), entries(), entries())
@settings(max_examples=30, deadline=None)
def test_polynomial_coefficients_reassemble_the_polynomial(a, b, c):
    u, v = sp.symbols("u v")
    f = a * (u + b * v) ** 2 / 2 + c * u - a * b
    coeffs = polynomial_coefficients(f, (u, v), 2)
    back = sp.Add(*[co * u**m[0] * v**m[1] for m, co in coeffs.items()])
    assert sp.expand(back - f) == 0
    assert polynomial_coefficients(f * u, (u, v), 2) is None
