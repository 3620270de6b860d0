r"""Exact certificates of the zero policy: the ring certificates (polynomials and
fractions in symbols and :math:`\sin, \cos` reduced modulo :math:`\sin^2+\cos^2=1`, a Gröbner
basis: Cox, Little & O'Shea 2015, *Ideals, Varieties, and Algorithms*, §2.6) and the
algebraic stage (each :math:`\sqrt P` an auxiliary symbol :math:`r_P` reduced modulo
:math:`r_P^2 - P`; non-zero-ness proved only for radicands independent modulo squares,
Besicovitch 1940, "On the linear independence of fractional powers of integers").

>>> x = sp.Symbol("x")
>>> trig_ring_zero_test(sp.sin(x)**4 - sp.cos(x)**4 - sp.sin(x)**2 + sp.cos(x)**2)
True
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from geomech.core.budget import check
from geomech.core.zero.verdicts import UNDECIDABLE_ERRORS

__all__ = ["algebra_certificate", "trig_ring_zero_test", "trig_fraction_zero_test",
           "vanishes_over_common_denominator", "pythagorean_shortening", "is_expanded_polynomial",
           "has_negative_power", "algebraic_reduction", "independent_mod_squares"]


def algebra_certificate(e: sp.Expr) -> bool | None:
    r"""Stage 1a: the ring certificate of :func:`geomech.core.algebra.ring_zero_test` (lazy
    common denominator, numerator reduced modulo the Pythagorean relations and
    :math:`(\sqrt b)^2 = b`): ``True`` only for a ring identity, ``False`` only when the ring
    is faithful, ``None`` otherwise."""
    # imported at call time: core.algebra's linear algebra imports this module
    from geomech.core.algebra.normal_form import ring_zero_test

    return ring_zero_test(e)


def trig_ring_zero_test(e: sp.Expr) -> bool | None:
    """Exact decision for polynomials in symbols and ``sin``/``cos`` of symbols (rational
    coefficients): the remainder modulo the Pythagorean relations is canonical."""
    from geomech.core.algebra.differential_ring import DiffRing

    R = DiffRing.for_expressions([e], ())
    if R is None:
        return None
    return R.is_zero(R.to_ring(e))


def trig_fraction_zero_test(e: sp.Expr) -> bool | None:
    """Exact decision for rational functions of symbols and ``sin``/``cos``/``tan``/... of
    symbols: ``tan``, ``sec``, ... become quotients of ``sin`` and ``cos``, and numerator and
    denominator of ``together`` are reduced modulo the Pythagorean relations (no ``cancel``).
    ``None`` when it does not apply or the denominator vanishes.

    >>> x = sp.Symbol("x")
    >>> trig_fraction_zero_test(sp.tan(x)*sp.cos(x) - sp.sin(x))
    True
    """
    rep = {a: {sp.tan: sp.sin(a.args[0]) / sp.cos(a.args[0]),
               sp.cot: sp.cos(a.args[0]) / sp.sin(a.args[0]),
               sp.sec: 1 / sp.cos(a.args[0]), sp.csc: 1 / sp.sin(a.args[0])}[a.func]
           for a in e.atoms(sp.tan, sp.cot, sp.sec, sp.csc)}
    n, d = sp.fraction(sp.together(e.xreplace(rep) if rep else e))
    from geomech.core.algebra.differential_ring import DiffRing

    R = DiffRing.for_expressions([n, d], ())
    if R is None or R.is_zero(R.to_ring(d)):
        return None
    return R.is_zero(R.to_ring(n))


def vanishes_over_common_denominator(e: sp.Expr) -> bool:
    """Cheap exact shortcut: the numerator of ``together(e)`` is zero in the trigonometric
    polynomial ring (modulo sin^2 + cos^2 = 1).  ``False`` means "not shown", not "non-zero".

    A sum of fractions that cancels (e.g. ``X(E)`` for a first integral ``E``) costs a
    ``together`` and a sparse-polynomial reduction instead of a multivariate ``cancel``.
    """
    from geomech.core.algebra.differential_ring import DiffRing

    n, _ = sp.fraction(sp.together(e))
    R = DiffRing.for_expressions([n], ())
    return R is not None and R.is_zero(R.to_ring(n))


def pythagorean_shortening(e: sp.Expr) -> sp.Expr:
    """Use ``sin(s)^2 + cos(s)^2 = 1`` when it shortens an expanded polynomial.

    When ``e`` is a polynomial in symbols and ``sin``/``cos`` of symbols, its two canonical
    remainders modulo the Pythagorean relations (``sin`` of degree < 2, or ``cos`` of degree
    < 2) are computed in the sparse ring and the expression with the fewest terms is kept
    (ties keep ``e``, then prefer the ``sin``-reduced form).  Other expressions use the
    substitution ``sin^2 -> 1 - cos^2`` / ``cos^2 -> 1 - sin^2`` with the same rule.  The
    result equals ``e`` as a function; this is cosmetics, never a zero decision.
    """
    if not e.is_Add:
        return e
    # sorted: the greedy reduction below depends on the order of the angles, which must
    # not follow the hash seed (the same input gives the same output in every process)
    angles = sorted({p.base.args[0] for p in e.atoms(sp.Pow) if p.exp.is_Integer
                     and p.exp >= 2 and isinstance(p.base, (sp.sin, sp.cos))},
                    key=sp.default_sort_key)
    if not angles:
        return e
    from geomech.core.algebra.differential_ring import DiffRing

    R = DiffRing.for_expressions([e], ())
    if R is not None:
        p = R.to_ring(e)
        best = R.shortest(p)
        return e if best is p else R.to_expr(best)
    fast = _shortening_in_ring(e, angles)
    if fast is not None:
        return fast
    best, n_best = e, len(e.args)
    for s in angles:
        sn, cs = sp.sin(s), sp.cos(s)
        for a, b in ((sn, cs), (cs, sn)):
            cand = sp.expand(_reduce_square(best, a, b))
            n = len(cand.args) if cand.is_Add else 1
            if n < n_best:
                best, n_best = cand, n
    return best


def _shortening_in_ring(e: sp.Expr, angles: list) -> sp.Expr | None:
    """The substitution rule of :func:`pythagorean_shortening` (each ``a**k``, ``k >= 2``,
    replaced by ``a**(k-2) * (1 - b**2)`` and expanded, for ``(a, b) = (sin s, cos s)`` and
    ``(cos s, sin s)`` in turn, the fewest terms kept) on the terms of a sparse polynomial
    in the atoms of ``e``: the same result without sympy's ``expand``.  ``None`` when ``e``
    is not an expanded polynomial in its atoms."""
    from geomech.core.algebra.rings import polynomial_ring
    from geomech.core.exprbuild import ring_to_expr

    pairs = [(f(s), g(s)) for s in angles for f, g in ((sp.sin, sp.cos), (sp.cos, sp.sin))]
    gens = {a for a in e.atoms(sp.sin, sp.cos)} | {a for ab in pairs for a in ab}
    try:
        R = polynomial_ring(sorted(e.free_symbols, key=sp.default_sort_key)
                            + sorted(gens, key=sp.default_sort_key))
        P = R.from_expr(e)
    except (sp.polys.polyerrors.PolynomialError, ValueError, TypeError):
        return None
    if len(P) != len(e.args):
        return None
    idx = {g: i for i, g in enumerate(R.symbols)}
    best, n_best = P, len(P)
    for a, b in pairs:
        ia, ib = idx[a], idx[b]
        cand: dict = {}
        for m, c in best.items():
            if m[ia] < 2:
                cand[m] = cand.get(m, 0) + c
                continue
            m2 = list(m)
            m2[ia] -= 2
            cand[tuple(m2)] = cand.get(tuple(m2), 0) + c
            m2[ib] += 2
            cand[tuple(m2)] = cand.get(tuple(m2), 0) - c
        cand_p = R.from_dict({m: c for m, c in cand.items() if c})
        if max(len(cand_p), 1) < n_best:
            best, n_best = cand_p, max(len(cand_p), 1)
    return e if best is P else ring_to_expr(best)      # == best.as_expr()


def _reduce_square(e: sp.Expr, a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """Replace ``a**k`` (k >= 2) by ``a**(k-2) * (1 - b**2)``."""
    return e.replace(lambda p: p.is_Pow and p.base == a and p.exp.is_Integer and p.exp >= 2,
                     lambda p: a ** (p.exp - 2) * (1 - b**2))


def is_expanded_polynomial(e: sp.Expr, trig: bool = False) -> bool:
    """Whether ``e`` is a sum of rational multiples of monomials in symbols (with ``trig``,
    also in ``sin``/``cos`` of symbols).

    Such an expression is already in the canonical expanded form (sympy combines like
    terms on construction), so expanding it is the identity.

    >>> x, y = sp.symbols("x y")
    >>> is_expanded_polynomial(x**2 + y/2), is_expanded_polynomial(x*(y + 1))
    (True, False)
    >>> is_expanded_polynomial(x*sp.sin(y)**2), is_expanded_polynomial(x*sp.sin(y)**2, trig=True)
    (False, True)
    """
    for term in sp.Add.make_args(e):
        coeff, factors = term.as_coeff_mul()
        if not coeff.is_Rational:
            return False
        for f in factors:
            base = f.base if f.is_Pow and f.exp.is_Integer and f.exp > 0 else f
            if base.is_Symbol or trig and isinstance(base, (sp.sin, sp.cos)) and \
                    base.args[0].is_Symbol:
                continue
            return False
    return True


def has_negative_power(e: sp.Expr) -> bool:
    """Whether ``e`` contains a negative power (a denominator).

    >>> x = sp.Symbol("x")
    >>> has_negative_power(x + 1/x), has_negative_power(x**2)
    (True, False)
    """
    for p in sp.preorder_traversal(e):
        if p.is_Pow and p.exp.is_negative:
            return True
    return False



# -- algebraic stage: square roots as auxiliary symbols ----------------------------------------
@dataclass
class _AlgebraicReduction:
    r"""Remainder of a numerator modulo :math:`\{r_P^2 - P\}` (see :func:`algebraic_reduction`).

    ``zero`` is certain.  A non-zero remainder proves that the expression is non-zero only
    when the radicands are independent modulo squares (:meth:`proves_nonzero`).
    """

    zero: bool
    den_zero: bool
    radicands: tuple
    gens: tuple

    def proves_nonzero(self) -> bool:
        """Whether the non-zero remainder is a proof of non-zero-ness.

        Requires that the denominator does not reduce to zero, that no generator is
        declared integer/rational (the argument uses open sets of points) and that the
        radicands :math:`P_1,\\dots,P_k` are multiplicatively independent modulo squares in
        :math:`\\mathbb{Q}(x)`: then :math:`\\mathbb{Q}(x)[r]/(r_i^2-P_i)` is a field of degree
        :math:`2^k` (Kummer theory) and evaluation at any analytic branch of the roots on an
        open set is injective, so a non-zero remainder is a non-zero function.
        """
        if self.zero or self.den_zero:
            return False
        if any(s.is_integer or s.is_rational for s in self.gens):
            return False
        try:
            return independent_mod_squares(self.radicands, self.gens)
        except UNDECIDABLE_ERRORS:  # factorisation failure: no proof
            return False


def _split_square_part(poly, ring) -> tuple:
    """``(a, b, k, pos)`` with ``poly = a**2 * k * b * prod(pos)`` and ``a > 0`` as a function,
    ``k`` a positive square-free integer and ``pos`` the provably positive irreducible
    factors of odd multiplicity; ``b`` keeps the factors of unknown sign."""
    c, facs = poly.factor_list()
    out, inner = ring.one, ring.one
    pos = []
    for g, k in facs:
        ge = g.as_expr()
        if ge.is_positive:
            out *= g ** (k // 2)
            if k % 2:
                pos.append(g)
        elif (-ge).is_positive:
            out *= (-g) ** (k // 2)
            inner *= g ** (k % 2)
        else:
            inner *= g**k
    num, den = int(c.numerator), int(c.denominator)
    const = 1
    for part, sign in ((abs(num), 1), (den, -1)):
        if part > 10**12:  # do not factor large constants
            inner *= sp.QQ(part) ** sign
            continue
        for prime, m in sp.factorint(part).items():
            # for the denominator sqrt(1/p) = sqrt(p) / p
            out *= sp.QQ(prime) ** (sign * ((m + (sign < 0)) // 2))
            if m % 2:
                const *= prime
    if num < 0:
        inner = -inner
    return out, inner, const, pos


def _split_radicand(f, field) -> tuple:
    r"""``(A, Q, k, G)`` with :math:`\sqrt{f} = A\sqrt{k}\sqrt{Q}\prod_{g\in G}\sqrt{g}` for a
    rational function ``f`` (``A``, ``Q``, ``g`` field elements, ``k`` a positive square-free
    integer, each ``g`` a provably positive irreducible polynomial).

    Only factors whose square root is unambiguous are split off: positive rational
    constants, provably positive factors such as :math:`1+x^2` and squares of provably
    negative ones; :math:`\sqrt{x^2}` with real ``x`` is left alone (it is :math:`|x|`).
    For :math:`a>0` the principal root satisfies :math:`\sqrt{a Q} = \sqrt{a}\sqrt{Q}` and
    :math:`\sqrt{Q/a} = \sqrt{Q}/\sqrt{a}` for every complex ``Q``.
    """
    an, qn, kn, gn = _split_square_part(f.numer, field.ring)
    ad, qd, kd, gd = _split_square_part(f.denom, field.ring)
    g = sp.igcd(kn, kd)
    k = (kn // g) * (kd // g)
    A = field(an) / field(ad) * sp.QQ(g, kd)
    for h in gd:                      # 1/sqrt(h) = sqrt(h)/h
        A = A / field(h)
    return A, field(qn) / field(qd), k, [field(h) for h in (*gn, *gd)]


def algebraic_reduction(rat: sp.Expr) -> _AlgebraicReduction | None:
    r"""Exact reduction of an expression with square roots of rational functions.

    Each distinct :math:`\sqrt{P}` (radicand ``P`` put over a common denominator, so that
    equal radicands share one symbol) and :math:`P^{k/2}` is replaced by :math:`r_P^k`; the
    numerator of the result, a polynomial in the symbols ``x`` and the ``r_P``, is reduced
    modulo :math:`r_P^2 - P` with coefficients in :math:`\mathbb{Q}(x)`.  The relations have
    pairwise coprime leading monomials :math:`r_P^2`, so they are a Gröbner basis and the
    remainder -- multilinear in the ``r_P`` -- is unique.  A zero remainder means the
    numerator lies in the ideal: the expression vanishes for *every* choice of the square
    roots, in particular the principal one.  Trigonometric functions were already rewritten
    rationally (half angles), which enforces :math:`\sin^2+\cos^2=1`.

    Returns ``None`` when ``rat`` has no square roots or atoms outside this class (other
    fractional powers, nested roots, transcendental functions, non-rational coefficients).

    >>> x = sp.Symbol("x")
    >>> e = (1 + x**2)**sp.Rational(3, 2) - sp.expand((1 + x**2)*sp.sqrt(1 + x**2))
    >>> algebraic_reduction(e).zero
    True
    >>> algebraic_reduction(sp.sqrt(x**2) - x).zero
    False
    """
    from sympy.polys.fields import FracField

    pows = [p for p in rat.atoms(sp.Pow) if not p.exp.is_Integer]
    if not pows:
        return None
    xs = tuple(sorted(rat.free_symbols, key=sp.default_sort_key))
    if not xs:
        return None
    F = FracField(xs, sp.QQ)
    radicands: dict = {}
    roots: dict = {}
    rep = {}
    for p in pows:
        if not (p.exp.is_Rational and p.exp.q == 2):
            return None
        b = p.base
        if b not in roots:
            if any(not q.exp.is_Integer for q in b.atoms(sp.Pow)):
                return None
            try:
                out, key, k, positive = _split_radicand(F.from_expr(b), F)
            except UNDECIDABLE_ERRORS:  # not a rational function of the symbols
                return None
            root = out.as_expr()
            for q in (key, F(k), *positive):
                if q != F.one:
                    root *= radicands.setdefault(q, sp.Dummy(f"r{len(radicands)}"))
            roots[b] = root
        rep[p] = roots[b] ** p.exp.p
    try:
        rs = tuple(radicands.values())
        fe = FracField((*xs, *rs), sp.QQ).from_expr(rat.xreplace(rep))
        P = list(radicands)
        pn, pd = fe.numer, fe.denom
    except UNDECIDABLE_ERRORS:  # not in the supported class
        return None

    nx = len(xs)

    def remainder(poly) -> bool:
        groups: dict = {}
        for monom, coeff in poly.terms():
            groups.setdefault(monom[nx:], {})[monom[:nx]] = coeff
        buckets: dict = {}
        for rm, terms in groups.items():
            check()
            val = F(F.ring.from_dict(terms))
            for i, k in enumerate(rm):
                if k >= 2:
                    val *= P[i] ** (k // 2)
            key = tuple(k % 2 for k in rm)
            buckets[key] = buckets.get(key, F.zero) + val
        return any(buckets.values())

    nonzero = remainder(pn)
    return _AlgebraicReduction(zero=not nonzero,
                               den_zero=nonzero and not remainder(pd),
                               radicands=tuple(k.as_expr() for k in P), gens=xs)


def _square_class(expr: sp.Expr, gens: tuple) -> frozenset:
    r"""The class of a non-zero rational function in :math:`\mathbb{Q}(x)^*/(\mathbb{Q}(x)^*)^2`:
    the set of sign, primes and irreducible factors occurring to an odd power."""
    n, d = sp.fraction(sp.cancel(expr))
    c, facs = sp.factor_list(sp.expand(n * d), *gens)
    odd = set()
    c = sp.Rational(c)
    if c == 0:
        raise ValueError("zero radicand")
    sign = c < 0
    for f, m in facs:
        pf = sp.Poly(f, *gens)
        if pf.LC() < 0:
            pf = -pf
            sign ^= bool(m % 2)
        if m % 2:
            odd.add(pf.as_expr())
    for part in (abs(c.p), c.q):
        for prime, m in sp.factorint(part).items():
            if m % 2:
                odd.add(sp.Integer(prime))
    if sign:
        odd.add(sp.Integer(-1))
    return frozenset(odd)


def independent_mod_squares(radicands: tuple, gens: tuple) -> bool:
    """Whether no non-empty product of the radicands is a square (linear algebra over GF(2)).

    >>> x, y = sp.symbols("x y")
    >>> independent_mod_squares((x, y), (x, y)), independent_mod_squares((x, 4*x), (x,))
    (True, False)
    """
    index: dict = {}
    basis: dict = {}
    for P in radicands:
        check()
        v = 0
        for item in _square_class(P, gens):
            v |= 1 << index.setdefault(item, len(index))
        while v:
            top = v.bit_length() - 1
            if top not in basis:
                basis[top] = v
                break
            v ^= basis[top]
        else:
            return False
    return True

