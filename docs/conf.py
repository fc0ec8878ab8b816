"""Sphinx configuration of the venncal documentation.

Build with ``make -C docs html`` (warnings are errors). Everything is built offline: no
inventory of other projects is fetched, and the gallery's examples run on bundled or simulated
data.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _api import write_api  # noqa: E402
from _cli import write_cli_reference  # noqa: E402
from _support import write_support_table  # noqa: E402

import venncal  # noqa: E402

os.environ.setdefault("MPLBACKEND", "Agg")

project = "venncal"
author = "The venncal developers"
copyright = "venncal developers"  # noqa: A001
release = venncal.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "examples", "generated/*.examples", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.json",
                    "auto_examples/*.md5", "sg_execution_times.rst"]  # fmt: skip
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["venncal.css"]

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()
myst_heading_anchors = 3

html_theme = "pydata_sphinx_theme"
html_title = f"venncal {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "navbar_end": ["theme-switcher", "navbar-icon-links"],
}

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "download_all_examples": False,
    "remove_config_comments": True,
    "plot_gallery": "True",
    "within_subsection_order": "FileNameSortKey",
}

suppress_warnings = ["config.cache"]


# generated pages, written before autosummary reads them
write_api(HERE / "api.rst")
write_cli_reference(HERE / "user_guide" / "cli_reference.md")
write_support_table(HERE / "user_guide" / "support.md")


def _skip_library_members(app, what, name, obj, skip, options):
    """Document venncal's own methods only: not those scikit-learn's base classes provide
    (``score``, ``get_params``, the metadata-routing setters ``set_*_request``)."""
    module = getattr(obj, "__module__", None) or ""
    qualname = getattr(obj, "__qualname__", "") or ""
    if module.startswith("sklearn") or "RequestMethod" in qualname or name.startswith("__"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_library_members)
