"""Numerics at scale: compiled right-hand sides, batch evaluation, ensembles, dlda.

Sections (each a function, so that other sections can be added to this file):

* ``bench_compiled_rhs`` -- geomech's CSE-compiled right-hand side (``compile_vector_field``)
  vs a hand-lambdified sympy right-hand side of the same field (``sympy.lambdify`` of the
  components, parameters substituted, no CSE): one call, and a whole ``solve_ivp`` run;
* ``bench_batch`` -- ``f.batch(Y)`` / ``f.jacobian.batch(Y)`` on 10^4 states vs a Python loop
  of single evaluations;
* ``bench_numba`` -- the optional numba backend (``backend="numba"``) vs the numpy default:
  compile time, one call, a batch of 10^4 states, the Jacobian batch, a whole ``simulate``;
* ``bench_ensemble`` -- an ensemble of Chaplygin-ball runs over t in [0, 100]
  (``gm.sweep``): serially, on 2 local processes, on a 2-worker dask ``LocalCluster``;
  throughput (runs/s) and speed-up, and a check that every mode gives identical numbers;
* ``bench_dlda`` -- the discrete Lagrange-d'Alembert integrator vs DOP853 at equal cost and
  at equal accuracy.

Run: ``PYTHONPATH=. python benchmarks/bench_numeric.py [--quick] [--runs N]
[--only SECTION ...] [--modes MODE ...]`` (``--quick``: 16 runs in the ensemble and fewer
repetitions; default 1000 runs; ``--only ensemble`` runs one section; ``--modes processes``
re-runs some modes of the ensemble only: ``serial``, ``processes``, ``cluster``).

Time: the machine may be shared, so single-process sections report CPU time of this process
(``time.process_time``), which other jobs do not inflate.  Parallel sections report wall-clock
time (what a parallel run saves), with the CPU time of this process alongside and the load
average (``os.getloadavg``) before and after: speed-ups measured on a loaded machine are
lower bounds; re-run on an idle machine for the reference numbers.

Section ``bench_ensemble``, measured (``--runs 1000 --only ensemble``; 2 cores shared with
other jobs: serial read in CPU time, parallel modes with the benchmark given CPU priority; the
process row re-run alone with ``--modes processes``; details in docs/numeric.rst)::

    mode            | wall    | CPU (caller) | CPU (workers) | start | runs/s | speed-up
    serial          | 474.7 s | 433.5 s      | 0.0 s         | 0.0 s | 2.11   | 1.00x
    2 processes     | 242.7 s | 1.3 s        | 439.1 s       | 0.0 s | 4.12   | 1.96x
    LocalCluster(2) | 311.2 s | 16.3 s       | 545.3 s       | 0.9 s | 3.21   | 1.53x

identical numbers in the three modes (asserted); 23 runs pass near a pole of the Euler angles
(flagged).  A run costs 0.43 s of CPU; the pool adds 1-7% of CPU, the cluster 26% (+16 s of
scheduler in the caller); against the serial CPU time the pool's speed-up is 1.79x, the
cluster's 1.53x of its bound 1.59x.

Section ``bench_dlda``: dlda vs DOP853 on the rolling disk and the Chaplygin sleigh over
t in [0, T] (T = 1000, or 100 with ``--quick``), at equal cost and at equal accuracy.
Accuracy is measured two ways: the maximal relative energy error over [0, T] (the long-time
quantity) and the state error at t = 10 against DOP853 with rtol = 1e-13 (for the sleigh that
reference crosses the chart singularity phi = pi/2 at t ~ 3 and is itself good to ~1e-7
only).  dlda's advantages are structural (constraints to round-off, bounded energy error, no
chart singularity), not speed at these horizons (see docs/numeric.rst for the numbers).
"""

from __future__ import annotations

import os
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


def _only(section: str) -> bool:
    """Whether ``--only`` (if given) selects this section."""
    if "--only" not in sys.argv:
        return True
    return section in sys.argv[sys.argv.index("--only") + 1:]


