"""Conformal Hamiltonisation: reducing multiplier in velocities (§3.12, O-CB-5, O-SL),
conformal factors of almost-Poisson structures (Jacobi identity of f*J)."""

from __future__ import annotations

import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.conformal import conformal_factor_search, rescaled_jacobiator
from geomech.mechanics.analysis.density import is_invariant_density
from geomech.mechanics.analysis.multiplier import (
    at_momentum_level,
    gyroscopic_coefficient,
    is_reducing_multiplier,
    multiplier_one_form,
    reducing_multiplier,
    system_is_conformally_hamiltonian,
)
from geomech.mechanics.analysis.poisson import AlmostPoissonStructure
from geomech.mechanics.analysis.pseudo_hamiltonian import system_chaplygin_pseudo_hamiltonian
from geomech.mechanics.analysis.reduction import chaplygin_reduction, routh_reduction
from geomech.mechanics.system import NonholonomicSystem

c, s = sp.cos, sp.sin
Z = default_policy().is_zero


def _routh_ball_at_zero(**params):
    """O-CB-5: Chaplygin ball, reduced by the translations, Routh-reduced by psi at c = 0."""
    B = gm.examples.chaplygin_ball(**params)
    x, y, th, ph, ps = B.manifold.coords
    rr = routh_reduction(chaplygin_reduction(B, [x, y]).system, ps)
    return at_momentum_level(rr, 0), B, rr


def _rho_cb(th, ph, m, R, I1, I2, I3):
    D = m * R**2
    g = [s(ph) * s(th), c(ph) * s(th), c(th)]          # gamma = Q e3 (third column of (5.5))
    den = 1 - D * sum(gi**2 / (Ii + D) for gi, Ii in zip(g, (I1, I2, I3)))
    return den, 1 / sp.sqrt(den)


BALL = dict(m=3, R=sp.Rational(1, 2), I1=1, I2=2, I3=sp.Rational(5, 2))


def test_ocb5_multiplier_is_rho_cb_not_its_inverse():
    sysz, _, rr = _routh_ball_at_zero(**BALL)
    th, ph = sysz.manifold.coords
    thd, phd = sysz.manifold.velocities
    # S12 = -S with S = m R^2 sin(theta) (phidot cos(theta) + psidot), psidot = X at c = 0
    S = BALL["m"] * BALL["R"]**2 * s(th) * (phd * c(th) + rr.X.xreplace({rr.momentum: 0}))
    assert Z(gyroscopic_coefficient(sysz) + S)
    den, rho = _rho_cb(th, ph, *BALL.values())
    assert is_reducing_multiplier(sysz, rho)
    assert not is_reducing_multiplier(sysz, 1 / rho)
    res = reducing_multiplier(sysz, candidates=[den])
    assert res
    ratio = res.multiplier / rho
    assert Z(sp.diff(ratio, th)) and Z(sp.diff(ratio, ph))        # N = rho_CB up to a constant
    # the 1-form sigma = d ln N is closed and equals d ln rho_CB
    s1, s2 = multiplier_one_form(sysz)
    assert Z(s1 - sp.diff(sp.log(rho), th)) and Z(s2 - sp.diff(sp.log(rho), ph))


def test_ocb5_not_of_multiplier_form_at_nonzero_area_constant():
    B = gm.examples.chaplygin_ball(**BALL)
    x, y, th, ph, ps = B.manifold.coords
    rr = routh_reduction(chaplygin_reduction(B, [x, y]).system, ps)
    res = reducing_multiplier(at_momentum_level(rr, 1))
    assert not res and "homogeneous linear" in res.reason


