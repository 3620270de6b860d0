"""Certified membership (guess and verify) against the exact rank, and the ring of sin/cos of
independent integer combinations of coordinates (derivatives, Pythagorean remainder)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.core.algebra import membership, rank
from geomech.core.algebra.differential_ring import DiffRing, independent_angles, union_ring
from geomech.core.algebra.membership import certified_membership
from geomech.core.algebra.solve import LaplaceMinors
from geomech.core.zero.values import enclosure_nonzero

x, y, z = sp.symbols("x y z", real=True)
ATOMS = [x, y, sp.sin(x - y), sp.cos(x - y), sp.sin(y), sp.cos(y), sp.cos(z + 2 * y)]


def _samples(vectors: list, v, seeds=(1, 2, 3)):
    out = []
    for s in seeds:
        rng = random.Random(s)
        pt = {a: sp.Rational(rng.randint(1, 50), rng.randint(1, 40)) for a in (x, y, z)}

        def val(e):
            q = sp.nsimplify(sp.N(sp.sympify(e).xreplace(pt), 60), rational=True,
                             tolerance=sp.Rational(1, 10**40))
            return Fraction(int(q.p), int(q.q))
        # exact rational stand-ins for the values are only a guide: membership verifies
        out.append(([[val(e) for e in b] for b in vectors], [val(e) for e in v]))
    return out


@st.composite
def trig_polys(draw):
    return sp.expand(sp.Add(*[draw(st.integers(-3, 3)) * sp.Mul(
        *[draw(st.sampled_from(ATOMS)) ** draw(st.integers(0, 3)) for _ in range(2)])
        for _ in range(draw(st.integers(1, 3)))]))


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(trig_polys(), min_size=9, max_size=9), st.integers(-2, 2), st.integers(-2, 2),
       st.booleans())
def test_membership_agrees_with_the_exact_rank(es, a, b, perturb):
    b1, b2 = es[0:3], es[3:6]
    v = [sp.expand(a * p + b * q) for p, q in zip(b1, b2)]
    if perturb:
        v = [sp.expand(v[0] + es[6]), v[1], v[2]]
    basis = [b1, b2]
    if rank(sp.Matrix([b1, b2]).T) < 2:
        return
    R = DiffRing.for_expressions([*b1, *b2, *v], (x, y, z), composite=True)
    assert R is not None
    in_span = rank(sp.Matrix([b1, b2, v]).T) == 2
    ring_verdict = certified_membership([[R.to_ring(e) for e in vec] for vec in basis],
                                        [R.to_ring(e) for e in v], [], ring=R)
    assert ring_verdict is None          # no sample point: no guess, nothing claimed
    # exact values at points where sin/cos are rational: the half-angle points
    samples = []
    for t in (Fraction(1, 3), Fraction(2, 7), Fraction(5, 11)):
        pt = {x: 2 * sp.atan(sp.Rational(t.numerator, t.denominator)),
              y: 2 * sp.atan(sp.Rational(1, 2)), z: 2 * sp.atan(sp.Rational(3, 5))}
        vals = [[sp.nsimplify(sp.simplify(sp.expand_trig(e.xreplace(pt)))) for e in vec]
                for vec in (*basis, v)]
        if not all(q.is_Rational for vec in vals for q in vec):
            continue
        fr = [[Fraction(int(q.p), int(q.q)) for q in vec] for vec in vals]
        samples.append((fr[:2], fr[2]))
    for verdict in (certified_membership(basis, v, samples),
                    certified_membership([[R.to_ring(e) for e in vec] for vec in basis],
                                         [R.to_ring(e) for e in v], samples, ring=R)):
        assert verdict is None or verdict == in_span


def test_membership_with_function_coefficients():
    b1 = [sp.S.One, x, sp.sin(x - y)]
    b2 = [sp.S.Zero, sp.cos(y), x * y]
    f, g = x + 1, sp.sin(x - y)
    v = [sp.expand(f * p + g * q) for p, q in zip(b1, b2)]
    pts = [{x: sp.Rational(1, 3), y: sp.Rational(2, 5)}, {x: sp.Rational(3, 7), y: 2}]
    # values of the functions at the points, with sin/cos replaced by rational stand-ins:
    # any consistent ring point works (sin and cos of independent angles are independent)
    S = {sp.sin(x - y): sp.Rational(3, 5), sp.cos(x - y): sp.Rational(4, 5),
         sp.sin(y): sp.Rational(5, 13), sp.cos(y): sp.Rational(12, 13)}
    samples = []
    for pt in pts:
        ev = [[Fraction(str(sp.sympify(e).xreplace(S).xreplace(pt))) for e in vec]
              for vec in (b1, b2, v)]
        samples.append((ev[:2], ev[2]))
    assert certified_membership([b1, b2], v, samples) is True
    R = DiffRing.for_expressions([*b1, *b2, *v], (x, y), composite=True)
    polys = [[R.to_ring(e) for e in vec] for vec in (b1, b2, v)]
    assert certified_membership(polys[:2], polys[2], samples, ring=R) is True
    w = [v[0], v[1] + 1, v[2]]
    assert certified_membership([b1, b2], w, samples) is not True


def test_composite_angles_ring_derivatives_and_remainders():
    e = sp.sin(x - y) ** 3 * sp.cos(y) + x * sp.cos(x - y) ** 2 * sp.sin(z + 2 * y)
    R = DiffRing.for_expressions([e], (x, y, z), composite=True)
    p = R.to_ring(sp.expand(e))
    for c in (x, y, z):
        assert sp.expand(R.to_expr(R.diff(p, c)) - sp.diff(e, c)) == 0
    for prefer in ("sin", "cos"):
        red = R.to_expr(R.reduce(p, prefer))
        assert sp.simplify(sp.expand_trig(red - e)) == 0
    assert R.reduce(p) == p.rem(list(R.pythagoras))


def test_dependent_angles_are_not_ring_generators():
    assert independent_angles([x - y, y]) and not independent_angles([x - y, x, y])
    assert DiffRing.for_expressions([sp.sin(x - y) + sp.sin(x) * sp.cos(y)], (x, y),
                                    composite=True) is None
    a = DiffRing.for_expressions([sp.sin(x - y)], (x, y), composite=True)
    b = DiffRing.for_expressions([sp.sin(x)], (x, y), composite=True)
    c = DiffRing.for_expressions([sp.sin(y)], (x, y), composite=True)
    assert union_ring(a, b) is not None and union_ring(union_ring(a, b), c) is None
    # without composite=True nothing changes for the zero tests and normal forms
    assert DiffRing.for_expressions([sp.sin(x - y)], (x, y)) is None


@pytest.mark.parametrize("prefer", ["sin", "cos"])
def test_remainder_is_the_groebner_remainder(prefer):
    rng = random.Random(3)
    R = DiffRing.for_expressions([sp.sin(x) * sp.cos(y) + sp.sin(y) * sp.cos(x)], (x, y))
    for _ in range(20):
        e = sp.expand(sp.Add(*[rng.randint(-3, 3) * sp.sin(x) ** rng.randint(0, 5)
                               * sp.cos(x) ** rng.randint(0, 5) * sp.sin(y) ** rng.randint(0, 4)
                               for _ in range(4)]))
        p = R.to_ring(e)
        if prefer == "sin":
            assert R.reduce(p) == p.rem(list(R.pythagoras))
        else:
            ring, rel = R._cos_first
            assert R.reduce(p, "cos") == p.set_ring(ring).rem(rel).set_ring(R.ring)


def test_membership_in_the_sparse_ring_without_flint(monkeypatch):
    """The sparse-polynomial path (no python-flint) solves by the same Cramer's rule."""
    monkeypatch.setattr(membership, "flint", None)
    test_membership_with_function_coefficients()


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4).flatmap(lambda n: st.lists(
    st.lists(st.integers(-4, 4), min_size=n + 1, max_size=n + 1), min_size=n, max_size=n)))
