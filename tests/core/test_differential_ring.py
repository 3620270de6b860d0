"""The sparse-ring kernel against sympy: packed derivatives, products and conversion."""

from __future__ import annotations

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from geomech.core import kernel
from geomech.core.algebra import differential_ring
from geomech.core.algebra.differential_ring import DiffRing

from .strategies import functions, manifold

a, b = sp.symbols("a b")


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(st.just(n), functions(n, max_terms=4))))
def test_to_expr_is_identical_to_as_expr(data):
    """The fast conversion builds exactly sympy's canonical expression (same srepr)."""
    n, f = data
    f = sp.expand(f * (a - 2 * b + sp.Rational(1, 3)))
    R = DiffRing.for_expressions([f], manifold(n).coords)
    p = R.to_ring(f)
    assert sp.srepr(R.to_expr(p)) == sp.srepr(p.as_expr())
    assert sp.expand(R.to_expr(p) - f) == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(st.just(n), functions(n, max_terms=4))))
def test_packed_derivative_is_the_total_derivative(data):
    """diff_packed (with the sin/cos chain rule) agrees with sympy's diff."""
    n, f = data
    f = sp.expand(f * (1 + a * f))
    coords = manifold(n).coords
    R = DiffRing.for_expressions([f], coords)
    P = R.pack(R.to_ring(f))
    for x in coords:
        got = R.to_expr(R.unpack(R.diff_packed(P, x)))
        assert sp.expand(got - sp.diff(f, x)) == 0
        assert R.to_expr(R.diff(R.to_ring(f), x)) == got


def test_to_ring_of_unexpanded_input_falls_back_correctly():
    x, y = sp.symbols("x y")
    f = (x + y) ** 3 * sp.sin(x) - x * (y - 1)
    R = DiffRing.for_expressions([f], (x, y))
    assert sp.expand(R.to_expr(R.to_ring(f)) - f) == 0


def test_bracket_with_large_exponents_uses_the_unpacked_path():
    """Exponents beyond the packing limit are handled by plain ring arithmetic."""
    M = manifold(2)
    x0, x1 = M.coords
    big = differential_ring._LIMIT
    X = M.vector_field([x0 ** big, x1])
    Y = M.vector_field([x1, x0])
    with kernel.using_backend("sympy"):
        ref = M.vector_field([x0 ** big, x1]).bracket(M.vector_field([x1, x0])).components
    assert X.bracket(Y).components == ref


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 4).flatmap(
    lambda n: st.tuples(*[functions(n, max_terms=3) for _ in range(3 * n)])))
def test_cached_jacobians_give_the_same_brackets(comps):
    """A field bracketed with several others (Jacobian cached) gives the sympy results."""
    n = len(comps) // 3
    M = manifold(n)
    F = [M.vector_field([c * (1 + a) for c in comps[k * n:(k + 1) * n]]) for k in range(3)]
    with kernel.using_backend("sympy"):
        G = [M.vector_field(f.components) for f in F]
        ref = [G[i].bracket(G[j]).components for i in range(3) for j in range(3)]
    got = [F[i].bracket(F[j]).components for i in range(3) for j in range(3)]
    assert got == ref


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(functions(n, max_terms=3), min_size=n, max_size=n),
    st.lists(functions(n, max_terms=3), min_size=n, max_size=n))))
def test_forms_in_the_ring_equal_forms_in_sympy(data):
    """d and wedge computed in the packed ring give the sympy kernel's stored coefficients."""
    n, u, v = data
    M = manifold(n)
    for backend in ("poly", "sympy"):
        with kernel.using_backend(backend):
            w, e = M.one_form([a * c for c in u]), M.one_form(v)
            out = (w.d().components, w.wedge(e).components, w.d().wedge(e).components)
        if backend == "poly":
            ring = out
    assert ring == out


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(
    st.booleans(), *[functions(n, max_terms=3, trig=False) for _ in range(2 * n)],
    *[functions(n, max_terms=2) for _ in range(2 * n)])))
