r"""Numeric certification of the zero policy: exact evaluation at rational points,
evaluation with guaranteed relative accuracy (``evalf(strict=True)``, no absolute
threshold), formal ranks over the fraction field of the entries and certified float ranks
(a maximal minor chosen by pivoted QR, Golub & Van Loan 2013, *Matrix Computations*, §5.4,
evaluated with guaranteed accuracy).

>>> x = sp.Symbol("x")
>>> evaluate_at(x**2 - 2, {x: sp.Rational(1, 2)})
-7/4
>>> formal_rank(sp.Matrix([[x, 1], [x**2, x]]))[0]
1
"""

from __future__ import annotations

from collections.abc import Iterable

import sympy as sp
from sympy.core.evalf import PrecisionExhausted
from sympy.polys.matrices import DomainMatrix

from geomech.core.parse import as_expr
from geomech.core.zero.rewrite import cancel_or_together
from geomech.core.zero.verdicts import UNDECIDABLE_ERRORS

__all__ = ["evaluate_at", "strict_value", "interval_value", "non_finite", "require_finite",
           "formal_rank", "certified_float_rank", "certified_float_minor"]


_OPAQUE: dict = {}          # atom -> indeterminate for formal ranks


def evaluate_at(e: sp.Expr, pt: dict):
    """Exact value when possible, else a value with 30 correct digits; ``None`` if undefined
    there or if evaluation cannot tell the value from zero (no absolute threshold: a value
    is returned only with guaranteed relative accuracy)."""
    try:
        try:
            v = e.xreplace(pt)
        except OverflowError:
            # automatic evaluation of a rational power of a huge integer (sympy factors
            # it); evaluate numerically instead, without exact substitution
            v = e.evalf(40, subs=pt)
        if non_finite(v):
            return None
        if v.is_Rational:
            return v
        if not v.is_number:
            return None
        return strict_value(v, 30)
    except (ZeroDivisionError, TypeError, ValueError, OverflowError):
        return None


def strict_value(v: sp.Expr, digits: int):
    """``v`` to ``digits`` correct digits (``0`` only if sympy proves it), ``None`` when the
    precision cannot be reached (the value is zero or cancels beyond ``maxn`` bits).

    >>> strict_value(sp.sqrt(2), 5)
    1.4142
    """
    try:
        f = v.evalf(digits, strict=True, maxn=8 * digits)
    except PrecisionExhausted:
        return None
    if not f.is_number or non_finite(f):
        return None
    return f


def interval_value(e: sp.Expr, point: dict, prec: int = 120):
    r"""An interval enclosing the value of ``e`` at ``point`` (symbols -> rationals), by
    interval arithmetic at ``prec`` bits (``mpmath``'s interval context; Moore, Kearfott &
    Cloud (2009), *Introduction to Interval Analysis*): sums, products, integer and rational
    powers, ``sin``, ``cos``, ``exp``, ``log``; each distinct sub-expression evaluated once.
    ``None`` for other atoms.  An enclosure that excludes 0 proves the value non-zero.

    >>> x = sp.Symbol("x")
    >>> 0 in interval_value(sp.sqrt(x) - 1, {x: sp.Rational(9, 4)})
    False
    """
    from mpmath.ctx_iv import MPIntervalContext

    ctx = MPIntervalContext()
    ctx.prec = prec
    funcs = {sp.sin: ctx.sin, sp.cos: ctx.cos, sp.exp: ctx.exp, sp.log: ctx.log}
    memo: dict = {}

    def num(r):
        r = sp.Rational(r)
        return ctx.mpf(int(r.p)) / int(r.q)

    def val(a):
        got = memo.get(a)
        if got is not None:
            return got
        if a.is_Rational:
            got = num(a)
        elif a.is_Symbol:
            if a not in point:
                raise _NoEnclosure
            got = num(point[a])
        elif a.is_Add:
            got = sum((val(t) for t in a.args[1:]), val(a.args[0]))
        elif a.is_Mul:
            got = val(a.args[0])
            for t in a.args[1:]:
                got = got * val(t)
        elif a.is_Pow and a.exp.is_Integer:
            got = val(a.base) ** int(a.exp)
        elif a.is_Pow and a.exp.is_Rational:
            b = val(a.base)
            if b.a < 0:
                raise _NoEnclosure                     # a root of a possibly negative number
            got = ctx.exp(ctx.log(b) * num(a.exp)) if a.exp.q != 2 else \
                ctx.sqrt(b) ** int(a.exp.p)
        elif type(a) in funcs:
            got = funcs[type(a)](val(a.args[0]))
        else:
            raise _NoEnclosure
        memo[a] = got
        return got

    try:
        return val(as_expr(e))
    except (_NoEnclosure, ZeroDivisionError, ValueError):
        return None


