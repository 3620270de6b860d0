r"""Exact linear solves: square systems over a polynomial ring, and :math:`AX=b` over the
field of functions.

* :func:`solve_linear` -- :math:`Mx = b` fraction free in the ring of
  :class:`~geomech.core.algebra.rings.RationalAlgebra` (Cramer's rule with memoised minors,
  :math:`\det M\,x = \operatorname{adj}(M)\,b`, reduced modulo :math:`\sin^2+\cos^2=1` for
  ``n <= 5``; ``DomainMatrix.solve_den`` above);
* :func:`solve_over_functions` -- :math:`AX = b` for the first unknowns, the pivot pattern
  read off at a random exact point and every verdict certified exactly;
* :func:`function_rref` -- the reduced echelon form over the field of functions (pivots
  decided by the zero policy);
* :class:`LaplaceMinors` -- division-free determinants and Cramer's rule by memoised
  minors, over any ring (sympy expressions, sparse and python-flint polynomials);
* :func:`policy_algebra` -- the ring of a set of expressions whose zero tests the zero policy
  decides.

>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> solve_linear(sp.Matrix([[x, 1], [0, x]]), sp.Matrix([1, 1]))
Matrix([
[(x - 1)/x**2],
[         1/x]])
"""

from __future__ import annotations

import operator

import sympy as sp
from sympy.polys.matrices import DomainMatrix
from sympy.polys.matrices.exceptions import DMNonInvertibleMatrixError

from geomech.core.algebra.matrices import unsimplified_products
from geomech.core.algebra.normal_form import compact, trig_reduce
from geomech.core.algebra.rings import RationalAlgebra, UnsupportedExpression
from geomech.core.flintpolys import poly_mul
from geomech.core.opcount import count_ops  # == sympy.count_ops, faster
from geomech.core.parse import as_matrix
from geomech.core.zero import ZeroPolicy, default_policy, rational_rewrite

__all__ = ["solve_linear", "solve_over_functions", "function_rref", "policy_algebra",
           "adjugate_inverse", "LaplaceMinors"]


def policy_algebra(exprs) -> RationalAlgebra:
    """The ring of ``exprs`` (:class:`~geomech.core.algebra.rings.RationalAlgebra`) whose zero
    tests outside the faithful case are decided by the global zero policy.

    >>> s, f = sp.Symbol("s"), sp.Function("f")
    >>> A = policy_algebra([f(s)])                 # f(s) is a free atom: not faithful
    >>> A.faithful, A.is_zero(A.ring.from_expr(f(s)))
    (False, False)
    """
    return RationalAlgebra(exprs, decide=default_policy().is_zero)


def _numeric_at(M: sp.Matrix, pt: dict):
    r"""``M`` at a random point (half-angle rational rewriting), exact over :math:`\mathbb Q`
    or over the number field of its radicals (``(...)**(3/2)`` of a rational radicand is
    algebraic: the pivots at the point are still exact), or None."""
    try:
        vals = M.applyfunc(lambda e: rational_rewrite(e).xreplace(pt) if e != 0 else e)
        if all(x.is_Rational for x in vals):
            return DomainMatrix.from_Matrix(vals).convert_to(sp.QQ)
        if any(not x.is_algebraic for x in vals):
            return None
        dm = DomainMatrix.from_Matrix(vals, extension=True)
        return dm if dm.domain.is_AlgebraicField else None
    except (ZeroDivisionError, TypeError, ValueError, NotImplementedError):
        return None


