r"""Theorem 4 (Kozlov & Kolesnikov (1978); Borisov & Mamaev (2015), §5.1): Noether fields.

For a system with Lagrangian :math:`L(q,\dot q)` on :math:`TN`, constraints
:math:`f_\mu=\sum_i a_{\mu i}(q)\dot q_i (+b_\mu)` and forces :math:`Q`: if
:math:`u\in\Gamma(\mathcal D)` (:math:`\sum_i a_{\mu i}u_i=0`), :math:`(Q,u)|_{\mathcal M}=0`
and :math:`\tilde u(L)|_{\mathcal M}=0` for the tangent (complete) lift
:math:`\tilde u` (:func:`geomech.lie.prolongation.prolong`),

.. math:: \tilde u=\sum_i u_i\,\partial_{q_i}+\sum_{i,j}\partial_j u_i\,\dot q_j\,
          \partial_{\dot q_i},

then the momentum :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` (5.3) is a first integral.

* :func:`check_noether_field` -- the test, with its outcome :class:`NoetherCheck`;
* :func:`theorem4_conditions` -- the expressions that vanish iff ``u`` is a Noether field;
* :func:`noether_template_fields` -- the one search: in a template linear in unknown
  constants the three conditions are linear identities, split into exact linear equations
  (:func:`~geomech.mechanics.analysis.ansatz.solve_linear_identities`) and solved by the
  engine; :func:`find_noether_fields` (tangent generators times functions) and
  :func:`geomech.mechanics.analysis.noether.noether_fields` (a coordinate ansatz) build
  their templates and call it.

>>> import geomech as gm
>>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
>>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
>>> check_noether_field(S, N.vector_field([0, 0, 1])).integral
phidot
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.lie.prolongation import prolong
from geomech.mechanics.analysis.ansatz import solve_linear_identities
from geomech.mechanics.analysis.common import (
    active_forces,
    as_field,
    check_system,
    constraint_matrix,
    restrict,
)
from geomech.mechanics.analysis.integrals import has_irrational_power

__all__ = ["NoetherCheck", "check_noether_field", "noether_integral", "theorem4_conditions",
           "noether_template_fields", "find_noether_fields"]


@dataclass(frozen=True)
class NoetherCheck:
    r"""Outcome of :func:`check_noether_field` (Theorem 4); truthy iff ``is_noether``.

    Attributes
    ----------
    field : VectorField
        The field ``u`` tested.
    is_noether : bool
        ``tangent and forces_ok and lagrangian_ok``.
    tangent : bool
        :math:`u\in\Gamma(\mathcal D)` (:math:`\sum_i a_{\mu i}u_i\equiv0`);
        ``failing_rows`` lists the constraints (0-based) it violates.
    forces_ok : bool
        :math:`(Q,u)|_{\mathcal M}=0`.
    lagrangian_ok : bool
        :math:`\tilde u(L)|_{\mathcal M}=0`; ``lift_of_L`` is that expression (0 when it
        vanishes).
    integral : sympy expression
        :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` on :math:`TN`; ``integral_on_M``
        its restriction to the phase space.
    is_symmetry : bool
        Whether :math:`\tilde u` also preserves the constraints (Theorem 3):
        :math:`\tilde u(f_\mu)|_{\mathcal M}=0`.
    reasons : tuple of str
        Why ``u`` is not a Noether field, one line per failed condition.
    """

    field: VectorField
    is_noether: bool
    tangent: bool
    failing_rows: tuple
    forces_ok: bool
    lagrangian_ok: bool
    lift_of_L: sp.Expr
    integral: sp.Expr
    integral_on_M: sp.Expr | None = None
    is_symmetry: bool | None = None
    reasons: tuple = ()

    def __bool__(self) -> bool:
        return self.is_noether


def _irrational_part(b: sp.Expr) -> sp.Expr:
    """Product of the factors of ``b`` raised to non-integer powers (1 if none)."""
    b = sp.factor_terms(as_expr(b))
    if not (b.is_Mul or b.is_Pow):
        return sp.S.One
    return sp.Mul(*[base**e for base, e in b.as_powers_dict().items()
                    if not as_expr(e).is_Integer and not base.is_number])


def _common_irrational_factor(u: Sequence) -> sp.Expr:
    """The irrational factor common to the non-zero components of ``u`` (1 if none)."""
    nz = [c for c in u if c != 0]
    if nz:
        cand = _irrational_part(nz[0])
        if cand != 1 and all(not has_irrational_power(sp.factor_terms(c / cand)) or
                             _irrational_part(c / cand) == 1 for c in nz):
            return cand
    return sp.S.One


def _restrict(expr, solution: dict) -> sp.Expr:
    """Restriction to the constraints (dependent velocities substituted), not normalised:
    the zero tests decide, values are compacted only for reports."""
    return as_expr(expr).xreplace(solution) if solution else as_expr(expr)


def _lift_over_factor(N, u: Sequence, L, solution: dict,
                      lift: VectorField | None = None) -> tuple[sp.Expr, sp.Expr]:
    r"""``(P, X)`` with :math:`\tilde u(L)|_{\mathcal M} = P\,X`, ``P`` the common irrational
    factor of the components of ``u`` (a field on the chart ``N``) and ``X`` free of it.

    With :math:`u = P\bar u`: :math:`\tilde u(L) = P\,(\tilde{\bar u}(L) + \dot P/P\,
    \sum_i\bar u_i\partial L/\partial\dot q_i)`, and :math:`\dot P/P` is computed factor by
    factor (rational for rational bases)."""
    u = [as_expr(c) for c in u]
    P = _common_irrational_factor(u)
    if P == 1:
        return P, _restrict(prolong(N.vector_field(u))(L, normalize=False), solution)
    ubar = [sp.factor_terms(c / P) for c in u]
    logdot = sp.S.Zero
    for base, e in P.as_powers_dict().items():
        logdot += e * sum(sp.diff(base, q) * qd for q, qd in zip(N.coords, N.velocities)) / base
    F = sum(ui * sp.diff(L, qd) for ui, qd in zip(ubar, N.velocities))
    X = prolong(N.vector_field(ubar))(L, normalize=False) + logdot * F
    return P, _restrict(X, solution)


def noether_integral(u: Sequence, L, velocities: Sequence[sp.Symbol]) -> sp.Expr:
    r"""The Noether momentum :math:`F = \sum_i u_i\,\partial L/\partial\dot q_i` (5.3).

    >>> x, y, xd, yd = sp.symbols("x y xdot ydot")
    >>> noether_integral([-y, x], (xd**2 + yd**2)/2, [xd, yd])
    x*ydot - xdot*y
    """
    L = as_expr(L)
    return default_policy().normalize(sum(as_expr(ui) * sp.diff(L, qd)
                                          for ui, qd in zip(u, velocities)))


def _theorem4(system, u: VectorField, solution: dict,
              lift: VectorField | None = None) -> NoetherCheck:
    """The three conditions of Theorem 4 decided by the zero policy (no restricted integral,
    no symmetry test: :func:`check_noether_field` adds them)."""
    pol = default_policy()
    L = as_expr(system.lagrangian)
    reasons, failing = [], []
    A = constraint_matrix(system)
    for k in range(A.rows):
        val = sp.Add(*[A[k, i] * uk for i, uk in enumerate(u.components) if uk != 0])
        if not pol.is_zero(val):
            failing.append(k)
            reasons.append(f"u is not tangent to constraint {k + 1}: a(u) = {pol.normalize(val)}")
    forces, forces_ok = active_forces(system), True
    if forces is not None:
        Qu = _restrict(sum(as_expr(Q) * ui for Q, ui in zip(forces, u.components)), solution)
        if not pol.is_zero(Qu):
            forces_ok = False
            reasons.append(f"(Q, u) = {pol.normalize(Qu)} does not vanish on the constraints")
    P, X = _lift_over_factor(u.manifold, u.components, L, solution, lift)
    lift_ok = pol.is_zero(X)
    uL = sp.S.Zero if lift_ok else P * pol.normalize(X)
    if not lift_ok:
        reasons.append(f"the lift of u changes L on the constraints: {uL}")
    F = noether_integral(u.components, L, u.manifold.velocities)
    return NoetherCheck(u, not failing and forces_ok and lift_ok, not failing, tuple(failing),
                        forces_ok, lift_ok, uL, F, reasons=tuple(reasons))


def check_noether_field(system, u) -> NoetherCheck:
    r"""Theorem 4 (Kozlov–Kolesnikov): is ``u`` a Noether field, and its integral.

    Conditions (5.1)–(5.2): :math:`\sum_i a_{\mu i}u_i=0` (the homogeneous part of the
    constraints), :math:`\sum_i Q_iu_i=0` on :math:`\mathcal M`, and
    :math:`\tilde u(L)|_{\mathcal M}=0` (computed on :math:`TN` with the free Lagrangian,
    then restricted).  Then :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` is a first
    integral; the outcome also says whether :math:`\tilde u` preserves the constraints.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y th ph", parameters="m I J r")
    >>> x, y, th, ph = N.coords; xd, yd, thd, phd = N.velocities; m, I, J, r = N.parameters
    >>> cons = [sp.sin(ph)*xd - r*thd*sp.cos(ph)*sp.cos(th),
    ...         sp.sin(ph)*yd - r*thd*sp.cos(ph)*sp.sin(th)]
    >>> S = gm.NonholonomicSystem(N, lagrangian=m*(xd**2+yd**2)/2 + I*thd**2/2 + J*phd**2,
    ...                           constraints=cons)
    >>> c = check_noether_field(S, N.vector_field([0, 0, 0, 1]))
    >>> c.is_noether, c.integral, c.is_symmetry
    (True, 2*J*phdot, False)
    >>> check_noether_field(S, N.vector_field([1, 0, 0, 0])).reasons[0]
    'u is not tangent to constraint 1: a(u) = sin(ph)'
    """
    check_system(system)
    u = as_field(system, u)
    lift = prolong(u)
    base = _theorem4(system, u, dict(system.dependent_solution), lift)
    pol = default_policy()
    is_sym = all(pol.is_zero(restrict(system, lift(f, normalize=False)))
                 for f in system.constraints)
    return replace(base, integral_on_M=compact(restrict(system, base.integral)),
                   is_symmetry=is_sym)


def theorem4_conditions(system, u, expand: bool = True) -> list:
    r"""The expressions that vanish identically iff ``u`` is a Noether field (Theorem 4):
    :math:`\sum_i a_{\mu i}u_i` (one per constraint), :math:`\tilde u(L)|_{\mathcal M}` and,
    with forces, :math:`(Q,u)|_{\mathcal M}`; linear in ``u`` (templates with unknown
    constants or functions give the determining equations).

    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> theorem4_conditions(S, N.vector_field([1, 0, 0]))
    [-sin(phi), 0]
    """
    u = as_field(system, u)
    return _conditions(system, u.components, system.constraints, active_forces(system),
                       dict(system.dependent_solution), expand)


def _conditions(system, u: Sequence, constraints, forces, solution: dict, expand: bool,
                L=None) -> list:
    """:func:`theorem4_conditions` for components ``u`` (``L`` instead of the system's)."""
    N = system.manifold
    L = system.lagrangian if L is None else L
    exprs = [sp.Add(*[sp.diff(as_expr(f), qd) * ci for qd, ci in zip(N.velocities, u)
                      if ci != 0]) for f in constraints]
    if expand:          # templates: the ring splits them unexpanded (expansion is the cost)
        exprs = [sp.expand(e) for e in exprs]
    exprs.append(_restrict(prolong(N.vector_field(u))(L, normalize=False), solution))
    if forces is not None:
        exprs.append(_restrict(sp.Add(*[as_expr(Q) * ci for Q, ci in zip(forces, u)]),
                               solution))
    return exprs


def noether_template_fields(system, comps: Sequence, unknowns: Sequence[sp.Symbol],
                            tangent: bool = False) -> list[list[sp.Expr]]:
    r"""Noether fields (Theorem 4) in a template linear in constant ``unknowns``: a basis.

    The conditions :math:`\sum_i a_{\mu i}u_i\equiv0` (skipped when the template is
    ``tangent`` by construction), :math:`(Q,u)|_{\mathcal M}\equiv0` and
    :math:`\tilde u(L)|_{\mathcal M}\equiv0` are linear in the unknowns; they are split
    into exact linear equations and solved exactly
    (:func:`~geomech.mechanics.analysis.ansatz.solve_linear_identities`; the system's
    parameters stay symbolic).  Terms with an irrational factor :math:`P` (e.g.
    :math:`1/\sqrt{G}`) are solved in classes of equal :math:`P`, with
    :math:`\tilde u(L)=P\,X` computed factor by factor; a combination that the class split
    admits wrongly is dropped.  Every returned field passes :func:`check_noether_field`.

    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> a, b = sp.symbols("a b")
    >>> noether_template_fields(S, [a, 0, b], [a, b])
    [[0, 0, 1]]
    """
    N = system.manifold
    sol = dict(system.dependent_solution)
    classes = _irrational_classes(comps, unknowns)
    sols = []
    for P, unk in classes.items():
        exprs = _noether_conditions(system, comps, unknowns, unk, P, tangent, sol)
        for s in solve_linear_identities(exprs, unk, keep=N.parameters):
            sols.append({**dict.fromkeys(unknowns, 0), **s})
    out = []
    pol = default_policy()
    for s in sols:
        u = [sp.expand(as_expr(c).xreplace(s)) for c in comps]
        if all(pol.is_zero(ui) for ui in u):
            continue
        if _theorem4(system, N.vector_field(u), sol):
            out.append(u)
        elif len(classes) == 1:
            raise RuntimeError(f"internal error: {u} solves the Noether equations but fails "
                               "Theorem 4")
    return out


def _irrational_classes(comps: Sequence, unknowns: Sequence[sp.Symbol]) -> dict:
    """``{P: unknowns}``: the unknowns grouped by the irrational factor of their terms."""
    if not any(has_irrational_power(as_expr(ci)) for ci in comps):
        return {sp.S.One: list(unknowns)}
    out: dict = {}
    for c in unknowns:
        P = _common_irrational_factor([sp.diff(as_expr(ci), c) for ci in comps])
        out.setdefault(P, []).append(c)
    return out


def _noether_conditions(system, comps, unknowns, unk, P, tangent: bool, solution) -> list:
    r"""The conditions of Theorem 4 for the part of the template in the unknowns ``unk``
    (common irrational factor ``P``), divided by ``P``: :math:`X` with
    :math:`\tilde u(L)|_{\mathcal M}=P\,X`, :math:`Au/P` and :math:`(Q,u)|_{\mathcal M}/P`."""
    rep = {c: 0 for c in set(unknowns) - set(unk)}
    part = [as_expr(ci).xreplace(rep) for ci in comps]
    constraints = () if tangent else system.constraints
    forces = active_forces(system)
    if P == 1:
        return _conditions(system, part, constraints, forces, solution, expand=False)
    bar = [sp.expand(ci / P) for ci in part]
    conds = _conditions(system, bar, constraints, forces, solution, expand=False, L=0)
    L = as_expr(system.lagrangian)
    conds[len(constraints)] = sp.Add(*[
        c * _lift_over_factor(system.manifold, [sp.diff(ci, c) for ci in part], L, solution)[1]
        for c in unk])
    return conds


def find_noether_fields(system, generators=None, ansatz: Sequence = (1,)) -> list[tuple]:
    r"""Noether fields :math:`u = \sum_{a,k} c_{ak}\, b_k(q)\, \tau_a` in an ansatz family.

    ``generators`` are fields :math:`\tau_a` on ``N`` tangent to the constraints (so ``u`` is
    tangent automatically; default: the frame of the constraint distribution given by the
    independent velocities, ``system.adapted_frame()[0]``); ``ansatz`` the coefficient functions
    :math:`b_k(q)`.  The conditions of Theorem 4 are linear in the constants ``c`` and
    solved exactly (:func:`noether_template_fields`).  Returns a basis of pairs ``(u, F)``
    with the Noether integral ``F``; the result is complete only within the ansatz.

    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> tau = [[sp.cos(phi), sp.sin(phi), 0], [0, 0, 1]]
    >>> [F for _, F in find_noether_fields(S, tau, [1])]
    [xdot*cos(phi) + ydot*sin(phi), phidot]
    """
    check_system(system)
    N = system.manifold
    pol = default_policy()
    frame = system.adapted_frame()[0] if generators is None else generators
    generators = [as_field(system, g).components for g in frame]
    A = constraint_matrix(system)
    for g in generators:
        for k in range(A.rows):
            if not pol.is_zero(sp.Add(*[A[k, i] * gi for i, gi in enumerate(g)])):
                raise ValueError(f"generator {list(g)} is not tangent to constraint {k + 1}")
    pairs = [(g, b) for g in generators for b in ansatz]
    cs = list(sp.symbols(f"_n0:{len(pairs)}", cls=sp.Dummy))
    comps = [sp.Add(*[c * as_expr(b) * as_expr(g[i]) for c, (g, b) in zip(cs, pairs)])
             for i in range(N.dim)]
    out = []
    for u in noether_template_fields(system, comps, cs, tangent=True):
        u = [pol.normalize(ui) for ui in u]
        out.append((u, noether_integral(u, system.lagrangian, N.velocities)))
    return out
