"""The catalogue ``geomech.examples``: each system's data against the spec's oracles.

Checked here: coordinates, parameters and degrees of freedom; Lagrangians and constraints
against independent derivations (rigid-body kinematics, contact-point velocities); the
energies and the Chaplygin forms the spec prints; growth vectors of the constraint
distributions; a few equations of motion the spec states explicitly (sleigh (3.18),
inclined sleigh (4.27), hoop H1-H3, Euler's equations).
"""

from __future__ import annotations

import functools
import random

import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.examples import boards, particles, rolling, rolling_bodies, sleighs
from geomech.examples.kinematics import body_angular_velocity, euler_matrix, space_angular_velocity

Z = default_policy()


def zero(e, expand_angles: bool = False) -> bool:
    """Exact zero test with the library's policy (optionally angle sums expanded first)."""
    e = sp.sympify(e)
    return Z.is_zero(sp.expand_trig(e) if expand_angles else e)


@functools.cache
def system(name: str, **kw):
    return gm.examples.get(name, **kw)


def syms(S, names: str):
    """Coordinates / velocities / parameters of ``S`` by name."""
    pool = {s.name: s for s in (*S.manifold.coords, *S.manifold.velocities,
                                *S.manifold.parameters)}
    return [pool[n] for n in names.split()]


def on_M(S, e):
    """An expression on TN restricted to the phase space."""
    return S.restricted(sp.sympify(e))


# -- the registry ---------------------------------------------------------------------------
CATALOGUE = ["chaplygin_sleigh", "inclined_chaplygin_sleigh", "skate", "rolling_disk", "hoop",
             "sharp_edge_body", "convex_body_on_plane", "ellipsoid", "chaplygin_ball",
             "rubber_ball", "routh_sphere", "ball_on_surface_of_revolution", "snakeboard",
             "skateboard", "board_with_fixed_axis", "free_rigid_body", "particle_zdot_y_xdot",
             "particle_holonomic_in_disguise", "rattleback"]


def test_registry_lists_every_constructor():
    names = gm.examples.list()
    for n in CATALOGUE:
        assert n in names
    for mod in (sleighs, rolling, boards, particles):
        for n in mod.__all__:
            assert n in names and getattr(gm.examples, n) is getattr(mod, n)


# (name, dim N, number of constraints); phase space dim = 2 dim N - k
DIMENSIONS = [
    ("chaplygin_sleigh", 3, 1), ("inclined_chaplygin_sleigh", 3, 1), ("skate", 3, 1),
    ("particle_zdot_y_xdot", 3, 1), ("particle_holonomic_in_disguise", 3, 1),
    ("free_rigid_body", 3, 0), ("hoop", 5, 2), ("rolling_disk", 5, 2),
    ("sharp_edge_body", 5, 1), ("chaplygin_ball", 5, 2), ("routh_sphere", 5, 2),
    ("rubber_ball", 5, 3),                                  # B5: dim D = 2, dim M = 7
    ("ball_on_surface_of_revolution", 5, 2), ("snakeboard", 6, 2), ("skateboard", 4, 2),
    ("board_with_fixed_axis", 4, 2), ("rattleback", 5, 2),
]


@pytest.mark.parametrize("name,n,k", DIMENSIONS)
def test_degrees_of_freedom(name, n, k):
    S = system(name)
    assert S.manifold.dim == n and len(S.constraints) == k
    assert len(S.independent_velocities) == n - k
    assert S.phase_space.dim == 2 * n - k
    # the phase space reuses the configuration symbols
    assert S.phase_space.coords[:n] == S.manifold.coords
    assert S.name == name and S.description
    for p in S.manifold.parameters:       # a product of inertia has a sign
        assert p.is_positive or (name, p.name) == ("rattleback", "D") and p.is_real


@pytest.mark.slow
@pytest.mark.parametrize("name", ["convex_body_on_plane", "ellipsoid"])
def test_degrees_of_freedom_convex_body(name):
    # B3 oracle 1: dim N = 5, dim D = 3, dim M = 8
    S = system(name)
    assert S.manifold.dim == 5 and len(S.constraints) == 2 and S.phase_space.dim == 8


