"""Benchmark of the bracket graph and distributions against a plain-sympy implementation.

Cases (geomech vs plain sympy, in one run):

1. growth vectors of the catalogue distributions: rubber ball (2,3,5), Chaplygin ball (3,5),
   rolling disk (3,4,5), Chaplygin sleigh (2,3);
2. Frobenius test of a random rank-2 polynomial distribution on R^n, n = 3..8, generic
   (not involutive) and involutive (pushforward of span{d1, d2} by a random triangular
   polynomial diffeomorphism, then mixed by random polynomial coefficients);
3. the full bracket table of the so(n) fields x_i d_j - x_j d_i on R^n (and of their tangent
   lifts on TR^n);
4. the overhead of the graph: a bracket table of a random polynomial frame and of a random
   trigonometric frame on R^8 read through ``BracketGraph`` (memo, words, locks) against the
   direct kernel ``X.bracket(Y)`` on the same pairs, results kept in the ring, and with
   sympy components read (target: graph/direct <= 1.2).

Plain sympy = brackets with ``sympy.diff`` + ``expand``, the literal Lie flag (all
``[D^1, D^j]``) and ``Matrix.rank(simplify=True)`` (without ``simplify`` the rank of
trigonometric matrices is wrong).  Each plain case runs in a forked subprocess with a timeout
(``--timeout``, default 20 s); a timed-out case is reported as ``>timeout`` and its ratio as a
lower bound.  geomech times are medians over ``--repeat`` runs, each on a fresh chart (no
memoisation carried over; sympy's own global caches do warm up, hence the extra
"first run" column).

Run:  python benchmarks/bench_lie.py [--quick] [--timeout 20] [--repeat 3] [--overhead-only]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

import sympy as sp

from geomech.core.manifold import Manifold
from geomech.lie.distribution import Distribution
from geomech.lie.graph import BracketGraph

try:
    from benchmarks import _study_tools as tools
    from benchmarks._common import cpu_in_child
except ImportError:  # run from the benchmarks folder
    import _study_tools as tools
    from _common import cpu_in_child

c, s = sp.cos, sp.sin


# -- systems -------------------------------------------------------------------------------
def rubber_ball():
    N = Manifold("N_ball", "x y theta phi psi", parameters="a")
    x, y, th, ph, ps = N.coords
    a = N.parameters[0]
    Ex = [0, 0, c(ps), s(ps) / s(th), -c(th) * s(ps) / s(th)]
    Ey = [0, 0, s(ps), -c(ps) / s(th), c(th) * c(ps) / s(th)]
    X1 = N.vector_field([Ex[0], Ex[1] - a, *Ex[2:]])
    X2 = N.vector_field([Ey[0] + a, *Ey[1:]])
    return N, [X1, X2]


def chaplygin_ball():
    N, (X1, X2) = rubber_ball()
    return N, [X1, X2, N.vector_field([0, 0, 0, 0, 1])]


def rolling_disk():
    N = Manifold("N_disk", "x y theta psi phi", parameters="a")
    x, y, th, ps, ph = N.coords
    a = N.parameters[0]
    return N, [N.vector_field([a * s(ps) * s(th), -a * c(ps) * s(th), 1, 0, 0]),
               N.vector_field([-a * c(ps) * c(th), -a * s(ps) * c(th), 0, 1, 0]),
               N.vector_field([-a * c(ps), -a * s(ps), 0, 0, 1])]


def sleigh():
    N = Manifold("N_sleigh", "x y phi")
    phi = N.coords[2]
    return N, [N.vector_field([c(phi), s(phi), 0]), N.vector_field([0, 0, 1])]


def _rand_poly(rng, xs, terms=3, deg=2):
    out = 0
    for _ in range(terms):
        mono = rng.choice([-3, -2, -1, 1, 2, 3])
        for _ in range(rng.randint(0, deg)):
            mono *= rng.choice(xs)
        out += mono
    return sp.expand(out)


def random_rank2(n: int, seed: int = 0):
    rng = random.Random(1000 * n + seed)
    M = Manifold(f"R{n}", [f"x{i}" for i in range(n)])
    xs = list(M.coords)
    return M, [M.vector_field([_rand_poly(rng, xs) for _ in range(n)]) for _ in range(2)]


def random_involutive_rank2(n: int, seed: int = 0):
    """span{a X + b Y, c X + d Y}, X, Y the images of d/dy1, d/dy2 under the triangular map
    x_i = y_i + p_i(y_1..y_{i-1}); involutive by construction."""
    rng = random.Random(7000 * n + seed)
    M = Manifold(f"R{n}i", [f"x{i}" for i in range(n)])
    xs = list(M.coords)
    ys = sp.symbols(f"y0:{n}")
    fwd = [ys[0]] + [ys[i] + _rand_poly(rng, list(ys[:i]), terms=2, deg=2) for i in range(1, n)]
    inv = {}
    for i in range(n):  # y_i = x_i - p_i(y_0..y_{i-1}) with earlier y's substituted
        inv[ys[i]] = sp.expand((xs[i] - (fwd[i] - ys[i])).xreplace(inv))
    frame = []
    for k in (0, 1):
        comps = [sp.expand(sp.diff(f, ys[k]).xreplace(inv)) for f in fwd]
        frame.append(comps)
    a, b, cc, d = (_rand_poly(rng, xs[:3], terms=2, deg=1) + 1 for _ in range(4))
    X = M.vector_field([a * u + b * v for u, v in zip(*frame)])
    Y = M.vector_field([cc * u + d * v for u, v in zip(*frame)])
    return M, [X, Y]


def so_n_fields(n: int, lifted: bool = False):
    if lifted:
        M = Manifold(f"TR{n}", [f"x{i}" for i in range(n)] + [f"v{i}" for i in range(n)])
    else:
        M = Manifold(f"soR{n}", [f"x{i}" for i in range(n)])
    xs = M.coords[:n]
    vs = M.coords[n:]
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            comps = [0] * M.dim
            comps[i], comps[j] = -xs[j], xs[i]
            if lifted:
                comps[n + i], comps[n + j] = -vs[j], vs[i]
            out.append(M.vector_field(comps))
    return M, out


# -- plain sympy reference -------------------------------------------------------------------
def plain_bracket(X, Y, xs):
    return [sp.expand(sum(X[j] * sp.diff(Y[i], q) - Y[j] * sp.diff(X[i], q)
                          for j, q in enumerate(xs))) for i in range(len(xs))]


def plain_rank(vecs, n):
    return sp.Matrix(n, len(vecs), lambda i, j: vecs[j][i]).rank(simplify=True)


def plain_growth(fields, xs):
    n = len(xs)
    gens = [list(F) for F in fields]
    level, allv = gens, list(gens)
    ranks = [plain_rank(allv, n)]
    while ranks[-1] < n:
        level = [plain_bracket(X, Y, xs) for X in gens for Y in level]
        allv = allv + level
        r = plain_rank(allv, n)
        if r == ranks[-1]:
            break
        ranks.append(r)
    return tuple(ranks)


def plain_frobenius(fields, xs):
    X, Y = [list(F) for F in fields]
    Z = plain_bracket(X, Y, xs)
    return plain_rank([X, Y, Z], len(xs)) == plain_rank([X, Y], len(xs))


def plain_table(fields, xs):
    F = [list(f) for f in fields]
    return [[plain_bracket(A, B, xs) for B in F] for A in F]


# -- geomech -----------------------------------------------------------------------------------
def gm_growth(M, fields):
    return Distribution(fields, graph=BracketGraph(M)).growth_vector()


def gm_frobenius(M, fields):
    return Distribution(fields, graph=BracketGraph(M)).is_involutive()


def gm_table(M, fields):
    G = BracketGraph(M)
    keys = [G.add(F) for F in fields]
    words = [G.bracket_node(a, b) for a in keys for b in keys]
    vals = G.evaluate(words)
    return [[vals[G.bracket_node(a, b)].components for b in keys] for a in keys]


# -- graph overhead ----------------------------------------------------------------------------
def random_frame(n: int, trig: bool, seed: int = 1):
    """``(M, components)``: the random frame of ``_study_tools.random_frame`` on a chart."""
    xs, comps = tools.random_frame(n, trig, seed)
    return Manifold(f"{'T' if trig else 'P'}{n}", xs), comps


def _overhead_case(M, frame, pairs, exprs: bool):
    def direct():
        fs = [M.vector_field(v) for v in frame]
        out = [fs[i].bracket(fs[j]) for i, j in pairs]
        return [Z.components for Z in out] if exprs else out

    def graph():
        fs = [M.vector_field(v) for v in frame]
        G = BracketGraph(M)  # fresh graph: nothing memoised from the previous run
        keys = [G.add(F) for F in fs]
        out = list(G.evaluate([G.bracket_node(keys[i], keys[j]) for i, j in pairs]).values())
        return [Z.components for Z in out] if exprs else out

    return direct, graph


def bench_overhead(repeat: int, n: int = 8, runs: int | None = None) -> None:
    """Graph versus direct kernel on the same pairs: CPU time, cold caches
    (``_study_tools.timed``), runs interleaved, best of ``runs`` (default ``max(repeat,
    15)``: the machine is shared; the minimum is the least disturbed run)."""
    runs = max(repeat, 15) if runs is None else runs
    print(f"\ngraph overhead: bracket tables on R^{n}, CPU, best of {runs} interleaved cold "
          f"runs; a fresh chart/graph per run")
    print(f"{'frame':12s} {'pairs':>12s} {'results':>8s} {'direct':>9s} {'graph':>9s} "
          f"{'graph/direct':>12s}")
    upper = [(i, j) for i in range(n) for j in range(i + 1, n)]
    full = [(i, j) for i in range(n) for j in range(n)]
    worst = 0.0
    for trig in (False, True):
        M, frame = random_frame(n, trig)
        # sympy results of the trigonometric frame: normalize() of the trig expressions costs
        # seconds per table and is the same call in both paths, so it is left out
        for pname, pairs in (("i<j", upper), ("n x n", full)):
            for exprs in ((False,) if trig else (False, True)):
                direct, graph = _overhead_case(M, frame, pairs, exprs)
                d, g = direct(), graph()
                assert (d == g) if exprs else all(a == b for a, b in zip(d, g))
                times = {direct: [], graph: []}
                for _ in range(runs):
                    for fn in (direct, graph):
                        times[fn].append(tools.timed(fn)[0])
                td, tg = min(times[direct]), min(times[graph])
                worst = max(worst, tg / td)
                print(f"{'trig' if trig else 'polynomial':12s} {pname:>12s} "
                      f"{'sympy' if exprs else 'ring':>8s} {td:8.4f}s {tg:8.4f}s "
                      f"{tg / td:11.2f}x", flush=True)
    print(f"worst graph/direct ratio: {worst:.2f}x (target <= 1.2x)")


def bench_lock(n: int = 8, hits: int = 20000) -> None:
    """Single-thread cost of the graph's lock: the same work with the lock replaced by a
    no-op context (what an unsynchronised graph would cost)."""
    import contextlib

    M, frame = random_frame(n, False)
    upper = [(i, j) for i in range(n) for j in range(i + 1, n)]

    def table(G):
        keys = [G.add(M.vector_field(v)) for v in frame]
        return G.evaluate([G.bracket_node(keys[i], keys[j]) for i, j in upper])

    def run(nolock: bool):
        G = BracketGraph(M)
        if nolock:
            G._lock = contextlib.nullcontext()
        t0 = time.perf_counter()
        table(G)
        t1 = time.perf_counter()
        w = G.bracket_node(G.generators[0], G.generators[1])
        for _ in range(hits):
            G.value(w)
        return t1 - t0, (time.perf_counter() - t1) / hits

    res = {True: [], False: []}
    for _ in range(15):
        for nolock in (False, True):
            res[nolock].append(run(nolock))
    (tl, hl), (tn, hn) = (tuple(min(r[k] for r in res[x]) for k in (0, 1))
                          for x in (False, True))
    print(f"\nlock cost (single thread, best of 15): R^{n} polynomial table {tl:.4f}s with the "
          f"lock vs {tn:.4f}s without ({tl / tn:.2f}x); memo hit {hl * 1e6:.2f} us vs "
          f"{hn * 1e6:.2f} us ({hl / hn:.2f}x)")


# -- runner ----------------------------------------------------------------------------------
def _plain(kind, comps, xs):
    if kind == "growth":
        return plain_growth(comps, xs)
    if kind == "frobenius":
        return plain_frobenius(comps, xs)
    return len(plain_table(comps, xs))


def run_plain(kind, make, timeout):
    """``(wall seconds, repr(result))`` of the plain-sympy route in a child process (cold
    sympy cache), ``(None, None)`` over ``timeout``."""
    M, fields = make()
    comps = [F.components for F in fields]
    got = cpu_in_child(lambda: repr(_plain(kind, comps, M.coords)), timeout,
                       clock=time.perf_counter)
    return got if got is not None else (None, None)


def run_gm(fn, make, repeat):
    times, res = [], None
    for _ in range(repeat):
        M, fields = make()  # a fresh chart: nothing memoised from the previous run
        t0 = time.perf_counter()
        res = fn(M, fields)
        times.append(time.perf_counter() - t0)
    return times[0], statistics.median(times), res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=20.0, help="plain-sympy timeout per case")
    ap.add_argument("--repeat", type=int, default=3, help="geomech repetitions (median)")
    ap.add_argument("--quick", action="store_true", help="n = 3..5 only")
    ap.add_argument("--nmax", type=int, default=8)
    ap.add_argument("--overhead-only", action="store_true",
                    help="only the graph-versus-direct-kernel tables")
    args = ap.parse_args(argv)
    bench_overhead(args.repeat)
    bench_lock()
    if args.overhead_only:
        return 0
    nmax = 5 if args.quick else args.nmax
    cases = [("growth", "rubber ball (2,3,5)", rubber_ball),
             ("growth", "Chaplygin ball (3,5)", chaplygin_ball),
             ("growth", "rolling disk (3,4,5)", rolling_disk),
             ("growth", "Chaplygin sleigh (2,3)", sleigh)]
    for n in range(3, nmax + 1):
        cases.append(("frobenius", f"random rank-2 on R^{n}",
                      lambda n=n: random_rank2(n)))
    for n in range(3, nmax + 1):
        cases.append(("frobenius", f"random involutive rank-2 on R^{n}",
                      lambda n=n: random_involutive_rank2(n)))
    for n in range(3, nmax + 1):
        cases.append(("table", f"so({n}) table on R^{n}", lambda n=n: so_n_fields(n)))
    for n in range(3, min(nmax, 6) + 1):
        cases.append(("table", f"so({n}) lifted table on TR^{n}",
                      lambda n=n: so_n_fields(n, True)))
    fns = {"growth": gm_growth, "frobenius": gm_frobenius, "table": gm_table}
    print(f"bench_lie: geomech median of {args.repeat}; plain sympy once, in a subprocess, "
          f"timeout {args.timeout:g} s per case (ratio '>' = lower bound).")
    print("geomech 'first' = first run in this process (sympy's caches cold for the case); "
          "the ratio uses the median.")
    print(f"{'case':38s} {'first':>9s} {'geomech':>10s} {'plain':>10s} {'ratio':>9s}  result")
    ratios = {"growth": [], "frobenius": [], "table": []}
    for kind, name, make in cases:
        t1, tg, res = run_gm(fns[kind], make, args.repeat)
        tp, pres = run_plain(kind, make, args.timeout)
        if tp is None:
            plain, ratio = f">{args.timeout:g}s", f">{args.timeout / tg:.0f}x"
            ratios[kind].append(args.timeout / tg)
        else:
            plain, ratio = f"{tp:.3f}s", f"{tp / tg:.1f}x"
            ratios[kind].append(tp / tg)
            if kind != "table" and pres != repr(res):
                ratio += f" DISAGREE(plain {pres})"
        out = res if kind != "table" else f"{len(res)}x{len(res)}"
        print(f"{name:38s} {t1:8.3f}s {tg:9.3f}s {plain:>10s} {ratio:>9s}  {out}", flush=True)
    for kind, rs in ratios.items():
        if rs:
            print(f"median ratio plain/geomech [{kind}]: {statistics.median(rs):.1f}x "
                  f"(min {min(rs):.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
