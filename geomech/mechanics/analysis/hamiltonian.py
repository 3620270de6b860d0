r"""Almost-Poisson structures, pseudo-Hamiltonian forms and conformal Hamiltonisation.

An *almost-Poisson structure* on a chart is a skew matrix :math:`J(x)` (a bivector); its
bracket is :math:`\{F,G\} = \nabla F^T J\,\nabla G` and the Hamiltonian field of ``H`` is
:math:`\dot x = J\nabla H`.  ``J`` is Poisson iff its Jacobiator (the Schouten bracket
:math:`[J,J]` up to a factor) vanishes:

.. math:: \mathrm{Jac}^{ijk} = \sum_l \big(J^{il}\partial_l J^{jk} + J^{jl}\partial_l J^{ki}
          + J^{kl}\partial_l J^{ij}\big) = \{x_i,\{x_j,x_k\}\} + \text{cyclic}.

:func:`pseudo_hamiltonian_form` builds the pseudo-Hamiltonian form of a nonholonomic system
(Borisov & Mamaev (2015), App. C.1, Prop. 7; Borisov & Mamaev (2015, Russian Math. Surveys),
(6)-(7)) in an adapted frame :math:`(\tau_s, a_\mu)`:
momenta :math:`M_s = \partial L^*/\partial\omega_s`, :math:`H = M\omega - L^*`,
:math:`p_\mu = (\partial\tilde L/\partial w_\mu)^*`,

.. math:: J = \begin{pmatrix}0 & T^T\\ -T & -\Pi\end{pmatrix},\qquad
          \Pi_{sr} = \sum_t c^t_{sr}M_t + \sum_\mu d^\mu_{sr}\,p_\mu ,\qquad
          [\tau_s,\tau_r] = c^t_{sr}\tau_t + d^\mu_{sr}a_\mu .

The Jacobi identity holds iff the constraints are holonomic (all :math:`d \equiv 0`).
:func:`reduced_pseudo_hamiltonian` is Prop. 8 (after Chaplygin reduction),
:func:`chaplygin_multiplier` the reducing multiplier for two degrees of freedom (§3.12),
:func:`conformal_symmetry`, :func:`conformal_factor` and :func:`is_conformal_symmetry_distribution`
the conformal symmetries of §1.5 / App. D.

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
from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy as sp

from geomech.core.algebra import UnsupportedExpression
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.lie.graph import BracketGraph
from geomech.mechanics.analysis.integrals import _check_field, fast_is_zero, solve_constant_linear
from geomech.mechanics.equations.common import compact, solve_linear
from geomech.mechanics.equations.hamel import frame_inverse
from geomech.mechanics.equations.heavy import coframe_structure_functions, has_radicals

__all__ = [
    "AlmostPoissonStructure", "PoissonBivector", "PseudoHamiltonianForm",
    "pseudo_hamiltonian_form", "frame_structure_functions", "reduced_pseudo_hamiltonian",
    "chaplygin_gyroscopic_matrix", "chaplygin_multiplier", "ReducingMultiplier",
    "conformal_symmetry", "conformal_factor", "ConformalFactor",
    "is_conformal_symmetry_distribution", "system_pseudo_hamiltonian",
    "system_chaplygin_pseudo_hamiltonian", "system_is_conformally_hamiltonian",
]


class AlmostPoissonStructure:
    r"""A skew-symmetric matrix :math:`J(x)` on a chart: an almost-Poisson bivector.

    Parameters
    ----------
    manifold : Manifold
    matrix : square matrix (nested sequences or sympy Matrix)
        Must be skew-symmetric (checked with the zero policy).

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

    def __init__(self, manifold: Manifold, matrix):
        if not isinstance(manifold, Manifold):
            raise TypeError(f"expected a Manifold, got {type(manifold).__name__}")
        J = sp.Matrix(matrix)
        n = manifold.dim
        if J.shape != (n, n):
            raise ValueError(f"the bivector matrix must be {n}x{n} on {manifold.name}, "
                             f"got {J.shape[0]}x{J.shape[1]}")
        J = J.applyfunc(lambda e: compact(manifold.sympify(e)))
        for i in range(n):
            for j in range(i, n):
                if J[i, j] == -J[j, i]:
                    continue
                if not fast_is_zero(J[i, j] + J[j, i]):
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

    def _jacobiator_items(self, cheap_first: bool = False):
        r"""Lazily: ``((x_i, x_j, x_k), sum)`` for the components that do not vanish (exact
        ring zero test of the unsimplified sum, the zero policy when undecided).

        With :math:`X_i = J e_i` the Hamiltonian field of :math:`x^i` (columns of ``J``),
        :math:`\mathrm{Jac}^{ijk} = [X_i, X_j]^k + (J\nabla J^{ij})^k` (this is
        :math:`\{x^i,\{x^j,x^k\}\} + \text{cyclic}` written out); the brackets of columns
        that are (trigonometric) polynomials come from the bracket graph of the chart.  For
        the other columns the sum is formed term by term: the graph normalises whole
        brackets of rational functions, which measured ~10x slower for this test.
        ``cheap_first`` visits the pairs of polynomial columns first (for an early stop)."""
        X = self.manifold.coords
        n = len(X)
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
                if e != 0 and not fast_is_zero(e):
                    yield (X[i], X[j], X[k]), e

    def jacobiator(self) -> dict:
        """Non-vanishing Jacobiator components ``{(x_i, x_j, x_k): value}`` for ``i<j<k``.

        The Jacobiator is totally skew, so these determine it (it is the Schouten bracket
        ``[J, J]`` up to a constant factor)."""
        if "_jac" not in self.__dict__:
            self.__dict__["_jac"] = {key: compact(e) for key, e in self._jacobiator_items()}
        return dict(self._jac)

    def satisfies_jacobi(self) -> bool:
        """Whether the Jacobi identity holds identically (``J`` is Poisson); stops at the
        first non-vanishing component."""
        if "_jac" in self.__dict__:
            return not self._jac
        return next(self._jacobiator_items(cheap_first=True), None) is None

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


