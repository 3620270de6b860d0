r"""The Lie algebra :math:`\mathfrak{so}(n)`: coordinates, bivectors, moments of forces.

Coordinates on :math:`\mathfrak{so}(n)` (Shamolin (2017), §2)
-------------------------------------------------------------------------
A skew matrix :math:`\Omega` has :math:`N = n(n-1)/2` coordinates :math:`\omega_1..\omega_N`.
Two orderings are supported:

* ``"shamolin"`` (the paper's): pairs :math:`(i,j)`, :math:`i<j`, ordered by column
  :math:`j = n, n-1, \dots, 2` and inside a column by :math:`i = j-1, \dots, 1`, with
  :math:`\Omega_{ij} = (-1)^{j-i}\,\omega_{k(i,j)}`.  For :math:`n = 3` this is the standard
  hat map :math:`\Omega = [[0,-\omega_3,\omega_2],[\omega_3,0,-\omega_1],[-\omega_2,\omega_1,0]]`.
* ``"lex"``: pairs in lexicographic order, :math:`\Omega_{ij} = \omega_{k(i,j)}`.

Bivectors
---------
:math:`\mathfrak{so}(n) \cong \Lambda^2\mathbb{R}^n` through
:math:`\iota(B)\,x = B \times x = B\lfloor x`, i.e. :math:`\iota(e_i\wedge e_j) =
e_i e_j^T - e_j e_i^T` (so :math:`\Omega_{ij}` is the :math:`e_i\wedge e_j` coefficient).  This
is a Lie algebra isomorphism for the commutator product
:math:`B_1\times B_2 = \tfrac12(B_1B_2 - B_2B_1)`: :math:`\iota(B_1\times B_2) =
[\iota B_1, \iota B_2]`.

Moment of a force (Shamolin (2017), (2.11)–(2.14))
--------------------------------------------------
The moment of the force :math:`F` applied at :math:`\xi = DN` is the bivector
:math:`\xi\wedge F`; as a skew matrix (the :math:`\mathbf M` of (2.7)) it acts on vectors by left
contraction, :math:`\mathbf M x = x\rfloor(\xi\wedge F)`, that is

.. math:: \mathbf M = F\xi^T - \xi F^T = \iota(F\wedge\xi),
          \qquad M_{k(i,j)} = (-1)^{j-i+1}(\xi_iF_j - \xi_jF_i)\ \text{(Shamolin ordering)},

which for :math:`n = 3` is the ordinary torque :math:`\xi\times F`.

Examples
--------
>>> import sympy as sp
>>> moment_coordinates(sp.symbols("x1:4"), sp.symbols("F1:4"))
(-F2*x3 + F3*x2, F1*x3 - F3*x1, -F1*x2 + F2*x1)
>>> so_n_bracket([1, 0, 0], [0, 1, 0])
(0, 0, 1)
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

from geomech.core.galgebra_compat import import_galgebra
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

__all__ = [
    "ORDERINGS", "SoNBasis", "so_n_basis", "hat", "vee", "moment_matrix", "moment_coordinates",
    "moment_bivector", "bivector_algebra", "skew_to_bivector", "bivector_to_skew",
    "coords_to_bivector", "bivector_to_coords", "bivector_commutator", "so_n_bracket",
    "structure_constants", "as_vector", "sparse_hat",
]

ORDERINGS = ("shamolin", "lex")


# ----------------------------------------------------------------------------------------
# so(n) coordinates
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SoNBasis:
    r"""Ordered coordinates :math:`\omega_1..\omega_N` on :math:`\mathfrak{so}(n)`.

    Attributes
    ----------
    n : int
        Dimension of the space.
    ordering : str
        ``"shamolin"`` or ``"lex"``.
    pairs : tuple of (int, int)
        0-based index pairs :math:`(i,j)`, :math:`i<j`, in coordinate order; coordinate
        ``k`` (0-based, the paper's :math:`\omega_{k+1}`) is :math:`\pm\Omega_{ij}`.
    signs : tuple of int
        :math:`\Omega_{ij} = \mathrm{sign}_k\,\omega_k`.

    Examples
    --------
    >>> b = so_n_basis(5)
    >>> [k + 1 for k in b.axial_positions]        # the paper's r_1..r_4
    [4, 7, 9, 10]
    >>> [k + 1 for k in b.cyclic_positions]
    [1, 2, 3, 5, 6, 8]
    >>> b.position(0, 4), b.sign(0, 4)            # omega_4 = Omega_15
    (3, 1)
    """

    n: int
    ordering: str
    pairs: tuple
    signs: tuple

    @property
    def dim(self) -> int:
        """:math:`N = n(n-1)/2`."""
        return len(self.pairs)

    @functools.cached_property
    def _index(self) -> dict:
        return {p: k for k, p in enumerate(self.pairs)}

    def position(self, i: int, j: int) -> int:
        """0-based coordinate position of the pair ``(i, j)`` (0-based, either order)."""
        if i == j or not (0 <= i < self.n and 0 <= j < self.n):
            raise ValueError(f"({i}, {j}) is not an off-diagonal index pair for n = {self.n}")
        return self._index[(min(i, j), max(i, j))]

    def sign(self, i: int, j: int) -> int:
        r"""Sign :math:`s` with :math:`\Omega_{ij} = s\,\omega_{k(i,j)}` (any order of i, j)."""
        s = self.signs[self.position(i, j)]
        return s if i < j else -s

    @property
    def axial_positions(self) -> tuple:
        r"""Positions of the pairs :math:`(1, j)` for :math:`j = n, n-1, \dots, 2`.

        In the Shamolin ordering these are the paper's :math:`r_1..r_{n-1}`
        (:math:`r_l = ln - l(l+1)/2`, 1-based).
        """
        return tuple(self.position(0, j) for j in range(self.n - 1, 0, -1))

    @property
    def cyclic_positions(self) -> tuple:
        """Positions of the pairs not containing the first axis, increasing."""
        ax = set(self.axial_positions)
        return tuple(k for k in range(self.dim) if k not in ax)


@functools.lru_cache(maxsize=64)
def so_n_basis(n: int, ordering: str = "shamolin") -> SoNBasis:
    r"""The coordinate ordering of :math:`\mathfrak{so}(n)` (Shamolin 2017, §2).

    Shamolin: :math:`k(i,j) = \sum_{j'=j+1}^{n}(j'-1) + (j-i)` (1-based), sign
    :math:`(-1)^{j-i}`; lex: lexicographic pairs with sign :math:`+1`.

    >>> so_n_basis(3).pairs
    ((1, 2), (0, 2), (0, 1))
    >>> so_n_basis(3, "lex").pairs
    ((0, 1), (0, 2), (1, 2))
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"n must be an integer, got {type(n).__name__}")
    if n < 2:
        raise ValueError(f"so(n) needs n >= 2, got n = {n}")
    if ordering == "shamolin":
        pairs, signs = [], []
        for j in range(n - 1, 0, -1):           # 0-based column j = n-1 .. 1
            for i in range(j - 1, -1, -1):
                pairs.append((i, j))
                signs.append((-1) ** (j - i))
    elif ordering == "lex":
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        signs = [1] * len(pairs)
    else:
        raise ValueError(f"unknown so(n) ordering {ordering!r}; choose one of {ORDERINGS}")
    return SoNBasis(n, ordering, tuple(pairs), tuple(signs))


