r"""Theorem 4 (Kozlov & Kolesnikov (1978); Borisov & Mamaev (2015), §5.1) on the raw data of a
system: a Lagrangian :math:`L(q,\dot q)` on :math:`TN`, constraints
:math:`f_\mu=\sum_i a_{\mu i}(q)\dot q_i (+b_\mu)` and forces :math:`Q`.

If :math:`u\in\Gamma(\mathcal D)` (:math:`\sum_i a_{\mu i}u_i=0`), :math:`(Q,u)|_{\mathcal M}=0`
and :math:`\tilde u(L)|_{\mathcal M}=0` for the complete lift

.. math:: \tilde u=\sum_i u_i\,\partial_{q_i}+\sum_{i,j}\partial_j u_i\,\dot q_j\,
          \partial_{\dot q_i},

then the momentum :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` (5.3) is a first integral.

* :func:`check_noether_field` -- the test (the one implementation; the system-level
  :func:`geomech.mechanics.analysis.noether.check_noether_field` delegates to it);
* :func:`noether_template_fields` -- the one search: in a template linear in unknown
  constants the three conditions are linear identities, split into exact linear equations
  (:func:`~geomech.mechanics.analysis.ansatz.solve_linear_identities`) and solved by the
  engine; :func:`find_noether_fields` (tangent generators times functions) and
  :func:`geomech.mechanics.analysis.noether.noether_fields` (a coordinate ansatz) build
  their templates and call it.

>>> x, y, phi, xd, yd, phid = sp.symbols("x y phi xdot ydot phidot")
>>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
>>> check_noether_field([0, 0, 1], (xd**2 + yd**2 + phid**2)/2, [x, y, phi], [xd, yd, phid],
...                     [f]).integral
phidot
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import sympy as sp

from geomech.core.algebra import fast_is_zero
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.lie.prolongation import velocity_lift
from geomech.mechanics.analysis.ansatz import solve_linear_identities
from geomech.mechanics.analysis.integrals import has_irrational_power
from geomech.mechanics.constraints import preferred_minor, solve_dependent

__all__ = ["complete_lift", "NoetherCheck", "noether_integral", "check_noether_field",
           "noether_template_fields", "theorem4_conditions", "find_noether_fields",
           "system_check_noether_field", "system_noether_integrals", "dependent_solution"]


def complete_lift(u: Sequence, coords: Sequence[sp.Symbol],
                  velocities: Sequence[sp.Symbol]) -> Callable[[sp.Expr], sp.Expr]:
    r"""The complete lift :math:`\tilde u = u^i\partial_{q^i} + \dot q^j\partial_j u^i\,
    \partial_{\dot q^i}` of a field on :math:`N` to :math:`TN`, as a derivation.

    >>> x, xd = sp.symbols("x xdot")
    >>> complete_lift([x], [x], [xd])(xd**2)
    2*xdot**2
    """
    u = [as_expr(c) for c in u]
    if len(u) != len(coords) or len(velocities) != len(coords):
        raise ValueError("u, coords and velocities must have the same length")
    udot = [velocity_lift(ui, coords, velocities) for ui in u]   # the one tangent lift

    def lift(f):
        f = as_expr(f)
        return (sp.Add(*[ui * sp.diff(f, q) for ui, q in zip(u, coords) if ui != 0 and f.has(q)])
                + sp.Add(*[ud * sp.diff(f, qd) for ud, qd in zip(udot, velocities)
                           if ud != 0 and f.has(qd)]))
    return lift


def _irrational_part(b: sp.Expr) -> sp.Expr:
    """Product of the factors of ``b`` raised to non-integer powers (1 if none)."""
    b = sp.factor_terms(as_expr(b))
    if not (b.is_Mul or b.is_Pow):
        return sp.S.One
    return sp.Mul(*[base**e for base, e in b.as_powers_dict().items()
                    if not as_expr(e).is_Integer and not base.is_number])


def _lift_over_factor(u: Sequence, L, coords, velocities, solution) -> tuple[sp.Expr, sp.Expr]:
    r"""``(P, X)`` with :math:`\tilde u(L)|_{\mathcal M} = P\,X`, ``P`` the common irrational
    factor of the components of ``u`` and ``X`` free of it.

    With :math:`u = P\bar u`: :math:`\tilde u(L) = P\,(\tilde{\bar u}(L) + \dot P/P\,
    \sum_i\bar u_i\partial L/\partial\dot q_i)`, and :math:`\dot P/P` is computed factor by
    factor (rational for rational bases)."""
    u = [as_expr(c) for c in u]
    P = _common_irrational_factor(u)
    if P == 1:
        return P, _restrict(complete_lift(u, coords, velocities)(L), solution)
    ubar = [sp.factor_terms(c / P) for c in u]
    logdot = sp.S.Zero
    for base, e in P.as_powers_dict().items():
        logdot += e * sum(sp.diff(base, q) * qd for q, qd in zip(coords, velocities)) / base
    F = sum(ui * sp.diff(L, qd) for ui, qd in zip(ubar, velocities))
    X = complete_lift(ubar, coords, velocities)(L) + logdot * F
    return P, _restrict(X, solution)


def _common_irrational_factor(u: Sequence) -> sp.Expr:
    """The irrational factor common to the non-zero components of ``u`` (1 if none)."""
    nz = [c for c in u if c != 0]
    if nz:
        cand = _irrational_part(nz[0])
        if cand != 1 and all(not has_irrational_power(sp.factor_terms(c / cand)) or
                             _irrational_part(c / cand) == 1 for c in nz):
            return cand
    return sp.S.One


@dataclass(frozen=True)
class NoetherCheck:
    """Outcome of :func:`check_noether_field` (truthy iff ``u`` is a Noether field)."""

    is_noether: bool
    integral: sp.Expr
    tangent: bool
    forces_ok: bool
    lift_of_L: sp.Expr
    reasons: tuple = field(default_factory=tuple)
    lagrangian_ok: bool = True

    def __bool__(self) -> bool:
        return self.is_noether


def _restrict(expr, solution: dict) -> sp.Expr:
    """Restriction to the constraints (dependent velocities substituted), not normalised:
    the zero tests decide, values are compacted only for reports."""
    return as_expr(expr).xreplace(solution) if solution else as_expr(expr)


def dependent_solution(constraints, velocities, independent=None) -> dict:
    """Solve constraints linear in the velocities for dependent velocities (all but
    ``independent``, or those of :func:`~geomech.mechanics.constraints.preferred_minor`):
    the split of :func:`~geomech.mechanics.constraints.split_velocities` on raw data.

    >>> x, xd, yd = sp.symbols("x xdot ydot")
    >>> dependent_solution([yd - x*xd], [xd, yd])
    {ydot: x*xdot}
    """
    constraints = [as_expr(f) for f in constraints]
    if not constraints:
        return {}
    velocities = list(velocities)
    A = sp.Matrix([[sp.diff(f, qd) for qd in velocities] for f in constraints])
    b = [f.xreplace(dict.fromkeys(velocities, 0)) for f in constraints]
    if independent is not None:
        dep = [i for i, qd in enumerate(velocities) if qd not in set(independent)]
        if len(dep) != len(constraints) or default_policy().is_zero(A[:, dep].det()):
            raise ValueError("the constraints cannot be solved for the dependent velocities")
    else:
        dep = preferred_minor(A)
    return solve_dependent(A, b, velocities, dep)


def noether_integral(u: Sequence, L, velocities: Sequence[sp.Symbol]) -> sp.Expr:
    r"""The Noether momentum :math:`F = \sum_i u_i\,\partial L/\partial\dot q_i` (5.3).

    >>> x, y, xd, yd = sp.symbols("x y xdot ydot")
    >>> noether_integral([-y, x], (xd**2 + yd**2)/2, [xd, yd])
    x*ydot - xdot*y
    """
    L = as_expr(L)
    return default_policy().normalize(sum(as_expr(ui) * sp.diff(L, qd)
                                          for ui, qd in zip(u, velocities)))


def check_noether_field(u: Sequence, L, coords: Sequence[sp.Symbol],
                        velocities: Sequence[sp.Symbol], constraints: Sequence = (),
                        forces: Sequence | None = None, independent=None,
                        solution: dict | None = None) -> NoetherCheck:
    r"""Kozlov--Kolesnikov test (Theorem 4): is ``u`` a Noether field?

    This is the one implementation of Theorem 4; the system-level
    :func:`geomech.mechanics.analysis.noether.check_noether_field` delegates to it.  ``solution``
    (``{dependent velocity: expression}``) skips solving the constraints when it is known.

    Conditions (5.1)--(5.2): ``u`` tangent to the constraints
    (:math:`\sum_i a_{\mu i}u_i = 0`), :math:`(Q, u) = 0` on :math:`\mathcal M`, and
    :math:`\tilde u(L)|_{\mathcal M} = 0` (the lift applied to the *free* ``L``, then
    restricted).  Then :math:`F = \sum_i u_i\,\partial L/\partial\dot q_i` is a first integral.

    >>> x, y, phi, xd, yd, phid = sp.symbols("x y phi xdot ydot phidot")
    >>> L = (xd**2 + yd**2 + phid**2)/2
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> bool(check_noether_field([0, 0, 1], L, [x, y, phi], [xd, yd, phid], [f]))
    True
    >>> bool(check_noether_field([1, 0, 0], L, [x, y, phi], [xd, yd, phid], [f]))
    False
    """
    coords, velocities = list(coords), list(velocities)
    u = [as_expr(c) for c in u]
    L = as_expr(L)
    pol = default_policy()
    reasons = []
    sol = dict(solution) if solution is not None else \
        dependent_solution(constraints, velocities, independent)
    tangent = True
    for k, f in enumerate(constraints):
        val = as_expr(f).xreplace(dict(zip(velocities, u)))
        if not fast_is_zero(val, pol):
            tangent = False
            reasons.append(f"u is not tangent to constraint {k + 1}: a(u) = {pol.normalize(val)}")
    forces_ok = True
    if forces is not None:
        Qu = _restrict(sum(as_expr(Q) * ui for Q, ui in zip(forces, u)), sol)
        if not fast_is_zero(Qu, pol):
            forces_ok = False
            reasons.append(f"(Q, u) = {pol.normalize(Qu)} does not vanish on the constraints")
    P, X = _lift_over_factor(u, L, coords, velocities, sol)
    lift_ok = fast_is_zero(X, pol)
    X = sp.S.Zero if lift_ok else pol.normalize(X)
    lift = X if P == 1 else P * X
    if not lift_ok:
        reasons.append(f"the lift of u changes L on the constraints: {lift}")
    F = noether_integral(u, L, velocities)
    return NoetherCheck(tangent and forces_ok and lift_ok, F, tangent, forces_ok,
                        lift, tuple(reasons), lift_ok)


def find_noether_fields(L, coords: Sequence[sp.Symbol], velocities: Sequence[sp.Symbol],
                        constraints: Sequence, generators: Sequence[Sequence],
                        ansatz: Sequence, parameters: Iterable[sp.Symbol] = (),
                        independent=None) -> list[tuple[list, sp.Expr]]:
    r"""Noether fields :math:`u = \sum_{a,k} c_{ak}\, b_k(q)\, \tau_a` in an ansatz family.

    ``generators`` are fields :math:`\tau_a` on ``N`` tangent to the constraints (so ``u`` is
    tangent automatically); ``ansatz`` the coefficient functions :math:`b_k(q)`.  The
    condition :math:`\tilde u(L)|_{\mathcal M} \equiv 0` is linear in the constants ``c``
    and solved exactly (:func:`solve_constant_linear`).  Returns a basis of pairs
    ``(u, F)`` with the Noether integral ``F``; the result is complete only within the
    ansatz.

    >>> x, y, phi, xd, yd, phid = sp.symbols("x y phi xdot ydot phidot")
    >>> L = (xd**2 + yd**2 + phid**2)/2
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> tau = [[sp.cos(phi), sp.sin(phi), 0], [0, 0, 1]]
    >>> [F for _, F in find_noether_fields(L, [x, y, phi], [xd, yd, phid], [f], tau, [1])]
    [xdot*cos(phi) + ydot*sin(phi), phidot]
    """
    coords, velocities = list(coords), list(velocities)
    pol = default_policy()
    sol = dependent_solution(constraints, velocities, independent)
    for g in generators:
        for k, f in enumerate(constraints):
            if not pol.is_zero(as_expr(f).xreplace(dict(zip(velocities, g)))):
                raise ValueError(f"generator {list(g)} is not tangent to constraint {k + 1}")
    pairs = [(g, b) for g in generators for b in ansatz]
    cs = list(sp.symbols(f"_n0:{len(pairs)}", cls=sp.Dummy))
    comps = [sp.Add(*[c * as_expr(b) * as_expr(g[i]) for c, (g, b) in zip(cs, pairs)])
             for i in range(len(coords))]
    found = noether_template_fields(comps, cs, L, coords, velocities, constraints,
                                    solution=sol, parameters=parameters, tangent=True)
    out = []
    for u in found:
        u = [pol.normalize(ui) for ui in u]
        out.append((u, noether_integral(u, L, velocities)))
    return out


def noether_template_fields(comps: Sequence, unknowns: Sequence[sp.Symbol], L,
                            coords: Sequence[sp.Symbol], velocities: Sequence[sp.Symbol],
                            constraints: Sequence = (), forces: Sequence | None = None, *,
                            solution: dict, parameters: Iterable[sp.Symbol] = (),
                            tangent: bool = False) -> list[list[sp.Expr]]:
    r"""Noether fields (Theorem 4) in a template linear in constant ``unknowns``: a basis.

    The conditions :math:`\sum_i a_{\mu i}u_i\equiv0` (skipped when the template is
    ``tangent`` by construction), :math:`(Q,u)|_{\mathcal M}\equiv0` and
    :math:`\tilde u(L)|_{\mathcal M}\equiv0` are linear in the unknowns; they are split
    into exact linear equations and solved exactly
    (:func:`~geomech.mechanics.analysis.ansatz.solve_linear_identities`).  Terms with an
    irrational factor :math:`P` (e.g. :math:`1/\sqrt{G}`) are solved in classes of equal
    :math:`P`, with :math:`\tilde u(L)=P\,X` computed factor by factor; a combination that
    the class split admits wrongly is dropped.  Every returned field passes
    :func:`check_noether_field`.

    >>> x, y, phi, xd, yd, phid, a, b = sp.symbols("x y phi xdot ydot phidot a b")
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> noether_template_fields([a, 0, b], [a, b], (xd**2 + yd**2 + phid**2)/2, [x, y, phi],
    ...                         [xd, yd, phid], [f], solution={xd: yd*sp.cos(phi)/sp.sin(phi)})
    [[0, 0, 1]]
    """
    coords, velocities = list(coords), list(velocities)
    L = as_expr(L)
    classes = _irrational_classes(comps, unknowns)
    sols = []
    for P, unk in classes.items():
        exprs = _noether_conditions(comps, unknowns, unk, P, L, coords, velocities,
                                    () if tangent else constraints, forces, solution)
        for s in solve_linear_identities(exprs, unk, keep=parameters):
            sols.append({**dict.fromkeys(unknowns, 0), **s})
    out = []
    for s in sols:
        u = [sp.expand(as_expr(c).xreplace(s)) for c in comps]
        if all(fast_is_zero(ui) for ui in u):
            continue
        if check_noether_field(u, L, coords, velocities, constraints, forces,
                               solution=solution):
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


def theorem4_conditions(u: Sequence, L, coords: Sequence[sp.Symbol],
                        velocities: Sequence[sp.Symbol], constraints: Sequence = (),
                        forces: Sequence | None = None, solution: dict | None = None,
                        expand: bool = True) -> list:
    r"""The expressions that vanish identically iff ``u`` is a Noether field (Theorem 4):
    :math:`\sum_i a_{\mu i}u_i` (one per constraint), :math:`\tilde u(L)|_{\mathcal M}` and,
    with forces, :math:`(Q,u)|_{\mathcal M}`; linear in ``u`` (templates with unknown
    constants or functions give the determining equations).

    >>> x, y, phi, xd, yd, phid = sp.symbols("x y phi xdot ydot phidot")
    >>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
    >>> theorem4_conditions([1, 0, 0], (xd**2 + yd**2 + phid**2)/2, [x, y, phi],
    ...                     [xd, yd, phid], [f])
    [-sin(phi), 0]
    """
    u = [as_expr(c) for c in u]
    sol = solution or {}
    exprs = [sp.Add(*[sp.diff(as_expr(f), qd) * ci for qd, ci in zip(velocities, u)
                      if ci != 0]) for f in constraints]
    if expand:          # templates: the ring splits them unexpanded (expansion is the cost)
        exprs = [sp.expand(e) for e in exprs]
    exprs.append(_restrict(complete_lift(u, coords, velocities)(L), sol))
    if forces is not None:
        exprs.append(_restrict(sp.Add(*[as_expr(Q) * ci for Q, ci in zip(forces, u)]), sol))
    return exprs


def _noether_conditions(comps, unknowns, unk, P, L, coords, velocities, constraints, forces,
                        solution) -> list:
    r"""The conditions of Theorem 4 for the part of the template in the unknowns ``unk``
    (common irrational factor ``P``), divided by ``P``: :math:`X` with
    :math:`\tilde u(L)|_{\mathcal M}=P\,X`, :math:`Au/P` and :math:`(Q,u)|_{\mathcal M}/P`."""
    rep = {c: 0 for c in set(unknowns) - set(unk)}
    part = [as_expr(ci).xreplace(rep) for ci in comps]
    if P == 1:
        return theorem4_conditions(part, L, coords, velocities, constraints, forces, solution,
                                   expand=False)
    bar = [sp.expand(ci / P) for ci in part]
    conds = theorem4_conditions(bar, 0, coords, velocities, constraints, forces, solution,
                                expand=False)
    conds[len(constraints)] = sp.Add(*[
        c * _lift_over_factor([sp.diff(ci, c) for ci in part], L, coords, velocities,
                              solution)[1] for c in unk])
    return conds


def system_check_noether_field(system, u) -> NoetherCheck:
    """``sys.check_noether_field(u)``: Theorem 4 with the system's free ``L`` and forces."""
    N = system.manifold
    if isinstance(u, VectorField):
        u = u.components
    return check_noether_field(u, system.lagrangian, N.coords, N.velocities,
                               system.constraints, getattr(system, "forces", None),
                               independent=system.independent_velocities)


def system_noether_integrals(system, generators=None, ansatz=(1,)) -> list:
    """``sys.noether_integrals(generators, ansatz)``: Noether fields in the ansatz family.

    ``generators`` default to the fields spanning the constraint distribution (the
    columns of the dependent-velocity solution)."""
    N = system.manifold
    if generators is None:
        sol = system.dependent_solution
        generators = []
        for w in system.independent_velocities:
            rep = {x: (1 if x == w else 0) for x in system.independent_velocities}
            generators.append([as_expr(sol.get(qd, qd)).xreplace(rep) for qd in N.velocities])
    return find_noether_fields(system.lagrangian, N.coords, N.velocities, system.constraints,
                               generators, list(ansatz), parameters=N.parameters,
                               independent=system.independent_velocities)
