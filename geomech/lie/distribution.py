r"""Distributions: spans of vector fields (or kernels of Pfaffian forms) and their Lie flags.

A :class:`Distribution` :math:`D = \operatorname{span}_{C^\infty}\{X_1,\dots,X_k\}` on a chart
knows its generic rank (confirmed exactly by the zero policy), its rank at a point and the
singular locus where the rank drops, the Frobenius test
(:math:`D` involutive :math:`\iff [X_i, X_j] \in D`), the Lie flag

.. math:: D^1 = D,\qquad D^{j+1} = D^j + [D^1, D^j],

and the growth vector :math:`(\operatorname{rank} D^1, \operatorname{rank} D^2, \dots)`
(stopping when the rank stabilises), its annihilator (1-forms), and first integrals.  All
brackets go through the shared :class:`~geomech.lie.graph.BracketGraph` of the manifold,
with words in a Hall basis.

Ranks are decided in two steps: independence at a random exact rational point (after the
policy's half-angle rewriting, so ``sin``/``cos`` take exact rational values) is a *proof*
of generic independence; dependence is then confirmed exactly by the zero policy's ``rank``.

Examples
--------
>>> import sympy as sp
>>> from geomech.core.manifold import Manifold
>>> N = Manifold("N", "x y phi"); x, y, phi = N.coords
>>> D = Distribution([N.vector_field([sp.cos(phi), sp.sin(phi), 0]), N.vector_field([0, 0, 1])],
...                  names=["tau1", "tau2"])
>>> D.rank, D.growth_vector()
(2, (2, 3))
>>> D.frobenius().offending
'[tau1,tau2]'
>>> D.annihilator()
[DifferentialForm(N, 1, {(0,): -sin(phi), (1,): cos(phi)})]
"""

from __future__ import annotations

import atexit
import functools
import itertools
import random
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp
from sympy.polys.matrices import DomainMatrix
from sympy.polys.polyerrors import BasePolynomialError

from ..core import budget
from ..core.fields import VectorField
from ..core.forms import DifferentialForm
from ..core.manifold import Manifold
from ..core.parse import as_expr
from ..core.zero import default_policy, rational_rewrite
from .graph import BracketGraph

__all__ = ["Distribution", "FrobeniusResult", "NotFoundError", "NotFound"]

# what sympy's polynomial algorithms, solvers and ODE methods raise when they cannot handle an
# input (every fallback below catches these only; anything else is a bug and propagates)
_SYMPY_FAILURES = (BasePolynomialError, NotImplementedError, ValueError)


class NotFoundError(ValueError):
    """No (complete set of) first integrals could be found and verified.

    Attributes
    ----------
    partial : list
        The verified, functionally independent integrals that were found.
    expected : int
        How many independent integrals exist (``dim - rank`` of the involutive closure).
    """

    def __init__(self, message: str, partial=(), expected: int = 0):
        super().__init__(message)
        self.partial = list(partial)
        self.expected = expected


NotFound = NotFoundError


@dataclass(frozen=True)
class FrobeniusResult:
    """Outcome of the Frobenius test.

    Attributes
    ----------
    involutive : bool
        Whether every bracket of generators lies in the distribution.
    offending : str or None
        Node key of the first bracket word ``[X_i,X_j]`` not in the distribution.
    bracket : VectorField or None
        Its value.
    provenance : str or None
        The word with the generators' definitions.
    rank : int
        Generic rank of the distribution.
    certain : bool
        ``False`` when a zero decision behind the result rests on numerical evidence only
        (see :class:`~geomech.core.zero.ZeroVerdict`).
    """

    involutive: bool
    offending: str | None
    bracket: VectorField | None
    provenance: str | None
    rank: int
    certain: bool = True

    def __bool__(self) -> bool:
        return self.involutive


class GrowthVector(tuple):
    """Ranks of a flag, a tuple with a ``certain`` attribute: ``False`` when a zero decision
    behind a rank rests on numerical evidence only.

    >>> g = GrowthVector((2, 3, 5), True)
    >>> g == (2, 3, 5), g.certain
    (True, True)
    """

    certain: bool

    def __new__(cls, ranks, certain: bool = True):
        self = super().__new__(cls, ranks)
        self.certain = bool(certain)
        return self

    def __reduce__(self):
        return (GrowthVector, (tuple(self), self.certain))


# ---------------------------------------------------------------------------------------------
# exact evaluation at random rational points
# ---------------------------------------------------------------------------------------------
class _Evaluator:
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


class _Span:
    """A growing generic basis: independence at a random point proves generic independence;
    dependence is confirmed exactly with the zero policy."""

    def __init__(self, n: int, ev: _Evaluator):
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
        full = _rank(_columns(self.vals + [c for _, c in undecided], self.n))
        if full == self.rank:
            return []
        added = []
        for k, c in undecided:
            budget.check()
            if self.rank >= full:
                break
            if _rank(_columns(self.vals + [c], self.n)) > self.rank:
                vecs = self.ev.vectors(c)
                self._push(k, c, vecs)
                self.ok = [False] * len(self.ok)  # echelons no longer trustworthy
                added.append(k)
        return added


def _rank(m: sp.Matrix) -> int:
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


def _pair_brackets(G, keys: Sequence[str], length: dict, max_depth: int | None,
                   seen: set) -> list[str]:
    r"""New bracket words :math:`[b_i, b_j]`, ``i < j``, of a basis of :math:`D^{(j)}`.

    They span :math:`[D^{(j)}, D^{(j)}]` modulo :math:`D^{(j)}`, because
    :math:`[fX, gY] = fg[X,Y] + fX(g)Y - gY(f)X`.  Words longer than ``max_depth`` are
    skipped; ``length`` records the length of every word formed."""
    out = []
    for a, b in itertools.combinations(keys, 2):
        la = length[a] + length[b]
        if max_depth is not None and la > max_depth:
            continue
        w = G.bracket_node(a, b)
        if w not in seen and w not in out:
            length[w] = la
            out.append(w)
    return out


def _columns(vals: Sequence[tuple], n: int) -> sp.Matrix:
    if not vals:
        return sp.zeros(n, 0)
    return sp.Matrix(n, len(vals), lambda i, j: vals[j][i])


