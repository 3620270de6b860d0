r"""Sums of fractions in a sparse polynomial ring, and a cheap modular test of
divisibility.

* :func:`sum_with_gcd`, :func:`sum_without_gcd` -- :math:`n/d + n_2/d_2` over
  :math:`\operatorname{lcm}(d, d_2)`, or over :math:`d` when :math:`d_2 \mid d` (no gcd);
* :func:`common_denominator`, :func:`sum_monomial_gcd` -- a common multiple without a
  polynomial gcd (the monomial part of the gcd taken out);
* :func:`may_divide` -- ``False`` only when :math:`f \nmid n` is proved: specialising all
  generators but one at random points modulo the prime :math:`2^{61}-1` is a ring map, so
  :math:`f \mid n` implies the divisibility of the univariate images (Zippel 1979,
  "Probabilistic algorithms for sparse polynomials").

>>> import sympy as sp
>>> from geomech.core.algebra.rings import polynomial_ring
>>> x, y = sp.symbols("x y")
>>> R = polynomial_ring([x, y])
>>> may_divide(R(x**2 - y**2), R(x - y)), may_divide(R(x**2 + y), R(x - y))
(True, False)
"""

from __future__ import annotations

import random

from geomech.core.flintpolys import poly_gcd, poly_mul

__all__ = ["may_divide", "sum_with_gcd", "sum_without_gcd", "common_denominator",
           "sum_monomial_gcd"]


_PRIME = 2**61 - 1


def _specialise_mod_p(p, main: int, pt: list) -> dict:
    """``p`` with every generator but number ``main`` set to ``pt`` (mod a prime), as
    ``{degree: coefficient}``; ``None`` if a denominator vanishes mod the prime."""
    P = _PRIME
    out: dict = {}
    pw = [{} for _ in pt]
    for m, c in p.items():
        num, den = int(c.numerator), int(c.denominator)
        if den % P == 0:
            return None
        v = num * pow(den, -1, P) % P
        for i, e in enumerate(m):
            if i != main and e:
                cache = pw[i]
                if e not in cache:
                    cache[e] = pow(pt[i], e, P)
                v = v * cache[e] % P
        k = m[main]
        out[k] = (out.get(k, 0) + v) % P
    return {k: v for k, v in out.items() if v}


def _rem_mod_p(n: dict, f: dict) -> bool:
    """Whether the univariate ``f`` leaves a non-zero remainder on ``n`` (mod the prime)."""
    P = _PRIME
    df = max(f)
    inv = pow(f[df], -1, P)
    n = dict(n)
    while n:
        dn = max(n)
        if dn < df:
            return True
        c = n.pop(dn) * inv % P
        for k, v in f.items():
            if k == df:
                continue
            j = k + dn - df
            n[j] = (n.get(j, 0) - c * v) % P
            if not n[j]:
                del n[j]
    return False


def may_divide(n, f, trials: int = 2) -> bool:
    """``False`` if ``f`` certainly does not divide ``n``: a specialisation of all generators
    but one at random points modulo a prime is a ring map, so ``f | n`` implies the
    divisibility of the specialised univariate polynomials."""
    R = n.ring
    main = next(i for i, e in enumerate(f.degrees()) if e > 0)
    rng = random.Random(len(n) * 7919 + len(f))
    for _ in range(trials):
        pt = [rng.randrange(2, _PRIME - 1) for _ in range(R.ngens)]
        fu = _specialise_mod_p(f, main, pt)
        if not fu or max(fu) == 0:
            continue
        nu = _specialise_mod_p(n, main, pt)
        if nu is None:
            continue
        if nu and _rem_mod_p(nu, fu):
            return False
    return True


def sum_with_gcd(n, d, n2, d2) -> tuple:
    """``n/d + n2/d2`` over ``lcm(d, d2)``."""
    if d.is_ground and d2.is_ground:
        return n * d2 + n2 * d, d * d2
    g = poly_gcd(d, d2)
    f, f2 = d2.exquo(g), d.exquo(g)
    return poly_mul(n, f) + poly_mul(n2, f2), poly_mul(d, f)


def sum_without_gcd(n, d, n2, d2) -> tuple:
    """``n/d + n2/d2`` over ``d`` when ``d2`` divides it, else over ``d d2`` (no gcd)."""
    if d2.is_ground:
        return (n + n2 * d.quo_ground(d2.LC) if d2 != 1 else n + n2 * d), d
    q, r = d.div(d2)
    if not r:
        return n + n2 * q, d
    return n * d2 + n2 * d, d * d2


def _monomial_gcd(d, d2) -> tuple | None:
    """The exponents of the monomial gcd of ``d`` and ``d2`` (``None`` when it is 1)."""
    low = None
    for p in (d, d2):
        for m in p.itermonoms():
            low = m if low is None else tuple(map(min, low, m))
            if not any(low):
                return None
    return low if low is not None and any(low) else None


def common_denominator(d, d2) -> tuple:
    r"""``(D, f, f2)`` with :math:`D = f\,d = f_2\,d_2` a common multiple of ``d`` and
    ``d2`` found without a polynomial gcd: ``d`` itself when :math:`d_2 \mid d`, otherwise
    the product over the monomial part :math:`g` of :math:`\gcd(d, d_2)` (a minimum of
    exponents), :math:`D = (d/g)(d_2/g)\,g`.  Powers :math:`\rho^k` of a root or of
    :math:`\sin s` in denominators then do not multiply (:math:`\rho^3, \rho^5 \to \rho^5`).

    >>> import sympy as sp
    >>> from geomech.core.algebra.rings import polynomial_ring
    >>> x, y = sp.symbols("x y")
    >>> R = polynomial_ring([x, y])
    >>> [p.as_expr() for p in common_denominator(R(x**3), R(x**2*y))]
    [x**3*y, y, x]
    """
    R = d.ring
    if d2.is_ground:
        return d, R.one, d.quo_ground(d2.LC)
    if d.is_ground:
        return d2, d2.quo_ground(d.LC), R.one
    q, r = d.div(d2)
    if not r:
        return d, R.one, q
    g = _monomial_gcd(d, d2)
    if g is None:
        return d * d2, d2, d
    dq = R.from_dict({tuple(a - b for a, b in zip(m, g)): c for m, c in d.items()})
    d2q = R.from_dict({tuple(a - b for a, b in zip(m, g)): c for m, c in d2.items()})
    return d * d2q, d2q, dq


def sum_monomial_gcd(n, d, n2, d2) -> tuple:
    r""":math:`n/d + n_2/d_2` over :func:`common_denominator` (no polynomial gcd).

    >>> import sympy as sp
    >>> from geomech.core.algebra.rings import polynomial_ring
    >>> x, y = sp.symbols("x y")
    >>> R = polynomial_ring([x, y])
    >>> [p.as_expr() for p in sum_monomial_gcd(R(1), R(x**3), R(1), R(x**2*y))]
    [x + y, x**3*y]
    """
    den, f, f2 = common_denominator(d, d2)
    return n * f + n2 * f2, den
