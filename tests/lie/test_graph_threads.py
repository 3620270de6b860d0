"""The shared bracket graph under concurrent use, and cooperative time limits in threads.

Eight threads start together (a barrier) on a *fresh* chart, with the interpreter's thread
switch interval shortened so that they interleave inside the graph; every trial must give
each thread the same node keys, the same values and the same growth vector, with no
exception, and the graph must compute each bracket once.
"""

from __future__ import annotations

import sys
import threading

import pytest
import sympy as sp

from geomech.core.budget import BudgetExceeded, time_limit, work_limit
from geomech.core.manifold import Manifold
from geomech.lie.distribution import Distribution
from geomech.lie.graph import BracketGraph

#: files, pipes and worker processes are closed (tests/conftest.py)
pytestmark = pytest.mark.no_leaks

NTHREADS = 8


@pytest.fixture
def interleave():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _run_together(work, n=NTHREADS):
    """Run ``work(i)`` in ``n`` threads released together; results and exceptions."""
    barrier = threading.Barrier(n)
    out: list = [None] * n
    errors: list = []

    def target(i):
        try:
            barrier.wait()
            out[i] = work(i)
        except BaseException as exc:  # noqa: BLE001 - collected and reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    return out, errors


def _heisenberg_like(trial: int):
    """A fresh chart and a rank-2 distribution with growth vector (2, 3, 4) on R^4
    (Engel): X = d/dx + f d/dz + z d/dw, Y = d/dy, f = y or y + sin(y) (then
    [X,Y] = -(1 + cos y) d/dz and [X,[X,Y]] = (1 + cos y) d/dw)."""
    M = Manifold(f"T{trial}", "x y z w")
    x, y, z, w = M.coords
    f = y + sp.sin(y) if trial % 2 else y
    return M, [M.vector_field([1, 0, f, z]), M.vector_field([0, 1, 0, 0])]


#: units of work (budget checks) one thread may spend per trial: it spends 10 alone; a
#: thread that recomputed what another computed, or spun, would exceed it (machine speed
#: does not enter)
WORK_PER_THREAD = 100


def test_eight_threads_share_one_graph_and_agree(interleave):
    for trial in range(40):
        M, (X, Y) = _heisenberg_like(trial)

        def work(i, M=M, X=X, Y=Y):
            with work_limit(WORK_PER_THREAD, "one thread of the graph test"):
                G = BracketGraph.of(M)
                D = Distribution([X, Y])
                keys = tuple(D.keys)
                table = G.bracket(G.bracket_node(X, Y), X) if i % 2 else G.bracket(
                    X, G.bracket_node(X, Y))
                return id(G), keys, D.growth_vector(), tuple(table.components)

        out, errors = _run_together(work)
        assert not errors, errors
        graphs = {o[0] for o in out}
        assert len(graphs) == 1                                   # one graph per chart
        assert len({o[1] for o in out}) == 1                      # one name per field
        assert {o[2] for o in out} == {(2, 3, 4)}                 # Engel growth vector
        # [[X,Y],X] = -[X,[X,Y]]: the two halves of the threads agree up to the sign
        signs = {o[3] if i % 2 else tuple(-c for c in o[3]) for i, o in enumerate(out)}
        assert len(signs) == 1
        G = BracketGraph.of(M)
        # each bracket computed exactly once however the threads interleave: the words
        # [X,Y], [X,[X,Y]] of the flag, which stops at the dimension (4) before [Y,[X,Y]];
        # [[X,Y],X] is -[X,[X,Y]] (reused)
        assert (G.stats["computed"], G.stats["reused"]) == (2, 1)
        assert len(G.generators) == 2


def test_concurrent_add_registers_each_field_once(interleave):
    for trial in range(30):
        M = Manifold(f"A{trial}", "x y")
        x, y = M.coords
        fields = [M.vector_field([y ** k, x]) for k in range(6)]
        out, errors = _run_together(
            lambda i: [BracketGraph.of(M).add(F) for F in fields[i % 3:] + fields[:i % 3]])
        assert not errors, errors
        names = {tuple(sorted(o)) for o in out}
        assert len(names) == 1 and len(set(next(iter(names)))) == 6
        G = BracketGraph.of(M)
        assert G.stats["generators"] == 6
        for name in names.pop():
            # the name resolves to the field it was given for, whatever thread added it
            assert G.value(name) in fields


def test_time_limit_holds_in_a_worker_thread():
    """A cooperative budget stops the graph engine in a thread (no signals involved), and
    the graph stays usable afterwards."""
    M, (X, Y) = _heisenberg_like(1)

    def work(i):
        G = BracketGraph.of(M)
        with time_limit(0):
            try:
                G.bracket(X, G.bracket_node(X, Y))
            except BudgetExceeded:
                return "stopped"
        return "finished"

    out, errors = _run_together(work, 2)
    assert not errors and out == ["stopped", "stopped"]
    G = BracketGraph.of(M)
    assert G.stats["computed"] == 0
    y = M.coords[1]
    XY = G.bracket(X, Y)
    assert XY == M.vector_field([0, 0, -1 - sp.cos(y), 0])
    # the direct kernel agrees with the graph after the interrupted attempts
    assert XY == X.bracket(Y) and G.bracket(X, G.bracket_node(X, Y)) == X.bracket(X.bracket(Y))


