r"""Lyapunov characteristic exponents by the QR method of Benettin, Galgani, Giorgilli &
Strelcyn (Meccanica 15, 1980) and Shimada & Nagashima (Prog. Theor. Phys. 61, 1979): the
variational equation :math:`\dot\Xi = J(x)\,\Xi` (with the compiled symbolic Jacobian
:math:`J = \partial X/\partial x`) is integrated along the trajectory and
re-orthonormalised every ``interval``; :math:`\lambda_i = \frac1T\sum\log R_{ii}`.  One
trajectory (:func:`lyapunov_spectrum`, :func:`max_lyapunov`) or many, serially or in
parallel (:func:`lyapunov_ensemble`).

>>> import geomech as gm
>>> M = gm.Manifold("M", "x y"); x, y = M.coords
>>> round(max_lyapunov(M.vector_field([x, -2*y]), [1e-3, 1.0], 40.0).maximal, 1)
1.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .compile import CompiledField
from .inputs import compiled_field_of, initial_state, initial_states, time_span
from .result import figure_axes
from .sweep import parallel_map

__all__ = ["lyapunov_spectrum", "max_lyapunov", "lyapunov_ensemble", "LyapunovResult"]


class LyapunovResult:
    r"""Lyapunov characteristic exponents of one trajectory.

    Attributes
    ----------
    exponents : ndarray, shape (k,)
        :math:`\lambda_1 \ge \dots \ge \lambda_k` (in the order of the QR columns, which is
        the descending order for a converged computation).
    times : ndarray, shape (m,)
        Times of the re-orthonormalisations (measured from the end of the transient).
    history : ndarray, shape (m, k)
        The running estimates :math:`\frac1t\sum\log R_{ii}` at those times.
    divergence : float
        Time average of :math:`\operatorname{div}X = \operatorname{tr}J` along the
        trajectory (trapezoidal rule on the re-orthonormalisation times); when ``k = n`` it
        equals the sum of the exponents (Liouville), an independent check.
    final_state : ndarray, shape (n,)
    coords : tuple of Symbol
    """

    def __init__(self, exponents, times, history, divergence, final_state, coords):
        self.exponents = exponents
        self.times = times
        self.history = history
        self.divergence = divergence
        self.final_state = final_state
        self.coords = tuple(coords)

    @property
    def maximal(self) -> float:
        """The maximal exponent :math:`\\lambda_1`."""
        return float(self.exponents[0])

    def plot(self):
        """Figure of the running estimates against time (convergence of the exponents)."""
        fig, axes = figure_axes()
        ax = axes[0, 0]
        for i in range(self.history.shape[1]):
            ax.plot(self.times, self.history[:, i], label=f"λ{i + 1}")
        ax.axhline(0.0, color="0.6", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("t")
        ax.set_ylabel("running estimate")
        ax.legend(loc="best", fontsize="small")
        return fig

    def __repr__(self) -> str:
        ex = ", ".join(f"{v:.4g}" for v in self.exponents)
        return f"LyapunovResult([{ex}], T={self.times[-1]:g})"


def _variational(f: CompiledField, k: int):
    """Right-hand side of :math:`\\dot x = X(x)`, :math:`\\dot\\Xi = J(x)\\Xi` (``n + nk``)."""
    J = f.jacobian
    n = len(f.coords)

    def rhs(t, z):
        y = z[:n]
        return np.concatenate([f(t, y), (J(y) @ z[n:].reshape(n, k)).ravel()])

    return rhs


def lyapunov_spectrum(system, x0, t_span, parameters: Mapping | None = None,
                      k: int | None = None, interval: float = 1.0, transient: float = 0.0,
                      method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-12,
                      seed: int = 0, backend: str = "numpy") -> LyapunovResult:
    r"""The ``k`` largest Lyapunov exponents of the trajectory from ``x0`` (QR method).

    The state and ``k`` tangent vectors :math:`\Xi` (random orthonormal start, ``seed``) are
    integrated together, :math:`\dot x = X(x)`, :math:`\dot\Xi = J(x)\Xi` with the compiled
    Jacobian; every ``interval`` the tangent vectors are re-orthonormalised,
    :math:`\Xi = QR`, :math:`\Xi \leftarrow Q`, and

    .. math:: \lambda_i = \frac{1}{T}\sum_{\text{steps}} \log R_{ii}

    (Benettin, Galgani, Giorgilli & Strelcyn, Meccanica 15 (1980) 9--30; Shimada & Nagashima,
    Prog. Theor. Phys. 61 (1979) 1605).  Finite-time estimates converge like
    :math:`O(\log T / T)` on regular orbits; ``res.history`` shows the convergence.

    Parameters
    ----------
    system : NonholonomicSystem, object with ``.vector_field()``, or VectorField
    x0 : dict or sequence
        Initial state on the phase space.
    t_span : (t0, t1) or float
        The averaging interval (after the transient).
    k : int, optional
        Number of exponents (default: all, the dimension of the phase space).
    interval : float
        Time between re-orthonormalisations.
    transient : float
        Time integrated first (without measuring), to reach the attractor / invariant set.
    backend : {"numpy", "numba"}
        Compiler of the field and of its Jacobian
        (:func:`~geomech.numeric.compile.compile_vector_field`).

    Examples
    --------
    >>> import geomech as gm
    >>> M = gm.Manifold("M", "x y"); x, y = M.coords
    >>> res = lyapunov_spectrum(M.vector_field([x, -2*y]), [1e-3, 1.0], 40.0)   # linear
    >>> [round(float(v), 1) for v in res.exponents], round(float(sum(res.exponents)), 8)
    ([1.0, -2.0], -1.0)
    """
    field, f = compiled_field_of(system, parameters, backend)
    options = _lyapunov_options(len(f.coords), k, interval, transient)
    shared = (f, time_span(t_span, forward=True), *options, method, rtol, atol, seed)
    return _lyapunov_run(shared, initial_state(x0, f.coords))


def _lyapunov_options(n: int, k, interval, transient) -> tuple[int, float, float]:
    k = n if k is None else k
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= n:
        raise ValueError(f"k must be an integer between 1 and {n} (the phase-space dimension), "
                         f"got {k!r}")
    for name, val, least in (("interval", interval, "positive"),
                             ("transient", transient, "non-negative")):
        if not isinstance(val, (int, float)) or not math.isfinite(val) or val < 0 or (
                name == "interval" and val == 0):
            raise ValueError(f"{name} must be a finite {least} number, got {val!r}")
    return k, float(interval), float(transient)


def _lyapunov_run(shared: tuple, y: np.ndarray) -> LyapunovResult:
    """The QR method along the trajectory from ``y`` (a worker's task)."""
    from scipy.integrate import solve_ivp

    from geomech.core import budget

    f, (t0, t1), k, interval, transient, method, rtol, atol, seed = shared
    n = len(f.coords)
    if transient > 0:
        y = solve_ivp(f, (t0, t0 + transient), y, method=method, rtol=rtol, atol=atol).y[:, -1]
    Q = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, k)))[0]
    rhs, J = _variational(f, k), f.jacobian
    logs = np.zeros(k)
    times, hist, divs = [0.0], [np.zeros(k)], [float(np.trace(J(y)))]
    t, T = 0.0, t1 - t0
    while t < T - 1e-12 * T:
        budget.check()
        h = min(interval, T - t)
        sol = solve_ivp(rhs, (0.0, h), np.concatenate([y, Q.ravel()]), method=method,
                        rtol=rtol, atol=atol)
        if not sol.success:
            raise ValueError(f"the integration failed at t = {t0 + transient + t:g}: "
                             f"{sol.message}")
        y, (Q, d) = sol.y[:n, -1], _reorthonormalise(sol.y[n:, -1].reshape(n, k))
        logs += np.log(np.abs(d))
        t += h
        times.append(t)
        hist.append(logs / t)
        divs.append(float(np.trace(J(y))))
    times_a = np.array(times)
    trapezoid = getattr(np, "trapezoid", None) or np.trapz
    div = float(trapezoid(divs, times_a) / T)
    return LyapunovResult(logs / T, times_a[1:], np.array(hist[1:]), div, y, f.coords)


