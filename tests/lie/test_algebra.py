"""LieAlgebra: catalogue, Jacobi, derived / lower central series, adapted basis, fields."""

from __future__ import annotations

import itertools

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.lie.algebra import LieAlgebra, NotALieAlgebraError
from geomech.lie.coefficients import constant_coefficients

c, s = sp.cos, sp.sin

CATALOGUE = {
    "so(2)": lambda: LieAlgebra.so(2),
    "so(3)": lambda: LieAlgebra.so(3),
    "so(4)": lambda: LieAlgebra.so(4),
    "so(5)": lambda: LieAlgebra.so(5),
    "se(2)": lambda: LieAlgebra.se(2),
    "se(3)": lambda: LieAlgebra.se(3),
    "heisenberg(1)": lambda: LieAlgebra.heisenberg(),
    "heisenberg(2)": lambda: LieAlgebra.heisenberg(2),
    "aff(1)": lambda: LieAlgebra.aff(1),
}


def _jacobiator_explicit(g: LieAlgebra, C, i, j, k):
    """Jacobi sum computed directly from the structure constant array ``C`` (nested lists)."""
    d = g.dim
    out = []
    for m in range(d):
        tot = 0
        for a, b, cc in ((i, j, k), (j, k, i), (k, i, j)):
            tot += sum(C[a][b][l] * C[l][cc][m] for l in range(d))
        out.append(sp.expand(tot))
    return out


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_catalogue_jacobi_and_antisymmetry(name):
    g = CATALOGUE[name]()
    C = g.structure_constants().tolist()
    for i, j, k in itertools.product(range(g.dim), repeat=3):
        assert C[i][j][k] == -C[j][i][k]
    assert g.satisfies_jacobi()
    for i, j, k in itertools.combinations(range(g.dim), 3):
        assert _jacobiator_explicit(g, C, i, j, k) == [0] * g.dim


def test_so_n_matches_matrix_commutators():
    """so(4) constants agree with the commutators of the skew matrices E_ij - E_ji."""
    n = 4
    g = LieAlgebra.so(n)
    mats = []
    for i, j in itertools.combinations(range(n), 2):
        m = sp.zeros(n, n)
        m[i, j], m[j, i] = 1, -1
        mats.append(m)
    for a, b in itertools.combinations(range(len(mats)), 2):
        com = mats[a] * mats[b] - mats[b] * mats[a]
        recon = sum((cc * mats[k] for k, cc in enumerate(g.bracket(a, b))), sp.zeros(n, n))
        assert com == recon


def test_jacobi_violation_is_rejected():
    # [e1,e2]=e2, [e2,e3]=e1, [e1,e3]=0 violates Jacobi for (e1,e2,e3)
    with pytest.raises(ValueError, match="Jacobi"):
        LieAlgebra({(0, 1): [0, 1, 0], (1, 2): [1, 0, 0]})
    with pytest.raises(ValueError, match="antisymmetric"):
        LieAlgebra({(0, 1): [0, 1], (1, 0): [0, 1]})


def test_heisenberg_series():
    g = LieAlgebra.heisenberg()
    assert [sub.dim for sub in g.derived_series()] == [3, 1, 0]
    lcs = g.lower_central_series()
    assert [sub.dim for sub in lcs] == [3, 1, 0]
    assert lcs[1] == g.span(["Z"]) == g.center()
    assert g.is_solvable() and g.is_nilpotent() and not g.is_abelian()


def test_aff1_series():
    g = LieAlgebra.aff(1)
    assert [sub.dim for sub in g.derived_series()] == [2, 1, 0]
    assert g.derived_series()[1] == g.span(["B"])
    # lower central series stabilises at span(B): solvable but not nilpotent
    assert [sub.dim for sub in g.lower_central_series()] == [2, 1]
    assert g.is_solvable() and not g.is_nilpotent()
    assert g.derived_length() == 2


def test_se2_series():
    g = LieAlgebra.se(2)
    ds = g.derived_series()
    assert [sub.dim for sub in ds] == [3, 2, 0]
    assert ds[1] == g.span(["P1", "P2"])
    assert ds[1].is_ideal()
    assert [sub.dim for sub in g.lower_central_series()] == [3, 2]
    assert g.is_solvable() and not g.is_nilpotent()


