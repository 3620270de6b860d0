"""Every bracket the mechanics layer takes goes through the per-chart BracketGraph.

After the growth vector of the constraint distribution, the quasi-velocity (Hamel) equations,
a definitive symmetry check and the Jacobi test of the pseudo-Hamiltonian form, the work
counters of the graphs of the charts involved have grown, and the results agree with the
direct kernel ``X.bracket(Y)`` (an independent route to the same brackets).
"""

from __future__ import annotations

import itertools

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geomech as gm
from geomech.core.zero import default_policy
from geomech.lie.graph import BracketGraph

FAST = ["chaplygin_sleigh", "rolling_disk"]
SLOW = ["chaplygin_ball", "snakeboard"]


def _work(M) -> int:
    s = BracketGraph.of(M).stats
    return s["computed"] + s["hits"] + s["reused"] + s["trivial"]


def _combination(coeffs, fields, M):
    return M.vector_field([sp.Add(*[c * F.components[i] for c, F in zip(coeffs, fields)])
                           for i in range(M.dim)])


def _routes(name):
    S = gm.examples.get(name)
    N, P = S.manifold, S.phase_space
    pol = default_policy()

    # 1. growth vector: graph brackets, and the first bracket layer equals the direct kernel
    before = _work(N)
    D = S.constraint_distribution()
    gv = D.growth_vector()
    assert _work(N) > before and gv[-1] <= N.dim and gv[0] == D.rank
    X = D.fields
    direct = [X[i].bracket(X[j]) for i in range(len(X)) for j in range(i + 1, len(X))]
    G = BracketGraph.of(N)
    assert [G.bracket(X[i], X[j]) for i in range(len(X)) for j in range(i + 1, len(X))] \
        == direct
    # the literal flag D + [D, D] from the direct kernel has the graph's second rank
    if len(gv) > 1:
        cols = [F.components for F in (*X, *direct)]
        assert pol.rank(sp.Matrix(N.dim, len(cols), lambda i, j: cols[j][i])) == gv[1]

    # 2. Hamel equations: structure functions from the graph, [v_a, e_b] = c^c_ab e_c
    before = _work(N)
    eq = S.equations("quasi_velocities")
    assert _work(N) > before
    tangent, trans = eq.data["frame"]
    frame = [*tangent, *trans]
    for (al, b), coeffs in eq.data["structure"].items():
        assert _combination(coeffs, frame, N) == tangent[al].bracket(frame[b])

    # 3. definitive symmetry test of the translation d/dx, [u~|M, V] on the phase space
    before = _work(P)
    u = N.vector_field({N.coords[[c.name for c in N.coords].index("x")]: 1})
    res = gm.check_symmetry(S, u, definitive=True)
    assert _work(P) > before
    assert res.commutes == res.prolongation.bracket(S.vector_field()).is_zero()

    # 4. Jacobi test: frame structure functions on N, brackets of the columns of J on its chart
    before_n = _work(N)
    ph = S.pseudo_hamiltonian()
    J = ph.structure
    before_j = _work(J.manifold)
    holds = J.satisfies_jacobi()
    assert _work(N) > before_n and _work(J.manifold) > before_j
    assert holds == S.is_holonomic()
    taus = [N.vector_field(list(t)) for t in ph.frame]
    fields = taus + [N.vector_field(list(a)) for a in ph.transversal]
    for s_ in range(len(taus)):
        for r in range(s_ + 1, len(taus)):
            coeffs = [*ph.c[s_][r], *ph.d[s_][r]]
            assert _combination(coeffs, fields, N) == taus[s_].bracket(taus[r])
    # a Jacobiator component from the graph equals the direct triple sum
    if not holds:
        (xi, xj, xk), e = next(iter(J.jacobiator().items()))
        assert pol.is_zero(e - J.jacobiator_component(xi, xj, xk))


@pytest.mark.parametrize("name", FAST)
def test_mechanics_brackets_go_through_the_graph(name):
    _routes(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_mechanics_brackets_go_through_the_graph_slow(name):
    _routes(name)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 4).flatmap(lambda n: st.tuples(st.just(n), st.lists(
    st.lists(st.integers(-2, 2), min_size=4, max_size=4), min_size=n * (n - 1) // 2,
    max_size=n * (n - 1) // 2))))
def test_jacobiator_from_graph_brackets_equals_the_triple_sum(data):
    r"""For a random polynomial skew J: Jac^{ijk} = [X_i, X_j]^k + (J grad J^{ij})^k with the
    brackets of the columns X_i = J e_i from the graph, equals the direct sum
    J^{il} d_l J^{jk} + cyclic, and satisfies_jacobi agrees."""
    from geomech.mechanics.analysis.poisson import AlmostPoissonStructure

    n, coeffs = data
    M = gm.Manifold(f"J{n}", [f"x{i}" for i in range(n)])
    x = M.coords
    J = sp.zeros(n, n)
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    for (i, j), c in zip(pairs, coeffs):
        J[i, j] = c[0] + c[1] * x[(i + j) % n] + c[2] * x[i] * x[j] + c[3] * x[(i + 1) % n] ** 2
        J[j, i] = -J[i, j]
    P = AlmostPoissonStructure(M, J)
    before = _work(M)
    jac = P.jacobiator()
    pol = default_policy()
    for i, j, k in itertools.combinations(range(n), 3):
        direct = P.jacobiator_component(i, j, k)
        assert pol.is_zero(jac.get((x[i], x[j], x[k]), 0) - direct)
    assert P.satisfies_jacobi() == (not jac)
    assert _work(M) > before                  # the columns are polynomial: graph brackets


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(-2, 2), min_size=9, max_size=9))
def test_jacobi_verdict_with_roots_and_parameters_agrees_with_the_direct_sum(c):
    r"""A skew J on (x, y, z) with a square root and a parameter ``a`` (the route that
    specialises ``a`` and sums in the ring of the root): ``satisfies_jacobi`` agrees with the
    direct sum :math:`J^{il}\partial_l J^{jk} + \text{cyclic}` decided by the zero policy."""
    from geomech.mechanics.analysis.poisson import AlmostPoissonStructure

    M = gm.Manifold("Jr", ["x", "y", "z"], parameters=["a"])
    x, y, z = M.coords
    a = M.parameters[0]
    r = sp.sqrt(1 + x**2)
    J = sp.zeros(3, 3)
    J[0, 1] = c[0] + c[1] * a * r + c[2] * z
    J[0, 2] = c[3] * y + c[4] * a * x * r + c[5]
    J[1, 2] = c[6] * a + c[7] * x * y / r + c[8] * z * r
    for i, j in ((0, 1), (0, 2), (1, 2)):
        J[j, i] = -J[i, j]
    X = M.coords
    direct = sp.Add(*[J[0, m] * sp.diff(J[1, 2], X[m]) + J[1, m] * sp.diff(J[2, 0], X[m])
                      + J[2, m] * sp.diff(J[0, 1], X[m]) for m in range(3)])
    assert AlmostPoissonStructure(M, J).satisfies_jacobi() == default_policy().is_zero(direct)
