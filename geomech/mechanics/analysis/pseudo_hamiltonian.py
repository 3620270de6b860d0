r"""Pseudo-Hamiltonian forms of nonholonomic systems (Borisov & Mamaev (2015), App. C.1).

:func:`pseudo_hamiltonian_form` is Prop. 7 (Borisov & Mamaev (2015, Russian Math. Surveys),
(6)-(7)): in an adapted frame :math:`(\tau_s, a_\mu)`, momenta
:math:`M_s = \partial L^*/\partial\omega_s`, :math:`H = M\omega - L^*`,
:math:`p_\mu = (\partial\tilde L/\partial w_\mu)^*`,

.. math:: J = \begin{pmatrix}0 & T^T\\ -T & -\Pi\end{pmatrix},\qquad
          \Pi_{sr} = \sum_t c^t_{sr}M_t + \sum_\mu d^\mu_{sr}\,p_\mu ,\qquad
          [\tau_s,\tau_r] = c^t_{sr}\tau_t + d^\mu_{sr}a_\mu .

The Jacobi identity holds iff the constraints are holonomic (all :math:`d \equiv 0`).
:func:`reduced_pseudo_hamiltonian` is Prop. 8 (after Chaplygin reduction),
:func:`chaplygin_gyroscopic_matrix` Prop. 5.

Examples
--------
>>> import sympy as sp
>>> q, qd = sp.symbols("q qdot")
>>> form = reduced_pseudo_hamiltonian([q], [qd], qd**2/2 - q**2/2, [[0]], momenta="p")
>>> form.hamiltonian
p**2/2 + q**2/2
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import sympy as sp

from geomech.core.algebra import UnsupportedExpression
from geomech.core.algebra.calculus import FactoredCalculus, has_radicals
from geomech.core.algebra.normal_form import compact
from geomech.core.algebra.solve import adjugate_inverse, solve_linear
from geomech.core.budget import poll
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.core.zero.values import certainly_nonzero
from geomech.lie.coframe import coframe_structure_functions
from geomech.lie.graph import BracketGraph
from geomech.mechanics.analysis.poisson import AlmostPoissonStructure

__all__ = ["PseudoHamiltonianForm", "FormTooLarge", "LEGENDRE_OPS_LIMIT",
           "pseudo_hamiltonian_form", "frame_structure_functions",
           "chaplygin_gyroscopic_matrix", "reduced_pseudo_hamiltonian",
           "system_pseudo_hamiltonian", "system_chaplygin_pseudo_hamiltonian",
           "implicit_hamiltonian", "implicit_jacobiator"]


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
    c = [[[sp.S.Zero] * m for _ in range(m)] for _ in range(m)]
    d = [[[sp.S.Zero] * len(transversal) for _ in range(m)] for _ in range(m)]
    cartan = _cartan_structure(E, coords, m) if has_radicals(E) else None
    if cartan is None:
        G = BracketGraph.of(manifold)
        fields = [VectorField(manifold, t) for t in tau]
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


#: Operations of one entry of the inverse Legendre map above which the form is not built
#: (its compact normal forms would not finish: the 3-link Chaplygin snake, ~110 000).
LEGENDRE_OPS_LIMIT = 50000


class FormTooLarge(ValueError):
    """The inverse Legendre map is over :data:`LEGENDRE_OPS_LIMIT` operations."""


#: The error of a Legendre map that cannot be inverted.
DEGENERATE = ("the restricted Lagrangian L* is degenerate in the quasi-velocities "
              "(det d2L*/domega2 vanishes identically)")


def _cartan_structure(E: sp.Matrix, coords, m: int) -> dict | None:
    """Structure functions of a frame with square roots from its coframe (Cartan's formula,
    :func:`~geomech.lie.coframe.coframe_structure_functions`), or ``None``."""
    Einv, _ = adjugate_inverse(E)
    if Einv is None:
        return None
    pairs = [(s, r) for s in range(m) for r in range(s + 1, m)]
    try:
        return coframe_structure_functions([list(E[:, j]) for j in range(E.cols)], Einv,
                                           coords, pairs)
    except UnsupportedExpression:
        return None


def _legendre(Lstar, omegas, momenta, K: sp.Matrix | None = None):
    """Solve ``M = dL*/dω`` for ω; return (dict ω -> expr in M, Hessian).  ``K``: the
    Hessian when it is known and free of ω (the kinetic matrix :math:`T^TGT` of a quadratic
    Lagrangian, :func:`_frame_quadratic_form`)."""
    pol = default_policy()
    grads = [poll() or sp.expand(sp.diff(Lstar, w)) for w in omegas]
    if K is None:
        K = sp.Matrix([[poll() or sp.diff(g, w) for w in omegas] for g in grads])
    if not any(e.has(*omegas) for e in K):
        # quadratic L*: one exact ring solve K omega = M - h
        h = sp.Matrix([g.xreplace({w: 0 for w in omegas}) for g in grads])
        return _quadratic_legendre(K, h, momenta, omegas), K
    if pol.rank(K) < len(omegas):
        raise ValueError(DEGENERATE)
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
        ``J`` on the chart ``(q, M)`` (built on first access when the form is given
        ``parts``).
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
        ``p_μ(q, M)`` (built with ``structure``).
    parts : callable, optional
        ``() -> (structure, transversal_momenta)``: the two built when first read (the
        report reads neither: its Jacobi test needs only ``d``, :meth:`satisfies_jacobi`).
    """

    hamiltonian: sp.Expr
    momenta: tuple
    quasi_velocities: dict
    momentum_of: dict
    frame: tuple = ()
    transversal: tuple = ()
    c: list = field(default_factory=list)
    d: list = field(default_factory=list)
    parts: Callable[[], tuple] | None = field(default=None, repr=False, compare=False)

    @functools.cached_property
    def _built(self) -> tuple:
        return self.parts()

    @property
    def structure(self) -> AlmostPoissonStructure:
        return self._built[0]

    @property
    def transversal_momenta(self) -> tuple:
        return self._built[1]

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
        r"""Jacobi identity of ``J`` (holds iff the constraints are holonomic).

        For the Prop. 7 form (Borisov & Mamaev (2015), App. C.1) with
        :math:`J^{q_iM_t} = T_{ti}`, :math:`J^{M_sM_r} = -\Pi_{sr}` and
        :math:`[\tau_s,\tau_r] = c^t_{sr}\tau_t + d^\mu_{sr}a_\mu`,

        .. math:: \mathrm{Jac}(q_i, M_s, M_r) = [\tau_s,\tau_r]_i
                  - \sum_t T_{ti}\,\partial_{M_t}\Pi_{sr}
                  = \Big(\sum_\mu d^\mu_{sr}\big(a_\mu - \sum_t
                    \partial_{M_t}p_\mu\,\tau_t\big)\Big)_i ,

        a vector that vanishes only where every :math:`d^\mu_{sr}` does, since
        :math:`(\tau, a)` is a frame.  So one :math:`d^\mu_{sr}` proved non-zero
        (:func:`~geomech.core.zero.values.certainly_nonzero`: a non-zero value at a point)
        answers ``False`` without ``J``; otherwise
        ``J``'s own Jacobiator decides (:meth:`AlmostPoissonStructure.satisfies_jacobi`).

        >>> import geomech as gm
        >>> form = system_pseudo_hamiltonian(gm.examples.chaplygin_sleigh())
        >>> form.satisfies_jacobi(), form.structure.satisfies_jacobi()
        (False, False)
        """
        if any(e != 0 and certainly_nonzero(e) for s, row in enumerate(self.d)
               for col in row[s + 1:] for e in col):
            return False
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

    Notes
    -----
    The steps of the construction: the adapted frame :math:`(\tau_s, a_\mu)`; the
    Legendre map :math:`M = \partial L^*/\partial\omega` and its inverse
    :math:`\omega(M)` (:func:`_frame_legendre`); :math:`H = M\omega - L^*`; the structure
    functions :math:`c, d` (:func:`frame_structure_functions`); :math:`J` with
    :math:`p_\mu(q, M)`, built when first read (:func:`_prop7_structure`).

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
    coords, velocities = list(coords), list(velocities)
    L = as_expr(lagrangian)
    tau, trans = _adapted_frame(frame, transversal, len(coords))
    momenta = _momentum_symbols(momenta, len(tau))
    omegas = _quasi_velocity_symbols(quasi_velocities, len(tau))
    leg = _frame_legendre(L, velocities, tau, trans, omegas, momenta)
    H = _legendre_hamiltonian(leg.Lstar, omegas, momenta, leg.omega_of, leg.K)
    c, d = frame_structure_functions(coords, tau, trans, manifold)
    chart = Manifold(name, (*coords, *momenta), parameters=tuple(parameters))
    return PseudoHamiltonianForm(H, tuple(momenta), leg.omega_of, leg.M_of,
                                 tuple(map(tuple, tau)), tuple(map(tuple, trans)), c, d,
                                 _structure_parts(chart, tau, c, d, momenta, leg))


