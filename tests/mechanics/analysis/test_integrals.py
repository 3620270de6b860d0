"""First integrals: spec B1 oracle 4, B2 oracle 4, Noether fields (part 2 §3.5, §3.7, §4.1-§4.3)."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.algebra.linear import solve_constant_linear
from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.lie.prolongation import prolong
from geomech.mechanics.analysis.integrals import (
    first_integral_defect,
    is_energy_conserved,
    is_first_integral,
    polynomial_integrals,
    system_is_first_integral,
)
from geomech.mechanics.analysis.kozlov_kolesnikov import (
    check_noether_field,
    find_noether_fields,
    noether_integral,
)
from geomech.mechanics.analysis.polynomial_integrals import (
    natural_polynomial_integrals,
    system_polynomial_integrals,
)
from geomech.mechanics.system import NonholonomicSystem

from .test_measure import ball_paraboloid, ball_reduced, chaplygin_ball_mg, sleigh_field

c, s = sp.cos, sp.sin
Z = default_policy().is_zero


# -- B1 oracle 4 ---------------------------------------------------------------------------------
def test_b1_energy_full_system():
    M, V, n = ball_paraboloid()
    x1, x2, w1, w2, w3 = M.coords
    cc, R, m, I, g = M.parameters
    w = sp.Matrix([w1, w2, w3])
    E = ((I + m * R**2) * w.dot(w) / 2 - m * R**2 * w.dot(n)**2 / 2
         + m * g * cc * (x1**2 + x2**2) / 2)
    assert is_first_integral(V, E)
    assert not is_first_integral(V, w.dot(w))      # |omega|^2 alone is not conserved


def test_b1_reduced_integrals_symbolic_tau():
    M, V, tau = ball_reduced()
    Z1, Z2, Z3, Z4 = M.coords
    kap = M.parameters[1]
    Et = ((Z1 + Z2)**2 / Z4 + (1 + Z4) * Z3**2 / Z4 + Z1**2 - tau * Z2**2 / (1 + Z4) + kap * Z4)
    assert is_first_integral(V, Et)
    for sign in (1, -1):
        k = (1 + sign * sp.sqrt(1 - tau)) / 2
        F = (1 + Z4)**(k - 1) * (k * Z2 + (1 + Z4) * Z1 / 2)
        assert is_first_integral(V, F)
        # a wrong exponent is detected
        assert not is_first_integral(V, (1 + Z4)**k * (k * Z2 + (1 + Z4) * Z1 / 2))


@pytest.mark.slow
def test_b1_energy_found_by_search():
    """The search (degree 2 in Z1, Z2, Z3, coefficients rational in Z4) finds exactly the
    reduced energy E~ of B1, with symbolic tau and kappa."""
    M, V, tau = ball_reduced()
    Z1, Z2, Z3, Z4 = M.coords
    kap = M.parameters[1]
    Et = ((Z1 + Z2)**2 / Z4 + (1 + Z4) * Z3**2 / Z4 + Z1**2 - tau * Z2**2 / (1 + Z4) + kap * Z4)
    found = polynomial_integrals(V, 2, variables=[Z1, Z2, Z3],
                                 ansatz=[1, Z4, 1 / Z4, 1 / (1 + Z4)])
    # two integrals: E~ and F+ F- (k+ + k- = 1 makes the product rational in Z4)
    assert len(found) == 2
    kp, km = [(1 + sg * sp.sqrt(1 - tau)) / 2 for sg in (1, -1)]
    FpFm = sp.expand((kp * Z2 + (1 + Z4) * Z1 / 2) * (km * Z2 + (1 + Z4) * Z1 / 2)) / (1 + Z4)
    assert is_first_integral(V, FpFm)
    for target in (Et, FpFm):
        c1, c2, c3 = sp.symbols("c1 c2 c3")
        sols = solve_constant_linear([c1 * found[0] + c2 * found[1] + c3 * target],
                                     [c1, c2, c3], keep=M.parameters)
        assert len(sols) == 1 and sols[0][c3] != 0


# -- B2 oracle 4 and the polynomial search -------------------------------------------------------
def test_b2_energy_any_potential():
    M, V, U = sleigh_field(potential=True)
    x, y, phi, v1, w = M.coords
    m, I, a = M.parameters
    assert is_first_integral(V, (m * v1**2 + I * w**2) / 2 + U)
    assert Z(first_integral_defect(V, m * v1**2 / 2) - m * v1 * V(v1))


def test_b2_polynomial_integrals_reduced_sleigh():
    R = Manifold("Rsl", "v1 omega", parameters="m I a")
    v1, w = R.coords
    m, I, a = R.parameters
    V = R.vector_field([a * w**2, -m * a * w * v1 / I])
    found = polynomial_integrals(V, 2)
    assert len(found) == 1 and is_first_integral(V, found[0])
    # proportional to the energy: the 2x2 minors of the coefficient vectors vanish
    E = m * v1**2 + I * w**2
    assert Z(sp.diff(found[0], v1, 2) * sp.diff(E, w, 2) - sp.diff(found[0], w, 2)
             * sp.diff(E, v1, 2))
    # a = 0: v1 and omega are conserved, so every polynomial of degree <= 2 is
    assert len(polynomial_integrals(V.subs(a, 0), 2)) == 5
    # degree 4: only functions of the energy (E and E^2)
    assert len(polynomial_integrals(V, 4, homogeneous=False)) == 2


def test_polynomial_integrals_with_configuration_ansatz():
    """Full free sleigh: no integral linear in (v1, omega) with trigonometric coefficients
    except none, and the energy among the quadratic ones."""
    M, V, _ = sleigh_field()
    x, y, phi, v1, w = M.coords
    m, I, a = M.parameters
    found = polynomial_integrals(V, 2, variables=[v1, w], ansatz=[1], homogeneous=True)
    assert len(found) == 1 and is_first_integral(V, found[0])
    lin = polynomial_integrals(V, 1, variables=[v1, w], ansatz=[1, c(phi), s(phi)],
                               homogeneous=True)
    assert lin == []


def test_solve_constant_linear_parameters():
    x, k, c1, c2 = sp.symbols("x k c1 c2")
    sols = solve_constant_linear([c1 * k * x + c2 * x], [c1, c2], keep=[k])
    assert len(sols) == 1
    assert Z(sols[0][c1] * k + sols[0][c2])


# -- Noether fields (Theorem 4 / 5) ---------------------------------------------------------------
def _routh_sphere_data():
    from geomech.examples.kinematics import body_angular_velocity, euler_matrix

    N = Manifold("RS", "x y theta phi psi", parameters="m R a I1 I3 g")
    x, y, th, ph, ps = N.coords
    m, R, a, I1, I3, g = N.parameters
    xd, yd, thd, phd, psd = N.velocities
    Q = euler_matrix(th, ph, ps)
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    v = Q * sp.Matrix([xd, yd, 0]) + w.cross(sp.Matrix([0, 0, a]))
    L = m * v.dot(v) / 2 + (I1 * w[0]**2 + I1 * w[1]**2 + I3 * w[2]**2) / 2 - m * g * a * c(th)
    fx = xd - R * thd * s(ps) + R * phd * s(th) * c(ps)
    fy = yd + R * thd * c(ps) + R * phd * s(th) * s(ps)
    return N, L, [fx, fy], w


def _lift_u0(N, u0):
    """Spec (5.10): the horizontal lift of u0 = (u_theta, u_phi, u_psi)."""
    x, y, th, ph, ps = N.coords
    R = N.parameters[1]
    ut, uf, up = u0
    return [R * (ut * s(ps) - uf * s(th) * c(ps)), -R * (ut * c(ps) + uf * s(th) * s(ps)),
            ut, uf, up]


def test_routh_sphere_noether_fields():
    N, L, fs, w = _routh_sphere_data()
    x, y, th, ph, ps = N.coords
    m, R, a, I1, I3, g = N.parameters
    xd, yd, thd, phd, psd = N.velocities
    S = NonholonomicSystem(N, lagrangian=L, constraints=fs)
    uJ = _lift_u0(N, [0, a, R])
    chk = check_noether_field(S, uJ)
    assert chk and chk.tangent and Z(chk.lift_of_L)
    PJ = (a + R * c(th)) * I3 * phd + (R * I1 * s(th)**2 + I3 * c(th) * (a + R * c(th))) * psd
    sol = sp.solve(fs, [xd, yd], dict=True)[0]
    assert Z((chk.integral - PJ).xreplace(sol))
    rho = (I1 * I3 + m * R**2 * I1 * s(th)**2 + m * (a + R * c(th))**2 * I3)**sp.Rational(-1, 2)
    uR = _lift_u0(N, [0, rho * (I1 + m * a * (a + R * c(th))), rho * m * R * (a + R * c(th))])
    chkR = check_noether_field(S, uR)
    assert chkR
    assert Z((chkR.integral - w[2] / rho).xreplace(sol))
    # a field outside the distribution fails with the reason named
    bad = check_noether_field(S, [1, 0, 0, 0, 0])
    assert not bad and not bad.tangent and "tangent" in bad.reasons[0]
    # a tangent field that is not a Noether field
    assert not check_noether_field(S, _lift_u0(N, [0, 1, 0]))


@pytest.mark.slow
def test_routh_sphere_noether_search():
    """O-RS-4 within a finite ansatz: span{Jellett, Routh} is found, nothing else."""
    N, L, fs, w = _routh_sphere_data()
    x, y, th, ph, ps = N.coords
    m, R, a, I1, I3, g = N.parameters
    rho = (I1 * I3 + m * R**2 * I1 * s(th)**2 + m * (a + R * c(th))**2 * I3)**sp.Rational(-1, 2)
    gens = [_lift_u0(N, [0, 1, 0]), _lift_u0(N, [0, 0, 1])]
    S = NonholonomicSystem(N, lagrangian=L, constraints=fs)
    found = find_noether_fields(S, gens, [1, rho, rho * c(th)])
    assert len(found) == 2
    for u, _F in found:
        assert check_noether_field(S, u)
    # with constant coefficients only Jellett's field (proportional to (0, a, R))
    only = find_noether_fields(S, gens, [1])
    assert len(only) == 1
    u = only[0][0]
    assert Z(u[3] * R - u[4] * a)


def test_noether_proof_identity():
    """d/dt (dL/dqdot . u) = u~(L) + sum u_i E_i(L) on TN, for a generic u(q) (sleigh L)."""
    N = Manifold("N", "x y phi", parameters="m I a")
    x, y, phi = N.coords
    xd, yd, phd = N.velocities
    m, I, a = N.parameters
    acc = sp.symbols("xdd ydd phidd")
    L = m * (xd**2 + yd**2) / 2 + I * phd**2 / 2 + m * a * phd * (-xd * s(phi) + yd * c(phi))
    u = [sp.Function(f"u{i}")(x, y, phi) for i in range(3)]

    def ddt(f):
        return (sum(sp.diff(f, q) * qd for q, qd in zip(N.coords, N.velocities))
                + sum(sp.diff(f, qd) * qa for qd, qa in zip(N.velocities, acc)))

    F = noether_integral(u, L, N.velocities)
    E = [ddt(sp.diff(L, qd)) - sp.diff(L, q) for q, qd in zip(N.coords, N.velocities)]
    lhs = ddt(F)
    rhs = prolong(N.vector_field(u))(L, normalize=False) + sum(ui * Ei for ui, Ei in zip(u, E))
    assert Z(lhs - rhs)


def test_chaplygin_ball_area_integral():
    """O-CB-1/2: d/dpsi is a Noether field, d/dx is not (not tangent); (M, gamma) integrals."""
    from geomech.examples.kinematics import body_angular_velocity

    N = Manifold("CBN", "x y theta phi psi", parameters="m R I1 I2 I3")
    x, y, th, ph, ps = N.coords
    m, R, I1, I2, I3 = N.parameters
    xd, yd, thd, phd, psd = N.velocities
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    L = m * (xd**2 + yd**2) / 2 + (I1 * w[0]**2 + I2 * w[1]**2 + I3 * w[2]**2) / 2
    fs = [xd - R * thd * s(ps) + R * phd * s(th) * c(ps),
          yd + R * thd * c(ps) + R * phd * s(th) * s(ps)]
    S = NonholonomicSystem(N, lagrangian=L, constraints=fs)
    chk = check_noether_field(S, [0, 0, 0, 0, 1])
    assert chk
    gam = sp.Matrix([s(ph) * s(th), c(ph) * s(th), c(th)])
    Iw = sp.Matrix([I1 * w[0], I2 * w[1], I3 * w[2]])
    assert Z(chk.integral - Iw.dot(gam))
    assert not check_noether_field(S, [1, 0, 0, 0, 0])
    # Euler-Poisson form: H, (M, M), (M, gamma), (gamma, gamma) are integrals
    M, V, den, om = chaplygin_ball_mg()
    Mv, gv = sp.Matrix(M.coords[:3]), sp.Matrix(M.coords[3:])
    for F in (gv.dot(gv), Mv.dot(gv), Mv.dot(Mv)):
        assert is_first_integral(V, F)


@pytest.mark.slow
def test_chaplygin_ball_energy_euler_poisson():
    M, V, den, om = chaplygin_ball_mg()
    Mv, gv = sp.Matrix(M.coords[:3]), sp.Matrix(M.coords[3:])
    assert is_first_integral(V, Mv.dot(om) / 2, relations=[gv.dot(gv) - 1])


def test_sharp_edge_noether_fields():
    """O-SE-1 (part): u3 = d/dphi and u2 are Noether fields of the sharp-edge body."""
    from geomech.examples.kinematics import body_angular_velocity, euler_matrix

    N = Manifold("SE", "x y theta phi psi", parameters="m R b I1 I3 g")
    x, y, th, ph, ps = N.coords
    m, R, b, I1, I3, g = N.parameters
    xd, yd, thd, phd, psd = N.velocities
    Q = euler_matrix(th, ph, ps)
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    r = sp.Matrix([-R * s(ph), -R * c(ph), -b])
    rdot = sum((sp.diff(r, q) * qd for q, qd in zip(N.coords, N.velocities)), sp.zeros(3, 1))
    vc = Q * sp.Matrix([xd, yd, 0]) - rdot - w.cross(r)
    L = (m * vc.dot(vc) / 2 + (I1 * w[0]**2 + I1 * w[1]**2 + I3 * w[2]**2) / 2
         - m * g * (R * s(th) + b * c(th)))
    f = xd * s(ps) - yd * c(ps)
    d = R * c(th) - b * s(th)
    S = NonholonomicSystem(N, lagrangian=L, constraints=[f])
    assert check_noether_field(S, [0, 0, 0, 1, 0])
    u2 = [-d * c(ps), -d * s(ps), 0, 0, -1]
    chk = check_noether_field(S, u2)
    assert chk
    P2 = I1 * psd * s(th)**2 + I3 * (phd + psd * c(th)) * c(th)
    sol = {yd: xd * s(ps) / c(ps)}
    assert Z((chk.integral + P2).xreplace(sol))


# -- system-level entry points (catalogue) --------------------------------------------------------
def test_system_level_sleigh():
    import geomech as gm

    S = gm.examples.get("chaplygin_sleigh")
    assert is_energy_conserved(S)
    assert system_is_first_integral(S, S.energy())
    phi = S.manifold.coords[2]
    xd = S.manifold.velocities[0]
    assert not system_is_first_integral(S, xd)
    found = system_polynomial_integrals(S, 2, ansatz=[1, 1 / c(phi)**2], homogeneous=True)
    assert len(found) == 1 and Z(sp.together(found[0] / S.energy()).diff(xd))
    noe = find_noether_fields(S)
    assert noe == []          # the sleigh has no Noether field with constant coefficients


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(-4, 4), min_size=4, max_size=4))
def test_polynomial_integrals_of_linear_hamiltonian_flows(coeffs):
    """For H = quadratic form, the linear flow J grad H conserves H; the search finds H."""
    P = Manifold("P", "q p")
    q, p = P.coords
    a, b, cc, _ = coeffs
    H = a * q**2 + b * q * p + cc * p**2
    V = P.vector_field([sp.diff(H, p), -sp.diff(H, q)])
    found = polynomial_integrals(V, 2, homogeneous=True)
    if H == 0:
        assert len(found) == 3
    else:
        assert any(Z(sp.diff(F * H.coeff(q, 2) - H * F.coeff(q, 2), q)) or
                   default_policy().is_constant(sp.together(F / H), P.coords) for F in found)
        for F in found:
            assert is_first_integral(V, F)


def test_bad_input():
    M, V, _ = ball_reduced()
    with pytest.raises(ValueError, match="degree"):
        polynomial_integrals(V, -1)
    with pytest.raises(ValueError, match="not a coordinate"):
        polynomial_integrals(V, 1, variables=[sp.Symbol("zz")])
    with pytest.raises(ValueError, match="depends on the polynomial"):
        polynomial_integrals(V, 1, variables=M.coords[:1], ansatz=[M.coords[0]])
    with pytest.raises(TypeError):
        is_first_integral("v", 1)


def test_check_field_is_public():
    from geomech.mechanics.analysis import integrals

    integrals.check_field(Manifold("M", "x").vector_field([1]))
    with pytest.raises(TypeError, match="VectorField"):
        integrals.check_field([1])


@pytest.mark.slow
def test_catalogue_routh_sphere_integrals():
    """O-RS-2 on the catalogue system: Jellett, Routh and the energy are conserved by the
    Lagrange-d'Alembert flow of ``gm.examples.routh_sphere()``."""
    import geomech as gm

    S = gm.examples.get("routh_sphere")
    N = S.manifold
    x, y, th, ph, ps = N.coords
    m, R, a, I1, I3, g = N.parameters
    xd, yd, thd, phd, psd = N.velocities
    PJ = (a + R * c(th)) * I3 * phd + (R * I1 * s(th)**2 + I3 * c(th) * (a + R * c(th))) * psd
    rho = (I1 * I3 + m * R**2 * I1 * s(th)**2 + m * (a + R * c(th))**2 * I3)**sp.Rational(-1, 2)
    assert system_is_first_integral(S, PJ)
    assert system_is_first_integral(S, (psd * c(th) + phd) / rho)
    assert is_energy_conserved(S)
    assert not system_is_first_integral(S, phd)
    chk = check_noether_field(S, _lift_u0(N, [0, a, R]))
    assert chk