def _cpu(fn) -> float:
    """CPU seconds of this process spent in ``fn()``."""
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def _per_call(fn, y, repeat: int) -> float:
    """Median CPU seconds per call over ``repeat`` blocks of 200 calls."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(200):
            fn(0.0, y)
        times.append((time.process_time() - t0) / 200)
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

    times = [_cpu(lambda: solve_ivp(f, span, y, method="DOP853", rtol=1e-11, atol=1e-12))
             for _ in range(repeat)]
    return statistics.median(times)


def bench_compiled_rhs() -> None:
    rows = []
    for name, params in (("chaplygin_sleigh", SLEIGH_P), ("chaplygin_ball", BALL_P)):
        V = gm.examples.get(name).vector_field()
        t0 = time.process_time()
        ours = compile_vector_field(V, params)
        t_ours = time.process_time() - t0
        t0 = time.process_time()
        hand = _hand_lambdified(V, params)
        t_hand = time.process_time() - t0
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
                     f"{c_hand / c_ours:.2f}x", f"{i_ours * 1e3:.1f} ms", f"{i_hand * 1e3:.1f} ms",
                     f"{i_hand / i_ours:.2f}x", str(ours.operations)])
    table("compiled RHS (CSE) vs hand-lambdified sympy RHS (CPU time)",
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
        t0 = time.process_time()
        B = batch(Y)
        t_b = time.process_time() - t0
        t0 = time.process_time()
        L = np.array([single(y) for y in Y])
        t_l = time.process_time() - t0
        assert np.allclose(B, L, rtol=1e-12, atol=1e-12)
        rows.append([what, str(n), f"{t_b * 1e3:.1f} ms", f"{t_l * 1e3:.1f} ms",
                     f"{t_l / t_b:.0f}x", f"{n / t_b:.3g}"])
    table("batch evaluation vs a Python loop (Chaplygin ball, CPU time)",
          ["what", "states", "batch", "loop", "speed-up", "states/s (batch)"], rows)


def _best_cpu(fn, repeat: int) -> float:
    return min(_cpu(fn) for _ in range(repeat))


def bench_numba() -> None:
    """numba backend vs the numpy default on the Chaplygin ball (CPU time)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        print("numba is not installed: section skipped (pip install numba)")
        return
    S = gm.examples.chaplygin_ball()
    V = S.vector_field()
    f = compile_vector_field(V, BALL_P)
    t_compile = _cpu(lambda: compile_vector_field(V, BALL_P, backend="numba")(
        0.0, _ball_states(1)[0]))
    g = compile_vector_field(V, BALL_P, backend="numba")
    t_jac = _cpu(lambda: g.jacobian(0.0, _ball_states(1)[0]))
    n = 2000 if QUICK else 10000
    Y, y, rep = _ball_states(n, seed=3), _ball_states(1, seed=4)[0], 3 if QUICK else 7
    assert np.allclose(g.batch(Y), f.batch(Y), rtol=1e-12, atol=1e-12)
    rows = [["one call", f"{_per_call(f, y, rep) * 1e6:.2f} us",
             f"{_per_call(g, y, rep) * 1e6:.2f} us"],
            [f"batch of {n}", f"{_best_cpu(lambda: f.batch(Y), rep) * 1e3:.2f} ms",
             f"{_best_cpu(lambda: g.batch(Y), rep) * 1e3:.2f} ms"],
            [f"Jacobian batch of {n}",
             f"{_best_cpu(lambda: f.jacobian.batch(Y), rep) * 1e3:.2f} ms",
             f"{_best_cpu(lambda: g.jacobian.batch(Y), rep) * 1e3:.2f} ms"]]
    x0 = dict(zip(["x", "y", "theta", "phi", "psi", "thetadot", "phidot", "psidot"],
                  [0, 0, 1.0, 0.3, 0.2, 0.5, 0.4, -0.3]))
    sims = [_best_cpu(lambda b=b: gm.simulate(S, x0, (0, 100), parameters=BALL_P, backend=b),
                      2) for b in ("auto", "numba")]
    rows.append(["simulate, t in [0, 100]", f"{sims[0]:.3f} s", f"{sims[1]:.3f} s"])
    for r in rows:
        a, b = (float(v.split()[0]) for v in r[1:])
        r.append(f"{a / b:.1f}x")
    table(f"numba backend vs numpy (Chaplygin ball, CPU time; numba compile {t_compile:.2f} s "
          f"field + {t_jac:.2f} s Jacobian, once per process)",
          ["what", "numpy", "numba", "speed-up"], rows)


def _ensemble_ics(n: int) -> list[dict]:
    Y = _ball_states(n, seed=2)
    names = ["x", "y", "theta", "phi", "psi", "thetadot", "phidot", "psidot"]
    out = []
    for y in Y:
        d = dict(zip(names, y))
        d["x"] = d["y"] = 0.0
        out.append(d)
    return out


