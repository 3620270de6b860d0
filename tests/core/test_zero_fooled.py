"""Zero decisions that cannot be fooled.

Each case below was once decided wrongly (with ``certain=True`` or silently): dependent
angles sampled independently (``sin(x/2)`` against ``cos(x)``), derivatives of one function at
different points collapsed (``f'(x**2)`` against ``f'(y**2)``), tiny exact coefficients
dropped by an absolute threshold, ``Abs``/``sign``/unevaluated derivatives not evaluated,
``nan`` called zero.  Every certain verdict is checked against an independent numerical
evaluation with mpmath at real points (never with the policy's own machinery).
"""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.core.budget import BudgetExceeded, time_limit
from geomech.core.zero import UndecidedZero, ZeroPolicy, default_policy

M = gm.Manifold("M", "x y z")
x, y, z = M.coords
f = sp.Function("f")
half = sp.Rational(1, 2)


def exact_policy(**kw) -> ZeroPolicy:
    """No simplify fallback: certain zeros must come from exact stages."""
    return ZeroPolicy(confirm_with_simplify=False, warn=False, **kw)


def values(e: sp.Expr, npts: int = 4, seed: int = 1) -> list[complex]:
    """Independent check: values of ``e`` at random real points (mpmath, 40 digits)."""
    import random

    rng = random.Random(seed)
    if e.has(f):            # an identity for every f holds for this one
        t = sp.Dummy("t")
        e = e.subs(f, sp.Lambda(t, sp.exp(t / 3) * sp.sin(3 * t) + t ** 3)).doit()
    e = e.doit()
    syms = sorted(e.free_symbols, key=sp.default_sort_key)
    fn = sp.lambdify(syms, e, modules="mpmath")
    out = []
    with mpmath.workdps(40):
        for _ in range(npts):
            out.append(complex(fn(*[mpmath.mpf(rng.uniform(0.3, 2.7)) for _ in syms])))
    return out


def assert_zero(e: sp.Expr, policy: ZeroPolicy | None = None) -> None:
    v = (policy or exact_policy()).zero_test(e)
    assert v.zero and v.certain, (e, v)
    assert all(abs(val) < 1e-25 for val in values(e)), e


def assert_nonzero(e: sp.Expr, policy: ZeroPolicy | None = None) -> None:
    v = (policy or exact_policy()).zero_test(e)
    assert not v.zero and v.certain, (e, v)


def never_wrong(e: sp.Expr, truly_zero: bool) -> None:
    v = exact_policy().zero_test(e)
    if v.certain:
        assert v.zero == truly_zero, (e, v)


def dist(*comps) -> gm.Distribution:
    return gm.Distribution([M.vector_field(list(c)) for c in comps])


# -- 1. dependent angles: one base angle per generator --------------------------------------
def test_half_angle_identity_is_zero_and_its_distribution_is_involutive() -> None:
    e = sp.sin(x / 2) ** 2 - (1 - sp.cos(x)) / 2
    assert_zero(e)
    assert default_policy().rank([[1, sp.sin(x / 2)], [sp.sin(x / 2), (1 - sp.cos(x)) / 2]]) == 1
    D = dist([1, 0, 0], [0, 1, e])
    fr = D.frobenius()
    assert fr.involutive and fr.certain
    assert D.growth_vector() == (2,)


@pytest.mark.parametrize("identity", [
    sp.sin(x) - (3 * sp.sin(x / 3) - 4 * sp.sin(x / 3) ** 3),
    sp.cos(x / 2) ** 2 - (1 + sp.cos(x)) / 2,
    sp.cos(2 * x / 3) - (1 - 2 * sp.sin(x / 3) ** 2),
    sp.tan(x / 2) - sp.sin(x) / (1 + sp.cos(x)),
    sp.sin(x * y) ** 2 + sp.cos(x * y) ** 2 - 1,
    sp.sin(x * y) - 2 * sp.sin(x * y / 2) * sp.cos(x * y / 2),
    sp.sin(x + y) - sp.sin(x) * sp.cos(y) - sp.cos(x) * sp.sin(y),
    sp.cos(x ** 2 + y / 2) - sp.cos(x ** 2) * sp.cos(y / 2) + sp.sin(x ** 2) * sp.sin(y / 2),
    sp.sin(2 * sp.exp(x)) - 2 * sp.sin(sp.exp(x)) * sp.cos(sp.exp(x)),
])
def test_trigonometric_identities_with_rational_multiples_and_other_arguments(identity) -> None:
    assert_zero(identity)
    assert_nonzero(identity + x * y / 7)