PoissonBivector = AlmostPoissonStructure


# ---------------------------------------------------------------------------------------
# frames and structure functions
# ---------------------------------------------------------------------------------------
def frame_structure_functions(coords: Sequence[sp.Symbol], tau: Sequence[Sequence],
                              transversal: Sequence[Sequence], manifold: Manifold | None = None):
    r"""Structure functions of an adapted frame (Borisov & Mamaev (2015), (3.11)).

    :math:`[\tau_s, \tau_r] = \sum_t c^t_{sr}\tau_t + \sum_\mu d^\mu_{sr} a_\mu`.
    Returns ``(c, d)`` with ``c[s][r][t]`` and ``d[s][r][mu]``.  The brackets are taken in
    the bracket graph of ``manifold`` (a chart with coordinates ``coords``; default a new
    chart).

    >>> x, y, phi = sp.symbols("x y phi")
    >>> c, d = frame_structure_functions([x, y, phi], [[sp.cos(phi), sp.sin(phi), 0],
    ...                                   [0, 0, 1]], [[-sp.sin(phi), sp.cos(phi), 0]])
    >>> d[0][1]
    [-1]
    """
    pol = default_policy()
    if manifold is None:
        manifold = Manifold("frame", list(coords))
    elif tuple(manifold.coords) != tuple(coords):
        raise ValueError(f"the chart {manifold.name} does not have the coordinates {coords}")
    tau = [[as_expr(c) for c in t] for t in tau]
    transversal = [[as_expr(c) for c in a] for a in transversal]
    n = len(coords)
    if any(len(t) != n for t in [*tau, *transversal]):
        raise ValueError(f"every frame field needs {n} components")
    E = sp.Matrix.hstack(*[sp.Matrix(t) for t in [*tau, *transversal]])
    if E.shape != (n, n):
        raise ValueError(f"the frame has {E.cols} fields; {n} are needed "
                         "(tangent fields plus transversal ones)")
    if pol.rank(E) < n:
        raise ValueError("the frame (tangent plus transversal fields) is singular")
    m = len(tau)
    G = BracketGraph.of(manifold)
    fields = [VectorField(manifold, t) for t in tau]
    c = [[[sp.S.Zero] * m for _ in range(m)] for _ in range(m)]
    d = [[[sp.S.Zero] * len(transversal) for _ in range(m)] for _ in range(m)]
    cartan = _cartan_structure(E, fields, coords, m) if has_radicals(E) else None
    for s in range(m):
        for r in range(s + 1, m):
            if cartan is not None:      # frames with square roots (rolling ellipsoid)
                co = cartan[(s, r)]
            else:
                br = sp.Matrix(G.bracket(fields[s], fields[r]).components)
                if all(b == 0 for b in br):
                    continue
                # E co = [tau_s, tau_r]: exact ring solve (no inverse of E, no cancel)
                co = solve_linear(E, br, what="frame matrix")
            for t in range(m):
                c[s][r][t], c[r][s][t] = co[t], -co[t]
            for mu in range(len(transversal)):
                d[s][r][mu], d[r][s][mu] = co[m + mu], -co[m + mu]
    return c, d


def _cartan_structure(E: sp.Matrix, fields, coords, m: int) -> dict | None:
    """Structure functions of a frame with square roots from its coframe (Cartan's formula,
    :func:`~geomech.mechanics.equations.heavy.coframe_structure_functions`), or ``None``."""
    Einv, det = frame_inverse(E)
    if Einv is None:
        return None
    pairs = [(s, r) for s in range(m) for r in range(s + 1, m)]
    try:
        return coframe_structure_functions([list(E[:, j]) for j in range(E.cols)], Einv,
                                           coords, pairs)
    except UnsupportedExpression:
        return None


