r"""``simulate(system, x0, t_span, solve_constraints="numeric")``: a run of a scipy integrator
on the Lagrange--d'Alembert flow with the constraints solved numerically at every step
(:class:`~geomech.numeric.constrained.ConstrainedField`: the dependent velocities from the
constraint minor, the accelerations from the bordered mass matrix, the dependent coordinates
of configuration constraints projected on :math:`h(q) = 0`).  The way to simulate a system
whose constraint minor is too large to solve symbolically (the Whipple bicycle); chosen by
``solve_constraints="auto"`` for such systems.

Monitored along the run: the energy :math:`E = \dot q\cdot\partial L/\partial\dot q - L`
with every velocity from the numeric solve, the relative residuals of the velocity
constraints, the residuals :math:`|h_j(q)|` of the configuration constraints at the
(projected) states returned, and ``"projection j"``: the largest distance of the integrated
dependent coordinate from the solved one (what index reduction alone would have drifted).

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> res = gm.simulate(S, {"x": 0, "y": 0, "phi": 0.3, "xdot": 1.0, "phidot": 1.0}, 2.0,
...                   parameters={"m": 1, "I": 0.7, "a": 0.4}, solve_constraints="numeric")
>>> res.drift["energy"] < 1e-10, res.drift["constraint 1"] < 1e-12
(True, True)
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np

from geomech.core import budget

from .constrained import ConstrainedField
from .driver import drive
from .inputs import finite_parameters, initial_state
from .monitor import monitored_items, relative_drift, series_and_drifts
from .result import SimulationResult

__all__ = ["simulate_constrained", "constrained_initial_state"]


def constrained_initial_state(field: ConstrainedField, x0) -> np.ndarray:
    r"""The initial state ``x0`` on the phase space of ``field.system``: a dependent
    coordinate of a configuration constraint may be omitted (solved from :math:`h(q) = 0`
    by Newton's method from 0); a given one is checked (``ValueError`` naming the
    constraint when the state violates it by more than :math:`10^{-9}` relative)."""
    system, coords = field.system, field.coords
    dep = [field.q[i] for i in field.hdep]
    if isinstance(x0, Mapping) and dep:
        given = {k.name if hasattr(k, "name") else str(k) for k in x0}
        x0 = {**x0, **{c.name: 0.0 for c in dep if c.name not in given}}
        omitted = {c.name for c in dep} - given
    else:
        omitted = set()
    y0 = initial_state(x0, coords, system)
    if not field.m:
        return y0
    if not field.project:
        raise ValueError("project=False integrates h(q) = 0 by index reduction only: give a "
                         "state on the constraint manifold")
    q = field.configuration(y0)[0]
    for j, i in enumerate(field.hdep):
        col = coords.index(field.q[i])
        if field.q[i].name not in omitted and abs(q[i] - y0[col]) > 1e-9 * (1 + abs(q[i])):
            raise ValueError(
                f"the state violates holonomic constraint {j + 1} of {system.name}: "
                f"{field.q[i]} = {y0[col]:.6g}, the constraint gives {q[i]:.12g} nearby (omit "
                f"{field.q[i]} to have it solved)")
        y0[col] = q[i]
    return y0


def simulate_constrained(system, x0, span, parameters, integrals, method, rtol, atol,
                         t_eval, energy, events, max_step, dense_output,
                         timeout) -> SimulationResult:
    """``simulate(..., solve_constraints="numeric")`` (module docstring)."""
    field = ConstrainedField(system, parameters)
    finite_parameters(field.parameters)
    y0 = constrained_initial_state(field, x0)
    t0, t1 = span
    with budget.time_limit(timeout, "simulate"):
        sol = drive(field, span, y0, method, rtol, atol, max_step, t_eval, dense_output,
                    events)
    if not sol.success:
        warnings.warn(f"integration stopped early: {sol.message}", RuntimeWarning,
                      stacklevel=3)
    raw = sol.y.T
    states = field.project_states(raw)
    series, drift = _monitor(field, states, raw, sol.t, integrals, energy)
    return SimulationResult(sol.t, states, field.coords, series, drift, sol,
                            field.parameters, field, system=system)


def _monitor(field: ConstrainedField, states, raw, t, integrals, energy) -> tuple[dict, dict]:
    """The energy, constraints and holonomic residuals of :meth:`ConstrainedField.monitor`,
    the integrals (on the phase space; dependent velocities through ``system.restricted``)
    and the distance of the integrated dependent coordinates from the projected ones."""
    sys_ = field.system
    values = field.monitor(states)
    series: dict = {}
    drift: dict = {}
    if energy is not False:
        e = values["energy"] if energy is True else None
        if e is None:
            sym, _ = monitored_items(field.manifold, sys_, None, None, energy)
            s, _ = series_and_drifts(sym, [], field.coords, field.parameters, t, states.T)
            e = s["energy"]
        series["energy"], drift["energy"] = e, relative_drift(e)
    if integrals:
        sym, calls = monitored_items(field.manifold, sys_, None, integrals, False)
        s, d = series_and_drifts(sym, calls, field.coords, field.parameters, t,
                                 states.T.copy())
        series.update(s)
        drift.update(d)
    for name, v in values.items():
        if name != "energy":
            series[name] = v
            drift[name] = float(np.max(v)) if len(v) else 0.0
    for j, i in enumerate(field.hdep):
        col = field.coords.index(field.q[i])
        gap = np.abs(states[:, col] - raw[:, col])
        series[f"projection {j + 1}"] = gap
        drift[f"projection {j + 1}"] = float(np.max(gap)) if len(gap) else 0.0
    return series, drift
