"""Core benchmarks: brackets, bracket tables and d(w)^w, geomech vs sympy vs sympy.diffgeom.

Run: ``python benchmarks/bench_core.py [--quick]``.  Prints medians and ratios; every
comparison is made in the same run on the same inputs.  Results are checked to agree.
"""

from __future__ import annotations

import random
import sys

import sympy as sp

import geomech as gm
from geomech.core import kernel
from geomech.core.algebra import differential_ring

try:
    from benchmarks._common import capped_time, fmt, median_time, ratio, table
except ImportError:  # run as a script from the benchmarks folder
    from _common import capped_time, fmt, median_time, ratio, table

QUICK = "--quick" in sys.argv


def cold_rings(fn):
    """``fn`` run with geomech's ring caches cleared first (rings, conversion caches): sympy's
    cache is cleared by ``median_time``; both sides then start cold."""
    def run():
        differential_ring.clear_caches()
        return fn()
    return run
CAP = 10.0 if QUICK else 30.0


def random_poly(coords, rng, terms=4, degree=3):
    acc = 0
    for _ in range(terms):
        c = rng.randint(-5, 5) or 1
        mono = c
        for _ in range(rng.randint(1, degree)):
            mono *= rng.choice(coords)
        acc += mono
    return acc


def generic_fields(n, seed=0):
    rng = random.Random(seed)
    M = gm.Manifold(f"R{n}", [f"x{i}" for i in range(n)])
    X = [random_poly(M.coords, rng) for _ in range(n)]
    Y = [random_poly(M.coords, rng) for _ in range(n)]
    return M, X, Y


def symengine_bracket(X, Y, coords):
    """Raw symengine: the same formula on symengine objects (inputs converted beforehand)."""
    import symengine as se

    return [se.expand(sum((X[j] * se.diff(Y[i], x) - Y[j] * se.diff(X[i], x)
                           for j, x in enumerate(coords)), se.Integer(0)))
            for i in range(len(coords))]


def _to_symengine(rows):
    import symengine as se

    return [[se.sympify(c) for c in r] for r in rows]


def plain_sympy_bracket(X, Y, coords):
    return [sp.expand(sum(X[j] * sp.diff(Y[i], x) - Y[j] * sp.diff(X[i], x)
                          for j, x in enumerate(coords))) for i in range(len(coords))]


def diffgeom_bracket(X, Y, n):
    from sympy.diffgeom import CoordSystem, LieDerivative, Manifold, Patch

    man = Manifold("M", n)
    patch = Patch("P", man)
    cs = CoordSystem("c", patch, sp.symbols(f"x0:{n}", real=True))
    sub = dict(zip(sp.symbols(f"x0:{n}", real=True), cs.coord_functions()))
    vX = sum(sp.sympify(c).xreplace(sub) * e for c, e in zip(X, cs.base_vectors()))
    vY = sum(sp.sympify(c).xreplace(sub) * e for c, e in zip(Y, cs.base_vectors()))
    out = LieDerivative(vX, vY)
    return [sp.expand(out.rcall(f)) for f in cs.coord_functions()]


def bench_bracket():
    rows = []
    for n in (2, 4, 8, 16):
        M, X, Y = generic_fields(n)
        fX, fY = M.vector_field(X), M.vector_field(Y)

        def ours():
            return M.vector_field(X).bracket(M.vector_field(Y))

        t_ours = median_time(cold_rings(ours))
        with kernel.using_backend("sympy"):
            t_ours_sympy = median_time(ours)
        t_plain = median_time(lambda: plain_sympy_bracket(X, Y, M.coords))
        ref = plain_sympy_bracket(X, Y, M.coords)
        assert all(sp.expand(a - b) == 0 for a, b in zip(fX.bracket(fY).components, ref))
        t_dg = capped_time(lambda: diffgeom_bracket(X, Y, n), CAP) if n <= 8 else None
        rows.append([n, fmt(t_ours), fmt(t_ours_sympy), fmt(t_plain), fmt(t_dg, CAP),
                     ratio(t_plain, t_ours), ratio(t_dg, t_ours, CAP)])
    table("one bracket of two generic polynomial fields on R^n",
          ["n", "geomech", "geomech(sympy kernel)", "plain sympy", "sympy.diffgeom",
           "plain/geomech", "diffgeom/geomech"], rows)


