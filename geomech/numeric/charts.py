r"""Chart singularities met by a trajectory: the denominators of an explicit right-hand side
(the determinant of the dependent-velocity block of the constraints, of the mass matrix,
``cos(phi)`` for the Chaplygin sleigh) or, for a mass-matrix form, the Hadamard ratio
:math:`\det M/\prod_i\|M_i\|`, evaluated along the trajectory; :func:`find_singularities`
reports where one crosses zero or has a deep local minimum.

>>> import numpy as np, sympy as sp
>>> t = np.linspace(0.0, 2.0, 21)
>>> [(round(tk, 6), d) for tk, d, _ in find_singularities((t, [(sp.Symbol("d"), 1 - t, "signed")]))]
[(1.0, d)]
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.mechanics.analysis.field_charts import denominator_factors

from .result import UnknownCoordinate, coordinate_index
from .variational import lambdify_flat

__all__ = ["singular_denominators", "singular_values", "hadamard_ratio", "find_singularities",
           "regular_split", "singularity_warning", "SINGULAR_RATIO", "DLDA_POLE_RATIO"]

SINGULAR_RATIO = 1e-3      # |d| below this fraction of its largest value: near-singular
DLDA_POLE_RATIO = 0.05     # the same for sqrt(det/prod) of the mass matrix along dlda runs


def singular_denominators(field) -> list[sp.Expr]:
    r"""Denominators of an explicit right-hand side that depend on the state: the bases of
    negative powers and the arguments of ``tan``/``cot``/``sec``/``csc`` (they include the
    determinant of the dependent-velocity block of the constraints and of the mass matrix).
    For a mass-matrix form: the mass-matrix entries (the determinant is taken
    numerically)."""
    if not isinstance(field, VectorField):
        return list(field.mass_matrix)
    return denominator_factors(field.components, field.manifold.coords)


def singular_values(field, dens, coords, params, y) -> list[tuple]:
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
    return [(sp.Symbol("det(mass matrix)"), hadamard_ratio(vals.T, len(field.unknowns)), "metric")]


def hadamard_ratio(rows: np.ndarray, m: int) -> np.ndarray:
    """det M / prod of the row norms of M, for the flattened matrices ``rows`` (T, m*m)."""
    M = rows.reshape(-1, m, m)
    with np.errstate(all="ignore"):
        return np.linalg.det(M) / np.prod(np.linalg.norm(M, axis=2), axis=1)


def find_singularities(values, ratio: float = SINGULAR_RATIO) -> list[tuple]:
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


def regular_split(owner, coords, params, t, y, t_sing) -> tuple | None:
    """Independent velocities whose dependent block of the constraint matrix is best
    conditioned at the configuration nearest to ``t_sing`` (column-pivoted QR), or None."""
    from scipy.linalg import qr

    A = getattr(owner, "constraint_matrix", None)
    N = getattr(owner, "manifold", None)
    if A is None or N is None or not A.shape[0]:
        return None
    try:                                   # the configuration's rows of the states
        rows = [coordinate_index(coords, q) for q in N.coords]
    except UnknownCoordinate:
        return None
    k = int(np.argmin(np.abs(np.asarray(t) - t_sing)))
    at = {q: float(y[i, k]) for q, i in zip(N.coords, rows)}
    try:
        An = np.array(sp.Matrix(A).xreplace(params).xreplace(at).evalf(), dtype=float)
    except TypeError:
        return None
    _, _, piv = qr(An, pivoting=True)
    dep = set(piv[:An.shape[0]].tolist())
    ind = tuple(str(v) for j, v in enumerate(N.velocities) if j not in dep)
    current = tuple(str(v) for v in getattr(owner, "independent_velocities", ()))
    return ind if set(ind) != set(current) else None


def singularity_warning(found, owner, split: tuple | None = None) -> str:
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

