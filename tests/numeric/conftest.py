"""Shared executors of the numeric tests: one 2-worker dask ``LocalCluster`` and one spawned
process pool for the whole session (each costs seconds to start), used by every test that
checks that a parallel mode gives the numbers of the serial mode."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp

import pytest


@pytest.fixture(scope="session")
def dask_client():
    """A ``distributed.Client`` on a 2-worker ``LocalCluster`` (worker processes, one thread
    each): what CI runs the distributed tests on."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="session")
def process_pool():
    """A spawned local process pool, one worker (the executor behind ``client="processes"``;
    one worker: a spawned interpreter costs seconds to import the library)."""
    with cf.ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as ex:
        yield ex