@pytest.mark.slow
def test_catalogue_chaplygin_ball_area_integral():
    import geomech as gm
    from geomech.examples.kinematics import body_angular_velocity

    S = gm.examples.get("chaplygin_ball")
    N = S.manifold
    x, y, th, ph, ps = N.coords
    m, R, I1, I2, I3 = N.parameters
    w = body_angular_velocity(th, ph, ps, *N.velocities[2:])
    gam = sp.Matrix([s(ph) * s(th), c(ph) * s(th), c(th)])
    area = I1 * w[0] * gam[0] + I2 * w[1] * gam[1] + I3 * w[2] * gam[2]
    assert system_is_first_integral(S, area)
    assert is_energy_conserved(S)


# -- polynomial integrals in the natural frame -----------------------------------------------------
def _values(exprs, npts, seed=1):
    """Exact values of ``exprs`` at random points (angles through rational half-angle tangents)."""
    from geomech.core.zero import ZeroPolicy, rational_rewrite

    rat = [rational_rewrite(e) for e in exprs]
    syms = sorted(set().union(*(r.free_symbols for r in rat)), key=sp.default_sort_key)
    sampler = ZeroPolicy(seed=seed, warn=False)
    rows = []
    while len(rows) < npts:
        pt = sampler.random_point(syms)
        rows.append([r.xreplace(pt) for r in rat])
    return sp.Matrix(rows)


