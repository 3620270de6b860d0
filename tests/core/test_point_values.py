"""Exact values and first derivatives at a rational point without rebuilding the expression
(``PointValues``, issue 22): they are the values of the expression substituted and
cancelled, and the derivative is sympy's derivative at the point."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.zero import rational_rewrite
from geomech.core.zero.values import OutsideRing, PointValues, exact_values, finite_samples

x, y, t = sp.symbols("x y t")
a = sp.Symbol("a", positive=True)

EXPRS = [
    x**2 * y / (1 + x) - 3 * y**-2,
    (x - y)**3 / (a + x**2 * y) + (1 + y / (x + a))**-2,
    rational_rewrite(sp.sin(t) * x / (2 + sp.cos(t)) + sp.cos(2 * t) / (a + sp.sin(t)**2)),
    rational_rewrite(((x * sp.cos(t) + y * sp.sin(t)) / sp.cos(t))**2 - a * sp.tan(t) / x),
]

rationals = st.fractions(min_value=-20, max_value=20, max_denominator=30)


@settings(max_examples=25, deadline=None)
@given(st.lists(rationals, min_size=4, max_size=4), st.sampled_from(range(len(EXPRS))))
def test_value_and_jet_are_sympys(vals, k):
    e = EXPRS[k]
    syms = sorted(e.free_symbols, key=sp.default_sort_key)
    pt = {s: sp.Rational(v.numerator, v.denominator) + (1 if s.is_positive else 0)
          for s, v in zip(syms, vals)}
    pt = {s: abs(v) if s.is_positive else v for s, v in pt.items()}
    direct = sp.cancel(e.xreplace(pt))
    pv = PointValues(pt)
    if direct.has(sp.zoo, sp.nan):
        with pytest.raises(ZeroDivisionError):
            pv.value(e)
        return
    try:
        got = pv.value(e)
    except ZeroDivisionError:          # a vanishing sub-denominator of a finite value
        return
    assert got == direct
    for s in syms:
        assert pv.jet(e, s) == (direct, sp.cancel(sp.diff(e, s).xreplace(pt)))


def test_poles_and_other_atoms():
    pv = PointValues({x: 0, y: sp.Rational(1, 2)})
    with pytest.raises(ZeroDivisionError):
        pv.value(y / x)
    with pytest.raises(OutsideRing):
        pv.value(sp.sqrt(y))
    with pytest.raises(OutsideRing):
        pv.value(x + a)                  # a has no value
    assert exact_values([y / x], {x: 0}) is None
    # x/x**2 is 1/x: no value at 0 either way; (x**2 - x)/x is x - 1, finite after cancelling
    assert exact_values([(x**2 - x) / x], {x: 0}) is None


def test_finite_samples_values_are_the_cancelled_values():
    exprs = EXPRS[2:]
    syms = sorted(set().union(*(e.free_symbols for e in exprs)), key=sp.default_sort_key)
    for pt, vals in finite_samples(exprs, syms, 4, 16, seed=11):
        assert vals == [sp.cancel(e.xreplace(pt)) for e in exprs]


def test_a_sine_of_the_jet_symbol_is_refused_not_differentiated_as_a_constant():
    """d sin(t)/dt is cos(t), not 0: the dual-number jet refuses a sine of its own symbol
    (the caller then differentiates symbolically) and keeps sines of other angles."""
    t, s = sp.symbols("t s")
    half = (sp.Rational(3, 5), sp.Rational(4, 5))
    pv = PointValues({t: sp.Rational(1, 2)}, {t: half, s: half})
    with pytest.raises(OutsideRing):
        pv.jet(t * sp.sin(t), t)
    assert pv.jet(t * sp.sin(s), t) == (sp.Rational(2, 5), sp.Rational(4, 5))