def test_sleigh_multiplier_iff_a_zero_agrees_with_momentum_route():
    """O-SL / §3.12: N = sin(phi) iff a = 0; the velocity route (no Legendre inversion)
    agrees with the Prop. 8 momentum route, including the new Hamiltonian."""
    S0 = gm.examples.get("inclined_chaplygin_sleigh", a=0)
    x = S0.manifold.coords[0]
    red0 = chaplygin_reduction(S0, [x]).system
    res = reducing_multiplier(red0)
    phi = S0.manifold.coords[2]
    assert res and Z(sp.diff(res.multiplier / s(phi), phi))
    mom = system_is_conformally_hamiltonian(S0, ["x"])
    assert mom and Z(sp.diff(mom.multiplier / res.multiplier, phi))
    ren = dict(zip(res.new_momenta, mom.new_momenta))
    k = sp.simplify(mom.multiplier / res.multiplier)             # a constant
    assert Z(res.new_hamiltonian.xreplace({p: q / k for p, q in ren.items()})
             .xreplace({res.multiplier: mom.multiplier / k}) - mom.new_hamiltonian)
    # invariant density of the Prop. 8 field is N
    form = system_chaplygin_pseudo_hamiltonian(S0, ["x"])
    assert is_invariant_density(form.vector_field(), res.multiplier)
    Sa = gm.examples.get("inclined_chaplygin_sleigh")
    resa = reducing_multiplier(chaplygin_reduction(Sa, [x]).system)
    assert not resa and "not closed" in resa.reason


def test_candidate_family_without_solution():
    sysz, *_ = _routh_ball_at_zero(**BALL)
    th, ph = sysz.manifold.coords
    res = reducing_multiplier(sysz, candidates=[s(th), c(ph)])
    assert not res and "candidate family" in res.reason


def test_bad_inputs():
    B = gm.examples.chaplygin_ball()
    res = reducing_multiplier(B)
    assert not res and "two degrees of freedom" in res.reason
    Z2 = gm.Manifold("Z2", "u v")
    u, v = Z2.coords
    ud, vd = Z2.velocities
    with pytest.raises(ValueError, match="not gyroscopic"):
        gyroscopic_coefficient(NonholonomicSystem(Z2, (ud**2 + vd**2) / 2, [], forces=[u, v]))
    S = NonholonomicSystem(Z2, (ud**2 + vd**2) / 2, [], forces=[u * vd**2, -u * ud * vd])
    with pytest.raises(ValueError, match="coordinates only"):
        is_reducing_multiplier(S, ud)
    with pytest.raises(TypeError):
        conformal_factor_search(sp.eye(2), [u])


# -- conformal factor of the bivector ------------------------------------------------------------
def test_conformal_factor_of_sleigh_form_is_one_over_multiplier():
    """f J is Poisson for f = 1/N (N = sin(phi)); Jacobi verified exactly; none for a != 0."""
    S0 = gm.examples.get("inclined_chaplygin_sleigh", a=0)
    form = system_chaplygin_pseudo_hamiltonian(S0, ["x"])
    assert not form.satisfies_jacobi()
    y, phi = form.manifold.coords[:2]
    res = conformal_factor_search(form, [s(phi), c(phi)])
    assert res and Z(sp.diff(res.factor * s(phi), phi))
    assert res.structure.satisfies_jacobi()
    assert rescaled_jacobiator(form.structure, 1 / s(phi)) == {}
    assert rescaled_jacobiator(form.structure, s(phi)) != {}
    Sa = gm.examples.get("inclined_chaplygin_sleigh")
    forma = system_chaplygin_pseudo_hamiltonian(Sa, ["x"])
    ya, phia = forma.manifold.coords[:2]
    assert not conformal_factor_search(forma, [s(phia), c(phia), forma.manifold.coords[3]])


def test_rescaled_jacobiator_formula_against_direct_jacobiator():
    """Jac(fJ) = f^2 (Jac(J) + cyclic (J grad ln f)^i J^jk) on a random non-Poisson J."""
    P = gm.Manifold("P", "a b c")
    a, b, cc = P.coords
    J = AlmostPoissonStructure(P, [[0, a * b, cc], [-a * b, 0, a + cc**2], [-cc, -a - cc**2, 0]])
    f = a**2 + b * cc + 1
    fJ = AlmostPoissonStructure(P, J.matrix * f)
    direct = fJ.jacobiator_component(0, 1, 2)
    formula = rescaled_jacobiator(J, f).get((a, b, cc), 0)
    assert Z(direct - f**2 * formula)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_conformal_factor_is_inverse_multiplier_for_chaplygin_forms(k):
    """For J = (0, E; -E, S) with S = p2 d1 ln N - p1 d2 ln N, f*J is Poisson iff f = 1/N
    (up to a constant) in the family; N = (1 + q1^2 q2)^k * q2."""
    P = gm.Manifold("P", "q1 q2 p1 p2")
    q1, q2, p1, p2 = P.coords
    N = (1 + q1**2 * q2)**k * q2
    S = p2 * sp.diff(sp.log(N), q1) - p1 * sp.diff(sp.log(N), q2)
    J = AlmostPoissonStructure(P, [[0, 0, 1, 0], [0, 0, 0, 1], [-1, 0, 0, S], [0, -1, -S, 0]])
    assert not J.satisfies_jacobi()
    res = conformal_factor_search(J, [1 + q1**2 * q2, q2, q1])
    assert res and Z(res.factor * N - 1) and res.structure.satisfies_jacobi()
    assert not conformal_factor_search(J, [q1, 1 + q2**2])


