"""sympy.physics.mechanics in and out.

The Chaplygin sleigh and the rolling disk are built with sympy.physics.mechanics (frames,
points, rigid bodies, loads and velocity constraints, in the style of sympy's own rolling-disc
and Kane examples); the converted systems must have the flows of the catalogue systems
(Chaplygin 1912 / Borisov & Mamaev 2015 §3.3; Tzenoff 1953), compared at random exact
points, and LagrangesMethod set-ups produced by ``to_sympy_mechanics`` must give the
Lagrange-d'Alembert equations with multipliers of the system.
"""

import random

import pytest
import sympy as sp
import sympy.physics.mechanics as me
from hypothesis import given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.core.zero import default_policy
from geomech.interop.sympy_mechanics import to_sympy_mechanics

t = me.dynamicsymbols._t


# -- helpers --------------------------------------------------------------------------------
def _renamed(expr, target: gm.NonholonomicSystem):
    """``expr`` with every symbol replaced by the symbol of ``target`` with the same name."""
    N = target.manifold
    names = {s.name: s for s in (*N.coords, *N.velocities, *N.parameters)}
    return sp.sympify(expr).xreplace({s: names[s.name] for s in sp.sympify(expr).free_symbols
                                      if s.name in names})


def _exact_point(S: gm.NonholonomicSystem, rng: random.Random) -> dict:
    """Rational values for the phase-space coordinates and positive parameters; each angle
    ``s`` gets ``sin s = 2u/(1+u^2)``, ``cos s = (1-u^2)/(1+u^2)`` with rational ``u``."""
    M, N = S.phase_space, S.manifold
    pt = {}
    for c in M.coords:
        pt[c] = sp.Rational(rng.choice([-7, -5, -3, -2, -1, 1, 2, 3, 5, 7]), rng.choice([2, 3, 5]))
    for p in N.parameters:
        pt[p] = sp.Rational(rng.randint(1, 9), rng.choice([1, 2, 3])) + 1
    for c in N.coords:
        u = sp.Rational(rng.randint(1, 6), rng.choice([7, 11, 13]))
        pt[sp.sin(c)] = 2 * u / (1 + u**2)
        pt[sp.cos(c)] = (1 - u**2) / (1 + u**2)
    return pt


def _value(expr, pt: dict):
    v = sp.sympify(expr).xreplace(pt)
    assert v.is_Rational, f"not rational at the point: {v}"
    return v


def _assert_same_flow(S_ref: gm.NonholonomicSystem, S_new: gm.NonholonomicSystem,
                      points: int = 3) -> None:
    """The flows of the two systems agree exactly at random rational points (same phase-space
    coordinates up to renaming)."""
    assert [c.name for c in S_new.phase_space.coords] == \
        [c.name for c in S_ref.phase_space.coords]
    ref = S_ref.equations("lagrange_dalembert").rhs
    new = S_new.equations("lagrange_dalembert").rhs
    rng = random.Random(7)
    for _ in range(points):
        pt = _exact_point(S_ref, rng)
        for c in S_ref.phase_space.coords:
            (c_new,) = [d for d in S_new.phase_space.coords if d.name == c.name]
            assert _value(ref[c], pt) == _value(_renamed(new[c_new], S_ref), pt), c


def _lagranges_accelerations(lm: me.LagrangesMethod, S: gm.NonholonomicSystem, pt: dict):
    """Solve sympy's ``mass_matrix_full * (q', q'', lambda) = forcing_full`` at a point."""
    N = S.manifold
    qs = list(lm.q)
    rep = {q.diff(t): v for q, v in zip(qs, N.velocities)}
    rep.update({q: c for q, c in zip(qs, N.coords)})
    vel = dict(zip(N.velocities, S.velocity_on_phase_space()))
    full = {**pt, **{v: _value(vel[v], pt) for v in N.velocities}}
    M = lm.mass_matrix_full.xreplace(rep).xreplace(full)
    F = lm.forcing_full.xreplace(rep).xreplace(full)
    z = M.LUsolve(F)
    n = N.dim
    return dict(zip(N.velocities, z[n:2 * n])), full


def _assert_round_trip(S: gm.NonholonomicSystem, points: int = 3) -> None:
    """S -> LagrangesMethod -> accelerations agree with S.equations('lagrange_dalembert')."""
    _assert_lagranges_agree(S.to_sympy_mechanics(), S, points)


