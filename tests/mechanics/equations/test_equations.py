"""Equations of motion in every classical form: spec oracles and agreement of the forms."""

import functools

import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.mechanics.equations import EquationsOfMotion, available_methods, register_method
from geomech.mechanics.system import NonholonomicSystem

sin, cos = sp.sin, sp.cos
METHODS = ["lagrange_dalembert", "voronets", "quasi_velocities", "appell"]


def zero(e):
    return default_policy().is_zero(e)


# -- fixtures built from the spec ----------------------------------------------------------
def sleigh(potential=True, affine=None):
    """Chaplygin sleigh (3.13)-(3.14) with a potential U(x, y, phi) (spec B2)."""
    N = gm.Manifold("N", "x y phi", parameters="m I a")
    x, y, phi = N.coords
    xd, yd, phid = N.velocities
    m, I, a = N.parameters
    f = -xd * sin(phi) + yd * cos(phi)
    U = N.function("U") if potential is True else (potential or 0)
    L = m / 2 * (xd**2 + yd**2) + I / 2 * phid**2 + m * a * phid * f - U
    cons = [f] if affine is None else [f - affine]
    return NonholonomicSystem(N, L, cons, name="sleigh"), U


def sleigh_frame(N):
    phi = N.coords[2]
    tau1 = N.vector_field([cos(phi), sin(phi), 0])
    tau2 = N.vector_field([0, 0, 1])
    afield = N.vector_field([-sin(phi), cos(phi), 0])
    return tau1, tau2, afield


@functools.cache
def rolling_disk():
    """Hoop / rolling disk E1.2 of seeds_001_004 (A, C symbolic)."""
    N = gm.Manifold("N", "x y theta psi phi", parameters="m a A C g")
    x, y, th, ps, ph = N.coords
    xd, yd, thd, psd, phd = N.velocities
    m, a, A, C, g = N.parameters
    r = psd * cos(th) + phd
    T = (m / 2 * (xd**2 + yd**2 + a**2 * cos(th)**2 * thd**2)
         + A / 2 * (thd**2 + psd**2 * sin(th)**2) + C / 2 * r**2)
    cons = [xd - (a * sin(ps) * sin(th) * thd - a * cos(ps) * cos(th) * psd - a * cos(ps) * phd),
            yd - (-a * cos(ps) * sin(th) * thd - a * sin(ps) * cos(th) * psd - a * sin(ps) * phd)]
    return NonholonomicSystem(N, T - m * g * a * sin(th), cons, name="rolling_disk")


@functools.cache
def chaplygin_ball():
    """Balanced ball (seed000 part 2, §4.0/§4.2), q = (x, y, theta, phi, psi)."""
    N = gm.Manifold("N", "x y theta phi psi", parameters="m R I1 I2 I3")
    x, y, th, ph, ps = N.coords
    xd, yd, thd, phd, psd = N.velocities
    m, R, I1, I2, I3 = N.parameters
    w = [psd * sin(th) * sin(ph) + thd * cos(ph), psd * sin(th) * cos(ph) - thd * sin(ph),
         psd * cos(th) + phd]
    L = m / 2 * (xd**2 + yd**2) + (I1 * w[0]**2 + I2 * w[1]**2 + I3 * w[2]**2) / 2
    cons = [xd - R * thd * sin(ps) + R * phd * sin(th) * cos(ps),
            yd + R * thd * cos(ps) + R * phd * sin(th) * sin(ps)]
    return NonholonomicSystem(N, L, cons, name="chaplygin_ball")


def ball_body_frame(N):
    """Fields V_i with qdot = sum V_i omega_i on the constraints (omega = body angular vel.)."""
    x, y, th, ph, ps = N.coords
    R = N.parameters[1]
    o = sp.symbols("o1:4", real=True)
    thdot = o[0] * cos(ph) - o[1] * sin(ph)
    psdot = (o[0] * sin(ph) + o[1] * cos(ph)) / sin(th)
    phdot = o[2] - cos(th) * psdot
    xdot = R * thdot * sin(ps) - R * phdot * sin(th) * cos(ps)
    ydot = -R * thdot * cos(ps) - R * phdot * sin(th) * sin(ps)
    return [N.vector_field([sp.diff(e, oi) for e in (xdot, ydot, thdot, phdot, psdot)])
            for oi in o]


