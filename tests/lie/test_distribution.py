"""Distribution: ranks, singular locus, Frobenius, Lie flag / growth vectors of the spec systems,
annihilators, first integrals, invariance; property tests."""

from __future__ import annotations

import itertools

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.core.budget import work_limit
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.lie.distribution import Distribution, NotFoundError
from geomech.lie.flags import FrobeniusResult
from geomech.lie.graph import BracketGraph

from .conftest import (
    ball_frames,
    chaplygin_ball_b3,
    chart,
    fields,
    heisenberg,
    rolling_disk_frame,
    rubber_ball_constraints,
    sleigh_frame,
)

#: files, pipes and worker processes are closed (tests/conftest.py)
pytestmark = pytest.mark.no_leaks

pol = default_policy()


def _forms_say_involutive(D: Distribution) -> bool:
    """Dual Frobenius test (seed 000, A2): d theta^j ^ theta^1 ^ ... ^ theta^m = 0."""
    thetas = D.annihilator()
    if not thetas:
        return True
    top = thetas[0]
    for t in thetas[1:]:
        top = top.wedge(t)
    return all(t.d().wedge(top).is_zero() for t in thetas)


def _same_span(D1: Distribution, D2: Distribution) -> bool:
    return D1.rank == D2.rank and all(D1.contains(X) for X in D2.fields) and \
        all(D2.contains(X) for X in D1.fields)


# -- growth vectors of the spec (B2, B3, B5, seeds_001_004 E1.2) --------------------------------
def _growth_within(D: Distribution, steps: int):
    """The growth vector, computed within ``steps`` units of work of the engine (budget
    checks; about four times what it takes today: a regression that recomputes brackets or
    normal forms exceeds it, whatever the speed of the machine)."""
    with work_limit(steps, "growth vector"):
        return D.growth_vector()


def test_chaplygin_sleigh_growth_vector_and_frame():
    N, tau1, tau2, a_field = sleigh_frame()
    D = Distribution([tau1, tau2], graph=BracketGraph(N), names=["tau1", "tau2"])
    gv = _growth_within(D, 30)
    assert gv == (2, 3)                                        # B2 oracle 1
    flag = D.derived_flag()
    assert [F.rank for F in flag] == [2, 3]
    assert flag[1].keys == ["tau1", "tau2", "[tau1,tau2]"]
    assert D.graph.value("[tau1,tau2]") == -a_field            # B2 oracle 2
    assert "tau2 = d/dphi" in D.graph.provenance(flag[1].keys[-1])
    fr = D.frobenius()
    assert isinstance(fr, FrobeniusResult) and not fr and fr.offending == "[tau1,tau2]"
    assert fr.bracket == -a_field
    assert not _forms_say_involutive(D)
    assert D.is_bracket_generating()


def test_chaplygin_ball_growth_vector_two_derivations():
    # B3 kinematics with r = -R gamma (balanced ball), one field per body omega component
    N, frame = chaplygin_ball_b3()
    D = Distribution(frame)
    gv = _growth_within(D, 50)
    assert gv == (3, 5)                                        # B3 oracle 4
    # B5 E-frame with E_z (no slip only): same growth vector; both are the same distribution
    # up to the chart: same annihilator shape (2 forms)
    Nb, (Ex, Ey, Ez), _, rubber = ball_frames()
    Db = Distribution([*rubber, Ez])
    assert Db.growth_vector() == (3, 5)                        # B5 oracle 5
    assert len(D.annihilator()) == len(Db.annihilator()) == 2
    # the rolling constraint forms of B5 annihilate the B3 frame after renaming the radius
    a = Nb.parameters[0]
    forms = rubber_ball_constraints(Nb)[:2]
    rename = dict(zip(N.coords, Nb.coords)) | {N.parameters[0]: a}
    for X in frame:
        Y = Nb.vector_field([comp.xreplace(rename) for comp in X.components])
        assert all(pol.is_zero(w(Y)) for w in forms)


