r"""Symmetries, Noether fields and linear first integrals of nonholonomic systems.

Conventions (Borisov & Mamaev (2015), §4.1, §4.2, §5 and App. A; Thm 3, Thm 4 (Kozlov and
Kolesnikov 1978) and Thm 5).  A field :math:`u = \sum_i u_i(q)\,\partial_{q_i}` on the
configuration space :math:`N` is prolonged to :math:`TN` by

.. math:: \tilde u = \sum_i u_i\,\frac{\partial}{\partial q_i}
          + \sum_{i,j}\frac{\partial u_i}{\partial q_j}\,\dot q_j\,
          \frac{\partial}{\partial\dot q_i}.

* **Theorem 3 (strengthened).** With :math:`\tilde u(L)\equiv 0` on the whole of :math:`TN`
  (the printed condition :math:`\tilde u(L)^*=0` on the constraint set is *not* sufficient,
  see the counterexample in the documentation), :math:`\tilde u(f_\mu)|_{\mathcal M}=0` and
  :math:`\mathcal L_{\tilde u}(\sum_i Q_i\,dq_i)=0`, the restriction :math:`\tilde u|_{\mathcal M}`
  is a symmetry field of the nonholonomic flow.  The definitive test
  :math:`[\tilde u|_{\mathcal M}, V] = 0` is used as the arbiter when only the weaker
  conditions hold (:func:`check_symmetry`).
* **Theorem 4 (Kozlov–Kolesnikov).** If :math:`u\in\Gamma(\mathcal D)`, :math:`(Q,u)=0` and
  :math:`\tilde u(L)|_{\mathcal M}=0`, then :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` is a
  first integral (:func:`check_noether_field`, :func:`noether_fields`).
* **Theorem 5.** For a natural system :math:`L=\tfrac12(\dot q,B\dot q)-U`, a linear integral
  :math:`F=(u^{(0)},B\dot q)` comes from the Noether field :math:`u=\Pi_B u^{(0)}`
  (:func:`noether_field_from_integral`).
* **Classification (§4.2).** For symmetry fields :math:`u_\beta` the matrix
  :math:`K_{\mu\beta}=\alpha_\mu(u_\beta)` has generic rank :math:`\rho`; the action is C-1
  (generalized Chaplygin) iff :math:`\rho=r`, else C-2 with :math:`m_0=r-\rho` and the
  nonholonomic momentum equation
  :math:`\frac{d}{dt}\langle\partial L/\partial\dot q,E_s\rangle=\sum_\beta\dot\xi_{s\beta}
  \langle\partial L/\partial\dot q,u_\beta\rangle` for :math:`E_s=\sum_\beta\xi_{s\beta}u_\beta`
  spanning :math:`T\mathcal O\cap\mathcal D` (:func:`classify_action`).

All identities are decided by the zero policy of :mod:`geomech.core.zero`.

Examples
--------
>>> import geomech as gm
>>> sleigh = gm.examples.chaplygin_sleigh()        # Borisov & Mamaev (2015), §3.3
>>> N = sleigh.manifold; x, y, phi = N.coords
>>> u_rot = N.vector_field([-y, x, 1])
>>> check_symmetry(sleigh, u_rot).is_symmetry
True
>>> classify_action(sleigh, [N.vector_field([1, 0, 0]), N.vector_field([0, 1, 0])]).case
'C-2'
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.zero import (
    default_policy,
    is_zero,
)
from geomech.lie.prolongation import prolong
from geomech.mechanics.analysis.ansatz import (  # the families and their linear equations
    coerce_ansatz,
    fields_from_solutions,
    solve_linear_identities,
)
from geomech.mechanics.analysis.common import (  # the system contract
    active_forces,
    as_field,
    check_system,
    constraint_matrix,
    restrict,
)

__all__ = ["SymmetryCheck", "ActionClassification", "MomentumEquation", "check_symmetry",
           "find_point_symmetries", "classify_action"]


def _vector_field(system) -> VectorField:
    return system.vector_field()


def _lie_derivative_of_force(u: VectorField, Q: Sequence) -> list:
    r"""Components of :math:`\mathcal L_{\tilde u}(\sum_i Q_i dq_i)` (Borisov & Mamaev
    (2015), remark to Thm 3)."""
    N = u.manifold
    q = N.coords
    lift = prolong(u)
    out = []
    for i, qi in enumerate(q):
        e = lift(Q[i], normalize=False)
        e += sum(Qk * sp.diff(uk, qi) for Qk, uk in zip(Q, u.components))
        out.append(e)
    return out


# =============================================================================================
# Theorem 3
# =============================================================================================
@dataclass
class SymmetryCheck:
    r"""Outcome of :func:`check_symmetry` for one field.

    Attributes
    ----------
    field : VectorField
        The field :math:`u` on the configuration space.
    lagrangian_invariant : bool
        :math:`\tilde u(L)\equiv 0` on :math:`TN` (the strengthened Theorem 3 condition).
    lagrangian_invariant_on_M : bool
        The printed condition :math:`\tilde u(L)^* = 0` (necessary, not sufficient).
    constraints_invariant : bool
        :math:`\tilde u(f_\mu)|_{\mathcal M} = 0` for all μ (tangency to :math:`\mathcal M`).
    forces_invariant : bool or None
        :math:`\mathcal L_{\tilde u}(Q\,dq) = 0`; ``None`` without forces.
    commutes : bool or None
        The definitive test :math:`[\tilde u|_{\mathcal M}, V] = 0` (``None`` if not run).
    theorem3 : bool
        The sufficient conditions of the (strengthened) Theorem 3 all hold.
    is_symmetry : bool
        :math:`\tilde u|_{\mathcal M}` is a symmetry field of the flow.
    failed : list of str
        Names of the failing conditions.
    prolongation : VectorField or None
        :math:`\tilde u|_{\mathcal M}` on the phase space (when tangent).
    """

    field: VectorField
    lagrangian_invariant: bool
    lagrangian_invariant_on_M: bool
    constraints_invariant: bool
    forces_invariant: bool | None
    commutes: bool | None
    theorem3: bool
    is_symmetry: bool
    failed: list = field(default_factory=list)
    prolongation: VectorField | None = None
    details: dict = field(default_factory=dict, repr=False)

    def __bool__(self) -> bool:
        return self.is_symmetry

    def explain(self) -> str:
        """One line per condition, for reports."""
        rows = [("u~(L) = 0 on TN (Theorem 3, strengthened)", self.lagrangian_invariant),
                ("u~(L)* = 0 on M (printed condition)", self.lagrangian_invariant_on_M),
                ("u~(f_mu)|_M = 0 (constraints invariant)", self.constraints_invariant)]
        if self.forces_invariant is not None:
            rows.append(("L_u~(Q dq) = 0 (forces invariant)", self.forces_invariant))
        if self.commutes is not None:
            rows.append(("[u~|_M, V] = 0 (definitive)", self.commutes))
        lines = [f"{'ok ' if ok else 'FAIL'} {name}" for name, ok in rows]
        lines.append(f"=> {'symmetry field' if self.is_symmetry else 'not a symmetry field'}")
        return "\n".join(lines)


def check_symmetry(system, fields, definitive: bool | None = None):
    r"""Theorem 3 for given fields: are the prolonged fields symmetries of the flow?

    For each :math:`u` the conditions of the strengthened Theorem 3 are tested:
    :math:`\tilde u(L)\equiv 0` on :math:`TN`, :math:`\tilde u(f_\mu)|_{\mathcal M}=0` and, with
    forces, :math:`\mathcal L_{\tilde u}(Q\,dq)=0`.  The printed condition
    :math:`\tilde u(L)^*=0` is also reported: it is necessary but not sufficient.  When the
    field is tangent to :math:`\mathcal M` but a sufficient condition fails, the definitive test
    :math:`[\tilde u|_{\mathcal M}, V]=0` decides (bracket taken in the bracket graph).

    Parameters
    ----------
    system : NonholonomicSystem
    fields : VectorField or sequence of VectorField (or component lists)
    definitive : bool, optional
        ``True``: always run the bracket test; ``False``: never (the result is then Theorem 3
        alone); default: run it only when it decides.

    Returns
    -------
    SymmetryCheck, or a list of them when a sequence of fields was given.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi", parameters="k"); x, y, phi = N.coords
    >>> xd, yd, phid = N.velocities; k, = N.parameters
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> L = (xd**2 + yd**2 + phid**2)/2 + k*x*f      # u~(L)* = 0 but u~(L) != 0
    >>> r = check_symmetry(gm.NonholonomicSystem(N, lagrangian=L, constraints=[f]),
    ...                    N.vector_field([1, 0, 0]))
    >>> r.lagrangian_invariant_on_M, r.lagrangian_invariant, r.is_symmetry
    (True, False, False)
    """
    check_system(system)
    single = isinstance(fields, VectorField) or (
        isinstance(fields, Sequence) and fields and not isinstance(fields[0], (VectorField,
                                                                              Sequence)))
    flist = [fields] if single else list(fields)
    out = [_check_one(system, as_field(system, u), definitive) for u in flist]
    return out[0] if single else out


def _check_one(system, u: VectorField, definitive) -> SymmetryCheck:
    L = system.lagrangian
    lift = prolong(u)
    uL = lift(L, normalize=False)
    lag_full = is_zero(uL)
    lag_M = lag_full or is_zero(restrict(system, uL))
    cons_vals = [restrict(system, lift(f, normalize=False)) for f in system.constraints]
    cons_ok = all(is_zero(e) for e in cons_vals)
    Q = active_forces(system)
    forces_ok = None
    if Q is not None:
        forces_ok = all(is_zero(e) for e in _lie_derivative_of_force(u, Q))
    theorem3 = lag_full and cons_ok and forces_ok is not False
    failed = []
    if not lag_full:
        failed.append("lagrangian_invariant")
    if not lag_M:
        failed.append("lagrangian_invariant_on_M")
    if not cons_ok:
        failed.append("constraints_invariant")
    if forces_ok is False:
        failed.append("forces_invariant")
    pro = prolong(u, system.phase_space, system.dependent_solution) if cons_ok else None
    commutes = None
    run = definitive if definitive is not None else (cons_ok and not theorem3)
    if run and pro is not None:
        commutes = _bracket(pro, _vector_field(system)).is_zero()
        if not commutes:
            failed.append("commutes")
    elif run and pro is None:
        commutes = False
        failed.append("commutes")
    is_sym = bool(cons_ok and (commutes if commutes is not None else theorem3))
    details = {"u(L)": uL, "u(f)|M": cons_vals}
    return SymmetryCheck(u, lag_full, lag_M, cons_ok, forces_ok, commutes, theorem3, is_sym,
                         failed, pro, details)


def _bracket(X: VectorField, Y: VectorField) -> VectorField:
    """``[X, Y]`` through the shared bracket graph when available."""
    try:
        from geomech.lie.graph import BracketGraph
    except ImportError:  # pragma: no cover - graph is part of the library
        return X.bracket(Y)
    return BracketGraph.of(X.manifold).bracket(X, Y)


# =============================================================================================
# point symmetries
# =============================================================================================
def find_point_symmetries(system, ansatz=None, verify: bool = True) -> list[VectorField]:
    r"""Infinitesimal point symmetries in an ansatz family (strengthened Theorem 3).

    The unknown field :math:`u=\sum_{i,k}c_{ik}\varphi_{ik}(q)\partial_{q_i}` must satisfy the
    determining equations, all linear in the constants :math:`c_{ik}`:

    .. math:: \tilde u(L)\equiv 0\ \text{on } TN,\qquad
              \tilde u(f_\mu)|_{\mathcal M}\equiv 0,\qquad
              \mathcal L_{\tilde u}\Big(\sum_i Q_i\,dq_i\Big)=0 .

    They are split into monomials (trigonometric functions rationalised) and solved exactly,
    with parameters in two exact stages
    (:func:`~geomech.mechanics.analysis.ansatz.solve_linear_identities`: the unknowns that
    occur at a random parameter value, then the symbolic system on those; certified by the
    rank bound).

    Parameters
    ----------
    system : NonholonomicSystem
    ansatz : Ansatz, int, list of functions or dict, optional
        Default: degree-1 polynomials in the linear coordinates times degree-1 trigonometric
        polynomials in the angles (coordinates occurring inside ``sin``/``cos``).
    verify : bool
        Re-check every basis field with :func:`check_symmetry` (Theorem 3).

    Returns
    -------
    list of VectorField
        A basis (over the constants) of the symmetries within the family; in the default
        ansatz (verified) computed once per system (the report's symmetry and
        integrability sections read the same basis).

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi", parameters="m I a")
    >>> xd, yd, phid = N.velocities; phi = N.coords[2]; m, I, a = N.parameters
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> S = gm.NonholonomicSystem(N, lagrangian=m*(xd**2+yd**2)/2 + I*phid**2/2 + m*a*phid*f,
    ...                           constraints=[f])
    >>> len(find_point_symmetries(S))            # se(2)
    3

    The default search (``ansatz=None``) is kept on the system: a report's symmetry and
    integrability sections read the same fields.
    """
    check_system(system)
    if ansatz is not None:
        return _point_symmetries(system, ansatz, verify)
    cache = system.__dict__.setdefault("_point_symmetry_cache", {})
    if True in cache:                     # verified fields serve both calls
        return list(cache[True])
    if verify not in cache:
        cache[verify] = _point_symmetries(system, None, verify)
    return list(cache[verify])


def _point_symmetries(system, ansatz, verify: bool) -> list[VectorField]:
    """:func:`find_point_symmetries`, uncached."""
    N = system.manifold
    comps, unknowns = coerce_ansatz(system, ansatz).template(N)
    u = N.vector_field(comps)
    lift = prolong(u)
    exprs = [lift(system.lagrangian, normalize=False)]
    exprs += [restrict(system, lift(f, normalize=False)) for f in system.constraints]
    Q = active_forces(system)
    if Q is not None:
        exprs += _lie_derivative_of_force(u, Q)
    sols = solve_linear_identities(exprs, unknowns, keep=N.parameters)
    fields = fields_from_solutions(N, comps, sols)
    fields = [f for f in fields if not f.is_zero()]
    if verify:
        for f in fields:
            if not _check_one(system, f, definitive=False).theorem3:
                raise RuntimeError(f"internal error: {f} solves the determining equations "
                                   "but fails Theorem 3")
    return fields


# =============================================================================================
# classification C-1 / C-2 and the nonholonomic momentum equation
# =============================================================================================
@dataclass
class MomentumEquation:
    r"""Nonholonomic momentum equation (4.11) for :math:`E=\sum_\beta\xi_\beta u_\beta`.

    :math:`\frac{d}{dt}\,p_E = \sum_\beta\dot\xi_\beta\,\langle\partial L/\partial\dot q,
    u_\beta\rangle` with :math:`p_E=\langle\partial L/\partial\dot q,E\rangle`.
    ``momentum`` and ``rhs`` are functions on :math:`TN`; ``on_phase_space`` gives both
    restricted to :math:`\mathcal M`.
    """

    field: VectorField
    xi: tuple
    momentum: sp.Expr
    rhs: sp.Expr
    system: Any = field(repr=False, default=None)

    @property
    def equation(self) -> sp.Eq:
        t = sp.Symbol("t")
        return sp.Eq(sp.Derivative(sp.Function("p_E")(t), t), self.rhs,
                     evaluate=False)

    def on_phase_space(self) -> tuple:
        return restrict(self.system, self.momentum), restrict(self.system, self.rhs)

    def verify(self) -> bool:
        """``V(p_E|_M) == rhs|_M`` along the flow of the system (exact)."""
        p, r = self.on_phase_space()
        return is_zero(_vector_field(self.system)(p) - r)


@dataclass
class ActionClassification:
    r"""Result of :func:`classify_action`.

    Attributes
    ----------
    case : str
        ``"C-1"`` (:math:`T\mathcal O\cap\mathcal D=0`, generalized Chaplygin) or ``"C-2"``.
    rank : int
        Generic rank :math:`\rho` of :math:`K_{\mu\beta}=\alpha_\mu(u_\beta)`.
    m0 : int
        :math:`\dim C_q = r - \rho` (0 in case C-1).
    orbit_dim : int
        Generic rank of the fields (dimension of the orbits).
    matrix : sympy.Matrix
        :math:`K`.
    kernel_fields : list of VectorField
        :math:`E_s=\sum_\beta\chi_{s\beta}u_\beta` spanning :math:`C_q` (case C-2).
    singular_locus : list of expressions
        Factors whose vanishing lowers the rank of :math:`K` (e.g. ``sin(phi)``).
    momentum_equations : list of MomentumEquation
        One per kernel field (case C-2).
    """

    case: str
    rank: int
    m0: int
    orbit_dim: int
    matrix: sp.Matrix
    kernel_fields: list
    kernel_coefficients: list
    singular_locus: list
    momentum_equations: list

    def __str__(self) -> str:
        s = f"{self.case}: rank K = {self.rank}, m0 = {self.m0}, orbit dim = {self.orbit_dim}"
        if self.singular_locus:
            s += "; rank drops where " + " or ".join(f"{sp.sstr(f)} = 0"
                                                    for f in self.singular_locus)
        return s


def _rank_drop_locus(K: sp.Matrix, rho: int) -> list:
    """Non-constant common factors of the ``rho``-minors of ``K``."""
    if rho == 0:
        return []
    rows, cols = K.shape
    minors = []
    for ri in itertools.combinations(range(rows), rho):
        for ci in itertools.combinations(range(cols), rho):
            d = sp.cancel(K.extract(list(ri), list(ci)).det(method="berkowitz"))
            if not is_zero(d):
                minors.append(sp.numer(sp.together(d)))
    if not minors:
        return []
    g = minors[0]
    for mnr in minors[1:]:
        g = sp.gcd(g, mnr)
        if g.is_number:
            break
    if g.is_number:
        return []
    _, facs = sp.factor_list(g)
    return [f for f, _ in facs if not f.is_number]


def classify_action(system, fields) -> ActionClassification:
    r"""Cases C-1 / C-2 of an action relative to the constraints (§4.2), with (4.11).

    With :math:`K_{\mu\beta}=\alpha_\mu(u_\beta)` of generic rank :math:`\rho` and
    :math:`r` fields: C-1 iff :math:`\rho=r`; otherwise C-2 with :math:`m_0=r-\rho` and
    :math:`C_q=T\mathcal O_q\cap\mathcal D_q` spanned by :math:`E_s=\sum_\beta\chi_{s\beta}u_\beta`,
    :math:`\chi_s\in\ker K`.  For each :math:`E_s` the nonholonomic momentum equation

    .. math:: \frac{d}{dt}\Big\langle\frac{\partial L}{\partial\dot q},E_s\Big\rangle
              =\sum_\beta\dot\xi_{s\beta}\Big\langle\frac{\partial L}{\partial\dot q},
              u_\beta\Big\rangle

    is returned (valid when :math:`\tilde u_\beta(L)=0` and there are no forces).

    Examples
    --------
    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh(); N = S.manifold
    >>> c = classify_action(S, [N.vector_field([1, 0, 0])])
    >>> c.case, c.singular_locus
    ('C-1', [sin(phi)])
    """
    check_system(system)
    flist = [as_field(system, u) for u in
             ([fields] if isinstance(fields, VectorField) else fields)]
    if not flist:
        raise ValueError("classify_action needs at least one field")
    N = system.manifold
    A = constraint_matrix(system)
    U = sp.Matrix([list(u.components) for u in flist]).T          # n x r
    K = (A * U).applyfunc(sp.cancel) if A.rows else sp.zeros(0, len(flist))
    pol = default_policy()
    r = len(flist)
    rho = pol.rank(K) if K.rows else 0
    orbit_dim = pol.rank(U)
    locus = _rank_drop_locus(K, rho) if K.rows else []
    kernel_fields, coeffs, moms = [], [], []
    if rho < r:
        ns = pol.nullspace(K) if K.rows else [sp.eye(r).col(i) for i in range(r)]
        L = system.lagrangian
        p = [sp.diff(L, v) for v in N.velocities]
        pu = [sum(pi * ui for pi, ui in zip(p, u.components)) for u in flist]
        for chi in ns:
            xi = tuple(sp.cancel(c) for c in chi)
            den = sp.lcm([sp.denom(c) for c in xi])
            if not is_zero(den - 1) and den.free_symbols:
                xi = tuple(sp.cancel(c * den) for c in xi)
            E = sum((c * u for c, u in zip(xi, flist)), N.vector_field([0] * N.dim))
            xidot = [sum(sp.diff(c, qj) * vj for qj, vj in zip(N.coords, N.velocities))
                     for c in xi]
            mom = sp.expand(sum(pi * ei for pi, ei in zip(p, E.components)))
            rhs = sp.expand(sum(d * q_ for d, q_ in zip(xidot, pu)))
            kernel_fields.append(E)
            coeffs.append(xi)
            moms.append(MomentumEquation(E, xi, mom, rhs, system))
    case = "C-1" if rho == r else "C-2"
    return ActionClassification(case, rho, r - rho, orbit_dim, K, kernel_fields, coeffs,
                                locus, moms)
