"""Invariant measures: spec B1 oracle 5, B2, B4 oracle 5, B6, Chaplygin ball O-CB-4."""

from __future__ import annotations

import functools

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.density import (
    density_defect,
    divergence,
    invariant_measure,
    is_invariant_density,
)
from geomech.mechanics.analysis.measure import (
    system_divergence,
    system_invariant_measure,
    system_is_invariant_density,
)

c, s = sp.cos, sp.sin
Z = default_policy().is_zero


# -- spec fields (shared with the other test modules of this package) --------------------------
def ball_paraboloid():
    """B1 (2.7): ball whose centre moves on x3 = c/2 (x1^2+x2^2), phase space (x1,x2,w1,w2,w3)."""
    M = Manifold("M5", "x1 x2 w1 w2 w3", parameters="c R m I g")
    x1, x2, w1, w2, w3 = M.coords
    cc, R, m, I, g = M.parameters
    sq = sp.sqrt(1 + cc**2 * (x1**2 + x2**2))
    n = sp.Matrix([-cc * x1, -cc * x2, 1]) / sq
    w = sp.Matrix([w1, w2, w3])
    rdot = R * w.cross(n)
    ndot = n.jacobian([x1, x2]) * rdot[:2, :]
    wdot = (m * R**2 * w.dot(n) * ndot - m * g * R * n.cross(sp.Matrix([0, 0, 1]))) / (I + m * R**2)
    return M, M.vector_field([rdot[0], rdot[1], *wdot]), n


def ball_reduced(tau=None):
    """B1 (2.9): the reduced system in (Z1, Z2, Z3, Z4)."""
    M = Manifold("M4", "Z1 Z2 Z3 Z4", parameters="tau kappa")
    Z1, Z2, Z3, Z4 = M.coords
    t, kap = M.parameters
    if tau is not None:
        t = tau
    V = [t * Z2 * Z3 / (1 + Z4)**2, -Z1 * Z3,
         Z3**2 / (Z4 * (1 + Z4)) + (Z1 + Z2)**2 / (Z4 * (1 + Z4)) + Z1 * (Z1 + Z2) / (1 + Z4)
         - t * Z2 * (Z1 * (1 + Z4) + Z2) / (1 + Z4)**2 - kap * Z4 / (1 + Z4),
         2 * Z3]
    return M, M.vector_field(V), t


def sleigh_field(potential=False):
    """B2 (3.18) on (x, y, phi, v1, omega); a generic potential U(x, y, phi) if asked."""
    M = Manifold("Msl", "x y phi v1 omega", parameters="m I a")
    x, y, phi, v1, w = M.coords
    m, I, a = M.parameters
    U = sp.Function("U", real=True)(x, y, phi) if potential else sp.S.Zero
    V = M.vector_field([v1 * c(phi), v1 * s(phi), w,
                        a * w**2 - (c(phi) * U.diff(x) + s(phi) * U.diff(y)) / m,
                        (-m * a * w * v1 - U.diff(phi)) / I])
    return M, V, U


def inclined_sleigh_field():
    """B4: the explicit reduced field on (y, phi, ydot, phidot)."""
    M = Manifold("Minc", sp.symbols("y phi ydot phidot", real=True), parameters="m I a g alpha")
    y, phi, yd, phd = M.coords
    m, I, a, g, al = M.parameters
    ydd = a * phd**2 * s(phi) - g * s(al) * s(phi)**2 + phd * yd * c(phi) / s(phi)
    V = M.vector_field([yd, phd, ydd,
                        -(m * a / I) * (g * s(al) * c(phi) + phd * yd / s(phi))])
    return M, V


