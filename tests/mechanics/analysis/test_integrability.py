"""``S.integrability()`` on the named systems of the literature: the verdict, the theorem, and
the ingredients it used -- the measure is an invariant density (exact), the integrals are
independent (numerical ranks) and conserved along simulations (scipy, independent of the
symbolic searches), the symmetry fields are tangent to their levels -- and the report's
Integrability section."""

from __future__ import annotations

import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.lie.prolongation import prolong
from geomech.mechanics.analysis.density import is_invariant_density
from geomech.mechanics.analysis.level_quadratures import shape_quadratures
from geomech.reporting.integrability import integrability_section, literature

from .integral_spans import as_function, drift, random_states, rank

is_zero = default_policy().is_zero


def _check_ingredients(S, v, pars: dict, state: dict | None = None, t1: float = 2.0):
    """The measure, integrals and symmetries of an integrable verdict, checked independently."""
    assert v.integrable is True and v.missing == ""
    n = S.phase_space.dim
    k, s = len(v.integrals), len(v.symmetries)
    if v.measure is not None and "measure" in v.theorem:
        assert is_invariant_density(S.vector_field(), v.measure)
        assert k + s >= n - 2
    else:
        assert k + s >= n - 1
    funcs = [as_function(S, F, pars) for F in v.integrals]
    assert rank(funcs, random_states(S, 2, 29, 0.4, 1.1)) == k
    for u in v.symmetries:
        ut = prolong(u, S.phase_space, S.dependent_solution)
        for F in v.integrals:
            if F.expr is not None and F.verified == "exact":
                assert is_zero(ut(F.expr))
    if state is not None:
        named = {f"F{j}": f for j, f in enumerate(funcs)}
        assert max(drift(S, named, state, pars, t1=t1).values()) < 1e-7


def _top_state():
    return {"theta": 1.1, "phi": 0.4, "psi": 0.2, "thetadot": 0.3, "phidot": -0.7,
            "psidot": 0.9}


@pytest.mark.parametrize("case, args, pars", [
    ("Euler", (1, 2, 3, 1, 1, 0, 0, 0), {}),
    ("Lagrange", (1, 1, 2, 1, 1, 0, 0, 1), {}),
    ("Kovalevskaya", (2, 2, 1, 1, 1, 1, 0, 0), {}),
])
def test_classical_tops_are_integrable(case, args, pars):
    """Euler (1758), Lagrange (1788), Kovalevskaya (1889): energy, area integral and a third
    integral (|I omega|^2, omega3, Kovalevskaya's quartic), the symmetry d/dpsi (rotations
    about the vertical), the measure sin(theta) d theta d phi d psi ... (Liouville)."""
    T = gm.examples.heavy_top(*args)
    v = T.integrability()
    assert v.integrable is True and "Euler-Jacobi" in v.theorem
    assert len(v.integrals) == 3 and v.integrals[0].kind == "energy"
    if case == "Kovalevskaya":
        assert any(F.kind == "polynomial (degree <= 4)" for F in v.integrals)
    _check_ingredients(T, v, pars, _top_state())


@pytest.mark.slow
def test_kovalevskaya_top_with_symbolic_parameters_is_integrable():
    I3, m, g, x0 = sp.symbols("I3 m g x0", positive=True)
    T = gm.examples.heavy_top(2 * I3, 2 * I3, I3, m, g, x0, 0, 0)
    v = T.integrability()
    pars = {"I3": 0.8, "m": 1.3, "g": 9.8, "x0": 0.4}
    _check_ingredients(T, v, pars, _top_state())
    assert any(F.kind == "polynomial (degree <= 4)" for F in v.integrals)


@pytest.mark.slow
def test_generic_top_is_undecided_with_what_is_missing():
    """No third integral of degree <= 4 (Husson 1906): the verdict is undecided and says what
    is missing; the two integrals it has are conserved."""
    T = gm.examples.heavy_top(1, 2, 3, 1, 1, 1, 1, 1)
    v = T.integrability()
    assert v.integrable is None and v.theorem == ""
    assert len(v.integrals) == 2 and "more integrals or symmetries" in v.missing


