"""The Jacobiator of the Prop. 7 bracket (Borisov & Mamaev (2015), App. C.1) at an exact
point with the inverse Legendre map unexpanded (``implicit_jacobiator``) agrees with sympy's
evaluation of the Jacobiator of the built form at the same point; it vanishes for
constraints that are holonomic in disguise (a Poisson bracket), and is non-zero, exactly,
for the rattleback (no Hamiltonian structure of this kind: Borisov & Mamaev 2003)."""

from __future__ import annotations

import itertools

import pytest
import sympy as sp

import geomech as gm
import geomech.mechanics.analysis.pseudo_hamiltonian as ph


def _sympy_value(e, pt, ang):
    trig = {}
    for a, (c, s) in ang.items():
        trig[sp.sin(a)], trig[sp.cos(a)] = s, c
    return sp.nsimplify(sp.simplify(sp.expand_trig(e).subs(trig).subs(pt)))


@pytest.mark.parametrize("name", ["chaplygin_sleigh", "rubber_ball", "chaplygin_ball",
                                  "particle_holonomic_in_disguise"])
def test_exact_point_jacobiator_agrees_with_the_built_form(name):
    S = gm.examples.get(name)
    pt, ang, vals = ph.implicit_jacobiator(S, seed=3)
    form = ph.system_pseudo_hamiltonian(S)
    X, P = S.manifold.coords, form.momenta
    for x in X:
        for s, r in itertools.combinations(P, 2):
            e = form.structure.jacobiator_component(x, s, r)
            assert sp.simplify(_sympy_value(e, pt, ang) - vals.get((x, s, r), 0)) == 0


def test_holonomic_in_disguise_gives_a_poisson_bracket():
    S = gm.examples.get("particle_holonomic_in_disguise")
    assert ph.implicit_jacobiator(S)[2] == {}
    assert ph.system_pseudo_hamiltonian(S).satisfies_jacobi()


def test_nonintegrable_constraints_give_a_nonzero_jacobiator():
    S = gm.examples.get("chaplygin_sleigh")
    assert ph.implicit_jacobiator(S)[2]
    assert not ph.system_pseudo_hamiltonian(S).satisfies_jacobi()


def test_rattleback_jacobiator_is_nonzero_at_an_exact_point():
    """Square roots in the frame: values in Q(sqrt d); agrees with the Frobenius test (the
    components vanish iff every d^mu_sr does, the frame being independent)."""
    S = gm.examples.get("rattleback")
    _, _, vals = ph.implicit_jacobiator(S)
    assert vals and all(v != 0 for v in vals.values())
    assert any(p.exp == sp.S.Half for v in vals.values() for p in v.atoms(sp.Pow))
    assert S.constraint_distribution().frobenius().involutive is False


@pytest.mark.slow
def test_ellipsoid_exact_point_jacobiator_agrees_with_the_built_form():
    """Square roots: the built form (ring route) against the exact-point values."""
    S = gm.examples.get("ellipsoid")
    pt, ang, vals = ph.implicit_jacobiator(S, seed=5)
    form = ph.system_pseudo_hamiltonian(S)
    x, (s, r) = S.manifold.coords[0], form.momenta[:2]
    e = form.structure.jacobiator_component(x, s, r)
    got = sp.N(e.subs({**{sp.sin(a): si for a, (_, si) in ang.items()},
                      **{sp.cos(a): c for a, (c, _) in ang.items()}}).subs(pt), 30)
    assert abs(got - sp.N(vals.get((x, s, r), 0), 30)) < 1e-20 * (1 + abs(got))
