r"""Exact spans of vectors of expressions, decided at random exact rational points.

Independence at a random exact rational point (after the zero policy's half-angle rewriting,
so ``sin``/``cos`` take exact rational values) is a *proof* of generic independence;
dependence is then confirmed exactly (:func:`exact_rank`).  :class:`Span` keeps an echelon
basis of the evaluated vectors; :func:`kernel` gives an exact basis of the common kernel of
rows.  ``offer`` answers ``None`` for a vector dependent at the points (undecided
until confirmed exactly by :meth:`Span.confirm`).  Used by :mod:`geomech.lie.distribution`
and :mod:`geomech.lie.integrals`.

>>> import sympy as sp
>>> x, y = sp.symbols("x y")
>>> s = Span(2, Evaluator())
>>> s.offer("a", (x, y)), s.offer("b", (2*x, 2*y)), s.offer("c", (1, 0)), s.rank
(True, None, True, 2)
"""

from __future__ import annotations

import functools
import itertools
import random
import threading
from collections.abc import Sequence
from fractions import Fraction

import sympy as sp
from sympy.polys.matrices import DomainMatrix
from sympy.polys.polyerrors import BasePolynomialError

from geomech.core import budget
from geomech.core.zero import default_policy, rational_rewrite

__all__ = ["SYMPY_FAILURES", "Evaluator", "Span", "exact_rank", "columns", "kernel", "primitive"]

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

    def confirm(self, undecided: list[tuple[str, tuple]]) -> list[str]:
        """Exact check that ``undecided`` lie in the span; adds (and returns) those that do
        not (a random point was unlucky)."""
        undecided = [(k, c) for k, c in undecided if not all(x == 0 for x in c)]
        if not undecided or self.rank >= self.n:
            return []
        full = exact_rank(columns(self.vals + [c for _, c in undecided], self.n))
        if full == self.rank:
            return []
        added = []
        for k, c in undecided:
            budget.check()
            if self.rank >= full:
                break
            if exact_rank(columns(self.vals + [c], self.n)) > self.rank:
                vecs = self.ev.vectors(c)
                self._push(k, c, vecs)
                self.ok = [False] * len(self.ok)  # echelons no longer trustworthy
                added.append(k)
        return added


def exact_rank(m: sp.Matrix) -> int:
    """Generic rank, exact.  Matrices of polynomials in symbols with rational coefficients go
    straight to ``DomainMatrix`` over the fraction field (what the zero policy's exact rank
    does after its normalisation, which is the identity on them); everything else (trig,
    fractions, jets, algebraic numbers) goes to the zero policy's ``rank``."""
    if 0 in m.shape:
        return 0
    try:
        dm = DomainMatrix.from_Matrix(m)
        dom = dm.domain
        if dom.is_ZZ or dom.is_QQ:
            return dm.to_field().rank()
        if dom.is_PolynomialRing and (dom.domain.is_ZZ or dom.domain.is_QQ) and \
                all(g.is_Symbol for g in dom.symbols):
            return dm.to_field().rank()
    except (BasePolynomialError, NotImplementedError):  # not a polynomial matrix: policy
        pass
    return default_policy().rank(m)


def columns(vals: Sequence[tuple], n: int) -> sp.Matrix:
    if not vals:
        return sp.zeros(n, 0)
    return sp.Matrix(n, len(vals), lambda i, j: vals[j][i])


def kernel(rows: Sequence[tuple], n: int, ev: Evaluator) -> list[tuple]:
    r"""Basis of the right kernel of the matrix with the given rows, by Cramer's rule.

    Independent rows ``A`` (rank ``r``) and pivot columns ``P`` with :math:`\det A_P \neq 0`
    are chosen at a random point; for each other column ``j`` the kernel vector is
    :math:`v_j = \det A_P`, :math:`v_{P_k} = -\det A_P[k \leftarrow A_j]`, then denominators
    are cleared and the content removed.
    """
    span = Span(n, ev)
    undecided = []
    for i, r in enumerate(rows):
        if span.offer(str(i), tuple(r)) is None:
            undecided.append((str(i), tuple(r)))
    span.confirm(undecided)
    A = span.vals
    r = len(A)
    if r == 0:
        return [tuple(sp.S.One if i == j else sp.S.Zero for i in range(n)) for j in range(n)]
    # pivot columns at a point where the chosen rows are independent
    piv = None
    for p, ok in enumerate(span.ok):
        vecs = [ev.vectors(a)[p] for a in A]
        if ok and all(v is not None for v in vecs):
            dm = DomainMatrix([[sp.QQ(x.numerator, x.denominator) for x in v] for v in vecs],
                              (r, n), sp.QQ)
            _, pivots = dm.rref()
            if len(pivots) == r:
                piv = list(pivots)
                break
    if piv is None:  # exact search for a non-vanishing maximal minor
        pol = default_policy()
        for cols in itertools.combinations(range(n), r):
            if not pol.is_zero(sp.Matrix([[A[i][k] for k in cols] for i in range(r)]).det()):
                piv = list(cols)
                break
    norm = default_policy().normalize
    AP = sp.Matrix(r, r, lambda i, k: A[i][piv[k]])
    det = norm(AP.det(method="berkowitz"))
    out = []
    for j in range(n):
        if j in piv:
            continue
        v = [sp.S.Zero] * n
        v[j] = det
        for k, pk in enumerate(piv):
            Ak = AP.copy()
            for i in range(r):
                Ak[i, k] = A[i][j]
            v[pk] = norm(-Ak.det(method="berkowitz"))
        out.append(primitive(v))
    return out


def primitive(v: list[sp.Expr]) -> tuple:
    """Clear denominators and divide by the content (best effort, exact)."""
    norm = default_policy().normalize
    try:
        fr = [sp.fraction(sp.cancel(sp.together(e))) for e in v]
        den = sp.lcm_list([d for _, d in fr]) if fr else sp.S.One
        nums = [norm(sp.cancel(nm * den / d)) for nm, d in fr]
        nz = [e for e in nums if e != 0]
        if nz:
            g = sp.gcd_list(nz)
            if g != 0 and not g.is_number:
                nums = [norm(sp.cancel(e / g)) for e in nums]
            # divide by the common rational content
            c = [e.as_content_primitive()[0] for e in nums if e != 0]
            cg = functools.reduce(sp.gcd, c) if c else sp.S.One
            if cg != 0 and cg.is_number and cg != 1:
                nums = [norm(e / cg) for e in nums]
        return tuple(nums)
    except SYMPY_FAILURES:  # keep the exact, unsimplified vector
        return tuple(norm(e) for e in v)


