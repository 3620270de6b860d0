r"""Dynamics tools: Poincaré sections, Lyapunov exponents, phase portraits, and their figures.

* :func:`poincare_section` -- the crossings of trajectories with a hypersurface
  :math:`\Sigma = \{s(x) = 0\}` of the phase space, in a chosen direction (located by the
  solver's event detection on its dense output, so every point lies on :math:`\Sigma` to
  rounding level);
* :func:`lyapunov_spectrum`, :func:`max_lyapunov` -- Lyapunov characteristic exponents by
  the QR method of Benettin, Galgani, Giorgilli & Strelcyn (Meccanica 15, 1980) and Shimada &
  Nagashima (Prog. Theor. Phys. 61, 1979): the variational equation
  :math:`\dot\Xi = J(x)\,\Xi` (with the compiled symbolic Jacobian
  :math:`J = \partial X/\partial x`) is integrated along the trajectory and re-orthonormalised
  every ``interval``; :math:`\lambda_i = \frac1T\sum\log R_{ii}`;
* :func:`phase_portrait` -- trajectories of a (reduced) system in a coordinate plane, with
  the direction field of a planar field;
* every result has ``plot()`` returning a matplotlib :class:`~matplotlib.figure.Figure`.

>>> import geomech as gm
>>> M = gm.Manifold("M", "x v"); x, v = M.coords
>>> sec = poincare_section(M.vector_field([v, -x]), [{"x": 1, "v": 0}], "x", (0, 20))
>>> sec.points[0].shape, bool(sec.residual < 1e-12)     # x = cos t increasing through 0
((3, 2), True)
>>> bool(abs(sec.points[0][:, 1] - 1).max() < 1e-9)      # there v = 1
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import sympy as sp

from geomech.core.fields import VectorField

from .compile import CompiledField, CompiledFunction, compile_vector_field, resolve_parameters
from .result import coordinate_index
from .sweep import parallel_map

__all__ = ["poincare_section", "PoincareSection", "lyapunov_spectrum", "max_lyapunov",
           "lyapunov_ensemble", "LyapunovResult", "phase_portrait"]


# -- common preparation ----------------------------------------------------------------------
def _field(system) -> VectorField:
    if isinstance(system, VectorField):
        return system
    vf = getattr(system, "vector_field", None)
    if not callable(vf):
        raise TypeError(f"expected a NonholonomicSystem, an object with .vector_field() or a "
                        f"VectorField, got {type(system).__name__}")
    field = vf()
    if not isinstance(field, VectorField):
        raise TypeError(f"{type(system).__name__}.vector_field() did not return a VectorField")
    return field


def _compiled(system, parameters: Mapping | None,
              backend: str = "numpy") -> tuple[VectorField, CompiledField]:
    field = _field(system)
    known = list(field.manifold.parameters)
    N = getattr(system, "manifold", None)
    if N is not None and N is not field.manifold:
        known += list(getattr(N, "parameters", ()))
    params = resolve_parameters(parameters, known=known)
    return field, compile_vector_field(field, params, backend=backend)


def _state(x0, coords: tuple) -> np.ndarray:
    if isinstance(x0, Mapping):
        by_name = {(k.name if isinstance(k, sp.Symbol) else k): v for k, v in x0.items()}
        unknown = sorted(set(map(str, by_name)) - {c.name for c in coords})
        missing = [c.name for c in coords if c.name not in by_name]
        if unknown or missing:
            raise ValueError(f"the initial state must give exactly the phase-space coordinates "
                             f"{', '.join(c.name for c in coords)}"
                             + (f"; unknown: {', '.join(unknown)}" if unknown else "")
                             + (f"; missing: {', '.join(missing)}" if missing else ""))
        seq = [by_name[c.name] for c in coords]
    elif isinstance(x0, (str, bytes)):
        raise TypeError("an initial state must be a dict {coordinate: value} or a sequence")
    else:
        seq = list(x0)
        if len(seq) != len(coords):
            raise ValueError(f"an initial state needs {len(coords)} values for "
                             f"{', '.join(map(str, coords))}, got {len(seq)}")
    try:
        y = np.array([float(v) for v in seq])
    except (TypeError, ValueError):
        raise TypeError(f"initial values must be real numbers, got {seq!r}") from None
    if not np.all(np.isfinite(y)):
        raise ValueError(f"initial values must be finite, got {seq!r}")
    return y


def _span(t_span) -> tuple[float, float]:
    if isinstance(t_span, (int, float)) and not isinstance(t_span, bool):
        t_span = (0.0, float(t_span))
    try:
        t0, t1 = float(t_span[0]), float(t_span[1])
    except (TypeError, ValueError, IndexError):
        raise TypeError(f"t_span must be (t0, t1) or a number, got {t_span!r}") from None
    if not (math.isfinite(t0) and math.isfinite(t1)) or t1 <= t0:
        raise ValueError(f"t_span must be a finite interval with t0 < t1, got {t_span!r}")
    return t0, t1


def _figure(nrows: int = 1, ncols: int = 1, size=(6.4, 4.8)):
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plots need matplotlib: pip install matplotlib") from None
    fig = Figure(figsize=size)
    return fig, fig.subplots(nrows, ncols, squeeze=False)


# -- Poincaré sections -------------------------------------------------------------------------
class PoincareSection:
    r"""Crossings of trajectories with :math:`\Sigma = \{s(x) = 0\}`.

    Attributes
    ----------
    coords : tuple of Symbol
        Phase-space coordinates (columns of the points).
    section : sympy expression
        :math:`s(x)`, parameters substituted.
    direction : int
        ``+1``: crossings with :math:`s` increasing; ``-1``: decreasing; ``0``: both.
    points, times : list of ndarray
        Per run: the crossing states, shape ``(m, n)``, and their times, shape ``(m,)``.
    residual : float
        :math:`\max |s|` over all points (rounding level: points lie on the section).
    """

    def __init__(self, coords, section, direction, points, times, residual):
        self.coords = tuple(coords)
        self.section = section
        self.direction = direction
        self.points = points
        self.times = times
        self.residual = residual

    def __len__(self) -> int:
        return sum(len(p) for p in self.points)

    def project(self, a, b) -> tuple[np.ndarray, np.ndarray]:
        """All points in the plane of the coordinates ``a`` and ``b`` (names or symbols)."""
        i, j = coordinate_index(self.coords, a), coordinate_index(self.coords, b)
        pts = [p for p in self.points if len(p)]
        if not pts:
            return np.empty(0), np.empty(0)
        allp = np.vstack(pts)
        return allp[:, i], allp[:, j]

    def plot(self, a, b, markersize: float = 1.5):
        """Figure of the section in the ``(a, b)`` plane, one colour per run."""
        fig, axes = _figure()
        ax = axes[0, 0]
        i, j = coordinate_index(self.coords, a), coordinate_index(self.coords, b)
        for k, p in enumerate(self.points):
            if len(p):
                ax.plot(p[:, i], p[:, j], ".", markersize=markersize, label=f"run {k}")
        ax.set_xlabel(str(self.coords[i]))
        ax.set_ylabel(str(self.coords[j]))
        ax.set_title(f"Poincaré section {sp.sstr(self.section)} = 0")
        return fig

    def __repr__(self) -> str:
        return (f"PoincareSection({sp.sstr(self.section)} = 0, {len(self.points)} runs, "
                f"{len(self)} points, residual {self.residual:.1e})")


def _section_expr(section, field: VectorField) -> sp.Expr:
    if isinstance(section, str):
        section = field.manifold.parse(section)
    if not isinstance(section, sp.Expr):
        raise TypeError(f"section must be an expression on the phase space (or its text), "
                        f"got {type(section).__name__}")
    return section


def poincare_section(system, initial_conditions, section, t_span,
                     parameters: Mapping | None = None, direction: int = 1,
                     method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-12,
                     client=None, workers: int | None = None,
                     progress: bool | None = None, backend: str = "numpy") -> PoincareSection:
    r"""Points where trajectories cross :math:`\Sigma = \{s(x) = 0\}` in one direction.

    Each run integrates :math:`\dot x = X(x)` (compiled right-hand side) over ``t_span``;
    the crossings are roots of :math:`s` along the solver's dense output (scipy event
    location), so :math:`|s| = O(10^{-15})` at every point (``res.residual``).

    Parameters
    ----------
    system : NonholonomicSystem, object with ``.vector_field()``, or VectorField
    initial_conditions : list of dict or sequence
        One run per initial state (any number of runs).
    section : expression or str
        :math:`s(x)` on the phase space (text goes through the safe parser).
    t_span : (t0, t1) or float
    parameters : dict, optional
    direction : {1, -1, 0}
        Keep crossings with :math:`s` increasing (``1``), decreasing (``-1``) or both.
    client, workers, progress
        Where the runs are performed, as in :func:`~geomech.numeric.sweep.sweep`: ``None``
        (serially), ``"processes"``, ``"dask"``, a scheduler address, a dask ``Client`` or
        ``LocalCluster``, a ``concurrent.futures.Executor``; the points are the same in
        every mode.
    backend : {"numpy", "numba"}
        Compiler of the right-hand side (:func:`~geomech.numeric.compile.compile_vector_field`).

    Returns
    -------
    PoincareSection
    """
    if direction not in (-1, 0, 1) or isinstance(direction, bool):
        raise ValueError(f"direction must be 1 (s increasing), -1 (decreasing) or 0 (both), "
                         f"got {direction!r}")
    field, f = _compiled(system, parameters, backend)
    s_expr = _section_expr(section, field)
    s = CompiledFunction([s_expr], f.coords, dict(f.parameters), what="the section")
    states = _states(initial_conditions, f.coords)
    shared = (f, s, _span(t_span), direction, method, rtol, atol)
    out = parallel_map(_section_run, shared, states, client=client, workers=workers,
                       progress=progress, desc="Poincaré section")
    points, times = [p for p, _ in out], [t for _, t in out]
    allp = [p for p in points if len(p)]
    residual = float(np.max(np.abs(s.batch(np.vstack(allp))))) if allp else 0.0
    return PoincareSection(f.coords, s.exprs[0], direction, points, times, residual)


def _states(initial_conditions, coords) -> list[np.ndarray]:
    """The initial states of several runs (``[x0, x1, ...]``), checked."""
    if isinstance(initial_conditions, (Mapping, str, bytes)) or not hasattr(
            initial_conditions, "__iter__"):
        raise TypeError("initial_conditions must be a list of initial states: [x0, ...]")
    ics = list(initial_conditions)
    if any(isinstance(x0, (int, float, np.number)) for x0 in ics):
        raise TypeError("initial_conditions must be a list of initial states ([x0, x1, ...]), "
                        "not one state: for one run wrap it, [x0]")
    if not ics:
        raise ValueError("initial_conditions is empty: give at least one initial state")
    return [_state(x0, coords) for x0 in ics]


def _section_run(shared: tuple, y0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Crossing states and times of one run (a worker's task)."""
    from scipy.integrate import solve_ivp

    f, s, (t0, t1), direction, method, rtol, atol = shared

    def event(t, y):
        return s(y)[0]

    event.direction = direction
    sol = solve_ivp(f, (t0, t1), y0, method=method, rtol=rtol, atol=atol, events=event)
    return np.asarray(sol.y_events[0]).reshape(-1, len(f.coords)), np.asarray(sol.t_events[0])


