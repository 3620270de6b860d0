r"""The Equations and Energy sections of a system whose constraints are not solved
symbolically for the dependent velocities (a constraint minor over the report's size
limit: the Whipple bicycle of Meijaard et al. (2007)).

The equations are shown in the form that needs no closed-form dependent velocities: the
Lagrange--d'Alembert equations with multipliers (Neimark & Fufaev (1972), Ch. III; Borisov &
Mamaev (2015), §3.1), :math:`\frac{d}{dt}\partial L/\partial\dot q_i - \partial L/\partial
q_i = Q_i + \sum_\mu\lambda_\mu a_{\mu i}`, with the constraints, in mass-matrix form with
the constraint block -- the form the numerics solve at every step
(:class:`~geomech.numeric.constrained.ConstrainedField`).  The energy balance is checked
numerically, at random states on the constraint manifold, with the velocities and
accelerations of those solves, and said so.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from geomech.core.budget import check
from geomech.core.opcount import count_ops
from geomech.reporting.model import Section

__all__ = ["constrained_equations_section", "constrained_energy_section"]


def _why(sys_) -> str:
    from geomech.numeric.constrained import constraint_minor_ops

    dep = ", ".join(map(str, sys_.dependent_velocities))
    return (f"the constraint minor of the dependent velocities {dep} has "
            f"{constraint_minor_ops(sys_)} operations, so they are not solved symbolically")


def constrained_equations_section(sys_, method: str = "lagrange_dalembert") -> Section:
    r"""The Lagrange--d'Alembert equations with multipliers and the mass-matrix form with
    the constraint block, nothing solved symbolically (module docstring)."""
    s = Section(f"Equations of motion ({method.replace('_', '-')})")
    if method != "lagrange_dalembert":
        s.add(f"the {method.replace('_', '-')} form needs the dependent velocities in closed "
              "form; shown instead: Lagrange-d'Alembert with multipliers")
    N = sys_.manifold
    q, v = N.coords, N.velocities
    A, k = sys_.constraint_matrix, sys_.n_constraints
    lam = [sp.Symbol(f"lambda_{m + 1}") for m in range(k)]
    Q = list(sys_.forces) if sys_.forces is not None else [sp.S.Zero] * N.dim
    s.add(f"Lagrange-d'Alembert equations with multipliers: d/dt dL/dqdot_i - dL/dq_i = "
          f"Q_i + sum_mu lambda_mu a_mu,i, i.e. E_q (the Euler-Lagrange expression of L in "
          f"q) equals the force of the constraints ({_why(sys_)}):")
    for i, c in enumerate(q):
        check()
        rhs = Q[i] + sp.Add(*[lam[m] * A[m, i] for m in range(k) if A[m, i] != 0])
        s.add("", sp.Eq(sp.Symbol(f"E_{c.name}"), rhs, evaluate=False))
    s.add("with the constraints a(q) qdot + b(q) = 0 of the Lagrangian and constraints section")
    for c, h in zip(sys_.dependent_coordinates, getattr(sys_, "holonomic", ())):
        s.add(f"and the configuration constraint of {c} (its differential is the last "
              "velocity constraint):", sp.Eq(h, 0, evaluate=False))
    acc = [sp.Symbol(f"{c.name}ddot") for c in q]
    s.add(f"mass-matrix form with the constraint block, unknowns z = (qddot, lambda), "
          f"{N.dim + k} of them:", sp.Tuple(*acc, *lam))
    s.add(f"[[H, -a^T], [a, 0]] z = (Q - beta, -c): H = d2L/dqdot2 ({N.dim} x {N.dim}, "
          f"{count_ops(sys_.hessian)} operations), beta_i = sum_j d2L/dqdot_i dq_j qdot_j - "
          f"dL/dq_i, c = d/dt(a qdot + b) - a qddot; formed from L (the Lagrangian section, "
          f"{count_ops(sys_.lagrangian)} operations) and the constraints, compiled with common "
          f"subexpressions eliminated, not written out")
    s.add("solved numerically at each step (numpy): first a_dep qdot_dep = -(a_ind u + b) "
          "for the dependent velocities "
          f"({', '.join(map(str, sys_.dependent_velocities))}), then the bordered system; "
          "the dependent coordinates "
          f"{', '.join(map(str, sys_.dependent_coordinates)) or '(none)'} are solved from "
          "h(q) = 0 by Newton's method before each evaluation (projection)")
    s.add("rates on the phase space:")
    dep_vel = set(sys_.dependent_velocities)
    for c, vel in zip(q, v):
        s.add(f"  ({vel} from the constraints)" if vel in dep_vel else "",
              sp.Eq(sp.Symbol(f"{c.name}'"), vel, evaluate=False))
    for i in sys_.independent_indices:
        s.add("", sp.Eq(sp.Symbol(f"{v[i].name}'"), acc[i], evaluate=False))
    return s


def constrained_energy_section(sys_, points: int = 20, seed: int = 1) -> Section:
    r"""The energy :math:`E = \sum_i\dot q_i\,\partial L/\partial\dot q_i - L` and the check
    :math:`dE/dt = 0`, numerically at ``points`` random states on the constraint manifold
    (the parameters of the report's simulation), :math:`\dot q` and
    :math:`\ddot q` from the numeric solves
    (:meth:`~geomech.numeric.constrained.ConstrainedField.energy_rate`)."""
    from geomech.core.zero import default_policy
    from geomech.numeric.constrained import ConstrainedField
    from geomech.reporting.simulation import has_forces, numeric_defaults

    s = Section("Energy")
    N = sys_.manifold
    L = sys_.lagrangian
    L0 = L.xreplace(dict.fromkeys(N.velocities, 0))
    natural = all(default_policy().is_zero(sp.diff(L, w).xreplace(
        dict.fromkeys(N.velocities, 0))) for w in N.velocities)
    if natural:       # L = T - V, T quadratic in the velocities: E = T + V
        s.add("E = T + V, T = L + V the kinetic energy (in every velocity; the dependent "
              "ones from the constraints), V the potential energy:", sp.Eq(
                  sp.Symbol("V"), -L0, evaluate=False))
    else:
        s.add("E = sum_i qdot_i dL/dqdot_i - L (in every velocity; the dependent ones from "
              "the constraints)")
    if has_forces(sys_) or sys_.is_affine:
        return s.add("dE/dt = 0 is not claimed: the system has forces or affine constraints")
    params, _, origin = numeric_defaults(sys_)
    f = ConstrainedField(sys_, params)
    worst, done = _energy_residual(f, points, seed)
    s.add(f"dE/dt = 0 along the flow: verified numerically only, at {done} random states on "
          f"the constraint manifold with the parameters of the simulation ({origin}), qdot "
          f"and qddot from the "
          f"numeric solves (largest relative residual {worst:.1e}); the exact check needs "
          f"the dependent velocities in closed form ({_why(sys_)}); the drift along the "
          f"simulated run is in the Simulation section")
    return s


def _energy_residual(f, points: int, seed: int) -> tuple[float, int]:
    r"""Largest :math:`|\dot E| / \sum|\text{terms}|` over random states (angles and rates in
    [-0.5, 0.5], the dependent coordinates projected), and the number of states used."""
    rng = np.random.default_rng(seed)
    worst, done = 0.0, 0
    for _ in range(3 * points):
        check()
        y = rng.uniform(-0.5, 0.5, len(f.coords))
        try:
            with np.errstate(all="ignore"):
                rate, scale = f.energy_rate(y)
        except np.linalg.LinAlgError:
            continue
        if np.isfinite(rate) and scale > 0:
            worst, done = max(worst, abs(rate) / scale), done + 1
        if done == points:
            break
    if done < points // 2:
        raise ValueError("too few random states where the energy check could be evaluated")
    return worst, done
