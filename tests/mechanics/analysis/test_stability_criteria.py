"""Routh-Hurwitz and the spectral conditions of reversible factors, checked against the roots
computed independently (numpy) on random exact polynomials."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.mechanics.analysis.stability_criteria import (
    even_factors,
    even_part_variable,
    expanded_reversible_conditions,
    factor_list,
    factored_positive_part,
    hurwitz_determinants,
    is_even_polynomial,
    lowest_terms,
    newton_sums,
    positive_part,
    reversible_conditions,
    routh_hurwitz_conditions,
    split_zero_roots,
)

lam, mu = sp.symbols("lambda mu")
coeff = st.integers(-6, 6)


def _roots(p, x):
    return np.roots([float(c) for c in sp.Poly(p, x).all_coeffs()])


@settings(max_examples=60, deadline=None)
@given(st.lists(coeff, min_size=2, max_size=6).filter(lambda a: a[0] != 0))
def test_routh_hurwitz_agrees_with_the_roots(a):
    p = sum(c * lam**(len(a) - 1 - i) for i, c in enumerate(a))
    conds = routh_hurwitz_conditions(p, lam)
    r = _roots(p, lam)
    if any(abs(x.real) < 1e-9 for x in r):          # a root on the axis: boundary
        assert any(c == 0 for c in conds) or not all(c > 0 for c in conds)
        return
    assert all(c > 0 for c in conds) == bool(np.all(r.real < 0))


@settings(max_examples=60, deadline=None)
@given(st.lists(coeff, min_size=2, max_size=5).filter(lambda a: a[0] != 0 and a[-1] != 0))
def test_reversible_conditions_mean_simple_negative_roots(a):
    q = sum(c * mu**(len(a) - 1 - i) for i, c in enumerate(a))
    conds = reversible_conditions(q, mu)
    r = _roots(q, mu)
    distinct = len(sp.Poly(q, mu).sqf_part().all_coeffs()) == len(a)
    simple_negative = distinct and bool(np.all(np.abs(r.imag) < 1e-9)) and \
        bool(np.all(r.real < 0))
    assert all(c > 0 for c in conds) == simple_negative
    # p(lambda) = q(lambda^2): then every root of p is simple and imaginary
    if simple_negative:
        rp = _roots(q.subs(mu, lam**2), lam)
        assert np.all(np.abs(rp.real) < 1e-6)


def test_hurwitz_determinants_of_the_cubic():
    a0, a1, a2, a3 = sp.symbols("a0:4")
    d = hurwitz_determinants([a0, a1, a2, a3])
    assert d[0] == a1 and sp.expand(d[1] - (a1 * a2 - a0 * a3)) == 0
    assert sp.expand(d[2] - a3 * d[1]) == 0


def test_newton_sums_are_power_sums():
    roots = [2, -1, 5]
    p = sp.expand(sp.Mul(*[(mu - r) for r in roots]))
    s = newton_sums(sp.Poly(p, mu).all_coeffs(), 6)
    assert s == [sum(r**k for r in roots) for k in range(6)]


def test_even_polynomials_and_zero_roots():
    k = sp.Symbol("k")
    p = lam**5 + k * lam**3 + 2 * lam
    assert split_zero_roots(p, lam) == (1, lam**4 + k * lam**2 + 2)
    assert is_even_polynomial(lam**4 + k * lam**2 + 2, lam)
    assert not is_even_polynomial(lam**2 + lam, lam)
    assert even_part_variable(lam**4 + k * lam**2 + 2, lam, mu) == mu**2 + k * mu + 2


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(-5, 5), st.integers(1, 3))
def test_positive_part_keeps_the_sign(m_, w_, g_):
    m, g = sp.symbols("m g", positive=True)
    w = sp.Symbol("w", real=True)
    e = -3 * m * (g - w**2) * (w - 1)**2
    pp = positive_part(e)
    vals = {m: m_, g: g_, w: w_}
    if w_ != 1:
        assert sp.sign(pp.subs(vals)) == sp.sign(e.subs(vals))
    assert even_factors(e) == [w - 1]


def test_conditions_of_the_damped_oscillator():
    c, k = sp.symbols("c k", real=True)
    assert routh_hurwitz_conditions(lam**2 + c * lam + k, lam) == [c, c * k]
    with pytest.raises(sp.PolynomialError):
        routh_hurwitz_conditions(sp.sin(lam), lam)


_fx, _fy = sp.symbols("x y", real=True)
_fm = sp.Symbol("m", positive=True)
_small = st.lists(st.integers(-3, 3), min_size=3, max_size=3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_small, st.integers(1, 3)), min_size=1, max_size=3),
       st.integers(-4, 4).filter(bool), st.booleans())
def test_factored_positive_part_is_the_factorisation_of_positive_part(parts, c, den):
    """The factors kept by positive_part, multiplied unexpanded, are exactly sympy's
    factorisation of the expanded positive part (unique factorisation over Q)."""
    fs = [(a * _fx**2 + b * _fx * _fy + d * _fy + _fm) ** k for (a, b, d), k in parts]
    e = c * _fm * sp.Mul(*fs)
    if den:
        e = e / (_fx**2 + _fy - 1)
    got = factored_positive_part(e)
    assert got == sp.factor(positive_part(e))
    assert sp.expand(got - positive_part(e)) == 0


def test_factored_positive_part_radicals_take_factor():
    """Factors in a radical multiply to a polynomial in the radicand: sympy's factor."""
    b = sp.Symbol("b", positive=True)
    e = (sp.sqrt(b) * _fx + 1) * (sp.sqrt(b) * _fx - 1) * _fy
    assert factored_positive_part(e) == sp.factor(positive_part(e))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_small, st.integers(1, 3)), min_size=1, max_size=3),
       st.integers(-4, 4), st.sampled_from([1, 2, _fy, _fx - 1]))
