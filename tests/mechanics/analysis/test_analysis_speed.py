"""Issue 4: the full analysis of the real rolling bodies (spec seed000_part2 §4.1, §4.2).

These tests assert mathematics only (no timings; the timings are printed by
``benchmarks/bench_analysis.py``).  They run in the default suite because the ring-based
zero tests and solvers make each step take seconds on the 5-dimensional rolling bodies.
"""

from __future__ import annotations

import functools

import pytest
import sympy as sp

import geomech as gm
from geomech.core.algebra.linear import ring_linear_rows
from geomech.core.algebra.normal_form import ring_zero_test
from geomech.core.zero import is_zero
from geomech.examples.kinematics import body_angular_velocity
from geomech.mechanics.analysis.integrals import is_energy_conserved
from geomech.mechanics.analysis.kozlov_kolesnikov import check_noether_field
from geomech.mechanics.analysis.noether import linear_integrals

c, s = sp.cos, sp.sin


@functools.cache
def ball():
    return gm.examples.chaplygin_ball()


@functools.cache
def routh():
    return gm.examples.routh_sphere()


def _euler(S):
    N = S.manifold
    by = {q.name: (q, v) for q, v in zip(N.coords, N.velocities)}
    return [by[k][0] for k in ("theta", "phi", "psi")], [by[k][1] for k in ("theta", "phi",
                                                                          "psi")]


def _area(S):
    (th, ph, ps), (thd, phd, psd) = _euler(S)
    m, R, I1, I2, I3 = S.manifold.parameters
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    gam = [s(ph) * s(th), c(ph) * s(th), c(th)]
    return I1 * w[0] * gam[0] + I2 * w[1] * gam[1] + I3 * w[2] * gam[2]


def _cb_density(S):
    """O-CB-4 pulled back to Euler angles: sin^2(theta) sqrt(1 - D (gamma, (I + D E)^-1 gamma))
    (d^3M = det K d^3omega with det K = det(I + DE)/rho_CB^2, d^3omega = sin(theta) d^3qdot,
    d^2gamma = sin(theta) dtheta dphi)."""
    (th, ph, _), _ = _euler(S)
    m, R, I1, I2, I3 = S.manifold.parameters
    D = m * R**2
    gam = [s(ph) * s(th), c(ph) * s(th), c(th)]
    return s(th)**2 * sp.sqrt(1 - D * sum(g**2 / (Ii + D) for g, Ii in zip(gam, (I1, I2, I3))))


# -- ring helpers ----------------------------------------------------------------------------
def test_ring_zero_test_is_exact_and_conservative():
    t, x = sp.symbols("theta x")
    assert ring_zero_test(s(t)**2 / (1 + c(t)) + c(t) - 1) is True
    assert ring_zero_test(s(t)**2 / (1 + c(t)) + c(t)) is False
    # square roots: a zero remainder is a proof, a non-zero one is left to the policy
    assert ring_zero_test(sp.sqrt(x)**2 - x) is True
    assert ring_zero_test(sp.sqrt(x**2) - x) is None
    assert is_zero(s(t)**4 - c(t)**4 - s(t)**2 + c(t)**2)


def test_ring_linear_rows_separate_expressions():
    """Each expression gives its own identities (rows are never merged across them)."""
    t = sp.Symbol("theta")
    a, b = sp.symbols("a b")
    rows = ring_linear_rows([a * s(t) ** 2 + a * c(t) ** 2 - b, a - b * c(t)], [a, b])
    M = sp.Matrix(rows)
    assert M.rank() == 2                       # only a = b = 0


# -- Routh sphere (§4.1) -----------------------------------------------------------------------
def test_routh_sphere_integrals_and_jellett_field():
    S = routh()
    N = S.manifold
    (th, ph, ps), (thd, phd, psd) = _euler(S)
    m, R, a, I1, I3, g = N.parameters
    PJ = (a + R * c(th)) * I3 * phd + (R * I1 * s(th)**2 + I3 * c(th) * (a + R * c(th))) * psd
    rho = (I1 * I3 + m * R**2 * I1 * s(th)**2 + m * (a + R * c(th))**2 * I3)**sp.Rational(-1, 2)
    assert S.is_first_integral(PJ)
    assert S.is_first_integral((psd * c(th) + phd) / rho)
    assert is_energy_conserved(S)
    assert not S.is_first_integral(phd)
    assert not S.is_first_integral(PJ + phd)
    # O-RS-1 through both front ends of Theorem 4 (one implementation)
    x, y = N.coords[:2]
    uJ = N.vector_field({x: -R * a * s(th) * c(ps), y: -R * a * s(th) * s(ps), ph: a, ps: R})
    chk = check_noether_field(S, uJ)
    assert chk.is_noether and chk.lagrangian_ok and not chk.is_symmetry
    assert is_zero(S.restricted(chk.integral - PJ))
    assert check_noether_field(S, uJ.components)


