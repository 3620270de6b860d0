r"""Sparse polynomials back to sympy expressions: the canonical expanded expression that
``PolyElement.as_expr`` builds, assembled with cached monomials and coefficients and without
re-sorting arguments that are already in sympy's canonical order
(:func:`canonical_key`).  A test checks equality with ``as_expr`` on random polynomials.

>>> import sympy as sp
>>> from sympy.polys.rings import ring
>>> R, x, y = ring("x y", sp.QQ)
>>> ring_to_expr(x**2 - y/3) == (x**2 - y/3).as_expr()
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property, lru_cache
from itertools import compress

import sympy as sp
from sympy.polys.rings import PolyRing

__all__ = ["ExprBuilder", "expr_builder", "ring_to_expr", "canonical_key", "CACHE_MAX"]


class ExprBuilder:
    r"""Canonical expanded sympy expressions of the elements of one polynomial ring.

    A term :math:`c\,g_1^{e_1}\cdots g_k^{e_k}` becomes ``Mul(c, f_1, ..., f_k)`` with the
    factors in sympy's canonical order and the polynomial ``Add`` of its terms in that order,
    both built by ``_from_args`` without sympy's flattening (the terms are distinct
    monomials, so there is nothing to collect).  The order is the one of
    :meth:`sympy.core.basic.Basic.compare`, read from sort keys (:func:`canonical_key`)
    computed once per generator power, coefficient and monomial and cached here.  The result
    is identical (``==``, ``srepr``, ``str``) to ``p.as_expr()``.

    Only generators whose powers sympy keeps as ``Pow(g, e)`` and whose products it does not
    combine take this route (symbols, ``sin``, ``cos``, ``tan``, undefined functions) over
    ``QQ``/``ZZ``; other rings are converted by ``p.as_expr()``.

    Examples
    --------
    >>> import sympy as sp
    >>> from sympy.polys.rings import ring
    >>> R, x, y = ring("x y", sp.QQ)
    >>> p = 3*x**2*y - y/2 + 1
    >>> ExprBuilder(R.symbols, R.domain)(p) == p.as_expr()
    True
    """

    def __init__(self, gens: Sequence[sp.Expr], domain):
        self.gens = tuple(gens)
        self.domain = domain
        self.fast = (domain in (sp.QQ, sp.ZZ) and all(_power_stable(g) for g in self.gens)
                     and _keys_available(self.gens))
        self._coeff_key = _coeff_key if domain == sp.QQ else _identity
        self._to_sympy = domain.to_sympy
        self._factors: list[dict] = [{} for _ in self.gens]   # exponent -> factor, per generator
        self._positions = range(len(self.gens))
        self._monos: dict = {}
        self._products: dict = {}
        self._numbers: dict = {}

    def __call__(self, p) -> sp.Expr:
        if not self.fast:
            return self._flatten(p)
        monos, numbers = self._monos, self._numbers
        if len(monos) > CACHE_MAX or len(numbers) > CACHE_MAX:
            monos.clear()
            numbers.clear()
            self._products.clear()
        ckey, one = self._coeff_key, sp.S.One
        new, Mul, assumptions = object.__new__, sp.Mul, sp.Mul.default_assumptions
        terms: list = []
        append = terms.append
        for m, c in p.items():
            mono = monos.get(m)
            if mono is None:
                mono = monos[m] = self._monomial(m)
            factors, keys = mono
            ck = ckey(c)
            num = numbers.get(ck)
            if num is None:
                e = self._to_sympy(c)
                num = numbers[ck] = (canonical_key(e), e)
            if not factors:
                append(num)
            elif num[1] is not one:
                obj = new(Mul)      # Mul._from_args: canonical commutative arguments
                obj._assumptions, obj._mhash = assumptions, None
                obj._args, obj.is_commutative = (num[1], *factors), True
                append(((_MUL_KEY, len(factors) + 1, (num[0], *keys)), obj))
            elif len(factors) == 1:
                append((keys[0], factors[0]))
            else:
                append(self._alone(m, mono))
        return _assemble(terms)

    def _alone(self, m: tuple, mono: tuple) -> tuple:
        """``(key, expr)`` of the monomial ``m`` with coefficient 1 (a shared ``Mul``)."""
        got = self._products.get(m)
        if got is None:
            factors, keys = mono
            got = self._products[m] = (_MUL_KEY, len(factors), keys), _mul(factors)
        return got

    def _monomial(self, m: tuple) -> tuple:
        """``(factors, factor keys)`` of the monomial ``m`` in sympy's canonical order."""
        factors, factor = self._factors, self._factor
        fs = [factors[k].get(m[k]) or factor(k, m[k])
              for k in compress(self._positions, m)]       # the non-zero exponents
        if len(fs) < 2:
            return ((fs[0][2],), (fs[0][1],)) if fs else ((), ())
        fs.sort()      # by rank (an int, first): distinct generators, never a tie
        _, keys, exprs = zip(*fs)
        return exprs, keys

    def _factor(self, k: int, e: int) -> tuple:
        """``(rank, key, g_k**e)``; the ranks order the factors of a monomial as
        :func:`canonical_key` does (:attr:`_ranks`)."""
        g = self.gens[k]
        expr = g if e == 1 else _power(g, e)
        plain, power = self._ranks[k]
        f = self._factors[k][e] = (plain if e == 1 else power, canonical_key(expr), expr)
        return f

    @cached_property
    def _ranks(self) -> list:
        r"""For each generator :math:`g`, the positions of :math:`g` and :math:`g^2` among
        the canonical keys of all :math:`g_k, g_k^2`.  Two factors :math:`g^e, h^f` of a
        monomial (:math:`g \ne h`) compare as these do: by class when one is a power and the
        other not (no generator is a power), by base when both are powers, by themselves
        when neither is."""
        keys = []
        for k, g in enumerate(self.gens):
            keys += [(canonical_key(g), k, 0), (canonical_key(_power(g, 2)), k, 1)]
        ranks = [[0, 0] for _ in self.gens]
        for pos, (_, k, power) in enumerate(sorted(keys)):
            ranks[k][power] = pos
        return ranks

    def _flatten(self, p) -> sp.Expr:
        """Conversion through sympy's own constructors."""
        to_sympy = self._to_sympy
        gens = self.gens
        return sp.Add(*[sp.Mul(to_sympy(c), *[gens[k] ** e for k, e in enumerate(m) if e])
                        for m, c in p.items()])


