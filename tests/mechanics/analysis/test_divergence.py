"""The divergence from the mass-matrix form (analysis/divergence.py) and the density search
of heavy bodies in the radical ring (density_search.ring_density_search).

The divergence is compared with independent derivations: the divergence of the explicit field
(exactly, small systems) and plain sympy derivatives of ``S.equations().rhs`` at random
rational points (floats, the rolling ellipsoid).
"""

from __future__ import annotations

import math

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.core.zero import default_policy
from geomech.core.zero.radicals import flint_forms, ring_points, root_parts
from geomech.mechanics.analysis.density import divergence
from geomech.mechanics.analysis.density_search import heavy_system, ring_density_search
from geomech.mechanics.analysis.divergence import (
    flow_mass_matrix_form,
    mass_matrix_determinant,
    mass_matrix_divergence,
)
from geomech.mechanics.analysis.measure import (
    system_divergence,
    system_divergence_vanishes,
    system_invariant_measure,
)

Z = default_policy().is_zero
SMALL = ("chaplygin_sleigh", "rolling_disk", "chaplygin_ball")


def _explicit_divergence_at(S, pt: dict) -> float:
    r""":math:`\sum_i \partial\dot x_i/\partial x_i` of ``S.equations().rhs`` (plain sympy
    derivatives of the explicit right-hand sides) at the ring point ``pt`` (angles from their
    sine and cosine), in floats."""
    P = S.phase_space
    vals = {}
    for f, v in pt.items():
        if isinstance(f, sp.sin):
            a = f.args[0]
            vals[a] = math.atan2(float(v), float(pt[sp.cos(a)]))
        elif f.is_Symbol:
            vals[f] = float(v)
    rhs = S.equations().rhs
    total = 0.0
    for x in P.coords:
        d = sp.diff(rhs[x], x)
        if d != 0:
            total += float(d.evalf(30, subs=vals))
    return total


def _ring_value(frac, pt) -> float:
    e0, e1 = frac.split_at(pt)
    if not frac.calc.roots:
        return float(e0)
    b = frac.calc.roots[0][1]
    from geomech.mechanics.analysis.divergence import RingFraction

    beta = RingFraction(frac.calc, b, frac.calc.R.one).split_at(pt)[0]
    return float(e0) + float(e1) * math.sqrt(float(beta))


@pytest.mark.parametrize("name", SMALL)
def test_ring_divergence_equals_explicit_field_divergence_exactly(name):
    S = gm.examples.get(name)
    new = mass_matrix_divergence(S).expr()
    assert Z(new - divergence(S.vector_field()))


@pytest.mark.parametrize("name", ("chaplygin_sleigh", "rolling_disk"))
def test_ring_divergence_at_points_equals_sympy_derivatives(name):
    S = gm.examples.get(name)
    div = mass_matrix_divergence(S)
    for pt in ring_points(div.calc, 2, 5):
        want = _explicit_divergence_at(S, pt)
        assert abs(_ring_value(div, pt) - want) <= 1e-9 * (1 + abs(want))


def test_mass_matrix_determinant_is_det_of_the_mass_matrix():
    imp = flow_mass_matrix_form(gm.examples.rolling_disk())
    assert Z(mass_matrix_determinant(imp) - imp.mass_matrix.det())


def test_ring_density_search_agrees_with_the_sleigh_oracle():
    """Free Chaplygin sleigh: rho = 1/cos(phi) for a = 0 (Borisov & Mamaev 2015, §3.3) and no
    density of the family for a != 0 (certain: the sampled equations are inconsistent)."""
    S0 = gm.examples.chaplygin_sleigh(a=0)
    res = ring_density_search(S0)
    assert res and S0.is_invariant_density(res.density)
    assert default_policy().is_constant(res.density * sp.cos(S0.manifold.coords[2]),
                                        S0.phase_space.coords)
    res = ring_density_search(gm.examples.chaplygin_sleigh())
    assert not res and "inconsistent" in res.reason and "certain" in res.reason


