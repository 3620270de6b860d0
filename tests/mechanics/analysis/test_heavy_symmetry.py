"""Symmetries and linear integrals of heavy bodies with square roots (Borisov & Mamaev
(2015), §4.3; Theorems 3 and 4), and the exact linear algebra under them.

Oracles: identities of fractions (a common denominator is a common multiple; the vector of
numerators reconstructs the expression), agreement of the two-stage solve with the direct
one, and, for the ellipsoid, invariance of L and of the constraint distribution checked
independently (own prolongation, floats at random rational points) and conservation of any
linear integral along the flow.
"""

import random

import pytest
import sympy as sp

import geomech as gm
from geomech.core.algebra import CoefficientRows, RationalAlgebra, solve_homogeneous
from geomech.core.algebra.divisibility import common_denominator
from geomech.core.algebra.linear_forms import NotLinear, linear_fraction
from geomech.core.algebra.rings import polynomial_ring
from geomech.core.budget import work_limit
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.lie.prolongation import prolong
from geomech.mechanics.analysis.ansatz import (
    coerce_ansatz,
    linear_identity_rows,
    solve_linear_identities,
)
from geomech.mechanics.analysis.noether import linear_integrals
from geomech.mechanics.analysis.symmetry import find_point_symmetries

x, y, z, k = sp.symbols("x y z k")


# ---------------------------------------------------------------------------------------------
# fractions without gcd
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("d, d2", [(x**3, x**2 * y), (x**2 * (1 + y), x * (1 + y) * y),
                                   (1 + x, 1 + y), (3 * x, x**2 * (2 + x)), (2, x * y)])
def test_common_denominator_is_a_common_multiple(d, d2):
    R = polynomial_ring([x, y])
    D, f, f2 = common_denominator(R(d), R(d2))
    assert D == f * R(d) == f2 * R(d2)
    # never more than the product, and monomial gcds are taken out
    assert D.degree(0) <= R(d).degree(0) + R(d2).degree(0)
    if R(d).is_monomial and R(d2).is_monomial:
        assert D.is_monomial


def _random_poly(alg, rng, terms=12, deg=4):
    R = alg.ring
    return R.from_dict({tuple(rng.randint(0, deg) for _ in range(R.ngens)):
                        rng.randint(-9, 9) or 1 for _ in range(terms)})


@pytest.mark.parametrize("prefer", ["sin", "cos"])
def test_one_pass_reduction_is_the_normal_form(prefer):
    """The cached one-pass normal form = one pass per relation; it is a ring map onto the
    canonical representatives (NF(pq) = NF(NF(p) NF(q))) and has degree < 2 where it must."""
    t = sp.Symbol("t")
    alg = RationalAlgebra([sp.sqrt(k + sp.sin(t) ** 2) * x + sp.cos(z) * sp.sin(t)])
    rng = random.Random(7)
    pos = [i for i, _ in alg.sqrt_rel] + [(c if prefer == "sin" else s_)
                                          for s_, c in alg.trig_idx]
    for _ in range(5):
        p, q = _random_poly(alg, rng), _random_poly(alg, rng)
        red = alg.reduce(p, prefer)
        assert red == alg._reduce_passes(p, prefer)
        assert all(m[i] < 2 for m in red.itermonoms() for i in pos)
        assert alg.reduce(p * q, prefer) == alg.reduce(red * alg.reduce(q, prefer), prefer)


EXPRS = [
    lambda a, b: a * x / sp.sqrt(1 + x**2) + b / sp.sqrt(1 + x**2) ** 3,
    lambda a, b: (a * sp.sin(z) + b * k * sp.cos(z) ** 3) / sp.sqrt(k + sp.sin(z) ** 2)
    + a * sp.cos(z) ** 2 * sp.sqrt(k + sp.sin(z) ** 2),
    lambda a, b: a * (x * y / (1 + y) + sp.sin(z) / x) + b * (1 / (x * (1 + y)) - y**2),
]


@pytest.mark.parametrize("make", EXPRS)
def test_linear_fraction_reconstructs_the_expression(make):
    a, b = sp.symbols("a b")
    e = make(a, b)
    alg = RationalAlgebra([e], exclude=[a, b])
    vec, d = linear_fraction(alg, e, [a, b])
    back = sum(c * alg.expr(vec.get(j, alg.ring.zero)) for j, c in enumerate([a, b]))
    assert default_policy().is_zero(back / alg.expr(d) - e)
    # the numerators are reduced: degree < 2 in the root generator
    for n in vec.values():
        assert all(m[0] < 2 for m in n.itermonoms()) or not alg.has_roots


