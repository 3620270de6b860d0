r"""The rattleback: its linearisation about vertical spin against an independent Newton-Euler
derivation, Walker's (1896) first-order growth rates, and the spin reversal.

Walker linearised the rolling equations of the celt in the tilt and to first order in the
spin :math:`n`.  With :math:`\ell` the height of the centre of mass over the contact point,
:math:`\rho_1 = a^2/c`, :math:`\rho_2 = b^2/c` the principal radii of curvature there,
:math:`A' = A + m\ell^2`, :math:`B' = B + m\ell^2` the moments about the contact point,
:math:`\Delta = A'B' - D^2`, the oscillation frequencies at rest solve

.. math:: \Delta\sigma^4 - \big(A'mg(\rho_1 - \ell) + B'mg(\rho_2 - \ell)\big)\sigma^2
          + m^2g^2(\rho_1 - \ell)(\rho_2 - \ell) = 0

(pitching :math:`\sigma_p`, the larger, and rolling :math:`\sigma_r`), and each mode grows at

.. math:: \frac{d\,\mathrm{Re}\,\lambda_k}{dn}\Big|_{n=0}
          = -\frac{D\,m\,\ell\,(\rho_1 - \rho_2)\,\sigma_k^2}{2\Delta(\sigma_j^2 - \sigma_k^2)},

the product of the misalignment :math:`D`, the difference of the radii of curvature, the
squared frequency and a difference of inverse frequencies (the form of Garcia & Hubbard
(1988) and Kondo & Nakanishi (2017)).  Opposite signs for the two modes: in each sense of spin
one mode grows, the pitching one strongly in the sense :math:`Dn > 0`.
"""

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.examples.rattleback import KANE_LEVINSON_1982
from geomech.mechanics.analysis.stability import Verdict
from geomech.mechanics.analysis.stability_criteria import LAMBDA

KL = {k: sp.Rational(v) for k, v in KANE_LEVINSON_1982.items()}


def walker_rates(p=KL):
    """Walker's first-order growth rates ``(pitching, rolling)`` per unit spin."""
    ell = p["c"] - p["h"]
    rho1, rho2 = p["a"]**2 / p["c"], p["b"]**2 / p["c"]
    m, g, D = p["m"], p["g"], p["D"]
    A1, B1 = p["A"] + m * ell**2, p["B"] + m * ell**2
    Delta = A1 * B1 - D**2
    s = sp.Symbol("s")
    q = Delta * s**2 - (A1 * m * g * (rho1 - ell) + B1 * m * g * (rho2 - ell)) * s \
        + m**2 * g**2 * (rho1 - ell) * (rho2 - ell)
    lo, hi = sorted(sp.Poly(q, s).nroots(n=40))
    rate = lambda sk, sj: -D * m * ell * (rho1 - rho2) * sk / (2 * Delta * (sj - sk))  # noqa: E731
    return float(rate(hi, lo)), float(rate(lo, hi)), float(sp.sqrt(hi)), float(sp.sqrt(lo))


def newton_euler_linearization(p, spin):
    r"""Independent derivation in body axes (Borisov & Mamaev (2002), rolling of a rigid body
    on a plane): :math:`K = I\omega + m\,r\times(\omega\times r)`,
    :math:`\dot K = K\times\omega + m\dot r\times(\omega\times r) + mg\,r\times\gamma`,
    :math:`\dot\gamma = \gamma\times\omega`, linearised at :math:`\gamma = e_3`,
    :math:`\omega = n e_3` on the tangent space of :math:`|\gamma| = 1`."""
    w = sp.Matrix(sp.symbols("w1:4", real=True))
    G = sp.Matrix(sp.symbols("G1:4", real=True))
    E = sp.diag(p["a"]**2, p["b"]**2, p["c"]**2)
    r = -E * G / sp.sqrt((G.T * E * G)[0]) + sp.Matrix([0, 0, p["h"]])
    I = sp.Matrix([[p["A"], p["D"], 0], [p["D"], p["B"], 0], [0, 0, p["C"]]])
    m, g = p["m"], p["g"]
    Gdot = G.cross(w)
    rdot = r.jacobian(G) * Gdot
    J = I + m * ((r.T * r)[0] * sp.eye(3) - r * r.T)
    Jdot = m * (2 * (r.T * rdot)[0] * sp.eye(3) - rdot * r.T - r * rdot.T)
    wdot = J.LUsolve((J * w).cross(w) + m * rdot.cross(w.cross(r)) + m * g * r.cross(G)
                     - Jdot * w)
    X, F = list(G) + list(w), list(Gdot) + list(wdot)
    pt = dict(zip(X, [0, 0, 1, 0, 0, spin]))
    Jm = sp.Matrix([[sp.diff(f, x).subs(pt) for x in X] for f in F])
    keep = [0, 1, 3, 4, 5]
    return Jm.extract(keep, keep).applyfunc(sp.cancel)


def test_rattleback_catalogue_entry():
    R = gm.examples.rattleback()
    params, x0 = R.numeric_defaults
    assert {p.name: v for p, v in params.items()}["D"] == -2e-5
    assert R.steady_families[0].at(spin=-3) == {
        "x": 0, "y": 0, "yaw": 0, "roll": 0, "pitch": 0, "yawdot": -3, "rolldot": 0,
        "pitchdot": 0}
    assert [f.name for f in R.steady_families] == ["vertical spin"]


