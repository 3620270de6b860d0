"""BracketGraph: memoisation, antisymmetry reuse, provenance, Hall/Lyndon words, executors."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomech.core.manifold import Manifold
from geomech.core.zero import default_policy
from geomech.lie.graph import BracketGraph
from geomech.lie.words import hall_words, lyndon_words, right_normed_words

from .conftest import ball_frames, chart, fields, rolling_disk_frame, sleigh_frame


def _witt(m: int, k: int) -> int:
    """Dimension of the degree-k part of the free Lie algebra on m generators."""
    return sum(sp.mobius(d) * m ** (k // d) for d in sp.divisors(k)) // k


def _length(w) -> int:
    return 1 if isinstance(w, int) else _length(w[0]) + _length(w[1])


def _is_zero_field(X) -> bool:
    return all(default_policy().is_zero(c) for c in X.components)


# -- spec brackets ----------------------------------------------------------------------------
def test_sleigh_bracket_is_minus_a_and_antisymmetry_is_reused():
    N, tau1, tau2, a_field = sleigh_frame()
    G = BracketGraph(N)
    G.add(tau1, "tau1")
    G.add(tau2, "tau2")
    assert G.bracket("tau1", "tau2") == -a_field          # B2 (3.15)
    assert G.bracket_node("tau1", "tau2") == "[tau1,tau2]"
    assert G.bracket("tau2", "tau1") == a_field
    assert G.stats["computed"] == 1 and G.stats["reused"] == 1
    # convention [X,Y]^i = X^j d_j Y^i - Y^j d_j X^i, written out with sympy.diff
    X, Y = tau1.components, tau2.components
    direct = [sum(X[j] * sp.diff(Y[i], q) - Y[j] * sp.diff(X[i], q)
                  for j, q in enumerate(N.coords)) for i in range(3)]
    assert G.value("[tau1,tau2]") == N.vector_field(direct)


def test_memoisation_a_bracket_asked_twice_is_computed_once():
    N, tau1, tau2, _ = sleigh_frame()
    G = BracketGraph(N)
    first = G.bracket(tau1, tau2)
    assert G.stats["computed"] == 1
    second = G.bracket(tau1, tau2)
    assert second is first
    assert G.stats["computed"] == 1 and G.stats["hits"] >= 1
    # the same fields under other names (aliases) reuse the memoised value too
    G.add(tau1, "t1")
    G.add(tau2, "t2")
    assert G.bracket("t1", "t2") == first
    assert G.stats["computed"] == 1
    # the same object added twice gets the same key; an equal copy too
    assert G.add(tau1) == G.add(tau1) == G.add(N.vector_field(list(tau1.components)))


def test_rolling_disk_frame_brackets():
    N, (Vth, Vps, Vph) = rolling_disk_frame()
    x, y, th, ps, ph = N.coords
    a = N.parameters[0]
    G = BracketGraph(N)
    assert _is_zero_field(G.bracket(Vth, Vps))
    assert _is_zero_field(G.bracket(Vth, Vph))
    assert G.bracket(Vps, Vph) == N.vector_field([a * sp.sin(ps), -a * sp.cos(ps), 0, 0, 0])


def test_ball_frames_so3_relations_through_the_graph():
    N, (Ex, Ey, Ez), (u1, u2, u3), _ = ball_frames()
    G = BracketGraph(N)
    # [u1,u2] = u3 cyclic; [E_x,E_y] = -E_z cyclic; [E_mu, u_i] = 0   (B5, [V])
    assert G.bracket(u1, u2) == u3 and G.bracket(u2, u3) == u1 and G.bracket(u3, u1) == u2
    assert G.bracket(Ex, Ey) == -Ez and G.bracket(Ey, Ez) == -Ex and G.bracket(Ez, Ex) == -Ey
    for E in (Ex, Ey, Ez):
        for u in (u1, u2, u3):
            assert _is_zero_field(G.bracket(E, u))


def test_provenance_and_networkx_export():
    N, tau1, tau2, _ = sleigh_frame()
    G = BracketGraph(N)
    G.add(tau1, "tau1")
    G.add(tau2, "tau2")
    words = G.words(["tau1", "tau2"], 3)
    assert words == ["tau1", "tau2", "[tau1,tau2]", "[tau1,[tau1,tau2]]",
                     "[tau2,[tau1,tau2]]"]
    assert G.stats["computed"] == 0                         # words are lazy
    text = G.provenance("[tau1,[tau1,tau2]]")
    assert text.startswith("[tau1,[tau1,tau2]] where")
    assert "tau1 = " in text and "tau2 = d/dphi" in text and "cos(phi)" in text
    H = G.to_networkx()
    assert isinstance(H, nx.DiGraph) and nx.is_directed_acyclic_graph(H)
    assert H.has_edge("tau1", "[tau1,tau2]") and H.has_edge("tau2", "[tau1,tau2]")
    assert H.has_edge("[tau1,tau2]", "[tau1,[tau1,tau2]]")
    assert set(H.predecessors("[tau2,[tau1,tau2]]")) == {"tau2", "[tau1,tau2]"}
    assert not H.nodes["[tau1,[tau1,tau2]]"]["computed"]
    G.value("[tau1,[tau1,tau2]]")
    assert G.to_networkx().nodes["[tau1,[tau1,tau2]]"]["computed"]
    # [tau1,[tau1,tau2]] = [tau1, -a] = tau2 component zero; check against direct brackets
    assert G.value("[tau1,[tau1,tau2]]") == tau1.bracket(tau1.bracket(tau2))


def test_shared_graph_per_manifold():
    import gc
    import pickle
    import weakref

    M = Manifold("Mshared", "x y")
    assert BracketGraph.of(M) is BracketGraph.of(M)
    assert BracketGraph.of(Manifold("Mshared", "x y")) is not BracketGraph.of(M)
    # the chart stays picklable (the cached graph is not pickled), and so do its fields; in
    # one process the copy is the chart itself (charts compare by identity), graph included
    x, y = M.coords
    BracketGraph.of(M).bracket(M.vector_field([1, 0]), M.vector_field([0, x]))
    M2 = pickle.loads(pickle.dumps(M))
    assert M2 is M and BracketGraph.of(M2) is BracketGraph.of(M)
    # the cache does not keep a chart alive
    ref = weakref.ref(M)
    del M, M2
    gc.collect()
    assert ref() is None


# -- words ----------------------------------------------------------------------------------
@pytest.mark.parametrize("m", [1, 2, 3])
@pytest.mark.parametrize("basis", [hall_words, lyndon_words])
def test_basis_sizes_follow_witt_formula(m, basis):
    words = basis(m, 5)
    for k in range(1, 6):
        assert len([w for w in words if _length(w) == k]) == _witt(m, k)
    assert len(set(words)) == len(words)


def test_right_normed_words_are_all_words():
    assert len(right_normed_words(3, 3)) == 3 + 9 + 27


def _span_rank(vals, n):
    return default_policy().rank(sp.Matrix(n, len(vals), lambda i, j: vals[j].components[i]))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 3).flatmap(lambda n: st.tuples(st.just(n), fields(n, trig=False),
                                                     fields(n, trig=False))))
def test_hall_words_span_all_brackets(data):
    """Values of the Hall words of length <= 3 span every right-normed bracket of length 3."""
    n, X, Y = data
    G = BracketGraph(chart(n))
    kx = G.add(X, "A")
    ky = G.add(Y, "B") if Y.components != X.components else None
    gens = [kx] if ky is None else [kx, ky]
    hall = G.evaluate(G.words(gens, 3, "hall"))
    alln = G.evaluate(G.words(gens, 3, "right-normed"))
    rh = _span_rank(list(hall.values()), n)
    assert rh == _span_rank(list(hall.values()) + list(alln.values()), n)


# -- Jacobi identity on everything the graph computes ----------------------------------------
def _jacobiator_vanishes(G, a, b, c, n) -> bool:
    J = [G.bracket(a, G.bracket_node(b, c)), G.bracket(b, G.bracket_node(c, a)),
         G.bracket(c, G.bracket_node(a, b))]
    pol = default_policy()
    return all(pol.is_zero(sum(v.components[i] for v in J)) for i in range(n))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(
    st.just(n), fields(n), fields(n), fields(n))))
def test_jacobi_identity_for_every_triple_of_generators(data):
    """Polynomial/trigonometric fields on R^2..R^4: every triple of graph nodes."""
    n, X, Y, Z = data
    G = BracketGraph(chart(n))
    keys = list(dict.fromkeys(G.add(F) for F in (X, Y, Z)))
    for a, b, c in itertools.combinations(keys, 3):
        assert _jacobiator_vanishes(G, a, b, c, n)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 3).flatmap(lambda n: st.tuples(
    st.just(n), fields(n, trig=False), fields(n, trig=False), fields(n))))
def test_jacobi_identity_with_computed_words(data):
    """Triples mixing generators and the bracket words the graph evaluated (Hall, depth 2)."""
    n, X, Y, Z = data
    G = BracketGraph(chart(n))
    keys = list(dict.fromkeys(G.add(F) for F in (X, Y, Z)))
    words = G.words(keys, 2)
    G.evaluate(words)
    for w in words[len(keys):][:1]:
        for a, b in itertools.combinations(keys, 2):
            assert _jacobiator_vanishes(G, a, b, w, n)


# -- executors ----------------------------------------------------------------------------------
def test_serial_and_process_evaluation_agree():
    N, frame = rolling_disk_frame()
    Gs, Gp = BracketGraph(N), BracketGraph(N)
    ks = [Gs.add(F, f"V{i}") for i, F in enumerate(frame)]
    kp = [Gp.add(F, f"V{i}") for i, F in enumerate(frame)]
    ws = Gs.words(ks, 4)
    wp = Gp.words(kp, 4)
    assert ws == wp
    serial = Gs.evaluate(ws, executor="serial")
    proc = Gp.evaluate(wp, executor="process", max_workers=2)
    assert all(serial[k].components == proc[k].components for k in ws)
    assert Gs.stats["computed"] == Gp.stats["computed"]


def test_dask_executor_is_optional():
    N, tau1, tau2, _ = sleigh_frame()
    G = BracketGraph(N)
    w = G.words([G.add(tau1), G.add(tau2)], 3)
    try:
        import dask  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="dask"):
            G.evaluate(w, executor="dask")
    else:  # pragma: no cover - depends on the environment
        ref = BracketGraph(N)
        wr = ref.words([ref.add(tau1), ref.add(tau2)], 3)
        r = ref.evaluate(wr)
        with pytest.warns(RuntimeWarning, match="no dask.distributed Client"):
            d = G.evaluate(w, executor="dask")
        assert all(r[a].components == d[b].components for a, b in zip(wr, w))


def test_dask_executor_runs_on_the_active_distributed_client():
    """With a running Client the graph is evaluated by its workers (the task stream records
    the bracket tasks), silently and with the serial results."""
    import warnings

    distributed = pytest.importorskip("distributed")
    N, frame = rolling_disk_frame()
    Gs, Gd = BracketGraph(N), BracketGraph(N)
    ws = Gs.words([Gs.add(F, f"V{i}") for i, F in enumerate(frame)], 3)
    wd = Gd.words([Gd.add(F, f"V{i}") for i, F in enumerate(frame)], 3)
    serial = Gs.evaluate(ws)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with distributed.get_task_stream(client) as ts, warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # no fallback to threads
            dasked = Gd.evaluate(wd, executor="dask")
        ran = [t["key"] for t in ts.data]
    assert any("_bracket_task" in str(k) for k in ran)
    assert all(serial[k].components == dasked[k].components for k in ws)
    assert Gd.stats["computed"] == Gs.stats["computed"]


# -- bad input --------------------------------------------------------------------------------
def test_bad_input():
    N, tau1, tau2, _ = sleigh_frame()
    other = Manifold("Other", "u v w")
    G = BracketGraph(N)
    with pytest.raises(TypeError, match="Manifold"):
        BracketGraph("N")
    with pytest.raises(ValueError, match="Other"):
        G.add(other.vector_field([1, 0, 0]))
    with pytest.raises(TypeError, match="vector fields"):
        G.add(sp.Symbol("x"))
    with pytest.raises(ValueError, match="name"):
        G.add(tau1, "bad name,[x]")
    G.add(tau1, "tau")
    with pytest.raises(ValueError, match="already used"):
        G.add(tau2, "tau")
    with pytest.raises(ValueError, match="not a node"):
        G.value("nope")
    with pytest.raises(TypeError):
        G.bracket(tau1, 3)
    with pytest.raises(ValueError, match="generator"):
        G.words([], 2)
    with pytest.raises(ValueError, match="basis"):
        G.words(["tau"], 2, basis="chinese")
    with pytest.raises(ValueError, match="executor"):
        G.evaluate(["tau"], executor="threads-of-doom")


def test_dask_code_path_with_a_minimal_stand_in(monkeypatch):
    """The dask executor builds one delayed task per missing bracket; run it with a
    synchronous stand-in module so the code path is exercised without the extra."""
    import sys
    import types

    fake = types.ModuleType("dask")

    class _Delayed:
        def __init__(self, fn, args):
            self.fn, self.args = fn, args

        def run(self, cache):
            if id(self) not in cache:
                args = [a.run(cache) if isinstance(a, _Delayed) else a for a in self.args]
                cache[id(self)] = self.fn(*args)
            return cache[id(self)]

    fake.delayed = lambda fn, pure=True: (lambda *args: _Delayed(fn, args))

    def compute(obj, scheduler=None):
        cache: dict = {}
        return ({k: v.run(cache) for k, v in obj.items()},)

    fake.compute = compute
    monkeypatch.setitem(sys.modules, "dask", fake)
    N, frame = rolling_disk_frame()
    Gs, Gd = BracketGraph(N), BracketGraph(N)
    ws = Gs.words([Gs.add(F, f"V{i}") for i, F in enumerate(frame)], 3)
    wd = Gd.words([Gd.add(F, f"V{i}") for i, F in enumerate(frame)], 3)
    serial = Gs.evaluate(ws)
    if "distributed" in sys.modules:  # a client could be running: the graph looks for one
        monkeypatch.setitem(sys.modules, "distributed", types.SimpleNamespace(
            get_client=lambda: (_ for _ in ()).throw(ValueError("No global client found"))))
    with pytest.warns(RuntimeWarning, match="threads scheduler"):
        dasked = Gd.evaluate(wd, executor="dask")
    assert all(serial[k].components == dasked[k].components for k in ws)


# -- memo by content, work counters, explanations ------------------------------------------------
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4).flatmap(lambda n: st.tuples(st.just(n), st.lists(
    fields(n), min_size=2, max_size=4))))
def test_full_table_costs_one_kernel_call_per_unordered_pair(data):
    """A full n x n table: [a,a] trivial, [b,a] reused as -[a,b], each unordered pair of
    distinct fields computed once; every entry equals the direct kernel."""
    n, fs = data
    G = BracketGraph(chart(n))
    keys = list(dict.fromkeys(G.add(F) for F in fs))
    k = len(keys)
    table = G.evaluate([G.bracket_node(a, b) for a in keys for b in keys])
    s = G.stats
    assert (s["computed"], s["reused"], s["trivial"]) == (k * (k - 1) // 2,) * 2 + (k,)
    for a in keys:
        for b in keys:
            direct = G.value(a).bracket(G.value(b))
            assert table[f"[{a},{b}]"] == direct
            how = G.how(f"[{a},{b}]")
            assert how == ("[a,a] = 0" if a == b else "computed by the kernel"
                           if keys.index(a) < keys.index(b) else f"-1 times the value of [{b},{a}]")


def test_memo_is_shared_between_names_and_words():
    """The same content under another name (an alias) or as a computed word is not recomputed,
    and ``add`` of a field equal to a computed bracket returns that word."""
    N, tau1, tau2, a_field = sleigh_frame()
    G = BracketGraph(N)
    w = G.bracket_node(G.add(tau1, "t1"), G.add(tau2, "t2"))
    G.value(w)
    assert G.add(-a_field) == w                          # [t1,t2] = -a (B2 (3.15))
    G.add(tau1, "alias")
    assert G.bracket("alias", "t2") == -a_field and G.stats["computed"] == 1
    assert G.how("[alias,t2]") == "memoised value of [t1,t2] (same operands)"


def test_graph_and_distribution_survive_pickle_and_deepcopy():
    """Ring-valued memo entries and the lock are not pickled; nodes, values and counters are,
    and the copy finds equal fields again (index rebuilt lazily)."""
    import copy
    import pickle

    from geomech.lie.distribution import Distribution

    N, tau1, tau2, a_field = sleigh_frame()
    D = Distribution([tau1, tau2], graph=BracketGraph(N))
    assert D.growth_vector() == (2, 3)
    for clone in (pickle.loads(pickle.dumps(D)), copy.deepcopy(D)):
        G, M = clone.graph, clone.manifold
        assert clone.growth_vector() == (2, 3) and G.stats == D.graph.stats
        a_copy = M.vector_field(list(a_field.components))
        assert G.add(-a_copy) == "[X1,X2]" and G.value("[X1,X2]") == -a_copy
