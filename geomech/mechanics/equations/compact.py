r"""Compact explicit equations of motion in quasi-velocities, with named sub-expressions.

:math:`\dot q = K(q)\eta + k_0(q)`, :math:`M(q)\dot\eta = f(q,\eta)` (the Hamel /
Borisov–Mamaev equations, Borisov & Mamaev (2015, Russian Math. Surveys), (5)) solved by
:func:`~geomech.mechanics.equations.structured.structured_solve`.

>>> import geomech as gm
>>> compact_equations(gm.examples.chaplygin_ball(), frame="natural").solver
'low_rank'
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.algebra.presentation import tidy
from geomech.core.fields import VectorField
from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr
from geomech.mechanics.equations.common import normal_field
from geomech.mechanics.equations.hamel import HamelTerms, hamel_terms
from geomech.mechanics.equations.phase import phase_rhs_from_quasi
from geomech.mechanics.equations.structured import structured_solve

__all__ = ["CompactEquations", "compact_equations", "compact_from_hamel",
           "natural_frame_options"]


class CompactEquations:
    r"""Explicit equations :math:`\dot q = K(q)\eta + k_0(q)`, :math:`\dot\eta = F(q,\eta)` in
    quasi-velocities, written with named sub-expressions.

    Built by :func:`compact_equations`.  The state is :math:`(q, \eta)`; ``kinematics`` maps
    each :math:`q_i` to :math:`\dot q_i`, ``dynamics`` each :math:`\eta_a` to
    :math:`\dot\eta_a`, both in terms of ``q``, :math:`\eta`, the parameters and the
    abbreviation symbols of ``abbreviations`` (an ordered list ``[(symbol, expression)]``;
    an expression may use the symbols defined before it).

    Attributes
    ----------
    system : NonholonomicSystem
    quasi_velocities : tuple of Symbol
    frame : tuple of VectorField
        The fields :math:`v_a` (columns of :math:`K`), tangent to the constraints.
    kinematics, dynamics : dict
    abbreviations : list of (Symbol, Expr)
    mass_matrix : Matrix
        :math:`M(q) = \partial^2L^*/\partial\eta^2` of the Hamel equations
        :math:`M\dot\eta = f(q,\eta)`.
    hamel_rhs : list
        :math:`f(q,\eta)` (the force side with the drift :math:`\dot M\eta` moved over).
    solver : str
        How :math:`M\dot\eta = f` was solved: ``"constant"`` (:math:`M` free of ``q``),
        ``"diagonal"``, ``"low_rank"`` (Sherman–Morrison–Woodbury around the constant part
        of :math:`M`) or ``"cofactors"`` (adjugate over a shared determinant).
    variables : dict
        :math:`\eta_a` as functions on :math:`TN` (:math:`\eta = E^{-1}\dot q`, first rows).

    Examples
    --------
    >>> import geomech as gm
    >>> ce = compact_equations(gm.examples.rolling_disk(), frame="natural")
    >>> ce.state
    (x, y, theta, psi, phi, Omega1, Omega2, Omega3)
    >>> ce.kinematics[ce.state[3]]
    Omega2/sin(theta)
    >>> ce.solver, ce.count_ops("raw") >= ce.count_ops("cse")
    ('constant', True)
    """

    def __init__(self, system, eta, frame, kinematics, dynamics, abbreviations, mass, f,
                 solver, variables, k0):
        self.system = system
        self.quasi_velocities = tuple(eta)
        self.frame = tuple(frame)
        self.kinematics = dict(kinematics)
        self.dynamics = dict(dynamics)
        self.abbreviations = list(abbreviations)
        self.mass_matrix = mass
        self.hamel_rhs = list(f)
        self.solver = solver
        self._variables = variables
        self._k0 = list(k0)

    @property
    def variables(self) -> dict:
        """:math:`\\eta_a` as functions on :math:`TN` (computed on first access)."""
        if callable(self._variables):
            self._variables = dict(self._variables())
        return dict(self._variables)

    # -- state and right-hand sides -------------------------------------------------------
    @property
    def state(self) -> tuple:
        """The state variables :math:`(q, \\eta)`."""
        return (*self.system.manifold.coords, *self.quasi_velocities)

    def _abbrev_values(self) -> dict:
        vals: dict = {}
        for s, e in self.abbreviations:
            vals[s] = e.xreplace(vals)
        return vals

    @property
    def rhs(self) -> dict:
        """``{state variable: right-hand side}`` with the abbreviations written out (not
        normalised: the Sherman–Morrison structure is kept)."""
        vals = self._abbrev_values()
        return {c: e.xreplace(vals) for c, e in {**self.kinematics, **self.dynamics}.items()}

    def count_ops(self, mode: str = "abbreviated") -> int:
        r"""Operation count (``sympy.count_ops``) of the explicit equations.

        ``mode="abbreviated"``: the right-hand sides in the abbreviation symbols plus the
        definitions of the abbreviations; ``"raw"``: the right-hand sides with the
        abbreviations written out; ``"cse"``: after ``sympy.cse`` of the raw right-hand sides
        (replacements plus reduced expressions).
        """
        if mode == "abbreviated":
            exprs = [*(e for _, e in self.abbreviations), *self.kinematics.values(),
                     *self.dynamics.values()]
        elif mode == "raw":
            exprs = list(self.rhs.values())
        elif mode == "cse":
            reps, red = sp.cse(list(self.rhs.values()))
            exprs = [*(e for _, e in reps), *red]
        else:
            raise ValueError(f"mode must be 'abbreviated', 'raw' or 'cse', got {mode!r}")
        return int(sum(count_ops(e) for e in exprs))

    def vector_field(self) -> VectorField:
        """The field on a chart with the coordinates :attr:`state`."""
        N = self.system.manifold
        chart = N.submanifold_chart(f"quasi_{self.system.name}", self.state)
        rhs = self.rhs
        return normal_field(chart, [rhs[c] for c in chart.coords])

    def at(self, point: Mapping) -> dict:
        """``{state variable: value}`` of the right-hand side at ``point`` (a mapping of
        the state variables, parameters and, optionally, ``sin``/``cos`` atoms to values),
        evaluating the abbreviations once."""
        pt = {k: as_expr(v, exact=False) for k, v in point.items()}
        vals = {}
        for s, e in self.abbreviations:
            vals[s] = e.xreplace(pt).xreplace(vals)
        pt.update(vals)
        return {c: as_expr(e).xreplace(pt) for c, e in
                {**self.kinematics, **self.dynamics}.items()}

    def phase_space_rhs(self) -> dict:
        r"""The same field on ``system.phase_space`` :math:`(q,\dot q_{\rm ind})` (as
        ``eq.rhs`` of the other forms), via :math:`\dot u = \partial_q(K\eta+k_0)\dot q +
        K_{\rm ind}\dot\eta` with :math:`\eta = K_{\rm ind}^{-1}(u - k_{0,\rm ind})`."""
        N = self.system.manifold
        r = len(self.quasi_velocities)
        K = sp.Matrix(N.dim, r, lambda i, a: self.frame[a].components[i])
        rhs = self.rhs
        return phase_rhs_from_quasi(self.system, K, self._k0, self.quasi_velocities,
                                    [rhs[e] for e in self.quasi_velocities])

    def explicit(self) -> list[sp.Eq]:
        """``Eq(Derivative(x, t), rhs)`` for the state, preceded by the abbreviations."""
        t = sp.Symbol("t", real=True)
        return ([sp.Eq(s, e, evaluate=False) for s, e in self.abbreviations]
                + [sp.Eq(sp.Derivative(c, t), e, evaluate=False) for c, e in
                   {**self.kinematics, **self.dynamics}.items()])

    def __repr__(self) -> str:
        return (f"CompactEquations({self.system.name!r}, state "
                f"({', '.join(map(str, self.state))}), {len(self.abbreviations)} "
                f"abbreviations, solver={self.solver!r})")



def compact_equations(system, frame=None, transversal=None, names=None,
                      vector_name: str = "g") -> CompactEquations:
    r"""Compact explicit equations of motion in the quasi-velocities of an adapted frame.

    With :math:`\dot q = K(q)\eta + k_0(q)` (the frame fields :math:`v_a` are the columns
    of :math:`K`) the Hamel / Borisov–Mamaev equations read :math:`M(q)\dot\eta = f(q,\eta)`,
    :math:`M = \partial^2L^*/\partial\eta^2`, :math:`f` = the right-hand side of (5) minus
    :math:`\dot M\eta` (see :meth:`~geomech.mechanics.equations.quasi.HamelEquations.derive`),
    each entry normalised with the ring-based
    :func:`~geomech.core.algebra.normal_form.compact` (no ``simplify``).  The linear system is
    solved *keeping its structure*: :math:`M = M_0 + U` with :math:`M_0` the part free of
    :math:`q`; if :math:`U = \sum_{c\le k}\sigma_c u_c w_c^{\mathsf T}` has low rank
    (primitive vectors :math:`u_c, w_c`, named ``g_1, g_2, ...``), the Woodbury formula

    .. math:: \dot\eta = y - Z\mu,\quad y = M_0^{-1}f,\quad Z = M_0^{-1}U_h,\quad
              (1 + \Sigma W_h^{\mathsf T}Z)\,\mu = \Sigma W_h^{\mathsf T}y

    is used with :math:`\Delta = \det(1 + \Sigma W_h^{\mathsf T}Z)` and :math:`\mu` as
    named sub-expressions; otherwise :math:`\dot\eta = \operatorname{adj}(M)f/\Delta`,
    :math:`\Delta=\det M`.  For the Chaplygin ball in body angular velocities this is the
    Euler–Poisson form :math:`\dot\omega = A f + D\frac{(\gamma, Af)}{1 - D(\gamma,A\gamma)}
    A\gamma`, :math:`A = (I + DE)^{-1}`, :math:`f = I\omega\times\omega`.

    Parameters
    ----------
    frame : sequence of VectorField, "natural" or None
        As for :meth:`~geomech.mechanics.equations.quasi.HamelEquations.derive` (default: the
        split frame); ``"natural"`` takes ``system.natural_frame`` (set by catalogue entries such as
        :func:`~geomech.examples.chaplygin_ball`: body angular velocities, and
        :func:`~geomech.examples.rolling_disk`: the angular velocity in the König frame).
    transversal, names
        As for :meth:`~geomech.mechanics.equations.quasi.HamelEquations.derive`.
    vector_name : str
        Stem of the names of the entries of the low-rank vectors (``g`` -> ``g_1, ...``).

    Returns
    -------
    CompactEquations

    Examples
    --------
    Chaplygin's sleigh in its natural quasi-velocities (speed of the blade, angular velocity):

    >>> import geomech as gm
    >>> ce = compact_equations(gm.examples.chaplygin_sleigh(), frame="natural")
    >>> ce.dynamics
    {v: a*omega**2, omega: -a*m*omega*v/I}
    >>> ce.kinematics
    {x: v*cos(phi), y: v*sin(phi), phi: omega}
    """
    if not hasattr(system, "phase_space"):
        raise TypeError(f"expected a NonholonomicSystem, got {type(system).__name__}")
    frame, names, vector_name = natural_frame_options(system, frame, names, vector_name)
    if not isinstance(vector_name, str) or not vector_name.isidentifier():
        raise ValueError(f"vector_name must be an identifier, got {vector_name!r}")
    return compact_from_hamel(system, hamel_terms(system, frame, transversal, names,
                                                  by_monomials=True), vector_name)


def natural_frame_options(system, frame, names=None, vector_name: str = "g") -> tuple:
    """``(frame, names, vector_name)`` with ``frame="natural"`` replaced by the system's
    :attr:`~geomech.mechanics.system.NonholonomicSystem.natural_frame` (its names and
    vector name unless given); other frames are returned unchanged."""
    if not isinstance(frame, str):
        return frame, names, vector_name
    if frame != "natural":
        raise ValueError(f"frame must be 'natural', a sequence of vector fields or None, "
                         f"got {frame!r}")
    nat = getattr(system, "natural_frame", None)
    if not nat:
        raise ValueError(f"{system.name} has no natural frame; pass frame=[...] (fields "
                         f"tangent to the constraints)")
    names = names if names is not None else nat.get("names")
    if vector_name == "g":
        vector_name = nat.get("vector_name", vector_name)
    return nat["frame"], names, vector_name


def compact_from_hamel(system, h: HamelTerms, vector_name: str = "g") -> CompactEquations:
    """The compact equations from the Hamel terms ``h`` (:func:`hamel_terms`)."""
    N = system.manifold
    n, k = N.dim, system.n_constraints
    r = n - k
    f = [tidy(compact(h.rhs[a] - h.drift[a]), h.eta) for a in range(r)]
    etadot, abbrev, solver = structured_solve(h.mass, f, N.coords, h.eta, vector_name)
    k0 = [compact(sp.Add(*[h.E[i, r + m] * h.w0[m] for m in range(k)])) for i in range(n)]
    kin = {c: tidy(e, h.eta) for c, e in zip(N.coords, h.qdot)}
    dyn = {c: tidy(e, h.eta) for c, e in zip(h.eta, etadot)}
    abbrev = [(s, tidy(e, h.eta)) for s, e in abbrev]
    Einv_rows = h.Einv[:r, :]

    def variables():
        return {h.eta[a]: compact(sp.Add(*[Einv_rows[a, i] * N.velocities[i]
                                           for i in range(n)])) for a in range(r)}

    return CompactEquations(system, h.eta, h.tangent, kin, dyn, abbrev, h.mass, f, solver,
                            variables, k0)