@functools.lru_cache(maxsize=1)
def chaplygin_ball_mg():
    """O-CB-4: Chaplygin ball in (M, gamma), with D = m R^2 and A = (I + D E)^{-1}.

    The entries of A are the parameters A1, A2, A3 (A_i = 1/(I_i + D); I_i free)."""
    M = Manifold("CB", "M1 M2 M3 g1 g2 g3", parameters="A1 A2 A3 D")
    M1, M2, M3, g1, g2, g3 = M.coords
    A1, A2, A3, D = M.parameters
    A = sp.diag(A1, A2, A3)
    Mv, gv = sp.Matrix([M1, M2, M3]), sp.Matrix([g1, g2, g3])
    den = 1 - D * (gv.T * A * gv)[0]
    w = A * Mv + D * (gv.T * A * Mv)[0] / den * A * gv
    return M, M.vector_field([*Mv.cross(w), *gv.cross(w)]), den, w


def homogeneous_force(n=2, alpha=None):
    """B6 (6.36): q'' = |q|^(alpha-1) A q with a non-symmetric A."""
    names = " ".join([f"q{i}" for i in range(1, n + 1)] + [f"p{i}" for i in range(1, n + 1)])
    M = Manifold("Mhf", names, parameters="alpha" if alpha is None else ())
    q, p = M.coords[:n], M.coords[n:]
    al = M.parameters[0] if alpha is None else as_expr(alpha)
    A = sp.Matrix(n, n, lambda i, j: sp.Rational(i + 2 * j + 1, i + j + 2) * (-1)**(i * j))
    r2 = sum(x**2 for x in q)
    f = r2**((al - 1) / 2) * A * sp.Matrix(q)
    return M, M.vector_field([*p, *f]), q, p, al, r2


# -- B1 ------------------------------------------------------------------------------------------
def test_b1_full_density_verified_and_found():
    M, V, _ = ball_paraboloid()
    x1, x2 = M.coords[:2]
    cc = M.parameters[0]
    rho = sp.sqrt(1 + cc**2 * (x1**2 + x2**2))
    assert is_invariant_density(V, rho)
    assert not is_invariant_density(V, 1)                 # the coordinate volume is not invariant
    assert not is_invariant_density(V, 1 / rho)
    res = invariant_measure(V, variables=[x1, x2])
    assert res
    assert Z(res.density / rho - sp.sqrt(1 + cc**2 * (x1**2 + x2**2)) / rho)  # ratio constant
    assert default_policy().is_constant(res.density / rho, M.coords)


def test_b1_reduced_density():
    M, V, _ = ball_reduced()
    Z4 = M.coords[3]
    assert is_invariant_density(V, (1 + Z4) / Z4)
    res = invariant_measure(V, variables=[Z4])
    assert res and Z(res.density - (1 + Z4) / Z4)
    # the defect of another candidate is exactly v(log rho) + div v
    assert Z(density_defect(V, Z4) - (V(Z4) / Z4 + divergence(V)))


# -- B2 / B4 -------------------------------------------------------------------------------------
def test_b2_sleigh_divergence_and_no_measure():
    M, V, U = sleigh_field()
    x, y, phi, v1, w = M.coords
    m, I, a = M.parameters
    assert Z(divergence(V) + m * a * v1 / I)
    res = invariant_measure(V, variables=[x, y, phi])
    assert not res and res.density is None
    assert "not closed" in res.reason
    # a = 0: the coordinate volume is invariant and is found
    res0 = invariant_measure(V.subs(a, 0), variables=[x, y, phi])
    assert res0 and default_policy().is_constant(res0.density, M.coords)
    # no density of the velocities either, in a rich 'linear' family
    basis = [1, v1, w, v1**2, v1 * w, w**2, c(phi), s(phi)]
    assert not invariant_measure(V, "linear", functions=basis)


def test_b2_sleigh_with_potential_divergence():
    M, V, U = sleigh_field(potential=True)
    m, I, a = M.parameters
    assert Z(divergence(V) + m * a * M.coords[3] / I)


def test_b4_inclined_sleigh():
    M, V = inclined_sleigh_field()
    y, phi, yd, phd = M.coords
    m, I, a, g, al = M.parameters
    assert Z(divergence(V) - (phd * c(phi) / s(phi) - (m * a / I) * yd / s(phi)))
    assert not invariant_measure(V, variables=[y, phi])
    V0 = V.subs(a, 0)
    assert is_invariant_density(V0, 1 / s(phi))
    res = invariant_measure(V0, variables=[y, phi])
    assert res and default_policy().is_constant(res.density * s(phi), M.coords)


