r"""Certified membership of a vector of functions in the span of generically independent ones.

For columns :math:`b_1, \dots, b_r` independent over the field of functions and a vector
:math:`v` found dependent on them at random exact points, the decision
:math:`v \in \operatorname{span}(b_1, \dots, b_r)` is made by *guess and verify*: the
coefficients :math:`v(p) = \sum_k c_k(p)\, b_k(p)` at the points are exact rationals;

1. if they are the same at every point, :math:`v - \sum_k c_k b_k = 0` is tested exactly
   (a certain zero proves membership with constant coefficients);
2. otherwise the coefficients are computed exactly from a square subsystem on rows where
   the (supported) columns are independent at a point -- hence generically -- by
   :func:`~geomech.core.algebra.solve.solve_linear`, and the remaining rows are tested
   exactly.  With all columns the solution is unique, so a certain non-zero residual proves
   :math:`v \notin \operatorname{span}` (the points were unlucky).

Only certain verdicts of an exact zero test count (a private policy that never records an
uncertainty and never calls ``simplify``); anything else answers ``None`` and the caller
falls back to an exact rank.  This replaces an exact rank over the field of rational
functions by a few zero tests of residuals; the rank is still proved, a lower bound by the
points and an upper bound by the verified combination.

>>> import sympy as sp
>>> from fractions import Fraction as F
>>> x = sp.Symbol("x")
>>> b = [(sp.S.One, x)]
>>> samples = [([[F(1), F(2)]], [F(3), F(6)]), ([[F(1), F(5)]], [F(3), F(15)])]
>>> certified_membership(b, (sp.S(3), 3*x), samples)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import sympy as sp

from geomech.core.algebra.matrices import independent_rows, rational_solve
from geomech.core.algebra.modular import (
    PRIME,
    independent_rows_mod,
    rational_reconstruction,
    solve_mod,
)
from geomech.core.algebra.solve import LaplaceMinors, solve_linear
from geomech.core.zero import UNDECIDABLE_ERRORS, ZeroPolicy
from geomech.core.zero.values import enclosure_nonzero

try:                                # python-flint: optional, polynomial arithmetic in C
    import flint
except ImportError:                 # pragma: no cover - depends on the installation
    flint = None

__all__ = ["certified_membership", "coefficients_at"]

_EXACT = ZeroPolicy(warn=False, confirm_with_simplify=False)


def coefficients_at(basis: Sequence[Sequence[Fraction]], v: Sequence[Fraction],
                    cols: Sequence[int] | None = None, modular: bool = False
                    ) -> tuple[list, list[int]] | None:
    r"""Exact coefficients :math:`c` with :math:`v = \sum_k c_k b_k` at one point (columns
    ``cols``, default all), and the rows used; ``None`` when the columns are dependent there
    or ``v`` is not in their span.  With ``modular`` the values are residues modulo
    :data:`~geomech.core.algebra.modular.PRIME` and so are the coefficients.

    >>> coefficients_at([[1, 0, 1], [0, 1, 1]], [2, 3, 5])
    ([Fraction(2, 1), Fraction(3, 1)], [0, 1])
    """
    cols = list(range(len(basis))) if cols is None else list(cols)
    n = len(v)
    rows_all = [[basis[k][i] for k in cols] for i in range(n)]
    if modular:
        return _coefficients_mod(rows_all, v, len(cols))
    rows = independent_rows(rows_all, len(cols)) if cols else []
    if len(rows) < len(cols):
        return None
    c = rational_solve([rows_all[i] for i in rows], [v[i] for i in rows]) if cols else []
    c = [Fraction(int(a.p), int(a.q)) for a in c]
    if any(sum((Fraction(a) * b for a, b in zip(rows_all[i], c)), Fraction(0)) != v[i]
           for i in range(n)):
        return None
    return c, rows


def _coefficients_mod(rows_all: list[list[int]], v: Sequence[int], r: int
                      ) -> tuple[list, list[int]] | None:
    """:func:`coefficients_at` on residues modulo the prime."""
    rows = independent_rows_mod(rows_all, r) if r else []
    if len(rows) < r:
        return None
    c = solve_mod([rows_all[i] for i in rows], [v[i] for i in rows]) if r else []
    if c is None or any(sum(a * b for a, b in zip(rows_all[i], c)) % PRIME != v[i]
                        for i in range(len(v))):
        return None
    return c, rows


def _exact_zero(e: sp.Expr) -> bool | None:
    """``True``/``False`` when the zero test is certain, else ``None``."""
    if e == 0:
        return True
    try:
        v = _EXACT.zero_test(e)
    except UNDECIDABLE_ERRORS:
        return None
    return bool(v.zero) if v.certain else None


class _Exprs:
    """Arithmetic of the guess-and-verify on sympy expressions (zero policy decisions)."""

    def __init__(self):
        self.zero = sp.S.Zero

    @staticmethod
    def const(c: Fraction) -> sp.Rational:
        return sp.Rational(c.numerator, c.denominator)

    @staticmethod
    def is_zero(e) -> bool | None:
        return _exact_zero(e)

    @staticmethod
    def solve(A: list[list], b: list) -> tuple[list, object] | None:
        """``(numerators, denominator)`` of the solution of the square system."""
        try:
            x = solve_linear(sp.Matrix(A), sp.Matrix(b), what="minor")
        except (ValueError, *UNDECIDABLE_ERRORS):
            return None
        return list(x), sp.S.One


class _Ring:
    r"""The same in a :class:`~geomech.core.algebra.differential_ring.DiffRing` whose angles are
    independent: an element is zero iff its remainder modulo :math:`\sin^2+\cos^2=1` is (exact, no
    sympy expression built); square systems by Cramer's rule with memoised minors."""

    def __init__(self, R):
        self.R = R
        self.zero = R.ring.zero
        self._dom = R.ring.domain

    def const(self, c: Fraction):
        return self._dom(c.numerator) / self._dom(c.denominator)

    def is_zero(self, e) -> bool:
        return self.R.is_zero(e)

    def convert(self, p):
        return p

    def solve(self, A: list[list], b: list, limit: int = 10):
        """``(numerators, denominator)`` by Cramer's rule on the reduced rows (``None`` above
        ``limit`` unknowns)."""
        if len(A) > limit:
            return None
        rows = [[self.R.reduce(e) for e in r] + [self.R.reduce(bi)] for r, bi in zip(A, b)]
        return LaplaceMinors(rows, self.zero, self.R.reduce).cramer()


