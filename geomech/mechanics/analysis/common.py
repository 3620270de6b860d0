r"""What every analysis of a nonholonomic system needs: the system contract, the tangent lift
and the exact zero test.

* :func:`check_system`, :func:`restrict` (to the phase space :math:`\mathcal M`),
  :func:`constraint_matrix`, :func:`active_forces`, :func:`as_field` -- access to a
  :class:`~geomech.mechanics.system.NonholonomicSystem` (duck-typed: no import of the system);
* :func:`prolong` -- the tangent (complete) lift of a field on :math:`N` to :math:`TN`
  (velocity components by :func:`geomech.lie.prolongation.velocity_lift`, the one implementation),

  .. math:: \tilde u = \sum_i u_i\,\partial_{q_i}
            + \sum_{i,j}\partial_j u_i\,\dot q_j\,\partial_{\dot q_i},

  and :func:`prolong_to_phase_space`, its restriction to :math:`\mathcal M`;
* :func:`is_zero`, :func:`all_zero` -- the exact ring certificate, then the zero policy;
  :func:`compact_form` -- the presentation of small results.

Used by :mod:`geomech.mechanics.analysis.symmetry` and :mod:`geomech.mechanics.analysis.noether`.

>>> import geomech as gm
>>> N = gm.Manifold("N", "x y"); x, y = N.coords
>>> prolong(N.vector_field([-y, x]))
(-y, x, -ydot, xdot)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy as sp

from geomech.core.algebra.solve import fast_is_zero
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.lie.prolongation import velocity_lift

__all__ = ["check_system", "restrict", "constraint_matrix", "active_forces", "as_field",
           "is_zero", "all_zero", "compact_form", "prolong", "prolong_to_phase_space",
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


def is_zero(e) -> bool:
    """Zero test: the exact ring certificate of
    :func:`geomech.core.algebra.solve.fast_is_zero`
    (common denominator without ``cancel``, numerator reduced modulo the Pythagorean
    relations), then the zero policy of :mod:`geomech.core.zero` when it is undecided."""
    return fast_is_zero(e)


def all_zero(exprs) -> bool:
    """Whether every expression is exactly zero (:func:`is_zero`)."""
    return all(is_zero(e) for e in exprs)


# =============================================================================================
# prolongation
# =============================================================================================
def prolong(u: VectorField, expr=None):
    r"""Prolongation (complete lift) :math:`\tilde u` of a field on ``N`` to ``TN``.

    .. math:: \tilde u = \sum_i u_i\,\partial_{q_i}
              + \sum_{i,j}\partial_j u_i\,\dot q_j\,\partial_{\dot q_i}

    Parameters
    ----------
    u : VectorField
        A field on a chart ``N`` (velocities ``N.velocities``).
    expr : expression, optional
        If given, return :math:`\tilde u(\mathrm{expr})` for a function of ``(q, q̇)``;
        otherwise the ``2n`` components of :math:`\tilde u` (coordinates then velocities).

    Examples
    --------
    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x y"); x, y = N.coords; xd, yd = N.velocities
    >>> R = N.vector_field([-y, x])
    >>> prolong(R)
    (-y, x, -ydot, xdot)
    >>> prolong(R, xd**2 + yd**2)
    0
    """
    if not isinstance(u, VectorField):
        raise TypeError(f"prolong needs a VectorField, got {type(u).__name__}")
    N = u.manifold
    q, qd = N.coords, N.velocities
    lift = tuple(velocity_lift(ui, q, qd) for ui in u.components)
    if expr is None:
        return (*u.components, *lift)
    expr = as_expr(expr)
    out = sum(ui * sp.diff(expr, qi) for ui, qi in zip(u.components, q) if ui != 0)
    out += sum(li * sp.diff(expr, vi) for li, vi in zip(lift, qd) if li != 0)
    return as_expr(out)


def prolong_to_phase_space(system, u) -> VectorField:
    r"""The restriction :math:`\tilde u|_{\mathcal M}` as a field on ``system.phase_space``.

    Its components are :math:`u_i(q)` on the coordinates and
    :math:`(\sum_j\partial_j u_s\,\dot q_j)^*` on the independent velocities; it is the
    restriction of :math:`\tilde u` when :math:`\tilde u` is tangent to :math:`\mathcal M`
    (invariant constraints, checked by :func:`check_symmetry`).

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); x, y, phi = N.coords
    >>> xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> prolong_to_phase_space(S, N.vector_field([-y, x, 1])).components
    (-y, x, 1, ydot*cos(phi)/sin(phi), 0)
    """
    check_system(system)
    u = as_field(system, u)
    M = system.phase_space
    N = system.manifold
    comps = dict(zip(N.coords, u.components))
    lift = prolong(u)[N.dim:]
    for v, li in zip(N.velocities, lift):
        if v in M.coords:
            comps[v] = restrict(system, li)
    return M.vector_field([comps.get(c, 0) for c in M.coords])


def compact_form(e, max_ops: int = 80) -> sp.Expr:
    """Compact exact form of a small result: cancelled and factored; trigonometric
    identities only when it has at most ``max_ops`` operations (``trigsimp`` is too slow on
    large ones), and only when that is shorter.

    >>> x = sp.Symbol("x")
    >>> compact_form(sp.sin(x)**2 + sp.cos(x)**2 + x)
    x + 1
    """
    e = sp.factor(sp.cancel(sp.together(e)))
    if sp.count_ops(e) > max_ops:
        return e
    t = sp.factor(sp.trigsimp(e))
    return t if sp.count_ops(t) <= sp.count_ops(e) else e


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