def solve_over_functions(A: sp.Matrix, b: sp.Matrix, nG: int) -> tuple[list | None, str]:
    r"""Solve :math:`AX = b` over the field of functions for the first ``nG`` unknowns.

    Returns ``(G, status)``: ``status`` is ``"ok"`` (``G`` the list of the first ``nG``
    unknowns, uniquely determined), ``"inconsistent"`` (no solution) or ``"free"`` (some of
    them are not determined); ``G`` is ``None`` unless ``"ok"``.

    The pivot structure is read off at a random exact point (ranks there are lower bounds
    of the generic ones); the determined unknowns are then computed exactly from a square
    subsystem that is non-singular at that point (hence generically) with
    :func:`solve_linear`.  A negative verdict is certified exactly (a row combination
    annihilating ``A`` but not ``b``; a null vector of ``A`` with a non-zero ``G``
    component).  Whatever is not certified falls back to the exact reduced echelon form over
    the functions, pivots decided by the zero policy.

    >>> x = sp.Symbol("x")
    >>> solve_over_functions(sp.Matrix([[x, 1], [0, x]]), sp.Matrix([1, 1]), 2)
    ([(x - 1)/x**2, 1/x], 'ok')
    >>> solve_over_functions(sp.Matrix([[x], [2*x]]), sp.Matrix([1, 1]), 1)
    (None, 'inconsistent')
    """
    got = _point_guided_solve(A, b, nG)
    if got is not None:
        return got
    return _rref_solve_functions(A, b, nG)


def _point_guided_solve(A: sp.Matrix, b: sp.Matrix, nG: int):
    aug = A.row_join(b)
    syms = sorted(set().union(*(rational_rewrite(e).free_symbols for e in aug if e != 0)),
                  key=sp.default_sort_key)
    sampler = ZeroPolicy(seed=2718, warn=False)
    num = None
    for _ in range(3):
        num = _numeric_at(aug, sampler.random_point(syms))
        if num is not None:
            break
    if num is None:
        return None
    ncols = A.cols
    rref, piv = num.rref()
    piv = list(piv)
    if ncols in piv:                                     # inconsistent at the point
        rows = list(num.transpose().extract(list(range(ncols)), list(range(A.rows)))
                    .rref()[1])                          # independent rows of A there
        P = [j for j in piv if j < ncols]
        for i in range(A.rows):
            if i in rows:
                continue
            try:
                z = solve_linear(A.extract(rows, P).T, A.extract([i], P).T, what="minor")
            except ValueError:
                return None
            combos = [A[i, j] - sum(z[k] * A[r, j] for k, r in enumerate(rows))
                      for j in range(ncols)]
            zero = default_policy().is_zero
            if all(zero(e) for e in combos):
                res = b[i] - sum(z[k] * b[r] for k, r in enumerate(rows))
                if not zero(res):
                    return None, "inconsistent"
        return None
    free = [j for j in range(ncols) if j not in piv]
    rows = list(num.transpose().extract(list(range(ncols)), list(range(A.rows))).rref()[1])
    Asub = A.extract(rows, piv)
    # is G determined at the point?  rows of the rref: pivot j expressed by the free ones
    R = rref.to_Matrix()
    for k, j in enumerate(piv):
        if j < nG and any(R[k, f] != 0 for f in free):
            # certify: the null vector of the free column f has a non-zero G component
            f = next(f for f in free if R[k, f] != 0)
            try:
                x = solve_linear(Asub, -A.extract(rows, [f]), what="minor")
            except ValueError:
                return None
            vec = [sp.S.Zero] * ncols
            vec[f] = sp.S.One
            for kk, jj in enumerate(piv):
                vec[jj] = x[kk]
            zero = default_policy().is_zero
            if all(zero(sum(A[i, jj] * vec[jj] for jj in range(ncols) if vec[jj] != 0))
                   for i in range(A.rows)) and not zero(vec[j]):
                return None, "free"
            return None
    if any(j not in piv for j in range(nG)):
        return None
    x = _sparse_solve(Asub, b.extract(rows, [0]))
    return [compact(x[piv.index(j)]) for j in range(nG)], "ok"


