r"""Tzenoff's equations (13)/(15) of a nonholonomic system, the form
``"tzenoff"`` (Tzenoff (1953)).

With :math:`\dot q = b(q)\omega + b_0(q)` (the columns of :math:`b` span the constraint
distribution; default: the independent velocities, Tzenoff's (13')) the equations are
:math:`\partial K^{nh}/\partial\dot\omega = 0` for Tzenoff's function :math:`K^{nh}` of
:mod:`geomech.mechanics.equations.tzenoff_function`.

>>> import geomech as gm
>>> S = gm.examples.skate()              # Kozlov's skate, L = (xdot^2 + ydot^2 + phidot^2)/2
>>> TzenoffEquations.derive(S).agrees_with(S.equations("lagrange_dalembert"))
True
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.algebra.solve import solve_linear
from geomech.core.zero import default_policy
from geomech.mechanics.equations.common import (
    DeferredSolve,
    inverse_solve,
    large_rhs,
    mass_matrix_solution,
)
from geomech.mechanics.equations.implicit import ImplicitEquations
from geomech.mechanics.equations.jets import JetSpace
from geomech.mechanics.equations.motion import EquationsOfMotion
from geomech.mechanics.equations.phase import phase_rhs_from_quasi
from geomech.mechanics.equations.tzenoff_function import (
    collect_monomials,
    tzenoff_quasi_velocity_K,
)

__all__ = ["TzenoffEquations"]


def _solve_mass_matrix(M: sp.Matrix, rhs: sp.Matrix, gens: Sequence[sp.Symbol],
                       explicit: bool = True) -> tuple[sp.Matrix, DeferredSolve | None]:
    r"""``(solution, None)`` of :math:`M\dot\omega = r`, or placeholders and the deferred
    system (``explicit=False``, :func:`~geomech.mechanics.equations.common.mass_matrix_solution`).

    Solved exactly: :math:`\dot\omega = \operatorname{adj}(M)\,r/\det M`, numerators
    normalised coefficient-wise as polynomials in the quasi-velocities ``gens`` (much cheaper
    than a global cancel for trigonometric mass matrices)."""
    k = M.rows
    what = "Tzenoff mass matrix b^T (d2L/dqdot2) b"
    if not explicit or k == 1 or all(M[i, j] == 0 for i in range(k) for j in range(k)
                                     if i != j):
        return mass_matrix_solution(M, rhs, what, explicit)
    if large_rhs(rhs):                  # heavy bodies: M^{-1} r, r kept as it is
        return inverse_solve(M, rhs, what), None
    det = compact(M.det(method="berkowitz"))
    if default_policy().is_zero(det):
        raise ValueError("the Tzenoff mass matrix b^T (d2L/dqdot2) b is singular: det = 0 "
                         "identically (degenerate Lagrangian or singular frame)")
    adj = M.adjugate(method="berkowitz")
    return sp.Matrix([compact(collect_monomials((adj[i, :] * rhs)[0], gens) / det)
                      for i in range(k)]), None


def _frame_matrix(system, frame) -> sp.Matrix:
    """The n x k matrix of a frame given as vector fields on N or as a matrix/columns."""
    from geomech.core.fields import VectorField

    N = system.manifold
    if isinstance(frame, sp.MatrixBase):
        b = sp.Matrix(frame)
    else:
        frame = list(frame)
        if not frame:
            raise ValueError("the frame is empty")
        if all(isinstance(X, VectorField) for X in frame):
            for j, X in enumerate(frame, 1):
                if X.manifold.coords != N.coords:
                    raise ValueError(f"frame vector {j} is not a field on {N.name}")
            b = sp.Matrix([list(X.components) for X in frame]).T
        else:
            b = sp.Matrix([[N.sympify(c) for c in col] for col in frame]).T
    if b.rows != N.dim:
        raise ValueError(f"the frame needs {N.dim} components per vector (one per coordinate "
                         f"of {N.name}), got {b.rows}")
    return b


def _tzenoff_frame(system, frame, quasi_velocities) -> tuple:
    """``(b, omega)``: the frame matrix (columns spanning the constraint distribution) and
    the quasi-velocity symbols of :meth:`TzenoffEquations.derive`."""
    N = system.manifold
    n = N.dim
    policy = default_policy()
    if frame is None:
        if quasi_velocities is not None:
            raise ValueError("quasi_velocities= needs a frame= (the default frame uses the "
                             "independent velocities)")
        tangent = system.adapted_frame()[0]
        b = sp.Matrix([list(X.components) for X in tangent]).T if tangent else sp.zeros(n, 0)
        return b, tuple(system.independent_velocities)
    b = _frame_matrix(system, frame)
    k_expected = n - system.n_constraints
    if b.cols != k_expected:
        raise ValueError(f"the frame has {b.cols} vectors; the constraint distribution of "
                         f"{system.name} has rank {k_expected}")
    A = system.constraint_matrix
    for j in range(b.cols):
        if not all(policy.is_zero(e) for e in A * b[:, j]):
            raise ValueError(f"frame vector {j + 1} does not satisfy the constraints "
                             "(it is not in the constraint distribution)")
    if b.cols and policy.rank(b) < b.cols:
        raise ValueError("the frame is singular (its vectors are linearly dependent)")
    if quasi_velocities is None:
        return b, sp.symbols(f"omega1:{b.cols + 1}", real=True)
    if isinstance(quasi_velocities, str):
        quasi_velocities = quasi_velocities.replace(",", " ").split()
    omega = tuple(sp.Symbol(w, real=True) if isinstance(w, str) else w
                  for w in quasi_velocities)
    if len(omega) != b.cols:
        raise ValueError(f"{len(omega)} quasi-velocity names for {b.cols} frame vectors")
    return b, omega


def _tzenoff_b0(system, b0) -> sp.Matrix:
    """The inhomogeneous part :math:`b_0` (default: the system's affine velocity), checked
    against the affine constraints."""
    N = system.manifold
    if b0 is None:
        return sp.Matrix(list(system.affine_velocity().components))
    b0 = sp.Matrix([N.sympify(e) for e in b0])
    if b0.rows != N.dim:
        raise ValueError(f"b0 needs {N.dim} entries, got {b0.rows}")
    resid = system.constraint_matrix * b0 + sp.Matrix(list(system.constraint_affine))
    if not all(default_policy().is_zero(e) for e in resid):
        raise ValueError("b0 does not satisfy the (affine) constraints")
    return b0


def _frame_variables(system, b, b0, omega) -> dict:
    r""":math:`\omega` as functions on the phase space: the rows of :math:`\dot q = b\omega
    + b_0` at the independent velocities, solved."""
    ind = system.independent_indices
    Pb = sp.Matrix(len(ind), b.cols, lambda a, c: b[ind[a], c])
    if default_policy().rank(Pb) < b.cols:
        raise ValueError("the frame is singular: it cannot be expressed through the "
                         "independent velocities")
    u = sp.Matrix([v - b0[i] for v, i in zip(system.independent_velocities, ind)])
    return dict(zip(omega, solve_linear(Pb, u, what="frame minor")))


class TzenoffEquations(EquationsOfMotion):
    r"""Tzenoff's equations (Tzenoff (1953), (13)/(15)) in quasi-velocities
    :math:`\dot q = b\,\omega + b_0`:

    .. math:: \frac{\partial K^{nh}}{\partial\dot\omega_\beta} = 0,\qquad
              K^{nh} = \Big[\tfrac12(\ddot L - 3\ddot L_0)\Big]_{\dddot q := 0}
              - Q_i\ddot q_i\ \Big|_{\ddot q = b\dot\omega + \dot b\omega + \dot b_0,\;
              \dot q = b\omega + b_0}

    (see :meth:`derive`; ``eq.data["K"]`` is :math:`K^{nh}`).
    """

    form = "tzenoff"

    @classmethod
    def derive(cls, system, *, explicit: bool = True, frame=None,
               quasi_velocities: Sequence | None = None, b0=None,
               truncate: bool = True) -> TzenoffEquations:
        r"""Tzenoff's equations (13)/(15) of a nonholonomic system (the form ``"tzenoff"``).

        .. math:: \frac{\partial K^{nh}}{\partial\dot\omega_\beta} = 0,\qquad
                  K^{nh} = \Big[\tfrac12(\ddot L - 3\ddot L_0)\Big]_{\dddot q := 0}
                  - Q_i\ddot q_i\ \Big|_{\ddot q = b\dot\omega + \dot b\omega + \dot b_0,\;
                  \dot q = b\omega + b_0}

        The Lagrangian :math:`L = T - U` takes the place of Tzenoff's :math:`T`
        (:math:`\tfrac12(\ddot L - 3\ddot L_0) = \tfrac12(\ddot T - 3\ddot T_0) - \ddot U`);
        ``system.forces`` are the non-potential :math:`Q_i`.

        Parameters
        ----------
        system : NonholonomicSystem
        frame : sequence of VectorField on N, or n x k matrix, optional
            Columns :math:`b_\beta` spanning the constraint distribution; default: the adapted
            frame of the independent velocities, :math:`\omega = \dot q_{\rm ind}` (Tzenoff's
            (13')).
        quasi_velocities : sequence of Symbol or str, optional
            Names of :math:`\omega` for a user frame (default ``omega1 ..``).
        b0 : sequence, optional
            Inhomogeneous part :math:`b_0(q)` of :math:`\dot q` (default: the system's affine
            velocity, zero for homogeneous constraints).
        truncate : bool
            Apply the truncation rule T1.11 (default).  ``False`` gives *wrong* equations in
            general and exists only for the negative check.

        Returns
        -------
        EquationsOfMotion
            ``equations``: :math:`\partial K^{nh}/\partial\dot\omega_\beta = 0`;
            ``rhs``: the field on ``system.phase_space``; ``form_rhs``: in :math:`(q, \omega)`;
            ``variables``: :math:`\omega` as functions on the phase space;
            ``data["K"]``: :math:`K^{nh}` (its :math:`\dot\omega`-dependent part),
            ``data["mass_matrix"]``: :math:`b^{T}\,\partial^2L/\partial\dot q^2\, b`.

        Examples
        --------
        >>> import geomech as gm
        >>> skate = gm.examples.skate()      # xdot sin(phi) - ydot cos(phi) = 0, ydot dependent
        >>> eq = TzenoffEquations.derive(skate)
        >>> [e.lhs for e in eq.equations]
        [(phidot*xdot*sin(phi) + xddot*cos(phi))/cos(phi)**3, phiddot]
        >>> eq.agrees_with(skate.equations("lagrange_dalembert"))
        True
        """
        cls._check(system, explicit)
        N = system.manifold
        jets = JetSpace.from_manifold(N, order=3)
        b, omega = _tzenoff_frame(system, frame, quasi_velocities)
        b0 = _tzenoff_b0(system, b0)
        res = tzenoff_quasi_velocity_K(system.lagrangian, jets, b, b0, omega,
                                       forces=system.forces, truncate=truncate)
        M = res.mass_matrix()
        zero = dict.fromkeys(res.omegadot, 0)
        rhs_vec = sp.Matrix([-e.xreplace(zero) for e in res.equations])
        sol, rec = _solve_mass_matrix(M, rhs_vec, omega, explicit) if b.cols else \
            (sp.zeros(0, 1), None)
        rhs = phase_rhs_from_quasi(system, b, list(b0), omega, list(sol))
        form_rhs = {c: compact(v) for c, v in zip(N.coords, res.velocity)}
        form_rhs.update(zip(omega, sol))
        variables = {} if frame is None else _frame_variables(system, b, b0, omega)
        equations = [sp.Eq(compact(e), 0, evaluate=False) for e in res.equations]
        return cls(system, cls.form, equations, rhs, multipliers=None, variables=variables,
                   form_rhs=form_rhs,
                   data={"K": res.K, "mass_matrix": M, "frame": b, "b0": b0,
                         "quasi_velocities": omega, "quasi_accelerations": res.omegadot,
                         "truncated": truncate}, deferred=rec)

    @classmethod
    def implicit_equations(cls, system) -> TzenoffEquations:
        r"""Tzenoff's equations (13') in the independent velocities, implicit: the K-function of
        :func:`~geomech.mechanics.equations.tzenoff_function.tzenoff_quasi_velocity_K` gives
        :math:`\partial K^{nh}/\partial\dot\omega = M\dot\omega - F = 0`, read off the
        K-function directly: no normal form of the equations and no frame checks (``derive``
        with ``explicit=False`` also defers its solve, but normalises the equations)."""
        cls._check(system)

        N = system.manifold
        n = N.dim
        tangent = system.adapted_frame()[0]
        b = sp.Matrix([list(X.components) for X in tangent]).T if tangent else sp.zeros(n, 0)
        b0 = sp.Matrix(list(system.affine_velocity().components))
        omega = tuple(system.independent_velocities)
        res = tzenoff_quasi_velocity_K(system.lagrangian, JetSpace.from_manifold(N, order=3), b,
                                       b0, omega, forces=system.forces, truncate=True)
        M = res.mass_matrix()
        zero = dict.fromkeys(res.omegadot, sp.S.Zero)
        F = sp.Matrix([-e.xreplace(zero) for e in res.equations])
        wd = tuple(res.omegadot)
        rates = phase_rhs_from_quasi(system, b, list(b0), omega, list(wd))
        imp = ImplicitEquations(system, "tzenoff", M, F, wd, rates)

        def phase_rhs() -> dict:
            return imp.explicit_rates()

        def form_rhs() -> dict:
            out = {c: compact(v) for c, v in zip(N.coords, res.velocity)}
            out.update(imp.solve().items())
            return {(omega[wd.index(k)] if k in wd else k): v for k, v in out.items()}

        equations = [sp.Eq(compact(e), 0, evaluate=False) for e in res.equations]
        return cls(system, cls.form, equations, phase_rhs, multipliers=None,
                   variables={}, form_rhs=form_rhs, implicit=imp,
                   data={"K": res.K, "mass_matrix": M, "frame": b, "b0": b0,
                         "quasi_velocities": omega, "quasi_accelerations": wd, "truncated": True})
