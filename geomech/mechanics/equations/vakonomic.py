r"""Kozlov's vakonomic dynamics (Kozlov (1982)): Hamiltonian form with multipliers.

Vakonomic motions of a system with Lagrangian :math:`L(q,\dot q)`, forces :math:`Q` and
constraints :math:`f_s = \langle a_s(q),\dot q\rangle + b_s(q) = 0` are the extremals of
:math:`\int (L - \lambda_s f_s)\,dt` with multipliers :math:`\lambda(t)`.  Kozlov's
Hamiltonian form (Kozlov 1982, Sections 3–4): with

.. math:: p = \frac{\partial L}{\partial\dot q} - \sum_s\lambda_s a_s ,\qquad
          f_s(q,\dot q) = 0

solved for :math:`\dot q(q,p)` and :math:`\lambda(q,p)`, and
:math:`H(q,p) = \langle p,\dot q\rangle - L` there,

.. math:: \dot q = \frac{\partial H}{\partial p},\qquad
          \dot p = -\frac{\partial H}{\partial q} + Q .

For :math:`L = \tfrac12\dot q^{T}G\dot q + \langle g,\dot q\rangle - U` (closed form):
:math:`u = p - g`, :math:`\Gamma = AG^{-1}A^{T}`,
:math:`\lambda = -\Gamma^{-1}(AG^{-1}u + b)`, :math:`\dot q = G^{-1}(u + A^{T}\lambda)`.

Equivalent multiplier-rule ("lagrangian") form, on the constraint manifold times the
multipliers :math:`(q, \dot q_{\rm ind}, \lambda)`:

.. math:: E(L) - Q = \sum_s\dot\lambda_s a_s + \sum_s\lambda_s C_s,\qquad
          C_{s,i} = \sum_j\Big(\frac{\partial a_{si}}{\partial q_j}
          - \frac{\partial a_{sj}}{\partial q_i}\Big)\dot q_j - \frac{\partial b_s}{\partial q_i}.

Compared with Lagrange–d'Alembert (:math:`E(L) - Q = \sum\mu_s a_s`) the extra term is
:math:`\lambda_s\, i_{\dot q}\,da_s`.  When the constraint distribution is integrable it lies
in :math:`\mathrm{span}(a)` and is absorbed: the projected motion is the nonholonomic one for
every :math:`\lambda`.

The Hamiltonian on raw data is in :mod:`geomech.mechanics.equations.vakonomic_hamilton`.

Relation to ``system.phase_space`` :math:`\mathcal M = \{(q,\dot q_{\rm ind})\}`: the
vakonomic state space has dimension :math:`2n = \dim\mathcal M + m`.  The ``"lagrangian"`` form
lives on :math:`\mathcal M\times\mathbb R^m` (coordinates: those of :math:`\mathcal M`, the same
symbols, then :math:`\lambda`); the ``"hamiltonian"`` form on :math:`T^*N` with coordinates
:math:`(q,p)`.  The diffeomorphism :math:`(q,\dot q_{\rm ind},\lambda)\mapsto
(q, \partial L/\partial\dot q - A^{T}\lambda)` maps one field to the other; the projection
to :math:`\mathcal M` forgets :math:`\lambda` (resp. is :math:`(q,p)\mapsto(q,\dot q_{\rm
ind}(q,p))`).  A vakonomic motion through a state of :math:`\mathcal M` is fixed by the
initial multipliers :math:`\lambda_0` (:meth:`VakonomicEquations.initial_state`; default 0,
Kozlov's choice for the skate).

Examples
--------
>>> import sympy as sp
>>> import geomech as gm
>>> from geomech.mechanics.system import NonholonomicSystem
>>> N = gm.Manifold("N", "x y phi")
>>> x, y, phi = N.coords; xd, yd, phid = N.velocities
>>> skate = NonholonomicSystem(N, (xd**2 + yd**2 + phid**2)/2,
...                            [xd*sp.sin(phi) - yd*sp.cos(phi)], independent=["x", "phi"])
>>> vak = skate.equations("vakonomic")
>>> px, py, pphi = vak.data["momenta"]
>>> from geomech.core.zero import is_zero
>>> is_zero(vak.hamiltonian - ((px*sp.cos(phi) + py*sp.sin(phi))**2 + pphi**2)/2)   # (22)
True
>>> vak.multipliers
{lambda1: -p_x*sin(phi) + p_y*cos(phi)}
>>> vak.agrees_with(skate.equations("lagrange_dalembert"))
False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import sympy as sp

from geomech.core.algebra.calculus import has_radicals
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.equations.common import (
    acceleration_symbols,
    inverse_solve,
)
from geomech.mechanics.equations.motion import EquationsOfMotion
from geomech.mechanics.equations.phase import ReducedDynamics
from geomech.mechanics.equations.vakonomic_hamilton import (
    compact_small,
    curvature_terms,
    multiplier_symbols,
    vakonomic_hamiltonian,
)

__all__ = ["VakonomicEquations"]


class VakonomicEquations(EquationsOfMotion):
    r"""Kozlov's vakonomic equations on an extended phase space (Kozlov (1982), Sections
    3--4; see the module docstring): the extremals of :math:`\int(L - \lambda_s f_s)\,dt`,
    in Hamiltonian form

    .. math:: p = \frac{\partial L}{\partial\dot q} - \sum_s\lambda_s a_s,\qquad
              \dot q = \frac{\partial H}{\partial p},\qquad
              \dot p = -\frac{\partial H}{\partial q} + Q,

    or in multiplier-rule form :math:`E(L) - Q = \sum_s\dot\lambda_s a_s +
    \sum_s\lambda_s C_s` with :math:`\lambda` as state variables.

    Attributes
    ----------
    form : str
        ``"vakonomic"`` (the registered name, as for every form).
    variant : {"hamiltonian", "lagrangian"}
        Which of the two equivalent forms (the option ``form=`` of :meth:`derive`).
    space : Manifold
        The state space: :math:`\mathcal M\times\mathbb R^m` with coordinates
        ``phase_space.coords + lambdas`` (``variant="lagrangian"``) or :math:`T^*N` with
        ``coords + momenta`` (``variant="hamiltonian"``).
    rhs : dict
        ``{state coordinate: time derivative}`` on :attr:`space`.
    to_phase : dict
        The projection to ``system.phase_space``: ``{phase coordinate: expression on space}``.
    multipliers : dict
        ``{lambda_s: expression on space}`` (the state variable itself in the lagrangian form).
    hamiltonian : expression or None
        Kozlov's :math:`H(q,p)` (hamiltonian form).
    """

    form = "vakonomic"

    def __init__(self, system, variant, equations, rhs, space, to_phase, multipliers, lambdas,
                 hamiltonian=None, data=None):
        if not hasattr(system, "phase_space"):
            raise TypeError(f"expected a NonholonomicSystem, got {type(system).__name__}")
        phase = system.phase_space
        super().__init__(system, "vakonomic", equations,
                         {c: rhs.get(c, sp.S.Zero) for c in phase.coords},
                         multipliers=multipliers, variables={}, form_rhs=rhs, data=data)
        self.variant = variant
        self.space = space
        self.rhs = {c: rhs[c] for c in space.coords}
        self.to_phase = dict(to_phase)
        self.lambdas = tuple(lambdas)
        self.hamiltonian = hamiltonian

    # -- fields ---------------------------------------------------------------------------
    def vector_field(self, on: Manifold | str | None = None) -> VectorField:
        """The field on :attr:`space` (default).  ``on=system.phase_space`` projects it,
        which is only possible when the projected rates do not depend on the multipliers
        (integrable constraints); otherwise ``ValueError``."""
        if on is None or on is self.space or on == "form":
            return VectorField(self.space, [self.rhs[c] for c in self.space.coords])
        if on is self.system.phase_space:
            proj = self.projected_rhs()
            if self.variant == "lagrangian":
                free = [lam for lam in self.lambdas
                        if any(not default_policy().is_constant(e, [lam]) for e in proj.values())]
                if free:
                    raise ValueError(
                        "the vakonomic motion does not project to a field on the phase space: "
                        f"its rates depend on the multipliers {free} (non-integrable "
                        "constraints); use the field on eq.space")
                proj = {c: e.xreplace(dict.fromkeys(self.lambdas, 0)) for c, e in proj.items()}
                return VectorField(on, [proj[c] for c in on.coords])
            raise ValueError("project the hamiltonian form through form='lagrangian'")
        raise TypeError(f"on= must be None, 'form', eq.space or system.phase_space, got {on!r}")

    def mass_matrix_form(self, kind: str = "reduced"):
        """Not available: the vakonomic state includes the multipliers, so there is no
        mass-matrix form on the phase space of the system (``ValueError``)."""
        raise ValueError("the vakonomic form has no mass-matrix form on the phase space of "
                         "the system (its state includes the multipliers)")

    def projected_rhs(self) -> dict:
        r"""Rates of the phase-space coordinates as functions on :attr:`space`:
        :math:`\frac{d}{dt}(\pi^* c) = X(\pi^* c)` for the projection :math:`\pi`."""
        X = VectorField(self.space, [self.rhs[c] for c in self.space.coords])
        out = {}
        for c in self.system.phase_space.coords:
            e = self.to_phase[c]
            out[c] = self.rhs[c] if e == c and c in self.rhs else X(e)
        return out

    def agrees_with(self, other, numeric: bool = False, points: int = 3) -> bool:
        r"""Whether the vakonomic motion projects, for *every* multiplier, onto the motion of
        ``other`` (an EquationsOfMotion or a field on ``system.phase_space``).

        True exactly when :math:`\frac{d}{dt}\pi^*c = (\text{other rate of } c)\circ\pi`
        identically on :attr:`space` (zero policy), e.g. for integrable constraints and
        Lagrange–d'Alembert; False for the skate.
        """
        from geomech.mechanics.equations.implicit import numerically_zero as _numerically_zero

        M = self.system.phase_space
        if isinstance(other, VakonomicEquations):
            raise TypeError("compare vakonomic forms through their spaces, not agrees_with")
        if isinstance(other, EquationsOfMotion):
            if other.system.phase_space.coords != M.coords:
                raise ValueError("the two equations live on different phase spaces")
            theirs = {c: other.rhs[c] for c in M.coords}
        elif isinstance(other, VectorField):
            if other.manifold.coords != M.coords:
                raise ValueError("the field is not on the phase space of the system")
            theirs = dict(zip(M.coords, other.components))
        else:
            raise TypeError(f"cannot compare with {type(other).__name__}")
        proj = self.projected_rhs()
        diffs = [proj[c] - theirs[c].xreplace(self.to_phase) for c in M.coords]
        if numeric:
            return all(_numerically_zero(d, points) for d in diffs)
        pol = default_policy()
        return all(pol.is_zero(d) for d in diffs)

    # -- initial data ---------------------------------------------------------------------
    def initial_multipliers(self, point: Mapping, condition: str = "motion",
                            lambda0: Sequence | None = None) -> dict:
        r"""Initial multipliers :math:`\lambda_0` for a phase-space point.

        ``condition="motion"`` (Theorem 2, imposed at the initial instant as in Kozlov's skate
        example): :math:`\lambda_0` = ``lambda0`` (default 0).  ``condition="extremal"``
        (Theorem 3): :math:`\langle p_0, a_s\rangle = 0`, i.e.
        :math:`(AA^{T})\lambda_0 = A\,\partial L/\partial\dot q`.
        """
        m = len(self.lambdas)
        if condition == "motion":
            vals = [0] * m if lambda0 is None else list(lambda0)
            if len(vals) != m:
                raise ValueError(f"lambda0 needs {m} values, got {len(vals)}")
            return {lam: as_expr(v) for lam, v in zip(self.lambdas, vals)}
        if condition != "extremal":
            raise ValueError(f"condition must be 'motion' or 'extremal', got {condition!r}")
        if lambda0 is not None:
            raise ValueError("lambda0 is determined by the extremal condition")
        S = self.system
        N = S.manifold
        rep = self._point(point)
        A = S.constraint_matrix.xreplace(rep)
        qdot = [as_expr(S.dependent_solution.get(v, v)).xreplace(rep) for v in N.velocities]
        pL = sp.Matrix([sp.diff(S.lagrangian, v) for v in N.velocities]).xreplace(
            dict(zip(N.velocities, qdot))).xreplace(rep)
        sol = (A * A.T).LUsolve(A * pL)
        return {lam: sp.nsimplify(v) if v.is_Float else v for lam, v in zip(self.lambdas, sol)}

    def _point(self, point: Mapping) -> dict:
        M = self.system.phase_space
        rep = {}
        for k, v in point.items():
            if isinstance(k, str):
                k = M.names().get(k, self.system.manifold.names().get(k))
            rep[k] = as_expr(v, exact=False)
        missing = [c for c in M.coords if c not in rep]
        if missing:
            raise ValueError(f"the point misses values for {missing}")
        S = self.system
        for i, f in enumerate(S.constraints, 1):
            val = S.restricted(f).xreplace(rep)
            if val.free_symbols - set(S.manifold.parameters) == set() and val.is_number \
                    and abs(complex(sp.N(val))) > 1e-12:
                raise ValueError(f"the point violates constraint {i}")
        return rep

    def initial_state(self, point: Mapping, lambda0: Sequence | None = None,
                      condition: str = "motion") -> dict:
        r"""The state on :attr:`space` over a phase-space point.

        ``point``: ``{q_i: value, independent velocity: value}``.  For the hamiltonian form
        :math:`p_0 = \partial L/\partial\dot q(q_0,\dot q_0) - A^{T}\lambda_0`.
        """
        lam0 = self.initial_multipliers(point, condition, lambda0)
        rep = self._point(point)
        if self.variant == "lagrangian":
            return {**{c: rep[c] for c in self.system.phase_space.coords}, **lam0}
        S = self.system
        N = S.manifold
        qdot = [as_expr(S.dependent_solution.get(v, v)).xreplace(rep) for v in N.velocities]
        pL = [sp.diff(S.lagrangian, v).xreplace(dict(zip(N.velocities, qdot))).xreplace(rep)
              for v in N.velocities]
        A = S.constraint_matrix.xreplace(rep)
        lam = sp.Matrix([lam0[lam] for lam in self.lambdas])
        p0 = sp.Matrix(pL) - (A.T * lam if len(self.lambdas) else sp.zeros(N.dim, 1))
        momenta = self.data["momenta"]
        return {**{c: rep[c] for c in N.coords}, **dict(zip(momenta, p0))}

    def __repr__(self) -> str:
        return (f"VakonomicEquations({self.system.name!r}, variant={self.variant!r}, state space "
                f"({', '.join(str(c) for c in self.space.coords)}))")

    @classmethod
    def derive(cls, system, *, explicit: bool = True, form: str = "hamiltonian",
               multipliers=None, momenta=None, route: str = "auto") -> VakonomicEquations:
        r"""Kozlov's vakonomic equations of a constrained system (the form ``"vakonomic"``).

        Parameters
        ----------
        system : NonholonomicSystem
        explicit : bool
            Accepted as by every form; the vakonomic equations are always explicit (their state
            has the multipliers or the momenta: there is no mass-matrix form on the phase
            space).
        form : {"hamiltonian", "lagrangian"}
            ``"hamiltonian"`` (default): Hamilton's equations of Kozlov's :math:`H(q,p)` on
            :math:`T^*N`, with the multipliers :math:`\lambda(q,p)` in ``eq.multipliers``
            (needs :math:`L` quadratic in the velocities).  ``"lagrangian"``: the
            multiplier-rule form on :math:`\mathcal M\times\mathbb R^m` with
            :math:`\lambda` as extra state variables.
        multipliers, momenta : names, optional
            Symbols for :math:`\lambda` (default ``lambda1 ..``) and :math:`p` (``p_<coord>``).
        route : {"auto", "reduced", "inverse"}
            How the hamiltonian form solves for :math:`\dot q(q,p)`: ``"inverse"`` through
            :math:`G^{-1}` and :math:`\Gamma^{-1}`, ``"reduced"`` through the reduced kinetic
            matrix :math:`T^{T}GT` of the constraint distribution and the envelope formula for
            :math:`\partial H/\partial q` (the ``dependent=`` option of
            :func:`vakonomic_hamiltonian`; no :math:`n\times n` inverse); ``"auto"``: reduced
            when the Lagrangian or the constraints have square roots (rolling ellipsoid, convex
            bodies), else inverse.  Both give the same equations.

        Returns
        -------
        VakonomicEquations
            An :class:`~geomech.mechanics.equations.EquationsOfMotion` on the extended space
            ``eq.space``; ``eq.agrees_with(sys.equations("lagrange_dalembert"))`` is true iff
            the projected motion is nonholonomic for every multiplier.

        Examples
        --------
        Integrable constraint :math:`\dot z = 2x\dot x` (a particle on :math:`z = x^2`):

        >>> import geomech as gm
        >>> from geomech.mechanics.system import NonholonomicSystem
        >>> N = gm.Manifold("N", "x z"); (x, z), (xd, zd) = N.coords, N.velocities
        >>> S = NonholonomicSystem(N, (xd**2 + zd**2)/2 - z, [zd - 2*x*xd], independent=["x"])
        >>> vak = VakonomicEquations.derive(S, form="lagrangian")
        >>> vak.space.coords
        (x, z, xdot, lambda1)
        >>> vak.agrees_with(S.equations("lagrange_dalembert"))
        True
        """
        cls._check(system, explicit)
        m = system.n_constraints
        lambdas = multiplier_symbols(m, multipliers)
        if form == "lagrangian":
            if momenta is not None or route != "auto":
                raise ValueError("momenta= and route= are only used by the hamiltonian form")
            return _lagrangian_form(system, lambdas)
        if form == "hamiltonian":
            return _hamiltonian_form(system, lambdas, momenta, route)
        raise ValueError(f"form must be 'hamiltonian' or 'lagrangian', got {form!r}")



def _multiplier_rates(system, red: ReducedDynamics, qdd: sp.Matrix) -> list:
    r""":math:`\dot\lambda = a_{\rm dep}^{-T}(G\ddot q - F)_{\rm dep}` (the rows of
    :math:`E(L) - Q = \sum\dot\lambda_sa_s + \ldots` at the dependent indices), with the
    large residuals of heavy bodies kept unexpanded (:func:`inverse_solve`)."""
    dep = list(system.dependent_indices)
    if not dep:
        return []
    resid = red.H * qdd - red.force
    sol = inverse_solve(red.A[:, dep].T, sp.Matrix([resid[j] for j in dep]),
                        what="constraint minor")
    return [compact_small(e) for e in sol]


def _lagrangian_form(system, lambdas, simplify_result=True) -> VakonomicEquations:
    S = system
    N = S.manifold
    n, m = N.dim, S.n_constraints
    q, vel = N.coords, N.velocities
    L = S.lagrangian
    A = S.constraint_matrix
    b = list(S.constraint_affine)
    acc = acceleration_symbols(vel)
    lamdot = tuple(sp.Symbol(f"{lam.name}dot", real=True) for lam in lambdas)
    Q = list(S.forces) if S.forces is not None else [sp.S.Zero] * n
    C = curvature_terms(A, b, q, vel)
    grad = [sp.diff(L, v) for v in vel]
    G = S.hessian
    beta = [sp.Add(*[sp.diff(grad[i], q[j]) * vel[j] for j in range(n) if grad[i].has(q[j])])
            - sp.diff(L, q[i]) for i in range(n)]
    extra = [sp.Add(*[lambdas[s] * C[i, s] for s in range(m)]) for i in range(n)]
    cdot = [sp.Add(*[sp.diff(A[s, i], q[j]) * vel[j] * vel[i] for i in range(n)
                     for j in range(n) if A[s, i].has(q[j])])
            + sp.Add(*[sp.diff(b[s], q[j]) * vel[j] for j in range(n) if b[s].has(q[j])])
            for s in range(m)]
    equations = [sp.Eq(sp.Add(*[G[i, j] * acc[j] for j in range(n)]) + beta[i] - Q[i],
                       sp.Add(*[lamdot[s] * A[s, i] for s in range(m)]) + extra[i])
                 for i in range(n)]
    equations += [sp.Eq(f, 0, evaluate=False) for f in S.constraints]

    red = ReducedDynamics(S, G, [Q[i] - beta[i] + extra[i] for i in range(n)], cdot, A,
                          "reduced mass matrix T^T G T", compact_small)
    ind = S.independent_indices
    qdd = (red.T * red.udot + red.pvec).applyfunc(compact_small)
    lam_rates = _multiplier_rates(S, red, qdd)
    rhs = {}
    for c, v in zip(q, vel):
        rhs[c] = S.dependent_solution.get(v, v)
    for i in ind:
        rhs[vel[i]] = qdd[i]
    rhs.update(zip(lambdas, lam_rates))
    space = Manifold(f"{S.phase_space.name}xR{m}", (*S.phase_space.coords, *lambdas),
                     parameters=N.parameters)
    to_phase = {c: c for c in S.phase_space.coords}
    return VakonomicEquations(S, "lagrangian", equations, rhs, space, to_phase,
                              multipliers=dict(zip(lambdas, lambdas)), lambdas=lambdas,
                              data={"curvature_terms": C, "accelerations": dict(zip(acc, qdd)),
                                    "multiplier_rates": dict(zip(lamdot, lam_rates))})


def _uses_reduced_route(system, route: str) -> bool:
    """Whether the hamiltonian form takes the reduced route (``route="auto"``: for data with
    square roots, e.g. the support function of a rolling body)."""
    if route not in ("auto", "reduced", "inverse"):
        raise ValueError(f"route must be 'auto', 'reduced' or 'inverse', got {route!r}")
    if route != "auto":
        return route == "reduced" and system.n_constraints > 0
    return has_radicals([system.lagrangian, *system.constraint_matrix,
                         *system.constraint_affine])


def _hamiltonian_form(system, lambdas, momenta, route: str = "auto") -> VakonomicEquations:
    S = system
    N = S.manifold
    dep = S.dependent_indices if _uses_reduced_route(S, route) else None
    K = vakonomic_hamiltonian(S.lagrangian, N.coords, N.velocities, S.constraint_matrix,
                              S.constraint_affine, momenta=momenta, multipliers=lambdas,
                              parameters=N.parameters, dependent=dep)
    rhs = K.rhs(S.forces)
    t = sp.Symbol("t", real=True)
    equations = [sp.Eq(sp.Derivative(c, t), rhs[c], evaluate=False) for c in K.manifold.coords]
    to_phase = dict(zip(N.coords, N.coords))
    for i in S.independent_indices:
        to_phase[N.velocities[i]] = K.velocity[i]
    data = {"momenta": K.momenta, "velocity": K.velocity, "kozlov": K,
            "route": "reduced" if dep is not None else "inverse"}
    if dep is None:             # the reduced route computes A G^-1 A^T on K.gram only
        data["gram"] = K.gram
    return VakonomicEquations(S, "hamiltonian", equations, rhs, K.manifold, to_phase,
                              multipliers=K.multipliers, lambdas=lambdas, hamiltonian=K.H,
                              data=data)
