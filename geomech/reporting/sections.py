r"""The sections of a report and the steps that compute them: the system, its configuration
space, Lagrangian and constraint geometry, equations of motion, energy or power balance, the
analyses (:data:`ANALYSES`: symmetries, integrals, invariant measure, Hamiltonian structure)
and a short simulation.  Each step runs under a cooperative time limit
(:func:`run_limited`); :func:`run_step` turns a time-out or an error into a section.

>>> first_sentence("Board with :math:`\\varphi_b = 0`. More text.")
'Board with φ_b = 0.'
"""

from __future__ import annotations

import contextvars
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy as sp

from geomech.core.budget import BudgetExceeded, check, time_limit
from geomech.core.opcount import count_ops
from geomech.reporting.model import Section
from geomech.reporting.simulation import has_forces, power, simulation_section

__all__ = ["ANALYSES", "Step", "report_steps", "run_step", "run_limited", "timed_out",
           "first_sentence"]

# -- time limits -------------------------------------------------------------------------

def run_limited(fn: Callable, seconds: float | None, label: str):
    """Run ``fn()`` under :func:`~geomech.core.budget.time_limit` (cooperative).

    With a limit, ``fn`` runs in a worker thread (same context, so enclosing limits
    nest) and the caller waits at most ``seconds`` plus a short grace: a step that does not
    reach a budget check in time is abandoned (it stops at its next check) and
    :class:`~geomech.core.budget.BudgetExceeded` is raised here.  No signals: this holds in
    any thread.
    """
    if seconds is None:
        return fn()
    box: dict = {}

    def target():
        try:
            with time_limit(seconds, label):
                box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller below
            box["error"] = exc

    ctx = contextvars.copy_context()
    worker = threading.Thread(target=ctx.run, args=(target,), daemon=True,
                              name=f"geomech-report-{label}")
    worker.start()
    worker.join(seconds + min(5.0, max(0.5, 0.1 * seconds)))
    if worker.is_alive():
        raise BudgetExceeded(seconds, label)
    if "error" in box:
        raise box["error"]
    return box["value"]


# -- steps -------------------------------------------------------------------------------

def _fmt_tuple(t) -> str:
    return "(" + ", ".join(str(x) for x in t) + ")"


_GREEK = {name: chr(0x3B1 + k) for k, name in enumerate(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
    "varsigma sigma tau upsilon phi chi psi omega".split())}
_GREEK.update({n.capitalize(): chr(ord(c) - 32) for n, c in _GREEK.items() if n != "varsigma"})
_GREEK.update(varphi="\u03c6", vartheta="\u03d1", varepsilon="\u03b5", ell="l")


def _plain_math(tex: str) -> str:
    """LaTeX of a docstring's ``:math:`` role as plain text (``\\dot x`` -> ``ẋ``,
    ``\\varphi`` -> ``φ``, ``\\mathbb R`` -> ``ℝ``)."""
    tex = re.sub(r"\\mathbb\s*\{?R\}?", "\u211d", tex)
    tex = re.sub(r"\\(?:mathbf|mathrm|mathfrak|mathit|operatorname|text)\s*\{([^}]*)\}", r"\1",
                 tex)
    tex = re.sub(r"\\(?:mathbf|mathrm|mathfrak|mathit)\s+(\w)", r"\1", tex)
    tex = re.sub(r"\\sqrt\s*\{([^}]*)\}", r"sqrt(\1)", tex)
    tex = re.sub(r"\\(?:dot)\s*\{?\\?(\w+?)\}?(?=\W|$)",
                 lambda m: _GREEK.get(m.group(1), m.group(1)) + "\u0307", tex)
    tex = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m.group(1), m.group(1)), tex)
    return tex.replace("{", "").replace("}", "").replace("\\", "")


