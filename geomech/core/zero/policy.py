r"""The zero policy: :class:`ZeroPolicy` runs the stages (closed forms, ring
certificate, exact normalisation, algebraic reduction, evaluation, exact confirmation) and
holds the globally active policy (:func:`default_policy`, :func:`using_policy`).

>>> x = sp.Symbol("x")
>>> default_policy().is_zero((x + 1)**2 - x**2 - 2*x - 1)
True
"""

from __future__ import annotations

import cmath
import contextlib
import functools
import math
import random
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import sympy as sp
from sympy.polys.matrices import DomainMatrix

from geomech.core.budget import check, poll
from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr, as_matrix
from geomech.core.zero.certificates import (
    algebra_certificate,
    algebraic_reduction,
    has_negative_power,
    is_expanded_polynomial,
    pythagorean_shortening,
    trig_fraction_zero_test,
    trig_ring_zero_test,
    vanishes_over_common_denominator,
)
from geomech.core.zero.evaluation import (
    certified_float_minor,
    certified_float_rank,
    evaluate_at,
    formal_rank,
    interval_value,
    non_finite,
    strict_value,
)
from geomech.core.zero.quotients import free_cancel, numerator_certified_nonzero, outside_trig_ring
from geomech.core.zero.rewrite import (
    cancel_or_together,
    closed_forms,
    is_rational_in_symbols,
    jet_replacement,
    jets_only,
    jets_only_matrix,
    rational_rewrite,
    rewrite_jointly,
    sign_of_rational,
    sign_symbol,
    sign_symbols,
)
from geomech.core.zero.verdicts import (
    UNDECIDABLE_ERRORS,
    ProbablyZeroWarning,
    UndecidedZero,
    ZeroVerdict,
)

__all__ = ["ZeroPolicy", "default_policy", "set_default_policy", "using_policy", "normalize",
           "is_zero", "numerically_zero"]


#: operation count above which a zero test first evaluates at one random point (a certified
#: non-zero value decides at once; a zero value goes on to the exact normal forms)
LARGE_EXPRESSION = 500


