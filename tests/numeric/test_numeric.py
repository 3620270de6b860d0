"""geomech.numeric: compiled fields and simulate() with drift monitoring.

Mathematics asserted: compiled right-hand sides equal the symbolic fields at random points;
exact solutions are reproduced (harmonic oscillator, the nonholonomic skate's circle); the
energy (and the hoop's two linear integrals with the numbers of seeds_001_004 O1.7) stay
constant along integrated trajectories of catalogue systems to 1e-9 relative.
"""

from __future__ import annotations

import math
import random
import sys

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import geomech as gm
from geomech.numeric import CompiledField, compile_functions, compile_vector_field, simulate

Rat = sp.Rational


@pytest.fixture(scope="module")
def oscillator():
    M = gm.Manifold("M", "x v", parameters="k")
    x, v = M.coords
    (k,) = M.parameters
    return M, M.vector_field([v, -k * x])


# -- compile -------------------------------------------------------------------------------
def _random_points(field, params, n=5, seed=1):
    rng = random.Random(seed)
    for _ in range(n):
        yield {c: rng.uniform(-1.2, 1.2) for c in field.manifold.coords}


@pytest.mark.parametrize("name,params", [
    ("chaplygin_sleigh", {"m": 1.3, "I": 0.7, "a": 0.4}),
    ("inclined_chaplygin_sleigh", {"m": 1.3, "I": 0.9, "a": 0.4, "g": 9.81, "alpha": 0.3}),
    ("hoop", {"m": 1.0, "a": 1.0, "g": 9.81}),
])
def test_compiled_field_equals_symbolic(name, params):
    S = gm.examples.get(name)
    V = S.vector_field()
    f = compile_vector_field(V, parameters=params)
    assert isinstance(f, CompiledField) and f.coords == V.manifold.coords
    sym_params = {p: params[p.name] for p in S.manifold.parameters}
    for pt in _random_points(V, params):
        pt = {c: (0.9 + val / 2 if c.name == "phi" else val) for c, val in pt.items()}
        expected = [float(sp.N(c.xreplace({**sym_params, **pt}), 20)) for c in V.components]
        got = f(0.0, [pt[c] for c in V.manifold.coords])
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_compiled_field_vectorised_and_cse(oscillator):
    M, V = oscillator
    f = compile_vector_field(V, parameters={"k": 4})
    Y = np.array([[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]])
    out = f(0.0, Y)
    np.testing.assert_allclose(out, [[0.5, 0.0, -1.0], [-4.0, -8.0, -12.0]])
    np.testing.assert_allclose(f([1.0, 0.5]), [0.5, -4.0])       # f(y) also works
    # one CSE over all components: a shared subexpression is computed once
    x, y = sp.symbols("x y", real=True)
    g = compile_functions([sp.sin(x * y) ** 2, sp.cos(x * y) + sp.sin(x * y)], [x, y])
    assert g.operations < sp.count_ops(sp.sin(x * y) ** 2) + sp.count_ops(
        sp.cos(x * y) + sp.sin(x * y))
    np.testing.assert_allclose(g([0.3, 0.7]), [math.sin(0.21) ** 2,
                                               math.cos(0.21) + math.sin(0.21)])


def test_compile_errors(oscillator, sleigh):
    M, V = oscillator
    with pytest.raises(ValueError, match="k"):
        compile_vector_field(V)                                   # k missing
    with pytest.raises(ValueError, match="unknown parameter 'q'"):
        compile_vector_field(V, parameters={"q": 1})
    with pytest.raises(ValueError, match="must be a number"):
        compile_vector_field(V, parameters={"k": sp.Symbol("z")})
    with pytest.raises(TypeError, match="VectorField"):
        compile_vector_field([1, 2])
    S = gm.examples.chaplygin_sleigh(potential=True)
    with pytest.raises(ValueError, match="undefined functions"):
        compile_vector_field(S.vector_field(), parameters={"m": 1, "I": 1, "a": 1})
    with pytest.raises(ValueError, match="components"):
        compile_vector_field(V, parameters={"k": 1})(0.0, [1.0, 2.0, 3.0])