def test_rubber_ball_growth_vector_and_constraint_forms():
    N, _, (u1, u2, u3), rubber = ball_frames()
    D = Distribution(list(rubber), names=["Xr1", "Xr2"])
    gv = _growth_within(D, 50)
    assert gv == (2, 3, 5)                                     # B5 oracle 5
    flag = D.derived_flag()
    assert [len(F.keys) for F in flag] == [2, 3, 5]
    assert flag[2].keys[3:] == ["[Xr1,[Xr1,Xr2]]", "[Xr2,[Xr1,Xr2]]"]
    new = D.new_directions()
    assert [w for w, _ in new] == ["[Xr1,Xr2]", "[Xr1,[Xr1,Xr2]]", "[Xr2,[Xr1,Xr2]]"]
    assert new[0][1].startswith("step 2:") and new[2][1].startswith("step 3:")
    assert "Xr1 = " in new[2][1]
    # the same distribution from the Pfaffian constraints (4.30)-(4.31)
    K = Distribution.annihilator(rubber_ball_constraints(N))
    assert K.rank == 2 and _same_span(K, D)
    assert K.growth_vector() == (2, 3, 5)
    # so(3) symmetry fields preserve the distribution ([E_mu, u_i] = 0): Prop. 1
    assert all(D.is_invariant_under(u) for u in (u1, u2, u3))
    assert not D.is_invariant_under(N.vector_field([N.coords[0], 0, 0, 0, 0]))


def test_rolling_disk_growth_vector():
    N, frame = rolling_disk_frame()
    D = Distribution(list(frame), names=["Vth", "Vps", "Vph"])
    gv = _growth_within(D, 75)
    # [V_psi, V_phi] = a sin(psi) dx - a cos(psi) dy is new; [V_psi, [V_psi, V_phi]] completes
    assert gv == (3, 4, 5)
    assert D.frobenius().offending == "[Vps,Vph]"
    assert D.derived_flag()[1].keys[-1] == "[Vps,Vph]"
    # the same distribution from the contact constraints of E1.2 (x, y dependent)
    x, y, th, ps, ph = N.coords
    a = N.parameters[0]
    s, c = sp.sin, sp.cos
    K = Distribution.annihilator([
        N.one_form([1, 0, -a * s(ps) * s(th), a * c(ps) * c(th), a * c(ps)]),
        N.one_form([0, 1, a * c(ps) * s(th), a * s(ps) * c(th), a * s(ps)])])
    assert K.rank == 3 and _same_span(K, D) and K.growth_vector() == (3, 4, 5)


def test_heisenberg_distribution():
    M, X, Y = heisenberg()
    D = Distribution([X, Y])
    assert D.growth_vector() == (2, 3) and not D.is_involutive()
    x, y, z = M.coords
    theta = D.annihilator()
    assert len(theta) == 1
    assert all(pol.is_zero(theta[0](F)) for F in (X, Y))
    assert not theta[0].wedge(theta[0].d()).is_zero()          # contact form
    assert D.first_integrals() == []                           # bracket generating


@pytest.mark.parametrize("basis", ["lyndon", "right-normed"])
def test_flags_in_other_bases_agree_with_hall(basis):
    for make in (lambda: ball_frames()[3], lambda: rolling_disk_frame()[1]):
        frame = list(make())
        D = Distribution(frame)
        assert D.growth_vector(basis=basis) == D.growth_vector()
        for F1, F2 in zip(D.derived_flag(basis=basis), D.derived_flag()):
            assert _same_span(F1, F2)


def test_derived_flag_agrees_with_the_lie_flag_on_the_spec_systems():
    """A19: the derived flag D^(j+1) = D^j + [D^j, D^j] agrees for every example."""
    systems = [list(sleigh_frame()[1:3]), list(ball_frames()[3]),
               chaplygin_ball_b3()[1], list(rolling_disk_frame()[1])]
    for frame in systems:
        D = Distribution(frame)
        assert D.growth_vector(flag="derived") == D.growth_vector()
    with pytest.raises(ValueError, match="flag"):
        D.growth_vector(flag="upper central")


def _literal_derived_ranks(comps: list, coords) -> tuple[int, ...]:
    """Ranks of D^(j+1) = D^(j) + [D^(j), D^(j)] with plain sympy: brackets from Jacobians,
    a basis of each member from the pivots of ``rref``."""
    X = sp.Matrix(coords)
    vals = [sp.Matrix(c) for c in comps]
    ranks: list[int] = []
    while True:
        _, piv = sp.Matrix.hstack(*vals).rref(simplify=True)
        vals = [vals[i] for i in piv]
        if ranks and len(piv) == ranks[-1]:
            return tuple(ranks)
        ranks.append(len(piv))
        if len(piv) == len(coords):
            return tuple(ranks)
        vals = vals + [b.jacobian(X) * a - a.jacobian(X) * b
                       for a, b in itertools.combinations(vals, 2)]