def test_an_inertia_tensor_is_symmetric_by_the_zero_policy():
    """An off-diagonal difference that vanishes only by sin^2 + cos^2 = 1 is symmetric (sympy's
    ``is_zero_matrix`` leaves it undecided); a genuinely asymmetric tensor is refused."""
    a, b = sp.symbols("a b", positive=True)
    pyth = sp.sin(b)**2 + sp.cos(b)**2 - 1
    inertia = sp.Matrix([[a, pyth, 0], [0, a, 0], [0, 0, 2 * a]])
    assert (inertia - inertia.T).is_zero_matrix is None
    S = gm.examples.convex_body_on_plane(inertia=inertia)
    assert S.manifold.dim == 5
    with pytest.raises(ValueError, match="symmetric"):
        gm.examples.convex_body_on_plane(inertia=sp.Matrix([[a, 1, 0], [0, a, 0], [0, 0, a]]))


def test_parameters_are_symbols_or_values():
    S = gm.examples.chaplygin_sleigh()
    m, I, a = S.manifold.parameters
    assert (m.name, I.name, a.name) == ("m", "I", "a")
    S2 = gm.examples.chaplygin_sleigh(m=2, a=sp.Rational(1, 2))
    assert [p.name for p in S2.manifold.parameters] == ["I"]
    xd, phid = syms(S2, "xdot phidot")
    assert zero(sp.diff(S2.lagrangian, xd, 2) - 2)
    k = sp.Symbol("k", positive=True)
    S3 = gm.examples.chaplygin_sleigh(potential=lambda x, y, phi: k * x**2)
    assert k in S3.manifold.parameters


def test_bad_catalogue_input():
    with pytest.raises(TypeError, match="parameter 'm'"):
        gm.examples.chaplygin_sleigh(m="heavy")
    with pytest.raises(ValueError, match="not a velocity"):
        gm.examples.chaplygin_sleigh(independent=["zdot", "phidot"])
    with pytest.raises(ValueError):
        gm.examples.chaplygin_sleigh(potential="__import__('os')")
    with pytest.raises(ValueError, match="unknown system"):
        gm.examples.get("no_such_system")


# -- sleighs and skate ----------------------------------------------------------------------
def test_sleigh_energy_and_potential():
    # B2 oracle 4: E = (m v1^2 + I w^2)/2 + U for every U(x, y, phi)
    S = gm.examples.chaplygin_sleigh(potential=True)
    x, y, phi, xd, yd, phid, m, I = syms(S, "x y phi xdot ydot phidot m I")
    U = S.manifold.function("U")
    v1 = xd * sp.cos(phi) + yd * sp.sin(phi)
    assert zero(S.energy() - on_M(S, (m * v1**2 + I * phid**2) / 2 + U))
    S2 = gm.examples.chaplygin_sleigh(potential="x*y + cos(phi)")
    assert zero(S2.energy() - on_M(S2, (m * v1**2 + I * phid**2) / 2 + x * y + sp.cos(phi)))


def test_sleigh_equations_318():
    # (3.18) with U = 0: m v1' = m a w^2, I w' = -m a w v1
    S = system("chaplygin_sleigh")
    x, y, phi, xd, yd, phid, m, I, a = syms(S, "x y phi xdot ydot phidot m I a")
    V = S.vector_field()
    v1 = on_M(S, xd * sp.cos(phi) + yd * sp.sin(phi))
    assert zero(V(v1) - a * phid**2)
    assert zero(V(phid) + m * a * phid * v1 / I)


def test_sleigh_growth_vector():
    # B2 oracle 1: D is not involutive, growth vector (2, 3)
    S = system("chaplygin_sleigh")
    assert S.constraint_distribution().growth_vector() == (2, 3)
    assert not S.is_holonomic()


