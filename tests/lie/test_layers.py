"""The modules split out of the lie layer: each answer checked against the mathematics."""

from __future__ import annotations

import sympy as sp

from geomech.core.algebra import rank
from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.lie.algebra import LieAlgebra
from geomech.lie.characteristics import characteristic_integrals
from geomech.lie.coefficients import constant_coefficients, function_coefficients
from geomech.lie.distribution import Distribution
from geomech.lie.orbits import express_in_invariants, independent_subset, vectors_rank
from geomech.lie.span import Evaluator, Span, columns, kernel
from geomech.lie.subspace import rref_basis, solve_in_span
from geomech.lie.words import hall_words, lyndon_words, word_length

pol = default_policy()


def test_kernel_is_annihilated_and_complementary():
    """A basis of the kernel: A v = 0 for each v, and rank A + dim ker = n."""
    x, y, p = sp.symbols("x y phi")
    rows = [(sp.cos(p), sp.sin(p), 0, x), (0, 0, 1, y)]
    ker = kernel(rows, 4)
    A = sp.Matrix(rows)
    assert len(ker) + rank(A) == 4
    assert all(pol.is_zero(e) for v in ker for e in A * sp.Matrix(v))
    assert rank(sp.Matrix(ker)) == len(ker)


def test_first_outside_agrees_with_the_exact_rank():
    x, y, z = sp.symbols("x y z")
    s = Span(3, Evaluator())
    s.extend([("a", (x, y, 0)), ("b", (1, 0, z))])
    cands = [("in", (x + 1, y, z)), ("out", (0, 0, 1))]
    for _, comps in cands:
        grows = rank(columns(s.vals + [comps], 3)) > s.rank
        assert s.contains(comps) is not grows
    assert s.first_outside(cands) == "out"


def test_solve_in_span_reconstructs_the_vector():
    k = sp.Symbol("k")
    basis = rref_basis([[1, k, 0], [0, 1, k], [1, k + 1, k]], 3)
    assert len(basis) == 2                     # the third vector is the sum of the first two
    v = [2, 2 * k + 3, 3 * k]                  # 2 (1, k, 0) + 3 (0, 1, k)
    a = solve_in_span(basis, v)
    assert all(pol.is_zero(sum(ai * b[i] for ai, b in zip(a, basis)) - v[i]) for i in range(3))
    assert solve_in_span(basis, [0, 0, 1]) is None


def test_coefficients_recombine_to_the_target():
    M = Manifold("M", "x y")
    x, y = M.coords
    X, Y = M.vector_field([1, y]), M.vector_field([0, x])
    T = M.vector_field([3, 3 * y + 2 * x])
    c = constant_coefficients([X, Y], T)
    assert (c[0] * X + c[1] * Y - T).is_zero()
    f = function_coefficients([X, Y], M.vector_field([x, x * y + 1]))
    assert (f[0] * X + f[1] * Y - M.vector_field([x, x * y + 1])).is_zero()


def test_structure_theory_of_the_catalogue():
    """so(3) is semisimple (Killing form non-degenerate) with a trivial centre; the Heisenberg
    algebra is nilpotent with a one-dimensional centre, equal to its derived algebra."""
    so3, h = LieAlgebra.so(3), LieAlgebra.heisenberg()
    assert so3.is_semisimple() and so3.center().dim == 0
    assert h.is_nilpotent() and h.center() == h.derived_algebra() and h.center().dim == 1


def test_characteristic_integrals_are_integrals():
    M = Manifold("M", "x y")
    x, y = M.coords
    X = M.vector_field([1, y])
    found = characteristic_integrals(Distribution([X]), M.coords)
    assert found and all(pol.is_zero(X(f)) for f in found)


def test_orbit_coordinates():
    M = Manifold("M", "x y z")
    x, y, z = M.coords
    rot = M.vector_field([-y, x, 0])
    assert independent_subset([rot, x * rot, M.vector_field([0, 0, 1])])[-1].components[2] == 1
    assert vectors_rank([rot.components, (x * rot).components]) == 1
    r2, Z = sp.symbols("r2 Z")
    (V,), _, _ = express_in_invariants([z * (x**2 + y**2) + z**2], [x**2 + y**2, z], [rot],
                                       [r2, Z])
    assert pol.is_zero(V.xreplace({r2: x**2 + y**2, Z: z}) - z * (x**2 + y**2) - z**2)


def test_hall_and_lyndon_bases_have_witt_dimensions():
    def witt(m, k):
        return sum(sp.mobius(d) * m ** (k // d) for d in sp.divisors(k)) // k

    for words in (hall_words(3, 5), lyndon_words(3, 5)):
        for k in range(1, 6):
            assert len([w for w in words if word_length(w) == k]) == witt(3, k)
