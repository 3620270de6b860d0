"""Numerics at scale: compiled right-hand sides, batch evaluation, ensembles.

Sections (each a function, so that other sections can be added to this file):

* ``bench_compiled_rhs`` -- geomech's CSE-compiled right-hand side (``compile_vector_field``)
  vs a hand-lambdified sympy right-hand side of the same field (``sympy.lambdify`` of the
  components, parameters substituted, no CSE): one call, and a whole ``solve_ivp`` run;
* ``bench_batch`` -- ``f.batch(Y)`` / ``f.jacobian.batch(Y)`` on 10^4 states vs a Python loop
  of single evaluations;
* ``bench_ensemble`` -- an ensemble of Chaplygin-ball runs over t in [0, 100]
  (``gm.sweep``): serially, on 2 local processes, on a 2-worker dask ``LocalCluster``;
  throughput (runs/s) and speed-up, and a check that every mode gives identical numbers.
* ``bench_dlda`` -- the discrete Lagrange-d'Alembert integrator (below).

Run: ``PYTHONPATH=. python benchmarks/bench_numeric.py [--quick] [--runs N]`` (``--quick``:
16 runs in the ensemble and fewer repetitions; default 1000 runs).

Section ``bench_dlda`` (the discrete Lagrange-d'Alembert integrator, ``method="dlda"``):
dlda vs DOP853 on the rolling disk and the Chaplygin sleigh over t in [0, T] (T = 1000, or
100 with ``--quick``), at equal cost and at equal accuracy.  Accuracy is measured two ways:
the maximal relative energy error over [0, T] (the long-time quantity) and the state error at
t = 10 against DOP853 with rtol = 1e-13 (for the sleigh that reference crosses the chart
singularity phi = pi/2 at t ~ 3 and is itself good to ~1e-7 only).  Cost is wall-clock time.

Measured (shared 2-core machine, T = 1000): rolling disk, dlda h=0.1 3.4 s with energy error
2.0e-5; DOP853 at equal cost (rtol=1e-9, 3.9 s) 1.1e-8; DOP853 reaches dlda's energy error at
rtol=1e-6 in 0.65x the time.  Sleigh: dlda h=0.1 1.4 s, 3.2e-4; DOP853 0.07-0.25 s at every
tolerance, 1.4e-5 at rtol=1e-9.  dlda's advantages are structural (constraints to round-off,
bounded energy error, no chart singularity), not speed at these horizons.

"""

from __future__ import annotations

import statistics
import sys
import time
import warnings

import numpy as np
import sympy as sp

import geomech as gm
from geomech.numeric import compile_vector_field

try:
    from benchmarks._common import table
except ImportError:
    from _common import table

QUICK = "--quick" in sys.argv
BALL_P = {"m": 1.0, "R": 1.0, "I1": 0.3, "I2": 0.4, "I3": 0.5}
SLEIGH_P = {"m": 1.0, "I": 1.0, "a": 0.5}


def _runs() -> int:
    if "--runs" in sys.argv:
        return int(sys.argv[sys.argv.index("--runs") + 1])
    return 16 if QUICK else 1000