def _kernel(rows: Sequence[tuple], n: int, ev: _Evaluator) -> list[tuple]:
    r"""Basis of the right kernel of the matrix with the given rows, by Cramer's rule.

    Independent rows ``A`` (rank ``r``) and pivot columns ``P`` with :math:`\det A_P \neq 0`
    are chosen at a random point; for each other column ``j`` the kernel vector is
    :math:`v_j = \det A_P`, :math:`v_{P_k} = -\det A_P[k \leftarrow A_j]`, then denominators
    are cleared and the content removed.
    """
    span = _Span(n, ev)
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
        out.append(_primitive(v))
    return out


def _primitive(v: list[sp.Expr]) -> tuple:
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
    except _SYMPY_FAILURES:  # keep the exact, unsimplified vector
        return tuple(norm(e) for e in v)


# ---------------------------------------------------------------------------------------------
class _HybridMethod:
    """``Distribution.annihilator(forms)`` on the class, ``D.annihilator()`` on an instance."""

    def __init__(self, on_class, on_instance):
        self.on_class = on_class
        self.on_instance = on_instance
        self.__doc__ = (on_instance.__doc__ or "") + "\n" + (on_class.__doc__ or "")

    def __get__(self, obj, cls=None):
        if obj is None:
            return functools.partial(self.on_class, cls)
        return functools.partial(self.on_instance, obj)