def _adapted_frame(frame: Sequence[Sequence], transversal: Sequence[Sequence],
                   n: int) -> tuple[list, list]:
    r"""The component lists of :math:`(\tau_s)` and :math:`(a_\mu)`, ``ValueError`` unless
    :math:`m + k = n` (Borisov & Mamaev (2015), App. C.1: the fields of an adapted frame)."""
    tau = [[as_expr(c) for c in t] for t in frame]
    trans = [[as_expr(c) for c in a] for a in transversal]
    m, k = len(tau), len(trans)
    if m + k != n:
        raise ValueError(f"{m} frame fields and {k} transversal fields do not make a frame "
                         f"of the {n}-dimensional configuration space")
    return tau, trans


def _quasi_velocity_symbols(quasi_velocities: Sequence[sp.Symbol] | None,
                            m: int) -> list:
    r"""The quasi-velocities :math:`\omega_s` (given, or ``m`` real dummies)."""
    if quasi_velocities is not None:
        return list(quasi_velocities)
    return [sp.Dummy(f"omega{s + 1}", real=True) for s in range(m)]


class _FrameLegendre(NamedTuple):
    r"""The Legendre map of :math:`L^*` in an adapted frame.

    ``Lstar`` :math:`L^*(q, \omega)`; ``K`` its Hessian in :math:`\omega`; ``omega_of``
    :math:`\{\omega_s: \omega_s(q, M)\}`; ``M_of`` :math:`\{M_s: \partial L^*/\partial
    \omega_s\}`; ``p_of`` returns the list of :math:`p_\mu(q, \omega)` when called."""

    Lstar: sp.Expr
    K: sp.Matrix
    omega_of: dict
    M_of: dict
    p_of: Callable[[], list]


