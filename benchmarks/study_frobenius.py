"""Study: Frobenius tests with radicals and exponentials (issue 22).

Rank-2 distributions on R^4 with coefficients in :math:`\\sqrt{1+x^2}`, :math:`\\sqrt{1+y^2}`,
:math:`e^y`, :math:`e^x`, :math:`e^{xy}` and their products (sizes are the cases):

1. ``non``: :math:`X = \\partial_x + \\sqrt{1+x^2}e^y\\partial_z + \\sqrt{1+y^2}\\partial_w`,
   :math:`Y = \\partial_y + x\\sqrt{1+y^2}e^y\\partial_z + xe^y\\sqrt{1+x^2}\\partial_w`,
   not involutive;
2. ``small`` and 3. ``medium``: the kernel of :math:`dF_1, dF_2` (involutive) for
   :math:`F_1 = ze^y - \\sqrt{1+x^2}` and :math:`F_2 = w - xe^y\\sqrt{1+x^2}`, resp.
   :math:`F_2 = we^x - ye^y\\sqrt{1+x^2}`, its basis mixed by coefficients in the same
   functions.

* ``geomech``: ``gm.Distribution([X, Y]).frobenius()`` -- the roots and exponentials as
  generators of the differential ring, a non-zero bracket component proved by an interval
  enclosure at a rational point, the rank decided by the zero policy; the verdict's
  certainty is recorded (``result["certain"]``);
* ``sympy``: the user's route, ``Matrix([X, Y, [X, Y]]).rank(simplify=True)`` with the
  bracket by ``diff`` -- no certificate either way (``certain`` is ``False``).

The results agree when the verdicts (involutive or not) are the same.
"""

from __future__ import annotations

import sympy as sp

try:
    from benchmarks import _study_tools as tools
except ImportError:  # run from the benchmarks folder
    import _study_tools as tools

STUDY = {
    "name": "frobenius",
    "sizes": [1, 2, 3],
    "quick_sizes": [1, 3],
    "tools": ["geomech", "sympy"],
    "peer": "plain sympy: Matrix([X, Y, [X, Y]]).rank(simplify=True), no certificate; "
            "sizes are the cases 1 non-involutive, 2 small, 3 medium",
    "ops": "operations of the two fields (count_ops)",
    "timeout": {"sympy": 120.0},
}

CASES = {1: "non", 2: "small", 3: "medium"}


def fields(case: str) -> tuple[tuple, list[list]]:
    """The coordinates ``(x, y, z, w)`` and the components of the two fields of ``case``."""
    x, y, z, w = sp.symbols("x y z w", real=True)
    r, E, s = sp.sqrt(1 + x**2), sp.exp(y), sp.sqrt(1 + y**2)

    def kernel(F1, F2, f, g, h):
        A = [1, 0, -sp.diff(F1, x) / sp.diff(F1, z), -sp.diff(F2, x) / sp.diff(F2, w)]
        B = [0, 1, -sp.diff(F1, y) / sp.diff(F1, z), -sp.diff(F2, y) / sp.diff(F2, w)]
        return [[a + f * b for a, b in zip(A, B)], [g * a + h * b for a, b in zip(A, B)]]

    if case == "non":
        return (x, y, z, w), [[1, 0, r * E, s], [0, 1, x * s * E, x * E * r]]
    if case == "small":
        return (x, y, z, w), kernel(z * E - r, w - x * E * r, r * E, sp.exp(x * y) / r, E)
    if case == "medium":
        return (x, y, z, w), kernel(z * E - r, w * sp.exp(x) - y * r * E, r * E + s,
                                    sp.exp(x * y) / r, E * s)
    raise ValueError(f"unknown case {case!r}")


def measure(size: int, tool: str) -> dict:
    """CPU seconds of the Frobenius test of case ``size``, its verdict and certainty."""
    coords, (X, Y) = fields(CASES[size])
    if tool == "geomech":
        import geomech as gm

        M = gm.Manifold("M", coords)
        D = gm.Distribution([M.vector_field(X), M.vector_field(Y)])
        seconds, fr = tools.timed(D.frobenius)
        verdict = {"involutive": bool(fr.involutive), "certain": bool(fr.certain)}
    elif tool == "sympy":
        def run():
            br = [sum(X[j] * sp.diff(Y[i], coords[j]) - Y[j] * sp.diff(X[i], coords[j])
                      for j in range(4)) for i in range(4)]
            return sp.Matrix([X, Y, br]).rank(simplify=True)

        seconds, rank = tools.timed(run)
        verdict = {"involutive": rank == 2, "certain": False}
    else:
        raise ValueError(f"unknown tool {tool!r}")
    return {"seconds": seconds, "ops": tools.ops([*X, *Y]), "result": verdict}