class Distribution:
    r"""The distribution :math:`D = \operatorname{span}\{X_1, \dots, X_k\}` of vector fields.

    Parameters
    ----------
    fields : sequence of VectorField
        Generators, all on the same manifold (at least one).
    graph : BracketGraph, optional
        The bracket graph to use; default the shared graph :meth:`BracketGraph.of` of the
        manifold.
    names : sequence of str, optional
        Names of the generators in the graph (default ``X1, X2, ...``).

    Notes
    -----
    ``Distribution.annihilator(forms)`` builds the distribution :math:`\bigcap_j \ker\theta^j`
    of Pfaffian forms; ``D.annihilator()`` returns 1-forms spanning the annihilator of ``D``.

    Examples
    --------
    Heisenberg distribution: bracket generating with growth vector (2, 3).

    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> H = Distribution([M.vector_field([1, 0, -y/2]), M.vector_field([0, 1, x/2])])
    >>> H.growth_vector(), H.is_involutive()
    ((2, 3), False)
    >>> K = Distribution.annihilator([M.one_form([-y/2, x/2, -1])])
    >>> K.rank, all(H.contains(X) for X in K.fields)
    (2, True)
    """

    def __init__(self, fields: Sequence[VectorField], graph: BracketGraph | None = None,
                 names: Sequence[str] | None = None):
        if isinstance(fields, VectorField):
            fields = [fields]
        if isinstance(fields, (str, bytes)) or not isinstance(fields, Sequence):
            if not hasattr(fields, "__iter__"):
                raise TypeError("a distribution is built from a list of vector fields")
            fields = list(fields)
        fields = list(fields)
        if not fields:
            raise ValueError("a distribution needs at least one vector field (empty list given)")
        for i, X in enumerate(fields):
            if not isinstance(X, VectorField):
                raise TypeError(f"generator {i + 1} of the distribution is a "
                                f"{type(X).__name__}, not a VectorField")
        M = fields[0].manifold
        for i, X in enumerate(fields):
            if X.manifold is not M:
                same = " (two different charts with the same name)" \
                    if X.manifold.name == M.name else ""
                raise ValueError(f"generator {i + 1} lives on {X.manifold.name}, generator 1 "
                                 f"on {M.name}{same}: a distribution lives on one manifold")
        if graph is None:
            graph = BracketGraph.of(M)
        elif not isinstance(graph, BracketGraph):
            raise TypeError(f"graph must be a BracketGraph, got {type(graph).__name__}")
        elif graph.manifold is not M:
            raise ValueError(f"the bracket graph is for {graph.manifold.name}, the fields live "
                             f"on {M.name}")
        if names is not None:
            names = list(names)
            if len(names) != len(fields):
                raise ValueError(f"{len(names)} names given for {len(fields)} fields")
        keys = [graph.add(X, None if names is None else names[i]) for i, X in enumerate(fields)]
        self._init(M, graph, keys)

    def _init(self, M: Manifold, graph: BracketGraph, keys: list[str]) -> None:
        self._manifold = M
        self._graph = graph
        self._keys = list(dict.fromkeys(keys))
        self._fields = tuple(graph.value(k) for k in self._keys)
        self._ev = _Evaluator()
        self._cache: dict = {}

    @classmethod
    def _from_keys(cls, graph: BracketGraph, keys: Sequence[str], rank: int | None = None):
        D = cls.__new__(cls)
        D._init(graph.manifold, graph, list(keys))
        if rank is not None:
            D._cache["rank"] = rank
        return D

    # -- data ------------------------------------------------------------------------------
    @property
    def fields(self) -> tuple[VectorField, ...]:
        """The generators (duplicates removed)."""
        return self._fields

    @property
    def manifold(self) -> Manifold:
        return self._manifold

    @property
    def graph(self) -> BracketGraph:
        """The bracket graph holding the generators and every bracket computed for ``D``."""
        return self._graph

    @property
    def keys(self) -> list[str]:
        """Node keys of the generators in :attr:`graph`."""
        return list(self._keys)

    def matrix(self) -> sp.Matrix:
        """The ``dim x k`` matrix whose columns are the generators' components."""
        return _columns([X.components for X in self._fields], self._manifold.dim)

    def __repr__(self) -> str:
        return f"Distribution({self._manifold.name}, [{', '.join(self._keys)}])"

    def _latex(self, printer=None) -> str:
        """The span of the generators in LaTeX, each generator written out."""
        gens = ", ".join(X._latex() for X in self._fields)
        return rf"\operatorname{{span}}\left\{{{gens}\right\}}"

    def _repr_latex_(self) -> str:
        r"""Notebook display of the span of the generators.

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y z"); x, y, z = M.coords
        >>> D = Distribution([M.vector_field([1, 0, -y/2]), M.vector_field([0, 1, x/2])])
        >>> tex = D._repr_latex_()
        >>> tex.startswith(r"$\operatorname{span}\left\{\frac{\partial}{\partial x}")
        True
        """
        return "$" + self._latex() + "$"

    def __len__(self) -> int:
        return len(self._fields)

    def __eq__(self, other) -> bool:
        """Equal distributions: on the same chart, of the same rank, each generator of one a
        section of the other (the same span, whatever the generators)."""
        if not isinstance(other, Distribution):
            return NotImplemented
        if other is self:
            return True
        if other._manifold is not self._manifold or other.rank != self.rank:
            return False
        return all(self.contains(X) for X in other._fields)

    def __hash__(self) -> int:
        return hash(self._manifold)

    # -- rank ------------------------------------------------------------------------------
    def _span(self) -> _Span:
        sp_ = self._cache.get("span")
        if sp_ is None:
            n_uncertain = len(default_policy().uncertain)
            sp_ = _Span(self._manifold.dim, self._ev)
            und = []
            for k, X in zip(self._keys, self._fields):
                if sp_.offer(k, X.components) is None:
                    und.append((k, X.components))
            sp_.confirm(und)
            self._cache["span"] = sp_
            self._cache["span certain"] = len(default_policy().uncertain) == n_uncertain
        return sp_

    def basis(self) -> list[str]:
        """Keys of generators forming a generic (pointwise, off the singular locus) basis."""
        return list(self._span().keys)

    @property
    def rank(self) -> int:
        """Generic rank (exact: independence proved at a point, dependence confirmed)."""
        if "rank" not in self._cache:
            self._cache["rank"] = self._span().rank
        return self._cache["rank"]

    def _point(self, point: Mapping) -> dict:
        if not isinstance(point, Mapping):
            raise TypeError("a point is a mapping {coordinate: value}")
        names = self._manifold.names()
        rep = {}
        for k, v in point.items():
            if isinstance(k, str):
                if k not in names:
                    raise ValueError(f"{k!r} is not a coordinate or parameter of "
                                     f"{self._manifold.name}")
                k = names[k]
            rep[as_expr(k)] = self._manifold.sympify(v)
        return rep

    def rank_at(self, point: Mapping) -> int:
        """Rank of the generators at a point ``{coordinate: value}`` (exact values).

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> R = Distribution([M.vector_field([-y, x])])
        >>> R.rank_at({x: 1, y: 0}), R.rank_at({x: 0, y: 0})
        (1, 0)
        """
        rep = self._point(point)
        m = self.matrix().xreplace(rep)
        if any(e.has(sp.zoo, sp.nan, sp.oo, -sp.oo) for e in m):
            raise ValueError(f"the generators are not defined at {dict(point)}")
        return default_policy().rank_at(m, {})

    def singular_locus(self) -> list[sp.Expr]:
        r"""Equations ``e = 0`` (jointly) of the points where the rank drops below :attr:`rank`.

        The locus is the common zero set of the maximal (``rank x rank``) minors of
        :meth:`matrix`; each minor is reported by the square-free part of its numerator,
        minors divisible by another reported equation are dropped, and ``[]`` means the rank
        is constant wherever the generators are defined (also when the equations have no
        common zero, detected by a Groebner basis with :math:`\sin^2+\cos^2=1`).

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> Distribution([M.vector_field([-y, x])]).singular_locus()
        [x, y]
        """
        r = self.rank
        A = self.matrix()
        n, k = A.shape
        if r == 0:
            return []
        pol = default_policy()
        eqs: list[sp.Expr] = []
        for rows in itertools.combinations(range(n), r):
            for cols in itertools.combinations(range(k), r):
                minor = pol.normalize(A.extract(list(rows), list(cols)).det(method="berkowitz"))
                if minor == 0 or pol.is_zero(minor):
                    continue
                num = sp.fraction(sp.cancel(sp.together(minor)))[0]
                sf = _squarefree(num)
                if sf.is_number:
                    return []
                eqs.append(sf)
        eqs = _prune_equations(eqs)
        if _no_common_zero(eqs, self._manifold.coords):
            return []
        return eqs

    # -- Frobenius ---------------------------------------------------------------------------
    def frobenius(self) -> FrobeniusResult:
        """Frobenius test: is every ``[X_i, X_j]`` (i < j) in ``D``?  Reports the first word
        that is not.

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y z"); x, y, z = M.coords
        >>> Distribution([M.vector_field([1, 0, 0]), M.vector_field([0, 1, x])],
        ...              names=["A", "B"]).frobenius().offending
        '[A,B]'
        """
        if "frobenius" in self._cache:
            return self._cache["frobenius"]
        n_uncertain = len(default_policy().uncertain)
        span = self._span()
        G = self._graph
        words = [G.bracket_node(a, b) for a, b in itertools.combinations(self._keys, 2)]
        vals = G.evaluate(words) if words else {}
        offending = None
        und = []
        for w in words:
            comps = vals[w].components
            if all(c == 0 for c in comps) or span.rank >= span.n:
                continue
            ind, _ = span.independent_numerically(comps)
            if ind:
                offending = w
                break
            und.append((w, comps))
        if offending is None and und:
            full = _rank(_columns(span.vals + [c for _, c in und], span.n))
            if full > span.rank:
                for w, c in und:
                    if _rank(_columns(span.vals + [c], span.n)) > span.rank:
                        offending = w
                        break
        res = FrobeniusResult(
            involutive=offending is None, offending=offending,
            bracket=None if offending is None else G.value(offending),
            provenance=None if offending is None else G.provenance(offending), rank=span.rank,
            certain=len(default_policy().uncertain) == n_uncertain
            and self._cache.get("span certain", True))
        self._cache["frobenius"] = res
        return res

    def is_involutive(self) -> bool:
        """Whether ``[D, D] ⊂ D`` (Frobenius: integrable where the rank is constant)."""
        return self.frobenius().involutive

    # -- Lie flag ----------------------------------------------------------------------------
    def _flag(self, basis: str = "hall", executor: str = "serial",
              max_depth: int | None = None, flag: str = "lie") -> list[tuple[list[str], int]]:
        if flag not in ("lie", "derived"):
            raise ValueError(f"unknown flag {flag!r}; choose 'lie' (D^(j+1) = D^j + [D, D^j]) "
                             f"or 'derived' (D^(j+1) = D^j + [D^j, D^j])")
        ck = ("flag", basis, max_depth, flag)
        if ck in self._cache:
            return self._cache[ck]
        G = self._graph
        n = self._manifold.dim
        n_uncertain = len(default_policy().uncertain)
        span = _Span(n, self._ev)
        und = []
        for k, X in zip(self._keys, self._fields):
            if span.offer(k, X.components) is None:
                und.append((k, X.components))
        span.confirm(und)
        stages = [(list(span.keys), span.rank)]
        seen = set(self._keys)
        length = dict.fromkeys(self._keys, 1)   # word lengths (derived flag)
        depth = 1
        while span.rank < n and (max_depth is None or depth < max_depth):
            if flag == "lie":   # words of length j+1
                depth += 1
                new = [w for w in G.words(self._keys, depth, basis=basis) if w not in seen]
            else:               # [D^(j), D^(j)]: brackets of pairs of the current basis
                new = _pair_brackets(G, span.keys, length, max_depth, seen)
                depth = max(length.values())
            seen.update(new)
            vals = G.evaluate(new, executor=executor)
            und = []
            for w in new:
                comps = vals[w].components
                if span.offer(w, comps) is None:
                    und.append((w, comps))
            span.confirm(und)
            if span.rank == stages[-1][1]:
                break
            stages.append((list(span.keys), span.rank))
        self._cache[ck] = stages
        self._cache[("flag certain", basis, max_depth, flag)] = \
            len(default_policy().uncertain) == n_uncertain
        self._cache.setdefault("rank", stages[0][1])
        return stages

    def derived_flag(self, basis: str = "hall", executor: str = "serial",
                     max_depth: int | None = None, flag: str = "lie") -> list[Distribution]:
        r"""The Lie flag :math:`D^1 \subset D^2 \subset \dots`, :math:`D^{j+1} = D^j+[D^1,D^j]`.

        Each member is a :class:`Distribution` spanned by a generic basis of bracket words
        (its :attr:`keys` are the words, e.g. ``"[tau1,tau2]"``); the flag stops when the rank
        stabilises or reaches the dimension.  ``basis="hall"`` (default) or ``"lyndon"``
        forms only basis words of the free Lie algebra; ``"right-normed"`` forms every
        ``[X_i,[X_j,...]]`` (same flag, more work).  ``flag="derived"`` computes
        :math:`D^{(j+1)} = D^{(j)} + [D^{(j)}, D^{(j)}]` instead (brackets of pairs of a
        basis of :math:`D^{(j)}`).  ``max_depth`` bounds the word length.
        """
        return [Distribution._from_keys(self._graph, keys, r)
                for keys, r in self._flag(basis, executor, max_depth, flag)]

    def growth_vector(self, basis: str = "hall", executor: str = "serial",
                      max_depth: int | None = None, flag: str = "lie") -> tuple[int, ...]:
        """Ranks of the Lie flag, ``(rank D^1, rank D^2, ...)``, stopping when stable.

        An involutive distribution has growth vector ``(rank,)``; ``D`` is bracket
        generating iff the last entry is the dimension.
        """
        n_uncertain = len(default_policy().uncertain)
        ranks = tuple(r for _, r in self._flag(basis, executor, max_depth, flag))
        certain = len(default_policy().uncertain) == n_uncertain and \
            self._cache.get(("flag certain", basis, max_depth, flag), True)
        return GrowthVector(ranks, certain)

    def new_directions(self, basis: str = "hall") -> list[tuple[str, str]]:
        """The directions each step of the Lie flag adds, with their provenance.

        Returns ``(word, explanation)`` pairs, e.g. ``("[tau1,tau2]", "step 2: ... where
        tau1 = ..., tau2 = ...")``, for the basis words of ``D^j`` not in ``D^{j-1}``.

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y z"); x, y, z = M.coords
        >>> H = Distribution([M.vector_field([1, 0, -y/2]), M.vector_field([0, 1, x/2])],
        ...                  names=["A", "B"])
        >>> H.new_directions()
        [('[A,B]', 'step 2: d/dz; [A,B] where A = d/dx + (-y/2)*d/dz, B = d/dy + (x/2)*d/dz')]
        """
        out = []
        stages = self._flag(basis)
        for j in range(1, len(stages)):
            prev = set(stages[j - 1][0])
            for w in stages[j][0]:
                if w not in prev:
                    out.append((w, f"step {j + 1}: {self._graph.value(w)}; "
                                   f"{self._graph.provenance(w)}"))
        return out

    def is_bracket_generating(self) -> bool:
        """Whether the Lie flag reaches the whole tangent space (Chow–Rashevskii)."""
        return self.growth_vector()[-1] == self._manifold.dim

    # -- membership, invariance ----------------------------------------------------------
    def _in_span(self, comps: tuple) -> bool:
        span = self._span()
        if all(c == 0 for c in comps):
            return True
        if span.rank >= span.n:
            return True
        ind, _ = span.independent_numerically(comps)
        if ind:
            return False
        return _rank(_columns(span.vals + [comps], span.n)) == span.rank

    def contains(self, X: VectorField) -> bool:
        """Whether the field ``X`` is (generically) a section of ``D``."""
        if not isinstance(X, VectorField):
            raise TypeError(f"contains() needs a VectorField, got {type(X).__name__}")
        if X.manifold is not self._manifold:
            raise ValueError(f"the field lives on {X.manifold.name}, the distribution on "
                             f"{self._manifold.name}")
        return self._in_span(X.components)

    def is_invariant_under(self, v: VectorField) -> bool:
        """Whether ``[v, X_i] ∈ D`` for every generator (``L_v D ⊂ D``,
        Borisov & Mamaev (2015), Prop. 1).

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> D = Distribution([M.vector_field([x, y])])          # radial lines
        >>> D.is_invariant_under(M.vector_field([-y, x])), D.is_invariant_under(
        ...     M.vector_field([x**2, 0]))
        (True, False)
        """
        if not isinstance(v, VectorField):
            raise TypeError(f"is_invariant_under() needs a VectorField, got "
                            f"{type(v).__name__}")
        if v.manifold is not self._manifold:
            raise ValueError(f"the field lives on {v.manifold.name}, the distribution on "
                             f"{self._manifold.name}")
        kv = self._graph.add(v)
        words = [self._graph.bracket_node(kv, k) for k in self._keys]
        vals = self._graph.evaluate(words)
        return all(self._in_span(vals[w].components) for w in words)

    # -- annihilators --------------------------------------------------------------------
    def _annihilator_forms(self) -> list[DifferentialForm]:
        """1-forms spanning the annihilator :math:`D^\\perp` (kernel of the frame matrix)."""
        if "annihilator" not in self._cache:
            span = self._span()
            ker = _kernel(span.vals, self._manifold.dim, self._ev)
            self._cache["annihilator"] = [self._manifold.one_form(list(v)) for v in ker]
        return list(self._cache["annihilator"])

    @classmethod
    def _from_forms(cls, forms: Sequence[DifferentialForm], graph: BracketGraph | None = None,
                    names: Sequence[str] | None = None) -> Distribution:
        """The distribution :math:`\\bigcap_j\\ker\\theta^j` of Pfaffian 1-forms."""
        if isinstance(forms, DifferentialForm):
            forms = [forms]
        forms = list(forms)
        if not forms:
            raise ValueError("Distribution.annihilator needs at least one 1-form (empty list)")
        for i, w in enumerate(forms):
            if not isinstance(w, DifferentialForm):
                raise TypeError(f"form {i + 1} is a {type(w).__name__}, not a DifferentialForm")
            if w.degree != 1:
                raise ValueError(f"form {i + 1} has degree {w.degree}; Pfaffian constraints "
                                 f"are 1-forms")
        M = forms[0].manifold
        for i, w in enumerate(forms):
            if w.manifold is not M:
                raise ValueError(f"form {i + 1} lives on {w.manifold.name}, form 1 on "
                                 f"{M.name}")
        ker = _kernel([tuple(w.as_list()) for w in forms], M.dim, _Evaluator())
        if not ker:
            raise ValueError("the forms span the whole cotangent space: their kernel is 0")
        return cls([M.vector_field(list(v)) for v in ker], graph=graph, names=names)

    annihilator = _HybridMethod(_from_forms.__func__, _annihilator_forms)

    # -- first integrals -------------------------------------------------------------------
    def first_integrals(self, max_degree: int = 4, trig=None, complete: bool = True,
                        candidates: Sequence = ()) -> list[sp.Expr]:
        r"""Functionally independent functions :math:`f` with :math:`X_i(f) = 0` for all i.

        There are ``dim - r`` of them near a regular point, ``r`` the final rank of the Lie
        flag (``r = rank`` for an involutive ``D``).  They are searched by

        0. user-supplied ``candidates`` (verified like every other result);
        1. coordinates on which no generator acts;
        2. an ansatz: polynomials of degree ``<= max_degree`` in the coordinates and in
           :math:`\sin s, \cos s` for the angles ``s`` (``trig``; default the coordinates
           appearing inside ``sin``/``cos`` in the generators, then, if that is not enough,
           also the coordinates some generator translates at constant speed), solved
           exactly as a linear system for the coefficients modulo :math:`\sin^2+\cos^2=1`;
        3. characteristics of a generator acting on two coordinates only
           (``dsolve`` of :math:`dy/dx = X^y/X^x`).

        Every returned integral is verified exactly (:math:`X_i(f)=0` by the zero policy)
        and the set is checked to be functionally independent (Jacobian rank).

        Raises
        ------
        NotFoundError
            (a ``ValueError``) when fewer than ``dim - r`` integrals were found and
            ``complete`` is true; ``.partial`` holds the verified ones.

        Examples
        --------
        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y z"); x, y, z = M.coords
        >>> Distribution([M.vector_field([-y, x, 0])]).first_integrals()
        [z, x**2 + y**2]
        """
        candidates = tuple(candidates)
        ck = ("integrals", max_degree, None if trig is None else tuple(trig), candidates)
        if ck not in self._cache:
            expected = self._manifold.dim - self.growth_vector()[-1]
            self._cache[ck] = _find_first_integrals(self, expected, max_degree, trig,
                                                    candidates)
        found, expected = self._cache[ck]
        if len(found) < expected and complete:
            raise NotFoundError(
                f"found {len(found)} of the {expected} independent first integrals of "
                f"{self!r} (polynomial/trigonometric ansatz up to degree {max_degree} and "
                f"characteristics); pass complete=False to get the verified partial list",
                found, expected)
        return list(found)