def polynomial_frame(n, seed=1):
    rng = random.Random(seed)
    M = gm.Manifold(f"F{n}", [f"x{i}" for i in range(n)])
    frame = [[random_poly(M.coords, rng, terms=3, degree=2) for _ in range(n)] for _ in range(n)]
    return M, frame


def bench_table():
    has_se = "symengine" in kernel.available_backends()
    rows = []
    for n in range(3, 9):
        M, frame = polynomial_frame(n)

        def ours():
            fs = [M.vector_field(c) for c in frame]
            return [fs[i].bracket(fs[j]) for i in range(n) for j in range(i + 1, n)]

        def ours_expr():
            return [b.components for b in ours()]

        def plain():
            return [plain_sympy_bracket(frame[i], frame[j], M.coords)
                    for i in range(n) for j in range(i + 1, n)]

        t_ours, t_plain = median_time(cold_rings(ours), 5), median_time(plain)
        t_expr = median_time(cold_rings(ours_expr), 5)
        t_se = None
        if has_se:
            sf, sx = _to_symengine(frame), _to_symengine([M.coords])[0]
            t_se = median_time(lambda: [symengine_bracket(sf[i], sf[j], sx)
                                        for i in range(n) for j in range(i + 1, n)], 5)
        ref = plain()
        assert all(b.components == tuple(r) for b, r in zip(ours(), ref))
        rows.append([n, n * (n - 1) // 2, fmt(t_ours), fmt(t_expr), fmt(t_se), fmt(t_plain),
                     ratio(t_plain, t_ours), ratio(t_plain, t_expr),
                     ratio(t_ours, t_se) if t_se else "n/a"])
    table("bracket table of a polynomial frame on R^n (inputs given as sympy expressions; "
          "sympy cache cleared before every run)",
          ["n", "brackets", "geomech (ring results)", "geomech (+ sympy exprs)",
           "symengine raw", "plain sympy", "plain/ring", "plain/exprs", "ring/symengine"], rows)


def bench_dw_wedge_w():
    rows = []
    for n in (3, 5, 7, 9):
        rng = random.Random(n)
        M = gm.Manifold(f"W{n}", [f"x{i}" for i in range(n)])
        comps = [random_poly(M.coords, rng, terms=3, degree=2) for _ in range(n)]

        def ours():
            w = M.one_form(comps)
            return w.d().wedge(w)

        def plain():
            # components of dw ^ w on increasing triples, written out with sympy
            c = comps
            out = {}
            for i in range(n):
                for j in range(i + 1, n):
                    for k in range(j + 1, n):
                        dij = sp.diff(c[j], M.coords[i]) - sp.diff(c[i], M.coords[j])
                        djk = sp.diff(c[k], M.coords[j]) - sp.diff(c[j], M.coords[k])
                        dik = sp.diff(c[k], M.coords[i]) - sp.diff(c[i], M.coords[k])
                        out[(i, j, k)] = sp.expand(dij * c[k] + djk * c[i] - dik * c[j])
            return out

        t_ours, t_plain = median_time(ours), median_time(plain)
        ref = plain()
        got = ours()
        assert all(sp.expand(got.coefficient(k) - v) == 0 for k, v in ref.items())
        rows.append([n, fmt(t_ours), fmt(t_plain), ratio(t_plain, t_ours)])
    table("d(w) ^ w for a polynomial 1-form on R^n", ["n", "geomech", "plain sympy",
                                                       "plain/geomech"], rows)


if __name__ == "__main__":
    print(f"kernel backend: {kernel.get_backend()}  (available: {kernel.available_backends()})")
    bench_bracket()
    bench_table()
    bench_dw_wedge_w()