def _sparse_solve(A: sp.Matrix, b: sp.Matrix) -> list:
    """Exact solution of a non-singular square system: unknowns with a numeric coefficient
    are eliminated first (no fractions of functions are created), the rest goes to the ring
    solver :func:`solve_linear`, then back substitution."""
    n = A.rows
    zero = default_policy().is_zero
    rows = [{j: A[i, j] for j in range(n) if A[i, j] != 0} for i in range(n)]
    rhs = [b[i] for i in range(n)]
    live_rows, live_cols = set(range(n)), set(range(n))
    steps = []                       # (row, column) pivots in order
    while True:
        best = None
        for i in live_rows:
            for j, a in rows[i].items():
                if j in live_cols and a.is_number and not zero(a):
                    cand = (len(rows[i]), i, j)
                    if best is None or cand < best:
                        best = cand
        if best is None:
            break
        _, i, j = best
        live_rows.discard(i)
        live_cols.discard(j)
        steps.append((i, j))
        piv = rows[i][j]
        for ll in live_rows:
            f = rows[ll].pop(j, None)
            if f is None:
                continue
            ratio = f / piv
            for k, a in rows[i].items():
                if k == j:
                    continue
                val = sp.expand(rows[ll].get(k, 0) - ratio * a)
                if zero(val):
                    rows[ll].pop(k, None)
                else:
                    rows[ll][k] = val
            rhs[ll] = rhs[ll] - ratio * rhs[i]
    x = [None] * n
    rest_r, rest_c = sorted(live_rows), sorted(live_cols)
    if rest_r:
        M = sp.Matrix(len(rest_r), len(rest_c), lambda a, c: rows[rest_r[a]].get(rest_c[c], 0))
        sol = solve_linear(M, sp.Matrix([rhs[i] for i in rest_r]),
                           what="linear system for d(log rho)")
        for c, val in zip(rest_c, sol):
            x[c] = val
    for i, j in reversed(steps):
        acc = rhs[i] - sum((a * x[k] for k, a in rows[i].items() if k != j), sp.S.Zero)
        x[j] = acc / rows[i][j]
    return x


def function_rref(matrix) -> tuple[sp.Matrix, list[int]]:
    r"""Reduced row echelon form over the field of functions of the entries (Gauss-Jordan):
    every pivot is decided by the zero policy, every entry normalised by it.  Returns the
    reduced matrix and the pivot columns.

    >>> x = sp.Symbol("x")
    >>> function_rref(sp.Matrix([[x, x**2, 1], [1, x, 0]]))
    (Matrix([
    [1, x, 0],
    [0, 0, 1]]), [0, 2])
    """
    pol = default_policy()
    with unsimplified_products():        # no intermediate cancel: every entry is normalised after
        R, piv = as_matrix(matrix).rref(iszerofunc=pol.is_zero,
                                        simplify=lambda e: pol.normalize(e))
    return R.applyfunc(pol.normalize), list(piv)


def _rref_solve_functions(A: sp.Matrix, b: sp.Matrix, nG: int):
    """Exact reduced echelon form over the functions (the zero policy decides pivots)."""
    pol = default_policy()
    R, piv = function_rref(A.row_join(b))
    ncols = A.cols
    if ncols in piv:
        return None, "inconsistent"
    free = [j for j in range(ncols) if j not in piv]
    G = []
    for j in range(nG):
        if j not in piv:
            return None, "free"
        r = piv.index(j)
        if any(not pol.is_zero(R[r, f]) for f in free):
            return None, "free"
        G.append(pol.normalize(R[r, ncols] / R[r, j]))
    return G, "ok"


def _ring_solve(M: sp.Matrix, rhs: sp.Matrix, what: str) -> sp.Matrix:
    r"""Fraction-free solve over the polynomial ring (exact; raises UnsupportedExpression).

    Each row of :math:`M` is cleared of its own denominators; the right-hand side is put
    over one common denominator :math:`D` (:func:`_cleared_rows`), so that
    :math:`x = \operatorname{adj}(M')\,b' / (D\det M')`: clearing the rows of
    :math:`[M \mid b]` one by one would multiply :math:`\det M` by every row's
    denominator and leave their product to be cancelled from huge numerators."""
    n = M.shape[0]
    alg = policy_algebra([*M, *rhs])
    R = alg.ring
    rows, D = _cleared_rows(alg, M, rhs)
    rows = [[alg.reduce(e) for e in r] for r in rows]
    if n <= 5:
        num, den = LaplaceMinors(rows, alg.ring.zero, alg.reduce, poly_mul).cramer()
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
    if D != 1:
        den = den * D
    return sp.Matrix([alg.quotient(num[i], den) for i in range(n)])


