r"""Configuration (holonomic) constraints beside the velocity constraints.

A system may carry configuration constraints :math:`h_j(q) = 0` (:math:`j = 1..m`) beside
its velocity constraints: the bicycle's rear-frame pitch is fixed by both wheels touching the
ground (Meijaard, Papadopoulos, Ruina & Schwab (2007), §4).  Each :math:`h_j` *defines* one
dependent coordinate :math:`q_{d_j}` implicitly (implicit function theorem: the minor
:math:`\partial h/\partial q_d` is invertible); the dependent coordinates stay coordinates of
the configuration chart and of the phase space.  Their differentials

.. math:: \dot h_j = \sum_i \frac{\partial h_j}{\partial q_i}\,\dot q_i = 0

are velocity constraints like the others (Neimark & Fufaev (1972), Ch. I §2), so every form
of the equations, every analysis and the numerics take them as they are: the flow is tangent
to every level set :math:`h = c` (each :math:`h_j` is a first integral of the phase-space
field), and the physical motions are those on :math:`h = 0`.  This module parses the
constraints, chooses the dependent coordinates and completes and checks states
(:func:`complete_state`); a linearisation on the phase-space chart is restricted to the
tangent space of :math:`h = 0` by the implicit function theorem, eliminating the dependent
coordinates.

>>> import sympy as sp
>>> from geomech.core.manifold import Manifold
>>> N = Manifold("N", "x y", parameters="l")
>>> hs, dep = holonomic_constraints(N, [N.coords[0]**2 + N.coords[1]**2 - N.parameters[0]**2])
>>> hs, dep
((-l**2 + x**2 + y**2,), (0,))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import sympy as sp

from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

from .constraints import finite_expression, preferred_minor

__all__ = ["holonomic_constraints", "holonomic_jacobian", "complete_state", "state_values"]


def _parse_one(N: Manifold, h, idx: int) -> sp.Expr:
    """One configuration constraint as an expression ``h(q)`` (``= 0``), checked."""
    e = N.sympify(h.lhs) - N.sympify(h.rhs) if isinstance(h, sp.Equality) else N.sympify(h)
    e = finite_expression(e, f"holonomic constraint {idx}")
    if e.has(*N.velocities):
        raise ValueError(f"holonomic constraint {idx} depends on the velocities: "
                         f"{sp.sstr(e)}; a constraint on the velocities goes in constraints=")
    if not e.has(*N.coords):
        raise ValueError(f"holonomic constraint {idx} does not depend on the coordinates of "
                         f"{N.name}: {sp.sstr(e)}")
    return e


def holonomic_constraints(N: Manifold, holonomic, independent_velocities=None
                          ) -> tuple[tuple[sp.Expr, ...], tuple[int, ...]]:
    r"""``(expressions h_j, indices of the dependent coordinates)`` of configuration
    constraints given as a sequence (``h = 0``; the library chooses the dependent
    coordinates) or as a mapping ``{dependent coordinate: h}`` (the user's choice).

    The library's rule: a non-singular minor of :math:`\partial h/\partial q`, among the
    coordinates whose velocities are not among ``independent_velocities``, preferring a
    constant determinant, then the shortest, then the earliest coordinates (the rule of the
    velocity split, :func:`~geomech.mechanics.constraints.preferred_minor`).

    Raises ``ValueError`` for a constraint with velocities or without coordinates, dependent
    constraints, or a given coordinate on which the constraints cannot be solved.

    >>> N = Manifold("N", "x y z")
    >>> x, y, z = N.coords
    >>> holonomic_constraints(N, {"y": z - x*y})
    ((-x*y + z,), (1,))
    """
    if holonomic is None:
        return (), ()
    if isinstance(holonomic, (str, sp.Basic)):
        holonomic = [holonomic]
    if isinstance(holonomic, Mapping):
        given = [N.index(k) for k in holonomic]
        if len(set(given)) != len(given):
            raise ValueError("holonomic: a coordinate is named twice as dependent")
        items = list(holonomic.values())
    elif isinstance(holonomic, Iterable):
        given, items = None, list(holonomic)
    else:
        raise TypeError(f"holonomic must be a list of expressions h(q) (= 0) or a mapping "
                        f"{{dependent coordinate: h}}, got {type(holonomic).__name__}")
    hs = tuple(_parse_one(N, h, i) for i, h in enumerate(items, 1))
    J = holonomic_jacobian(N, hs)
    pol = default_policy()
    if hs and pol.rank(J) < len(hs):
        raise ValueError("dependent holonomic constraints: their differentials are linearly "
                         "dependent (rank of dh/dq < number of constraints)")
    if given is not None:
        if pol.rank(J[:, given]) < len(hs):
            names = [str(N.coords[i]) for i in given]
            raise ValueError(f"the holonomic constraints cannot be solved for {names}: the "
                             "minor dh/dq of these coordinates vanishes")
        return hs, tuple(given)
    return hs, _chosen(N, J, independent_velocities)


def _chosen(N: Manifold, J: sp.Matrix, independent_velocities) -> tuple[int, ...]:
    """The library's choice of dependent coordinates (see :func:`holonomic_constraints`)."""
    free = set(independent_velocities or ())
    allowed = [i for i, v in enumerate(N.velocities) if v not in free]
    if len(allowed) < J.shape[0] or default_policy().rank(J[:, allowed]) < J.shape[0]:
        raise ValueError("the holonomic constraints cannot be solved for coordinates whose "
                         "velocities are dependent: give their dependent coordinates "
                         "(holonomic={coordinate: h}) or another choice of independent=")
    cols = preferred_minor(J[:, allowed])
    return tuple(allowed[c] for c in cols)


def holonomic_jacobian(N: Manifold, hs: Sequence[sp.Expr]) -> sp.Matrix:
    r"""The matrix :math:`\partial h_j/\partial q_i` (``m x n``)."""
    return sp.Matrix(len(hs), N.dim, lambda j, i: sp.diff(hs[j], N.coords[i]))


# -- states --------------------------------------------------------------------------------
def state_values(system, state: Mapping) -> dict:
    """``{phase-space coordinate: value}`` from ``{symbol or name: value}`` (values sympified
    exactly: floats stay floats); unknown names raise ``ValueError`` naming them."""
    if not isinstance(state, Mapping):
        raise TypeError(f"a state is a mapping {{coordinate: value}}, got "
                        f"{type(state).__name__}")
    phase = system.phase_space
    by_name = {c.name: c for c in phase.coords}
    out = {}
    for k, v in state.items():
        key = by_name.get(k) if isinstance(k, str) else (k if k in phase.coords else None)
        if key is None:
            dep = [str(s) for s in system.dependent_velocities]
            raise ValueError(f"{k!r} is not a coordinate of the phase space of "
                             f"{system.name} ({', '.join(by_name)}); the dependent "
                             f"velocities {dep} follow from the constraints")
        out[key] = as_expr(v, phase.names(), context=f"the state of {system.name}",
                           exact=False)
    return out


def complete_state(system, state: Mapping, parameters: Mapping | None = None,
                   tol: float = 1e-9) -> dict:
    r"""A state with every phase-space coordinate, the dependent coordinates solved where
    omitted, checked against the configuration constraints :math:`h(q) = 0`.

    Omitted dependent coordinates are solved exactly when ``sympy.solve`` gives a real root
    (the one nearest the value Newton's method reaches from ``0``), else numerically by
    Newton's method from ``0`` with the parameters' numeric values (``parameters``, else the
    system's numeric defaults).  Given values are checked with the given ``parameters``
    substituted: exactly (zero policy, identically in the other parameters) when the state
    and parameters are exact, else to the relative tolerance ``tol``.

    Raises
    ------
    ValueError
        A missing coordinate that is not dependent, a state violating a holonomic constraint
        (naming it and its value), or a dependent coordinate that cannot be solved.

    Examples
    --------
    >>> import geomech as gm
    >>> N = gm.Manifold("N", "x y", parameters="l")
    >>> x, y = N.coords; xd, yd = N.velocities; (l,) = N.parameters
    >>> S = gm.NonholonomicSystem(N, (xd**2 + yd**2)/2 - y, holonomic={"y": y - x**2})
    >>> complete_state(S, {"x": 2, "xdot": 0})
    {x: 2, y: 4, xdot: 0}
    >>> complete_state(S, {"x": 2, "y": 1, "xdot": 0})
    Traceback (most recent call last):
    ...
    ValueError: the state violates holonomic constraint 1: -x**2 + y = -3 at it, not 0
    """
    vals = state_values(system, state)
    N = system.manifold
    dep = [N.coords[i] for i in system.dependent_coordinate_indices]
    missing = [c for c in system.phase_space.coords if c not in vals]
    bad = [str(c) for c in missing if c not in dep]
    if bad:
        raise ValueError(f"the state of {system.name} has no value for {', '.join(bad)}")
    unknown = [c for c in dep if c not in vals]
    if unknown:
        vals.update(_solve_dependent(system, vals, unknown, parameters))
    _check(system, vals, parameters, tol)
    return {c: vals[c] for c in system.phase_space.coords}


def _numeric_parameters(system, parameters) -> dict:
    """``{parameter symbol: value}`` from ``{symbol or name: value}`` (through the safe
    door; unknown names raise ``ValueError``)."""
    if parameters is None:
        nd = system.numeric_defaults
        parameters = nd[0] if nd else {}
    N = system.manifold
    by_name = {p.name: p for p in N.parameters}
    out = {}
    for k, v in parameters.items():
        key = by_name.get(k) if isinstance(k, str) else N.identify(k)
        if key is None:
            raise ValueError(f"{k!r} is not a parameter of {system.name} "
                             f"({', '.join(by_name) or 'none'})")
        out[key] = as_expr(v, N.names(), context=f"the parameters of {system.name}",
                           exact=False)
    return out


def _solve_dependent(system, vals, unknown, parameters) -> dict:
    """Values of the omitted dependent coordinates: the exact real root nearest the
    reference configuration ``0`` when ``sympy.solve`` finds the roots (one unknown), else
    Newton's method from ``0``."""
    hs = [h.xreplace(vals) for h in system.holonomic]
    hs = [h for h in hs if h.has(*unknown)]
    num = _numeric_parameters(system, parameters)
    names = [str(c) for c in unknown]
    if len(unknown) == 1 and len(hs) == 1:
        roots = _real_roots(hs[0], unknown[0], num)
        if roots:
            roots.sort(key=lambda r: abs(r[1]))
            if len(roots) > 1 and abs(abs(roots[0][1]) - abs(roots[1][1])) < 1e-12:
                raise ValueError(
                    f"the holonomic constraint of {system.name} has two roots for "
                    f"{names[0]} at the same distance from 0 ({sp.sstr(roots[0][0])} and "
                    f"{sp.sstr(roots[1][0])}): give its value in the state")
            return {unknown[0]: roots[0][0]}
    try:
        root = sp.nsolve([h.xreplace(num) for h in hs], unknown, [0] * len(unknown), prec=30)
    except (ValueError, ZeroDivisionError, TypeError) as err:
        raise ValueError(f"cannot solve the holonomic constraints of {system.name} for "
                         f"{names} by Newton's method from 0 ({err}): give their values in "
                         "the state") from err
    return {c: sp.Float(r, 30) for c, r in zip(unknown, root)}


def _real_roots(h, c, num) -> list:
    """``[(exact root, its value)]``: the real roots of ``h`` in ``c`` found by
    ``sympy.solve`` (real at the numeric parameters), ``[]`` when it finds none."""
    try:
        sols = sp.solve(h, c)
    except (NotImplementedError, ValueError):
        return []
    out = []
    for s in sols:
        try:
            v = complex(sp.N(s.xreplace(num), 30))
        except (TypeError, ValueError):
            continue
        if abs(v.imag) <= 1e-20 * (1 + abs(v.real)):
            out.append((s, v.real))
    return out


def _check(system, vals, parameters, tol) -> None:
    """ValueError naming the first holonomic constraint the state violates: an exact zero
    test when the residual has no floating-point numbers, else a relative tolerance."""
    pol, num = default_policy(), None
    given = _numeric_parameters(system, parameters) if parameters is not None else {}
    for j, h in enumerate(system.holonomic, 1):
        r = h.xreplace(vals).xreplace(given)
        if not r.atoms(sp.Float):
            if pol.is_zero(r):
                continue
            raise ValueError(f"the state violates holonomic constraint {j}: {sp.sstr(h)} = "
                             f"{sp.sstr(r)} at it, not 0")
        num = _numeric_parameters(system, parameters) if num is None else num
        v = sp.N(r.xreplace(num), 30)
        terms = sp.Add.make_args(sp.expand(h))
        scale = 1 + sum(abs(sp.N(t.xreplace(vals).xreplace(num), 15)) for t in terms)
        if not v.is_number or abs(v) > tol * scale:
            raise ValueError(f"the state violates holonomic constraint {j}: {sp.sstr(h)} = "
                             f"{sp.sstr(sp.N(v, 6))} at it, not 0")