def _frame_legendre(L: sp.Expr, velocities: list, tau: list, trans: list, omegas: list,
                    momenta: list) -> _FrameLegendre:
    r"""Prop. 7's Legendre map :math:`M_s = \partial L^*/\partial\omega_s` and its inverse:
    from the parts of a quadratic Lagrangian (:func:`_frame_quadratic_form`) when it is one
    (without square roots), otherwise from the substituted Lagrangian
    :math:`\tilde L(q, \omega, w)` (:func:`_ring_frame_legendre`)."""
    quad = _frame_quadratic_form(L, velocities, tau, trans, omegas)
    if quad is None:
        return _ring_frame_legendre(L, velocities, tau, trans, omegas, momenta)
    Lstar, p_mu, K, h = quad
    omega_of = _quadratic_legendre(K, h, momenta, omegas)
    _guard_size(omega_of)
    M_of = {Mv: compact(sum(K[s, r] * omegas[r] for r in range(K.cols)) + h[s])
            for s, Mv in enumerate(momenta)}
    return _FrameLegendre(Lstar, K, omega_of, M_of, lambda: p_mu)


def _ring_frame_legendre(L: sp.Expr, velocities: list, tau: list, trans: list,
                         omegas: list, momenta: list) -> _FrameLegendre:
    r"""The Legendre map from :math:`\tilde L = L|_{\dot q = T\omega + Aw}`:
    :math:`L^* = \tilde L|_{w=0}`, :math:`p_\mu = (\partial\tilde L/\partial w_\mu)|_{w=0}`
    (:func:`_restricted_lagrangian`), :math:`\omega(M)` by :func:`_legendre`."""
    known_K = _guard_cofactors(L, velocities, tau, trans, omegas)
    m, k, n = len(tau), len(trans), len(velocities)
    ws = [sp.Dummy(f"w{mu + 1}", real=True) for mu in range(k)]
    qdot = [sum(omegas[s] * tau[s][i] for s in range(m))
            + sum(ws[mu] * trans[mu][i] for mu in range(k)) for i in range(n)]
    Ltil = L.xreplace(dict(zip(velocities, qdot)))
    Lstar, p_of = _restricted_lagrangian(Ltil, ws)
    omega_of, K = _legendre(Lstar, omegas, momenta, known_K)
    M_of = {Mv: compact(sp.diff(Lstar, w)) for Mv, w in zip(momenta, omegas)}
    return _FrameLegendre(Lstar, K, omega_of, M_of, p_of)


def _structure_parts(chart: Manifold, tau: list, c: list, d: list, momenta: list,
                     leg: _FrameLegendre) -> Callable[[], tuple]:
    r"""``() -> (J, p_M)``: the transversal momenta :math:`p_\mu(q, M)` (:math:`p_\mu` at
    :math:`\omega = \omega(M)`) and the Prop. 7 structure :math:`J` on ``chart``
    (:func:`_prop7_structure`), built when called."""
    def parts() -> tuple:
        p_M = tuple(compact(p.xreplace(leg.omega_of)) for p in leg.p_of())
        return _prop7_structure(chart, tau, c, d, momenta, p_M), p_M
    return parts


