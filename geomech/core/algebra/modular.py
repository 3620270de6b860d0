r"""Linear algebra of exact rational values reduced modulo the prime :math:`p = 2^{61}-1`.

Reduction modulo :math:`p` is a ring map from the rationals whose denominators :math:`p`
does not divide, so a minor that is non-zero modulo :math:`p` is non-zero over
:math:`\mathbb Q`: vectors independent modulo :math:`p` are independent over
:math:`\mathbb Q` (a *proof*); vectors dependent modulo :math:`p` are only probably dependent
over :math:`\mathbb Q` and are decided exactly by the caller.  Rational numbers of small
height are recovered from their residues by rational reconstruction (Wang 1981, "A p-adic
algorithm for univariate partial fractions"; the half-extended Euclidean algorithm); a
reconstructed number is a *guess* that the caller verifies exactly.

>>> from fractions import Fraction
>>> a = to_mod(Fraction(-3, 7))
>>> rational_reconstruction(a)
Fraction(-3, 7)
>>> independent_rows_mod([[1, 2], [2, 4], [0, 1]], 2)
[0, 2]
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import isqrt

try:                                # python-flint: optional, elimination modulo p in C
    import flint
except ImportError:                 # pragma: no cover - exercised without python-flint
    flint = None

__all__ = ["PRIME", "to_mod", "reduce_mod", "normalised_mod", "independent_rows_mod",
           "solve_mod", "null_support_mod", "rational_reconstruction"]

#: the prime modulo which exact rational values are taken
PRIME = (1 << 61) - 1


def to_mod(x) -> int | None:
    """The residue of a rational number (``Fraction``, sympy or flint rational, or int)
    modulo :data:`PRIME`; ``None`` when the prime divides its denominator."""
    num, den = (x.numerator, x.denominator) if hasattr(x, "numerator") else (x.p, x.q)
    num, den = int(num), int(den)
    if den == 1:
        return num % PRIME
    if den % PRIME == 0:
        return None
    return num * pow(den, -1, PRIME) % PRIME


def reduce_mod(ech: Sequence[tuple[int, list[int]]], vec: Sequence[int]) -> list[int]:
    """``vec`` reduced by the echelon rows ``(pivot, row)`` (each with ``row[pivot] == 1``,
    :func:`normalised_mod`)."""
    P = PRIME
    v = list(vec)
    for piv, row in ech:
        a = v[piv]
        if a:
            v = [(x - a * y) % P for x, y in zip(v, row)]
    return v


def normalised_mod(v: Sequence[int]) -> tuple[int, list[int]] | None:
    """``(pivot, v / v[pivot])`` with the first non-zero entry as pivot; ``None`` for zero."""
    piv = next((i for i, a in enumerate(v) if a), None)
    if piv is None:
        return None
    inv = pow(v[piv], -1, PRIME)
    return piv, [a * inv % PRIME for a in v]


def independent_rows_mod(rows: Sequence[Sequence[int]], ncols: int) -> list[int]:
    """Indices of the first maximal set of rows independent modulo :data:`PRIME` (greedy, in
    order); independent modulo the prime implies independent over :math:`\\mathbb Q`."""
    ech: list = []
    out = []
    for i, r in enumerate(rows):
        if len(out) == ncols:
            break
        got = normalised_mod(reduce_mod(ech, r))
        if got is not None:
            ech.append(got)
            out.append(i)
    return out


def solve_mod(A: Sequence[Sequence[int]], b: Sequence[int]) -> list[int] | None:
    """The solution of the square system :math:`A x = b` modulo :data:`PRIME` (Gaussian
    elimination), ``None`` when :math:`A` is singular there."""
    P = PRIME
    n = len(A)
    M = [[a % P for a in row] + [bi % P] for row, bi in zip(A, b)]
    for c in range(n):
        r = next((r for r in range(c, n) if M[r][c]), None)
        if r is None:
            return None
        M[c], M[r] = M[r], M[c]
        inv = pow(M[c][c], -1, P)
        M[c] = [a * inv % P for a in M[c]]
        for r in range(n):
            if r != c and M[r][c]:
                f = M[r][c]
                M[r] = [(a - f * b) % P for a, b in zip(M[r], M[c])]
    return [M[r][n] for r in range(n)]


def null_support_mod(rows: Sequence[Sequence], ncols: int) -> tuple[int, list[int]]:
    r"""``(nullity, support)`` of the right null space modulo :data:`PRIME` of the rational
    ``rows``: its dimension and the columns on which one of its vectors is non-zero (the
    free columns of the reduced echelon form and the pivot columns whose row has an entry
    in a free column).  A row whose denominators the prime divides is left out.  The rank
    modulo the prime is at most the rank over :math:`\mathbb Q`: the nullity bounds the
    rational one (nullity 0 proves that only the zero vector solves the rows).

    >>> null_support_mod([[1, 0, 0], [0, 1, Fraction(-1, 2)]], 3)
    (1, [1, 2])
    """
    res = []
    for r in rows:
        v = [to_mod(x) for x in r]
        if all(a is not None for a in v) and any(v):
            res.append(v)
    if not res:
        return ncols, list(range(ncols))
    if flint is not None:
        R, rank = flint.nmod_mat(len(res), ncols, [a for r in res for a in r], PRIME).rref()
        red = [[int(R[i, j]) for j in range(ncols)] for i in range(rank)]
        piv = [next(j for j, a in enumerate(r) if a) for r in red]
    else:
        ech: list = []
        for r in res:
            got = normalised_mod(reduce_mod(ech, r))
            if got is not None:
                ech = [(p, reduce_mod([got], row)) for p, row in ech] + [got]
        piv, red = [p for p, _ in ech], [row for _, row in ech]
    free = [j for j in range(ncols) if j not in set(piv)]
    live = set(free) | {p for r, p in zip(red, piv) if any(r[f] for f in free)}
    return len(free), sorted(live)


def rational_reconstruction(a: int) -> Fraction | None:
    """The rational :math:`u/v` with :math:`u \\equiv a v` modulo :data:`PRIME` and
    :math:`|u|, v \\le \\sqrt{p/2}`, or ``None`` when there is none (a guess to verify).

    >>> rational_reconstruction(to_mod(Fraction(22, 7)))
    Fraction(22, 7)
    >>> rational_reconstruction(12345678901234567) is None
    True
    """
    P = PRIME
    bound = isqrt(P // 2)
    r0, r1, t0, t1 = P, a % P, 0, 1
    while r1 > bound:
        q = r0 // r1
        r0, r1, t0, t1 = r1, r0 - q * r1, t1, t0 - q * t1
    if t1 == 0 or abs(t1) > bound:
        return None
    return Fraction(r1, t1) if t1 > 0 else Fraction(-r1, -t1)