def _squarefree(num: sp.Expr) -> sp.Expr:
    try:
        _, facs = sp.factor_list(num)
        out = sp.Mul(*[f for f, _ in facs if not f.is_number])
        return sp.expand(out) if facs else sp.S.One
    except _SYMPY_FAILURES:  # cannot factor: report the numerator as it is
        return num


def _prune_equations(eqs: list[sp.Expr]) -> list[sp.Expr]:
    """Remove duplicates (up to sign) and equations divisible by another one."""
    uniq: list[sp.Expr] = []
    for e in sorted(eqs, key=lambda e: (sp.count_ops(e), sp.default_sort_key(e))):
        if any(sp.expand(e - u) == 0 or sp.expand(e + u) == 0 for u in uniq):
            continue
        uniq.append(e)
    out = []
    for e in uniq:
        redundant = False
        for u in uniq:
            if u is e:
                continue
            try:
                q, rem = sp.div(e, u, *sorted(e.free_symbols | u.free_symbols,
                                               key=sp.default_sort_key))
                if rem == 0 and sp.count_ops(u) < sp.count_ops(e):
                    redundant = True
                    break
            except _SYMPY_FAILURES:  # not polynomials in these generators: keep both
                continue
        if not redundant:
            out.append(e)
    return out


def _no_common_zero(eqs: list[sp.Expr], coords) -> bool:
    """Groebner-basis test that the equations (with sin^2+cos^2=1) have no common zero."""
    if not eqs or len(eqs) > 40:
        return False
    try:
        rep, rel, gens = {}, [], []
        for e in eqs:
            for t in e.atoms(sp.sin, sp.cos):
                s = t.args[0]
                if not s.is_Symbol:
                    return False
                if (sp.sin, s) not in rep:
                    S, C = sp.Dummy(f"S_{s}"), sp.Dummy(f"C_{s}")
                    rep[(sp.sin, s)], rep[(sp.cos, s)] = S, C
                    rel.append(S**2 + C**2 - 1)
                    gens += [S, C]
        sub = {t: rep[(t.func, t.args[0])] for e in eqs for t in e.atoms(sp.sin, sp.cos)}
        polys = [e.xreplace(sub) for e in eqs] + rel
        allgens = sorted(set().union(*(p.free_symbols for p in polys)) & (set(coords) | set(gens)),
                         key=sp.default_sort_key)
        if any(p.atoms(sp.Function) for p in polys) or len(allgens) > 10:
            return False
        gb = sp.groebner(polys, *allgens, order="grevlex")
        return list(gb.exprs) == [1]
    except _SYMPY_FAILURES:  # no Groebner basis: the locus is not known to be empty
        return False