def _per_call(fn, y, repeat: int) -> float:
    """Median seconds per call over ``repeat`` blocks of 200 calls."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(200):
            fn(0.0, y)
        times.append((time.perf_counter() - t0) / 200)
    return statistics.median(times)


def _hand_lambdified(V, params: dict):
    """What a user writes by hand: substitute the parameters, lambdify the components."""
    sub = {p: params[p.name] for p in V.manifold.parameters if p.name in params}
    f = sp.lambdify(V.manifold.coords, [c.xreplace(sub) for c in V.components], "numpy")
    return lambda t, y: np.array(f(*y), dtype=float)


def _ball_states(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    Y = rng.uniform(-1.0, 1.0, (n, 8))
    Y[:, 2] = rng.uniform(0.8, 2.3, n)              # theta away from the chart's poles
    return Y


def _ivp_time(f, span, y, repeat: int) -> float:
    from scipy.integrate import solve_ivp

    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        solve_ivp(f, span, y, method="DOP853", rtol=1e-11, atol=1e-12)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_compiled_rhs() -> None:
    rows = []
    for name, params in (("chaplygin_sleigh", SLEIGH_P), ("chaplygin_ball", BALL_P)):
        V = gm.examples.get(name).vector_field()
        t0 = time.perf_counter()
        ours = compile_vector_field(V, params)
        t_ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        hand = _hand_lambdified(V, params)
        t_hand = time.perf_counter() - t0
        y = _ball_states(1)[0] if name == "chaplygin_ball" else np.array([0, 0, 0.3, 1, 0.5])
        assert np.allclose(ours(0.0, y), hand(0.0, y), rtol=1e-10, atol=1e-12)
        rep = 3 if QUICK else 7
        c_ours, c_hand = _per_call(ours, y, rep), _per_call(hand, y, rep)
        span = (0.0, 200.0 if name == "chaplygin_sleigh" else 20.0)
        _ivp_time(hand, (0.0, 1.0), y, 1)               # warm up scipy before timing
        i_hand = _ivp_time(hand, span, y, rep)
        i_ours = _ivp_time(ours, span, y, rep)
        rows.append([name, f"{t_ours:.2f} s / {t_hand:.2f} s",
                     f"{c_ours * 1e6:.1f} us", f"{c_hand * 1e6:.1f} us",
                     f"{c_hand / c_ours:.2f}x", f"{i_ours:.2f} s", f"{i_hand:.2f} s",
                     f"{i_hand / i_ours:.2f}x", str(ours.operations)])
    table("compiled RHS (CSE) vs hand-lambdified sympy RHS",
          ["system", "compile ours/hand", "call ours", "call hand", "ratio", "ivp ours",
           "ivp hand", "ratio", "ops after CSE"], rows)


def bench_batch() -> None:
    V = gm.examples.chaplygin_ball().vector_field()
    f = compile_vector_field(V, BALL_P)
    J = f.jacobian
    n = 2000 if QUICK else 10000
    Y = _ball_states(n, seed=1)
    rows = []
    for what, batch, single in (("field", f.batch, lambda y: f(0.0, y)),
                                ("Jacobian", J.batch, lambda y: J(0.0, y))):
        t0 = time.perf_counter()
        B = batch(Y)
        t_b = time.perf_counter() - t0
        t0 = time.perf_counter()
        L = np.array([single(y) for y in Y])
        t_l = time.perf_counter() - t0
        assert np.allclose(B, L, rtol=1e-12, atol=1e-12)
        rows.append([what, str(n), f"{t_b * 1e3:.1f} ms", f"{t_l * 1e3:.1f} ms",
                     f"{t_l / t_b:.0f}x", f"{n / t_b:.3g}"])
    table("batch evaluation vs a Python loop (Chaplygin ball)",
          ["what", "states", "batch", "loop", "speed-up", "states/s (batch)"], rows)


def _ensemble_ics(n: int) -> list[dict]:
    Y = _ball_states(n, seed=2)
    names = ["x", "y", "theta", "phi", "psi", "thetadot", "phidot", "psidot"]
    out = []
    for y in Y:
        d = dict(zip(names, y))
        d["x"] = d["y"] = 0.0
        out.append(d)
    return out


def bench_ensemble() -> None:
    from distributed import Client, LocalCluster

    S = gm.examples.chaplygin_ball()
    S.vector_field()                                    # the symbolic work, done once
    ics = _ensemble_ics(_runs())
    rows, results = [], {}
    modes = [("serial", None), ("2 processes", "processes"), ("LocalCluster(2)", "cluster")]
    base = None
    for label, mode in modes:
        t0 = time.perf_counter()
        if mode == "cluster":
            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
            t_start = time.perf_counter() - t0
            res = gm.sweep(S, ics, (0, 100), parameters=BALL_P, client=client)
            client.close()
            cluster.close()
        else:
            t_start = 0.0
            res = gm.sweep(S, ics, (0, 100), parameters=BALL_P, client=mode, workers=2)
        wall = time.perf_counter() - t0
        results[label] = res
        base = base or wall
        rows.append([label, str(len(res)), f"{wall:.1f} s", f"{t_start:.1f} s",
                     f"{len(res) / wall:.2f}", f"{base / wall:.2f}x",
                     f"{np.nanmax(res.drifts['energy']):.1e}"])
    ref = results["serial"]
    for label, res in results.items():
        diff = max(float(np.max(np.abs(a.states - b.states))) for a, b in zip(ref, res))
        assert diff <= 1e-12, (label, diff)
    table("ensemble: Chaplygin ball, t in [0, 100] (identical numbers in every mode)",
          ["mode", "runs", "wall", "cluster start", "runs/s", "speed-up", "max energy drift"],
          rows)


DLDA_CASES = [
    ("rolling_disk", {"m": 1.0, "a": 1.0, "A": 0.25, "C": 0.5, "g": 1.0},
     {"x": 0.0, "y": 0.0, "theta": 1.3, "psi": 0.0, "phi": 0.0, "thetadot": 0.0,
      "psidot": 0.5, "phidot": 2.0}),
    ("chaplygin_sleigh", {"m": 1.0, "I": 0.7, "a": 0.4},
     {"x": 0.0, "y": 0.0, "phi": 0.3, "xdot": 1.0, "phidot": 1.0}),
]


def _dlda_run(S, p, x0, t_end, **kw) -> tuple[float, float, float]:
    """(wall time, max relative energy error on [0, t_end], error at t = 10 vs ref)."""
    with warnings.catch_warnings():      # the sleigh crosses its chart singularity at t ~ 3
        warnings.simplefilter("ignore", RuntimeWarning)
        t0 = time.perf_counter()
        res = gm.simulate(S, x0, t_end, parameters=p, **kw)
        wall = time.perf_counter() - t0
        short = gm.simulate(S, x0, 10.0, parameters=p, **kw)
    return wall, res.drift["energy"], short.states[-1]


def bench_dlda() -> None:
    t_end = 100.0 if QUICK else 1000.0
    for name, p, x0 in DLDA_CASES:
        S = gm.examples.get(name)
        ref = _dlda_run(S, p, x0, 1.0, rtol=1e-13, atol=1e-14)[2]       # also warms caches
        _dlda_run(S, p, x0, 1.0, method="dlda", step=0.1)                 # warm-up
        runs = []
        for h in (0.2, 0.1, 0.05):
            w, e, y = _dlda_run(S, p, x0, t_end, method="dlda", step=h)
            runs.append((f"dlda h={h:g}", w, e, float(np.max(np.abs(y - ref)))))
        for rtol in (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10):
            w, e, y = _dlda_run(S, p, x0, t_end, rtol=rtol, atol=rtol / 10)
            runs.append((f"DOP853 rtol={rtol:g}", w, e, float(np.max(np.abs(y - ref)))))
        table(f"dlda vs DOP853: {name}, t in [0, {t_end:g}]",
              ["method", "time", "max rel. energy error", "state error at t=10"],
              [[m, f"{w:.2f} s", f"{e:.2e}", f"{s:.2e}"] for m, w, e, s in runs])
        _dlda_summary(runs)


def _dlda_summary(runs) -> None:
    """Equal cost: the DOP853 run closest in time to dlda h=0.1; equal accuracy: the cheapest
    DOP853 run whose energy error is at most dlda's."""
    dl = next(r for r in runs if r[0] == "dlda h=0.1")
    dops = [r for r in runs if r[0].startswith("DOP853")]
    same_cost = min(dops, key=lambda r: abs(np.log(r[1] / dl[1])))
    print(f"equal cost ({dl[0]}, {dl[1]:.2f} s ~ {same_cost[0]}, {same_cost[1]:.2f} s): "
          f"energy error {dl[2]:.2e} vs {same_cost[2]:.2e} "
          f"(ratio DOP853/dlda {same_cost[2] / dl[2]:.2g}); state error at t=10 "
          f"{dl[3]:.2e} vs {same_cost[3]:.2e}")
    ok = [r for r in dops if r[2] <= dl[2]]
    if ok:
        best = min(ok, key=lambda r: r[1])
        print(f"equal energy accuracy (<= {dl[2]:.2e}): {best[0]} takes {best[1]:.2f} s, "
              f"{best[1] / dl[1]:.2g}x the time of {dl[0]}")
    else:
        print(f"equal energy accuracy: no DOP853 run reaches {dl[2]:.2e}")


def main() -> None:
    print(f"geomech numerics benchmark ({'quick' if QUICK else 'full'}); "
          f"{_runs()} ensemble runs")
    bench_compiled_rhs()
    bench_batch()
    bench_ensemble()
    bench_dlda()


if __name__ == "__main__":
    main()