def _assert_lagranges_agree(lm: me.LagrangesMethod, S: gm.NonholonomicSystem,
                            points: int = 3) -> None:
    """sympy's own solution of ``lm`` agrees with S.equations('lagrange_dalembert')."""
    lm.form_lagranges_equations()
    rhs = S.equations("lagrange_dalembert").rhs
    rng = random.Random(11)
    for _ in range(points):
        pt = _exact_point(S, rng)
        acc, full = _lagranges_accelerations(lm, S, pt)
        for v in S.independent_velocities:
            assert acc[v] == _value(rhs[v], full), v
        # all accelerations satisfy the differentiated constraints
        N = S.manifold
        for f in S.constraints:
            df = sum((sp.diff(f, c) * v + sp.diff(f, v) * acc[v]
                      for c, v in zip(N.coords, N.velocities)), sp.S.Zero)
            assert df.xreplace(full) == 0


# -- models built in sympy.physics.mechanics ------------------------------------------------
def sleigh_lagranges_method(torque=None):
    """Chaplygin sleigh: blade at O1 = (x, y) along B.x, mass centre C = O1 + a B.x, inertia
    I about the vertical through O1; LagrangesMethod with the blade as nonhol_coneqs."""
    x, y, phi = me.dynamicsymbols("x y phi")
    m, I, a = sp.symbols("m I a")  # noqa: E741
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", (phi, N.z))
    O = me.Point("O")
    O1 = O.locatenew("O1", x * N.x + y * N.y)
    O1.set_vel(N, O1.pos_from(O).dt(N))
    C = O1.locatenew("C", a * B.x)
    C.v2pt_theory(O1, N, B)
    body = me.RigidBody("sleigh", C, B, m, (me.inertia(B, 0, 0, I), O1))
    blade = O1.vel(N).dot(B.y)
    loads = [(B, torque * N.z)] if torque is not None else None
    return me.LagrangesMethod(me.Lagrangian(N, body), [x, y, phi], forcelist=loads, frame=N,
                              nonhol_coneqs=[blade])


def sleigh_system(torque=None):
    """The sleigh as a sympy ``System`` with generalized speeds u1, u2, u3 (u2 dependent)."""
    x, y, phi, u1, u2, u3 = me.dynamicsymbols("x y phi u1 u2 u3")
    m, I, a = sp.symbols("m I a")  # noqa: E741
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    sysm = me.System(N, O)
    B = N.orientnew("B", "Axis", (phi, N.z))
    B.set_ang_vel(N, u3 * N.z)
    O1 = O.locatenew("O1", x * N.x + y * N.y)
    O1.set_vel(N, u1 * N.x + u2 * N.y)
    C = O1.locatenew("C", a * B.x)
    C.v2pt_theory(O1, N, B)
    sysm.add_bodies(me.RigidBody("sleigh", C, B, m, (me.inertia(B, 0, 0, I), O1)))
    sysm.add_coordinates(x, y, phi)
    sysm.add_speeds(u1, u3)
    sysm.add_speeds(u2, independent=False)
    sysm.add_kdes(u1 - x.diff(t), u2 - y.diff(t), u3 - phi.diff(t))
    sysm.add_nonholonomic_constraints(O1.vel(N).dot(B.y))
    if torque is not None:
        sysm.add_loads(me.Torque(B, torque * N.z))
    return sysm


def _disk_frames():
    """ZXZ Euler angles (psi heading, theta between axis and vertical, phi spin) as in
    gm.examples.rolling_disk: Y yawed, L leaned (disk plane spanned by L.x, L.y), B spun."""
    x, y, th, ps, ph = q = me.dynamicsymbols("x y theta psi phi")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", (ps, N.z))
    L = Y.orientnew("L", "Axis", (th, Y.x))
    B = L.orientnew("B", "Axis", (ph, L.z))
    return q, N, L, B


def disk_kanes_method():
    """Rolling disk with Kane's generalized speeds: u1..u3 the angular velocity of the disk in
    the leaned frame, u4, u5 the velocity of the centre (dependent); gravity as a load."""
    (x, y, th, ps, ph), N, L, B = _disk_frames()
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1:6")
    m, a, A, C, g = sp.symbols("m a A C g")
    O = me.Point("O")
    G = O.locatenew("G", x * N.x + y * N.y + a * sp.sin(th) * N.z)
    w = B.ang_vel_in(N)
    kd = [w.dot(L.x) - u1, w.dot(L.y) - u2, w.dot(L.z) - u3, x.diff(t) - u4, y.diff(t) - u5]
    B.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    G.set_vel(N, u4 * N.x + u5 * N.y + a * sp.cos(th) * u1 * N.z)
    slip = G.vel(N) + B.ang_vel_in(N).cross(-a * L.y)  # velocity of the contact point
    disk = me.RigidBody("disk", G, B, m, (me.inertia(L, A, A, C), G))
    return me.KanesMethod(N, q_ind=[x, y, th, ps, ph], u_ind=[u1, u2, u3], kd_eqs=kd,
                          u_dependent=[u4, u5],
                          velocity_constraints=[slip.dot(N.x), slip.dot(N.y)],
                          bodies=[disk], forcelist=[(G, -m * g * N.z)])


