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

from geomech.core.fields import VectorField

from .compile import CompiledFunction, _is_implicit, compile_vector_field, resolve_parameters

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
        f = sp.sympify(f)
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
    success, message, nfev : solver status (:class:`scipy.integrate.OdeResult`).
    solution : the raw :class:`scipy.integrate.OdeResult`.
    """

    def __init__(self, t, states, coords, series, drift, solution, parameters, field):
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
        lines = [f"t in [{self.t[0]:g}, {self.t[-1]:g}]: {len(self.t)} points, "
                 f"{self.nfev} evaluations, {'ok' if self.success else self.message}"]
        for k, v in self.drift.items():
            lines.append(f"  drift of {k}: {v:.3e}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        d = ", ".join(f"{k}: {v:.1e}" for k, v in self.drift.items())
        return (f"SimulationResult(t=[{self.t[0]:g}, {self.t[-1]:g}], {len(self.t)} points, "
                f"drift {{{d}}})")

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
             form: str | None = None, implicit: bool = False) -> SimulationResult:
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
    method, rtol, atol, t_eval, events, max_step, dense_output
        Passed to :func:`scipy.integrate.solve_ivp`.  With ``t_eval=None`` the solver's own
        steps are returned (and monitored).
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
        quantities, ``plot()``.

    Examples
    --------
    >>> import geomech as gm
    >>> M = gm.Manifold("M", "x v", parameters="k"); x, v = M.coords; (k,) = M.parameters
    >>> res = simulate(M.vector_field([v, -k*x]), {x: 1.0, v: 0.0}, 3.0, parameters={k: 2},
    ...                integrals={"H": v**2/2 + k*x**2/2})
    >>> res.drift["H"] < 1e-10
    True
    """
    from scipy.integrate import solve_ivp

    if not isinstance(implicit, bool):
        raise TypeError(f"implicit must be True or False, got {implicit!r}")
    field, sys_energy, sys_constraints, owner = _field_of(system, form, implicit)
    coords = field.manifold.coords
    syms: set = set()
    for c in _field_exprs(field):
        syms |= c.free_symbols
    if not isinstance(field, VectorField):
        syms -= set(field.unknowns)
    extra = list(getattr(field.manifold, "parameters", ()))
    N = getattr(owner, "manifold", None)
    if N is not None:
        extra += list(getattr(N, "parameters", ()))
    params = resolve_parameters(parameters, known=[*extra, *sorted(syms - set(coords),
                                                                    key=str)])
    rhs = compile_vector_field(field, params)
    y0 = _initial_state(x0, field, owner)

    if isinstance(t_span, (int, float)) and not isinstance(t_span, bool):
        t_span = (0.0, float(t_span))
    try:
        t0, t1 = (float(t_span[0]), float(t_span[1]))
    except (TypeError, ValueError, IndexError):
        raise TypeError(f"t_span must be (t0, t1) or a number, got {t_span!r}") from None
    if not (math.isfinite(t0) and math.isfinite(t1)) or t0 == t1:
        raise ValueError(f"t_span must be a non-empty finite interval, got {t_span!r}")

    # quantities to monitor -------------------------------------------------------------
    restrict = getattr(owner, "restricted", None)
    dep = set(getattr(owner, "dependent_velocities", ()) or ())

    def on_phase(e, what):
        if isinstance(e, str):
            e = field.manifold.parse(e)
        e = sp.sympify(e)
        if dep and e.free_symbols & dep and callable(restrict):
            e = restrict(e)
        return e

    sym_items: list[tuple[str, sp.Expr]] = []
    call_items: list[tuple[str, Callable]] = []
    if energy is not False:
        en = sys_energy if energy is True else energy
        if en is not None:
            sym_items.append(("energy", on_phase(en, "energy")))
    for name, val in _integral_items(integrals):
        if callable(val) and not isinstance(val, sp.Basic):
            call_items.append((name, val))
        else:
            sym_items.append((name, on_phase(val, name)))
    cons = sys_constraints if constraints is None else constraints
    cdata = _constraint_data(cons, owner, field) if cons else None
    if cons and cdata is None and constraints is not None:
        raise ValueError("constraints can only be monitored for a system whose configuration "
                         "coordinates are phase-space coordinates")
    monitor = CompiledFunction([e for _, e in sym_items], coords, params,
                               what="the monitored integrals") if sym_items else None
    cmon = None
    if cdata is not None:
        vals, scales = cdata
        cmon = CompiledFunction([*vals, *scales], coords, params, what="the constraints")

    sol = solve_ivp(rhs, (t0, t1), y0, method=method, rtol=rtol, atol=atol, t_eval=t_eval,
                    events=events, max_step=max_step, dense_output=dense_output)
    if not sol.success:
        warnings.warn(f"integration stopped early: {sol.message}", RuntimeWarning,
                      stacklevel=2)
    states = sol.y.T.copy()
    series: dict[str, np.ndarray] = {}
    drift: dict[str, float] = {}
    if monitor is not None:
        vals = monitor(sol.y)
        for (name, _), v in zip(sym_items, vals):
            series[name] = v
    for name, fn in call_items:
        series[name] = np.array([float(fn(t, y)) for t, y in zip(sol.t, states)])
    for name, v in series.items():
        v0 = v[0]
        scale = abs(v0) if abs(v0) > _ABS_THRESHOLD else 1.0
        drift[name] = float(np.max(np.abs(v - v0)) / scale) if len(v) else 0.0
    if cmon is not None:
        k = len(cdata[0])
        out = cmon(sol.y)
        for i in range(k):
            num, den = np.abs(out[i]), out[k + i]
            rel = np.where(den > _ABS_THRESHOLD, num / np.where(den > 0, den, 1.0), num)
            series[f"constraint {i + 1}"] = rel
            drift[f"constraint {i + 1}"] = float(np.max(rel)) if len(rel) else 0.0
    return SimulationResult(sol.t, states, coords, series, drift, sol, params, field)
