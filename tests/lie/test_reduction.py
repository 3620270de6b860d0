"""Reduction to orbit space and Lie's reconstruction by quadratures (seed 000 A1-A12, B)."""

from __future__ import annotations

import random

import pytest
import sympy as sp

from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.lie.action import LieAlgebraAction
from geomech.lie.prolongation import prolong
from geomech.lie.reduction import reconstruct, reduce

c, s = sp.cos, sp.sin
pol = default_policy()


# -- B1: ball rolling on a surface of revolution, centre on a paraboloid ----------------------
def ball_on_paraboloid():
    """System (2.7) on M^5 = (x1, x2, w1, w2, w3), symmetry (2.8), invariants Z1..Z4, Y1."""
    M = Manifold("M5", "x1 x2 w1 w2 w3", parameters="m R I c mu")
    x1, x2, w1, w2, w3 = M.coords
    m, R, I, cc, mu = M.parameters
    root = sp.sqrt(1 + cc**2 * (x1**2 + x2**2))
    n = sp.Matrix([-cc * x1, -cc * x2, 1]) / root
    w = sp.Matrix([w1, w2, w3])
    rdot = R * w.cross(n)
    ndot = n.diff(x1) * rdot[0] + n.diff(x2) * rdot[1]
    wdot = (m * R**2 * w.dot(n) * ndot - mu * R * n.cross(sp.Matrix([0, 0, 1]))) / (I + m * R**2)
    V = M.vector_field([rdot[0], rdot[1], *wdot])
    u = M.vector_field([-x2, x1, -w2, w1, 0])
    Z = [cc * R * w3, cc * R * (cc * (w1 * x1 + w2 * x2) - w3),
         cc**2 * R * (w2 * x1 - w1 * x2) / root, cc**2 * (x1**2 + x2**2)]
    Y1 = sp.atan2(x2, x1)
    return M, V, u, Z, Y1


def system_29(Z1, Z2, Z3, Z4, M):
    m, R, I, cc, mu = M.parameters
    tau = m * R**2 / (I + m * R**2)
    kap = mu * cc * R**2 / (I + m * R**2)
    return [tau * Z2 * Z3 / (1 + Z4)**2,
            -Z1 * Z3,
            Z3**2 / (Z4 * (1 + Z4)) + (Z1 + Z2)**2 / (Z4 * (1 + Z4)) + Z1 * (Z1 + Z2) / (1 + Z4)
            - tau * Z2 * (Z1 * (1 + Z4) + Z2) / (1 + Z4)**2 - kap * Z4 / (1 + Z4),
            2 * Z3]


def test_b1_symmetry_and_invariants():
    """B1 oracles 1-2: [u, V] = 0, u(Z_i) = 0, u(Y1) = 1, rank d(Z, Y1) = 5."""
    M, V, u, Z, Y1 = ball_on_paraboloid()
    assert u.bracket(V).is_zero()
    for z in Z:
        assert pol.is_zero(u(z))
    assert pol.is_zero(u(Y1) - 1)
    jac = sp.Matrix([[sp.diff(f, x) for x in M.coords] for f in [*Z, Y1]])
    assert pol.rank(jac) == 5
    act = LieAlgebraAction(M, [u])
    assert all(act.is_invariant(z) for z in Z)
    assert act.orbit_dimension() == 1


def test_b1_reduction_gives_29():
    """B1 oracle 3: pushing V_(2.7) forward by (Z1..Z4) gives exactly (2.9)."""
    M, V, u, Z, _ = ball_on_paraboloid()
    red = reduce(V, symmetries=[u], invariants=Z, names=["Z1", "Z2", "Z3", "Z4"])
    Zs = red.manifold.coords
    assert [str(z) for z in Zs] == ["Z1", "Z2", "Z3", "Z4"]
    expected = system_29(*Zs, M)
    for got, want in zip(red.vector_field.components, expected):
        verdict = pol.zero_test(got - want)
        assert verdict.zero and verdict.certain
    assert red.projection.forward == tuple(Z)