class _NoEnclosure(Exception):
    """An atom without an interval extension (or a root of a possibly negative number)."""


def non_finite(e: sp.Expr) -> bool:
    """Whether ``e`` contains ``nan``, ``zoo`` or an infinity (never zero).

    >>> non_finite(sp.zoo), non_finite(sp.Integer(1))
    (True, False)
    """
    return bool(e.has(sp.nan, sp.zoo, sp.oo, -sp.oo))


def require_finite(values: Iterable, what: str) -> None:
    """Raise ``ValueError`` if a value is ``nan``, ``zoo`` or infinite (or contains one).

    Non-finite numbers are never zero, so they must not enter fields, forms or structure
    constants, where they would make equality and identities meaningless.

    >>> require_finite([1, sp.Symbol("x")], "components")
    >>> require_finite([sp.nan], "components")
    Traceback (most recent call last):
    ...
    ValueError: components must be finite, got nan (position 0)
    """
    for i, v in enumerate(values):
        if isinstance(v, sp.Basic) and non_finite(v):
            raise ValueError(f"{what} must be finite, got {v} (position {i})")


def formal_rank(rat: sp.Matrix) -> tuple[int, bool, list, list] | None:
    """Rank over the fraction field of the entries' generators, whether the generators are
    all symbols, and the rows and columns of a formally non-zero maximal minor."""
    rat = rat.applyfunc(cancel_or_together)
    if any(non_finite(v) for v in rat):
        return None
    opaque = set().union(*(v.atoms(sp.Function) for v in rat)) | {
        p for v in rat for p in v.atoms(sp.Pow) if not p.exp.is_Integer}
    if opaque:    # independent indeterminates: a formal zero is still a zero
        rat = rat.xreplace({a: _OPAQUE.setdefault(a, sp.Dummy("g")) for a in opaque})
    try:
        dm = DomainMatrix.from_Matrix(rat)
        dom = dm.domain
        if not (dom.is_Numerical or dom.is_PolynomialRing or dom.is_FractionField):
            return None
        symbolic = not opaque and (dom.is_QQ or dom.is_ZZ or (
            not dom.is_Numerical and (dom.domain.is_QQ or dom.domain.is_ZZ)
            and all(g.is_Symbol for g in dom.symbols)))
        fm = dm.to_field()
        _, cols = fm.rref()
        if not cols:
            return 0, symbolic, [], []
        _, rows = fm.extract(list(range(rat.rows)), list(cols)).transpose().rref()
    except UNDECIDABLE_ERRORS:  # any failure means "not decidable exactly"
        return None
    return len(cols), symbolic, list(rows), list(cols)


def certified_float_rank(num: sp.Matrix) -> tuple[int, bool]:
    """Numerical rank of a matrix of numbers, and whether it is proved: a maximal minor
    chosen by pivoted QR is evaluated with guaranteed relative accuracy."""
    r, proved, _, _ = certified_float_minor(num)
    return r, proved


def certified_float_minor(num: sp.Matrix) -> tuple[int, bool, list, list]:
    """``(rank, proved, rows, cols)``: the numerical rank of a matrix of numbers and a maximal
    minor chosen by pivoted QR (Golub & Van Loan 2013, §5.4); ``proved`` when that minor is
    non-zero with guaranteed relative accuracy."""
    import numpy as np
    from scipy.linalg import qr

    r = _float_rank(num)
    if r == 0:
        return 0, False, [], []
    try:
        a = np.array(num.evalf(30).tolist(), dtype=complex)
        cols = sorted(qr(a, pivoting=True, mode="r")[1][:r])
        rows = sorted(qr(a[:, cols].T, pivoting=True, mode="r")[1][:r])
        det = num.extract(rows, cols).det(method="berkowitz")
    except (TypeError, ValueError, np.linalg.LinAlgError):
        return r, False, [], []
    val = strict_value(det, 15) if not det.is_Rational else det
    return r, val is not None and val != 0, [int(i) for i in rows], [int(j) for j in cols]


def _float_rank(m: sp.Matrix) -> int:
    import numpy as np

    a = np.array(m.evalf(30).tolist(), dtype=complex)
    return int(np.linalg.matrix_rank(a, tol=1e-9 * max(1.0, float(np.abs(a).max()))))

