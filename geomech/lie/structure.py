r"""Structure theory of a Lie algebra: Killing form, series, solvability, adapted bases.

The derived series :math:`\mathfrak g^{(0)} = \mathfrak g`,
:math:`\mathfrak g^{(j+1)} = [\mathfrak g^{(j)}, \mathfrak g^{(j)}]` decides solvability, the
lower central series :math:`\mathfrak g_{1} = \mathfrak g`,
:math:`\mathfrak g_{j+1} = [\mathfrak g, \mathfrak g_j]` decides nilpotency, the Killing form
:math:`K_{ij} = \mathrm{tr}(\mathrm{ad}_{e_i}\mathrm{ad}_{e_j})` semisimplicity (Cartan's
criterion), and a basis adapted to the derived series (Borisov & Mamaev (2015), Thm 2) puts
Lie's reconstruction into triangular form.  :class:`StructureTheory` is the part of
:class:`~geomech.lie.algebra.LieAlgebra` that only uses its bracket.

>>> from geomech.lie.algebra import LieAlgebra
>>> g = LieAlgebra.se(2)
>>> [s.dim for s in g.derived_series()], g.is_solvable(), g.is_nilpotent()
([3, 2, 0], True, False)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra import nullspace, rank
from geomech.core.zero import default_policy
from geomech.lie.subspace import Subspace, normalized, rref_basis, solve_in_span

__all__ = ["StructureTheory"]


class StructureTheory:
    """Series, ideals and adapted bases of a Lie algebra, from its bracket alone.

    A mixin of :class:`~geomech.lie.algebra.LieAlgebra`: it needs ``dim``, ``bracket``,
    ``basis``, ``format_vector`` and the table ``_c`` of structure constants.
    """

    def killing_form(self) -> sp.Matrix:
        r"""Killing form :math:`K_{ij} = \mathrm{tr}(\mathrm{ad}_{e_i}\mathrm{ad}_{e_j})`."""
        ads = [self.ad(i) for i in range(self.dim)]
        return sp.Matrix(self.dim, self.dim, lambda i, j: normalized((ads[i] * ads[j]).trace()))

    def is_semisimple(self) -> bool:
        """Cartan's criterion: the Killing form is non-degenerate."""
        return rank(self.killing_form()) == self.dim


    # -- subspaces and series ---------------------------------------------------------------
    def span(self, vectors) -> Subspace:
        """The subspace spanned by elements (names, indices or vectors)."""
        return Subspace(self, [self._vector(v) for v in vectors])

    def whole(self) -> Subspace:
        """The algebra itself as a subspace."""
        return Subspace(self, self.basis())

    def bracket_subspaces(self, a: Subspace, b: Subspace) -> Subspace:
        """The subspace ``[A, B]`` spanned by brackets of basis vectors of ``A`` and ``B``."""
        if not (isinstance(a, Subspace) and isinstance(b, Subspace)):
            raise TypeError("bracket_subspaces needs two subspaces of this algebra")
        return Subspace(self, [self.bracket(x, y) for x in a.basis for y in b.basis])

    def derived_series(self) -> list[Subspace]:
        r"""Derived series :math:`\mathfrak g \supset [\mathfrak g,\mathfrak g] \supset \dots`.

        The list stops at the first term equal to its successor (which is not repeated).

        >>> from geomech.lie.algebra import LieAlgebra
        >>> [s.dim for s in LieAlgebra.heisenberg().derived_series()]
        [3, 1, 0]
        """
        out = [self.whole()]
        while out[-1].dim:
            nxt = self.bracket_subspaces(out[-1], out[-1])
            if nxt.dim == out[-1].dim:
                break
            out.append(nxt)
        return out

    def lower_central_series(self) -> list[Subspace]:
        r"""Lower central series :math:`\mathfrak g_1 = \mathfrak g`,
        :math:`\mathfrak g_{j+1} = [\mathfrak g, \mathfrak g_j]`, until it stabilises.

        >>> from geomech.lie.algebra import LieAlgebra
        >>> [s.dim for s in LieAlgebra.aff(1).lower_central_series()]
        [2, 1]
        """
        g = self.whole()
        out = [g]
        while out[-1].dim:
            nxt = self.bracket_subspaces(g, out[-1])
            if nxt.dim == out[-1].dim:
                break
            out.append(nxt)
        return out

    def derived_algebra(self) -> Subspace:
        r""":math:`[\mathfrak g, \mathfrak g]`."""
        return self.bracket_subspaces(self.whole(), self.whole())

    def center(self) -> Subspace:
        """The centre ``{z : [z, g] = 0}``."""
        # z is central iff ad_z = 0 iff sum_i z_i c_{i j} = 0 for all j: the matrix with rows
        # indexed by (j, k) and columns by i
        m = sp.Matrix([[self._c[i][j][k] for i in range(self.dim)]
                       for j in range(self.dim) for k in range(self.dim)])
        ns = nullspace(m)
        return Subspace(self, [list(v) for v in ns])

    def is_abelian(self) -> bool:
        """All brackets vanish."""
        pol = default_policy()
        return all(pol.is_zero(x) for row in self._c for vec in row for x in vec)

    def is_solvable(self) -> bool:
        """The derived series reaches ``0``."""
        return self.derived_series()[-1].dim == 0

    def is_nilpotent(self) -> bool:
        """The lower central series reaches ``0``."""
        return self.lower_central_series()[-1].dim == 0

    def derived_length(self) -> int | None:
        """Smallest ``K`` with :math:`\\mathfrak g^{(K)} = 0`, ``None`` if not solvable."""
        s = self.derived_series()
        return len(s) - 1 if s[-1].dim == 0 else None

    # -- adapted basis ----------------------------------------------------------------------
    def adapted_basis(self) -> list[tuple[sp.Expr, ...]]:
        r"""A basis adapted to the derived series (solvable algebras; Borisov &
        Mamaev (2015), Thm 2).

        First a complement of :math:`\mathfrak g^{(1)}` in :math:`\mathfrak g`, then a
        complement of :math:`\mathfrak g^{(2)}` in :math:`\mathfrak g^{(1)}`, ..., last a basis
        of :math:`\mathfrak g^{(K-1)}`.  Then :math:`[e_i, e_j] \in
        \mathrm{span}\{e_{i+1},\dots,e_d\}` for :math:`i<j`, so every
        :math:`\mathfrak h_k = \mathrm{span}\{e_{k+1},\dots,e_d\}` is an ideal of
        :math:`\mathfrak h_{k-1}`.  Original basis vectors are preferred.

        Raises ``ValueError`` when the algebra is not solvable.

        >>> from geomech.lie.algebra import LieAlgebra
        >>> g = LieAlgebra.se(2)
        >>> [g.format_vector(v) for v in g.adapted_basis()]
        ['J', 'P1', 'P2']
        """
        series = self.derived_series()
        if series[-1].dim:
            raise ValueError(
                f"{self._label()} is not solvable: its derived series stops at "
                f"{series[-1]!r} (dimension {series[-1].dim}); no basis adapted to a "
                "solvable derived series exists")
        chosen: list[tuple] = []
        for j in range(len(series) - 1):
            big, small = series[j], series[j + 1]
            current = list(small.basis)
            level = []
            candidates = [e for e in self.basis() if big.contains(e)] + list(big.basis)
            for v in candidates:
                if len(current) == big.dim:
                    break
                if solve_in_span(current, v) is None:
                    current.append(v)
                    level.append(v)
            chosen.extend(level)
        return chosen

    def in_basis(self, vectors: Sequence, names: Sequence[str] | None = None,
                 name: str | None = None) -> StructureTheory:
        r"""The same algebra in a new basis :math:`f_a = \sum_i P_{ai} e_i`.

        Realising fields (if any) are transformed too.

        >>> from geomech.lie.algebra import LieAlgebra
        >>> g = LieAlgebra.aff(1).in_basis([[0, 1], [1, 0]], names=["B", "A"])
        >>> g.bracket("B", "A")
        (-1, 0)
        """
        vecs = [self._vector(v) for v in vectors]
        if len(vecs) != self.dim or len(rref_basis(vecs, self.dim)) != self.dim:
            raise ValueError(f"a basis of {self._label()} needs {self.dim} independent vectors")
        consts = {}
        for a, b in itertools.combinations(range(self.dim), 2):
            coeffs = solve_in_span(vecs, self.bracket(vecs[a], vecs[b]))
            consts[(a, b)] = coeffs
        names = list(names) if names is not None else [self.format_vector(v) for v in vecs]
        fields = [self.realize(v) for v in vecs] if self.fields else None
        return type(self)(consts, names=names, name=name or self.name, fields=fields,
                          check=False)

    def adapted(self) -> StructureTheory:
        """The algebra in its :meth:`adapted_basis` (names of the original combinations)."""
        return self.in_basis(self.adapted_basis())

    def is_triangular(self) -> bool:
        r"""Whether :math:`c^l_{ij} = 0` for all :math:`l \le i < j` (adapted-basis check)."""
        pol = default_policy()
        return all(pol.is_zero(self._c[i][j][l]) for i, j in
                   itertools.combinations(range(self.dim), 2) for l in range(i + 1))
