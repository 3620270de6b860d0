r"""What a moving body looks like: :class:`BodyShape` (a kind, its size, and where the body
is -- expressions of the configuration), its placement along a simulated run
(:class:`ShapeTrack`) and the registry through which a catalogue names the shape of its
systems (:func:`register_shape`, :func:`body_shape`).

A shape is drawn from above (the plane :math:`z = 0` of the fixed frame): a body with an
orientation (``rotation``: the columns are the body axes in the fixed frame, expressions of
the coordinates) has its body-fixed curves -- great circles of a ball, the rim and spokes of a
disk, the principal sections of an ellipsoid -- turned and moved with it, the half above
its centre drawn (so rolling shows as turning circles); a planar body (sleigh, skate,
board) is a polygon turned by its ``heading``.  ``trace`` is the point whose path is drawn
(the contact point, or the centre).

>>> import sympy as sp
>>> x, y = sp.symbols("x y")
>>> shape = BodyShape("ball", size=(1,), position=(x, y, 1))
>>> track = ShapeTrack(shape, (x, y), {}, [[0.0, 0.0], [2.0, 1.0]])
>>> c = track.curves(1)[0]                      # the silhouette: radius 1 about (2, 1)
>>> bool(abs(np.hypot(c[:, 0] - 2, c[:, 1] - 1) - 1).max() < 1e-12)
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy as sp

from geomech.core.parse import as_expr

from .functions import CompiledFunction

__all__ = ["BodyShape", "ShapeTrack", "KINDS", "register_shape", "body_shape", "SHAPES"]

#: The kinds of shapes, and the meaning of their ``size``.
KINDS = {
    "ball": "radius",
    "disk": "radius (the rim lies in the plane of the first two body axes)",
    "ellipsoid": "three semi-axes along the body axes",
    "blade": "length (a sleigh or skate: the blade at the traced point, along the heading)",
    "board": "length (a board along its heading, wheels turned by the extra angles)",
    "bicycle": "wheel base, rear and front wheel radii (the rear contact point traced, the "
               "front wheel turned by the extra angle: the steer angle on the ground)",
    "point": "none (a marker: the generic shape)",
}

_CIRCLE = np.linspace(0.0, 2.0 * np.pi, 73)


@dataclass(frozen=True)
class BodyShape:
    """The look of a body and its placement, as expressions of the configuration.

    Attributes
    ----------
    kind : str
        One of :data:`KINDS`.
    size : tuple
        Numbers or expressions of the parameters (see :data:`KINDS`); empty: scaled to the
        path (about 6 % of its extent).
    position : tuple
        ``(X, Y)`` or ``(X, Y, Z)``: the body's reference point (centre of a ball, disk or
        ellipsoid; the blade point of a sleigh; the centre of a board).
    rotation : sympy Matrix or None
        3x3, columns the body axes in the fixed frame (bodies turning in space).
    heading : expression or None
        Angle of a planar body's axis in the plane.
    trace : tuple or None
        ``(X, Y)`` of the point whose path is drawn (default ``position[:2]``).
    extra : tuple
        Further angles (the wheel angles of a board, relative to its heading).
    label : str
        What the drawing shows, in words (alt text of figures).
    """

    kind: str
    size: tuple = ()
    position: tuple = ()
    rotation: object = None
    heading: object = None
    trace: tuple | None = None
    extra: tuple = ()
    label: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown shape kind {self.kind!r}; one of {', '.join(KINDS)}")
        if len(self.position) not in (2, 3):
            raise ValueError(f"position of a {self.kind} needs 2 or 3 expressions, got "
                             f"{len(self.position)}")
        if self.rotation is not None and sp.Matrix(self.rotation).shape != (3, 3):
            raise ValueError("rotation must be a 3x3 matrix (columns: the body axes)")

    @property
    def traced(self) -> tuple:
        """``(X, Y)`` of the traced point."""
        return tuple(self.trace) if self.trace is not None else tuple(self.position[:2])

    def expressions(self) -> list:
        """Every expression of the shape, in the order :class:`ShapeTrack` evaluates them:
        traced point (2), position (3), rotation (9), heading, extra angles, size."""
        pos = list(self.position) + [0] * (3 - len(self.position))
        rot = list(sp.Matrix(self.rotation)) if self.rotation is not None else [
            1, 0, 0, 0, 1, 0, 0, 0, 1]
        head = [self.heading if self.heading is not None else 0]
        return [*self.traced, *pos, *rot, *head, *self.extra, *self.size]


class ShapeTrack:
    """A shape placed along states of a run: its curves in the plane at each state.

    ``ShapeTrack(shape, coords, parameters, states)``: ``states`` of shape ``(T, n)`` in the
    order of ``coords`` (phase-space coordinates), ``parameters`` the values of the run.
    ``trace`` is the ``(T, 2)`` path of the traced point, ``centre`` the ``(T, 3)`` position,
    ``scale`` the size used.
    """

    def __init__(self, shape: BodyShape, coords: Sequence[sp.Symbol], parameters: Mapping,
                 states):
        self.shape = shape
        states = np.atleast_2d(np.asarray(states, dtype=float))
        exprs = [as_expr(e) for e in shape.expressions()]
        f = CompiledFunction(exprs, coords, parameters, what=f"the {shape.kind}'s placement")
        vals = np.asarray(f.batch(states), dtype=float).reshape(len(states), len(exprs))
        self.trace = vals[:, 0:2]
        self.centre = vals[:, 2:5]
        self.rotation = vals[:, 5:14].reshape(-1, 3, 3)
        self.heading = vals[:, 14]
        k = 15 + len(shape.extra)
        self.extra = vals[:, 15:k]
        size = vals[0, k:]
        span = np.ptp(self.trace, axis=0).max() if len(states) > 1 else 0.0
        self.scale = size if len(size) else np.array([max(0.06 * span, 0.05)])

    def __len__(self) -> int:
        return len(self.trace)

    def curves(self, i: int) -> list[np.ndarray]:
        """The polylines (each ``(k, 2)``, ``nan`` rows break a line) of the body at state
        ``i``; their number depends only on the kind."""
        draw = _DRAW[self.shape.kind]
        return draw(self, i)

    def extent(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)`` corners of a box holding the path and the body at every
        state."""
        pts = np.vstack([self.trace] + [np.vstack([c for c in self.curves(i)])
                                        for i in _spread(len(self), 12)])
        pts = pts[np.isfinite(pts).all(axis=1)]
        return pts.min(axis=0), pts.max(axis=0)


