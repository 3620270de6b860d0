r"""Classical steady motions of three catalogue systems, each against the published condition
and an independent numeric field differentiated by finite differences:

* the sleeping Lagrange top, Maievskii's condition :math:`C^2n^2 > 4Amgl` (Klein &
  Sommerfeld (1897)), and the regular precessions
  :math:`A\Omega^2\cos\theta_0 - C\omega_3\Omega + mgl = 0`;
* the ball spinning at the vertex of a surface of revolution (Borisov & Mamaev (2015),
  §2.3, (2.7)): :math:`\ddot z + i\beta\dot z + \kappa z = 0`, stable iff
  :math:`c(cI^2n^2 + 4mg(I + mR^2)) > 0`;
* the straight runs of the Chaplygin snake (one link: the sleigh's
  :math:`\dot\omega = -(maV/I)\omega`; three links: an independent Lagrange-multiplier
  field).
"""

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.examples.bodies import heavy_top
from geomech.mechanics.analysis.stability_criteria import LAMBDA
from geomech.reporting.stability import stability_section

from .numpy_fields import euler_poisson, fd_jacobian, same_spectrum

zero = default_policy().is_zero


def _positive_multiple(e, ref) -> bool:
    """``e = k * ref`` with ``k`` free of the constants ``n`` and positive by the
    assumptions on the parameters (exact)."""
    k = sp.factor(sp.cancel(e / ref))
    return not k.has(sp.Symbol("n", real=True)) and bool(k.is_positive)


# -- the heavy top ------------------------------------------------------------------------
def _lagrange_top():
    T = heavy_top(x0=0, y0=0)
    return heavy_top(x0=0, y0=0, I2=T.manifold.parameters[0])


def test_the_sleeping_top_reproduces_maievskii():
    T = _lagrange_top()
    assert [f.name for f in T.steady_motions(search=False)] == ["sleeping top",
                                                                "regular precession"]
    A, C, m, g, l = T.manifold.parameters
    n = sp.Symbol("n", real=True)
    lin = T.linearize(T.steady_motion(n=n))
    assert lin.chart == "natural variables"
    ineqs = lin.stability_conditions().inequalities
    maievskii = C**2 * n**2 - 4 * A * m * g * l
    lhs = [sp.together(i.lhs - i.rhs) for i in ineqs]
    assert any(_positive_multiple(e, maievskii) for e in lhs)
    # every other condition is implied: a positive multiple of maievskii + (2A - C)^2 n^2
    others = [e for e in lhs if not _positive_multiple(e, maievskii)]
    assert all(_positive_multiple(e, maievskii + (2 * A - C)**2 * n**2) for e in others)


@pytest.mark.parametrize("I, z0, n", [((2, 2, 3), 1, 4.0), ((2, 2, 3), 1, 0.7),
                                       ((3, 2, 1.5), -0.5, 2.0), ((1, 1.5, 2), 0.8, 5.0)])
def test_sleeping_top_eigenvalues_against_finite_differences(I, z0, n):
    T = heavy_top(x0=0, y0=0)
    lin = T.linearize(T.steady_motion(n=n))
    vals = {"I1": I[0], "I2": I[1], "I3": I[2], "m": 1, "g": 9.81, "z0": z0}
    ev = lin.eigenvalues(vals)
    X0 = np.array([0, 0, 1, 0, 0, n], float)
    fd = np.linalg.eigvals(fd_jacobian(euler_poisson(I, 1, 9.81, (0, 0, z0)), X0,
                                        [0, 1, 3, 4, 5]))
    assert [str(v) for v in lin.variables] == ["gamma1", "gamma2", "omega1", "omega2",
                                               "omega3"]
    assert same_spectrum(ev, fd)
    # the verdict agrees with Maievskii's condition in the Lagrange case
    if I[0] == I[1]:
        stable = I[2]**2 * n**2 > 4 * I[0] * 9.81 * z0
        assert (lin.stability(vals).verdict.value == "linearly stable") == stable