def _in_span(found, known, params=()) -> bool:
    """Linear algebra check: ``known`` is a constant combination of ``found`` (constants that
    may depend on ``params``: these are fixed at one random exact value first)."""
    from geomech.core.zero import ZeroPolicy

    fix = ZeroPolicy(seed=99, warn=False).random_point(params)
    found = [sp.sympify(F).xreplace(fix) for F in found]
    known = sp.sympify(known).xreplace(fix)
    n = len(found) + 4
    return _values(found, n).rank() == _values([*found, known], n).rank()


def _gradient_rank(exprs, variables) -> int:
    J = sp.Matrix([[sp.diff(F, x) for x in variables] for F in exprs])
    return _values(list(J), 1)[0, :].reshape(J.rows, J.cols).rank()


def _ball_known(S, w, params=None):
    """Energy, area integral (M, gamma) and M^2 in (omega, gamma) (Chaplygin 1903)."""
    m, R, I1, I2, I3 = params or S.manifold.parameters
    th, ph = S.manifold.coords[2:4]
    g = sp.Matrix([s(ph) * s(th), s(th) * c(ph), c(th)])
    w = sp.Matrix(w)
    D = m * R**2
    M = (sp.diag(I1, I2, I3) + D * sp.eye(3)) * w - D * g * g.dot(w)
    return [w.dot(M) / 2, M.dot(g), M.dot(M)]


