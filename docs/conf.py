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

# The gallery's examples fetch their data into scikit-learn's data home. Where a
# local copy of the data sets is given ($SK_ADAPROX_DATA_DIR, or the folder the
# tests read), the build fills a data home of its own from it, so that it needs
# no internet; otherwise the examples download into the user's data home.
_LOCAL_DATA = Path(
    os.environ.get("SK_ADAPROX_DATA_DIR", DOCS.parents[1] / "shared" / "data")
)
if "SCIKIT_LEARN_DATA" not in os.environ and _LOCAL_DATA.is_dir():
    sys.path.insert(0, str(DOCS.parent / "tests"))
    from data_home import populate_data_home  # noqa: E402 (needs the path)

    _DATA_HOME = DOCS / "_build" / "data_home"
    populate_data_home(_LOCAL_DATA, _DATA_HOME)
    os.environ["SCIKIT_LEARN_DATA"] = str(_DATA_HOME)
os.environ.setdefault("MPLBACKEND", "Agg")

project = "sk_adaprox"
author = "the sk_adaprox developers"
copyright = "2026, the sk_adaprox developers"  # noqa: A001 (Sphinx's name)
release = sk_adaprox.__version__
version = release

# Math is rendered as MathML when the pages are built (docs/_ext/mathml.py), so
# that equations show without a script or a network connection.
html_math_renderer = "mathml"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "mathml",
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
    # No pages of build timings (they load a table script from a CDN).
    "write_computation_times": False,
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

# Navigation. The hidden toctree of index.md gives the navbar's entries; each page
# is in exactly one toctree, so that the navbar highlights its own entry. The left
# sidebar shows the children of a page's section: the pages without any (the home
# page, Getting started, Choosing an estimator, Changelog) get no sidebar, rather
# than an empty column.
html_sidebars = {
    "index": [],
    "getting_started": [],
    "choosing": [],
    "changelog": [],
}
