"""The Whipple bicycle (Meijaard, Papadopoulos, Ruina & Schwab 2007) from its bodies:
the linearised roll-steer equations M q'' + v C1 q' + (g K0 + v^2 K2) q = 0 and the
weave and capsize speeds, against the closed forms of the package bicycleparameters."""

import json
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

CACHE = Path(__file__).with_name("bicycle_linearization.json")
WEAVE, CAPSIZE = 4.292382536, 6.024262015      # Meijaard et al. (2007), §8


def _benchmark_floats():
    from geomech.examples.bicycle import BENCHMARK_PARAMETERS

    return {k: float(v) for k, v in BENCHMARK_PARAMETERS.items()}


def _reference(v):
    bp = pytest.importorskip("bicycleparameters.bicycle")
    p = _benchmark_floats()
    M, C1, K0, K2 = bp.benchmark_par_to_canonical(dict(p))
    A, _ = bp.ab_matrix(M, C1, K0, K2, v, p["g"])
    return M, C1, K0, K2, A


def derive():
    """(M, MA) exact, symbolic in the 26 parameters and the speed v: M the reduced mass matrix
    of (phidot, deltadot), MA = M times the rows (phiddot, deltaddot) of the Jacobian of the
    Lagrange-d'Alembert field at upright straight-ahead rolling, columns (phi, delta, phidot,
    deltadot) -- i.e. -(g K0 + v^2 K2 | v C1)."""
    import geomech as gm
    from geomech.mechanics.equations.first_variation import (
        field_jacobian,
        reduced_mass_matrix_at,
    )

    bike = gm.examples.whipple_bicycle()
    v = sp.Symbol("v", real=True)
    rR = next(p for p in bike.manifold.parameters if p.name == "rR")
    state = {c.name: 0 for c in bike.phase_space.coords}
    state["thetaRdot"] = -v / rR
    coords = [c.name for c in bike.phase_space.coords]
    J = field_jacobian(bike, state)
    M3 = reduced_mass_matrix_at(bike, state)
    rows = [coords.index("phidot"), coords.index("deltadot")]
    cols = [coords.index(n) for n in ("phi", "delta", "phidot", "deltadot")]
    u = [c.name for c in bike.independent_velocities]
    mi = [u.index("phidot"), u.index("deltadot")]
    M = M3.extract(mi, mi)
    return M, (M * J.extract(rows, cols)).applyfunc(sp.expand), v


def _numeric(M, MA, v, speed):
    from geomech.examples.bicycle import BENCHMARK_PARAMETERS

    vals = {sp.Symbol(k, real=True): val for k, val in BENCHMARK_PARAMETERS.items()}
    vals.update({sp.Symbol(k, positive=True): val for k, val in BENCHMARK_PARAMETERS.items()})
    vals[v] = speed
    Mn = np.array(M.xreplace(vals).evalf(30).tolist(), dtype=float)
    MAn = np.array(MA.xreplace(vals).evalf(30).tolist(), dtype=float)
    return Mn, MAn


def _check(M, MA, v):
    g = 9.81
    Mref, C1, K0, K2, _ = _reference(1.0)
    for speed in np.linspace(0.0, 10.0, 21):
        Mn, MAn = _numeric(M, MA, v, speed)
        assert np.allclose(Mn, Mref, rtol=0, atol=1e-10)
        assert np.allclose(-MAn[:, :2], g * K0 + speed**2 * K2, rtol=0, atol=1e-10)
        assert np.allclose(-MAn[:, 2:], speed * C1, rtol=0, atol=1e-10)
        A = np.block([[np.zeros((2, 2)), np.eye(2)], [np.linalg.solve(Mn, MAn)]])
        ev, ev_ref = np.linalg.eigvals(A), np.linalg.eigvals(_reference(speed)[4])
        assert np.allclose(np.sort_complex(ev), np.sort_complex(ev_ref), atol=1e-9)


def _max_real_weave(M, MA, v, speed):
    Mn, MAn = _numeric(M, MA, v, speed)
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [np.linalg.solve(Mn, MAn)]])
    ev = np.linalg.eigvals(A)
    return max(e.real for e in ev if abs(e.imag) > 1e-9)


@pytest.mark.slow
def test_bicycle_from_bodies_matches_the_benchmark():
    pytest.importorskip("bicycleparameters")
    M, MA, v = derive()
    _check(M, MA, v)


def test_bicycle_cached_linearisation_matches_bicycleparameters():
    """On the library's own exact result (cached by ``python tests/examples/test_bicycle.py``),
    compared with bicycleparameters at 21 speeds; the weave speed to 1e-8."""
    pytest.importorskip("bicycleparameters")
    if not CACHE.exists():
        pytest.skip("no cached linearisation")
    data = json.loads(CACHE.read_text())
    M, MA = sp.sympify(data["M"]), sp.sympify(data["MA"])
    v = sp.Symbol("v", real=True)
    _check(sp.Matrix(M), sp.Matrix(MA), v)
    from scipy.optimize import brentq

    weave = brentq(lambda s: _max_real_weave(sp.Matrix(M), sp.Matrix(MA), v, s), 3.0, 5.0,
                   xtol=1e-13)
    assert abs(weave - WEAVE) < 1e-8


if __name__ == "__main__":       # refresh the cache from the library
    M, MA, _ = derive()
    CACHE.write_text(json.dumps({"M": sp.srepr(M), "MA": sp.srepr(MA)}))