def test_inclined_sleigh_427_and_energy():
    S = system("inclined_chaplygin_sleigh")
    x, y, phi, yd, phid, m, I, a, g, al = syms(S, "x y phi ydot phidot m I a g alpha")
    assert S.independent_velocities == (yd, phid)
    assert zero(S.dependent_solution[syms(S, "xdot")[0]] - yd * sp.cos(phi) / sp.sin(phi))
    V = S.vector_field()
    # explicit field (4.27)
    assert zero(V(yd) - (a * phid**2 * sp.sin(phi) - g * sp.sin(al) * sp.sin(phi)**2
                         + phid * yd * sp.cos(phi) / sp.sin(phi)))
    assert zero(V(phid) + m * a / I * (g * sp.sin(al) * sp.cos(phi) + phid * yd / sp.sin(phi)))
    # B4 oracle 4
    E = (m * yd**2 / sp.sin(phi)**2 + I * phid**2) / 2 + m * g * sp.sin(al) * (y + a * sp.sin(phi))
    assert zero(S.energy() - E)
    # B4 oracle 5: divergence of the reduced field
    Vr = [V(c) for c in (y, phi, yd, phid)]
    div = sum(sp.diff(c, s) for c, s in zip(Vr, (y, phi, yd, phid)))
    assert zero(div - (phid * sp.cos(phi) / sp.sin(phi) - m * a / I * yd / sp.sin(phi)))


def test_skate_data():
    S = system("skate")
    x, y, phi, xd, yd, phid = syms(S, "x y phi xdot ydot phidot")
    assert S.lagrangian == (xd**2 + yd**2 + phid**2) / 2
    assert zero(S.dependent_solution[yd] - sp.tan(phi) * xd)       # E1.3
    V = S.vector_field()
    # E1.3: blade speed v = xdot/cos(phi) and phidot are constant
    assert zero(V(xd / sp.cos(phi))) and zero(V(phid))
    assert S.constraint_distribution().growth_vector() == (2, 3)


# -- particles ------------------------------------------------------------------------------
def test_particle_zdot_y_xdot():
    S = system("particle_zdot_y_xdot")
    x, y, z, xd, yd, zd = syms(S, "x y z xdot ydot zdot")
    assert S.lagrangian == (xd**2 + yd**2 + zd**2) / 2 - z          # O4.8's L
    assert S.dependent_solution == {zd: y * xd}
    assert S.constraint_distribution().growth_vector() == (2, 3)
    assert not S.is_holonomic()


def test_particle_holonomic_in_disguise():
    S = system("particle_holonomic_in_disguise")
    x, y, z = syms(S, "x y z")
    assert S.is_holonomic()
    D = S.constraint_distribution()
    assert D.growth_vector() == (2,)
    for X in D.fields:           # z - x^2 - y^2 is constant on the leaves
        assert zero(X(z - x**2 - y**2))


# -- rigid-body kinematics ------------------------------------------------------------------
def test_euler_kinematics():
    th, ph, ps = sp.symbols("theta phi psi", real=True)
    thd, phd, psd = sp.symbols("thetadot phidot psidot", real=True)
    Q = euler_matrix(th, ph, ps)
    assert all(zero(e) for e in Q * Q.T - sp.eye(3)) and zero(Q.det() - 1)
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    # every column alpha of Q obeys alpha' = alpha x w (spec §4.0)
    for j in range(3):
        col = Q[:, j]
        dcol = col.diff(th) * thd + col.diff(ph) * phd + col.diff(ps) * psd
        assert all(zero(e) for e in (dcol - col.cross(w)))
    ws = space_angular_velocity(th, ph, ps, thd, phd, psd)
    assert all(zero(e) for e in (ws - Q.T * w))


def test_rolling_modules_are_registered_and_the_kinematics_agree():
    """The catalogue functions of rolling and rolling_bodies are registered; the kinematics'
    frame agrees with the angular velocity: omega = (Q' Q^T)^vee in body axes."""
    from geomech.examples import kinematics

    for name in rolling_bodies.__all__:
        assert name in gm.examples.list()
        assert getattr(gm.examples, name) is getattr(rolling_bodies, name)
    for name in rolling.__all__:
        assert name in gm.examples.list()
    N = gm.Manifold("N", "x y theta phi psi")
    th, ph, ps, thd, phd, psd = kinematics.euler_angles(N)
    Q = kinematics.euler_matrix(th, ph, ps)
    Qdot = sum((Q.diff(c) * v for c, v in zip((th, ph, ps), (thd, phd, psd))), sp.zeros(3))
    W = Qdot * Q.T                      # alpha' = alpha x w for the columns: W = -[w]_x
    w = kinematics.body_angular_velocity(th, ph, ps, thd, phd, psd)
    assert all(zero(e) for e in (sp.Matrix([W[1, 2], W[2, 0], W[0, 1]]) - w))
    assert zero(kinematics.dot(w, w) - (w.T * w)[0])