def first_sentence(doc: str) -> str:
    r"""The first sentence of a docstring as plain text (``:math:`\dot x``` -> ``ẋ``,
    ``:func:`f``` -> ``f``).

    >>> first_sentence("Board with :math:`\\varphi_b = 0` and :func:`~x.f`. More text.")
    'Board with φ_b = 0 and x.f.'
    """
    para = " ".join(doc.strip().split("\n\n")[0].split())
    para = re.sub(r":math:`([^`]*)`", lambda m: _plain_math(m.group(1)), para)
    para = re.sub(r":[a-z]+:`~?([^`]*)`", r"\1", para).replace("``", "").replace("**", "")
    m = re.match(r"(.+?[.!?])(\s|$)", para)
    return m.group(1) if m else para


def _system_section(obj) -> Section:
    s = Section("System")
    s.add(f"name: {getattr(obj, 'name', type(obj).__name__)}")
    desc = getattr(obj, "description", "") or ""
    if desc:
        s.add(first_sentence(desc))
    source = getattr(obj, "source", None)
    if isinstance(source, str):
        s.add(f"model file: {source}")
    return s


def _configuration_section(sys_) -> Section:
    s = Section("Configuration space")
    N = sys_.manifold
    s.add(f"chart {N.name}, dimension {N.dim}, coordinates", sp.Tuple(*N.coords))
    if N.parameters:
        s.add("parameters", sp.Tuple(*N.parameters))
    P = sys_.phase_space
    s.add(f"phase space (q, independent velocities), dimension {P.dim}:", sp.Tuple(*P.coords))
    return s


def _lagrangian_section(sys_) -> Section:
    s = Section("Lagrangian and constraints")
    s.add("L =", sys_.lagrangian)
    if has_forces(sys_):
        for c, Q in zip(sys_.manifold.coords, sys_.forces):
            if Q != 0:
                s.add(f"generalized force on {c}:", sp.Eq(sp.Symbol(f"Q_{c}"), Q,
                                                           evaluate=False))
    if not sys_.constraints:
        s.add("no constraints")
    for i, c in enumerate(sys_.constraints, 1):
        s.add(f"constraint {i}: 0 =", c)
    if sys_.constraints:
        s.add("dependent velocities:")
        for k, v in sys_.dependent_solution.items():
            s.add("  ", sp.Eq(k, v, evaluate=False))
    return s


def _geometry_section(sys_) -> Section:
    s = Section("Geometry of the constraints")
    if not sys_.constraints:
        return s.add("no constraints: the distribution is the whole tangent bundle")
    D = sys_.constraint_distribution()
    s.add(f"constraint distribution D: rank {D.rank} on a {D.manifold.dim}-dimensional space")
    flag = D.growth_vector()
    s.add(f"growth vector (Lie flag): {_fmt_tuple(flag)}")
    frob = D.frobenius()
    if getattr(frob, "involutive", False):
        s.add("D is involutive: the constraints are integrable (holonomic in disguise)")
    else:
        off = getattr(frob, "offending", None)
        s.add(f"D is not involutive (Frobenius fails at the bracket {off})"
              if off else "D is not involutive")
    if flag and flag[-1] == D.manifold.dim:
        s.add("D is bracket-generating: every configuration is reachable (Chow–Rashevskii)")
    for line in _provenance_lines(D):
        s.add(line)
    return s


def _provenance_lines(D) -> list[str]:
    """New directions of the flag and the bracket words they come from."""
    fn = getattr(D, "new_directions", None)
    if fn is None:
        return []
    return [f"new direction {word}: {explanation}" for word, explanation in fn()]


_OPS_LIMIT = 20000   # above this the explicit right-hand side is not formed for printing


def _equations_section(sys_, method: str) -> Section:
    """The equations; heavy systems (rolling ellipsoid) are shown in mass-matrix form
    :math:`Mz = F` (their explicit form :math:`z = M^{-1}F`, ``S.equations(method).rhs``, has
    tens of thousands of operations; the numerics never need it)."""
    s = Section(f"Equations of motion ({method.replace('_', '-')})")
    eq = sys_.equations(method, explicit=False)           # no symbolic inversion yet
    imp = eq.mass_matrix_form()
    n_ops = imp.count_ops()
    if n_ops > _OPS_LIMIT:
        s.add(f"mass-matrix form M z = F, z = {list(imp.unknowns)} ({n_ops} operations; "
              f"shown unsolved -- the numerics solve M z = F at each step, and "
              f"S.equations({method!r}).rhs gives the explicit z = M^-1 F):")
        for c, r in imp.rates.items():
            s.add(f"  d{c}/dt =", r)
        s.add("M =", imp.mass_matrix)
        return s
    for e in eq.explicit():
        check()
        s.add("", e)
    if eq.multipliers:
        s.add("multipliers:")
        for k, v in eq.multipliers.items():
            s.add("  ", sp.Eq(k, v, evaluate=False))
    s.add(f"operation count of the right-hand side: {eq.count_ops()}")
    return s