def _frame_quadratic_form(L: sp.Expr, velocities: list, tau: list, trans: list,
                          omegas: list, radicals: bool = False) -> tuple | None:
    r"""``(L*, p_mu, K, h)`` of a Lagrangian quadratic in the velocities, from its parts.

    With :math:`L = \tfrac12\dot q^T G\dot q + b^T\dot q + L_0` and
    :math:`\dot q = T\omega + A w` (frame :math:`T`, transversal fields :math:`A`):

    .. math:: K = T^T G T,\quad h = T^T b,\quad
              L^* = \tfrac12\omega^T K\omega + h^T\omega + L_0,\quad
              p_\mu = A_\mu^T (G T\omega + b),

    each coefficient in compact form and :math:`p_\mu` kept linear in :math:`\omega` (a
    substituted :math:`\omega(M)` then appears once per term).  The substituted Lagrangian
    :math:`\tilde L` is never expanded (on the 3-link Chaplygin snake that expansion and its
    derivatives were most of the time).  ``None`` when ``L`` is not quadratic in the
    velocities, or has square roots and ``radicals`` is false (the form of
    :func:`pseudo_hamiltonian_form` then takes the ring route of
    :func:`_restricted_lagrangian`; the square roots are only in the coefficients, functions
    of :math:`q`, so the parts above hold with them).

    >>> x, y, phi, xd, yd, phid, w = sp.symbols("x y phi xdot ydot phidot omega")
    >>> L = (xd**2 + yd**2 + phid**2)/2
    >>> Ls, p, K, h = _frame_quadratic_form(L, [xd, yd, phid], [[sp.cos(phi), sp.sin(phi), 0]],
    ...                                     [[-sp.sin(phi), sp.cos(phi), 0]], [w])
    >>> Ls, p, K
    (omega**2/2, [0], Matrix([[1]]))

    Kept for the last frames met (the report's pseudo-Hamiltonian form and its implicit
    form read the same graph frame).
    """
    got = _frame_quadratic_parts(as_expr(L), tuple(velocities),
                                 tuple(tuple(as_expr(c) for c in t) for t in tau),
                                 tuple(tuple(as_expr(c) for c in a) for a in trans),
                                 tuple(omegas), radicals)
    if got is None:
        return None
    Lstar, p_mu, K, h = got
    return Lstar, list(p_mu), K.copy(), h.copy()


@functools.lru_cache(maxsize=16)
def _frame_quadratic_parts(L: sp.Expr, velocities: tuple, tau: tuple, trans: tuple,
                           omegas: tuple, radicals: bool) -> tuple | None:
    """:func:`_frame_quadratic_form` (``p_mu`` a tuple)."""
    if not radicals and has_radicals([L]):
        return None
    zero = {v: 0 for v in velocities}
    grads = [sp.diff(L, v) for v in velocities]
    G = sp.Matrix([[sp.diff(g, v) for v in velocities] for g in grads])
    if any(e.has(*velocities) for e in G):
        return None
    b = sp.Matrix([g.xreplace(zero) for g in grads])
    T = sp.Matrix(tau).T                                   # n x m, columns tau_s
    GT = G * T
    K = (T.T * GT).applyfunc(lambda e: poll() or compact(e))
    h = (T.T * b).applyfunc(compact)
    om = sp.Matrix(omegas)
    Lstar = sp.Add(*[K[s, r] * om[s] * om[r] / 2 for s in range(len(om))
                     for r in range(len(om))]) + (h.T * om)[0] + compact(L.xreplace(zero))
    p_mu = []
    for a in trans:                       # p_mu = C_mu omega + e_mu, coefficients compact
        row = sp.Matrix(a).T
        C = (row * GT).applyfunc(compact)
        p_mu.append(sum(C[s] * om[s] for s in range(len(om))) + compact((row * b)[0]))
    return Lstar, tuple(p_mu), K, h


def _guard_size(omega_of: dict) -> None:
    """:class:`FormTooLarge` when an entry of the inverse Legendre map is too large."""
    ops = max((count_ops(e) for e in omega_of.values()), default=0)
    if ops > LEGENDRE_OPS_LIMIT:
        raise FormTooLarge(f"the inverse Legendre map omega(M) has an entry of {ops} "
                           f"operations (over {LEGENDRE_OPS_LIMIT}): the form is not built")


