"""The multipliers of the N-link snake of Chaplygin sleighs (Ostrowski & Burdick (1998)):
substituted with the accelerations into the Lagrange-d'Alembert equations
:math:`H\\ddot q + \\beta = Q + a^{\\mathsf T}\\lambda` they leave no residual (zero policy);
they agree with the one cancelled solve of :math:`a_{\\rm dep}^{\\mathsf T}\\lambda = (H\\ddot q
- F)_{\\rm dep}`; the explicit equations read off the implicit form (``explicit=False``, the
report's route) are the ones derived explicitly."""

from __future__ import annotations

import random

import mpmath
import pytest
import sympy as sp

import geomech as gm
from geomech.core.algebra.solve import solve_linear
from geomech.core.zero import default_policy


def _lda_residuals(n: int) -> list:
    S = gm.examples.chaplygin_snake(n)
    eq = S.equations("lagrange_dalembert")
    acc = eq.data["accelerations"]
    sub = {**acc, **eq.multipliers}
    dep = {v: e for v, e in S.dependent_solution.items()}
    return [(e.lhs - e.rhs).xreplace(sub).xreplace(dep) for e in eq.equations
            if e.has(*eq.multipliers)]


def _vanish_at_random_points(exprs: list, points: int = 3) -> bool:
    """Independent numeric check: every expression evaluated by ``lambdify`` (common
    subexpressions shared) in 50-digit arithmetic at random rational points (parameters
    positive) is below 1e-30 in absolute value (a filter: a "yes" is probable)."""
    syms = sorted(set().union(*(e.free_symbols for e in exprs)), key=str)
    f = sp.lambdify(syms, exprs, modules="mpmath", cse=True)
    rng = random.Random(7)
    with mpmath.workdps(50):
        for _ in range(points):
            vals = [mpmath.mpf(rng.randint(1, 97)) / rng.randint(7, 31) for _ in syms]
            if any(abs(v) > mpmath.mpf(10)**-30 for v in f(*vals)):
                return False
    return True


@pytest.mark.parametrize("n", [1])
def test_snake_multipliers_satisfy_lagrange_dalembert(n):
    """Exactly (zero policy): the structured multipliers are expanded by the decision."""
    res = _lda_residuals(n)
    assert len(res) >= 2
    assert all(default_policy().is_zero(r) for r in res)


@pytest.mark.parametrize("n", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_snake_multipliers_satisfy_lagrange_dalembert_at_random_points(n):
    """At random exact points of the zero policy (a filter: probable, never a wrong "no")."""
    res = _lda_residuals(n)
    assert len(res) == n + 2
    assert _vanish_at_random_points(res)


def _cancelled_multipliers(S, eq) -> list:
    """The multipliers as one exact ring solve of the dependent rows (the former route):
    :math:`a_{\\rm dep}^{\\mathsf T}\\lambda = (H\\ddot q - Q + \\beta)_{\\rm dep}`, read off
    the equations :math:`H\\ddot q + \\beta - Q - a^{\\mathsf T}\\lambda = 0` at
    :math:`\\lambda = 0`."""
    acc = eq.data["accelerations"]
    lam = list(eq.multipliers)
    dep = list(S.dependent_indices)
    rows = [eq.equations[j] for j in dep]
    zero = dict.fromkeys(lam, sp.S.Zero)
    resid = sp.Matrix([S.restricted((r.lhs - r.rhs).xreplace(zero).xreplace(acc))
                       for r in rows])
    A = sp.Matrix([[-sp.diff(r.lhs - r.rhs, m) for m in lam] for r in rows])
    return list(solve_linear(A, resid))


@pytest.mark.parametrize("n", [1])
def test_snake_multipliers_equal_the_cancelled_solve(n):
    """The structured multipliers against one cancelled ring solve, exactly."""
    S = gm.examples.chaplygin_snake(n)
    eq = S.equations("lagrange_dalembert")
    old = _cancelled_multipliers(S, eq)
    pol = default_policy()
    assert len(old) == n
    assert all(pol.is_zero(new - o) for new, o in zip(eq.multipliers.values(), old))


@pytest.mark.parametrize("n", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_snake_implicit_route_gives_the_explicit_equations(n):
    """``explicit=False`` then ``rhs`` (the report) and the explicit derivation: the same
    expressions and multipliers (not only the same functions)."""
    S = gm.examples.chaplygin_snake(n)
    ex = S.equations("lagrange_dalembert")
    im = gm.examples.chaplygin_snake(n).equations("lagrange_dalembert", explicit=False)
    assert im.rhs == ex.rhs
    assert im.multipliers == ex.multipliers
