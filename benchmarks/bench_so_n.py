"""Benchmark: assembly of the Euler-Arnold equations on so(n), n = 3..12.

Three ways in one run, all symbolic with generic principal moments I1..In:

* ``geomech``   -- ``rigid_body_so_n(n).equations()`` (sparse kernel building expanded
  monomials directly); also ``.vector_field()`` (solved for omega-dot, normalised by the
  zero policy) reported separately;
* ``sympy``     -- plain sympy matrices: ``Od*L + L*Od + O*(O*L + L*O) - (O*L + L*O)*O - M``,
  entries expanded;
* ``galgebra``  -- bivectors: the commutator product of Omega and the momentum bivector
  (``(A*B - B*A)/2``) in ``Ga(R^n)``; small n only, each run in a child process killed after
  ``--cap`` seconds.

The sympy cache is cleared before every timed run.  Prints medians (seconds) and ratios.
Usage: ``python benchmarks/bench_so_n.py [--nmax 12] [--repeat 3] [--cap 20]``.
"""

from __future__ import annotations

import argparse
import sys
import time

import sympy as sp

from geomech.mechanics.models.euler_arnold import inertia_lambdas
from geomech.mechanics.models.rigid_body_so_n import rigid_body_so_n
from geomech.mechanics.models.so_n import hat

try:
    from benchmarks._common import capped_time, median_time
except ImportError:  # run from the benchmarks folder
    from _common import capped_time, median_time


def geomech_equations(n):
    return rigid_body_so_n(n).equations()


def geomech_vector_field(n):
    return rigid_body_so_n(n).vector_field()


def sympy_matrices(n):
    N = n * (n - 1) // 2
    w = sp.symbols(f"omega1:{N + 1}", real=True)
    wd = [sp.Symbol(f"omega{k}dot", real=True) for k in range(1, N + 1)]
    I = sp.symbols(f"I1:{n + 1}", positive=True)
    L = sp.symbols(f"L1:{N + 1}", real=True)
    O, Od, Mt = hat(w), hat(wd), hat(L)
    Lam = sp.diag(*inertia_lambdas(I))
    Mom = O * Lam + Lam * O
    R = Od * Lam + Lam * Od + O * Mom - Mom * O - Mt
    return [sp.expand(R[i, j]) for i in range(n) for j in range(i + 1, n)]


def galgebra_bivectors(n):
    from galgebra.ga import Ga

    N = n * (n - 1) // 2
    ga, *e = Ga.build(" ".join(f"e{i + 1}" for i in range(n)), g=[1] * n)
    w = sp.symbols(f"omega1:{N + 1}", real=True)
    I = sp.symbols(f"I1:{n + 1}", positive=True)
    lam = inertia_lambdas(I)
    O = hat(w)
    B = 0 * (e[0] ^ e[1])
    Mb = 0 * (e[0] ^ e[1])
    for i in range(n):
        for j in range(i + 1, n):
            B = B + O[i, j] * (e[i] ^ e[j])
            Mb = Mb + sp.expand((lam[i] + lam[j]) * O[i, j]) * (e[i] ^ e[j])
    C = (B * Mb - Mb * B) / 2                         # iota(C) = [Omega, M]
    return [sp.expand(c) for c in C.get_coefs(2)]


def check_agreement(n):
    """geomech's equations equal the plain-matrix residual entries (sign s_ij)."""
    rb = rigid_body_so_n(n)
    mat = sympy_matrices(n)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    for (i, j), s, eq in zip(rb.basis.pairs, rb.basis.signs, rb.equations()):
        r = mat[pairs.index((i, j))]
        if sp.expand(s * r - (eq.lhs - eq.rhs)) != 0:
            return False
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nmin", type=int, default=3)
    ap.add_argument("--nmax", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cap", type=float, default=20.0, help="galgebra time cap (s) per n")
    args = ap.parse_args(argv)

    rigid_body_so_n(3).equations()                    # import warm-up
    print("agreement geomech == sympy matrices for n=3..6:",
          all(check_agreement(n) for n in range(3, 7)))
    hdr = (f"{'n':>3} {'geomech eqs':>12} {'(cpu)':>8} {'geomech vf':>11} {'sympy mat':>10} "
           f"{'galgebra':>10} {'sympy/gm':>9} {'galg/gm':>9}")
    print("wall-clock medians in seconds (cpu = process time of the geomech run); "
          "sympy cache cleared before each run")
    print(hdr)
    galg_on = True
    for n in range(args.nmin, args.nmax + 1):
        tg = median_time(lambda: geomech_equations(n), args.repeat)
        tc = median_time(lambda: geomech_equations(n), args.repeat, clock=time.process_time)
        tv = median_time(lambda: geomech_vector_field(n), 1 if n > 8 else args.repeat)
        ts = median_time(lambda: sympy_matrices(n), 1 if n > 8 else args.repeat)
        ta = capped_time(lambda: galgebra_bivectors(n), args.cap) if galg_on else None
        if ta is None:
            galg_on = False
        tas = f"{ta:10.3f}" if ta is not None else f"{'>' + str(int(args.cap)) + 's':>10}" \
            if galg_on is False and n >= args.nmin else f"{'-':>10}"
        rat = f"{ta / tg:9.0f}" if ta is not None else f"{'-':>9}"
        print(f"{n:>3} {tg:12.4f} {tc:8.4f} {tv:11.4f} {ts:10.3f} {tas} {ts / tg:9.1f} {rat}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