def _compact_section(sys_) -> Section:
    """The explicit equations in the natural quasi-velocities (``system.natural_frame``)."""
    from geomech.mechanics.equations.quasi import compact_equations

    ce = compact_equations(sys_, frame="natural")
    s = Section("Equations in natural quasi-velocities")
    s.add(f"quasi-velocities (linear solve: {ce.solver}):", sp.Tuple(*ce.quasi_velocities))
    for q, rate in ce.kinematics.items():
        s.add("", sp.Eq(sp.Symbol(f"{q}'"), rate, evaluate=False))
    if ce.abbreviations:
        s.add("where")
        for sym, val in ce.abbreviations:
            s.add("", sp.Eq(sym, val, evaluate=False))
    for eta, rate in ce.dynamics.items():
        s.add("", sp.Eq(sp.Symbol(f"{eta}'"), rate, evaluate=False))
    s.add(f"operation count: {ce.count_ops('abbreviated')} with the abbreviations, "
          f"{ce.count_ops('raw')} written out, {ce.count_ops('cse')} after CSE")
    return s


_EXACT_ENERGY_OPS = 5000   # mass-matrix forms larger than this get the numerical check only


def _energy_form(sys_) -> tuple:
    """``(mass-matrix form, form name, operations)`` for the energy check: that of
    Lagrange-d'Alembert, or of Voronets when it is smaller (the same flow; the rolling
    ellipsoid: 131721 against 18884 operations)."""
    imp = sys_.equations(explicit=False).mass_matrix_form()
    ops = imp.count_ops()
    if ops > _OPS_LIMIT:
        alt = sys_.equations("voronets", explicit=False).mass_matrix_form()
        alt_ops = alt.count_ops()
        if alt_ops < ops:
            return alt, "Voronets", alt_ops
    return imp, "Lagrange-d'Alembert", ops


def _exact_energy_rate(sys_, E, seconds: float, imp=None, P=sp.S.Zero, ring: bool = False):
    r"""``(verdict, dE/dt - P)`` along the flow, from the mass-matrix form (no inversion of
    M); ``verdict`` is a :class:`~geomech.core.zero.ZeroVerdict` or ``None`` (undecided).
    ``ring``: in the radical ring (:func:`~geomech.mechanics.analysis.rates.mass_matrix_rate`,
    heavy bodies; the value is a :class:`~geomech.mechanics.analysis.divergence.RingFraction`),
    otherwise by :meth:`ImplicitEquations.time_derivative` and the zero policy."""
    from geomech.core.zero import default_policy
    from geomech.mechanics.analysis.rates import mass_matrix_rate

    def rate():
        nonlocal imp
        if ring:
            r = mass_matrix_rate(sys_, E, imp, source=P)
            return r.verdict(), r
        imp = imp if imp is not None else sys_.equations(explicit=False).mass_matrix_form()
        try:   # dE/dt = grad E . g + u^T F with M^T u = P^T grad E
            vE = imp.time_derivative(E, cofactor=sys_.independent_velocities)
        except ValueError:
            vE = sys_.vector_field()(E)
        return default_policy().zero_test(vE - P), vE - P
    return run_limited(rate, seconds, "exact energy check")


def _heavy_energy_form(sys_) -> tuple | None:
    """``(form, name, None)`` for a heavy body (square roots: the exact check runs in the
    radical ring, :mod:`geomech.mechanics.analysis.rates`), ``None`` otherwise."""
    from geomech.core.algebra import UnsupportedExpression
    from geomech.mechanics.analysis.density_search import heavy_system
    from geomech.mechanics.analysis.divergence import flow_mass_matrix_form

    if not heavy_system(sys_):
        return None
    try:
        imp = flow_mass_matrix_form(sys_)
    except UnsupportedExpression:
        return None
    return imp, {"voronets": "Voronets"}.get(imp.method, imp.method), None


