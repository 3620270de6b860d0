r"""An obstruction to invariant measures from the divergence at a steady motion, without the
dependent velocities in closed form (the Whipple bicycle).

Liouville's equation for a density :math:`\rho` of an invariant measure of the flow
:math:`v` is :math:`\operatorname{div}(\rho v) = \rho\,\operatorname{div}v + v(\rho) = 0`.
Along a steady motion only the coordinates moved by symmetries change; if :math:`\rho` is
invariant under those symmetries (independent of the cyclic coordinates), :math:`v(\rho) =
0` there, so :math:`\operatorname{div}v = 0` at every steady state is *necessary*.  The
divergence at the steady state is the trace of the linearisation
(:meth:`~geomech.mechanics.system.NonholonomicSystem.linearize`): the trace of its reduced
block :math:`E^{-1}A` (mass-matrix form, exact), the cyclic block contributing nothing
(the field does not depend on the cyclic coordinates, every one moved by a symmetry).
A non-zero trace excludes every continuous positive invariant density independent of the
cyclic coordinates (Kozlov (1988), *Invariant measures of the Euler-Poincaré equations on
Lie algebras*, Funct. Anal. Appl. 22: the same argument at an equilibrium); for the
bicycle the trace is the sum of the roll-steer eigenvalues, negative in the self-stable
speed range of Meijaard et al. (2007), Table 2.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from geomech.core.zero import default_policy

__all__ = ["SteadyDivergence", "steady_divergence"]


@dataclass
class SteadyDivergence:
    """``divergence``: :math:`\\operatorname{div}v` along the family at the numeric
    parameter values (exact, in the family's constant); ``nonzero``: proved not identically
    zero; ``cyclic``: the cyclic coordinates of the linearisation; ``family``: its name."""

    divergence: sp.Expr
    nonzero: bool
    cyclic: tuple
    family: str


def steady_divergence(system, family=None) -> SteadyDivergence:
    r"""The divergence of the flow along the distinguished steady family (module docstring),
    at the system's numeric parameter values (exact: rationals and algebraic numbers such
    as :math:`\sin(\pi/10)`), as a function of the family's constant.

    ``ValueError`` when the system declares no family with one constant or has no exact
    numeric parameter values.

    >>> import geomech as gm
    >>> d = steady_divergence(gm.examples.whipple_bicycle())    # doctest: +SKIP
    >>> d.divergence, d.nonzero                                  # doctest: +SKIP
    (-6.98...*speed, True)
    """
    fams = list(getattr(system, "steady_families", ()) or ())
    fam = family or (fams[0] if fams else None)
    if fam is None or len(fam.constants) != 1 or fam.relations:
        raise ValueError("no declared steady family with one constant")
    nd = system.numeric_defaults
    params = dict(nd[0]) if nd else {}
    if not params or any(isinstance(v, float) for v in params.values()):
        raise ValueError("the divergence at a steady motion is evaluated at exact numeric "
                         "parameter values; the system has none")
    lin = system.linearize(fam.at(**{c.name: c for c in fam.constants}))
    pol = default_policy()
    if lin.mass_form is not None:
        E, A = (m.xreplace(params) for m in lin.mass_form)
        tr = sp.Add(*_diagonal_of_solve(E, A))
    else:
        tr = lin.reduced_matrix.xreplace(params).trace()
    tr = sp.factor(sp.radsimp(sp.nsimplify(sp.expand_trig(tr))))
    return SteadyDivergence(tr, not pol.is_zero(tr), tuple(lin.cyclic), fam.name)


def _diagonal_of_solve(E: sp.Matrix, A: sp.Matrix) -> list:
    r"""The diagonal of :math:`E^{-1}A` for :math:`E` block-diagonal :math:`\operatorname{
    diag}(1, M)` (the identity rows kept as they are)."""
    n = E.rows
    ident = [i for i in range(n) if all(E[i, j] == (1 if i == j else 0) for j in range(n))
             and all(E[j, i] == (1 if i == j else 0) for j in range(n))]
    rest = [i for i in range(n) if i not in ident]
    out = [A[i, i] for i in ident]
    if rest:
        M = E.extract(rest, rest)
        X = M.LUsolve(A.extract(rest, rest))
        out += [X[k, k] for k in range(len(rest))]
    return out