@dataclass
class ZeroPolicy:
    r"""An injectable policy for zero tests, normalisation and generic ranks.

    Parameters
    ----------
    samples : int
        Number of random points used by the numerical filter.
    strict : bool
        If true, a decision resting on numerical evidence only raises :class:`UndecidedZero`
        instead of returning a "probable" verdict.
    confirm_with_simplify : bool
        Try ``sympy.simplify`` as an exact confirmation when the normal form does not vanish
        but evaluation says zero.
    seed : int
        Seed of the private random generator (results are reproducible).
    warn : bool
        Emit :class:`ProbablyZeroWarning` for uncertain verdicts.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x", positive=True)
    >>> ZeroPolicy().zero_test(sp.sqrt(x**2) - x).zero
    True
    """

    samples: int = 3
    strict: bool = False
    confirm_with_simplify: bool = True
    seed: int = 20151122
    warn: bool = True
    uncertain: list = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    # -- normalisation -----------------------------------------------------------------
    def normalize(self, expr) -> sp.Expr:
        r"""Cheap canonical form for storage: expanded polynomial or a cancelled fraction.

        Polynomial expressions (in any generators, including ``sin(phi)``) are expanded;
        others are put over a common denominator and cancelled: in flint from the expression
        tree (:func:`~geomech.core.zero.quotients.free_cancel`, ``sympy.cancel``'s result;
        radicals reduced modulo :math:`g^q = b`), else by ``sympy.cancel``.  No ``simplify``.
        A sum that vanishes modulo :math:`\sin^2+\cos^2 = 1` over a common denominator is
        ``0`` (the ``together`` this costs is skipped when the numerator provably holds
        another atom or is certified non-zero at a point).
        """
        e = as_expr(expr)
        if e.is_Atom or is_expanded_polynomial(e):
            return e
        poll()
        if has_negative_power(e):
            if e.is_Add and len(e.args) >= 4 and not outside_trig_ring(e) and \
                    not numerator_certified_nonzero(e) and vanishes_over_common_denominator(e):
                return sp.S.Zero
            fast = free_cancel(e)
            if fast is not None:
                return self.normalize_cancelled(fast)
            if e.is_Add:
                return self.normalize_cancelled(sp.cancel(e))
            from geomech.core.algebra.free_calculus import cancel_quotient

            # a quotient (a stored field component, normalised again): flint's gcd, the
            # form of sympy.cancel
            return self.normalize_cancelled(cancel_quotient(*sp.fraction(e)))
        return pythagorean_shortening(e if is_expanded_polynomial(e, trig=True)
                                      else sp.expand(e))

    def normalize_cancelled(self, e: sp.Expr) -> sp.Expr:
        """The end of :meth:`normalize` for a fraction ``e`` that ``sympy.cancel`` returned
        (or that is in the form it returns): numerator and denominator shortened by
        :math:`\\sin^2+\\cos^2 = 1` when that pays, and cancelled again if they changed.
        Callers that cancel the fraction by other means
        (:func:`~geomech.core.algebra.free_calculus.free_bracket`) finish with it.

        >>> s = sp.Symbol("s")
        >>> default_policy().normalize_cancelled(sp.cancel((sp.sin(s)**2 + sp.cos(s)**2) / s))
        1/s
        """
        from geomech.core.algebra.free_calculus import cancel_quotient

        n, d = sp.fraction(e)
        n2, d2 = pythagorean_shortening(n), pythagorean_shortening(d)
        if n2 is n and d2 is d:
            return e
        fast = free_cancel(n2 / d2)
        return cancel_quotient(n2, d2) if fast is None else fast

    # -- zero test ----------------------------------------------------------------------
    def zero_test(self, expr) -> ZeroVerdict:
        """Decide whether ``expr`` vanishes identically; see the module docstring.

        Non-finite values (``nan``, ``zoo``, ``oo``) are never zero.  Under a strict policy
        a decision that is not proved raises :class:`UndecidedZero`.
        """
        e = _as_expr(expr)
        if e == 0:
            return ZeroVerdict(True, True, "normal form")
        if non_finite(e):
            return ZeroVerdict(False, True, "non-finite")
        if e.is_number:
            return self._constant_test(e)
        if count_ops(e) > LARGE_EXPRESSION and self._nonzero_at_a_point(e):
            # a non-zero value (30 correct digits) at one real point proves non-zero-ness;
            # for large expressions it is far cheaper than the normal forms below
            return ZeroVerdict(False, True, "evaluation")
        # polynomials: the packed ring kernel first; fractions, multiple angles and roots:
        # the engine's lazy fractions first (each declines what it does not cover)
        stages = (algebra_certificate, trig_ring_zero_test) if has_negative_power(e) else \
            (trig_ring_zero_test, algebra_certificate)
        ring_verdict = stages[0](e)
        if ring_verdict is not None and stages[0] is trig_ring_zero_test:
            return ZeroVerdict(ring_verdict, True, "normal form")
        if ring_verdict is None:
            ring_verdict = stages[1](e)
            if ring_verdict is not None and stages[1] is trig_ring_zero_test:
                return ZeroVerdict(ring_verdict, True, "normal form")
        if ring_verdict is not None:
            roots = any(not p.exp.is_Integer for p in e.atoms(sp.Pow))
            return ZeroVerdict(ring_verdict, True, "algebraic" if roots else "normal form")
        rw = rewrite_jointly([e])
        ring_verdict = trig_fraction_zero_test(rw.angles[0])
        if ring_verdict is True or (ring_verdict is False and rw.faithful):
            return ZeroVerdict(ring_verdict, True, "normal form")
        rat = cancel_or_together(rw.exprs[0])
        if rat == 0:
            return ZeroVerdict(True, True, "normal form")
        if non_finite(rat):
            return ZeroVerdict(False, True, "non-finite")
        if rw.faithful and is_rational_in_symbols(rat):
            # ``cancel`` is canonical on rational functions and the rewriting is injective
            return ZeroVerdict(False, True, "normal form")
        if self._signs_cancel(rat):
            return ZeroVerdict(True, True, "normal form")
        if rw.ring and _ring_image_vanishes(rw.ring[0]):
            # exp/log generators with their relations: a zero image is an identity
            return ZeroVerdict(True, True, "normal form")
        alg = algebraic_reduction(rat)
        if alg is not None and alg.zero:
            # a zero remainder modulo r_P^2 - P is a ring identity: certain for every branch
            return ZeroVerdict(True, True, "algebraic")
        return self._decide_by_evaluation(e, rat, rw, alg)

    def _decide_by_evaluation(self, e, rat, rw, alg) -> ZeroVerdict:
        """Evaluation at real points (a non-zero value proves non-zero-ness), then the
        exact confirmation by ``simplify``, else a probable verdict."""
        target = rat if rw.faithful else jets_only(e)
        if target is not None:
            if self._numerically_zero(target) is False:
                return ZeroVerdict(False, True, "evaluation")
            if rw.faithful and alg is not None and alg.proves_nonzero():
                return ZeroVerdict(False, True, "algebraic")
            # undecided (dependent roots such as sqrt(x**2) = |x|, signs): probe more
            # points with all sign patterns
            if self._numerically_zero(target, signs=True) is False:
                return ZeroVerdict(False, True, "evaluation")
        elif self._numerically_zero(rat) is False:
            # values of the same function at arguments not proved different were
            # sampled independently: the difference is only probable
            return self._uncertain(e, False, rw.reasons)
        if self.confirm_with_simplify:
            with contextlib.suppress(Exception):
                if sp.simplify(rat) == 0 or sp.simplify(e) == 0:
                    return ZeroVerdict(True, True, "simplify")
        return self._uncertain(e, True, rw.reasons)

    def _constant_test(self, e: sp.Expr) -> ZeroVerdict:
        """Zero test of a number: exact for rationals and algebraic numbers (minimal
        polynomial), otherwise evaluation with guaranteed relative accuracy (no absolute
        threshold: ``10**-40*exp(-1)`` is not zero)."""
        if e.is_Number:
            return ZeroVerdict(bool(e.is_zero), True, "normal form")
        e = closed_forms(e)
        if e.is_Number:
            return ZeroVerdict(bool(e.is_zero), True, "normal form")
        if not e.atoms(sp.Function) and all(p.exp.is_Rational for p in e.atoms(sp.Pow)) \
                and len(e.atoms(sp.Pow)) <= 8:
            with contextlib.suppress(sp.polys.polyerrors.NotAlgebraic, NotImplementedError,
                                     sp.PolynomialError):
                z = sp.Dummy("z")
                mp = sp.minimal_polynomial(e, z)
                return ZeroVerdict(mp == z, True, "algebraic")
        val = strict_value(e, 50)
        if val is not None and val != 0:
            return ZeroVerdict(False, True, "evaluation")
        if self.confirm_with_simplify:
            with contextlib.suppress(Exception):
                if sp.simplify(e) == 0:
                    return ZeroVerdict(True, True, "simplify")
        return self._uncertain(e, True)

    def _signs_cancel(self, rat: sp.Expr) -> bool:
        r"""Exact identity modulo :math:`\operatorname{sign}(g)^2 = 1` for every ``g`` proved
        non-zero (``sign`` is then :math:`\pm 1` on the open dense set :math:`g \neq 0`)."""
        if not rat.has(sp.sign, sp.Abs):
            return False
        rat = closed_forms(rat)         # cancel may have recombined g*sign(g) into Abs(g)
        atoms = rat.atoms(sp.sign)
        rep = {}
        for a in atoms:
            g = a.args[0]
            if is_rational_in_symbols(g):
                rep[a] = sign_of_rational(g)
                continue
            v = self.zero_test(g)
            if v.certain and not v.zero:
                rep[a] = sign_symbol(g)
        if not rep:
            return False
        sig = sign_symbols()
        num = sp.expand(sp.numer(cancel_or_together(rat.xreplace(rep))))
        num = num.replace(lambda p: p.is_Pow and p.base in sig and p.exp.is_Integer,
                          lambda p: p.base ** (p.exp % 2))
        return sp.expand(num) == 0

    def is_zero(self, expr) -> bool:
        """``True`` iff ``expr`` is (certainly or probably) zero; strict policies raise."""
        return self.zero_test(expr).zero

    def is_zero_modulo(self, expr, relations: Iterable = ()) -> bool:
        r"""Whether ``expr`` vanishes identically, or on the variety ``relations = 0``.

        Without relations this is :meth:`is_zero`.  With relations (polynomials, e.g.
        ``g1**2 + g2**2 + g3**2 - 1``) the numerator of the expression (trigonometric functions
        of symbols rewritten in half-angle tangents, one common denominator) is reduced modulo
        a Gröbner basis of the relations (grevlex; Cox, Little & O'Shea (2015), §2.6) and the
        remainder is decided by :meth:`is_zero`.  A zero remainder proves vanishing on the
        variety; a non-zero one proves the converse when the relations generate the ideal of
        their real points (as the sphere :math:`|\gamma|^2 = 1` does).  ``ValueError`` when
        the relations are not polynomials in their symbols.

        >>> x, y = sp.symbols("x y", real=True)
        >>> P = ZeroPolicy()
        >>> P.is_zero_modulo(x**2 + y**2 - 1, [x**2 + y**2 - 1])
        True
        >>> P.is_zero_modulo(x*(x**2 + y**2) - x, [])
        False
        """
        e = as_expr(expr)
        relations = list(relations)
        if not relations:
            return self.is_zero(e)
        if self.is_zero(e):
            return True
        rels = [as_expr(r) for r in relations]
        num, _den = sp.fraction(sp.cancel(sp.together(rational_rewrite(e))))
        gens = sorted(set().union(*(r.free_symbols for r in rels)), key=sp.default_sort_key)
        try:
            G = sp.groebner([sp.expand(r) for r in rels], *gens, order="grevlex")
            poly = sp.Poly(sp.expand(num), *gens)
            _, rem = sp.reduced(poly.as_expr(), list(G.exprs), *gens, order="grevlex")
        except (sp.PolynomialError, sp.GeneratorsNeeded, sp.CoercionFailed) as exc:
            raise ValueError(f"cannot reduce modulo the relations {relations}: {exc}") from None
        return self.is_zero(rem)

    def is_constant(self, expr, symbols: Iterable[sp.Symbol]) -> bool:
        """Whether ``expr`` does not depend on ``symbols`` (all its partials vanish)."""
        e = as_expr(expr)
        return all(self.is_zero(sp.diff(e, s)) for s in symbols if e.has(s))

    def _uncertain(self, e, zero: bool, reasons: tuple = ()) -> ZeroVerdict:
        """A verdict resting on numerical evidence: recorded, raises under ``strict``."""
        self._record(e, reasons, zero)
        return ZeroVerdict(zero, False, "numeric only")

    def _record(self, e, reasons: tuple = (), zero: bool = True) -> None:
        """Record an uncertain decision; ``reasons`` say why no exact stage applied (e.g.
        a logarithm of an argument of unknown sign)."""
        self.uncertain.append(e)
        what = "zero" if zero else "non-zero"
        why = f" ({'; '.join(reasons)})" if reasons else ""
        if self.strict:
            raise UndecidedZero(f"expression is only numerically {what}{why}: {e}")
        if self.warn:
            warnings.warn(f"{what} decided numerically only{why}: {sp.sstr(e)[:200]}",
                          ProbablyZeroWarning, stacklevel=3)

    # -- evaluation ---------------------------------------------------------------------
    def random_point(self, symbols: Iterable[sp.Symbol]) -> dict:
        """Random rational values (exact) for ``symbols``, respecting the sign assumptions."""
        pt = {}
        for s in symbols:
            num = self._rng.randint(1, 97)
            den = self._rng.randint(1, 89)
            val = sp.Rational(num, den)
            if s.is_negative or s.is_nonpositive:
                val = -val
            elif not (s.is_positive or s.is_nonnegative) and self._rng.random() < 0.5:
                val = -val
            pt[s] = val
        return pt

    def _nonzero_at_a_point(self, e: sp.Expr) -> bool:
        """Whether ``e`` has a certified non-zero real value at one random exact point: an
        interval enclosure of the value (one pass, :func:`interval_value`) that excludes 0,
        else, for atoms without an enclosure, a value with guaranteed accuracy.  An enclosure
        containing 0 proves nothing: the exact stages decide (a strict evaluation of an
        identically zero expression only exhausts its precision)."""
        pt = self.random_point(sorted(e.free_symbols, key=sp.default_sort_key))
        box = interval_value(e, pt)
        if box is not None and all(math.isfinite(float(v)) for v in (box.a, box.b)):
            return 0 not in box
        val = evaluate_at(e, pt)          # no enclosure, or a non-finite one: never a proof
        return val is not None and val.is_real is True and val != 0

    def _numerically_zero(self, rat: sp.Expr, signs: bool = False) -> bool | None:
        """Evaluate at random points: ``False`` if clearly non-zero, ``True`` if zero at all,
        ``None`` when evaluation is impossible.

        With ``signs=True`` ``2**min(n, 3) * samples`` points are used whose sign patterns
        run through all combinations on the first symbols that may be negative (this
        separates e.g. ``sqrt(x**2)`` from ``x``)."""
        syms = sorted(rat.free_symbols, key=sp.default_sort_key)
        seen_value = False
        free = [s for s in syms if not (s.is_positive or s.is_nonnegative
                                        or s.is_negative or s.is_nonpositive)]
        n_pat = 2 ** min(len(free), 3) if signs else 1
        for k in range(self.samples * n_pat):
            check()
            pt = self.random_point(syms)
            if signs:
                for j, s in enumerate(free[:3]):
                    pt[s] = abs(pt[s]) * (-1 if (k >> j) & 1 else 1)
            val = evaluate_at(rat, pt)
            if val is None:
                continue
            seen_value = True
            if val != 0:
                return False
        return True if seen_value else None

    # -- ranks --------------------------------------------------------------------------
    def rank(self, matrix) -> int:
        r"""Generic rank of a matrix of expressions.

        All entries are rewritten by one ring map (jets, one base angle per independent
        argument).  The rank of the image over the field of rational functions is a certain
        *upper* bound (a minor that vanishes formally vanishes); it is the rank when the
        map is faithful (injective, with symbols only as generators).  Otherwise the rank
        at random exact points (a certain lower bound) or an exact zero test of a maximal
        formal minor certifies it; when nothing certifies, the rank at random points is
        returned and flagged as probable.

        >>> x = sp.Symbol("x", real=True)
        >>> default_policy().rank([[1, sp.sin(x/2)], [sp.sin(x/2), (1 - sp.cos(x))/2]])
        1
        """
        m = as_matrix(matrix)
        if 0 in m.shape:
            return 0
        full = min(m.shape)
        rw = rewrite_jointly(list(m))
        rat = sp.Matrix(m.rows, m.cols, list(rw.exprs))
        sample = rat if rw.faithful else jets_only_matrix(m)
        lower, exact_points = self._rank_at_points(sample)
        exact_points = exact_points and rw.faithful
        if lower == full and exact_points:
            return lower
        # with square roots the formal rank ignores (sqrt P)^2 = P: the lower bound is
        # certified by its bordered minors instead (first when they are small)
        radicals = bool(exact_points and lower and any(
            not p.exp.is_Integer for v in rat for p in v.atoms(sp.Pow)))
        bordered_first = radicals and lower < 4
        if bordered_first and self._bordered_minors_vanish(rat, lower):
            return lower
        formal = formal_rank(rat)
        if formal is not None and sample is None:
            lower = formal[0]           # no real points to sample: the formal rank
        if formal is not None:
            upper, symbolic_only, rows, cols = formal
            if upper == 0 or (exact_points and lower == upper):
                return upper
            if rw.faithful and symbolic_only:
                return upper
            v = self.zero_test(expanded_det(m.extract(rows, cols)))
            if v.certain and not v.zero:
                return upper
        if radicals and not bordered_first and self._bordered_minors_vanish(rat, lower):
            return lower
        self._record(sp.Symbol(f"rank={lower}"), rw.reasons)
        return lower

    def _bordered_minors_vanish(self, rat: sp.Matrix, r: int) -> bool:
        r"""Whether the rank of the (faithful) image ``rat`` is exactly ``r``: an ``r x r``
        minor non-zero at a random point, and every ``(r+1) x (r+1)`` minor bordering it
        identically zero in the ring with :math:`(\sqrt P)^2 = P` and the exponential and
        logarithmic generators (Kronecker's bordered-minor theorem: Gantmacher 1959, *The
        Theory of Matrices*, vol. 1, ch. I, §3).  ``False`` means "not shown"."""
        pos = self._nonzero_minor(rat, r)
        if pos is None:
            return False
        rows, cols = pos
        other_rows = [i for i in range(rat.rows) if i not in rows]
        other_cols = [j for j in range(rat.cols) if j not in cols]
        if len(other_rows) * len(other_cols) > _MAX_BORDERED:
            return False
        for i in other_rows:
            for j in other_cols:
                check()
                minor = expanded_det(rat.extract([*rows, i], [*cols, j]))
                if algebra_certificate(minor) is not True and not _ring_image_vanishes(minor):
                    return False
        return True

    def _nonzero_minor(self, rat: sp.Matrix, r: int) -> tuple[list, list] | None:
        """Rows and columns of an ``r x r`` minor of ``rat`` proved non-zero at a random
        point (exact rational values, or a value with guaranteed accuracy)."""
        from geomech.core.algebra.matrices import independent_rows, rational_rref_pivots

        syms = sorted(rat.free_symbols, key=sp.default_sort_key)
        for _ in range(self.samples):
            check()
            try:
                num = rat.xreplace(self.random_point(syms))
                if all(v.is_Rational for v in num):
                    rows_ = num.tolist()
                    cols = rational_rref_pivots(rows_, num.cols)
                    rows = independent_rows([[row[j] for j in cols] for row in rows_], len(cols))
                    proved = len(cols) == r
                else:
                    got, proved, rows, cols = certified_float_minor(num)
                    proved = proved and got == r
            except (ZeroDivisionError, TypeError, ValueError):
                continue
            if proved and len(rows) == r:
                return list(rows), list(cols)
        return None

    def rank_at_random_points(self, m: sp.Matrix) -> int:
        """Maximum rank over a few random exact points (a certain lower bound when the
        rewriting is faithful and the values are exact, see :meth:`rank`)."""
        m = sp.Matrix(m)
        rw = rewrite_jointly(list(m))
        if not rw.faithful:
            return self._rank_at_points(jets_only_matrix(m))[0]
        return self._rank_at_points(sp.Matrix(m.rows, m.cols, list(rw.exprs)))[0]

    def _rank_at_points(self, rat: sp.Matrix | None) -> tuple[int, bool]:
        """``(rank, exact)``: the best rank at random points, and whether it was computed
        from exact rational values (then it is a certain lower bound)."""
        if rat is None:
            return 0, False
        # imported at call time: core.algebra's package imports this module
        from geomech.core.algebra.matrices import rational_rank

        syms = sorted(rat.free_symbols, key=sp.default_sort_key)
        best, exact = 0, False
        for _ in range(self.samples):
            check()
            pt = self.random_point(syms)
            try:
                num = rat.xreplace(pt)
                if all(v.is_Rational for v in num):
                    r = rational_rank(num.tolist(), num.cols)
                    exact = exact or r >= best
                    best = max(best, r)
                else:
                    r, proved = certified_float_rank(num)
                    exact = (exact and best >= r) or (proved and r >= best)
                    best = max(best, r)
            except (ZeroDivisionError, TypeError, ValueError):
                continue
            if best == min(rat.shape) and exact:
                break
        return best, exact

    def _exact_rank(self, rat: sp.Matrix) -> int | None:
        """Rank of the rewritten matrix when it is a matrix of rational functions of symbols
        (then exact); ``None`` otherwise."""
        formal = formal_rank(rat)
        if formal is None or not formal[1]:
            return None
        return formal[0]

    def rank_at(self, matrix, point: dict) -> int:
        """Rank of ``matrix`` at a point given as ``{symbol: value}``; values are exact."""
        m = as_matrix(matrix).xreplace({as_expr(k): as_expr(v) for k, v in point.items()})
        pivots = 0
        m = m.applyfunc(lambda e: e if self.zero_test(e).zero is False else sp.S.Zero)
        try:
            pivots = DomainMatrix.from_Matrix(m).to_field().rank()
        except UNDECIDABLE_ERRORS:
            pivots = m.rank(iszerofunc=self.is_zero)
        return pivots

    def nullspace(self, matrix) -> list[sp.Matrix]:
        """Exact right null space over the rational-function field, normalised."""
        m = as_matrix(matrix)
        ns = m.nullspace(iszerofunc=self.is_zero, simplify=False)
        return [v.applyfunc(self.normalize) for v in ns]

