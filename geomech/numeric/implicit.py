r"""Compiled mass-matrix forms :math:`M(x)z = F(x)`, :math:`\dot x = g(x) + P(x)z`: the
entries of :math:`M, F, g, P` compiled together (symengine's ``Lambdify`` with CSE when it is
installed, else :func:`sympy.cse` + :func:`sympy.lambdify`), :math:`Mz = F` solved
numerically at every call, no symbolic inversion.

>>> import geomech as gm
>>> S = gm.examples.chaplygin_sleigh()
>>> f = CompiledImplicitField(S.equations(explicit=False).mass_matrix_form(),
...                           {"m": 1, "I": 1, "a": 0.5})
>>> f(0.0, [0.0, 0.0, 0.0, 1.0, 0.0])            # straight motion along x: no acceleration
array([1., 0., 0., 0., 0.])
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

import numpy as np
import sympy as sp

from geomech.core.manifold import free_symbols_of
from geomech.core.parse import as_expr

from .functions import (
    CompiledFunction,
    no_undefined_functions,
    prepare_expressions,
    resolve_parameters,
)

__all__ = ["CompiledImplicitField", "is_implicit", "LLVM_OPS"]


def is_implicit(obj) -> bool:
    """Whether ``obj`` is a mass-matrix form (an ``ImplicitEquations``: ``mass_matrix``,
    ``forcing``, ``unknowns``, ``drift``, ``selection``, ``manifold``)."""
    return all(hasattr(obj, a) for a in ("mass_matrix", "forcing", "unknowns", "drift",
                                         "selection", "manifold"))


class CompiledImplicitField:
    r"""A compiled mass-matrix form :math:`M(x)z = F(x)`, :math:`\dot x = g(x) + P(x)z`.

    ``f(t, y)`` evaluates :math:`M, F, g, P` at ``y`` with **one** CSE'd numpy function,
    solves :math:`Mz = F` with :func:`numpy.linalg.solve` and returns :math:`g + Pz`
    (vectorised over ``y`` of shape ``(n, T)`` by a batched solve).  Built by
    :func:`compile_vector_field` from an
    :class:`~geomech.mechanics.equations.ImplicitEquations` (``eq.mass_matrix_form()``).

    Attributes
    ----------
    manifold, coords : the phase space and its coordinates (argument order).
    unknowns : the symbols :math:`z`.
    operations : int
        Operation count of :math:`M, F, g, P` after common-subexpression elimination.
    """

    def __init__(self, implicit, parameters: Mapping | None = None, backend: str = "auto"):
        if not is_implicit(implicit):
            raise TypeError(f"expected an ImplicitEquations (eq.mass_matrix_form()), got "
                            f"{type(implicit).__name__}")
        self.manifold = implicit.manifold
        self.coords = tuple(self.manifold.coords)
        self.unknowns = tuple(implicit.unknowns)
        m, n = len(self.unknowns), len(self.coords)
        self._m, self._n = m, n
        exprs = [*implicit.mass_matrix, *implicit.forcing,
                 *[implicit.drift[c] for c in self.coords], *implicit.selection]
        known = list(self.manifold.parameters)
        system = getattr(implicit, "system", None)
        if system is not None:
            known += list(system.manifold.parameters)
        what = f"the mass-matrix form on {self.manifold.name}"
        needed = free_symbols_of(exprs) - set(self.coords)
        params = resolve_parameters(parameters, known=known, needed=needed)
        self.parameters = params
        self.backend = backend if backend != "auto" else (
            "symengine" if _symengine() is not None else "sympy")
        if self.backend not in ("symengine", "sympy"):
            raise ValueError(f"backend must be 'auto', 'sympy' or 'symengine', got {backend!r}")
        if self.backend == "symengine" and needed <= set(params):
            # the parameters are put in by symengine (the rattleback: 0.03 s against 0.7 s
            # for sympy's xreplace); the sympy form is built only when asked (:attr:`exprs`)
            self._source = tuple(as_expr(e, exact=False) for e in exprs)
            no_undefined_functions(self._source, what)
        else:
            self.__dict__["exprs"] = tuple(prepare_expressions(exprs, self.coords, params,
                                                               what))
        self._fn = self._make_fn()
        self._operations: int | None = None

    @cached_property
    def exprs(self) -> tuple:
        """The expressions :math:`M, F, g, P` (flattened), parameters substituted."""
        return tuple(prepare_expressions(self._source, self.coords, self.parameters,
                                         f"the mass-matrix form on {self.manifold.name}"))

    def _make_fn(self):
        if self.backend == "symengine":
            if "exprs" in self.__dict__:
                return _SymengineFunction(self.exprs, self.coords)
            return _SymengineFunction(self._source, self.coords, self.parameters)
        return CompiledFunction(self.exprs, self.coords,
                                what=f"the mass-matrix form on {self.manifold.name}")

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_fn"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._fn = self._make_fn()

    def batch(self, states) -> np.ndarray:
        """The field at many states: ``states`` of shape ``(N, n)`` gives ``(N, n)``
        (batched linear solves, no Python loop)."""
        Y = np.asarray(states, dtype=float)
        if Y.ndim != 2 or Y.shape[1] != len(self.coords):
            raise ValueError(f"expected a batch of states of shape (N, {len(self.coords)}) "
                             f"for {self.coords}, got shape {Y.shape}")
        return np.ascontiguousarray(self(0.0, Y.T).T)

    @property
    def operations(self) -> int:
        """Operation count after common-subexpression elimination (sympy's ``cse``,
        computed on first access)."""
        if self._operations is None:
            repl, red = sp.cse(list(self.exprs), optimizations="basic")
            self._operations = int(sum(sp.count_ops(r) for _, r in repl)
                                   + sum(sp.count_ops(r) for r in red))
        return self._operations

    def __call__(self, t, y=None) -> np.ndarray:
        if y is None:
            t, y = 0.0, t
        y = np.asarray(y, dtype=float)
        vals = self._fn(y)
        m, n = self._m, self._n
        a, b, c = m * m, m * m + m, m * m + m + n
        if y.ndim == 1:
            g = vals[b:c]
            if not m:
                return g
            z = _solve(vals[:a].reshape(m, m), vals[a:b], y)
            return g + vals[c:].reshape(n, m) @ z
        T = y.shape[1]
        g = vals[b:c]
        if not m:
            return g
        M = np.moveaxis(vals[:a].reshape(m, m, T), 2, 0)
        F = vals[a:b].T[..., None]
        z = _solve(M, F, y)[..., 0]                             # (T, m)
        P = np.moveaxis(vals[c:].reshape(n, m, T), 2, 0)         # (T, n, m)
        return g + np.einsum("tij,tj->it", P, z)

    def __repr__(self) -> str:
        return (f"CompiledImplicitField(on {self.manifold.name}{self.coords}; {self._m} "
                f"unknowns; {len(self.exprs)} expressions, {self.backend})")


def _symengine():
    try:
        import symengine
    except ImportError:  # pragma: no cover - optional dependency
        return None
    return symengine


#: mass-matrix forms over this many operations are compiled to machine code by symengine's
#: LLVM backend when it has one (the rattleback, 112835 operations: its 5 s simulation
#: 9.1 -> 5.2 s CPU, the same values up to rounding); smaller ones by its interpreter
#: (``backend="lambda"``), which compiles at once
LLVM_OPS = 50000


class _SymengineFunction:
    """``symengine.Lambdify`` with CSE (compiles large mass-matrix forms in a fraction of the
    time of ``sympy.cse`` + ``lambdify``); same calling convention as CompiledFunction."""

    def __init__(self, exprs, coords, parameters: Mapping | None = None):
        from geomech.core.opcount import count_ops

        se = _symengine()
        self.coords = tuple(coords)
        sub = {se.sympify(k): se.sympify(v) for k, v in (parameters or {}).items()}
        values = [se.sympify(e) for e in exprs]
        llvm = getattr(se, "have_llvm", False) and sum(count_ops(e) for e in exprs) > LLVM_OPS
        self._f = se.Lambdify([se.sympify(c) for c in self.coords],
                              [v.subs(sub) for v in values] if sub else values, cse=True,
                              **({"backend": "llvm", "opt_level": 2} if llvm
                                 else {"backend": "lambda"}))
        self._k = len(exprs)

    def __call__(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        if y.ndim == 0 or y.shape[0] != len(self.coords):
            raise ValueError(f"expected a state with {len(self.coords)} components "
                             f"{self.coords}, got shape {y.shape}")
        if y.ndim == 1:
            return np.asarray(self._f(y), dtype=float).reshape(self._k)
        vals = np.asarray(self._f(y.T), dtype=float)          # (T, k)
        return vals.reshape(y.shape[1], self._k).T


def _solve(M, F, y):
    try:
        return np.linalg.solve(M, F)
    except np.linalg.LinAlgError:
        raise ValueError(f"the mass matrix is singular at the state {y}") from None
