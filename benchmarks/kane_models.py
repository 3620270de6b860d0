"""``sympy.physics.mechanics`` models of catalogue mechanisms, built independently of geomech
(frames, points, rigid bodies, nonholonomic velocity constraints) for the growth studies and
the agreement tests.

The Chaplygin sleigh, the rolling disk and the Chaplygin ball are in
``benchmarks/bench_mechanics.py`` (:func:`kane_model`); here the ``n``-link snake of
Chaplygin sleighs (:func:`kane_snake`), the mechanism of ``gm.examples.chaplygin_snake``.
"""

from __future__ import annotations

import sympy as sp


def kane_snake(n: int):
    r"""``(KanesMethod, q, u, params)`` of the ``n``-link snake of Chaplygin sleighs.

    Generalized coordinates ``q = (x, y, theta_1..theta_n)`` (``(x, y)`` the blade of link 1),
    speeds ``u = qdot`` with ``(u_x, u_theta1)`` independent and ``(u_y, u_theta2..)``
    dependent; link ``i`` is a rigid body of mass ``m_i`` and central inertia ``J_i``, its
    centre of mass the midpoint of the link, its blade at ``-a_i`` along the link from there,
    link ``i + 1`` pinned to the rear end of link ``i``; the knife edges are the velocity
    constraints ``v_{B_i} . b_i.y = 0``.  ``params`` maps the names ``m1, J1, l1, a1 ...`` to
    the positive symbols used (the same as geomech's).
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
    return km, tuple(q), tuple(u), sym
