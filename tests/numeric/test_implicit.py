"""Implicit (mass-matrix) equations and their numerics.

Mathematics asserted: the mass-matrix form M z = F, xdot = g + P z of every form gives the
explicit field exactly (solve) and pointwise (rates_at, exact rational arithmetic at points
with rational sines and cosines); the bordered Lagrange-d'Alembert system gives the same
accelerations and the same multipliers; the compiled implicit right-hand side (numpy.linalg
.solve at each call) equals the compiled explicit one; trajectories of the implicit and
explicit forms coincide; the energy of the rolling ellipsoid is conserved to 1e-9 along the
implicit flow (and exactly: dE/dt = grad E . g + u^T F = 0 without inverting M).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.core.algebra.solve import solve_linear
from geomech.core.budget import work_limit
from geomech.core.zero import default_policy
from geomech.mechanics.equations import ImplicitEquations
from geomech.mechanics.equations.common import mass_matrix_solution
from geomech.numeric import compile_vector_field, simulate
from geomech.numeric.implicit import CompiledImplicitField

Rat = sp.Rational
zero = default_policy().is_zero


# -- the implicit form ------------------------------------------------------------------
def test_deferred_solve_records_only_mass_matrices():
    x = sp.Symbol("x")
    M = sp.Matrix([[2, x], [x, 3]])
    # explicit=False is an argument of the mass-matrix solve, never ambient state
    z, rec = mass_matrix_solution(M, sp.Matrix([1, x]), "mass matrix of something",
                                  explicit=False)
    w = solve_linear(M, sp.Matrix([1, x]), what="constraint minor")
    assert rec is not None and tuple(z) == rec.unknowns
    assert zero((M * w)[0] - 1) and zero((M * w)[1] - x)       # solved as usual
    # with explicit=True nothing is deferred
    s, none = mass_matrix_solution(M, sp.Matrix([1, x]), "mass matrix")
    assert none is None and all(zero(e) for e in M * s - sp.Matrix([1, x]))
    assert all(zero(a - b) for a, b in zip(rec.solve(), s))


@pytest.mark.parametrize("method", ["lagrange_dalembert", "voronets", "quasi_velocities",
                                    "appell", "tzenoff", "chaplygin"])
def test_implicit_form_solves_to_the_explicit_field(method):
    """M z = F solved exactly and substituted into the rates gives the explicit equations of
    the same form; explicit=False does not compute them until asked."""
    disk = gm.examples.rolling_disk()
    eq = disk.equations(method, explicit=False)
    assert not eq.is_explicit
    assert disk.equations(method, explicit=False) is eq          # cached
    imp = eq.mass_matrix_form()
    M, F, z = imp
    assert M.shape == (3, 3) and len(z) == 3
    # the rates are affine in z and P selects the velocity rates
    u = disk.independent_velocities
    assert all(not imp.rates[c].has(*z) for c in disk.manifold.coords)
    assert imp.selection[len(disk.manifold.coords):, :].rank() == 3
    ref = disk.equations(method)                     # eager (default) form
    assert eq.agrees_with(ref)                       # forces the lazy explicit solve
    assert eq.is_explicit
    V = imp.vector_field()
    assert all(zero(a - b) for a, b in zip(V.components, ref.vector_field().components))
    assert imp.agrees_with(disk.equations("lagrange_dalembert"))
    assert set(imp.unknowns).isdisjoint(u)


def test_mass_matrix_form_of_eager_equations(sleigh):
    """The implicit form read off explicit equations equals the deferred one."""
    for method in ("voronets", "appell", "tzenoff", "quasi_velocities"):
        a = sleigh.equations(method).mass_matrix_form()
        b = sleigh.equations(method, explicit=False).mass_matrix_form()
        Ma, Fa, za = a
        Mb, Fb, zb = b
        assert za == zb
        # same equations up to a row operation: M_a^{-1} F_a = M_b^{-1} F_b
        sa, sb = a.solve(), b.solve()
        assert all(zero(sa[k] - sb[k]) for k in za), method


def test_bordered_system_gives_accelerations_and_multipliers(disk):
    eq = disk.equations("lagrange_dalembert")
    bord = eq.mass_matrix_form("bordered")
    n, k = disk.manifold.dim, disk.n_constraints
    assert bord.mass_matrix.shape == (n + k, n + k) and bord.kind == "bordered"
    pt = bord.random_point(seed=5)
    mine = bord.rates_at(pt)
    red = eq.mass_matrix_form().rates_at(pt)
    assert all(mine[c] == red[c] for c in disk.phase_space.coords)
    assert all(v.is_Rational for v in mine.values())          # exact comparison
    # the multipliers of the bordered solution are the symbolic multipliers at the point
    rep = bord._point(pt)
    Mv = bord.mass_matrix.xreplace(rep)
    Fv = bord.forcing.xreplace(rep)
    sol = Mv.LUsolve(Fv)
    for j, expr in enumerate(eq.multipliers.values()):
        val = expr.xreplace(rep)
        assert val.is_Rational and sol[n + j] == val


def test_bordered_only_for_lagrange_dalembert(sleigh):
    with pytest.raises(ValueError, match="bordered"):
        sleigh.equations("voronets").mass_matrix_form("bordered")
    with pytest.raises(ValueError, match="kind"):
        sleigh.equations().mass_matrix_form("full")
    with pytest.raises(TypeError, match="explicit"):
        sleigh.equations("voronets", explicit="no")


def test_vakonomic_has_no_phase_space_mass_matrix_form():
    S = gm.examples.skate()
    with pytest.raises(ValueError, match="vakonomic"):
        S.equations("vakonomic").mass_matrix_form()


def test_rates_at_detects_a_wrong_field(sleigh):
    """agrees_with is not vacuous: a perturbed field is rejected."""
    imp = sleigh.equations(explicit=False).mass_matrix_form()
    V = sleigh.vector_field()
    comps = list(V.components)
    comps[-1] = comps[-1] + sleigh.manifold.coords[0] * 10**-6
    bad = sleigh.phase_space.vector_field(comps)
    assert imp.agrees_with(V)
    assert not imp.agrees_with(bad)


def test_rates_at_errors(sleigh):
    imp = sleigh.equations(explicit=False).mass_matrix_form()
    with pytest.raises(ValueError, match="no value"):
        imp.rates_at({"x": 1})
    with pytest.raises(ValueError, match="unknown name"):
        imp.rates_at({"nonsense": 1})


def test_energy_derivative_without_inversion(disk):
    """dE/dt = grad E . g + u^T F with the cofactor u (M^T u = P^T grad E), exactly 0."""
    imp = disk.equations("voronets", explicit=False).mass_matrix_form()
    E = disk.energy()
    dE = imp.time_derivative(E, cofactor=disk.independent_velocities)
    assert zero(dE)
    with pytest.raises(ValueError, match="cofactor"):
        imp.time_derivative(E, cofactor=[1, 0, 0])


# -- numerics ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["chaplygin_sleigh", "rolling_disk", "hoop"])
def test_compiled_implicit_equals_compiled_explicit(name):
    S = gm.examples.get(name)
    params = {p: 1.0 + 0.37 * i for i, p in enumerate(S.manifold.parameters)}
    f_exp = compile_vector_field(S.vector_field(), parameters=params)
    for kind in ("reduced", "bordered"):
        imp = S.equations(explicit=False).mass_matrix_form(kind)
        f_imp = compile_vector_field(imp, parameters=params)
        assert isinstance(f_imp, CompiledImplicitField)
        rng = np.random.default_rng(3)
        Y = rng.uniform(0.2, 1.2, size=(len(S.phase_space.coords), 7))
        for y in Y.T:
            assert np.allclose(f_imp(0.0, y), f_exp(0.0, y), rtol=1e-11, atol=1e-12)
        # vectorised evaluation (batched solve)
        assert np.allclose(f_imp(0.0, Y), f_exp(0.0, Y), rtol=1e-11, atol=1e-12)


def test_compile_accepts_equations_and_rejects_other_objects(sleigh):
    f = compile_vector_field(sleigh.equations("appell", explicit=False),
                             parameters={"m": 1, "I": 2, "a": 0.3})
    assert isinstance(f, CompiledImplicitField)
    with pytest.raises(TypeError, match="VectorField or a mass-matrix form"):
        compile_vector_field(3)
    with pytest.raises(ValueError, match="neither coordinates nor given parameters"):
        compile_vector_field(sleigh.equations(explicit=False).mass_matrix_form())


def test_simulate_implicit_equals_explicit(sleigh):
    params = {"m": 1.0, "I": 0.7, "a": 0.4}
    x0 = {"x": 0.0, "y": 0.0, "phi": 0.3, "xdot": 0.5, "phidot": 0.2}
    a = simulate(sleigh, x0, 4.0, parameters=params, t_eval=np.linspace(0, 4, 9))
    b = simulate(sleigh, x0, 4.0, parameters=params, t_eval=np.linspace(0, 4, 9),
                 implicit=True)
    c = simulate(sleigh.equations("appell", explicit=False).mass_matrix_form(), x0, 4.0,
                 parameters=params, t_eval=np.linspace(0, 4, 9))
    assert np.allclose(a.states, b.states, rtol=1e-9, atol=1e-10)
    assert np.allclose(a.states, c.states, rtol=1e-9, atol=1e-10)
    assert b.drift["energy"] < 1e-9 and b.drift["constraint 1"] < 1e-9
    with pytest.raises(ValueError, match="implicit=True"):
        simulate(sleigh.vector_field(), x0, 1.0, parameters=params, implicit=True)


def _ellipsoid_numeric():
    return gm.examples.ellipsoid(b1=1, b2=Rat(3, 2), b3=2, m=1, I1=Rat(13, 10), I2=Rat(8, 5),
                                 I3=Rat(9, 10), g=Rat(981, 100))


@pytest.mark.slow
def test_ellipsoid_energy_conserved_implicit_numeric_parameters():
    """Rolling ellipsoid (numeric semi-axes and moments): the implicit Lagrange-d'Alembert
    flow conserves the energy and the constraints to 1e-9 (relative)."""
    S = _ellipsoid_numeric()
    with work_limit(100, "implicit equations of the ellipsoid"):     # 18 units of work today
        imp = S.equations(explicit=False).mass_matrix_form()
    x0 = {"x": 0.0, "y": 0.0, "theta": 0.7, "phi": 0.4, "psi": 0.2,
          "thetadot": 0.3, "phidot": -0.5, "psidot": 1.1}
    res = simulate(imp, x0, 3.0)
    assert res.success
    assert res.drift["energy"] < 1e-9
    # and pointwise, without inversion: dE/dt = 0 at random exact points (30 digits)
    assert imp.is_first_integral(S.energy(), points=2)
    assert not imp.is_first_integral(S.manifold.coords[2], points=1)       # theta
    assert res.drift["constraint 1"] < 1e-9 and res.drift["constraint 2"] < 1e-9


@pytest.mark.slow
def test_ellipsoid_energy_conserved_implicit_symbolic():
    """The symbolic ellipsoid (all 8 parameters symbolic): implicit form in seconds,
    simulate with numbers, energy drift < 1e-9; exact energy identity without inversion."""
    S = gm.examples.ellipsoid()
    imp = S.equations(explicit=False).mass_matrix_form()
    params = {"b1": 1.0, "b2": 1.5, "b3": 2.0, "m": 1.0, "I1": 1.3, "I2": 1.6, "I3": 0.9,
              "g": 9.81}
    x0 = {"x": 0.0, "y": 0.0, "theta": 0.7, "phi": 0.4, "psi": 0.2,
          "thetadot": 0.3, "phidot": -0.5, "psidot": 1.1}
    res = simulate(imp, x0, 3.0, parameters=params)
    assert res.success and res.drift["energy"] < 1e-9


def test_implicit_equations_validation(sleigh):
    imp = sleigh.equations(explicit=False).mass_matrix_form()
    M, F, z = imp
    with pytest.raises(ValueError, match="mass matrix must be"):
        ImplicitEquations(sleigh, "x", sp.eye(3), F, z, imp.rates)
    with pytest.raises(ValueError, match="no rate"):
        ImplicitEquations(sleigh, "x", M, F, z, {})
    bad = dict(imp.rates)
    c = sleigh.phase_space.coords[-1]
    bad[c] = z[0] ** 2
    with pytest.raises(ValueError, match="affine"):
        ImplicitEquations(sleigh, "x", M, F, z, bad)


def test_lazy_multipliers_and_accelerations_are_the_eager_ones(disk):
    """explicit=False leaves no placeholder behind: multipliers, accelerations, form_rhs and
    the equations equal those of the eager derivation."""
    lazy = disk.equations("lagrange_dalembert", explicit=False)
    eager = disk.equations("lagrange_dalembert")
    lm, em = lazy.multipliers, eager.multipliers
    assert lm.keys() == em.keys() and all(zero(lm[k] - em[k]) for k in em)
    la, ea = lazy.data["accelerations"], eager.data["accelerations"]
    assert la.keys() == ea.keys() and all(zero(la[k] - ea[k]) for k in ea)
    for k, v in lazy.form_rhs.items():
        assert zero(v - eager.form_rhs[k])
    assert [e.lhs - e.rhs for e in lazy.equations] == [e.lhs - e.rhs for e in eager.equations]
    free = set()
    for v in (*lazy.rhs.values(), *lm.values(), *la.values()):
        free |= v.free_symbols
    assert not any(isinstance(s, sp.Dummy) for s in free)
