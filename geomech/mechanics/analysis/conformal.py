r"""Conformal Hamiltonisation: conformal factors of almost-Poisson structures.

**Conformal factor of an almost-Poisson structure.**  For a bivector :math:`J` and a function
:math:`f`, the Jacobiator of :math:`fJ` is

.. math:: \mathrm{Jac}(fJ)^{ijk} = f^2\Big(\mathrm{Jac}(J)^{ijk}
          + \mathop{\mathfrak S}_{ijk} (J\nabla\ln f)^i J^{jk}\Big),

*linear* in :math:`\nabla\ln f`.  :func:`conformal_factor_search` solves it in the family
:math:`f = \prod_k f_k^{c_k}` and verifies the Jacobi identity of :math:`fJ` exactly.  Then
:math:`f\,J\nabla H` is Hamiltonian: the time change :math:`d\tau = dt/f` Hamiltonises
:math:`\dot x = J\nabla H` (for Chaplygin's multiplier, :math:`f = 1/N`).

Chaplygin's reducing multiplier lives in :mod:`geomech.mechanics.analysis.multiplier`.

Examples
--------
>>> from geomech.core.manifold import Manifold
>>> P = Manifold("P", "a b c"); a, b, c = P.coords
>>> J = AlmostPoissonStructure(P, [[0, c, -b], [-c, 0, a], [b, -a, 0]])
>>> rescaled_jacobiator(J, a**2 + b**2 + c**2)
{}
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

from geomech.core.algebra.linear import solve_constant_linear
from geomech.core.budget import check
from geomech.core.parse import as_expr
from geomech.core.zero import default_policy
from geomech.mechanics.analysis.density_search import irreducible_factors
from geomech.mechanics.analysis.poisson import AlmostPoissonStructure

__all__ = ["ConformalHamiltonisation", "conformal_factor_search", "rescaled_jacobiator"]


def rescaled_jacobiator(J: AlmostPoissonStructure, f) -> dict:
    r"""Jacobiator of :math:`fJ` divided by :math:`f^2`:
    :math:`\mathrm{Jac}(J)^{ijk} + \mathfrak S_{ijk}(J\nabla\ln f)^iJ^{jk}` (only non-zero
    components, keys as in :meth:`AlmostPoissonStructure.jacobiator`).

    >>> from geomech.core.manifold import Manifold
    >>> P = Manifold("P", "a b c"); a, b, c = P.coords
    >>> J = AlmostPoissonStructure(P, [[0, c, -b], [-c, 0, a], [b, -a, 0]])
    >>> rescaled_jacobiator(J, a**2 + b**2 + c**2)
    {}
    """
    if not isinstance(J, AlmostPoissonStructure):
        raise TypeError(f"expected an AlmostPoissonStructure, got {type(J).__name__}")
    pol = default_policy()
    X = J.manifold.coords
    f = J.manifold.sympify(f) if isinstance(f, str) else as_expr(f)
    g = sp.Matrix([sp.diff(f, x) / f for x in X])
    W = J.matrix * g
    out = {}
    for i, j, k in itertools.combinations(range(len(X)), 3):
        e = J.jacobiator_component(i, j, k) + W[i] * J.matrix[j, k] + W[j] * J.matrix[k, i] \
            + W[k] * J.matrix[i, j]
        if not pol.is_zero(e):
            out[(X[i], X[j], X[k])] = pol.normalize(e)
    return out


@dataclass(frozen=True)
class ConformalHamiltonisation:
    """Outcome of :func:`conformal_factor_search` (truthy iff a factor ``f`` was found).

    ``factor`` is ``f`` with ``f J`` Poisson (verified exactly); ``structure`` is ``f J``."""

    factor: sp.Expr | None
    structure: AlmostPoissonStructure | None = None
    reason: str = ""

    def __bool__(self) -> bool:
        return self.factor is not None


def _structure_factors(J) -> list:
    """Irreducible factors of the entries of ``J`` (the default family of factors)."""
    out: list = []
    for e in J.matrix:
        for f in irreducible_factors(e, J.manifold.coords):
            if f not in out and sp.expand(-f) not in out:
                out.append(f)
        check()
    return out


def conformal_factor_search(J, candidates: Sequence | None = None) -> ConformalHamiltonisation:
    r"""Search :math:`f = \prod_k f_k^{c_k}` with :math:`fJ` Poisson.

    The rescaled Jacobiator is linear in :math:`\nabla\ln f = \sum_k c_k\nabla\ln f_k`, so
    the constants solve a linear system (sampled exactly, each solution verified).  The
    Jacobi identity of :math:`fJ` is then checked exactly by
    :meth:`AlmostPoissonStructure.satisfies_jacobi`.  For a pseudo-Hamiltonian form
    :math:`\dot x = J\nabla H`, the field :math:`f J\nabla H` is Hamiltonian for the Poisson
    structure :math:`fJ`: the time change :math:`d\tau = dt/f` Hamiltonises the system.

    Parameters
    ----------
    J : AlmostPoissonStructure or PseudoHamiltonianForm
    candidates : sequence of expressions, optional
        The functions :math:`f_k` on the chart of ``J`` (default: the irreducible factors of
        the entries of ``J``).

    Returns
    -------
    ConformalHamiltonisation

    Examples
    --------
    >>> from geomech.core.manifold import Manifold
    >>> P = Manifold("P", "q1 q2 p1 p2"); q1, q2, p1, p2 = P.coords
    >>> S = -p2*sp.cos(q1)/sp.sin(q1)      # S = p2 d(ln N)/dq1 with N = 1/sin(q1)
    >>> J = AlmostPoissonStructure(P, [[0, 0, 1, 0], [0, 0, 0, 1], [-1, 0, 0, S],
    ...                                [0, -1, -S, 0]])
    >>> conformal_factor_search(J, [sp.sin(q1), sp.cos(q1)]).factor
    sin(q1)
    >>> conformal_factor_search(J).factor          # factors of the entries of J
    sin(q1)
    """
    J = getattr(J, "structure", J)
    if not isinstance(J, AlmostPoissonStructure):
        raise TypeError(f"expected an AlmostPoissonStructure or a pseudo-Hamiltonian form, "
                        f"got {type(J).__name__}")
    chart = J.manifold
    if candidates is None:
        candidates = _structure_factors(J)
    if not candidates:
        raise ValueError("no candidate factors: the entries of J are constant; give "
                         "candidates=[f1, ...] for the family f = prod f_k**c_k")
    fs = [chart.sympify(f) if isinstance(f, str) else as_expr(f) for f in candidates]
    f = _factor_in_family(J, fs)
    if f is None:
        return ConformalHamiltonisation(None, None, "no factor in the family f = "
                                        + " * ".join(f"({sp.sstr(f)})**c{k}"
                                                     for k, f in enumerate(fs))
                                        + " makes f*J satisfy the Jacobi identity")
    fJ = AlmostPoissonStructure(chart, (J.matrix * f).applyfunc(default_policy().normalize))
    if not fJ.satisfies_jacobi():
        return ConformalHamiltonisation(None, None, f"f = {f} failed verification")
    return ConformalHamiltonisation(f, fJ)


def _factor_in_family(J, fs):
    r"""A product :math:`f = \prod f_k^{c_k}` whose rescaled Jacobiator vanishes, or None: the
    identities :math:`\mathrm{Jac}(J) + \mathfrak S (J\nabla\ln f)^iJ^{jk} = 0` are linear
    in the :math:`c_k` (homogenised by :math:`c_0` on :math:`\mathrm{Jac}(J)`)."""
    X = J.manifold.coords
    cs = list(sp.symbols(f"_k0:{len(fs)}", cls=sp.Dummy))
    g = sp.Matrix([sum(c * sp.diff(f, x) / f for c, f in zip(cs, fs)) for x in X])
    W = J.matrix * g
    c0 = sp.Dummy("_k_jac")
    hom = []
    for i, j, k in itertools.combinations(range(len(X)), 3):
        lin = W[i] * J.matrix[j, k] + W[j] * J.matrix[k, i] + W[k] * J.matrix[i, j]
        hom.append(sp.together(lin + c0 * J.jacobiator_component(i, j, k)))
    sols = [s for s in solve_constant_linear(hom, [*cs, c0], keep=J.manifold.parameters)
            if s[c0] != 0]
    if not sols:
        return None
    s = sols[0]
    return sp.powsimp(sp.Mul(*[fk ** (s[c] / s[c0]) for c, fk in zip(cs, fs)]))
