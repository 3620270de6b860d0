r"""The Jacobian of the Lagrange--d'Alembert field at one state, from the data of the system.

For systems whose explicit phase-space field is too large to form (the Whipple bicycle:
constraint minors of tens of thousands of operations), the derivative of the field at a
state :math:`x_0 = (q_0, u_0)` is computed from the Lagrangian, the constraints and the forces
evaluated at the state, without forming the field: the first variation (Poincaré's
variational equations) of the Lagrange--d'Alembert equations

.. math:: G(q,\dot q,\ddot q,\lambda) = H\ddot q + \beta - Q - a^{\mathsf T}\lambda = 0,
          \qquad K(q,\dot q,\ddot q) = a\ddot q + c = 0,
          \qquad a\dot q + b = 0

(:meth:`~geomech.mechanics.equations.classical.LagrangeDalembertEquations.derive`; :math:`H =
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
from functools import cached_property

import sympy as sp

from geomech.core.kernel import symengine_for
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

__all__ = ["field_jacobian", "field_jacobian_mass_form", "jacobian_of_mass_form", "field_at",
           "full_velocity_at", "reduced_mass_matrix_at", "energy_gradient_at"]


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


def _solve(M: sp.Matrix, B: sp.Matrix, normalize: bool = True) -> sp.Matrix:
    r"""``M^{-1} B`` exactly, block by block of ``M`` (its diagonal blocks coupled by
    non-zero entries); blocks of up to three rows by Cramer's rule (no nested fractions),
    larger ones by LU; entries in the normal form of the zero policy, computed in the
    sparse ring with flint's gcd (:func:`~geomech.mechanics.equations.common.
    ring_normal_forms`) where it applies."""
    if M.rows == 0:
        return sp.zeros(0, B.cols)
    if default_policy().rank(M) < M.rows:
        raise ValueError("the constraint minor or the reduced mass matrix is singular at the "
                         "state")
    sol = sp.zeros(M.rows, B.cols)
    cols = list(range(B.cols))
    for block in _diagonal_blocks(M):
        Mb, Bb = M.extract(block, block), B.extract(block, cols)
        if len(block) == 1:
            Xb = Bb / Mb[0, 0]
        elif len(block) <= 3:
            Xb = (Mb.adjugate() * Bb).applyfunc(sp.expand) / sp.expand(Mb.det(
                method="berkowitz"))
        else:
            Xb = Mb.LUsolve(Bb)
        for a, i in enumerate(block):
            sol[i, :] = Xb[a, :]
    return _normal_forms(sol) if normalize else sol


def _diagonal_blocks(M: sp.Matrix) -> list[list[int]]:
    """The index sets of the diagonal blocks of ``M``: the connected components of the
    graph of its non-zero off-diagonal entries."""
    comp = list(range(M.rows))

    def root(i: int) -> int:
        while comp[i] != i:
            i = comp[i]
        return i

    for i in range(M.rows):
        for j in range(i + 1, M.rows):
            if M[i, j] != 0 or M[j, i] != 0:
                comp[root(j)] = root(i)
    blocks: dict = {}
    for i in range(M.rows):
        blocks.setdefault(root(i), []).append(i)
    return list(blocks.values())


def _normal_forms(M: sp.Matrix) -> sp.Matrix:
    """The entries of ``M`` in the zero policy's normal form (the sparse ring where it
    applies)."""
    from geomech.mechanics.equations.common import ring_normal_forms

    entries = list(M)
    out = ring_normal_forms(entries)
    if out is None:
        out = [default_policy().normalize(e) for e in entries]
    return sp.Matrix(M.rows, M.cols, out)


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


# =============================================================================================
# the data and its derivatives at the point
# =============================================================================================
class _DataAt:
    r"""The data of a system -- :math:`L`, :math:`a`, :math:`b`, :math:`Q` -- and the
    expressions built from them (:math:`H = \partial^2L/\partial\dot q^2`, :math:`\beta`,
    :math:`a\dot q + b`, its rate :math:`c`), with their values and derivatives at the point
    ``P`` (every coordinate and velocity).  The expressions are formed and differentiated in
    symengine when it is installed (derivatives of a Lagrangian of ten thousand operations in
    milliseconds), evaluated at ``P`` and converted back to sympy once; else in sympy.
    """

    def __init__(self, system, P: Mapping):
        N = system.manifold
        self.system = system
        n, k = N.dim, system.n_constraints
        A, b = system.constraint_matrix, system.constraint_affine
        Q = list(system.forces) if system.forces is not None else [sp.S.Zero] * n
        data = [as_expr(system.lagrangian), *A, *b, *map(as_expr, Q)]
        self._se = symengine_for([*data, *map(as_expr, P.values()), *P])
        self._originals = {s.name: s for e in [*data, *map(as_expr, P.values())]
                           for s in e.free_symbols}
        c = self.convert
        self.q, self.v = [c(x) for x in N.coords], [c(x) for x in N.velocities]
        self.point = {c(key): c(val) for key, val in P.items()}
        L = c(system.lagrangian)
        p = [L.diff(v) for v in self.v]
        self.H = [[p[i].diff(self.v[j]) for j in range(n)] for i in range(n)]
        self.beta = [sum((p[i].diff(qj) * vj for qj, vj in zip(self.q, self.v)), 0)
                     - L.diff(self.q[i]) for i in range(n)]
        self.A = [[c(A[m, i]) for i in range(n)] for m in range(k)]
        self.Q = [c(f) for f in Q]
        self.cons = [sum((a * v for a, v in zip(self.A[m], self.v)), 0) + c(b[m])
                     for m in range(k)]
        # d/dt (a qdot + b) = a qddot + c,  c = sum_j d(a qdot + b)/dq_j qdot_j
        self.rate = [sum((f.diff(qj) * vj for qj, vj in zip(self.q, self.v)), 0)
                     for f in self.cons]

    @cached_property
    def H0(self) -> sp.Matrix:
        r""":math:`H = \partial^2L/\partial\dot q^2` at the point."""
        return sp.Matrix([[self.at(e) for e in row] for row in self.H])

    @cached_property
    def A0(self) -> sp.Matrix:
        """The constraint matrix at the point."""
        return sp.Matrix(len(self.A), len(self.q), lambda m, i: self.at(self.A[m][i]))

    @cached_property
    def T(self) -> sp.Matrix:
        """The adapted frame at the point (:func:`_frame_at`)."""
        s = self.system
        return _frame_at(self.A0, list(s.independent_indices), list(s.dependent_indices),
                         len(self.q))

    def convert(self, e):
        """``e`` in the backend."""
        return self._se.sympify(e) if self._se is not None else as_expr(e)

    def at(self, e) -> sp.Expr:
        """The value of a backend expression at the point, in sympy (normalised)."""
        if self._se is not None:
            e = as_expr(self._se.expand(e.subs(self.point)))
            e = e.xreplace({s: self._originals.get(s.name, s) for s in e.free_symbols})
        else:
            e = e.xreplace(self.point)
        if e.has(sp.zoo, sp.nan, sp.oo):
            raise ValueError(f"the data of the system is singular at the state (a value {e})")
        return default_policy().normalize(e)

    def values(self, exprs) -> sp.Matrix:
        """The column of values at the point."""
        return sp.Matrix([self.at(e) for e in exprs])

    def gradient(self, exprs, variables) -> sp.Matrix:
        """``d expr_i / d var_j`` at the point."""
        return sp.Matrix([[self.at(e.diff(x)) for x in variables] for e in exprs])


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
    q, vel = system.manifold.coords, system.manifold.velocities
    v0 = full_velocity_at(system, x0)
    data = _DataAt(system, {**{c: x0[c] for c in q}, **v0})
    a0, _ = _accelerations(system, data)
    ind = list(system.independent_indices)
    rates = {**{c: v0[v] for c, v in zip(q, vel)}, **{vel[i]: a0[i] for i in ind}}
    return {c: rates[c] for c in system.phase_space.coords}


def field_jacobian(system, state: Mapping) -> sp.Matrix:
    r"""The exact Jacobian :math:`\partial F/\partial x` at ``state`` of the
    Lagrange--d'Alembert field :math:`F` on ``system.phase_space`` (rows and columns in the
    order of ``system.phase_space.coords``), computed from the data at the state (module
    docstring): :math:`\begin{pmatrix} V \\ M^{-1}R\end{pmatrix}` of
    :func:`field_jacobian_mass_form`.

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
    return jacobian_of_mass_form(*field_jacobian_mass_form(system, state))


def jacobian_of_mass_form(V: sp.Matrix, M: sp.Matrix, R: sp.Matrix,
                          normalize: bool = True) -> sp.Matrix:
    r"""The Jacobian :math:`\begin{pmatrix} V \\ M^{-1}R\end{pmatrix}` of a first variation
    in mass-matrix form (:func:`field_jacobian_mass_form`), exact: :math:`M` is inverted
    block by block (its diagonal blocks), by Cramer's rule for blocks of up to three rows,
    the entries put in the zero policy's normal form in the sparse ring (flint's gcd) unless
    ``normalize`` is false (numbers: algebraic ones are left as they come).

    >>> import sympy as sp
    >>> m, k = sp.symbols("m k", positive=True)
    >>> jacobian_of_mass_form(sp.Matrix([[0, 1]]), sp.Matrix([[m]]), sp.Matrix([[-k, 0]]))
    Matrix([
    [   0, 1],
    [-k/m, 0]])
    """
    return V.col_join(_solve(M, R, normalize))


def field_jacobian_mass_form(system, state: Mapping) -> tuple[sp.Matrix, sp.Matrix,
                                                              sp.Matrix]:
    r"""The first variation at ``state`` in mass-matrix form, ``(V, M, R)``:

    .. math:: \delta\dot q = V\,\delta x, \qquad M\,\delta\dot u = R\,\delta x,

    :math:`\delta x` the variation of the phase-space coordinates (in the order of
    ``system.phase_space.coords``: :math:`q`, then :math:`u`), :math:`V = (W \mid T)`
    (:math:`n` rows, the configuration rates), :math:`M = T^{\mathsf T}HT` the reduced mass
    matrix and
    :math:`R = -T^{\mathsf T}(HZ + \partial_q G\,\partial x/\partial x + \partial_{\dot q}G
    \,V)` (module docstring).  No inverse is formed: for large systems (the Whipple
    bicycle) :math:`M` and :math:`R` are polynomial in the parameters while
    :math:`M^{-1}R` is a large fraction.  The rows of :math:`V` for the phase-space
    coordinates and :math:`M^{-1}R` form :func:`field_jacobian`.

    >>> import geomech as gm, sympy as sp
    >>> S = gm.examples.chaplygin_sleigh()
    >>> V, M, R = field_jacobian_mass_form(S, {"x": 0, "y": 0, "phi": 0, "xdot": 1,
    ...                                        "phidot": 0})
    >>> M, R
    (Matrix([
    [m, 0],
    [0, I]]), Matrix([
    [0, 0, 0, 0,    0],
    [0, 0, 0, 0, -a*m]]))
    """
    x0 = _point(system, state)
    N = system.manifold
    n, q = N.dim, N.coords
    data = _DataAt(system, {**{c: x0[c] for c in q}, **full_velocity_at(system, x0)})
    a0, lam0 = _accelerations(system, data)
    c = data.convert
    a0s, lam0s = [c(e) for e in a0], [c(e) for e in lam0]
    G = [sum((data.H[i][j] * a0s[j] for j in range(n)), 0) + data.beta[i] - data.Q[i]
         - sum((data.A[m][i] * lam0s[m] for m in range(len(lam0s))), 0) for i in range(n)]
    K = [sum((data.A[m][j] * a0s[j] for j in range(n)), 0) + data.rate[m]
         for m in range(len(data.rate))]
    return _assemble(system, data, G, K)


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


def _accelerations(system, data: _DataAt) -> tuple[list, list]:
    r""":math:`(\ddot q_0, \lambda_0)` at the point: :math:`(T^{\mathsf T}HT)\dot u =
    T^{\mathsf T}(Q - \beta - Hp)` with :math:`a_{\rm dep}p_{\rm dep} = -c`."""
    dep = list(system.dependent_indices)
    n = system.manifold.dim
    H0, A0, T = data.H0, data.A0, data.T
    F0 = data.values([Qi - bi for Qi, bi in zip(data.Q, data.beta)])
    pvec = sp.zeros(n, 1)
    if dep:
        e = _solve(A0[:, dep], -data.values(data.rate))
        for m, j in enumerate(dep):
            pvec[j] = e[m]
    M = (T.T * H0 * T).applyfunc(default_policy().normalize)
    rhs = (T.T * (F0 - H0 * pvec)).applyfunc(default_policy().normalize)
    if all(e == 0 for e in rhs):      # a steady state: no solve (M is checked regular)
        if default_policy().rank(M) < M.rows:
            raise ValueError("the reduced mass matrix is singular at the state")
        udot = sp.zeros(M.rows, 1)
    else:
        udot = _solve(M, rhs)
    a0 = T * udot + pvec
    lam0 = []
    if dep:
        resid = H0 * a0 - F0
        lam0 = list(_solve(A0[:, dep].T, sp.Matrix([resid[j] for j in dep])))
    return list(a0.applyfunc(default_policy().normalize)), lam0


def _velocity_variation(system, data: _DataAt) -> sp.Matrix:
    r""":math:`V = (W \mid T)`: :math:`\delta\dot q = W\delta q + T\delta u` at the point,
    :math:`W = -a_{\rm dep}^{-1}\partial_q(a\dot q + b)` on the dependent rows."""
    n = system.manifold.dim
    dep = list(system.dependent_indices)
    W = sp.zeros(n, n)
    if dep:
        W_dep = _solve(data.A0[:, dep], -data.gradient(data.cons, data.q))
        for m, j in enumerate(dep):
            W[j, :] = W_dep[m, :]
    return W.row_join(data.T)


def energy_gradient_at(system, state: Mapping) -> sp.Matrix:
    r"""The differential of the energy :math:`E = \sum_i\dot q_i\,\partial L/\partial
    \dot q_i - L` restricted to the phase space, at ``state`` (a row in the order of
    ``system.phase_space.coords``), from the data at the point:
    :math:`dE = \partial_qE\,(1 \mid 0) + \partial_{\dot q}E\,V`, :math:`V` the
    variation of the velocities (module docstring).  No constraint is solved symbolically.

    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh()
    >>> energy_gradient_at(S, {"x": 0, "y": 0, "phi": 0, "xdot": 2, "phidot": 0})
    Matrix([[0, 0, 0, 2*m, 0]])
    """
    x0 = _point(system, state)
    N = system.manifold
    n, r = N.dim, len(system.independent_indices)
    data = _DataAt(system, {**{c: x0[c] for c in N.coords}, **full_velocity_at(system, x0)})
    L = data.convert(system.lagrangian)
    E = [sum((v * L.diff(v) for v in data.v), 0) - L]
    Eq, Ev = data.gradient(E, data.q), data.gradient(E, data.v)
    dE = Eq * sp.eye(n).row_join(sp.zeros(n, r)) + Ev * _velocity_variation(system, data)
    return dE.applyfunc(default_policy().normalize)


def _assemble(system, data: _DataAt, G: list, K: list) -> sp.Matrix:
    r"""``(V, M, R)`` of :func:`field_jacobian_mass_form` (module docstring)."""
    N = system.manifold
    n = N.dim
    ind, dep = list(system.independent_indices), list(system.dependent_indices)
    r = len(ind)
    H0, A0, T = data.H0, data.A0, data.T
    dv = _velocity_variation(system, data)               # n x (n + r): d qdot / d(q, u)
    dq = sp.eye(n).row_join(sp.zeros(n, r))              # d q / d(q, u)
    Gq, Gv = data.gradient(G, data.q), data.gradient(G, data.v)
    Z = sp.zeros(n, n + r)
    if dep:
        Kq, Kv = data.gradient(K, data.q), data.gradient(K, data.v)
        Z_dep = _solve(A0[:, dep], -(Kq * dq + Kv * dv))
        for m, j in enumerate(dep):
            Z[j, :] = Z_dep[m, :]
    M = (T.T * H0 * T).applyfunc(default_policy().normalize)
    R = _normal_forms(-T.T * (H0 * Z + Gq * dq + Gv * dv))
    return dv, M, R
