"""Full analysis of the rolling bodies: time of each step (issue 4 benchmark).

For the Chaplygin ball and the Routh sphere (the issue's targets) and, for information, the
rolling disk and the snakeboard, every analysis step of the mechanics layer is run in order on
one fresh system object (so a step may reuse what an earlier one cached, as in a report):

* ``equations``          -- the Lagrange-d'Alembert flow on the phase space;
* ``energy``             -- ``is_first_integral(energy)``;
* ``integrals``          -- ``is_first_integral`` of the known integrals (Routh sphere:
  Jellett and Routh; Chaplygin ball: the area integral, Borisov & Mamaev (2015) (5.16));
* ``divergence``         -- divergence of the flow;
* ``density``            -- ``is_invariant_density`` of the known density (Chaplygin ball:
  Chaplygin's density in Euler angles; Routh sphere: Borisov & Mamaev (2015), §4.1);
* ``measure search``     -- ``invariant_measure()`` (default configuration ansatz);
* ``symmetries``         -- ``point_symmetries()`` (the report's symmetry step);
* ``linear integrals``   -- ``noether_integrals()`` (Kozlov-Kolesnikov / Noether search);
* ``pseudo-Hamiltonian`` -- ``pseudo_hamiltonian()`` (Prop. 7) and ``satisfies_jacobi()``;
* ``Chaplygin reduction``-- by the translations ``(x, y)``;
* ``Routh reduction``    -- of the Chaplygin-reduced system by its cyclic angle.

Each step runs under a time cap (``signal.setitimer``) and the table marks steps above the
issue's 5 s target.  Every step is an exact computation; a step that returns a wrong verdict
is reported as ``WRONG``.

A second table times the analyses of the issue "Analyses that finish on the bodies researchers
study", each on a fresh system object with symbolic parameters (operation counts are
``sympy.count_ops`` of the results):

* ``invariant_measure()``     -- default family built from the system (target < 10 s);
* ``polynomial_integrals(2)`` -- natural-frame search (target < 20 s), with the number found;
* ``reducing_multiplier``     -- without candidates, Chaplygin ball at zero area constant
  (target < 30 s; ``--numeric-multiplier`` uses fixed rational parameters).

A third table (``--noether``) times the one Noether search (Theorem 4) through its entry
points, in CPU seconds (``time.process_time``; the machine may be shared): the coordinate
ansatz ``noether_fields(S, ansatz=[1])`` and the default family ``noether_fields(S)``, and the
tangent generators ``find_noether_fields(S)``.

A fourth table (``--heavy-measure``) times the report's "Invariant measure" section on the
heavy bodies (issue 13, items 1 and 6; limit 30 s, aim < 10 s), CPU seconds in a child process
after building the system: ``system_divergence`` with its exact zero test (the mass-matrix form
in the radical ring, :mod:`geomech.mechanics.analysis.divergence`) and then
``invariant_measure()``.  Measured 2026-11-26 (symbolic parameters, 2 shared cores)::

    system                 step                              CPU s   count_ops  result
    ellipsoid              system_divergence (+ zero test)    5.2    309176     non-zero
    ellipsoid              invariant_measure() (after it)     3.3    -          none (certain)
    convex_body_on_plane   system_divergence (+ zero test)    5.6    309176     non-zero
    convex_body_on_plane   invariant_measure() (after it)     3.4    -          none (certain)

(before: > 120 s CPU, not finished: the explicit field, 17 s, and its ``cancel``, 40 s).

A fifth table (``--heavy-energy``) times the report's "Energy" section on the heavy bodies
(limit 15 s, aim < 8 s), CPU seconds in a child process after building the system: the
exact check :math:`dE/dt = 0` identically in the radical ring
(:mod:`geomech.mechanics.analysis.rates`, including the Voronets mass-matrix form), then,
with the form cached, the rates of the energy and of the kinetic energy alone (a
non-integral, proven non-zero).  Measured 2026-11-26 (symbolic parameters, 2 shared cores)::

    system                 step                                  CPU s   result
    ellipsoid              Energy section (exact, radical ring)   8.3    verified exactly
    ellipsoid              mass_matrix_rate(E) (form cached)      5.8    zero (certain)
    ellipsoid              mass_matrix_rate(T = E at g=0)         5.7    non-zero (certain)
    convex_body_on_plane   Energy section (exact, radical ring)   8.6    verified exactly
    convex_body_on_plane   mass_matrix_rate(E) (form cached)      6.1    zero (certain)
    convex_body_on_plane   mass_matrix_rate(T = E at g=0)         6.2    non-zero (certain)

(before: the exact check was not run -- ``imp.time_derivative`` and the zero policy on the
18884-operation form -- and the section said "verified numerically only").

Run: ``python benchmarks/bench_analysis.py [--quick] [--analyses] [--reports] [--noether]
[--heavy-measure] [--heavy-energy] [names...]`` (``--analyses``: only the second table;
``--reports``: only the time and status of each analysis section of ``gm.report`` with its
default limits).
"""

