"""The Whipple bicycle (Meijaard, Papadopoulos, Ruina & Schwab 2007) from its bodies: the
linearised roll-steer equations M q'' + v C1 q' + (g K0 + v^2 K2) q = 0 and their eigenvalues,
against the closed forms of the package bicycleparameters and the published Table 2.

The fast tests read the library's own exact result, cached in ``bicycle_linearization.json``
(the matrices symbolic in the 26 parameters of Table 1, written by
``python tests/examples/test_bicycle.py``); the slow ones derive it afresh from the bodies
and check that the cache is that derivation, and the generic linearisation of the system.
"""

import json
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from geomech.core.parse import parse_expr
from geomech.core.zero import default_policy
from geomech.examples.bicycle import (
    BENCHMARK_PARAMETERS,
    BenchmarkMatrices,
    parameter_symbols,
)

CACHE = Path(__file__).with_name("bicycle_linearization.json")
SPEEDS = np.linspace(0.0, 10.0, 41)
# Meijaard et al. (2007), Table 2(a): weave and capsize speeds (m/s), and the
# bifurcation speed where the two real roots of the weave mode meet (with their value)
WEAVE, CAPSIZE = 4.29238253634111, 6.02426201538837
BIFURCATION, BIFURCATION_ROOT = 0.68428307889246, 3.78290405129320
WEAVE_FREQUENCY = 3.43503384866144           # the roots +-i*3.435... at the weave speed
# Meijaard et al. (2007), Table 2(b, c): the eigenvalues at v = 0, 1, ..., 10 m/s:
# castering (real), capsize (real), and the weave pair re +- i im (two real roots at v = 0)
_CASTER = [5.53094371765393, -7.11008014637442, -8.67387984831735, -10.35101467245920,
           -12.15861426576450, -14.07838969279820, -16.08537123098030, -18.15788466125262,
           -20.27940894394569, -22.43788559040858, -24.62459635017404]
_CAPSIZE = [-3.13164324790656, -3.13423125066578, -3.07158645641514, -2.63366137253667,
            -1.42944427361326, -0.32286642900409, -0.00406690076970, 0.10268170574766,
            0.14327879765713, 0.15790184030917, 0.16105338653172]
_WEAVE = [(3.13164324790656, 0.0), (3.52696170990070, 0.8077402751993),
          (2.68234517512745, 1.68066296590675), (1.70675605663975, 2.31582447384325),
          (0.41325331521125, 3.07910818603206), (-0.77534188219585, 4.46486771378823),
          (-1.52644486584142, 5.87673060598709), (-2.13875644258362, 7.19525913329805),
          (-2.69348683581097, 8.46037971396931), (-3.21675402252485, 9.69377351531791),
          (-3.72016840437287, 10.90681139476287)]


def _table2(v: int) -> np.ndarray:
    re, im = _WEAVE[v]
    pair = [-5.53094371765393, 3.13164324790656] if v == 0 else [re + 1j * im, re - 1j * im]
    return _sorted(np.array([_CASTER[v], _CAPSIZE[v], *pair], dtype=complex))


def _sorted(ev: np.ndarray) -> np.ndarray:
    """By real part (to 1e-6: conjugates stay in the order of their imaginary parts)."""
    return ev[np.lexsort((ev.imag, np.round(ev.real, 6)))]


# -- the cache ------------------------------------------------------------------------------
def _names() -> dict:
    return parameter_symbols()


def write_cache(matrices: BenchmarkMatrices) -> None:
    """Write the matrices (exact, as text) to :data:`CACHE`."""
    data = {"source": "geomech.examples.bicycle.benchmark_matrices(whipple_bicycle())",
            "parameters": sorted(_names())}
    for name, mat in zip(BenchmarkMatrices._fields, matrices):
        data[name] = [[sp.sstr(e) for e in mat.row(i)] for i in range(mat.rows)]
    CACHE.write_text(json.dumps(data, indent=1) + "\n")


