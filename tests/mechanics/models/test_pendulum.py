"""Shamolin's multidimensional pendulum (seed 002, spec Part 2 §§2.5–2.8, O2.1–O2.3, O2.6–O2.9)."""

import random

import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.mechanics.models.shamolin import (
    ShamolinPendulum,
    rotation_composite,
    rotation_T,
    sphere_point,
    spherical_angles,
    spherical_frame,
)
from geomech.mechanics.models.shamolin_free_body import ShamolinFreeBody

Z = default_policy().is_zero


def _check(p, expected):
    """expected: {k (1-based): lhs - rhs} with omega_dots; compare with p.equations()."""
    eqs = p.equations()
    assert len(eqs) == len(expected)
    for k, e in expected.items():
        got = eqs[k - 1].lhs - eqs[k - 1].rhs
        assert Z(got - e), (k, got, e)


def test_o2_1_n5_system_3_4():
    p = ShamolinPendulum(5)
    w = (None, *p.omega)
    d = (None, *p.omega_dots)
    I1, I2 = p.I1, p.I2
    x = {k: p.x_N[k - 2] for k in range(2, 6)}
    sv2 = p.s * p.v ** 2
    exp = {k: (I1 + 2 * I2) * d[k] for k in (1, 2, 3, 5, 6, 8)}
    exp[4] = 3 * I2 * d[4] + (I1 - I2) * (w[3] * w[10] + w[2] * w[9] + w[1] * w[7]) + x[5] * sv2
    exp[7] = 3 * I2 * d[7] + (I2 - I1) * (w[1] * w[4] - w[6] * w[10] - w[5] * w[9]) - x[4] * sv2
    exp[9] = 3 * I2 * d[9] + (I1 - I2) * (w[8] * w[10] - w[5] * w[7] - w[2] * w[4]) + x[3] * sv2
    exp[10] = 3 * I2 * d[10] + (I2 - I1) * (w[8] * w[9] + w[6] * w[7] + w[3] * w[4]) - x[2] * sv2
    _check(p, exp)
    assert [k + 1 for k in p.cyclic_integrals()] == [1, 2, 3, 5, 6, 8]


def test_o2_2_n4():
    p = ShamolinPendulum(4)
    w = (None, *p.omega)
    d = (None, *p.omega_dots)
    I1, I2 = p.I1, p.I2
    x = {k: p.x_N[k - 2] for k in range(2, 5)}
    sv2 = p.s * p.v ** 2
    exp = {k: (I1 + I2) * d[k] for k in (1, 2, 4)}
    exp[3] = 2 * I2 * d[3] + (I1 - I2) * (w[1] * w[5] + w[2] * w[6]) - x[4] * sv2
    exp[5] = 2 * I2 * d[5] + (I2 - I1) * (w[1] * w[3] - w[4] * w[6]) + x[3] * sv2
    exp[6] = 2 * I2 * d[6] + (I2 - I1) * (w[2] * w[3] + w[4] * w[5]) - x[2] * sv2
    _check(p, exp)