def test_chaplygin_ball_natural_integrals_numeric_parameters():
    """Each integral is annihilated by the phase-space flow (independent check); the span
    contains the energy, the area integral and M^2; three are functionally independent."""
    import geomech as gm

    S = gm.examples.chaplygin_ball(m=1, R=1, I1=2, I2=3, I3=5)
    Fs = S.polynomial_integrals(2)
    assert len(Fs) == len(Fs.natural) >= 3
    assert all(S.is_first_integral(F) for F in Fs)
    omega = list(Fs.variables)
    for K in _ball_known(S, omega, (1, 1, 2, 3, 5)):
        assert _in_span(Fs.natural, K)
    assert not _in_span(Fs.natural, omega[0]**2)
    th, ph = S.manifold.coords[2:4]
    assert _gradient_rank(Fs.natural, [th, ph, *omega]) == 3


def test_sleigh_polynomial_integrals_without_natural_frame():
    import geomech as gm

    S = gm.examples.chaplygin_sleigh()
    Fs = S.polynomial_integrals(2)
    assert all(S.is_first_integral(F) for F in Fs)
    assert _in_span(list(Fs), S.energy())


def test_rubber_ball_integrals_energy_and_more():
    """Rubber ball on a plane (no natural frame): coefficients in sin/cos of theta."""
    import geomech as gm

    S = gm.examples.rubber_ball()
    Fs = S.polynomial_integrals(2)
    assert all(S.is_first_integral(F) for F in Fs)
    assert _in_span(list(Fs), S.energy(), S.manifold.parameters)
    assert len(Fs) == 2 and _gradient_rank(list(Fs), S.phase_space.coords) == 2
    assert "sin(theta)" in Fs.family


