r"""Analysis report of a system: text, Markdown, LaTeX or JSON, computed section by section.

A report is a list of :class:`Section` objects, each computed by one step (configuration
space, constraint geometry, equations of motion, energy or power balance, integrals,
measure, a short simulation ...).  :func:`iter_report` yields the sections as they are
computed (the command line streams them); :func:`report` / :func:`build_report` collect them
in a :class:`Report`.  Every section ends in one of four states: computed (``"ok"``),
``"not computed"`` (a time limit; the text names the option that would compute it),
``"does not apply"`` (e.g. a pseudo-Hamiltonian form with non-potential forces) or
``"failed"`` (an error, shown in the section; the command line then exits with status 1).

Time limits are cooperative (:func:`geomech.core.budget.time_limit`): they hold in any
thread, without signals.

Examples
--------
>>> import geomech as gm
>>> rep = gm.report(gm.examples.chaplygin_sleigh(), simulation=False, analyses=False)
>>> [s.title for s in rep.sections][:3]
['System', 'Configuration space', 'Lagrangian and constraints']
>>> "growth vector" in rep.render("text")
True
>>> rep.to_dict()["sections"][0]["status"]
'ok'
"""

from __future__ import annotations

import contextvars
import json
import re
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import sympy as sp

from .core.budget import BudgetExceeded, check, time_limit

__all__ = ["Section", "Report", "report", "build_report", "iter_report", "render", "writer",
           "first_sentence", "STATUSES", "ANALYSES"]

#: The states of a section.
STATUSES = ("ok", "not computed", "does not apply", "failed")

#: Width of the text output (``full=False``): longer formulas are abbreviated with named
#: common subexpressions, very long ones moved to an appendix, and lines are wrapped.
TEXT_WIDTH = 200
_APPENDIX_CHARS = 1200      # a formula longer than this goes to the appendix


@dataclass
class Section:
    """One titled block of a report: lines of text, each optionally with a formula.

    ``status`` is one of :data:`STATUSES`; ``error`` holds the message of a failed step.
    """

    title: str
    lines: list = field(default_factory=list)   # (text, sympy object or None)
    seconds: float = 0.0
    error: str | None = None
    status: str = "ok"

    def __post_init__(self):
        if self.error is not None:
            self.status = "failed"
        if self.status not in STATUSES:
            raise ValueError(f"unknown section status {self.status!r}; one of {STATUSES}")

    def add(self, text: str, obj=None) -> Section:
        """Append a line (``text`` and an optional sympy object); returns ``self``."""
        self.lines.append((text, obj))
        return self

    def to_dict(self) -> dict:
        """A JSON-ready dictionary: title, status, seconds, error and the lines (each with its
        text, the formula in sympy's string form and in LaTeX)."""
        return {"title": self.title, "status": self.status, "seconds": round(self.seconds, 4),
                "error": self.error,
                "lines": [{"text": t, "formula": None if o is None else _text_of(o),
                           "latex": None if o is None else _latex(o)} for t, o in self.lines]}