@pytest.mark.slow
def test_b1_reconstruction_quadrature():
    """B1: Y1 = atan2(x2, x1) and Ydot1 = -(Z1 (1+Z4) + Z2) / (Z4 sqrt(1+Z4))."""
    M, V, u, Z, Y1 = ball_on_paraboloid()
    rec = reconstruct(V, symmetries=[u], invariants=Z, names=["Z1", "Z2", "Z3", "Z4"])
    (q,) = rec.quadratures
    assert pol.is_zero(q.coordinate - Y1)
    Z1, Z2, Z3, Z4 = rec.reduced.manifold.coords
    want = -(Z1 * (1 + Z4) + Z2) / (Z4 * sp.sqrt(1 + Z4))
    # compare at random points of the orbit space with Z4 > 0
    rng = random.Random(3)
    for _ in range(4):
        pt = {z: sp.Rational(rng.randint(1, 40), rng.randint(1, 9)) for z in (Z1, Z2, Z3, Z4)}
        pt.update({p: sp.Rational(rng.randint(1, 9), 7) for p in M.parameters})
        assert abs(sp.N((q.rate - want).xreplace(pt), 30)) < 1e-25


@pytest.mark.slow
def test_b1_reduction_with_computed_invariants():
    """Invariants found automatically (A3): the reduced field is the pushforward of V."""
    M, V, u, _, _ = ball_on_paraboloid()
    red = reduce(V, symmetries=[u])
    assert len(red.invariants) == 4
    for z in red.invariants:
        assert pol.is_zero(u(z))
    rng = random.Random(5)
    x1, x2, w1, w2, w3 = M.coords
    # the four polynomial invariants found (w3, |w|^2, |x|^2, (w, x) in some order) do not
    # fix the sign of w2 x1 - w1 x2: the reduction is local, valid on the branch chosen
    bp = red.branch_point
    assert bp
    sign = sp.sign((w2 * x1 - w1 * x2).xreplace(bp))
    # V(Z_i)(x) == V_i(Z(x)) at random points of that branch
    checked = 0
    while checked < 3:
        pt = {x: sp.Rational(rng.randint(1, 30), rng.randint(2, 9)) for x in M.coords}
        pt.update({p: sp.Rational(rng.randint(1, 9), 5) for p in M.parameters})
        if sp.sign((w2 * x1 - w1 * x2).xreplace(pt)) != sign:
            continue
        checked += 1
        zpt = {zs: z.xreplace(pt) for zs, z in zip(red.manifold.coords, red.invariants)}
        zpt.update({p: pt[p] for p in M.parameters})
        for z, comp in zip(red.invariants, red.vector_field.components):
            assert abs(sp.N(V(z).xreplace(pt) - comp.xreplace(zpt), 30)) < 1e-20


# -- B2: Chaplygin sleigh --------------------------------------------------------------------
def sleigh_system(with_a=True):
    N = Manifold("N", "x y phi", parameters="m I a")
    x, y, phi = N.coords
    xd, yd, phid = N.velocities
    v1, om = sp.symbols("v1 omega", real=True)
    M = Manifold("M", [x, y, phi, v1, om], parameters=N.parameters)
    m, I, a = N.parameters
    if not with_a:
        a = 0
    V = M.vector_field([v1 * c(phi), v1 * s(phi), om, a * om**2, -m * a * om * v1 / I])
    act = LieAlgebraAction(N, [[1, 0, 0], [0, 1, 0], [-y, x, 1]], names=["ux", "uy", "urot"])
    lifted = act.prolong(M, {xd: v1 * c(phi), yd: v1 * s(phi), phid: om})
    return M, V, lifted