def test_suslov_is_integrable_with_special_inertia_only():
    """Suslov (1902), Kozlov (1985): with the constraint along a principal axis (I13 = I23 = 0)
    a measure and the integrals give quadratures; with general I13, I23 there is no
    invariant measure in the family searched."""
    v = gm.examples.suslov(I13=0, I23=0).integrability()
    _check_ingredients(gm.examples.suslov(I13=0, I23=0), v,
                       {"I1": 1.1, "I2": 1.7, "I3": 0.6})
    w = gm.examples.suslov().integrability()
    assert w.integrable is None and w.measure is None
    assert "no invariant measure in the family searched" in w.missing


@pytest.mark.slow
def test_veselova_is_integrable_and_hamiltonisable():
    """Veselova (1986): a measure and a quadratic integral; Chaplygin's reducing multiplier
    (Fedorov & Jovanovic 2004): the time change makes it Hamiltonian."""
    S = gm.examples.veselova()
    v = S.integrability()
    pars = {"I1": 1.1, "I2": 1.7, "I3": 0.6}
    _check_ingredients(S, v, pars, {"theta": 1.0, "phi": 0.5, "psi": 0.1, "thetadot": 0.4,
                                    "phidot": -0.3})
    assert v.hamiltonisation is not None and "reducing multiplier" in v.theorem


@pytest.mark.slow
def test_chaplygin_ball_is_integrable_by_the_euler_jacobi_lie_theorem():
    """Chaplygin (1903): the measure, the energy, the area integral and the quadratic
    integral; the translations and the rotation about the vertical as symmetries."""
    S = gm.examples.chaplygin_ball()
    v = S.integrability()
    pars = {"m": 1.0, "R": 1.0, "I1": 0.3, "I2": 0.4, "I3": 0.5}
    state = {"x": 0, "y": 0, "theta": 1.0, "phi": 0.3, "psi": 0.2, "thetadot": 0.5,
             "phidot": 0.4, "psidot": -0.3}
    _check_ingredients(S, v, pars, state)
    assert any(F.kind.startswith("polynomial") for F in v.integrals)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["routh_sphere", "rolling_disk"])
def test_routh_sphere_and_rolling_disk_are_integrable(name):
    S = getattr(gm.examples, name)()
    v = S.integrability()
    pars = {"m": 1.1, "a": 0.8, "g": 9.8, "A": 0.25, "C": 0.45, "R": 0.9, "I1": 0.7,
            "I3": 0.5}
    pars = {p.name: pars[p.name] for p in S.manifold.parameters}
    state = {c.name: 0.0 for c in S.phase_space.coords}
    state.update(theta=1.2, thetadot=0.3, psidot=1.1, phidot=2.3)
    _check_ingredients(S, v, pars, state)


def test_integrability_section_states_the_verdict_and_the_literature():
    S = gm.examples.chaplygin_sleigh(a=0)
    sec = integrability_section(S)
    text = "\n".join(str(line[0]) for line in sec.lines)
    assert "verdict: integrable by quadratures" in text and "theorem: Euler-Jacobi" in text
    assert "Chaplygin (1911)" in text
    assert literature(gm.examples.suslov()).startswith("Suslov (1902)")


@pytest.mark.slow
def test_chaplygin_ball_report_lists_the_quadratic_integral():
    sec = integrability_section(gm.examples.chaplygin_ball())
    text = "\n".join(str(line[0]) for line in sec.lines)
    assert "polynomial (degree <= 2) [exact]" in text and "Chaplygin (1903)" in text


@pytest.mark.slow
def test_numerics_beside_the_verdicts_regular_and_chaotic():
    """Integrable verdict (Kovalevskaya top): the Poincaré section phi = 0 lies on the common
    level of its three integrals, and the largest Lyapunov exponent decays (log T / T);
    without enough integrals (a generic top: Husson 1906; the rubber ball in the Hénon-Heiles
    potential) it settles at a clearly positive value (independent numerics: scipy)."""
    kov = gm.examples.heavy_top(2, 2, 1, 1, 1, 1, 0, 0)
    v = kov.integrability()
    assert v.integrable is True
    start = {"theta": 1.2, "phi": 0.0, "psi": 0.2, "thetadot": 0.9, "phidot": -0.7,
             "psidot": 0.5}
    sec = gm.poincare_section(kov, [start], "sin(phi)", 200.0)
    pts = sec.points[0]
    assert len(pts) > 10
    names = [c.name for c in kov.phase_space.coords]
    for F in v.integrals:
        vals = [F.evaluate(dict(zip(names, p)), {}) for p in pts]
        assert max(vals) - min(vals) < 1e-7 * max(1.0, abs(vals[0]))
    x0 = [start[n] for n in names]
    lam_kov = gm.max_lyapunov(kov, x0, 300.0).maximal
    lam_gen = gm.max_lyapunov(gm.examples.heavy_top(1, 2, 3, 1, 1, 1, 1, 1), x0, 300.0).maximal
    ball = gm.examples.rubber_ball(m=1, a=1, I=sp.Rational(2, 5),
                                   potential="x**2/2 + y**2/2 + x**2*y - y**3/3")
    lam_ball = gm.max_lyapunov(ball, [0.0, -0.1, 1.3, 0.2, 0.1, 0.4, 0.25], 300.0).maximal
    assert lam_kov < 0.05 and lam_gen > 0.1 and lam_ball > 0.06
    assert lam_gen > 3 * lam_kov


