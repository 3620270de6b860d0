r"""Normal forms of polynomial, rational and trigonometric expressions.

* :func:`trig_reduce` -- polynomials modulo :math:`\sin^2 s + \cos^2 s = 1`: the remainder
  with every :math:`\cos s` of degree < 2 (``keep="sin"``) or every :math:`\sin s` of
  degree < 2 (``keep="cos"``); both are canonical (the relation is a Gröbner basis, Cox,
  Little & O'Shea 2015, §2.6), ``keep=None`` returns the shorter of the two.
* :func:`compact` -- rational functions: a cancelled fraction whose numerator and denominator
  are reduced by the same rule (so a quotient that is a polynomial modulo the relation
  cancels); equal to the input as a function, never ``simplify``.
* :func:`ring_zero_test` -- the exact certificate behind every fast zero test: the
  expression over one common denominator (no gcd), its numerator reduced in the ring of
  :class:`~geomech.core.algebra.rings.RationalAlgebra`.  The zero policy
  (:mod:`geomech.core.zero`) runs it as its first exact stage.

Half angles (:math:`t = \tan(s/2)`) are the zero policy's rewriting for expressions that are
not polynomial in :math:`\sin, \cos` (:func:`geomech.core.zero.rational_rewrite`).

>>> import sympy as sp
>>> p, m = sp.symbols("phi m", real=True)
>>> compact(m*sp.cos(p)**2 + m*sp.sin(p)**2)
m
>>> trig_reduce(sp.sin(p)**2 + sp.cos(p)**2 - 1)
0
"""

from __future__ import annotations

import sympy as sp

from geomech.core.algebra.rings import RationalAlgebra, UnsupportedExpression
from geomech.core.opcount import count_ops  # == sympy.count_ops, faster
from geomech.core.parse import as_expr
from geomech.core.zero.transcendental import exp_log_rewrite

__all__ = ["trig_reduce", "compact", "ring_zero_test", "has_denominator"]