def _spread(n: int, k: int) -> list[int]:
    return sorted(set(np.linspace(0, n - 1, min(n, k)).round().astype(int).tolist()))


def _placed(track: ShapeTrack, i: int, body: np.ndarray) -> np.ndarray:
    """Body points (k, 3) moved to the fixed frame, the half below the centre hidden."""
    rel = body @ track.rotation[i].T
    out = track.centre[i][:2] + rel[:, :2]
    out[rel[:, 2] < -1e-9] = np.nan
    return out


def _great_circles(radii) -> list[np.ndarray]:
    a, b, c = radii
    co, si = np.cos(_CIRCLE), np.sin(_CIRCLE)
    z = np.zeros_like(co)
    return [np.column_stack([a * co, b * si, z]), np.column_stack([z, b * co, c * si]),
            np.column_stack([a * co, z, c * si])]


def _ball(track: ShapeTrack, i: int) -> list[np.ndarray]:
    r = float(track.scale[0])
    c = track.centre[i]
    rim = np.column_stack([c[0] + r * np.cos(_CIRCLE), c[1] + r * np.sin(_CIRCLE)])
    return [rim] + [_placed(track, i, g) for g in _great_circles((r, r, r))]


def _disk(track: ShapeTrack, i: int) -> list[np.ndarray]:
    r = float(track.scale[0])
    rim = np.column_stack([r * np.cos(_CIRCLE), r * np.sin(_CIRCLE), np.zeros_like(_CIRCLE)])
    spokes = np.array([[r, 0, 0], [-r, 0, 0], [np.nan] * 3, [0, r, 0], [0, -r, 0]])
    R = track.rotation[i]
    c = track.centre[i][:2]
    return [c + (rim @ R.T)[:, :2], c + (spokes @ R.T)[:, :2]]


def _ellipsoid(track: ShapeTrack, i: int) -> list[np.ndarray]:
    axes = np.resize(track.scale.astype(float), 3)
    R = track.rotation[i]
    A = R @ np.diag(axes ** -2.0) @ R.T          # x^T A x = 1 in the fixed frame
    S = A[:2, :2] - np.outer(A[:2, 2], A[2, :2]) / A[2, 2]   # its shadow on the plane
    w, V = np.linalg.eigh(S)
    unit = np.column_stack([np.cos(_CIRCLE), np.sin(_CIRCLE)])
    shadow = track.centre[i][:2] + (unit / np.sqrt(w)) @ V.T
    return [shadow] + [_placed(track, i, g) for g in _great_circles(axes)]