# -- the sleigh (B2) -------------------------------------------------------------------------
def test_sleigh_318_exact_in_quasi_velocities():
    S, U = sleigh()
    N = S.manifold
    x, y, phi = N.coords
    m, I, a = N.parameters
    eq = S.equations("quasi_velocities", frame=sleigh_frame(N), names="v1 omega")
    v1, om = eq.data["quasi_velocities"]
    Ux, Uy, Up = (sp.diff(U, s) for s in (x, y, phi))
    fr = eq.form_rhs
    assert zero(m * fr[v1] - (m * a * om**2 - cos(phi) * Ux - sin(phi) * Uy))
    assert zero(I * fr[om] - (-m * a * om * v1 - Up))
    assert zero(fr[x] - v1 * cos(phi)) and zero(fr[y] - v1 * sin(phi)) and fr[phi] == om
    # structure coefficients (oracle 2): [tau1, tau2] = -a_field
    assert [zero(c - d) for c, d in zip(eq.data["structure"][(0, 1)], [0, 0, -1])] == [True] * 3
    # (3.17): transversal momentum m a omega
    assert zero(eq.data["transversal_momenta"][0] - m * a * om)
    assert zero(eq.variables[v1] - (N.velocities[0] * cos(phi) + N.velocities[1] * sin(phi)))


def test_sleigh_all_methods_agree_and_energy():
    S, U = sleigh()
    ref = S.equations("lagrange_dalembert")
    frame = sleigh_frame(S.manifold)
    others = [S.equations(m) for m in METHODS[1:]]
    others.append(S.equations("quasi_velocities", frame=frame))
    others.append(S.equations("appell", frame=frame[:2]))
    for eq in others:
        assert isinstance(eq, EquationsOfMotion)
        assert eq.agrees_with(ref), eq.method
    V = S.vector_field()
    assert zero(V(S.energy()))                      # oracle 4, for every U(x, y, phi)
    # the phase field expresses (3.18) with ydot = v1 sin(phi)
    N = S.manifold
    m, I, a = N.parameters
    phi = N.coords[2]
    yd, phid = S.independent_velocities
    v1 = yd / sin(phi)
    assert zero(I * ref.rhs[phid] + m * a * phid * v1 + sp.diff(U, phi))


def test_sleigh_chaplygin_form_and_multiplier():
    S, _ = sleigh(potential=None)
    ref = S.equations("lagrange_dalembert")
    ch = S.equations("chaplygin")
    assert ch.agrees_with(ref)
    assert ch.data["cyclic_coordinates"] == (S.manifold.coords[0],)
    # O3.2 multiplier of the constraint row (-sin phi, cos phi, 0): the sleigh of O3.2 is
    # this one with I_O3.2 = I - m a^2; lambda = I_c m v1 omega/(I_c + m a^2) with I_c = I - ma^2
    N = S.manifold
    m, I, a = N.parameters
    phi = N.coords[2]
    yd, phid = S.independent_velocities
    v1 = yd / sin(phi)
    (lam,) = ref.multipliers.values()
    Ic = I - m * a**2
    assert zero(lam - Ic * m * v1 * phid / (Ic + m * a**2))


def test_frame_independence_O36():
    S, _ = sleigh(potential=None)
    N = S.manifold
    x, y, phi = N.coords
    v1 = N.vector_field([(1 + x**2) * cos(phi), (1 + x**2) * sin(phi), sin(phi)])
    v2 = N.vector_field([0, 0, 1])
    n = N.vector_field([-sin(phi), cos(phi), x])
    eq = S.equations("quasi_velocities", frame=[v1, v2, n])
    assert eq.agrees_with(S.equations("lagrange_dalembert"))


def test_affine_constraint_all_methods_agree():
    c = sp.Symbol("c", real=True)
    S, _ = sleigh(potential=None, affine=c * sp.Symbol("k", positive=True))
    ref = S.equations("lagrange_dalembert")
    frame = sleigh_frame(S.manifold)
    for eq in [S.equations("voronets"), S.equations("quasi_velocities"),
               S.equations("appell"), S.equations("chaplygin"),
               S.equations("quasi_velocities", frame=frame),
               S.equations("appell", frame=frame)]:
        assert eq.agrees_with(ref), eq.method


