"""Kozlov's vakonomic equations of heavy bodies (issue 13, item 5): the reduced route of the
hamiltonian form (reduced kinetic matrix T^T G T, envelope formula for dH/dq, derivatives in
the radical ring) against the inverse route (G^-1, Gamma^-1, dH/dq by differentiation), and,
on the rolling ellipsoid, against the defining identities of Kozlov's Hamiltonian at exact
points of Q(sqrt D)."""

from __future__ import annotations

import pytest
import sympy as sp

import geomech as gm
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.equations.vakonomic_hamilton import vakonomic_hamiltonian
from geomech.mechanics.system import NonholonomicSystem

Z = default_policy()


def _skate():
    N = gm.Manifold("N", "x y phi")
    xd, yd, phid = N.velocities
    phi = N.coords[2]
    return NonholonomicSystem(N, (xd**2 + yd**2 + phid**2) / 2,
                              [xd * sp.sin(phi) - yd * sp.cos(phi)], independent=["x", "phi"])


def _particle(integrable: bool):
    N = gm.Manifold("N", "x y z")
    x, y, z = N.coords
    xd, yd, zd = N.velocities
    c = (1 + z**2) * (2 * x * xd + 2 * y * yd - zd) if integrable else zd - y * xd
    return NonholonomicSystem(N, (xd**2 + yd**2 + zd**2) / 2 - z, [c], independent=["x", "y"])


def _radical_particle():
    """A particle with the radical constraint zdot = sqrt(1 + x^2) xdot + y ydot and friction."""
    N = gm.Manifold("N", "x y z", parameters="k")
    x, y, z = N.coords
    xd, yd, zd = N.velocities
    k = N.parameters[0]
    L = (xd**2 + yd**2 + zd**2) / 2 - z
    return NonholonomicSystem(N, L, [zd - sp.sqrt(1 + x**2) * xd - y * yd],
                              forces=[-k * xd, 0, 0], independent=["x", "y"], name="radical")


def _affine():
    N = gm.Manifold("N", "x y z", parameters="k c")
    x, y, z = N.coords
    xd, yd, zd = N.velocities
    k, c = N.parameters
    return NonholonomicSystem(N, (xd**2 + yd**2 + zd**2) / 2 - z, [zd - y * xd - c * x],
                              forces=[-k * xd, -k * yd, 0], independent=["x", "y"],
                              name="affine")


def _gyroscopic_affine():
    """Radical and affine constraint, a gyroscopic term g(q).qdot and friction."""
    N = gm.Manifold("N", "x y z", parameters="k c")
    x, y, z = N.coords
    xd, yd, zd = N.velocities
    k, c = N.parameters
    L = (xd**2 + 2 * yd**2 + zd**2) / 2 + k * y * xd - c * x * zd - z
    return NonholonomicSystem(N, L, [zd - sp.sqrt(1 + x**2) * xd - y * yd - c * x],
                              forces=[-k * xd, 0, 0], independent=["x", "y"])


SMALL = [_skate, _gyroscopic_affine, lambda: _particle(True), lambda: _particle(False), _affine,
         _radical_particle, gm.examples.chaplygin_sleigh, gm.examples.rolling_disk]


@pytest.mark.parametrize("make", SMALL)
def test_reduced_route_gives_the_equations_of_the_inverse_route(make):
    """The identity G^-1 - G^-1 A^T Gamma^-1 A G^-1 = T (T^T G T)^-1 T^T and the envelope
    theorem: the same H, multipliers and Hamilton equations (exactly)."""
    S = make()
    old = S.equations("vakonomic", route="inverse")
    new = S.equations("vakonomic", route="reduced")
    assert old.data["route"] == "inverse" and new.data["route"] == "reduced"
    assert new.space.coords == old.space.coords
    assert all(Z.is_zero(new.rhs[c] - old.rhs[c]) for c in old.space.coords)
    assert Z.is_zero(new.hamiltonian - old.hamiltonian)
    assert all(Z.is_zero(new.multipliers[lam] - old.multipliers[lam]) for lam in old.lambdas)
    K = new.data["kozlov"]
    assert all(Z.is_zero(a - b) for a, b in zip(K.gram, old.data["gram"]))


