r"""Staude's permanent rotations and the equilibria of the general heavy top (Staude (1894),
J. reine angew. Math. 113; Leimanis (1965), Ch. I, §4), each against an independent numpy
Euler--Poisson field

.. math:: I\dot\omega = I\omega\times\omega + mg\,\gamma\times r_0, \qquad
          \dot\gamma = \gamma\times\omega ,

differentiated by finite differences, and against classical facts: the axis lies on
Staude's cone :math:`(\gamma, I\gamma\times r_0) = 0`; with :math:`r_0` on a principal axis
the rotations about it are the sleeping top; the hanging top at rest is linearly stable and
the inverted one unstable.
"""

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.examples.bodies import heavy_top, staude_families

from .numpy_fields import euler_poisson, fd_jacobian, same_spectrum

R = sp.Rational
NAMES = ("I1", "I2", "I3", "m", "g", "x0", "y0", "z0")


def natural_values(state: dict) -> np.ndarray:
    r""":math:`(\gamma, \omega)` of a phase-space state, from Borisov & Mamaev (2015),
    (5.5) and (5.7), numerically."""
    th, ph, a, b, c = (float(sp.N(state[k], 30)) for k in
                       ("theta", "phi", "thetadot", "phidot", "psidot"))
    G = np.array([np.sin(ph) * np.sin(th), np.cos(ph) * np.sin(th), np.cos(th)])
    w = np.array([c * np.sin(th) * np.sin(ph) + a * np.cos(ph),
                  c * np.sin(th) * np.cos(ph) - a * np.sin(ph), c * np.cos(th) + b])
    return np.concatenate([G, w])


# random parameters: distinct moments, a centre of mass off the axes, kappa off the I_i
moments = st.integers(5, 40).map(lambda k: R(k, 10))
offsets = st.integers(-20, 20).filter(lambda k: k != 0).map(lambda k: R(k, 10))


@st.composite
def tops(draw):
    I = draw(st.lists(moments, min_size=3, max_size=3, unique=True))
    r0 = [draw(offsets) for _ in range(3)]
    return dict(zip(NAMES, [*I, R(1), R(981, 100), *r0]))


@st.composite
def tops_and_kappa(draw):
    p = draw(tops())
    kappa = draw(st.integers(-60, 60).map(lambda k: R(k, 10)).filter(
        lambda k: all(k != p[i] for i in ("I1", "I2", "I3"))))
    return p, kappa


@pytest.fixture(scope="module")
def general_top():
    return heavy_top()


def _at(T, values: dict) -> dict:
    return {T.manifold.parameters[k]: v for k, v in enumerate(values[n] for n in NAMES)}


def test_the_general_top_declares_staudes_families(general_top):
    names = [f.name for f in general_top.steady_motions(search=False)]
    assert names == ["hanging at rest", "permanent rotation", "inverted at rest"]
    assert [f.name for f in heavy_top(x0=0, y0=0).steady_families] == ["sleeping top"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tops_and_kappa())
def test_permanent_rotations_are_equilibria_on_staudes_cone(general_top, pk):
    p, kappa = pk
    T = general_top
    state = T.steady_motion("permanent rotation", kappa=kappa)
    state = {k: sp.sympify(v).xreplace(_at(T, p)) for k, v in state.items()}
    X = natural_values(state)
    I = np.array([float(p[k]) for k in ("I1", "I2", "I3")])
    r0 = np.array([float(p[k]) for k in ("x0", "y0", "z0")])
    G, w = X[:3], X[3:]
    assert abs(G @ G - 1) < 1e-12
    assert np.allclose(np.cross(w, G), 0, atol=1e-9 * (1 + np.abs(w).max()))   # omega || gamma
    assert abs(np.linalg.det(np.array([G, I * G, r0]))) < 1e-9                   # Staude's cone
    F = euler_poisson(I, float(p["m"]), float(p["g"]), r0)(X)
    assert np.abs(F).max() < 1e-8 * (1 + (w @ w))