def test_so4_rigid_body_manakov_integrals_in_span():
    """Manakov (1976): the quadratic integrals of the so(4) Euler-Arnold equations."""
    import geomech as gm

    rb = gm.rigid_body_so_n(4, (1, 2, 3, 5))
    v = rb.vector_field()
    Fs = polynomial_integrals(v, 2, homogeneous=True)
    assert all(is_first_integral(v, F) for F in Fs)
    quad = [K for K in rb.manakov_integrals().values() if sp.Poly(K, *v.manifold.coords)
            .total_degree() == 2]
    assert quad and all(_in_span(Fs, K) for K in quad)
    assert _gradient_rank(Fs, v.manifold.coords) == len(Fs)


def _flow_annihilates(S, Fs) -> bool:
    """Independent exact check: each integral on the phase space, differentiated along the
    Lagrange-d'Alembert flow of ``S`` (not the natural frame's), vanishes (zero policy)."""
    return all(S.is_first_integral(F) for F in Fs)


@pytest.mark.slow
def test_chaplygin_ball_natural_integrals_symbolic():
    """Default call, symbolic parameters: energy, (M, gamma), M^2 in the span (Chaplygin
    1903), exactly verified along the flow, three functionally independent."""
    import geomech as gm

    S = gm.examples.chaplygin_ball()
    Fs = S.polynomial_integrals()
    assert len(Fs) == 4 and _flow_annihilates(S, Fs)
    for K in _ball_known(S, list(Fs.variables)):
        assert _in_span(Fs.natural, K, S.manifold.parameters)
    th, ph = S.manifold.coords[2:4]
    assert _gradient_rank(Fs.natural, [th, ph, *Fs.variables]) == 3


