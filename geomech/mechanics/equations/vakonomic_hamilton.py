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

from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold
from geomech.core.parse import as_expr, as_matrix
from geomech.core.zero import default_policy
from geomech.mechanics.equations.common import compact, solve_linear

__all__ = ["VakonomicHamiltonian", "vakonomic_hamiltonian", "curvature_terms",
           "multiplier_symbols", "momentum_symbols"]


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

    def __init__(self, coords, momenta, H, velocity, multipliers, manifold, gram):
        self.coords = tuple(coords)
        self.momenta = tuple(momenta)
        self.H = H
        self.velocity = tuple(velocity)
        self.multipliers = dict(multipliers)
        self.manifold = manifold
        self.gram = gram

    def hessian_p(self) -> sp.Matrix:
        r""":math:`\partial^2H/\partial p^2`
        (rank :math:`n-m`, kernel :math:`\mathrm{span}\{a_s\}`)."""
        return sp.hessian(self.H, self.momenta)

    def rhs(self, forces: Sequence | None = None) -> dict:
        r"""Hamilton's equations :math:`\dot q = H_p`, :math:`\dot p = -H_q + Q(q,\dot q(q,p))`."""
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
                          parameters=()) -> VakonomicHamiltonian:
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
