"""Growth vectors of the balls' constraint distributions from the catalogue systems, with the
work the bracket graph does (counts, not seconds): Chaplygin ball (3, 5), rubber ball
(2, 3, 5) (Borisov & Mamaev (2015), §4.3), each from at most three new brackets (the graph
may be shared), none when asked again."""

from __future__ import annotations

import pytest

import geomech as gm


@pytest.mark.parametrize("name, growth", [("chaplygin_ball", (3, 5)),
                                          ("rubber_ball", (2, 3, 5))])
def test_ball_growth_vector_costs_three_brackets(name, growth):
    S = gm.examples.get(name)
    D = S.constraint_distribution()
    G = gm.BracketGraph.of(S.manifold)
    before = G.stats["computed"]
    assert D.growth_vector() == growth
    # (3, 5): the three [X_i, X_j]; (2, 3, 5): [X1, X2], [X1, [X1, X2]], [X2, [X1, X2]]
    assert G.stats["computed"] - before <= 3
    assert S.constraint_distribution().growth_vector() == growth
    assert G.stats["computed"] - before <= 3