def test_lowest_terms_is_cancel(parts, c, d):
    """lowest_terms agrees with sympy's cancel: same numerator and denominator, so the
    same factorisation; on integer polynomials it is their expansion over 1."""
    fs = [(a * _fx**2 + b * _fx * _fy + e * _fy + 1) ** k for (a, b, e), k in parts]
    expr = c * sp.Mul(*fs) / d
    assert lowest_terms(expr) == sp.fraction(sp.cancel(sp.together(expr)))


_fz, _fw = sp.symbols("z w", real=True)
_monomial = st.sampled_from([1, _fx, _fx**2 * _fy, _fw**2 * _fx * _fz, _fm * _fz**3])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_small, st.integers(1, 3)), min_size=1, max_size=3),
       st.sampled_from([1, -1, 3, -6, sp.Rational(2, 3), sp.Rational(-5, 4)]), _monomial,
       st.booleans())
def test_factor_list_agrees_with_sympy(parts, c, mono, expand):
    """factor_list (flint's factorisation, sympy's grouping and order) returns exactly
    sympy's factor_list: coefficient, factors, multiplicities and their order, on expanded
    products with a content, a monomial and rational coefficients, and on unexpanded ones."""
    fs = [(a * _fx**2 + b * _fz * _fy + d * _fw + _fm) ** k for (a, b, d), k in parts]
    e = c * mono * sp.Mul(*fs)
    e = sp.expand(e) if expand else e
    assert factor_list(e) == sp.factor_list(e)
    coeff, facs = factor_list(e)
    assert sp.expand(coeff * sp.Mul(*[f**k for f, k in facs]) - e) == 0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.sampled_from([1, _fx, _fm, _fx * _fy, _fm**2])),
                min_size=2, max_size=8), st.integers(1, 3), st.booleans())
def test_reversible_conditions_in_the_ring_agree_with_expressions(terms, d, den):
    """The Hankel minors and coefficient products computed in the polynomial ring of the
    parameters equal the same formulas on sympy expressions (Berkowitz determinants of the
    scaled Newton sums, expanded), and the expanded conditions are their expansions."""
    from geomech.mechanics.analysis import stability_criteria as sc

    q = sum(a * t * mu**(k % (d + 1)) for k, (a, t) in enumerate(terms)) + mu**d
    q = q / (_fx**2 + 1) if den else q
    num = sp.numer(sp.together(q))
    c = sc._coefficients(num, mu)
    n = len(c) - 1
    S = sc._scaled_newton_sums(c, 2 * n - 1)
    dets = [sp.expand(sp.Matrix(k, k, lambda i, j: S[i + j]).det(method="berkowitz"))
            for k in range(2, n + 1)]
    expected = dets + [sp.expand(ci * c[0]) for ci in c[1:]]
    assert expanded_reversible_conditions(q, mu) == expected
    assert reversible_conditions(q, mu) == [sp.factor_terms(e) for e in expected]


_la, _lb = sp.symbols("a b", real=True)
_lfactor = st.tuples(st.integers(0, 2), st.lists(st.sampled_from([0, 1, -2, 3, _la, _fm, _la * _lb,
                                                                 -_fm**2]),
                                               min_size=3, max_size=3))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_lfactor, st.integers(1, 2)), min_size=1, max_size=3),
       st.sampled_from([1, _fm, -2 * _la**2, sp.Rational(3, 2)]),
       st.sampled_from([1, _la + 1, _fm * (_lb**2 + 1)]))
def test_lambda_factors_agree_with_sympy(parts, content, den):
    """The factors in lambda of a characteristic polynomial with rational-function
    coefficients (flint's factorisation, sympy's order) are sympy's factor_list(p, lambda)
    factors containing lambda, with multiplicity, in order."""
    from geomech.mechanics.analysis.stability import _factors

    fs = [(sum(c * lam**i for i, c in enumerate(cs[:d + 1])) + lam**(d + 1)) ** k
          for (d, cs), k in parts]
    p = sp.expand(content * sp.Mul(*fs))
    p = sp.collect(sp.expand(p / den), lam)
    expected = [f for f, k in sp.factor_list(sp.together(p), lam)[1] if f.has(lam)
                for _ in range(k)]
    assert _factors(p) == (expected or [p])