# -- Lyapunov exponents ------------------------------------------------------------------------
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
        fig, axes = _figure()
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
    field, f = _compiled(system, parameters, backend)
    options = _lyapunov_options(len(f.coords), k, interval, transient)
    shared = (f, _span(t_span), *options, method, rtol, atol, seed)
    return _lyapunov_run(shared, _state(x0, f.coords))


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
    field, f = _compiled(system, parameters, backend)
    options = _lyapunov_options(len(f.coords), k, interval, transient)
    shared = (f, _span(t_span), *options, method, rtol, atol, seed)
    return parallel_map(_lyapunov_run, shared, _states(initial_conditions, f.coords),
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


# -- phase portraits ---------------------------------------------------------------------------
def phase_portrait(system, initial_conditions, t_span, axes=None,
                   parameters: Mapping | None = None, direction_field: bool = True,
                   grid: int = 25, points: int = 600, rtol: float = 1e-10,
                   atol: float = 1e-12):
    r"""Figure of trajectories in a coordinate plane of the phase space.

    One curve per initial condition, in the plane of ``axes = (a, b)`` (default the first two
    coordinates).  For a planar field -- a reduced system, e.g. ``gm.reduce(...).vector_field``
    or the Chaplygin sleigh in its body velocities -- the direction field is drawn under the
    curves (``streamplot`` of the field evaluated on a ``grid x grid`` mesh in one batch).

    Returns
    -------
    matplotlib.figure.Figure
        ``fig.axes[0].lines[k]`` is the curve of run ``k`` (``points`` samples).

    Examples
    --------
    >>> import geomech as gm
    >>> M = gm.Manifold("M", "x v"); x, v = M.coords
    >>> fig = phase_portrait(M.vector_field([v, -x]), [[1, 0], [2, 0]], 7.0)
    >>> xs, vs = fig.axes[0].lines[1].get_data()
    >>> bool(np.allclose(xs**2 + vs**2, 4.0, atol=1e-8))
    True
    """
    from scipy.integrate import solve_ivp

    field, f = _compiled(system, parameters)
    coords = f.coords
    if axes is None:
        if len(coords) < 2:
            raise ValueError("a phase portrait needs a phase space of dimension 2 or more")
        axes = coords[:2]
    if len(axes) != 2:
        raise ValueError(f"axes must name two coordinates, got {axes!r}")
    i, j = coordinate_index(coords, axes[0]), coordinate_index(coords, axes[1])
    states = _states(initial_conditions, coords)
    t0, t1 = _span(t_span)
    fig, axs = _figure()
    ax = axs[0, 0]
    t_eval = np.linspace(t0, t1, points)
    curves = []
    for y0 in states:
        sol = solve_ivp(f, (t0, t1), y0, method="DOP853", rtol=rtol, atol=atol, t_eval=t_eval)
        ax.plot(sol.y[i], sol.y[j], linewidth=1.2)
        curves.append(sol.y)
    if direction_field and len(coords) == 2 and curves:
        _direction_field(ax, f, curves, (i, j), grid)
    ax.set_xlabel(str(coords[i]))
    ax.set_ylabel(str(coords[j]))
    return fig


def _direction_field(ax, f: CompiledField, curves, ij, grid: int) -> None:
    i, j = ij
    allc = np.hstack(curves)
    lo, hi = allc.min(axis=1), allc.max(axis=1)
    pad = 0.1 * np.maximum(hi - lo, 1e-3)
    xs = np.linspace(lo[i] - pad[i], hi[i] + pad[i], grid)
    ys = np.linspace(lo[j] - pad[j], hi[j] + pad[j], grid)
    X, Y = np.meshgrid(xs, ys)
    states = np.zeros((X.size, 2))
    states[:, i], states[:, j] = X.ravel(), Y.ravel()
    V = f.batch(states)
    U, W = V[:, i].reshape(X.shape), V[:, j].reshape(X.shape)
    if np.all(np.isfinite(U)) and np.all(np.isfinite(W)):
        ax.streamplot(X, Y, U, W, color="0.75", density=0.8, linewidth=0.6, zorder=0)