def test_o2_3_n6():
    p = ShamolinPendulum(6)
    w = (None, *p.omega)
    d = (None, *p.omega_dots)
    I1, I2 = p.I1, p.I2
    x = {k: p.x_N[k - 2] for k in range(2, 7)}
    sv2 = p.s * p.v ** 2
    exp = {k: (I1 + 3 * I2) * d[k] for k in (1, 2, 3, 4, 6, 7, 8, 10, 11, 13)}
    exp[5] = 4 * I2 * d[5] + (I1 - I2) * (w[1] * w[9] + w[2] * w[12] + w[3] * w[14]
                                          + w[4] * w[15]) - x[6] * sv2
    exp[9] = 4 * I2 * d[9] + (I2 - I1) * (w[1] * w[5] - w[6] * w[12] - w[7] * w[14]
                                          - w[8] * w[15]) + x[5] * sv2
    exp[12] = 4 * I2 * d[12] + (I1 - I2) * (w[10] * w[14] + w[11] * w[15] - w[2] * w[5]
                                            - w[6] * w[9]) - x[4] * sv2
    exp[14] = 4 * I2 * d[14] + (I2 - I1) * (w[10] * w[12] - w[13] * w[15] + w[3] * w[5]
                                            + w[7] * w[9]) + x[3] * sv2
    exp[15] = 4 * I2 * d[15] + (I2 - I1) * (w[11] * w[12] + w[13] * w[14] + w[4] * w[5]
                                            + w[8] * w[9]) - x[2] * sv2
    _check(p, exp)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_general_3_1_coefficients_and_W(n):
    p = ShamolinPendulum(n)
    I1, I2 = p.I1, p.I2
    eqs = p.equations()
    Om = p.body.Omega.xreplace(dict(zip(p.body.omega, p.omega)))
    O2 = (Om * Om).applyfunc(sp.expand)
    for k, (i, j) in enumerate(p.basis.pairs):
        e = eqs[k].lhs - eqs[k].rhs
        coef = sp.diff(e, p.omega_dots[k])
        if i == 0:
            J = j + 1                                          # 1-based column
            assert Z(coef - (n - 2) * I2)
            rest = e - coef * p.omega_dots[k]
            W = O2[0, j]                                       # W_{J-1} = (Omega^2)_{1,J}
            expected = (-1) ** (J - 1) * (I1 - I2) * W - (-1) ** J * p.x_N[j - 1] * p.s * \
                p.v ** 2
            assert Z(rest - expected)
        else:
            assert Z(coef - (I1 + (n - 3) * I2))
            assert Z(e - coef * p.omega_dots[k])


def test_reduced_system_3_12_n5_and_compact_form():
    p = ShamolinPendulum(5)
    red = p.reduced_equations()
    w = (None, *p.omega_dots)
    zero = {p.omega[k]: 0 for k in p.cyclic_integrals()}
    x = {k: p.x_N[k - 2].xreplace(zero) for k in range(2, 6)}
    sv2 = p.s * p.v ** 2
    exp = [3 * p.I2 * w[4] + x[5] * sv2, 3 * p.I2 * w[7] - x[4] * sv2,
           3 * p.I2 * w[9] + x[3] * sv2, 3 * p.I2 * w[10] - x[2] * sv2]
    for e, x_ in zip(red, exp):
        assert Z(e.lhs - e.rhs - x_)


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_w3_2_quadratic_terms_vanish_on_zero_cyclic_levels(n):
    p = ShamolinPendulum(n)
    zero = {p.omega[k]: 0 for k in p.cyclic_integrals()}
    for k in p.basis.axial_positions:
        e = p.equations()[k]
        assert not (e.lhs - e.rhs).xreplace(zero).has(p.I1)


def test_flow_kinematics_4_4_n5():
    p = ShamolinPendulum(5)
    xi = sp.Symbol("xi")
    eta = sp.symbols("eta1:4")
    eqs = p.flow_relations(xi, eta)
    w = (None, *p.omega)
    l, vi = p.l, p.v_inf
    s1, s2, s3 = (sp.sin(e) for e in eta)
    c1, c2, c3 = (sp.cos(e) for e in eta)
    rhs = [-vi * sp.cos(xi), l * w[10] + vi * sp.sin(xi) * c1,
           -l * w[9] + vi * sp.sin(xi) * s1 * c2, l * w[7] + vi * sp.sin(xi) * s1 * s2 * c3,
           -l * w[4] + vi * sp.sin(xi) * s1 * s2 * s3]
    a, b = p.alpha, p.betas
    lhs = [p.v * sp.cos(a), p.v * sp.sin(a) * sp.cos(b[0]),
           p.v * sp.sin(a) * sp.sin(b[0]) * sp.cos(b[1]),
           p.v * sp.sin(a) * sp.sin(b[0]) * sp.sin(b[1]) * sp.cos(b[2]),
           p.v * sp.sin(a) * sp.sin(b[0]) * sp.sin(b[1]) * sp.sin(b[2])]
    for e, L, R in zip(eqs, lhs, rhs):
        assert Z(e.lhs - L) and Z(e.rhs - R)


