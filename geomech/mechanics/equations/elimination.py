r"""Linear solves of the equations of motion that keep their structure.

The equations of motion of a nonholonomic system need two kinds of exact solves: the
constraint minor :math:`a_{\rm dep}\,x = y` (dependent velocities, the particular
acceleration) and the reduced mass matrix :math:`M\dot u = b`.  Brought to one cancelled
fraction their solutions can be far larger than the solve itself -- the velocities of the
links of a snake of :math:`N` Chaplygin sleighs (Ostrowski & Burdick (1998)) expand into
sums over the paths of the chain -- so here:

* :func:`triangular_order` finds the pivots of a matrix that is triangular up to
  permutations of its rows and columns (the knife edges of a chain of links, rolling
  bodies whose contact velocity is solved for :math:`\dot x, \dot y`); :func:`eliminate`
  then solves by forward substitution, every step kept as it is unless it is small
  (:func:`keep_small`), and otherwise by the exact ring solve
  (:func:`geomech.core.algebra.solve_linear`);
* :func:`adjugate_solve` is :math:`x = \operatorname{adj}(M)\,b/\det M` (Cramer's rule;
  Golub & Van Loan (2013), §2.1) with the minors of a Laplace expansion memoised
  (:class:`geomech.core.algebra.solve.LaplaceMinors`) and nothing expanded; the determinant
  is proved non-zero by :func:`geomech.core.zero.values.certainly_nonzero`.

Everything is exact and equal, as a function, to the cancelled solution; only the form
differs.  :func:`expansion_bound` bounds the number of terms of the expanded numerator and
denominator of an expression without expanding it, so that callers bring to a normal form
only what stays small (a deterministic criterion, not a time limit).

>>> import sympy as sp
>>> a, b, c, x, y = sp.symbols("a b c x y")
>>> triangular_order(sp.Matrix([[a, 0], [b, c]]))
[(0, 0), (1, 1)]
>>> eliminate(sp.Matrix([[a, 0], [b, c]]), sp.Matrix([x, y]))
Matrix([
[          x/a],
[(y - b*x/a)/c]])
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable, Sequence

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.algebra.solve import LaplaceMinors
from geomech.core.algebra.solve import solve_linear as ring_solve
from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr
from geomech.core.zero.values import certainly_nonzero

__all__ = ["SMALL_OPS", "keep_small", "compact_if_pays", "triangular_order", "eliminate",
           "adjugate_solve", "block_triangular_order", "block_eliminate",
           "expansion_bound", "normal_form_pays", "restricted_quadratic", "quadratic_form"]

#: pieces of at most this many operations are brought to their compact normal form by
#: :func:`keep_small`; larger ones are kept as built
SMALL_OPS = 300


def keep_small(e: sp.Expr) -> sp.Expr:
    """``compact(e)`` when ``e`` has at most :data:`SMALL_OPS` operations, its cancelled
    fraction is not expected to be far longer (:func:`normal_form_pays`) and its compact
    form is not longer, else ``e`` (no expansion unless it pays).

    >>> s = sp.Symbol("s")
    >>> keep_small(sp.sin(s)**2 + sp.cos(s)**2)
    1
    """
    e = as_expr(e)
    if e.is_Atom:
        return e
    ops = count_ops(e)
    if ops > SMALL_OPS or not normal_form_pays(e):
        return e
    c = compact(e)
    return c if count_ops(c) <= ops else e


def triangular_order(A: sp.Matrix) -> list[tuple[int, int]] | None:
    """Pivots ``[(row, column), ...]`` of a square matrix that is triangular up to
    permutations: at its turn each row has exactly one (structurally) non-zero entry in the
    columns not yet pivoted.  ``None`` when there is no such order.

    >>> x = sp.Symbol("x")
    >>> triangular_order(sp.Matrix([[x, 1], [0, 2]]))
    [(1, 1), (0, 0)]
    >>> triangular_order(sp.Matrix([[x, 1], [1, 2]])) is None
    True
    """
    k = A.shape[0]
    cols = [{j for j in range(k) if A[i, j] != 0} for i in range(k)]
    order: list[tuple[int, int]] = []
    done_rows: set = set()
    done_cols: set = set()
    while len(order) < k:
        for i in range(k):
            if i in done_rows:
                continue
            free = cols[i] - done_cols
            if len(free) == 1:
                j = free.pop()
                order.append((i, j))
                done_rows.add(i)
                done_cols.add(j)
                break
        else:
            return None
    return order


def eliminate(A: sp.Matrix, B: sp.Matrix, what: str = "system",
              norm: Callable[[sp.Expr], sp.Expr] = keep_small) -> sp.Matrix:
    r"""``X`` with :math:`AX = B` for a non-singular square ``A`` (``B`` one or more columns).

    Triangular up to permutations (:func:`triangular_order`): forward substitution,
    :math:`x_j = (b_i - \sum_{l} a_{il}x_l)/a_{ij}` along the pivots, each entry passed
    through ``norm`` (default :func:`keep_small`).  Otherwise the exact ring solve, one
    column at a time.  The caller guarantees :math:`\det A \ne 0` (the pivots of a
    triangular matrix are then non-zero).

    >>> a, x = sp.symbols("a x")
    >>> eliminate(sp.Matrix([[1, a], [0, 2]]), sp.Matrix([[x, 0], [2, 1]]))
    Matrix([
    [-a + x, -a/2],
    [     1,  1/2]])
    """
    k = A.shape[0]
    order = triangular_order(A)
    if order is None:
        return sp.Matrix.hstack(*[ring_solve(A, B[:, c], what) for c in range(B.shape[1])])
    X = sp.zeros(k, B.shape[1])
    for c in range(B.shape[1]):
        solved: list[int] = []
        for i, j in order:
            e = B[i, c] - sp.Add(*[A[i, m] * X[m, c] for m in solved
                                   if A[i, m] != 0 and X[m, c] != 0])
            X[j, c] = norm(e / A[i, j]) if e != 0 else sp.S.Zero
            solved.append(j)
    return X


def block_triangular_order(A: sp.Matrix, largest: int = 3) -> list[tuple[list, list]]:
    """Diagonal blocks ``[(rows, columns), ...]`` of a square matrix that is block
    triangular up to permutations of its rows and columns: at its turn each block is a
    smallest set of rows whose (structurally) non-zero entries in the columns not yet taken
    fill exactly as many columns.  Blocks of at most ``largest`` rows are searched; the rows
    left form one last block.  All blocks of size 1: :func:`triangular_order`.

    >>> x = sp.Symbol("x")
    >>> block_triangular_order(sp.Matrix([[x, 1, 0], [1, x, 0], [1, 0, 2]]))
    [([0, 1], [0, 1]), ([2], [2])]
    """
    k = A.shape[0]
    pattern = [{j for j in range(k) if A[i, j] != 0} for i in range(k)]
    blocks: list[tuple[list, list]] = []
    rows_left, cols_taken = list(range(k)), set()
    while rows_left:
        block = None
        for size in range(1, min(largest, len(rows_left)) + 1):
            for R in itertools.combinations(rows_left, size):
                C = set().union(*(pattern[i] - cols_taken for i in R))
                if len(C) == size:
                    block = (list(R), sorted(C))
                    break
            if block:
                break
        if block is None:
            block = (list(rows_left), sorted(set(range(k)) - cols_taken))
        blocks.append(block)
        rows_left = [i for i in rows_left if i not in block[0]]
        cols_taken |= set(block[1])
    return blocks


def block_eliminate(A: sp.Matrix, B: sp.Matrix, what: str = "system") -> sp.Matrix:
    r"""``X`` with :math:`AX = B` for a non-singular square ``A``, block by block along
    :func:`block_triangular_order`: :math:`X_J = A_{IJ}^{-1}(B_I - \sum_{\text{earlier }
    L} A_{IL}X_L)`, a block of one entry by division, a larger one by
    :func:`adjugate_solve` (Cramer's rule, nothing expanded); small pieces in their compact
    normal form (:func:`keep_small`), the substituted earlier blocks kept as built.  The
    size of the result is that of the blocks' minors, not of the whole matrix' (the Whipple
    bicycle: blocks of 1, 2 and 2 rows).

    >>> a, x, y, z = sp.symbols("a x y z")
    >>> block_eliminate(sp.Matrix([[a, 1, 0], [1, a, 0], [1, 0, 2]]), sp.Matrix([x, y, z]))
    Matrix([
    [                      (a*x - y)/(a**2 - 1)],
    [                      (a*y - x)/(a**2 - 1)],
    [z/2 - (a*x - y)/(2*(a**2 - 1))]])
    """
    X = sp.zeros(A.shape[0], B.shape[1])
    done: list[int] = []
    for R, C in block_triangular_order(A):
        M = A.extract(R, C).applyfunc(keep_small)
        for c in range(B.shape[1]):
            b = [keep_small(B[i, c] - sp.Add(*[A[i, m] * X[m, c] for m in done
                                               if A[i, m] != 0 and X[m, c] != 0]))
                 for i in R]
            if len(R) == 1:
                xs = [keep_small(b[0] / M[0, 0]) if b[0] != 0 else sp.S.Zero]
            else:
                xs = adjugate_solve(M, b, what)
            for j, e in zip(C, xs):
                X[j, c] = e
        done += C
    return X


def adjugate_solve(M: sp.Matrix, b: Sequence, what: str = "system") -> list:
    r""":math:`x = \operatorname{adj}(M)\,b/\det M`, nothing expanded.

    The minors of the Laplace expansion along the first rows are memoised, so
    :math:`\det M` and the :math:`n` numerators (the determinants of :math:`M` with a column
    replaced by :math:`b`) share them.  For the small reduced mass matrices of the
    equations of motion (:math:`n \le 6`).  ``ValueError`` naming ``what`` when
    :math:`\det M` vanishes identically
    (:func:`~geomech.core.zero.values.certainly_nonzero`).

    >>> a, b1, b2 = sp.symbols("a b1 b2")
    >>> adjugate_solve(sp.Matrix([[a, 1], [1, 2]]), [b1, b2])
    [(2*b1 - b2)/(2*a - 1), (a*b2 - b1)/(2*a - 1)]
    """
    n = M.shape[0]
    rows = [[M[i, j] for j in range(n)] + [b[i]] for i in range(n)]
    nums, det = LaplaceMinors(rows, sp.S.Zero).cramer()
    if not certainly_nonzero(det):
        raise ValueError(f"the {what} is singular: det = 0 identically")
    return [num / det if num != 0 else sp.S.Zero for num in nums]


def expansion_bound(e: sp.Expr) -> int:
    """An upper bound of the number of terms of the expanded numerator and denominator of
    ``e`` brought to one fraction (sums multiply by the denominators of the other terms,
    products multiply, integer powers raise), computed on the shared sub-expressions
    without expanding.

    >>> x, y = sp.symbols("x y")
    >>> expansion_bound((x + y)**2), expansion_bound(x/(x + y) + 1/y)
    (4, 4)
    """
    memo: dict = {}

    def nd(a) -> tuple[int, int]:
        got = memo.get(a)
        if got is not None:
            return got
        if a.is_Atom or a.is_Function:
            got = (1, 1)
        elif a.is_Add:
            parts = [nd(t) for t in a.args]
            den = 1
            for _, d in parts:
                den *= d
            got = (sum(n * den // d for n, d in parts), den)
        elif a.is_Mul:
            num = den = 1
            for t in a.args:
                n, d = nd(t)
                num, den = num * n, den * d
            got = (num, den)
        elif a.is_Pow and a.exp.is_Integer:
            n, d = nd(a.base)
            k = int(a.exp)
            got = (n ** k, d ** k) if k >= 0 else (d ** -k, n ** -k)
        else:
            got = (1, 1)
        memo[a] = got
        return got

    n, d = nd(as_expr(e))
    return n + d - 1


#: operations per expanded term assumed by :func:`normal_form_pays`
TERM_OPS = 12


def normal_form_pays(e: sp.Expr, factor: int = 2) -> bool:
    """Whether one cancelled fraction is expected to be at most about ``factor`` times as
    long as ``e``: :func:`expansion_bound` times :data:`TERM_OPS` operations per term against
    the operations of ``e`` (deterministic; the normal form is computed only where it pays).
    The bound is an upper bound: cancellation often makes the fraction far shorter.

    >>> x, y = sp.symbols("x y")
    >>> normal_form_pays(x/(x + y) + 1/y), normal_form_pays((x + y + 1)**12 / (x - y)**9)
    (True, False)
    """
    e = as_expr(e)
    if e.is_Atom:
        return True
    return expansion_bound(e) * TERM_OPS <= factor * (count_ops(e) + SMALL_OPS)


def compact_if_pays(e: sp.Expr) -> sp.Expr:
    """``compact(e)`` when one cancelled fraction is expected to stay short
    (:func:`normal_form_pays`), else ``e`` as built (a structured solve is not expanded).

    >>> x, y = sp.symbols("x y")
    >>> compact_if_pays(x/(x + y) + y/(x + y))
    1
    """
    return compact(e) if normal_form_pays(e) else e


_QUADRATIC: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def restricted_quadratic(system) -> dict | None:
    r"""The Lagrangian on :math:`\mathcal M` when it is quadratic in the velocities,
    :math:`L = \tfrac12\dot q^{\mathsf T}G\dot q + a^{\mathsf T}\dot q + L_0`, by the velocity
    split :math:`\dot q = Bu + b`
    (:meth:`~geomech.mechanics.system.NonholonomicSystem.velocity_split`; Voronets (1901)):
    the pieces

    .. math:: M = B^{\mathsf T}GB,\quad w = B^{\mathsf T}Gb,\quad k = \tfrac12 b^{\mathsf T}Gb,
              \quad c = B^{\mathsf T}a,\quad k_1 = a^{\mathsf T}b,\quad L_0,

    each entry normalised on its own (:math:`M` symmetric as :math:`G` is: its upper triangle),
    so :math:`L^* = \tfrac12u^{\mathsf T}Mu +
    (w + c)^{\mathsf T}u + k + k_1 + L_0` and the energy :math:`E = \tfrac12u^{\mathsf T}Mu
    + w^{\mathsf T}u + k - L_0`; also ``"GB"`` and ``"Gb+a"`` as built (not normalised), the
    momenta on :math:`\mathcal M` being :math:`p = (GB)u + Gb + a`.  ``None`` when :math:`G`
    depends on the velocities.
    Computed once per system.

    >>> import geomech as gm
    >>> restricted_quadratic(gm.examples.chaplygin_sleigh())["M"]      # u = (xdot, phidot)
    Matrix([
    [m/cos(phi)**2, 0],
    [            0, I]])
    """
    try:
        return _QUADRATIC[system]
    except (KeyError, TypeError):
        pass
    vel = system.manifold.velocities
    G = system.hessian
    if any(h.has(*vel) for h in G):
        return None
    at0 = {v: 0 for v in vel}
    L = system.lagrangian
    # a_i = dL/dv_i at v = 0, the other velocities set to 0 first (a smaller derivative)
    a = sp.Matrix([sp.diff(L.xreplace({w: 0 for w in vel if w != v}), v).xreplace({v: 0})
                   for v in vel])
    B, b = _split_matrices(system)
    GB, Gb = G * B, G * b
    k_ = len(system.independent_velocities)
    upper = {(i, j): compact((B[:, i].T * GB[:, j])[0]) for i in range(k_) for j in range(i, k_)}
    out = {"M": sp.Matrix(k_, k_, lambda i, j: upper[min(i, j), max(i, j)]),   # G symmetric
           "w": sp.Matrix([compact((B[:, i].T * Gb)[0]) for i in range(k_)]),
           "k": compact((b.T * Gb)[0] / 2),
           "c": sp.Matrix([compact((B[:, i].T * a)[0]) for i in range(k_)]),
           "k1": compact((a.T * b)[0]), "L0": compact(L.xreplace(at0)),
           "GB": GB, "Gb+a": Gb + a}
    try:
        _QUADRATIC[system] = out
    except TypeError:
        pass
    return out


def _split_matrices(system) -> tuple[sp.Matrix, sp.Matrix]:
    r""":math:`(B, b)` with :math:`\dot q = Bu + b` on :math:`\mathcal M`."""
    rows, free = system.velocity_split()
    n, k = system.dim, len(system.independent_velocities)
    B, b = sp.zeros(n, k), sp.zeros(n, 1)
    for j, i in enumerate(system.independent_indices):
        B[i, j] = 1
    for r in system.dependent_indices:
        B[r, :] = sp.Matrix([list(rows[r])])
        b[r] = free[r]
    return B, b


def quadratic_form(M: sp.Matrix, u) -> sp.Expr:
    r""":math:`u^{\mathsf T}Mu` of a symmetric :math:`M`, summed over :math:`i \le j` (each
    entry once).

    >>> x, y = sp.symbols("x y")
    >>> quadratic_form(sp.Matrix([[1, 2], [2, 3]]), [x, y])
    x**2 + 4*x*y + 3*y**2
    """
    k = len(u)
    return sp.Add(*[(M[i, j] if i == j else 2 * M[i, j]) * u[i] * u[j]
                    for i in range(k) for j in range(i, k)])
