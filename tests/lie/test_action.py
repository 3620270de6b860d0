"""LieAlgebraAction: generators, group actions, prolongation, orbits and invariants."""

from __future__ import annotations

import itertools

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.lie.action import LieAlgebraAction
from geomech.lie.algebra import LieAlgebra
from geomech.lie.prolongation import prolong, tangent_bundle

c, s = sp.cos, sp.sin
pol = default_policy()


def _rank(funcs, coords):
    return pol.rank(sp.Matrix([[sp.diff(f, x) for x in coords] for f in funcs]))


def same_functions_up_to_dependence(found, expected, coords):
    """Both lists are independent and generate the same functions: rank(found ∪ expected)
    equals len(found) == len(expected)."""
    return (len(found) == len(expected) == _rank(found, coords) == _rank(expected, coords)
            == _rank(list(found) + list(expected), coords))


# -- prolongation ---------------------------------------------------------------------------------
def test_prolongation_formula_and_chart():
    N = Manifold("N", "q1 q2")
    q1, q2 = N.coords
    qd1, qd2 = N.velocities
    u = N.vector_field([q1 * q2, s(q1)])
    U = prolong(u)
    TN = tangent_bundle(N)
    assert U.manifold is TN and TN.coords == (q1, q2, qd1, qd2)
    expected = [q1 * q2, s(q1), q2 * qd1 + q1 * qd2, c(q1) * qd1]
    assert all(pol.is_zero(a - b) for a, b in zip(U.components, expected))


def test_prolongation_acts_on_linear_functions_as_lie_derivative():
    """ũ(f_α) = f_{L_u α} for a 1-form α (seed 000 §0, part 2 §3.1)."""
    N = Manifold("N", "x y z")
    x, y, z = N.coords
    u = N.vector_field([y * z, -x, x**2])
    alpha = N.one_form([z, x * y, s(x)])
    lie = alpha.lie_derivative(u)
    f = sum(a * v for a, v in zip(alpha.as_list(), N.velocities))
    f_lie = sum(a * v for a, v in zip(lie.as_list(), N.velocities))
    assert pol.is_zero(prolong(u)(f) - f_lie)


def _poly_strategy(n):
    @st.composite
    def poly_field(draw):
        N = CHARTS[n]
        xs = N.coords
        comps = []
        for _ in range(n):
            terms = []
            for _ in range(draw(st.integers(0, 2))):
                coef = draw(st.integers(-3, 3))
                mono = sp.Mul(*[xs[i] ** draw(st.integers(0, 2)) for i in range(n)])
                terms.append(coef * mono)
            comps.append(sp.Add(*terms))
        return N.vector_field(comps)
    return poly_field()


CHARTS = {2: Manifold("P2", "a b"), 3: Manifold("P3", "a b c")}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([2, 3]).flatmap(lambda n: st.tuples(_poly_strategy(n), _poly_strategy(n))))
def test_prolongation_is_a_homomorphism(pair):
    """[ũ, w̃] = ([u, w])~ for random polynomial fields."""
    u, w = pair
    lhs = prolong(u).bracket(prolong(w))
    rhs = prolong(u.bracket(w))
    assert lhs == rhs


# -- restriction to constraint charts ----------------------------------------------------------
def sleigh_charts():
    N = Manifold("N", "x y phi")
    x, y, phi = N.coords
    xd, yd, phid = N.velocities
    v1, om = sp.symbols("v1 omega", real=True)
    M = Manifold("M", [x, y, phi, v1, om])
    quasi = {xd: v1 * c(phi), yd: v1 * s(phi), phid: om}
    gens = [N.vector_field([1, 0, 0]), N.vector_field([0, 1, 0]), N.vector_field([-y, x, 1])]
    return N, M, quasi, gens


def test_sleigh_quasi_velocity_restriction():
    """B2: SE(2) prolonged to M = (x, y, phi, v1, omega) acts trivially on (v1, omega)."""
    N, M, quasi, gens = sleigh_charts()
    for g in gens:
        P = prolong(g, M, quasi)
        assert P.manifold is M
        assert P.components[:3] == g.components
        assert P.components[3:] == (0, 0)