def test_auto_route_takes_the_reduced_route_for_square_roots():
    assert _radical_particle().equations("vakonomic").data["route"] == "reduced"
    assert _skate().equations("vakonomic").data["route"] == "inverse"
    with pytest.raises(ValueError, match="route must be"):
        _skate().equations("vakonomic", route="fast")
    with pytest.raises(ValueError, match="route="):
        _skate().equations("vakonomic", form="lagrangian", route="reduced")


def test_low_level_reduced_route_is_hamiltonian():
    """vakonomic_hamiltonian(..., dependent=): qdot = dH/dp and pdot = -dH/dq exactly."""
    S = _radical_particle()
    N = S.manifold
    K = vakonomic_hamiltonian(S.lagrangian, N.coords, N.velocities, S.constraint_matrix,
                              dependent=[2])
    rhs = K.rhs()
    for q, p in zip(K.coords, K.momenta):
        assert Z.is_zero(rhs[q] - sp.diff(K.H, p))
        assert Z.is_zero(rhs[p] + sp.diff(K.H, q))
    # the velocity satisfies the constraint identically in (q, p)
    assert Z.is_zero((S.constraint_matrix * sp.Matrix(K.velocity))[0])


# -- the rolling ellipsoid, exact points of Q(sqrt D) -----------------------------------------
def _in_q_sqrt(v: sp.Expr) -> sp.Expr:
    r"""The constant ``v`` (built from rationals and square roots :math:`\sqrt k` of one
    square class) as :math:`a + b\sqrt k` exactly (``ValueError`` otherwise)."""
    v = as_expr(v)
    roots = {p for p in v.atoms(sp.Pow) if not p.exp.is_Integer}
    if not roots:
        return sp.nsimplify(v) if v.is_Float else sp.Rational(v)
    k = {sp.Integer(p.base**2 if p.exp == -sp.S.Half else p.base).as_numer_denom()[0]
         for p in roots if abs(p.exp) == sp.S.Half}
    free = {sp.sqrt(kk).as_coeff_Mul()[1] for kk in k}
    if len(free) != 1 or any(abs(p.exp) != sp.S.Half for p in roots):
        raise ValueError(f"not in one quadratic field: {roots}")
    root = free.pop()
    s = sp.Symbol("s")
    num, den = sp.fraction(sp.together(v.xreplace({root: s, 1 / root: 1 / s})))
    D = root**2
    num = sp.Poly(sp.expand(num), s).rem(sp.Poly(s**2 - D, s))
    den = sp.Poly(sp.expand(den), s).rem(sp.Poly(s**2 - D, s))
    a0, a1 = (num.as_expr().coeff(s, 0), num.as_expr().coeff(s, 1))
    d0, d1 = (den.as_expr().coeff(s, 0), den.as_expr().coeff(s, 1))
    nrm = d0**2 - D * d1**2                 # (a0 + a1 r)/(d0 + d1 r), r^2 = D
    return sp.expand(((a0 * d0 - D * a1 * d1) + (a1 * d0 - a0 * d1) * root) / nrm)


def _points(S, vak):
    """Exact points: rational parameters and momenta, angles with rational sine and cosine
    (the support function's radicand is then rational, generally not a square)."""
    N = S.manifold
    x, y, th, ph, ps = N.coords
    pars = dict(zip(N.parameters, [sp.Rational(v) for v in (2, 3, 5, 7, 11, 13, 17, 19)]))
    pars = {s: pars.get(s, sp.Rational(3, 2)) for s in N.parameters}
    p = vak.data["momenta"]
    out = []
    for t_th, t_ph, t_ps, pv in [((3, 4), (5, 12), (8, 15), (1, -2, 3, sp.Rational(1, 2), -1)),
                                 ((12, 5), (4, 3), (3, 4), (-3, 1, 2, -1, sp.Rational(2, 3)))]:
        pt = {x: sp.Rational(1, 3), y: -2, th: sp.atan(sp.Rational(*t_th)),
              ph: sp.atan(sp.Rational(*t_ph)), ps: sp.atan(sp.Rational(*t_ps)),
              **dict(zip(p, pv)), **pars}
        out.append(pt)
    return out


