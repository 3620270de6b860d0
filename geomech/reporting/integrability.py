r"""The "Integrability" section of a report: the verdict of ``S.integrability()`` (the
theorem applied, the invariant measure, the integrals and symmetry fields used, the
quadratures, or what is missing), the Hamiltonised form when Chaplygin's reducing multiplier
was found, and what the literature says about the system (:data:`LITERATURE`).

>>> import geomech as gm
>>> sec = integrability_section(gm.examples.chaplygin_sleigh(a=0))
>>> sec.title, str(sec.lines[0][0])
('Integrability', 'verdict: integrable by quadratures')
"""

from __future__ import annotations

from geomech.core.opcount import count_ops
from geomech.reporting.limits import PRINT_OPS_LIMIT
from geomech.reporting.model import Section

__all__ = ["integrability_section", "literature", "LITERATURE"]


_HEAVY_TOP = (
    "Heavy rigid body: integrable (Liouville) in the cases of Euler (1758) (r0 = 0), Lagrange "
    "(1788) (I1 = I2, r0 on the symmetry axis) and Kovalevskaya (1889) (I1 = I2 = 2 I3, r0 in "
    "the equatorial plane: a quartic integral), and on the level (I omega, gamma) = 0 in the "
    "Goryachev-Chaplygin case (I1 = I2 = 4 I3: a cubic integral; Goryachev 1900, Chaplygin "
    "1901); Husson (1906) proved that no other case has an additional algebraic integral, "
    "Ziglin (1983) the absence of an analytic one for large sets of parameters; the generic "
    "top is chaotic (Borisov & Mamaev 2005).")


#: What the literature says about each catalogue system (by ``S.name``): integrability, the
#: invariant measure, the integrals, Hamiltonisation, with the papers (author, year).
LITERATURE: dict[str, str] = {
    "chaplygin_ball": (
        "Chaplygin (1903): the balanced, dynamically asymmetric ball rolling without slipping "
        "has an invariant measure and the integrals energy, area (K, gamma) and |K|^2 (K the "
        "angular momentum about the contact point), so it is integrable by quadratures "
        "(Euler-Jacobi); Borisov & Mamaev (2001) showed it Hamiltonian after a change of "
        "time (Chaplygin's reducing multiplier at zero area constant)."),
    "routh_sphere": (
        "Routh (1884): the dynamically symmetric, unbalanced ball on a plane has, besides the "
        "energy, Jellett's integral (1872) (I omega, r) and Routh's integral; with the "
        "invariant measure it is integrable by quadratures (Borisov & Mamaev 2002; Borisov, "
        "Mamaev & Kilin 2002)."),
    "rolling_disk": (
        "Chaplygin (1897), Appell (1900), Korteweg (1899): the disk rolling without slipping "
        "on a plane has, besides the energy, two integrals linear in the velocities with "
        "coefficients given by hypergeometric (Legendre) functions of cos theta; with the "
        "invariant measure it is integrable by quadratures (Borisov, Mamaev & Kilin 2002)."),
    "hoop": (
        "The hoop (thin ring) is the rolling disk with C = 2A: Chaplygin's (1897) two linear "
        "integrals with hypergeometric coefficients and the energy; integrable by quadratures "
        "(Borisov, Mamaev & Kilin 2002)."),
    "sharp_edge_body": (
        "Borisov & Mamaev (2015), §6.1: the body with a sharp edge on ice has three linear "
        "Noether integrals (one with logarithms) and the energy; the motion reduces to a "
        "quadrature in theta."),
    "suslov": (
        "Suslov (1902): a rigid body with omega3 = 0 in body axes.  When the constraint "
        "direction is a principal axis (I13 = I23 = 0) the flow preserves a measure and is "
        "integrable; Kozlov (1985) showed that otherwise there is no invariant measure and "
        "almost every solution tends to a steady rotation (Borisov & Mamaev 2015, §3)."),
    "veselova": (
        "Veselova (1986), Veselov & Veselova (1986): the rigid body whose angular velocity is "
        "orthogonal to a fixed direction has an invariant measure and, besides the energy, "
        "a quadratic integral; it is integrable by quadratures (Euler-Jacobi) and "
        "Hamiltonised by a change of time (Fedorov & Jovanovic 2004)."),
    "free_rigid_body": (
        "Euler (1758): the free rigid body is integrable (the energy and |I omega|^2, the "
        "Liouville theorem; elliptic functions, Jacobi 1849)."),
    "heavy_top": _HEAVY_TOP,
    "rubber_ball": (
        "Borisov & Mamaev (2007), Ehlers & Koiller (2007): the rubber ball (no slipping, no "
        "spinning) on a plane has an invariant measure and is integrable; in a generic "
        "potential it has no further integral and shows chaos (Borisov & Mamaev 2015, "
        "§4.6)."),
    "rattleback": (
        "Walker (1896), Kane & Levinson (1982): the rattleback -- a body whose principal axes "
        "of inertia are turned against the axes of curvature at its rest point -- rolling "
        "without slipping reverses its spin.  Borisov & Mamaev (2003), \"Strange attractors "
        "in rattleback dynamics\" (Physics-Uspekhi 46): besides the energy it has no known "
        "integral (Jellett's and Routh's integrals belong to bodies of revolution), it has "
        "no invariant measure, and its reduced flow has strange attractors: it is not "
        "integrable."),
    "chaplygin_sleigh": (
        "Chaplygin (1911), Caratheodory (1933): the sleigh has the energy and a linear "
        "integral and is integrable; with the centre of mass off the blade (a != 0) it has "
        "no invariant measure and the motion tends to a straight line (Borisov & Mamaev "
        "2015, §2)."),
}


