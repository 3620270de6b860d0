r"""Zero-testing and normalisation policy: the one place that decides "is this zero?".

Every decision of the form "this expression vanishes identically" or "this matrix has generic
rank r" made anywhere in geomech goes through a :class:`ZeroPolicy`.  The default policy is

1. **exact normalisation** -- undefined functions and their derivatives are replaced by
   independent jet symbols, trigonometric functions of a symbol ``s`` are rewritten rationally
   in ``t = tan(s/2)``, and the result is put over a common denominator with ``cancel``
   (sparse polynomial arithmetic).  A zero numerator proves the expression is zero;
2. **randomised evaluation** as a fast filter -- the expression is evaluated exactly at random
   rational points (after the rational rewriting) or at high precision otherwise; a clearly
   non-zero value proves the expression is non-zero;
3. **exact confirmation** -- when evaluation says "zero" but the normal form did not vanish
   (algebraic relations between generators, e.g. square roots), ``sympy.simplify`` is tried as
   a confirmation.  If it cannot confirm, the answer is *probably zero*: the verdict carries
   ``certain=False`` and, under ``strict=True``, :class:`UndecidedZero` is raised.

``simplify(e) == 0`` alone is never used to decide anything.

Examples
--------
>>> import sympy as sp
>>> from geomech.core.zero import default_policy
>>> phi, x = sp.symbols("phi x", real=True)
>>> default_policy().is_zero(sp.sin(phi)**2 + sp.cos(phi)**2 - 1)
True
>>> default_policy().zero_test(x**2 - 1)
ZeroVerdict(zero=False, certain=True, method='normal form')
>>> default_policy().rank(sp.Matrix([[sp.cos(phi), sp.sin(phi)], [-sp.sin(phi), sp.cos(phi)]]))
2
"""

from __future__ import annotations

import contextlib
import random
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.polys.matrices import DomainMatrix

__all__ = [
    "ZeroPolicy",
    "ZeroVerdict",
    "UndecidedZero",
    "ProbablyZeroWarning",
    "default_policy",
    "set_default_policy",
    "using_policy",
    "normalize",
    "is_zero",
    "rational_rewrite",
    "half_angle_symbol",
    "is_auxiliary_symbol",
]


class UndecidedZero(ArithmeticError):
    """Raised by a strict policy when an expression is only *probably* zero."""


class ProbablyZeroWarning(UserWarning):
    """Emitted when a zero decision rests on numerical evidence only."""


@dataclass(frozen=True)
class ZeroVerdict:
    """Outcome of a zero test.

    Attributes
    ----------
    zero : bool
        The decision.
    certain : bool
        ``True`` when the decision is proved (exact normal form, exact evaluation or a
        confirmed simplification); ``False`` when it rests on numerical evidence only.
    method : str
        Which stage decided: ``"normal form"``, ``"evaluation"`` or ``"simplify"`` or
        ``"numeric only"``.
    """

    zero: bool
    certain: bool
    method: str

    def __bool__(self) -> bool:
        return self.zero


# one auxiliary symbol per jet variable / per angle, shared by all expressions so that the
# rewriting is the same ring map on every entry of a matrix
_JETS: dict = {}
_HALF_ANGLE: dict = {}


def _jet_replacement(expr: sp.Expr) -> tuple[sp.Expr, dict]:
    """Replace undefined functions and their derivatives by independent symbols.

    Jet variables of an arbitrary function are functionally independent, so an identity in
    ``U, U_x, U_xy, ...`` holds iff it holds with independent symbols in their place.
    """
    atoms = sorted(expr.atoms(sp.Derivative), key=sp.default_sort_key, reverse=True)
    atoms += sorted(expr.atoms(AppliedUndef), key=sp.default_sort_key)
    rep = {a: _JETS.setdefault(a, sp.Dummy(f"jet{len(_JETS)}", real=True)) for a in atoms}
    return (expr.xreplace(rep) if rep else expr), rep


