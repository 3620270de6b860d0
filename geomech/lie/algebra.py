r"""Finite-dimensional Lie algebras: :class:`LieAlgebra`.

A Lie algebra :math:`\mathfrak g` with basis :math:`e_1,\dots,e_d` is given by its structure
constants,

.. math:: [e_i, e_j] = \sum_k c^k_{ij}\, e_k ,\qquad c^k_{ij} = -c^k_{ji},

subject to the Jacobi identity.  Subalgebras are handled as subspaces of coordinate vectors.
The derived series :math:`\mathfrak g^{(0)} = \mathfrak g`,
:math:`\mathfrak g^{(j+1)} = [\mathfrak g^{(j)}, \mathfrak g^{(j)}]` decides solvability, the
lower central series :math:`\mathfrak g_{1} = \mathfrak g`,
:math:`\mathfrak g_{j+1} = [\mathfrak g, \mathfrak g_j]` decides nilpotency, and a basis adapted
to the derived series (Borisov & Mamaev (2015), Thm 2) puts Lie's reconstruction into
triangular form.

A Lie algebra can also be *realised* by vector fields: :meth:`LieAlgebra.from_vector_fields`
computes the brackets through the manifold's :class:`~geomech.lie.graph.BracketGraph` and
finds the constant structure constants (or reports that the coefficients are functions, i.e.
that the fields span a distribution but not a Lie algebra of fields).

Examples
--------
>>> g = LieAlgebra.se(2)
>>> print(g)
se(2): [J, P1] = P2, [J, P2] = -P1
>>> g.is_solvable(), g.is_nilpotent()
(True, False)
>>> [s.dim for s in g.derived_series()]
[3, 2, 0]
>>> LieAlgebra.so(3).is_solvable()
False
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence

import sympy as sp

from geomech.core.fields import VectorField, check_same_manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy, require_finite

__all__ = ["LieAlgebra", "Subspace", "NotALieAlgebraError", "constant_coefficients",
           "function_coefficients"]


class NotALieAlgebraError(ValueError):
    """Vector fields that do not close into a finite-dimensional Lie algebra.

    Attributes
    ----------
    pair : tuple[str, str]
        Names of the two fields whose bracket is the problem.
    bracket : VectorField
        Their bracket.
    coefficients : tuple or None
        When the bracket lies in the span of the fields *over functions*, its (non-constant)
        coefficients: the fields have structure functions, not structure constants.
    """

    def __init__(self, message, pair=None, bracket=None, coefficients=None):
        super().__init__(message)
        self.pair = pair
        self.bracket = bracket
        self.coefficients = coefficients


# ---------------------------------------------------------------------------------------------
# linear algebra over the field of constants (rationals and parameters)
# ---------------------------------------------------------------------------------------------
def _norm(e) -> sp.Expr:
    e = as_expr(e)
    if e.is_Number:
        return e
    return default_policy().normalize(e)


def _nested_exprs(obj, depth: int = 0):
    """A nested sequence with every leaf through the door (no text reaches ``sp.Array``)."""
    if isinstance(obj, (str, bytes, Mapping)) or not isinstance(obj, Iterable):
        if depth == 3:
            return as_expr(obj)
        raise TypeError("structure constants must be a mapping {(a, b): bracket} or a "
                        "dim x dim x dim nested sequence of numbers/expressions")
    if depth == 3:
        raise ValueError("structure constants must be a dim x dim x dim array (too deep)")
    return [_nested_exprs(x, depth + 1) for x in obj]


def _rref_basis(vectors: Sequence[Sequence], dim: int) -> tuple[tuple[sp.Expr, ...], ...]:
    """Reduced row echelon basis of the span of ``vectors`` (canonical, normalised)."""
    rows = [list(v) for v in vectors if any(not default_policy().is_zero(x) for x in v)]
    if not rows:
        return ()
    m = sp.Matrix(rows)
    red, pivots = m.rref(iszerofunc=default_policy().is_zero, simplify=False)
    return tuple(tuple(_norm(red[i, j]) for j in range(dim)) for i in range(len(pivots)))


def _solve_in_span(basis: Sequence[Sequence], vec: Sequence) -> tuple | None:
    """Coefficients ``a`` with ``vec = sum_i a_i basis_i`` or ``None`` if not in the span."""
    if not basis:
        return () if all(default_policy().is_zero(x) for x in vec) else None
    a = sp.Matrix([list(b) for b in basis]).T
    try:
        sol, params = a.gauss_jordan_solve(sp.Matrix(list(vec)))
    except ValueError:
        return None
    if params.shape[0]:
        sol = sol.xreplace({p: 0 for p in params})
    return tuple(_norm(x) for x in sol)


class Subspace:
    """A linear subspace of a Lie algebra, stored as a canonical (row echelon) basis.

    Attributes
    ----------
    algebra : LieAlgebra
    basis : tuple of tuples
        Coordinate vectors (in the algebra's basis) spanning the subspace.
    """

    __slots__ = ("algebra", "basis")

    def __init__(self, algebra: LieAlgebra, vectors: Sequence[Sequence]):
        self.algebra = algebra
        self.basis = _rref_basis(vectors, algebra.dim)

    @property
    def dim(self) -> int:
        """Dimension of the subspace."""
        return len(self.basis)

    def contains(self, vec) -> bool:
        """Whether the coordinate vector ``vec`` lies in the subspace."""
        return _solve_in_span(self.basis, self.algebra._vector(vec)) is not None

    def __contains__(self, vec) -> bool:
        return self.contains(vec)

    def __le__(self, other: Subspace) -> bool:
        return all(other.contains(v) for v in self.basis)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Subspace) or other.algebra is not self.algebra:
            return NotImplemented
        return self.dim == other.dim and self <= other

    def __hash__(self) -> int:
        return hash((id(self.algebra), self.dim))

    def is_ideal(self) -> bool:
        """Whether ``[g, self] ⊂ self``."""
        g = self.algebra
        return all(self.contains(g.bracket(e, v)) for e in g.basis() for v in self.basis)

    def fields(self) -> list[VectorField]:
        """The realising vector fields of the basis (for an algebra built from fields)."""
        return [self.algebra.realize(v) for v in self.basis]

    def __repr__(self) -> str:
        if not self.basis:
            return "span()"
        return "span(" + ", ".join(self.algebra.format_vector(v) for v in self.basis) + ")"


# ---------------------------------------------------------------------------------------------
def _mapping_dimension(brackets: Mapping, names) -> int:
    """The dimension of an algebra given by ``{(a, b): [a, b]}``: the number of names, or
    one more than the largest index."""
    if names is not None:
        return len(names)
    idx = [k for pair in brackets for k in pair]
    if not all(isinstance(k, int) for k in idx):
        raise ValueError("give names= or dim= when brackets use names")
    return max(idx, default=-1) + 1


class LieAlgebra:
    r"""A finite-dimensional Lie algebra given by structure constants.

    Parameters
    ----------
    structure_constants : mapping or nested sequence
        Either ``{(i, j): value}`` giving :math:`[e_i, e_j]` for some pairs (indices or basis
        names; ``value`` a coordinate vector, a ``{k: c}`` mapping, or a basis name), the
        other pairs being zero or fixed by antisymmetry; or a ``dim x dim x dim`` array
        ``c[i][j][k]`` :math:`= c^k_{ij}`.
    names : sequence of str, optional
        Names of the basis elements (default ``e1, e2, ...``).
    dim : int, optional
        Dimension, when it cannot be inferred from ``names`` or the array.
    name : str, optional
        Name used in printing (``"se(2)"``).
    fields : sequence of VectorField, optional
        A realisation of the basis by vector fields (set by :meth:`from_vector_fields`).
    check : bool
        Verify antisymmetry and the Jacobi identity (``ValueError`` otherwise).

    Examples
    --------
    >>> g = LieAlgebra({(0, 1): [0, 1]}, names=["A", "B"], name="aff(1)")
    >>> g.bracket("A", "B")
    (0, 1)
    >>> g.structure_constants()[0, 1, 1]
    1
    """

    def __init__(self, structure_constants, names: Sequence[str] | None = None, *,
                 dim: int | None = None, name: str | None = None,
                 fields: Sequence[VectorField] | None = None, check: bool = True):
        if names is not None:
            names = [str(n) for n in names]
            if len(set(names)) != len(names):
                raise ValueError(f"repeated basis names {names}")
        arr = None
        if isinstance(structure_constants, Mapping):
            dim = _mapping_dimension(structure_constants, names) if dim is None else dim
        else:
            arr = sp.Array(_nested_exprs(structure_constants)) if not isinstance(
                structure_constants, sp.NDimArray) else structure_constants
            if len(arr.shape) != 3 or len(set(arr.shape)) != 1:
                raise ValueError("structure constants must be a dim x dim x dim array, got "
                                 f"shape {arr.shape}")
            dim = arr.shape[0] if dim is None else dim
        if dim < 1:
            raise ValueError("a Lie algebra needs dimension at least 1")
        self.dim: int = dim
        self.names: tuple[str, ...] = tuple(names) if names is not None else tuple(
            f"e{i + 1}" for i in range(dim))
        if len(self.names) != dim:
            raise ValueError(f"{len(self.names)} names given for dimension {dim}")
        self.name = name
        if arr is None:
            c = self._table_from_brackets(structure_constants)
        else:
            c = [[tuple(_norm(arr[i, j, k]) for k in range(dim)) for j in range(dim)]
                 for i in range(dim)]
        self._c = tuple(tuple(row) for row in c)
        for i, j in itertools.product(range(dim), repeat=2):
            require_finite(c[i][j], f"structure constants of [{self.names[i]}, {self.names[j]}]")
        if fields is not None:
            fields = list(fields)
            if len(fields) != dim:
                raise ValueError(f"{len(fields)} fields given for dimension {dim}")
            check_same_manifold(*fields)
        self.fields: tuple[VectorField, ...] | None = tuple(fields) if fields else None
        if check:
            self._check_antisymmetry()
            bad = self.jacobi_violation()
            if bad is not None:
                i, j, k = bad
                raise ValueError(
                    "the structure constants violate the Jacobi identity for "
                    f"({self.names[i]}, {self.names[j]}, {self.names[k]}): "
                    f"[[{self.names[i]},{self.names[j]}],{self.names[k]}] + cyclic = "
                    f"{self.format_vector(self.jacobiator(i, j, k))}")

    def _table_from_brackets(self, brackets: Mapping) -> list:
        """The table ``c[i][j]`` (coordinate vectors) from ``{(a, b): [a, b]}``: the given
        brackets, their opposites, zeros elsewhere; ``[a, a] = 0`` and the antisymmetry of
        pairs given both ways are checked."""
        dim = self.dim
        zero = (sp.S.Zero,) * dim
        c = [[zero] * dim for _ in range(dim)]
        given = {}
        for (a, b), val in brackets.items():
            i, j = self._index(a), self._index(b)
            vec = self._vector(val)
            if i == j and any(not default_policy().is_zero(x) for x in vec):
                raise ValueError(f"[{self.names[i]}, {self.names[i]}] must be 0")
            given[(i, j)] = vec
        for (i, j), vec in given.items():
            if (j, i) in given:
                other = given[(j, i)]
                if any(not default_policy().is_zero(x + y) for x, y in zip(vec, other)):
                    raise ValueError(
                        f"[{self.names[i]}, {self.names[j]}] and [{self.names[j]}, "
                        f"{self.names[i]}] are not opposite: the bracket is antisymmetric")
            c[i][j] = vec
            c[j][i] = tuple(_norm(-x) for x in vec)
        return c

    # -- coordinates ------------------------------------------------------------------------
    def _index(self, a) -> int:
        if isinstance(a, (int, sp.Integer)) and not isinstance(a, bool):
            i = int(a)
            if not 0 <= i < self.dim:
                raise ValueError(f"basis index {i} out of range for dimension {self.dim}")
            return i
        if isinstance(a, str):
            try:
                return self.names.index(a)
            except ValueError:
                raise ValueError(f"{a!r} is not a basis element of {self._label()} "
                                 f"(basis {', '.join(self.names)})") from None
        raise TypeError(f"a basis element is an index or a name, got {a!r}")

    def _vector(self, v) -> tuple[sp.Expr, ...]:
        """Coordinate vector of a basis name/index, a ``{k: c}`` mapping or a sequence."""
        if isinstance(v, (str, int, sp.Integer)) and not isinstance(v, bool):
            out = [sp.S.Zero] * self.dim
            out[self._index(v)] = sp.S.One
            return tuple(out)
        if isinstance(v, Mapping):
            out = [sp.S.Zero] * self.dim
            for k, x in v.items():
                out[self._index(k)] += as_expr(x)
            return tuple(_norm(x) for x in out)
        if isinstance(v, sp.MatrixBase):
            v = list(v)
        if isinstance(v, Sequence):
            if len(v) != self.dim:
                raise ValueError(f"a vector of {self._label()} has {self.dim} coordinates, "
                                 f"got {len(v)}")
            return tuple(_norm(x) for x in v)
        raise TypeError(f"cannot read {v!r} as an element of {self._label()}")

    def _label(self) -> str:
        return self.name or f"the {self.dim}-dimensional Lie algebra"

    def basis(self) -> list[tuple[sp.Expr, ...]]:
        """The standard basis as coordinate vectors."""
        return [self._vector(i) for i in range(self.dim)]

    # -- bracket ----------------------------------------------------------------------------
    def bracket(self, a, b) -> tuple[sp.Expr, ...]:
        r"""Bracket of two elements: :math:`[a, b]^k = \sum_{ij} a^i b^j c^k_{ij}`.

        ``a`` and ``b`` are basis names, indices or coordinate vectors.

        >>> LieAlgebra.so(3).bracket("Lx", "Ly")
        (0, 0, 1)
        """
        va, vb = self._vector(a), self._vector(b)
        out = [sp.S.Zero] * self.dim
        for i, ai in enumerate(va):
            if ai == 0:
                continue
            for j, bj in enumerate(vb):
                if bj == 0:
                    continue
                for k, ckij in enumerate(self._c[i][j]):
                    if ckij != 0:
                        out[k] += ai * bj * ckij
        return tuple(_norm(x) for x in out)

    def structure_constants(self) -> sp.ImmutableDenseNDimArray:
        r"""The array ``C[i, j, k]`` :math:`= c^k_{ij}`, :math:`[e_i,e_j] = \sum_k c^k_{ij} e_k`."""
        d = self.dim
        return sp.ImmutableDenseNDimArray(
            [self._c[i][j][k] for i in range(d) for j in range(d) for k in range(d)], (d, d, d))

    def ad(self, a) -> sp.Matrix:
        r"""Matrix of :math:`\mathrm{ad}_a = [a, \cdot]` in the basis (columns: images)."""
        cols = [self.bracket(a, j) for j in range(self.dim)]
        return sp.Matrix(self.dim, self.dim, lambda k, j: cols[j][k])

    def killing_form(self) -> sp.Matrix:
        r"""Killing form :math:`K_{ij} = \mathrm{tr}(\mathrm{ad}_{e_i}\mathrm{ad}_{e_j})`."""
        ads = [self.ad(i) for i in range(self.dim)]
        return sp.Matrix(self.dim, self.dim, lambda i, j: _norm((ads[i] * ads[j]).trace()))

    def is_semisimple(self) -> bool:
        """Cartan's criterion: the Killing form is non-degenerate."""
        return default_policy().rank(self.killing_form()) == self.dim

    # -- identities -------------------------------------------------------------------------
    def _check_antisymmetry(self) -> None:
        pol = default_policy()
        for i, j in itertools.combinations_with_replacement(range(self.dim), 2):
            for k in range(self.dim):
                if not pol.is_zero(self._c[i][j][k] + self._c[j][i][k]):
                    raise ValueError(f"structure constants are not antisymmetric: "
                                     f"c^{k}_({i},{j}) + c^{k}_({j},{i}) != 0")

    def jacobiator(self, i, j, k) -> tuple[sp.Expr, ...]:
        """``[[e_i, e_j], e_k] + [[e_j, e_k], e_i] + [[e_k, e_i], e_j]``."""
        i, j, k = (self._index(x) for x in (i, j, k))
        terms = [self.bracket(self.bracket(i, j), k), self.bracket(self.bracket(j, k), i),
                 self.bracket(self.bracket(k, i), j)]
        return tuple(_norm(sum(t[m] for t in terms)) for m in range(self.dim))

    def jacobi_violation(self) -> tuple[int, int, int] | None:
        """The first triple ``i < j < k`` violating the Jacobi identity, or ``None``."""
        pol = default_policy()
        for i, j, k in itertools.combinations(range(self.dim), 3):
            if any(x != 0 and not pol.is_zero(x) for x in self.jacobiator(i, j, k)):
                return (i, j, k)
        return None

    def satisfies_jacobi(self) -> bool:
        """Whether the Jacobi identity holds for every triple of basis elements.

        >>> LieAlgebra.heisenberg().satisfies_jacobi()
        True
        """
        return self.jacobi_violation() is None

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
        ns = default_policy().nullspace(m)
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
                if _solve_in_span(current, v) is None:
                    current.append(v)
                    level.append(v)
            chosen.extend(level)
        return chosen

    def in_basis(self, vectors: Sequence, names: Sequence[str] | None = None,
                 name: str | None = None) -> LieAlgebra:
        r"""The same algebra in a new basis :math:`f_a = \sum_i P_{ai} e_i`.

        Realising fields (if any) are transformed too.

        >>> g = LieAlgebra.aff(1).in_basis([[0, 1], [1, 0]], names=["B", "A"])
        >>> g.bracket("B", "A")
        (-1, 0)
        """
        vecs = [self._vector(v) for v in vectors]
        if len(vecs) != self.dim or len(_rref_basis(vecs, self.dim)) != self.dim:
            raise ValueError(f"a basis of {self._label()} needs {self.dim} independent vectors")
        consts = {}
        for a, b in itertools.combinations(range(self.dim), 2):
            coeffs = _solve_in_span(vecs, self.bracket(vecs[a], vecs[b]))
            consts[(a, b)] = coeffs
        names = list(names) if names is not None else [self.format_vector(v) for v in vecs]
        fields = [self.realize(v) for v in vecs] if self.fields else None
        return LieAlgebra(consts, names=names, name=name or self.name, fields=fields,
                          check=False)

    def adapted(self) -> LieAlgebra:
        """The algebra in its :meth:`adapted_basis` (names of the original combinations)."""
        return self.in_basis(self.adapted_basis())

    def is_triangular(self) -> bool:
        r"""Whether :math:`c^l_{ij} = 0` for all :math:`l \le i < j` (adapted-basis check)."""
        pol = default_policy()
        return all(pol.is_zero(self._c[i][j][l]) for i, j in
                   itertools.combinations(range(self.dim), 2) for l in range(i + 1))

    # -- realisation by fields --------------------------------------------------------------
    def realize(self, vec) -> VectorField:
        """The vector field realising an element (for an algebra built from fields)."""
        if not self.fields:
            raise ValueError(f"{self._label()} has no realisation by vector fields")
        v = self._vector(vec)
        M = self.fields[0].manifold
        out = M.vector_field([0] * M.dim)
        for c, f in zip(v, self.fields):
            if c != 0:
                out = out + c * f
        return out

    @classmethod
    def from_vector_fields(cls, fields: Sequence[VectorField], names: Sequence[str] | None = None,
                           *, close: bool = False, max_dim: int = 12,
                           name: str | None = None) -> LieAlgebra:
        r"""The Lie algebra spanned (over the constants) by vector fields.

        Every bracket :math:`[X_i, X_j]` is asked of the manifold's bracket graph and written
        as :math:`\sum_k c^k_{ij} X_k` with *constant* coefficients (parameters of the
        manifold allowed).

        Parameters
        ----------
        fields : sequence of VectorField
            Fields on one manifold, linearly independent over the constants.
        names : sequence of str, optional
            Names of the fields (default ``X1, X2, ...``).
        close : bool
            If true, brackets outside the constant span are added as new basis elements
            (named ``[Xi,Xj]``) until the algebra closes or ``max_dim`` is exceeded.
        max_dim : int
            Dimension cap for the closure.

        Raises
        ------
        NotALieAlgebraError
            (a ``ValueError``) when a bracket is not a constant combination and ``close`` is
            false -- the message says whether the bracket lies in the span over *functions*
            (structure functions: a distribution, not a Lie algebra of fields) -- or when the
            closure exceeds ``max_dim``.

        Examples
        --------
        >>> from geomech.core import Manifold
        >>> M = Manifold("M", "x y"); x, y = M.coords
        >>> g = LieAlgebra.from_vector_fields(
        ...     [M.vector_field([1, 0]), M.vector_field([0, 1]), M.vector_field([-y, x])],
        ...     names=["ux", "uy", "rot"])
        >>> print(g)
        [ux, rot] = uy, [uy, rot] = -ux
        >>> LieAlgebra.from_vector_fields([M.vector_field([1, 0]), M.vector_field([0, x])])
        Traceback (most recent call last):
        ...
        geomech.lie.algebra.NotALieAlgebraError: [X1, X2] = d/dy is not a constant ...
        >>> LieAlgebra.from_vector_fields([M.vector_field([1, 0]), M.vector_field([0, x])],
        ...                               close=True).bracket_table()
        '[X1, X2] = [X1,X2]'
        """
        basis = list(fields)
        if not basis:
            raise ValueError("from_vector_fields needs at least one field")
        for f in basis:
            if not isinstance(f, VectorField):
                raise TypeError(f"expected VectorFields, got {type(f).__name__}")
        M = check_same_manifold(*basis)
        labels = list(names) if names is not None else [f"X{i + 1}" for i in range(len(basis))]
        if len(labels) != len(basis):
            raise ValueError(f"{len(labels)} names given for {len(basis)} fields")
        dep = _constant_dependency(basis)
        if dep is not None:
            raise ValueError(
                "the fields are linearly dependent over the constants: "
                + " + ".join(f"({sp.sstr(c)})*{n}" for c, n in zip(dep, labels) if c != 0)
                + " = 0")
        from geomech.lie.graph import BracketGraph

        G = BracketGraph.of(M)
        consts: dict = {}
        done = set()
        changed = True
        solver = _ConstantSolver(basis)
        while changed:
            changed = False
            for i, j in itertools.combinations(range(len(basis)), 2):
                if (i, j) in done:
                    continue
                done.add((i, j))
                b = G.bracket(basis[i], basis[j])
                if b.is_zero():
                    continue
                coeffs = solver.solve(b)
                if coeffs is None:
                    if close and len(basis) < max_dim:
                        basis.append(b)
                        solver = _ConstantSolver(basis)
                        labels.append(f"[{labels[i]},{labels[j]}]")
                        coeffs = (0,) * (len(basis) - 1) + (1,)
                        changed = True
                    else:
                        raise _not_closed_error(basis, labels, i, j, b, close, max_dim)
                consts[(i, j)] = dict(enumerate(coeffs))
                if changed:
                    break
        return cls({k: {m: c for m, c in v.items()} for k, v in consts.items()}, names=labels,
                   dim=len(basis), name=name, fields=basis)

    # -- catalogue --------------------------------------------------------------------------
    @classmethod
    def from_matrices(cls, matrices: Sequence, names: Sequence[str] | None = None,
                      name: str | None = None) -> LieAlgebra:
        r"""A matrix Lie algebra with the commutator :math:`[A, B] = AB - BA`.

        >>> A = [[1, 0], [0, 0]]; B = [[0, 1], [0, 0]]
        >>> LieAlgebra.from_matrices([A, B], names="A B").bracket("A", "B")
        (0, 1)
        """
        mats = [sp.Matrix(m) for m in matrices]
        if isinstance(names, str):
            names = names.split()
        flat = [list(m) for m in mats]
        if len(_rref_basis(flat, len(flat[0]))) != len(mats):
            raise ValueError("the matrices are linearly dependent")
        consts = {}
        for i, j in itertools.combinations(range(len(mats)), 2):
            com = mats[i] * mats[j] - mats[j] * mats[i]
            coeffs = _solve_in_span(flat, list(com))
            if coeffs is None:
                raise ValueError(f"the commutator of matrices {i} and {j} leaves their span: "
                                 "not a Lie algebra")
            consts[(i, j)] = coeffs
        return cls(consts, names=names, dim=len(mats), name=name)

    @classmethod
    def so(cls, n: int) -> LieAlgebra:
        r"""The orthogonal algebra :math:`\mathfrak{so}(n)` of skew matrices.

        For ``n = 3`` the basis is ``Lx, Ly, Lz`` with :math:`[L_i, L_j] = \varepsilon_{ijk}
        L_k`; otherwise ``Lij`` (``i < j``) is :math:`E_{ij} - E_{ji}`, with
        :math:`[L_{ij}, L_{jk}] = L_{ik}`.

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

    @classmethod
    def se(cls, n: int) -> LieAlgebra:
        r"""The Euclidean algebra :math:`\mathfrak{se}(n) = \mathfrak{so}(n) \ltimes \mathbb R^n`.

        ``se(2)``: ``J, P1, P2`` with :math:`[J, P_1] = P_2`, :math:`[J, P_2] = -P_1`.
        ``se(3)``: ``J1, J2, J3, P1, P2, P3`` with :math:`[J_i, J_j] = \varepsilon_{ijk} J_k`,
        :math:`[J_i, P_j] = \varepsilon_{ijk} P_k`, :math:`[P_i, P_j] = 0`.

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

    @classmethod
    def heisenberg(cls, n: int = 1) -> LieAlgebra:
        r"""The Heisenberg algebra :math:`\mathfrak h_{2n+1}`: :math:`[X_i, Y_i] = Z`.

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

    @classmethod
    def aff(cls, n: int = 1) -> LieAlgebra:
        r"""The affine algebra of the line, :math:`\mathfrak{aff}(1)`: :math:`[A, B] = B`.

        It is the algebra of :math:`x \mapsto a x + b` (``A`` scaling, ``B`` translation);
        solvable and not nilpotent.

        >>> LieAlgebra.aff(1).bracket("A", "B")
        (0, 1)
        """
        if n != 1:
            raise ValueError("only aff(1) is in the catalogue")
        return cls({(0, 1): {1: 1}}, names=["A", "B"], name="aff(1)")

    # -- printing ---------------------------------------------------------------------------
    def format_vector(self, vec) -> str:
        """An element as a combination of basis names, e.g. ``'2*e1 - e3'``."""
        v = self._vector(vec)
        syms = [sp.Symbol(n) for n in self.names]
        e = sp.Add(*[c * s for c, s in zip(v, syms)])
        return sp.sstr(e) if e != 0 else "0"

    def bracket_table(self) -> str:
        """Non-zero brackets ``[e_i, e_j] = ...`` for ``i < j``, one per line."""
        lines = [f"[{self.names[i]}, {self.names[j]}] = {self.format_vector(self._c[i][j])}"
                 for i, j in itertools.combinations(range(self.dim), 2)
                 if any(x != 0 for x in self._c[i][j])]
        return "\n".join(lines) if lines else "(abelian)"

    def __str__(self) -> str:
        table = self.bracket_table().replace("\n", ", ")
        return f"{self.name}: {table}" if self.name else table

    def __eq__(self, other) -> bool:
        """Equal presentations: same dimension and structure constants in the same basis."""
        if not isinstance(other, LieAlgebra):
            return NotImplemented
        return self._c == other._c

    def __hash__(self) -> int:
        return hash(self._c)

    def __repr__(self) -> str:
        label = f"{self.name!r}, " if self.name else ""
        return f"LieAlgebra({label}dim={self.dim}, basis=({', '.join(self.names)}))"

    def _repr_latex_(self) -> str:
        rows = []
        for i, j in itertools.combinations(range(self.dim), 2):
            if any(x != 0 for x in self._c[i][j]):
                rhs = sp.latex(sp.Add(*[c * sp.Symbol(n) for c, n in
                                        zip(self._c[i][j], self.names)]))
                rows.append(rf"[{self.names[i]}, {self.names[j]}] &= {rhs}")
        return r"$\begin{aligned}" + r"\\".join(rows) + r"\end{aligned}$"


# ---------------------------------------------------------------------------------------------
# constant / function coefficients of fields
# ---------------------------------------------------------------------------------------------
def _coordinate_like(M, exprs) -> tuple[list, dict]:
    """Rewrite expressions for exact evaluation: jets and half-angle tangents become symbols.

    Returns the rewritten expressions and the symbols to be sampled (coordinates of ``M``,
    their half-angle variables and jet variables); other symbols (parameters) stay symbolic.
    """
    from geomech.core.zero import half_angle_symbol, is_auxiliary_symbol, rational_rewrite

    out = [rational_rewrite(e) for e in exprs]
    coords = set(M.coords)
    half_angles = {half_angle_symbol(c) for c in coords}
    sample = set()
    for e in out:
        for s in e.free_symbols:
            if s in coords or s in half_angles or is_auxiliary_symbol(s, "jet"):
                sample.add(s)
    return out, sorted(sample, key=sp.default_sort_key)


def _evaluation_system(fields: Sequence[VectorField], target: Sequence | None, npoints: int):
    """Stack ``F(p) c = b(p)`` at random exact points ``p`` (parameters stay symbolic)."""
    M = fields[0].manifold
    n, k = M.dim, len(fields)
    flat = [f.components[i] for i in range(n) for f in fields]
    tgt = list(target) if target is not None else [0] * n
    rew, sample = _coordinate_like(M, flat + tgt)
    fmat, bvec = rew[:n * k], rew[n * k:]
    rows, rhs = [], []
    pol = default_policy()
    tries = 0
    while len(rows) < npoints * n and tries < 4 * npoints:
        tries += 1
        pt = pol.random_point(sample)
        vals = [e.xreplace(pt) for e in fmat]
        bv = [e.xreplace(pt) for e in bvec]
        if any(v.has(sp.zoo, sp.nan, sp.oo) for v in vals + bv):
            continue
        for i in range(n):
            rows.append(vals[i * k:(i + 1) * k])
            rhs.append(bv[i])
    return sp.Matrix(rows), sp.Matrix(rhs)


class _ConstantSolver:
    """Constant coefficients of targets in a fixed list of fields, with one factorisation.

    The fields are evaluated once at random exact points; ``k`` independent rows of the
    stacked system are kept and inverted.  Each target is evaluated on those rows only, and
    the candidate coefficients are confirmed symbolically (zero policy).
    """

    def __init__(self, fields: Sequence[VectorField]):
        self.fields = list(fields)
        self.M = self.fields[0].manifold
        n, k = self.M.dim, len(self.fields)
        flat = [f.components[i] for i in range(n) for f in self.fields]
        rew, self.sample = _coordinate_like(self.M, flat)
        pol = default_policy()
        self.points, rows, where = [], [], []
        tries = 0
        while len(self.points) < k + 2 and tries < 4 * (k + 2):
            tries += 1
            pt = pol.random_point(self.sample)
            vals = [e.xreplace(pt) for e in rew]
            if any(v.has(sp.zoo, sp.nan, sp.oo) for v in vals):
                continue
            for i in range(n):
                rows.append(vals[i * k:(i + 1) * k])
                where.append((len(self.points), i))
            self.points.append(pt)
        a = sp.Matrix(rows)
        _, pivots = a.T.rref(iszerofunc=pol.is_zero, simplify=False)
        self.where = [where[r] for r in pivots]
        self.inverse = a.extract(list(pivots), list(range(k))).inv() if len(pivots) == k \
            else None

    def solve(self, target: VectorField) -> tuple | None:
        if self.inverse is None:  # degenerate sample: fall back to the general routine
            return constant_coefficients(self.fields, target)
        comps, _ = _coordinate_like(self.M, target.components)
        b = sp.Matrix([comps[i].xreplace(self.points[p]) for p, i in self.where])
        if any(v.has(sp.zoo, sp.nan, sp.oo) for v in b):
            return constant_coefficients(self.fields, target)
        c = tuple(_norm(x) for x in self.inverse * b)
        pol = default_policy()
        for i in range(self.M.dim):
            res = target.components[i] - sum(ci * f.components[i]
                                             for ci, f in zip(c, self.fields) if ci != 0)
            if not pol.is_zero(res):
                return None
        return c


def _constant_dependency(fields: Sequence[VectorField]) -> tuple | None:
    """A non-trivial constant relation ``sum c_i X_i = 0`` or ``None`` if independent."""
    a, _ = _evaluation_system(fields, None, len(fields) + 2)
    ns = a.nullspace(iszerofunc=default_policy().is_zero, simplify=False)
    if not ns:
        return None
    c = [_norm(x) for x in ns[0]]
    M = fields[0].manifold
    combo = [_norm(sum(ci * f.components[i] for ci, f in zip(c, fields))) for i in range(M.dim)]
    if all(default_policy().is_zero(x) for x in combo):
        return tuple(c)
    return None  # the sample was degenerate; the fields are independent


def constant_coefficients(fields: Sequence[VectorField], target: VectorField) -> tuple | None:
    r"""Constants :math:`c_k` with ``target`` :math:`= \sum_k c_k X_k` identically, or ``None``.

    "Constant" means independent of the coordinates (parameters may appear).  The
    coefficients are found from exact evaluations at random points and then confirmed
    symbolically by the zero policy.

    >>> from geomech.core import Manifold
    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> X, Y = M.vector_field([1, y]), M.vector_field([0, 1])
    >>> constant_coefficients([X, Y], M.vector_field([2, 2*y - 3]))
    (2, -3)
    """
    M = check_same_manifold(*fields, target)
    a, b = _evaluation_system(fields, target.components, len(fields) + 2)
    try:
        sol, params = a.gauss_jordan_solve(b)
    except ValueError:
        return None
    if params.shape[0]:
        sol = sol.xreplace({p: 0 for p in params})
    c = tuple(_norm(x) for x in sol)
    pol = default_policy()
    for i in range(M.dim):
        res = target.components[i] - sum(ci * f.components[i] for ci, f in zip(c, fields))
        if not pol.is_zero(res):
            return None
    return c


def function_coefficients(fields: Sequence[VectorField], target: VectorField) -> tuple | None:
    r"""Functions :math:`f_k` with ``target`` :math:`= \sum_k f_k X_k` (span over functions).

    Returns ``None`` when ``target`` is not in the span.  When the fields are dependent over
    functions, the coefficients of a maximal independent subset are returned (zeros
    elsewhere).

    >>> from geomech.core import Manifold
    >>> M = Manifold("M", "x y"); x, y = M.coords
    >>> function_coefficients([M.vector_field([0, x])], M.vector_field([0, 1]))
    (1/x,)
    """
    M = check_same_manifold(*fields, target)
    pol = default_policy()
    cols = []
    for idx, f in enumerate(fields):
        trial = [fields[i] for i in cols] + [f]
        mat = sp.Matrix([list(g.components) for g in trial]).T
        if pol.rank(mat) == len(trial):
            cols.append(idx)
    base = sp.Matrix([list(fields[i].components) for i in cols]).T if cols else sp.zeros(M.dim, 0)
    if not cols:
        return tuple([0] * len(fields)) if target.is_zero() else None
    aug = base.row_join(sp.Matrix(target.components))
    if pol.rank(aug) != len(cols):
        return None
    # solve on a non-singular square minor
    rows = []
    for r in range(M.dim):
        trial = rows + [r]
        if pol.rank(base.extract(trial, list(range(len(cols))))) == len(trial):
            rows.append(r)
        if len(rows) == len(cols):
            break
    sub = base.extract(rows, list(range(len(cols))))
    rhs = sp.Matrix([target.components[r] for r in rows])
    sol = sub.LUsolve(rhs)
    out = [sp.S.Zero] * len(fields)
    for i, c in zip(cols, sol):
        out[i] = sp.factor(_norm(c))
    return tuple(out)


def _not_closed_error(basis, labels, i, j, b, close, max_dim) -> NotALieAlgebraError:
    pair = (labels[i], labels[j])
    if close:
        return NotALieAlgebraError(
            f"the brackets of the fields do not close within dimension {max_dim}: "
            f"[{pair[0]}, {pair[1]}] = {b} is new again (not finite-dimensional?)",
            pair=pair, bracket=b)
    fc = function_coefficients(basis, b)
    if fc is not None:
        combo = " + ".join(f"{sp.sstr(c)} * {n}" for c, n in zip(fc, labels) if c != 0)
        return NotALieAlgebraError(
            f"[{pair[0]}, {pair[1]}] = {b} is not a constant combination of the fields; it "
            f"equals {combo}: the coefficients are functions (structure functions), so the "
            "fields span a distribution but not a Lie algebra of fields (use close=True to "
            "add the bracket as a new element)", pair=pair, bracket=b, coefficients=fc)
    return NotALieAlgebraError(
        f"[{pair[0]}, {pair[1]}] = {b} is not in the span of the fields (not even over "
        "functions); use close=True to add it as a new element", pair=pair, bracket=b)
