r"""Exact linear algebra over :math:`\mathbb Q(\text{parameters})` and over functions.

Every rank, null space and linear solve of geomech goes through this module (dense exact
matrices over :math:`\mathbb Q` and :math:`\mathbb Q(p)` are in
:mod:`~geomech.core.algebra.matrices`, the solvers in :mod:`~geomech.core.algebra.solve`):

* :func:`rank`, :func:`nullspace` -- matrices of expressions, exact over the field of
  rational functions of their symbols (``DomainMatrix`` over :math:`\mathbb Q(p)`, python-flint
  ground types when sympy uses them); other entries are decided by the zero policy.
* :func:`~geomech.core.algebra.solve.solve_linear` -- square systems :math:`Mx = b` fraction
  free in the ring of :class:`~geomech.core.algebra.rings.RationalAlgebra` (Cramer's rule with
  memoised minors reduced modulo :math:`\sin^2+\cos^2=1` for ``n <= 5``,
  ``DomainMatrix.solve_den`` above).
* :func:`ring_linear_rows` -- the linear equations for constants ``c`` such that an
  expression linear in ``c`` vanishes identically (coefficients of the reduced numerator).
* :func:`solve_constant_linear`, :func:`solve_homogeneous` -- bases of the constant
  solutions; :func:`~geomech.core.algebra.solve.solve_over_functions` -- :math:`AX = b` over
  the field of functions.
* zero decisions are the zero policy's (:mod:`geomech.core.zero`; its first stage is the
  ring certificate :func:`~geomech.core.algebra.normal_form.ring_zero_test`).

Sampling at random exact points is used only to *choose* (pivots, independent rows); every
answer is verified exactly before it is returned.

>>> import sympy as sp
>>> k, x = sp.symbols("k x")
>>> rank(sp.Matrix([[1, k], [k, k**2]]))
1
>>> nullspace(sp.Matrix([[1, k], [k, k**2]]))
[Matrix([
[ k],
[-1]])]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import sympy as sp
from sympy.polys.matrices import DomainMatrix

from geomech.core.algebra import linear_forms
from geomech.core.algebra.matrices import (
    fraction_free,
    independent_rows,
    matrix_nullspace,
    polynomial_domain_matrix,
    polynomial_rank,
    rational_rank,
)
from geomech.core.algebra.normal_form import has_denominator
from geomech.core.algebra.rings import RationalAlgebra, UnsupportedExpression
from geomech.core.parse import as_expr, as_matrix
from geomech.core.zero import UNDECIDABLE_ERRORS, ZeroPolicy, default_policy, rational_rewrite

__all__ = ["rank", "nullspace", "ring_linear_rows", "ring_linear_domain_rows",
           "solve_constant_linear", "solve_homogeneous", "CoefficientRows", "primitive_vector"]


def rank(matrix) -> int:
    r"""Generic rank of a matrix of expressions over the field of functions.

    Entries rational in their symbols (parameters included) are ranked exactly in
    :math:`\mathbb Q(\text{symbols})` by :func:`~geomech.core.algebra.matrices.
    polynomial_rank`; others (trigonometric, radicals, free functions) by the zero policy's
    :meth:`~geomech.core.zero.ZeroPolicy.rank`.

    >>> a, b = sp.symbols("a b")
    >>> rank([[a, b], [2*a, 2*b]]), rank([[a, b], [b, a]])
    (1, 2)
    """
    m = as_matrix(matrix)
    got = polynomial_rank(m)
    return default_policy().rank(m) if got is None else got


def nullspace(matrix) -> list[sp.Matrix]:
    r"""Basis of the right null space over the field of functions, each vector scaled by
    :func:`primitive_vector` (polynomial entries without common factor).

    >>> a, b = sp.symbols("a b")
    >>> nullspace([[a, b]])
    [Matrix([
    [ b],
    [-a]])]
    """
    m = as_matrix(matrix)
    if m.cols == 0:
        return []
    dm = _rational_domain_matrix(m)
    if dm is None:
        return [sp.Matrix(primitive_vector(list(v))) for v in default_policy().nullspace(m)]
    ns = dm.nullspace()
    return [sp.Matrix(_primitive_in_ring(ns.to_Matrix().row(i), ns.domain))
            for i in range(ns.shape[0])]


def _primitive_in_ring(row, dom) -> list:
    """A null vector scaled to polynomial entries without common factor, the first non-zero
    entry with a positive leading coefficient (gcds in the polynomial ring, not in sympy)."""
    R = sp.ZZ if dom.is_Numerical else (dom.get_ring() if dom.is_Field else dom)
    K = R.get_field()
    vals = [K.from_sympy(e) for e in row]
    den = R.one
    for v in vals:
        den = R.lcm(den, K.denom(v))
    nums = [K.numer(v) * R.exquo(den, K.denom(v)) for v in vals]
    g = R.zero
    for a in nums:
        g = R.gcd(g, a)
    if g:
        nums = [R.exquo(a, g) for a in nums]
    first = next((a for a in nums if a), None)
    if first is not None and R.is_negative(first):
        nums = [-a for a in nums]
    return [R.to_sympy(a) for a in nums]


def _rational_domain_matrix(m: sp.Matrix):
    r"""``m`` over :math:`\mathbb Z[\text{symbols}]` (polynomial entries: fraction-free
    elimination, no gcds) or :math:`\mathbb Q(\text{symbols})`, or ``None``."""
    dm = polynomial_domain_matrix(m)
    return None if dm is None else fraction_free(dm)


def ring_linear_rows(exprs: Sequence, unknowns: Sequence[sp.Symbol],
                     keep: Iterable[sp.Symbol] = (), at: dict | None = None
                     ) -> list[list[sp.Expr]] | None:
    r"""Linear equations (rows of coefficients) for ``expr(x; c) \equiv 0`` in all ``x``.

    Each expression is linear homogeneous in the ``unknowns`` ``c``; it is brought over one
    common denominator in :math:`\mathbb Q[x,\sin s,\cos s,\sqrt b]` and its numerator is
    reduced modulo the Pythagorean relations (and :math:`(\sqrt b)^2=b`).  The reduced
    monomials in the symbols other than ``unknowns`` and ``keep`` are linearly independent
    functions (for square roots of non-squares; otherwise extra equations can only remove
    solutions, which callers verify), so every coefficient gives a row
    :math:`\sum_j a_j(\text{keep})\,c_j = 0`.  Returns ``None`` for expressions outside the
    ring (the caller then samples).  ``at`` (``{symbol: rational}``) specialises symbols
    first (parameters at a point, unknowns set to zero), in the ring, not in the
    expressions (:class:`~geomech.core.algebra.rings.RationalAlgebra` ``values``).  The
    unknowns are not generators of the ring: each expression is a vector of numerators,
    one per unknown (:func:`~geomech.core.algebra.linear_forms.linear_fraction`).

    >>> x, a, b = sp.symbols("x a b")
    >>> ring_linear_rows([a*sp.sin(x)**2 + a*sp.cos(x)**2 - b], [a, b])
    [[1, -1]]
    """
    got = _ring_rows(exprs, unknowns, keep, at)
    if got is None:
        return None
    rows, dom, kgens = got
    return _rows_to_sympy(rows, len(list(unknowns)), dom, kgens)


def ring_linear_domain_rows(exprs: Sequence, unknowns: Sequence[sp.Symbol],
                            params: Sequence[sp.Symbol]) -> tuple | None:
    r""":func:`ring_linear_rows` with the rows as elements of
    :math:`\mathbb Q[\text{params}]` (a sympy domain, returned with them): no conversion
    to expressions and back.  ``None`` outside the ring.

    >>> x, a, b, k = sp.symbols("x a b k")
    >>> rows, dom = ring_linear_domain_rows([a*k*sp.sin(x)**2 + a*k*sp.cos(x)**2 - b],
    ...                                     [a, b], [k])
    >>> rows, dom
    ([[k, -1]], QQ[k])
    """
    params = list(params)
    got = _ring_rows(exprs, unknowns, params, None)
    dom = sp.QQ[tuple(params)] if params else sp.QQ
    if got is None:
        return None
    rows, rdom, kgens = got
    where = [params.index(g) for g in kgens]
    n = len(list(unknowns))
    out, seen = [], set()
    for row in rows:
        vec = [dom.zero] * n
        for j, p in row.items():
            if not kgens:           # the entry is a coefficient
                vec[j] = dom.convert_from(p, rdom)
                continue
            terms: dict = {}
            for km, c in p.items():
                e = [0] * len(params)
                for i, k in zip(where, km):
                    e[i] = k
                terms[tuple(e)] = terms.get(tuple(e), 0) + dom.dom.convert_from(c, rdom)
            vec[j] = dom.ring.from_dict({m: c for m, c in terms.items() if c})
        key = tuple(vec)
        if any(vec) and key not in seen:
            seen.add(key)
            out.append(vec)
    return out, dom


def _ring_rows(exprs, unknowns, keep, at):
    """The rows ``{unknown index: {parameter monomial: coefficient}}`` of
    :func:`ring_linear_rows` with the ring's domain and the kept generators, or ``None``;
    without kept generators the entries are the coefficients themselves."""
    unknowns = list(unknowns)
    if at and any(c in at for c in unknowns):
        raise ValueError("the unknowns cannot be specialised (set them to zero in `at` and "
                         "leave them out of `unknowns`)")
    keep = set(keep)
    exprs = [as_expr(e) for e in exprs]
    exprs = [e for e in exprs if e != 0]
    if not exprs:
        return [], sp.QQ, []
    try:
        alg = RationalAlgebra(exprs, exclude=unknowns, values=at)
    except UnsupportedExpression:
        return None
    syms = list(alg.ring.symbols)
    kidx = [i for i, g in enumerate(syms) if g in keep]
    oidx = [i for i, g in enumerate(syms) if g not in keep]
    conv = linear_forms.linear_fraction_memo(alg, unknowns)
    rows: dict = {}     # key -> {unknown index -> {parameter monomial -> coefficient}}
    for k, e in enumerate(exprs):
        try:
            got = linear_forms.tagged_linear_fraction(alg, e, unknowns, conv)
            if got is not None:
                where = {g: v for v, g in enumerate(got[2])}
                _add_tagged_rows(rows, k, got[0], [where[i] for i in kidx],
                                 [where[i] for i in oidx])
                continue
            vec, _ = linear_forms.linear_fraction(alg, e, unknowns, conv)
        except linear_forms.NotLinear as exc:
            raise ValueError("the determining equations are not linear homogeneous in the "
                             f"unknowns ({exc})") from exc
        except (UnsupportedExpression, ZeroDivisionError):
            return None
        for j, n in vec.items():
            if not kidx:            # no parameters kept: the monomial is the key
                for mon, coeff in n.items():
                    rows.setdefault((k, mon), {})[j] = coeff
                continue
            for mon, coeff in n.items():
                key = (k, *(mon[i] for i in oidx))    # one identity per expression
                entry = rows.setdefault(key, {}).setdefault(j, {})
                kmon = tuple(mon[i] for i in kidx)
                entry[kmon] = entry.get(kmon, 0) + coeff
    return list(rows.values()), alg.ring.domain, [syms[i] for i in kidx]


def _add_tagged_rows(rows: dict, k: int, F, kidx: list, oidx: list) -> None:
    r"""The terms :math:`c\,m\,\tau^j` of the tagged numerator ``F`` of expression ``k``
    (:func:`~geomech.core.algebra.linear_forms.tagged_linear_fraction`) added to ``rows``
    (``{key: {unknown index: {parameter monomial: coefficient}}}``, as in :func:`_ring_rows`);
    ``kidx``/``oidx``: the positions of the kept / other generators in ``F``'s context."""
    if not kidx:            # the terms of one row are consecutive (lex, the tag last)
        prev = row = None
        for m, c in zip(F.monoms(), F.coeffs()):
            key = m[:-1]
            if key != prev:
                prev, row = key, rows.setdefault((k, key), {})
            row[m[-1]] = c
        return
    for m, c in zip(F.monoms(), F.coeffs()):
        entry = rows.setdefault((k, *(m[i] for i in oidx)), {}).setdefault(m[-1], {})
        kmon = tuple(m[i] for i in kidx)
        entry[kmon] = entry.get(kmon, 0) + c


