"""Hamiltonisation of catalogue systems: reducing multipliers and conformal factors found
without candidates, checked against the mathematics (Jacobi identity of the rescaled
structure, Hamilton's equations after the time change, div(rho v) = 0), and "none in this
family" answers that name the family."""

from __future__ import annotations

import pytest
import sympy as sp

import geomech as gm
from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.examples.bodies import body_angular_velocity_frame, poisson_vector
from geomech.mechanics.analysis.conformal import conformal_factor_search
from geomech.mechanics.analysis.multiplier import chaplygin_multiplier, reducing_multiplier
from geomech.mechanics.analysis.poisson import AlmostPoissonStructure
from geomech.mechanics.analysis.pseudo_hamiltonian import system_chaplygin_pseudo_hamiltonian
from geomech.mechanics.analysis.reduction import chaplygin_reduction

Z = default_policy().is_zero


def _div(coords, comps, rho):
    """div(rho v) written out with sympy derivatives (independent of the library's test)."""
    return sp.Add(*[sp.diff(rho * c, x) for x, c in zip(coords, comps)])


def _hamilton_after_time_change(form, N, Ht, names):
    r"""With :math:`d\tau = N dt`, :math:`\tilde p = N p`: the canonical equations of
    :math:`\tilde H(z, \tilde p)` in :math:`\tau`, pulled back to :math:`(z, p, t)`, equal the
    field of the form."""
    z, p = form.manifold.coords[:2], form.manifold.coords[2:]
    v = form.vector_field().components
    to_p = {names[i]: N * p[i] for i in range(2)}
    dz_tau = [sp.diff(Ht, names[i]).xreplace(to_p) for i in range(2)]
    dpt_tau = [(-sp.diff(Ht, z[i])).xreplace(to_p) for i in range(2)]
    vN = sum(v[k] * sp.diff(N, x) for k, x in enumerate(z))
    ok_z = all(Z(N * dz_tau[i] - v[i]) for i in range(2))
    # d(N p_i)/dt = N dpt/dtau  <=>  vN p_i + N pdot_i = N * dpt_tau
    ok_p = all(Z(vN * p[i] + N * v[2 + i] - N * dpt_tau[i]) for i in range(2))
    return ok_z and ok_p


def test_one_multiplier_two_routes_inclined_sleigh():
    """chaplygin_multiplier (Prop. 8 form) delegates to reducing_multiplier (velocities):
    the same N and the same new Hamiltonian; N Hamiltonises the form (time change) and J/N is
    Poisson (Borisov & Mamaev (2015), App. C)."""
    S0 = gm.examples.inclined_chaplygin_sleigh(a=0)
    form = system_chaplygin_pseudo_hamiltonian(S0, ["x"])
    mom = chaplygin_multiplier(form)
    vel = reducing_multiplier(chaplygin_reduction(S0, [S0.manifold.coords[0]]).system)
    assert mom and vel and Z(mom.multiplier - vel.multiplier)
    ren = dict(zip(vel.new_momenta, mom.new_momenta))
    assert Z(vel.new_hamiltonian.xreplace(ren) - mom.new_hamiltonian)
    N = mom.multiplier
    assert _hamilton_after_time_change(form, N, mom.new_hamiltonian, list(mom.new_momenta))
    J = form.structure
    assert not J.satisfies_jacobi()
    assert AlmostPoissonStructure(J.manifold, J.matrix / N).satisfies_jacobi()


def test_veselova_reducing_multiplier_and_conformal_factor():
    """Veselova (1986), Fedorov & Jovanovic (2004): after Chaplygin reduction by the rotation
    about the vertical the system is Hamiltonised by a multiplier, found without candidates;
    N is an invariant density of the reduced flow and the factor 1/N makes J Poisson."""
    S = gm.examples.veselova()
    form = system_chaplygin_pseudo_hamiltonian(S, ["psi"])
    res = chaplygin_multiplier(form)
    assert res
    N = res.multiplier
    z, p = form.manifold.coords[:2], form.manifold.coords[2:]
    assert not N.has(*p)
    assert Z(_div(form.manifold.coords, form.vector_field().components, N))
    assert _hamilton_after_time_change(form, N, res.new_hamiltonian, list(res.new_momenta))
    conf = conformal_factor_search(form)
    assert conf and Z(sp.diff(conf.factor * N, z[0])) and Z(sp.diff(conf.factor * N, z[1]))
    assert conf.structure.satisfies_jacobi()
    # the rescaled field is the original field in the new time
    w = conf.structure.hamiltonian_vector_field(form.hamiltonian).components
    assert all(Z(wi / conf.factor - vi) for wi, vi in zip(w, form.vector_field().components))


def test_veselova_density_of_the_literature():
    r""":math:`\sqrt{(I^{-1}\gamma,\gamma)}` (Veselova (1986)) times the Jacobian
    :math:`\sin^2\theta` annihilates div(rho v) on the Euler-angle phase space, and the
    default density search finds it (up to a constant factor)."""
    S = gm.examples.veselova()
    th, ph = S.manifold.coords[:2]
    I1, I2, I3 = S.manifold.parameters
    g = poisson_vector(th, ph)
    rho = sp.sqrt(g[0]**2 / I1 + g[1]**2 / I2 + g[2]**2 / I3) * sp.sin(th)**2
    v = S.vector_field()
    assert Z(_div(v.manifold.coords, v.components, rho))
    res = S.invariant_measure()
    assert res and default_policy().is_constant(res.density / rho, v.manifold.coords)


