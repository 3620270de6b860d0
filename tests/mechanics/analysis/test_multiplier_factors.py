"""The default multiplier family (Chaplygin 1912): the irreducible factors of det A and of
sigma, found with the known factors divided out first, equal those of factoring every
numerator and denominator on its own."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.mechanics.analysis.density_search import irreducible_factors
from geomech.mechanics.analysis.multiplier import multiplier_factors

u, v, k = sp.symbols("u v k")
s, c = sp.sin, sp.cos
POOL = [1 + k * c(u)**2, 2 + s(u), u**2 + v + 1, k + c(v), 3 - c(u) * c(v), u - v,
        1 + s(u) * c(v) + k * c(u)]


def _reference(A, sigma, z) -> list:
    """Each numerator and denominator factored separately (irreducible_factors)."""
    out: list = []
    for e in (A.det(method="berkowitz"), *sigma):
        for f in irreducible_factors(e, z):
            if f not in out and sp.expand(-f) not in out:
                out.append(f)
    return sorted(out, key=lambda f: (sp.count_ops(f), sp.default_sort_key(f)))


def _product(idx, exps):
    return sp.Mul(*[POOL[i] ** e for i, e in zip(idx, exps)])


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(0, len(POOL) - 1), min_size=2, max_size=3),
       st.lists(st.integers(1, 2), min_size=3, max_size=3),
       st.lists(st.integers(0, len(POOL) - 1), min_size=1, max_size=2))
def test_factors_agree_with_factoring_each_part(idx, exps, idx2):
    A = sp.diag(sp.expand(_product(idx, exps)), 1 + u**2)
    sigma = (sp.expand(_product(idx2, exps)) / sp.expand(_product(idx[:2], exps[1:])),
             sp.expand(s(u)**2 * _product(idx2[:1], [2])))
    assert multiplier_factors(A, sigma, [u, v]) == _reference(A, sigma, [u, v])


@pytest.mark.parametrize("extra", [sp.exp(u), sp.sqrt(1 + v**2)])
def test_non_polynomial_parts_fall_back(extra):
    A = sp.diag(1 + u**2, 1)
    sigma = (u / (1 + u**2) * extra, 0)
    assert multiplier_factors(A, sigma, [u, v]) == _reference(A, sigma, [u, v])
