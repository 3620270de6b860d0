r"""``sympy.cancel`` of a sum of fractions without sympy's expression machinery.

``sympy.cancel(e)`` reads ``e`` as a quotient of polynomials in its *generators* -- symbols,
function atoms such as :math:`\sin x` or :math:`f(x, y)`, and :math:`b^{1/q}` for a power
:math:`b^{p/q}` -- and divides numerator and denominator by their gcd.  Without radicals
its result depends only on the element of the free field :math:`\mathbb Q(g_1,\dots,g_n)`
and on the generators (the reduced quotient is unique up to a unit, fixed by sympy's
normalisation), provided its pre-processing (``signsimp``, ``factor_terms``, ``expand``)
leaves every atom alone.  :func:`free_cancel` builds the quotient in flint's
``fmpq_mpoly`` directly from the expression tree (one pass; equal denominators add their
numerators, others are combined through their gcd), cancels it by flint's gcd and writes it
in the form ``sympy.cancel`` returns (:func:`~geomech.core.algebra.free_calculus.
cancel_form`).  It declines (``None``) on an atom that is not a symbol, a rational number,
``sin``/``cos``/``tan``/``cot`` or an undefined function (of anything that sympy's
pre-processing leaves unchanged), or a rational power of such a base.

With radicals sympy's automatic evaluation uses :math:`(b^{1/2})^2 = b` at places that depend
on how the expression is written, so its form is not a function of the field element; here
each :math:`g = b^{1/q}` (``b`` expanded, not itself holding a radical) is a generator and
numerator and denominator are reduced modulo :math:`g^q = b` before the gcd: a reduced
quotient equal to ``e`` as a function, with every radical of degree below its index, which
is its own normal form (normalising it again changes nothing).

>>> import sympy as sp
>>> x, y = sp.symbols("x y")
>>> e = x/(x + y) + y/(x + y) + sp.sin(x)/(x - 1)
>>> free_cancel(e) == sp.cancel(e)
True
>>> r = sp.sqrt(x**2 + 1)
>>> free_cancel(r/(x + 1) + r**3/(x + 1))
(x**2*sqrt(x**2 + 1) + 2*sqrt(x**2 + 1))/(x + 1)
"""

from __future__ import annotations

import random
from functools import lru_cache

import sympy as sp
from sympy.core.function import AppliedUndef

from geomech.core.flintpolys import from_fmpq_mpoly, poly_cancel, qq_context

__all__ = ["free_cancel", "outside_trig_ring", "numerator_certified_nonzero"]

#: function atoms that sympy's polynomial code keeps as generators with stable powers
_FUNCTIONS = (sp.sin, sp.cos, sp.tan, sp.cot)


class _Decline(Exception):
    """The expression is outside the class where the result is sympy's."""


@lru_cache(maxsize=4096)
def _stable_atom(a: sp.Expr) -> bool:
    """Whether sympy's pre-processing in ``cancel`` (``signsimp``, ``factor_terms`` with
    radicals, ``expand``) leaves the atom ``a`` unchanged."""
    from sympy.simplify.simplify import signsimp

    if not a.free_symbols:
        return False
    try:
        if a.expand() != a or signsimp(a) != a or sp.factor_terms(a, radical=True) != a:
            return False
        return not a.is_Pow or a.as_content_primitive(radical=True) == (1, a)
    except Exception:   # noqa: BLE001 - any failure: decline, sympy decides
        return False


def _generator(a: sp.Expr) -> tuple[sp.Expr, int, int] | None:
    """``(generator, exponent, q)`` of a non-polynomial atom as sympy decomposes it
    (:math:`b^{p/q} = (b^{1/q})^p`, the base expanded; ``q = 0`` for an ordinary
    generator), or ``None``."""
    if a.is_Symbol:
        return (a, 1, 0) if a.is_commutative else None
    if isinstance(a, _FUNCTIONS) or isinstance(a, AppliedUndef):
        return (a, 1, 0) if _stable_atom(a) else None
    if a.is_Pow and a.exp.is_Rational and not a.exp.is_Integer:
        g = _radical(a.base, int(a.exp.q))
        return None if g is None else (g, int(a.exp.p), int(a.exp.q))
    return None


@lru_cache(maxsize=4096)
def _radical(b: sp.Expr, q: int) -> sp.Expr | None:
    r"""The generator :math:`b^{1/q}` with ``b`` expanded, or ``None`` when sympy would
    rewrite it further (a numerical content, a sign)."""
    if not (b.is_Symbol or b.is_Add or b.is_Mul or isinstance(b, _FUNCTIONS)):
        return None
    if not _stable_atom(b):
        b = b.expand()
        if not (b.is_Add and _stable_atom(b)):
            return None
    g = sp.Pow(b, sp.Rational(1, q))
    return g if g.is_Pow and g.base == b and _stable_atom(g) else None


