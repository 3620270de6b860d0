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

Charts.  The field is taken on ``S.phase_space``
(:func:`~geomech.mechanics.analysis.field_charts.phase_space_chart`) unless that chart
is singular at the state (a denominator vanishes: vertical spin in Z-X-Z Euler angles) or the
symmetry is only visible in the natural quasi-velocities (the sleigh's circular runs);
then :mod:`~geomech.mechanics.analysis.natural_chart` gives the field in natural variables
(body angular velocity and the Poisson vector).  A chart may carry invariant relations
:math:`G(x) = 0` (:math:`|\gamma|^2 = 1`; the configuration constraints of a system with
dependent coordinates): the linearisation is then restricted to the tangent space
:math:`\ker DG(x_0)` (:func:`~geomech.mechanics.analysis.field_charts.tangent_restriction`)
-- the one hook for systems with
holonomic constraints (``system.holonomic``, expressions in the coordinates that vanish).

>>> import geomech as gm, sympy as sp
>>> S = gm.examples.chaplygin_sleigh()
>>> V = sp.Symbol("V", positive=True)
>>> lin = linearize(S, {"x": 0, "y": 0, "phi": 0, "xdot": V, "phidot": 0})
>>> lin.cyclic
(x, y)
>>> lin.characteristic_polynomial()
lambda**4*(lambda + V*a*m/I)
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import sympy as sp

from geomech.core.algebra.solve import adjugate_inverse
from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.common import numeric_values
from geomech.mechanics.analysis.field_charts import (
    FieldChart,
    chart_jacobian,
    cyclic_split,
    jacobian_at,
    phase_space_chart,
    singular_factors,
    steady_residuals,
    tangent_frame,
    tangent_restriction,
)
from geomech.mechanics.analysis.stability_criteria import LAMBDA, split_zero_roots
from geomech.mechanics.equations.first_variation import (
    energy_gradient_at,
    field_jacobian_mass_form,
    jacobian_of_mass_form,
)

__all__ = ["Linearization", "linearize", "phase_state", "steady_chart"]


# =============================================================================================
# states
# =============================================================================================
def phase_state(system, state) -> dict:
    r"""``{phase-space coordinate: exact value}`` from a dict keyed by names or symbols.

    Every coordinate of ``system.phase_space`` must be given, except the dependent
    coordinates of configuration constraints (``system.holonomic``), solved by
    ``system.complete_state`` when omitted; a dependent velocity may be given too and must
    then satisfy the constraints; the configuration constraints must vanish.  Floats become
    exact rationals.

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
    implicit = {c.name for c in getattr(system, "dependent_coordinates", ())}
    if missing and set(missing) <= implicit:
        # dependent coordinates defined implicitly by h(q) = 0: solved (exactly if possible)
        out = dict(system.complete_state(out))
    elif missing:
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
    mass_form : tuple or None
        For a field from the data (heavy systems: the Whipple bicycle), :math:`(E, A)` with
        :math:`E\,J_{RR} = A`, :math:`E = \operatorname{diag}(1, M)`, :math:`M` the reduced
        mass matrix: small where :math:`J_{RR}` is a large fraction; numbers are put in
        before the inverse is formed (:meth:`reduced_matrix_at`, :meth:`numeric_matrix`).
    """

    def __init__(self, system, state: dict, chart: FieldChart, matrix: sp.Matrix,
                 variables: tuple, reduced: tuple, cyclic: tuple, parameters=None,
                 notes: tuple = (), mass_form: tuple | None = None,
                 tangent: tuple | None = None):
        lazy = isinstance(matrix, _LazyJacobian)
        if not isinstance(chart, FieldChart) or not (lazy or isinstance(matrix, sp.MatrixBase)):
            raise TypeError("a Linearization is made by S.linearize(state) (chart: a "
                            f"FieldChart, matrix: a sympy Matrix; got {type(chart).__name__}, "
                            f"{type(matrix).__name__})")
        self.system = system
        self.state = dict(state)
        self.chart = chart.name
        self.chart_description = chart.description
        self.variables = tuple(variables)
        self._matrix = matrix
        self.cyclic = tuple(cyclic)
        self.reduced_variables = tuple(reduced)
        self.parameters = dict(parameters or {})
        self.notes = tuple(notes)
        self._tangent = tangent       # (chart variables, chart point, DG) of a chart
        idx = [self.variables.index(v) for v in reduced]
        self.mass_form = _reduced_mass_form(mass_form, idx)

    # -- the matrix (formed on first use when a mass-matrix form stands for it) -------------
    @cached_property
    def matrix(self) -> sp.Matrix:
        """The Jacobian :math:`J` in :attr:`variables` (exact)."""
        m = self._matrix
        return m.matrix() if isinstance(m, _LazyJacobian) else m

    @cached_property
    def reduced_matrix(self) -> sp.Matrix:
        """The reduced block :math:`J_{RR}`."""
        idx = [self.variables.index(v) for v in self.reduced_variables]
        return self.matrix.extract(idx, idx)

    @cached_property
    def _cyclic_block(self) -> sp.Matrix:
        cidx = [self.variables.index(v) for v in self.cyclic]
        return self.matrix.extract(cidx, cidx)

    # -- symbols ----------------------------------------------------------------------------
    @property
    def symbols(self) -> tuple:
        """The free symbols of :attr:`matrix`: parameters and the steady motion's constants."""
        return tuple(sorted(self.matrix.free_symbols, key=lambda s: s.name))

    @cached_property
    def energy_accounts_for_a_zero_root(self) -> bool | None:
        r"""Whether the energy integral accounts for a zero root: :math:`dE \ne 0` at the
        state and :math:`dE\,J_{RR} = 0` (a left null vector; exact).  ``None`` when the
        energy is not an integral (forces, affine constraints) or the chart is not the
        phase space."""
        sys_ = self.system
        forces = getattr(sys_, "forces", None)
        if self.chart != "phase space" or getattr(sys_, "is_affine", False) or (
                forces is not None and any(f != 0 for f in forces)):
            return None
        policy = default_policy()
        if self.mass_form is None:
            dE = jacobian_at([sys_.energy()], self.reduced_variables, self.state)
            if all(policy.is_zero(e) for e in dE):
                return False
            return all(policy.is_zero(e) for e in dE * self.reduced_matrix)
        # heavy systems: dE from the data, and dE E^-1 A = 0 with the small mass form

        row = energy_gradient_at(sys_, self.state)
        coords = list(sys_.phase_space.coords)
        dE = sp.Matrix([[row[coords.index(v)] for v in self.reduced_variables]])
        if all(policy.is_zero(e) for e in dE):
            return False
        E, A = self.mass_form
        y = jacobian_of_mass_form(sp.zeros(0, 1), E.T, dE.T).T
        return all(policy.is_zero(policy.normalize(e)) for e in y * A)

    def zero_root_integrals(self, parameters=None) -> tuple:
        r"""Names of the first integrals that account for zero roots of :math:`J_{RR}`: the
        integrals :math:`F` of the system's algebraic form in natural variables
        (``natural_frame["algebraic"]["integrals"]``, ``{name: expression}``) whose
        differential on the reduced variables -- restricted to the tangent space of the
        chart's relations, :math:`dF_f + dF_pS` -- is a non-zero left null vector,
        :math:`dF\,J_{RR} = 0` (exact; at the numeric values of ``parameters`` -- by name,
        with those given at construction and the system's defaults -- when given).  Empty
        in other charts (see :attr:`energy_accounts_for_a_zero_root`)."""
        nat = getattr(self.system, "natural_frame", None) or {}
        integrals = (nat.get("algebraic") or {}).get("integrals") or {}
        if self.chart != "natural variables" or not integrals or self._tangent is None:
            return ()
        variables, point, DG = self._tangent
        by_name = {v.name: v for v in variables}
        policy = default_policy()
        J, vals = self.reduced_matrix, {}
        if parameters is not None:      # the numbers first: exact, and small
            J = self.reduced_matrix_at(parameters)
            vals = numeric_values(self.system, self.reduced_matrix.free_symbols |
                                  DG.free_symbols, {**self.parameters, **dict(parameters)})
            point = {k: policy.normalize(as_expr(v).xreplace(vals)) for k, v in point.items()}
            DG = DG.xreplace(vals).applyfunc(policy.normalize)
        out = []
        for name, F in integrals.items():
            F = as_expr(F)
            F = F.xreplace({s: by_name[s.name] for s in F.free_symbols if s.name in by_name})
            F = F.xreplace({s: v for s, v in vals.items() if s not in variables})
            dF = jacobian_at([F], variables, point)
            if DG.rows:
                free, pivots, S, _ = tangent_frame(len(variables), DG)
                dF = dF.extract([0], free) + dF.extract([0], pivots) * S
                names = [variables[j] for j in free]
            else:
                names = list(variables)
            row = sp.Matrix([[dF[0, names.index(v)] for v in self.reduced_variables]])
            if all(policy.is_zero(e) for e in row):
                continue
            if all(policy.is_zero(policy.normalize(e)) for e in row * J):
                out.append(name)
        return tuple(out)

    # -- characteristic polynomial -------------------------------------------------------
    @cached_property
    def _reduced_charpoly(self) -> sp.Expr:
        return _charpoly(self.reduced_matrix)

    @cached_property
    def _cyclic_charpoly(self) -> sp.Expr:
        return _charpoly(self._cyclic_block)

    def characteristic_polynomial(self, factored: bool = True) -> sp.Expr:
        r""":math:`\det(\lambda - J)` of :attr:`matrix` in the symbol ``lambda``: the
        cyclic part times the reduced one; ``factored`` pulls out the zero roots."""
        p = self._cyclic_charpoly * self._reduced_charpoly
        if not factored:
            return sp.expand(p)
        z, rest = split_zero_roots(sp.expand(p), LAMBDA)
        rest = sp.collect(sp.expand(rest), LAMBDA, sp.factor)
        return LAMBDA**z * sp.factor_terms(rest)

    # -- numbers ----------------------------------------------------------------------------
    def numeric_matrix(self, parameters=None, reduced: bool = False) -> np.ndarray:
        """:attr:`matrix` (or the reduced block) as a float array, with values from
        ``parameters`` (by name), those given at construction and the system's defaults
        (through the mass-matrix form when there is one: the small matrices are evaluated,
        then solved)."""
        if self.mass_form is not None and reduced:
            E, A = (np.array(m.tolist(), dtype=complex) for m in self._mass_form_at(
                parameters, lambda e: e.evalf(30)))
            return np.linalg.solve(E, A)
        J = self.reduced_matrix if reduced else self.matrix
        vals = numeric_values(self.system, J.free_symbols, {**self.parameters,
                                                            **dict(parameters or {})})
        M = J.xreplace(vals).evalf(30)
        return np.array(M.tolist(), dtype=complex)

    def reduced_matrix_at(self, parameters=None) -> sp.Matrix:
        """The reduced block :math:`J_{RR}` at numeric values (exact; from ``parameters`` by
        name, those given at construction and the system's defaults): through the
        mass-matrix form when there is one (the values put in before the inverse is
        formed: for the Whipple bicycle small numbers instead of large fractions)."""
        if self.mass_form is None:
            vals = numeric_values(self.system, self.reduced_matrix.free_symbols,
                                  {**self.parameters, **dict(parameters or {})})
            return self.reduced_matrix.xreplace(vals).applyfunc(default_policy().normalize)
        E, A = self._mass_form_at(parameters, default_policy().normalize)
        exact = all(e.is_Rational for e in (*E, *A))
        return jacobian_of_mass_form(sp.zeros(0, A.cols), E, A, normalize=exact)

    def _mass_form_at(self, parameters, finish) -> tuple:
        E, A = self.mass_form
        vals = numeric_values(self.system, E.free_symbols | A.free_symbols,
                              {**self.parameters, **dict(parameters or {})})
        return E.xreplace(vals).applyfunc(finish), A.xreplace(vals).applyfunc(finish)

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


def _reduced_mass_form(form, idx: list) -> tuple | None:
    r"""The mass-matrix form :math:`(E_{RR}, A_{RR})` of the reduced block, when :math:`E`
    does not couple the reduced variables to the cyclic ones (else ``None``)."""
    if form is None:
        return None
    E, A = form
    rest = [i for i in range(E.rows) if i not in idx]
    if any(E[i, j] != 0 or E[j, i] != 0 for i in idx for j in rest):
        return None
    return E.extract(idx, idx), A.extract(idx, idx)


def _charpoly(M: sp.Matrix) -> sp.Expr:
    r""":math:`\det(\lambda - M)` with normalised coefficients (1 for an empty block)."""
    if M.rows == 0:
        return sp.S.One
    p = M.charpoly(LAMBDA).as_expr()
    return sp.collect(sp.expand(p), LAMBDA, default_policy().normalize)


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
    key = _memo_key(point, chart, parameters)
    memo = _memo(system)
    if key is not None and key in memo:
        return memo[key]
    lin = _linearize_at(system, point, chart, parameters)
    if key is not None and lin.mass_form is not None:    # heavy systems: remembered
        memo[key] = lin
    return lin


_LINEARIZATIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _memo(system) -> dict:
    try:
        return _LINEARIZATIONS.setdefault(system, {})
    except TypeError:
        return {}


def _memo_key(point: dict, chart: str, parameters) -> tuple | None:
    try:
        key = (frozenset(point.items()), chart, frozenset(dict(parameters or {}).items()))
        hash(key)
    except TypeError:
        return None
    return key


def _linearize_at(system, point: dict, chart: str, parameters) -> Linearization:
    """:func:`linearize` at a checked phase-space point."""
    fc, notes = steady_chart(system, point, chart)
    R, C = cyclic_split(fc)
    J, form = _jacobian_and_mass_form(fc, system)
    variables = fc.variables
    if fc.relations:
        DG = jacobian_at(fc.relations, fc.variables, fc.point)
        lazy = _restricted_lazily(J, fc.variables, DG) if isinstance(J, _LazyJacobian) \
            else None
        if lazy is None:
            J = J.matrix() if isinstance(J, _LazyJacobian) else J
            J, variables, pivots = tangent_restriction(J, fc.variables, DG)
        else:
            J, variables, pivots = lazy
        form = _restricted_mass_form(form, fc.variables, variables, pivots, DG)
        R = tuple(v for v in R if v in variables)
        C = tuple(v for v in C if v in variables)
        rels = ", ".join(_short_relation(g) + " = 0" for g in fc.relations)
        notes += (f"restricted to the tangent space of {rels} "
                  f"({', '.join(map(str, pivots))} eliminated)",)
    DG = jacobian_at(fc.relations, fc.variables, fc.point) if fc.relations else \
        sp.zeros(0, len(fc.variables))
    return Linearization(system, point, fc, J, variables, R, C, parameters, notes,
                         mass_form=form, tangent=(fc.variables, dict(fc.point), DG))


def _short_relation(g: sp.Expr) -> str:
    """A relation for a note (long ones elided)."""
    text = sp.sstr(g)
    return text if len(text) <= 120 else f"h(q) [{sp.count_ops(g)} operations]"


def _jacobian_and_mass_form(fc: FieldChart, system=None) -> tuple:
    r"""The chart's Jacobian and, for a chart from the data -- or a phase-space field larger
    than :data:`JACOBIAN_OPS` (the three-link Chaplygin snake: 15870 operations, whose
    exact Jacobian takes a minute while the mass-matrix form takes a second) -- its
    mass-matrix form :math:`(E, A)`, :math:`EJ = A`, :math:`E = \operatorname{diag}(1, M)`
    (the reduced mass matrix on the velocities; :func:`~geomech.mechanics.equations.
    first_variation.field_jacobian_mass_form`), else ``None``."""
    if fc.rhs is not None and not _large_phase_field(fc, system):
        return chart_jacobian(fc), None
    V, M, Rm = field_jacobian_mass_form(fc.system or system, fc.point)
    E = sp.diag(sp.eye(V.rows), M)
    return _LazyJacobian(V, M, Rm), (E, V.col_join(Rm))


#: a phase-space field larger than this (operations) is linearised in mass-matrix form
JACOBIAN_OPS = 8000


def _large_phase_field(fc: FieldChart, system) -> bool:
    """Whether ``fc`` is the explicit phase-space field of ``system`` (no relations) and
    larger than :data:`JACOBIAN_OPS`."""
    if fc.name != "phase space" or system is None or fc.relations or fc.mass is not None:
        return False
    return sum(count_ops(e) for e in fc.rhs) > JACOBIAN_OPS


def _restricted_lazily(J: _LazyJacobian, variables: tuple, DG: sp.Matrix) -> tuple | None:
    r""":func:`~geomech.mechanics.analysis.field_charts.tangent_restriction` of a Jacobian
    not yet formed, ``(J_T, free, pivots)``: when the relations involve only the
    variables of the kinematic rows :math:`V` (the coordinates: a holonomic constraint),
    :math:`DG\,J = DG_q V` and the invariance :math:`DG\,J\,T = 0` is checked without
    :math:`M^{-1}R`; else ``None``."""
    k = J.V.rows
    if any(DG[i, j] != 0 for i in range(DG.rows) for j in range(k, DG.cols)):
        return None
    free, pivots, _, T = tangent_frame(len(variables), DG)
    policy = default_policy()
    leak = (DG[:, :k] * J.V * T).applyfunc(policy.normalize)
    if any(not policy.is_zero(e) for e in leak):
        raise ValueError("the relations G = 0 are not invariant under the linearised flow "
                         "(DG J T != 0); they cannot restrict the linearisation")
    return (_LazyJacobian(J.V, J.M, J.R, (tuple(variables), DG)),
            tuple(variables[j] for j in free), tuple(variables[p] for p in pivots))


@dataclass(frozen=True)
class _LazyJacobian:
    r"""The Jacobian :math:`\begin{pmatrix} V \\ M^{-1}R\end{pmatrix}` of a first variation in
    mass-matrix form, formed only when asked (:meth:`matrix`: the exact inverse of the
    Whipple bicycle's mass matrix is a third of its report; its stability needs only the
    small form at numbers)."""

    V: sp.Matrix
    M: sp.Matrix
    R: sp.Matrix
    restriction: tuple = ()     # (variables, DG): restricted to the tangent space of G = 0

    def matrix(self) -> sp.Matrix:
        J = jacobian_of_mass_form(self.V, self.M, self.R)
        return tangent_restriction(J, *self.restriction)[0] if self.restriction else J


def _restricted_mass_form(form, variables, free, pivots, DG) -> tuple | None:
    r""":math:`(E_{ff}, A_{ff} + A_{fp}S)` of the tangent restriction
    (:func:`~geomech.mechanics.analysis.field_charts.tangent_restriction`, :math:`S =
    -DG_p^{-1}DG_f`), valid when :math:`E` does not couple the pivots to the free
    variables (pivots among the coordinates); else ``None``."""
    if form is None:
        return None
    E, A = form
    f = [variables.index(v) for v in free]
    p = [variables.index(v) for v in pivots]
    if any(E[i, j] != 0 or E[j, i] != 0 for i in f for j in p):
        return None
    rows = list(range(DG.rows))
    Pinv, _ = adjugate_inverse(DG.extract(rows, p))
    if Pinv is None:
        return None
    S = -Pinv * DG.extract(rows, f)
    A_T = (A.extract(f, f) + A.extract(f, p) * S).applyfunc(default_policy().normalize)
    return E.extract(f, f), A_T


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
    if not sing and fc.rhs is None:
        try:
            fc.rates_at()
        except ValueError:            # a singular constraint minor or reduced mass matrix
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
