r"""Truncated Taylor series (jets) of expressions at exact rational points.

An expression in coordinates :math:`q`, parameters, :math:`\sin`/:math:`\cos` of integer
combinations of angles and square roots is expanded at a point :math:`q_0` where every
coordinate and parameter has a rational value and every angle :math:`s` rational
:math:`(\cos s, \sin s)` (:math:`s = 2\arctan t`), to total order :math:`p` in
:math:`\varepsilon = q - q_0`:

.. math:: f(q_0 + \varepsilon) = \sum_{|\alpha|\le p} f_\alpha\,\varepsilon^\alpha
          + O(|\varepsilon|^{p+1}),\qquad f_\alpha = \partial^\alpha f(q_0)/\alpha!\in\mathbb Q,

by evaluating the expression tree once per distinct sub-expression in truncated power
series arithmetic (automatic differentiation in Taylor mode: Griewank & Walther (2008),
*Evaluating Derivatives*, ch. 13): :math:`\sin(a + t) = \sin a\cos t + \cos a\sin t` with
:math:`t` the non-constant part, :math:`\sqrt{c(1 + t)} = \sqrt c\,(1 + t)^{1/2}` (binomial
series; :math:`\sqrt c` must be rational), :math:`1/(c(1 + t)) = c^{-1}\sum_k(-t)^k`.  Every
coefficient is an exact rational: no derivative is formed symbolically.

>>> x, y = sp.symbols("x y")
>>> J = taylor_jet(sp.sin(x)*y + sp.sqrt(1 + y), {y: 3}, {x: (1, 0)}, [x, y], 2)
>>> J[(0, 0)], J[(1, 0)], J[(0, 1)], J[(1, 1)], J[(0, 2)]
(Fraction(2, 1), Fraction(3, 1), Fraction(1, 4), Fraction(1, 1), Fraction(-1, 64))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import isqrt

import sympy as sp

from geomech.core.budget import check
from geomech.core.parse import as_expr

__all__ = ["Jet", "taylor_jet", "JetUndefined", "rational_sqrt"]


class JetUndefined(ValueError):
    """The expression has no exact rational jet at the point (an atom without a value, a
    vanishing denominator, an irrational square root)."""


def rational_sqrt(c: Fraction) -> Fraction:
    """The rational square root of ``c``, or ``JetUndefined``.

    >>> rational_sqrt(Fraction(9, 4))
    Fraction(3, 2)
    """
    if c < 0:
        raise JetUndefined(f"square root of the negative value {c}")
    n, d = isqrt(c.numerator), isqrt(c.denominator)
    if n * n != c.numerator or d * d != c.denominator:
        raise JetUndefined(f"square root of {c} is irrational")
    return Fraction(n, d)


class Jet:
    """A truncated power series: ``{exponent tuple: Fraction}`` in ``nvar`` variables up to
    total degree ``order``.

    >>> e = Jet.variable(2, 1, 0, 0)
    >>> ((e + 1) * (e + 1)).terms == {(0, 0): 1, (1, 0): 2}
    True
    """

    __slots__ = ("terms", "nvar", "order")

    def __init__(self, terms: dict, nvar: int, order: int):
        self.terms, self.nvar, self.order = terms, nvar, order

    @classmethod
    def constant(cls, c, nvar: int, order: int) -> Jet:
        c = Fraction(c)
        return cls({(0,) * nvar: c} if c else {}, nvar, order)

    @classmethod
    def variable(cls, nvar: int, order: int, i: int, value) -> Jet:
        """The jet of the coordinate ``i`` at ``value``: ``value + eps_i``."""
        e = tuple(int(j == i) for j in range(nvar))
        out = cls.constant(value, nvar, order)
        if order >= 1:
            out.terms[e] = Fraction(1)
        return out

    def __getitem__(self, e) -> Fraction:
        return self.terms.get(tuple(e), Fraction(0))

    @property
    def value(self) -> Fraction:
        return self.terms.get((0,) * self.nvar, Fraction(0))

    def _lift(self, o) -> Jet:
        return o if isinstance(o, Jet) else Jet.constant(o, self.nvar, self.order)

    def __add__(self, o) -> Jet:
        o = self._lift(o)
        t = dict(self.terms)
        for e, c in o.terms.items():
            v = t.get(e, 0) + c
            if v:
                t[e] = v
            else:
                t.pop(e, None)
        return Jet(t, self.nvar, self.order)

    __radd__ = __add__

    def __neg__(self) -> Jet:
        return Jet({e: -c for e, c in self.terms.items()}, self.nvar, self.order)

    def __sub__(self, o) -> Jet:
        return self + (-self._lift(o))

    def __rsub__(self, o) -> Jet:
        return self._lift(o) - self

    def __mul__(self, o) -> Jet:
        if not isinstance(o, Jet):
            o = Fraction(o)
            return Jet({e: c * o for e, c in self.terms.items()} if o else {}, self.nvar,
                       self.order)
        t: dict = {}
        p = self.order
        for e1, c1 in self.terms.items():
            d1 = sum(e1)
            for e2, c2 in o.terms.items():
                if d1 + sum(e2) > p:
                    continue
                e = tuple(a + b for a, b in zip(e1, e2))
                t[e] = t.get(e, 0) + c1 * c2
        return Jet({e: c for e, c in t.items() if c}, self.nvar, self.order)

    __rmul__ = __mul__

    def _split(self) -> tuple[Fraction, Jet]:
        """``(constant term, non-constant part)``."""
        z = (0,) * self.nvar
        return self.terms.get(z, Fraction(0)), Jet({e: c for e, c in self.terms.items()
                                                   if e != z}, self.nvar, self.order)

    def _series(self, coeffs: Sequence) -> Jet:
        r""":math:`\sum_k a_k t^k` for the nilpotent ``self`` (no constant term)."""
        out = Jet.constant(coeffs[0], self.nvar, self.order)
        power = Jet.constant(1, self.nvar, self.order)
        for a in coeffs[1:self.order + 1]:
            power = power * self
            if not power.terms:
                break
            out = out + power * a
        return out

    def inverse(self) -> Jet:
        c, t = self._split()
        if c == 0:
            raise JetUndefined("division by a jet vanishing at the point")
        u = t * (1 / c)
        return u._series([(-1) ** k for k in range(self.order + 1)]) * (1 / c)

    def __truediv__(self, o) -> Jet:
        return self * (self._lift(o).inverse())

    def __rtruediv__(self, o) -> Jet:
        return self._lift(o) * self.inverse()

    def __pow__(self, k: int) -> Jet:
        if k < 0:
            return self.inverse() ** (-k)
        out = Jet.constant(1, self.nvar, self.order)
        base = self
        while k:
            if k & 1:
                out = out * base
            base = base * base
            k >>= 1
        return out

    def sqrt(self) -> Jet:
        r""":math:`\sqrt{c}\,(1 + t/c)^{1/2}` (binomial series); ``c`` a rational square."""
        c, t = self._split()
        r = rational_sqrt(c)
        if r == 0:
            raise JetUndefined("square root of a jet vanishing at the point")
        coeffs, a = [], Fraction(1)
        for k in range(self.order + 1):
            coeffs.append(a)
            a = a * (Fraction(1, 2) - k) / (k + 1)
        return (t * (1 / c))._series(coeffs) * r

    def derivative(self, i: int) -> Jet:
        """:math:`\\partial/\\partial\\varepsilon_i`, one order lower."""
        t = {}
        for e, c in self.terms.items():
            if e[i]:
                f = list(e)
                f[i] -= 1
                t[tuple(f)] = c * e[i]
        return Jet(t, self.nvar, self.order - 1)

    def truncated(self, order: int) -> Jet:
        return Jet({e: c for e, c in self.terms.items() if sum(e) <= order}, self.nvar, order)


def _sin_cos(t: Jet) -> tuple[Jet, Jet]:
    """``(sin t, cos t)`` of a nilpotent jet."""
    p = t.order
    sin_c = [Fraction(0) if k % 2 == 0 else Fraction((-1) ** (k // 2), _fact(k))
             for k in range(p + 1)]
    cos_c = [Fraction((-1) ** (k // 2), _fact(k)) if k % 2 == 0 else Fraction(0)
             for k in range(p + 1)]
    return t._series(sin_c), t._series(cos_c)


def _fact(k: int) -> int:
    out = 1
    for j in range(2, k + 1):
        out *= j
    return out


def _angle_value(arg: sp.Expr, angles: Mapping) -> tuple[Fraction, Fraction]:
    r""":math:`(\cos a, \sin a)` of an integer combination ``arg`` of the angles at the
    point (Gaussian rationals :math:`\prod (c_j + i s_j)^{k_j}`); the coordinates' parts of
    ``arg`` are taken at their values (``angles`` holds every angle symbol of ``arg``)."""
    re, im = Fraction(1), Fraction(0)
    for term in sp.Add.make_args(arg):
        k, s = term.as_coeff_Mul()
        if not (k.is_Integer and s in angles):
            raise JetUndefined(f"sin/cos of {arg}: not an integer combination of angles")
        c, si = (Fraction(v) for v in angles[s])
        n = int(k)
        if n < 0:
            si, n = -si, -n
        a, b = Fraction(1), Fraction(0)
        for _ in range(n):
            a, b = a * c - b * si, a * si + b * c
        re, im = re * a - im * b, re * b + im * a
    return re, im


def taylor_jet(expr: sp.Expr, point: Mapping, angles: Mapping, variables: Sequence,
               order: int, memo: dict | None = None) -> Jet:
    r"""The Taylor jet of ``expr`` to total ``order`` in ``variables`` at the point (module
    docstring).  ``point``: rational values of the symbols that are not angles (the
    variables among them); ``angles``: ``{angle: (cos, sin)}`` rational on the unit circle
    (a variable that is an angle takes its value from there, as :math:`s_0 + \varepsilon`).
    ``memo`` (a dict) shares sub-expressions between calls at the same point.
    ``JetUndefined`` when the jet is not an exact rational one.

    >>> x = sp.Symbol("x")
    >>> taylor_jet(1/(1 - x), {x: 0}, {}, [x], 3).terms == {(0,): 1, (1,): 1, (2,): 1, (3,): 1}
    True
    """
    variables = list(variables)
    nvar = len(variables)
    index = {v: i for i, v in enumerate(variables)}
    memo = {} if memo is None else memo

    def angle_jet(arg):
        base = Jet.constant(0, nvar, order)
        for term in sp.Add.make_args(arg):
            k, s = term.as_coeff_Mul()
            if s in index:
                base = base + Jet.variable(nvar, order, index[s], 0) * Fraction(int(k))
        return base

    def val(a) -> Jet:
        got = memo.get(a)
        if got is not None:
            return got
        check()
        if a.is_Rational:
            got = Jet.constant(Fraction(int(a.p), int(a.q)), nvar, order)
        elif a.is_Symbol:
            if a in index:
                v = point.get(a)
                if v is None:
                    raise JetUndefined(f"no value for {a}")
                got = Jet.variable(nvar, order, index[a], Fraction(v))
            elif a in point:
                got = Jet.constant(Fraction(point[a]), nvar, order)
            else:
                raise JetUndefined(f"no value for {a}")
        elif a.is_Add:
            got = Jet.constant(0, nvar, order)
            for t in a.args:
                got = got + val(t)
        elif a.is_Mul:
            got = Jet.constant(1, nvar, order)
            for t in a.args:
                got = got * val(t)
        elif a.is_Pow and a.exp.is_Integer:
            got = val(a.base) ** int(a.exp)
        elif a.is_Pow and a.exp.is_Rational and a.exp.q == 2:
            got = val(a.base).sqrt() ** int(a.exp.p)
        elif isinstance(a, (sp.sin, sp.cos)):
            c0, s0 = _angle_value(a.args[0], angles)
            s_t, c_t = _sin_cos(angle_jet(a.args[0]))
            got = (s_t * c0 + c_t * s0) if isinstance(a, sp.sin) else (c_t * c0 - s_t * s0)
        else:
            raise JetUndefined(f"no exact jet of {type(a).__name__}")
        memo[a] = got
        return got

    return val(as_expr(expr))