@pytest.mark.parametrize("name, sign", [("hanging at rest", -1), ("inverted at rest", 1)])
def test_the_top_at_rest_is_an_equilibrium_with_gamma_along_r0(general_top, name, sign):
    T = general_top
    p = dict(zip(NAMES, [R(2), R(3), R(4), R(1), R(981, 100), R(1, 2), R(-1, 3), R(1, 5)]))
    state = {k: sp.sympify(v).xreplace(_at(T, p)) for k, v in T.steady_motion(name).items()}
    X = natural_values(state)
    r0 = np.array([0.5, -1 / 3, 0.2])
    assert np.allclose(X[:3], sign * r0 / np.linalg.norm(r0)) and not X[3:].any()
    assert np.abs(euler_poisson((2, 3, 4), 1, 9.81, r0)(X)).max() < 1e-12


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tops_and_kappa())
def test_staude_jacobian_against_finite_differences(pk):
    """The exact Jacobian (natural variables, restricted to |gamma| = 1) at a random point of
    the family: its spectrum and a zero root make up the finite-difference spectrum of the
    independent field on R^6 (the extra zero: the direction off the sphere)."""
    p, kappa = pk
    T = heavy_top(**p)
    lin = T.linearize(T.steady_motion("permanent rotation", kappa=kappa), chart="natural")
    assert lin.chart == "natural variables" and len(lin.variables) == 5
    X = natural_values({c.name: v for c, v in lin.state.items()})
    I = [float(p[k]) for k in ("I1", "I2", "I3")]
    r0 = [float(p[k]) for k in ("x0", "y0", "z0")]
    fd = np.linalg.eigvals(fd_jacobian(euler_poisson(I, 1.0, 9.81, r0), X))
    ev = np.append(lin.eigenvalues(), 0)
    assert same_spectrum(ev, fd, tol=1e-5)
    # the reversible spectrum: lambda, -lambda; one zero root of the reduced field
    assert lin.stability().zero_roots == 1


@pytest.fixture(scope="module")
def at_rest(general_top):
    T = general_top
    return {name: T.linearize(T.steady_motion(name), chart="natural")
            for name in ("hanging at rest", "inverted at rest")}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                               HealthCheck.function_scoped_fixture])
@given(tops())
def test_hanging_top_stable_inverted_unstable(at_rest, p):
    """For generic I and r0 (Lagrange--Dirichlet for the hanging top; the inverted one has
    the potential's maximum)."""
    assert at_rest["hanging at rest"].stability(p).verdict.value == "linearly stable"
    assert at_rest["inverted at rest"].stability(p).verdict.value == "unstable"


@pytest.mark.parametrize("name", ["hanging at rest", "inverted at rest"])
def test_rest_jacobian_against_finite_differences(at_rest, name):
    p = dict(zip(NAMES, [R(13, 10), R(21, 10), R(3), R(1), R(981, 100), R(7, 10), R(-2, 5),
                         R(1, 2)]))
    lin = at_rest[name]
    r0 = np.array([0.7, -0.4, 0.5])
    X = np.concatenate([(-1 if name.startswith("hanging") else 1) * r0 / np.linalg.norm(r0),
                        np.zeros(3)])
    fd = np.linalg.eigvals(fd_jacobian(euler_poisson((1.3, 2.1, 3), 1, 9.81, r0), X))
    assert same_spectrum(np.append(lin.eigenvalues(p), 0), fd, tol=1e-5)


def test_rotation_about_the_axis_of_the_centre_of_mass_is_the_sleeping_top():
    """r0 = (0, 0, z0): Staude's parametrisation gives gamma = e3 for z0/(I3 - kappa) > 0
    with Omega^2 = m g z0/(I3 - kappa) -- every spin n, as for the sleeping top -- and the
    linearisations agree."""
    p = {"I1": R(2), "I2": R(3), "I3": R(5), "m": R(1), "g": R(10)}
    z0 = R(1, 2)
    T = heavy_top(x0=0, y0=0, z0=z0, **p)
    (fam,) = [f for f in staude_families(p, [0, 0, z0]) if f.name == "permanent rotation"]
    kappa = R(3)                                         # z0/(I3 - kappa) = 1/4 > 0
    state = fam.at(kappa=kappa)
    n = state["psidot"]
    assert sp.cos(state["theta"]) == 1 and n**2 == p["m"] * p["g"] * z0 / (p["I3"] - kappa)
    staude = T.linearize({"theta": 0, "phi": 0, "psi": 0, "thetadot": 0, "phidot": 0,
                          "psidot": n})
    sleeping = T.linearize(T.steady_motion(n=n))
    assert same_spectrum(staude.eigenvalues(), sleeping.eigenvalues(), tol=1e-9)