def _legendre(Lstar, omegas, momenta):
    """Solve ``M = dL*/dω`` for ω; return (dict ω -> expr in M, Hessian)."""
    pol = default_policy()
    grads = [sp.expand(sp.diff(Lstar, w)) for w in omegas]
    K = sp.Matrix([[sp.diff(g, w) for w in omegas] for g in grads])
    degenerate = ValueError("the restricted Lagrangian L* is degenerate in the "
                            "quasi-velocities (det d2L*/domega2 vanishes identically)")
    if not any(e.has(*omegas) for e in K):
        # quadratic L*: one exact ring solve K omega = M - h
        h = sp.Matrix([g.xreplace({w: 0 for w in omegas}) for g in grads])
        try:
            sol = solve_linear(K, sp.Matrix(momenta) - h, what="Legendre map")
        except ValueError:
            raise degenerate from None
        return {w: e for w, e in zip(omegas, sol)}, K
    if pol.rank(K) < len(omegas):
        raise degenerate
    sol = sp.solve([sp.Eq(Mv, g) for Mv, g in zip(momenta, grads)], omegas, dict=True)
    if len(sol) != 1:
        raise ValueError("the Legendre map of L* could not be inverted uniquely")
    return {w: pol.normalize(sol[0][w]) for w in omegas}, K


@dataclass
class PseudoHamiltonianForm:
    r"""The pseudo-Hamiltonian form :math:`\dot x = J(x)\nabla H` of a nonholonomic system.

    Attributes
    ----------
    structure : AlmostPoissonStructure
        ``J`` on the chart ``(q, M)``.
    hamiltonian : expression
        ``H(q, M)``.
    momenta : tuple of symbols
        The momenta ``M_s``.
    quasi_velocities : dict
        ``{ω_s: expression in (q, M)}`` (inverse Legendre map).
    momentum_of : dict
        ``{M_s: expression in (q, ω)}``.
    frame, transversal : tuples of component lists
    c, d : structure functions of the frame
    transversal_momenta : tuple
        ``p_μ(q, M)``.
    """

    structure: AlmostPoissonStructure
    hamiltonian: sp.Expr
    momenta: tuple
    quasi_velocities: dict
    momentum_of: dict
    frame: tuple = ()
    transversal: tuple = ()
    c: list = field(default_factory=list)
    d: list = field(default_factory=list)
    transversal_momenta: tuple = ()

    @property
    def manifold(self) -> Manifold:
        return self.structure.manifold

    @property
    def matrix(self) -> sp.Matrix:
        return self.structure.matrix

    def vector_field(self) -> VectorField:
        """The field :math:`J\\nabla H` on the chart ``(q, M)``."""
        return self.structure.hamiltonian_vector_field(self.hamiltonian)

    def jacobiator(self) -> dict:
        return self.structure.jacobiator()

    def satisfies_jacobi(self) -> bool:
        """Jacobi identity of ``J`` (holds iff the constraints are holonomic)."""
        return self.structure.satisfies_jacobi()

    def to_velocities(self, field_or_expr, omegas_as=None):
        """Rewrite an expression (or the ``q`` components of a field) with ``M = M(q, ω)``."""
        rep = dict(self.momentum_of)
        if isinstance(field_or_expr, VectorField):
            return [default_policy().normalize(as_expr(c).xreplace(rep))
                    for c in field_or_expr.components]
        return default_policy().normalize(as_expr(field_or_expr).xreplace(rep))