def _children_cpu() -> float:
    """CPU seconds of the finished child processes (workers, nannies and their children)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _modes() -> list[tuple[str, str | None]]:
    """The modes of the ensemble section (``--modes serial processes cluster``: a subset)."""
    modes = [("serial", None), ("2 processes", "processes"), ("LocalCluster(2)", "cluster")]
    if "--modes" not in sys.argv:
        return modes
    chosen = sys.argv[sys.argv.index("--modes") + 1:]
    return [(label, mode) for label, mode in modes if (mode or "serial") in chosen]


def _ensemble_mode(S, ics, mode):
    """(SweepResult, wall seconds, CPU seconds of this process, CPU seconds of the worker
    processes (finished children), cluster start seconds)."""
    from distributed import Client, LocalCluster

    k0 = _children_cpu()
    w0, c0, start = time.perf_counter(), time.process_time(), 0.0
    if mode == "cluster":
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            start = time.perf_counter() - w0
            res = gm.sweep(S, ics, (0, 100), parameters=BALL_P, client=client,
                           progress=False)
    else:
        res = gm.sweep(S, ics, (0, 100), parameters=BALL_P, client=mode,
                       workers=2 if mode else None, progress=False)
    return (res, time.perf_counter() - w0, time.process_time() - c0, _children_cpu() - k0,
            start)


def _max_difference(a, b) -> float:
    """Largest difference between the trajectories of two sweeps (inf if a shape differs)."""
    worst = 0.0
    for ra, rb in zip(a, b):
        if ra.states.shape != rb.states.shape or not np.array_equal(ra.t, rb.t):
            return float("inf")
        worst = max(worst, float(np.max(np.abs(ra.states - rb.states))))
    return worst


def bench_ensemble() -> None:
    # the chart warnings of runs near a pole are counted in the table, not printed: also in
    # the spawned workers, which read PYTHONWARNINGS when they start
    os.environ.setdefault("PYTHONWARNINGS", "ignore::RuntimeWarning")
    S = gm.examples.chaplygin_ball()
    S.vector_field()                                    # the symbolic work, done once
    ics = _ensemble_ics(_runs())
    load0 = os.getloadavg()[0]
    rows, results, base = [], {}, None
    for label, mode in _modes():
        with warnings.catch_warnings():       # chart singularities: counted below
            warnings.simplefilter("ignore", RuntimeWarning)
            res, wall, cpu, workers_cpu, start = _ensemble_mode(S, ics, mode)
        results[label] = res
        base = wall if mode is None else base          # speed-ups against the serial run
        rows.append([label, str(len(res)), f"{wall:.1f} s", f"{cpu:.1f} s",
                     f"{workers_cpu:.1f} s", f"{start:.1f} s",
                     f"{len(res) / wall:.2f}", f"{base / wall:.2f}x" if base else "n/a",
                     f"{np.nanmax(res.drifts['energy']):.1e}"])
    ref = results.get("serial") or next(iter(results.values()))
    for label, res in results.items():
        diff = _max_difference(ref, res)
        assert len(res) == len(ref) and diff <= 1e-12, (label, diff)
    near_pole = sum(bool(r.singularities) for r in ref)
    table(f"ensemble: Chaplygin ball, t in [0, 100] (identical numbers in every mode; load "
          f"average {load0:.1f} before, {os.getloadavg()[0]:.1f} after, on "
          f"{os.cpu_count()} cores; {near_pole} of {len(ref)} runs pass near a pole of the "
          f"Euler angles, flagged in res[k].singularities)",
          ["mode", "runs", "wall", "CPU (caller)", "CPU (workers)", "cluster start", "runs/s",
           "speed-up", "max energy drift"], rows)


DLDA_CASES = [
    ("rolling_disk", {"m": 1.0, "a": 1.0, "A": 0.25, "C": 0.5, "g": 1.0},
     {"x": 0.0, "y": 0.0, "theta": 1.3, "psi": 0.0, "phi": 0.0, "thetadot": 0.0,
      "psidot": 0.5, "phidot": 2.0}),
    ("chaplygin_sleigh", {"m": 1.0, "I": 0.7, "a": 0.4},
     {"x": 0.0, "y": 0.0, "phi": 0.3, "xdot": 1.0, "phidot": 1.0}),
]


def _dlda_run(S, p, x0, t_end, **kw) -> tuple[float, float, float]:
    """(CPU time, max relative energy error on [0, t_end], error at t = 10 vs ref)."""
    with warnings.catch_warnings():      # the sleigh crosses its chart singularity at t ~ 3
        warnings.simplefilter("ignore", RuntimeWarning)
        t0 = time.process_time()
        res = gm.simulate(S, x0, t_end, parameters=p, **kw)
        cpu = time.process_time() - t0
        short = gm.simulate(S, x0, 10.0, parameters=p, **kw)
    return cpu, res.drift["energy"], short.states[-1]


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
              ["method", "CPU time", "max rel. energy error", "state error at t=10"],
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
          f"{_runs()} ensemble runs; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    for name, section in (("compiled", bench_compiled_rhs), ("batch", bench_batch),
                          ("numba", bench_numba), ("ensemble", bench_ensemble),
                          ("dlda", bench_dlda)):
        if _only(name):
            section()


if __name__ == "__main__":
    main()
