"""Ensembles and sweeps (geomech.numeric.sweep).

Mathematics asserted: every run of a sweep is the trajectory gm.simulate computes for that
initial condition and parameter set (bit for bit), in input order; an ensemble of the
nonholonomic skate reproduces the exact circles x = (v/w) sin wt, y = (v/w)(1 - cos wt)
(seeds_001_004 §4.3) and conserves the energy; the sleigh's energy is conserved in every run
of a parameter sweep; serial, executor and dask.distributed runs (2-worker LocalCluster, by
Client and by scheduler address) give identical numbers.
"""

from __future__ import annotations

import concurrent.futures as cf

import numpy as np
import pytest

import geomech as gm

#: files, pipes and worker processes are closed (tests/conftest.py)
pytestmark = pytest.mark.no_leaks

SKATE_T = 1.2          # |phi| < pi/2: the chart (x, y, phi, xdot, phidot) is regular


@pytest.fixture(scope="module")
def skate():
    return gm.examples.skate()


def _skate_ics():
    return [{"x": 0, "y": 0, "phi": 0, "xdot": v, "phidot": w}
            for v, w in [(1.0, 1.0), (0.5, 1.2), (2.0, 0.7), (1.5, -1.2)]]


def _same(a, b, tol=1e-12):
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        assert ra.states.shape == rb.states.shape
        assert np.max(np.abs(ra.states - rb.states)) <= tol
        assert np.array_equal(ra.t, rb.t)
        assert ra.drift.keys() == rb.drift.keys()


def test_skate_ensemble_is_exact(skate):
    ics = _skate_ics()
    res = gm.sweep(skate, ics, (0, SKATE_T))
    assert len(res) == len(ics) and res.final_states.shape == (4, 5)
    for ic, r in zip(ics, res):
        v, w = ic["xdot"], ic["phidot"]
        t = r.t
        assert np.allclose(r["x"], v / w * np.sin(w * t), atol=1e-9)
        assert np.allclose(r["y"], v / w * (1 - np.cos(w * t)), atol=1e-9)
    assert res.drifts["energy"].max() < 1e-10
    assert np.array_equal(res.initial_states[:, 3], [ic["xdot"] for ic in ics])


def test_order_and_agreement_with_simulate(sleigh):
    ics = [{"x": 0, "y": 0, "phi": 0, "xdot": 1.0, "phidot": w} for w in (0.3, -0.8)]
    psets = [{"m": 1, "I": 1, "a": 0.5}, {"m": 2, "I": 0.5, "a": 0.2}, {"m": 1, "I": 3, "a": 1}]
    res = gm.sweep(sleigh, ics, (0, 3.0), parameters=psets)
    assert len(res) == 6
    for k in range(6):
        i, j = res.index(k)
        assert k == i * 3 + j
        ref = gm.simulate(sleigh, ics[i], (0, 3.0), parameters=psets[j])
        assert np.array_equal(res[k].states, ref.states) and np.array_equal(res[k].t, ref.t)
        assert res.parameters[k] == {n: float(v) for n, v in psets[j].items()}
        assert res[k].drift["energy"] < 1e-9
    rows = res.table()
    assert [r["run"] for r in rows] == list(range(6))
    assert rows[4]["initial_condition"] == 1 and rows[4]["parameter_set"] == 1
    assert rows[4]["m"] == 2.0 and rows[4]["phidot_0"] == -0.8
    assert rows[4]["xdot_final"] == res.final_states[4, 3]
    assert rows[4]["drift_energy"] == res[4].drift["energy"]


def test_dlda_sweep(sleigh):
    """method="dlda" runs through a sweep: every run is the discrete trajectory simulate
    computes, the constraints hold to round-off in every run."""
    ics = [{"x": 0, "y": 0, "phi": 0.3, "xdot": 1.0, "phidot": w} for w in (0.5, -1.0)]
    p = {"m": 1, "I": 0.7, "a": 0.4}
    res = gm.sweep(sleigh, ics, (0, 1.0), parameters=p, method="dlda", step=0.05)
    for ic, r in zip(ics, res):
        ref = gm.simulate(sleigh, ic, (0, 1.0), parameters=p, method="dlda", step=0.05)
        assert np.array_equal(r.states, ref.states) and len(r.t) == 21
        assert r.drift["constraint 1"] <= 1e-12
        assert np.max(r.series["discrete constraint"]) <= 1e-12


