r"""What a run monitors along its trajectory: the energy, further first integrals and the
constraints, and their drifts.

Drifts are relative, :math:`\max_t |F(t) - F(0)| / |F(0)|` (absolute when
:math:`|F(0)| < 10^{-12}`); a constraint :math:`f_\mu(q, \dot q) = a_\mu(q)\dot q + b_\mu(q)`
is evaluated with :math:`\dot q` the velocity of the computed configuration curve and
measured against :math:`\|a_\mu(q)\|\,\|\dot q\| + |b_\mu(q)|`.

>>> relative_drift(np.array([2.0, 2.5, 1.75]))
0.25
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import sympy as sp

from geomech.core.fields import VectorField
from geomech.numeric.functions import CompiledFunction

from .result import ABS_THRESHOLD

__all__ = ["monitored_items", "series_and_drifts", "relative_drift", "constraint_monitor",
           "constraint_series", "monitor_constraints", "rate_expressions", "integral_items",
           "monitor_holonomic"]


def rate_expressions(field) -> list:
    """The rate expressions of the phase coordinates (``None`` where a rate involves the
    unknowns of a mass-matrix form)."""
    if isinstance(field, VectorField):
        return list(field.components)
    z = set(field.unknowns)
    return [field.drift[c] if not (field.rates[c].free_symbols & z) else None
            for c in field.manifold.coords]


def integral_items(integrals) -> list[tuple[str, object]]:
    """``[(name, integral)]``: the names of a dict, ``I1, I2, ...`` for a list or one item.

    >>> integral_items(["x**2", "y"])
    [('I1', 'x**2'), ('I2', 'y')]
    """
    if integrals is None:
        return []
    if isinstance(integrals, Mapping):
        return [(str(k), v) for k, v in integrals.items()]
    if isinstance(integrals, (sp.Expr, str)) or callable(integrals):
        integrals = [integrals]
    return [(f"I{i + 1}", v) for i, v in enumerate(integrals)]


def constraint_monitor(constraints, system, field: VectorField):
    r"""Expressions for :math:`|f_\mu|` and its scale, as functions of the phase-space state."""
    N = getattr(system, "manifold", None)
    if N is None:
        return None
    qs, vs = N.coords, N.velocities
    phase = field.manifold.coords
    pos = {c: i for i, c in enumerate(phase)}
    rates = rate_expressions(field)
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


def monitored_items(phase, owner, sys_energy, integrals, energy):
    """``(symbolic items, callable items)`` to monitor: ``[(name, expression on the phase
    space ``phase`` (a Manifold))]`` and ``[(name, F(t, y))]``; expressions with dependent
    velocities are restricted by ``owner.restricted``."""
    restrict = getattr(owner, "restricted", None)
    dep = set(getattr(owner, "dependent_velocities", ()) or ())

    def on_phase(e):
        e = phase.sympify(e)                  # text through the safe parser
        if dep and e.free_symbols & dep and callable(restrict):
            e = restrict(e)
        return e

    sym_items: list[tuple[str, sp.Expr]] = []
    call_items: list[tuple[str, Callable]] = []
    if energy is not False:
        en = sys_energy if energy is True else energy
        if en is not None:
            sym_items.append(("energy", on_phase(en)))
    for name, val in integral_items(integrals):
        if callable(val) and not isinstance(val, sp.Basic):
            call_items.append((name, val))
        else:
            sym_items.append((name, on_phase(val)))
    return sym_items, call_items


def series_and_drifts(sym_items, call_items, coords, params, t, y) -> tuple[dict, dict]:
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
        drift[name] = relative_drift(v)
    return series, drift


def relative_drift(v: np.ndarray) -> float:
    r""":math:`\max_t |F(t) - F(0)| / |F(0)|` of the series ``v`` (absolute when
    :math:`|F(0)| < 10^{-12}`)."""
    if not len(v):
        return 0.0
    v0 = v[0]
    scale = abs(v0) if abs(v0) > ABS_THRESHOLD else 1.0
    return float(np.max(np.abs(v - v0)) / scale)


def constraint_series(out: np.ndarray, k: int, series: dict, drift: dict) -> None:
    r"""Record the relative residual :math:`|f_\mu|/\text{scale}_\mu` of ``k`` constraints,
    from the rows ``out`` = (values, scales), as ``series``/``drift`` entries
    ``"constraint 1"`` ...; a residual is absolute where its scale is below 1e-12."""
    for i in range(k):
        num, den = np.abs(out[i]), out[k + i]
        rel = np.where(den > ABS_THRESHOLD, num / np.where(den > 0, den, 1.0), num)
        series[f"constraint {i + 1}"] = rel
        drift[f"constraint {i + 1}"] = float(np.max(rel)) if len(rel) else 0.0


def monitor_constraints(cdata, coords, params: dict, y: np.ndarray, series: dict,
                        drift: dict) -> None:
    """Evaluate the constraint expressions ``cdata`` of :func:`constraint_monitor` along the
    states ``y`` (n, T) and record them by :func:`constraint_series`."""
    vals, scales = cdata
    cmon = CompiledFunction([*vals, *scales], coords, params, what="the constraints")
    constraint_series(cmon(y), len(vals), series, drift)


def monitor_holonomic(owner, coords, params: dict, y: np.ndarray, series: dict,
                      drift: dict) -> None:
    r"""Record the residuals :math:`|h_j(q(t))|` of the configuration constraints of
    ``owner`` (a system with ``holonomic``) along the states ``y`` (n, T) as ``series`` and
    ``drift`` entries ``"holonomic 1"`` ... (absolute: the flow integrates the differentiated
    constraints, index reduction, so :math:`h` drifts only by the integration error)."""
    hs = tuple(getattr(owner, "holonomic", ()) or ())
    if not hs or not set().union(*(h.free_symbols for h in hs)) <= set(coords) | set(params):
        return
    mon = CompiledFunction(list(hs), coords, params, what="the holonomic constraints")
    for j, v in enumerate(mon(y), 1):
        res = np.abs(np.asarray(v, dtype=float)) * np.ones(y.shape[1])
        series[f"holonomic {j}"] = res
        drift[f"holonomic {j}"] = float(np.max(res)) if len(res) else 0.0
