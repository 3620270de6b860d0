"""pytest configuration shared by tests, doctests of the package and the docs pages."""

collect_ignore = ["docs/conf.py", "setup.py"]
collect_ignore_glob = ["docs/_build/*", ".venv/*"]   # docs/conftest.py lists docs/' own
