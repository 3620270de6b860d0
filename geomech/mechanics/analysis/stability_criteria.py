r"""Stability criteria of a characteristic polynomial: Routh–Hurwitz, and the spectral
conditions of a reversible factor :math:`p(\lambda) = q(\lambda^2)`.

* **Routh–Hurwitz** (Hurwitz 1895; Gantmacher (1959), Ch. XV, §6): all roots of
  :math:`p(\lambda) = a_0\lambda^n + a_1\lambda^{n-1} + \dots + a_n` (:math:`a_0 > 0`) have
  negative real parts iff the leading principal minors of the Hurwitz matrix
  :math:`H_{ij} = a_{2j-i}` are positive, :math:`\Delta_1, \dots, \Delta_n > 0`
  (:func:`hurwitz_determinants`, :func:`routh_hurwitz_conditions`).
* **Reversible factors.**  When :math:`p(\lambda) = q(\lambda^2)` (the spectrum is symmetric
  under :math:`\lambda\mapsto-\lambda`, e.g. a Hamiltonian or reversible linearisation) no
  root can have a negative real part without its mirror; the best possible is *spectral
  stability*: every root on the imaginary axis and simple, i.e. :math:`q` has only simple
  negative real roots.  With the Newton sums :math:`s_k` of :math:`q` (degree :math:`d`),
  this holds iff the Hankel minors :math:`\det(s_{i+j})_{i,j<k} > 0`, :math:`k = 2..d`
  (Hermite's criterion: the signature of the Hankel form counts the distinct real roots;
  Gantmacher (1959), Ch. XVI, §9) and all ratios :math:`c_i/c_d > 0` (real roots are all
  negative iff the coefficients have one sign) (:func:`reversible_conditions`).

Conditions are returned as expressions that must be **positive**; :func:`positive_part`
removes the factors known to be positive (positive symbols, squares of non-vanishing
factors are kept) so the conditions read as in the classical literature.

>>> lam, k = sp.symbols("lambda k")
>>> routh_hurwitz_conditions(lam**2 + 2*lam + k, lam)
[2, 2*k]
>>> mu = sp.Symbol("mu")
>>> reversible_conditions(mu**2 + 3*mu + k, mu)
[9 - 4*k, 3, k]
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import sympy as sp

from geomech.core.algebra.rings import polynomial_ring
from geomech.core.flintpolys import poly_factor_list
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

__all__ = ["LAMBDA", "MU", "hurwitz_determinants", "routh_hurwitz_conditions", "newton_sums",
           "reversible_conditions", "is_even_polynomial", "even_part_variable",
           "positive_part", "factored_positive_part", "even_factors",
           "lowest_terms", "split_zero_roots", "factor_list",
           "expanded_reversible_conditions"]

#: The eigenvalue variable of characteristic polynomials.
LAMBDA = sp.Symbol("lambda")
#: The variable :math:`\mu = \lambda^2` of reversible factors.
MU = sp.Symbol("mu")


def _coefficients(p, lam) -> list[sp.Expr]:
    """Coefficients :math:`a_0, \\dots, a_n` (highest degree first) of ``p`` in ``lam``."""
    return [sp.together(c) for c in sp.Poly(sp.expand(p), lam).all_coeffs()]


def hurwitz_determinants(coeffs: Sequence) -> list[sp.Expr]:
    r"""The leading principal minors :math:`\Delta_1, \dots, \Delta_n` of the Hurwitz matrix
    :math:`H_{ij} = a_{2j-i}` (1-based, :math:`a_k = 0` outside :math:`0..n`) of
    :math:`a_0\lambda^n + \dots + a_n`.

    >>> a = sp.symbols("a0:4")
    >>> hurwitz_determinants(a)[1]
    -a0*a3 + a1*a2
    """
    a = [as_expr(c) for c in coeffs]
    n = len(a) - 1

    def entry(i: int, j: int) -> sp.Expr:
        k = 2 * (j + 1) - (i + 1)
        return a[k] if 0 <= k <= n else sp.S.Zero

    H = sp.Matrix(n, n, entry)
    return [sp.expand(H[:k, :k].det(method="berkowitz")) for k in range(1, n + 1)]


def routh_hurwitz_conditions(p, lam) -> list[sp.Expr]:
    r"""Expressions that are all positive iff every root of ``p`` has a negative real part:
    the Hurwitz determinants of :math:`p/a_0` multiplied by the positive factor
    :math:`a_0^{2k}` (so no denominator is introduced); the sign of :math:`a_0` enters once.

    >>> lam, c = sp.symbols("lambda c")
    >>> routh_hurwitz_conditions(2*lam + c, lam)
    [2*c]
    """
    a = _coefficients(p, lam)
    a0 = a[0]
    # Delta_k(a/a0) = Delta_k(a) / a0**k ; multiply by a0**(2k): Delta_k(a) * a0**k
    dets = hurwitz_determinants(a)
    return [sp.factor_terms(sp.expand(d * a0**k)) for k, d in enumerate(dets, 1)]


def newton_sums(coeffs: Sequence, count: int) -> list[sp.Expr]:
    r"""Power sums :math:`s_0, \dots, s_{count-1}` of the roots of
    :math:`c_d x^d + \dots + c_0` (coefficients highest first), by Newton's identities.

    >>> newton_sums([1, -3, 2], 4)          # roots 1, 2
    [2, 3, 5, 9]
    """
    c = [as_expr(x) for x in coeffs]
    return [sp.together(S / c[0]**k) for k, S in enumerate(_scaled_newton_sums(c, count))]


def _scaled_newton_sums(c: list, count: int, expand=sp.expand) -> list:
    r""":math:`S_k = c_d^k s_k` (``c[0]`` the leading coefficient :math:`c_d`), polynomial
    in the coefficients: Newton's identities multiplied by :math:`c_d^k`,

    .. math:: S_k = -k\,c_{d-k}c_d^{k-1} - \sum_{i=1}^{\min(k-1, d)} c_{d-i}c_d^{i-1}
              S_{k-i}

    (the first term only for :math:`k \le d`), expanded by ``expand`` (the identity for
    elements of a polynomial ring): no fraction is formed."""
    d = len(c) - 1
    S: list = [d * (c[0]**0)]
    for k in range(1, count):
        acc = -k * c[k] * c[0]**(k - 1) if k <= d else 0 * c[0]
        for i in range(1, min(k, d + 1)):
            acc -= c[i] * c[0]**(i - 1) * S[k - i]
        S.append(expand(acc))
    return S


def _ring_coefficients(p: sp.Expr, x) -> list | None:
    r"""The coefficients of ``p`` in ``x`` (highest degree first) as elements of the
    polynomial ring over :math:`\mathbb Q` in the other symbols, or ``None`` when they are
    not polynomials with rational coefficients in symbols (radicals: the heavy top's
    :math:`|r_0|`)."""
    if not all(a.is_Symbol or a.is_Rational for a in p.atoms()):
        return None
    gens = sorted(p.free_symbols - {x}, key=sp.default_sort_key)
    try:
        P = sp.Poly(p, x, *gens, domain=sp.QQ)
    except sp.PolynomialError:
        return None
    R = polynomial_ring(gens or [sp.Dummy("c")])
    out = [R.zero for _ in range(P.degree(x) + 1)]
    for m, v in P.terms():
        out[len(out) - 1 - m[0]] += R({m[1:] if gens else (0,): v})
    return out


def _ring_det(M: list[list]):
    r"""The determinant of a small square matrix of ring elements by Laplace expansion along
    the rows, the minors on each set of columns formed once (:math:`k\,2^k` products)."""
    k = len(M)
    minors = {(): M[0][0].ring.one if k else 1}
    for i in range(k):
        nxt = {}
        for cols, m in minors.items():
            for j in range(k):
                if j in cols:
                    continue
                key = tuple(sorted(cols + (j,)))
                sign = -1 if sum(1 for c in cols if c > j) % 2 else 1
                nxt[key] = nxt.get(key, 0) + sign * M[i][j] * m
        minors = nxt
    return minors[tuple(range(k))]


def reversible_conditions(q, mu) -> list[sp.Expr]:
    r"""Expressions all positive iff :math:`q(\mu)` has only simple negative real roots
    (the spectral stability of :math:`p(\lambda) = q(\lambda^2)`): the Hankel minors
    :math:`\Delta_k = \det(s_{i+j})_{0\le i,j<k}` of the Newton sums, :math:`k = 2..d`
    (positive iff the :math:`d` roots are real and distinct, Hermite), then the products
    :math:`c_i c_d` of the coefficients with the leading one (the roots are negative).
    Computed without fractions: :math:`q` is cleared of denominators (its roots do not
    change) and :math:`\det(c_d^{i+j}s_{i+j}) = c_d^{k(k-1)}\Delta_k` (the same sign) from
    the scaled Newton sums (the rolling ellipsoid's vertical spin: three times faster), in
    the polynomial ring of the parameters when the coefficients are polynomials with
    rational coefficients (no expression is expanded), else on expressions.

    >>> mu = sp.Symbol("mu")
    >>> reversible_conditions(mu - 4, mu)
    [-4]
    """
    return [sp.factor_terms(e) for e in expanded_reversible_conditions(q, mu)]


def expanded_reversible_conditions(q, mu) -> list[sp.Expr]:
    """:func:`reversible_conditions` expanded (their factorisation, not their printed
    form, is what the stability conditions read: no ``factor_terms`` and expansion again).

    >>> mu, k = sp.symbols("mu k")
    >>> expanded_reversible_conditions(2*mu**2 + 4*mu + 2*k, mu)
    [16 - 16*k, 8, 4*k]
    """
    num = sp.numer(sp.together(as_expr(q)))
    c = _ring_coefficients(num, mu)
    d = (len(c) if c is not None else sp.degree(num, mu) + 1) - 1
    if c is not None:
        S = _scaled_newton_sums(c, 2 * d - 1, lambda e: e)
        dets = [_ring_det([[S[i + j] for j in range(k)] for i in range(k)]).as_expr()
                for k in range(2, d + 1)]
        prods = [(ci * c[0]).as_expr() for ci in c[1:]]
    else:
        c = _coefficients(num, mu)
        S = _scaled_newton_sums(c, 2 * d - 1)
        dets = [sp.expand(sp.Matrix(k, k, lambda i, j: S[i + j]).det(method="berkowitz"))
                for k in range(2, d + 1)]
        prods = [sp.expand(ci * c[0]) for ci in c[1:]]
    return dets + prods


def is_even_polynomial(p, lam) -> bool:
    r"""Whether ``p`` has only even powers of ``lam`` (exact zero test of the odd
    coefficients): :math:`p(\lambda) = q(\lambda^2)`."""
    a = _coefficients(p, lam)
    n = len(a) - 1
    policy = default_policy()
    return all(policy.is_zero(a[i]) for i in range(len(a)) if (n - i) % 2 == 1)


def even_part_variable(p, lam, mu) -> sp.Expr:
    r""":math:`q(\mu)` with :math:`p(\lambda) = q(\lambda^2)` (``p`` even in ``lam``).

    >>> lam, mu = sp.symbols("lambda mu")
    >>> even_part_variable(lam**4 + 3*lam**2 + 1, lam, mu)
    mu**2 + 3*mu + 1
    """
    a = _coefficients(p, lam)
    n = len(a) - 1
    return sp.Add(*[a[i] * mu**((n - i) // 2) for i in range(len(a)) if (n - i) % 2 == 0])


def split_zero_roots(p, lam) -> tuple[int, sp.Expr]:
    r"""``(z, r)`` with :math:`p = \lambda^z r(\lambda)` and :math:`r(0) \ne 0` (each low
    coefficient decided by the zero policy).

    >>> lam, k = sp.symbols("lambda k")
    >>> split_zero_roots(lam**3 + k*lam, lam)
    (1, k + lambda**2)
    """
    a = _coefficients(p, lam)
    n = len(a) - 1
    policy = default_policy()
    z = 0
    while z < n and policy.is_zero(a[n - z]):
        z += 1
    rest = sp.Add(*[a[i] * lam**(n - i - z) for i in range(n - z + 1)])
    return z, rest


def positive_part(expr) -> sp.Expr:
    r"""The factors of ``expr`` whose sign is not known: positive factors (positive symbols,
    positive constants) and even powers are dropped and negative ones flip the sign, so
    ``positive_part(e) > 0`` iff ``e > 0`` wherever the factors of even power do not vanish
    (:func:`even_factors` lists them).

    >>> m, g = sp.symbols("m g", positive=True); w = sp.Symbol("w", real=True)
    >>> positive_part(-3*m*(g - w**2)), positive_part(0)
    (-g + w**2, 0)
    """
    if default_policy().is_zero(expr):
        return sp.S.Zero
    sign, keep = _sign_and_kept(as_expr(expr))
    out = sp.Mul(*keep) if keep else sp.S.One
    return sp.expand(out) if sign > 0 else sp.expand(-out)


def _sign_and_kept(expr: sp.Expr) -> tuple[int, list]:
    """``(sign, factors)`` of :func:`positive_part`: the factors of odd multiplicity and
    unknown sign, and the sign of the rest."""
    sign = 1
    keep = []
    for coeff, factors in _factored(expr):
        if coeff.is_negative:
            sign = -sign
        for f, k in factors:
            if f.is_positive:
                continue
            if f.is_negative:
                sign = sign * (-1) ** k
                continue
            if k % 2:
                keep.append(f)        # f**k and f**-k have the sign of f
    return sign, keep


def factored_positive_part(expr) -> sp.Expr:
    r""":func:`positive_part` in factored form: ``sp.factor(positive_part(expr))``.

    The kept factors are irreducible (they come from the factorisation of ``expr`` itself),
    so their product :math:`\pm\prod_i f_i` is already the factorisation over
    :math:`\mathbb Q` of the polynomial :func:`positive_part` expands (each :math:`f_i` is
    primitive with sympy's sign normalisation, and by Gauss's lemma their product is
    primitive): it is returned without factoring again.  Factors that are not polynomials
    with rational coefficients in symbols (radicals, floats, ``I``) take ``sp.factor``.

    >>> m, g = sp.symbols("m g", positive=True); w, k = sp.symbols("w k", real=True)
    >>> factored_positive_part(-3*m*(g - w**2)*(k + w)**2*(k - 1))
    (-g + w**2)*(k - 1)
    """
    if default_policy().is_zero(expr):
        return sp.S.Zero
    sign, keep = _sign_and_kept(as_expr(expr))
    if not all(f.is_polynomial() and not f.has(sp.Float, sp.I) for f in keep):
        return sp.factor(positive_part(expr))
    out = sp.Mul(*keep)
    return out if sign > 0 else -out


def even_factors(expr) -> list[sp.Expr]:
    r"""The factors of ``expr`` of even multiplicity whose sign is not known: where one of
    them vanishes, ``expr`` vanishes although :func:`positive_part` may be positive.

    >>> w, k = sp.symbols("w k", real=True)
    >>> even_factors(w**2*(k - 1))
    [w]
    """
    return [f for f, k in _factored(as_expr(expr))[0][1]
            if k % 2 == 0 and not (f.is_positive or f.is_negative)]


@lru_cache(maxsize=64)
def _factored(expr: sp.Expr) -> tuple:
    """``(factor_list(numerator), factor_list(denominator))`` of ``expr`` in lowest terms,
    remembered: :func:`positive_part` and :func:`even_factors` of one condition factor it
    once (the rolling ellipsoid's discriminant: half a second each)."""
    num, den = lowest_terms(expr)
    return factor_list(num), factor_list(den)


def factor_list(p: sp.Expr) -> tuple:
    r"""``sp.factor_list(p)`` of a polynomial ``p`` with rational coefficients in symbols --
    the same coefficient and factors in the same order -- the factorisation over
    :math:`\mathbb Z` taken by flint (:func:`~geomech.core.flintpolys.poly_factor_list`;
    sympy's is pure Python: the rolling ellipsoid's Hankel minors took most of its
    stability conditions).  sympy first writes :math:`p = c\,x^m\,r` (``together``: the
    content :math:`c`, the monomial :math:`x^m`, the primitive rest :math:`r`), factors each
    generator of :math:`x^m` and :math:`r` as polynomials in their own generators, and sorts
    the factors by (degree in the first generator, number of generators, multiplicity,
    dense coefficients; ties keep the order of the product); that is reproduced here for
    an expanded ``p`` (a sum); other expressions take ``sp.factor_list``.

    >>> x, y = sp.symbols("x y")
    >>> factor_list(sp.expand(-6*x**2*(x + y)**2*(x - 2*y)))
    (-6, [(x, 2), (x - 2*y, 1), (x + y, 2)])
    """
    if p.is_Rational:
        return p, []
    if not (p.is_Add and p.is_polynomial() and
            all(a.is_Symbol or a.is_Rational for a in p.atoms())):
        return sp.factor_list(p)      # a product is factored factor by factor by sympy
    P = sp.Poly(p)
    if P.domain not in (sp.ZZ, sp.QQ):
        return sp.factor_list(p)
    terms = P.as_dict()
    low = tuple(min(m[i] for m in terms) for i in range(len(P.gens)))
    rest = {tuple(a - b for a, b in zip(m, low)): c for m, c in terms.items()}
    used = [i for i in range(len(P.gens)) if any(m[i] for m in rest)]
    # the generators of x^m in the order of the product's arguments (the sort is stable and
    # they tie but for the exponent)
    mono = sp.Mul.make_args(sp.Mul(*[g**k for g, k in zip(P.gens, low)]))
    found = [(sp.Poly(g, g, domain=sp.ZZ), k) for g, k in (a.as_base_exp() for a in mono)
             if not g.is_Number]
    coeff = sp.S.One
    if used:
        gens = [P.gens[i] for i in used]
        R = polynomial_ring(gens)
        r = R.from_dict({tuple(m[i] for i in used): sp.QQ.convert(c) for m, c in rest.items()})
        try:
            c, facs = poly_factor_list(r)
        except OverflowError:       # flint's exponent limits: sympy's factorisation
            c, facs = r.factor_list()
        coeff = R.domain.to_sympy(c)
        found += [(sp.Poly.from_dict(dict(f.items()), gens, domain=sp.ZZ), k) for f, k in facs]
    else:
        coeff = P.domain.to_sympy(next(iter(rest.values())))
    found.sort(key=lambda fk: (len(fk[0].rep.to_list()), len(fk[0].gens), fk[1],
                               fk[0].rep.to_list()))
    return coeff, [(f.as_expr(), k) for f, k in found]


def _is_expanded(e: sp.Expr) -> bool:
    """Whether ``e`` is a sum of monomials (integer times powers of symbols): its own
    expansion."""
    def monomial(t: sp.Expr) -> bool:
        return all(f.is_Integer or f.is_Symbol or f.is_Pow and f.base.is_Symbol and
                   f.exp.is_Integer and f.exp > 0 for f in sp.Mul.make_args(t))

    return all(monomial(t) for t in sp.Add.make_args(e))


def lowest_terms(expr: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    r"""``sp.fraction(sp.cancel(sp.together(expr)))``; a polynomial with integer
    coefficients in symbols (the Routh-Hurwitz and spectral conditions, products of such)
    is its own numerator: its expansion, which is what ``cancel`` returns for it (the
    expanded numerator over the denominator 1, no gcd), without sympy's ring conversion.

    >>> x, y = sp.symbols("x y")
    >>> lowest_terms(2*(x + y)*(x - 1)), lowest_terms(x/2 + 1/y)
    ((2*x**2 + 2*x*y - 2*x - 2*y, 1), (x*y + 2, 2*y))
    """
    if all(a.is_Symbol or a.is_Integer for a in expr.atoms()) and expr.is_polynomial():
        return (expr if _is_expanded(expr) else sp.expand(expr)), sp.S.One
    return sp.fraction(sp.cancel(sp.together(expr)))
