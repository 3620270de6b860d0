r"""Routh reduction by a cyclic coordinate (Borisov & Mamaev (2015), §5.3):
:math:`R=(L-p\,\dot q_n)|_{\dot q_n=X}` on the level :math:`\partial L/\partial\dot q_n=p`.

>>> import geomech as gm
>>> N = gm.Manifold("N", "x th", parameters="m J"); xd, thd = N.velocities
>>> m, J = N.parameters
>>> routh_reduction(gm.NonholonomicSystem(N, m*xd**2/2 + J*thd**2/2, []), "th").momentum
p
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from geomech.core.manifold import Manifold
from geomech.core.zero import is_zero
from geomech.mechanics.analysis.common import active_forces, check_system
from geomech.mechanics.analysis.kozlov_kolesnikov import check_noether_field
from geomech.mechanics.analysis.reduction.common import normal_form

__all__ = ["RouthReduction", "routh_reduction"]


# =============================================================================================
# Routh reduction (cyclic coordinate)
# =============================================================================================
@dataclass
class RouthReduction:
    r"""Result of :func:`routh_reduction` (§5.3).

    Attributes
    ----------
    coordinate : Symbol
        The cyclic coordinate :math:`q_n`.
    momentum : Symbol
        The parameter :math:`p` (level of :math:`\partial L/\partial\dot q_n`).
    routhian : expression
        :math:`R=(L-p\,\dot q_n)|_{\dot q_n=X}`.
    X : expression
        :math:`\dot q_n` on the level (the reconstruction quadrature
        :math:`q_n(t)=q_n(0)+\int X\,dt`).
    system : NonholonomicSystem
        The reduced system (Lagrangian :math:`R`, the remaining constraints), with ``p``
        among the parameters.
    """

    coordinate: sp.Symbol
    momentum: sp.Symbol
    routhian: sp.Expr
    X: sp.Expr
    system: Any


def _noether_failure(nc, qn) -> str:
    """The reasons, in the user's terms, why ``d/dqn`` failed the Noether test."""
    reasons = []
    if not nc.tangent:
        rows = ", ".join(str(r + 1) for r in nc.failing_rows)
        reasons.append(f"it is not tangent to the constraint distribution (constraint(s) "
                       f"{rows} involve {qn}dot)")
    if not nc.lagrangian_ok:
        reasons.append(f"the Lagrangian depends on {qn} on the constraint manifold")
    if not nc.forces_ok:
        reasons.append(f"the generalized force along {qn} does not vanish: the momentum "
                       "is not conserved")
    return "; ".join(reasons) or "the conditions (5.1)-(5.2) fail"


def routh_reduction(system, coordinate, momentum=None, check: bool = True) -> RouthReduction:
    r"""Routh reduction by a cyclic coordinate (§5.3).

    The coordinate field :math:`u=\partial/\partial q_n` must be a Noether field (Theorem 4:
    :math:`u\in\mathcal D`, :math:`\partial L/\partial q_n=0`) and a symmetry (the constraints
    and forces do not involve :math:`q_n`).  On the level
    :math:`\partial L/\partial\dot q_n=p` one solves :math:`\dot q_n=X` and forms

    .. math:: R=\big(L-p\,\dot q_n\big)\big|_{\dot q_n=X},

    whose Lagrange–d'Alembert equations with the remaining constraints govern
    :math:`q_1..q_{n-1}`.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x th", parameters="m J"); x, th = N.coords
    >>> xd, thd = N.velocities; m, J = N.parameters
    >>> S = gm.NonholonomicSystem(N, m*xd**2/2 + J*(xd + thd)**2/2, [])
    >>> rr = routh_reduction(S, th)
    >>> sp.expand(rr.X), sp.expand(rr.routhian)
    (-xdot + p/J, m*xdot**2/2 + p*xdot - p**2/(2*J))
    """
    check_system(system)
    N = system.manifold
    qn = N.coords[N.index(coordinate)] if not isinstance(coordinate, int) else \
        N.coords[coordinate]
    if check:
        _check_cyclic(system, qn)
    p = momentum if momentum is not None else sp.Symbol("p", real=True)
    p = sp.Symbol(p, real=True) if isinstance(p, str) else p
    vn = N.velocities[N.coords.index(qn)]
    X, R = _routhian(system.lagrangian, vn, p)
    coords = [c for c in N.coords if c != qn]
    Nr = Manifold(f"{N.name}_routh", coords, parameters=(*N.parameters, p),
                  assumptions=N.assumptions, velocities=[v for v in N.velocities if v != vn])
    Q = active_forces(system)
    forces = None if Q is None else [normal_form(Q[N.coords.index(c)].xreplace({vn: X}))
                                     for c in coords]
    # a system of the same class as the given one (no import of the system module)
    reduced = type(system)(Nr, R, list(system.constraints), forces=forces,
                           name=f"{getattr(system, 'name', 'system')}_routh")
    return RouthReduction(qn, p, R, X, reduced)


