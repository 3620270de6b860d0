r"""Expressions linear in unknown constants, as vectors of ring elements over one denominator.

A determining equation of a symmetry (Borisov & Mamaev (2015), Thms 3 and 4) is an
expression :math:`e = \sum_j c_j\,e_j(x)` linear homogeneous in unknown constants
:math:`c_j`.  :func:`linear_fraction` writes it as

.. math:: e = \frac{\sum_j c_j\,n_j}{d},\qquad n_j, d \in
          A = \mathbb Q[x, \sin s, \cos s, \rho]\,/\,(\sin^2s+\cos^2s-1,\ \rho^2 - b),

with the numerators :math:`n_j` reduced modulo the relations
(:meth:`~geomech.core.algebra.rings.RationalAlgebra.reduce`: degree < 2 in each root
:math:`\rho` and each :math:`\cos s`), so a polynomial never carries a high power of
:math:`\rho` to be reduced later.  The unknowns are *not* generators of the ring (the
exponent vectors stay short), the unknown-free factors are converted once (memoised) and
the denominator of a sum is the product over the monomial gcd
(:math:`\rho^3` and :math:`\rho^5` give :math:`\rho^5`, not :math:`\rho^8`).  The
coefficients of the monomials of each :math:`n_j` are the linear equations
(:func:`geomech.core.algebra.linear.ring_linear_rows`).

>>> import sympy as sp
>>> x, a, b = sp.symbols("x a b")
>>> e = a*x/sp.sqrt(1 + x**2) + b/sp.sqrt(1 + x**2)**3
>>> alg = RationalAlgebra([e], exclude=[a, b])
>>> vec, d = linear_fraction(alg, e, [a, b])
>>> sorted((j, alg.expr(n)) for j, n in vec.items()), alg.expr(d)
([(0, x**3 + x), (1, 1)], (x**2 + 1)**(3/2))
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra.divisibility import common_denominator
from geomech.core.algebra.rings import RationalAlgebra
from geomech.core.budget import check
from geomech.core.flintpolys import qq_context
from geomech.core.parse import as_expr

__all__ = ["linear_fraction", "tagged_linear_fraction", "NotLinear"]


class NotLinear(ValueError):
    """The expression is not linear homogeneous in the unknowns."""


class _Converter:
    """Memoised conversion of the sub-expressions of linear forms in one ring."""

    def __init__(self, alg: RationalAlgebra, unknowns: Sequence[sp.Symbol]):
        self.alg = alg
        self.R = alg.ring
        self.uidx = {c: j for j, c in enumerate(unknowns)}
        self.has_u: dict = {}
        self.const: dict = {}       # reduced fractions of the unknown-free parts
        self.memo: dict = {}        # alg.fraction's memo (one mode: gcd=False)
        self.lin: dict = {}
        self.rooted = False

    def depends(self, e) -> bool:
        """Whether ``e`` contains an unknown (memoised over the tree)."""
        got = self.has_u.get(e)
        if got is None:
            got = e in self.uidx if e.is_Symbol else any(self.depends(a) for a in e.args)
            self.has_u[e] = got
        return got

    def fraction(self, e) -> tuple:
        """``(n, d)`` of an unknown-free ``e``, ``n`` reduced."""
        got = self.const.get(e)
        if got is None:
            n, d = self.alg.fraction(e, self.memo, gcd=False, rooted=self.rooted)
            got = self.const[e] = (self.alg.reduce(n), d)
        return got

    def linear(self, e) -> tuple:
        """``({j: n_j}, d)`` of an ``e`` linear homogeneous in the unknowns."""
        return self._form(e, self.lin, self._plain_ops())

    def _plain_ops(self) -> tuple:
        """``(unit, scale, total)`` of the vectors as dicts ``{j: n_j}``."""
        one = self.R.one
        return (lambda j: {j: one}, lambda vec, n: {j: n * v for j, v in vec.items()},
                self._sum)

    def _form(self, e, memo: dict, ops: tuple) -> tuple:
        """``(vector, d)`` of ``e`` with the vector operations ``ops`` (memoised)."""
        got = memo.get(e)
        if got is None:
            got = memo[e] = self._build(e, memo, ops)
        return got

    def _build(self, e, memo: dict, ops: tuple) -> tuple:
        unit, scale, total = ops
        if e.is_Symbol:
            return unit(self.uidx[e]), self.R.one
        if e.is_Add:
            check()
            free = [a for a in e.args if not self.depends(a)]
            if any(self.fraction(a)[0] for a in free):
                raise NotLinear("a term free of the unknowns: the equation is not homogeneous")
            return total([self._form(a, memo, ops) for a in e.args if self.depends(a)])
        if e.is_Mul:
            lin = [a for a in e.args if self.depends(a)]
            if len(lin) != 1:
                raise NotLinear("a product of unknowns")
            n, d = self.R.one, self.R.one
            for a in e.args:
                if a is not lin[0]:
                    n2, d2 = self.fraction(a)
                    n, d = n * n2, d * d2
            vec, dv = self._form(lin[0], memo, ops)
            return scale(vec, n), d * dv
        raise NotLinear(f"an unknown inside {type(e).__name__}")

    def _sum(self, parts: list) -> tuple:
        """Sum of linear fractions over one common denominator
        (:func:`~geomech.core.algebra.divisibility.common_denominator`, no gcd): each part is
        multiplied by its cofactor once."""
        acc: dict = {}
        for vec, d in parts:
            tgt = acc.setdefault(d, {})
            for j, v in vec.items():
                tgt[j] = tgt[j] + v if j in tgt else v
        dens = sorted(acc, key=lambda d: -len(d))
        den = dens[0]
        for d2 in dens[1:]:
            den = common_denominator(den, d2)[0]
        out: dict = {}
        for d, vec in acc.items():
            f = den.exquo(d) if d != den else None
            for j, v in vec.items():
                v = v if f is None or f == 1 else v * f
                out[j] = out[j] + v if j in out else v
        return {j: v for j, v in out.items() if v}, den


class _TaggedConverter(_Converter):
    r""":class:`_Converter` with the vectors as one ``fmpq_mpoly``
    :math:`\sum_j \tau^j n_j` (variables: the ring's in ``order``, then the tag):
    one product per factor and one sum per term instead of one per unknown."""

    def __init__(self, alg: RationalAlgebra, unknowns: Sequence[sp.Symbol], ctx):
        super().__init__(alg, unknowns)
        self.ctx = ctx
        self.rooted = True          # tagged_linear_fraction replaces the roots once
        self.order = alg.reducer.division_order()
        self.n = alg.ring.ngens
        self.flint: dict = {}
        self.tag: dict = {}

    def to_flint(self, p):
        """The ring element ``p`` (free of the tag) in the tagged context, memoised."""
        got = self.flint.get(p)
        if got is None:
            order = self.order
            got = self.flint[p] = self.ctx.from_dict(
                {(*(m[i] for i in order), 0): c for m, c in p.items()})
        return got

    def tagged(self, e) -> tuple:
        r"""``(V, d)``: :math:`V=\sum_j \tau^j n_j` and :math:`d` of an ``e`` linear
        homogeneous in the unknowns (the same :math:`n_j, d` as :meth:`linear`)."""
        n = self.n
        ops = (lambda j: self.ctx.from_dict({(0,) * n + (j,): 1}),
               lambda vec, c: vec if c == 1 else self.to_flint(c) * vec, self._tagged_sum)
        return self._form(e, self.tag, ops)

    def _tagged_sum(self, parts: list) -> tuple:
        """:meth:`_Converter._sum` of tagged parts."""
        acc: dict = {}
        for vec, d in parts:
            acc[d] = acc[d] + vec if d in acc else vec
        dens = sorted(acc, key=lambda d: -len(d))
        den = dens[0]
        for d2 in dens[1:]:
            den = common_denominator(den, d2)[0]
        out = self.ctx.from_dict({})
        for d, vec in acc.items():
            f = den.exquo(d) if d != den else None
            out += vec if f is None or f == 1 else self.to_flint(f) * vec
        return out, den


def linear_fraction(alg: RationalAlgebra, e: sp.Expr, unknowns: Sequence[sp.Symbol],
                    converter: _Converter | None = None) -> tuple[dict, object]:
    r"""``({j: n_j}, d)`` with :math:`e = \sum_j c_j n_j / d` (module docstring).

    ``alg`` must be built with ``exclude=unknowns``; ``n_j`` are reduced modulo its
    relations, ``d`` is free of the unknowns.  Raises :class:`NotLinear` when ``e`` is not
    linear homogeneous in ``unknowns`` (a term free of them, a product of two of them, an
    unknown inside a function), :class:`~geomech.core.algebra.rings.UnsupportedExpression`
    for atoms outside the ring.
    """
    conv = converter if converter is not None else _Converter(alg, unknowns)
    e = alg.with_roots(as_expr(e)) if conv.rooted else as_expr(e)
    if not conv.depends(e):         # e.g. all its unknowns specialised to zero
        if e == 0 or not conv.fraction(e)[0]:
            return {}, alg.ring.one
        raise NotLinear("the expression is free of the unknowns and not zero")
    vec, d = conv.linear(e)
    red = alg.reduce
    vec = {j: red(v) for j, v in vec.items()}
    return {j: v for j, v in vec.items() if v}, d


def tagged_linear_fraction(alg: RationalAlgebra, e: sp.Expr, unknowns: Sequence[sp.Symbol],
                           converter: _Converter | None = None) -> tuple | None:
    r""":func:`linear_fraction` as one polynomial: ``(F, d, order)`` with

    .. math:: F = \sum_j \tau^j\, n_j \in \mathbb Q[x, \sin s, \cos s, \rho][\tau],

    an ``fmpq_mpoly`` whose last generator is the tag :math:`\tau` (its exponent numbers
    the unknown) and whose variable ``v`` is the ring's generator ``order[v]``
    (:meth:`~geomech.core.algebra.reduction.RelationReducer.division_order`), reduced
    modulo the relations in one division per relation
    (:meth:`~geomech.core.algebra.reduction.RelationReducer.reduce_division`; the
    reduction is linear over :math:`\mathbb Q[\tau]`, so :math:`F` holds exactly the
    reduced :math:`n_j` of :func:`linear_fraction`).  ``None`` without python-flint's
    rationals.

    >>> x, a, b = sp.symbols("x a b")
    >>> e = a*sp.sin(x)**2 + a*sp.cos(x)**2 - b
    >>> F, d, order = tagged_linear_fraction(RationalAlgebra([e], exclude=[a, b]), e, [a, b])
    >>> sorted(zip(F.monoms(), F.coeffs())), order
    ([((0, 0, 0), 1), ((0, 0, 1), -1)], (1, 0))
    """
    R = alg.ring
    ctx = qq_context(R.ngens + 1) if R.domain == sp.QQ else None
    if ctx is None:
        return None
    conv = converter if isinstance(converter, _TaggedConverter) else \
        _TaggedConverter(alg, unknowns, ctx)
    e = alg.with_roots(as_expr(e))
    if not conv.depends(e):
        if e == 0 or not conv.fraction(e)[0]:
            return ctx.from_dict({}), R.one, conv.order
        raise NotLinear("the expression is free of the unknowns and not zero")
    vec, d = conv.tagged(e)
    return alg.reducer.reduce_division(vec, conv.order), d, conv.order


def linear_fraction_memo(alg: RationalAlgebra, unknowns: Sequence[sp.Symbol]) -> _Converter:
    """A memo shared by several calls of :func:`linear_fraction` (and
    :func:`tagged_linear_fraction`, with python-flint's rationals) on one ring."""
    R = alg.ring
    ctx = qq_context(R.ngens + 1) if R.domain == sp.QQ else None
    return _Converter(alg, unknowns) if ctx is None else _TaggedConverter(alg, unknowns, ctx)
