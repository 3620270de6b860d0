"""The count of the Euler-Jacobi-Lie theorem and the Lyapunov-Malkin argument of
:mod:`geomech.mechanics.analysis.attracting_family`, against independent derivations: the
dimension of the constrained phase space from the numbers of coordinates and constraints,
the rank of the symmetry fields at exact points, the self-stable speed range of Meijaard et
al. (2007), Table 2, and the kinetic energy of straight-ahead rolling."""

import random

import pytest
import sympy as sp

import geomech as gm
from geomech.core.parse import as_expr
from geomech.mechanics.analysis.attracting_family import (
    attracting_steady_motion,
    quadrature_count,
)
from geomech.mechanics.analysis.evident_symmetries import evident_symmetries


def _exact_rank(system, fields, seed: int = 3) -> int:
    """Rank of the fields' components at a random rational point (a lower bound)."""
    rng = random.Random(seed)
    pt = {c: sp.Rational(rng.randint(1, 97), rng.randint(1, 13))
          for c in system.manifold.coords}
    return sp.Matrix([[as_expr(a).xreplace(pt) for a in u.components] for u in fields]).rank()


@pytest.mark.parametrize("name", ["rolling_disk", "chaplygin_sleigh"])
def test_count_agrees_with_independent_counts(name):
    """n = 2 (dim N - m_h) - m_nh (configurations on h = 0, velocities in D); s is the rank of
    the verified symmetry fields; the energy is an integral (conservative, homogeneous)."""
    S = gm.examples.get(name)
    fields = evident_symmetries(S).fields
    c = quadrature_count(S, fields)
    m_h, m_nh = len(S.holonomic), len(S.dependent_velocities) - len(S.holonomic)
    assert c.n == 2 * (S.manifold.dim - m_h) - m_nh
    assert c.s == _exact_rank(S, fields) == len(fields)
    assert c.k == 1 and S.is_first_integral(S.energy())     # the symbolic route: exact
    assert c.short_without_measure == c.short_with_measure + 1


def test_bicycle_count_is_short():
    """The bicycle: 10-dimensional (8 coordinates, 1 holonomic and 4 nonholonomic
    constraints), the energy and the 5 Euclidean and wheel symmetries: 6 < n - 2."""
    S = gm.examples.whipple_bicycle()
    fields = evident_symmetries(S).fields
    c = quadrature_count(S, fields)
    assert (c.n, c.k + c.s) == (2 * (8 - 1) - 4, 1 + 5)
    assert c.s == _exact_rank(S, fields)
    assert c.short_with_measure == 2


@pytest.mark.slow
def test_bicycle_attracting_motion_is_self_stable():
    """The member found lies in the self-stable range (4.292, 6.024) m/s of Meijaard et al.
    (2007), Table 2, and dE/dv there is v (mR + mB + mH + mF + IRyy/rR^2 + IFyy/rF^2): the
    kinetic energy of straight-ahead rolling, both wheels turning at v/r."""
    from geomech.examples.bicycle import BENCHMARK_PARAMETERS as P

    m = attracting_steady_motion(gm.examples.whipple_bicycle())
    assert m is not None and 4.2924 < float(m.value) < 6.0242
    mass = (P["mR"] + P["mB"] + P["mH"] + P["mF"] + P["IRyy"] / P["rR"]**2
            + P["IFyy"] / P["rF"]**2)
    assert sp.simplify(m.slope - m.value * mass) == 0