def pseudo_hamiltonian_form(coords: Sequence[sp.Symbol], velocities: Sequence[sp.Symbol],
                            lagrangian, frame: Sequence[Sequence],
                            transversal: Sequence[Sequence] = (),
                            momenta: Sequence | str | None = None,
                            parameters: Sequence[sp.Symbol] = (),
                            quasi_velocities: Sequence[sp.Symbol] | None = None,
                            name: str = "pseudo_hamiltonian",
                            manifold: Manifold | None = None) -> PseudoHamiltonianForm:
    r"""Prop. 7: the pseudo-Hamiltonian form in an adapted frame (potential forces in ``L``).

    Parameters
    ----------
    coords, velocities : symbols of ``N`` and of its velocities
    lagrangian : expression
        The *free* Lagrangian on :math:`TN` (needed off the constraints for :math:`p_\mu`).
    frame : list of ``n - k`` component lists
        Fields :math:`\tau_s` spanning the constraint distribution.
    transversal : list of ``k`` component lists
        Fields :math:`a_\mu` completing the frame.
    momenta : names or symbols for ``M_s`` (default ``M1, M2, ...``).
    quasi_velocities : symbols for :math:`\omega_s` (default dummies); pass the independent
        velocities when the frame is the graph frame of the constraints.
    manifold : Manifold, optional
        The chart ``N`` (coordinates ``coords``) whose bracket graph gives the structure
        functions of the frame.

    Examples
    --------
    The Chaplygin sleigh, Borisov & Mamaev (2015), (6.33):

    >>> x, y, phi, xd, yd, phid = sp.symbols("x y phi xdot ydot phidot", real=True)
    >>> m, I, a = sp.symbols("m I a", positive=True)
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> L = m*(xd**2 + yd**2)/2 + I*phid**2/2 + m*a*phid*f
    >>> form = pseudo_hamiltonian_form([x, y, phi], [xd, yd, phid], L,
    ...     [[sp.cos(phi), sp.sin(phi), 0], [0, 0, 1]], [[-sp.sin(phi), sp.cos(phi), 0]],
    ...     momenta="P M", parameters=[m, I, a])
    >>> form.matrix[3, 4]
    M*a*m/I
    >>> sorted(form.jacobiator().values(), key=str)
    [-cos(phi), a*m/I, sin(phi)]
    """
    pol = default_policy()
    coords, velocities = list(coords), list(velocities)
    n = len(coords)
    L = as_expr(lagrangian)
    tau = [[as_expr(c) for c in t] for t in frame]
    trans = [[as_expr(c) for c in a] for a in transversal]
    m, k = len(tau), len(trans)
    if m + k != n:
        raise ValueError(f"{m} frame fields and {k} transversal fields do not make a frame "
                         f"of the {n}-dimensional configuration space")
    if isinstance(momenta, str):
        momenta = momenta.replace(",", " ").split()
    if momenta is None:
        momenta = [f"M{s + 1}" for s in range(m)]
    momenta = [sp.Symbol(s, real=True) if isinstance(s, str) else s for s in momenta]
    if len(momenta) != m:
        raise ValueError(f"{len(momenta)} momentum names for {m} frame fields")
    omegas = list(quasi_velocities) if quasi_velocities is not None else \
        [sp.Dummy(f"omega{s + 1}", real=True) for s in range(m)]
    ws = [sp.Dummy(f"w{mu + 1}", real=True) for mu in range(k)]
    qdot = [sum(omegas[s] * tau[s][i] for s in range(m))
            + sum(ws[mu] * trans[mu][i] for mu in range(k)) for i in range(n)]
    Ltil = L.xreplace(dict(zip(velocities, qdot)))
    zero_w = {w: 0 for w in ws}
    Lstar = compact(sp.expand(Ltil.xreplace(zero_w)))
    p_mu = [compact(sp.expand(sp.diff(Ltil, w).xreplace(zero_w))) for w in ws]
    omega_of, K = _legendre(Lstar, omegas, momenta)
    M_of = {Mv: compact(sp.diff(Lstar, w)) for Mv, w in zip(momenta, omegas)}
    if not any(e.has(*omegas) for e in K):
        # quadratic L* = omega.K.omega/2 + h.omega + L0:  H = (M - h).omega(M)/2 - L0
        zero_o = {w: 0 for w in omegas}
        L0 = Lstar.xreplace(zero_o)
        h = [sp.diff(Lstar, w).xreplace(zero_o) for w in omegas]
        H = compact(sum((Mv - hs) * omega_of[w] for Mv, hs, w in zip(momenta, h, omegas)) / 2
                    - L0)
    else:
        H = pol.normalize((sum(Mv * w for Mv, w in zip(momenta, omegas)) - Lstar)
                          .xreplace(omega_of))
    p_M = [compact(p.xreplace(omega_of)) for p in p_mu]
    c, d = frame_structure_functions(coords, tau, trans, manifold)
    Pi = sp.zeros(m, m)
    for s in range(m):
        for r in range(s + 1, m):
            e = sum(c[s][r][t] * momenta[t] for t in range(m)) \
                + sum(d[s][r][mu] * p_M[mu] for mu in range(k))
            Pi[s, r] = compact(e)
            Pi[r, s] = -Pi[s, r]
    T = sp.Matrix(tau)                       # (n-k) x n, rows tau_s
    J = sp.zeros(n + m, n + m)
    J[:n, n:] = T.T
    J[n:, :n] = -T
    J[n:, n:] = -Pi
    params = tuple(parameters)
    chart = Manifold(name, (*coords, *momenta), parameters=params)
    return PseudoHamiltonianForm(AlmostPoissonStructure(chart, J), H, tuple(momenta),
                                 omega_of, M_of, tuple(map(tuple, tau)),
                                 tuple(map(tuple, trans)), c, d, tuple(p_M))


