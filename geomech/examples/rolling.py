r"""Rigid bodies rolling (or skating) on a plane or a surface, and the free rigid body.

Orientation is described by ZXZ Euler angles as in Borisov & Mamaev (2015), §5 and
Tzenoff (1953): :math:`Q` of (5.5) has as columns the fixed unit vectors written in body axes (ZXZ,
:math:`\theta` nutation, :math:`\varphi` proper rotation, :math:`\psi` precession), so that

.. math::

    \omega = (\dot\psi\sin\theta\sin\varphi + \dot\theta\cos\varphi,\;
              \dot\psi\sin\theta\cos\varphi - \dot\theta\sin\varphi,\;
              \dot\psi\cos\theta + \dot\varphi)                    \quad\text{(body, (5.7))}

    Q^T\omega = (\dot\theta\cos\psi + \dot\varphi\sin\theta\sin\psi,\;
                 \dot\theta\sin\psi - \dot\varphi\sin\theta\cos\psi,\;
                 \dot\psi + \dot\varphi\cos\theta)                  \quad\text{(space)}

and :math:`\gamma = Q e_3 = (\sin\theta\sin\varphi, \sin\theta\cos\varphi, \cos\theta)` is the
vertical in body axes.  Euler angles are singular at :math:`\sin\theta = 0`.

>>> import geomech as gm
>>> B = gm.examples.chaplygin_ball()
>>> B.manifold.coords
(x, y, theta, phi, psi)
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

from geomech.core.parse import as_matrix

from ._registry import register
from .common import ParamValue, UserExpr
from .common import build_system as _system
from .common import configuration_manifold as _manifold
from .common import coordinates as _coords
from .common import parameters as _params
from .common import potential_energy as _potential
from .common import user_expression as _user_expr

__all__ = ["free_rigid_body", "rolling_disk", "hoop", "sharp_edge_body", "chaplygin_ball",
           "routh_sphere", "convex_body_on_plane", "ellipsoid", "rubber_ball",
           "ball_on_surface_of_revolution"]


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


def _angles(N):
    """(theta, phi, psi) and their velocities from a chart with those coordinate names."""
    by = dict(zip((c.name for c in N.coords), zip(N.coords, N.velocities)))
    (th, thd), (ph, phd), (ps, psd) = by["theta"], by["phi"], by["psi"]
    return th, ph, ps, thd, phd, psd


#: Default independent velocities of bodies rolling on a plane (x, y dependent).
_ANGLES = ("thetadot", "phidot", "psidot")


def _inertia(I1, I2, I3) -> sp.Matrix:
    return sp.diag(I1, I2, I3)


def _dot(u, v) -> sp.Expr:
    return sum((ui * vi for ui, vi in zip(u, v)), sp.S.Zero)


def _no_slip_plane(N, R):
    r"""(5.9): :math:`\dot x - R\dot\theta\sin\psi + R\dot\varphi\sin\theta\cos\psi`,
    :math:`\dot y + R\dot\theta\cos\psi + R\dot\varphi\sin\theta\sin\psi` (ball of radius R
    whose geometric centre is :math:`(x, y)`)."""
    xd, yd = N.velocities[:2]
    th, ph, ps, thd, phd, psd = _angles(N)
    return [xd - R * thd * sp.sin(ps) + R * phd * sp.sin(th) * sp.cos(ps),
            yd + R * thd * sp.cos(ps) + R * phd * sp.sin(th) * sp.sin(ps)]


# -- free rigid body ---------------------------------------------------------------------
@register
def free_rigid_body(A: ParamValue = None, B: ParamValue = None, C: ParamValue = None,
                    potential: UserExpr | bool = None):
    r"""Free rigid body about a fixed point, the Euler top (Tzenoff (1953)).

    A system **without constraints**.  The configuration space is :math:`SO(3)` in the Euler
    angles :math:`(\theta, \varphi, \psi)` of the spec, and

    .. math::

        L = \tfrac12(A p^2 + B q^2 + C r^2) - U(\theta,\varphi,\psi),

    with :math:`(p, q, r)` the body angular velocity (5.7).  The phase space is
    :math:`(\theta, \varphi, \psi, \dot\theta, \dot\varphi, \dot\psi)` (singular at
    :math:`\sin\theta = 0`).  The body-velocity form -- Euler's equations
    :math:`A\dot p + (C - B)qr = 0` (cyclic) -- is obtained from this system with the
    quasi-velocities :math:`(p, q, r)` (``equations("quasi_velocities", frame=...)``, or
    Tzenoff's K-function), or directly on :math:`so(3)` from
    ``gm.rigid_body_so_n(3, (A, B, C))`` whose phase space is the body angular velocity.

    Parameters
    ----------
    A, B, C : optional
        Principal moments of inertia (symbols by default).
    potential : expression, str, callable or True, optional
        :math:`U(\theta, \varphi, \psi)` (e.g. gravity of a heavy top).

    Examples
    --------
    >>> T = free_rigid_body()
    >>> T.constraints, T.manifold.coords
    ((), (theta, phi, psi))
    """
    p = _params(A=A, B=B, C=C)
    q = _coords("theta phi psi")
    U = _potential(potential, q, p)
    N = _manifold("SO3", q, p, U)
    w = body_angular_velocity(*N.coords, *N.velocities)
    L = (p["A"] * w[0]**2 + p["B"] * w[1]**2 + p["C"] * w[2]**2) / 2 - U
    return _system(N, L, [], name="free_rigid_body",
                   description="Free rigid body about a fixed point (Euler top) in Euler angles")


# -- disks and hoops ---------------------------------------------------------------------
def _rolling_disk_system(m, a, A, C, g, independent, name, description):
    p = _params(m=m, a=a, A=A, C=C, g=g)
    q = _coords("x y theta psi phi")
    N = _manifold("R2xSO3", q, p)
    x, y, th, ps, ph = N.coords
    xd, yd, thd, psd, phd = N.velocities
    a_, m_ = p["a"], p["m"]
    r = psd * sp.cos(th) + phd
    T = (m_ * (xd**2 + yd**2 + a_**2 * sp.cos(th)**2 * thd**2) / 2
         + p["A"] * (thd**2 + psd**2 * sp.sin(th)**2) / 2 + p["C"] * r**2 / 2)
    L = T - m_ * p["g"] * a_ * sp.sin(th)
    cons = [xd - (a_ * sp.sin(ps) * sp.sin(th) * thd - a_ * sp.cos(ps) * sp.cos(th) * psd
                  - a_ * sp.cos(ps) * phd),
            yd - (-a_ * sp.cos(ps) * sp.sin(th) * thd - a_ * sp.sin(ps) * sp.cos(th) * psd
                  - a_ * sp.sin(ps) * phd)]
    S = _system(N, L, cons, name=name, independent=independent, description=description,
                natural_frame=_disk_frame(N, a_))
    return S


def _disk_frame(N, a) -> dict:
    r"""Natural quasi-velocities of the rolling disk: :math:`\Omega = (\dot\theta,
    \dot\psi\sin\theta, \dot\psi\cos\theta + \dot\varphi)`, the angular velocity in the
    semi-moving (König) frame; :math:`\dot x = a(\Omega_1\sin\psi\sin\theta - \Omega_3\cos\psi)`,
    :math:`\dot y = -a(\Omega_1\sin\theta\cos\psi + \Omega_3\sin\psi)`."""
    x, y, th, ps, ph = N.coords
    s, c = sp.sin, sp.cos
    frame = (N.vector_field([a * s(ps) * s(th), -a * c(ps) * s(th), 1, 0, 0]),
             N.vector_field([0, 0, 0, 1 / s(th), -c(th) / s(th)]),
             N.vector_field([-a * c(ps), -a * s(ps), 0, 0, 1]))
    return {"frame": frame, "names": ("Omega1", "Omega2", "Omega3")}


def _ball_frame(N, R) -> dict:
    r"""Body angular velocities :math:`\omega` (5.7) as quasi-velocities of a ball rolling on a
    plane (no-slip (5.9) lifts them to :math:`\dot x, \dot y`); the low-rank vector of the
    mass matrix is the Poisson vector, named ``gamma``."""
    th, ph, ps = _angles(N)[:3]
    s, c = sp.sin, sp.cos
    names = [cc.name for cc in N.coords]

    def lift(thd, phd, psd):
        comp = {"x": R * thd * s(ps) - R * phd * s(th) * c(ps),
                "y": -R * thd * c(ps) - R * phd * s(th) * s(ps),
                "theta": thd, "phi": phd, "psi": psd}
        return N.vector_field([comp[nm] for nm in names])

    frame = (lift(c(ph), -c(th) * s(ph) / s(th), s(ph) / s(th)),
             lift(-s(ph), -c(th) * c(ph) / s(th), c(ph) / s(th)),
             lift(0, 1, 0))
    gamma = (s(ph) * s(th), s(th) * c(ph), c(th))       # natural configuration functions
    return {"frame": frame, "names": ("omega1", "omega2", "omega3"), "vector_name": "gamma",
            "functions": gamma}


@register
def rolling_disk(m: ParamValue = None, a: ParamValue = None, A: ParamValue = None,
                 C: ParamValue = None, g: ParamValue = None,
                 independent=("thetadot", "psidot", "phidot")):
    r"""Axisymmetric disk (body with a sharp circular edge) rolling without slipping on a
    horizontal plane (Tzenoff
    (1953)).

    :math:`q = (x, y, \theta, \psi, \varphi)`: :math:`(x, y)` the centre :math:`G`,
    :math:`\theta\in(0,\pi)` the angle between the symmetry axis and the upward vertical
    (:math:`\theta = \pi/2` upright, :math:`z_G = a\sin\theta`), :math:`\psi` heading,
    :math:`\varphi` spin (ZXZ).  With :math:`r = \dot\psi\cos\theta + \dot\varphi`:

    .. math::

        L = \tfrac12 m(\dot x^2 + \dot y^2 + a^2\cos^2\theta\,\dot\theta^2)
            + \tfrac12 A(\dot\theta^2 + \dot\psi^2\sin^2\theta) + \tfrac12 C r^2
            - m g a\sin\theta,

        \dot x = a\sin\psi\sin\theta\,\dot\theta - a\cos\psi\cos\theta\,\dot\psi
                 - a\cos\psi\,\dot\varphi, \qquad
        \dot y = -a\cos\psi\sin\theta\,\dot\theta - a\sin\psi\cos\theta\,\dot\psi
                 - a\sin\psi\,\dot\varphi .

    The equations are those of Tzenoff (1953) for the hoop; the energy is
    :math:`E = \tfrac12(A + ma^2)\dot\theta^2 + \tfrac12 A\dot\psi^2\sin^2\theta
    + \tfrac12(C + ma^2)r^2 + m g a\sin\theta`.

    Parameters
    ----------
    m, a, g : optional
        Mass, radius, gravity.
    A, C : optional
        Moments of inertia about a diameter and about the symmetry axis (symbols by default;
        the uniform disk has :math:`A = ma^2/4`, :math:`C = ma^2/2`, the hoop see :func:`hoop`).
    independent : optional
        Independent velocities (default: the system's choice, :math:`\dot\theta, \dot\psi,
        \dot\varphi`).

    Examples
    --------
    >>> D = rolling_disk()
    >>> D.manifold.coords
    (x, y, theta, psi, phi)
    """
    return _rolling_disk_system(m, a, A, C, g, independent, "rolling_disk",
                                "Disk rolling without slipping on a horizontal plane "
                                "(Tzenoff 1953)")


@register
def hoop(m: ParamValue = None, a: ParamValue = None, g: ParamValue = None,
         independent=("thetadot", "psidot", "phidot")):
    r"""Hoop (thin ring) rolling without slipping on a horizontal plane (Tzenoff (1953)).

    :func:`rolling_disk` with :math:`A = ma^2/2`, :math:`C = ma^2`.  The equations become
    :math:`3a\ddot\theta + 3a\dot\psi^2\sin\theta\cos\theta + 4a\dot\psi\dot\varphi\sin\theta
    + 2g\cos\theta = 0`, :math:`2\dot r = \dot\psi\dot\theta\sin\theta`,
    :math:`\tfrac{d}{dt}(\dot\psi\sin^2\theta) = 2r\dot\theta\sin\theta`; besides the energy
    there are two linear integrals :math:`I_k = u_k'(x)\,\dot\psi\sin^2\theta + 2u_k(x)r`,
    :math:`x = \cos\theta`, :math:`(1 - x^2)u_k'' = u_k`.

    Examples
    --------
    >>> H = hoop()
    >>> H.manifold.parameters
    (m, a, g)
    """
    p = _params(m=m, a=a)
    return _rolling_disk_system(p["m"], p["a"], p["m"] * p["a"]**2 / 2, p["m"] * p["a"]**2, g,
                                independent, "hoop",
                                "Hoop rolling without slipping on a horizontal plane "
                                "(Tzenoff 1953)")


@register
def sharp_edge_body(m: ParamValue = None, R: ParamValue = None, b: ParamValue = None,
                    I1: ParamValue = None, I3: ParamValue = None, g: ParamValue = None,
                    independent=("xdot", "thetadot", "phidot", "psidot")):
    r"""Body of revolution with a sharp circular edge sliding on ice (Borisov & Mamaev
    (2015), §6.1).

    The contact point cannot slip perpendicular to the plane of the edge (radius :math:`R`);
    the centre of mass :math:`C` lies on the axis at distance :math:`b` from the edge plane,
    central inertia :math:`\mathrm{diag}(I_1, I_1, I_3)`.  :math:`q = (x, y, \theta, \varphi,
    \psi)` with :math:`(x, y)` the **contact point**;
    :math:`\mathbf r = (-R\sin\varphi, -R\cos\varphi, -b)` from :math:`C` to the contact point
    (body axes), :math:`v_c = Q(\dot x, \dot y, 0)^T - \dot{\mathbf r} - \omega\times\mathbf r`:

    .. math::

        L = \tfrac m2 v_c^2 + \tfrac12(\omega, I\omega) - m g(R\sin\theta + b\cos\theta),
        \qquad \dot x\sin\psi - \dot y\cos\psi = 0 .                 \quad (6.1), (6.2)

    Examples
    --------
    >>> sharp_edge_body().constraints
    (xdot*sin(psi) - ydot*cos(psi),)
    """
    p = _params(m=m, R=R, b=b, I1=I1, I3=I3, g=g)
    q = _coords("x y theta phi psi")
    N = _manifold("R2xSO3", q, p)
    xd, yd = N.velocities[:2]
    th, ph, ps, thd, phd, psd = _angles(N)
    Q = euler_matrix(th, ph, ps)
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    R_ = p["R"]
    r = sp.Matrix([-R_ * sp.sin(ph), -R_ * sp.cos(ph), -p["b"]])
    rdot = r.diff(ph) * phd
    vc = Q * sp.Matrix([xd, yd, 0]) - rdot - w.cross(r)
    Iw = _inertia(p["I1"], p["I1"], p["I3"]) * w
    U = p["m"] * p["g"] * (R_ * sp.sin(th) + p["b"] * sp.cos(th))
    L = p["m"] * _dot(vc, vc) / 2 + _dot(w, Iw) / 2 - U
    return _system(N, L, [xd * sp.sin(ps) - yd * sp.cos(ps)], name="sharp_edge_body",
                   independent=independent,
                   description="Body with a sharp circular edge on ice "
                               "(Borisov-Mamaev 2015, §6.1)")


# -- balls on a plane --------------------------------------------------------------------
@register
def chaplygin_ball(m: ParamValue = None, R: ParamValue = None, I1: ParamValue = None,
                   I2: ParamValue = None, I3: ParamValue = None, independent=_ANGLES):
    r"""Chaplygin's balanced ball rolling without slipping on a plane (Borisov & Mamaev
    (2015), §5.4).

    Centre of mass at the geometric centre :math:`(x, y)`, central inertia
    :math:`\mathrm{diag}(I_1, I_2, I_3)`, no potential; :math:`q = (x, y, \theta, \varphi,
    \psi)`:

    .. math::

        L = T_0 = \tfrac m2(\dot x^2 + \dot y^2) + \tfrac12(\omega, I\omega),

        f_x = \dot x - R\dot\theta\sin\psi + R\dot\varphi\sin\theta\cos\psi, \quad
        f_y = \dot y + R\dot\theta\cos\psi + R\dot\varphi\sin\theta\sin\psi .   \quad (5.13)

    The no-slip distribution has growth vector (3, 5) (Borisov & Mamaev (2015), §4.3); the area
    integral is
    :math:`(I\omega, \gamma)` (5.16).

    Examples
    --------
    >>> chaplygin_ball().manifold.parameters
    (m, R, I1, I2, I3)
    """
    p = _params(m=m, R=R, I1=I1, I2=I2, I3=I3)
    q = _coords("x y theta phi psi")
    N = _manifold("R2xSO3", q, p)
    xd, yd = N.velocities[:2]
    th, ph, ps, thd, phd, psd = _angles(N)
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    L = (p["m"] * (xd**2 + yd**2) / 2
         + _dot(w, _inertia(p["I1"], p["I2"], p["I3"]) * w) / 2)
    S = _system(N, L, _no_slip_plane(N, p["R"]), name="chaplygin_ball",
                independent=independent,
                description="Chaplygin's balanced ball rolling on a plane "
                            "(Borisov-Mamaev 2015, §5.4)",
                natural_frame=_ball_frame(N, p["R"]))
    return S


@register
def routh_sphere(m: ParamValue = None, R: ParamValue = None, a: ParamValue = None,
                 I1: ParamValue = None, I3: ParamValue = None, g: ParamValue = None,
                 independent=_ANGLES):
    r"""Routh sphere: a dynamically symmetric ball with displaced centre of mass rolling on
    a plane (Borisov & Mamaev (2015), §5.2).

    :math:`(x, y)` is the geometric centre, the centre of mass is displaced by :math:`a`
    along the symmetry axis, :math:`I = \mathrm{diag}(I_1, I_1, I_3)` about the centre of mass.
    With :math:`v = Q(\dot x, \dot y, 0)^T + \omega\times\mathbf a`, :math:`\mathbf a = (0,0,a)`:

    .. math::

        L = \tfrac m2 v^2 + \tfrac12(\omega, I\omega) - m g a\cos\theta,   \quad (5.8)

    and the no-slip constraints (5.9).  Integrals: energy, Jellett's :math:`(I\omega,
    R\gamma + \mathbf a)` and Routh's :math:`\omega_3/\rho`.

    Examples
    --------
    >>> routh_sphere().manifold.coords
    (x, y, theta, phi, psi)
    """
    p = _params(m=m, R=R, a=a, I1=I1, I3=I3, g=g)
    q = _coords("x y theta phi psi")
    N = _manifold("R2xSO3", q, p)
    xd, yd = N.velocities[:2]
    th, ph, ps, thd, phd, psd = _angles(N)
    Q = euler_matrix(th, ph, ps)
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    v = Q * sp.Matrix([xd, yd, 0]) + w.cross(sp.Matrix([0, 0, p["a"]]))
    L = (p["m"] * _dot(v, v) / 2 + _dot(w, _inertia(p["I1"], p["I1"], p["I3"]) * w) / 2
         - p["m"] * p["g"] * p["a"] * sp.cos(th))
    S = _system(N, L, _no_slip_plane(N, p["R"]), name="routh_sphere",
                independent=independent,
                description="Routh sphere: unbalanced axisymmetric ball rolling on a plane "
                            "(Borisov-Mamaev 2015, §5.2)",
                natural_frame=_ball_frame(N, p["R"]))
    return S


# -- convex bodies -----------------------------------------------------------------------
def _gamma_symbols():
    return sp.symbols("gamma1 gamma2 gamma3", real=True)


def _convex_frame(N, rg: sp.Matrix, G) -> dict:
    r"""Natural quasi-velocities of a convex body on a plane: the body angular velocity
    :math:`\omega` (5.7).  The field of :math:`\omega = e_i` moves the angles by the inverse of
    (5.7) and the contact point by :math:`\dot x = (\alpha, \dot{\mathbf r})`,
    :math:`\dot y = (\beta, \dot{\mathbf r})` with :math:`\dot{\mathbf r} =
    \mathbf r'(\gamma)\,(\gamma\times e_i)` (Poisson's equation :math:`\dot\gamma =
    \gamma\times\omega`; Borisov & Mamaev (2015), (4.13)); the Poisson vector :math:`\gamma`
    is the natural configuration function."""
    th, ph, ps = _angles(N)[:3]
    s, c = sp.sin, sp.cos
    Q = euler_matrix(th, ph, ps)
    gam = Q[:, 2]
    J = rg.jacobian(sp.Matrix(G)).xreplace(dict(zip(G, gam)))
    names = [cc.name for cc in N.coords]
    angle_rates = ((c(ph), -c(th) * s(ph) / s(th), s(ph) / s(th)),
                   (-s(ph), -c(th) * c(ph) / s(th), c(ph) / s(th)),
                   (0, 1, 0))
    frame = []
    for i, (thd, phd, psd) in enumerate(angle_rates):
        rdot = J * gam.cross(sp.eye(3)[:, i])
        comp = {"x": _dot(Q[:, 0], rdot), "y": _dot(Q[:, 1], rdot),
                "theta": thd, "phi": phd, "psi": psd}
        frame.append(N.vector_field([comp[nm] for nm in names]))
    return {"frame": tuple(frame), "names": ("omega1", "omega2", "omega3"),
            "vector_name": "g", "functions": tuple(gam)}


def _convex_inertia(p: dict, inertia, extra: dict) -> tuple:
    """``(I, parameters)``: the central inertia tensor (``diag(I1, I2, I3)`` or the given
    symmetric 3x3 ``inertia``) and the parameters of the system."""
    if inertia is None:
        return _inertia(p["I1"], p["I2"], p["I3"]), {**p, **extra}
    Imat = as_matrix(inertia, context="inertia")
    if Imat.shape != (3, 3):
        raise ValueError(f"inertia must be a 3x3 matrix, got shape {Imat.shape}")
    if not (Imat - Imat.T).is_zero_matrix:
        raise ValueError("inertia tensor must be symmetric")
    allp = {k: v for k, v in p.items() if k in ("m", "g")}
    allp.update(extra)
    return Imat, allp


@register
def convex_body_on_plane(r: Callable | None = None, m: ParamValue = None,
                         I1: ParamValue = None, I2: ParamValue = None, I3: ParamValue = None,
                         g: ParamValue = None, inertia=None, independent=_ANGLES, *,
                         _name: str = "convex_body_on_plane", _extra: dict | None = None):
    r"""Convex rigid body rolling without slipping on a horizontal plane (Borisov &
    Mamaev (2015), §4.3).

    :math:`N = \mathbb R^2\times SO(3)`, :math:`q = (x, y, \theta, \varphi, \psi)` with
    :math:`(x, y)` the contact point :math:`P`; :math:`\mathbf r(\gamma)` is the vector from
    the centre of mass :math:`C` to :math:`P` in body axes (inverse Gauss map,
    :math:`\gamma = -\nabla F/|\nabla F|`).  The position of :math:`C` is
    :math:`(x, y, 0) - Q^T\mathbf r`, so its body velocity is
    :math:`v = Q(\dot x, \dot y, 0)^T - \dot{\mathbf r} - \omega\times\mathbf r` and

    .. math::

        L = \tfrac12 m v^2 + \tfrac12(\omega, I\omega) + m g(\mathbf r, \gamma), \qquad
        \dot x = (\alpha, \dot{\mathbf r}),\quad \dot y = (\beta, \dot{\mathbf r}),
                                                                \quad (4.13), (4.14)

    (:math:`\alpha, \beta` the first two columns of :math:`Q`) -- the horizontal part of the
    no-slip condition :math:`v + \omega\times\mathbf r = 0`; its vertical part holds
    identically because :math:`\dot{\mathbf r}\perp\gamma`.  The natural quasi-velocities
    (``natural_frame``) are the body angular velocities :math:`\omega`.

    Parameters
    ----------
    r : callable, optional
        ``r(gamma) -> 3 expressions`` for :math:`\gamma = (\gamma_1, \gamma_2, \gamma_3)`
        (sympy expressions).  Default: the ellipsoid of :func:`ellipsoid`.
    m, g : optional
        Mass and gravity.
    I1, I2, I3 : optional
        Principal central moments (used when ``inertia`` is None).
    inertia : 3x3 matrix, optional
        A full central inertia tensor in body axes.

    Examples
    --------
    >>> from geomech.core.zero import default_policy
    >>> B = convex_body_on_plane(r=lambda G: [-G[0], -G[1], -G[2]])   # unit ball
    >>> ball = chaplygin_ball(R=1)
    >>> all(default_policy().is_zero(f - g) for f, g in zip(B.constraints, ball.constraints))
    True
    """
    p = _params(m=m, I1=I1, I2=I2, I3=I3, g=g)
    extra = dict(_extra or {})
    if r is None:
        b = _params(b1=None, b2=None, b3=None)
        extra.update(b)
        r = _ellipsoid_r(b["b1"], b["b2"], b["b3"])
    if not callable(r):
        raise TypeError("r must be a callable gamma -> (r1, r2, r3)")
    G = _gamma_symbols()
    rg = sp.Matrix(list(r(sp.Matrix(G))))
    if rg.shape != (3, 1):
        raise ValueError(f"r(gamma) must have 3 components, got {rg.shape}")
    Imat, allp = _convex_inertia(p, inertia, extra)
    q = _coords("x y theta phi psi")
    Q = euler_matrix(q[2], q[3], q[4])
    gam = Q[:, 2]
    rq = rg.xreplace(dict(zip(G, gam)))
    N = _manifold("R2xSO3", q, allp, *rq, *Imat)
    xd, yd = N.velocities[:2]
    th, ph, ps, thd, phd, psd = _angles(N)
    rdot = rq.diff(th) * thd + rq.diff(ph) * phd
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    v = Q * sp.Matrix([xd, yd, 0]) - rdot - w.cross(rq)
    L = (p["m"] * _dot(v, v) / 2 + _dot(w, Imat * w) / 2
         + p["m"] * p["g"] * _dot(rq, gam))
    cons = [xd - _dot(Q[:, 0], rdot), yd - _dot(Q[:, 1], rdot)]
    return _system(N, L, cons, name=_name, independent=independent,
                   description="Convex body rolling without slipping on a horizontal plane "
                               "(Borisov-Mamaev 2015, §4.3)",
                   natural_frame=_convex_frame(N, rg, G))


def _ellipsoid_r(b1, b2, b3):
    def r(G):
        Bg = sp.Matrix([b1**2 * G[0], b2**2 * G[1], b3**2 * G[2]])
        return -Bg / sp.sqrt(_dot(G, Bg))
    return r


@register
def ellipsoid(b1: ParamValue = None, b2: ParamValue = None, b3: ParamValue = None,
              m: ParamValue = None, I1: ParamValue = None, I2: ParamValue = None,
              I3: ParamValue = None, g: ParamValue = None, independent=_ANGLES):
    r"""Ellipsoid (centre of mass at its centre) rolling on a plane: :func:`convex_body_on_plane`
    with :math:`\mathbf r(\gamma) = -B\gamma/\sqrt{(\gamma, B\gamma)}`,
    :math:`B = \mathrm{diag}(b_1^2, b_2^2, b_3^2)` (semi-axes :math:`b_i`;
    Borisov & Mamaev (2015), §4.3).

    Examples
    --------
    >>> r = _ellipsoid_r(1, 2, 3)            # contact point for gamma = e3: lowest point
    >>> r(sp.Matrix([0, 0, 1])).T
    Matrix([[0, 0, -3]])
    """
    b = _params(b1=b1, b2=b2, b3=b3)
    return convex_body_on_plane(_ellipsoid_r(b["b1"], b["b2"], b["b3"]), m=m, I1=I1, I2=I2,
                                I3=I3, g=g, independent=independent, _name="ellipsoid",
                                _extra=b)


# -- balls on surfaces -------------------------------------------------------------------
def _graph_normal_unnormalised(h, x1, x2) -> tuple[sp.Matrix, sp.Expr]:
    r"""Normal :math:`\nu = (-h_x, -h_y, 1)` of the graph :math:`z = h` and its length
    :math:`s = \sqrt{1 + h_x^2 + h_y^2}` (the unit normal is :math:`n = \nu/s`)."""
    hx, hy = sp.diff(h, x1), sp.diff(h, x2)
    return sp.Matrix([-hx, -hy, 1]), sp.sqrt(1 + hx**2 + hy**2)


@register
def rubber_ball(m: ParamValue = None, a: ParamValue = None, I: ParamValue = None,  # noqa: E741
                surface: UserExpr = None, potential: UserExpr | bool = None,
                independent=("thetadot", "phidot")):
    r"""Rubber ball: rolling without slipping **and without spinning** (Borisov &
    Mamaev (2015), §4.6).

    A dynamically symmetric ball (radius :math:`a`, mass :math:`m`, central moment
    :math:`I`; homogeneous :math:`I = \tfrac25 ma^2`).  Its centre moves on the surface
    :math:`S_c: z = h(x, y)` (default the plane :math:`z = a`), with normal
    :math:`n = (-h_x, -h_y, 1)/\sqrt{1 + h_x^2 + h_y^2}`; :math:`q = (x, y, \theta, \varphi,
    \psi)`, :math:`\omega` the angular velocity in fixed axes (4.30):

    .. math::

        L = \tfrac12 m\dot{\mathbf r}^2 + \tfrac12 I\omega^2 - U(\mathbf r), \qquad
        \dot{\mathbf r} - a\,\omega\times n = 0 \ (x, y \text{ components}), \quad
        (\omega, n) = 0 .                                           \quad (4.28)

    (The normal component of the no-slip condition holds identically.  The constraints are
    stored multiplied by :math:`\sqrt{1 + h_x^2 + h_y^2} > 0`, which does not change them.)
    Three constraints, :math:`\dim\mathcal D = 2`; on the plane the distribution is spanned by
    :math:`E_x - a\partial_y`, :math:`E_y + a\partial_x` with growth vector (2, 3, 5).

    Parameters
    ----------
    surface : expression, str or callable of (x, y), optional
        Height :math:`h(x, y)` of the centre (default ``a``, the plane).
    potential : expression, str, callable or True, optional
        :math:`U(x, y)` (e.g. ``m*g*h`` for gravity).

    Examples
    --------
    >>> rubber_ball().constraints[2]
    phidot*cos(theta) + psidot
    """
    p = _params(m=m, a=a, I=I)
    q = _coords("x y theta phi psi")
    x, y = q[:2]
    h = p["a"] if surface is None else _user_expr(surface, (x, y), p, "surface")
    U = _potential(potential, (x, y), p)
    N = _manifold("ScxSO3", q, p, h, U)
    xd, yd = N.velocities[:2]
    th, ph, ps, thd, phd, psd = _angles(N)
    nu, s = _graph_normal_unnormalised(h, x, y)
    w = space_angular_velocity(th, ph, ps, thd, phd, psd)
    hd = sp.diff(h, x) * xd + sp.diff(h, y) * yd
    rd = sp.Matrix([xd, yd, hd])
    L = p["m"] * _dot(rd, rd) / 2 + p["I"] * _dot(w, w) / 2 - U
    wn = w.cross(nu)
    # n = nu/s; the constraints are multiplied by s > 0 (same constraints, no radicals)
    cons = [s * xd - p["a"] * wn[0], s * yd - p["a"] * wn[1], _dot(w, nu)]
    return _system(N, L, cons, name="rubber_ball", independent=independent,
                   description="Rubber ball: rolling without slipping and spinning "
                               "(Borisov-Mamaev 2015, §4.6)")


@register
def ball_on_surface_of_revolution(m: ParamValue = None, R: ParamValue = None,
                                  I: ParamValue = None, c: ParamValue = None,  # noqa: E741
                                  g: ParamValue = None, surface: UserExpr = None,
                                  independent=_ANGLES):
    r"""Homogeneous ball rolling without slipping on a surface of revolution whose centre
    moves on a paraboloid (Borisov & Mamaev (2015), §2.3).

    Radius :math:`R`, mass :math:`m`, central moment :math:`I` (homogeneous:
    :math:`\tfrac25 mR^2`), weight :math:`\mu = mg`.  The centre moves on
    :math:`x_3 = h(x_1, x_2) = \tfrac c2(x_1^2 + x_2^2)` (2.6) with unit normal
    :math:`n = (-c x_1, -c x_2, 1)/\sqrt{1 + c^2(x_1^2+x_2^2)}`; orientation by the Euler
    angles, :math:`\omega` in fixed axes; :math:`q = (x_1, x_2, \theta, \varphi, \psi)`:

    .. math::

        L = \tfrac12 m\dot{\mathbf r}^2 + \tfrac12 I\omega^2 - \mu h, \qquad
        \dot{\mathbf r} = R\,\omega\times n \ (\text{components } 1, 2).   \quad (2.7)

    The constraints are stored multiplied by :math:`|\nu| = \sqrt{1 + c^2(x_1^2+x_2^2)} > 0`
    (:math:`n = \nu/|\nu|`), which leaves them unchanged and keeps radicals out of the
    coefficients; the dependent velocities are exactly :math:`R(\omega\times n)_{1,2}`.

    The energy is :math:`E = \tfrac12(I + mR^2)|\omega|^2 - \tfrac12 mR^2(\omega,n)^2
    + \mu c(x_1^2+x_2^2)/2`.

    Parameters
    ----------
    surface : expression, str or callable of (x1, x2), optional
        Height of the centre, default the paraboloid ``c/2*(x1**2 + x2**2)``.

    Examples
    --------
    >>> B = ball_on_surface_of_revolution()
    >>> B.manifold.coords
    (x1, x2, theta, phi, psi)
    """
    p = _params(m=m, R=R, I=I, c=c, g=g)
    q = _coords("x1 x2 theta phi psi")
    x1, x2 = q[:2]
    if surface is None:
        h = p["c"] / 2 * (x1**2 + x2**2)
    else:
        h = _user_expr(surface, (x1, x2), p, "surface")
    N = _manifold("ScxSO3", q, p, h)
    x1d, x2d = N.velocities[:2]
    th, ph, ps, thd, phd, psd = _angles(N)
    nu, s = _graph_normal_unnormalised(h, x1, x2)
    w = space_angular_velocity(th, ph, ps, thd, phd, psd)
    rd = sp.Matrix([x1d, x2d, sp.diff(h, x1) * x1d + sp.diff(h, x2) * x2d])
    L = p["m"] * _dot(rd, rd) / 2 + p["I"] * _dot(w, w) / 2 - p["m"] * p["g"] * h
    wn = w.cross(nu)
    # rdot = R w x n with n = nu/s, multiplied by s > 0 (same constraint, no radicals)
    cons = [s * x1d - p["R"] * wn[0], s * x2d - p["R"] * wn[1]]
    return _system(N, L, cons, name="ball_on_surface_of_revolution", independent=independent,
                   description="Homogeneous ball rolling on a surface of revolution, centre on "
                               "a paraboloid (Borisov-Mamaev 2015, §2.3)")
