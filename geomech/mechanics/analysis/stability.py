r"""Stability of a steady motion from its exact linearisation: the conditions in the
parameters and the verdict at numeric values.

The characteristic polynomial of the reduced block (:class:`~geomech.mechanics.analysis.
linearization.Linearization`) is :math:`\lambda^z\,\tilde p(\lambda)`, :math:`\tilde p(0)\ne0`.

* **Zero roots.**  They are *accounted for* when they are semisimple (:math:`z` equals the
  dimension of the kernel): they belong to the neighbouring steady motions of the family
  (its constants, fixed by the first integrals -- the energy, the momenta) and do not
  decide stability, which is then meant on the level of those integrals (orbital stability
  of the relative equilibrium; Malkin (1952), Ch. IV, §§ 116-120 on the "critical case of
  zero roots" with a family of equilibria).  The zero roots of the cyclic coordinates are
  outside the reduced block.  A zero root with a Jordan block makes the case critical.
* **Non-trivial factors.**  :math:`\tilde p` is factored; a factor :math:`q(\lambda^2)`
  (reversible: the upright disk, the spinning ball) can at best be spectrally stable, the
  conditions being that :math:`q` has only simple negative real roots
  (:func:`~geomech.mechanics.analysis.stability_criteria.reversible_conditions`); any
  other factor is judged by Routh–Hurwitz
  (:func:`~geomech.mechanics.analysis.stability_criteria.routh_hurwitz_conditions`).
* **Verdicts** (:class:`Verdict`): *asymptotically stable* (every factor Hurwitz: the
  perturbation decays onto the family), *linearly stable* (spectrally stable factors, the
  others Hurwitz; nonlinear stability is not decided by the linearisation), *unstable* (a
  root with positive real part: unstable, Lyapunov's first method), *critical* (a condition
  on its boundary, a multiple imaginary root, a Jordan block at zero).

>>> import geomech as gm, sympy as sp
>>> S = gm.examples.chaplygin_sleigh()
>>> V = sp.Symbol("V", real=True)
>>> lin = S.linearize({"x": 0, "y": 0, "phi": 0, "xdot": V, "phidot": 0})
>>> lin.stability_conditions().inequalities
[V > 0]
>>> lin.stability({"m": 1, "I": 2, "a": 1, "V": -1}).verdict
<Verdict.UNSTABLE: 'unstable'>
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from geomech.core.algebra.rings import polynomial_ring
from geomech.core.flintpolys import poly_factor_list
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.common import numeric_values
from geomech.mechanics.analysis.stability_criteria import (
    LAMBDA,
    MU,
    even_factors,
    even_part_variable,
    expanded_reversible_conditions,
    factor_list,
    factored_positive_part,
    is_even_polynomial,
    routh_hurwitz_conditions,
    split_zero_roots,
)

__all__ = ["Verdict", "FactorConditions", "StabilityConditions", "StabilityVerdict",
           "stability_conditions", "polynomial_conditions", "stability_verdict"]

_FACTOR_OPS = 4000          # factor the characteristic polynomial below this size


class Verdict(enum.Enum):
    """The four outcomes of a linear stability analysis."""

    ASYMPTOTICALLY_STABLE = "asymptotically stable"
    LINEARLY_STABLE = "linearly stable"
    UNSTABLE = "unstable"
    CRITICAL = "critical"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class FactorConditions:
    r"""The conditions of one factor :math:`f(\lambda)` of the characteristic polynomial.

    ``kind`` is ``"Routh-Hurwitz"`` (all roots in the open left half-plane iff every
    expression of ``conditions`` is positive) or ``"spectral"`` (:math:`f = q(\lambda^2)`:
    all roots simple and imaginary iff they are positive; ``polynomial`` is then
    :math:`q(\mu)`)."""

    factor: sp.Expr
    kind: str
    polynomial: sp.Expr
    conditions: tuple
    nondegenerate: tuple = ()

    @property
    def can_hold(self) -> bool:
        """False when a condition is a non-positive number (e.g. a Hurwitz determinant that
        vanishes identically: the factor can never be Hurwitz)."""
        return not any(c.is_number and not c.is_positive for c in self.conditions)


@dataclass(frozen=True)
class StabilityConditions:
    r"""Conditions of (spectral or asymptotic) stability in the parameters and the steady
    motion's constants.

    Attributes
    ----------
    zero_roots : int
        :math:`z`, the zero roots of the reduced block (accounted for when semisimple).
    factors : tuple of FactorConditions
    inequalities : list of sympy relationals
        All conditions together (factors known positive removed), ``expr > 0``.
    kind : str
        ``"Routh-Hurwitz"``, ``"spectral"`` or ``"mixed"``: which criterion applies.
    meaning : str
        What the inequalities guarantee; the boundary (an equality) is critical.
    """

    zero_roots: int
    factors: tuple
    inequalities: list
    kind: str
    meaning: str
    nondegenerate: list = field(default_factory=list)
    resultants: tuple = ()

    def __str__(self) -> str:
        conds = " and ".join(sp.sstr(c) for c in self.inequalities) or "always"
        if self.nondegenerate:
            conds += " (where " + ", ".join(sp.sstr(c) for c in self.nondegenerate) + ")"
        return f"{self.meaning}: {conds}"


@dataclass(frozen=True)
class StabilityVerdict:
    """A verdict with its reason and the eigenvalues of the reduced field it rests on."""

    verdict: Verdict
    reason: str
    eigenvalues: np.ndarray = field(repr=False)
    zero_roots: int = 0

    def __str__(self) -> str:
        return f"{self.verdict}: {self.reason}"

    def __bool__(self) -> bool:
        """True for the two stable verdicts."""
        return self.verdict in (Verdict.ASYMPTOTICALLY_STABLE, Verdict.LINEARLY_STABLE)


# =============================================================================================
# conditions
# =============================================================================================
def _factors(p: sp.Expr) -> list[sp.Expr]:
    """The non-constant factors of ``p`` in ``lambda`` (factored when small enough)."""
    if sp.count_ops(p) > _FACTOR_OPS:
        return [p]
    q = sp.together(p)
    num, den = q.as_numer_denom()
    # a denominator in the parameters only: a content, no factor in lambda
    fl = None if den.has(LAMBDA) else _lambda_factor_list(sp.expand(num))
    if fl is None:
        try:
            fl = sp.factor_list(q, LAMBDA)[1]
        except sp.PolynomialError:      # radicals in the coefficients (|r0| of the heavy top)
            return [p]
    out = []
    for f, k in fl:
        if f.has(LAMBDA):
            out += [f] * k
    return out or [p]


def _lambda_factor_list(p: sp.Expr) -> list | None:
    r"""The factors of ``sp.factor_list(p, lambda)`` that contain ``lambda``, in sympy's order,
    for a polynomial ``p`` with rational coefficients in symbols, the factorisation taken by
    flint: sympy factors :math:`p = c\,x^m r` (``together``: the content and the monomial in
    the parameters) over :math:`\mathbb Z[\text{parameters of } r]` by injecting the
    parameters after ``lambda``, i.e. over :math:`\mathbb Z` in the generators
    ``(lambda, parameters)``, lex (factors with positive leading coefficients), and sorts the
    factors as polynomials in ``lambda`` over that domain; ``None`` otherwise (sympy's
    factorisation is used)."""
    if not (p.is_Add and p.is_polynomial() and
            all(a.is_Symbol or a.is_Rational for a in p.atoms())):
        return None
    try:
        P = sp.Poly(p, LAMBDA)
        if not (P.domain.is_PolynomialRing and P.domain.dom in (sp.ZZ, sp.QQ)):
            return None
        gens = (LAMBDA, *P.domain.symbols)
        terms = P.inject().as_dict()
        low = [min(m[i] for m in terms) for i in range(len(gens))]
        rest = {tuple(a - b for a, b in zip(m, low)): c for m, c in terms.items()}
        used = [i for i in range(len(gens)) if any(m[i] for m in rest)]
        if low[0] or 0 not in used:     # lambda divides p (never after split_zero_roots)
            return None
        R = polynomial_ring([gens[i] for i in used])
        r = R.from_dict({tuple(m[i] for i in used): sp.QQ.convert(c) for m, c in rest.items()})
        _, facs = poly_factor_list(r)
        dom = sp.ZZ[tuple(gens[i] for i in used[1:])] if len(used) > 1 else sp.ZZ
        polys = [(sp.Poly(f.as_expr(), LAMBDA, domain=dom), k) for f, k in facs
                 if f.degree(R.gens[0]) > 0]
    except (OverflowError, sp.PolynomialError):     # flint's exponent limits
        return None
    polys.sort(key=lambda fk: (len(fk[0].rep.to_list()), len(fk[0].gens), fk[1],
                               str(fk[0].domain), fk[0].rep.to_list()))
    return [(f.as_expr(), k) for f, k in polys]


def factor_conditions(f: sp.Expr) -> FactorConditions:
    """The criterion that applies to the factor ``f`` and its conditions."""
    if is_even_polynomial(f, LAMBDA):
        q = even_part_variable(f, LAMBDA, MU)
        conds = expanded_reversible_conditions(q, MU)
        kind = "spectral"
    else:
        q, conds, kind = f, routh_hurwitz_conditions(f, LAMBDA), "Routh-Hurwitz"
    nondeg = []
    for c in conds:
        nondeg += [e for e in even_factors(c) if e not in nondeg]
    conds = tuple(factored_positive_part(c) for c in conds)
    conds = tuple(c for c in conds if not (c.is_number and c.is_positive))
    return FactorConditions(f, kind, q, conds, tuple(nondeg))


def _common_root_conditions(facs: list) -> list[sp.Expr]:
    r"""Resultants :math:`\operatorname{Res}(q_i, q_j)` of the reversible factors: non-zero
    iff no two of them share a root (a double imaginary root otherwise)."""
    qs = [f.polynomial for f in facs if f.kind == "spectral"]
    out = []
    for i in range(len(qs)):
        for j in range(i + 1, len(qs)):
            r = sp.resultant(qs[i], qs[j], MU)
            if not (r.is_number and not default_policy().is_zero(r)):
                out.append(sp.factor(r))
    return out


def stability_conditions(lin) -> StabilityConditions:
    r"""The conditions of stability of the linearisation ``lin`` (see the module
    docstring): Routh–Hurwitz for the factors that can be Hurwitz, the simple negative
    real roots of :math:`q` for the factors :math:`q(\lambda^2)`."""
    return polynomial_conditions(lin._reduced_charpoly)


def polynomial_conditions(charpoly: sp.Expr) -> StabilityConditions:
    r"""The conditions of :func:`stability_conditions` for a characteristic polynomial in
    ``lambda`` (symbolic, or numeric for a verdict)."""
    z, rest = split_zero_roots(charpoly, LAMBDA)
    facs = [factor_conditions(f) for f in _factors(rest)] if rest.has(LAMBDA) else []
    kinds = {f.kind for f in facs}
    kind = kinds.pop() if len(kinds) == 1 else ("mixed" if kinds else "none")
    ineqs = []
    for f in facs:
        for c in f.conditions:
            rel = sp.StrictGreaterThan(c, 0)
            if rel not in ineqs:
                ineqs.append(rel)
    meaning = {"spectral": "spectral stability (every root simple and on the imaginary "
                           "axis: q(mu) with mu = lambda**2 has only simple negative roots)",
               "Routh-Hurwitz": "asymptotic stability transversally to the family "
                                "(Routh-Hurwitz: every non-zero root has Re < 0)",
               "mixed": "linear stability (Routh-Hurwitz for the factors that can be "
                        "Hurwitz, simple negative roots of q for the reversible ones)",
               "none": "no non-zero root: the linearisation is neutral"}[kind]
    if any(not f.can_hold for f in facs):
        meaning += "; a factor can never be Hurwitz (a condition is identically <= 0)"
    nondeg = []
    res = tuple(_common_root_conditions(facs))
    for e in [g for f in facs for g in f.nondegenerate] + list(res):
        for g, _ in factor_list(e)[1]:
            rel = sp.Ne(g, 0)
            if not (g.is_positive or g.is_negative) and rel not in nondeg:
                nondeg.append(rel)
    return StabilityConditions(z, tuple(facs), ineqs, kind,
                               meaning + f"; {z} zero root(s) of the reduced field set "
                               "aside; equality is the critical boundary", nondeg, res)


# =============================================================================================
# verdicts
# =============================================================================================
def _sign(e: sp.Expr) -> int:
    """Exact sign of a numeric expression (zero decided by the zero policy)."""
    if default_policy().is_zero(e):
        return 0
    v = sp.N(e, 30)
    if not v.is_real:
        v = sp.re(v)
    return 1 if v > 0 else -1


def _roots(f: sp.Poly) -> np.ndarray:
    """Numeric roots (30 digits by mpmath, numpy when it does not converge: multiple
    roots)."""
    if f.degree() <= 0:
        return np.zeros(0, complex)
    try:
        return np.array([complex(r) for r in f.nroots(n=30, maxsteps=200)])
    except Exception:  # noqa: BLE001 - mpmath's NoConvergence at multiple roots
        return np.roots([complex(sp.N(c, 30)) for c in f.all_coeffs()])


def _eigenvalues(J: sp.Matrix) -> np.ndarray:
    """Eigenvalues of a numeric matrix, sorted by real part."""
    if J.rows == 0:
        return np.zeros(0, complex)
    ev = np.linalg.eigvals(np.array(J.evalf(30).tolist(), dtype=complex))
    return ev[np.lexsort((ev.imag, ev.real))]


_DIGITS = 50


def _rational_image(charpoly: sp.Expr) -> tuple[sp.Expr, float]:
    r"""``(p, 0)`` for a polynomial in ``lambda`` with rational coefficients; else its image
    with each coefficient replaced by the rational of its value at :data:`_DIGITS` digits (0
    when the zero policy proves it vanishes) and the margin :math:`10^{-30}` within which a
    condition on the image counts as on its boundary.  Algebraic values (the bicycle's
    :math:`\sin(\pi/10)`, :math:`\cos(\pi/10)`) make the exact criteria unaffordable
    (nested radicals that sympy does not reduce); the image has the same verdict whenever
    no condition is within the margin of 0 (its coefficients differ by
    :math:`10^{-50}` relatively)."""
    poly = sp.Poly(charpoly, LAMBDA)
    coeffs = poly.all_coeffs()
    if all(c.is_Rational for c in coeffs):
        return charpoly, 0.0
    image = []
    for c in coeffs:
        value = sp.N(c, _DIGITS)
        # the zero policy only where the value is tiny (its exact test of nested radicals
        # builds minimal polynomials: seconds each)
        if abs(value) < 1e-40 and default_policy().is_zero(c):
            image.append(sp.S.Zero)
        else:
            image.append(sp.Rational(str(sp.re(value))))
    return sp.Poly(image, LAMBDA).as_expr(), 1e-30


def _shown(f: sp.Expr, numeric: bool) -> str:
    """A factor for a reason: its first 60 characters, monic with 6 digits when it is the
    image of irrational coefficients."""
    if numeric and f.has(LAMBDA):
        f = sp.N(sp.Poly(f, LAMBDA).monic().as_expr(), 6)
    return sp.sstr(f)[:60]


def _factor_verdict(fc: FactorConditions, values: dict, margin: float = 0.0
                    ) -> tuple[str, str]:
    """``("hurwitz" | "spectral" | "critical" | "unstable", why)`` of one factor (a
    condition within ``margin`` of 0 counts as 0)."""
    def sign(e: sp.Expr) -> int:
        return 0 if margin and abs(float(sp.N(e, _DIGITS))) <= margin else _sign(e)

    signs = [sign(c.xreplace(values)) for c in fc.conditions]
    signs += [0 for e in fc.nondegenerate if sign(e.xreplace(values)) == 0]
    roots = _roots(sp.Poly(fc.factor.xreplace(values), LAMBDA))
    top = max(roots.real) if roots.size else -np.inf
    scale = max(1.0, float(np.max(np.abs(roots)))) if roots.size else 1.0
    if all(s > 0 for s in signs):
        good = "hurwitz" if fc.kind == "Routh-Hurwitz" else "spectral"
        return good, f"{fc.kind} conditions hold"
    # no condition vanishes and one is negative: a root in Re > 0 (Routh's theorem; for q:
    # a non-real or a positive root mu); on a boundary the roots decide
    if (0 not in signs and min(signs) < 0) or top > 1e-15 * scale:
        return "unstable", f"a root with Re = {top:.6g} > 0"
    return "critical", f"a {fc.kind} condition is on its boundary (max Re = {top:.3g})"


def stability_verdict(lin, parameters=None) -> StabilityVerdict:
    """The verdict of ``lin`` at numeric values of its parameters and constants."""
    symbols = (lin.reduced_matrix.free_symbols if lin.mass_form is None else
               set().union(*(m.free_symbols for m in lin.mass_form)))
    values = numeric_values(lin.system, symbols, {**lin.parameters, **dict(parameters or {})})
    Jr = lin.reduced_matrix_at(parameters)
    ev = _eigenvalues(Jr)
    # the criteria applied to the numeric characteristic polynomial (exact numbers): cheap,
    # where the symbolic conditions of a large system may be expensive
    # numbers: the zero policy's normal form inside Berkowitz (sympy's simplify on nested
    # radicals takes seconds); it decides the coefficients that are zero (_rational_image)
    charpoly = sp.expand(Jr.charpoly(LAMBDA, simplify=default_policy().normalize).as_expr()
                         ) if Jr.rows else sp.S.One
    charpoly, margin = _rational_image(charpoly)
    conds = polynomial_conditions(charpoly)
    z = conds.zero_roots
    # one zero root always has an eigenvector; several need the rank
    kernel = Jr.rows - default_policy().rank(Jr) if z > 1 else z
    results = [(_factor_verdict(fc, values, margin), fc) for fc in conds.factors]
    shared = [r for r in conds.resultants if _sign(r.xreplace(values)) == 0]
    parts = []
    if lin.cyclic:
        parts.append(f"{len(lin.cyclic)} zero root(s) of the cyclic coordinates "
                     f"{', '.join(map(str, lin.cyclic))}")
    if z and kernel < z:
        return StabilityVerdict(Verdict.CRITICAL, "; ".join(parts + [
            f"{z} zero roots of the reduced field with only {kernel} eigenvectors (a Jordan "
            "block: secular drift)"]), ev, z)
    if z:
        integrals = lin.zero_root_integrals(parameters or {})
        both = "; their differentials are proportional there" if len(integrals) > z else ""
        energy = (f" (accounted for by the {' and the '.join(integrals)}: dF J = 0, dF != 0 "
                  f"on the tangent space{both})" if integrals else
                  " (the energy integral accounts for one: dE J = 0)"
                  if lin.energy_accounts_for_a_zero_root else "")
        parts.append(f"{z} semisimple zero root(s) of the reduced field: the family of "
                     "steady motions, fixed by the first integrals (stability on their level)"
                     + energy)
    kinds = [k for (k, _), _ in results]
    parts += [f"factor {_shown(fc.factor.xreplace(values), margin)}: {why}"
              for (k, why), fc in results]
    if margin:
        parts.append(f"the characteristic polynomial has irrational coefficients: the "
                     f"criteria were applied to their {_DIGITS}-digit rational values, a "
                     f"condition within {margin:.0e} of 0 counting as on its boundary")
    if "unstable" in kinds:
        v = Verdict.UNSTABLE
    elif "critical" in kinds or shared:
        v = Verdict.CRITICAL
        if shared:
            parts.append("two reversible factors share a root (a double imaginary root)")
    elif kinds and all(k == "hurwitz" for k in kinds):
        v = Verdict.ASYMPTOTICALLY_STABLE
    else:
        v = Verdict.LINEARLY_STABLE
    return StabilityVerdict(v, "; ".join(parts), ev, z)
