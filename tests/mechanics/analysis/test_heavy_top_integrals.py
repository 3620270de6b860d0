"""Polynomial integrals of the heavy rigid body (Euler-Poisson equations) modulo
:math:`(\\gamma, \\gamma) = 1`: the classical integrable cases find their integrals, a generic top
finds nothing beyond the energy and the area integral.

The integrals of the literature are checked independently of the search: their derivative
along the Euler-Poisson field (the rates of the algebraic form, themselves checked against the
Lagrange-d'Alembert flow) reduced modulo the ideal, membership of the span found (exact linear
algebra modulo the ideal), and functional ranks on the variety at random points.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.mechanics.analysis.variety_integrals import algebraic_form


def _setup(T):
    form = algebraic_form(T)
    w = sp.Matrix(form.velocities)
    gam = sp.Matrix(form.functions)
    return form, w, gam


def _derivative_mod(form, F, ideal) -> sp.Expr:
    """:math:`D\\,v(F)` reduced modulo ``ideal`` (grevlex Gröbner basis); the rates are those
    of the algebraic form."""
    xs = form.variables
    dF = sp.together(sum(sp.diff(F, x) * r for x, r in zip(xs, form.rates)))
    num = sp.expand(sp.numer(dF))
    G = sp.groebner(ideal, *xs, order="grevlex", domain=_domain([num, *ideal], xs))
    return G.reduce(num)[1]


def _domain(exprs, xs):
    """Q(the other symbols)."""
    syms = sorted(set().union(*(sp.sympify(e).free_symbols for e in exprs)) - set(xs),
                  key=sp.default_sort_key)
    return sp.QQ.frac_field(*syms) if syms else sp.QQ


def _in_span(form, F, basis, ideal) -> bool:
    """Whether ``F`` is a linear combination of ``basis`` (constant coefficients rational in
    the parameters) plus a constant, modulo ``ideal``."""
    xs = form.variables
    cs = sp.symbols(f"c0:{len(basis) + 1}")
    E = sp.expand(F - cs[-1] - sum(c * B for c, B in zip(cs, basis)))
    G = sp.groebner(ideal, *xs, order="grevlex", domain=_domain([E, *ideal], xs))
    rem = G.reduce(E)[1]
    eqs = sp.Poly(rem, *xs).coeffs()
    return bool(sp.solve(eqs, cs, dict=True))


def _variety_points(form, count: int, seed: int, level=None) -> list[dict]:
    """Random points of :math:`(\\gamma,\\gamma) = 1` (and of ``level = 0``, linear in
    :math:`\\omega_3`, when given)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        g = np.array([rng.uniform(-1, 1) for _ in range(3)])
        g /= np.linalg.norm(g)
        pt = dict(zip(form.variables, [rng.uniform(-1.5, 1.5) for _ in range(3)] + list(g)))
        if level is not None:
            w3 = form.velocities[2]
            sol = sp.solve(level.xreplace({k: v for k, v in pt.items() if k != w3}), w3)
            if not sol:
                continue
            pt[w3] = float(sol[0])
        out.append(pt)
    return out


def _rank_on(form, funcs, pts, constraints) -> int:
    """The rank of the differentials of ``funcs`` on the variety ``constraints = 0``: the rank
    of ``(dg, dF)`` minus that of ``dg``."""
    xs = form.variables
    best = 0
    for pt in pts:
        def grads(es):
            return [np.array([float(sp.diff(e, x).xreplace(pt)) for x in xs]) for e in es]
        dg = grads(constraints)
        dF = grads(funcs)
        A = np.array([v / (np.linalg.norm(v) or 1.0) for v in dg + dF])
        r = np.linalg.matrix_rank(A, tol=1e-8) - np.linalg.matrix_rank(np.array(dg), tol=1e-8)
        best = max(best, int(r))
    return best


def test_lagrange_top_has_omega3_with_symbolic_parameters():
    """Lagrange (1788): :math:`I_1 = I_2`, centre of mass on the symmetry axis: the energy,
    the area integral :math:`(I\\omega, \\gamma)` and :math:`\\omega_3`."""
    I1, I3, m, g, z0 = sp.symbols("I1 I3 m g z0", positive=True)
    T = gm.examples.heavy_top(I1, I1, I3, m, g, 0, 0, z0)
    form, w, gam = _setup(T)
    Fs = T.polynomial_integrals(2)
    ideal = [gam.dot(gam) - 1]
    Iw = sp.diag(I1, I1, I3) * w
    energy = Iw.dot(w) / 2 + m * g * z0 * gam[2]
    classical = [energy, Iw.dot(gam), w[2]]
    assert all(_derivative_mod(form, F, ideal) == 0 for F in classical)
    assert all(_in_span(form, F, list(Fs.natural), ideal) for F in classical)
    vals = {I1: 0.9, I3: 0.6, m: 1.2, g: 9.8, z0: 0.5}
    pts = _variety_points(form, 2, 3)
    num = [F.xreplace(vals) for F in Fs.natural]
    ref = [F.xreplace(vals) for F in classical]
    assert _rank_on(form, ref, pts, ideal) == 3
    assert _rank_on(form, num, pts, ideal) == 3 and _rank_on(form, num + ref, pts, ideal) == 3