def test_executor_mode_is_identical(skate):
    ics = _skate_ics()
    serial = gm.sweep(skate, ics, (0, SKATE_T))
    with cf.ThreadPoolExecutor(2) as ex:
        pooled = gm.sweep(skate, ics, (0, SKATE_T), client=ex, chunksize=1)
    _same(serial, pooled, tol=0.0)


def test_every_mode_is_identical(skate, dask_client, process_pool):
    """Serial, a spawned process pool and a 2-worker dask LocalCluster (by Client and by
    scheduler address) give the same numbers."""
    ics = _skate_ics()
    serial = gm.sweep(skate, ics, (0, SKATE_T))
    _same(serial, gm.sweep(skate, ics, (0, SKATE_T), client=process_pool))
    on_client = gm.sweep(skate, ics, (0, SKATE_T), client=dask_client)
    _same(serial, on_client)
    by_address = gm.sweep(skate, ics[:2], (0, SKATE_T),
                          client=dask_client.scheduler.address)
    _same(serial[:2], by_address)
    assert set(dask_client.scheduler_info()["workers"]) and len(
        dask_client.scheduler_info()["workers"]) == 2


@pytest.mark.slow
def test_processes_mode_is_identical(skate):
    """``client="processes"`` starts (and closes) its own spawned pool."""
    ics = _skate_ics()
    _same(gm.sweep(skate, ics, (0, SKATE_T)),
          gm.sweep(skate, ics, (0, SKATE_T), client="processes", workers=2))


def test_progress_bar(skate, capsys):
    gm.sweep(skate, _skate_ics()[:2], (0, 0.5), progress=True)
    assert "sweep" in capsys.readouterr().err


def test_dataframe(skate):
    pd = pytest.importorskip("pandas")
    df = gm.sweep(skate, _skate_ics()[:2], (0, 0.5)).dataframe()
    assert isinstance(df, pd.DataFrame) and len(df) == 2


def test_bad_input(skate, sleigh):
    with pytest.raises(ValueError, match=r"run 1 \(initial condition 1.*ydot"):
        gm.sweep(skate, [_skate_ics()[0], {"x": 0, "y": 0, "phi": 0, "ydot": 1,
                                           "phidot": 0}], (0, 1))
    with pytest.raises(TypeError, match="list of initial states"):
        gm.sweep(skate, _skate_ics()[0], (0, 1))
    with pytest.raises(ValueError, match="empty"):
        gm.sweep(skate, [], (0, 1))
    with pytest.raises(TypeError, match="entry 1"):
        gm.sweep(sleigh, _skate_ics()[:1], (0, 1), parameters=[{"m": 1, "I": 1, "a": 1}, 3])
    with pytest.raises(TypeError, match="unknown option"):
        gm.sweep(skate, _skate_ics()[:1], (0, 1), tolerance=1e-3)
    with pytest.raises(TypeError, match="client must be"):
        gm.sweep(skate, _skate_ics()[:1], (0, 1), client=3)
    with pytest.raises(ValueError, match="client must be"):
        gm.sweep(skate, _skate_ics()[:1], (0, 1), client="threads")
    with pytest.raises(ValueError, match="workers"):
        gm.sweep(skate, _skate_ics()[:1], (0, 1), client="processes", workers=0)


def test_implicit_runs_on_executor(sleigh):
    ics = [{"x": 0, "y": 0, "phi": 0, "xdot": 1.0, "phidot": w} for w in (0.3, -0.6)]
    p = {"m": 1, "I": 1, "a": 0.5}
    explicit = gm.sweep(sleigh, ics, (0, 2.0), parameters=p, t_eval=[0.0, 1.0, 2.0])
    with cf.ThreadPoolExecutor(2) as ex:
        implicit = gm.sweep(sleigh, ics, (0, 2.0), parameters=p, t_eval=[0.0, 1.0, 2.0],
                            implicit=True, client=ex, chunksize=1)
    assert np.allclose(implicit.final_states, explicit.final_states, rtol=1e-9, atol=1e-10)