def _half_angle(expr: sp.Expr) -> sp.Expr:
    """Rewrite trigonometric functions rationally in ``tan`` of half angles.

    ``sin(k s + ...)`` is first expanded with ``expand_trig``; each remaining ``sin(s)``,
    ``cos(s)``, ``tan(s)`` of a *symbol* ``s`` becomes a rational function of a fresh
    ``t_s = tan(s/2)``.  The rewriting is an injective ring map on the trigonometric
    polynomials, so the result is zero iff ``expr`` is.
    """
    trig = expr.atoms(sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc)
    if not trig:
        return expr
    if any(not t.args[0].is_Symbol for t in trig):
        expr = sp.expand_trig(expr)
        trig = expr.atoms(sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc)
    rep = {}
    tvars = _HALF_ANGLE
    for f in trig:
        s = f.args[0]
        if not s.is_Symbol:
            continue
        t = tvars[s] if s in tvars else half_angle_symbol(s)
        sn, cs = 2 * t / (1 + t**2), (1 - t**2) / (1 + t**2)
        rep[f] = {sp.sin: sn, sp.cos: cs, sp.tan: sn / cs, sp.cot: cs / sn,
                  sp.sec: 1 / cs, sp.csc: 1 / sn}[f.func]
    return expr.xreplace(rep)


def rational_rewrite(expr) -> sp.Expr:
    """The injective rewriting used for exact evaluation and zero tests.

    Undefined functions and their derivatives become independent jet symbols and
    ``sin``/``cos``/``tan`` of a symbol ``s`` become rational functions of ``t_s = tan(s/2)``.
    The auxiliary symbols are shared by all expressions (see :func:`half_angle_symbol`), so
    the rewriting is one ring map on every entry of a matrix.

    >>> import sympy as sp
    >>> phi = sp.Symbol("phi")
    >>> t = half_angle_symbol(phi)
    >>> sp.simplify(rational_rewrite(sp.sin(phi)) - 2*t/(1 + t**2))
    0
    """
    return _half_angle(_jet_replacement(sp.sympify(expr))[0])


def half_angle_symbol(s: sp.Symbol) -> sp.Dummy:
    """The auxiliary symbol ``tan(s/2)`` used by :func:`rational_rewrite` for angle ``s``."""
    return _HALF_ANGLE.setdefault(s, sp.Dummy(f"t_{s}", real=True))


def is_auxiliary_symbol(sym: sp.Symbol, kind: str | None = None) -> bool:
    """Whether ``sym`` was introduced by :func:`rational_rewrite`: a jet symbol
    (``kind="jet"``), a half-angle symbol (``kind="half_angle"``) or either (``None``)."""
    if kind == "jet":
        return sym in _JETS.values()
    if kind == "half_angle":
        return sym in _HALF_ANGLE.values()
    return sym in _JETS.values() or sym in _HALF_ANGLE.values()


