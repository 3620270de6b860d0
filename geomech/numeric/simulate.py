r"""Numerical integration of phase-space flows with drift monitoring.

:func:`simulate` integrates :math:`\dot x = X(x)` with :func:`scipy.integrate.solve_ivp`
(default ``DOP853``, ``rtol=1e-11``, ``atol=1e-12``) using the compiled right-hand side of
:func:`~geomech.numeric.compile.compile_vector_field`, and monitors along the trajectory

* the energy (for a :class:`~geomech.mechanics.system.NonholonomicSystem`, ``sys.energy()``),
* any further first integrals given by the user,
* the constraints :math:`f_\mu(q, \dot q)`, with :math:`\dot q` the velocity of the computed
  configuration curve.

Drifts are relative: :math:`\max_t |F(t) - F(0)| / |F(0)|` (absolute when
:math:`|F(0)| < 10^{-12}`); constraints are measured against
:math:`\|a_\mu(q)\|\,\|\dot q\| + |b_\mu(q)|`.

>>> import geomech as gm
>>> M = gm.Manifold("M", "x v"); x, v = M.coords
>>> res = simulate(M.vector_field([v, -x]), {"x": 1.0, "v": 0.0}, (0, 6.283185307179586),
...                integrals={"H": (x**2 + v**2)/2})
>>> round(float(res["x"][-1]), 8), res.drift["H"] < 1e-10
(1.0, True)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import sympy as sp

from geomech.core import budget
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr

from .charts import (
    DLDA_POLE_RATIO,
    find_singularities,
    hadamard_ratio,
    regular_split,
    singular_denominators,
    singular_values,
    singularity_warning,
)
from .compile import CompiledFunction, compile_vector_field, is_implicit, resolve_parameters
from .driver import drive, failed_result
from .result import ABS_THRESHOLD, SimulationResult
from .variational import DiscreteLagrangeDAlembert

__all__ = ["simulate", "SimulationResult"]


def _rate_exprs(field) -> list:
    """The rate expressions of the phase coordinates (``None`` where a rate involves the
    unknowns of a mass-matrix form)."""
    if isinstance(field, VectorField):
        return list(field.components)
    z = set(field.unknowns)
    return [field.drift[c] if not (field.rates[c].free_symbols & z) else None
            for c in field.manifold.coords]


def _field_exprs(field) -> list:
    if isinstance(field, VectorField):
        return list(field.components)
    return [*field.mass_matrix, *field.forcing, *field.drift.values(), *field.selection]


def _field_of(obj, form: str | None = None, implicit: bool = False):
    """(field or mass-matrix form, energy expression or None, constraints or None, owner)."""
    if isinstance(obj, VectorField):
        if form is not None:
            raise ValueError("form= needs a system with .equations(), not a VectorField")
        if implicit:
            raise ValueError("implicit=True needs a system or equations, not a VectorField")
        return obj, None, None, None
    if is_implicit(obj):
        if form is not None:
            raise ValueError("form= is not used with a mass-matrix form (it has its form)")
        field, obj = obj, obj.system
    elif implicit and callable(getattr(obj, "mass_matrix_form", None)):
        if form is not None:
            raise ValueError("form= is not used with equations (they have their form)")
        field, obj = obj.mass_matrix_form(), obj.system
    elif implicit:
        eqs = getattr(obj, "equations", None)
        if not callable(eqs):
            raise ValueError(f"implicit=True needs a system with .equations(); "
                             f"{type(obj).__name__} has none")
        field = eqs(form or "lagrange_dalembert", explicit=False).mass_matrix_form()
    else:
        field = None
    vf = getattr(obj, "vector_field", None)
    if field is None and not callable(vf):
        raise TypeError(
            f"simulate expects a NonholonomicSystem, an object with .vector_field() or a "
            f"VectorField, got {type(obj).__name__}")
    if field is None and form is None:
        field = vf()
    elif field is None:
        eqs = getattr(obj, "equations", None)
        if not callable(eqs):
            raise ValueError(f"form={form!r} needs a system with .equations(); "
                             f"{type(obj).__name__} has none")
        phase = getattr(obj, "phase_space", None)
        eq = eqs(form)
        field = eq.vector_field(on=phase) if phase is not None else eq.vector_field()
    if not isinstance(field, VectorField) and not is_implicit(field):
        raise TypeError(f"{type(obj).__name__}.vector_field() did not return a VectorField")
    constraints = getattr(obj, "constraints", None)
    if constraints is not None and not isinstance(constraints, (list, tuple)):
        constraints = None
    return field, _energy_of(obj), constraints, obj


def _energy_of(obj) -> sp.Expr | None:
    """``obj.energy()`` (or the expression ``obj.energy``) when there is one."""
    en = getattr(obj, "energy", None)
    if callable(en):
        try:
            return en()
        except (TypeError, NotImplementedError):
            return None
    return en if isinstance(en, sp.Expr) else None


def _initial_state(x0, field: VectorField, system) -> np.ndarray:
    coords = field.manifold.coords
    if isinstance(x0, Mapping):
        seq = _state_from_mapping(x0, coords, system)
    elif isinstance(x0, (str, bytes)):
        raise TypeError("the initial state must be a dict {coordinate: value} or a sequence")
    else:
        try:
            seq = list(x0)
        except TypeError:
            raise TypeError("the initial state must be a dict {coordinate: value} or a "
                            "sequence") from None
        if len(seq) != len(coords):
            raise ValueError(f"the initial state needs {len(coords)} values for "
                             f"{', '.join(map(str, coords))}, got {len(seq)}")
    out = []
    for c, v in zip(coords, seq):
        if isinstance(v, bool):
            raise TypeError(f"initial value of {c} must be a number, got a bool")
        try:
            fv = float(v)
        except (TypeError, ValueError):
            raise TypeError(f"initial value of {c} must be a real number, got {v!r}") from None
        if not math.isfinite(fv):
            raise ValueError(f"initial value of {c} is not finite: {v!r}")
        out.append(fv)
    return np.array(out)


def _state_from_mapping(x0: Mapping, coords: tuple, system) -> list:
    """Values of ``{coordinate or name: value}`` in the order of ``coords``; unknown,
    repeated or missing names raise ``ValueError`` naming them (and naming the dependent
    velocities, fixed by the constraints, when they are given)."""
    by_name = {c.name: c for c in coords}
    values: dict = {}
    unknown = []
    for key, val in x0.items():
        name = key.name if isinstance(key, sp.Symbol) else key
        if not isinstance(name, str):
            raise TypeError(f"initial-state keys must be symbols or names, got {key!r}")
        if name not in by_name:
            unknown.append(name)
            continue
        if by_name[name] in values:
            raise ValueError(f"initial value of {name} given twice")
        values[by_name[name]] = val
    if unknown:
        dep = {str(d) for d in getattr(system, "dependent_velocities", ()) or ()}
        hint = ""
        bad_dep = [u for u in unknown if u in dep]
        if bad_dep:
            hint = (f"; {', '.join(bad_dep)} {'is a' if len(bad_dep) == 1 else 'are'} "
                    f"dependent velocit{'y' if len(bad_dep) == 1 else 'ies'} fixed by the "
                    f"constraints, give the independent ones")
        raise ValueError(f"unknown names in the initial state: {', '.join(unknown)} (the "
                         f"phase-space coordinates are {', '.join(map(str, coords))}){hint}")
    missing = [str(c) for c in coords if c not in values]
    if missing:
        raise ValueError(f"the initial state misses values for {', '.join(missing)} (the "
                         f"phase-space coordinates are {', '.join(map(str, coords))})")
    return [values[c] for c in coords]


def _integral_items(integrals) -> list[tuple[str, object]]:
    if integrals is None:
        return []
    if isinstance(integrals, Mapping):
        return [(str(k), v) for k, v in integrals.items()]
    if isinstance(integrals, (sp.Expr, str)) or callable(integrals):
        integrals = [integrals]
    return [(f"I{i + 1}", v) for i, v in enumerate(integrals)]


def _constraint_data(constraints, system, field: VectorField):
    """Expressions for |f_mu| and its scale, as functions of the phase-space state."""
    N = getattr(system, "manifold", None)
    if N is None:
        return None
    qs, vs = N.coords, N.velocities
    phase = field.manifold.coords
    pos = {c: i for i, c in enumerate(phase)}
    rates = _rate_exprs(field)
    rep = {}
    for q, v in zip(qs, vs):
        if v in pos:
            continue
        if q not in pos or rates[pos[q]] is None:
            return None                       # cannot reconstruct the configuration velocity
        rep[v] = rates[pos[q]]                # velocity of the computed configuration curve
    vals, scales = [], []
    for f in constraints:
        f = N.sympify(f)                      # text only through the safe parser
        a = [sp.diff(f, v) for v in vs]
        b = f.xreplace(dict.fromkeys(vs, 0))
        speed = sp.sqrt(sum(v**2 for v in vs))
        scale = sp.sqrt(sum(ai**2 for ai in a)) * speed + sp.Abs(b)
        vals.append(f.xreplace(rep))
        scales.append(scale.xreplace(rep))
    return vals, scales



def simulate(system, x0, t_span, parameters: Mapping | None = None,
             integrals: Mapping | Sequence | None = None, method: str = "DOP853",
             rtol: float = 1e-11, atol: float = 1e-12, t_eval=None,
             constraints: Sequence | None = None, energy: bool | sp.Expr = True,
             events=None, max_step: float = np.inf, dense_output: bool = False,
             form: str | None = None, implicit: bool = False, step: float | None = None,
             timeout: float | None = None, backend: str = "auto") -> SimulationResult:
    r"""Integrate a phase-space flow numerically and report the drift of its integrals.

    Parameters
    ----------
    system : NonholonomicSystem, object with ``.vector_field()``, or VectorField
        For a system, ``system.vector_field()`` is integrated, ``system.energy()`` and
        ``system.constraints`` are monitored.  Any object with ``.vector_field()`` works (e.g.
        the so(n) rigid body); its ``energy()`` is used when it has one.
    x0 : dict or sequence
        Initial state ``{coordinate (symbol or name): value}`` on the field's phase space
        (or values in the order of its coordinates).  Missing or unknown names raise
        ``ValueError`` naming them.
    t_span : (t0, t1) or float
        Time interval (a number ``T`` means ``(0, T)``).
    parameters : dict, optional
        Numeric values ``{symbol or name: number}`` of the parameters.
    integrals : dict or sequence, optional
        Further quantities to monitor: sympy expressions on the phase space (expressions
        containing dependent velocities are restricted with ``system.restricted``), strings
        (parsed by the phase space) or callables ``F(t, y)`` returning a float.
    method : str
        A scipy method (``"DOP853"``, the default, ``"RK45"``, ``"Radau"``, ...), run step by
        step by the solver of :mod:`scipy.integrate`; or ``"dlda"``: the discrete
        Lagrange--d'Alembert integrator of
        :class:`~geomech.numeric.variational.DiscreteLagrangeDAlembert` (fixed ``step``;
        second order, constraints kept to round-off, bounded energy error on reversible
        systems; a NonholonomicSystem, its generalised forces included; ``rtol``, ``atol`` and
        ``max_step`` are not used; ``events`` are located between the steps by linear
        interpolation (error :math:`O(h^2)`, the order of the method); ``t_eval``,
        ``dense_output``, ``form``,
        ``implicit`` and ``constraints`` are refused).
    rtol, atol, t_eval, events, max_step, dense_output
        As in :func:`scipy.integrate.solve_ivp`.  With ``t_eval=None`` the solver's own
        steps are returned (and monitored).  ``rtol = atol = 0`` cannot be met: the run
        ends at once with ``success=False``.
    step : float, optional
        The fixed step of ``method="dlda"`` (required there; the step is shortened to
        :math:`(t_1 - t_0)/\lceil (t_1 - t_0)/h \rceil` so that the steps fill ``t_span``).
    backend : {"auto", "numpy", "numba"}
        Compiler of the right-hand side (:func:`~geomech.numeric.compile.compile_vector_field`):
        ``"auto"`` is numpy for a vector field (symengine for a mass-matrix form);
        ``"numba"`` (optional dependency) compiles the CSE'd field to a numba loop (about
        0.7 s once per field and process, then 8x cheaper calls; a whole run measured 1.3x
        faster on the Chaplygin ball).  Not used by ``"dlda"``.
    timeout : float, optional
        Wall-clock limit in seconds (:func:`geomech.core.budget.time_limit`; an enclosing
        limit applies too): when it runs out, the run ends with ``success=False`` and the
        trajectory so far.
    constraints : sequence, optional
        Constraint expressions :math:`f(q,\dot q)` to monitor (default: the system's).
    energy : bool or expression
        ``True``: monitor ``system.energy()`` when available; ``False``: do not; an
        expression: monitor it as the energy.
    form : str, optional
        Integrate the flow of ``system.equations(form)`` (e.g. ``"voronets"``, ``"appell"``)
        on the system's phase space instead of ``system.vector_field()`` (Lagrange-d'Alembert);
        the same quantities are monitored, so forms can be compared numerically.
    implicit : bool
        Integrate the mass-matrix form :math:`M(x)z = F(x)`, :math:`\dot x = g + Pz` of
        ``system.equations(form or "lagrange_dalembert", explicit=False)``, solving
        :math:`Mz = F` numerically at every step (no symbolic inversion: the way to simulate
        heavy rolling bodies).  ``system`` may also be an ``ImplicitEquations``
        (``eq.mass_matrix_form()``) or, with ``implicit=True``, an ``EquationsOfMotion``.

    Returns
    -------
    SimulationResult
        ``t``, ``states`` (shape ``(T, n)``), ``series`` and ``drift`` of the monitored
        quantities, ``singularities`` of the chart met on the way, ``plot()``.  A
        non-finite right-hand side (e.g. a zero mass), a collapsed step size, a time limit
        or a failed Newton solve end the run with ``success=False`` and a message (and a
        ``RuntimeWarning``); non-finite parameters or initial values raise ``ValueError``.

    Examples
    --------
    >>> import geomech as gm
    >>> M = gm.Manifold("M", "x v", parameters="k"); x, v = M.coords; (k,) = M.parameters
    >>> res = simulate(M.vector_field([v, -k*x]), {x: 1.0, v: 0.0}, 3.0, parameters={k: 2},
    ...                integrals={"H": v**2/2 + k*x**2/2})
    >>> res.drift["H"] < 1e-10
    True
    """
    if not isinstance(implicit, bool):
        raise TypeError(f"implicit must be True or False, got {implicit!r}")
    if not isinstance(method, str) and not isinstance(method, type):
        raise TypeError(f"method must be a name such as 'DOP853' or 'dlda', got {method!r}")
    t0, t1 = _time_span(t_span)
    if isinstance(method, str) and method.lower() == "dlda":
        return _simulate_dlda(system, x0, (t0, t1), parameters, integrals, step, energy,
                              timeout, events, dict(form=form, implicit=implicit,
                                                    t_eval=t_eval, dense_output=dense_output,
                                            constraints=constraints))
    if step is not None:
        raise ValueError("step= is the fixed step of method='dlda'; the scipy methods choose "
                         "their steps (use max_step= to bound them)")
    field, sys_energy, sys_constraints, owner = _field_of(system, form, implicit)
    coords = field.manifold.coords
    params = _parameters_of(field, owner, parameters)
    rhs = compile_vector_field(field, params, backend=backend)
    y0 = _initial_state(x0, field, owner)
    tol_problem = _tolerance_problem(rtol, atol)
    sym_items, call_items = _monitored(field, owner, sys_energy, integrals, energy)
    cons = sys_constraints if constraints is None else constraints
    cdata = _constraint_data(cons, owner, field) if cons else None
    if cons and cdata is None and constraints is not None:
        raise ValueError("constraints can only be monitored for a system whose configuration "
                         "coordinates are phase-space coordinates")
    dens = singular_denominators(field)
    if tol_problem:
        sol = failed_result(t0, y0, tol_problem)
    else:
        with budget.time_limit(timeout, "simulate"):
            sol = drive(rhs, (t0, t1), y0, method, rtol, atol, max_step, t_eval,
                         dense_output, events)
    if not sol.success:
        warnings.warn(f"integration stopped early: {sol.message}", RuntimeWarning,
                      stacklevel=2)
    series, drift = _series(sym_items, call_items, coords, params, sol.t, sol.y)
    if cdata is not None:
        vals, scales = cdata
        cmon = CompiledFunction([*vals, *scales], coords, params, what="the constraints")
        _constraint_series(cmon(sol.y), len(vals), series, drift)
    singular = find_singularities((sol.t, singular_values(field, dens, coords, params,
                                                             sol.y)))
    result = SimulationResult(sol.t, sol.y.T.copy(), coords, series, drift, sol, params,
                              field, singularities=singular)
    if singular:
        _warn_singular(result, owner)
    return result


def _warn_singular(result: SimulationResult, owner) -> None:
    """Name the chart singularities met, and the remedies, in the message (of the result and
    of its solution, which travels with it) and in a ``RuntimeWarning``."""
    sol, singular = result.solution, result.singularities
    split = regular_split(owner, result.coords, result.parameters, sol.t, sol.y,
                          singular[0][0])
    warning = singularity_warning(singular, owner, split)
    result.message = f"{result.message.rstrip('.')}; {warning}"
    sol.message, sol.singularities = result.message, singular
    warnings.warn(result.message, RuntimeWarning, stacklevel=3)


def _time_span(t_span) -> tuple[float, float]:
    if isinstance(t_span, (int, float)) and not isinstance(t_span, bool):
        t_span = (0.0, float(t_span))
    if isinstance(t_span, (str, bytes, Mapping)) or len(t_span) != 2:
        raise TypeError(f"t_span must be (t0, t1) or a number, got {t_span!r}")
    try:
        t0, t1 = (float(t_span[0]), float(t_span[1]))
    except (TypeError, ValueError, IndexError):
        raise TypeError(f"t_span must be (t0, t1) or a number, got {t_span!r}") from None
    if not (math.isfinite(t0) and math.isfinite(t1)) or t0 == t1:
        raise ValueError(f"t_span must be a non-empty finite interval, got {t_span!r}")
    return t0, t1


def _parameters_of(field, owner, parameters) -> dict:
    """Resolved parameters; non-finite or non-real values raise ValueError."""
    syms: set = set()
    for c in _field_exprs(field):
        syms |= c.free_symbols
    if not isinstance(field, VectorField):
        syms -= set(field.unknowns)
    extra = list(getattr(field.manifold, "parameters", ()))
    N = getattr(owner, "manifold", None)
    if N is not None:
        extra += list(getattr(N, "parameters", ()))
    known = [*extra, *sorted(syms - set(field.manifold.coords), key=str)]
    return _finite_parameters(resolve_parameters(parameters, known=known))


def _finite_parameters(params: dict) -> dict:
    for sym, val in params.items():
        if val.has(sp.nan, sp.oo, -sp.oo, sp.zoo):
            raise ValueError(f"value of parameter {sym} is not finite: {val}")
        try:
            fv = complex(val)
        except TypeError:
            raise ValueError(f"value of parameter {sym} must be a real number, got "
                             f"{val}") from None
        if fv.imag != 0:
            raise ValueError(f"value of parameter {sym} must be a real number, got {val}")
        if not math.isfinite(fv.real):
            raise ValueError(f"value of parameter {sym} is not finite: {val}")
    return params


def _tolerance_problem(rtol, atol) -> str:
    """Check the tolerances: a message when they cannot be met, '' when they are fine."""
    for name, val in (("rtol", rtol), ("atol", atol)):
        if isinstance(val, bool) or not isinstance(val, (int, float, np.floating)):
            raise TypeError(f"{name} must be a number, got {val!r}")
        if not math.isfinite(val) or val < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {val!r}")
    if rtol == 0 and atol == 0:
        return ("rtol = atol = 0 asks for an exact solution, which no step size can deliver in "
                "floating point: give a positive tolerance (e.g. rtol=1e-11, atol=1e-12)")
    return ""


def _monitored(field, owner, sys_energy, integrals, energy):
    """(symbolic items, callable items) to monitor, on the phase space."""
    restrict = getattr(owner, "restricted", None)
    dep = set(getattr(owner, "dependent_velocities", ()) or ())

    def on_phase(e):
        e = field.manifold.sympify(e)         # text through the safe parser
        if dep and e.free_symbols & dep and callable(restrict):
            e = restrict(e)
        return e

    sym_items: list[tuple[str, sp.Expr]] = []
    call_items: list[tuple[str, Callable]] = []
    if energy is not False:
        en = sys_energy if energy is True else energy
        if en is not None:
            sym_items.append(("energy", on_phase(en)))
    for name, val in _integral_items(integrals):
        if callable(val) and not isinstance(val, sp.Basic):
            call_items.append((name, val))
        else:
            sym_items.append((name, on_phase(val)))
    return sym_items, call_items


def _series(sym_items, call_items, coords, params, t, y) -> tuple[dict, dict]:
    """Series and relative drifts of the monitored quantities along states ``y`` (n, T)."""
    series: dict[str, np.ndarray] = {}
    if sym_items:
        monitor = CompiledFunction([e for _, e in sym_items], coords, params,
                                   what="the monitored integrals")
        with np.errstate(all="ignore"):
            for (name, _), v in zip(sym_items, monitor(y)):
                series[name] = v
    for name, fn in call_items:
        series[name] = np.array([float(fn(ti, yi)) for ti, yi in zip(t, y.T)])
    drift: dict[str, float] = {}
    for name, v in series.items():
        drift[name] = _drift(v)
    return series, drift


def _drift(v: np.ndarray) -> float:
    if not len(v):
        return 0.0
    v0 = v[0]
    scale = abs(v0) if abs(v0) > ABS_THRESHOLD else 1.0
    return float(np.max(np.abs(v - v0)) / scale)


def _constraint_series(out: np.ndarray, k: int, series: dict, drift: dict) -> None:
    for i in range(k):
        num, den = np.abs(out[i]), out[k + i]
        rel = np.where(den > ABS_THRESHOLD, num / np.where(den > 0, den, 1.0), num)
        series[f"constraint {i + 1}"] = rel
        drift[f"constraint {i + 1}"] = float(np.max(rel)) if len(rel) else 0.0



# -- the discrete Lagrange-d'Alembert integrator -------------------------------------------
def _simulate_dlda(system, x0, span, parameters, integrals, step, energy, timeout, events,
                   unsupported: dict) -> SimulationResult:
    """``simulate(..., method="dlda", step=h)``: run DiscreteLagrangeDAlembert and monitor
    on the phase space of the system."""
    _check_dlda_options(unsupported, step)
    t0, t1 = span
    dlda = DiscreteLagrangeDAlembert(system, parameters)
    _finite_parameters(dlda.parameters)
    phase = system.phase_space
    y0 = _initial_state(x0, phase.vector_field([0] * phase.dim), system)
    q0, v0, pick = _full_velocities(system, dlda, y0)
    steps = max(1, math.ceil(abs(t1 - t0) / step - 1e-9))
    h = (t1 - t0) / steps
    with budget.time_limit(timeout, "simulate"):
        out = dlda.run(q0, v0, h, steps)
    t = t0 + out.t
    states = np.hstack([out.q, out.v]).T[pick].T
    t_events, y_events, end = _step_events(events, t, states)
    if end < len(t):                      # a terminal event: the run ends there
        out = _truncated(out, end)
        t, states = t[:end], states[:end]
    sym_items, call_items = _monitored(phase.vector_field([0] * phase.dim), system, None,
                                       integrals, energy if energy is not True else False)
    series, drift = _series(sym_items, call_items, phase.coords, dlda.parameters, t,
                            states.T.copy())
    if energy is True:
        series = {"energy": out.energy, **series}
        drift = {"energy": _drift(out.energy), **drift}
    rel = out.constraints.T
    for i in range(dlda.m):
        series[f"constraint {i + 1}"] = rel[i]
        drift[f"constraint {i + 1}"] = float(np.max(rel[i]))
    series["discrete constraint"] = out.residual
    from scipy.optimize import OptimizeResult
    sol = OptimizeResult(t=t, y=states.T, sol=None, nfev=out.nfev, success=out.success,
                         status=0 if out.success else -1, message=out.message, method="dlda",
                         step=h, t_events=t_events, y_events=y_events)
    if not out.success:
        warnings.warn(f"integration stopped early: {out.message}", RuntimeWarning,
                      stacklevel=3)
    _dlda_chart_poles(dlda, out, t, sol)
    return SimulationResult(t, states, phase.coords, series, drift, sol, dlda.parameters,
                            None)


def _step_events(events, t: np.ndarray, states: np.ndarray) -> tuple[list, list, int]:
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
