r"""The Lie flag and the derived flag of a distribution, and their results.

For :math:`D = \operatorname{span}\{X_1,\dots,X_k\}` the Lie flag is
:math:`D^1 = D`, :math:`D^{j+1} = D^j + [D^1, D^j]`, spanned by the brackets of the
generators along basis words of the free Lie algebra (:mod:`geomech.lie.words`); the derived
flag is :math:`D^{(j+1)} = D^{(j)} + [D^{(j)}, D^{(j)}]`, spanned by the brackets of pairs of
a basis of :math:`D^{(j)}`, because :math:`[fX, gY] = fg[X,Y] + fX(g)Y - gY(f)X`.  Both stop
when the rank stabilises or reaches the dimension; the ranks form the growth vector
(:class:`GrowthVector`).  :class:`FrobeniusResult` reports the Frobenius test
(:math:`D` involutive :math:`\iff [X_i, X_j] \in D`).

>>> from geomech.core.manifold import Manifold
>>> from geomech.lie.graph import BracketGraph
>>> from geomech.lie.span import Evaluator, Span
>>> M = Manifold("M", "x y z"); x, y, z = M.coords
>>> G = BracketGraph(M)
>>> keys = [G.add(M.vector_field([1, 0, -y/2]), "A"), G.add(M.vector_field([0, 1, x/2]), "B")]
>>> span = Span(3, Evaluator()); span.extend([(k, G.value(k).components) for k in keys])
>>> flag_stages(G, keys, span, "hall", "serial", None, "lie")
[(['A', 'B'], 2), (['A', 'B', '[A,B]'], 3)]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from geomech.core.fields import VectorField
from geomech.lie.span import Span

__all__ = ["FrobeniusResult", "GrowthVector", "flag_stages"]


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


def pair_brackets(G, keys: Sequence[str], length: dict, max_depth: int | None,
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


def module_candidates(G, gens: Sequence[str], new: Sequence[str], first: bool,
                      seen: set) -> list[str]:
    r"""The words that span :math:`D^{j+1}` modulo :math:`D^j`: :math:`[X_a, W]` for the
    generators :math:`X_a` and the basis words :math:`W` that :math:`D^j` added to
    :math:`D^{j-1}` (``new``); at the first step the Hall words :math:`[X_a, X_b]`, ``a < b``.

    Generically :math:`D^j` is spanned over the functions by its basis words, and
    :math:`[X_a, fW] = f[X_a, W] + X_a(f)W`, so :math:`[D^1, D^j] \subset D^j +
    \operatorname{span}[X_a, W]`; the brackets with the older basis words lie in :math:`D^j`
    already.  No other word of length ``j + 1`` is formed."""
    if first:
        pairs = itertools.combinations(new, 2)
    else:
        pairs = ((g, w) for g in gens for w in new)
    out = []
    for a, b in pairs:
        w = G.bracket_node(a, b)
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def grow(G, span: Span, words: Sequence[str], executor: str) -> list[str]:
    """Offer the brackets ``words`` to ``span`` and prove what the rank depends on.

    Serially the brackets are computed one at a time and the step stops as soon as the span
    reaches the dimension (no bracket after that is computed, and nothing found dependent
    at the random points needs a proof: the rank cannot exceed the dimension).  Below the
    dimension every word dependent at the points is proved dependent exactly
    (:meth:`Span.confirm`).  Returns the keys the span gained."""
    before = span.rank
    if executor != "serial":
        vals = G.evaluate(words, executor=executor)
    undecided = []
    for w in words:
        if span.rank >= span.n:
            break
        X = vals[w] if executor != "serial" else G.value(w)
        if span.offer(w, X) is None:
            undecided.append((w, X))
    if span.rank < span.n:
        span.confirm(undecided)
    return span.keys[before:]


def flag_stages(G, gens: Sequence[str], span: Span, basis: str, executor: str,
                max_depth: int | None, flag: str) -> list[tuple[list[str], int]]:
    """The members of the flag as ``(keys of a generic basis, rank)``: ``gens`` are the keys
    of the generators in the bracket graph ``G``, ``span`` their span (it grows).

    The Lie flag in the ``"hall"`` basis (the default) forms only :func:`module_candidates`;
    ``"lyndon"`` and ``"right-normed"`` form every basis word of each length (the literal
    flag, for comparisons)."""
    n = span.n
    gens = list(gens)
    stages = [(list(span.keys), span.rank)]
    seen = set(gens)
    length = dict.fromkeys(gens, 1)   # word lengths (derived flag)
    depth = 1
    new = list(span.keys)
    pruned = flag == "lie" and basis == "hall"
    while span.rank < n and (max_depth is None or depth < max_depth):
        if pruned:
            depth += 1
            words = module_candidates(G, stages[0][0], new, depth == 2, seen)
        elif flag == "lie":   # words of length j+1
            depth += 1
            words = [w for w in G.words(gens, depth, basis=basis) if w not in seen]
            seen.update(words)
        else:               # [D^(j), D^(j)]: brackets of pairs of the current basis
            words = pair_brackets(G, span.keys, length, max_depth, seen)
            depth = max(length.values())
            seen.update(words)
        new = grow(G, span, words, executor)
        if not new:
            break
        stages.append((list(span.keys), span.rank))
    return stages
