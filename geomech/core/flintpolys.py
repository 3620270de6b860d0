r"""gcd, cancellation and factorisation over :math:`\mathbb Q` through python-flint.

sympy's sparse polynomials compute multivariate gcds (heuristic gcd) and factorisations in
pure Python; python-flint (the ``fast`` extra; also sympy's ground types) has them in C
(``fmpz_mpoly``).  :func:`poly_gcd`, :func:`poly_cancel` and :func:`poly_factor_list` return
exactly what the ``PolyElement`` methods return (a property test compares them) and fall back
to those methods without flint.

>>> import sympy as sp
>>> from sympy.polys.rings import ring
>>> R, a, b = ring("a b", sp.QQ)
>>> poly_gcd((a - b)*(a + 1), (a - b)*b) == a - b
True
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter

import sympy as sp
from sympy.polys.rings import PolyRing

__all__ = ["poly_gcd", "poly_lcm", "poly_cancel", "poly_factor_list", "poly_div", "poly_mul",
           "expr_factors",
           "qq_context",
           "to_fmpq_mpoly", "from_fmpq_mpoly"]


# -- gcd, cancellation, factorisation over QQ through python-flint -------------------------
# sympy's sparse polynomials compute multivariate gcds (heuristic gcd) and factorisations in
# pure Python; python-flint (the ``fast`` extra; also sympy's ground types) has them in C
# (``fmpz_mpoly``).  The functions below return exactly what the PolyElement methods return
# (a property test compares them) and fall back to those methods without flint.

try:  # pragma: no cover - depends on the environment
    import flint as _flint

    _MPOLY = hasattr(_flint, "fmpz_mpoly_ctx")
except ImportError:  # pragma: no cover
    _flint, _MPOLY = None, False


@lru_cache(maxsize=64)
def _zz_ctx(n: int):
    """flint's context for ``n`` generators in sympy's order (lex, first generator highest)."""
    return _flint.fmpz_mpoly_ctx.get(tuple(f"g{i}" for i in range(n)), "lex")


def qq_context(n: int):
    """flint's ``fmpq_mpoly`` context for ``n`` generators in sympy's order (lex, first
    generator highest), or ``None`` without python-flint or when sympy's rationals are not
    flint's (then every coefficient would need converting)."""
    if not _MPOLY or type(sp.QQ.one).__name__ != "fmpq":
        return None
    return _qq_ctx(n)


@lru_cache(maxsize=64)
def _qq_ctx(n: int):
    return _flint.fmpq_mpoly_ctx.get(tuple(f"g{i}" for i in range(n)), "lex")


def to_fmpq_mpoly(p, ctx=None, order: tuple | None = None):
    """A PolyElement over QQ (flint ground types) as an ``fmpq_mpoly`` of ``ctx`` (default
    :func:`qq_context` of its ring), the generators in the same order, or with ``order``
    the context's variable ``v`` being the ring's generator ``order[v]`` (the exponents
    permuted in C by ``operator.itemgetter``).

    >>> from sympy.polys.rings import ring
    >>> R, x, y = ring("x y", sp.QQ)
    >>> f = to_fmpq_mpoly(x**2*y/3 - 1)
    >>> from_fmpq_mpoly(R, f) == x**2*y/3 - 1
    True
    >>> g = to_fmpq_mpoly(x**2*y/3 - 1, order=(1, 0))       # y first
    >>> g == f.compose(*reversed(qq_context(2).gens()))
    True
    >>> from_fmpq_mpoly(R, g, (1, 0)) == x**2*y/3 - 1
    True
    """
    ctx = qq_context(p.ring.ngens) if ctx is None else ctx
    if order is None or len(order) < 2:
        return ctx.from_dict(dict(p.items()))
    return ctx.from_dict(dict(zip(map(itemgetter(*order), p.keys()), p.values())))