def _rows_to_sympy(rows, n: int, dom, kgens: list) -> list[list[sp.Expr]]:
    """The rows ``{unknown index: {parameter monomial: coefficient}}`` (without ``kgens``:
    ``{unknown index: coefficient}``) as lists of sympy expressions, made small in the ring
    first: an unknown alone in a row is zero (generically in the parameters, as in
    :func:`solve_homogeneous`), so it is removed from the other rows and its row becomes the
    unit row; duplicate rows are dropped and each distinct entry is converted once."""
    if kgens:
        work = [{j: k for j, p in row.items() if (k := frozenset((km, c) for km, c in p.items()
                                                                 if c))}
                for row in rows]
    else:                   # a coefficient of a reduced numerator: non-zero
        work = rows
    work = [r for r in work if r]
    zero = _forced_zero(work)
    out, seen, memo = [], set(), {}

    def entry_expr(key) -> sp.Expr:
        if key not in memo:
            memo[key] = sp.Add(*[dom.to_sympy(c) * sp.Mul(*[g**e for g, e in zip(kgens, km)
                                                             if e]) for km, c in key]) \
                if kgens else dom.to_sympy(key)
        return memo[key]

    for j in sorted(zero):
        out.append([sp.S.One if i == j else sp.S.Zero for i in range(n)])
    keys = []
    for r in work:
        key = frozenset((j, p) for j, p in r.items() if j not in zero)
        if len(key) < 2 or key in seen:
            continue                # all-zero after the elimination (one entry: a unit row)
        seen.add(key)
        keys.append(key)
    # sparsest rows first (the order in which the solvers pick independent rows)
    keys.sort(key=lambda key: (len(key), sum(len(p) for _, p in key) if kgens else 0,
                               sorted(j for j, _ in key)))
    for key in keys:
        vec = [sp.S.Zero] * n
        for j, p in key:
            vec[j] = entry_expr(p)
        out.append(vec)
    return out


