r"""Exact spans of vectors of expressions, decided at random exact rational points.

Independence at a random exact rational point (after the zero policy's half-angle rewriting,
so ``sin``/``cos`` take exact rational values) is a *proof* of generic independence, and so
is independence of those values reduced modulo the prime :math:`2^{61}-1`
(:mod:`geomech.core.algebra.modular`), which is how the values are kept; dependence is then
confirmed exactly (:func:`geomech.core.algebra.rank`).  :class:`Span`
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

import sympy as sp
from sympy.polys.polyerrors import BasePolynomialError

from geomech.core import budget
from geomech.core.algebra import differential_ring, nullspace, rank
from geomech.core.algebra.membership import certified_membership
from geomech.core.algebra.modular import PRIME, normalised_mod, reduce_mod, to_mod
from geomech.core.fields import VectorField
from geomech.core.manifold import free_symbols_of
from geomech.core.zero import rational_rewrite
from geomech.core.zero.values import OutsideRing, PointEvaluator

__all__ = ["SYMPY_FAILURES", "Evaluator", "Span", "columns", "kernel"]

#: what sympy's polynomial algorithms, solvers and ODE methods raise when they cannot handle an
#: input (every fallback catches these only; anything else is a bug and propagates)
SYMPY_FAILURES = (BasePolynomialError, NotImplementedError, ValueError)


class Evaluator:
    """Exact rational values of expressions at a few shared random points, reduced modulo
    :data:`~geomech.core.algebra.modular.PRIME` (a ring map: values of products and sums
    are products and sums of values).

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

    def _points_for(self, syms: set) -> list[dict]:
        """The points, each given a value for every symbol of ``syms`` (shared, grown)."""
        with self._lock:
            for pt in self.points:
                for s in sorted(syms - pt.keys(), key=sp.default_sort_key):
                    pt[s] = self._value(s)
            return [dict(pt) for pt in self.points]

    def field_vectors(self, X) -> list[list[int] | None]:
        """The vector of a field at each point, modulo the prime: a field held in a
        polynomial ring (:meth:`VectorField.ring_form`) is evaluated in the ring, each
        generator (a symbol, or ``sin``/``cos`` of an integer combination of symbols) taking
        the value of its rewriting -- the same ring map as :meth:`vectors`, so both kinds of
        vectors are taken at the same points; other fields through their components."""
        form = X.ring_form() if isinstance(X, VectorField) else None
        if not form:
            return self.vectors(X.components if isinstance(X, VectorField) else X)
        budget.check()
        R, polys = form
        rew = [self._rewrite(g) for g in R.gens]
        points = self._points_for(set().union(*(r.free_symbols for r in rew)))
        fast = X.modular_form()
        fast = None if fast is None else fast.comps
        out = []
        for pt in points:
            vals = []
            for r in rew:
                v = r.xreplace(pt) if r.free_symbols else r
                v = to_mod(v) if v.is_Rational else None
                if v is None:
                    vals = None
                    break
                vals.append(v)
            if vals is None:
                out.append(None)
            elif fast is not None:
                out.append([int(f(*vals)) if f else 0 for f in fast])
            else:
                out.append([_evaluate_mod(p, vals) for p in polys])
        return out

    def vectors(self, comps: Sequence[sp.Expr]) -> list[list[int] | None]:
        """The vector at each point modulo the prime (``None`` where undefined or not
        rational): exact values by :class:`~geomech.core.zero.values.PointEvaluator` (one memo
        per point for all components), by substitution where a sub-denominator vanishes."""
        budget.check()
        rew = [self._rewrite(c) for c in comps]
        syms = set().union(*(free_symbols_of(r) for r in rew)) if rew else set()
        points = self._points_for(syms)
        out = []
        for pt in points:
            pv = PointEvaluator(pt)
            vec = []
            for r in rew:
                v = _exact_value(pv, r, pt)
                v = to_mod(v) if v is not None and v.is_Rational else None
                if v is None:
                    vec = None
                    break
                vec.append(v)
            out.append(vec)
        return out


