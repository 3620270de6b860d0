r"""Zero decisions in the radical rings of
:class:`~geomech.core.algebra.calculus.RadicalCalculus`: the one place that says whether a
ring element, or a fraction of ring elements, is zero as a function.

The ring is :math:`\mathbb Q[\text{symbols}, \sin, \cos, \rho_j]/(\sin^2+\cos^2-1,
\rho_j^2-b_j)`; its reduced form is canonical in the trigonometric part only, so a zero
reduced numerator is a ring identity (zero), and a non-zero one proves nothing by itself.
Three proofs of non-zero-ness are given here, combined by :func:`ring_nonzero`:

* :func:`point_nonzero` -- an interval enclosure (Moore, Kearfott & Cloud (2009)) of the
  element's value at a rational point that excludes 0: a function with a non-zero value is
  not the zero function, whatever the relations between the generators (exponentials and
  logarithms included);
* :func:`norm_nonzero` -- the norms of the quadratic extensions: with :math:`p = p_0 +
  p_1\rho`, :math:`N(p) = p_0^2 - b\,p_1^2` vanishes when :math:`p` does; after eliminating
  every root the norm lies in the trigonometric ring, where the reduced form is canonical
  (Lang (2002), *Algebra*, VI §5);
* :func:`fraction_verdict` -- one root :math:`\rho = \sqrt b`, :math:`E = (E_0 + E_1\rho)/d`:
  when :math:`b` is not a square (:func:`root_is_irrational`), :math:`1, \rho` are linearly
  independent over the rational functions, so :math:`E \equiv 0 \iff E_0 \equiv 0 \wedge
  E_1 \equiv 0`; a non-zero exact value of :math:`(E_0, E_1)` at one rational point of the
  ring (:func:`ring_points`: :math:`\sin^2+\cos^2=1` holds there) proves :math:`E \not\equiv 0`.

Neither answers "zero" from a sample: undecided is ``False`` / ``None``.

>>> import sympy as sp
>>> from geomech.core.algebra.calculus import RadicalCalculus
>>> t = sp.Symbol("t", real=True)
>>> rc = RadicalCalculus([sp.sqrt(2 + sp.cos(t))])
>>> rho, c = rc.R.gens[0], rc.frac(sp.cos(t))[0]
>>> norm_nonzero(rc, rho - 1), norm_nonzero(rc, rho**2 - 2 - c)
(True, False)
>>> fraction_verdict(rc, rho - 1, rc.R.one).zero
False
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import sympy as sp
from sympy.polys.rings import PolyElement

from geomech.core.algebra.rings import UnsupportedExpression
from geomech.core.flintpolys import from_fmpq_mpoly, qq_context, to_fmpq_mpoly
from geomech.core.zero.evaluation import interval_value
from geomech.core.zero.rewrite import half_angle_sin_cos
from geomech.core.zero.verdicts import ZeroVerdict

__all__ = ["ring_nonzero", "point_nonzero", "norm_nonzero", "fraction_verdict", "ring_points",
           "ring_value", "split_value", "root_parts", "root_is_irrational", "flint_forms"]


def ring_nonzero(calc, p) -> bool:
    r"""Whether the ring element ``p`` of ``calc`` is provably a non-zero function: first a
    value enclosed away from 0 at a rational point (:func:`point_nonzero`, cheap), then, in
    rings without free atoms, the norms (:func:`norm_nonzero`, which square the element
    once per root).  ``False`` means *undecided* (never "zero").

    >>> import sympy as sp
    >>> from geomech.core.algebra.calculus import RadicalCalculus
    >>> x = sp.Symbol("x", real=True)
    >>> rc = RadicalCalculus([sp.sqrt(1 + x**2), sp.exp(x)])
    >>> rho, E = rc.R.gens[0], rc.R.gens[rc.idx[sp.exp(x)]]
    >>> ring_nonzero(rc, rho - E), ring_nonzero(rc, rho**2 - 1 - rc.frac(x**2)[0])
    (True, False)
    """
    p = calc.alg.reduce(p)
    if not p:
        return False
    if point_nonzero(calc, p):
        return True
    return not calc.alg.opaque and norm_nonzero(calc, p)


def point_nonzero(calc, p, tries: int = 2) -> bool:
    r"""Whether the ring element ``p`` of ``calc`` has a value excluding 0 at a rational
    point: an interval enclosure (Moore, Kearfott & Cloud (2009)) of every generator there
    (symbols exact; :math:`\sin, \cos, e^u, \log u` by
    :func:`~geomech.core.zero.evaluation.interval_value`; a root :math:`\sqrt b` from the
    enclosure of its radicand, which must be positive), then of the polynomial.  A function
    with a non-zero value is not the zero function: a proof, valid whatever the relations
    between the generators; ``False`` means *undecided* (also with integer symbols, whose
    domain has no rational points).

    >>> import sympy as sp
    >>> from geomech.core.algebra.calculus import RadicalCalculus
    >>> x = sp.Symbol("x", real=True)
    >>> rc = RadicalCalculus([sp.sqrt(1 + x**2)])
    >>> point_nonzero(rc, rc.R.gens[0] - 1), point_nonzero(rc, rc.R.zero)
    (True, False)
    """
    gens = calc.alg.generators
    roots = {i for i, _ in gens.roots}
    syms = sorted(set().union(*(g.free_symbols for i, g in enumerate(gens.gens)
                                if i not in roots)), key=sp.default_sort_key)
    if any(s.is_integer for s in syms):
        return False
    rng = random.Random(20261)
    for _ in range(tries):
        pt = {s: sp.Rational(rng.randint(1, 97), rng.randint(1, 89))
              * (-1 if (s.is_negative or s.is_nonpositive) else 1) for s in syms}
        box = _enclosure(p, _generator_boxes(calc, pt))
        if box is not None and math.isfinite(box.a) and math.isfinite(box.b) \
                and 0 not in box:
            return True
    return False


def _generator_boxes(calc, pt: dict) -> list | None:
    """Interval enclosures of the ring's generators at the rational point ``pt``."""
    gens = calc.alg.generators
    roots = dict(calc.alg.sqrt_rel)             # index -> radicand (a ring element)
    boxes: list = [None] * len(gens.gens)
    for i, g in enumerate(gens.gens):
        if i not in roots:
            boxes[i] = interval_value(g, pt)
            if boxes[i] is None:
                return None
    for i, b in roots.items():
        v = _enclosure(b, boxes)
        if v is None or not v.a > 0:
            return None
        boxes[i] = v.ctx.sqrt(v)
    return boxes


