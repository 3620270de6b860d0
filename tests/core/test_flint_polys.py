"""gcd, cancellation and factorisation through python-flint equal sympy's own results.

``poly_gcd``, ``poly_lcm``, ``poly_cancel``, ``poly_div`` and ``poly_factor_list``
(:mod:`geomech.core.flintpolys`) must return exactly what ``PolyElement.gcd``, ``.cancel``,
``.div`` and ``.factor_list`` return (the latter up to the order of the factors), on random
polynomials over QQ with common factors, rational coefficients, monomial and constant factors.
"""

from __future__ import annotations

from collections import Counter

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.polys.rings import ring

from geomech.core import flintpolys
from geomech.core.flintpolys import (
    poly_cancel,
    poly_div,
    poly_factor_list,
    poly_gcd,
    poly_lcm,
)

R, *G = ring("a b s c", sp.QQ)

terms = st.tuples(st.integers(-6, 6).filter(bool), st.integers(1, 4),
                  st.lists(st.integers(0, 2), min_size=4, max_size=4))
polys = st.lists(terms, min_size=1, max_size=4).map(
    lambda ts: sum((R.domain.convert(n) / R.domain.convert(d)
                    * G[0] ** e[0] * G[1] ** e[1] * G[2] ** e[2] * G[3] ** e[3]
                    for n, d, e in ts), R.zero))


@settings(max_examples=50, deadline=None)
@given(polys, polys, polys)
def test_gcd_and_cancel_are_sympys(f, g, h):
    f, g = f * h, g * h
    assert poly_gcd(f, g) == f.gcd(g)
    assert poly_cancel(f, g) == f.cancel(g)
    assert poly_cancel(-f, g) == (-f).cancel(g)
    # the exponents are Python ints, as in sympy's own elements (they are used as powers)
    assert all(type(e) is int for p in poly_cancel(f, g) for m in p.keys() for e in m)


@settings(max_examples=50, deadline=None)
@given(polys, polys, polys)
def test_division_is_sympys(f, g, h):
    n = f * g + h                      # exact (h = 0) and inexact divisions
    if not g:
        return
    q, r = poly_div(n, g)
    assert (q, r) == n.div(g)
    assert q * g + r == n


@settings(max_examples=40, deadline=None)
@given(polys, polys, st.integers(1, 2))
def test_factor_list_is_sympys(f, g, k):
    p = f * g ** k
    if not p:
        return
    c1, f1 = poly_factor_list(p)
    c2, f2 = p.factor_list()
    assert c1 == c2
    assert Counter(f1) == Counter(f2)


def test_without_flint_the_methods_are_used(monkeypatch):
    monkeypatch.setattr(flintpolys, "_MPOLY", False)
    a, b = G[:2]
    f, g = (a - b) * (a + 1) / 3, (a - b) * (b + 2)
    assert poly_cancel(f, g) == f.cancel(g)
    assert poly_gcd(f, g) == f.gcd(g) == a - b
    assert poly_div(f, a - b) == f.div(a - b)


@settings(max_examples=25, deadline=None)
@given(polys, polys, polys)
def test_product_is_sympys(f, g, h):
    """From MUL_TERMS term pairs on the product is flint's: the same element (exponents
    Python ints)."""
    F, H = (f + g + 1) ** 3, (g - h + 2) ** 3
    prod = flintpolys.poly_mul(F, H)
    assert prod == F * H
    assert flintpolys.poly_mul(f, g) == f * g
    assert all(type(e) is int for m in prod.keys() for e in m)


@settings(max_examples=20, deadline=None)
@given(st.lists(polys, min_size=12, max_size=12))
def test_laplace_minors_with_flint_products_are_the_same(entries):
    """Cramer's rule of LaplaceMinors with flint's products (poly_mul) is the one with
    sympy's products, and det M x = adj(M) b holds."""
    from geomech.core.algebra.solve import LaplaceMinors
    from geomech.core.flintpolys import poly_mul

    rows = [entries[4 * i:4 * i + 4] for i in range(3)]
    saved, flintpolys.MUL_TERMS = flintpolys.MUL_TERMS, 0     # every product by flint
    try:
        nums, det = LaplaceMinors(rows, R.zero, mul=poly_mul).cramer()
    finally:
        flintpolys.MUL_TERMS = saved
    assert (nums, det) == LaplaceMinors(rows, R.zero).cramer()
    for i in range(3):
        assert sum((rows[i][j] * nums[j] for j in range(3)), R.zero) == det * rows[i][3]


@settings(max_examples=50, deadline=None)
@given(polys, polys, polys)
def test_lcm_is_sympys(f, g, h):
    """``poly_lcm`` (flint's gcd, product and exact quotient) is ``PolyElement.lcm``, with a
    common factor and without."""
    if not (f and g and h):
        return
    assert poly_lcm(f * h, g * h) == (f * h).lcm(g * h)
    assert poly_lcm(f, g) == f.lcm(g)


@settings(max_examples=40, deadline=None)
@given(polys, st.permutations(range(4)))
def test_conversion_in_another_variable_order(f, order):
    """``to_fmpq_mpoly`` with an ``order`` is the plain conversion with its variables
    permuted by flint's ``compose``; ``from_fmpq_mpoly`` with the same ``order`` inverts it
    (exponents as Python ints)."""
    from geomech.core.flintpolys import from_fmpq_mpoly, qq_context, to_fmpq_mpoly

    order = tuple(order)
    G = qq_context(4).gens()
    where = {g: v for v, g in enumerate(order)}
    g = to_fmpq_mpoly(f, order=order)
    assert g == to_fmpq_mpoly(f).compose(*[G[where[i]] for i in range(4)])
    back = from_fmpq_mpoly(R, g, order)
    assert back == f
    assert all(type(e) is int for m in back.keys() for e in m)