class _FlintRing(_Ring):
    r""":class:`_Ring` on python-flint's ``fmpq_mpoly`` (lex order, the ring's generator
    order, so each :math:`\sin L` precedes its :math:`\cos L`): the remainder modulo
    :math:`\sin^2 L + \cos^2 L - 1` by multivariate division is the same unique normal
    form, computed in C."""

    def __init__(self, R):
        self.R = self
        self.ctx = flint.fmpq_mpoly_ctx.get(tuple(f"g{i}" for i in range(len(R.gens))), "lex")
        g = self.ctx.gens()
        self.rel = [g[i] ** 2 + g[j] ** 2 - 1 for i, j in R.trig_pairs]
        self.zero = self.ctx.from_dict({})

    @staticmethod
    def const(c: Fraction):
        return flint.fmpq(c.numerator, c.denominator)

    def convert(self, p):
        if isinstance(p, flint.fmpq_mpoly):
            return p
        return self.ctx.from_dict(dict(p.items()))

    def reduce(self, f):
        for r in self.rel:
            f = f % r
        return f

    def is_zero(self, e) -> bool:
        return not self.reduce(e)


def _residuals_vanish(ar, basis, v, nums: dict, den, rows) -> bool | None:
    r"""Exact test of :math:`\mathrm{den}\,v_i - \sum_k \mathrm{num}_k b_{k,i} = 0` on
    ``rows``: ``True`` when all vanish, ``False`` when one is certainly non-zero, ``None``
    when undecided."""
    undecided = False
    for i in rows:
        e = den * v[i] if den != 1 else v[i]
        for k, c in nums.items():
            if c != 0 and basis[k][i] != 0:
                e = e - c * basis[k][i]
        z = ar.is_zero(e)
        if z is False:
            return False
        undecided = undecided or z is None
    return None if undecided else True