def _energy_section(sys_, exact_budget: float = 20.0) -> Section:
    r"""Energy and the check :math:`dE/dt = P` (:math:`P = \sum_i Q_i\dot q_i`, the power of
    the non-potential forces; :math:`P = 0` without forces): exact when it finishes within
    ``exact_budget`` seconds (``0``: skip it), otherwise numerical at random states (said
    so).  Heavy bodies (square roots) are checked in the radical ring
    (:func:`~geomech.mechanics.analysis.rates.mass_matrix_rate`)."""
    from geomech.core.algebra import UnsupportedExpression

    forced = has_forces(sys_)
    s = Section("Energy and power balance" if forced else "Energy")
    E = sys_.energy()
    s.add("E =", E)
    P = power(sys_) if forced else sp.S.Zero
    if forced:
        s.add("power of the forces P = sum_i Q_i qdot_i =", P)
    verdict, vE, undecided = None, None, ""
    heavy = _heavy_energy_form(sys_)
    imp, form, ops = heavy or _energy_form(sys_)
    big = heavy is None and ops > _EXACT_ENERGY_OPS
    if exact_budget > 0 and not big:
        try:
            verdict, vE = _exact_energy_rate(sys_, E, exact_budget, imp, P, heavy is not None)
            undecided = "was undecided" if verdict is None else ""
        except UnsupportedExpression:
            undecided = "left the radical ring"
        except BudgetExceeded:
            pass
    claim = "dE/dt = P (power balance)" if forced else "dE/dt = 0 along the flow"
    if verdict is None:
        worst = _energy_residual(sys_, E, P, imp=imp, sets=1 if heavy or big else 4)
        if worst < 1e-8:
            why = (f"was not run (the {form} mass-matrix form has {ops} operations)" if big
                   else undecided or f"did not finish within {exact_budget:g} s" if exact_budget > 0
                   else "was not run")
            s.add(f"{claim}: verified numerically only, at random states and parameters "
                  f"(largest relative residual {worst:.1e}); the exact check {why}")
        else:
            what = ("dE/dt differs from P (affine constraints)" if forced else
                    "the energy is NOT conserved (non-conservative forces or affine "
                    "constraints)")
            s.add(f"{what}: relative residual up to {worst:.1e} at random states")
    elif verdict.zero:
        s.add(f"{claim}: verified " + ("exactly" + (f" (in the radical ring, {form} "
                                                   "mass-matrix form)" if heavy else "")
                                         if verdict.certain else "numerically only (probable)"))
    else:
        _energy_not_conserved(s, vE, forced)
    return s


def _energy_not_conserved(s: Section, vE, forced: bool) -> None:
    """The lines of an energy balance shown not to hold (``vE``: :math:`dE/dt - P`, an
    expression or a ring fraction, written out only when small)."""
    if hasattr(vE, "calc"):     # a RingFraction of the radical ring (heavy bodies)
        vE = vE.expr() if len(vE.num) * len(vE.den) <= 2000 else None
    label = "dE/dt - P =" if forced else "dE/dt ="
    if vE is None:
        s.add(f"{label} (large) not identically zero: exact, non-zero at a rational point")
    else:
        s.add(label, vE)
    s.add("the energy balance does NOT hold (affine constraints)" if forced else
          "the energy is NOT conserved (non-conservative forces or affine constraints)")


