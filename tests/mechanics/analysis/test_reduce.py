"""Reduction: orbit space, generalized Chaplygin (Prop. 5), Routh, levels of integrals.

Oracles: seed000_part1 A9, A11–A12, A17–A18, B2, B4, B5; seed000_part2 §3.9, §4.2, §4.4, §4.5.
"""

import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import is_zero as _is_zero
from geomech.lie.prolongation import prolong
from geomech.mechanics.analysis.integrals import system_is_first_integral
from geomech.mechanics.analysis.reduction import (
    chaplygin_reduction,
    reconstruction_quadratures,
    reduce_by_symmetry,
    restrict_to_level,
    routh_reduction,
)
from geomech.mechanics.system import NonholonomicSystem

from .test_symmetry import params, skateboard, snakeboard

s, c = sp.sin, sp.cos


def same(X, Y) -> bool:
    return all(_is_zero(a - b) for a, b in zip(X, Y))


def se2(N):
    x, y = N.coords[:2]
    return [N.vector_field([-y, x, 1]), N.vector_field([1, 0, 0]), N.vector_field([0, 1, 0])]


# ---------------------------------------------------------------------------------------------
# orbit space of the sleigh (B2)
# ---------------------------------------------------------------------------------------------
def test_sleigh_reduced_system(sleigh):
    """m v1' = m a omega^2, I omega' = -m a omega v1 on the orbit space of SE(2)."""
    N = sleigh.manifold
    phi = N.coords[2]
    xd, yd, phid = N.velocities
    m, I, a = N.parameters
    v1, om = sp.symbols("v1 omega", real=True)
    red = reduce_by_symmetry(sleigh, se2(N), invariants=[xd * c(phi) + yd * s(phi), phid],
                             names=[v1, om])
    assert red.manifold.coords == (v1, om)
    assert same(red.vector_field.components, [a * om**2, -m * a * om * v1 / I])


def test_sleigh_partial_reduction_by_translations(sleigh):
    """A7 remark: reducing by the normal subgroup R^2 first, u_rot projects to a genuine
    symmetry field of the partially reduced system."""
    N = sleigh.manifold
    red = reduce_by_symmetry(sleigh, se2(N)[1:])
    R = red.manifold
    assert R.dim == 3 and N.coords[2] in R.coords
    pro = prolong(se2(N)[0], sleigh.phase_space, sleigh.dependent_solution)
    u = R.vector_field([sleigh.restricted(pro(z)) if not isinstance(z, sp.Symbol) else pro(z)
                        for z in red.invariants])
    assert u.bracket(red.vector_field).is_zero()


def test_sleigh_reconstruction_is_triangular(sleigh):
    """B2 oracle 7: phi' = omega, x' = v1 cos(phi), y' = v1 sin(phi)."""
    N = sleigh.manifold
    x, y, phi = N.coords
    xd, yd, phid = N.velocities
    rec = reconstruction_quadratures(sleigh, se2(N),
                                     invariants=[xd * c(phi) + yd * s(phi), phid])
    v1, om = rec.reduced.manifold.coords
    rates = {q.symbol: q.rate for q in rec.quadratures}
    assert [q.symbol for q in rec.quadratures] == [phi, x, y]
    assert same([rates[phi], rates[x], rates[y]], [om, v1 * c(phi), v1 * s(phi)])
    m, I, a = N.parameters
    assert same(rec.reduced.vector_field.components, [a * om**2, -m * a * om * v1 / I])


# ---------------------------------------------------------------------------------------------
# general solution in the initial values (Lie's quadratures on catalogue systems)
# ---------------------------------------------------------------------------------------------
T = sp.Symbol("t", real=True)


def _se2_reconstruction(S):
    """SE(2) on (x, y, heading) of the catalogue system ``S``; invariants: every other phase
    coordinate (and the velocity along the blade for the sleighs)."""
    N, P = S.manifold, S.phase_space
    x, y, th = N.coords[:3]
    n = N.dim
    fields = [N.vector_field([-y, x, 1] + [0] * (n - 3)),
              N.vector_field([1, 0, 0] + [0] * (n - 3)), N.vector_field([0, 1, 0] + [0] * (n - 3))]
    if n == 3:
        xd, yd, thd = N.velocities
        inv = [xd * c(th) + yd * s(th), thd]
    else:
        inv = [q for q in P.coords if q not in (x, y, th)]
    return reconstruction_quadratures(S, fields, invariants=inv)


