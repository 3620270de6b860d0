"""Motion you can watch: gm.animate draws the catalogue's bodies where the simulation puts
them (artist data read back and checked against the run and against the geometry of the
body), and writes GIF files."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.examples.kinematics import euler_matrix
from geomech.numeric.shapes import BodyShape, ShapeTrack, body_shape

pytest.importorskip("matplotlib")
pytestmark = pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")


@pytest.fixture(scope="module")
def ball_run():
    B = gm.examples.chaplygin_ball(m=1, R=sp.Rational(3, 2), I1=1, I2=2, I3=3)
    x0 = {"x": 0, "y": 0, "theta": 1.0, "phi": 0.2, "psi": 0.0,
          "thetadot": 0.3, "phidot": 0.8, "psidot": 0.5}
    return gm.simulate(B, x0, (0, 3), implicit=True, t_eval=np.linspace(0, 3, 25),
                       rtol=1e-9, atol=1e-10)


def test_result_knows_its_system_and_shape(ball_run):
    assert ball_run.system.name == "chaplygin_ball"
    shape = ball_run.shape
    assert shape.kind == "ball" and shape.size == (sp.Rational(3, 2),)   # read off (5.9)


def test_frames_follow_the_simulated_path(ball_run):
    anim = gm.animate(ball_run, frames=None)            # one frame per computed sample
    assert anim.frames == len(ball_run.t) == len(list(anim.animation.new_frame_seq()))
    for k in (0, 7, 24):
        anim.draw(k)
        x, y = anim.marker.get_data()
        assert np.allclose([x[0], y[0]], [ball_run["x"][k], ball_run["y"][k]], atol=1e-12)
        tx, ty = anim.trail.get_data()
        assert len(tx) == k + 1 and np.allclose(tx, ball_run["x"][:k + 1])
        rim = np.column_stack(anim.body[0].get_data())   # the silhouette: radius R about (x, y)
        assert np.allclose(np.hypot(rim[:, 0] - x[0], rim[:, 1] - y[0]), 1.5, atol=1e-12)
        for line in anim.body[1:]:                       # great circles lie inside it
            pts = np.column_stack(line.get_data())
            pts = pts[np.isfinite(pts).all(axis=1)]
            assert len(pts) and np.all(np.hypot(pts[:, 0] - x[0], pts[:, 1] - y[0]) <= 1.5 + 1e-9)


def test_ball_great_circles_turn_with_the_euler_angles(ball_run):
    """The drawn great circle of the body plane e1-e2, at frame k, is Q^T of the body circle:
    its points satisfy (p - c) . e3 = 0 for the body axis e3 = third row of Q (5.5)."""
    anim = gm.animate(ball_run, frames=None)
    k = 11
    anim.draw(k)
    th, ph, ps = (ball_run[n][k] for n in ("theta", "phi", "psi"))
    Q = np.array(euler_matrix(th, ph, ps).evalf(), dtype=float)
    e1, e2 = Q[0], Q[1]                                  # body axes in the fixed frame
    pts = np.column_stack(anim.body[1].get_data())       # the circle in the e1-e2 plane
    pts = pts[np.isfinite(pts).all(axis=1)] - [ball_run["x"][k], ball_run["y"][k]]
    # (u, v) = (p.e1, p.e2) in the plane of the circle: horizontal components only, so
    # solve for the in-plane coordinates from the top view: p = 1.5 (cos s e1 + sin s e2)
    s = np.linspace(0, 2 * np.pi, 721)
    full = 1.5 * (np.outer(np.cos(s), e1) + np.outer(np.sin(s), e2))
    visible = full[full[:, 2] >= 0][:, :2]
    dist = [np.min(np.hypot(*(visible - p).T)) for p in pts]
    assert max(dist) < 0.02


def test_disk_rim_projects_to_an_ellipse_of_its_tilt():
    D = gm.examples.rolling_disk(m=1, a=1, A=sp.Rational(1, 4), C=sp.Rational(1, 2), g=1)
    res = gm.simulate(D, {"x": 0, "y": 0, "theta": 1.1, "psi": 0, "phi": 0, "thetadot": 0,
                          "psidot": 0.6, "phidot": 1.5}, (0, 2), t_eval=np.linspace(0, 2, 9))
    anim = gm.animate(res, frames=None)
    for k in range(9):
        anim.draw(k)
        rim = np.column_stack(anim.body[0].get_data())
        r = np.hypot(rim[:, 0] - res["x"][k], rim[:, 1] - res["y"][k])
        # a circle of radius a whose normal makes the angle theta with the vertical:
        # semi-axes a and a|cos(theta)| from above
        assert abs(r.max() - 1.0) < 2e-3 and abs(r.min() - abs(np.cos(res["theta"][k]))) < 2e-3


def test_sleigh_blade_points_along_the_heading():
    S = gm.examples.chaplygin_sleigh(m=1, I=2, a=sp.Rational(1, 2))
    res = gm.simulate(S, {"x": 0, "y": 0, "phi": 0, "xdot": 0.3, "phidot": 1.0}, (0, 1.2),
                      t_eval=np.linspace(0, 1.2, 11))
    anim = gm.animate(res, frames=None)
    for k in range(11):
        anim.draw(k)
        bx, by = anim.body[1].get_data()               # the blade segment
        d = np.array([bx[1] - bx[0], by[1] - by[0]])
        h = res["phi"][k]
        assert abs(d @ [-np.sin(h), np.cos(h)]) < 1e-12 * np.linalg.norm(d) + 1e-15
        assert np.allclose([(bx[0] + bx[1]) / 2, (by[0] + by[1]) / 2],
                           [res["x"][k], res["y"][k]], atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.tuples(*[st.floats(0.2, 3.0)] * 3), st.tuples(*[st.floats(-3.0, 3.0)] * 3))
def test_ellipsoid_shadow_holds_the_whole_body(axes, angles):
    """Every point of the ellipsoid, seen from above, lies in the drawn outline, and the
    outline touches the body's extreme points (its width in x equals theirs)."""
    th, ph, ps = sp.symbols("theta phi psi")
    shape = BodyShape("ellipsoid", size=axes, position=(0, 0, 0),
                      rotation=euler_matrix(th, ph, ps).T)
    track = ShapeTrack(shape, (th, ph, ps), {}, [angles])
    outline = track.curves(0)[0]
    Q = np.array(euler_matrix(*angles).evalf(), dtype=float)
    u = np.random.default_rng(1).normal(size=(4000, 3))
    body = (u / np.linalg.norm(u, axis=1)[:, None]) * axes @ Q   # Q^T (a_i u_i), rows
    from matplotlib.path import Path

    # the outline is a 72-gon inscribed in the shadow: scaled by 1/cos(pi/72) about the
    # centre it holds the shadow (an affine image of a circle and its polygons)
    grown = outline / np.cos(np.pi / (len(outline) - 1)) * (1 + 1e-9)
    assert Path(grown).contains_points(body[:, :2]).all()
    assert abs(np.ptp(outline[:, 0]) - np.ptp(body[:, 0])) < 0.02 * max(axes)


