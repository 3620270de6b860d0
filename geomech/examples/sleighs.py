r"""Sleighs and skates: a rigid body on a plane carrying a knife edge.

Configuration space :math:`N = SE(2) \ni (x, y, \varphi)`; the knife edge forbids the velocity
of its contact point across the blade, :math:`-\dot x\sin\varphi + \dot y\cos\varphi = 0`.

* :func:`chaplygin_sleigh` -- horizontal Chaplygin sleigh, Borisov & Mamaev (2015),
  §3.3, (3.13)-(3.18);
* :func:`inclined_chaplygin_sleigh` -- the sleigh on an inclined plane, §4.5, (4.25)-(4.27);
* :func:`skate` -- Kozlov's skate (Kozlov (1982), §5), the standard example of
  vakonomic versus nonholonomic dynamics.

The helpers shared by the catalogue modules live in :mod:`geomech.examples.common`.

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> S.constraints
(-xdot*sin(phi) + ydot*cos(phi),)
"""

from __future__ import annotations

import sympy as sp

from ._registry import register
from .common import (
    ParamValue,
    UserExpr,
    build_system,
    configuration_manifold,
    coordinates,
    parameters,
    potential_energy,
)

__all__ = ["chaplygin_sleigh", "inclined_chaplygin_sleigh", "skate"]


# -- catalogue ----------------------------------------------------------------------------
@register
def chaplygin_sleigh(m: ParamValue = None, I: ParamValue = None, a: ParamValue = None,  # noqa: E741
                     potential: UserExpr | bool = None, independent=("xdot", "phidot")):
    r"""Chaplygin sleigh on a horizontal plane (Borisov & Mamaev (2015), §3.3).

    A rigid body on smooth legs and a knife edge.  :math:`(x, y)` is the point :math:`O_1`
    of the blade line closest to the centre of mass :math:`C`, :math:`\varphi` the heading,
    :math:`a = |O_1C|` (along the blade), :math:`I` the moment of inertia about :math:`O_1`
    (:math:`I = I_C + m a^2`).

    .. math::

        L = \tfrac12 m(\dot x^2+\dot y^2) + \tfrac12 I\dot\varphi^2
            + m a\dot\varphi(-\dot x\sin\varphi + \dot y\cos\varphi) - U(x, y, \varphi),
        \qquad -\dot x\sin\varphi + \dot y\cos\varphi = 0 .          \quad (3.13), (3.14)

    With :math:`v_1 = \dot x\cos\varphi + \dot y\sin\varphi`, :math:`\omega = \dot\varphi`
    the equations are (3.18): :math:`m\dot v_1 = m a\omega^2 - \cos\varphi\,U_x
    - \sin\varphi\,U_y`, :math:`I\dot\omega = -m a\omega v_1 - U_\varphi`; the energy is
    :math:`E = \tfrac12(m v_1^2 + I\omega^2) + U`.

    Parameters
    ----------
    m, I, a : sympy expression or number, optional
        Mass, moment of inertia about :math:`O_1`, offset of the centre of mass; symbols
        ``m, I, a`` by default.
    potential : expression, str, callable or True, optional
        :math:`U(x, y, \varphi)`; ``True`` gives an undefined function ``U(x, y, phi)``.
    independent : sequence of velocity names, optional
        Velocities kept independent (default ``("xdot", "phidot")``; ``("ydot", "phidot")``
        is regular away from :math:`\sin\varphi = 0`, ``("xdot", "phidot")`` away from
        :math:`\cos\varphi = 0`).

    Examples
    --------
    >>> S = chaplygin_sleigh()
    >>> S.manifold.coords, S.manifold.parameters
    ((x, y, phi), (m, I, a))
    """
    p = parameters(m=m, I=I, a=a)
    x, y, phi = q = coordinates("x y phi")
    U = potential_energy(potential, q, p)
    N = configuration_manifold("SE2", q, p, U)
    xd, yd, phid = N.velocities
    f = -xd * sp.sin(phi) + yd * sp.cos(phi)
    L = (p["m"] * (xd**2 + yd**2) / 2 + p["I"] * phid**2 / 2 + p["m"] * p["a"] * phid * f - U)
    S = build_system(N, L, [f], name="chaplygin_sleigh", independent=independent,
                description="Chaplygin sleigh on a horizontal plane "
                            "(Borisov-Mamaev 2015, §3.3, (3.13)-(3.18))",
                natural_frame=_sleigh_frame(N),
                steady=None if potential else _sleigh_runs(p["a"]))
    return S


def _sleigh_runs(a) -> tuple:
    r"""The steady motions of the free sleigh: straight runs :math:`v_1 = V`,
    :math:`\omega = 0` at heading :math:`\varphi_0` (the distinguished family; by (3.18)
    :math:`\dot\omega = -(maV/I)\,\omega` near it), and circular runs :math:`v_1 = V`,
    :math:`\omega = \Omega` only when the centre of mass is over the blade, :math:`a = 0`."""
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    V, h, W = sp.symbols("speed heading rate", real=True)
    run = {"x": 0, "y": 0, "phi": h, "xdot": V * sp.cos(h), "ydot": V * sp.sin(h)}
    fams = [SteadyFamily("straight run", (V, h), {**run, "phidot": 0}, (), {"heading": 0},
                         "straight run at speed V along the blade, heading phi0")]
    if a == 0:
        fams.append(SteadyFamily("circular run", (V, W, h), {**run, "phidot": W}, (),
                                 {"heading": 0}, "uniform motion on a circle (a = 0 only)"))
    return tuple(fams)