# ---------------------------------------------------------------------------------------
# Prop. 8: after Chaplygin reduction; the reducing multiplier
# ---------------------------------------------------------------------------------------
def chaplygin_gyroscopic_matrix(lagrangian, z: Sequence[sp.Symbol], zdot: Sequence[sp.Symbol],
                                ydot: Sequence[sp.Symbol], b: Sequence[Sequence]) -> sp.Matrix:
    r"""The gyroscopic matrix of an abelian Chaplygin system (Borisov & Mamaev (2015), Prop. 5):

    .. math:: S_{ij} = \sum_\mu\Big(\frac{\partial L}{\partial\dot y_\mu}\Big)^*
              \Big(\frac{\partial b_{\mu i}}{\partial z_j}
              -\frac{\partial b_{\mu j}}{\partial z_i}\Big),
              \qquad \dot y_\mu = \sum_j b_{\mu j}(z)\dot z_j .

    >>> y, phi, yd, phid, xd = sp.symbols("y phi ydot phidot xdot")
    >>> m, a = sp.symbols("m a", positive=True)
    >>> L = m*(xd**2 + yd**2)/2 + m*a*phid*(-xd*sp.sin(phi) + yd*sp.cos(phi))
    >>> S = chaplygin_gyroscopic_matrix(L, [y, phi], [yd, phid], [xd],
    ...                                 [[sp.cos(phi)/sp.sin(phi), 0]])
    >>> sp.simplify(S[0, 1] + m*(yd*sp.cos(phi) - a*phid*sp.sin(phi)**2)/sp.sin(phi)**3)
    0
    """
    pol = default_policy()
    L = as_expr(lagrangian)
    rep = {yd: sum(as_expr(b[mu][j]) * zdot[j] for j in range(len(z)))
           for mu, yd in enumerate(ydot)}
    mom = [sp.diff(L, yd).xreplace(rep) for yd in ydot]
    m = len(z)
    S = sp.zeros(m, m)
    for i in range(m):
        for j in range(m):
            S[i, j] = pol.normalize(sum(
                mom[mu] * (sp.diff(b[mu][i], z[j]) - sp.diff(b[mu][j], z[i]))
                for mu in range(len(ydot))))
    return S


def reduced_pseudo_hamiltonian(z: Sequence[sp.Symbol], zdot: Sequence[sp.Symbol], Lstar,
                               S, momenta: Sequence | str | None = None,
                               parameters: Sequence[sp.Symbol] = (),
                               name: str = "reduced_pseudo_hamiltonian") -> PseudoHamiltonianForm:
    r"""Prop. 8: :math:`\dot z = \partial_p H`,
    :math:`\dot p = -\partial_z H + \bar S\,\partial_p H`.

    The reduced equations :math:`\frac{d}{dt}\partial_{\dot z}L^* - \partial_z L^* = S\dot z`
    become :math:`\dot x = J\nabla H` with :math:`J = \begin{pmatrix}0&E\\-E&\bar S\end{pmatrix}`,
    :math:`p = \partial L^*/\partial\dot z`, :math:`\bar S(z,p) = S(z,\dot z(z,p))`.

    >>> q, qd = sp.symbols("q qdot")
    >>> form = reduced_pseudo_hamiltonian([q], [qd], qd**2/2 - q**2/2, [[0]], momenta="p")
    >>> form.vector_field()
    VectorField(reduced_pseudo_hamiltonian, [p, -q])
    """
    pol = default_policy()
    z, zdot = list(z), list(zdot)
    m = len(z)
    S = sp.Matrix(S)
    if S.shape != (m, m):
        raise ValueError(f"S must be {m}x{m}")
    if isinstance(momenta, str):
        momenta = momenta.replace(",", " ").split()
    if momenta is None:
        momenta = [f"p_{zi}" for zi in z]
    momenta = [sp.Symbol(s, real=True) if isinstance(s, str) else s for s in momenta]
    Lstar = as_expr(Lstar)
    zdot_of, _ = _legendre(Lstar, zdot, momenta)
    H = pol.normalize((sum(p * zd for p, zd in zip(momenta, zdot)) - Lstar).xreplace(zdot_of))
    Sbar = S.applyfunc(lambda e: pol.normalize(as_expr(e).xreplace(zdot_of)))
    J = sp.zeros(2 * m, 2 * m)
    J[:m, m:] = sp.eye(m)
    J[m:, :m] = -sp.eye(m)
    J[m:, m:] = Sbar
    chart = Manifold(name, (*z, *momenta), parameters=tuple(parameters))
    M_of = {p: pol.normalize(sp.diff(Lstar, zd)) for p, zd in zip(momenta, zdot)}
    return PseudoHamiltonianForm(AlmostPoissonStructure(chart, J), H, tuple(momenta),
                                 zdot_of, M_of)


@dataclass(frozen=True)
class ReducingMultiplier:
    """Outcome of :func:`chaplygin_multiplier` (truthy iff a multiplier ``N`` exists)."""

    multiplier: sp.Expr | None
    reason: str = ""
    new_hamiltonian: sp.Expr | None = None
    new_momenta: dict | None = None

    def __bool__(self) -> bool:
        return self.multiplier is not None


