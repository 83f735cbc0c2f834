"""The public API is typed: ``py.typed`` ships with the package, and every public
function, estimator constructor and public estimator method annotates each of its
parameters and its return value."""

import inspect
import typing
from importlib import resources

import pytest

import sk_adaprox
import sk_adaprox.datasets

ESTIMATORS = [
    getattr(sk_adaprox, name) for name in sk_adaprox.__all__ if name[0].isupper()
]
FUNCTIONS = [
    sk_adaprox.progressive_val_predict,
    sk_adaprox.progressive_val_score,
    *(getattr(sk_adaprox.datasets, name) for name in sk_adaprox.datasets.__all__),
]
METHODS = (
    "__init__",
    "fit",
    "partial_fit",
    "predict",
    "decision_function",
    "predict_proba",
    "predict_log_proba",
    "sparsify",
    "densify",
    "transform",
    "get_feature_names_out",
)


def _unannotated(function):
    hints = typing.get_type_hints(function)
    missing = [
        name
        for name in inspect.signature(function).parameters
        if name != "self" and name not in hints
    ]
    return missing + ([] if "return" in hints else ["return"])


def test_the_package_says_it_is_typed():
    assert resources.files("sk_adaprox").joinpath("py.typed").is_file()


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_public_functions_are_annotated(function):
    assert _unannotated(function) == []


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
def test_estimator_constructor_and_methods_are_annotated(estimator):
    methods = [m for m in METHODS if hasattr(estimator, m)]
    if hasattr(estimator, "transform"):  # a transformer (HashingEncoder)
        assert {"__init__", "fit", "transform"} <= set(methods)
    else:
        assert {"__init__", "fit", "partial_fit", "predict"} <= set(methods)
    missing = {m: _unannotated(getattr(estimator, m)) for m in methods}
    assert {m: names for m, names in missing.items() if names} == {}