def test_restriction_with_dependent_velocity_agrees_with_tn():
    """Chart (x, y, phi, xdot, phidot) with ydot = xdot tan(phi): the restricted lift has the
    components of ũ on TN with ydot substituted, and tangency holds for SE(2)."""
    N, _, _, gens = sleigh_charts()
    x, y, phi = N.coords
    xd, yd, phid = N.velocities
    P = Manifold("P", [x, y, phi, xd, phid])
    dep = {yd: xd * s(phi) / c(phi)}
    for g in gens:
        r = prolong(g, P, dep)
        full = prolong(g)
        sub = [e.xreplace(dep) for e in full.components]
        TN = full.manifold
        for sym in P.coords:
            assert pol.is_zero(r.components[P.index(sym)] - sub[TN.index(sym)])
        # tangency: ũ(ydot - xdot tan phi) vanishes on the constraint
        assert pol.is_zero(full(yd - dep[yd]).xreplace(dep))


def test_restriction_not_tangent_raises():
    N, M, quasi, _ = sleigh_charts()
    # rotating the heading alone does not preserve the knife-edge constraint
    with pytest.raises(ValueError, match="not tangent"):
        prolong(N.vector_field([0, 0, 1]), M, quasi)
    with pytest.raises(ValueError, match="neither a coordinate"):
        prolong(N.vector_field([1, 0, 0]), M, {})


# -- invariants -------------------------------------------------------------------------------
def test_sleigh_invariants_are_v1_omega():
    """B2.5: invariants of the prolonged SE(2) action on (x, y, phi, v1, omega) are (v1, omega)."""
    N, M, quasi, gens = sleigh_charts()
    act = LieAlgebraAction(N, gens, names=["ux", "uy", "urot"]).prolong(M, quasi)
    inv = act.invariants()
    assert act.orbit_dimension() == 3
    assert len(inv) == M.dim - act.orbit_dimension() == 2
    for f in inv:
        assert act.is_invariant(f)
    v1, om = M.coords[3:]
    assert same_functions_up_to_dependence(inv, [v1, om], M.coords)


def test_so3_on_ts2_has_one_invariant():
    """B7: SO(3) acting on TS^2: generic orbits of dimension 3, one invariant (xdot, xdot)."""
    S2 = Manifold("S2", "theta phi")
    th, ph = S2.coords
    Lx = S2.vector_field([-s(ph), -c(th) / s(th) * c(ph)])
    Ly = S2.vector_field([c(ph), -c(th) / s(th) * s(ph)])
    Lz = S2.vector_field([0, 1])
    act = LieAlgebraAction(S2, [Lx, Ly, Lz])
    assert act.algebra.satisfies_jacobi() and not act.algebra.is_solvable()
    assert act.orbit_dimension() == 2
    lifted = act.prolong()
    thd, phd = S2.velocities
    assert lifted.orbit_dimension() == 3
    # the zero section is a singular orbit of dimension 2
    assert lifted.orbit_dimension({th: sp.Rational(1, 3), ph: 2, thd: 0, phd: 0}) == 2
    inv = lifted.invariants()
    assert len(inv) == 4 - 3 == 1
    kinetic = thd**2 + s(th)**2 * phd**2          # (xdot, xdot) in spherical coordinates
    assert lifted.is_invariant(kinetic)
    assert same_functions_up_to_dependence(inv, [kinetic], lifted.manifold.coords)


def test_so3_on_tr3_invariants():
    """Prolonged rotations of R^3: invariants |x|^2, (x, xdot), |xdot|^2 (6 - 3 = 3)."""
    R3 = Manifold("R3", "x y z")
    x, y, z = R3.coords
    act = LieAlgebraAction(R3, [[0, -z, y], [z, 0, -x], [-y, x, 0]])
    lifted = act.prolong()
    xd, yd, zd = R3.velocities
    inv = lifted.invariants()
    expected = [x**2 + y**2 + z**2, x * xd + y * yd + z * zd, xd**2 + yd**2 + zd**2]
    assert same_functions_up_to_dependence(inv, expected, lifted.manifold.coords)


def test_orbit_dimension_at_points():
    R3 = Manifold("R3", "x y z")
    x, y, z = R3.coords
    act = LieAlgebraAction(R3, [[0, -z, y], [z, 0, -x], [-y, x, 0]])
    assert act.orbit_dimension() == 2
    assert not act.is_locally_free()
    assert act.orbit_dimension({x: 0, y: 0, z: 0}) == 0
    assert act.orbit_dimension({x: 1, y: 2, z: 3}) == 2


# -- group actions and relations ----------------------------------------------------------------
def se2_on_plane():
    M = Manifold("R2", "x y")
    formula = ["cos(th)*x - sin(th)*y + a", "sin(th)*x + cos(th)*y + b"]
    return M, formula


