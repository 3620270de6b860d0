r"""Equations in quasi-velocities: Hamel / Borisov–Mamaev form and Gibbs–Appell form.

A frame :math:`(v_1..v_{n-k}, n_1..n_k)` of :math:`TN` adapted to the constraints
(:math:`v_\alpha` tangent to the constraint distribution :math:`\mathcal D`) defines
quasi-velocities :math:`\dot q = \eta^\alpha v_\alpha + w^\mu n_\mu`; the constraints become
:math:`w = w_0(q)` (:math:`w_0=0` for homogeneous constraints).  With
:math:`\tilde L(q,\eta,w) = L(q,\eta^\alpha v_\alpha+w^\mu n_\mu)` and the structure functions
:math:`[v_\alpha, e_b] = c^a_{\alpha b}e_a` (taken from the bracket graph), the Hamel /
Borisov–Mamaev equations (seed 003, (5); spec A14) are

.. math:: \frac{d}{dt}\frac{\partial\tilde L}{\partial\eta^\alpha}
   = v_\alpha(\tilde L) - \sum_{a,b} c^a_{\alpha b}\,\xi^b\,
   \frac{\partial\tilde L}{\partial\xi^a} + Q_i v_\alpha^i\Big|_{w=w_0},
   \qquad \xi = (\eta, w),

which for homogeneous constraints is (5):
:math:`\frac{d}{dt}\partial_{\eta^\alpha}L^* - v_\alpha(L^*) = -c^\beta_{\alpha\gamma}\eta^\gamma
\partial_{\eta^\beta}L^* - c^\mu_{\alpha\gamma}\eta^\gamma p_\mu + Q_\alpha`.

Examples
--------
>>> import sympy as sp
>>> import geomech as gm
>>> from geomech.mechanics.system import NonholonomicSystem
>>> N = gm.Manifold("N", "x y phi", parameters="m I a")
>>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I, a = N.parameters
>>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
>>> S = NonholonomicSystem(N, m/2*(xd**2 + yd**2) + I/2*phid**2 + m*a*phid*f, [f])
>>> tau1 = N.vector_field([sp.cos(phi), sp.sin(phi), 0]); tau2 = N.vector_field([0, 0, 1])
>>> nfield = N.vector_field([-sp.sin(phi), sp.cos(phi), 0])
>>> eq = S.equations("quasi_velocities", frame=[tau1, tau2, nfield], names="v1 omega")
>>> v1, om = eq.data["quasi_velocities"]
>>> eq.form_rhs[v1], eq.form_rhs[om]
(a*omega**2, -a*m*omega*v1/I)
"""

from __future__ import annotations

import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.zero import default_policy

from .equations import EquationsOfMotion, phase_rhs_from_quasi, register_method
from .forms_common import acceleration_symbols, bracket_via_graph, compact, solve_linear

__all__ = ["quasi_velocity_equations", "appell_equations", "resolve_frame"]


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
    det = compact(E.det(method="berkowitz"))
    if pol.is_zero(det):
        raise ValueError("singular frame: the frame fields are linearly dependent "
                         "(det of the frame matrix vanishes identically)")
    Einv = (E.adjugate(method="berkowitz") / det).applyfunc(compact)
    b = sp.Matrix(system.constraint_affine)
    if k and any(e != 0 for e in b):
        AN = (A * sp.Matrix.hstack(*[X.as_matrix() for X in trans])).applyfunc(compact)
        w0 = list(solve_linear(AN, -b, what="constraint matrix on the transversal fields"))
    else:
        w0 = [sp.S.Zero] * k
    return tangent, trans, E, Einv, w0, det


def _names(names, count, default):
    if names is None:
        return tuple(sp.Symbol(f"{default}_{i + 1}", real=True) for i in range(count))
    syms = tuple(sp.Symbol(s, real=True) for s in names.replace(",", " ").split()) \
        if isinstance(names, str) else tuple(
            s if isinstance(s, sp.Symbol) else sp.Symbol(str(s), real=True) for s in names)
    if len(syms) != count:
        raise ValueError(f"{count} names of quasi-velocities needed, got {len(syms)}")
    return syms


def _decompose(Einv, Z):
    """Coefficients of the field ``Z`` in the frame (columns of ``E``)."""
    return [compact(e) for e in (Einv * Z.as_matrix())]


