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
from functools import lru_cache

import sympy as sp
from sympy.polys.rings import PolyRing

__all__ = ["DiffRing", "supported"]


def _atoms_ok(expr: sp.Expr, angles: set, symbols: set) -> bool:
    """Collect generators of ``expr``; ``False`` if it is not a polynomial in supported atoms."""
    stack = [expr]
    while stack:
        e = stack.pop()
        if e.is_Symbol:
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
        else:
            return False
    return True


def supported(exprs: Sequence[sp.Expr]) -> tuple[set, set] | None:
    """``(symbols, angles)`` if every expression fits the ring, else ``None``."""
    symbols: set = set()
    angles: set = set()
    for e in exprs:
        if not _atoms_ok(sp.sympify(e), angles, symbols):
            return None
    return symbols, angles


@lru_cache(maxsize=256)
def _ring(gens: tuple) -> PolyRing:
    return PolyRing(gens, sp.QQ)


class DiffRing:
    """A polynomial ring over QQ closed under the coordinate derivations."""

    def __init__(self, coords: tuple, symbols: frozenset, angles: frozenset):
        trig = []
        for s in sorted(angles, key=sp.default_sort_key):
            trig += [sp.sin(s), sp.cos(s)]
        others = sorted((set(symbols) | set(angles)) - set(coords), key=sp.default_sort_key)
        self.coords = tuple(coords)
        self.gens = (*self.coords, *others, *trig)
        self.ring = _ring(self.gens)
        self._index = {g: i for i, g in enumerate(self.gens)}
        # for each coordinate, the chain-rule terms (d/d generator, derivative of generator)
        self._chain: dict = {}
        G = self.ring.gens
        for s in angles:
            if s in self._index:
                i_s, i_c = self._index[sp.sin(s)], self._index[sp.cos(s)]
                self._chain[s] = ((G[i_s], G[i_c]), (G[i_c], -G[i_s]))

    @classmethod
    def for_expressions(cls, exprs: Sequence[sp.Expr], coords: Sequence[sp.Symbol]):
        """The ring for ``exprs`` on ``coords``, or ``None`` when they do not fit."""
        found = supported(exprs)
        if found is None:
            return None
        symbols, angles = found
        return _diff_ring(tuple(coords), frozenset(symbols), frozenset(angles))

    def contains(self, other: DiffRing) -> bool:
        """Whether every generator of ``other`` is a generator here."""
        return set(other.gens) <= set(self.gens) and self.coords == other.coords

    def to_ring(self, expr: sp.Expr):
        """Convert an expression (must fit the ring)."""
        return self.ring.from_expr(sp.sympify(expr)) if expr != 0 else self.ring.zero

    def lift(self, p):
        """Move an element of a smaller ring into this one."""
        return p.set_ring(self.ring) if p.ring is not self.ring else p

    def diff(self, p, coord: sp.Symbol):
        r"""Total derivative :math:`dP/dx` including the chain rule over ``sin``/``cos``."""
        out = p.diff(self.ring.gens[self._index[coord]])
        for g, dg in self._chain.get(coord, ()):
            dp = p.diff(g)
            if dp:
                out += dp * dg
        return out

    @property
    def pythagoras(self) -> tuple:
        r"""The relations :math:`\sin^2 s + \cos^2 s - 1`, a Gröbner basis in lex order."""
        G = self.ring.gens
        rel = []
        for g in self.gens:
            if isinstance(g, sp.sin):
                i = self._index[g]
                rel.append(G[i] ** 2 + G[self._index[sp.cos(g.args[0])]] ** 2 - 1)
        return tuple(rel)

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
        ring = _ring(tuple(gens))
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
        and the remainder is unique: ``reduce(p) == 0`` iff ``p`` vanishes as a function."""
        rel = self.pythagoras
        if not (rel and p):
            return p
        if prefer == "sin":
            return p.rem(list(rel))
        ring, rel_c = self._cos_first
        return p.set_ring(ring).rem(rel_c).set_ring(self.ring)

    def is_zero(self, p) -> bool:
        """Exact zero test of a ring element as a function."""
        return not self.reduce(p)

    def to_expr(self, p) -> sp.Expr:
        """The canonical expanded sympy expression of a ring element."""
        return p.as_expr()


@lru_cache(maxsize=256)
def _diff_ring(coords: tuple, symbols: frozenset, angles: frozenset) -> DiffRing:
    return DiffRing(coords, symbols, angles)


def union_ring(a: DiffRing, b: DiffRing) -> DiffRing:
    """The smallest cached ring containing both."""
    if a.contains(b):
        return a
    if b.contains(a):
        return b
    syms = frozenset(g for g in (*a.gens, *b.gens) if g.is_Symbol)
    angles = frozenset(g.args[0] for g in (*a.gens, *b.gens) if isinstance(g, sp.sin))
    return _diff_ring(a.coords, syms, angles)


def bracket_polys(R: DiffRing, X: Sequence, Y: Sequence) -> tuple:
    r"""Ring elements of :math:`[X,Y]^i = X^j\partial_j Y^i - Y^j\partial_j X^i`."""
    coords = R.coords
    n = len(coords)
    dY = [[None] * n for _ in range(n)]
    dX = [[None] * n for _ in range(n)]
    out = []
    for i in range(n):
        acc = R.ring.zero
        for j in range(n):
            if X[j]:
                if dY[i][j] is None:
                    dY[i][j] = R.diff(Y[i], coords[j])
                acc += X[j] * dY[i][j]
            if Y[j]:
                if dX[i][j] is None:
                    dX[i][j] = R.diff(X[i], coords[j])
                acc -= Y[j] * dX[i][j]
        out.append(acc)
    return tuple(out)
