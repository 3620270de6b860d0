r"""Rigid bodies about a fixed point with a constraint on the angular velocity.

Configuration space :math:`SO(3)` in the Euler angles :math:`(\theta, \varphi, \psi)` of
Borisov & Mamaev (2015), (5.5); :math:`\omega` is the body angular velocity (5.7),
:math:`\gamma = (\sin\varphi\sin\theta, \cos\varphi\sin\theta, \cos\theta)` the vertical
(Poisson) vector in the body frame and :math:`L = \tfrac12(\omega, I\omega) - U`.

* :func:`suslov` -- Suslov's problem (Suslov (1946)): the constraint
  :math:`(\omega, a) = 0` fixed in the body, here :math:`a = e_3`, i.e. :math:`\omega_3 = 0`;
  an invariant measure exists iff :math:`a` is an eigenvector of :math:`I` (Kozlov (1985),
  Fedorov & Kozlov (1995));
* :func:`veselova` -- the Veselova problem (Veselova (1986)): the constraint
  :math:`(\omega, \gamma) = 0` fixed in space (no spin about the vertical), an LR system with
  the invariant density :math:`\sqrt{(I^{-1}\gamma, \gamma)}` in the variables
  :math:`(\omega, \gamma)` (Veselova (1986); Fedorov & Jovanović (2004), Thm. 3.2).

>>> import geomech as gm
>>> gm.examples.suslov().constraints
(phidot + psidot*cos(theta),)
"""

from __future__ import annotations

import sympy as sp

from geomech.examples.kinematics import body_angular_velocity

from . import common
from ._registry import register
from .common import ParamValue, UserExpr

__all__ = ["suslov", "veselova", "heavy_top", "staude_families", "axis_angles"]


def _omega(N) -> sp.Matrix:
    """Body angular velocity (5.7) in the coordinates and velocities of ``N``."""
    return body_angular_velocity(*N.coords, *N.velocities)


def poisson_vector(theta, phi) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    r"""The vertical unit vector in the body frame, :math:`\gamma = Q e_3` (third column of
    Borisov & Mamaev (2015), (5.5)).

    >>> th, ph = sp.symbols("theta phi")
    >>> poisson_vector(th, ph)
    (sin(phi)*sin(theta), sin(theta)*cos(phi), cos(theta))
    """
    return (sp.sin(phi) * sp.sin(theta), sp.sin(theta) * sp.cos(phi), sp.cos(theta))


def body_angular_velocity_frame(N) -> tuple:
    r"""The left-invariant fields :math:`E_i` of :math:`SO(3)` in Euler angles: the velocity
    :math:`(\dot\theta, \dot\varphi, \dot\psi)` whose body angular velocity (5.7) is
    :math:`e_i`.

    >>> from geomech.core.manifold import Manifold
    >>> E = body_angular_velocity_frame(Manifold("SO3", "theta phi psi"))
    >>> E[2].components
    (0, 1, 0)
    """
    th, ph, _ = N.coords
    c, s = sp.cos, sp.sin
    return (N.vector_field([c(ph), -c(th) * s(ph) / s(th), s(ph) / s(th)]),
            N.vector_field([-s(ph), -c(th) * c(ph) / s(th), c(ph) / s(th)]),
            N.vector_field([0, 1, 0]))


def _inertia(p) -> sp.Matrix:
    return sp.Matrix([[p["I1"], 0, p["I13"]], [0, p["I2"], p["I23"]],
                      [p["I13"], p["I23"], p["I3"]]])


