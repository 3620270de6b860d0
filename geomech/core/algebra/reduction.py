r"""Normal forms modulo the relations of a :class:`~geomech.core.algebra.rings.RationalAlgebra`.

The ring :math:`\mathbb Q[x, \sin s, \cos s, r_1, \dots]` carries the relations

.. math:: \sin^2 s + \cos^2 s = 1, \qquad r_i^2 = b_i \quad (r_i = \sqrt{b_i}),

and a polynomial is *reduced* when it has degree < 2 in each square root :math:`r_i` and in
each :math:`\cos s` (or each :math:`\sin s`).  For the trigonometric pairs the relation is the
Gröbner basis of the ideal of relations of :math:`(\sin s, \cos s)` over :math:`\mathbb Q(s)`
(Cox, Little & O'Shea, *Ideals, Varieties, and Algorithms*, 2015, §2.6, Proposition 1:
the remainder on division by a Gröbner basis is unique), so the reduced form is
canonical on them; with square roots it is the remainder of the substitutions
:math:`r_i^2 \to b_i` (the radicands are reduced first).

:class:`RelationReducer` computes it by one pass over the terms with a cache of the normal
forms of monomials in the reduced generators, shared by the reducers of the same ring and
relations (:func:`shared_normal_forms`); from :data:`FLINT_TERMS` terms on, by python-flint's
division (the relations are a Gröbner basis: the same polynomial, in C);
:meth:`RelationReducer.reduce_passes` is the direct route (one substitution
:func:`sub_square` per relation), kept as its reference.

>>> import sympy as sp
>>> from geomech.core.algebra.rings import polynomial_ring
>>> s = sp.Symbol("s")
>>> R = polynomial_ring([sp.sin(s), sp.cos(s)])
>>> red = RelationReducer(R, roots=(), trig=((0, 1),))
>>> red.reduce(R.from_expr(sp.sin(s)**2 + sp.cos(s)**2))
1
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from operator import add

from sympy import QQ

from geomech.core.budget import poll
from geomech.core.flintpolys import from_fmpq_mpoly, qq_context, to_fmpq_mpoly

__all__ = ["RelationReducer", "sub_square", "FLINT_TERMS", "shared_normal_forms",
           "forget_normal_forms", "SHARED_TABLES", "SHARED_TABLE_SIZE"]

#: polynomials with at least this many terms are reduced by python-flint's division
#: (:meth:`RelationReducer.reduce`); smaller ones term by term
FLINT_TERMS = 200


#: at most this many tables of monomial normal forms are shared (least recently used dropped)
SHARED_TABLES = 128
#: a shared table stops growing at this many monomials (further ones are computed each time)
SHARED_TABLE_SIZE = 4096

_tables: OrderedDict = OrderedDict()
_tables_lock = threading.Lock()


def shared_normal_forms(key: tuple) -> dict:
    r"""The table of monomial normal forms shared by every reducer with the relations ``key``.

    ``key`` is ``(ring, roots, trig, prefer)`` with the radicands frozen
    (:meth:`RelationReducer.relation_key`): the normal form of a monomial depends on nothing
    else (Cox, Little & O'Shea 2015, §2.6, Proposition 1: the remainder is unique), so
    reducers of the same ring and relations -- one per :class:`RationalAlgebra`, hence one per
    call of :func:`~geomech.core.algebra.normal_form.compact` -- reuse each other's entries.
    At most :data:`SHARED_TABLES` tables are kept (least recently used dropped); the lookup is
    locked, the tables are plain dicts whose entries are computed deterministically (two
    threads computing one entry store equal values).

    >>> import sympy as sp
    >>> from geomech.core.algebra.rings import polynomial_ring
    >>> s = sp.Symbol("s")
    >>> R = polynomial_ring([sp.sin(s), sp.cos(s)])
    >>> key = RelationReducer(R, trig=((0, 1),)).relation_key("sin")
    >>> shared_normal_forms(key) is shared_normal_forms(key)
    True
    """
    with _tables_lock:
        table = _tables.get(key)
        if table is None:
            table = _tables[key] = {}
            if len(_tables) > SHARED_TABLES:
                _tables.popitem(last=False)
        else:
            _tables.move_to_end(key)
        return table


def forget_normal_forms() -> None:
    """Drop the shared tables of :func:`shared_normal_forms` (cold-cache measurements).

    >>> forget_normal_forms()
    """
    with _tables_lock:
        _tables.clear()


def sub_square(p, idx: int, rep, power=None):
    r"""``p`` with :math:`g^{2k} \to \text{rep}^k` for the generator number ``idx``.

    Writes :math:`p = \sum_k p_k\, g^{2k}` with :math:`\deg_g p_k < 2` and returns
    :math:`\sum_k p_k\,\text{rep}^k`.  ``power(idx, rep, k)`` may supply cached powers.

    >>> import sympy as sp
    >>> from geomech.core.algebra.rings import polynomial_ring
    >>> x, r = sp.symbols("x r")
    >>> R = polynomial_ring([r, x])
    >>> sub_square(R.from_expr(r**3 + x*r**2), 0, R.from_expr(x + 1)).as_expr()
    r*x + r + x**2 + x
    """
    groups: dict = {}
    for m, c in p.items():
        k = m[idx] // 2
        if k:
            m = m[:idx] + (m[idx] - 2 * k,) + m[idx + 1:]
        groups.setdefault(k, {})[m] = c
    if len(groups) == 1 and 0 in groups:
        return p
    R = p.ring
    out = R.zero
    for k, d in groups.items():
        part = R.from_dict(d)
        out += part * (power(idx, rep, k) if power else rep**k) if k else part
    return out


def _flint_sub_square(ctx, f, idx: int, rep):
    """:func:`sub_square` for ``fmpq_mpoly`` elements of ``ctx`` (the same polynomial: the
    groups :math:`p_k` by the exponent of the generator, times :math:`\text{rep}^k` in
    flint)."""
    groups: dict = {}
    for m, c in zip(f.monoms(), f.coeffs()):
        k = m[idx] // 2
        if k:
            m = m[:idx] + (m[idx] - 2 * k,) + m[idx + 1:]
        groups.setdefault(k, {})[m] = c
    if len(groups) <= 1 and 0 in groups or not groups:
        return f
    out = ctx.from_dict({})
    for k, d in groups.items():
        out += ctx.from_dict(d) * rep**k if k else ctx.from_dict(d)
    return out


class RelationReducer:
    r"""Reduction modulo :math:`r_i^2 = b_i` and :math:`\sin^2 s+\cos^2 s = 1` in ``ring``.

    Parameters
    ----------
    ring : PolyRing
        The ring of the algebra.
    roots : sequence of ``(index, b)``
        Square-root generators (by index) and their radicands (reduced ring elements).
    trig : sequence of ``(i_sin, i_cos)``
        Indices of :math:`\sin s, \cos s` for each base angle.

    Examples
    --------
    >>> import sympy as sp
    >>> from geomech.core.algebra.rings import polynomial_ring
    >>> r, x = sp.symbols("r x")
    >>> R = polynomial_ring([r, x])
    >>> red = RelationReducer(R, roots=((0, R.from_expr(x)),), trig=())
    >>> red.reduce(R.from_expr(r**3 - x*r)).as_expr()
    0
    """

    def __init__(self, ring, roots: Sequence = (), trig: Sequence = ()):
        self.ring = ring
        self.roots = list(roots)
        self.trig = list(trig)
        self._powers: dict = {}     # cached powers (power)
        self._rels: dict = {}       # relations as fmpq_mpoly (_divisors)
        self._nf: dict = {}         # prefer -> shared table (shared_normal_forms)

    def relation_key(self, prefer: str) -> tuple:
        """The key of the shared table of monomial normal forms (:func:`shared_normal_forms`):
        the ring, the roots with their radicands frozen, the trigonometric pairs, ``prefer``."""
        roots = tuple((idx, tuple(sorted(b.items()))) for idx, b in self.roots)
        return self.ring, roots, tuple(tuple(t) for t in self.trig), prefer

    def _table(self, prefer: str) -> dict:
        table = self._nf.get(prefer)
        if table is None:
            table = self._nf[prefer] = shared_normal_forms(self.relation_key(prefer))
        return table

    def _cached_nf(self, cache: dict, pos: tuple, key: tuple, prefer: str) -> list:
        """The terms of the normal form of the monomial ``key`` at ``pos``, from ``cache``
        (stored while the table has room, :data:`SHARED_TABLE_SIZE`)."""
        nf = cache.get(key)
        if nf is None:
            poll()
            nf = self._monomial_nf(pos, key, prefer)
            if len(cache) < SHARED_TABLE_SIZE:
                cache[key] = nf
        return nf

    def power(self, idx: int, rep, k: int):
        """``rep**k``, cached (the same relation is applied to many polynomials)."""
        key = (idx, rep, k)
        got = self._powers.get(key)
        if got is None:
            got = self._powers[key] = rep**k
        return got

    def positions(self, prefer: str = "sin") -> tuple:
        """Indices of the generators of degree < 2 in the normal form."""
        big = [(i_c if prefer == "sin" else i_s) for i_s, i_c in self.trig]
        return (*[idx for idx, _ in self.roots], *big)

    def reduce(self, p, prefer: str = "sin"):
        r"""Normal form: degree < 2 in each square root and in each ``cos``
        (``prefer="sin"``) or each ``sin`` (``prefer="cos"``).

        One pass over the terms: a monomial :math:`r\,m` with :math:`m` its part in the
        reduced generators has the normal form :math:`r\,NF(m)`, already reduced since
        :math:`r` is free of them; :math:`NF(m)` is computed once per exponent pattern
        (:meth:`reduce_passes`) and cached (:func:`shared_normal_forms`).  From
        :data:`FLINT_TERMS` terms on, python-flint's division (the same polynomial)."""
        if not p:
            return p
        pos = self.positions(prefer)
        if not any(m[i] > 1 for m in p.itermonoms() for i in pos):
            return p
        poll()
        if len(p) >= FLINT_TERMS and qq_context(self.ring.ngens) is not None \
                and self.ring.domain == QQ:
            return self._reduce_flint(p, prefer)
        cache = self._table(prefer)
        out: dict = {}
        for m, c in p.items():
            key = tuple(m[i] for i in pos)
            if all(e < 2 for e in key):
                out[m] = out[m] + c if m in out else c
                continue
            nf = self._cached_nf(cache, pos, key, prefer)
            base = list(m)
            for i in pos:
                base[i] = 0
            for m2, c2 in nf:
                mm = tuple(map(add, base, m2))
                out[mm] = out[mm] + c * c2 if mm in out else c * c2
        return self.ring.from_dict({m: c for m, c in out.items() if c})

    def _reduce_flint(self, p, prefer: str):
        r""":meth:`reduce` of a large ``p`` by python-flint's division
        (:meth:`reduce_division` in the lex context of :meth:`division_order`).

        The leading monomials :math:`r_i^2`, :math:`\cos^2 s` (or :math:`\sin^2 s`) of the
        relations are pairwise coprime, so the relations are a Gröbner basis (Buchberger's
        first criterion, Cox, Little & O'Shea 2015, §2.9, Proposition 4) and the remainder
        -- no term divisible by a leading monomial, i.e. degree < 2 in each reduced
        generator -- is unique: the same polynomial as the term-by-term pass."""
        order = self.division_order(prefer)
        perm = None if order == tuple(range(len(order))) else order
        f = to_fmpq_mpoly(p, qq_context(self.ring.ngens), order=perm)
        return from_fmpq_mpoly(self.ring, self.reduce_division(f, order, prefer), perm)

    def division_order(self, prefer: str = "sin") -> tuple:
        """The ring's generator indices in the order of a lex context where each relation's
        leading monomial is the square of its reduced generator: each ``cos`` (``prefer="sin"``,
        else each ``sin``) moved before its partner; the root generators come first already
        and their radicands are free of them (:meth:`reduce_division`)."""
        order = list(range(self.ring.ngens))
        for i_s, i_c in self.trig:
            big, small = (i_c, i_s) if prefer == "sin" else (i_s, i_c)
            a, b = order.index(big), order.index(small)
            if a > b:
                order[a], order[b] = order[b], order[a]
        return tuple(order)

    def reduce_division(self, f, order: tuple, prefer: str = "sin"):
        r""":meth:`reduce` of an ``fmpq_mpoly`` ``f`` by python-flint's division.

        The context's variable ``v < ring.ngens`` is the ring's generator ``order[v]``
        (:meth:`division_order`); further variables (e.g. a tag :math:`\tau` whose exponent
        numbers the unknowns of a linear form) are free of the relations.  Each relation
        :math:`g^2 - \text{rep}` is monic of degree 2 in :math:`g` and :math:`g` is the
        greatest of its variables in this lex order, so the remainder of the division is the
        unique :math:`r \equiv f` with :math:`\deg_g r < 2`: exactly :func:`sub_square`,
        applied in the order of :meth:`reduce_passes` (roots first), hence :meth:`reduce`.
        The reduction is linear over :math:`\mathbb Q[\tau]`:
        :math:`NF(\sum_j \tau^j n_j) = \sum_j \tau^j NF(n_j)`.

        >>> import sympy as sp
        >>> from geomech.core.algebra.rings import polynomial_ring
        >>> from geomech.core.flintpolys import qq_context
        >>> s = sp.Symbol("s")
        >>> R = polynomial_ring([sp.sin(s), sp.cos(s)])
        >>> red = RelationReducer(R, roots=(), trig=((0, 1),))
        >>> order = red.division_order()           # cos first
        >>> C, S, t = qq_context(3).gens()
        >>> red.reduce_division(C**3*t + S**2*t**2, order) == C*(1 - S**2)*t + S**2*t**2
        True
        """
        if f.is_zero():
            return f
        poll()
        for rel in self._divisors(f.context(), order, prefer):
            f = divmod(f, rel)[1]
        return f

    def _divisors(self, ctx, order: tuple, prefer: str) -> list:
        """The relations as ``fmpq_mpoly`` of ``ctx`` (variables as in
        :meth:`reduce_division`), roots first; cached per context, order and ``prefer``."""
        key = (ctx, order, prefer)
        got = self._rels.get(key)
        if got is not None:
            return got
        n, nv = self.ring.ngens, ctx.nvars()
        where = {g: v for v, g in enumerate(order)}
        pad = (0,) * (nv - n)

        def conv(p):
            return ctx.from_dict({(*(m[order[v]] for v in range(n)), *pad): c
                                  for m, c in p.items()})
        gens = ctx.gens()
        rels = [gens[where[idx]] ** 2 - conv(b) for idx, b in self.roots]
        for i_s, i_c in self.trig:
            big, small = (i_c, i_s) if prefer == "sin" else (i_s, i_c)
            rels.append(gens[where[big]] ** 2 + gens[where[small]] ** 2 - 1)
        self._rels[key] = rels
        return rels

    def _monomial_nf(self, pos: tuple, key: tuple, prefer: str) -> list:
        """Terms of the normal form of the monomial with exponents ``key`` at ``pos``."""
        mono = [0] * self.ring.ngens
        for i, e in zip(pos, key):
            mono[i] = e
        ctx = qq_context(self.ring.ngens) if self.ring.domain == QQ else None
        if ctx is None:
            return list(self.reduce_passes(self.ring.from_dict({tuple(mono): 1}),
                                           prefer).items())
        f = ctx.from_dict({tuple(mono): 1})
        for idx, b in self.roots:
            f = _flint_sub_square(ctx, f, idx, ctx.from_dict(dict(b.items())))
        for i_s, i_c in self.trig:
            big, small = (i_c, i_s) if prefer == "sin" else (i_s, i_c)
            f = _flint_sub_square(ctx, f, big, 1 - ctx.gens()[small] ** 2)
        return list(from_fmpq_mpoly(self.ring, f).items())

    def reduce_passes(self, p, prefer: str = "sin"):
        """:meth:`reduce` by one :func:`sub_square` pass per relation (square roots first)."""
        if not p:
            return p
        for idx, b in self.roots:
            p = sub_square(p, idx, b, self.power)
        G = self.ring.gens
        for i_s, i_c in self.trig:
            big, small = (i_c, i_s) if prefer == "sin" else (i_s, i_c)
            p = sub_square(p, big, 1 - G[small] ** 2, self.power)
        return p
