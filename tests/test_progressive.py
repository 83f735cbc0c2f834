"""Progressive validation: predictions made before learning from each row."""

import numpy as np
import pytest
import scipy.sparse as sp
from estimators import ALGORITHMS, make, state_of
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import accuracy_score, roc_auc_score

from sk_adaprox import progressive_val_predict, progressive_val_score

METHODS = {
    "binary": ["predict", "decision_function", "predict_proba", "predict_log_proba"],
    "multiclass": ["predict", "decision_function", "predict_proba"],
    "regressor": ["predict"],
}


def _stream(kind, n_samples=60, n_features=15, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features)).round(2)
    X[rng.random(X.shape) < 0.7] = 0.0
    X[5] = 0.0  # an empty row is a round too
    signal = X @ rng.normal(size=n_features)
    if kind == "regressor":
        return sp.csr_matrix(X), signal + 0.1 * rng.normal(size=n_samples)
    n_classes = 2 if kind == "binary" else 3
    edges = np.quantile(signal, np.arange(1, n_classes) / n_classes)
    return sp.csr_matrix(X), np.searchsorted(edges, signal)


def _loop(model, X, y, method):
    """What a user writes without this function: predict, then learn, row by row
    (``model`` is already fitted)."""
    predictions = []
    for i in range(X.shape[0]):
        predictions.append(getattr(model, method)(X[i]))
        model.partial_fit(X[i], y[i : i + 1])
    return predictions


@pytest.mark.parametrize("kind", list(METHODS))
@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_predictions_equal_an_explicit_predict_then_learn_loop(algorithm, kind):
    X, y = _stream(kind)
    extra = {} if kind == "regressor" else {"classes": np.unique(y)}
    loss = {} if kind == "regressor" else {"loss": "log_loss"}
    params = dict(l1=0.01, l2=0.02, **loss)
    for method in METHODS[kind]:
        # The first row is learned before the loop can predict anything.
        warm = make(algorithm, kind, **params).partial_fit(X[:1], y[:1], **extra)
        looped = make(algorithm, kind, **params).partial_fit(X[:1], y[:1], **extra)
        got = progressive_val_predict(warm, X[1:], y[1:], method=method)
        expected = np.array(_loop(looped, X[1:], y[1:], method))
        expected = expected.reshape(got.shape)
        if method == "predict" and kind != "regressor":
            np.testing.assert_array_equal(got, expected)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
        for name, value in state_of(warm).items():
            np.testing.assert_allclose(
                value, state_of(looped)[name], rtol=1e-12, atol=1e-15, err_msg=name
            )


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_the_model_learns_exactly_what_partial_fit_learns(algorithm):
    X, y = _stream("multiclass", seed=1)
    sample_weight = np.linspace(0.5, 2.0, X.shape[0])
    progressive = make(algorithm, "multiclass", l1=0.01)
    plain = make(algorithm, "multiclass", l1=0.01)
    progressive_val_predict(
        progressive, X, y, classes=[0, 1, 2], sample_weight=sample_weight
    )
    plain.partial_fit(X, y, classes=[0, 1, 2], sample_weight=sample_weight)
    assert progressive.t_ == plain.t_ == X.shape[0]
    for name, value in state_of(progressive).items():
        np.testing.assert_array_equal(value, state_of(plain)[name], err_msg=name)


def test_successive_batches_equal_one_call():
    X, y = _stream("binary", seed=2)
    whole = progressive_val_predict(
        make("ftrl", "binary"), X, y, classes=[0, 1], method="decision_function"
    )
    model = make("ftrl", "binary")
    parts = [
        progressive_val_predict(
            model, X[a:b], y[a:b], classes=[0, 1], method="decision_function"
        )
        for a, b in [(0, 7), (7, 8), (8, 60)]
    ]
    np.testing.assert_array_equal(np.concatenate(parts), whole)


def test_score_applies_the_metric_to_the_progressive_predictions():
    X, y = _stream("binary", seed=3)
    predictions = progressive_val_predict(
        make("adagrad_md", "binary"), X, y, classes=[0, 1], method="decision_function"
    )
    score = progressive_val_score(
        make("adagrad_md", "binary"),
        X,
        y,
        roc_auc_score,
        classes=[0, 1],
        method="decision_function",
    )
    assert score == roc_auc_score(y, predictions)
    accuracy = progressive_val_score(
        make("adagrad_md", "binary"), X, y, accuracy_score, classes=[0, 1]
    )
    assert accuracy == accuracy_score(y, (predictions > 0).astype(int))


def test_errors_name_the_problem():
    X, y = _stream("binary")
    with pytest.raises(TypeError, match="needs an sk_adaprox estimator"):
        progressive_val_predict(SGDClassifier(), X, y)
    with pytest.raises(ValueError, match="method='predict_proba' is not available"):
        progressive_val_predict(
            make("ftrl", "binary", loss="hinge"),
            X,
            y,
            classes=[0, 1],
            method="predict_proba",
        )
    with pytest.raises(ValueError, match="classes must be passed"):
        progressive_val_predict(make("ftrl", "binary"), X, y)
    model = make("ftrl", "regressor")
    with pytest.raises(ValueError, match="classes is for classifiers"):
        progressive_val_predict(model, X, y.astype(float), classes=[0, 1])
    assert not hasattr(model, "t_")