@register
def suslov(I1: ParamValue = None, I2: ParamValue = None, I3: ParamValue = None,  # noqa: E741
           I13: ParamValue = None, I23: ParamValue = None):
    r"""Suslov's problem: a rigid body about a fixed point with :math:`\omega_3 = 0`
    (Suslov (1946); Fedorov & Kozlov (1995); Borisov & Mamaev (2015), §5).

    The constraint :math:`(\omega, a) = 0` with :math:`a = e_3` fixed in the body (a knife
    edge on the body, realised e.g. by a wheel); the inertia tensor, in a body frame whose
    third axis is :math:`a`,

    .. math::

        I = \begin{pmatrix} I_1 & 0 & I_{13}\\ 0 & I_2 & I_{23}\\ I_{13} & I_{23} & I_3
        \end{pmatrix}, \qquad L = \tfrac12(\omega, I\omega), \qquad
        \omega_3 = \dot\psi\cos\theta + \dot\varphi = 0 .

    The Euler--Suslov equations are :math:`I_1\dot\omega_1 = -(I_{13}\omega_1 +
    I_{23}\omega_2)\,\omega_2`, :math:`I_2\dot\omega_2 = (I_{13}\omega_1 +
    I_{23}\omega_2)\,\omega_1` (Fedorov & Kozlov (1995)); the energy is an integral and the
    divergence :math:`(I_{23}/I_2)\,\omega_1 - (I_{13}/I_1)\,\omega_2` vanishes in the
    mean only when :math:`I_{13} = I_{23} = 0`: an invariant measure exists iff :math:`a` is
    an eigenvector of :math:`I` (Kozlov (1985)).  The quasi-velocities
    :math:`(\omega_1, \omega_2)` are the natural frame.

    Parameters
    ----------
    I1, I2, I3, I13, I23 : optional
        Entries of the inertia tensor (symbols by default; ``I13 = I23 = 0`` is the
        symmetric case with the invariant measure).

    Examples
    --------
    >>> S = suslov(I13=0, I23=0)
    >>> S.independent_velocities
    (thetadot, psidot)
    """
    p = common.parameters(I1=I1, I2=I2, I3=I3, I13=I13, I23=I23)
    q = common.coordinates("theta phi psi")
    N = common.configuration_manifold("SO3", q, p)
    w = _omega(N)
    L = (w.T * _inertia(p) * w)[0] / 2
    E = body_angular_velocity_frame(N)
    return common.build_system(
        N, L, [w[2]], name="suslov", independent=("thetadot", "psidot"),
        description="Suslov's problem: rigid body about a fixed point with omega_3 = 0 "
                    "(Suslov 1946; Fedorov-Kozlov 1995)",
        natural_frame={"frame": E[:2], "names": ("omega1", "omega2")})


@register
def veselova(I1: ParamValue = None, I2: ParamValue = None, I3: ParamValue = None,  # noqa: E741
             potential: UserExpr | bool = None):
    r"""The Veselova problem: a rigid body about a fixed point whose angular velocity is
    orthogonal to the vertical, :math:`(\omega, \gamma) = 0` (Veselova (1986); Fedorov &
    Jovanović (2004)).

    .. math::

        L = \tfrac12(\omega, I\omega) - U(\theta, \varphi), \quad I = \mathrm{diag}(I_1, I_2,
        I_3), \qquad (\omega, \gamma) = \dot\psi + \cos\theta\,\dot\varphi = 0 .

    The constraint is right-invariant (an LR system): in the variables :math:`(\omega,
    \gamma)` the flow has the invariant density :math:`\sqrt{(I^{-1}\gamma, \gamma)}`
    (Veselova (1986); Fedorov & Jovanović (2004), Thm. 3.2), which in the Euler-angle phase
    space :math:`(\theta, \varphi, \psi, \dot\theta, \dot\varphi)` carries the Jacobian
    :math:`\sin^2\theta` of :math:`(\dot\theta, \dot\varphi) \mapsto \omega` on the
    constraint.

    Parameters
    ----------
    I1, I2, I3 : optional
        Principal moments of inertia (symbols by default).
    potential : expression, str, callable or True, optional
        :math:`U(\theta, \varphi)` -- a function of :math:`\gamma` only (e.g.
        :math:`\varepsilon(\gamma, c)` for a heavy body keeps the measure).

    Examples
    --------
    >>> veselova().constraints
    (phidot*cos(theta) + psidot,)
    """
    p = common.parameters(I1=I1, I2=I2, I3=I3)
    q = common.coordinates("theta phi psi")
    U = common.potential_energy(potential, q[:2], p)
    N = common.configuration_manifold("SO3", q, p, U)
    w = _omega(N)
    L = (p["I1"] * w[0]**2 + p["I2"] * w[1]**2 + p["I3"] * w[2]**2) / 2 - U
    gamma = poisson_vector(*N.coords[:2])
    f = sp.expand_trig(sum(wi * gi for wi, gi in zip(w, gamma)))
    return common.build_system(
        N, L, [sp.trigsimp(f)], name="veselova", independent=("thetadot", "phidot"),
        description="Veselova problem: rigid body about a fixed point with (omega, gamma) = 0 "
                    "(Veselova 1986; Fedorov-Jovanovic 2004)",
        natural_frame=None if U != 0 else _veselova_frame(N, p, w, gamma))


