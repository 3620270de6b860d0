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

from .compile import CompiledFunction, _is_implicit, compile_vector_field, resolve_parameters
from .variational import DiscreteLagrangeDAlembert, lambdify_flat

__all__ = ["simulate", "SimulationResult"]

_ABS_THRESHOLD = 1e-12


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
    if _is_implicit(obj):
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
    if not isinstance(field, VectorField) and not _is_implicit(field):
        raise TypeError(f"{type(obj).__name__}.vector_field() did not return a VectorField")
    energy = None
    en = getattr(obj, "energy", None)
    if callable(en):
        try:
            energy = en()
        except (TypeError, NotImplementedError):
            energy = None
    elif isinstance(en, sp.Expr):
        energy = en
    constraints = getattr(obj, "constraints", None)
    if constraints is not None and not isinstance(constraints, (list, tuple)):
        constraints = None
    return field, energy, constraints, obj


def _initial_state(x0, field: VectorField, system) -> np.ndarray:
    coords = field.manifold.coords
    if isinstance(x0, Mapping):
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
        seq = [values[c] for c in coords]
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


class SimulationResult:
    r"""Trajectory of :func:`simulate` and the drift of the monitored quantities.

    Attributes
    ----------
    t : ndarray, shape (T,)
        Times.
    states : ndarray, shape (T, n)
        States, one row per time, columns in the order of ``coords``.
    coords : tuple of Symbol
        Phase-space coordinates.
    series : dict
        ``{name: ndarray (T,)}`` of every monitored quantity (``"energy"``, the integrals,
        ``"constraint 1"`` ... -- for constraints the relative residual).
    drift : dict
        ``{name: float}``: relative drift :math:`\max_t|F(t) - F(0)|/|F(0)|` of the energy and
        of the integrals (absolute if :math:`|F(0)| < 10^{-12}`), and the maximal relative
        residual of each constraint.
    success, message, nfev : solver status.  ``success`` is False when the run stopped
        early (non-finite right-hand side, collapsed step size, time limit, failed Newton
        solve); ``message`` says why, and warns of chart singularities.
    singularities : list of (float, Expr, float)
        ``(t, d, d(t))``: times where a denominator ``d`` of the right-hand side (the
        determinant of the dependent-velocity solve or of the mass matrix, ``cos(phi)`` for
        the Chaplygin sleigh) crosses zero (value 0.0, interpolated time) or has a local
        minimum below 1e-3 of its largest value along the trajectory (for a mass-matrix
        form: :math:`\det M/\prod_i\|M_i\|` below 1e-6 of its largest value).  Empty when the
        trajectory stays in the regular part of its chart.
    solution : the raw solver result (a :class:`scipy.optimize.OptimizeResult` with the
        fields of ``solve_ivp``'s result).
    """

    def __init__(self, t, states, coords, series, drift, solution, parameters, field,
                 singularities=None):
        self.t = t
        self.states = states
        self.coords = tuple(coords)
        self.series = series
        self.drift = drift
        self.solution = solution
        self.success = bool(solution.success)
        self.message = solution.message
        self.nfev = int(solution.nfev)
        self.parameters = parameters
        self.field = field
        if singularities is None:        # e.g. rebuilt from a pickled solution
            singularities = getattr(solution, "singularities", None) or ()
        self.singularities = list(singularities)

    # -- access --------------------------------------------------------------------------
    def _index(self, key) -> int:
        name = key.name if isinstance(key, sp.Symbol) else key
        for i, c in enumerate(self.coords):
            if c.name == name:
                return i
        raise KeyError(f"{key!r} is not a phase-space coordinate; they are "
                       f"{', '.join(map(str, self.coords))}")

    def __getitem__(self, key) -> np.ndarray:
        """Time series of a coordinate (symbol or name) or of a monitored quantity."""
        if isinstance(key, str) and key in self.series:
            return self.series[key]
        return self.states[:, self._index(key)]

    @property
    def final(self) -> dict:
        """``{coordinate: value}`` at the last time."""
        return dict(zip(self.coords, self.states[-1]))

    @property
    def energy_drift(self) -> float | None:
        """Relative drift of the energy (None if no energy was monitored)."""
        return self.drift.get("energy")

    def evaluate(self, expr) -> np.ndarray:
        """Values of an expression of the phase-space coordinates along the trajectory."""
        f = CompiledFunction([expr], self.coords, self.parameters, what="expression")
        return f(self.states.T)[0]

    def summary(self) -> str:
        """One line per monitored quantity: the drift."""
        status = "ok" if self.success and not self.singularities else self.message
        lines = [f"t in [{self.t[0]:g}, {self.t[-1]:g}]: {len(self.t)} points, "
                 f"{self.nfev} evaluations, {status}"]
        for k, v in self.drift.items():
            lines.append(f"  drift of {k}: {v:.3e}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        d = ", ".join(f"{k}: {v:.1e}" for k, v in self.drift.items())
        flags = ("" if self.success else ", FAILED") + (
            f", {len(self.singularities)} chart singularities" if self.singularities else "")
        return (f"SimulationResult(t=[{self.t[0]:g}, {self.t[-1]:g}], {len(self.t)} points, "
                f"drift {{{d}}}{flags})")

    def __str__(self) -> str:
        return self.summary()

    # -- plots ---------------------------------------------------------------------------
    def plot(self, coords: Sequence | None = None, drift: bool = True, path=None):
        """A matplotlib figure: coordinates against time and the drift of the monitored
        quantities (log scale); ``path=("x", "y")`` adds the curve of ``y`` against ``x``.

        Requires matplotlib (imported lazily).
        """
        try:
            from matplotlib.figure import Figure
        except ImportError:
            raise ImportError("plots need matplotlib: pip install matplotlib") from None
        names = list(coords) if coords is not None else list(self.coords)
        panels = 1 + bool(drift and self.series) + (path is not None)
        fig = Figure(figsize=(6.4, 2.8 * panels))
        axes = fig.subplots(panels, 1, squeeze=False)[:, 0]
        ax = axes[0]
        for c in names:
            ax.plot(self.t, self[c], label=str(c))
        ax.set_xlabel("t")
        ax.legend(loc="best", fontsize="small")
        k = 1
        if drift and self.series:
            ax = axes[k]
            k += 1
            for name, vals in self.series.items():
                if name.startswith("constraint"):
                    err = np.abs(vals)
                else:
                    v0 = vals[0]
                    err = np.abs(vals - v0) / (abs(v0) if abs(v0) > _ABS_THRESHOLD else 1.0)
                ax.semilogy(self.t, np.maximum(err, 1e-18), label=name)
            ax.set_xlabel("t")
            ax.set_ylabel("relative drift")
            ax.legend(loc="best", fontsize="small")
        if path is not None:
            ax = axes[k]
            ax.plot(self[path[0]], self[path[1]])
            ax.set_xlabel(str(path[0]))
            ax.set_ylabel(str(path[1]))
            ax.set_aspect("equal", adjustable="datalim")
        fig.tight_layout()
        return fig


def simulate(system, x0, t_span, parameters: Mapping | None = None,
             integrals: Mapping | Sequence | None = None, method: str = "DOP853",
             rtol: float = 1e-11, atol: float = 1e-12, t_eval=None,
             constraints: Sequence | None = None, energy: bool | sp.Expr = True,
             events=None, max_step: float = np.inf, dense_output: bool = False,
             form: str | None = None, implicit: bool = False, step: float | None = None,
             timeout: float | None = None) -> SimulationResult:
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
        systems; a NonholonomicSystem without forces only; ``rtol``, ``atol`` and
        ``max_step`` are not used, ``t_eval``, ``events``, ``dense_output``, ``form``,
        ``implicit`` and ``constraints`` are refused).
    rtol, atol, t_eval, events, max_step, dense_output
        As in :func:`scipy.integrate.solve_ivp`.  With ``t_eval=None`` the solver's own
        steps are returned (and monitored).  ``rtol = atol = 0`` cannot be met: the run
        ends at once with ``success=False``.
    step : float, optional
        The fixed step of ``method="dlda"`` (required there; the step is shortened to
        :math:`(t_1 - t_0)/\lceil (t_1 - t_0)/h \rceil` so that the steps fill ``t_span``).
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
                              timeout, dict(form=form, implicit=implicit, events=events,
                                            t_eval=t_eval, dense_output=dense_output,
                                            constraints=constraints))
    if step is not None:
        raise ValueError("step= is the fixed step of method='dlda'; the scipy methods choose "
                         "their steps (use max_step= to bound them)")
    field, sys_energy, sys_constraints, owner = _field_of(system, form, implicit)
    coords = field.manifold.coords
    params = _parameters_of(field, owner, parameters)
    rhs = compile_vector_field(field, params)
    y0 = _initial_state(x0, field, owner)
    tol_problem = _tolerance_problem(rtol, atol)
    sym_items, call_items = _monitored(field, owner, sys_energy, integrals, energy)
    cons = sys_constraints if constraints is None else constraints
    cdata = _constraint_data(cons, owner, field) if cons else None
    if cons and cdata is None and constraints is not None:
        raise ValueError("constraints can only be monitored for a system whose configuration "
                         "coordinates are phase-space coordinates")
    dens = _singular_denominators(field)
    if tol_problem:
        sol = _failed(t0, y0, tol_problem)
    else:
        with budget.time_limit(timeout, "simulate"):
            sol = _drive(rhs, (t0, t1), y0, method, rtol, atol, max_step, t_eval,
                         dense_output, events)
    if not sol.success:
        warnings.warn(f"integration stopped early: {sol.message}", RuntimeWarning,
                      stacklevel=2)
    series, drift = _series(sym_items, call_items, coords, params, sol.t, sol.y)
    if cdata is not None:
        vals, scales = cdata
        cmon = CompiledFunction([*vals, *scales], coords, params, what="the constraints")
        _constraint_series(cmon(sol.y), len(vals), series, drift)
    singular = _find_singularities((sol.t, _singular_values(field, dens, coords, params,
                                                             sol.y)))
    result = SimulationResult(sol.t, sol.y.T.copy(), coords, series, drift, sol, params,
                              field, singularities=singular)
    if singular:
        split = _regular_split(owner, coords, params, sol.t, sol.y, singular[0][0])
        warning = _singularity_warning(singular, owner, split)
        result.message = f"{result.message.rstrip('.')}; {warning}"
        sol.message, sol.singularities = result.message, singular   # travel with the solution
        warnings.warn(result.message, RuntimeWarning, stacklevel=2)
    return result


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
    scale = abs(v0) if abs(v0) > _ABS_THRESHOLD else 1.0
    return float(np.max(np.abs(v - v0)) / scale)