def certified_membership(basis: Sequence[Sequence], v: Sequence, samples: Sequence[tuple],
                         ring=None, modular: bool = False) -> bool | None:
    r"""Whether ``v`` lies in the span of the generically independent ``basis`` vectors,
    decided exactly, guided by ``samples`` = ``[(basis values, v values)]`` at points where
    the basis is independent (exact rationals).  ``True``: proved in the span; ``False``:
    proved outside; ``None``: undecided (no sample, or a zero test was not certain).

    The vectors are sympy expressions, or elements of the
    :class:`~geomech.core.algebra.differential_ring.DiffRing` ``ring`` (whose angles must be
    independent, as the rings of vector fields are): then every test is a remainder in the ring.
    With ``modular`` the samples are residues modulo
    :data:`~geomech.core.algebra.modular.PRIME` (rows independent there are independent
    over :math:`\mathbb Q`; constant coefficients are recovered by rational reconstruction
    and, like everything else, verified exactly).
    """
    if ring is None:
        ar = _Exprs()
    else:
        fast = flint is not None and type(ring.ring.domain.one).__name__ == "fmpq"
        ar = _FlintRing(ring) if fast else _Ring(ring)
        basis = [[ar.convert(p) for p in b] for b in basis]
        v = [ar.convert(p) for p in v]
    n = len(v)
    # a component proved non-zero by an interval enclosure spares the exact zero tests
    # (which normalise expressions with roots: 0.1-0.3 s each for the rolling ellipsoid)
    if not (ring is None and any(enclosure_nonzero(e) for e in v)) \
            and all(ar.is_zero(e) is True for e in v):
        return True
    got = [coefficients_at(bp, vp, modular=modular) for bp, vp in samples]
    got = [g for g in got if g is not None]
    if not got:
        return None
    r = len(basis)
    first = got[0][0]
    if all(c == first for c, _ in got):
        consts = [rational_reconstruction(c) for c in first] if modular else first
        if None not in consts:
            coeffs = {k: ar.const(c) for k, c in enumerate(consts) if c}
            if _residuals_vanish(ar, basis, v, coeffs, 1, range(n)) is True:
                return True
    support = sorted({k for c, _ in got for k in range(r) if c[k] != 0})
    tries = [support] if len(support) == r else [support, list(range(r))]
    for cols in tries:
        verdict = _solved_and_verified(ar, basis, v, cols, samples, modular)
        if verdict is True or (verdict is False and len(cols) == r):
            return verdict
    return None


def _solved_and_verified(ar, basis, v, cols: list[int], samples, modular: bool = False
                         ) -> bool | None:
    """Coefficients on ``cols`` from a square subsystem independent at a sample point,
    then the other rows tested exactly."""
    if not cols:
        return _residuals_vanish(ar, basis, v, {}, 1, range(len(v)))
    bp = samples[0][0]
    find = independent_rows_mod if modular else independent_rows
    # rows taken from the last coordinate backwards: the first coordinates of a mechanism
    # are its position (x, y), whose rows share the factors cos/sin of the heading, and
    # Cramer's minors on them are large before they cancel (the car with 9 trailers: 0.05 s
    # against 4 s); any choice independent at the point gives the same exact verdict
    order = list(range(len(v)))[::-1]
    rows = find([[bp[k][i] for k in cols] for i in order], len(cols))
    rows = sorted(order[i] for i in rows)
    if len(rows) < len(cols):
        return None
    got = ar.solve([[basis[k][i] for k in cols] for i in rows], [v[i] for i in rows])
    if got is None:
        return None
    nums, den = got
    others = [i for i in range(len(v)) if i not in rows]
    return _residuals_vanish(ar, basis, v, dict(zip(cols, nums)), den, others)
