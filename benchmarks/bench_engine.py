"""The exact engine's speed targets, in one run (issue "One exact engine, every bracket
through the graph").

1. **Bracket table on R^8** (the 28 brackets ``i < j`` of 8 random polynomial fields, 3 terms of
   degree <= 2 per component, ``bench_core.polynomial_frame(8)``), results as sympy
   expressions: geomech (``X.bracket(Y).components``) against plain sympy (the componentwise
   formula :math:`[X,Y]^i = X^j\\partial_jY^i - Y^j\\partial_jX^i` with ``sympy.diff`` and
   ``expand``), with the floor beside it: raw symengine on pre-converted inputs (results
   left in symengine).  Target plain/geomech >= 50.  Results are checked ``==`` and
   ``str``-equal to plain sympy's.
2. **Graph overhead**: the same kind of table (polynomial and trigonometric frames on R^8,
   ``bench_lie.random_frame``) read through a fresh ``BracketGraph`` against the direct kernel
   (``X.bracket(Y)``), pairs ``i < j`` and the full ``n x n``.  Target graph/direct <= 1.2.
3. **Chaplygin ball, explicit equations**: ``S.equations("lagrange_dalembert").rhs`` (system
   built from the catalogue) against ``KanesMethod`` of the same body (frames, points, rigid
   body, ``kanes_equations``, ``rhs()``; ``bench_mechanics.kane_model``, generalized speeds
   ``qdot`` and the natural body angular velocity), CPU time and ``sympy.count_ops``.
   Target: geomech no slower, fewer operations.
4. **Growth vectors** of the Chaplygin-ball (3, 5) and rubber-ball (2, 3, 5) constraint
   distributions (``S.constraint_distribution().growth_vector()``), target < 0.5 s.
5. **Exact matrices** (:mod:`geomech.core.algebra.matrices`): rank, reduced echelon form and
   solve over QQ of random rank-deficient rational matrices (python-flint's ``fmpq_mat``
   against sympy's ``DomainMatrix`` and ``Matrix``), and the null space over
   :math:`\\mathbb Q(k, a)` of a parametric matrix (``domain_nullspace`` against
   ``Matrix.nullspace``); results checked equal.

Times are CPU seconds (``time.process_time``: the machine is shared, wall-clock is inflated),
best of ``--repeat`` runs; sympy's cache and geomech's ring caches
(``differential_ring.clear_caches``) are cleared before every run of every contender (cold caches
on both sides).

Run:  python benchmarks/bench_engine.py [--repeat 3] [--only 5]
"""

from __future__ import annotations

import argparse
import sys
import time

import sympy as sp

from geomech.core import kernel

try:
    from benchmarks import _study_tools as tools
    from benchmarks import bench_core, bench_lie, bench_mechanics
except ImportError:  # run as a script from the benchmarks folder
    import _study_tools as tools
    import bench_core
    import bench_lie
    import bench_mechanics


def cpu(fn, repeat: int) -> tuple[float, object]:
    """Best CPU time of ``repeat`` cold runs (``_study_tools.timed``) and the last result."""
    runs = [tools.timed(fn) for _ in range(repeat)]
    return min(t for t, _ in runs), runs[-1][1]


