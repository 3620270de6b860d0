r"""First integrals from characteristics, and ``dsolve`` / ``integrate`` with a hard time limit.

A generator :math:`X` acting on two coordinates :math:`x_i, x_j` (its other components
vanish, or the ratio involves only coordinates it does not move) has the characteristic
equation :math:`dx_j/dx_i = X^j/X^i`; the constant :math:`C` of its general solution
:math:`F(x_i, x_j) = C`, solved for, is a first integral :math:`F` of :math:`X`.
The first-order equation is solved by :func:`solve_first_order`: elementary methods of
``sympy.dsolve`` only, in a worker process that is killed past its time limit (no signals,
safe in threads).  The same worker solves linear ordinary differential equations
(:func:`solve_linear_ode`: the linear methods of ``dsolve``, hypergeometric and Bessel
equations included) and evaluates antiderivatives (:func:`antiderivative`).

>>> from geomech.core.manifold import Manifold
>>> from geomech.lie.distribution import Distribution
>>> M = Manifold("M", "x y"); x, y = M.coords
>>> characteristic_integrals(Distribution([M.vector_field([1, y])]), M.coords)
[y*exp(-x)]
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import threading

import sympy as sp

from geomech.core import budget
from geomech.lie.span import SYMPY_FAILURES

__all__ = ["characteristic_integrals", "solve_first_order", "solve_linear_ode", "antiderivative",
           "LINEAR_ODE_HINTS"]


def characteristic_integrals(D, coords) -> list[sp.Expr]:
    """Integrals from ``dsolve`` of :math:`dx_j/dx_i = X^j/X^i` for every generator and every
    pair of active coordinates whose ratio depends on ``x_i``, ``x_j`` and on coordinates
    the generator does not move (constants along its flow) only."""
    out = []
    params = set(D.manifold.parameters)
    for X in D.fields:
        active = [j for j, c in enumerate(X.components) if c != 0]
        moved = {coords[j] for j in active}
        for a, b in itertools.combinations(active, 2):
            budget.check()
            sols = None
            for i, j in ((a, b), (b, a)):
                xi, xj = coords[i], coords[j]
                ratio = sp.cancel(X.components[j] / X.components[i])
                if (ratio.free_symbols & moved) - {xi, xj} or sp.count_ops(ratio) > 40:
                    continue
                t = sp.Dummy("t")
                yf = sp.Function("y")
                rhs = ratio.xreplace({xj: yf(t), xi: t})
                sols = solve_first_order(sp.Eq(yf(t).diff(t), rhs), yf(t))
                if sols is not None:
                    break
            if sols is None:
                continue
            for sol in sols if isinstance(sols, list) else [sols]:
                consts = sorted(sol.free_symbols - set(coords) - {t} - params,
                                key=sp.default_sort_key)
                if len(consts) != 1:
                    continue
                try:
                    expr = sp.solve(sol.subs(yf(t), xj).subs(t, xi), consts[0], dict=True)
                except SYMPY_FAILURES:  # solve cannot isolate the constant
                    continue
                out.extend(e[consts[0]] for e in expr)
    return out


# elementary first-order methods only: sympy's Lie-group and power-series heuristics can run
# for minutes on random right-hand sides
_SAFE_HINTS = ("1st_linear", "Bernoulli", "separable", "1st_exact", "almost_linear",
               "1st_homogeneous_coeff_best", "linear_coefficients", "separable_reduced")


#: the methods of ``dsolve`` tried on a linear equation, in order: closed forms first (constant
#: coefficients, Euler, hypergeometric (Gauss), Bessel, Airy), then the reduction of order of an
#: equation free of the unknown itself and the first-order linear formula
LINEAR_ODE_HINTS = ("nth_linear_constant_coeff_homogeneous", "nth_linear_euler_eq_homogeneous",
                    "2nd_hypergeometric", "2nd_linear_bessel", "2nd_linear_airy",
                    "nth_order_reducible", "1st_linear", "separable", "factorable")

# what classify_ode / dsolve raise on equations their methods do not handle
_ODE_FAILURES = (*SYMPY_FAILURES, TypeError)


def _dsolve_task(eq, y, hints=_SAFE_HINTS):
    """The first of the methods ``hints`` that solves ``eq`` (run in the worker), or
    ``None``.  Each method is matched on its own, in order: ``classify_ode`` with an explicit
    hint runs only that method's match (``hint="all"`` runs every method of sympy, among
    them ``nth_algebraic``, a ``solve``: seconds on a trigonometric right-hand side such as
    :math:`y' = \\cos t\\cos y/(\\sin t\\sin y)`), and the match is handed to ``dsolve``
    (``classify=False``: no second classification).  The method and its match are those of
    the first of ``hints`` in ``classify_ode(eq, y, hint="all")``, so the solution is the
    same.

    >>> t = sp.Symbol("t"); f = sp.Function("f")
    >>> _dsolve_task(sp.Eq(f(t).diff(t), f(t)/t), f(t))
    Eq(f(t), C1*t)
    """
    for h in hints:
        try:
            found = sp.classify_ode(eq, y, dict=True, hint=h)
        except _ODE_FAILURES:  # classification failed
            return None
        if h in found:
            try:
                return sp.dsolve(eq, y, hint=h, simplify=False, classify=False,
                                 match=found[h], order=found["order"])
            except _ODE_FAILURES:  # next method
                continue
    return None


def _integrate_task(expr, var):
    """An antiderivative of ``expr`` in ``var`` without unevaluated integrals, or ``None``."""
    try:
        out = sp.integrate(expr, var)
    except _ODE_FAILURES:  # sympy gives up
        return None
    return None if out.has(sp.Integral) else out


_TASKS = {"dsolve": _dsolve_task, "integrate": _integrate_task}


def _run_task(request):
    """``request = (kind, *args)`` -> the result of the task ``kind``."""
    kind, *args = request
    return _TASKS[kind](*args)


def _warm_up() -> None:
    """Import the machinery of ``integrate`` and ``dsolve`` before the worker is ready (a cold
    first call costs seconds, which would count against the first task's time limit)."""
    x, f = sp.Symbol("x"), sp.Function("f")
    try:
        sp.integrate(1 / (x**2 + 1) + sp.log(x), x)
        sp.dsolve((1 - x**2) * f(x).diff(x, 2) - f(x), f(x), hint="2nd_hypergeometric")
    except _ODE_FAILURES:  # pragma: no cover - only a warm-up
        pass


def _dsolve_serve() -> None:
    """Body of the worker process: answer pickled ``(eq, y)`` requests on stdin with pickled
    ``("ok", solution)`` / ``("error", message)`` on stdout, after a ``"ready"`` greeting."""
    import pickle
    import sys

    inp, out = sys.stdin.buffer, sys.stdout.buffer
    _warm_up()
    pickle.dump("ready", out)
    out.flush()
    while True:
        try:
            request = pickle.load(inp)
        except EOFError:
            return
        try:
            reply = ("ok", _run_task(request))
        except Exception as exc:  # noqa: BLE001 - forwarded: the parent re-raises it
            reply = ("error", exc)
        try:
            data = pickle.dumps(reply)
        except (pickle.PicklingError, TypeError, AttributeError):  # an unpicklable exception
            data = pickle.dumps(("error", RuntimeError(f"{type(reply[1]).__name__}: "
                                                       f"{reply[1]}")))
        out.write(data)
        out.flush()


class _DsolveWorker:
    """One worker process for ``dsolve`` with a hard timeout, shared by all threads.

    The worker is a fresh interpreter (``python -c``) that imports this module and serves
    requests over pipes, so it does not depend on how the calling program was started.  A
    call that overruns its time is abandoned by killing the worker (a new one starts on the
    next call): no signal and no stuck thread.  Where no worker can be started (no
    subprocesses allowed, or it fails to start) the call runs in-process, without the limit,
    so the results do not depend on the environment.
    """

    _STARTUP = 120.0  # seconds allowed for the worker's imports (not part of any limit)

    def __init__(self):
        self._lock = threading.Lock()
        self._proc = None
        self._reader = None
        self._thread = None
        self._broken = False

    def _start(self) -> None:
        import os
        import queue
        import subprocess
        import sys

        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
        proc = subprocess.Popen(
            [sys.executable, "-c", f"from {__name__} import _dsolve_serve; _dsolve_serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        replies: queue.Queue = queue.Queue()

        def read():
            import pickle
            while True:
                try:
                    replies.put(pickle.load(proc.stdout))
                except (EOFError, OSError, pickle.UnpicklingError, ValueError):
                    replies.put(None)  # the worker is gone
                    return

        thread = threading.Thread(target=read, daemon=True, name="geomech-dsolve-reader")
        thread.start()
        self._proc, self._reader, self._thread = proc, replies, thread
        if self._get(self._STARTUP) != "ready":
            raise OSError("the dsolve worker did not start")

    def _get(self, seconds: float):
        import queue
        try:
            return self._reader.get(timeout=seconds)
        except queue.Empty:
            return TimeoutError

    def _kill(self) -> None:
        """Stop the worker and close its pipes: the process is killed and reaped, the reader
        thread sees the end of the pipe and ends, then both pipes are closed (no process,
        pipe or thread is left behind)."""
        proc, thread = self._proc, self._thread
        self._proc = self._reader = self._thread = None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            proc.stdin.close()
        proc.kill()
        proc.wait()
        if thread is not None:
            thread.join(5.0)
        with contextlib.suppress(OSError):
            proc.stdout.close()

    def close(self) -> None:
        """Stop the worker (also at interpreter exit)."""
        with self._lock:
            self._kill()

    def solve(self, eq, y, seconds: float):
        """``dsolve`` of ``eq`` by the elementary first-order methods (kept for callers)."""
        return self.run(("dsolve", eq, y), seconds)

    def run(self, request: tuple, seconds: float):
        """The result of ``request = (kind, *args)`` (a task of :data:`_TASKS`) computed in
        the worker within ``seconds``, or ``None`` past it."""
        import pickle
        with self._lock:
            if not self._broken and self._proc is None:
                try:
                    self._start()
                except OSError:  # no subprocesses here, or the worker cannot import us
                    self._kill()
                    self._broken = True
            if self._broken:
                return _run_task(request)
            try:
                pickle.dump(request, self._proc.stdin)
                self._proc.stdin.flush()
            except (OSError, pickle.PicklingError):  # worker died: solve here
                self._kill()
                return _run_task(request)
            reply = self._get(seconds)
            if reply is TimeoutError:
                self._kill()
                return None
            if reply is None:  # the worker crashed on this input
                self._kill()
                return None
            if reply[0] == "error":  # an unexpected failure of dsolve: not hidden
                raise reply[1]
            return reply[1]


_DSOLVE = _DsolveWorker()
atexit.register(_DSOLVE.close)


def solve_first_order(eq, y, seconds: float = 4.0):
    """General solution(s) of a first-order ODE by an elementary method, or ``None``.

    ``dsolve`` runs in a worker process with a hard limit of ``seconds`` (cut to what is
    left of an enclosing :func:`geomech.core.budget.time_limit`); past it, no solution.
    """
    return _limited(("dsolve", eq, y), seconds)


def _limited(request: tuple, seconds: float):
    """:meth:`_DsolveWorker.run` with ``seconds`` cut to the enclosing budget."""
    budget.check()
    left = budget.remaining()
    if left is not None:
        seconds = max(0.0, min(seconds, left))
    out = _DSOLVE.run(request, seconds)
    budget.check()
    return out


def solve_linear_ode(eq, y, seconds: float = 20.0, hints=LINEAR_ODE_HINTS):
    r"""General solution of a linear ordinary differential equation by the first method of
    ``hints`` (default :data:`LINEAR_ODE_HINTS`) that ``sympy.dsolve`` applies to it, or
    ``None`` (no method, or past ``seconds``; in a worker process, as
    :func:`solve_first_order`).

    >>> x = sp.Symbol("x"); u = sp.Function("u")
    >>> solve_linear_ode(x**2*u(x).diff(x, 2) - 2*u(x), u(x))
    Eq(u(x), C1/x + C2*x**2)
    """
    return _limited(("dsolve", eq, y, tuple(hints)), seconds)


def antiderivative(expr, var, seconds: float = 10.0):
    """``sympy.integrate(expr, var)`` when it returns a closed form within ``seconds`` (in a
    worker process, as :func:`solve_first_order`), else ``None``.

    >>> x = sp.Symbol("x")
    >>> antiderivative(1/x, x)
    log(x)
    """
    return _limited(("integrate", expr, var), seconds)
