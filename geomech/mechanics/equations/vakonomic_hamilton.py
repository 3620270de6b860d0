r"""Kozlov's Hamiltonian form of vakonomic dynamics on raw data (Kozlov (1982), Sections 3–4).

With :math:`p = \partial L/\partial\dot q - \sum_s\lambda_s a_s` and the constraints
:math:`\langle a_s,\dot q\rangle + b_s = 0` solved for :math:`\dot q(q,p)` and
:math:`\lambda(q,p)`, :math:`H = \langle p,\dot q\rangle - L` generates the vakonomic flow
(:func:`vakonomic_hamiltonian`); for :math:`L = \tfrac12\dot q^TG\dot q + \langle g,\dot
q\rangle - U`: :math:`u = p - g`, :math:`\Gamma = AG^{-1}A^T`,
:math:`\lambda = -\Gamma^{-1}(AG^{-1}u + b)`, :math:`\dot q = G^{-1}(u + A^T\lambda)`.
:func:`curvature_terms` gives :math:`C_{s,i}` of the multiplier-rule form.  The forms on a
:class:`~geomech.mechanics.system.NonholonomicSystem` are in
:mod:`geomech.mechanics.equations.vakonomic` (these names also import from there).

>>> x, y, phi, xd, yd, phid = sp.symbols("x y phi xdot ydot phidot")
>>> vh = vakonomic_hamiltonian((xd**2 + yd**2 + phid**2)/2, [x, y, phi], [xd, yd, phid],
...                            A=[[sp.sin(phi), -sp.cos(phi), 0]])
>>> vh.multipliers
{lambda1: -p_x*sin(phi) + p_y*cos(phi)}
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from geomech.core.algebra import UnsupportedExpression
from geomech.core.algebra.normal_form import compact
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.opcount import count_ops
from geomech.core.parse import as_expr, as_matrix
from geomech.core.zero import default_policy
from geomech.mechanics.equations.common import ABBREVIATE_OPS, inverse_solve, solve_linear
from geomech.mechanics.equations.heavy import FactoredCalculus

__all__ = ["VakonomicHamiltonian", "vakonomic_hamiltonian", "curvature_terms",
           "multiplier_symbols", "momentum_symbols", "compact_small"]


def multiplier_symbols(m: int, names=None) -> tuple[sp.Symbol, ...]:
    """``lambda1`` to ``lambdam`` (or the given names), real symbols.

    >>> multiplier_symbols(2)
    (lambda1, lambda2)
    """
    if names is None:
        return tuple(sp.Symbol(f"lambda{i + 1}", real=True) for i in range(m))
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    out = tuple(sp.Symbol(s, real=True) if isinstance(s, str) else s for s in names)
    if len(out) != m:
        raise ValueError(f"{len(out)} multiplier names for {m} constraints")
    return out


def momentum_symbols(coords: Sequence[sp.Symbol], names=None) -> tuple[sp.Symbol, ...]:
    """``p_x``, ``p_y`` and so on (or the given names), real symbols.

    >>> momentum_symbols(sp.symbols("x phi"))
    (p_x, p_phi)
    """
    if names is None:
        return tuple(sp.Symbol(f"p_{c.name}", real=True) for c in coords)
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    out = tuple(sp.Symbol(s, real=True) if isinstance(s, str) else s for s in names)
    if len(out) != len(coords):
        raise ValueError(f"{len(out)} momentum names for {len(coords)} coordinates")
    return out


def _split_quadratic(L, velocities, policy):
    r"""``G, g, L0`` with :math:`L = \tfrac12\dot q^TG\dot q + g^T\dot q + L_0`, or raise."""
    n = len(velocities)
    zero = dict.fromkeys(velocities, 0)
    grad = [sp.diff(L, v) for v in velocities]
    G = sp.Matrix(n, n, lambda i, j: sp.expand(sp.diff(grad[i], velocities[j])))
    for e in G:
        for v in velocities:
            if e.has(v) and not policy.is_zero(sp.diff(e, v)):
                raise ValueError(
                    "the vakonomic Hamiltonian form needs a Lagrangian quadratic in the "
                    f"velocities; d2L/dqdot2 depends on {v}. Use form='lagrangian'.")
    G = G.xreplace(zero)
    g = sp.Matrix([e.xreplace(zero) for e in grad])
    L0 = as_expr(L).xreplace(zero)
    return G, g, L0


class VakonomicHamiltonian:
    r"""Kozlov's Hamiltonian :math:`H(q,p)` with the velocity and multiplier maps.

    Attributes
    ----------
    coords, momenta : tuple of Symbol
        Canonical coordinates :math:`(q, p)` of :math:`T^*N`.
    H : expression
        :math:`H = \langle p,\dot q\rangle - L` at :math:`\dot q = \dot q(q,p)`.
    velocity : tuple of expressions
        :math:`\dot q(q,p)`; equals :math:`\partial H/\partial p`.
    multipliers : dict
        ``{lambda_s: lambda_s(q, p)}``.
    manifold : Manifold
        The chart of :math:`T^*N` (coordinates ``coords + momenta``).
    """

    def __init__(self, coords, momenta, H, velocity, multipliers, manifold, gram, rates=None,
                 kinetic=None):
        self.coords = tuple(coords)
        self.momenta = tuple(momenta)
        self.H = H
        self.velocity = tuple(velocity)
        self.multipliers = dict(multipliers)
        self.manifold = manifold
        self._gram = gram
        self._kinetic = kinetic         # (G, A) for a gram computed on first access
        self._rates = dict(rates) if rates is not None else None

    @property
    def gram(self) -> sp.Matrix:
        r""":math:`\Gamma = AG^{-1}A^{T}` (computed on first access when the reduced route
        built the Hamiltonian: ``gram=None``, ``kinetic=(G, A)``)."""
        if self._gram is None and self._kinetic is not None:
            G, A = self._kinetic
            cols = [solve_linear(G, A[s, :].T, what="kinetic matrix") for s in range(A.rows)]
            self._gram = (A * sp.Matrix.hstack(*cols)).applyfunc(compact)
        return self._gram

    def hessian_p(self) -> sp.Matrix:
        r""":math:`\partial^2H/\partial p^2`
        (rank :math:`n-m`, kernel :math:`\mathrm{span}\{a_s\}`)."""
        return sp.hessian(self.H, self.momenta)

    def rhs(self, forces: Sequence | None = None) -> dict:
        r"""Hamilton's equations :math:`\dot q = H_p`, :math:`\dot p = -H_q + Q(q,\dot q(q,p))`
        (for the reduced route :math:`-H_q` by the envelope formula of
        :func:`vakonomic_hamiltonian`, with no derivative of :math:`H`)."""
        if self._rates is not None:
            out = dict(self._rates)
            for i, p in enumerate(self.momenta):
                if forces is not None and forces[i] != 0:
                    f = as_expr(forces[i]).xreplace(self._velocity_subs())
                    out[p] = compact_small(out[p] + f)
            return out
        out = {q: compact(sp.diff(self.H, p)) for q, p in zip(self.coords, self.momenta)}
        for i, (q, p) in enumerate(zip(self.coords, self.momenta)):
            e = -sp.diff(self.H, q)
            if forces is not None:
                e += as_expr(forces[i]).xreplace(self._velocity_subs())
            out[p] = compact(e)
        return out

    def _velocity_subs(self) -> dict:
        return dict(zip(self._qdot_symbols, self.velocity))

    def vector_field(self, forces: Sequence | None = None) -> VectorField:
        """The Hamiltonian vector field on :attr:`manifold`."""
        rhs = self.rhs(forces)
        return VectorField(self.manifold, [rhs[c] for c in self.manifold.coords])


def vakonomic_hamiltonian(L, coords: Sequence[sp.Symbol], velocities: Sequence[sp.Symbol],
                          A, b=None, momenta=None, multipliers=None,
                          parameters=(), dependent: Sequence[int] | None = None
                          ) -> VakonomicHamiltonian:
    r"""Kozlov's vakonomic Hamiltonian for a Lagrangian quadratic in the velocities.

    .. math:: \lambda = -\Gamma^{-1}(AG^{-1}(p-g) + b),\quad
              \dot q = G^{-1}(p - g + A^{T}\lambda),\quad
              H = \langle p,\dot q\rangle - L(q,\dot q),\quad \Gamma = AG^{-1}A^{T}.

    Parameters
    ----------
    L : expression
        :math:`\tfrac12\dot q^TG\dot q + g^T\dot q - U` (else ``ValueError``).
    coords, velocities : sequences of Symbol
    A : m x n matrix
        Constraint rows :math:`a_s`; ``b``: the affine parts (default zero).
    momenta, multipliers : names, optional
        Default ``p_<coord>`` and ``lambda1 ..``.
    dependent : sequence of int, optional
        Indices of :math:`m` velocities with an invertible constraint minor
        :math:`A_{\rm dep}`.  Given, the *reduced route* is taken: no inverse of the
        :math:`n\times n` matrix :math:`G` (whose Cramer minors swell when :math:`G` has square
        roots, as for the rolling ellipsoid), but with the basis :math:`T` of
        :math:`\ker A` (identity rows at the other indices) and :math:`Aw + b = 0`,

        .. math:: M = T^{T}GT,\quad \pi = T^{T}(p - g - Gw),\quad z = M^{-1}\pi,\quad
                  \dot q = Tz + w,

        :math:`H = \tfrac12\langle\pi, z\rangle + \langle p - g, w\rangle
        - \tfrac12 w^{T}Gw - L_0`, :math:`\lambda = A_{\rm dep}^{-T}(G\dot q + g - p)_{\rm
        dep}` and, by the envelope theorem (:math:`H` is the critical value of
        :math:`\langle p,\dot q\rangle - L + \lambda_s f_s` in :math:`(\dot q,\lambda)`),

        .. math:: -\frac{\partial H}{\partial q_k} = \frac{\partial L}{\partial q_k}
                  - \sum_s\lambda_s\Big(\frac{\partial a_s}{\partial q_k}\dot q
                  + \frac{\partial b_s}{\partial q_k}\Big)

        with :math:`\partial L/\partial q_k` a quadratic form in :math:`z` whose coefficients
        :math:`T^{T}\partial_kG\,T` are differentiated in the radical ring
        (:class:`~geomech.mechanics.equations.heavy.FactoredCalculus`) and :math:`z` kept
        unexpanded (:func:`~geomech.mechanics.equations.common.inverse_solve`).  The
        identity :math:`G^{-1} - G^{-1}A^{T}\Gamma^{-1}AG^{-1} = T(T^{T}GT)^{-1}T^{T}` (both
        sides are the symmetric :math:`X` with :math:`AX = 0` and :math:`XGT = T`) makes both
        routes give Kozlov's equations (Kozlov (1982), Sections 3--4).

    Examples
    --------
    >>> x, y, phi = sp.symbols("x y phi", real=True)
    >>> xd, yd, phid = sp.symbols("xdot ydot phidot", real=True)
    >>> K = vakonomic_hamiltonian((xd**2 + yd**2 + phid**2)/2, (x, y, phi), (xd, yd, phid),
    ...                           sp.Matrix([[sp.sin(phi), -sp.cos(phi), 0]]))
    >>> K.velocity[0]
    p_x*cos(phi)**2 + p_y*sin(phi)*cos(phi)
    >>> sp.simplify(K.hessian_p() * sp.Matrix([sp.sin(phi), -sp.cos(phi), 0]))
    Matrix([
    [0],
    [0],
    [0]])

    The reduced route (``dependent=``: the velocity ``ydot`` solved from the constraint)
    gives the same Hamiltonian and rates:

    >>> R = vakonomic_hamiltonian((xd**2 + yd**2 + phid**2)/2, (x, y, phi), (xd, yd, phid),
    ...                           sp.Matrix([[sp.sin(phi), -sp.cos(phi), 0]]), dependent=[1])
    >>> rk, rr = K.rhs(), R.rhs()
    >>> policy = default_policy()
    >>> policy.is_zero(R.H - K.H), all(policy.is_zero(rk[c] - rr[c]) for c in rk)
    (True, True)
    """
    policy = default_policy()
    coords, velocities = tuple(coords), tuple(velocities)
    n = len(coords)
    A = as_matrix(A) if A is not None else sp.zeros(0, n)
    if A.cols != n:
        raise ValueError(f"constraint rows need {n} entries, got {A.cols}")
    m = A.rows
    b = sp.zeros(m, 1) if b is None else as_matrix(list(b))
    if b.rows != m:
        raise ValueError(f"{b.rows} affine terms for {m} constraints")
    G, g, L0 = _split_quadratic(L, velocities, policy)
    p = momentum_symbols(coords, momenta)
    lam = multiplier_symbols(m, multipliers)
    if dependent is not None and m:
        out = _reduced_route((G, g, L0), coords, A, b, list(dependent), p, lam, parameters)
        out._qdot_symbols = velocities
        return out
    u = sp.Matrix(p) - g
    Ginv_u = solve_linear(G, u, what="kinetic matrix d2L/dqdot2")
    if m:
        Ginv_At = sp.Matrix.hstack(*[solve_linear(G, A[s, :].T, what="kinetic matrix")
                                     for s in range(m)])
        gram = (A * Ginv_At).applyfunc(compact)
        lam_val = solve_linear(gram, -(A * Ginv_u + b),
                               what="Gram matrix A G^-1 A^T of the constraints "
                                    "(dependent constraints?)")
        qdot = (Ginv_u + Ginv_At * lam_val).applyfunc(compact)
    else:
        gram = sp.zeros(0, 0)
        lam_val = sp.zeros(0, 1)
        qdot = Ginv_u.applyfunc(compact)
    Lq = (sp.Rational(1, 2) * (qdot.T * G * qdot)[0, 0] + (g.T * qdot)[0, 0] + L0)
    H = compact(sp.Add(*[pi * vi for pi, vi in zip(p, qdot)]) - Lq)
    chart = Manifold("T*N", (*coords, *p), parameters=parameters)
    out = VakonomicHamiltonian(coords, p, H, list(qdot), dict(zip(lam, lam_val)), chart, gram)
    out._qdot_symbols = velocities
    return out


def compact_small(e: sp.Expr) -> sp.Expr:
    r"""``compact(e)`` for expressions of at most ``common.ABBREVIATE_OPS`` operations; larger
    ones (the heavy bodies' rates, with :math:`z = M^{-1}\pi` inside) are kept as they are:
    normalising them is the swell.

    >>> t = sp.Symbol("t")
    >>> compact_small(sp.sin(t)**2 + sp.cos(t)**2)
    1
    """
    return compact(e) if count_ops(e) <= ABBREVIATE_OPS else e


def _tangent_basis(A: sp.Matrix, b: sp.Matrix, dep: list) -> tuple:
    r"""``(T, w)``: :math:`AT = 0`, :math:`Aw + b = 0`, identity rows of :math:`T` and zero
    entries of :math:`w` at the independent indices (the dependent velocities solved from
    the minor :math:`A_{\rm dep}`)."""
    n = A.cols
    ind = [i for i in range(n) if i not in dep]
    minor = A[:, dep]
    T, w = sp.zeros(n, len(ind)), sp.zeros(n, 1)
    for a, i in enumerate(ind):
        T[i, a] = 1
        col = solve_linear(minor, -A[:, i], what="constraint minor")
        for s, d in enumerate(dep):
            T[d, a] = col[s]
    if any(e != 0 for e in b):
        col = solve_linear(minor, -b, what="constraint minor")
        for s, d in enumerate(dep):
            w[d] = col[s]
    return T, w


def _sandwich(T: sp.Matrix, K: sp.Matrix) -> sp.Matrix:
    """:math:`T^{T}KT` for symmetric ``K``, entries compacted (upper triangle computed)."""
    r = T.cols
    KT = K * T
    out = sp.zeros(r, r)
    for a in range(r):
        for c in range(a, r):
            out[a, c] = out[c, a] = compact((T[:, a].T * KT[:, c])[0, 0])
    return out


def _quadratic(D: sp.Matrix, z: Sequence) -> sp.Expr:
    r""":math:`\tfrac12 z^{T}Dz` for symmetric ``D``, ``z`` not expanded."""
    r = len(z)
    return sp.Add(*[(D[a, a] / 2 if a == c else D[a, c]) * z[a] * z[c]
                    for a in range(r) for c in range(a, r) if D[a, c] != 0])


class _Derivatives:
    """Partial derivatives of the data in the ring of
    :class:`~geomech.mechanics.equations.heavy.FactoredCalculus` (square roots as
    generators), or by sympy with :func:`compact` when the data lie outside it."""

    def __init__(self, exprs):
        try:
            self.rc = FactoredCalculus([e for e in exprs if e != 0])
        except UnsupportedExpression:
            self.rc = None

    def __call__(self, e: sp.Expr, x: sp.Symbol) -> sp.Expr:
        if not e.has(x):
            return sp.S.Zero
        if self.rc is not None:
            try:
                rc = self.rc
                return rc.expr(rc.diff(rc.frac(e), x))
            except UnsupportedExpression:
                pass
        return compact(sp.diff(e, x))


def _momentum_rates(parts, coords, T, w, z, lam_val, d) -> list:
    r""":math:`\dot p_k = \partial_kL - \sum_s\lambda_s(\partial_ka_s\,\dot q +
    \partial_kb_s)` at :math:`\dot q = Tz + w` (envelope formula of
    :func:`vakonomic_hamiltonian`), the coefficients of the monomials of ``z`` compacted."""
    G, g, L0, A, b = parts
    n, r, m = len(coords), T.cols, A.rows
    out = []
    for qk in coords:
        dG = sp.Matrix(n, n, [d(x, qk) for x in G])
        dg = sp.Matrix([d(x, qk) for x in g])
        e = d(L0, qk)
        if any(x != 0 for x in dG):
            e += _quadratic(_sandwich(T, dG), z)
        lin = T.T * (dG * w + dg)
        e += sp.Add(*[compact(lin[a]) * z[a] for a in range(r)])
        e += compact((w.T * (dG * w / 2 + dg))[0, 0])
        for s in range(m):
            dA = sp.Matrix(1, n, [d(A[s, j], qk) for j in range(n)])
            if all(x == 0 for x in dA) and not b[s].has(qk):
                continue
            cT = dA * T
            c0 = compact((dA * w)[0, 0] + d(b[s], qk))
            e -= lam_val[s] * (sp.Add(*[compact(cT[a]) * z[a] for a in range(r)]) + c0)
        out.append(compact_small(e))
    return out


def _reduced_route(quad, coords, A, b, dep, p, lam, parameters) -> VakonomicHamiltonian:
    r"""Kozlov's Hamiltonian and its Hamilton equations by the reduced route (the
    ``dependent=`` option of :func:`vakonomic_hamiltonian`, formulas there)."""
    G, g, L0 = quad
    n = len(coords)
    T, w = _tangent_basis(A, b, dep)
    r = T.cols
    M = _sandwich(T, G)
    Gw = G * w
    pv = sp.Matrix(p)
    pi = sp.Matrix([sp.Add(*[T[i, a] * (pv[i] - compact(g[i] + Gw[i])) for i in range(n)
                             if T[i, a] != 0]) for a in range(r)])
    z = list(inverse_solve(M, pi, what="reduced kinetic matrix T^T G T"))
    qdot = [sp.Add(*[T[i, a] * z[a] for a in range(r) if T[i, a] != 0]) + w[i]
            for i in range(n)]
    minor_t = A[:, dep].T
    GT = G * T
    rows = [sp.Add(*[compact(GT[d, a]) * z[a] for a in range(r)]) + compact(Gw[d] + g[d])
            - pv[d] for d in dep]
    lam_val = [compact_small(e)
               for e in inverse_solve(minor_t, sp.Matrix(rows), "constraint minor")]
    d = _Derivatives([*G, *g, L0, *A, *b])
    rates = dict(zip(coords, [compact_small(e) for e in qdot]))
    rates.update(zip(p, _momentum_rates((G, g, L0, A, b), coords, T, w, z, lam_val, d)))
    H = (sp.Add(*[pi[a] * z[a] for a in range(r)]) / 2 + ((pv - g).T * w)[0, 0]
         - compact((w.T * Gw)[0, 0]) / 2 - L0)
    chart = Manifold("T*N", (*coords, *p), parameters=parameters)
    return VakonomicHamiltonian(coords, p, compact_small(H), [rates[c] for c in coords],
                                dict(zip(lam, lam_val)), chart, None, rates=rates,
                                kinetic=(G, A))


def curvature_terms(A, b, coords: Sequence[sp.Symbol], velocities: Sequence[sp.Symbol]):
    r"""The vakonomic extra terms :math:`C_s`, one column per constraint.

    .. math:: C_{s,i} = \sum_j\Big(\frac{\partial a_{si}}{\partial q_j}
              - \frac{\partial a_{sj}}{\partial q_i}\Big)\dot q_j
              - \frac{\partial b_s}{\partial q_i}
              = \big(i_{\dot q}\, d\alpha_s\big)_i - \partial_i b_s ,
              \quad \alpha_s = \sum_i a_{si}\,dq_i .

    >>> y = sp.Symbol("y"); xd, yd, zd = sp.symbols("xdot ydot zdot")
    >>> curvature_terms(sp.Matrix([[-y, 0, 1]]), [0], sp.symbols("x y z"), (xd, yd, zd))
    Matrix([
    [-ydot],
    [ xdot],
    [    0]])
    """
    A = sp.Matrix(A)
    m, n = A.shape
    b = list(b) if b is not None else [0] * m
    C = sp.zeros(n, m)
    for s in range(m):
        for i in range(n):
            e = sp.S.Zero
            for j in range(n):
                e += (sp.diff(A[s, i], coords[j]) - sp.diff(A[s, j], coords[i])) * velocities[j]
            C[i, s] = e - sp.diff(as_expr(b[s]), coords[i])
    return C
