"""Polynomial first integrals: CPU time and operation counts (issue "Analyses that finish on
the bodies researchers study", item 2).

One row per system, symbolic parameters unless stated:

* ``chaplygin_ball``, ``routh_sphere`` -- ``S.polynomial_integrals()`` (natural frame, degree 2);
  the ball also in degree 3 (expected: J, E, M^2, J^2 and the products with J);
* ``rubber_ball`` -- ``S.polynomial_integrals(2)`` (no natural frame: trigonometric ansatz);
* ``suslov`` -- Suslov's problem, general inertia (built as in the tests);
* ``so(4)`` -- ``polynomial_integrals(v, 2, homogeneous=True)`` of the Euler-Arnold field with
  Manakov inertia (1, 2, 3, 5);
* ``so(n) symbolic`` (n = 3..6) -- ``rigid_body_so_n(n).polynomial_integrals(2)``
  with symbolic inertia ``I1..In`` (expected: 4 = tr M^2, Pf M, the energy and Manakov's
  quadratic integral (Manakov 1976); 2 = the energy and |M|^2).  Reference (n = 3, 4): the
  previous method (the determining equations expanded as expressions and solved by
  ``solve_constant_linear``).

Columns: CPU seconds (``time.process_time``, in this process: the machine is shared, wall
clock is inflated), the number of integrals, ``sympy.count_ops`` of the phase-space forms and
of the natural forms.  For the two natural-frame searches the reference is the previous method
(the fall-back path): sampled equations reduced over QQ(parameters) by sympy's ``DomainMatrix``
rref and each integral verified along the flow by the zero policy (run in a child process
under a CPU cap), and the ratio.

Measured (2026-11-26, shared 2-core machine, CPU seconds): ``so(4) symbolic`` 0.13 s, 4
integrals, count_ops 86 (previous method > 120 s: killed at RLIMIT_CPU 120; > 900x);
``so(3) symbolic`` 0.10 s, 2 integrals, count_ops 18 (previous 0.33 s); ``so(5) symbolic``
0.34 s, 4 integrals, count_ops 172; ``so(6) symbolic`` 1.2 s, 5 integrals, count_ops 345;
``so(4) Manakov`` (numeric inertia) 0.02 s, count_ops 32.

Heavy top (issue 24, item 2; Euler-Poisson variables modulo (gamma, gamma) = 1,
symbolic parameters; target for Kovalevskaya's quartic < 60 s).  Measured 2026-11-29, shared
2-core machine, CPU seconds, integrals found (a basis of the space: products included)::

    heavy_top Kovalevskaya degree 4                     1.48 s   9
    heavy_top Lagrange degree 4                         1.49 s  21
    heavy_top Goryachev-Chaplygin degree 3 on area 0    0.34 s   2
    heavy_top generic (1,2,3; r0=(1,1,1)) degree 4      2.63 s   8  (all in E, area)

Run: ``python benchmarks/bench_integrals.py [--quick] [names...]``.
"""

from __future__ import annotations

import sys
import time

import sympy as sp

import geomech as gm

try:
    from benchmarks._common import cpu_in_child, table
except ImportError:
    from _common import cpu_in_child, table

CAP = 30.0 if "--quick" in sys.argv else 120.0


def suslov():
    """Suslov's problem with inertia [[A, 0, 1], [0, B, 2], [1, 2, C]], constraint omega3 = 0."""
    from geomech.examples.kinematics import body_angular_velocity

    s, c = sp.sin, sp.cos
    N = gm.Manifold("SO3", "theta phi psi", parameters="A B C")
    A, B, C = N.parameters
    th, ph, ps = N.coords
    w = body_angular_velocity(th, ph, ps, *N.velocities)
    inertia = sp.Matrix([[A, 0, 1], [0, B, 2], [1, 2, C]])
    E1 = N.vector_field([c(ph), -c(th) * s(ph) / s(th), s(ph) / s(th)])
    E2 = N.vector_field([-s(ph), -c(th) * c(ph) / s(th), c(ph) / s(th)])
    return gm.NonholonomicSystem(N, (w.T * inertia * w)[0] / 2, [sp.expand(w[2])],
                                 name="suslov",
                                 natural_frame={"frame": (E1, E2), "names": ("omega1", "omega2")})


def so4():
    from geomech.mechanics.analysis.integrals import polynomial_integrals

    v = gm.rigid_body_so_n(4, (1, 2, 3, 5)).vector_field()
    found = polynomial_integrals(v, 2, homogeneous=True)
    return found, found


def so_n_symbolic(n: int):
    Fs = gm.rigid_body_so_n(n).polynomial_integrals(2)
    return list(Fs), Fs.natural


def legacy_so_n(n: int) -> None:
    """The previous method on the so(n) field: ``v(F)`` expanded as one expression, split by
    monomials and solved by ``solve_constant_linear`` (sampled, verified by the zero
    policy)."""
    from geomech.core.algebra.linear import solve_constant_linear
    from geomech.mechanics.analysis import integrals as I

    v = gm.rigid_body_so_n(n).vector_field()
    M = v.manifold
    monos = I._monomials(M.coords, 2, False)
    cs = list(sp.symbols(f"_c0:{len(monos)}", cls=sp.Dummy))
    F = sp.Add(*[c * t for c, t in zip(cs, monos)])
    vF = sp.expand(sum(c * M.sympify(v(t)) for c, t in zip(cs, monos)))
    sols = solve_constant_linear(I.split_polynomial(vF, M.coords), cs, keep=M.parameters)
    I._verified_integrals(v, F, sols, False, ())