#: at most this many bordered minors are formed to certify a rank (ZeroPolicy.rank)
_MAX_BORDERED = 16


def expanded_det(m: sp.Matrix) -> sp.Expr:
    """Determinant by Laplace expansion along the first row, as an unexpanded sum of products
    (no simplification of intermediate results; Berkowitz above 4 x 4).

    >>> a, b, c, d = sp.symbols("a b c d")
    >>> expanded_det(sp.Matrix([[a, b], [c, d]]))
    a*d - b*c
    """
    n = m.rows
    if n == 0:
        return sp.S.One
    if n == 1:
        return m[0, 0]
    if n > 4:
        from geomech.core.algebra.matrices import unsimplified_products

        with unsimplified_products():
            return m.det(method="berkowitz")
    terms = []
    for j in range(n):
        if m[0, j] != 0:
            sub = m.extract(list(range(1, n)), [k for k in range(n) if k != j])
            terms.append((-1) ** j * m[0, j] * expanded_det(sub))
    return sp.Add(*terms)


def _ring_image_vanishes(img: sp.Expr) -> bool:
    """Whether an image under the exponential-logarithmic ring map is zero: its cancelled form,
    or its remainder modulo the square-root relations (certain in both cases)."""
    rat = cancel_or_together(img)
    if rat == 0:
        return True
    alg = algebraic_reduction(rat)
    return alg is not None and alg.zero


