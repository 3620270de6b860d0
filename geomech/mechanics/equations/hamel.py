r"""Adapted frames and the terms of the Hamel / Borisov–Mamaev equations.

A frame :math:`(v_1..v_{n-k}, n_1..n_k)` of :math:`TN` adapted to the constraints
(:math:`v_\alpha` tangent to the constraint distribution) defines quasi-velocities
:math:`\dot q = \eta^\alpha v_\alpha + w^\mu n_\mu`, the constraints being :math:`w = w_0(q)`.
With :math:`\tilde L(q,\eta,w) = L(q,\eta^\alpha v_\alpha+w^\mu n_\mu)` and the structure
functions :math:`[v_\alpha, e_b] = c^a_{\alpha b}e_a` (from the bracket graph) the Hamel /
Borisov–Mamaev equations (Borisov & Mamaev (2015, Russian Math. Surveys), (5)) read

.. math:: M(q)\dot\eta + \dot M\eta = v_\alpha(\tilde L) - c^a_{\alpha b}\xi^b
          \partial_{\xi^a}\tilde L + Q_iv^i_\alpha\big|_{w=w_0},\qquad
          M = \partial^2 L^*/\partial\eta^2 .

:func:`hamel_terms` returns these pieces (:class:`HamelTerms`) before any solve; the forms
:meth:`~geomech.mechanics.equations.quasi.HamelEquations.derive` and
:func:`~geomech.mechanics.equations.compact.compact_equations` solve them.

>>> import sympy as sp
>>> import geomech as gm
>>> from geomech.mechanics.system import NonholonomicSystem
>>> N = gm.Manifold("N", "x y phi", parameters="m I")
>>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I = N.parameters
>>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
>>> S = NonholonomicSystem(N, m/2*(xd**2 + yd**2) + I/2*phid**2, [f])
>>> h = hamel_terms(S, [N.vector_field([sp.cos(phi), sp.sin(phi), 0]),
...                     N.vector_field([0, 0, 1])], names="v omega")
>>> h.mass
Matrix([
[m, 0],
[0, I]])
"""

from __future__ import annotations

from typing import NamedTuple

import sympy as sp

from geomech.core.algebra.calculus import FactoredCalculus, RingCalculus, has_radicals
from geomech.core.algebra.normal_form import compact
from geomech.core.algebra.rings import UnsupportedExpression
from geomech.core.algebra.solve import adjugate_inverse, solve_linear
from geomech.core.fields import VectorField
from geomech.core.kernel import polynomial_coefficients
from geomech.core.zero import default_policy
from geomech.lie.coframe import coframe_structure_functions
from geomech.mechanics.equations.common import bracket_via_graph

__all__ = ["resolve_frame", "quasi_velocity_names", "frame_coefficients",
           "HamelTerms", "hamel_terms", "structure_functions"]


def _as_field(N, X, i):
    if isinstance(X, VectorField):
        if X.manifold is not N:
            if tuple(X.manifold.coords) == tuple(N.coords):
                return X.to_manifold(N)
            raise ValueError(f"frame field {i} lives on {X.manifold.name}, not on {N.name}")
        return X
    try:
        return N.vector_field(X)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"frame field {i} is not a vector field on {N.name}: {exc}") from exc


