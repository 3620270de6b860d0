"""Fractions of :class:`~geomech.core.algebra.calculus.FactoredCalculus`: the fractions the
constructor builds for its expressions are the ones ``frac`` returns (built once), and they
are the expressions as functions (zero policy); sin/cos of two angles and a square root."""

from __future__ import annotations

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.algebra.calculus import FactoredCalculus
from geomech.core.zero import default_policy

a, b, x = sp.symbols("a b x", real=True)
ATOMS = [x, a, sp.sin(a), sp.cos(a), sp.cos(b), sp.sqrt(2 + sp.cos(a)), sp.Rational(3, 2)]
DENS = [1 + x**2, 2 + sp.sin(b), sp.sqrt(2 + sp.cos(a))]

terms = st.lists(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=3),
                 min_size=1, max_size=4).map(lambda ts: sp.Add(*[sp.Mul(*t) for t in ts]))
exprs = st.tuples(terms, st.lists(st.sampled_from(DENS), max_size=2)).map(
    lambda nd: nd[0] / sp.Mul(*nd[1]))


@settings(max_examples=20, deadline=None)
@given(st.lists(exprs, min_size=1, max_size=3))
def test_frac_of_a_given_expression_is_built_once_and_exact(es):
    fc = FactoredCalculus(es)
    got = [fc.frac(e) for e in es]
    fc._given.clear()                   # the fractions built again, from scratch
    assert got == [fc.frac(e) for e in es]
    for e, f in zip(es, got):
        assert default_policy().is_zero(fc.expr(f) - e)