# ---------------------------------------------------------------------------------------------
# first integrals
# ---------------------------------------------------------------------------------------------
def _find_first_integrals(D: Distribution, expected: int, max_degree: int,
                          trig, candidates=()) -> tuple[list[sp.Expr], int]:
    """Search, verify and select independent integrals; returns (found, expected)."""
    M = D.manifold
    coords = M.coords
    n = M.dim
    if not isinstance(max_degree, int) or max_degree < 1:
        raise ValueError(f"max_degree must be a positive integer, got {max_degree!r}")
    retry_angles: list = []
    if trig is None:
        trig = [c for c in coords
                if any(t.args[0].has(c) for X in D.fields for comp in X.components
                       for t in comp.atoms(sp.sin, sp.cos, sp.tan))]
        # coordinates translated at constant speed by a generator on which no component
        # depends (angles of a rotation, e.g. -y d/dx + x d/dy + d/dphi): second pass
        for j, c in enumerate(coords):
            if c in trig:
                continue
            if any(X.components[j].is_number and X.components[j] != 0 for X in D.fields) \
                    and not any(comp.has(c) for X in D.fields for comp in X.components):
                retry_angles.append(c)
    else:
        trig = [c if isinstance(c, sp.Symbol) else coords[M.index(c)] for c in trig]
        for c in trig:
            if c not in coords:
                raise ValueError(f"{c} is not a coordinate of {M.name}")
    found: list[sp.Expr] = []
    if expected <= 0:
        return found, expected
    pol = default_policy()
    grad = _Span(n, _Evaluator(seed=104729))

    def accept(f: sp.Expr) -> bool:
        budget.check()
        f = pol.normalize(f)
        if f.is_number or not (f.free_symbols & set(coords)):
            return False
        g = tuple(pol.normalize(sp.diff(f, c)) for c in coords)
        ind, vecs = grad.independent_numerically(g)
        if not ind:
            if any(v is not None and ok for v, ok in zip(vecs, grad.ok)):
                return False
            # not evaluable exactly at rational points (exp, sqrt, ...): exact rank
            if _rank(_columns(grad.vals + [g], n)) <= grad.rank:
                return False
        for X in D.fields:  # exact verification X_i(f) = 0
            v = pol.zero_test(X(f))
            if not (v.zero and v.certain):
                return False
        grad._push(str(len(found)), g, vecs)
        if not ind:
            grad.ok = [False] * len(grad.ok)
        found.append(f)
        return True

    # 0. user candidates, 1. coordinates on which no generator acts
    for f in candidates:
        if len(found) < expected:
            accept(M.sympify(f))
    for j, c in enumerate(coords):
        if len(found) < expected and all(X.components[j] == 0 for X in D.fields):
            accept(c)
    # 2. polynomial / trigonometric ansatz, degree by degree (low degrees first),
    # 3. characteristics of pairs of coordinates, 4. the ansatz at higher degrees
    ansatze = []
    for angles in ([trig, trig + retry_angles] if retry_angles else [trig]):
        try:
            ansatze.append(_Ansatz(D.fields, coords, angles))
        except ValueError:
            continue

    def run_ansatz(degrees) -> None:
        for ans in ansatze:
            for d in degrees:
                if len(found) >= expected:
                    return
                for f in ans.solutions(d):
                    if len(found) >= expected:
                        return
                    accept(f)

    run_ansatz(range(1, min(2, max_degree) + 1))
    if len(found) < expected:
        for f in _characteristic_integrals(D, coords):
            if len(found) >= expected:
                break
            accept(f)
    run_ansatz(range(3, max_degree + 1))
    return found, expected


