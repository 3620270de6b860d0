"""The report of a system whose constraints are not solved symbolically (the Whipple bicycle's
case, :mod:`geomech.reporting.constrained`): exercised on the rolling disk with the size limit
lowered to 0, so that its report takes the bicycle's route -- equations with multipliers in
mass-matrix form with the constraint block, the energy checked numerically, the simulation
with the constraints solved at each step -- and compared with the disk's own route.
"""

import numpy as np
import pytest
import sympy as sp

import geomech as gm
import geomech.numeric.constrained as constrained
import geomech.reporting.sections as sections
from geomech.reporting.constrained import (
    constrained_energy_section,
    constrained_equations_section,
)


@pytest.fixture
def as_if_large(monkeypatch):
    """Every constraint minor counts as too large to solve symbolically."""
    monkeypatch.setattr(sections, "SOLVE_OPS", -1)
    monkeypatch.setattr(constrained, "SYMBOLIC_SOLVE_OPS", -1)


def test_disk_report_takes_the_numeric_route(as_if_large):
    S = gm.examples.rolling_disk()
    rep = gm.report(S, analyses=False, t_end=2.0)
    by = {s.title: s for s in rep.sections}
    eqs = by["Equations of motion (lagrange-dalembert)"]
    assert eqs.status == "ok"
    lam = sp.symbols("lambda_1 lambda_2")
    formulas = {str(o.lhs): o.rhs for _, o in eqs.lines if isinstance(o, sp.Eq)}
    # the constraint forces on x and y are the multipliers themselves (xdot - ... = 0)
    assert formulas["E_x"] == lam[0] and formulas["E_y"] == lam[1]
    energy = " ".join(t for t, _ in by["Energy"].lines)
    assert "verified numerically only" in energy
    residual = float(energy.split("largest relative residual ")[1].split(")")[0])
    assert residual < 1e-12
    sim = " ".join(t for t, _ in by["Simulation"].lines)
    assert "constraints solved numerically at each step" in sim
    assert isinstance(by["Simulation"], sections.Section)
    drift = float(sim.split("relative drift of energy: ")[1].split()[0])
    assert drift < 1e-10
    assert len(by["Figures"].figures) >= 2


def test_equations_section_against_the_multiplier_form():
    """The Euler-Lagrange expressions E_q of the section equal the constraint forces
    sum_mu lambda_mu a_mu,q of the Lagrange-d'Alembert equations the library derives."""
    S = gm.examples.rolling_disk()
    sec = constrained_equations_section(S)
    eqs = S.equations("lagrange_dalembert").equations[:S.dim]
    shown = [o for _, o in sec.lines if isinstance(o, sp.Eq) and str(o.lhs).startswith("E_")]
    assert len(shown) == S.dim
    for e, ld in zip(shown, eqs):
        lam = {s: sp.Symbol(s.name) for s in ld.rhs.free_symbols if s.name.startswith("lambda")}
        assert sp.expand(e.rhs - ld.rhs.xreplace(lam)) == 0


def test_energy_section_finds_non_conservation():
    """A sleigh with a driving force: the energy balance is not claimed."""
    N = gm.Manifold("N", "x y phi", parameters="m I a k")
    phi, (xd, yd, phid) = N.coords[2], N.velocities
    m, I, a, k = N.parameters
    L = m / 2 * (xd**2 + yd**2) + I / 2 * phid**2
    S = gm.NonholonomicSystem(N, L, [-sp.sin(phi) * xd + sp.cos(phi) * yd],
                              forces=[k * sp.cos(phi), k * sp.sin(phi), 0])
    text = " ".join(t for t, _ in constrained_energy_section(S).lines)
    assert "not claimed" in text
    T = gm.NonholonomicSystem(N, L, [-sp.sin(phi) * xd + sp.cos(phi) * yd])
    text = " ".join(t for t, _ in constrained_energy_section(T).lines)
    worst = float(text.split("largest relative residual ")[1].split(")")[0])
    assert worst < 1e-13 and np.isfinite(worst)


def test_sections_without_closed_forms_agree_with_the_disk_route(as_if_large):
    """The rolling disk through the bicycle's route: geometry from exact points, symmetries
    checked on TN, the energy theorem, the almost-Poisson verdict -- each against the disk's
    own symbolic route."""
    from geomech.reporting.unsolved import (
        almost_poisson_section,
        energy_integral_section,
        evident_symmetry_section,
        point_geometry_section,
    )

    S = gm.examples.rolling_disk()
    geo = point_geometry_section(S)
    flag = tuple(S.constraint_distribution().growth_vector())
    text = " ".join(t for t, _ in geo.lines)
    assert f"growth vector (Lie flag): ({', '.join(map(str, flag))})" in text
    assert "not involutive (certain" in text
    sym = evident_symmetry_section(S)
    fields = [o for _, o in sym.lines if o is not None]
    from geomech.mechanics.analysis.symmetry import check_symmetry

    assert fields and all(c.is_symmetry for c in check_symmetry(S, fields))
    assert energy_integral_section(S).status == "ok"
    assert S.is_first_integral(S.energy())
    ham = almost_poisson_section(S)
    assert "Jacobi identity: no (certain)" in " ".join(t for t, _ in ham.lines)
    assert S.pseudo_hamiltonian().satisfies_jacobi() is False


@pytest.mark.parametrize("name", ["chaplygin_sleigh", "rolling_disk"])
def test_jacobi_theorem_has_one_verdict_for_both_kinds_of_evidence(name):
    """The Jacobi identity of the almost-Poisson bracket from the involutivity of D (van der
    Schaft & Maschke 1994), decided by the Frobenius test and by the exact point flag: the
    same verdict, and the one of the bracket's own Jacobiator."""
    from geomech.mechanics.analysis.point_flag import point_growth_vector
    from geomech.reporting.unsolved import jacobi_by_involutivity

    S = gm.examples.get(name)
    by_frobenius, line = jacobi_by_involutivity(S)
    by_flag, flag_line = jacobi_by_involutivity(S, point_growth_vector(S, points=2))
    assert by_frobenius is by_flag is False and line != flag_line
    assert S.pseudo_hamiltonian().satisfies_jacobi() is False