def chaplygin_multiplier(form: PseudoHamiltonianForm) -> ReducingMultiplier:
    r"""Chaplygin's reducing multiplier for a Prop. 8 form with two degrees of freedom.

    If :math:`\bar S_{12} = p_2\,\partial_{z_1}\ln N - p_1\,\partial_{z_2}\ln N` for some
    :math:`N(z)`, then :math:`N` is an invariant density in ``(z, p)`` and, with
    :math:`d\tau = N\,dt`, :math:`\tilde p = N p`, the system is Hamiltonian with
    :math:`\tilde H(z,\tilde p) = H(z, \tilde p/N)` (Borisov & Mamaev (2015), App. C).  Both facts
    are
    verified exactly before returning.

    >>> y, phi, yd, phid = sp.symbols("y phi ydot phidot", real=True)
    >>> m, I = sp.symbols("m I", positive=True)
    >>> Ls = m*yd**2/(2*sp.sin(phi)**2) + I*phid**2/2
    >>> S = sp.Matrix([[0, -m*yd*sp.cos(phi)/sp.sin(phi)**3], [m*yd*sp.cos(phi)/sp.sin(phi)**3, 0]])
    >>> chaplygin_multiplier(reduced_pseudo_hamiltonian([y, phi], [yd, phid], Ls, S)).multiplier
    sin(phi)
    """
    pol = default_policy()
    chart = form.manifold
    if chart.dim != 4:
        return ReducingMultiplier(None, "the reducing multiplier needs two degrees of freedom")
    z, p = chart.coords[:2], chart.coords[2:]
    J = form.matrix
    if not (J[:2, :2].is_zero_matrix and J[:2, 2:] == sp.eye(2)):
        return ReducingMultiplier(None, "not of the Prop. 8 form (0, E; -E, S)")
    S = J[2, 3]
    sigma1, sigma2 = pol.normalize(sp.diff(S, p[1])), pol.normalize(-sp.diff(S, p[0]))
    if any(s.has(*p) for s in (sigma1, sigma2)) or \
            not pol.is_zero(S - sigma1 * p[1] + sigma2 * p[0]):
        return ReducingMultiplier(None, "S is not homogeneous linear in the momenta: not of "
                                  "Chaplygin-multiplier form")
    if not pol.is_zero(sp.diff(sigma1, z[1]) - sp.diff(sigma2, z[0])):
        return ReducingMultiplier(None, "the 1-form sigma = dS/dp2 dz1 - dS/dp1 dz2 is not "
                                  "closed: no multiplier N(z) exists")
    from geomech.mechanics.analysis.measure import _as_log, _potential, is_invariant_density

    N = _as_log(_potential([sigma1, sigma2], z))
    v = form.vector_field()
    if not is_invariant_density(v, N):
        return ReducingMultiplier(None, f"candidate N = {N} is not an invariant density")
    # Hamiltonian check in (z, ptilde) with time tau
    pt = [sp.Dummy(f"pt{i}", real=True) for i in range(2)]
    back = {p[i]: pt[i] / N for i in range(2)}
    Ht = pol.normalize(form.hamiltonian.xreplace(back))
    comps = [c / N for c in v.components]           # d/dtau = (1/N) d/dt
    dz = [pol.normalize(c.xreplace(back)) for c in comps[:2]]
    dpt = [pol.normalize((N * comps[2 + i] + p[i] * v(N) / N).xreplace(back)) for i in range(2)]
    ok = all(pol.is_zero(dz[i] - sp.diff(Ht, pt[i])) for i in range(2)) and \
        all(pol.is_zero(dpt[i] + sp.diff(Ht, z[i])) for i in range(2))
    if not ok:
        return ReducingMultiplier(None, f"N = {N} does not Hamiltonise the system")
    names = [sp.Symbol(f"{pi.name}_tilde", real=True) for pi in p]
    return ReducingMultiplier(N, "", Ht.xreplace(dict(zip(pt, names))),
                              {names[i]: N * p[i] for i in range(2)})


# ---------------------------------------------------------------------------------------
# conformal symmetries (§1.5, App. D)
# ---------------------------------------------------------------------------------------
def _decompose(target: VectorField, fields: Sequence[VectorField]):
    """Coefficients (functions) of ``target`` in ``fields``; ``None`` if not in the span."""
    from geomech.mechanics.analysis.measure import _linear_solve_functions

    A = sp.Matrix.hstack(*[f.as_matrix() for f in fields])
    sol, status = _linear_solve_functions(A, target.as_matrix(), len(fields))
    if status == "inconsistent":
        return None
    if status == "free":
        raise ValueError("the fields are linearly dependent; the decomposition is not unique")
    return sol


