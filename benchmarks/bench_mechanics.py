"""Explicit equations of motion: geomech (each method) vs sympy.physics.mechanics.

For the Chaplygin sleigh, the rolling disk and the Chaplygin ball, the same Lagrangian and
constraints are given to

* geomech: ``sys.equations(method)`` for every method, then the phase-space right-hand side;
* ``sympy.physics.mechanics.LagrangesMethod`` with ``nonhol_coneqs``, then ``rhs()``;

``KanesMethod`` needs a model built from bodies and frames rather than a Lagrangian, so it is
not run here; the design document's reference numbers for it (rolling disk 0.37 s / 15,196
operations, Chaplygin ball 0.32 s / 10,910) are printed for orientation only.

Printed: wall time (one run each, in a child process with a time cap) and the operation
count (``sympy.count_ops``) of the explicit right-hand side.

Run: ``python benchmarks/bench_mechanics.py [--quick]``.
"""

from __future__ import annotations

import sys
import time

import sympy as sp

import geomech as gm

try:
    from benchmarks._common import table
except ImportError:
    from _common import table

QUICK = "--quick" in sys.argv
CAP = 60.0 if QUICK else 120.0
SYSTEMS = ("chaplygin_sleigh", "rolling_disk", "chaplygin_ball")
METHODS = ("lagrange_dalembert", "quasi_velocities", "voronets", "appell", "chaplygin",
           "tzenoff")


def _run_capped(fn, cap):
    """(seconds, result) of ``fn()`` in a forked child; (None, reason) on time-out/error."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    q = ctx.Queue()

    def target():
        t0 = time.perf_counter()
        try:
            out = fn()
            q.put((time.perf_counter() - t0, out))
        except Exception as exc:  # noqa: BLE001 - reported in the table
            q.put((None, f"{type(exc).__name__}: {str(exc)[:60]}"))

    p = ctx.Process(target=target)
    p.start()
    p.join(cap)
    if p.is_alive():
        p.terminate()
        p.join()
        return None, f"> {cap:g} s"
    return q.get() if not q.empty() else (None, "crashed")


def geomech_case(name, method):
    sys_ = gm.examples.get(name)
    eq = sys_.equations(method)
    rhs = [eq.rhs[c] for c in sys_.phase_space.coords]
    return sum(sp.count_ops(e) for e in rhs)


def _dynamic(sys_):
    """The system's L and constraints in dynamicsymbols."""
    from sympy.physics.mechanics import dynamicsymbols

    N = sys_.manifold
    q = dynamicsymbols(" ".join(f"{c.name}_" for c in N.coords))
    q = list(q) if isinstance(q, (list, tuple)) else [q]
    t = dynamicsymbols._t
    rep = {c: qi for c, qi in zip(N.coords, q)}
    rep.update({v: qi.diff(t) for v, qi in zip(N.velocities, q)})
    L = sys_.lagrangian.xreplace(rep)
    cons = [c.xreplace(rep) for c in sys_.constraints]
    return q, L, cons, t


def lagranges_case(name):
    from sympy.physics.mechanics import LagrangesMethod

    sys_ = gm.examples.get(name)
    q, L, cons, _ = _dynamic(sys_)
    lm = LagrangesMethod(L, q, nonhol_coneqs=cons)
    lm.form_lagranges_equations()
    rhs = lm.rhs()
    return sum(sp.count_ops(e) for e in rhs)


def main():
    rows = []
    for name in SYSTEMS:
        for method in METHODS:
            dt, ops = _run_capped(lambda: geomech_case(name, method), CAP)
            rows.append([name, f"geomech {method}",
                         f"{dt:.2f} s" if dt is not None else "-",
                         ops if dt is not None else ops])
        dt, ops = _run_capped(lambda: lagranges_case(name), CAP)
        rows.append([name, "sympy LagrangesMethod + rhs()",
                     f"{dt:.2f} s" if dt is not None else "-", ops])
    table("explicit equations of motion: time and operation count", ["system", "method",
                                                                     "time", "ops"], rows)
    print("\nreference (design document, not measured here): KanesMethod + rhs(): sleigh "
          "0.14 s / 214 ops, rolling disk 0.37 s / 15,196 ops, Chaplygin ball 0.32 s / "
          "10,910 ops")


if __name__ == "__main__":
    main()