def test_regular_precession_is_lagranges_relation():
    T = _lagrange_top()
    A, C, m, g, l = T.manifold.parameters
    th, ps, ph = T.manifold.coords
    th0, W = sp.pi / 3, sp.Integer(2)
    state = T.steady_motion("regular precession", theta0=th0, Omega=W)
    # Lagrange's equation for theta at the state: dL/dtheta = 0 (thetadot = 0 stays 0)
    w3 = state["phidot"] + W * sp.cos(th0)
    assert zero(A * W**2 * sp.cos(th0) - C * w3 * W + m * g * l)
    dL = sp.diff(T.lagrangian, th).xreplace({th: th0, sp.Symbol("thetadot", real=True): 0})
    assert zero(dL.subs({T.manifold.velocities[1]: state["phidot"],
                         T.manifold.velocities[2]: W, T.manifold.velocities[0]: 0}))
    with pytest.raises(ValueError):
        T.steady_motion("regular precession", theta0=th0, Omega=W, omega=0)
    lin = T.linearize(state)
    assert lin.stability({"I1": 2, "I3": 3, "m": 1, "g": 10, "z0": 1}).verdict.value != "unstable"


def test_general_top_declares_no_sleeping_top():
    assert "sleeping top" not in [f.name for f in heavy_top().steady_families]
    assert [f.name for f in heavy_top(x0=0, y0=0).steady_families] == ["sleeping top"]


# -- the ball on a surface of revolution --------------------------------------------------
@pytest.fixture(scope="module")
def ball_spin():
    """The spin at the vertex of a ball on a paraboloid of either sign (``c`` real),
    linearised once at a symbolic rate ``n``."""
    B = gm.examples.ball_on_surface_of_revolution(c=sp.Symbol("c", real=True))
    return B.linearize(B.steady_motion(n=sp.Symbol("n", real=True)))


def test_ball_spin_at_the_vertex_characteristic_polynomial(ball_spin):
    B = ball_spin.system
    m, R, I, c, g = B.manifold.parameters
    n = sp.Symbol("n", real=True)
    assert set(map(str, ball_spin.cyclic)) == {"theta", "phi", "psi"}
    J = I + m * R**2
    beta, kappa = c * R * I * n / J, m * g * c * R**2 / J
    lam = LAMBDA
    expected = lam**4 * ((lam**2 + kappa)**2 + beta**2 * lam**2)
    assert zero(sp.expand(ball_spin.characteristic_polynomial() - expected))


def test_ball_on_a_dome_needs_spin(ball_spin):
    """c < 0 (the centre on a dome): stable iff c (c I^2 n^2 + 4 m g (I + m R^2)) > 0."""
    m, R, I, c, g = ball_spin.system.manifold.parameters
    n = sp.Symbol("n", real=True)
    lhs = [sp.together(i.lhs - i.rhs) for i in ball_spin.stability_conditions().inequalities]
    assert any(_positive_multiple(e, c * (c * I**2 * n**2 + 4 * m * g * (I + m * R**2)))
               for e in lhs)


def ball_field(m, R, I, c, g):
    r"""(2.7) of Borisov & Mamaev (2015) in :math:`(x_1, x_2, \omega)`, numpy:
    :math:`\dot r = R\omega\times n`, :math:`(I + mR^2)\dot\omega = mR^2(\omega, n)\dot n
    - mgR\,n\times e_3`."""
    def normal(x):
        v = np.array([-c * x[0], -c * x[1], 1.0])
        return v / np.linalg.norm(v)

    def field(X):
        x, w = X[:2], X[2:]
        nv = normal(x)
        rdot = R * np.cross(w, nv)
        h = 1e-7
        ndot = sum((normal(x + h * e) - normal(x - h * e)) / (2 * h) * rdot[i]
                   for i, e in enumerate(np.eye(2)))
        wdot = (m * R**2 * (w @ nv) * ndot - m * g * R * np.cross(nv, [0, 0, 1])) \
            / (I + m * R**2)
        return np.concatenate([rdot[:2], wdot])
    return field


@pytest.mark.parametrize("c, n", [(0.5, 3.0), (-0.5, 6.0), (-0.5, 1.0), (2.0, 0.3)])
def test_ball_eigenvalues_against_finite_differences(ball_spin, c, n):
    vals = {"m": 1, "R": 0.5, "I": 0.1, "g": 9.81, "c": c, "n": n}
    red = np.linalg.eigvals(ball_spin.numeric_matrix(vals, reduced=True))
    fd = np.linalg.eigvals(fd_jacobian(ball_field(1, 0.5, 0.1, c, 9.81),
                                        np.array([0, 0, 0, 0, n], float), range(5), h=1e-5))
    assert same_spectrum(red, fd, tol=1e-4)
    J = 0.1 + 0.25
    stable = c * (c * 0.01 * n**2 + 4 * 9.81 * J) > 0
    assert (ball_spin.stability(vals).verdict.value == "linearly stable") == stable