def _guard_cofactors(L: sp.Expr, velocities: list, tau: list, trans: list,
                     omegas: list) -> sp.Matrix | None:
    r""":class:`FormTooLarge` when the Lagrangian, with square roots, is quadratic in the
    velocities and the cofactor formula :math:`\omega(M) = \operatorname{adj}(K)(M - h)/\det K`
    of its inverse Legendre map, unexpanded, is over :data:`LEGENDRE_OPS_LIMIT` operations
    (counted from the operations of the entries of :math:`K`: each term of the expansion of
    :math:`\det K` is a product of entries, one from each row and column).  On the
    rattleback (Kane & Levinson 1982) :math:`K_{33}` alone has ~45 000 operations and the
    ring route did not finish in 900 s.  Returns :math:`K` when it was formed (``None``
    otherwise): the Hessian :math:`\partial^2L^*/\partial\omega^2` of the ring route."""
    if not has_radicals([L]) or len(omegas) > 4:
        return None
    quad = _frame_quadratic_form(L, velocities, tau, trans, omegas, radicals=True)
    if quad is None:
        return None
    K = quad[2]
    ops = [[count_ops(e) for e in K.row(i)] for i in range(K.rows)]
    det = sum(sum(ops[i][p[i]] for i in range(K.rows))
              for p in itertools.permutations(range(K.rows)))
    if det > LEGENDRE_OPS_LIMIT:
        raise FormTooLarge(f"the determinant of the kinetic matrix K, in the cofactor formula "
                           f"of the inverse Legendre map omega(M), has {det} operations "
                           f"unexpanded (over {LEGENDRE_OPS_LIMIT}): the form is not built")
    return K


def _quadratic_legendre(K: sp.Matrix, h: sp.Matrix, momenta: list, omegas: list) -> dict:
    r""":math:`\omega(M) = K^{-1}(M - h)` by one exact solve (:func:`solve_linear`)."""
    try:
        sol = solve_linear(K, sp.Matrix(momenta) - h, what="Legendre map")
    except ValueError:
        raise ValueError(DEGENERATE) from None
    return dict(zip(omegas, sol))


def _restricted_lagrangian(Ltil: sp.Expr, ws: list) -> tuple:
    r""":math:`L^* = \tilde L|_{w=0}` and a function returning the list of
    :math:`p_\mu = (\partial\tilde L/\partial w_\mu)|_{w=0}` (computed when called: the
    form's structure needs them, its Hamiltonian does not).

    With square roots (rolling ellipsoid) both are computed in the ring of
    :class:`~geomech.core.algebra.calculus.FactoredCalculus` (no ``expand`` of the
    substituted Lagrangian, which dominated the construction; :math:`L^*` from
    :math:`\tilde L|_{w=0}`, the smaller fraction); otherwise, or when the Lagrangian
    leaves that ring, by expansion and :func:`compact`.

    >>> x, w, om = sp.symbols("x w omega", real=True)
    >>> Ls, p_of = _restricted_lagrangian(sp.sqrt(1 + x**2)*(om + w)**2/2, [w])
    >>> Ls, p_of()
    (omega**2*sqrt(x**2 + 1)/2, [omega*sqrt(x**2 + 1)])
    """
    zero_w = {w: 0 for w in ws}

    def compact_p() -> list:
        return [compact(sp.expand(sp.diff(Ltil, w).xreplace(zero_w))) for w in ws]

    def ring_p() -> list:
        try:
            fc = FactoredCalculus([Ltil])
            f = fc.frac(Ltil)
            return [fc.expr(fc.at_zero(fc.diff(f, w), ws)) for w in ws]
        except UnsupportedExpression:
            return compact_p()
    L0 = Ltil.xreplace(zero_w)
    if has_radicals([Ltil]):
        try:
            fc = FactoredCalculus([L0])
            return fc.expr(fc.frac(L0)), ring_p
        except UnsupportedExpression:
            pass
    return compact(sp.expand(L0)), compact_p


def _momentum_symbols(momenta, m: int) -> list:
    """``m`` real momentum symbols from names (a string or a list) or symbols; ``M1, ...``."""
    if isinstance(momenta, str):
        momenta = momenta.replace(",", " ").split()
    if momenta is None:
        momenta = [f"M{s + 1}" for s in range(m)]
    momenta = [sp.Symbol(s, real=True) if isinstance(s, str) else s for s in momenta]
    if len(momenta) != m:
        raise ValueError(f"{len(momenta)} momentum names for {m} frame fields")
    return momenta


def _legendre_hamiltonian(Lstar, omegas, momenta, omega_of, K) -> sp.Expr:
    r""":math:`H = M\omega - L^*` at :math:`\omega = \omega(M)`; for quadratic
    :math:`L^* = \omega K\omega/2 + h\omega + L_0`, :math:`H = (M - h)\omega(M)/2 - L_0`."""
    if not any(e.has(*omegas) for e in K):
        zero_o = {w: 0 for w in omegas}
        L0 = Lstar.xreplace(zero_o)
        h = [sp.diff(Lstar, w).xreplace(zero_o) for w in omegas]
        return compact(sum((Mv - hs) * omega_of[w] for Mv, hs, w in zip(momenta, h, omegas))
                       / 2 - L0)
    return default_policy().normalize((sum(Mv * w for Mv, w in zip(momenta, omegas)) - Lstar)
                                      .xreplace(omega_of))


