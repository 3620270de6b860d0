"""Properties of the one differential ring stack (:mod:`geomech.core.algebra.differential_ring`
and its fraction calculus :mod:`geomech.core.algebra.calculus`) on random elements.

The derivation is a derivation (Leibniz), the bracket of ring-valued fields is a Lie bracket
(antisymmetry, Jacobi), the generators satisfy their relations (:math:`\\rho^2 = u` with
:math:`d\\rho = du/(2\\rho)`, :math:`d e^u = e^u du`, :math:`d\\log u = du/u`), and every
derivative agrees with :func:`sympy.diff` (decided by the zero policy).
"""

from __future__ import annotations

import random

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.core.algebra.calculus import RadicalCalculus, RingCalculus
from geomech.core.algebra.differential_ring import DiffRing, bracket_polys, clear_caches
from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.core.zero.radicals import norm_nonzero, point_nonzero, ring_nonzero

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
@given(st.lists(trig_polys(2, False), min_size=6, max_size=6), st.booleans())
def test_shared_rings_give_the_same_brackets(cs, big_first):
    """Fields sharing a larger ring (``DiffRing.shared_for_expressions``) give the very
    expressions (``srepr``) of fields each in its own ring: the ring is not part of the
    result."""
    M = Manifold("Mshare", (x, y, z))
    big = [c + k * (sp.sin(x) + sp.sin(y) + sp.sin(z)) for c in cs[:3]]

    def brackets(order):
        clear_caches()
        fields = {}
        for name in order:
            fields[name] = M.vector_field(big if name == "big" else cs[3:])
            fields[name].ring_form()
        rings = [fields[n].ring_form()[0] for n in ("small", "big")]
        return rings, [sp.srepr(c) for c in fields["small"].bracket(fields["big"]).components]

    _, own = brackets(["small", "big"])             # the small field made its own ring
    (small, big_ring), shared = brackets(["big", "small"])
    assert own == shared
    if small.has_trig:                              # then it reused the big field's ring
        assert small is big_ring


def _norm_nonzero(rc, p) -> bool:
    """The norms of the quadratic extensions, written out here (the reference)."""
    p = rc.alg.reduce(p)
    for rho, b in rc.roots:
        p0, p1 = p.coeff_wrt(rho, 0), p.coeff_wrt(rho, 1)
        if p1:
            p = rc.alg.reduce(p0 * p0 - b * p1 * p1)
    return bool(rc.alg.reduce(p))


@SETTINGS
@given(trig_polys(3, False), trig_polys(3, False), trig_polys(2, False))
def test_point_enclosure_agrees_with_the_norms(f, g, h):
    """A non-zero proof by an interval enclosure at a point agrees with the norms of the
    quadratic extensions; an element of the ideal of the relations is never proved non-zero."""
    u, v = _positive(f), 3 + y**2 + h**2
    e = f * sp.sqrt(u) + g * sp.sqrt(v) + h * sp.sqrt(u) * sp.sqrt(v) + g
    rc = RadicalCalculus([e, sp.sqrt(u), sp.sqrt(v)])
    p = rc.frac(e)[0]
    if point_nonzero(rc, p):
        assert _norm_nonzero(rc, p)
    assert ring_nonzero(rc, p) == norm_nonzero(rc, p) == _norm_nonzero(rc, p)
    rho = rc.frac(sp.sqrt(u))[0]
    zero = p * (rho**2 - rc.frac(u)[0])
    assert not point_nonzero(rc, zero) and not ring_nonzero(rc, zero)


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


# -- brackets of fields outside the sparse ring: radicals and logarithms ------------------------
def _kernel_bracket(X, Y):
    """The bracket by plain sympy.diff (an independent derivation)."""
    M = X.manifold
    return [sp.Add(*[X.components[j] * sp.diff(Y.components[i], q)
                     - Y.components[j] * sp.diff(X.components[i], q)
                     for j, q in enumerate(M.coords)]) for i in range(M.dim)]


@SETTINGS
@given(trig_polys(2, False), trig_polys(2, False), trig_polys(2, False))
def test_radical_fields_bracket_in_the_fraction_calculus(f, g, h):
    M = Manifold("M", "x y z")
    X, Y, Z = sp.symbols("x y z", real=True)
    rep = {x: X, y: Y, z: Z}
    f, g, h = (e.xreplace(rep) for e in (f, g, h))
    rho = sp.sqrt(2 + X**2 + f**2)
    A = M.vector_field([1, g / rho, sp.log(3 + Y**2)])
    B = M.vector_field([h * rho, 0, X / rho])
    assert A._bracket_fractions(B) is not None
    assert all(_proved_zero(a - b) for a, b in zip(A.bracket(B).components,
                                                   _kernel_bracket(A, B)))


def _numeric_growth(D) -> tuple:
    """The growth vector from brackets by sympy.diff (right-normed words span the flag),
    ranks at a random rational point in 30 digits (independent of the library's brackets
    and rank decisions)."""
    M = D.manifold
    fields = [_Plain(M, X.components) for X in D.fields]
    rng = random.Random(5)
    pt = {s: sp.Rational(rng.randint(1, 50), rng.randint(51, 97))
          for s in set().union(*(c.free_symbols for X in fields for c in X.components))}

    def rank(words):
        rows = [[sp.N(c.xreplace(pt), 30) for c in W.components] for W in words]
        return sp.Matrix(rows).rank(iszerofunc=lambda v: abs(v) < 1e-20)

    words, level, out = list(fields), fields, [rank(fields)]
    while out[-1] < M.dim:
        level = [_Plain(M, _kernel_bracket(A, B)) for A in level for B in fields]
        words += level
        out.append(rank(words))
        if out[-1] == out[-2]:
            out.pop()
            break
    return tuple(out)


class _Plain:
    """Components without normalisation (for :func:`_numeric_growth`)."""

    def __init__(self, manifold, comps):
        self.manifold, self.components = manifold, tuple(comps)


def test_rattleback_flag_with_radicals_agrees_with_sympy():
    """The rattleback's constraint fields have sqrt of the support function: their brackets
    are taken in the fraction calculus with the root as a generator."""
    D = gm.examples.rattleback().constraint_distribution()
    X, Y = D.fields[1], D.fields[2]
    assert X._bracket_fractions(Y) is not None
    assert D.growth_vector() == _numeric_growth(D)
