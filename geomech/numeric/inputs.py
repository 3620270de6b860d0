r"""The inputs of every numeric run, checked in one place: the time interval, initial states
(a coordinate given by its symbol, its name or its position), parameter values (finite real
numbers) and the field of a system, compiled.

Used by :func:`~geomech.numeric.simulate.simulate`, the dynamics tools
(:mod:`~geomech.numeric.poincare`, :mod:`~geomech.numeric.lyapunov`,
:mod:`~geomech.numeric.dynamics`) and the reconstruction
(:mod:`~geomech.numeric.reconstruction`), so a state or an interval means the same thing, and
is refused with the same message, everywhere.

>>> x, v = sp.symbols("x v")
>>> initial_state({"v": 0.5, x: 1}, (x, v)), time_span(2.0)
(array([1. , 0.5]), (0.0, 2.0))
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import sympy as sp

from geomech.core.fields import VectorField
from geomech.numeric.functions import resolve_parameters

from .compile import CompiledField, compile_vector_field

__all__ = ["time_span", "ordered_values", "initial_state", "initial_states",
           "finite_parameters", "vector_field_of", "compiled_field_of"]


def time_span(t_span, forward: bool = False) -> tuple[float, float]:
    """``(t0, t1)`` from ``(t0, t1)`` or a number ``T`` (meaning ``(0, T)``); a finite,
    non-empty interval (with ``t0 < t1`` when ``forward``).

    >>> time_span((1, 0.5)), time_span(3)
    ((1.0, 0.5), (0.0, 3.0))
    """
    if isinstance(t_span, (int, float)) and not isinstance(t_span, bool):
        t_span = (0.0, float(t_span))
    if isinstance(t_span, (str, bytes, Mapping)) or not hasattr(t_span, "__len__") \
            or len(t_span) != 2:
        raise TypeError(f"t_span must be (t0, t1) or a number, got {t_span!r}")
    try:
        t0, t1 = (float(t_span[0]), float(t_span[1]))
    except (TypeError, ValueError, IndexError):
        raise TypeError(f"t_span must be (t0, t1) or a number, got {t_span!r}") from None
    if not (math.isfinite(t0) and math.isfinite(t1)) or t0 == t1:
        raise ValueError(f"t_span must be a non-empty finite interval, got {t_span!r}")
    if forward and t1 < t0:
        raise ValueError(f"t_span must be a finite interval with t0 < t1, got {t_span!r}")
    return t0, t1


def ordered_values(x0, coords: Sequence[sp.Symbol], system=None) -> list:
    """The values of a state in the order of ``coords``, as given (not converted).

    ``x0`` is ``{coordinate (symbol or name): value}`` or a sequence in the order of
    ``coords``.  Unknown, repeated or missing names and a wrong length raise ``ValueError``
    naming them (and naming the dependent velocities of ``system``, fixed by the
    constraints, when they are given).

    >>> x, v = sp.symbols("x v")
    >>> ordered_values({"v": sp.Rational(1, 2), "x": 1}, (x, v))
    [1, 1/2]
    """
    if isinstance(x0, Mapping):
        return _values_from_mapping(x0, tuple(coords), system)
    if isinstance(x0, (str, bytes)):
        raise TypeError("the initial state must be a dict {coordinate: value} or a sequence")
    try:
        seq = list(x0)
    except TypeError:
        raise TypeError("the initial state must be a dict {coordinate: value} or a "
                        "sequence") from None
    if len(seq) != len(coords):
        raise ValueError(f"the initial state needs {len(coords)} values for "
                         f"{', '.join(map(str, coords))}, got {len(seq)}")
    return seq


def _values_from_mapping(x0: Mapping, coords: tuple, system) -> list:
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
        raise ValueError(f"unknown names in the initial state: {', '.join(unknown)} (the "
                         f"phase-space coordinates are {', '.join(map(str, coords))})"
                         f"{_dependent_hint(unknown, system)}")
    missing = [str(c) for c in coords if c not in values]
    if missing:
        raise ValueError(f"the initial state misses values for {', '.join(missing)} (the "
                         f"phase-space coordinates are {', '.join(map(str, coords))})")
    return [values[c] for c in coords]


def _dependent_hint(unknown: list, system) -> str:
    dep = {str(d) for d in getattr(system, "dependent_velocities", ()) or ()}
    bad = [u for u in unknown if u in dep]
    if not bad:
        return ""
    one = len(bad) == 1
    return (f"; {', '.join(bad)} {'is a' if one else 'are'} dependent "
            f"velocit{'y' if one else 'ies'} fixed by the constraints, give the independent "
            f"ones")


def initial_state(x0, coords: Sequence[sp.Symbol], system=None) -> np.ndarray:
    """The state ``x0`` (see :func:`ordered_values`) as finite floats in the order of
    ``coords``.

    >>> x, v = sp.symbols("x v")
    >>> initial_state([1, 2], (x, v))
    array([1., 2.])
    """
    out = []
    for c, v in zip(coords, ordered_values(x0, coords, system)):
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


def initial_states(initial_conditions, coords: Sequence[sp.Symbol]) -> list[np.ndarray]:
    """The initial states of several runs (``[x0, x1, ...]``), each by :func:`initial_state`.

    >>> x, v = sp.symbols("x v")
    >>> initial_states([[1, 0], {"x": 0, "v": 1}], (x, v))
    [array([1., 0.]), array([0., 1.])]
    """
    if isinstance(initial_conditions, (Mapping, str, bytes)) or not hasattr(
            initial_conditions, "__iter__"):
        raise TypeError("initial_conditions must be a list of initial states: [x0, ...]")
    ics = list(initial_conditions)
    if any(isinstance(x0, (int, float, np.number)) for x0 in ics):
        raise TypeError("initial_conditions must be a list of initial states ([x0, x1, ...]), "
                        "not one state: for one run wrap it, [x0]")
    if not ics:
        raise ValueError("initial_conditions is empty: give at least one initial state")
    return [initial_state(x0, coords) for x0 in ics]


def finite_parameters(params: dict) -> dict:
    """``params`` (``{symbol: sympy number}``) after checking that every value is a finite
    real number (``ValueError`` naming the parameter otherwise).

    >>> m = sp.Symbol("m")
    >>> finite_parameters({m: sp.Integer(2)})
    {m: 2}
    """
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


def vector_field_of(system) -> VectorField:
    """The field of ``system``: a :class:`~geomech.core.fields.VectorField` itself, or
    ``system.vector_field()`` (a NonholonomicSystem, the so(n) rigid body, ...)."""
    if isinstance(system, VectorField):
        return system
    vf = getattr(system, "vector_field", None)
    if not callable(vf):
        raise TypeError(f"expected a NonholonomicSystem, an object with .vector_field() or a "
                        f"VectorField, got {type(system).__name__}")
    field = vf()
    if not isinstance(field, VectorField):
        raise TypeError(f"{type(system).__name__}.vector_field() did not return a VectorField")
    return field


def compiled_field_of(system, parameters: Mapping | None,
                      backend: str = "numpy") -> tuple[VectorField, CompiledField]:
    """``(field, compiled field)`` of ``system`` with its parameters (names of the field's
    chart or of the system's configuration manifold).

    >>> import geomech as gm
    >>> M = gm.Manifold("M", "x v", parameters="k"); x, v = M.coords
    >>> _, f = compiled_field_of(M.vector_field([v, -M.parameters[0]*x]), {"k": 4})
    >>> f(0.0, [1.0, 0.0])
    array([ 0., -4.])
    """
    field = vector_field_of(system)
    known = list(field.manifold.parameters)
    N = getattr(system, "manifold", None)
    if N is not None and N is not field.manifold:
        known += list(getattr(N, "parameters", ()))
    params = resolve_parameters(parameters, known=known)
    return field, compile_vector_field(field, params, backend=backend)
