"""The exact ansatz search of polynomial integrals (support at a random point, ring rows on
the support, blocks) against the sampled route it replaced (``split_polynomial`` and
``solve_constant_linear`` on every term): the same canonical basis on random fields with
trigonometric coefficients, and the recorded outputs of the old route on the catalogue."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.core.zero.values import OutsideRing
from geomech.mechanics.analysis import integrals
from geomech.mechanics.analysis.field_integrals import (
    AnsatzFlow,
    ansatz_span,
    ansatz_terms,
    sampled_flow,
    sampled_nullspace,
)
from geomech.mechanics.analysis.integrals import is_first_integral, polynomial_integrals


def _old_route(v, degree, variables, ansatz):
    """The route of the previous release: every term, sampled, solved over Q(parameters)."""
    terms = ansatz_terms(len(variables), len(ansatz), degree)
    exprs = [ansatz[k] * sp.Mul(*[x**a for x, a in zip(variables, al)]) for al, k in terms]
    cs = list(sp.symbols(f"_c0:{len(terms)}", cls=sp.Dummy))
    F = sp.Add(*[c * t for c, t in zip(cs, exprs)])
    sols = integrals._sampled_solutions(v, variables, cs, exprs)
    return integrals._verified_integrals(v, F, sols, False, ())


def _same(a, b):
    return len(a) == len(b) and all(sp.expand(x - y) == 0 for x, y in zip(a, b))


# a pendulum-like field on (y, x1, x2): y' = x1, x' polynomial in x with trigonometric
# coefficients and a parameter k
coef = st.sampled_from([0, 1, -1, 2])
trig = st.sampled_from(["1", "sin(y)", "cos(y)", "k", "k*cos(y)", "sin(y)*cos(y)"])
monos = st.sampled_from(["1", "x1", "x2", "x1*x2", "x1**2", "x2**2"])
component = st.lists(st.tuples(coef, trig, monos), min_size=0, max_size=3)


def _field(spec1, spec2):
    M = Manifold("M", "y x1 x2", parameters="k")
    def comp(spec):
        return sum((c * M.sympify(f) * M.sympify(m) for c, f, m in spec), sp.S.Zero)
    return M, M.vector_field([M.sympify("x1"), comp(spec1), comp(spec2)])


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(component, component, st.integers(1, 2))
def test_exact_search_equals_the_sampled_route(spec1, spec2, degree):
    M, v = _field(spec1, spec2)
    y, x1, x2 = M.coords
    ansatz = [sp.S.One, sp.sin(y), sp.cos(y)]
    new = polynomial_integrals(v, degree, variables=(x1, x2), ansatz=ansatz)
    old = _old_route(v, degree, (x1, x2), ansatz)
    assert _same(new, old), (new, old)
    assert all(is_first_integral(v, F) for F in new)


def test_pendulum_energy_and_a_free_rotor():
    """Known answers: the pendulum energy; a free rotor x2' = 0 adds x2 and its powers."""
    M = Manifold("M", "y x1 x2", parameters="k")
    y, x1, x2 = M.coords
    k = M.parameters[0]
    v = M.vector_field([x1, -k * sp.sin(y), 0])
    Fs = polynomial_integrals(v, 2, variables=(x1, x2), ansatz=[1, sp.sin(y), sp.cos(y)])
    assert _same(Fs, _old_route(v, 2, (x1, x2), [1, sp.sin(y), sp.cos(y)]))
    assert len(Fs) == 3                      # the energy (echelon form), x2, x2**2
    assert sp.expand(-k * Fs[0] - (x1**2 - 2 * k * sp.cos(y))) == 0
    assert Fs[1:] == [x2, x2**2]


