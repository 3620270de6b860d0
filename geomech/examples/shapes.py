r"""The shapes of the catalogue's bodies, for drawings and animations
(:class:`~geomech.numeric.shapes.BodyShape`, registered by system name).

Each reader builds the shape from the system itself: the orientation is the matrix
:math:`Q^T` of the ZXZ Euler angles (:func:`~geomech.examples.kinematics.euler_matrix`,
Borisov & Mamaev (2015), (5.5): its columns are the body axes in the fixed frame), and sizes
are read off the constraints where they appear there (the radius of a ball from the no-slip
condition (5.9), :math:`\partial f_x/\partial\dot\theta = -R\sin\psi`; the half wheel base
of a board from its knife-edge constraints), so a system built with numbers is drawn to its
own scale.  A system whose structure a reader does not recognise (same name, other
coordinates) falls back to the generic marker.

>>> import geomech as gm
>>> from geomech.numeric.shapes import body_shape
>>> body_shape(gm.examples.chaplygin_ball(R=2)).size
(2,)
"""

from __future__ import annotations

import sympy as sp

from geomech.numeric.shapes import BodyShape, register_shape

from . import kinematics

__all__: list[str] = []


def _coords(system) -> dict:
    return {c.name: c for c in system.manifold.coords}


def _velocity(system, name: str) -> sp.Symbol:
    return {v.name: v for v in system.manifold.velocities}[name]


def _has(system, *names: str) -> bool:
    return set(names) <= set(_coords(system))


def _rotation(system) -> sp.Matrix:
    """Columns: the body axes in the fixed frame, :math:`Q^T` (5.5)."""
    q = _coords(system)
    return kinematics.euler_matrix(q["theta"], q["phi"], q["psi"]).T


def _read(system, k: int, velocity: str, factor):
    r"""``(d f_k / d velocity) / factor`` for constraint ``k`` when it is free of the
    coordinates and velocities (a size read off a constraint), else ``None``."""
    value = sp.cancel(sp.diff(system.constraints[k], _velocity(system, velocity)) / factor)
    state = {*system.manifold.coords, *system.manifold.velocities}
    return value if value.free_symbols.isdisjoint(state) else None


def _param(system, name: str):
    """The parameter ``name`` when it is a symbol of the system, else ``None``."""
    return next((p for p in system.manifold.parameters if p.name == name), None)


def _ball(system, centre: tuple[str, str], height=None) -> BodyShape | None:
    if not (_has(system, *centre, "theta", "phi", "psi") and system.constraints):
        return None
    q = _coords(system)
    R = _read(system, 0, "thetadot", -sp.sin(q["psi"]))
    if R is None:
        return None
    z = R if height is None else height
    return BodyShape("ball", size=(R,), position=(q[centre[0]], q[centre[1]], z),
                     rotation=_rotation(system),
                     label=f"a ball of radius {sp.sstr(R)} seen from above, three of its "
                           "great circles turning with it, the path of its centre")


for _name in ("chaplygin_ball", "routh_sphere", "rubber_ball"):
    register_shape(_name)(lambda system: _ball(system, ("x", "y")))


@register_shape("ball_on_surface_of_revolution")
def _ball_on_surface(system) -> BodyShape | None:
    return _ball(system, ("x1", "x2"), height=0)


def _disk(system) -> BodyShape | None:
    if not (_has(system, "x", "y", "theta", "phi", "psi") and system.constraints):
        return None
    q = _coords(system)
    a = _read(system, 0, "phidot", sp.cos(q["psi"]))
    if a is None:
        return None
    return BodyShape("disk", size=(a,), position=(q["x"], q["y"], a * sp.sin(q["theta"])),
                     rotation=_rotation(system),
                     label=f"a disk of radius {sp.sstr(a)} seen from above (its rim and two "
                           "spokes turning with it), the path of its centre")


for _name in ("rolling_disk", "hoop"):
    register_shape(_name)(_disk)


@register_shape("sharp_edge_body")
def _sharp_edge(system) -> BodyShape | None:
    R = _param(system, "R")
    if R is None or not _has(system, "x", "y", "theta", "phi", "psi"):
        return None
    q = _coords(system)
    rim = sp.Matrix([-R * sp.sin(q["phi"]), -R * sp.cos(q["phi"]), 0])
    O = sp.Matrix([q["x"], q["y"], 0]) - _rotation(system) * rim   # centre of the edge circle
    return BodyShape("disk", size=(R,), position=tuple(O), rotation=_rotation(system),
                     trace=(q["x"], q["y"]),
                     label="the sharp circular edge seen from above, the path of its "
                           "contact point")