from __future__ import annotations

import signal
import sys
import time

import sympy as sp

import geomech as gm

try:
    from benchmarks._common import cpu_in_child, table
except ImportError:
    from _common import cpu_in_child, table

TARGET = 5.0
CAP = 60.0 if "--quick" in sys.argv else 300.0
MAIN = ("chaplygin_ball", "routh_sphere")
INFO = ("rolling_disk", "snakeboard")


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout


def _euler(N):
    by = {c.name: (c, v) for c, v in zip(N.coords, N.velocities)}
    return [by[k][0] for k in ("theta", "phi", "psi")], [by[k][1] for k in ("theta", "phi",
                                                                          "psi")]


def known_integrals(S) -> list:
    """Known integrals (Borisov & Mamaev (2015), §4) for the system ``S`` (expressions on TN)."""
    from geomech.examples.kinematics import body_angular_velocity

    N = S.manifold
    c, s = sp.cos, sp.sin
    if S.name == "routh_sphere":
        (th, ph, ps), (thd, phd, psd) = _euler(N)
        m, R, a, I1, I3, g = N.parameters
        PJ = (a + R * c(th)) * I3 * phd + (R * I1 * s(th)**2
                                           + I3 * c(th) * (a + R * c(th))) * psd
        rho = (I1 * I3 + m * R**2 * I1 * s(th)**2
               + m * (a + R * c(th))**2 * I3)**sp.Rational(-1, 2)
        return [PJ, (psd * c(th) + phd) / rho]
    if S.name == "chaplygin_ball":
        (th, ph, ps), (thd, phd, psd) = _euler(N)
        m, R, I1, I2, I3 = N.parameters
        w = body_angular_velocity(th, ph, ps, thd, phd, psd)
        gam = [s(ph) * s(th), c(ph) * s(th), c(th)]
        return [I1 * w[0] * gam[0] + I2 * w[1] * gam[1] + I3 * w[2] * gam[2]]
    return []


def known_density(S):
    """A known invariant density (Borisov & Mamaev (2015), §4) in the system's phase-space
    coordinates, or None.

    Chaplygin ball (Chaplygin 1903): :math:`\\rho_{CB}\\,d^3M\\,d^2\\gamma` pulled back to the Euler
    angles and velocities: :math:`d^3M = \\det K\\,d^3\\omega`, :math:`\\det K = \\det(I + DE)
    /\\rho_{CB}^2`, :math:`d^3\\omega = \\sin\\theta\\,d^3\\dot q` and
    :math:`d^2\\gamma = \\sin\\theta\\,d\\theta\\,d\\varphi`, so up to a constant
    :math:`\\sin^2\\theta/\\rho_{CB} = \\sin^2\\theta\\sqrt{1 - D(\\gamma, (I + DE)^{-1}\\gamma)}`.
    """
    N = S.manifold
    c, s = sp.cos, sp.sin
    if S.name == "chaplygin_ball":
        (th, ph, ps), _ = _euler(N)
        m, R, I1, I2, I3 = N.parameters
        D = m * R**2
        gam = [s(ph) * s(th), c(ph) * s(th), c(th)]
        q = sum(gi**2 / (Ii + D) for gi, Ii in zip(gam, (I1, I2, I3)))
        return s(th)**2 * sp.sqrt(1 - D * q)
    return None


