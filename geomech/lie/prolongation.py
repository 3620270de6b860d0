r"""The tangent lift (prolongation) of vector fields to :math:`TN` and to constraint charts.

The tangent lift (prolongation) of :math:`u = u^i(q)\,\partial_{q^i}` on ``N`` to ``TN`` is

.. math:: \tilde u = u^i \frac{\partial}{\partial q^i}
          + \frac{\partial u^i}{\partial q^j}\,\dot q^j \frac{\partial}{\partial \dot q^i},

the generator of :math:`(q, \dot q) \mapsto (T_\varepsilon q, dT_\varepsilon\,\dot q)`; it is a
Lie algebra homomorphism, :math:`[\tilde u, \tilde w] = \widetilde{[u, w]}`.  On a chart of a
submanifold of ``TN`` with coordinates ``q`` and further variables ``s`` (independent
velocities, quasi-velocities) in which the velocities are :math:`\dot q = \Phi(q, s)`, the lift
restricts to :math:`u^i\partial_{q^i} + \sigma^a\partial_{s^a}` with
:math:`\partial_s\Phi\,\sigma = (\partial_q u)\Phi - \partial_q\Phi\, u`; the lift is tangent
iff this linear system is solvable.

Examples
--------
>>> from geomech.core import Manifold
>>> N = Manifold("N", "x y phi"); x, y, phi = N.coords
>>> prolong(N.vector_field([-y, x, 1]))
VectorField(TN, [-y, x, 1, -ydot, xdot, 0])
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Mapping, Sequence

import sympy as sp

from geomech.core.algebra import solve_over_functions
from geomech.core.algebra.differential_ring import DiffRing
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

__all__ = ["prolong", "velocity_lift", "tangent_bundle"]


_TANGENT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_TANGENT_LOCK = threading.Lock()  # one TN chart per N, also when threads ask at once


def tangent_bundle(N: Manifold) -> Manifold:
    r"""The chart of :math:`TN`: the coordinates of ``N`` followed by its velocities.

    The very same symbol objects are used (``N.coords + N.velocities``), and the chart is
    cached, so every call returns the same :class:`Manifold` instance.

    >>> N = Manifold("N", "x y")
    >>> tangent_bundle(N).coords
    (x, y, xdot, ydot)
    >>> tangent_bundle(N) is tangent_bundle(N)
    True
    """
    if not isinstance(N, Manifold):
        raise TypeError(f"tangent_bundle needs a Manifold, got {type(N).__name__}")
    with _TANGENT_LOCK:
        TN = _TANGENT.get(N)
        if TN is None:
            TN = Manifold(f"T{N.name}", (*N.coords, *N.velocities), parameters=N.parameters,
                          assumptions=N.assumptions)
            _TANGENT[N] = TN
        return TN


def _tangency_solution(A: sp.Matrix, b: sp.Matrix) -> sp.Matrix | None:
    r"""The solution :math:`\sigma` of :math:`\partial_s\Phi\,\sigma = b` over the functions
    (:func:`geomech.core.algebra.solve_over_functions`), ``None`` when inconsistent (the lift is
    not tangent); ``ValueError`` when :math:`\partial_s\Phi` has not full column rank."""
    if A.shape[1] == 0:
        return sp.zeros(0, 1) if all(default_policy().is_zero(x) for x in b) else None
    sol, status = solve_over_functions(A, b, A.shape[1])
    if status == "free":
        raise ValueError("the velocity parametrisation is degenerate: d(qdot)/d(s) does not "
                         "have full rank")
    return None if status == "inconsistent" else sp.Matrix(sol)


@functools.lru_cache(maxsize=4096)
def _diff(f: sp.Expr, x: sp.Symbol) -> sp.Expr:
    return sp.diff(f, x)


def velocity_lift(ui: sp.Expr, coords: Sequence[sp.Symbol],
                  velocities: Sequence[sp.Symbol]) -> sp.Expr:
    r"""The velocity component :math:`\sum_j \partial_j u_i\,\dot q_j` of the tangent lift
    of a field with component ``ui``, expanded -- the one implementation of the lift, used by
    :func:`prolong`.

    Trigonometric polynomials are differentiated in the sparse ring of
    :class:`geomech.core.algebra.differential_ring.DiffRing` (chain rule over ``sin``/``cos``, the
    expanded result built directly); other expressions term by term, the
    coordinate-dependent factor of each term differentiated once (cached), so a template
    :math:`\sum_k c_k\varphi_k(q)` costs one derivative per basis function.

    >>> x, y, xd, yd = sp.symbols("x y xdot ydot")
    >>> velocity_lift(-y + x**2, (x, y), (xd, yd))
    2*x*xdot - ydot
    """
    return _velocity_lifts([as_expr(ui)], tuple(coords), tuple(velocities))[0]


def _velocity_lifts(comps: list, coords: tuple, velocities: tuple) -> list:
    """:func:`velocity_lift` of every component, in one ring when they fit one."""
    R = DiffRing.for_expressions([*comps, *velocities], coords)
    if R is None:
        return [_velocity_lift_terms(ui, coords, velocities) for ui in comps]
    vs = [R.to_ring(v) for v in velocities]
    out = []
    for ui in comps:
        p = R.to_ring(ui)
        acc = R.ring.zero
        for q, v in zip(coords, vs):
            acc += R.diff(p, q) * v
        out.append(R.to_expr(acc))
    return out


def _velocity_lift_terms(ui: sp.Expr, coords: tuple, velocities: tuple) -> sp.Expr:
    """:func:`velocity_lift` outside the ring: term by term, derivatives cached."""
    out = []
    for t in (ui.args if ui.is_Add else (ui,)):
        const, dep = t.as_independent(*coords, as_Add=False)
        if dep == 1:
            continue
        out += [const * _diff(dep, qj) * vj for qj, vj in zip(coords, velocities)
                if dep.has(qj)]
    return sp.expand(sp.Add(*out))


def prolong(field: VectorField, phase_space: Manifold | None = None,
            velocities: Mapping | None = None) -> VectorField:
    r"""Tangent lift :math:`\tilde u` of a field on ``N`` to :math:`TN` or to a constraint chart.

    Parameters
    ----------
    field : VectorField
        :math:`u = u^i(q)\partial_{q^i}` on the configuration chart ``N``.
    phase_space : Manifold, optional
        Target chart.  Default: :func:`tangent_bundle` ``(N)`` (coordinates ``q, qdot``).
        Otherwise a chart containing the coordinates of ``N`` (the same symbols) and further
        variables ``s`` -- independent velocities of ``N`` or quasi-velocities.
    velocities : mapping, optional
        ``{qdot_i: expression in the phase-space coordinates}`` for every velocity of ``N``
        that is not a coordinate of ``phase_space`` (dependent velocities substituted from
        the constraints, or ``qdot = Phi(q, s)`` for quasi-velocities).

    Returns
    -------
    VectorField
        On ``TN``: :math:`u^i\partial_{q^i} + (\partial_j u^i)\dot q^j\partial_{\dot q^i}`.
        On a constraint chart: :math:`u^i\partial_{q^i} + \sigma^a\partial_{s^a}` with
        :math:`\partial_s\Phi\,\sigma = (\partial_q u)\,\Phi - \partial_q\Phi\,u`.

    Raises
    ------
    ValueError
        If the lift is not tangent to the submanifold (the flow of ``u`` does not preserve
        the constraints), or if the charts do not match.

    Examples
    --------
    Sleigh: ``SE(2)`` acts trivially on the quasi-velocities ``(v1, omega)``.

    >>> N = Manifold("N", "x y phi"); x, y, phi = N.coords
    >>> xd, yd, phid = N.velocities
    >>> M = Manifold("M", [x, y, phi, sp.Symbol("v1", real=True), sp.Symbol("omega", real=True)])
    >>> v1, om = M.coords[3:]
    >>> prolong(N.vector_field([-y, x, 1]), M,
    ...         {xd: v1*sp.cos(phi), yd: v1*sp.sin(phi), phid: om})
    VectorField(M, [-y, x, 1, 0, 0])
    """
    if not isinstance(field, VectorField):
        raise TypeError(f"prolong needs a VectorField, got {type(field).__name__}")
    N = field.manifold
    if phase_space is None:
        if velocities:
            raise ValueError("velocities= needs a phase_space chart")
        norm = default_policy().normalize
        w = [norm(c) for c in _velocity_lifts(list(field.components), N.coords, N.velocities)]
        # the components of ``field`` are stored normalised already: not normalised again
        return VectorField.from_normal_form(tangent_bundle(N), [*field.components, *w])
    phi = _velocities_on(N, phase_space, velocities)
    return _lift_to_chart(field, phase_space, phi)


def _velocities_on(N: Manifold, phase_space, velocities) -> list[sp.Expr]:
    r"""The velocities :math:`\dot q = \Phi` of ``N`` as expressions on the chart ``P``: a
    coordinate of ``P`` or the given ``velocities[qdot]`` (checked: ``P`` reuses the
    coordinates of ``N``, and :math:`\Phi` uses only coordinates and parameters of ``P``)."""
    if not isinstance(phase_space, Manifold):
        raise TypeError(f"phase_space must be a Manifold, got {type(phase_space).__name__}")
    P = phase_space
    missing = [c for c in N.coords if c not in P.coords]
    if missing:
        raise ValueError(f"the phase space {P.name} lacks the coordinates {missing} of {N.name} "
                         "(it must reuse the same symbols)")
    qd = N.velocities
    velocities = {N.sympify(k): P.sympify(v) for k, v in dict(velocities or {}).items()}
    bad = [k for k in velocities if k not in qd]
    if bad:
        raise ValueError(f"{bad} are not velocities of {N.name} (velocities are {qd})")
    phi = []
    for v in qd:
        if v in velocities:
            if v in P.coords:
                raise ValueError(f"{v} is a coordinate of {P.name} and also given in velocities")
            phi.append(velocities[v])
        elif v in P.coords:
            phi.append(v)
        else:
            raise ValueError(f"the velocity {v} is neither a coordinate of {P.name} nor given "
                             "in velocities=")
    allowed = set(P.coords) | set(P.parameters)
    for v, e in zip(qd, phi):
        extra = {s for s in e.free_symbols if s not in allowed and s not in N.parameters}
        if extra & (set(qd) | set(N.coords)):
            raise ValueError(f"the expression for {v} uses {extra}, which are not coordinates "
                             f"of {P.name}")
    return phi


def _lift_to_chart(field: VectorField, P: Manifold, phi: list[sp.Expr]) -> VectorField:
    r""":math:`u^i\partial_{q^i} + \sigma^a\partial_{s^a}` on the chart ``P`` with
    :math:`\partial_s\Phi\,\sigma = (\partial_q u)\,\Phi - \partial_q\Phi\,u`."""
    N = field.manifold
    n = N.dim
    s_vars = [c for c in P.coords if c not in N.coords]
    A = sp.Matrix(n, len(s_vars), lambda i, a: sp.diff(phi[i], s_vars[a]))
    dq = sp.Matrix(n, n, lambda i, j: sp.diff(phi[i], N.coords[j]))
    u = sp.Matrix(field.components)
    rhs = field.jacobian * sp.Matrix(phi) - dq * u
    sigma = _tangency_solution(A, rhs)
    if sigma is None:
        raise ValueError(
            f"the prolongation of {field} is not tangent to the submanifold {P.name} "
            f"(qdot = {phi}): the flow of the field does not preserve the constraints")
    comps = {c: field.components[N.index(c)] for c in N.coords}
    comps.update({s: sigma[a] for a, s in enumerate(s_vars)})
    return P.vector_field(comps)