def resolve_frame(system, frame=None, transversal=None):
    r"""The adapted frame ``(tangent, transversal, E, Einv, w0)`` used by the quasi-velocity forms.

    ``frame`` is ``None`` (the split frame of the system: :math:`\partial_{q_\alpha} +
    b_{r\alpha}\partial_{q_r}` and :math:`\partial_{q_r}`), ``n-k`` fields spanning the
    constraint distribution (then ``transversal`` or the :math:`\partial_{q_r}` complete
    it), or ``n`` fields whose first ``n-k`` span the distribution.

    Raises ``ValueError`` for a field not tangent to the constraints or a singular frame.
    """
    N = system.manifold
    n, k = N.dim, system.n_constraints
    A = system.constraint_matrix
    pol = default_policy()
    if frame is None:
        tangent, trans = system.adapted_frame()
        if transversal is not None:
            trans = [_as_field(N, X, i + n - k + 1) for i, X in enumerate(transversal)]
    else:
        fields = [_as_field(N, X, i + 1) for i, X in enumerate(frame)]
        if len(fields) == n:
            tangent, trans = fields[:n - k], fields[n - k:]
            if transversal is not None:
                raise ValueError("give the transversal fields either in frame= or in "
                                 "transversal=, not both")
        elif len(fields) == n - k:
            tangent = fields
            trans = ([_as_field(N, X, i + n - k + 1) for i, X in enumerate(transversal)]
                     if transversal is not None else list(system.adapted_frame()[1]))
        else:
            raise ValueError(f"a frame needs {n - k} fields tangent to the constraints (or "
                             f"{n} fields in all), got {len(fields)}")
        for i, X in enumerate(tangent, 1):
            for mu in range(k):
                if not pol.is_zero(sp.Add(*[A[mu, j] * X.components[j] for j in range(n)])):
                    raise ValueError(f"frame field {i} is not tangent to the constraint "
                                     f"distribution (constraint {mu + 1} does not vanish on it)")
    tangent, trans = list(tangent), list(trans)
    if len(trans) != k:
        raise ValueError(f"{k} transversal fields are needed, got {len(trans)}")
    E = sp.Matrix(n, n, lambda i, j: (tangent + trans)[j].components[i])
    Einv, det = adjugate_inverse(E)
    if det is None or pol.is_zero(det):
        raise ValueError("singular frame: the frame fields are linearly dependent "
                         "(det of the frame matrix vanishes identically)")
    b = sp.Matrix(system.constraint_affine)
    if k and any(e != 0 for e in b):
        AN = (A * sp.Matrix.hstack(*[X.as_matrix() for X in trans])).applyfunc(compact)
        w0 = list(solve_linear(AN, -b, what="constraint matrix on the transversal fields"))
    else:
        w0 = [sp.S.Zero] * k
    return tangent, trans, E, Einv, w0, det


def quasi_velocity_names(names, count: int, default: str) -> tuple:
    """``count`` real symbols from ``names`` (a string or a sequence; ``None``:
    ``<default>_1 ...``).

    >>> quasi_velocity_names("v omega", 2, "eta")
    (v, omega)
    """
    if names is None:
        return tuple(sp.Symbol(f"{default}_{i + 1}", real=True) for i in range(count))
    syms = tuple(sp.Symbol(s, real=True) for s in names.replace(",", " ").split()) \
        if isinstance(names, str) else tuple(
            s if isinstance(s, sp.Symbol) else sp.Symbol(str(s), real=True) for s in names)
    if len(syms) != count:
        raise ValueError(f"{count} names of quasi-velocities needed, got {len(syms)}")
    return syms


def frame_coefficients(Einv: sp.Matrix, Z) -> list:
    """Coefficients of the field ``Z`` in the frame (columns of ``E``): :math:`E^{-1}Z`."""
    return [compact(e) for e in (Einv * Z.as_matrix())]


class HamelTerms(NamedTuple):
    r"""The Hamel equations :math:`M(q)\dot\eta + d = f` before the solve
    (:func:`hamel_terms`)."""
    tangent: list
    trans: list
    E: sp.Matrix
    Einv: sp.Matrix
    w0: list
    det: sp.Expr
    eta: tuple
    qdot: list            # qdot in terms of (q, eta)
    mass: sp.Matrix       # d2 L*/d eta2
    rhs: list             # v_a(L~) - c xi dL~/dxi + Q_a
    drift: list           # d/dt (dL*/deta) at fixed etadot
    structure: dict
    momenta: list         # dL~/dxi at w = w0
    reduced_lagrangian: sp.Expr


