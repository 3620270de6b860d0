r"""The Jacobian of the Lagrange--d'Alembert field at one state, from the data of the system.

For systems whose explicit phase-space field is too large to form (the Whipple bicycle:
constraint minors of tens of thousands of operations), the derivative of the field at a
state :math:`x_0 = (q_0, u_0)` is computed from the Lagrangian, the constraints and the forces
evaluated at the state, without forming the field: the first variation (Poincaré's
variational equations) of the Lagrange--d'Alembert equations

.. math:: G(q,\dot q,\ddot q,\lambda) = H\ddot q + \beta - Q - a^{\mathsf T}\lambda = 0,
          \qquad K(q,\dot q,\ddot q) = a\ddot q + c = 0,
          \qquad a\dot q + b = 0

(:func:`~geomech.mechanics.equations.classical.lagrange_dalembert`; :math:`H =
\partial^2L/\partial\dot q^2`, :math:`\beta_i = \sum_j \partial^2L/\partial\dot q_i\partial
q_j\,\dot q_j - \partial L/\partial q_i`, :math:`c = \dot a\dot q + \dot b`).  At the state,
:math:`\dot q_0` solves the constraints, :math:`(\ddot q_0,\lambda_0)` the equations; a
variation :math:`(\delta q,\delta u)` of the phase-space coordinates moves the velocities by
:math:`\delta\dot q = T\,\delta u + W\delta q` (:math:`T` the adapted frame, :math:`W =
-a_{\rm dep}^{-1}\,\partial_q(a\dot q + b)` on the dependent rows) and the accelerations by
:math:`\delta\ddot q = T\,\delta\dot u + Z`, where

.. math:: a_{\rm dep} Z_{\rm dep} = -\big(\partial_q K\,\delta q + \partial_{\dot q}K\,
          \delta\dot q\big),\qquad
          (T^{\mathsf T}HT)\,\delta\dot u = -T^{\mathsf T}\big(HZ + \partial_q G\,\delta q
          + \partial_{\dot q}G\,\delta\dot q\big)

(:math:`T^{\mathsf T}a^{\mathsf T} = 0` removes :math:`\delta\lambda`).  Hence the Jacobian
of :math:`\dot q = \dot q(q,u)`, :math:`\dot u = \ddot q_{\rm ind}(q,u)` at :math:`x_0`.
Only derivatives of the data up to third order, evaluated at one point, and linear systems
of the sizes :math:`k` and :math:`n - k` are needed; the result is exact (symbolic in the
parameters and in the state's constants) and equals the Jacobian of the explicit field
(tested on the catalogue).

>>> import geomech as gm, sympy as sp
>>> S = gm.examples.chaplygin_sleigh()
>>> V = sp.Symbol("V")
>>> J = field_jacobian(S, {"x": 0, "y": 0, "phi": 0, "xdot": V, "phidot": 0})
>>> J.shape, J[4, 4]
((5, 5), -V*a*m/I)
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

__all__ = ["field_jacobian", "field_at", "full_velocity_at", "reduced_mass_matrix_at"]


def _point(system, state: Mapping) -> dict:
    """``{phase-space coordinate: exact value}`` (names or symbols; every coordinate)."""
    P = system.phase_space
    by_name = {c.name: c for c in P.coords}
    out = {}
    for k, v in state.items():
        name = k.name if isinstance(k, sp.Symbol) else str(k)
        if name not in by_name:
            raise ValueError(f"{name!r} is not a coordinate of the phase space of "
                             f"{system.name} ({', '.join(by_name)})")
        out[by_name[name]] = as_expr(v, context=f"the value of {name}")
    missing = [n for n, c in by_name.items() if c not in out]
    if missing:
        raise ValueError(f"the state of {system.name} has no value for {', '.join(missing)}")
    return out


def _solve(M: sp.Matrix, B: sp.Matrix) -> sp.Matrix:
    """``M^{-1} B`` exactly (entries cancelled by the zero policy's normal form)."""
    if M.rows == 0:
        return sp.zeros(0, B.cols)
    if default_policy().rank(M) < M.rows:
        raise ValueError("the constraint minor or the reduced mass matrix is singular at the "
                         "state")
    sol = M.LUsolve(B) if M.rows > 1 else B / M[0, 0]
    norm = default_policy().normalize
    return sol.applyfunc(norm)


def full_velocity_at(system, point: Mapping) -> dict:
    r"""``{velocity: value}`` of every velocity at a phase-space point: the dependent ones
    from :math:`a_{\rm dep}\dot q_{\rm dep} = -(a_{\rm ind}u + b)` at the point."""
    N = system.manifold
    q0 = {c: point[c] for c in N.coords}
    vel = {N.velocities[i]: point[N.velocities[i]] for i in system.independent_indices}
    dep = list(system.dependent_indices)
    if dep:
        A = system.constraint_matrix.xreplace(q0)
        b = sp.Matrix(system.constraint_affine).xreplace(q0)
        ind = list(system.independent_indices)
        rhs = -(A[:, ind] * sp.Matrix([vel[N.velocities[i]] for i in ind]) + b)
        vd = _solve(A[:, dep], rhs)
        vel.update({N.velocities[j]: vd[m] for m, j in enumerate(dep)})
    return vel


def reduced_mass_matrix_at(system, state: Mapping) -> sp.Matrix:
    r"""The reduced mass matrix :math:`T^{\mathsf T}HT` of the independent velocities at
    ``state`` (the coefficient of :math:`\dot u` in the Lagrange--d'Alembert equations
    projected on the adapted frame :math:`T`; rows: the virtual work of each independent
    velocity).

    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh()
    >>> reduced_mass_matrix_at(S, {"x": 0, "y": 0, "phi": 0, "xdot": 1, "phidot": 0})
    Matrix([
    [m, 0],
    [0, I]])
    """
    x0 = _point(system, state)
    N = system.manifold
    P = {**{c: x0[c] for c in N.coords}, **full_velocity_at(system, x0)}
    T = _frame_at(system.constraint_matrix.xreplace(P), list(system.independent_indices),
                  list(system.dependent_indices), N.dim)
    H0 = system.hessian.xreplace(P)
    return (T.T * H0 * T).applyfunc(default_policy().normalize)


def field_at(system, state: Mapping) -> dict:
    r"""The Lagrange--d'Alembert field at ``state``, ``{phase-space coordinate: rate}``
    (exact), from the data at the state: :math:`\dot q_0` from the constraints and the
    independent accelerations of :math:`(\ddot q_0, \lambda_0)` (module docstring); no
    explicit field is formed.

    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh()
    >>> field_at(S, {"x": 0, "y": 0, "phi": 0, "xdot": 1, "phidot": 2})[S.phase_space.coords[3]]
    4*a
    """
    x0 = _point(system, state)
    N = system.manifold
    n, q, vel = N.dim, N.coords, N.velocities
    v0 = full_velocity_at(system, x0)
    P = {**{c: x0[c] for c in q}, **v0}
    ind, dep = list(system.independent_indices), list(system.dependent_indices)
    A0 = system.constraint_matrix.xreplace(P)
    T = _frame_at(A0, ind, dep, n)
    H0 = system.hessian.xreplace(P)
    p = [sp.diff(system.lagrangian, v) for v in vel]
    beta = [sp.Add(*[sp.diff(p[i], q[j]) * vel[j] for j in range(n)])
            - sp.diff(system.lagrangian, q[i]) for i in range(n)]
    Q = list(system.forces) if system.forces is not None else [sp.S.Zero] * n
    a0, _ = _accelerations(system, P, H0, beta, Q, _constraint_rate(system), A0, T, ind, dep)
    rates = {**{c: v0[v] for c, v in zip(q, vel)}, **{vel[i]: a0[i] for i in ind}}
    return {c: rates[c] for c in system.phase_space.coords}


def field_jacobian(system, state: Mapping) -> sp.Matrix:
    r"""The exact Jacobian :math:`\partial F/\partial x` at ``state`` of the
    Lagrange--d'Alembert field :math:`F` on ``system.phase_space`` (rows and columns in the
    order of ``system.phase_space.coords``), computed from the data at the state (module
    docstring).

    Parameters
    ----------
    system : NonholonomicSystem
    state : dict
        Every phase-space coordinate (name or symbol) -> exact value or expression.

    Raises
    ------
    ValueError
        A missing or unknown coordinate, or a singular constraint minor or reduced mass
        matrix at the state.
    """
    x0 = _point(system, state)
    N = system.manifold
    n, q, vel = N.dim, N.coords, N.velocities
    v0 = full_velocity_at(system, x0)
    P = {**{c: x0[c] for c in q}, **v0}
    ind, dep = list(system.independent_indices), list(system.dependent_indices)
    A0 = system.constraint_matrix.xreplace(P)
    T = _frame_at(A0, ind, dep, n)
    L = system.lagrangian
    p = [sp.diff(L, v) for v in vel]
    H = sp.Matrix(n, n, lambda i, j: sp.diff(p[i], vel[j]))
    H0 = H.xreplace(P)
    beta = [sp.Add(*[sp.diff(p[i], q[j]) * vel[j] for j in range(n)]) - sp.diff(L, q[i])
            for i in range(n)]
    Q = list(system.forces) if system.forces is not None else [sp.S.Zero] * n
    cvec = _constraint_rate(system)
    a0, lam0 = _accelerations(system, P, H0, beta, Q, cvec, A0, T, ind, dep)
    G = [sp.Add(*[H[i, j] * a0[j] for j in range(n)]) + beta[i] - Q[i]
         - sp.Add(*[system.constraint_matrix[m, i] * lam0[m] for m in range(len(lam0))])
         for i in range(n)]
    K = [sp.Add(*[system.constraint_matrix[m, j] * a0[j] for j in range(n)]) + cvec[m]
         for m in range(len(cvec))]
    return _assemble(system, P, H0, A0, T, G, K, ind, dep)


def _frame_at(A0: sp.Matrix, ind, dep, n: int) -> sp.Matrix:
    r"""The adapted frame :math:`T` at the point (identity on the independent rows)."""
    T = sp.zeros(n, len(ind))
    for a, i in enumerate(ind):
        T[i, a] = 1
    if dep:
        S = _solve(A0[:, dep], -A0[:, ind])
        for m, j in enumerate(dep):
            for a in range(len(ind)):
                T[j, a] = S[m, a]
    return T


def _constraint_rate(system) -> list:
    r""":math:`c = \dot a\dot q + \dot b` (so that :math:`\frac{d}{dt}(a\dot q + b) = a\ddot q
    + c`)."""
    N = system.manifold
    q, vel = N.coords, N.velocities
    A, b = system.constraint_matrix, system.constraint_affine
    return [sp.Add(*[sp.diff(A[m, i], q[j]) * vel[j] * vel[i] for i in range(N.dim)
                     for j in range(N.dim) if A[m, i].has(q[j])])
            + sp.Add(*[sp.diff(b[m], q[j]) * vel[j] for j in range(N.dim) if b[m].has(q[j])])
            for m in range(A.rows)]


def _accelerations(system, P, H0, beta, Q, cvec, A0, T, ind, dep) -> tuple[list, list]:
    r""":math:`(\ddot q_0, \lambda_0)` at the point."""
    n = H0.rows
    F0 = sp.Matrix([as_expr(Q[i] - beta[i]).xreplace(P) for i in range(n)])
    pvec = sp.zeros(n, 1)
    if dep:
        e = _solve(A0[:, dep], -sp.Matrix([c.xreplace(P) for c in cvec]))
        for m, j in enumerate(dep):
            pvec[j] = e[m]
    M = (T.T * H0 * T).applyfunc(default_policy().normalize)
    udot = _solve(M, T.T * (F0 - H0 * pvec))
    a0 = T * udot + pvec
    lam0 = []
    if dep:
        resid = H0 * a0 - F0
        lam0 = list(_solve(A0[:, dep].T, sp.Matrix([resid[j] for j in dep])))
    return list(a0.applyfunc(default_policy().normalize)), lam0


def _gradient(exprs, variables, P) -> sp.Matrix:
    """``d expr_i / d var_j`` at the point ``P``."""
    norm = default_policy().normalize
    return sp.Matrix(len(exprs), len(variables),
                     lambda i, j: norm(sp.diff(exprs[i], variables[j]).xreplace(P))
                     if exprs[i].has(variables[j]) else sp.S.Zero)


def _assemble(system, P, H0, A0, T, G, K, ind, dep) -> sp.Matrix:
    r"""The Jacobian in the phase-space coordinates (module docstring)."""
    N = system.manifold
    n, q, vel = N.dim, N.coords, N.velocities
    r = len(ind)
    k = len(dep)
    # velocities: dqdot = T du + W dq
    W = sp.zeros(n, n)
    if dep:
        cons = [sp.Add(*[system.constraint_matrix[m, i] * vel[i] for i in range(n)])
                + system.constraint_affine[m] for m in range(k)]
        W_dep = _solve(A0[:, dep], -_gradient(cons, q, P))
        for m, j in enumerate(dep):
            W[j, :] = W_dep[m, :]
    dv = W.row_join(T)                                   # n x (n + r): d qdot / d(q, u)
    dq = sp.eye(n).row_join(sp.zeros(n, r))              # d q / d(q, u)
    Gq, Gv = _gradient(G, q, P), _gradient(G, vel, P)
    Z = sp.zeros(n, n + r)
    if dep:
        Kq, Kv = _gradient(K, q, P), _gradient(K, vel, P)
        Z_dep = _solve(A0[:, dep], -(Kq * dq + Kv * dv))
        for m, j in enumerate(dep):
            Z[j, :] = Z_dep[m, :]
    M = (T.T * H0 * T).applyfunc(default_policy().normalize)
    du = _solve(M, -T.T * (H0 * Z + Gq * dq + Gv * dv))  # r x (n + r)
    J = dv.col_join(du)
    return J.applyfunc(default_policy().normalize)