def _prop7_structure(chart: Manifold, tau, c, d, momenta, p_M) -> AlmostPoissonStructure:
    r""":math:`J = \begin{pmatrix}0 & T^T\\ -T & -\Pi\end{pmatrix}`,
    :math:`\Pi_{sr} = c^t_{sr}M_t + d^\mu_{sr}p_\mu`, on ``chart``.

    Each entry of :math:`T` and each :math:`\Pi_{sr}` (:math:`s<r`) is brought to compact
    form once and ``J`` is built skew from them (:math:`-T`, :math:`\Pi_{rs} = -\Pi_{sr}`),
    so the structure takes its entries as they are (no second compact form)."""
    m, n, k = len(tau), len(tau[0]), len(p_M)
    Pi = sp.zeros(m, m)
    for s in range(m):
        for r in range(s + 1, m):
            e = sum(c[s][r][t] * momenta[t] for t in range(m)) \
                + sum(d[s][r][mu] * p_M[mu] for mu in range(k))
            Pi[s, r] = compact(e)
            Pi[r, s] = -Pi[s, r]
    T = sp.Matrix(tau).applyfunc(compact)    # (n-k) x n, rows tau_s
    J = sp.zeros(n + m, n + m)
    J[:n, n:] = T.T
    J[n:, :n] = -T
    J[n:, n:] = -Pi
    return AlmostPoissonStructure(chart, J, normal_form=False)


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
    z, zdot = list(z), list(zdot)
    m = len(z)
    S = sp.Matrix(S)
    if S.shape != (m, m):
        raise ValueError(f"S must be {m}x{m}")
    momenta = _momentum_symbols([f"p_{zi}" for zi in z] if momenta is None else momenta, m)
    Lstar = as_expr(Lstar)
    zdot_of, K = _legendre(Lstar, zdot, momenta)
    H = _legendre_hamiltonian(Lstar, zdot, momenta, zdot_of, K)
    # S is linear in zdot (Prop. 5): the ring's compact form, no general normalisation
    Sbar = S.applyfunc(lambda e: compact(as_expr(e).xreplace(zdot_of)))
    J = sp.zeros(2 * m, 2 * m)
    J[:m, m:] = sp.eye(m)
    J[m:, :m] = -sp.eye(m)
    J[m:, m:] = Sbar
    chart = Manifold(name, (*z, *momenta), parameters=tuple(parameters))
    M_of = {p: compact(sp.diff(Lstar, zd)) for p, zd in zip(momenta, zdot)}
    structure = AlmostPoissonStructure(chart, J)
    return PseudoHamiltonianForm(H, tuple(momenta), zdot_of, M_of,
                                 parts=lambda: (structure, ()))


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


def _natural_frame_data(system, frame: str):
    """``(tau, transversal, quasi-velocity symbols)`` of the system's natural frame, with the
    coordinate fields of the dependent velocities as transversal fields."""
    nat = getattr(system, "natural_frame", None)
    if not nat:
        raise ValueError(f"{getattr(system, 'name', 'the system')} has no natural frame")
    _, transversal = _graph_frame(system)
    tau = [list(f.components) for f in nat["frame"]]
    return tau, transversal, [sp.Symbol(str(n), real=True) for n in nat["names"]]


