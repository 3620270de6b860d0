r"""Motion you can watch: :func:`animate` draws the simulated body -- a rolling ball, disk or
ellipsoid, a sleigh, a board, or a marker -- moving along its computed path, seen from above
(a matplotlib :class:`~matplotlib.animation.FuncAnimation`, saved as GIF with Pillow, or MP4
where ffmpeg is installed).

The result of :func:`~geomech.numeric.simulate.simulate` knows its system, and through it
the body's shape (:attr:`~geomech.numeric.result.SimulationResult.shape`, registered by the
catalogue; :mod:`geomech.numeric.shapes`).

>>> import geomech as gm
>>> S = gm.examples.skate()
>>> res = gm.simulate(S, {"x": 0, "y": 0, "phi": 0, "xdot": 1.0, "phidot": 1.0}, 1.2)
>>> anim = animate(res, frames=30)
>>> anim.frames, anim.shape.kind
(30, 'blade')
"""

from __future__ import annotations

import base64
import os
import tempfile

import numpy as np

from .result import figure_axes
from .shapes import BodyShape, ShapeTrack

__all__ = ["animate", "MotionAnimation"]

_COLOURS = ("0.15", "tab:red", "tab:blue", "tab:green", "tab:orange")


class MotionAnimation:
    """A body moving along a simulated path (built by :func:`animate`).

    Attributes
    ----------
    animation : matplotlib.animation.FuncAnimation
    figure : matplotlib.figure.Figure
    times : ndarray, shape (frames,)
        The time of each frame.
    states : ndarray, shape (frames, n)
        The state drawn in each frame.
    track : ShapeTrack
        The shape placed at those states (``track.trace``: the path of the traced point).
    body, trail, marker
        The artists: the body's curves (``Line2D``), the path drawn so far, the traced point.
    """

    def __init__(self, track: ShapeTrack, times, states, fps: int, trail: bool, size,
                 title: str | None):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.track, self.times, self.states, self.fps = track, times, states, fps
        self.shape: BodyShape = track.shape
        fig, axs = figure_axes(size=size)
        FigureCanvasAgg(fig)
        ax = axs[0, 0]
        lo, hi = track.extent()
        pad = 0.06 * max(float(np.max(hi - lo)), 1e-6)
        ax.set_xlim(lo[0] - pad, hi[0] + pad)
        ax.set_ylim(lo[1] - pad, hi[1] + pad)
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.plot(track.trace[:, 0], track.trace[:, 1], color="0.85", lw=0.8)
        self.trail = ax.plot([], [], color="tab:purple", lw=1.4)[0] if trail else None
        n = len(track.curves(0))
        self.body = [ax.plot([], [], color=_COLOURS[k % len(_COLOURS)],
                             lw=2.0 if k == 0 else 1.3)[0] for k in range(n)]
        self.marker = ax.plot([], [], "o", color="tab:purple", ms=4)[0]
        self.clock = ax.set_title(title or "")
        self.title = title or ""
        self.figure = fig
        self._animation = None

    @property
    def animation(self):
        """The matplotlib ``FuncAnimation`` (made on first use: one that is never rendered
        makes matplotlib warn when it is deleted)."""
        if self._animation is None:
            from matplotlib.animation import FuncAnimation

            self._animation = FuncAnimation(self.figure, self.draw, frames=self.frames,
                                            interval=1000.0 / self.fps, blit=False,
                                            repeat=True)
        return self._animation

    @property
    def frames(self) -> int:
        return len(self.times)

    def draw(self, k: int) -> list:
        """Draw frame ``k`` (the animation's update function); returns the artists."""
        for line, curve in zip(self.body, self.track.curves(k)):
            line.set_data(curve[:, 0], curve[:, 1])
        x, y = self.track.trace[k]
        self.marker.set_data([x], [y])
        artists = [*self.body, self.marker]
        if self.trail is not None:
            self.trail.set_data(self.track.trace[:k + 1, 0], self.track.trace[:k + 1, 1])
            artists.append(self.trail)
        self.clock.set_text(f"{self.title}  t = {self.times[k]:.2f}".strip())
        return artists

    def save(self, path: str, fps: int | None = None, dpi: int = 80) -> str:
        """Write the animation to ``path``: ``.gif`` (Pillow) or ``.mp4`` (ffmpeg, when it
        is installed; a clear error otherwise).  Returns ``path``."""
        from matplotlib import animation as mpl_animation

        ext = os.path.splitext(path)[1].lower()
        fps = fps or self.fps
        if ext == ".gif":
            writer = mpl_animation.PillowWriter(fps=fps)
        elif ext == ".mp4":
            if not mpl_animation.writers.is_available("ffmpeg"):
                raise ValueError("saving .mp4 needs ffmpeg, which is not installed; save a "
                                 ".gif instead (Pillow)")
            writer = mpl_animation.FFMpegWriter(fps=fps)
        else:
            raise ValueError(f"cannot save an animation as {ext or 'a file without suffix'!r}; "
                             "use .gif (Pillow) or .mp4 (ffmpeg)")
        self.animation.save(path, writer=writer, dpi=dpi)
        return path

    def gif(self, fps: int | None = None, dpi: int = 60) -> bytes:
        """The animation as GIF bytes."""
        with tempfile.TemporaryDirectory() as tmp:
            path = self.save(os.path.join(tmp, "motion.gif"), fps=fps, dpi=dpi)
            with open(path, "rb") as fh:
                return fh.read()

    def _repr_html_(self) -> str:
        data = base64.b64encode(self.gif()).decode("ascii")
        return (f'<img src="data:image/gif;base64,{data}" alt="{self.shape.label or "motion"}'
                f' (animation, {self.frames} frames)">')

    def __repr__(self) -> str:
        return (f"MotionAnimation({self.shape.kind}, {self.frames} frames, "
                f"t in [{self.times[0]:g}, {self.times[-1]:g}])")


