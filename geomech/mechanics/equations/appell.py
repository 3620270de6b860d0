r"""The Gibbs–Appell equations :math:`\partial S^*/\partial\dot s_\beta = \Pi_\beta`
(Appell (1900); Neimark & Fufaev (1972), Ch. III; Borisov & Mamaev (2015), §3).

With :math:`L = T - U`, :math:`U=-L|_{\dot q=0}`, the acceleration energy (up to terms free of
:math:`\ddot q`) is :math:`S=\tfrac12\ddot q^{\mathsf T}H\ddot q+\ddot q^{\mathsf T}\beta_T`,
:math:`\beta_{T,i}=\sum_j\partial^2T/\partial\dot q_i\partial q_j\,\dot q_j-\partial T/\partial
q_i` (Appell's lemma :math:`\partial S/\partial\ddot q = E(T)`).  On the constraint manifold
:math:`\dot q = K(q)s + k_0(q)`, :math:`\ddot q = K\dot s + \partial_q(Ks+k_0)\dot q`.

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> appell_equations(S).agrees_with(S.equations("lagrange_dalembert"))
True
"""

from __future__ import annotations

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.mechanics.equations.common import acceleration_symbols, solve_linear
from geomech.mechanics.equations.forms import AppellEquations
from geomech.mechanics.equations.hamel import quasi_velocity_names, resolve_frame
from geomech.mechanics.equations.motion import EquationsOfMotion
from geomech.mechanics.equations.phase import phase_rhs_from_quasi
from geomech.mechanics.equations.registry import register_method

__all__ = ["appell_equations", "acceleration_energy"]


def _appell_velocities(system, frame, transversal, names) -> tuple:
    """``(K, k0, s)``: :math:`\\dot q = Ks + k_0` in the velocities ``s`` of ``frame``
    (default: the independent velocities)."""
    N = system.manifold
    n, k = N.dim, system.n_constraints
    r = n - k
    if frame is None and transversal is None and names is None:
        tangent, _ = system.adapted_frame()
        K = sp.Matrix(n, r, lambda i, a: tangent[a].components[i])
        return K, list(system.affine_velocity().components), system.independent_velocities
    tangent, trans, E, Einv, w0, det = resolve_frame(system, frame, transversal)
    k0 = [compact(sp.Add(*[E[i, r + m] * w0[m] for m in range(k)])) for i in range(n)]
    return E[:, :r], k0, quasi_velocity_names(names, r, "eta")


def acceleration_energy(system) -> tuple:
    r"""``(S, U)``: Appell's acceleration energy :math:`S = \tfrac12\ddot q^{\mathsf T}H\ddot q
    + \ddot q^{\mathsf T}\beta_T` (up to :math:`\ddot q`-free terms) in the acceleration
    symbols, and the potential :math:`U = -L|_{\dot q = 0}`."""
    N = system.manifold
    n = N.dim
    q, vel = N.coords, N.velocities
    L = system.lagrangian
    U = -L.xreplace({v: 0 for v in vel})
    T = L + U
    H = system.hessian
    pT = [sp.diff(T, v) for v in vel]
    betaT = [sp.Add(*[sp.diff(pT[i], q[j]) * vel[j] for j in range(n) if pT[i].has(q[j])])
             - sp.diff(T, q[i]) for i in range(n)]
    acc = acceleration_symbols(vel)
    S = (sp.Rational(1, 2) * sp.Add(*[H[i, j] * acc[i] * acc[j] for i in range(n)
                                      for j in range(n) if H[i, j] != 0])
         + sp.Add(*[acc[i] * betaT[i] for i in range(n)]))
    return S, U