def _exact_value(pv: PointEvaluator, r: sp.Expr, pt: dict) -> sp.Expr | None:
    """The value of ``r`` at ``pt`` (``pv`` its values), by substitution where a
    sub-denominator vanishes or another atom occurs; ``None`` where undefined."""
    try:
        return pv.sympy_value(r)
    except (ZeroDivisionError, OutsideRing):
        pass
    try:
        return r.xreplace(pt) if r.free_symbols else r
    except (ZeroDivisionError, TypeError):
        return None


def _evaluate_mod(p, vals: list) -> int | None:
    """The value modulo the prime of a ring element at generator values ``vals``."""
    acc = 0
    powers: dict = {}
    for m, c in p.items():
        t = to_mod(c)
        if t is None:
            return None
        for i, e in enumerate(m):
            if e:
                v = powers.get((i, e))
                if v is None:
                    v = powers[(i, e)] = pow(vals[i], e, PRIME)
                t = t * v % PRIME
        acc += t
    return acc % PRIME


class Span:
    """A growing generic basis: independence at a random point proves generic independence;
    dependence is proved exactly, by a verified linear combination
    (:func:`~geomech.core.algebra.membership.certified_membership`) or, failing that, by an
    exact rank."""

    def __init__(self, n: int, ev: Evaluator):
        self.n = n
        self.ev = ev
        self.keys: list[str] = []
        self.items: list = []               # the basis vectors: tuples or VectorFields
        self.at_points: list[list] = []     # values of each basis vector at the points
        self.ech: list[list] = [[] for _ in ev.points]
        self.ok = [True for _ in ev.points]  # echelon rank == len(keys)
        self._vecs: dict = {}               # key -> values at the points (offered vectors)

    @property
    def rank(self) -> int:
        return len(self.keys)

    def copy(self) -> Span:
        """An independent copy (the same evaluator and points), to grow further without
        changing this span (the Lie flag of a distribution starts from its span)."""
        out = Span.__new__(Span)
        out.n, out.ev = self.n, self.ev
        out.keys, out.items = list(self.keys), list(self.items)
        out.at_points = [list(v) for v in self.at_points]
        out.ech = [list(e) for e in self.ech]        # rows (pivot, row) are not mutated
        out.ok, out._vecs = list(self.ok), dict(self._vecs)
        return out

    @property
    def vals(self) -> list[tuple]:
        """Components of the basis vectors (built on demand for ring-valued fields)."""
        return [_components(x) for x in self.items]

    def _vectors(self, item) -> list:
        return self.ev.field_vectors(item) if isinstance(item, VectorField) \
            else self.ev.vectors(item)

    def _push(self, key: str, comps, vecs) -> None:
        self.keys.append(key)
        self.items.append(comps)
        self.at_points.append(list(vecs))
        for p, vec in enumerate(vecs):
            if not self.ok[p] or vec is None:
                self.ok[p] = False
                continue
            got = normalised_mod(reduce_mod(self.ech[p], vec))
            if got is None:
                self.ok[p] = False
            else:
                self.ech[p].append(got)

    def independent_numerically(self, comps) -> tuple[bool, list]:
        vecs = self._vectors(comps)
        for p, vec in enumerate(vecs):
            if self.ok[p] and vec is not None and any(reduce_mod(self.ech[p], vec)):
                return True, vecs
        return False, vecs

    def offer(self, key: str, comps) -> bool | None:
        """Add if independent at a random point (True); ``None`` if undecided; False for
        an exactly zero vector.  ``comps`` is a tuple of expressions or a VectorField."""
        budget.check()
        if _is_zero(comps):
            return False
        if self.rank >= self.n:
            return None
        ind, vecs = self.independent_numerically(comps)
        if ind:
            self._push(key, comps, vecs)
            return True
        self._vecs[key] = vecs
        return None

    def certify(self, comps, vecs=None) -> bool | None:
        """Exact decision whether ``comps`` (dependent at the points) lies in the span:
        ``True`` proved inside, ``False`` proved outside, ``None`` undecided.  When the
        basis and ``comps`` are fields of one polynomial ring, in the ring."""
        vecs = self._vectors(comps) if vecs is None else vecs
        samples = [([b[p] for b in self.at_points], vec) for p, vec in enumerate(vecs)
                   if self.ok[p] and vec is not None
                   and all(b[p] is not None for b in self.at_points)]
        ring = _common_ring([*self.items, comps])
        if ring is not None:
            R, polys = ring
            return certified_membership(polys[:-1], polys[-1], samples, ring=R, modular=True)
        return certified_membership(self.vals, _components(comps), samples, modular=True)

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
            if _is_zero(comps) or self.rank >= self.n:
                continue
            independent, vecs = self.independent_numerically(comps)
            if independent:
                return key
            undecided.append((key, comps, vecs))
        verdicts = [self.certify(c, vecs) for _, c, vecs in undecided]
        if False in verdicts:
            return undecided[verdicts.index(False)][0]
        undecided = [(k, _components(c)) for (k, c, _), v in zip(undecided, verdicts)
                     if v is None]
        if not undecided or rank(columns(self.vals + [c for _, c in undecided], self.n)) \
                == self.rank:
            return None
        return next((k for k, c in undecided
                     if rank(columns(self.vals + [c], self.n)) > self.rank), None)

    def contains(self, comps) -> bool:
        """Whether the vector ``comps`` (or a VectorField) lies in the span (generically,
        exact)."""
        return self.first_outside([("", comps)]) is None

    def extend(self, items: Sequence[tuple[str, tuple]]) -> None:
        """Offer every ``(key, components)`` pair, then :meth:`confirm` the undecided ones."""
        undecided = [(k, c) for k, c in items if self.offer(k, c) is None]
        self.confirm(undecided)

    def confirm(self, undecided: list[tuple[str, tuple]]) -> list[str]:
        """Exact check that ``undecided`` lie in the span; adds (and returns) those that do
        not (a random point was unlucky).  Each is certified by a verified combination
        (:meth:`certify`); those left undecided by an exact rank."""
        undecided = [(k, c) for k, c in undecided if not _is_zero(c)]
        if not undecided or self.rank >= self.n:
            return []
        added, rest = [], []
        for k, c in undecided:
            budget.check()
            if self.rank >= self.n:
                return added
            verdict = self.certify(c, self._vecs.pop(k, None))
            if verdict is False:
                self._push(k, c, self._vectors(c))
                self.ok = [False] * len(self.ok)  # echelons no longer trustworthy
                added.append(k)
            elif verdict is None:
                rest.append((k, _components(c)))
        return added + self._confirm_by_rank(rest)

    def _confirm_by_rank(self, undecided: list[tuple[str, tuple]]) -> list[str]:
        """Exact ranks: one for all of ``undecided``, then one by one if it grew."""
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


def _components(item) -> tuple:
    return item.components if isinstance(item, VectorField) else item


def _is_zero(item) -> bool:
    """Whether a vector is zero: structurally for components, in the ring for a field
    held in one (exact: its angles are independent)."""
    if isinstance(item, VectorField):
        form = item.ring_form()
        if form:
            return all(form[0].is_zero(p) for p in form[1])
        item = item.components
    return all(c == 0 for c in item)


def _common_ring(items: list):
    """``(ring, [components of each item in it])`` when every item is a field held in a
    polynomial ring and the rings have a common one, else ``None``; the components are
    python-flint polynomials when the ring has a flint context."""
    forms = [x.ring_form() if isinstance(x, VectorField) else None for x in items]
    if not all(forms):
        return None
    R = forms[0][0]
    for f in forms[1:]:
        R = differential_ring.union_ring(R, f[0])
        if R is None:
            return None
    if R.flint_context is not None:     # python-flint forms, cached on the fields
        return R, [x.flint_form(R).comps for x in items]
    return R, [[R.lift(p) for p in f[1]] for f in forms]


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
