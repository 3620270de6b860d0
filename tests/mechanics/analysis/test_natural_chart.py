"""The Poisson-vector rewriting of :mod:`geomech.mechanics.analysis.natural_chart`: the
python-flint route (even part and cancellation in the ring) gives the very expression of the
sympy route (``sp.cancel`` of the even parts), on random rational functions of
:math:`\\gamma = (\\sin\\theta\\sin\\varphi, \\sin\\theta\\cos\\varphi, \\cos\\theta)` with
square roots, and the result is the function of :math:`\\gamma` written in the angles
(Borisov & Mamaev (2015), (5.5))."""

from __future__ import annotations

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geomech.mechanics.analysis.natural_chart as nc

TH, PH = sp.symbols("theta phi", real=True)
G = sp.symbols("gamma1:4", real=True)
A, B = sp.symbols("a b", positive=True)
ANGLES = {G[0]: sp.sin(TH) * sp.sin(PH), G[1]: sp.sin(TH) * sp.cos(PH), G[2]: sp.cos(TH)}

_atoms = st.sampled_from([*G, A, B, sp.Integer(2), sp.Rational(-1, 3)])


@st.composite
def _polys(draw, terms: int = 4) -> sp.Expr:
    """A random polynomial in gamma and the parameters."""
    out = sp.Integer(draw(st.integers(-2, 2)))
    for _ in range(draw(st.integers(1, terms))):
        out += sp.Mul(*draw(st.lists(_atoms, min_size=1, max_size=3)))
    return out


@st.composite
def _gamma_functions(draw) -> sp.Expr:
    """A random rational function of gamma, possibly with a square root of a positive
    quadratic form (as the rolling ellipsoid's support function)."""
    num, den = draw(_polys()), draw(_polys(2))
    if den == 0:
        den = sp.Integer(1)
    root = sp.sqrt(A * G[0]**2 + B * G[1]**2 + (A + B) * G[2]**2)
    k = draw(st.sampled_from([0, 1, -1, 3]))
    return num / den * root**k + draw(_polys(2))


def _both(expr: sp.Expr, monkeypatch) -> tuple:
    """``to_poisson_vector`` of ``expr`` in the angles by the flint and the sympy route."""
    e = expr.xreplace(ANGLES)
    fast = nc.to_poisson_vector(e, TH, PH, G)
    with monkeypatch.context() as m:
        m.setattr(nc, "_ring_even_quotient", lambda *args: None)
        slow = nc.to_poisson_vector(e, TH, PH, G)
    return fast, slow


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(_gamma_functions())
def test_flint_route_gives_the_sympy_expression(monkeypatch, f):
    fast, slow = _both(f, monkeypatch)
    assert sp.srepr(fast) == sp.srepr(slow)
    # and it is f on the sphere: compare at a rational point of |gamma| = 1
    pt = {G[0]: sp.Rational(2, 7), G[1]: sp.Rational(3, 7), G[2]: sp.Rational(6, 7),
          A: 2, B: 5}
    lhs, rhs = fast.xreplace(pt), f.xreplace(pt)
    if rhs.has(sp.zoo, sp.nan):
        return
    assert sp.nsimplify(sp.N(lhs - rhs, 50), tolerance=1e-40) == 0


def test_ring_quotient_keeps_sympy_generators():
    """A radical whose radicand cancel would split (content 4) is left to sympy."""
    x, r = sp.symbols("x r")
    assert nc._ring_even_quotient(sp.sqrt(4 * x + 4) * r**2, r**2, r, (x, x)) is None
    assert nc._ring_even_quotient(x * r**2 + 1, 2 * r**2, r, (x, x)) == sp.cancel(
        (x * 2 * x**2 + 1) / (2 * 2 * x**2))


def test_odd_numerator_is_left_to_sympy():
    r, x = sp.symbols("r x")
    assert nc._ring_even_quotient(r * x, sp.Integer(1), r, (x, x)) is None
