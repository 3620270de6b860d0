r"""The Whipple bicycle, built from bodies (:func:`whipple_bicycle`).

Four rigid bodies -- rear wheel R, rear frame B (with the rider), front frame H (fork and
handlebar) and front wheel F -- joined by hinges at the wheel axles and the steer axis, the
knife-edge wheels rolling without slipping on a horizontal plane: the benchmark of Meijaard,
Papadopoulos, Ruina & Schwab (2007), *Linearized dynamics equations for the balance and steer
of a bicycle: a benchmark and review*, Proc. R. Soc. A 463, 1955--1982 (§2, Table 1 for the
parameters, Table 2 for the eigenvalues).  The model is assembled with
``sympy.physics.mechanics`` (frames, points, rigid bodies, a ``System`` with one holonomic and
four nonholonomic constraints, :func:`whipple_bicycle_model`) and converted by
:func:`geomech.interop.sympy_mechanics.from_sympy_mechanics`: nobody writes its Lagrangian by
hand.

Coordinates as in Meijaard et al. (2007), §4: the rear contact point ``x, y``, the rear
frame's yaw ``psi``, roll ``phi`` and pitch ``thetaB`` (rotations about the z, x, y axes of the
benchmark frame: x forward, z down), the rear wheel's rotation ``thetaR``, the steer angle
``delta`` (about the steer axis, tilted back by ``lam``) and the front wheel's rotation
``thetaF``.  The pitch is the dependent coordinate of the holonomic constraint (the front
wheel touches the ground); the independent velocities are the roll, rear-wheel and steer
rates.  At the reference configuration (all angles zero) the bicycle stands upright; the
forward speed is :math:`v = -r_R\dot\theta_R`.

Parameters (Table 1): wheel base ``w``, trail ``c``, steer axis tilt ``lam``, gravity ``g``;
rear wheel ``rR, mR, IRxx, IRyy``; rear body ``xB, zB, mB, IBxx, IByy, IBzz, IBxz``; front
frame ``xH, zH, mH, IHxx, IHyy, IHzz, IHxz``; front wheel ``rF, mF, IFxx, IFyy`` -- positions in
the benchmark frame at the reference configuration (``zB, zH < 0``: above the ground), inertia
matrices :math:`\begin{pmatrix} I_{xx} & 0 & I_{xz}\\ 0 & I_{yy} & 0\\ I_{xz} & 0 &
I_{zz}\end{pmatrix}` about the mass centres; the benchmark values are the numeric defaults.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import sympy as sp

from geomech.core.zero import default_policy
from geomech.mechanics.equations.first_variation import field_jacobian_mass_form
from geomech.mechanics.system import NonholonomicSystem

from ._registry import register

if TYPE_CHECKING:   # sympy.physics.mechanics and interop load when a bicycle is built
    import sympy.physics.mechanics as me

    from geomech.mechanics.analysis.steady_motions import SteadyFamily

__all__ = ["whipple_bicycle", "whipple_bicycle_model", "benchmark_matrices",
           "BenchmarkMatrices", "parameter_symbols", "BENCHMARK_PARAMETERS",
           "DEMONSTRATION_STATE"]

_NAMES = ("w c lam g rR mR IRxx IRyy xB zB mB IBxx IByy IBzz IBxz xH zH mH IHxx IHyy IHzz "
          "IHxz rF mF IFxx IFyy").split()
_SIGNED = {"c", "zB", "zH", "IBxz", "IHxz", "xB", "xH"}

#: Table 1 of Meijaard et al. (2007): the benchmark bicycle (SI units, exact).
BENCHMARK_PARAMETERS = {
    "w": sp.Rational(102, 100), "c": sp.Rational(8, 100), "lam": sp.pi / 10,
    "g": sp.Rational(981, 100),
    "rR": sp.Rational(3, 10), "mR": 2, "IRxx": sp.Rational(603, 10000),
    "IRyy": sp.Rational(12, 100),
    "xB": sp.Rational(3, 10), "zB": sp.Rational(-9, 10), "mB": 85,
    "IBxx": sp.Rational(92, 10), "IByy": 11, "IBzz": sp.Rational(28, 10),
    "IBxz": sp.Rational(24, 10),
    "xH": sp.Rational(9, 10), "zH": sp.Rational(-7, 10), "mH": 4,
    "IHxx": sp.Rational(5892, 100000), "IHyy": sp.Rational(6, 100),
    "IHzz": sp.Rational(708, 100000), "IHxz": sp.Rational(-756, 100000),
    "rF": sp.Rational(35, 100), "mF": 3, "IFxx": sp.Rational(1405, 10000),
    "IFyy": sp.Rational(28, 100),
}


def parameter_symbols() -> dict:
    """The 26 parameters of Table 1 of Meijaard et al. (2007) as the model's symbols, by
    name: positive, except the signed ones (``c``, ``xB``, ``zB``, ``xH``, ``zH``,
    ``IBxz``, ``IHxz``: real).

    >>> parameter_symbols()["zB"].is_positive, parameter_symbols()["mB"].is_positive
    (None, True)
    """
    return {n: sp.Symbol(n, real=True) if n in _SIGNED else sp.Symbol(n, positive=True)
            for n in _NAMES}


def whipple_bicycle_model() -> me.System:
    r"""The Whipple bicycle as a ``sympy.physics.mechanics.System`` (module docstring).

    Frames: yaw, roll, pitch of the rear frame; the front frame turned by ``delta`` about
    the steer axis :math:`(\sin\lambda, 0, \cos\lambda)` of the rear frame.  Points: rear
    contact :math:`P = (x, y, 0)`, wheel centres, mass centres, the steer axis' ground point
    :math:`(w + c, 0, 0)`.  The front contact point is the wheel centre plus
    :math:`r_F\,d`, :math:`d` the unit vector of the wheel plane pointing down.
    Constraints: the front contact on the ground (holonomic, pitch dependent) and both
    wheels rolling without slipping (their contact points at rest: two nonholonomic
    constraints each, in the yaw frame).  Gravity: potential energies :math:`-m g z`
    (z points down).  Generalized speeds are the coordinate rates.

    >>> sys = whipple_bicycle_model()
    >>> len(sys.q), len(sys.holonomic_constraints), len(sys.nonholonomic_constraints)
    (8, 1, 4)
    """
    import sympy.physics.mechanics as me

    p = parameter_symbols()
    q = me.dynamicsymbols("x y psi phi thetaB thetaR delta thetaF")
    x, y, psi, phi, thB, thR, delta, thF = q
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (psi, N.z))           # yaw
    E = A.orientnew("E", "Axis", (phi, A.x))           # roll
    B = E.orientnew("B", "Axis", (thB, E.y))           # rear frame (pitch)
    R = B.orientnew("R", "Axis", (thR, B.y))           # rear wheel
    S = B.orientnew("S", "Axis", (p["lam"], B.y))      # z along the steer axis
    Hs = S.orientnew("Hs", "Axis", (delta, S.z))       # steered
    H = Hs.orientnew("H", "Axis", (-p["lam"], Hs.y))   # front frame (= B at delta = 0)
    F = H.orientnew("F", "Axis", (thF, H.y))           # front wheel
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    Rc = P.locatenew("Rc", -p["rR"] * E.z)
    Bc = Rc.locatenew("Bc", p["xB"] * B.x + (p["zB"] + p["rR"]) * B.z)
    S0 = Rc.locatenew("S0", (p["w"] + p["c"]) * B.x + p["rR"] * B.z)
    Fc = S0.locatenew("Fc", -p["c"] * H.x - p["rF"] * H.z)
    Hc = S0.locatenew("Hc", (p["xH"] - p["w"] - p["c"]) * H.x + p["zH"] * H.z)
    for pt in (P, Rc, Bc, Fc, Hc):
        pt.set_vel(N, pt.pos_from(O).dt(N))
    bodies = [
        me.RigidBody("rear_wheel", Rc, R, p["mR"], (me.inertia(B, p["IRxx"], p["IRyy"],
                                                               p["IRxx"]), Rc)),
        me.RigidBody("rear_frame", Bc, B, p["mB"], (me.inertia(
            B, p["IBxx"], p["IByy"], p["IBzz"], 0, 0, p["IBxz"]), Bc)),
        me.RigidBody("front_frame", Hc, H, p["mH"], (me.inertia(
            H, p["IHxx"], p["IHyy"], p["IHzz"], 0, 0, p["IHxz"]), Hc)),
        me.RigidBody("front_wheel", Fc, F, p["mF"], (me.inertia(H, p["IFxx"], p["IFyy"],
                                                                p["IFxx"]), Fc)),
    ]
    s = H.y.dot(N.z)
    down = (N.z - s * H.y) / sp.sqrt(1 - s**2)
    height = Fc.pos_from(P).dot(N.z) + p["rF"] * sp.sqrt(1 - s**2)
    vR = Rc.vel(N) + R.ang_vel_in(N).cross(p["rR"] * E.z)
    vF = Fc.vel(N) + F.ang_vel_in(N).cross(p["rF"] * down)
    for b in bodies:       # gravity along +z (down): V = -m g z
        b.potential_energy = -b.mass * p["g"] * b.masscenter.pos_from(O).dot(N.z)
    system = me.System(N, O)
    system.add_coordinates(x, y, psi, phi, thR, delta, thF)
    system.add_coordinates(thB, independent=False)
    u = me.dynamicsymbols("u_x u_y u_psi u_phi u_thetaR u_delta u_thetaF u_thetaB")
    system.add_speeds(u[3], u[4], u[5])
    system.add_speeds(u[0], u[1], u[2], u[6], u[7], independent=False)
    system.add_kdes(*[ui - c.diff(me.dynamicsymbols._t)
                      for ui, c in zip(u, (x, y, psi, phi, thR, delta, thF, thB))])
    system.add_bodies(*bodies)
    system.add_holonomic_constraints(height)
    system.add_nonholonomic_constraints(vR.dot(A.x), vR.dot(A.y), vF.dot(A.x), vF.dot(A.y))
    return system


@register
def whipple_bicycle() -> NonholonomicSystem:
    r"""The Whipple bicycle of Meijaard et al. (2007), built from its four bodies
    (module docstring), with the 26 symbolic parameters of their Table 1 and the benchmark
    values as numeric defaults (with :data:`DEMONSTRATION_STATE`, a push in roll at
    4.6 m/s, as the default initial state).

    Its distinguished steady motion is upright straight-ahead rolling at forward speed
    :math:`v` (``steady_motion(speed=v)``): all angles zero, :math:`\dot\theta_R =
    -v/r_R`; the linearised equations there are :func:`benchmark_matrices`.

    >>> bike = whipple_bicycle()
    >>> bike.dependent_coordinates, bike.independent_velocities
    ((thetaB,), (phidot, thetaRdot, deltadot))
    >>> bike.steady_motion(speed=5)["thetaRdot"]
    -50/3
    """
    from geomech.interop.sympy_mechanics import from_sympy_mechanics

    p = parameter_symbols()
    defaults = {p[k]: v for k, v in BENCHMARK_PARAMETERS.items()}
    return from_sympy_mechanics(
        whipple_bicycle_model(), independent=["phidot", "thetaRdot", "deltadot"],
        name="whipple_bicycle",
        description="Whipple bicycle: four rigid bodies, knife-edge wheels rolling on a "
                    "plane (Meijaard, Papadopoulos, Ruina and Schwab 2007); the pitch thetaB "
                    "is a dependent coordinate, defined by the holonomic constraint that the "
                    "front wheel touches the ground.",
        numeric_defaults=(defaults, dict(DEMONSTRATION_STATE)),
        steady=(_upright_rolling(p["rR"]),))


#: The initial state of the demonstration run (reports): upright, straight ahead at
#: 4.6 m/s -- inside the self-stable speed range (4.29, 6.02) m/s of Meijaard et al. (2007),
#: Table 2 -- pushed in roll (roll rate 0.5 rad/s); the bicycle rights itself.
DEMONSTRATION_STATE = {"x": 0.0, "y": 0.0, "psi": 0.0, "phi": 0.0, "thetaR": 0.0,
                       "delta": 0.0, "thetaF": 0.0, "thetaB": 0.0, "phidot": 0.5,
                       "thetaRdot": -4.6 / 0.3, "deltadot": 0.0}


def _upright_rolling(rR) -> SteadyFamily:
    r"""Upright straight-ahead rolling at forward speed :math:`v`: the distinguished family
    (Meijaard et al. (2007), §5: the reference motion of the linearisation)."""
    from geomech.mechanics.analysis.steady_motions import SteadyFamily

    v = sp.Symbol("speed", real=True)
    state = {name: 0 for name in ("x", "y", "psi", "phi", "thetaR", "delta", "thetaF",
                                  "thetaB", "phidot", "deltadot")}
    return SteadyFamily("upright rolling", (v,), {**state, "thetaRdot": -v / rR}, (), {},
                        "upright, straight ahead at forward speed v = -rR thetaRdot "
                        "(x, y, thetaR, thetaF and the heading psi cyclic)",
                        ranges={"speed": (0, 10)})


class BenchmarkMatrices(NamedTuple):
    r"""The matrices of the linearised roll-steer equations :math:`M\ddot q + vC_1\dot q +
    (gK_0 + v^2K_2)q = 0`, :math:`q = (\varphi, \delta)` (Meijaard et al. (2007), (8.1)),
    sympy matrices in the parameters of the bicycle."""

    M: sp.Matrix
    C1: sp.Matrix
    K0: sp.Matrix
    K2: sp.Matrix


def benchmark_matrices(bike: NonholonomicSystem | None = None) -> BenchmarkMatrices:
    r"""The linearised equations of the bicycle at upright straight-ahead rolling,
    :math:`M\ddot q + vC_1\dot q + (gK_0 + v^2K_2)q = 0` in roll and steer
    :math:`q = (\varphi, \delta)` (Meijaard et al. (2007), (8.1); their Appendix A gives
    the closed forms), derived from the nonlinear model.

    The first variation of the Lagrange--d'Alembert equations at the steady state
    ``bike.steady_motion(speed=v)`` in mass-matrix form
    (:func:`~geomech.mechanics.equations.first_variation.field_jacobian_mass_form`),
    :math:`M\delta\dot u = R\,\delta x`: :math:`M` is the roll-steer block of the reduced
    mass matrix, :math:`R` restricted to roll and steer is :math:`-(gK_0 + v^2K_2 \mid
    vC_1)`.  The roll-steer block is checked exactly to be decoupled from the pitch, the
    rear-wheel rate and the cyclic coordinates (lateral symmetry), and :math:`R` to be
    exactly of that form in :math:`g` and :math:`v`.  All 26 parameters stay symbolic
    (exact; ``lam`` enters through ``sin(lam)``, ``cos(lam)``); a few seconds after the
    bicycle is built.

    >>> B = benchmark_matrices()
    >>> B.M[0, 0]
    IBxx + IFxx + IHxx + IRxx + mB*zB**2 + mF*rF**2 + mH*zH**2 + mR*rR**2
    >>> B.K0[0, 0]
    mB*zB - mF*rF - mH*rF*sin(lam)**2 ...
    """
    bike = whipple_bicycle() if bike is None else bike
    v = sp.Symbol("v", real=True)
    g = next((s for s in bike.manifold.parameters if s.name == "g"), None)
    state = bike.steady_motion(speed=v)
    _, M3, R = field_jacobian_mass_form(bike, state)
    coords = [c.name for c in bike.phase_space.coords]
    u = [c.name for c in bike.independent_velocities]
    rows = [u.index("phidot"), u.index("deltadot")]
    q_cols = [coords.index("phi"), coords.index("delta")]
    u_cols = [coords.index("phidot"), coords.index("deltadot")]
    _check_decoupled(bike, M3, R, rows, q_cols + u_cols)
    Rq, Ru = R.extract(rows, q_cols), R.extract(rows, u_cols)
    K0 = -Rq.diff(g).xreplace({g: 0, v: 0}).applyfunc(default_policy().normalize)
    K2 = -Rq.diff(v, 2).xreplace({g: 0, v: 0}).applyfunc(
        lambda e: default_policy().normalize(e / 2))
    C1 = -Ru.diff(v).xreplace({v: 0}).applyfunc(default_policy().normalize)
    policy = default_policy()
    if not all(policy.is_zero(e) for e in (*(Rq + g * K0 + v**2 * K2), *(Ru + v * C1))):
        raise ValueError("the linearised roll-steer equations of this bicycle are not of the "
                         "form M q'' + v C1 q' + (g K0 + v^2 K2) q = 0")
    return BenchmarkMatrices(M3.extract(rows, rows), C1, K0, K2)


def _check_decoupled(bike, M3, R, rows: list, cols: list) -> None:
    r"""``ValueError`` unless the roll-steer rows of the mass form couple to nothing else
    (reduced mass matrix, first variation, the pitch eliminated by the holonomic
    constraint with :math:`\partial h/\partial\varphi = \partial h/\partial\delta = 0`)."""
    policy = default_policy()
    others = [i for i in range(M3.rows) if i not in rows]
    bad = [e for i in rows for j in others for e in (M3[i, j], M3[j, i])]
    bad += [R[i, j] for i in rows for j in range(R.cols) if j not in cols]
    point = {c: 0 for c in bike.manifold.coords}
    h = bike.holonomic[0]
    bad += [sp.diff(h, c).xreplace(point) for c in bike.manifold.coords
            if c.name in ("phi", "delta")]
    if not all(policy.is_zero(e) for e in bad):
        raise ValueError("the roll-steer equations of this bicycle are coupled to other "
                         "variables at upright rolling: not the benchmark's form")
