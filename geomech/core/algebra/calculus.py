r"""Derivatives in the ring of a set of expressions: the one differential-ring calculus of
fractions.

:class:`RingCalculus` differentiates fractions of the ring of a
:class:`~geomech.core.algebra.rings.RationalAlgebra` (:math:`\partial_s\sin s = \cos s`,
:math:`\partial_s\cos s = -\sin s`, the quotient rule); :class:`RadicalCalculus` adds square
roots as generators :math:`\rho` with :math:`\rho^2 = b` (the support function
:math:`\sqrt{(\gamma, B\gamma)}` of the rolling ellipsoid, Borisov & Mamaev (2015), §4.3),

.. math:: \partial_x\rho = \frac{\partial_x b}{2\rho} = \frac{\rho\,\partial_x b}{2b},

exponentials and logarithms of ring elements as generators with
:math:`\partial_x e^u = e^u\partial_xu` and :math:`\partial_x\log u = \partial_xu/u`, and
:class:`FactoredCalculus` keeps denominators as products of known factors (no gcd).  The
derivation of the symbols and of :math:`\sin, \cos` is the one of the polynomial
differential ring, read with the ring's generators from their one description
(:meth:`~geomech.core.algebra.generators.RingGenerators.derivative`); this module adds the
fraction level: the quotient rule and the rules of roots, exponentials and logarithms.
Generic rational normalisation of expressions built from radicals swells; these stay in the
ring.  Used by the heavy bodies' equations of motion, the frames' structure functions
(:mod:`geomech.lie.coframe`), the almost-Poisson brackets, the divergence of the analyses
and the Lie brackets of fields with roots, exponentials or logarithms
(:meth:`RadicalCalculus.bracket`, called by :meth:`geomech.core.fields.VectorField.bracket`).

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

from geomech.core.algebra.rings import RationalAlgebra, UnsupportedExpression, quotient_rule
from geomech.core.algebra.solve import policy_algebra
from geomech.core.budget import check

__all__ = ["RingCalculus", "RadicalCalculus", "FactoredCalculus", "has_radicals"]


class RingCalculus:
    r"""Derivatives of rational functions in the ring of a :class:`RationalAlgebra`, as
    ``(numerator, denominator)`` pairs: :math:`\partial_s \sin s = \cos s`,
    :math:`\partial_s\cos s = -\sin s` and the quotient rule
    :math:`(n/d)' = (n'd - nd')/d^2`.

    Raises :class:`UnsupportedExpression` for expressions with square roots or free
    functions (whose derivatives are not in the ring).

    >>> x, s = sp.symbols("x s")
    >>> rc = RingCalculus([x*sp.sin(s)**2])
    >>> rc.expr(rc.diff(rc.frac(x*sp.sin(s)**2), s))
    2*x*sin(s)*cos(s)
    """

    def __init__(self, exprs):
        self.alg = RationalAlgebra(exprs)
        if not self.alg.faithful:
            raise UnsupportedExpression("square roots or free functions")
        self.R = self.alg.ring
        self.idx = self.alg.generators.index

    def frac(self, e):
        """``(n, d)``: ``e`` as a cancelled fraction of ring elements."""
        return self.alg.frac(e)

    def _d(self, p, x):
        """Derivative of the ring element ``p`` along the symbol ``x`` through the symbols
        and the angles (the polynomial derivation,
        :meth:`~geomech.core.algebra.generators.RingGenerators.derivative`; with the base
        angle :math:`x/m`, :math:`d/dx f(x/m) = f'(x/m)/m`)."""
        return self.R.from_dict(self.alg.generators.derivative(p, x))

    def diff(self, nd, x):
        """Derivative of the fraction ``nd = (n, d)`` with respect to the symbol ``x``."""
        return quotient_rule(nd, lambda p: self._d(p, x))

    def at_zero(self, nd, syms):
        """The fraction with the generators ``syms`` set to zero."""
        n, d = nd
        for s in syms:
            if s in self.idx:
                g = self.R.gens[self.idx[s]]
                n, d = n.subs(g, 0), d.subs(g, 0)
        return n, d

    def expr(self, nd) -> sp.Expr:
        """The shortest reduced, cancelled sympy form of the fraction."""
        return self.alg.quotient(*nd)


def _transcendental_arguments(exprs) -> list:
    """The arguments of the ``exp``/``log`` atoms of ``exprs`` (and of those in them): their
    generators belong to the ring, so the derivatives of the atoms do."""
    out, stack = [], [e for e in exprs if isinstance(e, sp.Basic)]
    while stack:
        for a in stack.pop().atoms(sp.exp, sp.log):
            out.append(a.args[0])
            stack.append(a.args[0])
    return out


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
    :class:`~geomech.core.algebra.rings.RationalAlgebra` with square-root generators
    :math:`\rho_k`, :math:`\rho_k^2 = b_k`: trigonometric generators by
    :math:`\partial_s\sin s = \cos s` (as :class:`RingCalculus`),
    roots by :math:`\partial_x\rho = \rho\,\partial_xb/(2b)` (the radicands must be free of
    roots), exponentials and logarithms of ring elements as generators with
    :math:`\partial_x e^u = e^u\,\partial_xu` and :math:`\partial_x\log u = \partial_xu/u`
    (no algebraic relation between them is used: zero tests of such elements go to the zero
    policy), fractions by the quotient rule.  Raises
    :class:`~geomech.core.algebra.rings.UnsupportedExpression` for free functions or nested roots.

    >>> t = sp.Symbol("t", real=True)
    >>> e = 1/sp.sqrt(2 + sp.cos(t))
    >>> rc = RadicalCalculus([e])
    >>> rc.expr(rc.diff(rc.frac(e), t))
    sin(t)/(2*(cos(t) + 2)**(3/2))
    """

    def __init__(self, exprs):          # the ring may have roots (RingCalculus refuses them)
        exprs = list(exprs)
        self.alg = policy_algebra([*exprs, *_transcendental_arguments(exprs)])
        self.R = self.alg.ring
        gens = self.alg.generators
        self.idx = gens.index
        G = self.R.gens
        self.roots = [(G[i], b) for i, b in self.alg.sqrt_rel]
        for _, b in self.roots:
            if any(b.degree(g) > 0 for g, _ in self.roots):
                raise UnsupportedExpression("nested square roots")
        if not gens.closed:
            raise UnsupportedExpression("free functions")
        # exp(u), log(u): generators E, L with dE = E du, dL = du/u
        self.transcendental = [(G[i], kind, self.frac(u)) for i, kind, u in gens.transcendental]

    def _d_plain(self, p, x):
        """Derivative through the symbol and trigonometric generators (roots fixed)."""
        return RingCalculus._d(self, p, x)

    def _generator_derivative(self, k: int, x):
        r"""``(n, d)``: the derivative along ``x`` of the ``k``-th root, exponential or
        logarithm generator, :math:`\partial\rho = \rho\,\partial b/(2b)`,
        :math:`\partial e^u = e^u\partial u`, :math:`\partial\log u = \partial u/u`
        (cached per symbol)."""
        memo = self.__dict__.setdefault("_gen_memo", {})
        got = memo.get((k, x))
        if got is None:
            if k < len(self.roots):
                rho, b = self.roots[k]
                got = (rho * self._d_plain(b, x), 2 * b)
            else:
                g, kind, u = self.transcendental[k - len(self.roots)]
                dn, dd = self.diff(u, x)
                got = (g * dn, dd) if kind is sp.exp else (dn * u[1], dd * u[0])
            memo[(k, x)] = got
        return got

    def _d_frac(self, p, x) -> tuple:
        """``(n, d)``: the derivative of the ring element ``p`` as a fraction."""
        n, d = self._d_plain(p, x), self.R.one
        gens = [rho for rho, _ in self.roots] + [g for g, _, _ in self.transcendental]
        for k, g in enumerate(gens):
            dp = p.diff(g)
            if not dp:
                continue
            gn, gd = self._generator_derivative(k, x)
            if gn:          # n/d + dp * gn / gd
                n, d = n * gd + d * dp * gn, d * gd
        return self.alg.reduce(n), d

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

    def bracket(self, X: Sequence, Y: Sequence, coords: Sequence) -> list:
        r"""Fractions of the Lie bracket of two fields given by the fractions of their
        components (:meth:`frac`),

        .. math:: [X, Y]^i = \sum_j X^j\partial_jY^i - Y^j\partial_jX^i ,

        every derivative, product and sum in the ring (no sympy expression is built).

        >>> x, y = sp.symbols("x y", real=True)
        >>> rc = RadicalCalculus([sp.sqrt(1 + x**2), y])
        >>> X = [rc.frac(c) for c in (1, 0)]
        >>> Y = [rc.frac(c) for c in (0, y*sp.sqrt(1 + x**2))]
        >>> [rc.expr(nd) for nd in rc.bracket(X, Y, (x, y))]
        [0, x*y/sqrt(x**2 + 1)]
        """
        zero, minus = self.frac(sp.S.Zero), self.frac(sp.S.NegativeOne)
        out = []
        for i in range(len(coords)):
            acc = zero
            for j, q in enumerate(coords):
                for a, b, sign in ((X[j], Y[i], None), (Y[j], X[i], minus)):
                    if not a[0]:
                        continue
                    check()
                    db = self.diff(b, q)
                    if db[0]:
                        term = self.mul(a, db)
                        acc = self.add(acc, term if sign is None else self.mul(sign, term))
            out.append(acc)
        return out

    def mul(self, x: tuple, y: tuple) -> tuple:
        """The product of two fractions, reduced and cancelled."""
        return self.cancel((x[0] * y[0], x[1] * y[1]))

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
        if self.transcendental:
            raise UnsupportedExpression("exponentials or logarithms in factored fractions")
        factors: list = [b for _, b in self.roots]
        rhos = {rho for rho, _ in self.roots}
        self._given: dict = {}      # e -> (n, d, d.factor_list()), reused by frac
        for e in exprs:
            _, d, (_, fl) = self._given[e] = self._factored(e)
            if not d.is_ground:
                for f, _ in fl:
                    if f in rhos or -f in rhos:
                        continue        # 1/rho = rho/b: the radicand is a factor already
                    if any(f.degree(rho) > 0 for rho in rhos):
                        raise UnsupportedExpression("a square root inside a denominator")
                    if f not in factors and -f not in factors:
                        factors.append(f)
        self.factors = factors
        self._root_factor = {rho: factors.index(b) for rho, b in self.roots}

    def _factored(self, e) -> tuple:
        """``(n, d, d.factor_list())`` of ``alg.frac(e)``, kept for the given expressions
        (their fractions are built once, by the constructor)."""
        got = self._given.get(e)
        if got is None:
            n, d = self.alg.frac(e)
            got = (n, d, d.factor_list())
        return got

    def frac(self, e) -> tuple:
        """``(n, e)``: ``e`` as a numerator over a product of the known factors."""
        n, _, (c, fl) = self._factored(e)
        exps = [0] * len(self.factors)
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
