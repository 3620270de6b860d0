r"""Equations in quasi-velocities: Hamel / Borisov–Mamaev form and Gibbs–Appell form.

A frame :math:`(v_1..v_{n-k}, n_1..n_k)` of :math:`TN` adapted to the constraints
(:math:`v_\alpha` tangent to the constraint distribution :math:`\mathcal D`) defines
quasi-velocities :math:`\dot q = \eta^\alpha v_\alpha + w^\mu n_\mu`; the constraints become
:math:`w = w_0(q)` (:math:`w_0=0` for homogeneous constraints).  With
:math:`\tilde L(q,\eta,w) = L(q,\eta^\alpha v_\alpha+w^\mu n_\mu)` and the structure functions
:math:`[v_\alpha, e_b] = c^a_{\alpha b}e_a` (taken from the bracket graph), the Hamel /
Borisov–Mamaev equations (Borisov & Mamaev (2015, Russian Math. Surveys), (5); Borisov &
Mamaev (2015), (3.4)–(3.5)) are

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

import itertools
from collections.abc import Mapping
from typing import NamedTuple

import sympy as sp

from geomech.core.algebra import RingCalculus as _RingCalculus
from geomech.core.algebra import UnsupportedExpression as _Unsupported
from geomech.core.algebra import policy_algebra as _Algebra
from geomech.core.fields import VectorField
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.equations.common import (
    acceleration_symbols,
    bracket_via_graph,
    compact,
    solve_linear,
    tidy,
)
from geomech.mechanics.equations.forms import AppellEquations
from geomech.mechanics.equations.motion import EquationsOfMotion, phase_rhs_from_quasi
from geomech.mechanics.equations.registry import register_method

__all__ = ["quasi_velocity_equations", "appell_equations", "resolve_frame", "compact_equations",
           "CompactEquations"]


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


def _inverse(E: sp.Matrix):
    r"""``(E^{-1}, det E)`` by division-free Laplace expansion in the ring of
    :class:`~geomech.core.algebra.RationalAlgebra` (memoised minors shared by all columns
    of the adjugate); ``(None, None)``-safe fallback to Berkowitz outside the ring.
    Returns ``(None, 0)`` when ``det E`` vanishes identically."""
    n = E.shape[0]
    try:
        alg = _Algebra(list(E))
        R = alg.ring
        rows = []
        for i in range(n):
            fr = [alg.frac(e) for e in E.row(i)]
            den = R.one
            for _, d in fr:
                if d != 1 and d != den:
                    den = den.lcm(d)
            rows.append(([alg.reduce(num * den.exquo(d)) for num, d in fr], den))
    except _Unsupported:
        det = compact(E.det(method="berkowitz"))
        if default_policy().is_zero(det):
            return None, sp.S.Zero
        return (E.adjugate(method="berkowitz") / det).applyfunc(compact), det
    mat = [r for r, _ in rows]
    memo: dict = {}

    def minor(cols: tuple, skip: int):
        # determinant of the rows other than ``skip`` (from row len-based offset) and ``cols``
        key = (cols, skip)
        got = memo.get(key)
        if got is not None:
            return got
        k = len(cols)
        rs = [i for i in range(n) if i != skip][-k:]
        if k == 1:
            out = mat[rs[0]][cols[0]]
        else:
            out = R.zero
            for pos, j in enumerate(cols):
                a = mat[rs[0]][j]
                if a:
                    sub = minor(cols[:pos] + cols[pos + 1:], skip)
                    if sub:
                        out = out + a * sub if pos % 2 == 0 else out - a * sub
            out = alg.reduce(out)
        memo[key] = out
        return out

    detp = minor(tuple(range(n)), -1)
    if alg.is_zero(detp):
        return None, sp.S.Zero
    rowden = R.one
    for _, d in rows:
        rowden *= d
    # E^{-1}[j, i] = (-1)^(i+j) minor(delete row i, column j) * (row factor of row i) / det
    inv = sp.zeros(n, n)
    for i in range(n):
        for j in range(n):
            if n == 1:
                c = R.one
            else:
                c = minor(tuple(x for x in range(n) if x != j), i)
            if c:
                c = c if (i + j) % 2 == 0 else -c
                inv[j, i] = alg.quotient(c * rows[i][1], detp)
    return inv, alg.quotient(detp, rowden)


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
    Einv, det = _inverse(E)
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


class _Hamel(NamedTuple):
    """Intermediate objects of the Hamel equations :math:`M(q)\\dot\\eta + d = f`."""
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


def _hamel(system, frame=None, transversal=None, names=None) -> _Hamel:
    """The Hamel / Borisov–Mamaev equations (5) before solving for the accelerations."""
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
    rc = None
    if not affine:
        try:
            rc = _RingCalculus([Lt])
            Ln = rc.frac(Lt)
        except _Unsupported:
            rc = None
    if rc is not None:
        # derivatives in the polynomial ring (w0 = 0: restrict by setting w = 0)
        Pn = [rc.at_zero(rc.diff(Ln, s), w) for s in xi]
        P = [rc.expr(nd) for nd in Pn]
        dLq = [rc.expr(rc.at_zero(rc.diff(Ln, qi), w)) for qi in q]
    else:
        dL = [sp.diff(Lt, s) for s in xi]
        P = [compact(d.xreplace(on_w0)) for d in dL]        # dL~/dxi at w = w0
        dLq = [sp.diff(Lt, qi).xreplace(on_w0) for qi in q]
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
        e = sp.Add(*[X.components[i] * dLq[i] for i in range(n) if X.components[i] != 0])
        for b in others:
            if b == al or xi0[b] == 0:
                continue
            cs = structure[(al, b)]
            e -= xi0[b] * sp.Add(*[cs[a] * P[a] for a in range(n) if cs[a] != 0])
        if Q is not None:
            e += sp.Add(*[X.components[i] * Q[i] for i in range(n)]).xreplace(on_M)
        rhs.append(compact(e))
    Pa = P[:r]
    if rc is not None:
        Mass = sp.Matrix(r, r, lambda a, b: rc.expr(rc.diff(Pn[a], eta[b])))
        drift = [sp.Add(*[rc.expr(rc.diff(Pn[a], q[i])) * qdot[i] for i in range(n)
                          if Pa[a].has(q[i])]) for a in range(r)]
    else:
        Mass = sp.Matrix(r, r, lambda a, b: compact(sp.diff(Pa[a], eta[b])))
        drift = [sp.Add(*[sp.diff(Pa[a], q[i]) * qdot[i] for i in range(n)
                          if Pa[a].has(q[i])]) for a in range(r)]
    return _Hamel(tangent, trans, E, Einv, w0, det, eta, qdot, Mass, rhs, drift, structure,
                  P, compact(Lt.xreplace(on_w0)))


class HamelEquations(EquationsOfMotion):
    r"""Equations of motion in quasi-velocities (Hamel / Borisov--Mamaev (2015), eq. (5)):
    :math:`\frac{d}{dt}\partial_{\eta^\alpha}L^* - v_\alpha(L^*) = -c^\beta_{\alpha\gamma}
    \eta^\gamma\partial_{\eta^\beta}L^* - c^\mu_{\alpha\gamma}\eta^\gamma p_\mu + Q_\alpha`
    (see the module docstring); :meth:`compact` reuses the Hamel equations already derived."""

    form = "quasi_velocities"

    def compact(self, **options):
        """Compact equations (see :meth:`EquationsOfMotion.compact`); without options other
        than ``vector_name`` the Hamel equations of this form are reused."""
        hamel = self._data.get("hamel")
        if hamel is not None and set(options) <= {"vector_name"}:
            return _compact_from_hamel(self.system, hamel, **options)
        return compact_equations(self.system, **options)


@register_method("quasi_velocities")
def quasi_velocity_equations(system, frame=None, transversal=None, names=None,
                             **options) -> EquationsOfMotion:
    r"""Hamel / Borisov–Mamaev equations (5) in quasi-velocities of an adapted frame.

    Parameters
    ----------
    frame : sequence of VectorField, optional
        ``n-k`` fields spanning the constraint distribution, or all ``n`` frame fields
        (tangent ones first).  Default: the split frame of the system (then the
        quasi-velocities are the independent velocities).
    transversal : sequence of VectorField, optional
        The ``k`` transversal fields :math:`n_\mu` (default :math:`\partial_{q_r}`).
    names : str or sequence, optional
        Names of the quasi-velocities (default ``eta_1 ...``).

    Notes
    -----
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
    h = _hamel(system, frame, transversal, names)
    eta, Mass, rhs, drift, qdot = h.eta, h.mass, h.rhs, h.drift, h.qdot
    tangent, trans, E, Einv, w0 = h.tangent, h.trans, h.E, h.Einv, h.w0
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
    eq = HamelEquations(
        system, "quasi_velocities", equations, phase, multipliers=None, variables=variables,
        form_rhs=form_rhs,
        data={"quasi_velocities": eta, "frame": (tuple(tangent), tuple(trans)),
              "structure": h.structure, "reduced_lagrangian": h.reduced_lagrangian,
              "transversal_momenta": dict(zip(range(k), h.momenta[r:])), "mass_matrix": Mass,
              "frame_determinant": h.det, "hamel": h})
    return eq


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
    return AppellEquations(system, "appell", equations, phase, multipliers=None,
                             variables={}, form_rhs=form_rhs,
                             data={"acceleration_energy": S, "quasi_velocities": tuple(s),
                                   "mass_matrix": Mass})


