"""Heavy bodies: every form of the equations of motion of the rolling ellipsoid and of the
convex body on a plane, symbolic parameters (issue 13, item 5 "Heavy bodies").

One row per (body, form): ``S.equations(form)`` for every registered form (the vakonomic form
too), ``S.compact_equations(frame="natural")`` (body angular velocity) and, for Prop. 7,
``S.pseudo_hamiltonian()`` and ``.satisfies_jacobi()``.  Columns: CPU seconds
(``time.process_time`` in a child process: the machine is shared, wall clock is inflated;
the child is stopped by ``RLIMIT_CPU`` after the cap) and
:func:`geomech.core.opcount.count_ops` of the result (the explicit right-hand sides
``eq.rhs`` on the phase space; for the compact equations the abbreviated form).
Target: < 60 s per form, < 30 s for Prop. 7.

Rows ``<form> (implicit)`` (option ``--implicit``) derive the form with its mass-matrix solve
deferred (``S.equations(form, explicit=False)``, the form the numerics use) and count the
operations of :math:`Mz = F`.

Measured 2026-11-26 (ellipsoid, symbolic parameters; the default ``convex_body_on_plane`` is the
same body; CPU s including ~3 s to build the system; 2 shared cores under load)::

    form (mass-matrix form, explicit=False)   CPU s   count_ops of M z = F
    lagrange_dalembert                          2.7   131721
    voronets                                    2.0    18884
    chaplygin                                   3.1    17834
    quasi_velocities                            4.7    18981
    appell                                      8.1    12929
    tzenoff                                    18.2    13813   (78.7 s, 418004 before the
                                                                 mass/free split of the ring route)
    compact (natural frame, body omega)        17.0    34786   (abbreviated, solver cofactors)
    explicit rhs (S.equations(form).rhs; before: > 60 s, stopped; > 120 s for
    lagrange_dalembert), mass-matrix solve M^{-1} b with b kept unexpanded
    (common.inverse_solve) and no presentation tidy above 25000 nodes; CPU s,
    count_ops of eq.rhs (exact, not cancelled), ellipsoid / convex_body_on_plane:
      quasi_velocities                  13.6 / 24.8*  527491
      appell                            20.1 / 31.5* 1252298
      tzenoff                           24.7 / 34.4*  527491
      lagrange_dalembert                 7.5 / 17.3*   61821
      voronets                           3.8 / 16.2*   70800
      chaplygin                          3.6 /  3.3*  110826
    (* measured before the tidy limit 40000 -> 25000; it took quasi_velocities 23.4 -> 12.5)
    pseudo_hamiltonian + satisfies_jacobi       9.4   -       (> 150 before: L* and p_mu in
                                                                 the ring, ring Jacobiator with
                                                                 a specialised-constants witness)

``python -m geomech report ellipsoid``: exit 0, no failed section, 186.6 s CPU (3:43 wall);
symmetries, first integrals, invariant measure and Hamiltonian structure "not computed" (their
30 s limits: 132 s of the total), Energy 4.3 s (was > 60 s), compact equations 16.8 s,
constraint geometry 34.1 s, simulation 21.7 s.

Rows ``symmetries (report section)`` and ``first integrals (report section)`` (option
``--sections``) time the report's analysis sections (``find_point_symmetries`` +
``check_symmetry`` + ``classify_action``; ``linear_integrals``), CPU s after building the
system.  Measured 2026-11-26 (ellipsoid / convex_body_on_plane, symbolic parameters; before:
> 120 s CPU, stopped, "not computed" in the report)::

    symmetries (report section)        5.6 / 5.4   3 fields: d/dx, d/dy, y d/dx - x d/dy - d/dpsi;
                                                   case C-2, m0 = 1 (405 unknowns)
    first integrals (report section)   3.3 / 3.4   none linear in the velocities (default ansatz)

Run: ``python benchmarks/bench_heavy.py [--cap S] [bodies...] [--forms f1,f2] [--extra ""]
[--implicit] [--sections]``.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time

try:
    from benchmarks._common import table
except ImportError:
    from _common import table

BODIES = ("ellipsoid", "convex_body_on_plane")


def _arg(flag: str, default: str) -> str:
    return sys.argv[sys.argv.index(flag) + 1] if flag in sys.argv else default


def _rhs_ops(eq) -> int:
    from geomech.core.opcount import count_ops

    return sum(count_ops(e) for e in eq.rhs.values())


SECTIONS = {"symmetries (report section)": "symmetries",
            "first integrals (report section)": "first integrals"}


def _section(S, what: str):
    """A report analysis section (issue 13 item 6: within its 30 s limit)."""
    from geomech.reporting.sections import ANALYSES

    t0 = time.process_time()
    sec = dict(ANALYSES)[SECTIONS[what]](S)
    return time.process_time() - t0, None, f"{sec.status}: {sec.lines[-1][0][:48]}"


def _run(name: str, what: str):
    """``(CPU seconds, operation count, note)`` of one row (in the child process)."""
    import geomech as gm

    S = gm.examples.get(name)
    if what in SECTIONS:
        return _section(S, what)
    t0 = time.process_time()
    if what == "compact (natural)":
        ce = S.compact_equations(frame="natural")
        return time.process_time() - t0, ce.count_ops(), ce.solver
    if what == "pseudo_hamiltonian + jacobi":
        ph = S.pseudo_hamiltonian()
        ok = ph.satisfies_jacobi()
        return time.process_time() - t0, None, f"jacobi={ok}"
    if what.endswith(" (implicit)"):        # derivation with the mass-matrix solve deferred
        imp = S.equations(what.split()[0], explicit=False).mass_matrix_form()
        return time.process_time() - t0, imp.count_ops(), "M z = F"
    eq = S.equations(what)
    ops = _rhs_ops(eq)
    return time.process_time() - t0, ops, ""


def _child(q, name, what, cap):
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (int(cap), int(cap) + 5))   # a CPU-time cap
    try:
        q.put(_run(name, what))
    except Exception as exc:  # noqa: BLE001 - reported in the table
        q.put((None, None, f"{type(exc).__name__}: {str(exc)[:60]}"))


def capped(name: str, what: str, cap: float):
    """The row in a child process limited to ``cap`` CPU seconds (``RLIMIT_CPU``: the
    machine is shared, so wall time is no measure); ``(None, None, "> cap")`` when the child
    was stopped by the limit."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(q, name, what, cap))
    p.start()
    p.join()
    if p.exitcode and q.empty():
        return None, None, f"> {cap:g} s CPU (stopped)"
    return q.get() if not q.empty() else (None, None, "crashed")


def main() -> None:
    from geomech.mechanics.equations import registered_methods

    cap = float(_arg("--cap", "120"))
    bodies = [a for a in sys.argv[1:] if a in BODIES] or list(BODIES)
    forms = [f for f in _arg("--forms", ",".join(registered_methods())).split(",") if f]
    if "--implicit" in sys.argv:
        forms = [f"{f} (implicit)" for f in forms]
    extra = _arg("--extra", "compact (natural),pseudo_hamiltonian + jacobi")
    rows_what = [*forms, *[e for e in extra.split(",") if e]]
    if "--sections" in sys.argv:        # the report's symmetry and integral sections only
        rows_what = list(SECTIONS)
    rows = []
    for name in bodies:
        for what in rows_what:
            cpu, ops, note = capped(name, what, cap)
            rows.append([name, what, "-" if cpu is None else f"{cpu:.1f}",
                         "-" if ops is None else str(ops), note])
            print(*rows[-1], sep=" | ", flush=True)
    table("Heavy bodies, symbolic parameters (CPU s, count_ops of the result)",
          ["body", "form", "CPU s", "count_ops", "note"], rows)


if __name__ == "__main__":
    main()
