"""Batch evaluation and the compiled Jacobian (geomech.numeric.compile).

Mathematics asserted: evaluating a batch of states at once agrees with evaluating them one
by one (explicit fields and mass-matrix forms, which are solved independently); the compiled
Jacobian agrees with central finite differences of the compiled field and with sympy's
derivative evaluated at high precision; compiled objects survive pickle (recompiled on load)
with the same values.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import geomech as gm
from geomech.numeric import CompiledJacobian, compile_functions, compile_vector_field

SLEIGH_P = {"m": 1.3, "I": 0.7, "a": 0.4}
HOOP_P = {"m": 1.0, "a": 1.0, "g": 9.81}


@pytest.fixture(scope="module")
def sleigh_field():
    S = gm.examples.chaplygin_sleigh()
    return S, compile_vector_field(S.vector_field(), SLEIGH_P)


@pytest.fixture(scope="module")
def hoop_field():
    S = gm.examples.hoop()
    return S, compile_vector_field(S.vector_field(), HOOP_P)


states5 = arrays(np.float64, st.tuples(st.integers(1, 12), st.just(5)),
                 elements=st.floats(-2.0, 2.0, allow_nan=False))


@settings(max_examples=25, deadline=None)
@given(Y=states5)
def test_batch_equals_loop_sleigh(sleigh_field, Y):
    _, f = sleigh_field
    B = f.batch(Y)
    assert B.shape == Y.shape
    for row, y in zip(B, Y):
        assert np.allclose(row, f(0.0, y), rtol=1e-13, atol=1e-13)


def test_batch_equals_loop_hoop_and_jacobian_batch(hoop_field):
    _, f = hoop_field
    rng = np.random.default_rng(3)
    Y = rng.uniform(-1.5, 1.5, (40, len(f.coords)))
    assert np.allclose(f.batch(Y), np.array([f(0.0, y) for y in Y]), rtol=1e-13, atol=1e-13)
    JB = f.jacobian.batch(Y)
    assert JB.shape == (40, len(f.coords), len(f.coords))
    for Jb, y in zip(JB, Y):
        assert np.allclose(Jb, f.jacobian(0.0, y), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("fixture", ["sleigh_field", "hoop_field"])
def test_jacobian_matches_finite_differences(fixture, request):
    _, f = request.getfixturevalue(fixture)
    rng = np.random.default_rng(11)
    n = len(f.coords)
    for y in rng.uniform(-1.0, 1.0, (4, n)):
        h = 1e-6
        fd = np.column_stack([(f(0.0, y + h * e) - f(0.0, y - h * e)) / (2 * h)
                              for e in np.eye(n)])
        J = f.jacobian(0.0, y)
        assert np.allclose(J, fd, rtol=1e-6, atol=1e-7)


def test_jacobian_matches_sympy_derivative(sleigh_field):
    S, f = sleigh_field
    V = S.vector_field()
    pars = {p: sp.nsimplify(SLEIGH_P[p.name]) for p in S.manifold.parameters}
    pt = dict(zip(V.manifold.coords, [sp.Rational(1, 3), -sp.Rational(1, 2), sp.Rational(2, 7),
                                      sp.Rational(5, 4), -sp.Rational(3, 5)]))
    exact = sp.Matrix([[sp.diff(c, x).xreplace({**pars, **pt}) for x in V.manifold.coords]
                       for c in V.components]).evalf(30)
    got = f.jacobian(0.0, [float(pt[c]) for c in V.manifold.coords])
    assert np.allclose(got, np.array(exact.tolist(), dtype=float), rtol=1e-13, atol=1e-14)


def test_implicit_batch_equals_explicit(sleigh_field):
    S, f = sleigh_field
    g = compile_vector_field(S.equations(explicit=False).mass_matrix_form(), SLEIGH_P)
    Y = np.random.default_rng(5).uniform(-1, 1, (30, 5))
    assert np.allclose(g.batch(Y), f.batch(Y), rtol=1e-12, atol=1e-13)


def test_constant_components_broadcast():
    x, y = sp.symbols("x y")
    F = compile_functions([sp.Integer(2), x * y], [x, y])
    out = F.batch(np.ones((7, 2)))
    assert out.shape == (7, 2) and np.all(out[:, 0] == 2.0) and np.all(out[:, 1] == 1.0)
    J = CompiledJacobian([x**2, sp.Integer(3)], [x, y])
    assert J.batch([[1.0, 0.0], [2.0, 5.0]]).tolist() == [[[2.0, 0.0], [0.0, 0.0]],
                                                          [[4.0, 0.0], [0.0, 0.0]]]


def test_bad_batch_shapes(sleigh_field):
    _, f = sleigh_field
    with pytest.raises(ValueError, match=r"shape \(N, 5\)"):
        f.batch(np.zeros(5))
    with pytest.raises(ValueError, match=r"shape \(N, 5\)"):
        f.jacobian.batch(np.zeros((3, 4)))


@pytest.mark.parametrize("roundtrip", [lambda o: pickle.loads(pickle.dumps(o)), copy.deepcopy])
def test_compiled_fields_pickle_and_recompile(sleigh_field, roundtrip):
    S, f = sleigh_field
    _ = f.jacobian
    g = roundtrip(f)
    assert "_jacobian" not in g.__dict__           # recompiled lazily, not shipped
    assert g.exprs == f.exprs and g.coords == f.coords and g.manifold is f.manifold
    Y = np.random.default_rng(2).uniform(-1, 1, (6, 5))
    assert np.array_equal(g.batch(Y), f.batch(Y))
    assert np.array_equal(g.jacobian.batch(Y), f.jacobian.batch(Y))
    imp = compile_vector_field(S.equations(explicit=False).mass_matrix_form(), SLEIGH_P)
    imp2 = roundtrip(imp)
    assert np.array_equal(imp2.batch(Y), imp.batch(Y))


def test_compiled_once(sleigh_field):
    """Compiling the same field again (a second simulate, every run of a sweep, a field
    unpickled on a worker) reuses the compiled function."""
    S, f = sleigh_field
    g = compile_vector_field(S.vector_field(), SLEIGH_P)
    h = pickle.loads(pickle.dumps(f))
    assert g._func is f._func and h._func is f._func


# -- the numba backend (optional) ----------------------------------------------------------------
def test_numba_backend_agrees_with_numpy(sleigh_field):
    """backend="numba" compiles the same CSE'd expressions to a numba loop: field, batch,
    vectorised call and Jacobian agree with numpy to rounding; it pickles by its source."""
    pytest.importorskip("numba")
    for S, f, p in ((*sleigh_field, SLEIGH_P),):
        g = compile_vector_field(S.vector_field(), p, backend="numba")
        assert g.backend == "numba" and g.exprs == f.exprs
        Y = np.random.default_rng(7).uniform(-1.2, 1.2, (25, len(f.coords)))
        assert np.allclose(g.batch(Y), f.batch(Y), rtol=1e-13, atol=1e-14)
        assert np.allclose(g(Y.T), f(Y.T), rtol=1e-13, atol=1e-14)
        assert np.allclose(g(0.0, Y[3]), f(0.0, Y[3]), rtol=1e-13, atol=1e-14)
        assert np.allclose(g.jacobian.batch(Y), f.jacobian.batch(Y), rtol=1e-12, atol=1e-13)
        h = pickle.loads(pickle.dumps(g))
        assert h.backend == "numba" and np.array_equal(h.batch(Y), g.batch(Y))
    M = gm.Manifold("M", "x")
    (x,) = M.coords
    k = compile_vector_field(M.vector_field([1 / x + sp.sqrt(x)]), backend="numba")
    with np.errstate(all="ignore"):                          # IEEE results, as numpy
        assert np.isinf(k(0.0, np.array([0.0]))[0]) and np.isnan(k(0.0, np.array([-1.0]))[0])
    with pytest.raises(ValueError, match="backend"):
        compile_vector_field(M.vector_field([x]), backend="fortran")