def _initial_symbols(S) -> dict:
    return {q.name: sp.Symbol(f"{q.name}_init", real=True) for q in S.phase_space.coords}


def _takes_initial_values(S, sol, x0) -> bool:
    cond = {eq.lhs: eq.rhs for eq in sol.conditions}
    return all(_is_zero(sol[q].subs(T, 0).doit().xreplace(cond) - x0[q.name])
               for q in S.phase_space.coords)


def _solves(S, sol, coords) -> bool:
    V = S.vector_field()
    comps = dict(zip(S.phase_space.coords, V.components))
    return all(_is_zero(sp.diff(sol[q], T) - comps[q].xreplace(sol)) for q in coords)


@pytest.mark.parametrize("name", ["skate", "sleigh_a0"])
def test_general_solution_in_initial_values_solves_the_system(name):
    """Skate (Kozlov 1982, §5) and sleigh with a = 0: with symbolic initial values the
    constants are solved for; the motion solves the ODE and takes the values at t = 0."""
    S = gm.examples.skate() if name == "skate" else gm.examples.chaplygin_sleigh(a=0)
    rec = _se2_reconstruction(S)
    x0 = _initial_symbols(S)
    sol = rec.general_solution(T, initial=x0)
    assert set(sol) == set(S.phase_space.coords) and not sol.failed and not sol.conditions
    assert _takes_initial_values(S, sol, x0)
    assert _solves(S, sol, S.phase_space.coords)
    free = set().union(*(v.free_symbols for v in sol.values()))
    assert free <= {T, *x0.values(), *S.manifold.parameters}        # no stray constants
    # without initial values the constants are not the initial values: x(0) != x_0
    general = rec.general_solution(T)
    x = S.manifold.coords[0]
    assert not _is_zero(general[x].subs(T, 0) - sp.Symbol("x_0", real=True))


def test_skate_moves_on_kozlovs_circle():
    """Kozlov (1982), §5: from the origin with xdot = v, phidot = omega,
    x = (v/omega) sin(omega t), y = (v/omega)(1 - cos(omega t)), phi = omega t."""
    S = gm.examples.skate()
    rec = _se2_reconstruction(S)
    v, w = sp.symbols("v omega", positive=True)
    sol = rec.general_solution(T, initial={"x": 0, "y": 0, "phi": 0, "xdot": v, "phidot": w})
    x, y, phi = S.manifold.coords
    assert _is_zero(sol[x] - v / w * s(w * T))
    assert _is_zero(sol[y] - v / w * (1 - c(w * T)))
    assert _is_zero(sol[phi] - w * T)


def test_snakeboard_quadratures_take_the_initial_values():
    """The snakeboard's reduced system has no closed form: its coordinates stay undefined
    functions with their initial conditions recorded, and the quadratures for (theta, x, y)
    start at the initial values and solve their equations."""
    S = gm.examples.snakeboard(rotor=False)
    rec = _se2_reconstruction(S)
    x0 = _initial_symbols(S)
    sol = rec.general_solution(T, solve_reduced=False, initial=x0)
    assert len(sol.conditions) == 5
    assert all(eq.lhs.args == (0,) for eq in sol.conditions)
    assert _takes_initial_values(S, sol, x0)
    assert _solves(S, sol, S.manifold.coords[:3])


def test_general_solution_rejects_bad_initial_values():
    S = gm.examples.skate()
    rec = _se2_reconstruction(S)
    x0 = {"x": 0, "y": 0, "phi": 0, "xdot": 1, "phidot": 1}
    with pytest.raises(ValueError, match="missing: phidot"):
        rec.general_solution(T, initial={k: v for k, v in x0.items() if k != "phidot"})
    with pytest.raises(ValueError, match="not a coordinate"):
        rec.general_solution(T, initial={**x0, "z": 0})
    with pytest.raises(ValueError, match="contains coordinates"):
        rec.general_solution(T, initial={**x0, "y": "x"})
    v1, w = rec.reduced.manifold.coords
    with pytest.raises(ValueError, match="reduced solution takes"):
        rec.general_solution(T, reduced_solution={v1: 2, w: 1}, initial=x0)
    with pytest.raises(TypeError, match="mapping"):
        rec.general_solution(T, initial=[0, 0, 0, 1, 1])


