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

__all__ = ["suslov", "veselova"]


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
                    "(Veselova 1986; Fedorov-Jovanovic 2004)")
