"""Configuration (holonomic) constraints beside the velocity constraints."""

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.core.zero import default_policy
from geomech.mechanics.equations.first_variation import field_jacobian
from geomech.mechanics.system import NonholonomicSystem


def _pendulum():
    """A pendulum of length l in Cartesian coordinates: x**2 + y**2 = l**2, y defined."""
    N = gm.Manifold("N", "x y", parameters="m g l")
    x, y = N.coords
    xd, yd = N.velocities
    m, g, l = N.parameters
    S = NonholonomicSystem(N, m * (xd**2 + yd**2) / 2 - m * g * y,
                           holonomic={"y": x**2 + y**2 - l**2})
    return S, N


def test_dependent_coordinate_stays_in_the_phase_space():
    S, N = _pendulum()
    x, y = N.coords
    assert S.dependent_coordinates == (y,)
    assert S.phase_space.coords == (x, y, N.velocities[0])
    assert S.constraints == (2 * x * N.velocities[0] + 2 * y * N.velocities[1],)
    assert S.is_first_integral(S.holonomic[0])


def test_agrees_with_the_pendulum_in_its_angle():
    """On the circle x = l sin(th), y = -l cos(th) the Cartesian flow is th'' = -g/l sin th."""
    S, N = _pendulum()
    x, y = N.coords
    xd = N.velocities[0]
    m, g, l = N.parameters
    th, w = sp.symbols("theta omega", real=True)
    F = S.vector_field().components
    at = {x: l * sp.sin(th), y: -l * sp.cos(th), xd: l * sp.cos(th) * w}
    xdd = F[2].xreplace(at)
    expected = sp.diff(l * sp.sin(th), th) * (-g / l * sp.sin(th)) \
        + sp.diff(l * sp.sin(th), th, 2) * w**2
    assert default_policy().is_zero(xdd - expected)
    assert default_policy().is_zero(F[1].xreplace(at) - l * sp.sin(th) * w)


@pytest.mark.parametrize("form", ["voronets", "appell", "quasi_velocities", "tzenoff"])
def test_every_form_takes_them(form):
    S, N = _pendulum()
    assert S.equations(form).vector_field() == S.vector_field()


def test_vakonomic_and_chaplygin():
    """The vakonomic form takes the differentiated constraint; Chaplygin's form refuses a
    system that is not of Chaplygin type, saying why."""
    S, N = _pendulum()
    assert isinstance(S.equations("vakonomic"), gm.EquationsOfMotion)
    with pytest.raises(ValueError, match="not a Chaplygin system"):
        S.equations("chaplygin")


def test_complete_state_solves_and_refuses():
    S, N = _pendulum()
    x, y = N.coords
    l = N.parameters[2]
    P = NonholonomicSystem(N, S.lagrangian, holonomic={"y": y - x**2})
    assert P.complete_state({"x": 2, "xdot": 0})[y] == 4
    with pytest.raises(ValueError, match="two roots"):
        S.complete_state({"x": 0, "xdot": 1}, parameters={"l": 2})
    with pytest.raises(ValueError, match="give their values"):
        S.complete_state({"x": sp.Rational(3, 5), "xdot": 1})   # no value for l
    with pytest.raises(ValueError, match="violates holonomic constraint 1"):
        S.complete_state({"x": 1, "y": 1, "xdot": 0}, parameters={"l": 1})
    with pytest.raises(ValueError, match="violates holonomic constraint 1"):
        S.complete_state({"x": 0.6, "y": -0.81, "xdot": 0.0}, parameters={"l": 1})
    st = S.complete_state({"x": 0.6, "y": -0.8, "xdot": 0.0}, parameters={"l": 1})
    assert st[y] == sp.Float(-0.8)
    assert S.complete_state({"x": l, "y": 0, "xdot": 0})[x] == l


def test_bad_input():
    N = gm.Manifold("N", "x y")
    x, y = N.coords
    xd, yd = N.velocities
    L = (xd**2 + yd**2) / 2
    with pytest.raises(ValueError, match="depends on the velocities"):
        NonholonomicSystem(N, L, holonomic=[y - xd])
    with pytest.raises(ValueError, match="cannot be solved for"):
        NonholonomicSystem(N, L, holonomic={"x": y - 1})
    with pytest.raises(ValueError, match="velocity of a dependent coordinate"):
        NonholonomicSystem(N, L, holonomic={"y": y - x**2}, independent=["ydot"])
    with pytest.raises(ValueError, match="contains no velocities"):
        NonholonomicSystem(N, L, [y - x**2])


def test_library_choice_respects_the_independent_velocities():
    N = gm.Manifold("N", "x y")
    x, y = N.coords
    xd, yd = N.velocities
    S = NonholonomicSystem(N, (xd**2 + yd**2) / 2, holonomic=[x**2 + y**2 - 1],
                           independent=["xdot"])
    assert S.dependent_coordinates == (y,)


def test_linearisation_on_the_tangent_of_the_constraint_set():
    """At the bottom of the circle, restricted to T(h = 0): eigenvalues +-i sqrt(g/l); the
    normal direction carries the extra zero eigenvalue of the ambient chart."""
    S, N = _pendulum()
    x, y = N.coords
    m, g, l = N.parameters
    state = {"x": 0, "y": -l, "xdot": 0}
    J = field_jacobian(S, state)
    Jexp = sp.Matrix([[sp.diff(f, c).xreplace({x: 0, y: -l, N.velocities[0]: 0})
                       for c in S.phase_space.coords] for f in S.vector_field().components])
    assert all(default_policy().is_zero(a - b) for a, b in zip(J, Jexp))
    # restrict: y is eliminated (dy = 0 at the bottom); rows/cols (x, xdot)
    JT = J.extract([0, 2], [0, 2])
    assert sp.simplify(JT.charpoly().as_expr() - (sp.Symbol("lambda")**2 + g / l)) == 0


def test_simulation_reports_the_residual():
    S, N = _pendulum()
    res = gm.simulate(S, {"x": 0.6, "y": -0.8, "xdot": 1.0}, 3.0,
                      parameters={"l": 1, "g": 9.81, "m": 1})
    assert res.drift["holonomic 1"] < 1e-8
    assert np.all(res.series["holonomic 1"] >= 0)


def test_from_sympy_mechanics_keeps_the_configuration_constraint():
    import sympy.physics.mechanics as me

    x, y = me.dynamicsymbols("x y")
    m, g, l = sp.symbols("m g l", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, P.pos_from(O).dt(N))
    bob = me.Particle("bob", P, m)
    bob.potential_energy = m * g * y
    lm = me.LagrangesMethod(me.Lagrangian(N, bob), [x, y], hol_coneqs=[x**2 + y**2 - l**2],
                            frame=N)
    S = gm.from_sympy_mechanics(lm)
    assert S.holonomic == (-l**2 + sp.Symbol("x", real=True)**2 + sp.Symbol("y", real=True)**2,)
    assert len(S.constraints) == 1 and S.n_holonomic == 1
    model = me.System(N, O)
    model.add_coordinates(x)
    model.add_coordinates(y, independent=False)
    model.add_bodies(bob)
    model.add_holonomic_constraints(x**2 + y**2 - l**2)
    S2 = gm.from_sympy_mechanics(model)
    assert [c.name for c in S2.dependent_coordinates] == ["y"]
    pend, _ = _pendulum()
    assert S2.vector_field().components[2] == pend.vector_field().components[2] or \
        default_policy().is_zero(S2.vector_field().components[2]
                                 - pend.vector_field().components[2].xreplace(
                                     {p: q for p in pend.manifold.parameters
                                      for q in S2.manifold.parameters if p.name == q.name}))