@pytest.mark.parametrize("name, comps, derived, lie", [
    # chain on R^6: [X1,X2] = d3, [X2,d3] = -d4, [X2,d4] = -d5, [X2,d5] = -d6
    ("chain R^6", lambda x: [[1, 0, 0, 0, 0, 0], [0, 1, x[0], x[2], x[3], x[4]]],
     (2, 3, 4, 5, 6), (2, 3, 4, 5, 6)),
    # Engel: [X1,X2] = d3, [X2,d3] = -d4
    ("Engel", lambda x: [[1, 0, 0, 0], [0, 1, x[0], x[2]]], (2, 3, 4), (2, 3, 4)),
    # Hilbert-Cartan (2,3,5): [X1,X2] = d3 + x1 d5, [X1,[X1,X2]] = d5, [X2,[X1,X2]] = -d4
    ("Cartan", lambda x: [[1, 0, 0, 0, 0], [0, 1, x[0], x[2], x[0] ** 2 / 2]],
     (2, 3, 5), (2, 3, 5)),
    # rank 3 on R^5: [X1,X2] = d4, [X2,X3] = x1 d5 -> bracket generating in one step
    ("rank 3", lambda x: [[1, 0, 0, 0, 0], [0, 1, 0, x[0], 0], [0, 0, 1, 0, x[3]]],
     (3, 5), (3, 5)),
])
def test_derived_and_lie_flags_against_hand_computed_answers(name, comps, derived, lie):
    n = derived[-1]                      # all four are bracket generating
    M = Manifold(f"R{n}_{name.split()[0]}", [f"x{i + 1}" for i in range(n)])
    cs = comps(M.coords)
    D = Distribution([M.vector_field(c) for c in cs])
    gd, gl = D.growth_vector(flag="derived"), D.growth_vector()
    assert (gd, gl) == (derived, lie)
    assert gd.certain and gl.certain
    assert _literal_derived_ranks(cs, M.coords) == derived
    assert [F.rank for F in D.derived_flag(flag="derived")] == list(derived)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.just(3).flatmap(lambda n: st.tuples(st.just(n), fields(n, trig=False),
                                              fields(n, trig=False))))
def test_derived_flag_is_sandwiched_by_the_lie_flag(data):
    r"""D^{j+1} \subset D^{(j)} \subset D^{2^j}: the derived ranks lie between Lie ranks, both
    flags end at the same rank, and the ranks are those of the literal derived flag."""
    n, X, Y = data
    if X.is_zero() or Y.is_zero():
        return
    D = Distribution([X, Y], graph=BracketGraph(chart(n)))
    gd, gl = D.growth_vector(flag="derived"), D.growth_vector()
    assert gd[-1] == gl[-1] and gd[:2] == gl[:2]
    for j, r in enumerate(gd):
        assert gl[min(j, len(gl) - 1)] <= r <= gl[min(2 ** j - 1, len(gl) - 1)]
    assert gd == _literal_derived_ranks([X.components, Y.components], chart(n).coords)


def test_growth_vector_is_memoised_through_the_graph():
    N, frame = rolling_disk_frame()
    G = BracketGraph(N)
    D = Distribution(list(frame), graph=G)
    D.growth_vector()
    computed = G.stats["computed"]
    # a second distribution with the same fields asks the same graph: nothing recomputed
    D2 = Distribution(list(frame), graph=G)
    assert D2.growth_vector() == (3, 4, 5)
    assert G.stats["computed"] == computed


def test_process_executor_gives_the_same_flag():
    N, frame = rolling_disk_frame()
    D1 = Distribution(list(frame), graph=BracketGraph(N))
    D2 = Distribution(list(frame), graph=BracketGraph(N))
    assert D1.growth_vector() == D2.growth_vector(executor="process") == (3, 4, 5)
    for F1, F2 in zip(D1.derived_flag(), D2.derived_flag(executor="process")):
        assert [X.components for X in F1.fields] == [X.components for X in F2.fields]


