r"""Linearisation of a nonholonomic flow at a steady motion (relative equilibrium).

A *steady motion* is an equilibrium of the field reduced by the symmetries: the phase-space
field :math:`\dot x = F(x)` is split into the coordinates :math:`C` it never reads outside
their own rates (the *cyclic* coordinates: positions on the plane, heading, spin angle) and
the rest :math:`R`; the components :math:`F_R` depend on :math:`R` only, so they define the
reduced field on the quotient (Routh's reduction by ignorable coordinates; Borisov & Mamaev
(2015), §4 for the rolling bodies).  The state is steady when :math:`F_R = 0` there while the
cyclic coordinates may move.  Its linearisation is the exact Jacobian

.. math:: J = \partial F/\partial x\,\big|_{x_0}
          = \begin{pmatrix} J_{RR} & 0 \\ J_{CR} & J_{CC}\end{pmatrix},

block-triangular, so :math:`\det(\lambda - J) = \det(\lambda - J_{RR})\det(\lambda - J_{CC})`
with :math:`J_{CC}` nilpotent for kinematic rates (the zero eigenvalues of the cyclic
coordinates); the stability of the steady motion is decided by :math:`J_{RR}` (Lyapunov's
first method; Malkin (1952), Ch. IV, for the zero roots of relative equilibria).

Charts.  The field is taken on ``S.phase_space`` (:func:`phase_space_chart`) unless that chart
is singular at the state (a denominator vanishes: vertical spin in Z-X-Z Euler angles) or the
symmetry is only visible in the natural quasi-velocities (the sleigh's circular runs);
then :mod:`~geomech.mechanics.analysis.natural_chart` gives the field in natural variables
(body angular velocity and the Poisson vector).  A chart may carry invariant relations
:math:`G(x) = 0` (:math:`|\gamma|^2 = 1`; the configuration constraints of a system with
dependent coordinates): the linearisation is then restricted to the tangent space
:math:`\ker DG(x_0)` (:func:`tangent_restriction`) -- the one hook for systems with
holonomic constraints (``system.holonomic``, expressions in the coordinates that vanish).

>>> import geomech as gm, sympy as sp
>>> S = gm.examples.chaplygin_sleigh()
>>> V = sp.Symbol("V", positive=True)
>>> lin = linearize(S, {"x": 0, "y": 0, "phi": 0, "xdot": V, "phidot": 0})
>>> lin.cyclic
(x, y)
>>> lin.characteristic_polynomial()
lambda**4*(I*lambda + V*a*m)/I
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import sympy as sp

from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

__all__ = ["FieldChart", "Linearization", "linearize", "phase_state", "phase_space_chart",
           "cyclic_split", "steady_residuals", "steady_chart", "jacobian_at", "chart_jacobian",
           "tangent_restriction",
           "singular_factors", "numeric_values", "LAMBDA", "IMPLICIT_OPS"]

#: The eigenvalue variable of characteristic polynomials.
LAMBDA = sp.Symbol("lambda")
#: Above this size of M and F the field is used in mass-matrix form (never inverted
#: symbolically); the cyclic coordinates are then read off M and F (a superset of the
#: dependencies of the explicit field).
IMPLICIT_OPS = 20000


# =============================================================================================
# states
# =============================================================================================
def phase_state(system, state) -> dict:
    r"""``{phase-space coordinate: exact value}`` from a dict keyed by names or symbols.

    Every coordinate of ``system.phase_space`` must be given; a dependent velocity may be
    given too and must then satisfy the constraints; a configuration constraint of the
    system (``system.holonomic``) must vanish.  Floats become exact rationals.

    Raises
    ------
    TypeError
        ``state`` is not a mapping.
    ValueError
        A missing or unknown coordinate, or a value that violates a constraint (named).
    """
    if not isinstance(state, Mapping):
        raise TypeError(f"a state is a dict {{coordinate name: value}}, got "
                        f"{type(state).__name__}")
    P = system.phase_space
    by_name = {c.name: c for c in P.coords}
    dep = {v.name: v for v in system.dependent_velocities}
    out, extra = {}, {}
    for key, value in state.items():
        name = key.name if isinstance(key, sp.Symbol) else str(key)
        v = as_expr(value, context=f"the value of {name}")
        if name in by_name:
            out[by_name[name]] = v
        elif name in dep:
            extra[dep[name]] = v
        else:
            raise ValueError(f"{name!r} is not a coordinate of the phase space of "
                             f"{system.name}; they are {', '.join(by_name)}")
    missing = [n for n, c in by_name.items() if c not in out]
    if missing:
        raise ValueError(f"the state of {system.name} must give every phase-space coordinate; "
                         f"missing: {', '.join(missing)}")
    _check_constraints(system, out, extra)
    return {c: out[c] for c in P.coords}


def _check_constraints(system, point: dict, dependent: dict) -> None:
    """``ValueError`` naming the constraint a state violates (given dependent velocities,
    configuration constraints)."""
    policy = default_policy()
    for v, value in dependent.items():
        expected = system.dependent_solution[v].xreplace(point)
        if not policy.is_zero(value - expected):
            k = _constraint_index(system, v)
            raise ValueError(f"the state is not on the constraint manifold: constraint {k} "
                             f"({sp.sstr(system.constraints[k - 1])} = 0) gives {v} = "
                             f"{sp.sstr(sp.simplify(expected))}, not {sp.sstr(value)}")
    for k, g in enumerate(getattr(system, "holonomic", ()) or (), 1):
        r = as_expr(g).xreplace(point)
        if not policy.is_zero(r):
            raise ValueError(f"the state violates configuration constraint {k}: "
                             f"{sp.sstr(g)} = {sp.sstr(r)} instead of 0")


def _constraint_index(system, v) -> int:
    for k, f in enumerate(system.constraints, 1):
        if f.has(v):
            return k
    return 1


# =============================================================================================
# charts
# =============================================================================================
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


def singular_factors(chart: FieldChart) -> list[sp.Expr]:
    """Denominators of the field (bases of negative powers, arguments of ``tan``/``cot``)
    that vanish at the chart's point: where the chart is singular."""
    found = []
    policy = default_policy()
    exprs = list(chart.rates.values())
    if chart.implicit is not None:
        exprs += [*chart.implicit.mass_matrix, *chart.implicit.forcing]
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
            if not d.free_symbols & set(chart.variables):
                continue
            for f in sp.Mul.make_args(sp.factor_terms(d)):
                f = f.base if isinstance(f, sp.Pow) else f
                if f not in found and f.free_symbols & set(chart.variables) and \
                        policy.is_zero(f.xreplace(chart.point)):
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


