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
from collections.abc import Mapping, Sequence

import numpy as np
import sympy as sp

from geomech.core import budget
from geomech.core.fields import VectorField
from geomech.numeric.functions import resolve_parameters
from geomech.numeric.implicit import is_implicit

from .charts import (
    find_singularities,
    regular_split,
    singular_denominators,
    singular_values,
    singularity_warning,
)
from .compile import compile_vector_field
from .constrained import solves_constraints_numerically
from .driver import drive, failed_result
from .inputs import finite_parameters, initial_state, time_span
from .monitor import (
    constraint_monitor,
    monitor_constraints,
    monitor_holonomic,
    monitored_items,
    series_and_drifts,
)
from .result import SimulationResult
from .simulate_constrained import simulate_constrained
from .simulate_dlda import simulate_dlda

__all__ = ["simulate"]


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


def simulate(system, x0, t_span, parameters: Mapping | None = None,
             integrals: Mapping | Sequence | None = None, method: str = "DOP853",
             rtol: float = 1e-11, atol: float = 1e-12, t_eval=None,
             constraints: Sequence | None = None, energy: bool | sp.Expr = True,
             events=None, max_step: float = np.inf, dense_output: bool = False,
             form: str | None = None, implicit: bool = False, step: float | None = None,
             timeout: float | None = None, backend: str = "auto",
             solve_constraints: str = "auto") -> SimulationResult:
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
        Constraint expressions :math:`f(q,\dot q)` to monitor (default: the system's).  The
        configuration constraints :math:`h_j(q) = 0` of a system (``holonomic=``) are kept by
        index reduction (the flow integrates their differentials) and their residuals
        :math:`|h_j(q(t))|` are reported as ``series``/``drift`` entries ``"holonomic 1"``...
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
    solve_constraints : {"auto", "symbolic", "numeric"}
        How a system's constraints give the dependent velocities.  ``"symbolic"``: their
        closed form (``system.dependent_solution``), as every form of the equations uses it.
        ``"numeric"``: solved numerically at every evaluation together with the bordered
        Lagrange--d'Alembert system :math:`\begin{pmatrix} H & -a^{\mathsf T}\\ a & 0
        \end{pmatrix}(\ddot q, \lambda) = (Q - \beta, -c)` -- no symbolic solve, no
        symbolic inversion -- the dependent coordinates of configuration constraints
        projected on :math:`h(q) = 0` at every evaluation and in the states returned (and
        solved there where the initial state omits them); the monitored energy, constraint
        and holonomic residuals come from the same solves, and ``"projection j"`` is the
        distance of the integrated dependent coordinate from the projected one
        (:mod:`geomech.numeric.simulate_constrained`).  ``"auto"``: numeric when the
        constraint minor has more than
        :data:`~geomech.numeric.constrained.SYMBOLIC_SOLVE_OPS` operations and its symbolic
        solution has not been computed (the Whipple bicycle), else symbolic.  ``form=``
        and a bare vector field always use the symbolic route.

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
    t0, t1 = time_span(t_span)
    if isinstance(method, str) and method.lower() == "dlda":
        return simulate_dlda(system, x0, (t0, t1), parameters, integrals, step, energy,
                             timeout, events, dict(form=form, implicit=implicit, t_eval=t_eval,
                                                   dense_output=dense_output,
                                                   constraints=constraints))
    if step is not None:
        raise ValueError("step= is the fixed step of method='dlda'; the scipy methods choose "
                         "their steps (use max_step= to bound them)")
    if _numeric_constraints(system, solve_constraints, form):
        if constraints is not None:
            raise ValueError("constraints= is not used with solve_constraints='numeric' (the "
                             "system's constraints are monitored)")
        return simulate_constrained(system, x0, (t0, t1), parameters, integrals, method,
                                    rtol, atol, t_eval, energy, events, max_step,
                                    dense_output, timeout)
    field, sys_energy, sys_constraints, owner = _field_of(system, form, implicit)
    coords = field.manifold.coords
    params = _parameters_of(field, owner, parameters)
    rhs = compile_vector_field(field, params, backend=backend)
    y0 = initial_state(x0, coords, owner)
    tol_problem = _tolerance_problem(rtol, atol)
    sym_items, call_items = monitored_items(field.manifold, owner, sys_energy, integrals, energy)
    cons = sys_constraints if constraints is None else constraints
    cdata = constraint_monitor(cons, owner, field) if cons else None
    if cons and cdata is None and constraints is not None:
        raise ValueError("constraints can only be monitored for a system whose configuration "
                         "coordinates are phase-space coordinates")
    if tol_problem:
        sol = failed_result(t0, y0, tol_problem)
    else:
        with budget.time_limit(timeout, "simulate"):
            sol = drive(rhs, (t0, t1), y0, method, rtol, atol, max_step, t_eval,
                        dense_output, events)
    if not sol.success:
        warnings.warn(f"integration stopped early: {sol.message}", RuntimeWarning,
                      stacklevel=2)
    series, drift = series_and_drifts(sym_items, call_items, coords, params, sol.t, sol.y)
    if cdata is not None:
        monitor_constraints(cdata, coords, params, sol.y, series, drift)
    monitor_holonomic(owner, coords, params, sol.y, series, drift)
    singular = find_singularities((sol.t, singular_values(
        field, singular_denominators(field), coords, params, sol.y)))
    result = SimulationResult(sol.t, sol.y.T.copy(), coords, series, drift, sol, params,
                              field, singularities=singular, system=owner)
    if singular:
        _warn_singular(result, owner)
    return result


def _numeric_constraints(system, how: str, form: str | None) -> bool:
    """Whether the run solves the constraints of ``system`` numerically
    (``solve_constraints=``, see :func:`simulate`)."""
    if how not in ("auto", "symbolic", "numeric"):
        raise ValueError(f"solve_constraints must be 'auto', 'symbolic' or 'numeric', got "
                         f"{how!r}")
    is_system = hasattr(system, "constraint_matrix") and hasattr(system, "phase_space")
    if how == "numeric":
        if not is_system:
            raise ValueError("solve_constraints='numeric' needs a NonholonomicSystem, got "
                             f"{type(system).__name__}")
        if form is not None:
            raise ValueError("solve_constraints='numeric' integrates the Lagrange-d'Alembert "
                             "flow: form= is not used with it")
        return True
    return how == "auto" and is_system and form is None and \
        solves_constraints_numerically(system)


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
    return finite_parameters(resolve_parameters(parameters, known=known))


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
