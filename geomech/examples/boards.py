r"""Boards on wheel pairs: snakeboard, skateboard, board with a fixed axis (Borisov & Mamaev
(2015), §6.2-§6.4).

Each wheel pair at distance :math:`r` from the centre of mass :math:`C = (x, y)` of a board
with heading :math:`\theta` acts as a knife edge turned by :math:`\varphi_f` (front) or
:math:`\varphi_b` (back) relative to the board:

.. math::

    \dot x\sin(\theta+\varphi_f) - \dot y\cos(\theta+\varphi_f) - r\dot\theta\cos\varphi_f = 0,
    \qquad
    \dot x\sin(\theta+\varphi_b) - \dot y\cos(\theta+\varphi_b) + r\dot\theta\cos\varphi_b = 0 .

Solved for :math:`(\dot x, \dot y)` they give the Chaplygin form (6.4) (and (6.13), (6.20)
for the coupled boards), singular where :math:`\sin(\varphi_f - \varphi_b) = 0`.

>>> import geomech as gm
>>> gm.examples.snakeboard().manifold.coords
(x, y, theta, phi_f, phi_b, psi)
"""

from __future__ import annotations

import sympy as sp

from ._registry import register
from .common import ParamValue, build_system, configuration_manifold, coordinates, parameters

__all__ = ["snakeboard", "skateboard", "board_with_fixed_axis"]


def _wheel_constraints(N, th, phi_f, phi_b, r):
    """The two knife-edge constraints, angle sums expanded (so that the solved Chaplygin
    forms come out as the paper prints them)."""
    xd, yd, thd = N.velocities[:3]
    return [sp.expand_trig(e) for e in (
        xd * sp.sin(th + phi_f) - yd * sp.cos(th + phi_f) - r * thd * sp.cos(phi_f),
        xd * sp.sin(th + phi_b) - yd * sp.cos(th + phi_b) + r * thd * sp.cos(phi_b))]


@register
def snakeboard(m: ParamValue = None, I: ParamValue = None, I_w: ParamValue = None,  # noqa: E741
               r: ParamValue = None, I_r: ParamValue = None, rotor: bool = True,
               independent=None):
    r"""Snakeboard (Borisov & Mamaev (2015), §6.2).

    :math:`q = (x, y, \theta, \varphi_f, \varphi_b, \psi)`; :math:`(x, y, \theta)` the board's
    centre of mass and heading, :math:`\varphi_{f,b}` the wheel-pair angles, :math:`\psi` the
    rotor (rider) angle relative to the board.  With the two knife-edge constraints of the
    module docstring and (6.5):

    .. math::

        L = T = \tfrac m2(\dot x^2+\dot y^2) + \tfrac I2\dot\theta^2
          + \tfrac{I_w}2\big((\dot\theta+\dot\varphi_f)^2 + (\dot\theta+\dot\varphi_b)^2\big)
          + \tfrac{I_r}2(\dot\theta+\dot\psi)^2 ,

    :math:`m = m_0 + 2m_w + m_r`, :math:`I = I_0 + 2m_w r^2`.  ``rotor=False`` gives the
    rotorless board (6.7) on :math:`(x, y, \theta, \varphi_f, \varphi_b)`, to which the rotor
    decouples.  Energy on :math:`\mathcal D` (6.9):
    :math:`E = \frac{G}{2s_-^2}\dot\theta^2 + \frac{I_w}2\big((\dot\theta+\dot\varphi_f)^2
    + (\dot\theta+\dot\varphi_b)^2\big)` (+ :math:`\tfrac{I_r}2(\dot\theta+\dot\psi)^2`).

    Parameters
    ----------
    m, I, I_w, r, I_r : optional
        Mass, board inertia, wheel-pair inertia, half wheel base, rotor inertia.
    rotor : bool
        Include the rotor coordinate :math:`\psi` (default True).
    independent : optional
        Default: :math:`(\dot\theta, \dot\varphi_f, \dot\varphi_b[, \dot\psi])`, i.e. the
        Chaplygin form (6.4).

    Examples
    --------
    >>> snakeboard(rotor=False).manifold.coords
    (x, y, theta, phi_f, phi_b)
    """
    p = parameters(m=m, I=I, I_w=I_w, r=r, **({"I_r": I_r} if rotor else {}))
    q = coordinates("x y theta phi_f phi_b psi" if rotor else "x y theta phi_f phi_b")
    N = configuration_manifold("SE2xT3" if rotor else "SE2xT2", q, p)
    th, pf, pb = N.coords[2:5]
    xd, yd, thd, pfd, pbd = N.velocities[:5]
    L = (p["m"] * (xd**2 + yd**2) / 2 + p["I"] * thd**2 / 2
         + p["I_w"] * ((thd + pfd)**2 + (thd + pbd)**2) / 2)
    if rotor:
        L += p["I_r"] * (thd + N.velocities[5])**2 / 2
    if independent is None:
        independent = [v.name for v in N.velocities[2:]]
    return build_system(N, L, _wheel_constraints(N, th, pf, pb, p["r"]), name="snakeboard",
                   independent=independent,
                   description="Snakeboard (Borisov-Mamaev 2015, §6.2)"
                   + ("" if rotor else ", without rotor (6.7)"))


