r"""The Lagrange--d'Alembert flow with the constraints solved numerically at every evaluation:
no symbolic solve for the dependent velocities, no symbolic inversion of a mass matrix.

For a system whose constraint minor is too large to solve in closed form (the Whipple
bicycle of Meijaard, Papadopoulos, Ruina & Schwab (2007): a minor of several thousand
operations), the field on the phase space :math:`x = (q, u)` (:math:`u` the independent
velocities) is evaluated at a state in two linear solves:

1. the dependent velocities from the constraints :math:`a(q)\dot q + b(q) = 0`,

   .. math:: a_{\rm dep}(q)\,\dot q_{\rm dep} = -\big(a_{\rm ind}(q)\,u + b(q)\big);

2. the accelerations and multipliers from the Lagrange--d'Alembert equations with the
   constraint block (Neimark & Fufaev (1972), Ch. III; Borisov & Mamaev (2015), §3.1),

   .. math:: \begin{pmatrix} H & -a^{\mathsf T}\\ a & 0\end{pmatrix}
             \begin{pmatrix}\ddot q\\ \lambda\end{pmatrix} =
             \begin{pmatrix} Q - \beta\\ -c\end{pmatrix},

   :math:`H = \partial^2L/\partial\dot q^2`, :math:`\beta_i = \sum_j\partial^2L/\partial
   \dot q_i\partial q_j\,\dot q_j - \partial L/\partial q_i`, :math:`c = \frac{d}{dt}(a\dot q
   + b) - a\ddot q`;

and the rates are :math:`(\dot q, \ddot q_{\rm ind})`.  Configuration constraints
:math:`h(q) = 0` (the bicycle's pitch) are kept by **projection**: with ``project=True``
the dependent coordinates are solved from :math:`h(q) = 0` by Newton's method (from the
integrated values) before each evaluation, so the field is evaluated on the constraint
manifold; the states returned are projected the same way, and the distance of the
integrated dependent coordinates from the solved ones (index reduction's drift) is reported.
:math:`L`, :math:`a`, :math:`b`, :math:`Q`, :math:`h` and their derivatives are formed in
symengine and compiled with one common-subexpression elimination per group.

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> f = ConstrainedField(S, {"m": 1, "I": 1, "a": 0.5})
>>> f(0.0, [0.0, 0.0, 0.0, 1.0, 0.0]) + 0.0      # straight motion along x: no acceleration
array([1., 0., 0., 0., 0.])
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from geomech.core.kernel import symengine_for
from geomech.core.manifold import free_symbols_of
from geomech.core.parse import as_expr

from .functions import resolve_parameters
from .variational import lambdify_flat

__all__ = ["ConstrainedField", "SYMBOLIC_SOLVE_OPS", "constraint_minor_ops",
           "solves_constraints_numerically"]

#: constraint minors (the dependent columns of the constraint matrix) larger than this many
#: operations are solved numerically by :func:`~geomech.numeric.simulate.simulate` (with
#: ``solve_constraints="auto"``) and by the report
SYMBOLIC_SOLVE_OPS = 2000

_NEWTON_TOL = 1e-14
_NEWTON_MAXIT = 20


def constraint_minor_ops(system) -> int:
    """The operation count of the dependent columns of the constraint matrix of ``system``
    (``0`` without constraints)."""
    from geomech.core.opcount import count_ops

    dep = list(getattr(system, "dependent_indices", ()) or ())
    if not dep or not hasattr(system, "constraint_matrix"):
        return 0
    return int(count_ops(system.constraint_matrix[:, dep]))


def solves_constraints_numerically(system) -> bool:
    """Whether ``simulate(..., solve_constraints="auto")`` solves the constraints of
    ``system`` numerically: a constraint minor over :data:`SYMBOLIC_SOLVE_OPS` operations
    whose symbolic solution is not already at hand."""
    if "dependent_solution" in getattr(system, "__dict__", {}):
        return False
    return constraint_minor_ops(system) > SYMBOLIC_SOLVE_OPS


class ConstrainedField:
    r"""The Lagrange--d'Alembert field of a system on ``system.phase_space``, the constraints
    solved numerically at every call (module docstring).

    ``f(t, y)`` returns the rates at the state ``y`` (``(n,)``; or ``(n, T)``, column by
    column).  A singular constraint minor or bordered matrix gives NaN rates (the
    integration driver then stops with a message naming the rates).

    Parameters
    ----------
    system : NonholonomicSystem
    parameters : dict, optional
        ``{symbol or name: number}`` for every parameter of the system.
    project : bool
        Solve the dependent coordinates from the configuration constraints :math:`h(q) = 0`
        before each evaluation (Newton's method from the given values); without it the
        flow integrates :math:`\dot h = 0` (index reduction) only.

    Attributes
    ----------
    manifold, coords : the phase space and its coordinates (argument order).
    system, parameters : the system and the resolved parameter values.
    """

    def __init__(self, system, parameters: Mapping | None = None, project: bool = True):
        N = getattr(system, "manifold", None)
        if N is None or not hasattr(system, "constraint_matrix") or not hasattr(
                system, "phase_space"):
            raise TypeError(f"ConstrainedField needs a NonholonomicSystem, got "
                            f"{type(system).__name__}")
        self.system, self.project = system, bool(project)
        self.manifold = system.phase_space
        self.coords = tuple(self.manifold.coords)
        self.q, self.v = tuple(N.coords), tuple(N.velocities)
        self.n, self.k = len(self.q), system.n_constraints
        self.ind = np.array(system.independent_indices, dtype=int)
        self.dep = np.array(system.dependent_indices, dtype=int)
        self.hdep = np.array(getattr(system, "dependent_coordinate_indices", ()), dtype=int)
        Q = list(system.forces) if system.forces is not None else []
        data = [as_expr(system.lagrangian), *system.constraint_matrix,
                *system.constraint_affine, *map(as_expr, Q), *getattr(system, "holonomic", ())]
        self.parameters = resolve_parameters(
            parameters, known=N.parameters,
            needed=free_symbols_of(data) - set(self.q) - set(self.v))
        missing = sorted(str(s) for s in free_symbols_of(data) - set(self.q) - set(self.v)
                         - set(self.parameters))
        if missing:
            raise ValueError(f"the Lagrangian, constraints or forces of {system.name} depend "
                             f"on {', '.join(missing)}; pass parameters={{'{missing[0]}': "
                             f"value, ...}}")
        self._build(Q)
        self._qpos = {c: i for i, c in enumerate(self.q)}
        self._phase_index = np.array([self.coords.index(c) for c in self.q], dtype=int)
        self._u_index = np.array([self.coords.index(self.v[i]) for i in self.ind], dtype=int)

    def __reduce__(self):
        """Pickled by its source (the system, the parameters, ``project``), rebuilt on load
        (the compiled functions are not picklable)."""
        return (type(self), (self.system, self.parameters, self.project))

    def _build(self, Q: list) -> None:
        """Form the data in symengine (sympy without it) and compile three groups:
        configuration (a, b, h, dh/dq_dep), dynamics (H, Q - beta, c), monitor (E, f)."""
        sysm = self.system
        se = symengine_for([as_expr(sysm.lagrangian), *sysm.constraint_matrix,
                            *sysm.constraint_affine, *map(as_expr, Q),
                            *getattr(sysm, "holonomic", ())])
        conv = (lambda e: se.sympify(e)) if se is not None else as_expr
        params = {conv(k): conv(v) for k, v in self.parameters.items()}

        def c(e):
            e = conv(as_expr(e, exact=False))
            return e.subs(params) if params else e
        q, v = [conv(s) for s in self.q], [conv(s) for s in self.v]
        n, k = self.n, self.k
        L = c(sysm.lagrangian)
        A = [[c(sysm.constraint_matrix[m, i]) for i in range(n)] for m in range(k)]
        b = [c(e) for e in sysm.constraint_affine]
        hs = [c(h) for h in getattr(sysm, "holonomic", ())]
        dh = [[h.diff(q[j]) for j in self.hdep] for h in hs]
        self._conf = lambdify_flat(q, [*[a for row in A for a in row], *b, *hs,
                                       *[d for row in dh for d in row]])
        self.m = len(hs)
        p = [L.diff(vi) for vi in v]
        H = [p[i].diff(v[j]) for i in range(n) for j in range(n)]
        beta = [sum((p[i].diff(qj) * vj for qj, vj in zip(q, v)), 0) - L.diff(q[i])
                for i in range(n)]
        force = [c(Q[i]) - beta[i] if Q else -beta[i] for i in range(n)]
        cons = [sum((a * vi for a, vi in zip(A[m], v)), 0) + b[m] for m in range(k)]
        rate = [sum((f.diff(qj) * vj for qj, vj in zip(q, v)), 0) for f in cons]
        self._dyn = lambdify_flat([*q, *v], [*H, *force, *rate])
        energy = sum((vi * pi for vi, pi in zip(v, p)), 0) - L
        self._energy = lambdify_flat([*q, *v], [energy])
        self._energy_expr = (energy, [*q, *v])
        self._energy_grad = None          # compiled on first use (energy_rate)

    # -- the two solves --------------------------------------------------------------------
    def configuration(self, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        r"""``(q, a(q), b(q))`` at the phase-space state ``y``, the dependent coordinates
        solved from :math:`h(q) = 0` first when the field projects."""
        y = np.asarray(y, dtype=float)
        q = y[self._phase_index].copy()
        n, k, m = self.n, self.k, self.m
        out = self._conf(q)
        if m and self.project:
            for _ in range(_NEWTON_MAXIT):
                h = out[k * n + k:k * n + k + m]
                J = out[k * n + k + m:].reshape(m, m)
                step = np.linalg.solve(J, h)
                q[self.hdep] -= step
                out = self._conf(q)
                if np.max(np.abs(step)) <= _NEWTON_TOL * (1 + np.max(np.abs(q[self.hdep]))):
                    break
        return q, out[:k * n].reshape(k, n), out[k * n:k * n + k]

    def velocities(self, y) -> tuple[np.ndarray, np.ndarray]:
        r"""``(q, qdot)``: the (projected) configuration and every velocity at ``y``, the
        dependent ones from :math:`a_{\rm dep}\dot q_{\rm dep} = -(a_{\rm ind}u + b)`."""
        y = np.asarray(y, dtype=float)
        q, A, b = self.configuration(y)
        qd = np.empty(self.n)
        u = y[self._u_index]
        qd[self.ind] = u
        if len(self.dep):
            qd[self.dep] = np.linalg.solve(A[:, self.dep], -(A[:, self.ind] @ u + b))
        return q, qd

    def accelerations(self, q, qd) -> tuple[np.ndarray, np.ndarray]:
        r"""``(qddot, lambda)`` from the bordered system at ``(q, qdot)``."""
        n, k = self.n, self.k
        out = self._dyn(np.concatenate([q, qd]))
        A = self._conf(q)[:k * n].reshape(k, n)
        K = np.zeros((n + k, n + k))
        K[:n, :n] = out[:n * n].reshape(n, n)
        K[:n, n:] = -A.T
        K[n:, :n] = A
        rhs = np.concatenate([out[n * n:n * n + n], -out[n * n + n:]])
        z = np.linalg.solve(K, rhs)
        return z[:n], z[n:]

    def __call__(self, t, y=None) -> np.ndarray:
        if y is None:
            t, y = 0.0, t
        y = np.asarray(y, dtype=float)
        if y.ndim == 2:
            return np.stack([self(t, col) for col in y.T], axis=1)
        try:
            q, qd = self.velocities(y)
            qdd, _ = self.accelerations(q, qd)
        except np.linalg.LinAlgError:
            return np.full(len(self.coords), np.nan)
        out = np.empty(len(self.coords))
        out[self._phase_index] = qd
        out[self._u_index] = qdd[self.ind]
        return out

    # -- what a run monitors ---------------------------------------------------------------
    def project_states(self, Y: np.ndarray) -> np.ndarray:
        """The states ``Y`` (shape ``(T, n)``) with the dependent coordinates solved from
        :math:`h(q) = 0` (unchanged without configuration constraints or projection)."""
        Y = np.array(Y, dtype=float)
        if not self.m or not self.project:
            return Y
        cols = self._phase_index[self.hdep]
        for row in Y:
            row[cols] = self.configuration(row)[0][self.hdep]
        return Y

    def monitor(self, Y: np.ndarray) -> dict:
        r"""Along the states ``Y`` (shape ``(T, n)``): ``"energy"`` :math:`E = \dot q\cdot
        \partial L/\partial\dot q - L`, the relative residuals ``"constraint j"`` of
        :math:`a\dot q + b` (against :math:`\|a_j\|\,\|\dot q\| + |b_j|`) and the residuals
        ``"holonomic j"`` :math:`|h_j(q)|`, each an array of length ``T``."""
        n, k, m = self.n, self.k, self.m
        T = len(Y)
        E, C, Hres = np.empty(T), np.empty((k, T)), np.empty((m, T))
        for i, y in enumerate(np.asarray(Y, dtype=float)):
            q, qd = self.velocities(y)
            conf = self._conf(np.asarray(y)[self._phase_index])
            A, b = conf[:k * n].reshape(k, n), conf[k * n:k * n + k]
            scale = np.linalg.norm(A, axis=1) * np.linalg.norm(qd) + np.abs(b)
            res = np.abs(A @ qd + b)
            C[:, i] = np.where(scale > 1e-12, res / np.where(scale > 0, scale, 1.0), res)
            Hres[:, i] = np.abs(conf[k * n + k:k * n + k + m])
            E[i] = self._energy(np.concatenate([q, qd]))[0]
        out = {"energy": E}
        out.update({f"constraint {j + 1}": C[j] for j in range(k)})
        out.update({f"holonomic {j + 1}": Hres[j] for j in range(m)})
        return out

    def energy_rate(self, y) -> tuple[float, float]:
        r"""``(dE/dt, scale)`` at the state ``y``: :math:`\dot E = \partial_qE\cdot\dot q +
        \partial_{\dot q}E\cdot\ddot q` with :math:`\dot q`, :math:`\ddot q` from the two
        solves, and the sum of the moduli of its terms (for a relative residual).  Zero along
        the flow without forces and with homogeneous constraints (the energy theorem of
        nonholonomic mechanics, Neimark & Fufaev (1972), Ch. III)."""
        q, qd = self.velocities(y)
        qdd, _ = self.accelerations(q, qd)
        if self._energy_grad is None:
            E, args = self._energy_expr
            self._energy_grad = lambdify_flat(args, [E.diff(x) for x in args])
        g = self._energy_grad(np.concatenate([q, qd]))
        terms = np.concatenate([g[:self.n] * qd, g[self.n:] * qdd])
        return float(terms.sum()), float(np.abs(terms).sum())

    def __repr__(self) -> str:
        return (f"ConstrainedField(on {self.manifold.name}{self.coords}; {self.k} constraints "
                f"solved numerically{', projected on h = 0' if self.m and self.project else ''})")
