r"""Equations of motion of nonholonomic systems in the classical forms.

Every form returns an :class:`EquationsOfMotion`: the equations in the form's own variables
(``eq.equations``), the multipliers where the form has them, and the explicit vector field on
the common phase space :math:`\mathcal M = \{(q, \dot q_{\rm ind})\}` of the system
(``eq.rhs``, ``eq.vector_field()``), so that forms can be compared exactly
(``eq.agrees_with(other)``).

Forms are registered by name with :func:`register_method`:

* ``lagrange_dalembert`` (this module): equations with multipliers (Borisov & Mamaev (2015), §3.1),

  .. math:: \frac{d}{dt}\frac{\partial L}{\partial\dot q_i}-\frac{\partial L}{\partial q_i}
            = Q_i + \sum_\mu\lambda_\mu a_{\mu i}, \qquad a\dot q + b = 0;

* ``quasi_velocities`` (Hamel / Borisov–Mamaev (5)), ``voronets``, ``chaplygin`` and ``appell``
  in :mod:`geomech.mechanics.forms_quasi` and :mod:`geomech.mechanics.forms_classical`;
* ``tzenoff`` and ``vakonomic`` in :mod:`geomech.mechanics.tzenoff` and
  :mod:`geomech.mechanics.vakonomic`.

The value types are in :mod:`geomech.mechanics.motion`; importing this module registers
every built-in form in :mod:`geomech.mechanics.registry`.

Examples
--------
>>> import sympy as sp
>>> import geomech as gm
>>> from geomech.mechanics.system import NonholonomicSystem
>>> N = gm.Manifold("N", "x y phi", parameters="m I a")
>>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I, a = N.parameters
>>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
>>> L = m/2*(xd**2 + yd**2) + I/2*phid**2 + m*a*phid*f
>>> S = NonholonomicSystem(N, L, [f], name="sleigh")
>>> eq = S.equations("lagrange_dalembert")
>>> eq.rhs[phid]
-a*m*phidot*ydot/(I*sin(phi))
>>> eq.agrees_with(S.equations("voronets"))
True
"""

from __future__ import annotations

import sympy as sp

from . import forms_classical, forms_quasi, tzenoff, vakonomic  # noqa: F401  (register)
from .forms_common import acceleration_symbols, compact, deferring
from .motion import EquationsOfMotion, ImplicitEquations, ReducedDynamics, phase_rhs_from_quasi
from .registry import get_method, register_method, registered_methods

__all__ = ["EquationsOfMotion", "ImplicitEquations", "register_method", "get_method",
           "available_methods", "lagrange_dalembert", "phase_rhs_from_quasi",
           "ReducedDynamics"]


def available_methods() -> list[str]:
    """Names of the registered forms (the built-in ones and any registered by the user).

    >>> @register_method("_demo")
    ... def _demo(system, **options):
    ...     return None
    >>> "_demo" in available_methods(), "tzenoff" in available_methods()
    (False, True)
    """
    return registered_methods()


# ---------------------------------------------------------------------------------------
@register_method("lagrange_dalembert")
def lagrange_dalembert(system, **options) -> EquationsOfMotion:
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
    >>> eq = lagrange_dalembert(S)
    >>> eq.rhs[xd]
    -xdot*y*ydot/(y**2 + 1)
    >>> eq.multipliers
    {lambda_1: xdot*ydot/(y**2 + 1)}
    """
    if options:
        raise TypeError(f"lagrange_dalembert takes no options, got {sorted(options)}")
    N = system.manifold
    n, k = N.dim, system.n_constraints
    q, vel = N.coords, N.velocities
    L = system.lagrangian
    A = system.constraint_matrix
    b = system.constraint_affine
    acc = acceleration_symbols(vel)
    lam = tuple(sp.Symbol(f"lambda_{i + 1}", real=True) for i in range(k))
    Q = list(system.forces) if system.forces is not None else [sp.S.Zero] * n

    p = [sp.diff(L, v) for v in vel]
    H = system.hessian
    beta = [sp.Add(*[sp.diff(p[i], q[j]) * vel[j] for j in range(n) if p[i].has(q[j])])
            - sp.diff(L, q[i]) for i in range(n)]
    # d/dt of the constraints: a qdd + c, c = adot qdot + bdot
    c = [sp.Add(*[sp.diff(A[m, i], q[j]) * vel[j] * vel[i] for i in range(n)
                  for j in range(n) if A[m, i].has(q[j])])
         + sp.Add(*[sp.diff(b[m], q[j]) * vel[j] for j in range(n) if b[m].has(q[j])])
         for m in range(k)]
    equations = [sp.Eq(sp.Add(*[H[i, j] * acc[j] for j in range(n)]) + beta[i],
                       Q[i] + sp.Add(*[lam[m] * A[m, i] for m in range(k)]), evaluate=False)
                 for i in range(n)]
    equations += [sp.Eq(f, 0, evaluate=False) for f in system.constraints]

    # restrict everything to the phase space (for the implicit form, explicit=False, the
    # right-hand sides are left unnormalised: the numerics eliminate common subexpressions)
    norm = (lambda e: e) if deferring() else compact
    red = ReducedDynamics(system, H, [Q[i] - beta[i] for i in range(n)], c, A,
                          "reduced mass matrix T^T H T on the constraint distribution",
                          norm)
    T, udot, pvec, Hr, rest, cr = red.T, red.udot, red.pvec, red.H, red.force, red.cdot
    Mred, rhs_red = red.mass, red.rhs
    ind = system.independent_indices

    def accelerations():
        return (T * udot + pvec).applyfunc(compact)

    def multipliers():     # evaluated on first access
        return dict(zip(lam, red.multipliers(T * udot + pvec)))

    rhs = {}
    for cc, v in zip(q, vel):
        rhs[cc] = system.dependent_solution.get(v, v)
    for j, i in enumerate(ind):
        rhs[vel[i]] = udot[j]          # the rows of T at the independent indices are the identity
    eq = EquationsOfMotion(
        system, "lagrange_dalembert", equations, rhs, multipliers=multipliers if k else None,
        variables={}, form_rhs=rhs, data={"reduced_mass_matrix": Mred})
    eq._lazy_data["accelerations"] = lambda: dict(zip(acc, accelerations()))

    def bordered() -> ImplicitEquations:
        # [[H, -a^T], [a, 0]] (qdd, lambda) = (Q - beta, -(adot qdot + bdot)) on M
        Mb = sp.zeros(n + k, n + k)
        Mb[:n, :n] = Hr
        if k:
            Mb[:n, n:] = -A.T
            Mb[n:, :n] = A
        Fb = [*rest, *[-e for e in cr]]
        rates = {cc: system.dependent_solution.get(v, v) for cc, v in zip(q, vel)}
        rates.update({vel[i]: acc[i] for i in ind})
        return ImplicitEquations(system, "lagrange_dalembert", Mb, Fb, (*acc, *lam), rates,
                                 kind="bordered")

    eq._bordered = bordered
    acc_u = tuple(acc[i] for i in ind)
    eq._implicit = lambda: ImplicitEquations(
        system, "lagrange_dalembert", Mred, rhs_red, acc_u,
        {**{cc: system.dependent_solution.get(v, v) for cc, v in zip(q, vel)},
         **dict(zip(system.independent_velocities, acc_u))})
    return eq