def conformal_symmetry(v: VectorField, u: VectorField | Sequence[VectorField]):
    r"""Decompose :math:`[v, u_\alpha] = \mu_\alpha v + \sum_\beta b^\beta_\alpha u_\beta`.

    Returns ``(mu, b)`` with ``mu[α]`` and ``b[α][β]`` functions, or ``None`` when some
    :math:`[v,u_\alpha]` is not in :math:`\mathrm{span}(v, U)` (``u`` is then no conformal
    symmetry of any type (1.4)).

    >>> M = Manifold("M", "q p"); q, p = M.coords
    >>> v = M.vector_field([p, -q**3])        # homogeneous force, degree 3
    >>> conformal_symmetry(v, M.vector_field([q, 2*p]))
    ([-1], [[0]])
    """
    _check_field(v)
    us = [u] if isinstance(u, VectorField) else list(u)
    mus, bs = [], []
    for ua in us:
        co = _decompose(BracketGraph.of(v.manifold).bracket(v, ua), [v, *us])
        if co is None:
            return None
        mus.append(co[0])
        bs.append(co[1:])
    return mus, bs


@dataclass(frozen=True)
class ConformalFactor:
    """Outcome of :func:`conformal_factor` (truthy iff a factor ``Λ`` was found)."""

    factor: sp.Expr | None
    mu: tuple = ()
    reason: str = ""

    def __bool__(self) -> bool:
        return self.factor is not None


def conformal_factor(v: VectorField, fields: Sequence[VectorField] | VectorField,
                     candidates: Sequence | None = None) -> ConformalFactor:
    r"""Find :math:`\Lambda` with :math:`[\Lambda v, u_\alpha] \in \mathrm{span}\,U`
    (Borisov & Mamaev (2015), §1.5).

    Step 1 decomposes :math:`[v,u_\alpha] = \mu_\alpha v + \dots`; step 2 solves
    :math:`u_\alpha(\ln\Lambda) = \mu_\alpha`: by integration when every :math:`u_\alpha` is a
    multiple of one coordinate field, otherwise in the family
    :math:`\Lambda = \prod_k f_k^{c_k}` of the given ``candidates``.  Step 3 verifies
    :func:`is_conformal_symmetry_distribution`.  ``Λ`` is determined up to a factor
    invariant under ``U``.

    >>> M = Manifold("M", "q p"); q, p = M.coords
    >>> v = M.vector_field([p, -q**3])
    >>> conformal_factor(v, M.vector_field([q, 2*p]), candidates=[q]).factor
    1/q
    """
    _check_field(v)
    us = [fields] if isinstance(fields, VectorField) else list(fields)
    dec = conformal_symmetry(v, us)
    if dec is None:
        return ConformalFactor(None, (), "some [v, u] is not in span(v, U)")
    mus, _ = dec
    pol = default_policy()
    X = v.manifold.coords
    lam = None
    supports = [[i for i, c in enumerate(u.components) if not pol.is_zero(c)] for u in us]
    if candidates is None and all(len(s) == 1 for s in supports):
        G = [sp.S.Zero] * len(X)
        for u, s, mu in zip(us, supports, mus):
            G[s[0]] = pol.normalize(mu / u.components[s[0]])
        idx = [i for i in range(len(X)) if G[i] != 0]
        for i in idx:
            for j in idx:
                if i < j and not pol.is_zero(sp.diff(G[i], X[j]) - sp.diff(G[j], X[i])):
                    return ConformalFactor(None, tuple(mus), "u(ln Λ) = μ is not integrable "
                                           "in the chosen coordinates")
        from geomech.mechanics.analysis.measure import _as_log, _potential

        lam = _as_log(_potential([G[i] for i in idx], [X[i] for i in idx])) if idx else sp.S.One
    else:
        if not candidates:
            return ConformalFactor(None, tuple(mus), "give candidates=[f1, ...] for "
                                   "Λ = prod f_k**c_k (the fields are not coordinate fields)")
        fs = [v.manifold.sympify(f) for f in candidates]
        cs = list(sp.symbols(f"_l0:{len(fs)}", cls=sp.Dummy))
        c0 = sp.Dummy("_l_mu")
        eqs = [sp.together(sum(c * u(f) / f for c, f in zip(cs, fs)) - c0 * mu)
               for u, mu in zip(us, mus)]
        sols = [s for s in solve_constant_linear(eqs, [*cs, c0], keep=v.manifold.parameters)
                if s[c0] != 0]
        if not sols:
            return ConformalFactor(None, tuple(mus), "no factor prod f_k**c_k in the "
                                   "candidate family")
        s = sols[0]
        lam = sp.powsimp(sp.Mul(*[f ** (s[c] / s[c0]) for c, f in zip(cs, fs)]))
    if not is_conformal_symmetry_distribution(v, us, lam):
        return ConformalFactor(None, tuple(mus), f"Λ = {lam} failed verification")
    return ConformalFactor(lam, tuple(mus))


