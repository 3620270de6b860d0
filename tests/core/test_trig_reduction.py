"""The one-pass reduction modulo :math:`\\sin^2 + \\cos^2 = 1` of
:class:`~geomech.core.algebra.differential_ring.DiffRing` against independent derivations.

* ``reduce`` is the remainder of sympy's own multivariate division by the relations, a
  Gröbner basis in lex order with ``sin`` (or, reordered, ``cos``) first (Cox, Little &
  O'Shea 2015, ch. 2 §6: the remainder by a Gröbner basis is unique);
* it equals the input as a function, decided exactly by :mod:`geomech.core.zero`;
* ``shortest`` keeps the fewest terms among the input and both remainders (ties: the input,
  then the ``sin`` remainder);
* brackets of trigonometric fields computed through the packed path and shortened are
  antisymmetric and satisfy the Jacobi identity (decided exactly by the zero policy).
"""

from __future__ import annotations

import sympy as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sympy.polys.rings import PolyRing

from geomech.core.algebra.differential_ring import DiffRing
from geomech.core.zero import default_policy

from .strategies import manifold

M = manifold(3)
X = M.coords
k = sp.Symbol("k")
ATOMS = [*X, k, *[f(x) for x in X for f in (sp.sin, sp.cos)]]


@st.composite
def trig_polys(draw, max_terms: int = 6, max_exp: int = 5) -> sp.Expr:
    """Random polynomials in the coordinates, a parameter and high powers of sin/cos of the
    coordinates (several angles in one term)."""
    terms = []
    for _ in range(draw(st.integers(0, max_terms))):
        c = sp.Rational(draw(st.integers(-9, 9)), draw(st.integers(1, 4)))
        mono = sp.Mul(*[draw(st.sampled_from(ATOMS)) ** draw(st.integers(1, max_exp))
                        for _ in range(draw(st.integers(0, 4)))])
        terms.append(c * mono)
    return sp.expand(sp.Add(*terms))


def _remainder(R: DiffRing, p, prefer: str):
    """The remainder of sympy's division of ``p`` by the Pythagorean relations, in the lex
    order with the preferred function of each angle first."""
    gens = []
    for g in R.gens:
        if isinstance(g, sp.cos):
            continue
        gens += [g, sp.cos(g.args[0])] if isinstance(g, sp.sin) else [g]
    if prefer == "cos":
        gens = [sp.cos(g.args[0]) if isinstance(g, sp.sin) else
                sp.sin(g.args[0]) if isinstance(g, sp.cos) else g for g in gens]
    ring = PolyRing(gens, sp.QQ)
    rel = [ring(sp.sin(g.args[0]) ** 2 + sp.cos(g.args[0]) ** 2 - 1)
           for g in gens if isinstance(g, sp.sin)]
    q = ring.from_dict({tuple(m[R.gens.index(g)] for g in gens): c for m, c in p.items()})
    r = q.rem(rel) if rel else q
    return R.ring.from_dict({tuple(m[gens.index(g)] for g in R.gens): c for m, c in r.items()})


def _ring(*exprs) -> DiffRing:
    R = DiffRing.for_expressions(list(exprs), X)
    assert R is not None
    return R


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trig_polys())
def test_reduce_is_the_division_remainder_and_equal_as_a_function(f):
    R = _ring(f, sp.sin(X[0]))
    p = R.to_ring(f)
    for prefer in ("sin", "cos"):
        r = R.reduce(p, prefer=prefer)
        assert r == _remainder(R, p, prefer)
        pairs = R.trig_pairs if prefer == "sin" else [t[::-1] for t in R.trig_pairs]
        assert all(m[i] < 2 for m in r for i, _ in pairs)
        diff = R.to_expr(p) - R.to_expr(r)
        verdict = default_policy().zero_test(diff)
        assert verdict.zero and verdict.certain


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trig_polys())
@example(sp.sin(X[0]) ** 2 + 3)                              # all three of two terms: the input
@example(sp.sin(X[0]) ** 2 * X[1] + sp.cos(X[0]) ** 2 * X[1])   # both remainders: one term
def test_shortest_keeps_the_fewest_terms(f):
    R = _ring(f, sp.sin(X[0]))
    p = R.to_ring(f)
    s, c = _remainder(R, p, "sin"), _remainder(R, p, "cos")
    want = p if len(p) <= min(len(s), len(c)) else s if len(s) <= len(c) else c
    got = R.shortest(p)
    assert got == want
    if want is p:
        assert got is p


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(trig_polys(max_terms=3, max_exp=2), min_size=9, max_size=9))
def test_shortened_brackets_are_antisymmetric_and_satisfy_jacobi(cs):
    """The packed bracket, then the Pythagorean shortening of its components."""
    A, B, C = (M.vector_field(cs[3 * i:3 * i + 3]) for i in range(3))
    zero = default_policy().zero_test

    def proved(e) -> bool:
        v = zero(e)
        return v.zero and v.certain

    assert all(proved(u + v) for u, v in zip(A.bracket(B).components,
                                             B.bracket(A).components))
    jac = [A.bracket(B.bracket(C)), B.bracket(C.bracket(A)), C.bracket(A.bracket(B))]
    assert all(proved(u + v + w) for u, v, w in zip(*(J.components for J in jac)))
