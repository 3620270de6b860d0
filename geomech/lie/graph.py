r"""The bracket graph: one memoised dependency graph of Lie-bracket calculations per manifold.

Every Lie bracket the library needs is a node of a :class:`BracketGraph`.  Generator fields are
leaves; a bracket word ``[a,b]`` is a node with an edge from each operand to it.  Values are
computed lazily, once, with the bracket convention of the library

.. math:: [X,Y]^i = X^j\,\partial_j Y^i - Y^j\,\partial_j X^i ,

normalised by the zero policy (:mod:`geomech.core.zero`) and memoised by the *content* of the
operands (their canonical polynomial-ring form when they have one, so no sympy expression is
built until a caller asks for components), so a bracket asked twice -- under any names -- is
computed once, and ``[b,a]`` is answered as ``-[a,b]`` without a new computation.  The graph
is safe to share between threads.

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

import threading
from collections.abc import Iterable, Sequence

import networkx as nx

from ..core import budget, kernel
from ..core.fields import VectorField
from ..core.manifold import Manifold
from .parallel import evaluate_in_processes, evaluate_on_dask
from .provenance import GraphExplanation
from .words import BASES

__all__ = ["BracketGraph"]

_GRAPH_ATTR = "_geomech_bracket_graph"
_FORBIDDEN = set("[], \t\n")
_OF_LOCK = threading.Lock()  # creation of the shared per-chart graph


class _GraphSlot:
    """Holder of the per-manifold graph; pickles empty so that a chart stays picklable."""

    __slots__ = ("graph",)

    def __init__(self, graph=None):
        self.graph = graph

    def __reduce__(self):
        return (_GraphSlot, ())


# ---------------------------------------------------------------------------------------------
class _Content:
    """A hashable content key with its hash computed once (ring elements rehash otherwise)."""

    __slots__ = ("data", "h")

    def __init__(self, data: tuple, h: int | None = None):
        self.data = data
        self.h = hash(data) if h is None else h

    def __hash__(self) -> int:
        return self.h

    def __eq__(self, other) -> bool:
        return self is other or (isinstance(other, _Content) and self.h == other.h
                                 and self.data == other.data)


def _content_key(X: VectorField) -> _Content:
    """Canonical memo key of a field's content, without building sympy expressions.

    Fields whose components fit the polynomial ring (:mod:`geomech.core.algebra.differential_ring`)
    are keyed
    by their ring elements (hashable by ring and term map, so equal content in the same ring
    is one key); the others by their normalised sympy components.  Two keys differ at worst
    for equal content in different rings, which costs a recomputation, never a wrong value.
    """
    form = X.ring_form() if kernel.use_rings() else None
    if form:
        # hash the monomial supports only (hashing rational coefficients is slow); equal
        # hashes are confirmed by comparing the full ring elements
        polys = form[1]
        return _Content(("ring", polys),
                        hash((form[0].gens, tuple(frozenset(p) for p in polys))))
    return _Content(("expr", X.components))


class BracketGraph(GraphExplanation):
    r"""Memoised, lazily evaluated dependency graph of Lie brackets on one manifold.

    Parameters
    ----------
    manifold : Manifold
        The chart every field of the graph lives on.

    Notes
    -----
    Nodes are strings: generator names (``"tau1"``) and bracket words (``"[tau1,tau2]"``,
    ``"[tau1,[tau1,tau2]]"``).  An edge goes from each operand to the bracket.  A value is
    computed when first asked (:meth:`value`, :meth:`bracket`, :meth:`evaluate`) and memoised
    by the canonical (ring) form of its operands; ``[b,a]`` reuses ``-[a,b]`` and
    ``[a,a] = 0`` is never computed.  Values stay ring elements until a caller asks for sympy
    components.  :attr:`stats` counts the work actually done.

    A graph is safe to share between threads: every operation holds the graph's re-entrant
    lock (brackets are pure Python, so threads gain nothing by computing them at once), and
    :meth:`of` creates the shared graph of a chart exactly once.  The engine loops call
    :func:`geomech.core.budget.check`, so ``with time_limit(s):`` bounds them in any thread.

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
    >>> G.how('[X1,X2]'), G.how(G.bracket_node(Y, X))
    ('computed by the kernel', 'not evaluated yet')
    """

    def __init__(self, manifold: Manifold):
        if not isinstance(manifold, Manifold):
            raise TypeError(f"BracketGraph needs a Manifold, got {type(manifold).__name__}")
        self.manifold = manifold
        self._lock = threading.RLock()
        self._g = nx.DiGraph()
        self._nodes: dict[str, dict] = {}            # node key -> its networkx attribute dict
        self._by_id: dict[int, tuple[str, VectorField]] = {}
        self._by_content: dict[_Content, str] = {}
        self._unindexed: list[str] = []   # evaluated words not yet in _by_content (lazy)
        self._memo: dict[tuple, tuple[VectorField, str]] = {}   # (key X, key Y) -> value, node
        self._counter = 0
        self._stats = {"computed": 0, "reused": 0, "hits": 0, "trivial": 0}

    def __getstate__(self) -> dict:
        """Nodes, values and counters; the lock and the content indexes (ring elements, object
        ids) are rebuilt after unpickling (lazily, like the index of evaluated words)."""
        with self._lock:
            g = nx.DiGraph()
            for k, d in self._nodes.items():
                g.add_node(k, **{**d, "content": None})
            g.add_edges_from(self._g.edges(data=True))
            state = {**self.__dict__, "_g": g, "_by_id": {}, "_by_content": {}, "_memo": {},
                     "_unindexed": [k for k, d in self._nodes.items()
                                    if d["value"] is not None]}
            del state["_lock"], state["_nodes"]
            return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._nodes = {k: self._g.nodes[k] for k in self._g.nodes}
        self._lock = threading.RLock()

    # -- shared per-manifold instance ----------------------------------------------------
    @classmethod
    def of(cls, manifold: Manifold) -> BracketGraph:
        """The graph shared by every client working on ``manifold`` (cached on the chart).

        Thread safe: concurrent first calls on a fresh chart all get the same graph.

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y")
        >>> BracketGraph.of(M) is BracketGraph.of(M)
        True
        """
        if not isinstance(manifold, Manifold):
            raise TypeError(f"BracketGraph.of needs a Manifold, got {type(manifold).__name__}")
        slot = manifold.__dict__.get(_GRAPH_ATTR)
        if slot is not None and slot.graph is not None:
            return slot.graph
        with _OF_LOCK:
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
            if name not in self._nodes:
                return name

    def _new_node(self, key: str, **attrs) -> dict:
        self._g.add_node(key, **attrs)
        nd = self._nodes[key] = self._g.nodes[key]
        return nd

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
        with self._lock:
            hit = self._by_id.get(id(X))
            if hit is not None and hit[1] is X and (name is None or name == hit[0]):
                return hit[0]
            ckey = _content_key(X)
            existing = self._by_content.get(ckey)
            if existing is None and self._unindexed:
                self._index_words()
                existing = self._by_content.get(ckey)
            if existing is not None and (name is None or name == existing):
                self._by_id[id(X)] = (existing, X)
                return existing
            if name is None:
                name = self._fresh_name()
            elif name in self._nodes:
                if self._content(name) == ckey:
                    return name
                raise ValueError(f"the name {name!r} is already used for a different field")
            self._new_node(name, kind="generator", value=X, left=None, right=None, how=None,
                           content=ckey)
            if id(X) not in self._by_id:
                self._by_id[id(X)] = (name, X)
            self._by_content.setdefault(ckey, name)
            return name

    def _index_words(self) -> None:
        """Register the content of the evaluated words (so ``add`` finds equal fields)."""
        while self._unindexed:
            k = self._unindexed.pop()
            self._by_content.setdefault(self._content(k), k)

    def _key(self, a) -> str:
        if isinstance(a, str):
            if a not in self._nodes:
                raise ValueError(f"{a!r} is not a node of this bracket graph")
            return a
        if isinstance(a, VectorField):
            return self.add(a)
        raise TypeError(f"expected a node key or a VectorField, got {type(a).__name__}")

    def __contains__(self, key) -> bool:
        return key in self._nodes

    def __len__(self) -> int:
        return len(self._nodes)

    @property
    def generators(self) -> list[str]:
        """Keys of the generator (leaf) nodes, in registration order."""
        with self._lock:
            return [k for k, d in self._nodes.items() if d["kind"] == "generator"]

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
        with self._lock:
            ka, kb = self._key(a), self._key(b)
            key = f"[{ka},{kb}]"
            if key not in self._nodes:
                self._new_node(key, kind="bracket", value=None, left=ka, right=kb, how=None,
                               content=None)
                self._g.add_edge(ka, key, role="left" if kb != ka else "both")
                if kb != ka:
                    self._g.add_edge(kb, key, role="right")
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
        if basis not in BASES:
            raise ValueError(f"unknown basis {basis!r}; choose 'hall', 'lyndon' or "
                             f"'right-normed'")
        if not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth must be a positive integer, got {depth!r}")
        with self._lock:
            gens = [self._key(g) for g in generators]
            if not gens:
                raise ValueError("words need at least one generator")
            if len(set(gens)) != len(gens):
                raise ValueError(f"repeated generators in {gens}")
            out, seen = [], set()
            for w in BASES[basis](len(gens), depth):
                budget.check()
                k = self._word_key(w, gens)
                if k not in seen:
                    seen.add(k)
                    out.append(k)
            return out

    # -- evaluation ----------------------------------------------------------------------
    def _content(self, key: str) -> _Content:
        """Content key of a node holding a value (computed once per node)."""
        nd = self._nodes[key]
        if nd["content"] is None:
            nd["content"] = _content_key(nd["value"])
        return nd["content"]

    def _lookup(self, key: str):
        """``(memo key, value)``: the memoised value of [X,Y] by content, by antisymmetry or
        ``[a,a] = 0`` (recorded in the node's ``how``), or ``(memo key, None)`` if unknown."""
        nd = self._nodes[key]
        kx, ky = self._content(nd["left"]), self._content(nd["right"])
        mk = (kx, ky)
        hit = self._memo.get(mk)
        if hit is not None:
            self._stats["hits"] += 1
            self._nodes[key]["how"] = ("hit", hit[1])
            return mk, hit[0]
        if kx == ky:
            self._stats["trivial"] += 1
            val = VectorField(self.manifold, [0] * self.manifold.dim)
            self._nodes[key]["how"] = ("trivial", None)
            self._memo[mk] = (val, key)
            return mk, val
        rev = self._memo.get((ky, kx))
        if rev is not None:
            self._stats["reused"] += 1
            val = -rev[0]
            self._nodes[key]["how"] = ("reused", rev[1])
            self._memo[mk] = (val, key)
            return mk, val
        return mk, None

    def _store(self, key: str, mk: tuple, Z: VectorField, computed: bool) -> VectorField:
        nd = self._nodes[key]
        nd["value"] = Z
        if computed:
            self._stats["computed"] += 1
            nd["how"] = ("computed", None)
            self._memo[mk] = (Z, key)
        self._unindexed.append(key)  # content keys of results are hashed only when needed
        return Z

    def _operands(self, key: str) -> tuple[VectorField, VectorField]:
        nd = self._nodes[key]
        return self._nodes[nd["left"]]["value"], self._nodes[nd["right"]]["value"]

    def _compute(self, key: str) -> VectorField:
        """Value of a bracket node whose operands have values (memo, else the kernel)."""
        mk, val = self._lookup(key)
        if val is not None:
            return self._store(key, mk, val, computed=False)
        budget.check()
        X, Y = self._operands(key)
        return self._store(key, mk, X.bracket(Y), computed=True)

    def value(self, key) -> VectorField:
        """The vector field of a node, computing (and caching) it and its operands if needed.

        Ring-valued results are returned as they are: sympy components are built when the
        caller reads :attr:`VectorField.components`.
        """
        with self._lock:
            k = self._key(key)
            node = self._nodes[k]
            if node["value"] is not None:
                if node["kind"] == "bracket":
                    self._stats["hits"] += 1
                return node["value"]
            stack = [k]  # iterative post-order over the operands still missing a value
            while stack:
                top = stack[-1]
                nd = self._nodes[top]
                if nd["value"] is not None:
                    stack.pop()
                    continue
                missing = [o for o in (nd["left"], nd["right"])
                           if self._nodes[o]["value"] is None]
                if missing:
                    stack.extend(missing)
                    continue
                stack.pop()
                self._compute(top)
            return node["value"]

    def bracket(self, a, b) -> VectorField:
        r"""The bracket :math:`[a, b]` of two nodes or fields (registered if new), memoised.

        >>> from geomech.core.manifold import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords; G = BracketGraph(M)
        >>> G.bracket(M.vector_field([1, 0]), M.vector_field([0, x]))
        VectorField(M, [0, 1])
        """
        with self._lock:
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
            fields); ``"dask"`` builds a ``dask.delayed`` graph (requires the ``dask`` extra)
            and runs it on the active ``dask.distributed`` client when there is one, else
            on dask's threads scheduler (with a :class:`RuntimeWarning` saying so).  The
            results are identical in every mode.
        max_workers : int, optional
            Pool size for ``"process"``.
        """
        if executor not in ("serial", "process", "dask"):
            raise ValueError(f"unknown executor {executor!r}; choose 'serial', 'process' "
                             f"or 'dask'")
        with self._lock:
            ks = [self._key(k) for k in keys]
            if executor != "serial":
                needed = set(ks)
                for k in ks:
                    needed |= nx.ancestors(self._g, k)
                pending = [k for k in nx.topological_sort(self._g.subgraph(needed))
                           if self._nodes[k]["value"] is None]
                if executor == "dask":
                    evaluate_on_dask(self, pending)
                else:
                    evaluate_in_processes(self, pending, max_workers)
            return {k: self._peek(k) for k in ks}

    def _peek(self, k: str) -> VectorField:
        """Value of a node without counting a memo hit (computing it if needed)."""
        val = self._nodes[k]["value"]
        return val if val is not None else self.value(k)

    @property
    def stats(self) -> dict[str, int]:
        """Work counters: ``computed`` (kernel calls), ``reused`` (by antisymmetry),
        ``hits`` (memo hits), ``trivial`` (``[a,a] = 0``), ``generators``, ``words``,
        ``evaluated`` (nodes holding a value)."""
        with self._lock:
            nodes = list(self._nodes.values())
            return {**self._stats,
                    "generators": sum(1 for d in nodes if d["kind"] == "generator"),
                    "words": sum(1 for d in nodes if d["kind"] == "bracket"),
                    "evaluated": sum(1 for d in nodes if d["value"] is not None)}

    def __repr__(self) -> str:
        s = self.stats
        return (f"BracketGraph({self.manifold.name}: {s['generators']} generators, "
                f"{s['words']} words, {s['computed']} computed)")
