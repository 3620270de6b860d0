"""Simulation with the constraints solved numerically at every step
(``simulate(..., solve_constraints="numeric")``, :mod:`geomech.numeric.constrained`): the
same flow as the symbolic route where that exists (rolling disk, a particle on a parabola
with its configuration constraint), energy conserved, constraints kept; and the Whipple
bicycle, whose constraint minor is not solved symbolically, against the published
eigenvalues of Meijaard, Papadopoulos, Ruina & Schwab (2007), Table 2: a small perturbation
of upright rolling grows or decays at their rates.
"""

import pickle

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.numeric.constrained import ConstrainedField, solves_constraints_numerically

DISK = {"m": 1.0, "a": 0.5, "g": 9.81, "A": 0.0625, "C": 0.125}
DISK_X0 = {"x": 0, "y": 0, "theta": 1.2, "psi": 0.1, "phi": 0, "thetadot": 0.3,
           "psidot": 2.0, "phidot": 5.0}


def test_rolling_disk_both_routes_agree():
    """The disk's flow with the dependent velocities in closed form and solved numerically:
    the same trajectory (to the integrator's tolerance), energy conserved by both."""
    S = gm.examples.rolling_disk()
    te = np.linspace(0.0, 5.0, 11)
    a = gm.simulate(S, DISK_X0, 5.0, parameters=DISK, solve_constraints="symbolic", t_eval=te)
    b = gm.simulate(S, DISK_X0, 5.0, parameters=DISK, solve_constraints="numeric", t_eval=te)
    assert isinstance(b.field, ConstrainedField) and not isinstance(a.field, ConstrainedField)
    assert np.max(np.abs(a.states - b.states)) < 1e-9
    assert a.drift["energy"] < 1e-10 and b.drift["energy"] < 1e-10
    assert b.drift["constraint 1"] < 1e-14 and b.drift["constraint 2"] < 1e-14
    # the field itself: the same rates at random states
    f = ConstrainedField(S, DISK)
    g = gm.compile_vector_field(S.vector_field(), DISK)
    rng = np.random.default_rng(3)
    for _ in range(5):
        y = rng.uniform(-1, 1, 8) + np.array([0, 0, 1.5, 0, 0, 0, 0, 0])
        assert np.allclose(f(0.0, y), g(0.0, y), rtol=1e-11, atol=1e-11)


def _parabola():
    """A bead on the parabola y = x^2 in a vertical plane, with a knife edge making the
    third coordinate follow x (z' = x x'): one configuration and one velocity constraint."""
    N = gm.Manifold("N", "x y z", parameters="g")
    (x, y, _), (xd, yd, zd), (g,) = N.coords, N.velocities, N.parameters
    L = (xd**2 + yd**2 + zd**2) / 2 - g * y
    return gm.NonholonomicSystem(N, L, [zd - x * xd], holonomic={"y": y - x**2},
                                 name="bead")


def test_configuration_constraint_projected_and_routes_agree():
    S = _parabola()
    te = np.linspace(0.0, 4.0, 9)
    x0 = {"x": 0.7, "y": 0.49, "z": 0.0, "xdot": 0.3}
    a = gm.simulate(S, x0, 4.0, parameters={"g": 1.0}, solve_constraints="symbolic",
                    t_eval=te)
    b = gm.simulate(S, x0, 4.0, parameters={"g": 1.0}, solve_constraints="numeric",
                    t_eval=te)
    assert np.max(np.abs(a.states - b.states)) < 1e-9
    assert b.drift["holonomic 1"] < 1e-15            # the states returned are projected
    assert b.drift["projection 1"] < 1e-9             # index reduction's drift, measured
    assert b.drift["energy"] < 1e-10 and b.drift["constraint 1"] < 1e-14
    assert np.allclose(b["y"], b["x"]**2, rtol=0, atol=1e-15)
    # the dependent coordinate may be omitted (solved), a violating value is refused
    c = gm.simulate(S, {"x": 0.7, "z": 0.0, "xdot": 0.3}, 4.0, parameters={"g": 1.0},
                    solve_constraints="numeric", t_eval=te)
    assert np.array_equal(c.states, b.states)
    f = pickle.loads(pickle.dumps(b.field))            # rebuilt from its source
    assert np.array_equal(f(0.0, b.states[3]), b.field(0.0, b.states[3]))
    with pytest.raises(ValueError, match="violates holonomic constraint 1"):
        gm.simulate(S, {**x0, "y": 0.5}, 1.0, parameters={"g": 1.0},
                    solve_constraints="numeric")


def test_options_are_checked():
    S = gm.examples.chaplygin_sleigh()
    x0 = {"x": 0, "y": 0, "phi": 0.3, "xdot": 1.0, "phidot": 1.0}
    p = {"m": 1, "I": 0.7, "a": 0.4}
    with pytest.raises(ValueError, match="solve_constraints must be"):
        gm.simulate(S, x0, 1.0, parameters=p, solve_constraints="exact")
    with pytest.raises(ValueError, match="form= is not used"):
        gm.simulate(S, x0, 1.0, parameters=p, solve_constraints="numeric", form="voronets")
    with pytest.raises(ValueError, match="depend on"):
        gm.simulate(S, x0, 1.0, solve_constraints="numeric")
    assert not solves_constraints_numerically(S)     # small minor: the symbolic route
    M = gm.Manifold("M", "p q")
    with pytest.raises(ValueError, match="needs a NonholonomicSystem"):
        gm.simulate(M.vector_field([M.coords[1], -M.coords[0]]), [1, 0], 1.0,
                    solve_constraints="numeric")