def test_small_systems_keep_the_explicit_route():
    assert not any(heavy_system(gm.examples.get(n)) for n in SMALL)
    assert not system_divergence_vanishes(gm.examples.chaplygin_sleigh())


@pytest.mark.slow
def test_ellipsoid_divergence_at_points_equals_sympy_derivatives():
    """Rolling ellipsoid: the ring divergence against plain sympy derivatives of the explicit
    right-hand sides at random rational points (floats, 1e-9)."""
    S = gm.examples.ellipsoid()
    div = mass_matrix_divergence(S)
    assert div.calc.roots                   # the support function's root is a generator
    for pt in ring_points(div.calc, 2, 11):
        want = _explicit_divergence_at(S, pt)
        assert abs(_ring_value(div, pt) - want) <= 1e-9 * (1 + abs(want))


@pytest.mark.slow
@pytest.mark.parametrize("name", ("ellipsoid", "convex_body_on_plane"))
def test_heavy_body_density_answer(name):
    """Generic rolling ellipsoid / convex body (no slipping): no invariant measure is expected
    (Borisov & Mamaev 2002); the answer is exact -- a verified density or "none" naming the
    family."""
    S = gm.examples.get(name)
    assert heavy_system(S)                  # routed through the radical ring
    assert not system_divergence_vanishes(S)
    res = system_invariant_measure(S)
    if res:
        assert mass_matrix_divergence(S) is not None and res.exponents
    else:
        assert "inconsistent" in res.reason
        assert "det of the mass matrix" in res.family and "natural configuration" in res.family
    assert system_divergence(S) is not None


@pytest.mark.slow
def test_body_of_revolution_density_found_and_checked_independently():
    """A dynamically symmetric ellipsoid of revolution (b1 = b2, I1 = I2) has an invariant
    measure (Borisov & Mamaev 2002): the ring search finds one; div(rho v)/rho =
    v(log rho) + div v is checked at rational points with the rates of the mass-matrix form
    and plain sympy derivatives of the explicit right-hand sides (floats, 1e-9)."""
    S = gm.examples.ellipsoid(b1=1, b2=1, b3=2, I1=1, I2=1)
    res = system_invariant_measure(S)
    assert res
    div = mass_matrix_divergence(S)
    imp = flow_mass_matrix_form(S)
    logrho = sp.log(res.density)
    grad = {x: sp.diff(logrho, x) for x in S.phase_space.coords}
    for pt in ring_points(div.calc, 2, 13):
        P = {}
        for f, v in pt.items():
            if isinstance(f, sp.sin):
                P[f.args[0]] = 2 * sp.atan(v / (1 + pt[sp.cos(f.args[0])]))
            elif f.is_Symbol:
                P[f] = v
        rates = imp.rates_at({k: v for k, v in P.items()
                              if k in S.phase_space.coords or k in S.manifold.parameters})
        flow = sum(float(g.evalf(30, subs=P)) * float(sp.N(rates[x], 30))
                   for x, g in grad.items() if g != 0)
        total = flow + _explicit_divergence_at(S, pt)
        assert abs(total) <= 1e-9 * (1 + abs(flow))


@pytest.mark.slow
def test_report_measure_section_on_the_ellipsoid():
    """The report's section is computed (issue 13, item 6): the divergence's size is printed
    (not its ~300k operations) and the family holding no density is named."""
    from geomech.reporting.sections import _measure_section

    sec = _measure_section(gm.examples.ellipsoid())
    text = " ".join(t for t, _ in sec.lines)
    assert sec.status == "ok" and "divergence of the flow" in text
    assert "not printed (over 20000 operations; in the radical ring a fraction" in text
    assert all(obj is None for t, obj in sec.lines if t.startswith("divergence"))
    assert "no invariant density in the family searched" in text and "inconsistent" in text


@pytest.mark.parametrize("name", ["chaplygin_sleigh", "ball_on_surface_of_revolution",
                                  "suslov"])