@pytest.mark.slow
def test_kovalevskaya_quartic_is_found_with_symbolic_parameters():
    """Kovalevskaya (1889): :math:`I_1 = I_2 = 2I_3`, :math:`\\mathbf r_0 = (x_0, 0, 0)`:
    :math:`K = (\\omega_1^2 - \\omega_2^2 - \\nu\\gamma_1)^2 + (2\\omega_1\\omega_2 -
    \\nu\\gamma_2)^2`, :math:`\\nu = mgx_0/I_3`, in the span of ``polynomial_integrals(4)``;
    the span has functional rank 3 (energy, area, K)."""
    I3, m, g, x0 = sp.symbols("I3 m g x0", positive=True)
    T = gm.examples.heavy_top(2 * I3, 2 * I3, I3, m, g, x0, 0, 0)
    form, w, gam = _setup(T)
    Fs = T.polynomial_integrals(4)
    nu = m * g * x0 / I3
    K = (w[0]**2 - w[1]**2 - nu * gam[0])**2 + (2 * w[0] * w[1] - nu * gam[1])**2
    ideal = [gam.dot(gam) - 1]
    assert _derivative_mod(form, K, ideal) == 0
    assert _in_span(form, K, list(Fs.natural), ideal)
    Iw = sp.diag(2 * I3, 2 * I3, I3) * w
    energy = Iw.dot(w) / 2 + m * g * x0 * gam[0]
    assert _derivative_mod(form, energy, ideal) == 0
    pts = [{**pt, **{I3: 0.8, m: 1.3, g: 9.8, x0: 0.4}} for pt in _variety_points(form, 2, 5)]
    num = [F.xreplace({I3: 0.8, m: 1.3, g: 9.8, x0: 0.4}) for F in Fs.natural]
    ref = [F.xreplace({I3: 0.8, m: 1.3, g: 9.8, x0: 0.4}) for F in (energy, Iw.dot(gam), K)]
    assert _rank_on(form, ref, pts, ideal) == 3
    assert _rank_on(form, num, pts, ideal) == 3 and _rank_on(form, num + ref, pts, ideal) == 3


def test_goryachev_chaplygin_cubic_exists_on_the_zero_area_level_only():
    """Goryachev (1900), Chaplygin (1901): :math:`I_1 = I_2 = 4I_3`, :math:`\\mathbf r_0 =
    (x_0, 0, 0)`: on :math:`(I\\omega, \\gamma) = 0` the cubic
    :math:`\\omega_3(\\omega_1^2 + \\omega_2^2) - \\nu\\omega_1\\gamma_3`, :math:`\\nu = mgx_0/I_3`;
    off the level it is no integral."""
    I3, m, g, x0 = sp.symbols("I3 m g x0", positive=True)
    T = gm.examples.heavy_top(4 * I3, 4 * I3, I3, m, g, x0, 0, 0)
    form, w, gam = _setup(T)
    area = (sp.diag(4 * I3, 4 * I3, I3) * w).dot(gam)
    Fs = T.polynomial_integrals(3, on=[area])
    G = w[2] * (w[0]**2 + w[1]**2) - m * g * x0 / I3 * w[0] * gam[2]
    ideal = [gam.dot(gam) - 1, area]
    assert _derivative_mod(form, G, ideal) == 0
    assert _derivative_mod(form, G, ideal[:1]) != 0
    assert _in_span(form, G, list(Fs.natural), ideal)
    assert any(sp.Poly(F, *form.velocities).total_degree() == 3 for F in Fs.natural)
    vals = {I3: 0.7, m: 1.1, g: 9.8, x0: 0.3}
    pts = _variety_points(form, 2, 7, level=area.xreplace(vals))
    num = [F.xreplace(vals) for F in Fs.natural]
    cons = [(gam.dot(gam) - 1), area.xreplace(vals)]
    assert _rank_on(form, num, [{**p} for p in pts], cons) == 2


def test_level_must_be_invariant():
    T = gm.examples.heavy_top(4, 4, 1, 1, 1, 1, 0, 0)
    form, w, gam = _setup(T)
    with pytest.raises(ValueError, match="not invariant"):
        T.polynomial_integrals(2, on=[w[0]])


@pytest.mark.slow
@pytest.mark.parametrize("pars", [(1, 2, 3, 1, 1, 1, 1, 1), (3, 5, 7, 2, 1, 1, 2, 3)])
def test_generic_top_has_only_energy_and_area_up_to_degree_4(pars):
    """A generic heavy top (no classical case): every polynomial integral of degree <= 4 is a
    function of the energy and the area integral on :math:`(\\gamma,\\gamma) = 1`
    (Kovalevskaya's theorem: the algebraic integrable cases are those of Euler, Lagrange and
    Kovalevskaya)."""
    T = gm.examples.heavy_top(*pars)
    form, w, gam = _setup(T)
    Fs = T.polynomial_integrals(4)
    I = sp.diag(*pars[:3])
    r0 = sp.Matrix(pars[5:])
    energy = (I * w).dot(w) / 2 + pars[3] * pars[4] * r0.dot(gam)
    ref = [energy, (I * w).dot(gam)]
    ideal = [gam.dot(gam) - 1]
    assert all(_derivative_mod(form, F, ideal) == 0 for F in ref)
    pts = _variety_points(form, 3, 11)
    assert len(Fs) >= 2
    assert _rank_on(form, ref, pts, ideal) == 2
    assert _rank_on(form, list(Fs.natural) + ref, pts, ideal) == 2