def _contact_velocity_plane(S, R):
    """Fixed-frame velocity of the contact point of a ball of radius R centred at (x, y)."""
    th, ph, ps, thd, phd, psd, xd, yd = syms(S, "theta phi psi thetadot phidot psidot xdot ydot")
    Q = euler_matrix(th, ph, ps)
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    gamma = Q[:, 2]
    return Q.T * (Q * sp.Matrix([xd, yd, 0]) + w.cross(-R * gamma))


@pytest.mark.parametrize("name", ["chaplygin_ball", "routh_sphere"])
def test_no_slip_constraints_of_balls(name):
    S = system(name)
    (R,) = syms(S, "R")
    vP = _contact_velocity_plane(S, R)
    assert zero(vP[2])
    for f, g in zip(S.constraints, vP[:2]):
        assert zero(f - g)


def test_chaplygin_ball_data():
    S = system("chaplygin_ball")
    th, ph, ps, thd, phd, psd, I1, I2, I3 = syms(
        S, "theta phi psi thetadot phidot psidot I1 I2 I3")
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    gamma = euler_matrix(th, ph, ps)[:, 2]
    Iw = sp.diag(I1, I2, I3) * w
    # area integral (5.16): dT0/dpsidot = (I w, gamma), also the printed coordinate form
    area = sp.diff(S.lagrangian, psd)
    assert zero(area - Iw.dot(gamma))
    printed = ((I1 - I2) * thd * sp.sin(th) * sp.sin(ph) * sp.cos(ph) + I3 * phd * sp.cos(th)
               + ((I1 * sp.sin(ph)**2 + I2 * sp.cos(ph)**2) * sp.sin(th)**2
                  + I3 * sp.cos(th)**2) * psd)
    assert zero(area - printed)
    # B3 oracle 4: growth vector of the no-slip distribution (3, 5)
    assert S.constraint_distribution().growth_vector() == (3, 5)


def test_routh_sphere_jellett_on_TN():
    # Jellett's integral is the Noether integral of u = (0, a, R) (valid on TN, §4.1)
    S = system("routh_sphere")
    th, ph, ps, thd, phd, psd, R, a, I1, I3 = syms(
        S, "theta phi psi thetadot phidot psidot R a I1 I3")
    xd, yd = syms(S, "xdot ydot")
    u = {syms(S, "xdot")[0]: -R * a * sp.sin(th) * sp.cos(ps),
         yd: -R * a * sp.sin(th) * sp.sin(ps), phd: a, psd: R}
    P = sum(c * sp.diff(S.lagrangian, v) for v, c in u.items())
    jel = ((a + R * sp.cos(th)) * I3 * phd
           + (R * I1 * sp.sin(th)**2 + I3 * sp.cos(th) * (a + R * sp.cos(th))) * psd)
    assert zero(on_M(S, P - jel))
    # u is tangent to the constraint distribution (A u = 0)
    for f in S.constraints:
        assert zero(f.xreplace({v: u.get(v, 0) for v in S.manifold.velocities}))


# -- disks ----------------------------------------------------------------------------------
def _hoop_contact_velocity(S):
    x, y, th, ps, ph = S.manifold.coords
    xd, yd, thd, psd, phd = S.manifold.velocities
    (a,) = syms(S, "a")
    vG = sp.Matrix([xd, yd, a * sp.cos(th) * thd])           # z_G = a sin(theta)
    rho = a * sp.Matrix([sp.sin(ps) * sp.cos(th), -sp.cos(ps) * sp.cos(th), -sp.sin(th)])
    ws = space_angular_velocity(th, ph, ps, thd, phd, psd)
    return vG + ws.cross(rho)