def test_ring_sampling_equals_cancel_sampling():
    """The support pass by evaluation in Q[eta] and by cancel at the same points agree."""
    M = Manifold("M", "y x", parameters="k")
    y, x = M.coords
    flow = AnsatzFlow((x,), (-sp.sin(y) * x**2 / (2 + sp.cos(y)),), ((y, x),))
    basis = [sp.S.One, sp.sin(y), sp.cos(y)]
    terms = ansatz_terms(1, 3, 2)
    data, qsyms = sampled_flow(flow, basis, [])
    cols = list(range(len(terms)))
    ring_ns = sampled_nullspace(data, terms, cols, (x,), qsyms, {}, 5)
    plain = sampled_nullspace(data[:4] + (None,), terms, cols, (x,), qsyms, [], 5)
    assert sp.Matrix(ring_ns).rank() == sp.Matrix(plain).rank() == \
        sp.Matrix(ring_ns + plain).rank()


def test_sampled_flow_rewrites_on_first_use():
    """The evaluation in Q[eta] reads only the data as given; the rational (half-angle)
    rewriting, formed when first read, is rational_rewrite of each expression, and the
    sample symbols are those of the rewritten data."""
    from geomech.core.zero.rewrite import rational_rewrite

    M = Manifold("M", "y x")
    y, x = M.coords
    flow = AnsatzFlow((x,), (-sp.sin(y) * x**2 / (2 + sp.cos(y)),), ((y, x),))
    basis = [sp.S.One, sp.sin(y), sp.cos(y)]
    terms = ansatz_terms(1, 3, 2)
    data, qsyms = sampled_flow(flow, basis, [])
    sampled_nullspace(data, terms, list(range(len(terms))), (x,), qsyms, {}, 5)
    assert "rewritten" not in data.__dict__
    kin_b, b, abbrev, dyn = data[:4]
    assert b == [rational_rewrite(e) for e in basis]
    assert dyn == [rational_rewrite(e) for e in flow.dynamics]
    assert kin_b == [rational_rewrite(x * sp.diff(e, y)) for e in basis]
    assert set(qsyms) == set().union(*(e.free_symbols for e in [*kin_b, *b, *dyn])) - {x}


def test_radical_sampling_finds_the_support():
    """Square roots in the flow: the support pass works over Q(sqrt c) at each point.  A
    pendulum written with D = sqrt(2 + cos y) (x' = -sin(y) D D/(2 + cos y)) has its energy;
    x' = -sin(y) sqrt(2 + cos y) has no integral polynomial in x with trigonometric
    coefficients (its energy has (2 + cos y)**(3/2)): an empty support, no exact step."""
    x, y, D = sp.symbols("x y D")
    basis = [sp.S.One, sp.sin(y), sp.cos(y)]
    terms = ansatz_terms(1, 3, 2)[1:]
    root = sp.sqrt(2 + sp.cos(y))
    flow = AnsatzFlow((x,), (-sp.sin(y) * D * D / (2 + sp.cos(y)),), ((y, x),), ((D, root),))
    cols, vecs, dom = ansatz_span(flow, basis, terms, ())
    assert [[dom.to_sympy(c) for c in v] for v in vecs] == [[-2, 1]]      # x**2 - 2 cos y
    assert [terms[j] for j in cols] == [((0,), 2), ((2,), 0)]
    flow = AnsatzFlow((x,), (-sp.sin(y) * root,), ((y, x),))
    data, qsyms = sampled_flow(flow, basis, [])
    assert sampled_nullspace(data, terms, list(range(len(terms))), (x,), qsyms, {}, 5) == []


def test_free_rigid_body_matches_the_old_route():
    """Recorded from the previous release (21 s there): the Euler top with A, B, C = 1, 2, 4
    in Euler angles, trigonometric coefficients of degree <= 2: one quadratic integral."""
    import geomech as gm

    S = gm.examples.free_rigid_body(A=1, B=2, C=4)
    Fs = S.polynomial_integrals(2)
    th, ph, ps = S.manifold.coords
    thd, phd, psd = S.manifold.velocities
    ref = (-2 * phd**2 - 4 * phd * psd * sp.cos(th) + 3 * psd**2 * sp.sin(th)**2
           - 2 * psd**2 + thd**2)
    assert len(Fs) == 1 and default_policy().is_zero(Fs[0] - ref)


