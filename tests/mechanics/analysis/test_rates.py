"""The rate of a function along the flow from the mass-matrix form in the radical ring
(analysis/rates.py), against independent derivations: the derivative along the explicit
field (exactly, small systems) and plain sympy derivatives of ``S.equations("voronets").rhs``
at a random rational point (floats, the rolling ellipsoid); conservation of the energy
(Neimark & Fufaev (1972), Ch. III, §1) and the report's Energy section.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.core.zero.radicals import ring_points
from geomech.mechanics.analysis.divergence import RingFraction, flow_mass_matrix_form
from geomech.mechanics.analysis.rates import first_integral_vanishes, mass_matrix_rate

Z = default_policy().is_zero
SMALL = ("chaplygin_sleigh", "rolling_disk", "chaplygin_ball")


def _test_function(S) -> sp.Expr:
    """Energy plus terms that are not integrals: a coordinate, a velocity times a cosine."""
    q = S.phase_space.coords
    return S.energy() + q[0] + S.independent_velocities[-1] * sp.cos(q[1])


@pytest.mark.parametrize("name", SMALL)
def test_ring_rate_equals_the_derivative_along_the_explicit_field(name):
    S = gm.examples.get(name)
    imp = flow_mass_matrix_form(S)
    f = _test_function(S)
    assert Z(mass_matrix_rate(S, f, imp).expr() - imp.time_derivative(f))


@pytest.mark.parametrize("name", SMALL)
def test_energy_is_a_first_integral_and_a_coordinate_is_not(name):
    S = gm.examples.get(name)
    v = first_integral_vanishes(S, S.energy())
    assert v.zero and v.certain
    w = first_integral_vanishes(S, _test_function(S))
    assert w is not None and not w.zero and w.certain


def test_source_is_subtracted():
    """``source = df/dt`` (computed independently, on the explicit field) gives zero."""
    S = gm.examples.chaplygin_sleigh()
    f = _test_function(S)
    rate = S.vector_field()(f)
    assert first_integral_vanishes(S, f, source=rate).zero


def _rate_at(frac: RingFraction, pt: dict) -> float:
    """The value of ``E_0 + E_1 rho`` at ``pt``, with ``rho = sqrt(b(pt))``."""
    e0, e1 = frac.split_at(pt)
    b = RingFraction(frac.calc, frac.calc.roots[0][1], frac.calc.R.one).split_at(pt)[0]
    return float(e0) + float(e1) * math.sqrt(float(b))


@pytest.mark.slow
def test_ellipsoid_energy_conserved_exactly_and_kinetic_energy_not():
    """Rolling ellipsoid (symbolic parameters): dE/dt = 0 is proven in the ring; the kinetic
    energy alone is proven not conserved, and its ring rate agrees at a rational point with
    grad T . rhs from plain sympy derivatives of ``S.equations("voronets").rhs`` (floats)."""
    S = gm.examples.ellipsoid()
    imp = flow_mass_matrix_form(S)
    E = S.energy()
    v = mass_matrix_rate(S, E, imp).verdict()
    assert v.zero and v.certain
    g = next(p for p in S.manifold.parameters if str(p) == "g")
    T = E.subs(g, 0)
    rate = mass_matrix_rate(S, T, imp)
    w = rate.verdict()
    assert w is not None and not w.zero and w.certain
    rhs = S.equations("voronets").rhs
    for pt in ring_points(rate.calc, 1, 17):     # exact sines, cosines and symbols
        want = sum(float((sp.diff(T, x) * rhs[x]).xreplace(pt).evalf(30))
                   for x in S.phase_space.coords if sp.diff(T, x) != 0)
        assert abs(_rate_at(rate, pt) - want) <= 1e-9 * (1 + abs(want))


@pytest.mark.slow
@pytest.mark.parametrize("name", ("ellipsoid", "convex_body_on_plane"))
def test_report_energy_section_of_heavy_bodies_is_exact(name):
    from geomech.reporting.energy import energy_section as _energy_section

    text = "\n".join(t for t, _ in _energy_section(gm.examples.get(name)).lines)
    assert "verified exactly" in text and "numerically" not in text


@pytest.mark.parametrize("name", SMALL)
def test_cofactor_route_agrees_with_the_cofactors_of_m(name):
    """With :math:`w` solving :math:`M^T w = P^T\\nabla f` the rate needs no cofactor of
    :math:`M`; it equals the general route's (an independent derivation): for the energy
    (:math:`w = u`) and for :math:`E^2` (:math:`w = 2Eu`)."""
    S = gm.examples.get(name)
    imp = flow_mass_matrix_form(S)
    E, u = S.energy(), list(S.independent_velocities)
    f = _test_function(S)
    src = imp.time_derivative(f)        # subtracting a non-zero source: a non-zero rate
    for F, w in ((E, u), (E**2, [2 * E * x for x in u])):
        fast = mass_matrix_rate(S, F, imp, source=src, cofactor=w)
        slow = mass_matrix_rate(S, F, imp, source=src)
        assert Z(fast.expr() - slow.expr())
        assert not fast.verdict().zero
        assert mass_matrix_rate(S, F, imp, cofactor=w).verdict().zero


def test_a_wrong_cofactor_is_refused():
    S = gm.examples.rolling_disk()
    imp = flow_mass_matrix_form(S)
    u = list(S.independent_velocities)
    with pytest.raises(ValueError, match="cofactor does not satisfy"):
        mass_matrix_rate(S, S.energy(), imp, cofactor=[2 * x for x in u])
    with pytest.raises(ValueError, match="entries"):
        mass_matrix_rate(S, S.energy(), imp, cofactor=u[:1])


@pytest.mark.parametrize("name", SMALL)
def test_the_system_ring_is_shared_by_the_energy_rate_and_the_divergence(name):
    """One conversion of the forcing (the system's ring) serves the energy rate and the
    divergence; the divergence equals the one computed in a ring of its own."""
    from geomech.mechanics.analysis.divergence import (
        MassMatrixRing,
        mass_matrix_divergence,
        mass_matrix_ring,
    )

    S = gm.examples.get(name)
    mr = mass_matrix_ring(S)
    assert mass_matrix_rate(S, S.energy(), cofactor=S.independent_velocities).is_zero()
    converted = dict(mr._forcing)
    assert converted                       # the energy rate used the system's ring
    shared = mass_matrix_divergence(S)
    assert all(mr._forcing[i] is converted[i] for i in converted)     # not converted again
    own = MassMatrixRing(flow_mass_matrix_form(S))
    n, d = own.forcing(0)
    assert (n, d) == mr.forcing(0) and own.calc is not mr.calc
    assert Z(shared.expr() - mass_matrix_divergence(S, (sp.S.One,)).expr())
