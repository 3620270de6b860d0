r"""Parallel evaluation of a bracket graph: a process pool or Dask.

The pending brackets of a :class:`~geomech.lie.graph.BracketGraph` are computed level by
level (a bracket after its operands) in worker processes, or as one ``dask.delayed`` graph;
every worker computes :math:`[X,Y]^i = X^j\partial_j Y^i - Y^j\partial_j X^i` exactly as
the serial path does (:meth:`~geomech.core.fields.VectorField.bracket`), so the results are
identical in every mode.  The functions here are the back ends of
:meth:`BracketGraph.evaluate <geomech.lie.graph.BracketGraph.evaluate>`.

>>> import sympy as sp
>>> x, y = sp.symbols("x y")
>>> _bracket_task([1, 0], [0, x], [x, y])
(0, 1)
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import Any

import sympy as sp

from geomech.core import budget
from geomech.core.fields import VectorField
from geomech.core.manifold import Manifold

__all__ = ["evaluate_in_processes", "evaluate_on_dask", "dependency_levels"]


def _bracket_task(X: Sequence[sp.Expr], Y: Sequence[sp.Expr],
                  coords: Sequence[sp.Symbol]) -> tuple[sp.Expr, ...]:
    """Worker function (module level so that it pickles): components of ``[X, Y]``.

    The fields are rebuilt on a throw-away chart with the same coordinate symbols and
    bracketed by :meth:`VectorField.bracket`, exactly as in the serial path.
    """
    W = Manifold("_worker", tuple(coords))
    return VectorField(W, X).bracket(VectorField(W, Y)).components


def _active_dask_client():
    """The running ``dask.distributed`` client, or ``None`` (no client, or not imported)."""
    dist = sys.modules.get("distributed")
    if dist is None:  # no Client can be running if distributed was never imported
        return None
    try:
        return dist.get_client()
    except ValueError:  # "No global client found"
        return None


def dependency_levels(nodes: dict, pending: list[str]) -> list[list[str]]:
    """The pending bracket nodes (in topological order) grouped by depth above the nodes
    with values: the brackets of one level depend only on earlier levels."""
    depth: dict[str, int] = {}
    for k in pending:  # topological order
        nd = nodes[k]
        depth[k] = 1 + max(depth.get(nd["left"], 0), depth.get(nd["right"], 0))
    levels: dict[int, list[str]] = {}
    for k, d in depth.items():
        levels.setdefault(d, []).append(k)
    return [levels[d] for d in sorted(levels)]


def evaluate_in_processes(graph, pending: list[str], max_workers: int | None) -> None:
    """Compute the pending nodes of ``graph`` level by level in a process pool (components
    are sent, not fields); memo hits within a level are stored without a job."""
    from concurrent.futures import ProcessPoolExecutor

    if not pending:
        return
    coords = graph.manifold.coords
    with ProcessPoolExecutor(max_workers=max_workers) as pool:
        for level in dependency_levels(graph._nodes, pending):
            budget.check()
            jobs: dict[tuple, tuple] = {}
            for k in level:
                mk, val = graph._lookup(k)
                if val is not None:
                    graph._store(k, mk, val, computed=False)
                elif mk not in jobs and (mk[1], mk[0]) not in jobs:
                    X, Y = graph._operands(k)
                    jobs[mk] = (k, pool.submit(_bracket_task, X.components, Y.components,
                                               coords))
                # else: computed by another job of this level, found by _peek below
            for mk, (k, fut) in jobs.items():
                graph._store(k, mk, VectorField(graph.manifold, fut.result()), computed=True)
            for k in level:
                graph._peek(k)


def evaluate_on_dask(graph, pending: list[str]) -> None:
    """Compute the pending nodes of ``graph`` as one ``dask.delayed`` graph, on the running
    ``dask.distributed`` client or else on dask's threads scheduler (with a warning)."""
    try:
        import dask
    except ImportError as exc:
        raise ImportError(
            "executor='dask' needs the optional dependency dask; install it with "
            "`pip install geomech[dask]` (or use executor='process')") from exc
    if not pending:
        return
    coords = graph.manifold.coords
    tasks: dict[str, Any] = {}
    for k in pending:  # topological order
        nd = graph._nodes[k]
        ops = [tasks[o] if o in tasks else graph._nodes[o]["value"].components
               for o in (nd["left"], nd["right"])]
        tasks[k] = dask.delayed(_bracket_task, pure=True)(ops[0], ops[1], coords)
    budget.check()
    client = _active_dask_client()
    if client is None:
        warnings.warn("no dask.distributed Client is running: the bracket graph is "
                      "evaluated on dask's local threads scheduler", RuntimeWarning,
                      stacklevel=3)
    results = dask.compute(tasks, scheduler="threads" if client is None else client)[0]
    budget.check()
    for k in pending:
        mk, val = graph._lookup(k)
        if val is not None:
            graph._store(k, mk, val, computed=False)
        else:
            graph._store(k, mk, VectorField(graph.manifold, results[k]), computed=True)
