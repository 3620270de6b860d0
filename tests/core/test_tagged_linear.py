"""One tagged polynomial per linear form (geomech.core.algebra.linear_forms / reduction).

Oracles: the normal form of :math:`F=\\sum_j \\tau^j p_j` by one flint division per relation
equals the per-unknown normal forms :math:`\\sum_j \\tau^j NF(p_j)` (the reduction is linear
over :math:`\\mathbb Q[\\tau]`; the reference is the cached term-by-term route, itself checked
against the direct substitutions in test_reduction.py); the tagged numerators of a linear
form are the per-unknown numerators; and the exact solutions of
:func:`~geomech.mechanics.analysis.ansatz.solve_linear_identities` annihilate every equation
with a count equal to the nullity of an independent exact evaluation matrix (values at
rational points of the circle and of :math:`w^2 = 1 + y^2`).
"""

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core.algebra.linear_forms import (
    linear_fraction,
    linear_fraction_memo,
    tagged_linear_fraction,
)
from geomech.core.algebra.reduction import RelationReducer
from geomech.core.algebra.rings import RationalAlgebra, polynomial_ring
from geomech.core.flintpolys import qq_context
from geomech.mechanics.analysis.ansatz import solve_linear_identities

x, y, s, r, k = sp.symbols("x y s r k")
R = polynomial_ring([r, x, sp.sin(s), sp.cos(s)])
RED = RelationReducer(R, roots=[(0, R.from_expr(x**2 + 1))], trig=[(2, 3)])

polys = st.dictionaries(st.tuples(*[st.integers(0, 4)] * 4), st.integers(-9, 9),
                        max_size=12).map(lambda d: R.from_dict({m: c for m, c in d.items() if c}))


def _tagged(vec: dict, order: tuple):
    ctx = qq_context(R.ngens + 1)
    return ctx.from_dict({(*(m[i] for i in order), j): c for j, p in vec.items()
                          for m, c in p.items()})


@settings(max_examples=40, deadline=None)
@given(st.lists(polys, min_size=1, max_size=4), st.sampled_from(["sin", "cos"]))
def test_one_division_per_relation_is_the_per_unknown_reduction(ps, prefer):
    order = RED.division_order(prefer)
    vec = dict(enumerate(ps))
    got = RED.reduce_division(_tagged(vec, order), order, prefer)
    want = _tagged({j: RED.reduce(p, prefer) for j, p in vec.items()}, order)
    assert got == want


factors = st.sampled_from([sp.Integer(1), x, x**2 - 3, sp.sin(s), sp.cos(s) ** 3,
                           sp.sin(s) ** 2 * x, sp.sqrt(1 + x**2), sp.sqrt(1 + x**2) ** 3,
                           x / sp.sqrt(1 + x**2), sp.cos(s) / (1 + x**2),
                           sp.Rational(2, 7) * sp.sin(s) * sp.sqrt(1 + x**2)])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), factors, factors), min_size=1, max_size=6))
def test_tagged_numerators_are_the_per_unknown_numerators(terms):
    cs = sp.symbols("c0:4")
    e = sp.Add(*[c * f * g for j, f, g in terms for c in [cs[j]]])
    alg = RationalAlgebra([e], exclude=cs)
    conv = linear_fraction_memo(alg, cs)
    vec, d = linear_fraction(alg, e, cs, conv)
    F, d2, order = tagged_linear_fraction(alg, e, cs, conv)
    ctx = qq_context(alg.ring.ngens + 1)
    want = ctx.from_dict({(*(m[i] for i in order), j): c for j, p in vec.items()
                          for m, c in p.items()})
    assert d2 == d and F == want


def _circle(t):
    return sp.Rational(2 * t, 1 + t * t), sp.Rational(1 - t * t, 1 + t * t)


def test_solutions_annihilate_the_equations_and_span_the_null_space():
    """A family of 12 unknowns with a parameter (the two-stage solve): every solution is an
    exact identity, and their number is the nullity of the exact evaluation matrix."""
    w = sp.sqrt(1 + y**2)
    funcs = [1, sp.sin(s), sp.cos(s), sp.sin(s) ** 2, sp.cos(s) ** 2, y, k * y, w, k * w,
             y * w, w**3, (1 + y**2) * w]
    cs = sp.symbols("c0:12")
    e1 = sp.Add(*[c * f for c, f in zip(cs, funcs)])
    e2 = (cs[0] + cs[3] + cs[4]) * sp.cos(s) + (cs[5] - k * cs[6]) * x
    sols = solve_linear_identities([e1, e2], cs, keep=[k])
    for sol in sols:
        for e in (e1, e2):
            v = e.xreplace(sol)
            alg = RationalAlgebra([v])
            n, _ = alg.fraction(v)
            assert not alg.reduce(n)
    # independent rank: values at points with sin, cos rational and w = sqrt(1 + y^2) rational
    rows = []
    for t, u, xv in [(2, 3, 5), (3, 5, 7), (5, 2, 11), (7, 4, 2), (4, 7, 3), (6, 11, 13),
                     (9, 8, 17), (11, 6, 19), (13, 10, 23), (8, 13, 29), (10, 3, 31),
                     (12, 5, 37), (15, 4, 41)]:
        sn, cn = _circle(t)
        yv = sp.Rational(u * u - 1, 2 * u)
        pt = {sp.sin(s): sn, sp.cos(s): cn, w: sp.Rational(u * u + 1, 2 * u), y: yv, x: xv}
        for e in (e1, e2):
            rows.append([sp.diff(e, c).subs(pt).subs(w, pt[w]) for c in cs])
    rank_lower = sp.Matrix(rows).rank()
    assert len(sols) <= len(cs) - rank_lower        # the solutions are independent ...
    assert len(sols) == len(cs) - rank_lower        # ... and span (the rank is attained)
    assert sp.Matrix([[sol[c] for c in cs] for sol in sols]).rank() == len(sols)
