"""Growth study: the trigonometric bracket table on R^n (issue 22).

``n`` random fields on R^n, three terms of degree <= 2 per component times ``sin``/``cos`` of a
coordinate (``_study_tools.random_frame(n)``); the ``n(n-1)/2`` brackets ``i < j``.

* ``geomech``: ``X.bracket(Y).components`` -- sympy expressions, normalised;
* ``peer``: plain sympy, ``[X,Y]^i = X^j d_j Y^i - Y^j d_j X^i`` with ``diff`` + ``expand``;
* ``floor``: raw symengine on pre-converted inputs, results left in symengine.
"""

from __future__ import annotations

import sympy as sp

try:
    from benchmarks import _study_tools as tools
except ImportError:  # run from the benchmarks folder
    import _study_tools as tools

STUDY = {
    "name": "bracket_table",
    "sizes": [4, 6, 8, 10],
    "quick_sizes": [4, 6],
    "tools": ["geomech", "peer", "floor"],
    "peer": "plain sympy: diff + expand per component",
    "ops": "brackets computed (the same on every side)",
    "floor": "raw symengine on pre-converted inputs, its own expressions (no conversion)",
}


def _summary(tables, xs) -> dict:
    """Values at a fixed point (rounded): the results agree as functions."""
    pt = {x.name: sp.Rational(k + 2, 7) for k, x in enumerate(xs)}

    def value(c) -> float:
        e = sp.sympify(c)
        return abs(float(e.xreplace({s: pt[s.name] for s in e.free_symbols})))

    tot = sum(value(c) for t in tables for c in t)
    return {"brackets": len(tables), "abs_sum": round(tot, 6)}


def measure(size: int, tool: str) -> dict:
    xs, fr = tools.random_frame(size)
    pairs = [(i, j) for i in range(size) for j in range(i + 1, size)]
    if tool == "floor":
        import symengine as se

        sx = [se.sympify(x) for x in xs]
        sf = [[se.sympify(c) for c in row] for row in fr]
        dt, out = tools.timed(lambda: [[se.expand(sum(
            sf[i][k] * sf[j][c].diff(sx[k]) - sf[j][k] * sf[i][c].diff(sx[k])
            for k in range(size))) for c in range(size)] for i, j in pairs])
    elif tool == "peer":
        dt, out = tools.timed(lambda: [[sp.expand(sum(
            fr[i][k] * sp.diff(fr[j][c], xs[k]) - fr[j][k] * sp.diff(fr[i][c], xs[k])
            for k in range(size))) for c in range(size)] for i, j in pairs])
    else:
        from geomech.core.manifold import Manifold

        M = Manifold(f"T{size}", xs)

        def run():
            fs = [M.vector_field(c) for c in fr]
            return [fs[i].bracket(fs[j]).components for i, j in pairs]

        dt, out = tools.timed(run)
    return {"seconds": dt, "ops": len(pairs), "result": _summary(out, xs)}