def _reorthonormalise(Xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Xi = QR``: the orthonormal ``Q`` (columns signed so that ``diag R > 0``) and
    ``diag R``."""
    Q, R = np.linalg.qr(Xi)
    d = np.diag(R)
    return Q * np.sign(d), d


def lyapunov_ensemble(system, initial_conditions, t_span, parameters: Mapping | None = None,
                      k: int | None = 1, interval: float = 1.0, transient: float = 0.0,
                      method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-12,
                      seed: int = 0, client=None, workers: int | None = None,
                      progress: bool | None = None,
                      backend: str = "numpy") -> list[LyapunovResult]:
    r"""Lyapunov exponents of many trajectories: :func:`lyapunov_spectrum` (default
    ``k = 1``, the maximal exponent) from every initial condition, in input order.

    ``client``, ``workers`` and ``progress`` choose where the runs are performed, as in
    :func:`~geomech.numeric.sweep.sweep` (serially, ``"processes"``, a dask cluster or
    ``Client``, an executor); the field and its Jacobian are compiled once per worker, and
    the exponents are the same in every mode (same code, same tangent start ``seed``).

    Examples
    --------
    >>> import geomech as gm
    >>> M = gm.Manifold("M", "x y"); x, y = M.coords
    >>> out = lyapunov_ensemble(M.vector_field([x, -2*y]), [[1e-3, 1.0], [1.0, 1.0]], 30.0)
    >>> [round(r.maximal, 1) for r in out]
    [1.0, 1.0]
    """
    field, f = compiled_field_of(system, parameters, backend)
    options = _lyapunov_options(len(f.coords), k, interval, transient)
    shared = (f, time_span(t_span, forward=True), *options, method, rtol, atol, seed)
    return parallel_map(_lyapunov_run, shared, initial_states(initial_conditions, f.coords),
                        client=client, workers=workers, progress=progress, desc="Lyapunov")


def max_lyapunov(system, x0, t_span, parameters: Mapping | None = None,
                 **options) -> LyapunovResult:
    r"""The maximal Lyapunov exponent (:func:`lyapunov_spectrum` with ``k = 1``):
    :math:`\lambda_1 = \lim \frac1T \log\|\xi(T)\|/\|\xi(0)\|` for a generic tangent vector.

    >>> import geomech as gm
    >>> M = gm.Manifold("M", "x v"); x, v = M.coords
    >>> abs(max_lyapunov(M.vector_field([v, -x]), [1.0, 0.0], 50.0).maximal) < 1e-9
    True
    """
    return lyapunov_spectrum(system, x0, t_span, parameters, k=1, **options)