def from_fmpq_mpoly(ring, f, order: tuple | None = None):
    """An ``fmpq_mpoly`` as an element of the sympy ``ring`` over QQ (same generator order,
    or with ``order`` as in :func:`to_fmpq_mpoly`, which it inverts); the coefficients are
    flint's rationals, which are sympy's with flint ground types.

    >>> from sympy.polys.rings import ring
    >>> R, x, y = ring("x y", sp.QQ)
    >>> from_fmpq_mpoly(R, to_fmpq_mpoly(x**2*y - x, order=(1, 0)), (1, 0)) == x**2*y - x
    True
    """
    el = ring.zero
    if order is None or len(order) < 2:
        dict.update(el, zip([tuple(map(int, m)) for m in f.monoms()], f.coeffs()))
        return el
    back = itemgetter(*sorted(range(len(order)), key=order.__getitem__))
    dict.update(el, zip([tuple(map(int, back(m))) for m in f.monoms()], f.coeffs()))
    return el


def _to_flint(p):
    """A PolyElement over ZZ (or over QQ with integral coefficients) as an
    ``fmpz_mpoly``."""
    return _zz_ctx(p.ring.ngens).from_dict({m: int(c) for m, c in p.items()})


def _from_flint(ring, f):
    """An ``fmpz_mpoly`` as an element of ``ring`` (coefficients converted to its domain)."""
    conv = ring.domain.convert
    return ring.from_dict({tuple(map(int, m)): conv(int(c)) for m, c in f.to_dict().items()})


def _flint_ok(*polys) -> bool:
    """Whether the fast route applies: flint present, over QQ, at least two terms each."""
    return _MPOLY and all(p.ring.domain == sp.QQ and len(p) > 1 for p in polys)


def poly_gcd(f, g):
    """``f.gcd(g)`` for elements of a sympy ``PolyRing`` over QQ: the monic gcd.

    >>> from sympy.polys.rings import ring
    >>> R, x, y = ring("x y", sp.QQ)
    >>> poly_gcd((x - y)*(x + 2), (x - y)*(x - 3)) == (x - y).gcd(x - y)
    True
    """
    if not _flint_ok(f, g):
        return f.gcd(g)
    R = f.ring
    zz = R.clone(domain=sp.ZZ)
    h = _from_flint(R, _to_flint(f.clear_denoms()[1].set_ring(zz)).gcd(
        _to_flint(g.clear_denoms()[1].set_ring(zz))))
    return h.monic()


def poly_lcm(f, g):
    r"""``f.lcm(g)`` for elements of a sympy ``PolyRing`` over QQ: the monic
    :math:`fg/\gcd(f, g)`, the gcd, product and exact quotient by flint.

    >>> from sympy.polys.rings import ring
    >>> R, x, y = ring("x y", sp.QQ)
    >>> f, g = (x - y)*(x + 2)/3, 2*(x - y)*(y - 3)
    >>> poly_lcm(f, g) == f.lcm(g)
    True
    """
    ctx = qq_context(f.ring.ngens) if _flint_ok(f, g) else None
    if ctx is None:
        return f.lcm(g)
    F, G = to_fmpq_mpoly(f, ctx), to_fmpq_mpoly(g, ctx)
    return from_fmpq_mpoly(f.ring, (F * G) / F.gcd(G)).monic()


def poly_cancel(f, g) -> tuple:
    """``f.cancel(g)`` over QQ: ``(p, q)`` with ``p/q = f/g`` in lowest terms, normalised as
    sympy does (denominators cleared, cofactors of the integer gcd times the cofactors of
    the cleared denominators, ``q`` with a positive leading coefficient).

    >>> from sympy.polys.rings import ring
    >>> R, x, y = ring("x y", sp.QQ)
    >>> f, g = (x**2 - y**2)/2, 3*x + 3*y
    >>> poly_cancel(f, g) == f.cancel(g)
    True
    """
    if not (f and _flint_ok(f, g)):
        return f.cancel(g)
    R = f.ring
    cq, F = f.clear_denoms()
    cp, G = g.clear_denoms()
    Ff, Gf = _to_flint(F), _to_flint(G)      # integral coefficients: no ring change needed
    h = Ff.gcd(Gf)
    p, q = _from_flint(R, Ff / h), _from_flint(R, Gf / h)
    _, cp, cq = sp.ZZ.cofactors(sp.ZZ.convert(cp), sp.ZZ.convert(cq))
    p, q = p.mul_ground(R.domain.convert(cp)), q.mul_ground(R.domain.convert(cq))
    if q.LC < 0:
        p, q = -p, -q
    return p, q