def _check_cyclic(system, qn) -> None:
    """``ValueError`` unless ``d/dqn`` is a Noether field and a symmetry: ``qn`` cyclic in
    the Lagrangian, the constraints and the forces, and absent from the constraints."""
    N = system.manifold
    i = N.coords.index(qn)
    vn, L = N.velocities[i], system.lagrangian
    nc = check_noether_field(system, N.vector_field({qn: 1}))
    if not nc.is_noether:
        raise ValueError(f"d/d{qn} is not a Noether field (Kozlov & Kolesnikov 1978; "
                         f"Borisov & Mamaev 2015, Theorem 4): {_noether_failure(nc, qn)}")
    if not is_zero(sp.diff(L, qn)):
        raise ValueError(f"the Lagrangian depends on {qn}: it is not cyclic")
    for j, f in enumerate(system.constraints):
        if f.has(qn) and not is_zero(sp.diff(f, qn)):
            raise ValueError(f"constraint {j + 1} depends on {qn}: not cyclic")
        if not is_zero(sp.diff(f, vn)):
            raise ValueError(f"constraint {j + 1} involves {vn}")
    Q = active_forces(system)
    if Q is not None:
        if not is_zero(Q[i]):
            raise ValueError(f"the generalized force along {qn} does not vanish: the "
                             "momentum is not conserved")
        if any(Qj.has(qn) and not is_zero(sp.diff(Qj, qn)) for Qj in Q):
            raise ValueError(f"the forces depend on {qn}: not cyclic")


def _routhian(L, vn, p) -> tuple[sp.Expr, sp.Expr]:
    r"""``(X, R)``: :math:`\dot q_n = X` on :math:`\partial L/\partial\dot q_n = p` and the
    Routhian :math:`R = (L - p\dot q_n)|_{\dot q_n = X}` (closed form when :math:`L` is
    quadratic in :math:`\dot q_n`: :math:`X = (p - B)/A`, :math:`R = C - (p - B)^2/(2A)`)."""
    pn = sp.diff(L, vn)
    A2 = sp.diff(pn, vn)
    if is_zero(A2):
        raise ValueError(f"d2L/d{vn}2 = 0: cannot solve the momentum for {vn}")
    if not A2.has(vn):
        Bc = sp.expand(pn.xreplace({vn: 0}))
        Cc = sp.expand(L.xreplace({vn: 0}))
        A2 = sp.factor(A2)
        return sp.factor(p - Bc) / A2, Cc - sp.factor(p - Bc)**2 / (2 * A2)
    sols = sp.solve(sp.Eq(pn, p), vn, dict=True)
    if not sols:
        raise ValueError(f"cannot solve dL/d{vn} = p for {vn}")
    X = normal_form(sols[0][vn])
    return X, sp.expand((L - p * vn).xreplace({vn: X}))