# -- simulate ------------------------------------------------------------------------------
def test_simulate_exact_solution(oscillator):
    M, V = oscillator
    x, v = M.coords
    k = M.parameters[0]
    res = simulate(V, {x: 1.0, "v": 0.0}, (0, 5), parameters={k: 4},
                   integrals={"H": v**2 / 2 + k * x**2 / 2},
                   t_eval=np.linspace(0, 5, 51))
    assert res.success and res.states.shape == (51, 2)
    np.testing.assert_allclose(res["x"], np.cos(2 * res.t), atol=1e-9)
    np.testing.assert_allclose(res[v], -2 * np.sin(2 * res.t), atol=1e-9)
    assert res.drift["H"] < 1e-10
    assert res.final[x] == pytest.approx(math.cos(10), abs=1e-9)
    np.testing.assert_allclose(res.evaluate(x**2 + v**2 / 4), 1.0, atol=1e-9)
    assert "drift of H" in res.summary()
    # agrees with a plain scipy integration of the hand-written field
    ref = solve_ivp(lambda t, y: [y[1], -4 * y[0]], (0, 5), [1.0, 0.0], method="DOP853",
                    rtol=1e-11, atol=1e-12, t_eval=res.t)
    np.testing.assert_allclose(res.states.T, ref.y, atol=1e-9)


def test_bad_initial_states(oscillator, sleigh):
    M, V = oscillator
    with pytest.raises(ValueError, match="misses values for v"):
        simulate(V, {"x": 1.0}, 1.0, parameters={"k": 1})
    with pytest.raises(ValueError, match="unknown names in the initial state: w"):
        simulate(V, {"x": 1.0, "v": 0.0, "w": 2.0}, 1.0, parameters={"k": 1})
    with pytest.raises(ValueError, match="needs 2 values"):
        simulate(V, [1.0], 1.0, parameters={"k": 1})
    with pytest.raises(TypeError, match="real number"):
        simulate(V, {"x": "one", "v": 0.0}, 1.0, parameters={"k": 1})
    with pytest.raises(ValueError, match="not finite"):
        simulate(V, {"x": float("nan"), "v": 0.0}, 1.0, parameters={"k": 1})
    with pytest.raises(ValueError, match="k"):
        simulate(V, {"x": 1.0, "v": 0.0}, 1.0)                      # parameter missing
    with pytest.raises(ValueError, match="t_span"):
        simulate(V, {"x": 1.0, "v": 0.0}, (1.0, 1.0), parameters={"k": 1})
    with pytest.raises(TypeError, match="vector_field"):
        simulate(object(), {"x": 1.0}, 1.0)
    # a dependent velocity of a nonholonomic system is named as such
    with pytest.raises(ValueError, match="ydot is a dependent velocity"):
        simulate(sleigh, {"x": 0, "y": 0, "phi": 0, "ydot": 1, "phidot": 0}, 1.0,
                 parameters={"m": 1, "I": 1, "a": 1})


def test_sleigh_energy_and_constraint_drift(sleigh):
    params = {"m": 1.0, "I": 1.5, "a": 0.3}
    x0 = {"x": 0.0, "y": 0.0, "phi": 0.0, "xdot": 1.0, "phidot": 0.4}
    res = simulate(sleigh, x0, (0, 4), parameters=params)
    assert res.success
    assert res.drift["energy"] < 1e-9
    assert res.drift["constraint 1"] < 1e-12
    # reduced sleigh: m v1' = m a w^2, I w' = -m a w v1 conserve E; v1 increases (a > 0)
    phi = res["phi"]
    assert np.all(np.abs(phi) < 1.2)
    v1 = res["xdot"] / np.cos(phi)
    assert v1[-1] > v1[0]
    E = 0.5 * (v1**2 + 1.5 * res["phidot"] ** 2)
    assert np.max(np.abs(E - E[0])) < 1e-9 * E[0]


def test_inclined_sleigh_energy():
    S = gm.examples.inclined_chaplygin_sleigh()
    res = simulate(S, {"x": 0, "y": 0, "phi": 1.2, "ydot": 0.3, "phidot": 0.5}, (0, 2),
                   parameters={"m": 1, "I": 2, "a": 0.5, "g": 9.81, "alpha": 0.2})
    assert res.success and res.drift["energy"] < 1e-9