def _reduce_poly(e: sp.Expr, angles, keep: str) -> sp.Expr:
    """Reduce powers of ``cos`` (``keep="sin"``) or of ``sin`` (``keep="cos"``) >= 2."""
    rep = {}
    for a in angles:
        s, c = sp.sin(a), sp.cos(a)
        big, small = (c, s) if keep == "sin" else (s, c)
        rep[(big, small)] = a
    if not rep:
        return e

    def red(t):
        b, k = t.base, int(t.exp)
        for (big, small) in rep:
            if b == big:
                return big ** (k % 2) * (1 - small**2) ** (k // 2)
        return t

    e = e.replace(lambda t: t.is_Pow and t.exp.is_Integer and t.exp >= 2
                  and any(t.base == big for big, _ in rep), red)
    return sp.expand(e)


def _prepare(e: sp.Expr):
    e = sp.expand(e)
    trig = e.atoms(sp.sin, sp.cos)
    if not trig:
        return e, set()
    if any(not t.args[0].is_Symbol for t in trig):
        e = sp.expand(sp.expand_trig(e))
    return e, {t.args[0] for t in e.atoms(sp.sin, sp.cos)}


def _has_trig_square(e: sp.Expr) -> bool:
    return any(p.exp.is_Integer and p.exp >= 2 for p in e.atoms(sp.Pow)
               if isinstance(p.base, (sp.sin, sp.cos)))


def trig_reduce(e: sp.Expr, keep: str | None = None) -> sp.Expr:
    r"""Polynomial reduction modulo :math:`\sin^2+\cos^2=1`.

    ``keep="sin"`` rewrites even powers of cosines (the result is at most linear in each
    cosine), ``keep="cos"`` the other way round; ``None`` takes the shorter of the two
    (fewest operations, ``sympy.count_ops``).  Polynomials are reduced in the ring of
    :class:`~geomech.core.algebra.rings.RationalAlgebra` (one base angle per symbol, so half
    and multiple angles are reduced too); other expressions (floats, denominators) have
    their trigonometric functions of sums and multiples expanded (``expand_trig``) and are
    reduced by the same rule at the expression level.

    >>> s = sp.Symbol("s")
    >>> trig_reduce(sp.cos(s)**4 - sp.sin(s)**4, keep="sin")
    1 - 2*sin(s)**2
    >>> trig_reduce(sp.cos(s)**4 - sp.sin(s)**4, keep="cos")
    2*cos(s)**2 - 1
    >>> trig_reduce(2*sp.sin(s/2)**2 + sp.cos(s))
    1
    """
    e = as_expr(e)
    try:
        return _ring_trig_reduce(e, keep)
    except UnsupportedExpression:
        pass
    e, angles = _prepare(e)
    if not angles or not _has_trig_square(e):
        return e
    if keep is not None:
        return _reduce_poly(e, angles, keep)
    cands = [e, _reduce_poly(e, angles, "sin"), _reduce_poly(e, angles, "cos")]
    return min(cands, key=sp.count_ops)


def _ring_trig_reduce(e: sp.Expr, keep: str | None) -> sp.Expr:
    """:func:`trig_reduce` of a polynomial in the ring (raises UnsupportedExpression)."""
    alg = RationalAlgebra([e])
    n, d = alg.fraction(e)
    if not d.is_ground:
        raise UnsupportedExpression("a denominator")
    if d != 1:
        n = n.quo_ground(d.LC)
    if not alg.trig_idx:
        return alg.expr(n)
    cands = [alg.expr(alg.reduce(n, k)) for k in ((keep,) if keep else ("sin", "cos"))]
    if keep is None:
        cands.insert(0, alg.expr(n))
    return min(cands, key=sp.count_ops)


def has_denominator(e: sp.Expr) -> bool:
    """Whether ``e`` contains a negative power (a denominator).

    >>> x = sp.Symbol("x")
    >>> has_denominator(x + 1/x), has_denominator(x**2)
    (True, False)
    """
    return any(p.is_Pow and p.exp.is_negative for p in sp.preorder_traversal(e))




def _ring_compact(e: sp.Expr) -> sp.Expr:
    alg = RationalAlgebra([e])
    n, d = alg.frac(e)
    return alg.quotient(n, d)



def compact(e) -> sp.Expr:
    r"""Cheap compact normal form: cancel, reduce numerator/denominator trigonometrically.

    Numerator and denominator are reduced with the *same* rule (so that a quotient equal to
    a polynomial modulo :math:`\sin^2+\cos^2=1` cancels); the shortest result of the two
    rules is kept.  Equal to the input as a function; no ``simplify``.  Expressions outside
    the ring (floats, nested radicals) take an expression-level route with the same rules.

    >>> s, m = sp.symbols("s m")
    >>> compact((m - m*sp.cos(s)**2)/sp.sin(s))
    m*sin(s)
    """
    e = as_expr(e)
    if e.is_Atom:
        return e
    try:
        return _ring_compact(e)
    except UnsupportedExpression:
        return _compact_expr(e)


def _compact_expr(e: sp.Expr) -> sp.Expr:
    """Expression-level fallback of :func:`compact` (floats, nested radicals ...)."""
    if not has_denominator(e):
        return trig_reduce(e)
    n, d = sp.fraction(sp.cancel(sp.together(e)))
    if not (_has_trig_square(n) or _has_trig_square(d)) and not any(
            not t.args[0].is_Symbol for t in (n.atoms(sp.sin, sp.cos) | d.atoms(sp.sin, sp.cos))):
        return sp.factor_terms(n) / sp.factor_terms(d)
    best = None
    for keep in ("sin", "cos"):
        n1, d1 = trig_reduce(n, keep), trig_reduce(d, keep)
        if d1.is_number:
            cand = sp.expand(n1 / d1)
        else:
            n2, d2 = sp.fraction(sp.cancel(n1 / d1))
            if n2 != n1 and n2 != -n1:
                n2, d2 = trig_reduce(n2, keep), trig_reduce(d2, keep)
            cand = sp.factor_terms(n2) / sp.factor_terms(d2)
        ops = count_ops(cand)
        if best is None or ops < best[0]:
            best = (ops, cand)
        if cand.is_polynomial() and not has_denominator(cand):
            break
    return best[1]




def ring_zero_test(expr) -> bool | None:
    r"""Exact zero certificate in :math:`\mathbb Q[\text{symbols},\sin s,\cos s,\sqrt b,
    e^{b}, \log|p|]`.

    Exponentials and logarithms of rational functions become ring generators with their
    relations (:func:`geomech.core.zero.transcendental.exp_log_rewrite`); the expression is
    brought over one common denominator without any gcd (lazy sparse fractions of
    :class:`~geomech.core.algebra.rings.RationalAlgebra`) and the numerator is reduced modulo
    :math:`\sin^2 s+\cos^2 s=1` and :math:`(\sqrt b)^2=b`.

    Returns ``True`` when the reduced numerator vanishes and the reduced denominator does not
    (a ring identity: certain for every branch of the roots), ``False`` when the numerator
    does not vanish and the ring is faithful (no square roots, no free atoms: the reduced
    form is canonical, so the function is non-zero), ``None`` otherwise (numbers, floats,
    ``nan``, free functions ...: the caller asks the zero policy).  Never ``True`` for a
    non-zero expression, never ``False`` for a zero one.

    >>> t, m, x = sp.symbols("theta m x")
    >>> ring_zero_test(m/sp.sin(t)*sp.cos(t)**2 + m*sp.sin(t) - m/sp.sin(t))
    True
    >>> ring_zero_test(sp.cos(t)**2 - 1)
    False
    >>> ring_zero_test(sp.sqrt(x**2) - x) is None
    True
    """
    e = as_expr(expr)
    if e == 0:
        return True
    if e.is_number:
        return None
    el = exp_log_rewrite([e]) if e.has(sp.exp, sp.log, sp.E) else None
    if el is not None:
        e = el.exprs[0]
    try:
        alg = RationalAlgebra([e])
        n, d = alg.fraction(e, gcd=False)
        if not alg.reduce(d):
            return None              # 0/0: let the policy decide
        if not alg.reduce(n):
            return True
    except (UnsupportedExpression, ValueError, TypeError, ZeroDivisionError,
            sp.PolynomialError, sp.CoercionFailed):
        return None
    return False if alg.faithful and (el is None or el.faithful) else None
