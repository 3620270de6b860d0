"""Growth study: the explicit field of the free n-dimensional rigid body (Euler-Arnold
equations on so(n), symbolic principal moments ``I1..In``; Shamolin (2017), (2.7)-(2.10)).

* ``geomech``: ``gm.examples.rigid_body_so_n(n).vector_field()`` (built in the timing),
  sympy expressions;
* ``sympy``: plain sympy matrices, :math:`C = \\Omega\\mathcal M - \\mathcal M\\Omega` with
  :math:`\\mathcal M = \\Omega\\Lambda + \\Lambda\\Omega`, each rate
  :math:`-s_{ij}C_{ij}/(\\lambda_i + \\lambda_j)` expanded (the user's direct route);
* ``symengine`` (floor): the same formula in raw symengine, results left in symengine; its
  time is the mean over repeated cold calls (at least 50 ms in all: a single run of a few
  hundred microseconds is below the noise of one measurement).

n = 4..20; the agreement summary is the first three rates at one fixed rational point.
"""

from __future__ import annotations

try:
    from benchmarks import _study_tools as tools
except ImportError:  # run from the benchmarks folder
    import _study_tools as tools

STUDY = {
    "name": "so_n",
    "sizes": [4, 6, 8, 10, 12, 14, 16, 18, 20],
    "quick_sizes": [4, 8, 12],
    "tools": ["geomech", "sympy", "symengine"],
    "peer": "plain sympy matrices: -s_ij [Omega, Omega Lambda + Lambda Omega]_ij / "
            "(lambda_i + lambda_j), expanded",
    "ops": "operations of the explicit field (count_ops of the tree)",
    "floor": "raw symengine, the same formula, results left in symengine (mean of repeated "
             "cold calls)",
}


def measure(size: int, tool: str) -> dict:
    """CPU seconds, operations and three rates at a fixed point for so(``size``)."""
    n = size
    if tool == "geomech":
        import geomech as gm
        import geomech.examples  # noqa: F401  (the catalogue's import outside the timing)

        seconds, field = tools.timed(lambda: gm.examples.rigid_body_so_n(n).vector_field())
        comps = list(field.components)
    elif tool == "sympy":
        import sympy as sp

        seconds, comps = tools.timed(lambda: _rates(sp, n))
    elif tool == "symengine":
        import symengine as se

        seconds, comps = tools.timed_mean(lambda: _rates(se, n))
    else:
        raise ValueError(f"unknown tool {tool!r}")
    import sympy as sp

    comps = [sp.sympify(c) for c in comps]          # outside the timing
    point = {s: 1 + k / 7 for k, s in enumerate(sorted(set().union(
        *[c.free_symbols for c in comps]), key=lambda s: s.name))}
    names = {s.name: v for s, v in point.items()}
    point = {s: names[s.name] for c in comps for s in c.free_symbols}
    return {"seconds": seconds, "ops": tools.ops(comps),
            "result": tools.summary([tools.float_value(c, point) for c in comps[:3]])}


def _rates(lib, n: int) -> list:
    r"""The Euler-Arnold rates in Shamolin's ordering, with ``lib`` sympy or symengine."""
    N = n * (n - 1) // 2
    w = lib.symbols(f"omega1:{N + 1}")
    inertia = lib.symbols(f"I1:{n + 1}")
    total = sum(inertia, lib.Integer(0))
    lam = [total / 2 - I for I in inertia]
    O = [[lib.Integer(0)] * n for _ in range(n)]
    pairs = []
    k = 0
    for j in range(n - 1, 0, -1):
        for i in range(j - 1, -1, -1):
            s = (-1) ** (j - i)
            O[i][j], O[j][i] = s * w[k], -s * w[k]
            pairs.append((i, j, s))
            k += 1
    Om = lib.Matrix(O)
    M = lib.Matrix(n, n, [lib.expand((lam[i] + lam[j]) * O[i][j]) for i in range(n)
                          for j in range(n)])
    C = Om * M - M * Om
    return [lib.expand(-s * C[i, j]) / lib.expand(lam[i] + lam[j]) for i, j, s in pairs]