@pytest.fixture(scope="module")
def ellipsoid_vak():
    S = gm.examples.ellipsoid()
    return S, S.equations("vakonomic")


@pytest.mark.slow
def test_ellipsoid_vakonomic_is_hamiltonian_at_exact_points(ellipsoid_vak):
    r"""The reduced-route rates (envelope formula, no derivative of H) are Hamilton's
    equations of Kozlov's H: :math:`\dot q = H_p`, :math:`\dot p = -H_q` (sympy derivatives
    of H, evaluated exactly in :math:`\mathbb Q(\sqrt D)`), and H is conserved."""
    S, vak = ellipsoid_vak
    assert vak.data["route"] == "reduced"
    H, coords = vak.hamiltonian, S.manifold.coords
    p = vak.data["momenta"]
    grads = {c: sp.diff(H, c) for c in (*coords, *p)}
    for pt in _points(S, vak):
        rate = {c: _in_q_sqrt(vak.rhs[c].xreplace(pt)) for c in (*coords, *p)}
        dH = {c: _in_q_sqrt(g.xreplace(pt)) for c, g in grads.items()}
        for q, pq in zip(coords, p):
            assert _in_q_sqrt(rate[q] - dH[pq]) == 0
            assert _in_q_sqrt(rate[pq] + dH[q]) == 0
        # conservation of the vakonomic energy: X(H) = 0
        assert _in_q_sqrt(sp.Add(*[dH[c] * rate[c] for c in (*coords, *p)])) == 0


@pytest.mark.slow
def test_ellipsoid_vakonomic_constraints_and_multipliers(ellipsoid_vak):
    r"""Along the vakonomic flow the constraints hold, :math:`A\dot q = 0`, and the momenta
    are Kozlov's :math:`p = \partial L/\partial\dot q - A^{T}\lambda` (exact points); the
    derivative of the constraint residual :math:`A(q)\dot q(q,p)` along the flow vanishes."""
    S, vak = ellipsoid_vak
    N = S.manifold
    coords, vel = N.coords, N.velocities
    p = vak.data["momenta"]
    A = S.constraint_matrix
    grad = [sp.diff(S.lagrangian, v) for v in vel]
    space = (*coords, *p)
    for pt in _points(S, vak)[:1]:
        qd = [_in_q_sqrt(vak.rhs[c].xreplace(pt)) for c in coords]
        at = {**pt, **dict(zip(vel, qd))}
        lam = [_in_q_sqrt(vak.multipliers[m].xreplace(pt)) for m in vak.lambdas]
        for s in range(A.rows):
            assert _in_q_sqrt(sp.Add(*[A[s, j].xreplace(pt) * qd[j] for j in range(5)])) == 0
        for i in range(N.dim):
            resid = grad[i].xreplace(at) - sum(A[s, i].xreplace(pt) * lam[s]
                                               for s in range(A.rows)) - pt[p[i]]
            assert _in_q_sqrt(resid) == 0
        # d/dt of the residual f_s(q, p) = a_s(q) qdot(q, p), by the chain rule at the point
        rates = {c: _in_q_sqrt(vak.rhs[c].xreplace(pt)) for c in space}
        for s in range(A.rows):
            f = sp.Add(*[A[s, j] * vak.rhs[coords[j]] for j in range(5)])
            df = sp.Add(*[_in_q_sqrt(sp.diff(f, c).xreplace(pt)) * rates[c] for c in space
                          if f.has(c)])
            assert _in_q_sqrt(df) == 0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ellipsoid", "convex_body_on_plane"])
def test_heavy_vakonomic_implicit_variant_is_the_same(name):
    """explicit=False (nothing is deferred: the hamiltonian form solves no mass matrix) gives
    the same equations as the explicit derivation."""
    S = gm.examples.get(name)
    imp = S.equations("vakonomic", explicit=False)
    assert imp.data["route"] == "reduced"
    assert set(imp.rhs) == set(imp.space.coords)
    H = imp.hamiltonian
    pt = _points(S, imp)[0]
    p = imp.data["momenta"]
    for q, pq in zip(S.manifold.coords, p):
        assert _in_q_sqrt((imp.rhs[q] - sp.diff(H, pq)).xreplace(pt)) == 0


