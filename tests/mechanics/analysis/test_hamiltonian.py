"""Almost-Poisson structures, Prop. 7/8, reducing multiplier, conformal symmetries.

Spec B1, B2, B4, B6 and part 2 §3.10-§3.13.
"""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.conformal_symmetry import (
    conformal_factor,
    conformal_symmetry,
    is_conformal_symmetry_distribution,
)
from geomech.mechanics.analysis.density import is_invariant_density
from geomech.mechanics.analysis.multiplier import (
    chaplygin_multiplier,
    system_is_conformally_hamiltonian,
)
from geomech.mechanics.analysis.poisson import AlmostPoissonStructure
from geomech.mechanics.analysis.pseudo_hamiltonian import (
    frame_structure_functions,
    pseudo_hamiltonian_form,
    reduced_pseudo_hamiltonian,
    system_chaplygin_pseudo_hamiltonian,
    system_pseudo_hamiltonian,
)

from .test_measure import ball_reduced, homogeneous_force

c, s = sp.cos, sp.sin
Z = default_policy().is_zero


def _sleigh_form(potential=True):
    x, y, phi, xd, yd, phid = sp.symbols("x y phi xdot ydot phidot", real=True)
    m, I, a = sp.symbols("m I a", positive=True)
    U = sp.Function("U", real=True)(x, y, phi) if potential else 0
    f = -xd * s(phi) + yd * c(phi)
    L = m * (xd**2 + yd**2) / 2 + I * phid**2 / 2 + m * a * phid * f - U
    form = pseudo_hamiltonian_form([x, y, phi], [xd, yd, phid], L,
                                   [[c(phi), s(phi), 0], [0, 0, 1]], [[-s(phi), c(phi), 0]],
                                   momenta="P M", parameters=[m, I, a])
    return form, (x, y, phi), (m, I, a), U


# -- B2 / O-SL-1..3 -------------------------------------------------------------------------------
def test_sleigh_J_633_exactly():
    form, (x, y, phi), (m, I, a), U = _sleigh_form()
    P, M = form.momenta
    J633 = sp.Matrix([[0, 0, 0, c(phi), 0], [0, 0, 0, s(phi), 0], [0, 0, 0, 0, 1],
                      [-c(phi), -s(phi), 0, 0, m * a * M / I], [0, 0, -1, -m * a * M / I, 0]])
    assert all(Z(e) for e in form.matrix - J633)
    assert Z(form.hamiltonian - (P**2 / m + M**2 / I) / 2 - U)
    # d^1_12 = -1, c = 0, p = m a omega
    assert form.d[0][1] == [-1] and all(Z(e) for e in form.c[0][1])
    assert Z(form.transversal_momenta[0] - m * a * M / I)


def test_sleigh_equations_318_reproduced():
    form, (x, y, phi), (m, I, a), U = _sleigh_form()
    P, M = form.momenta
    V = form.vector_field()
    v1, w = P / m, M / I
    expected = [v1 * c(phi), v1 * s(phi), w,
                m * a * w**2 - c(phi) * U.diff(x) - s(phi) * U.diff(y),
                -m * a * w * v1 - U.diff(phi)]
    assert all(Z(e1 - e2) for e1, e2 in zip(V.components, expected))
    assert Z(V(form.hamiltonian))            # H is conserved (J skew)


def test_sleigh_jacobiator_values():
    form, (x, y, phi), (m, I, a), U = _sleigh_form(potential=False)
    P, M = form.momenta
    jac = form.jacobiator()
    assert set(jac) == {(x, P, M), (y, P, M), (phi, P, M)}
    assert Z(jac[(x, P, M)] - s(phi))
    assert Z(jac[(y, P, M)] + c(phi))
    assert Z(jac[(phi, P, M)] - m * a / I)
    assert not form.satisfies_jacobi()
    # even for a = 0 (the first two components survive)
    J0 = AlmostPoissonStructure(form.manifold, form.matrix.subs(a, 0))
    assert not J0.satisfies_jacobi()
    # kernel contains the constraint covector (a_mu, 0)
    kvec = sp.Matrix([-s(phi), c(phi), 0, 0, 0])
    assert all(Z(e) for e in form.matrix * kvec)
    assert form.structure.rank() == 4