@lru_cache(maxsize=64)
def expr_builder(ring: PolyRing) -> ExprBuilder:
    """The (cached) :class:`ExprBuilder` of a sympy ``PolyRing``."""
    return ExprBuilder(ring.symbols, ring.domain)


def ring_to_expr(p) -> sp.Expr:
    """``p.as_expr()`` for an element of a sympy ``PolyRing``, built by :class:`ExprBuilder`.

    >>> import sympy as sp
    >>> from sympy.polys.rings import ring
    >>> R, x, y = ring("x y", sp.QQ)
    >>> ring_to_expr(x*y - 2*y**3) == (x*y - 2*y**3).as_expr()
    True
    """
    return expr_builder(p.ring)(p)


CACHE_MAX = 200_000

if type(sp.QQ.one).__name__ == "fmpq":  # python-flint ground types: hash(fmpq) is slow
    def _coeff_key(c) -> object:
        return c.numer(), c.denom()
else:
    def _coeff_key(c) -> object:
        return c


def _identity(c) -> object:
    return c


_new = sp.Basic.__new__


def _mul(args: tuple) -> sp.Mul:
    """``Mul._from_args(args, True)`` (canonical commutative arguments, at least two)."""
    obj = _new(sp.Mul, *args)
    obj.is_commutative = True
    return obj


def _power(g: sp.Expr, e: int) -> sp.Pow:
    """``g**e`` for a power-stable generator (:func:`_power_stable`) and an integer
    ``e >= 2``: ``Pow(g, e)`` unevaluated, which is what the evaluation gives for these
    generators (none has an ``_eval_power`` rule), without its assumption queries."""
    return sp.Pow(g, sp.Integer(e), evaluate=False)


def _power_stable(g: sp.Expr) -> bool:
    """Whether sympy keeps ``g**e`` as ``Pow(g, e)`` and never merges products of powers of
    ``g`` with another generator (``exp``, ``Abs``, powers and numbers are excluded)."""
    from sympy.core.function import AppliedUndef

    return (g.is_Symbol and g.is_commutative) or isinstance(g, (sp.sin, sp.cos, sp.tan,
                                                                 AppliedUndef))


def _keys_available(gens: tuple) -> bool:
    """Whether every generator has a canonical sort key."""
    try:
        for g in gens:
            canonical_key(g)
    except TypeError:
        return False
    return True


def _first(pair: tuple):
    return pair[0]


def _class_key(cls: type) -> tuple:
    """Sort key of a class as :func:`sympy.core.basic._cmp_name` orders them."""
    key = _CLASS_KEYS.get(cls)
    if key is None:
        from sympy.core.basic import ordering_of_classes

        name = cls.__name__
        try:
            key = (ordering_of_classes.index(name), "")
        except ValueError:
            key = (len(ordering_of_classes) + 1, name)
        _CLASS_KEYS[cls] = key
    return key


_CLASS_KEYS: dict = {}
_MUL_KEY = _class_key(sp.Mul)


def canonical_key(expr: sp.Basic) -> tuple:
    r"""A sort key reproducing :meth:`sympy.core.basic.Basic.compare`.

    ``compare`` orders by class (:data:`sympy.core.basic.ordering_of_classes`, then class
    name), then by the length of ``_hashable_content()``, then item by item; the key is the
    tuple ``(class key, length, item keys)``, so ``canonical_key(a) < canonical_key(b)`` iff
    ``a.compare(b) < 0``.  This is the order of the arguments of ``Add`` and ``Mul``.

    Raises ``TypeError`` for contents ``compare`` treats specially (sets).

    Examples
    --------
    >>> import sympy as sp
    >>> x, y = sp.symbols("x y")
    >>> terms = [y**2, 3*x*y, x, sp.sin(x)]
    >>> [str(t) for t in sorted(terms, key=canonical_key)] == [
    ...     str(t) for t in sp.Add(*terms).args]
    True
    """
    items = expr._hashable_content()
    out = []
    for item in items:
        if isinstance(item, sp.Basic):
            out.append(canonical_key(item))
        elif isinstance(item, (frozenset, set, dict)):
            raise TypeError(f"no canonical sort key for {type(item).__name__} contents")
        else:
            out.append(item)
    return _class_key(type(expr)), len(items), tuple(out)


def _assemble(terms: list) -> sp.Expr:
    """``Add`` of ``(key, expr)`` terms: the number first, the rest in canonical order."""
    if not terms:
        return sp.S.Zero
    if len(terms) == 1:
        return terms[0][1]
    terms.sort(key=_first)  # numbers sort before every symbol, power, product, function
    return sp.Add._from_args([t[1] for t in terms], True)