def _collect(e: sp.Expr, gens: dict, radicals: dict) -> None:
    """Record the generators of ``e`` (``gens``: generator -> index; ``radicals``:
    generator -> ``(base, q)``); raises :class:`_Decline`."""
    stack, seen = [e], set()
    while stack:
        a = stack.pop()
        if a in seen:
            continue
        seen.add(a)
        if a.is_Rational:
            continue
        if a.is_Add or a.is_Mul:
            stack.extend(a.args)
            continue
        if a.is_Pow and a.exp.is_Integer:
            stack.append(a.base)
            continue
        g = _generator(a)
        if g is None:
            raise _Decline
        gens.setdefault(g[0], len(gens))
        if g[2]:
            base = g[0].base
            if radicals.get(g[0], (base, g[2]))[1] != g[2] or \
                    any(b == base and r != g[0] for r, (b, _) in radicals.items()):
                raise _Decline
            radicals[g[0]] = (base, g[2])
            if any(not p.exp.is_Integer for p in base.atoms(sp.Pow)):
                raise _Decline          # nested radicals
            stack.append(base)


class _Builder:
    """Numerator and denominator of an expression in flint's ``fmpq_mpoly`` (context
    ``ctx``, generator ``i`` the ``i``-th of ``gens``)."""

    def __init__(self, gens: dict, radicals: dict, ctx):
        self.ctx, self.gens = ctx, gens
        self.n = len(gens)
        self.one = ctx.from_dict({(0,) * self.n: 1})
        self.memo: dict = {}

    def gen(self, i: int, k: int = 1):
        m = [0] * self.n
        m[i] = k
        return self.ctx.from_dict({tuple(m): 1})

    def frac(self, e: sp.Expr) -> tuple:
        got = self.memo.get(e)
        if got is None:
            got = self.memo[e] = self._frac(e)
        return got

    def _frac(self, e: sp.Expr) -> tuple:
        one = self.one
        if e.is_Rational:
            return self.ctx.from_dict({(0,) * self.n: int(e.p)}) / int(e.q), one
        if e.is_Add:
            return self._sum(e.args)
        if e.is_Mul:
            n, d = one, one
            for a in e.args:
                an, ad = self.frac(a)
                n, d = n * an, d * ad
            return n, d
        if e.is_Pow and e.exp.is_Integer:
            bn, bd = self.frac(e.base)
            k = int(e.exp)
            if k < 0:
                if bn == 0:
                    raise _Decline
                bn, bd, k = bd, bn, -k
            return bn ** k, bd ** k
        g, k, _q = _generator(e)
        p = self.gen(self.gens[g], abs(k))
        return (p, one) if k > 0 else (one, p)

    def _sum(self, terms) -> tuple:
        n, d = self.frac(terms[0])
        for t in terms[1:]:
            tn, td = self.frac(t)
            if td == d:
                n = n + tn
                continue
            h = d.gcd(td)
            td_h = td / h if h != 1 else td
            n, d = n * td_h + tn * (d / h if h != 1 else d), d * td_h
        return n, d


def _apart_from_bases(p, gens: dict, radicals: dict) -> bool:
    r"""Whether no monomial of ``p`` holds a radical generator next to its base (sympy
    would write :math:`x\,x^{1/2}` as :math:`x^{3/2}`)."""
    pairs = [(gens[g], gens[base]) for g, (base, _q) in radicals.items() if base in gens]
    return not any(m[i] and m[j] for m in p.monoms() for i, j in pairs)


def _reduce_radicals(p, b: _Builder, radicals: dict):
    r"""``p`` modulo :math:`g^q = b` for each radical generator :math:`g = b^{1/q}`: every
    power :math:`g^k`, :math:`k \ge q`, replaced by :math:`g^{k \bmod q}\,b^{\lfloor k/q
    \rfloor}` (the same function)."""
    for g, (base, q) in radicals.items():
        i = b.gens[g]
        if all(m[i] < q for m in p.monoms()):
            continue
        bn, bd = b.frac(base)
        if bd != b.one:
            raise _Decline
        parts: dict = {}
        for m, c in zip(p.monoms(), p.coeffs()):
            k, r = divmod(int(m[i]), q)
            m2 = list(m)
            m2[i] = r
            parts.setdefault(k, {})[tuple(m2)] = c
        p = sum((b.ctx.from_dict(t) * bn ** k for k, t in parts.items()), b.ctx.from_dict({}))
    return p


@lru_cache(maxsize=16)
def _reduced(e: sp.Expr) -> tuple | None:
    """``(gens, radicals, p, q)``: the quotient of ``e`` in lowest terms in flint's
    polynomials over its generators, every radical of degree below its index; ``None``
    outside the class of the module docstring."""
    gens: dict = {}
    radicals: dict = {}
    try:
        _collect(e, gens, radicals)
    except _Decline:
        return None
    ctx = qq_context(len(gens)) if gens else None
    if ctx is None:
        return None
    b = _Builder(gens, radicals, ctx)
    try:
        n, d = b.frac(e)
    except (_Decline, ZeroDivisionError):
        return None
    if radicals:
        try:
            n, d = _reduce_radicals(n, b, radicals), _reduce_radicals(d, b, radicals)
        except _Decline:
            return None
    if d == 0 or not (_apart_from_bases(n, gens, radicals) and
                      _apart_from_bases(d, gens, radicals)):
        return None
    h = n.gcd(d) if n != 0 else d
    return gens, radicals, n / h, d / h


