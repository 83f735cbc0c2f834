"""normalize_y: regressors learn the standardized target, so the target's units
decide nothing; coef_, intercept_ and predictions come back in those units."""

import warnings

import numpy as np
import pytest
from estimators import ALGORITHMS, make
from sklearn.datasets import make_regression

REGRESSION_LOSSES = ["squared_error", "huber", "epsilon_insensitive"]


def _problem(seed=0):
    X, y = make_regression(300, 8, noise=5.0, random_state=seed)
    rng = np.random.default_rng(seed)
    X[rng.random(X.shape) < 0.3] = 0.0
    weights = rng.uniform(0.2, 2.0, size=300)
    return X, 40.0 * y + 1e4, weights


@pytest.mark.parametrize("loss", REGRESSION_LOSSES)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_equals_training_on_the_standardized_target(algorithm, loss):
    X, y, weights = _problem()
    offset = np.average(y, weights=weights)
    scale = np.sqrt(np.average((y - offset) ** 2, weights=weights))
    params = dict(loss=loss, epsilon=30.0, max_iter=3, tol=None, random_state=0)
    normalized = make(algorithm, "regressor", normalize_y=True, **params)
    normalized.fit(X, y, sample_weight=weights)
    normalized.partial_fit(X[:50], y[:50], sample_weight=weights[:50])
    params["epsilon"] = 30.0 / scale
    plain = make(algorithm, "regressor", normalize_y=False, **params)
    standardized = (y - offset) / scale
    plain.fit(X, standardized, sample_weight=weights)
    plain.partial_fit(X[:50], standardized[:50], sample_weight=weights[:50])
    assert normalized.target_offset_ == pytest.approx(offset, rel=1e-12)
    assert normalized.target_scale_ == pytest.approx(scale, rel=1e-12)
    assert (plain.target_offset_, plain.target_scale_) == (0.0, 1.0)
    np.testing.assert_allclose(normalized.coef_, scale * plain.coef_, rtol=1e-9)
    np.testing.assert_allclose(
        normalized.intercept_, scale * plain.intercept_ + offset, rtol=1e-12
    )
    np.testing.assert_allclose(
        normalized.predict(X), scale * plain.predict(X) + offset, rtol=1e-12
    )


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_defaults_fit_a_target_with_a_large_offset_and_scale(algorithm):
    X, y = make_regression(2000, 20, noise=10.0, random_state=0)
    y = 50.0 * y + 1e4  # std about 8,000 around 10,000
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning
        model = make(algorithm, "regressor", normalize_y=True, random_state=0)
        if algorithm == "ons_sketch":  # the shared instance sketches 3 of 20 dims
            model.set_params(sketch_size=20)
        model.fit(X, y)
    assert model.score(X, y) > 0.99
    # The same model without normalize_y: AdaGrad's R^2 is -0.82 after 1,000
    # passes (the intercept moves about eta per step), so the test can fail.
    if algorithm == "adagrad_md":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raw = make(algorithm, "regressor", normalize_y=False, max_iter=50)
            assert raw.fit(X, y).score(X, y) < 0.5


def test_a_stream_keeps_the_units_of_its_first_batch():
    X, y, _ = _problem()
    model = make("ftrl", "regressor", normalize_y=True)
    model.partial_fit(X[:100], y[:100])
    units = (model.target_offset_, model.target_scale_)
    assert units == (np.mean(y[:100]), np.std(y[:100]))
    model.partial_fit(X[100:], 3.0 * y[100:])
    assert (model.target_offset_, model.target_scale_) == units
    model.set_params(normalize_y=False, warm_start=True).fit(X, y)
    assert (model.target_offset_, model.target_scale_) == units
    model.set_params(warm_start=False).fit(X, y)
    assert (model.target_offset_, model.target_scale_) == (0.0, 1.0)


def test_a_constant_target_has_scale_one():
    X, _, _ = _problem()
    model = make("adagrad_md", "regressor", normalize_y=True)
    model.fit(X, np.full(300, 7.0))
    assert (model.target_offset_, model.target_scale_) == (7.0, 1.0)
    np.testing.assert_allclose(model.predict(X), 7.0)


@pytest.mark.parametrize("algorithm", ["adagrad_md", "ftrl", "ons_diag"])
def test_assigned_weights_are_in_the_targets_units(algorithm):
    X, y, _ = _problem()
    model = make(algorithm, "regressor", normalize_y=True, max_iter=2, tol=None)
    model.fit(X, y)
    coef = np.arange(8.0)
    model.coef_ = coef
    model.intercept_ = np.array([123.0])
    np.testing.assert_allclose(model.coef_, coef)
    np.testing.assert_allclose(model.intercept_, [123.0])
    np.testing.assert_allclose(model.predict(X), X @ coef + 123.0)
    before = model.predict(X)
    model.sparsify()
    np.testing.assert_allclose(model.predict(X), before)
    np.testing.assert_allclose(model.coef_.toarray().ravel(), coef)
