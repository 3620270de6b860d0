r"""Nonholonomic systems: :class:`NonholonomicSystem`.

A nonholonomic system is a configuration chart :math:`N\ni q`, a Lagrangian
:math:`L(q,\dot q)` of the *free* system with :math:`\det\partial^2L/\partial\dot q^2\not\equiv0`,
constraints linear (affine allowed) in the velocities

.. math:: f_\mu(q,\dot q) = \sum_i a_{\mu i}(q)\,\dot q_i + b_\mu(q) = 0, \qquad \mu=1..k,

and optional non-potential generalized forces :math:`Q_i(q,\dot q)`.  The constraints are
solved for :math:`k` *dependent* velocities (a non-singular minor of :math:`a`), so the
phase space :math:`\mathcal M\subset TN` has the coordinates :math:`q` and the
:math:`n-k` independent velocities (the very same symbols).

Examples
--------
The vertical rolling disk (a classical example of Neimark & Fufaev (1972)):

>>> import sympy as sp
>>> import geomech as gm
>>> from geomech.mechanics.system import NonholonomicSystem
>>> N = gm.Manifold("N", "x y theta phi", parameters="m R I J")
>>> x, y, th, ph = N.coords; xd, yd, thd, phd = N.velocities; m, R, I, J = N.parameters
>>> disk = NonholonomicSystem(N, m/2*(xd**2 + yd**2) + I/2*thd**2 + J/2*phd**2,
...                           [xd - R*sp.cos(ph)*thd, yd - R*sp.sin(ph)*thd], name="disk")
>>> disk.dependent_velocities, disk.independent_velocities
((xdot, ydot), (thetadot, phidot))
>>> disk.dependent_solution
{xdot: R*thetadot*cos(phi), ydot: R*thetadot*sin(phi)}
>>> disk.phase_space.coords
(x, y, theta, phi, thetadot, phidot)
>>> disk.is_holonomic()
False
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cached_property

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.forms import DifferentialForm
from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.core.zero.values import certainly_full_rank
from geomech.mechanics.converters import converter

from .constraints import (
    check_independent_rows,
    constraint_row,
    finite_expression,
    forces_tuple,
    natural_frame_of,
    solve_dependent,
    split_velocities,
    structured_split,
    velocity_of,
)
from .equations.elimination import (
    block_triangular_order,
    keep_small,
    quadratic_form,
    restricted_quadratic,
    triangular_order,
)
from .holonomic import complete_state, holonomic_constraints

__all__ = ["NonholonomicSystem"]


def _independent_velocities(N: Manifold, independent) -> tuple:
    """The velocity symbols named by ``independent`` (``()`` when ``None`` or unreadable: the
    split checks it properly)."""
    if independent is None:
        return ()
    if isinstance(independent, str):
        independent = independent.replace(",", " ").split()
    elif isinstance(independent, sp.Symbol):
        independent = [independent]
    try:
        return tuple(velocity_of(N, s) for s in independent)
    except (TypeError, ValueError):
        return ()

class NonholonomicSystem:
    r"""A Lagrangian system with constraints linear (or affine) in the velocities.

    Parameters
    ----------
    manifold : Manifold
        Configuration chart :math:`N`; velocities are ``manifold.velocities``.
    lagrangian : expression or str
        :math:`L(q,\dot q)` of the free system (strings are parsed safely).
    constraints : sequence
        Expressions :math:`\sum_i a_{\mu i}(q)\dot q_i + b_\mu(q)` (``= 0``) or 1-forms
        :math:`\sum_i a_{\mu i}dq_i` on ``manifold``.
    forces : sequence or mapping, optional
        Non-potential generalized forces :math:`Q_i(q,\dot q)` (``dim`` entries or
        ``{coordinate: Q}``).
    independent : sequence, optional
        The velocities kept independent (velocity symbols, coordinates or names).  By default
        a non-singular minor of the constraint matrix is chosen automatically: a constant
        determinant first, then the shortest one, then the earliest coordinates as dependent.
    name, description : str, optional
        Metadata for printing and reports.
    natural_frame : mapping, optional
        Natural quasi-velocities ``{"frame": (v_1, ..., v_{n-k}), "names": (...)}``: vector
        fields on ``manifold`` spanning the constraint distribution and their names (read by
        ``compact_equations(frame="natural")``).
    numeric_defaults : tuple, optional
        ``(parameter values, initial state)`` for numerics and reports.
    source : str, optional
        Where the system was read from (model files).
    holonomic : sequence or mapping, optional
        Configuration constraints :math:`h_j(q) = 0` (expressions in the coordinates), or
        ``{dependent coordinate: h_j}`` to choose the coordinate each one defines.  The
        dependent coordinates stay coordinates of ``manifold`` and of :attr:`phase_space`
        (defined implicitly: :meth:`complete_state` solves them where a state omits them and
        refuses a state that violates a constraint); the differentials
        :math:`\sum_i \partial_i h_j\,\dot q_i = 0` are appended to :attr:`constraints`, so
        every form of the equations, the analyses and the numerics take them (module
        :mod:`geomech.mechanics.holonomic`).  By default the dependent coordinates are a
        non-singular minor of :math:`\partial h/\partial q` among the coordinates whose
        velocities are not in ``independent`` (constant determinant first, then the
        shortest, then the earliest coordinates).
    steady : sequence of SteadyFamily, optional
        Families of steady motions declared by the catalogue (the first is the
        distinguished one of :meth:`steady_motion`; each is verified on first use).

    Raises
    ------
    ValueError
        A constraint not linear in the velocities, dependent constraints, a degenerate
        Lagrangian (:math:`\det\partial^2L/\partial\dot q^2\equiv0`), a singular choice of
        ``independent``, or forces of the wrong length.

    Examples
    --------
    >>> import sympy as sp
    >>> N = Manifold("N", "x y z")
    >>> xd, yd, zd = N.velocities; y = N.coords[1]
    >>> S = NonholonomicSystem(N, (xd**2 + yd**2 + zd**2)/2, [zd - y*xd])
    >>> S.dependent_solution
    {zdot: xdot*y}
    >>> NonholonomicSystem(N, (xd**2 + yd**2 + zd**2)/2, [zd - y*xd],
    ...                    independent="y z").dependent_solution
    {xdot: zdot/y}
    >>> S.energy()
    xdot**2*(y**2 + 1)/2 + ydot**2/2

    A particle on the parabola :math:`y = x^2` in the plane (``y`` defined implicitly):

    >>> x, y = N.coords[:2]
    >>> P = NonholonomicSystem(N, (xd**2 + yd**2 + zd**2)/2 - y, holonomic={"y": y - x**2})
    >>> P.constraints, P.dependent_coordinates, P.phase_space.coords
    ((-2*x*xdot + ydot,), (y,), (x, y, z, xdot, zdot))
    """

    def __init__(self, manifold: Manifold, lagrangian, constraints=(), forces=None,
                 independent=None, name: str | None = None, description: str = "",
                 natural_frame: Mapping | None = None, numeric_defaults: tuple | None = None,
                 source: str | None = None, holonomic=None, steady=None):
        if not isinstance(manifold, Manifold):
            raise TypeError(f"expected a Manifold as configuration space, got "
                            f"{type(manifold).__name__}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"the name of a system is a string, got {type(name).__name__}")
        self.manifold = manifold
        self.name = name or "system"
        self.description = description
        N = manifold
        self.lagrangian: sp.Expr = finite_expression(N.sympify(lagrangian), "the Lagrangian")
        self._set_constraints(constraints, holonomic, independent)
        self.forces = None if forces is None else forces_tuple(N, forces)
        self._check_regular()
        # -- split of the velocities -----------------------------------------------------
        self._choose_split(independent)
        self._natural_frame = natural_frame_of(N, natural_frame, N.dim - self.n_constraints)
        if numeric_defaults is not None and not (isinstance(numeric_defaults, tuple)
                                                 and len(numeric_defaults) == 2):
            raise TypeError("numeric_defaults must be a pair (parameter values, initial state)")
        if source is not None and not isinstance(source, str):
            raise TypeError(f"source must be a string, got {type(source).__name__}")
        self._numeric_defaults, self._source = numeric_defaults, source
        from .analysis.steady_motions import declared_families

        self.steady_families = declared_families(steady)

    def _set_constraints(self, constraints, holonomic, independent) -> None:
        r"""The constraint distribution: the rows :math:`f_\mu = a_\mu(q)\dot q + b_\mu(q)` of
        the velocity constraints, then the differentials :math:`dh = \sum_i
        (\partial h/\partial q_i)\,\dot q_i` of the configuration constraints
        :math:`h(q) = 0`; the rows must be independent and leave a velocity free."""
        N = self.manifold
        n = N.dim
        if isinstance(constraints, (DifferentialForm, str, sp.Basic)):
            constraints = [constraints]
        if constraints is None or isinstance(constraints, Mapping) or not isinstance(
                constraints, Iterable):
            raise TypeError(f"constraints must be a list of expressions or 1-forms, got "
                            f"{type(constraints).__name__}")
        rows, affine, exprs = [], [], []
        for idx, c in enumerate(constraints, 1):
            a, b, f = constraint_row(N, c, idx)
            rows.append(a)
            affine.append(b)
            exprs.append(f)
        self.holonomic, self.dependent_coordinate_indices = holonomic_constraints(
            N, holonomic, _independent_velocities(N, independent))
        for h in self.holonomic:
            a = [sp.diff(h, c) for c in N.coords]
            rows.append(a)
            affine.append(sp.S.Zero)
            exprs.append(sp.Add(*[ai * v for ai, v in zip(a, N.velocities)]))
        k = len(rows)
        self.constraints: tuple[sp.Expr, ...] = tuple(exprs)
        self.constraint_matrix = sp.Matrix(k, n, lambda i, j: rows[i][j]) if k else \
            sp.zeros(0, n)
        self.constraint_affine: tuple[sp.Expr, ...] = tuple(affine)
        check_independent_rows(self.constraint_matrix)
        if k >= n:
            raise ValueError(
                f"{k} independent constraints on the {n}-dimensional {N.name}: no velocity "
                f"left free (the system cannot move); at most {n - 1} constraints are allowed")

    def _check_regular(self) -> None:
        r"""The free system is regular: :math:`\det(\partial^2L/\partial\dot q^2) \ne 0`
        (full rank proved at an exact point, otherwise by the zero policy), so the Lagrange
        equations solve for the accelerations."""
        H, n = self.hessian, self.manifold.dim
        r = n if certainly_full_rank(H) else default_policy().rank(H)
        if r < n:
            raise ValueError(
                f"degenerate Lagrangian: det d2L/dqdot2 = 0 identically (rank {r} < {n}); the "
                "free system has no Lagrange equations solved for the accelerations")

    @property
    def natural_frame(self) -> dict | None:
        """Natural quasi-velocities ``{"frame": fields, "names": ...}`` (keyword arguments
        of :func:`~geomech.mechanics.equations.compact.compact_equations`, used by
        ``frame="natural"``) given at construction, e.g. by the catalogue (body angular
        velocities of the Chaplygin ball), or ``None``."""
        return None if self._natural_frame is None else dict(self._natural_frame)

    @property
    def numeric_defaults(self) -> tuple | None:
        """``(parameter values, initial state)`` given at construction (model files), or
        ``None``."""
        return self._numeric_defaults

    @property
    def source(self) -> str | None:
        """Where the system was read from (a model file), or ``None``."""
        return self._source

    def _choose_split(self, independent) -> None:
        ind_idx, dep_idx, _ = split_velocities(self.manifold, self.constraint_matrix,
                                               self.constraint_affine, independent,
                                               required=self.dependent_coordinate_indices,
                                               solve=False)
        vel = self.manifold.velocities
        self.independent_indices = tuple(ind_idx)
        self.dependent_indices = tuple(dep_idx)
        self.independent_velocities = tuple(vel[i] for i in ind_idx)
        self.dependent_velocities = tuple(vel[i] for i in dep_idx)

    @cached_property
    def dependent_solution(self) -> dict:
        r"""``{dependent velocity: expression in q and the independent velocities}``,
        :math:`\dot q_{\rm dep} = -A_{\rm dep}^{-1}(A_{\rm ind}\dot q_{\rm ind} + b)`
        (computed on first access).  Small solutions are in their compact normal form
        (Cramer's rule, cancelled); a minor triangular up to permutations (a chain of knife
        edges) is solved by forward substitution, one block triangular block by block, and
        large entries are kept as built (:meth:`velocity_split`)."""
        vel = self.manifold.velocities
        if not self.dependent_indices:
            return {}
        if self._split_is_structured:
            rows, free = self._velocity_split
            u = self.independent_velocities
            return {vel[r]: keep_small(sp.Add(*[b * ua for b, ua in zip(rows[r], u)],
                                              free[r])) for r in self.dependent_indices}
        return solve_dependent(self.constraint_matrix, self.constraint_affine, vel,
                               self.dependent_indices)

    @cached_property
    def _split_is_structured(self) -> bool:
        """Whether the constraint minor is triangular up to permutations (then the split is
        solved by forward substitution), or block triangular with more than one block (then
        block by block: the Whipple bicycle's blocks of 1, 2 and 2 rows, the pitch rate from
        the differentiated configuration constraint by the implicit function theorem)."""
        A = self.constraint_matrix[:, list(self.dependent_indices)]
        return triangular_order(A) is not None or len(block_triangular_order(A)) > 1

    # -- configuration constraints ----------------------------------------------------------
    @property
    def dependent_coordinates(self) -> tuple[sp.Symbol, ...]:
        """The coordinates defined implicitly by the holonomic constraints (one each)."""
        return tuple(self.manifold.coords[i] for i in self.dependent_coordinate_indices)

    @property
    def n_holonomic(self) -> int:
        """Number :math:`m` of holonomic constraints :math:`h_j(q) = 0` (their
        differentials are the last :math:`m` of :attr:`constraints`)."""
        return len(self.holonomic)

    def complete_state(self, state: Mapping, parameters: Mapping | None = None) -> dict:
        """Every phase-space coordinate of ``state``: the dependent coordinates solved where
        omitted, the holonomic constraints checked (``ValueError`` naming the one violated);
        see :func:`geomech.mechanics.holonomic.complete_state`."""
        return complete_state(self, state, parameters)

    # -- basic derived data ---------------------------------------------------------------
    @cached_property
    def hessian(self) -> sp.Matrix:
        r"""The matrix :math:`\partial^2L/\partial\dot q_i\partial\dot q_j` on :math:`TN`."""
        from geomech.core.kernel import hessian

        return hessian(self.lagrangian, self.manifold.velocities)

    @property
    def dim(self) -> int:
        """Dimension of the configuration space."""
        return self.manifold.dim

    @property
    def n_constraints(self) -> int:
        """Number :math:`k` of constraints."""
        return self.constraint_matrix.shape[0]

    @property
    def is_affine(self) -> bool:
        """Whether some constraint has a velocity-free part :math:`b_\\mu\\neq0`."""
        return any(b != 0 for b in self.constraint_affine)

    @cached_property
    def phase_space(self) -> Manifold:
        """The constraint manifold :math:`\\mathcal M` with coordinates ``q`` and the
        independent velocities (the same symbol objects as on ``manifold``)."""
        N = self.manifold
        return N.submanifold_chart(f"M_{self.name}",
                                   (*N.coords, *self.independent_velocities))

    def restricted(self, expr) -> sp.Expr:
        """An expression on :math:`TN` restricted to :math:`\\mathcal M` (dependent velocities
        substituted, no further normalisation; the constraints are solved only when ``expr``
        has a dependent velocity)."""
        e = self.manifold.sympify(expr)
        if not e.has(*self.dependent_velocities):
            return e
        return e.xreplace(self.dependent_solution) if self.dependent_solution else e

    def velocity_on_phase_space(self) -> tuple[sp.Expr, ...]:
        r""":math:`\dot q` as expressions on the phase space (dependent ones substituted)."""
        return tuple(self.dependent_solution.get(v, v) for v in self.manifold.velocities)

    def energy(self) -> sp.Expr:
        r"""Energy :math:`E=\sum_i\dot q_i\,\partial L/\partial\dot q_i - L` on the phase space.

        It is a first integral when there are no forces and the constraints are homogeneous.
        Computed once per system (the report's energy check, its simulation and the first
        integrals all read it).
        """
        return self._energy

    @cached_property
    def _energy(self) -> sp.Expr:
        vel = self.manifold.velocities
        quad = restricted_quadratic(self) if self.dependent_velocities else None
        if quad is None:
            L = self.lagrangian
            E = sp.Add(*[v * sp.diff(L, v) for v in vel]) - L
            return compact(self.restricted(E))
        # E = L_2 - L_0 on M by the velocity split, each coefficient normalised on its own
        # (the rattleback: 2.4 s; the restricted expression normalised as a whole took 42 s)
        u = sp.Matrix(self.independent_velocities)
        return sp.Add(quadratic_form(quad["M"], u) / 2, *(quad["w"][i] * u[i]
                                                         for i in range(len(u))),
                      quad["k"], -quad["L0"])

    # -- geometry of the constraints ------------------------------------------------------
    def constraint_forms(self) -> tuple[DifferentialForm, ...]:
        r"""The homogeneous parts :math:`\alpha_\mu=\sum_i a_{\mu i}dq_i` as 1-forms on ``N``."""
        A = self.constraint_matrix
        return tuple(self.manifold.one_form(list(A[i, :])) for i in range(A.shape[0]))

    @cached_property
    def _velocity_split(self) -> tuple[dict, dict]:
        if self._split_is_structured:
            return structured_split(self.constraint_matrix, self.constraint_affine,
                                    self.dependent_indices, self.independent_indices)
        sol, u = self.dependent_solution, self.independent_velocities
        vel = self.manifold.velocities
        rows = {r: tuple(compact(sp.diff(sol[vel[r]], ua)) for ua in u)
                for r in self.dependent_indices}
        free = {r: compact(sol[vel[r]].xreplace({ua: 0 for ua in u}))
                for r in self.dependent_indices}
        return rows, free

    def velocity_split(self) -> tuple[dict, dict]:
        r"""The split of the velocities by the constraints (Voronets (1901); Neimark &
        Fufaev (1972)): on :math:`\mathcal M`

        .. math:: \dot q_r = \sum_\alpha b_{r\alpha}(q)\,\dot q_\alpha + b_r(q)

        for every dependent index :math:`r`, :math:`\alpha` running over the independent
        velocities.  Returns ``({r: (b_r1, ..., b_r,n-k)}, {r: b_r})`` keyed by the dependent
        indices (the one implementation: :meth:`adapted_frame`, :meth:`affine_velocity` and
        the Voronets / Chaplygin equations read it).

        >>> N = Manifold("N", "x y z"); xd, yd, zd = N.velocities; y = N.coords[1]
        >>> NonholonomicSystem(N, (xd**2 + yd**2 + zd**2)/2, [zd - y*xd - 1]).velocity_split()
        ({2: (y, 0)}, {2: 1})
        """
        rows, free = self._velocity_split
        return dict(rows), dict(free)

    @cached_property
    def _split_frame(self):
        N = self.manifold
        n = N.dim
        rows, free = self._velocity_split
        tangent = []
        for a, i in enumerate(self.independent_indices):
            comps = [sp.S.Zero] * n
            comps[i] = sp.S.One
            for r in self.dependent_indices:
                comps[r] = rows[r][a]
            tangent.append(N.vector_field(comps))
        transversal = [N.vector_field({N.coords[j]: 1}) for j in self.dependent_indices]
        affine = [free.get(j, sp.S.Zero) for j in range(n)]
        return tuple(tangent), tuple(transversal), N.vector_field(affine)

    def adapted_frame(self):
        r"""The frame adapted to the split of the velocities (Tzenoff/Voronets frame).

        Returns ``(tangent, transversal)``: :math:`\tau_\alpha=\partial_{q_\alpha}+\sum_r
        b_{r\alpha}\partial_{q_r}` spanning the constraint distribution (one per independent
        velocity) and :math:`n_r=\partial_{q_r}` (one per dependent velocity), so that
        :math:`\dot q=\sum_\alpha\dot q_\alpha\tau_\alpha + \dot q_0` on :math:`\mathcal M`.
        """
        t, n, _ = self._split_frame
        return t, n

    def affine_velocity(self):
        r"""The velocity field :math:`\dot q_0(q)` of the affine part (zero if homogeneous)."""
        return self._split_frame[2]

    def constraint_distribution(self):
        """The constraint distribution (annihilator of the constraint forms) as a
        :class:`~geomech.lie.distribution.Distribution` spanned by the adapted frame."""
        from geomech.lie.distribution import Distribution

        tangent = self.adapted_frame()[0]
        return Distribution(list(tangent))

    def is_holonomic(self) -> bool:
        r"""Whether the constraint distribution is involutive ("holonomic in disguise").

        The Frobenius test of :meth:`constraint_distribution` (one implementation, in
        :meth:`Distribution.frobenius`), its brackets from the bracket graph of the chart.
        """
        return self.constraint_distribution().is_involutive()

    def holonomic_integrals(self) -> list:
        """First integrals :math:`g(q)` of an involutive constraint distribution.

        Raises ``ValueError`` when the constraints are not holonomic.
        """
        if not self.is_holonomic():
            raise ValueError(f"the constraints of {self.name} are not holonomic (the constraint "
                             "distribution is not involutive)")
        return list(self.constraint_distribution().first_integrals())

    # -- equations ------------------------------------------------------------------------
    def equations(self, method: str = "lagrange_dalembert", **options):
        """Equations of motion in the form ``method`` (an
        :class:`~geomech.mechanics.equations.EquationsOfMotion`).

        Methods: ``lagrange_dalembert``, ``quasi_velocities``, ``voronets``, ``chaplygin``,
        ``appell`` and the plug-ins ``tzenoff``, ``vakonomic``.  Results without options are
        cached.
        """
        from geomech.mechanics.equations.registry import get_method

        if not options and method in self._eq_cache:
            return self._eq_cache[method]
        func = get_method(method)
        eq = func(self, **options)
        if not options:
            self._eq_cache[method] = eq
        return eq

    def compact_equations(self, **options):
        """Compact explicit equations in quasi-velocities
        (:func:`~geomech.mechanics.equations.compact.compact_equations`; ``frame="natural"`` takes
        :attr:`natural_frame`).  Cached when the options are names (``frame="natural"``,
        ``frame=None``): the report, the natural chart of the linearisation and the searches
        for integrals and measures read the same equations."""
        from geomech.mechanics.equations.compact import compact_equations

        if not all(v is None or isinstance(v, str) for v in options.values()):
            return compact_equations(self, **options)
        key = ("compact equations", *sorted(options.items()))
        if key not in self._eq_cache:
            self._eq_cache[key] = compact_equations(self, **options)
        return self._eq_cache[key]

    @cached_property
    def _eq_cache(self) -> dict:
        return {}

    def vector_field(self):
        """The Lagrange–d'Alembert flow on :attr:`phase_space` (cached)."""
        return self.equations("lagrange_dalembert").vector_field()

    def __eq__(self, other) -> bool:
        """Equal systems: the same configuration chart, Lagrangians, constraints (in order),
        forces and independent velocities, compared by the zero-test policy."""
        if not isinstance(other, NonholonomicSystem):
            return NotImplemented
        if other is self:
            return True
        if (other.manifold is not self.manifold
                or other.independent_velocities != self.independent_velocities
                or other.dependent_coordinates != self.dependent_coordinates
                or len(other.constraints) != len(self.constraints)
                or (other.forces is None) != (self.forces is None)):
            return False
        pairs = [(self.lagrangian, other.lagrangian),
                 *zip(self.constraints, other.constraints),
                 *zip(self.holonomic, other.holonomic),
                 *zip(self.forces or (), other.forces or ())]
        is_zero = default_policy().is_zero
        return all(a == b or is_zero(a - b) for a, b in pairs)

    def __hash__(self) -> int:
        return hash((self.manifold, self.independent_velocities, len(self.constraints)))

    # -- printing -------------------------------------------------------------------------
    def __repr__(self) -> str:
        k = self.n_constraints
        coords = ", ".join(str(c) for c in self.manifold.coords)
        ind = ", ".join(str(v) for v in self.independent_velocities)
        extra = ", affine" if self.is_affine else ""
        if self.holonomic:
            dep = ", ".join(str(c) for c in self.dependent_coordinates)
            extra += f", {self.n_holonomic} holonomic (dependent {dep})"
        extra += ", with forces" if self.forces is not None else ""
        return (f"NonholonomicSystem({self.name!r}, N=({coords}), {k} constraint"
                f"{'s' if k != 1 else ''}{extra}, independent=({ind}))")

    def _latex(self, printer=None) -> str:
        coords = ", ".join(sp.latex(c) for c in self.manifold.coords)
        lines = [rf"\text{{{self.name}}}:\ N = ({coords})",
                 rf"L = {sp.latex(self.lagrangian)}"]
        for f in self.constraints[:len(self.constraints) - self.n_holonomic]:
            lines.append(rf"{sp.latex(f)} = 0")
        for h in self.holonomic:
            lines.append(rf"{sp.latex(h)} = 0")
        if self.forces is not None:
            lines.append(rf"Q = \left({', '.join(sp.latex(q) for q in self.forces)}\right)")
        return r"\begin{aligned}" + r"\\ ".join("&" + ln for ln in lines) + r"\end{aligned}"

    def _repr_latex_(self) -> str:
        return "$" + self._latex() + "$"

    # -- analyses (delegations to the mechanics modules) ----------------------------------
    def is_first_integral(self, F) -> bool:
        """Whether ``F`` (on the phase space or on TN) is an exact first integral of the flow;
        see :func:`geomech.mechanics.analysis.integrals.system_is_first_integral`."""
        from .analysis.integrals import system_is_first_integral

        return system_is_first_integral(self, F)

    def polynomial_integrals(self, degree: int = 2, ansatz=None, **options) -> list:
        """Integrals polynomial in the velocities up to ``degree`` (exact search; in the
        natural velocities when the system has a natural frame), a list on
        :attr:`phase_space` with ``.natural`` forms; see
        :func:`geomech.mechanics.analysis.polynomial_integrals.system_polynomial_integrals`."""
        from .analysis.polynomial_integrals import system_polynomial_integrals

        return system_polynomial_integrals(self, degree, ansatz=ansatz, **options)

    def first_integrals(self, degree: int = 2, functions: bool = True,
                        seconds: float = 30.0) -> list:
        """Functionally independent first integrals: the energy, linear integrals of Noether
        fields with constant or function coefficients, polynomial integrals up to
        ``degree`` (:func:`~geomech.mechanics.analysis.first_integrals.
        system_first_integrals`); a list of
        :class:`~geomech.mechanics.analysis.first_integrals.FirstIntegral`."""
        from .analysis.first_integrals import system_first_integrals

        return system_first_integrals(self, degree, functions, seconds)

    def integrability(self, max_degree: int = 4, hamiltonisation: bool = True):
        """Integrability by quadratures (Euler--Jacobi, Euler--Jacobi--Lie (Kozlov 2002),
        Chaplygin's reducing multiplier): a verdict with the measure, the integrals, the
        symmetries and the quadratures used (:func:`~geomech.mechanics.analysis.
        integrability.system_integrability`)."""
        from .analysis.integrability import system_integrability

        return system_integrability(self, max_degree, hamiltonisation)

    def noether_integrals(self, ansatz=None, fields=None) -> list:
        """Linear (Kozlov–Kolesnikov / Noether) integrals in an ansatz family, each verified
        along the flow; see :func:`geomech.mechanics.analysis.noether.linear_integrals`."""
        from geomech.mechanics.analysis.noether import linear_integrals

        return linear_integrals(self, ansatz=ansatz, fields=fields)

    def check_symmetry(self, fields):
        """Theorem 3 (strengthened) for given fields; see
        :func:`geomech.mechanics.analysis.symmetry.check_symmetry`."""
        from .analysis.symmetry import check_symmetry

        return check_symmetry(self, fields)

    def point_symmetries(self, ansatz=None) -> list:
        """Infinitesimal point symmetries in an ansatz family."""
        from .analysis.symmetry import find_point_symmetries

        return find_point_symmetries(self, ansatz=ansatz)

    def classify_action(self, fields):
        """Case C-1 / C-2 of the action relative to the constraints (§4.2)."""
        from .analysis.symmetry import classify_action

        return classify_action(self, fields)

    def divergence(self):
        """Divergence of the phase-space flow (coordinate volume)."""
        from .analysis.measure import system_divergence

        return system_divergence(self)

    def is_invariant_density(self, rho) -> bool:
        """Whether ``div(rho v) = 0`` exactly."""
        from .analysis.measure import system_is_invariant_density

        return system_is_invariant_density(self, rho)

    def invariant_measure(self, ansatz: str = "system", variables=None, functions=None):
        """Search an invariant density (default: powers of factors built from the system, by
        linear algebra); the result is truthy with ``.density`` or falsy with ``.reason`` and
        ``.family``; see :func:`geomech.mechanics.analysis.measure.system_invariant_measure`."""
        from .analysis.measure import system_invariant_measure

        return system_invariant_measure(self, ansatz=ansatz, variables=variables,
                                        functions=functions)

    def pseudo_hamiltonian(self, frame=None, transversal=None, momenta=None):
        """Pseudo-Hamiltonian form (Prop. 7); ``.satisfies_jacobi()`` is ``False`` for
        non-integrable constraints."""
        from geomech.mechanics.analysis.pseudo_hamiltonian import system_pseudo_hamiltonian

        return system_pseudo_hamiltonian(self, frame=frame, transversal=transversal,
                                         momenta=momenta)

    def is_conformally_hamiltonian(self, cyclic=None):
        """Chaplygin reducing multiplier of the reduced system (two degrees of freedom)."""
        from geomech.mechanics.analysis.multiplier import system_is_conformally_hamiltonian

        return system_is_conformally_hamiltonian(self, cyclic=cyclic)

    def chaplygin_reduction(self, group_coords, frame=None):
        """Generalized Chaplygin reduction (Prop. 5)."""
        from .analysis.reduction import chaplygin_reduction

        return chaplygin_reduction(self, group_coords, frame=frame)

    def routh_reduction(self, coordinate):
        """Routh reduction by a cyclic coordinate (§5.3)."""
        from .analysis.reduction import routh_reduction

        return routh_reduction(self, coordinate)

    def linearize(self, state, parameters=None, chart: str = "auto"):
        """The exact linearisation at a steady motion ``state`` (a dict of every phase-space
        coordinate by name); see
        :func:`geomech.mechanics.analysis.linearization.linearize`.  Cached without
        ``parameters`` (the report's stability and invariant-measure sections linearise the
        same steady motion)."""
        from .analysis.linearization import linearize

        if parameters is not None or not isinstance(state, Mapping):
            return linearize(self, state, parameters=parameters, chart=chart)
        # the key never sympifies a value (user text only through the safe parser)
        key = ("linearize", chart, tuple(sorted(
            (str(k), sp.srepr(v) if isinstance(v, sp.Basic) else f"{type(v).__name__}:{v!r}")
            for k, v in state.items())))
        if key not in self._eq_cache:
            self._eq_cache[key] = linearize(self, state, parameters=parameters, chart=chart)
        return self._eq_cache[key]

    def steady_motions(self, search: bool = True) -> list:
        """Families of steady motions (relative equilibria): the declared ones, verified,
        and with ``search`` those found by solving the reduced equations; see
        :func:`geomech.mechanics.analysis.steady_motions.steady_motions`."""
        from .analysis.steady_motions import steady_motions

        return steady_motions(self, search=search)

    def steady_motion(self, family: str | None = None, **constants) -> dict:
        """One steady state (a dict by coordinate name) of the distinguished family, or of
        ``family``, at the given constants; see
        :func:`geomech.mechanics.analysis.steady_motions.steady_motion`."""
        from .analysis.steady_motions import steady_motion

        return steady_motion(self, family, **constants)

    def stability_diagram(self, parameter, values, steady=None, parameters=None):
        """Eigenvalues of the linearisation against ``parameter`` (a
        :class:`~geomech.mechanics.analysis.stability_diagram.StabilityDiagram`, with
        ``.plot()``); see
        :func:`geomech.mechanics.analysis.stability_diagram.stability_diagram`."""
        from .analysis.stability_diagram import stability_diagram

        return stability_diagram(self, parameter, values, steady=steady, parameters=parameters)

    def to_sympy_mechanics(self):
        """A ``sympy.physics.mechanics.LagrangesMethod`` with the same equations
        (:func:`geomech.interop.sympy_mechanics.to_sympy_mechanics`, ``gm.to_sympy_mechanics``;
        interop registers it in :mod:`geomech.mechanics.converters`)."""
        return converter("sympy_mechanics")(self)

    def pretty(self) -> str:
        """Multi-line text summary (pretty-printed Lagrangian and constraints)."""
        out = [repr(self), "L = " + sp.sstr(self.lagrangian)]
        out += [f"constraint {i}: {sp.sstr(f)} = 0" for i, f in enumerate(self.constraints, 1)]
        out += [f"holonomic constraint {j}: {sp.sstr(h)} = 0 (defines {c})"
                for j, (h, c) in enumerate(zip(self.holonomic, self.dependent_coordinates), 1)]
        if self.dependent_solution:
            out += [f"  {v} = {sp.sstr(e)}" for v, e in self.dependent_solution.items()]
        return "\n".join(out)
