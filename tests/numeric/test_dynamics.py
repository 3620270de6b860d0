"""Dynamics tools (geomech.numeric.dynamics): Poincaré sections, Lyapunov exponents, phase
portraits and their figures.

Mathematics asserted:
* section points lie on the section (|s| at rounding level) and on every integral of the
  flow (Hénon–Heiles energy; the so(3) rigid body's energy and Casimir); crossing times of
  the harmonic oscillator are the exact ones;
* the QR spectrum of a linear field is the real parts of its eigenvalues; the sum of the
  exponents equals the time average of div X (Liouville), computed independently from the
  trace of the Jacobian, here for the Chaplygin sleigh (not volume preserving); Hamiltonian
  spectra pair up (λ_i = -λ_{n+1-i}) and sum to zero;
* integrable flows have a vanishing maximal exponent (estimate decaying like log T / T):
  the Euler top (so(3) rigid body, catalogue), the Chaplygin ball with generic inertia
  (Borisov–Mamaev 2015 §5.4, integrable), the Routh sphere (Borisov–Mamaev 2015 §5.2);
  chaotic ones a positive one: Hénon–Heiles at
  E = 1/6 (Hénon & Heiles, Astron. J. 69 (1964) 73; positive exponents in the chaotic sea,
  Benettin, Galgani & Strelcyn, Phys. Rev. A 14 (1976) 2338), Lorenz (σ, ρ, β) = (10, 28, 8/3)
  with λ = (0.9056, 0, -14.5723) (Sprott, Chaos and Time-Series Analysis, OUP 2003): the
  maximal exponent to 0.05 over T = 200, the whole spectrum over T = 1000 (slow);
* a catalogue nonholonomic system is chaotic: the rubber ball (no slip, no spin) in the
  Hénon–Heiles potential, whose centre moves as a Hénon–Heiles particle of mass m + I/a^2
  (checked against an independent integration) and has the same positive maximal exponent;
* the reduced Chaplygin sleigh (v, omega) derived from the catalogue system agrees with the
  Borisov–Mamaev equations (3.18); its phase-portrait curves lie on the energy ellipses.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.numeric import compile_vector_field
from geomech.numeric.dynamics import phase_portrait
from geomech.numeric.lyapunov import lyapunov_spectrum, max_lyapunov
from geomech.numeric.poincare import poincare_section

try:  # the figures need the optional ``plot`` extra; the dynamics do not
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
except ImportError:  # pragma: no cover - exercised without the plot extra
    Figure = None


def _needs_plot():
    """Skip the rest of a test (its figure part) when matplotlib is not installed."""
    if Figure is None:
        pytest.skip("matplotlib (extra 'plot') is not installed: figure not checked")


E_HH = sp.Rational(1, 6)


@pytest.fixture(scope="module")
def henon_heiles():
    H = gm.Manifold("HH", "x y px py")
    x, y, px, py = H.coords
    field = H.vector_field([px, py, -x - 2 * x * y, -y - x**2 + y**2])
    energy = (px**2 + py**2 + x**2 + y**2) / 2 + x**2 * y - y**3 / 3
    return field, energy


def _hh_state(y0: float, E=E_HH) -> list[float]:
    px = float(sp.sqrt(2 * E - y0**2 + sp.Rational(2, 3) * sp.nsimplify(y0) ** 3))
    return [0.0, y0, px, 0.0]


# -- Poincaré sections ---------------------------------------------------------------------------
def test_oscillator_crossing_times():
    M = gm.Manifold("M", "x v")
    x, v = M.coords
    for direction, first in ((1, 1.5 * np.pi), (-1, 0.5 * np.pi)):
        sec = poincare_section(M.vector_field([v, -x]), [[1.0, 0.0]], x, (0, 30),
                               direction=direction)
        t = sec.times[0]
        assert np.allclose(t, first + 2 * np.pi * np.arange(len(t)), atol=1e-9)
        assert np.allclose(sec.points[0][:, 1], direction, atol=1e-9)
    both = poincare_section(M.vector_field([v, -x]), [[1.0, 0.0]], "x", (0, 30), direction=0)
    assert len(both) == 10


def test_henon_heiles_section_on_energy_surface(henon_heiles):
    field, energy = henon_heiles
    ics = [_hh_state(y0, sp.Rational(1, 8)) for y0 in (-0.2, 0.0, 0.15)]
    sec = poincare_section(field, ics, "x", (0, 150))
    assert sec.residual < 1e-12 and len(sec.points) == 3 and len(sec) > 60
    H = sp.lambdify(field.manifold.coords, energy)
    for pts in sec.points:
        assert np.all(pts[:, 2] > 0)                      # crossing with x increasing
        assert np.allclose(H(*pts.T), 1 / 8, rtol=0, atol=1e-9)
    _needs_plot()
    fig = sec.plot("y", "py")
    assert isinstance(fig, Figure)
    ys, pys = sec.project("y", "py")
    drawn = np.concatenate([ln.get_xdata() for ln in fig.axes[0].lines])
    assert np.array_equal(np.sort(drawn), np.sort(ys)) and len(pys) == len(ys)


def test_rigid_body_section_on_both_integrals():
    rb = gm.rigid_body_so_n(3, [1, 2, 3])
    w = rb.vector_field().manifold.coords
    sec = poincare_section(rb, [[1.0, 0.5, 0.3], [0.2, 1.0, 0.6]], w[0], (0, 60), direction=0)
    assert sec.residual < 1e-12 and len(sec) >= 6
    integrals = [sp.lambdify(w, e) for e in rb.first_integrals().values()]
    assert len(integrals) >= 2
    for pts in (p for p in sec.points if len(p)):
        for F in integrals:
            vals = F(*pts.T)
            assert np.ptp(vals) <= 1e-9 * max(1.0, np.abs(vals).max())


# -- Lyapunov exponents --------------------------------------------------------------------------
def test_linear_spectrum_and_liouville():
    M = gm.Manifold("M", "x y")
    x, y = M.coords
    res = lyapunov_spectrum(M.vector_field([x + 5 * y, -2 * y]), [0.0, 1.0], 30.0)
    assert np.allclose(res.exponents, [1.0, -2.0], atol=0.1)
    assert abs(res.exponents.sum() - (-1.0)) < 1e-8 and abs(res.divergence + 1.0) < 1e-12


def test_sum_of_exponents_is_mean_divergence_sleigh():
    S = gm.examples.chaplygin_sleigh()
    res = lyapunov_spectrum(S, [0, 0, 0, 1.0, 0.5], 10.0, parameters={"m": 1, "I": 1, "a": 0.5},
                            interval=0.05)
    assert res.exponents.shape == (5,) and res.divergence < -0.1   # volume is contracted
    assert abs(res.exponents.sum() - res.divergence) < 1e-3 * abs(res.divergence)


def test_henon_heiles_chaotic_spectrum(henon_heiles):
    field, _ = henon_heiles
    res = lyapunov_spectrum(field, _hh_state(-0.1), 150.0)
    lam = res.exponents
    assert lam[0] > 0.05                                   # chaotic sea at E = 1/6
    assert abs(lam.sum()) < 1e-8                           # Hamiltonian: volume preserved
    assert abs(lam[0] + lam[3]) < 0.2 * lam[0]             # symplectic pairing


def test_integrable_euler_top_has_zero_exponent(henon_heiles):
    rb = gm.rigid_body_so_n(3, [1, 2, 3])
    res = max_lyapunov(rb, [1.0, 0.5, 0.3], 200.0)
    at100 = res.history[np.searchsorted(res.times, 100.0), 0]
    assert 0 <= res.maximal < 0.03 and res.maximal < 0.75 * at100   # ~ log T / T -> 0
    field, _ = henon_heiles
    chaotic = max_lyapunov(field, _hh_state(-0.1), 150.0)
    assert chaotic.maximal > 3 * res.maximal
    _needs_plot()
    fig = res.plot()
    assert isinstance(fig, Figure)
    assert np.isclose(fig.axes[0].lines[0].get_ydata()[-1], res.maximal)


@pytest.mark.slow
def test_lorenz_reference_spectrum():
    M = gm.Manifold("Lorenz", "x y z")
    x, y, z = M.coords
    L = M.vector_field([10 * (y - x), x * (28 - z) - y, x * y - sp.Rational(8, 3) * z])
    res = lyapunov_spectrum(L, [1.0, 1.0, 1.0], 1000.0, transient=10.0, rtol=1e-9, atol=1e-10)
    assert np.allclose(res.exponents, [0.9056, 0.0, -14.5723], atol=0.05)
    assert abs(res.exponents.sum() + 41 / 3) < 1e-6        # div = -(σ + 1 + β)


def test_lorenz_maximal_exponent_matches_reference():
    """Chaotic reference case: the Lorenz system (sigma, rho, beta) = (10, 28, 8/3) has
    lambda_1 = 0.9056 (Sprott, Chaos and Time-Series Analysis, OUP 2003, Appendix A).
    Stated tolerance: 0.05 for the finite-time estimate over T = 200 after a transient of
    10 (measured 0.9074; 0.896-0.909 from three initial conditions)."""
    M = gm.Manifold("Lorenz", "x y z")
    x, y, z = M.coords
    L = M.vector_field([10 * (y - x), x * (28 - z) - y, x * y - sp.Rational(8, 3) * z])
    res = max_lyapunov(L, [1.0, 1.0, 1.0], 200.0, transient=10.0, rtol=1e-9, atol=1e-10)
    assert abs(res.maximal - 0.9056) < 0.05


def test_chaplygin_ball_is_regular():
    """Integrable case (the Chaplygin ball with generic inertia, Borisov & Mamaev 2015 §5.4;
    Chaplygin 1903): the maximal exponent decays like log T / T (measured 0.128 at T = 50,
    0.028 at T = 200); stated tolerance: below 0.05 at T = 200 and below 3/4 of the
    estimate at T = 50."""
    B = gm.examples.chaplygin_ball()
    P = {"m": 1.0, "R": 1.0, "I1": 0.3, "I2": 0.4, "I3": 0.5}
    x0 = {"x": 0, "y": 0, "theta": 1.0, "phi": 0.3, "psi": 0.2, "thetadot": 0.5,
          "phidot": 0.4, "psidot": -0.3}
    res = max_lyapunov(B, x0, 200.0, parameters=P)
    at50 = res.history[np.searchsorted(res.times, 50.0), 0]
    assert res.maximal < 0.05 and res.maximal < 0.75 * at50


def test_routh_sphere_is_regular():
    """Integrable case (the Routh sphere: energy, Jellett's and Routh's integrals; Borisov &
    Mamaev 2015 §5.2): the maximal exponent decays like log T / T (measured 0.073 at T = 50,
    0.025 at T = 200; log T / T is 0.078 and 0.026); stated tolerance: below 0.05 at T = 200
    and below 3/4 of the estimate at T = 50."""
    S = gm.examples.routh_sphere()
    P = {"m": 1.0, "R": 1.0, "a": 0.3, "I1": 0.4, "I3": 0.5, "g": 9.81}
    x0 = {"x": 0, "y": 0, "theta": 0.9, "phi": 0.0, "psi": 0.0, "thetadot": 0.2,
          "phidot": 2.0, "psidot": 0.5}
    res = max_lyapunov(S, x0, 200.0, parameters=P)
    at50 = res.history[np.searchsorted(res.times, 50.0), 0]
    assert res.maximal < 0.05 and res.maximal < 0.75 * at50


# -- phase portraits -----------------------------------------------------------------------------
def test_reduced_sleigh_portrait_on_energy_ellipses():
    R = gm.Manifold("sleigh_reduced", "v omega")
    v, w = R.coords
    m, I, a = 1, sp.Rational(5, 4), sp.Rational(1, 2)       # noqa: E741  (I about O_1)
    field = R.vector_field([a * w**2, -m * a * v * w / I])   # Borisov-Mamaev (3.18), U = 0
    # the same reduced field from the catalogue sleigh: v = xdot/cos(phi), omega = phidot
    S = gm.examples.chaplygin_sleigh(m=m, I=I, a=a)
    V = S.vector_field()
    _, _, phi, xd, phid = V.manifold.coords
    back = {xd: v * sp.cos(phi), phid: w}
    for rate, expected in zip((V(xd / sp.cos(phi)), V(phid)), field.components):
        assert gm.default_policy().is_zero(rate.xreplace(back) - expected)
    ics = [[-1.0, 0.5], [0.3, -1.0], [-0.2, 0.2]]
    _needs_plot()
    fig = phase_portrait(field, ics, (0, 8.0))
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert len(ax.lines) == 3 and len(ax.collections) > 0          # curves + direction field
    for (v0, w0), ln in zip(ics, ax.lines):
        vs, ws = ln.get_data()
        E = m * vs**2 + float(I) * ws**2
        assert np.allclose(E, m * v0**2 + float(I) * w0**2, rtol=1e-8)
    assert abs(ax.lines[0].get_data()[1][-1]) < 0.5 * 0.5          # omega decays (v > 0 end)


def test_projected_portrait_of_full_sleigh():
    S = gm.examples.chaplygin_sleigh()
    fig = phase_portrait(S, [[0, 0, 0, 1.0, 0.5], [0, 0, 0, 0.5, -0.5]], 3.0, axes=("x", "y"),
                         parameters={"m": 1, "I": 1, "a": 0.5})
    assert len(fig.axes[0].lines) == 2 and fig.axes[0].get_xlabel() == "x"


# -- errors ------------------------------------------------------------------------------------
def test_bad_input(henon_heiles):
    field, _ = henon_heiles
    x0 = _hh_state(0.0)
    with pytest.raises(ValueError, match="direction"):
        poincare_section(field, [x0], "x", 1.0, direction=2)
    with pytest.raises(ValueError, match="q"):
        poincare_section(field, [x0], "x + q", 1.0)
    with pytest.raises(TypeError, match="list of initial states"):
        poincare_section(field, {"x": 0}, "x", 1.0)
    with pytest.raises(TypeError, match="wrap it"):
        poincare_section(field, x0, "x", 1.0)
    with pytest.raises(ValueError, match="empty"):
        gm.lyapunov_ensemble(field, [], 1.0)
    with pytest.raises(ValueError, match="workers"):
        gm.lyapunov_ensemble(field, [x0], 1.0, client="processes", workers=0)
    with pytest.raises(ValueError, match="k must be"):
        lyapunov_spectrum(field, x0, 1.0, k=5)
    with pytest.raises(ValueError, match="interval"):
        lyapunov_spectrum(field, x0, 1.0, interval=0)
    with pytest.raises(ValueError, match="4 values"):
        max_lyapunov(field, [0.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="misses values for py"):
        max_lyapunov(field, {"x": 0, "y": 0, "px": 0.1}, 1.0)
    with pytest.raises(ValueError, match="t0 < t1"):
        max_lyapunov(field, x0, (1.0, 0.0))
    with pytest.raises(TypeError, match="VectorField"):
        max_lyapunov(42, x0, 1.0)
    with pytest.raises(ValueError, match="two coordinates"):
        phase_portrait(field, [x0], 1.0, axes=("x",))


# -- a chaotic nonholonomic system of the catalogue ------------------------------------------------
HH_POTENTIAL = "(x**2 + y**2)/2 + x**2*y - y**3/3"


def test_rubber_ball_in_henon_heiles_potential_is_chaotic():
    """A rubber ball (no slip, no spin) rolling on the plane in the potential U(x, y): its
    centre moves as a particle of mass m + I/a^2 in U (Borisov–Mamaev 2015 §4.6:
    omega = n x rdot / a), here the Hénon–Heiles potential at E = 1/6, chaotic."""
    from scipy.integrate import solve_ivp

    from geomech.numeric import compile_functions

    S = gm.examples.rubber_ball(m=1, a=1, I=sp.Rational(2, 5), potential=HH_POTENTIAL)
    mu = 1 + sp.Rational(2, 5)
    V = S.vector_field()
    coords = V.manifold.coords
    y0 = -0.1
    U0 = y0**2 / 2 - y0**3 / 3
    speed = float(np.sqrt(2 * (float(E_HH) - U0) / float(mu)))
    x0 = [0.0, y0, 1.0, 0.3, 0.2, speed, 0.0]            # (x, y, theta, phi, psi, ...)
    ball = gm.simulate(S, x0, (0, 20), t_eval=np.linspace(0, 20, 41))
    assert abs(float(S.energy().subs(dict(zip(coords, x0)))) - float(E_HH)) < 1e-12
    vx, vy = compile_functions(V.components[:2], coords)(np.array(x0))
    H = gm.Manifold("HHmu", "x y vx vy")
    x, y, u, w = H.coords
    hh = H.vector_field([u, w, (-x - 2 * x * y) / mu, (-y - x**2 + y**2) / mu])
    ref = solve_ivp(compile_vector_field(hh), (0, 20), [0.0, y0, vx, vy], method="DOP853",
                    rtol=1e-11, atol=1e-12, t_eval=ball.t)
    assert np.allclose(ball.states[:, :2], ref.y[:2].T, atol=1e-7)
    lam_ball = max_lyapunov(S, x0, 150.0).maximal
    lam_hh = max_lyapunov(hh, [0.0, y0, vx, vy], 150.0).maximal
    assert lam_ball > 0.03 and abs(lam_ball - lam_hh) < 0.2 * lam_hh


# -- many runs: serial, a process pool, a dask LocalCluster -----------------------------------
def test_section_is_identical_in_every_mode(henon_heiles, dask_client, process_pool):
    """Poincaré points of several runs: the same numbers serially, on a spawned process pool
    and on a 2-worker dask LocalCluster, in input order, on the section and on the energy
    surface."""
    field, energy = henon_heiles
    ics = [_hh_state(y0, sp.Rational(1, 8)) for y0 in (-0.2, 0.0, 0.15)]
    serial = poincare_section(field, ics, "x", (0, 40))
    H = sp.lambdify(field.manifold.coords, energy)
    for client in (process_pool, dask_client):
        other = poincare_section(field, ics, "x", (0, 40), client=client)
        assert len(other.points) == 3 and other.residual < 1e-12
        for a, b, ta, tb in zip(serial.points, other.points, serial.times, other.times):
            assert a.shape == b.shape and len(a) >= 5
            assert np.max(np.abs(a - b)) <= 1e-12 and np.max(np.abs(ta - tb)) <= 1e-12
            assert np.allclose(H(*b.T), 1 / 8, rtol=0, atol=1e-9)


def test_lyapunov_ensemble_is_identical_in_every_mode(henon_heiles, dask_client,
                                                     process_pool):
    """lyapunov_ensemble = lyapunov_spectrum run by run; identical in every mode."""
    from geomech.numeric.lyapunov import lyapunov_ensemble

    field, _ = henon_heiles
    ics = [_hh_state(-0.1), _hh_state(0.05)]
    serial = lyapunov_ensemble(field, ics, 20.0, k=2)
    one = lyapunov_spectrum(field, ics[1], 20.0, k=2)
    assert np.array_equal(serial[1].exponents, one.exponents)
    for client in (process_pool, dask_client):
        other = lyapunov_ensemble(field, ics, 20.0, k=2, client=client)
        for a, b in zip(serial, other):
            assert np.max(np.abs(a.exponents - b.exponents)) <= 1e-12
            assert np.max(np.abs(a.history - b.history)) <= 1e-12