def _forced_zero(work: list) -> set:
    """The unknowns forced to vanish by rows in which, the others forced already, they are
    alone: the least set closed under this rule (unique; the rows are scanned again only
    while it grows, and a row with at most one live unknown is not scanned again)."""
    zero: set = set()
    live_rows = work
    while True:
        found, rest = set(), []
        for r in live_rows:
            live = [j for j in r if j not in zero]
            if len(live) == 1:
                found.add(live[0])
            elif live:
                rest.append(r)
        if not found:
            return zero
        zero |= found
        live_rows = rest


def solve_constant_linear(exprs: Sequence, unknowns: Sequence[sp.Symbol],
                          keep: Iterable[sp.Symbol] = (), *, max_points: int = 60,
                          seed: int = 7) -> list[dict]:
    r"""Basis of the constant solutions ``c`` of ``expr(x; c) ≡ 0`` (linear in ``c``).

    Every expression is linear homogeneous in ``unknowns``; it must vanish identically in all
    its other free symbols except those in ``keep`` (parameters, on which the solutions may
    depend).  The equations are sampled at random exact points (after replacing undefined
    functions by jet symbols and trigonometric functions by half-angle rational ones), the
    exact null space of the sampled system is computed, and each basis vector is verified
    exactly on the original expressions; sampling continues until all are verified.

    Returns a list of dicts ``{unknown: value}`` (a basis of the solution space).

    >>> x, a, b = sp.symbols("x a b")
    >>> solve_constant_linear([a*x + b*x**2 - 2*b*x**2], [a, b])
    []
    >>> solve_constant_linear([a*sp.sin(x)**2 + a*sp.cos(x)**2 - b], [a, b])
    [{a: 1, b: 1}]
    """
    pol = default_policy()
    unknowns = list(unknowns)
    keep = set(keep)
    if not unknowns:
        return []
    coeffs = _coefficient_rows(exprs, unknowns, pol)
    if not coeffs:
        return [{c: (1 if c is d else 0) for c in unknowns} for d in unknowns]
    sample_syms = sorted(set().union(*(r.free_symbols for row in coeffs for r in row)) - keep,
                         key=sp.default_sort_key)
    kept = sorted(set().union(*(r.free_symbols for row in coeffs for r in row)) & keep,
                  key=sp.default_sort_key)
    sampler = ZeroPolicy(seed=seed, warn=False)
    par_pt = sampler.random_point(kept)            # parameters: used only to find the rank
    exprs_l = [as_expr(e) for e in exprs]
    rows: list[list] = []        # symbolic in the kept parameters
    nrows: list[list] = []       # fully numeric (parameters sampled too)
    stable, last_rank, npts = 0, -1, 0
    n = len(unknowns)
    while npts < max_points:
        pt = sampler.random_point(sample_syms)
        npts += 1
        new = [[r.xreplace(pt) for r in row] for row in coeffs]
        if any(val.has(sp.zoo, sp.nan, sp.oo) for row in new for val in row):
            continue
        num = [[val.xreplace(par_pt) for val in row] for row in new]
        if any(val.has(sp.zoo, sp.nan, sp.oo) for row in num for val in row):
            continue
        rows.extend(new)
        nrows.extend(num)
        rank = _rank_numeric(nrows, pol)
        if rank == last_rank:
            stable += 1
        else:
            stable, last_rank = 0, rank
        if rank == n:
            return []            # only the zero solution (generic parameters)
        if stable >= 2:
            sel = _independent_rows(nrows, pol)
            basis = _nullspace(sp.Matrix([rows[i] for i in sel]), pol)
            sols = [dict(zip(unknowns, b)) for b in basis]
            if all(pol.is_zero(e.xreplace(s)) for s in sols for e in exprs_l):
                return sols
            stable = 0
    raise ValueError("could not confirm the solutions of the determining equations "
                     f"after {max_points} sample points")


