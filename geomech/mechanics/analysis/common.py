r"""What every analysis of a nonholonomic system needs: the system contract.

* :func:`check_system`, :func:`restrict` (to the phase space :math:`\mathcal M`),
  :func:`constraint_matrix`, :func:`active_forces`, :func:`as_field` -- access to a
  :class:`~geomech.mechanics.system.NonholonomicSystem` (duck-typed: no import of the system).

The presentation of small results is :func:`geomech.core.algebra.normal_form.compact`.

The tangent (complete) lift :math:`\tilde u` of a field and its restriction to the phase
space are :func:`geomech.lie.prolongation.prolong` (``prolong(u)`` on :math:`TN`,
``prolong(u, S.phase_space, S.dependent_solution)`` on :math:`\mathcal M`); zero decisions
are :mod:`geomech.core.zero`'s.

>>> import geomech as gm
>>> N = gm.Manifold("N", "x y"); xd, yd = N.velocities
>>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2)/2, constraints=[xd - yd])
>>> restrict(S, xd + yd)
2*ydot
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.parse import as_expr

__all__ = ["check_system", "restrict", "constraint_matrix", "active_forces", "as_field",
           "numeric_values"]


def check_system(system) -> None:
    """``TypeError`` unless ``system`` has the attributes of a nonholonomic system."""
    for attr in ("manifold", "lagrangian", "constraints", "phase_space"):
        if not hasattr(system, attr):
            raise TypeError(f"expected a NonholonomicSystem, got {type(system).__name__} "
                            f"(no attribute {attr!r})")


def restrict(system, expr) -> sp.Expr:
    """Restriction of an expression on TN to the phase space (dependent velocities solved)."""
    expr = as_expr(expr)
    if hasattr(system, "restricted"):
        return as_expr(system.restricted(expr))
    return expr.xreplace(dict(system.dependent_solution))


def constraint_matrix(system) -> sp.Matrix:
    """The matrix :math:`A=\\|a_{\\mu i}\\|` of the (homogeneous parts of the) constraints."""
    N = system.manifold
    cons = tuple(system.constraints)
    if not cons:
        return sp.zeros(0, N.dim)
    return sp.Matrix([[sp.diff(f, v) for v in N.velocities] for f in cons])


def active_forces(system) -> tuple | None:
    """The generalized forces of the system, or ``None`` when there are none (all zero)."""
    Q = getattr(system, "forces", None)
    if Q is None:
        return None
    Q = tuple(as_expr(c) for c in Q)
    if all(c == 0 for c in Q):
        return None
    return Q


def as_field(system, u) -> VectorField:
    """A vector field on the configuration space from a field or a component list."""
    N = system.manifold
    if isinstance(u, VectorField):
        if u.manifold is not N:
            if tuple(u.manifold.coords) == tuple(N.coords):
                return u.to_manifold(N)
            raise ValueError(f"the field lives on {u.manifold.name}, not on the configuration "
                             f"space {N.name}")
        return u
    if isinstance(u, (str, bytes)) or not isinstance(u, (Sequence, Mapping)):
        raise TypeError(f"expected a VectorField on {N.name} or a list of components, "
                        f"got {type(u).__name__}")
    return N.vector_field(u)


def numeric_values(system, symbols, parameters=None) -> dict:
    """Exact values ``{symbol: number}`` for ``symbols`` from ``parameters`` (by name or
    symbol) and the system's numeric defaults; ``ValueError`` naming what is missing."""
    given: dict = {}
    defaults = getattr(system, "numeric_defaults", None)
    if defaults:
        given.update({_name(k): v for k, v in dict(defaults[0]).items()})
    if parameters:
        if not isinstance(parameters, Mapping):
            raise TypeError(f"parameters must be a dict {{name: value}}, got "
                            f"{type(parameters).__name__}")
        given.update({_name(k): v for k, v in parameters.items()})
    out, missing = {}, []
    for s in sorted(symbols, key=lambda s: s.name):
        if s.name in given:
            out[s] = as_expr(given[s.name], context=f"the value of {s.name}")
        else:
            missing.append(s.name)
    if missing:
        raise ValueError(f"no numeric value for {', '.join(missing)}: pass parameters="
                         f"{{{', '.join(repr(m) + ': ...' for m in missing)}}} (the system has "
                         f"{'no' if not defaults else 'no such'} numeric defaults)")
    return out


def _name(key) -> str:
    return key.name if isinstance(key, sp.Symbol) else str(key)
