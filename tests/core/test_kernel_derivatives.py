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
