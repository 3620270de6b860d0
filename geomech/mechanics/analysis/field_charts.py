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
import functools
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import sympy as sp

from geomech.core.algebra.solve import adjugate_inverse
from geomech.core.budget import check, poll
from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy, numerically_zero
from geomech.mechanics.equations.first_variation import (
    field_at,
    field_jacobian,
    jacobian_of_mass_form,
)

__all__ = ["FieldChart", "phase_space_chart", "denominator_factors", "singular_factors",
           "cyclic_split",
           "symmetry_cyclic", "steady_residuals", "jacobian_at", "chart_jacobian",
           "mass_form_jacobian", "tangent_restriction", "tangent_frame", "DATA_OPS"]

#: Above this size of the Lagrangian and the constraints (operations) the phase-space field
#: is not formed: its values and Jacobian at a point come from the data
#: (:mod:`geomech.mechanics.equations.first_variation`) and its cyclic coordinates from the
#: symmetries.
DATA_OPS = 1000


@dataclass(frozen=True)
class FieldChart:
    r"""A field :math:`\dot x = F(x)` in a chart, at a point.

    ``rhs`` are its components, or ``None`` when the field is known only through the data of
    ``system`` (values and Jacobian at a point: :func:`~geomech.mechanics.equations.
    first_variation.field_at`, :func:`~geomech.mechanics.equations.first_variation.
    field_jacobian`).  ``seeds`` are the velocity-like variables from which the reduced set
    :math:`R` is grown (:func:`cyclic_split`); ``relations`` are invariant relations
    :math:`G(x) = 0` (restricted to their tangent space); ``dropped``: cyclic coordinates
    the chart has already left out (natural variables).

    ``mass``: a chart in mass-matrix form (natural variables of a large body): the last
    ``mass.rows`` components of ``rhs`` are :math:`f` in :math:`M(x)\dot z = f(x)` for
    the last ``mass.rows`` variables :math:`z` (the others are explicit), so
    :math:`M^{-1}f` -- for the rolling ellipsoid tens of thousands of operations -- is
    never formed: the rates and the Jacobian at the point solve with :math:`M(x_0)`
    (:meth:`rates_at`, :func:`chart_jacobian`).
    """

    name: str
    description: str
    variables: tuple
    rhs: tuple | None
    point: dict
    seeds: tuple
    relations: tuple = ()
    dropped: tuple = ()
    system: object = None
    split: tuple | None = None
    mass: sp.Matrix | None = None

    @property
    def rates(self) -> dict:
        """``{variable: rate}`` of an explicit chart (``{}`` for a chart from the data or in
        mass-matrix form)."""
        return {} if self.rhs is None or self.mass is not None else \
            dict(zip(self.variables, self.rhs))

    def dependencies(self) -> dict:
        """``{variable: the variables its rate reads}`` of a chart with components (in
        mass-matrix form a rate of :math:`z = M^{-1}f` reads every entry of :math:`M` and
        :math:`f`)."""
        vs = set(self.variables)
        deps = {v: as_expr(r).free_symbols & vs for v, r in zip(self.variables, self.rhs)}
        if self.mass is not None:
            k = len(self.variables) - self.mass.rows
            shared = set().union(*(deps[v] for v in self.variables[k:]),
                                 self.mass.free_symbols & vs)
            deps.update({v: shared for v in self.variables[k:]})
        return deps

    def rates_at(self) -> dict:
        """``{variable: rate at the point}`` (exact; from the data remembered per system and
        point; in mass-matrix form :math:`M(x_0)^{-1}f(x_0)`, solved exactly)."""
        if self.mass is not None:
            k = len(self.variables) - self.mass.rows
            at = [as_expr(r).xreplace(self.point) for r in self.rhs]
            rates = jacobian_of_mass_form(sp.Matrix(at[:k]), self.mass.xreplace(self.point),
                                          sp.Matrix(at[k:]))
            return dict(zip(self.variables, rates))
        if self.rhs is None:
            try:
                memo = _RATES.setdefault(self.system, {})
            except TypeError:
                memo = {}
            key = frozenset(self.point.items())
            if key not in memo:
                memo[key] = field_at(self.system, self.point)
            return dict(memo[key])
        return {v: r.xreplace(self.point) for v, r in self.rates.items()}


_RATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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
    velocities = tuple(c for c in P.coords if c in set(system.manifold.velocities))
    # the configuration constraints h(q) = 0; their rates dh.qdot vanish identically on the
    # phase space (dh is among the constraints), so they add no relation
    rel = tuple(as_expr(g) for g in (getattr(system, "holonomic", ()) or ()))
    desc = f"the phase-space coordinates of {system.name} ({', '.join(map(str, P.coords))})"
    size = count_ops(system.lagrangian) + sum(count_ops(f) for f in system.constraints)
    if size <= DATA_OPS:
        rhs = tuple(system.vector_field().components)
        fc = FieldChart("phase space", desc, tuple(P.coords), rhs, {}, velocities,
                        rel)
    else:
        fc = FieldChart("phase space", desc + " (field from the data at the point)",
                        tuple(P.coords), None, {}, velocities, rel,
                        system=system)
    return dataclasses.replace(fc, split=cyclic_split(fc))


def denominator_factors(exprs, variables) -> list[sp.Expr]:
    """Factors (depending on ``variables``) of the denominators of ``exprs``: bases of
    negative powers and the ``cos``/``sin`` under ``tan``/``sec``/``cot``/``csc`` -- where a
    chart or a right-hand side is singular.

    >>> x, y = sp.symbols("x y")
    >>> denominator_factors([x/(y*(x - 1)), sp.tan(y)], [x, y])
    [y, x - 1, cos(y)]

    Kept for the last fields met (least recently used first out): the report's steady
    motions, linearisation and density search read the factors of one field.
    """
    return list(_denominator_factors(tuple(as_expr(e) for e in exprs), tuple(variables)))


@functools.lru_cache(maxsize=64)
def _denominator_factors(exprs: tuple, variables: tuple) -> tuple:
    """:func:`denominator_factors` (a tuple)."""
    vs = set(variables)
    out: list[sp.Expr] = []
    seen: set = set()         # a repeated sub-tree adds nothing: its factors are in already
    for comp in exprs:
        todo = [comp]
        while todo:                       # the preorder of sympy's preorder_traversal
            p = todo.pop()
            if p in seen:
                continue
            seen.add(p)
            todo.extend(reversed(p.args))
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
    return tuple(out)


