r"""Integrability by quadratures: the verdict drawn from an invariant measure, first integrals
and symmetry fields (``S.integrability()``).

For :math:`\dot x = v(x)` on an :math:`n`-dimensional phase space with :math:`k` functionally
independent first integrals :math:`F_1..F_k`:

* **Euler--Jacobi theorem** (Jacobi's last multiplier): with an invariant measure and
  :math:`k = n - 2`, the flow on every two-dimensional common level has an integrating factor,
  and the motion is found by quadratures (Kozlov 2002, §1; Borisov & Mamaev 2015, §1.3);
* **Euler--Jacobi--Lie theorem** (Kozlov 2002, §2): with symmetry fields :math:`u_1..u_s`
  tangent to the common levels, commuting with :math:`v`, spanning with :math:`v` a solvable
  Lie algebra and independent of :math:`v` on the levels, the motion is found by quadratures
  when :math:`k + s = n - 1`, or :math:`k + s = n - 2` with an invariant measure preserved by
  the :math:`u_i` (the Euler--Jacobi theorem is :math:`s = 0`; Lie's theorem :math:`k = 0`);
  the quadratures of the symmetry directions are Lie's triangular system
  (:func:`~geomech.lie.reduction.reconstruct`, through the bracket graph);
* **Chaplygin's reducing multiplier** (Chaplygin 1911): a two-degree-of-freedom reduced system
  with a multiplier :math:`N` becomes Hamiltonian in the time :math:`d\tau = N\,dt`
  (:func:`~geomech.mechanics.analysis.multiplier.system_is_conformally_hamiltonian`); its
  Hamiltonian form is reported beside the verdict.

The measure is ``S.invariant_measure()``, the integrals ``S.first_integrals()`` (raised to
degree 4 in the algebraic variables of a natural frame when not enough are found: the
Kovalevskaya top), the symmetries the point symmetries in the default ansatz (Theorem 3)
lifted to the phase space.  Independence is decided by numerical ranks at random points
(probable); tangency and preservation of the measure exactly by the zero policy.  When the
conditions are met, ``integrable`` is ``True``; otherwise ``None`` with what is ``missing``
(non-integrability is not proved here: ``False`` is never returned by the search).

>>> import geomech as gm
>>> v = gm.examples.chaplygin_sleigh(a=0).integrability()
>>> v.integrable, v.theorem.split(":")[0]
(True, 'Euler-Jacobi-Lie theorem (Kozlov 2002)')
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from geomech.core.budget import check, poll
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.lie.prolongation import prolong
from geomech.mechanics.analysis.common import check_system
from geomech.mechanics.analysis.first_integrals import (
    FLOW_OPS_LIMIT,
    FirstIntegral,
    flow_ops,
    independent_integrals,
    polynomial_search_skipped,
    system_first_integrals,
)
from geomech.mechanics.analysis.level_quadratures import explicit_quadratures
from geomech.mechanics.analysis.linear_odes import is_elementary

__all__ = ["IntegrabilityVerdict", "system_integrability"]


@dataclass(frozen=True)
class IntegrabilityVerdict:
    r"""The outcome of ``S.integrability()``.

    Attributes
    ----------
    integrable : bool or None
        ``True`` when a theorem applies, ``None`` when undecided (see ``missing``).
    theorem : str
        The theorem applied (with its conditions), or ``""``.
    measure : expression or None
        The invariant density used (on the phase space).
    integrals : tuple of FirstIntegral
        The functionally independent integrals found.
    symmetries : tuple of VectorField
        The symmetry fields used (on the configuration space; their lifts are tangent to
        the levels of the integrals).
    quadratures : tuple of QuadratureStep
        The explicit quadratures: Lie's triangular system of the symmetry directions, and for
        a single shape variable :math:`\sigma`, :math:`t = \int d\sigma/\sqrt{R(\sigma)}`.
    missing : str
        What is lacking when undecided.
    dimension : int
        :math:`n`, the dimension of the phase space.
    hamiltonisation : object or None
        Chaplygin's reducing multiplier when one was found (``.multiplier``,
        ``.new_hamiltonian``).
    """

    integrable: bool | None
    theorem: str
    measure: sp.Expr | None
    integrals: tuple
    symmetries: tuple
    quadratures: tuple
    missing: str
    dimension: int
    hamiltonisation: object | None = None
    notes: tuple = field(default=())

    def __str__(self) -> str:
        head = {True: "integrable by quadratures", None: "undecided",
                False: "not integrable"}[self.integrable]
        lines = [f"{head} (phase space of dimension {self.dimension})"]
        if self.theorem:
            lines.append(f"  theorem: {self.theorem}")
        lines.append("  invariant measure: " + ("none found" if self.measure is None
                                               else f"density {sp.sstr(self.measure)}"))
        lines.append(f"  {len(self.integrals)} independent first integrals:")
        lines += [f"    {F.kind} [{F.verified}]" for F in self.integrals]
        lines.append(f"  {len(self.symmetries)} symmetry fields: "
                     + ", ".join(str(u.components) for u in self.symmetries))
        lines += [f"  quadrature: {q}" for q in self.quadratures]
        if self.missing:
            lines.append(f"  missing: {self.missing}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# the ingredients
# ---------------------------------------------------------------------------------------
def _measure(system) -> tuple[sp.Expr | None, str]:
    """``(density or None, why none)``: ``why`` is the search's reason when it was not run
    (a factor too large to factor), else empty."""
    try:
        res = system.invariant_measure()
    except (ValueError, NotImplementedError, TypeError):
        return None, ""
    if res:
        return res.density, ""
    reason = getattr(res, "reason", "")
    return None, (f"the invariant measure was {reason}" if reason.startswith("not searched")
                  else "")


def _more_integrals(system, integrals: list, max_degree: int) -> list:
    """Integrals of degree 3..``max_degree`` in the algebraic form of a natural frame."""
    from geomech.mechanics.analysis.first_integrals import polynomial_first_integrals
    from geomech.mechanics.analysis.variety_integrals import algebraic_form

    if algebraic_form(system) is None:
        return integrals
    for d in range(3, max_degree + 1):
        check()
        integrals = independent_integrals(integrals + polynomial_first_integrals(system, d))
    return integrals


def _numeric_field(fld: VectorField, P, point: dict) -> np.ndarray:
    return np.array([poll() or complex(as_expr(c).xreplace(point)).real
                     for c in fld.components])


def _random_points(system, count: int = 2, seed: int = 11) -> list[dict]:
    rng = np.random.default_rng(seed)
    P = system.phase_space
    pars = system.manifold.parameters
    return [{**{c: sp.Float(rng.uniform(0.3, 1.2)) for c in P.coords},
             **{p: sp.Float(rng.uniform(0.6, 1.8)) for p in pars}} for _ in range(count)]


def _rank(vectors: list[np.ndarray]) -> int:
    if not vectors:
        return 0
    A = np.array([v / (np.linalg.norm(v) or 1.0) for v in vectors])
    s = np.linalg.svd(A, compute_uv=False)
    return int(np.sum(s > 1e-8 * max(1.0, s[0])))


def _tangent(ut: VectorField, F: FirstIntegral, points) -> bool:
    """Whether the lifted field is tangent to the levels of ``F``: :math:`\\tilde u(F) = 0`
    (zero policy for elementary closed forms, else at random points)."""
    if F.expr is not None and is_elementary(F.expr):
        return default_policy().is_zero(ut(F.expr))
    for pt in points:
        state = {c.name: float(pt[c]) for c in F.coordinates}
        pars = {p.name: float(pt[p]) for p in F.parameters}
        grad = []
        for c in F.coordinates:
            poll()
            up, dn = dict(state), dict(state)
            up[c.name] += 1e-6
            dn[c.name] -= 1e-6
            grad.append((F.evaluate(up, pars) - F.evaluate(dn, pars)) / 2e-6)
        u = _numeric_field(ut, None, pt)
        if abs(np.dot(grad, u)) > 1e-6 * max(1.0, np.linalg.norm(grad) * np.linalg.norm(u)):
            return False
    return True


def _symmetries(system, integrals, density, points) -> tuple[list, list, bool]:
    """Point symmetries whose lifts are tangent to the levels, independent of the flow and of
    each other and spanning a solvable algebra: ``(fields on N, lifts, measure preserved)``."""
    from geomech.lie.algebra import LieAlgebra, NotALieAlgebraError
    from geomech.mechanics.analysis.density import is_invariant_density
    from geomech.mechanics.analysis.symmetry import find_point_symmetries

    v = system.vector_field()
    P = system.phase_space
    chosen, lifts = [], []
    vecs = [[_numeric_field(v, P, pt)] for pt in points]
    preserved = density is not None
    for u in find_point_symmetries(system):
        check()
        ut = prolong(u, system.phase_space, system.dependent_solution)
        if not all(poll() or _tangent(ut, F, points) for F in integrals):
            continue
        new = [[*vs, _numeric_field(ut, P, pt)] for vs, pt in zip(vecs, points)]
        if not any(_rank(n) > _rank(vs) for n, vs in zip(new, vecs)):
            continue
        try:
            if not LieAlgebra.from_vector_fields([*chosen, u]).is_solvable():
                continue
        except (NotALieAlgebraError, ValueError):
            continue
        if preserved and not is_invariant_density(ut, density):
            preserved = False
        chosen.append(u)
        lifts.append(ut)
        vecs = new
    return chosen, lifts, preserved


# ---------------------------------------------------------------------------------------
# the verdict
# ---------------------------------------------------------------------------------------
def _theorem(k: int, s: int, n: int, measure: bool) -> str:
    if measure and s == 0:
        return ("Euler-Jacobi theorem (Jacobi's last multiplier; Kozlov 2002): an invariant "
                f"measure and n - 2 = {k} independent first integrals")
    if measure:
        return (f"Euler-Jacobi-Lie theorem (Kozlov 2002): an invariant measure, {k} "
                f"independent first integrals and {s} symmetry field{'s' * (s > 1)} tangent to "
                f"their levels, spanning with the flow a solvable algebra; {k} + {s} = n - 2 "
                f"= {n - 2}")
    return (f"Euler-Jacobi-Lie theorem (Kozlov 2002): {k} independent first integrals and "
            f"{s} symmetry field{'s' * (s != 1)} tangent to their levels, spanning with the "
            f"flow a solvable algebra; {k} + {s} = n - 1 = {n - 1} (Lie's theorem)")


def _decide(n: int, k: int, s_avail: int, measure: bool) -> int | None:
    """The number of symmetry fields used, or ``None`` when the count is short."""
    need = n - k - (2 if measure else 1)
    if need < 0:
        return 0
    return need if need <= s_avail else None


def _missing(n, k, s, measure_found, preserved, why: str = "") -> str:
    parts = []
    if not measure_found:
        parts.append(why or "no invariant measure in the family searched")
    elif not preserved and s:
        parts.append("the symmetry fields do not preserve the invariant measure")
    need_m = n - 2 - k
    need = n - 1 - k
    parts.append(f"{k} independent first integrals and {s} admissible symmetry fields "
                 f"found; with an invariant measure the Euler-Jacobi-Lie theorem needs "
                 f"{need_m} more integrals or symmetries (k + s = n - 2 = {n - 2}), without "
                 f"one {need} (k + s = n - 1 = {n - 1})")
    return "; ".join(parts)


def _short_count(system, n: int, k: int) -> str:
    """On a flow over :data:`~geomech.mechanics.analysis.first_integrals.FLOW_OPS_LIMIT`
    operations: why the count of the Euler--Jacobi--Lie theorem falls short even with an
    invariant measure and every point symmetry (their tangency to the levels, exact tests on
    large expressions, is then not needed), or ``""``."""
    from geomech.mechanics.analysis.symmetry import find_point_symmetries

    if flow_ops(system) <= FLOW_OPS_LIMIT:
        return ""
    s_max = len(find_point_symmetries(system))
    if k + s_max >= n - 2:
        return ""
    skipped = polynomial_search_skipped(system)
    return (f"{k} independent first integral{'s' * (k != 1)} and at most {s_max} symmetry "
            f"fields (the point symmetries in the default ansatz; their tangency to the "
            f"levels was not checked): even with an invariant measure the Euler-Jacobi-Lie "
            f"theorem needs k + s = n - 2 = {n - 2}, and k + s <= {k + s_max}"
            + (f"; {skipped}" if skipped else ""))


def _hamiltonisation(system):
    """Chaplygin's reducing multiplier, or ``None``; only for two degrees of freedom after
    the reduction by the coordinates of the dependent velocities (the theorem's case:
    any other count gives ``None`` without the costly reduced form -- the rolling
    ellipsoid has three)."""
    from geomech.mechanics.analysis.multiplier import system_is_conformally_hamiltonian

    if system.manifold.dim - len(system.dependent_velocities) != 2:
        return None
    try:
        res = system_is_conformally_hamiltonian(system)
    except (ValueError, NotImplementedError, TypeError, KeyError):
        return None
    return res if res else None


def system_integrability(system, max_degree: int = 4, hamiltonisation: bool = True
                         ) -> IntegrabilityVerdict:
    """``S.integrability()``: the verdict of the module docstring.

    ``max_degree`` bounds the degree of the polynomial integrals searched in the algebraic
    form of a natural frame (beyond the degree 2 of ``S.first_integrals()``);
    ``hamiltonisation`` also looks for Chaplygin's reducing multiplier.
    """

    check_system(system)
    n = system.phase_space.dim
    density, why = _measure(system)
    integrals = system_first_integrals(system, 2)
    short = _short_count(system, n, len(integrals))
    if short:
        return IntegrabilityVerdict(None, "", density, tuple(integrals), (), (), short, n,
                                    _hamiltonisation(system) if hamiltonisation else None)
    points = _random_points(system)
    chosen, lifts, preserved = _symmetries(system, integrals, density, points)
    use_measure = density is not None and preserved
    s = _decide(n, len(integrals), len(chosen), use_measure)
    if s is None and max_degree > 2:
        integrals = _more_integrals(system, integrals, max_degree)
        chosen, lifts, preserved = _symmetries(system, integrals, density, points)
        use_measure = density is not None and preserved
        s = _decide(n, len(integrals), len(chosen), use_measure)
    ham = _hamiltonisation(system) if hamiltonisation else None
    k = len(integrals)
    if s is None:
        missing = _missing(n, k, len(chosen), density is not None, preserved, why)
        skipped = polynomial_search_skipped(system)
        return IntegrabilityVerdict(None, "", density, tuple(integrals), tuple(chosen), (),
                                    f"{missing}; {skipped}" if skipped else missing, n, ham)
    theorem = _theorem(k, s, n, use_measure)
    if ham is not None:
        theorem += (f"; Hamiltonisable by Chaplygin's reducing multiplier N = "
                    f"{sp.sstr(ham.multiplier)} (Chaplygin 1911)")
    quad = explicit_quadratures(system, integrals, lifts[:s], use_measure)
    return IntegrabilityVerdict(True, theorem, density, tuple(integrals), tuple(chosen[:s]),
                                tuple(quad), "", n, ham)
