r"""Proofs that an expression is not identically zero, or a matrix of full rank, by exact
values at points.

A zero test must prove what it claims; a *non-zero* claim is proved by one exact value:

* :class:`PointValues` (:func:`exact_values`) -- the exact rational value of a rational
  function of symbols and of sines and cosines of integer combinations of angles, at a
  point where every angle has rational sine and cosine (:math:`s = 2\arctan t`:
  :math:`((1-t^2), 2t)/(1+t^2)`), with Gaussian rationals, and its first derivatives;
* :func:`~geomech.core.zero.evaluation.interval_value` -- an interval enclosure of the
  value for other atoms (roots, exponentials, logarithms): an enclosure that excludes 0
  proves the value non-zero (Moore, Kearfott & Cloud (2009), *Introduction to Interval
  Analysis*);
* :func:`certainly_nonzero` and :func:`certainly_full_rank` -- the proofs built from them
  (a non-zero value, a full exact or interval rank at a point); what they cannot prove is
  left to the zero policy (:mod:`geomech.core.zero.policy`).

They serve the structure-keeping solves of the equations of motion
(:mod:`geomech.mechanics.equations.elimination`), which must know a determinant non-zero
without expanding it.

>>> s = sp.Symbol("s")
>>> certainly_nonzero(sp.sin(2*s)), certainly_full_rank(sp.Matrix([[1, s], [s, s**2]]))
(True, False)
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import sympy as sp

from geomech.core.algebra.matrices import rational_rank
from geomech.core.budget import check
from geomech.core.parse import as_expr
from geomech.core.zero.evaluation import interval_value
from geomech.core.zero.policy import ZeroPolicy, default_policy
from geomech.core.zero.rewrite import half_angle_sin_cos

__all__ = ["polynomial_values", "OutsideRing", "NeedsRoot", "finite_samples",
           "PointValues", "exact_values",
           "certainly_nonzero", "nowhere_zero", "certainly_full_rank", "QuadraticValues",
           "quadratic_points"]


def _fraction(v):
    v = sp.Rational(v)
    return Fraction(int(v.p), int(v.q))


def _circle_power(pair, k: int) -> tuple[Fraction, Fraction]:
    """:math:`(c + i s)^k` as a pair of Fractions (``pair = (c, s)`` on the unit circle)."""
    c, si = _fraction(pair[0]), _fraction(pair[1])
    if k < 0:
        si, k = -si, -k
    re, im = Fraction(1), Fraction(0)
    for _ in range(k):
        re, im = re * c - im * si, re * si + im * c
    return re, im


def _trig_value(f, angles: dict, missing: type) -> Fraction:
    r""":math:`\cos` or :math:`\sin` of an integer combination of the angles (``f``), from
    :math:`e^{i\sum k_j s_j} = \prod (c_j + i s'_j)^{k_j}`; raises ``missing`` otherwise."""
    re, im = Fraction(1), Fraction(0)
    for t in sp.Add.make_args(f.args[0]):
        k, s = t.as_coeff_Mul()
        if not (k.is_Integer and s in angles):
            raise missing
        a, b = _circle_power(angles[s], int(k))
        re, im = re * a - im * b, re * b + im * a
    return re if isinstance(f, sp.cos) else im


class PointValues:
    r"""Exact values, and first derivatives along one symbol, of rational expressions (sums,
    products and integer powers of rational numbers, symbols and, with ``angles``, sines and
    cosines of integer combinations of angles) at one rational point, in one pass over each
    expression tree with a memo shared by every expression evaluated at the point (sympy's
    rational domain ``QQ``: no expression is rebuilt, as ``xreplace`` would).  An angle
    :math:`s` has :math:`e^{is} = c + i\,s'` with rational ``angles[s] = (c, s')``, so
    :math:`e^{i\sum k_js_j} = \prod (c_j + i s'_j)^{k_j}` (Gaussian rationals).

    :meth:`value` is :math:`e(p)`; :meth:`jet` is :math:`(e(p), \partial e/\partial x\,(p))`
    by forward differentiation with dual numbers, :math:`(u, u')(v, v') = (uv, u'v + uv')`,
    :math:`(u, u')^n = (u^n, n u^{n-1} u')` (Griewank & Walther (2008), *Evaluating
    Derivatives*, §3.1).  Both are exact.  ``ZeroDivisionError`` where the denominator of a
    sub-expression vanishes (``e`` may be finite there after cancelling: the caller decides,
    e.g. by cancelling), :class:`OutsideRing` for another atom or a symbol without a value.

    >>> x, y = sp.symbols("x y")
    >>> pv = PointValues({x: sp.Rational(1, 2), y: 3})
    >>> pv.value(x**2*y/(1 + x)), pv.jet(x**2*y/(1 + x), x)
    (1/2, (1/2, 5/3))
    >>> t = sp.Symbol("t")
    >>> PointValues({x: 2}, {t: (sp.Rational(3, 5), sp.Rational(4, 5))}).value(
    ...     x*sp.cos(2*t)/(1 + sp.sin(t)))
    -14/45
    """

    def __init__(self, point: dict, angles: dict | None = None):
        self.point = point
        self.angles = angles or {}
        self._memo: dict = {}
        self._jets: dict = {}

    def value(self, e: sp.Expr) -> sp.Rational:
        """The exact value of ``e`` at the point."""
        return sp.QQ.to_sympy(self._value(as_expr(e)))

    def jet(self, e: sp.Expr, x: sp.Symbol) -> tuple[sp.Rational, sp.Rational]:
        """``(e, de/dx)`` at the point, exact."""
        memo = self._jets.setdefault(x, {})
        v, d = self._jet(as_expr(e), x, memo)
        return sp.QQ.to_sympy(v), sp.QQ.to_sympy(d)

    def _leaf(self, a):
        """The domain value of a number or a symbol (:class:`OutsideRing` otherwise)."""
        if a.is_Rational:
            return sp.QQ(int(a.p), int(a.q))
        if isinstance(a, (sp.sin, sp.cos)) and self.angles:
            v = _trig_value(a, self.angles, OutsideRing)
            return sp.QQ(v.numerator, v.denominator)
        v = self.point.get(a) if a.is_Symbol else None
        if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
            return sp.QQ(int(v.numerator), int(v.denominator))
        if not getattr(v, "is_Rational", False):
            raise OutsideRing(f"{a} has no rational value at the point")
        return sp.QQ(int(v.p), int(v.q))

    def _value(self, a):
        got = self._memo.get(a)
        if got is not None:
            return got
        if a.is_Add:
            args = [self._value(t) for t in a.args]
            got = args[0]
            for t in args[1:]:
                got = got + t
        elif a.is_Mul:
            got = sp.QQ.one
            for t in a.args:
                got = got * self._value(t)
        elif a.is_Pow and a.exp.is_Integer:
            got = self._value(a.base) ** int(a.exp)
        else:
            got = self._leaf(a)
        self._memo[a] = got
        return got

    def _jet(self, a, x, memo: dict) -> tuple:
        got = memo.get(a)
        if got is not None:
            return got
        zero = sp.QQ.zero
        if a.is_Add:
            v, d = zero, zero
            for t in a.args:
                tv, td = self._jet(t, x, memo)
                v, d = v + tv, d + td
        elif a.is_Mul:
            v, d = sp.QQ.one, zero
            for t in a.args:
                tv, td = self._jet(t, x, memo)
                v, d = v * tv, d * tv + v * td
        elif a.is_Pow and a.exp.is_Integer:
            n = int(a.exp)
            u, du = self._jet(a.base, x, memo)
            p = u ** (n - 1)
            v, d = p * u, n * p * du
        elif isinstance(a, (sp.sin, sp.cos)) and x in a.args[0].free_symbols:
            raise OutsideRing(f"{a}: no derivative along {x} in this evaluator")
        else:
            v, d = self._value(a), (sp.QQ.one if a == x else zero)
        memo[a] = (v, d)
        return v, d


def exact_values(exprs, point: dict, angles: dict | None = None) -> list | None:
    """The values of ``exprs`` at ``point`` (and ``angles``) by :class:`PointValues` (one
    memo), or ``None`` where that evaluation does not apply (a vanishing sub-denominator,
    another atom, a symbol without a value): the caller then substitutes and cancels.

    >>> x = sp.Symbol("x")
    >>> exact_values([x**2, 1/x], {x: sp.Rational(2, 3)}), exact_values([x/x**2], {x: 0})
    ([4/9, 3/2], None)
    """
    pv = PointValues(point, angles)
    try:
        return [pv.value(e) for e in exprs]
    except (ZeroDivisionError, OutsideRing):
        return None


def finite_samples(exprs, syms, count: int, tries: int, seed: int) -> list[tuple[dict, list]]:
    """Up to ``count`` pairs ``(point, values)``: random exact points of ``syms`` (a policy
    of its own, ``seed``; at most ``tries`` points drawn) where every expression of
    ``exprs`` has a finite value, and those values (cancelled).

    >>> x = sp.Symbol("x")
    >>> pairs = finite_samples([1/x, x**2], [x], 2, 8, 5)
    >>> len(pairs), all(v[0] * v[1] == pt[x] for pt, v in pairs)
    (2, True)
    """
    sampler = ZeroPolicy(seed=seed, warn=False)
    out: list[tuple[dict, list]] = []
    for _ in range(tries):
        check()
        pt = sampler.random_point(syms)
        vals = exact_values(exprs, pt)        # the same values, without rebuilding `exprs`
        if vals is None:
            try:
                vals = [sp.cancel(e.xreplace(pt)) for e in exprs]
            except ZeroDivisionError:
                continue
            if any(val.has(sp.zoo, sp.nan, sp.oo) for val in vals):
                continue
        out.append((pt, vals))
        if len(out) == count:
            break
    return out


class OutsideRing(ValueError):
    """A value outside the polynomial ring of :func:`polynomial_values` (a denominator in
    its generators, an atom without an exact value)."""


class NeedsRoot(OutsideRing):
    r"""A square root :math:`\sqrt c` of a constant ``c`` that is not a square in the
    domain of the ring of :func:`polynomial_values`: ``radicand`` is :math:`c` (a sympy
    number); the caller may extend the domain by :math:`\sqrt c` and evaluate again."""

    def __init__(self, radicand):
        self.radicand = radicand
        super().__init__(f"sqrt({radicand}) is not in the domain")


def polynomial_values(exprs, R, point: dict, angles: dict, abbreviations=()) -> list:
    r"""The values of ``exprs`` in the polynomial ring ``R`` (:math:`\mathbb Q[\eta]`, the
    generators of ``R`` are the symbols left free) at a point: every other symbol a rational
    (``point``), :math:`\sin` and :math:`\cos` of integer combinations of the angles ``s``
    from :math:`e^{is} = c + i s'` (``angles[s] = (c, s')``, rational), as in
    :class:`PointValues`.  One pass over the expression trees with a memo shared by all
    ``exprs`` (no ``cancel``): sub-expressions evaluate to polynomials, divisions only by
    non-zero constants; the ``abbreviations`` ``(symbol, expression)`` are evaluated first,
    in order.  Raises ``ZeroDivisionError`` at a pole, :class:`OutsideRing` when a value
    leaves the ring.

    >>> from geomech.core.algebra.rings import polynomial_ring
    >>> x, s, w = sp.symbols("x s w")
    >>> R = polynomial_ring([w])
    >>> polynomial_values([w**2*sp.cos(2*s)/(1 + x)], R, {x: sp.Rational(1, 2)},
    ...                   {s: (sp.Rational(3, 5), sp.Rational(4, 5))})
    [-14/75*w**2]
    """
    gens = dict(zip(R.symbols, R.gens))
    memo: dict = {}

    def const(v):
        v = _fraction(v)
        if R.domain.is_QQ:
            return R(R.domain(v.numerator, v.denominator))
        return R(R.domain.convert(sp.QQ(v.numerator, v.denominator)))

    def val(a):
        got = memo.get(a)
        if got is not None:
            return got
        if a.is_Rational or (a.is_Symbol and a not in gens and a in point):
            got = const(a if a.is_Rational else point[a])
        elif a.is_Symbol:
            if a not in gens:
                raise OutsideRing(a)
            got = gens[a]
        elif a.is_Add:
            got = R.zero
            for t in a.args:
                got += val(t)
        elif a.is_Mul:
            got = R.one
            for t in a.args:
                got *= val(t)
        elif a.is_Pow and a.exp.is_Integer:
            got = _ring_power(val(a.base), int(a.exp), R, a)
        elif a.is_Pow and a.exp.is_Rational and a.exp.q == 2:
            got = _ring_power(_ring_sqrt(val(a.base), R, a), int(a.exp.p), R, a)
        elif isinstance(a, (sp.sin, sp.cos)):
            got = const(_trig_value(a, angles, OutsideRing))
        else:
            raise OutsideRing(a)
        memo[a] = got
        return got

    for sym, e in abbreviations:
        memo[sym] = val(as_expr(e))
    return [val(as_expr(e)) for e in exprs]


def _ring_sqrt(b, R, a):
    r""":math:`\sqrt b` in ``R`` for a constant ``b`` whose square root lies in the domain
    (the positive root for a positive rational: the principal branch), else
    :class:`NeedsRoot`; a non-constant ``b`` is :class:`OutsideRing`."""
    if not b.is_ground:
        raise OutsideRing(a)
    dom = R.domain
    c = dom.to_sympy(b.LC) if b else sp.S.Zero
    if dom.is_QQ and c.is_negative:
        raise OutsideRing(a)        # an imaginary root: not in a real field
    root = sp.sqrt(c)
    try:
        return R(dom.from_sympy(root))
    except sp.CoercionFailed:
        raise NeedsRoot(c) from None


def _ring_power(b, k: int, R, a):
    """``b**k`` in ``R``; a negative power only of a non-zero constant."""
    if k < 0:
        if not b:
            raise ZeroDivisionError
        if not b.is_ground:
            raise OutsideRing(a)
        b = R(R.domain.one / b.LC)
    return b ** abs(k)


def _trig_rational_points(symbols, tries: int):
    """``(point, angles)`` pairs: rational values, and for every symbol as an angle the
    rational sine and cosine :math:`(1-t^2, 2t)/(1+t^2)` of :math:`s = 2\arctan t`."""
    rng = random.Random(20260)
    for _ in range(tries):
        point, angles = {}, {}
        for s in symbols:
            t = sp.Rational(rng.randint(1, 40), rng.randint(1, 40))
            point[s] = t
            angles[s] = half_angle_sin_cos(t)[::-1]
        yield point, angles


def nowhere_zero(e: sp.Expr) -> bool:
    r"""Whether ``e`` vanishes at no point: a number that is not zero
    (:func:`certainly_nonzero`), or an expression of definite sign by the assumptions of its
    symbols (a positive mass :math:`m`, :math:`m + J` with both positive).  ``False`` means
    undecided.

    >>> m = sp.Symbol("m", positive=True); x = sp.Symbol("x")
    >>> nowhere_zero(m**2 + 1), nowhere_zero(sp.sqrt(2) - 1), nowhere_zero(x), nowhere_zero(m - 1)
    (True, True, False, False)
    """
    e = as_expr(e)
    if e.is_number:
        return certainly_nonzero(e)
    return bool(e.is_positive or e.is_negative)


def certainly_full_rank(M: sp.Matrix, tries: int = 2) -> bool:
    """Whether the rank of ``M`` is ``min(rows, cols)`` as functions, proved by an exact
    full rank at a random point (:class:`PointValues`) or, with other atoms (roots), by
    interval elimination with pivots excluding zero
    (:func:`~geomech.core.zero.evaluation.interval_value`); ``False`` means "not proved
    here" (the caller then asks the zero policy).

    >>> s = sp.Symbol("s")
    >>> certainly_full_rank(sp.Matrix([[1, sp.sin(s)], [sp.sin(s), 1]]))
    True
    >>> certainly_full_rank(sp.Matrix([[1, s], [s, s**2]]))
    False
    """
    syms = sorted(set().union(*[e.free_symbols for e in M]), key=sp.default_sort_key)
    full = min(M.shape)
    for point, angles in _trig_rational_points(syms, tries):
        vals = exact_values(list(M), point, angles)
        if vals is None:
            boxes = [interval_value(e, point) for e in M]
            if all(b is not None for b in boxes) and _interval_pivots(
                    [boxes[i * M.cols:(i + 1) * M.cols] for i in range(M.rows)]) == full:
                return True
            continue
        rows = [vals[i * M.cols:(i + 1) * M.cols] for i in range(M.rows)]
        if rational_rank(rows, M.cols) == full:
            return True
    return False


def _interval_pivots(rows: list) -> int:
    """The number of pivots of Gaussian elimination on an interval matrix whose intervals
    exclude zero (pivots chosen by the largest midpoint): a lower bound of the rank of every
    matrix enclosed (the same pivot positions give non-zero pivots)."""
    rows = [list(r) for r in rows]
    found = 0
    while rows and rows[0]:
        best = None
        for i, r in enumerate(rows):
            for j, x in enumerate(r):
                if 0 not in x and (best is None or abs(x.mid) > abs(rows[best[0]][best[1]].mid)):
                    best = (i, j)
        if best is None:
            break
        i, j = best
        piv = rows.pop(i)
        for r in rows:
            f = r[j] / piv[j]
            for c in range(len(r)):
                r[c] = r[c] - f * piv[c]
        for r in rows:
            del r[j]
        found += 1
    return found


def certainly_nonzero(e: sp.Expr, tries: int = 3) -> bool:
    r"""Whether ``e`` is not identically zero: a non-zero exact value at a random point
    (:class:`PointValues`, angles with rational sine and cosine
    :math:`(1-t^2, 2t)/(1+t^2)`) or, for other atoms (square roots ...), an interval
    enclosure of the value excluding zero
    (:func:`~geomech.core.zero.evaluation.interval_value`) proves it; otherwise the zero
    policy decides.

    >>> s = sp.Symbol("s")
    >>> certainly_nonzero(sp.sin(s)**2 + sp.cos(s)**2 - 1), certainly_nonzero(sp.sin(2*s))
    (False, True)
    """
    e = as_expr(e)
    syms = sorted(e.free_symbols, key=sp.default_sort_key)
    for point, angles in _trig_rational_points(syms, tries):
        v = exact_values([e], point, angles)
        v = None if v is None else v[0]
        if v is not None and v != 0:
            return True
        if v is None:            # other atoms (roots ...): an enclosure without 0 decides
            box = interval_value(e, point)
            if box is not None and 0 not in box:
                return True
    return not default_policy().is_zero(e)


# ---------------------------------------------------------------------------------------
# values with one square root: the quadratic field Q(sqrt d)
# ---------------------------------------------------------------------------------------
def _rational_sqrt(r) -> Fraction | None:
    """The non-negative rational square root of the rational ``r >= 0``, or ``None``."""
    r = _fraction(r)
    p, q = math.isqrt(r.numerator), math.isqrt(r.denominator)
    return Fraction(p, q) if p * p == r.numerator and q * q == r.denominator else None


class QuadraticValues:
    r"""Exact values of expressions at one point, square roots included: elements
    :math:`a + b\sqrt d` of :math:`\mathbb Q(\sqrt d)[\eta]` as pairs ``(a, b)``.

    The symbols of ``point`` take rational values, the angles ``s`` of ``angles`` rational
    cosines and sines (``angles[s] = (cos s, sin s)``, :func:`quadratic_points`), the
    ``gens`` :math:`\eta` stay free (generators of ``self.R``, a polynomial ring; without
    them ``self.R`` is :math:`\mathbb Q`), and the ``abbreviations`` ``(symbol,
    expression)`` are evaluated first, in order.  A rational function of these has a value
    in :math:`\mathbb Q[\eta]`; a power :math:`P^{k/2}` of a radicand with a positive
    rational value :math:`P_0` lies in :math:`\mathbb Q(\sqrt d)` when :math:`P_0/d` is a
    rational square, ``d`` the value of the first irrational radicand met (``self.d``;
    ``None`` while every root met is rational).  One pass over the expression trees with a
    memo; divisions only by constants of :math:`\mathbb Q(\sqrt d)`,
    :math:`(a + b\sqrt d)^{-1} = (a - b\sqrt d)/(a^2 - d b^2)`.

    As :math:`1, \sqrt d` are linearly independent over :math:`\mathbb Q` for ``d`` not a
    square, an identity :math:`E \equiv 0` gives the two rational equations
    :math:`a = b = 0` at each point (:meth:`parts`): necessary conditions, exact.  Raises
    :class:`OutsideRing` for an atom without such a value (a second independent root, a
    negative radicand, a float, a non-constant denominator) and ``ZeroDivisionError`` at
    a pole.

    >>> x, s = sp.symbols("x s")
    >>> qv = QuadraticValues({x: sp.Rational(1, 2)}, {s: (sp.Rational(3, 5), sp.Rational(4, 5))})
    >>> qv.parts(1 + x/sp.sqrt(1 + x) + sp.cos(s)*sp.sqrt(4 + 4*x)**3), qv.d
    ((1, 113/15), Fraction(3, 2))
    """

    def __init__(self, point: dict, angles: dict, gens=(), abbreviations=()):
        from geomech.core.algebra.rings import polynomial_ring

        self.point = {k: _fraction(v) for k, v in point.items()}
        self.angles = angles
        gens = tuple(gens)
        self.R = polynomial_ring(gens) if gens else sp.QQ
        self._gens = dict(zip(gens, self.R.gens)) if gens else {}
        self.d: Fraction | None = None
        self._dd = None                  # d as an element of R
        self._zero, self._one = self.const(0), self.const(1)
        self._memo: dict = {}
        for sym, e in abbreviations:
            self._memo[sym] = self._val(as_expr(e))

    # -- arithmetic on pairs -------------------------------------------------------------
    def const(self, v):
        """The element of ``self.R`` of the rational ``v`` (int, ``Fraction`` or sympy)."""
        if isinstance(v, sp.Basic):
            v = Fraction(int(v.p), int(v.q))
        elif isinstance(v, int):
            v = Fraction(v)
        c = sp.QQ(v.numerator, v.denominator)
        return c if self.R is sp.QQ else self.R(c)

    def _ground(self, x) -> Fraction | None:
        if self.R is sp.QQ:
            return Fraction(int(x.numerator), int(x.denominator))
        if not x:
            return Fraction(0)
        if not x.is_ground:
            return None
        c = x.LC
        return Fraction(int(c.numerator), int(c.denominator))

    def add(self, x: tuple, y: tuple) -> tuple:
        return x[0] + y[0], x[1] + y[1]

    def mul(self, x: tuple, y: tuple) -> tuple:
        """The product of ``a + b sqrt d`` and ``c + e sqrt d``."""
        (a, b), (c, e) = x, y
        if not b and not e:
            return a * c, b
        return a * c + self._dd * (b * e), a * e + b * c

    def inverse(self, x: tuple) -> tuple:
        a, b = (self._ground(t) for t in x)
        if a is None or b is None:
            raise OutsideRing("a division by a non-constant value")
        den = a * a - (self.d or 0) * b * b
        if den == 0:
            raise ZeroDivisionError("a pole at the point")
        return self.const(a / den), self.const(-b / den)

    def power(self, x: tuple, k: int) -> tuple:
        if k < 0:
            x, k = self.inverse(x), -k
        out = (self._one, self._zero)
        while k:
            if k & 1:
                out = self.mul(out, x)
            k >>= 1
            if k:
                x = self.mul(x, x)
        return out

    def _root(self, x: tuple, atom) -> tuple:
        r""":math:`\sqrt{x}` for a positive rational ``x``, in :math:`\mathbb Q(\sqrt d)`."""
        a, b = (self._ground(t) for t in x)
        if a is None or b is None or b != 0 or a < 0:
            raise OutsideRing(atom)
        s = _rational_sqrt(a)
        if s is not None:
            return self.const(s), self._zero
        if self.d is None:
            self.d, self._dd = a, self.const(a)
        t = _rational_sqrt(a / self.d)
        if t is None:
            raise OutsideRing(f"a second independent square root: {atom}")
        return self._zero, self.const(t)

    def inverse_matrix(self, A: list) -> list:
        """The inverse of the square matrix ``A`` of constant pairs (Gauss--Jordan;
        ``ZeroDivisionError`` when singular at the point).

        >>> qv = QuadraticValues({}, {})
        >>> two = (qv.const(2), qv.const(0))
        >>> qv.inverse_matrix([[two]])[0][0][0]
        1/2
        """
        n = len(A)
        zero, one = (self.const(0), self.const(0)), (self.const(1), self.const(0))
        W = [list(r) + [one if i == j else zero for j in range(n)] for i, r in enumerate(A)]
        for c in range(n):
            r = next((r for r in range(c, n) if W[r][c] != zero), None)
            if r is None:
                raise ZeroDivisionError("the matrix is singular at the point")
            W[c], W[r] = W[r], W[c]
            inv = self.inverse(W[c][c])
            W[c] = [self.mul(inv, a) for a in W[c]]
            for r in range(n):
                if r != c and W[r][c] != zero:
                    f = W[r][c]
                    W[r] = [self.add(a, self.mul((-f[0], -f[1]), b)) for a, b in zip(W[r], W[c])]
        return [row[n:] for row in W]

    # -- evaluation ----------------------------------------------------------------------
    def value(self, e) -> tuple:
        """``(a, b)``: the value :math:`a + b\\sqrt d` of the expression ``e``."""
        return self._val(as_expr(e))

    def parts(self, e) -> tuple:
        """``(a, b)`` of :meth:`value` as sympy numbers (expressions in the ``gens``)."""
        conv = self.R.to_sympy if self.R is sp.QQ else (lambda p: p.as_expr())
        return tuple(conv(p) for p in self.value(e))

    def _val(self, a) -> tuple:
        got = self._memo.get(a)
        if got is not None:
            return got
        zero = self._zero
        if a.is_Rational:
            got = (self.const(a), zero)
        elif a.is_Symbol:
            if a in self.point:
                got = (self.const(self.point[a]), zero)
            elif a in self._gens:
                got = (self._gens[a], zero)
            else:
                raise OutsideRing(a)
        elif a.is_Add:
            t0, t1 = zero, zero
            for t in a.args:
                v = self._val(t)
                t0, t1 = t0 + v[0], t1 + v[1]
            got = (t0, t1)
        elif a.is_Mul:
            got = (self._one, zero)
            for t in a.args:
                got = self.mul(got, self._val(t))
        elif a.is_Pow and a.exp.is_Integer:
            got = self.power(self._val(a.base), int(a.exp))
        elif a.is_Pow and a.exp.is_Rational and a.exp.q == 2:
            got = self.power(self._root(self._val(a.base), a), int(a.exp.p))
        elif isinstance(a, (sp.sin, sp.cos)):
            got = (self.const(_trig_value(a, self.angles, OutsideRing)), zero)
        else:
            raise OutsideRing(a)
        self._memo[a] = got
        return got


def quadratic_points(symbols, angles, count: int, seed: int, fixed=()):
    r"""``count`` random exact points for :class:`QuadraticValues`, drawn one at a time:
    pairs ``(point, angles)``, rational values of the ``symbols`` (with their sign
    assumptions) and, for each angle :math:`s` of ``angles``,
    :math:`(\cos s, \sin s) = (1-t^2, 2t)/(1+t^2)` for a random rational :math:`t`; the
    symbols of ``fixed`` (e.g. the parameters) take one random value, the same at every
    point.

    >>> (pt, ang), = quadratic_points([sp.Symbol("m", positive=True)], [sp.Symbol("s")], 1, 3)
    >>> [v > 0 for v in pt.values()], sum(x**2 for x in next(iter(ang.values())))
    ([True], 1)
    """
    sampler = ZeroPolicy(seed=seed, warn=False)
    rng = random.Random(seed)
    fixed = set(fixed)
    held = sampler.random_point([s for s in symbols if s in fixed])
    symbols, angles = [s for s in symbols if s not in fixed], list(angles)
    for _ in range(count):
        point = {**held, **sampler.random_point(symbols)}
        ang = {}
        for s in angles:
            t = Fraction(rng.randint(1, 40), rng.randint(1, 40)) * rng.choice((1, -1))
            c, si = (1 - t * t) / (1 + t * t), 2 * t / (1 + t * t)
            ang[s] = (sp.Rational(c.numerator, c.denominator),
                      sp.Rational(si.numerator, si.denominator))
        yield point, ang
