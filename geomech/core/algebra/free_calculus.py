r"""Lie brackets of rational fields in the free differential field of their atoms.

The components of a field such as the constraint distribution of the N-link snake of
Chaplygin sleighs (Ostrowski & Burdick 1998) are quotients of polynomials in symbols,
:math:`\sin\theta_i, \cos\theta_i` and the composite atoms :math:`\cos(\theta_i-\theta_j)`.
Here every atom is a *free* generator of :math:`K = \mathbb Q(g_1, \dots, g_n)` -- no relation
(:math:`\sin^2+\cos^2 = 1`, addition formulas) is used -- and the coordinate derivations are
the ones of :func:`sympy.diff`: :math:`\partial_x \sin u = \cos u\,\partial_x u`,
:math:`\partial_x\cos u = -\sin u\,\partial_x u` (so :math:`K` is closed under them when it
holds :math:`\sin u` and :math:`\cos u` of each argument :math:`u`, a polynomial in the
symbols).  The bracket

.. math:: [X, Y]^i = \sum_j X^j\partial_jY^i - Y^j\partial_jX^i

computed in :math:`K` and cancelled (flint's gcd) is therefore the *same element* of
:math:`K` as the sum of :func:`sympy.diff` terms that the generic route normalises with
``sympy.cancel``, whose output depends only on that element: the normal form of the zero
policy applied to the cancelled fraction
(:meth:`~geomech.core.zero.policy.ZeroPolicy.normalize_cancelled`) is identical to the generic
route's, without the multivariate ``cancel`` of a sum of thousands of fractions.

>>> import sympy as sp
>>> x, t = sp.symbols("x t")
>>> X, Y = (1, sp.sin(t)/sp.cos(t)), (0, x/sp.cos(t - x))
>>> from geomech.core.zero import default_policy
>>> Z = default_policy().normalize_cancelled(free_bracket(X, Y, (x, t))[1])
>>> sp.fraction(Z)[1]
cos(t)**2*cos(t - x)**2
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sympy as sp

from geomech.core.algebra.rings import polynomial_ring, quotient_rule
from geomech.core.budget import check
from geomech.core.exprbuild import ring_to_expr
from geomech.core.flintpolys import from_fmpq_mpoly, poly_cancel, qq_context, to_fmpq_mpoly
from geomech.core.parse import as_expr

__all__ = ["FreeTrigField", "free_bracket", "cancel_form", "cancel_quotient"]


def _polynomial(u: sp.Expr) -> bool:
    """Whether ``u`` is a polynomial in symbols with rational coefficients."""
    return all(a.is_Symbol or a.is_Rational or a.is_Add or a.is_Mul
               or (a.is_Pow and a.exp.is_Integer and a.exp >= 0)
               for a in sp.preorder_traversal(u))


def _atoms(exprs: Sequence[sp.Expr]) -> tuple[list, list] | None:
    """``(symbols, trig atoms)`` of rational expressions in symbols and ``sin``/``cos`` of
    polynomials in symbols (both ``sin u`` and ``cos u`` of each argument), else ``None``."""
    syms, args, stack = set(), set(), list(exprs)
    while stack:
        a = stack.pop()
        if isinstance(a, (sp.sin, sp.cos)):
            if not _polynomial(a.args[0]):
                return None
            args.add(a.args[0])
            syms |= a.args[0].free_symbols
        elif a.is_Symbol:
            syms.add(a)
        elif a.is_Rational:
            continue
        elif a.is_Add or a.is_Mul or (a.is_Pow and a.exp.is_Integer):
            stack.extend(a.args)
        else:
            return None
    trig = {f(u) for u in args for f in (sp.sin, sp.cos)}
    if any(not isinstance(g, (sp.sin, sp.cos)) for g in trig):
        return None      # an argument that sympy evaluates (sin(0) = 0 ...)
    return (sorted(syms, key=sp.default_sort_key), sorted(trig, key=sp.default_sort_key))


class FreeTrigField:
    r"""The field :math:`\mathbb Q(g_1,\dots,g_n)` of a set of expressions, its atoms free
    generators, with the derivations :math:`\partial_x` of :func:`sympy.diff` (module
    docstring).  Elements are pairs ``(numerator, denominator)`` of sparse polynomials.

    >>> t = sp.Symbol("t")
    >>> F = FreeTrigField([sp.sin(t)/sp.cos(t)], (t,))
    >>> F.expr(F.diff(F.frac(sp.sin(t)/sp.cos(t)), t))
    (sin(t)**2 + cos(t)**2)/cos(t)**2
    """

    def __init__(self, exprs: Sequence[sp.Expr], coords: Sequence[sp.Symbol]):
        found = _atoms(exprs)
        if found is None:
            raise ValueError("expressions outside the rational functions of symbols and "
                             "sin/cos of polynomials")
        syms, trig = found
        self.coords = tuple(coords)
        self.R = polynomial_ring([*syms, *trig] or [sp.Dummy()])
        self.idx = {g: i for i, g in enumerate(self.R.symbols)}
        #: d g / d x for each coordinate x: {gen index: ring element}
        self.dgen = {x: {i: self.R.from_expr(sp.diff(g, x)) for g, i in self.idx.items()
                         if g.has(x)} for x in self.coords}

    def frac(self, e: sp.Expr) -> tuple:
        """``e`` as ``(numerator, denominator)`` (not cancelled)."""
        n, d = sp.fraction(sp.together(e))
        return self.R.from_expr(n), self.R.from_expr(d)

    def dpoly(self, p, x):
        r""":math:`\partial_x p = \sum_g \partial p/\partial g\;\partial_x g`."""
        out = self.R.zero
        for i, dg in self.dgen[x].items():
            if dg:
                out += p.diff(self.R.gens[i]) * dg
        return out

    def diff(self, nd: tuple, x) -> tuple:
        """The quotient rule :math:`(n/d)' = (n'd - nd')/d^2`."""
        return quotient_rule(nd, lambda p: self.dpoly(p, x))

    def bracket_component(self, X: Sequence, Y: Sequence, i: int) -> tuple:
        r"""Component ``i`` of :math:`[X, Y]` (``X``, ``Y`` lists of fractions), cancelled:
        ``(p, q)`` as ``sympy``'s ``PolyElement.cancel`` normalises them."""
        check()                       # one unit of work per component
        n, d = _component_sum(X, Y, i, self.coords, self.diff, self.R.zero, self.R.one)
        return poly_cancel(n, d) if n else (n, self.R.one)

    def bracket(self, X: Sequence, Y: Sequence) -> list[tuple]:
        r"""Every component of :math:`[X, Y]` (:meth:`bracket_component`); with python-flint
        the same sums and products in flint's ``fmpq_mpoly`` (C), the operands converted
        once: the same polynomials, cancelled as :meth:`bracket_component` does."""
        ctx = qq_context(self.R.ngens)
        if ctx is None:
            return [self.bracket_component(X, Y, i) for i in range(len(self.coords))]
        conv = [[(to_fmpq_mpoly(n, ctx), to_fmpq_mpoly(d, ctx)) for n, d in V] for V in (X, Y)]
        dgen = {x: [(i, to_fmpq_mpoly(dg, ctx)) for i, dg in der.items() if dg]
                for x, der in self.dgen.items()}
        out = []
        for i in range(len(self.coords)):
            check()                   # one unit of work per component
            n, d = _flint_component(*conv, i, self.coords, dgen, ctx)
            n, d = from_fmpq_mpoly(self.R, n), from_fmpq_mpoly(self.R, d)
            out.append(poly_cancel(n, d) if n else (n, self.R.one))
        return out

    def expr(self, nd: tuple) -> sp.Expr:
        """The quotient as a sympy expression (not normalised)."""
        return nd[0].as_expr() / nd[1].as_expr()