def is_conformal_symmetry_distribution(v: VectorField, fields, factor=1) -> bool:
    r"""Whether :math:`[\Lambda v, u_\alpha] \in \mathrm{span}_{C^\infty}\{u_\beta\}` for all α.

    (The closure :math:`[u_\alpha,u_\beta] \in \mathrm{span}\,U` is required too.)

    >>> M = Manifold("M", "q p"); q, p = M.coords
    >>> is_conformal_symmetry_distribution(M.vector_field([p, -q**3]),
    ...                                    [M.vector_field([q, 2*p])], 1/q)
    True
    """
    _check_field(v)
    us = [fields] if isinstance(fields, VectorField) else list(fields)
    Lv = v * v.manifold.sympify(factor)
    G = BracketGraph.of(v.manifold)
    for ua in us:
        if _decompose(G.bracket(Lv, ua), us) is None:
            return False
    for ua, ub in itertools.combinations(us, 2):
        if _decompose(G.bracket(ua, ub), us) is None:
            return False
    return True


# ---------------------------------------------------------------------------------------
# NonholonomicSystem-level entry points
# ---------------------------------------------------------------------------------------
def _graph_frame(system):
    """The frame tau_s = d qdot / d w_s (w_s independent velocities) and a_mu = d/dq_r."""
    N = system.manifold
    sol = system.dependent_solution
    indep = list(system.independent_velocities)
    tau = []
    for w in indep:
        rep = {x: (1 if x == w else 0) for x in indep}
        tau.append([as_expr(sol.get(qd, qd)).xreplace(rep) for qd in N.velocities])
    trans = [[1 if qd == dep else 0 for qd in N.velocities] for dep in system.dependent_velocities]
    return tau, trans


def system_pseudo_hamiltonian(system, frame=None, transversal=None, momenta=None):
    """``sys.pseudo_hamiltonian()``: Prop. 7 form of the system.

    Default frame: the graph frame of the constraints (quasi-velocities = the independent
    velocities), transversal fields ``d/dq_r`` of the dependent coordinates; default momenta
    ``p_<q>`` for the independent coordinates."""
    if getattr(system, "forces", None) is not None and any(
            not default_policy().is_zero(f) for f in system.forces):
        raise ValueError("the pseudo-Hamiltonian form needs potential forces only (forces=None)")
    if getattr(system, "is_affine", False):
        raise ValueError("the pseudo-Hamiltonian form needs homogeneous constraints; "
                         f"{getattr(system, 'name', 'the system')} has affine ones")
    N = system.manifold
    qvel = None
    if frame is None:
        frame, transversal = _graph_frame(system)
        qvel = list(system.independent_velocities)
        if momenta is None:
            momenta = [f"p_{N.coords[N.velocities.index(w)].name}" for w in qvel]
    if transversal is None:
        raise ValueError("a frame needs its transversal fields as well")
    return pseudo_hamiltonian_form(N.coords, N.velocities, system.lagrangian, frame,
                                   transversal, momenta, N.parameters, quasi_velocities=qvel,
                                   name=f"{getattr(system, 'name', 'system')}_pseudo_hamiltonian",
                                   manifold=N)


def system_chaplygin_pseudo_hamiltonian(system, cyclic=None, momenta=None):
    """Prop. 8 form of an abelian Chaplygin system: ``cyclic`` are the group coordinates
    ``y`` (``L`` must not depend on them; the constraints are solved for their velocities).
    Default: the coordinates of the dependent velocities."""
    N = system.manifold
    if cyclic is None:
        cyclic = [N.coords[N.velocities.index(v)] for v in system.dependent_velocities]
    cyc = [N.sympify(c) if isinstance(c, str) else c for c in cyclic]
    pol = default_policy()
    L = system.lagrangian
    if any(not pol.is_zero(sp.diff(L, y)) for y in cyc):
        raise ValueError("the Lagrangian depends on the cyclic coordinates")
    ydot = [N.velocities[N.index(y)] for y in cyc]
    if set(system.dependent_velocities) != set(ydot):
        raise ValueError("the constraints must be solved for the velocities of the cyclic "
                         f"coordinates {cyc} (pass independent=... to the system)")
    z = [q for q in N.coords if q not in cyc]
    zdot = [N.velocities[N.index(q)] for q in z]
    sol = system.dependent_solution
    b = [[pol.normalize(sp.diff(sol[yd], zd)) for zd in zdot] for yd in ydot]
    S = chaplygin_gyroscopic_matrix(L, z, zdot, ydot, b)
    Lstar = pol.normalize(as_expr(L).xreplace(sol))
    return reduced_pseudo_hamiltonian(z, zdot, Lstar, S, momenta, N.parameters,
                                      name=f"{getattr(system, 'name', 'system')}_reduced")


def system_is_conformally_hamiltonian(system, cyclic=None) -> ReducingMultiplier:
    """Chaplygin reducing multiplier of the Prop. 8 form (two degrees of freedom)."""
    return chaplygin_multiplier(system_chaplygin_pseudo_hamiltonian(system, cyclic))