def test_so3_series_not_solvable():
    g = LieAlgebra.so(3)
    assert [sub.dim for sub in g.derived_series()] == [3]
    assert [sub.dim for sub in g.lower_central_series()] == [3]
    assert not g.is_solvable() and not g.is_nilpotent()
    assert g.derived_algebra() == g.whole()
    assert g.is_semisimple()
    with pytest.raises(ValueError, match="not solvable"):
        g.adapted_basis()


def test_se3_is_not_solvable_but_has_abelian_ideal():
    g = LieAlgebra.se(3)
    assert not g.is_solvable()
    # derived algebra is everything (so(3) is perfect and [J, P] = P)
    assert g.derived_algebra().dim == 6
    assert g.span(["P1", "P2", "P3"]).is_ideal()
    assert not g.is_semisimple()


@pytest.mark.parametrize("name", ["se(2)", "heisenberg(1)", "heisenberg(2)", "aff(1)"])
def test_adapted_basis_is_triangular(name):
    g = CATALOGUE[name]()
    basis = g.adapted_basis()
    ga = g.in_basis(basis)
    assert ga.is_triangular()
    assert ga.satisfies_jacobi()
    # each tail span{e_{k+1}..e_d} is an ideal of span{e_k..e_d}
    for k in range(ga.dim):
        tail = ga.span(list(range(k + 1, ga.dim)))
        for i in range(k, ga.dim):
            for v in tail.basis:
                assert tail.contains(ga.bracket(i, v))


def test_in_basis_preserves_brackets():
    g = LieAlgebra.se(2)
    P = [[1, 1, 0], [0, 2, -1], [0, 1, 1]]
    h = g.in_basis(P, names=["f1", "f2", "f3"])
    for a, b in itertools.combinations(range(3), 2):
        lhs = g.bracket(P[a], P[b])
        rhs = [sum(h.bracket(a, b)[k] * P[k][m] for k in range(3)) for m in range(3)]
        assert [sp.simplify(x - y) for x, y in zip(lhs, rhs)] == [0, 0, 0]


def test_bracket_table_printing():
    g = LieAlgebra.se(2)
    assert g.bracket_table() == "[J, P1] = P2\n[J, P2] = -P1"
    assert "se(2)" in repr(g)
    assert LieAlgebra.so(2).bracket_table() == "(abelian)"


# -- realisations by vector fields ------------------------------------------------------------
def sleigh_symmetries():
    N = Manifold("N", "x y phi")
    x, y, phi = N.coords
    return N, [N.vector_field([1, 0, 0]), N.vector_field([0, 1, 0]),
               N.vector_field([-y, x, 1])]


def test_sleigh_symmetry_algebra_is_solvable():
    """B2: [u_rot, u_x] = -u_y, [u_rot, u_y] = u_x, [u_x, u_y] = 0; derived length 2."""
    N, (ux, uy, urot) = sleigh_symmetries()
    g = LieAlgebra.from_vector_fields([ux, uy, urot], names=["ux", "uy", "urot"])
    assert g.bracket("urot", "ux") == (0, -1, 0)
    assert g.bracket("urot", "uy") == (1, 0, 0)
    assert g.bracket("ux", "uy") == (0, 0, 0)
    assert g.is_solvable() and g.derived_length() == 2
    assert g.derived_series()[1] == g.span(["ux", "uy"])
    # the adapted basis starts with the rotation (seed 000 B2: (u_rot, u_x, u_y))
    ga = g.adapted()
    assert ga.names[0] == "urot"
    assert ga.fields[0] == urot
    # the structure constants describe the fields' brackets
    for i, j in itertools.combinations(range(3), 2):
        lhs = g.fields[i].bracket(g.fields[j])
        assert lhs == g.realize(g.bracket(i, j))


def test_rubber_ball_so3_not_solvable():
    """B5.2: the so(3) fields u1, u2, u3 in Euler angles close with [u1,u2] = u3 (cyclic)."""
    N = Manifold("SO3", "theta phi psi")
    th, ph, ps = N.coords
    u1 = N.vector_field([c(ph), -c(th) * s(ph) / s(th), s(ph) / s(th)])
    u2 = N.vector_field([-s(ph), -c(th) * c(ph) / s(th), c(ph) / s(th)])
    u3 = N.vector_field([0, 1, 0])
    g = LieAlgebra.from_vector_fields([u1, u2, u3], names=["u1", "u2", "u3"])
    assert g.bracket("u1", "u2") == (0, 0, 1)
    assert g.bracket("u2", "u3") == (1, 0, 0)
    assert g.bracket("u3", "u1") == (0, 1, 0)
    assert not g.is_solvable()
    assert g.derived_series()[-1].dim == 3