def _component_sum(X: Sequence, Y: Sequence, i: int, coords: Sequence, diff: Callable,
                   zero, one) -> tuple:
    r"""``(n, d)`` of component ``i`` of :math:`[X, Y]` before cancelling:
    :math:`\sum_j X^j\,\partial_j Y^i - Y^j\,\partial_j X^i` over one running denominator,
    ``diff(f, x)`` the ``(n, d)`` of the derivative of a fraction ``f``; the same sums and
    products in any ring (sympy's or flint's)."""
    n, d = zero, one
    for j, x in enumerate(coords):
        for A, B, sign in ((X, Y, 1), (Y, X, -1)):
            if not A[j][0]:
                continue
            dn, dd = diff(B[i], x)
            if not dn:
                continue
            tn, td = A[j][0] * dn, A[j][1] * dd
            if sign < 0:
                tn = -tn
            if td == d:
                n = n + tn
            else:
                n, d = n * td + tn * d, d * td
    return n, d


def _flint_component(X: list, Y: list, i: int, coords: Sequence, dgen: dict, ctx) -> tuple:
    """``(n, d)`` of component ``i`` of :math:`[X, Y]` before cancelling, in flint
    (:func:`_component_sum` with flint's derivatives)."""
    def dpoly(p, x):
        out = ctx.from_dict({})
        for k, dg in dgen[x]:
            out += p.derivative(k) * dg
        return out

    def diff(f, x):
        return quotient_rule(f, lambda p: dpoly(p, x), _is_constant)

    return _component_sum(X, Y, i, coords, diff, ctx.from_dict({}),
                          ctx.from_dict({(0,) * ctx.nvars(): 1}))


