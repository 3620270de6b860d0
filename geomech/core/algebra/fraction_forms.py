r"""Forms of fractions of ring elements: cancellation by the factors of the denominator, and
the content and factored forms in which fractions are shown.

For :math:`n/d` with a large numerator a multivariate gcd is slow; :func:`cancel_by_factors`
cancels the irreducible factors :math:`f^k \mid d` one by one by exact division (trial
division, each tried only when :math:`f` divides :math:`n` after specialising the other
generators at random integers, :func:`~geomech.core.algebra.divisibility.may_divide`).
:func:`content_expr` writes a polynomial as content :math:`\times` monomial :math:`\times`
primitive part (Knuth, *The Art of Computer Programming* vol. 2, 1997, §4.6.1: the content
and primitive part of a polynomial), :func:`factor_expr` as a product of irreducible
factors.  They serve :class:`~geomech.core.algebra.rings.RationalAlgebra` (its ``quotient``
and ``frac``) and the tidy forms of equations of motion.

>>> import sympy as sp
>>> from geomech.core.algebra.rings import polynomial_ring
>>> x, y = sp.symbols("x y")
>>> R = polynomial_ring([x, y])
>>> n, d = cancel_by_factors(R.from_expr(x**3*y + x**2), R.from_expr(x**2*(x*y + 1)**2), {})
>>> (n.as_expr(), d.as_expr())
(1, x*y + 1)
"""

from __future__ import annotations

import sympy as sp

from geomech.core.algebra.divisibility import may_divide
from geomech.core.budget import poll
from geomech.core.flintpolys import poly_div, poly_factor_list

__all__ = ["cancel_by_factors", "content_expr", "factor_expr", "GCD_LIMIT", "FACTOR_LIMIT"]

#: ``len(num) * len(den)`` above which gcds are replaced by trial division
GCD_LIMIT = 4000
#: denominators longer than this are not factored
FACTOR_LIMIT = 400


def cancel_by_factors(n, d, cache: dict):
    """Cancel ``n/d`` by trial division with the irreducible factors of ``d`` (for large
    numerators, where a multivariate gcd is slow).  A factor is tried only when it
    divides ``n`` after specialising all other generators at random integers.  ``cache``
    keeps the factor lists of denominators (by their terms).

    Returns ``(n', d')`` with :math:`n'/d' = n/d` and :math:`d' \\mid d`.
    """
    if len(d) > FACTOR_LIMIT or d.is_ground:
        return n, d
    key = tuple(sorted(d.items()))
    if key not in cache:
        cache[key] = poly_factor_list(d)[1]
    for f, k in cache[key]:
        if f.is_monomial and f.LC == 1:
            n, d = _cancel_variable(n, d, f, k)
            continue
        for _ in range(k):
            poll()
            if not may_divide(n, f):
                break
            q, r = poly_div(n, f)
            if r:
                break
            n, d = q, d.exquo(f)
    return n, d


def _cancel_variable(n, d, f, k: int):
    """Cancel the power :math:`g^t` (:math:`t \\le k`) of a generator factor ``f = g``."""
    if sum(f.LM) != 1:
        return n, d
    i = next(j for j, e in enumerate(f.LM) if e)
    t = min(min(m[i] for m in n.itermonoms()), k)
    if t:
        R = n.ring
        n = R.from_dict({m[:i] + (m[i] - t,) + m[i + 1:]: c for m, c in n.items()})
        d = d.exquo(f**t)
    return n, d


def content_expr(alg, p) -> sp.Expr:
    """``p`` as ``number * monomial * primitive part`` (what ``factor_terms`` gives for an
    expanded polynomial, computed in the ring of ``alg``, a
    :class:`~geomech.core.algebra.rings.RationalAlgebra`).

    >>> from geomech.core.algebra.rings import RationalAlgebra
    >>> x, y = sp.symbols("x y")
    >>> A2 = RationalAlgebra([x, y])
    >>> content_expr(A2, A2.ring.from_expr(6*x**2*y + 4*x*y**2))
    2*x*y*(3*x + 2*y)
    """
    if not p:
        return sp.S.Zero
    if p.is_ground:
        return alg.expr(p)
    c, prim = p.primitive()
    if prim.LC < 0:
        c, prim = -c, -prim
    mons = list(prim.itermonoms())
    low = tuple(min(e) for e in zip(*mons))
    if any(low):
        mono = alg.ring.from_dict({low: 1})
        # the exact quotient by a monomial: the exponents shifted (no general division)
        prim = alg.ring.from_dict({tuple(a - b for a, b in zip(m, low)): c
                                   for m, c in prim.items()})
        return alg.domain_expr(c) * alg.expr(mono) * alg.expr(prim)
    return alg.domain_expr(c) * alg.expr(prim)


def factor_expr(alg, p, limit: int = 8) -> sp.Expr:
    """Factored form of a small ring element (at most ``limit`` terms), content form
    (:func:`content_expr`) of a large one.

    >>> from geomech.core.algebra.rings import RationalAlgebra
    >>> x = sp.Symbol("x")
    >>> A = RationalAlgebra([x])
    >>> factor_expr(A, A.ring.from_expr(2*x**2 - 2))
    2*(x - 1)*(x + 1)
    """
    if not p or p.is_ground or len(p) > limit:
        return content_expr(alg, p)
    c, facs = poly_factor_list(p)
    return alg.domain_expr(c) * sp.Mul(*[alg.expr(f) ** k for f, k in facs])
