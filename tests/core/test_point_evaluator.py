"""The exact point evaluator (``PointEvaluator``) in each of its arithmetics: over Q its
values and first derivatives are those of the expression substituted and cancelled and of
sympy's derivative (issue 22); in a polynomial ring over Q or Q(sqrt c) its values are the
substituted expressions with the generators free; over Q(sqrt d) the pair ``(a, b)`` is the
number ``a + b sqrt(d)``, checked against sympy, and identities give zero pairs."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.algebra import polynomial_ring
from geomech.core.zero import rational_rewrite
from geomech.core.zero.values import (
    NeedsRoot,
    OutsideRing,
    PointEvaluator,
    QuadraticArithmetic,
    RingArithmetic,
    exact_values,
    finite_samples,
    quadratic_points,
)

x, y, t = sp.symbols("x y t")
a = sp.Symbol("a", positive=True)

EXPRS = [
    x**2 * y / (1 + x) - 3 * y**-2,
    (x - y)**3 / (a + x**2 * y) + (1 + y / (x + a))**-2,
    rational_rewrite(sp.sin(t) * x / (2 + sp.cos(t)) + sp.cos(2 * t) / (a + sp.sin(t)**2)),
    rational_rewrite(((x * sp.cos(t) + y * sp.sin(t)) / sp.cos(t))**2 - a * sp.tan(t) / x),
    x * sp.sqrt((x**2 + y**2 + a)**2) - (((x - 2 * y) * (1 + x**2))**2)**sp.Rational(-3, 2)
    * (1 + x**2)**3 * y,
]

rationals = st.fractions(min_value=-20, max_value=20, max_denominator=30)


def _rational(v) -> sp.Rational:
    return sp.Rational(v.numerator, v.denominator)


@settings(max_examples=40, deadline=None)
@given(st.lists(rationals, min_size=4, max_size=4), st.sampled_from(range(len(EXPRS))))
def test_value_and_jet_are_sympys(vals, k):
    """Over Q: the value is the cancelled substitution, the jet sympy's derivative (square
    roots of squares included: their derivative by the dual-number rule)."""
    e = EXPRS[k]
    syms = sorted(e.free_symbols, key=sp.default_sort_key)
    pt = {s: _rational(v) + (1 if s.is_positive else 0) for s, v in zip(syms, vals)}
    pt = {s: abs(v) if s.is_positive else v for s, v in pt.items()}
    direct = sp.cancel(e.xreplace(pt))
    ev = PointEvaluator(pt)
    if direct.has(sp.zoo, sp.nan):
        with pytest.raises(ZeroDivisionError):
            ev.sympy_value(e)
        return
    try:
        got = ev.sympy_value(e)
    except ZeroDivisionError:          # a vanishing sub-denominator of a finite value
        return
    assert got == direct
    for s in syms:
        try:
            jet = ev.sympy_jet(e, s)
        except ZeroDivisionError:      # sqrt(u) with u = 0: no derivative
            continue
        assert jet == (direct, sp.cancel(sp.diff(e, s).xreplace(pt)))


def test_poles_and_other_atoms():
    ev = PointEvaluator({x: 0, y: sp.Rational(1, 2)})
    with pytest.raises(ZeroDivisionError):
        ev.value(y / x)
    with pytest.raises(NeedsRoot):
        ev.value(sp.sqrt(y))             # irrational: not in Q
    assert ev.sympy_value(sp.sqrt(y + sp.Rational(1, 16))) == sp.Rational(3, 4)
    with pytest.raises(OutsideRing):
        ev.value(x + a)                  # a has no value
    with pytest.raises(OutsideRing):
        ev.value(sp.exp(x))
    assert exact_values([y / x], {x: 0}) is None
    # x/x**2 is 1/x: no value at 0 either way; (x**2 - x)/x is x - 1, finite after cancelling
    assert exact_values([(x**2 - x) / x], {x: 0}) is None


def test_finite_samples_values_are_the_cancelled_values():
    exprs = EXPRS[2:4]
    syms = sorted(set().union(*(e.free_symbols for e in exprs)), key=sp.default_sort_key)
    for pt, vals in finite_samples(exprs, syms, 4, 16, seed=11):
        assert vals == [sp.cancel(e.xreplace(pt)) for e in exprs]


def test_a_sine_of_the_jet_symbol_is_refused_not_differentiated_as_a_constant():
    """d sin(t)/dt is cos(t), not 0: the dual-number jet refuses a sine of its own symbol
    (the caller then differentiates symbolically) and keeps sines of other angles."""
    s = sp.Symbol("s")
    half = (sp.Rational(3, 5), sp.Rational(4, 5))
    ev = PointEvaluator({t: sp.Rational(1, 2)}, {t: half, s: half})
    with pytest.raises(OutsideRing):
        ev.jet(t * sp.sin(t), t)
    assert ev.sympy_jet(t * sp.sin(s), t) == (sp.Rational(2, 5), sp.Rational(4, 5))


# -- a polynomial ring over Q or a number field: the generators stay free ------------------
@settings(max_examples=30, deadline=None)
@given(st.integers(-5, 5), st.integers(1, 7), st.integers(1, 9), st.integers(1, 9))
def test_ring_values_agree_with_substitution(c, n, p, q):
    """One evaluation pass in Q[w] equals substitution and expansion."""
    s, w = sp.symbols("s w")
    R = polynomial_ring([w])
    u = sp.Rational(p, q)
    sn, cs = 2 * u / (1 + u**2), (1 - u**2) / (1 + u**2)
    e = (c * w**2 * sp.cos(2 * s) + w * sp.sin(s)**n) / (1 + x**2) + sp.cos(s - 3 * s)
    got = PointEvaluator({x: sp.Rational(1, 3)}, {s: (cs, sn)}, RingArithmetic(R)).value(e)
    want = sp.expand(sp.expand_trig(e).subs({sp.sin(s): sn, sp.cos(s): cs,
                                              x: sp.Rational(1, 3)}))
    assert sp.expand(got.as_expr() - want) == 0


def test_ring_values_adjoin_square_roots():
    """Square roots of constants: in Q[w] they raise NeedsRoot with the radicand; over
    Q(sqrt 3)[w] the value equals the substituted expression, and its rational coordinates
    are those of the value in the basis 1, sqrt 3."""
    s, w = sp.symbols("s w")
    e = w * sp.sqrt(x) + 1 / sp.sqrt(4 * x) + sp.cos(s)
    ang = {s: (sp.Rational(3, 5), sp.Rational(4, 5))}
    with pytest.raises(NeedsRoot) as exc:
        PointEvaluator({x: 3}, ang, RingArithmetic(polynomial_ring([w]))).value(e)
    assert exc.value.radicand == 3
    K = sp.QQ.algebraic_field(sp.sqrt(3))
    F = RingArithmetic(polynomial_ring([w], K))
    got = PointEvaluator({x: 3}, ang, F).value(e)
    want = e.subs({x: 3, sp.cos(s): sp.Rational(3, 5)})
    assert sp.expand(F.to_sympy(got) - want) == 0
    gen = K.to_sympy(K.from_sympy(sp.sqrt(3)))
    back = sum(c * (gen if i == 0 else 1) * w**m[0] for (i, m), c in F.coordinates(got))
    assert sp.expand(back - want) == 0


# -- Q(sqrt d)[eta]: pairs (a, b) -------------------------------------------------------------
xr, yr, s = sp.symbols("x y s", real=True)
RAD = 2 + sp.cos(s)**2 + xr**2                   # a radicand, positive everywhere
QEXPRS = [
    xr / sp.sqrt(RAD) + yr * sp.sin(s),
    (xr + sp.sqrt(RAD))**3 / (1 + yr**2),
    1 / (1 + sp.sqrt(RAD)),
    sp.sqrt(4 * RAD)**3 * sp.cos(2 * s) - xr * RAD**sp.Rational(-3, 2),
]


def _number(ev, pair) -> sp.Expr:
    d = ev.field.d
    a, b = ev.field.to_sympy(pair)
    return a + b * sp.sqrt(sp.Rational(d.numerator, d.denominator)) if d else a


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(range(len(QEXPRS))), st.integers(0, 10**6))
def test_quadratic_value_and_jet_are_the_numbers(k, seed):
    """At random exact points the pair is sympy's number, and the jet along x is the value
    of sympy's derivative (both exact in Q(sqrt d))."""
    e = QEXPRS[k]
    (pt, ang), = quadratic_points([xr, yr], [s], 1, seed=seed)
    c, si = ang[s]
    at = {xr: pt[xr], yr: pt[yr], sp.sin(s): si, sp.cos(s): c}
    ev = PointEvaluator(pt, ang, QuadraticArithmetic())
    v, dv = ev.jet(e, xr)
    assert sp.simplify(_number(ev, v) - sp.expand_trig(e).xreplace(at)) == 0
    de = sp.expand_trig(sp.diff(e, xr)).xreplace(at)
    assert sp.simplify(_number(ev, dv) - de) == 0