def _constraint_series(out: np.ndarray, k: int, series: dict, drift: dict) -> None:
    for i in range(k):
        num, den = np.abs(out[i]), out[k + i]
        rel = np.where(den > _ABS_THRESHOLD, num / np.where(den > 0, den, 1.0), num)
        series[f"constraint {i + 1}"] = rel
        drift[f"constraint {i + 1}"] = float(np.max(rel)) if len(rel) else 0.0


# -- the driver: scipy's step loop with guards ---------------------------------------------
class _NonFinite(ArithmeticError):
    """The right-hand side is not finite at a state."""


def _guarded(rhs, coords) -> Callable:
    def fun(t, y):
        with np.errstate(all="ignore"):
            out = rhs(t, y)
        if not np.all(np.isfinite(out)):
            bad = [str(c) for c, o in zip(coords, np.atleast_1d(out)) if not np.isfinite(o)]
            raise _NonFinite(f"the right-hand side is not finite (NaN or inf) at t = {t:.6g} "
                             f"in the rate{'s' if len(bad) > 1 else ''} of {', '.join(bad)}; "
                             f"check the parameters (a zero mass or inertia?) and the state")
        return out
    return fun


def _failed(t0: float, y0: np.ndarray, message: str):
    from scipy.optimize import OptimizeResult
    return OptimizeResult(t=np.array([t0]), y=y0[:, None].copy(), sol=None, t_events=None,
                     y_events=None, nfev=0, njev=0, nlu=0, status=-1, message=message,
                     success=False)