def test_ocb5_symbolic_parameters():
    """O-CB-5 with symbolic m, R, I1, I2, I3 (about 3 s): N = rho_CB, 1/rho_CB fails."""
    sysz, B, _ = _routh_ball_at_zero()
    th, ph = sysz.manifold.coords
    den, rho = _rho_cb(th, ph, *B.manifold.parameters)
    assert is_reducing_multiplier(sysz, rho)
    assert not is_reducing_multiplier(sysz, 1 / rho)
    res = reducing_multiplier(sysz, candidates=[den])
    assert res and Z(res.multiplier - rho)


# -- the search without candidates: the family built from the system ---------------------------
def test_no_candidates_closed_sigma_outside_the_family_is_named():
    """sigma = d(u^2) is closed, but exp(u^2) is no product of powers of the factors of det A
    and sigma: the answer names the family; integrate=True finds it by a line integral."""
    Zm = gm.Manifold("Z", "u v")
    u, v = Zm.coords
    ud, vd = Zm.velocities
    S = NonholonomicSystem(Zm, (ud**2 + vd**2) / 2, [], forces=[2 * u * vd**2, -2 * u * ud * vd])
    res = reducing_multiplier(S)
    assert not res and "N = (u)**c0" in res.reason and "family" in res.reason
    res2 = reducing_multiplier(S, integrate=True)
    assert res2 and is_reducing_multiplier(S, res2.multiplier)


def test_no_candidates_power_family_multiplier():
    """A multiplier N = u^(3/2) (1 + v^2)^(-1) built from the factors of sigma."""
    Zm = gm.Manifold("Z", "u v")
    u, v = Zm.coords
    ud, vd = Zm.velocities
    N = u**sp.Rational(3, 2) / (1 + v**2)
    S12 = vd * sp.diff(sp.log(N), u) - ud * sp.diff(sp.log(N), v)      # A = identity
    S = NonholonomicSystem(Zm, (ud**2 + vd**2) / 2, [],
                           forces=[sp.expand(S12 * vd), sp.expand(-S12 * ud)])
    res = reducing_multiplier(S)
    assert res and is_reducing_multiplier(S, res.multiplier)
    assert Z(sp.diff(res.multiplier / N, u)) and Z(sp.diff(res.multiplier / N, v))


@pytest.mark.slow
def test_ocb5_without_candidates():
    """O-CB-5 without candidate multipliers: N = rho_CB (Chaplygin 1903) up to a constant."""
    sysz, _, _ = _routh_ball_at_zero(**BALL)
    th, ph = sysz.manifold.coords
    res = reducing_multiplier(sysz)
    assert res and is_reducing_multiplier(sysz, res.multiplier)
    _, rho = _rho_cb(th, ph, *BALL.values())
    ratio = res.multiplier / rho
    assert Z(sp.diff(ratio, th)) and Z(sp.diff(ratio, ph))


def test_conformal_factor_without_candidates_sleigh_type():
    """Inclined sleigh (a = 0): the factor f = 1/sin(phi) is found among the factors of the
    entries of J; for a != 0 the answer is "none" and names the family."""
    S0 = gm.examples.get("inclined_chaplygin_sleigh", a=0)
    form = system_chaplygin_pseudo_hamiltonian(S0, ["x"])
    phi = form.manifold.coords[1]
    res = conformal_factor_search(form)
    assert res and res.structure.satisfies_jacobi()
    assert Z(sp.diff(res.factor * s(phi), phi))
    forma = system_chaplygin_pseudo_hamiltonian(gm.examples.get("inclined_chaplygin_sleigh"),
                                                ["x"])
    resa = conformal_factor_search(forma)
    assert not resa and "family" in resa.reason
