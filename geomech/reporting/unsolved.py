r"""The sections of a report that are computed without the dependent velocities in closed form
(a constraint minor over the report's size limit: the Whipple bicycle of Meijaard et al.
(2007)): the geometry of the constraints from exact ranks at exact points
(:mod:`geomech.mechanics.analysis.point_flag`), the symmetries checked on the Lagrangian,
the constraint forms and the configuration constraints
(:mod:`geomech.mechanics.analysis.evident_symmetries`), the energy integral and the
Hamiltonian structure from theorems whose hypotheses are checked exactly, the integrability
count of the Euler-Jacobi-Lie theorem and the integrals near an attracting steady motion
(:mod:`geomech.mechanics.analysis.attracting_family`).  What each section does not decide
it says.
"""

from __future__ import annotations

from geomech.reporting.model import Section

__all__ = ["point_geometry_section", "evident_symmetry_section", "energy_integral_section",
           "almost_poisson_section", "jacobi_by_involutivity", "steady_divergence_section",
           "unsolved_integrability_section"]


def _point_line(F) -> str:
    p = F.points[0]
    shown = ", ".join(f"{k} = {v}" if not isinstance(v, tuple) else
                      f"(cos {k}, sin {k}) = ({v[0]}, {v[1]})" for k, v in p.items())
    solved = ", ".join(F.solved)
    return (f"exact point used: {shown}" + (f" ({solved} solved exactly from h(q) = 0)"
                                            if solved else ""))


def point_geometry_section(sys_) -> Section:
    """Geometry of the constraints from
    :func:`~geomech.mechanics.analysis.point_flag.point_growth_vector` (module docstring)."""
    from geomech.mechanics.analysis.point_flag import point_growth_vector

    s = Section("Geometry of the constraints")
    F = point_growth_vector(sys_, points=3)
    n = sys_.manifold.dim
    s.add(f"constraint distribution D: rank {F.ranks[0]} on the {n}-dimensional "
          f"{sys_.manifold.name}; its Lie flag from exact ranks at {len(F.points)} exact "
          "points (Taylor jets of the constraint matrix, the constraints not solved in closed "
          "form)")
    verdicts = ["certain" if r == b else f"at least {r} (probable: {r} at every point; the "
                f"upper bound {b} is not excluded)" for r, b in zip(F.ranks, F.bounds)]
    s.add(f"growth vector (Lie flag): ({', '.join(map(str, F.ranks))})"
          + ("" if F.certain else " -- probable"))
    for j, (r, v) in enumerate(zip(F.ranks, verdicts), 1):
        s.add(f"  rank D^{j} = {r}: {v}")
    if len(F.ranks) > 1 and F.ranks[1] > F.ranks[0]:
        s.add("D is not involutive (certain: a bracket leaves D at an exact point)")
    elif len(F.ranks) == 1:
        s.add("D is involutive" + (" (certain)" if F.certain else
                                   " at the points (probable)"))
    m = len(sys_.holonomic)
    if m:
        s.add(f"every bracket of fields of D is tangent to the level sets of the "
              f"configuration constraints (dimension {F.level_dimension}): D is not "
              f"bracket-generating on {sys_.manifold.name}")
    if F.ranks[-1] == F.level_dimension:
        where = "the level sets of h" if m else sys_.manifold.name
        s.add(f"D is bracket-generating in {where} at generic points (certain: rank "
              f"{F.level_dimension} at an exact point, hence on an open set): near them "
              "every configuration is reachable (Chow-Rashevskii)")
    for w in F.new_words:
        s.add(f"new direction {w} (at the points)")
    s.add(_point_line(F))
    return s


def evident_symmetry_section(sys_) -> Section:
    """Symmetries from
    :func:`~geomech.mechanics.analysis.evident_symmetries.evident_symmetries`."""
    from geomech.mechanics.analysis.evident_symmetries import evident_symmetries

    s = Section("Symmetries")
    r = evident_symmetries(sys_)
    s.add("candidates: translations of the coordinates absent from L, the constraints and h, "
          "and rotations of a pair of them about an angle (the default ansatz search of the "
          "other reports needs the dependent velocities in closed form)")
    if not r.fields:
        return s.add("no candidate passes the exact checks")
    s.add(f"{len(r.fields)} infinitesimal point symmetries (Theorem 3 checked exactly on TN: "
          "u~(L) = 0, L_u(constraint forms) = 0, u(h) = 0; the prolonged fields are "
          "symmetries of the flow):")
    for u in r.fields:
        s.add("  u =", u)
    how = "certain" if r.rank_certain else "probable (rank at exact points)"
    s.add(f"action relative to the constraints: case {r.case}, m0 = {r.m0} (rank of "
          f"K = alpha(u) is {r.rank}: {how})")
    return s


