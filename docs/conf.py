"""Sphinx configuration of the sk_adaprox documentation site.

Build it with ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` from
the repository's root (README.md, "Documentation"); the gallery's examples run
during the build.
"""

import os
import sys
from pathlib import Path

import sk_adaprox

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

from offline_inventories import write_inventories  # noqa: E402 (needs the path)

# The gallery's examples read the real datasets from ../shared/data beside the
# checkout, or from $SK_ADAPROX_DATA_DIR; they run with examples/ as the current
# folder, so give them an absolute path.
os.environ.setdefault("SK_ADAPROX_DATA_DIR", str(DOCS.parents[1] / "shared" / "data"))
os.environ.setdefault("MPLBACKEND", "Agg")

project = "sk_adaprox"
author = "the sk_adaprox developers"
copyright = "2026, the sk_adaprox developers"  # noqa: A001 (Sphinx's name)
release = sk_adaprox.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# Markdown pages: $...$ and $$...$$ math, ::: fences, and anchors for headings so
# that pages can link to each other's sections.
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
# Quotes and ellipses only: "--" and "---" stay as typed, so that command-line
# options written outside code literals (--ftrl) are copied as they are.
smartquotes_action = "qe"

# API reference: one page per public name; numpydoc renders the docstrings, the
# types stay in the docstrings (not repeated from the annotations).
autosummary_generate = True
autodoc_typehints = "none"
autodoc_default_options = {"inherited-members": True}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# Links to scikit-learn, NumPy and SciPy: their sites first, and where those
# cannot be reached, inventories made from the installed packages.
intersphinx_mapping = write_inventories(DOCS / "_build" / "inventories")
intersphinx_timeout = 5

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # The quick-start is the README's first command, not a gallery entry.
    "ignore_pattern": r"quickstart\.py",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "reference_url": {"sk_adaprox": None},
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("sk_adaprox",),
    "remove_config_comments": True,
    "show_memory": False,
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
}

html_theme = "pydata_sphinx_theme"
html_title = f"sk_adaprox {release}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_context = {"default_mode": "light"}