# ---------------------------------------------------------------------------------------------
# generalized Chaplygin reduction, Prop. 5 (A18, B4)
# ---------------------------------------------------------------------------------------------
def test_inclined_sleigh_chaplygin_reduction(inclined):
    """B4 oracles 2, 3, 4 and (4.25)-(4.27)."""
    N = inclined.manifold
    x, y, phi = N.coords
    xd, yd, phid = N.velocities
    m, I, a, g, al = N.parameters
    red = chaplygin_reduction(inclined, [x])
    assert red.shape_coords == (y, phi)
    assert same(red.b, [c(phi) / s(phi), 0]) and red.d.rows == 0
    Lstar = (m * yd**2 / s(phi)**2 + I * phid**2) / 2 - m * g * s(al) * (y + a * s(phi))
    assert _is_zero(red.lagrangian - Lstar)
    assert _is_zero(red.momenta[0] - (m * yd * c(phi) / s(phi) - m * a * phid * s(phi)))
    S = -(m / s(phi)**3) * (yd * c(phi) - a * phid * s(phi)**2)
    assert _is_zero(red.S[0, 1] - S) and _is_zero(red.S[1, 0] + S)
    # explicit reduced field (4.27)
    V = red.vector_field()
    assert same(V.components, [yd, phid,
                               a * phid**2 * s(phi) - g * s(al) * s(phi)**2
                               + phid * yd * c(phi) / s(phi),
                               -(m * a / I) * (g * s(al) * c(phi) + phid * yd / s(phi))])
    # agreement with the full Lagrange-d'Alembert field on M = (x, y, phi, ydot, phidot)
    assert same(V.components, inclined.vector_field().components[1:])
    E = (m * yd**2 / s(phi)**2 + I * phid**2) / 2 + m * g * s(al) * (y + a * s(phi))
    assert _is_zero(V(E))
    assert _is_zero(red.reconstruction[xd] - yd * c(phi) / s(phi))
    assert len(red.equations()) == 2


def test_chaplygin_reduction_needs_case_C1(sleigh):
    N = sleigh.manifold
    with pytest.raises(ValueError, match="C-2"):
        chaplygin_reduction(sleigh, N.coords[:2])
    inclined = gm.examples.inclined_chaplygin_sleigh()
    with pytest.raises(ValueError, match="depends on the group coordinates"):
        chaplygin_reduction(inclined, [N.coords[1]])


def test_chaplygin_ball_reduction_by_translations():
    """O-CB-3: L* = T0*, gyroscopic forces -phidot S, thetadot S with
    S = m R^2 sin(theta) (phidot cos(theta) + psidot); psi is then cyclic (Routh)."""
    B = gm.examples.chaplygin_ball()
    N = B.manifold
    x, y, th, ph, ps = N.coords
    thd, phd, psd = N.velocities[2:]
    m, R, I1, I2, I3 = N.parameters
    red = chaplygin_reduction(B, [x, y])
    w = gm.examples.rolling.body_angular_velocity(th, ph, ps, thd, phd, psd)
    T0s = m * R**2 * (thd**2 + phd**2 * s(th)**2) / 2 \
        + (I1 * w[0]**2 + I2 * w[1]**2 + I3 * w[2]**2) / 2
    assert _is_zero(red.lagrangian - T0s)
    S = m * R**2 * s(th) * (phd * c(th) + psd)
    assert same(red.forces, [-phd * S, thd * S, 0])
    rr = routh_reduction(red.system, ps)
    c_ = rr.momentum
    area = sp.diff(T0s, psd)
    assert _is_zero(area.xreplace({psd: rr.X}) - c_)
    assert rr.system.manifold.coords == (th, ph)


