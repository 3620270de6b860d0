r"""Fields in charts at a point: the phase-space field (explicit, or in mass-matrix form for
heavy systems), its cyclic coordinates, its Jacobian, and the restriction to the tangent space
of invariant relations.

* :class:`FieldChart` -- a field :math:`\dot x = F(x)` (or :math:`M(x)z = F(x)`,
  :math:`\dot x = g(x) + P(x)z`) in a chart, at a point; :func:`phase_space_chart` builds
  it on ``S.phase_space`` (once per system);
* :func:`cyclic_split` -- the reduced variables :math:`R` (grown from the velocities by the
  dependencies of the rates) and the cyclic ones :math:`C`; for a mass-matrix form a
  coordinate read by :math:`M, F` but not by the explicit rates is recognised by a symmetry
  (the strengthened Theorem 3, :func:`~geomech.mechanics.analysis.symmetry.check_symmetry`);
* :func:`jacobian_at`, :func:`chart_jacobian` -- the exact Jacobian at the point (each entry
  differentiated after the other variables are put at their values, so large fields
  collapse first); :func:`tangent_restriction` -- its restriction to
  :math:`\ker DG` for invariant relations :math:`G = 0` (:math:`|\gamma|^2 = 1`;
  configuration constraints ``system.holonomic``).

Used by :mod:`~geomech.mechanics.analysis.linearization`,
:mod:`~geomech.mechanics.analysis.natural_chart` and
:mod:`~geomech.mechanics.analysis.steady_motions`.

>>> import geomech as gm
>>> R, C = cyclic_split(phase_space_chart(gm.examples.rolling_disk(), {}))
>>> C
(x, y, psi, phi)
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy as sp

from geomech.core.budget import check
from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

__all__ = ["FieldChart", "phase_space_chart", "denominator_factors", "singular_factors",
           "cyclic_split",
           "steady_residuals", "jacobian_at", "chart_jacobian", "tangent_restriction",
           "IMPLICIT_OPS"]

#: Above this size of M and F the field is used in mass-matrix form (never inverted
#: symbolically); the cyclic coordinates are then read off M and F (a superset of the
#: dependencies of the explicit field).
IMPLICIT_OPS = 20000

@dataclass(frozen=True)
class FieldChart:
    r"""A field :math:`\dot x = F(x)` in a chart, at a point.

    ``seeds`` are the velocity-like variables from which the reduced set :math:`R` is grown
    (:func:`cyclic_split`); ``relations`` are invariant relations :math:`G(x) = 0`
    (restricted to their tangent space); ``cyclic`` may be given when the chart has already
    dropped the cyclic coordinates (natural variables).
    """

    name: str
    description: str
    variables: tuple
    rhs: tuple | None
    point: dict
    seeds: tuple
    relations: tuple = ()
    dropped: tuple = ()
    implicit: object = None
    split: tuple | None = None

    @property
    def rates(self) -> dict:
        """``{variable: rate}``: explicit, or affine in the unknowns of :attr:`implicit`."""
        if self.implicit is not None:
            return dict(self.implicit.rates)
        return dict(zip(self.variables, self.rhs))

    def dependencies(self) -> dict:
        """``{variable: set of variables its rate reads}`` (through :math:`M` and :math:`F`
        for the unknowns of an implicit form)."""
        vs = set(self.variables)
        rates = self.rates
        if self.implicit is None:
            return {v: rates[v].free_symbols & vs for v in self.variables}
        imp = self.implicit
        zdeps = set().union(*[e.free_symbols for e in (*imp.mass_matrix, *imp.forcing)]) & vs
        return {v: (rates[v].free_symbols & vs) | (zdeps if rates[v].has(*imp.unknowns)
                                                   else set()) for v in self.variables}

    def unknowns_at(self) -> dict:
        r"""The unknowns :math:`z_0` of an implicit form at the point (:math:`M_0z_0 = F_0`,
        solved exactly); ``{}`` for an explicit chart."""
        if self.implicit is None:
            return {}
        imp = self.implicit
        M0 = _at_point(imp.mass_matrix, self.point)
        F0 = _at_point(imp.forcing, self.point)
        if default_policy().rank(M0) < M0.rows:
            raise ValueError("the mass matrix is singular at the state")
        z0 = M0.LUsolve(F0).applyfunc(default_policy().normalize)
        return dict(zip(imp.unknowns, z0))

    def rates_at(self) -> dict:
        """``{variable: rate at the point}`` (exact)."""
        sub = {**self.point, **self.unknowns_at()}
        return {v: r.xreplace(sub) for v, r in self.rates.items()}


_CHARTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def phase_space_chart(system, point: dict) -> FieldChart:
    """The Lagrange–d'Alembert field on ``system.phase_space`` at ``point`` (the field and
    its cyclic split are computed once per system)."""
    try:
        template = _CHARTS[system]
    except (KeyError, TypeError):
        template = _phase_space_template(system)
        try:
            _CHARTS[system] = template
        except TypeError:
            pass
    return dataclasses.replace(template, point=dict(point))


def _phase_space_template(system) -> FieldChart:
    P = system.phase_space
    imp = system.equations("lagrange_dalembert", explicit=False).mass_matrix_form()
    velocities = tuple(c for c in P.coords if c in set(system.manifold.velocities))
    rel = tuple(as_expr(g) for g in (getattr(system, "holonomic", ()) or ()))
    desc = f"the phase-space coordinates of {system.name} ({', '.join(map(str, P.coords))})"
    if sum(count_ops(e) for e in (*imp.mass_matrix, *imp.forcing)) <= IMPLICIT_OPS:
        rhs = tuple(system.vector_field().components)
        fc = FieldChart("phase space", desc, tuple(P.coords), rhs, {}, velocities,
                        _with_rates(system, rel))
    else:
        fc = FieldChart("phase space", desc + " (mass-matrix form)", tuple(P.coords), None,
                        {}, velocities, _with_rates(system, rel), implicit=imp)
    return dataclasses.replace(fc, split=cyclic_split(fc))


def _with_rates(system, relations: tuple) -> tuple:
    r"""Configuration constraints :math:`g(q) = 0` and their rates :math:`\dot g` on the
    phase space (both invariant; the hook for dependent coordinates)."""
    out = []
    vel = system.velocity_on_phase_space()
    for g in relations:
        out.append(g)
        rate = sum(sp.diff(g, q) * v for q, v in zip(system.manifold.coords, vel))
        if not default_policy().is_zero(rate):
            out.append(rate)
    return tuple(out)


def denominator_factors(exprs, variables) -> list[sp.Expr]:
    """Factors (depending on ``variables``) of the denominators of ``exprs``: bases of
    negative powers and the ``cos``/``sin`` under ``tan``/``sec``/``cot``/``csc`` -- where a
    chart or a right-hand side is singular.

    >>> x, y = sp.symbols("x y")
    >>> denominator_factors([x/(y*(x - 1)), sp.tan(y)], [x, y])
    [y, x - 1, cos(y)]
    """
    vs = set(variables)
    out: list[sp.Expr] = []
    for comp in exprs:
        for p in sp.preorder_traversal(comp):
            if isinstance(p, sp.Pow) and p.exp.is_negative:
                d = p.base
            elif isinstance(p, (sp.tan, sp.sec)):
                d = sp.cos(p.args[0])
            elif isinstance(p, (sp.cot, sp.csc)):
                d = sp.sin(p.args[0])
            else:
                continue
            for f in sp.Mul.make_args(sp.factor_terms(d)):
                if f.free_symbols & vs and f not in out:
                    out.append(f)
    return out


def singular_factors(chart: FieldChart) -> list[sp.Expr]:
    """Denominator factors of the field (:func:`denominator_factors`, through :math:`M` and
    :math:`F` for a mass-matrix form) that vanish at the chart's point: where the chart is
    singular."""
    exprs = list(chart.rates.values())
    if chart.implicit is not None:
        exprs += [*chart.implicit.mass_matrix, *chart.implicit.forcing]
    policy = default_policy()
    found = []
    for f in denominator_factors(exprs, chart.variables):
        f = f.base if isinstance(f, sp.Pow) else f
        if f not in found and policy.is_zero(f.xreplace(chart.point)):
            found.append(f)
    return found


def cyclic_split(chart: FieldChart) -> tuple[tuple, tuple]:
    r"""``(R, C)``: the smallest set :math:`R` containing the seeds and every variable read
    by the rates of :math:`R`, and the rest :math:`C` (cyclic: read only by their own
    kinematic rates).

    >>> import geomech as gm
    >>> S = gm.examples.rolling_disk()
    >>> R, C = cyclic_split(phase_space_chart(S, {}))
    >>> C
    (x, y, psi, phi)
    """
    if chart.split is not None:
        return chart.split
    deps = chart.dependencies()
    if chart.implicit is not None:
        deps = _confirmed_cyclic(chart, deps)
    reduced = _closure(chart, deps)
    R = tuple(v for v in chart.variables if v in reduced)
    return R, tuple(v for v in chart.variables if v not in reduced)


def _closure(chart: FieldChart, deps: dict) -> list:
    reduced: list = []
    todo = list(chart.seeds)
    while todo:
        v = todo.pop()
        if v not in reduced:
            reduced.append(v)
            todo += [w for w in chart.variables if w not in reduced and w in deps[v]]
    return reduced


def _confirmed_cyclic(chart: FieldChart, deps: dict) -> dict:
    r"""Dependencies of a mass-matrix form with the coordinates whose shift is a symmetry
    removed.  :math:`M` and :math:`F` may contain a coordinate the explicit rates do not
    (the heading of a rolling body, through the elimination of the contact velocities); it
    is cyclic when :math:`u = \partial_c` -- or :math:`\partial_c` with a rotation of two
    coordinates already known cyclic -- satisfies the strengthened Theorem 3
    (:func:`~geomech.mechanics.analysis.symmetry.check_symmetry`): then
    :math:`\partial_c` of every reduced rate vanishes."""
    from geomech.mechanics.analysis.symmetry import check_symmetry

    system = chart.implicit.system
    N = system.manifold
    deps = {k: set(v) for k, v in deps.items()}
    known = [c for c in N.coords if c not in _closure(chart, deps)]
    for c in [c for c in N.coords if c not in known]:
        for u in _shift_candidates(N, c, known):
            if _probably_symmetry(system, u) and \
                    check_symmetry(system, u, definitive=False).theorem3:
                for v in deps:
                    deps[v].discard(c)
                known.append(c)
                break
    return deps


def _probably_symmetry(system, u) -> bool:
    r"""The random-point filter of Theorem 3 (``False`` is certain): :math:`\tilde u(L)` and
    :math:`\tilde u(f_\mu)|_{\mathcal M}` vanish at random points."""
    from geomech.mechanics.analysis.common import prolong, restrict
    from geomech.mechanics.equations.implicit import numerically_zero

    if not numerically_zero(prolong(u, system.lagrangian), 2):
        return False
    return all(numerically_zero(restrict(system, prolong(u, f)), 2)
               for f in system.constraints)


def _shift_candidates(N, c, known: list) -> list:
    r""":math:`\partial_c` and :math:`\partial_c \pm (-y\partial_x + x\partial_y)` for
    pairs :math:`(x, y)` of known cyclic coordinates."""
    base = {c: 1}
    out = [N.vector_field(base)]
    for i, p in enumerate(known):
        for r in known[i + 1:]:
            for s in (1, -1):
                out.append(N.vector_field({**base, p: -s * r, r: s * p}))
    return out


def steady_residuals(chart: FieldChart, reduced: Sequence) -> list[tuple]:
    """``(variable, value)`` of every reduced rate that does not vanish at the point."""
    policy = default_policy()
    rates = chart.rates_at()
    return [(v, rates[v]) for v in reduced if not policy.is_zero(rates[v])]


# =============================================================================================
# Jacobians
# =============================================================================================
def jacobian_at(rhs: Sequence, variables: Sequence, point: Mapping) -> sp.Matrix:
    r"""The exact Jacobian :math:`\partial F_i/\partial x_j` at ``point`` (each entry
    differentiated, evaluated and normalised by the zero policy).

    >>> x, y = sp.symbols("x y")
    >>> jacobian_at([x*y, sp.sin(x)], [x, y], {x: 0, y: 2})
    Matrix([
    [2, 0],
    [1, 0]])
    """
    policy = default_policy()
    point = dict(point)
    rows = []
    for f in rhs:
        row = []
        check()
        for v in variables:
            if not f.has(v):
                row.append(sp.S.Zero)
                continue
            # the other variables first: large fields collapse at the point
            others = {k: val for k, val in point.items() if k != v}
            row.append(policy.normalize(sp.diff(f.xreplace(others), v).xreplace(
                {v: point.get(v, v)})))
        rows.append(row)
    J = sp.Matrix(rows)
    bad = [e for e in J if e.has(sp.zoo, sp.nan, sp.oo)]
    if bad:
        raise ValueError(f"the field is not differentiable at the state in this chart "
                         f"(an entry of its Jacobian is {bad[0]})")
    return J


def chart_jacobian(chart: FieldChart) -> sp.Matrix:
    r"""The Jacobian of the chart's field at its point.  For an implicit form
    :math:`\dot x = g(x) + P(x)z`, :math:`M(x)z = F(x)`:

    .. math:: J = \partial_x(g + Pz)\big|_{z_0} + P_0\,M_0^{-1}
              \big(\partial_xF - \partial_x(M)z_0\big)

    (nothing is inverted symbolically: :math:`M_0` is the mass matrix at the point)."""
    if chart.implicit is None:
        return jacobian_at(chart.rhs, chart.variables, chart.point)
    imp, pt, xs = chart.implicit, chart.point, chart.variables
    z0 = chart.unknowns_at()
    rates = [imp.rates[v] for v in xs]
    Jg = jacobian_at([r.xreplace(z0) for r in rates], xs, pt)
    dF = jacobian_at(list(imp.forcing), xs, pt)
    if any(not default_policy().is_zero(z) for z in z0.values()):
        zv = sp.Matrix([z0[z] for z in imp.unknowns])
        dF -= jacobian_at(list(imp.mass_matrix * zv), xs, pt)
    M0 = _at_point(imp.mass_matrix, pt)
    dz = M0.LUsolve(dF)
    P0 = _at_point(imp.selection, pt)
    return (Jg + P0 * dz).applyfunc(default_policy().normalize)


def _at_point(M: sp.Matrix, point: dict) -> sp.Matrix:
    return M.xreplace(point).applyfunc(default_policy().normalize)


def tangent_restriction(J: sp.Matrix, variables: Sequence, DG: sp.Matrix) -> tuple:
    r"""The linear field restricted to :math:`T = \ker DG` (invariant relations
    :math:`G = 0`): with pivot variables :math:`x_p` (a non-singular minor of :math:`DG`)
    and the free ones :math:`x_f`, :math:`\delta x_p = S\,\delta x_f`,
    :math:`S = -DG_p^{-1}DG_f`, and

    .. math:: J_T = J_{ff} + J_{fp}S ,

    after checking that :math:`T` is invariant (:math:`DG\,J\,T = 0`).  Returns
    ``(J_T, free variables, pivot variables)``.

    >>> g1, g2, g3, w = sp.symbols("g1 g2 g3 w")
    >>> J = sp.Matrix([[0, w, 0], [-w, 0, 0], [0, 0, 0]])
    >>> tangent_restriction(J, [g1, g2, g3], sp.Matrix([[0, 0, 2]]))[0]
    Matrix([
    [ 0, w],
    [-w, 0]])
    """
    if DG.rows == 0:
        return J, tuple(variables), ()
    pivots = _pivots(DG)
    free = [j for j in range(len(variables)) if j not in pivots]
    P, Fr = DG.extract(list(range(DG.rows)), pivots), DG.extract(list(range(DG.rows)), free)
    S = -P.inv() * Fr
    T = sp.zeros(len(variables), len(free))
    for a, j in enumerate(free):
        T[j, a] = 1
    for b, p in enumerate(pivots):
        for a in range(len(free)):
            T[p, a] = S[b, a]
    leak = (DG * J * T).applyfunc(default_policy().normalize)
    if any(not default_policy().is_zero(e) for e in leak):
        raise ValueError("the relations G = 0 are not invariant under the linearised flow "
                         "(DG J T != 0); they cannot restrict the linearisation")
    JT = (J.extract(free, free) + J.extract(free, pivots) * S).applyfunc(
        default_policy().normalize)
    return JT, tuple(variables[j] for j in free), tuple(variables[p] for p in pivots)


def _pivots(DG: sp.Matrix) -> list[int]:
    """Columns of a non-singular maximal minor of ``DG`` (greedy, exact)."""
    chosen: list[int] = []
    policy = default_policy()
    for j in range(DG.cols):
        trial = chosen + [j]
        if policy.rank(DG.extract(list(range(DG.rows)), trial)) == len(trial):
            chosen = trial
        if len(chosen) == DG.rows:
            return chosen
    raise ValueError("the relations G = 0 are dependent at the state (DG not of full rank)")