# =============================================================================================
# numbers
# =============================================================================================
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


# =============================================================================================
# the linearisation
# =============================================================================================
class Linearization:
    r"""The exact linearisation of a system's flow at a steady motion.

    Attributes
    ----------
    system : NonholonomicSystem
    state : dict
        The state ``{phase-space coordinate: value}`` it was computed at.
    chart : str
        Which chart: ``"phase space"`` or ``"natural variables"`` (with ``chart_description``).
    variables : tuple of Symbol
        The coordinates of :attr:`matrix` (in a chart with relations: the free ones of the
        tangent space).
    matrix : sympy.Matrix
        The Jacobian :math:`\partial F/\partial x` at the state.
    cyclic : tuple of Symbol
        The cyclic coordinates (their rates never feed back).
    reduced_variables, reduced_matrix
        The reduced block :math:`J_{RR}` that decides the stability.
    parameters : dict
        Numeric values given at construction (used by :meth:`eigenvalues`, :meth:`stability`).
    """

    def __init__(self, system, state: dict, chart: FieldChart, matrix: sp.Matrix,
                 variables: tuple, reduced: tuple, cyclic: tuple, parameters=None,
                 notes: tuple = ()):
        self.system = system
        self.state = dict(state)
        self.chart = chart.name
        self.chart_description = chart.description
        self.variables = tuple(variables)
        self.matrix = matrix
        self.cyclic = tuple(cyclic)
        self.reduced_variables = tuple(reduced)
        idx = [self.variables.index(v) for v in reduced]
        self.reduced_matrix = matrix.extract(idx, idx)
        cidx = [self.variables.index(v) for v in cyclic]
        self._cyclic_block = matrix.extract(cidx, cidx)
        self.parameters = dict(parameters or {})
        self.notes = tuple(notes)

    # -- symbols ----------------------------------------------------------------------------
    @property
    def symbols(self) -> tuple:
        """The free symbols of :attr:`matrix`: parameters and the steady motion's constants."""
        return tuple(sorted(self.matrix.free_symbols, key=lambda s: s.name))

    # -- characteristic polynomial -------------------------------------------------------
    @cached_property
    def _reduced_charpoly(self) -> sp.Expr:
        J = self.reduced_matrix
        if J.rows == 0:
            return sp.S.One
        p = J.charpoly(LAMBDA).as_expr()
        return sp.collect(sp.expand(p), LAMBDA, default_policy().normalize)

    @cached_property
    def _cyclic_charpoly(self) -> sp.Expr:
        K = self._cyclic_block
        if K.rows == 0:
            return sp.S.One
        p = K.charpoly(LAMBDA).as_expr()
        return sp.collect(sp.expand(p), LAMBDA, default_policy().normalize)

    def characteristic_polynomial(self, factored: bool = True) -> sp.Expr:
        r""":math:`\det(\lambda - J)` of :attr:`matrix` in the symbol ``lambda``: the
        cyclic part times the reduced one; ``factored`` pulls out the zero roots."""
        from geomech.mechanics.analysis.stability_criteria import split_zero_roots

        p = self._cyclic_charpoly * self._reduced_charpoly
        if not factored:
            return sp.expand(p)
        z, rest = split_zero_roots(sp.expand(p), LAMBDA)
        rest = sp.collect(sp.expand(rest), LAMBDA, sp.factor)
        return LAMBDA**z * sp.factor_terms(rest)

    # -- numbers ----------------------------------------------------------------------------
    def numeric_matrix(self, parameters=None, reduced: bool = False) -> np.ndarray:
        """:attr:`matrix` (or the reduced block) as a float array, with values from
        ``parameters`` (by name), those given at construction and the system's defaults."""
        J = self.reduced_matrix if reduced else self.matrix
        vals = numeric_values(self.system, J.free_symbols, {**self.parameters,
                                                            **dict(parameters or {})})
        M = J.xreplace(vals).evalf(30)
        return np.array(M.tolist(), dtype=complex)

    def eigenvalues(self, parameters=None) -> np.ndarray:
        """Eigenvalues of :attr:`matrix` (numpy complex array, sorted by real part)."""
        ev = np.linalg.eigvals(self.numeric_matrix(parameters)) if self.matrix.rows else \
            np.zeros(0, complex)
        return ev[np.lexsort((ev.imag, ev.real))]

    # -- stability --------------------------------------------------------------------------
    @cached_property
    def _conditions(self):
        from geomech.mechanics.analysis.stability import stability_conditions

        return stability_conditions(self)

    def stability_conditions(self):
        """The conditions of stability (:func:`~geomech.mechanics.analysis.stability.
        stability_conditions`; computed once)."""
        return self._conditions

    def stability(self, parameters=None):
        """The verdict at numeric values (:func:`~geomech.mechanics.analysis.stability.
        stability_verdict`)."""
        from geomech.mechanics.analysis.stability import stability_verdict

        return stability_verdict(self, parameters)

    def __repr__(self) -> str:
        return (f"Linearization({self.system.name!r}, {self.chart}, {len(self.variables)} "
                f"variables, cyclic ({', '.join(map(str, self.cyclic))}))")