def test_t37_jacobiator_formula():
    """Seed 003 T3.7: Jac(q^i, M_1, M_2) = d^mu_12 (a_mu^i - dp_mu/dM_beta tau_beta^i)."""
    form, q, (m, I, a), U = _sleigh_form(potential=False)
    P, M = form.momenta
    tau, trans = form.frame, form.transversal
    p = form.transversal_momenta[0]
    for i, qi in enumerate(q):
        expected = form.d[0][1][0] * (trans[0][i] - sum(sp.diff(p, Mb) * tau[b][i]
                                                         for b, Mb in enumerate(form.momenta)))
        assert Z(form.structure.jacobiator_component(qi, P, M) - expected)


# -- Jacobi <=> holonomic -------------------------------------------------------------------------
def test_jacobi_holds_for_holonomic_constraints():
    """O3.5: (1 + z^2)(2x xdot + 2y ydot - zdot) = 0 is integrable; J is Poisson and
    z - x^2 - y^2 is a Casimir.  The sleigh with ydot = 0 as well."""
    x, y, z, xd, yd, zd = sp.symbols("x y z xdot ydot zdot", real=True)
    L = (xd**2 + yd**2 + zd**2) / 2
    form = pseudo_hamiltonian_form([x, y, z], [xd, yd, zd], L,
                                   [[1, 0, 2 * x], [0, 1, 2 * y]],
                                   [[0, 0, 1 / (1 + z**2)]])
    assert form.satisfies_jacobi()
    assert form.structure.is_casimir(z - x**2 - y**2)
    phi, phid = sp.symbols("phi phidot", real=True)
    m, I = sp.symbols("m I", positive=True)
    Ls = m * (xd**2 + yd**2) / 2 + I * phid**2 / 2
    hol = pseudo_hamiltonian_form([x, y, phi], [xd, yd, phid], Ls, [[1, 0, 0], [0, 0, 1]],
                                  [[0, 1, 0]])
    assert hol.satisfies_jacobi()


def test_system_pseudo_hamiltonian_matches_lagrange_dalembert():
    """Prop. 7 in the graph frame agrees with the system's Lagrange-d'Alembert field."""
    import geomech as gm

    S = gm.examples.get("chaplygin_sleigh")
    form = system_pseudo_hamiltonian(S, frame="graph")
    assert not form.satisfies_jacobi()
    v = S.vector_field()
    W = form.vector_field()
    M_of = form.momentum_of
    n = S.manifold.dim
    for i in range(n):                         # q components
        assert Z(form.to_velocities(W.components[i]) - v.components[i])
    for k, Mk in enumerate(form.momenta):      # momenta: d/dt M(q, qdot) along v
        assert Z(form.to_velocities(W.components[n + k]) - v(M_of[Mk]))


def test_system_holonomic_in_disguise_is_poisson():
    import geomech as gm

    S = gm.examples.get("particle_holonomic_in_disguise")
    assert S.is_holonomic()
    assert system_pseudo_hamiltonian(S).satisfies_jacobi()
    T = gm.examples.get("particle_zdot_y_xdot")
    assert not system_pseudo_hamiltonian(T).satisfies_jacobi()


# -- Prop. 8, B4 and the reducing multiplier ------------------------------------------------------
def test_inclined_sleigh_prop8():
    import geomech as gm

    S = gm.examples.get("inclined_chaplygin_sleigh")
    m, I, a = (S.manifold.parameters[i] for i in range(3))
    form = system_chaplygin_pseudo_hamiltonian(S, ["x"])
    y, phi, py, pphi = form.manifold.coords
    Sbar = (m * a * pphi / I - c(phi) * py) / s(phi)
    assert Z(form.matrix[2, 3] - Sbar)
    jac = form.jacobiator()
    assert Z(jac[(y, py, pphi)] + c(phi) / s(phi))
    assert Z(jac[(phi, py, pphi)] - m * a / (I * s(phi)))
    # O-SL-4: reproduces the explicit field of B4 (4.27), checked by the chain rule
    g, al = S.manifold.parameters[3:5]
    ydot, phidot = S.manifold.velocities[1:]
    ydd = a * phidot**2 * s(phi) - g * s(al) * s(phi)**2 + phidot * ydot * c(phi) / s(phi)
    phdd = -(m * a / I) * (g * s(al) * c(phi) + phidot * ydot / s(phi))
    Mv = Manifold("B4", [y, phi, ydot, phidot], parameters=S.manifold.parameters)
    Vexp = Mv.vector_field([ydot, phidot, ydd, phdd])
    Wv = [form.to_velocities(e) for e in form.vector_field().components]
    assert Z(Wv[0] - ydot) and Z(Wv[1] - phidot)
    assert Z(Wv[2] - Vexp(form.momentum_of[py]))
    assert Z(Wv[3] - Vexp(form.momentum_of[pphi]))


