"""The fitted state: one array, public attributes as views, predictions read in place.

Everything a model learns is one ``(n_features + 1, n_slots, K)`` array; ``coef_``,
``intercept_`` and the accumulators are views of its slots in scikit-learn's shapes.
"""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.extmath import safe_sparse_dot

from sk_adaprox import AdaGradClassifier, AdaGradRegressor

UPDATES = ["mirror_descent", "dual_averaging"]


def _problem(n_classes, n_samples=60, n_features=15, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n_samples, n_features, density=0.3, random_state=rng, format="csr")
    y = rng.integers(0, n_classes, n_samples) if n_classes else rng.normal(size=60)
    return X, y


def _fitted(kind, update, **params):
    if kind == "regressor":
        X, y = _problem(None)
        model = AdaGradRegressor(update=update, max_iter=3, tol=None, **params)
    else:
        X, y = _problem(2 if kind == "binary" else 4)
        model = AdaGradClassifier(update=update, max_iter=3, tol=None, **params)
    return model.fit(X, y), X


def _scores(model, X):
    if isinstance(model, AdaGradRegressor):
        return model.predict(X)
    return model.decision_function(X)


@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
def test_state_attributes_have_sklearn_shapes(kind, update):
    model, X = _fitted(kind, update)
    n_features = X.shape[1]
    coef_shape = {
        "binary": (1, n_features),
        "multiclass": (4, n_features),
        "regressor": (n_features,),
    }[kind]
    n_outputs = 1 if kind != "multiclass" else 4
    names = ["coef_", "sum_sq_grad_"]
    intercept_names = ["intercept_", "intercept_sum_sq_grad_"]
    if update == "dual_averaging":
        names.append("sum_grad_")
        intercept_names.append("intercept_sum_grad_")
    else:
        assert not hasattr(model, "sum_grad_")
        assert not hasattr(model, "intercept_sum_grad_")
    for name in names:
        value = getattr(model, name)
        assert value.shape == coef_shape and value.dtype == np.float64, name
    for name in intercept_names:
        assert getattr(model, name).shape == (n_outputs,), name
    # Distinct slots: G > 0 where coef_ moved, and they are not the same numbers.
    assert np.all(model.sum_sq_grad_[model.coef_ != 0] > 0)
    assert not np.array_equal(model.coef_, model.sum_sq_grad_)


@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
def test_writing_coef_changes_the_model(kind):
    model, X = _fitted(kind, "mirror_descent")
    new_coef = np.random.default_rng(1).normal(size=model.coef_.shape)
    model.coef_ = new_coef
    model.intercept_[...] = 0.5
    np.testing.assert_array_equal(model.coef_, new_coef)
    expected = safe_sparse_dot(X, new_coef.T, dense_output=True) + 0.5
    np.testing.assert_allclose(_scores(model, X), expected.squeeze(), rtol=1e-12)
    # In-place writes reach the model too.
    model.coef_[...] = 0.0
    np.testing.assert_allclose(_scores(model, X), 0.5, rtol=0)


def test_setting_state_of_the_wrong_shape_or_before_fit_is_an_error():
    model, _ = _fitted("binary", "mirror_descent")
    before = model.coef_.copy()
    with pytest.raises(ValueError, match=r"coef_ has shape \(1, 15\).*\(1, 14\)"):
        model.coef_ = np.zeros((1, 14))
    np.testing.assert_array_equal(model.coef_, before)
    with pytest.raises(AttributeError, match="fit the model before setting"):
        AdaGradClassifier().coef_ = before
    with pytest.raises(AttributeError, match="has no attribute 'coef_'"):
        _ = AdaGradClassifier().coef_


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
def test_sparse_scores_equal_scipy_and_dense(kind, dtype):
    model, X = _fitted(kind, "dual_averaging", l1=0.01)
    X = X.astype(dtype)
    coef = model.coef_.reshape(-1, X.shape[1])
    # Same floats as scipy (same summation order), and as the dense path.
    scipy_scores = (X @ coef.T + model.intercept_).squeeze()
    np.testing.assert_array_equal(_scores(model, X), scipy_scores)
    np.testing.assert_allclose(
        _scores(model, X.toarray()), scipy_scores, rtol=1e-12, atol=1e-12
    )
    np.testing.assert_array_equal(_scores(model, X.tocoo()), scipy_scores)
    X64 = X.copy()
    X64.indices = X64.indices.astype(np.int64)
    X64.indptr = X64.indptr.astype(np.int64)
    np.testing.assert_array_equal(_scores(model, X64), scipy_scores)


def test_sparse_prediction_does_not_copy_the_weights():
    """One row against a million features: O(row), not O(n_features) memory."""
    n_features = 1_000_000
    X = sp.csr_matrix(
        (np.ones(4), np.array([3, 10, 500_000, 999_999]), np.array([0, 2, 4])),
        shape=(2, n_features),
    )
    model = AdaGradClassifier(loss="log_loss").partial_fit(X, [0, 1], classes=[0, 1])
    model.predict_proba(X[:1])  # compile before measuring
    tracemalloc.start()
    proba = model.predict_proba(X[:1])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # A copy of coef_ would be 8 MB.
    assert peak < 100_000
    expected = 1.0 / (1.0 + np.exp(-model.decision_function(X[:1])))
    np.testing.assert_allclose(proba[:, 1], expected, rtol=1e-15)