def test_skate_moves_on_a_circle():
    # seeds_001_004 §4.3: x = (v/w) sin wt, y = (v/w)(1 - cos wt), phi = wt
    S = gm.examples.skate()
    v, w = 1.0, 1.0
    res = simulate(S, {"x": 0, "y": 0, "phi": 0, "xdot": v, "phidot": w}, (0, 1.4),
                   t_eval=np.linspace(0, 1.4, 29))
    t = res.t
    np.testing.assert_allclose(res["x"], v / w * np.sin(w * t), atol=1e-9)
    np.testing.assert_allclose(res["y"], v / w * (1 - np.cos(w * t)), atol=1e-9)
    np.testing.assert_allclose(res["phi"], w * t, atol=1e-9)
    r = np.hypot(res["x"], res["y"] - v / w)
    np.testing.assert_allclose(r, v / w, atol=1e-9)           # bounded: the circle
    assert res.drift["energy"] < 1e-9


def _u(x, k):
    """Solution of (1 - x^2) u'' = u (hoop, kappa = 1) with the initial data of O1.7."""
    y0 = [1.0, 0.0] if k == 1 else [0.0, 1.0]
    if x == 0:
        return y0
    s = solve_ivp(lambda s, u: [u[1], u[0] / (1 - s * s)], (0.0, x), y0, method="DOP853",
                  rtol=1e-13, atol=1e-14)
    return s.y[:, -1]


def test_hoop_integrals_O17():
    # seeds_001_004 O1.7: hoop m = a = 1, g = 9.81; E and the two linear integrals
    H = gm.examples.hoop()
    x0 = {"x": 0, "y": 0, "theta": 1.2, "psi": 0, "phi": 0, "thetadot": 0.3, "psidot": 1.5,
          "phidot": 4.0}
    cs = {c.name: i for i, c in enumerate(H.phase_space.coords)}

    def I(k):  # noqa: E743
        def F(t, y):
            th, psd, phd = y[cs["theta"]], y[cs["psidot"]], y[cs["phidot"]]
            u, du = _u(math.cos(th), k)
            return du * psd * math.sin(th) ** 2 + 2 * u * (psd * math.cos(th) + phd)
        return F

    res = simulate(H, x0, (0, 3), parameters={"m": 1, "a": 1, "g": 9.81},
                   integrals={"I1": I(1), "I2": I(2)}, t_eval=np.linspace(0, 3, 31), rtol=1e-12)
    assert res.series["energy"][0] == pytest.approx(30.34317053957, abs=1e-10)
    assert res.series["I1"][0] == pytest.approx(10.21053889981, abs=1e-10)
    assert res.series["I2"][0] == pytest.approx(4.76419245715, abs=1e-10)
    for name in ("energy", "I1", "I2"):
        assert res.drift[name] * abs(res.series[name][0]) < 1e-10      # absolute, as in O1.7


def test_rolling_disk_energy():
    D = gm.examples.rolling_disk(m=1, a=1, A=Rat(1, 4), C=Rat(1, 2))        # uniform disk
    x0 = {"x": 0, "y": 0, "theta": 1.3, "psi": 0.2, "phi": 0, "thetadot": -0.2,
          "psidot": 0.7, "phidot": 3.0}
    res = simulate(D, x0, (0, 5), parameters={"g": 9.81})
    assert res.success
    assert res.drift["energy"] < 1e-9
    assert max(res.drift["constraint 1"], res.drift["constraint 2"]) < 1e-12
    assert 0 < res["theta"].min() and res["theta"].max() < math.pi      # it does not fall


def test_chaplygin_ball_energy_and_area_integral():
    S = gm.examples.chaplygin_ball(m=1, R=1, I1=Rat(2, 5), I2=Rat(1, 2), I3=Rat(3, 5))
    th, ph, ps, thd, phd, psd = [c for c in S.phase_space.coords if c.name in
                                 ("theta", "phi", "psi", "thetadot", "phidot", "psidot")]
    area = sp.diff(S.lagrangian, psd)                    # (5.16) = (I w, gamma)
    x0 = {"x": 0, "y": 0, "theta": 1.1, "phi": 0.3, "psi": 0.0, "thetadot": 0.4,
          "phidot": 1.2, "psidot": -0.5}
    res = simulate(S, x0, (0, 3), integrals={"area": area})
    assert res.success
    assert res.drift["energy"] < 1e-9 and res.drift["area"] < 1e-9
    assert max(res.drift["constraint 1"], res.drift["constraint 2"]) < 1e-12