def _solver_class(method):
    import scipy.integrate as si
    if isinstance(method, type):
        return method
    names = ("RK23", "RK45", "DOP853", "Radau", "BDF", "LSODA")
    for name in names:
        if method.upper() == name.upper():
            return getattr(si, name)
    raise ValueError(f"unknown method {method!r}; use one of {', '.join(names)} or 'dlda'")


def _drive(rhs, span, y0, method, rtol, atol, max_step, t_eval, dense_output, events):
    """Run a scipy ``OdeSolver`` step by step; a non-finite right-hand side, a collapsed step
    or an exhausted time budget end the run with ``success=False`` and the trajectory so
    far."""
    from scipy.integrate import OdeSolution, solve_ivp

    cls = _solver_class(method)
    fun = _guarded(rhs, getattr(rhs, "coords", ()))
    t0, t1 = span
    if events is not None:
        try:
            return solve_ivp(fun, span, y0, method=cls, rtol=rtol, atol=atol, t_eval=t_eval,
                             events=events, max_step=max_step, dense_output=dense_output)
        except (_NonFinite, budget.BudgetExceeded) as exc:
            return _failed(t0, y0, str(exc))
    t_eval = _check_t_eval(t_eval, span)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="At least one element of `rtol`")
        try:
            solver = cls(fun, t0, y0, t1, rtol=rtol, atol=atol, max_step=max_step)
        except _NonFinite as exc:
            return _failed(t0, y0, str(exc))
    ts, ys, interps = [t0], [y0.copy()], []
    keep = dense_output or t_eval is not None
    status, message = None, "The solver successfully reached the end of the integration interval."
    while status is None:
        try:
            budget.check()
            msg = solver.step()
        except (_NonFinite, budget.BudgetExceeded) as exc:
            status, message = -1, f"{exc} (stopped at t = {solver.t:.6g})"
            break
        if solver.status == "failed":
            status, message = -1, (f"the step size collapsed near t = {solver.t:.6g} (the "
                                   f"solution may blow up or the field be singular there): "
                                   f"{msg}")
            break
        if solver.status == "finished":
            status = 0
        ts.append(solver.t)
        ys.append(solver.y.copy())
        if keep:
            interps.append(solver.dense_output())
    sol = OdeSolution(ts, interps) if keep and interps else None
    t_out, y_out = np.array(ts), np.array(ys).T
    if t_eval is not None:
        inside = t_eval[(t_eval - t0) * (ts[-1] - t_eval) >= 0] if sol is not None else \
            t_eval[t_eval == t0]
        t_out = inside
        y_out = sol(inside) if sol is not None else np.repeat(y0[:, None], len(inside), 1)
    return _result(t_out, y_out, sol if dense_output else None, solver, status, message)


