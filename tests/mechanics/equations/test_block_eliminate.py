"""Block-triangular solves of the constraints (:func:`~geomech.mechanics.equations.elimination.
block_eliminate`): the Whipple bicycle's dependent velocities in closed form satisfy its
constraints exactly at exact points, the pitch rate is the implicit function theorem's, and a
block solve equals the plain solve."""

import random
from fractions import Fraction

import sympy as sp

import geomech as gm
from geomech.core.algebra.taylor import taylor_jet
from geomech.mechanics.analysis.point_flag import exact_sample_point
from geomech.mechanics.equations.elimination import block_eliminate, block_triangular_order


def test_bicycle_closed_forms_satisfy_the_constraints_exactly():
    """A(q) qdot = 0 with the dependent velocities substituted, exactly (rational arithmetic)
    at exact points on h = 0 with random rational independent velocities; and
    thetaBdot = -(h_phi phidot + h_delta deltadot) / h_thetaB (implicit function theorem)."""
    S = gm.examples.whipple_bicycle()
    sol = S.dependent_solution
    A, vel = S.constraint_matrix, S.manifold.velocities
    qdot = [sol.get(v, v) for v in vel]
    rows = [sp.Add(*[A[i, j] * qdot[j] for j in range(A.cols) if A[i, j] != 0])
            for i in range(A.rows)]
    h, q = S.holonomic[0], dict(zip(map(str, S.manifold.coords), S.manifold.coords))
    v = dict(zip(map(str, vel), vel))
    ift = -(h.diff(q["phi"]) * v["phidot"] + h.diff(q["delta"]) * v["deltadot"]) \
        / h.diff(q["thetaB"])
    rng = random.Random(5)
    for seed in (0, 1):
        vals, angs, _ = exact_sample_point(S, seed=seed)
        vals = {**vals, **{u: Fraction(rng.randint(-9, 9), rng.randint(1, 5))
                           for u in S.independent_velocities}}
        memo: dict = {}
        assert all(taylor_jet(r, vals, angs, [], 0, memo).value == 0 for r in rows)
        assert (taylor_jet(sol[v["thetaBdot"]] - ift, vals, angs, [], 0, memo).value == 0)


def test_block_solve_equals_the_plain_solve():
    """A matrix block triangular up to permutations (blocks 2, 1, 2): the block solve is
    the solution of A x = b (exact residual, cancelled)."""
    a, b, c, d, e = sp.symbols("a b c d e")
    A = sp.Matrix([[0, 0, a, 1, 0],
                   [b, 1, 0, c, 0],
                   [0, 0, 1, a, 0],
                   [1, b, d, 0, e],
                   [0, 0, 0, 0, c + 2]])
    assert sorted(len(R) for R, _ in block_triangular_order(A)) == [1, 2, 2]
    rhs = sp.Matrix(sp.symbols("y1:6"))
    X = block_eliminate(A, rhs)
    assert (A * X - rhs).applyfunc(sp.cancel) == sp.zeros(5, 1)
