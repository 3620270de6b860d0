r"""Rings and fraction fields of expressions: the exact arithmetic under every normal form.

:func:`polynomial_ring` and :func:`fraction_field` build (cached) sympy rings
:math:`\mathbb Q[g_1,\dots,g_n]` and fields :math:`\mathbb Q(g_1,\dots,g_n)` for given
generators -- coordinates, parameters, or atoms such as :math:`\sin s`.  The only place in
geomech where rings are constructed.

:class:`RationalAlgebra` is the ring of a set of expressions,

.. math:: A = \mathbb Q[x, \sin s, \cos s, \sqrt b, \dots] \,/\,
          (\sin^2 s + \cos^2 s - 1,\ (\sqrt b)^2 - b),

with lazy fractions (a common denominator is formed only where the denominators of a sum
differ) and the normal form of the relations (:meth:`RationalAlgebra.reduce`, degree < 2 in
each :math:`\cos s` -- or each :math:`\sin s` -- and in each square root; computed in
:mod:`geomech.core.algebra.reduction`).  The relation
:math:`\sin^2+\cos^2=1` is the Gröbner basis of the ideal of relations of
:math:`(\sin s, \cos s)` over :math:`\mathbb Q(s)` (Cox, Little & O'Shea, *Ideals, Varieties,
and Algorithms*, 2015, §2.6), so the reduced form of a polynomial in symbols and
:math:`\sin s, \cos s` of symbols is canonical.  The generators, their relations and
derivations are described by :class:`~geomech.core.algebra.generators.RingGenerators`
(:attr:`RationalAlgebra.generators`), as for the polynomial differential ring
:class:`~geomech.core.algebra.differential_ring.DiffRing`; derivatives of fractions are
:mod:`geomech.core.algebra.calculus`.

>>> import sympy as sp
>>> p, m = sp.symbols("phi m", real=True)
>>> A = RationalAlgebra([m*sp.cos(p)**2 + m*sp.sin(p)**2])
>>> n, d = A.fraction(m*sp.cos(p)**2 + m*sp.sin(p)**2)
>>> A.expr(A.reduce(n))
m
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

import sympy as sp
from sympy.polys.fields import FracField
from sympy.polys.rings import PolyRing

from geomech.core.algebra.angles import angle_terms, base_angles
from geomech.core.algebra.divisibility import (
    sum_monomial_gcd,
    sum_with_gcd,
)
from geomech.core.algebra.fraction_forms import (
    GCD_LIMIT,
    cancel_by_factors,
    content_expr,
)
from geomech.core.algebra.generators import RingGenerators
from geomech.core.algebra.reduction import (
    RelationReducer,
)
from geomech.core.budget import check, poll
from geomech.core.exprbuild import ring_to_expr
from geomech.core.flintpolys import poly_cancel, poly_mul
from geomech.core.opcount import count_ops  # == sympy.count_ops, faster
from geomech.core.parse import as_expr

__all__ = ["UnsupportedExpression", "polynomial_ring", "fraction_field", "forget_rings",
           "quotient_rule", "RationalAlgebra"]


@functools.lru_cache(maxsize=512)
def _cached_ring(gens: tuple, domain) -> PolyRing:
    return PolyRing(gens, domain)


@functools.lru_cache(maxsize=512)
def _cached_field(gens: tuple, domain) -> FracField:
    return FracField(gens, domain)


def polynomial_ring(gens: Iterable, domain=sp.QQ) -> PolyRing:
    r"""The sparse polynomial ring :math:`K[g_1,\dots,g_n]` (``K = QQ`` by default).

    ``gens`` are sympy symbols or atoms (``sin(phi)``); parameters are generators like any
    other, so results are exact in them.  Rings are cached: equal generators give the same
    ring object.

    >>> import sympy as sp
    >>> x, k = sp.symbols("x k")
    >>> R = polynomial_ring([x, k])
    >>> R.from_expr((x + k)**2).as_expr()
    k**2 + 2*k*x + x**2
    >>> R is polynomial_ring((x, k))
    True
    """
    gens = tuple(gens)
    if not gens:
        raise ValueError("a polynomial ring needs at least one generator")
    return _cached_ring(gens, domain)


def fraction_field(gens: Iterable, domain=sp.QQ) -> FracField:
    r"""The field of rational functions :math:`K(g_1,\dots,g_n)` (``K = QQ`` by default).

    >>> import sympy as sp
    >>> x, k = sp.symbols("x k")
    >>> F = fraction_field([x, k])
    >>> F.from_expr(1/(x - k)) + F.from_expr(1/(k - x)) == F.zero
    True
    """
    gens = tuple(gens)
    if not gens:
        raise ValueError("a fraction field needs at least one generator")
    return _cached_field(gens, domain)


@functools.lru_cache(maxsize=1024)
def _root_generator(radicand: sp.Expr) -> sp.Dummy:
    r"""The ring generator :math:`\rho` standing for :math:`\sqrt{b}`, one per radicand ``b``
    (its normal form): algebras of the same expressions have the same ring, so its cached
    normal forms (:func:`~geomech.core.algebra.reduction.shared_normal_forms`) are shared.

    >>> x = sp.Symbol("x")
    >>> _root_generator(x + 1) is _root_generator(x + 1) is not _root_generator(x)
    True
    """
    return sp.Dummy("sqrt")


def forget_rings() -> None:
    """Forget the cached rings, fields and root generators (cold-cache measurements)."""
    _cached_ring.cache_clear()
    _cached_field.cache_clear()
    _root_generator.cache_clear()


def quotient_rule(nd: tuple, derivation: Callable,
                  constant: Callable | None = None) -> tuple:
    r"""The derivative of the fraction ``nd = (n, d)`` of ring elements under a derivation
    ``D`` of the ring (a callable on polynomials), by the quotient rule

    .. math:: D\Big(\frac nd\Big) = \frac{D(n)\,d - n\,D(d)}{d^2},

    left uncancelled (``(D(n), d)`` when ``d`` is constant: ``d.is_ground``, or
    ``constant(d)`` for polynomials of another kind, e.g. flint's).  The one quotient rule
    of the fraction calculi (:mod:`~geomech.core.algebra.calculus`,
    :mod:`~geomech.core.algebra.free_calculus`).

    >>> R = polynomial_ring(sp.symbols("x y"))
    >>> x, y = R.gens
    >>> quotient_rule((y, x), lambda p: p.diff(x))          # d/dx (y/x)
    (-y, x**2)
    """
    n, d = nd
    dn = derivation(n)
    if (d.is_ground if constant is None else constant(d)):
        return dn, d
    dd = derivation(d)
    return (dn, d) if not dd else (dn * d - n * dd, d * d)


class UnsupportedExpression(Exception):
    """An expression outside the rational functions in symbols, sin/cos and square roots."""


_TRIG = (sp.sin, sp.cos, sp.tan, sp.cot, sp.sec, sp.csc)



def _xreplace_shared(e, rule: dict, memo: dict):
    """``e.xreplace(rule)`` with a memo over equal sub-expressions (the same rebuild:
    a node in ``rule`` is replaced, otherwise rebuilt from its replaced arguments when one
    changed)."""
    got = memo.get(e)
    if got is not None:
        return got
    if e in rule:
        out = rule[e]
    elif not e.args:
        out = e
    else:
        args = tuple(_xreplace_shared(a, rule, memo) if isinstance(a, sp.Basic) else a
                     for a in e.args)
        out = e.func(*args) if any(a is not b for a, b in zip(args, e.args)) else e
    memo[e] = out
    return out


def _collect_atoms(e: sp.Expr, syms: set, angles: set, sqrt_pows: dict, opaque: set) -> None:
    stack = [e]
    while stack:
        x = stack.pop()
        if x.is_Symbol:
            syms.add(x)
        elif x.is_Number:
            if not x.is_Rational:
                raise UnsupportedExpression(x)
        elif x.is_Add or x.is_Mul:
            stack.extend(x.args)
        elif x.is_Pow:
            ex = x.exp
            if ex.is_Integer:
                stack.append(x.base)
            elif ex.is_Rational and ex.q == 2 and not any(
                    p.is_Pow and not p.exp.is_Integer for p in sp.preorder_traversal(x.base)):
                sqrt_pows[x] = (x.base, int(ex.p))
                stack.append(x.base)
            else:
                opaque.add(x)
        elif isinstance(x, _TRIG) and angle_terms(x.args[0]) is not None:
            angles.add(x)
        elif x.is_Atom or x.has(sp.zoo, sp.nan, sp.oo):
            raise UnsupportedExpression(x)
        else:
            opaque.add(x)


class RationalAlgebra:
    r""":math:`\mathbb Q[\text{symbols}, \sin s, \cos s, \sqrt{b}, \dots]` with the relations
    :math:`\sin^2s+\cos^2s=1` and :math:`(\sqrt b)^2 = b` (``b`` a polynomial of the ring).

    Trigonometric functions (``sin``, ``cos``, ``tan``, ``cot``, ``sec``, ``csc``) of rational
    combinations of symbols are written in one base angle per symbol (:func:`base_angles`:
    ``sin(x/2)`` and ``cos(x)`` become polynomials in :math:`\sin(x/2), \cos(x/2)`), so the
    reduced form is canonical on them too.  Square roots are keyed by the normal form of their
    radicand, so ``sqrt(b)`` and ``sqrt(b')`` with :math:`b\equiv b'` are one generator.
    Other atoms (free functions, functions of other arguments, powers with symbolic
    exponents) are free generators without relations: the ring is then not *faithful*.

    Parameters
    ----------
    exprs : iterable of sympy expressions
        The expressions whose atoms generate the ring.
    exclude : iterable of symbols, optional
        Symbols that are not generators (the unknowns of linear equations, handled by
        :mod:`geomech.core.algebra.linear_forms`).
    values : dict, optional
        ``{symbol: rational}``: the algebra of the expressions *specialised* at these values
        (parameters at a point, unknowns set to zero); the symbols are not generators.
    decide : callable, optional
        Zero test used by :meth:`is_zero` when the ring is not *faithful* (it has free
        atoms whose relations it does not know, e.g. ``sin(2*x)`` beside ``sin(x)``); the
        mechanics layer passes ``default_policy().is_zero``.  Without it such a test raises
        :class:`UnsupportedExpression` (never a formal "non-zero").

    Raises
    ------
    UnsupportedExpression
        For floats, ``nan``, infinities, ``I``, ``pi`` or a square root of a number.

    Examples
    --------
    >>> import sympy as sp
    >>> x, s = sp.symbols("x s")
    >>> A = RationalAlgebra([x/sp.sin(s)])
    >>> n, d = A.fraction(sp.cos(s)**2/sp.sin(s) + sp.sin(s))
    >>> A.expr(A.reduce(n)), A.expr(d)
    (1, sin(s))
    >>> A.faithful
    True
    """

    def __init__(self, exprs, decide: Callable[[sp.Expr], bool] | None = None,
                 exclude: Iterable[sp.Symbol] = (), values: dict | None = None):
        self.decide = decide
        self._value_exprs = {k: sp.Rational(v) for k, v in (values or {}).items()}
        self.values = {k: sp.QQ.from_sympy(v) for k, v in self._value_exprs.items()}
        syms: set = set()
        atoms: set = set()
        sqrt_pows: dict = {}
        opaque: set = set()
        for e in exprs:
            _collect_atoms(as_expr(e), syms, atoms, sqrt_pows, opaque)
        syms -= set(exclude) | set(self.values)     # not generators
        key = sp.default_sort_key
        base, self._angle_rep = base_angles(atoms)
        self.base = base                                   # symbol -> base angle s/m
        self.angles = sorted(base.values(), key=key)
        trig = [f(a) for a in self.angles for f in (sp.sin, sp.cos)]
        base_gens = (*sorted(syms, key=key), *sorted(opaque, key=key), *trig)
        self.opaque = bool(opaque)
        self._rep = dict(self._angle_rep)
        self._sqrt, sq_map = self._square_roots(sqrt_pows, base_gens)
        gens = (*[g for g, _ in self._sqrt], *base_gens) or (sp.Dummy("one"),)
        self.ring = polynomial_ring(gens)
        self.field = fraction_field(gens)
        self.generators = RingGenerators(gens, dict(self._sqrt))
        self._set_trig()
        self._rep.update({pw: g**k for pw, (g, k) in sq_map.items()})
        self._back = {g: sp.sqrt(b) for g, b in self._sqrt}
        roots = [(i, self.reduce(self.ring.from_expr(b), "sin"))
                 for i, (_, b) in enumerate(self._sqrt)]
        self.reducer = RelationReducer(self.ring, roots, self.reducer.trig)

    def _square_roots(self, sqrt_pows: dict, base_gens: tuple) -> tuple[list, dict]:
        """One generator per square root, keyed by the normal form of its radicand."""
        if not sqrt_pows:
            return [], {}
        if not base_gens:
            raise UnsupportedExpression("square root of a number")
        base_ring = polynomial_ring(base_gens)
        self.ring = base_ring
        self._set_trig()
        sq_map, bases = {}, {}
        for pw, (b, k) in sqrt_pows.items():
            try:
                if self.values:
                    b = b.xreplace(self._value_exprs)
                pb = base_ring.from_expr(b.xreplace(self._angle_rep) if self._angle_rep else b)
            except (ValueError, sp.PolynomialError, sp.CoercionFailed) as exc:
                raise UnsupportedExpression(b) from exc
            nb = self.reduce(pb, "sin")
            frozen = tuple(sorted(nb.items()))
            if frozen not in bases:
                rb = nb.as_expr()
                bases[frozen] = (_root_generator(rb), rb)
            sq_map[pw] = (bases[frozen][0], k)
        return list(bases.values()), sq_map

    def _set_trig(self) -> None:
        r"""The reducer of :math:`\sin^2+\cos^2=1` alone in :attr:`ring` (the square roots'
        relations are added once their radicands are reduced)."""
        pairs = RingGenerators(self.ring.symbols).trig_pairs
        self.reducer = RelationReducer(self.ring, (), list(pairs))

    @property
    def faithful(self) -> bool:
        """Whether the reduced form is canonical: no free atoms and no square roots (then a
        non-zero reduced element is a non-zero function)."""
        return not (self.opaque or self._sqrt)

    @property
    def has_roots(self) -> bool:
        """Whether square roots are generators of the ring."""
        return bool(self._sqrt)

    def with_roots(self, e: sp.Expr) -> sp.Expr:
        """``e`` with its square roots replaced by the ring's root generators
        (``e.xreplace``, each shared sub-expression walked once)."""
        return _xreplace_shared(e, self._rep, {}) if self._rep else e

    # -- conversion --------------------------------------------------------------------
    def fraction(self, e, memo: dict | None = None, gcd: bool = True, rooted: bool = False):
        r"""``(n, d)`` ring elements with :math:`e = n/d`, *not* cancelled.

        With ``gcd=True`` the gcd of two denominators is taken where a sum combines them;
        with ``gcd=False`` none is taken (a common denominator serves zero tests and
        coefficient splitting).  ``memo`` caches sub-expressions for one mode.  ``rooted``:
        ``e`` is a part of an expression passed through :meth:`with_roots` already (no
        second walk of the tree).
        """
        e = as_expr(e)
        return self._frac(e if rooted else self.with_roots(e), {} if memo is None else memo,
                          gcd)

    def frac(self, e):
        """``(numerator, denominator)`` ring elements of ``e`` (cancelled)."""
        e = as_expr(e)
        if self._rep:
            e = e.xreplace(self._rep)
        n, d = self._frac(e, {})
        if not d.is_ground:
            if len(n) * len(d) > GCD_LIMIT:
                n, d = self._cancel_factors(n, d)
            else:
                n, d = poly_cancel(n, d)
        return n, d

    def _frac(self, e, memo, gcd: bool = True):
        """Lazy fraction: gcds only where denominators of a sum differ.

        With ``gcd=False`` no gcd at all is taken (sums over different denominators
        multiply them; a denominator dividing another is absorbed by an exact division):
        any common denominator serves zero tests and coefficient splitting, and the
        multivariate gcds are what costs on large sums.  ``memo`` must not be shared
        between the two modes."""
        got = memo.get(e)
        if got is not None:
            return got
        R = self.ring
        if e.is_Add:
            check()
            acc: dict = {}
            for a in e.args:
                n, d = self._frac(a, memo, gcd)
                terms = acc.setdefault(d, {})
                for m, c in n.items():      # linear-time summation of many terms
                    terms[m] = terms.get(m, 0) + c
            items = [(d, R.from_dict({m: c for m, c in t.items() if c}))
                     for d, t in acc.items()]
            if not gcd:
                items.sort(key=lambda it: -len(it[0]))
            d, n = items[0]
            for d2, n2 in items[1:]:
                poll()
                n, d = (sum_with_gcd if gcd else sum_monomial_gcd)(n, d, n2, d2)
            out = (n, d)
        elif e.is_Mul:
            n, d = R.one, R.one
            for a in e.args:
                n2, d2 = self._frac(a, memo, gcd)
                poll()
                n, d = poly_mul(n, n2), poly_mul(d, d2)
            out = (n, d)
        elif e.is_Pow and e.exp.is_Integer:
            n, d = self._frac(e.base, memo, gcd)
            k = int(e.exp)
            if k < 0:
                n, d, k = d, n, -k
                if not d:
                    raise UnsupportedExpression("division by zero")
            out = (n**k, d**k)
        elif e in self.values:
            out = (R.ground_new(self.values[e]), R.one)
        else:
            try:
                out = (R.from_expr(e), R.one) if not e.is_Number else \
                    (R.ground_new(R.domain.from_sympy(e)), R.one)
            except (ValueError, sp.PolynomialError, sp.CoercionFailed) as exc:
                raise UnsupportedExpression(e) from exc
        memo[e] = out
        return out

    def domain_expr(self, c) -> sp.Expr:
        return self.ring.domain.to_sympy(c)

    def expr(self, p) -> sp.Expr:
        out = ring_to_expr(p)   # == p.as_expr(), built without sympy's flattening
        return out.xreplace(self._back) if self._back else out

    # -- reduction (geomech.core.algebra.reduction) ------------------------------------
    @property
    def trig_idx(self) -> list:
        r"""``(i_sin, i_cos)``: indices of :math:`\sin s, \cos s` for each base angle."""
        return self.reducer.trig

    @property
    def sqrt_rel(self) -> list:
        """``(index, b)``: square-root generators and their (reduced) radicands."""
        return self.reducer.roots

    def reduce(self, p, prefer: str = "sin"):
        """Normal form modulo the relations: degree < 2 in each square root and in each
        ``cos`` (``prefer="sin"``) or each ``sin`` (``prefer="cos"``); see
        :meth:`~geomech.core.algebra.reduction.RelationReducer.reduce`."""
        return self.reducer.reduce(p, prefer)

    def _reduce_passes(self, p, prefer: str = "sin"):
        """:meth:`reduce` by one pass per relation (the reference route)."""
        return self.reducer.reduce_passes(p, prefer)

    def is_zero(self, p) -> bool:
        """Whether the ring element ``p`` is zero as a function: exact when the reduced form
        vanishes or the ring is faithful, otherwise decided by ``decide``."""
        if not self.reduce(p):
            return True
        if not self.faithful:
            if self.decide is None:
                raise UnsupportedExpression("zero test with free atoms needs a zero policy")
            return self.decide(self.expr(p))
        return False

    def quotient(self, num, den) -> sp.Expr:
        """The shortest of the reduced, cancelled forms of ``num/den`` as an expression."""
        best, forms = None, []
        for prefer in ("sin", "cos") if self.trig_idx else ("sin",):
            n1, d1 = self.reduce(num, prefer), self.reduce(den, prefer)
            for _ in range(2):
                if len(n1) * len(d1) > GCD_LIMIT:
                    n2, d2 = self._cancel_factors(n1, d1)
                else:
                    n2, d2 = poly_cancel(n1, d1)
                if n2 == n1 and d2 == d1:
                    break
                n1, d1 = self.reduce(n2, prefer), self.reduce(d2, prefer)
            forms.append((len(n1) + len(d1), n1, d1))
        # a form with over 25% more terms is not built (count_ops is the cost here)
        fewest = min(f[0] for f in forms)
        forms = [f for f in forms if 4 * f[0] <= 5 * fewest]
        for _, n1, d1 in forms:
            cand = self._to_expr(n1, d1)
            ops = count_ops(cand) if len(forms) > 1 else 0
            if best is None or ops < best[0]:
                best = (ops, cand)
        return best[1]

    def _cancel_factors(self, n, d):
        """:func:`~geomech.core.algebra.fraction_forms.cancel_by_factors`, with the factor
        lists of denominators cached on the algebra."""
        return cancel_by_factors(n, d, self.__dict__.setdefault("_factor_cache", {}))

    def _to_expr(self, n, d) -> sp.Expr:
        if not n:
            return sp.S.Zero
        if d.is_ground:
            return self.expr(n) / self.expr(d)
        if d.LC < 0:
            n, d = -n, -d
        return content_expr(self, n) / content_expr(self, d)
