"""The worker task of ``solve_linear_ode`` / ``solve_first_order``: each method classified on
its own, in order, the same solution as ``dsolve`` with the method named."""

from __future__ import annotations

import pytest
import sympy as sp
import sympy.solvers.ode as ode
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.lie import characteristics
from geomech.lie.characteristics import LINEAR_ODE_HINTS

x = sp.Symbol("x")
u = sp.Function("u")(x)


@pytest.mark.parametrize("eq", [
    x**2 * u.diff(x, 2) - 2 * u,                                      # Euler
    (1 - x**2) * u.diff(x, 2) - 2 * x * u.diff(x) + 6 * u,            # Legendre, n = 2
    u.diff(x, 3) - u.diff(x, 2) / x,                                  # reduction of order
])
def test_linear_ode_classified_per_method_and_solved_as_dsolve_would(eq, monkeypatch):
    """``dsolve`` with the first matching method of :data:`LINEAR_ODE_HINTS` (classified by
    sympy itself) gives the same solution, ``srepr``-identical; in the task, ``classify_ode``
    runs once per method tried, up to that one (``dsolve`` receives the match instead of
    classifying again)."""
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
    assert calls == list(LINEAR_ODE_HINTS[:LINEAR_ODE_HINTS.index(hint) + 1])


t = sp.Symbol("t")
y = sp.Function("y")(t)
# y' = f(t) g(y): separable; some are also linear or Bernoulli (methods before "separable")
f_of_t = st.sampled_from([sp.cos(t) / sp.sin(t), t, 1 / t, t**2 + 1, sp.exp(t), sp.sin(t)])
g_of_y = st.sampled_from([sp.cos(y) / sp.sin(y), y, y**2, 1 / y, sp.exp(-y), 1 + y**2,
                          sp.sin(y), y**3, sp.sin(y) / (1 + y**2)])


@settings(max_examples=3, deadline=None)
@given(f_of_t, g_of_y)
def test_separable_equations_solved_as_dsolve_would(f, g):
    """The first-order task gives, ``srepr``-identical (up to the names of the dummies of
    unevaluated integrals), the solution of ``dsolve`` with the first of the task's methods
    that sympy's own classification (every method) lists and that solves the equation."""
    eq = sp.Eq(y.diff(t), f * g)
    names = sp.classify_ode(eq, y)
    expected = None
    for hint in (h for h in characteristics._SAFE_HINTS if h in names):
        try:
            expected = sp.dsolve(eq, y, hint=hint, simplify=False)
            break
        except (NotImplementedError, ValueError):
            continue
    got = characteristics._dsolve_task(eq, y)
    assert sp.srepr(_named_dummies(got)) == sp.srepr(_named_dummies(expected))


def _named_dummies(e):
    """``e`` with its dummies (the variables of unevaluated integrals, new at each call)
    replaced by symbols named after them, in order of name."""
    if e is None:
        return e
    dummies = sorted(e.atoms(sp.Dummy), key=str)
    return e.xreplace({d: sp.Symbol(f"dummy{i}_{d.name}") for i, d in enumerate(dummies)})