def linearize(system, state, parameters=None, chart: str = "auto") -> Linearization:
    r"""The exact linearisation of ``system`` at the steady motion ``state``.

    Parameters
    ----------
    system : NonholonomicSystem
    state : dict
        Every coordinate of ``system.phase_space`` by name -> value (numbers or sympy
        expressions; symbolic constants allowed).
    parameters : dict, optional
        Numeric values by name for :meth:`Linearization.eigenvalues` and
        :meth:`Linearization.stability` (default: the system's numeric defaults).
    chart : {"auto", "phase space", "natural"}
        ``"auto"``: the phase-space chart unless it is singular at the state or the state is
        steady only in natural variables.

    Raises
    ------
    ValueError
        The state is not on the constraint manifold, not steady (the reduced rate that does
        not vanish is named), or every chart is singular there.
    """
    point = phase_state(system, state)
    if chart not in ("auto", "phase space", "natural"):
        raise ValueError(f"chart must be 'auto', 'phase space' or 'natural', got {chart!r}")
    fc, notes = steady_chart(system, point, chart)
    R, C = cyclic_split(fc)
    J = chart_jacobian(fc)
    variables = fc.variables
    if fc.relations:
        DG = jacobian_at(fc.relations, fc.variables, fc.point)
        J, variables, pivots = tangent_restriction(J, fc.variables, DG)
        R = tuple(v for v in R if v in variables)
        C = tuple(v for v in C if v in variables)
        notes += (f"restricted to the tangent space of {', '.join(sp.sstr(g) + ' = 0' for g in fc.relations)} "
                  f"({', '.join(map(str, pivots))} eliminated)",)
    return Linearization(system, point, fc, J, variables, R, C, parameters, notes)


