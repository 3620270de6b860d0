r"""The catalogue of Lie algebras: matrix algebras, :math:`\mathfrak{so}(n)`,
:math:`\mathfrak{se}(n)`, Heisenberg and :math:`\mathfrak{aff}(1)`.

Each function takes the class to build (they are the class methods
``LieAlgebra.so``, ``LieAlgebra.se``, ... of :class:`~geomech.lie.algebra.LieAlgebra`).
A matrix Lie algebra has the commutator :math:`[A, B] = AB - BA`; its structure constants
are the coordinates of the commutators in the basis of matrices.

>>> from geomech.lie.algebra import LieAlgebra
>>> LieAlgebra.so(3).bracket("Lx", "Ly"), LieAlgebra.heisenberg().bracket("X", "Y")
((0, 0, 1), (0, 0, 1))
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TypeVar

import sympy as sp

from geomech.lie.subspace import rref_basis, solve_in_span

__all__ = ["from_matrices", "so", "se", "heisenberg", "aff"]

#: the class built (:class:`~geomech.lie.algebra.LieAlgebra` or a subclass)
Algebra = TypeVar("Algebra")


def from_matrices(cls: type[Algebra], matrices: Sequence, names: Sequence[str] | None = None,
                  name: str | None = None) -> Algebra:
    r"""A matrix Lie algebra with the commutator :math:`[A, B] = AB - BA`.

    >>> from geomech.lie.algebra import LieAlgebra
    >>> A = [[1, 0], [0, 0]]; B = [[0, 1], [0, 0]]
    >>> LieAlgebra.from_matrices([A, B], names="A B").bracket("A", "B")
    (0, 1)
    """
    mats = [sp.Matrix(m) for m in matrices]
    if isinstance(names, str):
        names = names.split()
    flat = [list(m) for m in mats]
    if len(rref_basis(flat, len(flat[0]))) != len(mats):
        raise ValueError("the matrices are linearly dependent")
    consts = {}
    for i, j in itertools.combinations(range(len(mats)), 2):
        com = mats[i] * mats[j] - mats[j] * mats[i]
        coeffs = solve_in_span(flat, list(com))
        if coeffs is None:
            raise ValueError(f"the commutator of matrices {i} and {j} leaves their span: "
                             "not a Lie algebra")
        consts[(i, j)] = coeffs
    return cls(consts, names=names, dim=len(mats), name=name)

def so(cls: type[Algebra], n: int) -> Algebra:
    r"""The orthogonal algebra :math:`\mathfrak{so}(n)` of skew matrices.

    For ``n = 3`` the basis is ``Lx, Ly, Lz`` with :math:`[L_i, L_j] = \varepsilon_{ijk}
    L_k`; otherwise ``Lij`` (``i < j``) is :math:`E_{ij} - E_{ji}`, with
    :math:`[L_{ij}, L_{jk}] = L_{ik}`.

    >>> from geomech.lie.algebra import LieAlgebra
    >>> print(LieAlgebra.so(3))
    so(3): [Lx, Ly] = Lz, [Lx, Lz] = -Ly, [Ly, Lz] = Lx
    """
    if not isinstance(n, int) or n < 2:
        raise ValueError(f"so(n) needs an integer n >= 2, got {n!r}")
    if n == 3:
        hat = [sp.Matrix([[0, 0, 0], [0, 0, -1], [0, 1, 0]]),
               sp.Matrix([[0, 0, 1], [0, 0, 0], [-1, 0, 0]]),
               sp.Matrix([[0, -1, 0], [1, 0, 0], [0, 0, 0]])]
        return cls.from_matrices(hat, names=["Lx", "Ly", "Lz"], name="so(3)")
    mats, names = [], []
    for i, j in itertools.combinations(range(n), 2):
        m = sp.zeros(n, n)
        m[i, j], m[j, i] = 1, -1
        mats.append(m)
        names.append(f"L{i + 1}{j + 1}" if n < 10 else f"L{i + 1}_{j + 1}")
    return cls.from_matrices(mats, names=names, name=f"so({n})")

def se(cls: type[Algebra], n: int) -> Algebra:
    r"""The Euclidean algebra :math:`\mathfrak{se}(n) = \mathfrak{so}(n) \ltimes \mathbb R^n`.

    ``se(2)``: ``J, P1, P2`` with :math:`[J, P_1] = P_2`, :math:`[J, P_2] = -P_1`.
    ``se(3)``: ``J1, J2, J3, P1, P2, P3`` with :math:`[J_i, J_j] = \varepsilon_{ijk} J_k`,
    :math:`[J_i, P_j] = \varepsilon_{ijk} P_k`, :math:`[P_i, P_j] = 0`.

    >>> from geomech.lie.algebra import LieAlgebra
    >>> LieAlgebra.se(3).bracket("J1", "P2")
    (0, 0, 0, 0, 0, 1)
    """
    if not isinstance(n, int) or n < 2:
        raise ValueError(f"se(n) needs an integer n >= 2, got {n!r}")
    rot = cls.so(n)
    mats, names = [], []
    if n == 2:
        gens = [sp.Matrix([[0, -1], [1, 0]])]
    elif n == 3:
        gens = [sp.Matrix(3, 3, lambda i, j, k=k: sp.LeviCivita(i, k, j)) for k in range(3)]
    else:
        gens = []
        for i, j in itertools.combinations(range(n), 2):
            m = sp.zeros(n, n)
            m[i, j], m[j, i] = 1, -1
            gens.append(m)
    rnames = (["J"] if n == 2 else [f"J{k + 1}" for k in range(3)] if n == 3
              else ["J" + nm[1:] for nm in rot.names])
    for m, nm in zip(gens, rnames):
        big = sp.zeros(n + 1, n + 1)
        big[:n, :n] = m
        mats.append(big)
        names.append(nm)
    for k in range(n):
        big = sp.zeros(n + 1, n + 1)
        big[k, n] = 1
        mats.append(big)
        names.append(f"P{k + 1}")
    return cls.from_matrices(mats, names=names, name=f"se({n})")

def heisenberg(cls: type[Algebra], n: int = 1) -> Algebra:
    r"""The Heisenberg algebra :math:`\mathfrak h_{2n+1}`: :math:`[X_i, Y_i] = Z`.

    >>> from geomech.lie.algebra import LieAlgebra
    >>> print(LieAlgebra.heisenberg())
    heisenberg(1): [X, Y] = Z
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"heisenberg(n) needs an integer n >= 1, got {n!r}")
    if n == 1:
        names = ["X", "Y", "Z"]
    else:
        names = [f"X{i + 1}" for i in range(n)] + [f"Y{i + 1}" for i in range(n)] + ["Z"]
    consts = {(i, n + i): {2 * n: 1} for i in range(n)}
    return cls(consts, names=names, name=f"heisenberg({n})")

def aff(cls: type[Algebra], n: int = 1) -> Algebra:
    r"""The affine algebra of the line, :math:`\mathfrak{aff}(1)`: :math:`[A, B] = B`.

    It is the algebra of :math:`x \mapsto a x + b` (``A`` scaling, ``B`` translation);
    solvable and not nilpotent.

    >>> from geomech.lie.algebra import LieAlgebra
    >>> LieAlgebra.aff(1).bracket("A", "B")
    (0, 1)
    """
    if n != 1:
        raise ValueError("only aff(1) is in the catalogue")
    return cls({(0, 1): {1: 1}}, names=["A", "B"], name="aff(1)")
