r"""Compiled scalar functions of the phase-space coordinates: expressions, parameters
substituted, turned into **one** numpy function by a common-subexpression elimination over
all of them (:func:`sympy.cse`) and :func:`sympy.lambdify`, memoised on the symbolic source;
optionally the same CSE'd code as a numba loop; and the compiled Jacobian
:math:`J^i_j = \partial X^i/\partial x^j` of a field.

>>> x, y = sp.symbols("x y")
>>> F = compile_functions([x*y, x + y**2], [x, y])
>>> F([2.0, 3.0]), F.operations
(array([ 6., 11.]), 3)
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import sympy as sp

from geomech.core.budget import poll
from geomech.core.manifold import free_symbols_of
from geomech.core.parse import as_expr

__all__ = ["CompiledFunction", "CompiledJacobian", "compile_functions", "resolve_parameters",
           "prepare_expressions", "check_backend", "no_undefined_functions"]


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


def prepare_expressions(exprs: Sequence[sp.Expr], coords: Sequence[sp.Symbol], params: dict,
             what: str) -> list[sp.Expr]:
    exprs = [poll() or as_expr(e, exact=False).xreplace(params) for e in exprs]
    cs = set(coords)
    free = set().union(*(e.free_symbols for e in exprs)) - cs if exprs else set()
    if free:
        names = ", ".join(sorted(str(s) for s in free))
        raise ValueError(f"{what} depends on {names} which are neither coordinates nor given "
                         f"parameters; pass parameters={{'{names.split(', ')[0]}': value, ...}}")
    no_undefined_functions(exprs, what)
    return exprs


def no_undefined_functions(exprs: Sequence[sp.Expr], what: str) -> None:
    """``ValueError`` naming the undefined functions in ``exprs`` (they cannot be compiled).

    >>> no_undefined_functions([sp.Symbol("x")], "the field")
    """
    undefined = _undefined_functions(exprs)
    if undefined:
        raise ValueError(f"{what} contains undefined functions "
                         f"{', '.join(sorted(map(str, undefined)))}; substitute them (e.g. "
                         f"give a concrete potential) before compiling")


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
                                    needed=free_symbols_of(exprs) - set(self.coords))
        self.parameters = params
        self.exprs = tuple(prepare_expressions(exprs, self.coords, params, what))
        self.backend = check_backend(backend)
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


def check_backend(backend) -> str:
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


def _undefined_functions(exprs) -> set:
    """The undefined function applications of ``exprs``, by one pass over their distinct
    sub-expressions (``atoms`` walks a shared sub-expression once per occurrence: seconds
    on a heavy body's mass-matrix form)."""
    seen: set = set()
    undef: set = set()
    todo = list(exprs)
    while todo:
        e = todo.pop()
        if e in seen:
            continue
        seen.add(e)
        if isinstance(e, sp.core.function.AppliedUndef):
            undef.add(e)
        elif getattr(e, "bound_symbols", None):
            undef |= e.atoms(sp.core.function.AppliedUndef)
            continue
        todo.extend(e.args)
    return undef


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

def compile_functions(exprs: Sequence[sp.Expr], coords: Sequence[sp.Symbol],
                      parameters: Mapping | None = None,
                      what: str = "expression") -> CompiledFunction:
    """Compile scalar expressions of ``coords`` together (one CSE) to a numpy function.

    >>> x = sp.Symbol("x")
    >>> compile_functions([x**2, sp.sin(x)], [x])(np.array([0.0]))
    array([0., 0.])
    """
    return CompiledFunction(exprs, coords, parameters, what)