def system_pseudo_hamiltonian(system, frame=None, transversal=None, momenta=None):
    """``sys.pseudo_hamiltonian()``: Prop. 7 form of the system.

    ``frame="graph"`` (default): the graph frame of the constraints (quasi-velocities = the
    independent velocities), momenta ``p_<q>`` for the independent coordinates.
    ``frame="natural"``: the system's natural quasi-velocities (e.g. the body angular velocity
    of a rolling ball), momenta ``M1, M2, ...`` -- the form in the variables :math:`(q, M)` of
    Borisov & Mamaev (2015), App. C.1 (Chaplygin ball: 0.44 s CPU, Jacobi test 0.30 s; the
    graph frame 0.48 s and 0.38 s).  Both use the transversal fields ``d/dq_r`` of the
    dependent coordinates.  Or ``frame`` and ``transversal`` as component lists.

    >>> import geomech as gm
    >>> form = system_pseudo_hamiltonian(gm.examples.chaplygin_sleigh(), frame="natural")
    >>> form.hamiltonian
    (I*M1**2 + M2**2*m)/(2*I*m)
    """
    if getattr(system, "forces", None) is not None and any(
            not default_policy().is_zero(f) for f in system.forces):
        raise ValueError("the pseudo-Hamiltonian form needs potential forces only (forces=None)")
    if getattr(system, "is_affine", False):
        raise ValueError("the pseudo-Hamiltonian form needs homogeneous constraints; "
                         f"{getattr(system, 'name', 'the system')} has affine ones")
    N = system.manifold
    qvel = None
    if frame is None:
        frame = "graph"
    if frame == "natural":
        frame, transversal, qvel = _natural_frame_data(system, frame)
    elif frame == "graph":
        frame, transversal = _graph_frame(system)
        qvel = list(system.independent_velocities)
        if momenta is None:
            momenta = [f"p_{N.coords[N.velocities.index(w)].name}" for w in qvel]
    elif isinstance(frame, str):
        raise ValueError(f"unknown frame {frame!r}: 'natural', 'graph' or component lists")
    if transversal is None:
        raise ValueError("a frame needs its transversal fields as well")
    return pseudo_hamiltonian_form(N.coords, N.velocities, system.lagrangian, frame,
                                   transversal, momenta, N.parameters, quasi_velocities=qvel,
                                   name=f"{getattr(system, 'name', 'system')}_pseudo_hamiltonian",
                                   manifold=N)


def _graph_quadratic(system) -> tuple:
    """``(tau, transversal, momenta, (L*, p_mu, K, h))`` of the graph frame, square roots
    allowed in the coefficients; ``ValueError`` when ``L`` is not quadratic in the
    velocities."""
    N = system.manifold
    tau, trans = _graph_frame(system)
    qvel = list(system.independent_velocities)
    quad = _frame_quadratic_form(as_expr(system.lagrangian), list(N.velocities), tau, trans,
                                 qvel, radicals=True)
    if quad is None:
        raise ValueError("the Lagrangian is not quadratic in the velocities")
    momenta = _momentum_symbols([f"p_{N.coords[N.velocities.index(w)].name}" for w in qvel],
                                len(qvel))
    return tau, trans, tuple(momenta), quad


def implicit_hamiltonian(system) -> tuple:
    r"""``(K, h, L0, momenta)`` of the Prop. 7 form in the graph frame with the inverse
    Legendre map left unexpanded: for :math:`L^* = \tfrac12\omega^{\mathsf T}K\omega +
    h^{\mathsf T}\omega + L_0` (:math:`K = T^{\mathsf T}GT`, :math:`h = T^{\mathsf T}b`,
    :func:`_frame_quadratic_form`) the Hamiltonian is

    .. math:: H = \tfrac12\,(p - h)^{\mathsf T}K^{-1}(p - h) - L_0 ,
              \qquad \omega = K^{-1}(p - h)

    (Borisov & Mamaev (2015), App. C.1, (6)): the form of a system whose expanded
    :math:`\omega(p)` is over :data:`LEGENDRE_OPS_LIMIT` operations.  Square roots in the
    coefficients (a rolling ellipsoid) are allowed.  ``ValueError`` when the Lagrangian is
    not quadratic in the velocities.

    >>> import geomech as gm
    >>> K, h, L0, p = implicit_hamiltonian(gm.examples.chaplygin_sleigh())
    >>> K.shape, p
    ((2, 2), (p_x, p_phi))
    """
    tau, _, momenta, (Lstar, _, K, h) = _graph_quadratic(system)
    qvel = list(system.independent_velocities)
    return K, h, compact(Lstar.xreplace({w: 0 for w in qvel})), momenta