def disk_system():
    """The rolling disk as a ``System`` with q' as speeds, gravity from
    ``apply_uniform_gravity``."""
    q, N, L, B = _disk_frames()
    x, y, th = q[:3]
    us = me.dynamicsymbols("ux uy uth ups uph")
    m, a, A, C, g = sp.symbols("m a A C g")
    O = me.Point("O")
    sysm = me.System(N, O)
    G = O.locatenew("G", x * N.x + y * N.y + a * sp.sin(th) * N.z)
    G.set_vel(N, G.pos_from(O).dt(N))
    sysm.add_bodies(me.RigidBody("disk", G, B, m, (me.inertia(L, A, A, C), G)))
    sysm.add_coordinates(*q)
    sysm.add_speeds(*us[2:])
    sysm.add_speeds(*us[:2], independent=False)
    sysm.add_kdes(*[u - qi.diff(t) for u, qi in zip(us, q)])
    slip = G.vel(N) + B.ang_vel_in(N).cross(-a * L.y)
    sysm.add_nonholonomic_constraints(slip.dot(N.x), slip.dot(N.y))
    sysm.apply_uniform_gravity(-g * N.z)
    return sysm


# -- from sympy.physics.mechanics ----------------------------------------------------------
@pytest.mark.parametrize("build", [sleigh_lagranges_method, sleigh_system])
def test_sleigh_from_sympy_matches_catalogue(build):
    S = gm.from_sympy_mechanics(build(), independent=["xdot", "phidot"])
    ref = gm.examples.chaplygin_sleigh()
    assert [c.name for c in S.manifold.coords] == ["x", "y", "phi"]
    pol = default_policy()
    assert pol.is_zero(_renamed(S.lagrangian, ref) - ref.lagrangian)
    assert pol.is_zero(_renamed(S.constraints[0], ref) - ref.constraints[0])
    _assert_same_flow(ref, S)


@pytest.mark.parametrize("build", [disk_kanes_method, disk_system])
def test_rolling_disk_from_sympy_matches_catalogue(build):
    t1 = me.dynamicsymbols("theta psi phi")
    S = gm.from_sympy_mechanics(build(), independent=[q.diff(t) for q in t1])
    ref = gm.examples.rolling_disk()
    _assert_same_flow(ref, S)
    # gravity arrives as a generalized force (a load), the catalogue has it as a potential:
    # the total energy of the catalogue is conserved along the converted flow
    E = _renamed(ref.energy(), S)
    rhs = S.equations("lagrange_dalembert").rhs
    dE = sum(sp.diff(E, c) * rhs[c] for c in S.phase_space.coords)
    rng = random.Random(3)
    for _ in range(2):
        assert _value(dE, _exact_point(S, rng)) == 0


def test_independent_speeds_of_the_model_are_kept():
    """u1 = x', u3 = phi' are the System's independent speeds: xdot, phidot stay independent;
    the disk's System has theta', psi', phi' independent."""
    S = gm.from_sympy_mechanics(sleigh_system())
    assert [v.name for v in S.independent_velocities] == ["xdot", "phidot"]
    D = gm.from_sympy_mechanics(disk_system())
    assert [v.name for v in D.independent_velocities] == ["thetadot", "psidot", "phidot"]


def test_sleigh_torque_becomes_generalized_force():
    tau = sp.Symbol("tau")
    for model in (sleigh_lagranges_method(tau), sleigh_system(tau)):
        S = gm.from_sympy_mechanics(model)
        assert S.forces == (0, 0, tau)


# -- back to sympy.physics.mechanics -------------------------------------------------------
def test_round_trip_sleigh_and_disk():
    _assert_round_trip(gm.examples.chaplygin_sleigh())
    _assert_round_trip(gm.examples.rolling_disk(), points=1)


def test_round_trip_with_forces_and_affine_constraint():
    ref = gm.examples.chaplygin_sleigh()
    N = ref.manifold
    x, y, phi = N.coords
    xd, yd, phid = N.velocities
    S = gm.NonholonomicSystem(N, ref.lagrangian, [-xd * sp.sin(phi) + yd * sp.cos(phi) - x],
                              forces={phi: -x * phid, x: y}, independent=["xdot", "phidot"])
    _assert_round_trip(S)
    back = gm.from_sympy_mechanics(to_sympy_mechanics(S), independent=["xdot", "phidot"])
    _assert_same_flow(S, back)