def _result(t, y, sol, solver, status, message):
    from scipy.optimize import OptimizeResult
    return OptimizeResult(t=t, y=y, sol=sol, t_events=None, y_events=None, nfev=solver.nfev,
                     njev=solver.njev, nlu=solver.nlu, status=status, message=message,
                     success=status >= 0)


def _check_t_eval(t_eval, span):
    if t_eval is None:
        return None
    t0, t1 = span
    te = np.asarray(t_eval, dtype=float)
    if te.ndim != 1:
        raise ValueError("t_eval must be one-dimensional")
    if np.any(te < min(t0, t1)) or np.any(te > max(t0, t1)):
        raise ValueError("values in t_eval are not within t_span")
    d = np.diff(te)
    if (t1 > t0 and np.any(d <= 0)) or (t1 < t0 and np.any(d >= 0)):
        raise ValueError("values in t_eval are not properly sorted")
    return te


# -- chart singularities -------------------------------------------------------------------
_SINGULAR_RATIO = 1e-3      # |d| below this fraction of its largest value: near-singular
_DLDA_POLE_RATIO = 0.05     # the same for sqrt(det/prod) of the mass matrix along dlda runs


def _singular_denominators(field) -> list[sp.Expr]:
    r"""Denominators of an explicit right-hand side that depend on the state: the bases of
    negative powers and the arguments of ``tan``/``cot``/``sec``/``csc`` (they include the
    determinant of the dependent-velocity block of the constraints and of the mass matrix).
    For a mass-matrix form: the mass-matrix entries (the determinant is taken
    numerically)."""
    if not isinstance(field, VectorField):
        return list(field.mass_matrix)
    coords = set(field.manifold.coords)
    out: list[sp.Expr] = []
    for comp in field.components:
        for p in sp.preorder_traversal(comp):
            if isinstance(p, sp.Pow) and p.exp.is_negative:
                d = p.base
            elif isinstance(p, (sp.tan, sp.sec)):
                d = sp.cos(p.args[0])
            elif isinstance(p, (sp.cot, sp.csc)):
                d = sp.sin(p.args[0])
            else:
                continue
            for f in sp.Mul.make_args(sp.factor_terms(d)):
                if f.free_symbols & coords and f not in out:
                    out.append(f)
    return out