def test_base_angles_keep_sign_assumptions() -> None:
    """x = 2*theta must keep x > 0: sqrt(x**2) = x stays an identity."""
    p = sp.Symbol("p", positive=True)
    assert_zero(sp.sqrt(p ** 2) - p + sp.sin(p / 2) ** 2 - (1 - sp.cos(p)) / 2)
    assert_nonzero(sp.sqrt(y ** 2) - y + sp.sin(y / 2) ** 2 - (1 - sp.cos(y)) / 2)


@pytest.mark.parametrize("e", [
    sp.sin(x ** 2) - sp.sin(x) ** 2,
    sp.sin(x * y) - sp.sin(x) * sp.sin(y),
    sp.cos(x / 2) - sp.cos(x),
    sp.sin(sp.exp(x)) - sp.exp(x),
])
def test_different_angles_are_not_identified(e) -> None:
    assert_nonzero(e)
    assert any(abs(v) > 1e-6 for v in values(e))


def test_dependent_opaque_angles_are_never_certainly_different() -> None:
    """1/(1+y) + y/(1+y) = 1: two generators that are not independent modulo constants."""
    e = sp.sin(1 / (1 + y) + y / (1 + y)) - sp.sin(1)
    never_wrong(e, truly_zero=True)
    never_wrong(e + sp.Rational(1, 10**30), truly_zero=False)


# -- 2. values of an arbitrary function at different points ----------------------------------
def test_derivatives_at_different_points_are_independent() -> None:
    D = dist([1, 0, x * f(y ** 2)], [0, 1, y * f(x ** 2)])
    fr = D.frobenius()
    assert not fr.involutive and fr.certain
    assert D.growth_vector() == (2, 3)
    # by hand: [X, Y]^z = X(y f(x^2)) - Y(x f(y^2)) = 2xy (f'(x^2) - f'(y^2))
    c = fr.bracket.components[2]
    v = default_policy().zero_test(c - (y * sp.diff(f(x ** 2), x) - x * sp.diff(f(y ** 2), y)))
    assert v.zero and v.certain
    assert_nonzero(c)
    assert_zero(sp.diff(f(x ** 2), x) - 2 * x * sp.Subs(sp.Derivative(f(y), y), y, x ** 2))


def test_equal_arguments_are_identified_and_unproved_ones_never_certainly_differ() -> None:
    assert_zero(f((x + 1) ** 2) - f(x ** 2 + 2 * x + 1))
    assert_nonzero(f(x ** 2) - f(y ** 2))
    # equal arguments that no rational normal form identifies
    never_wrong(f(sp.sin(x) ** 2) - f(1 - sp.cos(x) ** 2), truly_zero=True)
    with pytest.raises(UndecidedZero):
        exact_policy(strict=True).zero_test(f(sp.sin(x) ** 2) - f(1 - sp.cos(x) ** 2))


# -- 3. tiny exact coefficients -------------------------------------------------------------
def test_tiny_exact_coefficients_are_not_zero() -> None:
    tiny = sp.Rational(1, 10 ** 40)
    assert_nonzero(tiny * sp.exp(-x ** 2))
    assert_nonzero(tiny * sp.exp(-100))
    assert_nonzero(sp.exp(x) * (1 + tiny) - sp.exp(x))
    assert_nonzero(sp.pi - sp.Rational(355, 113))
    D = dist([1, 0, 0], [0, 1, tiny * sp.exp(-x ** 2)])
    fr = D.frobenius()
    assert not fr.involutive and fr.certain and D.growth_vector() == (2, 3)