def _as_expr(expr) -> sp.Expr:
    if isinstance(expr, str):
        raise TypeError("zero tests take sympy expressions, not strings (parse user text "
                        "with Manifold.parse)")
    e = as_expr(expr)
    if not isinstance(e, sp.Expr):
        raise TypeError(f"a zero test needs a scalar expression, got {type(expr).__name__}")
    return e


_DEFAULT = ZeroPolicy()


def default_policy() -> ZeroPolicy:
    """The globally active policy."""
    return _DEFAULT


def set_default_policy(policy: ZeroPolicy) -> ZeroPolicy:
    """Install ``policy`` globally and return the previous one."""
    global _DEFAULT
    old, _DEFAULT = _DEFAULT, policy
    return old


@contextlib.contextmanager
def using_policy(policy: ZeroPolicy) -> Iterator[ZeroPolicy]:
    """Context manager running a block under another policy.

    >>> with using_policy(ZeroPolicy(strict=True)) as p:
    ...     p.strict
    True
    """
    old = set_default_policy(policy)
    try:
        yield policy
    finally:
        set_default_policy(old)


def normalize(expr) -> sp.Expr:
    """Normalise with the default policy."""
    return _DEFAULT.normalize(expr)


def is_zero(expr) -> bool:
    """Zero test with the default policy."""
    return _DEFAULT.is_zero(expr)