def test_structure_functions_are_reported():
    M = Manifold("M", "x y")
    x, y = M.coords
    X, Y = M.vector_field([1, 0]), M.vector_field([0, x])
    with pytest.raises(NotALieAlgebraError, match="structure functions") as info:
        LieAlgebra.from_vector_fields([X, Y])
    assert info.value.coefficients == (0, 1 / x)
    # closing adds d/dy and gives the Heisenberg algebra
    g = LieAlgebra.from_vector_fields([X, Y], close=True)
    assert g.dim == 3 and g.is_nilpotent() and not g.is_abelian()
    assert [sub.dim for sub in g.lower_central_series()] == [3, 1, 0]


def test_not_finite_dimensional_closure():
    M = Manifold("M", "x y")
    x, y = M.coords
    X, Y = M.vector_field([1, 0]), M.vector_field([0, sp.exp(x**2)])
    with pytest.raises(NotALieAlgebraError, match="do not close"):
        LieAlgebra.from_vector_fields([X, Y], close=True, max_dim=5)


def test_dependent_fields_rejected():
    M = Manifold("M", "x y")
    X = M.vector_field([1, 0])
    with pytest.raises(ValueError, match="linearly dependent"):
        LieAlgebra.from_vector_fields([X, 2 * X])
    # dependent over functions but not over constants is fine
    g = LieAlgebra.from_vector_fields([X, M.coords[1] * X])
    assert g.dim == 2


def test_constant_coefficients_with_parameters():
    M = Manifold("M", "x y", parameters="k")
    x, y = M.coords
    (k,) = M.parameters
    X, Y = M.vector_field([1, y]), M.vector_field([s(x), 0])
    target = k * X - 3 * Y
    coeffs = constant_coefficients([X, Y], target)
    assert default_policy().is_zero(coeffs[0] - k) and coeffs[1] == -3
    assert constant_coefficients([X, Y], M.vector_field([x, 0])) is None


def test_so3_fields_on_r3_match_catalogue():
    """Rotation fields x_j d_i - x_i d_j on R^3: the realisation's algebra is so(3) up to sign."""
    M = Manifold("R3", "x y z")
    x, y, z = M.coords
    L = [M.vector_field([0, -z, y]), M.vector_field([z, 0, -x]), M.vector_field([-y, x, 0])]
    g = LieAlgebra.from_vector_fields(L)
    so3 = LieAlgebra.so(3)
    C1, C2 = g.structure_constants().tolist(), so3.structure_constants().tolist()
    # linear vector fields of a matrix algebra realise it anti-homomorphically
    assert all(C1[i][j][k] == -C2[i][j][k] for i, j, k in itertools.product(range(3), repeat=3))


@st.composite
def integer_matrices(draw, n):
    return sp.Matrix(n, n, lambda i, j: draw(st.integers(-2, 2)))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.tuples(integer_matrices(2), integer_matrices(2)))
def test_closure_of_linear_fields_property(pair):
    """Linear fields u_A = (A x) . d/dx generate a closed algebra (<= gl(2)); its structure
    constants are those of the matrices, with the anti-homomorphism sign, and satisfy Jacobi."""
    A, B = pair
    M = Manifold("Lin2", "p q")
    X = sp.Matrix(M.coords)
    uA, uB = M.vector_field(list(A * X)), M.vector_field(list(B * X))
    if sp.Matrix([list(A), list(B)]).rank() < 2:
        return  # zero or proportional generators: not independent
    g = LieAlgebra.from_vector_fields([uA, uB], close=True, max_dim=4)
    assert g.dim <= 4 and g.satisfies_jacobi()
    mats = [sp.Matrix(2, 2, lambda i, j: f.components[i].coeff(M.coords[j])) for f in g.fields]
    for a, b in itertools.combinations(range(g.dim), 2):
        com = mats[a] * mats[b] - mats[b] * mats[a]
        recon = sum((cc * mats[k] for k, cc in enumerate(g.bracket(a, b))), sp.zeros(2, 2))
        assert com == -recon