def test_sleigh_reduction():
    """B2: reduced system m v1' = m a omega^2, I omega' = -m a omega v1 on (v1, omega)."""
    M, V, lifted = sleigh_system()
    x, y, phi, v1, om = M.coords
    m, I, a = M.parameters
    assert lifted.is_symmetry_of(V)
    red = reduce(V, symmetries=lifted)
    assert red.manifold.coords == (v1, om)           # same symbols reused
    assert red.vector_field.components == (a * om**2, -a * m * om * v1 / I)
    assert all(b == (0, 0, 0) for b in red.structure.values())


def test_sleigh_reconstruction_triangular():
    """B2.7: Theorem 2 gives phi' = omega, x' = v1 cos(phi), y' = v1 sin(phi)."""
    M, V, lifted = sleigh_system()
    x, y, phi, v1, om = M.coords
    rec = reconstruct(V, symmetries=lifted)
    assert rec.algebra.is_solvable() and rec.algebra.is_triangular()
    assert rec.algebra.names[0] == "u3"                  # the rotation comes first
    got = [(q.symbol, q.rate) for q in rec.quadratures]
    assert got == [(phi, om), (x, v1 * c(phi)), (y, v1 * s(phi))]
    # triangular structure: G_k depends only on Z and Y_1..Y_{k-1}
    for k, q in enumerate(rec.quadratures):
        later = {qq.symbol for qq in rec.quadratures[k:]}
        assert not (q.rate.free_symbols & later)
        for j in range(k, len(rec.quadratures)):
            assert pol.is_zero(rec.quadratures[j].field(q.coordinate) - (1 if j == k else 0))


def test_sleigh_general_solution_solves_the_system():
    """a = 0: v1, omega constant; the quadratures give the full motion, which solves (3.18)."""
    M, V, lifted = sleigh_system(with_a=False)
    x, y, phi, v1, om = M.coords
    t = sp.Symbol("t", real=True)
    rec = reconstruct(V, symmetries=lifted)
    sol = rec.general_solution(t)
    assert set(sol) == {v1, om, phi, x, y}
    for coord, comp in zip(M.coords, V.components):
        lhs = sp.diff(sol[coord], t)
        rhs = comp.xreplace(sol)
        assert pol.is_zero(lhs - rhs)


def test_general_solution_from_given_reduced_solution():
    M, V, lifted = sleigh_system()
    x, y, phi, v1, om = M.coords
    t = sp.Symbol("t", real=True)
    rec = reconstruct(V, symmetries=lifted)
    W = sp.Symbol("W", positive=True)
    sol = rec.general_solution(t, reduced_solution={v1: W, om: 2 * t})
    assert pol.is_zero(sp.diff(sol[phi], t) - 2 * t)
    assert pol.is_zero(sp.diff(sol[x], t) - W * c(sol[phi]))


# -- non-solvable algebra and non-symmetries ---------------------------------------------------
def so3_chart():
    N = Manifold("SO3", "theta phi psi")
    th, ph, ps = N.coords
    u = [N.vector_field([c(ph), -c(th) * s(ph) / s(th), s(ph) / s(th)]),
         N.vector_field([-s(ph), -c(th) * c(ph) / s(th), c(ph) / s(th)]),
         N.vector_field([0, 1, 0])]
    Ex = N.vector_field([c(ps), s(ps) / s(th), -c(th) * s(ps) / s(th)])
    Ez = N.vector_field([0, 0, 1])
    return N, u, Ex, Ez


def test_rubber_ball_so3_reconstruct_raises():
    """B5.2: so(3) is not solvable, Theorem 2 does not apply."""
    N, u, Ex, Ez = so3_chart()
    v = Ex + 2 * Ez
    for ui in u:
        assert ui.bracket(v).is_zero()           # E-fields commute with the u's
    with pytest.raises(ValueError, match="not solvable"):
        reconstruct(v, symmetries=u)