def steps(S):
    """(label, thunk returning True for a correct verdict) for the system ``S``."""
    N = S.manifold
    out = [("equations", lambda: S.vector_field() is not None),
           ("energy", lambda: S.is_first_integral(S.energy()))]
    ints = known_integrals(S)
    if ints:
        out.append(("integrals", lambda: all(S.is_first_integral(F) for F in ints)))
    out.append(("divergence", lambda: S.divergence() is not None))
    rho = known_density(S)
    if rho is not None:
        out.append(("density", lambda: S.is_invariant_density(rho)))
    out.append(("measure search", lambda: S.invariant_measure() is not None))
    out.append(("symmetries", lambda: S.point_symmetries() is not None))
    out.append(("linear integrals", lambda: S.noether_integrals() is not None))
    out.append(("pseudo-Hamiltonian",
                lambda: S.pseudo_hamiltonian().satisfies_jacobi() == S.is_holonomic()))
    xy = [c for c in N.coords if c.name in ("x", "y")]
    state = {}

    def chap():
        state["red"] = S.chaplygin_reduction(xy)
        return True

    def routh():
        red = state.get("red") or S.chaplygin_reduction(xy)
        L = red.system.lagrangian
        # a cyclic angle of the reduced system whose field is a Noether field (psi for the
        # Chaplygin ball); routh_reduction refuses the others with a ValueError
        err = None
        for name in ("psi", "phi"):
            cyc = [q for q in red.system.manifold.coords if q.name == name and not L.has(q)
                   or q.name == name == "psi"]
            if not cyc:
                continue
            try:
                return red.system.routh_reduction(cyc[0]) is not None
            except ValueError as exc:
                err = exc
        raise err

    if len(xy) == 2 and S.name != "snakeboard":
        out.append(("Chaplygin reduction", chap))
        out.append(("Routh reduction", routh))
    return out


def run(name: str) -> list:
    S = gm.examples.get(name)
    rows = []
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for label, fn in steps(S):
            t0 = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, CAP)
            try:
                ok = fn()
                verdict = "ok" if ok else "WRONG"
            except _Timeout:
                verdict = f"> {CAP:g} s"
            except Exception as exc:  # noqa: BLE001 - reported in the table
                verdict = f"{type(exc).__name__}: {str(exc)[:50]}"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            dt = time.perf_counter() - t0
            mark = "" if dt < TARGET else "  > 5 s"
            rows.append([name, label, f"{dt:8.2f} s{mark}", verdict])
            print(f"  {name:16s} {label:20s} {dt:8.2f} s  {verdict}", file=sys.stderr,
                  flush=True)
    finally:
        signal.signal(signal.SIGALRM, old)
    return rows


ANALYSES = ("chaplygin_ball", "routh_sphere", "rubber_ball", "chaplygin_sleigh",
            "rolling_disk")


def _timed(fn):
    old = signal.signal(signal.SIGALRM, _alarm)
    t0 = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, CAP)
    try:
        out = fn()
    except _Timeout:
        out = f"> {CAP:g} s"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return out, time.perf_counter() - t0


def _ball_at_zero_area(numeric: bool):
    from geomech.mechanics.analysis.reduction import chaplygin_reduction, routh_reduction
    from geomech.mechanics.system import NonholonomicSystem

    params = dict(m=3, R=sp.Rational(1, 2), I1=1, I2=2, I3=sp.Rational(5, 2)) if numeric else {}
    B = gm.examples.chaplygin_ball(**params)
    x, y, th, ph, ps = B.manifold.coords
    rr = routh_reduction(chaplygin_reduction(B, [x, y]).system, ps)
    Nr = rr.system.manifold
    zero = {rr.momentum: 0}
    pars = tuple(q for q in Nr.parameters if q != rr.momentum)
    Z2 = gm.Manifold("TS2", Nr.coords, parameters=pars, velocities=Nr.velocities)
    return NonholonomicSystem(Z2, rr.system.lagrangian.xreplace(zero), [],
                              forces=[sp.sympify(f).xreplace(zero) for f in rr.system.forces])