def _lagrangian_derivatives(Lt, xi, q, w, w0, affine: bool):
    """``(rc, Pn, P, dLq)``: :math:`\\partial\\tilde L/\\partial\\xi` and
    :math:`\\partial\\tilde L/\\partial q` at :math:`w = w_0`, in the ring of
    :class:`RingCalculus` or, with square roots, of
    :class:`~geomech.core.algebra.calculus.FactoredCalculus` (``rc``, ``Pn`` its
    fractions) when possible, else by sympy."""
    if not affine:
        rc = None
        for calculus in (RingCalculus, FactoredCalculus):
            try:
                rc = calculus([Lt])
                Ln = rc.frac(Lt)
                break
            except UnsupportedExpression:
                rc = None
        if rc is not None:      # w0 = 0: restrict by setting w = 0
            Pn = [rc.at_zero(rc.diff(Ln, s), w) for s in xi]
            dLq = [rc.expr(rc.at_zero(rc.diff(Ln, qi), w)) for qi in q]
            return rc, Pn, [rc.expr(nd) for nd in Pn], dLq
    on_w0 = dict(zip(w, w0))
    P = [compact(sp.diff(Lt, s).xreplace(on_w0)) for s in xi]
    dLq = [sp.diff(Lt, qi).xreplace(on_w0) for qi in q]
    return None, None, P, dLq


def _frame_lagrangian(raw: sp.Expr, xi, q, w, w0, affine: bool, by_monomials: bool) -> tuple:
    r"""``(Lt, rc, Pn, P, dLq)``: the Lagrangian :math:`\tilde L(q, \xi)` in the frame and
    its derivatives (:func:`_lagrangian_derivatives`).  A Lagrangian quadratic in the
    velocities is quadratic in :math:`\xi`; with ``by_monomials`` and square roots (the
    factored calculus) its coefficients are compacted one by one
    (:math:`\tilde L = \sum_m c_m(q)\xi^m`, each :math:`c_m` far smaller than the whole
    fraction: the rolling ellipsoid's kinetic energy in its natural frame, 0.85 against
    1.1 s) when the ring calculus takes that form, else the whole ``raw`` is compacted."""
    coeffs = polynomial_coefficients(raw, xi, 2) \
        if by_monomials and not affine and has_radicals([raw]) else None
    if coeffs is not None:
        Lt = sp.Add(*[compact(c) * sp.Mul(*[x**k for x, k in zip(xi, m)])
                      for m, c in coeffs.items()])
        rc, Pn, P, dLq = _lagrangian_derivatives(Lt, xi, q, w, w0, affine)
        if rc is not None:
            return Lt, rc, Pn, P, dLq
    Lt = compact(raw)
    return (Lt, *_lagrangian_derivatives(Lt, xi, q, w, w0, affine))


def structure_functions(tangent, frame_fields, Einv, r: int, others) -> dict:
    r"""``{(alpha, b): [c^1..c^n]}``: :math:`[v_\alpha, e_b] = c^a_{\alpha b}e_a` from the
    bracket graph (antisymmetry reused among the tangent fields); for frames with square
    roots (rolling ellipsoid) from the coframe by Cartan's formula
    (:func:`~geomech.lie.coframe.coframe_structure_functions`), which needs no
    normalisation of bracket expressions."""
    if has_radicals([*Einv, *(c for X in frame_fields for c in X.components)]):
        pairs = [(al, b) for al in range(r) for b in others if b > al or b >= r]
        try:
            out = coframe_structure_functions(frame_fields, Einv,
                                              frame_fields[0].manifold.coords, pairs)
        except UnsupportedExpression:
            out = None
        if out is not None:
            for al in range(r):
                for b in range(al):
                    out[(al, b)] = [-c for c in out[(b, al)]]
            return out
    structure: dict = {}
    for al in range(r):
        for b in others:
            if b == al:
                continue
            if b < al and b < r and (b, al) in structure:
                structure[(al, b)] = [-c for c in structure[(b, al)]]
                continue
            Z = bracket_via_graph(tangent[al], frame_fields[b])
            structure[(al, b)] = frame_coefficients(Einv, Z)
    return structure


