"""Hypothesis strategies: random polynomial / trigonometric fields and forms on R^2..R^5."""

from __future__ import annotations

import itertools

import sympy as sp
from hypothesis import strategies as st

from geomech.core import Manifold

_MANIFOLDS: dict[int, Manifold] = {n: Manifold(f"R{n}", [f"x{i}" for i in range(n)])
                                   for n in range(2, 6)}


def manifold(n: int) -> Manifold:
    """The shared chart R^n used by the property tests."""
    return _MANIFOLDS[n]


def _monomial(draw, coords, trig: bool) -> sp.Expr:
    """A small monomial: coefficient * x_i^a * x_j^b, or a sin/cos factor."""
    c = draw(st.integers(-3, 3).filter(lambda v: v != 0))
    i = draw(st.integers(0, len(coords) - 1))
    j = draw(st.integers(0, len(coords) - 1))
    a = draw(st.integers(0, 2))
    b = draw(st.integers(0, 1))
    term = c * coords[i] ** a * coords[j] ** b
    if trig and draw(st.booleans()):
        k = draw(st.integers(0, len(coords) - 1))
        term *= draw(st.sampled_from([sp.sin, sp.cos]))(coords[k])
    return term


@st.composite
def functions(draw, n: int, trig: bool = True, max_terms: int = 3) -> sp.Expr:
    """A polynomial (optionally with sin/cos factors) function on R^n."""
    coords = manifold(n).coords
    k = draw(st.integers(0, max_terms))
    return sp.Add(*[_monomial(draw, coords, trig) for _ in range(k)])


@st.composite
def vector_fields(draw, n: int, trig: bool = True):
    """A vector field on R^n with polynomial/trig components."""
    M = manifold(n)
    return M.vector_field([draw(functions(n, trig, max_terms=2)) for _ in range(n)])


@st.composite
def forms(draw, n: int, degree: int, trig: bool = True):
    """A differential form of the given degree on R^n."""
    M = manifold(n)
    comps = {}
    for idx in itertools.combinations(range(n), degree):
        if draw(st.booleans()):
            comps[idx] = draw(functions(n, trig, max_terms=2))
    return M.form(degree, comps)


dims = st.integers(2, 5)