def test_inclined_sleigh_427():
    N = gm.Manifold("N", "x y phi", parameters="m I a g alpha0")
    x, y, phi = N.coords
    m, I, a, g, al = N.parameters
    S, _ = sleigh(potential=None)
    xd, yd, phid = S.manifold.velocities
    # rebuild on the chart with g and alpha0 as parameters
    f = -xd * sin(phi) + yd * cos(phi)
    L = (m / 2 * (xd**2 + yd**2) + I / 2 * phid**2 + m * a * phid * f
         - m * g * sin(al) * (y + a * sin(phi)))
    N2 = gm.Manifold("N", (x, y, phi), parameters="m I a g alpha0",
                     velocities=(xd, yd, phid))
    S = NonholonomicSystem(N2, L, [f], name="inclined_sleigh")
    assert S.dependent_velocities == (xd,)               # x is the cyclic coordinate (4.25)
    ref = S.equations("lagrange_dalembert")
    ydd = a * phid**2 * sin(phi) - g * sin(al) * sin(phi)**2 + phid * yd * cos(phi) / sin(phi)
    phdd = -(m * a / I) * (g * sin(al) * cos(phi) + phid * yd / sin(phi))
    assert zero(ref.rhs[yd] - ydd) and zero(ref.rhs[phid] - phdd)
    ch = S.equations("chaplygin")
    assert ch.agrees_with(ref)
    Smat = ch.data["S"]
    assert zero(Smat[0, 1] + m / sin(phi)**3 * (yd * cos(phi) - a * phid * sin(phi)**2))
    assert zero(Smat[0, 1] + Smat[1, 0])
    E = m * yd**2 / (2 * sin(phi)**2) + I * phid**2 / 2 + m * g * sin(al) * (y + a * sin(phi))
    assert zero(S.energy() - E)
    assert zero(ref.vector_field()(E))
    for meth in METHODS[1:]:
        assert S.equations(meth).agrees_with(ref), meth


# -- hoop / rolling disk (seeds 001-004, E1.2) ----------------------------------------------
def test_rolling_disk_H1_H3_and_energy():
    S = rolling_disk()
    N = S.manifold
    x, y, th, ps, ph = N.coords
    xd, yd, thd, psd, phd = N.velocities
    m, a, A, C, g = N.parameters
    assert S.dependent_velocities == (xd, yd)
    eq = S.equations("lagrange_dalembert")
    thdd, psdd, phdd = eq.rhs[thd], eq.rhs[psd], eq.rhs[phd]
    H1 = ((A + m * a**2) * thdd + (C + m * a**2 - A) * psd**2 * sin(th) * cos(th)
          + (C + m * a**2) * psd * phd * sin(th) + m * g * a * cos(th))
    H2 = ((A * sin(th)**2 + (C + m * a**2) * cos(th)**2) * psdd + (C + m * a**2) * cos(th) * phdd
          + 2 * (A - C - m * a**2) * psd * thd * sin(th) * cos(th) - C * phd * thd * sin(th))
    H3 = (C + m * a**2) * (phdd + cos(th) * psdd) - (C + 2 * m * a**2) * psd * thd * sin(th)
    assert zero(H1) and zero(H2) and zero(H3)
    r = psd * cos(th) + phd
    E = ((A + m * a**2) * thd**2 / 2 + A * psd**2 * sin(th)**2 / 2 + (C + m * a**2) * r**2 / 2
         + m * g * a * sin(th))
    assert zero(S.energy() - E)
    assert zero(eq.vector_field()(E))
    assert not S.is_holonomic()


def test_rolling_disk_methods_agree():
    S = rolling_disk()
    ref = S.equations("lagrange_dalembert")
    for meth in [*METHODS[1:], "chaplygin"]:
        eq = S.equations(meth)
        assert eq.agrees_with(ref), meth
    # the frame of E1.2 is the split frame; [V_psi, V_phi] = a sin(psi) d_x - a cos(psi) d_y
    qv = S.equations("quasi_velocities")
    N = S.manifold
    a, ps = N.parameters[1], N.coords[3]
    st = qv.data["structure"][(1, 2)]
    assert zero(st[3] - a * sin(ps)) and zero(st[4] + a * cos(ps))
    assert all(c == 0 for c in st[:3])