def _veselova_frame(N, p, w, gamma) -> dict:
    r"""The frame :math:`\partial_\theta, \partial_\varphi - \cos\theta\,\partial_\psi` of
    the constraint and the algebraic form in :math:`(\omega, \gamma)` with
    :math:`(\gamma,\gamma) = 1`, :math:`(\omega,\gamma) = 0`:
    :math:`I\dot\omega = I\omega\times\omega + \lambda\gamma`,
    :math:`\lambda = -(I^{-1}(I\omega\times\omega), \gamma)/(I^{-1}\gamma, \gamma)`
    (Veselova (1986))."""
    th = N.coords[0]
    frame = (N.vector_field([1, 0, 0]), N.vector_field([0, 1, -sp.cos(th)]))
    Imat = sp.diag(p["I1"], p["I2"], p["I3"])
    f = (Imat * _OMEGA).cross(_OMEGA)
    Ii = Imat.inv()
    lam = -(Ii * f).dot(_GAMMA) / (Ii * _GAMMA).dot(_GAMMA)
    algebraic = {"velocities": dict(zip(_OMEGA, w)), "functions": dict(zip(_GAMMA, gamma)),
                 "rates": _euler_poisson(Imat, f + lam * _GAMMA),
                 "relations": [_GAMMA.dot(_GAMMA) - 1, _OMEGA.dot(_GAMMA)]}
    return {"frame": frame, "names": ("eta1", "eta2"), "algebraic": algebraic}


def _offset(value: ParamValue, name: str) -> sp.Expr:
    """A coordinate of the centre of mass: a real symbol (of either sign) unless given."""
    if value is None:
        return sp.Symbol(name, real=True)
    return common.parameter(value, name)


