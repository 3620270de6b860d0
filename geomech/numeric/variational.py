r"""Discrete Lagrange--d'Alembert (nonholonomic variational) integrator.

The discrete Lagrange--d'Alembert integrator of Cortés & Martínez (2001, "Non-holonomic
integrators", Nonlinearity 14) and McLachlan & Perlmutter (2006, "Integrators for
nonholonomic mechanical systems", J. Nonlinear Sci. 16), here in a symmetric
position--momentum form (the constraint impulse split between the two ends of the step, as
in RATTLE), built from the symbolic Lagrangian :math:`L(q,\dot q)` and constraints
:math:`f(q,\dot q) = 0` of a :class:`~geomech.mechanics.system.NonholonomicSystem`.  With
the midpoint discrete Lagrangian

.. math::  L_d(q_0, q_1) = h\,L\big(\tfrac{q_0+q_1}{2}, \tfrac{q_1-q_0}{h}\big)

and the constraint matrix :math:`A(q) = \partial f/\partial\dot q`, one step
:math:`(q_k, p_k) \mapsto (q_{k+1}, p_{k+1})` solves, by Newton's method with the compiled
symbolic Jacobian,

.. math::

    p_k + D_1L_d(q_k, q_{k+1}) + f_d^-(q_k, q_{k+1}) = A(q_k)^T\lambda_k, \qquad
    f\big(\tfrac{q_k+q_{k+1}}{2}, \tfrac{q_{k+1}-q_k}{h}\big) = 0

for :math:`(q_{k+1}, \lambda_k)` (discrete constraint, imposed at the new step), then

.. math::

    \partial L/\partial\dot q\,(q_{k+1}, v_{k+1}) = D_2L_d(q_k, q_{k+1})
    + f_d^+(q_k, q_{k+1}) + A(q_{k+1})^T\mu_{k+1}, \qquad f(q_{k+1}, v_{k+1}) = 0

for :math:`(v_{k+1}, \mu_{k+1})`, with :math:`p_{k+1} = \partial L/\partial\dot q\,(q_{k+1},
v_{k+1})`.  The discrete forces of the generalised forces :math:`Q(q,\dot q)` of the
system (``system.forces``; zero without them) are the midpoint rule of the forced discrete
Lagrange--d'Alembert principle (Marsden & West 2001, "Discrete mechanics and variational
integrators", Acta Numerica 10, §3.2),

.. math::  f_d^\pm(q_0, q_1) = \tfrac h2\,Q\big(\tfrac{q_0+q_1}{2}, \tfrac{q_1-q_0}{h}\big).

Eliminating the momenta gives the discrete Lagrange--d'Alembert equations
:math:`D_2L_d(q_{k-1},q_k) + D_1L_d(q_k,q_{k+1}) + f_d^+(q_{k-1},q_k) + f_d^-(q_k,q_{k+1})
= A(q_k)^T(\lambda_k - \mu_k)`.  The map
is symmetric (:math:`\Phi_{-h} = \Phi_h^{-1}`, with or without forces), hence of even
order -- 2, as measured -- and
reversible on reversible systems, where reversible integrators have good long-time energy
behaviour (McLachlan & Perlmutter 2006); no secular growth of the energy error is observed
over :math:`10^5` steps on the rolling disk.  Both the discrete and the continuous
constraints hold to round-off at every step.

All velocities :math:`v` are unknowns of the linear-algebra solve, so the integrator never
divides by the determinant of the dependent-velocity block of :math:`A` (the chart of the
phase space): it passes through the chart singularities of
:meth:`~geomech.mechanics.system.NonholonomicSystem.vector_field`.

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> dlda = DiscreteLagrangeDAlembert(S, {"m": 1, "I": 1, "a": 0.5})
>>> out = dlda.run([0, 0, 0], [1.0, 0.0, 1.0], 0.01, 100)
>>> out.success, out.q.shape, bool(abs(out.energy[-1] - out.energy[0]) < 1e-4)
(True, (101, 3), True)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from geomech.core import budget
from geomech.core.manifold import free_symbols_of
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

from .functions import resolve_parameters

__all__ = ["DiscreteLagrangeDAlembert", "DiscreteTrajectory"]

_NEWTON_TOL = 1e-13
_NEWTON_MAXIT = 25


def lambdify_flat(args: Sequence[sp.Symbol], exprs: Sequence[sp.Expr]):
    """One CSE'd numeric function ``F(z) -> ndarray`` of a flat argument vector ``z``
    (``symengine.Lambdify`` when symengine is installed, else ``sympy.lambdify``).

    >>> x, y = sp.symbols("x y")
    >>> lambdify_flat([x, y], [x*y, x + y])(np.array([2.0, 3.0]))
    array([6., 5.])
    """
    if not exprs:
        return lambda z: np.empty(0)
    try:
        import symengine as se
    except ImportError:  # pragma: no cover - optional dependency
        f = sp.lambdify([list(args)], list(exprs), modules="numpy", cse=True)
        return lambda z: np.asarray(f(z), dtype=float)
    g = se.Lambdify([se.sympify(a) for a in args], [se.sympify(e) for e in exprs], cse=True,
                    backend="lambda")
    k = len(exprs)
    return lambda z: np.asarray(g(z), dtype=float).reshape(k)


class _StepFailure(ArithmeticError):
    """A Newton solve of one step failed (message says why)."""


@functools.cache
def _gesv():
    """LAPACK ``dgesv`` (imported on first use: scipy.linalg is slow to import)."""
    from scipy.linalg.lapack import dgesv

    return dgesv


def _newton(fun, fixed: np.ndarray, z: np.ndarray, k: int,
            linear: bool = False) -> tuple[np.ndarray, int]:
    r"""Solve ``R(fixed, z) = 0`` (``fun`` returns R and the Jacobian dR/dz, flattened); for
    ``R`` affine in ``z`` (``linear``) one Newton step is the solution.  Stops when the
    update, or the estimate :math:`\theta/(1-\theta)\,\|\Delta z\|` of the remaining error
    (:math:`\theta` the contraction of the last two updates), is below 1e-13 relative."""
    arg = np.empty(len(fixed) + k)
    arg[:len(fixed)] = fixed
    previous, gesv = math.inf, _gesv()
    for it in range(1, _NEWTON_MAXIT + 1):
        arg[len(fixed):] = z
        out = fun(arg)
        if not math.isfinite(float(out @ out)):
            raise _StepFailure("the discrete equations are not finite (NaN or inf)")
        lu, piv, dz, info = gesv(out[k:].reshape(k, k), -out[:k])
        if info != 0:
            raise _StepFailure("the Jacobian of the discrete equations is singular")
        z = z + dz
        size = math.sqrt(dz @ dz)
        tol = _NEWTON_TOL * (1.0 + math.sqrt(z @ z))
        theta = size / previous if it > 1 else 1.0
        if linear or size <= tol or (theta < 0.5 and theta / (1 - theta) * size <= tol):
            return z, it
        previous = size
    raise _StepFailure(f"Newton's method did not converge in {_NEWTON_MAXIT} iterations "
                       f"(try a smaller step)")


@dataclass(frozen=True)
class DiscreteTrajectory:
    """Output of :meth:`DiscreteLagrangeDAlembert.run`.

    ``t`` (T,), configurations ``q`` (T, n), velocities ``v`` (T, n) (all of them, the
    dependent ones included), ``energy`` (T,), ``residual`` (T,): the largest absolute
    discrete-constraint residual of the step ending at each time (0 at the start),
    ``nfev`` (Newton iterations), ``success``, ``message``.
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    energy: np.ndarray
    residual: np.ndarray
    constraints: np.ndarray
    nfev: int
    success: bool
    message: str