def _enclosure(p, boxes: list | None):
    """An interval enclosing the ring element ``p`` with its generators in ``boxes``
    (``None`` for an unknown generator that ``p`` uses)."""
    if boxes is None:
        return None
    ctx = next((b.ctx for b in boxes if b is not None), None)
    if ctx is None:
        return None
    to_sympy, powers, total = p.ring.domain.to_sympy, {}, ctx.mpf(0)
    for monom, c in p.terms():
        q = to_sympy(c)
        t = ctx.mpf(int(q.p)) / int(q.q)
        for i, e in enumerate(monom):
            if e:
                if boxes[i] is None:
                    return None
                key = (i, e)
                if key not in powers:
                    powers[key] = boxes[i] ** e
                t = t * powers[key]
        total = total + t
    return total


def norm_nonzero(calc, p) -> bool:
    r"""Whether the ring element ``p`` of ``calc`` is provably a non-zero function, by the
    norms of the quadratic extensions (module docstring):

    .. math:: N(p) = (p_0 + p_1\rho)(p_0 - p_1\rho) = p_0^2 - b\,p_1^2 ,

    so :math:`p \equiv 0` implies :math:`N(p) \equiv 0`.  ``False`` means *undecided*
    (never "zero"); an opaque ring (free atoms) decides nothing.
    """
    alg = calc.alg
    p = alg.reduce(p)
    for rho, b in calc.roots:
        if not p:
            return False
        p0, p1 = p.coeff_wrt(rho, 0), p.coeff_wrt(rho, 1)
        if p1:
            p = alg.reduce(p0 * p0 - b * p1 * p1)
    return bool(alg.reduce(p)) and not alg.opaque