def _rolling_ellipsoid(system, Q: sp.Matrix, semi_axes) -> BodyShape:
    r"""An ellipsoid with contact point :math:`(x, y)` and orientation ``Q`` (body components
    :math:`= Q\cdot` fixed ones): its centre is :math:`(x, y, 0) - Q^T\mathbf r(\gamma)`,
    :math:`\mathbf r(\gamma) = -B\gamma/\sqrt{(\gamma, B\gamma)}`, :math:`\gamma = Qe_3`,
    :math:`B = \mathrm{diag}(b_i^2)` (Borisov & Mamaev (2015), §4.3)."""
    q = _coords(system)
    gamma = Q[:, 2]                              # the vertical in body axes
    B = sp.diag(*[bi**2 for bi in semi_axes])
    r = -B * gamma / sp.sqrt((gamma.T * B * gamma)[0])   # centre -> contact point, body axes
    C = sp.Matrix([q["x"], q["y"], 0]) - Q.T * r
    return BodyShape("ellipsoid", size=tuple(semi_axes), position=tuple(C), rotation=Q.T,
                     trace=(q["x"], q["y"]),
                     label=f"{'the rattleback' if system.name == 'rattleback' else 'an ellipsoid'}"
                           " seen from above (its outline and principal sections turning with "
                           "it), the path of its contact point")


def _ellipsoid(system) -> BodyShape | None:
    b = [_param(system, n) for n in ("b1", "b2", "b3")]
    if None in b or not _has(system, "x", "y", "theta", "phi", "psi"):
        return None
    return _rolling_ellipsoid(system, _rotation(system).T, b)


for _name in ("ellipsoid", "convex_body_on_plane"):
    register_shape(_name)(_ellipsoid)


@register_shape("rattleback")
def _rattleback(system) -> BodyShape | None:
    """The ellipsoidal rattleback of Kane & Levinson (1982): semi-axes ``a, b, c``, yaw, roll
    and pitch (the catalogue's ``tait_bryan_matrix``), contact point ``(x, y)``."""
    axes = [_param(system, n) for n in ("a", "b", "c")]
    if None in axes or not _has(system, "x", "y", "yaw", "roll", "pitch"):
        return None
    q = _coords(system)
    Q = kinematics.tait_bryan_matrix(q["yaw"], q["roll"], q["pitch"])
    return _rolling_ellipsoid(system, Q, axes)


def _blade(system) -> BodyShape | None:
    if not _has(system, "x", "y", "phi"):
        return None
    q = _coords(system)
    return BodyShape("blade", position=(q["x"], q["y"]), heading=q["phi"],
                     label="the sleigh seen from above (blade at the traced point, pointing "
                           "along the heading), the path of the blade")


for _name in ("chaplygin_sleigh", "inclined_chaplygin_sleigh", "skate"):
    register_shape(_name)(_blade)


def _board(system, wheels) -> BodyShape | None:
    if not (_has(system, "x", "y", "theta") and system.constraints):
        return None
    q = _coords(system)
    front = wheels[0](q)
    r = _read(system, 0, "thetadot", -sp.cos(front))
    if r is None:
        return None
    return BodyShape("board", size=(2 * r,), position=(q["x"], q["y"]), heading=q["theta"],
                     extra=tuple(w(q) for w in wheels),
                     label="the board seen from above with its two wheel pairs, the path "
                           "of its centre")


register_shape("snakeboard")(lambda S: _board(S, (lambda q: q["phi_f"], lambda q: q["phi_b"]))
                             if _has(S, "phi_f", "phi_b") else None)
register_shape("skateboard")(lambda S: _board(S, (lambda q: q["phi"], lambda q: -q["phi"]))
                             if _has(S, "phi") else None)
register_shape("board_with_fixed_axis")(
    lambda S: _board(S, (lambda q: q["phi"], lambda q: sp.S.Zero)) if _has(S, "phi") else None)


def _body_at_rest_point(system) -> BodyShape | None:
    """A free body turning about a fixed point: a schematic ellipsoid at the origin."""
    if not _has(system, "theta", "phi", "psi"):
        return None
    return BodyShape("ellipsoid", size=(1.0, 0.7, 0.45), position=(0, 0, 0),
                     rotation=_rotation(system),
                     label="the body turning about its fixed point, seen from above "
                           "(schematic ellipsoid along its principal axes)")


for _name in ("free_rigid_body", "suslov", "veselova"):
    register_shape(_name)(_body_at_rest_point)


@register_shape("whipple_bicycle")
def _bicycle(system) -> BodyShape | None:
    r"""The Whipple bicycle from above: rear contact :math:`(x, y)`, yaw :math:`\psi`, the front
    wheel turned on the ground by :math:`\arctan(\tan\delta\cos\lambda)` (the steer angle
    :math:`\delta` about the axis tilted by :math:`\lambda`; exact upright, Meijaard et al.
    (2007) §4), wheel base ``w`` and radii ``rR``, ``rF`` (Table 1 names)."""
    q = _coords(system)
    if not _has(system, "x", "y", "psi", "delta"):
        return None
    p = {n: _param(system, n) for n in ("w", "rR", "rF", "lam")}
    if None in p.values():
        return None
    steer = sp.atan(sp.tan(q["delta"]) * sp.cos(p["lam"]))
    return BodyShape("bicycle", size=(p["w"], p["rR"], p["rF"]), position=(q["x"], q["y"]),
                     heading=q["psi"], extra=(steer,),
                     label="the bicycle seen from above (rear wheel, frame, steered front "
                           "wheel), the path of its rear contact point")