class _Ansatz:
    """Linear system for the coefficients of a polynomial integral in coordinates and
    ``sin``/``cos`` of angles, reduced modulo ``sin^2 + cos^2 = 1``.

    Works in a sparse polynomial ring over ``QQ`` (or the rational functions of the
    parameters): an integral ``f = sum_m c_m m`` satisfies ``sum_j N^j D_j(f) = 0`` for each
    generator, ``N^j`` its components over a common denominator and ``D_j`` the derivation
    along coordinate ``j`` (chain rule ``D_s S = C``, ``D_s C = -S`` for an angle ``s``).
    """

    def __init__(self, fields, coords, trig):
        from sympy.polys.rings import ring

        self.coords = list(coords)
        self.S = {c: sp.Dummy(f"S_{c}") for c in trig}
        self.C = {c: sp.Dummy(f"C_{c}") for c in trig}
        sub = {}
        comps = []
        for X in fields:
            row = []
            for e in X.components:
                if e.atoms(sp.sin, sp.cos, sp.tan):
                    e = sp.expand_trig(e)
                for t in e.atoms(sp.sin, sp.cos, sp.tan):
                    s = t.args[0]
                    if s not in self.S:
                        raise ValueError("trigonometric function of a non-angle")
                    S, C = self.S[s], self.C[s]
                    sub[t] = {sp.sin: S, sp.cos: C, sp.tan: S / C}[t.func]
                row.append(e.xreplace(sub))
            comps.append(row)
        trig_gens = [g for c in trig for g in (self.S[c], self.C[c])]
        remaining = set().union(*(e.free_symbols for row in comps for e in row))
        self.poly_coords = [c for c in coords if c not in self.S or c in remaining]
        self.gens = self.poly_coords + trig_gens
        for row in comps:
            for e in row:
                if any(a.has(*coords) for a in e.atoms(sp.Function)):
                    raise ValueError("non-polynomial function of the coordinates")
        params = sorted(remaining - set(self.gens), key=sp.default_sort_key)
        dom = sp.QQ.frac_field(*params) if params else sp.QQ
        self.R, *_ = ring(self.gens, dom)
        self.dom = dom
        # numerators of the fields over a common denominator (per field)
        self.fields = []
        try:
            for row in comps:
                fr = [sp.fraction(sp.cancel(sp.together(e))) for e in row]
                den = sp.lcm_list([d for _, d in fr])
                nums = [sp.expand(nm * sp.cancel(den / d)) for nm, d in fr]
                self.fields.append([self.R.from_expr(e) for e in nums])
        except _SYMPY_FAILURES as exc:  # not polynomial in the chosen generators
            raise ValueError("components are not rational in the ansatz generators") from exc
        self.gidx = {g: i for i, g in enumerate(self.gens)}
        self.pairs = [(self.gidx[self.S[c]], self.gidx[self.C[c]]) for c in self.S]
        self.der = []  # per coordinate: list of (generator index, factor ring element or 1)
        for c in self.coords:
            terms = []
            if c in self.poly_coords:
                terms.append((self.gidx[c], None))
            if c in self.S:
                si, ci = self.gidx[self.S[c]], self.gidx[self.C[c]]
                terms.append((si, self.R.gens[ci]))
                terms.append((ci, -self.R.gens[si]))
            self.der.append(terms)
        self._cols: dict = {}
        self._monos: list = []
        self._degree = 0

    def _derive(self, m, j):
        acc = self.R.zero
        for gi, factor in self.der[j]:
            d = m.diff(self.R.gens[gi])
            acc += d if factor is None else factor * d
        return acc

    def _reduce(self, p) -> dict:
        """Terms of ``p`` with every ``C^2`` replaced by ``1 - S^2``."""
        acc: dict = {}
        todo = list(p.items())
        while todo:
            mon, co = todo.pop()
            for si, ci in self.pairs:
                if mon[ci] >= 2:
                    m1 = list(mon)
                    m1[ci] -= 2
                    m2 = list(m1)
                    m2[si] += 2
                    todo.append((tuple(m1), co))
                    todo.append((tuple(m2), -co))
                    break
            else:
                acc[mon] = acc.get(mon, self.dom.zero) + co
        return {k: v for k, v in acc.items() if v}

    def _monomials(self, d: int) -> list[tuple]:
        ng = len(self.gens)
        cidx = {ci for _, ci in self.pairs}
        out = []

        def rec(prefix, left):
            if len(prefix) == ng - 1:
                last = left
                full = prefix + [last]
                if not any(full[i] > 1 for i in cidx):
                    out.append(tuple(full))
                return
            for e in range(left, -1, -1):
                rec(prefix + [e], left - e)

        if ng:
            rec([], d)
        return out

    def _column(self, mon: tuple) -> dict:
        col = self._cols.get(mon)
        if col is None:
            budget.check()
            m = self.R({mon: self.dom.one})
            ders = [self._derive(m, j) for j in range(len(self.coords))]
            col = {}
            for fi, N in enumerate(self.fields):
                acc = self.R.zero
                for Nj, dj in zip(N, ders):
                    if Nj and dj:
                        acc += Nj * dj
                for k, v in self._reduce(acc).items():
                    col[(fi, k)] = v
            self._cols[mon] = col
        return col

    def solutions(self, d: int) -> list[sp.Expr]:
        """Basis (sorted by degree and size) of the integrals of degree <= d, no constants."""
        while self._degree < d:
            self._degree += 1
            self._monos += self._monomials(self._degree)
        monos = self._monos
        if not monos:
            return []
        cols = [self._column(m) for m in monos]
        rows = sorted(set().union(*[c.keys() for c in cols]))
        fld = self.dom.get_field() if hasattr(self.dom, "get_field") else self.dom
        if not rows:
            vecs = [[fld.one if i == j else fld.zero for i in range(len(monos))]
                    for j in range(len(monos))]
        else:
            ridx = {r: i for i, r in enumerate(rows)}
            mat = [[fld.zero] * len(monos) for _ in rows]
            for j, c in enumerate(cols):
                for r, v in c.items():
                    mat[ridx[r]][j] = fld.convert(v)
            ns = DomainMatrix(mat, (len(rows), len(monos)), fld).nullspace()
            vecs = [list(ns.to_Matrix().row(i)) for i in range(ns.shape[0])]
            vecs = [[fld.from_sympy(v) for v in row] for row in vecs]
        back = {**{self.S[c]: sp.sin(c) for c in self.S},
                **{self.C[c]: sp.cos(c) for c in self.C}}
        out = []
        for v in vecs:
            terms = {mon: co for mon, co in zip(monos, v) if co}
            if not terms:
                continue
            deg = max(sum(mon) for mon in terms)
            poly = self.R(terms)
            f = sp.expand(sp.together(poly.as_expr()).as_numer_denom()[0]).xreplace(back)
            out.append((deg, len(terms), f))
        out.sort(key=lambda t: (t[0], t[1], sp.default_sort_key(t[2])))
        return [_content_free(f) for _, _, f in out]