@settings(max_examples=25, deadline=None)
@given(st.lists(rationals, min_size=4, max_size=4), st.integers(2, 50))
def test_quadratic_arithmetic_is_the_field(vals, d):
    """Random elements p = a + b sqrt d, q of Q(sqrt d): sums, products, inverses and
    integer powers are those of the numbers."""
    assume_d = sp.sqrt(d)
    if assume_d.is_Rational:
        return
    F = QuadraticArithmetic()
    r = F.root(F.const(d), assume_d)
    a, b, c, e = (_rational(v) for v in vals)
    p = F.add(F.const(a), F.mul(F.const(b), r))
    q = F.add(F.const(c), F.mul(F.const(e), r))
    num = {id(p): a + b * assume_d, id(q): c + e * assume_d}
    ev = PointEvaluator({}, {}, F)

    def val(z):
        return _number(ev, z)

    assert sp.expand(val(F.mul(p, q)) - num[id(p)] * num[id(q)]) == 0
    assert sp.expand(val(F.add(p, F.neg(q))) - num[id(p)] + num[id(q)]) == 0
    assert sp.expand(val(F.power(q, 3)) - num[id(q)]**3) == 0
    if a or b:
        assert sp.simplify(val(F.inverse(p)) - 1 / num[id(p)]) == 0


