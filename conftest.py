"""pytest configuration shared by tests, doctests of the package and the docs pages."""

collect_ignore = ["docs/conf.py", "setup.py"]
collect_ignore_glob = ["docs/_build/*", ".venv/*"]   # docs/conftest.py lists docs/' own

#: Doctests whose example derives a large mechanism (the Whipple bicycle: minutes of symbolic
#: work); they run with the slow tests (``-m slow``), the fast suite checks cached matrices.
SLOW_DOCTESTS = {"geomech.examples.bicycle.whipple_bicycle",
                 "geomech.examples.bicycle.benchmark_matrices"}


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        if isinstance(item, pytest.DoctestItem) and item.name in SLOW_DOCTESTS:
            item.add_marker(pytest.mark.slow)