def free_cancel(e: sp.Expr) -> sp.Expr | None:
    r"""``sympy.cancel(e)`` computed in flint's polynomials (module docstring; with radicals
    the reduced quotient modulo :math:`g^q = b`), or ``None`` outside that class.

    Numerator and denominator of ``e`` are built from its tree over :math:`\mathbb Q`
    (sums over a common denominator: equal denominators add their numerators, others are
    combined through their gcd), divided by their gcd and written by
    :func:`~geomech.core.algebra.free_calculus.cancel_form` (integer coprime coefficients,
    the leading coefficient of the denominator positive): the reduced quotient in the free
    field of the generators is unique, so this is ``sympy.cancel``'s result.  With radicals
    (:math:`b^{1/q}` a free generator, its base expanded) the result is that reduced
    quotient, equal to ``e`` as a function.

    >>> x, y = sp.symbols("x y")
    >>> free_cancel((x**2 - y**2)/(x - y) + 1/x)
    (x**2 + x*y + 1)/x
    """
    got = _reduced(e)
    if got is None:
        return None
    gens, _radicals, n, d = got
    if n == 0:
        return sp.S.Zero
    # imported at call time: core.algebra's package imports the zero policy
    from geomech.core.algebra.free_calculus import cancel_form
    from geomech.core.algebra.rings import polynomial_ring

    R = polynomial_ring(list(gens))
    return cancel_form(*poly_cancel(from_fmpq_mpoly(R, n), from_fmpq_mpoly(R, d)))


def outside_trig_ring(e: sp.Expr) -> bool:
    r"""Whether the numerator of ``e`` over any common denominator certainly holds a
    generator outside the trigonometric polynomial ring (symbols, ``sin``/``cos`` of
    symbols): a function atom such as :math:`\cot x` or :math:`f(x)` that its numerator in
    lowest terms depends on and that no radicand contains.  A numerator :math:`n` with
    :math:`n/d = N/D` (:math:`N/D` in lowest terms) is :math:`N\,d/D`, divisible by every
    such dependence of :math:`N` (unique factorisation; the radical relations
    :math:`(b^{1/q})^q = b` do not involve the atom).  ``False`` means "not shown".

    >>> x = sp.Symbol("x")
    >>> outside_trig_ring(sp.cot(x)/(x + 1) + 1), outside_trig_ring(sp.sin(x)/(x + 1) + 1)
    (True, False)
    """
    got = _reduced(e)
    if got is None:
        return False
    gens, radicals, n, _d = got
    inside = set().union(*(b.free_symbols | b.atoms(sp.Function) for b, _ in radicals.values()))
    used = {i for m in n.monoms() for i, k in enumerate(m) if k}
    for g, i in gens.items():
        if i not in used or g in radicals or g.is_Symbol or g in inside:
            continue
        if isinstance(g, (sp.sin, sp.cos)) and g.args[0].is_Symbol:
            continue
        return True
    return False


def numerator_certified_nonzero(e: sp.Expr) -> bool:
    r"""Whether ``e`` is proved not identically zero by its numerator :math:`N` in lowest
    terms (radicals reduced, :func:`free_cancel`): an interval enclosure (Moore, Kearfott &
    Cloud 2009) of :math:`N` at one rational point, the generators at their values there
    (radicands positive), that excludes 0.  :math:`N/D` equals ``e`` as a function, so any
    numerator :math:`n` of ``e`` over a common denominator :math:`d` satisfies
    :math:`nD = Nd`, and :math:`N \ne 0` near the point makes :math:`n \not\equiv 0`.
    ``False`` means "not shown".

    >>> x = sp.Symbol("x")
    >>> numerator_certified_nonzero(1/x + sp.sqrt(x + 1)), numerator_certified_nonzero(1/x - 1/x)
    (True, False)
    """
    from geomech.core.zero.evaluation import interval_value

    got = _reduced(e)
    if got is None or got[2] == 0:
        return False
    gens, _radicals, n, _d = got
    rng = random.Random(len(gens))
    syms = sorted(set().union(*(g.free_symbols for g in gens)), key=sp.default_sort_key)
    pt = {s: sp.Rational(rng.randint(1, 97), rng.randint(7, 31)) for s in syms}
    vals = [interval_value(g, pt) for g in gens]
    if not vals or any(v is None for v in vals):
        return False
    ctx = vals[0].ctx
    total = ctx.mpf(0)
    powers: dict = {}
    for m, c in zip(n.monoms(), n.coeffs()):
        term = ctx.mpf(int(c.p)) / int(c.q)
        for i, k in enumerate(m):
            if k:
                v = powers.get((i, k))
                if v is None:
                    v = powers[(i, k)] = vals[i] ** int(k)
                term = term * v
        total = total + term
    return 0 not in total
