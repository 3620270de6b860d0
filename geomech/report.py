r"""Analysis report of a system: text, Markdown or LaTeX.

A report is a list of :class:`Section` objects, each computed by one step (configuration
space, constraint geometry, equations of motion, energy check, integrals, measure, a short
simulation ...).  Steps report their progress and timing on ``stderr`` as they run; a step
that fails shows its error in its section (and marks the report as failed) instead of
stopping the others.

Examples
--------
>>> import geomech as gm
>>> rep = build_report(gm.examples.chaplygin_sleigh(), simulate=False)
>>> [s.title for s in rep.sections][:3]
['System', 'Configuration space', 'Lagrangian and constraints']
>>> "growth vector" in rep.render("text")
True
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp

__all__ = ["Section", "Report", "build_report", "render"]


@dataclass
class Section:
    """One titled block of a report: lines of text, each optionally with a formula."""

    title: str
    lines: list = field(default_factory=list)   # (text, sympy object or None)
    seconds: float = 0.0
    error: str | None = None

    def add(self, text: str, obj=None) -> Section:
        self.lines.append((text, obj))
        return self


@dataclass
class Report:
    """A rendered-on-demand analysis report."""

    name: str
    sections: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every step succeeded."""
        return all(s.error is None for s in self.sections)

    def render(self, fmt: str = "text") -> str:
        """Render as ``"text"``, ``"markdown"`` or ``"latex"``."""
        return render(self, fmt)


# -- steps -------------------------------------------------------------------------------

def _fmt_tuple(t) -> str:
    return "(" + ", ".join(str(x) for x in t) + ")"


def _system_section(obj) -> Section:
    s = Section("System")
    s.add(f"name: {getattr(obj, 'name', type(obj).__name__)}")
    desc = getattr(obj, "description", "") or ""
    if desc:
        s.add(desc.strip().splitlines()[0])
    return s


def _configuration_section(sys_) -> Section:
    s = Section("Configuration space")
    N = sys_.manifold
    s.add(f"chart {N.name}, dimension {N.dim}, coordinates {_fmt_tuple(N.coords)}")
    if N.parameters:
        s.add(f"parameters {_fmt_tuple(N.parameters)}")
    P = sys_.phase_space
    s.add(f"phase space (q, independent velocities): {_fmt_tuple(P.coords)}, dimension {P.dim}")
    return s


def _lagrangian_section(sys_) -> Section:
    s = Section("Lagrangian and constraints")
    s.add("L =", sys_.lagrangian)
    if not sys_.constraints:
        s.add("no constraints")
    for i, c in enumerate(sys_.constraints, 1):
        s.add(f"constraint {i}: 0 =", c)
    if sys_.constraints:
        s.add("dependent velocities:")
        for k, v in sys_.dependent_solution.items():
            s.add(f"  {k} =", v)
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
    out = []
    for word, explanation in fn():
        out.append(f"new direction {word}: {explanation}")
    return out


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
        s.add("", e)
    if eq.multipliers:
        s.add("multipliers:")
        for k, v in eq.multipliers.items():
            s.add(f"  {k} =", v)
    s.add(f"operation count of the right-hand side: {eq.count_ops()}")
    return s


def _compact_section(sys_) -> Section:
    """The explicit equations in the natural quasi-velocities (catalogue ``natural_frame``)."""
    from .mechanics.forms_quasi import compact_equations

    ce = compact_equations(sys_, frame="natural")
    s = Section("Equations in natural quasi-velocities")
    s.add("quasi-velocities: " + ", ".join(str(e) for e in ce.quasi_velocities)
          + f"  (linear solve: {ce.solver})")
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


