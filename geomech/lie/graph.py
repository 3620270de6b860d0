r"""The bracket graph: one memoised dependency graph of Lie-bracket calculations per manifold.

Every Lie bracket the library needs is a node of a :class:`BracketGraph`.  Generator fields are
leaves; a bracket word ``[a,b]`` is a node with an edge from each operand to it.  Values are
computed lazily, once, with the bracket convention of the library

.. math:: [X,Y]^i = X^j\,\partial_j Y^i - Y^j\,\partial_j X^i ,

normalised by the zero policy (:mod:`geomech.core.zero`) and memoised by the *content* of the
operands, so a bracket asked twice -- under any names -- is computed once, and ``[b,a]`` is
answered as ``-[a,b]`` without a new computation.

Words for derived flags are generated in a Hall basis (or a Lyndon basis) of the free Lie
algebra, so brackets that are redundant by antisymmetry and the Jacobi identity are never
formed.  Evaluation of many nodes can run serially, in a process pool, or on Dask, with
identical results.

Examples
--------
>>> import sympy as sp
>>> from geomech.core.manifold import Manifold
>>> N = Manifold("N", "x y phi"); x, y, phi = N.coords
>>> G = BracketGraph(N)
>>> t1 = G.add(N.vector_field([sp.cos(phi), sp.sin(phi), 0]), name="tau1")
>>> t2 = G.add(N.vector_field([0, 0, 1]), name="tau2")
>>> G.bracket(t1, t2)                      # = -a, with a = -sin(phi) d/dx + cos(phi) d/dy
VectorField(N, [sin(phi), -cos(phi), 0])
>>> G.bracket(t2, t1) == -G.bracket(t1, t2)
True
>>> G.stats["computed"], G.stats["reused"]
(1, 1)
>>> G.words([t1, t2], 3)
['tau1', 'tau2', '[tau1,tau2]', '[tau1,[tau1,tau2]]', '[tau2,[tau1,tau2]]']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import networkx as nx
import sympy as sp

from ..core.fields import VectorField
from ..core.manifold import Manifold

__all__ = ["BracketGraph", "hall_words", "lyndon_words", "right_normed_words"]

_GRAPH_ATTR = "_geomech_bracket_graph"
_FORBIDDEN = set("[], \t\n")


def _bracket_task(X: Sequence[sp.Expr], Y: Sequence[sp.Expr],
                  coords: Sequence[sp.Symbol]) -> tuple[sp.Expr, ...]:
    """Worker function (module level so that it pickles): components of ``[X, Y]``.

    The fields are rebuilt on a throw-away chart with the same coordinate symbols and
    bracketed by :meth:`VectorField.bracket`, exactly as in the serial path.
    """
    W = Manifold("_worker", tuple(coords))
    return VectorField(W, X).bracket(VectorField(W, Y)).components


class _GraphSlot:
    """Holder of the per-manifold graph; pickles empty so that a chart stays picklable."""

    __slots__ = ("graph",)

    def __init__(self, graph=None):
        self.graph = graph

    def __reduce__(self):
        return (_GraphSlot, ())


# ---------------------------------------------------------------------------------------------
# words of the free Lie algebra (as nested tuples of generator indices)
# ---------------------------------------------------------------------------------------------
def _length(w) -> int:
    return 1 if isinstance(w, int) else _length(w[0]) + _length(w[1])


def hall_words(ngens: int, depth: int) -> list:
    r"""Hall basis of the free Lie algebra on ``ngens`` generators, words of length ``<= depth``.

    Words are nested pairs of generator indices.  The basis is Marshall Hall's, written with
    the operands mirrored so that words read ``[x1,[x1,x2]]``: with a total order compatible
    with the length, ``[u, v]`` is a Hall word iff ``u`` and ``v`` are Hall words, ``u < v``,
    and ``v`` is a generator or ``v = [x, y]`` with ``x <= u``.  The number of words of length
    ``k`` is Witt's :math:`\frac1k\sum_{d|k}\mu(d)\,m^{k/d}`.

    >>> hall_words(2, 3)
    [0, 1, (0, 1), (0, (0, 1)), (1, (0, 1))]
    >>> [len([w for w in hall_words(3, 4) if _length(w) == k]) for k in (1, 2, 3, 4)]
    [3, 3, 8, 18]
    """
    if ngens < 0 or depth < 0:
        raise ValueError("ngens and depth must be non-negative")
    by_len: dict[int, list] = {1: list(range(ngens))} if depth >= 1 else {}
    order: dict = {g: i for i, g in enumerate(range(ngens))}
    for n in range(2, depth + 1):
        new = []
        for lu in range(1, n):
            lv = n - lu
            for u in by_len.get(lu, []):
                for v in by_len.get(lv, []):
                    if not order[u] < order[v]:
                        continue
                    if not isinstance(v, int) and not order[v[0]] <= order[u]:
                        continue
                    new.append((u, v))
        by_len[n] = new
        for w in new:
            order[w] = len(order)
    return [w for n in range(1, depth + 1) for w in by_len.get(n, [])]


def lyndon_words(ngens: int, depth: int) -> list:
    """Lyndon basis: standard bracketing of the Lyndon words of length ``<= depth``.

    >>> lyndon_words(2, 3)
    [0, 1, (0, 1), (0, (0, 1)), ((0, 1), 1)]
    """
    if ngens < 0 or depth < 0:
        raise ValueError("ngens and depth must be non-negative")
    # Duval's algorithm generates Lyndon words in lexicographic order
    words: list[tuple[int, ...]] = []
    if ngens and depth:
        w = [-1]
        while w:
            w[-1] += 1
            words.append(tuple(w))
            m = len(w)
            while len(w) < depth:
                w.append(w[len(w) - m])
            while w and w[-1] == ngens - 1:
                w.pop()
    lyndon = set(words)

    def std(word: tuple[int, ...]):
        if len(word) == 1:
            return word[0]
        for i in range(1, len(word)):  # longest proper Lyndon suffix
            if word[i:] in lyndon:
                return (std(word[:i]), std(word[i:]))
        raise AssertionError("not a Lyndon word")  # pragma: no cover

    words.sort(key=lambda t: (len(t), t))
    return [std(t) for t in words]


def right_normed_words(ngens: int, depth: int) -> list:
    """All right-normed words ``[x_i1,[x_i2,[...,x_ik]]]`` of length ``<= depth`` (no pruning).

    These span the Lie flag literally, ``D^{k+1} = D^k + [D^1, D^k]``.

    >>> right_normed_words(2, 2)
    [0, 1, (0, 0), (0, 1), (1, 0), (1, 1)]
    """
    if ngens < 0 or depth < 0:
        raise ValueError("ngens and depth must be non-negative")
    levels = [list(range(ngens))] if depth >= 1 else []
    for _ in range(2, depth + 1):
        levels.append([(g, w) for g in range(ngens) for w in levels[-1]])
    return [w for lev in levels for w in lev]


_BASES = {"hall": hall_words, "lyndon": lyndon_words, "right-normed": right_normed_words,
          "all": right_normed_words}


# ---------------------------------------------------------------------------------------------
class BracketGraph:
    r"""Memoised, lazily evaluated dependency graph of Lie brackets on one manifold.

    Parameters
    ----------
    manifold : Manifold
        The chart every field of the graph lives on.

    Notes
    -----
    Nodes are strings: generator names (``"tau1"``) and bracket words (``"[tau1,tau2]"``,
    ``"[tau1,[tau1,tau2]]"``).  An edge goes from each operand to the bracket.  A value is
    computed when first asked (:meth:`value`, :meth:`bracket`, :meth:`evaluate`) and cached by
    the content of its operands; ``[b,a]`` reuses ``-[a,b]`` and ``[a,a] = 0`` is never
    computed.  :attr:`stats` counts the work actually done.

    Examples
    --------
    >>> from geomech.core.manifold import Manifold
    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> G = BracketGraph.of(M)
    >>> X = M.vector_field([1, 0, -y/2]); Y = M.vector_field([0, 1, x/2])
    >>> G.bracket(X, Y)
    VectorField(M, [0, 0, 1])
    >>> G.bracket_node(X, Y)
    '[X1,X2]'
    >>> print(G.provenance('[X1,X2]'))
    [X1,X2] where X1 = d/dx + (-y/2)*d/dz, X2 = d/dy + (x/2)*d/dz
    """

    def __init__(self, manifold: Manifold):
        if not isinstance(manifold, Manifold):
            raise TypeError(f"BracketGraph needs a Manifold, got {type(manifold).__name__}")
        self.manifold = manifold
        self._g = nx.DiGraph()
        self._by_id: dict[int, tuple[str, VectorField]] = {}
        self._by_content: dict[tuple, str] = {}
        self._memo: dict[tuple, tuple] = {}
        self._counter = 0
        self._stats = {"computed": 0, "reused": 0, "hits": 0, "trivial": 0}

    # -- shared per-manifold instance ----------------------------------------------------
    @classmethod
    def of(cls, manifold: Manifold) -> BracketGraph:
        """The graph shared by every client working on ``manifold`` (cached on the chart).

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y")
        >>> BracketGraph.of(M) is BracketGraph.of(M)
        True
        """
        if not isinstance(manifold, Manifold):
            raise TypeError(f"BracketGraph.of needs a Manifold, got {type(manifold).__name__}")
        slot = manifold.__dict__.get(_GRAPH_ATTR)
        if slot is None or slot.graph is None:
            slot = _GraphSlot(cls(manifold))
            manifold.__dict__[_GRAPH_ATTR] = slot
        return slot.graph

    # -- registration --------------------------------------------------------------------
    def _check_field(self, X) -> VectorField:
        if not isinstance(X, VectorField):
            raise TypeError(f"the bracket graph holds vector fields, got {type(X).__name__}")
        if X.manifold is not self.manifold:
            raise ValueError(
                f"field lives on {X.manifold.name}, but this bracket graph is for "
                f"{self.manifold.name}")
        return X

    def _fresh_name(self) -> str:
        while True:
            self._counter += 1
            name = f"X{self._counter}"
            if name not in self._g:
                return name

    def add(self, X: VectorField, name: str | None = None) -> str:
        """Register a generator field and return its node key.

        Adding the same field again (the same object, or equal components) returns the
        existing key, unless a different ``name`` is requested, which registers an alias
        node sharing the memoised values.

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y"); G = BracketGraph(M)
        >>> R = M.vector_field([-M.coords[1], M.coords[0]])
        >>> G.add(R, "rot"), G.add(R)
        ('rot', 'rot')
        """
        self._check_field(X)
        if name is not None:
            if not isinstance(name, str) or not name or _FORBIDDEN & set(name):
                raise ValueError(
                    f"a generator name must be a non-empty string without brackets, commas "
                    f"or spaces, got {name!r}")
        hit = self._by_id.get(id(X))
        if hit is not None and hit[1] is X and (name is None or name == hit[0]):
            return hit[0]
        ckey = X.components
        existing = self._by_content.get(ckey)
        if existing is not None and (name is None or name == existing):
            self._by_id[id(X)] = (existing, X)
            return existing
        if name is None:
            name = self._fresh_name()
        elif name in self._g:
            if self._g.nodes[name]["value"].components == ckey:
                return name
            raise ValueError(f"the name {name!r} is already used for a different field")
        self._g.add_node(name, kind="generator", value=X, left=None, right=None, sign=1)
        if id(X) not in self._by_id:
            self._by_id[id(X)] = (name, X)
        self._by_content.setdefault(ckey, name)
        return name

    def _key(self, a) -> str:
        if isinstance(a, str):
            if a not in self._g:
                raise ValueError(f"{a!r} is not a node of this bracket graph")
            return a
        if isinstance(a, VectorField):
            return self.add(a)
        raise TypeError(f"expected a node key or a VectorField, got {type(a).__name__}")

    def __contains__(self, key) -> bool:
        return key in self._g

    def __len__(self) -> int:
        return self._g.number_of_nodes()

    @property
    def generators(self) -> list[str]:
        """Keys of the generator (leaf) nodes, in registration order."""
        return [k for k, d in self._g.nodes(data=True) if d["kind"] == "generator"]

    # -- bracket words -------------------------------------------------------------------
    def bracket_node(self, a, b) -> str:
        """Node key of the word ``[a,b]`` (created lazily: nothing is computed).

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y"); G = BracketGraph(M)
        >>> G.add(M.vector_field([1, 0]), "d_x"); G.add(M.vector_field([0, M.coords[0]]), "X")
        'd_x'
        'X'
        >>> G.bracket_node("d_x", "X")
        '[d_x,X]'
        """
        ka, kb = self._key(a), self._key(b)
        key = f"[{ka},{kb}]"
        if key not in self._g:
            rev = f"[{kb},{ka}]"
            self._g.add_node(key, kind="bracket", value=None, left=ka, right=kb,
                             sign=-1 if rev in self._g else 1, twin=rev if rev in self._g
                             else None)
            self._g.add_edge(ka, key, role="left")
            if kb != ka:
                self._g.add_edge(kb, key, role="right")
            else:
                self._g.edges[ka, key]["role"] = "both"
        return key

    def _word_key(self, word, gens: Sequence[str]) -> str:
        if isinstance(word, int):
            return gens[word]
        return self.bracket_node(self._word_key(word[0], gens), self._word_key(word[1], gens))

    def words(self, generators: Sequence, depth: int, basis: str = "hall") -> list[str]:
        """Node keys of the basis words of length ``<= depth`` in ``generators``.

        Parameters
        ----------
        generators : sequence of node keys or VectorFields
            Ordered generators (the order fixes the Hall/Lyndon basis).
        depth : int
            Maximal word length.
        basis : {"hall", "lyndon", "right-normed"}
            ``"hall"`` (default) and ``"lyndon"`` generate a basis of the free Lie algebra, so
            no word is a consequence of others by antisymmetry or the Jacobi identity;
            ``"right-normed"`` (alias ``"all"``) generates every ``[x_i,[x_j,...]]`` (the
            literal Lie flag, for comparisons).

        Nodes are created but nothing is computed.
        """
        if basis not in _BASES:
            raise ValueError(f"unknown basis {basis!r}; choose 'hall', 'lyndon' or "
                             f"'right-normed'")
        if not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth must be a positive integer, got {depth!r}")
        gens = [self._key(g) for g in generators]
        if not gens:
            raise ValueError("words need at least one generator")
        if len(set(gens)) != len(gens):
            raise ValueError(f"repeated generators in {gens}")
        out, seen = [], set()
        for w in _BASES[basis](len(gens), depth):
            k = self._word_key(w, gens)
            if k not in seen:
                seen.add(k)
                out.append(k)
        return out

    # -- evaluation ----------------------------------------------------------------------
    def _lookup(self, X: VectorField, Y: VectorField) -> tuple | None:
        """Memoised value of [X,Y] by content, or by antisymmetry; ``None`` if unknown."""
        key = (X.components, Y.components)
        val = self._memo.get(key)
        if val is not None:
            self._stats["hits"] += 1
            return val
        if X.components == Y.components:
            self._stats["trivial"] += 1
            val = tuple(sp.S.Zero for _ in X.components)
            self._memo[key] = val
            return val
        rev = self._memo.get((Y.components, X.components))
        if rev is not None:
            self._stats["reused"] += 1
            val = tuple(-c for c in rev)
            self._memo[key] = val
            return val
        return None

    def _store(self, key: str, comps: tuple) -> VectorField:
        node = self._g.nodes[key]
        X = VectorField(self.manifold, comps)
        node["value"] = X
        self._by_content.setdefault(X.components, key)
        return X

    def value(self, key) -> VectorField:
        """The vector field of a node, computing (and caching) it and its operands if needed."""
        k = self._key(key)
        node = self._g.nodes[k]
        if node["value"] is not None:
            if node["kind"] == "bracket":
                self._stats["hits"] += 1
            return node["value"]
        # iterative post-order over the operands still missing a value
        stack = [k]
        while stack:
            top = stack[-1]
            nd = self._g.nodes[top]
            if nd["value"] is not None:
                stack.pop()
                continue
            missing = [o for o in (nd["left"], nd["right"])
                       if self._g.nodes[o]["value"] is None]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            X = self._g.nodes[nd["left"]]["value"]
            Y = self._g.nodes[nd["right"]]["value"]
            comps = self._lookup(X, Y)
            if comps is None:
                Z = X.bracket(Y)
                self._stats["computed"] += 1
                self._memo[(X.components, Y.components)] = Z.components
                nd["value"] = Z
                self._by_content.setdefault(Z.components, top)
            else:
                self._store(top, tuple(comps))
        return node["value"]

    def bracket(self, a, b) -> VectorField:
        r"""The bracket :math:`[a, b]` of two nodes or fields (registered if new), memoised.

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords; G = BracketGraph(M)
        >>> G.bracket(M.vector_field([1, 0]), M.vector_field([0, x]))
        VectorField(M, [0, 1])
        """
        return self.value(self.bracket_node(a, b))

    def evaluate(self, keys: Iterable, executor: str = "serial",
                 max_workers: int | None = None) -> dict[str, VectorField]:
        """Values of many nodes, computing missing brackets level by level.

        Parameters
        ----------
        keys : iterable of node keys (or fields)
        executor : {"serial", "process", "dask"}
            ``"process"`` runs the brackets of one dependency level in a
            :class:`concurrent.futures.ProcessPoolExecutor` (components are sent, not
            fields); ``"dask"`` builds a ``dask.delayed`` graph (requires the ``dask`` extra).
            The results are identical in every mode.
        max_workers : int, optional
            Pool size for ``"process"``.
        """
        if executor not in ("serial", "process", "dask"):
            raise ValueError(f"unknown executor {executor!r}; choose 'serial', 'process' "
                             f"or 'dask'")
        ks = [self._key(k) for k in keys]
        if executor == "serial":
            return {k: self._peek(k) for k in ks}
        needed = set(ks)
        for k in ks:
            needed |= nx.ancestors(self._g, k)
        pending = [k for k in nx.topological_sort(self._g.subgraph(needed))
                   if self._g.nodes[k]["value"] is None]
        if executor == "dask":
            self._evaluate_dask(pending)
        else:
            self._evaluate_process(pending, max_workers)
        return {k: self._peek(k) for k in ks}

    def _peek(self, k: str) -> VectorField:
        """Value of a node without counting a memo hit (computing it if needed)."""
        val = self._g.nodes[k]["value"]
        return val if val is not None else self.value(k)

    def _levels(self, pending: list[str]) -> list[list[str]]:
        depth: dict[str, int] = {}
        for k in pending:  # topological order
            nd = self._g.nodes[k]
            depth[k] = 1 + max(depth.get(nd["left"], 0), depth.get(nd["right"], 0))
        levels: dict[int, list[str]] = {}
        for k, d in depth.items():
            levels.setdefault(d, []).append(k)
        return [levels[d] for d in sorted(levels)]

    def _evaluate_process(self, pending: list[str], max_workers: int | None) -> None:
        from concurrent.futures import ProcessPoolExecutor

        if not pending:
            return
        coords = self.manifold.coords
        with ProcessPoolExecutor(max_workers=max_workers) as pool:
            for level in self._levels(pending):
                jobs = {}
                for k in level:
                    nd = self._g.nodes[k]
                    X = self._g.nodes[nd["left"]]["value"]
                    Y = self._g.nodes[nd["right"]]["value"]
                    comps = self._lookup(X, Y)
                    if comps is not None:
                        self._store(k, comps)
                        continue
                    ck = (X.components, Y.components)
                    if ck in jobs or (ck[1], ck[0]) in jobs:
                        continue  # computed by another job of this level: done serially below
                    jobs[ck] = (k, pool.submit(_bracket_task, X.components, Y.components,
                                               coords))
                for ck, (k, fut) in jobs.items():
                    comps = tuple(fut.result())
                    self._stats["computed"] += 1
                    self._memo[ck] = comps
                    self._store(k, comps)
                for k in level:
                    self._peek(k)

    def _evaluate_dask(self, pending: list[str]) -> None:
        try:
            import dask
        except ImportError as exc:
            raise ImportError(
                "executor='dask' needs the optional dependency dask; install it with "
                "`pip install geomech[dask]` (or use executor='process')") from exc
        coords = self.manifold.coords
        delayed: dict[str, Any] = {}
        to_compute: dict[str, Any] = {}
        for k in pending:  # topological order
            nd = self._g.nodes[k]
            ops = []
            for o in (nd["left"], nd["right"]):
                val = self._g.nodes[o]["value"]
                ops.append(delayed[o] if o in delayed else val.components)
            task = dask.delayed(_bracket_task, pure=True)(ops[0], ops[1], coords)
            delayed[k] = task
            to_compute[k] = task
        results = dask.compute(to_compute, scheduler="threads")[0]
        for k in pending:
            nd = self._g.nodes[k]
            X = self._g.nodes[nd["left"]]["value"]
            Y = self._g.nodes[nd["right"]]["value"]
            if self._lookup(X, Y) is None:
                self._stats["computed"] += 1
                self._memo[(X.components, Y.components)] = tuple(results[k])
            self._store(k, tuple(results[k]))

    # -- explanation and export ----------------------------------------------------------
    def leaves(self, key) -> list[str]:
        """Generators a node depends on, in order of first appearance in the word."""
        k = self._key(key)
        nd = self._g.nodes[k]
        if nd["kind"] == "generator":
            return [k]
        out = []
        for o in (nd["left"], nd["right"]):
            for g in self.leaves(o):
                if g not in out:
                    out.append(g)
        return out

    def provenance(self, key) -> str:
        """Explain a node: its bracket word and the definitions of the generators in it.

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords; G = BracketGraph(M)
        >>> G.add(M.vector_field([1, 0]), "A"); G.add(M.vector_field([0, x]), "B")
        'A'
        'B'
        >>> print(G.provenance(G.bracket_node("B", "A")))
        [B,A] where B = (x)*d/dy, A = d/dx
        """
        k = self._key(key)
        defs = ", ".join(f"{g} = {self._g.nodes[g]['value']}" for g in self.leaves(k))
        return f"{k} where {defs}"

    def to_networkx(self) -> nx.DiGraph:
        """A copy of the graph (edges operand -> result; node attributes ``kind``, ``value``,
        ``left``, ``right``, ``computed``)."""
        H = nx.DiGraph()
        for k, d in self._g.nodes(data=True):
            H.add_node(k, kind=d["kind"], value=d["value"], left=d["left"], right=d["right"],
                       computed=d["value"] is not None)
        H.add_edges_from(self._g.edges(data=True))
        return H

    @property
    def stats(self) -> dict[str, int]:
        """Work counters: ``computed`` (kernel calls), ``reused`` (by antisymmetry),
        ``hits`` (memo hits), ``trivial`` (``[a,a] = 0``), ``generators``, ``words``,
        ``evaluated`` (nodes holding a value)."""
        nodes = self._g.nodes(data=True)
        return {**self._stats,
                "generators": sum(1 for _, d in nodes if d["kind"] == "generator"),
                "words": sum(1 for _, d in nodes if d["kind"] == "bracket"),
                "evaluated": sum(1 for _, d in nodes if d["value"] is not None)}

    def __repr__(self) -> str:
        s = self.stats
        return (f"BracketGraph({self.manifold.name}: {s['generators']} generators, "
                f"{s['words']} words, {s['computed']} computed)")