def _content_free(f: sp.Expr) -> sp.Expr:
    """Divide out the numeric content and make the first printed term positive."""
    try:
        c, p = sp.factor_terms(f).as_coeff_Mul()
        f = sp.expand(p) if c.is_number and c != 0 else f
        lead = (f.as_ordered_terms()[0] if f.is_Add else f).as_coeff_Mul()[0]
        return sp.expand(-f) if lead.is_number and lead < 0 else f
    except (*_SYMPY_FAILURES, TypeError):  # (TypeError: sign of a non-real number)
        return f


def _characteristic_integrals(D: Distribution, coords) -> list[sp.Expr]:
    """Integrals from ``dsolve`` of :math:`dx_j/dx_i = X^j/X^i` for every generator and every
    pair of active coordinates whose ratio depends on ``x_i``, ``x_j`` and on coordinates
    the generator does not move (constants along its flow) only."""
    out = []
    params = set(D.manifold.parameters)
    for X in D.fields:
        active = [j for j, c in enumerate(X.components) if c != 0]
        moved = {coords[j] for j in active}
        for a, b in itertools.combinations(active, 2):
            budget.check()
            sols = None
            for i, j in ((a, b), (b, a)):
                xi, xj = coords[i], coords[j]
                ratio = sp.cancel(X.components[j] / X.components[i])
                if (ratio.free_symbols & moved) - {xi, xj} or sp.count_ops(ratio) > 40:
                    continue
                t = sp.Dummy("t")
                yf = sp.Function("y")
                rhs = ratio.xreplace({xj: yf(t), xi: t})
                sols = _solve_first_order(sp.Eq(yf(t).diff(t), rhs), yf(t))
                if sols is not None:
                    break
            if sols is None:
                continue
            for sol in sols if isinstance(sols, list) else [sols]:
                consts = sorted(sol.free_symbols - set(coords) - {t} - params,
                                key=sp.default_sort_key)
                if len(consts) != 1:
                    continue
                try:
                    expr = sp.solve(sol.subs(yf(t), xj).subs(t, xi), consts[0], dict=True)
                except _SYMPY_FAILURES:  # solve cannot isolate the constant
                    continue
                out.extend(e[consts[0]] for e in expr)
    return out


