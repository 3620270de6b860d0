"""Every form is a class that derives its own equations, listed in one table; ``explicit`` is
an argument passed down, never ambient state (issue 25 item 3).

Mathematics asserted: each class's derivation gives the equations of its form, which agree
with every other independent derivation (Lagrange--d'Alembert, Voronets, Gibbs--Appell,
Hamel, Tzenoff, Chaplygin) exactly on catalogue systems, and at exact random points (rational
arithmetic, no symbolic inversion) on the three-link snake of Chaplygin sleighs (Ostrowski &
Burdick (1998)), whose explicit Voronets and Gibbs--Appell fields keep the structure of their
solves; the deferred (implicit) equations of every form solve to its explicit ones.
"""

from __future__ import annotations

import itertools

import pytest
import sympy as sp

import geomech as gm
from geomech.mechanics.equations import registry
from geomech.mechanics.equations.common import DeferredSolve, mass_matrix_solution
from geomech.mechanics.equations.motion import EquationsOfMotion

FORMS = [c.form for c in registry.BUILTIN_FORMS]
CLOSED = [f for f in FORMS if f != "vakonomic"]   # the vakonomic equations are another dynamics


def test_the_table_lists_each_form_class_once_with_its_own_derivation():
    assert len(set(FORMS)) == len(FORMS) == 7
    for cls in registry.BUILTIN_FORMS:
        assert issubclass(cls, EquationsOfMotion) and cls is not EquationsOfMotion
        assert cls.derive.__func__ is not EquationsOfMotion.derive.__func__, cls
        assert registry.form_entry(cls.form).cls is cls
        assert registry.form_class(cls.form) is cls
    with pytest.raises(NotImplementedError, match="derive"):
        EquationsOfMotion.derive(gm.examples.chaplygin_sleigh())


@pytest.mark.parametrize("system", ["chaplygin_sleigh", "rolling_disk", "skate"])
def test_independent_derivations_agree_pairwise(system):
    """Each pair of forms, derived by their own classes, gives the same field exactly."""
    S = gm.examples.get(system)
    eqs = {}
    for cls in registry.BUILTIN_FORMS:
        if cls.form == "vakonomic":
            continue
        try:
            eqs[cls.form] = cls.derive(S)
        except ValueError as exc:               # Chaplygin's form needs a Chaplygin system
            assert cls.form == "chaplygin" and "not a Chaplygin system" in str(exc)
    assert {"lagrange_dalembert", "voronets", "appell", "quasi_velocities",
            "tzenoff"} <= set(eqs)
    for a, b in itertools.combinations(sorted(eqs), 2):
        assert eqs[a].agrees_with(eqs[b]), (system, a, b)


@pytest.mark.parametrize("form", CLOSED)
def test_explicit_is_passed_down_and_the_deferred_equations_are_built(form):
    S = gm.examples.chaplygin_sleigh()
    cls = registry.form_class(form)
    eq = cls.derive(S, explicit=False)
    assert type(eq) is cls and not eq.is_explicit
    M, F, z = eq.mass_matrix_form()
    assert M.shape == (2, 2) and len(z) == 2
    assert not eq.is_explicit                     # the implicit form needs no solve
    assert eq.agrees_with(cls.derive(S))          # the deferred solve, done on first access
    assert eq.is_explicit
    with pytest.raises(TypeError, match="explicit"):
        cls.derive(S, explicit="no")


def test_a_deferred_solve_is_a_value():
    x = sp.Symbol("x")
    M, b = sp.Matrix([[2, x], [x, 3]]), sp.Matrix([1, x])
    z, rec = mass_matrix_solution(M, b, "mass matrix", explicit=False)
    assert isinstance(rec, DeferredSolve) and tuple(z) == rec.unknowns
    assert sp.simplify(M * rec.solve() - b) == sp.zeros(2, 1)
    with pytest.raises(ValueError, match="square"):
        DeferredSolve.of(sp.Matrix([[1, 2]]), sp.Matrix([1]))


#: the two-link snake in the default suite (seconds), the three-link one (minutes) in slow
SNAKES = [2, pytest.param(3, marks=pytest.mark.slow)]
_snakes: dict = {}


def _snake(n: int):
    if n not in _snakes:
        _snakes[n] = gm.examples.chaplygin_snake(n)
    return _snakes[n]


@pytest.mark.parametrize("n", SNAKES)
def test_snake_forms_agree_at_exact_points(n):
    """The snake of two or three links: the implicit Voronets and Gibbs--Appell forms give the
    Lagrange--d'Alembert rates at random points with rational sines and cosines, in exact
    rational arithmetic (independent derivations, no symbolic inversion)."""
    snake = _snake(n)
    imps = {f: snake.equations(f, explicit=False).mass_matrix_form()
            for f in ("lagrange_dalembert", "voronets", "appell")}
    ref = imps["lagrange_dalembert"]
    done = 0
    for seed in range(12):
        pt = ref.random_point(seed=seed)
        try:
            rates = {f: imp.rates_at(pt) for f, imp in imps.items()}
        except (ValueError, ZeroDivisionError):
            continue                              # a singular point of the chart
        for f, r in rates.items():
            for c in ref.coords:
                assert r[c].is_Rational and r[c] == rates["lagrange_dalembert"][c], (f, c)
        done += 1
        if done == 2:
            break
    assert done == 2


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3])
def test_snake_explicit_fields_keep_their_structure_and_agree(n):
    """The explicit Voronets and Gibbs--Appell fields of the snake (their pieces normalised
    only where that pays) agree with Lagrange--d'Alembert at random exact points."""
    snake = _snake(n)
    ld = snake.equations("lagrange_dalembert")
    for form in ("voronets", "appell"):
        assert snake.equations(form).agrees_with(ld, numeric=True, points=2), form
