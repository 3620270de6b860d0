"""Numerical reconstruction for non-solvable symmetry algebras (seed 000 Thm 2, remark):
the reduced motion plus the reconstruction ODE against a direct simulation of the full system."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.examples.kinematics import body_angular_velocity, euler_matrix, space_angular_velocity
from geomech.numeric.group_reconstruction import group_symbols, integrate_on_group
from geomech.numeric.orbit_chart import orbit_chart
from geomech.numeric.reconstruction import reconstruct_numerically

is_zero = default_policy().is_zero
T_EVAL = np.linspace(0.0, 2.0, 11)


def _hat(w):
    return sp.Matrix([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])


def _space_rotation_fields(system):
    """Generators of the left SO(3) action (space rotations) in Euler angles, prolonged to
    TSO(3): the velocity u_k with space angular velocity e_k, and its tangent lift."""
    M = system.vector_field().manifold
    q, qd = M.coords[:3], M.coords[3:]
    a, b, c = sp.symbols("a b c")
    Om = space_angular_velocity(*q, a, b, c)
    out = []
    for k in range(3):
        e = [int(i == k) for i in range(3)]
        sol = sp.solve([Om[i] - e[i] for i in range(3)], [a, b, c], dict=True)[0]
        u = [sol[a], sol[b], sol[c]]
        lift = [sum(sp.diff(u[i], q[j]) * qd[j] for j in range(3)) for i in range(3)]
        out.append(M.vector_field(u + lift))
    return out


@pytest.mark.slow
def test_free_rigid_body_so3_reconstruction_matches_direct_simulation():
    """so(3) is not solvable: reduced Euler equations in the body angular velocity plus the
    kinematic ODE for the Euler angles reproduce the Lagrangian simulation to 1e-8."""
    T = gm.examples.free_rigid_body()
    v = T.vector_field()
    th, ph, ps, thd, phd, psd = v.manifold.coords
    fields = _space_rotation_fields(T)
    w = list(body_angular_velocity(th, ph, ps, thd, phd, psd))
    x0 = {th: 1.1, ph: 0.3, ps: -0.4, thd: 0.5, phd: 0.7, psd: -0.2}
    pars = {"A": 1.0, "B": 2.0, "C": 3.5}
    rec = reconstruct_numerically(v, fields, x0, (0, 2), invariants=w, parameters=pars,
                                  t_eval=T_EVAL)
    assert rec.success and set(rec.orbit_coords) == {th, ph, ps}
    with pytest.raises(ValueError, match="not solvable"):
        gm.reconstruct(v, symmetries=fields, invariants=w)
    assert not rec.chart.is_triangular()           # a genuine ODE, not quadratures
    direct = gm.simulate(T, x0, (0, 2), parameters=pars, t_eval=T_EVAL)
    assert np.abs(rec.states - direct.states).max() < 1e-8
    # the reduced field is Euler's equations A p' = (B - C) q r (cyclic)
    A, B, C = v.manifold.parameters
    p, q, r = rec.chart.reduced.manifold.coords
    V = rec.chart.reduced.vector_field.components
    euler = [(B - C) * q * r / A, (C - A) * r * p / B, (A - B) * p * q / C]
    rng = np.random.default_rng(3)
    for _ in range(3):
        pt = dict(zip([p, q, r, A, B, C], rng.uniform(0.5, 2.0, 6)))
        assert all(abs(float((x - y).xreplace(pt))) < 1e-12 for x, y in zip(V, euler))


def test_rigid_body_attitude_on_the_group():
    """g' = g hat(omega) along Euler's equations (written from the spec, E1.1) against the
    Lagrangian simulation in Euler angles: g(t) = Q(theta, phi, psi)(t)^T to 1e-8."""
    Zm = gm.Manifold("so3", "w1 w2 w3", parameters="A B C")
    w1, w2, w3 = Zm.coords
    A, B, C = Zm.parameters
    V = Zm.vector_field([(B - C) * w2 * w3 / A, (C - A) * w3 * w1 / B, (A - B) * w1 * w2 / C])
    T = gm.examples.free_rigid_body()
    th, ph, ps, thd, phd, psd = T.vector_field().manifold.coords
    x0 = {th: 1.1, ph: 0.3, ps: -0.4, thd: 0.5, phd: 0.7, psd: -0.2}
    pars = {"A": 1.0, "B": 2.0, "C": 3.5}
    w0 = [float(e) for e in body_angular_velocity(th, ph, ps, thd, phd, psd).xreplace(x0)]
    g0 = np.array(euler_matrix(th, ph, ps).xreplace(x0).T, dtype=float)
    rec = integrate_on_group(_hat([w1, w2, w3]), V, w0, g0, (0, 2), parameters=pars,
                             t_eval=T_EVAL)
    assert rec.success
    direct = gm.simulate(T, x0, (0, 2), parameters=pars, t_eval=T_EVAL)
    Qf = sp.lambdify([th, ph, ps], euler_matrix(th, ph, ps).T)
    for k in range(len(T_EVAL)):
        ang = direct.states[k, :3]
        assert np.abs(rec.group[k] - np.array(Qf(*ang), dtype=float)).max() < 1e-8
    assert rec.orthogonality_drift() < 1e-9
    # the wrong side (g' = hat(omega) g) does not reproduce the attitude
    bad = integrate_on_group(_hat([w1, w2, w3]), V, w0, g0, (0, 2), side="left",
                             parameters=pars, t_eval=T_EVAL)
    ang = direct.states[-1, :3]
    assert np.abs(bad.group[-1] - np.array(Qf(*ang), dtype=float)).max() > 1e-3


def test_chaplygin_ball_attitude_and_position():
    """Chaplygin ball: the reduced (M, gamma) system (Euler-Poisson form, §4.2) plus
    g' = g hat(omega) and the rolling quadratures x' = R (g omega)_2, y' = -R (g omega)_1
    reproduce the full nonholonomic simulation (x, y, Euler angles) to 1e-8."""
    from tests.mechanics.analysis.test_measure import chaplygin_ball_mg

    Mg, V, _den, w = chaplygin_ball_mg()
    m, R, I = 3.0, 0.5, (1.0, 2.0, 2.5)
    D = m * R**2
    pars = {"A1": 1 / (I[0] + D), "A2": 1 / (I[1] + D), "A3": 1 / (I[2] + D), "D": D}
    B = gm.examples.chaplygin_ball()
    N = B.manifold
    x, y, th, ph, ps = N.coords
    thd, phd, psd = N.velocities[2:]
    s0 = {x: 0.0, y: 0.0, th: 0.9, ph: 0.2, ps: 0.1, thd: 0.4, phd: -0.6, psd: 0.8}
    om = np.array(body_angular_velocity(th, ph, ps, thd, phd, psd).xreplace(s0),
                  dtype=float).ravel()
    Q0 = np.array(euler_matrix(th, ph, ps).xreplace(s0), dtype=float)
    gam = Q0[:, 2]
    M0 = np.diag(I) @ om + D * np.cross(gam, np.cross(om, gam))
    g = group_symbols(3)
    Om = g * w                                      # space angular velocity
    extra = {"xc": R * Om[1], "yc": -R * Om[0]}
    rec = integrate_on_group(_hat(list(w)), V, [*M0, *gam], Q0.T, (0, 2), parameters=pars,
                             extra=extra, t_eval=T_EVAL)
    full = gm.simulate(B, s0, (0, 2), parameters=dict(m=m, R=R, I1=I[0], I2=I[1], I3=I[2]),
                       t_eval=T_EVAL)
    Qf = sp.lambdify([th, ph, ps], euler_matrix(th, ph, ps).T)
    for k in range(len(T_EVAL)):
        st = full.states[k]
        assert np.abs(rec.group[k] - np.array(Qf(*st[2:5]), dtype=float)).max() < 1e-8
        # gamma(t) of the reduced system is the third row of g(t) (gamma = Q e3)
        assert np.abs(rec.reduced[k, 3:] - rec.group[k][2, :]).max() < 1e-8
    assert np.abs(rec.extra["xc"] - full["x"]).max() < 1e-8
    assert np.abs(rec.extra["yc"] - full["y"]).max() < 1e-8


def test_solvable_case_gives_quadratures_and_agrees():
    """Chaplygin sleigh, SE(2) (solvable): the orbit chart is triangular and the numerical
    reconstruction matches the direct simulation."""
    Mf = gm.Manifold("M", "x y phi v1 omega", parameters="m a I")
    x, y, phi, v1, om = Mf.coords
    m, a, I = Mf.parameters
    v = Mf.vector_field([v1 * sp.cos(phi), v1 * sp.sin(phi), om, a * om**2, -m * a * om * v1 / I])
    u = [Mf.vector_field([-y, x, 1, 0, 0]), Mf.vector_field([1, 0, 0, 0, 0]),
         Mf.vector_field([0, 1, 0, 0, 0])]
    x0 = {x: 0.1, y: -0.2, phi: 0.3, v1: 1.0, om: 0.5}
    pars = {"m": 1.0, "a": 0.3, "I": 2.0}
    rec = reconstruct_numerically(v, u, x0, (0, 2), invariants=[v1, om],
                                  orbit_coords=[phi, x, y], parameters=pars, t_eval=T_EVAL)
    assert rec.orbit_coords == (phi, x, y) and rec.chart.is_triangular()
    direct = gm.simulate(v, x0, (0, 2), parameters=pars, t_eval=T_EVAL, energy=False)
    assert np.abs(rec.states - direct.states).max() < 1e-9
    # a given reduced solution (dense output of the reduced system): only the orbit ODE
    red = gm.simulate(rec.chart.reduced.vector_field, [1.0, 0.5], (0, 2), parameters=pars,
                      energy=False, dense_output=True)
    rec2 = reconstruct_numerically(v, u, x0, (0, 2), invariants=[v1, om],
                                   orbit_coords=[phi, x, y], parameters=pars, t_eval=T_EVAL,
                                   reduced_solution=red.solution.sol)
    assert np.abs(rec2.states - direct.states).max() < 1e-8
    assert rec2.success


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_orbit_chart_rotation_and_errors():
    M = gm.Manifold("M", "x y z")
    x, y, z = M.coords
    v = M.vector_field([-y * z, x * z, 1])
    rot = M.vector_field([-y, x, 0])
    ch = orbit_chart(v, [rot], invariants=[x**2 + y**2, z], orbit_coords=["y"],
                     names=["r2", "z"], point={x: 1, y: 0, z: 0})
    r2 = ch.reduced.manifold.coords[0]
    assert is_zero(ch.solved[x] - sp.sqrt(r2 - y**2))
    # pulled back to M (on the branch x > 0 through the point) the rate of y is v(y) = x z
    back = {r2: x**2 + y**2}
    pt = {x: sp.Rational(7, 10), y: sp.Rational(1, 5), z: sp.Rational(13, 10)}
    assert is_zero(ch.rates[0].xreplace(back).xreplace(pt) - (x * z).xreplace(pt))
    with pytest.raises(ValueError, match="dimension 1"):
        orbit_chart(v, [rot], invariants=[x**2 + y**2, z], orbit_coords=["x", "y"])
    with pytest.raises(ValueError, match="coordinates of"):
        orbit_chart(v, [rot], invariants=[x**2 + y**2, z], orbit_coords=[x + y])
    with pytest.raises(ValueError, match="side"):
        integrate_on_group(sp.zeros(2), M.vector_field([0, 0, 0]), [0, 0, 0], np.eye(2), 1,
                           side="middle")
    with pytest.raises(ValueError, match="shape"):
        integrate_on_group(sp.zeros(2), M.vector_field([0, 0, 0]), [0, 0, 0], np.eye(3), 1)
    with pytest.warns(RuntimeWarning, match="boundary of the orbit chart"), \
            np.errstate(invalid="ignore"):
        reconstruct_numerically(M.vector_field([-y * z, x * z, 0]), [rot],
                                {x: 1, y: 0, z: 2}, (0, 1.5), invariants=[x**2 + y**2, z],
                                orbit_coords=["y"])
