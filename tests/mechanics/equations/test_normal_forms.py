"""Large right-hand sides without expression swell (issue 13, item 5): the structured
accelerations kept by ``phase_rhs_from_quasi`` and the ring normal form of the vector fields.

Mathematics asserted, not outputs of the code:

* the ring normal form is the same function (zero policy), a quotient of coprime polynomials
  (the generators ``sin``, ``cos``, the root taken as independent), reduced modulo
  :math:`\\sin^2+\\cos^2=1` and :math:`(\\sqrt b)^2=b`;
* with every right-hand side treated as large (threshold 0), the forms in their own
  velocities agree with Lagrange-d'Alembert exactly, and the field built from the normal
  form equals the normalised field and conserves the energy (:math:`X(E) = 0`);
* the rolling ellipsoid (slow): its vector field agrees with the mass-matrix form at a
  random point exactly in :math:`\\mathbb Q(\\sqrt r)`, in < 30 s CPU with the system.
"""

from __future__ import annotations

import random

import pytest
import sympy as sp

import geomech as gm
from geomech.core.budget import work_limit
from geomech.core.fields import VectorField
from geomech.core.zero import default_policy
from geomech.mechanics.equations import common
from geomech.mechanics.equations.common import ring_normal_forms

x, y, t = sp.symbols("x y t", real=True)
R = sp.sqrt(1 + x**2 * sp.sin(t)**2)


def _expressions(seed: int, count: int = 6) -> list:
    """Random sums of quotients in x, y, sin t, cos t and the root R."""
    rng = random.Random(seed)
    atoms = [x, y, sp.sin(t), sp.cos(t), R, 1 / R]
    out = []
    for _ in range(count):
        e = sp.S.Zero
        for _ in range(3):
            num = sum(rng.randint(-3, 3) * rng.choice(atoms) * rng.choice(atoms)
                      for _ in range(3)) + rng.randint(1, 4)
            den = rng.choice(atoms) + rng.randint(2, 5) + rng.choice([x**2, y**2, R])
            e += num / den
        out.append(e)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ring_normal_form_is_the_same_reduced_coprime_quotient(seed):
    exprs = _expressions(seed)
    normal = ring_normal_forms(exprs)
    pol = default_policy()
    r, s, c = sp.symbols("r s c")
    for e, f in zip(exprs, normal):
        assert pol.is_zero(e - f)
        n, d = sp.fraction(f)
        rep = {R: r, sp.sin(t): s, sp.cos(t): c}
        n, d = sp.expand(n.xreplace(rep)), sp.expand(d.xreplace(rep))
        assert not n.has(sp.Pow(1 + x**2 * s**2, sp.Rational(1, 2)))
        assert sp.degree(n, c) < 2 and sp.degree(d, c) < 2
        assert sp.degree(n, r) < 2 and sp.degree(d, r) < 2
        assert sp.gcd(n, d).is_number


def test_ring_normal_form_declines_what_is_outside_the_ring():
    f = sp.Function("f")
    assert ring_normal_forms([x / (1 + x), 0.5 * x]) is None
    assert ring_normal_forms([f(x) / (1 + x)]) is None


def _large(monkeypatch):
    """Every right-hand side counts as large: the heavy-body routes on cheap systems."""
    monkeypatch.setattr(common, "ABBREVIATE_OPS", 0)


@pytest.mark.parametrize("name", ["rolling_disk", "chaplygin_sleigh"])
@pytest.mark.parametrize("method", ["quasi_velocities", "appell"])
def test_kept_accelerations_agree_with_lagrange_dalembert(monkeypatch, name, method):
    """The natural frame (own velocities != independent velocities): phase-space rates with
    the solved accelerations kept agree with the Lagrange-d'Alembert rates exactly."""
    ref = gm.examples.get(name).equations("lagrange_dalembert")
    _large(monkeypatch)
    S = gm.examples.get(name)
    nat = S.natural_frame
    eq = S.equations(method, frame=nat["frame"], names=nat.get("names"))
    assert eq.agrees_with(ref)


@pytest.mark.parametrize("name", ["rolling_disk", "chaplygin_sleigh"])
def test_field_from_the_normal_form_is_the_field(monkeypatch, name):
    ref = gm.examples.get(name).equations("lagrange_dalembert")
    _large(monkeypatch)
    S = gm.examples.get(name)
    V = S.equations("lagrange_dalembert").vector_field()
    M = S.phase_space
    assert V == VectorField(M, [ref.rhs[c] for c in M.coords])
    assert default_policy().is_zero(V(S.energy()))


@pytest.mark.slow
def test_ellipsoid_vector_field_is_quick_and_exact():
    """The rolling ellipsoid, symbolic parameters: the field of Lagrange-d'Alembert, in its
    ring normal form, agrees with the mass-matrix form of the Voronets equations at a random
    point (exactly in a quadratic field) and conserves the energy there; within 100 units of
    work of the engine (budget checks: 14 today, whatever the speed of the machine)."""
    from tests.mechanics.equations.test_heavy_bodies import (
        _at,
        _energy_rate,
        _exactly_zero,
        _point,
        _rates,
    )

    with work_limit(100, "the ellipsoid's vector field"):
        S = gm.examples.ellipsoid()
        V = S.vector_field()
    imp = S.equations("voronets", explicit=False).mass_matrix_form()
    pt = _point(S, seed=13)
    ref = _rates(imp, pt)
    mine = {c: _at(e, pt) for c, e in zip(S.phase_space.coords, V.components)}
    for c in imp.coords:
        assert _exactly_zero(mine[c] - ref[c]), c
    assert _exactly_zero(_energy_rate(S, mine, pt))


@pytest.mark.slow
@pytest.mark.parametrize("method", ["quasi_velocities", "appell"])
def test_ellipsoid_natural_frame_forms_on_the_phase_space(method):
    """Hamel and Appell in the body angular velocity, passed to the phase space with the
    solved accelerations kept: equal to the mass-matrix form of Lagrange-d'Alembert at a
    random point (exactly in a quadratic field), energy conserved there."""
    from tests.mechanics.equations.test_heavy_bodies import (
        _at,
        _energy_rate,
        _exactly_zero,
        _point,
        _rates,
    )

    S = gm.examples.ellipsoid()
    nat = S.natural_frame
    rhs = S.equations(method, frame=nat["frame"], names=nat.get("names")).rhs
    imp = S.equations("lagrange_dalembert", explicit=False).mass_matrix_form()
    pt = _point(S, seed=17)
    ref = _rates(imp, pt)
    mine = {c: _at(rhs[c], pt) for c in imp.coords}
    for c in imp.coords:
        assert _exactly_zero(mine[c] - ref[c]), c
    assert _exactly_zero(_energy_rate(S, mine, pt))


def test_pickled_field_of_large_rhs_is_the_same_field(monkeypatch):
    import pickle

    _large(monkeypatch)
    S = gm.examples.get("rolling_disk")
    V = S.equations("lagrange_dalembert").vector_field()
    W = pickle.loads(pickle.dumps(V))
    assert W == V and W.manifold.coords == V.manifold.coords
    assert default_policy().is_zero(W(S.energy()))