def test_floats_and_complex_exponential_constants() -> None:
    assert_nonzero(sp.Float("1e-40"))
    assert exact_policy().zero_test(sp.Float(0)).certain
    assert_zero(sp.exp(sp.I * sp.pi / 3) - half - sp.sqrt(3) * sp.I / 2)
    assert_zero(sp.exp(sp.I * x / 2) ** 2 - sp.cos(x) - sp.I * sp.sin(x))
    # atan(tan(u)) = u only on (-pi/2, pi/2): not an identity
    never_wrong(sp.atan(sp.tan(x / 2)) - x / 2, truly_zero=False)


def test_algebraic_constants_are_decided_exactly() -> None:
    assert_zero(sp.sqrt(2) + sp.sqrt(3) - sp.sqrt(5 + 2 * sp.sqrt(6)))
    assert_nonzero(sp.sqrt(2) + sp.sqrt(3) - sp.sqrt(5 + 2 * sp.sqrt(6)) + sp.Rational(1, 10**50))


# -- 4. closed forms first ------------------------------------------------------------------
def test_abs_sign_and_derivatives_of_known_functions() -> None:
    assert_zero(sp.Abs(x) - x * sp.sign(x))
    assert_zero(sp.sign(x) ** 2 - 1)
    assert_zero(sp.Abs(x * y) - x * y * sp.sign(x) * sp.sign(y))
    assert_zero(sp.Derivative(sp.exp(x ** 2), x) - 2 * x * sp.exp(x ** 2))
    assert_zero(sp.Derivative(sp.sin(x) * f(x), x) - sp.cos(x) * f(x)
                - sp.sin(x) * sp.Derivative(f(x), x))
    assert_nonzero(sp.Abs(x) - x)
    assert_nonzero(sp.Derivative(sp.exp(x ** 2), x) - x * sp.exp(x ** 2))
    D = dist([1, 0, 0], [0, 1, sp.Abs(x) - x * sp.sign(x)])
    assert D.is_involutive() and D.frobenius().certain


# -- 5. non-finite values ---------------------------------------------------------------------
@pytest.mark.parametrize("bad", [sp.nan, sp.zoo, sp.oo, -sp.oo])
def test_non_finite_values_are_never_zero_and_rejected(bad) -> None:
    assert not default_policy().is_zero(bad)
    assert default_policy().zero_test(bad).certain
    with pytest.raises(ValueError, match="finite"):
        M.vector_field([bad, 0, 0])
    with pytest.raises(ValueError, match="finite"):
        gm.DifferentialForm(M, 1, {(0,): bad})
    with pytest.raises(ValueError, match="finite"):
        gm.LieAlgebra({(0, 1): [bad, 0]})


def test_zero_tests_reject_strings() -> None:
    with pytest.raises(TypeError):
        default_policy().zero_test("x - x")


# -- 7/8. strictness and budgets ------------------------------------------------------------
def test_budget_is_checked_by_the_zero_policy() -> None:
    with time_limit(0), pytest.raises(BudgetExceeded):
        exact_policy().zero_test(sp.exp(x) + x)
    with time_limit(0), pytest.raises(BudgetExceeded):
        exact_policy().rank([[sp.exp(x), 1], [1, sp.exp(-x)]])


# -- property tests ---------------------------------------------------------------------------
_SYMS = (x, y)


@st.composite
def angles(draw) -> sp.Expr:
    s = draw(st.sampled_from(_SYMS))
    return sp.Rational(draw(st.integers(1, 3)), draw(st.integers(1, 3))) * s


@st.composite
def trig_polynomials(draw) -> tuple[sp.Expr, list]:
    """A random polynomial in the symbols and sin/cos of rational multiples of them."""
    used = []
    total = sp.S.Zero
    for _ in range(draw(st.integers(1, 3))):
        a = draw(angles())
        used.append(a)
        term = sp.Integer(draw(st.integers(-3, 3).filter(bool)))
        term *= sp.sin(a) ** draw(st.integers(0, 2)) * sp.cos(a) ** draw(st.integers(0, 2))
        term *= draw(st.sampled_from(_SYMS)) ** draw(st.integers(0, 1))
        total += term
    return total, used