def fraction_verdict(calc, num, den, points: int = 3, seed: int = 7) -> ZeroVerdict | None:
    r"""The exact verdict on :math:`n/d \equiv 0` for ring elements ``num``, ``den`` of
    ``calc`` (``den`` free of roots, at most one root): zero when the reduced numerator
    vanishes (a ring identity); non-zero when the radicand is not a square and
    :math:`(E_0, E_1)` is non-zero at one of ``points`` rational points (module docstring);
    ``None`` when undecided.
    """
    num = calc.alg.reduce(num)
    if not num:
        return ZeroVerdict(zero=True, certain=True, method="radical ring")
    if calc.roots and not root_is_irrational(calc):
        return None
    for pt in ring_points(calc, points, seed):
        try:
            if any(v != 0 for v in split_value(calc, num, den, pt)):
                return ZeroVerdict(zero=False, certain=True,
                                   method="radical ring (rational point)")
        except ZeroDivisionError:
            continue
    return None


def ring_value(calc, p, point: dict, keep: Sequence = ()):
    """The ring element ``p`` (free of roots) at ``point`` (see :func:`ring_points`):
    rational, or an expression in the generators ``keep``.  ``p`` may be its flint form
    (:func:`flint_forms`: one substitution in C instead of one pass per generator).

    >>> from geomech.core.algebra.calculus import RadicalCalculus
    >>> x, y = sp.symbols("x y")
    >>> rc = RadicalCalculus([x, y])
    >>> p = rc.frac(x**2*y/3 - y)[0]
    >>> pt = {x: sp.Rational(1, 2), y: sp.Rational(3)}
    >>> ring_value(rc, p, pt), ring_value(rc, flint_forms(rc, [p])[0], pt, keep=[y])
    (-11/4, -11*y/12)
    """
    pairs = [(i, point[s]) for s, i in calc.idx.items() if s in point and s not in keep]
    if not isinstance(p, PolyElement):               # a flint form
        if all(isinstance(v, sp.Rational) for _, v in pairs):
            return _flint_value(calc, p, pairs)
        p = from_fmpq_mpoly(calc.R, p)
    gens = calc.R.gens
    if not p:
        return sp.S.Zero
    out = p.evaluate([(gens[i], v) for i, v in pairs]) if pairs else p
    if hasattr(out, "as_expr"):
        return out.as_expr()
    return calc.R.domain.to_sympy(out)


def _flint_value(calc, f, pairs: list):
    """:func:`ring_value` of the ``fmpq_mpoly`` ``f`` at rational values ``(index, v)``."""
    if f.is_zero():
        return sp.S.Zero
    names = f.context().names()
    dom = calc.R.domain
    g = f.subs({names[i]: dom.from_sympy(v) for i, v in pairs}) if pairs else f
    if g.is_constant():
        return dom.to_sympy(g.leading_coefficient()) if not g.is_zero() else sp.S.Zero
    return from_fmpq_mpoly(calc.R, g).as_expr()


def flint_forms(calc, polys: Sequence) -> tuple:
    """The ring elements ``polys`` of ``calc`` as python-flint ``fmpq_mpoly`` (for repeated
    :func:`ring_value` / :func:`split_value` at rational points), or unchanged without
    flint or over another domain.

    >>> from geomech.core.algebra.calculus import RadicalCalculus
    >>> x = sp.Symbol("x")
    >>> rc = RadicalCalculus([x])
    >>> p = rc.frac(x**3 - x/2)[0]
    >>> [ring_value(rc, f, {x: sp.Rational(2)}) for f in flint_forms(rc, [p, 2*p])]
    [7, 14]
    """
    ctx = qq_context(calc.R.ngens) if calc.R.domain == sp.QQ else None
    if ctx is None:
        return tuple(polys)
    return tuple(to_fmpq_mpoly(p, ctx) for p in polys)