def test_o2_8_kinematics_5_10_n5():
    p = ShamolinPendulum(5)
    xi, xd = sp.symbols("xi xidot")
    eta = sp.symbols("eta1:4")
    ed = sp.symbols("eta1dot eta2dot eta3dot")
    om = p.axial_omega_from_rates(xi, eta, xd, ed)            # (w4, w7, w9, w10)
    s1, s2, s3 = (sp.sin(e) for e in eta)
    c1, c2, c3 = (sp.cos(e) for e in eta)
    t = sp.tan(xi)
    w4 = -xd * s1 * s2 * s3 - ed[0] * t * c1 * s2 * s3 - ed[1] * t * s1 * c2 * s3 \
        - ed[2] * t * s1 * s2 * c3
    w7 = xd * s1 * s2 * c3 + ed[0] * t * c1 * s2 * c3 + ed[1] * t * s1 * c2 * c3 \
        - ed[2] * t * s1 * s2 * s3
    w9 = -xd * s1 * c2 - ed[0] * t * c1 * c2 + ed[1] * t * s1 * s2
    w10 = xd * c1 - ed[0] * t * s1
    for a, b in zip(om, (w4, w7, w9, w10)):
        assert Z(sp.expand(a - b))
    # (5.6): the inverse rotation, z in terms of omega
    z = list(rotation_composite(eta).T * sp.Matrix(sp.symbols("W4 W7 W9 W10")))
    W4, W7, W9, W10 = sp.symbols("W4 W7 W9 W10")
    z1 = W4 * c3 + W7 * s3
    z2 = (W7 * c3 - W4 * s3) * c2 + W9 * s2
    z3 = ((-W7 * c3 + W4 * s3) * s2 + W9 * c2) * c1 + W10 * s1
    z4 = ((W7 * c3 - W4 * s3) * s2 - W9 * c2) * s1 + W10 * c1
    for a, b in zip(z, (z1, z2, z3, z4)):
        assert Z(sp.expand(a - b))


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_x10b_compact_kinematics_equals_rotation_composition(n):
    p = ShamolinPendulum(n)
    xi, xd = sp.symbols("xi xidot")
    eta = sp.symbols(f"eta1:{n - 1}")
    ed = sp.symbols(f"ed1:{n - 1}")
    compact = p.axial_omega_from_rates(xi, eta, xd, ed)
    rot = p.axial_omega_from_z(eta, p.z_from_rates(xi, eta, xd, ed))
    for a, b in zip(compact, rot):
        assert Z(sp.expand(a - b))


@pytest.mark.parametrize("n", [3, 4, 5])
def test_spherical_frame_is_orthonormal_and_rotation_matches(n):
    b = sp.symbols(f"b1:{n - 1}")
    e, E, h = spherical_frame(b)
    vecs = [e, *E]
    for i, u in enumerate(vecs):
        for j, v in enumerate(vecs):
            dot = sp.expand(sp.Add(*[x * y for x, y in zip(u, v)]))
            assert Z(sp.trigsimp(dot) - (1 if i == j else 0))
    # A2.4: Rot(beta)^T w = (<w, E_l> with signs)
    w = sp.symbols(f"w1:{n}")
    z = rotation_composite(b).T * sp.Matrix(
        ShamolinPendulum(n).axial_omega_from_z(b, [0] * (n - 1)))
    assert list(z) == [0] * (n - 1)
    from geomech.mechanics.models.shamolin import _w_to_axial
    zz = list(rotation_composite(b).T * sp.Matrix(_w_to_axial(w, n)))
    assert Z(sp.expand(zz[n - 2] - sp.Add(*[x * y for x, y in zip(w, e)])))
    for l in range(1, n - 1):
        assert Z(sp.expand(zz[n - 2 - l] - (-1) ** l * sp.Add(*[x * y for x, y in zip(
            w, E[l - 1])])))


def test_sphere_point_and_angles_round_trip():
    ang = [sp.Rational(1, 3), sp.Rational(2, 5), sp.Rational(7, 4)]
    V = sphere_point(ang)
    r, th = spherical_angles([3 * c for c in V])
    assert Z(r - 3)
    for a, b in zip(ang, th):
        assert abs(float(a - b)) < 1e-12
    assert rotation_T(2, 0, 3) == sp.eye(3)
    with pytest.raises(ValueError):
        rotation_T(3, 0, 3)
    with pytest.raises(ValueError):
        sphere_point([])