@dataclass
class Report:
    """An analysis report: the computed sections, rendered on demand.

    ``render("text" | "markdown" | "latex" | "json")``, ``to_dict()``; in Jupyter it
    displays itself as Markdown (``_repr_markdown_``) or LaTeX (``_repr_latex_``).
    """

    name: str
    sections: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether no step failed (sections not computed or not applicable are no failure)."""
        return all(s.status != "failed" for s in self.sections)

    @property
    def complete(self) -> bool:
        """Whether every section was computed or does not apply."""
        return all(s.status in ("ok", "does not apply") for s in self.sections)

    def render(self, fmt: str = "text", full: bool = False) -> str:
        """Render as ``"text"``, ``"markdown"``, ``"latex"`` or ``"json"`` (see
        :func:`render`)."""
        return render(self, fmt, full=full)

    def to_dict(self) -> dict:
        """A JSON-ready dictionary of the report (``json.dumps`` works on it)."""
        return {"name": self.name, "ok": self.ok, "complete": self.complete,
                "sections": [s.to_dict() for s in self.sections]}

    def _repr_markdown_(self) -> str:
        return self.render("markdown")

    def _repr_latex_(self) -> str:
        return _latex_fragment(self)


# -- time limits -------------------------------------------------------------------------

def _run_limited(fn: Callable, seconds: float | None, label: str):
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


def _has_forces(sys_) -> bool:
    from .core.zero import default_policy

    forces = getattr(sys_, "forces", None)
    return forces is not None and any(not default_policy().is_zero(f) for f in forces)


def _lagrangian_section(sys_) -> Section:
    s = Section("Lagrangian and constraints")
    s.add("L =", sys_.lagrangian)
    if _has_forces(sys_):
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
    :math:`Mz = F` (their explicit form has over a million operations)."""
    s = Section(f"Equations of motion ({method.replace('_', '-')})")
    eq = sys_.equations(method, explicit=False)           # no symbolic inversion yet
    imp = eq.mass_matrix_form()
    n_ops = imp.count_ops()
    if n_ops > _OPS_LIMIT:
        s.add(f"mass-matrix form M z = F, z = {list(imp.unknowns)} ({n_ops} operations; the "
              f"explicit form is not computed, the numerics solve M z = F at each step):")
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


def _power(sys_) -> sp.Expr:
    r"""Power of the generalized forces :math:`P = \sum_i Q_i\dot q_i` on the phase space."""
    vel = sys_.velocity_on_phase_space()
    return sys_.restricted(sp.Add(*[Q * v for Q, v in zip(sys_.forces, vel)]))


def _exact_energy_rate(sys_, E, seconds: float):
    """:math:`dE/dt` along the flow, from the mass-matrix form (no inversion of M)."""
    def rate():
        imp = sys_.equations(explicit=False).mass_matrix_form()
        try:   # dE/dt = grad E . g + u^T F with M^T u = P^T grad E
            return imp.time_derivative(E, cofactor=sys_.independent_velocities)
        except ValueError:
            return sys_.vector_field()(E)
    return _run_limited(rate, seconds, "exact energy check")


def _energy_section(sys_, exact_budget: float = 20.0) -> Section:
    r"""Energy and the check :math:`dE/dt = P` (:math:`P = \sum_i Q_i\dot q_i`, the power of
    the non-potential forces; :math:`P = 0` without forces): exact when it finishes within
    ``exact_budget`` seconds (``0``: skip it), otherwise numerical at random states (said
    so)."""
    from .core.zero import default_policy

    forced = _has_forces(sys_)
    s = Section("Energy and power balance" if forced else "Energy")
    E = sys_.energy()
    s.add("E =", E)
    P = _power(sys_) if forced else sp.S.Zero
    if forced:
        s.add("power of the forces P = sum_i Q_i qdot_i =", P)
    verdict, vE = None, None
    if exact_budget > 0:
        try:
            vE = _exact_energy_rate(sys_, E, exact_budget)
            verdict = default_policy().zero_test(vE - P)
        except BudgetExceeded:
            pass
    claim = "dE/dt = P (power balance)" if forced else "dE/dt = 0 along the flow"
    if verdict is None:
        worst = _energy_residual(sys_, E, P)
        if worst < 1e-8:
            s.add(f"{claim}: verified numerically only, at random states and parameters "
                  f"(largest relative residual {worst:.1e}); the exact check "
                  + (f"did not finish within {exact_budget:g} s" if exact_budget > 0
                     else "was not run"))
        else:
            what = ("dE/dt differs from P (affine constraints)" if forced else
                    "the energy is NOT conserved (non-conservative forces or affine "
                    "constraints)")
            s.add(f"{what}: relative residual up to {worst:.1e} at random states")
    elif verdict.zero:
        s.add(f"{claim}: verified " + ("exactly" if verdict.certain else
                                         "numerically only (probable)"))
    else:
        s.add("dE/dt - P =" if forced else "dE/dt =", vE - P)
        s.add("the energy balance does NOT hold (affine constraints)" if forced else
              "the energy is NOT conserved (non-conservative forces or affine constraints)")
    return s