def analyses(name: str, numeric_multiplier: bool = False) -> list:
    """Rows (system, analysis, time, operations, result) of the issue's analyses."""
    from geomech.mechanics.analysis.multiplier import reducing_multiplier

    rows = []
    res, dt = _timed(lambda: gm.examples.get(name).invariant_measure())
    ops = sp.count_ops(res.density) if getattr(res, "density", None) is not None else 0
    verdict = res if isinstance(res, str) else ("found" if res else "none in family")
    rows.append([name, "invariant_measure()", f"{dt:8.2f} s", ops, verdict])
    res, dt = _timed(lambda: gm.examples.get(name).polynomial_integrals(2))
    ops = 0 if isinstance(res, str) else sum(sp.count_ops(F) for F in res)
    rows.append([name, "polynomial_integrals(2)", f"{dt:8.2f} s", ops,
                 res if isinstance(res, str) else f"{len(res)} integrals"])
    if name == "chaplygin_ball":
        sysz = _ball_at_zero_area(numeric_multiplier)
        res, dt = _timed(lambda: reducing_multiplier(sysz))
        ops = sp.count_ops(res.multiplier) if getattr(res, "multiplier", None) is not None else 0
        rows.append([name + (" (numeric)" if numeric_multiplier else ""),
                     "reducing_multiplier (c = 0)", f"{dt:8.2f} s", ops,
                     res if isinstance(res, str) else ("found" if res else res.reason[:40])])
    for r in rows:
        print("  " + "  ".join(map(str, r)), file=sys.stderr, flush=True)
    return rows


REPORTS = ["chaplygin_ball", "routh_sphere", "rubber_ball", "snakeboard", "rolling_disk"]


def report_sections(name: str) -> list:
    """Time and status of every analysis section of ``gm.report`` with its default limits
    (issue "Analyses that finish", item 6: every section computed)."""
    rep = gm.report(getattr(gm.examples, name)(), simulation=False)
    return [[name, s.title, f"{s.seconds:.2f} s", s.status] for s in rep.sections
            if s.title in ("Symmetries", "First integrals", "Invariant measure",
                           "Hamiltonian structure")]


NOETHER = ["chaplygin_sleigh", "rolling_disk", "snakeboard", "chaplygin_ball", "rubber_ball"]


def noether_search(name: str) -> list:
    """Rows (system, entry point, CPU time, fields found) of the one Noether search."""
    from geomech.mechanics.analysis.kozlov_kolesnikov import find_noether_fields
    from geomech.mechanics.analysis.noether import noether_fields

    rows = []
    for label, fn in (("noether_fields(S, ansatz=[1])", lambda S: noether_fields(S, [1])),
                      ("find_noether_fields (generators)", find_noether_fields),
                      ("noether_fields(S) (default family)", noether_fields)):
        S = gm.examples.get(name)
        S.vector_field()
        t0 = time.process_time()
        res, _ = _timed(lambda: fn(S))
        dt = time.process_time() - t0
        rows.append([name, label, f"{dt:8.2f} s CPU",
                     res if isinstance(res, str) else f"{len(res)} fields"])
        print("  " + "  ".join(map(str, rows[-1])), file=sys.stderr, flush=True)
    return rows


HEAVY = ["ellipsoid", "convex_body_on_plane"]


def _heavy_measure_child(name: str) -> tuple:
    """In the child: build ``name``, then the report's measure section steps, CPU seconds."""
    from geomech.mechanics.analysis.measure import (
        system_divergence,
        system_divergence_vanishes,
        system_invariant_measure,
    )

    S = gm.examples.get(name)
    t0 = time.process_time()
    div = system_divergence(S)
    zero = system_divergence_vanishes(S, div)
    t1 = time.process_time()
    res = system_invariant_measure(S)
    t2 = time.process_time()
    verdict = "found" if res else "none: " + res.reason[:60]
    return t1 - t0, t2 - t1, sp.count_ops(div), zero, verdict


def heavy_measure(name: str, cap: float = 120.0) -> list:
    """Rows (system, step, CPU s, count_ops, result) of the report's "Invariant measure"
    section on a heavy body (issue 13, items 1 and 6: < 30 s CPU, aim < 10 s): the divergence
    from the mass-matrix form in the radical ring and the density search built on it."""
    got = cpu_in_child(lambda: _heavy_measure_child(name), cap)
    if got is None:
        return [[name, "divergence + invariant_measure()", f"> {cap:g} s CPU", "-", "-"]]
    _, (t_div, t_meas, ops, zero, verdict) = got
    rows = [[name, "system_divergence (+ zero test)", f"{t_div:8.2f} s CPU", ops,
             "zero" if zero else "non-zero"],
            [name, "invariant_measure() (after it)", f"{t_meas:8.2f} s CPU", "-", verdict]]
    for r in rows:
        print("  " + "  ".join(map(str, r)), file=sys.stderr, flush=True)
    return rows