def test_group_action_generators_satisfy_se2_relations():
    M, formula = se2_on_plane()
    x, y = M.coords
    act = LieAlgebraAction.from_group_action(M, formula, "th a b", algebra=LieAlgebra.se(2))
    J, P1, P2 = act.generators
    assert J == M.vector_field([-y, x]) and P1 == M.vector_field([1, 0])
    assert P2 == M.vector_field([0, 1])
    assert act.sign == -1
    # the relations of se(2), realised anti-homomorphically (left action)
    g = LieAlgebra.se(2)
    for i, j in itertools.combinations(range(3), 2):
        lhs = act.generators[i].bracket(act.generators[j])
        assert lhs == -act.generator(g.bracket(i, j))
    assert act.orbit_dimension() == 2


def test_group_action_wrong_relations_raise():
    M, formula = se2_on_plane()
    with pytest.raises(ValueError, match="opposite sign"):
        LieAlgebraAction.from_group_action(M, formula, "th a b", algebra=LieAlgebra.se(2),
                                           action="right")
    with pytest.raises(ValueError, match="do not satisfy"):
        LieAlgebraAction.from_group_action(M, formula, "th a b", algebra=LieAlgebra.heisenberg())
    with pytest.raises(ValueError, match="generators given"):
        LieAlgebraAction.from_group_action(M, formula, "th a b", algebra=LieAlgebra.so(4))
    with pytest.raises(ValueError, match="not the identity"):
        LieAlgebraAction.from_group_action(M, ["x + 1 + a", "y"], "a")


def test_action_without_algebra_infers_it():
    M, formula = se2_on_plane()
    act = LieAlgebraAction.from_group_action(M, formula, "th a b")
    assert act.algebra.is_solvable() and act.algebra.dim == 3
    assert [d.dim for d in act.algebra.derived_series()] == [3, 2, 0]


def test_generators_that_do_not_close_raise():
    M = Manifold("M", "x y")
    x, y = M.coords
    with pytest.raises(ValueError, match="do not form a Lie algebra"):
        LieAlgebraAction(M, [[1, 0], [0, x]])
    with pytest.raises(TypeError):
        LieAlgebraAction(M, [[1, 0]], algebra="se(2)")


def test_invariant_count_is_checked(monkeypatch):
    """A wrong answer of the first-integral search is caught (count dim - orbit dim, u(f) = 0)."""
    from geomech.lie import distribution
    from geomech.lie.orbits import InvariantsNotFound

    R3 = Manifold("R3", "x y z")
    x, y, z = R3.coords
    act = LieAlgebraAction(R3, [[-y, x, 0]])
    monkeypatch.setattr(distribution.Distribution, "first_integrals",
                        lambda self, max_degree=4: [z])
    with pytest.raises(InvariantsNotFound, match="expected 2"):
        act.invariants()
    monkeypatch.setattr(distribution.Distribution, "first_integrals",
                        lambda self, max_degree=4: [z, x])
    with pytest.raises(InvariantsNotFound, match=r"u1\(x\)"):
        act.invariants()


# -- the one tangent lift ------------------------------------------------------------------
_LIFT_N = Manifold("LiftN", "a b c")


@st.composite
def _lift_components(draw):
    q = _LIFT_N.coords
    terms = st.tuples(st.integers(-3, 3), st.sampled_from(q), st.integers(0, 3),
                      st.sampled_from([1, sp.sin(q[0]), sp.cos(q[1]), sp.exp(q[2])]))
    return [sp.Add(*[k * x**e * f for k, x, e, f in draw(st.lists(terms, max_size=3))])
            for _ in q]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_lift_components())
def test_every_tangent_lift_is_the_jacobian_formula(comps):
    r"""The lift (``prolong``), read as components and applied as a derivation to the
    velocities (as the analyses use it), is the one formula
    :math:`\dot u_i = \sum_j \partial_j u_i\,\dot q_j`, computed here independently."""
    u = _LIFT_N.vector_field(comps)
    q, qd = _LIFT_N.coords, _LIFT_N.velocities
    jac = [sp.Add(*[sp.diff(c, x) * v for x, v in zip(q, qd)]) for c in comps]
    lie = prolong(u).components[3:]
    ana = [prolong(u)(v, normalize=False) for v in qd]
    pol = default_policy()
    assert all(pol.is_zero(a - j) and pol.is_zero(b - j) for a, b, j in zip(lie, ana, jac))