class DiscreteLagrangeDAlembert:
    r"""The compiled discrete Lagrange--d'Alembert map of a nonholonomic system.

    The equations of one step are in the docstring of :mod:`geomech.numeric.variational`;
    :meth:`step` makes one step, :meth:`run` many.

    Parameters
    ----------
    system : NonholonomicSystem
        Lagrangian :math:`L(q,\dot q)` (time-independent), constraints
        :math:`f_\mu(q,\dot q)` (affine in the velocities) and optional generalised forces
        :math:`Q(q,\dot q)` (``system.forces``).
    parameters : dict, optional
        Numeric values ``{symbol or name: number}`` of the system's parameters.

    Examples
    --------
    A step of :math:`h` followed by a step of :math:`-h` returns to the start (symmetric map):

    >>> import geomech as gm
    >>> d = DiscreteLagrangeDAlembert(gm.examples.skate())
    >>> q1, v1, *_ = d.step(np.array([0.0, 0.0, 0.0]), np.array([1.0, 0.0, 1.0]), 0.1)
    >>> q0, v0, *_ = d.step(q1, v1, -0.1)
    >>> bool(np.allclose(q0, 0, atol=1e-13) and np.allclose(v0, [1, 0, 1], atol=1e-13))
    True
    """

    def __init__(self, system, parameters: Mapping | None = None):
        N = getattr(system, "manifold", None)
        L = getattr(system, "lagrangian", None)
        cons = getattr(system, "constraints", None)
        if N is None or not isinstance(L, sp.Expr) or cons is None:
            raise TypeError(f"the discrete Lagrange-d'Alembert integrator needs a "
                            f"NonholonomicSystem (a Lagrangian and constraints), got "
                            f"{type(system).__name__}")
        self._source = (system, parameters)
        q, v = tuple(N.coords), tuple(N.velocities)
        self.q, self.v = q, v
        cons = [as_expr(f, exact=False) for f in cons]
        forces = [as_expr(f, exact=False) for f in (getattr(system, "forces", None) or ())]
        self.forced = bool(forces) and any(f != 0 for f in forces)
        needed = free_symbols_of([L, *cons, *forces]) - set(q) - set(v)
        self.parameters = resolve_parameters(parameters, known=N.parameters, needed=needed)
        L = L.xreplace(self.parameters)
        cons = [f.xreplace(self.parameters) for f in cons]
        forces = [f.xreplace(self.parameters) for f in forces] if self.forced else []
        free = free_symbols_of([L, *cons, *forces]) - set(q) - set(v)
        if free:
            names = ", ".join(sorted(map(str, free)))
            raise ValueError(f"the Lagrangian, the constraints or the forces depend on {names}; "
                             f"pass "
                             f"parameters={{'{names.split(', ')[0]}': value, ...}}")
        for f in cons:
            if any(not default_policy().is_zero(sp.diff(f, a, b)) for a in v for b in v):
                raise ValueError(f"the constraint {f} = 0 is not affine in the velocities")
        self.n, self.m = len(q), len(cons)
        self._build(L, cons, forces)

    def __reduce__(self):
        """Pickled by its source (the system and the parameters), rebuilt on load."""
        return (type(self), self._source)

    def _build(self, L: sp.Expr, cons: list, forces: list) -> None:
        n, m, q, v = self.n, self.m, self.q, self.v
        q0 = sp.symbols(f"q0_:{n}")
        dq = sp.symbols(f"dq_:{n}")        # the unknown increment q1 - q0: no cancellation
        p0 = sp.symbols(f"p0_:{n}")        # in (q1 - q0)/h, however large q grows
        v1 = sp.symbols(f"v1_:{n}")
        lam = sp.symbols(f"lam_:{m}")
        h = sp.Symbol("h")
        Lq = [sp.diff(L, a) for a in q]
        Lv = [sp.diff(L, a) for a in v]
        A = [[sp.diff(f, a) for a in v] for f in cons]

        def at(e, qq, vv):
            return e.xreplace({**dict(zip(q, qq)), **dict(zip(v, vv))})

        qm = [a + d / 2 for a, d in zip(q0, dq)]
        vm = [d / h for d in dq]
        # forced discrete Lagrangian: D_1 L_d + f_d^-, D_2 L_d + f_d^+ with the midpoint rule
        # f_d^- = f_d^+ = (h/2) Q((q0+q1)/2, (q1-q0)/h)
        Qm = [at(f, qm, vm) for f in forces] if forces else [0] * n
        D1 = [h / 2 * (at(a, qm, vm) + f) - at(b, qm, vm) for a, b, f in zip(Lq, Lv, Qm)]
        D2 = [h / 2 * (at(a, qm, vm) + f) + at(b, qm, vm) for a, b, f in zip(Lq, Lv, Qm)]
        # position step: unknowns (dq, lam); fixed (q0, p0, h)
        R1 = [p0[i] + D1[i] - sum(at(A[j][i], q0, v) * lam[j] for j in range(m))
              for i in range(n)] + [at(f, qm, vm) for f in cons]
        z1 = [*dq, *lam]
        J1 = sp.Matrix(R1).jacobian(z1)
        self._pos = lambdify_flat([*q0, *p0, h, *z1], [*R1, *J1])
        self._dres = lambdify_flat([*q0, *dq, h], [at(f, qm, vm) for f in cons])
        # velocity step: unknowns (v1, mu); fixed (q0, dq, q1, h), q1 = q0 + dq as summed
        q1 = sp.symbols(f"q1_:{n}")
        R2 = [at(Lv[i], q1, v1) - D2[i] - sum(at(A[j][i], q1, v) * lam[j] for j in range(m))
              for i in range(n)] + [at(f, q1, v1) for f in cons]
        z2 = [*v1, *lam]
        J2 = sp.Matrix(R2).jacobian(z2)
        self._vel = lambdify_flat([*q0, *dq, *q1, h, *z2], [*R2, *J2])
        # mechanical Lagrangians: the velocity step is linear in (v1, mu), one solve suffices
        self._vel_linear = not (J2.free_symbols & set(z2))
        energy = sum(a * b for a, b in zip(v, Lv)) - L
        speed = sp.sqrt(sum(a**2 for a in v))
        scales = [sp.sqrt(sum(a**2 for a in row)) * speed + sp.Abs(f.xreplace(dict.fromkeys(v, 0)))
                  for row, f in zip(A, cons)]
        self._qv = lambdify_flat([*q, *v], [*Lv, energy, *cons, *scales])
        self._hessian = lambdify_flat([*q, *v], [sp.diff(a, b) for a in Lv for b in v])

    def mass_matrix(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        r"""The Hessian :math:`\partial^2 L/\partial\dot q^2` at :math:`(q, \dot q)`, shape
        (n, n): singular at the poles of a configuration chart (Euler angles)."""
        return self._hessian(np.concatenate([q, v])).reshape(self.n, self.n)

    def constraints(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        r"""Relative residuals :math:`|f_\mu(q,v)| / (\|a_\mu(q)\|\,\|v\| + |b_\mu(q)|)`
        of the constraints :math:`f_\mu = a_\mu\cdot v + b_\mu` (absolute where the scale is
        below 1e-12)."""
        return self._at(q, v)[2]

    def momentum_energy(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, float]:
        r"""Momentum :math:`p = \partial L/\partial\dot q` and energy
        :math:`E = \dot q\cdot p - L` at :math:`(q, \dot q)`."""
        out = self._qv(np.concatenate([q, v]))
        return out[:self.n], float(out[self.n])

    def _at(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        """Momentum, energy and relative constraint residuals at ``(q, v)`` (one call)."""
        out = self._qv(np.concatenate([q, v]))
        n, m = self.n, self.m
        f, s = np.abs(out[n + 1:n + 1 + m]), out[n + 1 + m:]
        return out[:n], float(out[n]), np.where(s > 1e-12, f / np.where(s > 0, s, 1.0), f)

    def step(self, q0: np.ndarray, v0: np.ndarray, h: float, guess=None, p0=None):
        """One step from ``(q0, v0)`` (``v0`` consistent with the constraints): returns
        ``(q1, v1, discrete residual, Newton iterations, multipliers lambda)``.  ``guess``:
        optional starting values ``(q1 - q0, v1, lam)`` of the Newton solves; ``p0``: the
        momentum at ``(q0, v0)`` if known.  Raises ``ArithmeticError`` when a Newton solve
        fails."""
        q1, _, _, v1, res, it, lam = self._step(q0, v0, h, guess, p0, np.zeros(len(q0)))
        return q1, v1, res, it, lam

    def _step(self, q0, v0, h, guess, p0, carry):
        r""":meth:`step` solving for the increment :math:`\Delta q = q_1 - q_0` (no
        cancellation in :math:`\Delta q/h` however large :math:`q` grows), summed into
        :math:`q_1` with Kahan's compensation ``carry``; the continuous constraints are
        imposed at that :math:`q_1`.  Returns ``(q1, carry, dq, v1, residual, iterations,
        lambda)``, the residual :math:`\max_\mu|f_\mu(q_0 + \Delta q/2, \Delta q/h)|`."""
        n, m = self.n, self.m
        if p0 is None:
            p0, _ = self.momentum_energy(q0, v0)
        dq, v1, lam = guess if guess is not None else (h * v0, v0, np.zeros(m))
        z, i1 = _newton(self._pos, np.concatenate([q0, p0, [h]]), np.concatenate([dq, lam]),
                        n + m)
        dq = z[:n]
        y = dq - carry
        q1 = q0 + y
        carry = (q1 - q0) - y
        w, i2 = _newton(self._vel, np.concatenate([q0, dq, q1, [h]]),
                        np.concatenate([v1, z[n:]]), n + m, linear=self._vel_linear)
        res = float(np.max(np.abs(self._dres(np.concatenate([q0, dq, [h]]))), initial=0.0))
        return q1, carry, dq, w[:n], res, i1 + i2, z[n:]

    def run(self, q0: Sequence[float], v0: Sequence[float], h: float,
            steps: int) -> DiscreteTrajectory:
        """``steps`` steps of size ``h`` from ``(q0, v0)`` (all velocities, consistent with
        the constraints).  The positions accumulate the increments with compensated
        (Kahan) summation.  Stops early, with ``success=False`` and the reason in
        ``message``, when a step fails or the time budget
        (:func:`geomech.core.budget.time_limit`) runs out."""
        if not (isinstance(h, (int, float)) and math.isfinite(h) and h != 0):
            raise ValueError(f"the step must be a non-zero finite number, got {h!r}")
        n = self.n
        Q, V, D = np.empty((steps + 1, n)), np.empty((steps + 1, n)), np.zeros((steps + 1, n))
        E, R, C = np.empty(steps + 1), np.zeros(steps + 1), np.empty((steps + 1, self.m))
        Q[0], V[0] = np.asarray(q0, dtype=float), np.asarray(v0, dtype=float)
        p, E[0], C[0] = self._at(Q[0], V[0])
        nfev, k, message = 0, 0, "the integration reached the end of the interval"
        lam, carry = np.zeros(self.m), np.zeros(n)
        try:
            for k in range(steps):
                budget.check()
                guess = None
                if k >= 2:         # extrapolation: Newton starts O(h^3) away
                    guess = (2 * D[k] - D[k - 1], 3 * V[k] - 3 * V[k - 1] + V[k - 2], lam)
                Q[k + 1], carry, D[k + 1], V[k + 1], R[k + 1], it, lam = self._step(
                    Q[k], V[k], h, guess, p, carry)
                nfev += it
                p, E[k + 1], C[k + 1] = self._at(Q[k + 1], V[k + 1])
            k = steps
        except (_StepFailure, budget.BudgetExceeded) as exc:
            message = f"step {k + 1} (t = {k * h:g} from the start) failed: {exc}"
        ok = k == steps
        j = k + 1
        return DiscreteTrajectory(np.arange(j) * h, Q[:j], V[:j], E[:j], R[:j], C[:j], nfev,
                                  ok, message)

    def __repr__(self) -> str:
        return (f"DiscreteLagrangeDAlembert({self.n} coordinates "
                f"{', '.join(map(str, self.q))}; {self.m} constraints)")
