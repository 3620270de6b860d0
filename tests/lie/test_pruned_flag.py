"""The Lie flag forms only the brackets [X_a, W] of the generators with the new basis words
(issue 22): the same growth vectors as the literal routes (every Lyndon or right-normed word),
certain, with far fewer brackets; on the car with N trailers (Laumond 1993; Sørdalen 1993)."""

from __future__ import annotations

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.lie.distribution import Distribution
from geomech.lie.graph import BracketGraph

from .conftest import chart
from .reference_systems import trailer_fields


def test_trailers_growth_is_certain_with_two_brackets_per_step():
    for N in (2, 3):
        M, fields = trailer_fields(N)
        G = BracketGraph(M)
        D = Distribution(fields, graph=G)
        g = D.growth_vector()
        assert g == tuple(range(2, N + 4)) and g.certain
        assert G.stats["computed"] == 2 * N          # [X1,W], [X2,W] per step, last cut
        G2 = BracketGraph(M)
        lit = Distribution(fields, graph=G2).growth_vector(basis="lyndon")
        assert lit == g and G2.stats["words"] > G.stats["words"]


@st.composite
def angle_fields(draw, n: int):
    xs = chart(n).coords

    def comp():
        out = sp.S.Zero
        for _ in range(draw(st.integers(0, 2))):
            t = draw(st.integers(-2, 2).filter(bool)) * xs[draw(st.integers(0, n - 1))] \
                ** draw(st.integers(0, 1))
            i, j = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
            t *= draw(st.sampled_from([sp.sin, sp.cos]))(xs[i] - xs[j])
            out += t
        return out

    return chart(n).vector_field([comp() for _ in range(n)])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(angle_fields(3), angle_fields(3))
def test_pruned_flag_agrees_with_the_literal_flag_on_difference_angles(X, Y):
    if X.is_zero() or Y.is_zero():
        return
    D = Distribution([X, Y], graph=BracketGraph(chart(3)))
    g = D.growth_vector(max_depth=3)
    assert g == D.growth_vector(basis="right-normed", max_depth=3)
    assert g.certain
