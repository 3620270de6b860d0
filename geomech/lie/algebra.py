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
from geomech.lie import catalogue
from geomech.lie.coefficients import (
    ConstantSolver,
    constant_dependency,
    function_coefficients,
    vector_fields,
)
from geomech.lie.structure import StructureTheory
from geomech.lie.subspace import normalized

__all__ = ["LieAlgebra", "NotALieAlgebraError"]


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


class LieAlgebra(StructureTheory):
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
            c = [[tuple(normalized(arr[i, j, k]) for k in range(dim)) for j in range(dim)]
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
            c[j][i] = tuple(normalized(-x) for x in vec)
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
            return tuple(normalized(x) for x in out)
        if isinstance(v, sp.MatrixBase):
            v = list(v)
        if isinstance(v, Sequence):
            if len(v) != self.dim:
                raise ValueError(f"a vector of {self._label()} has {self.dim} coordinates, "
                                 f"got {len(v)}")
            return tuple(normalized(x) for x in v)
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
        return tuple(normalized(x) for x in out)

    def structure_constants(self) -> sp.ImmutableDenseNDimArray:
        r"""The array ``C[i, j, k]`` :math:`= c^k_{ij}`, :math:`[e_i,e_j] = \sum_k c^k_{ij} e_k`."""
        d = self.dim
        return sp.ImmutableDenseNDimArray(
            [self._c[i][j][k] for i in range(d) for j in range(d) for k in range(d)], (d, d, d))

    def ad(self, a) -> sp.Matrix:
        r"""Matrix of :math:`\mathrm{ad}_a = [a, \cdot]` in the basis (columns: images)."""
        cols = [self.bracket(a, j) for j in range(self.dim)]
        return sp.Matrix(self.dim, self.dim, lambda k, j: cols[j][k])

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
        return tuple(normalized(sum(t[m] for t in terms)) for m in range(self.dim))

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
        basis, M = vector_fields(fields, "the fields of a Lie algebra")
        labels = _labels_of_independent(basis, names)
        consts = _structure_constants_of_fields(basis, labels, close, max_dim)
        return cls(consts, names=labels, dim=len(basis), name=name, fields=basis)

    # -- catalogue (geomech.lie.catalogue) -------------------------------------------------
    from_matrices = classmethod(catalogue.from_matrices)
    so = classmethod(catalogue.so)
    se = classmethod(catalogue.se)
    heisenberg = classmethod(catalogue.heisenberg)
    aff = classmethod(catalogue.aff)

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


def _labels_of_independent(basis: list[VectorField], names) -> list[str]:
    """Names of the fields (default ``X1, X2, ...``), after checking that no constant
    combination of them vanishes (a basis of a Lie algebra of fields)."""
    labels = list(names) if names is not None else [f"X{i + 1}" for i in range(len(basis))]
    if len(labels) != len(basis):
        raise ValueError(f"{len(labels)} names given for {len(basis)} fields")
    dep = constant_dependency(basis)
    if dep is not None:
        raise ValueError(
            "the fields are linearly dependent over the constants: "
            + " + ".join(f"({sp.sstr(c)})*{n}" for c, n in zip(dep, labels) if c != 0)
            + " = 0")
    return labels


def _structure_constants_of_fields(basis: list[VectorField], labels: list[str], close: bool,
                                   max_dim: int) -> dict:
    r"""``{(i, j): {k: c^k_ij}}`` with :math:`[X_i, X_j] = \sum_k c^k_{ij} X_k`, brackets
    from the manifold's bracket graph.  With ``close``, a bracket outside the constant span
    becomes a new basis element (``basis`` and ``labels`` grow in place) and the pairs are
    run again; otherwise it raises :class:`NotALieAlgebraError`."""
    from geomech.lie.graph import BracketGraph

    G = BracketGraph.of(basis[0].manifold)
    consts: dict = {}
    done: set = set()
    solver = ConstantSolver(basis)
    changed = True
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
                if not (close and len(basis) < max_dim):
                    raise _not_closed_error(basis, labels, i, j, b, close, max_dim)
                basis.append(b)
                labels.append(f"[{labels[i]},{labels[j]}]")
                solver = ConstantSolver(basis)
                coeffs = (0,) * (len(basis) - 1) + (1,)
                changed = True
            consts[(i, j)] = dict(enumerate(coeffs))
            if changed:
                break
    return consts


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