@pytest.mark.parametrize("name", ["hoop", "rolling_disk"])
def test_disk_constraints_and_energy(name):
    S = system(name)
    x, y, th, ps, ph = S.manifold.coords
    xd, yd, thd, psd, phd = S.manifold.velocities
    m, a, g = syms(S, "m a g")
    A = m * a**2 / 2 if name == "hoop" else syms(S, "A")[0]
    C = m * a**2 if name == "hoop" else syms(S, "C")[0]
    vP = _hoop_contact_velocity(S)
    assert zero(vP[2])
    for f, gexpr in zip(S.constraints, vP[:2]):
        assert zero(f - gexpr)
    r = psd * sp.cos(th) + phd
    # E1.2: on the constraint |v_G|^2 = a^2 (thetadot^2 + r^2)
    vG2 = xd**2 + yd**2 + (a * sp.cos(th) * thd)**2
    assert zero(on_M(S, vG2) - a**2 * (thd**2 + r**2))
    E = ((A + m * a**2) * thd**2 / 2 + A * psd**2 * sp.sin(th)**2 / 2
         + (C + m * a**2) * r**2 / 2 + m * g * a * sp.sin(th))          # O1.7
    assert zero(S.energy() - E)


def test_hoop_equations_H1_H3():
    S = system("hoop")
    x, y, th, ps, ph = S.manifold.coords
    xd, yd, thd, psd, phd = S.manifold.velocities
    m, a, g = syms(S, "m a g")
    V = S.vector_field()
    thdd, psdd, phdd = V(thd), V(psd), V(phd)
    r = psd * sp.cos(th) + phd
    assert zero(3 * a * thdd + 3 * a * psd**2 * sp.sin(th) * sp.cos(th)
                + 4 * a * psd * phd * sp.sin(th) + 2 * g * sp.cos(th))
    assert zero(2 * V(r) - psd * thd * sp.sin(th))
    assert zero(V(psd * sp.sin(th)**2) - 2 * r * thd * sp.sin(th))
    del psdd, phdd


def test_rolling_disk_equations_H1_H3():
    S = system("rolling_disk")
    x, y, th, ps, ph = S.manifold.coords
    xd, yd, thd, psd, phd = S.manifold.velocities
    m, a, A, C, g = syms(S, "m a A C g")
    V = S.vector_field()
    thdd, psdd, phdd = V(thd), V(psd), V(phd)
    s, c = sp.sin(th), sp.cos(th)
    assert zero((A + m * a**2) * thdd + (C + m * a**2 - A) * psd**2 * s * c
                + (C + m * a**2) * psd * phd * s + m * g * a * c)
    assert zero((A * s**2 + (C + m * a**2) * c**2) * psdd + (C + m * a**2) * c * phdd
                + 2 * (A - C - m * a**2) * psd * thd * s * c - C * phd * thd * s)
    assert zero((C + m * a**2) * (phdd + c * psdd) - (C + 2 * m * a**2) * psd * thd * s)


def test_hoop_growth_vector():
    # [V_theta, .] = 0, [V_psi, V_phi] = a sin(psi) dx - a cos(psi) dy: D is not involutive
    # and bracket generating in two steps: (3, 4, 5)
    S = system("hoop")
    assert S.constraint_distribution().growth_vector() == (3, 4, 5)


def test_sharp_edge_body_data():
    # O-SE-4: T on D and the height of C
    S = system("sharp_edge_body")
    x, y, th, ph, ps = S.manifold.coords
    xd, yd, thd, phd, psd = S.manifold.velocities
    m, R, b, I1, I3, g = syms(S, "m R b I1 I3 g")
    V = xd * sp.cos(ps) + yd * sp.sin(ps)
    d = R * sp.cos(th) - b * sp.sin(th)
    h = R * sp.sin(th) + b * sp.cos(th)
    w3 = phd + psd * sp.cos(th)
    T = (m * (V - d * psd)**2 / 2 + I1 * psd**2 * sp.sin(th)**2 / 2 + I3 * w3**2 / 2
         + (I1 + m * (R**2 + b**2)) * thd**2 / 2)
    assert zero(S.energy() - on_M(S, T + m * g * h))
    assert zero(-sp.diff(S.lagrangian.xreplace(dict.fromkeys(S.manifold.velocities, 0)), g) / m
                - h)


