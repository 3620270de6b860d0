"""Exact values with one square root (``QuadraticValues``): the pair ``(a, b)`` is the value
``a + b sqrt(d)`` of the expression, checked against an independent high-precision
evaluation, and identities give zero pairs."""

from __future__ import annotations

import pytest
import sympy as sp

from geomech.core.zero.values import OutsideRing, QuadraticValues, quadratic_points

x, y, s = sp.symbols("x y s", real=True)
R = 2 + sp.cos(s)**2 + x**2                    # a radicand, positive everywhere


@pytest.mark.parametrize("e", [
    x / sp.sqrt(R) + y * sp.sin(s),
    (x + sp.sqrt(R))**3 / (1 + y**2),
    1 / (1 + sp.sqrt(R)),
    sp.sqrt(4 * R)**3 * sp.cos(2 * s) - x * R**sp.Rational(-3, 2),
])
def test_value_is_the_number(e):
    for pt, ang in quadratic_points([x, y], [s], 3, seed=5):
        qv = QuadraticValues(pt, ang)
        a, b = qv.parts(e)
        c, si = ang[s]
        theta = sp.atan2(si, c)
        exact = e.subs({x: pt[x], y: pt[y], s: theta})
        got = a + b * sp.sqrt(sp.Rational(qv.d.numerator, qv.d.denominator)) if qv.d else a
        assert abs(sp.N(exact - got, 50)) < 1e-40


def test_identities_vanish_and_generators_stay_free():
    w = sp.Symbol("w")
    ident = sp.sqrt(R)**2 - R + (sp.sin(s)**2 + sp.cos(s)**2 - 1) * w / sp.sqrt(R)
    (pt, ang), = quadratic_points([x], [s], 1, seed=2)
    qv = QuadraticValues(pt, ang, gens=[w])
    assert qv.parts(ident) == (0, 0)
    a, b = qv.parts(w * sp.sqrt(R))
    assert a == 0 and b.has(w)


def test_second_root_and_bad_atoms_are_refused():
    (pt, ang), = quadratic_points([x, y], [s], 1, seed=3)
    qv = QuadraticValues(pt, ang)
    qv.value(sp.sqrt(R))
    with pytest.raises(OutsideRing):
        qv.value(sp.sqrt(R + 1 + y**2) * sp.sqrt(3 + x**4))
    with pytest.raises(OutsideRing):
        QuadraticValues(pt, ang).value(sp.exp(x))
