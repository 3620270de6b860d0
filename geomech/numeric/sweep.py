r"""Ensembles and parameter sweeps: many runs of :func:`~geomech.numeric.simulate`.

:func:`sweep` integrates one trajectory per pair (initial condition, parameter set) --
serially, on local processes, or on a ``dask.distributed`` cluster -- and returns a
:class:`SweepResult`: ``res[k]`` is the :class:`~geomech.numeric.SimulationResult` of run
``k``, ``res.final_states`` etc. are arrays over the runs, ``res.table()`` is a tidy table
(one row per run).

Every mode runs the same code on the same data, so the numbers are identical in every mode.
The system is prepared once (its vector field and energy are computed in the calling
process), pickled once and unpickled once per worker process; compiled fields are memoised
on their symbolic source (:mod:`geomech.numeric.compile`), so each worker compiles the
right-hand side once, whatever the number of runs it performs.

>>> import geomech as gm
>>> M = gm.Manifold("M", "x v", parameters="k"); x, v = M.coords
>>> res = gm.sweep(M.vector_field([v, -M.parameters[0]*x]), [{"x": 1, "v": 0}, [0, 1]],
...                t_span=(0, 3.0), parameters=[{"k": 1}, {"k": 4}])
>>> len(res), res.index(3)
(4, (1, 1))
>>> round(float(res[3]["x"][-1]), 6) == round(float(__import__("math").sin(6.0) / 2), 6)
True
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import hashlib
import math
import os
import pickle
import sys
from collections.abc import Mapping, Sequence

import numpy as np
import sympy as sp

from geomech.numeric.result import SimulationResult

from .simulate import simulate

__all__ = ["sweep", "SweepResult", "parallel_map"]

_SIMULATE_OPTIONS = {"integrals", "method", "rtol", "atol", "t_eval", "constraints", "energy",
                     "max_step", "form", "implicit", "backend", "step", "timeout"}


class _Prepared:
    """A system whose field and energy are computed once (``simulate`` asks for them on
    every run); every other attribute is the system's."""

    def __init__(self, system):
        self._system = system
        self._field = system.vector_field()
        en = getattr(system, "energy", None)
        self._energy = en() if callable(en) else en

    def vector_field(self):
        return self._field

    def energy(self):
        return self._energy

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._system, name)


def _prepare(system, options: Mapping):
    """What the runs integrate: the system itself, or its field prepared once."""
    if options.get("form") is not None or options.get("implicit"):
        return system
    vf = getattr(system, "vector_field", None)
    if not callable(vf) or getattr(system, "manifold", None) is None:
        return system                              # a VectorField or a simple object
    try:
        return _Prepared(system)
    except (TypeError, NotImplementedError):
        return system


# -- work performed by a worker (also serially) ------------------------------------------
_PAYLOADS: dict[str, object] = {}


def _payload(blob: bytes):
    """The shared data of a parallel map, unpickled once per worker process."""
    key = hashlib.sha1(blob).hexdigest()
    hit = _PAYLOADS.get(key)
    if hit is None:
        hit = pickle.loads(blob)
        _PAYLOADS.clear()                          # one map at a time per worker
        _PAYLOADS[key] = hit
    return hit


def _run_chunk(fn, blob: bytes, chunk: list) -> list:
    """``[(k, fn(shared, item))]`` for the ``(k, item)`` of one chunk."""
    shared = _payload(blob)
    return [(k, fn(shared, item)) for k, item in chunk]


def _run_one(target, job: tuple, t_span, options: Mapping) -> SimulationResult:
    k, i, j, x0, params = job
    try:
        return simulate(target, x0, t_span, parameters=params, **options)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"run {k} (initial condition {i}, parameter set {j}): {exc}") from None


def _sweep_run(shared: tuple, job: tuple) -> tuple:
    """One run of a sweep as a light record (the field stays with the caller)."""
    target, t_span, options = shared
    r = _run_one(target, job, t_span, options)
    ship_field = _field_of_target(target) is None
    return (r.t, r.states, r.coords, r.series, r.drift, r.solution, r.parameters,
            r.field if ship_field else None)


