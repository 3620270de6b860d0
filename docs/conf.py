"""Sphinx configuration for geomech."""

import os
import sys

# document the package of this checkout, not an installed copy
sys.path.insert(0, os.path.abspath(".."))
os.environ.setdefault("MPLBACKEND", "Agg")

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
    "sphinxcontrib.bibtex",
    "sphinx_gallery.gen_gallery",
]

# -- API reference: one page per public object (autosummary) ------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "description"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_ivar = True
nitpicky = False
suppress_warnings = ["ref.python"]  # ambiguous short names in napoleon type fields
exclude_patterns = ["_build", "gallery/GALLERY_HEADER.rst", "auto_gallery/*.ipynb",
                    "auto_gallery/*.py", "auto_gallery/*.zip", "auto_gallery/*.json"]
templates_path = ["_templates"]

# -- bibliography (sphinxcontrib-bibtex) ---------------------------------------------------
bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "unsrt"
bibtex_reference_style = "author_year"

# -- example gallery (sphinx-gallery) ------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "auto_gallery",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib",),
    "min_reported_time": 1,
}

# -- the report page of every catalogue system (docs/report_pages.py) -------------------------
# Built when the build starts (two worker processes; rebuilt only when the package changed),
# copied into the site under reports/; GEOMECH_DOCS_REPORT_PAGES=0 skips building them.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
html_extra_path = ["generated/report_site"]
# Sphinx checks html_extra_path when the configuration is read, before builder-inited builds the
# pages: on a clean clone the folder must exist by then (else -W fails on the warning).
_HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(_HERE, *html_extra_path[0].split("/")), exist_ok=True)


def _report_pages(app):
    import report_pages

    report_pages.build(skip=os.environ.get("GEOMECH_DOCS_REPORT_PAGES", "1") == "0")


def setup(app):
    app.connect("builder-inited", _report_pages)


# -- HTML ------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "geomech"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
