r"""Vertical spin of the rolling ellipsoid (the distinguished steady motion of
``convex_body_on_plane`` and ``ellipsoid``): its linearisation in natural variables against an
independent numeric Newton-Euler field differentiated by finite differences, and, for a body
of revolution, against the classical condition of the "sleeping" body of revolution on a
rough plane (Routh (1884); Markeev (1992)):

.. math:: (I_3 + m h\rho)^2 n^2 > 4 m g (h - \rho)(I_1 + m h^2),

:math:`h = b_3` the height of the centre of mass over the contact point, :math:`\rho =
b^2/b_3` the radius of curvature there.

The linearisation is taken in natural variables in mass-matrix form (the Hamel equations
:math:`M(\gamma)\dot\omega = f(\gamma, \omega)`, each piece rewritten in the Poisson vector,
solved only at the pole), so the report computes it: its section "Steady motions and
stability" is tested against the same independent field.
"""

import numpy as np
import pytest
import sympy as sp

import geomech as gm
from geomech.core.budget import work_limit
from geomech.core.opcount import count_ops
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.stability import Verdict

zero = default_policy().is_zero

#: a homogeneous tri-axial ellipsoid standing on its longest axis (m = 1, g = 10)
AXES = (sp.Rational(1), sp.Rational(3, 4), sp.Rational(2))


def _homogeneous(b1, b2, b3, m=1):
    return {"I1": m * (b2**2 + b3**2) / 5, "I2": m * (b1**2 + b3**2) / 5,
            "I3": m * (b1**2 + b2**2) / 5}


def newton_euler_field(b, inertia, m, g):
    r"""The rolling ellipsoid in :math:`(\gamma, \omega)`, written independently with numpy
    (Borisov & Mamaev (2002), a rigid body rolling on a plane):
    :math:`\dot\gamma = \gamma\times\omega`, :math:`J\dot\omega = J\omega\times\omega +
    m\dot r\times(\omega\times r) + mg\,r\times\gamma - \dot J\omega`,
    :math:`J = I + m(|r|^2 E - rr^T)`, :math:`r = -B\gamma/\sqrt{(\gamma, B\gamma)}`."""
    B = np.diag(np.asarray(b, float)**2)
    Imat = np.diag(np.asarray(inertia, float))

    def r_and_rdot(G, Gdot):
        s = np.sqrt(G @ B @ G)
        r = -B @ G / s
        rdot = -B @ Gdot / s + (B @ G) * (G @ B @ Gdot) / s**3
        return r, rdot

    def field(X):
        G, w = X[:3], X[3:]
        Gdot = np.cross(G, w)
        r, rdot = r_and_rdot(G, Gdot)
        J = Imat + m * ((r @ r) * np.eye(3) - np.outer(r, r))
        Jdot = m * (2 * (r @ rdot) * np.eye(3) - np.outer(rdot, r) - np.outer(r, rdot))
        rhs = np.cross(J @ w, w) + m * np.cross(rdot, np.cross(w, r)) \
            + m * g * np.cross(r, G) - Jdot @ w
        return np.concatenate([Gdot, np.linalg.solve(J, rhs)])
    return field


def finite_difference_eigenvalues(field, spin, h=1e-6):
    """Eigenvalues of the central-difference Jacobian at gamma = e3, omega = n e3, on the
    tangent space of |gamma| = 1 (the variation of gamma3 left out)."""
    X0 = np.array([0, 0, 1, 0, 0, spin], float)
    keep = [0, 1, 3, 4, 5]
    Jm = np.empty((5, 5))
    for col, j in enumerate(keep):
        e = np.zeros(6)
        e[j] = h
        Jm[:, col] = ((field(X0 + e) - field(X0 - e)) / (2 * h))[keep]
    return np.linalg.eigvals(Jm)


def _sorted(ev):
    return np.array(sorted(ev, key=lambda z: (round(z.real, 5), round(z.imag, 5))))


def test_declared_only_where_the_spin_is_steady():
    assert [f.name for f in gm.examples.ellipsoid().steady_families] == \
        ["vertical spin about axis 3"]
    tilted = gm.examples.convex_body_on_plane(inertia=[[1, 0, sp.Rational(1, 5)], [0, 2, 0],
                                                       [sp.Rational(1, 5), 0, 3]])
    assert tilted.steady_families == ()
    off_axis = gm.examples.convex_body_on_plane(
        r=lambda G: [-G[0] + sp.Rational(1, 3), -G[1], -G[2]])
    assert off_axis.steady_families == ()