def test_routh_sphere_linear_integral_search_finds_jellett():
    S = routh()
    (th, ph, ps), (thd, phd, psd) = _euler(S)
    m, R, a, I1, I3, g = S.manifold.parameters
    PJ = (a + R * c(th)) * I3 * phd + (R * I1 * s(th)**2 + I3 * c(th) * (a + R * c(th))) * psd
    found = linear_integrals(S)
    assert found and all(F.verified for F in found)
    # Jellett's integral is in the span of what was found (one linear integral here)
    assert len(found) == 1
    ratio = sp.cancel(sp.together(S.restricted(found[0].expression) / PJ))
    assert gm.core.zero.default_policy().is_constant(ratio, S.phase_space.coords)


def test_routh_sphere_point_symmetries():
    S = routh()
    N = S.manifold
    x, y, th, ph, ps = N.coords
    fields = S.point_symmetries()
    # translations, the spin about the symmetry axis and the rotation about the vertical
    expected = [N.vector_field({x: 1}), N.vector_field({y: 1}), N.vector_field({ph: 1}),
                N.vector_field({x: -y, y: x, ps: 1})]
    span = sp.Matrix([list(u.components) for u in fields])
    assert span.rank() == 4
    for u in expected:
        assert sp.Matrix.vstack(span, sp.Matrix([list(u.components)])).rank() == 4


def test_routh_sphere_jacobi_fails():
    S = routh()
    form = S.pseudo_hamiltonian()
    assert not S.is_holonomic()
    assert not form.satisfies_jacobi()


# -- Chaplygin ball (§4.2) ---------------------------------------------------------------------
def test_chaplygin_ball_integrals_and_density():
    S = ball()
    assert S.is_first_integral(_area(S))                    # (5.16)
    assert is_energy_conserved(S)
    assert not S.is_first_integral(_area(S) + _euler(S)[1][0])
    rho = _cb_density(S)
    assert S.is_invariant_density(rho)                      # O-CB-4
    assert not S.is_invariant_density(1)
    assert not S.is_invariant_density(rho * s(_euler(S)[0][0]))


def test_chaplygin_ball_noether_field_dpsi():
    """O-CB-1 / O-CB-2: d/dpsi is a Noether field (area integral), not a symmetry field."""
    S = ball()
    N = S.manifold
    ps = _euler(S)[0][2]
    chk = check_noether_field(S, N.vector_field({ps: 1}))
    assert chk.is_noether and not chk.is_symmetry
    assert is_zero(S.restricted(chk.integral - _area(S)))
    assert not check_noether_field(S, N.vector_field({N.coords[0]: 1}))


def test_chaplygin_ball_pseudo_hamiltonian_reproduces_flow_and_jacobi_fails():
    S = ball()
    form = S.pseudo_hamiltonian()
    assert not form.satisfies_jacobi()
    # (J grad H)^q is the Lagrange-d'Alembert velocity: agree after M = M(q, qdot)
    v = S.vector_field()
    J, X = form.matrix, form.manifold.coords
    grad = [sp.diff(form.hamiltonian, x) for x in X]
    for q in S.manifold.coords:
        i = X.index(q)
        lhs = sp.Add(*[J[i, k] * grad[k] for k in range(len(X)) if J[i, k] != 0])
        rhs = v.components[S.phase_space.coords.index(q)]
        assert is_zero(lhs.xreplace(form.momentum_of) - rhs)


@pytest.mark.parametrize("which", ["ball", "routh"])
def test_jacobi_holds_for_holonomic_variant(which):
    """Same Lagrangian, holonomic constraints xdot = R thetadot, ydot = R phidot (exact
    differentials of x - R theta, y - R phi): J is Poisson (Prop. 7)."""
    S0 = ball() if which == "ball" else routh()
    N = S0.manifold
    (th, ph, _), (thd, phd, _) = _euler(S0)
    xd, yd = N.velocities[:2]
    R = [p for p in N.parameters if p.name == "R"][0]
    H = gm.NonholonomicSystem(N, S0.lagrangian, [xd - R * thd, yd - R * phd],
                              independent=("thetadot", "phidot", "psidot"), name="holonomic")
    assert H.is_holonomic()
    assert H.pseudo_hamiltonian().satisfies_jacobi()