# ---------------------------------------------------------------------------------------
# Compact explicit equations in quasi-velocities
# ---------------------------------------------------------------------------------------
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
        return int(sum(sp.count_ops(e) for e in exprs))

    def vector_field(self) -> VectorField:
        """The field on a chart with the coordinates :attr:`state`."""
        N = self.system.manifold
        chart = N.submanifold_chart(f"quasi_{self.system.name}", self.state)
        rhs = self.rhs
        return VectorField(chart, [rhs[c] for c in chart.coords])

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
        return ([sp.Eq(s, e) for s, e in self.abbreviations]
                + [sp.Eq(sp.Derivative(c, t), e) for c, e in
                   {**self.kinematics, **self.dynamics}.items()])

    def __repr__(self) -> str:
        return (f"CompactEquations({self.system.name!r}, state "
                f"({', '.join(map(str, self.state))}), {len(self.abbreviations)} "
                f"abbreviations, solver={self.solver!r})")


def _q_free_split(e: sp.Expr, q) -> tuple[sp.Expr, sp.Expr]:
    """``(part free of q, rest)`` of the expanded ``e``."""
    const, rest = [], []
    for t in sp.Add.make_args(sp.expand(e)):
        (rest if t.has(*q) else const).append(t)
    return sp.Add(*const), sp.Add(*rest)