#: products with at least this many term pairs (``len(f) * len(g)``) are taken by flint
MUL_TERMS = 4000


def poly_mul(f, g):
    """``f * g`` for elements of one sympy ``PolyRing`` over QQ; large products by flint's
    ``fmpq_mpoly`` (C) instead of sympy's term-by-term product (pure Python).

    >>> from sympy.polys.rings import ring
    >>> R, x, y = ring("x y", sp.QQ)
    >>> f, g = (x + y/2)**70, (x - 3*y)**70
    >>> poly_mul(f, g) == f * g
    True
    """
    if len(f) * len(g) < MUL_TERMS or not _flint_ok(f, g):
        return f * g
    ctx = qq_context(f.ring.ngens)
    if ctx is None:
        return f * g
    return from_fmpq_mpoly(f.ring, to_fmpq_mpoly(f, ctx) * to_fmpq_mpoly(g, ctx))


def poly_div(f, g) -> tuple:
    """``f.div(g)`` over QQ: ``(q, r)`` with :math:`f = qg + r` and no term of ``r``
    divisible by the leading term of ``g`` (unique for one divisor; sympy's division is pure
    Python, flint's ``fmpq_mpoly`` divmod is C).

    >>> from sympy.polys.rings import ring
    >>> R, x, y = ring("x y", sp.QQ)
    >>> f, g = (x**2*y/3 - 1)*(x + y) + x, x + y
    >>> poly_div(f, g) == f.div(g)
    True
    """
    ctx = qq_context(f.ring.ngens) if _flint_ok(f, g) else None
    if ctx is None:
        return f.div(g)
    q, r = divmod(to_fmpq_mpoly(f, ctx), to_fmpq_mpoly(g, ctx))
    return from_fmpq_mpoly(f.ring, q), from_fmpq_mpoly(f.ring, r)


def poly_factor_list(f) -> tuple:
    """``f.factor_list()`` over QQ: ``(coefficient, [(factor, multiplicity), ...])``, the
    factors primitive integer polynomials with positive leading coefficients (in an
    unspecified order).

    >>> from sympy.polys.rings import ring
    >>> R, x, y = ring("x y", sp.QQ)
    >>> c, fs = poly_factor_list((2*x - 4*y)*(x + y)**2/3)
    >>> c, sorted(fs, key=str)
    (2/3, [(x + y, 2), (x - 2*y, 1)])
    """
    if not _flint_ok(f):
        return f.factor_list()
    R = f.ring
    den, F = f.clear_denoms()
    c, facs = _to_flint(F.set_ring(R.clone(domain=sp.ZZ))).factor()
    coeff = R.domain.convert(int(c)) / R.domain.convert(den)
    return coeff, [(_from_flint(R, g), int(k)) for g, k in facs]


def expr_factors(e: sp.Expr) -> list[sp.Expr] | None:
    r"""The irreducible non-constant factors of a polynomial expression with rational
    coefficients (generators as ``sympy.Poly`` finds them: symbols and function atoms such
    as :math:`\cos t`) by :func:`poly_factor_list` (flint); ``None`` when ``e`` is not such a
    polynomial.

    >>> t, a = sp.symbols("t a")
    >>> sorted(expr_factors(sp.expand(3*(a*sp.cos(t)**2 - 1)*(sp.cos(t) + a)**2)), key=str)
    [a + cos(t), a*cos(t)**2 - 1]
    """
    try:
        P = sp.Poly(e)
    except (sp.PolynomialError, sp.polys.polyerrors.GeneratorsNeeded):
        return None
    if P.domain not in (sp.ZZ, sp.QQ):
        return None
    if P.is_ground:
        return []
    R = PolyRing(P.gens, sp.QQ)
    f = R.from_dict({k: sp.QQ.convert(v) for k, v in P.as_dict().items()})
    return [g.as_expr() for g, _ in poly_factor_list(f)[1]]
