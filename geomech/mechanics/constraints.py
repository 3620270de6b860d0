r"""The constraints of a nonholonomic system: parsing, checks and the split of the velocities.

Constraints linear (affine allowed) in the velocities,

.. math:: f_\mu(q,\dot q) = \sum_i a_{\mu i}(q)\,\dot q_i + b_\mu(q) = 0,\qquad \mu=1..k,

are read row by row (:func:`constraint_row`), checked independent
(:func:`check_independent_rows`) and solved for :math:`k` dependent velocities
(:func:`split_velocities`, Voronets (1901)): the phase space :math:`\mathcal M\subset TN`
has the coordinates :math:`q` and the independent velocities.
:class:`~geomech.mechanics.system.NonholonomicSystem` builds itself with these functions.

>>> N = Manifold("N", "x y phi"); xd, yd, phid = N.velocities; phi = N.coords[2]
>>> a, b, f = constraint_row(N, -xd*sp.sin(phi) + yd*sp.cos(phi), 1)
>>> split_velocities(N, sp.Matrix([a]), [b], independent="x phi")[2]
{ydot: xdot*sin(phi)/cos(phi)}
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.fields import VectorField
from geomech.core.forms import DifferentialForm
from geomech.core.kernel import polynomial_coefficients
from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.core.zero.values import certainly_full_rank
from geomech.mechanics.equations.elimination import (
    block_eliminate,
    eliminate,
    triangular_order,
)

__all__ = ["constraint_row", "forces_tuple", "finite_expression", "check_independent_rows",
           "split_velocities", "structured_split", "solve_dependent", "preferred_minor",
           "velocity_of", "natural_frame_of"]


_NONSMOOTH = (sp.Abs, sp.sign, sp.Piecewise, sp.Heaviside, sp.DiracDelta, sp.Max, sp.Min,
              sp.floor, sp.ceiling)


def finite_expression(e: sp.Expr, what: str) -> sp.Expr:
    """``e`` unchanged, or ``ValueError`` if it contains an infinity or NaN.

    >>> finite_expression(sp.oo, "L")
    Traceback (most recent call last):
    ...
    ValueError: L is not finite: oo
    """
    if e.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise ValueError(f"{what} is not finite: {sp.sstr(e)}")
    return e


def constraint_row(N: Manifold, c, idx: int) -> tuple[list, sp.Expr, sp.Expr]:
    r"""``(a, b, f)`` of constraint ``idx``: :math:`f = \sum_i a_i(q)\dot q_i + b(q)`.

    ``ValueError`` when ``f`` is not linear in the velocities (the coefficients
    :math:`a_i = \partial f/\partial\dot q_i` must be free of velocities) or has none.

    >>> N = Manifold("N", "x y"); xd, yd = N.velocities
    >>> constraint_row(N, yd - N.coords[0]*xd + 1, 1)
    ([-x, 1], 1, -x*xdot + ydot + 1)
    """
    vel, pol = N.velocities, default_policy()
    if isinstance(c, DifferentialForm):
        if c.manifold is not N or c.degree != 1:
            raise ValueError(f"constraint {idx} must be a 1-form on {N.name}")
        a = list(c.as_list())
        f, b = sp.Add(*[ai * v for ai, v in zip(a, vel)]), sp.S.Zero
    else:
        if isinstance(c, sp.Equality):
            f = N.sympify(c.lhs) - N.sympify(c.rhs)
        else:
            f = N.sympify(c)
        f = finite_expression(f, f"constraint {idx}")
        nonsmooth = any(g.has(*vel) for g in f.atoms(*_NONSMOOTH))
        coeffs = None if nonsmooth else polynomial_coefficients(f, vel, 1)
        if coeffs is not None:       # a polynomial of degree <= 1: linear by construction
            one = [tuple(int(i == j) for j in range(len(vel))) for i in range(len(vel))]
            a = [pol.normalize(coeffs.get(m, sp.S.Zero)) for m in one]
            b = pol.normalize(coeffs.get((0,) * len(vel), sp.S.Zero))
        else:
            a = [pol.normalize(sp.diff(f, v)) for v in vel]
            b = pol.normalize(f.xreplace({v: 0 for v in vel}))
        if coeffs is None and (nonsmooth or any(ai.has(*vel) for ai in a) or not pol.is_zero(
                f - sp.Add(*[ai * v for ai, v in zip(a, vel)]) - b)):
            raise ValueError(f"constraint {idx} is not linear in the velocities: "
                             f"{sp.sstr(f)}")
    if all(pol.is_zero(ai) for ai in a):
        raise ValueError(
            f"constraint {idx} contains no velocities: {sp.sstr(f)}; give a configuration "
            "constraint h(q) = 0 with holonomic=[...]")
    return a, b, f


def forces_tuple(N: Manifold, forces) -> tuple[sp.Expr, ...]:
    """Generalized forces as one expression per coordinate, from a sequence or a mapping
    ``{coordinate, its name or its index: Q}``.

    >>> forces_tuple(Manifold("N", "x y"), {"y": 2})
    (0, 2)
    """
    n = N.dim
    if isinstance(forces, Mapping):
        fl = [sp.S.Zero] * n
        for key, val in forces.items():
            if isinstance(key, bool) or not isinstance(key, (int, str, sp.Symbol)):
                raise TypeError(f"forces are keyed by coordinates, their names or indices, "
                                f"got {key!r}")
            if isinstance(key, int) and not 0 <= key < n:
                raise ValueError(f"force index {key} out of range: {N.name} has {n} "
                                 f"coordinates (indices 0..{n - 1})")
            i = key if isinstance(key, int) else N.index(key)
            fl[i] = finite_expression(N.sympify(val), f"the force on {N.coords[i]}")
        return tuple(fl)
    if isinstance(forces, (str, sp.Basic)) or not isinstance(forces, Iterable):
        raise TypeError(f"forces must be a list of {n} expressions or a mapping "
                        f"{{coordinate: force}}, got {type(forces).__name__}")
    fl = [finite_expression(N.sympify(f), f"force {i + 1}") for i, f in enumerate(forces)]
    if len(fl) != n:
        raise ValueError(f"forces need {n} components (one per coordinate of "
                         f"{N.name}), got {len(fl)}")
    return tuple(fl)


def check_independent_rows(A: sp.Matrix) -> None:
    """``ValueError`` naming the first constraint that is a combination of the previous ones
    (rows of the constraint matrix ``A``, ranks by the zero policy).

    >>> x = sp.Symbol("x")
    >>> check_independent_rows(sp.Matrix([[1, x], [2, 2*x]]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: dependent constraints: constraint 2 is a combination of constraint(s) 1 ...
    """
    k = A.shape[0]
    if k == 0:
        return
    pol = default_policy()
    if certainly_full_rank(A) or pol.rank(A) == k:
        return
    for i in range(1, k + 1):
        if pol.rank(A[:i, :]) < i:
            others = ", ".join(str(j) for j in range(1, i))
            raise ValueError(
                f"dependent constraints: constraint {i} is a combination of constraint(s) "
                f"{others} (rank of the constraint matrix {pol.rank(A)} < {k})")


def split_velocities(N: Manifold, A: sp.Matrix, affine, independent=None, required=(),
                     solve: bool = True) -> tuple[list, list, dict | None]:
    r"""The split of the velocities by constraints :math:`A\dot q + b = 0` of full rank
    :math:`k`: ``(independent indices, dependent indices, {dependent velocity: expression})``.

    ``independent`` (velocity or coordinate names or symbols) fixes the split; by default a
    non-singular :math:`k\times k` minor of :math:`A` is chosen: a constant determinant first,
    then the shortest one, then the earliest coordinates as dependent.  The dependent
    velocities are :math:`\dot q_{\rm dep} = -A_{\rm dep}^{-1}(A_{\rm ind}\dot q_{\rm ind}
    + b)` (Cramer's rule).  ``required`` are indices that must be dependent (the velocities
    of the dependent coordinates of holonomic constraints); ``solve=False`` returns ``None``
    for the solution (computed later, on demand).

    >>> N = Manifold("N", "x y z"); xd, yd, zd = N.velocities; y = N.coords[1]
    >>> split_velocities(N, sp.Matrix([[-y, 0, 1]]), [0])
    ([0, 1], [2], {zdot: xdot*y})
    """
    if independent is not None:
        ind_idx, dep_idx = _given_split(N, A, independent)
        clash = [str(N.velocities[i]) for i in required if i in ind_idx]
        if clash:
            raise ValueError(f"independent={[str(N.velocities[i]) for i in ind_idx]} contains "
                             f"{', '.join(clash)}, the velocity of a dependent coordinate of a "
                             "holonomic constraint (it follows from the constraints)")
    else:
        dep_idx = preferred_minor(A, required)
        ind_idx = [i for i in range(N.dim) if i not in dep_idx]
    sol = solve_dependent(A, affine, N.velocities, dep_idx) if solve else None
    return ind_idx, dep_idx, sol


def structured_split(A: sp.Matrix, affine, dep_idx, ind_idx) -> tuple[dict, dict]:
    r"""The split :math:`\dot q_r = \sum_\alpha b_{r\alpha}\dot q_\alpha + b_r` as
    ``({r: (b_r1, ...)}, {r: b_r})``, solved by
    :func:`~geomech.mechanics.equations.elimination.eliminate`: forward substitution when the
    minor :math:`A_{\rm dep}` is triangular up to permutations (knife edges along a chain),
    else block by block
    (:func:`~geomech.mechanics.equations.elimination.block_eliminate`: the Whipple
    bicycle); small entries in their compact normal form, large ones as built.

    >>> y = sp.Symbol("y")
    >>> structured_split(sp.Matrix([[-y, 0, 1]]), [1], [2], [0, 1])
    ({2: (y, 0)}, {2: -1})
    """
    k = A.shape[0]
    cols = [[-A[i, j] for i in range(k)] for j in ind_idx] + [[-b for b in affine]]
    Ad = A[:, list(dep_idx)]
    solve = eliminate if triangular_order(Ad) is not None else block_eliminate
    X = solve(Ad, sp.Matrix(k, len(cols), lambda i, c: cols[c][i]), what="constraint minor")
    r = len(ind_idx)
    rows = {j: tuple(X[m, a] for a in range(r)) for m, j in enumerate(dep_idx)}
    free = {j: X[m, r] for m, j in enumerate(dep_idx)}
    return rows, free


def solve_dependent(A: sp.Matrix, affine, velocities, dep_idx) -> dict:
    r"""``{dependent velocity: expression}`` from :math:`A\dot q + b = 0` by Cramer's rule,
    :math:`\dot q_{\rm dep} = -A_{\rm dep}^{-1}(A_{\rm ind}\dot q_{\rm ind} + b)`.

    >>> x, xd, yd = sp.symbols("x xdot ydot")
    >>> solve_dependent(sp.Matrix([[-x, 1]]), [2], [xd, yd], [1])
    {ydot: x*xdot - 2}
    """
    k = A.shape[0]
    if not k:
        return {}
    vel = list(velocities)
    ind_idx = [i for i in range(len(vel)) if i not in dep_idx]
    Ad = A[:, list(dep_idx)]
    rhs = -(A[:, ind_idx] * sp.Matrix([vel[i] for i in ind_idx]) + sp.Matrix(list(affine)))
    det = Ad.det(method="berkowitz")
    sol = (Ad.adjugate(method="berkowitz") * rhs / det) if k > 1 else rhs / Ad[0, 0]
    return {vel[j]: compact(e) for j, e in zip(dep_idx, sol)}


def _given_split(N: Manifold, A: sp.Matrix, independent) -> tuple[list, list]:
    """Indices of the user's ``independent`` velocities and of the others, checked."""
    n, k, vel = N.dim, A.shape[0], N.velocities
    if isinstance(independent, str):
        independent = independent.replace(",", " ").split()
    elif isinstance(independent, sp.Symbol):
        independent = [independent]
    elif isinstance(independent, Mapping) or not isinstance(independent, Iterable):
        raise TypeError(f"independent must be velocity names or symbols, got "
                        f"{type(independent).__name__}")
    ind = [velocity_of(N, s) for s in independent]
    if len(set(ind)) != len(ind):
        raise ValueError(f"repeated velocities in independent={list(independent)}")
    if len(ind) != n - k:
        raise ValueError(f"{len(ind)} independent velocities given, but {n} velocities "
                         f"and {k} constraints leave {n - k}")
    dep_idx = [i for i, v in enumerate(vel) if v not in ind]
    # the generic rank (random exact points first: cheap on large constraints)
    if k and default_policy().rank(A[:, dep_idx]) < k:
        raise ValueError(
            f"independent={[str(v) for v in ind]} is a singular choice: the constraints "
            f"cannot be solved for {[str(vel[i]) for i in dep_idx]} (the minor vanishes)")
    return [vel.index(v) for v in ind], dep_idx


def preferred_minor(A: sp.Matrix, required=()) -> list:
    """Columns of the preferred non-singular :math:`k\\times k` minor of ``A`` (full rank
    :math:`k`): a constant determinant first, then the shortest, then the first columns;
    the columns ``required`` are always among them.

    >>> x = sp.Symbol("x"); preferred_minor(sp.Matrix([[x, 1, 0]]))
    [1]
    >>> preferred_minor(sp.Matrix([[x, 1, 0]]), required=[0])
    [0]
    """
    (k, n), pol, best = A.shape, default_policy(), None
    req = sorted(set(required))
    rest = [i for i in range(n) if i not in req]
    for extra in itertools.combinations(rest, k - len(req)):
        combo = tuple(sorted((*req, *extra)))
        det = pol.normalize(A[:, list(combo)].det(method="berkowitz")) if k else sp.S.One
        if det == 0 or pol.is_zero(det):
            continue
        score = (0 if det.is_number else 1, min(sp.count_ops(det), sp.count_ops(-det)), combo)
        if best is None or score < best[0]:
            best = (score, combo)
    if best is None and req:
        raise ValueError("the constraints cannot be solved for the velocities of the dependent "
                         "coordinates of the holonomic constraints together with others: "
                         "choose other dependent coordinates (holonomic={coordinate: h})")
    if best is None:  # pragma: no cover - excluded by the rank check
        raise ValueError("dependent constraints: no non-singular minor")
    return list(best[1])


def velocity_of(N: Manifold, s) -> sp.Symbol:
    """The velocity of ``N`` named by ``s`` (a coordinate or velocity, symbol or name).

    >>> N = Manifold("N", "x y"); velocity_of(N, "x"), velocity_of(N, N.coords[1])
    (xdot, ydot)
    """
    if isinstance(s, str):
        for c, v in zip(N.coords, N.velocities):
            if s in (c.name, v.name):
                return v
        raise ValueError(f"{s!r} is neither a coordinate nor a velocity of {N.name}")
    if s in N.velocities:
        return s
    if s in N.coords:
        return N.velocities[N.coords.index(s)]
    raise ValueError(f"{s} is neither a coordinate nor a velocity of {N.name}")


def natural_frame_of(N: Manifold, frame, r: int) -> dict | None:
    """Check the shape of a natural frame: ``r`` vector fields on ``N`` (and their names).

    >>> N = Manifold("N", "x y"); natural_frame_of(N, None, 1) is None
    True
    """
    if frame is None:
        return None
    if not isinstance(frame, Mapping) or "frame" not in frame:
        raise TypeError("natural_frame must be a mapping {'frame': vector fields, 'names': ...}")
    fields = frame["frame"]
    if isinstance(fields, (str, VectorField)) or not isinstance(fields, Iterable):
        raise TypeError("natural_frame['frame'] must be a sequence of vector fields")
    fields = tuple(fields)
    if any(not isinstance(X, VectorField) or X.manifold is not N for X in fields):
        raise TypeError(f"natural_frame['frame'] must hold vector fields on {N.name}")
    if len(fields) != r:
        raise ValueError(f"natural_frame has {len(fields)} fields; the constraints leave {r} "
                         "independent velocities")
    return {**frame, "frame": fields}

