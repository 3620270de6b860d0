"""The discrete Lagrange-d'Alembert integrator (Cortés & Martínez 2001; McLachlan &
Perlmutter 2006): ``simulate(..., method="dlda", step=h)``.

Mathematics asserted: the discrete constraints f((q_k+q_{k+1})/2, (q_{k+1}-q_k)/h) = 0,
recomputed by independent numpy code, and the continuous constraints hold to round-off at every
step; the map is symmetric (a step of -h undoes a step of h); the error against a tight DOP853
reference is O(h^2) (ratio 4 when the step halves); the energy error does not grow over
thousands of steps on the Chaplygin sleigh and the rolling disk; the integrator passes through
the chart singularity cos(phi) = 0 of the sleigh and agrees there with DOP853 run in the other
split of the velocities.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.core.parse import as_expr
from geomech.numeric import simulate
from geomech.numeric.variational import DiscreteLagrangeDAlembert

SLEIGH_P = {"m": 1.0, "I": 0.7, "a": 0.4}
SLEIGH_X0 = {"x": 0.0, "y": 0.0, "phi": 0.3, "xdot": 1.0, "phidot": 1.0}
DISK_P = {"m": 1.0, "a": 1.0, "A": 0.25, "C": 0.5, "g": 1.0}
DISK_X0 = {"x": 0.0, "y": 0.0, "theta": 1.3, "psi": 0.0, "phi": 0.0, "thetadot": 0.0,
           "psidot": 0.5, "phidot": 2.0}


def _discrete_residual(S, res, params) -> float:
    """max_k |f((q_k+q_{k+1})/2, (q_{k+1}-q_k)/h)|, compiled independently by lambdify."""
    N = S.manifold
    by_name = {s.name: params[s.name] for s in N.parameters if s.name in params}
    f = sp.lambdify([*N.coords, *N.velocities],
                    [as_expr(c).subs({s: by_name[s.name] for s in N.parameters})
                     for c in S.constraints], "numpy")
    q = np.array([res[c] for c in N.coords])
    h = np.diff(res.t)
    qm, vm = (q[:, 1:] + q[:, :-1]) / 2, np.diff(q, axis=1) / h
    return float(np.max(np.abs(np.array(f(*qm, *vm)))))


@pytest.mark.parametrize("name", ["sleigh", "disk"])
def test_constraints_hold_to_roundoff_at_every_step(name, request):
    S = request.getfixturevalue(name)
    p, x0 = (SLEIGH_P, SLEIGH_X0) if name == "sleigh" else (DISK_P, DISK_X0)
    res = simulate(S, x0, (0, 10), parameters=p, method="dlda", step=0.05)
    assert res.success and len(res.t) == 201
    assert _discrete_residual(S, res, p) <= 1e-12
    assert np.max(res.series["discrete constraint"]) <= 1e-12
    for i in range(S.n_constraints):
        assert res.drift[f"constraint {i + 1}"] <= 1e-12


@pytest.mark.parametrize("name, h", [("sleigh", 0.02), ("disk", 0.04)])
def test_second_order_against_tight_dop853(name, h, request):
    """Error at t = 2 against DOP853 (rtol 1e-13): ratio 4 when the step halves, and the
    whole discrete trajectory agrees with the reference to O(h^2)."""
    S = request.getfixturevalue(name)
    p, x0 = (SLEIGH_P, SLEIGH_X0) if name == "sleigh" else (DISK_P, DISK_X0)
    ref = simulate(S, x0, (0, 2), parameters=p, rtol=1e-13, atol=1e-14, dense_output=True)
    errs = []
    for step in (h, h / 2):
        res = simulate(S, x0, (0, 2), parameters=p, method="dlda", step=step)
        errs.append(np.max(np.abs(res.states - ref.solution.sol(res.t).T)))
    assert 3.6 < errs[0] / errs[1] < 4.4
    assert errs[1] < 5 * (h / 2) ** 2


def test_step_is_fitted_to_the_interval(sleigh):
    res = simulate(sleigh, SLEIGH_X0, (1.0, 2.0), parameters=SLEIGH_P, method="dlda",
                   step=0.3)
    assert np.allclose(res.t, [1.0, 1.25, 1.5, 1.75, 2.0])
    assert res.solution.step == pytest.approx(0.25)


def test_backward_run_retraces_the_forward_run(disk):
    """Symmetric map: integrating back from the end with the same steps returns to the start
    (to round-off, after 100 steps), the whole way."""
    fw = simulate(disk, DISK_X0, (0, 5), parameters=DISK_P, method="dlda", step=0.05)
    bw = simulate(disk, dict(zip(map(str, fw.coords), fw.states[-1])), (5, 0),
                  parameters=DISK_P, method="dlda", step=0.05)
    assert np.allclose(bw.t, fw.t[::-1])
    assert np.max(np.abs(bw.states - fw.states[::-1])) < 1e-9


@settings(max_examples=10, deadline=None)
@given(phi=st.floats(-1.2, 1.2), xd=st.floats(-2, 2), om=st.floats(-2, 2),
       h=st.floats(0.01, 0.2))
def test_map_is_symmetric(phi, xd, om, h):
    """Phi_{-h}(Phi_h(x)) = x: the discrete flow is time-reversible (symmetric method)."""
    d = _sleigh_map()
    q0, v0 = np.array([0.1, -0.2, phi]), np.array([xd, xd * math.tan(phi), om])
    q1, v1, *_ = d.step(q0, v0, h)
    q2, v2, *_ = d.step(q1, v1, -h)
    assert np.max(np.abs(q2 - q0)) < 1e-11 and np.max(np.abs(v2 - v0)) < 1e-11


_MAPS: dict = {}


def _sleigh_map() -> DiscreteLagrangeDAlembert:
    if "sleigh" not in _MAPS:
        _MAPS["sleigh"] = DiscreteLagrangeDAlembert(gm.examples.chaplygin_sleigh(), SLEIGH_P)
    return _MAPS["sleigh"]


def test_energy_series_is_the_systems_energy(sleigh):
    res = simulate(sleigh, SLEIGH_X0, (0, 2), parameters=SLEIGH_P, method="dlda", step=0.05)
    E = res.evaluate(sleigh.restricted(sleigh.energy()))
    assert np.allclose(res["energy"], E, rtol=1e-12, atol=1e-14)


def _energy_quarters(res) -> tuple[float, float]:
    e = np.abs(res["energy"] - res["energy"][0])
    n = len(e) // 4
    return float(np.max(e[:n])), float(np.max(e[-n:]))


def test_energy_error_bounded_sleigh_2000_steps(sleigh):
    res = simulate(sleigh, SLEIGH_X0, (0, 200), parameters=SLEIGH_P, method="dlda", step=0.1)
    first, last = _energy_quarters(res)
    assert res.success and last <= 1.05 * first and res.drift["energy"] < 1e-3


@pytest.mark.parametrize("name", ["disk", pytest.param("sleigh", marks=pytest.mark.slow)])
def test_energy_error_no_secular_growth_1e4_steps(name, request):
    """10^4 steps (1.2 s of CPU on the disk): the largest energy error in each tenth of the
    run stays within 5% of that of the first tenth (bounded, no secular growth; measured on
    the disk: 8.59e-5 absolute in every tenth, E(0) = 4.41), and the constraints hold at
    every step."""
    S = request.getfixturevalue(name)
    p, x0 = (SLEIGH_P, SLEIGH_X0) if name == "sleigh" else (DISK_P, DISK_X0)
    res = simulate(S, x0, (0, 1000), parameters=p, method="dlda", step=0.1)
    assert res.success and len(res.t) == 10001 and res.drift["energy"] < 1e-3
    e = np.abs(res["energy"] - res["energy"][0])
    blocks = [float(np.max(b)) for b in np.array_split(e[1:], 10)]
    assert max(blocks) <= 1.05 * blocks[0]
    assert np.max(res.series["discrete constraint"]) <= 1e-12
    assert all(v <= 1e-12 for k, v in res.drift.items() if k.startswith("constraint"))


def test_passes_the_chart_singularity_of_the_sleigh():
    """From phi = 1.2 the sleigh turns through phi = pi/2, where the default chart (xdot
    independent) divides by cos(phi).  dlda never divides by it: it agrees to O(h^2) with
    DOP853 in the split (ydot, phidot), regular at pi/2, and reports no singularity."""
    S = gm.examples.chaplygin_sleigh()
    S2 = gm.examples.chaplygin_sleigh(independent=("ydot", "phidot"))
    phi0, u = 1.2, 1.0          # forward speed u: xdot = u cos(phi), ydot = u sin(phi)
    x0 = {"x": 0.0, "y": 0.0, "phi": phi0, "xdot": u * math.cos(phi0), "phidot": 1.0}
    x02 = {"x": 0.0, "y": 0.0, "phi": phi0, "ydot": u * math.sin(phi0), "phidot": 1.0}
    res = simulate(S, x0, (0, 2), parameters=SLEIGH_P, method="dlda", step=0.002)
    ref = simulate(S2, x02, (0, 2), parameters=SLEIGH_P, rtol=1e-13, atol=1e-14)
    assert res.success and not res.singularities
    assert np.max(res["phi"]) > math.pi / 2 + 0.3
    for c in ("x", "y", "phi", "phidot"):
        assert abs(res[c][-1] - ref[c][-1]) < 1e-5
    assert res.drift["energy"] < 1e-6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        dop = simulate(S, x0, (0, 2), parameters=SLEIGH_P)
    assert dop.singularities and not ref.singularities


def test_bad_input(sleigh):
    M = gm.Manifold("M", "x v")
    x, v = M.coords
    with pytest.raises(ValueError, match="step"):
        simulate(sleigh, SLEIGH_X0, 1.0, parameters=SLEIGH_P, method="dlda")
    with pytest.raises(ValueError, match="step"):
        simulate(sleigh, SLEIGH_X0, 1.0, parameters=SLEIGH_P, method="dlda", step=-0.1)
    with pytest.raises(TypeError, match="step"):
        simulate(sleigh, SLEIGH_X0, 1.0, parameters=SLEIGH_P, method="dlda", step="0.1")
    with pytest.raises(TypeError, match="events"):
        simulate(sleigh, SLEIGH_X0, 1.0, parameters=SLEIGH_P, method="dlda", step=0.1,
                 events=[3])
    with pytest.raises(ValueError, match="t_eval"):
        simulate(sleigh, SLEIGH_X0, 1.0, parameters=SLEIGH_P, method="dlda", step=0.1,
                 t_eval=[0.5])
    with pytest.raises(ValueError, match="step= is the fixed step"):
        simulate(sleigh, SLEIGH_X0, 1.0, parameters=SLEIGH_P, step=0.1)
    with pytest.raises(ValueError, match="forces depend on F"):
        simulate(_forced_sleigh(sp.Symbol("F")), SLEIGH_X0, 1.0, parameters=SLEIGH_P,
                 method="dlda", step=0.1)
    with pytest.raises(TypeError, match="NonholonomicSystem"):
        simulate(M.vector_field([v, -x]), {"x": 1, "v": 0}, 1.0, method="dlda", step=0.1)
    with pytest.raises(ValueError, match="not finite"):
        simulate(sleigh, SLEIGH_X0, 1.0, parameters={**SLEIGH_P, "m": math.inf},
                 method="dlda", step=0.1)
    with pytest.raises(ValueError, match="unknown method"):
        simulate(sleigh, SLEIGH_X0, 1.0, parameters=SLEIGH_P, method="leapfrog")


def test_events_located_to_second_order(sleigh):
    """Events of a dlda run (located between steps by linear interpolation) agree with
    DOP853's event location to O(h^2): ratio 4 when h halves; a terminal event ends the
    run at the step after it."""
    def turn(t, y):                       # phi = 1, crossed upwards
        return y[2] - 1.0

    turn.direction = 1
    ref = simulate(sleigh, SLEIGH_X0, (0, 3), parameters=SLEIGH_P, rtol=1e-13, atol=1e-14,
                   events=turn)
    t_ref = ref.solution.t_events[0]
    assert len(t_ref) == 1
    errs = []
    for h in (0.02, 0.01):
        res = simulate(sleigh, SLEIGH_X0, (0, 3), parameters=SLEIGH_P, method="dlda", step=h,
                       events=turn)
        (te,), (ye,) = res.solution.t_events, res.solution.y_events
        assert len(te) == 1 and abs(ye[0, 2] - 1.0) < 1e-14 and len(res.t) == round(3 / h) + 1
        errs.append(abs(te[0] - t_ref[0]))
    assert 3.0 < errs[0] / errs[1] < 5.0
    turn.terminal = True
    res = simulate(sleigh, SLEIGH_X0, (0, 3), parameters=SLEIGH_P, method="dlda", step=0.01,
                   events=turn)
    assert res.t[-2] < res.solution.t_events[0][0] <= res.t[-1] and res["phi"][-1] >= 1.0
    assert res["phi"][-2] < 1.0 and "termination" in res.message


# -- external forces -----------------------------------------------------------------------------
def _forced_sleigh(thrust=0.5, damping=0.3):
    """The sleigh pushed along its blade (force ``thrust``), turned by a constant torque 1/5
    and damped in its rotation: Q = (F cos phi, F sin phi, 1/5 - c phidot)."""
    from geomech.mechanics.system import NonholonomicSystem

    S = gm.examples.chaplygin_sleigh()
    N = S.manifold
    _, _, phi = N.coords
    Q = [thrust * sp.cos(phi), thrust * sp.sin(phi), sp.Rational(1, 5) - damping *
         N.velocities[2]]
    return NonholonomicSystem(N, S.lagrangian, S.constraints, forces=Q,
                              independent=S.independent_velocities)


def test_forced_system_second_order_constraints_and_power_balance():
    """With generalised forces Q (midpoint rule for the discrete forces,
    f_d^± = (h/2) Q(q_mid, v_mid)): error ratio 4 against DOP853 when h halves, constraints
    to round-off, and the energy balance E(t) - E(0) = int_0^t Q.qdot dt (the constraint
    forces do no work) to O(h^2), the power integrated independently from the states."""
    S = _forced_sleigh()
    ref = simulate(S, SLEIGH_X0, (0, 1), parameters=SLEIGH_P, rtol=1e-13, atol=1e-14,
                   dense_output=True)
    errs, balance = [], []
    for h in (0.02, 0.01):
        res = simulate(S, SLEIGH_X0, (0, 1), parameters=SLEIGH_P, method="dlda", step=h)
        assert res.success and res.drift["constraint 1"] <= 1e-12
        assert np.max(res.series["discrete constraint"]) <= 1e-12
        errs.append(np.max(np.abs(res.states - ref.solution.sol(res.t).T)))
        phi, xd, phid = res["phi"], res["xdot"], res["phidot"]
        power = 0.5 * xd / np.cos(phi) + (0.2 - 0.3 * phid) * phid     # Q . qdot
        work = np.sum((power[1:] + power[:-1]) / 2 * np.diff(res.t))
        balance.append(abs(res["energy"][-1] - res["energy"][0] - work))
    assert 3.8 < errs[0] / errs[1] < 4.2
    assert abs(ref["energy"][-1] - ref["energy"][0]) > 0.3          # the forces do work
    assert balance[1] < 1e-4 and 3 < balance[0] / balance[1] < 5


@settings(max_examples=5, deadline=None)
@given(phi=st.floats(-1.2, 1.2), xd=st.floats(-2, 2), om=st.floats(-2, 2),
       h=st.floats(0.01, 0.2))
def test_forced_map_is_symmetric(phi, xd, om, h):
    """The forced map (dissipative torque included) is still symmetric:
    Phi_{-h}(Phi_h(x)) = x, since Q is evaluated at the midpoint of the step."""
    if "forced" not in _MAPS:
        _MAPS["forced"] = DiscreteLagrangeDAlembert(_forced_sleigh(), SLEIGH_P)
    d = _MAPS["forced"]
    q0, v0 = np.array([0.1, -0.2, phi]), np.array([xd, xd * math.tan(phi), om])
    q1, v1, *_ = d.step(q0, v0, h)
    q2, v2, *_ = d.step(q1, v1, -h)
    assert np.max(np.abs(q2 - q0)) < 1e-11 and np.max(np.abs(v2 - v0)) < 1e-11


_CATALOGUE = ["ball_on_surface_of_revolution", "board_with_fixed_axis", "chaplygin_ball",
              "free_rigid_body", "hoop", "inclined_chaplygin_sleigh",
              "particle_holonomic_in_disguise", "particle_zdot_y_xdot", "routh_sphere",
              "rubber_ball", "sharp_edge_body", "skateboard"]


@pytest.mark.slow
@pytest.mark.parametrize("name", _CATALOGUE)
def test_catalogue_systems_keep_constraints_and_energy(name):
    """dlda on the catalogue (all parameters 1, all coordinates 0.3; the free rigid body has
    no constraints): constraints to round-off, energy error below 1e-3 at h = 0.05, and
    second order against DOP853 at t = 1 (error ratio 4 when h halves; measured 3.99-4.02)."""
    S = gm.examples.get(name)
    p = {s.name: 1.0 for s in S.manifold.parameters}
    x0 = {c.name: 0.3 for c in S.phase_space.coords}
    ref = simulate(S, x0, 1.0, parameters=p, rtol=1e-13, atol=1e-14)
    errs = []
    for h in (0.05, 0.025):
        res = simulate(S, x0, 1.0, parameters=p, method="dlda", step=h)
        assert res.success and res.drift["energy"] < 1e-3
        assert all(v <= 1e-12 for k, v in res.drift.items() if k.startswith("constraint"))
        errs.append(np.max(np.abs(res.states[-1] - ref.states[-1])))
    assert 3.8 < errs[0] / errs[1] < 4.2
