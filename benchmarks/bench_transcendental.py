"""Zero tests with logarithms: the sharp-edge body's integral.

The case (in a fresh process, cold caches, CPU time, best of ``--repeat``): the sharp-edge
body's integral with logarithms (Borisov & Mamaev 2015, §6.1), ``V(P1) = 0`` and a
perturbation of it.  (The Frobenius tests with radicals and exponentials are the suite's
study ``benchmarks/study_frobenius.py``.)

The peer is the route a sympy user takes for the same question: ``simplify(expr) == 0`` (no
certificate either way), capped by ``--timeout``.  Verdicts are printed beside the times:
geomech's "certain" is a proof, the peer's answer is not.

Run:  python benchmarks/bench_transcendental.py [--repeat 2] [--timeout 120] [--cases ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap

CASES = ("sharp_edge",)

_SETUP = textwrap.dedent('''
    import resource, sys, time, warnings
    import sympy as sp
    import geomech as gm
    from sympy.core.cache import clear_cache
    warnings.simplefilter("ignore")
    def sharp_edge():
        S = gm.examples.sharp_edge_body()
        N = S.manifold
        x_, y_, th, ph, ps = N.coords
        xd, yd, thd, phd, psd = N.velocities
        m, R, b, I1, I3, g = N.parameters
        c = sp.cos(th)
        w3 = phd + psd*c
        F0 = (1 + c)*sp.log(1 + c) + (1 - c)*sp.log(1 - c)
        P1 = (I1*((xd*sp.cos(ps) + yd*sp.sin(ps))/R - psd*c
                  - psd*sp.sin(th)**2/2*sp.log((1 + c)/(1 - c))) - I3*w3/2*(F0 - 2*b*th/R))
        V = S.vector_field()
        return V(S.restricted(P1)), V(S.restricted(P1 + b*sp.log(1 + c)))
''')

_GEOMECH = _SETUP + textwrap.dedent('''
    clear_cache()
    exprs = sharp_edge()
    from geomech.core.zero import ZeroPolicy
    pol = ZeroPolicy(warn=False)
    t0 = time.process_time()
    verdicts = [pol.zero_test(e) for e in exprs]
    dt = time.process_time() - t0
    out = " ".join(("zero" if v.zero else "non-zero") + "/"
                   + ("certain" if v.certain else "probable") for v in verdicts)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{dt:.3f} {rss:.0f} {out}")
''')

_PEER = _SETUP + textwrap.dedent('''
    clear_cache()
    exprs = sharp_edge()
    t0 = time.process_time()
    out = " ".join("zero" if sp.simplify(e) == 0 else "non-zero" for e in exprs)
    dt = time.process_time() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{dt:.3f} {rss:.0f} {out}")
''')


def _run(code: str, case: str, timeout: float) -> tuple[float | None, str, str]:
    try:
        out = subprocess.run([sys.executable, "-c", code, case], capture_output=True,
                             text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", f">{timeout:g} s"
    if out.returncode:
        return None, "", "failed: " + out.stderr.strip().splitlines()[-1][:60]
    t, rss, verdict = out.stdout.split(" ", 2)
    return float(t), rss, verdict.strip()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    args = ap.parse_args(argv)
    print(f"{'case':12} {'geomech cpu':>12} {'peak MiB':>9} {'verdict':28} "
          f"{'sympy cpu':>10} {'verdict':16} ratio")
    for case in args.cases:
        ours = [_run(_GEOMECH, case, args.timeout) for _ in range(args.repeat)]
        peer = [_run(_PEER, case, args.timeout) for _ in range(args.repeat)]
        best = min((r for r in ours if r[0] is not None), default=ours[0], key=lambda r: r[0])
        pbest = min((r for r in peer if r[0] is not None), default=peer[0], key=lambda r: r[0])
        t = f"{best[0]:.2f} s" if best[0] is not None else best[2]
        pt = f"{pbest[0]:.2f} s" if pbest[0] is not None else pbest[2]
        ratio = (f"{pbest[0] / best[0]:.1f}x" if best[0] and pbest[0] is not None
                 else "n/a")
        print(f"{case:12} {t:>12} {best[1]:>9} {best[2]:28} {pt:>10} {pbest[2]:16} {ratio}")


if __name__ == "__main__":
    main()