# -- the closed system on T S^{n-1} ----------------------------------------------------------
def _concrete(n):
    def s(a):
        return sp.cos(a) ** 2 + sp.Rational(1, 3) * sp.cos(a)

    def x_N(a, betas, om):
        return [sp.Rational(k, 7) * sp.sin(a) + sp.Rational(1, 5) * sp.cos(betas[0])
                + sp.Rational(1, 11) * om[-1] for k in range(2, n + 1)]

    return s, x_N


@pytest.mark.parametrize("n", [3, pytest.param(4, marks=pytest.mark.slow)])
def test_closed_system_equals_compact_w_form_numerically(n):
    s, x_N = _concrete(n)
    pars = dict(I1=sp.Rational(3), I2=sp.Rational(2), l=sp.Rational(3, 2),
                v_inf=sp.Rational(5, 4))
    p = ShamolinPendulum(n, s=s, x_N=x_N, **pars)
    comps = p.rates(explicit=True)
    M = p.reduced_phase_space()
    xi, eta, zs = M.coords[0], M.coords[1:n - 1], M.coords[n - 1:]
    # independent derivation in the chart (xi, eta, w): flow direction d, d' = -Omega d
    W = sp.symbols(f"W1:{n}")
    e, E, h = spherical_frame(eta)
    def dot(a, b):
        return sp.Add(*[x * y for x, y in zip(a, b)])

    xi_dot = dot(W, e)
    eta_dot = [sp.cot(xi) * dot(W, E[l]) / h[l] for l in range(n - 2)]
    V = p.flow_kinematics(xi, eta, W)
    vD, ang = spherical_angles(V)
    om = [0] * p.basis.dim
    from geomech.mechanics.models.shamolin import _w_to_axial
    for pos, val in zip(p.basis.axial_positions, _w_to_axial(W, n)):
        om[pos] = val
    xs = x_N(ang[0], ang[1:], [o / vD for o in om])
    W_dot = [s(ang[0]) * vD ** 2 * x / ((n - 2) * pars["I2"]) for x in xs]
    # map (xi, eta, W) -> z: z_{n-1} = <W, e>, z_{n-1-l} = (-1)^l <W, e_l>
    zmap = [None] * (n - 1)
    zmap[n - 2] = dot(W, e)
    for l in range(1, n - 1):
        zmap[n - 2 - l] = (-1) ** l * dot(W, E[l - 1])
    src = (xi, *eta, *W)
    rates = (xi_dot, *eta_dot, *W_dot)
    rng = random.Random(n)
    for _ in range(3):
        pt = {xi: sp.Rational(rng.randint(2, 9), 10), **{a: sp.Rational(rng.randint(3, 25), 10)
                                                        for a in eta},
              **{w: sp.Rational(rng.randint(-9, 9), 10) for w in W}}
        zval = {zc: zm.subs(pt) for zc, zm in zip(zs, zmap)}
        full = {xi: pt[xi], **{a: pt[a] for a in eta}, **zval}
        lhs = [sp.N(c.subs(full), 30) for c in comps]
        # pushforward of the W-field: d/dt of (xi, eta, zmap)
        rt = [sp.N(r.subs(pt), 30) for r in rates]
        push = [rt[0], *rt[1:n - 1]]
        for zm in zmap:
            push.append(sp.Add(*[sp.diff(zm, c).subs(pt) * r for c, r in zip(src, rt)]))
        for a, b in zip(lhs, push):
            assert abs(complex(sp.N(a - b, 30))) < 1e-20


def test_closed_system_without_medium_conserves_z_squared():
    p = ShamolinPendulum(4, s=lambda a: 0)
    X = p.vector_field()
    zs = X.manifold.coords[3:]
    assert Z(X(sp.Add(*[z ** 2 for z in zs])))
    # and with the medium it is not conserved
    p2 = ShamolinPendulum(3, *_concrete(3))
    X2 = p2.vector_field()
    zs2 = X2.manifold.coords[2:]
    assert not Z(X2(sp.Add(*[z ** 2 for z in zs2])))


def test_default_vector_field_n3_is_symbolic_in_s_and_x_N():
    p = ShamolinPendulum(3)
    X = p.vector_field()
    assert X.manifold.dim == 4
    fs = {f.func.__name__ for c in X.components for f in c.atoms(sp.Function)
          if isinstance(f, sp.core.function.AppliedUndef)}
    assert fs == {"s", "x2N", "x3N", "alpha", "beta1", "v_D"}
    aux = p.auxiliary()
    assert {f.func.__name__ for f in aux} == {"alpha", "beta1", "v_D"}


