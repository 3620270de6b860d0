"""Normal forms modulo sin^2 + cos^2 = 1 and r^2 = b (geomech.core.algebra.reduction).

Oracles: the cached one-pass normal form equals the direct route (one substitution per
relation); it is a ring map onto reduced representatives (NF(pq) = NF(NF(p) NF(q))); and it
does not change the value at exact points of the variety (sin, cos on the rational
parametrisation of the circle, r = sqrt(b) rational).
"""

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.algebra.reduction import (
    FLINT_TERMS,
    RelationReducer,
    forget_normal_forms,
    shared_normal_forms,
    sub_square,
)
from geomech.core.algebra.reduction import RelationReducer as OldPath
from geomech.core.algebra.rings import RationalAlgebra, polynomial_ring

x, s, r = sp.symbols("x s r")
R = polynomial_ring([r, x, sp.sin(s), sp.cos(s)])
RED = RelationReducer(R, roots=[(0, R.from_expr(x))], trig=[(2, 3)])

polys = st.dictionaries(st.tuples(*[st.integers(0, 4)] * 4), st.integers(-9, 9),
                        max_size=10).map(lambda d: R.from_dict({m: c for m, c in d.items() if c}))


def _value(p, t, u):
    """``p`` at x = u^2, r = u, sin s = 2t/(1+t^2), cos s = (1-t^2)/(1+t^2)."""
    sn, cs = sp.Rational(2 * t, 1 + t * t), sp.Rational(1 - t * t, 1 + t * t)
    return p.evaluate([(R.gens[0], u), (R.gens[1], u * u), (R.gens[2], sn), (R.gens[3], cs)])


@settings(max_examples=40, deadline=None)
@given(polys, polys, st.sampled_from(["sin", "cos"]))
def test_one_pass_is_the_direct_route_and_a_ring_map(p, q, prefer):
    red = RED.reduce(p, prefer)
    assert red == RED.reduce_passes(p, prefer)
    pos = RED.positions(prefer)
    assert all(m[i] < 2 for m in red.itermonoms() for i in pos)
    assert RED.reduce(p * q, prefer) == RED.reduce(red * RED.reduce(q, prefer), prefer)


@settings(max_examples=30, deadline=None)
@given(polys, st.integers(-5, 5), st.integers(-5, 5), st.sampled_from(["sin", "cos"]))
def test_reduction_keeps_values_on_the_variety(p, t, u, prefer):
    assert _value(RED.reduce(p, prefer), t, u) == _value(p, t, u)


def test_sub_square_is_division_by_the_relation():
    """p - sub_square(p) is a multiple of g^2 - rep."""
    p = R.from_expr(r**5 * x + 3 * r**2 - r)
    rep = R.from_expr(x + 1)
    q, rem = (p - sub_square(p, 0, rep)).div(R.gens[0] ** 2 - rep)
    assert not rem


def test_the_algebra_delegates_to_its_reducer():
    e = sp.sqrt(1 + x**2) * sp.sin(s) ** 3 + sp.cos(s) ** 2
    alg = RationalAlgebra([e])
    n, _ = alg.fraction(e**2)
    assert OldPath is RelationReducer
    assert alg.reduce(n) == alg.reducer.reduce(n) == alg._reduce_passes(n)
    assert alg.sqrt_rel == alg.reducer.roots and alg.trig_idx == alg.reducer.trig


big_polys = st.dictionaries(st.tuples(*[st.integers(0, 6)] * 4), st.integers(-9, 9),
                            min_size=FLINT_TERMS, max_size=FLINT_TERMS + 60).map(
    lambda d: R.from_dict({m: c for m, c in d.items() if c}))


@settings(max_examples=10, deadline=None)
@given(big_polys, st.sampled_from(["sin", "cos"]))
def test_large_polynomials_by_division_are_the_direct_route(p, prefer):
    """From FLINT_TERMS terms on, the normal form is taken by flint's division: the same
    polynomial as the direct route (and as the term-by-term pass)."""
    red = RED.reduce(p, prefer)
    assert red == RED.reduce_passes(p, prefer)
    assert _value(red, 2, 3) == _value(p, 2, 3)


@pytest.mark.slow
def test_real_forcing_by_division_is_the_direct_route():
    """The numerator of a Voronets forcing term of the convex body on a plane (a square root
    of the support function, 36860 terms before reduction): both routes agree."""
    import geomech as gm
    from geomech.core.algebra.calculus import RadicalCalculus

    S = gm.examples.convex_body_on_plane()
    F = S.equations("voronets", explicit=False).mass_matrix_form().forcing
    rc = RadicalCalculus(list(F))
    n, _ = rc.alg.fraction(F[-1])
    assert len(n) >= FLINT_TERMS and rc.alg.has_roots
    assert rc.alg.reduce(n) == rc.alg._reduce_passes(n)


# -- the shared tables of monomial normal forms (shared_normal_forms) -----------------------