# -- the Chaplygin snake ------------------------------------------------------------------
def test_one_link_snake_is_the_sleigh():
    S = gm.examples.chaplygin_snake(1)
    m, J, a = S.manifold.parameters
    V = sp.Symbol("V", real=True)
    lin = S.linearize(S.steady_motion(speed=V))
    cp = lin.characteristic_polynomial()
    assert zero(sp.cancel(cp / LAMBDA**4) - (LAMBDA + m * a * V / (J + m * a**2)))


def multiplier_field(S, values):
    """The snake's Lagrange-d'Alembert equations with multipliers, on the full
    :math:`(q, \\dot q)` (numerically, from the Lagrangian and the constraints):
    :math:`M\\ddot q = \\partial_qL - (\\partial_{\\dot q}\\partial_qL)\\dot q + A^T\\lambda`,
    :math:`A\\ddot q + \\dot A\\dot q = 0`."""
    N = S.manifold
    q, v = list(N.coords), list(N.velocities)
    sub = {p: sp.nsimplify(values[p.name]) for p in N.parameters}
    L = S.lagrangian.xreplace(sub)
    f = [c.xreplace(sub) for c in S.constraints]
    Mq = sp.hessian(L, v)
    rhs = sp.Matrix([sp.diff(L, qi) for qi in q]) - sp.Matrix(
        [[sp.diff(L, vi, qj) for qj in q] for vi in v]) * sp.Matrix(v)
    A = sp.Matrix([[sp.diff(fi, vj) for vj in v] for fi in f])
    Adot_v = sp.Matrix([sum(sp.diff(fi, qj) * vj for qj, vj in zip(q, v)) for fi in f])
    fM, fr, fA, fa = (sp.lambdify(q + v, e, "numpy") for e in (Mq, rhs, A, Adot_v))
    k = len(q)

    def field(X):
        M, r = np.array(fM(*X), float), np.array(fr(*X), float).ravel()
        Am, ad = np.array(fA(*X), float), np.array(fa(*X), float).ravel()
        K = np.block([[M, -Am.T], [Am, np.zeros((len(f), len(f)))]])
        sol = np.linalg.solve(K, np.concatenate([r, -ad]))
        return np.concatenate([X[k:], sol[:k]])
    return field


@pytest.mark.slow
@pytest.mark.parametrize("speed", [1.5, -1.5])
def test_three_link_snake_against_an_independent_field(speed):
    S = gm.examples.chaplygin_snake()
    vals = {"m1": 1.2, "m2": 0.9, "m3": 1.3, "J1": 0.1, "J2": 0.08, "J3": 0.12,
            "a1": 0.2, "a2": 0.15, "a3": 0.25, "l1": 1.0, "l2": 0.8, "l3": 1.1}
    lin = S.linearize(S.steady_motion(speed=speed))
    ev = np.linalg.eigvals(lin.numeric_matrix(vals, reduced=True))
    X0 = np.zeros(10)
    X0[5] = speed                               # xdot; every other velocity 0
    fd = np.linalg.eigvals(fd_jacobian(multiplier_field(S, vals), X0, range(10)))
    # the full field has the extra zero roots of the variations off the constraints
    nz = lambda e: np.sort_complex(e[np.abs(e) > 1e-4])  # noqa: E731
    assert len(nz(ev)) == 3 and same_spectrum(nz(ev), nz(fd), tol=1e-4)
    verdict = lin.stability(vals).verdict.value
    assert verdict == ("asymptotically stable" if speed > 0 else "unstable")
    assert (max(nz(ev).real) < 0) == (speed > 0)


# -- the report ----------------------------------------------------------------------------
@pytest.mark.parametrize("system", [
    lambda: heavy_top(x0=0, y0=0), gm.examples.ball_on_surface_of_revolution,
    pytest.param(gm.examples.chaplygin_snake, marks=pytest.mark.slow)])
def test_report_sections_give_verdicts(system):
    sec = stability_section(system())
    text = [str(line[0]) for line in sec.lines]
    assert sec.status == "ok"
    assert sum("at the default parameters" in t for t in text) == 4