def _constant_candidates(e: sp.Expr, q) -> list[sp.Expr]:
    r"""The parts free of ``q`` of ``e`` written in each of the trigonometric normal forms
    (per angle: even powers of the cosine or of the sine eliminated with
    :math:`\sin^2+\cos^2=1`); the "constant part" of a trigonometric polynomial depends on
    that choice."""
    e = sp.expand(e)
    angles = sorted({t.args[0] for t in e.atoms(sp.sin, sp.cos)
                     if t.args[0].is_Symbol and t.args[0] in q}, key=sp.default_sort_key)
    out: list = []
    for keep in itertools.product((sp.sin, sp.cos), repeat=len(angles)):
        big = {(sp.cos if k is sp.sin else sp.sin)(a): k(a) for a, k in zip(angles, keep)}

        def red(t, big=big):
            small = big[t.base]
            k = int(t.exp)
            return t.base ** (k % 2) * (1 - small**2) ** (k // 2)

        f = e.replace(lambda t, big=big: t.is_Pow and t.exp.is_Integer and t.exp >= 2
                      and t.base in big, red) if big else e
        c = _q_free_split(f, q)[0]
        if c not in out:
            out.append(c)
    return out


def _constant_part(mass: sp.Matrix, q, max_rank: int):
    r"""A matrix :math:`M_0` free of ``q`` with :math:`\operatorname{rank}(M - M_0)` at most
    ``max_rank`` (chosen among the constant parts of the trigonometric normal forms of the
    entries by the rank at random numeric points), or ``None``.  Only a choice: the
    factorisation built on it is verified exactly."""
    import random

    import numpy as np

    r = mass.shape[0]
    cands = [_constant_candidates(mass[i, j], q) for i in range(r) for j in range(r)]
    combos = 1
    for c in cands:
        combos *= len(c)
    if combos > 4096:
        return None
    syms = sorted(set().union(*[e.free_symbols for e in mass]), key=sp.default_sort_key)
    rng = random.Random(20261122)
    params = {s: rng.uniform(0.5, 2.0) for s in syms if s not in q}
    values = []
    try:
        for _ in range(2):
            pt = {**params, **{s: rng.uniform(0.3, 1.2) for s in syms if s in q}}
            values.append(np.array([[float(mass[i, j].evalf(subs=pt)) for j in range(r)]
                                    for i in range(r)]))
        cvals = [[float(as_expr(c).evalf(subs=params)) for c in cs] for cs in cands]
    except (TypeError, ValueError):         # free functions, complex values: no choice
        return None
    best = None
    for choice in itertools.product(*[range(len(c)) for c in cands]):
        M0 = np.array([cvals[e][choice[e]] for e in range(r * r)]).reshape(r, r)
        if abs(np.linalg.det(M0)) < 1e-9:
            continue
        rank = max(np.linalg.matrix_rank(V - M0, tol=1e-9 * max(1.0, np.abs(V).max()))
                   for V in values)
        if rank <= max_rank and (best is None or rank < best[0]):
            best = (rank, choice)
    if best is None:
        return None
    return sp.Matrix(r, r, [cands[e][best[1][e]] for e in range(r * r)])


def _primitive(vec: list) -> tuple[sp.Expr, list]:
    """``(g, v/g)``: ``g`` the polynomial gcd of the entries (sines and cosines taken as
    generators), so that ``v/g`` has no common factor."""
    nz = [e for e in vec if e != 0]
    g = sp.gcd_list(nz) if len(nz) > 1 else nz[0]
    if g == 0:
        return sp.S.One, list(vec)
    out = [sp.cancel(e / g) for e in vec]
    if next(e for e in out if e != 0).could_extract_minus_sign():
        g, out = -g, [-e for e in out]
    return g, out


def _rank_factors(U: sp.Matrix, max_rank: int):
    r"""``[(u, sigma, w)]`` with :math:`U = \sum \sigma\,u w^{\mathsf T}`, the vectors
    primitive (cheapest pivot first), or ``None`` if the rank exceeds ``max_rank``."""
    pol = default_policy()
    n = U.shape[0]
    factors = []
    Rm = U
    for _ in range(max_rank + 1):
        if all(pol.is_zero(Rm[i, j]) for i in range(n) for j in range(n)):
            return factors
        if len(factors) == max_rank:
            return None
        best = None
        cols = {}
        try:
            for j in range(n):
                col = [Rm[i, j] for i in range(n)]
                if any(e != 0 for e in col):
                    cols[j] = _primitive(col)
            rows = {}
            for i in range(n):
                row = [Rm[i, j] for j in range(n)]
                if any(e != 0 for e in row):
                    rows[i] = _primitive(row)
        except (sp.PolynomialError, sp.CoercionFailed, NotImplementedError):
            return None
        for j, (_, u) in cols.items():
            for i, (_, w) in rows.items():
                if Rm[i, j] == 0 or u[i] == 0 or w[j] == 0:
                    continue
                cost = sum(sp.count_ops(e) for e in (*u, *w))
                if best is None or cost < best[0]:
                    best = (cost, i, j, u, w)
        if best is None:
            return None
        _, i, j, u, w = best
        if u == w:
            w = u
        sigma = compact(Rm[i, j] / (u[i] * w[j]))
        factors.append((u, sigma, w))
        Rm = sp.Matrix(n, n, [compact(Rm[a, b] - sigma * u[a] * w[b])
                              for a in range(n) for b in range(n)])
    return None


def _const_inverse(M: sp.Matrix) -> sp.Matrix:
    """Inverse of a matrix free of the coordinates (diagonal: entrywise; else the ring
    adjugate of :func:`_inverse`)."""
    r = M.shape[0]
    if all(M[i, j] == 0 for i in range(r) for j in range(r) if i != j):
        return sp.diag(*[1 / M[i, i] for i in range(r)])
    inv, det = _inverse(M)
    if inv is None:
        raise ValueError("the constant part of the mass matrix is singular")
    return inv


def _structured_solve(mass: sp.Matrix, f: list, q, eta, vector_name: str):
    r"""Solve :math:`M\dot\eta = f` keeping the structure; returns
    ``(etadot, abbreviations, solver)``."""
    pol = default_policy()
    r = mass.shape[0]
    f = sp.Matrix(f)
    taken = {s.name for e in (*mass, *f) for s in as_expr(e).free_symbols}
    taken |= {s.name for s in (*q, *eta)}

    def fresh(stem: str) -> sp.Symbol:
        """A symbol named ``stem`` (primed until it clashes with no symbol of the system)."""
        while stem in taken:
            stem += "'"
        taken.add(stem)
        return sp.Symbol(stem, real=True)

    if not any(e.has(*q) for e in mass):
        return [compact(e) for e in _const_inverse(mass) * f], [], "constant"
    if all(mass[i, j] == 0 for i in range(r) for j in range(r) if i != j):
        if any(pol.is_zero(mass[i, i]) for i in range(r)):
            raise ValueError("the mass matrix d2L*/deta2 of the quasi-velocities is singular")
        return [compact(f[i] / mass[i, i]) for i in range(r)], [], "diagonal"
    factors = None
    max_rank = max(1, (r - 1) // 2)
    M0 = _constant_part(mass, q, max_rank) if r > 1 else None
    if M0 is not None and not pol.is_zero(M0.det(method="berkowitz")):
        U = (mass - M0).applyfunc(compact)
        factors = _rank_factors(U, max_rank)
    if factors:
        M0inv = _const_inverse(M0)
        abbrev: list = []
        known: dict = {}
        ordinal = [0]

        def name(e):
            """Abbreviate a non-trivial vector entry (shared between u and w)."""
            e = as_expr(e)
            if e.is_Atom or sp.count_ops(e) <= 1 and not e.has(*q):
                return e
            if e in known:
                return known[e]
            if -e in known:
                return -known[-e]
            ordinal[0] += 1
            s = fresh(f"{vector_name}_{ordinal[0]}")
            known[e] = s
            abbrev.append((s, e))
            return s

        k = len(factors)
        Uh = sp.Matrix(r, k, lambda i, a: name(factors[a][0][i]))
        Wh = sp.Matrix(r, k, lambda i, a: name(factors[a][2][i]))
        Sig = sp.diag(*[s for _, s, _ in factors])
        y = M0inv * f
        Z = M0inv * Uh
        # Woodbury: eta' = y - Z mu,  (1 + Sigma W^T Z) mu = Sigma W^T y
        if k == 1:
            sigma = Sig[0, 0]
            Delta = fresh("Delta")
            abbrev.append((Delta, 1 + sigma * sp.Add(*[Wh[i, 0] * Z[i, 0] for i in range(r)])))
            mu = fresh("mu")
            abbrev.append((mu, sigma * sp.Add(*[Wh[i, 0] * y[i] for i in range(r)]) / Delta))
            mus = sp.Matrix([mu])
        else:
            C = (sp.eye(k) + Sig * Wh.T * Z).applyfunc(sp.expand)
            b = Sig * Wh.T * y
            Delta = fresh("Delta")
            abbrev.append((Delta, sp.expand(C.det(method="berkowitz"))))
            adj = C.adjugate(method="berkowitz")
            mus = sp.Matrix([fresh(f"mu_{a + 1}") for a in range(k)])
            for a in range(k):
                abbrev.append((mus[a], sp.Add(*[adj[a, c] * b[c] for c in range(k)]) / Delta))
        etadot = [y[i] - sp.Add(*[Z[i, a] * mus[a] for a in range(k)]) for i in range(r)]
        return etadot, abbrev, "low_rank"
    # cofactors over one shared determinant
    det = compact(mass.det(method="berkowitz"))
    if pol.is_zero(det):
        raise ValueError("the mass matrix d2L*/deta2 of the quasi-velocities is singular")
    adj = mass.adjugate(method="berkowitz").applyfunc(compact)
    Delta = fresh("Delta")
    etadot = [compact(sp.Add(*[adj[i, j] * f[j] for j in range(r)])) / Delta for i in range(r)]
    return etadot, [(Delta, det)], "cofactors"


def compact_equations(system, frame=None, transversal=None, names=None,
                      vector_name: str = "g") -> CompactEquations:
    r"""Compact explicit equations of motion in the quasi-velocities of an adapted frame.

    With :math:`\dot q = K(q)\eta + k_0(q)` (the frame fields :math:`v_a` are the columns
    of :math:`K`) the Hamel / Borisov–Mamaev equations read :math:`M(q)\dot\eta = f(q,\eta)`,
    :math:`M = \partial^2L^*/\partial\eta^2`, :math:`f` = the right-hand side of (5) minus
    :math:`\dot M\eta` (see :func:`quasi_velocity_equations`), each entry normalised with the
    ring-based :func:`~geomech.mechanics.equations.common.compact` (no ``simplify``).  The linear
    system is solved *keeping its structure*: :math:`M = M_0 + U` with :math:`M_0` the part
    free of :math:`q`; if :math:`U = \sum_{c\le k}\sigma_c u_c w_c^{\mathsf T}` has low rank
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
        As for :func:`quasi_velocity_equations` (default: the split frame); ``"natural"``
        takes ``system.natural_frame`` (set by catalogue entries such as
        :func:`~geomech.examples.chaplygin_ball`: body angular velocities, and
        :func:`~geomech.examples.rolling_disk`: the angular velocity in the König frame).
    transversal, names
        As for :func:`quasi_velocity_equations`.
    vector_name : str
        Stem of the names of the entries of the low-rank vectors (``g`` -> ``g_1, ...``).

    Returns
    -------
    CompactEquations

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
    >>> ce = compact_equations(S, frame=[tau1, tau2], names="v omega")
    >>> ce.dynamics
    {v: a*omega**2, omega: -a*m*omega*v/I}
    >>> ce.kinematics
    {x: v*cos(phi), y: v*sin(phi), phi: omega}
    """
    if not hasattr(system, "phase_space"):
        raise TypeError(f"expected a NonholonomicSystem, got {type(system).__name__}")
    if isinstance(frame, str):
        if frame != "natural":
            raise ValueError(f"frame must be 'natural', a sequence of vector fields or None, "
                             f"got {frame!r}")
        nat = getattr(system, "natural_frame", None)
        if not nat:
            raise ValueError(f"{system.name} has no natural frame; pass frame=[...] (fields "
                             f"tangent to the constraints)")
        frame = nat["frame"]
        names = names if names is not None else nat.get("names")
        if vector_name == "g":
            vector_name = nat.get("vector_name", vector_name)
    if not isinstance(vector_name, str) or not vector_name.isidentifier():
        raise ValueError(f"vector_name must be an identifier, got {vector_name!r}")
    return _compact_from_hamel(system, _hamel(system, frame, transversal, names), vector_name)


def _compact_from_hamel(system, h: _Hamel, vector_name: str = "g") -> CompactEquations:
    N = system.manifold
    n, k = N.dim, system.n_constraints
    r = n - k
    f = [tidy(compact(h.rhs[a] - h.drift[a]), h.eta) for a in range(r)]
    etadot, abbrev, solver = _structured_solve(h.mass, f, N.coords, h.eta, vector_name)
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