def test_lagrangian_variant_with_explicit_false_keeps_the_multiplier_rates():
    """The multiplier-rule variant has no mass-matrix form: explicit=False derives it as
    explicit=False does for the hamiltonian variant (nothing deferred), with the rates of
    lambda in eq.rhs."""
    for S in (_skate(), _radical_particle()):
        imp = S.equations("vakonomic", form="lagrangian", explicit=False)
        eq = S.equations("vakonomic", form="lagrangian")
        assert set(imp.rhs) == set(imp.space.coords) == set(eq.rhs)
        assert all(Z.is_zero(imp.rhs[c] - eq.rhs[c]) for c in eq.space.coords)


@pytest.mark.slow
def test_ellipsoid_multiplier_rule_agrees_with_kozlov_hamiltonian(ellipsoid_vak):
    r"""Two independent derivations on the ellipsoid at exact points
    :math:`(q, \dot q_{\rm ind}, \lambda)`: the multiplier rule
    :math:`E(L) - Q = \dot\lambda_sa_s + \lambda_sC_s` (form="lagrangian") and Kozlov's
    Hamiltonian (reduced route) are one flow under :math:`p = \partial L/\partial\dot q -
    A^{T}\lambda`: :math:`\dot q = H_p` and :math:`\frac{d}{dt}p = \dot p(q, p)`.  At
    :math:`\lambda = 0` the accelerations are the Lagrange–d'Alembert ones (the multiplier
    rule is then Lagrange–d'Alembert with :math:`\mu = \dot\lambda`)."""
    S, ham = ellipsoid_vak
    lag = S.equations("vakonomic", form="lagrangian")
    lda = S.equations("lagrange_dalembert")
    N = S.manifold
    coords, vel, A = N.coords, N.velocities, S.constraint_matrix
    grad = [sp.diff(S.lagrangian, v) for v in vel]
    G = S.hessian
    acc = lag.data["accelerations"]
    base = _points(S, ham)[0]
    u = S.independent_velocities
    for lam0 in ((0, 0), (sp.Rational(1, 2), -3)):
        pt = {**{c: base[c] for c in (*coords, *N.parameters)},
              **dict(zip(u, (1, -2, sp.Rational(3, 4)))), **dict(zip(lag.lambdas, lam0))}
        qd = [_in_q_sqrt(S.dependent_solution.get(v, v).xreplace(pt)) for v in vel]
        at = {**pt, **dict(zip(vel, qd))}
        qdd = [_in_q_sqrt(e.xreplace(pt)) for e in acc.values()]
        lamdot = [_in_q_sqrt(lag.rhs[lam].xreplace(pt)) for lam in lag.lambdas]
        p = [_in_q_sqrt(grad[i].xreplace(at) - sum(A[s, i].xreplace(pt) * lam0[s]
                                                   for s in range(2))) for i in range(5)]
        hpt = {**{c: pt[c] for c in (*coords, *N.parameters)},
               **dict(zip(ham.data["momenta"], p))}
        for i in range(5):
            assert _in_q_sqrt(ham.rhs[coords[i]].xreplace(hpt) - qd[i]) == 0
            dp = (sum(sp.diff(grad[i], coords[j]).xreplace(at) * qd[j] for j in range(5))
                  + sum(G[i, j].xreplace(at) * qdd[j] for j in range(5))
                  - sum(lamdot[s] * A[s, i].xreplace(pt) + lam0[s] * sum(
                      sp.diff(A[s, i], coords[j]).xreplace(pt) * qd[j] for j in range(5))
                        for s in range(2)))
            assert _in_q_sqrt(ham.rhs[ham.data["momenta"][i]].xreplace(hpt) - dp) == 0
        if lam0 == (0, 0):
            for v in u:
                assert _in_q_sqrt((lag.rhs[v] - lda.rhs[v]).xreplace(pt)) == 0
