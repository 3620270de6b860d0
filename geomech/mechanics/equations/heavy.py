r"""Heavy bodies: exact derivatives with square roots, and structure functions from a coframe.

The rolling ellipsoid (Borisov & Mamaev (2015), §4.3) has the support function
:math:`\sqrt{(\gamma, B\gamma)}` in its constraints and Lagrangian; generic rational
normalisation of expressions built from it swells.  This module keeps such radicals as ring
generators :math:`\rho` with :math:`\rho^2 = b` (:class:`~geomech.core.algebra.RationalAlgebra`)
and differentiates in that ring,

.. math:: \partial_x\rho = \frac{\partial_x b}{2\rho} = \frac{\rho\,\partial_x b}{2b},

(:class:`RadicalCalculus`).  The structure functions of an adapted frame
:math:`(e_a)` with coframe :math:`(\theta^a)` (rows of :math:`E^{-1}`) follow from Cartan's
formula :math:`\theta^a([X, Y]) = -d\theta^a(X, Y)` for constant :math:`\theta^a(e_b)`
(Kobayashi & Nomizu (1963), Prop. I.3.11):

.. math:: c^a_{\alpha b} = -\sum_{i<j}\big(\partial_i\theta^a_j - \partial_j\theta^a_i\big)
          \big(v_\alpha^ie_b^j - v_\alpha^je_b^i\big)

(:func:`coframe_structure_functions`), with no bracket expression to normalise.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> rc = RadicalCalculus([sp.sqrt(1 + x**2)])
>>> rc.expr(rc.diff(rc.frac(sp.sqrt(1 + x**2)), x))
x/sqrt(x**2 + 1)
>>> has_radicals([x, sp.sqrt(1 + x**2)])
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import sympy as sp

from geomech.core.algebra import RingCalculus, UnsupportedExpression, compact, policy_algebra

__all__ = ["RadicalCalculus", "FactoredCalculus", "has_radicals", "coframe_structure_functions"]


def has_radicals(exprs: Iterable) -> bool:
    """Whether any of ``exprs`` contains a power with a non-integer rational exponent (a
    square root, e.g. of a support function).

    >>> t = sp.Symbol("t")
    >>> has_radicals([sp.sin(t), 1/t]), has_radicals([t**sp.Rational(3, 2)])
    (False, True)
    """
    return any(p.exp.is_Rational and not p.exp.is_Integer
               for e in exprs if isinstance(e, sp.Basic) for p in e.atoms(sp.Pow))


class RadicalCalculus(RingCalculus):
    r"""Derivatives of fractions in the ring of a
    :class:`~geomech.core.algebra.RationalAlgebra` with square-root generators
    :math:`\rho_k`, :math:`\rho_k^2 = b_k`: trigonometric generators by
    :math:`\partial_s\sin s = \cos s` (as :class:`~geomech.core.algebra.RingCalculus`),
    roots by :math:`\partial_x\rho = \rho\,\partial_xb/(2b)` (the radicands must be free of
    roots), fractions by the quotient rule.  Raises
    :class:`~geomech.core.algebra.UnsupportedExpression` for free functions or nested roots.

    >>> t = sp.Symbol("t", real=True)
    >>> e = 1/sp.sqrt(2 + sp.cos(t))
    >>> rc = RadicalCalculus([e])
    >>> rc.expr(rc.diff(rc.frac(e), t))
    sin(t)/(2*(cos(t) + 2)**(3/2))
    """

    def __init__(self, exprs):          # the ring may have roots (RingCalculus refuses them)
        self.alg = policy_algebra(list(exprs))
        if self.alg.opaque:             # free functions: their derivatives are not in the ring
            raise UnsupportedExpression("free functions")
        self.R = self.alg.ring
        self.idx = {g: i for i, g in enumerate(self.R.symbols)}
        G = self.R.gens
        self.roots = [(G[i], b) for i, b in self.alg.sqrt_rel]
        for _, b in self.roots:
            if any(b.degree(g) > 0 for g, _ in self.roots):
                raise UnsupportedExpression("nested square roots")

    def _d_plain(self, p, x):
        """Derivative through the symbol and trigonometric generators (roots fixed)."""
        return RingCalculus._d(self, p, x)

    def _d_frac(self, p, x) -> tuple:
        """``(n, d)``: the derivative of the ring element ``p`` as a fraction."""
        n, d = self._d_plain(p, x), self.R.one
        for rho, b in self.roots:
            dp = p.diff(rho)
            if not dp:
                continue
            db = self._d_plain(b, x)
            if not db:
                continue
            # n/d + dp * rho * db / (2 b)
            n, d = n * 2 * b + d * dp * rho * db, d * 2 * b
        return self.alg.reduce(n), d

    def certainly_nonzero(self, p) -> bool:
        r"""Whether the ring element ``p`` is provably a non-zero function, by the norms of
        the quadratic extensions: with :math:`p = p_0 + p_1\rho`, :math:`\rho^2 = b`,

        .. math:: N(p) = (p_0 + p_1\rho)(p_0 - p_1\rho) = p_0^2 - b\,p_1^2 ,

        so :math:`p \equiv 0` implies :math:`N(p) \equiv 0`; after eliminating every root the
        element lies in the trigonometric polynomial ring, where the reduced form is
        canonical.  ``False`` means *undecided* (never "zero").

        >>> t = sp.Symbol("t", real=True)
        >>> rc = RadicalCalculus([sp.sqrt(2 + sp.cos(t))])
        >>> rho = rc.R.gens[0]
        >>> rc.certainly_nonzero(rho - 1), rc.certainly_nonzero(rho**2 - 2 - rc.frac(sp.cos(t))[0])
        (True, False)
        """
        p = self.alg.reduce(p)
        for rho, b in self.roots:
            if not p:
                return False
            p0, p1 = p.coeff_wrt(rho, 0), p.coeff_wrt(rho, 1)
            if p1:
                p = self.alg.reduce(p0 * p0 - b * p1 * p1)
        return bool(self.alg.reduce(p)) and not self.alg.opaque

    def cancel(self, nd: tuple) -> tuple:
        """The fraction reduced modulo the relations and cancelled by the gcd."""
        n, d = self.alg.reduce(nd[0]), nd[1]
        if not n:
            return n, self.R.one
        if d.is_ground:
            return n, d
        return n.cancel(d)

    def add(self, x: tuple, y: tuple) -> tuple:
        """The sum of two fractions (over the lcm of the denominators), cancelled."""
        if not y[0]:
            return x
        if not x[0]:
            return y
        if x[1] == y[1]:
            return self.cancel((x[0] + y[0], x[1]))
        m = x[1].lcm(y[1])
        return self.cancel((x[0] * m.exquo(x[1]) + y[0] * m.exquo(y[1]), m))

    def diff(self, nd: tuple, x) -> tuple:
        """Derivative of the fraction ``nd = (n, d)`` with respect to the symbol ``x``."""
        n, d = nd
        dn, en = self._d_frac(n, x)
        if d.is_ground:
            return self.cancel((dn, en * d))
        dd, ed = self._d_frac(d, x)
        # (dn/en * d - n * dd/ed) / d^2
        return self.cancel((dn * ed * d - n * dd * en, en * ed * d * d))


class FactoredCalculus(RadicalCalculus):
    r""":class:`RadicalCalculus` with denominators kept as products of known factors
    :math:`\prod_i f_i^{e_i}` (the factors of the denominators of the given expressions and
    the radicands): sums and derivatives need no polynomial gcd,

    .. math:: \partial_x\frac{n}{\prod f_i^{e_i}} = \frac{\partial_xn\,\prod_{S}f_j
              - n\sum_{i\in S}e_i\,\partial_xf_i\prod_{S\setminus i}f_j}
              {\prod f_i^{e_i}\prod_{S}f_j},

    and the fraction is cancelled once, when written out (:meth:`expr`).  A fraction is
    ``(n, e)``: the numerator and the exponents of the factors.

    >>> t = sp.Symbol("t", real=True)
    >>> e = t/sp.sqrt(2 + sp.cos(t))
    >>> fc = FactoredCalculus([e])
    >>> from geomech.core.zero import default_policy
    >>> default_policy().is_zero(fc.expr(fc.diff(fc.diff(fc.frac(e), t), t)) - sp.diff(e, t, 2))
    True
    """

    def __init__(self, exprs):
        exprs = list(exprs)
        super().__init__(exprs)
        factors: list = [b for _, b in self.roots]
        rhos = {rho for rho, _ in self.roots}
        for e in exprs:
            _, d = self.alg.frac(e)
            if not d.is_ground:
                for f, _ in d.factor_list()[1]:
                    if f in rhos or -f in rhos:
                        continue        # 1/rho = rho/b: the radicand is a factor already
                    if any(f.degree(rho) > 0 for rho in rhos):
                        raise UnsupportedExpression("a square root inside a denominator")
                    if f not in factors and -f not in factors:
                        factors.append(f)
        self.factors = factors
        self._root_factor = {rho: factors.index(b) for rho, b in self.roots}

    def frac(self, e) -> tuple:
        """``(n, e)``: ``e`` as a numerator over a product of the known factors."""
        n, d = self.alg.frac(e)
        exps = [0] * len(self.factors)
        c, fl = d.factor_list()
        for f, k in fl:
            rho = next((r for r, _ in self.roots if f == r or f == -r), None)
            if rho is not None:         # n / rho^k = n rho^k / b^k
                n = n * rho**k * (-1 if f != rho and k % 2 else 1)
                exps[self._root_factor[rho]] += k
                continue
            i = self._index(f)
            if i is None:
                raise UnsupportedExpression("a denominator outside the known factors")
            if f not in self.factors:
                c = -c if k % 2 else c
            exps[i] += k
        return self.alg.reduce(n * self.R.ground_new(1 / self.R.domain.convert(c))), \
            tuple(exps)

    def _index(self, f):
        for i, g in enumerate(self.factors):
            if f == g or f == -g:
                return i
        return None

    def _den(self, exps) -> object:
        out = self.R.one
        for f, k in zip(self.factors, exps):
            if k:
                out *= f**k
        return out

    def mul(self, x: tuple, y: tuple) -> tuple:
        """Product of two fractions ``(n, e)``: numerators multiplied and reduced, exponents
        added."""
        if not x[0] or not y[0]:
            return self.R.zero, tuple(0 for _ in self.factors)
        return self.alg.reduce(x[0] * y[0]), tuple(a + b for a, b in zip(x[1], y[1]))

    def add(self, x: tuple, y: tuple) -> tuple:
        """Sum over the product of the larger exponents (no gcd)."""
        if not y[0]:
            return x
        if not x[0]:
            return y
        e = tuple(max(a, b) for a, b in zip(x[1], y[1]))
        nx = x[0] * self._den([a - b for a, b in zip(e, x[1])])
        ny = y[0] * self._den([a - b for a, b in zip(e, y[1])])
        return self.alg.reduce(nx + ny), e

    def diff(self, nd: tuple, x) -> tuple:
        """Derivative of ``(n, e)`` with respect to the symbol ``x`` (formula above)."""
        n, e = nd
        terms = []                     # (numerator, index of the extra factor or None)
        plain = self._d_plain(n, x)
        if plain:
            terms.append((plain, None))
        for rho, b in self.roots:      # d rho = rho * db / (2 b)
            dp = n.diff(rho)
            db = self._d_plain(b, x) if dp else None
            if db:
                terms.append((dp * rho * db * self.R.domain.convert(sp.QQ(1, 2)),
                              self._root_factor[rho]))
        for i, k in enumerate(e):      # d f^-k = -k f' / f * f^-k
            if k:
                df = self._d_plain(self.factors[i], x)
                if df:
                    terms.append((-k * n * df, i))
        extra = sorted({i for _, i in terms if i is not None})
        out = self.R.zero
        for t, i in terms:
            out += t * self._den([1 if j in extra and j != i else 0
                                  for j in range(len(self.factors))])
        exps = tuple(k + (1 if j in extra else 0) for j, k in enumerate(e))
        return self.alg.reduce(out), exps

    def at_zero(self, nd: tuple, syms) -> tuple:
        """The fraction with the generators ``syms`` set to zero (the factors must be free
        of them)."""
        n, e = nd
        for s in syms:
            if s in self.idx:
                n = n.subs(self.R.gens[self.idx[s]], 0)
        return n, e

    def expr(self, nd: tuple) -> sp.Expr:
        """The reduced, cancelled sympy form."""
        return self.alg.quotient(nd[0], self._den(nd[1]))


def coframe_structure_functions(frame: Sequence, Einv: sp.Matrix, coords: Sequence,
                                pairs: Iterable[tuple[int, int]]) -> dict:
    r"""``{(alpha, b): [c^1..c^n]}`` with :math:`[e_\alpha, e_b] = c^a_{\alpha b}e_a` for the
    frame ``frame`` (vector fields or component sequences; its coframe the rows of
    ``Einv``), by Cartan's formula (module docstring), derivatives in
    :class:`RadicalCalculus`.

    >>> x, y = sp.symbols("x y", real=True)
    >>> M = sp.Matrix([[1, 0], [y, 1]])                      # e_1 = d_x + y d_y, e_2 = d_y
    >>> coframe_structure_functions([M[:, 0], M[:, 1]], M.inv(), (x, y), [(0, 1)])[(0, 1)]
    [0, -1]
    """
    n = len(coords)
    comps = [list(getattr(X, "components", X)) for X in frame]
    rc = RadicalCalculus([*Einv, *(c for cs in comps for c in cs)])
    fr = [[rc.frac(Einv[a, j]) for j in range(n)] for a in range(n)]
    live = [i for i, q in enumerate(coords)
            if any(Einv[a, j].has(q) for a in range(n) for j in range(n))]
    dtheta = []                         # dtheta[a][(i, j)] = d_i theta_j - d_j theta_i
    for a in range(n):
        part = {(i, j): rc.expr(rc.diff(fr[a][j], coords[i])) for i in live for j in range(n)
                if Einv[a, j].has(coords[i])}
        dtheta.append({(i, j): part.get((i, j), 0) - part.get((j, i), 0)
                       for i in range(n) for j in range(i + 1, n)
                       if (i, j) in part or (j, i) in part})
    out = {}
    for al, b in pairs:
        X, Y = comps[al], comps[b]
        out[(al, b)] = [compact(-sp.Add(*[w * (X[i] * Y[j] - X[j] * Y[i])
                                          for (i, j), w in dtheta[a].items()]))
                        for a in range(n)]
    return out