def test_reducing_multiplier_iff_a_zero():
    import geomech as gm

    res = system_is_conformally_hamiltonian(gm.examples.get("inclined_chaplygin_sleigh"), ["x"])
    assert not res and "not closed" in res.reason
    S0 = gm.examples.get("inclined_chaplygin_sleigh", a=0)
    res0 = system_is_conformally_hamiltonian(S0, ["x"])
    phi = S0.manifold.coords[2]
    assert res0 and Z(res0.multiplier - s(phi))
    form = system_chaplygin_pseudo_hamiltonian(S0, ["x"])
    assert is_invariant_density(form.vector_field(), res0.multiplier)


def test_multiplier_rejects_affine_gyroscopic_term():
    q1, q2, v1, v2 = sp.symbols("q1 q2 v1 v2", real=True)
    form = reduced_pseudo_hamiltonian([q1, q2], [v1, v2], (v1**2 + v2**2) / 2,
                                      sp.Matrix([[0, 1], [-1, 0]]))
    res = chaplygin_multiplier(form)
    assert not res and "homogeneous linear" in res.reason


# -- conformal symmetries: B1 oracles 6, 8 and B6 -------------------------------------------------
def test_b1_conformal_symmetry():
    M, V, tau = ball_reduced()
    Z1, Z2, Z3, Z4 = M.coords
    u = M.vector_field({Z3: 1})
    br = (V / Z3).bracket(u)
    for k in (0, 1, 3):
        assert Z(br.components[k])
    assert is_conformal_symmetry_distribution(V, [u], 1 / Z3)
    assert not is_conformal_symmetry_distribution(V, [u], 1)
    res = conformal_factor(V, u)
    assert res
    assert default_policy().is_constant(res.factor * Z3, [Z3])
    # after the time change the (Z1, Z2, Z4) subsystem is the linear one of B1
    W = V / Z3
    assert Z(W.components[0] - tau * Z2 / (1 + Z4)**2)
    assert Z(W.components[1] + Z1) and Z(W.components[3] - 2)


@pytest.mark.parametrize("alpha", [sp.Integer(-2), sp.Rational(-7, 5), sp.Integer(3)])
def test_b6_conformal_symmetry(alpha):
    M, V, q, p, al, r2 = homogeneous_force(2, alpha=alpha)
    u1 = M.vector_field([*q, *[(1 + al) / 2 * pi for pi in p]])
    assert (V.bracket(u1) - V * ((1 - al) / 2)).is_zero()
    mus, bs = conformal_symmetry(V, u1)
    assert Z(mus[0] - (1 - al) / 2) and Z(bs[0][0])
    rho = r2**((1 - al) / 4)                     # R^((1 - alpha)/2)
    assert (V * rho).bracket(u1).is_zero()
    res = conformal_factor(V, u1, candidates=[r2])
    assert res and Z(res.factor - rho)


def test_b6_alpha_minus_3():
    M, V, q, p, al, r2 = homogeneous_force(2, alpha=-3)
    u1 = M.vector_field([*q, *[-pi for pi in p]])
    u2 = M.vector_field([0, 0, *q])
    rho = r2
    assert (V * rho).bracket(u1).is_zero()
    assert (u1.bracket(u2) - 2 * u2).is_zero()
    assert ((V * rho).bracket(u2) + rho * u1).is_zero()
    assert (V.bracket(u2) + u1).is_zero()
    assert (V.bracket(u1) - 2 * V).is_zero()
    assert is_conformal_symmetry_distribution(V, [u1, u2], rho)
    assert not is_conformal_symmetry_distribution(V, [u1, u2], 1)


# -- structures: properties and errors ------------------------------------------------------------
_P = Manifold("P4", "a b c d")
_syms = _P.coords
_ent = st.sampled_from([0, 1, -2, _syms[0], _syms[1] * _syms[2], s(_syms[3]), _syms[0]**2])
_const = st.integers(-3, 3)
_H = st.lists(st.tuples(st.integers(-3, 3), st.sampled_from(
    [_syms[0], _syms[1]**2, _syms[2] * _syms[3], c(_syms[0]), _syms[3]**3])), min_size=1,
    max_size=4).map(lambda ts: sp.Add(*[k * e for k, e in ts]))


