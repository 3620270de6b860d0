"""Explicit equations of motion: geomech (each method) vs sympy.physics.mechanics.

For the Chaplygin sleigh, the rolling disk and the Chaplygin ball the same system is given to

* geomech: ``sys.equations(method)`` for every method, then the phase-space right-hand side
  :math:`(q, \\dot q_{\\rm ind})`;
* geomech ``compact_equations(sys, frame=...)``: the explicit field in the quasi-velocities of
  a natural frame (sleigh: :math:`(v, \\omega)`; disk: angular velocity in the König frame;
  ball: body angular velocity), Woodbury solve, named sub-expressions;
* ``sympy.physics.mechanics.LagrangesMethod`` with ``nonhol_coneqs``, then ``rhs()``;
* ``sympy.physics.mechanics.KanesMethod`` with dependent speeds (``u_dependent``,
  ``velocity_constraints``), ``kanes_equations``, then ``rhs()``; models built from frames,
  points and rigid bodies, twice: with the generalized speeds :math:`u = \\dot q` and with
  the natural speeds (the same quasi-velocities as geomech's compact form).

Every Kane model is checked against geomech in the run (assert, not a test): the
accelerations of the independent speeds agree with geomech's (Lagrange–d'Alembert resp. the
compact form) at a random numeric point to 1e-9 relative.

Printed: wall time of the derivation (one run each, in a forked child with a time cap; the
operation counting is not timed) and the operation counts (``sympy.count_ops``) of the
explicit right-hand side, raw and after ``sympy.cse`` (replacements + reduced expressions).

Run: ``python benchmarks/bench_mechanics.py [--quick]`` (``--quick`` skips the slow
geomech methods and LagrangesMethod on the ball).
"""

from __future__ import annotations

import random
import sys
import time

import sympy as sp

import geomech as gm
from geomech.mechanics.equations.compact import compact_equations

try:
    from benchmarks._common import table
except ImportError:
    from _common import table

QUICK = "--quick" in sys.argv
CAP = 60.0 if QUICK else 150.0
SYSTEMS = ("chaplygin_sleigh", "rolling_disk", "chaplygin_ball")
METHODS = ("lagrange_dalembert", "quasi_velocities", "voronets", "appell", "chaplygin",
           "tzenoff")
QUICK_METHODS = ("lagrange_dalembert", "quasi_velocities")


