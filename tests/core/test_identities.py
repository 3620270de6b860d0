"""Property tests of the calculus identities on generated fields and forms (R^2..R^5)."""

from __future__ import annotations

import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.core import kernel, lie_derivative
from geomech.core.zero import default_policy

from .strategies import forms, functions, manifold, vector_fields


def assert_zero(e):
    verdict = default_policy().zero_test(e)
    assert verdict.zero and verdict.certain, e


SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def fields_and_function(k: int):
    return st.integers(2, 5).flatmap(
        lambda n: st.tuples(*[vector_fields(n) for _ in range(k)], functions(n)))


@SETTINGS
@given(fields_and_function(2))
def test_bracket_antisymmetry(data):
    X, Y, _ = data
    assert X.bracket(Y) == -Y.bracket(X)
    assert X.bracket(X).is_zero()


@SETTINGS
@given(fields_and_function(3))
def test_jacobi_identity(data):
    X, Y, Z, _ = data
    total = X.bracket(Y.bracket(Z)) + Y.bracket(Z.bracket(X)) + Z.bracket(X.bracket(Y))
    assert total.is_zero()


@SETTINGS
@given(fields_and_function(2))
def test_bracket_is_commutator_of_derivations(data):
    X, Y, f = data
    assert_zero(X.bracket(Y)(f) - (X(Y(f)) - Y(X(f))))


@SETTINGS
@given(fields_and_function(2))
def test_leibniz_rule_for_brackets(data):
    X, Y, f = data
    assert X.bracket(f * Y) == X(f) * Y + f * X.bracket(Y)


@st.composite
def form_pairs(draw):
    n = draw(st.integers(2, 5))
    k = draw(st.integers(0, n - 1))
    l_ = draw(st.integers(0, n - k))
    return draw(forms(n, k)), draw(forms(n, l_))


@SETTINGS
@given(st.integers(2, 5).flatmap(lambda n: st.integers(0, n).flatmap(lambda k: forms(n, k))))
def test_d_squared_is_zero(w):
    assert w.d().d().is_zero()


@SETTINGS
@given(form_pairs())
def test_graded_leibniz_rule_for_d(pair):
    a, b = pair
    lhs = a.wedge(b).d()
    rhs = a.d().wedge(b) + (-1) ** a.degree * a.wedge(b.d())
    assert lhs == rhs


@SETTINGS
@given(form_pairs())
def test_wedge_graded_commutativity(pair):
    a, b = pair
    assert a.wedge(b) == (-1) ** (a.degree * b.degree) * b.wedge(a)


@st.composite
def field_form(draw, min_degree: int = 1):
    n = draw(st.integers(2, 4))
    k = draw(st.integers(min_degree, n))
    return draw(vector_fields(n)), draw(vector_fields(n)), draw(forms(n, k))


@SETTINGS
@given(field_form())
def test_cartan_formula_agrees_with_component_formula(data):
    r"""Cartan's L_X w = i_X dw + d i_X w against the component formula
    (L_X w)_I = X(w_I) + sum_a sum_j w_{I with j in slot a} d_{i_a} X^j."""
    X, _, w = data
    cartan = lie_derivative(X, w)
    M = w.manifold
    n, k = M.dim, w.degree
    import itertools

    comps = {}
    for I in itertools.combinations(range(n), k):
        acc = X(w.coefficient(I))
        for a in range(k):
            for j in range(n):
                J = I[:a] + (j,) + I[a + 1:]
                acc += w.coefficient(J) * sp.diff(X.components[j], M.coords[I[a]])
        comps[I] = acc
    assert cartan == M.form(k, comps)


@SETTINGS
@given(field_form())
def test_interior_of_bracket_is_commutator(data):
    """i_[X,Y] = [L_X, i_Y] = L_X i_Y - i_Y L_X."""
    X, Y, w = data
    lhs = w.interior_form(X.bracket(Y))
    rhs = lie_derivative(X, w.interior_form(Y)) - lie_derivative(X, w).interior_form(Y)
    assert lhs == rhs


@SETTINGS
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(vector_fields(n), vector_fields(n),
                                                      forms(n, 1))))
def test_exterior_derivative_on_two_fields(data):
    """dw(X,Y) = X w(Y) - Y w(X) - w([X,Y])."""
    X, Y, w = data
    assert_zero(w.d()(X, Y) - (X(w(Y)) - Y(w(X)) - w(X.bracket(Y))))


@SETTINGS
@given(st.integers(2, 5).flatmap(lambda n: st.tuples(vector_fields(n), functions(n))))
def test_lie_derivative_of_function(data):
    X, f = data
    M = X.manifold
    assert lie_derivative(X, f) == X(f)
    assert lie_derivative(X, M.scalar(f)) == M.scalar(X(f))
    assert M.d(f)(X) == X(f)


@SETTINGS
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(forms(n, 1), forms(n, 1),
                                                      vector_fields(n), vector_fields(n))))
def test_wedge_determinant_convention(data):
    a, b, X, Y = data
    assert_zero(a.wedge(b)(X, Y) - (a(X) * b(Y) - a(Y) * b(X)))


@SETTINGS
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(vector_fields(n), vector_fields(n))))
def test_backends_give_identical_results(data):
    """Every kernel (rings, symengine, sympy) stores the same canonical expressions."""
    X, Y = data
    results = []
    for backend in kernel.available_backends():
        with kernel.using_backend(backend):
            Xb = X.manifold.vector_field(X.components)
            Yb = Y.manifold.vector_field(Y.components)
            results.append(Xb.bracket(Yb).components)
    assert all(r == results[0] for r in results)


def test_manifolds_are_shared_by_strategies():
    assert manifold(3) is manifold(3)


def test_galgebra_leaves_sympy_printing_alone():
    """galgebra replaces sympy's ``__repr__`` and ``print`` on import; geomech's use of it (forms
    as multivectors, so(n) bivectors) must not change how the user's expressions print."""
    import subprocess
    import sys

    code = ("import sympy as sp, geomech as gm\n"
            "from geomech.mechanics.models.so_n import bivector_algebra\n"
            "M = gm.Manifold('M', 'x y'); w = M.one_form([1, 0])\n"
            "from geomech.core.forms import galgebra_algebra\n"
            "galgebra_algebra(M); ga, e = bivector_algebra(3)\n"
            "t = sp.Symbol('t'); d = sp.Function('x')(t).diff(t)\n"
            "print(repr(d)); print(d); print(repr(e[0] ^ e[1]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.split("\n")
    assert out[:3] == ["Derivative(x(t), t)", "Derivative(x(t), t)", "e1^e2"]