def test_routh_sphere_jellett_along_simulate():
    S = gm.examples.routh_sphere(m=1, R=1, a=Rat(3, 10), I1=Rat(2, 5), I3=Rat(1, 2),
                                 g=Rat(981, 100))
    th, phd, psd = [c for c in S.phase_space.coords if c.name in ("theta", "phidot", "psidot")]
    a, R, I1, I3 = Rat(3, 10), 1, Rat(2, 5), Rat(1, 2)
    jel = ((a + R * sp.cos(th)) * I3 * phd
           + (R * I1 * sp.sin(th)**2 + I3 * sp.cos(th) * (a + R * sp.cos(th))) * psd)
    x0 = {"x": 0, "y": 0, "theta": 0.9, "phi": 0.0, "psi": 0.0, "thetadot": 0.2,
          "phidot": 2.0, "psidot": 0.5}
    res = simulate(S, x0, (0, 2), integrals={"Jellett": jel})
    assert res.drift["energy"] < 1e-9 and res.drift["Jellett"] < 1e-9


def test_simulate_object_with_vector_field():
    class Rotor:
        def __init__(self):
            self.M = gm.Manifold("so2", "w1 w2")
            w1, w2 = self.M.coords
            self._V = self.M.vector_field([-w2, w1])

        def vector_field(self):
            return self._V

        def energy(self):
            w1, w2 = self.M.coords
            return (w1**2 + w2**2) / 2

    res = simulate(Rotor(), {"w1": 1.0, "w2": 0.0}, 2.0)
    assert res.drift["energy"] < 1e-10 and "constraint 1" not in res.drift
    res = simulate(Rotor(), {"w1": 1.0, "w2": 0.0}, 2.0, energy=False, integrals=["w1**2"])
    assert set(res.drift) == {"I1"} and res.drift["I1"] > 0.1      # not an integral


def test_plot(oscillator, monkeypatch):
    M, V = oscillator
    res = simulate(V, {"x": 1.0, "v": 0.0}, 3.0, parameters={"k": 1},
                   integrals={"H": "v**2/2 + k*x**2/2"})
    pytest.importorskip("matplotlib")
    fig = res.plot(path=("x", "v"))
    assert len(fig.axes) == 3
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        res.plot()


def test_gm_simulate_and_so3_rigid_body():
    import geomech.numeric

    assert gm.simulate is geomech.numeric.simulate
    rb = gm.rigid_body_so_n(3, (1, 2, 3))                  # any object with .vector_field()
    coords = rb.vector_field().manifold.coords
    res = gm.simulate(rb, {c: 0.3 * (i + 1) for i, c in enumerate(coords)}, 10.0)
    assert res.success and res.drift["energy"] < 1e-10


def test_vakonomic_skate_drift_O43():
    # seeds_001_004 O4.3 (v = w = 1): period T = 4K(-1), mean drift X; y(T) = 0
    S = gm.examples.skate()
    V = S.equations("vakonomic").vector_field()
    names = [c.name for c in V.manifold.coords]
    assert names == ["x", "y", "phi", "p_x", "p_y", "p_phi"]
    iphi = names.index("phi")

    def full_turn(t, y):
        return y[iphi] - 2 * math.pi
    full_turn.terminal = True

    x, y, phi, px, py, pphi = V.manifold.coords
    H = ((px * sp.cos(phi) + py * sp.sin(phi))**2 + pphi**2) / 2          # (22)
    res = simulate(V, {"x": 0, "y": 0, "phi": 0, "p_x": 1.0, "p_y": 0.0, "p_phi": 1.0},
                   (0, 10), events=full_turn, rtol=1e-12, atol=1e-13, integrals={"H": H})
    T = res.solution.t_events[0][0]
    assert T == pytest.approx(5.24411510858424, abs=1e-9)
    xT, yT = res.solution.y_events[0][0][:2]
    assert xT / T == pytest.approx(0.54305341895554, abs=1e-9)
    assert abs(yT) < 1e-9
    assert res.drift["H"] < 1e-10


@pytest.mark.parametrize("form", ["voronets", "appell", "tzenoff"])
def test_simulate_other_forms_agree(sleigh, form):
    params = {"m": 1.0, "I": 1.5, "a": 0.3}
    x0 = {"x": 0.0, "y": 0.0, "phi": 0.2, "xdot": 1.0, "phidot": 0.4}
    ref = simulate(sleigh, x0, (0, 2), parameters=params)
    res = simulate(sleigh, x0, (0, 2), parameters=params, form=form, t_eval=ref.t)
    assert res.drift["energy"] < 1e-9
    np.testing.assert_allclose(res.states, ref.states, atol=1e-8)
    with pytest.raises(ValueError, match="form="):
        simulate(sleigh.vector_field(), x0, 1.0, parameters=params, form=form)