def _energy_residual(sys_, E, P=sp.S.Zero, points: int = 20, seed: int = 1) -> float:
    r"""Largest :math:`|\nabla E\cdot f - P| / (\sum_i|\partial_i E\,f^i| + |P|)` over
    random states, with :math:`f` the compiled mass-matrix form of the equations (no
    symbolic inversion)."""
    import numpy as np

    from .numeric import compile_functions, compile_vector_field

    Ps = sys_.phase_space
    rng = np.random.default_rng(seed)
    eq = sys_.equations(explicit=False)
    dE = [sp.diff(E, c) for c in Ps.coords] + [P]
    worst, done = 0.0, 0
    for _ in range(4):                       # a few random parameter sets, one compile each
        check()
        params = {p: float(rng.uniform(0.5, 1.5)) for p in sys_.manifold.parameters}
        f = compile_vector_field(eq.mass_matrix_form(), parameters=params)
        grad = compile_functions(dE, Ps.coords, params, what="energy gradient")
        for _ in range(3 * points // 4):
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


def _generic_value(k: int) -> float:
    """The ``k``-th generic default value: in [0.8, 1.4], pairwise distinct (golden-ratio
    sequence), so that no accidental symmetry (equal moments of inertia ...) is created."""
    return round(0.8 + 0.6 * (((k + 1) * 0.6180339887498949) % 1.0), 3)


def _numeric_defaults(obj, overrides: Mapping | None = None):
    """Parameter values and an initial state for the demonstration run, and where the
    parameter values come from (a sentence for the report)."""
    defaults = getattr(obj, "numeric_defaults", None)
    if callable(defaults):
        defaults = defaults()
    P = obj.phase_space
    chart = getattr(obj, "manifold", P)
    if defaults:
        params, x0 = dict(defaults[0]), dict(defaults[1])
        origin = "default values of the system"
    else:
        params = {p: _generic_value(k) for k, p in enumerate(chart.parameters)}
        x0 = {c: round(0.15 * (k + 1), 2) for k, c in enumerate(P.coords)}
        origin = ("generic default values (pairwise distinct, so no accidental symmetry; "
                  "set them with --param NAME=VALUE)")
    if overrides:
        names = {str(k): k for k in params}
        for k, v in overrides.items():
            params[names.get(str(k), k)] = float(v)
        origin += "; " + ", ".join(f"{k}={float(v):g}" for k, v in overrides.items()) + \
            " given"
    return params, x0, origin


def _power_balance_error(sys_, res, params, t_end: float) -> float:
    r"""Relative error :math:`\max_t|E(t) - E(0) - \int_0^t P| / \max_t|E|` of the power
    balance along the computed trajectory (dense output, Simpson's rule on 2001 points)."""
    import numpy as np
    from scipy.integrate import cumulative_simpson

    from .numeric import compile_functions

    coords = sys_.phase_space.coords
    fn = compile_functions([sys_.energy(), _power(sys_)], coords, params,
                           what="energy and power")
    sol = getattr(res.solution, "sol", None)
    if callable(sol):
        tt = np.linspace(0.0, t_end, 2001)
        Y = sol(tt)
    else:                                   # no dense output: the solver's own steps
        tt, Y = np.asarray(res.t, float), np.asarray(res.states, float).T
    E, P = (np.asarray(v, float) * np.ones_like(tt) for v in fn(Y))
    W = cumulative_simpson(P, x=tt, initial=0.0)
    return float(np.max(np.abs(E - E[0] - W)) / max(np.max(np.abs(E)), 1e-12))


def _singularity_text(item) -> str:
    """``(t, d, d(t))`` of :class:`~geomech.numeric.SimulationResult` as a phrase."""
    if isinstance(item, tuple) and len(item) == 3:
        t, d, value = item
        if value == 0:
            return f"{sp.sstr(d)} = 0 at t = {float(t):.4g}"
        return f"{sp.sstr(d)} nearly 0 ({float(value):.1e}) at t = {float(t):.4g}"
    return str(item)


def _status_of_run(res) -> str:
    """``"ok"``, the solver's message, or the chart singularities crossed."""
    sing = getattr(res, "singularities", None)
    if sing:
        items = [sing] if isinstance(sing, str) else list(sing)
        what = "; ".join(_singularity_text(x) for x in items[:3])
        more = f" and {len(items) - 3} more" if len(items) > 3 else ""
        return (f"the trajectory crossed a chart singularity: {what}{more}; values past it "
                "are not reliable")
    return "ok" if res.success else f"solver stopped: {res.message}"


def _simulation_section(obj, t_end: float, overrides: Mapping | None = None) -> Section:
    from geomech.mechanics.system import NonholonomicSystem

    from .numeric import simulate

    s = Section("Simulation")
    params, x0, origin = _numeric_defaults(obj, overrides)
    is_system = isinstance(obj, NonholonomicSystem)
    forced = is_system and _has_forces(obj)
    res = simulate(obj, x0, (0.0, t_end), parameters=params, implicit=is_system,
                   dense_output=forced)
    s.add(f"parameters: {', '.join(f'{k}={v:g}' for k, v in params.items()) or 'none'}"
          + (f" ({origin})" if params else ""))
    s.add("initial state: " + ", ".join(f"{k}={v:g}" for k, v in x0.items()))
    s.add(f"integrated on [0, {t_end:g}] with {res.nfev} evaluations ({_status_of_run(res)})")
    for k, v in res.drift.items():
        if forced and k == "energy":
            err = _power_balance_error(obj, res, params, t_end)
            s.add(f"power balance E(t) - E(0) = integral of P: relative error {err:.2e} "
                  "(the energy changes by the work of the forces; this is not a drift)")
        else:
            s.add(f"relative drift of {k}: {v:.2e}")
    return s


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
    from geomech.mechanics.analysis.measure import system_divergence, system_invariant_measure

    from .core.zero import default_policy

    s = Section("Invariant measure")
    div = system_divergence(sys_)
    s.add("divergence of the flow:", div)
    if default_policy().is_zero(div):
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
    if _has_forces(sys_) or getattr(sys_, "is_affine", False):
        s.status = "does not apply"
        why = "non-potential forces" if _has_forces(sys_) else "affine constraints"
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
class _Step:
    label: str
    fn: Callable
    kind: str = "step"        # "step" or "analysis": which time limit and option apply


def _steps(obj, method: str, simulate: bool, t_end: float, analyses: bool,
           parameters: Mapping | None) -> list[_Step]:
    """The steps of the report of ``obj``, in order (the compact form first)."""
    steps = [_Step("system", lambda: _system_section(obj))]
    if hasattr(obj, "report_sections"):
        steps.append(_Step("analysis", lambda: _sections_from_object(obj)))
    else:
        steps += [_Step("configuration space", lambda: _configuration_section(obj)),
                  _Step("Lagrangian and constraints", lambda: _lagrangian_section(obj)),
                  _Step("constraint geometry", lambda: _geometry_section(obj))]
        if getattr(obj, "natural_frame", None):
            steps.append(_Step("compact equations", lambda: _compact_section(obj)))
        steps += [_Step("equations of motion", lambda: _equations_section(obj, method)),
                  _Step("energy", lambda: _energy_section(obj))]
        if analyses:
            steps += [_Step(label, lambda fn=fn: fn(obj), "analysis") for label, fn in ANALYSES]
    if simulate and hasattr(obj, "phase_space"):
        steps.append(_Step("simulation", lambda: _simulation_section(obj, t_end, parameters)))
    elif simulate:
        steps.append(_Step("simulation", lambda: Section("Simulation").add(
            "not run: this object has no numeric phase space (its equations contain "
            "undefined functions or abbreviations; give them explicitly to simulate)")))
    return steps


def _timed_out(title: str, exc: BudgetExceeded, kind: str) -> Section:
    opt = ("--analysis-timeout (analysis_timeout=)" if kind == "analysis"
           else "--step-timeout (step_timeout=)")
    return Section(title, status="not computed").add(
        f"not computed: the time limit of {exc.seconds:g} s was reached; raise it with "
        f"{opt} to compute this section")


def _run_step(step: _Step, limit: float | None) -> list[Section]:
    title = step.label[:1].upper() + step.label[1:]
    try:
        result = _run_limited(step.fn, limit, step.label)
    except BudgetExceeded as exc:
        result = _timed_out(title, exc, step.kind)
    except Exception as exc:  # noqa: BLE001 - reported in the section, not hidden
        result = Section(title, error=f"{type(exc).__name__}: {exc}")
    return result if isinstance(result, list) else [result]


def iter_report(obj, method: str = "lagrange_dalembert", simulate: bool = True,
                t_end: float = 5.0, step_timeout: float | None = None, analyses: bool = True,
                analysis_timeout: float | None = 30.0, parameters: Mapping | None = None,
                on_step: Callable | None = None) -> Iterator[Section]:
    """Compute the sections of the report of ``obj`` one by one and yield each as soon as it
    is done (the arguments are those of :func:`build_report`).

    ``on_step(k, n, label, seconds)`` is called before step ``k`` of ``n`` (with
    ``seconds=None``) and after it (with its duration).

    >>> import geomech as gm
    >>> it = iter_report(gm.examples.chaplygin_sleigh(), simulate=False, analyses=False)
    >>> next(it).title
    'System'
    """
    steps = _steps(obj, method, simulate, t_end, analyses, parameters)
    for k, step in enumerate(steps, 1):
        if on_step is not None:
            on_step(k, len(steps), step.label, None)
        limit = analysis_timeout if step.kind == "analysis" else step_timeout
        t0 = time.perf_counter()
        sections = _run_step(step, limit)
        dt = time.perf_counter() - t0
        for sec in sections:
            sec.seconds = dt
        if on_step is not None:
            on_step(k, len(steps), step.label, dt)
        yield from sections


def _stderr_progress(k: int, n: int, label: str, seconds: float | None) -> None:
    if seconds is None:
        print(f"[{k}/{n}] {label} ...", end="", file=sys.stderr, flush=True)
    else:
        print(f" {seconds:.2f} s", file=sys.stderr, flush=True)


def build_report(obj, method: str = "lagrange_dalembert", simulate: bool = True,
                 t_end: float = 5.0, progress: bool = False,
                 step_timeout: float | None = None, analyses: bool = True,
                 analysis_timeout: float | None = 30.0,
                 parameters: Mapping | None = None) -> Report:
    """Compute every section of the report of ``obj`` (a system or a catalogue object).

    Parameters
    ----------
    obj : NonholonomicSystem or an object with ``report_sections()``
    method : str
        Form of the equations of motion to print.
    simulate : bool
        Include a short numerical run (drift of the integrals, or the power balance when
        there are forces).
    t_end : float
        Length of that run.
    progress : bool
        Print each step and its time on ``stderr`` as it runs.
    step_timeout : float, optional
        Seconds allowed to each step; one that exceeds it is reported as not computed.
    analyses : bool
        Include the analyses of :data:`ANALYSES` (symmetries, integrals, measure,
        Hamiltonian structure).
    analysis_timeout : float, optional
        Seconds allowed to each analysis; one that exceeds it is reported as not computed.
    parameters : mapping, optional
        Parameter values ``{name: number}`` for the simulation (the others keep their
        defaults).

    Returns
    -------
    Report
    """
    rep = Report(getattr(obj, "name", type(obj).__name__))
    rep.sections.extend(iter_report(obj, method, simulate, t_end, step_timeout, analyses,
                                    analysis_timeout, parameters,
                                    _stderr_progress if progress else None))
    return rep


def report(system, *, method: str = "lagrange_dalembert", simulation: bool = True,
           t_end: float = 5.0, analyses: bool = True, analysis_timeout: float | None = 30.0,
           step_timeout: float | None = None, parameters: Mapping | None = None,
           progress: bool = False) -> Report:
    """The analysis report of ``system`` (``gm.report``): a :class:`Report`.

    The same sections as ``geomech report`` on the command line (see :func:`build_report`
    for the arguments); ``rep.render("text" | "markdown" | "latex" | "json")``,
    ``rep.to_dict()``, and in Jupyter the report displays itself.

    >>> import geomech as gm
    >>> rep = gm.report(gm.examples.chaplygin_sleigh(), simulation=False, analyses=False)
    >>> rep.ok, rep.sections[-1].title
    (True, 'Energy')
    """
    return build_report(system, method=method, simulate=simulation, t_end=t_end,
                        progress=progress, step_timeout=step_timeout, analyses=analyses,
                        analysis_timeout=analysis_timeout, parameters=parameters)


# -- rendering ---------------------------------------------------------------------------

FORMATS = ("text", "markdown", "latex", "json")


def render(rep: Report, fmt: str = "text", full: bool = False) -> str:
    """Render a report; ``fmt`` is ``"text"``, ``"markdown"``, ``"latex"`` or ``"json"``.

    In text, unless ``full``, formulas longer than :data:`TEXT_WIDTH` characters are
    abbreviated with named common subexpressions, very long ones are written out in an
    appendix, and no line is longer than :data:`TEXT_WIDTH`.
    """
    if fmt == "json":
        return json.dumps(rep.to_dict(), indent=2) + "\n"
    w = writer(fmt, full=full)
    return w.header(rep.name) + "".join(w.section(s) for s in rep.sections) + w.footer()


def writer(fmt: str, full: bool = False):
    """A streaming writer for ``fmt`` (not ``"json"``): ``header(name)``, ``section(sec)``
    and ``footer()`` return the pieces of the document in order."""
    classes = {"text": _TextWriter, "markdown": _MarkdownWriter, "latex": _LatexWriter}
    if fmt not in classes:
        if fmt == "json":
            raise ValueError("JSON is not written section by section: use Report.to_dict()")
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return classes[fmt](full)


def _text_of(obj) -> str:
    if obj is None:
        return ""
    if isinstance(obj, sp.Eq):
        return f"{sp.sstr(obj.lhs)} = {sp.sstr(obj.rhs)}"
    return sp.sstr(obj)


_BREAK = re.compile(r"(?<= )|(?<=\*)(?!\*)|(?<=,)")


def _wrap(line: str, width: int = TEXT_WIDTH, indent: str = "    ") -> list[str]:
    """Split ``line`` into pieces of at most ``width`` characters, at spaces, products or
    commas when possible; continuation lines are indented."""
    out: list[str] = []
    rest = line
    while len(rest) > (width if not out else width - len(indent)):
        room = width if not out else width - len(indent)
        cuts = [m.start() for m in _BREAK.finditer(rest, 1, room)]
        cut = cuts[-1] if cuts else room
        out.append(rest[:cut].rstrip())
        rest = rest[cut:]
    out.append(rest)
    return out[:1] + [indent + piece for piece in out[1:]]


def _join(text: str, formula: str) -> str:
    """``text`` and a formula on one line (a blank ``text`` is an indentation)."""
    if text.isspace():
        return text + formula
    return " ".join(p for p in (text, formula) if p)


def _parts(obj) -> list:
    if isinstance(obj, sp.Eq):
        return [obj.lhs, obj.rhs]
    if isinstance(obj, sp.MatrixBase):
        return [obj]
    if isinstance(obj, sp.Basic):
        return [obj]
    return []


def _abbreviate(obj) -> tuple[str, list[tuple[sp.Symbol, sp.Expr]]]:
    """``obj`` written with named common subexpressions ``Z1, Z2, ...``."""
    parts = _parts(obj)
    taken = set().union(*(p.free_symbols for p in parts)) if parts else set()
    names = sp.numbered_symbols("Z", start=1, exclude=taken)
    defs, reduced = sp.cse(parts, symbols=names, optimizations=None)
    if isinstance(obj, sp.Eq):
        main = f"{sp.sstr(reduced[0])} = {sp.sstr(reduced[1])}"
    elif reduced:
        main = sp.sstr(reduced[0])
    else:
        main = _text_of(obj)
    return main, defs


class _TextWriter:
    def __init__(self, full: bool = False):
        self.full = full
        self.appendix: list[str] = []

    def header(self, name: str) -> str:
        return f"geomech report: {name}\n{'=' * (17 + len(name))}\n"

    def footer(self) -> str:
        if not self.appendix:
            return ""
        return "\nAppendix: long expressions\n--------------------------\n" + \
            "\n".join(self.appendix) + "\n"

    def _fit(self, line: str) -> list[str]:
        return [line] if self.full else _wrap(line)

    def _formula_lines(self, text: str, obj) -> list[str]:
        line = _join(text, _text_of(obj))
        if self.full or len(line) <= TEXT_WIDTH or not _parts(obj):
            return self._fit(line)
        main, defs = _abbreviate(obj)
        body = [_join(text, main)]
        if defs:
            body.append("  where")
            body += [f"    {s} = {sp.sstr(v)}" for s, v in defs]
        if len(line) <= _APPENDIX_CHARS:     # abbreviate only when it shortens markedly
            chosen = body if sum(map(len, body)) < 0.7 * len(line) else [line]
            return [piece for b in chosen for piece in _wrap(b)]
        k = sum(1 for a in self.appendix if a.startswith("[A")) + 1
        lhs = f"{sp.sstr(obj.lhs)} =" if isinstance(obj, sp.Eq) else ""
        self.appendix.append(f"[A{k}] " + _join(text.strip(), lhs))
        self.appendix += [piece for b in body for piece in _wrap("  " + b)]
        ops = sum(sp.count_ops(p) for p in _parts(obj))
        return _wrap(_join(text, lhs) + f" [{ops} operations: written out in the appendix, "
                     f"entry A{k}; --full prints it here]")

    def section(self, sec: Section) -> str:
        out = ["", sec.title, "-" * len(sec.title)]
        if sec.error:
            out += self._fit(f"FAILED: {sec.error}")
        for text, obj in sec.lines:
            out += self._formula_lines(text, obj) if obj is not None else self._fit(text)
        return "\n".join(out) + "\n"


_MD_SPECIAL = re.compile(r"([\\`*_{}<>#|$~])")


def _md_escape(text: str) -> str:
    """Escape Markdown's special characters (``(y)*d/dx`` stays literal, no italics);
    brackets become entities, so that ``\\[`` is never read as display math in Jupyter."""
    text = _MD_SPECIAL.sub(r"\\\1", text.replace("&", "&amp;"))
    return text.replace("[", "&#91;").replace("]", "&#93;")


class _MarkdownWriter:
    def __init__(self, full: bool = False):
        self.full = full

    def header(self, name: str) -> str:
        return f"# geomech report: {_md_escape(name)}\n"

    def footer(self) -> str:
        return ""

    def section(self, sec: Section) -> str:
        out = ["", f"## {_md_escape(sec.title)}", ""]
        if sec.status != "ok":
            out.append(f"*{sec.status}*")
        if sec.error:
            out.append(f"**FAILED:** {_md_escape(sec.error)}")
        for text, obj in sec.lines:
            formula = f" ${_latex(obj)}$" if obj is not None else ""
            out.append(f"- {_md_escape(text.strip())}{formula}")
        return "\n".join(out) + "\n"


def _tex_escape(s: str) -> str:
    repl = {"\\": r"\textbackslash{}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
            "$": r"\$", "{": r"\{", "}": r"\}", "^": r"\^{}", "~": r"\~{}"}
    return "".join(repl.get(ch, ch) for ch in s)


_NAME = re.compile(r"^([A-Za-z]+?)_?(\d+)$")


def _latex_name(name: str) -> str:
    """LaTeX of a symbol name: ``Omega1`` -> ``\\Omega_{1}``, ``theta'`` and ``thetadot``
    -> ``\\dot{\\theta}``, ``p_phi`` -> ``p_{\\phi}``."""
    dot = name.endswith("'") or (name.endswith("dot") and len(name) > 3)
    base = name[:-1] if name.endswith("'") else name[:-3] if dot else name
    m = _NAME.match(base)
    core = sp.latex(sp.Symbol(f"{m.group(1)}_{m.group(2)}" if m else base))
    return rf"\dot{{{core}}}" if dot else core


def _latex(obj) -> str:
    """``sympy.latex`` with every symbol name converted by :func:`_latex_name`."""
    syms = getattr(obj, "free_symbols", set())
    return sp.latex(obj, symbol_names={s: _latex_name(s.name) for s in syms
                                       if isinstance(s, sp.Symbol)})


class _LatexWriter:
    def __init__(self, full: bool = False):
        self.full = full

    def header(self, name: str) -> str:
        return "\n".join([r"\documentclass{article}", r"\usepackage{amsmath,amssymb}",
                          r"\usepackage[margin=2cm]{geometry}", r"\allowdisplaybreaks",
                          rf"\title{{geomech report: {_tex_escape(name)}}}", r"\date{}",
                          r"\begin{document}", r"\maketitle"]) + "\n"

    def footer(self) -> str:
        return "\\end{document}\n"

    def section(self, sec: Section) -> str:
        out = [rf"\section*{{{_tex_escape(sec.title)}}}"]
        if sec.status != "ok":
            out.append(rf"\emph{{{_tex_escape(sec.status)}}}\\")
        if sec.error:
            out.append(rf"\textbf{{FAILED:}} \texttt{{{_tex_escape(sec.error)}}}\\")
        for text, obj in sec.lines:
            if obj is None:
                out.append(_tex_escape(text) + r"\\")
                continue
            if text:
                out.append(_tex_escape(text))
            out += [r"\begin{equation*}", _latex(obj), r"\end{equation*}"]
        return "\n".join(out) + "\n"


def _latex_fragment(rep: Report) -> str:
    """The report as one MathJax-friendly display (Jupyter's ``_repr_latex_``)."""
    rows = [rf"\textbf{{geomech report: {_tex_escape(rep.name)}}}"]
    for sec in rep.sections:
        rows.append(rf"\textbf{{{_tex_escape(sec.title)}}}")
        if sec.error:
            rows.append(rf"\text{{FAILED: {_tex_escape(sec.error)}}}")
        for text, obj in sec.lines:
            t = rf"\text{{{_tex_escape(text)}}}" if text else ""
            rows.append(t + (r"\;" + _latex(obj) if obj is not None else ""))
    return "$$\\begin{array}{l}" + r" \\ ".join(rows) + r"\end{array}$$"


class _CallableModule(types.ModuleType):
    """``geomech.report`` is both this module and the function :func:`report`: Python binds
    the submodule ``geomech.report`` as the package attribute ``gm.report``, so the module
    itself forwards calls to :func:`report` (``gm.report(S)``, the public API)."""

    def __call__(self, system, **options) -> Report:
        return report(system, **options)


sys.modules[__name__].__class__ = _CallableModule
