r"""Almost-Poisson structures and their Jacobiator.

An *almost-Poisson structure* on a chart is a skew matrix :math:`J(x)` (a bivector); its
bracket is :math:`\{F,G\} = \nabla F^T J\,\nabla G` and the Hamiltonian field of ``H`` is
:math:`\dot x = J\nabla H`.  ``J`` is Poisson iff its Jacobiator (the Schouten bracket
:math:`[J,J]` up to a factor) vanishes:

.. math:: \mathrm{Jac}^{ijk} = \sum_l \big(J^{il}\partial_l J^{jk} + J^{jl}\partial_l J^{ki}
          + J^{kl}\partial_l J^{ij}\big) = \{x_i,\{x_j,x_k\}\} + \text{cyclic}

(Borisov & Mamaev (2015), App. C.1).

Examples
--------
>>> import sympy as sp
>>> from geomech.core.manifold import Manifold
>>> P = Manifold("P", "q p"); q, p = P.coords
>>> J = AlmostPoissonStructure(P, [[0, 1], [-1, 0]])
>>> J.hamiltonian_vector_field((p**2 + q**2)/2)
VectorField(P, [p, -q])
>>> J.satisfies_jacobi()
True
"""

from __future__ import annotations

import itertools

import sympy as sp

from geomech.core.algebra import UnsupportedExpression
from geomech.core.algebra.calculus import FactoredCalculus, has_radicals
from geomech.core.algebra.normal_form import compact
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy, is_zero
from geomech.core.zero.radicals import ring_nonzero
from geomech.lie.graph import BracketGraph

__all__ = ["AlmostPoissonStructure"]


