r"""The count of the Euler--Jacobi--Lie theorem and the first integrals near an attracting
family of steady motions, without the dependent velocities in closed form (the Whipple
bicycle of Meijaard et al. (2007)).

**Count.**  The flow lives on the level :math:`h(q) = 0` of the configuration constraints
in the phase space :math:`(q, u)` of the independent velocities, of dimension
:math:`n = \dim P - m_h`.  With :math:`k` independent first integrals and :math:`s`
symmetry fields (independent, tangent to the common levels, spanning with the flow a
solvable algebra), the Euler--Jacobi--Lie theorem (Kozlov (2002), *On the integration theory
of equations of nonholonomic mechanics*, Regul. Chaotic Dyn. 7, §2) gives the motion by
quadratures when :math:`k + s = n - 2` with an invariant measure, :math:`k + s = n - 1`
without.  The known :math:`k` and the rank :math:`s` of the known symmetry fields bound
:math:`k + s` from above: when it falls short of :math:`n - 2` the theorem does not apply
with what is known, whatever the measure.

**Lyapunov--Malkin.**  Let the reduced flow (the cyclic coordinates left out) have a
one-parameter family of equilibria (steady motions, constant :math:`c`) and, at a member,
one semisimple zero root, every other root in the open left half-plane.  Then every motion
starting near that member tends to a member of the family (Malkin (1952), *Theory of
stability of motion*, Ch. IV, §§116--120: the critical case of zero roots with a family of
equilibria).  A first integral :math:`F` of the reduced flow, continuous near it, is
constant along every motion: :math:`F(x) = F(\lim_{t\to\infty} x(t))`, a function of the
member reached.  When the energy separates the members (:math:`dE(\partial_c) \ne 0` along
the family), the member reached is fixed by :math:`E(x)`, so :math:`F = f(E)` near the
steady motion: no first integral independent of the cyclic coordinates and of the energy
exists there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from geomech.core.parse import as_expr
from geomech.core.zero import default_policy

__all__ = ["QuadratureCount", "quadrature_count", "AttractingMotion",
           "attracting_steady_motion"]


@dataclass(frozen=True)
class QuadratureCount:
    r"""The count of the Euler--Jacobi--Lie theorem (module docstring): ``n`` the dimension
    of the level :math:`h = 0` in the phase space, ``k`` the known first integrals, ``s``
    the rank of the known symmetry fields."""

    n: int
    k: int
    s: int

    @property
    def short_with_measure(self) -> int:
        """How many integrals or symmetries the theorem lacks with an invariant measure."""
        return self.n - 2 - self.k - self.s

    @property
    def short_without_measure(self) -> int:
        """How many it lacks without one (Lie's form, :math:`k + s = n - 1`)."""
        return self.n - 1 - self.k - self.s


def quadrature_count(system, fields) -> QuadratureCount:
    r"""The count of the module docstring: :math:`n = \dim P - m_h`, :math:`k = 1` when
    the energy is an integral by the energy theorem
    (:func:`~geomech.mechanics.analysis.integrals.energy_theorem_applies`), else 0,
    :math:`s` the generic rank of the components of ``fields`` (exact).

    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh(); x, y, phi = S.manifold.coords
    >>> c = quadrature_count(S, [S.manifold.vector_field([1, 0, 0])])
    >>> c.n, c.k, c.s, c.short_with_measure
    (5, 1, 1, 1)
    """
    from geomech.mechanics.analysis.integrals import energy_theorem_applies

    n = system.phase_space.dim - len(system.holonomic)
    k = 1 if energy_theorem_applies(system) else 0
    rows = [list(u.components) for u in fields]
    s = default_policy().rank(sp.Matrix(rows)) if rows else 0
    return QuadratureCount(n, k, int(s))


@dataclass(frozen=True)
class AttractingMotion:
    r"""An asymptotically stable member of a one-parameter steady family (module
    docstring): ``family`` its name, ``constant`` and ``value`` the member, ``reason`` the
    stability verdict's reason, ``slope`` :math:`dE(\partial_c)` at the member (exact,
    non-zero), ``cyclic`` the cyclic coordinates left out of the reduced flow."""

    family: str
    constant: sp.Symbol
    value: sp.Expr
    reason: str
    slope: sp.Expr
    cyclic: tuple


def _samples(fam, c) -> list:
    """The constant's sample values, from the middle of its range outward."""
    span = dict(fam.ranges).get(c.name)
    if span is None:
        return [sp.Integer(1)]
    xs = [sp.nsimplify(x) for x in np.linspace(float(span[0]), float(span[1]), 5)]
    return sorted(xs, key=lambda x: abs(float(x) - float(xs[2])))


def attracting_steady_motion(system) -> AttractingMotion | None:
    r"""A member of the system's distinguished one-parameter steady family, at its numeric
    parameter values, where the Lyapunov--Malkin argument of the module docstring applies:
    the verdict *asymptotically stable* with exactly one (semisimple) zero root of the
    reduced field, the energy an integral and :math:`dE(\partial_c) \ne 0` (exact).
    ``None`` when no sample of the constant's range qualifies.

    >>> import geomech as gm
    >>> m = attracting_steady_motion(gm.examples.whipple_bicycle())  # doctest: +SKIP
    >>> m.family, m.value                                              # doctest: +SKIP
    ('upright rolling', 5)
    """
    from geomech.mechanics.analysis.integrals import energy_theorem_applies
    from geomech.mechanics.analysis.stability import Verdict
    from geomech.mechanics.equations.first_variation import energy_gradient_at

    fams = list(getattr(system, "steady_families", ()) or ())
    nd = system.numeric_defaults
    if not fams or not nd or not energy_theorem_applies(system):
        return None
    fam = fams[0]
    if len(fam.constants) != 1 or fam.relations:
        return None
    c = fam.constants[0]
    lin = system.linearize(fam.at(**{c.name: c}), chart=fam.chart)
    if lin.chart != "phase space":
        return None
    params = dict(nd[0])
    pol = default_policy()
    generic = fam.at(**{c.name: c})
    for value in _samples(fam, c):
        v = lin.stability({**{k.name: x for k, x in params.items()}, c.name: value})
        if v.verdict is not Verdict.ASYMPTOTICALLY_STABLE or v.zero_roots != 1:
            continue
        state = {k: as_expr(x).xreplace({c: value}) for k, x in generic.items()}
        dE = energy_gradient_at(system, state)
        t = [sp.diff(as_expr(generic[p.name]), c) for p in system.phase_space.coords]
        slope = pol.normalize(sp.Add(*[a * b for a, b in zip(dE, t)]).xreplace(params))
        if not pol.is_zero(slope):
            return AttractingMotion(fam.name, c, value, v.reason, slope, tuple(lin.cyclic))
    return None
