"""The streaming fast path: partial_fit on a fitted model, and the prediction
methods, check CSR / NumPy input themselves and fall back to scikit-learn's
validation on anything else, so every error is scikit-learn's own."""

import numpy as np
import pytest
import scipy.sparse as sp
from estimators import ALGORITHMS, make
from sklearn import config_context

import sk_adaprox._base


def _data(kind, n_samples=40, n_features=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    X[rng.random(X.shape) < 0.6] = 0.0
    if kind == "regressor":
        y = X @ rng.normal(size=n_features)
    else:
        y = rng.integers(0, 3 if kind == "multiclass" else 2, n_samples)
    return sp.csr_matrix(X), y


def _fitted(algorithm, kind):
    X, y = _data(kind)
    model = make(algorithm, kind, l1=0.01, l2=0.01)
    extra = {} if kind == "regressor" else {"classes": np.unique(y)}
    return model.partial_fit(X[:20], y[:20], **extra), X[20:], y[20:]


@pytest.fixture
def no_full_validation(monkeypatch):
    """Make scikit-learn's validation fail loudly if the fast path falls back."""

    def forbidden(*args, **kwargs):
        raise AssertionError("validate_data was called")

    monkeypatch.setattr(sk_adaprox._base, "validate_data", forbidden)


@pytest.mark.parametrize("dense", [False, True])
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_stream_calls_skip_full_validation_and_learn_the_same(
    algorithm, kind, dense, request
):
    fast, X, y = _fitted(algorithm, kind)
    slow, _, _ = _fitted(algorithm, kind)
    X_in = X.toarray() if dense else X
    # The slow twin gets lists: validate_data converts them, the fast path won't.
    slow.partial_fit(X.toarray().tolist(), y.tolist())
    request.getfixturevalue("no_full_validation")
    fast.partial_fit(X_in, y, sample_weight=np.ones(y.shape[0]))
    np.testing.assert_allclose(
        np.atleast_2d(fast.coef_), np.atleast_2d(slow.coef_), rtol=1e-12
    )
    methods = ["predict", "decision_function", "predict_proba", "score"]
    for method in methods:
        if not hasattr(fast, method):
            continue
        args = (X_in, y) if method == "score" else (X_in,)
        getattr(fast, method)(*args)


def _error(call):
    with pytest.raises((ValueError, TypeError)) as error:
        call()
    return type(error.value), str(error.value)


BAD_BATCHES = {
    "nan_in_X": lambda X, y, w: (_with_value(X, np.nan), y, w),
    "inf_in_X": lambda X, y, w: (_with_value(X, np.inf), y, w),
    "wrong_width": lambda X, y, w: (X[:, :-1], y, w),
    "empty": lambda X, y, w: (X[:0], y[:0], w[:0]),
    "short_y": lambda X, y, w: (X, y[:-1], w),
    "negative_weight": lambda X, y, w: (X, y, -w),
    "nan_weight": lambda X, y, w: (X, y, np.r_[np.nan, w[1:]]),
    "short_weight": lambda X, y, w: (X, y, w[:-1]),
    "zero_weights": lambda X, y, w: (X, y, 0.0 * w),
}


def _with_value(X, value):
    X = X.copy()
    X.data[1] = value
    return X


@pytest.mark.parametrize("case", list(BAD_BATCHES))
@pytest.mark.parametrize("kind", ["binary", "regressor"])
@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_bad_batches_raise_what_full_validation_raises(algorithm, kind, case):
    model, X, y = _fitted(algorithm, kind)
    X_bad, y_bad, w_bad = BAD_BATCHES[case](X, y, np.ones(y.shape[0]))
    before = model.coef_.copy(), model.t_
    fast = _error(lambda: model.partial_fit(X_bad, y_bad, sample_weight=w_bad))
    # The same batch as lists never takes the fast path.
    X_list = X_bad.toarray().tolist() if X_bad.shape[0] else X_bad
    slow = _error(
        lambda: model.partial_fit(X_list, y_bad.tolist(), sample_weight=list(w_bad))
    )
    assert fast == slow
    assert np.array_equal(model.coef_, before[0]) and model.t_ == before[1]


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_unseen_label_is_rejected_on_the_fast_path(algorithm, request):
    model, X, y = _fitted(algorithm, "binary")
    request.getfixturevalue("no_full_validation")
    t = model.t_
    with pytest.raises(ValueError, match=r"labels \[7\] that are not in classes_"):
        model.partial_fit(X[:3], np.array([0, 7, 1]))
    assert model.t_ == t


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_prediction_of_bad_input_raises_what_full_validation_raises(algorithm):
    model, X, _ = _fitted(algorithm, "binary")
    for bad in (_with_value(X, np.nan), X[:, :-1]):
        fast = _error(lambda bad=bad: model.predict_proba(bad))
        slow = _error(lambda bad=bad: model.predict_proba(bad.toarray().tolist()))
        assert fast == slow


def test_assume_finite_skips_the_finiteness_check():
    """Under assume_finite the batch is not scanned: an infinite value reaches the
    kernel, whose divergence guard stops before the row (not validation)."""
    model, X, y = _fitted("ftrl", "binary")
    X_bad = _with_value(X, np.inf)
    with pytest.raises(ValueError, match="Input X contains infinity"):
        model.partial_fit(X_bad, y)
    with config_context(assume_finite=True):
        with pytest.raises(ValueError, match="Training diverged at row 0"):
            model.partial_fit(X_bad, y)


@pytest.mark.parametrize("kind", ["binary", "regressor"])
def test_skip_parameter_validation_is_honoured(kind):
    X, y = _data(kind)
    extra = {} if kind == "regressor" else {"classes": [0, 1]}

    def refuse():
        raise AssertionError("parameters validated")

    checked = make("ftrl", kind)
    checked._validate_params = refuse
    with pytest.raises(AssertionError, match="parameters validated"):
        checked.partial_fit(X, y, **extra)
    trusted = make("ftrl", kind)
    trusted._validate_params = refuse
    with config_context(skip_parameter_validation=True):
        trusted.partial_fit(X, y, **extra)
    assert trusted.t_ == X.shape[0]


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_one_dimensional_sparse_array_is_refused_like_full_validation(algorithm):
    model, X, y = _fitted(algorithm, "binary")
    row = sp.csr_array(X[0].toarray()[0])  # a 1-D sparse array
    assert row.ndim == 1
    for call in (lambda: model.predict(row), lambda: model.partial_fit(row, y[:1])):
        with pytest.raises(ValueError, match="Expected 2D"):
            call()