def _agrees_with_newton_euler(lin, values: dict, spin) -> None:
    """The spectrum of ``lin`` at ``values`` and spin ``n`` against the finite-difference
    spectrum of the independent Newton-Euler field (the natural chart keeps one more
    variable than the tangent space of |gamma| = 1: one more zero root)."""
    b = [values[k] for k in ("b1", "b2", "b3")]
    ours = lin.eigenvalues({**values, "n": spin})
    field = newton_euler_field([float(x) for x in b],
                               [float(values[k]) for k in ("I1", "I2", "I3")],
                               float(values["m"]), float(values["g"]))
    theirs = finite_difference_eigenvalues(field, float(spin))
    ours = sorted(ours, key=abs)[len(ours) - 5:]
    assert np.allclose(_sorted(ours), _sorted(theirs), atol=1e-5 * (1 + abs(float(spin))))


@pytest.fixture(scope="module")
def revolution():
    """The ellipsoid of revolution b1 = b2, I1 = I2 (symbolic) spinning about its axis."""
    b, I1 = sp.symbols("b1 I1", positive=True)
    S = gm.examples.ellipsoid(b2=b, I2=I1)
    n = sp.Symbol("n", real=True)
    return S, S.linearize(S.steady_motion(n=n))


def _positive_multiple(e, target) -> bool:
    """Whether ``e = c * target`` with ``c`` positive (a square of the spin and of the
    inertia aside; its sign checked at a few rational points)."""
    ratio = sp.cancel(sp.together(e / target))
    if zero(ratio):
        return False
    syms = sorted(ratio.free_symbols, key=str)
    pts = [{s: sp.Rational(3 * j + k + 1, 7) for j, s in enumerate(syms)} for k in range(4)]
    return all(ratio.xreplace(p) > 0 for p in pts)


def test_body_of_revolution_meets_the_classical_condition(revolution):
    """Reversible case (the characteristic polynomial is lambda * q(lambda^2), the zero root
    being the family's spin): the conditions are those of simple negative roots of q, one of
    them Routh's condition of the sleeping body of revolution."""
    S, lin = revolution
    assert lin.chart == "natural variables"
    b1, b3, I1, I3, m, g = (sp.Symbol(k, positive=True) for k in
                            ("b1", "b3", "I1", "I3", "m", "g"))
    n = sp.Symbol("n", real=True)
    h, rho = b3, b1**2 / b3
    classical = (I3 + m * h * rho)**2 * n**2 - 4 * m * g * (h - rho) * (I1 + m * h**2)
    conds = lin.stability_conditions()
    assert conds.kind == "spectral" and conds.zero_roots == 1
    assert any(_positive_multiple(i.lhs - i.rhs, classical) for i in conds.inequalities)
    # prolate on its end: unstable slowly, stable fast; oblate: stable at every rate
    vals = {"b1": 1, "b3": 2, "I1": 1, "I3": sp.Rational(2, 5), "m": 1, "g": 10}
    crit = sp.sqrt(4 * 10 * (2 - sp.Rational(1, 2)) * (1 + 4)) / (sp.Rational(2, 5) + 1)
    assert lin.stability({**vals, "n": crit * sp.Rational(9, 10)}).verdict is Verdict.UNSTABLE
    assert bool(lin.stability({**vals, "n": crit * sp.Rational(11, 10)}))
    assert bool(lin.stability({**vals, "b3": sp.Rational(1, 2), "n": sp.Rational(1, 10)}))


#: bodies of revolution: prolate and oblate, homogeneous or not
REVOLUTION_VALUES = [
    {"b1": 1, "b2": 1, "b3": 2, **_homogeneous(1, 1, 2), "m": 1, "g": 10},
    {"b1": 2, "b2": 2, "b3": sp.Rational(1, 2), "I1": 3, "I2": 3, "I3": 5, "m": 2, "g": 9},
    {"b1": sp.Rational(1, 2), "b2": sp.Rational(1, 2), "b3": 1, "I1": sp.Rational(1, 3),
     "I2": sp.Rational(1, 3), "I3": sp.Rational(1, 7), "m": 3, "g": 1},
]


@pytest.mark.parametrize("values", REVOLUTION_VALUES)
@pytest.mark.parametrize("spin", [0.5, 3.0, 12.0])
def test_revolution_spectrum_agrees_with_newton_euler(revolution, values, spin):
    _agrees_with_newton_euler(revolution[1], values, spin)


@pytest.fixture(scope="module")
def ellipsoid_spin():
    S = gm.examples.ellipsoid()
    n = sp.Symbol("n", real=True)
    return S, S.linearize(S.steady_motion(n=n))


