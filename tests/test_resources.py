"""Every worker process, pipe and file the library opens is closed.

The tests here are marked ``no_leaks`` (``tests/conftest.py``): a ``ResourceWarning`` -- an
unclosed file or pipe, a subprocess still running when its object is collected -- is an
error, also when it is raised in a finaliser.  Warnings at interpreter exit (the ``atexit``
stop of the ``dsolve`` worker) are invisible to pytest, so one test runs a fresh interpreter
under ``-X dev -W error::ResourceWarning`` and reads its standard error.  The test modules
that start workers (``lie/test_distribution.py``, ``lie/test_graph_threads.py``,
``numeric/test_sweep.py``, ``test_cli.py``, ``test_report.py``) carry the same marker.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest
import sympy as sp

import geomech
from geomech.lie import characteristics
from geomech.lie.characteristics import solve_first_order

pytestmark = pytest.mark.no_leaks

ROOT = str(pathlib.Path(geomech.__file__).resolve().parents[1])


def _circle_ode():
    t = sp.Dummy("t")
    y = sp.Function("y")
    return sp.Eq(y(t).diff(t), -t / y(t)), y(t)


@pytest.mark.slow   # starts, kills and restarts the dsolve worker: a few seconds
def test_dsolve_worker_closes_its_pipes_when_killed_and_when_closed() -> None:
    eq, y = _circle_ode()
    worker = characteristics._DSOLVE
    assert solve_first_order(eq, y) is not None
    proc = worker._proc
    assert proc is not None and proc.poll() is None            # kept for the next call
    assert solve_first_order(eq, y, seconds=0.0) is None       # overrun: killed
    assert proc.returncode is not None and proc.stdin.closed and proc.stdout.closed
    assert worker._proc is None
    assert solve_first_order(eq, y) is not None                # a new worker
    proc = worker._proc
    worker.close()
    assert proc.returncode is not None and proc.stdin.closed and proc.stdout.closed
    assert worker._thread is None


@pytest.mark.slow   # a fresh interpreter and a dsolve worker: a few seconds
def test_no_resource_warning_at_interpreter_exit() -> None:
    """first_integrals() of a distribution starts the worker; at exit it is stopped and its
    pipes closed: no ``ResourceWarning: unclosed file`` on standard error."""
    code = ("import geomech as gm\n"
            "from geomech.lie.distribution import Distribution\n"
            "P = gm.Manifold('P', 'u v w'); u, v, w = P.coords\n"
            "print(Distribution([P.vector_field([1, v, 1])]).first_integrals())\n"
            "from geomech.lie import characteristics\n"
            "assert characteristics._DSOLVE._proc is not None\n")
    out = subprocess.run([sys.executable, "-X", "dev", "-W", "error::ResourceWarning", "-"],
                         input=code, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[u - w, v*exp(-u)]"
    assert "ResourceWarning" not in out.stderr and "Exception ignored" not in out.stderr, \
        out.stderr[-2000:]


def test_bracket_process_pool_is_closed() -> None:
    """The graph's process evaluation uses its pool as a context manager."""
    from geomech.core.manifold import Manifold
    from geomech.lie.graph import BracketGraph

    M = Manifold("R3_pool", "x y z")
    x, y, z = M.coords
    G = BracketGraph.of(M)
    a, b = G.add(M.vector_field([1, 0, -y / 2])), G.add(M.vector_field([0, 1, x / 2]))
    k = G.bracket_node(a, b)
    vals = G.evaluate([k], executor="process", max_workers=1)
    assert vals[k] == M.vector_field([0, 0, 1])


def test_parallel_map_closes_what_it_opened_when_a_run_fails() -> None:
    """A failing run in an executor it did not open: the caller's executor stays usable, the
    progress bar is closed; with "processes" the pool it started is shut down."""
    import concurrent.futures as cf

    from geomech.numeric.sweep import parallel_map

    with cf.ThreadPoolExecutor(max_workers=2) as ex:
        with pytest.raises(ZeroDivisionError):
            parallel_map(_divide, 1, [1, 0, 2], client=ex, chunksize=1)
        assert parallel_map(_divide, 6, [1, 2, 3], client=ex) == [6, 3, 2]


def _divide(a, b):
    return a // b


def test_cli_closes_the_report_file(tmp_path) -> None:
    from geomech.cli import main

    out = tmp_path / "sleigh.md"
    assert main(["report", "chaplygin_sleigh", "--output", str(out), "--no-simulation",
                 "--no-analyses", "--quiet", "--format", "markdown"]) == 0
    assert out.read_text(encoding="utf-8").startswith("# geomech report: chaplygin")