def energy_integral_section(sys_) -> Section:
    """First integrals: the energy by the theorem of its conservation."""
    from geomech.mechanics.analysis.integrals import energy_theorem_applies

    s = Section("First integrals")
    if not energy_theorem_applies(sys_):
        s.status = "not computed"
        return s.add("not computed: the system has forces or affine constraints, and the "
                     "search for integrals needs the dependent velocities in closed form")
    s.add("energy E = sum_i qdot_i dL/dqdot_i - L: a first integral (theorem: L and the "
          "constraints do not depend on time, the constraints are linear homogeneous and "
          "ideal, no non-potential forces; Neimark & Fufaev (1972), Ch. III §1); the Energy "
          "section checks dE/dt = 0 numerically")
    s.add("integrals linear or polynomial in the velocities: not searched (the search needs "
          "the dependent velocities in closed form)")
    return s


#: the lines of :func:`jacobi_by_involutivity` by the evidence on D: (not involutive, undecided)
_JACOBI_LINES = {
    "frobenius": ("J satisfies the Jacobi identity: no: J is only almost-Poisson -- the "
                  "constraint distribution is not involutive, and the Prop. 7 bracket "
                  "satisfies the Jacobi identity iff the constraints are holonomic (van der "
                  "Schaft & Maschke 1994)",
                  "the Jacobi identity of J was not decided here (the form is not built)"),
    "flag": ("J satisfies the Jacobi identity: no (certain): the bracket of a nonholonomic "
             "system satisfies it iff the constraint distribution is involutive (van der "
             "Schaft & Maschke (1994)), and D is not involutive (Geometry of the "
             "constraints)",
             "the Jacobi identity is not decided: no bracket left D at the exact points"),
}


def jacobi_by_involutivity(sys_, flag=None) -> tuple[bool | None, str]:
    r"""Whether the almost-Poisson bracket :math:`J` of the constrained system satisfies the
    Jacobi identity, by the theorem that it does iff the constraint distribution :math:`D`
    is involutive, i.e. iff the constraints are holonomic (van der Schaft & Maschke (1994),
    Rep. Math. Phys. 34, §4: in the chart :math:`(q, M)` the Jacobiator of
    :math:`(q_i, M_s, M_r)` has the component :math:`d^\mu_{sr}` of
    :math:`[\tau_s, \tau_r]` along each transversal field): ``(False, line)`` when
    :math:`D` is certainly not involutive -- by the rank growth of the point flag ``flag``
    (:func:`~geomech.mechanics.analysis.point_flag.point_growth_vector`) when given, else by
    the Frobenius test of :math:`D` -- and ``(None, line)`` otherwise (not decided here).
    ``line`` is the report's sentence.

    >>> import geomech as gm
    >>> jacobi_by_involutivity(gm.examples.chaplygin_sleigh())[0]
    False
    """
    if flag is not None:
        key, grows = "flag", len(flag.ranks) > 1 and flag.ranks[1] > flag.ranks[0]
    else:
        frob = sys_.constraint_distribution().frobenius()
        key, grows = "frobenius", getattr(frob, "involutive", None) is False
    no, undecided = _JACOBI_LINES[key]
    return (False, no) if grows else (None, undecided)


def almost_poisson_section(sys_, flag=None) -> Section:
    """Hamiltonian structure: the almost-Poisson bracket of the constrained system and the
    Jacobi identity, decided by the involutivity of D (:func:`jacobi_by_involutivity`)."""
    from geomech.mechanics.analysis.point_flag import point_growth_vector
    from geomech.reporting.simulation import has_forces

    s = Section("Hamiltonian structure")
    if has_forces(sys_) or sys_.is_affine:
        s.status = "does not apply"
        return s.add("does not apply: the system has forces or affine constraints")
    F = point_growth_vector(sys_, points=3) if flag is None else flag
    s.add("pseudo-Hamiltonian form x' = J grad H on the constraint manifold, H the energy "
          "(van der Schaft & Maschke (1994)); H and J are not written out: they need the "
          "dependent velocities in closed form")
    holds, line = jacobi_by_involutivity(sys_, F)
    if holds is None:
        s.status = "not computed"
    return s.add(line)