@register
def heavy_top(I1: ParamValue = None, I2: ParamValue = None, I3: ParamValue = None,  # noqa: E741
              m: ParamValue = None, g: ParamValue = None, x0: ParamValue = None,
              y0: ParamValue = None, z0: ParamValue = None):
    r"""The heavy rigid body about a fixed point (Euler--Poisson equations).

    Principal moments :math:`I = \mathrm{diag}(I_1, I_2, I_3)` about the fixed point, the
    centre of mass at :math:`\mathbf r_0 = (x_0, y_0, z_0)` in the principal axes, the Euler
    angles :math:`(\theta, \varphi, \psi)` of Borisov & Mamaev (2015), (5.5), :math:`\omega`
    the body angular velocity (5.7), :math:`\gamma` the upward vertical in body axes:

    .. math::

        L = \tfrac12(\omega, I\omega) - mg(\mathbf r_0, \gamma), \qquad
        I\dot\omega = I\omega\times\omega + mg\,\gamma\times\mathbf r_0, \qquad
        \dot\gamma = \gamma\times\omega .

    The natural frame is the body angular velocity (the natural configuration functions are
    :math:`\gamma`, with :math:`(\gamma, \gamma) = 1`).  Integrals for all parameters: the
    energy, the area integral :math:`(I\omega, \gamma)`; a fourth one in the cases of Euler
    (:math:`\mathbf r_0 = 0`: :math:`|I\omega|^2`), Lagrange (:math:`I_1 = I_2`,
    :math:`x_0 = y_0 = 0`: :math:`\omega_3`) and Kovalevskaya (1889) (:math:`I_1 = I_2 =
    2I_3`, :math:`y_0 = z_0 = 0`: :math:`(\omega_1^2 - \omega_2^2 - \nu\gamma_1)^2 +
    (2\omega_1\omega_2 - \nu\gamma_2)^2`, :math:`\nu = mgx_0/I_3`), and on the level
    :math:`(I\omega, \gamma) = 0` the cubic integral of Goryachev (1900) and Chaplygin
    (1901) (:math:`I_1 = I_2 = 4I_3`, :math:`y_0 = z_0 = 0`).

    **Steady motions** (declared when the centre of mass is on axis 3, :math:`x_0 = y_0 =
    0`): the sleeping top ``steady_motion(n=...)``, linearised in :math:`(\gamma, \omega)`
    (for the Lagrange top stable iff :math:`I_3^2n^2 > 4I_1mgz_0`, Maievskii's condition),
    and, when :math:`I_1 = I_2`, the regular precessions.  Otherwise Staude's (1894)
    permanent rotations ``steady_motion(kappa=...)`` about the generators of his cone and
    the top at rest, hanging and inverted (:func:`staude_families`).

    Parameters
    ----------
    I1, I2, I3, m, g : optional
        Principal moments of inertia about the fixed point, mass, gravity (positive symbols by
        default).
    x0, y0, z0 : optional
        Centre of mass in the principal axes (real symbols by default).

    Examples
    --------
    >>> T = heavy_top(x0=0, y0=0)
    >>> T.natural_frame["names"], T.manifold.parameters
    (('omega1', 'omega2', 'omega3'), (I1, I2, I3, m, g, z0))
    """
    p = common.parameters(I1=I1, I2=I2, I3=I3, m=m, g=g)
    r0 = [_offset(v, k) for k, v in (("x0", x0), ("y0", y0), ("z0", z0))]
    q = common.coordinates("theta phi psi")
    N = common.configuration_manifold("SO3", q, {**p, "x0": r0[0], "y0": r0[1],
                                                 "z0": r0[2]})
    w = _omega(N)
    gamma = poisson_vector(*N.coords[:2])
    L = ((p["I1"] * w[0]**2 + p["I2"] * w[1]**2 + p["I3"] * w[2]**2) / 2
         - p["m"] * p["g"] * sum(r * gi for r, gi in zip(r0, gamma)))
    Imat = sp.diag(p["I1"], p["I2"], p["I3"])
    rates = _euler_poisson(Imat, (Imat * _OMEGA).cross(_OMEGA)
                           + p["m"] * p["g"] * _GAMMA.cross(sp.Matrix(r0)))
    M = Imat * _OMEGA
    algebraic = {"velocities": dict(zip(_OMEGA, w)), "functions": dict(zip(_GAMMA, gamma)),
                 "rates": rates, "relations": [_GAMMA.dot(_GAMMA) - 1],
                 "integrals": {"energy": M.dot(_OMEGA) / 2 + p["m"] * p["g"] * _GAMMA.dot(
                     sp.Matrix(r0)), "area integral (I omega, gamma)": M.dot(_GAMMA)}}
    return common.build_system(
        N, L, [], name="heavy_top",
        description="Heavy rigid body about a fixed point (Euler-Poisson equations)",
        natural_frame={"frame": body_angular_velocity_frame(N),
                       "names": ("omega1", "omega2", "omega3"), "vector_name": "gamma",
                       "functions": gamma, "algebraic": algebraic},
        steady=_top_steady(p, r0))