def _rational_form(expr: sp.Expr) -> sp.Expr:
    """Exact normal form used for zero tests (jets replaced, half-angle rational, cancelled)."""
    e, _ = _jet_replacement(sp.sympify(expr))
    e = _half_angle(e)
    return sp.cancel(sp.together(e))


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
        """Cheap canonical form for storage: expanded polynomial or a cancelled fraction.

        Polynomial expressions (in any generators, including ``sin(phi)``) are expanded;
        others are put over a common denominator and cancelled.  No ``simplify``.
        """
        e = sp.sympify(expr)
        if e.is_Atom:
            return e
        if _has_denominator(e):
            e = sp.cancel(e)
            n, d = sp.fraction(e)
            n2, d2 = _trig_reduce(n), _trig_reduce(d)
            return e if (n2 is n and d2 is d) else sp.cancel(n2 / d2)
        return _trig_reduce(sp.expand(e))

    # -- zero test ----------------------------------------------------------------------
    def zero_test(self, expr) -> ZeroVerdict:
        """Decide whether ``expr`` vanishes identically; see the module docstring."""
        e = sp.sympify(expr)
        if e == 0:
            return ZeroVerdict(True, True, "normal form")
        if e.is_number and e.is_comparable:
            return ZeroVerdict(bool(abs(sp.N(e, 30)) < 1e-25 and e.equals(0)), True,
                               "evaluation")
        ring_verdict = _ring_zero_test(e)
        if ring_verdict is not None:
            return ZeroVerdict(ring_verdict, True, "normal form")
        rat = _rational_form(e)
        if rat == 0:
            return ZeroVerdict(True, True, "normal form")
        if _is_rational_in_symbols(rat):
            # ``cancel`` is canonical on rational functions: a non-zero result is non-zero
            return ZeroVerdict(False, True, "normal form")
        numeric = self._numerically_zero(rat)
        if numeric is False:
            return ZeroVerdict(False, True, "evaluation")
        if self.confirm_with_simplify:
            with contextlib.suppress(Exception):
                if sp.simplify(rat) == 0 or sp.simplify(e) == 0:
                    return ZeroVerdict(True, True, "simplify")
        verdict = ZeroVerdict(True, False, "numeric only")
        self._record(e)
        return verdict

    def is_zero(self, expr) -> bool:
        """``True`` iff ``expr`` is (certainly or probably) zero; strict policies raise."""
        return self.zero_test(expr).zero

    def is_constant(self, expr, symbols: Iterable[sp.Symbol]) -> bool:
        """Whether ``expr`` does not depend on ``symbols`` (all its partials vanish)."""
        e = sp.sympify(expr)
        return all(self.is_zero(sp.diff(e, s)) for s in symbols if e.has(s))

    def _record(self, e) -> None:
        self.uncertain.append(e)
        if self.strict:
            raise UndecidedZero(f"expression is only numerically zero: {e}")
        if self.warn:
            warnings.warn(f"zero decided numerically only: {sp.sstr(e)[:200]}",
                          ProbablyZeroWarning, stacklevel=3)

    # -- evaluation ---------------------------------------------------------------------
    def random_point(self, symbols: Iterable[sp.Symbol]) -> dict:
        """Random rational values (exact) for ``symbols``, respecting positivity."""
        pt = {}
        for s in symbols:
            num = self._rng.randint(1, 97)
            den = self._rng.randint(1, 89)
            val = sp.Rational(num, den)
            if not (s.is_positive or s.is_nonnegative) and self._rng.random() < 0.5:
                val = -val
            pt[s] = val
        return pt

    def _numerically_zero(self, rat: sp.Expr) -> bool | None:
        """Evaluate at random points: ``False`` if clearly non-zero, ``True`` if zero at all,
        ``None`` when evaluation is impossible."""
        syms = sorted(rat.free_symbols, key=sp.default_sort_key)
        seen_value = False
        for _ in range(self.samples):
            val = _evaluate(rat, self.random_point(syms))
            if val is None:
                continue
            seen_value = True
            if val != 0:
                return False
        return True if seen_value else None

    # -- ranks --------------------------------------------------------------------------
    def rank(self, matrix) -> int:
        r"""Generic rank of a matrix of expressions.

        The rank at random exact points is a certain lower bound; the exact rank over the
        field of rational functions (after the half-angle rewriting) confirms it.  When the
        exact computation is not possible the random-point rank is returned and flagged as
        probable (it equals the generic rank with probability one).
        """
        m = sp.Matrix(matrix)
        if 0 in m.shape:
            return 0
        lower = self.rank_at_random_points(m)
        if lower == min(m.shape):
            return lower
        exact = self._exact_rank(m)
        if exact is not None:
            return exact
        self._record(sp.Symbol(f"rank={lower}"))
        return lower

    def rank_at_random_points(self, m: sp.Matrix) -> int:
        """Maximum rank over a few random exact points (a certain lower bound)."""
        rat = m.applyfunc(lambda e: _half_angle(_jet_replacement(sp.sympify(e))[0]))
        syms = sorted(rat.free_symbols, key=sp.default_sort_key)
        best = 0
        for _ in range(self.samples):
            pt = self.random_point(syms)
            try:
                num = rat.xreplace(pt)
                num = num.applyfunc(lambda v: sp.nsimplify(v) if v.is_Float else v)
                if all(v.is_Rational for v in num):
                    best = max(best, DomainMatrix.from_Matrix(num).convert_to(sp.QQ).rank())
                else:
                    best = max(best, _float_rank(num))
            except (ZeroDivisionError, TypeError, ValueError):
                continue
            if best == min(m.shape):
                break
        return best

    def _exact_rank(self, m: sp.Matrix) -> int | None:
        rat = m.applyfunc(_rational_form)
        try:
            dm = DomainMatrix.from_Matrix(rat)
            if dm.domain.is_Numerical or dm.domain.is_PolynomialRing or dm.domain.is_FractionField:
                return dm.to_field().rank()
        except Exception:  # noqa: BLE001 - any failure means "not decidable exactly"
            return None
        return None

    def rank_at(self, matrix, point: dict) -> int:
        """Rank of ``matrix`` at a point given as ``{symbol: value}``; values are exact."""
        m = sp.Matrix(matrix).xreplace({sp.sympify(k): sp.sympify(v) for k, v in point.items()})
        pivots = 0
        m = m.applyfunc(lambda e: e if self.zero_test(e).zero is False else sp.S.Zero)
        try:
            pivots = DomainMatrix.from_Matrix(m).to_field().rank()
        except Exception:  # noqa: BLE001
            pivots = m.rank(iszerofunc=self.is_zero)
        return pivots

    def nullspace(self, matrix) -> list[sp.Matrix]:
        """Exact right null space over the rational-function field, normalised."""
        m = sp.Matrix(matrix)
        ns = m.nullspace(iszerofunc=self.is_zero, simplify=False)
        return [v.applyfunc(self.normalize) for v in ns]


