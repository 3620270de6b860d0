r"""The sections of a report and the steps that compute them: the system, its configuration
space, Lagrangian and constraint geometry, equations of motion, energy or power balance, the
analyses (:data:`ANALYSES`: symmetries, integrals, invariant measure, Hamiltonian structure)
and a short simulation (the Energy section is :mod:`geomech.reporting.energy`).  Each step
runs under a cooperative time limit (:func:`~geomech.reporting.limits.run_limited`);
:func:`run_step` turns a time-out or an error into a section.

>>> first_sentence("Board with :math:`\\varphi_b = 0`. More text.")
'Board with φ_b = 0.'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy as sp

from geomech.core.budget import BudgetExceeded, check
from geomech.core.opcount import count_ops
from geomech.numeric.constrained import SYMBOLIC_SOLVE_OPS, constraint_minor_ops
from geomech.reporting.constrained import (
    constrained_energy_section,
    constrained_equations_section,
)
from geomech.reporting.energy import energy_section
from geomech.reporting.figures import figures_section
from geomech.reporting.integrability import integrability_section
from geomech.reporting.limits import PRINT_OPS_LIMIT, run_limited
from geomech.reporting.model import Section
from geomech.reporting.simulation import has_forces, simulation_run
from geomech.reporting.stability import stability_section
from geomech.reporting.unsolved import (
    almost_poisson_section,
    energy_integral_section,
    evident_symmetry_section,
    jacobi_by_involutivity,
    point_geometry_section,
    steady_divergence_section,
    unsolved_integrability_section,
)

__all__ = ["ANALYSES", "Step", "report_steps", "run_step", "timed_out", "first_sentence",
           "unsolved_constraints"]

#: the former private name of :func:`~geomech.reporting.energy.energy_section`
_energy_section = energy_section

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


def _system_section(obj, omitted: tuple[str, ...] = ()) -> Section:
    s = Section("System")
    s.add(f"name: {getattr(obj, 'name', type(obj).__name__)}")
    desc = getattr(obj, "description", "") or ""
    if desc:
        s.add(first_sentence(desc))
    source = getattr(obj, "source", None)
    if isinstance(source, str):
        s.add(f"model file: {source}")
    for what in omitted:
        s.add(f"not in this report, as asked: {what}")
    for c, h in zip(getattr(obj, "dependent_coordinates", ()), getattr(obj, "holonomic", ())):
        s.add(f"{c} is a dependent coordinate: defined implicitly by the holonomic "
              f"(configuration) constraint h(q) = 0 ({count_ops(h)} operations), solved for "
              f"{c} where a state omits it; it stays a coordinate of the phase space")
    heavy = unsolved_constraints(obj)
    if heavy:
        s.add(f"a large system: {heavy}")
    return s


#: constraint minors (the dependent columns of the constraint matrix) larger than this many
#: operations are not solved symbolically by the report (the Whipple bicycle: 5665); the
#: threshold of ``simulate(..., solve_constraints="auto")``,
#: :data:`geomech.numeric.constrained.SYMBOLIC_SOLVE_OPS`
SOLVE_OPS: int = SYMBOLIC_SOLVE_OPS


def unsolved_constraints(obj) -> str | None:
    """Why the report does not solve the constraints of ``obj`` symbolically for its
    dependent velocities (a minor over :data:`SOLVE_OPS` operations), or ``None``.  The
    sections that need that solution -- the dependent velocities as expressions, the
    constraint distribution, the analyses on the phase space -- are then reported as not
    computed; the equations of motion and the energy are shown in the form that needs no
    closed-form solution (:mod:`geomech.reporting.constrained`), the simulation solves the
    constraints numerically at each step (``simulate(..., solve_constraints="auto")``), and
    the linearisation and the stability of steady motions work from the data at a point."""
    n = constraint_minor_ops(obj)
    if n <= SOLVE_OPS:
        return None
    return (f"the constraints are not solved symbolically for the dependent velocities "
            f"{', '.join(map(str, obj.dependent_velocities))} here (their minor has {n} "
            f"operations, over the report's {SOLVE_OPS})")


def _unsolved_section(title: str, why: str) -> Section:
    return Section(title, status="not computed").add(
        f"not computed: {why}; this section needs them in closed form")


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
    heavy = unsolved_constraints(sys_)
    if sys_.constraints and heavy:
        s.add(f"dependent velocities: {heavy}")
    elif sys_.constraints:
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


def _equations_section(sys_, method: str) -> Section:
    """The equations; heavy systems (rolling ellipsoid) are shown in mass-matrix form
    :math:`Mz = F` (their explicit form :math:`z = M^{-1}F`, ``S.equations(method).rhs``, has
    tens of thousands of operations; the numerics never need it)."""
    s = Section(f"Equations of motion ({method.replace('_', '-')})")
    eq = sys_.equations(method, explicit=False)           # no symbolic inversion yet
    imp = eq.mass_matrix_form()
    n_ops = imp.count_ops()
    if n_ops > PRINT_OPS_LIMIT:
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
    """The explicit equations in the natural quasi-velocities (``system.natural_frame``); the
    count after ``sympy.cse`` only for right-hand sides of at most :data:`PRINT_OPS_LIMIT`
    operations (the rolling ellipsoid's 36898: 1.2 s for a number)."""

    ce = sys_.compact_equations(frame="natural")
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
    raw = ce.count_ops("raw")
    cse = f", {ce.count_ops('cse')} after CSE" if raw <= PRINT_OPS_LIMIT else ""
    s.add(f"operation count: {ce.count_ops('abbreviated')} with the abbreviations, "
          f"{raw} written out{cse}")
    return s


def _sections_from_object(obj) -> list[Section]:
    out = []
    for title, text in obj.report_sections():
        sec = Section(title)
        for line in str(text).splitlines():
            sec.add(line)
        out.append(sec)
    return out


def _flow_section(obj) -> Section:
    r"""The flow :math:`\dot x = X(x)` of an object that reports itself (the so(n) rigid body,
    Shamolin's pendulum), as formulas: its own sections are text."""
    V = obj.vector_field()
    s = Section("Equations of the flow")
    s.add(f"phase space {V.manifold.name}, coordinates", sp.Tuple(*V.manifold.coords))
    for c, comp in zip(V.manifold.coords, V.components):
        check()
        s.add("", sp.Eq(sp.Symbol(f"{c.name}'"), comp, evaluate=False))
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
        s.add("  u =", u)
    checks = check_symmetry(sys_, list(fields))
    s.add("prolonged fields commute with the flow: "
          + ", ".join("yes" if c.is_symmetry else "no" for c in checks))
    cls = classify_action(sys_, fields)
    s.add(f"action relative to the constraints: case {cls.case}, m0 = {cls.m0}")
    return s


def _integrals_section(sys_) -> Section:
    """Linear (Noether / Kozlov–Kolesnikov) integrals, each verified along the flow."""
    from geomech.mechanics.analysis.noether import linear_integrals

    s = Section("First integrals")
    s.add("energy: see the Energy section")
    found = linear_integrals(sys_)
    if not found:
        return s.add("no integral linear in the velocities in the default ansatz (constant "
                     "coefficients; integrals with function coefficients and polynomial "
                     "integrals: see the Integrability section)")
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
            s.add(f"  Noether field ({kind}): u =", fld)
    return s


def _measure_section(sys_) -> Section:
    from geomech.mechanics.analysis.measure import (
        large_heavy_form,
        large_ring_divergence,
        system_divergence,
        system_divergence_vanishes,
        system_invariant_measure,
    )

    s = Section("Invariant measure")
    big = large_heavy_form(sys_)
    ring = None if big is not None else large_ring_divergence(sys_, PRINT_OPS_LIMIT)
    div = None if big is not None or ring is not None else system_divergence(sys_)
    n_ops = 0 if div is None else count_ops(div)
    if big is not None:
        s.add(f"divergence of the flow: not written out (the {big.method} mass-matrix form has "
              f"{big.count_ops()} operations; it is evaluated at exact points; "
              "geomech.mechanics.analysis.measure.system_divergence(S) writes it out)")
    elif ring is not None:          # over PRINT_OPS_LIMIT operations written out
        deg = [max(map(sum, p.itermonoms())) for p in (ring.num, ring.den)]
        s.add(f"divergence of the flow: not printed (over {PRINT_OPS_LIMIT} operations; in the "
              f"radical ring a fraction whose numerator has {len(ring.num)} terms of total "
              f"degree {deg[0]} and denominator {len(ring.den)} terms of total degree {deg[1]} "
              "in the symbols, sines, cosines and the square root; "
              "geomech.mechanics.analysis.measure.system_divergence(S) writes it out)")
    elif n_ops > PRINT_OPS_LIMIT:
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
    elif res.reason.startswith("not searched"):
        s.add(f"the default density family was {res.reason}")
    else:
        family = getattr(res, "family", "") or "default"
        s.add(f"no invariant density in the family searched -- {family}: {res.reason}; a "
              "density outside this family is not excluded")
    return s


def _hamiltonian_section(sys_) -> Section:
    from geomech.mechanics.analysis.pseudo_hamiltonian import (
        FormTooLarge,
        system_pseudo_hamiltonian,
    )

    s = Section("Hamiltonian structure")
    if has_forces(sys_) or getattr(sys_, "is_affine", False):
        s.status = "does not apply"
        why = "non-potential forces" if has_forces(sys_) else "affine constraints"
        return s.add(f"does not apply: the system has {why}; the pseudo-Hamiltonian form "
                     "x' = J grad H needs potential forces and homogeneous constraints")
    try:
        form = system_pseudo_hamiltonian(sys_)
    except FormTooLarge as exc:
        return _implicit_hamiltonian_section(sys_, exc)
    s.add("pseudo-Hamiltonian form x' = J grad H (Prop. 7), H =", form.hamiltonian)
    ok = form.satisfies_jacobi()
    s.add("J satisfies the Jacobi identity: " + ("yes (a Poisson structure)" if ok else
          "no: J is only almost-Poisson, as expected for non-integrable constraints"))
    return s


def _implicit_hamiltonian_section(sys_, exc: Exception) -> Section:
    r"""The Hamiltonian structure of a system whose expanded inverse Legendre map is too large
    (``exc``): :math:`H = \tfrac12(p-h)^{\mathsf T}K^{-1}(p-h) - L_0` with :math:`K^{-1}` left
    unexpanded (:func:`~geomech.mechanics.analysis.pseudo_hamiltonian.implicit_hamiltonian`),
    and the Jacobi identity decided by the Frobenius test of the constraint distribution
    (:func:`~geomech.reporting.unsolved.jacobi_by_involutivity`)."""
    from geomech.mechanics.analysis.pseudo_hamiltonian import (
        implicit_hamiltonian,
    )

    try:
        K, h, L0, p = implicit_hamiltonian(sys_)
    except ValueError as err:
        return Section("Hamiltonian structure", status="not computed").add(
            f"not computed: {exc}; the implicit form: {err}")
    s = Section("Hamiltonian structure")
    P, H = sp.Matrix(p), sp.Symbol("H")
    s.add(f"pseudo-Hamiltonian form x' = J grad H (Prop. 7, graph frame) with the inverse "
          f"Legendre map omega = K^-1 (p - h) left unexpanded ({exc}):")
    quad = sp.MatMul(sp.Rational(1, 2), (P - h).T,
                     sp.Inverse(sp.MatrixSymbol("K", *K.shape)), P - h)
    s.add("", sp.Eq(H, quad, evaluate=False))
    if L0 != 0:
        s.add("minus L0 =", L0)
    big = max(count_ops(e) for e in K)
    if big > PRINT_OPS_LIMIT:
        s.add(f"K = T^T G T ({K.rows} x {K.cols}; G = d2L/dqdot2, T the graph frame): an entry "
              f"has {big} operations, not printed (geomech.mechanics.analysis."
              "pseudo_hamiltonian.implicit_hamiltonian(S) returns it)")
    else:
        s.add("K =", K)
    if any(e != 0 for e in h):
        s.add("h =", h)
    s.add(jacobi_by_involutivity(sys_)[1])
    return _jacobiator_witness(s, sys_)


def _jacobiator_witness(s: Section, sys_) -> Section:
    """The line of an exact non-zero Jacobiator component of the implicit form
    (:func:`~geomech.mechanics.analysis.pseudo_hamiltonian.implicit_jacobiator`), if any."""
    from geomech.core.zero.values import OutsideRing
    from geomech.mechanics.analysis.pseudo_hamiltonian import implicit_jacobiator

    try:
        pt, ang, vals = implicit_jacobiator(sys_)
    except (ValueError, OutsideRing):
        return s
    if not vals:
        return s
    (i, j, k), _ = next(iter(vals.items()))
    where = ", ".join([f"{x} = {v}" for x, v in pt.items()]
                      + [f"(cos {a}, sin {a}) = ({c}, {si})" for a, (c, si) in ang.items()])
    return s.add(f"  confirmed exactly: the Jacobiator component Jac({i}, {j}, {k}) = "
                 f"sum_l (J^il d_l J^jk + cyclic), evaluated in Q(sqrt d) with K^-1 "
                 f"unexpanded, is non-zero at the point {where} ({len(vals)} components "
                 "non-zero there)")


#: Analysis steps of the mechanics layer: (label, section builder).  They run under the
#: report's analysis time limit; one that exceeds it is reported as not computed.
ANALYSES: list[tuple[str, Callable]] = [
    ("symmetries", _symmetry_section),
    ("first integrals", _integrals_section),
    ("invariant measure", _measure_section),
    ("Hamiltonian structure", _hamiltonian_section),
    ("steady motions and stability", stability_section),
    ("integrability", integrability_section),
]


@dataclass(frozen=True)
class Step:
    label: str
    fn: Callable
    kind: str = "step"        # "step" or "analysis": which time limit and option apply


#: What the report leaves out when asked, as the System section says it.
OMITTED = {"simulation": "the simulation (--no-simulation, simulation=False)",
           "analyses": "the analyses -- symmetries, first integrals, invariant measure, "
                       "Hamiltonian structure, integrability (--no-analyses, "
                       "analyses=False)"}


def report_steps(obj, method: str, simulate: bool, t_end: float, analyses: bool,
                 parameters: Mapping | None, figures: bool = False) -> list[Step]:
    """The steps of the report of ``obj``, in order (the compact form first); ``figures``
    adds the Figures step (:mod:`geomech.reporting.figures`) after the simulation."""
    omitted = tuple(OMITTED[k] for k, on in (("simulation", simulate), ("analyses", analyses))
                    if not on and (k == "simulation" or not hasattr(obj, "report_sections")))
    steps = [Step("system", lambda: _system_section(obj, omitted))]
    if hasattr(obj, "report_sections"):
        steps.append(Step("analysis", lambda: _sections_from_object(obj)))
        if callable(getattr(obj, "vector_field", None)):
            steps.append(Step("equations of the flow", lambda: _flow_section(obj)))
    else:
        steps += _system_steps(obj, method, analyses)
    runs: dict = {}
    if simulate and (hasattr(obj, "phase_space") or callable(getattr(obj, "demonstration",
                                                                         None))):
        steps.append(Step("simulation", lambda: _simulation_step(obj, t_end, parameters, runs)))
    elif simulate:
        steps.append(Step("simulation", lambda: Section("Simulation").add(
            "not run: this object has no numeric phase space (its equations contain "
            "undefined functions or abbreviations; give them explicitly to simulate)")))
    if figures:
        steps.append(Step("figures", lambda: _figures_step(obj, runs, simulate, analyses)))
    return steps


def _system_steps(obj, method: str, analyses: bool) -> list[Step]:
    """The steps of a nonholonomic system; those needing the constraints solved in closed
    form are not computed for a large system (:func:`unsolved_constraints`)."""
    steps = [Step("configuration space", lambda: _configuration_section(obj)),
             Step("Lagrangian and constraints", lambda: _lagrangian_section(obj)),
             Step("constraint geometry", lambda: _geometry_section(obj))]
    if getattr(obj, "natural_frame", None):
        steps.append(Step("compact equations", lambda: _compact_section(obj)))
    steps += [Step("equations of motion", lambda: _equations_section(obj, method)),
              Step("energy", lambda: energy_section(obj))]
    if analyses:
        steps += [Step(label, lambda fn=fn: fn(obj), "analysis") for label, fn in ANALYSES]
    heavy = unsolved_constraints(obj)
    if not heavy:
        return steps
    keep = {"configuration space", "Lagrangian and constraints", "steady motions and stability"}
    numeric = {"equations of motion": lambda: constrained_equations_section(obj, method),
               "energy": lambda: constrained_energy_section(obj),
               "constraint geometry": lambda: point_geometry_section(obj),
               "symmetries": lambda: evident_symmetry_section(obj),
               "first integrals": lambda: energy_integral_section(obj),
               "Hamiltonian structure": lambda: almost_poisson_section(obj),
               "invariant measure": lambda: steady_divergence_section(obj),
               "integrability": lambda: unsolved_integrability_section(obj, heavy)}
    titles = {"constraint geometry": "Geometry of the constraints"}
    return [st if st.label in keep else Step(st.label, numeric[st.label], st.kind)
            if st.label in numeric
            else Step(st.label, lambda st=st: _unsolved_section(
                titles.get(st.label, st.label[:1].upper() + st.label[1:]), heavy), st.kind)
            for st in steps]


def _simulation_step(obj, t_end: float, parameters, runs: dict) -> Section:
    """The Simulation section; the run is kept in ``runs`` for the Figures step.  An object
    without a numeric phase space (undefined functions in its equations) may offer
    ``demonstration() -> (model, sentence)``: a model with explicit functions, run instead,
    and the sentence saying which functions (e.g.
    :meth:`~geomech.mechanics.models.shamolin.ShamolinPendulum.demonstration`)."""
    model, note = (obj, "") if hasattr(obj, "phase_space") else obj.demonstration()
    sec, runs["run"] = simulation_run(model, t_end, parameters)
    if note:
        sec.lines[:0] = [(note, None), ("the flow of this run:", None),
                         *_flow_section(model).lines[1:]]
    return sec


def _figures_step(obj, runs: dict, simulate: bool, analyses: bool) -> list[Section]:
    """The Figures section; without a run and without a figure, none (the System section
    says that the simulation was left out); without a run and without the analyses, none
    (the only figure left, the stability diagram, belongs to the analyses)."""
    if "run" in runs:
        return [figures_section(obj, runs["run"])]
    if not simulate and not analyses:
        return []
    if not simulate:
        sec = figures_section(obj, None)
        return [sec] if sec.figures else []
    why = ("the system was not simulated (see the Simulation section)"
           if not hasattr(obj, "phase_space") else "the simulation did not complete")
    return [figures_section(obj, None, reason=why)]


def timed_out(title: str, exc: BudgetExceeded, kind: str, label: str = "") -> Section:
    """The section of step ``label`` stopped by a limit: which limit it met (the analysis or
    the step time limit, or a limit of the step's own, named by ``exc.label``) and the
    option raising it."""
    opt = ("--analysis-timeout (analysis_timeout=)" if kind == "analysis"
           else "--step-timeout (step_timeout=)")
    own = exc.label.split(";")[0] == label
    which = ("analysis " if kind == "analysis" else "step ") if own else ""
    limit = (f"work limit of {exc.steps} steps" if exc.steps is not None
             else f"{which}time limit of {exc.seconds:g} s")
    where = exc.label[len(label) + 2:] if own else exc.label
    return Section(title, status="not computed").add(
        f"not computed: the {limit} was reached{f' ({where})' if where else ''}; raise it "
        f"with {opt} to compute this section")


def run_step(step: Step, limit: float | None) -> list[Section]:
    title = step.label[:1].upper() + step.label[1:]
    try:
        result = run_limited(step.fn, limit, step.label)
    except BudgetExceeded as exc:
        result = timed_out(title, exc, step.kind, step.label)
    except Exception as exc:  # noqa: BLE001 - reported in the section, not hidden
        result = Section(title, error=f"{type(exc).__name__}: {exc}")
    return result if isinstance(result, list) else [result]