def _lcm(fracs: list, R):
    """The lcm of the denominators of ``[(num, den), ...]`` (ring elements)."""
    den = R.one
    for _, d in fracs:
        if d != 1 and d != den:
            den = den.lcm(d)
    return den


def _cleared_rows(alg, M: sp.Matrix, rhs: sp.Matrix) -> tuple:
    r"""``(rows, D)``: the rows :math:`[m_iM_i \mid Db_i\,m_i]` in the ring of ``alg``,
    :math:`m_i` the lcm of the denominators in row :math:`i` of :math:`M`, :math:`D` the
    lcm of the denominators of the :math:`m_ib_i` that :math:`m_i` does not clear
    (:math:`D = 1`: every row cleared by its own lcm, as for a polynomial right side)."""
    R = alg.ring
    rows, bs = [], []
    for i in range(M.shape[0]):
        fr = [alg.frac(e) for e in M.row(i)]
        m = _lcm(fr, R)
        rows.append([num * m.exquo(d) if d != m else num for num, d in fr])
        nb, db = alg.frac(rhs[i])
        q, r = m.div(db) if db != 1 else (m, R.zero)
        bs.append((nb * q, R.one) if not r else (nb * m, db))
    D = _lcm(bs, R)
    for row, (nb, db) in zip(rows, bs):
        row.append(nb * D.exquo(db) if db != D else nb)
    return rows, D


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



def solve_linear(M: sp.Matrix, rhs: sp.Matrix, what: str = "system",
                 cancel_limit: int = 600) -> sp.Matrix:
    r"""Solve ``M x = rhs`` exactly, fraction free, in a polynomial ring.

    The entries are taken into :math:`\mathbb Q[\text{symbols},\sin s,\cos s,\sqrt b]`
    (:class:`RationalAlgebra`), rows are cleared of denominators and reduced modulo
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

    Raises ``ValueError`` naming ``what`` when ``M`` is singular (zero policy).
    """
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
    except UnsupportedExpression:
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


def _ring_rows(alg, E: sp.Matrix) -> list:
    """Rows of ``E`` as ``([numerators], common denominator)`` in the ring of ``alg``."""
    R = alg.ring
    rows = []
    for i in range(E.shape[0]):
        fr = [alg.frac(e) for e in E.row(i)]
        den = R.one
        for _, d in fr:
            if d != 1 and d != den:
                den = den.lcm(d)
        rows.append(([alg.reduce(num * den.exquo(d)) for num, d in fr], den))
    return rows


