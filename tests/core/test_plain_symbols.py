"""Plain ``sympy.symbols`` named like a chart's symbols are the chart's symbols.

sympy users make symbols with ``sp.symbols("x y")``; the chart's coordinates carry
``real=True``, so without identification a field built from plain symbols would treat them as
constants and give wrong brackets silently.  Every constructor that takes expressions goes
through ``Manifold.sympify`` (fields, forms, maps, systems), so results built from plain
symbols must equal results built from ``M.coords`` -- on random fields, forms and systems.
"""

from __future__ import annotations

import pickle

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.core.maps import Map

from .strategies import dims, forms, functions, manifold, vector_fields


def plain(e):
    """``e`` with every chart symbol replaced by a plain ``sympy.Symbol`` of the same name."""
    return e.xreplace({s: sp.Symbol(s.name) for s in e.free_symbols})


def same_flow(S, T) -> bool:
    """Two systems' flows agree component by component (each system has its own phase
    space chart; both reuse the configuration chart's symbols)."""
    A, B = S.vector_field(), T.vector_field()
    return (A.manifold.coords == B.manifold.coords
            and all(sp.cancel(a - b) == 0 for a, b in zip(A.components, B.components)))


def plain_field(X):
    return X.manifold.vector_field([plain(c) for c in X.components])


def test_the_issue_example_bracket():
    M = gm.Manifold("M", "x y")
    x, y = sp.symbols("x y")
    Z = M.vector_field([y, 0]).bracket(M.vector_field([0, x]))
    xm, ym = M.coords
    assert Z == M.vector_field([-xm, ym])
    assert Z.components[0].free_symbols == {xm}


def test_one_form_evaluates_in_the_chart_coordinates():
    M = gm.Manifold("M", "x y")
    x, y = sp.symbols("x y")
    w = M.one_form([-y / 2, x / 2])
    value = w(M.vector_field([1, 1]))
    assert value.free_symbols <= set(M.coords)
    assert w.d() == M.form(2, {(0, 1): 1})


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_fields_from_plain_symbols_equal_fields_from_coords(data):
    n = data.draw(dims)
    X = data.draw(vector_fields(n))
    Y = data.draw(vector_fields(n))
    f = data.draw(functions(n))
    Xp, Yp = plain_field(X), plain_field(Y)
    assert Xp == X and Yp == Y
    assert Xp.bracket(Yp) == X.bracket(Y)
    assert sp.expand(Xp(plain(f)) - X(f)) == 0


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_forms_from_plain_symbols_equal_forms_from_coords(data):
    n = data.draw(dims)
    k = data.draw(st.integers(0, n - 1))
    w = data.draw(forms(n, k))
    M = manifold(n)
    wp = M.form(k, {key: plain(c) for key, c in w.components.items()})
    assert wp == w
    assert wp.d() == w.d()
    X = data.draw(vector_fields(n))
    if k == 1:
        assert sp.expand(wp(X) - w(X)) == 0


def test_map_from_plain_symbols():
    A = gm.Manifold("A", "u v")
    B = gm.Manifold("B", "x y")
    u, v = sp.symbols("u v")
    F = Map(A, B, [u + v, u * v])
    G = Map(A, B, [A.coords[0] + A.coords[1], A.coords[0] * A.coords[1]])
    assert all(sp.expand(a - b) == 0 for a, b in zip(F.forward, G.forward))


def _sleigh(symbols):
    """The Chaplygin sleigh written with the given symbols."""
    x, y, phi, xd, yd, phid, m, I, a = symbols
    L = (m * (xd**2 + yd**2) / 2 + I * phid**2 / 2
         + m * a * phid * (-xd * sp.sin(phi) + yd * sp.cos(phi)))
    return L, [-xd * sp.sin(phi) + yd * sp.cos(phi)]


def test_system_from_plain_symbols_equals_system_from_the_chart():
    N = gm.Manifold("N", "x y phi", parameters="m I a")
    L, c = _sleigh(N.coords + N.velocities + N.parameters)
    Lp, cp = _sleigh(sp.symbols("x y phi xdot ydot phidot m I a"))
    S = gm.NonholonomicSystem(N, L, c)
    Sp = gm.NonholonomicSystem(N, Lp, cp)
    assert Sp == S
    assert same_flow(Sp, S)
    assert Sp.lagrangian.free_symbols <= set(N.names().values())


@settings(max_examples=15, deadline=None)
@given(k=st.lists(st.integers(1, 4), min_size=3, max_size=3),
       c=st.lists(st.integers(-2, 2), min_size=3, max_size=3))
def test_random_systems_from_plain_symbols(k, c):
    """A random diagonal kinetic energy with a potential and one random linear constraint."""
    N = gm.Manifold("N", "q1 q2 q3")
    q, qd = N.coords, N.velocities
    L = sum(ki * v**2 for ki, v in zip(k, qd)) / 2 - q[0] * q[1] ** 2
    cons = [qd[0] + c[0] * sp.cos(q[2]) * qd[1] + (c[1] + c[2] * q[0]) * qd[2]]
    S = gm.NonholonomicSystem(N, L, cons)
    Sp = gm.NonholonomicSystem(N, plain(L), [plain(e) for e in cons])
    assert same_flow(Sp, S)


def test_stray_symbols_stay_constants_and_dummies_are_not_identified():
    M = gm.Manifold("M", "x y")
    b = sp.Symbol("b")
    d = sp.Dummy("x")
    X = M.vector_field([b, d])
    assert X.components[0] is b and X.components[1] is d
    assert X(M.coords[0]) == b


@pytest.mark.parametrize("sym, words", [
    (sp.Symbol("x", positive=True), "positive=True"),
    (sp.Symbol("x", commutative=False), "commutative=False"),
    (sp.Symbol("x", integer=True), "integer=True"),
])
def test_identification_that_would_change_the_mathematics_is_refused(sym, words):
    M = gm.Manifold("M", "x y")
    with pytest.raises(ValueError, match=words):
        M.vector_field([sym, 0])


def test_a_parameter_declared_real_is_the_positive_parameter():
    """``real=True`` holds for the chart's positive parameter: the identification is safe."""
    N = gm.Manifold("N", "x", parameters="m")
    e = N.sympify(sp.Symbol("m", real=True) * sp.Symbol("x"))
    assert e == N.parameters[0] * N.coords[0]


def test_velocity_names_in_a_lagrangian_are_the_velocities():
    """Formerly: 'constraint 1 contains no velocities' for plain ``xdot``."""
    N = gm.Manifold("N", "x y")
    xd, yd = sp.symbols("xdot ydot")
    S = gm.NonholonomicSystem(N, (xd**2 + yd**2) / 2, [xd - yd])
    assert S.constraints[0].free_symbols == set(N.velocities)


def test_identification_survives_pickle():
    M = gm.Manifold("M", "x y")
    X = M.vector_field([sp.Symbol("y"), 0])
    Y = pickle.loads(pickle.dumps(X))
    assert Y == X and Y.components[0] is M.coords[1]


def test_components_keyed_by_plain_symbols():
    M = gm.Manifold("M", "x y")
    x, y = sp.symbols("x y")
    assert M.vector_field({y: x}) == M.vector_field([0, M.coords[0]])
    assert M.one_form({x: 1}) == M.coordinate_forms()[0]
    with pytest.raises(ValueError, match="not a coordinate"):
        M.index(sp.Symbol("z"))