# -- rank, rank at a point, singular locus ---------------------------------------------------
def test_rank_at_and_singular_locus():
    M = Manifold("R3rot", "x y z")
    x, y, z = M.coords
    D = Distribution([M.vector_field([-y, x, 0])])
    assert D.rank == 1
    assert D.singular_locus() == [x, y]
    assert D.rank_at({x: 0, y: 0, z: 5}) == 0 and D.rank_at({"x": 1, "y": 2, "z": 0}) == 1
    # rank-2 distribution dropping rank on a cone: span{dz, x dx + y dy + 0 dz, ...}
    D2 = Distribution([M.vector_field([1, 0, 0]), M.vector_field([0, x, y])])
    locus = D2.singular_locus()
    assert locus == [x, y]
    assert D2.rank_at({x: 0, y: 0, z: 1}) == 1 and D2.rank_at({x: 0, y: 1, z: 1}) == 2
    # the sleigh distribution has constant rank: cos(phi) = sin(phi) = 0 has no solution
    N, tau1, tau2, _ = sleigh_frame()
    Ds = Distribution([tau1, tau2])
    assert Ds.singular_locus() == []
    assert Ds.rank_at({"x": 0, "y": 0, "phi": 0}) == 2


def test_rank_at_rejects_undefined_points():
    N, _, _, rubber = ball_frames()
    D = Distribution(list(rubber))
    with pytest.raises(ValueError, match="not defined"):
        D.rank_at({"x": 0, "y": 0, "theta": 0, "phi": 0, "psi": 0})
    with pytest.raises(ValueError, match="not a coordinate"):
        D.rank_at({"w": 1})
    assert D.rank_at({"x": 0, "y": 0, "theta": sp.pi / 2, "phi": 0, "psi": 0, "a": 1}) == 2


def test_generic_rank_of_dependent_generators_is_exact():
    M = Manifold("R3dep", "x y z")
    x, y, z = M.coords
    X = M.vector_field([sp.sin(z), x, 1])
    Y = M.vector_field([y, 0, x])
    D = Distribution([X, Y, (x**2 + 1) * X - sp.cos(z) * Y])
    assert D.rank == 2 and len(D.basis()) == 2
    assert D.contains(X + Y) and not D.contains(M.vector_field([0, 0, 1]))


# -- Frobenius and first integrals -----------------------------------------------------------
def test_rotation_field_first_integral():
    M = Manifold("R2rot", "x y")
    x, y = M.coords
    R = M.vector_field([-y, x])
    D = Distribution([R])
    assert D.is_involutive() and D.growth_vector() == (1,)
    (f,) = D.first_integrals()
    assert pol.is_zero(R(f))
    assert sp.Poly(f, x, y).total_degree() == 2
    assert pol.is_zero(sp.diff(f, x) * y - sp.diff(f, y) * x)   # f is a function of r^2
    assert f.subs({x: 1, y: 0}) != 0


def _check_integrals(D: Distribution, ints, expected: int):
    M = D.manifold
    assert len(ints) == expected
    for f in ints:
        for X in D.fields:
            assert pol.is_zero(X(f))
    J = sp.Matrix([[sp.diff(f, c) for c in M.coords] for f in ints])
    assert pol.rank(J) == expected


def test_involutive_rank2_distributions_on_r4():
    M = Manifold("R4inv", "x y z w")
    x, y, z, w = M.coords
    # graph of z = xy moved along w: [X1, X2] = 0
    D = Distribution([M.vector_field([1, 0, y, 0]), M.vector_field([0, 1, x, 0])])
    assert D.is_involutive() and _forms_say_involutive(D)
    ints = D.first_integrals()
    _check_integrals(D, ints, 2)
    assert w in ints
    # non-commuting involutive pair: rotation and dilation in the (x, y) plane, plus a
    # rotation in (z, w): [R, E] = 0 but the leaves are 3-dimensional with 1 integral
    D3 = Distribution([M.vector_field([-y, x, 0, 0]), M.vector_field([x, y, 0, 0]),
                       M.vector_field([0, 0, -w, z])])
    assert D3.rank == 3 and D3.is_involutive()
    _check_integrals(D3, D3.first_integrals(), 1)
    # so(3) acting on R^3 (orbits = spheres) times a line: rank 2, integrals r^2 and w
    so3 = Distribution([M.vector_field([0, -z, y, 0]), M.vector_field([z, 0, -x, 0]),
                        M.vector_field([-y, x, 0, 0])])
    assert so3.rank == 2 and so3.is_involutive() and _forms_say_involutive(so3)
    ints = so3.first_integrals()
    _check_integrals(so3, ints, 2)
    assert sp.expand(x**2 + y**2 + z**2) in ints


