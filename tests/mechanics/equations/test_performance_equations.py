"""Ring-based normalisation and linear solving of the equation forms (issue 6).

The fast path of :func:`compact` / :func:`solve_linear` works in a polynomial ring with
sin/cos and square-root generators; these tests check that it is exact (equal to the input,
solves the system) and that the heavier catalogue systems give compact equations.
"""

import pytest
import sympy as sp

import geomech as gm
from geomech.core.algebra.normal_form import compact
from geomech.core.algebra.presentation import tidy
from geomech.core.algebra.solve import policy_algebra as _Algebra
from geomech.core.zero import default_policy
from geomech.mechanics.equations.common import solve_linear

x, y, c, R = sp.symbols("x y c R", real=True)
phi, th = sp.symbols("phi theta", real=True)


def test_compact_reduces_pythagoras_and_cancels():
    e = (sp.cos(phi)**2 * x + sp.sin(phi)**2 * x) / (x * sp.sin(phi)**2 + x * sp.cos(phi)**2)
    assert compact(e) == 1
    e = (1 - sp.sin(phi)**2) / sp.cos(phi)
    assert compact(e) == sp.cos(phi)


def test_compact_square_roots_are_one_generator():
    b = c**2 * x**2 + c**2 * y**2 + 1
    e = x * b / sp.sqrt(b) - x * sp.sqrt(b)
    assert compact(e) == 0
    e2 = (x / sp.sqrt(b))**2 * b
    assert compact(e2) == x**2
    # a radicand equal modulo sin^2 + cos^2 = 1 gives the same generator
    r1 = sp.sqrt(x**2 * sp.sin(th)**2 + 1)
    r2 = sp.sqrt(x**2 - x**2 * sp.cos(th)**2 + 1)
    assert compact(r1 / r2) == 1


def test_compact_is_equal_to_input():
    pol = default_policy()
    e = (x * sp.sin(phi)**3 + y * sp.cos(phi)**2 * sp.sin(phi)) / (sp.sin(phi) * (x + y)) \
        + sp.sqrt(x**2 + 1) / (x**2 + 1)
    assert pol.is_zero(compact(e) - e)


def test_algebra_reduce_normal_form():
    alg = _Algebra([sp.sin(phi) * sp.cos(phi) * x])
    s, co = sp.sin(phi), sp.cos(phi)
    n, d = alg.frac(s**4 + 2 * s**2 * co**2 + co**4 - 1)
    assert not alg.reduce(n, "sin") and not alg.reduce(n, "cos")


@pytest.mark.parametrize("with_sqrt", [False, True])
def test_solve_linear_solves(with_sqrt):
    pol = default_policy()
    r = sp.sqrt(c**2 * x**2 + 1) if with_sqrt else sp.S.One
    M = sp.Matrix([[1 + sp.sin(phi)**2, x * sp.cos(phi), 0],
                   [x * sp.cos(phi), x**2 + 1 / r, sp.sin(th)],
                   [0, sp.sin(th), c * r + 2]])
    b = sp.Matrix([x, sp.cos(th) / r, y])
    sol = solve_linear(M, b)
    res = M * sol - b
    assert all(pol.is_zero(e) for e in res)


def test_solve_linear_singular_raises():
    M = sp.Matrix([[sp.sin(phi), sp.cos(phi)], [sp.sin(phi)**2, sp.sin(phi) * sp.cos(phi)]])
    with pytest.raises(ValueError, match="singular"):
        solve_linear(M, sp.Matrix([1, 0]))


def test_tidy_equal():
    pol = default_policy()
    u, v = sp.symbols("u v")
    e = (x * u**2 * sp.sin(phi) + x * y * u * v + x * v**2) / (x + y)
    t = tidy(e, [u, v])
    assert pol.is_zero(t - e)


@pytest.mark.parametrize("name,bound", [("chaplygin_ball", 2300), ("routh_sphere", 600),
                                        ("rolling_disk", 150)])
def test_catalogue_equations_compact(name, bound):
    S = getattr(gm.examples, name)()
    eq = S.equations("lagrange_dalembert")
    assert eq.count_ops() <= bound
    # the equations satisfy the reduced equations: M udot = rhs on the phase space
    assert eq.agrees_with(S.equations("voronets"))


@pytest.mark.slow
def test_snakeboard_equations_compact_and_agree():
    S = gm.examples.snakeboard()
    eq = S.equations("lagrange_dalembert")
    assert eq.count_ops() <= 2100
    assert eq.agrees_with(S.equations("quasi_velocities"))
