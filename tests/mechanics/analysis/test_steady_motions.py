"""Steady motions: declared families verified, families found by solving the reduced
equations, states of a family, and the stability diagram of the disk."""

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.steady_motions import (
    SteadyFamily,
    find_steady_families,
    verify_family,
)

zero = default_policy().is_zero


def test_disk_families_and_the_classical_relation():
    D = gm.examples.rolling_disk()
    fams = D.steady_motions()
    names = [f.name for f in fams]
    assert names[:3] == ["upright rolling", "spin about a vertical diameter",
                         "steady precession"]
    m, a, A, C, g = D.manifold.parameters
    th0, W, w = fams[2].constants
    (rel,) = fams[2].relations
    classical = (A * W**2 * sp.sin(th0) * sp.cos(th0)
                 - (C + m * a**2) * (W * sp.cos(th0) + w) * W * sp.sin(th0)
                 - m * g * a * sp.cos(th0))
    assert zero(rel - classical)
    assert all(verify_family(D, f) for f in fams)


def test_the_search_finds_the_classical_relation_by_itself():
    """Without the declarations the reduced equations give one family theta0, psidot0,
    phidot0 with the same relation."""
    D = gm.examples.rolling_disk()
    (found,) = find_steady_families(D)
    th0, psd0, phd0 = found.constants
    (rel,) = found.relations
    m, a, A, C, g = D.manifold.parameters
    classical = (A * psd0**2 * sp.sin(th0) * sp.cos(th0)
                 - (C + m * a**2) * (psd0 * sp.cos(th0) + phd0) * psd0 * sp.sin(th0)
                 - m * g * a * sp.cos(th0))
    assert zero(sp.cancel(rel / classical) - sp.cancel(rel / classical).subs(th0, 1)) \
        and not sp.cancel(rel / classical).has(th0, psd0, phd0)


def test_sleigh_search_gives_straight_runs_and_circles_only_for_a_zero():
    (runs,) = find_steady_families(gm.examples.chaplygin_sleigh())
    assert [c.name for c in runs.constants] == ["v0"]
    (all_,) = find_steady_families(gm.examples.chaplygin_sleigh(a=0))
    assert [c.name for c in all_.constants] == ["v0", "omega0"]


def test_states_of_a_family():
    D = gm.examples.rolling_disk()
    st = D.steady_motion("steady precession", theta0=sp.pi / 3, Omega=2)
    assert st["theta"] == sp.pi / 3 and st["psidot"] == 2
    fam = D.steady_motions(search=False)[2]
    assert zero(fam.relations[0].subs({fam.constants[0]: sp.pi / 3, fam.constants[1]: 2,
                                       fam.constants[2]: st["phidot"]}))
    with pytest.raises(ValueError, match="needs a value for omega"):
        D.steady_motion()
    with pytest.raises(ValueError, match="not constant"):
        D.steady_motion(speed=1)
    with pytest.raises(ValueError, match="not a family"):
        D.steady_motion("tumbling", omega=1)
    with pytest.raises(ValueError, match="violate the relation"):
        D.steady_motion("steady precession", theta0=1, Omega=1, omega=0)


def test_a_wrong_declaration_is_caught():
    S = gm.examples.chaplygin_sleigh()
    bad = SteadyFamily("turning", (sp.Symbol("w"),),
                       {"x": 0, "y": 0, "phi": 0, "xdot": 1, "phidot": sp.Symbol("w")})
    assert not verify_family(S, bad)
    with pytest.raises(TypeError, match="SteadyFamily"):
        gm.NonholonomicSystem(S.manifold, S.lagrangian, S.constraints, steady=[{"a": 1}])


def test_disk_stability_diagram_crosses_at_the_critical_spin():
    vals = {"m": 1.0, "a": 0.5, "A": 0.0625, "C": 0.125, "g": 9.81}
    d = gm.examples.rolling_disk().stability_diagram("omega", np.linspace(0.5, 8, 151),
                                                     parameters=vals)
    crit = np.sqrt(vals["m"] * vals["g"] * vals["a"] * vals["A"]
                   / ((vals["C"] + vals["m"] * vals["a"]**2) * vals["C"]))
    (x,) = d.crossings()
    assert x == pytest.approx(crit, rel=2e-2)          # grid resolution
    # Brent's method on the evaluator: limited by the double root at the threshold (the
    # roots meet there; a double eigenvalue is computed to about sqrt(machine epsilon))
    (y,) = d.refined_crossings()
    assert y == pytest.approx(crit, rel=1e-6)
    assert d.eigenvalues.shape == (151, 4)
    fig = d.plot(imaginary=True)
    assert fig.axes[0].get_xlabel() == "omega"


def test_found_families_sit_where_the_chart_is_regular():
    """The Suslov problem in Z-X-Z Euler angles: every angle is cyclic, and at theta = 0
    the kinematics is singular (the chart gave psidot = zoo*omega20, then a 'nan' rate).
    The families are placed at a regular value of the cyclic coordinates, every state is
    finite and verified, and the permanent rotations satisfy Suslov's (1902) relation
    I13 omega1 + I23 omega2 = 0."""
    S = gm.examples.suslov()
    fams = find_steady_families(S)
    assert fams
    for fam in fams:
        assert not any(sp.sympify(v).has(sp.zoo, sp.nan, sp.oo) for v in fam.state.values())
        assert verify_family(S, fam)
    I13, I23 = (p for p in S.manifold.parameters if p.name in ("I13", "I23"))
    rotations = [f for f in fams if f.relations]
    assert rotations and any(
        zero(sp.Poly(r, *f.constants).coeff_monomial(f.constants[0]) - I13)
        or zero(sp.Poly(r, *f.constants).coeff_monomial(f.constants[0]) + I13)
        for f in rotations for r in f.relations)