#: tri-axial ellipsoids: standing on the longest, the middle and the shortest axis, one with
#: an inertia not that of a homogeneous body
TRIAXIAL_VALUES = [
    {**dict(zip(("b1", "b2", "b3"), AXES)), **_homogeneous(*AXES), "m": 1, "g": 10},
    {"b1": 1, "b2": 3, "b3": 2, **_homogeneous(1, 3, 2, m=2), "m": 2, "g": 10},
    {"b1": 2, "b2": sp.Rational(3, 2), "b3": sp.Rational(1, 2), "I1": 1, "I2": 2, "I3": 3,
     "m": 1, "g": sp.Rational(49, 5)},
]


@pytest.mark.slow
@pytest.mark.parametrize("values", TRIAXIAL_VALUES)
@pytest.mark.parametrize("spin", [0.5, 3.0, 12.0])
def test_eigenvalues_agree_with_finite_differences_of_newton_euler(ellipsoid_spin, values,
                                                                   spin):
    S, lin = ellipsoid_spin
    assert lin.chart == "natural variables"
    _agrees_with_newton_euler(lin, values, spin)


@pytest.mark.slow
def test_natural_variables_never_form_the_solved_field(ellipsoid_spin):
    """The chart keeps the Hamel equations M(gamma) omega' = f(gamma, omega): its pieces are
    a small part of the solved field omega' = M^-1 f (operation counts)."""
    from geomech.mechanics.analysis.natural_chart import natural_chart

    S, lin = ellipsoid_spin
    fc = natural_chart(S, lin.state)
    assert fc.mass is not None and fc.mass.shape == (3, 3)
    pieces = sum(count_ops(e) for e in fc.rhs) + sum(count_ops(e) for e in fc.mass)
    solved = S.compact_equations(frame="natural").count_ops("raw")
    assert 5 * pieces < solved
    # the reduced characteristic polynomial: the family's zero root and a reversible quartic
    p = lin.characteristic_polynomial(factored=False)
    assert lin.stability_conditions().zero_roots == 1
    assert sp.degree(p, sp.Symbol("lambda")) == 5


#: report values where the sample spins straddle the threshold of the prolate ellipsoid on
#: its longest axis: unstable at |n| = 1, stable at |n| = 5
STRADDLE = {"b1": 1, "b2": 0.75, "b3": 2, "I1": 0.9125, "I2": 1, "I3": 0.3125, "m": 1,
            "g": 0.25}
#: units of work (budget checks) of the section on the rolling ellipsoid, 518 measured (the
#: natural equations derived inside it; headroom for the engine's other steps)
STABILITY_SECTION_WORK = 700


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ellipsoid", "convex_body_on_plane"])
def test_report_section_and_diagram_of_vertical_spin(name):
    """The report's section linearises the distinguished family (vertical spin) in natural
    variables within a work limit, states the reversible-case conditions, and its verdict at
    each sample spin agrees with the independent Newton-Euler field (unstable iff a real
    part of the finite-difference spectrum is positive); the stability diagram is drawn."""
    from geomech.reporting.figures import FigureContext, stability_figure
    from geomech.reporting.stability import SAMPLE_CONSTANTS, stability_section

    S = gm.examples.get(name)
    with work_limit(STABILITY_SECTION_WORK, "stability section"):
        sec = stability_section(S, overrides=STRADDLE)
    assert sec.status == "ok"
    text = [t for t, _ in sec.lines]
    assert "family 'vertical spin about axis 3' (distinguished): constants n" in text
    assert "  linearised in natural variables; cyclic coordinates: none" in text
    assert any(t.startswith("  criterion: spectral stability") for t in text)
    assert sum(t == "    " for t in text) == 3          # the three conditions of q(mu)
    field = newton_euler_field([STRADDLE[k] for k in ("b1", "b2", "b3")],
                               [STRADDLE[k] for k in ("I1", "I2", "I3")], 1.0, 0.25)
    verdicts = []
    for spin in SAMPLE_CONSTANTS:
        line = next(t for t in text if t.startswith(f"  at the default parameters and n = "
                                                    f"{spin}:"))
        ev = finite_difference_eigenvalues(field, float(spin))
        assert line.endswith(": unstable") == (ev.real.max() > 1e-4), (spin, line, ev)
        verdicts.append(line.endswith(": unstable"))
    assert verdicts == [False, True, True, False]
    assert stability_figure(FigureContext(S, None, {})) is not None