def _ring_zero_test(e: sp.Expr) -> bool | None:
    """Exact decision for polynomials in symbols and ``sin``/``cos`` of symbols (rational
    coefficients): the remainder modulo the Pythagorean relations is canonical."""
    from .polykernel import DiffRing

    R = DiffRing.for_expressions([e], ())
    if R is None:
        return None
    return R.is_zero(R.to_ring(e))


def _trig_reduce(e: sp.Expr) -> sp.Expr:
    """Use ``sin(s)^2 + cos(s)^2 = 1`` when it shortens an expanded polynomial.

    When ``e`` is a polynomial in symbols and ``sin``/``cos`` of symbols, its two canonical
    remainders modulo the Pythagorean relations (``sin`` of degree < 2, or ``cos`` of degree
    < 2) are computed in the sparse ring and the expression with the fewest terms is kept
    (ties keep ``e``, then prefer the ``sin``-reduced form).  Other expressions use the
    substitution ``sin^2 -> 1 - cos^2`` / ``cos^2 -> 1 - sin^2`` with the same rule.  The
    result equals ``e`` as a function; this is cosmetics, never a zero decision.
    """
    if not e.is_Add:
        return e
    angles = {p.base.args[0] for p in e.atoms(sp.Pow) if p.exp.is_Integer and p.exp >= 2
              and isinstance(p.base, (sp.sin, sp.cos))}
    if not angles:
        return e
    from .polykernel import DiffRing

    R = DiffRing.for_expressions([e], ())
    if R is not None:
        p = R.to_ring(e)
        best, n_best = None, len(p.terms())
        for cand in (R.reduce(p), R.reduce(p, prefer="cos")):
            if len(cand.terms()) < n_best:
                best, n_best = cand, len(cand.terms())
        return e if best is None else R.to_expr(best)
    best, n_best = e, len(e.args)
    for s in angles:
        sn, cs = sp.sin(s), sp.cos(s)
        for a, b in ((sn, cs), (cs, sn)):
            cand = sp.expand(_reduce_square(best, a, b))
            n = len(cand.args) if cand.is_Add else 1
            if n < n_best:
                best, n_best = cand, n
    return best


def _reduce_square(e: sp.Expr, a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """Replace ``a**k`` (k >= 2) by ``a**(k-2) * (1 - b**2)``."""
    return e.replace(lambda p: p.is_Pow and p.base == a and p.exp.is_Integer and p.exp >= 2,
                     lambda p: a ** (p.exp - 2) * (1 - b**2))


def _has_denominator(e: sp.Expr) -> bool:
    for p in sp.preorder_traversal(e):
        if p.is_Pow and p.exp.is_negative:
            return True
    return False


def _is_rational_in_symbols(e: sp.Expr) -> bool:
    """Whether ``e`` is a rational function of its free symbols with rational coefficients."""
    try:
        n, d = sp.fraction(e)
        gens = sorted(e.free_symbols, key=sp.default_sort_key)
        if not gens:
            return False
        for x in (n, d):
            dom = sp.Poly(x, *gens).domain
            if not (dom.is_ZZ or dom.is_QQ or dom.is_AlgebraicField):
                return False
        return True
    except sp.PolynomialError:
        return False
    except Exception:  # noqa: BLE001
        return False


def _evaluate(e: sp.Expr, pt: dict):
    """Exact value when possible, else a 40-digit float; ``None`` if undefined there."""
    try:
        v = e.xreplace(pt)
        if v.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            return None
        if v.is_Rational:
            return v
        f = sp.N(v, 40)
        if not f.is_number:
            return None
        if f.has(sp.zoo, sp.nan):
            return None
        if abs(f) < sp.Float("1e-30", 40):
            return sp.S.Zero
        return f
    except (ZeroDivisionError, TypeError, ValueError):
        return None


def _float_rank(m: sp.Matrix) -> int:
    import numpy as np

    a = np.array(m.evalf(30).tolist(), dtype=complex)
    return int(np.linalg.matrix_rank(a, tol=1e-9 * max(1.0, float(np.abs(a).max()))))


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