def _energy_section(sys_, exact_budget: float = 20.0) -> Section:
    """Energy and the check :math:`v(E) = 0`: exact when it finishes within
    ``exact_budget`` seconds (``0``: skip it), otherwise numerical at random states (said
    so)."""
    from .core.zero import default_policy

    s = Section("Energy")
    E = sys_.energy()
    s.add("E =", E)
    verdict = None
    try:
        if exact_budget <= 0:      # numerical check only
            raise StepTimeout("no time for the exact check")
        with _time_limit(exact_budget):
            imp = sys_.equations(explicit=False).mass_matrix_form()
            try:   # dE/dt = grad E . g + u^T F with M^T u = P^T grad E: no inversion of M
                vE = imp.time_derivative(E, cofactor=sys_.independent_velocities)
            except ValueError:
                vE = sys_.vector_field()(E)
            verdict = default_policy().zero_test(vE)
    except StepTimeout:
        pass
    if verdict is None:
        worst = _energy_residual(sys_, E)
        if worst < 1e-8:
            s.add(f"dE/dt = 0 along the flow: verified numerically only, at 20 random states "
                  f"and parameters (largest relative residual {worst:.1e}); the exact check "
                  f"did not finish within {exact_budget:g} s")
        else:
            s.add(f"the energy is NOT conserved: relative dE/dt up to {worst:.1e} at random "
                  f"states (non-conservative forces or affine constraints)")
    elif verdict.zero:
        s.add("dE/dt = 0 along the flow: verified "
              + ("exactly" if verdict.certain else "numerically only (probable)"))
    else:
        s.add("dE/dt =", vE)
        s.add("the energy is NOT conserved (non-conservative forces or affine constraints)")
    return s