def _routh_known(S, w, params=None):
    """Energy, Jellett's (I omega, R gamma + a e3) and the square of Routh's integral
    omega3 sqrt(I1 I3 + m I3 (R gamma3 + a)^2 + m R^2 I1 (1 - gamma3^2)) (Borisov & Mamaev
    2002), in the body angular velocity ``w``."""
    m, R, a, I1, I3, g = params or S.manifold.parameters
    th, ph = S.manifold.coords[2:4]
    gam = sp.Matrix([s(ph) * s(th), s(th) * c(ph), c(th)])
    w = sp.Matrix(w)
    r = -R * gam - sp.Matrix([0, 0, a])               # centre of mass -> contact point
    v = w.cross(r)
    energy = (m * v.dot(v) + (sp.diag(I1, I1, I3) * w).dot(w)) / 2 + m * g * a * c(th)
    jellett = (sp.diag(I1, I1, I3) * w).dot(R * gam + sp.Matrix([0, 0, a]))
    routh2 = w[2]**2 * (I1 * I3 + m * I3 * (R * c(th) + a)**2 + m * R**2 * I1 * s(th)**2)
    return energy, jellett, routh2


@pytest.mark.slow
def test_routh_sphere_natural_integrals_symbolic():
    """Routh sphere, six symbolic parameters, default degree: the span is exactly
    {Jellett, energy, Jellett^2, Routh^2} (Routh's integral itself has a square root); each
    proved along the phase-space flow; three functionally independent."""
    import geomech as gm
    from geomech.core.budget import work_limit

    S = gm.examples.routh_sphere()
    with work_limit(1700, "Routh sphere integrals"):     # 425 units of work today
        Fs = S.polynomial_integrals()
    assert len(Fs) == 4 and len(Fs.natural) == 4 and _flow_annihilates(S, Fs)
    E, J, R2 = _routh_known(S, list(Fs.variables))
    for K in (E, J, R2, J**2):
        assert _in_span(Fs.natural, K, S.manifold.parameters)
    assert _in_span(list(Fs), S.energy(), S.manifold.parameters)
    assert not _in_span(Fs.natural, list(Fs.variables)[2],
                        S.manifold.parameters)              # omega3 alone is not conserved
    th, ph = S.manifold.coords[2:4]
    assert _gradient_rank(Fs.natural, [th, ph, *Fs.variables]) == 3
    # graded basis: the linear integral (Jellett's) comes first
    assert sp.Poly(Fs.natural[0], *Fs.variables).total_degree() == 1