def _skew(entries):
    J = sp.zeros(4, 4)
    k = 0
    for i in range(4):
        for j in range(i + 1, 4):
            J[i, j], J[j, i] = entries[k], -entries[k]
            k += 1
    return J


@settings(max_examples=20, deadline=None)
@given(st.lists(_ent, min_size=6, max_size=6), _H)
def test_hamiltonian_field_conserves_H(entries, H):
    """{H, H} = 0 for every skew J: X_H(H) = 0."""
    J = AlmostPoissonStructure(_P, _skew(entries))
    assert Z(J.hamiltonian_vector_field(H)(H))
    assert Z(J.bracket(H, _syms[0]) + J.bracket(_syms[0], H))


@settings(max_examples=20, deadline=None)
@given(st.lists(_const, min_size=6, max_size=6))
def test_constant_J_is_poisson(entries):
    assert AlmostPoissonStructure(_P, _skew(entries)).satisfies_jacobi()


def test_lie_poisson_so3_and_a_non_poisson_structure():
    M = Manifold("M", "x y z")
    x, y, z = M.coords
    assert AlmostPoissonStructure(M, [[0, z, -y], [-z, 0, x], [y, -x, 0]]).satisfies_jacobi()
    J = AlmostPoissonStructure(M, [[0, 1, 0], [-1, 0, y], [0, -y, 0]])
    jac = J.jacobiator()
    # {x,{y,z}} + {y,{z,x}} + {z,{x,y}} computed through the bracket
    direct = (J.bracket(x, J.bracket(y, z)) + J.bracket(y, J.bracket(z, x))
              + J.bracket(z, J.bracket(x, y)))
    assert Z(jac.get((x, y, z), 0) - direct) and not Z(direct)


def test_frame_structure_functions_sleigh():
    x, y, phi = sp.symbols("x y phi")
    cc, d = frame_structure_functions([x, y, phi], [[c(phi), s(phi), 0], [0, 0, 1]],
                                      [[-s(phi), c(phi), 0]])
    assert d[0][1] == [-1] and d[1][0] == [1]