def test_prop5_sign_on_a_nonabelian_se2_model():
    """Part D item 5: with [E_a, E_b] = c^m_ab E_m, the term -c^m_ab b_ai b_bj enters S_ij.
    SE(2) acting on itself, invariant body velocities, a non-diagonal metric in w: the
    reduced field agrees with the full Lagrange-d'Alembert field, and the opposite sign of the
    non-abelian term does not."""
    N = gm.Manifold("N", "x y theta z1 z2", parameters="k")
    x, y, th, z1, z2 = N.coords
    xd, yd, thd, z1d, z2d = N.velocities
    k, = N.parameters
    w = sp.Matrix([xd * c(th) + yd * s(th), -xd * s(th) + yd * c(th), thd])
    A = sp.Matrix([[2, 1, 0], [1, 3, 1], [0, 1, 1]])
    L = (w.T * A * w)[0] / 2 + (z1d**2 + z2d**2) / 2 + k * z1 * z2
    cons = [w[0] - z2 * z1d, w[1] - z1 * z2d, w[2] - (z1d + z1 * z2d)]
    S = NonholonomicSystem(N, L, cons, independent=("z1dot", "z2dot"))
    E = [[c(th), s(th), 0], [-s(th), c(th), 0], [0, 0, 1]]
    red = chaplygin_reduction(S, [x, y, th], frame=E)
    assert red.structure_constants[(0, 2)] == [0, -1, 0]       # [E1, E3] = -E2
    full = S.vector_field().components
    assert same(red.vector_field().components, full[3:])
    P, b = red.momenta, red.b
    nonab = sum(P[mu] * sum(red.structure_constants[(al, be)][mu] * b[al, 0] * b[be, 1]
                            for al in range(3) for be in range(3)) for mu in range(3))
    assert not _is_zero(nonab)
    wrong_forces = [red.forces[0] + 2 * nonab * z2d, red.forces[1] - 2 * nonab * z1d]
    Z = red.system.manifold
    wrong = NonholonomicSystem(Z, red.lagrangian, [], forces=wrong_forces)
    assert not same(wrong.vector_field().components, full[3:])


# ---------------------------------------------------------------------------------------------
# Prop. 6: rubber ball (B5)
# ---------------------------------------------------------------------------------------------
def _so3_frame(th, ph, ps):
    return [[c(ps), s(ps) / s(th), -c(th) * s(ps) / s(th)],
            [s(ps), -c(ps) / s(th), c(th) * c(ps) / s(th)], [0, 0, 1]]


def test_rubber_ball_prop6_on_the_plane():
    """B5 on the plane z = a: L* = (m + I/a^2)(xdot^2 + ydot^2)/2 - U and S = 0."""
    B = gm.examples.rubber_ball(potential=True, independent=("xdot", "ydot"))
    N = B.manifold
    x, y, th, ph, ps = N.coords
    xd, yd = N.velocities[:2]
    m, a, I = N.parameters[:3]
    red = chaplygin_reduction(B, [th, ph, ps], frame=_so3_frame(th, ph, ps))
    U = [f for f in B.lagrangian.atoms(sp.Function) if f.func.__name__ == "U"][0]
    assert red.S.is_zero_matrix
    assert _is_zero(red.lagrangian - ((m + I / a**2) * (xd**2 + yd**2) / 2 - U))
    # reconstruction: the fixed-axes angular velocity is w = b zdot = n x rdot / a
    assert same(red.b * sp.Matrix([xd, yd]), [-yd / a, xd / a, 0])


