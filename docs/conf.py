"""Sphinx configuration for geomech."""

project = "geomech"
author = "the geomech developers"
copyright = "2026, the geomech developers"
release = "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.doctest",
]
autosummary_generate = False
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "description"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
nitpicky = False
exclude_patterns = ["_build"]
html_theme = "alabaster"
napoleon_use_ivar = True
suppress_warnings = ["ref.python"]  # ambiguous short names in napoleon type fields