# -- the result ----------------------------------------------------------------------------
class SweepResult(Sequence):
    r"""The runs of a :func:`sweep`, in input order.

    ``res[k]`` is the :class:`~geomech.numeric.SimulationResult` of run ``k``; run ``k`` is
    initial condition ``i`` with parameter set ``j``, ``(i, j) = res.index(k)``
    (``k = i * n_parameter_sets + j``).

    Attributes
    ----------
    coords : tuple of Symbol
        Phase-space coordinates (columns of the state arrays).
    initial_states, final_states : ndarray, shape (K, n)
        The state at the first and at the last time of every run.
    drifts : dict
        ``{name: ndarray (K,)}``: the drift of every monitored quantity (energy, integrals,
        constraints) in every run (``nan`` where a run does not monitor it).
    parameters : list of dict
        ``{parameter name: value}`` of every run.
    success : ndarray of bool, shape (K,)
    """

    def __init__(self, runs: list, index: list, n_parameter_sets: int):
        self._runs = list(runs)
        self._index = list(index)
        self.n_parameter_sets = n_parameter_sets
        self.coords = self._runs[0].coords if self._runs else ()
        self.initial_states = np.array([r.states[0] for r in self._runs])
        self.final_states = np.array([r.states[-1] for r in self._runs])
        names: list[str] = []
        for r in self._runs:
            names += [n for n in r.drift if n not in names]
        self.drifts = {n: np.array([r.drift.get(n, np.nan) for r in self._runs])
                       for n in names}
        self.parameters = [{str(s): float(v) for s, v in r.parameters.items()}
                           for r in self._runs]
        self.success = np.array([r.success for r in self._runs], dtype=bool)

    def __len__(self) -> int:
        return len(self._runs)

    def __getitem__(self, k):
        return self._runs[k]

    def index(self, k: int) -> tuple[int, int]:  # type: ignore[override]
        """``(initial condition, parameter set)`` of run ``k``."""
        return self._index[k]

    def table(self) -> list[dict]:
        """One row per run: ``run``, ``initial_condition``, ``parameter_set``, the
        parameters, the initial state (``x_0``), the final time ``t_final`` and state
        (``x_final``), the drifts (``drift_energy`` ...) and ``success``."""
        rows = []
        for k, r in enumerate(self._runs):
            i, j = self._index[k]
            row: dict = {"run": k, "initial_condition": i, "parameter_set": j}
            row.update(self.parameters[k])
            row.update({f"{c}_0": float(v) for c, v in zip(self.coords, r.states[0])})
            row["t_final"] = float(r.t[-1])
            row.update({f"{c}_final": float(v) for c, v in zip(self.coords, r.states[-1])})
            row.update({f"drift_{n}": float(v[k]) for n, v in self.drifts.items()})
            row["success"] = bool(r.success)
            rows.append(row)
        return rows

    def dataframe(self):
        """:meth:`table` as a :class:`pandas.DataFrame` (needs pandas)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("SweepResult.dataframe() needs pandas: pip install pandas; "
                              "SweepResult.table() gives the same rows as dicts") from None
        return pd.DataFrame(self.table())

    def __repr__(self) -> str:
        worst = ", ".join(f"{n}: {np.nanmax(v):.1e}" for n, v in self.drifts.items()
                          if len(v))
        return (f"SweepResult({len(self)} runs, {int(self.success.sum())} successful, "
                f"worst drift {{{worst}}})")


# -- the driver ------------------------------------------------------------------------------
def _as_list(value, what: str) -> list:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        try:
            value = list(value)
        except TypeError:
            raise TypeError(f"{what} must be a list, got {type(value).__name__}") from None
    if len(value) == 0:
        raise ValueError(f"{what} is empty: give at least one")
    return list(value)


def _jobs(initial_conditions, parameters) -> tuple[list, int]:
    if isinstance(initial_conditions, Mapping) or (
            isinstance(initial_conditions, Sequence) and initial_conditions
            and all(isinstance(v, (int, float, sp.Number)) for v in initial_conditions)):
        raise TypeError("initial_conditions must be a list of initial states "
                        "([x0, x1, ...]); for one run use gm.simulate or wrap it: [x0]")
    ics = _as_list(initial_conditions, "initial_conditions")
    if parameters is None or isinstance(parameters, Mapping):
        psets = [parameters]
    else:
        psets = _as_list(parameters, "parameters")
        bad = [k for k, p in enumerate(psets) if not isinstance(p, Mapping)]
        if bad:
            raise TypeError(f"parameters must be a dict or a list of dicts; entry {bad[0]} is "
                            f"a {type(psets[bad[0]]).__name__}")
    jobs = [(i * len(psets) + j, i, j, x0, p)
            for i, x0 in enumerate(ics) for j, p in enumerate(psets)]
    return jobs, len(psets)


def _chunks(jobs: list, workers: int, chunksize: int | None) -> list[list]:
    size = chunksize or max(1, math.ceil(len(jobs) / (4 * max(workers, 1))))
    return [jobs[a:a + size] for a in range(0, len(jobs), size)]


def _progress(total: int, show: bool | None, desc: str):
    if show is None:
        show = total >= 50 and sys.stderr.isatty()
    if not show:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="run")


def _field_of_target(target):
    if isinstance(target, _Prepared):
        return target._field
    from geomech.core.fields import VectorField

    return target if isinstance(target, VectorField) else None


def _is_dask_client(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "distributed" and hasattr(obj, "submit")


def _is_dask_cluster(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "distributed" and hasattr(obj, "scheduler_address")


def _executor(client, workers: int | None):
    """``(kind, executor or dask client, things to close afterwards)``."""
    if client is None or client == "serial":
        return "serial", None, []
    if isinstance(client, cf.Executor):
        return "executor", client, []
    if _is_dask_client(client):
        return "dask", client, []
    if isinstance(client, str) and client == "processes":
        import multiprocessing as mp

        ex = cf.ProcessPoolExecutor(max_workers=workers or os.cpu_count(),
                                    mp_context=mp.get_context("spawn"))
        # on failure the pending runs are cancelled, not awaited
        return "executor", ex, [functools.partial(ex.shutdown, wait=True, cancel_futures=True)]
    if isinstance(client, str) or _is_dask_cluster(client):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ImportError("a dask cluster needs dask.distributed: pip install "
                              "'geomech[dask]'") from None
        closers = []
        if client in ("dask", "local"):
            cluster = LocalCluster(n_workers=workers or 2, threads_per_worker=1,
                                   processes=True, dashboard_address=None)
            closers.append(cluster.close)
            client = cluster
        elif isinstance(client, str) and "://" not in client and ":" not in client:
            raise ValueError(f"client must be None, 'processes', 'dask' (a LocalCluster), a "
                             f"scheduler address 'tcp://host:port', an Executor or a dask "
                             f"Client; got {client!r}")
        try:
            c = Client(client)
        except BaseException:
            for close in closers:       # the cluster started for this sweep
                close()
            raise
        closers.insert(0, c.close)
        return "dask", c, closers
    raise TypeError(f"client must be None, 'processes', 'dask', a scheduler address, a "
                    f"concurrent.futures Executor, a dask Client or LocalCluster; got "
                    f"{type(client).__name__}")


def _gather(kind: str, ex, fn, blob: bytes, chunks: list[list], bar) -> list:
    """``(k, result)`` of all chunks, in any order."""
    records: list = []
    if kind == "executor":
        futures = [ex.submit(_run_chunk, fn, blob, ch) for ch in chunks]
        done = cf.as_completed(futures)
    else:
        from distributed import as_completed

        remote = ex.scatter(blob, broadcast=True)
        futures = [ex.submit(_run_chunk, fn, remote, ch, pure=False) for ch in chunks]
        done = as_completed(futures)
    for fut in done:
        part = fut.result()
        records += part
        if bar is not None:
            bar.update(len(part))
    return records


def parallel_map(fn, shared, items: Sequence, client=None, workers: int | None = None,
                 chunksize: int | None = None, progress: bool | None = None,
                 desc: str = "runs") -> list:
    """``[fn(shared, item) for item in items]``, serially, on local processes or on a dask
    cluster (``client`` as in :func:`sweep`), in input order.

    ``fn`` is a module-level function (pickled by reference); ``shared`` is pickled once,
    sent once to every worker (broadcast on dask) and unpickled once per worker process, so
    what it compiles (a :class:`~geomech.numeric.compile.CompiledField`) is compiled once per
    worker.  Every mode calls the same ``fn`` on the same data: the results do not depend on
    the mode.  The engine of :func:`sweep` and of the ensembles of
    :mod:`geomech.numeric.dynamics`.

    >>> parallel_map(pow, 2, [1, 2, 10])
    [2, 4, 1024]
    """
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool)
                                or workers < 1):
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    items = list(items)
    kind, ex, closers = _executor(client, workers)
    with contextlib.ExitStack() as stack:
        # everything this call opened is closed, also when a run fails: the progress bar,
        # then the client, then the cluster or pool (an ExitStack runs its callbacks LIFO)
        for close in reversed(closers):
            stack.callback(close)
        bar = _progress(len(items), progress, desc)
        if bar is not None:
            stack.callback(bar.close)
        if kind == "serial":
            out = []
            for item in items:
                out.append(fn(shared, item))
                if bar is not None:
                    bar.update(1)
            return out
        blob = pickle.dumps(shared, protocol=pickle.HIGHEST_PROTOCOL)
        n = workers or (len(ex.scheduler_info()["workers"]) if kind == "dask"
                        else getattr(ex, "_max_workers", None) or os.cpu_count() or 1)
        chunks = _chunks(list(enumerate(items)), n, chunksize)
        out = [None] * len(items)
        for k, r in _gather(kind, ex, fn, blob, chunks, bar):
            out[k] = r
        return out


def sweep(system, initial_conditions, t_span, parameters=None, client=None,
          workers: int | None = None, chunksize: int | None = None,
          progress: bool | None = None, **options) -> SweepResult:
    r"""Integrate one trajectory per (initial condition, parameter set), in input order.

    Run ``k = i * P + j`` integrates ``initial_conditions[i]`` with parameter set ``j`` (of
    ``P``) by :func:`~geomech.numeric.simulate` -- the same code in every mode, so the
    numbers do not depend on where the runs are performed.

    Parameters
    ----------
    system : NonholonomicSystem, object with ``.vector_field()``, or VectorField
        As for :func:`~geomech.numeric.simulate`.
    initial_conditions : list
        Initial states (each a dict ``{coordinate: value}`` or a sequence in the order of
        the phase-space coordinates).
    t_span : (t0, t1) or float
        Time interval of every run.
    parameters : dict, list of dict, or None
        One parameter set for all runs, or one run per set and initial condition.
    client : None, "processes", "dask", str, Executor, dask Client or LocalCluster
        Where to run: ``None`` serially in this process; ``"processes"`` on a local
        process pool (``workers`` processes, spawned); a
        :class:`concurrent.futures.Executor`; ``"dask"`` on a ``LocalCluster`` started for
        the sweep (``workers`` processes, default 2) and closed afterwards; a scheduler
        address ``"tcp://host:port"``; an active ``distributed.Client``; or a
        ``LocalCluster``.  The system is pickled once (broadcast to the dask workers) and
        compiled once per worker process.
    workers : int, optional
        Number of processes for ``"processes"`` and ``"dask"``.
    chunksize : int, optional
        Runs per task (default: about four tasks per worker).
    progress : bool, optional
        A tqdm progress bar (default: for 50 runs or more on a terminal).
    **options
        Passed to :func:`~geomech.numeric.simulate` (``method``, ``rtol``, ``atol``,
        ``t_eval``, ``integrals``, ``energy``, ``constraints``, ``max_step``, ``form``,
        ``implicit``, ``backend``; ``method="dlda"`` with ``step``; ``timeout`` per run).

    Returns
    -------
    SweepResult

    Examples
    --------
    >>> import geomech as gm
    >>> S = gm.examples.chaplygin_sleigh()
    >>> ics = [{"x": 0, "y": 0, "phi": 0, "xdot": 1.0, "phidot": w} for w in (0.2, 0.5)]
    >>> res = gm.sweep(S, ics, (0, 2.0), parameters={"m": 1, "I": 1, "a": 0.5})
    >>> len(res), res.final_states.shape, bool(res.drifts["energy"].max() < 1e-10)
    (2, (2, 5), True)
    >>> sorted(res.table()[1])[:4]
    ['I', 'a', 'drift_constraint 1', 'drift_energy']
    """
    bad = set(options) - _SIMULATE_OPTIONS
    if bad:
        raise TypeError(f"unknown option{'s' if len(bad) > 1 else ''} of sweep: "
                        f"{', '.join(sorted(bad))}")
    jobs, n_sets = _jobs(initial_conditions, parameters)
    target = _prepare(system, options)
    records = parallel_map(_sweep_run, (target, t_span, options), jobs, client=client,
                           workers=workers, chunksize=chunksize, progress=progress,
                           desc="sweep")
    field = _field_of_target(target)
    owner = None if field is system else getattr(system, "system", system)   # equations: theirs
    runs = [SimulationResult(t, states, coords, series, drift, solution, params,
                             field if fld is None else fld, system=owner)
            for t, states, coords, series, drift, solution, params, fld in records]
    return SweepResult(runs, [(i, j) for _, i, j, _, _ in jobs], n_sets)
