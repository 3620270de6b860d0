"""Test-suite hooks: the ``no_leaks`` marker, and the catalogue systems many test modules
share as fixtures (built once per module).

A test marked ``@pytest.mark.no_leaks`` (or a module with ``pytestmark = pytest.mark.no_leaks``)
runs as under ``python -W error::ResourceWarning``: a file, pipe, socket or process the library
leaves open is an error -- also when the warning comes from a finaliser (pytest reports those
as ``PytestUnraisableExceptionWarning``), and a garbage collection after the test surfaces
objects that are only unreachable.
"""

from __future__ import annotations

import gc

import pytest

import geomech as gm

_NO_LEAKS = ("error::ResourceWarning", "error::pytest.PytestUnraisableExceptionWarning")


#: fixtures of third-party services that leak by themselves (dask.distributed's port probing
#: leaves a socket to the garbage collector): tests using them are not checked
_UNCHECKED_FIXTURES = {"dask_client"}


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if item.get_closest_marker("no_leaks") and not (
                _UNCHECKED_FIXTURES & set(getattr(item, "fixturenames", ()))):
            for spec in _NO_LEAKS:
                item.add_marker(pytest.mark.filterwarnings(spec))


@pytest.fixture(autouse=True)
def _collect_garbage_after_no_leaks(request):
    """After a ``no_leaks`` test, collect garbage inside the test's warning filters, so an
    unclosed object that is only unreachable is reported against this test."""
    yield
    if request.node.get_closest_marker("no_leaks") and not (
            _UNCHECKED_FIXTURES & set(request.fixturenames)):
        gc.collect()


@pytest.fixture(scope="module")
def sleigh():
    """The Chaplygin sleigh of the catalogue."""
    return gm.examples.chaplygin_sleigh()


@pytest.fixture(scope="module")
def inclined():
    """The Chaplygin sleigh on an inclined plane."""
    return gm.examples.inclined_chaplygin_sleigh()


@pytest.fixture(scope="module")
def disk():
    """The rolling disk."""
    return gm.examples.rolling_disk()
