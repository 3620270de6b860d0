"""The Whipple bicycle benchmark (Meijaard, Papadopoulos, Ruina & Schwab 2007): derivation and
linearisation at upright straight-ahead rolling, geomech against sympy.physics.mechanics's own
route to the same matrices, in one run (issue 23, item 5).

* **geomech** -- ``gm.examples.whipple_bicycle()`` (the four bodies assembled with
  ``sympy.physics.mechanics`` frames, points and rigid bodies and converted by
  ``from_sympy_mechanics``: one holonomic and four nonholonomic constraints) and
  ``geomech.examples.bicycle.benchmark_matrices`` (the first variation at the steady state in
  mass-matrix form: M, C1, K0, K2 symbolic in the 26 parameters of Table 1); then, row
  ``generic``, the general ``bike.linearize(bike.steady_motion(speed=v))`` as well.
* **sympy** -- ``sympy.physics.mechanics.tests.test_kane3.test_bicycle``, sympy's own test of the
  benchmark: ``KanesMethod(...).kanes_equations`` with the configuration and velocity
  constraints, ``KM.linearize(A_and_B=True, op_point=...)`` symbolic in its parameters, then
  the numbers of Table 1 substituted and the state matrix compared with the benchmark's
  values (to 1e-12; the test raises otherwise).

Agreement in the same run: geomech's matrices at the values of Table 1 are compared with the
closed forms of the package ``bicycleparameters`` (1e-10) and their eigenvalues at 5 m/s with
Table 2; sympy's route checks itself against the benchmark.  CPU seconds
(``time.process_time``) of one cold call in a child process (sympy's cache and geomech's
caches empty), best of ``--repeat`` (default 2).

Run: ``python benchmarks/bench_bicycle.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

try:
    from benchmarks._common import cpu_in_child, table
except ImportError:  # run from the benchmarks folder
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _common import cpu_in_child, table

CAP = 900.0


def geomech_matrices():
    """Build the bicycle and derive M, C1, K0, K2; returns them (sympy matrices)."""
    import geomech as gm
    from geomech.examples.bicycle import benchmark_matrices

    return tuple(benchmark_matrices(gm.examples.whipple_bicycle()))


def geomech_generic():
    """Build the bicycle and linearise it by the general route; returns the eigenvalues at
    5 m/s (Table 2: -14.0784, -0.7753 +- 4.4649i, -0.3229 and the zero roots)."""
    import sympy as sp

    import geomech as gm

    bike = gm.examples.whipple_bicycle()
    lin = bike.linearize(bike.steady_motion(speed=sp.Symbol("v", real=True)))
    return lin.eigenvalues({"v": 5})


def sympy_route():
    """sympy's own benchmark test (KanesMethod + linearize, symbolic, then the numbers)."""
    from sympy.physics.mechanics.tests.test_kane3 import test_bicycle

    test_bicycle()
    return True


def agreement(matrices) -> str:
    """Max deviation from bicycleparameters' closed forms and from Table 2 at 5 m/s."""
    import numpy as np
    import sympy as sp

    from geomech.examples.bicycle import BENCHMARK_PARAMETERS

    vals = {sp.Symbol(k, real=True): v for k, v in BENCHMARK_PARAMETERS.items()}
    vals.update({sp.Symbol(k, positive=True): v for k, v in BENCHMARK_PARAMETERS.items()})
    num = [np.array(m.xreplace(vals).evalf(30).tolist(), dtype=float) for m in matrices]
    try:
        from bicycleparameters.bicycle import benchmark_par_to_canonical
    except ImportError:
        dev = "bicycleparameters not installed"
    else:
        ref = benchmark_par_to_canonical({k: float(v) for k, v in BENCHMARK_PARAMETERS.items()})
        worst = max(abs(a - b).max() for a, b in zip(num, ref))
        dev = f"max |geomech - bicycleparameters| = {worst:.1e}"
    M, C1, K0, K2 = num
    Mi = np.linalg.inv(M)
    A = np.block([[np.zeros((2, 2)), np.eye(2)], [-Mi @ (9.81 * K0 + 25 * K2), -5 * Mi @ C1]])
    ev = np.sort_complex(np.linalg.eigvals(A))
    table2 = np.sort_complex(np.array([-14.07838969279820, -0.77534188219585 - 4.46486771378823j,
                                       -0.77534188219585 + 4.46486771378823j,
                                       -0.32286642900409]))
    return f"{dev}; Table 2 at 5 m/s: {abs(ev - table2).max():.1e}"


def best(fn, repeat: int):
    runs = [cpu_in_child(fn, CAP) for _ in range(repeat)]
    done = [r for r in runs if r is not None]
    return (min(r[0] for r in done), done[0][1]) if done else (None, None)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    t_gm, mats = best(geomech_matrices, args.repeat)
    t_gen, ev = best(geomech_generic, args.repeat)
    t_sp, ok = best(sympy_route, args.repeat)
    rows = [["geomech: build + benchmark_matrices (M, C1, K0, K2 symbolic)", _s(t_gm),
             _ratio(t_sp, t_gm)],
            ["geomech: build + bike.linearize(steady_motion(speed=v))", _s(t_gen),
             _ratio(t_sp, t_gen)],
            ["sympy: test_kane3.test_bicycle (KanesMethod + linearize)", _s(t_sp), "1.0x"]]
    table(f"Whipple bicycle, CPU s, best of {args.repeat}, cold (child processes)",
          ["route", "CPU s", "sympy / route"], rows)
    if mats is not None:
        print("\nagreement:", agreement(mats))
    if ev is not None:
        print("generic route at 5 m/s, non-zero eigenvalues:",
              ", ".join(f"{e:.8f}" for e in ev if abs(e) > 1e-9))
    print("sympy's route checked itself against the benchmark:", bool(ok))


def _s(t) -> str:
    return "> cap" if t is None else f"{t:.1f}"


def _ratio(ref, ours) -> str:
    return "n/a" if ref is None or ours is None else f"{ref / ours:.1f}x"


if __name__ == "__main__":
    main()
