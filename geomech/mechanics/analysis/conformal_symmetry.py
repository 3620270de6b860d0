r"""Conformal symmetries of a vector field (Borisov & Mamaev (2015), §1.5, App. D).

A distribution :math:`U = \mathrm{span}\{u_\alpha\}` is a *conformal symmetry* of
:math:`\dot x = v(x)` when :math:`[v, u_\alpha] = \mu_\alpha v + \sum_\beta b^\beta_\alpha u_\beta`;
a factor :math:`\Lambda` with :math:`u_\alpha(\ln\Lambda) = \mu_\alpha` makes :math:`U` a
symmetry of :math:`\Lambda v` (the time change :math:`d\tau = dt/\Lambda`).

Examples
--------
>>> from geomech.core.manifold import Manifold
>>> M = Manifold("M", "q p"); q, p = M.coords
>>> v = M.vector_field([p, -q**3])        # homogeneous force, degree 3
>>> conformal_symmetry(v, M.vector_field([q, 2*p]))
([-1], [[0]])
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

from geomech.core.algebra import solve_over_functions
from geomech.core.algebra.linear import solve_constant_linear
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold  # noqa: F401 - used by the doctests
from geomech.core.zero import default_policy
from geomech.lie.graph import BracketGraph
from geomech.mechanics.analysis.density import exp_of_potential
from geomech.mechanics.analysis.integrals import check_field

__all__ = ["conformal_symmetry", "conformal_factor", "ConformalFactor",
           "is_conformal_symmetry_distribution"]


def _decompose(target: VectorField, fields: Sequence[VectorField]):
    """Coefficients (functions) of ``target`` in ``fields``; ``None`` if not in the span."""
    A = sp.Matrix.hstack(*[f.as_matrix() for f in fields])
    sol, status = solve_over_functions(A, target.as_matrix(), len(fields))
    if status == "inconsistent":
        return None
    if status == "free":
        raise ValueError("the fields are linearly dependent; the decomposition is not unique")
    return sol


def conformal_symmetry(v: VectorField, u: VectorField | Sequence[VectorField]):
    r"""Decompose :math:`[v, u_\alpha] = \mu_\alpha v + \sum_\beta b^\beta_\alpha u_\beta`.

    Returns ``(mu, b)`` with ``mu[α]`` and ``b[α][β]`` functions, or ``None`` when some
    :math:`[v,u_\alpha]` is not in :math:`\mathrm{span}(v, U)` (``u`` is then no conformal
    symmetry of any type (1.4)).

    >>> M = Manifold("M", "q p"); q, p = M.coords
    >>> v = M.vector_field([p, -q**3])        # homogeneous force, degree 3
    >>> conformal_symmetry(v, M.vector_field([q, 2*p]))
    ([-1], [[0]])
    """
    check_field(v)
    us = [u] if isinstance(u, VectorField) else list(u)
    mus, bs = [], []
    for ua in us:
        co = _decompose(BracketGraph.of(v.manifold).bracket(v, ua), [v, *us])
        if co is None:
            return None
        mus.append(co[0])
        bs.append(co[1:])
    return mus, bs


@dataclass(frozen=True)
class ConformalFactor:
    """Outcome of :func:`conformal_factor` (truthy iff a factor ``Λ`` was found)."""

    factor: sp.Expr | None
    mu: tuple = ()
    reason: str = ""

    def __bool__(self) -> bool:
        return self.factor is not None


def conformal_factor(v: VectorField, fields: Sequence[VectorField] | VectorField,
                     candidates: Sequence | None = None) -> ConformalFactor:
    r"""Find :math:`\Lambda` with :math:`[\Lambda v, u_\alpha] \in \mathrm{span}\,U`
    (Borisov & Mamaev (2015), §1.5).

    Step 1 decomposes :math:`[v,u_\alpha] = \mu_\alpha v + \dots`; step 2 solves
    :math:`u_\alpha(\ln\Lambda) = \mu_\alpha`: by integration when every :math:`u_\alpha` is a
    multiple of one coordinate field, otherwise in the family
    :math:`\Lambda = \prod_k f_k^{c_k}` of the given ``candidates``.  Step 3 verifies
    :func:`is_conformal_symmetry_distribution`.  ``Λ`` is determined up to a factor
    invariant under ``U``.

    >>> M = Manifold("M", "q p"); q, p = M.coords
    >>> v = M.vector_field([p, -q**3])
    >>> conformal_factor(v, M.vector_field([q, 2*p]), candidates=[q]).factor
    1/q
    """
    check_field(v)
    us = [fields] if isinstance(fields, VectorField) else list(fields)
    dec = conformal_symmetry(v, us)
    if dec is None:
        return ConformalFactor(None, (), "some [v, u] is not in span(v, U)")
    mus, _ = dec
    pol = default_policy()
    X = v.manifold.coords
    lam = None
    supports = [[i for i, c in enumerate(u.components) if not pol.is_zero(c)] for u in us]
    if candidates is None and all(len(s) == 1 for s in supports):
        G = [sp.S.Zero] * len(X)
        for u, s, mu in zip(us, supports, mus):
            G[s[0]] = pol.normalize(mu / u.components[s[0]])
        idx = [i for i in range(len(X)) if G[i] != 0]
        for i in idx:
            for j in idx:
                if i < j and not pol.is_zero(sp.diff(G[i], X[j]) - sp.diff(G[j], X[i])):
                    return ConformalFactor(None, tuple(mus), "u(ln Λ) = μ is not integrable "
                                           "in the chosen coordinates")
        lam = exp_of_potential([G[i] for i in idx], [X[i] for i in idx]) if idx else sp.S.One
    else:
        if not candidates:
            return ConformalFactor(None, tuple(mus), "give candidates=[f1, ...] for "
                                   "Λ = prod f_k**c_k (the fields are not coordinate fields)")
        fs = [v.manifold.sympify(f) for f in candidates]
        cs = list(sp.symbols(f"_l0:{len(fs)}", cls=sp.Dummy))
        c0 = sp.Dummy("_l_mu")
        eqs = [sp.together(sum(c * u(f) / f for c, f in zip(cs, fs)) - c0 * mu)
               for u, mu in zip(us, mus)]
        sols = [s for s in solve_constant_linear(eqs, [*cs, c0], keep=v.manifold.parameters)
                if s[c0] != 0]
        if not sols:
            return ConformalFactor(None, tuple(mus), "no factor prod f_k**c_k in the "
                                   "candidate family")
        s = sols[0]
        lam = sp.powsimp(sp.Mul(*[f ** (s[c] / s[c0]) for c, f in zip(cs, fs)]))
    if not is_conformal_symmetry_distribution(v, us, lam):
        return ConformalFactor(None, tuple(mus), f"Λ = {lam} failed verification")
    return ConformalFactor(lam, tuple(mus))


def is_conformal_symmetry_distribution(v: VectorField, fields, factor=1) -> bool:
    r"""Whether :math:`[\Lambda v, u_\alpha] \in \mathrm{span}_{C^\infty}\{u_\beta\}` for all α.

    (The closure :math:`[u_\alpha,u_\beta] \in \mathrm{span}\,U` is required too.)

    >>> M = Manifold("M", "q p"); q, p = M.coords
    >>> is_conformal_symmetry_distribution(M.vector_field([p, -q**3]),
    ...                                    [M.vector_field([q, 2*p])], 1/q)
    True
    """
    check_field(v)
    us = [fields] if isinstance(fields, VectorField) else list(fields)
    Lv = v * v.manifold.sympify(factor)
    G = BracketGraph.of(v.manifold)
    for ua in us:
        if _decompose(G.bracket(Lv, ua), us) is None:
            return False
    for ua, ub in itertools.combinations(us, 2):
        if _decompose(G.bracket(ua, ub), us) is None:
            return False
    return True