# elementary first-order methods only: sympy's Lie-group and power-series heuristics can run
# for minutes on random right-hand sides
_SAFE_HINTS = ("1st_linear", "Bernoulli", "separable", "1st_exact", "almost_linear",
               "1st_homogeneous_coeff_best", "linear_coefficients", "separable_reduced")


# what classify_ode / dsolve raise on equations their methods do not handle
_ODE_FAILURES = (*_SYMPY_FAILURES, TypeError)


def _dsolve_task(eq, y):
    """The first elementary method that solves ``eq`` (run in the worker), or ``None``."""
    try:
        hints = sp.classify_ode(eq, y)
    except _ODE_FAILURES:  # classification failed
        return None
    for h in _SAFE_HINTS:
        if h in hints:
            try:
                return sp.dsolve(eq, y, hint=h, simplify=False)
            except _ODE_FAILURES:  # next method
                continue
    return None


def _dsolve_serve() -> None:
    """Body of the worker process: answer pickled ``(eq, y)`` requests on stdin with pickled
    ``("ok", solution)`` / ``("error", message)`` on stdout, after a ``"ready"`` greeting."""
    import pickle
    import sys

    inp, out = sys.stdin.buffer, sys.stdout.buffer
    pickle.dump("ready", out)
    out.flush()
    while True:
        try:
            eq, y = pickle.load(inp)
        except EOFError:
            return
        try:
            reply = ("ok", _dsolve_task(eq, y))
        except Exception as exc:  # noqa: BLE001 - forwarded: the parent re-raises it
            reply = ("error", exc)
        try:
            data = pickle.dumps(reply)
        except (pickle.PicklingError, TypeError, AttributeError):  # an unpicklable exception
            data = pickle.dumps(("error", RuntimeError(f"{type(reply[1]).__name__}: "
                                                       f"{reply[1]}")))
        out.write(data)
        out.flush()


class _DsolveWorker:
    """One worker process for ``dsolve`` with a hard timeout, shared by all threads.

    The worker is a fresh interpreter (``python -c``) that imports this module and serves
    requests over pipes, so it does not depend on how the calling program was started.  A
    call that overruns its time is abandoned by killing the worker (a new one starts on the
    next call): no signal and no stuck thread.  Where no worker can be started (no
    subprocesses allowed, or it fails to start) the call runs in-process, without the limit,
    so the results do not depend on the environment.
    """

    _STARTUP = 120.0  # seconds allowed for the worker's imports (not part of any limit)

    def __init__(self):
        self._lock = threading.Lock()
        self._proc = None
        self._reader = None
        self._broken = False

    def _start(self) -> None:
        import os
        import queue
        import subprocess
        import sys

        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
        proc = subprocess.Popen(
            [sys.executable, "-c", f"from {__name__} import _dsolve_serve; _dsolve_serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        replies: queue.Queue = queue.Queue()

        def read():
            import pickle
            while True:
                try:
                    replies.put(pickle.load(proc.stdout))
                except (EOFError, OSError, pickle.UnpicklingError, ValueError):
                    replies.put(None)  # the worker is gone
                    return

        threading.Thread(target=read, daemon=True, name="geomech-dsolve-reader").start()
        self._proc, self._reader = proc, replies
        if self._get(self._STARTUP) != "ready":
            raise OSError("the dsolve worker did not start")

    def _get(self, seconds: float):
        import queue
        try:
            return self._reader.get(timeout=seconds)
        except queue.Empty:
            return TimeoutError

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = self._reader = None

    def close(self) -> None:
        """Stop the worker (also at interpreter exit)."""
        with self._lock:
            self._kill()

    def solve(self, eq, y, seconds: float):
        import pickle
        with self._lock:
            if not self._broken and self._proc is None:
                try:
                    self._start()
                except OSError:  # no subprocesses here, or the worker cannot import us
                    self._kill()
                    self._broken = True
            if self._broken:
                return _dsolve_task(eq, y)
            try:
                pickle.dump((eq, y), self._proc.stdin)
                self._proc.stdin.flush()
            except (OSError, pickle.PicklingError):  # worker died: solve here
                self._kill()
                return _dsolve_task(eq, y)
            reply = self._get(seconds)
            if reply is TimeoutError:
                self._kill()
                return None
            if reply is None:  # the worker crashed on this input
                self._kill()
                return None
            if reply[0] == "error":  # an unexpected failure of dsolve: not hidden
                raise reply[1]
            return reply[1]


_DSOLVE = _DsolveWorker()
atexit.register(_DSOLVE.close)


def _solve_first_order(eq, y, seconds: float = 4.0):
    """General solution(s) of a first-order ODE by an elementary method, or ``None``.

    ``dsolve`` runs in a worker process with a hard limit of ``seconds`` (cut to what is
    left of an enclosing :func:`geomech.core.budget.time_limit`); past it, no solution.
    """
    budget.check()
    left = budget.remaining()
    if left is not None:
        seconds = max(0.0, min(seconds, left))
    sol = _DSOLVE.solve(eq, y, seconds)
    budget.check()
    return sol
