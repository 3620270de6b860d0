r"""Noether fields and linear first integrals of nonholonomic systems (Borisov & Mamaev
(2015), §5.1, with the examples of §5.2 and §6).

* **Theorem 4 (Kozlov and Kolesnikov (1978)).** If :math:`u\in\Gamma(\mathcal D)`,
  :math:`(Q,u)=0` and :math:`\tilde u(L)|_{\mathcal M}=0`, then
  :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` is a first integral: the test
  :func:`~geomech.mechanics.analysis.kozlov_kolesnikov.check_noether_field` and the one
  search :func:`~geomech.mechanics.analysis.kozlov_kolesnikov.noether_template_fields`
  live in :mod:`geomech.mechanics.analysis.kozlov_kolesnikov`.
* **The search** in an ansatz family: :func:`noether_fields` and :func:`linear_integrals`
  build a coordinate template and call the one search (tangent generators times functions:
  :func:`~geomech.mechanics.analysis.kozlov_kolesnikov.find_noether_fields`).
* **Theorem 5.** For a natural system :math:`L=\tfrac12(\dot q,B\dot q)-U`, a linear integral
  :math:`F=(u^{(0)},B\dot q)` comes from the Noether field :math:`u=\Pi_B u^{(0)}`
  (:func:`noether_field_from_integral`).
* **Function ansatz** (as for the Routh sphere, §5.2): a linear ODE/PDE system
  (:mod:`geomech.mechanics.analysis.noether_functions`, reached through
  :func:`noether_fields` with a :class:`FunctionAnsatz`).

>>> import geomech as gm
>>> S = gm.examples.skate()                 # Kozlov's skate: phidot is an integral
>>> noether_field_from_integral(S, "phidot").components
(0, 0, 1)
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from geomech.core.algebra.normal_form import compact
from geomech.core.fields import VectorField
from geomech.core.zero import is_zero
from geomech.mechanics.analysis.ansatz import FunctionAnsatz, coerce_ansatz
from geomech.mechanics.analysis.common import check_system
from geomech.mechanics.analysis.integrals import system_is_first_integral
from geomech.mechanics.analysis.kozlov_kolesnikov import (
    check_noether_field,
    noether_template_fields,
)
from geomech.mechanics.analysis.noether_functions import (
    NoetherFieldSystem,
    noether_field_system,
)

__all__ = ["LinearIntegral", "noether_field_from_integral", "noether_fields", "linear_integrals"]


def _kinetic_matrix(system) -> sp.Matrix:
    N = system.manifold
    L = system.lagrangian
    qd = N.velocities
    B = sp.Matrix(N.dim, N.dim, lambda i, j: sp.diff(L, qd[i], qd[j]))
    if any(B[i, j].has(*qd) for i in range(N.dim) for j in range(N.dim)):
        raise ValueError("Theorem 5 needs a natural Lagrangian: the kinetic matrix "
                         "d^2L/dqdot^2 depends on the velocities")
    return B


def noether_field_from_integral(system, F) -> VectorField:
    r"""Theorem 5: the Noether field of a linear integral of a natural system.

    For :math:`L=\tfrac12(\dot q,B\dot q)+\dots` and :math:`F=\sum_i\beta_i(q)\dot q_i`,

    .. math:: u^{(0)}=B^{-1}\beta,\qquad
              u=\Pi_Bu^{(0)}=u^{(0)}-B^{-1}A^T(AB^{-1}A^T)^{-1}Au^{(0)} ,

    the :math:`B`-orthogonal projection onto :math:`\mathcal D`, computed in the frame
    :math:`\tau_s` of :math:`\mathcal D` given by the independent velocities as
    :math:`u=\sum_{s,r}\tau_s(G^{-1})_{sr}F(\tau_r)`, :math:`G_{sr}=(\tau_s,B\tau_r)`
    (only an :math:`(n-k)\times(n-k)` inverse).  ``u`` is the unique field in
    :math:`\mathcal D` with :math:`(u,B\dot q)=F` on :math:`\mathcal M`; it is a Noether field
    iff ``F`` is an integral (check with
    :func:`~geomech.mechanics.analysis.kozlov_kolesnikov.check_noether_field`).

    Examples
    --------
    >>> import sympy as sp, geomech as gm
    >>> N = gm.Manifold("N", "x y phi"); phi = N.coords[2]; xd, yd, phid = N.velocities
    >>> S = gm.NonholonomicSystem(N, lagrangian=(xd**2 + yd**2 + phid**2)/2,
    ...                           constraints=[-xd*sp.sin(phi) + yd*sp.cos(phi)])
    >>> noether_field_from_integral(S, phid).components
    (0, 0, 1)
    """
    check_system(system)
    N = system.manifold
    F = N.sympify(F) if not isinstance(F, sp.Basic) else F
    qd = N.velocities
    beta = [sp.diff(F, v) for v in qd]
    if any(b.has(*qd) for b in beta) or not is_zero(F.xreplace({v: 0 for v in qd})):
        raise ValueError(f"F is not linear and homogeneous in the velocities: {F}")
    B = _kinetic_matrix(system)
    # the frame of D of the velocity split, qdot = sum_s v_s tau_s (+ affine part)
    taus = [sp.Matrix(t.components) for t in system.adapted_frame()[0]]
    G = sp.Matrix(len(taus), len(taus), lambda i, j: sp.expand((taus[i].T * B * taus[j])[0]))
    h = sp.Matrix([sp.expand(sum(b * t for b, t in zip(beta, tau))) for tau in taus])
    det = G.det(method="berkowitz")
    if is_zero(det):
        raise ValueError("the kinetic metric restricted to the constraint distribution is "
                         "degenerate")
    coef = (G.adjugate(method="berkowitz") * h) / det
    u = sum((coef[i] * taus[i] for i in range(len(taus))), sp.zeros(N.dim, 1))
    return N.vector_field([compact(e) for e in u])


@dataclass
class LinearIntegral:
    r"""A linear first integral with its Noether field.

    ``expression`` is :math:`F=\sum_i u_i\,\partial L/\partial\dot q_i` on :math:`TN`,
    ``on_phase_space`` its restriction; ``verified`` records the exact check
    :math:`V(F|_{\mathcal M})\equiv0` against ``system.vector_field()``.
    """

    expression: sp.Expr
    on_phase_space: sp.Expr
    field: VectorField
    is_symmetry: bool
    verified: bool


def noether_fields(system, ansatz=None, solve: bool = False):
    r"""Noether fields (Theorem 4) in an ansatz family: a basis over the constants.

    With a constant-coefficient :class:`Ansatz` (default:
    :func:`~geomech.mechanics.analysis.ansatz.default_ansatz`) the conditions

    .. math:: Au\equiv 0,\qquad (Q,u)|_{\mathcal M}=0,\qquad \tilde u(L)|_{\mathcal M}\equiv0

    are linear in the constants and solved exactly (the one search,
    :func:`~geomech.mechanics.analysis.kozlov_kolesnikov.noether_template_fields`; each field
    passes Theorem 4); the result is a list of :class:`VectorField`.  With a
    :class:`FunctionAnsatz` (unknown functions, as for the Routh sphere of §5.2) the same
    conditions give a linear ODE/PDE system, returned as a :class:`NoetherFieldSystem`
    (solved by ``sympy.dsolve`` when ``solve=True``).

    Examples
    --------
    The skateboard (Borisov & Mamaev (2015), §6.3): the rotation of the wheels is the only
    constant Noether field.

    >>> import geomech as gm
    >>> [u.components for u in noether_fields(gm.examples.skateboard(), ansatz=[1])]
    [(0, 0, 0, 1)]
    """
    check_system(system)
    if isinstance(ansatz, FunctionAnsatz):
        return noether_field_system(system, ansatz, solve)
    N = system.manifold
    comps, unknowns = coerce_ansatz(system, ansatz).template(N)
    found = noether_template_fields(system, comps, unknowns)
    return [N.vector_field(u) for u in found]


def linear_integrals(system, ansatz=None, fields=None) -> list[LinearIntegral]:
    r"""Linear integrals :math:`F=\langle\partial L/\partial\dot q,u\rangle` of Noether fields.

    The Noether fields are searched with :func:`noether_fields` in ``ansatz`` (or taken from
    ``fields``); each integral is verified exactly as a first integral of
    ``system.vector_field()``; a failed verification raises ``RuntimeError``.  In the
    default ansatz the result is computed once per system (the report's sections of first
    integrals and of integrability read the same list).

    Examples
    --------
    The sleigh with its centre of mass on the blade (Borisov & Mamaev (2015), §3.3, ``a = 0``):
    the angular momentum :math:`I\dot\varphi` is a Noether integral.

    >>> import geomech as gm
    >>> [F.on_phase_space for F in linear_integrals(gm.examples.chaplygin_sleigh(a=0),
    ...                                             ansatz=[1])]
    [I*phidot]

    The default search (no ``ansatz``, no ``fields``) is kept on the system: a report's first
    integrals and integrability sections read the same integrals.
    """
    check_system(system)
    if ansatz is None and fields is None:
        cache = system.__dict__.setdefault("_linear_integrals_cache", {})
        if "default" not in cache:
            cache["default"] = _linear_integrals(system, None, None)
        return list(cache["default"])
    return _linear_integrals(system, ansatz, fields)


def _linear_integrals(system, ansatz, fields) -> list[LinearIntegral]:
    """:func:`linear_integrals`, uncached."""
    if fields is None:
        fields = noether_fields(system, ansatz=ansatz)
        if isinstance(fields, NoetherFieldSystem):
            if fields.solutions is None:
                raise ValueError("the function ansatz was not solved; pass solve=True to "
                                 "noether_fields or give the fields explicitly")
            fields = fields.solutions
    out = []
    for u in fields:
        chk = check_noether_field(system, u)
        if not chk.is_noether:
            raise ValueError(f"{u} is not a Noether field (tangent={chk.tangent}, "
                             f"lagrangian={chk.lagrangian_ok}, forces={chk.forces_ok})")
        ok = system_is_first_integral(system, chk.integral_on_M)
        if not ok:
            raise RuntimeError(f"the Noether integral {chk.integral} is not conserved")
        out.append(LinearIntegral(chk.integral, chk.integral_on_M, u, chk.is_symmetry, ok))
    return out
