"""The documentation: every public name is in the API reference with a complete
numpydoc docstring whose examples pytest runs, and the getting-started page's first
model runs and prints what the page says.

The site itself is built (warnings as errors, the gallery executed) by the README's
docs command, which CI runs.
"""

import doctest
import inspect
import re
import runpy
from pathlib import Path

import numpy as np
import pytest

import sk_adaprox
import sk_adaprox.datasets
import sk_adaprox.exceptions

try:  # an optional extra; its names are listed where it is installed
    import sk_adaprox.dask

    OPTIONAL_MODULES = (sk_adaprox.dask,)
except ImportError:
    OPTIONAL_MODULES = ()

docscrape = pytest.importorskip(
    "numpydoc.docscrape", reason='numpydoc comes with pip install ".[test]"'
)

DOCS = Path(__file__).resolve().parents[1] / "docs"

PUBLIC = {
    **{name: getattr(sk_adaprox, name) for name in sk_adaprox.__all__},
    **{
        f"{module.__name__.split('.')[-1]}.{name}": getattr(module, name)
        for module in (sk_adaprox.datasets, sk_adaprox.exceptions, *OPTIONAL_MODULES)
        for name in module.__all__
    },
}
PUBLIC.pop("__version__")


def _parameters(obj):
    """The signature's parameters; none for a warning class, which takes the
    message as every exception does."""
    if inspect.isclass(obj) and issubclass(obj, Warning):
        return {}
    return inspect.signature(obj).parameters


def _api_reference_names():
    """Names listed under the autosummary directives of docs/api.rst."""
    text = (DOCS / "api.rst").read_text()
    names, module = set(), None
    for line in text.splitlines():
        if line.startswith(".. currentmodule::"):
            module = line.split("::")[1].strip()
        elif re.fullmatch(r" {3}[A-Za-z_][A-Za-z_0-9]*", line):
            submodule = module.removeprefix("sk_adaprox").lstrip(".")
            names.add((submodule + "." if submodule else "") + line.strip())
    return names


def test_the_api_reference_lists_every_public_name_and_nothing_else():
    listed = _api_reference_names()
    if not OPTIONAL_MODULES:
        listed = {name for name in listed if not name.startswith("dask.")}
    assert listed == set(PUBLIC)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_public_docstring_is_complete_numpydoc(name):
    obj = PUBLIC[name]
    is_class = inspect.isclass(obj)
    parsed = docscrape.ClassDoc(obj) if is_class else docscrape.FunctionDoc(obj)
    assert parsed["Summary"], f"{name}: no summary line"
    documented = [p.name for p in parsed["Parameters"]]
    for parameter in _parameters(obj).values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        assert any(
            parameter.name in entry.replace(" ", "").split(",") for entry in documented
        ), f"{name}: parameter {parameter.name!r} is not documented"
    if not is_class:
        assert parsed["Returns"], f"{name}: no Returns section"
    elif not issubclass(obj, Warning):
        attributes = [a.name for a in parsed["Attributes"]]
        assert "n_features_in_" in attributes, name
        if not hasattr(obj, "transform"):  # the models (not the encoder)
            assert "coef_" in attributes, name
    assert parsed["Examples"], f"{name}: no Examples section"


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_examples_section_is_a_doctest_that_pytest_runs(name):
    # pytest runs the package's doctests (--doctest-modules in pyproject.toml);
    # this checks the Examples section holds real statements doctest finds.
    tests = doctest.DocTestFinder(recurse=False).find(PUBLIC[name], name)
    assert sum(len(test.examples) for test in tests) >= 2


def test_the_first_model_of_getting_started_prints_what_the_page_says(capsys):
    runpy.run_path(str(DOCS / "first_model.py"), run_name="__main__")
    printed = capsys.readouterr().out
    auc = re.search(r"test ROC AUC (\d\.\d+)", printed).group(1)
    page = (DOCS / "getting_started.md").read_text()
    assert f"test ROC AUC ({auc})" in page.replace("\n", " ")


def test_the_changelog_names_the_version_the_package_reports():
    changelog = (DOCS.parent / "CHANGELOG.md").read_text()
    first_release = re.search(r"^## (.+)$", changelog, flags=re.M).group(1)
    assert sk_adaprox.__version__ != "0.0.0+unknown", "sk_adaprox is not installed"
    assert sk_adaprox.__version__ in first_release


# The user guide's "Parameters" tables: page -> (classifier, regressor).
PARAMETER_TABLES = {
    "adagrad.md": (sk_adaprox.AdaGradClassifier, sk_adaprox.AdaGradRegressor),
    "ftrl.md": (sk_adaprox.FTRLClassifier, sk_adaprox.FTRLRegressor),
}


def _documented_defaults(page):
    """{parameter: (classifier default, regressor default)} from a page's table
    headed ``| parameter | classifier default | regressor default | meaning |``."""
    lines = (DOCS / page).read_text().splitlines()
    header = "| parameter | classifier default | regressor default | meaning |"
    start = lines.index(header) + 2  # skip the |---| line
    defaults = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        name, *values = [cell.strip().strip("`") for cell in line.split("|")[1:4]]
        defaults[name] = tuple(_table_value(value) for value in values)
    return defaults


def _table_value(text):
    """A default as a table cell writes it: a string in quotes, None or a number."""
    if text.startswith('"'):
        return text.strip('"')
    return None if text == "None" else float(text)


@pytest.mark.parametrize("page", sorted(PARAMETER_TABLES))
def test_the_user_guide_tables_give_the_estimators_defaults(page):
    classifier, regressor = PARAMETER_TABLES[page]
    documented = _documented_defaults(page)
    assert len(documented) >= 4
    for name, (for_classifier, for_regressor) in documented.items():
        assert classifier().get_params()[name] == for_classifier, (page, name)
        assert regressor().get_params()[name] == for_regressor, (page, name)


def _default_in_type_line(type_line):
    """The ``default=...`` of a numpydoc parameter's type line, as Python text."""
    found = re.search(r"default=(.+)$", type_line)
    return None if found is None else found.group(1).strip()


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_documented_default_is_the_signatures(name):
    """Each parameter with a default says ``default=`` it in its type line, with
    the signature's value, and no documented parameter is missing from the
    signature."""
    obj = PUBLIC[name]
    is_class = inspect.isclass(obj)
    parsed = docscrape.ClassDoc(obj) if is_class else docscrape.FunctionDoc(obj)
    signature = _parameters(obj)
    documented = {}
    for entry in parsed["Parameters"]:
        for parameter_name in entry.name.replace(" ", "").split(","):
            assert parameter_name in signature, (
                name,
                parameter_name,
                "not in signature",
            )
            documented[parameter_name] = _default_in_type_line(entry.type)
    for parameter in signature.values():
        if parameter.default is inspect.Parameter.empty:
            continue
        text = documented.get(parameter.name)
        assert text is not None, (name, parameter.name, "no default= documented")
        if isinstance(parameter.default, str):
            assert text.strip("\"'") == parameter.default, (name, parameter.name)
        else:
            value = eval(text, {"np": np})
            assert value == parameter.default, (name, parameter.name, text)
            assert type(value) is type(parameter.default) or not isinstance(
                parameter.default, bool
            ), (name, parameter.name, text)


def test_the_site_keeps_double_dashes_as_typed():
    # Sphinx turns "--" into an en dash by default: a command-line option
    # written in prose (--ftrl) would then be copied wrong.
    import ast

    tree = ast.parse((DOCS / "conf.py").read_text())
    settings = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    assert "D" not in ast.literal_eval(settings["smartquotes_action"])