def _heavy_energy_child(name: str) -> tuple:
    """In the child: build ``name``, then the report's Energy section (its exact check in the
    radical ring, :mod:`geomech.mechanics.analysis.rates`) and, with the form cached, the
    rates of the energy and of the kinetic energy alone (CPU seconds)."""
    from geomech.mechanics.analysis.divergence import flow_mass_matrix_form
    from geomech.mechanics.analysis.rates import mass_matrix_rate
    from geomech.reporting.energy import energy_section as _energy_section

    S = gm.examples.get(name)
    t0 = time.process_time()
    sec = _energy_section(S)
    t1 = time.process_time()
    E = S.energy()
    rate = mass_matrix_rate(S, E)
    zero = rate.verdict()
    t2 = time.process_time()
    g = next(p for p in S.manifold.parameters if str(p) == "g")
    kin = mass_matrix_rate(S, E.subs(g, 0)).verdict()
    t3 = time.process_time()
    line = next(t for t, _ in sec.lines if "dE/dt" in t)
    return (t1 - t0, t2 - t1, t3 - t2, flow_mass_matrix_form(S).count_ops(), len(rate.num),
            line[:60], zero, kin)


def heavy_energy(name: str, cap: float = 120.0) -> list:
    """Rows (system, step, CPU s, size, result) of the report's Energy section on a heavy
    body (< 15 s CPU, aim < 8 s): dE/dt = 0 proven in the radical ring."""
    got = cpu_in_child(lambda: _heavy_energy_child(name), cap)
    if got is None:
        return [[name, "Energy section (exact)", f"> {cap:g} s CPU", "-", "-"]]
    _, (t_sec, t_e, t_k, ops, terms, line, zero, kin) = got
    rows = [[name, "Energy section (exact, radical ring)", f"{t_sec:8.2f} s CPU",
             f"{ops} ops (form)", line],
            [name, "mass_matrix_rate(E) (form cached)", f"{t_e:8.2f} s CPU",
             f"{terms} terms (numerator)",
             "zero (certain)" if zero and zero.certain else str(zero)],
            [name, "mass_matrix_rate(T = E at g=0)", f"{t_k:8.2f} s CPU", "-",
             "non-zero (certain)" if kin is not None and not kin.zero and kin.certain
             else str(kin)]]
    for r in rows:
        print("  " + "  ".join(map(str, r)), file=sys.stderr, flush=True)
    return rows


def main(argv) -> None:
    names = [a for a in argv if not a.startswith("-")]
    if "--heavy-measure" in argv:
        rows = [r for name in names or HEAVY for r in heavy_measure(name)]
        table("Invariant measure of the heavy bodies (report section), CPU seconds",
              ["system", "step", "time", "count_ops", "result"], rows)
        return
    if "--heavy-energy" in argv:
        rows = [r for name in names or HEAVY for r in heavy_energy(name)]
        table("Energy of the heavy bodies (report section, exact in the radical ring), CPU s",
              ["system", "step", "time", "size", "result"], rows)
        return
    if "--noether" in argv:
        rows = [r for name in names or NOETHER for r in noether_search(name)]
        table("The one Noether search (Theorem 4), CPU time per entry point",
              ["system", "entry point", "time", "result"], rows)
        return
    if "--reports" in argv:
        rows = [r for name in names or REPORTS for r in report_sections(name)]
        table("Report analysis sections with the default limits (30 s each)",
              ["system", "section", "time", "status"], rows)
        return
    if "--analyses" not in argv:
        rows = []
        for name in names or [*MAIN, *INFO]:
            rows += run(name)
        table(f"Full analysis, time per step (target < {TARGET:g} s for "
              f"{' and '.join(MAIN)}; others for information; cap {CAP:g} s)",
              ["system", "step", "time", "result"], rows)
    rows = []
    for name in names or ANALYSES:
        rows += analyses(name, "--numeric-multiplier" in argv)
    table(f"Analyses on fresh objects, symbolic parameters (targets: measure < 10 s, "
          f"integrals < 20 s, multiplier < 30 s; cap {CAP:g} s)",
          ["system", "analysis", "time", "count_ops", "result"], rows)


if __name__ == "__main__":
    main(sys.argv[1:])
