r"""Exact spans of vectors of expressions, decided at random exact rational points.

Independence at a random exact rational point (after the zero policy's half-angle rewriting,
so ``sin``/``cos`` take exact rational values) is a *proof* of generic independence;
dependence is then confirmed exactly (:func:`geomech.core.algebra.rank`).  :class:`Span`
keeps an echelon basis of the evaluated vectors; :func:`kernel` gives an exact basis of the
common kernel of rows (:func:`geomech.core.algebra.nullspace`).  ``offer`` answers ``None``
for a vector dependent at the points (undecided until confirmed exactly by
:meth:`Span.confirm`).  Used by :mod:`geomech.lie.distribution` and
:mod:`geomech.lie.integrals`.

>>> import sympy as sp
>>> x, y = sp.symbols("x y")
>>> s = Span(2, Evaluator())
>>> s.offer("a", (x, y)), s.offer("b", (2*x, 2*y)), s.offer("c", (1, 0)), s.rank
(True, None, True, 2)
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from fractions import Fraction

import sympy as sp
from sympy.polys.polyerrors import BasePolynomialError

from geomech.core import budget
from geomech.core.algebra import nullspace, rank
from geomech.core.zero import rational_rewrite

__all__ = ["SYMPY_FAILURES", "Evaluator", "Span", "columns", "kernel"]

#: what sympy's polynomial algorithms, solvers and ODE methods raise when they cannot handle an
#: input (every fallback catches these only; anything else is a bug and propagates)
SYMPY_FAILURES = (BasePolynomialError, NotImplementedError, ValueError)


class Evaluator:
    """Exact rational values of expressions at a few shared random points.

    Expressions are rewritten once by the zero policy's ring maps (jets -> symbols, trig ->
    rational functions of half-angle tangents), so values are exact rationals whenever the
    expression is rational in its generators.
    """

    def __init__(self, npoints: int = 3, seed: int = 7919):
        self._rng = random.Random(seed)
        self.points: list[dict] = [{} for _ in range(npoints)]
        self._cache: dict = {}
        # the points grow lazily (a value per new symbol) and are shared by every span of a
        # distribution: all vectors must be taken at the same points, also across threads
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _value(self, sym: sp.Symbol) -> sp.Rational:
        val = sp.Rational(self._rng.randint(1, 97), self._rng.randint(1, 89))
        if not (sym.is_positive or sym.is_nonnegative) and self._rng.random() < 0.5:
            val = -val
        return val

    def _rewrite(self, e: sp.Expr) -> sp.Expr:
        r = self._cache.get(e)
        if r is None:
            r = rational_rewrite(e)
            self._cache[e] = r
        return r

    def vectors(self, comps: Sequence[sp.Expr]) -> list[list[Fraction] | None]:
        """The vector at each point (``None`` where undefined or not rational)."""
        budget.check()
        rew = [self._rewrite(c) for c in comps]
        syms = set().union(*(r.free_symbols for r in rew)) if rew else set()
        out = []
        with self._lock:
            for pt in self.points:
                for s in sorted(syms - pt.keys(), key=sp.default_sort_key):
                    pt[s] = self._value(s)
            points = [dict(pt) for pt in self.points]
        for pt in points:
            vec = []
            for r in rew:
                try:
                    v = r.xreplace(pt) if r.free_symbols else r
                except (ZeroDivisionError, TypeError):
                    vec = None
                    break
                if not v.is_Rational:
                    vec = None
                    break
                vec.append(Fraction(int(v.p), int(v.q)))
            out.append(vec)
        return out


def _reduce(ech: list[tuple[int, list[Fraction]]], vec: list[Fraction]) -> list[Fraction]:
    v = list(vec)
    for piv, row in ech:
        if v[piv]:
            f = v[piv] / row[piv]
            v = [a - f * b for a, b in zip(v, row)]
    return v


class Span:
    """A growing generic basis: independence at a random point proves generic independence;
    dependence is confirmed exactly with the zero policy."""

    def __init__(self, n: int, ev: Evaluator):
        self.n = n
        self.ev = ev
        self.keys: list[str] = []
        self.vals: list[tuple] = []
        self.ech: list[list] = [[] for _ in ev.points]
        self.ok = [True for _ in ev.points]  # echelon rank == len(keys)

    @property
    def rank(self) -> int:
        return len(self.keys)

    def _push(self, key: str, comps: tuple, vecs) -> None:
        self.keys.append(key)
        self.vals.append(comps)
        for p, vec in enumerate(vecs):
            if not self.ok[p] or vec is None:
                self.ok[p] = False
                continue
            r = _reduce(self.ech[p], vec)
            piv = next((i for i, a in enumerate(r) if a), None)
            if piv is None:
                self.ok[p] = False
            else:
                self.ech[p].append((piv, r))

    def independent_numerically(self, comps: tuple) -> tuple[bool, list]:
        vecs = self.ev.vectors(comps)
        for p, vec in enumerate(vecs):
            if self.ok[p] and vec is not None and any(_reduce(self.ech[p], vec)):
                return True, vecs
        return False, vecs

    def offer(self, key: str, comps: tuple) -> bool | None:
        """Add if independent at a random point (True); ``None`` if undecided; False for
        an exactly zero vector."""
        budget.check()
        if all(c == 0 for c in comps):
            return False
        if self.rank >= self.n:
            return None
        ind, vecs = self.independent_numerically(comps)
        if ind:
            self._push(key, comps, vecs)
            return True
        return None

    def first_outside(self, items: Sequence[tuple[str, tuple]]) -> str | None:
        """Key of the first vector of ``items`` (``(key, components)`` pairs) outside the span,
        or ``None``: independence at a random point first, then the undecided vectors exactly
        (one rank for all of them, then one by one).

        >>> x, y = sp.symbols("x y")
        >>> s = Span(3, Evaluator())
        >>> s.offer("a", (x, y, 0))
        True
        >>> s.first_outside([("b", (2*x, 2*y, 0)), ("c", (0, 0, 1))])
        'c'
        """
        undecided = []
        for key, comps in items:
            if all(c == 0 for c in comps) or self.rank >= self.n:
                continue
            independent, _ = self.independent_numerically(comps)
            if independent:
                return key
            undecided.append((key, comps))
        if not undecided or rank(columns(self.vals + [c for _, c in undecided], self.n)) \
                == self.rank:
            return None
        return next((k for k, c in undecided
                     if rank(columns(self.vals + [c], self.n)) > self.rank), None)

    def contains(self, comps: tuple) -> bool:
        """Whether the vector ``comps`` lies in the span (generically, exact)."""
        return self.first_outside([("", comps)]) is None

    def extend(self, items: Sequence[tuple[str, tuple]]) -> None:
        """Offer every ``(key, components)`` pair, then :meth:`confirm` the undecided ones."""
        undecided = [(k, c) for k, c in items if self.offer(k, c) is None]
        self.confirm(undecided)

    def confirm(self, undecided: list[tuple[str, tuple]]) -> list[str]:
        """Exact check that ``undecided`` lie in the span; adds (and returns) those that do
        not (a random point was unlucky)."""
        undecided = [(k, c) for k, c in undecided if not all(x == 0 for x in c)]
        if not undecided or self.rank >= self.n:
            return []
        full = rank(columns(self.vals + [c for _, c in undecided], self.n))
        if full == self.rank:
            return []
        added = []
        for k, c in undecided:
            budget.check()
            if self.rank >= full:
                break
            if rank(columns(self.vals + [c], self.n)) > self.rank:
                vecs = self.ev.vectors(c)
                self._push(k, c, vecs)
                self.ok = [False] * len(self.ok)  # echelons no longer trustworthy
                added.append(k)
        return added


def columns(vals: Sequence[tuple], n: int) -> sp.Matrix:
    """The ``n x len(vals)`` matrix whose columns are the vectors ``vals``.

    >>> columns([(1, 2), (3, 4)], 2)
    Matrix([
    [1, 3],
    [2, 4]])
    """
    if not vals:
        return sp.zeros(n, 0)
    return sp.Matrix(n, len(vals), lambda i, j: vals[j][i])


def kernel(rows: Sequence[tuple], n: int) -> list[tuple]:
    r"""Basis of the right kernel :math:`\{v : A v = 0\}` of the matrix ``A`` with the given
    rows (``n`` columns), over the field of functions (:func:`geomech.core.algebra.nullspace`,
    each vector primitive: polynomial entries without common factor).

    >>> x, y = sp.symbols("x y")
    >>> kernel([(x, y)], 2)
    [(y, -x)]
    """
    if not rows:
        return [tuple(sp.S.One if i == j else sp.S.Zero for i in range(n)) for j in range(n)]
    return [tuple(v) for v in nullspace(sp.Matrix([list(r) for r in rows]))]
