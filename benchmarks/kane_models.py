r"""``sympy.physics.mechanics`` models of catalogue mechanisms, built independently of geomech
(frames, points, rigid bodies, nonholonomic velocity constraints) for the growth studies and
the agreement tests.

Each builder imports nothing of geomech (the timings of the studies are Kane's alone): the
Chaplygin sleigh (:func:`kane_sleigh`), the rolling disk (:func:`kane_disk`), the
Chaplygin ball (:func:`kane_ball`) and the ``n``-link snake of Chaplygin sleighs
(:func:`kane_snake`), the mechanisms of the catalogue entries of the same names, with the
generalized speeds :math:`u = \dot q` and the catalogue's dependent velocities as dependent
speeds.  Parameters are positive symbols named as in the catalogue.  Every builder returns
``(KanesMethod, q, u)`` with ``q``, ``u`` in the order of the catalogue's coordinates.
"""

from __future__ import annotations

import sympy as sp

KANE_MODELS = {}


def _register(name):
    def deco(fn):
        KANE_MODELS[name] = fn
        return fn
    return deco


def _params(names: str) -> list:
    return [sp.Symbol(s, positive=True, real=True) for s in names.split()]


def _start(coords: str):
    import sympy.physics.mechanics as me

    q = list(me.dynamicsymbols(" ".join(c + "_" for c in coords.split())))
    u = list(me.dynamicsymbols(" ".join("u_" + c for c in coords.split())))
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    kd = [qi.diff() - ui for qi, ui in zip(q, u)]
    return me, q, u, N, O, kd


@_register("chaplygin_sleigh")
def kane_sleigh():
    """The Chaplygin sleigh: blade at ``(x, y)``, centre of mass at ``a`` along the blade,
    inertia ``I`` about the blade point; independent ``(xdot, phidot)``."""
    m, I, a = _params("m I a")  # noqa: E741
    me, q, u, N, O, kd = _start("x y phi")
    B = N.orientnew("B", "Axis", [q[2], N.z])
    B.set_ang_vel(N, u[2] * N.z)
    P = O.locatenew("P", q[0] * N.x + q[1] * N.y)
    P.set_vel(N, u[0] * N.x + u[1] * N.y)
    G = P.locatenew("G", a * B.x)
    G.v2pt_theory(P, N, B)
    body = me.RigidBody("sleigh", G, B, m, (me.inertia(B, 0, 0, I - m * a**2), G))
    km = me.KanesMethod(N, q_ind=q, u_ind=[u[0], u[2]], u_dependent=[u[1]], kd_eqs=kd,
                        velocity_constraints=[P.vel(N).dot(B.y)])
    km.kanes_equations([body], [])
    return km, tuple(q), tuple(u)


@_register("rolling_disk")
def kane_disk():
    """The rolling disk: centre ``(x, y, a sin(theta))``, ZXZ angles ``(psi, theta, phi)``,
    inertia ``(A, A, C)``, gravity; independent ``(thetadot, psidot, phidot)``."""
    m, a, A, C, g = _params("m a A C g")
    me, q, u, N, O, kd = _start("x y theta psi phi")
    x, y, th, ps, ph = q
    Y = N.orientnew("Y", "Axis", [ps, N.z])
    L = Y.orientnew("L", "Axis", [th, Y.x])
    D = L.orientnew("D", "Axis", [ph, L.z])
    D.set_ang_vel(N, u[2] * L.x + u[3] * sp.sin(th) * L.y
                  + (u[3] * sp.cos(th) + u[4]) * L.z)
    G = O.locatenew("G", x * N.x + y * N.y + a * sp.sin(th) * N.z)
    G.set_vel(N, u[0] * N.x + u[1] * N.y + a * sp.cos(th) * u[2] * N.z)
    P = G.locatenew("P", -a * L.y)
    P.v2pt_theory(G, N, D)
    body = me.RigidBody("disk", G, D, m, (me.inertia(L, A, A, C), G))
    km = me.KanesMethod(N, q_ind=q, u_ind=u[2:], u_dependent=u[:2], kd_eqs=kd,
                        velocity_constraints=[P.vel(N).dot(N.x), P.vel(N).dot(N.y)])
    km.kanes_equations([body], [(G, -m * g * N.z)])
    return km, tuple(q), tuple(u)