def test_linear_fraction_refuses_non_linear_expressions():
    a, b = sp.symbols("a b")
    e = a * b * x + a
    alg = RationalAlgebra([e], exclude=[a, b])
    with pytest.raises(NotLinear):
        linear_fraction(alg, e, [a, b])
    with pytest.raises(NotLinear):
        linear_fraction(alg, a * x + 1, [a, b])


# ---------------------------------------------------------------------------------------------
# the two-stage solve agrees with the direct one
# ---------------------------------------------------------------------------------------------
def _radical_top():
    """A body with a square root in its kinetic energy (no constraint)."""
    N = gm.Manifold("N", "x y phi", parameters="m J a b")
    xd, yd, phid = N.velocities
    phi = N.coords[2]
    m, J, a, b = N.parameters
    L = m * (xd**2 + yd**2) / 2 + J * phid**2 / (2 * sp.sqrt(a + b * sp.cos(phi) ** 2))
    return gm.NonholonomicSystem(N, lagrangian=L)


def _constant_rank(fields, coords) -> int:
    """Dimension of the span over the constants: components at a few rational points."""
    pts = [{c: sp.Rational(3 * i + j + 1, 5 + i) for j, c in enumerate(coords)} for i in range(3)]
    rows = [[as_expr(c).xreplace(pt) for pt in pts for c in f] for f in fields]
    return default_policy().rank(sp.Matrix(rows))


def _span_equal(sols1, sols2, unknowns) -> bool:
    A = sp.Matrix([[s[c] for c in unknowns] for s in sols1])
    B = sp.Matrix([[s[c] for c in unknowns] for s in sols2])
    pol = default_policy()
    return (A.rows == B.rows and pol.rank(A) == A.rows
            and pol.rank(A.col_join(B)) == A.rows)


@pytest.mark.parametrize("make", [_radical_top, gm.examples.chaplygin_sleigh])
def test_two_stage_solve_agrees_with_the_direct_solve(make):
    S = make()
    N = S.manifold
    comps, unknowns = coerce_ansatz(S, None).template(N)
    u = N.vector_field(comps)
    lift = prolong(u)
    exprs = [lift(S.lagrangian, normalize=False)]
    exprs += [S.restricted(lift(f, normalize=False)) if hasattr(S, "restricted")
              else lift(f, normalize=False) for f in S.constraints]
    assert len(unknowns) > 8 and N.parameters          # the two-stage path is taken
    fast = solve_linear_identities(exprs, unknowns, keep=N.parameters)
    direct = solve_homogeneous(linear_identity_rows(exprs, unknowns, keep=N.parameters),
                               unknowns)
    assert _span_equal(fast, direct, unknowns)


def test_two_stage_solutions_depend_on_the_parameters():
    """Solutions rational in the parameters survive the specialisation of stage 1."""
    cs = sp.symbols("c0:10")
    e = (cs[0] * k * (sp.sin(z) ** 2 + sp.cos(z) ** 2) / sp.sqrt(1 + k * x**2)
         - cs[1] / sp.sqrt(1 + k * x**2)
         + sum(c * (x**j + k * sp.sin(z) ** j) for j, c in enumerate(cs[2:], 1)))
    e2 = cs[2] * (k - 1) * x - cs[3] * (k**2 - 1) * x + cs[4] * sp.sin(z) * x
    fast = solve_linear_identities([e, e2], cs, keep=[k])
    direct = solve_homogeneous(linear_identity_rows([e, e2], cs, keep=[k]), cs)
    assert _span_equal(fast, direct, cs) and len(fast) == 1
    (s,) = fast
    assert default_policy().is_zero(s[cs[1]] - k * s[cs[0]])


def test_radical_top_symmetries_are_the_planar_euclidean_ones():
    S = _radical_top()
    N = S.manifold
    xs, ys, _ = N.coords
    fields = find_point_symmetries(S)
    expected = [[1, 0, 0], [0, 1, 0], [ys, -xs, 0]]
    got = [list(f.components) for f in fields]
    assert len(got) == 3 and _constant_rank(got, N.coords) == 3
    assert _constant_rank(got + expected, N.coords) == 3


