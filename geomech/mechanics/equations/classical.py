r"""The classical forms: Lagrange--d'Alembert equations with multipliers
(:class:`LagrangeDalembertEquations`, Borisov & Mamaev (2015), §3.1), and the Voronets and
Chaplygin equations (in the independent velocities); each class derives its form
(``derive``).

With the constraints solved as :math:`\dot q_r = b_{r\alpha}(q)\dot q_\alpha + b_r(q)`
(:math:`r` dependent, :math:`\alpha` independent), :math:`\Theta = L^*` the Lagrangian with
the dependent velocities substituted and :math:`\tau_\alpha = \partial_{q_\alpha} +
b_{r\alpha}\partial_{q_r}`, the **Voronets equations** are

.. math:: \frac{d}{dt}\frac{\partial\Theta}{\partial\dot q_\alpha}
   = \tau_\alpha(\Theta) + \sum_r\Big(\frac{\partial L}{\partial\dot q_r}\Big)^*
     \Big(\sum_\beta A^r_{\alpha\beta}\dot q_\beta + B^r_\alpha\Big)
     + Q^*_\alpha + \sum_r b_{r\alpha}Q^*_r ,

:math:`A^r_{\alpha\beta}=\tau_\beta(b_{r\alpha})-\tau_\alpha(b_{r\beta})`,
:math:`B^r_\alpha=\sum_s b_s\partial_{q_s}b_{r\alpha}-\tau_\alpha(b_r)` (zero for homogeneous
constraints).  When :math:`L`, :math:`b` and :math:`Q` do not depend on the dependent
coordinates (a **Chaplygin system**) this is Chaplygin's form

.. math:: \frac{d}{dt}\frac{\partial\Theta}{\partial\dot z_\alpha}
   -\frac{\partial\Theta}{\partial z_\alpha} = \sum_\beta S_{\alpha\beta}\dot z_\beta
   - \sum_r p_r\frac{\partial b_r}{\partial z_\alpha} + Q^*_\alpha+\sum_rb_{r\alpha}Q^*_r,
   \qquad S_{\alpha\beta} = \sum_r p_r\Big(\frac{\partial b_{r\alpha}}{\partial z_\beta}
   -\frac{\partial b_{r\beta}}{\partial z_\alpha}\Big),

a closed system on :math:`(z,\dot z)` (Borisov & Mamaev (2015), Prop. 5, the abelian case).

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh(independent=("ydot", "phidot"))
>>> eq = S.equations("chaplygin")
>>> eq.data["S"][0, 1]
m*(a*phidot*sin(phi)**2 - ydot*cos(phi))/sin(phi)**3
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.kernel import lagrangian_derivatives, memo_diff
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.equations.common import acceleration_symbols, mass_matrix_solution
from geomech.mechanics.equations.elimination import (
    compact_if_pays,
    keep_small,
    quadratic_form,
    restricted_quadratic,
)
from geomech.mechanics.equations.implicit import ImplicitEquations
from geomech.mechanics.equations.motion import EquationsOfMotion
from geomech.mechanics.equations.phase import ReducedDynamics, phase_rhs_from_quasi

__all__ = ["LagrangeDalembertEquations", "VoronetsEquations", "ChaplyginEquations",
           "chaplygin_coordinates"]


def _split_data(system):
    return system.velocity_split()


def _forces_star(system):
    if system.forces is None:
        return None
    return [compact(system.restricted(Qi)) for Qi in system.forces]


class VoronetsEquations(EquationsOfMotion):
    r"""Voronets equations in the independent velocities (Voronets (1901); Neimark & Fufaev
    (1972)):

    .. math:: \frac{d}{dt}\frac{\partial\Theta}{\partial\dot q_\alpha}
       = \tau_\alpha(\Theta) + \sum_r\Big(\frac{\partial L}{\partial\dot q_r}\Big)^*
         \Big(\sum_\beta A^r_{\alpha\beta}\dot q_\beta + B^r_\alpha\Big)
         + Q^*_\alpha + \sum_r b_{r\alpha}Q^*_r ,

    with the constraints solved as :math:`\dot q_r = b_{r\alpha}\dot q_\alpha + b_r`,
    :math:`\Theta = L^*`, :math:`\tau_\alpha = \partial_{q_\alpha} + b_{r\alpha}\partial_{q_r}`,
    :math:`A^r_{\alpha\beta}=\tau_\beta(b_{r\alpha})-\tau_\alpha(b_{r\beta})` and
    :math:`B^r_\alpha=\sum_s b_s\partial_{q_s}b_{r\alpha}-\tau_\alpha(b_r)`
    (see :mod:`geomech.mechanics.equations.classical`).
    """

    form = "voronets"

    @classmethod
    def derive(cls, system, *, explicit: bool = True, **options) -> VoronetsEquations:
        """Voronets equations (see the module docstring) in the independent velocities."""
        cls._check(system, explicit)
        if options:
            raise TypeError(f"voronets takes no options, got {sorted(options)}")
        equations, rhs, data, rec = _voronets(system, explicit)
        return cls(system, cls.form, equations, rhs, variables={}, data=data, deferred=rec)


def _voronets(system, explicit: bool, chaplygin: bool = False) -> tuple:
    """``(equations, rhs, data, deferred solve)`` of the Voronets (or Chaplygin) equations."""
    N = system.manifold
    q, vel = N.coords, N.velocities
    dep = system.dependent_indices
    u = system.independent_velocities
    r = len(u)
    brows, bfree = _split_data(system)
    L = system.lagrangian
    # every piece is brought to its normal form only when that is small and pays (keep_small):
    # the cancelled L* of a chain of knife edges is 20x its restriction and its derivatives
    # dominate (the three-link snake: 45 s -> 0.7 s); the value is the same function
    quad = restricted_quadratic(system)
    Theta = keep_small(system.restricted(L)) if quad is None else _theta(quad, u)
    pr = {j: keep_small(system.restricted(sp.diff(L, vel[j]))) if quad is None else
          sp.Add(*(keep_small(quad["GB"][j, a]) * u[a] for a in range(r)),
                 keep_small(quad["Gb+a"][j])) for j in dep}
    qdot = system.velocity_on_phase_space()
    rhs, Smat = _voronets_forces(system, brows, bfree, Theta, pr, chaplygin)
    # the implicit form (explicit=False) keeps the right-hand sides unnormalised
    norm = keep_small if explicit else (lambda e: e)
    rhs = [norm(e) for e in rhs]
    dTheta = [sp.diff(Theta, ua) for ua in u]
    Mass = quad["M"] if quad is not None else \
        sp.Matrix(r, r, lambda a, b: keep_small(sp.diff(dTheta[a], u[b])))
    drift = [sp.Add(*[sp.diff(dTheta[a], q[i]) * qdot[i] for i in range(N.dim)
                      if dTheta[a].has(q[i])]) for a in range(r)]
    udot, rec = mass_matrix_solution(Mass, sp.Matrix([rhs[a] - drift[a] for a in range(r)]),
                                     "mass matrix d2L*/dqdot_ind2", explicit)
    acc = acceleration_symbols(u)
    # evaluate=False: deciding the truth of an Eq of large expressions costs seconds
    equations = [sp.Eq(sp.Add(*[Mass[a, b] * acc[b] for b in range(r)]) + drift[a], rhs[a],
                       evaluate=False) for a in range(r)]
    equations += [sp.Eq(vel[j], system.dependent_solution[vel[j]], evaluate=False)
                  for j in dep]
    out = {c: qdot[i] for i, c in enumerate(q)}
    out.update(dict(zip(u, udot)))
    data = {"reduced_lagrangian": Theta, "dependent_momenta": {vel[j]: pr[j] for j in dep},
            "mass_matrix": Mass}
    if chaplygin:
        data["S"] = Smat
    return equations, out, data, rec


def _theta(quad: dict, u) -> sp.Expr:
    r""":math:`\Theta = L^* = \tfrac12u^{\mathsf T}Mu + (w + c)^{\mathsf T}u + k + k_1 + L_0`
    from the pieces of
    :func:`~geomech.mechanics.equations.elimination.restricted_quadratic` (normalised
    coefficients: its derivatives stay small; the rattleback's restricted Lagrangian
    differentiated as built cost most of its Voronets equations)."""
    lin = quad["w"] + quad["c"]
    return sp.Add(quadratic_form(quad["M"], u) / 2, *(lin[i] * u[i] for i in range(len(u))),
                  quad["k"], quad["k1"], quad["L0"])


def _voronets_forces(system, brows, bfree, Theta, pr, chaplygin: bool) -> tuple[list, object]:
    r"""Right-hand sides of the Voronets (or Chaplygin) equations and Chaplygin's matrix
    :math:`S` (zero for Voronets): :math:`\tau_\alpha(\Theta) + \sum_r p_r^*(A^r_{\alpha\beta}
    \dot q_\beta + B^r_\alpha) + Q^*_\alpha + \sum_r b_{r\alpha}Q^*_r` (module docstring)."""
    q = system.manifold.coords
    ind, dep = system.independent_indices, system.dependent_indices
    u = system.independent_velocities
    r = len(u)

    memos: dict = {x: {} for x in q}   # derivatives of shared sub-expressions, once

    def d(f, x):
        return memo_diff(as_expr(f), x, memos[x])

    def tau(a, f):
        e = d(f, q[ind[a]])
        for j in dep:
            if brows[j][a] != 0:
                e += brows[j][a] * d(f, q[j])
        return e

    Qs = _forces_star(system)
    rhs, Smat = [], sp.zeros(r, r)
    for a in range(r):
        e = d(Theta, q[ind[a]]) if chaplygin else tau(a, Theta)
        for j in dep:
            if chaplygin:
                for b in range(r):
                    Smat[a, b] += pr[j] * (d(brows[j][a], q[ind[b]])
                                           - d(brows[j][b], q[ind[a]]))
                e -= pr[j] * d(bfree[j], q[ind[a]])
            else:
                Ar = [tau(b, brows[j][a]) - tau(a, brows[j][b]) for b in range(r)]
                Br = sp.Add(*[bfree[s] * d(brows[j][a], q[s]) for s in dep]) \
                    - tau(a, bfree[j])
                e += pr[j] * (sp.Add(*[Ar[b] * u[b] for b in range(r)]) + Br)
        if Qs is not None:
            e += Qs[ind[a]] + sp.Add(*[brows[j][a] * Qs[j] for j in dep])
        rhs.append(e)
    if chaplygin:
        Smat = Smat.applyfunc(keep_small)
        for a in range(r):
            rhs[a] += sp.Add(*[Smat[a, b] * u[b] for b in range(r)])
    return rhs, Smat


def _depends_on(e: sp.Expr, x: sp.Symbol, pol) -> bool:
    """Whether ``e`` depends on ``x``: structurally absent -> no; a non-zero derivative at a
    random exact point (evaluated with 50 digits, clearly above the rounding level) -> yes;
    otherwise the zero policy decides."""
    if not e.has(x):
        return False
    d = sp.diff(e, x)
    pt = pol.random_point(sorted(d.free_symbols, key=sp.default_sort_key))
    try:
        v = sp.N(d.xreplace(pt), 50)
    except (ZeroDivisionError, TypeError, ValueError):
        v = None
    if v is not None and v.is_number and not v.has(sp.zoo, sp.nan) and abs(v) > 1e-25:
        return True
    return not pol.is_constant(e, [x])


def chaplygin_coordinates(system) -> tuple[int, ...] | None:
    """Indices of ``k`` coordinates on which the Lagrangian, the constraints and the forces do
    not depend and whose velocities can be solved for (``None`` if there are none).

    The system's own dependent coordinates are preferred.
    """
    N = system.manifold
    n, k = N.dim, system.n_constraints
    q = N.coords
    pol = default_policy()
    exprs = [system.lagrangian, *system.constraint_matrix, *system.constraint_affine,
             *(system.forces or ())]
    cyclic = [i for i in range(n) if not any(_depends_on(e, q[i], pol) for e in exprs)]
    if set(system.dependent_indices) <= set(cyclic):
        return system.dependent_indices
    A = system.constraint_matrix
    for combo in itertools.combinations(cyclic, k):
        if not pol.is_zero(A[:, list(combo)].det(method="berkowitz")):
            return combo
    return None


class ChaplyginEquations(EquationsOfMotion):
    r"""Chaplygin's equations of a Chaplygin system (Chaplygin (1897); Borisov & Mamaev
    (2015), Prop. 5, the abelian case): :math:`L`, :math:`b` and :math:`Q` free of the
    cyclic coordinates,

    .. math:: \frac{d}{dt}\frac{\partial\Theta}{\partial\dot z_\alpha}
       -\frac{\partial\Theta}{\partial z_\alpha} = \sum_\beta S_{\alpha\beta}\dot z_\beta
       - \sum_r p_r\frac{\partial b_r}{\partial z_\alpha} + Q^*_\alpha+\sum_rb_{r\alpha}Q^*_r,
       \qquad S_{\alpha\beta} = \sum_r p_r\Big(\frac{\partial b_{r\alpha}}{\partial z_\beta}
       -\frac{\partial b_{r\beta}}{\partial z_\alpha}\Big),

    a closed system on :math:`(z, \dot z)` (``eq.data["reduced"]``, ``eq.data["S"]``).
    """

    form = "chaplygin"

    @classmethod
    def derive(cls, system, *, explicit: bool = True, **options) -> ChaplyginEquations:
        """Chaplygin's equations for a Chaplygin system (see the module docstring).

        The reduced equations on :math:`(z,\\dot z)` are in ``eq.form_rhs`` restricted to the
        ``z`` entries (``eq.data["reduced"]``); ``eq.rhs`` adds the kinematics of the cyclic
        coordinates.  Raises ``ValueError`` when the system is not a Chaplygin system.
        """
        cls._check(system, explicit)
        if options:
            raise TypeError(f"chaplygin takes no options, got {sorted(options)}")
        combo = chaplygin_coordinates(system)
        if combo is None:
            raise ValueError(
                f"{system.name} is not a Chaplygin system: there is no set of "
                f"{system.n_constraints} coordinate(s) on which the Lagrangian, the constraints "
                "and the forces do not depend and whose velocities the constraints determine")
        N = system.manifold
        red_sys = system
        if tuple(combo) != tuple(system.dependent_indices):
            # a system of the same class as the given one (no import of the system module)
            ind = [N.velocities[i] for i in range(N.dim) if i not in combo]
            red_sys = type(system)(N, system.lagrangian, system.constraints,
                                   forces=system.forces, independent=ind,
                                   name=system.name + "_chaplygin")
        equations, rhs, data, rec = _voronets(red_sys, explicit, chaplygin=True)
        form_rhs = None
        if red_sys is not system:
            inner = cls(red_sys, cls.form, equations, rhs, variables={}, data=data)
            tangent = red_sys.adapted_frame()[0]
            K = sp.Matrix(N.dim, len(tangent), lambda i, a: tangent[a].components[i])
            k0 = list(red_sys.affine_velocity().components)
            s = red_sys.independent_velocities
            form_rhs = inner.form_rhs
            rhs = phase_rhs_from_quasi(system, K, k0, s, [form_rhs[v] for v in s])
        z = [N.coords[i] for i in red_sys.independent_indices]
        keys = (*z, *red_sys.independent_velocities)
        data["cyclic_coordinates"] = tuple(N.coords[i] for i in combo)
        eq = cls(system, cls.form, equations, rhs, variables={}, form_rhs=form_rhs, data=data,
                 lazy_data={"reduced": lambda: {c: eq.form_rhs[c] for c in keys}},
                 deferred=rec)
        return eq


# ---------------------------------------------------------------------------------------
class LagrangeDalembertEquations(EquationsOfMotion):
    r"""Lagrange--d'Alembert equations with multipliers (Borisov & Mamaev (2015), §3.1;
    Neimark & Fufaev (1972)):

    .. math:: \frac{d}{dt}\frac{\partial L}{\partial\dot q_i}-\frac{\partial L}{\partial q_i}
              = Q_i + \sum_\mu\lambda_\mu a_{\mu i}, \qquad a(q)\dot q + b(q) = 0 .

    ``eq.multipliers`` holds :math:`\lambda_\mu` on the phase space; besides the reduced
    mass-matrix form, ``eq.mass_matrix_form("bordered")`` gives the saddle-point system in
    :math:`(\ddot q, \lambda)`.
    """

    form = "lagrange_dalembert"
    #: builder of the bordered system (a callable until first use, then its value)
    _bordered: ImplicitEquations | Callable | None = None

    def __init__(self, *args, bordered: ImplicitEquations | Callable | None = None,
                 **kwargs):
        super().__init__(*args, **kwargs)
        if bordered is not None:
            self._bordered = bordered

    def _bordered_form(self) -> ImplicitEquations:
        r""":math:`\begin{pmatrix} H & -a^{\mathsf T}\\ a & 0\end{pmatrix}
        \begin{pmatrix}\ddot q\\ \lambda\end{pmatrix} = \begin{pmatrix} Q - \beta\\
        -\dot a\dot q - \dot b\end{pmatrix}` on the constraint manifold."""
        if self._bordered is None:
            return super()._bordered_form()
        if not isinstance(self._bordered, ImplicitEquations):
            self._bordered = self._bordered()
        return self._bordered

    def __getstate__(self) -> dict:
        if callable(self._bordered) and not isinstance(self._bordered, ImplicitEquations):
            self._bordered = self._bordered()
        return super().__getstate__()

    @classmethod
    def derive(cls, system, *, explicit: bool = True,
               **options) -> LagrangeDalembertEquations:
        r"""Lagrange–d'Alembert equations with explicit multipliers (Borisov & Mamaev (2015), §3.1).

        .. math:: H\ddot q + \beta = Q + a^{\mathsf T}\lambda,\qquad a\ddot q + \dot a\dot q
                  + \dot b = 0,

        with :math:`H=\partial^2L/\partial\dot q^2`, :math:`\beta_i=\sum_j\partial^2L/
        \partial\dot q_i\partial q_j\,\dot q_j-\partial L/\partial q_i`.  The linear system for
        :math:`(\ddot q,\lambda)` is solved exactly on the phase space by eliminating
        :math:`\ddot q_{\rm dep}` (Schur complement on the constraint distribution):
        :math:`\ddot q = T\dot u + p` with :math:`aT=0`, :math:`(T^{\mathsf T}HT)\dot u =
        T^{\mathsf T}(Q-\beta-Hp)`, then :math:`\lambda = a_{\rm dep}^{-\mathsf T}(H\ddot q+\beta
        -Q)_{\rm dep}`.

        >>> import geomech as gm
        >>> from geomech.mechanics.system import NonholonomicSystem
        >>> N = gm.Manifold("N", "x y z"); (xd, yd, zd), y = N.velocities, N.coords[1]
        >>> S = NonholonomicSystem(N, (xd**2 + yd**2 + zd**2)/2, [zd - y*xd], independent="x y")
        >>> eq = LagrangeDalembertEquations.derive(S)
        >>> eq.rhs[xd]
        -xdot*y*ydot/(y**2 + 1)
        >>> eq.multipliers
        {lambda_1: xdot*ydot/(y**2 + 1)}
        """
        cls._check(system, explicit)
        if options:
            raise TypeError(f"lagrange_dalembert takes no options, got {sorted(options)}")
        N = system.manifold
        n, k = N.dim, system.n_constraints
        q, vel = N.coords, N.velocities
        acc = acceleration_symbols(vel)
        lam = tuple(sp.Symbol(f"lambda_{i + 1}", real=True) for i in range(k))
        Q = list(system.forces) if system.forces is not None else [sp.S.Zero] * n
        H = system.hessian
        beta, c = _ld_terms(system)
        equations = _ld_equations(system, H, beta, Q, acc, lam)
        # restrict everything to the phase space, nothing expanded: the solve decides what to
        # bring to a normal form (for the implicit form, explicit=False, nothing is solved)
        red = ReducedDynamics(system, H, [Q[i] - beta[i] for i in range(n)], c,
                              system.constraint_matrix,
                              "reduced mass matrix T^T H T on the constraint distribution",
                              explicit=explicit)
        T, udot, pvec = red.T, red.udot, red.pvec

        def multipliers():     # evaluated on first access
            return dict(zip(lam, red.multipliers(udot)))

        rhs = {cc: system.dependent_solution.get(v, v) for cc, v in zip(q, vel)}
        for j, i in enumerate(system.independent_indices):
            rhs[vel[i]] = udot[j]   # the rows of T at the independent indices are the identity
        # form_rhs: the form's own variables are the phase-space coordinates
        return cls(system, cls.form, equations, rhs,
                   multipliers=multipliers if k else None, variables={},
                   data={"reduced_mass_matrix": red.mass},
                   bordered=lambda: _ld_bordered(system, red, acc, lam),
                   implicit=lambda: _ld_implicit(system, red, acc),
                   lazy_data={"accelerations": lambda: dict(
                       zip(acc, (T * udot + pvec).applyfunc(compact_if_pays)))},
                   deferred=red.deferred)


def _ld_equations(system, H, beta, Q, acc, lam) -> list:
    r""":math:`H\ddot q + \beta = Q + a^{\mathsf T}\lambda` and the constraints, as
    unevaluated equations."""
    n, k = system.manifold.dim, system.n_constraints
    A = system.constraint_matrix
    return [sp.Eq(sp.Add(*[H[i, j] * acc[j] for j in range(n)]) + beta[i],
                  Q[i] + sp.Add(*[lam[m] * A[m, i] for m in range(k)]), evaluate=False)
            for i in range(n)] + [sp.Eq(f, 0, evaluate=False) for f in system.constraints]


def _ld_terms(system) -> tuple[list, list]:
    r"""``(beta, c)``: :math:`\beta_i=\sum_j\partial^2L/\partial\dot q_i\partial q_j\,\dot q_j
    -\partial L/\partial q_i` and the derivative of the constraints
    :math:`c = \dot a\dot q + \dot b` (so that :math:`\frac{d}{dt}(a\dot q + b) = a\ddot q + c`).

    :math:`\beta` is computed in the sparse ring when :math:`L` is a trigonometric polynomial
    (:func:`geomech.core.kernel.lagrangian_derivatives`), else by :func:`sympy.diff`."""
    N = system.manifold
    n, k = N.dim, system.n_constraints
    q, vel = N.coords, N.velocities
    L, A, b = system.lagrangian, system.constraint_matrix, system.constraint_affine
    derivs = lagrangian_derivatives(L, q, vel)
    if derivs is not None:
        beta = derivs[1]
    else:
        p = [sp.diff(L, v) for v in vel]
        beta = [sp.Add(*[sp.diff(p[i], q[j]) * vel[j] for j in range(n) if p[i].has(q[j])])
                - sp.diff(L, q[i]) for i in range(n)]
    memos: dict = {x: {} for x in q}   # derivatives of shared sub-expressions, once
    c = [sp.Add(*[memo_diff(A[m, i], q[j], memos[q[j]]) * vel[j] * vel[i] for i in range(n)
                  for j in range(n) if A[m, i].has(q[j])])
         + sp.Add(*[memo_diff(b[m], q[j], memos[q[j]]) * vel[j] for j in range(n)
                    if b[m].has(q[j])])
         for m in range(k)]
    return beta, c


def _ld_bordered(system, red: ReducedDynamics, acc, lam) -> ImplicitEquations:
    """``[[H, -a^T], [a, 0]] (qdd, lambda) = (Q - beta, -(adot qdot + bdot))`` on M."""
    N = system.manifold
    n, k = N.dim, system.n_constraints
    q, vel = N.coords, N.velocities
    Mb = sp.zeros(n + k, n + k)
    Mb[:n, :n] = red.H
    if k:
        Mb[:n, n:] = -red.A.T
        Mb[n:, :n] = red.A
    Fb = [*red.force, *[-e for e in red.cdot]]
    rates = {cc: system.dependent_solution.get(v, v) for cc, v in zip(q, vel)}
    rates.update({vel[i]: acc[i] for i in system.independent_indices})
    return ImplicitEquations(system, "lagrange_dalembert", Mb, Fb, (*acc, *lam), rates,
                             kind="bordered")


def _ld_implicit(system, red: ReducedDynamics, acc) -> ImplicitEquations:
    r"""The reduced mass-matrix form
    :math:`(T^{\mathsf T}HT)\dot u = T^{\mathsf T}(Q-\beta-Hp)`."""
    N = system.manifold
    acc_u = tuple(acc[i] for i in system.independent_indices)
    rates = {cc: system.dependent_solution.get(v, v) for cc, v in zip(N.coords, N.velocities)}
    rates.update(dict(zip(system.independent_velocities, acc_u)))
    return ImplicitEquations(system, "lagrange_dalembert", red.mass, red.rhs, acc_u, rates)
