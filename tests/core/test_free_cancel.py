"""Cancellation in flint from the expression tree (geomech.core.zero.quotients) against
sympy's ``cancel``, the zero policy and the routes it replaces."""

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.core.zero import ZeroPolicy, default_policy
from geomech.core.zero.certificates import vanishes_over_common_denominator
from geomech.core.zero.quotients import free_cancel, numerator_certified_nonzero, outside_trig_ring

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
#: with radicals each example costs zero tests in the radical ring
RADICAL = settings(SETTINGS, max_examples=12)

x, y, t = sp.symbols("x y t")
f = sp.Function("f")
_ATOMS = [x, y, t, sp.sin(t), sp.cos(t), sp.sin(x), sp.tan(y), sp.cot(t), f(x, y)]
_RADICALS = [sp.sqrt(x**2 + y**2 + 1), sp.sqrt(sp.sin(t)**2 + 2), (x**2 + 3)**sp.Rational(1, 3)]


@st.composite
def polynomials(draw, atoms, max_terms: int = 3) -> sp.Expr:
    """A small polynomial in ``atoms`` with rational coefficients."""
    terms = []
    for _ in range(draw(st.integers(1, max_terms))):
        c = sp.Rational(draw(st.integers(-4, 4)), draw(st.integers(1, 3)))
        m = sp.Mul(*[draw(st.sampled_from(atoms)) ** draw(st.integers(0, 2)) for _ in range(2)])
        terms.append(c * m)
    return sp.Add(*terms)


@st.composite
def fractions(draw, atoms, max_terms: int = 4) -> sp.Expr:
    """A sum of quotients of polynomials in ``atoms`` (some with a shared denominator)."""
    den = draw(polynomials(atoms, 2))
    out = []
    for _ in range(draw(st.integers(2, max_terms))):
        d = den if draw(st.booleans()) else draw(polynomials(atoms, 2))
        if d == 0:
            d = sp.S.One
        out.append(draw(polynomials(atoms)) / d)
    return sp.Add(*out)


@SETTINGS
@given(fractions(_ATOMS))
def test_free_cancel_is_sympy_cancel_without_radicals(e):
    got = free_cancel(e)
    if e.is_number:
        return
    assert got is not None
    assert got == sp.cancel(e)


@RADICAL
@given(fractions(_ATOMS + _RADICALS, 3))
def test_free_cancel_with_radicals_is_the_same_function_and_idempotent(e):
    got = free_cancel(e)
    if got is None:
        return
    assert ZeroPolicy(warn=False).is_zero(got - e)
    again = free_cancel(got)
    assert again is None or again == got


@RADICAL
@given(fractions(_ATOMS + _RADICALS, 3))
def test_normalize_is_idempotent_and_exact(e):
    P = default_policy()
    n1 = P.normalize(e)
    assert P.normalize(n1) == n1
    assert ZeroPolicy(warn=False).is_zero(n1 - e)


@RADICAL
@given(fractions(_ATOMS + _RADICALS, 3), polynomials(_ATOMS))
def test_certified_nonzero_sums_are_not_zero(e, g):
    # e - e rewritten (a zero sum) is never certified non-zero; e + g is only when non-zero
    zero = sp.Add(*[sp.together(a) for a in sp.Add.make_args(e)], -e, evaluate=True)
    if isinstance(zero, sp.Add):
        assert not numerator_certified_nonzero(sp.expand(zero * (sp.sin(t)**2 + sp.cos(t)**2)))
    if numerator_certified_nonzero(e + g):
        assert not ZeroPolicy(warn=False).is_zero(e + g)


@SETTINGS
@given(fractions(_ATOMS, 4))
def test_numerators_outside_the_trig_ring_never_vanish_by_the_ring_shortcut(e):
    if isinstance(e, sp.Add) and outside_trig_ring(e):
        assert not vanishes_over_common_denominator(e)


def test_a_vanishing_sum_keeps_its_shortcut():
    # sin^2 + cos^2 - 1 over a common denominator: neither certified non-zero nor outside
    e = sp.expand((sp.sin(t)**2 + sp.cos(t)**2 - 1) * (x / (y + 1) + 1 / (x + 1)))
    assert not numerator_certified_nonzero(e) and not outside_trig_ring(e)
    assert default_policy().normalize(e) == 0
