r"""The rattleback (celt, wobblestone): a convex body rolling without slipping on a plane whose
principal axes of inertia are turned against the principal directions of curvature of its
surface at the rest point.

Orientation by yaw, roll and pitch (:func:`~geomech.examples.kinematics.tait_bryan_matrix`),
regular at the vertical, so spin about the vertical is an ordinary point of the phase space
(Z-X-Z Euler angles are singular there).

>>> import geomech as gm
>>> gm.examples.rattleback().manifold.coords
(x, y, yaw, roll, pitch)
"""

from __future__ import annotations

import sympy as sp

from ._registry import register
from .common import ParamValue, parameter
from .common import build_system as _system
from .common import configuration_manifold as _manifold
from .common import coordinates as _coords
from .common import parameters as _params
from .kinematics import dot, tait_bryan_angular_velocity, tait_bryan_matrix

__all__ = ["rattleback"]

#: Kane & Levinson (1982), Int. J. Non-Linear Mech. 17, 175-186: the ellipsoidal rattleback
#: (SI units): semi-axes a, b, c, centre of mass h below the centre of the ellipsoid, mass m,
#: central moments A, B, C about the geometric axes and the product D of the a-b plane.
KANE_LEVINSON_1982 = {"a": "0.20", "b": "0.03", "c": "0.02", "h": "0.01", "m": "1",
                      "A": "2e-4", "B": "1.6e-3", "C": "1.7e-3", "D": "-2e-5", "g": "9.81"}


def _surface_point(G: sp.Matrix, a, b, c) -> sp.Matrix:
    r"""The point of the ellipsoid :math:`x^2/a^2 + y^2/b^2 + z^2/c^2 = 1` (from its centre,
    body axes) where the outward normal is :math:`-\gamma`:
    :math:`-E\gamma/\sqrt{(\gamma, E\gamma)}`, :math:`E = \operatorname{diag}(a^2, b^2, c^2)`."""
    Eg = sp.Matrix([a**2 * G[0], b**2 * G[1], c**2 * G[2]])
    return -Eg / sp.sqrt(dot(G, Eg))


