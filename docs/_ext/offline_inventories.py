"""Intersphinx inventories for scikit-learn, NumPy and SciPy, made from the installed
packages, for builds without a network.

Intersphinx first asks each project's site for its ``objects.inv``; where that site
cannot be reached (CI here has no route to it), it falls back to the file this module
writes. The file lists the public names of the installed version, pointing at the
pages each project's documentation puts them on, so links from our pages (a
docstring's "See Also", a ``:class:`` role) still go to the right page.
"""

import importlib
import inspect
import zlib
from pathlib import Path

# project: (base URL, the page of a public name, the modules whose names we list)
PROJECTS = {
    "sklearn": (
        "https://scikit-learn.org/stable/",
        "modules/generated/{name}.html#{name}",
        [
            "sklearn.base",
            "sklearn.feature_extraction.text",
            "sklearn.linear_model",
            "sklearn.metrics",
            "sklearn.model_selection",
            "sklearn.pipeline",
            "sklearn.preprocessing",
            "sklearn.utils",
        ],
    ),
    "numpy": (
        "https://numpy.org/doc/stable/",
        "reference/generated/{name}.html#{name}",
        ["numpy"],
    ),
    "scipy": (
        "https://docs.scipy.org/doc/scipy/",
        "reference/generated/{name}.html#{name}",
        ["scipy.sparse"],
    ),
}


# Labels and glossary terms of scikit-learn's user guide that the docstrings of the
# methods our estimators inherit (``score``) refer to, with the pages they are on.
SKLEARN_LABELS = {
    "accuracy_score": "modules/model_evaluation.html#accuracy-score",
    "r2_score": (
        "modules/model_evaluation.html#r2-score-the-coefficient-of-determination"
    ),
    "metadata_routing": "metadata_routing.html#metadata-routing",
}
SKLEARN_TERMS = {"meta-estimator": "glossary.html#term-meta-estimator"}


def _public_names(module_name):
    """(qualified name, role) of each public class and function of a module."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None) or [
        name for name in vars(module) if not name.startswith("_")
    ]
    for name in sorted(names):
        try:
            value = getattr(module, name)
        except (AttributeError, ImportError):  # experimental names need an opt-in
            continue
        if inspect.isclass(value):
            yield f"{module_name}.{name}", "class", value
        elif callable(value):
            yield f"{module_name}.{name}", "function", None


def _entries(page, modules):
    """Inventory lines: each name, and each public method of each class."""
    for module_name in modules:
        for name, role, cls in _public_names(module_name):
            uri = page.format(name=name)
            yield f"{name} py:{role} 1 {uri} -"
            if cls is None:
                continue
            for method in sorted(vars(cls)):
                if not method.startswith("_") and callable(getattr(cls, method)):
                    yield f"{name}.{method} py:method 1 {uri}.{method} -"


def write_inventories(folder):
    """Write ``<project>.inv`` for each project into ``folder``; return the
    ``intersphinx_mapping`` that tries each site first and the file second."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    mapping = {}
    for project, (url, page, modules) in PROJECTS.items():
        version = importlib.import_module(project).__version__
        header = (
            "# Sphinx inventory version 2\n"
            f"# Project: {project}\n# Version: {version}\n"
            "# The remainder of this file is compressed using zlib.\n"
        )
        lines = set(_entries(page, modules))
        if project == "sklearn":
            lines |= {f"{k} std:label -1 {v} -" for k, v in SKLEARN_LABELS.items()}
            lines |= {f"{k} std:term -1 {v} -" for k, v in SKLEARN_TERMS.items()}
        body = "\n".join(sorted(lines)) + "\n"
        path = folder / f"{project}.inv"
        path.write_bytes(header.encode() + zlib.compress(body.encode()))
        mapping[project] = (url, (None, str(path)))
    return mapping