def test_the_rows_at_a_point_specialise_the_generic_rows():
    """``ring_linear_rows(at=p0)`` = the generic rows evaluated at ``p0`` (same solutions)."""
    from geomech.core.algebra import ring_linear_rows
    S = _radical_top()
    N = S.manifold
    comps, unknowns = coerce_ansatz(S, None).template(N)
    e = prolong(N.vector_field(comps))(S.lagrangian, normalize=False)
    pt = {p: sp.Rational(random.Random(i).randint(2, 50), 7)
          for i, p in enumerate(N.parameters)}
    at = solve_homogeneous(CoefficientRows(ring_linear_rows([e], unknowns, at=pt)), unknowns)
    gen = solve_homogeneous(CoefficientRows(ring_linear_rows([e], unknowns,
                                                             keep=N.parameters)), unknowns)
    gen_at = [{c: v.xreplace(pt) for c, v in s.items()} for s in gen]
    assert _span_equal(at, gen_at, unknowns)


# ---------------------------------------------------------------------------------------------
# the ellipsoid on a horizontal plane (Borisov & Mamaev (2015), §4.3)
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ellipsoid():
    return gm.examples.ellipsoid()


def _random_state(S, rng):
    """A random point of M: rational q, rational independent velocities, dependent ones
    from the constraints (solved numerically, floats)."""
    N = S.manifold
    q = {c: sp.Rational(rng.randint(-40, 40), 17) for c in N.coords}
    p = {c: sp.Rational(rng.randint(10, 60), 13) for c in N.parameters}
    v = {c: sp.Rational(rng.randint(-40, 40), 11) for c in N.velocities}
    dep = [w for w in N.velocities if w not in S.independent_velocities]
    eqs = [sp.N(f.xreplace({**q, **p, **{w: v[w] for w in v if w not in dep}}), 30)
           for f in S.constraints]
    sol = sp.solve(eqs, dep, dict=True)[0]
    return {**q, **p, **{w: v[w] for w in v if w not in dep}, **sol}


def _lift_value(u, f, N, pt) -> float:
    """``u~(f)`` at ``pt`` by the prolongation formula, written out here (not geomech's)."""
    q, qd = N.coords, N.velocities
    out = 0
    for ui, qi, vi in zip(u.components, q, qd):
        ui = as_expr(ui)
        out += ui * sp.diff(f, qi)
        out += sum(sp.diff(ui, qj) * vj for qj, vj in zip(q, qd)) * sp.diff(f, vi)
    return float(sp.N(out.xreplace(pt), 30))


@pytest.mark.slow
def test_ellipsoid_point_symmetries(ellipsoid):
    S = ellipsoid
    N = S.manifold
    xs, ys = N.coords[:2]
    fields = find_point_symmetries(S)
    # horizontal translations and the rotation about the vertical with the yaw shift
    expected = [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [ys, -xs, 0, 0, -1]]
    got = [list(f.components) for f in fields]
    assert len(got) == 3 and _constant_rank(got, N.coords) == 3
    assert _constant_rank(got + expected, N.coords) == 3
    rng = random.Random(4)
    for _ in range(2):
        pt = _random_state(S, rng)
        scale = 1 + abs(float(sp.N(S.lagrangian.xreplace(pt), 30)))
        for u in fields:
            assert abs(_lift_value(u, S.lagrangian, N, pt)) < 1e-12 * scale
            for f in S.constraints:        # the constraint distribution is preserved
                assert abs(_lift_value(u, f, N, pt)) < 1e-12 * scale


@pytest.mark.slow
def test_ellipsoid_linear_integrals_are_conserved(ellipsoid):
    S = ellipsoid
    found = linear_integrals(S)
    rng = random.Random(5)
    for F in found:           # none expected for a generic ellipsoid; any must be conserved
        dF = S.vector_field()(F.on_phase_space)
        for _ in range(2):
            pt = _random_state(S, rng)
            assert abs(float(sp.N(dF.xreplace(pt), 30))) < 1e-12


def _sections_within_the_limit(name: str) -> None:
    """The report's symmetry and first-integral sections (issue 13 item 6) finish (status
    "ok": within the report's analysis limit) in about a quarter of the units of work
    allowed here (budget checks: 512 and 92 today, whatever the speed of the machine) and
    find the three point symmetries."""
    from geomech.reporting.sections import ANALYSES
    S = getattr(gm.examples, name)()
    fns = dict(ANALYSES)
    out = {}
    for label, steps in (("symmetries", 2000), ("first integrals", 400)):
        with work_limit(steps, f"the {label} section"):
            out[label] = fns[label](S)
        assert out[label].status == "ok"
    assert "3 infinitesimal point symmetries" in str(out["symmetries"])


@pytest.mark.slow           # ~12 s CPU with the build of the body: over the default budget
@pytest.mark.parametrize("name", ["ellipsoid", "convex_body_on_plane"])
def test_heavy_body_symmetry_and_integral_sections_within_the_limit(name):
    _sections_within_the_limit(name)