class LaplaceMinors:
    r"""Memoised division-free minors of a matrix given by its rows (Laplace expansion along
    the top row in use): the one determinant and Cramer's rule of the exact engine.

    ``minors(cols, skip)`` is the determinant of the columns ``cols`` and of the last
    ``len(cols)`` rows other than row ``skip`` (``-1``: none skipped),

    .. math:: \det = \sum_p (-1)^p\, a_{r_0, c_p}\, \det(\text{rows below } r_0,
       \text{cols} \setminus c_p),

    each minor passed through ``reduce`` (a ring map, e.g. the remainder modulo
    :math:`\sin^2+\cos^2-1`, so the identities of Cramer's rule survive it).  The entries are
    elements of any commutative ring with ``+``, ``-``, ``*`` whose zero is falsy (sympy
    expressions, sparse or python-flint polynomials); ``zero`` is the ring's zero.  Minors
    are shared between :math:`\det M` and the numerators of :meth:`cramer`.  ``mul``
    multiplies two entries (default ``*``; e.g.
    :func:`~geomech.core.flintpolys.poly_mul`, large sparse products by flint).

    >>> a, b1, b2 = sp.symbols("a b1 b2")
    >>> m = LaplaceMinors([[a, 1, b1], [1, 2, b2]], sp.S.Zero)
    >>> m((0, 1)), m.cramer()
    (2*a - 1, ([2*b1 - b2, a*b2 - b1], 2*a - 1))
    """

    def __init__(self, rows: list, zero, reduce=None, mul=operator.mul):
        self.rows, self.zero, self.n, self.memo = rows, zero, len(rows), {}
        self.reduce, self.mul = reduce, mul

    def __call__(self, cols: tuple, skip: int = -1):
        key = (cols, skip)
        got = self.memo.get(key)
        if got is not None:
            return got
        k = len(cols)
        rs = [i for i in range(self.n) if i != skip][-k:]
        if k == 1:
            out = self.rows[rs[0]][cols[0]]
        else:
            out = self.zero
            for pos, j in enumerate(cols):
                a = self.rows[rs[0]][j]
                if a:
                    sub = self(cols[:pos] + cols[pos + 1:], skip)
                    if sub:
                        out = out + self.mul(a, sub) if pos % 2 == 0 \
                            else out - self.mul(a, sub)
            if self.reduce is not None:
                out = self.reduce(out)
        self.memo[key] = out
        return out

    def cramer(self) -> tuple[list, object]:
        r"""``(numerators, det M)`` of :math:`Mx = b` for the rows ``[M | b]``
        (:math:`n \times (n+1)`): :math:`\det M\, x_i = \det M_i(b)`, the column :math:`b`
        moved from place :math:`i` to the end at the sign :math:`(-1)^{n-1-i}`."""
        n = self.n
        den = self(tuple(range(n)))
        nums = []
        for i in range(n):
            num = self(tuple(j for j in range(n) if j != i) + (n,))
            nums.append(-num if (n - 1 - i) % 2 else num)
        return nums, den


def adjugate_inverse(E: sp.Matrix) -> tuple:
    r"""``(E^{-1}, det E)`` of a square matrix (a frame matrix, a mass matrix),
    :math:`E^{-1} = \operatorname{adj}(E)/\det E` by division-free Laplace expansion in the
    ring of :class:`~geomech.core.algebra.rings.RationalAlgebra` (memoised minors shared by
    all columns of the adjugate); Berkowitz outside the ring.  ``(None, 0)`` when
    :math:`\det E \equiv 0`.

    >>> t = sp.Symbol("t")
    >>> adjugate_inverse(sp.Matrix([[1, t], [0, 1]]))
    (Matrix([
    [1, -t],
    [0,  1]]), 1)
    """
    n = E.shape[0]
    try:
        alg = policy_algebra(list(E))
        rows = _ring_rows(alg, E)
    except UnsupportedExpression:
        det = compact(E.det(method="berkowitz"))
        if default_policy().is_zero(det):
            return None, sp.S.Zero
        return (E.adjugate(method="berkowitz") / det).applyfunc(compact), det
    minor = LaplaceMinors([r for r, _ in rows], alg.ring.zero, alg.reduce)
    detp = minor(tuple(range(n)), -1)
    if alg.is_zero(detp):
        return None, sp.S.Zero
    rowden = alg.ring.one
    for _, d in rows:
        rowden *= d
    # E^{-1}[j, i] = (-1)^(i+j) minor(delete row i, column j) * (row factor of row i) / det
    inv = sp.zeros(n, n)
    for i in range(n):
        for j in range(n):
            c = alg.ring.one if n == 1 else minor(tuple(x for x in range(n) if x != j), i)
            if c:
                c = c if (i + j) % 2 == 0 else -c
                inv[j, i] = alg.quotient(c * rows[i][1], detp)
    return inv, alg.quotient(detp, rowden)