# -- the Whipple bicycle ----------------------------------------------------------------------
# Meijaard et al. (2007), Table 2: caster, capsize and the weave pair at 3 and 5 m/s
TABLE2 = {3: [-10.35101467245920, -2.63366137253667, 1.70675605663975 + 2.31582447384325j,
              1.70675605663975 - 2.31582447384325j],
          5: [-14.07838969279820, -0.32286642900409, -0.77534188219585 + 4.46486771378823j,
              -0.77534188219585 - 4.46486771378823j]}


@pytest.fixture(scope="module")
def bike():
    return gm.examples.whipple_bicycle()


def _upright(bike, speed: float, **perturbation) -> tuple[dict, dict]:
    p = bike.numeric_defaults[0]
    state = {k: float(sp.sympify(v).xreplace(p)) for k, v in
             bike.steady_motion(speed=speed).items() if k != "thetaB"}
    return {str(k): v for k, v in p.items()}, {**state, **perturbation}


def _rates_from_samples(res, dt: float, order: int = 4) -> np.ndarray:
    """The exponents of the linear recurrence of order ``order`` fitted (least squares) to
    the sampled roll, steer and their rates: for a sum of modes exp(lambda t) the roots z of
    the recurrence are exp(lambda dt) (Prony's method)."""
    rows, rhs = [], []
    for ch in (res["phi"], res["delta"], res["phidot"], res["deltadot"]):
        for k in range(order, len(ch)):
            rows.append(ch[k - order:k][::-1])
            rhs.append(ch[k])
    a = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0]
    return np.log(np.roots(np.concatenate([[1.0], -a])).astype(complex)) / dt


@pytest.mark.slow
@pytest.mark.parametrize("speed, eps, T", [(5, 1e-4, 6.0), (3, 1e-6, 3.0)])
def test_bicycle_perturbation_follows_the_benchmark_eigenvalues(bike, speed, eps, T):
    """Upright rolling at 5 m/s (self-stable: every mode decays) and 3 m/s (the weave grows):
    the simulated roll and steer are sums of the four modes of Table 2, whose rates Prony's
    method recovers from the samples (to 2e-5 relative: the perturbation is small enough for
    the quadratic terms not to show, the tolerance tight enough for the samples of the
    decayed modes); energy and constraints kept along the way."""
    assert solves_constraints_numerically(bike)
    params, x0 = _upright(bike, speed, phidot=eps, deltadot=eps)
    dt = 0.01
    res = gm.simulate(bike, x0, (0.0, T), parameters=params,
                      t_eval=np.arange(0.0, T + 1e-9, dt), atol=1e-16)
    assert res.success and isinstance(res.field, ConstrainedField)
    assert res.drift["energy"] < 1e-12
    assert max(v for k, v in res.drift.items() if k.startswith("constraint")) < 1e-14
    assert res.drift["holonomic 1"] < 1e-14
    lam = _rates_from_samples(res, dt)
    for ref in TABLE2[speed]:
        assert np.min(np.abs(lam - ref)) < 2e-5 * max(1.0, abs(ref)), (ref, lam)
    early, late = np.abs(res["phi"][:50]).max(), np.abs(res["phi"][-50:]).max()
    assert (late > 10 * early) == (speed == 3) and (late < early) == (speed == 5)


@pytest.mark.slow
def test_bicycle_recovers_from_a_push_energy_conserved(bike):
    """A push in roll at 4.6 m/s, inside the self-stable range (4.29, 6.02) m/s of Table 2:
    the bicycle rights itself; the energy (gravity only) is conserved to the integrator's
    tolerance, the rolling constraints to round-off, the pitch kept on h = 0 by projection
    (its index-reduced value drifts, measurably, by much less than the tolerance)."""
    params, x0 = _upright(bike, 4.6, phidot=0.5)
    res = gm.simulate(bike, x0, 10.0, parameters=params)
    assert res.success and res.drift["energy"] < 1e-11
    assert max(v for k, v in res.drift.items() if k.startswith("constraint")) < 1e-14
    assert res.drift["holonomic 1"] < 1e-14 and 0 < res.drift["projection 1"] < 1e-8
    assert abs(res["phi"][-1]) < 0.02 and abs(res["phidot"]).max() > 0.3
    # the speed is (nearly) kept and the rear contact point moved forward about 46 m
    assert abs(res["x"][-1] - 46) < 2
    # the run can be watched: the bicycle drawn along the path of its rear contact point
    anim = gm.animate(res, frames=6)
    assert anim.shape.kind == "bicycle" and len(anim.track.trace) == 6
    i = np.searchsorted(res.t, anim.times[-1])
    assert np.allclose(anim.track.trace[-1], [res["x"][i], res["y"][i]], atol=1e-9)