@pytest.mark.parametrize("name", ["rolling_disk", "chaplygin_sleigh"])
def test_reducing_multiplier_only_for_two_reduced_degrees_of_freedom(name):
    """The verdict looks for Chaplygin's multiplier only when the reduction by the coordinates
    of the dependent velocities leaves two degrees of freedom (the theorem's case); elsewhere
    the full search finds none either (the rolling disk: three)."""
    from geomech.mechanics.analysis.multiplier import system_is_conformally_hamiltonian

    S = gm.examples.get(name)
    dof = S.manifold.dim - len(S.dependent_velocities)
    try:
        full = bool(system_is_conformally_hamiltonian(S))
    except (ValueError, NotImplementedError, TypeError, KeyError):
        full = False
    if dof != 2:
        assert not full
        assert S.integrability().hamiltonisation is None
    else:
        assert (S.integrability().hamiltonisation is not None) == full


@pytest.mark.slow
def test_routh_sphere_quadratures_hold_on_the_level_of_a_state(monkeypatch):
    r"""Routh (1884): on the level of Jellett's and Routh's integrals (:math:`c_1, c_2`) and of
    the energy (:math:`e`), :math:`\dot\theta^2 = R(\theta)` and the rates of the other
    coordinates are the integrands of their quadratures times :math:`\sqrt{R}` -- at a state
    of the phase space, the constants being the integrals' values there.  The velocities on
    the level (with :math:`\sqrt{Q(\cos\theta)}` from Routh's integral) are shortened by the
    ring normal form: ``simplify`` never sees a square root (minutes of heuristic gcds)."""
    S = gm.examples.routh_sphere()
    integrals = S.first_integrals()
    seen = []
    simplify = sp.simplify
    monkeypatch.setattr(sp, "simplify", lambda e, *a, **k: seen.append(e) or simplify(e, *a, **k))
    steps = shape_quadratures(S, integrals)
    monkeypatch.undo()
    assert not any(p.exp.is_Rational and not p.exp.is_Integer and p.base.free_symbols
                   for e in seen for p in sp.sympify(e).atoms(sp.Pow))
    pars = {"m": 1.1, "a": 0.3, "g": 9.8, "R": 0.9, "I1": 0.7, "I3": 0.5}
    state = {c.name: 0.0 for c in S.phase_space.coords}
    state.update(theta=1.2, thetadot=0.3, psidot=1.1, phidot=2.3, phi=0.4, psi=-0.2)
    linear = [F for F in integrals if F.kind != "energy"]
    energy = next(F for F in integrals if F.kind == "energy")
    values = {sp.Symbol(f"c_{k + 1}", real=True): F.evaluate(state, pars)
              for k, F in enumerate(linear)}
    values[sp.Symbol("e", real=True)] = energy.evaluate(state, pars)
    values.update({p: pars[p.name] for p in S.manifold.parameters})
    values.update({c: state[c.name] for c in S.phase_space.coords})
    by = {st.description: st.equation.rhs.function for st in steps if st.equation is not None}
    assert abs(complex(sp.N(by["time along theta"].xreplace(values), 30)) - 1 / 0.3) < 1e-12
    for q in ("phi", "psi"):
        rate = complex(sp.N(by[f"{q} by a quadrature"].xreplace(values), 30)) * 0.3
        assert abs(rate - state[f"{q}dot"]) < 1e-12