def test_routh_sphere_numeric_parameters_natural_and_phase_forms():
    import geomech as gm

    p = (1, 2, sp.Rational(1, 2), 3, 5, 10)
    S = gm.examples.routh_sphere(*p)
    Fs = S.polynomial_integrals(1)
    assert len(Fs) == 1 and _flow_annihilates(S, Fs)
    E, J, R2 = _routh_known(S, list(Fs.variables), p)
    assert _in_span(Fs.natural, J)
    # the phase-space form is the natural form with omega written in the velocities
    assert default_policy().is_zero(Fs[0] - S.restricted(Fs.natural[0].xreplace(Fs.variables)))
    text = str(Fs)
    assert "F1 = " in text and "[natural variables]" in text and "omega3 = " in text
    assert repr(Fs).startswith("IntegralList([") and "natural=[" in repr(Fs)


def _suslov(D=0, E=0, potential=None):
    """Suslov's problem (Suslov 1902; Kozlov 1985): rigid body about a fixed point with the
    body constraint omega_3 = 0, inertia [[A, 0, D], [0, B, E], [D, E, C]]; natural frame
    the body rates (omega1, omega2), natural functions the Poisson vector."""
    import geomech as gm
    from geomech.examples.kinematics import body_angular_velocity

    N = Manifold("SO3", "theta phi psi", parameters="A B C k")
    A, B, C, k = N.parameters
    th, ph, ps = N.coords
    w = body_angular_velocity(th, ph, ps, *N.velocities)
    inertia = sp.Matrix([[A, 0, D], [0, B, E], [D, E, C]])
    L = (w.T * inertia * w)[0] / 2 - (potential(k, th, ph) if potential else 0)
    E1 = N.vector_field([c(ph), -c(th) * s(ph) / s(th), s(ph) / s(th)])
    E2 = N.vector_field([-s(ph), -c(th) * c(ph) / s(th), c(ph) / s(th)])
    frame = {"frame": (E1, E2), "names": ("omega1", "omega2"),
             "functions": (s(ph) * s(th), s(th) * c(ph), c(th))}
    return gm.NonholonomicSystem(N, L, [sp.expand(w[2])], name="suslov", natural_frame=frame)


def test_suslov_principal_axis_rates_conserved():
    """e along a principal axis: omega1 and omega2 are integrals (so every quadratic form in
    them); the energy is in the span."""
    S = _suslov()
    Fs = S.polynomial_integrals(2, coefficient_degree=0)
    assert len(Fs) == 5 and _flow_annihilates(S, Fs)
    w1, w2 = Fs.variables
    for K in (w1, w2, w1 * w2):
        assert _in_span(Fs.natural, K)


def test_suslov_general_inertia_only_energy():
    """I13, I23 != 0, no potential: only the energy (Kozlov 1985: the rates tend to
    asymptotic rotations, so no further polynomial integral), found symbolically."""
    S = _suslov(D=1, E=2)
    Fs = S.polynomial_integrals(2)
    assert len(Fs) == 1 and _flow_annihilates(S, Fs)
    A, B = S.manifold.parameters[:2]
    w1, w2 = Fs.variables
    assert _in_span(Fs.natural, A * w1**2 + B * w2**2, S.manifold.parameters)
    assert _in_span(list(Fs), S.energy(), S.manifold.parameters)


