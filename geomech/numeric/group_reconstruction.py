r"""Reconstruction on a matrix Lie group.  For a matrix group with the reduced solution
:math:`\zeta(t)` and a generator :math:`\xi(\zeta)` in the Lie algebra, the reconstruction
equation is the *linear* ODE

.. math:: \dot g = g\,\xi(\zeta(t)) \quad(\text{``right''}), \qquad
          \dot g = \xi(\zeta(t))\,g \quad(\text{``left''}),

together with optional quadratures :math:`\dot y_a = F_a(\zeta, g)` (e.g. the position of a
rolling ball); for the rigid body :math:`g` is the attitude (body to space) and
:math:`\xi = \hat\omega` (Borisov & Mamaev (2015), Thm 2; Marsden & Ratiu, *Introduction to
Mechanics and Symmetry*, 1999, §15.4).

>>> from geomech.core import Manifold
>>> Zm = Manifold("Z", "w"); (w,) = Zm.coords
>>> xi = sp.Matrix([[0, -w, 0], [w, 0, 0], [0, 0, 0]])
>>> rec = integrate_on_group(xi, Zm.vector_field([0]), [2.0], np.eye(3), (0, 1))
>>> bool(abs(rec.group[-1][0, 0] - np.cos(2.0)) < 1e-10), rec.orthogonality_drift() < 1e-10
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.lie.orbits import ReducedSystem

from .inputs import initial_state
from .simulate import simulate

__all__ = ["GroupReconstruction", "integrate_on_group", "group_symbols"]


def group_symbols(n: int, name: str = "g") -> sp.Matrix:
    """The ``n x n`` matrix of real symbols ``g11`` to ``gnn`` used by :func:`integrate_on_group`.

    >>> group_symbols(2)
    Matrix([
    [g11, g12],
    [g21, g22]])
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"the matrix size must be a positive integer, got {n!r}")
    return sp.Matrix(n, n, lambda i, j: sp.Symbol(f"{name}{i + 1}{j + 1}", real=True))


@dataclass
class GroupReconstruction:
    r"""Result of :func:`integrate_on_group`.

    Attributes
    ----------
    t : ndarray (T,)
    reduced : ndarray (T, m)
        :math:`\zeta(t)`.
    group : ndarray (T, n, n)
        :math:`g(t)`.
    extra : dict
        ``{name: ndarray (T,)}`` of the additional quadratures.
    success : bool
    simulation : SimulationResult
    """

    t: np.ndarray
    reduced: np.ndarray
    group: np.ndarray
    extra: dict
    success: bool
    simulation: object

    def orthogonality_drift(self) -> float:
        r""":math:`\max_t \|g^Tg - g_0^Tg_0\|_\infty` (for orthogonal groups: should be ~0)."""
        g0 = self.group[0]
        ref = g0.T @ g0
        return float(max(np.abs(g.T @ g - ref).max() for g in self.group))


