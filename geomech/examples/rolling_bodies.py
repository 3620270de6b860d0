r"""Rigid bodies rolling or sliding on a plane on an edge or a convex surface: the rolling disk,
the hoop, the body with a sharp edge, the convex body and the ellipsoid.

Euler angles and angular velocities as in Borisov & Mamaev (2015), §5
(:mod:`geomech.examples.kinematics`).  Every function is registered in the catalogue.

>>> import geomech as gm
>>> gm.examples.rolling_disk is rolling_disk
True
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

from geomech.core.parse import as_matrix
from geomech.core.zero import default_policy

from ._registry import register
from .common import ParamValue
from .common import build_system as _system
from .common import configuration_manifold as _manifold
from .common import coordinates as _coords
from .common import parameters as _params
from .kinematics import (
    EULER_RATES,
    body_angular_velocity,
    body_over_plane,
    dot,
    euler_angles,
    euler_matrix,
)

__all__ = ["rolling_disk", "hoop", "sharp_edge_body", "convex_body_on_plane", "ellipsoid"]


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
                natural_frame=_disk_frame(N, a_), steady=_disk_steady(p))
    return S


def _disk_steady(p: dict) -> tuple:
    r"""Steady motions of a disk (Routh (1884); Neimark & Fufaev (1972), Ch. III §4):
    upright rolling :math:`\theta = \pi/2`, :math:`\dot\psi = 0`, :math:`\dot\varphi =
    \omega` (distinguished; stable iff :math:`(C + ma^2)C\omega^2 > mgaA`), spinning about a
    vertical diameter, and the steady motions :math:`\theta = \theta_0`,
    :math:`\dot\psi = \Omega`, :math:`\dot\varphi = \omega` with

    .. math:: A\Omega^2\sin\theta_0\cos\theta_0 - (C + ma^2)(\Omega\cos\theta_0 + \omega)
              \Omega\sin\theta_0 = mga\cos\theta_0 ."""
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    th0, W, w = sp.symbols("theta0 Omega omega", real=True)
    m, a, A, C, g = (p[k] for k in ("m", "a", "A", "C", "g"))
    rest = {"x": 0, "y": 0, "psi": 0, "phi": 0, "thetadot": 0}
    relation = (A * W**2 * sp.sin(th0) * sp.cos(th0)
                - (C + m * a**2) * (W * sp.cos(th0) + w) * W * sp.sin(th0)
                - m * g * a * sp.cos(th0))
    return (SteadyFamily("upright rolling", (w,), {**rest, "theta": sp.pi / 2, "psidot": 0,
                                                   "phidot": w}, (), {},
                         "rolling upright along a straight line at spin rate omega "
                         "(speed a*omega)"),
            SteadyFamily("spin about a vertical diameter", (W,),
                         {**rest, "theta": sp.pi / 2, "psidot": W, "phidot": 0}, (), {},
                         "spinning upright about the vertical diameter"),
            SteadyFamily("steady precession", (th0, W, w),
                         {**rest, "theta": th0, "psidot": W, "phidot": w}, (relation,), {},
                         "theta = theta0, psi' = Omega, phi' = omega with the classical "
                         "relation"))


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
    N, (xd, yd), (th, ph, ps, thd, phd, psd), Q, w = body_over_plane(p)
    R_ = p["R"]
    r = sp.Matrix([-R_ * sp.sin(ph), -R_ * sp.cos(ph), -p["b"]])
    rdot = r.diff(ph) * phd
    vc = Q * sp.Matrix([xd, yd, 0]) - rdot - w.cross(r)
    Iw = sp.diag(p["I1"], p["I1"], p["I3"]) * w
    U = p["m"] * p["g"] * (R_ * sp.sin(th) + p["b"] * sp.cos(th))
    L = p["m"] * dot(vc, vc) / 2 + dot(w, Iw) / 2 - U
    return _system(N, L, [xd * sp.sin(ps) - yd * sp.cos(ps)], name="sharp_edge_body",
                   independent=independent,
                   description="Body with a sharp circular edge on ice "
                               "(Borisov-Mamaev 2015, §6.1)",
                   natural_frame=_edge_frame(N))


def _edge_frame(N) -> dict:
    r"""Natural quasi-velocities of the body on ice: the speed :math:`V = \dot x\cos\psi +
    \dot y\sin\psi` of the contact point along the edge and the Euler rates (the frame
    :math:`\cos\psi\,\partial_x + \sin\psi\,\partial_y, \partial_\theta, \partial_\varphi,
    \partial_\psi` of the constraint distribution, invariant under the motions of the plane
    and the rotation about the axis; Borisov & Mamaev (2015), §6.1)."""
    ps = N.coords[4]
    e = [N.vector_field([sp.cos(ps), sp.sin(ps), 0, 0, 0])]
    e += [N.vector_field([0, 0, *(int(i == k) for i in range(3))]) for k in range(3)]
    return {"frame": tuple(e), "names": ("V", "nu_theta", "nu_phi", "nu_psi")}


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
    th, ph, ps = euler_angles(N)[:3]
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
        comp = {"x": dot(Q[:, 0], rdot), "y": dot(Q[:, 1], rdot),
                "theta": thd, "phi": phd, "psi": psd}
        frame.append(N.vector_field([comp[nm] for nm in names]))
    return {"frame": tuple(frame), "names": ("omega1", "omega2", "omega3"),
            "vector_name": "g", "functions": tuple(gam)}


def _convex_inertia(p: dict, inertia, extra: dict) -> tuple:
    """``(I, parameters)``: the central inertia tensor (``diag(I1, I2, I3)`` or the given
    symmetric 3x3 ``inertia``) and the parameters of the system."""
    if inertia is None:
        return sp.diag(p["I1"], p["I2"], p["I3"]), {**p, **extra}
    Imat = as_matrix(inertia, context="inertia")
    if Imat.shape != (3, 3):
        raise ValueError(f"inertia must be a 3x3 matrix, got shape {Imat.shape}")
    if not all(default_policy().is_zero(e) for e in Imat - Imat.T):
        raise ValueError("inertia tensor must be symmetric")
    allp = {k: v for k, v in p.items() if k in ("m", "g")}
    allp.update(extra)
    return Imat, allp


@register
def convex_body_on_plane(r: Callable | None = None, m: ParamValue = None,
                         I1: ParamValue = None, I2: ParamValue = None, I3: ParamValue = None,
                         g: ParamValue = None, inertia=None, independent=EULER_RATES, *,
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

    **Steady motions.**  Spin about the vertical body axis 3 through the contact point,
    ``steady_motion(n=...)`` (family ``"vertical spin about axis 3"``, linearised in the
    natural variables :math:`(\gamma, \omega)`), declared when it is steady: the contact
    point :math:`\mathbf r(e_3)` on the axis and the axis principal.  For a body of
    revolution (:math:`h` the height of the centre of mass over the contact point,
    :math:`\rho` the radius of curvature there) it is spectrally stable iff
    :math:`(I_3 + mh\rho)^2n^2 > 4mg(h - \rho)(I_1 + mh^2)` (Routh (1884)).

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
    >>> from geomech.examples.rolling import chaplygin_ball
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
    th, ph, ps, thd, phd, psd = euler_angles(N)
    rdot = rq.diff(th) * thd + rq.diff(ph) * phd
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    v = Q * sp.Matrix([xd, yd, 0]) - rdot - w.cross(rq)
    L = (p["m"] * dot(v, v) / 2 + dot(w, Imat * w) / 2
         + p["m"] * p["g"] * dot(rq, gam))
    cons = [xd - dot(Q[:, 0], rdot), yd - dot(Q[:, 1], rdot)]
    steady = _axis_spin(rg, G, Imat) if tuple(independent) == EULER_RATES else None
    return _system(N, L, cons, name=_name, independent=independent,
                   description="Convex body rolling without slipping on a horizontal plane "
                               "(Borisov-Mamaev 2015, §4.3)",
                   natural_frame=_convex_frame(N, rg, G), steady=steady)


def _axis_spin(rg: sp.Matrix, G, Imat: sp.Matrix) -> tuple | None:
    r"""Spin :math:`n` about the vertical body axis 3 (:math:`\gamma = e_3`,
    :math:`\theta = 0`: the Euler angles are singular there, so it is linearised in natural
    variables), declared when it is steady: the contact point lies on the axis below the
    centre of mass, :math:`\mathbf r(e_3)\parallel e_3`, and the axis is a principal axis of
    inertia, :math:`I_{13} = I_{23} = 0`.

    For a body of revolution about that axis (the ellipsoid with :math:`b_1 = b_2 = b`),
    with :math:`h` the height of the centre of mass over the contact point and
    :math:`\rho` the radius of curvature there (:math:`h = b_3`, :math:`\rho = b^2/b_3`),
    the spin is spectrally stable iff

    .. math:: (I_3 + m h\rho)^2 n^2 > 4 m g (h - \rho)(I_1 + m h^2)

    (Routh (1884), Advanced Rigid Dynamics -- the "sleeping" body of revolution on a rough
    plane; Markeev (1992), Dynamics of a Body Contiguous to a Rigid Surface; for the sphere
    with displaced centre of mass see :func:`~geomech.examples.rolling.routh_sphere`): an
    oblate body (:math:`h < \rho`) spins stably at every rate, a prolate one standing on its
    end only above a critical rate."""
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    zero = default_policy().is_zero
    pole = dict(zip(G, (0, 0, 1)))
    if not all(zero(rg[i].xreplace(pole)) for i in (0, 1)) or \
            not all(zero(Imat[i, 2]) for i in (0, 1)):
        return None
    n = sp.Symbol("n", real=True)
    return (SteadyFamily("vertical spin about axis 3", (n,),
                         {"x": 0, "y": 0, "theta": 0, "phi": 0, "psi": 0, "thetadot": 0,
                          "phidot": n, "psidot": 0}, (), {},
                         "spin about the vertical body axis 3 through the contact point at "
                         "rate n"),)


def _ellipsoid_r(b1, b2, b3):
    def r(G):
        Bg = sp.Matrix([b1**2 * G[0], b2**2 * G[1], b3**2 * G[2]])
        return -Bg / sp.sqrt(dot(G, Bg))
    return r


@register
def ellipsoid(b1: ParamValue = None, b2: ParamValue = None, b3: ParamValue = None,
              m: ParamValue = None, I1: ParamValue = None, I2: ParamValue = None,
              I3: ParamValue = None, g: ParamValue = None, independent=EULER_RATES):
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
