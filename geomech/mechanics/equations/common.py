r"""Shared helpers of the equation-of-motion forms: cheap normalisation, brackets, solving.

Nothing here calls ``simplify``.  :func:`compact` is the normaliser used for the explicit
equations: a cancelled fraction whose numerator and denominator are reduced modulo
:math:`\sin^2 s + \cos^2 s = 1` (a polynomial in :math:`\sin s` and at most linear in
:math:`\cos s`, or the other way round, whichever has fewer operations).  The reduction is a
ring map, so the result is equal to the input; it is only shorter.

>>> import sympy as sp
>>> p, m = sp.symbols("phi m", real=True)
>>> compact(m*sp.cos(p)**2 + m*sp.sin(p)**2)
m
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import sympy as sp
from sympy.polys.fields import FracField
from sympy.polys.rings import PolyRing

from geomech.core.opcount import count_ops  # == sympy.count_ops, faster
from geomech.core.parse import as_expr
from geomech.core.polykernel import (  # == the PolyElement methods, through flint
    poly_cancel,
    poly_factor_list,
    poly_gcd,
    ring_to_expr,
)
from geomech.core.zero import default_policy

__all__ = ["compact", "bracket_via_graph", "solve_linear", "acceleration_symbols",
           "trig_reduce", "tidy", "deferred_solves", "DeferredSolve", "deferring"]


def _reduce_poly(e: sp.Expr, angles, keep: str) -> sp.Expr:
    """Reduce powers of ``cos`` (``keep="sin"``) or of ``sin`` (``keep="cos"``) >= 2."""
    rep = {}
    for a in angles:
        s, c = sp.sin(a), sp.cos(a)
        big, small = (c, s) if keep == "sin" else (s, c)
        rep[(big, small)] = a
    if not rep:
        return e

    def red(t):
        b, k = t.base, int(t.exp)
        for (big, small) in rep:
            if b == big:
                return big ** (k % 2) * (1 - small**2) ** (k // 2)
        return t

    e = e.replace(lambda t: t.is_Pow and t.exp.is_Integer and t.exp >= 2
                  and any(t.base == big for big, _ in rep), red)
    return sp.expand(e)


def _prepare(e: sp.Expr):
    e = sp.expand(e)
    trig = e.atoms(sp.sin, sp.cos)
    if not trig:
        return e, set()
    if any(not t.args[0].is_Symbol for t in trig):
        e = sp.expand(sp.expand_trig(e))
    return e, {t.args[0] for t in e.atoms(sp.sin, sp.cos)}


def _has_trig_square(e: sp.Expr) -> bool:
    return any(p.exp.is_Integer and p.exp >= 2 for p in e.atoms(sp.Pow)
               if isinstance(p.base, (sp.sin, sp.cos)))


def trig_reduce(e: sp.Expr, keep: str | None = None) -> sp.Expr:
    r"""Polynomial reduction modulo :math:`\sin^2+\cos^2=1`.

    ``keep="sin"`` rewrites even powers of cosines (the result is at most linear in each
    cosine), ``keep="cos"`` the other way round; ``None`` takes the shorter of the two.
    """
    e, angles = _prepare(e)
    if not angles or not _has_trig_square(e):
        return e
    if keep is not None:
        return _reduce_poly(e, angles, keep)
    cands = [e, _reduce_poly(e, angles, "sin"), _reduce_poly(e, angles, "cos")]
    return min(cands, key=count_ops)


def _has_den(e: sp.Expr) -> bool:
    return any(p.is_Pow and p.exp.is_negative for p in sp.preorder_traversal(e))


# ---------------------------------------------------------------------------------------
# Polynomial-ring machinery (fast path of compact / solve_linear / tidy)
# ---------------------------------------------------------------------------------------
class _Unsupported(Exception):
    """An expression outside the rational functions in symbols, sin/cos and square roots."""


def _collect_atoms(e: sp.Expr, syms: set, angles: set, sqrt_pows: dict, opaque: set) -> None:
    stack = [e]
    while stack:
        x = stack.pop()
        if x.is_Symbol:
            syms.add(x)
        elif x.is_Number:
            if not x.is_Rational:
                raise _Unsupported(x)
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
        elif isinstance(x, (sp.sin, sp.cos)) and x.args[0].is_Symbol:
            angles.add(x.args[0])
        elif x.is_Atom or x.has(sp.zoo, sp.nan, sp.oo):
            raise _Unsupported(x)
        else:
            opaque.add(x)


class _Algebra:
    r""":math:`\mathbb Q[\text{symbols}, \sin s, \cos s, \sqrt{b}, \dots]` with the relations
    :math:`\sin^2s+\cos^2s=1` and :math:`(\sqrt b)^2 = b` (``b`` a polynomial of the ring).

    Square roots are keyed by the normal form of their radicand, so ``sqrt(b)`` and
    ``sqrt(b')`` with :math:`b\equiv b'` are one generator.  Other atoms (functions of
    non-symbols, powers with symbolic exponents) are free generators without relations.
    """

    def __init__(self, exprs):
        syms: set = set()
        angles: set = set()
        sqrt_pows: dict = {}
        opaque: set = set()
        for e in exprs:
            _collect_atoms(as_expr(e), syms, angles, sqrt_pows, opaque)
        key = sp.default_sort_key
        trig = []
        for s in sorted(angles, key=key):
            trig += [sp.sin(s), sp.cos(s)]
        base_gens = (*sorted(syms, key=key), *sorted(opaque, key=key), *trig)
        self.angles = sorted(angles, key=key)
        self.opaque = bool(opaque)
        sq_map, bases = {}, {}
        if sqrt_pows:
            if not base_gens:
                raise _Unsupported("square root of a number")
            base_ring = PolyRing(base_gens, sp.QQ)
            self.ring = base_ring
            self._set_trig()
            self.sqrt_rel = []
            for pw, (b, k) in sqrt_pows.items():
                try:
                    pb = base_ring.from_expr(b)
                except (ValueError, sp.PolynomialError, sp.CoercionFailed) as exc:
                    raise _Unsupported(b) from exc
                nb = self.reduce(pb, "sin")
                frozen = tuple(sorted(nb.items()))
                if frozen not in bases:
                    bases[frozen] = (sp.Dummy("sqrt"), nb.as_expr())
                sq_map[pw] = (bases[frozen][0], k)
        self._sqrt = [(g, bexpr) for g, bexpr in bases.values()]
        gens = (*[g for g, _ in self._sqrt], *base_gens)
        if not gens:
            gens = (sp.Dummy("one"),)
        self.ring = PolyRing(gens, sp.QQ)
        self.field = FracField(gens, sp.QQ)
        self._set_trig()
        self._rep = {pw: g**k for pw, (g, k) in sq_map.items()}
        self._back = {g: sp.sqrt(b) for g, b in self._sqrt}
        self.sqrt_rel = [(i, self.reduce(self.ring.from_expr(b), "sin"))
                         for i, (_, b) in enumerate(self._sqrt)]

    def _set_trig(self) -> None:
        idx = {g: i for i, g in enumerate(self.ring.symbols)}
        self.trig_idx = [(idx[sp.sin(s)], idx[sp.cos(s)]) for s in self.angles]
        self.sqrt_rel = []

    # -- conversion --------------------------------------------------------------------
    def frac(self, e):
        """``(numerator, denominator)`` ring elements of ``e`` (cancelled)."""
        e = as_expr(e)
        if self._rep:
            e = e.xreplace(self._rep)
        n, d = self._frac(e, {})
        if not d.is_ground:
            if len(n) * len(d) > _GCD_LIMIT:
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
                n, d = (_sum_with_gcd if gcd else _sum_without_gcd)(n, d, n2, d2)
            out = (n, d)
        elif e.is_Mul:
            n, d = R.one, R.one
            for a in e.args:
                n2, d2 = self._frac(a, memo, gcd)
                n, d = n * n2, d * d2
            out = (n, d)
        elif e.is_Pow and e.exp.is_Integer:
            n, d = self._frac(e.base, memo, gcd)
            k = int(e.exp)
            if k < 0:
                n, d, k = d, n, -k
                if not d:
                    raise _Unsupported("division by zero")
            out = (n**k, d**k)
        else:
            try:
                out = (R.from_expr(e), R.one) if not e.is_Number else \
                    (R.ground_new(R.domain.from_sympy(e)), R.one)
            except (ValueError, sp.PolynomialError, sp.CoercionFailed) as exc:
                raise _Unsupported(e) from exc
        memo[e] = out
        return out

    def domain_expr(self, c) -> sp.Expr:
        return self.ring.domain.to_sympy(c)

    def expr(self, p) -> sp.Expr:
        out = ring_to_expr(p)   # == p.as_expr(), built without sympy's flattening
        return out.xreplace(self._back) if self._back else out

    # -- reduction ---------------------------------------------------------------------
    def _sub_square(self, p, idx: int, rep):
        """Replace ``g**2`` by ``rep`` for the generator number ``idx``."""
        groups: dict = {}
        for m, c in p.items():
            k = m[idx] // 2
            if k:
                m = m[:idx] + (m[idx] - 2 * k,) + m[idx + 1:]
            groups.setdefault(k, {})[m] = c
        if len(groups) == 1 and 0 in groups:
            return p
        R = self.ring
        out = R.zero
        for k, d in groups.items():
            part = R.from_dict(d)
            out += part * rep**k if k else part
        return out

    def reduce(self, p, prefer: str = "sin"):
        r"""Normal form modulo the relations: degree < 2 in each square root and in each
        ``cos`` (``prefer="sin"``) or each ``sin`` (``prefer="cos"``)."""
        if not p:
            return p
        for idx, b in self.sqrt_rel:
            p = self._sub_square(p, idx, b)
        G = self.ring.gens
        for i_s, i_c in self.trig_idx:
            big, small = (i_c, i_s) if prefer == "sin" else (i_s, i_c)
            p = self._sub_square(p, big, 1 - G[small] ** 2)
        return p

    def is_zero(self, p) -> bool:
        """Exact test (zero policy for expressions with free atoms)."""
        if not self.reduce(p):
            return True
        if self.opaque:
            return default_policy().is_zero(self.expr(p))
        return False

    def quotient(self, num, den) -> sp.Expr:
        """The shortest of the reduced, cancelled forms of ``num/den`` as an expression."""
        best, forms = None, []
        for prefer in ("sin", "cos") if self.trig_idx else ("sin",):
            n1, d1 = self.reduce(num, prefer), self.reduce(den, prefer)
            for _ in range(2):
                if len(n1) * len(d1) > _GCD_LIMIT:
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
        """Cancel ``n/d`` by trial division with the irreducible factors of ``d`` (for large
        numerators, where a multivariate gcd is slow).  A factor is tried only when it
        divides ``n`` after specialising all other generators at random integers."""
        if len(d) > _FACTOR_LIMIT or d.is_ground:
            return n, d
        cache = self.__dict__.setdefault("_factor_cache", {})
        key = tuple(sorted(d.items()))
        if key not in cache:
            cache[key] = d.factor_list()[1]
        for f, k in cache[key]:
            if f.is_monomial and f.LC == 1:
                i = next(j for j, e in enumerate(f.LM) if e)
                if sum(f.LM) != 1:
                    continue
                low = min(m[i] for m in n.itermonoms())
                t = min(low, k)
                if t:
                    R = n.ring
                    n = R.from_dict({m[:i] + (m[i] - t,) + m[i + 1:]: c for m, c in n.items()})
                    d = d.exquo(f**t)
                continue
            for _ in range(k):
                if not _may_divide(n, f):
                    break
                q, r = n.div(f)
                if r:
                    break
                n, d = q, d.exquo(f)
        return n, d

    def _to_expr(self, n, d) -> sp.Expr:
        if not n:
            return sp.S.Zero
        if d.is_ground:
            return self.expr(n) / self.expr(d)
        if d.LC < 0:
            n, d = -n, -d
        return _content_expr(self, n) / _content_expr(self, d)


def _content_expr(alg: _Algebra, p) -> sp.Expr:
    """``p`` as ``number * monomial * primitive part`` (what ``factor_terms`` gives for an
    expanded polynomial, computed in the ring)."""
    if not p:
        return sp.S.Zero
    if p.is_ground:
        return alg.expr(p)
    c, prim = p.primitive()
    if prim.LC < 0:
        c, prim = -c, -prim
    mons = list(prim.itermonoms())
    low = tuple(min(e) for e in zip(*mons))
    if any(low):
        mono = alg.ring.from_dict({low: 1})
        prim = prim.exquo(mono)
        return alg.domain_expr(c) * alg.expr(mono) * alg.expr(prim)
    return alg.domain_expr(c) * alg.expr(prim)


def _factor_expr(alg: _Algebra, p, limit: int = 8) -> sp.Expr:
    """Factored form of a small ring element, content form of a large one."""
    if not p or p.is_ground or len(p) > limit:
        return _content_expr(alg, p)
    c, facs = poly_factor_list(p)
    return alg.domain_expr(c) * sp.Mul(*[alg.expr(f) ** k for f, k in facs])


def _ring_tidy(e: sp.Expr, vel) -> sp.Expr:
    alg = _Algebra([e])
    n, d = alg.frac(e)
    R = alg.ring
    idx = [R.symbols.index(v) for v in vel if v in R.symbols]
    if not idx or any(d.degree(R.gens[i]) > 0 for i in idx):
        raise _Unsupported("velocities in the denominator")
    groups: dict = {}
    for m, c in n.items():
        key = tuple(m[i] for i in idx)
        rest = list(m)
        for i in idx:
            rest[i] = 0
        groups.setdefault(key, {})[tuple(rest)] = c
    coeffs = {k: R.from_dict(v) for k, v in groups.items()}
    g = None
    if sum(len(c) for c in coeffs.values()) > _TIDY_GCD_LIMIT:
        g = R.one           # large coefficients: no common polynomial factor sought
    for c in coeffs.values():
        g = c if g is None else poly_gcd(g, c)
    if g.LC < 0:
        g = -g
    vsyms = [R.symbols[i] for i in idx]
    terms = [_factor_expr(alg, c.exquo(g)) * sp.Mul(*[v**k for v, k in zip(vsyms, key)])
             for key, c in coeffs.items()]
    out = _factor_expr(alg, g) * sp.Add(*terms)
    if not d.is_one:
        out = out / _factor_expr(alg, d)
    return out


_GCD_LIMIT = 4000       # len(num)*len(den) above which gcds are replaced by trial division
_FACTOR_LIMIT = 400     # denominators longer than this are not factored
_TIDY_NODE_LIMIT = 40000  # tidy leaves larger expressions as they are
_TIDY_GCD_LIMIT = 600   # tidy: total terms of the coefficients above which no gcd is taken


_PRIME = 2**61 - 1


def _specialise_mod_p(p, main: int, pt: list) -> dict:
    """``p`` with every generator but number ``main`` set to ``pt`` (mod a prime), as
    ``{degree: coefficient}``; ``None`` if a denominator vanishes mod the prime."""
    P = _PRIME
    out: dict = {}
    pw = [{} for _ in pt]
    for m, c in p.items():
        num, den = int(c.numerator), int(c.denominator)
        if den % P == 0:
            return None
        v = num * pow(den, -1, P) % P
        for i, e in enumerate(m):
            if i != main and e:
                cache = pw[i]
                if e not in cache:
                    cache[e] = pow(pt[i], e, P)
                v = v * cache[e] % P
        k = m[main]
        out[k] = (out.get(k, 0) + v) % P
    return {k: v for k, v in out.items() if v}


def _rem_mod_p(n: dict, f: dict) -> bool:
    """Whether the univariate ``f`` leaves a non-zero remainder on ``n`` (mod the prime)."""
    P = _PRIME
    df = max(f)
    inv = pow(f[df], -1, P)
    n = dict(n)
    while n:
        dn = max(n)
        if dn < df:
            return True
        c = n.pop(dn) * inv % P
        for k, v in f.items():
            if k == df:
                continue
            j = k + dn - df
            n[j] = (n.get(j, 0) - c * v) % P
            if not n[j]:
                del n[j]
    return False


def _may_divide(n, f, trials: int = 2) -> bool:
    """``False`` if ``f`` certainly does not divide ``n``: a specialisation of all generators
    but one at random points modulo a prime is a ring map, so ``f | n`` implies the
    divisibility of the specialised univariate polynomials."""
    import random

    R = n.ring
    main = next(i for i, e in enumerate(f.degrees()) if e > 0)
    rng = random.Random(len(n) * 7919 + len(f))
    for _ in range(trials):
        pt = [rng.randrange(2, _PRIME - 1) for _ in range(R.ngens)]
        fu = _specialise_mod_p(f, main, pt)
        if not fu or max(fu) == 0:
            continue
        nu = _specialise_mod_p(n, main, pt)
        if nu is None:
            continue
        if nu and _rem_mod_p(nu, fu):
            return False
    return True


def _ring_compact(e: sp.Expr) -> sp.Expr:
    alg = _Algebra([e])
    n, d = alg.frac(e)
    return alg.quotient(n, d)


def _ring_solve(M: sp.Matrix, rhs: sp.Matrix, what: str) -> sp.Matrix:
    """Fraction-free solve over the polynomial ring (exact; raises _Unsupported)."""
    from sympy.polys.matrices import DomainMatrix
    from sympy.polys.matrices.exceptions import DMNonInvertibleMatrixError

    n = M.shape[0]
    alg = _Algebra([*M, *rhs])
    R = alg.ring
    rows = []
    for i in range(n):
        fr = [alg.frac(e) for e in (*M.row(i), rhs[i])]
        den = R.one
        for _, d in fr:
            if d != 1 and d != den:
                den = den.lcm(d)
        rows.append([num * den.exquo(d) if d != den else num for num, d in fr])
    rows = [[alg.reduce(e) for e in r] for r in rows]
    if n <= 5:
        num, den = _cramer(alg, rows, n)
    else:
        K = R.to_domain()
        A = DomainMatrix([r[:n] for r in rows], (n, n), K)
        b = DomainMatrix([[r[n]] for r in rows], (n, 1), K)
        try:
            xnum, den = A.solve_den(b)
        except DMNonInvertibleMatrixError:
            raise ValueError(f"the {what} is singular: det = 0 identically") from None
        num = [row[0] for row in xnum.to_list()]
    if alg.is_zero(den):
        raise ValueError(f"the {what} is singular: det = 0 identically")
    return sp.Matrix([alg.quotient(num[i], den) for i in range(n)])


def _cramer(alg: _Algebra, rows, n: int):
    r"""Division-free Cramer's rule: Laplace expansion with memoised minors, each minor
    reduced modulo the relations (a ring map, so the identities
    :math:`\det M\,x = \operatorname{adj}(M)\,b` survive the reduction)."""
    memo: dict = {}

    def minor(cols: tuple):
        got = memo.get(cols)
        if got is not None:
            return got
        k = len(cols)
        r0 = n - k
        if k == 1:
            out = rows[r0][cols[0]]
        else:
            out = alg.ring.zero
            for pos, j in enumerate(cols):
                a = rows[r0][j]
                if a:
                    sub = minor(cols[:pos] + cols[pos + 1:])
                    if sub:
                        out = out + a * sub if pos % 2 == 0 else out - a * sub
            out = alg.reduce(out)
        memo[cols] = out
        return out

    den = minor(tuple(range(n)))
    num = []
    for i in range(n):
        cols = tuple(j for j in range(n) if j != i) + (n,)
        sign = -1 if (n - 1 - i) % 2 else 1
        num.append(sign * minor(cols))
    return num, den


def compact(e) -> sp.Expr:
    r"""Cheap compact normal form: cancel, reduce numerator/denominator trigonometrically.

    Numerator and denominator are reduced with the *same* rule (so that a quotient equal to
    a polynomial modulo :math:`\sin^2+\cos^2=1` cancels); the shortest result of the two
    rules is kept.  Equal to the input as a function; no ``simplify``.
    """
    e = as_expr(e)
    if e.is_Atom:
        return e
    try:
        return _ring_compact(e)
    except _Unsupported:
        return _compact_expr(e)


def _compact_expr(e: sp.Expr) -> sp.Expr:
    """Expression-level fallback of :func:`compact` (floats, nested radicals ...)."""
    if not _has_den(e):
        return trig_reduce(e)
    n, d = sp.fraction(sp.cancel(sp.together(e)))
    if not (_has_trig_square(n) or _has_trig_square(d)) and not any(
            not t.args[0].is_Symbol for t in (n.atoms(sp.sin, sp.cos) | d.atoms(sp.sin, sp.cos))):
        return sp.factor_terms(n) / sp.factor_terms(d)
    best = None
    for keep in ("sin", "cos"):
        n1, d1 = trig_reduce(n, keep), trig_reduce(d, keep)
        if d1.is_number:
            cand = sp.expand(n1 / d1)
        else:
            n2, d2 = sp.fraction(sp.cancel(n1 / d1))
            if n2 != n1 and n2 != -n1:
                n2, d2 = trig_reduce(n2, keep), trig_reduce(d2, keep)
            cand = sp.factor_terms(n2) / sp.factor_terms(d2)
        ops = count_ops(cand)
        if best is None or ops < best[0]:
            best = (ops, cand)
        if cand.is_polynomial() and not _has_den(cand):
            break
    return best[1]


def bracket_via_graph(X, Y):
    """``[X, Y]`` from the shared :class:`~geomech.lie.graph.BracketGraph` of the manifold.

    Falls back to :meth:`VectorField.bracket` while the graph module is unavailable.
    """
    try:
        from geomech.lie.graph import BracketGraph
    except ImportError:  # pragma: no cover - only before the lie layer exists
        return X.bracket(Y)
    try:
        return BracketGraph.of(X.manifold).bracket(X, Y)
    except (AttributeError, NotImplementedError):  # pragma: no cover
        return X.bracket(Y)


def _poly_rows(M: sp.Matrix, rhs: sp.Matrix):
    """Multiply each row of ``[M | rhs]`` by the common denominator of its entries."""
    M, rhs = M.copy(), rhs.copy()
    for i in range(M.shape[0]):
        fr = [sp.fraction(sp.together(e)) for e in (*M.row(i), rhs[i])]
        dens = [d for _, d in fr if d != 1]
        if dens:
            lcm = sp.lcm_list(dens) if len(dens) > 1 else dens[0]
            for j in range(M.shape[1]):
                M[i, j] = trig_reduce(sp.cancel(M[i, j] * lcm))
            rhs[i] = trig_reduce(sp.cancel(rhs[i] * lcm))
    return M, rhs


@dataclass(frozen=True)
class DeferredSolve:
    r"""A mass-matrix system :math:`M z = F` recorded instead of solved (see
    :func:`deferred_solves`): ``z`` are the placeholder symbols returned to the caller."""

    matrix: sp.Matrix
    rhs: sp.Matrix
    unknowns: tuple
    what: str


_DEFERRED: contextvars.ContextVar = contextvars.ContextVar("geomech_deferred_solves",
                                                           default=None)


@contextlib.contextmanager
def deferred_solves() -> Iterator[list]:
    r"""Within this context :func:`solve_linear` does not invert *mass matrices*.

    A call whose ``what`` names a mass matrix (every form of the equations of motion solves
    its mass-matrix system :math:`M\dot\nu = F` through :func:`solve_linear` with such a
    description) returns fresh placeholder symbols :math:`z` and appends a
    :class:`DeferredSolve` ``(M, F, z)`` to the yielded list; all other solves (constraint
    minors, frame changes) are done as usual.  The caller's expressions then contain
    :math:`z` linearly: that is the implicit (mass-matrix) form of its equations.

    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> with deferred_solves() as rec:
    ...     z = solve_linear(sp.Matrix([[2, x], [x, 3]]), sp.Matrix([1, 0]), what="mass matrix")
    >>> rec[0].matrix == sp.Matrix([[2, x], [x, 3]]), rec[0].unknowns == tuple(z)
    (True, True)
    """
    records: list = []
    token = _DEFERRED.set(records)
    try:
        yield records
    finally:
        _DEFERRED.reset(token)


def deferring() -> bool:
    """Whether mass-matrix solves are being deferred (inside :func:`deferred_solves`): forms
    may then skip normalising what only the implicit form uses."""
    return _DEFERRED.get() is not None


@contextlib.contextmanager
def _no_deferral() -> Iterator[None]:
    token = _DEFERRED.set(None)
    try:
        yield
    finally:
        _DEFERRED.reset(token)


def _defer(M: sp.Matrix, rhs: sp.Matrix, what: str):
    records = _DEFERRED.get()
    if records is None or "mass matrix" not in what:
        return None
    n = M.shape[0]
    if M.shape != (n, n) or rhs.shape[0] != n:
        raise ValueError(f"the {what} must be square with a matching right-hand side, got "
                         f"{M.shape} and {rhs.shape}")
    z = tuple(sp.Dummy(f"z{len(records) + 1}_{i + 1}", real=True) for i in range(n))
    records.append(DeferredSolve(sp.Matrix(M), sp.Matrix(rhs), z, what))
    return sp.Matrix(z)


def solve_linear(M: sp.Matrix, rhs: sp.Matrix, what: str = "system",
                 cancel_limit: int = 600) -> sp.Matrix:
    r"""Solve ``M x = rhs`` exactly, fraction free, in a polynomial ring.

    The entries are taken into :math:`\mathbb Q[\text{symbols},\sin s,\cos s,\sqrt b]`
    (:class:`_Algebra`), rows are cleared of denominators and reduced modulo
    :math:`\sin^2+\cos^2=1`, :math:`(\sqrt b)^2=b`; for ``n <= 5`` the minors of Cramer's
    rule are computed division free (Laplace expansion, memoised, every minor reduced: a ring
    map keeps :math:`\det M\,x=\operatorname{adj}(M)\,b` true), otherwise by
    ``DomainMatrix.solve_den``.  Each :math:`x_i=\text{num}_i/\det` is cancelled once at the
    end (gcd for small, trial division by the factors of the determinant for large
    numerators).  Expressions outside the ring (floats, nested radicals) take the older
    expression-level route (Berkowitz adjugate; ``cancel_limit`` applies there).

    >>> import sympy as sp
    >>> p, x = sp.symbols("phi x", real=True)
    >>> solve_linear(sp.Matrix([[1, sp.cos(p)], [sp.cos(p), 1]]), sp.Matrix([x, 0]))
    Matrix([
    [    x/sin(phi)**2],
    [-x*cos(phi)/sin(phi)**2]])

    Raises ``ValueError`` naming ``what`` when ``M`` is singular (zero policy).  Inside
    :func:`deferred_solves`, mass-matrix systems are recorded instead of solved.
    """
    deferred = _defer(M, rhs, what)
    if deferred is not None:
        return deferred
    pol = default_policy()
    n = M.shape[0]
    if n == 0:
        return sp.zeros(0, 1)
    if n == 1:
        if pol.is_zero(M[0, 0]):
            raise ValueError(f"the {what} is singular (its matrix vanishes identically)")
        return sp.Matrix([compact(rhs[0] / M[0, 0])])
    if all(M[i, j] == 0 for i in range(n) for j in range(n) if i != j):
        if any(pol.is_zero(M[i, i]) for i in range(n)):
            raise ValueError(f"the {what} is singular: a diagonal entry vanishes")
        return sp.Matrix([compact(rhs[i] / M[i, i]) for i in range(n)])
    try:
        return _ring_solve(M, rhs, what)
    except _Unsupported:
        pass
    Mp, rp = _poly_rows(M, rhs)
    det = trig_reduce(Mp.det(method="berkowitz"))
    if pol.is_zero(det):
        raise ValueError(f"the {what} is singular: det = 0 identically")
    adj = Mp.adjugate(method="berkowitz")
    out = []
    for i in range(n):
        num = trig_reduce(sp.Add(*[adj[i, j] * rp[j] for j in range(n) if rp[j] != 0]))
        if count_ops(num) + count_ops(det) <= cancel_limit:
            out.append(compact(num / det))
        else:
            out.append(sp.factor_terms(num) / sp.factor_terms(det))
    return sp.Matrix(out)


def acceleration_symbols(velocities: Sequence[sp.Symbol]) -> tuple[sp.Symbol, ...]:
    """One acceleration symbol per velocity symbol: ``xdot -> xddot``."""
    out = []
    for v in velocities:
        name = v.name[:-3] + "ddot" if v.name.endswith("dot") else v.name + "_t"
        out.append(sp.Symbol(name, real=True))
    return tuple(out)


def tidy(e, velocities) -> sp.Expr:
    """Presentation form: the numerator collected in the monomials of ``velocities`` with
    factored coefficients, the denominator factored; returned only when it is shorter.

    >>> import sympy as sp
    >>> a, b, v = sp.symbols("a b v")
    >>> tidy(a*b*v**2 + a*v**2 + a*b + a, [v])
    a*(b + 1)*(v**2 + 1)
    """
    e = as_expr(e)
    vel = [v for v in velocities if e.has(v)]
    if e.is_Atom or not vel:
        return e
    if sum(1 for _ in sp.preorder_traversal(e)) > _TIDY_NODE_LIMIT:
        return e                    # presentation only: very large expressions are kept
    try:
        out = _ring_tidy(e, vel)
    except _Unsupported:
        return _tidy_expr(e, vel)
    return out if count_ops(out) < count_ops(e) else e


def _tidy_expr(e: sp.Expr, vel) -> sp.Expr:
    n, d = sp.fraction(e)
    try:
        P = sp.Poly(n, *vel)
    except sp.PolynomialError:
        return e
    if not all(c.free_symbols.isdisjoint(vel) for c in P.coeffs()):
        return e
    def fac(c):
        return sp.factor(c) if count_ops(c) < 120 else sp.factor_terms(c)

    terms = [fac(c) * sp.Mul(*[g**k for g, k in zip(vel, mon)]) for mon, c in P.terms()]
    num = sp.Add(*terms)
    common = sp.factor_terms(num)
    den = fac(d) if d != 1 else 1
    out = common / den
    if len(terms) <= 3 and count_ops(n) < 120:
        alt = sp.factor(num) / den
        if count_ops(alt) < count_ops(out):
            out = alt
    return out if count_ops(out) < count_ops(e) else e


def _sum_with_gcd(n, d, n2, d2) -> tuple:
    """``n/d + n2/d2`` over ``lcm(d, d2)``."""
    if d.is_ground and d2.is_ground:
        return n * d2 + n2 * d, d * d2
    g = poly_gcd(d, d2)
    return n * d2.exquo(g) + n2 * d.exquo(g), d * d2.exquo(g)


def _sum_without_gcd(n, d, n2, d2) -> tuple:
    """``n/d + n2/d2`` over ``d`` when ``d2`` divides it, else over ``d d2`` (no gcd)."""
    if d2.is_ground:
        return (n + n2 * d.quo_ground(d2.LC) if d2 != 1 else n + n2 * d), d
    q, r = d.div(d2)
    if not r:
        return n + n2 * q, d
    return n * d2 + n2 * d, d * d2