def test_flint_bracket_is_the_packed_bracket(data):
    """The bracket multiplied in C (python-flint) is the same ring element as the packed
    Python bracket -- with sin/cos of the coordinates, or with an angle combination
    ``x0 - 2 x1`` as generator; its residues modulo the prime are the bracket taken modulo
    the prime."""
    combination, comps = data[0], data[1:]
    n = len(comps) // 4
    M = manifold(n)
    x = M.coords
    if combination:             # polynomial coefficients of sin, cos of x0 - 2 x1
        L = x[0] - 2 * x[1]
        X = M.vector_field([sp.expand(c * (1 + a * sp.sin(L))) for c in comps[:n]])
        Y = M.vector_field([sp.expand(c * sp.cos(L) - b) for c in comps[n:2 * n]])
    else:                       # trigonometric polynomials in the coordinates
        X = M.vector_field([sp.expand(a * c + 1) for c in comps[2 * n:3 * n]])
        Y = M.vector_field(list(comps[3 * n:]))
    R = differential_ring.union_ring(X.ring_form()[0], Y.ring_form()[0])
    assert R is not None and R.flint_context is not None
    lift = [[R.lift(p) for p in F.ring_form()[1]] for F in (X, Y)]
    packed = differential_ring.bracket_packed(differential_ring.Packed(R, lift[0]),
                                       differential_ring.Packed(R, lift[1]))
    flint = differential_ring.bracket_flint(X.flint_form(R), Y.flint_form(R))
    assert [R.from_flint(f) for f in flint] == list(packed)
    modular = differential_ring.bracket_flint(X.modular_form(R), Y.modular_form(R))
    assert modular == differential_ring.FlintPacked(R, flint, flint=True).modular().comps


# -- the one description of the generators (polynomial and fraction level) -----------------
_X, _Y = sp.symbols("x y")
_ANGLES = (_X / 2, _X - 2 * _Y)
_GENS = (_X, _Y, *[f(L) for L in _ANGLES for f in (sp.sin, sp.cos)])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.lists(st.integers(0, 3), min_size=6,
                                                         max_size=6)), min_size=1, max_size=5))
def test_generator_derivation_is_the_chain_rule(terms):
    """RingGenerators.derivative (rational and composite angles) equals sympy's derivative of
    the same trigonometric polynomial, along each symbol."""
    from geomech.core.algebra.generators import RingGenerators
    from geomech.core.algebra.rings import polynomial_ring
    from geomech.core.zero import default_policy

    G = RingGenerators(_GENS)
    R = polynomial_ring(_GENS)
    p = R.from_dict({tuple(e): c for c, e in terms if c}) if any(c for c, _ in terms) else R.zero
    assert G.trig_pairs == ((2, 3), (4, 5)) and G.closed
    for x in (_X, _Y):
        mine = R.from_dict(G.derivative(p, x)).as_expr()
        assert default_policy().is_zero(mine - sp.diff(p.as_expr(), x))


def test_both_levels_read_one_generator_description():
    """DiffRing (polynomial level) and RationalAlgebra (fraction level) describe the same
    generators alike and share the cached ring."""
    from geomech.core.algebra.rings import RationalAlgebra

    x, y = sp.symbols("x y")
    e = x * y * sp.sin(y) + sp.cos(y) ** 2
    D = DiffRing.for_expressions([e], (x, y))
    A = RationalAlgebra([e])
    assert D.generators.gens == A.generators.gens and D.ring is A.ring
    assert D.generators.chain(y) == A.generators.chain(y) == ((2, 3, 1),)
    rho = RationalAlgebra([sp.sqrt(1 + x**2) * sp.exp(y)]).generators
    assert len(rho.roots) == 1 and [k for _, k, _ in rho.transcendental] == [sp.exp]
