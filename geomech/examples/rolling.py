r"""Rigid bodies rolling (or skating) on a plane or a surface, and the free rigid body.

Here: the free rigid body and the balls (Chaplygin's ball, Routh's sphere, the rubber ball,
the ball on a surface of revolution).  The disks, the hoop, the body with a sharp edge, the
convex body and the ellipsoid are in :mod:`geomech.examples.rolling_bodies`, the Euler-angle
kinematics in :mod:`geomech.examples.kinematics`.

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

import sympy as sp

from geomech.core.zero import default_policy

from ._registry import register
from .common import ParamValue, UserExpr
from .common import build_system as _system
from .common import configuration_manifold as _manifold
from .common import coordinates as _coords
from .common import parameters as _params
from .common import potential_energy as _potential
from .common import user_expression as _user_expr
from .kinematics import (
    EULER_RATES,
    body_angular_velocity,
    body_over_plane,
    dot,
    euler_angles,
    space_angular_velocity,
)

__all__ = ["free_rigid_body", "chaplygin_ball", "routh_sphere", "rubber_ball",
           "ball_on_surface_of_revolution"]


def _no_slip_plane(N, R):
    r"""(5.9): :math:`\dot x - R\dot\theta\sin\psi + R\dot\varphi\sin\theta\cos\psi`,
    :math:`\dot y + R\dot\theta\cos\psi + R\dot\varphi\sin\theta\sin\psi` (ball of radius R
    whose geometric centre is :math:`(x, y)`)."""
    xd, yd = N.velocities[:2]
    th, ph, ps, thd, phd, psd = euler_angles(N)
    return [xd - R * thd * sp.sin(ps) + R * phd * sp.sin(th) * sp.cos(ps),
            yd + R * thd * sp.cos(ps) + R * phd * sp.sin(th) * sp.sin(ps)]


# -- free rigid body ---------------------------------------------------------------------
@register
def free_rigid_body(A: ParamValue = None, B: ParamValue = None, C: ParamValue = None,
                    potential: UserExpr | bool = None):
    r"""Free rigid body about a fixed point, the Euler top (Tzenoff (1953)).

    A system **without constraints**.  The configuration space is :math:`SO(3)` in the Euler
    angles :math:`(\theta, \varphi, \psi)` of Borisov & Mamaev (2015), and

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


def _ball_frame(N, R) -> dict:
    r"""Body angular velocities :math:`\omega` (5.7) as quasi-velocities of a ball rolling on a
    plane (no-slip (5.9) lifts them to :math:`\dot x, \dot y`); the low-rank vector of the
    mass matrix is the Poisson vector, named ``gamma``."""
    th, ph, ps = euler_angles(N)[:3]
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


# -- balls on a plane --------------------------------------------------------------------
@register
def chaplygin_ball(m: ParamValue = None, R: ParamValue = None, I1: ParamValue = None,
                   I2: ParamValue = None, I3: ParamValue = None, independent=EULER_RATES):
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
    th, ph, ps, thd, phd, psd = euler_angles(N)
    w = body_angular_velocity(th, ph, ps, thd, phd, psd)
    L = (p["m"] * (xd**2 + yd**2) / 2
         + dot(w, sp.diag(p["I1"], p["I2"], p["I3"]) * w) / 2)
    S = _system(N, L, _no_slip_plane(N, p["R"]), name="chaplygin_ball",
                independent=independent,
                description="Chaplygin's balanced ball rolling on a plane "
                            "(Borisov-Mamaev 2015, §5.4)",
                natural_frame=_ball_frame(N, p["R"]),
                steady=_permanent_rotations() if independent == EULER_RATES else None)
    return S


def _permanent_rotations() -> tuple:
    r"""Permanent rotations of the Chaplygin ball about a vertical principal axis at rate
    :math:`n` (axis 3: :math:`\theta = 0`, where the Euler angles are singular -- linearised
    in natural variables; axes 1 and 2: :math:`\theta = \pi/2`).  Spectrally stable iff
    the axis is the largest or the smallest one, :math:`(I_k - I_i)(I_k - I_j) > 0`, as for
    Euler's free top (Markeev (1992), Ch. 3; Borisov & Mamaev (2002))."""
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    n = sp.Symbol("n", real=True)
    rest = {"x": 0, "y": 0, "psi": 0, "thetadot": 0}
    return (SteadyFamily("permanent rotation about axis 3", (n,),
                         {**rest, "theta": 0, "phi": 0, "phidot": n, "psidot": 0}),
            SteadyFamily("permanent rotation about axis 1", (n,),
                         {**rest, "theta": sp.pi / 2, "phi": sp.pi / 2, "phidot": 0,
                          "psidot": n}),
            SteadyFamily("permanent rotation about axis 2", (n,),
                         {**rest, "theta": sp.pi / 2, "phi": 0, "phidot": 0, "psidot": n}))