t2, y = sp.symbols("t2 y")
R2 = polynomial_ring([r, x, y, sp.sin(s), sp.cos(s), sp.sin(t2), sp.cos(t2)])
ROOT2 = [(0, R2.from_expr(x + y**2 * sp.cos(s)))]     # a reduced radicand with a cosine
TRIG2 = [(3, 4), (5, 6)]

polys2 = st.dictionaries(st.tuples(*[st.integers(0, 4)] * 7), st.integers(-9, 9),
                         max_size=12).map(lambda d: R2.from_dict({m: c for m, c in d.items() if c}))


def _fresh(p, prefer):
    """The normal form by a reducer whose table is empty (the shared tables forgotten)."""
    forget_normal_forms()
    return RelationReducer(R2, ROOT2, TRIG2).reduce(p, prefer)


@settings(max_examples=40, deadline=None)
@given(st.lists(polys2, min_size=1, max_size=4), st.sampled_from(["sin", "cos"]))
def test_shared_tables_give_the_fresh_normal_form(ps, prefer):
    """Reducers built one after the other (as compact builds one per call) share their
    monomial normal forms; each result is the one of a fresh reducer and of the direct route,
    whatever was reduced before."""
    warm = [RelationReducer(R2, ROOT2, TRIG2).reduce(p, prefer) for p in ps]
    again = [RelationReducer(R2, ROOT2, TRIG2).reduce(p, prefer) for p in reversed(ps)]
    assert warm == again[::-1]
    assert warm == [_fresh(p, prefer) for p in ps]
    assert warm == [RelationReducer(R2, ROOT2, TRIG2).reduce_passes(p, prefer) for p in ps]


big_polys2 = st.dictionaries(st.tuples(*[st.integers(0, 5)] * 7), st.integers(-9, 9),
                             min_size=FLINT_TERMS, max_size=FLINT_TERMS + 40).map(
    lambda d: R2.from_dict({m: c for m, c in d.items() if c}))


@settings(max_examples=8, deadline=None)
@given(big_polys2, big_polys2, st.sampled_from(["sin", "cos"]))
def test_large_polynomials_give_the_fresh_normal_form(p, q, prefer):
    """The same for the python-flint route of large polynomials (the remainder on division
    by the relations, a Gröbner basis, is the direct route's)."""
    RelationReducer(R2, ROOT2, TRIG2).reduce(q, prefer)
    got = RelationReducer(R2, ROOT2, TRIG2).reduce(p, prefer)
    assert got == _fresh(p, prefer) == RelationReducer(R2, ROOT2, TRIG2).reduce_passes(p, prefer)


def test_the_same_relations_share_one_table_and_others_do_not():
    a, b = RelationReducer(R2, ROOT2, TRIG2), RelationReducer(R2, ROOT2, TRIG2)
    other = RelationReducer(R2, [(0, R2.from_expr(x))], TRIG2)
    key = a.relation_key("sin")
    assert key == b.relation_key("sin") != other.relation_key("sin")
    assert key != a.relation_key("cos")
    assert shared_normal_forms(key) is shared_normal_forms(b.relation_key("sin"))
    assert shared_normal_forms(key) is not shared_normal_forms(other.relation_key("sin"))


def test_the_shared_tables_are_bounded(monkeypatch):
    """At most SHARED_TABLES tables (least recently used dropped), at most SHARED_TABLE_SIZE
    entries each; results are unchanged when a table is full."""
    from geomech.core.algebra import reduction

    monkeypatch.setattr(reduction, "SHARED_TABLES", 3)
    monkeypatch.setattr(reduction, "SHARED_TABLE_SIZE", 2)
    forget_normal_forms()
    red = RelationReducer(R2, ROOT2, TRIG2)
    first = shared_normal_forms(red.relation_key("sin"))
    p = R2.from_expr(sum(sp.cos(s) ** k * sp.cos(t2) ** (6 - k) * r ** (k % 3) for k in range(7)))
    assert red.reduce(p) == red.reduce_passes(p)
    assert len(first) <= 2
    keys = [RelationReducer(R2, [(0, R2.from_expr(x + k))], TRIG2).relation_key("sin")
            for k in range(5)]
    tables = [shared_normal_forms(k) for k in keys]
    assert shared_normal_forms(keys[-1]) is tables[-1]       # recent: kept
    assert shared_normal_forms(red.relation_key("sin")) is not first   # oldest: dropped
    forget_normal_forms()


def test_threads_share_the_tables_exactly():
    """Report analyses run in threads: concurrent reductions with one shared table give the
    fresh normal forms."""
    from concurrent.futures import ThreadPoolExecutor

    ps = [R2.from_expr((sp.cos(s) ** k + r * sp.sin(t2) ** (k + 1) + y) ** 3) for k in range(8)]
    forget_normal_forms()
    want = [RelationReducer(R2, ROOT2, TRIG2).reduce_passes(p) for p in ps]
    forget_normal_forms()
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda p: RelationReducer(R2, ROOT2, TRIG2).reduce(p), ps * 3))
    assert got == want * 3