def _top_steady(p: dict, r0: list) -> tuple | None:
    r"""Steady motions of the heavy top with its centre of mass on the principal axis 3
    (:math:`x_0 = y_0 = 0`; else Staude's families, :func:`staude_families`).

    * ``"sleeping top"``: spin :math:`n` about the vertical axis 3, :math:`\gamma = e_3`,
      :math:`\omega = ne_3` (:math:`\theta = 0`, where the Euler angles are singular:
      linearised in the natural variables :math:`(\gamma, \omega)`).  For the Lagrange
      top (:math:`I_1 = I_2 = A`, :math:`I_3 = C`, :math:`l = z_0`) it is spectrally
      stable iff :math:`C^2n^2 > 4Amgl` (Maievskii's condition; Klein & Sommerfeld (1897),
      Über die Theorie des Kreisels, Ch. VI; Routh (1884), Advanced Rigid Dynamics), for
      any :math:`l` of either sign (:math:`l < 0`: the hanging top, always stable).
    * ``"regular precession"`` (Lagrange top only): :math:`\theta = \theta_0`,
      :math:`\dot\psi = \Omega`, :math:`\dot\varphi = \omega` with the classical
      relation (Lagrange's equation for :math:`\theta`, divided by :math:`\sin\theta_0`)

      .. math:: A\Omega^2\cos\theta_0 - C(\omega + \Omega\cos\theta_0)\,\Omega
                + mgl = 0

      (Klein & Sommerfeld (1897); Arnold (1989), Mathematical Methods of Classical
      Mechanics, §30)."""
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    if r0[0] != 0 or r0[1] != 0:
        return staude_families(p, r0)
    n, th0, W, w = sp.symbols("n theta0 Omega omega", real=True)
    rest = {"phi": 0, "psi": 0, "thetadot": 0}
    fams = [SteadyFamily("sleeping top", (n,), {**rest, "theta": 0, "phidot": n, "psidot": 0},
                         (), {}, "spin n about the vertical principal axis 3 through the "
                         "centre of mass (sleeping top)")]
    A, C = p["I1"], p["I3"]
    if p["I2"] == A:
        rel = A * W**2 * sp.cos(th0) - C * (w + W * sp.cos(th0)) * W + p["m"] * p["g"] * r0[2]
        fams.append(SteadyFamily("regular precession", (th0, W, w),
                                 {**rest, "theta": th0, "psidot": W, "phidot": w}, (rel,), {},
                                 "theta = theta0, psi' = Omega, phi' = omega with the "
                                 "classical relation"))
    return tuple(fams)


def axis_angles(v) -> dict:
    r"""The Euler angles :math:`(\theta, \varphi)` whose Poisson vector is the direction of
    ``v``, :math:`\gamma = v/|v|` (Borisov & Mamaev (2015), (5.5)): :math:`\theta =
    \operatorname{atan2}(\sqrt{v_1^2 + v_2^2}, v_3)`, :math:`\varphi =
    \operatorname{atan2}(v_1, v_2)` (unchanged by a positive factor on ``v``).

    >>> a = axis_angles((0, 3, 4))
    >>> [sp.sin(a["phi"])*sp.sin(a["theta"]), sp.cos(a["phi"])*sp.sin(a["theta"]),
    ...  sp.cos(a["theta"])]
    [0, 3/5, 4/5]
    """
    return {"theta": sp.atan2(sp.sqrt(v[0]**2 + v[1]**2), v[2]), "phi": sp.atan2(v[0], v[1])}