def test_non_symmetry_inputs_raise():
    M, V, lifted = sleigh_system()
    dphi = M.vector_field([0, 0, 1, 0, 0])
    with pytest.raises(ValueError, match="not a symmetry field"):
        reconstruct(V, symmetries=[*lifted.generators, dphi])
    # d/dphi alone does not span a symmetry distribution of the sleigh
    with pytest.raises(ValueError, match="not symmetric"):
        reduce(V, symmetries=[dphi])


def test_generalized_symmetry_distribution():
    """Prop. 1 with b != 0: u = d/dy, v = x d/dx + x y d/dy, [u, v] = x u."""
    M = Manifold("M", "x y")
    x, y = M.coords
    u = M.vector_field([0, 1])
    v = M.vector_field([x, x * y])
    red = reduce(v, symmetries=[u])
    assert red.invariants == (x,)
    assert red.vector_field.components == (x,)
    assert red.structure[(0, "v")] == (x,)
    with pytest.raises(ValueError, match="not a symmetry field"):
        reconstruct(v, symmetries=[u])


def test_non_involutive_symmetries_raise():
    M = Manifold("H", "x y z")
    x, y, z = M.coords
    X, Y = M.vector_field([1, 0, -y / 2]), M.vector_field([0, 1, x / 2])
    with pytest.raises(ValueError, match="involutive"):
        reduce(M.vector_field([0, 0, 1]), symmetries=[X, Y])


# -- A4: reduced system from a single invariant -------------------------------------------------
def test_single_invariant_companion_form():
    M = Manifold("M", "x y z")
    x, y, z = M.coords
    v = M.vector_field([-y + x * z, x + y * z, -(x**2 + y**2)])
    rot = M.vector_field([-y, x, 0])
    red = reduce(v, symmetries=[rot], seed=z)
    assert red.companion
    Z1, Z2 = red.manifold.coords
    assert red.invariants == (z, -x**2 - y**2)
    assert red.vector_field.components == (Z2, 2 * Z1 * Z2)
    # agrees with the reduction in the invariants (z, x^2 + y^2)
    full = reduce(v, symmetries=[rot], invariants=[z, x**2 + y**2], names=["a", "b"])
    A, B = full.manifold.coords
    assert full.vector_field.components == (-B, 2 * A * B)


def test_single_invariant_coarser_reduction():
    """A4 with m' < m: the seed is a first integral, the companion system is 0-dimensional
    dynamics Z1' = 0."""
    M = Manifold("M", "x y z")
    x, y, z = M.coords
    v = M.vector_field([-y, x, z])
    rot = M.vector_field([-y, x, 0])
    red = reduce(v, symmetries=[rot], seed=x**2 + y**2)
    assert red.invariants == (x**2 + y**2,)
    assert red.vector_field.components == (0,)


def test_reduce_rejects_bad_invariants():
    M = Manifold("M", "x y z")
    x, y, z = M.coords
    rot = M.vector_field([-y, x, 0])
    v = M.vector_field([-y, x, z])
    with pytest.raises(ValueError, match="not independent invariants"):
        reduce(v, symmetries=[rot], invariants=[x, z])
    with pytest.raises(ValueError, match="orbit space has dimension 2"):
        reduce(v, symmetries=[rot], invariants=[z])


def test_prolonged_symmetry_is_symmetry_of_free_particle():
    """Free particle on the plane: prolonged SE(2) is a symmetry of the geodesic spray; the
    reduced system on |xdot|^2 is trivial and the reconstruction is impossible (not locally
    free on TN would be fine, but rank 3 = dim se(2): it is locally free)."""
    N = Manifold("N", "x y")
    x, y = N.coords
    xd, yd = N.velocities
    act = LieAlgebraAction(N, [[1, 0], [0, 1], [-y, x]]).prolong()
    TN = act.manifold
    spray = TN.vector_field([xd, yd, 0, 0])
    assert act.is_symmetry_of(spray)
    red = reduce(spray, symmetries=act)
    assert len(red.invariants) == 1
    assert red.vector_field.components == (0,)
    assert prolong(N.vector_field([1, 0])).manifold is TN