def _half_angle_version(F: sp.Expr, used: list) -> sp.Expr:
    rep = {}
    for a in used:
        rep[sp.sin(a)] = 2 * sp.sin(a / 2) * sp.cos(a / 2)
        rep[sp.cos(a)] = sp.cos(a / 2) ** 2 - sp.sin(a / 2) ** 2
    return F.xreplace(rep)


_REWRITES = {
    "half angle": _half_angle_version,
    "tan": lambda F, used: F.rewrite(sp.tan),
    "triple": lambda F, used: sp.expand_trig(F.xreplace({a: 3 * (a / 3) for a in used})),
    "exp": lambda F, used: F.rewrite(sp.exp),
}


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trig_polynomials(), st.sampled_from(sorted(_REWRITES)),
       st.integers(-5, 5).filter(bool), st.sampled_from(["monomial", "trig", "tiny"]))
def test_rewritten_identities_are_zero_and_perturbations_are_not(F, how, c, kind) -> None:
    F, used = F
    E = F - _REWRITES[how](F, used)
    v = exact_policy().zero_test(E)
    assert v.zero and v.certain, (E, v)
    r = {"monomial": c * x * y ** 2, "trig": c * sp.sin(x / 2) * y,
         "tiny": sp.Rational(c, 10 ** 45) * sp.cos(y)}[kind]
    w = exact_policy().zero_test(E + r)
    assert not w.zero, (E + r, w)
    if w.certain:
        assert any(abs(val) > 0 for val in values(r))


# -- random-point filter and sign proofs, on both expression engines -------------------------
@pytest.mark.parametrize("engine", ["sympy", "symengine"])
def test_numerically_zero_agrees_on_both_engines(engine):
    """The filter of :func:`numerically_zero` never calls an identity non-zero, finds a
    non-zero polynomial, and skips points where the value is not finite (then vacuously
    zero: undecided, never a wrong "non-zero")."""
    from geomech.core.zero.policy import numerically_zero

    x, y = sp.symbols("x y", positive=True)
    names = {"x": x, "y": y}
    if engine == "symengine":
        se = pytest.importorskip("symengine")
        conv = se.sympify
    else:
        def conv(e):
            return e
    assert numerically_zero(conv(sp.sin(x)**2 + sp.cos(x)**2 - 1), 3, names)
    assert numerically_zero(conv(sp.expand((x + y)**3 - x**3 - y**3 - 3*x*y*(x + y))), 3, names)
    assert not numerically_zero(conv(x*y - 1 - sp.Rational(1, 10**6)), 2, names)
    assert numerically_zero(conv(x / (y - y)), 2, names)                # never finite
    if engine == "symengine":
        with pytest.raises(ValueError, match="no sympy symbol named 'z'"):
            numerically_zero(conv(sp.Symbol("z") + 1), 1, names)


def test_nowhere_zero_by_value_or_sign():
    from geomech.core.zero.values import nowhere_zero

    m, g = sp.symbols("m g", positive=True)
    x = sp.Symbol("x", real=True)
    assert nowhere_zero(m * g + m**2) and nowhere_zero(-m - x**2)
    assert nowhere_zero(sp.sqrt(2) - sp.Rational(7, 5))         # a number, non-zero
    assert not nowhere_zero(sp.sin(1)**2 + sp.cos(1)**2 - 1)    # zero as a number
    assert not nowhere_zero(x) and not nowhere_zero(m - g)      # undecided: not proved


def test_a_non_finite_enclosure_proves_nothing(monkeypatch):
    """At a singular point the interval enclosure of log(x) is [-inf, -inf]: it excludes 0,
    but a non-finite value is never evidence of a non-zero function (the strict evaluation
    decides, and declines); at a regular point the enclosure proves it."""
    x = sp.Symbol("x")
    P = default_policy()
    monkeypatch.setattr(P, "random_point", lambda syms: {x: sp.Integer(0)})
    assert P._nonzero_at_a_point(sp.log(x)) is False
    monkeypatch.setattr(P, "random_point", lambda syms: {x: sp.Rational(3, 7)})
    assert P._nonzero_at_a_point(sp.log(x)) is True
