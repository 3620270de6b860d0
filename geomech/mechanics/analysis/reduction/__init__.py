r"""Reduction of nonholonomic systems: levels of integrals, symmetry, Chaplygin, Routh.

The package: :mod:`~geomech.mechanics.analysis.reduction.levels` (levels of integrals, orbit
spaces of symmetry fields, reconstruction),
:mod:`~geomech.mechanics.analysis.reduction.chaplygin` (Proposition 5),
:mod:`~geomech.mechanics.analysis.reduction.routh` (cyclic coordinates); every name is
importable from here.

After Borisov & Mamaev (2015), §2.1, §2.2 (Thms 1 and 2), §4.2, §4.4 (Prop. 5), §5.3 and the
examples of §3.3–§4.6.

* :func:`restrict_to_level` -- restriction of the flow to a joint level
  :math:`\{F_1=c_1,\dots\}` of first integrals, in a chart obtained by solving for some
  coordinates (the critical set, where the Jacobian minor vanishes, is reported).
* :func:`reduce_by_symmetry` -- projection of the flow to the orbit space of symmetry fields
  (prolonged to the phase space), :math:`\dot Z_i=v(Z_i)` expressed in the invariants.
* :func:`chaplygin_reduction` -- generalized Chaplygin reduction, Proposition 5:

  .. math:: \frac{d}{dt}\frac{\partial L^*}{\partial\dot z_i}-\frac{\partial L^*}{\partial z_i}
            =\sum_j S_{ij}\dot z_j+\hat Q^*_i+\sum_\mu b_{\mu i}\hat Q^*_\mu
            +\sum_s\lambda_s d_{si},

  .. math:: S_{ij}=\sum_\mu\Big(\frac{\partial\hat L}{\partial w_\mu}\Big)^*
            \Big[\frac{\partial b_{\mu i}}{\partial z_j}-\frac{\partial b_{\mu j}}{\partial z_i}
            -\sum_{\alpha,\beta}c^\mu_{\alpha\beta}\,b_{\alpha i}b_{\beta j}\Big],

  with :math:`\dot y=\sum_\mu E_\mu w_\mu`, :math:`[E_\alpha,E_\beta]=\sum_\mu
  c^\mu_{\alpha\beta}E_\mu`, constraints :math:`w=b(z)\dot z` and :math:`d(z)\dot z=0`
  (signs as in Borisov & Mamaev (2015), (4.23); checked on the examples of §4.4).
* :func:`routh_reduction` -- Routh reduction by a cyclic coordinate whose coordinate field is
  a Noether field and a symmetry (§5.3): :math:`R=(L-p\,\dot q_n)|_{\dot q_n=X}`.
* :func:`reconstruction_quadratures` -- Lie's reconstruction by quadratures for a solvable
  algebra of symmetry fields (Theorem 2), delegated to :func:`geomech.reconstruct` when
  the Lie layer provides it.

Examples
--------
>>> import sympy as sp, geomech as gm
>>> N = gm.Manifold("N", "x y phi", parameters="m I a g alpha")
>>> x, y, phi = N.coords; xd, yd, phid = N.velocities; m, I, a, g, al = N.parameters
>>> f = -xd*sp.sin(phi) + yd*sp.cos(phi)
>>> L = m*(xd**2+yd**2)/2 + I*phid**2/2 + m*a*phid*f - m*g*sp.sin(al)*(y + a*sp.sin(phi))
>>> S = gm.NonholonomicSystem(N, lagrangian=L, constraints=[f])
>>> red = chaplygin_reduction(S, group_coords=[x])
>>> sp.factor(red.S[0, 1])
m*(a*phidot*sin(phi)**2 - ydot*cos(phi))/sin(phi)**3
"""

from __future__ import annotations

from geomech.mechanics.analysis.reduction.chaplygin import ChaplyginReduction, chaplygin_reduction
from geomech.mechanics.analysis.reduction.levels import (
    LevelReduction,
    SymmetryReduction,
    reconstruction_quadratures,
    reduce_by_symmetry,
    restrict_to_level,
)
from geomech.mechanics.analysis.reduction.routh import RouthReduction, routh_reduction

__all__ = ["LevelReduction", "SymmetryReduction", "ChaplyginReduction", "RouthReduction",
           "restrict_to_level", "reduce_by_symmetry", "chaplygin_reduction", "routh_reduction",
           "reconstruction_quadratures"]