@pytest.fixture(scope="module")
def rattle_lin():
    R = gm.examples.rattleback()
    n = sp.Symbol("spin", real=True)
    return R.linearize(R.steady_motion(spin=n))


@pytest.mark.slow
def test_linearisation_agrees_with_newton_euler(rattle_lin):
    """Same characteristic polynomial (exact, symbolic spin) from the Lagrange-d'Alembert
    equations in yaw-roll-pitch and from the Newton-Euler equations in (gamma, omega)."""
    n = sp.Symbol("spin", real=True)
    assert rattle_lin.chart == "phase space"
    assert [c.name for c in rattle_lin.cyclic] == ["x", "y", "yaw"]
    sub = {s: KL[s.name] for s in rattle_lin.reduced_matrix.free_symbols if s.name in KL}
    ours = rattle_lin.reduced_matrix.xreplace(sub).charpoly(LAMBDA).as_expr()
    theirs = newton_euler_linearization(KL, n).charpoly(LAMBDA).as_expr()
    assert default_policy().is_zero(sp.expand(ours - theirs))


@pytest.mark.slow
def test_walker_growth_rates_at_small_spin(rattle_lin):
    pitch_rate, roll_rate, sp_, sr = walker_rates()
    assert pitch_rate * roll_rate < 0
    for spin in (1e-4, -1e-4):
        ev = rattle_lin.eigenvalues({"spin": spin})
        ev = ev[np.abs(ev) > 1e-6]
        pitch = ev[np.argmin(np.abs(np.abs(ev.imag) - sp_))]
        roll = ev[np.argmin(np.abs(np.abs(ev.imag) - sr))]
        assert pitch.real / spin == pytest.approx(pitch_rate, rel=1e-6)
        assert roll.real / spin == pytest.approx(roll_rate, rel=1e-6)
    # one mode grows in each sense: both senses unstable at small spin (no slip, no
    # dissipation), the pitching instability in the sense D*spin > 0
    for spin in (0.5, -0.5):
        assert rattle_lin.stability({"spin": spin}).verdict is Verdict.UNSTABLE
    assert pitch_rate * KL["D"] > 0


@pytest.mark.slow
def test_spin_reverses_in_simulation():
    """Spun against its preferred sense (-5 rad/s, a roll of 0.01), the vertical component
    of the angular velocity changes sign and stays reversed."""
    from geomech.examples.kinematics import tait_bryan_angular_velocity, tait_bryan_matrix

    R = gm.examples.rattleback()
    params, x0 = R.numeric_defaults
    res = gm.simulate(R, x0, (0.0, 25.0), parameters=params, implicit=True, rtol=1e-10,
                      atol=1e-12)
    names = [c.name for c in res.coords]
    col = {n: res.states[:, names.index(n)] for n in names}
    q = sp.symbols("yaw roll pitch yd rd pd")
    wz = sp.lambdify(q, (tait_bryan_matrix(*q[:3])[:, 2].T
                         * tait_bryan_angular_velocity(*q))[0], "numpy")
    vert = wz(col["yaw"], col["roll"], col["pitch"], col["yawdot"], col["rolldot"],
              col["pitchdot"])
    assert vert[0] == pytest.approx(-5.0)
    flip = np.argmax(vert > 0)
    assert flip > 0 and 3.0 < res.t[flip] < 10.0
    after = res.t > res.t[flip] + 2.0
    assert np.all(vert[after] > 1.0) and vert[-1] > 3.0
    assert abs(res.drift["energy"]) < 1e-6


#: units of work (budget checks) of the report's stability section on the rattleback,
#: 140 measured (headroom for the engine's other steps): the declared family only, no search
STABILITY_SECTION_WORK = 500


@pytest.mark.slow
def test_report_stability_section_agrees_with_newton_euler():
    """The report's "Steady motions and stability" section linearises the declared family
    (vertical spin) without searching the reduced equations, within a work limit, and its
    verdict at each sample spin agrees with the eigenvalues of the independent Newton-Euler
    linearisation at Kane & Levinson's numbers (unstable iff a real part is positive)."""
    from geomech.core.budget import work_limit
    from geomech.reporting.stability import SAMPLE_CONSTANTS, stability_section

    R = gm.examples.rattleback()
    with work_limit(STABILITY_SECTION_WORK, "stability section"):
        sec = stability_section(R)
    text = [t for t, _ in sec.lines]
    assert "family 'vertical spin' (distinguished): constants spin" in text
    assert any("search of the reduced equations for others was not run" in t for t in text)
    assert "  linearised in phase space; cyclic coordinates: x, y, yaw" in text
    for spin in SAMPLE_CONSTANTS:
        line = next(t for t in text if t.startswith(f"  at the default parameters and spin "
                                                    f"= {spin}:"))
        ev = np.linalg.eigvals(np.array(newton_euler_linearization(KL, sp.Integer(spin))
                                        .evalf(30).tolist(), dtype=complex))
        unstable = ev.real.max() > 1e-9 * (1 + abs(ev).max())
        assert line.endswith("unstable") == unstable, (spin, line, ev)
