"""The multipliers of the N-link snake of Chaplygin sleighs (Ostrowski & Burdick (1998)):
substituted with the accelerations into the Lagrange-d'Alembert equations
:math:`H\\ddot q + \\beta = Q + a^{\\mathsf T}\\lambda` they leave no residual (zero policy)."""

from __future__ import annotations

import pytest

import geomech as gm
from geomech.core.zero import default_policy


def _lda_residuals(n: int) -> list:
    S = gm.examples.chaplygin_snake(n)
    eq = S.equations("lagrange_dalembert")
    acc = eq.data["accelerations"]
    sub = {**acc, **eq.multipliers}
    dep = {v: e for v, e in S.dependent_solution.items()}
    return [(e.lhs - e.rhs).xreplace(sub).xreplace(dep) for e in eq.equations
            if e.has(*eq.multipliers)]


@pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_snake_multipliers_satisfy_lagrange_dalembert(n):
    res = _lda_residuals(n)
    assert len(res) >= 2
    assert all(default_policy().is_zero(r) for r in res)
