"""Ring -> sympy conversion: the fast path builds exactly the expressions sympy builds.

``DiffRing.to_expr`` assembles ``Add``/``Mul`` without sympy's flattening, ordering the
arguments by :func:`geomech.core.exprbuild.canonical_key`.  These properties check, on random
polynomials in coordinates, parameters (with and without assumptions) and ``sin``/``cos``
generators, with rational and negative coefficients, that the result is ``==`` to, has the
same ``srepr`` and prints (``str``) the same as the expression sympy's constructors build from
the same terms, and that the key orders exactly as ``Basic.compare``.
"""

from __future__ import annotations

import re
from fractions import Fraction

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.polys.rings import PolyRing

from geomech.core import exprbuild
from geomech.core.algebra import differential_ring
from geomech.core.algebra.differential_ring import DiffRing
from geomech.core.exprbuild import canonical_key

X = sp.symbols("x0:3")
PARAMS = (sp.Symbol("a", positive=True), sp.Symbol("b"), sp.Symbol("Z", real=True),
          sp.Symbol("alpha_1"), sp.Dummy("d"))
TRIG = (sp.sin(X[0]), sp.cos(X[0]), sp.sin(X[2]), sp.cos(X[2]), sp.sin(PARAMS[1]))
GENS = (*X, *PARAMS, *TRIG)

coefficients = st.builds(Fraction, st.integers(-40, 40).filter(bool), st.integers(1, 7))
monomials = st.lists(st.tuples(st.sampled_from(GENS), st.integers(1, 4)), max_size=4)
polynomials = st.lists(st.tuples(coefficients, monomials), max_size=7)


def sympy_built(terms) -> sp.Expr:
    """The expression sympy's own constructors build from ``(coefficient, factors)``."""
    return sp.Add(*[sp.Mul(sp.Rational(c.numerator, c.denominator),
                           *[g ** e for g, e in mono]) for c, mono in terms])


def _tree(e: sp.Expr) -> str:
    """``srepr`` without the spelling of the symbols' assumptions."""
    return re.sub(r"(Symbol|Dummy)\('([^']*)'[^)]*\)", r"\1('\2')", sp.srepr(e))


def _sign(v) -> int:
    return (v > 0) - (v < 0)


@settings(max_examples=60, deadline=None)
@given(polynomials)
def test_to_expr_is_the_expression_sympy_builds(terms):
    """== , srepr and str of the fast conversion equal those of sympy's construction.

    sympy calls ``Symbol("a", positive=True)`` and ``Symbol("a", positive=True, real=True)``
    equal, and its own ring cache returns the symbol objects of the first ring built on equal
    generators (an earlier test's): ``srepr`` is compared with the assumptions' spelling
    left out (the trees, their order and the symbols' names and kinds are compared)."""
    ref = sympy_built(terms)
    R = DiffRing.for_expressions([ref], X)
    got = R.to_expr(R.to_ring(ref))
    assert got == ref
    assert _tree(got) == _tree(ref)
    assert str(got) == str(ref)
    # sympy re-flattening the result changes nothing (it is in canonical form)
    assert got.func(*got.args) == got if got.args else True


@settings(max_examples=30, deadline=None)
@given(polynomials, polynomials)
def test_to_expr_of_ring_arithmetic(t1, t2):
    """Sums and products computed in the ring convert to sympy's expansion."""
    e1, e2 = sympy_built(t1), sympy_built(t2)
    R = DiffRing.for_expressions([e1, e2], X)
    p1, p2 = R.to_ring(e1), R.to_ring(e2)
    for p, ref in ((p1 * p2 - p2, sp.expand(e1 * e2 - e2)), (p1 - p1, sp.S.Zero)):
        got = R.to_expr(p)
        assert got == ref
        assert str(got) == str(ref)


@settings(max_examples=80, deadline=None)
@given(polynomials, polynomials)
def test_canonical_key_orders_as_basic_compare(t1, t2):
    """sign(key(a) - key(b)) == a.compare(b) on terms, factors and numbers."""
    a, b = sympy_built(t1), sympy_built(t2)
    pool = [*sp.Add.make_args(a), *sp.Add.make_args(b), *a.atoms(), *b.atoms()]
    for u in pool[:6]:
        for v in pool[-6:]:
            ku, kv = canonical_key(u), canonical_key(v)
            assert _sign((ku > kv) - (ku < kv)) == u.compare(v)


def test_noncommutative_symbols_stay_out_of_the_ring():
    """The ring is commutative: an expression with a noncommutative symbol does not fit."""
    x = X[0]
    n = sp.Symbol("n", commutative=False)
    assert DiffRing.for_expressions([3 * n * x ** 2 - x / 2 + 1], (x,)) is None


F = sp.Function("f")(X[0], X[1])
RING_GENS = (*GENS, sp.tan(X[1]), F)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(-30, 30).filter(bool),
                          st.lists(st.tuples(st.sampled_from(RING_GENS), st.integers(1, 3)),
                                   max_size=4)), max_size=6),
       st.sampled_from([sp.QQ, sp.ZZ]))
def test_ring_to_expr_of_any_ring(terms, domain):
    """ring_to_expr on a plain PolyRing (ZZ or QQ, tan and undefined-function generators)
    is p.as_expr(), including the printed form."""
    R = PolyRing(RING_GENS, domain)
    p = R.from_dict({})
    for c, mono in terms:
        m = [0] * len(RING_GENS)
        for g, e in mono:
            m[RING_GENS.index(g)] += e
        p += R({tuple(m): domain(c)})
    got, ref = exprbuild.ring_to_expr(p), p.as_expr()
    assert got == ref
    assert sp.srepr(got) == sp.srepr(ref)
    assert str(got) == str(ref)


def test_generators_sympy_would_merge_take_the_flattening_route():
    """exp(x)**2 -> exp(2x), sqrt(b)*b -> b**(3/2): such generators are not built
    term by term; the result is still sympy's."""
    x, b = X[0], PARAMS[1]
    for gens in ((x, sp.exp(x)), (b, sp.sqrt(b)), (x, sp.Abs(x))):
        R = PolyRing(gens, sp.QQ)
        builder = exprbuild.ExprBuilder(R.symbols, R.domain)
        assert not builder.fast
        g0, g1 = R.gens
        p = 3 * g0 * g1 ** 2 - g1 / 2 + g0 ** 2 * g1
        assert builder(p) == p.as_expr()


def test_canonical_key_rejects_set_contents():
    class Bag(sp.Basic):
        def _hashable_content(self):
            return (frozenset({1, 2}),)

    try:
        canonical_key(Bag())
    except TypeError as exc:
        assert "frozenset" in str(exc)
    else:
        raise AssertionError("a set content must not get a key")


def test_cold_caches_give_identical_results():
    """clear_caches() forgets rings and conversion caches; results stay identical."""
    x, y = X[:2]
    e = sp.expand((x - 2 * y + sp.Rational(1, 3)) ** 3)
    R = DiffRing.for_expressions([e], (x, y))
    first = R.to_expr(R.to_ring(e))
    differential_ring.clear_caches()
    R2 = DiffRing.for_expressions([e], (x, y))
    assert R2 is not R
    assert R2.to_expr(R2.to_ring(e)) == first == e