# -- B6 ------------------------------------------------------------------------------------------
def test_b6_homogeneous_force_divergence_free():
    M, V, *_ = homogeneous_force(2)
    assert Z(divergence(V))
    assert is_invariant_density(V, 1)


# -- Chaplygin ball ------------------------------------------------------------------------------
def test_chaplygin_ball_density():
    M, V, den, _ = chaplygin_ball_mg()
    g = M.coords[3:]
    rel = [sum(x**2 for x in g) - 1]
    rho = den**sp.Rational(-1, 2)
    assert is_invariant_density(V, rho, relations=rel)
    assert not is_invariant_density(V, 1 / rho, relations=rel)


def test_chaplygin_ball_density_search():
    M, V, den, _ = chaplygin_ball_mg()
    res = invariant_measure(V, "powers", functions=[den])
    assert res and Z(res.density**2 * den - 1)


# -- system-level entry points -------------------------------------------------------------------
def test_system_entry_points_sleigh():
    import geomech as gm

    S = gm.examples.get("chaplygin_sleigh")
    m, I, a = S.manifold.parameters
    div = system_divergence(S)
    assert not Z(div)
    assert not system_invariant_measure(S)
    S0 = gm.examples.get("chaplygin_sleigh", a=0)
    res = system_invariant_measure(S0)
    assert res and system_is_invariant_density(S0, res.density)


# -- properties ----------------------------------------------------------------------------------
_P = Manifold("P3", "u v w")
_u, _v, _w = _P.coords
_mono = st.sampled_from([1, _u, _v, _w, _u * _v, _v * _w**2, _u**2, sp.sin(_u), sp.cos(_w)])
_poly = st.lists(st.tuples(st.integers(-3, 3), _mono), min_size=1, max_size=4).map(
    lambda ts: sp.Add(*[k * mo for k, mo in ts]))


@settings(max_examples=25, deadline=None)
@given(_poly, _poly, _poly, _poly)
def test_divergence_product_rule(f, a, b, cc):
    """div(f v) = f div v + v(f)."""
    V = _P.vector_field([a, b, cc])
    assert Z(divergence(V * f) - f * divergence(V) - V(f))


@settings(max_examples=15, deadline=None)
@given(_poly, _poly)
def test_hamiltonian_field_divergence_free(H, f):
    """A planar Hamiltonian field is divergence free, and ``rho = 1`` is invariant."""
    Q = Manifold("Q2", "q p")
    q, p = Q.coords
    Hq = H.xreplace({_u: q, _v: p, _w: q + p})
    V = Q.vector_field([sp.diff(Hq, p), -sp.diff(Hq, q)])
    assert Z(divergence(V))
    assert is_invariant_density(V, 1)


def test_bad_input():
    M, V, *_ = ball_reduced()
    with pytest.raises(ValueError, match="variables"):
        invariant_measure(V)
    with pytest.raises(ValueError, match="unknown ansatz"):
        invariant_measure(V, "magic", variables=[M.coords[3]])
    with pytest.raises(ValueError, match="not vanish"):
        is_invariant_density(V, 0)
    with pytest.raises(TypeError):
        divergence("x")


# -- the default family of a system (powers of factors built from the system) ------------------
def _gamma(S):
    th, ph = S.manifold.coords[2:4]
    return sp.Matrix([s(ph) * s(th), s(th) * c(ph), c(th)])


def _ball_oracle(S, params=None):
    r"""Chaplygin (1903): det(I + D E - D gamma gamma^T)^(1/2) in (omega, gamma); on (q, qdot)
    the Haar measure of SO(3) (sin theta) and the Jacobian of omega(qdot) (sin theta) enter."""
    m, R, I1, I2, I3 = params or S.manifold.parameters
    g = _gamma(S)
    D = m * R**2
    J = sp.diag(I1, I2, I3) + D * sp.eye(3) - D * g * g.T
    return J.det() * s(S.manifold.coords[2])**4