def read_cache() -> BenchmarkMatrices:
    """The cached matrices, read by the library's safe parser."""
    data = json.loads(CACHE.read_text())
    names = _names()
    return BenchmarkMatrices(*[sp.Matrix([[parse_expr(t, names) for t in row]
                                          for row in data[f]])
                               for f in BenchmarkMatrices._fields])


# -- numbers --------------------------------------------------------------------------------
def _numeric(matrices: BenchmarkMatrices) -> list:
    vals = {s: BENCHMARK_PARAMETERS[n] for n, s in _names().items()}
    return [np.array(m.xreplace(vals).evalf(30).tolist(), dtype=float) for m in matrices]


def _state_matrix(M, C1, K0, K2, v: float, g: float = 9.81) -> np.ndarray:
    """x' = A x, x = (phi, delta, phi', delta')."""
    Minv = np.linalg.inv(M)
    return np.block([[np.zeros((2, 2)), np.eye(2)],
                     [-Minv @ (g * K0 + v**2 * K2), -v * Minv @ C1]])


def _eigenvalues(mats, v: float) -> np.ndarray:
    return _sorted(np.linalg.eigvals(_state_matrix(*mats, v)))


def _reference():
    bp = pytest.importorskip("bicycleparameters.bicycle")
    p = {k: float(v) for k, v in BENCHMARK_PARAMETERS.items()}
    return bp, bp.benchmark_par_to_canonical(dict(p))


def _weave_real(mats, v: float) -> float:
    """The real part of the weave pair (the complex roots)."""
    ev = _eigenvalues(mats, v)
    return float(max(e.real for e in ev if abs(e.imag) > 1e-6))


def _capsize_root(mats, v: float) -> float:
    """The real root of the capsize mode (the real root nearest 0 above the weave speed)."""
    ev = _eigenvalues(mats, v)
    return float(min((e.real for e in ev if abs(e.imag) < 1e-9), key=abs))


def _check_against_bicycleparameters(mats) -> None:
    bp, ref = _reference()
    for mine, theirs in zip(_numeric(mats), ref):
        assert np.allclose(mine, theirs, rtol=0, atol=1e-10)
    M, C1, K0, K2 = _numeric(mats)
    for v in SPEEDS:
        A_ref, _ = bp.ab_matrix(*ref, v, 9.81)
        assert np.allclose(_state_matrix(M, C1, K0, K2, v), A_ref, rtol=0, atol=1e-10)
        ev_ref = _sorted(np.linalg.eigvals(A_ref))
        assert np.allclose(_eigenvalues((M, C1, K0, K2), v), ev_ref, rtol=0, atol=1e-9)


def _check_published(mats) -> None:
    from scipy.optimize import brentq

    num = _numeric(mats)
    for v in range(11):
        assert np.allclose(_eigenvalues(num, v), _table2(v), rtol=0, atol=1e-9), v
    weave = brentq(lambda s: _weave_real(num, s), 3.0, 5.0, xtol=1e-14)
    capsize = brentq(lambda s: _capsize_root(num, s), 5.5, 7.0, xtol=1e-14)
    assert abs(weave - WEAVE) < 1e-8 and abs(capsize - CAPSIZE) < 1e-8
    assert abs(weave - 4.292382536) < 1e-8 and abs(capsize - 6.024262015) < 1e-8
    at_weave = _eigenvalues(num, WEAVE)
    assert np.isclose(max(abs(e.imag) for e in at_weave), WEAVE_FREQUENCY, rtol=0, atol=1e-9)
    # below the bifurcation speed the weave roots are real, above it complex; at it double
    real_below = _eigenvalues(num, BIFURCATION - 1e-3)
    assert np.all(np.abs(real_below.imag) < 1e-12)
    assert np.sum(np.abs(_eigenvalues(num, BIFURCATION + 1e-3).imag) > 1e-6) == 2
    near = sorted(_eigenvalues(num, BIFURCATION).real, key=lambda r: abs(r - BIFURCATION_ROOT))
    assert abs(near[0] - BIFURCATION_ROOT) < 1e-6 and abs(near[1] - BIFURCATION_ROOT) < 1e-6


