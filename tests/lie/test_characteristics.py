"""The worker task of ``solve_linear_ode`` / ``solve_first_order``: one classification of the
equation, the same solution as ``dsolve`` with the method named."""

from __future__ import annotations

import pytest
import sympy as sp
import sympy.solvers.ode as ode

from geomech.lie import characteristics
from geomech.lie.characteristics import LINEAR_ODE_HINTS

x = sp.Symbol("x")
u = sp.Function("u")(x)


@pytest.mark.parametrize("eq", [
    x**2 * u.diff(x, 2) - 2 * u,                                      # Euler
    (1 - x**2) * u.diff(x, 2) - 2 * x * u.diff(x) + 6 * u,            # Legendre, n = 2
    u.diff(x, 3) - u.diff(x, 2) / x,                                  # reduction of order
])
def test_linear_ode_classified_once_and_solved_as_dsolve_would(eq, monkeypatch):
    """``dsolve`` with the first matching method of :data:`LINEAR_ODE_HINTS` (classified by
    sympy itself) gives the same solution, ``srepr``-identical; in the task, ``classify_ode``
    runs once (``dsolve`` receives the match instead of classifying again)."""
    names = sp.classify_ode(eq, u)
    hint = next(h for h in LINEAR_ODE_HINTS if h in names)
    expected = sp.dsolve(eq, u, hint=hint, simplify=False)
    calls = []
    classify = ode.classify_ode

    def counted(*args, **kw):
        calls.append(kw.get("hint"))
        return classify(*args, **kw)

    monkeypatch.setattr(sp, "classify_ode", counted)
    monkeypatch.setattr(ode, "classify_ode", counted)
    got = characteristics._dsolve_task(eq, u, LINEAR_ODE_HINTS)
    assert sp.srepr(got) == sp.srepr(expected)
    assert sp.checkodesol(eq, got)[0] is True
    assert calls == ["all"]