@pytest.mark.slow
def test_rubber_ball_prop6_on_a_paraboloid():
    """Prop. 6: the centre moves like a point of mass m + I/a^2 on the surface (S = 0)."""
    k = sp.Symbol("k", positive=True)
    B = gm.examples.rubber_ball(surface=lambda x, y: k * (x**2 + y**2) / 2, potential=True,
                                independent=("xdot", "ydot"))
    N = B.manifold
    x, y, th, ph, ps = N.coords
    xd, yd = N.velocities[:2]
    m, a, I = N.parameters[:3]
    red = chaplygin_reduction(B, [th, ph, ps], frame=_so3_frame(th, ph, ps))
    eps = sp.LeviCivita
    for (al, be), cvec in red.structure_constants.items():      # c^mu_{al be} = -eps
        assert same(cvec, [-eps(al, be, mu) for mu in range(3)])
    assert red.S.is_zero_matrix
    U = [f for f in B.lagrangian.atoms(sp.Function) if f.func.__name__ == "U"][0]
    hd = k * x * xd + k * y * yd
    Lpoint = (m + I / a**2) * (xd**2 + yd**2 + hd**2) / 2 - U
    assert _is_zero(red.lagrangian - Lpoint)
    # both parts of S vanish separately: the curl part in graph coordinates, and the
    # non-abelian part because P = I omega is orthogonal to b_x x b_y (parallel to n)
    P, b = red.momenta, red.b
    nonab = sum(P[mu] * sum(red.structure_constants[(al, be)][mu] * b[al, 0] * b[be, 1]
                            for al in range(3) for be in range(3)) for mu in range(3))
    assert _is_zero(nonab)
    # reduced field = constrained Newton equations of the point mass on the surface
    S2 = gm.Manifold("S", [x, y], parameters=N.parameters, velocities=[xd, yd])
    point = NonholonomicSystem(S2, Lpoint, [])
    assert same(red.vector_field().components, point.vector_field().components)


def test_rubber_ball_reduced_field_agrees_with_full_system():
    """Prop. 5 against the full Lagrange-d'Alembert field of the rubber ball on the plane."""
    B = gm.examples.rubber_ball(potential=True, independent=("xdot", "ydot"))
    N = B.manifold
    x, y, th, ph, ps = N.coords
    red = chaplygin_reduction(B, [th, ph, ps], frame=_so3_frame(th, ph, ps))
    full = B.vector_field().components
    assert same(red.vector_field().components, [full[0], full[1], full[5], full[6]])


# ---------------------------------------------------------------------------------------------
# Routh reduction (§3.9) and levels of integrals (A9)
# ---------------------------------------------------------------------------------------------
def test_snakeboard_rotor_routh_reduction():
    """§4.4: R = L_rotorless + p thetadot - p^2/(2 I_r); the rotor does not affect the
    motion of the board (O-SB-5)."""
    S = snakeboard(rotor=True)
    N = S.manifold
    psi = N.coords[5]
    thd = N.velocities[2]
    Ir = params(S)["I_r"]
    rr = routh_reduction(S, psi)
    p = rr.momentum
    L0 = snakeboard(rotor=False).lagrangian
    assert _is_zero(rr.routhian - (L0 + p * thd - p**2 / (2 * Ir)))
    assert _is_zero(rr.X - (p / Ir - thd))
    with pytest.raises(ValueError, match="constraint"):
        routh_reduction(S, N.coords[3])          # phi_f: Noether field, not a symmetry


@pytest.mark.slow
def test_snakeboard_rotor_decouples():
    """O-SB-5: the Routh-reduced flow equals the rotorless snakeboard's flow."""
    rr = routh_reduction(snakeboard(rotor=True), "psi")
    assert same(rr.system.vector_field().components,
                snakeboard(rotor=False).vector_field().components)


def test_skateboard_level_set_reduction():
    """(6.17)-(6.18): on p_phi = c1, p_theta = c2: phi' = c1/(2 I_w),
    theta' = c2 sin(phi)/sqrt(G1)."""
    S = skateboard()
    N = S.manifold
    x, y, th, ph = N.coords
    thd, phd = N.velocities[2:]
    m, I, Iw, r = N.parameters
    G1 = I * s(ph)**2 + m * r**2 * c(ph)**2
    c1, c2 = sp.symbols("c1 c2", real=True)
    lvl = restrict_to_level(S, [2 * Iw * phd, sp.sqrt(G1) * thd / s(ph)], [c1, c2],
                            solve_for=[thd, phd])
    assert lvl.manifold.coords == (x, y, th, ph)
    V = dict(zip(lvl.manifold.coords, lvl.vector_field.components))
    assert _is_zero(V[ph] - c1 / (2 * Iw))
    assert _is_zero(V[th] - c2 * s(ph) / sp.sqrt(G1))
    assert _is_zero(V[x] - r * c2 * c(ph) * c(th) / sp.sqrt(G1))
    with pytest.raises(ValueError, match="not a first integral"):
        restrict_to_level(S, [thd], [c1])