def _planar(track: ShapeTrack, i: int, pts: np.ndarray, angle: float | None = None):
    h = track.heading[i] if angle is None else angle
    rot = np.array([[np.cos(h), -np.sin(h)], [np.sin(h), np.cos(h)]])
    return track.centre[i][:2] + pts @ rot.T


def _blade(track: ShapeTrack, i: int) -> list[np.ndarray]:
    L = float(track.scale[0])
    body = np.array([[-0.35, -0.3], [1.0, 0.0], [-0.35, 0.3], [-0.35, -0.3]]) * L
    blade = np.array([[-0.3, 0.0], [0.3, 0.0]]) * L
    return [_planar(track, i, body), _planar(track, i, blade)]


def _board(track: ShapeTrack, i: int) -> list[np.ndarray]:
    L = float(track.scale[0])
    board = np.array([[-0.5, -0.12], [0.5, -0.12], [0.5, 0.12], [-0.5, 0.12], [-0.5, -0.12]])
    out = [_planar(track, i, board * L)]
    h = track.heading[i]
    for k, side in zip(range(track.extra.shape[1]), (0.5, -0.5)):
        axle = np.array([[0.0, -0.2], [0.0, 0.2]]) * L
        rot = np.array([[np.cos(h), -np.sin(h)], [np.sin(h), np.cos(h)]])
        at = track.centre[i][:2] + rot @ np.array([side * L, 0.0])
        a = h + track.extra[i, k]
        out.append(at + axle @ np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]))
    return out


def _bicycle(track: ShapeTrack, i: int) -> list[np.ndarray]:
    """From above: the rear wheel (a segment of its diameter along the heading at the traced
    point), the frame to the front contact, the front wheel turned by the steer angle."""
    sizes = [float(v) for v in track.scale]
    w = sizes[0]
    r_rear = sizes[1] if len(sizes) > 1 else 0.3 * w
    r_front = sizes[2] if len(sizes) > 2 else r_rear
    rear = _planar(track, i, np.array([[-r_rear, 0.0], [r_rear, 0.0]]))
    frame = _planar(track, i, np.array([[0.0, 0.0], [w, 0.0]]))
    h = track.heading[i]
    front_at = track.centre[i][:2] + w * np.array([np.cos(h), np.sin(h)])
    a = h + (track.extra[i, 0] if track.extra.shape[1] else 0.0)
    front = front_at + np.array([[-r_front, 0.0], [r_front, 0.0]]) @ np.array(
        [[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
    return [rear, frame, front]


def _point(track: ShapeTrack, i: int) -> list[np.ndarray]:
    r = float(track.scale[0]) * 0.5
    c = track.centre[i][:2]
    return [np.column_stack([c[0] + r * np.cos(_CIRCLE), c[1] + r * np.sin(_CIRCLE)])]


_DRAW: dict[str, Callable] = {"ball": _ball, "disk": _disk, "ellipsoid": _ellipsoid,
                              "blade": _blade, "board": _board, "bicycle": _bicycle,
                              "point": _point}

#: Shape readers by system name: ``reader(system) -> BodyShape | None`` (filled by the
#: catalogue with :func:`register_shape`).
SHAPES: dict[str, Callable] = {}


def register_shape(name: str) -> Callable:
    """Decorator registering ``reader(system) -> BodyShape | None`` as the shape of the
    systems named ``name`` (a catalogue entry)."""
    def deco(reader: Callable) -> Callable:
        if name in SHAPES:
            raise ValueError(f"a shape for {name!r} is already registered")
        SHAPES[name] = reader
        return reader
    return deco


def body_shape(system) -> BodyShape | None:
    """The shape of ``system``: the one registered under its name when its reader recognises
    it, else a marker at the coordinates ``(x, y)`` (or ``(x1, x2)``) when it has them, else
    ``None`` (nothing moves in a plane)."""
    reader = SHAPES.get(getattr(system, "name", None))
    shape = reader(system) if reader is not None else None
    if shape is not None:
        return shape
    chart = getattr(system, "manifold", None) or getattr(system, "phase_space", None)
    names = {c.name: c for c in getattr(chart, "coords", ())}
    for a, b in (("x", "y"), ("x1", "x2")):
        if a in names and b in names:
            return BodyShape("point", position=(names[a], names[b]),
                             label=f"the point ({a}, {b})")
    return None