def test_first_integrals_with_trigonometric_ansatz():
    N, tau1, tau2, _ = sleigh_frame()
    x, y, phi = N.coords
    D = Distribution([tau1])                                 # one blade direction
    ints = D.first_integrals()
    _check_integrals(D, ints, 2)
    assert phi in ints
    # the SE(2)-rotation field needs trig in phi although phi is not inside a sin/cos
    Rot = Distribution([N.vector_field([-y, x, 1])])
    ints = Rot.first_integrals()
    _check_integrals(Rot, ints, 2)
    assert Rot.first_integrals(trig=[phi]) == ints
    assert any(f.has(sp.sin(phi)) for f in ints)
    # the prolonged SE(2) action on the sleigh phase space (x, y, phi, v1, omega): B2.5
    P = Manifold("P_sleigh", "x y phi v1 omega")
    x, y, phi, v1, om = P.coords
    orbits = Distribution([P.vector_field([1, 0, 0, 0, 0]), P.vector_field([0, 1, 0, 0, 0]),
                           P.vector_field([-y, x, 1, 0, 0])])
    assert orbits.rank == 3 and orbits.is_involutive()
    assert orbits.first_integrals() == [v1, om]


def test_first_integrals_not_found_is_a_clear_error():
    M = Manifold("R3nf", "x y z")
    x, y, z = M.coords
    # z exp(-x) is elementary; the second integral involves erf
    D = Distribution([M.vector_field([1, x * y + z, z])])
    with pytest.raises(NotFoundError) as err:
        D.first_integrals()
    assert isinstance(err.value, ValueError) and "found 1 of the 2" in str(err.value)
    assert err.value.expected == 2 and len(err.value.partial) == 1
    assert pol.is_zero(D.fields[0](err.value.partial[0]))
    assert D.first_integrals(complete=False) == err.value.partial
    # user-supplied candidates are verified: right ones are used, wrong ones never returned
    E = Distribution([M.vector_field([1, y, 1])])            # integrals z - x, y exp(-x)
    ints = E.first_integrals(candidates=[y * sp.exp(-x), y * sp.exp(x), x + z])
    _check_integrals(E, ints, 2)
    assert ints[0] == y * sp.exp(-x) and y * sp.exp(x) not in ints and x + z not in ints


def test_first_integrals_by_characteristics():
    M = Manifold("R2char", "x y")
    x, y = M.coords
    D = Distribution([M.vector_field([1, y])])               # y' = y: y exp(-x)
    (f,) = D.first_integrals()
    assert pol.is_zero(D.fields[0](f)) and (f.has(sp.exp) or f.has(sp.log))


def test_frobenius_dual_form_agrees_on_spec_systems():
    for frame in (list(ball_frames()[3]), list(rolling_disk_frame()[1]),
                  list(sleigh_frame()[1:3])):
        D = Distribution(frame)
        assert D.is_involutive() == _forms_say_involutive(D) is False
    N, _, (u1, u2, u3), _ = ball_frames()
    orbits = Distribution([u1, u2, u3])                     # SO(3) orbits: involutive
    assert orbits.rank == 3 and orbits.is_involutive() and _forms_say_involutive(orbits)


# -- annihilators ----------------------------------------------------------------------------
def test_annihilator_round_trip():
    N, tau1, tau2, a_field = sleigh_frame()
    x, y, phi = N.coords
    D = Distribution([tau1, tau2])
    (theta,) = D.annihilator()
    assert pol.is_zero(theta(tau1)) and pol.is_zero(theta(tau2))
    assert not pol.is_zero(theta(a_field))
    # from the constraint (3.13): f = -xdot sin(phi) + ydot cos(phi)
    K = Distribution.annihilator([N.one_form([-sp.sin(phi), sp.cos(phi), 0])])
    assert K.rank == 2 and _same_span(K, D) and K.growth_vector() == (2, 3)
    # several forms: intersection of kernels
    N2, frame = rolling_disk_frame()
    Dd = Distribution(list(frame))
    forms = Dd.annihilator()
    assert len(forms) == 2
    assert _same_span(Distribution.annihilator(forms), Dd)


# -- property tests ----------------------------------------------------------------------------
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(st.just(n), fields(n, trig=False),
                                                     fields(n, trig=False))))