# -- convex bodies --------------------------------------------------------------------------
@pytest.mark.slow
def test_ellipsoid_with_equal_axes_is_the_ball():
    R = sp.Symbol("R", positive=True)
    E = gm.examples.ellipsoid(b1=R, b2=R, b3=R)
    B = system("chaplygin_ball")
    pt = dict(zip(E.manifold.parameters, [sp.Rational(3, 2)] * 8))
    for f, g in zip(E.constraints, B.constraints):
        assert zero((f - g.xreplace({B.manifold.parameters[1]: R})).xreplace(pt))


def test_convex_body_contact_condition():
    # the vertical part of v + w x r = 0 holds identically: (gamma, rdot) = 0 (B3)
    b1, b2, b3 = sp.symbols("b1 b2 b3", positive=True)
    r = rolling_bodies._ellipsoid_r(b1, b2, b3)
    th, ph, ps = sp.symbols("theta phi psi", real=True)
    gamma = euler_matrix(th, ph, ps)[:, 2]
    rq = sp.Matrix(r(gamma))
    rng = random.Random(3)
    for _ in range(3):
        pt = {th: rng.uniform(0.2, 2.9), ph: rng.uniform(-3, 3), ps: 0.3, b1: 1.3, b2: 0.7,
              b3: 0.9}
        for var in (th, ph):
            assert abs(float(rq.diff(var).dot(gamma).subs(pt))) < 1e-12
        # gamma is the inward normal: -gamma parallel to grad F(r) = 2 r_i / b_i^2
        grad = sp.Matrix([rq[0] / b1**2, rq[1] / b2**2, rq[2] / b3**2]).subs(pt)
        assert float(grad.cross(gamma.subs(pt)).norm()) < 1e-12
        assert float(sum(rq[i]**2 / (b1, b2, b3)[i]**2 for i in range(3)).subs(pt)) \
            == pytest.approx(1)


def test_convex_body_unit_ball_lagrangian():
    # with r = -R gamma the convex-body Lagrangian is the Chaplygin ball's plus m g R
    B = gm.examples.convex_body_on_plane(r=lambda G: [-G[0], -G[1], -G[2]])
    C = gm.examples.chaplygin_ball(R=1)
    m, g = syms(B, "m g")
    sub = {p: q for p in B.manifold.parameters for q in C.manifold.parameters
           if p.name == q.name}
    assert zero(B.lagrangian.xreplace(sub) - C.lagrangian + m * g)


# -- balls on surfaces ----------------------------------------------------------------------
def test_rubber_ball_on_the_plane():
    S = system("rubber_ball")
    x, y, th, ph, ps = S.manifold.coords
    xd, yd, thd, phd, psd = S.manifold.velocities
    m, a, I = syms(S, "m a I")
    # B5 oracle 5: D spanned by E_x - a dy and E_y + a dx, growth vector (2, 3, 5)
    Ex = [0, 0, sp.cos(ps), sp.sin(ps) / sp.sin(th), -sp.cos(th) * sp.sin(ps) / sp.sin(th)]
    Ey = [0, 0, sp.sin(ps), -sp.cos(ps) / sp.sin(th), sp.cos(th) * sp.cos(ps) / sp.sin(th)]
    fields = [[Ex[0], Ex[1] - a, *Ex[2:]], [Ey[0] + a, Ey[1], *Ey[2:]]]
    for F in fields:
        for f in S.constraints:
            assert zero(f.xreplace(dict(zip(S.manifold.velocities, F))))
    assert S.constraint_distribution().growth_vector() == (2, 3, 5)
    # B5 oracle 4 (Prop. 6): energy (m + I/a^2) rdot^2 / 2
    assert zero(S.energy() - on_M(S, (m + I / a**2) * (xd**2 + yd**2) / 2))