def _coefficient_rows(exprs: Sequence, unknowns: list, pol: ZeroPolicy) -> list[list]:
    """One row per expression involving the unknowns: :math:`\\partial e/\\partial c_j`
    rewritten rationally (jets, half angles); expressions free of the unknowns must vanish."""
    coeffs = []
    for e in exprs:
        e = sp.expand(as_expr(e)) if not has_denominator(as_expr(e)) else as_expr(e)
        if not e.has(*unknowns):
            if not pol.is_zero(e):
                raise ValueError(f"expression {sp.sstr(e)[:80]} does not involve the unknowns "
                                 "and is not zero: the system is inconsistent")
            continue
        row = [sp.diff(e, c) for c in unknowns]
        if any(r.has(*unknowns) for r in row):
            raise ValueError("the determining equations are not linear in the unknowns")
        coeffs.append([rational_rewrite(r) for r in row])
    return coeffs


def _rank_numeric(rows, pol) -> int:
    try:
        return rational_rank(rows, len(rows[0]))
    except TypeError:                    # not rational: the zero policy
        return pol.rank(sp.Matrix(rows))


def _independent_rows(rows, pol) -> list[int]:
    """Indices of a maximal set of linearly independent rows (pivots of the transpose)."""
    try:
        return independent_rows(rows)
    except TypeError:
        return list(sp.Matrix(rows).T.rref(iszerofunc=pol.is_zero)[1])


