"""Zero decisions in the radical ring (core/zero/radicals.py): never a wrong certain verdict.

Elements built as multiples of the relation :math:`\\rho^2 - b` are zero functions and must
never be called non-zero; elements with a non-zero value at a point (checked by plain float
evaluation of the sympy expression, independent of the ring) must never be called zero.
"""

from __future__ import annotations

import math

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.algebra.calculus import RadicalCalculus
from geomech.core.zero.radicals import (
    fraction_verdict,
    norm_nonzero,
    ring_points,
    root_is_irrational,
    split_value,
)

t = sp.Symbol("t", real=True)
x = sp.Symbol("x", positive=True)
RADICAND = 2 + sp.cos(t) + x**2
RC = RadicalCalculus([sp.sqrt(RADICAND)])
RHO = RC.R.gens[0]
B = RC.frac(RADICAND)[0]

coef = st.integers(-4, 4)


def _element(a: int, b: int, c: int, k: int):
    """``a + b rho + c cos(t) x^k`` (a ring element) and its sympy expression."""
    e = a + b * sp.sqrt(RADICAND) + c * sp.cos(t) * x**k
    return RC.frac(e)[0], e


@settings(max_examples=25, deadline=None)
@given(coef, coef, coef, st.integers(0, 2))
def test_multiples_of_the_relation_are_zero(a, b, c, k):
    p, _ = _element(a, b, c, k)
    z = p * (RHO**2 - B)
    assert not norm_nonzero(RC, z)
    v = fraction_verdict(RC, z, RC.R.one)
    assert v is not None and v.zero and v.certain


@settings(max_examples=25, deadline=None)
@given(coef, coef, coef, st.integers(0, 2))
def test_a_non_zero_value_is_never_called_zero(a, b, c, k):
    p, e = _element(a, b, c, k)
    val = float(e.subs({t: 0.7, x: 1.3}))
    v = fraction_verdict(RC, p, RC.R.one)
    if abs(val) > 1e-9:                 # certainly a non-zero function
        assert v is not None and not v.zero
        assert norm_nonzero(RC, p)
    if v is not None and not v.zero:    # a non-zero verdict has a witness
        assert any(any(w != 0 for w in split_value(RC, p, RC.R.one, pt))
                   for pt in ring_points(RC, 3, 7))


def test_split_value_agrees_with_the_expression():
    e = (3 + x * sp.sqrt(RADICAND)) / (1 + x)
    num, den = RC.frac(e)
    pt = ring_points(RC, 1, 5)[0]
    e0, e1 = split_value(RC, num, den, pt)
    rho = math.sqrt(float(RADICAND.xreplace({sp.cos(t): pt[sp.cos(t)], x: pt[x]})))
    expect = float(e.xreplace({sp.sqrt(RADICAND): rho, sp.cos(t): pt[sp.cos(t)], x: pt[x]}))
    assert math.isclose(float(e0 + e1 * rho), expect, rel_tol=1e-12)


def test_a_square_radicand_leaves_the_verdict_open():
    """:math:`\\sqrt{(1+x)^2}`: 1 and rho are dependent, no value proves anything."""
    y = sp.Symbol("y", real=True)
    rc = RadicalCalculus([sp.sqrt(y**2 + 2 * y + 1)])
    assert not root_is_irrational(rc)
    rho = rc.R.gens[0]
    assert fraction_verdict(rc, rho - rc.frac(1 + y)[0], rc.R.one) is None
    assert root_is_irrational(RC)