@register
def routh_sphere(m: ParamValue = None, R: ParamValue = None, a: ParamValue = None,
                 I1: ParamValue = None, I3: ParamValue = None, g: ParamValue = None,
                 independent=EULER_RATES):
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
    N, (xd, yd), (th, ph, ps, thd, phd, psd), Q, w = body_over_plane(p)
    v = Q * sp.Matrix([xd, yd, 0]) + w.cross(sp.Matrix([0, 0, p["a"]]))
    L = (p["m"] * dot(v, v) / 2 + dot(w, sp.diag(p["I1"], p["I1"], p["I3"]) * w) / 2
         - p["m"] * p["g"] * p["a"] * sp.cos(th))
    S = _system(N, L, _no_slip_plane(N, p["R"]), name="routh_sphere",
                independent=independent,
                description="Routh sphere: unbalanced axisymmetric ball rolling on a plane "
                            "(Borisov-Mamaev 2015, §5.2)",
                natural_frame=_ball_frame(N, p["R"]),
                steady=_vertical_spins() if independent == EULER_RATES else None)
    return S


def _vertical_spins() -> tuple:
    r"""Spin :math:`n` about the vertical symmetry axis with the centre of mass above the
    centre (:math:`\theta = 0`) or below it (:math:`\theta = \pi`); both are points where
    the Euler angles are singular (linearised in natural variables).  The upper one is
    spectrally stable iff :math:`(I_3 + mR(R + a))^2n^2 > 4mga(I_1 + m(R + a)^2)` (Routh
    (1884), the "sleeping" rough sphere), the lower one always."""
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    n = sp.Symbol("n", real=True)
    rest = {"x": 0, "y": 0, "psi": 0, "phi": 0, "thetadot": 0, "psidot": 0, "phidot": n}
    return (SteadyFamily("vertical spin, centre of mass above", (n,), {**rest, "theta": 0}),
            SteadyFamily("vertical spin, centre of mass below", (n,),
                         {**rest, "theta": sp.pi}))


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
    th, ph, ps, thd, phd, psd = euler_angles(N)
    nu, s = _graph_normal_unnormalised(h, x, y)
    w = space_angular_velocity(th, ph, ps, thd, phd, psd)
    hd = sp.diff(h, x) * xd + sp.diff(h, y) * yd
    rd = sp.Matrix([xd, yd, hd])
    L = p["m"] * dot(rd, rd) / 2 + p["I"] * dot(w, w) / 2 - U
    wn = w.cross(nu)
    # n = nu/s; the constraints are multiplied by s > 0 (same constraints, no radicals)
    cons = [s * xd - p["a"] * wn[0], s * yd - p["a"] * wn[1], dot(w, nu)]
    return _system(N, L, cons, name="rubber_ball", independent=independent,
                   description="Rubber ball: rolling without slipping and spinning "
                               "(Borisov-Mamaev 2015, §4.6)")


@register
def ball_on_surface_of_revolution(m: ParamValue = None, R: ParamValue = None,
                                  I: ParamValue = None, c: ParamValue = None,  # noqa: E741
                                  g: ParamValue = None, surface: UserExpr = None,
                                  independent=EULER_RATES):
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

    The natural quasi-velocities are the angular velocity in fixed axes :math:`\omega`
    (the angles are cyclic in them); the distinguished steady motion is the spin at the
    vertex, ``steady_motion(n=...)``: on the paraboloid spectrally stable iff
    :math:`c\,(cI^2n^2 + 4mg(I + mR^2)) > 0`.

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
    th, ph, ps, thd, phd, psd = euler_angles(N)
    nu, s = _graph_normal_unnormalised(h, x1, x2)
    w = space_angular_velocity(th, ph, ps, thd, phd, psd)
    rd = sp.Matrix([x1d, x2d, sp.diff(h, x1) * x1d + sp.diff(h, x2) * x2d])
    L = p["m"] * dot(rd, rd) / 2 + p["I"] * dot(w, w) / 2 - p["m"] * p["g"] * h
    wn = w.cross(nu)
    # rdot = R w x n with n = nu/s, multiplied by s > 0 (same constraint, no radicals)
    cons = [s * x1d - p["R"] * wn[0], s * x2d - p["R"] * wn[1]]
    natural = _space_frame(N, nu, s, p["R"]) if tuple(independent) == EULER_RATES else None
    return _system(N, L, cons, name="ball_on_surface_of_revolution", independent=independent,
                   description="Homogeneous ball rolling on a surface of revolution, centre on "
                               "a paraboloid (Borisov-Mamaev 2015, §2.3)",
                   natural_frame=natural,
                   steady=_vertex_spin(h, (x1, x2), p) if natural else None)