def staude_families(p: dict, r0: list) -> tuple:
    r"""The relative equilibria of the general heavy top (Staude (1894), J. reine angew.
    Math. 113, 318--334; Leimanis (1965), The General Problem of the Motion of Coupled
    Rigid Bodies about a Fixed Point, Ch. I, §4; Borisov & Mamaev (2018), Rigid Body
    Dynamics, §4.1).

    Uniform rotation about the vertical, :math:`\omega = \Omega\gamma`,
    :math:`\dot\gamma = 0`: the equations :math:`I\dot\omega = I\omega\times\omega +
    mg\,\gamma\times\mathbf r_0` of :func:`heavy_top` reduce to
    :math:`\gamma\times(\Omega^2 I\gamma - mg\mathbf r_0) = 0`, i.e. :math:`\Omega^2(I -
    \kappa)\gamma = mg\mathbf r_0` for a scalar :math:`\kappa`; the axis lies on Staude's
    cone :math:`(\gamma, I\gamma\times\mathbf r_0) = 0`, which :math:`\kappa` parametrises
    rationally,

    .. math:: \gamma = \frac{u}{|u|}, \quad u = (I - \kappa)^{-1}\mathbf r_0 =
              \Big(\frac{x_0}{I_1 - \kappa}, \frac{y_0}{I_2 - \kappa},
              \frac{z_0}{I_3 - \kappa}\Big), \qquad \Omega^2 = mg|u| ,

    so each generator is realised in one sense of the axis (the opposite one would need
    :math:`\Omega^2 < 0`) and by either sense of rotation (the family takes
    :math:`\Omega > 0`; the reversed rotation is its time reversal).  As
    :math:`\kappa\to\pm\infty`, :math:`\Omega\to0` and :math:`\gamma\to\mp\mathbf
    r_0/|\mathbf r_0|`: the equilibria ``"hanging at rest"`` (the centre of mass below the
    fixed point, the minimum of the potential :math:`mg(\mathbf r_0, \gamma)`) and
    ``"inverted at rest"``, declared separately (no constant; linearised in the natural
    variables :math:`(\gamma, \omega)`, where only :math:`|\mathbf r_0|` is a radical).
    At :math:`\kappa = I_i` the axis is the principal axis :math:`e_i` with
    :math:`\Omega = \infty`.  The curve :math:`\Omega^4 = m^2g^2|u(\kappa)|^2` has genus
    1 (sphere and cone meet in a quartic), so no parametrisation is free of radicals:
    :math:`|u|` and :math:`\Omega = \sqrt{mg|u|}` stay.
    """
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    kappa = sp.Symbol("kappa", real=True)
    Ii = (p["I1"], p["I2"], p["I3"])
    u = [r / (i - kappa) for r, i in zip(r0, Ii)]
    spin = sp.sqrt(p["m"] * p["g"] * sp.sqrt(sum(c**2 for c in u)))
    still = {"psi": 0, "thetadot": 0, "phidot": 0}
    return (
        SteadyFamily("hanging at rest", (), {**axis_angles([-r for r in r0]), **still,
                                             "psidot": 0}, (), {},
                     "at rest with the centre of mass straight below the fixed point, "
                     "gamma = -r0/|r0|", chart="natural"),
        SteadyFamily("permanent rotation", (kappa,), {**axis_angles(u), **still,
                                                      "psidot": spin}, (), {},
                     "Staude's permanent rotations: omega = Omega gamma about the vertical "
                     "axis gamma = u/|u|, u = (I - kappa)^-1 r0 (a generator of Staude's "
                     "cone (gamma, I gamma x r0) = 0), Omega**2 = m g |u|", chart="natural"),
        SteadyFamily("inverted at rest", (), {**axis_angles(r0), **still, "psidot": 0},
                     (), {}, "at rest with the centre of mass straight above the fixed "
                     "point, gamma = r0/|r0|", chart="natural"))


#: the algebraic variables of a body about a fixed point: body angular velocity, Poisson vector
_OMEGA = sp.Matrix(sp.symbols("omega1 omega2 omega3", real=True))
_GAMMA = sp.Matrix(sp.symbols("gamma1 gamma2 gamma3", real=True))


def _euler_poisson(Imat: sp.Matrix, moment_rate: sp.Matrix) -> dict:
    r"""The rates :math:`\dot\omega = I^{-1}\dot M`, :math:`\dot\gamma = \gamma\times\omega`
    (Poisson's equation) of the algebraic form."""
    wdot = (Imat.inv() * moment_rate).applyfunc(sp.cancel)
    gdot = _GAMMA.cross(_OMEGA)
    return {**dict(zip(_OMEGA, wdot)), **dict(zip(_GAMMA, gdot))}
