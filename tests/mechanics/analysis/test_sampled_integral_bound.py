"""The degree-2 polynomial search of large flows by exact values over Q(sqrt d)
(field_integrals.ansatz_point_rows / sampled_integral_bound): the rows against sympy
substitution at the same exact point, the sampled dimension against the exact search, the
energy of a time-changed pendulum found, a proof of absence confirmed by the exact route."""

from __future__ import annotations

import random

import pytest
import sympy as sp

import geomech as gm
from geomech.core.manifold import Manifold
from geomech.core.zero.values import PointEvaluator, QuadraticArithmetic
from geomech.mechanics.analysis.field_integrals import (
    AnsatzFlow,
    ansatz_point_rows,
    ansatz_terms,
    sampled_integral_bound,
)
from geomech.mechanics.analysis.integrals import is_first_integral, polynomial_integrals
from geomech.mechanics.analysis.polynomial_integrals import trigonometric_ansatz


def _pendulum(damping: int = 0):
    r"""The pendulum :math:`\dot y = x,\ \dot x = -k\sin y - \delta x` in the time
    :math:`d\tau = dt/\sqrt{2 + \cos y}`: the same integrals (for :math:`\delta = 0` the
    energy :math:`x^2/2 - k\cos y`), a flow with a square root."""
    M = Manifold("M", "x y", parameters="k")
    x, y = M.coords
    k = M.parameters[0]
    r = sp.sqrt(2 + sp.cos(y))
    return M.vector_field([(-k * sp.sin(y) - damping * x) * r, x * r])


def _search_data(v, degree: int = 2):
    M = v.manifold
    x, y = M.coords
    basis = trigonometric_ansatz(v, (x,), degree)
    terms = [t for t in ansatz_terms(1, len(basis), degree) if sum(t[0]) or basis[t[1]] != 1]
    flow = AnsatzFlow((x,), (v.components[0],), ((y, v.components[1]),))
    return flow, basis, terms


def test_quadratic_rows_agree_with_sympy_substitution():
    """At an exact point, P + Q sqrt(d) of every ansatz term equals sympy's value of
    v(b eta^alpha) there, and the rows vanish on c exactly when sum c_j v(t_j) does."""
    v = _pendulum()
    M = v.manifold
    x, y = M.coords
    k = M.parameters[0]
    flow, basis, terms = _search_data(v)
    point = {k: sp.Rational(7, 3)}
    cs, sn = sp.Rational(5, 13), sp.Rational(12, 13)
    qv = PointEvaluator(point, {y: (cs, sn)}, QuadraticArithmetic([x]))
    exprs = [v(basis[kk] * x**alpha[0]) for alpha, kk in terms]
    at = {sp.sin(y): sn, sp.cos(y): cs, k: point[k]}
    for e in exprs:
        p, q = qv.sympy_value(e)
        d = qv.field.d
        d = sp.Rational(d.numerator, d.denominator) if d is not None else 0
        assert sp.expand(sp.expand(e).xreplace(at) - (p + q * sp.sqrt(d))) == 0
    kin_b = [v(b) for b in basis]
    rows = ansatz_point_rows(qv, flow.dynamics, kin_b, basis, terms, list(range(len(terms))))
    rng = random.Random(3)
    energy = {((2,), 0): sp.Rational(1, 2), ((0,), basis.index(sp.cos(y))): -point[k]}
    for c in ([energy.get(t, 0) for t in terms],
              [sp.Rational(rng.randint(-9, 9), rng.randint(1, 9)) for _ in terms]):
        value = sp.expand(sum(ci * e for ci, e in zip(c, exprs)).xreplace(at))
        assert (value == 0) == all(sum(ci * r_ for ci, r_ in zip(c, row)) == 0
                                   for row in rows)


def test_energy_found_as_a_degree_two_integral():
    """The time-changed pendulum: a one-dimensional sampled null space, on the energy's
    terms x**2 and cos(y), and that integral verified exactly along the flow."""
    v = _pendulum()
    x, y = v.manifold.coords
    k = v.manifold.parameters[0]
    flow, basis, terms = _search_data(v)
    m, support, _, root = sampled_integral_bound(flow, basis, terms, v.manifold.parameters)
    assert m == 1 and root
    assert sorted(terms[j] for j in support) == sorted([((2,), 0),
                                                        ((0,), basis.index(sp.cos(y)))])
    assert is_first_integral(v, x**2 / 2 - k * sp.cos(y))


def test_proof_of_absence_confirmed_by_the_exact_search():
    """The damped pendulum: the sampled equations have full rank (no integral, certain),
    and the exact search over the same family (substitution and cancellation) finds none."""
    v = _pendulum(damping=1)
    x, y = v.manifold.coords
    flow, basis, terms = _search_data(v)
    m, support, _, root = sampled_integral_bound(flow, basis, terms, v.manifold.parameters)
    assert (m, support) == (0, [])
    assert polynomial_integrals(v, 2, variables=(x,), ansatz=basis) == []


@pytest.mark.parametrize("name", ["chaplygin_sleigh", "rolling_disk"])
def test_sampled_dimension_equals_the_exact_search(name):
    """Catalogue flows small enough for the exact search: the sampled dimension equals the
    number of integrals it proves (a basis over the constants) in the same family."""
    S = gm.examples.get(name)
    v = S.vector_field()
    eta = tuple(S.independent_velocities)
    basis = trigonometric_ansatz(v, eta, 2)
    terms = [t for t in ansatz_terms(len(eta), len(basis), 2) if sum(t[0]) or basis[t[1]] != 1]
    comp = dict(zip(v.manifold.coords, v.components))
    flow = AnsatzFlow(eta, tuple(comp[x] for x in eta),
                      tuple((y, comp[y]) for y in v.manifold.coords if y not in eta))
    m, _, _, _ = sampled_integral_bound(flow, basis, terms, S.manifold.parameters)
    assert m == len(polynomial_integrals(v, 2, variables=eta, ansatz=basis))


def test_an_angle_outside_sines_and_cosines_is_refused():
    """y*sin(y): a sampled sine and cosine would not be those of the sampled y."""
    M = Manifold("M", "x y")
    x, y = M.coords
    flow = AnsatzFlow((x,), (-y * sp.sin(y),), ((y, x),))
    basis = [sp.S.One, sp.sin(y), sp.cos(y)]
    assert sampled_integral_bound(flow, basis, ansatz_terms(1, 3, 2)[1:], ()) is None


@pytest.mark.slow
def test_rattleback_degree_two_search_is_certain():
    """The rattleback (flow over FLOW_OPS_LIMIT, square roots of the support function): the
    degree-2 search in the trigonometric family has full rank -- no integral there, certain
    -- and the Integrability section says so with the energy as the only integral."""
    from geomech.mechanics.analysis.first_integrals import sampled_polynomial_search

    S = gm.examples.get("rattleback")
    got = sampled_polynomial_search(S)
    assert got.startswith("no first integral") and "certain" in got
    v = S.integrability()
    assert v.integrable is None and [F.kind for F in v.integrals] == ["energy"]
    assert got in v.missing