def _singular_values(field, dens, coords, params, y) -> list[tuple]:
    r"""(label, values along the states ``y`` (n, T), kind) of each monitored quantity:
    the denominators (kind ``"signed"``); for a mass-matrix form the Hadamard ratio
    :math:`\det M / \prod_i \|M_i\|` (kind ``"metric"``: in [-1, 1], zero exactly where
    :math:`M` is singular, to second order at the poles of Euler angles)."""
    if not dens:
        return []
    f = lambdify_flat(coords, [as_expr(d, exact=False).xreplace(params) for d in dens])
    with np.errstate(all="ignore"):
        vals = np.array([f(yi) for yi in y.T]).T
    if isinstance(field, VectorField):
        return [(d, v, "signed") for d, v in zip(dens, vals)]
    return [(sp.Symbol("det(mass matrix)"), _hadamard(vals.T, len(field.unknowns)), "metric")]


def _hadamard(rows: np.ndarray, m: int) -> np.ndarray:
    """det M / prod of the row norms of M, for the flattened matrices ``rows`` (T, m*m)."""
    M = rows.reshape(-1, m, m)
    with np.errstate(all="ignore"):
        return np.linalg.det(M) / np.prod(np.linalg.norm(M, axis=2), axis=1)


def _find_singularities(values, ratio: float = _SINGULAR_RATIO) -> list[tuple]:
    r"""``(t, d, d(t))`` where a signed denominator ``d`` changes sign between two samples
    (interpolated time, value 0.0) or where ``|d|`` (for a metric ratio:
    :math:`\sqrt{|d|}`) has a local minimum below ``ratio`` times its largest value, at a
    sample or extrapolated from both sides (a V-shaped minimum between samples: the
    crossing of a pole)."""
    t, found = values[0], []
    for d, v, kind in values[1]:
        a = np.abs(v) if kind == "signed" else np.sqrt(np.abs(v))
        scale = np.max(a[np.isfinite(a)], initial=0.0)
        if scale == 0 or len(v) < 2:
            continue
        crossings = np.nonzero(v[:-1] * v[1:] < 0)[0] if kind == "signed" else []
        for k in crossings:
            tk = t[k] + (t[k + 1] - t[k]) * v[k] / (v[k] - v[k + 1])
            found.append((float(tk), d, 0.0))
        a = a / scale
        for k in range(1, len(a) - 1):
            if not (a[k] <= a[k - 1] and a[k] < a[k + 1]) or k in crossings or \
                    k - 1 in crossings:
                continue
            tk, low = float(t[k]), a[k]
            if 2 <= k < len(a) - 2:
                tv, av = _v_bottom(t[k - 2:k + 3], a[k - 2:k + 3])
                if av < low:
                    tk, low = tv, av
            if low < ratio:
                found.append((tk, d, float(v[k])))
    return sorted(found, key=lambda x: x[0])


def _v_bottom(t: np.ndarray, a: np.ndarray) -> tuple[float, float]:
    """Intersection of the lines through samples 0, 1 and 3, 4 of five samples around a
    minimum (the bottom of a V: where a pole is crossed between samples); (t[2], a[2]) if
    the lines do not descend and rise."""
    sl, sr = (a[1] - a[0]) / (t[1] - t[0]), (a[4] - a[3]) / (t[4] - t[3])
    if not (sl < 0 < sr):
        return float(t[2]), float(a[2])
    x = (a[3] - a[1] + sl * t[1] - sr * t[3]) / (sl - sr)
    if not t[1] <= x <= t[3]:
        return float(t[2]), float(a[2])
    return float(x), float(max(a[1] + sl * (x - t[1]), 0.0))