@pytest.mark.slow
def test_explicit_vector_field_agrees_with_abbreviated_n3():
    p2 = ShamolinPendulum(3, *_concrete(3))
    X2, aux2 = p2.vector_field(), p2.auxiliary()
    Xe = p2.vector_field(explicit=True)
    pt = {c: sp.Rational(k + 2, 7) for k, c in enumerate(X2.manifold.coords)}
    pt.update({p2.I2: 2, p2.l: 1, p2.v_inf: 3})
    for a, b in zip(X2.components, Xe.components):
        d = (a.xreplace(aux2) - b).subs(pt)
        assert d == 0 or abs(complex(sp.N(d))) < 1e-12


# -- free body, tracking force (Section 6) --------------------------------------------------
@pytest.mark.parametrize("n", [3, 4, 5])
def test_tracking_force_6_10(n):
    b = ShamolinFreeBody(n)
    p = b.pendulum
    T, sing = b.tracking_force()
    a, be = p.alpha, p.betas
    iN = sphere_point((sp.pi / 2, *be))                         # (6.12)
    zero = {p.omega[k]: 0 for k in p.basis.cyclic_positions}
    Gamma = sp.Add(*[x.xreplace(zero) * c for x, c in zip(p.r_N, iN)])        # (6.11)
    om2 = sp.Add(*[p.omega[k] ** 2 for k in p.basis.axial_positions])
    expected = b.m * b.sigma * om2 + p.s * p.v ** 2 * (
        1 - b.m * b.sigma * sp.sin(a) * Gamma / ((n - 2) * p.I2 * sp.cos(a)))
    assert Z(sp.expand(T - expected))
    assert sing == [sp.Eq(sp.cos(a), 0)]


def test_o2_6_newton_component_1_n5():
    b = ShamolinFreeBody(5)
    p = b.pendulum
    eq1 = b.newton_equations(reduced=False)[0]
    w = (None, *p.omega)
    a, (b1, b2, b3), v = p.alpha, p.betas, p.v
    vd, ad = sp.symbols("vdot alphadot", real=True)
    sa, ca = sp.sin(a), sp.cos(a)
    expected = (vd * ca - ad * v * sa - w[10] * v * sa * sp.cos(b1)
                + w[9] * v * sa * sp.sin(b1) * sp.cos(b2)
                - w[7] * v * sa * sp.sin(b1) * sp.sin(b2) * sp.cos(b3)
                + w[4] * v * sa * sp.sin(b1) * sp.sin(b2) * sp.sin(b3)
                + b.sigma * (w[10] ** 2 + w[9] ** 2 + w[7] ** 2 + w[4] ** 2))
    assert Z(eq1.lhs - expected)
    assert Z(eq1.rhs - (b.T - p.s * v ** 2) / b.m)


def test_o2_6_newton_component_2_n5():
    b = ShamolinFreeBody(5)
    p = b.pendulum
    eq = b.newton_equations(reduced=False)[1]
    w = (None, *p.omega)
    wd = (None, *[sp.Symbol(f"{x.name}dot", real=True) for x in p.omega])
    a, (b1, b2, b3), v = p.alpha, p.betas, p.v
    vd, ad, bd1 = sp.symbols("vdot alphadot beta1dot", real=True)
    sa, ca = sp.sin(a), sp.cos(a)
    ddt = vd * sa * sp.cos(b1) + v * ca * ad * sp.cos(b1) - v * sa * sp.sin(b1) * bd1
    expected = (ddt + w[10] * v * ca - w[8] * v * sa * sp.sin(b1) * sp.cos(b2)
                + w[6] * v * sa * sp.sin(b1) * sp.sin(b2) * sp.cos(b3)
                - w[3] * v * sa * sp.sin(b1) * sp.sin(b2) * sp.sin(b3)
                - b.sigma * (w[8] * w[9] + w[6] * w[7] + w[3] * w[4]) - b.sigma * wd[10])
    assert Z(eq.lhs - expected) and eq.rhs == 0