def steady_chart(system, point: dict, chart: str = "auto") -> tuple[FieldChart, tuple]:
    """The chart in which ``point`` (phase-space values) is steady and notes on the choice
    (see :func:`linearize`); ``ValueError`` naming the reduced equation that fails."""
    from geomech.mechanics.analysis.natural_chart import natural_chart

    if chart == "natural":
        fc = natural_chart(system, point)
        _require_steady(fc)
        return fc, ()
    fc = phase_space_chart(system, point)
    sing = singular_factors(fc)
    if not sing:
        try:
            fc.unknowns_at()
        except ValueError:
            sing = [sp.Symbol("det(M)")]
    if sing or chart == "auto" and steady_residuals(fc, cyclic_split(fc)[0]):
        why = (f"the phase-space chart is singular at the state ({sp.sstr(sing[0])} = 0)"
               if sing else "the state is steady only modulo the symmetry of the natural "
               "quasi-velocities")
        if chart == "auto" and getattr(system, "natural_frame", None):
            try:
                nat = natural_chart(system, point)
            except ValueError as exc:
                raise ValueError(f"{why}, and natural variables are not available: {exc}") \
                    from None
            if not steady_residuals(nat, cyclic_split(nat)[0]) or sing:
                _require_steady(nat)
                return nat, (f"{why}: linearised in {nat.description}",)
        if sing:
            raise ValueError(f"{why}; give the system a natural frame or use a chart regular "
                             "there")
    _require_steady(fc)
    return fc, ()


def _require_steady(fc: FieldChart) -> None:
    R, C = cyclic_split(fc)
    bad = steady_residuals(fc, R)
    if bad:
        v, r = bad[0]
        cyc = f" (cyclic coordinates {', '.join(map(str, C))} may move)" if C else ""
        raise ValueError(f"the state is not a steady motion: the reduced equation "
                         f"d{v}/dt = {sp.sstr(_short(r))} does not vanish there{cyc}")


def _short(e: sp.Expr) -> sp.Expr:
    e2 = sp.factor(sp.cancel(e)) if sp.count_ops(e) < 400 else e
    return e2 if sp.count_ops(e2) <= sp.count_ops(e) else e