class AlmostPoissonStructure:
    r"""A skew-symmetric matrix :math:`J(x)` on a chart: an almost-Poisson bivector.

    Parameters
    ----------
    manifold : Manifold
    matrix : square matrix (nested sequences or sympy Matrix)
        Must be skew-symmetric (checked with the zero policy).
    normal_form : bool
        Bring each entry to compact form (:func:`~geomech.core.algebra.normal_form.compact`);
        ``False``: the entries are taken as they are (a matrix built from entries in
        compact form already, as Prop. 7's).

    Examples
    --------
    >>> import sympy as sp
    >>> M = Manifold("M", "x y z"); x, y, z = M.coords
    >>> Jso3 = AlmostPoissonStructure(M, [[0, z, -y], [-z, 0, x], [y, -x, 0]])
    >>> Jso3.satisfies_jacobi()
    True
    >>> Jso3.bracket(x, y)
    z
    """

    def __init__(self, manifold: Manifold, matrix, normal_form: bool = True):
        if not isinstance(manifold, Manifold):
            raise TypeError(f"expected a Manifold, got {type(manifold).__name__}")
        J = sp.Matrix(matrix)
        n = manifold.dim
        if J.shape != (n, n):
            raise ValueError(f"the bivector matrix must be {n}x{n} on {manifold.name}, "
                             f"got {J.shape[0]}x{J.shape[1]}")
        J = J.applyfunc(lambda e: compact(manifold.sympify(e)) if normal_form
                        else manifold.sympify(e))
        for i in range(n):
            for j in range(i, n):
                if J[i, j] == -J[j, i]:
                    continue
                if not is_zero(J[i, j] + J[j, i]):
                    raise ValueError(f"the matrix is not skew-symmetric: J[{i},{j}] = {J[i, j]},"
                                     f" J[{j},{i}] = {J[j, i]}")
        self.manifold = manifold
        self.matrix = J

    def __repr__(self) -> str:
        return f"AlmostPoissonStructure({self.manifold.name}, {self.matrix.tolist()})"

    def gradient(self, H) -> sp.Matrix:
        """Column of partial derivatives of ``H`` in the chart coordinates."""
        H = self.manifold.sympify(H)
        return sp.Matrix([sp.diff(H, x) for x in self.manifold.coords])

    def bracket(self, F, G) -> sp.Expr:
        r"""The bracket :math:`\{F, G\} = \nabla F^T J \nabla G`."""
        return default_policy().normalize((self.gradient(F).T * self.matrix
                                           * self.gradient(G))[0, 0])

    def hamiltonian_vector_field(self, H) -> VectorField:
        r"""The field :math:`\dot x = J\nabla H`, i.e. :math:`\dot x^i = \{x^i, H\}`."""
        return VectorField(self.manifold, list(self.matrix * self.gradient(H)))

    def jacobiator_component(self, i, j, k) -> sp.Expr:
        r""":math:`\mathrm{Jac}^{ijk} = \sum_l (J^{il}\partial_l J^{jk} + J^{jl}\partial_l J^{ki}
        + J^{kl}\partial_l J^{ij})`; indices or coordinate symbols."""
        i, j, k = (self.manifold.index(a) if not isinstance(a, int) else a for a in (i, j, k))
        return compact(self._jacobiator_sum(i, j, k))

    def _jacobiator_sum(self, i: int, j: int, k: int) -> sp.Expr:
        J, X = self.matrix, self.manifold.coords
        terms = []
        for m in range(len(X)):
            for a, (b, c) in ((J[i, m], (j, k)), (J[j, m], (k, i)), (J[k, m], (i, j))):
                if a != 0 and J[b, c] != 0 and J[b, c].has(X[m]):
                    terms.append(a * self._partial(b, c, m))
        return sp.Add(*terms)

    def _partial(self, b: int, c: int, m: int) -> sp.Expr:
        cache = self.__dict__.setdefault("_dcache", {})
        key = (b, c, m)
        if key not in cache:
            cache[key] = sp.diff(self.matrix[b, c], self.manifold.coords[m])
        return cache[key]

    def _jacobiator_items(self, cheap_first: bool = False, values: bool = True):
        r"""Lazily: ``((x_i, x_j, x_k), sum)`` for the components that do not vanish (exact
        ring zero test of the unsimplified sum, the zero policy when undecided).

        With :math:`X_i = J e_i` the Hamiltonian field of :math:`x^i` (columns of ``J``),
        :math:`\mathrm{Jac}^{ijk} = [X_i, X_j]^k + (J\nabla J^{ij})^k` (this is
        :math:`\{x^i,\{x^j,x^k\}\} + \text{cyclic}` written out); the brackets of columns
        that are (trigonometric) polynomials come from the bracket graph of the chart.  For
        the other columns the sum is formed term by term: the graph normalises whole
        brackets of rational functions, which measured ~10x slower for this test.
        ``cheap_first`` visits the pairs of polynomial columns first (for an early stop).
        Matrices with square roots are summed in the ring (:class:`_RingJacobiator`);
        ``values=False`` yields ``None`` for their values (the test needs none)."""
        X = self.manifold.coords
        n = len(X)
        if not values and has_radicals(self.matrix):
            hit = self._specialised_witness()
            if hit is not None:
                yield hit, None
                return
        ring = self._ring_jacobiator()
        if ring is not None:
            for i, j, k in itertools.combinations(range(n), 3):
                nd = ring.component(i, j, k)
                if not ring.is_zero(nd):
                    yield (X[i], X[j], X[k]), ring.fc.expr(nd) if values else None
            return
        G = BracketGraph.of(self.manifold)
        cols = [VectorField(self.manifold, list(self.matrix.col(i))) for i in range(n)]
        pairs = list(itertools.combinations(range(n - 1), 2))
        ring = {(i, j): bool(cols[i].ring_form() and cols[j].ring_form()) for i, j in pairs}
        if cheap_first:
            pairs.sort(key=lambda ij: not ring[ij])
        for i, j in pairs:
            ks = range(j + 1, n)
            if ring[(i, j)]:
                br = G.bracket(cols[i], cols[j]).components
                Jij = self.matrix[i, j]
                ham = self.matrix * self.gradient(Jij) if Jij != 0 else sp.zeros(n, 1)
                sums = (br[k] + ham[k] for k in ks)
            else:
                sums = (self._jacobiator_sum(i, j, k) for k in ks)
            for k, e in zip(ks, sums):
                if e != 0 and not is_zero(e):
                    yield (X[i], X[j], X[k]), e

    def _ring_jacobiator(self) -> _RingJacobiator | None:
        """The ring Jacobiator for matrices with square roots (``None`` otherwise, or when
        the entries leave the ring)."""
        if not has_radicals(self.matrix):
            return None
        try:
            return _RingJacobiator(self.matrix, self.manifold.coords)
        except UnsupportedExpression:
            return None

    def _specialised_witness(self) -> tuple | None:
        r"""A component proved non-zero with the parameters at a random rational point, or
        ``None``.  The parameters are constants: specialising them commutes with
        :math:`\partial_l` and with the ring operations, so a certainly non-zero specialised
        component is a non-zero component (a zero one proves nothing: the caller goes on
        with the general computation)."""
        X = self.manifold.coords
        params = sorted(self.matrix.free_symbols - set(X), key=sp.default_sort_key)
        if not params:
            return None
        pt = default_policy().random_point(params)
        n, J = len(X), self.matrix
        upper = sp.zeros(n, n)        # the ring reads the upper triangle only: J is skew
        for i in range(n):
            for j in range(i + 1, n):
                upper[i, j] = J[i, j].xreplace(pt)
        try:
            ring = _RingJacobiator(upper, X)
            for i, j, k in itertools.combinations(range(len(X)), 3):
                nd = ring.component(i, j, k)
                if nd[0] and ring_nonzero(ring.fc, nd[0]):
                    return X[i], X[j], X[k]
        except (UnsupportedExpression, ZeroDivisionError):
            return None
        return None

    def jacobiator(self) -> dict:
        """Non-vanishing Jacobiator components ``{(x_i, x_j, x_k): value}`` for ``i<j<k``.

        The Jacobiator is totally skew, so these determine it (it is the Schouten bracket
        ``[J, J]`` up to a constant factor)."""
        if "_jac" not in self.__dict__:
            self.__dict__["_jac"] = {key: compact(e) for key, e in self._jacobiator_items()}
        return dict(self._jac)

    def satisfies_jacobi(self) -> bool:
        """Whether the Jacobi identity holds identically (``J`` is Poisson); stops at the
        first non-vanishing component.  With square roots in ``J`` a component proved
        non-zero at random rational values of the constants answers first
        (:meth:`_specialised_witness`; exact, not probabilistic)."""
        if "_jac" in self.__dict__:
            return not self._jac
        return next(self._jacobiator_items(cheap_first=True, values=False), None) is None

    is_poisson = satisfies_jacobi

    def rank(self) -> int:
        """Generic rank of ``J`` (zero policy)."""
        return default_policy().rank(self.matrix)

    def kernel(self) -> list[sp.Matrix]:
        """A basis of the covectors annihilated by ``J`` (over the functions)."""
        return default_policy().nullspace(self.matrix)

    def is_casimir(self, C) -> bool:
        """Whether ``J∇C ≡ 0``."""
        return self.hamiltonian_vector_field(C).is_zero()