def _space_frame(N, nu: sp.Matrix, s: sp.Expr, R) -> dict:
    r"""The angular velocity in fixed axes :math:`\omega` as natural quasi-velocities of a
    ball whose centre moves on :math:`z = h(x_1, x_2)`: the field :math:`E_i` turns the ball
    with :math:`\omega = e_i` (Euler rates from (4.30) inverted:
    :math:`\dot\theta = \omega_1\cos\psi + \omega_2\sin\psi`,
    :math:`\dot\varphi = (\omega_1\sin\psi - \omega_2\cos\psi)/\sin\theta`,
    :math:`\dot\psi = \omega_3 - \dot\varphi\cos\theta`) and moves the centre by the
    no-slip condition :math:`\dot{\mathbf r} = R\,\omega\times n`.  For a homogeneous
    ball the equations in :math:`(x_1, x_2, \omega)` do not involve the orientation
    (Borisov & Mamaev (2015), (2.7)): the three angles are cyclic there."""
    th, ph, ps = euler_angles(N)[:3]
    c, sn = sp.cos, sp.sin
    rates = ((c(ps), sn(ps) / sn(th), -sn(ps) * c(th) / sn(th)),
             (sn(ps), -c(ps) / sn(th), c(ps) * c(th) / sn(th)),
             (0, 0, 1))
    frame = []
    for i, (thd, phd, psd) in enumerate(rates):
        v = sp.Matrix([1 if k == i else 0 for k in range(3)]).cross(nu) * R / s
        comp = {"x1": v[0], "x2": v[1], "theta": thd, "phi": phd, "psi": psd}
        frame.append(N.vector_field([comp[q.name] for q in N.coords]))
    return {"frame": tuple(frame), "names": ("Omega1", "Omega2", "Omega3")}


def _vertex_spin(h: sp.Expr, x: tuple, p: dict) -> tuple | None:
    r"""The ball at the vertex of the surface spinning about the vertical at rate :math:`n`
    (:math:`x_1 = x_2 = 0`, :math:`\omega = ne_3`), declared when the vertex is a critical
    point of :math:`h`.  Steady in the natural variables :math:`(x, \omega)` (the angles are
    cyclic there): the singular orbit of the rotations about the vertical, which consists
    of equilibria of (2.7) (Borisov & Mamaev (2015), §2.3, Prop. 2).  Linearising (2.7) at
    it, :math:`z = x_1 + ix_2` obeys

    .. math:: \ddot z + i\,\frac{cRIn}{I + mR^2}\,\dot z + \frac{mgcR^2}{I + mR^2}\,z = 0

    on the paraboloid :math:`h = \tfrac c2(x_1^2 + x_2^2)`, so the spin is spectrally stable
    iff :math:`c\,(cI^2n^2 + 4mg(I + mR^2)) > 0`: always in a bowl (:math:`c > 0`, a
    minimum of the potential), on a dome (:math:`c < 0`) only for
    :math:`n^2 > 4mg(I + mR^2)/(|c|I^2)` -- the gyroscopic stabilisation of the ball on top
    of a surface discussed by Borisov, Mamaev & Kilin (2002), Regul. Chaotic Dyn. 7(2)."""
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    zero = default_policy().is_zero
    at = dict(zip(x, (0, 0)))
    if not all(zero(sp.diff(h, xi).xreplace(at)) for xi in x):
        return None
    n = sp.Symbol("n", real=True)
    return (SteadyFamily("spin at the vertex", (n,),
                         {"x1": 0, "x2": 0, "theta": sp.pi / 2, "phi": 0, "psi": 0,
                          "thetadot": 0, "phidot": 0, "psidot": n}, (), {},
                         "the ball at the vertex of the surface spinning about the vertical "
                         "at rate n (n = 0: at rest)"),)