@register
def rattleback(a: ParamValue = None, b: ParamValue = None, c: ParamValue = None,
               h: ParamValue = None, m: ParamValue = None, A: ParamValue = None,
               B: ParamValue = None, C: ParamValue = None, D: ParamValue = None,
               g: ParamValue = None, independent=("yawdot", "rolldot", "pitchdot")):
    r"""The ellipsoidal rattleback of Kane & Levinson (1982) rolling without slipping on a
    horizontal plane.

    **Body.**  The surface is the ellipsoid :math:`x^2/a^2 + y^2/b^2 + z^2/c^2 = 1` (body axes
    at its centre :math:`O`, :math:`z` up at rest); the centre of mass :math:`G` lies at
    :math:`h` below :math:`O` on the :math:`z` axis (height :math:`c - h` at rest); the central
    inertia tensor in the geometric axes is

    .. math:: I = \begin{pmatrix} A & D & 0\\ D & B & 0\\ 0 & 0 & C\end{pmatrix},

    its principal axes turned by :math:`\delta`, :math:`\tan 2\delta = 2D/(A - B)`, about the
    vertical against the axes of curvature -- the misalignment that couples spin, roll and
    pitch.  The principal radii of curvature at the rest point are :math:`a^2/c` and
    :math:`b^2/c`.

    **Numbers** (the defaults of the numerics, ``S.numeric_defaults``; Kane & Levinson
    (1982), SI units): :math:`a = 0.20`, :math:`b = 0.03`, :math:`c = 0.02`,
    :math:`h = 0.01`, :math:`m = 1`, :math:`A = 2\cdot10^{-4}`, :math:`B = 1.6\cdot10^{-3}`,
    :math:`C = 1.7\cdot10^{-3}`, :math:`D = -2\cdot10^{-5}`, :math:`g = 9.81`.  (The parameter
    sets of Garcia & Hubbard (1988) and Lindberg & Longman (1983) are not reproduced here;
    any set can be passed as arguments.)

    **Equations.**  :math:`q = (x, y, \psi, \alpha, \beta)`: the contact point, yaw, roll and
    pitch (:func:`~geomech.examples.kinematics.tait_bryan_matrix`), :math:`\gamma = Qe_3`
    the vertical in body axes and :math:`\mathbf r(\gamma) = -E\gamma/\sqrt{(\gamma,E\gamma)}
    + h e_3` from :math:`G` to the contact point; as for
    :func:`~geomech.examples.rolling_bodies.convex_body_on_plane` (Borisov & Mamaev (2015),
    (4.13)-(4.14)),

    .. math:: L = \tfrac m2|Q(\dot x, \dot y, 0)^T - \dot{\mathbf r} - \omega\times\mathbf r|^2
              + \tfrac12(\omega, I\omega) + mg(\mathbf r, \gamma), \qquad
              \dot x = (Q_1, \dot{\mathbf r}),\ \dot y = (Q_2, \dot{\mathbf r}).

    **Steady motions.**  Spin about the vertical, ``steady_motion(spin=w)`` (counter-clockwise
    seen from above for :math:`w > 0`).  Walker (1896) linearised the rolling equations about
    it: to first order in the spin the pitching and rolling oscillations grow or decay at
    rates proportional to the spin, with opposite signs in the two senses -- the preferred
    sense is stable, the other unstable, and the spin reverses.

    No natural frame is attached: the compact equations in the body angular velocity are
    very large for this body, and the chart is regular where the analyses need it.

    Examples
    --------
    >>> R = rattleback()
    >>> R.steady_motion(spin=5)["yawdot"]
    5
    >>> float(R.numeric_defaults[0][R.manifold.parameters[0]])
    0.2
    """
    p = _params(a=a, b=b, c=c, h=h, m=m, A=A, B=B, C=C, g=g)
    p["D"] = sp.Symbol("D", real=True) if D is None else parameter(D, "D")
    q = _coords("x y yaw roll pitch")
    Q = tait_bryan_matrix(*q[2:])
    G = Q[:, 2]
    rq = _surface_point(G, p["a"], p["b"], p["c"]) + sp.Matrix([0, 0, p["h"]])
    Imat = sp.Matrix([[p["A"], p["D"], 0], [p["D"], p["B"], 0], [0, 0, p["C"]]])
    N = _manifold("R2xSO3", q, p)
    xd, yd, *rates = N.velocities
    angles = N.coords[2:]
    w = tait_bryan_angular_velocity(*angles, *rates)
    rdot = sum((rq.diff(a_) * r_ for a_, r_ in zip(angles, rates)), sp.zeros(3, 1))
    v = Q * sp.Matrix([xd, yd, 0]) - rdot - w.cross(rq)
    L = p["m"] * dot(v, v) / 2 + dot(w, Imat * w) / 2 + p["m"] * p["g"] * dot(rq, G)
    cons = [xd - dot(Q[:, 0], rdot), yd - dot(Q[:, 1], rdot)]
    return _system(N, L, cons, name="rattleback", independent=independent,
                   description="Rattleback: ellipsoid with turned inertia axes rolling on a "
                               "plane (Kane-Levinson 1982; Walker 1896)",
                   steady=_vertical_spin(), numeric_defaults=_defaults(N, p))


def _vertical_spin() -> tuple:
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    w = sp.Symbol("spin", real=True)
    return (SteadyFamily("vertical spin", (w,),
                         {"x": 0, "y": 0, "yaw": 0, "roll": 0, "pitch": 0, "yawdot": w,
                          "rolldot": 0, "pitchdot": 0}, (), {},
                         "spin about the vertical at rate spin (its sign is the sense)"),)


def _defaults(N, p: dict) -> tuple:
    """Kane & Levinson's numbers for the parameters left symbolic, and an initial state:
    spin against the preferred sense with a small roll (the spin reverses)."""
    vals = {}
    for name, text in KANE_LEVINSON_1982.items():
        if isinstance(p[name], sp.Symbol) and p[name] in N.parameters:
            vals[p[name]] = float(text)
    x0 = {"x": 0.0, "y": 0.0, "yaw": 0.0, "roll": 0.01, "pitch": 0.0, "yawdot": -5.0,
          "rolldot": 0.0, "pitchdot": 0.0}
    return vals, x0
