"""Properties of the one differential ring stack (:mod:`geomech.core.algebra.differential_ring`
and its fraction calculus :mod:`geomech.core.algebra.calculus`) on random elements.

The derivation is a derivation (Leibniz), the bracket of ring-valued fields is a Lie bracket
(antisymmetry, Jacobi), the generators satisfy their relations (:math:`\\rho^2 = u` with
:math:`d\\rho = du/(2\\rho)`, :math:`d e^u = e^u du`, :math:`d\\log u = du/u`), and every
derivative agrees with :func:`sympy.diff` (decided by the zero policy).
"""

from __future__ import annotations

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.core.algebra.calculus import RadicalCalculus, RingCalculus
from geomech.core.algebra.differential_ring import DiffRing, bracket_polys
from geomech.core.zero import default_policy

x, y, z = sp.symbols("x y z", real=True)
k = sp.Symbol("k", real=True)
COORDS = (x, y, z)
ATOMS = [x, y, z, k, sp.sin(x), sp.cos(x), sp.sin(y), sp.cos(y), sp.sin(x - y), sp.cos(x - y)]

SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def trig_polys(draw, max_terms: int = 4, composite: bool = True):
    """Random polynomials in the coordinates, a parameter and sin/cos of independent
    angles (x - y with x, but not y alone: the angles x, x - y are independent); without
    ``composite``, sin/cos of x and y only."""
    atoms = [a for a in ATOMS if not (a.has(y) and not a.has(x) and a.func in (sp.sin, sp.cos))] \
        if composite else ATOMS[:8]
    terms = []
    for _ in range(draw(st.integers(1, max_terms))):
        c = draw(st.integers(-5, 5))
        mono = sp.Mul(*[draw(st.sampled_from(atoms)) ** draw(st.integers(0, 2))
                        for _ in range(draw(st.integers(1, 3)))])
        terms.append(c * mono)
    return sp.Add(*terms)


def _proved_zero(e) -> bool:
    """Zero, and proved (not a probable verdict)."""
    v = default_policy().zero_test(e)
    return v.zero and v.certain


def _ring(*exprs) -> DiffRing:
    R = DiffRing.for_expressions(list(exprs), COORDS, composite=True)
    assert R is not None
    return R


@SETTINGS
@given(trig_polys(), trig_polys(), st.sampled_from(COORDS))
def test_leibniz_rule(f, g, q):
    R = _ring(f, g)
    P, Q = R.to_ring(f), R.to_ring(g)
    assert R.is_zero(R.diff(P * Q, q) - (R.diff(P, q) * Q + P * R.diff(Q, q)))


@SETTINGS
@given(trig_polys(), st.sampled_from(COORDS))
def test_ring_derivative_agrees_with_sympy(f, q):
    R = _ring(f)
    d = R.to_expr(R.diff(R.to_ring(f), q))
    assert _proved_zero(d - sp.diff(f, q))


@SETTINGS
@given(trig_polys(), st.sampled_from(COORDS))
def test_fraction_calculus_and_ring_share_the_derivation(f, q):
    """RingCalculus (fractions, base angles) and DiffRing differentiate alike."""
    R = _ring(f)
    rc = RingCalculus([f])
    a = rc.expr(rc.diff(rc.frac(f), q))
    b = R.to_expr(R.diff(R.to_ring(f), q))
    assert _proved_zero(a - b)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(trig_polys(3), min_size=9, max_size=9))
def test_bracket_is_antisymmetric_and_satisfies_jacobi(cs):
    R = _ring(*cs)
    X, Y, Z = ([R.to_ring(c) for c in cs[3 * i:3 * i + 3]] for i in range(3))
    XY, YX = bracket_polys(R, X, Y), bracket_polys(R, Y, X)
    assert all(R.is_zero(a + b) for a, b in zip(XY, YX))
    jac = [bracket_polys(R, X, bracket_polys(R, Y, Z)), bracket_polys(R, Y, bracket_polys(R, Z, X)),
           bracket_polys(R, Z, bracket_polys(R, X, Y))]
    assert all(R.is_zero(a + b + c) for a, b, c in zip(*jac))


def _positive(f):
    """A non-constant, positive radicand or logarithm argument."""
    return 2 + x**2 + f**2


@SETTINGS
@given(trig_polys(3, False), st.sampled_from((x, y)))
def test_square_root_relations(f, q):
    """rho = sqrt(u): d(rho^2) = du and d rho = du/(2 rho), in the ring."""
    u = _positive(f)
    rc = RadicalCalculus([sp.sqrt(u)])
    rho = rc.frac(sp.sqrt(u))
    sq = rc.cancel((rho[0] ** 2, rho[1] ** 2))
    du = rc.diff(rc.frac(u), q)
    assert _proved_zero(rc.expr(rc.diff(sq, q)) - rc.expr(du))
    assert _proved_zero(rc.expr(rc.diff(rho, q)) - rc.expr(du) / (2 * sp.sqrt(u)))
    assert _proved_zero(rc.expr(rc.diff(rho, q)) - sp.diff(sp.sqrt(u), q))


@SETTINGS
@given(trig_polys(3, False), trig_polys(2, False), st.sampled_from((x, y)))
def test_exponential_and_logarithm_relations(f, g, q):
    """d exp(u) = exp(u) du, d log(u) = du/u, and agreement with sympy on a mixed element."""
    u, w = _positive(f), f + y          # w is never a number (exp(2) is not in the ring)
    e = g * sp.exp(w) + sp.log(u) / u
    rc = RadicalCalculus([e, sp.exp(w), sp.log(u)])
    dexp = rc.expr(rc.diff(rc.frac(sp.exp(w)), q))
    dlog = rc.expr(rc.diff(rc.frac(sp.log(u)), q))
    assert _proved_zero(dexp - sp.exp(w) * sp.diff(w, q))
    assert _proved_zero(dlog - sp.diff(u, q) / u)
    assert _proved_zero(rc.expr(rc.diff(rc.frac(e), q)) - sp.diff(e, q))


def test_a_perturbed_derivative_is_not_zero():
    """The checks above can fail: a wrong derivative rule is detected."""
    u = 2 + sp.sin(x) ** 2
    rc = RadicalCalculus([sp.log(u)])
    wrong = rc.expr(rc.diff(rc.frac(sp.log(u)), x)) - sp.diff(u, x) / (2 * u)
    v = default_policy().zero_test(wrong)
    assert not v.zero and v.certain
