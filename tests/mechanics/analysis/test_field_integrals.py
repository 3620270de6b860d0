"""Polynomial integrals of polynomial fields over QQ[parameters]: the so(n) rigid body with
symbolic inertia (Manakov 1976), Euler's top, and the block structure of the equations."""

from __future__ import annotations

import random

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.polys.matrices import DomainMatrix

import geomech as gm
from geomech.core.manifold import Manifold
from geomech.mechanics.analysis.field_integrals import (
    field_rows,
    polynomial_field_integrals,
    unknown_blocks,
)
from geomech.mechanics.analysis.integrals import is_first_integral, polynomial_integrals


def _coefficient_matrix(exprs, coords) -> sp.Matrix:
    """Rows: the coefficient vectors of the polynomials ``exprs`` in ``coords`` (over the
    parameters), on the union of their monomials."""
    polys = [sp.Poly(sp.expand(e), *coords) for e in exprs]
    monos = sorted(set().union(*(p.as_dict() for p in polys)))
    return sp.Matrix([[p.as_dict().get(m, 0) for m in monos] for p in polys])


def _rank(A: sp.Matrix) -> int:
    """Exact rank over QQ(parameters) (DomainMatrix over the fraction field)."""
    return DomainMatrix.from_Matrix(A).to_field().rank()


def _in_span(Fs, K, coords) -> bool:
    """``K`` is a combination of ``Fs`` with coefficients rational in the parameters."""
    return _rank(_coefficient_matrix([*Fs, K], coords)) == _rank(
        _coefficient_matrix(Fs, coords))


def _gradient_rank(Fs, coords, seed: int = 5) -> int:
    """Rank of the gradients at a random rational point (inertia sampled too)."""
    rng = random.Random(seed)
    syms = sorted(set().union(*(F.free_symbols for F in Fs)), key=sp.default_sort_key)
    pt = {s: sp.Rational(rng.randint(1, 97), rng.randint(1, 13)) for s in syms}
    return sp.Matrix([[sp.diff(F, x).xreplace(pt) for x in coords] for F in Fs]).rank()


def _pfaffian4(M: sp.Matrix) -> sp.Expr:
    return M[0, 1] * M[2, 3] - M[0, 2] * M[1, 3] + M[0, 3] * M[1, 2]


def test_so4_symbolic_inertia_quadratic_integrals():
    """so(4), I = diag(I1..I4) symbolic (Manakov 1976): each integral found is annihilated
    by the Euler-Arnold flow (exact zero test), the span is that of tr M^2, Pf M (Casimirs),
    the energy and the quadratic Manakov integrals, and the four are independent."""
    rb = gm.rigid_body_so_n(4)
    v, w = rb.vector_field(), rb.omega
    Fs = rb.polynomial_integrals(2)
    assert len(Fs) == 4
    assert all(is_first_integral(v, F) for F in Fs)
    assert all(rb.derivative(F) == 0 for F in Fs)      # the model's own chain rule
    M = rb.momentum
    manakov = [K for K in rb.manakov_integrals().values()
               if sp.Poly(K, *w).total_degree() == 2]
    known = [sp.expand((M * M).trace()), sp.expand(_pfaffian4(M)), rb.energy(), *manakov]
    assert all(_in_span(Fs, K, w) for K in known)
    assert _rank(_coefficient_matrix(known, w)) == 4     # so the spans are equal
    assert _gradient_rank(list(Fs), w) == 4


def test_so4_generic_search_agrees_with_the_model_method():
    """The generic ``polynomial_integrals`` (homogeneous and not) spans the same space."""
    rb = gm.rigid_body_so_n(4)
    v, w = rb.vector_field(), rb.omega
    Fs = list(rb.polynomial_integrals(2))
    for found in (polynomial_integrals(v, 2), polynomial_integrals(v, 2, homogeneous=True)):
        assert len(found) == 4 and all(_in_span(Fs, F, w) for F in found)
    assert polynomial_integrals(v, 1) == []            # no linear integral, generic I