def singular_factors(chart: FieldChart) -> list[sp.Expr]:
    """Denominator factors of the field (:func:`denominator_factors`, through :math:`M` and
    :math:`F` for a mass-matrix form) that vanish at the chart's point: where the chart is
    singular."""
    exprs = list(chart.rates.values())
    if chart.rhs is None:
        exprs += [*chart.system.constraint_matrix, *chart.system.constraint_affine]
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
    kinematic rates).  For a chart from the data the cyclic coordinates are those whose
    shift is a symmetry (:func:`symmetry_cyclic`).

    >>> import geomech as gm
    >>> S = gm.examples.rolling_disk()
    >>> R, C = cyclic_split(phase_space_chart(S, {}))
    >>> C
    (x, y, psi, phi)
    """
    if chart.split is not None:
        return chart.split
    if chart.rhs is None:
        C = symmetry_cyclic(chart.system)
        return tuple(v for v in chart.variables if v not in C), C
    deps = chart.dependencies()
    reduced: list = []
    todo = list(chart.seeds)
    while todo:
        v = todo.pop()
        if v not in reduced:
            reduced.append(v)
            todo += [w for w in chart.variables if w not in reduced and w in deps[v]]
    R = tuple(v for v in chart.variables if v in reduced)
    return R, tuple(v for v in chart.variables if v not in reduced)


def symmetry_cyclic(system) -> tuple:
    r"""The coordinates whose shift is a symmetry of the flow: first the translations
    :math:`u = \partial_c`, then :math:`\partial_c` combined with a rotation
    :math:`\mp y\partial_x \pm x\partial_y` of two translations, each satisfying the
    strengthened Theorem 3 (:func:`~geomech.mechanics.analysis.symmetry.check_symmetry`)
    with a lift to the phase space that moves only :math:`c` and the coordinates found
    before.  Then :math:`\tilde u(F^r) = F(\tilde u^r) = 0` for every other rate
    :math:`F^r`, so :math:`\partial_c F^r = 0`: :math:`c` is cyclic (by induction).

    >>> import geomech as gm
    >>> symmetry_cyclic(gm.examples.chaplygin_sleigh())
    (x, y)
    """
    N = system.manifold
    tn = _DataOnTN.of(system)
    translations = [c for c in N.coords if _is_cyclic_shift(system, N.vector_field({c: 1}),
                                                           c, [], tn)]
    known = list(translations)
    for c in [c for c in N.coords if c not in known]:
        if any(_is_cyclic_shift(system, u, c, known, tn)
               for u in _shift_candidates(N, c, translations)[1:]):
            known.append(c)
    return tuple(c for c in N.coords if c in known)


def _is_cyclic_shift(system, u, c, known: list, tn: _DataOnTN | None) -> bool:
    """``u`` passes Theorem 3 and its lift moves only ``c`` and ``known`` (the identities on
    :math:`TN` first, :meth:`_DataOnTN.invariant`; then the random-point filter)."""
    from geomech.lie.prolongation import prolong
    from geomech.mechanics.analysis.symmetry import check_symmetry

    poll()
    exact = tn.invariant(u) if tn is not None else None
    if exact is False or exact is None and not _probably_symmetry(system, u):
        return False
    lift = _lift_on_phase_space(system, u) if exact is True else prolong(
        u, system.phase_space, system.dependent_solution).components
    if any(v not in known and v != c and not default_policy().is_zero(e)
           for v, e in zip(system.phase_space.coords, lift)):
        return False
    return exact is True or check_symmetry(system, u, definitive=False).theorem3


def _lift_on_phase_space(system, u) -> list:
    r"""The components of the lift of a symmetry ``u`` (Theorem 3 holds: the lift is tangent
    to :math:`\mathcal M`) on the phase space :math:`(q, s)`, :math:`s` the independent
    velocities: :math:`u^i` on :math:`q^i` and, :math:`\dot q = \Phi(q, s)` with
    :math:`\Phi_{i_a} = s_a`, :math:`\sigma_a = \sum_j \partial_j u^{i_a}\,\Phi_j` (the rows
    of :func:`~geomech.lie.prolongation.prolong` on :math:`\mathcal M` for the independent
    velocities).  The dependent velocities :math:`\Phi_j` are substituted only where a
    coefficient :math:`\partial_j u^{i_a}` is non-zero: a shift of coordinates needs none
    (the Whipple bicycle's constraints are never solved for its cyclic coordinates)."""
    N = system.manifold
    comps = list(u.components)
    out = []
    for v in system.phase_space.coords:
        if v in N.coords:
            out.append(comps[N.index(v)])
            continue
        i = N.velocities.index(v)
        terms = [(sp.diff(comps[i], q), qd) for q, qd in zip(N.coords, N.velocities)]
        out.append(system.restricted(sp.Add(*[a * qd for a, qd in terms if a != 0])))
    return out


class _DataOnTN:
    r"""The Lagrangian and the constraints in symengine with their first derivatives on
    :math:`TN` (computed once per :func:`symmetry_cyclic`), to decide Theorem 3 for many
    candidate fields before any restriction to :math:`\mathcal M` (which solves the
    constraints: minutes for the Whipple bicycle)."""

    def __init__(self, se, system):
        N = system.manifold
        self.se = se
        self.variables = (*N.coords, *N.velocities)
        data = [as_expr(system.lagrangian), *map(as_expr, system.constraints)]
        self.symbols = {s.name: s for e in (*data, *self.variables) for s in e.free_symbols}
        sv = [se.sympify(x) for x in self.variables]
        self.gradients = [{x: d for x, d in zip(self.variables, (se.sympify(f).diff(v)
                                                                  for v in sv)) if d != 0}
                          for f in data]

    @classmethod
    def of(cls, system) -> _DataOnTN | None:
        """``None`` without symengine or with forces (the general test decides)."""
        from geomech.core.kernel import symengine_for
        from geomech.mechanics.analysis.common import active_forces

        data = [as_expr(system.lagrangian), *map(as_expr, system.constraints)]
        se = symengine_for(data)
        if se is None or active_forces(system) is not None:
            return None
        return cls(se, system)

    def invariant(self, u) -> bool | None:
        r"""``True`` when :math:`\tilde u(L)` and every :math:`\tilde u(f_\mu)` expand to
        0 (exact; then :math:`\tilde u(f_\mu)|_{\mathcal M} = 0` too), ``False`` when
        :math:`\tilde u(L)` is non-zero at a random exact point (40 digits, as
        :func:`~geomech.core.zero.numerically_zero`: certain), ``None``
        otherwise."""
        from geomech.lie.prolongation import prolong

        se = self.se
        field = {x: se.sympify(e) for x, e in zip(self.variables, prolong(u).components)
                 if e != 0}

        def image(grad: dict):
            return se.expand(sum((field[x] * d for x, d in grad.items() if x in field),
                                 se.Integer(0)))

        uL = image(self.gradients[0])
        if uL != 0:
            return None if numerically_zero(uL, 2, self.symbols) else False
        return True if all(image(g) == 0 for g in self.gradients[1:]) else None


def _probably_symmetry(system, u) -> bool:
    r"""The random-point filter of Theorem 3 (``False`` is certain): :math:`\tilde u(L)` and
    :math:`\tilde u(f_\mu)|_{\mathcal M}` vanish at random points."""
    from geomech.lie.prolongation import prolong
    from geomech.mechanics.analysis.common import restrict

    lift = prolong(u)
    if not _probably_zero(lift(system.lagrangian, normalize=False)):
        return False
    return all(poll() or _probably_zero(restrict(system, lift(f, normalize=False)))
               for f in system.constraints)


def _probably_zero(e: sp.Expr) -> bool:
    """:func:`~geomech.core.zero.numerically_zero` at 2 points, evaluated by symengine when
    it carries ``e`` (the same 40 digits; the rattleback's restricted constraints: 0.1 s
    instead of 6 s in sympy's ``evalf``)."""
    from geomech.core.kernel import symengine_for

    e = as_expr(e)
    se = symengine_for([e])
    if se is None:
        return numerically_zero(e, 2)
    return numerically_zero(se.sympify(e), 2, {s.name: s for s in e.free_symbols})


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
    """The Jacobian of the chart's field at its point: of the components, from the data
    of the system (:func:`~geomech.mechanics.equations.first_variation.field_jacobian`, no
    field formed) or of a chart in mass-matrix form (:func:`mass_form_jacobian`)."""
    if chart.rhs is None:
        return field_jacobian(chart.system, chart.point)
    if chart.mass is not None:
        return mass_form_jacobian(chart)
    return jacobian_at(chart.rhs, chart.variables, chart.point)


def mass_form_jacobian(chart: FieldChart) -> sp.Matrix:
    r"""The exact Jacobian at the point of a chart in mass-matrix form,
    :math:`\dot y = g(x)`, :math:`M(x)\dot z = f(x)`: differentiating
    :math:`M\dot z = f` at :math:`x_0`,

    .. math:: \frac{\partial\dot z}{\partial x} = M(x_0)^{-1}\Big(\frac{\partial f}
              {\partial x} - \frac{\partial M}{\partial x}\,\dot z_0\Big),

    the last term absent at a steady state (:math:`\dot z_0 = 0`).  Only :math:`g, f, M`
    are differentiated and evaluated at the point (:func:`jacobian_at`); :math:`M(x_0)`
    is solved exactly (:func:`~geomech.mechanics.equations.first_variation.
    jacobian_of_mass_form`).

    >>> x, z, k = sp.symbols("x z k")
    >>> fc = FieldChart("", "", (x, z), (z, -k*x), {x: 0, z: 0}, (z,),
    ...                 mass=sp.Matrix([[1 + x**2]]))
    >>> mass_form_jacobian(fc)
    Matrix([
    [ 0, 1],
    [-k, 0]])
    """
    k = len(chart.variables) - chart.mass.rows
    J = jacobian_at(chart.rhs, chart.variables, chart.point)
    rates = chart.rates_at()
    z0 = [rates[v] for v in chart.variables[k:]]
    R = J[k:, :]
    if any(not default_policy().is_zero(z) for z in z0):
        Mz = [sp.Add(*[chart.mass[i, j] * z0[j] for j in range(len(z0))])
              for i in range(chart.mass.rows)]
        R = R - jacobian_at(Mz, chart.variables, chart.point)
    return jacobian_of_mass_form(J[:k, :], chart.mass.xreplace(chart.point), R)


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
    policy = default_policy()
    # nested radicals at the point (Staude's rotations of the heavy top): the normal form
    # of each entry runs to tens of thousands of operations; the sums are kept as they are
    nested = any(nested_radicals(e) for e in (*J, *DG))
    free, pivots, S, T = tangent_frame(len(variables), DG, normal=not nested)
    finish = (lambda e: e) if nested else policy.normalize
    leak = _sparse_product(_sparse_product(DG, J), T).applyfunc(finish)
    if any(not (nested and formally_zero(e)) and not policy.is_zero(e) for e in leak):
        raise ValueError("the relations G = 0 are not invariant under the linearised flow "
                         "(DG J T != 0); they cannot restrict the linearisation")
    # only the entries the pivots change are normalised again (large fields: the bicycle)
    JT = J.extract(free, free)
    corr = _sparse_product(J.extract(free, pivots), S)
    for i in range(JT.rows):
        for j in range(JT.cols):
            if corr[i, j] != 0:
                JT[i, j] = finish(JT[i, j] + corr[i, j])
    return JT, tuple(variables[j] for j in free), tuple(variables[p] for p in pivots)


def tangent_frame(n: int, DG: sp.Matrix, normal: bool = True
                  ) -> tuple[list, list, sp.Matrix, sp.Matrix]:
    r"""``(free, pivots, S, T)`` for :math:`T = \ker DG` in :math:`n` variables: pivot
    columns :math:`p` (a non-singular minor of :math:`DG`), the free ones :math:`f`,
    :math:`S = -DG_p^{-1}DG_f` and the basis :math:`T` (:math:`\delta x = T\,\delta x_f`)
    of :func:`tangent_restriction` (``normal``: the inverse of the pivot minor in the zero
    policy's normal form; else, for one relation, the plain quotient).

    >>> tangent_frame(2, sp.Matrix([[0, 2]]))[:2]
    ([0], [1])
    """
    pivots = _pivots(DG)
    free = [j for j in range(n) if j not in pivots]
    P, Fr = DG.extract(list(range(DG.rows)), pivots), DG.extract(list(range(DG.rows)), free)
    if P.shape == (1, 1) and not normal:
        Pinv = sp.Matrix([[1 / P[0, 0]]])       # non-zero: a pivot of the rank test
    else:
        Pinv, _ = adjugate_inverse(P)
    if Pinv is None:
        raise ValueError("the invariant relations have a singular pivot minor")
    S = -Pinv * Fr
    T = sp.zeros(n, len(free))
    for a, j in enumerate(free):
        T[j, a] = 1
    for b, p in enumerate(pivots):
        for a in range(len(free)):
            T[p, a] = S[b, a]
    return free, pivots, S, T


def nested_radicals(expr) -> bool:
    r"""Whether ``expr`` has a radical of a radical, :math:`\sqrt{a\sqrt b}` (sympy writes
    :math:`b^{1/4}`): the angular velocity :math:`\Omega = \sqrt{mg|u|}` of Staude's
    permanent rotations of the heavy top (:func:`~geomech.examples.bodies.staude_families`),
    whose exact normal forms are too large to be formed entry by entry.

    >>> x = sp.Symbol("x", positive=True)
    >>> nested_radicals(sp.sqrt(1 + sp.sqrt(x))), nested_radicals(sp.sqrt(x) + 1)
    (True, False)
    """
    def radical(e) -> bool:
        return e.is_Pow and e.exp.is_Rational and not e.exp.is_Integer

    return any(radical(e) and (e.exp.q > 2 or any(radical(a) for a in sp.preorder_traversal(
        e.base))) for e in sp.preorder_traversal(as_expr(expr)))


def formally_zero(expr) -> bool:
    r"""Whether ``expr`` vanishes as a rational function with every radical replaced by an
    independent symbol (sufficient for zero: an identity of the free field holds at every
    value of the radicals; ``False`` decides nothing).

    >>> x = sp.Symbol("x", positive=True)
    >>> formally_zero(sp.sqrt(x)/(1 + sp.sqrt(x)) - 1 + 1/(1 + sp.sqrt(x)))
    True
    """
    e = as_expr(expr)
    roots = {a: sp.Dummy() for a in e.atoms(sp.Pow) if not a.exp.is_Integer}
    return default_policy().is_zero(sp.together(e.xreplace(roots)))


def _sparse_product(A: sp.Matrix, B: sp.Matrix) -> sp.Matrix:
    """``A B`` summing only the products of non-zero entries (large entries times zeros are
    not formed)."""
    return sp.Matrix(A.rows, B.cols, lambda i, j: sp.Add(*[
        A[i, k] * B[k, j] for k in range(A.cols) if A[i, k] != 0 and B[k, j] != 0]))


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