def numerically_zero(e, points: int, symbols: Mapping[str, sp.Symbol] | None = None) -> bool:
    r"""Whether ``e`` vanishes at ``points`` random exact points of the zero policy.

    Each point is evaluated to 40 digits and counts as zero when :math:`|e| \le 10^{-25}`;
    points where ``e`` is undefined or not finite are skipped.  A filter: ``False`` is
    certain, ``True`` only probable (for polynomials: Schwartz (1980), J. ACM 27; Zippel
    (1979)).  ``e`` may be a symengine expression (a fast route that never builds the sympy
    form); ``symbols`` then maps the names of its symbols to the sympy symbols whose
    assumptions choose the points.

    >>> x = sp.Symbol("x", real=True)
    >>> numerically_zero(sp.sin(x)**2 + sp.cos(x)**2 - 1, 3), numerically_zero(x - 1, 3)
    (True, False)
    """
    if isinstance(e, sp.Basic):
        e, _ = jet_replacement(as_expr(e))
        syms = sorted(e.free_symbols, key=sp.default_sort_key)
        value = functools.partial(_value_at, e)
    else:
        syms, value = _engine_value(e, symbols or {})
    pol = default_policy()
    seen = 0
    for _ in range(4 * points):
        poll()
        v = value(pol.random_point(syms))
        if v is None:
            continue
        seen += 1
        if abs(v) > 1e-25:
            return False
        if seen >= points:
            break
    return True


def _value_at(e: sp.Expr, pt: dict):
    """``e`` at ``pt`` to 40 digits; ``None`` where undefined or not finite."""
    try:
        v = sp.N(e.xreplace(pt), 40)
    except (ZeroDivisionError, TypeError, ValueError):
        return None
    return None if not v.is_number or v.has(sp.zoo, sp.nan) else v


def _engine_value(e, symbols: Mapping[str, sp.Symbol]):
    """``(sympy symbols, evaluation at a point)`` of a symengine expression (133 bits = 40
    digits; ``None`` where undefined or not finite)."""
    import symengine as se

    try:
        syms = sorted((symbols[str(s)] for s in e.free_symbols), key=sp.default_sort_key)
    except KeyError as exc:
        raise ValueError(f"no sympy symbol named {exc.args[0]!r} given for the points") from None

    def value(pt: dict):
        try:
            v = complex(e.subs({se.sympify(k): se.sympify(x) for k, x in pt.items()}).n(133))
        except (RuntimeError, TypeError, ValueError, ZeroDivisionError):
            return None
        return v if cmath.isfinite(v) else None

    return syms, value