def test_quadratic_identities_vanish_and_generators_stay_free():
    w = sp.Symbol("w")
    ident = sp.sqrt(RAD)**2 - RAD + (sp.sin(s)**2 + sp.cos(s)**2 - 1) * w / sp.sqrt(RAD)
    (pt, ang), = quadratic_points([xr], [s], 1, seed=2)
    ev = PointEvaluator(pt, ang, QuadraticArithmetic([w]))
    assert ev.sympy_value(ident) == (0, 0)
    a_, b_ = ev.sympy_value(w * sp.sqrt(RAD))
    assert a_ == 0 and b_.has(w)


def test_quadratic_second_root_and_bad_atoms_are_refused():
    (pt, ang), = quadratic_points([xr, yr], [s], 1, seed=3)
    ev = PointEvaluator(pt, ang, QuadraticArithmetic())
    ev.value(sp.sqrt(RAD))
    with pytest.raises(OutsideRing):
        ev.value(sp.sqrt(RAD + 1 + yr**2) * sp.sqrt(3 + xr**4))
    with pytest.raises(OutsideRing):
        PointEvaluator(pt, ang, QuadraticArithmetic()).value(sp.exp(xr))


def test_inverse_matrix_in_each_arithmetic():
    """The Gauss--Jordan inverse shared by the arithmetics: A A^-1 = 1 over Q and over
    Q(sqrt d)."""
    A = sp.Matrix([[2, sp.Rational(1, 3)], [5, -1]])
    F = RingArithmetic()
    inv = F.inverse_matrix([[sp.QQ(int(v.p), int(v.q)) for v in row] for row in A.tolist()])
    assert sp.Matrix(inv).applyfunc(sp.QQ.to_sympy) == A.inv()
    Q = QuadraticArithmetic()
    r = Q.root(Q.const(2), sp.sqrt(2))
    B = [[Q.add(Q.one, r), Q.const(3)], [Q.const(1), r]]
    Binv = Q.inverse_matrix(B)
    ev = PointEvaluator({}, {}, Q)
    num = sp.Matrix(2, 2, lambda i, j: _number(ev, B[i][j]))
    inv = sp.Matrix(2, 2, lambda i, j: _number(ev, Binv[i][j]))
    assert sp.simplify(num * inv - sp.eye(2)) == sp.zeros(2, 2)