def test_rubber_ball_no_slip_only_growth():
    # B5 oracle 5: with no-slip only (E_z added) the growth vector is (3, 5)
    S = system("rubber_ball")
    N = S.manifold
    a = syms(S, "a")[0]
    x, y, th, ph, ps = N.coords
    cons = list(S.constraints[:2])
    T = gm.NonholonomicSystem(N, S.lagrangian, cons)
    assert T.constraint_distribution().growth_vector() == (3, 5)
    del a, x, y, ph


def test_rubber_ball_on_a_surface():
    x, y = sp.symbols("x y", real=True)
    S = gm.examples.rubber_ball(surface=lambda x, y: (x**2 + 2 * y**2) / 3)
    assert len(S.constraints) == 3 and S.phase_space.dim == 7


def _paraboloid_data(S):
    x1, x2, th, ph, ps = S.manifold.coords
    thd, phd, psd = syms(S, "thetadot phidot psidot")
    m, R, I, c, g = syms(S, "m R I c g")
    w = space_angular_velocity(th, ph, ps, thd, phd, psd)
    n = sp.Matrix([-c * x1, -c * x2, 1]) / sp.sqrt(1 + c**2 * (x1**2 + x2**2))
    return w, n


def test_ball_on_paraboloid_kinematics():
    # the dependent velocities are rdot = R w x n (2.7); the third component follows
    S = system("ball_on_surface_of_revolution")
    x1, x2 = S.manifold.coords[:2]
    R, c = syms(S, "R c")
    w, n = _paraboloid_data(S)
    wn = R * w.cross(n)
    for v, e in zip(S.dependent_velocities, wn[:2]):
        assert zero(S.dependent_solution[v] - e)
    x3dot = c * (x1 * wn[0] + x2 * wn[1])                # d/dt of c (x1^2 + x2^2) / 2
    assert zero(x3dot - wn[2])


@pytest.mark.slow
def test_ball_on_paraboloid_energy():
    S = system("ball_on_surface_of_revolution")
    x1, x2 = S.manifold.coords[:2]
    m, R, I, c, g = syms(S, "m R I c g")
    w, n = _paraboloid_data(S)
    E = ((I + m * R**2) * w.dot(w) / 2 - m * R**2 * w.dot(n)**2 / 2
         + m * g * c * (x1**2 + x2**2) / 2)
    assert zero(S.energy() - E)


# -- boards ---------------------------------------------------------------------------------
def test_snakeboard_chaplygin_form():
    S = system("snakeboard", rotor=False)
    x, y, th, pf, pb = S.manifold.coords
    xd, yd, thd, pfd, pbd = S.manifold.velocities
    m, I, Iw, r = syms(S, "m I I_w r")
    sm = sp.sin(pf - pb)
    c, s = sp.cos, sp.sin
    # (6.4)
    assert zero(S.dependent_solution[xd] - r * thd * (2 * c(pf) * c(pb) * c(th)
                                                      - s(pf + pb) * s(th)) / sm)
    assert zero(S.dependent_solution[yd] - r * thd * (s(pf + pb) * c(th)
                                                      + 2 * c(pf) * c(pb) * s(th)) / sm)
    # O-SB-7: the constraint matrix drops rank exactly where phi_f, phi_b = +-pi/2
    A = sp.Matrix([[sp.diff(f, v) for v in S.manifold.velocities] for f in S.constraints])
    for t in (0, sp.pi / 6, sp.pi / 3):
        for f_, b_, rank in ((sp.pi / 2, -sp.pi / 2, 1), (-sp.pi / 2, -sp.pi / 2, 1),
                             (sp.pi / 2, sp.pi / 4, 2), (sp.pi / 3, -sp.pi / 2, 2)):
            assert A.subs({th: t, pf: f_, pb: b_}).rank() == rank


def test_snakeboard_energy():
    # (6.9): E = G thetadot^2 / (2 s_-^2) + I_w ((thetadot + phi_f')^2 + (...)^2) / 2
    S = system("snakeboard", rotor=False)
    x, y, th, pf, pb = S.manifold.coords
    xd, yd, thd, pfd, pbd = S.manifold.velocities
    m, I, Iw, r = syms(S, "m I I_w r")
    sm = sp.sin(pf - pb)
    G = (I * sm**2 + m * r**2 * sp.sin(pf + pb)**2
         + 4 * m * r**2 * sp.cos(pf)**2 * sp.cos(pb)**2)
    E = G * thd**2 / (2 * sm**2) + Iw * ((thd + pfd)**2 + (thd + pbd)**2) / 2
    assert zero(S.energy() - E)


