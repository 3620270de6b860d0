r"""Certified membership of a vector of functions in the span of generically independent ones.

For columns :math:`b_1, \dots, b_r` independent over the field of functions and a vector
:math:`v` found dependent on them at random exact points, the decision
:math:`v \in \operatorname{span}(b_1, \dots, b_r)` is made by *guess and verify*: the
coefficients :math:`v(p) = \sum_k c_k(p)\, b_k(p)` at the points are exact rationals;

1. if they are the same at every point, :math:`v - \sum_k c_k b_k = 0` is tested exactly
   (a certain zero proves membership with constant coefficients);
2. otherwise the coefficients are computed exactly from a square subsystem on rows where
   the (supported) columns are independent at a point -- hence generically -- by
   :func:`~geomech.core.algebra.solve.solve_linear`, and the remaining rows are tested
   exactly.  With all columns the solution is unique, so a certain non-zero residual proves
   :math:`v \notin \operatorname{span}` (the points were unlucky).

Only certain verdicts of an exact zero test count (a private policy that never records an
uncertainty and never calls ``simplify``); anything else answers ``None`` and the caller
falls back to an exact rank.  This replaces an exact rank over the field of rational
functions by a few zero tests of residuals; the rank is still proved, a lower bound by the
points and an upper bound by the verified combination.

>>> import sympy as sp
>>> from fractions import Fraction as F
>>> x = sp.Symbol("x")
>>> b = [(sp.S.One, x)]
>>> samples = [([[F(1), F(2)]], [F(3), F(6)]), ([[F(1), F(5)]], [F(3), F(15)])]
>>> certified_membership(b, (sp.S(3), 3*x), samples)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import sympy as sp

from geomech.core.algebra.matrices import independent_rows, rational_solve
from geomech.core.algebra.solve import solve_linear
from geomech.core.zero import UNDECIDABLE_ERRORS, ZeroPolicy

__all__ = ["certified_membership", "coefficients_at"]

_EXACT = ZeroPolicy(warn=False, confirm_with_simplify=False)


def coefficients_at(basis: Sequence[Sequence[Fraction]], v: Sequence[Fraction],
                    cols: Sequence[int] | None = None) -> tuple[list, list[int]] | None:
    r"""Exact coefficients :math:`c` with :math:`v = \sum_k c_k b_k` at one point (columns
    ``cols``, default all), and the rows used; ``None`` when the columns are dependent there
    or ``v`` is not in their span.

    >>> coefficients_at([[1, 0, 1], [0, 1, 1]], [2, 3, 5])
    ([Fraction(2, 1), Fraction(3, 1)], [0, 1])
    """
    cols = list(range(len(basis))) if cols is None else list(cols)
    n = len(v)
    rows_all = [[basis[k][i] for k in cols] for i in range(n)]
    rows = independent_rows(rows_all, len(cols)) if cols else []
    if len(rows) < len(cols):
        return None
    c = rational_solve([rows_all[i] for i in rows], [v[i] for i in rows]) if cols else []
    c = [Fraction(int(a.p), int(a.q)) for a in c]
    if any(sum((Fraction(a) * b for a, b in zip(rows_all[i], c)), Fraction(0)) != v[i]
           for i in range(n)):
        return None
    return c, rows


def _exact_zero(e: sp.Expr) -> bool | None:
    """``True``/``False`` when the zero test is certain, else ``None``."""
    if e == 0:
        return True
    try:
        v = _EXACT.zero_test(e)
    except UNDECIDABLE_ERRORS:
        return None
    return bool(v.zero) if v.certain else None


def _residuals_vanish(basis, v, coeffs: dict, rows) -> bool | None:
    """Exact test of :math:`v_i - \\sum_k c_k b_{k,i} = 0` on ``rows``: ``True`` when all
    vanish, ``False`` when one is certainly non-zero, ``None`` when undecided."""
    undecided = False
    for i in rows:
        e = v[i] - sp.Add(*[c * basis[k][i] for k, c in coeffs.items() if c != 0])
        z = _exact_zero(e)
        if z is False:
            return False
        undecided = undecided or z is None
    return None if undecided else True


def certified_membership(basis: Sequence[Sequence[sp.Expr]], v: Sequence[sp.Expr],
                         samples: Sequence[tuple]) -> bool | None:
    r"""Whether ``v`` lies in the span of the generically independent ``basis`` vectors,
    decided exactly, guided by ``samples`` = ``[(basis values, v values)]`` at points where
    the basis is independent (exact rationals).  ``True``: proved in the span; ``False``:
    proved outside; ``None``: undecided (no sample, or a zero test was not certain).
    """
    n = len(v)
    if all(e == 0 for e in v):
        return True
    got = [coefficients_at(bp, vp) for bp, vp in samples]
    got = [g for g in got if g is not None]
    if not got:
        return None
    r = len(basis)
    first = got[0][0]
    if all(c == first for c, _ in got):
        coeffs = {k: sp.Rational(c.numerator, c.denominator) for k, c in enumerate(first)}
        if _residuals_vanish(basis, v, coeffs, range(n)) is True:
            return True
    support = sorted({k for c, _ in got for k in range(r) if c[k] != 0})
    tries = [support] if len(support) == r else [support, list(range(r))]
    for cols in tries:
        verdict = _solved_and_verified(basis, v, cols, samples)
        if verdict is True or (verdict is False and len(cols) == r):
            return verdict
    return None


def _solved_and_verified(basis, v, cols: list[int], samples) -> bool | None:
    """Coefficients on ``cols`` from a square subsystem independent at a sample point,
    then the other rows tested exactly."""
    if not cols:
        return _residuals_vanish(basis, v, {}, range(len(v)))
    bp = samples[0][0]
    rows = independent_rows([[bp[k][i] for k in cols] for i in range(len(v))], len(cols))
    if len(rows) < len(cols):
        return None
    A = sp.Matrix(len(cols), len(cols), lambda a, b: basis[cols[b]][rows[a]])
    try:
        x = solve_linear(A, sp.Matrix([v[i] for i in rows]), what="minor")
    except (ValueError, *UNDECIDABLE_ERRORS):
        return None
    coeffs = dict(zip(cols, x))
    others = [i for i in range(len(v)) if i not in rows]
    return _residuals_vanish(basis, v, coeffs, others)