def test_work_limits_count_checks_per_thread_and_nest():
    """A work limit counts the engine's checks of its own thread only; an inner limit
    never extends an outer one, and a time limit inside keeps counting the work."""
    from geomech.core.budget import check

    def spend(k):
        for _ in range(k):
            check()

    def work(i):
        with work_limit(5, f"thread {i}"):
            spend(5)                                   # exactly the limit: fine
            try:
                check()
            except BudgetExceeded as exc:
                return exc.steps, exc.label
        return None

    out, errors = _run_together(work, 4)
    assert not errors and out == [(5, f"thread {i}") for i in range(4)]
    with work_limit(3):
        with work_limit(100), time_limit(60):
            spend(3)
            with pytest.raises(BudgetExceeded, match="work limit of 3 steps"):
                check()
    spend(10)                                          # no limit outside
    with pytest.raises(ValueError, match="work limit"):
        with work_limit(-1):
            pass


def test_time_limit_stops_a_growth_vector_in_a_thread():
    M, (X, Y) = _heisenberg_like(3)

    def work(i):
        with time_limit(0):
            return Distribution([X, Y], graph=BracketGraph(M)).growth_vector()

    out, errors = _run_together(work, 2)
    assert len(errors) == 2 and all(isinstance(e, BudgetExceeded) for e in errors)


def test_no_signals_in_lie_and_budgets_stop_the_characteristics_solver():
    import pathlib

    import geomech.lie as lie
    from geomech.lie.characteristics import solve_first_order as _solve_first_order

    src = "".join(p.read_text() for p in pathlib.Path(lie.__file__).parent.glob("*.py"))
    assert "import signal" not in src and "SIGALRM" not in src
    t = sp.Dummy("t")
    y = sp.Function("y")
    out, errors = _run_together(lambda i: _time_limited_solve(
        _solve_first_order, sp.Eq(y(t).diff(t), -t / y(t)), y(t)), 2)
    assert not errors and out == ["stopped", "stopped"]


def _time_limited_solve(solver, eq, y):
    with time_limit(0):
        try:
            solver(eq, y)
        except BudgetExceeded:
            return "stopped"
    return "finished"


@pytest.mark.slow  # starts (and kills) dsolve worker processes: a few seconds
def test_characteristics_solver_has_a_hard_limit_without_signals():
    """dsolve runs in a worker process: a limit too short to finish gives no solution (and
    returns promptly) in a thread; a normal call solves, also after the worker was killed."""
    from geomech.lie.characteristics import solve_first_order as _solve_first_order

    t = sp.Dummy("t")
    y = sp.Function("y")
    eq = sp.Eq(y(t).diff(t), -t / y(t))                      # circles: y^2 + t^2 = C
    sols = _solve_first_order(eq, y(t))
    sols = sols if isinstance(sols, list) else [sols]
    for sol in sols:                                         # each branch solves the ODE
        f = sp.solve(sol, y(t))[0] if sol.lhs != y(t) else sol.rhs
        assert sp.simplify(f.diff(t) + t / f) == 0

    def work(i):                    # a hung worker fails _run_together's join
        return _solve_first_order(eq, y(t), seconds=0.0)

    out, errors = _run_together(work, 1)
    assert not errors and out == [None]
    assert _solve_first_order(eq, y(t)) is not None          # a new worker after the kill


def test_tangent_bundle_chart_is_created_once_under_threads(interleave):
    from geomech.lie.prolongation import tangent_bundle

    for trial in range(20):
        N = Manifold(f"TB{trial}", "x y")
        out, errors = _run_together(lambda i: tangent_bundle(N))
        assert not errors and len({id(TN) for TN in out}) == 1


@pytest.mark.slow  # two fresh interpreters: a few seconds
def test_characteristics_worker_does_not_depend_on_how_the_program_started():
    """A program read from stdin (no main file to re-import, which breaks multiprocessing's
    spawn/forkserver workers) gets the same integrals as the test process."""
    import pathlib
    import subprocess

    import geomech

    code = ("import geomech as gm\n"
            "from geomech.lie.distribution import Distribution\n"
            "P = gm.Manifold('P', 'u v w'); u, v, w = P.coords\n"
            "print(Distribution([P.vector_field([1, v, 1])]).first_integrals())\n")
    root = str(pathlib.Path(geomech.__file__).resolve().parents[1])
    out = subprocess.run([sys.executable, "-"], input=code, capture_output=True, text=True,
                         timeout=120, cwd=root)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[u - w, v*exp(-u)]"