def test_hall_pruning_gives_the_same_flag(data):
    n, X, Y = data
    if X.is_zero() and Y.is_zero():
        return
    D = Distribution([X, Y], graph=BracketGraph(chart(n)))
    gv = D.growth_vector(max_depth=3)
    assert gv == D.growth_vector(basis="right-normed", max_depth=3)
    # the ranks are those of the literal flag computed with plain sympy matrices
    vals = [X, Y]
    for k, r in enumerate(gv):
        if k:
            vals = vals + [A.bracket(B) for A in (X, Y) for B in vals]
        m = sp.Matrix(n, len(vals), lambda i, j: vals[j].components[i])
        assert pol.rank(m) == r


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 3).flatmap(lambda n: st.tuples(st.just(n), fields(n), fields(n))))
def test_annihilator_annihilates_and_has_the_right_size(data):
    n, X, Y = data
    D = Distribution([X, Y], graph=BracketGraph(chart(n)))
    forms = D.annihilator()
    assert len(forms) == n - D.rank
    for w in forms:
        assert pol.is_zero(w(X)) and pol.is_zero(w(Y))


# -- bad input ----------------------------------------------------------------------------------
def test_bad_input():
    N, tau1, tau2, _ = sleigh_frame()
    other = Manifold("Other2", "u v w")
    with pytest.raises(ValueError, match="empty"):
        Distribution([])
    with pytest.raises(TypeError, match="not a VectorField"):
        Distribution([tau1, "d/dx"])
    with pytest.raises(ValueError, match="one manifold"):
        Distribution([tau1, other.vector_field([1, 0, 0])])
    with pytest.raises(ValueError, match="graph"):
        Distribution([tau1], graph=BracketGraph(other))
    with pytest.raises(ValueError, match="names"):
        Distribution([tau1, tau2], names=["a"])
    with pytest.raises(ValueError, match="empty"):
        Distribution.annihilator([])
    with pytest.raises(ValueError, match="degree 2"):
        Distribution.annihilator([N.form(2, {(0, 1): 1})])
    with pytest.raises(TypeError, match="DifferentialForm"):
        Distribution.annihilator([tau1])
    D = Distribution([tau1, tau2])
    with pytest.raises(TypeError, match="VectorField"):
        D.contains(N.one_form([1, 0, 0]))
    with pytest.raises(ValueError, match="Other2"):
        D.is_invariant_under(other.vector_field([1, 0, 0]))
    with pytest.raises(ValueError, match="max_degree"):
        Distribution([tau1]).first_integrals(max_degree=0)
    assert isinstance(D.fields[0], VectorField)


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 3).flatmap(lambda n: st.tuples(st.just(n), fields(n, trig=False))))
def test_returned_first_integrals_are_always_verified(data):
    """Whatever the search returns (complete or not) is a set of independent integrals."""
    n, X = data
    if X.is_zero():
        return
    D = Distribution([X], graph=BracketGraph(chart(n)))
    ints = D.first_integrals(max_degree=2, complete=False)
    assert len(ints) <= n - D.growth_vector()[-1]
    for f in ints:
        assert pol.is_zero(X(f))
    if ints:
        J = sp.Matrix([[sp.diff(f, c) for c in chart(n).coords] for f in ints])
        assert pol.rank(J) == len(ints)


def test_a_copied_span_grows_as_a_fresh_one():
    """The Lie flag starts from a copy of the distribution's span: growing the copy gives the
    keys of a span built afresh from the generators, and leaves the original as it was
    (the rolling disk: generators, then their brackets)."""
    import geomech as gm
    from geomech.lie.span import Evaluator, Span

    S = gm.examples.rolling_disk()
    X = list(S.adapted_frame()[0])
    gens = [(f"X{i}", f) for i, f in enumerate(X)]
    brackets = [(f"[X{i},X{j}]", X[i].bracket(X[j]))
                for i, j in itertools.combinations(range(len(X)), 2)]
    ev = Evaluator()
    span = Span(S.manifold.dim, ev)
    span.extend(gens)
    copy = span.copy()
    copy.extend(brackets)
    fresh = Span(S.manifold.dim, ev)
    fresh.extend(gens)
    fresh.extend(brackets)
    assert copy.keys == fresh.keys and copy.rank > span.rank == len(X)
    assert span.keys == [k for k, _ in gens]
