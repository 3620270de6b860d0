r"""Sparse-polynomial kernel: brackets in a differential polynomial ring.

Components that are polynomials with rational coefficients in the symbols and in
``sin(s)``, ``cos(s)`` of symbols ``s`` are represented as elements of a sparse polynomial
ring :math:`\mathbb{Q}[x_1,\dots,x_n,p_1,\dots,\sin s,\cos s,\dots]` (sympy's
:mod:`sympy.polys.rings`).  Differentiation along a coordinate uses the chain rule over the
trigonometric generators,

.. math:: \frac{d P}{d s} = \frac{\partial P}{\partial s}
          + \frac{\partial P}{\partial \sin s}\cos s - \frac{\partial P}{\partial \cos s}\sin s,

so brackets never leave the ring and no sympy expression is built until one is asked for.
The ring elements convert to the same canonical expanded expressions the sympy kernel
produces (a test checks this), so the choice of kernel never changes a result.

Examples
--------
>>> import sympy as sp
>>> x, phi = sp.symbols("x phi")
>>> R = DiffRing.for_expressions([x*sp.cos(phi)], (x, phi))
>>> p = R.to_ring(x*sp.cos(phi))
>>> R.to_expr(R.diff(p, phi))
-x*sin(phi)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property, lru_cache
from math import comb
from operator import itemgetter
from struct import Struct

import sympy as sp
from sympy.polys.rings import PolyRing

from geomech.core.algebra.generators import RingGenerators
from geomech.core.algebra.reduction import forget_normal_forms
from geomech.core.algebra.rings import forget_rings, polynomial_ring
from geomech.core.exprbuild import ExprBuilder, expr_builder
from geomech.core.flintpolys import from_fmpq_mpoly, qq_context, to_fmpq_mpoly
from geomech.core.parse import as_expr

__all__ = ["DiffRing", "supported", "angle_form", "independent_angles", "clear_caches"]


def angle_form(arg: sp.Expr) -> dict | None:
    """``{symbol: k}`` when ``arg = sum(k*symbol)`` with integer ``k`` (no constant term),
    else ``None``.

    >>> a, b = sp.symbols("a b")
    >>> angle_form(a - 2*b), angle_form(a/2), angle_form(a + 1)
    ({a: 1, b: -2}, None, None)
    """
    if arg.is_Symbol:
        return {arg: 1}
    out: dict = {}
    for t in sp.Add.make_args(arg):
        k, g = t.as_coeff_Mul()
        if not (k.is_Integer and g.is_Symbol and g.is_commutative) or g in out:
            return None
        out[g] = int(k)
    return out


def independent_angles(angles) -> bool:
    r"""Whether the angles (integer combinations of symbols) are linearly independent over
    :math:`\mathbb Q`: then :math:`\sin, \cos` of them satisfy no relation but
    :math:`\sin^2+\cos^2=1` (their exponentials are algebraically independent, Ax 1971).

    >>> a, b = sp.symbols("a b")
    >>> independent_angles([a - b, b]), independent_angles([a - b, a, b])
    (True, False)
    """
    from fractions import Fraction

    rows = []
    for L in angles:
        form = angle_form(L)
        if form is None:
            return False
        rows.append(form)
    syms = sorted(set().union(*rows), key=sp.default_sort_key) if rows else []
    ech: list[tuple[int, list]] = []
    for form in rows:
        v = [Fraction(form.get(x, 0)) for x in syms]
        for piv, row in ech:
            if v[piv]:
                f = v[piv] / row[piv]
                v = [a - f * b for a, b in zip(v, row)]
        piv = next((i for i, a in enumerate(v) if a), None)
        if piv is None:
            return False
        ech.append((piv, v))
    return True


def _atoms_ok(expr: sp.Expr, angles: set, symbols: set, composite: bool = False) -> bool:
    """Collect generators of ``expr``; ``False`` if it is not a polynomial in supported atoms
    (``sin``/``cos`` of symbols, or with ``composite`` of integer combinations of symbols)."""
    stack = [expr]
    while stack:
        e = stack.pop()
        if e.is_Symbol:
            if not e.is_commutative:
                return False
            symbols.add(e)
        elif e.is_Number:
            if not e.is_Rational:
                return False
        elif e.is_Add or e.is_Mul:
            stack.extend(e.args)
        elif e.is_Pow:
            if not (e.exp.is_Integer and e.exp >= 0):
                return False
            stack.append(e.base)
        elif isinstance(e, (sp.sin, sp.cos)) and e.args[0].is_Symbol:
            angles.add(e.args[0])
        elif composite and isinstance(e, (sp.sin, sp.cos)) and angle_form(e.args[0]):
            angles.add(e.args[0])
        else:
            return False
    return True


def supported(exprs: Sequence[sp.Expr], composite: bool = False) -> tuple[set, set] | None:
    """``(symbols, angles)`` if every expression fits the ring, else ``None``.

    With ``composite`` the angles may be integer combinations of symbols
    (``sin(theta0 - theta1)`` is a generator, not expanded), provided all the angles are
    linearly independent (:func:`independent_angles`)."""
    symbols: set = set()
    angles: set = set()
    for e in exprs:
        if not _atoms_ok(as_expr(e), angles, symbols, composite):
            return None
    if composite and any(not a.is_Symbol for a in angles) and not independent_angles(angles):
        return None
    return symbols, angles


_BITS = 32           # bits per packed exponent (a C ``uint32``: packing is one ``struct`` call)
_LIMIT = 1 << (_BITS - 1)  # exponents must stay below this (products: below 2**_BITS)
_MASK = (1 << _BITS) - 1


#: the ring of a field or expression without generators (constants)
_CONSTANTS = PolyRing((), sp.QQ)


class DiffRing:
    """A polynomial ring over QQ closed under the coordinate derivations: the polynomial
    level of the differential rings.  Its generators (coordinates, other symbols, ``sin`` and
    ``cos`` of angles) and their derivation are described by
    :class:`~geomech.core.algebra.generators.RingGenerators`, shared with the fraction level
    (:class:`~geomech.core.algebra.rings.RationalAlgebra`); the ring itself is the cached
    :func:`~geomech.core.algebra.rings.polynomial_ring` of the generators."""

    def __init__(self, coords: tuple, symbols: frozenset, angles: frozenset):
        trig = []
        for s in sorted(angles, key=sp.default_sort_key):
            trig += [sp.sin(s), sp.cos(s)]
        others = sorted((set(symbols) | {a for a in angles if a.is_Symbol}) - set(coords),
                        key=sp.default_sort_key)
        self.coords = tuple(coords)
        self.gens = (*self.coords, *others, *trig)
        self.ring = polynomial_ring(self.gens) if self.gens else _CONSTANTS
        self.generators = RingGenerators(self.gens)
        self._index = self.generators.index
        self._struct = Struct(f"<{len(self.gens)}I")   # packed monomial <-> exponent tuple
        self._placements: dict = {}        # smaller ring -> itemgetter (lift)
        self._builder = ExprBuilder(self.gens, self.ring.domain)   # ring -> sympy
        self._shifts = tuple(_BITS * k for k in range(len(self.gens)))
        self._has_trig = bool(angles)
        # for each symbol, the chain-rule terms (index of sin L, index of cos L, dL/dsymbol)
        self._chain_idx = self.generators.chains

    @classmethod
    def for_expressions(cls, exprs: Sequence[sp.Expr], coords: Sequence[sp.Symbol],
                        composite: bool = False):
        """The ring for ``exprs`` on ``coords``, or ``None`` when they do not fit (see
        :func:`supported` for ``composite``)."""
        found = supported(exprs, composite)
        if found is None:
            return None
        symbols, angles = found
        return _diff_ring(tuple(coords), frozenset(symbols), frozenset(angles))

    @classmethod
    def shared_for_expressions(cls, exprs: Sequence[sp.Expr], coords: Sequence[sp.Symbol],
                               composite: bool = False):
        """The smallest ring already made for ``coords`` that holds every generator of
        ``exprs`` (with the same kind of angles: plain or composite, none or some), else
        :meth:`for_expressions`; ``None`` when they do not fit.  Fields of one chart then
        share one ring instead of one sympy ``PolyRing`` each (its construction costs more
        than a small bracket); the elements, and every expression built from them, are the
        same in either ring."""
        found = supported(exprs, composite)
        if found is None:
            return None
        symbols, angles = found
        coords = tuple(coords)
        need = set(symbols) | {f(a) for a in angles for f in (sp.sin, sp.cos)}
        plain = all(a.is_Symbol for a in angles)
        best = None
        for R in _MADE.get(coords, ()):
            if R.has_trig == bool(angles) and R.plain_angles == plain and \
                    need <= set(R.gens) and (best is None or len(R.gens) < len(best.gens)):
                best = R
        return best or _diff_ring(coords, frozenset(symbols), frozenset(angles))

    def contains(self, other: DiffRing) -> bool:
        """Whether every generator of ``other`` is a generator here."""
        return set(other.gens) <= set(self.gens) and self.coords == other.coords

    def to_ring(self, expr: sp.Expr):
        """Convert an expression (must fit the ring).

        Expanded sums of monomials are read term by term; anything else (products of
        sums, powers of sums) goes through the ring arithmetic of :meth:`PolyRing.from_expr`."""
        expr = as_expr(expr)
        if expr == 0:
            return self.ring.zero
        idx, n = self._index, len(self.gens)
        conv = self.ring.domain.from_sympy
        terms: dict = {}
        for term in sp.Add.make_args(expr):
            coeff, factors = term.as_coeff_mul()
            if not coeff.is_Rational:
                return self.ring.from_expr(expr)
            m = [0] * n
            for f in factors:
                base, e = (f.base, f.exp) if f.is_Pow else (f, 1)
                i = idx.get(base)
                if i is None or not (e == 1 or (e.is_Integer and e > 0)):
                    return self.ring.from_expr(expr)
                m[i] += int(e)
            m = tuple(m)
            terms[m] = terms.get(m, 0) + conv(coeff)
        return self._from_dict(terms)

    def lift(self, p):
        """Move an element of a smaller ring into this one (its generators placed by
        :meth:`_placement`)."""
        if p.ring is self.ring:
            return p
        place = self._placement(p.ring)
        if place is None:
            return p.set_ring(self.ring)
        pad = (0,)
        return self.ring.dtype({place(m + pad): c for m, c in p.items()})

    def _placement(self, ring):
        """``itemgetter`` taking an exponent tuple of ``ring``, padded with one ``0``, to
        the exponent tuple here; ``None`` unless every generator of ``ring`` is one here
        (cached per ring)."""
        got = self._placements.get(ring)
        if got is None:
            where = {g: i for i, g in enumerate(ring.symbols)}
            if len(where) != ring.ngens or not set(where) <= set(self._index):
                return None
            slots = [where.get(g, ring.ngens) for g in self.gens]
            if len(slots) < 2:
                return None
            got = self._placements[ring] = itemgetter(*slots)
        return got

    def diff(self, p, coord: sp.Symbol):
        r"""Total derivative :math:`dP/dx` including the chain rule over ``sin``/``cos``
        (:func:`~geomech.core.algebra.generators.trig_derivative`)."""
        return self._from_dict(self.generators.derivative(p, coord))

    def _from_dict(self, terms: dict):
        """A ring element from ``{monomial: coefficient}``, dropping zero coefficients."""
        el = self.ring.zero
        for m, c in terms.items():
            if c:
                el[m] = c
        return el

    # -- packed monomials: the hot path of brackets -------------------------------------
    # A monomial x^e is packed into the integer sum(e_k << (_BITS k)), so a product of
    # monomials is an integer sum and a derivative an integer difference.  Packed
    # polynomials are lists of (packed monomial, coefficient).

    def pack(self, p) -> list | None:
        """The packed form of a ring element, or ``None`` if an exponent is too large."""
        if not p:
            return []
        if self.gens and max(map(max, p)) >= _LIMIT:
            return None
        to_bytes = self._struct.pack
        return [(int.from_bytes(to_bytes(*m), "little"), c) for m, c in p.items()]

    def unpack(self, terms) -> object:
        """The ring element of packed ``(monomial, coefficient)`` pairs (zeros dropped)."""
        size, read = self._struct.size, self._struct.unpack
        return self.ring.dtype({read(v.to_bytes(size, "little")): c for v, c in terms if c})

    def diff_packed(self, P: list, coord: sp.Symbol) -> list:
        r"""Total derivative of a packed polynomial (chain rule over ``sin``/``cos``)."""
        sh = self._shifts[self._index[coord]]
        one = 1 << sh
        chain = self._chain_idx.get(coord)
        acc: dict = {}
        get = acc.get
        for v, c in P:
            e = (v >> sh) & _MASK
            if e:
                w = v - one
                acc[w] = get(w, 0) + c * e
            for i_s, i_c, k in chain or ():
                s_sh, c_sh = self._shifts[i_s], self._shifts[i_c]
                e_s, e_c = (v >> s_sh) & _MASK, (v >> c_sh) & _MASK
                if e_s:          # d(sin^j L)/dx = j k sin^(j-1) L cos L
                    w = v - (1 << s_sh) + (1 << c_sh)
                    acc[w] = get(w, 0) + c * e_s * k
                if e_c:          # d(cos^j L)/dx = -j k cos^(j-1) L sin L
                    w = v - (1 << c_sh) + (1 << s_sh)
                    acc[w] = get(w, 0) - c * e_c * k
        return [(w, c) for w, c in acc.items() if c]

    @staticmethod
    def fma_packed(pairs) -> dict:
        r"""The sum :math:`\sum_k \pm a_k b_k` of packed products, accumulated in one map.

        ``pairs`` is an iterable of ``(sign, a, b)`` with ``sign`` = ±1."""
        acc: dict = {}
        get = acc.get
        for sign, pa, pb in pairs:
            for mb, cb in pb:
                if sign < 0:
                    cb = -cb
                for ma, ca in pa:
                    m = ma + mb
                    acc[m] = get(m, 0) + ca * cb
        return acc

    # -- the same in C: python-flint's fmpq_mpoly ------------------------------------------
    @cached_property
    def flint_context(self):
        """python-flint's ``fmpq_mpoly`` context of this ring (generators ``g0, g1, ...`` in
        this order, lex), or ``None`` without python-flint / flint ground types."""
        return qq_context(len(self.gens))

    def to_flint(self, p):
        """A ring element as an ``fmpq_mpoly`` of :attr:`flint_context`."""
        return to_fmpq_mpoly(p, self.flint_context)

    def from_flint(self, f):
        """An ``fmpq_mpoly`` of :attr:`flint_context` as a ring element."""
        return from_fmpq_mpoly(self.ring, f)

    @cached_property
    def modular_context(self):
        """python-flint's ``nmod_mpoly`` context of this ring modulo
        :data:`~geomech.core.algebra.modular.PRIME` (generators as in
        :attr:`flint_context`), or ``None`` without python-flint."""
        if self.flint_context is None:
            return None
        import flint

        from geomech.core.algebra.modular import PRIME
        return flint.nmod_mpoly_ctx.get(tuple(f"g{i}" for i in range(len(self.gens))),
                                        ordering="lex", modulus=PRIME)

    def diff_flint(self, f, coord: sp.Symbol, gens=None):
        r"""Total derivative of an ``fmpq_mpoly`` (or, with the generators ``gens`` of its
        context, an ``nmod_mpoly``): the chain rule over ``sin``/``cos``, the formula of
        :meth:`diff`, in C."""
        g = self.flint_context.gens() if gens is None else gens
        out = f.derivative(self._index[coord])
        for i_s, i_c, k in self._chain_idx.get(coord, ()):
            ds, dc = f.derivative(i_s), f.derivative(i_c)
            if ds:
                out += ds * g[i_c] * k
            if dc:
                out -= dc * g[i_s] * k
        return out

    @property
    def has_trig(self) -> bool:
        """Whether the ring has ``sin``/``cos`` generators."""
        return self._has_trig

    @property
    def pythagoras(self) -> tuple:
        r"""The relations :math:`\sin^2 s + \cos^2 s - 1`, a Gröbner basis in lex order."""
        return self.generators.relations(self.ring)

    @property
    def _cos_first(self):
        """The same generators with each ``cos`` before its ``sin`` (for cos-reduction)."""
        gens = []
        for g in self.gens:
            if isinstance(g, sp.sin):
                continue
            if isinstance(g, sp.cos):
                gens += [g, sp.sin(g.args[0])]
            else:
                gens.append(g)
        ring = polynomial_ring(tuple(gens))
        rel = []
        idx = {g: i for i, g in enumerate(gens)}
        for g in gens:
            if isinstance(g, sp.cos):
                rel.append(ring.gens[idx[g]] ** 2 + ring.gens[idx[sp.sin(g.args[0])]] ** 2 - 1)
        return ring, rel

    def reduce(self, p, prefer: str = "sin"):
        r"""Canonical representative modulo :math:`\sin^2+\cos^2 = 1`.

        With ``prefer="sin"`` every ``sin`` has degree < 2, with ``prefer="cos"`` every
        ``cos``.  The relations have coprime leading monomials, so they form a Gröbner basis
        and the remainder is unique: ``reduce(p) == 0`` iff ``p`` vanishes as a function.
        It is computed term by term in one pass, :math:`s^{2q+r} = s^r(1-c^2)^q` expanded
        binomially for every angle of the term at once (linear in the size of the result;
        no polynomial division); terms of degree < 2 in every ``sin`` are kept as they are.

        >>> x = sp.Symbol("x")
        >>> R = DiffRing.for_expressions([sp.sin(x)], (x,))
        >>> R.to_expr(R.reduce(R.to_ring(sp.sin(x)**3 + x)))
        x - sin(x)*cos(x)**2 + sin(x)
        """
        if not (self.trig_pairs and p):
            return p
        high = self._high_terms(p)
        if not high:
            return p
        out = self._reduced(p, high, 0 if prefer == "sin" else 1)
        return p if out is None else self.ring.dtype(out)

    def shortest(self, p):
        """``p`` or one of its two remainders (:meth:`reduce` with ``sin``, then ``cos``),
        whichever has the fewest terms; ties keep ``p``, then the ``sin`` remainder.  The
        choice of :func:`geomech.core.zero.certificates.pythagorean_shortening`.

        Both remainders come from one scan of ``p`` (:meth:`_high_terms`): only the terms of
        degree >= 2 in some ``sin`` or ``cos`` are rewritten, the others are shared."""
        if not (self.trig_pairs and p):
            return p
        high = self._high_terms(p)
        if not high:
            return p
        best, n_best = p, len(p)
        for side in (0, 1):
            cand = self._reduced(p, high, side)
            if cand is not None and len(cand) < n_best:
                best, n_best = cand, len(cand)
        return best if best is p else self.ring.dtype(best)

    @cached_property
    def _trig_exponents(self):
        """``itemgetter`` of the exponents of all ``sin`` and ``cos`` generators (a tuple)."""
        return itemgetter(*[i for pair in self.trig_pairs for i in pair])

    def _high_terms(self, p) -> list:
        """The terms of ``p`` of degree >= 2 in some ``sin`` or ``cos``."""
        get = self._trig_exponents
        return [(m, c) for m, c in p.items() if max(get(m)) >= 2]

    def _reduced(self, p, high: list, side: int) -> dict | None:
        """``{monomial: coefficient}`` of the remainder of ``p`` with every ``sin``
        (``side`` 0) or every ``cos`` (``side`` 1) of degree < 2, rewriting only the terms
        ``high`` (:meth:`_high_terms`); ``None`` when it is ``p`` itself."""
        pairs = [pair if side == 0 else pair[::-1] for pair in self.trig_pairs]
        out, touched = None, []
        for m, c in high:
            hit = [(i_a, i_b, m[i_a] // 2) for i_a, i_b in pairs if m[i_a] >= 2]
            if not hit:
                continue
            if out is None:
                out = dict(p)
            del out[m]
            base = list(m)
            for i_a, _, _ in hit:
                base[i_a] &= 1
            terms = [(base, c)]
            for _, i_b, q in hit:       # (1 - b^2)^q = sum_j binom(q, j) (-b^2)^j
                terms = [(_shifted(mm, i_b, 2 * j), (-1) ** j * comb(q, j) * cc)
                         for mm, cc in terms for j in range(q + 1)]
            get = out.get
            for mm, cc in terms:
                mm = tuple(mm)
                out[mm] = get(mm, 0) + cc
                touched.append(mm)
        if out is None:
            return None
        for mm in touched:
            if mm in out and not out[mm]:
                del out[mm]
        return out

    @property
    def plain_angles(self) -> bool:
        """Whether every angle is a symbol (no ``sin(x - y)`` generator)."""
        return all(g.args[0].is_Symbol for g in self.gens if isinstance(g, sp.sin))

    @property
    def trig_pairs(self) -> tuple[tuple[int, int], ...]:
        """Indices ``(sin L, cos L)`` of the trigonometric generators."""
        return self.generators.trig_pairs

    def is_zero(self, p) -> bool:
        """Exact zero test of a ring element as a function."""
        return not self.reduce(p)

    def to_expr(self, p) -> sp.Expr:
        r"""The canonical expanded sympy expression of a ring element.

        Identical (``==``, ``srepr``, ``str``) to ``p.as_expr()``, built without sympy's
        flattening (see :class:`ExprBuilder`)."""
        return self._builder(p)



def _shifted(m: list, i: int, k: int) -> list:
    """A copy of the exponent list ``m`` with ``k`` added at ``i``."""
    m = list(m)
    m[i] += k
    return m


@lru_cache(maxsize=256)
def _diff_ring(coords: tuple, symbols: frozenset, angles: frozenset) -> DiffRing:
    R = DiffRing(coords, symbols, angles)
    made = _MADE.setdefault(coords, [])
    made.append(R)
    del made[:-_SHARED_MAX]
    while len(_MADE) > _SHARED_MAX:            # bounded: the charts used last
        del _MADE[next(iter(_MADE))]
    return R


#: the rings made, per coordinates (the most recent ``_SHARED_MAX``), for
#: :meth:`DiffRing.shared_for_expressions`
_MADE: dict = {}
_SHARED_MAX = 16


def clear_caches() -> None:
    """Forget the cached rings, their conversion caches and the shared tables of normal
    forms (for cold-cache measurements)."""
    _diff_ring.cache_clear()
    _MADE.clear()
    forget_rings()
    forget_normal_forms()
    expr_builder.cache_clear()


def union_ring(a: DiffRing, b: DiffRing) -> DiffRing | None:
    """The smallest cached ring containing both; ``None`` when their angles together are
    dependent (``sin(x - y)`` with ``sin(x)`` and ``sin(y)``: the ring would miss the
    addition formulas)."""
    if a.contains(b):
        return a
    if b.contains(a):
        return b
    syms = frozenset(g for g in (*a.gens, *b.gens) if g.is_Symbol)
    angles = frozenset(g.args[0] for g in (*a.gens, *b.gens) if isinstance(g, sp.sin))
    if any(not L.is_Symbol for L in angles) and not independent_angles(angles):
        return None
    return _diff_ring(a.coords, syms, angles)


class Packed:
    """Packed components of a field in a ring and their lazily computed Jacobian."""

    __slots__ = ("R", "comps", "jac")

    def __init__(self, R: DiffRing, polys: Sequence):
        self.R = R
        self.comps = [R.pack(p) for p in polys]
        n = len(R.coords)
        self.jac = [[None] * n for _ in range(n)]

    @property
    def ok(self) -> bool:
        """Whether every component could be packed."""
        return all(c is not None for c in self.comps)

    def d(self, i: int, j: int) -> list:
        r""":math:`\partial_j X^i`, packed (cached)."""
        row = self.jac[i]
        if row[j] is None:
            row[j] = self.R.diff_packed(self.comps[i], self.R.coords[j])
        return row[j]


def bracket_packed(X: Packed, Y: Packed) -> tuple:
    r"""Ring elements of :math:`[X,Y]^i = X^j\partial_j Y^i - Y^j\partial_j X^i`."""
    R = X.R
    n = len(R.coords)
    out = []
    for i in range(n):
        pairs = [(1, X.comps[j], Y.d(i, j)) for j in range(n) if X.comps[j]]
        pairs += [(-1, Y.comps[j], X.d(i, j)) for j in range(n) if Y.comps[j]]
        acc = R.fma_packed(p for p in pairs if p[2])
        out.append(R.unpack(acc.items()))
    return tuple(out)


class FlintPacked:
    """Components of a field as python-flint ``fmpq_mpoly`` (or ``nmod_mpoly``: residues
    modulo the prime, ``modular``) of a ring and their lazily computed Jacobian (the C
    counterpart of :class:`Packed`)."""

    __slots__ = ("R", "comps", "jac", "ctx")

    def __init__(self, R: DiffRing, polys: Sequence, flint: bool = False,
                 modular: bool = False):
        self.R = R
        self.ctx = R.modular_context if modular else R.flint_context
        self.comps = list(polys) if flint else [R.to_flint(p) for p in polys]
        n = len(R.coords)
        self.jac = [[None] * n for _ in range(n)]

    def d(self, i: int, j: int):
        r""":math:`\partial_j X^i` (cached)."""
        row = self.jac[i]
        if row[j] is None:
            row[j] = self.R.diff_flint(self.comps[i], self.R.coords[j], self.ctx.gens())
        return row[j]

    def modular(self) -> FlintPacked:
        """The same components reduced modulo the prime (``nmod_mpoly``)."""
        from geomech.core.algebra.modular import to_mod

        ctx = self.R.modular_context
        comps = [ctx.from_dict({m: to_mod(c) for m, c in zip(f.monoms(), f.coeffs())})
                 for f in self.comps]
        return FlintPacked(self.R, comps, flint=True, modular=True)


def bracket_flint(X: FlintPacked, Y: FlintPacked) -> list:
    r"""``fmpq_mpoly`` components of :math:`[X,Y]^i = X^j\partial_j Y^i - Y^j\partial_j X^i`
    (the same polynomials as :func:`bracket_packed`, multiplied in C)."""
    R = X.R
    n = len(R.coords)
    out = []
    for i in range(n):
        acc = X.ctx.from_dict({})
        for j in range(n):
            if X.comps[j]:
                d = Y.d(i, j)
                if d:
                    acc += X.comps[j] * d
            if Y.comps[j]:
                d = X.d(i, j)
                if d:
                    acc -= Y.comps[j] * d
        out.append(acc)
    return out


def bracket_polys(R: DiffRing, X: Sequence, Y: Sequence) -> tuple:
    r"""Ring elements of :math:`[X,Y]^i = X^j\partial_j Y^i - Y^j\partial_j X^i`."""
    PX, PY = Packed(R, X), Packed(R, Y)
    if PX.ok and PY.ok:
        return bracket_packed(PX, PY)
    coords = R.coords
    n = len(coords)
    return tuple(sum((X[j] * R.diff(Y[i], coords[j]) - Y[j] * R.diff(X[i], coords[j])
                      for j in range(n)), R.ring.zero) for i in range(n))