def test_laplace_minors_are_cramers_rule(rows):
    """det M x = adj(M) b from the memoised minors agrees with sympy's LU solve, and the
    full minor is the determinant."""
    n = len(rows)
    M, b = sp.Matrix([r[:n] for r in rows]), sp.Matrix([r[n] for r in rows])
    nums, det = LaplaceMinors(rows, 0).cramer()
    assert det == M.det()
    if det != 0:
        assert [sp.Rational(k, det) for k in nums] == list(M.LUsolve(b))


a_, b_ = sp.symbols("a b", positive=True)


@st.composite
def radical_exprs(draw):
    """A random expression with a square root of a positive radicand, and an identically
    zero rearrangement of a random multiple of it."""
    c = [draw(st.integers(-3, 3)) for _ in range(4)]
    rad = 1 + a_**2 * sp.sin(x)**2 + b_**2 * sp.cos(y)**2
    e = c[0] * sp.sqrt(rad) + c[1] * x * sp.cos(y) + c[2] * a_ / sp.sqrt(rad) + c[3]
    zero = sp.sqrt(rad)**2 * e - sp.expand(rad * e)
    return e, zero


@settings(max_examples=30, deadline=None)
@given(radical_exprs())
def test_enclosure_nonzero_never_contradicts_the_zero_test(pair):
    """An interval enclosure excluding 0 is a proof: never claimed for an identically zero
    expression, and whenever claimed the exact zero test agrees."""
    e, zero = pair
    assert not enclosure_nonzero(zero)
    assert not enclosure_nonzero(sp.S.Zero)
    if enclosure_nonzero(e):
        assert not sp.simplify(e) == 0


def test_membership_of_a_nonzero_vector_without_samples_is_undecided():
    """Without samples a vector proved non-zero is neither in nor out (the caller decides by
    a rank); a zero vector with roots is in every span."""
    r = sp.sqrt(1 + x**2)
    assert certified_membership([(r, 1)], (r * x, sp.S.One / r), []) is None
    assert certified_membership([(r, 1)], (r**2 - 1 - x**2, sp.S.Zero), []) is True