def test_restrict_to_level_reports_the_critical_locus():
    M = gm.Manifold("M", "q p")
    q, p = M.coords
    lvl = restrict_to_level(M.vector_field([p, -q]), [p**2 + q**2], solve_for=[p])
    assert lvl.branches == 2 and lvl.critical_locus == [p]
    assert _is_zero(lvl.vector_field.components[0] ** 2 - (lvl.values[0] - q**2))


def test_reduced_energy_is_conserved(inclined):
    red = chaplygin_reduction(inclined, [inclined.manifold.coords[0]])
    assert system_is_first_integral(red.system, red.system.energy())


# ---------------------------------------------------------------------------------------------
# Routh reduction: each refusal, with its reason, and the mathematics behind it
# ---------------------------------------------------------------------------------------------
def _momentum(S, q):
    N = S.manifold
    return sp.diff(S.lagrangian, N.velocities[N.index(q)])


def test_routh_refuses_a_field_outside_the_constraints():
    """Sleigh, q = x: d/dx is not tangent to the constraint distribution, so it is no Noether
    field; indeed p_x is not conserved by the nonholonomic flow."""
    S = gm.examples.chaplygin_sleigh()
    with pytest.raises(ValueError, match="not a Noether field.*not tangent.*constraint"):
        routh_reduction(S, "x")
    assert not S.is_first_integral(S.restricted(_momentum(S, S.manifold.coords[0])))


def test_routh_refuses_a_lagrangian_that_depends_on_the_coordinate():
    """Particle in gravity, q = z: L depends on z, and p_z = m zdot is not conserved."""
    N = gm.Manifold("N", "x z", parameters="m g")
    (x, z), (xd, zd), (m, g) = N.coords, N.velocities, N.parameters
    S = gm.NonholonomicSystem(N, m * (xd**2 + zd**2) / 2 - m * g * z)
    with pytest.raises(ValueError, match="Lagrangian depends on z"):
        routh_reduction(S, z)
    assert not S.is_first_integral(m * zd)
    # the cyclic coordinate x is accepted, and its momentum is conserved
    assert routh_reduction(S, x).momentum is not None
    assert S.is_first_integral(m * xd)


def test_routh_refuses_a_constraint_that_depends_on_the_coordinate():
    """Sleigh with a = 0, q = phi: d/dphi is a Noether field (p_phi = I phidot is even
    conserved), but the constraint depends on phi, so the reduced system would not be
    defined on the quotient: Routh's procedure does not apply."""
    S = gm.examples.chaplygin_sleigh(a=0)
    phi = S.manifold.coords[2]
    with pytest.raises(ValueError, match="constraint 1 depends on phi"):
        routh_reduction(S, phi)
    assert S.is_first_integral(S.restricted(_momentum(S, phi)))


def test_routh_refuses_a_force_along_the_coordinate():
    """A constant force along x: the Lagrangian is cyclic in x but p_x = m xdot grows."""
    N = gm.Manifold("N", "x y", parameters="m k")
    (x, y), (xd, yd), (m, k) = N.coords, N.velocities, N.parameters
    S = gm.NonholonomicSystem(N, m * (xd**2 + yd**2) / 2, forces={x: k})
    with pytest.raises(ValueError, match="force along x does not vanish"):
        routh_reduction(S, x)
    assert not S.is_first_integral(m * xd)
    S2 = gm.NonholonomicSystem(N, m * (xd**2 + yd**2) / 2, forces={y: k * x})
    with pytest.raises(ValueError, match="forces depend on x"):
        routh_reduction(S2, x)


def test_routh_refuses_a_lagrangian_linear_in_the_velocity():
    """L = m xdot^2/2 + J xdot thdot is regular, but d2L/dthdot2 = 0: the momentum level
    p = J xdot cannot be solved for thdot."""
    N = gm.Manifold("N", "x th", parameters="m J")
    (_x, th), (xd, thd), (m, J) = N.coords, N.velocities, N.parameters
    S = gm.NonholonomicSystem(N, m * xd**2 / 2 + J * xd * thd)
    with pytest.raises(ValueError, match="cannot solve the momentum"):
        routh_reduction(S, th)