@_register("chaplygin_ball")
def kane_ball():
    """Chaplygin's balanced ball: centre ``(x, y, R)``, ZXZ angles ``(psi, theta, phi)``,
    central inertia ``diag(I1, I2, I3)``; independent ``(thetadot, phidot, psidot)``."""
    m, R, I1, I2, I3 = _params("m R I1 I2 I3")
    me, q, u, N, O, kd = _start("x y theta phi psi")
    B = N.orientnew("B", "Body", [q[4], q[2], q[3]], "ZXZ")
    rep = {qi.diff(): ui for qi, ui in zip(q, u)}
    B.set_ang_vel(N, B.ang_vel_in(N).xreplace(rep))
    G = O.locatenew("G", q[0] * N.x + q[1] * N.y + R * N.z)
    G.set_vel(N, u[0] * N.x + u[1] * N.y)
    P = G.locatenew("P", -R * N.z)
    P.v2pt_theory(G, N, B)
    body = me.RigidBody("ball", G, B, m, (me.inertia(B, I1, I2, I3), G))
    km = me.KanesMethod(N, q_ind=q, u_ind=u[2:], u_dependent=u[:2], kd_eqs=kd,
                        velocity_constraints=[P.vel(N).dot(N.x), P.vel(N).dot(N.y)])
    km.kanes_equations([body], [])
    return km, tuple(q), tuple(u)


@_register("chaplygin_snake")
def kane_snake(n: int = 3):
    r"""``(KanesMethod, q, u)`` of the ``n``-link snake of Chaplygin sleighs.

    Generalized coordinates ``q = (x, y, theta_1..theta_n)`` (``(x, y)`` the blade of link 1),
    speeds ``u = qdot`` with ``(u_x, u_theta1)`` independent and ``(u_y, u_theta2..)``
    dependent; link ``i`` is a rigid body of mass ``m_i`` and central inertia ``J_i``, its
    centre of mass the midpoint of the link, its blade at ``-a_i`` along the link from there,
    link ``i + 1`` pinned to the rear end of link ``i``; the knife edges are the velocity
    constraints ``v_{B_i} . b_i.y = 0``.
    """
    import sympy.physics.mechanics as me

    sym = {f"{k}{i + 1}": sp.Symbol(f"{k}{i + 1}", positive=True, real=True)
           for k in "mJla" for i in range(n)}
    q = me.dynamicsymbols("x_ y_ " + " ".join(f"theta{i + 1}_" for i in range(n)))
    u = me.dynamicsymbols("u_x u_y " + " ".join(f"u_theta{i + 1}" for i in range(n)))
    if n == 1:
        q, u = list(q), list(u)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    frames = []
    for i in range(n):
        b = N.orientnew(f"b{i + 1}", "Axis", [q[2 + i], N.z])
        b.set_ang_vel(N, u[2 + i] * N.z)
        frames.append(b)
    B1 = O.locatenew("B1", q[0] * N.x + q[1] * N.y)
    B1.set_vel(N, u[0] * N.x + u[1] * N.y)
    bodies, blades = [], [B1]
    C = B1.locatenew("C1", sym["a1"] * frames[0].x)
    C.v2pt_theory(B1, N, frames[0])
    for i in range(n):
        b = frames[i]
        if i:
            P = C.locatenew(f"P{i}", -sym[f"l{i}"] / 2 * frames[i - 1].x)
            P.v2pt_theory(C, N, frames[i - 1])
            C = P.locatenew(f"C{i + 1}", -sym[f"l{i + 1}"] / 2 * b.x)
            C.v2pt_theory(P, N, b)
            blade = C.locatenew(f"B{i + 1}", -sym[f"a{i + 1}"] * b.x)
            blade.v2pt_theory(C, N, b)
            blades.append(blade)
        bodies.append(me.RigidBody(f"link{i + 1}", C, b, sym[f"m{i + 1}"],
                                   (me.inertia(b, 0, 0, sym[f"J{i + 1}"]), C)))
    kd = [qi.diff() - ui for qi, ui in zip(q, u)]
    vc = [blades[i].vel(N).dot(frames[i].y) for i in range(n)]
    km = me.KanesMethod(N, q_ind=list(q), u_ind=[u[0], u[2]],
                        u_dependent=[u[1], *u[3:]], kd_eqs=kd, velocity_constraints=vc)
    km.kanes_equations(bodies, [])
    return km, tuple(q), tuple(u)
