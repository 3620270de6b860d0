r"""The simulation section of a report: a short demonstration run with default parameters
(:func:`numeric_defaults`), its status (chart singularities crossed) and the drift of the
integrals, or the power balance :math:`E(t) - E(0) = \int_0^tP` for forced systems.

>>> import types
>>> status_of_run(types.SimpleNamespace(success=True, message="", singularities=None))
'ok'
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from geomech.reporting.model import Section

__all__ = ["simulation_section", "simulation_run", "numeric_defaults", "status_of_run", "power",
           "has_forces", "generic_value"]


def has_forces(sys_) -> bool:
    from geomech.core.zero import default_policy

    forces = getattr(sys_, "forces", None)
    return forces is not None and any(not default_policy().is_zero(f) for f in forces)


def power(sys_) -> sp.Expr:
    r"""Power of the generalized forces :math:`P = \sum_i Q_i\dot q_i` on the phase space."""
    vel = sys_.velocity_on_phase_space()
    return sys_.restricted(sp.Add(*[Q * v for Q, v in zip(sys_.forces, vel)]))


def generic_value(k: int) -> float:
    """The ``k``-th generic default value: in [0.8, 1.4], pairwise distinct (golden-ratio
    sequence), so that no accidental symmetry (equal moments of inertia ...) is created."""
    return round(0.8 + 0.6 * (((k + 1) * 0.6180339887498949) % 1.0), 3)


def numeric_defaults(obj, overrides: Mapping | None = None):
    """Parameter values and an initial state for the demonstration run, and where the
    parameter values come from (a sentence for the report)."""
    defaults = getattr(obj, "numeric_defaults", None)
    if callable(defaults):
        defaults = defaults()
    P = obj.phase_space
    chart = getattr(obj, "manifold", P)
    if defaults:
        params, x0 = dict(defaults[0]), dict(defaults[1])
        origin = "default values of the system"
    else:
        params = {p: generic_value(k) for k, p in enumerate(chart.parameters)}
        x0 = {c: round(0.15 * (k + 1), 2) for k, c in enumerate(P.coords)}
        origin = ("generic default values (pairwise distinct, so no accidental symmetry; "
                  "set them with --param NAME=VALUE)")
    if overrides:
        names = {str(k): k for k in params}
        for k, v in overrides.items():
            params[names.get(str(k), k)] = float(v)
        origin += "; " + ", ".join(f"{k}={float(v):g}" for k, v in overrides.items()) + \
            " given"
    return params, x0, origin


def power_balance_error(sys_, res, params, t_end: float) -> float:
    r"""Relative error :math:`\max_t|E(t) - E(0) - \int_0^t P| / \max_t|E|` of the power
    balance along the computed trajectory (dense output, Simpson's rule on 2001 points)."""
    import numpy as np
    from scipy.integrate import cumulative_simpson

    from geomech.numeric import compile_functions

    coords = sys_.phase_space.coords
    fn = compile_functions([sys_.energy(), power(sys_)], coords, params,
                           what="energy and power")
    sol = getattr(res.solution, "sol", None)
    if callable(sol):
        tt = np.linspace(0.0, t_end, 2001)
        Y = sol(tt)
    else:                                   # no dense output: the solver's own steps
        tt, Y = np.asarray(res.t, float), np.asarray(res.states, float).T
    E, P = (np.asarray(v, float) * np.ones_like(tt) for v in fn(Y))
    W = cumulative_simpson(P, x=tt, initial=0.0)
    return float(np.max(np.abs(E - E[0] - W)) / max(np.max(np.abs(E)), 1e-12))


def singularity_text(item) -> str:
    """``(t, d, d(t))`` of :class:`~geomech.numeric.SimulationResult` as a phrase."""
    if isinstance(item, tuple) and len(item) == 3:
        t, d, value = item
        if value == 0:
            return f"{sp.sstr(d)} = 0 at t = {float(t):.4g}"
        return f"{sp.sstr(d)} nearly 0 ({float(value):.1e}) at t = {float(t):.4g}"
    return str(item)


def status_of_run(res) -> str:
    """``"ok"``, the solver's message, or the chart singularities crossed."""
    sing = getattr(res, "singularities", None)
    if sing:
        items = [sing] if isinstance(sing, str) else list(sing)
        what = "; ".join(singularity_text(x) for x in items[:3])
        more = f" and {len(items) - 3} more" if len(items) > 3 else ""
        return (f"the trajectory crossed a chart singularity: {what}{more}; values past it "
                "are not reliable")
    return "ok" if res.success else f"solver stopped: {res.message}"


def simulation_section(obj, t_end: float, overrides: Mapping | None = None) -> Section:
    """The Simulation section (see :func:`simulation_run`)."""
    return simulation_run(obj, t_end, overrides)[0]


def simulation_run(obj, t_end: float, overrides: Mapping | None = None) -> tuple:
    """``(section, run)``: the demonstration run on ``[0, t_end]`` (with dense output, for
    the figures) and the section reporting it."""
    from geomech.mechanics.system import NonholonomicSystem
    from geomech.numeric import simulate

    s = Section("Simulation")
    params, x0, origin = numeric_defaults(obj, overrides)
    is_system = isinstance(obj, NonholonomicSystem)
    forced = is_system and has_forces(obj)
    res = simulate(obj, x0, (0.0, t_end), parameters=params, implicit=is_system,
                   dense_output=True)
    s.add(f"parameters: {', '.join(f'{k}={float(v):g}' for k, v in params.items()) or 'none'}"
          + (f" ({origin})" if params else ""))
    s.add("initial state: " + ", ".join(f"{k}={float(v):g}" for k, v in x0.items()))
    s.add(f"integrated on [0, {t_end:g}] with {res.nfev} evaluations ({status_of_run(res)})")
    if hasattr(res.field, "energy_rate"):       # a ConstrainedField: no symbolic solve
        s.add("the constraints solved numerically at each step (the dependent velocities "
              "from the constraint minor, the accelerations from the mass matrix with the "
              "constraint block; numpy), the dependent coordinates projected on h(q) = 0")
    for k, v in res.drift.items():
        if k.startswith(("holonomic", "projection")):
            what = ("residual |h| of holonomic constraint" if k.startswith("holonomic") else
                    "distance of the integrated dependent coordinate from h(q) = 0, "
                    "projection")
            s.add(f"largest {what} {k.split()[-1]}: {v:.2e}")
        elif forced and k == "energy":
            err = power_balance_error(obj, res, params, t_end)
            s.add(f"power balance E(t) - E(0) = integral of P: relative error {err:.2e} "
                  "(the energy changes by the work of the forces; this is not a drift)")
        else:
            s.add(f"relative drift of {k}: {v:.2e}")
    return s, res
