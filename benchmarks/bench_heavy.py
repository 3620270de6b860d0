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
    explicit rhs (S.equations(form).rhs), mass-matrix solve M^{-1} b with b kept unexpanded
    (common.inverse_solve), the solved accelerations passed to the phase space without a
    second normalisation (phase.phase_rhs_from_quasi); CPU s, count_ops of eq.rhs (exact,
    not cancelled), ellipsoid / convex_body_on_plane, measured 2026-11-26 (before: the same
    rhs normalised as one cancelled fraction):
      form                       CPU s         count_ops   before: CPU s, count_ops
      lagrange_dalembert          8.0 /  8.3     61821       7.5,     61821
      voronets                    4.3 /  4.2     70800       3.8,     70800
      chaplygin                   3.6 /  4.1    110826       3.6,    110826
      quasi_velocities            8.5 /  9.9     77334      13.6,    527491
      appell                      7.0 /  8.8     59175      20.1,   1252298
      tzenoff                    17.2 / 17.7     61822      24.7,    527491
      quasi_velocities (natural)  5.6 (ellipsoid)  103129   15.3,    527491
      appell (natural)           14.0 (ellipsoid)   69844   44.2,   1252298  (32.0 before the
                                                             rows of Appell's free term were
                                                             normalised one by one)
    (the expanded ring normal form n/d of Lagrange-d'Alembert's rates is 157301 + 216753 +
    153110 operations: the structured M^{-1} b is smaller; its count is dominated by the
    entries of b, ~12800 operations, repeated in each of the 3 rates)
    vector_field (S.vector_field(), ring normal form: common.ring_normal_forms, flint gcd,
    VectorField.from_normal_form), CPU s incl. building the system, count_ops of the
    components:
      vector_field               13.7 / 15.1    255369       > 145 (stopped; sympy.cancel
                                                             of each component in
                                                             VectorField.__init__)
    pseudo_hamiltonian + satisfies_jacobi       9.4   -       (> 150 before: L* and p_mu in
                                                                 the ring, ring Jacobiator with
                                                                 a specialised-constants witness)

Vakonomic rows (Kozlov's equations; no mass-matrix form, so ``--implicit`` measures
``S.equations("vakonomic", explicit=False)`` and counts the rates on T*N), ellipsoid /
convex_body_on_plane, CPU s, count_ops of the rates::

    vakonomic (hamiltonian, reduced route)   18.0 / 19.1    531180   (before: > 136 s, stopped
                                                                      in the Cramer solve of G)
    vakonomic (implicit)                     19.0 / 19.6    531180
    vakonomic (lagrangian)                   10.8 / 11.6   1910714   (before: > 96 s, stopped)

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
    from geomech.core.opcount import count_ops

    t_get = time.process_time()
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
    if what == "vakonomic (lagrangian)":    # the multiplier-rule variant on M x R^m
        eq = S.equations("vakonomic", form="lagrangian")
        return time.process_time() - t0, _rhs_ops(eq), "rhs on M x R^2"
    if what == "vakonomic (implicit)":      # no mass-matrix form: the state has lambda
        eq = S.equations("vakonomic", explicit=False)
        return time.process_time() - t0, _rhs_ops(eq), f"rhs on T*N, {eq.data['route']}"
    if what == "vector_field":               # S.vector_field(), with the system's build
        t_build = time.process_time() - t_get
        V = S.vector_field()
        ops = sum(count_ops(e) for e in V.components)
        return time.process_time() - t0 + t_build, ops, f"incl. {t_build:.1f} s build"
    if what.endswith(" (natural)"):          # a form in the body angular velocity
        nat = S.natural_frame
        eq = S.equations(what.split()[0], frame=nat["frame"], names=nat.get("names"))
        return time.process_time() - t0, _rhs_ops(eq), ""
    if what.endswith(" (implicit)"):        # derivation with the mass-matrix solve deferred
        imp = S.equations(what.split()[0], explicit=False).mass_matrix_form()
        return time.process_time() - t0, imp.count_ops(), "M z = F"
    eq = S.equations(what)
    ops = _rhs_ops(eq)
    return time.process_time() - t0, ops, eq.data.get("route", "") if what == "vakonomic" else ""


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
