r"""Where a bracket comes from: the explanation and export of a bracket graph.

A node of a :class:`~geomech.lie.graph.BracketGraph` is a word in the generators; its
*provenance* is the word with the definitions of the generators in it, and *how* its value
was obtained is recorded when it is computed (by the kernel, from the memo, by antisymmetry
:math:`[b,a] = -[a,b]`, or :math:`[a,a] = 0`).  :class:`GraphExplanation` is the part of
the graph that answers these questions and exports the graph to ``networkx``.

>>> from geomech.core.manifold import Manifold
>>> from geomech.lie.graph import BracketGraph
>>> M = Manifold("M", "x y"); x, y = M.coords; G = BracketGraph(M)
>>> G.add(M.vector_field([1, 0]), "A"), G.add(M.vector_field([0, x]), "B")
('A', 'B')
>>> G.leaves(G.bracket_node("A", "B")), G.how("A")
(['A', 'B'], 'generator')
"""

from __future__ import annotations

import networkx as nx

__all__ = ["GraphExplanation"]

_HOW = {"computed": "computed by the kernel", "reused": "-1 times the value of {}",
        "hit": "memoised value of {} (same operands)", "trivial": "[a,a] = 0"}


class GraphExplanation:
    """Provenance, evaluation history and ``networkx`` export of a bracket graph.

    A mixin of :class:`~geomech.lie.graph.BracketGraph`: it reads the graph's node table
    ``_nodes``, its ``networkx`` graph ``_g``, its lock and its key resolution ``_key``.
    """

    def leaves(self, key) -> list[str]:
        """Generators a node depends on, in order of first appearance in the word."""
        with self._lock:
            k = self._key(key)
            nd = self._nodes[k]
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

        How the value itself was obtained (kernel, memo, antisymmetry) is :meth:`how`.

        >>> from geomech.core.manifold import Manifold
        >>> from geomech.lie.graph import BracketGraph
        >>> M = Manifold("M", "x y"); x, y = M.coords; G = BracketGraph(M)
        >>> G.add(M.vector_field([1, 0]), "A"); G.add(M.vector_field([0, x]), "B")
        'A'
        'B'
        >>> print(G.provenance(G.bracket_node("B", "A")))
        [B,A] where B = (x)*d/dy, A = d/dx
        """
        with self._lock:
            k = self._key(key)
            defs = ", ".join(f"{g} = {self._nodes[g]['value']}" for g in self.leaves(k))
            return f"{k} where {defs}"

    def how(self, key) -> str:
        """How the value of a node was obtained: ``"generator"``, ``"not evaluated yet"``,
        ``"computed by the kernel"``, ``"-1 times the value of [b,a]"`` (antisymmetry),
        ``"memoised value of <node> (same operands)"`` or ``"[a,a] = 0"``.

        >>> from geomech.core.manifold import Manifold
        >>> from geomech.lie.graph import BracketGraph
        >>> M = Manifold("M", "x y"); x, y = M.coords; G = BracketGraph(M)
        >>> A, B = M.vector_field([1, 0]), M.vector_field([0, x])
        >>> G.bracket(A, B) == -G.bracket(B, A)
        True
        >>> G.how(G.bracket_node(B, A))
        '-1 times the value of [X1,X2]'
        """
        with self._lock:
            nd = self._nodes[self._key(key)]
            if nd["kind"] == "generator":
                return "generator"
            if nd["how"] is None:
                return "not evaluated yet"
            what, ref = nd["how"]
            return _HOW[what].format(ref)

    def to_networkx(self) -> nx.DiGraph:
        """A copy of the graph (edges operand -> result; node attributes ``kind``, ``value``,
        ``left``, ``right``, ``computed``, ``how``)."""
        with self._lock:
            H = nx.DiGraph()
            for k, d in self._nodes.items():
                H.add_node(k, kind=d["kind"], value=d["value"], left=d["left"],
                           right=d["right"], computed=d["value"] is not None, how=self.how(k))
            H.add_edges_from(self._g.edges(data=True))
            return H
