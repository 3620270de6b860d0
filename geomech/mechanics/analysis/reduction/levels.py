r"""Reduction to levels of first integrals (Borisov & Mamaev (2015), §2.1), to the orbit
space of symmetry fields (Thm 1, end of §4.1) and Lie's reconstruction by quadratures (Thm 2).

>>> import geomech as gm
>>> M = gm.Manifold("M", "q p"); q, p = M.coords
>>> restrict_to_level(M.vector_field([p, -q]), [p**2 + q**2], solve_for=[p]).branches
2
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy, is_zero
from geomech.lie.prolongation import prolong
from geomech.mechanics.analysis.common import as_field, check_system, restrict
from geomech.mechanics.analysis.reduction.common import normal_form
from geomech.mechanics.analysis.symmetry import check_symmetry

__all__ = ["LevelReduction", "SymmetryReduction", "restrict_to_level", "reduce_by_symmetry",
           "reconstruction_quadratures"]


def _field_of(system_or_field) -> VectorField:
    if isinstance(system_or_field, VectorField):
        return system_or_field
    check_system(system_or_field)
    return system_or_field.vector_field()


def _simple_values():
    return [sp.Integer(0), sp.Integer(1), sp.Rational(1, 2), sp.Rational(1, 3), sp.Integer(2)]


def _drop_variables(expr, variables) -> sp.Expr:
    """Evaluate ``expr`` at simple values of ``variables`` it provably does not depend on."""
    expr = as_expr(expr)
    left = [s for s in variables if expr.has(s)]
    if not left:
        return expr
    for s in left:
        if not is_zero(sp.diff(expr, s)):
            raise ValueError(f"the expression depends on {s}, which the reduction eliminates: "
                             f"{sp.sstr(expr)[:200]}")
    for vals in zip(*[_simple_values() for _ in left]):
        e = expr.xreplace(dict(zip(left, vals)))
        if not e.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            return normal_form(e)
    raise ValueError("could not evaluate the reduced expression on a slice")


# =============================================================================================
# restriction to levels of first integrals
# =============================================================================================
@dataclass
class LevelReduction:
    r"""The flow restricted to :math:`\{F=c\}` (Borisov & Mamaev (2015), §2.1).

    Attributes
    ----------
    manifold : Manifold
        Chart of the level: the coordinates not solved for; parameters include ``values``.
    vector_field : VectorField
        The restricted field :math:`v_c`.
    solution : dict
        The eliminated coordinates as functions on the level.
    integrals, values : list
    critical_locus : list
        Factors of the Jacobian minor :math:`\det\partial F/\partial x_J`; the chart is singular
        (and the level possibly critical) where one vanishes.
    branches : int
        Number of solutions of :math:`F=c` for the eliminated coordinates (the first is used).
    """

    manifold: Manifold
    vector_field: VectorField
    solution: dict
    integrals: list
    values: list
    critical_locus: list
    branches: int = 1


def _level_candidates(Fs: list, M: Manifold, system) -> list:
    """Up to four sets of coordinates (velocities first, last coordinates first) with a
    non-zero Jacobian minor of the integrals."""
    order = list(reversed(M.coords))
    if system is not None:
        vel = [c for c in order if c in system.manifold.velocities]
        order = vel + [c for c in order if c not in vel]
    candidates = []
    for combo in itertools.combinations(order, len(Fs)):
        J = sp.Matrix([[sp.diff(F, s) for s in combo] for F in Fs])
        if not is_zero(J.det(method="berkowitz")):
            candidates.append(list(combo))
            if len(candidates) >= 4:
                break
    return candidates


def _level_chart(v: VectorField, Fs: list, values: list, sol: dict, det,
                 branches: int) -> LevelReduction:
    """The level as a chart of the coordinates not solved for, with the restricted field
    and the critical set (factors of the numerator of the Jacobian minor ``det``)."""
    M = v.manifold
    rest = [c for c in M.coords if c not in sol]
    R = Manifold(f"{M.name}_level", rest,
                 parameters=tuple(M.parameters) + tuple(
                     c for c in values if isinstance(c, sp.Symbol)),
                 assumptions=M.assumptions)
    comps = [normal_form(v.components[M.index(c)].xreplace(sol)) for c in rest]
    num = sp.numer(sp.together(det))
    locus = [f for f, _ in sp.factor_list(num)[1] if not f.is_number] if \
        not num.is_number else []
    return LevelReduction(R, R.vector_field(comps), sol, Fs, values, locus, branches)


def restrict_to_level(system_or_field, integrals, values=None, solve_for=None,
                      branch: int = 0) -> LevelReduction:
    r"""Restrict the flow to a joint level of first integrals :math:`F_\mu=c_\mu`
    (Borisov & Mamaev (2015), §2.1).

    Each :math:`F_\mu` is first verified to be an integral (:math:`v(F_\mu)\equiv0`); the
    level is then parametrised by the remaining coordinates after solving :math:`F=c` for
    ``solve_for`` (by default the last phase-space coordinates, velocities first, for which the
    Jacobian minor is non-zero and ``sympy.solve`` succeeds).

    Parameters
    ----------
    system_or_field : NonholonomicSystem or VectorField
    integrals : sequence of expressions
        Functions on the phase space (or on ``TN``: they are restricted).
    values : sequence, optional
        Level values; default fresh symbols ``c1, c2, ...``.
    solve_for : sequence of coordinates, optional
    branch : int
        Which solution branch of :math:`F=c` to use.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> M = gm.Manifold("M", "q p"); q, p = M.coords
    >>> lvl = restrict_to_level(M.vector_field([p, -q]), [p**2 + q**2], solve_for=[p])
    >>> lvl.vector_field.components, lvl.branches
    ((-sqrt(c1 - q**2),), 2)
    """
    system = None if isinstance(system_or_field, VectorField) else system_or_field
    v = _field_of(system_or_field)
    M = v.manifold
    Fs = [as_expr(F) for F in (integrals if isinstance(integrals, (list, tuple))
                                   else [integrals])]
    if system is not None:
        Fs = [restrict(system, F) for F in Fs]
    if not Fs:
        raise ValueError("no integrals given")
    for i, F in enumerate(Fs):
        if not is_zero(v(F)):
            raise ValueError(f"integral {i + 1} is not a first integral: v(F) = "
                             f"{sp.sstr(normal_form(v(F)))[:200]}")
    if values is None:
        values = [sp.Symbol(f"c{i + 1}", real=True) for i in range(len(Fs))]
    values = [as_expr(c) for c in values]
    if len(values) != len(Fs):
        raise ValueError(f"{len(values)} values for {len(Fs)} integrals")
    candidates = [list(solve_for)] if solve_for is not None else \
        _level_candidates(Fs, M, system)
    last_err = None
    for cand in candidates:
        for s in cand:
            if s not in M.coords:
                raise ValueError(f"{s} is not a coordinate of {M.name}")
        J = sp.Matrix([[sp.diff(F, s) for s in cand] for F in Fs])
        det = normal_form(J.det(method="berkowitz"))
        if is_zero(det):
            last_err = f"the Jacobian of the integrals w.r.t. {cand} vanishes"
            continue
        sols = sp.solve([F - c for F, c in zip(Fs, values)], cand, dict=True)
        if not sols:
            last_err = f"sympy could not solve the integrals for {cand}"
            continue
        sol = dict(sols[min(branch, len(sols) - 1)])
        if set(sol) != set(cand):
            last_err = f"incomplete solution for {cand}"
            continue
        return _level_chart(v, Fs, values, sol, det, len(sols))
    raise ValueError(f"cannot parametrise the level: {last_err}")


# =============================================================================================
# reduction by symmetry fields (orbit space)
# =============================================================================================
@dataclass
class SymmetryReduction:
    r"""Flow on the orbit space of symmetry fields (Borisov & Mamaev (2015), Thm 1, end of §4.1).

    Attributes
    ----------
    invariants : list
        Functions :math:`Z_i` on the phase space with :math:`\tilde u_\alpha(Z_i)=0`.
    manifold : Manifold
        Chart of the orbit space with one coordinate per invariant.
    vector_field : VectorField
        :math:`\dot Z_i=V_i(Z)`.
    fields : list of VectorField
        The prolonged symmetry fields on the phase space.
    checks : list of SymmetryCheck
    """

    invariants: list
    manifold: Manifold
    vector_field: VectorField
    fields: list
    checks: list = field(default_factory=list, repr=False)
    lie_result: Any = field(default=None, repr=False)


def _symmetry_checks(system, fields) -> list:
    """Theorem 3 for each field (``ValueError`` naming the fields that fail and why)."""
    check_system(system)
    flist = [as_field(system, u) for u in
             ([fields] if isinstance(fields, VectorField) else fields)]
    checks = check_symmetry(system, flist)
    bad = [i for i, c in enumerate(checks) if not c.is_symmetry]
    if bad:
        raise ValueError(f"field(s) {bad} are not symmetry fields of the system: "
                         + "; ".join(f"{i}: failed {checks[i].failed}" for i in bad))
    return checks


def reduce_by_symmetry(system, fields, invariants=None, names=None) -> SymmetryReduction:
    r"""Reduce the flow to the orbit space of symmetry fields of the system.

    The fields (on the configuration space) are checked with Theorem 3
    (:func:`~geomech.mechanics.analysis.symmetry.check_symmetry`) and prolonged to the phase space.
    With ``invariants`` given (functions :math:`Z_i` on the phase space) the reduced field is
    :math:`V_i = v(Z_i)` written in the :math:`Z`; it is obtained by solving
    :math:`Z=z` for as many phase-space coordinates and checking (zero policy) that the result
    no longer depends on the others.  Without ``invariants``, phase-space coordinates
    annihilated by all fields are used when there are enough of them; otherwise the
    reduction is delegated to :func:`geomech.reduce`.

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> S = gm.examples.chaplygin_sleigh(independent=("ydot", "phidot"))
    >>> N = S.manifold; x, y, phi = N.coords; xd, yd, phid = N.velocities
    >>> m, I, a = N.parameters
    >>> red = reduce_by_symmetry(S, [N.vector_field([1, 0, 0]), N.vector_field([0, 1, 0])])
    >>> red.manifold.coords
    (phi, ydot, phidot)
    """
    checks = _symmetry_checks(system, fields)
    pro = [c.prolongation for c in checks]
    v = system.vector_field()
    M = v.manifold
    if invariants is None:
        coords_inv = [c for c in M.coords if all(is_zero(u(c)) for u in pro)]
        rank = default_policy().rank(sp.Matrix([list(u.components) for u in pro]))
        if len(coords_inv) == M.dim - rank:
            invariants = coords_inv
        else:
            from geomech.lie.reduction import reduce as lie_reduce

            res = lie_reduce(v, symmetries=pro, names=names)
            return SymmetryReduction(list(res.invariants), res.manifold, res.vector_field,
                                     pro, checks, res)
    Z = [M.sympify(z) if isinstance(z, str) else as_expr(z) for z in invariants]
    Z = [z if isinstance(z, sp.Symbol) else compact(restrict(system, z)) for z in Z]
    for i, z in enumerate(Z):
        for j, u in enumerate(pro):
            if not is_zero(u(z)):
                raise ValueError(f"invariant {i + 1} ({z}) is not invariant under field {j}")
    if all(isinstance(z, sp.Symbol) and z in M.coords for z in Z) and names is None:
        R = Manifold(f"{M.name}_reduced", Z, parameters=M.parameters,
                     assumptions=M.assumptions)
        others = [c for c in M.coords if c not in Z]
        comps = [_drop_variables(normal_form(v(z)), others) for z in Z]
        return SymmetryReduction(Z, R, R.vector_field(comps), pro, checks)
    from geomech.lie.reduction import reduce as lie_reduce

    res = lie_reduce(v, symmetries=pro, invariants=Z, names=names)
    return SymmetryReduction(list(res.invariants), res.manifold, res.vector_field, pro, checks,
                             res)


# =============================================================================================
# reconstruction
# =============================================================================================
def reconstruction_quadratures(system, fields, invariants=None, cyclic=None, names=None):
    r"""Lie's reconstruction by quadratures (Theorem 2) for solvable symmetry algebras.

    The fields are checked as symmetries (Theorem 3), prolonged to the phase space and passed
    to :func:`geomech.reconstruct` (``geomech.lie.reduction``), which orders them along the
    derived series and returns the triangular system :math:`\dot Y_k=G_k(Z,Y_1..Y_{k-1})`.

    Parameters
    ----------
    invariants, cyclic, names : optional
        Passed to :func:`geomech.reconstruct` (reduced variables, cyclic coordinates and the
        names of the reduced coordinates); invariants on ``TN`` are restricted first.

    Returns
    -------
    geomech.lie.quadratures.Reconstruction
        ``.quadratures`` in order, ``.reduced``, ``.general_solution(t)``.

    Raises
    ------
    ValueError
        A field is not a symmetry, or the Lie layer reports a non-solvable algebra.
    """
    checks = _symmetry_checks(system, fields)
    pro = [prolong(c.field, system.phase_space, system.dependent_solution) for c in checks]
    from geomech.lie.reduction import reconstruct

    if invariants is not None:
        invariants = [compact(restrict(system, as_expr(z))) for z in invariants]
    return reconstruct(system.vector_field(), symmetries=pro, invariants=invariants,
                       cyclic=cyclic, names=names)

