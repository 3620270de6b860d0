"""Kozlov's vakonomic dynamics (seed 004): the skate (O4.1–O4.5), Theorem 2 vs Theorem 3 on
the sleigh (O4.6), integrable vs non-integrable constraints (O4.7, O4.8, X5), the two forms
(hamiltonian on T*N, multiplier rule on M x R^m) and their relation."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.mechanics.equations.vakonomic import VakonomicEquations
from geomech.mechanics.equations.vakonomic_hamilton import curvature_terms, vakonomic_hamiltonian
from geomech.mechanics.system import NonholonomicSystem

Z = default_policy()
TOL = {"rtol": 1e-12, "atol": 1e-12, "method": "DOP853"}


def zero(e) -> bool:
    return Z.is_zero(e)


def integrate(rhs: dict, coords, state: dict, t_end: float, params=None, **kw):
    """Integrate ``{coord: rate}`` (sympy) from ``state`` with scipy."""
    params = params or {}
    f = sp.lambdify([coords], [sp.sympify(rhs[c]).subs(params) for c in coords], "numpy")
    y0 = [float(sp.sympify(state[c]).subs(params)) for c in coords]
    return solve_ivp(lambda t, s: f(s), (0, t_end), y0, **{**TOL, **kw})


def _skate():
    N = gm.Manifold("N", "x y phi")
    x, y, phi = N.coords
    xd, yd, phid = N.velocities
    return NonholonomicSystem(N, (xd**2 + yd**2 + phid**2) / 2,
                              [xd * sp.sin(phi) - yd * sp.cos(phi)], independent=["x", "phi"],
                              name="skate")


def _sleigh(values=None):
    N = gm.Manifold("N", "x y phi", parameters="m s I")
    xd, yd, phid = N.velocities
    phi = N.coords[2]
    m, s, I = N.parameters  # noqa: E741
    L = m / 2 * ((xd - s * phid * sp.sin(phi))**2 + (yd + s * phid * sp.cos(phi))**2) \
        + I / 2 * phid**2
    if values:
        L = L.subs(values)
    return NonholonomicSystem(N, L, [-xd * sp.sin(phi) + yd * sp.cos(phi)],
                              independent=["x", "phi"], name="sleigh")


def _particle(integrable: bool):
    N = gm.Manifold("N", "x y z")
    x, y, z = N.coords
    xd, yd, zd = N.velocities
    L = (xd**2 + yd**2 + zd**2) / 2 - z
    if integrable:
        c = (1 + z**2) * (2 * x * xd + 2 * y * yd - zd)
    else:
        c = zd - y * xd
    return NonholonomicSystem(N, L, [c], independent=["x", "y"],
                              name="integrable" if integrable else "zdot_y_xdot")


@pytest.fixture(scope="module")
def skate():
    S = _skate()
    return S, S.equations("vakonomic")


# ------------------------------------------------------------------------------------------
def test_O4_1_skate_hamiltonian(skate):
    S, vak = skate
    x, y, phi = S.manifold.coords
    px, py, pphi = vak.data["momenta"]
    assert isinstance(vak, VakonomicEquations) and vak.variant == "hamiltonian"
    assert vak.form == "vakonomic" and vak.method == "vakonomic"
    assert vak.space.coords == (x, y, phi, px, py, pphi)
    # (22) and the multiplier of (21)
    w = px * sp.cos(phi) + py * sp.sin(phi)
    assert zero(vak.hamiltonian - (w**2 + pphi**2) / 2)
    (lam, lam_val), = vak.multipliers.items()
    assert zero(lam_val - (py * sp.cos(phi) - px * sp.sin(phi)))
    K = vak.data["kozlov"]
    for v, e in zip(K.velocity, (w * sp.cos(phi), w * sp.sin(phi), pphi)):
        assert zero(v - e)
    Hpp = K.hessian_p()
    assert Z.rank(Hpp) == 2
    assert all(zero(e) for e in Hpp * sp.Matrix([sp.sin(phi), -sp.cos(phi), 0]))
    # q' = dH/dp (Theorem 2, (19)), and the momenta of (21) on the constraint
    for c, p, v in zip(S.manifold.coords, vak.data["momenta"], K.velocity):
        assert zero(vak.rhs[c] - sp.diff(vak.hamiltonian, p))
        assert zero(vak.rhs[c] - v)
    xd, yd, phid = S.manifold.velocities
    at = {px: xd - lam * sp.sin(phi), py: yd + lam * sp.cos(phi), pphi: phid}
    assert zero((lam_val.xreplace(at) - lam).xreplace({yd: sp.tan(phi) * xd}))
    # the constraint holds identically along the Hamiltonian flow
    assert zero(sp.sin(phi) * vak.rhs[x] - sp.cos(phi) * vak.rhs[y])


@pytest.mark.parametrize("v, w, T_ref, X_ref", [
    (1.0, 1.0, 5.24411510858424, 0.54305341895554),
    (2.0, 0.5, 5.49147823617952, 1.32245875486726),
    (1.0, 3.0, 2.03959490215589, 0.50658408063827),
])
def test_O4_3_skate_period_and_drift(skate, v, w, T_ref, X_ref):
    S, vak = skate
    x, y, phi = S.manifold.coords
    xd, yd, phid = S.manifold.velocities
    state = vak.initial_state({x: 0, y: 0, phi: 0, xd: v, phid: w})   # lambda0 = 0
    px, py, pphi = vak.data["momenta"]
    assert (state[px], state[py], state[pphi]) == (v, 0, w)

    def full_turn(t, s):
        return s[2] - 2 * np.pi
    full_turn.terminal = True
    sol = integrate(vak.rhs, vak.space.coords, state, 50.0, events=full_turn)
    T = sol.t_events[0][0]
    xe, ye = sol.y_events[0][0][:2]
    X = xe / T
    assert abs(T - T_ref) < 1e-8
    assert abs(X - X_ref) < 1e-8
    assert abs(ye) < 1e-9
    assert 0 < X < v


def test_O4_2_skate_along_the_vakonomic_motion(skate):
    S, vak = skate
    x, y, phi = S.manifold.coords
    xd, yd, phid = S.manifold.velocities
    v, w = 1.0, 1.0
    state = vak.initial_state({x: 0, y: 0, phi: 0, xd: v, phid: w})
    coords = vak.space.coords
    ts = np.linspace(0, 10, 41)
    sol = integrate(vak.rhs, coords, state, 10.0, t_eval=ts)
    vel = sp.lambdify([coords], [vak.rhs[c] for c in S.manifold.coords], "numpy")
    lam = sp.lambdify([coords], list(vak.multipliers.values())[0], "numpy")
    Y = sol.y
    V = np.array([vel(Y[:, k]) for k in range(len(ts))]).T
    Phi = Y[2]
    assert np.allclose(V[0], v * np.cos(Phi)**2, atol=1e-12)
    assert np.allclose(V[1], v * np.sin(Phi) * np.cos(Phi), atol=1e-12)
    assert np.allclose(V[0]**2 + V[1]**2 + V[2]**2, v**2 + w**2, atol=1e-10)
    assert np.allclose([lam(Y[:, k]) for k in range(len(ts))], -v * np.sin(Phi), atol=1e-10)
    # p_x, p_y are integrals
    assert np.allclose(Y[3], v, atol=1e-12) and np.allclose(Y[4], 0, atol=1e-12)


def test_O4_4_and_O4_5_skate_vakonomic_vs_nonholonomic(skate):
    S, vak = skate
    x, y, phi = S.manifold.coords
    xd, yd, phid = S.manifold.velocities
    ld = S.equations("lagrange_dalembert")
    assert not vak.agrees_with(ld)
    lag = S.equations("vakonomic", form="lagrangian")
    assert not lag.agrees_with(ld)
    with pytest.raises(ValueError, match="depend on the multipliers"):
        lag.vector_field(on=S.phase_space)
    # nonholonomic model in the blade frame (regular for all phi)
    nh = S.equations("tzenoff", frame=[[sp.cos(phi), sp.sin(phi), 0], [0, 0, 1]],
                     quasi_velocities="v w")
    vq, wq = nh.data["quasi_velocities"]
    nh_coords = (x, y, phi, vq, wq)
    # O4.4: omega = 0, straight line for both models
    for sol in (integrate(vak.rhs, vak.space.coords,
                          vak.initial_state({x: 0, y: 0, phi: 0, xd: 1, phid: 0}), 3.0),
                integrate(nh.form_rhs, nh_coords, {x: 0, y: 0, phi: 0, vq: 1, wq: 0}, 3.0)):
        assert np.allclose(sol.y[:3, -1], [3.0, 0, 0], atol=1e-10)
    # O4.5: v = w = 1, two periods: the vakonomic skate drifts (x(2T) = 2XT), the
    # nonholonomic one stays on the circle of radius v/w
    T, X = 5.24411510858424, 0.54305341895554
    vs = integrate(vak.rhs, vak.space.coords,
                   vak.initial_state({x: 0, y: 0, phi: 0, xd: 1, phid: 1}), 2 * T)
    assert abs(vs.y[0, -1] - 2 * X * T) < 1e-8 and abs(vs.y[1, -1]) < 1e-8
    ns = integrate(nh.form_rhs, nh_coords, {x: 0, y: 0, phi: 0, vq: 1, wq: 1}, 2 * T,
                   t_eval=np.linspace(0, 2 * T, 50))
    assert np.allclose(ns.y[0]**2 + (ns.y[1] - 1)**2, 1, atol=1e-9)
    assert abs(ns.y[0, -1] - vs.y[0, -1]) > 1


# ------------------------------------------------------------------------------------------
def _pushforward_residuals(S, lag, ham):
    """Phi: (q, u, lambda) -> (q, p = dL/dqdot - A^T lambda) maps the lagrangian-form field
    onto the Hamiltonian field: X_lag(Phi^k) - X_H^k o Phi."""
    N = S.manifold
    vel = S.velocity_on_phase_space()
    A = S.constraint_matrix
    lam = sp.Matrix(lag.lambdas)
    pL = sp.Matrix([sp.diff(S.lagrangian, v) for v in N.velocities]).xreplace(
        dict(zip(N.velocities, vel)))
    Phi = dict(zip(N.coords, N.coords))
    Phi.update(zip(ham.data["momenta"], pL - A.T * lam))
    Xl = lag.vector_field()
    return [Xl(Phi[c]) - ham.rhs[c].xreplace(Phi) for c in ham.space.coords], Phi


@pytest.mark.parametrize("make", [_skate, pytest.param(_sleigh, marks=pytest.mark.slow)],
                         ids=["skate", "sleigh"])
def test_hamiltonian_and_multiplier_forms_are_the_same_flow(make):
    S = make()
    ham = S.equations("vakonomic")
    lag = S.equations("vakonomic", form="lagrangian")
    assert lag.space.coords == (*S.phase_space.coords, *lag.lambdas)
    res, Phi = _pushforward_residuals(S, lag, ham)
    assert all(zero(r) for r in res)
    # the multiplier of the Hamiltonian form is the lambda of the state
    for lam, e in ham.multipliers.items():
        assert zero(e.xreplace(Phi) - lam)
    # energy (X7) is conserved by the vakonomic flow and equals H on the constraint
    assert zero(lag.vector_field()(S.energy()))
    assert zero(ham.hamiltonian.xreplace(Phi) - S.energy())


def test_O4_6_sleigh_motion_vs_extremal_boundary_conditions():
    m, s, I = 1, sp.Rational(1, 2), sp.Rational(3, 10)  # noqa: E741
    S = _sleigh()
    pm, ps, pI = S.manifold.parameters
    vals = {pm: m, ps: s, pI: I}
    x, y, phi = S.manifold.coords
    xd, yd, phid = S.manifold.velocities
    vak = S.equations("vakonomic")
    point = {x: 0, y: 0, phi: 0, xd: 1, phid: sp.Rational(4, 5)}
    lam_ext = vak.initial_multipliers(point, condition="extremal")
    assert zero(list(lam_ext.values())[0].subs(vals) - sp.Rational(2, 5))   # m s phidot(0)
    motion = integrate(vak.rhs, vak.space.coords, vak.initial_state(point), 5.0, vals)
    extremal = integrate(vak.rhs, vak.space.coords,
                         vak.initial_state(point, condition="extremal"), 5.0, vals)
    assert np.allclose(motion.y[:3, -1], [3.2589, 1.6923, 4.7899], atol=2e-4)
    assert np.allclose(extremal.y[:3, -1], [2.7418, 0.0815, 5.8961], atol=2e-4)
    nh = S.equations("tzenoff", frame=[[sp.cos(phi), sp.sin(phi), 0], [0, 0, 1]],
                     quasi_velocities="v w")
    vq, wq = nh.data["quasi_velocities"]
    nsol = integrate(nh.form_rhs, (x, y, phi, vq, wq),
                     {x: 0, y: 0, phi: 0, vq: 1, wq: sp.Rational(4, 5)}, 5.0, vals)
    assert np.allclose(nsol.y[:3, -1], [4.4855, 3.4059, 0.7901], atol=2e-4)
    with pytest.raises(ValueError, match="determined by the extremal"):
        vak.initial_multipliers(point, condition="extremal", lambda0=[1])


# ------------------------------------------------------------------------------------------
def test_O4_7_integrable_constraint_vakonomic_equals_nonholonomic():
    S = _particle(integrable=True)
    assert S.is_holonomic()
    ld = S.equations("lagrange_dalembert")
    lag = S.equations("vakonomic", form="lagrangian")
    ham = S.equations("vakonomic")
    assert lag.agrees_with(ld)
    assert ham.agrees_with(ld)
    assert lag.vector_field(on=S.phase_space) == ld.vector_field()
    # the extra term lambda * C lies in span(a): C = c * a on the constraint
    C = curvature_terms(S.constraint_matrix, S.constraint_affine, S.manifold.coords,
                        S.manifold.velocities)
    a = S.constraint_matrix.T
    M = sp.Matrix.hstack(a, C).applyfunc(S.restricted)
    assert Z.rank(M) == 1
    # numerically, for several initial multipliers (spec: agree to 1e-11 at t = 5)
    x, y, z = S.manifold.coords
    xd, yd, zd = S.manifold.velocities
    point = {x: 0.3, y: -0.2, z: 0.13, xd: 0.5, yd: 0.7}
    ref = integrate(ld.rhs, S.phase_space.coords, point, 5.0)
    for lam0 in (0, 0.8, -1.7):
        sol = integrate(ham.rhs, ham.space.coords, ham.initial_state(point, [lam0]), 5.0)
        assert np.allclose(sol.y[:3, -1], ref.y[:3, -1], atol=1e-9, rtol=0)


def test_O4_8_nonintegrable_constraint_differs():
    S = _particle(integrable=False)
    assert not S.is_holonomic()
    ld = S.equations("lagrange_dalembert")
    ham = S.equations("vakonomic")
    lag = S.equations("vakonomic", form="lagrangian")
    assert not ham.agrees_with(ld) and not lag.agrees_with(ld)
    # the extra force of the multiplier rule is lambda * i_qdot d(dz - y dx) = lambda * i_qdot
    # (dx ^ dy) = lambda (-ydot dx + xdot dy)
    xd, yd, zd = S.manifold.velocities
    C = curvature_terms(S.constraint_matrix, S.constraint_affine, S.manifold.coords,
                        S.manifold.velocities)
    assert list(C) == [-yd, xd, 0]
    alpha = S.constraint_forms()[0]
    qdot = S.manifold.vector_field(list(S.manifold.velocities))
    assert list(C) == alpha.d().interior(qdot).as_list()
    x, y, z = S.manifold.coords
    point = {x: 0.3, y: -0.2, z: 0.13, xd: 0.5, yd: 0.7}
    ref = integrate(ld.rhs, S.phase_space.coords, point, 5.0)
    for lam0 in (0, 0.8):
        sol = integrate(ham.rhs, ham.space.coords, ham.initial_state(point, [lam0]), 5.0)
        assert np.max(np.abs(sol.y[:3, -1] - ref.y[:3, -1])) > 0.1


def test_non_quadratic_lagrangian_multiplier_form_on_integrable_constraint():
    N = gm.Manifold("N", "x z")
    x, z = N.coords
    xd, zd = N.velocities
    L = xd**2 / 2 + xd**4 / 12 + zd**2 / 2 - z
    S = NonholonomicSystem(N, L, [zd - 2 * x * xd], independent=["x"])
    lag = S.equations("vakonomic", form="lagrangian")
    assert lag.agrees_with(S.equations("lagrange_dalembert"))
    with pytest.raises(ValueError, match="quadratic in the\\s+velocities"):
        S.equations("vakonomic")


def test_vakonomic_hamiltonian_low_level_and_bad_input():
    x, y = sp.symbols("x y", real=True)
    xd, yd = sp.symbols("xdot ydot", real=True)
    K = vakonomic_hamiltonian((xd**2 + 2 * yd**2) / 2 + y * xd, (x, y), (xd, yd),
                              sp.Matrix([[1, -1]]), b=[x])
    # the velocity satisfies the affine constraint identically and equals dH/dp
    assert zero(K.velocity[0] - K.velocity[1] + x)
    for p, v in zip(K.momenta, K.velocity):
        assert zero(sp.diff(K.H, p) - v)
    with pytest.raises(ValueError, match="Gram matrix"):
        vakonomic_hamiltonian((xd**2 + yd**2) / 2, (x, y), (xd, yd), sp.Matrix([[1, 0], [2, 0]]))
    with pytest.raises(ValueError, match="2 entries"):
        vakonomic_hamiltonian((xd**2 + yd**2) / 2, (x, y), (xd, yd), sp.Matrix([[1, 0, 0]]))
    S = _skate()
    with pytest.raises(ValueError, match="form must be"):
        S.equations("vakonomic", form="kozlov")
    vak = S.equations("vakonomic")
    X, Y, phi = S.manifold.coords
    xd, yd, phid = S.manifold.velocities
    with pytest.raises(ValueError, match="misses values"):
        vak.initial_state({X: 0, Y: 0, xd: 1, phid: 1})
    with pytest.raises(ValueError, match="lambda0 needs 1"):
        vak.initial_state({X: 0, Y: 0, phi: 0, xd: 1, phid: 1}, lambda0=[1, 2])
    with pytest.raises(ValueError, match="condition"):
        vak.initial_state({X: 0, Y: 0, phi: 0, xd: 1, phid: 1}, condition="end")
    with pytest.raises(ValueError, match="multiplier names"):
        S.equations("vakonomic", multipliers="a b")


def test_forces_and_affine_constraints_both_forms_agree():
    """With non-potential forces and an affine constraint the two vakonomic forms are still
    one flow (pushforward identity)."""
    N = gm.Manifold("N", "x y z", parameters="k c")
    x, y, z = N.coords
    xd, yd, zd = N.velocities
    k, c = N.parameters
    S = NonholonomicSystem(N, (xd**2 + yd**2 + zd**2) / 2 - z, [zd - y * xd - c * x],
                           forces=[-k * xd, -k * yd, 0], independent=["x", "y"])
    ham = S.equations("vakonomic")
    lag = S.equations("vakonomic", form="lagrangian")
    res, _ = _pushforward_residuals(S, lag, ham)
    assert all(zero(r) for r in res)
    # the affine part enters the multiplier rule through -db: C = i_qdot d(alpha) - db
    C = curvature_terms(S.constraint_matrix, S.constraint_affine, N.coords, N.velocities)
    assert list(C) == [-yd + c, xd, 0]
    assert not lag.agrees_with(S.equations("lagrange_dalembert"))