def _frame_states(result, frames: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Times and states of the frames: the run's own samples when ``frames`` is ``None`` or
    their number, else ``frames`` equally spaced times (dense output or linear
    interpolation)."""
    t = np.asarray(result.t, dtype=float)
    Y = np.asarray(result.states, dtype=float)
    if frames is None or frames == len(t):
        return t, Y
    if not isinstance(frames, (int, np.integer)) or isinstance(frames, bool) or frames < 2:
        raise ValueError(f"frames must be an integer >= 2, got {frames!r}")
    times = np.linspace(t[0], t[-1], int(frames))
    sol = getattr(result.solution, "sol", None)
    if callable(sol):
        return times, np.asarray(sol(times), dtype=float).T
    return times, np.column_stack([np.interp(times, t, Y[:, j]) for j in range(Y.shape[1])])


def animate(result, frames: int | None = 120, fps: int = 20, shape: BodyShape | None = None,
            trail: bool = True, size=(5.0, 5.0), title: str | None = None) -> MotionAnimation:
    r"""Animate a simulated motion: the body drawn from above, moving along its path.

    Parameters
    ----------
    result : SimulationResult
        A run of :func:`~geomech.numeric.simulate.simulate` (it knows its system and so the
        body's shape).
    frames : int or None
        Number of frames, at equally spaced times (``None``: one per computed sample).
    fps : int
        Frames per second of the saved file.
    shape : BodyShape, optional
        The drawing (default ``result.shape``: the catalogue's, else a marker at ``(x, y)``).
    trail : bool
        Draw the path travelled so far.
    size : (float, float)
        Figure size in inches.
    title : str, optional
        Title, followed by the time of the frame.

    Returns
    -------
    MotionAnimation
        ``.save("motion.gif")`` (or ``.mp4``), ``.animation`` (the ``FuncAnimation``), and in
        Jupyter it shows itself as an animated GIF.

    Examples
    --------
    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh(m=1, I=2, a=0.5)
    >>> res = gm.simulate(S, {"x": 0, "y": 0, "phi": 0, "xdot": 0.3, "phidot": 1.0}, 1.2)
    >>> anim = gm.animate(res, frames=20)
    >>> x, y = anim.draw(19)[-2].get_data()        # the traced point at the last frame
    >>> bool(np.allclose([x[0], y[0]], [res["x"][-1], res["y"][-1]]))
    True
    """
    states_of = getattr(result, "states", None)
    if states_of is None or not hasattr(result, "coords"):
        raise TypeError(f"animate expects a SimulationResult, got {type(result).__name__}")
    shape = shape if shape is not None else result.shape
    if shape is None:
        raise ValueError("this result has no body to draw: its system has no registered shape "
                         "and no coordinates (x, y); pass shape=BodyShape(...)")
    if not isinstance(shape, BodyShape):
        raise TypeError(f"shape must be a BodyShape, got {type(shape).__name__}")
    if not isinstance(fps, (int, np.integer)) or isinstance(fps, bool) or fps < 1:
        raise ValueError(f"fps must be a positive integer, got {fps!r}")
    times, states = _frame_states(result, frames)
    track = ShapeTrack(shape, result.coords, result.parameters, states)
    return MotionAnimation(track, times, states, int(fps), trail, size, title)