def _sleigh_frame(N) -> dict:
    r"""The natural quasi-velocities of the sleigh: the speed :math:`v` along the blade
    :math:`\cos\varphi\,\partial_x + \sin\varphi\,\partial_y` and :math:`\omega = \dot\varphi`."""
    phi = N.coords[2]
    return {"frame": (N.vector_field([sp.cos(phi), sp.sin(phi), 0]), N.vector_field([0, 0, 1])),
            "names": ("v", "omega")}


@register
def inclined_chaplygin_sleigh(m: ParamValue = None, I: ParamValue = None,  # noqa: E741
                              a: ParamValue = None, g: ParamValue = None,
                              alpha: ParamValue = None, independent=("ydot", "phidot")):
    r"""Chaplygin sleigh on an inclined plane (Borisov & Mamaev (2015), §4.5).

    The Lagrangian (3.14) with the potential of gravity on a plane of inclination
    :math:`\alpha_0`, :math:`Oy` along the line of steepest slope (pointing up):

    .. math::

        U = m g\sin\alpha_0\,(y + a\sin\varphi), \qquad
        -\dot x\sin\varphi + \dot y\cos\varphi = 0 .

    By default the independent velocities are :math:`(\dot y, \dot\varphi)` -- the C-1 form
    (4.25) :math:`\dot x = \dot y\cot\varphi` used by the paper -- so the flow on
    :math:`(x, y, \varphi, \dot y, \dot\varphi)` is (4.27):
    :math:`\ddot y = a\dot\varphi^2\sin\varphi - g\sin\alpha_0\sin^2\varphi
    + \dot\varphi\dot y\cot\varphi`,
    :math:`\ddot\varphi = -(m a/I)(g\sin\alpha_0\cos\varphi + \dot\varphi\dot y/\sin\varphi)`,
    with the energy :math:`E = \tfrac12(m\dot y^2/\sin^2\varphi + I\dot\varphi^2) + U`.

    Parameters
    ----------
    m, I, a, g : optional
        Mass, moment of inertia about :math:`O_1`, offset, gravity (symbols by default).
    alpha : optional
        Inclination :math:`\alpha_0` of the plane (symbol ``alpha`` by default).
    independent : sequence of velocity names, optional
        Default ``("ydot", "phidot")`` (singular where :math:`\sin\varphi = 0`).

    Examples
    --------
    >>> S = inclined_chaplygin_sleigh()
    >>> S.manifold.parameters
    (m, I, a, g, alpha)
    """
    p = parameters(m=m, I=I, a=a, g=g, alpha=alpha)
    x, y, phi = q = coordinates("x y phi")
    U = p["m"] * p["g"] * sp.sin(p["alpha"]) * (y + p["a"] * sp.sin(phi))
    N = configuration_manifold("SE2", q, p)
    xd, yd, phid = N.velocities
    f = -xd * sp.sin(phi) + yd * sp.cos(phi)
    L = (p["m"] * (xd**2 + yd**2) / 2 + p["I"] * phid**2 / 2 + p["m"] * p["a"] * phid * f - U)
    S = build_system(N, L, [f], name="inclined_chaplygin_sleigh", independent=independent,
                description="Chaplygin sleigh on an inclined plane "
                            "(Borisov-Mamaev 2015, §4.5, (4.25)-(4.27))",
                natural_frame=_sleigh_frame(N))
    return S


@register
def skate(m: ParamValue = 1, I: ParamValue = 1, independent=("xdot", "phidot")):  # noqa: E741
    r"""Kozlov's skate (Kozlov (1982), §5).

    :math:`(x, y)` is the contact point of the blade, :math:`\varphi` the blade angle; the
    blade cannot move sideways:

    .. math::

        L = \tfrac12 m(\dot x^2 + \dot y^2) + \tfrac12 I\dot\varphi^2, \qquad
        \dot x\sin\varphi - \dot y\cos\varphi = 0 .

    Kozlov uses unit masses (:math:`m = I = 1`, the defaults), so
    :math:`L = \tfrac12(\dot x^2 + \dot y^2 + \dot\varphi^2)`.  The nonholonomic skate moves
    uniformly on a circle: from :math:`(x, y, \varphi) = 0`, :math:`\dot x = v`,
    :math:`\dot\varphi = \omega` it follows :math:`x = (v/\omega)\sin\omega t`,
    :math:`y = (v/\omega)(1 - \cos\omega t)`, :math:`\varphi = \omega t`; the vakonomic
    skate (same data, :math:`\lambda_0 = 0`) drifts.

    Parameters
    ----------
    m, I : optional
        Mass and moment of inertia about the contact point (default 1, as in Kozlov (1982)).
    independent : sequence of velocity names, optional
        Default ``("xdot", "phidot")``: the Tzenoff split :math:`\dot y = \tan\varphi\,\dot x`
        of the Tzenoff form of the skate (regular where :math:`\cos\varphi \ne 0`).

    Examples
    --------
    >>> skate().lagrangian
    phidot**2/2 + xdot**2/2 + ydot**2/2
    """
    p = parameters(m=m, I=I)
    x, y, phi = q = coordinates("x y phi")
    N = configuration_manifold("SE2", q, p)
    xd, yd, phid = N.velocities
    L = p["m"] * (xd**2 + yd**2) / 2 + p["I"] * phid**2 / 2
    f = xd * sp.sin(phi) - yd * sp.cos(phi)
    return build_system(N, L, [f], name="skate", independent=independent,
                   description="Skate / knife edge on a horizontal plane "
                               "(Kozlov 1982, §5; vakonomic versus nonholonomic)")