def test_reduce_accepts_a_distribution():
    from geomech.lie.distribution import Distribution

    M, V, lifted = sleigh_system()
    red = reduce(V, symmetries=Distribution(list(lifted.generators)))
    assert red.manifold.coords == M.coords[3:]


def test_general_solution_keeps_unsolved_quadratures():
    """Without an explicit reduced solution the quadratures stay as nested integrals of
    Z_i(t), and they still solve the triangular system."""
    M, V, lifted = sleigh_system()
    x, y, phi, v1, om = M.coords
    t = sp.Symbol("t", real=True)
    rec = reconstruct(V, symmetries=lifted)
    sol = rec.general_solution(t, solve_reduced=False)
    assert sol[v1] == sp.Function("v1")(t)
    assert sol[x].has(sp.Integral)
    assert sp.diff(sol[phi], t) == sol[om]
    assert pol.is_zero(sp.diff(sol[y], t) - sol[v1] * s(sol[phi]))


def test_b1_singular_orbits_are_equilibria():
    """B1 oracle 7 (Prop. 2): the 0-dimensional orbits {x1 = x2 = w1 = w2 = 0} of u consist of
    equilibria of (2.7) (the ball at the vertex spinning about the vertical)."""
    M, V, u, _, _ = ball_on_paraboloid()
    x1, x2, w1, w2, w3 = M.coords
    act = LieAlgebraAction(M, [u])
    locus = act.singular_locus()
    assert sorted(locus, key=str) == [w1, w2, x1, x2]
    on_locus = {x1: 0, x2: 0, w1: 0, w2: 0}
    assert act.orbit_dimension(on_locus) == 0
    assert all(pol.is_zero(comp.xreplace(on_locus)) for comp in V.components)


def test_non_abelian_model_reconstruction():
    """A12 model: u1 = d_Y1 - Y2 d_Y2, u2 = d_Y2, [u1, u2] = u2 gives Y1' = g(Z),
    Y2' = h(Z) exp(-Y1); the quadratures solve the system."""
    M = Manifold("M", "Z Y1 Y2")
    Z, Y1, Y2 = M.coords
    g, h = Z, Z**2
    v = M.vector_field([0, g, h * sp.exp(-Y1)])
    u1, u2 = M.vector_field([0, 1, -Y2]), M.vector_field([0, 0, 1])
    assert u1.bracket(u2) == u2
    rec = reconstruct(v, symmetries=[u2, u1])          # order is irrelevant
    assert rec.algebra.is_triangular()
    assert [(q.symbol, q.rate) for q in rec.quadratures] == [(Y1, Z), (Y2, Z**2 * sp.exp(-Y1))]
    t = sp.Symbol("t", real=True)
    sol = rec.general_solution(t)
    for coord, comp in zip(M.coords, v.components):
        assert pol.is_zero(sp.diff(sol[coord], t) - comp.xreplace(sol))


# -- general solution in the coordinates of the original manifold ---------------------------
def test_general_solution_maps_back_through_the_chart():
    """The cyclic coordinate log(y) of the scaling symmetry y d_y is inverted: the keys are the
    coordinates of M and the solution solves the original ODE x' = 0, y' = x y."""
    M = Manifold("M", "x y")
    x, y = M.coords
    v = M.vector_field([0, x * y])
    rec = reconstruct(v, symmetries=[M.vector_field([0, y])])
    assert rec.quadratures[0].coordinate == sp.log(y)
    t = sp.Symbol("t", real=True)
    sol = rec.general_solution(t)
    assert set(sol) == {x, y} and not sol.relations and sol.failed is None
    for coord, comp in zip(M.coords, v.components):
        assert pol.is_zero(sp.diff(sol[coord], t) - comp.xreplace(sol))
    # the adapted chart is still available
    adapted = rec.general_solution(t, chart="adapted")
    assert sp.Symbol("Y1", real=True) in adapted and y not in adapted
    with pytest.raises(ValueError, match="chart"):
        rec.general_solution(t, chart="polar")