def _n_from_dim(N: int) -> int:
    n = int(round((1 + (1 + 8 * N) ** 0.5) / 2))
    if n * (n - 1) // 2 != N or n < 2:
        raise ValueError(f"{N} coordinates are not the dimension n(n-1)/2 of any so(n)")
    return n


def hat(omega: Sequence, ordering: str = "shamolin") -> sp.Matrix:
    r"""The skew matrix :math:`\Omega` of the coordinates :math:`\omega` (:math:`N = n(n-1)/2`).

    >>> hat(sp.symbols("w1:4"))
    Matrix([
    [  0, -w3,  w2],
    [ w3,   0, -w1],
    [-w2,  w1,   0]])
    """
    omega = [as_expr(w) for w in omega]
    basis = so_n_basis(_n_from_dim(len(omega)), ordering)
    A = sp.zeros(basis.n, basis.n)
    for (i, j), s, w in zip(basis.pairs, basis.signs, omega):
        A[i, j] = s * w
        A[j, i] = -s * w
    return A


def _check_skew(A) -> sp.Matrix:
    if not isinstance(A, sp.MatrixBase):
        if isinstance(A, (list, tuple)):
            A = sp.Matrix(A)
        else:
            raise TypeError(f"expected a square skew matrix, got {type(A).__name__}")
    if A.rows != A.cols:
        raise ValueError(f"expected a square skew matrix, got shape {A.shape}")
    pol = default_policy()
    for i in range(A.rows):
        for j in range(i, A.cols):
            if not pol.is_zero(A[i, j] + A[j, i]):
                raise ValueError(f"matrix is not skew-symmetric: A[{i},{j}] + A[{j},{i}] != 0")
    return A


def vee(A, ordering: str = "shamolin") -> tuple:
    r"""Coordinates :math:`\omega` of a skew matrix (inverse of :func:`hat`).

    >>> w = sp.symbols("w1:7")
    >>> vee(hat(w)) == w
    True
    """
    A = _check_skew(A)
    basis = so_n_basis(A.rows, ordering)
    return tuple(s * A[i, j] for (i, j), s in zip(basis.pairs, basis.signs))


