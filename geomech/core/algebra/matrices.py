r"""Exact matrices over :math:`\mathbb Q` and over :math:`\mathbb Q(\text{parameters})`.

The one implementation of each dense exact matrix operation of geomech:

* over :math:`\mathbb Q` (sympy ``Rational``, ``int``, :class:`fractions.Fraction` or domain
  elements): :func:`rational_rank`, :func:`rational_rref`, :func:`rational_rref_pivots`,
  :func:`independent_rows`, :func:`first_independent_rows`, :func:`rational_solve` --
  python-flint's ``fmpq_mat`` when installed (sympy's ``DomainMatrix`` otherwise);
* over a sympy domain (:math:`\mathbb Q`, :math:`\mathbb Q[p]`, :math:`\mathbb Q(p)`):
  :func:`domain_rref`, :func:`domain_nullspace`, :func:`clear_denominators` -- Gauss-Jordan
  elimination in the fraction field (``DomainMatrix.rref``);
* matrices of expressions: :func:`polynomial_rank` -- the generic rank over
  :math:`\mathbb Q(\text{symbols})` of a matrix of rational functions with rational
  coefficients (``None`` for other entries: those go to the zero policy).

Null spaces are the reduced bases read off the reduced row echelon form
:math:`R = \operatorname{rref}(A)` with pivot columns :math:`P`: for each free column
:math:`f`, :math:`v_f = 1`, :math:`v_{P_i} = -R_{i f}`, other entries zero (Gauss-Jordan;
e.g. Golub & Van Loan (2013), *Matrix Computations*, 4th ed., section 3.2).

>>> import sympy as sp
>>> rational_rank([[1, 2], [2, 4]]), rational_rref_pivots([[0, 1, 2], [0, 2, 5]])
(1, [1, 2])
>>> domain_nullspace([[1, 2, 3]], 3, sp.QQ)
[[-2, 1, 0], [-3, 0, 1]]
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

import sympy as sp
from sympy.matrices.utilities import dotprodsimp
from sympy.polys.matrices import DomainMatrix

try:                                # python-flint: optional, faster exact arithmetic over QQ
    import flint
except ImportError:                 # pragma: no cover - depends on the installation
    flint = None

__all__ = ["rational_rank", "rational_rref", "rational_rref_pivots", "independent_rows",
           "first_independent_rows", "rational_solve", "domain_rref", "domain_nullspace",
           "clear_denominators", "polynomial_rank", "polynomial_domain_matrix", "fraction_free",
           "matrix_nullspace", "annihilates", "verified_subspace", "expr_rref",
           "unsimplified_products"]


def unsimplified_products():
    r"""Context in which sympy's matrix algebra (products, ``rref``, ``det``, ``adjugate``)
    builds its entries without intermediate simplification.

    sympy cancels every dot product it forms (``dotprodsimp``); where the caller normalises
    each entry once afterwards (the zero policy, :func:`~geomech.core.algebra.normal_form.compact`)
    that intermediate work is wasted, several times over on the Routh sphere's Noether system.
    The one place geomech switches it off.

    >>> x = sp.Symbol("x")
    >>> with unsimplified_products():
    ...     p = (sp.Matrix([[1/(x + 1), x/(x + 1)]]) * sp.Matrix([1, 1]))[0]
    >>> p, sp.cancel(p)
    (x/(x + 1) + 1/(x + 1), 1)
    """
    return dotprodsimp(False)


def _parts(x) -> tuple[int, int]:
    """``(numerator, denominator)`` of an exact rational number of any flavour."""
    if isinstance(x, int):
        return x, 1
    if isinstance(x, sp.Basic):
        if not x.is_Rational:
            raise TypeError(f"not a rational number: {x!r}")
        return int(x.p), int(x.q)
    return int(x.numerator), int(x.denominator)


def _ncols(rows: Sequence[Sequence], ncols: int | None) -> int:
    if ncols is None:
        if not rows:
            raise ValueError("ncols is needed for a matrix without rows")
        return len(rows[0])
    return ncols


def _flint_matrix(rows: Sequence[Sequence], ncols: int):
    return flint.fmpq_mat(len(rows), ncols,
                          [flint.fmpq(*_parts(x)) for r in rows for x in r])


def _qq_matrix(rows: Sequence[Sequence], ncols: int) -> DomainMatrix:
    QQ = sp.QQ
    return DomainMatrix([[QQ(*_parts(x)) for x in r] for r in rows], (len(rows), ncols), QQ)


def rational_rref(rows: Sequence[Sequence], ncols: int | None = None
                  ) -> tuple[list[list[sp.Rational]], list[int]]:
    r"""Reduced row echelon form over :math:`\mathbb Q`: its non-zero rows (sympy
    ``Rational``) and the pivot columns.

    >>> rational_rref([[2, 4, 1], [1, 2, 1]])
    ([[1, 2, 0], [0, 0, 1]], [0, 2])
    """
    n = _ncols(rows, ncols)
    if not rows or n == 0:
        return [], []
    if flint is not None:
        R, rank = _flint_matrix(rows, n).rref()
        out = [[sp.Rational(int(R[i, j].p), int(R[i, j].q)) for j in range(n)]
               for i in range(rank)]
    else:
        R, _ = _qq_matrix(rows, n).rref()
        out = [[sp.QQ.to_sympy(x) for x in r] for r in R.to_list() if any(r)]
    return out, [next(j for j, x in enumerate(r) if x) for r in out]


def rational_rref_pivots(rows: Sequence[Sequence], ncols: int | None = None) -> list[int]:
    """Pivot columns of the reduced row echelon form over :math:`\\mathbb Q`: the first
    maximal set of linearly independent columns, in order.

    >>> rational_rref_pivots([[1, 2, 3], [2, 4, 7]])
    [0, 2]
    """
    return rational_rref(rows, ncols)[1]


def rational_rank(rows: Sequence[Sequence], ncols: int | None = None) -> int:
    """Rank over :math:`\\mathbb Q`.

    >>> rational_rank([[1, 2], [3, 4], [4, 6]])
    2
    """
    n = _ncols(rows, ncols)
    if not rows or n == 0:
        return 0
    if flint is not None:
        return _flint_matrix(rows, n).rank()
    return _qq_matrix(rows, n).rank()


def independent_rows(rows: Sequence[Sequence], ncols: int | None = None) -> list[int]:
    """Indices of the first maximal set of linearly independent rows over
    :math:`\\mathbb Q`, in order (the pivot columns of the transpose).

    >>> independent_rows([[1, 2], [2, 4], [0, 1]])
    [0, 2]
    """
    n = _ncols(rows, ncols)
    if not rows or n == 0:
        return []
    return rational_rref_pivots([list(c) for c in zip(*rows)], len(rows))


def first_independent_rows(rows: Iterable[Sequence], ncols: int, chunk: int | None = None
                           ) -> list[int]:
    """Like :func:`independent_rows` for a lazy iterable of rows: rows are taken in chunks
    (default ``ncols``) and the iteration stops as soon as ``ncols`` independent rows are
    found (rows that are expensive to produce are produced only as far as needed).  The
    choice is greedy in order, so it agrees with :func:`independent_rows` on all the rows.

    >>> first_independent_rows(iter([[1, 1], [2, 2], [1, 0], [5, 7]]), 2, chunk=1)
    [0, 2]
    """
    kept: list[tuple[int, Sequence]] = []        # (index, row), independent so far
    size = chunk or max(ncols, 1)
    it = enumerate(rows)
    while len(kept) < ncols:
        block = [ir for _, ir in zip(range(size), it)]
        if not block:
            break
        kept += block
        kept = [kept[i] for i in independent_rows([r for _, r in kept], ncols)]
    return [i for i, _ in kept]


def rational_solve(A: Sequence[Sequence], b: Sequence) -> list[sp.Rational]:
    r"""The solution :math:`x` of :math:`Ax = b` over :math:`\mathbb Q`, ``A`` square.

    Raises ``ValueError`` when ``A`` is singular.

    >>> rational_solve([[2, 1], [1, 3]], [3, 5])
    [4/5, 7/5]
    """
    n = len(A)
    if n == 0:
        return []
    if flint is not None:
        M = _flint_matrix(A, n)
        if M.rank() < n:
            raise ValueError("the matrix is singular")
        x = M.solve(_flint_matrix([[v] for v in b], 1))
        return [sp.Rational(int(x[i, 0].p), int(x[i, 0].q)) for i in range(n)]
    M = _qq_matrix(A, n)
    if M.rank() < n:
        raise ValueError("the matrix is singular")
    x = M.lu_solve(_qq_matrix([[v] for v in b], 1))
    return [sp.QQ.to_sympy(r[0]) for r in x.to_list()]


def domain_rref(rows: Sequence[Sequence], ncols: int, dom) -> tuple[list[list], list[int]]:
    r"""Reduced row echelon form over the fraction field :math:`K` of the sympy domain
    ``dom`` (entries elements of ``dom`` or of :math:`K`): the non-zero reduced rows as
    elements of :math:`K` and the pivot columns.  Over :math:`\mathbb Q` this is
    :func:`rational_rref`.

    >>> k = sp.Symbol("k")
    >>> R = sp.QQ[k]
    >>> red, piv = domain_rref([[R(k), R(1)], [R(k**2), R(k)]], 2, R)
    >>> piv, [[R.get_field().to_sympy(x) for x in r] for r in red]
    ([0], [[1, 1/k]])
    """
    K = dom.get_field() if hasattr(dom, "get_field") else dom
    if not rows or ncols == 0:
        return [], []
    if K == sp.QQ:
        red, piv = rational_rref(rows, ncols)
        return [[K.from_sympy(x) for x in r] for r in red], piv
    conv = K.convert if dom == K else (lambda x: K.convert_from(x, dom))
    M = DomainMatrix([[conv(x) for x in r] for r in rows], (len(rows), ncols), K)
    R, piv = M.rref()
    return R.to_list()[: len(piv)], list(piv)


def _reduced_null_basis(red: list, piv: list, ncols: int, one, zero) -> list[list]:
    out = []
    pset = set(piv)
    for f in (j for j in range(ncols) if j not in pset):
        vec = [zero] * ncols
        vec[f] = one
        for i, p in enumerate(piv):
            vec[p] = -red[i][f]
        out.append(vec)
    return out


def domain_nullspace(rows: Sequence[Sequence], ncols: int, dom,
                     to_sympy: bool = False) -> list[list]:
    r"""Reduced basis of the right null space over the fraction field :math:`K` of ``dom``:
    one vector per free column :math:`f` of :math:`R=\operatorname{rref}(A)`, with
    :math:`v_f = 1` and :math:`v_{P_i} = -R_{if}`.  Entries are elements of :math:`K` (sympy
    expressions with ``to_sympy``).

    >>> a, b = sp.symbols("a b")
    >>> F = sp.QQ.frac_field(a, b)
    >>> domain_nullspace([[F(a), F(b)]], 2, F, to_sympy=True)
    [[-b/a, 1]]
    """
    K = dom.get_field() if hasattr(dom, "get_field") else dom
    red, piv = domain_rref(rows, ncols, dom)
    vecs = _reduced_null_basis(red, piv, ncols, K.one, K.zero)
    return [[K.to_sympy(x) for x in v] for v in vecs] if to_sympy else vecs


def clear_denominators(vec: Sequence, dom) -> list:
    r"""``vec`` (elements of the fraction field of ``dom``) times the least common multiple
    of the denominators, divided by the gcd of the result: a primitive vector over ``dom``
    (:math:`\mathbb Q`: integers without common factor, as elements of ``QQ``; a
    polynomial ring: polynomials without common factor), proportional to ``vec``.

    >>> clear_denominators([sp.QQ(1, 2), sp.QQ(-1, 3), sp.QQ(0)], sp.QQ)
    [3, -2, 0]
    """
    if dom == sp.QQ:
        den = 1
        for x in vec:
            den = sp.ilcm(den, int(x.denominator))
        out = [dom(x * den) for x in vec]
        g = 0
        for x in out:
            g = sp.igcd(g, int(x.numerator))
        return [x / g for x in out] if g else out
    K = dom.get_field()
    parts = [(dom.convert_from(K.numer(x), dom), dom.convert_from(K.denom(x), dom))
             if x else (dom.zero, dom.one) for x in vec]
    den = dom.one
    for _, d in parts:
        den = dom.lcm(den, d)
    out = [dom.exquo(n * den, d) if n else dom.zero for n, d in parts]
    g = dom.zero
    for x in out:
        g = dom.gcd(g, x) if x else g
    return [dom.exquo(x, g) if x else x for x in out] if g else out


def fraction_free(dm: DomainMatrix) -> DomainMatrix:
    r"""``dm`` over a polynomial ring :math:`\mathbb Z[p]` or :math:`\mathbb Q[p]` as it is
    (its null space is then computed fraction-free, without the polynomial gcds of
    :math:`\mathbb Q(p)`, which dominate on the rolling bodies), otherwise over a field.

    >>> k = sp.Symbol("k")
    >>> fraction_free(DomainMatrix.from_Matrix(sp.Matrix([[1, k]]))).domain
    ZZ[k]
    """
    if dm.domain.is_PolynomialRing:
        return dm
    return dm.to_field()


def annihilates(rows: Sequence[Sequence], vec: Sequence, dom) -> bool:
    """Whether every row vanishes on ``vec``: :math:`\\sum_j a_{ij} v_j = 0` for all
    :math:`i`, in the (canonical) arithmetic of ``dom``.

    >>> annihilates([[sp.QQ(1), sp.QQ(-1)]], [sp.QQ(2), sp.QQ(2)], sp.QQ)
    True
    """
    for r in rows:
        acc = dom.zero
        for a, x in zip(r, vec):
            if a and x:
                acc += a * x
        if acc:
            return False
    return True


def verified_subspace(rows: Sequence[Sequence], vecs: list[list], dom) -> list[list]:
    r"""The subspace of :math:`\operatorname{span}(v_1,\dots,v_m)` annihilated by all
    ``rows``, exactly: a basis of primitive vectors over ``dom``.

    Candidates proposed by a random choice (e.g. from a subset of the equations) are checked
    on every row; when some fail, the combinations :math:`\sum_k c_k v_k` with
    :math:`\sum_k c_k (A v_k) = 0` (a null space over the fraction field) are returned
    instead.

    >>> k = sp.Symbol("k"); R = sp.QQ[k]
    >>> rows = [[R(k), R(-1), R(0)], [R(0), R(0), R(1)]]
    >>> [[R.to_sympy(x) for x in v] for v in verified_subspace(rows, [[R(1), R(k), R(1)],
    ...                                                                [R(0), R(0), R(1)]], R)]
    [[-1, -k, 0]]
    """
    if all(annihilates(rows, v, dom) for v in vecs):
        return vecs
    K = dom.get_field()
    res = [[K.convert_from(sum((a * x for a, x in zip(r, v) if a and x), dom.zero), dom)
            for v in vecs] for r in rows]
    res = [r for r in res if any(r)]
    combos = domain_nullspace(res, len(vecs), K) if res else []
    out = []
    for c in combos:
        w = [sum((ck * K.convert_from(v[j], dom) for ck, v in zip(c, vecs)),
                 K.zero) for j in range(len(vecs[0]))]
        out.append(clear_denominators(w, dom))
    return [v for v in out if annihilates(rows, v, dom)]


def matrix_nullspace(m: sp.Matrix) -> list[sp.Matrix]:
    r"""Basis of the right null space of a matrix of expressions over the fraction field of
    the domain sympy finds for its entries (:math:`\mathbb Q`, :math:`\mathbb Q(p)`, an
    algebraic field, ...), one vector per free column of the reduced echelon form; over a
    polynomial ring fraction free (:func:`fraction_free`).  Raises sympy's errors
    (``UNDECIDABLE_ERRORS`` of :mod:`geomech.core.zero`) when the entries have no such
    domain: the caller then asks the zero policy.

    >>> k = sp.Symbol("k")
    >>> matrix_nullspace(sp.Matrix([[1, k]]))
    [Matrix([
    [-k],
    [ 1]])]
    """
    ns = fraction_free(DomainMatrix.from_Matrix(m)).nullspace().to_Matrix()
    return [ns.row(i).T for i in range(ns.rows)]


def polynomial_domain_matrix(m: sp.Matrix) -> DomainMatrix | None:
    r"""``m`` over :math:`\mathbb Z`, :math:`\mathbb Q`, :math:`\mathbb Z[p]`,
    :math:`\mathbb Q[p]` or :math:`\mathbb Q(p)` (symbols only as generators), or ``None``."""
    if any(not (e.is_Rational or e.is_Symbol or isinstance(e, (sp.Add, sp.Mul, sp.Pow)))
           or e.has(sp.Function, sp.Float, sp.nan, sp.zoo, sp.oo, sp.I, sp.pi, sp.E)
           or any(not p.exp.is_Integer for p in e.atoms(sp.Pow)) for e in m):
        return None
    try:
        dm = DomainMatrix.from_Matrix(m)
    except (sp.polys.polyerrors.BasePolynomialError, ValueError, TypeError):
        return None
    dom = dm.domain
    if dom.is_ZZ or dom.is_QQ:
        return dm
    if (dom.is_PolynomialRing or dom.is_FractionField) and (dom.domain.is_ZZ
                                                            or dom.domain.is_QQ):
        return dm if all(g.is_Symbol for g in dom.symbols) else None
    return None


def expr_rref(m: sp.Matrix) -> tuple[list[list[sp.Expr]], list[int]] | None:
    r"""Reduced row echelon form of a matrix of rational functions with rational coefficients
    over :math:`\mathbb Q(\text{symbols})` (:func:`polynomial_domain_matrix`,
    :func:`domain_rref`): the non-zero reduced rows as sympy expressions and the pivot
    columns; ``None`` for other entries (functions, radicals, floats: the zero policy must
    decide the pivots of those).  Pivots are exact: a pivot is a non-zero element of the
    field, so the rank is the generic rank.

    >>> k = sp.Symbol("k")
    >>> expr_rref(sp.Matrix([[k, 1, 2], [k**2, k, 1]]))
    ([[1, 1/k, 0], [0, 0, 1]], [0, 2])
    >>> expr_rref(sp.Matrix([[sp.sqrt(2)]])) is None
    True
    """
    if 0 in m.shape:
        return [], []
    dm = polynomial_domain_matrix(m)
    if dm is None:
        return None
    dom = dm.domain
    K = dom.get_field()
    red, piv = domain_rref(dm.to_list(), m.cols, dom)
    return [[K.to_sympy(x) for x in r] for r in red], piv


def polynomial_rank(matrix: sp.Matrix) -> int | None:
    r"""Generic rank over :math:`\mathbb Q(\text{symbols})` of a matrix whose entries are
    rational functions of symbols with rational coefficients; ``None`` for other entries
    (trigonometric functions, radicals, floats: the zero policy ranks those).

    Full rank at a random rational point proves full generic rank (a point's rank is a lower
    bound); otherwise fraction-free elimination (Bareiss 1968, "Sylvester's identity and
    multistep integer-preserving Gaussian elimination") over :math:`\mathbb Z[p]`, or
    Gauss-Jordan over :math:`\mathbb Q(p)`.

    >>> a, b = sp.symbols("a b")
    >>> polynomial_rank(sp.Matrix([[a, b], [2*a, 2*b]])), polynomial_rank(sp.Matrix([[1/a, b]]))
    (1, 1)
    >>> polynomial_rank(sp.Matrix([[sp.sin(a)]])) is None
    True
    """
    if 0 in matrix.shape:
        return 0
    dm = polynomial_domain_matrix(matrix)
    if dm is None:
        return None
    if dm.domain.is_ZZ or dm.domain.is_QQ:
        return rational_rank(dm.to_list(), matrix.cols)
    if _full_rank_at_a_point(matrix):
        return min(matrix.shape)
    if dm.domain.is_PolynomialRing:
        return len(dm.rref_den()[2])
    return dm.rank()


def _full_rank_at_a_point(m: sp.Matrix, seed: int = 20261125) -> bool:
    """Whether ``m`` has full rank at a random rational point (then generically: the rank at a
    point is a lower bound of the generic rank)."""
    rng = random.Random(seed)
    pt = {x: sp.Rational(rng.choice((-1, 1)) * rng.randint(1, 97), rng.randint(1, 89))
          for x in sorted(m.free_symbols, key=sp.default_sort_key)}
    try:
        vals = [[e.xreplace(pt) for e in m.row(i)] for i in range(m.rows)]
        return rational_rank(vals, m.cols) == min(m.shape)
    except (ZeroDivisionError, TypeError):
        return False