def test_so3_symbolic_inertia_energy_and_casimir():
    """Euler's top: the span is that of the energy and |M|^2."""
    rb = gm.rigid_body_so_n(3)
    w = rb.omega
    Fs = rb.polynomial_integrals(2)
    assert len(Fs) == 2 and all(rb.derivative(F) == 0 for F in Fs)
    M = rb.momentum
    assert all(_in_span(Fs, K, w) for K in (rb.energy(), sp.expand((M * M).trace())))
    assert _gradient_rank(list(Fs), w) == 2
    assert "degree <= 2" in Fs.family


def test_so4_symmetric_inertia_has_more_integrals():
    """I1 = I2 (the (2-2) case): the rotations in the (1,2) plane add the linear integral
    omega_1 (Shamolin (2017), cyclic coordinates); it is found and it is exact."""
    rb = gm.rigid_body_so_n(4, "2-2")
    w = rb.omega
    lin = rb.polynomial_integrals(1)
    assert lin and all(rb.derivative(F) == 0 for F in lin)
    assert all(_in_span(lin, w[k], w) for k in rb.cyclic_integrals())


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=3, max_size=3))
def test_linear_hamiltonian_flow_integrals_are_conserved(c):
    """q' = dH/dp, p' = -dH/dq for H = a q^2 + b q p + k p^2: H is among the quadratic
    integrals and every integral found is annihilated by the flow."""
    M = Manifold("M", "q p", parameters="k")
    q, p = M.coords
    k = M.parameters[0]
    H = c[0] * q**2 + c[1] * q * p + (k + c[2]) * p**2
    v = M.vector_field([sp.diff(H, p), -sp.diff(H, q)])
    Fs = polynomial_field_integrals(v, 2)
    assert all(sp.expand(v(F)) == 0 for F in Fs)
    assert _in_span(Fs, H, (q, p))


def test_rows_split_into_blocks_by_degree():
    """A homogeneous quadratic field maps degree d to d + 1: linear and quadratic unknowns
    never share an equation."""
    v = gm.rigid_body_so_n(3).vector_field()
    monos = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (2, 0, 0), (0, 2, 0), (0, 0, 2)]
    rows, _ = field_rows(v, monos, v.manifold.coords, v.manifold.parameters)
    for block in unknown_blocks(rows, len(monos)):
        assert len({sum(monos[j]) for j in block}) == 1


def test_non_polynomial_fields_are_left_to_the_general_search():
    M = Manifold("M", "x y")
    x, y = M.coords
    assert polynomial_field_integrals(M.vector_field([sp.sin(y), 1 / x]), 2) is None
    v = M.vector_field([y, -x])
    assert polynomial_integrals(v, 2, include_constants=True)[0] == 1
    assert polynomial_field_integrals(v, 0, homogeneous=True) == []


def test_bad_degree():
    with pytest.raises(ValueError, match="degree"):
        gm.rigid_body_so_n(3).polynomial_integrals(-1)


@settings(max_examples=15, deadline=None)
@given(st.fractions(min_value=-5, max_value=5).filter(bool),
       st.fractions(min_value=-5, max_value=5).filter(bool), st.integers(1, 4))
def test_denominators_with_different_units(r1, r2, s):
    """x' = r1 y/(s k + s), y' = -r2 x/(k + 2): each equation is cleared by its own lcm;
    r2 x^2/(k + 2) + r1 y^2/(s k + s) is conserved and spans the quadratic integrals."""
    M = Manifold("M", "x y", parameters="k")
    x, y = M.coords
    k = M.parameters[0]
    a, b = sp.Rational(r1.numerator, r1.denominator), sp.Rational(r2.numerator, r2.denominator)
    v = M.vector_field([a * y / (s * k + s), -b * x / (k + 2)])
    Fs = polynomial_field_integrals(v, 2)
    assert all(sp.cancel(v(F)) == 0 for F in Fs)
    assert _in_span(Fs, sp.cancel((b * x**2 / (k + 2) + a * y**2 / (s * k + s)) * (k + 1)
                                  * (k + 2)), (x, y))
