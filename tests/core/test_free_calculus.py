"""The free-field route of Lie brackets (:mod:`geomech.core.algebra.free_calculus`) against
the generic route (sympy/symengine differentiation and the zero policy's ``normalize``): the
same expressions, ``str``-identical, on random rational fields with dependent composite
angles (the kind of the N-link snake's constraint distribution), and its pieces against
sympy (``cancel``, the Pythagorean shortening's substitution rule)."""

from __future__ import annotations

import random

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.core import kernel
from geomech.core.algebra.free_calculus import cancel_quotient, free_bracket
from geomech.core.zero import certificates

t1, t2, t3, x = sp.symbols("theta1 theta2 theta3 x")
a, b = sp.symbols("a b")
COORDS = (x, t1, t2, t3)
ATOMS = [a, b, x, sp.sin(t1), sp.cos(t1), sp.cos(t2), sp.sin(t3), sp.cos(t1 - t2),
         sp.cos(t2 - t3), sp.sin(t1 - t3)]
SETTINGS = settings(max_examples=8, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def polys(draw, terms: int = 3):
    """Random polynomials in parameters, x and sin/cos of dependent angle differences."""
    out = []
    for _ in range(draw(st.integers(1, terms))):
        c = draw(st.integers(-3, 3))
        mono = [draw(st.sampled_from(ATOMS)) ** draw(st.integers(0, 2)) for _ in range(2)]
        out.append(c * sp.Mul(*mono))
    return sp.Add(*out)


DENOMINATORS = [sp.cos(t1), 2 * a + b, a * sp.cos(t1 - t2) + b, sp.cos(t2) * (a + b)]


@st.composite
def fields(draw):
    """A field whose components are polynomials, some over denominators like the snake's
    (cos(theta1), sums of parameters, cos of an angle difference)."""
    return [draw(polys(2)) / draw(st.sampled_from(DENOMINATORS)) if draw(st.booleans())
            else draw(polys(2)) for _ in COORDS]


def _generic(X, Y, coords=COORDS):
    """The bracket by the generic route (the route before the free field: differentiation
    in symengine or sympy and the zero policy's ``normalize``; rings off)."""
    backend = "symengine" if "symengine" in kernel.available_backends() else "sympy"
    with kernel.using_backend(backend):
        return kernel.bracket_components(X, Y, coords)


@pytest.mark.slow
@SETTINGS
@given(fields(), fields())
def test_free_route_gives_the_generic_normal_forms(X, Y):
    fast = free_bracket(X, Y, COORDS)
    assert fast is not None
    slow = _generic(X, Y)
    for f, s in zip(fast, slow):
        assert f is None or str(f) == str(s)
    assert [str(c) for c in kernel.bracket_components(X, Y, COORDS)] == [str(c) for c in slow]


def test_snake_brackets_agree_with_the_generic_route():
    """The 2-link snake's [X, Y] and [X, [X, Y]] (fractions in sin/cos of theta1, theta2
    and cos(theta1 - theta2)) by both routes."""
    D = gm.examples.chaplygin_snake(2).constraint_distribution()
    X, Y = (F.components for F in D.fields)
    coords = D.manifold.coords
    Z = kernel.bracket_components(X, Y, coords)
    assert all(c is not None for c in free_bracket(X, Y, coords))
    for A, B, out in ((X, Y, Z), (X, Z, kernel.bracket_components(X, Z, coords))):
        slow = _generic(A, B, coords)
        assert [str(c) for c in out] == [str(c) for c in slow]


def test_cancel_quotient_is_sympy_cancel():
    rng = random.Random(5)

    def rp():
        return sp.expand(sum(sp.Rational(rng.randint(-6, 6), rng.choice([1, 2, 3])) * sp.Mul(
            *[rng.choice(ATOMS) ** rng.randint(0, 2) for _ in range(2)]) for _ in range(2)))
    for _ in range(20):
        g = rp()
        n, d = sp.expand(rp() * g), sp.expand(rp() * g * rng.choice([1, -1, 2, -3]))
        if d != 0:
            assert str(cancel_quotient(n, d)) == str(sp.cancel(n / d))


TAN_ATOMS = [a, x, sp.tan(t1), sp.tan(t1 - t2), sp.cot(t2), sp.sec(t3), sp.sin(t1),
             sp.cos(t2)]


@st.composite
def tan_polys(draw, terms: int = 3):
    """Random polynomials in tan, cot, sec (and sin, cos) atoms with rational coefficients."""
    out = []
    for _ in range(draw(st.integers(1, terms))):
        c = sp.Rational(draw(st.integers(-4, 4)), draw(st.sampled_from([1, 2, 3])))
        out.append(c * sp.Mul(*[draw(st.sampled_from(TAN_ATOMS)) ** draw(st.integers(0, 2))
                                for _ in range(2)]))
    return sp.expand(sp.Add(*out))


@SETTINGS
@given(tan_polys(), tan_polys(), tan_polys(2))
def test_cancel_quotient_keeps_sympy_cancel_form_of_tan_atoms(n, d, g):
    """With tan, cot, sec atoms too, ``cancel_quotient`` returns ``sympy.cancel``'s very
    expression (``srepr``): the atoms are kept, not rewritten in sin and cos."""
    n, d = sp.expand(n * g), sp.expand(d * g)
    if d != 0:
        assert sp.srepr(cancel_quotient(n, d)) == sp.srepr(sp.cancel(n / d))


def test_shortening_in_the_ring_is_the_substitution_rule(monkeypatch):
    rng = random.Random(7)
    for _ in range(30):
        e = sp.expand(sum(rng.randint(-3, 3) * sp.Mul(*[rng.choice(ATOMS) ** rng.randint(0, 4)
                                                         for _ in range(3)]) for _ in range(6)))
        if not e.is_Add:
            continue
        new = certificates.pythagorean_shortening(e)
        with monkeypatch.context() as m:
            m.setattr(certificates, "_shortening_in_ring", lambda *args: None)
            old = certificates.pythagorean_shortening(e)
        assert str(new) == str(old) and (new is e) == (old is e)


@SETTINGS
@given(fields(), fields())
def test_flint_bracket_is_the_ring_bracket(X, Y):
    """The components computed in flint (``FreeTrigField.bracket``) are the polynomials of
    the term-by-term sympy computation (``bracket_component``), exactly."""
    from geomech.core.algebra.free_calculus import FreeTrigField

    F = FreeTrigField([*X, *Y], COORDS)
    FX, FY = [F.frac(c) for c in X], [F.frac(c) for c in Y]
    assert F.bracket(FX, FY) == [F.bracket_component(FX, FY, i) for i in range(len(COORDS))]