def _energy_residual(sys_, E, points: int = 20, seed: int = 1) -> float:
    r"""Largest :math:`|\nabla E\cdot f| / \sum_i|\partial_i E\,f^i|` over random states,
    with :math:`f` the compiled mass-matrix form of the equations (no symbolic inversion)."""
    import numpy as np

    from .numeric import compile_functions, compile_vector_field

    P = sys_.phase_space
    rng = np.random.default_rng(seed)
    eq = sys_.equations(explicit=False)
    dE = [sp.diff(E, c) for c in P.coords]
    worst, done = 0.0, 0
    for _ in range(4):                       # a few random parameter sets, one compile each
        params = {p: float(rng.uniform(0.5, 1.5)) for p in sys_.manifold.parameters}
        f = compile_vector_field(eq.mass_matrix_form(), parameters=params)
        grad = compile_functions(dE, P.coords, params, what="energy gradient")
        for _ in range(3 * points // 4):
            y = rng.uniform(-1.0, 1.0, len(P.coords))
            with np.errstate(all="ignore"):
                terms = np.asarray(grad(y), float) * np.asarray(f(0.0, y), float)
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


def _numeric_defaults(obj):
    """Parameter values and an initial state for the demonstration run."""
    defaults = getattr(obj, "numeric_defaults", None)
    if callable(defaults):
        defaults = defaults()
    if defaults:
        return defaults
    P = obj.phase_space
    chart = getattr(obj, "manifold", P)
    params = {p: 1.0 for p in chart.parameters}
    x0 = {c: round(0.15 * (k + 1), 2) for k, c in enumerate(P.coords)}
    return params, x0


def _simulation_section(obj, t_end: float) -> Section:
    from .numeric import simulate

    s = Section("Simulation")
    params, x0 = _numeric_defaults(obj)
    implicit = hasattr(obj, "equations")      # mass-matrix form, solved numerically
    res = simulate(obj, x0, (0.0, t_end), parameters=params, implicit=implicit)
    s.add(f"parameters: {', '.join(f'{k}={v:g}' for k, v in params.items()) or 'none'}")
    s.add("initial state: " + ", ".join(f"{k}={v:g}" for k, v in x0.items()))
    s.add(f"integrated on [0, {t_end:g}] with {res.nfev} evaluations "
          f"({'ok' if res.success else res.message})")
    for k, v in res.drift.items():
        s.add(f"relative drift of {k}: {v:.2e}")
    return s


def _symmetry_section(sys_) -> Section:
    """Point symmetries in the default ansatz, Theorem 3 check and C-1/C-2 classification."""
    from .mechanics.symmetry import check_symmetry, classify_action, find_point_symmetries

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
    from .mechanics.symmetry import linear_integrals

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
        field = getattr(F, "field", None)
        if field is not None:
            kind = ("also a symmetry field" if getattr(F, "is_symmetry", False)
                    else "not a symmetry field")
            s.add(f"  Noether field u = {field} ({kind})")
    return s


def _measure_section(sys_) -> Section:
    from .mechanics.measure import system_divergence, system_invariant_measure

    s = Section("Invariant measure")
    s.add("divergence of the flow:", system_divergence(sys_))
    res = system_invariant_measure(sys_)
    if res:
        s.add("invariant density (verified exactly: div(rho v) = 0):", res.density)
    else:
        s.add(f"no invariant density: {res.reason}")
    return s


def _hamiltonian_section(sys_) -> Section:
    from .mechanics.hamiltonian import system_pseudo_hamiltonian

    s = Section("Hamiltonian structure")
    form = system_pseudo_hamiltonian(sys_)
    s.add("pseudo-Hamiltonian form x' = J grad H (Prop. 7), H =", form.hamiltonian)
    ok = form.satisfies_jacobi()
    s.add("J satisfies the Jacobi identity: " + ("yes (a Poisson structure)" if ok else
          "no: J is only almost-Poisson, as expected for non-integrable constraints"))
    return s


#: Analysis steps of the mechanics layer: (label, section builder).  They run under the
#: report's time limit; one that exceeds it is reported as not computed, not as a failure.
ANALYSES: list[tuple[str, Callable]] = [
    ("symmetries", _symmetry_section),
    ("first integrals", _integrals_section),
    ("invariant measure", _measure_section),
    ("Hamiltonian structure", _hamiltonian_section),
]


def _extra_sections(sys_) -> list[tuple[str, Callable]]:
    """Issue-4 analyses (symmetries, integrals, measure, Hamiltonian structure)."""
    return [(label, lambda fn=fn: fn(sys_)) for label, fn in ANALYSES]


_ANALYSIS_LABELS = {"symmetries", "first integrals", "invariant measure",
                    "Hamiltonian structure"}


class StepTimeout(BaseException):
    """A report step exceeded its time limit.

    A ``BaseException`` (like ``KeyboardInterrupt``) so that the ``except Exception``
    fall-backs inside the algorithms cannot swallow it.
    """


@contextlib.contextmanager
def _time_limit(seconds: float | None):
    """Raise :class:`StepTimeout` after ``seconds`` (main thread on POSIX; else no limit).

    Limits nest: an inner limit never extends an outer one, and the outer limit keeps
    running (with the time already spent deducted) once the inner block is left."""
    usable = (seconds and hasattr(signal, "SIGALRM")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def handler(signum, frame):
        raise StepTimeout(f"step exceeded the time limit of {seconds:g} s "
                          "(raise it with --step-timeout or --analysis-timeout)")

    outer = signal.getitimer(signal.ITIMER_REAL)[0]
    t0 = time.perf_counter()
    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer) if outer > 0 else seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if outer > 0:   # resume the enclosing limit (fires at once if already past it)
            signal.setitimer(signal.ITIMER_REAL,
                             max(outer - (time.perf_counter() - t0), 1e-3))


def build_report(obj, method: str = "lagrange_dalembert", simulate: bool = True,
                 t_end: float = 5.0, progress: bool = False,
                 step_timeout: float | None = None, analyses: bool = True,
                 analysis_timeout: float | None = 30.0) -> Report:
    """Compute every section of the report of ``obj`` (a system or a catalogue object).

    Parameters
    ----------
    obj : NonholonomicSystem or an object with ``report_sections()``
    method : str
        Form of the equations of motion to print.
    simulate : bool
        Include a short numerical run with the drift of the integrals.
    t_end : float
        Length of that run.
    progress : bool
        Print each step and its time on ``stderr`` as it runs.
    step_timeout : float, optional
        Seconds allowed to each step; a step that exceeds it is reported as failed.
    analyses : bool
        Include the analyses of :data:`ANALYSES` (symmetries, integrals, measure,
        Hamiltonian structure).
    analysis_timeout : float, optional
        Seconds allowed to each analysis; one that exceeds it is reported as not computed.
    """
    rep = Report(getattr(obj, "name", type(obj).__name__))
    steps: list[tuple[str, Callable]] = [("system", lambda: _system_section(obj))]
    if hasattr(obj, "report_sections"):
        steps.append(("analysis", lambda: _sections_from_object(obj)))
    else:
        steps += [
            ("configuration space", lambda: _configuration_section(obj)),
            ("Lagrangian and constraints", lambda: _lagrangian_section(obj)),
            ("constraint geometry", lambda: _geometry_section(obj)),
            ("equations of motion", lambda: _equations_section(obj, method)),
            *([("compact equations", lambda: _compact_section(obj))]
              if getattr(obj, "natural_frame", None) else []),
            ("energy", lambda: _energy_section(obj)),
            *(_extra_sections(obj) if analyses else []),
        ]
    if simulate and hasattr(obj, "phase_space"):
        steps.append(("simulation", lambda: _simulation_section(obj, t_end)))
    elif simulate:
        steps.append(("simulation", lambda: Section("Simulation").add(
            "not run: this object has no numeric phase space (its equations contain "
            "undefined functions or abbreviations; give them explicitly to simulate)")))
    for k, (label, fn) in enumerate(steps, 1):
        if progress:
            print(f"[{k}/{len(steps)}] {label} ...", end="", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        title = label[:1].upper() + label[1:]
        try:
            with _time_limit(analysis_timeout if label in _ANALYSIS_LABELS else step_timeout):
                result = fn()
        except StepTimeout as exc:
            if label in _ANALYSIS_LABELS:
                result = Section(title).add(f"not computed: {exc}")
            else:
                result = Section(title, error=f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # noqa: BLE001 - reported in the section, not hidden
            result = Section(title, error=f"{type(exc).__name__}: {exc}")
        dt = time.perf_counter() - t0
        for sec in result if isinstance(result, list) else [result]:
            sec.seconds = dt
            rep.sections.append(sec)
        if progress:
            print(f" {dt:.2f} s", file=sys.stderr, flush=True)
    return rep


# -- rendering ---------------------------------------------------------------------------

def render(rep: Report, fmt: str = "text") -> str:
    """Render a report; ``fmt`` is ``"text"``, ``"markdown"`` or ``"latex"``."""
    if fmt == "text":
        return _render_text(rep)
    if fmt == "markdown":
        return _render_markdown(rep)
    if fmt == "latex":
        return _render_latex(rep)
    raise ValueError(f"unknown format {fmt!r}; choose 'text', 'markdown' or 'latex'")


def _text_of(obj) -> str:
    if obj is None:
        return ""
    if isinstance(obj, sp.Eq):
        return f"{sp.sstr(obj.lhs)} = {sp.sstr(obj.rhs)}"
    return sp.sstr(obj)


def _render_text(rep: Report) -> str:
    out = [f"geomech report: {rep.name}", "=" * (17 + len(rep.name))]
    for sec in rep.sections:
        out += ["", sec.title, "-" * len(sec.title)]
        if sec.error:
            out.append(f"FAILED: {sec.error}")
        for text, obj in sec.lines:
            out.append(" ".join(p for p in (text, _text_of(obj)) if p))
    return "\n".join(out) + "\n"


def _render_markdown(rep: Report) -> str:
    out = [f"# geomech report: {rep.name}"]
    for sec in rep.sections:
        out += ["", f"## {sec.title}", ""]
        if sec.error:
            out.append(f"**FAILED:** `{sec.error}`")
        for text, obj in sec.lines:
            formula = f" ${sp.latex(obj)}$" if obj is not None else ""
            out.append(f"- {text}{formula}")
    return "\n".join(out) + "\n"


def _tex_escape(s: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("%", r"\%"), ("&", r"\&"),
                 ("#", r"\#"), ("$", r"\$"), ("{", r"\{"), ("}", r"\}")):
        s = s.replace(a, b)
    return s


def _render_latex(rep: Report) -> str:
    out = [r"\documentclass{article}", r"\usepackage{amsmath,amssymb}",
           r"\usepackage[margin=2cm]{geometry}", r"\allowdisplaybreaks",
           rf"\title{{geomech report: {_tex_escape(rep.name)}}}", r"\date{}",
           r"\begin{document}", r"\maketitle"]
    for sec in rep.sections:
        out.append(rf"\section*{{{_tex_escape(sec.title)}}}")
        if sec.error:
            out.append(rf"\textbf{{FAILED:}} \texttt{{{_tex_escape(sec.error)}}}")
        for text, obj in sec.lines:
            if obj is None:
                out.append(_tex_escape(text) + r"\\")
            else:
                if text:
                    out.append(_tex_escape(text))
                out.append(r"\begin{equation*}")
                out.append(sp.latex(obj))
                out.append(r"\end{equation*}")
    out.append(r"\end{document}")
    return "\n".join(out) + "\n"