def test_errors_and_catalogue():
    with pytest.raises(ValueError, match="n >= 3"):
        ShamolinPendulum(2)
    with pytest.raises(ValueError, match="n-1 = 3"):
        ShamolinPendulum(4, x_N=[1, 2])
    with pytest.raises(TypeError):
        ShamolinPendulum(3, s=5)
    p = gm.examples.shamolin_pendulum(4)
    assert isinstance(p, ShamolinPendulum) and p.n == 4
    assert "shamolin_pendulum" in gm.examples.list()
    secs = p.report_sections()
    assert all(isinstance(t, str) and isinstance(x, str) for t, x in secs)
    assert p.name and p.description


# -- normal form of the servo-constrained free body (O2.9-O2.10, X10(c)) --------------------
def _free(n):
    xs = [sp.Symbol(f"x{k}N") for k in range(2, n + 1)]
    return ShamolinFreeBody(n, x_N=lambda a, b, o: xs), xs


def test_o2_9_normal_form_n3():
    b, (x2, x3) = _free(3)
    nf = b.normal_form()
    p = b.pendulum
    a, b1, s, v, I2, sig = p.alpha, p.betas[0], p.s, p.v, p.I2, b.sigma
    z1, z2 = b.z
    G = x2 * sp.cos(b1) + x3 * sp.sin(b1)
    D = x2 * sp.sin(b1) - x3 * sp.cos(b1)
    exp = {
        "alpha": -z2 + sig * v * s * G / (I2 * sp.cos(a)),
        "z2": -z1 ** 2 * sp.cot(a) + sig * v * s / (I2 * sp.sin(a)) * z1 * D + v ** 2 * s / I2 * G,
        "z1": z1 * z2 * sp.cot(a) - sig * v * s / (I2 * sp.sin(a)) * z2 * D + v ** 2 * s / I2 * D,
        "beta1": z1 * sp.cot(a) - sig * v * s * D / (I2 * sp.sin(a)),
    }
    for k, e in exp.items():
        assert Z(nf[k] - e), k


@pytest.mark.slow
def test_o2_9_normal_form_n5_6_24_at_random_points():
    b, xs = _free(5)
    nf = b.normal_form()
    p = b.pendulum
    a, (b1, b2, b3), s, v, I2, sig = p.alpha, p.betas, p.s, p.v, p.I2, b.sigma
    z1, z2, z3, z4 = b.z
    e, E, h = spherical_frame(p.betas)
    G = sp.Add(*[x * c for x, c in zip(xs, e)])
    D1, D2, D3 = (sp.Add(*[x * c for x, c in zip(xs, El)]) for El in E)
    A = sig * v * s / (3 * I2 * sp.sin(a))
    cot = sp.cot
    exp = {
        "alpha": -z4 + sig * v * s * G / (3 * I2 * sp.cos(a)),
        "beta1": z3 * cot(a) + sig * v * s * D1 / (3 * I2 * sp.sin(a)),
        "beta2": -z2 * cot(a) / sp.sin(b1) + sig * v * s * D2 / (3 * I2 * sp.sin(a) * sp.sin(b1)),
        "beta3": z1 * cot(a) / (sp.sin(b1) * sp.sin(b2))
        + sig * v * s * D3 / (3 * I2 * sp.sin(a) * sp.sin(b1) * sp.sin(b2)),
        "z4": v ** 2 * s * G / (3 * I2) - (z1 ** 2 + z2 ** 2 + z3 ** 2) * cot(a)
        + A * (-z3 * D1 + z2 * D2 - z1 * D3),
        "z3": z3 * z4 * cot(a) + (z1 ** 2 + z2 ** 2) * cot(a) * cot(b1)
        + A * (z4 * D1 - z2 * D2 * cot(b1) + z1 * D3 * cot(b1)) - v ** 2 * s * D1 / (3 * I2),
        "z2": z2 * z4 * cot(a) - z2 * z3 * cot(a) * cot(b1)
        - z1 ** 2 * cot(a) * cot(b2) / sp.sin(b1) + A * D2 * (-z4 + z3 * cot(b1))
        - A * D3 * z1 * cot(b2) / sp.sin(b1) + v ** 2 * s * D2 / (3 * I2),
        "z1": z1 * z4 * cot(a) - z1 * z3 * cot(a) * cot(b1) + z1 * z2 * cot(a) * cot(b2)
        / sp.sin(b1) + A * D3 * (z4 - z3 * cot(b1) + z2 * cot(b2) / sp.sin(b1))
        - v ** 2 * s * D3 / (3 * I2),
    }
    rng = random.Random(5)
    S = sp.Symbol("S")
    for _ in range(3):
        pt = {sym: sp.Rational(rng.randint(2, 14), 10)
              for sym in (a, b1, b2, b3, v, I2, sig, z1, z2, z3, z4, *xs)}
        for k, ex in exp.items():
            d = (nf[k] - ex).subs(s, S).subs({**pt, S: sp.Rational(rng.randint(1, 9), 7)})
            assert abs(float(sp.N(d, 30))) < 1e-20, k