def test_suslov_euler_suslov_equations_and_measure_iff_eigenvector():
    """Suslov (1946), Fedorov & Kozlov (1995): the natural-frame flow is the Euler-Suslov
    system; an invariant density exists for I13 = I23 = 0 (sin(theta)^2, the Haar density in
    Euler angles) and none of the system family otherwise (Kozlov (1985): none at all)."""
    from geomech.mechanics.equations.compact import compact_equations

    S = gm.examples.suslov()
    I1, I2, I3, I13, I23 = S.manifold.parameters
    ce = compact_equations(S, frame="natural")
    w1, w2 = ce.quasi_velocities
    assert Z(ce.rhs[w1] + w2 * (I13 * w1 + I23 * w2) / I1)
    assert Z(ce.rhs[w2] - w1 * (I13 * w1 + I23 * w2) / I2)
    res = S.invariant_measure()
    assert not res and "rho = " in res.reason + res.family and "sin(theta)" in res.family
    S0 = gm.examples.suslov(I13=0, I23=0)
    res0 = S0.invariant_measure()
    v = S0.vector_field()
    assert res0 and Z(_div(v.manifold.coords, v.components, res0.density))


def test_free_sleigh_none_in_family_names_the_family():
    """Free Chaplygin sleigh, a != 0 (Borisov & Mamaev (2015), §3.3): no invariant measure,
    no reducing multiplier (sigma not closed), and no conformal factor in the family of the
    factors of J -- each answer says which family."""
    S = gm.examples.chaplygin_sleigh(independent=("ydot", "phidot"))
    form = system_chaplygin_pseudo_hamiltonian(S, ["x"])
    res = chaplygin_multiplier(form)
    assert not res and "not closed" in res.reason
    conf = conformal_factor_search(form)
    assert not conf and "family f = " in conf.reason
    meas = S.invariant_measure()
    assert not meas and "rho = " in meas.family


def test_body_frame_is_left_invariant_so3():
    """The fields whose body angular velocity is e_i close to so(3): [E_i, E_j] = E_k for
    (i, j, k) cyclic (with the bracket convention of the design)."""
    N = Manifold("SO3", "theta phi psi")
    E = body_angular_velocity_frame(N)
    for i, j, k in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
        assert E[i].bracket(E[j]) == E[k]


def test_natural_pseudo_hamiltonian_agrees_with_natural_equations():
    """Prop. 7 in the natural frame (``frame="natural"``) reproduces the
    natural-frame equations of motion (Hamel form, an independent derivation): q' and
    d/dt M(q, omega) along the flow."""
    from geomech.mechanics.analysis.pseudo_hamiltonian import system_pseudo_hamiltonian
    from geomech.mechanics.equations.compact import compact_equations

    for S in (gm.examples.chaplygin_sleigh(), gm.examples.chaplygin_ball(),
              gm.examples.suslov()):
        form = system_pseudo_hamiltonian(S, frame="natural")
        ce = compact_equations(S, frame="natural")
        assert tuple(form.quasi_velocities) == tuple(ce.quasi_velocities)
        rhs, W, n = ce.rhs, form.vector_field().components, S.manifold.dim
        for i, q in enumerate(S.manifold.coords):
            assert Z(form.to_velocities(W[i]) - rhs[q])
        for k, Mk in enumerate(form.momenta):
            dM = sum(sp.diff(form.momentum_of[Mk], x) * rhs[x] for x in ce.state)
            assert Z(form.to_velocities(W[n + k]) - dM)
        assert not form.satisfies_jacobi()


@pytest.mark.slow
def test_chaplygin_ball_zero_area_constant_symbolic():
    """Chaplygin ball, symbolic m, R, I1, I2, I3, reduced by the translations and by psi at
    zero area constant (Borisov & Mamaev (2015), §3.12, Chaplygin (1903)): the multiplier
    without candidates is rho_CB = (1 - D (gamma, (I + D E)^-1 gamma))^(-1/2) up to a constant,
    J/N is Poisson (the Prop. 8 structure after the time change) and the conformal factor
    search finds 1/N (about 15 s CPU)."""
    from geomech.mechanics.analysis.multiplier import (
        at_momentum_level,
        gyroscopic_pseudo_hamiltonian,
    )
    from geomech.mechanics.analysis.reduction import routh_reduction

    B = gm.examples.chaplygin_ball()
    x, y, th, ph, ps = B.manifold.coords
    m, R, I1, I2, I3 = B.manifold.parameters
    level = at_momentum_level(routh_reduction(chaplygin_reduction(B, [x, y]).system, ps), 0)
    res = reducing_multiplier(level)
    assert res
    D = m * R**2
    g = poisson_vector(th, ph)
    rho = 1 / sp.sqrt(1 - D * sum(gi**2 / (Ii + D) for gi, Ii in zip(g, (I1, I2, I3))))
    assert default_policy().is_constant(res.multiplier / rho, [th, ph])
    form = gyroscopic_pseudo_hamiltonian(level)
    N = res.multiplier
    J = form.structure
    assert not J.satisfies_jacobi()
    assert AlmostPoissonStructure(J.manifold, J.matrix / N).satisfies_jacobi()
    conf = conformal_factor_search(form)
    assert conf and default_policy().is_constant(conf.factor * N, [th, ph])