def integrate_on_group(xi, reduced, z0, g0, t_span, *, side: str = "right",
                       extra: Mapping | None = None, parameters: Mapping | None = None,
                       t_eval=None, method: str = "DOP853", rtol: float = 1e-11,
                       atol: float = 1e-12, name: str = "g") -> GroupReconstruction:
    r"""Reconstruct a motion on a matrix group: :math:`\dot g = g\,\xi(\zeta)` (or
    :math:`\xi(\zeta)\,g`) along a solution of the reduced system :math:`\dot\zeta = V(\zeta)`.

    Parameters
    ----------
    xi : sympy Matrix (n x n)
        The Lie-algebra element :math:`\xi(\zeta)` as a function of the reduced coordinates
        (e.g. :math:`\hat\omega` for a rigid body).
    reduced : VectorField or ReducedSystem
        The reduced field :math:`V`.
    z0 : mapping or sequence
        Initial reduced state.
    g0 : array_like (n x n)
        Initial group element.
    t_span : (t0, t1) or float
    side : {"right", "left"}
        ``"right"``: :math:`\dot g = g\xi` (left-invariant, body velocity);
        ``"left"``: :math:`\dot g = \xi g` (right-invariant, space velocity).
    extra : mapping, optional
        ``{name: F(zeta, g)}``: further quadratures :math:`\dot y = F`, with the entries of
        :math:`g` written as the symbols of :func:`group_symbols` (``g11 .. gnn``); initial
        values 0.
    parameters : mapping, optional
        Numeric parameter values.
    t_eval, method, rtol, atol
        Passed to :func:`scipy.integrate.solve_ivp`.

    Returns
    -------
    GroupReconstruction

    Examples
    --------
    Uniform rotation about the third axis: :math:`g(t) = \exp(t\hat e_3)`.

    >>> from geomech.core import Manifold
    >>> Zm = Manifold("Z", "w"); (w,) = Zm.coords
    >>> xi = sp.Matrix([[0, -w, 0], [w, 0, 0], [0, 0, 0]])
    >>> rec = integrate_on_group(xi, Zm.vector_field([0]), [1.0], np.eye(3), (0, 1))
    >>> bool(abs(rec.group[-1][1, 0] - np.sin(1.0)) < 1e-10)
    True
    """
    V, xi, g0 = _group_inputs(xi, reduced, g0, side)
    n, R = xi.rows, V.manifold
    zc = list(R.coords)
    G = group_symbols(n, name)
    clash = set(G) & set(zc)
    if clash:
        raise ValueError(f"the group symbols {sorted(map(str, clash))} clash with reduced "
                         "coordinates; pass name=")
    gdot = G * xi if side == "right" else xi * G
    extra = dict(extra or {})
    ys = [sp.Symbol(str(k), real=True) for k in extra]
    rates = _quadratures(extra, set(zc) | set(G) | set(R.parameters))
    chart = Manifold(f"{R.name}_x_G", (*zc, *G, *ys), parameters=R.parameters,
                     assumptions=R.assumptions)
    F = chart.vector_field([*V.components, *list(gdot), *rates])
    y0 = [*initial_state(z0, zc), *g0.reshape(-1), *([0.0] * len(ys))]
    res = simulate(F, y0, t_span, parameters=parameters, t_eval=t_eval, method=method,
                   rtol=rtol, atol=atol, energy=False)
    m = len(zc)
    S = res.states
    group = S[:, m:m + n * n].reshape(-1, n, n)
    ex = {str(k): S[:, m + n * n + i] for i, k in enumerate(extra)}
    return GroupReconstruction(res.t, S[:, :m], group, ex, res.success, res)


def _group_inputs(xi, reduced, g0, side: str):
    """Checked ``(V, xi, g0)`` of :func:`integrate_on_group`."""
    V = reduced.vector_field if isinstance(reduced, ReducedSystem) else reduced
    if not isinstance(V, VectorField):
        raise TypeError(f"reduced must be a VectorField or ReducedSystem, got "
                        f"{type(reduced).__name__}")
    if side not in ("right", "left"):
        raise ValueError(f"side must be 'right' or 'left', got {side!r}")
    xi = sp.Matrix(xi)
    if xi.rows != xi.cols:
        raise ValueError(f"xi must be a square matrix, got shape {xi.shape}")
    g0 = np.asarray(g0, dtype=float)
    if g0.shape != (xi.rows, xi.rows):
        raise ValueError(f"g0 must have shape {(xi.rows, xi.rows)}, got {g0.shape}")
    R = V.manifold
    stray = set().union(*(e.free_symbols for e in xi)) - set(R.coords) - set(R.parameters)
    if stray:
        raise ValueError(f"xi involves {sorted(map(str, stray))}, which are neither reduced "
                         "coordinates nor parameters")
    return V, xi, g0


def _quadratures(extra: dict, allowed: set) -> list:
    """The rates of the extra quadratures, checked to involve only ``allowed`` symbols."""
    rates = []
    for k, e in extra.items():
        e = as_expr(e)
        bad = e.free_symbols - allowed
        if bad:
            raise ValueError(f"the quadrature {k} involves unknown symbols "
                             f"{sorted(map(str, bad))}")
        rates.append(e)
    return rates