def _regular_split(owner, coords, params, t, y, t_sing) -> tuple | None:
    """Independent velocities whose dependent block of the constraint matrix is best
    conditioned at the configuration nearest to ``t_sing`` (column-pivoted QR), or None."""
    from scipy.linalg import qr

    A = getattr(owner, "constraint_matrix", None)
    N = getattr(owner, "manifold", None)
    if A is None or N is None or not A.shape[0]:
        return None
    names = {c.name: i for i, c in enumerate(coords)}
    if any(q.name not in names for q in N.coords):
        return None
    k = int(np.argmin(np.abs(np.asarray(t) - t_sing)))
    at = {q: float(y[names[q.name], k]) for q in N.coords}
    try:
        An = np.array(sp.Matrix(A).xreplace(params).xreplace(at).evalf(), dtype=float)
    except TypeError:
        return None
    _, _, piv = qr(An, pivoting=True)
    dep = set(piv[:An.shape[0]].tolist())
    ind = tuple(str(v) for j, v in enumerate(N.velocities) if j not in dep)
    current = tuple(str(v) for v in getattr(owner, "independent_velocities", ()))
    return ind if set(ind) != set(current) else None


def _singularity_warning(found, owner, split: tuple | None = None) -> str:
    times = ", ".join(f"{x[0]:.4g}" for x in found[:5]) + (" ..." if len(found) > 5 else "")
    exprs = ", ".join(dict.fromkeys(f"{x[1]} = 0" for x in found))
    dep = tuple(getattr(owner, "dependent_velocities", ()) or ())
    remedy = ("integrate with method='dlda' (it solves for all velocities together and "
              "never divides by these denominators)")
    if split:
        remedy += (f", or restart from there with the system rebuilt with "
                   f"independent={split!r}, a split of the velocities that is regular there")
    elif dep:
        remedy += (", or rebuild the system with another choice of independent velocities "
                   "(independent=...) whose dependent block is regular there")
    if dep:
        remedy += ("; if the denominator comes from the configuration chart (e.g. Euler "
                   "angles at theta = 0 or pi) use other coordinates")
    return (f"WARNING: the trajectory passes through a singularity of the phase-space chart "
            f"({exprs}) at t = {times}; the results near there are unreliable. Remedy: "
            f"{remedy}")


# -- the discrete Lagrange-d'Alembert integrator -------------------------------------------
def _simulate_dlda(system, x0, span, parameters, integrals, step, energy, timeout,
                   unsupported: dict) -> SimulationResult:
    """``simulate(..., method="dlda", step=h)``: run DiscreteLagrangeDAlembert and monitor
    on the phase space of the system."""
    for name, val in unsupported.items():
        if val not in (None, False):
            raise ValueError(f"{name}= is not available with method='dlda' (a fixed-step "
                             f"integrator of the system's Lagrangian and constraints)")
    if step is None:
        raise ValueError("method='dlda' needs a fixed step: simulate(..., step=h)")
    if isinstance(step, bool) or not isinstance(step, (int, float, np.floating)):
        raise TypeError(f"step must be a number, got {step!r}")
    t0, t1 = span
    if not (math.isfinite(step) and step > 0):
        raise ValueError(f"step must be a positive finite number, got {step!r}")
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
    full = np.hstack([out.q, out.v]).T
    states = full[pick].T
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
                         step=h)
    if not out.success:
        warnings.warn(f"integration stopped early: {out.message}", RuntimeWarning,
                      stacklevel=3)
    ratio = _hadamard(np.array([dlda.mass_matrix(q, v) for q, v in zip(out.q, out.v)]),
                      dlda.n)
    # a fixed step resolves a pass near a pole badly: warn within ~3 degrees of it
    singular = _find_singularities((t, [(sp.Symbol("det(mass matrix)"), ratio, "metric")]),
                                   ratio=_DLDA_POLE_RATIO)
    if singular:
        times = ", ".join(f"{x[0]:.4g}" for x in singular[:5])
        sol.message = (f"{sol.message}; WARNING: the trajectory passes through a "
                       f"singularity of the configuration chart (the mass matrix "
                       f"d2L/dv2 is singular) at t = {times}; the results near there are "
                       f"unreliable. Remedy: a smaller step there, or other coordinates "
                       f"(e.g. Euler angles away from their poles theta = 0, pi)")
        sol.singularities = singular
        warnings.warn(sol.message, RuntimeWarning, stacklevel=3)
    return SimulationResult(t, states, phase.coords, series, drift, sol, dlda.parameters,
                            None)


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