def steady_divergence_section(sys_) -> Section:
    r"""Invariant measure: the obstruction of
    :func:`~geomech.mechanics.analysis.steady_divergence.steady_divergence` -- a non-zero
    divergence at a steady motion excludes
    every continuous positive density invariant under the symmetries that move it."""
    from geomech.mechanics.analysis.evident_symmetries import evident_symmetries
    from geomech.mechanics.analysis.steady_divergence import steady_divergence

    s = Section("Invariant measure")
    try:
        d = steady_divergence(sys_)
    except ValueError as exc:
        s.status = "not computed"
        return s.add(f"not computed: {exc}; the density search needs the dependent "
                     "velocities in closed form")
    moved = {c for u in evident_symmetries(sys_).fields
             for c, a in zip(sys_.manifold.coords, u.components) if a != 0}
    if not d.nonzero or not set(d.cyclic) <= moved:
        s.status = "not computed"
        return s.add("not computed: the divergence at the steady motion does not decide "
                     "(zero, or cyclic coordinates not moved by a verified symmetry); the "
                     "density search needs the dependent velocities in closed form")
    cyc = ", ".join(map(str, d.cyclic))
    s.add(f"divergence of the flow along the steady family '{d.family}' at the default "
          "parameters (exact: the trace of the linearisation, mass-matrix form):",
          d.divergence)
    s.add(f"no invariant measure with a continuous positive density independent of the "
          f"cyclic coordinates ({cyc}), i.e. invariant under the symmetries (certain, at the "
          "default parameters): along the steady motion such a density is constant, and "
          "Liouville's equation div(rho v) = rho div v + v(rho) = 0 would need div v = 0 "
          "(Kozlov (1988))")
    s.add("densities depending on the cyclic coordinates are not excluded; the density "
          "search of the other reports needs the dependent velocities in closed form")
    return s


def unsolved_integrability_section(sys_, why: str) -> Section:
    """Integrability from what is known without the dependent velocities in closed form
    (``why``: why they are not): the count of the Euler-Jacobi-Lie theorem
    (:func:`~geomech.mechanics.analysis.attracting_family.quadrature_count`) and the
    integrals near an attracting steady motion
    (:func:`~geomech.mechanics.analysis.attracting_family.attracting_steady_motion`)."""
    from geomech.mechanics.analysis.attracting_family import (
        attracting_steady_motion,
        quadrature_count,
    )
    from geomech.mechanics.analysis.evident_symmetries import evident_symmetries

    s = Section("Integrability")
    c = quadrature_count(sys_, evident_symmetries(sys_).fields)
    s.add("verdict: undecided" + ("" if c.short_with_measure > 0 else
                                   " (the count is not short; the theorem's conditions are "
                                   "not checked here)"))
    m = len(sys_.holonomic)
    s.add(f"the flow lives on the level h = 0 in the phase space: n = "
          f"{sys_.phase_space.dim}{f' - {m}' if m else ''} = {c.n}")
    s.add(f"known: k = {c.k} first integral{'s' * (c.k != 1)} (the energy, First integrals) "
          f"and s = {c.s} independent point symmetry fields (Symmetries); {why}, so "
          "integrals polynomial in the velocities and the default symmetry ansatz are not "
          "searched")
    if c.short_with_measure > 0:
        s.add(f"the Euler-Jacobi-Lie theorem (Kozlov 2002) does not apply with what is known: "
              f"it needs k + s = n - 2 = {c.n - 2} with an invariant measure, k + s = n - 1 = "
              f"{c.n - 1} without, and k + s = {c.k + c.s} ({c.short_with_measure} short even "
              "with a measure)")
    a = attracting_steady_motion(sys_)
    if a is not None:
        cyc = ", ".join(map(str, a.cyclic))
        s.add(f"near the steady motion '{a.family}' at {a.constant} = {a.value} (default "
              f"parameters): every first integral continuous there and independent of the "
              f"cyclic coordinates ({cyc}) is a function of the energy (certain: the motion is "
              "asymptotically stable with one semisimple zero root, the family's, so every "
              "nearby motion tends to a member of the family (Lyapunov-Malkin theorem; Malkin "
              "(1952), Ch. IV), and the energy separates the members: "
              f"dE/d{a.constant} = {a.slope} != 0 there)")
        s.add("so the integrals missing from the count, if any, depend on the cyclic "
              "coordinates or are not continuous near that motion; symmetry fields other "
              "than the point symmetries found may also complete it")
    s.add("non-integrability is not proved: a count that falls short decides nothing")
    return s
