"""Energy error against time, DOP853 vs the discrete Lagrange-d'Alembert integrator ("dlda")
at (about) equal work, for the rolling disk and the Chaplygin sleigh over t in [0, 10^4].

The work is CPU time of this process (``time.process_time``: the machine is shared, so
wall-clock time would measure the other jobs): dlda runs with a fixed step ``H``; DOP853's
``rtol`` (with ``atol = rtol / 10``) is chosen among 1e-5 ... 1e-13 so that its CPU time on
t in [0, 500] is the closest to dlda's.  Run from the repository root::

    python docs/figures/energy_drift.py [--t-end T]

It writes ``docs/figures/energy_drift.png`` next to this script and prints the timings.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

import geomech as gm

T_END = float(sys.argv[sys.argv.index("--t-end") + 1]) if "--t-end" in sys.argv else 1e4
H = 0.1
T_CAL = 500.0
CASES = [
    ("rolling disk", gm.examples.rolling_disk,
     {"m": 1.0, "a": 1.0, "A": 0.25, "C": 0.5, "g": 1.0},
     {"x": 0.0, "y": 0.0, "theta": 1.3, "psi": 0.0, "phi": 0.0, "thetadot": 0.0,
      "psidot": 0.5, "phidot": 2.0}),
    ("Chaplygin sleigh", gm.examples.chaplygin_sleigh,
     {"m": 1.0, "I": 0.7, "a": 0.4},
     {"x": 0.0, "y": 0.0, "phi": 0.3, "xdot": 1.0, "phidot": 1.0}),
]


def timed(*args, **kwargs):
    """(gm.simulate(*args, **kwargs), CPU seconds); warnings (the sleigh's chart
    singularities met by DOP853) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        t0 = time.process_time()
        out = gm.simulate(*args, **kwargs)
        return out, time.process_time() - t0


def equal_work_rtol(S, p, x0) -> tuple[float, float, float]:
    """(rtol, DOP853 time, dlda time) on [0, T_CAL] with the closest CPU times
    (after a warm-up run of each method, so that sympy's caches are warm for both)."""
    timed(S, x0, 1.0, parameters=p, method="dlda", step=H)
    timed(S, x0, 1.0, parameters=p)
    _, t_dlda = timed(S, x0, T_CAL, parameters=p, method="dlda", step=H)
    best = None
    for rtol in (1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13):
        _, t = timed(S, x0, T_CAL, parameters=p, rtol=rtol, atol=rtol / 10)
        if best is None or abs(np.log(t / t_dlda)) < abs(np.log(best[1] / t_dlda)):
            best = (rtol, t, t_dlda)
    return best


def energy_error(res) -> np.ndarray:
    e = res["energy"]
    return np.maximum(np.abs(e - e[0]) / abs(e[0]), 1e-17)


def main() -> None:
    fig = Figure(figsize=(7.0, 6.0))
    axes = fig.subplots(len(CASES), 1)
    for ax, (name, make, p, x0) in zip(axes, CASES):
        S = make()
        rtol, t_dop_cal, t_dlda_cal = equal_work_rtol(S, p, x0)
        dlda, t_dlda = timed(S, x0, T_END, parameters=p, method="dlda", step=H)
        dop, t_dop = timed(S, x0, T_END, parameters=p, rtol=rtol, atol=rtol / 10)
        print(f"{name}: dlda h={H}: {t_dlda:.1f} s, max rel. energy error "
              f"{dlda.drift['energy']:.2e}; DOP853 rtol={rtol:g}: {t_dop:.1f} s, "
              f"{dop.drift['energy']:.2e} (calibration on [0, {T_CAL:g}]: "
              f"{t_dop_cal:.2f} s vs {t_dlda_cal:.2f} s)")
        # log-spaced samples: the transient and the long-time behaviour on a log time axis
        idx = np.unique(np.geomspace(1, len(dlda.t) - 1, 4000).astype(int))
        ax.loglog(dlda.t[idx], energy_error(dlda)[idx], lw=0.7,
                  label=f"dlda, h = {H} ({t_dlda:.1f} s CPU)")
        ax.loglog(dop.t[1:], energy_error(dop)[1:], lw=0.7,
                  label=f"DOP853, rtol = {rtol:g} ({t_dop:.1f} s CPU)")
        ax.set_title(name, fontsize="medium")
        ax.set_xlabel("t")
        ax.set_ylabel("|E(t) - E(0)| / |E(0)|")
        ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    out = Path(__file__).with_suffix(".png")
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
