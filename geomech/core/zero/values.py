r"""Proofs that an expression is not identically zero, or a matrix of full rank, by exact
values at points.

A zero test must prove what it claims; a *non-zero* claim is proved by one exact value:

* :class:`PointEvaluator` (:func:`exact_values`) -- the exact value of an expression in
  symbols, square roots and sines and cosines of integer combinations of angles, at a
  point where every angle has rational sine and cosine (:math:`s = 2\arctan t`:
  :math:`((1-t^2), 2t)/(1+t^2)`), and its first derivatives, in one exact arithmetic for
  every use: :math:`\mathbb Q` (the default), a number field
  :math:`\mathbb Q(\sqrt{c_1}, \dots)` or a polynomial ring over them
  (:class:`RingArithmetic`: the generators stay free), or :math:`\mathbb Q(\sqrt d)[\eta]`
  with :math:`d` found on the way (:class:`QuadraticArithmetic`);
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
import operator
import random
from fractions import Fraction

import sympy as sp
from sympy.polys.fields import FracField
from sympy.polys.rings import PolyRing

from geomech.core.algebra.matrices import rational_rank
from geomech.core.budget import check
from geomech.core.parse import as_expr
from geomech.core.zero.evaluation import interval_value
from geomech.core.zero.policy import ZeroPolicy, default_policy
from geomech.core.zero.rewrite import half_angle_sin_cos

__all__ = ["PointEvaluator", "Arithmetic", "RingArithmetic", "QuadraticArithmetic",
           "OutsideRing", "NeedsRoot", "exact_values", "finite_samples", "certainly_nonzero",
           "enclosure_nonzero", "nowhere_zero", "certainly_full_rank", "quadratic_points"]


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


class OutsideRing(ValueError):
    """A value outside the arithmetic of a :class:`PointEvaluator` (a denominator in its
    generators, an atom without an exact value, a second independent square root)."""


class NeedsRoot(OutsideRing):
    r"""A square root :math:`\sqrt c` of a constant ``c`` that is not in the coefficient
    field of a :class:`RingArithmetic`: ``radicand`` is :math:`c` (a sympy number); the
    caller may extend the field by :math:`\sqrt c` and evaluate again."""

    def __init__(self, radicand):
        self.radicand = radicand
        super().__init__(f"sqrt({radicand}) is not in the domain")


def _qq(v):
    """The ``QQ`` element of a rational ``v`` (int, ``Fraction``, sympy or ``QQ``), else
    :class:`OutsideRing`."""
    if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
        return sp.QQ(int(v.numerator), int(v.denominator))
    if getattr(v, "is_Rational", False):
        return sp.QQ(int(v.p), int(v.q))
    if isinstance(v, type(sp.QQ.one)):
        return v
    raise OutsideRing(f"{v} is not a rational value")


class Arithmetic:
    r"""The exact arithmetic of a :class:`PointEvaluator`: ``zero``, ``one``, ``const``
    (a rational), ``gen`` (a free generator, or ``None``), ``add``, ``neg``, ``mul``,
    ``inverse`` (of a constant), ``power`` (an integer exponent), ``root`` (the square root
    of a constant), ``scale`` (by an element of the polynomial ring ``R``), ``to_sympy`` and
    ``coordinates`` (the coordinates of a value, elements of the domain ``scalars``:
    :math:`\mathbb Q`, or the field of rational functions of the parameters), implemented by
    :class:`RingArithmetic` and :class:`QuadraticArithmetic`; the linear algebra on top of
    them is shared.
    """

    def inverse_matrix(self, A: list) -> list:
        """The inverse of the square matrix ``A`` of constants (Gauss--Jordan;
        ``ZeroDivisionError`` when singular at the point).

        >>> RingArithmetic().inverse_matrix([[sp.QQ(2), sp.QQ(1)], [sp.QQ(0), sp.QQ(4)]])
        [[1/2, -1/8], [0, 1/4]]
        """
        n, zero, one = len(A), self.zero, self.one
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
                    f = self.neg(W[r][c])
                    W[r] = [self.add(a, self.mul(f, b)) for a, b in zip(W[r], W[c])]
        return [row[n:] for row in W]


class RingArithmetic(Arithmetic):
    r"""Exact arithmetic of :class:`PointEvaluator` in a sympy domain ``R``: the rationals
    :math:`\mathbb Q` (``sp.QQ``, the default), a number field :math:`K = \mathbb
    Q(\sqrt{c_1}, \dots)` (``sp.QQ.algebraic_field``), a field of rational functions
    :math:`K = \mathbb Q(p)` of parameters (``sp.QQ.frac_field(*p)``, each :math:`p_i` its
    generator), a polynomial ring :math:`K[\eta]`
    (:func:`~geomech.core.algebra.rings.polynomial_ring`) whose generators stay free, or
    its field of fractions :math:`K(\eta)`
    (:func:`~geomech.core.algebra.rings.fraction_field`: values in lowest terms, as
    ``sympy.cancel`` would give them).

    Divisions only by non-zero constants (elements of :math:`K`; in :math:`K(\eta)` by any
    non-zero value); :math:`\sqrt c` of a constant :math:`c` lies in :math:`K` or raises
    :class:`NeedsRoot` (the caller may adjoin it: :math:`K(\sqrt c)`), the principal root of
    a positive rational.  :meth:`coordinates` splits a value into its coordinates in
    :attr:`scalars`: over :math:`\mathbb Q` and :math:`\mathbb Q(p)` the coefficients of
    the monomials, over a number field the rational coordinates of those in the power basis
    of its primitive element; a value of :math:`K(\eta)` outside :math:`K[\eta]` has none
    (:class:`OutsideRing`).

    >>> from geomech.core.algebra.rings import polynomial_ring
    >>> w = sp.Symbol("w")
    >>> F = RingArithmetic(polynomial_ring([w], sp.QQ.algebraic_field(sp.sqrt(2))))
    >>> r = F.root(F.const(8), "sqrt(8)")
    >>> sorted(F.coordinates(F.add(F.mul(r, F.gen(w)), F.one)))
    [((0, (1,)), 2), ((1, (0,)), 1)]
    >>> k = sp.Symbol("k")
    >>> F = RingArithmetic(polynomial_ring([w], sp.QQ.frac_field(k)))
    >>> sorted(F.coordinates(F.mul(F.inverse(F.gen(k)), F.gen(w))))
    [((1,), 1/k)]
    >>> from geomech.core.algebra.rings import fraction_field
    >>> F = RingArithmetic(fraction_field([w], sp.QQ.frac_field(k)))
    >>> x = F.mul(F.add(F.power(F.gen(w), 2), F.neg(F.power(F.gen(k), 2))), F.const(2))
    >>> sorted(F.coordinates(F.mul(x, F.inverse(F.add(F.gen(w), F.gen(k))))))  # 2(w - k)
    [((0,), -2*k), ((1,), 2)]
    """

    add = staticmethod(operator.add)
    mul = staticmethod(operator.mul)
    neg = staticmethod(operator.neg)

    def __init__(self, R=sp.QQ):
        self.R = R
        self._frac = isinstance(R, FracField)
        self._poly = self._frac or isinstance(R, PolyRing)      # free generators
        self.K = R.domain if self._poly else R
        self._gens = dict(zip(R.symbols, R.gens)) if self._poly else {}
        if self.K.is_Frac:                  # the parameters: generators of K
            self._gens.update({p: R(g) if self._poly else g
                               for p, g in zip(self.K.symbols, self.K.gens)})
        self.zero, self.one = R.zero, R.one
        self._deg = self.K.ext.minpoly.degree() if self.K.is_Algebraic else None
        #: the domain of the :meth:`coordinates`
        self.scalars = self.K if self.K.is_Frac else sp.QQ

    def const(self, v):
        """The element of the rational ``v`` (int, ``Fraction``, sympy or ``QQ``)."""
        c = _qq(v)
        if not self.K.is_QQ:
            c = self.K.convert(c)
        return self.R(c) if self._poly else c

    def gen(self, sym):
        """The generator of the symbol ``sym``, or ``None``."""
        return self._gens.get(sym)

    def ground(self, x):
        """The constant ``x`` as an element of ``K``, or ``None`` when not constant."""
        if not self._poly:
            return x
        if not x:
            return self.K.zero
        if self._frac:
            n, d = x.numer, x.denom
            return n.LC / d.LC if n.is_ground and d.is_ground else None
        return x.LC if x.is_ground else None

    def is_polynomial(self, x) -> bool:
        """Whether ``x`` lies in :math:`K[\\eta]` (always, unless ``R`` is :math:`K(\\eta)`)."""
        return not self._frac or x.denom.is_ground

    def inverse(self, x):
        """:math:`1/x` of a constant (of any value in :math:`K(\\eta)`);
        ``ZeroDivisionError`` at 0."""
        if self._frac:
            if not x:
                raise ZeroDivisionError("a pole at the point")
            return self.R.one / x
        c = self.ground(x)
        if c is None:
            raise OutsideRing("a division by a non-constant value")
        if not c:
            raise ZeroDivisionError("a pole at the point")
        c = self.K.one / c
        return self.R(c) if self._poly else c

    def power(self, x, k: int):
        """:math:`x^k`, a negative ``k`` only for a non-zero constant."""
        if k < 0:
            x, k = self.inverse(x), -k
        return x ** k

    def root(self, x, atom):
        r""":math:`\sqrt x` of a constant ``x`` (``atom`` the sympy power, for messages)."""
        c = self.ground(x)
        if c is None:
            raise OutsideRing(atom)
        if self.K.is_QQ:
            if c < 0:
                raise OutsideRing(atom)          # an imaginary root: not in a real field
            r = _rational_sqrt(Fraction(int(c.numerator), int(c.denominator)))
            if r is None:
                raise NeedsRoot(self.K.to_sympy(c))
            return self.const(r)
        c = self.K.to_sympy(c)
        try:
            r = self.K.from_sympy(sp.sqrt(c))
        except sp.CoercionFailed:
            raise NeedsRoot(c) from None
        return self.R(r) if self._poly else r

    def scale(self, x, p):
        """``x`` times the element ``p`` of ``R``."""
        return x * p

    def to_sympy(self, x) -> sp.Expr:
        """The value as a sympy expression (in the generators)."""
        return x.as_expr() if self._poly else self.K.to_sympy(x)

    def coordinates(self, x):
        """The non-zero coordinates of ``x`` (in :attr:`scalars`): pairs ``(key, value)``,
        ``key`` the monomial (with the index of the basis element of ``K`` when ``K`` is a
        number field)."""
        if self._frac:
            if not x.denom.is_ground:
                raise OutsideRing(f"{x.as_expr()} is not a polynomial")
            d = x.denom.LC
            items = [(mon, c / d) for mon, c in x.numer.items()]
        else:
            items = x.items() if self._poly else [((), x)]
        for mon, c in items:
            if self._deg is None:
                if c:
                    yield mon, c
                continue
            co = c.to_list()
            for i, v in enumerate([sp.QQ.zero] * (self._deg - len(co)) + list(co)):
                if v:
                    yield (i, mon), v


def _rational_sqrt(r) -> Fraction | None:
    """The non-negative rational square root of the rational ``r >= 0``, or ``None``."""
    r = _fraction(r)
    p, q = math.isqrt(r.numerator), math.isqrt(r.denominator)
    return Fraction(p, q) if p * p == r.numerator and q * q == r.denominator else None


class QuadraticArithmetic(Arithmetic):
    r"""Exact arithmetic of :class:`PointEvaluator` in :math:`\mathbb Q(\sqrt d)[\eta]`:
    elements :math:`a + b\sqrt d` as pairs ``(a, b)`` of :math:`\mathbb Q[\eta]` (the
    ``gens`` :math:`\eta`; without them :math:`\mathbb Q`), ``d`` the value of the first
    irrational radicand met (``self.d``, a ``Fraction``; ``None`` while every root met is
    rational).  A power :math:`P^{k/2}` of a positive rational :math:`P` lies in the field
    when :math:`P/d` is a rational square; divisions only by constants,
    :math:`(a + b\sqrt d)^{-1} = (a - b\sqrt d)/(a^2 - d b^2)`.  As :math:`1, \sqrt d` are
    linearly independent over :math:`\mathbb Q`, an identity :math:`E \equiv 0` gives the
    two rational equations :math:`a = b = 0` (:meth:`coordinates`); a second independent
    root is :class:`OutsideRing`.

    >>> F = QuadraticArithmetic()
    >>> x = F.mul(F.root(F.const(12), "sqrt(12)"), F.const(3))
    >>> x, F.d, F.inverse(F.add(F.one, x))
    ((0, 3), Fraction(12, 1), (-1/107, 3/107))
    """

    def __init__(self, gens=()):
        from geomech.core.algebra.rings import polynomial_ring

        gens = tuple(gens)
        base = RingArithmetic(polynomial_ring(gens) if gens else sp.QQ)
        self.base, self.R, self._gens = base, base.R, base._gens
        self.zero, self.one = (base.zero, base.zero), (base.one, base.zero)
        self.scalars = sp.QQ
        self.d: Fraction | None = None
        self._dd = None                  # d as an element of R

    def coefficient(self, v):
        """The element of ``R`` (the coefficient ring) of the rational ``v``."""
        return self.base.const(v)

    def const(self, v) -> tuple:
        return self.base.const(v), self.base.zero

    def gen(self, sym):
        g = self._gens.get(sym)
        return None if g is None else (g, self.base.zero)

    def add(self, x: tuple, y: tuple) -> tuple:
        return x[0] + y[0], x[1] + y[1]

    def neg(self, x: tuple) -> tuple:
        return -x[0], -x[1]

    def mul(self, x: tuple, y: tuple) -> tuple:
        """The product of ``a + b sqrt d`` and ``c + e sqrt d``."""
        (a, b), (c, e) = x, y
        if not b and not e:
            return a * c, b
        return a * c + self._dd * (b * e), a * e + b * c

    def _ground(self, x: tuple, atom) -> tuple:
        """``(a, b)`` of a constant as Fractions; :class:`OutsideRing` (``atom``) else."""
        a, b = (self.base.ground(t) for t in x)
        if a is None or b is None:
            raise OutsideRing(atom)
        return Fraction(int(a.numerator), int(a.denominator)), \
            Fraction(int(b.numerator), int(b.denominator))

    def inverse(self, x: tuple) -> tuple:
        a, b = self._ground(x, "a division by a non-constant value")
        den = a * a - (self.d or 0) * b * b
        if den == 0:
            raise ZeroDivisionError("a pole at the point")
        return self.coefficient(a / den), self.coefficient(-b / den)

    def power(self, x: tuple, k: int) -> tuple:
        if k < 0:
            x, k = self.inverse(x), -k
        out = self.one
        while k:
            if k & 1:
                out = self.mul(out, x)
            k >>= 1
            if k:
                x = self.mul(x, x)
        return out

    def root(self, x: tuple, atom) -> tuple:
        r""":math:`\sqrt{x}` for a positive rational ``x``, in :math:`\mathbb Q(\sqrt d)`."""
        a, b = self._ground(x, atom)
        if b != 0 or a < 0:
            raise OutsideRing(atom)
        s = _rational_sqrt(a)
        if s is not None:
            return self.const(s)
        if self.d is None:
            self.d, self._dd = a, self.coefficient(a)
        t = _rational_sqrt(a / self.d)
        if t is None:
            raise OutsideRing(f"a second independent square root: {atom}")
        return self.base.zero, self.coefficient(t)

    def scale(self, x: tuple, p) -> tuple:
        return x[0] * p, x[1] * p

    def to_sympy(self, x: tuple) -> tuple:
        """``(a, b)`` as sympy numbers (expressions in the generators)."""
        return tuple(self.base.to_sympy(p) for p in x)

    def coordinates(self, x: tuple):
        """The non-zero rational coefficients of :math:`a` and :math:`b`: pairs
        ``((part, monomial), value)``, ``part`` 0 for :math:`a`, 1 for :math:`b`."""
        for part, p in enumerate(x):
            for mon, c in self.base.coordinates(p):
                yield (part, mon), c


class PointEvaluator:
    r"""Exact values, and first derivatives along one symbol, of expressions at one point,
    in the arithmetic ``field`` (:class:`RingArithmetic`: :math:`\mathbb Q`, the default, a
    number field, a polynomial ring over them; :class:`QuadraticArithmetic`:
    :math:`\mathbb Q(\sqrt d)[\eta]`).

    The expressions are sums, products, integer powers and square roots (``P**(k/2)``) of
    rational numbers, symbols (a rational value in ``point``, or a generator of ``field``)
    and sines and cosines of integer combinations of the angles: an angle :math:`s` has
    :math:`e^{is} = c + i\,s'` with rational ``angles[s] = (c, s')``, so
    :math:`e^{i\sum k_js_j} = \prod (c_j + i s'_j)^{k_j}` (Gaussian rationals).  One pass
    over each expression tree with a memo shared by every expression evaluated at the point
    (no expression is rebuilt, as ``xreplace`` would; nothing is cancelled); the
    ``abbreviations`` ``(symbol, expression)`` are evaluated first, in order.

    :meth:`value` is :math:`e(p)`; :meth:`jet` is :math:`(e(p), \partial e/\partial x\,(p))`
    by forward differentiation with dual numbers, :math:`(u, u')(v, v') = (uv, u'v + uv')`,
    :math:`(u, u')^r = (u^r, r u^{r-1} u')` (Griewank & Walther (2008), *Evaluating
    Derivatives*, §3.1).  Both are exact.  ``ZeroDivisionError`` where the denominator of a
    sub-expression vanishes (``e`` may be finite there after cancelling: the caller decides),
    :class:`OutsideRing` for a value outside the arithmetic (another atom, a symbol without
    a value, a non-constant denominator).

    >>> x, y, t = sp.symbols("x y t")
    >>> ev = PointEvaluator({x: sp.Rational(1, 2), y: 3})
    >>> ev.sympy_value(x**2*y/(1 + x)), ev.sympy_jet(x**2*y/(1 + x), x)
    (1/2, (1/2, 5/3))
    >>> PointEvaluator({x: 2}, {t: (sp.Rational(3, 5), sp.Rational(4, 5))}).sympy_value(
    ...     x*sp.cos(2*t)/(1 + sp.sin(t)))
    -14/45
    >>> ev = PointEvaluator({x: sp.Rational(1, 2)}, {t: (sp.Rational(3, 5), sp.Rational(4, 5))},
    ...                     QuadraticArithmetic())
    >>> ev.sympy_value(1 + x/sp.sqrt(1 + x) + sp.cos(t)*sp.sqrt(4 + 4*x)**3), ev.field.d
    ((1, 113/15), Fraction(3, 2))
    """

    def __init__(self, point: dict, angles: dict | None = None, field=None,
                 abbreviations=()):
        self.point = point
        self.angles = angles or {}
        self.field = RingArithmetic() if field is None else field
        self._memo: dict = {}
        self._jets: dict = {}
        for sym, e in abbreviations:
            self._memo[sym] = self._value(as_expr(e))

    def value(self, e: sp.Expr):
        """The exact value of ``e`` at the point, an element of ``self.field``."""
        return self._value(as_expr(e))

    def jet(self, e: sp.Expr, x: sp.Symbol) -> tuple:
        """``(e, de/dx)`` at the point, exact (elements of ``self.field``)."""
        return self._jet(as_expr(e), x, self._jets.setdefault(x, {}))

    def sympy_value(self, e: sp.Expr):
        """:meth:`value` as sympy numbers (expressions in the generators)."""
        return self.field.to_sympy(self.value(e))

    def sympy_jet(self, e: sp.Expr, x: sp.Symbol) -> tuple:
        """:meth:`jet` as sympy numbers."""
        return tuple(self.field.to_sympy(v) for v in self.jet(e, x))

    def _leaf(self, a):
        """The value of a number, a symbol or a sine or cosine."""
        F = self.field
        if a.is_Rational:
            return F.const(a)
        if a.is_Symbol:
            v = self.point.get(a)
            if v is not None:
                return F.const(v)
            g = F.gen(a)
            if g is None:
                raise OutsideRing(f"{a} has no rational value at the point")
            return g
        if isinstance(a, (sp.sin, sp.cos)):
            return F.const(_trig_value(a, self.angles, OutsideRing))
        raise OutsideRing(a)

    def _value(self, a):
        got = self._memo.get(a)
        if got is not None:
            return got
        F = self.field
        if a.is_Add:
            args = [self._value(t) for t in a.args]
            got = args[0]
            for t in args[1:]:
                got = F.add(got, t)
        elif a.is_Mul:
            got = F.one
            for t in a.args:
                got = F.mul(got, self._value(t))
        elif a.is_Pow and a.exp.is_Integer:
            got = F.power(self._value(a.base), int(a.exp))
        elif a.is_Pow and a.exp.is_Rational and a.exp.q == 2:
            got = F.power(F.root(self._value(a.base), a), int(a.exp.p))
        else:
            got = self._leaf(a)
        self._memo[a] = got
        return got

    def _jet(self, a, x, memo: dict) -> tuple:
        got = memo.get(a)
        if got is not None:
            return got
        F = self.field
        add, mul = F.add, F.mul
        if a.is_Add:
            v, d = F.zero, F.zero
            for t in a.args:
                tv, td = self._jet(t, x, memo)
                v, d = add(v, tv), add(d, td)
        elif a.is_Mul:
            v, d = F.one, F.zero
            for t in a.args:
                tv, td = self._jet(t, x, memo)
                v, d = mul(v, tv), add(mul(d, tv), mul(v, td))
        elif a.is_Pow and a.exp.is_Integer:
            n = int(a.exp)
            u, du = self._jet(a.base, x, memo)
            p = F.power(u, n - 1)
            v, d = mul(p, u), mul(F.const(n), mul(p, du))
        elif a.is_Pow and a.exp.is_Rational and a.exp.q == 2:
            n = int(a.exp.p)                      # (sqrt u)**n, d = n/2 (sqrt u)**(n-2) du
            u, du = self._jet(a.base, x, memo)
            r = F.root(u, a)
            v, d = F.power(r, n), mul(F.const(Fraction(n, 2)), mul(F.power(r, n - 2), du))
        elif isinstance(a, (sp.sin, sp.cos)) and x in a.args[0].free_symbols:
            raise OutsideRing(f"{a}: no derivative along {x} in this evaluator")
        else:
            v, d = self._value(a), (F.one if a == x else F.zero)
        memo[a] = (v, d)
        return v, d


def exact_values(exprs, point: dict, angles: dict | None = None) -> list | None:
    """The rational values of ``exprs`` at ``point`` (and ``angles``) by
    :class:`PointEvaluator` (one memo), or ``None`` where that evaluation does not apply (a
    vanishing sub-denominator, another atom, an irrational root, a symbol without a value):
    the caller then substitutes and cancels.

    >>> x = sp.Symbol("x")
    >>> exact_values([x**2, 1/x], {x: sp.Rational(2, 3)}), exact_values([x/x**2], {x: 0})
    ([4/9, 3/2], None)
    """
    ev = PointEvaluator(point, angles)
    try:
        return [ev.sympy_value(e) for e in exprs]
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
    full rank at a random point (:class:`PointEvaluator`) or, with other atoms (roots), by
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
    (:class:`PointEvaluator`, angles with rational sine and cosine
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
        if v is None and _encloses_nonzero(e, point):   # other atoms (roots ...)
            return True
    return not default_policy().is_zero(e)


def _encloses_nonzero(e: sp.Expr, point: dict) -> bool:
    """Whether an interval enclosure of ``e`` at the exact ``point`` is finite and excludes 0
    (the enclosure contains the exact value, so that proves :math:`e(p) \\ne 0`)."""
    box = interval_value(e, point)
    return box is not None and all(math.isfinite(float(v)) for v in (box.a, box.b)) \
        and 0 not in box


def enclosure_nonzero(e: sp.Expr, seed: int = 4099) -> bool:
    r"""Whether ``e`` is proved not identically zero by an interval enclosure of its value
    at one random exact rational point that excludes 0 (Moore, Kearfott & Cloud (2009),
    *Introduction to Interval Analysis*: the enclosure contains the exact value, so
    :math:`0 \notin [a, b]` proves :math:`e(p) \neq 0`); ``False`` proves nothing (no
    enclosure, or one containing 0).  Unlike :func:`certainly_nonzero` no zero test follows
    (nothing is recorded in the default policy): a cheap filter before exact work.  The
    point respects the symbols' sign assumptions.

    >>> x, y = sp.symbols("x y", positive=True)
    >>> enclosure_nonzero(sp.sqrt(x**2 + y**2) + x), enclosure_nonzero(sp.sqrt(x**2) - x)
    (True, False)
    """
    e = as_expr(e)
    if e == 0:
        return False
    rng = random.Random(seed)
    pt = {}
    for s in sorted(e.free_symbols, key=sp.default_sort_key):
        val = sp.Rational(rng.randint(1, 97), rng.randint(1, 89))
        if s.is_negative or s.is_nonpositive or (
                not (s.is_positive or s.is_nonnegative) and rng.random() < 0.5):
            val = -val
        pt[s] = val
    return _encloses_nonzero(e, pt)


def quadratic_points(symbols, angles, count: int, seed: int, fixed=()):
    r"""``count`` random exact points for :class:`PointEvaluator` (a
    :class:`QuadraticArithmetic`), drawn one at a time:
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
