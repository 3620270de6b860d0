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
    flint_forms,
    fraction_verdict,
    norm_nonzero,
    ring_points,
    ring_value,
    root_is_irrational,
    root_parts,
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


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(coef, st.integers(0, 3), st.integers(0, 2), st.integers(0, 1)),
                min_size=1, max_size=6), st.integers(0, 50))
def test_flint_forms_take_the_values_of_sympys_substitution(terms, seed):
    r"""The values of a ring element at rational points from its flint form equal sympy's
    substitution into its expression (every generator, and with ``x`` kept symbolic)."""
    e = sp.Add(*[c * x**i * sp.cos(t)**j * sp.sin(t)**k for c, i, j, k in terms]) \
        + sp.sqrt(RADICAND) * x
    num, den = RC.frac(e)
    parts = root_parts(RC, num)
    pt = ring_points(RC, 1, seed)[0]
    for p, f in zip(parts, flint_forms(RC, parts)):
        direct = RC.alg.expr(p).xreplace(pt)
        assert ring_value(RC, f, pt) == ring_value(RC, p, pt) == direct
        kept = RC.alg.expr(p).xreplace({k: v for k, v in pt.items() if k != x})
        assert sp.expand(ring_value(RC, f, pt, keep=[x]) - kept) == 0
    fl = flint_forms(RC, (den, *parts))
    assert split_value(RC, num, fl[0], pt, parts=fl[1:]) == split_value(RC, num, den, pt)