@register
def skateboard(m: ParamValue = None, I: ParamValue = None, I_w: ParamValue = None,  # noqa: E741
               r: ParamValue = None, independent=("thetadot", "phidot")):
    r"""Skateboard: snakeboard with :math:`\varphi_f = -\varphi_b = \varphi` (Borisov & Mamaev
    (2015), §6.3).

    :math:`q = (x, y, \theta, \varphi)`, the wheel constraints at
    :math:`\varphi_f = -\varphi_b = \varphi` -- solved for :math:`\dot x, \dot y` they are
    (6.13) :math:`\dot x = r\dot\theta\cos\varphi\cos\theta/\sin\varphi`,
    :math:`\dot y = r\dot\theta\cos\varphi\sin\theta/\sin\varphi` -- and (6.14)

    .. math::

        L = \tfrac m2(\dot x^2+\dot y^2) + \tfrac I2\dot\theta^2 + I_w\dot\varphi^2,

    :math:`m = m_0 + 2m_w`, :math:`I = I_0 + 2m_w r^2 + 2I_w`.  Energy
    :math:`E = \frac{G_1}{2\sin^2\varphi}\dot\theta^2 + I_w\dot\varphi^2`,
    :math:`G_1 = I\sin^2\varphi + mr^2\cos^2\varphi`.

    Examples
    --------
    >>> skateboard().dependent_velocities
    (xdot, ydot)
    """
    p = parameters(m=m, I=I, I_w=I_w, r=r)
    q = coordinates("x y theta phi")
    N = configuration_manifold("SE2xS1", q, p)
    th, ph = N.coords[2:]
    xd, yd, thd, phd = N.velocities
    L = p["m"] * (xd**2 + yd**2) / 2 + p["I"] * thd**2 / 2 + p["I_w"] * phd**2
    return build_system(N, L, _wheel_constraints(N, th, ph, -ph, p["r"]), name="skateboard",
                   independent=independent,
                   description="Skateboard (Borisov-Mamaev 2015, §6.3)")


@register
def board_with_fixed_axis(m: ParamValue = None, I: ParamValue = None,  # noqa: E741
                          I_w: ParamValue = None, r: ParamValue = None,
                          independent=("thetadot", "phidot")):
    r"""Board whose back axle is fixed: :math:`\varphi_b = 0`, :math:`\varphi_f = \varphi`
    (Borisov & Mamaev (2015), §6.4).

    :math:`q = (x, y, \theta, \varphi)`; the wheel constraints at :math:`\varphi_b = 0` --
    solved, (6.20) :math:`\dot x = r\dot\theta(2\cos\varphi\cos\theta - \sin\varphi\sin\theta)
    /\sin\varphi`, :math:`\dot y = r\dot\theta(2\cos\varphi\sin\theta + \sin\varphi\cos\theta)
    /\sin\varphi` -- and (6.21)

    .. math::

        L = \tfrac m2(\dot x^2+\dot y^2) + \tfrac I2\dot\theta^2
            + \tfrac{I_w}2(\dot\theta+\dot\varphi)^2,

    :math:`I = I_0 + 2m_w r^2 + I_w`.  Energy :math:`E = \frac{G_0}{2\sin^2\varphi}
    \dot\theta^2 + \frac{I_w}2(\dot\theta+\dot\varphi)^2`,
    :math:`G_0 = (I + mr^2)\sin^2\varphi + 4mr^2\cos^2\varphi`.

    Examples
    --------
    >>> board_with_fixed_axis().manifold.coords
    (x, y, theta, phi)
    """
    p = parameters(m=m, I=I, I_w=I_w, r=r)
    q = coordinates("x y theta phi")
    N = configuration_manifold("SE2xS1", q, p)
    th, ph = N.coords[2:]
    xd, yd, thd, phd = N.velocities
    L = (p["m"] * (xd**2 + yd**2) / 2 + p["I"] * thd**2 / 2
         + p["I_w"] * (thd + phd)**2 / 2)
    return build_system(N, L, _wheel_constraints(N, th, ph, sp.S.Zero, p["r"]),
                   name="board_with_fixed_axis", independent=independent,
                   description="Board with a fixed axis (Borisov-Mamaev 2015, §6.4)")
