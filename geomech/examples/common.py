r"""Construction helpers shared by the catalogue modules.

Parameters become positive real symbols unless numbers are given, coordinates are real symbols
(the same objects :class:`~geomech.core.manifold.Manifold` creates), user potentials and
surfaces are read through the safe parser, and the system object is built with its Lagrangian
and constraints in their presentation form (:func:`geomech.core.algebra.presentation.tidy`:
collected in the velocities, coefficients reduced modulo :math:`\sin^2 + \cos^2 = 1`).

>>> p = parameters(m=None, g=2)
>>> q = coordinates("x y")
>>> configuration_manifold("R2", q, p).parameters
(m,)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import sympy as sp

from geomech.core.algebra.presentation import tidy
from geomech.core.manifold import Manifold, as_symbols
from geomech.core.parse import as_expr, parse_expr

__all__ = ["PARAM_ASSUMPTIONS", "ParamValue", "UserExpr", "parameter", "parameters",
           "coordinates", "user_expression", "identify_coordinates", "configuration_manifold",
           "velocity_symbols", "build_system", "potential_energy"]

#: Assumptions of parameters created by the catalogue (as :class:`Manifold` does for names).
PARAM_ASSUMPTIONS = {"real": True, "positive": True}

ParamValue = sp.Expr | float | int | None
UserExpr = sp.Expr | str | Callable | None


def parameter(value: ParamValue, name: str) -> sp.Expr:
    """The parameter ``name``: a positive real symbol when ``value`` is None, else ``value``.

    >>> parameter(None, "m"), parameter(2, "m")
    (m, 2)
    """
    if value is None:
        return sp.Symbol(name, **PARAM_ASSUMPTIONS)
    if isinstance(value, bool):
        raise TypeError(f"parameter {name!r} must be a number or a sympy expression, got a bool")
    if isinstance(value, str):
        raise TypeError(f"parameter {name!r} must be a number or a sympy expression, got a "
                        f"string; pass sympy.Symbol({value!r}) for a symbol")
    if isinstance(value, float):
        return sp.nsimplify(value, rational=True)
    try:
        out = as_expr(value)
    except (sp.SympifyError, TypeError):
        raise TypeError(f"parameter {name!r} must be a number or a sympy expression, got "
                        f"{type(value).__name__}") from None
    if not isinstance(out, sp.Expr):
        raise TypeError(f"parameter {name!r} must be a scalar expression, got {value!r}")
    return out


def parameters(**values: ParamValue) -> dict[str, sp.Expr]:
    """``{name: parameter(value, name)}`` preserving the order of the keywords."""
    return {k: parameter(v, k) for k, v in values.items()}


def coordinates(spec: str) -> tuple[sp.Symbol, ...]:
    """Real coordinate symbols (the same objects :class:`Manifold` would create)."""
    return as_symbols(spec, {"real": True})


def user_expression(value: UserExpr, coords: Sequence[sp.Symbol], params: Mapping[str, sp.Expr],
               what: str) -> sp.Expr:
    """A user-supplied function of the coordinates (potential, surface ...).

    ``value`` is None (zero), a callable taking the coordinates, a string (parsed safely with
    the names of the coordinates and of the symbolic parameters) or a sympy expression (free
    symbols named like a coordinate are identified with it).
    """
    if value is None:
        return sp.S.Zero
    if callable(value) and not isinstance(value, sp.Basic):
        out = value(*coords)
        return user_expression(out, coords, params, what) if not isinstance(out, sp.Basic) \
            else identify_coordinates(out, coords)
    if isinstance(value, str):
        names = {c.name: c for c in coords}
        for p in params.values():
            for s in p.free_symbols:
                names.setdefault(s.name, s)
        return parse_expr(value, names, context=what)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return parameter(value, what)
    if isinstance(value, sp.Expr):
        return identify_coordinates(value, coords)
    raise TypeError(f"{what} must be a sympy expression, a string or a callable of the "
                    f"coordinates {tuple(coords)}, got {type(value).__name__}")


def identify_coordinates(expr: sp.Expr, coords: Sequence[sp.Symbol]) -> sp.Expr:
    by_name = {c.name: c for c in coords}
    rep = {s: by_name[s.name] for s in expr.free_symbols
           if isinstance(s, sp.Symbol) and s.name in by_name and s != by_name[s.name]}
    return expr.xreplace(rep) if rep else expr


def configuration_manifold(name: str, coords: Sequence[sp.Symbol], params: Mapping[str, sp.Expr],
              *extra: sp.Expr) -> Manifold:
    """The configuration chart; its parameters are the free symbols of the parameter values
    (in the order given) and of ``extra`` expressions (potentials ...), except coordinates."""
    seen: list[sp.Symbol] = []
    cs = set(coords)
    for v in (*params.values(), *extra):
        for s in sorted(as_expr(v).free_symbols, key=sp.default_sort_key):
            if isinstance(s, sp.Symbol) and s not in cs and s not in seen:
                seen.append(s)
    return Manifold(name, tuple(coords), parameters=tuple(seen))


def velocity_symbols(N: Manifold, names) -> tuple[sp.Symbol, ...] | None:
    """Velocity symbols of ``N`` from names like ``"xdot"`` or symbols (None stays None)."""
    if names is None:
        return None
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    by_name = {v.name: v for v in N.velocities}
    out = []
    for v in names:
        key = v.name if isinstance(v, sp.Symbol) else v
        if key not in by_name:
            raise ValueError(f"{v!r} is not a velocity of {N.name}; velocities are "
                             f"{', '.join(by_name)}")
        out.append(by_name[key])
    return tuple(out)


def build_system(N: Manifold, lagrangian: sp.Expr, constraints, *, name: str, description: str,
               forces=None, independent=None, natural_frame=None, steady=None,
               numeric_defaults=None, tidy_input: bool = True):
    """Build the :class:`~geomech.mechanics.system.NonholonomicSystem` (imported lazily);
    ``steady``: its declared families of steady motions, ``numeric_defaults``: published
    parameter values and an initial state.

    With ``tidy_input`` (default) the Lagrangian and the constraints are first brought to
    their :func:`tidy` form; a constructor that writes them compactly itself passes
    ``False``."""
    from geomech.mechanics.system import NonholonomicSystem

    if tidy_input:
        lagrangian = _presented(lagrangian, N.velocities)
        constraints = [_presented(c, N.velocities) for c in constraints]
    return NonholonomicSystem(N, lagrangian=lagrangian, constraints=list(constraints),
                              forces=forces, independent=velocity_symbols(N, independent),
                              name=name, description=description,
                              natural_frame=natural_frame, steady=steady,
                              numeric_defaults=numeric_defaults)


def _presented(expr, velocities) -> sp.Expr:
    """The presentation form (:func:`~geomech.core.algebra.presentation.tidy`) of a Lagrangian
    or constraint; data with radicals (the heavy bodies) are kept as built, the form their
    exact analyses in the radical ring start from."""
    expr = as_expr(expr)
    if any(not p.exp.is_Integer for p in expr.atoms(sp.Pow)):
        return expr
    return tidy(expr, velocities)


def potential_energy(value, coords, params, generic_name: str = "U") -> sp.Expr:
    """Potential: None -> 0, True -> a generic function ``U(q)``, else :func:`user_expression`."""
    if value is True:
        return sp.Function(generic_name, real=True)(*coords)
    if value is False:
        return sp.S.Zero
    return user_expression(value, coords, params, "potential")