def _run_capped(fn, cap):
    """``fn()`` in a forked child: its result, or the string reason of a time-out/error."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    q = ctx.Queue()

    def target():
        try:
            q.put(fn())
        except Exception as exc:  # noqa: BLE001 - reported in the table
            q.put(f"{type(exc).__name__}: {str(exc)[:70]}")

    p = ctx.Process(target=target)
    p.start()
    p.join(cap)
    if p.is_alive():
        p.terminate()
        p.join()
        return f"> {cap:g} s"
    return q.get() if not q.empty() else "crashed"


def _ops(exprs) -> tuple[int, int]:
    exprs = list(exprs)
    raw = int(sum(sp.count_ops(e) for e in exprs))
    reps, red = sp.cse(exprs)
    return raw, int(sum(sp.count_ops(e) for _, e in reps) + sum(sp.count_ops(e) for e in red))


# -- geomech ---------------------------------------------------------------------------------
def geomech_case(name, method):
    t0 = time.perf_counter()
    sys_ = gm.examples.get(name)
    eq = sys_.equations(method)
    rhs = [eq.rhs[c] for c in sys_.phase_space.coords]
    dt = time.perf_counter() - t0
    return dt, *_ops(rhs)


def natural_frame(sys_):
    """The natural frame of the catalogue entry (the sleigh's is built here)."""
    nat = getattr(sys_, "natural_frame", None)
    if nat:
        return dict(nat)
    if sys_.name == "chaplygin_sleigh":
        N = sys_.manifold
        phi = N.coords[2]
        return {"frame": (N.vector_field([sp.cos(phi), sp.sin(phi), 0]),
                          N.vector_field([0, 0, 1])), "names": ("v", "omega")}
    raise ValueError(f"no natural frame for {sys_.name}")


def compact_case(name):
    t0 = time.perf_counter()
    sys_ = gm.examples.get(name)
    ce = compact_equations(sys_, **natural_frame(sys_))
    rhs = list(ce.rhs.values())
    dt = time.perf_counter() - t0
    raw, cse = _ops(rhs)
    return dt, raw, cse, ce.count_ops("abbreviated")


def lagranges_case(name):
    from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols

    t0 = time.perf_counter()
    sys_ = gm.examples.get(name)
    N = sys_.manifold
    q = [dynamicsymbols(f"{c.name}_") for c in N.coords]
    t = dynamicsymbols._t
    rep = {c: qi for c, qi in zip(N.coords, q)}
    rep.update({v: qi.diff(t) for v, qi in zip(N.velocities, q)})
    L = sys_.lagrangian.xreplace(rep)
    cons = [c.xreplace(rep) for c in sys_.constraints]
    lm = LagrangesMethod(L, q, nonhol_coneqs=cons)
    lm.form_lagranges_equations()
    rhs = lm.rhs()
    dt = time.perf_counter() - t0
    return dt, *_ops(rhs)


# -- Kane models -----------------------------------------------------------------------------
def kane_model(name: str, speeds: str):
    r"""``(KanesMethod, {geomech coordinate: q(t)}, data)`` for the catalogue system ``name``.

    ``speeds="qdot"``: :math:`u = \dot q`, dependent speeds the dependent velocities of the
    catalogue entry.  ``speeds="natural"``: the quasi-velocities of :func:`natural_frame`
    (``data["eta"]`` lists their u's, ``data["dependent"]`` the dependent ones)."""
    import sympy.physics.mechanics as me

    sys_ = gm.examples.get(name)
    Nm = sys_.manifold
    params = dict(zip((p.name for p in Nm.parameters), Nm.parameters))
    q = [me.dynamicsymbols(c.name + "_") for c in Nm.coords]
    qs = dict(zip((c.name for c in Nm.coords), q))
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    qd = [qi.diff() for qi in q]
    if name == "chaplygin_sleigh":
        m, I, a = params["m"], params["I"], params["a"]  # noqa: E741
        x, y, phi = qs["x"], qs["y"], qs["phi"]
        B = N.orientnew("B", "Axis", [phi, N.z])
        P = O.locatenew("P", x * N.x + y * N.y)          # the knife edge (x, y)
        G = P.locatenew("G", a * B.x)
        if speeds == "qdot":
            ux, uy, uphi = me.dynamicsymbols("u_x u_y u_phi")
            kd = [qd[0] - ux, qd[1] - uy, qd[2] - uphi]
            u_ind, u_dep = [ux, uphi], [uy]
            P.set_vel(N, ux * N.x + uy * N.y)
            B.set_ang_vel(N, uphi * N.z)
            vc = [-ux * sp.sin(phi) + uy * sp.cos(phi)]
        else:
            v, w, om = me.dynamicsymbols("v w omega")
            kd = [qd[0] * sp.cos(phi) + qd[1] * sp.sin(phi) - v,
                  -qd[0] * sp.sin(phi) + qd[1] * sp.cos(phi) - w, qd[2] - om]
            u_ind, u_dep = [v, om], [w]
            P.set_vel(N, v * B.x + w * B.y)
            B.set_ang_vel(N, om * N.z)
            vc = [w]
        G.v2pt_theory(P, N, B)
        bodies = [me.RigidBody("sleigh", G, B, m, (me.inertia(B, 0, 0, I - m * a**2), G))]
        loads = []
    elif name == "rolling_disk":
        m, a, A, C, g = (params[k] for k in ("m", "a", "A", "C", "g"))
        x, y, th, ps, ph = (qs[k] for k in ("x", "y", "theta", "psi", "phi"))
        Y = N.orientnew("Y", "Axis", [ps, N.z])
        L = Y.orientnew("L", "Axis", [th, Y.x])          # L.z: symmetry axis
        D = L.orientnew("D", "Axis", [ph, L.z])
        G = O.locatenew("G", x * N.x + y * N.y + a * sp.sin(th) * N.z)
        if speeds == "qdot":
            ux, uy, uth, ups, uph = me.dynamicsymbols("u_x u_y u_theta u_psi u_phi")
            kd = [qd[i] - ui for i, ui in enumerate((ux, uy, uth, ups, uph))]
            u_ind, u_dep = [uth, ups, uph], [ux, uy]
            D.set_ang_vel(N, uth * L.x + ups * sp.sin(th) * L.y + (ups * sp.cos(th) + uph) * L.z)
            G.set_vel(N, ux * N.x + uy * N.y + a * sp.cos(th) * uth * N.z)
        else:
            ux, uy, u1, u2, u3 = me.dynamicsymbols("u_x u_y Omega1 Omega2 Omega3")
            thd, psd, phd = qd[2], qd[3], qd[4]
            kd = [qd[0] - ux, qd[1] - uy, thd - u1, psd * sp.sin(th) - u2,
                  psd * sp.cos(th) + phd - u3]
            u_ind, u_dep = [u1, u2, u3], [ux, uy]
            D.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
            G.set_vel(N, ux * N.x + uy * N.y + a * sp.cos(th) * u1 * N.z)
        P = G.locatenew("P", -a * L.y)
        P.v2pt_theory(G, N, D)
        vc = [P.vel(N).dot(N.x), P.vel(N).dot(N.y)]
        bodies = [me.RigidBody("disk", G, D, m, (me.inertia(L, A, A, C), G))]
        loads = [(G, -m * g * N.z)]
    elif name == "chaplygin_ball":
        m, R, I1, I2, I3 = (params[k] for k in ("m", "R", "I1", "I2", "I3"))
        x, y, th, ph, ps = (qs[k] for k in ("x", "y", "theta", "phi", "psi"))
        B = N.orientnew("B", "Body", [ps, th, ph], "ZXZ")
        G = O.locatenew("G", x * N.x + y * N.y + R * N.z)
        if speeds == "qdot":
            ux, uy, uth, uph, ups = me.dynamicsymbols("u_x u_y u_theta u_phi u_psi")
            kd = [qd[i] - ui for i, ui in enumerate((ux, uy, uth, uph, ups))]
            u_ind, u_dep = [uth, uph, ups], [ux, uy]
            rep = {qd[2]: uth, qd[3]: uph, qd[4]: ups}
            B.set_ang_vel(N, B.ang_vel_in(N).xreplace(rep))
        else:
            ux, uy, u1, u2, u3 = me.dynamicsymbols("u_x u_y omega1 omega2 omega3")
            w = B.ang_vel_in(N)
            kd = [qd[0] - ux, qd[1] - uy] + [w.dot(e) - ui for e, ui in
                                             zip((B.x, B.y, B.z), (u1, u2, u3))]
            u_ind, u_dep = [u1, u2, u3], [ux, uy]
            B.set_ang_vel(N, u1 * B.x + u2 * B.y + u3 * B.z)
        G.set_vel(N, ux * N.x + uy * N.y)
        P = G.locatenew("P", -R * N.z)
        P.v2pt_theory(G, N, B)
        vc = [P.vel(N).dot(N.x), P.vel(N).dot(N.y)]
        bodies = [me.RigidBody("ball", G, B, m, (me.inertia(B, I1, I2, I3), G))]
        loads = []
    else:
        raise ValueError(name)
    km = me.KanesMethod(N, q_ind=q, u_ind=u_ind, kd_eqs=kd, u_dependent=u_dep,
                        velocity_constraints=vc)
    km.kanes_equations(bodies, loads)
    return km, dict(zip(Nm.coords, q)), {"u_ind": u_ind, "u_dep": u_dep, "system": sys_}


def _num(e, pt) -> float:
    return float(sp.sympify(e).xreplace({k: sp.Float(v) for k, v in pt.items()}).evalf())


def _check_kane(name, speeds, km, qmap, data, rhs, rng) -> float:
    """Max relative deviation of Kane's independent accelerations from geomech's."""
    sys_ = data["system"]
    Nm = sys_.manifold
    par = {p: rng.uniform(0.5, 2.0) for p in Nm.parameters}
    qv = {c: rng.uniform(0.3, 1.2) for c in Nm.coords}
    if speeds == "qdot":
        u = {v: rng.uniform(-1.0, 1.0) for v in sys_.independent_velocities}
        base = {**par, **qv, **u}
        vel = {v: _num(sys_.dependent_solution.get(v, v), base) for v in Nm.velocities}
        mine = [_num(sys_.equations("lagrange_dalembert").rhs[v], base)
                for v in sys_.independent_velocities]
        uvals = [vel[v] for v in sys_.independent_velocities]
        udeps = [vel[v] for v in sys_.dependent_velocities]
    else:
        ce = compact_equations(sys_, **natural_frame(sys_))
        eta = {e: rng.uniform(-1.0, 1.0) for e in ce.quasi_velocities}
        base = {**par, **qv, **eta}
        vals = ce.at(base)
        mine = [float(vals[e].evalf()) for e in ce.quasi_velocities]
        uvals = [eta[e] for e in ce.quasi_velocities]
        qdot = {c: float(vals[c].evalf()) for c in Nm.coords}
        if name == "chaplygin_sleigh":
            udeps = [0.0]
        else:
            udeps = [qdot[Nm.coords[0]], qdot[Nm.coords[1]]]
        # the compact field agrees with Lagrange-d'Alembert on the phase space
        u = {v: qdot[c] for c, v in zip(Nm.coords, Nm.velocities)}
        eq = sys_.equations("lagrange_dalembert")
        lda = [_num(eq.rhs[v], {**par, **qv, **u}) for v in sys_.independent_velocities]
        qdd = []
        for i in sys_.independent_indices:
            k = ce.kinematics[Nm.coords[i]]
            qdd.append(sum(_num(sp.diff(k, s), base) * float(vals[s].evalf())
                           for s in ce.state if k.has(s)))
        err = max(abs(x - y) / (1 + abs(y)) for x, y in zip(qdd, lda))
        assert err < 1e-9, f"{name}: compact form vs Lagrange-d'Alembert differ ({err:.2e})"
    pt = {qmap[c]: qv[c] for c in Nm.coords}
    pt.update(dict(zip(data["u_ind"], uvals)))
    pt.update(dict(zip(data["u_dep"], udeps)))
    pt.update(par)
    states = [*km.q, *km.u]
    theirs = []
    for ui in data["u_ind"]:
        e = rhs[states.index(ui)]
        theirs.append(_num(e, pt))
    err = max(abs(x - y) / (1 + abs(y)) for x, y in zip(theirs, mine))
    assert err < 1e-9, f"{name} ({speeds} speeds): Kane and geomech differ ({err:.2e})"
    return err


def kane_case(name, speeds):
    t0 = time.perf_counter()
    km, qmap, data = kane_model(name, speeds)
    rhs = km.rhs()
    dt = time.perf_counter() - t0
    raw, cse = _ops(rhs)
    err = _check_kane(name, speeds, km, qmap, data, rhs, random.Random(2026))
    return dt, raw, cse, err


def _fmt(res, extra: bool = False):
    if isinstance(res, str):
        return [res, "-", "-"] + (["-"] if extra else [])
    dt, raw, cse, *rest = res
    return [f"{dt:.2f} s", f"{raw:,}", f"{cse:,}"] + ([rest[0]] if extra else [])


def _warm_up() -> None:
    """Import everything once in the parent, so that no child times a module import."""
    import sympy.physics.mechanics  # noqa: F401

    import geomech.lie.graph  # noqa: F401
    import geomech.mechanics.equations.classical  # noqa: F401
    import geomech.mechanics.equations.tzenoff  # noqa: F401

    compact_case("chaplygin_sleigh")


def main():
    _warm_up()
    rows = []
    methods = QUICK_METHODS if QUICK else METHODS
    for name in SYSTEMS:
        for method in methods:
            res = _run_capped(lambda: geomech_case(name, method), CAP)
            rows.append([name, f"geomech {method}", *_fmt(res), ""])
        res = _run_capped(lambda: compact_case(name), CAP)
        note = f"abbreviated: {res[3]:,}" if not isinstance(res, str) else ""
        rows.append([name, "geomech compact_equations (natural frame)", *_fmt(res), note])
        for speeds in ("qdot", "natural"):
            res = _run_capped(lambda: kane_case(name, speeds), CAP)
            note = f"checked vs geomech: {res[3]:.0e}" if not isinstance(res, str) else ""
            rows.append([name, f"sympy KanesMethod ({speeds} speeds) + rhs()", *_fmt(res),
                         note])
        if not (QUICK and name == "chaplygin_ball"):
            res = _run_capped(lambda: lagranges_case(name), CAP)
            rows.append([name, "sympy LagrangesMethod + rhs()", *_fmt(res), ""])
    table("explicit equations of motion: derivation time and operation count",
          ["system", "method", "time", "ops", "ops after cse", "note"], rows)
    print("\nKane 'qdot' speeds: u = qdot; 'natural' speeds: the quasi-velocities of geomech's "
          "compact form (sleigh (v, omega), disk König-frame angular velocity, ball body "
          "angular velocity).  Times include building the sympy model.")


if __name__ == "__main__":
    main()
