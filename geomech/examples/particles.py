r"""Particles with linear constraints (Kozlov (1982)): the
vakonomic and the nonholonomic motions differ for a nonintegrable constraint and coincide for
an integrable one.

* :func:`particle_zdot_y_xdot` -- the non-integrable constraint :math:`\dot z = y\dot x`
  (the Heisenberg distribution, growth vector (2, 3));
* :func:`particle_holonomic_in_disguise` -- the integrable constraint
  :math:`(1 + z^2)(2x\dot x + 2y\dot y - \dot z) = 0` ("holonomic in disguise": its
  integral manifolds are the paraboloids :math:`z - x^2 - y^2 = c`).

Both with :math:`L = \tfrac m2(\dot x^2 + \dot y^2 + \dot z^2) - m g z` (the
:math:`L = \tfrac12|\dot q|^2 - z` for the default :math:`m = g = 1`).

>>> import geomech as gm
>>> gm.examples.particle_zdot_y_xdot().constraints
(-xdot*y + zdot,)
"""

from __future__ import annotations

from ._registry import register
from .common import ParamValue, build_system, configuration_manifold, coordinates, parameters

__all__ = ["particle_zdot_y_xdot", "particle_holonomic_in_disguise"]


def _particle(m, g, constraint, name, description, independent):
    p = parameters(m=m, g=g)
    q = coordinates("x y z")
    N = configuration_manifold("R3", q, p)
    xd, yd, zd = N.velocities
    L = p["m"] * (xd**2 + yd**2 + zd**2) / 2 - p["m"] * p["g"] * N.coords[2]
    return build_system(N, L, [constraint(*N.coords, *N.velocities)], name=name,
                   independent=independent, description=description)


@register
def particle_zdot_y_xdot(m: ParamValue = 1, g: ParamValue = 1,
                         independent=("xdot", "ydot")):
    r"""A particle in :math:`\mathbb R^3` with the constraint :math:`\dot z = y\dot x`
    (Kozlov (1982)).

    .. math::

        L = \tfrac m2(\dot x^2 + \dot y^2 + \dot z^2) - m g z, \qquad \dot z - y\dot x = 0 .

    The constraint distribution :math:`\mathrm{span}\{\partial_x + y\partial_z, \partial_y\}`
    is bracket generating, growth vector (2, 3); nonholonomic and vakonomic motions differ
    Defaults :math:`m = g = 1` give :math:`L = \tfrac12|\dot q|^2 - z`;
    pass ``m=None, g=None`` for symbols.

    Parameters
    ----------
    m, g : optional
        Mass and gravity (default 1).
    independent : optional
        Default ``("xdot", "ydot")``, so :math:`\dot z = y\dot x` is the dependent velocity.

    Examples
    --------
    >>> particle_zdot_y_xdot().dependent_solution
    {zdot: xdot*y}
    """
    return _particle(m, g, lambda x, y, z, xd, yd, zd: zd - y * xd, "particle_zdot_y_xdot",
                     "Particle with the non-integrable constraint zdot = y xdot "
                     "(Kozlov 1982)", independent)


@register
def particle_holonomic_in_disguise(m: ParamValue = 1, g: ParamValue = 1,
                                   independent=("xdot", "ydot")):
    r"""A particle with the integrable constraint :math:`(1 + z^2)(2x\dot x + 2y\dot y - \dot z)
    = 0` (Kozlov (1982)).

    .. math::

        L = \tfrac m2(\dot x^2 + \dot y^2 + \dot z^2) - m g z .

    The distribution is involutive (holonomic in disguise); :math:`z - x^2 - y^2` is a first
    integral of the constraint, and vakonomic and nonholonomic motions coincide.

    Examples
    --------
    >>> S = particle_holonomic_in_disguise()
    >>> [e.expand() for e in S.dependent_solution.values()]
    [2*x*xdot + 2*y*ydot]
    """
    return _particle(m, g,
                     lambda x, y, z, xd, yd, zd: (1 + z**2) * (2 * x * xd + 2 * y * yd - zd),
                     "particle_holonomic_in_disguise",
                     "Particle with an integrable constraint (Kozlov (1982))", independent)