def test_bad_input():
    M = Manifold("M", "x y")
    with pytest.raises(ValueError, match="skew"):
        AlmostPoissonStructure(M, [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="2x2"):
        AlmostPoissonStructure(M, [[0]])
    with pytest.raises(TypeError):
        AlmostPoissonStructure("M", [[0]])
    x, y, xd, yd = sp.symbols("x y xdot ydot")
    with pytest.raises(ValueError, match="degenerate"):
        pseudo_hamiltonian_form([x, y], [xd, yd], yd**2 / 2, [[1, 0]], [[0, 1]])
    with pytest.raises(ValueError, match="frame"):
        pseudo_hamiltonian_form([x, y], [xd, yd], xd**2 / 2, [[1, 0]], [])


_HEAVY_BODIES = ("convex_body_on_plane", "ellipsoid",   # Prop. 7: ~10-13 s CPU each (bench_heavy)
                 "chaplygin_snake", "rattleback")   # minutes: the Jacobiator of 6-8 dimensions


def _catalogue_systems():
    import geomech as gm
    from geomech.mechanics.system import NonholonomicSystem

    names = [n for n in gm.examples.list() if n != "whipple_bicycle"   # tests/examples
             and isinstance(gm.examples.get(n), NonholonomicSystem)]
    return [pytest.param(n, marks=pytest.mark.slow) if n in _HEAVY_BODIES else n
            for n in names]


@pytest.mark.parametrize("name", _catalogue_systems())
def test_catalogue_jacobi_iff_holonomic(name):
    """Prop. 7 / T3.7 on every catalogue system: J is Poisson exactly for holonomic
    constraints (the two holonomic entries: free rigid body, particle holonomic in disguise)."""
    import geomech as gm

    S = gm.examples.get(name)
    assert system_pseudo_hamiltonian(S).satisfies_jacobi() == S.is_holonomic()


# -- square roots: the ring Jacobiator (Prop. 7 on the rolling ellipsoid) ----------------------
def _so3_from_vector(v):
    """The bivector of the vector field ``v`` on R^3: ``{x, y} = v_3`` etc. (Jacobi iff
    ``v . curl v = 0``)."""
    a, b, cc = v
    return [[0, cc, -b], [-cc, 0, a], [b, -a, 0]]


def _numeric_jacobiator(J, X, pt):
    """Independent derivation: sympy derivatives of the entries, Jac^{ijk} at a float point."""
    n = len(X)
    val = {}
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                e = sum(J[i, m] * sp.diff(J[j, k], X[m]) + J[j, m] * sp.diff(J[k, i], X[m])
                        + J[k, m] * sp.diff(J[i, j], X[m]) for m in range(n))
                val[(i, j, k)] = float(e.subs(pt).evalf(30))
    return val


def test_ring_jacobiator_with_roots_poisson_case():
    """``v = g grad f`` gives ``v . curl v = g grad f . (grad g x grad f) = 0``: Poisson, also
    with a square root in ``g`` (exact ring zero)."""
    M = Manifold("M", "x y z")
    x, y, z = M.coords
    g = sp.sqrt(1 + x**2 + y**2 * z**2)
    f = x * y * z + sp.cos(z)
    J = AlmostPoissonStructure(M, _so3_from_vector([g * sp.diff(f, q) for q in (x, y, z)]))
    assert J._ring_jacobiator() is not None
    assert J.satisfies_jacobi() and J.jacobiator() == {}


def test_ring_jacobiator_with_roots_agrees_with_numeric_derivation():
    """Non-Poisson ``J`` with square roots: the ring Jacobiator (exact) agrees at random
    points with the Jacobiator from sympy derivatives evaluated in floating point, and the
    vanishing components are exactly those that vanish numerically."""
    import random

    M = Manifold("M", "x y z u")
    x, y, z, u = M.coords
    r = sp.sqrt(2 + sp.sin(x) ** 2 + y**2)
    rows = [[0, r, z, 0], [-r, 0, x * y / r, 0], [-z, -x * y / r, 0, u * r],
            [0, 0, -u * r, 0]]
    J = AlmostPoissonStructure(M, rows)
    assert J._ring_jacobiator() is not None
    assert not J.satisfies_jacobi()
    jac = J.jacobiator()
    rng = random.Random(7)
    for _ in range(2):
        pt = {q: sp.Rational(rng.randint(1, 40), rng.randint(1, 17)) for q in M.coords}
        num = _numeric_jacobiator(J.matrix, M.coords, pt)
        for (i, j, k), v in num.items():
            key = (M.coords[i], M.coords[j], M.coords[k])
            got = float(jac[key].subs(pt).evalf(30)) if key in jac else 0.0
            assert abs(got - v) <= 1e-9 * (1 + abs(v))
    assert jac                                      # some component is non-zero


def test_norm_nonzero_proves_non_zero_ness():
    """The norm test proves non-zero-ness (``rho - 1`` with ``rho^2 = 2 + cos t``), never
    claims it for an element that vanishes (``rho^2 - 2 - cos t``)."""
    from geomech.core.algebra.calculus import RadicalCalculus
    from geomech.core.zero.radicals import norm_nonzero

    t = sp.Symbol("t", real=True)
    rc = RadicalCalculus([sp.sqrt(2 + sp.cos(t))])
    rho = rc.R.gens[0]
    assert norm_nonzero(rc, rho - 1)
    assert not norm_nonzero(rc, rho**2 - 2 - rc.frac(sp.cos(t))[0])
    assert not norm_nonzero(rc, rc.R.zero)


@pytest.mark.slow
def test_ellipsoid_jacobiator_nonzero_numerically():
    """Rolling ellipsoid (Borisov & Mamaev (2015), §4.3), symbolic parameters: Prop. 7's ``J``
    fails the Jacobi identity (non-holonomic), and a component is non-zero when evaluated
    independently (sympy derivatives of the entries, floats at a random point)."""
    import random

    import geomech as gm

    form = system_pseudo_hamiltonian(gm.examples.ellipsoid())
    assert not form.satisfies_jacobi()
    P = form.structure
    X, J = P.manifold.coords, P.matrix
    rng = random.Random(3)
    syms = sorted(J.free_symbols, key=sp.default_sort_key)
    pt = {q: sp.Rational(rng.randint(5, 40), rng.randint(3, 17)) for q in syms}
    i, j, k = 0, 5, 6                                   # (x, first two momenta)
    val = sum((J[i, m] * sp.diff(J[j, k], X[m]) + J[j, m] * sp.diff(J[k, i], X[m])
               + J[k, m] * sp.diff(J[i, j], X[m])).xreplace(pt).evalf(30)
              for m in range(len(X)))
    assert abs(float(val)) > 1e-8