# ----------------------------------------------------------------------------------------
# moment of a force
# ----------------------------------------------------------------------------------------
def as_vector(v, name: str, n: int | None = None) -> list:
    """The components of ``v`` (a sequence, ``n`` of them if given) as expressions.

    >>> as_vector([1, sp.Symbol("x")], "v", 2)
    [1, x]
    """
    if isinstance(v, (str, bytes)) or not hasattr(v, "__len__"):
        raise TypeError(f"{name} must be a sequence of components")
    v = [as_expr(c) for c in v]
    if n is not None and len(v) != n:
        raise ValueError(f"{name} has {len(v)} components, expected {n}")
    return v


def moment_matrix(xi: Sequence, F: Sequence) -> sp.Matrix:
    r"""The moment :math:`\mathbf M = F\xi^T - \xi F^T` of the force ``F`` applied at ``xi``.

    :math:`\mathbf M x = x\rfloor(\xi\wedge F)`; for :math:`n = 3`, :math:`\mathbf M =
    \widehat{\xi\times F}`.

    >>> moment_matrix([1, 0, 0], [0, 1, 0])       # hat(e1 x e2) = hat(e3)
    Matrix([
    [0, -1, 0],
    [1,  0, 0],
    [0,  0, 0]])
    """
    xi = as_vector(xi, "xi")
    F = as_vector(F, "F", len(xi))
    n = len(xi)
    return sp.Matrix(n, n, lambda i, j: F[i] * xi[j] - xi[i] * F[j])


def moment_coordinates(xi: Sequence, F: Sequence, ordering: str = "shamolin") -> tuple:
    r"""Coordinates of the moment (Shamolin 2017, §2): signed :math:`2\times2` minors.

    :math:`M_{k(i,j)} = s_{ij}(F_i\xi_j - \xi_iF_j)`, i.e. :math:`(-1)^{j-i+1}(\xi_iF_j -
    \xi_jF_i)` in the Shamolin ordering (the first minor of each group with "+").

    >>> x = sp.symbols("x1:6"); F = sp.symbols("F1:6")
    >>> moment_coordinates(x, F)[0]                # (2.17): xi4 F5 - xi5 F4
    -F4*x5 + F5*x4
    """
    xi = as_vector(xi, "xi")
    F = as_vector(F, "F", len(xi))
    basis = so_n_basis(len(xi), ordering)
    return tuple(s * (F[i] * xi[j] - xi[i] * F[j])
                 for (i, j), s in zip(basis.pairs, basis.signs))


# ----------------------------------------------------------------------------------------
# galgebra bivectors
# ----------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=16)
def bivector_algebra(n: int):
    r"""The Euclidean geometric algebra :math:`\mathcal G(\mathbb R^n)` (galgebra), cached.

    Returns ``(ga, basis_vectors)``.

    >>> ga, e = bivector_algebra(3)
    >>> e[0] ^ e[1]
    e1^e2
    """
    Ga = import_galgebra().Ga
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"the bivector algebra needs an integer n >= 2, got {n!r}")
    names = " ".join(f"e{i + 1}" for i in range(n))
    ga, *e = Ga.build(names, g=[1] * n)
    return ga, tuple(e)


def _is_mv(B) -> bool:
    if "galgebra.mv" not in sys.modules:       # no multivector can exist yet
        return False
    return isinstance(B, sys.modules["galgebra.mv"].Mv)


def _mv_n(B) -> int:
    return len(B.Ga.basis)


def skew_to_bivector(A):
    r"""The bivector :math:`B = \sum_{i<j} A_{ij}\,e_i\wedge e_j` with :math:`\iota(B) = A`.

    >>> skew_to_bivector(hat([1, 2, 3]))
    -3*e1^e2 + 2*e1^e3 - e2^e3
    """
    A = _check_skew(A)
    _, e = bivector_algebra(A.rows)
    n = A.rows
    B = 0 * (e[0] ^ e[1])
    for i in range(n):
        for j in range(i + 1, n):
            if A[i, j] != 0:
                B = B + A[i, j] * (e[i] ^ e[j])
    return B


def bivector_to_skew(B) -> sp.Matrix:
    r"""The skew matrix :math:`\iota(B)`, :math:`\iota(B)x = B\lfloor x`.

    >>> ga, e = bivector_algebra(3)
    >>> bivector_to_skew(e[0] ^ e[1])
    Matrix([
    [ 0, 1, 0],
    [-1, 0, 0],
    [ 0, 0, 0]])
    """
    if not _is_mv(B):
        raise TypeError(f"expected a galgebra multivector, got {type(B).__name__}")
    n = _mv_n(B)
    B2 = B.grade(2)
    rest = B - B2
    if not rest.is_zero():
        pol = default_policy()
        if not all(pol.is_zero(c) for c in rest.blade_coefs()):
            raise ValueError("the multivector is not a bivector (it has parts of other grades)")
    coefs = [sp.expand(c) for c in B2.get_coefs(2)]
    A = sp.zeros(n, n)
    k = 0
    for i in range(n):
        for j in range(i + 1, n):
            A[i, j] = coefs[k]
            A[j, i] = -coefs[k]
            k += 1
    return A