CASES = {
    "chaplygin_ball": lambda: _natural(gm.examples.chaplygin_ball()),
    "routh_sphere": lambda: _natural(gm.examples.routh_sphere()),
    "chaplygin_ball degree 3": lambda: _natural(gm.examples.chaplygin_ball(), 3),
    "rubber_ball": lambda: _natural(gm.examples.rubber_ball()),
    "suslov": lambda: _natural(suslov()),
    "so(4) Manakov": so4,
    "so(4) symbolic": lambda: so_n_symbolic(4),
    "so(3) symbolic": lambda: so_n_symbolic(3),
    "so(5) symbolic": lambda: so_n_symbolic(5),
    "so(6) symbolic": lambda: so_n_symbolic(6),
    "heavy_top Kovalevskaya degree 4": lambda: _top("kovalevskaya", 4),
    "heavy_top Lagrange degree 4": lambda: _top("lagrange", 4),
    "heavy_top Goryachev-Chaplygin degree 3 on area 0": lambda: _top("goryachev", 3),
    "heavy_top generic (1,2,3; r0=(1,1,1)) degree 4": lambda: _top("generic", 4),
}


def _top(case: str, degree: int):
    """``heavy_top(...).polynomial_integrals(degree)`` in the classical cases, symbolic
    parameters (the generic top with numbers); Goryachev-Chaplygin on the level
    :math:`(I\\omega, \\gamma) = 0` (``on=[area]``)."""
    I1, I3, m, g, a = sp.symbols("I1 I3 m g a", positive=True)
    args = {"kovalevskaya": (2 * I3, 2 * I3, I3, m, g, a, 0, 0),
            "lagrange": (I1, I1, I3, m, g, 0, 0, a),
            "goryachev": (4 * I3, 4 * I3, I3, m, g, a, 0, 0),
            "generic": (1, 2, 3, 1, 1, 1, 1, 1)}[case]
    T = gm.examples.heavy_top(*args)
    on = ()
    if case == "goryachev":
        w1, w2, w3, g1, g2, g3 = sp.symbols("omega1 omega2 omega3 gamma1 gamma2 gamma3")
        on = [4 * I3 * (w1 * g1 + w2 * g2) + I3 * w3 * g3]
    Fs = T.polynomial_integrals(degree, on=on)
    return list(Fs), Fs.natural

#: the previous method of each row that has one, run in a child under :data:`CAP`
LEGACY = {"chaplygin_ball": lambda: legacy("chaplygin_ball"),
          "routh_sphere": lambda: legacy("routh_sphere"),
          "so(4) symbolic": lambda: legacy_so_n(4),
          "so(3) symbolic": lambda: legacy_so_n(3)}


def _natural(S, degree: int = 2):
    Fs = S.polynomial_integrals(degree)
    return list(Fs), Fs.natural


def legacy(name: str) -> None:
    """The previous method (still the fall-back outside the polynomial ring): sampled
    equations on the support reduced over QQ(params), each integral verified along the flow
    by the zero policy."""
    from geomech.core.zero import ZeroPolicy
    from geomech.mechanics.analysis import polynomial_integrals as P

    S = getattr(gm.examples, name)()
    ce, eta, basis, data, qsyms, terms = P._natural_setup(S, 2, 2)
    params = list(S.manifold.parameters)
    pt = ZeroPolicy(seed=19, warn=False).random_point(params)
    ns = P._natural_nullspace(data, terms, list(range(len(terms))), eta, qsyms, pt, 41)
    cols = [j for j in range(len(terms)) if any(v[j] != 0 for v in ns)]
    ns = P._natural_nullspace(data, terms, cols, eta, qsyms, params, 43)
    coeffs = [[sp.factor(c) for c in v] for v in ns]
    P._assemble(S, ce, eta, basis, [terms[j] for j in cols], coeffs, "", verify=True)


def legacy_cpu(name: str) -> float | None:
    """CPU seconds of the previous method of row ``name`` in a child process (cold caches),
    ``None`` above :data:`CAP` (the child is given ``4 * CAP`` seconds of wall time on the
    shared machine)."""
    out = cpu_in_child(LEGACY[name], CAP)
    return None if out is None else out[0]


def main(names) -> None:
    rows = []
    for name in names:
        sp.core.cache.clear_cache()
        t0 = time.process_time()
        phase, natural = CASES[name]()
        dt = time.process_time() - t0
        ops = (sum(sp.count_ops(F) for F in phase), sum(sp.count_ops(F) for F in natural))
        ref = legacy_cpu(name) if name in LEGACY else None
        ref_txt = "" if name not in LEGACY else (
            f"{ref:8.2f} s" if ref is not None else f">{CAP:g} s")
        ratio = "" if not ref_txt else (f"{ref / dt:.1f}x" if ref is not None
                                        else f">{CAP / dt:.0f}x")
        rows.append([name, f"{dt:8.2f} s", len(phase), ops[0], ops[1], ref_txt, ratio])
        print("  " + "  ".join(map(str, rows[-1])), file=sys.stderr, flush=True)
    table("polynomial integrals (CPU seconds; previous method as reference)",
          ["system", "CPU", "found", "ops (phase)", "ops (natural)", "previous method", "ratio"],
          rows)


if __name__ == "__main__":
    wanted = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(wanted or list(CASES))