@register_method("quasi_velocities")
def quasi_velocity_equations(system, frame=None, transversal=None, names=None,
                             **options) -> EquationsOfMotion:
    r"""Hamel / Borisov–Mamaev equations (5) in quasi-velocities of an adapted frame.

    Parameters
    ----------
    frame : sequence of VectorField, optional
        ``n-k`` fields spanning the constraint distribution, or all ``n`` frame fields
        (tangent ones first).  Default: the split frame of the system (then the
        quasi-velocities are the independent velocities, seed 003 A3.1).
    transversal : sequence of VectorField, optional
        The ``k`` transversal fields :math:`n_\mu` (default :math:`\partial_{q_r}`).
    names : str or sequence, optional
        Names of the quasi-velocities (default ``eta_1 ...``).

    The structure functions :math:`c^a_{\alpha b}` are the coefficients of the brackets
    :math:`[v_\alpha, e_b]` (from the bracket graph) in the frame; they are returned in
    ``eq.data["structure"]`` as ``{(alpha, b): [c^1, ..., c^n]}`` (0-based indices).
    """
    if options:
        raise TypeError(f"quasi_velocities got unknown options {sorted(options)}")
    N = system.manifold
    n, k = N.dim, system.n_constraints
    r = n - k
    q, vel = N.coords, N.velocities
    tangent, trans, E, Einv, w0, det = resolve_frame(system, frame, transversal)
    eta = _names(names, r, "eta")
    w = tuple(sp.Dummy(f"w{i + 1}", real=True) for i in range(k))
    xi = (*eta, *w)
    frame_fields = tangent + trans
    affine = any(e != 0 for e in w0)

    qdot_full = [sp.Add(*[E[i, a] * xi[a] for a in range(n)]) for i in range(n)]
    Lt = compact(system.lagrangian.xreplace(dict(zip(vel, qdot_full))))
    on_w0 = dict(zip(w, w0))
    dL = [sp.diff(Lt, s) for s in xi]
    P = [compact(d.xreplace(on_w0)) for d in dL]            # dL~/dxi at w = w0
    # structure functions from the bracket graph
    structure = {}
    others = range(n) if affine else range(r)
    for al in range(r):
        for b in others:
            if b == al:
                continue
            if b < al and b < r and (b, al) in structure:
                structure[(al, b)] = [-c for c in structure[(b, al)]]
                continue
            Z = bracket_via_graph(tangent[al], frame_fields[b])
            structure[(al, b)] = _decompose(Einv, Z)
    xi0 = (*eta, *w0)
    Q = list(system.forces) if system.forces is not None else None
    qdot = [compact(sp.Add(*[E[i, a] * xi0[a] for a in range(n)])) for i in range(n)]
    on_M = dict(zip(vel, qdot))
    rhs = []
    for al in range(r):
        X = tangent[al]
        e = sp.Add(*[X.components[i] * sp.diff(Lt, q[i]) for i in range(n)
                     if X.components[i] != 0]).xreplace(on_w0)
        for b in others:
            if b == al or xi0[b] == 0:
                continue
            cs = structure[(al, b)]
            e -= xi0[b] * sp.Add(*[cs[a] * P[a] for a in range(n) if cs[a] != 0])
        if Q is not None:
            e += sp.Add(*[X.components[i] * Q[i] for i in range(n)]).xreplace(on_M)
        rhs.append(compact(e))
    Pa = P[:r]
    Mass = sp.Matrix(r, r, lambda a, b: compact(sp.diff(Pa[a], eta[b])))
    drift = [sp.Add(*[sp.diff(Pa[a], q[i]) * qdot[i] for i in range(n) if Pa[a].has(q[i])])
             for a in range(r)]
    etadot = solve_linear(Mass, sp.Matrix([rhs[a] - drift[a] for a in range(r)]),
                          what="mass matrix d2L*/deta2 of the quasi-velocities")
    etad_syms = acceleration_symbols(eta)
    equations = [sp.Eq(sp.Add(*[Mass[a, b] * etad_syms[b] for b in range(r)]) + drift[a],
                       rhs[a]) for a in range(r)]
    equations += [sp.Eq(v, e) for v, e in zip(vel, qdot)]
    form_rhs = {**dict(zip(q, qdot)), **dict(zip(eta, etadot))}
    K = E[:, :r]
    k0 = [compact(sp.Add(*[E[i, r + m] * w0[m] for m in range(k)])) for i in range(n)]
    phase = phase_rhs_from_quasi(system, K, k0, eta, list(etadot))
    variables = {eta[a]: compact(sp.Add(*[Einv[a, i] * vel[i] for i in range(n)]))
                 for a in range(r)}
    return EquationsOfMotion(
        system, "quasi_velocities", equations, phase, multipliers=None, variables=variables,
        form_rhs=form_rhs,
        data={"quasi_velocities": eta, "frame": (tuple(tangent), tuple(trans)),
              "structure": structure, "reduced_lagrangian": compact(Lt.xreplace(on_w0)),
              "transversal_momenta": dict(zip(range(k), P[r:])), "mass_matrix": Mass,
              "frame_determinant": det})


