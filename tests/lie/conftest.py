"""Systems of the papers (frames of constraint distributions) and hypothesis strategies."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import strategies as st

from geomech.core.manifold import Manifold

c, s = sp.cos, sp.sin


# -- systems of the papers -----------------------------------------------------------------
def sleigh_frame():
    """B2 (3.15): tau1 = cos(phi) d/dx + sin(phi) d/dy, tau2 = d/dphi, a = -sin d/dx + cos d/dy."""
    N = Manifold("N_sleigh", "x y phi", parameters="m I a")
    x, y, phi = N.coords
    tau1 = N.vector_field([c(phi), s(phi), 0])
    tau2 = N.vector_field([0, 0, 1])
    a_field = N.vector_field([-s(phi), c(phi), 0])
    return N, tau1, tau2, a_field


def ball_frames():
    """B5: N = R^2 x SO(3) in (x, y, theta, phi, psi); E-frame (4.30), so(3) fields u_i and
    the rubber-ball (no slip, no spin) fields E_x - a d/dy, E_y + a d/dx on the plane z = a."""
    N = Manifold("N_ball", "x y theta phi psi", parameters="a")
    x, y, th, ph, ps = N.coords
    a = N.parameters[0]
    Ex = N.vector_field([0, 0, c(ps), s(ps) / s(th), -c(th) * s(ps) / s(th)])
    Ey = N.vector_field([0, 0, s(ps), -c(ps) / s(th), c(th) * c(ps) / s(th)])
    Ez = N.vector_field([0, 0, 0, 0, 1])
    u1 = N.vector_field([0, 0, c(ph), -c(th) * s(ph) / s(th), s(ph) / s(th)])
    u2 = N.vector_field([0, 0, -s(ph), -c(th) * c(ph) / s(th), c(ph) / s(th)])
    u3 = N.vector_field([0, 0, 0, 1, 0])
    dx, dy = N.coordinate_fields()[:2]
    rubber = (Ex - a * dy, Ey + a * dx)
    return N, (Ex, Ey, Ez), (u1, u2, u3), rubber


def rubber_ball_constraints(N):
    """B5 (4.30)-(4.31) on the plane (n = e_z): omega = (1/a) n x rdot and (omega, n) = 0,
    as Pfaffian 1-forms in (x, y, theta, phi, psi)."""
    x, y, th, ph, ps = N.coords
    a = N.parameters[0]
    # omega_x = cos(psi) thetadot + sin(theta) sin(psi) phidot, etc.
    wx = [0, 0, c(ps), s(th) * s(ps), 0]
    wy = [0, 0, s(ps), -s(th) * c(ps), 0]
    wz = [0, 0, 0, c(th), 1]
    # omega = (1/a) e_z x rdot = (-ydot/a, xdot/a, 0)
    f1 = [wx[i] + (1 / a if i == 1 else 0) for i in range(5)]
    f2 = [wy[i] - (1 / a if i == 0 else 0) for i in range(5)]
    return [N.one_form(f1), N.one_form(f2), N.one_form(wz)]


def chaplygin_ball_b3():
    """B3 with r = -R gamma (balanced ball): Euler angles (4.12), kinematics of B3 and
    rdot_P = Q^T rdot; one field per body angular velocity component."""
    N = Manifold("N_cball", "x y theta phi psi", parameters="R")
    x, y, th, ph, ps = N.coords
    R = N.parameters[0]
    Q = sp.Matrix([
        [c(ph) * c(ps) - c(th) * s(ps) * s(ph), c(ph) * s(ps) + c(th) * c(ps) * s(ph),
         s(ph) * s(th)],
        [-s(ph) * c(ps) - c(th) * s(ps) * c(ph), -s(ph) * s(ps) + c(th) * c(ps) * c(ph),
         c(ph) * s(th)],
        [s(th) * s(ps), -s(th) * c(ps), c(th)]])
    gamma = Q[:, 2]
    fields = []
    for k in range(3):
        w = sp.zeros(3, 1)
        w[k] = 1
        w1, w2, w3 = w
        thd = w1 * c(ph) - w2 * s(ph)
        phd = w3 - c(th) / s(th) * (w1 * s(ph) + w2 * c(ph))
        psd = (w1 * s(ph) + w2 * c(ph)) / s(th)
        rd = Q.T * (-R * gamma.cross(w))  # constraint v + omega x r = 0 used
        fields.append(N.vector_field([rd[0], rd[1], thd, phd, psd]))
    return N, fields


def rolling_disk_frame():
    """seeds_001_004 E1.2: V_theta, V_psi, V_phi on q = (x, y, theta, psi, phi)."""
    N = Manifold("N_disk", "x y theta psi phi", parameters="a")
    x, y, th, ps, ph = N.coords
    a = N.parameters[0]
    Vth = N.vector_field([a * s(ps) * s(th), -a * c(ps) * s(th), 1, 0, 0])
    Vps = N.vector_field([-a * c(ps) * c(th), -a * s(ps) * c(th), 0, 1, 0])
    Vph = N.vector_field([-a * c(ps), -a * s(ps), 0, 0, 1])
    return N, (Vth, Vps, Vph)


def heisenberg():
    M = Manifold("H3", "x y z")
    x, y, z = M.coords
    return M, M.vector_field([1, 0, -y / 2]), M.vector_field([0, 1, x / 2])


@pytest.fixture
def sleigh():
    return sleigh_frame()


@pytest.fixture
def ball():
    return ball_frames()


@pytest.fixture
def disk():
    return rolling_disk_frame()


# -- hypothesis strategies ----------------------------------------------------------------------
_CHARTS = {n: Manifold(f"Rn{n}", [f"x{i}" for i in range(n)]) for n in range(2, 5)}


def chart(n: int) -> Manifold:
    return _CHARTS[n]


@st.composite
def functions(draw, n: int, trig: bool = True, max_terms: int = 2):
    xs = chart(n).coords
    terms = []
    for _ in range(draw(st.integers(0, max_terms))):
        t = draw(st.integers(-3, 3).filter(bool))
        t *= xs[draw(st.integers(0, n - 1))] ** draw(st.integers(0, 2))
        t *= xs[draw(st.integers(0, n - 1))] ** draw(st.integers(0, 1))
        if trig and draw(st.booleans()):
            t *= draw(st.sampled_from([sp.sin, sp.cos]))(xs[draw(st.integers(0, n - 1))])
        terms.append(t)
    return sp.Add(*terms)


@st.composite
def fields(draw, n: int, trig: bool = True):
    return chart(n).vector_field([draw(functions(n, trig)) for _ in range(n)])
