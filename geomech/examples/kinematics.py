r"""Rigid-body kinematics in ZXZ Euler angles, shared by the rolling bodies of the catalogue.

Orientation is described by ZXZ Euler angles as in Borisov & Mamaev (2015), §5 and
Tzenoff (1953): :math:`Q` of (5.5) has as columns the fixed unit vectors written in body axes (ZXZ,
:math:`\theta` nutation, :math:`\varphi` proper rotation, :math:`\psi` precession); the body
angular velocity is (5.7) (:func:`body_angular_velocity`), the space one :math:`Q^T\omega`
(:func:`space_angular_velocity`).
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from .common import configuration_manifold, coordinates

__all__ = ["euler_matrix", "body_angular_velocity", "space_angular_velocity", "euler_angles",
           "EULER_RATES", "dot", "body_over_plane", "tait_bryan_matrix",
           "tait_bryan_angular_velocity"]


# -- rigid-body kinematics (Borisov & Mamaev (2015), §5) ---------------------------------------
def euler_matrix(theta, phi, psi) -> sp.Matrix:
    r"""The matrix :math:`Q` of (5.5): body components :math:`= Q\cdot` fixed components.

    >>> th, ph, ps = sp.symbols("theta phi psi")
    >>> euler_matrix(th, ph, ps)[:, 2].T
    Matrix([[sin(phi)*sin(theta), sin(theta)*cos(phi), cos(theta)]])
    """
    c, s = sp.cos, sp.sin
    return sp.Matrix([
        [c(phi) * c(psi) - c(theta) * s(psi) * s(phi), c(phi) * s(psi) + c(theta) * c(psi) * s(phi),
         s(phi) * s(theta)],
        [-s(phi) * c(psi) - c(theta) * s(psi) * c(phi),
         -s(phi) * s(psi) + c(theta) * c(psi) * c(phi), c(phi) * s(theta)],
        [s(theta) * s(psi), -s(theta) * c(psi), c(theta)]])


def body_angular_velocity(theta, phi, psi, thetadot, phidot, psidot) -> sp.Matrix:
    r"""Body angular velocity (5.7) in Euler angles.

    >>> th, ph, ps, a, b, c = sp.symbols("theta phi psi a b c")
    >>> body_angular_velocity(th, ph, ps, a, b, c)[2]
    b + c*cos(theta)
    """
    c, s = sp.cos, sp.sin
    return sp.Matrix([psidot * s(theta) * s(phi) + thetadot * c(phi),
                      psidot * s(theta) * c(phi) - thetadot * s(phi),
                      psidot * c(theta) + phidot])


def space_angular_velocity(theta, phi, psi, thetadot, phidot, psidot) -> sp.Matrix:
    r"""Angular velocity in fixed axes, :math:`Q^T\omega` (Borisov & Mamaev (2015),
    (4.30)).

    >>> th, ph, ps, a, b, c = sp.symbols("theta phi psi a b c")
    >>> space_angular_velocity(th, ph, ps, a, b, c)[2]
    b*cos(theta) + c
    """
    c, s = sp.cos, sp.sin
    return sp.Matrix([thetadot * c(psi) + phidot * s(theta) * s(psi),
                      thetadot * s(psi) - phidot * s(theta) * c(psi),
                      psidot + phidot * c(theta)])


def euler_angles(N) -> tuple:
    r""":math:`(\theta, \varphi, \psi)` and their velocities, read by name from a chart with
    the coordinates ``theta``, ``phi``, ``psi``.

    >>> import geomech as gm
    >>> euler_angles(gm.Manifold("N", "x y theta phi psi"))
    (theta, phi, psi, thetadot, phidot, psidot)
    """
    by = dict(zip((c.name for c in N.coords), zip(N.coords, N.velocities)))
    (th, thd), (ph, phd), (ps, psd) = by["theta"], by["phi"], by["psi"]
    return th, ph, ps, thd, phd, psd


#: Default independent velocities of bodies rolling on a plane (x, y dependent).
EULER_RATES = ("thetadot", "phidot", "psidot")


def dot(u, v) -> sp.Expr:
    r"""The Euclidean product :math:`\sum_i u_i v_i` of two sequences (lists or matrices).

    >>> a, b = sp.symbols("a b")
    >>> dot([a, b], sp.Matrix([b, a]))
    2*a*b
    """
    return sum((ui * vi for ui, vi in zip(u, v)), sp.S.Zero)


def body_over_plane(params: Mapping[str, sp.Expr]) -> tuple:
    r"""The chart :math:`(x, y, \theta, \varphi, \psi)` of a rigid body over the plane (the
    parameters ``params``) with its kinematics: the matrix :math:`Q` (5.5) and the body
    angular velocity :math:`\omega` (5.7) of Borisov & Mamaev (2015).

    Returns ``(N, (x_dot, y_dot), (theta, phi, psi, theta_dot, phi_dot, psi_dot), Q, omega)``.

    >>> N, vxy, angles, Q, w = body_over_plane({})
    >>> sp.simplify(Q.T * w - space_angular_velocity(*angles)) == sp.zeros(3, 1)
    True
    """
    N = configuration_manifold("R2xSO3", coordinates("x y theta phi psi"), params)
    angles = euler_angles(N)
    Q = euler_matrix(*angles[:3])
    return N, tuple(N.velocities[:2]), angles, Q, body_angular_velocity(*angles)


# -- yaw, roll and pitch (Tait-Bryan Z-X-Y), regular at the vertical --------------------------
def tait_bryan_matrix(yaw, roll, pitch) -> sp.Matrix:
    r"""The matrix :math:`Q` (body components :math:`=` Q :math:`\cdot` fixed components) of
    the rotation :math:`R_z(\psi)R_x(\alpha)R_y(\beta)`: yaw :math:`\psi` about the fixed
    vertical, roll :math:`\alpha` about the turned x-axis, pitch :math:`\beta` about the body
    y-axis (the convention of Kane & Levinson (1982) for the rattleback).  Regular at the
    vertical (:math:`\alpha = \beta = 0`), singular at :math:`\cos\alpha = 0`.

    >>> y, r, p = sp.symbols("yaw roll pitch")
    >>> tait_bryan_matrix(y, r, p)[:, 2].T
    Matrix([[-sin(pitch)*cos(roll), sin(roll), cos(pitch)*cos(roll)]])
    """
    c, s = sp.cos, sp.sin
    Rz = sp.Matrix([[c(yaw), -s(yaw), 0], [s(yaw), c(yaw), 0], [0, 0, 1]])
    Rx = sp.Matrix([[1, 0, 0], [0, c(roll), -s(roll)], [0, s(roll), c(roll)]])
    Ry = sp.Matrix([[c(pitch), 0, s(pitch)], [0, 1, 0], [-s(pitch), 0, c(pitch)]])
    return (Rz * Rx * Ry).T


def tait_bryan_angular_velocity(yaw, roll, pitch, yawdot, rolldot, pitchdot) -> sp.Matrix:
    r"""Body angular velocity of :func:`tait_bryan_matrix`:
    :math:`\omega = R_y(\beta)^T\big(R_x(\alpha)^T\dot\psi e_3 + \dot\alpha e_1\big)
    + \dot\beta e_2`.

    >>> y, r, p, yd, rd, pd = sp.symbols("yaw roll pitch yd rd pd")
    >>> tait_bryan_angular_velocity(y, r, p, yd, rd, pd).subs({r: 0, p: 0}).T
    Matrix([[rd, pd, yd]])
    """
    c, s = sp.cos, sp.sin
    Rx = sp.Matrix([[1, 0, 0], [0, c(roll), -s(roll)], [0, s(roll), c(roll)]])
    Ry = sp.Matrix([[c(pitch), 0, s(pitch)], [0, 1, 0], [-s(pitch), 0, c(pitch)]])
    e1, e2, e3 = sp.eye(3)[:, 0], sp.eye(3)[:, 1], sp.eye(3)[:, 2]
    return sp.expand(Ry.T * (Rx.T * e3 * yawdot + e1 * rolldot) + e2 * pitchdot)