def test_hoop_linear_integrals_and_energy_O17():
    """O1.7: I_k = u_k'(x) u + (C/A) u_k(x) r is conserved whenever (1-x^2) u_k'' = kappa u_k
    (x = cos(theta), u = psidot sin^2(theta)); the energy has the numeric value of the spec."""
    S = rolling_disk()
    N = S.manifold
    m, a, A, C, g = N.parameters
    th = N.coords[2]
    thd, psd, phd = S.independent_velocities
    V = S.vector_field()
    F0, F1 = sp.symbols("F0 F1")              # u_k(x), u_k'(x); u_k'' from the ODE
    X = cos(th)
    kappa = C * m * a**2 / (A * (C + m * a**2))
    F2 = kappa * F0 / (1 - X**2)
    u = psd * sin(th)**2
    r = psd * cos(th) + phd
    xdot = -sin(th) * thd
    dI = (F2 * xdot * u + F1 * V(u)) + C / A * (F1 * xdot * r + F0 * V(r))
    assert zero(dI)
    pt = {m: 1, a: 1, g: sp.Rational(981, 100), A: sp.Rational(1, 2), C: 1, th: sp.Rational(6, 5),
          thd: sp.Rational(3, 10), psd: sp.Rational(3, 2), phd: 4}
    assert abs(sp.N(S.energy().xreplace(pt), 20) - sp.Float("30.34317053957", 20)) < 1e-10


# -- Chaplygin ball ------------------------------------------------------------------------
@pytest.mark.slow
def test_chaplygin_ball_methods_agree():
    S = chaplygin_ball()
    ref = S.equations("lagrange_dalembert")
    for meth in [*METHODS[1:], "chaplygin"]:
        assert S.equations(meth).agrees_with(ref), meth
    assert zero(ref.vector_field()(S.energy()))


@pytest.mark.slow
def test_chaplygin_ball_body_frame():
    S = chaplygin_ball()
    eq = S.equations("quasi_velocities", frame=ball_body_frame(S.manifold),
                     names="omega1 omega2 omega3")
    ref = S.equations("lagrange_dalembert")
    assert eq.agrees_with(ref, numeric=True)


# -- bad input -----------------------------------------------------------------------------
def test_singular_and_non_tangent_frames():
    S, _ = sleigh(potential=None)
    tau1, tau2, afield = sleigh_frame(S.manifold)
    with pytest.raises(ValueError, match="singular frame"):
        S.equations("quasi_velocities", frame=[tau1, tau2, tau1 + tau2])
    with pytest.raises(ValueError, match="singular frame"):
        S.equations("quasi_velocities", frame=[tau1, 2 * tau1, afield])
    with pytest.raises(ValueError, match="frame field 1 is not tangent"):
        S.equations("quasi_velocities", frame=[afield, tau2, tau1])
    with pytest.raises(ValueError, match="frame needs 2 fields"):
        S.equations("quasi_velocities", frame=[tau1])


def test_not_a_chaplygin_system_and_unknown_method():
    S, _ = sleigh()                 # U(x, y, phi) depends on every coordinate
    with pytest.raises(ValueError, match="not a Chaplygin system"):
        S.equations("chaplygin")
    with pytest.raises(ValueError, match="unknown method"):
        S.equations("no_such_form")
    assert {"lagrange_dalembert", "quasi_velocities", "voronets", "chaplygin",
            "appell"} <= set(available_methods())


def test_register_method_plugin():
    @register_method("_test_copy")
    def _copy(system, **options):
        eq = system.equations("lagrange_dalembert")
        return EquationsOfMotion(system, "_test_copy", eq.equations, eq.rhs)

    S, _ = sleigh(potential=None)
    assert S.equations("_test_copy").agrees_with(S.equations("voronets"))


def test_nonholonomic_particle():
    """Particle with zdot = y xdot: LdA vs all forms; energy conserved."""
    N = gm.Manifold("N", "x y z")
    x, y, z = N.coords
    xd, yd, zd = N.velocities
    S = NonholonomicSystem(N, (xd**2 + yd**2 + zd**2) / 2 - y**2 / 2, [zd - y * xd],
                           independent="x y")
    ref = S.equations("lagrange_dalembert")
    assert zero(ref.rhs[xd] + xd * y * yd / (1 + y**2))
    for meth in [*METHODS[1:], "chaplygin"]:
        assert S.equations(meth).agrees_with(ref), meth
    assert zero(ref.vector_field()(S.energy()))