def literature(system) -> str:
    """What :data:`LITERATURE` says about ``system`` (``""`` when nothing is recorded).

    >>> import geomech as gm
    >>> literature(gm.examples.routh_sphere()).startswith("Routh (1884)")
    True
    """
    return LITERATURE.get(getattr(system, "name", ""), "")


def _expr_line(s: Section, label: str, e) -> None:
    if e is None:
        s.add(f"{label}: defined numerically (a linear ODE and its initial data)")
    elif count_ops(e) > PRINT_OPS_LIMIT:
        s.add(f"{label}: {count_ops(e)} operations (not printed)")
    else:
        s.add(f"{label}:", e)


def _no_measure(sys_) -> str:
    """Why the verdict has no invariant measure: none in the family searched, or the family
    not searched (its reason in the Invariant measure section)."""
    try:
        reason = getattr(sys_.invariant_measure(), "reason", "")
    except (ValueError, NotImplementedError, TypeError):
        reason = ""
    if reason.startswith("not searched"):
        return "the default density family was not searched (see the Invariant measure section)"
    return "none found in the family searched"


def integrability_section(sys_) -> Section:
    """The Integrability section (module docstring)."""
    s = Section("Integrability")
    v = sys_.integrability()
    head = {True: "integrable by quadratures", None: "undecided", False: "not integrable"}
    s.add(f"verdict: {head[v.integrable]}")
    if v.theorem:
        s.add(f"theorem: {v.theorem}")
    if v.measure is None:
        s.add(f"invariant measure: {_no_measure(sys_)}")
    else:
        s.add("invariant density:", v.measure)
    s.add(f"{len(v.integrals)} functionally independent first integrals "
          f"(phase space of dimension {v.dimension}):")
    for F in v.integrals:
        _expr_line(s, f"  {F.kind} [{F.verified}]", F.expr)
    if v.symmetries:
        s.add(f"{len(v.symmetries)} symmetry field(s) tangent to the levels:")
        for u in v.symmetries:
            s.add("  u =", u)
    for q in v.quadratures:
        s.add(f"quadrature: {q}")
    if v.missing:
        s.add(f"missing: {v.missing}")
    ham = v.hamiltonisation
    if ham is not None:
        s.add("Chaplygin's reducing multiplier N (Hamiltonian in the time dtau = N dt):",
              ham.multiplier)
        if getattr(ham, "new_hamiltonian", None) is not None:
            s.add("Hamiltonised form, H~(z, p~) =", ham.new_hamiltonian)
    text = literature(sys_)
    if text:
        s.add(f"literature: {text}")
    return s