def test_system_family_sleigh_none_and_named():
    """B2: no density for a != 0, the answer names the family; a = 0: the density is found."""
    import geomech as gm

    res = gm.examples.chaplygin_sleigh().invariant_measure()
    assert not res and res.density is None
    assert "cos(phi)" in res.family and "exponents" in res.family
    S0 = gm.examples.chaplygin_sleigh(a=0)
    res0 = S0.invariant_measure()
    assert res0 and S0.is_invariant_density(res0.density)


def test_chaplygin_ball_numeric_parameters_density_oracle():
    """O-CB-4 on the catalogue phase space: the density is verified on the phase-space field
    (independently of the natural-variable identity used by the search) and agrees with
    Chaplygin's density up to a constant factor; sin(theta) times it is not a density."""
    import geomech as gm

    S = gm.examples.chaplygin_ball(m=1, R=1, I1=2, I2=3, I3=5)
    res = S.invariant_measure()
    assert res
    assert S.is_invariant_density(res.density)
    assert not S.is_invariant_density(res.density * s(S.manifold.coords[2]))
    assert default_policy().is_constant(res.density**2 / _ball_oracle(S, (1, 1, 2, 3, 5)),
                                        S.phase_space.coords)


def test_rubber_ball_density():
    import geomech as gm

    S = gm.examples.rubber_ball()
    res = S.invariant_measure()
    assert res and S.is_invariant_density(res.density)
    assert not S.is_invariant_density(res.density * s(S.manifold.coords[2]))


def test_user_factors_enter_the_family():
    import geomech as gm

    S = gm.examples.chaplygin_sleigh()
    res = S.invariant_measure(functions=["1 + phi**2"])
    assert not res and "phi**2 + 1" in res.family and "user function 0" in res.family


@pytest.mark.slow
def test_chaplygin_ball_symbolic_density():
    import geomech as gm

    S = gm.examples.chaplygin_ball()
    res = S.invariant_measure()
    assert res
    assert default_policy().is_constant(res.density**2 / _ball_oracle(S), S.phase_space.coords)
    assert S.is_invariant_density(res.density)


@pytest.mark.slow
def test_routh_sphere_symbolic_density():
    r"""Routh sphere: the density contains (I1 I3 + m I1 R^2 sin^2 + m I3 (a + R cos)^2)^(1/2)
    (the rho^(-1) of Routh's integral omega_3/rho, Borisov & Mamaev 2002) and is verified on the
    phase-space field."""
    import geomech as gm

    S = gm.examples.routh_sphere()
    m, R, a, I1, I3, g = S.manifold.parameters
    th = S.manifold.coords[2]
    Q = I1 * I3 + m * I1 * R**2 * s(th)**2 + m * I3 * (a + R * c(th))**2
    res = S.invariant_measure()
    assert res
    assert any(e == sp.Rational(1, 2) and default_policy().is_constant(f / Q, [th])
               for f, e in res.exponents)
    assert S.is_invariant_density(res.density)


def test_large_ring_divergence_only_for_heavy_bodies():
    import geomech as gm
    from geomech.mechanics.analysis.measure import large_ring_divergence

    assert large_ring_divergence(gm.examples.chaplygin_sleigh(), 0) is None   # no roots


@pytest.mark.slow
def test_large_ring_divergence_bound_agrees_with_the_count():
    """The ring's term bound (at least t_n - 1 + t_d - 1 additions written out) and the
    operation count of the written-out divergence agree: both over the limit."""
    import geomech as gm
    from geomech.core.opcount import count_ops
    from geomech.mechanics.analysis.measure import large_ring_divergence, system_divergence

    S = gm.examples.get("ellipsoid")
    rf = large_ring_divergence(S, 20000)
    assert rf is not None
    n_ops = count_ops(system_divergence(S))
    assert n_ops >= len(rf.num) + len(rf.den) - 2 > 20000