# -- catalogue -----------------------------------------------------------------------------
def _catalogue():
    try:
        ex = gm.examples
        names = list(ex.list())
    except Exception:  # noqa: BLE001 - the catalogue is written in parallel
        return []
    return names


# minutes per system with the generic exact elimination (see the issue note): skipped here
HEAVY = {"snakeboard", "ball_on_surface_of_revolution", "convex_body_on_plane", "ellipsoid"}


@pytest.mark.slow
@pytest.mark.parametrize("name", _catalogue() or ["<none>"])
def test_catalogue_all_methods(name):
    if name == "<none>":
        pytest.skip("catalogue not available")
    if name in HEAVY:
        pytest.skip(f"{name}: exact explicit equations take minutes")
    from geomech.examples._registry import get

    S = get(name)
    if not isinstance(S, NonholonomicSystem):
        pytest.skip(f"{name} is not a NonholonomicSystem")
    ref = S.equations("lagrange_dalembert")
    for meth in METHODS[1:]:
        assert S.equations(meth).agrees_with(ref, numeric=True), (name, meth)
    try:
        ch = S.equations("chaplygin")
    except ValueError:
        return
    assert ch.agrees_with(ref, numeric=True)


def test_forces_and_energy_balance_A13():
    """dE/dt = sum_i Q_i qdot_i on M with non-potential forces; all forms agree."""
    S0, _ = sleigh(potential=None)
    N = S0.manifold
    xd, yd, phid = N.velocities
    mu, nu = sp.symbols("mu nu", positive=True)
    Q = [-mu * xd, -mu * yd, -nu * phid * N.coords[0]]
    S = NonholonomicSystem(N, S0.lagrangian, S0.constraints, forces=Q, name="sleigh_friction")
    ref = S.equations("lagrange_dalembert")
    for meth in METHODS[1:]:
        assert S.equations(meth).agrees_with(ref), meth
    tau1, tau2, afield = sleigh_frame(N)
    assert S.equations("quasi_velocities", frame=[tau1, tau2, afield]).agrees_with(ref)
    power = S.restricted(sum(q * v for q, v in zip(Q, N.velocities)))
    assert zero(ref.vector_field()(S.energy()) - power)


def test_affine_energy_balance_A13():
    """Affine constraint a qdot + b = 0: dE/dt = sum lambda_mu (a qdot)_mu = -lambda b on M."""
    c = sp.Symbol("c", real=True)
    S, _ = sleigh(potential=None, affine=c)
    ref = S.equations("lagrange_dalembert")
    (lam,) = ref.multipliers.values()
    b = S.constraint_affine[0]
    assert b == -c
    assert zero(ref.vector_field()(S.energy()) + lam * b)
    assert not zero(lam * b)


try:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    _poly = st.lists(st.integers(-2, 2), min_size=3, max_size=3)

    @pytest.mark.slow
    @settings(max_examples=4, deadline=None)
    @given(p=_poly, r=_poly, s=_poly, k=st.integers(-2, 2))
    def test_random_affine_systems_all_forms_agree(p, r, s, k):
        """Property: on random systems with an affine constraint zdot = P xdot + R ydot + S0
        (P, R, S0 polynomials in x, y) every form gives the Lagrange–d'Alembert field."""
        N = gm.Manifold("N", "x y z")
        x, y, z = N.coords
        xd, yd, zd = N.velocities
        P = p[0] + p[1] * x + p[2] * y**2
        R_ = r[0] + r[1] * y + r[2] * x * y
        S0 = s[0] + s[1] * x + s[2] * y
        L = (xd**2 + (1 + x**2) * yd**2 + zd**2) / 2 + k * x * yd * zd - y * z
        S = NonholonomicSystem(N, L, [zd - P * xd - R_ * yd - S0])
        ref = S.equations("lagrange_dalembert")
        for meth in METHODS[1:]:
            assert S.equations(meth).agrees_with(ref), meth
except ImportError:  # pragma: no cover
    pass
