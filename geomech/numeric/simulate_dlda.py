r"""``simulate(system, x0, t_span, method="dlda", step=h)``: a run of the discrete
Lagrange--d'Alembert integrator (:class:`~geomech.numeric.variational.DiscreteLagrangeDAlembert`;
Cortés & Martínez 2001, McLachlan & Perlmutter 2006) on the phase space of a
NonholonomicSystem: the dependent velocities of the initial state solved from the
constraints, the step fitted to the interval, scipy-style events located between the steps
(linear interpolation, :math:`O(h^2)` like the method), the energy, integrals and
constraints monitored, and the poles of the configuration chart reported.

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> res = simulate_dlda(S, {"x": 0, "y": 0, "phi": 0.3, "xdot": 1.0, "phidot": 1.0}, (0, 1),
...                     {"m": 1, "I": 0.7, "a": 0.4}, None, 0.1, True, None, None, {})
>>> len(res.t), res.drift["constraint 1"] < 1e-12
(11, True)
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import sympy as sp

from geomech.core import budget
from geomech.core.parse import as_expr

from .charts import DLDA_POLE_RATIO, find_singularities, hadamard_ratio
from .inputs import finite_parameters, initial_state
from .monitor import monitored_items, relative_drift, series_and_drifts
from .result import SimulationResult
from .variational import DiscreteLagrangeDAlembert

__all__ = ["simulate_dlda", "step_events"]


def simulate_dlda(system, x0, span, parameters, integrals, step, energy, timeout, events,
                  unsupported: dict) -> SimulationResult:
    """``simulate(..., method="dlda", step=h)``: run DiscreteLagrangeDAlembert and monitor
    on the phase space of the system (``unsupported``: the options of ``simulate`` that
    dlda refuses, with their values)."""
    _check_dlda_options(unsupported, step)
    t0, t1 = span
    dlda = DiscreteLagrangeDAlembert(system, parameters)
    finite_parameters(dlda.parameters)
    phase = system.phase_space
    q0, v0, pick = _full_velocities(system, dlda, initial_state(x0, phase.coords, system))
    steps = max(1, math.ceil(abs(t1 - t0) / step - 1e-9))
    h = (t1 - t0) / steps
    with budget.time_limit(timeout, "simulate"):
        out = dlda.run(q0, v0, h, steps)
    t = t0 + out.t
    states = np.hstack([out.q, out.v]).T[pick].T
    t_events, y_events, end = step_events(events, t, states)
    if end < len(t):                      # a terminal event: the run ends there
        out = _truncated(out, end)
        t, states = t[:end], states[:end]
    series, drift = _monitor(system, dlda, out, t, states, integrals, energy)
    from scipy.optimize import OptimizeResult
    sol = OptimizeResult(t=t, y=states.T, sol=None, nfev=out.nfev, success=out.success,
                         status=0 if out.success else -1, message=out.message, method="dlda",
                         step=h, t_events=t_events, y_events=y_events)
    if not out.success:
        warnings.warn(f"integration stopped early: {out.message}", RuntimeWarning,
                      stacklevel=3)
    _dlda_chart_poles(dlda, out, t, sol)
    return SimulationResult(t, states, phase.coords, series, drift, sol, dlda.parameters,
                            None, system=system)


def _monitor(system, dlda, out, t, states, integrals, energy) -> tuple[dict, dict]:
    """Series and drifts of a dlda run: the energy and the constraint residuals computed by
    the integrator, the integrals evaluated on the phase-space states."""
    phase = system.phase_space
    sym_items, call_items = monitored_items(phase, system, None, integrals,
                                            energy if energy is not True else False)
    series, drift = series_and_drifts(sym_items, call_items, phase.coords, dlda.parameters,
                                      t, states.T.copy())
    if energy is True:
        series = {"energy": out.energy, **series}
        drift = {"energy": relative_drift(out.energy), **drift}
    rel = out.constraints.T
    for i in range(dlda.m):
        series[f"constraint {i + 1}"] = rel[i]
        drift[f"constraint {i + 1}"] = float(np.max(rel[i]))
    series["discrete constraint"] = out.residual
    return series, drift


def step_events(events, t: np.ndarray, states: np.ndarray) -> tuple[list, list, int]:
    """scipy-style events ``g(t, y)`` (attributes ``direction``, ``terminal``) located
    between the steps of a fixed-step run by linear interpolation of ``g`` and of the state
    (error O(h^2)); returns ``(t_events, y_events, end)``, ``end`` the number of steps kept
    (after the first terminal event: up to the step that follows it)."""
    if events is None:
        return None, None, len(t)
    events = [events] if callable(events) else list(events)
    if not all(callable(g) for g in events):
        raise TypeError("events must be a callable g(t, y) or a list of them")
    found, end = [], len(t)
    for g in events:
        vals = np.array([float(g(ti, yi)) for ti, yi in zip(t, states)])
        d = getattr(g, "direction", 0)
        up, down = (vals[:-1] < 0) & (vals[1:] >= 0), (vals[:-1] > 0) & (vals[1:] <= 0)
        k = np.nonzero(up if d > 0 else down if d < 0 else up | down)[0]
        found.append((k, vals[k] / (vals[k] - vals[k + 1])))
        if getattr(g, "terminal", False) and len(k):
            end = min(end, int(k[0]) + 2)
    t_ev, y_ev = [], []
    for k, w in found:                    # the events up to the end of the run
        w, k = w[k < end - 1], k[k < end - 1]
        t_ev.append(t[k] + w * (t[k + 1] - t[k]))
        y_ev.append(states[k] + w[:, None] * (states[k + 1] - states[k]))
    return t_ev, y_ev, end


def _truncated(out, end: int):
    """The discrete trajectory ``out`` cut to its first ``end`` points (a terminal event)."""
    from dataclasses import replace

    return replace(out, t=out.t[:end], q=out.q[:end], v=out.v[:end], energy=out.energy[:end],
                   residual=out.residual[:end], constraints=out.constraints[:end],
                   message="a termination event occurred")


def _check_dlda_options(unsupported: dict, step) -> None:
    for name, val in unsupported.items():
        if val not in (None, False):
            raise ValueError(f"{name}= is not available with method='dlda' (a fixed-step "
                             f"integrator of the system's Lagrangian and constraints)")
    if step is None:
        raise ValueError("method='dlda' needs a fixed step: simulate(..., step=h)")
    if isinstance(step, bool) or not isinstance(step, (int, float, np.floating)):
        raise TypeError(f"step must be a number, got {step!r}")
    if not (math.isfinite(step) and step > 0):
        raise ValueError(f"step must be a positive finite number, got {step!r}")


def _dlda_chart_poles(dlda, out, t: np.ndarray, sol) -> None:
    """Warn (and record in ``sol``) where the mass matrix d2L/dv2 of the configuration chart
    is near-singular along a dlda run: a fixed step resolves a pass near a pole badly, so
    within ~3 degrees of it."""
    ratio = hadamard_ratio(np.array([dlda.mass_matrix(q, v) for q, v in zip(out.q, out.v)]),
                           dlda.n)
    singular = find_singularities((t, [(sp.Symbol("det(mass matrix)"), ratio, "metric")]),
                                  ratio=DLDA_POLE_RATIO)
    if not singular:
        return
    times = ", ".join(f"{x[0]:.4g}" for x in singular[:5])
    sol.message = (f"{sol.message}; WARNING: the trajectory passes through a "
                   f"singularity of the configuration chart (the mass matrix "
                   f"d2L/dv2 is singular) at t = {times}; the results near there are "
                   f"unreliable. Remedy: a smaller step there, or other coordinates "
                   f"(e.g. Euler angles away from their poles theta = 0, pi)")
    sol.singularities = singular
    warnings.warn(sol.message, RuntimeWarning, stacklevel=4)


def _full_velocities(system, dlda, y0: np.ndarray):
    """Configuration, all velocities (dependent ones from the constraints, solved
    numerically) and the rows of (q, v) that make the phase-space state."""
    N = system.manifold
    index = {c: i for i, c in enumerate((*N.coords, *N.velocities))}
    phase = system.phase_space.coords
    if any(c not in index for c in phase):
        raise ValueError(f"method='dlda' needs the phase space of {system.name} to be "
                         f"configuration coordinates and independent velocities; it is "
                         f"{', '.join(map(str, phase))}")
    pick = [index[c] for c in phase]
    full = np.full(2 * dlda.n, np.nan)
    full[pick] = y0
    q0 = full[:dlda.n]
    dep = [index[c] - dlda.n for c in system.dependent_velocities]
    v0 = np.nan_to_num(full[dlda.n:])
    if dep:
        A = sp.Matrix(system.constraint_matrix).xreplace(dlda.parameters)
        b = [as_expr(f, exact=False).xreplace(dlda.parameters) for f in system.constraint_affine]
        qv = dict(zip(N.coords, q0))
        An = np.array(A.xreplace(qv).evalf(), dtype=float)
        bn = np.array([float(e.xreplace(qv)) for e in b])
        rhs = -(An @ v0 + bn)
        try:
            v0[dep] = np.linalg.solve(An[:, dep], rhs)
        except np.linalg.LinAlgError:
            raise ValueError("the initial configuration is a singular point of the phase-space "
                             "chart (the dependent velocities are not determined there)") from None
    return q0, v0, pick
