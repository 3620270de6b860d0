"""simulate() always returns: runs that cannot go on end with success=False and a message
within a bounded time; bad numbers are rejected before integrating; trajectories through a
singularity of the phase-space chart are flagged.  "Bounded" is counted in integration
steps (a work budget), not seconds.

Mathematics asserted: x' = x^2, x(0) = 1 blows up at t = 1 and the run stops there; the
Chaplygin sleigh with m = I = 0 has a 0/0 right-hand side; the sleigh's default chart
(xdot independent, ydot = xdot tan(phi)) is singular exactly where cos(phi) = 0, and the
reported crossing times are those where the computed phi(t) passes pi/2; there the energy
error jumps by orders of magnitude while a trajectory away from it keeps the energy to 1e-11.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.core.budget import time_limit, work_limit
from geomech.numeric import SimulationResult, simulate

P = {"m": 1.0, "I": 0.7, "a": 0.4}
#: integration steps (budget checks) allowed to a run that must stop by itself: a run that
#: went on (hung) would end on this work limit instead, with another message
STOP_WORK = 2000


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return simulate(*args, **kwargs)


def test_nan_right_hand_side_stops(sleigh):
    """m = I = 0: the phidot rate is 0/0; the run ends at once (it used to hang)."""
    x0 = {"x": 0.0, "y": 0.0, "phi": 0.3, "xdot": 1.0, "phidot": 1.0}
    with pytest.warns(RuntimeWarning, match="not finite"), work_limit(STOP_WORK):
        res = simulate(sleigh, x0, 5.0, parameters={"m": 0, "I": 0, "a": 0.5})
    assert not res.success and "not finite" in res.message and "phidot" in res.message
    assert len(res.t) == 1 and np.all(np.isfinite(res.states))


def test_nan_mid_run_keeps_the_trajectory_so_far():
    """x' = sqrt(y), y' = -1 from (0, 1): x = 2/3 (1 - (1 - t)^(3/2)) until y = 0 at t = 1;
    past it sqrt(y) is NaN and the run stops, keeping the trajectory computed so far."""
    M = gm.Manifold("M", "x y")
    x, y = M.coords
    res = _quiet(M.vector_field([sp.sqrt(y), sp.Integer(-1)]), {"x": 0.0, "y": 1.0}, 2.0)
    assert not res.success and "not finite" in res.message and "rate of x" in res.message
    assert 0.5 < res.t[-1] <= 1.0 and len(res.t) > 2
    assert np.allclose(res["x"], 2 / 3 * (1 - (1 - res.t) ** 1.5), rtol=1e-8, atol=1e-10)


def test_blow_up_is_a_step_size_collapse():
    M = gm.Manifold("M", "x")
    (x,) = M.coords
    with work_limit(STOP_WORK):                     # 329 steps today
        res = _quiet(M.vector_field([x**2]), {"x": 1.0}, 2.0)
    assert not res.success and "step size collapsed" in res.message
    assert abs(res.t[-1] - 1.0) < 1e-6                       # x = 1/(1 - t)
    ok = res["x"] < 1e3
    assert np.allclose(res["x"][ok], 1 / (1 - res.t[ok]), rtol=1e-8)


def test_zero_tolerances_end_the_run(sleigh):
    x0 = {"x": 0.0, "y": 0.0, "phi": 0.3, "xdot": 1.0, "phidot": 1.0}
    with pytest.warns(RuntimeWarning, match="rtol = atol = 0"):
        res = simulate(sleigh, x0, 5.0, parameters=P, rtol=0, atol=0)
    assert not res.success and "positive tolerance" in res.message
    ok = simulate(sleigh, x0, 1.0, parameters=P, rtol=0, atol=1e-10)  # atol alone is fine
    assert ok.success
    with pytest.raises(ValueError, match="rtol"):
        simulate(sleigh, x0, 1.0, parameters=P, rtol=-1e-9)
    with pytest.raises(ValueError, match="atol"):
        simulate(sleigh, x0, 1.0, parameters=P, atol=math.nan)


def test_time_limit_ends_the_run(sleigh):
    x0 = {"x": 0.0, "y": 0.0, "phi": 0.3, "xdot": 1.0, "phidot": 1.0}
    with work_limit(10**7):      # far more steps than 0.3 s allows on any machine
        res = _quiet(sleigh, x0, 1e6, parameters=P, timeout=0.3)
    assert not res.success and "time limit" in res.message and 0 < res.t[-1] < 1e6
    with time_limit(0.3):                               # an enclosing budget works too
        res = _quiet(sleigh, x0, 1e6, parameters=P, method="dlda", step=0.01)
    assert not res.success and "time limit" in res.message


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_parameters_and_states_are_bad_input(sleigh, bad):
    x0 = {"x": 0.0, "y": 0.0, "phi": 0.3, "xdot": 1.0, "phidot": 1.0}
    with pytest.raises(ValueError, match="parameter m is not finite"):
        simulate(sleigh, x0, 1.0, parameters={**P, "m": bad})
    with pytest.raises(ValueError, match="xdot"):
        simulate(sleigh, {**x0, "xdot": bad}, 1.0, parameters=P)
    with pytest.raises(ValueError, match="parameter I"):
        simulate(sleigh, x0, 1.0, parameters={**P, "I": complex(1, 1)})


def test_sleigh_crossing_phi_pi_over_2_is_reported(sleigh):
    """From phi = 1.2 with phidot = 1 the sleigh turns through phi = pi/2; the default chart
    divides by cos(phi) there."""
    x0 = {"x": 0.0, "y": 0.0, "phi": 1.2, "xdot": math.cos(1.2), "phidot": 1.0}
    with pytest.warns(RuntimeWarning, match="singularity of the phase-space chart"):
        res = simulate(sleigh, x0, 3.0, parameters=P)
    assert res.singularities
    phi = res["phi"]
    k = int(np.argmax(phi > math.pi / 2))                  # first step past pi/2
    t_cross = np.interp(math.pi / 2, phi[k - 1:k + 1], res.t[k - 1:k + 1])
    t_found, expr, value = res.singularities[0]
    assert expr == sp.cos(sleigh.manifold.coords[2]) and value == 0.0
    assert abs(t_found - t_cross) < 1e-6
    assert "method='dlda'" in res.message
    assert "independent=('ydot', 'phidot')" in res.message     # the split regular at pi/2
    assert "WARNING" in str(res) and "singularit" in repr(res)
    # the report travels with the solver result (e.g. through a pickled sweep run)
    sol = pickle.loads(pickle.dumps(res.solution))
    again = SimulationResult(res.t, res.states, res.coords, res.series, res.drift, sol,
                             res.parameters, res.field)
    assert again.singularities == res.singularities and again.message == res.message
    # away from the singularity the same run keeps the energy; through it, it does not
    far = simulate(sleigh, {**x0, "phi": 0.0, "xdot": 1.0, "phidot": 0.2}, 3.0, parameters=P)
    assert not far.singularities and "ok" in str(far)
    assert far.drift["energy"] < 1e-11 < 1e-8 < res.drift["energy"]


def test_skate_crossing_reported_and_dlda_passes():
    """The nonholonomic skate (a unicycle: knife edge at the centre of mass) turns on a
    circle through phi = -pi/2; DOP853 in the default chart flags it, dlda runs through it
    with the energy kept to O(h^2) and no singularity."""
    S = gm.examples.skate()
    x0 = {"x": 0.0, "y": 0.0, "phi": -1.0, "xdot": math.cos(1.0), "phidot": -1.0}
    res = _quiet(S, x0, 2.0)
    phi = res["phi"]
    assert np.min(phi) < -math.pi / 2
    t_found = res.singularities[0][0]
    assert abs(np.cos(np.interp(t_found, res.t, phi))) < 1e-3
    dl = simulate(S, x0, 2.0, method="dlda", step=0.01)
    assert dl.success and not dl.singularities and dl.drift["energy"] < 1e-3
    assert abs(dl["phi"][-1] - (-3.0)) < 1e-12                 # phidot is constant


def test_rolling_disk_falling_flat_reported_in_both_forms():
    """The rolling disk with little spin falls towards theta = 0, the pole of its Euler
    angles: 1/sin(theta) in the explicit field, a singular mass matrix in the mass-matrix
    form.  Both report it at the same time (theta_min ~ 8e-4, energy error 1e-9 instead of
    1e-12); a disk that only dips to theta ~ 0.05 (energy kept to 1e-12) is not flagged."""
    D = gm.examples.rolling_disk()
    p = {"m": 1.0, "a": 1.0, "A": 0.25, "C": 0.5, "g": 1.0}
    x0 = {"x": 0.0, "y": 0.0, "theta": 1.3, "psi": 0.0, "phi": 0.0, "thetadot": 0.0,
          "psidot": 0.02, "phidot": 0.01}
    times = []
    for implicit in (False, True):
        res = _quiet(D, x0, 4.0, parameters=p, implicit=implicit)
        assert res.success and len(res.singularities) == 1
        t, expr, _ = res.singularities[0]
        k = int(np.argmin(res["theta"]))
        assert abs(t - res.t[k]) < res.t[k + 1] - res.t[k - 1] and res["theta"][k] < 1e-3
        theta = D.manifold.coords[2]
        assert expr == (sp.Symbol("det(mass matrix)") if implicit else sp.sin(theta))
        times.append(t)
    assert times[0] == pytest.approx(times[1], abs=1e-4)
    dip = simulate(D, {**x0, "psidot": 0.3, "phidot": 0.1}, 4.0, parameters=p, implicit=True)
    assert not dip.singularities and dip.drift["energy"] < 1e-11
    # dlda meets the same pole of the configuration chart (its mass matrix d2L/dv2)
    dl = _quiet(D, x0, 4.0, parameters=p, method="dlda", step=0.01)
    assert len(dl.singularities) == 1 and abs(dl.singularities[0][0] - times[0]) < 0.01
    assert "configuration chart" in dl.message and dl.drift["energy"] > 0.1
    far = simulate(D, {**x0, "psidot": 0.5, "phidot": 2.0}, 4.0, parameters=p,
                   method="dlda", step=0.01)
    assert not far.singularities and far.drift["energy"] < 1e-4