def test_o2_10_singular_set_n5():
    b, _ = _free(5)
    p = b.pendulum
    sing = b.singular_set()
    a, (b1, b2, _b3) = p.alpha, p.betas
    assert set(sing) == {sp.sin(a), sp.cos(a), sp.sin(b1), sp.sin(b2)}


def test_x10c_normal_form_without_medium_conserves_z_squared():
    b = ShamolinFreeBody(4, s=lambda a: 0, x_N=lambda a, bb, o: [0, 0, 0])
    nf = b.normal_form()
    assert Z(sp.Add(*[zi * nf[zi.name] for zi in b.z]))


# -- A2.7: varying speed and the dimensionless system (6.38)-(6.49) ----------------------
def _psi_649(b, n, xs, Z):
    """(6.49): Psi = -sigma n1 |Z|^2 cos a + sigma s sin a Gamma/((n-2) I2 n1)
    + (T1 - s) cos a/(m n1), Gamma = <x_N, e_hat(beta)>."""
    p = b.pendulum
    a, n1 = p.alpha, b.n1
    ehat = spherical_frame(p.betas)[0]
    Gamma = sp.Add(*[x * e for x, e in zip(xs, ehat)])
    return (-b.sigma * n1 * sp.Add(*[Zi ** 2 for Zi in Z]) * sp.cos(a)
            + b.sigma * p.s * sp.sin(a) * Gamma / ((n - 2) * p.I2 * n1)
            + (b.T1 - p.s) * sp.cos(a) / (b.m * n1))


@pytest.mark.parametrize("n", [3, 4])
def test_rescaled_system_decouples_and_matches_649(n):
    b, xs = _free(n)
    r = b.rescaled_system()
    pol = default_policy()
    v = b.pendulum.v
    assert all(v not in e.free_symbols for k, e in r.items() if k != "v")
    assert pol.is_zero(r["Psi"] - _psi_649(b, n, xs, b.Z))
    assert pol.is_zero(r["v"] - v * r["Psi"])


@pytest.mark.parametrize("n", [3, pytest.param(4, marks=pytest.mark.slow)])
def test_varying_speed_with_the_tracking_force_is_the_normal_form(n):
    """With T = the tracking force (6.10) the speed is constant and the rates of (6.38)
    reduce to the normal form (6.27) computed independently by normal_form()."""
    b, _ = _free(n)
    T, _ = b.tracking_force()
    p = b.pendulum
    # the tracking force is written with the axial omegas: express them by z (omega_r = R z)
    from geomech.mechanics.models.shamolin import rotation_composite

    om = list(rotation_composite(p.betas) * sp.Matrix(b.z))
    axial = [p.omega[k] for k in p.basis.axial_positions]
    T = T.xreplace(dict(zip(axial, om)))
    rates = b.rates_with_force(T)
    normal = b.normal_form()
    pol = default_policy()
    assert pol.is_zero(rates["v"])
    for key, val in normal.items():
        assert pol.is_zero(rates[key] - val), key


def test_rescaled_system_rejects_a_force_not_quadratic_in_v():
    xs = sp.symbols("x2N x3N")
    b = ShamolinFreeBody(3, x_N=lambda a, bb, o: xs)
    with pytest.raises(ValueError, match="depend on v"):
        b.rescaled_system(T=b.T1 * b.pendulum.v ** 3)