# -- 1. the R^8 table ------------------------------------------------------------------------
def bench_table(repeat: int) -> None:
    n = 8
    M, frame = bench_core.polynomial_frame(n)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]

    def plain():
        return [tuple(bench_core.plain_sympy_bracket(frame[i], frame[j], M.coords))
                for i, j in pairs]

    def ours():
        fs = [M.vector_field(c) for c in frame]
        return [fs[i].bracket(fs[j]).components for i, j in pairs]

    def ours_ring():
        fs = [M.vector_field(c) for c in frame]
        return [fs[i].bracket(fs[j]) for i, j in pairs]

    t_plain, ref = cpu(plain, max(1, repeat // 2))
    t_ours, got = cpu(ours, repeat)
    t_ring, _ = cpu(ours_ring, repeat)
    assert got == ref and [tuple(map(str, g)) for g in got] == [tuple(map(str, r)) for r in ref]
    line = (f"plain sympy {t_plain:.3f} s | geomech (sympy results) {t_ours:.4f} s "
            f"-> {t_plain / t_ours:.1f}x (target >= 50x) | geomech (ring results) "
            f"{t_ring:.4f} s -> {t_plain / t_ring:.1f}x")
    if "symengine" in kernel.available_backends():
        sf = bench_core._to_symengine(frame)
        sx = bench_core._to_symengine([M.coords])[0]
        t_se, _ = cpu(lambda: [bench_core.symengine_bracket(sf[i], sf[j], sx)
                               for i, j in pairs], repeat)
        line += f" | floor: raw symengine {t_se:.4f} s -> {t_plain / t_se:.1f}x"
    print(f"\n## 1. bracket table on R^{n} ({len(pairs)} brackets), CPU, cold caches\n{line}")
    print(f"   conversion ring -> sympy: {t_ours - t_ring:.4f} s "
          f"({(t_ours - t_ring) / t_ours:.0%} of geomech's time)")


# -- 2. graph overhead ---------------------------------------------------------------------
def bench_graph(repeat: int, n: int = 8) -> None:
    print(f"\n## 2. graph overhead: tables on R^{n} through a fresh BracketGraph vs the direct "
          f"kernel (bench_lie.bench_overhead)")
    bench_lie.bench_overhead(repeat, n, runs=repeat)


# -- 3. Chaplygin ball vs Kane ---------------------------------------------------------------
def _ball_geomech():
    import geomech as gm

    S = gm.examples.get("chaplygin_ball")
    eq = S.equations("lagrange_dalembert")
    return [eq.rhs[c] for c in S.phase_space.coords]


def _ball_kane(speeds: str):
    km, _, _ = bench_mechanics.kane_model("chaplygin_ball", speeds)
    return list(km.rhs())


def _ops(exprs) -> int:
    return int(sum(sp.count_ops(e) for e in exprs))


def bench_ball(repeat: int) -> None:
    bench_mechanics._warm_up()
    rows = [("geomech lagrange_dalembert .rhs", _ball_geomech),
            ("sympy KanesMethod (qdot speeds) rhs()", lambda: _ball_kane("qdot")),
            ("sympy KanesMethod (natural speeds) rhs()", lambda: _ball_kane("natural"))]
    print(f"\n## 3. Chaplygin ball, explicit field (system/model built in the timing), CPU, "
          f"best of {repeat}, cold caches")
    res = []
    for name, fn in rows:
        t, out = cpu(fn, repeat)
        res.append((name, t, _ops(out)))
        print(f"{name:44s} {t:7.3f} s {res[-1][2]:>9,} ops", flush=True)
    t_gm, ops_gm = res[0][1], res[0][2]
    t_k = min(r[1] for r in res[1:])
    ops_k = min(r[2] for r in res[1:])
    print(f"fastest Kane / geomech: {t_k / t_gm:.2f}x time (target >= 1), "
          f"{ops_k / ops_gm:.1f}x ops (target > 1)")


# -- 4. growth vectors -----------------------------------------------------------------------
def bench_growth(repeat: int) -> None:
    import geomech as gm

    print(f"\n## 4. growth vectors of the constraint distributions, CPU, best of {repeat}, "
          f"cold caches (system built outside the timing)")
    for name in ("chaplygin_ball", "rubber_ball"):
        best, g = float("inf"), None
        for _ in range(repeat):
            S = gm.examples.get(name)
            tools.cold()
            t0 = time.process_time()
            g = S.constraint_distribution().growth_vector()
            best = min(best, time.process_time() - t0)
        print(f"{name:16s} {g}  {best:.3f} s (target < 0.5 s)")


# -- 5. exact matrices ------------------------------------------------------------------------
def _rational_low_rank(m: int, n: int, r: int, seed: int) -> list[list]:
    import random

    rnd = random.Random(seed)
    A = [[sp.Rational(rnd.randint(-9, 9), rnd.randint(1, 5)) for _ in range(r)] for _ in range(m)]
    B = [[sp.Rational(rnd.randint(-9, 9), rnd.randint(1, 5)) for _ in range(n)] for _ in range(r)]
    return [[sum(A[i][k] * B[k][j] for k in range(r)) for j in range(n)] for i in range(m)]


def _parametric(n: int, seed: int) -> sp.Matrix:
    import random

    rnd = random.Random(seed)
    k, a = sp.symbols("k a")
    mono = [1, k, a, k * a, k**2]
    A = sp.Matrix(n, n - 2, lambda i, j: sum(rnd.randint(-3, 3) * t for t in mono[:3]))
    B = sp.Matrix(n - 2, n, lambda i, j: sum(rnd.randint(-3, 3) * t for t in mono[2:]))
    return (A * B).applyfunc(sp.expand)


def bench_matrices(repeat: int) -> None:
    from geomech.core.algebra import matrices as mx

    print(f"\n## 5. exact matrices, CPU, best of {repeat}")
    saved = mx.flint
    for m, n, r in ((40, 40, 30), (120, 60, 45)):
        rows = _rational_low_rank(m, n, r, seed=m + n)
        M = sp.Matrix(rows)
        t_f, (red_f, rk_f) = cpu(lambda: (mx.rational_rref(rows), mx.rational_rank(rows)), repeat)
        mx.flint = None
        try:
            t_d, (red_d, rk_d) = cpu(lambda: (mx.rational_rref(rows), mx.rational_rank(rows)),
                                     repeat)
        finally:
            mx.flint = saved
        t_s, (R, piv) = cpu(lambda: M.rref(), 1)
        assert red_f == red_d and rk_f == rk_d == len(piv) == r and tuple(red_f[1]) == piv
        print(f"rref+rank {m}x{n} rank {r}: flint {t_f:.3f} s, DomainMatrix {t_d:.3f} s, "
              f"sympy Matrix.rref {t_s:.3f} s")
    sq = _rational_low_rank(30, 30, 30, seed=7)
    b = [sp.Rational(i, 3) for i in range(30)]
    t_f, x = cpu(lambda: mx.rational_solve(sq, b), repeat)
    t_s, xs = cpu(lambda: sp.Matrix(sq).LUsolve(sp.Matrix(b)), 1)
    assert sp.Matrix(x) == xs
    print(f"solve 30x30: rational_solve {t_f:.3f} s, sympy LUsolve {t_s:.3f} s")
    P = _parametric(4, seed=3)
    K = sp.QQ.frac_field(*sorted(P.free_symbols, key=sp.default_sort_key))
    prow = [[K.from_sympy(e) for e in P.row(i)] for i in range(P.rows)]
    t_n, ns = cpu(lambda: mx.domain_nullspace(prow, P.cols, K), repeat)
    t_s, nss = cpu(lambda: P.nullspace(simplify=sp.cancel), 1)
    assert len(ns) == len(nss)
    print(f"null space 4x4 over Q(k, a), rank 2: domain_nullspace {t_n:.3f} s, sympy "
          f"Matrix.nullspace {t_s:.3f} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per contender (best CPU time)")
    ap.add_argument("--only", type=int, default=0, help="run only this section (1-5)")
    args = ap.parse_args(argv)
    print(f"kernel backend: {kernel.get_backend()} (available: {kernel.available_backends()})")
    sections = (bench_table, bench_graph, bench_ball, bench_growth, bench_matrices)
    for i, run in enumerate(sections, 1):
        if args.only in (0, i):
            run(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
