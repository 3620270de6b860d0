"""Which exact backend for the bracket kernel?  python-flint vs the packed kernel vs symengine.

The question of the engine issue: would python-flint's ``fmpq_mpoly`` (FLINT's sparse
multivariate polynomials over Q) beat geomech's packed-monomial kernel (pure Python integers,
gmpy2 for the rationals when installed) on the work the library does -- a table of brackets
of a polynomial frame on R^n, inputs and outputs as sympy expressions?

Contenders, all on the same frame, sympy cache cleared before every timed run:

* ``packed``          -- geomech: ``M.vector_field(c)``, ``X.bracket(Y)``, ring results;
* ``packed + exprs``  -- the same with every component read as a sympy expression;
* ``flint arith``     -- FLINT arithmetic only (inputs converted beforehand, not timed);
* ``flint end-to-end``-- sympy -> fmpq_mpoly, brackets, fmpq_mpoly -> sympy;
* ``symengine raw``   -- the formula on symengine expressions (inputs converted beforehand),
  the floor of an expression-tree engine.

Run: ``python benchmarks/bench_backends.py [--quick]``.  Results are checked to agree.
"""

from __future__ import annotations

import sys

import sympy as sp
from sympy.polys.domains import QQ
from sympy.polys.rings import ring

try:
    from benchmarks._common import fmt, median_time, ratio, table
    from benchmarks.bench_core import (
        _to_symengine,
        plain_sympy_bracket,
        polynomial_frame,
        symengine_bracket,
    )
except ImportError:  # run as a script from the benchmarks folder
    from _common import fmt, median_time, ratio, table
    from bench_core import _to_symengine, plain_sympy_bracket, polynomial_frame, symengine_bracket

QUICK = "--quick" in sys.argv


def _flint_context(coords):
    import flint

    names = [str(c) for c in coords]
    if hasattr(flint.fmpq_mpoly_ctx, "get"):
        return flint.fmpq_mpoly_ctx.get(names, "lex")
    return flint.fmpq_mpoly_ctx(len(names), flint.Ordering.lex, names)  # pragma: no cover


def _to_flint(ctx, R, e):
    """sympy -> fmpq_mpoly through sympy's sparse ring (its fastest conversion)."""
    import flint

    return ctx.from_dict({m: flint.fmpq(int(c.numerator), int(c.denominator))
                          for m, c in R(e).items()})


def _from_flint(R, p):
    """fmpq_mpoly -> sympy expression through the sparse ring's canonical conversion."""
    QQ = R.domain
    return R.from_dict({m: QQ(int(c.p), int(c.q)) for m, c in p.to_dict().items()}).as_expr()


def _flint_table(ctx, F, n):
    zero = ctx.from_dict({})
    return [[sum((X[k] * Y[i].derivative(k) - Y[k] * X[i].derivative(k) for k in range(n)),
                 zero) for i in range(n)]
            for a, X in enumerate(F) for Y in F[a + 1:]]


def bench_backends():
    try:
        import flint  # noqa: F401
    except ImportError:
        print("python-flint is not installed: nothing to compare")
        return
    import geomech as gm  # noqa: F401  (warm imports outside the timings)

    rows = []
    for n in ((4, 8) if QUICK else (4, 6, 8, 10)):
        M, frame = polynomial_frame(n)
        coords = M.coords
        ctx = _flint_context(coords)
        R, *_ = ring(coords, QQ)

        def packed():
            fs = [M.vector_field(c) for c in frame]
            return [fs[i].bracket(fs[j]) for i in range(n) for j in range(i + 1, n)]

        def packed_exprs():
            return [b.components for b in packed()]

        F = [[_to_flint(ctx, R, c) for c in f] for f in frame]

        def flint_end_to_end():
            G = [[_to_flint(ctx, R, c) for c in f] for f in frame]
            return [[_from_flint(R, p) for p in r] for r in _flint_table(ctx, G, n)]

        sf, sx = _to_symengine(frame), _to_symengine([coords])[0]
        ref = [plain_sympy_bracket(frame[i], frame[j], coords)
               for i in range(n) for j in range(i + 1, n)]
        assert all(b.components == tuple(r) for b, r in zip(packed(), ref))
        assert all(sp.expand(a - b) == 0 for r, s in zip(flint_end_to_end(), ref)
                   for a, b in zip(r, s))
        t_p, t_pe = median_time(packed, 5), median_time(packed_exprs, 5)
        t_fa = median_time(lambda: _flint_table(ctx, F, n), 5)
        t_fe = median_time(flint_end_to_end, 3)
        t_se = median_time(lambda: [symengine_bracket(sf[i], sf[j], sx)
                                    for i in range(n) for j in range(i + 1, n)], 5)
        rows.append([n, fmt(t_p), fmt(t_pe), fmt(t_fa), fmt(t_fe), fmt(t_se),
                     ratio(t_p, t_fa), ratio(t_pe, t_fe)])
    table("bracket table of a polynomial frame on R^n: exact backends (cold sympy cache)",
          ["n", "packed", "packed + exprs", "flint arith", "flint end-to-end", "symengine raw",
           "packed/flint arith", "exprs: packed/flint"], rows)
    print("Reading: FLINT's arithmetic beats the packed kernel by the factor in the "
          "'packed/flint arith' column, but the sympy <-> fmpq_mpoly conversions cost more than "
          "that gain on the library's inputs and outputs ('exprs' column < 1 means packed is "
          "faster end-to-end).")


_GROUND_PROBE = """
import sys
sys.path.insert(0, {here!r})
from sympy.external.gmpy import GROUND_TYPES
from _common import median_time
from bench_core import polynomial_frame
import geomech as gm
n = 8
M, frame = polynomial_frame(n)
def packed():
    fs = [M.vector_field(c) for c in frame]
    return [fs[i].bracket(fs[j]) for i in range(n) for j in range(i + 1, n)]
exprs = median_time(lambda: [b.components for b in packed()], 5)
print(GROUND_TYPES, median_time(packed, 5), exprs)
"""


def bench_ground_types():
    """The packed kernel under sympy's ground types python / gmpy (gmpy2) / flint."""
    import os
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    rows = []
    for gt in ("python", "gmpy", "flint"):
        env = {**os.environ, "SYMPY_GROUND_TYPES": gt}
        out = subprocess.run([sys.executable, "-c", _GROUND_PROBE.format(here=here)], env=env,
                             capture_output=True, text=True, timeout=600)
        if out.returncode:
            rows.append([gt, "failed", "", ""])
            continue
        used, t_ring, t_expr = out.stdout.split()
        rows.append([gt, used, fmt(float(t_ring)), fmt(float(t_expr))])
    table("packed kernel on R^8 under sympy's ground types (SYMPY_GROUND_TYPES)",
          ["asked", "used", "ring results", "+ sympy exprs"], rows)


if __name__ == "__main__":
    bench_backends()
    bench_ground_types()