# -- fast: the cached exact result ------------------------------------------------------------
def test_cached_matrices_match_bicycleparameters_at_every_speed():
    """M, C1, K0, K2 to 1e-10 and the eigenvalues at 41 speeds in [0, 10] m/s to 1e-9."""
    _check_against_bicycleparameters(read_cache())


def test_cached_matrices_reproduce_table2_and_the_critical_speeds():
    """Table 2 of Meijaard et al. (2007) at 0, 1, ..., 10 m/s to 1e-9; the weave and capsize
    speeds found by root-finding on the real parts, to 1e-8."""
    _check_published(read_cache())


def test_cached_matrices_are_symbolic_and_symmetric():
    """The parameters of Table 1 enter symbolically -- all but g (a factor of the form) and
    the pitch moments of inertia IByy, IHyy, absent from the linearised lateral equations
    as in Meijaard et al. (2007), Appendix A; M is symmetric exactly, and K0 is (the
    gravitational stiffness is a Hessian)."""
    M, C1, K0, K2 = read_cache()
    free = set().union(*(m.free_symbols for m in (M, C1, K0, K2)))
    assert {s.name for s in free} == set(BENCHMARK_PARAMETERS) - {"g", "IByy", "IHyy"}
    policy = default_policy()
    assert policy.is_zero(M[0, 1] - M[1, 0]) and policy.is_zero(K0[0, 1] - K0[1, 0])


# -- slow: the derivation ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def bike():
    import geomech as gm

    return gm.examples.whipple_bicycle()


@pytest.mark.slow
def test_cache_is_the_derivation_from_the_bodies(bike):
    """The library's result, derived afresh from the four bodies, equals the cache exactly
    and matches bicycleparameters and Table 2."""
    from geomech.examples.bicycle import benchmark_matrices

    fresh = benchmark_matrices(bike)
    policy = default_policy()
    for a, b in zip(fresh, read_cache()):
        assert all(policy.is_zero(x - y) for x, y in zip(a, b))
    _check_against_bicycleparameters(fresh)
    _check_published(fresh)


@pytest.mark.slow
def test_generic_linearisation_and_stability_of_the_bicycle(bike):
    """``bike.linearize(bike.steady_motion(speed=v))``: the cyclic coordinates, pitch
    eliminated by the holonomic constraint, the eigenvalues of Table 2, the verdicts on
    either side of the weave and capsize speeds and the stability diagram's crossings."""
    v = sp.Symbol("v", real=True)
    lin = bike.linearize(bike.steady_motion(speed=v))
    assert {c.name for c in lin.cyclic} == {"x", "y", "psi", "thetaR", "thetaF"}
    assert "thetaB" not in {c.name for c in lin.variables}
    for speed in (0, 3, 5, 8):
        ev = lin.eigenvalues({"v": speed})
        moving = ev[np.abs(ev) > 1e-9]
        assert np.allclose(_sorted(moving), _table2(speed), rtol=0, atol=1e-9)
    verdicts = {s: lin.stability({"v": s}).verdict.value for s in (3, 5, 7)}
    assert verdicts == {3: "unstable", 5: "asymptotically stable", 7: "unstable"}
    d = bike.stability_diagram("speed", np.linspace(0.0, 10.0, 201))
    weave, capsize = d.crossings()
    assert abs(weave - WEAVE) < 5e-3 and abs(capsize - CAPSIZE) < 5e-3
    weave, capsize = d.refined_crossings()
    assert abs(weave - WEAVE) < 1e-8 and abs(capsize - CAPSIZE) < 1e-8


if __name__ == "__main__":       # refresh the cache from the library
    import geomech as gm
    from geomech.examples.bicycle import benchmark_matrices

    write_cache(benchmark_matrices(gm.examples.whipple_bicycle()))
