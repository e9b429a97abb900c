"""Sphinx configuration for corset's documentation (numpydoc docstrings)."""
project = "corset"
author = "corset developers"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
]
autosummary_generate = True
numpydoc_show_class_members = False
html_theme = "alabaster"
exclude_patterns = ["_build", "experiments"]   # tables of corset experiment, included by comparison.rst