def coords_to_bivector(omega: Sequence, ordering: str = "shamolin"):
    """Bivector of the coordinates ``omega`` (``skew_to_bivector(hat(omega))``)."""
    return skew_to_bivector(hat(omega, ordering))


def bivector_to_coords(B, ordering: str = "shamolin") -> tuple:
    """Coordinates of a bivector (``vee(bivector_to_skew(B))``)."""
    return vee(bivector_to_skew(B), ordering)


def bivector_commutator(B1, B2):
    r"""Commutator product :math:`B_1\times B_2 = \tfrac12(B_1B_2 - B_2B_1)` (galgebra).

    >>> ga, e = bivector_algebra(3)
    >>> bivector_commutator(e[0] ^ e[1], e[1] ^ e[2])
    e1^e3
    """
    if not (_is_mv(B1) and _is_mv(B2)):
        raise TypeError("bivector_commutator expects two galgebra multivectors")
    return (B1 * B2 - B2 * B1) / 2


def moment_bivector(xi: Sequence, F: Sequence):
    r"""The moment of a force as the bivector :math:`\xi\wedge F` (galgebra).

    Its matrix action is :math:`x \mapsto x\rfloor(\xi\wedge F) = \mathbf M x`, so
    ``bivector_to_skew(moment_bivector(xi, F)) == -moment_matrix(xi, F)``.

    >>> moment_bivector([1, 0, 0], [0, 1, 0])
    e1^e2
    """
    xi = as_vector(xi, "xi")
    F = as_vector(F, "F", len(xi))
    _, e = bivector_algebra(len(xi))
    a = sum((c * v for c, v in zip(xi, e)), 0 * e[0])
    b = sum((c * v for c, v in zip(F, e)), 0 * e[0])
    return a ^ b


# ----------------------------------------------------------------------------------------
# fast sparse kernel
# ----------------------------------------------------------------------------------------
def sparse_hat(omega: Sequence, basis: SoNBasis) -> list:
    """Sparse rows ``{col: value}`` of hat(omega), skipping zeros.

    >>> sparse_hat([1, 0, 0], so_n_basis(3))
    [{}, {2: -1}, {1: 1}]
    """
    rows: list = [{} for _ in range(basis.n)]
    for (i, j), s, w in zip(basis.pairs, basis.signs, omega):
        if w != 0:
            rows[i][j] = w if s == 1 else -w
            rows[j][i] = -w if s == 1 else w
    return rows


def so_n_bracket(a: Sequence, b: Sequence, ordering: str = "shamolin") -> tuple:
    r"""Coordinates of :math:`[\hat a, \hat b] = \hat a\hat b - \hat b\hat a` (sparse kernel).

    >>> so_n_bracket([1, 0, 0], [0, 1, 0])        # [e1, e2] = e3 for n = 3
    (0, 0, 1)
    """
    a = [as_expr(c) for c in a]
    b = [as_expr(c) for c in b]
    if len(a) != len(b):
        raise ValueError(f"coordinate vectors of different lengths {len(a)} and {len(b)}")
    basis = so_n_basis(_n_from_dim(len(a)), ordering)
    A, B = sparse_hat(a, basis), sparse_hat(b, basis)
    out = []
    for (i, j), s in zip(basis.pairs, basis.signs):
        terms = [A[i][m] * B[m][j] for m in A[i] if j in B[m]]
        terms += [-B[i][m] * A[m][j] for m in B[i] if j in A[m]]
        out.append(sp.expand(s * sp.Add(*terms)))
    return tuple(out)


@functools.lru_cache(maxsize=32)
def structure_constants(n: int, ordering: str = "shamolin") -> dict:
    r"""Nonzero :math:`c^r_{pq}` with :math:`[\hat e_p, \hat e_q] = \sum_r c^r_{pq}\hat e_r`.

    Returned as ``{(p, q): {r: c}}`` for ``p < q`` (antisymmetric).

    >>> structure_constants(3)[(0, 1)]
    {2: 1}
    """
    basis = so_n_basis(n, ordering)
    N = basis.dim
    out = {}
    for p in range(N):
        for q in range(p + 1, N):
            ep = [0] * N
            eq = [0] * N
            ep[p] = 1
            eq[q] = 1
            c = so_n_bracket(ep, eq, ordering)
            nz = {r: int(v) for r, v in enumerate(c) if v != 0}
            if nz:
                out[(p, q)] = nz
    return out
