"""The Chaplygin ball's explicit Lagrange–d'Alembert field against sympy's ``KanesMethod``.

The same body (centre of mass at the centre, principal inertia ``diag(I1, I2, I3)``, no-slip
contact; Borisov & Mamaev (2015), §5.4) is modelled independently with
``sympy.physics.mechanics`` (ZXZ Euler angles, the body angular velocity as generalized
speeds, the contact velocity as nonholonomic constraints).  The two derivations agree on the
angular accelerations at a random exact point, and geomech's right-hand side has fewer
operations (``sympy.count_ops``, counts not seconds).
"""

from __future__ import annotations

import random

import sympy as sp
import sympy.physics.mechanics as me

import geomech as gm
from geomech.examples.kinematics import body_angular_velocity


def _kane_ball(S):
    """``(KanesMethod, q, u)`` of the ball with the body angular velocity as speeds."""
    m, R, I1, I2, I3 = S.manifold.parameters
    q = me.dynamicsymbols("x_ y_ theta_ phi_ psi_")
    x, y, th, ph, ps = q
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    B = N.orientnew("B", "Body", [ps, th, ph], "ZXZ")
    G = O.locatenew("G", x * N.x + y * N.y + R * N.z)
    ux, uy, u1, u2, u3 = me.dynamicsymbols("u_x u_y omega1 omega2 omega3")
    w = B.ang_vel_in(N)
    kd = [q[0].diff() - ux, q[1].diff() - uy] + [
        w.dot(e) - ui for e, ui in zip((B.x, B.y, B.z), (u1, u2, u3))]
    B.set_ang_vel(N, u1 * B.x + u2 * B.y + u3 * B.z)
    G.set_vel(N, ux * N.x + uy * N.y)
    P = G.locatenew("P", -R * N.z)
    P.v2pt_theory(G, N, B)
    km = me.KanesMethod(N, q_ind=q, u_ind=[u1, u2, u3], kd_eqs=kd, u_dependent=[ux, uy],
                        velocity_constraints=[P.vel(N).dot(N.x), P.vel(N).dot(N.y)])
    km.kanes_equations([me.RigidBody("ball", G, B, m, (me.inertia(B, I1, I2, I3), G))], [])
    return km, q, (u1, u2, u3, ux, uy)


def _value(e, pt) -> sp.Float:
    return sp.N(sp.sympify(e).xreplace(pt), 30)


def _float_value(e, pt) -> sp.Float:
    """The value at 40-digit floats (Kane's long expressions: exact rationals are slow)."""
    return sp.N(e.xreplace({k: sp.Float(v, 40) for k, v in pt.items()}), 30)


def test_chaplygin_ball_field_agrees_with_kane_and_is_shorter():
    S = gm.examples.chaplygin_ball()
    eq = S.equations("lagrange_dalembert")
    rhs = [eq.rhs[c] for c in S.phase_space.coords]
    km, qk, speeds = _kane_ball(S)
    kane = km.rhs()

    N = S.manifold
    _, _, th, ph, ps = N.coords
    _, _, thd, phd, psd = N.velocities
    rng = random.Random(5)
    pt = {s: sp.Rational(rng.randint(5, 20), 7) for s in (*N.parameters, *N.coords)}
    pt.update({v: sp.Rational(rng.randint(-9, 9), 5) for v in S.independent_velocities})
    pt.update({v: _value(S.dependent_solution[v], pt) for v in S.dependent_velocities})
    omega = body_angular_velocity(th, ph, ps, thd, phd, psd)
    # geomech: d(omega)/dt = d(omega)/dq qdot + d(omega)/dqdot qddot along its own field
    qddot = {v: _value(eq.rhs[v], pt) for v in S.independent_velocities}
    mine = [_value(sum(sp.diff(w, c) * pt[v] for c, v in zip(N.coords, N.velocities))
                   + sum(sp.diff(w, v) * qddot[v] for v in S.independent_velocities), pt)
            for w in omega]
    # Kane at the same state: omega from the Euler-angle rates, u_x, u_y = xdot, ydot
    kpt = {qi: pt[c] for qi, c in zip(qk, N.coords)}
    kpt.update({u: _value(w, pt) for u, w in zip(speeds[:3], omega)})
    kpt.update(dict(zip(speeds[3:], (pt[v] for v in N.velocities[:2]))))
    kpt.update({p: pt[p] for p in N.parameters})
    states = [*km.q, *km.u]
    theirs = [_float_value(kane[states.index(u)], kpt) for u in speeds[:3]]
    assert all(abs(a - b) < 1e-20 * (1 + abs(b)) for a, b in zip(mine, theirs))

    ops_geomech = sum(sp.count_ops(e) for e in rhs)
    ops_kane = sum(sp.count_ops(e) for e in kane)
    assert ops_geomech < ops_kane / 4
