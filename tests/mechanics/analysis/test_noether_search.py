"""One Noether search (Theorem 4, Kozlov & Kolesnikov (1978); Borisov & Mamaev (2015), §5.1)
behind both public entry points: the search with tangent generators
(``find_noether_fields``) and the ansatz search on a system
(``noether_fields`` / ``linear_integrals``) agree on the catalogue, and every momentum they
find is conserved along the Lagrange--d'Alembert flow (an independent derivation)."""

from __future__ import annotations

import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.ansatz import Ansatz
from geomech.mechanics.analysis.kozlov_kolesnikov import check_noether_field, find_noether_fields
from geomech.mechanics.analysis.noether import linear_integrals, noether_fields

CATALOGUE = {
    "sleigh": lambda: gm.examples.chaplygin_sleigh(a=0),
    "disk": gm.examples.rolling_disk,
    "snakeboard": gm.examples.snakeboard,
    "chaplygin_ball": gm.examples.chaplygin_ball,
    "rubber_ball": gm.examples.rubber_ball,
}


def _rank(rows) -> int:
    return default_policy().rank(sp.Matrix(rows)) if rows else 0


def _generator_family(S) -> Ansatz:
    """The coordinate ansatz that contains every constant combination of the frame of D."""
    N = S.manifold
    frame = S.adapted_frame()[0]
    return Ansatz({q: tuple(dict.fromkeys(t.components[i] for t in frame
                                          if t.components[i] != 0))
                   for i, q in enumerate(N.coords)})


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_both_entry_points_find_the_same_noether_fields(name):
    S = CATALOGUE[name]()
    raw = [u for u, _ in find_noether_fields(S)]
    found = noether_fields(S, ansatz=_generator_family(S))
    rows = [list(u.components) for u in found]
    # the generator family lies in the coordinate family; on the catalogue both searches
    # find the same span of Noether fields
    assert _rank(rows) == _rank(raw) == _rank(rows + raw)
    for u in found:
        chk = check_noether_field(S, u)
        assert chk.is_noether and chk.tangent
        assert check_noether_field(S, u.components)
        assert S.is_first_integral(chk.integral_on_M)
    for u in raw:
        assert check_noether_field(S, u).is_noether


def test_a_wrong_solution_is_never_returned():
    """A template whose determining equations are inconsistent gives no field; a Noether
    field that the ansatz contains is found with its conserved momentum."""
    S = gm.examples.chaplygin_sleigh()                 # a != 0: no linear integral
    assert noether_fields(S, ansatz=[1]) == []
    S0 = gm.examples.chaplygin_sleigh(a=0)
    (F,) = linear_integrals(S0, ansatz=[1])
    assert F.verified and S0.is_first_integral(F.on_phase_space)


# -- the sampled support (Theorem 4 conditions at exact points) -------------------------
SAMPLED = ["chaplygin_ball", "routh_sphere", "rubber_ball", "sharp_edge_body", "skate",
           pytest.param("snakeboard", marks=pytest.mark.slow),      # 40 s
           "particle_holonomic_in_disguise", "suslov", "hoop"]


@pytest.mark.parametrize("name", SAMPLED)
def test_sampled_support_gives_the_fields_of_the_ring_route(name):
    """The default-ansatz search cut down to the support of the sampled conditions returns
    exactly the fields of the exact ring route on the whole template (same reduced basis),
    and the sampled dimension bounds their number."""
    from geomech.mechanics.analysis.ansatz import coerce_ansatz
    from geomech.mechanics.analysis.kozlov_kolesnikov import (
        noether_template_fields,
        sampled_noether_support,
    )

    S = gm.examples.get(name)
    comps, unknowns = coerce_ansatz(S, None).template(S.manifold)
    ring = noether_template_fields(S, comps, unknowns, sample=False)
    sampled = noether_template_fields(S, comps, unknowns, sample=True)
    assert sampled == ring
    m, _ = sampled_noether_support(S, comps, unknowns)
    assert m >= len(ring)


@pytest.mark.parametrize("name", ["ball_on_surface_of_revolution", "rattleback"])
def test_heavy_bodies_have_no_constant_noether_field_in_the_default_ansatz(name):
    """Heavy bodies (square roots in L): the sampled conditions have a zero null space
    (certain: no linear Noether integral in the default ansatz), as the ring route finds for
    the ball in a surface of revolution; the rattleback's angular momentum about the
    vertical is not conserved (Walker 1896: the spin reverses)."""
    from geomech.mechanics.analysis.ansatz import coerce_ansatz
    from geomech.mechanics.analysis.kozlov_kolesnikov import (
        noether_template_fields,
        sampled_noether_support,
    )

    S = gm.examples.get(name)
    comps, unknowns = coerce_ansatz(S, None).template(S.manifold)
    assert sampled_noether_support(S, comps, unknowns)[0] == 0
    assert linear_integrals(S) == []
    if name != "rattleback":
        assert noether_template_fields(S, comps, unknowns, sample=False) == []
