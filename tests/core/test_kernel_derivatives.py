"""Ring derivatives of Lagrangians (``kernel.hessian``, ``kernel.lagrangian_derivatives``)
against ``sympy.diff``: the Hessian is the identical expanded expression, and
:math:`p_i`, :math:`\\beta_i` are equal as functions; with rings disabled the sympy path gives
the same Hessian."""

from __future__ import annotations

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core import kernel

q = sp.symbols("q0:3")
v = sp.symbols("v0:3")
m = sp.Symbol("m", positive=True)
FACTORS = [*q, *v, m, sp.sin(q[0]), sp.cos(q[0]), sp.cos(q[2]), sp.Rational(-2, 3)]

lagrangians = st.lists(st.lists(st.sampled_from(FACTORS), min_size=1, max_size=4),
                       min_size=1, max_size=5).map(
    lambda terms: sp.Add(*[sp.Mul(*t) for t in terms]) * (1 + v[0] * sp.cos(q[1])) ** 2)


@settings(max_examples=25, deadline=None)
@given(lagrangians)
def test_hessian_is_sympys(L):
    ref = sp.Matrix(3, 3, lambda i, j: sp.expand(sp.diff(L, v[i], v[j])))
    got = kernel.hessian(L, v)
    assert got == ref
    assert [str(e) for e in got] == [str(e) for e in ref]
    with kernel.using_backend("sympy"):
        assert kernel.hessian(L, v) == ref


@settings(max_examples=15, deadline=None)
@given(lagrangians)
def test_momenta_and_beta_are_the_euler_lagrange_terms(L):
    p, beta = kernel.lagrangian_derivatives(L, q, v)
    for i in range(3):
        assert sp.expand(p[i] - sp.diff(L, v[i])) == 0
        ref = sum(sp.diff(L, v[i], q[j]) * v[j] for j in range(3)) - sp.diff(L, q[i])
        assert sp.expand(beta[i] - ref) == 0


def test_outside_the_ring_there_is_no_ring_result():
    """A Lagrangian neither in the ring nor quadratic in the velocities: no result (the
    caller differentiates); one quadratic in the velocities with coefficients outside the
    ring: derivatives from its coefficients, equal to sympy's."""
    assert kernel.lagrangian_derivatives(sp.cos(v[0]) * sp.besselj(0, q[0]), q, v) is None
    L = v[0] ** 2 * sp.besselj(0, q[0]) / 2 + v[1] * v[2] * sp.exp(q[1])
    p, beta = kernel.lagrangian_derivatives(L, q, v)
    for i in range(3):
        assert sp.expand(p[i] - sp.diff(L, v[i])) == 0
        ref = sum(sp.diff(L, v[i], q[j]) * v[j] for j in range(3)) - sp.diff(L, q[i])
        assert sp.expand(beta[i] - ref) == 0
    assert kernel.hessian(L, v)[0, 0] == sp.besselj(0, q[0])


x, a = sp.Symbol("x", real=True), sp.Symbol("a", positive=True)
ATOMS = [x, a, sp.Integer(2), sp.Rational(-1, 3), sp.sin(x), sp.cos(2 * x),
         sp.sqrt(1 + a * sp.sin(x) ** 2), 1 / sp.sqrt(a + sp.cos(x) ** 2), sp.exp(a * x)]
radical_exprs = st.recursive(
    st.sampled_from(ATOMS),
    lambda kids: st.one_of(
        st.lists(kids, min_size=2, max_size=3).map(lambda es: sp.Add(*es)),
        st.lists(kids, min_size=2, max_size=3).map(lambda es: sp.Mul(*es)),
        st.tuples(kids, st.integers(-2, 3)).map(lambda t: t[0] ** t[1]),
        kids.map(lambda e: sp.sqrt(1 + e ** 2)),
        kids.map(sp.sin)),
    max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(radical_exprs, min_size=1, max_size=3))
def test_memo_diff_is_sympys_diff_node_for_node(es):
    """The memoised derivative is sympy's, the identical expression (one memo shared by
    several expressions, as for the coefficients of a Lagrangian)."""
    memo: dict = {}
    for e in es:
        assert kernel.memo_diff(e, x, memo) == sp.diff(e, x)
        assert kernel.memo_diff(e, x, memo) == sp.diff(e, x)   # from the memo


quadratic_lagrangians = st.lists(st.tuples(radical_exprs, st.integers(0, 2), st.integers(0, 2)),
                                 min_size=1, max_size=4).map(
    lambda ts: sp.Add(*[c.subs(x, q[0]) * v[i] * v[j] for c, i, j in ts])
    + sp.sqrt(1 + sp.cos(q[1]) ** 2))


@settings(max_examples=25, deadline=None)
@given(quadratic_lagrangians)
def test_quadratic_lagrangian_beta_is_the_diff_of_sympy(L):
    """Outside the ring (roots): :math:`\\beta_i = \\sum_j\\partial^2L/\\partial\\dot q_i
    \\partial q_j\\dot q_j - \\partial L/\\partial q_i` equals the expression computed by
    :func:`sympy.diff` on the whole Lagrangian, as a function."""
    got = kernel.lagrangian_derivatives(L, q, v)
    if got is None:
        return
    p, beta = got
    for i in range(3):
        ref = sp.Add(*[sp.diff(L, v[i], q[j]) * v[j] for j in range(3)]) - sp.diff(L, q[i])
        assert sp.simplify(sp.expand(beta[i] - ref)) == 0