def _cancel_rows(data, terms, cols, pt, eta, dom):
    """The rows at a point by ``sympy.cancel`` of every value and ``Poly`` in ``eta`` over
    ``dom`` (the route ``point_rows`` had before it evaluated in K(eta)); ``None`` where a
    value is not a polynomial in ``eta`` over ``dom``."""
    kin_b, basis, abbrev, dyn = data[:4]

    def val(e):
        return sp.Poly(sp.cancel(e.xreplace(pt)), *eta, domain=dom)

    try:
        ed = [val(e) for e in dyn]
        acc: dict = {}
        for j in cols:
            alpha, k = terms[j]
            mono = sp.Poly(sp.Mul(*[x**a for x, a in zip(eta, alpha)]), *eta, domain=dom)
            w = val(kin_b[k]) * mono
            for a, x in enumerate(eta):
                if alpha[a]:
                    w += val(basis[k]) * ed[a] * mono.diff(x)
            for mon, c in w.as_dict(native=True).items():
                acc.setdefault(mon, {})[j] = c
    except (ZeroDivisionError, sp.PolynomialError, sp.CoercionFailed):
        return None
    return [[row.get(j, dom.zero) for j in cols] for row in acc.values()]


# dynamics of (x1, x2) over the configuration (y, z) and a parameter k: polynomial terms,
# parameter and configuration denominators, an eta-denominator that cancels
# ((x1**2 - x2**2)/(x1 - x2)) and one that does not (1/(1 + x1**2))
pr_coef = st.sampled_from(["1", "k", "1/(1 + k)", "sin(y)", "cos(y)/(2 + sin(y))", "z/(k - z)",
                           "k*z**2", "1/z"])
pr_mono = st.sampled_from(["1", "x1", "x2", "x1*x2", "x2**2", "(x1**2 - x2**2)/(x1 - x2)",
                           "1/(1 + x1**2)"])
pr_part = st.lists(st.tuples(st.integers(-2, 2), pr_coef, pr_mono), max_size=3)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pr_part, pr_part, st.integers(0, 3), st.integers(-3, 3), st.integers(1, 4),
       st.booleans())
def test_point_rows_are_the_rows_of_cancel_at_the_point(d1, d2, yn, zn, zd, symbolic):
    """``point_rows`` (exact values in K(eta)) gives the rows of ``cancel`` and ``Poly`` at
    the same point, or fails where they do, over Q(k) and over Q (k at the point)."""
    from geomech.core.zero.rewrite import half_angle_symbol
    from geomech.mechanics.analysis.field_integrals import point_rows

    M = Manifold("M", "y z x1 x2", parameters="k")
    y, z, x1, x2 = M.coords
    k = M.parameters[0]
    dyn = tuple(sum((c * M.sympify(f) * M.sympify(m) for c, f, m in d), sp.S.Zero)
                for d in (d1, d2))
    flow = AnsatzFlow((x1, x2), dyn, ((y, x1 + z), (z, k * x2)))
    basis = [sp.S.One, sp.sin(y), z / (1 + z**2)]
    terms = ansatz_terms(2, 3, 2)
    data, qsyms = sampled_flow(flow, basis, [k])
    cols = list(range(len(terms)))
    assert set(qsyms) <= {z, half_angle_symbol(y)}
    pt = {z: sp.Rational(zn, zd), half_angle_symbol(y): sp.Rational(yn, 3)}
    dom = sp.QQ.frac_field(k) if symbolic else sp.QQ
    if not symbolic:
        pt[k] = sp.Rational(zn + 5, zd)
    ref = _cancel_rows(data, terms, cols, pt, (x1, x2), dom)
    try:
        got = point_rows(data, terms, cols, pt, (x1, x2), dom)
    except (ZeroDivisionError, OutsideRing):
        got = None
    assert (got is None) == (ref is None)
    if got is not None:
        assert sorted(map(tuple, got), key=str) == sorted(map(tuple, ref), key=str)
        assert all(x in dom for row in got for x in row)
