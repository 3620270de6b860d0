"""The Lie flag at exact points (:mod:`geomech.mechanics.analysis.point_flag`) and the
symmetries checked without solving the constraints
(:mod:`geomech.mechanics.analysis.evident_symmetries`), against the library's symbolic
routes (closed-form frames, Theorem 3 on the phase space) and independent derivations."""

from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.core.algebra.taylor import JetUndefined, taylor_jet
from geomech.mechanics.analysis.evident_symmetries import evident_symmetries
from geomech.mechanics.analysis.point_flag import (
    exact_sample_point,
    hall_word_counts,
    point_growth_vector,
)
from geomech.mechanics.analysis.symmetry import check_symmetry


def test_taylor_jet_agrees_with_symbolic_derivatives():
    x, y, a = sp.symbols("x y a")
    f = sp.sin(2*x + a) * y**2 / (1 + y*sp.cos(x)) + sp.sqrt(sp.cos(x)**2 + y**2*sp.sin(x)**2 + 3*y)
    cx, sx = Fraction(3, 5), Fraction(4, 5)
    ca, sa = Fraction(5, 13), Fraction(12, 13)
    yv = Fraction(1)
    J = taylor_jet(f, {y: yv}, {x: (cx, sx), a: (ca, sa)}, [x, y], 3)
    x0 = sp.atan2(sp.Rational(4, 5), sp.Rational(3, 5))
    a0 = sp.atan2(sp.Rational(12, 13), sp.Rational(5, 13))
    for i in range(4):
        for j in range(4 - i):
            d = sp.diff(f, x, i, y, j) if i or j else f
            exact = d.subs({x: x0, a: a0, y: 1}) / (sp.factorial(i) * sp.factorial(j))
            got = J[(i, j)]
            assert sp.simplify(sp.nsimplify(exact) - sp.Rational(got.numerator,
                                                                  got.denominator)) == 0 \
                or abs(float(exact) - float(got)) < 1e-12


def test_taylor_jet_refuses_irrational_roots_and_unknown_atoms():
    x = sp.Symbol("x")
    with pytest.raises(JetUndefined):
        taylor_jet(sp.sqrt(2 + x), {x: 0}, {}, [x], 1)
    with pytest.raises(JetUndefined):
        taylor_jet(sp.exp(x), {x: 0}, {}, [x], 1)
    with pytest.raises(JetUndefined):
        taylor_jet(1 / x, {x: 0}, {}, [x], 1)


def test_witt_formula():
    assert hall_word_counts(2, 5) == [2, 1, 2, 3, 6]


@pytest.mark.parametrize("name", ["chaplygin_sleigh", "rolling_disk", "snakeboard",
                                  "chaplygin_ball", "skate"])
def test_point_flag_agrees_with_the_symbolic_flag(name):
    S = gm.examples.get(name)
    G = S.constraint_distribution().growth_vector()
    F = point_growth_vector(S, points=2, max_length=len(G) + 1)
    assert F.ranks[:len(G)] == tuple(G)
    if F.certain:
        assert G[-1] == S.manifold.dim


def test_point_on_the_configuration_constraint_is_exact():
    N = gm.Manifold("N", "x y z", parameters="l")
    x, y, z = N.coords
    xd, yd, zd = N.velocities
    (l,) = N.parameters
    S = gm.NonholonomicSystem(N, (xd**2 + yd**2 + zd**2) / 2, [zd - x * yd],
                              holonomic={"y": y - l * x**2})
    vals, angs, solved = exact_sample_point(S)
    assert list(solved) == [l] and vals[y] == vals[l] * vals[x] ** 2
    F = point_growth_vector(S)
    # D = ker(dz - x dy, dy - 2 l x dx): rank 1 (involutive), in the surfaces y = l x^2 + c
    assert F.ranks == (1,) and F.level_dimension == 2 and F.certain


def test_evident_symmetries_are_symmetries_of_the_flow():
    for name in ("chaplygin_sleigh", "rolling_disk", "snakeboard"):
        S = gm.examples.get(name)
        r = evident_symmetries(S)
        assert r.fields
        for c in check_symmetry(S, r.fields):
            assert c.theorem3 and c.is_symmetry
        cls = S.classify_action(r.fields)
        assert (cls.case, cls.m0) == (r.case, r.m0) and r.rank_certain


@pytest.mark.slow
def test_bicycle_flag_and_symmetries():
    b = gm.examples.whipple_bicycle()
    F = point_growth_vector(b, points=3)
    assert F.ranks == (3, 5, 7) and F.bounds == (3, 6, 7) and not F.certain
    assert F.level_dimension == 7
    r = evident_symmetries(b)
    names = sorted(str(u) for u in r.fields)
    assert len(r.fields) == 5 and (r.case, r.m0, r.rank_certain) == ("C-2", 1, True)
    N = b.manifold
    x, y = N.coords[:2]
    assert any(u.components[:3] == (-y, x, 1) for u in r.fields), names
    _independent_curvature_rank(b, F)


def _independent_curvature_rank(b, F):
    """rank D^2 at the same point from the curvature dw_mu(X_a, X_b) of the constraint
    forms (sympy derivatives of the constraint matrix, floats): an independent route."""
    p = F.points[0]
    N = b.manifold
    subs = {}
    for s in N.coords + tuple(N.parameters):
        v = p.get(s.name)
        if isinstance(v, tuple):
            subs[s] = sp.atan2(sp.Rational(v[1].numerator, v[1].denominator),
                               sp.Rational(v[0].numerator, v[0].denominator))
        elif v is not None:
            subs[s] = sp.Rational(v.numerator, v.denominator)
    A = b.constraint_matrix
    k = A.rows
    A0 = np.array(A.xreplace(subs).evalf(30).tolist(), dtype=float)
    dA = np.array([np.array(A.diff(c).xreplace(subs).evalf(30).tolist(), dtype=float)
                   for c in N.coords])                      # dA[i] = d A / d q_i
    _, _, vt = np.linalg.svd(A0)
    X = vt[k:].T                                            # a basis of D at the point
    # dw_mu(X, Y) = sum_ij (d_i a_mu,j - d_j a_mu,i) X_i Y_j
    curv = np.einsum("imj->mij", dA) - np.einsum("jmi->mij", dA)
    vals = [[X[:, a] @ curv[m] @ X[:, c] for m in range(k)]
            for a, c in ((0, 1), (0, 2), (1, 2))]
    s = np.linalg.svd(np.array(vals), compute_uv=False)
    assert F.ranks[1] - F.ranks[0] == int((s > 1e-8 * s[0]).sum())


@pytest.mark.slow
def test_bicycle_divergence_at_upright_rolling_against_the_published_matrices():
    """div v along upright rolling = -v tr(M^-1 C1), the sum of the roll-steer eigenvalues,
    with M and C1 of Meijaard et al. (2007), Appendix (benchmark values)."""
    from geomech.mechanics.analysis.steady_divergence import steady_divergence

    d = steady_divergence(gm.examples.whipple_bicycle())
    M = np.array([[80.81722, 2.31941332208709], [2.31941332208709, 0.29784188199686]])
    C1 = np.array([[0.0, 33.86641391492494], [-0.85035641456978, 1.68540397397560]])
    speed = sp.Symbol("speed", real=True)
    assert d.nonzero and set(d.divergence.free_symbols) == {speed}
    coeff = float(sp.N(d.divergence.diff(speed), 20))
    assert abs(coeff + np.trace(np.linalg.solve(M, C1))) < 1e-9
    assert set(map(str, d.cyclic)) == {"x", "y", "psi", "thetaR", "thetaF"}