class _RingJacobiator:
    r"""The Jacobiator of a matrix with square roots, summed in the ring of
    :class:`~geomech.core.algebra.calculus.FactoredCalculus` (entries as numerators over
    products of known factors, derivatives in the ring, skew by construction:
    :math:`J^{ji} = -J^{ij}`); a component is zero iff its reduced numerator is, non-zero
    when the norm of the quadratic extensions does not vanish
    (:func:`~geomech.core.zero.radicals.ring_nonzero`), the zero
    policy otherwise."""

    def __init__(self, J: sp.Matrix, X):
        n = len(X)
        upper = {(i, j): J[i, j] for i in range(n) for j in range(i + 1, n) if J[i, j] != 0}
        self.fc = FactoredCalculus(list(upper.values()))
        self.X, self.fr, self.live, self._d = X, {}, {}, {}
        for (i, j), e in upper.items():
            f = self.fc.frac(e)
            self.fr[(i, j)], self.fr[(j, i)] = f, (-f[0], f[1])
            free = e.free_symbols
            self.live[(i, j)] = self.live[(j, i)] = {m for m, x in enumerate(X) if x in free}

    def _partial(self, b: int, c: int, m: int) -> tuple:
        key = (b, c, m)
        if key not in self._d:
            self._d[key] = self.fc.diff(self.fr[(b, c)], self.X[m])
        return self._d[key]

    def component(self, i: int, j: int, k: int) -> tuple:
        r""":math:`\mathrm{Jac}^{ijk}` as a fraction ``(n, e)`` of the calculus."""
        fc = self.fc
        acc = (fc.R.zero, tuple(0 for _ in fc.factors))
        for m in range(len(self.X)):
            for a, (b, c) in (((i, m), (j, k)), ((j, m), (k, i)), ((k, m), (i, j))):
                if a in self.fr and m in self.live.get((b, c), ()):
                    acc = fc.add(acc, fc.mul(self.fr[a], self._partial(b, c, m)))
        return acc

    def is_zero(self, nd: tuple) -> bool:
        """Exact in the ring; the zero policy only when the norm does not decide."""
        if not nd[0]:
            return True
        if ring_nonzero(self.fc, nd[0]):
            return False
        return is_zero(self.fc.expr(nd))