def test_holonomic_constraint_enters_differentiated():
    """A pendulum in Cartesian coordinates (LagrangesMethod with hol_coneqs): the converted
    system carries the derivative of x^2 + y^2 - l^2 and has sympy's own accelerations."""
    x, y = me.dynamicsymbols("x y")
    m, g, l = sp.symbols("m g l")  # noqa: E741
    lm = me.LagrangesMethod(m * (x.diff()**2 + y.diff()**2) / 2 - m * g * y, [x, y],
                            hol_coneqs=[x**2 + y**2 - l**2])
    S = gm.from_sympy_mechanics(lm)
    xs, ys = S.manifold.coords
    xd, yd = S.manifold.velocities
    assert default_policy().is_zero(S.constraints[0] - (2 * xs * xd + 2 * ys * yd))
    _assert_lagranges_agree(lm, S)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=6, max_size=6))
def test_round_trip_is_identity(c):
    """S -> LagrangesMethod -> S returns the same Lagrangian, constraints and forces."""
    N = gm.Manifold("N", "x y z", parameters="k")
    (x, y, z), (xd, yd, zd), (k,) = N.coords, N.velocities, N.parameters
    L = (xd**2 + yd**2 + zd**2) / 2 + c[0] * xd * zd / 4 - k * (x**2 + c[1] * y * z)
    con = zd - (c[2] * y + 1) * xd - c[3] * sp.sin(x) * yd
    S = gm.NonholonomicSystem(N, L, [con], forces=[c[4] * yd, 0, c[5] * x])
    S2 = gm.from_sympy_mechanics(S.to_sympy_mechanics())
    pol = default_policy()
    assert pol.is_zero(_renamed(S2.lagrangian, S) - L)
    assert pol.is_zero(_renamed(S2.constraints[0], S) - con)
    forces = S2.forces or (0, 0, 0)
    assert all(pol.is_zero(_renamed(a, S) - b) for a, b in zip(forces, S.forces))


# -- bad input -----------------------------------------------------------------------------
def test_errors():
    with pytest.raises(TypeError, match="System, KanesMethod or LagrangesMethod"):
        gm.from_sympy_mechanics(gm.examples.chaplygin_sleigh())
    with pytest.raises(TypeError, match="NonholonomicSystem"):
        to_sympy_mechanics("sleigh")
    x, y = me.dynamicsymbols("x y")
    L = (x.diff() ** 2 + y.diff() ** 2) / 2
    with pytest.raises(ValueError, match="not linear in the velocities"):
        gm.from_sympy_mechanics(me.LagrangesMethod(
            L, [x, y], nonhol_coneqs=[x.diff() ** 2 + y.diff() ** 2 - 1]))
    F = me.dynamicsymbols("F")
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, x.diff() * N.x + y.diff() * N.y)
    with pytest.raises(ValueError, match="F\\(t\\), which is not a coordinate"):
        gm.from_sympy_mechanics(me.LagrangesMethod(L, [x, y], forcelist=[(P, F * N.x)],
                                                   frame=N))
    with pytest.raises(ValueError, match="explicitly on the time"):
        gm.from_sympy_mechanics(me.LagrangesMethod(L + t * x, [x, y]))
    with pytest.raises(ValueError, match="degenerate Lagrangian"):
        gm.from_sympy_mechanics(me.LagrangesMethod(x.diff() ** 2 / 2, [x, y]))


def test_the_method_converts_without_importing_interop_and_agrees_with_the_function():
    """``S.to_sympy_mechanics()`` in a fresh process that never imported ``geomech.interop``
    (mechanics knows no interop: the converter is registered, through the top-level lazy
    table) gives the equations of ``gm.to_sympy_mechanics(S)``, which agree with
    Lagrange-d'Alembert (checked by ``_assert_round_trip`` above)."""
    import subprocess
    import sys

    code = ("import sys, geomech as gm\n"
            "from geomech.core.zero import default_policy\n"
            "S = gm.examples.chaplygin_sleigh()\n"
            "print('geomech.interop.sympy_mechanics' in sys.modules)\n"
            "a = S.to_sympy_mechanics(); a.form_lagranges_equations()\n"
            "b = gm.to_sympy_mechanics(S); b.form_lagranges_equations()\n"
            "z = default_policy().is_zero\n"
            "print(all(z(e) for e in a.mass_matrix_full - b.mass_matrix_full),\n"
            "      all(z(e) for e in a.forcing_full - b.forcing_full))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout.split("\n")
    assert out[:2] == ["False", "True True"]