def test_snakeboard_with_rotor_energy():
    S = system("snakeboard")
    th, pf, pb = syms(S, "theta phi_f phi_b")
    thd, pfd, pbd, psd = syms(S, "thetadot phi_fdot phi_bdot psidot")
    S0 = system("snakeboard", rotor=False)
    (Ir,) = syms(S, "I_r")
    # the catalogue creates equal symbols (same names and assumptions) for both boards
    assert set(S0.phase_space.coords) <= set(S.phase_space.coords)
    assert zero(S.energy() - S0.energy() - Ir * (thd + psd)**2 / 2, expand_angles=True)


@pytest.mark.parametrize("name", ["skateboard", "board_with_fixed_axis"])
def test_coupled_boards(name):
    S = system(name)
    x, y, th, ph = S.manifold.coords
    xd, yd, thd, phd = S.manifold.velocities
    m, I, Iw, r = syms(S, "m I I_w r")
    c, s = sp.cos, sp.sin
    if name == "skateboard":      # (6.13), O-SK-1, energy with G1
        ex = r * thd * c(ph) * c(th) / s(ph)
        ey = r * thd * c(ph) * s(th) / s(ph)
        G = I * s(ph)**2 + m * r**2 * c(ph)**2
        E = G * thd**2 / (2 * s(ph)**2) + Iw * phd**2
        pf, pb = ph, -ph
    else:                         # (6.20), O-FA-1, energy with G0
        ex = r * thd * (2 * c(ph) * c(th) - s(ph) * s(th)) / s(ph)
        ey = r * thd * (2 * c(ph) * s(th) + s(ph) * c(th)) / s(ph)
        G = (I + m * r**2) * s(ph)**2 + 4 * m * r**2 * c(ph)**2
        E = G * thd**2 / (2 * s(ph)**2) + Iw * (thd + phd)**2 / 2
        pf, pb = ph, sp.S.Zero
    assert zero(S.dependent_solution[xd] - ex) and zero(S.dependent_solution[yd] - ey)
    assert zero(S.energy() - E)
    # the constraints are the snakeboard's at the coupling
    snake = system("snakeboard", rotor=False)
    sx, sy, sth, spf, spb = snake.manifold.coords
    sub = {sx: x, sy: y, sth: th, spf: pf, spb: pb,
           **dict(zip(snake.manifold.velocities[:3], S.manifold.velocities[:3])),
           **{p: q for p in snake.manifold.parameters for q in S.manifold.parameters
              if p.name == q.name}}
    for f, g in zip(S.constraints, snake.constraints):
        assert zero(f - g.xreplace(sub))


# -- free rigid body ------------------------------------------------------------------------
def test_free_rigid_body_lagrangian():
    S = system("free_rigid_body")
    th, ph, ps = S.manifold.coords
    thd, phd, psd = S.manifold.velocities
    A, B, C = syms(S, "A B C")
    p, q, r = body_angular_velocity(th, ph, ps, thd, phd, psd)
    assert zero(S.lagrangian - (A * p**2 + B * q**2 + C * r**2) / 2)
    assert S.constraints == () and zero(S.energy() - S.lagrangian)


@pytest.mark.slow
def test_free_rigid_body_euler_equations():
    # X4: A p' + (C - B) q r = 0 and cyclic, from the Lagrange equations in Euler angles
    S = system("free_rigid_body")
    th, ph, ps = S.manifold.coords
    A, B, C = syms(S, "A B C")
    V = S.vector_field()
    p, q, r = body_angular_velocity(th, ph, ps, *S.manifold.velocities)
    assert zero(A * V(p) + (C - B) * q * r)
    assert zero(B * V(q) + (A - C) * r * p)
    assert zero(C * V(r) + (B - A) * p * q)