@pytest.mark.slow
def test_suslov_with_potential_energy_found():
    """A potential k (gamma, e3): the energy (now with gamma in its coefficients) is found."""
    S = _suslov(D=1, E=2, potential=lambda k, th, ph: k * c(th))
    Fs = S.polynomial_integrals(2)
    assert Fs and _flow_annihilates(S, Fs)
    assert _in_span(list(Fs), S.energy(), S.manifold.parameters)


def test_so4_manakov_casimirs_and_energy():
    """so(4), Manakov inertia (Manakov 1976): the quadratic search spans tr(M^2), the Pfaffian
    (the two Casimirs) and the Manakov integrals of degree 2; exactly 4, independent."""
    import geomech as gm

    rb = gm.rigid_body_so_n(4, (1, 2, 3, 5))
    v = rb.vector_field()
    Fs = polynomial_integrals(v, 2, homogeneous=True)
    M = rb.momentum
    pf = M[0, 1] * M[2, 3] - M[0, 2] * M[1, 3] + M[0, 3] * M[1, 2]
    known = [(M * M).trace(), pf, rb.energy()] + [
        K for K in rb.manakov_integrals().values()
        if sp.Poly(K, *v.manifold.coords).total_degree() == 2]
    assert all(_in_span(Fs, sp.expand(K)) for K in known)
    assert len(Fs) == 4 and _gradient_rank(Fs, v.manifold.coords) == 4


@pytest.mark.slow
def test_so4_quartic_casimir_in_degree_four_span():
    """tr(M^4) is in the span of the homogeneous quartic integrals (a function of the
    quadratic Casimirs on so(4))."""
    import geomech as gm

    rb = gm.rigid_body_so_n(4, (1, 2, 3, 5))
    v = rb.vector_field()
    Fs = polynomial_integrals(v, 4, homogeneous=True)
    M = rb.momentum
    assert _in_span(Fs, sp.expand((M**4).trace()))
    assert all(is_first_integral(v, F) for F in Fs[:3])


def test_natural_search_bad_input():
    import geomech as gm

    S = gm.examples.chaplygin_ball(m=1, R=1, I1=2, I2=3, I3=5)
    with pytest.raises(ValueError, match="degree"):
        natural_polynomial_integrals(S, -1)
    with pytest.raises(ValueError, match="coefficient_degree"):
        natural_polynomial_integrals(S, 1, coefficient_degree=-2)


def test_verified_span_cuts_down_to_the_exact_subspace():
    """Step 4 when the random point was special: candidates that fail some equation are
    combined exactly into the verified subspace (here v1 - v2)."""
    from geomech.core.algebra.matrices import verified_subspace as _verified_span

    k = sp.Symbol("k")
    dom = sp.QQ[k]
    K = dom.convert
    rows = [[K(k), K(-1), K(0)], [K(0), K(0), K(1)]]
    good = [K(1), K(k), K(0)]
    assert _verified_span(rows, [good], dom) == [good]
    out = _verified_span(rows, [[K(1), K(k), K(1)], [K(0), K(0), K(1)]], dom)
    assert len(out) == 1
    assert all(dom.to_sympy(x) == dom.to_sympy(y) or dom.to_sympy(x) == -dom.to_sympy(y)
               for x, y in zip(out[0], good))
    assert _verified_span(rows, [[K(0), K(0), K(1)]], dom) == []


def test_natural_search_fallback_agrees(monkeypatch):
    """Outside the polynomial ring the search falls back to sampled equations reduced over
    Q(parameters), each integral verified by the zero policy: same span on the ball."""
    import geomech as gm
    from geomech.mechanics.analysis import field_integrals as P

    S = gm.examples.chaplygin_ball(m=1, R=1, I1=2, I2=3, I3=5)
    fast = S.polynomial_integrals(1)
    monkeypatch.setattr(P, "ansatz_exact_rows", lambda *a: (None, None))
    slow = gm.examples.chaplygin_ball(m=1, R=1, I1=2, I2=3, I3=5).polynomial_integrals(1)
    assert len(fast) == len(slow) == 1
    assert _in_span(slow.natural, fast.natural[0]) and _in_span(fast.natural, slow.natural[0])
