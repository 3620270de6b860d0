"""Large mass-matrix forms: the LLVM-compiled field agrees with sympy's lambdify to rounding,
and the one-pass walk for free symbols / undefined functions agrees with sympy's."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import geomech as gm
import geomech.numeric.implicit as implicit
from geomech.core.manifold import free_symbols_of
from geomech.numeric.functions import no_undefined_functions


def test_llvm_compiled_mass_matrix_form_agrees_with_sympy(monkeypatch):
    se = pytest.importorskip("symengine")
    if not getattr(se, "have_llvm", False):
        pytest.skip("symengine without LLVM")
    S = gm.examples.rolling_disk()
    form = S.equations(explicit=False).mass_matrix_form()
    rng = np.random.default_rng(5)
    params = {p.name: float(rng.uniform(0.5, 2.0)) for p in S.manifold.parameters}
    ref = implicit.CompiledImplicitField(form, params, backend="sympy")
    monkeypatch.setattr(implicit, "LLVM_OPS", 0)             # every form through LLVM
    fast = implicit.CompiledImplicitField(form, params, backend="symengine")
    for _ in range(5):
        y = rng.uniform(0.3, 1.2, len(ref.coords))
        assert np.allclose(fast(0.0, y), ref(0.0, y), rtol=1e-12, atol=1e-12)


def test_walk_agrees_with_sympy_on_a_flow():
    """free_symbols and the undefined functions of the disk's flow (and of a form with a
    bound variable and an undefined function) are sympy's."""
    comps = list(gm.examples.rolling_disk().vector_field().components)
    assert free_symbols_of(comps) == set().union(*(c.free_symbols for c in comps))
    f = sp.Function("f")
    x, t = sp.symbols("x t")
    e = f(x) * sp.Integral(t * f(t), (t, 0, x)) + sp.Derivative(f(x), x)
    assert free_symbols_of([e]) == e.free_symbols == {x}
    with pytest.raises(ValueError, match="f\\(x\\)"):
        no_undefined_functions([e], "the field")