def test_sampled_divergence_is_the_ring_divergence_at_the_point(name):
    """The divergence evaluated at exact points from the mass-matrix form (no divergence
    written out) equals the value there of the divergence of the radical ring (or of the
    explicit field): the same pair a + b sqrt(d), a polynomial in the velocities."""
    from geomech.core.zero.values import PointEvaluator, QuadraticArithmetic
    from geomech.mechanics.analysis.divergence import sampled_mass_matrix_divergence

    S = gm.examples.get(name)
    imp = flow_mass_matrix_form(S)
    div = system_divergence(S)
    P = imp.selection
    us = [imp.coords[next(i for i in range(P.rows) if P[i, k] != 0)] for k in range(P.cols)]
    for pt, ang, val in sampled_mass_matrix_divergence(imp, 2):
        qv = PointEvaluator(pt, ang, QuadraticArithmetic(us))
        assert qv.value(div) == val


def test_rattleback_divergence_does_not_vanish_at_a_point():
    """The rattleback's flow does not preserve the coordinate volume (a non-zero exact value
    of the divergence; Borisov & Mamaev (2003): it has strange attractors), decided without
    writing the divergence out; the default density family is refused with its size."""
    from geomech.mechanics.analysis.measure import large_heavy_form

    S = gm.examples.rattleback()
    assert large_heavy_form(S) is not None
    assert system_divergence_vanishes(S) is False
    res = system_invariant_measure(S)
    assert not res and res.reason.startswith("not searched: the voronets mass-matrix form has")


_x, _y, _t = sp.symbols("x y t")
_RC = None


def _radical_calc():
    """A ring with a square root, one angle (its sine and cosine) and symbols."""
    global _RC
    if _RC is None:
        from geomech.core.algebra.calculus import RadicalCalculus

        _RC = RadicalCalculus([sp.sqrt(1 + _x**2 * sp.sin(_t)**2), sp.cos(_t), _y])
    return _RC


_terms = st.lists(st.tuples(st.integers(-5, 5).filter(bool), st.integers(1, 3),
                           st.lists(st.integers(0, 3), min_size=5, max_size=5)),
                  min_size=1, max_size=5)


def _element(rc, terms):
    """The ring element of ``terms`` (coefficient, denominator, exponents of the five
    generators: the root, the symbols, the sine and the cosine; not reduced)."""
    R = rc.R
    return sum((R.domain.convert(n) / R.domain.convert(d)
                * R.from_dict({tuple(e): R.domain.one})
                for n, d, e in terms), R.zero)


@settings(max_examples=30, deadline=None)
@given(_terms, _terms, _terms, _terms)
def test_flint_numerators_are_the_sympy_elements(t1, t2, t3, t4):
    """:class:`RingNumerators`: the normal form by flint's division, products, sums and
    derivatives of the forms are those of the ring's sympy elements
    (:meth:`RationalAlgebra.reduce`), and fractions (denominators with the root too) are
    formed and summed as :class:`RingFraction` forms and sums them."""
    from geomech.mechanics.analysis.divergence import RingFraction, RingNumerators

    rc = _radical_calc()
    assert rc.R.ngens == 5
    nb, alg = RingNumerators(rc), rc.alg
    p, q, d1, d2 = (_element(rc, t) for t in (t1, t2, t3, t4))
    assert nb.back(nb.reduce(nb.to(p * q))) == alg.reduce(p * q)
    assert nb.back(nb.to(p) + nb.to(q)) == p + q
    ix = rc.idx[_x]
    assert nb.back(nb.diff(nb.to(p), ix)) == p.diff(rc.R.gens[ix])
    if not (alg.reduce(d1) and alg.reduce(d2)):
        return
    a, b = RingFraction(rc, p, d1), RingFraction(rc, q, d2)
    fa, fb = nb.fraction(nb.to(p), d1), nb.fraction(nb.to(q), d2)
    assert (nb.back(fa[0]), fa[1]) == (a.num, a.den)
    n, d = nb.add(fa, fb)
    want = a + b
    assert (nb.back(n), d) == (want.num, want.den)
    r = nb.ring_fraction((n, d))
    assert (r.num, r.den) == (want.num, want.den)
    # the flint forms split_at samples, taken from the form: those of the ring element
    assert r._parts == flint_forms(rc, (r.den, *root_parts(rc, r.num)))