def test_gif_is_written_with_its_frames(ball_run, tmp_path):
    from PIL import Image

    anim = gm.animate(ball_run, frames=6, size=(2.5, 2.5))
    path = anim.save(str(tmp_path / "ball.gif"), dpi=40)
    with Image.open(path) as im:
        assert im.format == "GIF" and im.n_frames == 6


def test_mp4_needs_ffmpeg(ball_run, tmp_path):
    from matplotlib import animation

    anim = gm.animate(ball_run, frames=4, size=(2, 2))
    if animation.writers.is_available("ffmpeg"):
        path = anim.save(str(tmp_path / "ball.mp4"), dpi=40)
        assert (tmp_path / "ball.mp4").stat().st_size > 0 and path.endswith(".mp4")
    else:
        with pytest.raises(ValueError, match="ffmpeg"):
            anim.save(str(tmp_path / "ball.mp4"))


def test_bad_input_is_named(ball_run):
    with pytest.raises(TypeError, match="SimulationResult"):
        gm.animate([1, 2, 3])
    with pytest.raises(ValueError, match="frames"):
        gm.animate(ball_run, frames=1)
    with pytest.raises(ValueError, match="gif"):
        gm.animate(ball_run, frames=3).save("motion.avi")
    M = gm.Manifold("M", "p q")
    p, q = M.coords
    res = gm.simulate(M.vector_field([q, -p]), {"p": 1, "q": 0}, 1.0)
    assert res.system is None and res.shape is None
    with pytest.raises(ValueError, match="no body to draw"):
        gm.animate(res)


@pytest.mark.parametrize("names", [
    ["chaplygin_sleigh", "rolling_disk", "snakeboard", "particle_zdot_y_xdot", "suslov"],
    pytest.param(None, marks=pytest.mark.slow)])
def test_every_catalogue_system_with_a_plane_has_a_shape(names):
    for name in names or gm.examples.list():
        S = gm.examples.get(name)
        coords = {c.name for c in getattr(S, "manifold", S).coords} if hasattr(
            S, "manifold") else set()
        shape = body_shape(S)
        if {"x", "y"} <= coords or {"x1", "x2"} <= coords:
            assert shape is not None, name
        if shape is not None and shape.kind != "point":
            assert shape.label, name


@pytest.mark.slow
def test_bicycle_is_drawn_with_its_wheel_base_and_steer():
    """Whipple bicycle (Meijaard et al. 2007, Table 1): the frame joins the rear contact to
    the front one, a wheel base w ahead along the yaw; the front wheel is turned on the ground
    by arctan(tan(delta) cos(lambda)) (the steer axis tilted by lambda)."""
    B = gm.examples.whipple_bicycle()
    shape = body_shape(B)
    params = B.numeric_defaults[0]
    values = {p.name: float(v) for p, v in params.items()}
    coords = B.phase_space.coords
    state = {c.name: 0.0 for c in coords}
    state.update(x=1.0, y=2.0, psi=0.3, delta=0.2)
    track = ShapeTrack(shape, coords, params, [[state[c.name] for c in coords]])
    rear, frame, front = track.curves(0)
    w, lam = values["w"], values["lam"]
    ahead = np.array([1.0 + w * np.cos(0.3), 2.0 + w * np.sin(0.3)])
    assert np.allclose(frame, [[1.0, 2.0], ahead], atol=1e-12)
    assert np.allclose(np.linalg.norm(rear[1] - rear[0]), 2 * values["rR"])
    d = front[1] - front[0]
    assert np.allclose(front.mean(axis=0), ahead, atol=1e-12)
    assert abs(np.arctan2(d[1], d[0]) - (0.3 + np.arctan(np.tan(0.2) * np.cos(lam)))) < 1e-12