def _is_constant(p) -> bool:
    return p.is_constant()


def cancel_form(p, q) -> sp.Expr:
    """The expression ``sympy.cancel`` returns for ``p/q`` when the polynomials ``p``, ``q``
    (over QQ) are coprime: integer coefficients without a common content, the leading
    coefficient of the denominator positive in sympy's order of its generators.

    >>> from sympy.polys.rings import ring
    >>> R, x, y = ring("x y", sp.QQ)
    >>> cancel_form(-x/2, y/3 - 1) == sp.cancel((-x/2).as_expr() / (y/3 - 1).as_expr())
    True
    """
    if q.is_ground:
        return ring_to_expr(p.quo_ground(q.LC))      # == as_expr(), built faster
    cp, P = p.clear_denoms()
    cq, Q = q.clear_denoms()
    P, Q = P.mul_ground(cq), Q.mul_ground(cp)
    g = sp.igcd(*[int(c) for c in P.coeffs()], *[int(c) for c in Q.coeffs()])
    if g != 1:
        P, Q = P.quo_ground(g), Q.quo_ground(g)
    Pe, Qe = ring_to_expr(P), ring_to_expr(Q)
    if sp.Poly(Qe).LC() < 0:
        Pe, Qe = ring_to_expr(-P), ring_to_expr(-Q)
    return Pe / Qe


def cancel_quotient(n: sp.Expr, d: sp.Expr) -> sp.Expr:
    """``sympy.cancel(n / d)`` for polynomials ``n``, ``d`` in symbols and function atoms,
    the gcd by flint (:func:`~geomech.core.flintpolys.poly_cancel`) and the form of
    :func:`cancel_form`; other expressions go to ``sympy.cancel``.

    >>> x, y = sp.symbols("x y")
    >>> cancel_quotient(x**2 - y**2, 2*y - 2*x)
    -x/2 - y/2
    """
    atoms = sorted(n.free_symbols | d.free_symbols, key=sp.default_sort_key) + sorted(
        (n.atoms(sp.Function) | d.atoms(sp.Function)), key=sp.default_sort_key)
    try:
        R = polynomial_ring(atoms or [sp.Dummy()])
        N, D = R.from_expr(n), R.from_expr(d)
    except (sp.polys.polyerrors.PolynomialError, ValueError, TypeError):
        return sp.cancel(n / d)
    if not D:
        return sp.cancel(n / d)
    return cancel_form(*poly_cancel(N, D)) if N else sp.S.Zero


def free_bracket(X: Sequence[sp.Expr], Y: Sequence[sp.Expr],
                 coords: Sequence[sp.Symbol]) -> list | None:
    r"""The components of :math:`[X, Y]` computed in :class:`FreeTrigField`, cancelled, in
    the form ``sympy.cancel`` gives the sum of :func:`sympy.diff` terms (:func:`cancel_form`);
    ``None`` in place of a component that is a non-zero polynomial (the generic route's form
    of those depends on how its terms were written: the caller computes them), and ``None``
    altogether when the components are outside the field.  The zero policy finishes each
    fraction (:meth:`~geomech.core.zero.policy.ZeroPolicy.normalize_cancelled`, as
    :func:`geomech.core.kernel.bracket_components` does).

    >>> x, t = sp.symbols("x t")
    >>> free_bracket((1, 0), (0, x*sp.cos(t)), (x, t))
    [0, None]
    """
    X, Y = [as_expr(c) for c in X], [as_expr(c) for c in Y]
    try:
        F = FreeTrigField([*X, *Y], coords)
    except (ValueError, sp.PolynomialError, sp.polys.polyerrors.CoercionFailed):
        return None
    FX, FY = [F.frac(c) for c in X], [F.frac(c) for c in Y]
    return [sp.S.Zero if not p else None if q.is_ground else cancel_form(p, q)
            for p, q in F.bracket(FX, FY)]