def _hamel_rhs(system, tangent, structure, P, dLq, xi0, qdot, others) -> list:
    r""":math:`v_\alpha(\tilde L) - c^a_{\alpha b}\xi^b\partial_{\xi^a}\tilde L +
    Q_iv^i_\alpha` at :math:`w = w_0`."""
    N = system.manifold
    n = N.dim
    Q = list(system.forces) if system.forces is not None else None
    on_M = dict(zip(N.velocities, qdot))
    rhs = []
    for al, X in enumerate(tangent):
        e = sp.Add(*[X.components[i] * dLq[i] for i in range(n) if X.components[i] != 0])
        for b in others:
            if b == al or xi0[b] == 0:
                continue
            cs = structure[(al, b)]
            e -= xi0[b] * sp.Add(*[cs[a] * P[a] for a in range(n) if cs[a] != 0])
        if Q is not None:
            e += sp.Add(*[X.components[i] * Q[i] for i in range(n)]).xreplace(on_M)
        rhs.append(compact(e))
    return rhs


def _mass_and_drift(rc, Pn, Pa, eta, q, qdot) -> tuple:
    r""":math:`M = \partial^2L^*/\partial\eta^2` and the drift
    :math:`\sum_i\partial_{q_i}(\partial L^*/\partial\eta)\,\dot q_i`."""
    r, n = len(eta), len(q)
    if rc is not None:
        Mass = sp.Matrix(r, r, lambda a, b: rc.expr(rc.diff(Pn[a], eta[b])))
        drift = [sp.Add(*[rc.expr(rc.diff(Pn[a], q[i])) * qdot[i] for i in range(n)
                          if Pa[a].has(q[i])]) for a in range(r)]
    else:
        Mass = sp.Matrix(r, r, lambda a, b: compact(sp.diff(Pa[a], eta[b])))
        drift = [sp.Add(*[sp.diff(Pa[a], q[i]) * qdot[i] for i in range(n)
                          if Pa[a].has(q[i])]) for a in range(r)]
    return Mass, drift


def hamel_terms(system, frame=None, transversal=None, names=None,
                by_monomials: bool = False) -> HamelTerms:
    """The Hamel / Borisov–Mamaev equations (5) before solving for the accelerations
    (module docstring); ``frame``, ``transversal``, ``names`` as for
    :meth:`~geomech.mechanics.equations.quasi.HamelEquations.derive`.  With
    ``by_monomials`` a Lagrangian with square roots is compacted coefficient by coefficient
    in the quasi-velocities (:func:`_frame_lagrangian`: the same derivatives, found faster)
    and the reduced Lagrangian is left uncompacted (that form of it is longer; the compact
    equations do not use it)."""
    N = system.manifold
    n, k = N.dim, system.n_constraints
    r = n - k
    q, vel = N.coords, N.velocities
    tangent, trans, E, Einv, w0, det = resolve_frame(system, frame, transversal)
    eta = quasi_velocity_names(names, r, "eta")
    w = tuple(sp.Dummy(f"w{i + 1}", real=True) for i in range(k))
    xi = (*eta, *w)
    affine = any(e != 0 for e in w0)
    qdot_full = [sp.Add(*[E[i, a] * xi[a] for a in range(n)]) for i in range(n)]
    Lt, rc, Pn, P, dLq = _frame_lagrangian(system.lagrangian.xreplace(dict(zip(vel, qdot_full))),
                                           xi, q, w, w0, affine, by_monomials)
    others = range(n) if affine else range(r)
    structure = structure_functions(tangent, tangent + trans, Einv, r, others)
    xi0 = (*eta, *w0)
    qdot = [compact(sp.Add(*[E[i, a] * xi0[a] for a in range(n)])) for i in range(n)]
    rhs = _hamel_rhs(system, tangent, structure, P, dLq, xi0, qdot, others)
    Mass, drift = _mass_and_drift(rc, Pn, P[:r], eta, q, qdot)
    L0 = Lt.xreplace(dict(zip(w, w0)))
    return HamelTerms(tangent, trans, E, Einv, w0, det, eta, qdot, Mass, rhs, drift,
                      structure, P, L0 if by_monomials else compact(L0))