def _nullspace(m: sp.Matrix, pol: ZeroPolicy) -> list[sp.Matrix]:
    """Exact null space, fast path through DomainMatrix, normalised to a reduced basis."""
    try:
        vecs = matrix_nullspace(m)
    except UNDECIDABLE_ERRORS:  # fall back to the policy's generic null space
        vecs = pol.nullspace(m)
    if not vecs:
        return []
    # reduced echelon form of the basis (canonical, readable solutions)
    B = sp.Matrix.hstack(*vecs).T
    try:
        R = DomainMatrix.from_Matrix(B).to_field().rref()[0].to_Matrix()
    except UNDECIDABLE_ERRORS:
        R = B.rref(iszerofunc=pol.is_zero)[0]
    out = []
    for i in range(R.rows):
        r = R.row(i)
        if any(not pol.is_zero(x) for x in r):
            out.append(r.T.applyfunc(pol.normalize))
    return out


class CoefficientRows(list):
    """Rows of coefficients of homogeneous linear equations: one list per equation, one
    entry per unknown (what :func:`ring_linear_rows` returns)."""


def _selected_nullspace(rows: list, n: int) -> list[sp.Matrix] | None:
    r"""Exact null space of many rows with few unknowns, guided by a random point.

    The parameters in the entries are set to random rationals to find a maximal set of
    independent rows (independent there, hence generically); the null space of these rows is
    computed exactly over :math:`\mathbb Q(\text{parameters})`, and every basis vector is then
    checked exactly against *all* rows.  Since the solution space lies in the null space of the
    selected rows, a fully verified basis is the exact answer; otherwise (an unlucky point)
    ``None`` is returned and the caller computes the full null space.
    """
    M = sp.Matrix(rows)
    params = sorted(M.free_symbols, key=sp.default_sort_key)
    pt = ZeroPolicy(seed=4711, warn=False).random_point(params)
    numeric = [[sp.Rational(e.xreplace(pt)) if e != 0 else sp.S.Zero for e in r] for r in rows]
    piv = independent_rows(numeric)
    full = fraction_free(DomainMatrix.from_Matrix(M))
    if not piv:
        return None
    ns = full.extract(list(piv), list(range(n))).nullspace()
    if ns.shape[0] == 0:
        return []
    if ns.shape[0] != n - len(piv) or not (full * ns.transpose()).is_zero_matrix:
        return None
    nsm = ns.to_Matrix()
    return [nsm.row(i).T for i in range(nsm.rows)]