def _appell_gradient(system, K, k0, s) -> tuple:
    r"""``(Mass, free, Pi, qdot)`` of :math:`\partial S^*/\partial\dot s = \text{Mass}\,\dot s
    + \text{free} = \Pi`, by the chain rule :math:`\partial S^*/\partial\dot s_\beta =
    \sum_iK_{i\beta}\,(\partial S/\partial\ddot q_i)^*` and Appell's lemma
    :math:`\partial S/\partial\ddot q = H\ddot q + \beta_T` (no expansion of :math:`S^*`)."""
    N = system.manifold
    n, r = N.dim, len(s)
    q, vel = N.coords, N.velocities
    L = system.lagrangian
    U = -L.xreplace({v: 0 for v in vel})
    T = L + U
    qdot = [compact(sp.Add(*[K[i, a] * s[a] for a in range(r)]) + k0[i]) for i in range(n)]
    on = dict(zip(vel, qdot))
    H = system.hessian.xreplace(on)
    pT = [sp.diff(T, v) for v in vel]
    betaT = [(sp.Add(*[sp.diff(pT[i], q[j]) * vel[j] for j in range(n) if pT[i].has(q[j])])
              - sp.diff(T, q[i])).xreplace(on) for i in range(n)]
    acc = [sp.Add(*[sp.diff(qdot[i], q[j]) * qdot[j] for j in range(n) if qdot[i].has(q[j])])
           for i in range(n)]                         # qdd at sdot = 0
    HK = H * K
    Mass = sp.Matrix(r, r, lambda a, b: compact(sp.Add(*[K[i, a] * HK[i, b]
                                                          for i in range(n)])))
    # each row normalised before the projection on the frame: one normal form of the whole
    # sum costs 3x more (the ellipsoid in its natural frame: 26.9 s -> 9.6 s, same result)
    force0 = [compact(sp.Add(*[H[i, j] * acc[j] for j in range(n)]) + betaT[i])
              for i in range(n)]
    free = [compact(sp.Add(*[K[i, a] * force0[i] for i in range(n)])) for a in range(r)]
    Q = list(system.forces) if system.forces is not None else [sp.S.Zero] * n
    force = [Q[i] - sp.diff(U, q[i]) for i in range(n)]
    Pi = [compact(sp.Add(*[K[i, a] * force[i] for i in range(n)]).xreplace(on))
          for a in range(r)]
    return Mass, free, Pi, qdot


@register_method("appell")
def appell_equations(system, frame=None, transversal=None, names=None,
                     **options) -> EquationsOfMotion:
    r"""Gibbs–Appell equations :math:`\partial S^*/\partial\dot s_\beta = \Pi_\beta`.

    :math:`S^*` is :func:`acceleration_energy` with :math:`\dot q = K(q)s + k_0(q)`,
    :math:`\ddot q = K\dot s + \partial_q(Ks+k_0)\dot q` substituted and
    :math:`\Pi_\beta = \sum_iK_{i\beta}(Q_i-\partial U/\partial q_i)`; its gradient is taken
    by the chain rule (:math:`\partial\ddot q/\partial\dot s = K`).  The velocities
    :math:`s` are those of ``frame`` (default: the independent velocities).
    """
    if options:
        raise TypeError(f"appell got unknown options {sorted(options)}")
    q = system.manifold.coords
    K, k0, s = _appell_velocities(system, frame, transversal, names)
    r = len(s)
    sd = acceleration_symbols(s)
    Mass, free, Pi, qdot = _appell_gradient(system, K, k0, s)
    sdot = solve_linear(Mass, sp.Matrix([Pi[a] - free[a] for a in range(r)]),
                        what="Appell mass matrix d2S*/dsdot2")
    equations = [sp.Eq(sp.Add(*[Mass[a, b] * sd[b] for b in range(r)]) + free[a], Pi[a])
                 for a in range(r)]
    phase = phase_rhs_from_quasi(system, K, k0, s, list(sdot))
    form_rhs = {**dict(zip(q, qdot)), **dict(zip(s, sdot))}
    eq = AppellEquations(system, "appell", equations, phase, multipliers=None, variables={},
                         form_rhs=form_rhs,
                         data={"quasi_velocities": tuple(s), "mass_matrix": Mass})
    eq._lazy_data["acceleration_energy"] = lambda: acceleration_energy(system)[0]
    return eq