def test_general_solution_reports_a_chart_that_cannot_be_inverted():
    """With the cyclic coordinate Y = y + sin(y) sympy cannot solve Y(y) = Y(t): the solved
    coordinates are returned, the failed step is named, and the implicit relation holds along
    the motion (d/dt of both sides agree with the flow)."""
    M = Manifold("M", "x y")
    x, y = M.coords
    u = M.vector_field([0, 1 / (1 + sp.cos(y))])
    v = M.vector_field([0, x / (1 + sp.cos(y))])
    rec = reconstruct(v, symmetries=[u], cyclic=[y + sp.sin(y)])
    t = sp.Symbol("t", real=True)
    sol = rec.general_solution(t)
    assert x in sol and y not in sol
    assert sol.failed and "could not be inverted" in sol.failed
    (rel,) = sol.relations
    assert pol.is_zero(rel.lhs - (y + sp.sin(y)))
    # along the flow, d/dt (y + sin y) = v(y + sin y) must equal d/dt of the right-hand side
    assert pol.is_zero(v(rel.lhs).xreplace({x: sol[x]}) - sp.diff(rel.rhs, t))


# -- general solution in the initial values ------------------------------------------------------
def test_general_solution_in_initial_values_through_the_log_chart():
    """y' = x y with the scaling symmetry: y = y0 exp(x0 t), also for the adapted chart."""
    M = Manifold("M", "x y")
    x, y = M.coords
    v = M.vector_field([0, x * y])
    rec = reconstruct(v, symmetries=[M.vector_field([0, y])])
    t = sp.Symbol("t", real=True)
    a, b = sp.symbols("a b", positive=True)
    sol = rec.general_solution(t, initial={x: a, "y": b})
    assert pol.is_zero(sol[y] - b * sp.exp(a * t)) and sol[x] == a
    adapted = rec.general_solution(t, initial={"x": a, "y": b}, chart="adapted")
    assert pol.is_zero(adapted[sp.Symbol("Y1", real=True)] - sp.log(b) - a * t)


def test_general_solution_in_initial_values_non_abelian_model():
    """A12 model Y1' = Z, Y2' = Z^2 exp(-Y1): the constants of both quadratures (the second
    depends on the first) are solved in order."""
    M = Manifold("M", "Z Y1 Y2")
    Z, Y1, Y2 = M.coords
    v = M.vector_field([0, Z, Z**2 * sp.exp(-Y1)])
    rec = reconstruct(v, symmetries=[M.vector_field([0, 1, -Y2]), M.vector_field([0, 0, 1])])
    t = sp.Symbol("t", real=True)
    x0 = {"Z": sp.Symbol("z0", positive=True), "Y1": sp.Symbol("a", real=True),
          "Y2": sp.Symbol("b", real=True)}
    sol = rec.general_solution(t, initial=x0)
    for coord, comp in zip(M.coords, v.components):
        assert pol.is_zero(sp.diff(sol[coord], t) - comp.xreplace(sol))
        assert pol.is_zero(sol[coord].subs(t, 0) - x0[coord.name])


def test_general_solution_says_when_constants_cannot_be_solved_for():
    """z' = z^2: dsolve gives z = -1/(C1 + t), which never takes z(0) = 0 (the equilibrium is
    not in the family): a clear error, not a wrong solution."""
    M = Manifold("M", "z y")
    z, y = M.coords
    rec = reconstruct(M.vector_field([z**2, z]), symmetries=[M.vector_field([0, 1])])
    t = sp.Symbol("t", real=True)
    sol = rec.general_solution(t, initial={"z": 2, "y": 1})
    assert pol.is_zero(sol[z] - 2 / (1 - 2 * t)) and pol.is_zero(sol[y].subs(t, 0) - 1)
    with pytest.raises(ValueError, match="could not be solved for"):
        rec.general_solution(t, initial={"z": 0, "y": 1})
