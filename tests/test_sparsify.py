"""sparsify() / densify(): a small model to store and serve, for every estimator."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from estimators import make, state_of
from sklearn.exceptions import NotFittedError

from sk_adaprox import progressive_val_predict
from sk_adaprox.datasets import make_rare_features

# Strong enough L1 for each rule to zero most weights of the problem below.
L1 = {"adagrad_md": 1e-2, "adagrad_da": 1e-3, "ftrl": 3.0}
# ONS has no l1 (and full ONS's A^-1 for this problem's 4000 features would be
# 128 MB): its sparsify() is tested in test_ons_behaviour.py.
SPARSE_ALGORITHMS = list(L1)


def _problem(kind):
    X, y = make_rare_features(
        1500, 4000, n_classes=3 if kind == "multiclass" else 2, random_state=0
    )
    if kind == "regressor":
        y = y.astype(float) - 0.5
    return X, y


def _fitted(algorithm, kind):
    X, y = _problem(kind)
    model = make(
        algorithm, kind, l1=L1[algorithm], max_iter=3, tol=None, random_state=0
    )
    return model.fit(X, y), X, y


def _outputs(model, X):
    if hasattr(model, "predict_proba"):
        return model.decision_function(X), model.predict(X), model.predict_proba(X)
    return (model.predict(X),)


@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
@pytest.mark.parametrize("algorithm", SPARSE_ALGORITHMS)
def test_sparsified_model_predicts_the_same_from_less(algorithm, kind):
    model, X, _ = _fitted(algorithm, kind)
    dense_coef = np.atleast_2d(model.coef_).copy()
    before = _outputs(model, X)
    size_before = len(pickle.dumps(model))
    assert np.count_nonzero(dense_coef) < 0.5 * dense_coef.size

    assert model.sparsify() is model
    assert sp.issparse(model.coef_) and model.coef_.format == "csr"
    assert model.coef_.shape == dense_coef.shape
    assert model.coef_.nnz == np.count_nonzero(dense_coef)
    np.testing.assert_array_equal(model.coef_.toarray(), dense_coef)
    for input_X in (X, X.toarray()):
        for got, expected in zip(_outputs(model, input_X), before, strict=True):
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    # The pickle keeps the non-zero weights, not the accumulators and zeros.
    assert len(pickle.dumps(model)) < 0.5 * size_before
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(_outputs(restored, X)[0], before[0])


@pytest.mark.parametrize("algorithm", SPARSE_ALGORITHMS)
def test_training_state_is_gone_and_training_cannot_continue(algorithm):
    model, X, y = _fitted(algorithm, "binary")
    accumulators = [
        name for name in state_of(model) if name not in ("coef_", "intercept_")
    ]
    model.sparsify()
    for name in accumulators:
        with pytest.raises(AttributeError, match="sparsify"):
            getattr(model, name)
    served = model.coef_.copy()
    with pytest.raises(ValueError, match="sparsified"):
        model.partial_fit(X[:10], y[:10])
    with pytest.raises(ValueError, match="sparsified"):
        progressive_val_predict(model, X[:10], y[:10])
    model.set_params(warm_start=True)
    with pytest.raises(ValueError, match="sparsified"):
        model.fit(X, y)
    assert (model.coef_ != served).nnz == 0  # the rejected calls changed nothing
    with pytest.raises(AttributeError, match="sparsify"):
        model.coef_ = served.toarray()

    # fit without warm start trains a new model with its whole state.
    model.set_params(warm_start=False, max_iter=1)
    model.fit(X, y)
    assert isinstance(model.coef_, np.ndarray)
    assert all(isinstance(v, np.ndarray) for v in state_of(model).values())


@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
def test_densify_gives_back_sklearn_shapes(kind):
    model, X, _ = _fitted("ftrl", kind)
    dense_coef = model.coef_.copy()
    before = _outputs(model, X)[0]
    model.sparsify().densify()
    assert isinstance(model.coef_, np.ndarray)
    assert model.coef_.shape == dense_coef.shape
    np.testing.assert_array_equal(model.coef_, dense_coef)
    np.testing.assert_allclose(_outputs(model, X)[0], before, rtol=1e-12, atol=1e-12)
    # sparsify again after densify, and densify on a model never sparsified.
    assert sp.issparse(model.sparsify().coef_)
    fresh, _, _ = _fitted("ftrl", kind)
    coef = fresh.coef_
    assert fresh.densify() is fresh
    assert np.shares_memory(fresh.coef_, coef)  # still the view of the state
    assert np.shares_memory(fresh.coef_, fresh._state)


def test_unfitted_model_cannot_be_sparsified():
    with pytest.raises(NotFittedError):
        make("ftrl", "binary").sparsify()
    with pytest.raises(NotFittedError):
        make("adagrad_md", "regressor").densify()