def solve_homogeneous(rows, unknowns: Sequence[sp.Symbol]) -> list[dict]:
    r"""Basis of the solutions of homogeneous linear equations :math:`\sum_j a_{ij} c_j = 0`
    over the field of functions of the entries (exact), each vector primitive.

    ``rows`` are expressions linear in ``unknowns`` or a :class:`CoefficientRows` (lists of
    coefficients).  For coefficient rows, an equation with a single non-zero coefficient
    forces that unknown to vanish; those are eliminated first.

    >>> a, b, k = sp.symbols("a b k")
    >>> solve_homogeneous([a*k - b], [a, b])
    [{a: 1, b: k}]
    >>> solve_homogeneous(CoefficientRows([[k, -1], [0, 1]]), [a, b])
    []
    """
    unknowns = list(unknowns)
    if not unknowns:
        return []
    if not rows:
        return [{u: (1 if u is v else 0) for u in unknowns} for v in unknowns]
    if isinstance(rows, CoefficientRows):
        return _solve_coefficient_rows(rows, unknowns)
    M, _ = sp.linear_eq_to_matrix(rows, unknowns)
    seen, keys = [], set()              # remove duplicate rows cheaply
    for i in range(M.rows):
        r = M.row(i)
        key = tuple(r)
        if key in keys or all(x == 0 for x in r):
            continue
        keys.add(key)
        seen.append(r)
    if not seen:
        return [{u: (1 if u is v else 0) for u in unknowns} for v in unknowns]
    M = sp.Matrix.vstack(*seen)
    try:
        vecs = matrix_nullspace(M)
    except UNDECIDABLE_ERRORS:  # fall back to the zero policy's null space
        vecs = default_policy().nullspace(M)
    return [dict(zip(unknowns, primitive_vector(v))) for v in vecs]


def _solve_coefficient_rows(rows: CoefficientRows, unknowns: list) -> list[dict]:
    n = len(unknowns)
    active = set(range(n))
    zero = sp.S.Zero
    work = [{j: e for j, e in enumerate(r) if e is not zero and e != 0} for r in rows]
    changed = True
    while changed:
        changed = False
        for r in work:
            live = [j for j in r if j in active]
            if len(live) == 1:
                active.discard(live[0])
                changed = True
    cols = sorted(active)
    if not cols:
        return []
    sub, seen = [], set()
    for r in work:
        vec = tuple(r.get(j, sp.S.Zero) for j in cols)
        if any(v != 0 for v in vec) and vec not in seen:
            seen.add(vec)
            sub.append(list(vec))
    if not sub:
        vecs = [sp.Matrix([1 if i == k else 0 for i in range(len(cols))])
                for k in range(len(cols))]
    else:
        with_free = any(e.free_symbols for r in sub for e in r)
        vecs = _selected_nullspace(sub, len(cols)) if with_free or len(sub) > 200 else None
        if vecs is None:
            vecs = matrix_nullspace(sp.Matrix(sub))
    out = []
    for v in vecs:
        full = [sp.S.Zero] * n
        for j, x in zip(cols, v):
            full[j] = x
        out.append(dict(zip(unknowns, primitive_vector(full))))
    return out


def primitive_vector(v) -> list:
    """Scale a vector of rational functions to polynomial entries without common factor,
    the first non-zero entry made polynomial by dividing by it first.

    >>> x = sp.Symbol("x")
    >>> primitive_vector([x/2, x**2/3])
    [3, 2*x]
    """
    v = [_cancel(x) for x in v]
    first = next((x for x in v if x != 0), None)
    if first is None:
        return v
    v = [_cancel(x / first) for x in v]
    den = sp.lcm([sp.denom(x) for x in v])
    v = [_cancel(x * den) for x in v]
    g = sp.gcd_list([x for x in v if x != 0])
    if g != 0:
        v = [_cancel(x / g) for x in v]
    return v


def _cancel(x):
    """``sp.cancel(x)``, rational numbers (already cancelled) returned as they are."""
    if isinstance(x, int):
        return sp.Integer(x)
    return x if getattr(x, "is_Rational", False) else sp.cancel(x)
