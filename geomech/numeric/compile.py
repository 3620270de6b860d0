r"""Compilation of symbolic fields and functions to fast numpy callables.

The whole right-hand side of a vector field is compiled into **one** function: common
subexpressions of all components are eliminated together (:func:`sympy.cse`) and the result
is turned into Python/numpy code by :func:`sympy.lambdify`.  Parameters are substituted as
numbers first, so the compiled code only sees the phase-space coordinates.

>>> import geomech as gm
>>> M = gm.Manifold("M", "x y"); x, y = M.coords
>>> f = compile_vector_field(M.vector_field([-y, x]))
>>> f(0.0, [1.0, 0.0])
array([-0., 1.])
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import sympy as sp

from geomech.core.fields import VectorField
from geomech.core.parse import as_expr

__all__ = ["CompiledField", "CompiledFunction", "CompiledJacobian", "CompiledImplicitField",
           "compile_vector_field", "compile_functions", "resolve_parameters", "is_implicit"]


def resolve_parameters(parameters: Mapping | None, known: Iterable[sp.Symbol] = (),
                       needed: Iterable[sp.Symbol] = ()) -> dict[sp.Symbol, sp.Expr]:
    """Turn ``{symbol or name: value}`` into ``{symbol: sympy number}``.

    Names are matched against the symbols in ``known`` and ``needed``; a name that matches
    none of them raises ``ValueError``.  Values must be real numbers (or exact sympy numbers).

    >>> m = sp.Symbol("m")
    >>> resolve_parameters({"m": 2}, known=[m])
    {m: 2}
    """
    if parameters is None:
        return {}
    if not isinstance(parameters, Mapping):
        raise TypeError(f"parameters must be a dict {{symbol or name: value}}, got "
                        f"{type(parameters).__name__}")
    pool = {s.name: s for s in (*known, *needed) if isinstance(s, sp.Symbol)}
    out: dict[sp.Symbol, sp.Expr] = {}
    for key, val in parameters.items():
        if isinstance(key, str):
            if key not in pool:
                raise ValueError(f"unknown parameter {key!r}; the problem's parameters are "
                                 f"{', '.join(sorted(pool)) or 'none'}")
            sym = pool[key]
        elif isinstance(key, sp.Symbol):
            sym = pool.get(key.name, key) if key not in set(pool.values()) else key
        else:
            raise TypeError(f"parameter keys must be symbols or names, got {key!r}")
        if isinstance(val, bool):
            raise TypeError(f"value of parameter {sym} must be a number, got a bool")
        try:
            if isinstance(val, float) and not math.isfinite(val):
                num = sp.Float(val)           # reported as not finite by the caller
            else:                             # text through the safe parser, numbers only
                num = as_expr(val, {}, context=f"parameter {sym}", exact=False)
        except TypeError:
            raise TypeError(f"value of parameter {sym} must be a number, got {val!r}") from None
        if not num.is_number:
            raise ValueError(f"value of parameter {sym} must be a number, got {val!r}")
        out[sym] = num
    return out


def _prepare(exprs: Sequence[sp.Expr], coords: Sequence[sp.Symbol], params: dict,
             what: str) -> list[sp.Expr]:
    exprs = [as_expr(e, exact=False).xreplace(params) for e in exprs]
    cs = set(coords)
    free = set().union(*(e.free_symbols for e in exprs)) - cs if exprs else set()
    if free:
        names = ", ".join(sorted(str(s) for s in free))
        raise ValueError(f"{what} depends on {names} which are neither coordinates nor given "
                         f"parameters; pass parameters={{'{names.split(', ')[0]}': value, ...}}")
    undefined = set().union(*(e.atoms(sp.core.function.AppliedUndef) for e in exprs)) \
        if exprs else set()
    if undefined:
        raise ValueError(f"{what} contains undefined functions "
                         f"{', '.join(sorted(map(str, undefined)))}; substitute them (e.g. "
                         f"give a concrete potential) before compiling")
    return exprs


class CompiledFunction:
    r"""Several scalar expressions compiled into one CSE'd numpy function of the coordinates.

    ``F(y)`` evaluates all expressions at a state ``y`` (shape ``(n,)``) or at many states at
    once (shape ``(n, T)``) and returns an array of shape ``(k,)`` or ``(k, T)``.

    Attributes
    ----------
    coords : tuple of Symbol
        Argument order.
    exprs : tuple of sympy expressions
        The expressions, parameters substituted.
    operations : int
        Operation count after common-subexpression elimination.
    """

    def __init__(self, exprs: Sequence[sp.Expr], coords: Sequence[sp.Symbol],
                 parameters: Mapping | None = None, what: str = "expression",
                 known: Iterable[sp.Symbol] = (), backend: str = "numpy"):
        self.coords = tuple(coords)
        params = resolve_parameters(parameters, known=known,
                                    needed=_free(exprs) - set(self.coords))
        self.parameters = params
        self.exprs = tuple(_prepare(exprs, self.coords, params, what))
        self.backend = _check_backend(backend)
        self._func, self.operations = _lambdified(self.coords, self.exprs)
        self._kernel = self._make_kernel()

    def _make_kernel(self):
        """The numba kernel ``kernel(Y (T, n), out (T, k))`` (``backend="numba"``)."""
        if getattr(self, "backend", "numpy") != "numba" or not self.coords:
            return None
        return _numba_kernel(self.coords, self.exprs)

    def _run_kernel(self, y: np.ndarray) -> np.ndarray:
        """Values at ``y`` of shape (n,) or (n, ...) through the numba kernel."""
        Y = np.ascontiguousarray(y.reshape(len(self.coords), -1).T)
        out = np.empty((Y.shape[0], len(self.exprs)))
        self._kernel(Y, out)
        return out[0] if y.ndim == 1 else out.T.reshape(len(self.exprs), *y.shape[1:])

    def __call__(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        if y.ndim == 0 or y.shape[0] != len(self.coords):
            raise ValueError(f"expected a state with {len(self.coords)} components "
                             f"{self.coords}, got shape {y.shape}")
        if self._kernel is not None:
            return self._run_kernel(y)
        vals = self._func(*y) if self._func is not None else [float(e) for e in self.exprs]
        if y.ndim == 1:                      # one state: every value is a scalar
            return np.array(vals, dtype=float)
        shape = y.shape[1:]
        return np.array([np.broadcast_to(np.asarray(v, dtype=float), shape) for v in vals])

    def batch(self, states) -> np.ndarray:
        """Evaluate at many states at once: ``states`` of shape ``(N, n)`` (one state per
        row) gives an array of shape ``(N, k)``, row ``j`` the values at ``states[j]``
        (numpy broadcasting through the one CSE'd function, no Python loop).

        >>> x, y = sp.symbols("x y")
        >>> F = compile_functions([x*y, x + 1], [x, y])
        >>> F.batch([[1.0, 2.0], [3.0, 4.0], [0.5, 0.0]])
        array([[ 2. ,  2. ],
               [12. ,  4. ],
               [ 0. ,  1.5]])
        """
        Y = np.asarray(states, dtype=float)
        if Y.ndim != 2 or Y.shape[1] != len(self.coords):
            raise ValueError(f"expected a batch of states of shape (N, {len(self.coords)}) "
                             f"for {self.coords}, got shape {Y.shape}")
        return np.ascontiguousarray(self(Y.T).T)

    # -- pickling: by the symbolic source, recompiled on load ----------------------------
    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in _UNPICKLED}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._func, _ = _lambdified(self.coords, self.exprs)
        self._kernel = self._make_kernel()

    def __repr__(self) -> str:
        return (f"CompiledFunction({len(self.exprs)} expressions of "
                f"{', '.join(map(str, self.coords))}; {self.operations} operations)")


_UNPICKLED = ("_func", "_jacobian", "_fn", "_f", "_kernel")
_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 64
_CACHE_LOCK = threading.Lock()


def _lambdified(coords: tuple, exprs: tuple):
    """``(numpy function, operation count after CSE)`` of ``exprs`` in ``coords``.

    Memoised (least recently used, 64 entries) on the symbolic source, so that compiling the
    same field again -- a second ``simulate`` of the same system, every run of a sweep, a
    field unpickled on a worker -- costs one dictionary look-up."""
    key = (coords, exprs)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    replacements, reduced = sp.cse(list(exprs), optimizations="basic")
    ops = int(sum(sp.count_ops(r) for _, r in replacements)
              + sum(sp.count_ops(r) for r in reduced))
    func = sp.lambdify(list(coords), list(exprs), modules="numpy",
                       cse=lambda _: (replacements, reduced)) if coords else None
    with _CACHE_LOCK:
        _CACHE[key] = (func, ops)
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return func, ops


_BACKENDS = ("numpy", "numba")
_KERNELS: dict = {}


def _check_backend(backend) -> str:
    if backend not in _BACKENDS:
        raise ValueError(f"backend must be 'numpy' or 'numba', got {backend!r}")
    if backend == "numba":
        try:
            import numba  # noqa: F401
        except ImportError:
            raise ImportError("backend='numba' needs numba: pip install 'geomech[numba]' (or "
                              "use the default backend='numpy')") from None
    return backend


def _numba_kernel(coords: tuple, exprs: tuple):
    """A numba-compiled loop ``kernel(Y, out)``: ``out[j] = exprs(Y[j])`` for the rows of
    ``Y`` (the CSE'd expressions printed as Python ``math`` code; IEEE semantics:
    ``error_model="numpy"``, no fastmath).  Memoised on the symbolic source."""
    key = (coords, exprs)
    with _CACHE_LOCK:
        hit = _KERNELS.get(key)
    if hit is not None:
        return hit
    import math as _math

    import numba
    from sympy.printing.pycode import PythonCodePrinter

    replacements, reduced = sp.cse(list(exprs), optimizations="basic")
    arg = {c: sp.Symbol(f"_y{i}") for i, c in enumerate(coords)}
    printer = PythonCodePrinter({"fully_qualified_modules": True, "strict": True})
    lines = ["def _kernel(Y, out):", "    for k in range(Y.shape[0]):"]
    lines += [f"        _y{i} = Y[k, {i}]" for i in range(len(coords))]
    try:
        lines += [f"        {s} = {printer.doprint(e.xreplace(arg))}" for s, e in replacements]
        lines += [f"        out[k, {j}] = {printer.doprint(e.xreplace(arg))}"
                  for j, e in enumerate(reduced)]
    except NotImplementedError as exc:
        raise ValueError(f"backend='numba' cannot compile these expressions ({exc}); use "
                         f"backend='numpy'") from None
    namespace: dict = {"math": _math}
    exec(compile("\n".join(lines), "<geomech numba kernel>", "exec"), namespace)   # noqa: S102
    kernel = numba.njit(error_model="numpy", cache=False)(namespace["_kernel"])
    with _CACHE_LOCK:
        _KERNELS[key] = kernel
        if len(_KERNELS) > _CACHE_SIZE:
            _KERNELS.pop(next(iter(_KERNELS)))
    return kernel


def _free(exprs) -> set:
    out: set = set()
    for e in exprs:
        out |= as_expr(e, exact=False).free_symbols
    return out


class CompiledField(CompiledFunction):
    r"""A compiled vector field :math:`\dot x = X(x)`: call it as ``f(t, y)`` (scipy style).

    Built by :func:`compile_vector_field`.  ``f.manifold`` is the field's chart; ``f(t, y)``
    ignores ``t`` (fields are autonomous) and returns the components at ``y``.
    """

    def __init__(self, field: VectorField, parameters: Mapping | None = None,
                 backend: str = "numpy"):
        if not isinstance(field, VectorField):
            raise TypeError(f"compile_vector_field expects a VectorField, got "
                            f"{type(field).__name__}")
        self.manifold = field.manifold
        super().__init__(field.components, field.manifold.coords, parameters,
                         what=f"the vector field on {field.manifold.name}",
                         known=field.manifold.parameters, backend=backend)

    def __call__(self, t, y=None) -> np.ndarray:  # type: ignore[override]
        if y is None:           # f(y) also works
            t, y = 0.0, t
        if (type(y) is np.ndarray and y.ndim == 1 and y.shape[0] == len(self.coords)
                and self._func is not None):       # the solver's call: no further checks
            if self._kernel is not None:
                out = np.empty((1, len(self.exprs)))
                self._kernel(y.reshape(1, -1), out)
                return out[0]
            return np.array(self._func(*y), dtype=float)
        return super().__call__(y)

    @property
    def jacobian(self) -> CompiledJacobian:
        r"""The compiled Jacobian :math:`J^i_j = \partial X^i/\partial x^j` of the field
        (differentiated symbolically, compiled with one CSE on first access).

        >>> import geomech as gm
        >>> M = gm.Manifold("M", "x v"); x, v = M.coords
        >>> J = compile_vector_field(M.vector_field([v, -x**3])).jacobian
        >>> J(0.0, [2.0, 0.0])
        array([[  0.,   1.],
               [-12.,   0.]])
        """
        jac = self.__dict__.get("_jacobian")
        if jac is None:
            jac = CompiledJacobian(self.exprs, self.coords,
                                   backend=getattr(self, "backend", "numpy"))
            self.__dict__["_jacobian"] = jac
        return jac

    def __repr__(self) -> str:
        return (f"CompiledField(on {self.manifold.name}{self.coords}; "
                f"{self.operations} operations after CSE)")


class CompiledJacobian(CompiledFunction):
    r"""The Jacobian matrix :math:`J^i_j(x) = \partial X^i/\partial x^j` of a field, compiled.

    ``J(t, y)`` (or ``J(y)``) returns the ``(n, n)`` matrix at one state; ``J.batch(Y)`` with
    ``Y`` of shape ``(N, n)`` returns shape ``(N, n, n)``.  It drives the variational
    equation :math:`\dot\xi = J(x)\xi` (Lyapunov exponents, :mod:`geomech.numeric.dynamics`).
    Built by :attr:`CompiledField.jacobian`.

    >>> x, y = sp.symbols("x y")
    >>> J = CompiledJacobian([x*y, x + y**2], [x, y])
    >>> J.batch([[1.0, 2.0], [0.0, 1.0]])[1]
    array([[1., 0.],
           [1., 2.]])
    """

    def __init__(self, exprs: Sequence[sp.Expr], coords: Sequence[sp.Symbol],
                 backend: str = "numpy"):
        coords = tuple(coords)
        entries = [sp.diff(e, c) for e in exprs for c in coords]
        super().__init__(entries, coords, what="the Jacobian", backend=backend)
        self.shape = (len(exprs), len(coords))

    def __call__(self, t, y=None) -> np.ndarray:  # type: ignore[override]
        if y is None:
            t, y = 0.0, t
        vals = super().__call__(y)
        return vals.reshape(*self.shape, *vals.shape[1:])

    def batch(self, states) -> np.ndarray:
        Y = np.asarray(states, dtype=float)
        if Y.ndim != 2 or Y.shape[1] != len(self.coords):
            raise ValueError(f"expected a batch of states of shape (N, {len(self.coords)}) "
                             f"for {self.coords}, got shape {Y.shape}")
        vals = CompiledFunction.__call__(self, Y.T)             # (n*n, N)
        return np.ascontiguousarray(np.moveaxis(vals.reshape(*self.shape, len(Y)), 2, 0))

    def __repr__(self) -> str:
        return (f"CompiledJacobian({self.shape[0]}x{self.shape[1]} of "
                f"{', '.join(map(str, self.coords))}; {self.operations} operations)")


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
        params = resolve_parameters(parameters, known=known,
                                    needed=_free(exprs) - set(self.coords))
        self.parameters = params
        self.exprs = tuple(_prepare(exprs, self.coords, params, what))
        self.backend = backend if backend != "auto" else (
            "symengine" if _symengine() is not None else "sympy")
        if self.backend not in ("symengine", "sympy"):
            raise ValueError(f"backend must be 'auto', 'sympy' or 'symengine', got {backend!r}")
        self._fn = self._make_fn()
        self._operations: int | None = None

    def _make_fn(self):
        if self.backend == "symengine":
            return _SymengineFunction(self.exprs, self.coords)
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


class _SymengineFunction:
    """``symengine.Lambdify`` with CSE (compiles large mass-matrix forms in a fraction of the
    time of ``sympy.cse`` + ``lambdify``); same calling convention as CompiledFunction."""

    def __init__(self, exprs, coords):
        se = _symengine()
        self.coords = tuple(coords)
        self._f = se.Lambdify([se.sympify(c) for c in self.coords],
                              [se.sympify(e) for e in exprs], cse=True, backend="lambda")
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


def compile_vector_field(field, parameters: Mapping | None = None, backend: str = "auto"):
    r"""Compile a vector field (or a mass-matrix form) to a fast numpy right-hand side
    ``f(t, y)``.

    All components are compiled together: one :func:`sympy.cse` over the whole right-hand
    side, then :func:`sympy.lambdify` to numpy.  ``parameters`` (``{symbol or name:
    number}``) are substituted before compiling; a symbol that is neither a coordinate nor a
    given parameter raises ``ValueError`` naming it.

    Parameters
    ----------
    field : VectorField, ImplicitEquations or EquationsOfMotion
        The field :math:`X = \sum_i X^i(x)\,\partial_{x^i}`; or equations in mass-matrix
        form :math:`M(x)z = F(x)`, :math:`\dot x = g(x) + P(x)z` (``eq.mass_matrix_form()``;
        an ``EquationsOfMotion`` is compiled through its mass-matrix form): then :math:`M`,
        :math:`F`, :math:`g`, :math:`P` are compiled together and :math:`Mz = F` is solved
        numerically (``numpy.linalg.solve``) at every call, with no symbolic inversion.
    parameters : dict, optional
        Numeric values of the parameters.
    backend : {"auto", "sympy", "symengine", "numpy", "numba"}
        Compiler of a mass-matrix form: ``symengine.Lambdify`` with CSE when symengine is
        installed (``"auto"``; seconds instead of minutes for the rolling ellipsoid), else
        ``sympy.cse`` + ``lambdify``.  A vector field is compiled by ``sympy.cse`` +
        ``lambdify`` to numpy (``"auto"``, ``"numpy"``, ``"sympy"``) or, with ``"numba"``
        (optional dependency), the same CSE'd code as a numba-compiled loop: about 0.7 s to
        compile (1.4 s more for the Jacobian), then, measured for the Chaplygin ball
        (``benchmarks/bench_numeric.py``, CPU time), 7.8x faster per call, 5.8x on a batch
        of 10^4 states, 12x on the Jacobian batch, but only 1.3x on a whole ``simulate``
        (scipy's step overhead dominates).  Results agree with numpy to rounding, not bit
        for bit: keep one backend within a comparison.

    Returns
    -------
    CompiledField or CompiledImplicitField
        ``f(t, y) -> ndarray`` of the components :math:`X^i(y)`, in the order of
        ``field.manifold.coords``; vectorised over ``y`` of shape ``(n, T)``.

    Examples
    --------
    >>> import geomech as gm
    >>> M = gm.Manifold("M", "x v", parameters="k"); x, v = M.coords; (k,) = M.parameters
    >>> f = compile_vector_field(M.vector_field([v, -k*x]), parameters={"k": 4})
    >>> f(0.0, [1.0, 0.0])
    array([ 0., -4.])

    A mass-matrix form (the sleigh's Lagrange--d'Alembert equations, no inversion):

    >>> S = gm.examples.chaplygin_sleigh()
    >>> imp = S.equations(explicit=False).mass_matrix_form()
    >>> g = compile_vector_field(imp, parameters={"m": 1, "I": 1, "a": 0.5})
    >>> h = compile_vector_field(S.vector_field(), parameters={"m": 1, "I": 1, "a": 0.5})
    >>> y = [0.1, 0.2, 0.3, 0.4, 0.5]
    >>> bool(np.allclose(g(0.0, y), h(0.0, y), rtol=1e-12))
    True
    """
    if backend not in ("auto", "sympy", "symengine", "numpy", "numba"):
        raise ValueError(f"backend must be 'auto', 'numpy', 'numba', 'sympy' or 'symengine', "
                         f"got {backend!r}")
    if isinstance(field, VectorField):
        if backend == "symengine":
            raise ValueError("backend='symengine' compiles mass-matrix forms; a vector field "
                             "uses 'numpy' (the default) or 'numba'")
        return CompiledField(field, parameters,
                             backend="numba" if backend == "numba" else "numpy")
    if backend in ("numpy", "numba"):
        backend = "sympy"
    if is_implicit(field):
        return CompiledImplicitField(field, parameters, backend=backend)
    mmf = getattr(field, "mass_matrix_form", None)
    if callable(mmf):
        return CompiledImplicitField(mmf(), parameters, backend=backend)
    raise TypeError(f"compile_vector_field expects a VectorField or a mass-matrix form "
                    f"(ImplicitEquations), got {type(field).__name__}")


def compile_functions(exprs: Sequence[sp.Expr], coords: Sequence[sp.Symbol],
                      parameters: Mapping | None = None,
                      what: str = "expression") -> CompiledFunction:
    """Compile scalar expressions of ``coords`` together (one CSE) to a numpy function.

    >>> x = sp.Symbol("x")
    >>> compile_functions([x**2, sp.sin(x)], [x])(np.array([0.0]))
    array([0., 0.])
    """
    return CompiledFunction(exprs, coords, parameters, what)
