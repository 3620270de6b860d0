"""Linearisation at steady motions and the classical stability results, with symbolic
parameters: the sleigh's straight run, the upright disk and hoop, the permanent rotations of
Chaplygin's ball and the vertical spins of Routh's sphere."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.field_charts import tangent_restriction
from geomech.mechanics.analysis.linearization import phase_state
from geomech.mechanics.analysis.stability import Verdict
from geomech.mechanics.analysis.stability_criteria import LAMBDA
from geomech.mechanics.system import NonholonomicSystem

zero = default_policy().is_zero


def _pos(*names):
    return sp.symbols(names, positive=True)


# -- the Chaplygin sleigh (Borisov & Mamaev (2015), (3.18)) --------------------------------------
@pytest.fixture(scope="module")
def sleigh_lin():
    S = gm.examples.chaplygin_sleigh()
    V = sp.Symbol("speed", real=True)
    return S.linearize(S.steady_motion(speed=V))


def test_sleigh_straight_run_eigenvalue_is_minus_m_a_V_over_I(sleigh_lin):
    m, I, a = sleigh_lin.system.manifold.parameters
    V = sp.Symbol("speed", real=True)
    p = sleigh_lin.characteristic_polynomial(factored=False)
    assert zero(p - LAMBDA**4 * (LAMBDA + m * a * V / I))
    assert sleigh_lin.cyclic == tuple(sp.symbols("x y", real=True))


def test_sleigh_conditions_and_verdicts(sleigh_lin):
    conds = sleigh_lin.stability_conditions()
    assert conds.kind == "Routh-Hurwitz" and conds.zero_roots == 2
    assert conds.inequalities == [sp.Symbol("speed", real=True) > 0]
    forward = sleigh_lin.stability({"m": 2, "I": 3, "a": 1, "speed": 1})
    assert forward.verdict is Verdict.ASYMPTOTICALLY_STABLE and forward
    assert "2 semisimple zero root" in forward.reason
    assert sleigh_lin.energy_accounts_for_a_zero_root is True
    assert "energy integral accounts for one" in forward.reason
    ev = forward.eigenvalues
    assert np.isclose(ev.real.min(), -2 / 3)
    back = sleigh_lin.stability({"m": 2, "I": 3, "a": 1, "speed": -1})
    assert back.verdict is Verdict.UNSTABLE and not back
    assert sleigh_lin.stability({"m": 2, "I": 3, "a": 1, "speed": 0}).verdict is \
        Verdict.CRITICAL


def test_sleigh_circular_runs_exist_only_over_the_blade():
    S = gm.examples.chaplygin_sleigh()
    assert [f.name for f in S.steady_motions()] == ["straight run"]
    S0 = gm.examples.chaplygin_sleigh(a=0)
    st_ = S0.steady_motion("circular run", speed=1, rate=2)
    lin = S0.linearize(st_)
    assert lin.chart == "natural quasi-velocities"
    assert lin.stability({"m": 1, "I": 1}).verdict is Verdict.LINEARLY_STABLE
    with pytest.raises(ValueError, match="not a steady motion"):
        S.linearize({**st_, "phidot": 2})


# -- upright disk and hoop (Neimark & Fufaev (1972), Ch. III) ------------------------------------
@pytest.fixture(scope="module")
def disk_lin():
    D = gm.examples.rolling_disk()
    w = sp.Symbol("omega", real=True)
    return D.linearize(D.steady_motion(omega=w))


def test_upright_disk_condition_is_the_classical_one(disk_lin):
    m, a, A, C, g = disk_lin.system.manifold.parameters
    w = sp.Symbol("omega", real=True)
    conds = disk_lin.stability_conditions()
    assert conds.kind == "spectral" and conds.zero_roots == 2
    (ineq,) = conds.inequalities
    assert zero(ineq.lhs - ((C + m * a**2) * C * w**2 - m * g * a * A))
    assert disk_lin.cyclic == tuple(sp.symbols("x y psi phi", real=True))


def test_eigenvalues_need_numbers(disk_lin):
    with pytest.raises(ValueError, match="no numeric value for A, C, a, g, m, omega"):
        disk_lin.eigenvalues()
    ev = disk_lin.eigenvalues({"m": 1, "a": 1, "A": 0.25, "C": 0.5, "g": 3, "omega": 2})
    assert ev.dtype == complex and ev.shape == (8,)
    assert np.allclose(sorted(ev.imag), sorted([0] * 6 + [np.sqrt(7.2), -np.sqrt(7.2)]))


def test_uniform_disk_rolls_upright_iff_v2_above_ga_over_3():
    m, a, g = _pos("m", "a", "g")
    D = gm.examples.rolling_disk(m=m, a=a, A=m * a**2 / 4, C=m * a**2 / 2, g=g)
    w = sp.Symbol("omega", real=True)
    lin = D.linearize(D.steady_motion(omega=w))
    (ineq,) = lin.stability_conditions().inequalities
    v = sp.Symbol("v", real=True)                   # rolling speed v = a*omega
    ratio = sp.cancel(ineq.lhs.subs(w, v / a) / (v**2 - g * a / 3))
    assert not ratio.has(v) and ratio.is_positive
    vals = {"m": 1, "a": 1, "g": 3}
    assert lin.stability({**vals, "omega": 1.01}).verdict is Verdict.LINEARLY_STABLE
    assert lin.stability({**vals, "omega": 0.99}).verdict is Verdict.UNSTABLE
    assert lin.stability({**vals, "omega": 1}).verdict is Verdict.CRITICAL


def test_hoop_rolls_upright_iff_v2_above_ga_over_4():
    H = gm.examples.hoop()
    w = sp.Symbol("omega", real=True)
    lin = H.linearize(H.steady_motion(omega=w))
    m, a, g = H.manifold.parameters
    (ineq,) = lin.stability_conditions().inequalities
    # (C + m a^2) C w^2 > m g a A with A = m a^2/2, C = m a^2
    ratio = sp.cancel(ineq.lhs / (a**2 * w**2 - g * a / 4))
    assert not ratio.has(w) and ratio.is_positive


def test_disk_jacobian_agrees_with_finite_differences(disk_lin):
    """The exact Jacobian against central differences of the numerically compiled
    mass-matrix form (solved numerically at each call: no symbolic inversion shared)."""
    from geomech.numeric import compile_vector_field

    D = disk_lin.system
    vals = {"m": 1.0, "a": 0.5, "A": 0.07, "C": 0.13, "g": 9.81}
    params = {p: vals[p.name] for p in D.manifold.parameters}
    f = compile_vector_field(D.equations(explicit=False).mass_matrix_form(), params)
    x0 = np.array([0.1, -0.2, np.pi / 2, 0.3, 0.4, 0.0, 0.0, 2.0])
    h = 1e-6
    num = np.column_stack([(f(0.0, x0 + h * e) - f(0.0, x0 - h * e)) / (2 * h)
                           for e in np.eye(8)])
    exact = disk_lin.matrix.xreplace({**{p: sp.Float(v) for p, v in params.items()},
                                      sp.Symbol("omega", real=True): 2.0})
    J = np.array(exact.evalf().tolist(), dtype=float)
    # the state differs in the cyclic coordinates only (x, y, psi, phi): same Jacobian rows
    # of the reduced block, and the cyclic rows depend on psi; compare the reduced block
    idx = [2, 5, 6, 7]
    assert np.allclose(num[np.ix_(idx, idx)], J[np.ix_(idx, idx)], atol=1e-6)


# -- Chaplygin's ball: permanent rotations -------------------------------------------------------
@pytest.fixture(scope="module")
def ball():
    return gm.examples.chaplygin_ball()


@pytest.mark.parametrize("axis", [1, 2, 3])
def test_ball_permanent_rotations(ball, axis):
    m, R, I1, I2, I3 = ball.manifold.parameters
    Ik = {1: I1, 2: I2, 3: I3}
    others = [Ik[j] for j in (1, 2, 3) if j != axis]
    n = sp.Symbol("n", real=True)
    lin = ball.linearize(ball.steady_motion(f"permanent rotation about axis {axis}", n=n))
    assert lin.chart == ("natural variables" if axis == 3 else "phase space")
    conds = lin.stability_conditions()
    assert conds.kind == "spectral"
    (ineq,) = conds.inequalities
    assert zero(ineq.lhs - (Ik[axis] - others[0]) * (Ik[axis] - others[1]))


def test_ball_axis3_in_natural_variables_equals_axis1_relabelled(ball):
    """The natural-variable linearisation about axis 3 and the Euler-angle one about axis 1
    are independent derivations; relabelling I1 <-> I3 maps one onto the other."""
    m, R, I1, I2, I3 = ball.manifold.parameters
    n = sp.Symbol("n", real=True)
    p3 = ball.linearize(ball.steady_motion(n=n))
    p1 = ball.linearize(ball.steady_motion("permanent rotation about axis 1", n=n))
    assert "sin(theta) = 0" in p3.notes[0]
    q3 = sp.expand(p3.characteristic_polynomial(factored=False))
    q1 = p1.characteristic_polynomial(factored=False).xreplace({I1: I3, I3: I1})
    # axis 1 in Euler angles has 3 more zero roots (x, y, psi are kept in its matrix)
    q1 = sp.expand(sp.cancel(q1 / LAMBDA**3))
    assert zero(sp.together(q3 - q1))


# -- Routh's sphere: vertical spin --------------------------------------------------------------
@pytest.fixture(scope="module")
def routh():
    R = gm.examples.routh_sphere()
    n = sp.Symbol("n", real=True)
    return R, R.linearize(R.steady_motion(n=n)), \
        R.linearize(R.steady_motion("vertical spin, centre of mass below", n=n))


def test_routh_sphere_upper_spin_condition_is_routh_s(routh):
    R, up, _ = routh
    m, Rr, a, I1, I3, g = R.manifold.parameters
    n = sp.Symbol("n", real=True)
    classical = n**2 * (I3 + m * Rr * (Rr + a))**2 - 4 * m * g * a * (I1 + m * (Rr + a)**2)
    lhs = [i.lhs for i in up.stability_conditions().inequalities]
    assert any(zero(e - classical) for e in lhs)


@pytest.mark.parametrize("n, stable", [(1, False), (30, True)])
def test_routh_sphere_upper_spin_needs_speed(routh, n, stable):
    R, up, down = routh
    vals = {"m": 1, "R": 1, "a": sp.Rational(1, 4), "I1": 1, "I3": 1, "g": 10, "n": n}
    assert bool(up.stability(vals)) is stable
    assert down.stability(vals).verdict is Verdict.LINEARLY_STABLE


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(st.fractions(1, 5), st.fractions(1, 2), st.fractions(1, 3), st.fractions(1, 3),
       st.fractions(1, 20))
def test_routh_sphere_verdicts_follow_the_classical_condition(routh, I1, I3, a, m, n):
    R, up, down = routh
    vals = {"m": m, "R": 1, "a": a, "I1": I1, "I3": I3, "g": 10, "n": n}
    classical = n**2 * (I3 + m * (1 + a))**2 - 4 * m * 10 * a * (I1 + m * (1 + a)**2)
    assert bool(up.stability(vals)) == (classical > 0)
    assert down.stability(vals).verdict is Verdict.LINEARLY_STABLE


# -- errors ------------------------------------------------------------------------------
def test_bad_states_are_refused(ball):
    S = gm.examples.chaplygin_sleigh()
    good = S.steady_motion(speed=1)
    with pytest.raises(TypeError, match="dict"):
        S.linearize([1, 2])
    with pytest.raises(ValueError, match="missing: phidot"):
        S.linearize({k: v for k, v in good.items() if k != "phidot"})
    with pytest.raises(ValueError, match="'z' is not a coordinate"):
        S.linearize({**good, "z": 1})
    with pytest.raises(ValueError, match="constraint 1"):
        S.linearize({**good, "ydot": 3})
    with pytest.raises(ValueError, match="not a steady motion: the reduced equation "
                                         "dthetadot/dt"):
        gm.examples.rolling_disk().linearize(
            {"x": 0, "y": 0, "theta": 1, "psi": 0, "phi": 0, "thetadot": 0, "psidot": 0,
             "phidot": 1})


def test_pendulum_in_cartesian_coordinates_is_linearised_on_its_circle():
    """A configuration constraint x^2 + y^2 = l^2 (y dependent): the state may omit y, a
    state off the circle is refused, and the Jacobian is restricted to the tangent space
    of the constraint -- the pendulum's x'' = -(g/l) x at the bottom."""
    N = gm.Manifold("N", "x y", parameters="g l")
    x, y = N.coords
    xd, yd = N.velocities
    g, l = N.parameters
    P = NonholonomicSystem(N, (xd**2 + yd**2) / 2 - g * y, holonomic={y: x**2 + y**2 - l**2},
                           name="pendulum")
    with pytest.raises(ValueError, match="configuration constraint 1"):
        phase_state(P, {"x": 0, "y": 2 * l, "xdot": 0})
    P2 = NonholonomicSystem(N, (xd**2 + yd**2) / 2 - g * y,
                            holonomic={y: x**2 + (y - 1)**2 - 4}, name="pendulum hung at 1")
    assert phase_state(P2, {"x": 0, "xdot": 0})[y] == -1     # solved on the circle
    lin = P.linearize({"x": 0, "y": -l, "xdot": 0})
    assert lin.variables == (x, xd)
    assert any("tangent space" in n for n in lin.notes)
    assert lin.matrix == sp.Matrix([[0, 1], [-g / l, 0]])
    conds = lin.stability_conditions()                        # g/l > 0 for positive g, l
    assert conds.kind == "spectral" and conds.inequalities == []
    top = P.linearize({"x": 0, "y": l, "xdot": 0})
    assert top.stability({"g": 1, "l": 1}).verdict is Verdict.UNSTABLE
    assert lin.stability({"g": 1, "l": 1}).verdict is Verdict.LINEARLY_STABLE


def test_an_invariant_relation_must_be_invariant():
    J = sp.Matrix([[0, 1, 0], [-1, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="not invariant"):
        tangent_restriction(J, sp.symbols("a b c"), sp.Matrix([[1, 0, 0]]))