@register_method("appell")
def appell_equations(system, frame=None, transversal=None, names=None,
                     **options) -> EquationsOfMotion:
    r"""Gibbs–Appell equations :math:`\partial S^*/\partial\dot s_\beta = \Pi_\beta`.

    With :math:`L = T - U`, :math:`U=-L|_{\dot q=0}`, the acceleration energy (up to terms
    free of :math:`\ddot q`) is :math:`S=\tfrac12\ddot q^{\mathsf T}H\ddot q+\ddot q^{\mathsf T}
    \beta_T`, :math:`\beta_{T,i}=\sum_j\partial^2T/\partial\dot q_i\partial q_j\,\dot q_j -
    \partial T/\partial q_i` (Appell's lemma :math:`\partial S/\partial\ddot q = E(T)`).  On
    the constraint manifold :math:`\dot q = K(q)s + k_0(q)`, :math:`\ddot q = K\dot s +
    \partial_q(Ks+k_0)\dot q`; :math:`S^*` is :math:`S` with these substituted and
    :math:`\Pi_\beta = \sum_iK_{i\beta}(Q_i-\partial U/\partial q_i)`.  The velocities
    :math:`s` are those of ``frame`` (default: the independent velocities).
    """
    if options:
        raise TypeError(f"appell got unknown options {sorted(options)}")
    N = system.manifold
    n, k = N.dim, system.n_constraints
    r = n - k
    q, vel = N.coords, N.velocities
    if frame is None and transversal is None and names is None:
        tangent, trans = system.adapted_frame()
        K = sp.Matrix(n, r, lambda i, a: tangent[a].components[i])
        k0 = list(system.affine_velocity().components)
        s = system.independent_velocities
    else:
        tangent, trans, E, Einv, w0, det = resolve_frame(system, frame, transversal)
        K = E[:, :r]
        k0 = [compact(sp.Add(*[E[i, r + m] * w0[m] for m in range(k)])) for i in range(n)]
        s = _names(names, r, "eta")
    L = system.lagrangian
    U = -L.xreplace({v: 0 for v in vel})
    T = L + U
    H = system.hessian
    pT = [sp.diff(T, v) for v in vel]
    betaT = [sp.Add(*[sp.diff(pT[i], q[j]) * vel[j] for j in range(n) if pT[i].has(q[j])])
             - sp.diff(T, q[i]) for i in range(n)]
    acc = acceleration_symbols(vel)
    S = (sp.Rational(1, 2) * sp.Add(*[H[i, j] * acc[i] * acc[j] for i in range(n)
                                      for j in range(n) if H[i, j] != 0])
         + sp.Add(*[acc[i] * betaT[i] for i in range(n)]))
    sd = acceleration_symbols(s)
    qdot = [compact(sp.Add(*[K[i, a] * s[a] for a in range(r)]) + k0[i]) for i in range(n)]
    qdd = [sp.Add(*[K[i, a] * sd[a] for a in range(r)])
           + sp.Add(*[sp.diff(qdot[i], q[j]) * qdot[j] for j in range(n) if qdot[i].has(q[j])])
           for i in range(n)]
    Sstar = S.xreplace({**dict(zip(vel, qdot)), **dict(zip(acc, qdd))})
    Q = list(system.forces) if system.forces is not None else [sp.S.Zero] * n
    force = [Q[i] - sp.diff(U, q[i]) for i in range(n)]
    Pi = [compact(sp.Add(*[K[i, a] * force[i] for i in range(n)]).xreplace(
        dict(zip(vel, qdot)))) for a in range(r)]
    grad = [sp.expand(sp.diff(Sstar, x)) for x in sd]
    Mass = sp.Matrix(r, r, lambda a, b: compact(sp.diff(grad[a], sd[b])))
    free = [compact(g.xreplace({x: 0 for x in sd})) for g in grad]
    sdot = solve_linear(Mass, sp.Matrix([Pi[a] - free[a] for a in range(r)]),
                        what="Appell mass matrix d2S*/dsdot2")
    equations = [sp.Eq(sp.Add(*[Mass[a, b] * sd[b] for b in range(r)]) + free[a], Pi[a])
                 for a in range(r)]
    phase = phase_rhs_from_quasi(system, K, k0, s, list(sdot))
    form_rhs = {**dict(zip(q, qdot)), **dict(zip(s, sdot))}
    return EquationsOfMotion(system, "appell", equations, phase, multipliers=None,
                             variables={}, form_rhs=form_rhs,
                             data={"acceleration_energy": S, "quasi_velocities": tuple(s),
                                   "mass_matrix": Mass})
