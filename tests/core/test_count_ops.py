"""``kernel.count_ops`` is ``sympy.count_ops``: the same number on random expressions (rational
functions of symbols and functions, rational powers, negative and fractional coefficients;
floats, ``exp``, ``pi`` and derivatives for the hand-over to sympy)."""

from __future__ import annotations

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.opcount import count_ops

x, y = sp.symbols("x y")
a = sp.Symbol("a", positive=True)
f = sp.Function("f")
ATOMS = [x, y, a, sp.sin(x), sp.cos(y), f(x, y), sp.Rational(-3, 2), sp.Integer(2),
         sp.Integer(-1)]
OUTSIDE = [sp.Float(0.5), sp.exp(x), sp.pi, sp.Derivative(f(x, y), x), sp.I, sp.sqrt(2)]


def _expressions(atoms):
    leaves = st.sampled_from(atoms)

    def extend(children):
        pair = st.tuples(children, children)
        return st.one_of(
            pair.map(lambda p: p[0] + p[1]),
            pair.map(lambda p: p[0] - p[1]),
            pair.map(lambda p: p[0] * p[1]),
            pair.map(lambda p: p[0] / p[1] if p[1] != 0 else p[0]),
            st.tuples(children, st.sampled_from([2, 3, -1, -2, sp.Rational(1, 2),
                                                  sp.Rational(-3, 2)]))
            .map(lambda p: p[0] ** p[1] if p[0] != 0 else p[0]),
            children.map(lambda e: -e),
            children.map(sp.sin),
        )

    return st.recursive(leaves, extend, max_leaves=12)


@settings(max_examples=100, deadline=None)
@given(_expressions(ATOMS))
def test_count_ops_is_sympys(e):
    assert count_ops(e) == sp.count_ops(e)


@settings(max_examples=40, deadline=None)
@given(_expressions(ATOMS + OUTSIDE))
def test_count_ops_hands_other_nodes_to_sympy(e):
    assert count_ops(e) == sp.count_ops(e)


@settings(max_examples=30, deadline=None)
@given(_expressions(ATOMS), _expressions(ATOMS))
def test_count_ops_of_expanded_quotients(n, d):
    """The shapes the equation forms compare: expanded numerators over factored
    denominators, and relations and containers (handed over)."""
    e = sp.expand(n) / sp.factor_terms(sp.expand(d)) if d != 0 else sp.expand(n)
    assert count_ops(e) == sp.count_ops(e)
    assert count_ops(sp.Eq(e, x, evaluate=False)) == sp.count_ops(sp.Eq(e, x, evaluate=False))