def _energy_residual(sys_, E, P=sp.S.Zero, points: int = 20, seed: int = 1, imp=None,
                     sets: int = 4) -> float:
    r"""Largest :math:`|\nabla E\cdot f - P| / (\sum_i|\partial_i E\,f^i| + |P|)` over
    random states, with :math:`f` the compiled mass-matrix form ``imp`` (default that of the
    system's equations; no symbolic inversion), for ``sets`` random parameter sets."""
    import numpy as np

    from geomech.numeric import compile_functions, compile_vector_field

    Ps = sys_.phase_space
    rng = np.random.default_rng(seed)
    imp = imp if imp is not None else sys_.equations(explicit=False).mass_matrix_form()
    dE = [sp.diff(E, c) for c in Ps.coords] + [P]
    worst, done = 0.0, 0
    for _ in range(sets):                    # a few random parameter sets, one compile each
        check()
        params = {p: float(rng.uniform(0.5, 1.5)) for p in sys_.manifold.parameters}
        f = compile_vector_field(imp, parameters=params)
        grad = compile_functions(dE, Ps.coords, params, what="energy gradient")
        for _ in range(3 * points // sets):
            y = rng.uniform(-1.0, 1.0, len(Ps.coords))
            with np.errstate(all="ignore"):
                g = np.asarray(grad(y), float)
                terms = np.append(g[:-1] * np.asarray(f(0.0, y), float), -g[-1])
            if np.all(np.isfinite(terms)) and np.any(terms):
                worst = max(worst, abs(terms.sum()) / np.abs(terms).sum())
                done += 1
    if done < points // 2:
        raise ValueError("too few random states where the energy check could be evaluated")
    return worst


def _sections_from_object(obj) -> list[Section]:
    out = []
    for title, text in obj.report_sections():
        sec = Section(title)
        for line in str(text).splitlines():
            sec.add(line)
        out.append(sec)
    return out


def _symmetry_section(sys_) -> Section:
    """Point symmetries in the default ansatz, Theorem 3 check and C-1/C-2 classification."""
    from geomech.mechanics.analysis.symmetry import (
        check_symmetry,
        classify_action,
        find_point_symmetries,
    )

    s = Section("Symmetries")
    fields = find_point_symmetries(sys_)
    if not fields:
        return s.add("no infinitesimal point symmetry in the default ansatz (coefficients "
                     "of degree <= 1 in the coordinates and in sin/cos of the angles)")
    s.add(f"{len(fields)} infinitesimal point symmetries (Theorem 3 checked, exact):")
    for u in fields:
        s.add(f"  u = {u}")
    checks = check_symmetry(sys_, list(fields))
    s.add("prolonged fields commute with the flow: "
          + ", ".join("yes" if c.is_symmetry else "no" for c in checks))
    cls = classify_action(sys_, fields)
    s.add(f"action relative to the constraints: case {cls.case}, m0 = {cls.m0}")
    return s


def _integrals_section(sys_) -> Section:
    """Linear (Noether / Kozlov–Kolesnikov) integrals, each verified along the flow."""
    from geomech.mechanics.analysis.symmetry import linear_integrals

    s = Section("First integrals")
    s.add("energy: see the Energy section")
    found = linear_integrals(sys_)
    if not found:
        return s.add("no integral linear in the velocities in the default ansatz")
    for F in found:
        expr = getattr(F, "on_phase_space", getattr(F, "integral", F))
        if getattr(F, "verified", True) is False:
            s.add("linear integral candidate (NOT verified along the flow):", expr)
            continue
        s.add("linear integral (verified exactly: dF/dt = 0):", expr)
        fld = getattr(F, "field", None)
        if fld is not None:
            kind = ("also a symmetry field" if getattr(F, "is_symmetry", False)
                    else "not a symmetry field")
            s.add(f"  Noether field u = {fld} ({kind})")
    return s


def _measure_section(sys_) -> Section:
    from geomech.mechanics.analysis.measure import (
        system_divergence,
        system_divergence_vanishes,
        system_invariant_measure,
    )

    s = Section("Invariant measure")
    div = system_divergence(sys_)
    n_ops = count_ops(div)
    if n_ops > _OPS_LIMIT:   # heavy bodies: ~300k operations, decided in the radical ring
        s.add(f"divergence of the flow: {n_ops} operations (not printed; "
              "geomech.mechanics.analysis.measure.system_divergence(S) returns it)")
    else:
        s.add("divergence of the flow:", div)
    if system_divergence_vanishes(sys_, div):
        return s.add("the flow is divergence-free: rho = 1 is an invariant density (verified "
                     "exactly: div v = 0)")
    res = system_invariant_measure(sys_)
    if res:
        s.add("invariant density (verified exactly: div(rho v) = 0):", res.density)
    else:
        family = getattr(res, "family", "") or "default"
        s.add(f"no invariant density in the family searched -- {family}: {res.reason}; a "
              "density outside this family is not excluded")
    return s


def _hamiltonian_section(sys_) -> Section:
    from geomech.mechanics.analysis.hamiltonian import system_pseudo_hamiltonian

    s = Section("Hamiltonian structure")
    if has_forces(sys_) or getattr(sys_, "is_affine", False):
        s.status = "does not apply"
        why = "non-potential forces" if has_forces(sys_) else "affine constraints"
        return s.add(f"does not apply: the system has {why}; the pseudo-Hamiltonian form "
                     "x' = J grad H needs potential forces and homogeneous constraints")
    form = system_pseudo_hamiltonian(sys_)
    s.add("pseudo-Hamiltonian form x' = J grad H (Prop. 7), H =", form.hamiltonian)
    ok = form.satisfies_jacobi()
    s.add("J satisfies the Jacobi identity: " + ("yes (a Poisson structure)" if ok else
          "no: J is only almost-Poisson, as expected for non-integrable constraints"))
    return s


#: Analysis steps of the mechanics layer: (label, section builder).  They run under the
#: report's analysis time limit; one that exceeds it is reported as not computed.
ANALYSES: list[tuple[str, Callable]] = [
    ("symmetries", _symmetry_section),
    ("first integrals", _integrals_section),
    ("invariant measure", _measure_section),
    ("Hamiltonian structure", _hamiltonian_section),
]


@dataclass(frozen=True)
class Step:
    label: str
    fn: Callable
    kind: str = "step"        # "step" or "analysis": which time limit and option apply


def report_steps(obj, method: str, simulate: bool, t_end: float, analyses: bool,
           parameters: Mapping | None) -> list[Step]:
    """The steps of the report of ``obj``, in order (the compact form first)."""
    steps = [Step("system", lambda: _system_section(obj))]
    if hasattr(obj, "report_sections"):
        steps.append(Step("analysis", lambda: _sections_from_object(obj)))
    else:
        steps += [Step("configuration space", lambda: _configuration_section(obj)),
                  Step("Lagrangian and constraints", lambda: _lagrangian_section(obj)),
                  Step("constraint geometry", lambda: _geometry_section(obj))]
        if getattr(obj, "natural_frame", None):
            steps.append(Step("compact equations", lambda: _compact_section(obj)))
        steps += [Step("equations of motion", lambda: _equations_section(obj, method)),
                  Step("energy", lambda: _energy_section(obj))]
        if analyses:
            steps += [Step(label, lambda fn=fn: fn(obj), "analysis") for label, fn in ANALYSES]
    if simulate and hasattr(obj, "phase_space"):
        steps.append(Step("simulation", lambda: simulation_section(obj, t_end, parameters)))
    elif simulate:
        steps.append(Step("simulation", lambda: Section("Simulation").add(
            "not run: this object has no numeric phase space (its equations contain "
            "undefined functions or abbreviations; give them explicitly to simulate)")))
    return steps


def timed_out(title: str, exc: BudgetExceeded, kind: str) -> Section:
    opt = ("--analysis-timeout (analysis_timeout=)" if kind == "analysis"
           else "--step-timeout (step_timeout=)")
    return Section(title, status="not computed").add(
        f"not computed: the time limit of {exc.seconds:g} s was reached; raise it with "
        f"{opt} to compute this section")


def run_step(step: Step, limit: float | None) -> list[Section]:
    title = step.label[:1].upper() + step.label[1:]
    try:
        result = run_limited(step.fn, limit, step.label)
    except BudgetExceeded as exc:
        result = timed_out(title, exc, step.kind)
    except Exception as exc:  # noqa: BLE001 - reported in the section, not hidden
        result = Section(title, error=f"{type(exc).__name__}: {exc}")
    return result if isinstance(result, list) else [result]


