r"""Words of the free Lie algebra: Hall, Lyndon and right-normed bases.

A word is a generator index or a nested pair ``(u, v)`` standing for the bracket
:math:`[u, v]`.  Hall and Lyndon words form bases of the free Lie algebra (no word is a
consequence of the others by antisymmetry and the Jacobi identity), so the Lie flag of a
distribution is spanned by the brackets of its generators along them; the number of basis
words of length :math:`k` on :math:`m` generators is given by Witt's formula
:math:`\frac1k\sum_{d|k}\mu(d)\,m^{k/d}` (Witt (1937)).
Right-normed words :math:`[x_{i_1},[x_{i_2},[\dots]]]` span the flag literally.

>>> [word_length(w) for w in hall_words(2, 3)]
[1, 1, 2, 3, 3]
"""

from __future__ import annotations

__all__ = ["BASES", "hall_words", "lyndon_words", "right_normed_words", "word_length"]


def word_length(w) -> int:
    """Length of a word (a generator index or a nested pair of words).

    >>> word_length(0), word_length((0, (0, 1)))
    (1, 3)
    """
    return 1 if isinstance(w, int) else word_length(w[0]) + word_length(w[1])


def hall_words(ngens: int, depth: int) -> list:
    r"""Hall basis of the free Lie algebra on ``ngens`` generators, words of length ``<= depth``.

    Words are nested pairs of generator indices.  The basis is Marshall Hall's, written with
    the operands mirrored so that words read ``[x1,[x1,x2]]``: with a total order compatible
    with the length, ``[u, v]`` is a Hall word iff ``u`` and ``v`` are Hall words, ``u < v``,
    and ``v`` is a generator or ``v = [x, y]`` with ``x <= u``.  The number of words of length
    ``k`` is Witt's :math:`\frac1k\sum_{d|k}\mu(d)\,m^{k/d}`.

    >>> hall_words(2, 3)
    [0, 1, (0, 1), (0, (0, 1)), (1, (0, 1))]
    >>> [len([w for w in hall_words(3, 4) if word_length(w) == k]) for k in (1, 2, 3, 4)]
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


#: word generators by basis name (``"all"``: alias of ``"right-normed"``)
BASES = {"hall": hall_words, "lyndon": lyndon_words, "right-normed": right_normed_words,
          "all": right_normed_words}