def implicit_jacobiator(system, seed: int = 1, tries: int = 8) -> tuple:
    r"""The Jacobiator components :math:`\mathrm{Jac}(q_i, p_s, p_r)` of the Prop. 7 bracket
    in the graph frame, exact, at one random point with rational parameters and rational
    cosines and sines (:func:`~geomech.core.zero.values.quadratic_points`), without the
    inverse Legendre map expanded.

    With :math:`J^{q_i p_t} = T_{ti}`, :math:`J^{p_sp_r} = -\Pi_{sr}`,
    :math:`\Pi_{sr} = c^t_{sr}p_t + d^\mu_{sr}p_\mu` and
    :math:`p_\mu = C_\mu K^{-1}(p - h) + e_\mu` (:func:`_frame_quadratic_form`), the sum
    :math:`\sum_l(J^{il}\partial_lJ^{jk} + J^{jl}\partial_lJ^{ki} + J^{kl}\partial_lJ^{ij})`
    (Borisov & Mamaev (2015), App. C.1) is

    .. math:: \mathrm{Jac}(q_i, p_s, p_r) = [\tau_s, \tau_r]_i - \sum_t T_{ti}\big(c^t_{sr}
              + \textstyle\sum_\mu d^\mu_{sr}\,(C_\mu K^{-1})_t\big),

    with :math:`[\tau_s,\tau_r] = c^t_{sr}\tau_t + d^\mu_{sr}a_\mu` solved at the point.
    Every quantity is a value in :math:`\mathbb Q(\sqrt\delta)`
    (:class:`~geomech.core.zero.values.QuadraticArithmetic`); a non-zero value proves that
    :math:`J` does not satisfy the Jacobi identity.  Returns ``(point, angles, values)``,
    ``values`` ``{(q_i, p_s, p_r): a + b*sqrt(delta)}`` for the non-zero components (empty:
    all vanish at that point, which proves nothing).  ``ValueError`` when no point of
    ``tries`` gives values (a pole, a second square root).

    >>> import geomech as gm
    >>> _, _, vals = implicit_jacobiator(gm.examples.chaplygin_sleigh())
    >>> len(vals) > 0
    True
    """
    from geomech.core.zero.values import (
        OutsideRing,
        PointEvaluator,
        QuadraticArithmetic,
        quadratic_points,
    )

    tau, trans, momenta, (_, p_mu, K, _) = _graph_quadratic(system)
    N, qvel = system.manifold, list(system.independent_velocities)
    C = [[sp.diff(p, w) for w in qvel] for p in p_mu]
    tau = [[sp.S(c) for c in t] for t in tau]
    dT = [[[sp.diff(c, x) for x in N.coords] for c in t] for t in tau]
    exprs = [*K, *(e for row in C for e in row), *(c for t in tau for c in t),
             *(e for t in dT for row in t for e in row)]
    angles = sorted({x for e in exprs for a in e.atoms(sp.sin, sp.cos)
                     for x in a.args[0].free_symbols if x in N.coords}, key=sp.default_sort_key)
    syms = sorted(set().union(*(e.free_symbols for e in exprs)) - set(angles),
                  key=sp.default_sort_key)
    for pt, ang in quadratic_points(syms, angles, tries, seed, fixed=N.parameters):
        poll()
        qv = PointEvaluator(pt, ang, QuadraticArithmetic())
        try:
            vals = _jacobiator_values(qv, tau, trans, K, C, dT)
        except (OutsideRing, ZeroDivisionError):
            continue
        d = qv.field.d
        root = sp.sqrt(sp.Rational(d.numerator, d.denominator)) if d else 0
        out = {(N.coords[i], momenta[s], momenta[r]): sp.Rational(*_qq(a)) + sp.Rational(*_qq(b))
               * root for (i, s, r), (a, b) in vals.items() if a or b}
        return pt, ang, out
    raise ValueError(f"no exact values of the frame at {tries} random points")


def _qq(x) -> tuple:
    return int(x.numerator), int(x.denominator)


def _jacobiator_values(qv, tau, trans, K, C, dT) -> dict:
    """``{(i, s, r): (a, b)}`` of :func:`implicit_jacobiator` at the point of ``qv``."""
    m, n = len(tau), len(tau[0])
    T = [[qv.value(c) for c in t] for t in tau]
    E = [[qv.value(sp.S(f[i])) for f in [*tau, *trans]] for i in range(n)]
    Einv = qv.field.inverse_matrix(E)
    Kinv = qv.field.inverse_matrix([[qv.value(K[a, b]) for b in range(m)] for a in range(m)])
    CK = [[_dot(qv, [qv.value(e) for e in row], [Kinv[u][t] for u in range(m)])
           for t in range(m)] for row in C]                     # (C_mu K^-1)_t
    out = {}
    for s, r in itertools.combinations(range(m), 2):
        br = [qv.field.add(_dot(qv, T[s], [qv.value(e) for e in dT[r][i]]),
                     _minus(_dot(qv, T[r], [qv.value(e) for e in dT[s][i]])))
              for i in range(n)]                            # [tau_s, tau_r] at the point
        co = [_dot(qv, Einv[a], br) for a in range(n)]      # E co = [tau_s, tau_r]
        dPi = [qv.field.add(co[t], _dot(qv, co[m:], [CK[mu][t] for mu in range(len(CK))]))
               for t in range(m)]                            # d Pi_sr / d p_t
        for i in range(n):
            jac = qv.field.add(br[i], _minus(_dot(qv, [T[t][i] for t in range(m)], dPi)))
            out[(i, s, r)] = jac
    return out


def _dot(qv, xs: list, ys: list) -> tuple:
    acc = qv.field.zero
    for x, y in zip(xs, ys):
        acc = qv.field.add(acc, qv.field.mul(x, y))
    return acc


def _minus(x: tuple) -> tuple:
    return -x[0], -x[1]


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