def root_parts(calc, num) -> tuple:
    r"""``(n_0, n_1)`` with :math:`n = n_0 + n_1\rho` (``n`` reduced, one root at most;
    :math:`n_1 = 0` without roots): the parts :func:`split_value` evaluates."""
    if len(calc.roots) > 1:
        raise UnsupportedExpression("more than one square root")
    rho = calc.roots[0][0] if calc.roots else None
    return tuple(num.coeff_wrt(rho, k) for k in (0, 1)) if rho is not None \
        else (num, calc.R.zero)


def split_value(calc, num, den, point: dict, keep: Sequence = (), parts=None) -> tuple:
    r"""``(E_0, E_1)`` at ``point`` for :math:`E = n/d = E_0 + E_1\rho` (one root at most,
    ``d`` free of it; ``E_1 = 0`` without roots): every ring generator except :math:`\rho`
    and ``keep`` takes its value from ``point``.  ``ZeroDivisionError`` where ``d`` vanishes.

    >>> from geomech.core.algebra.calculus import RadicalCalculus
    >>> x = sp.Symbol("x", positive=True)
    >>> rc = RadicalCalculus([sp.sqrt(1 + x)])
    >>> split_value(rc, *rc.frac((2 + sp.sqrt(1 + x))/x), {x: sp.Rational(1, 2)})
    (4, 2)
    """
    if len(calc.roots) > 1:
        raise UnsupportedExpression("more than one square root")
    d = ring_value(calc, den, point, keep)
    if d == 0:
        raise ZeroDivisionError("the denominator vanishes at the point")
    parts = root_parts(calc, num) if parts is None else parts
    return tuple(ring_value(calc, p, point, keep) / d for p in parts)


def ring_points(calc, count: int, seed: int) -> list[dict]:
    r"""``count`` random rational points ``{ring generator symbol: value}`` of the ring of
    ``calc`` (roots excluded): for each angle :math:`s` a rational :math:`t`,
    :math:`\sin s = 2t/(1+t^2)`, :math:`\cos s = (1-t^2)/(1+t^2)` (so the relation
    :math:`\sin^2+\cos^2=1` holds); other generators positive or signed rationals.

    >>> from geomech.core.algebra.calculus import RadicalCalculus
    >>> t = sp.Symbol("t", real=True)
    >>> pt = ring_points(RadicalCalculus([sp.sin(t)]), 1, 0)[0]
    >>> pt[sp.sin(t)]**2 + pt[sp.cos(t)]**2
    1
    """
    rng = random.Random(seed)
    roots = {rho for rho, _ in calc.roots}
    syms = [s for s, i in calc.idx.items() if calc.R.gens[i] not in roots]
    trig = {f for f in syms if isinstance(f, (sp.sin, sp.cos))}
    out = []
    for _ in range(count):
        pt: dict = {}
        for a in calc.alg.angles:
            t = sp.Rational(rng.randint(1, 40), rng.randint(41, 97))
            pt[sp.sin(a)], pt[sp.cos(a)] = half_angle_sin_cos(t)
        for s in syms:
            if s not in trig:
                val = sp.Rational(rng.randint(1, 97), rng.randint(1, 41))
                sign = 1 if getattr(s, "is_positive", False) else rng.choice([1, -1])
                pt[s] = sign * val
        out.append(pt)
    return out


def root_is_irrational(calc, points: int = 4) -> bool:
    r"""Whether the radicand :math:`b` of the (single) root of ``calc`` is certainly not the
    square of a rational function: :math:`b` is not a rational square at some rational point
    (a square :math:`g^2` would be one at every point where :math:`g` is defined).  Then
    :math:`1, \rho` are linearly independent over the rational functions."""
    if len(calc.roots) != 1:
        return False
    for pt in ring_points(calc, points, 3):
        val = split_value(calc, calc.roots[0][1], calc.R.one, pt)[0]
        if val < 0 or not sp.sqrt(val).is_Rational:
            return True
    return False
