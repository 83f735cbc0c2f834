"""normalize_y: regressors learn the standardized target, so the target's units
decide nothing; coef_, intercept_ and predictions come back in those units."""

import warnings

import numpy as np
import pytest
from estimators import ALGORITHMS, make
from sklearn.datasets import make_regression

from sk_adaprox import ONSRegressor, progressive_val_predict

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
    assert normalized.target_offset_ == pytest.approx(offset, rel=1e-12)
    assert normalized.target_scale_ == pytest.approx(scale, rel=1e-12)
    # The same units to the last bit, so that the models compare to rounding.
    offset, scale = normalized.target_offset_, normalized.target_scale_
    params["epsilon"] = 30.0 / scale
    plain = make(algorithm, "regressor", normalize_y=False, **params)
    standardized = (y - offset) / scale
    plain.fit(X, standardized, sample_weight=weights)
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


def _running_standardized(y, weights):
    """Each target standardized by the weighted mean and standard deviation of
    the targets up to and including it (scale 1 while they are constant), by a
    literal loop; and the units after the last."""
    standardized = []
    for i in range(y.shape[0]):
        offset = np.average(y[: i + 1], weights=weights[: i + 1])
        deviation = y[: i + 1] - offset
        scale = np.sqrt(np.average(deviation**2, weights=weights[: i + 1]))
        scale = scale if scale > 1e-9 * abs(offset) else 1.0
        standardized.append((y[i] - offset) / scale)
    return np.array(standardized), (offset, scale)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_stream_standardizes_each_row_by_the_running_units(algorithm):
    """A stream learns each row's target standardized by the running units of
    the targets up to it: the same model whether it comes one row at a time or
    in batches, and the one trained on those standardized targets."""
    X, y, weights = _problem()
    params = dict(loss="squared_error")
    cuts = [(0, 1), (1, 2), (2, 50), (50, 300)]
    streams = [make(algorithm, "regressor", normalize_y=True, **params) for _ in "ab"]
    for a, b in cuts:
        streams[0].partial_fit(X[a:b], y[a:b], sample_weight=weights[a:b])
    for i in range(300):
        streams[1].partial_fit(
            X[i : i + 1], y[i : i + 1], sample_weight=weights[i : i + 1]
        )
    standardized, (offset, scale) = _running_standardized(y, weights)
    plain = make(algorithm, "regressor", normalize_y=False, **params)
    for a, b in cuts:
        plain.partial_fit(X[a:b], standardized[a:b], sample_weight=weights[a:b])
    # The units after a row do not depend on how the rows were cut into calls.
    np.testing.assert_array_equal(
        streams[0]._target_moments, streams[1]._target_moments
    )
    np.testing.assert_array_equal(streams[0].coef_, streams[1].coef_)
    for stream in streams:
        assert stream.target_offset_ == pytest.approx(offset, rel=1e-12)
        assert stream.target_scale_ == pytest.approx(scale, rel=1e-9)
        np.testing.assert_allclose(stream.coef_, scale * plain.coef_, rtol=1e-7)
        np.testing.assert_allclose(
            stream.predict(X), scale * plain.predict(X) + offset, rtol=1e-9
        )


def test_progressive_predictions_never_use_the_rows_own_target():
    X, y, _ = _problem()
    predicted = progressive_val_predict(
        make("ftrl", "regressor", normalize_y=True), X, y
    )
    # A new model knows nothing before its first row: it predicts 0 there.
    assert predicted[0] == 0.0
    changed = y.copy()
    changed[100] += 1e6
    again = progressive_val_predict(
        make("ftrl", "regressor", normalize_y=True), X, changed
    )
    np.testing.assert_array_equal(again[:101], predicted[:101])
    assert again[101] != predicted[101]


def test_fit_measures_the_units_and_a_stream_continues_them():
    X, y, _ = _problem()
    model = make("ftrl", "regressor", normalize_y=True, max_iter=5, tol=None)
    model.fit(X[:100], y[:100])
    assert (model.target_offset_, model.target_scale_) == pytest.approx(
        (np.mean(y[:100]), np.std(y[:100])), rel=1e-12
    )
    model.partial_fit(X[100:], y[100:])
    assert (model.target_offset_, model.target_scale_) == pytest.approx(
        (np.mean(y), np.std(y)), rel=1e-12
    )
    units = (model.target_offset_, model.target_scale_)
    model.set_params(normalize_y=False, warm_start=True).fit(X, 3.0 * y)
    assert (model.target_offset_, model.target_scale_) == units
    model.set_params(warm_start=False).fit(X, y)
    assert (model.target_offset_, model.target_scale_) == (0.0, 1.0)
    model.partial_fit(X, 3.0 * y)  # a model started without normalize_y stays raw
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


def test_running_units_keep_their_precision_under_a_large_offset():
    rng = np.random.default_rng(0)
    noise = rng.normal(size=1000)
    weights = rng.uniform(0.0, 2.0, size=1000)
    weights[:3] = 0.0  # rows of weight 0 before the first weighted one
    stream = make("adagrad_md", "regressor", normalize_y=True)
    X = rng.normal(size=(1000, 3))
    for a in range(0, 1000, 7):
        stream.partial_fit(X[a : a + 7], 1e9 + noise[a : a + 7], weights[a : a + 7])
    offset = 1e9 + np.average(noise, weights=weights)
    scale = np.sqrt(np.cov(noise, aweights=weights, bias=True))
    assert stream.target_offset_ == pytest.approx(offset, rel=1e-15)
    assert stream.target_scale_ == pytest.approx(scale, rel=1e-6)
    assert np.isfinite(stream.coef_).all()


def test_a_stream_choosing_among_candidates_counts_every_row_in_its_units():
    """The running units belong to the model, not to a stream's "auto"
    candidates: every call's rows count, whichever candidate is served."""
    X, y, _ = _problem()
    X = np.hstack([X] * 30)  # 240 features: the diagonal, with l1="auto"
    models = [ONSRegressor(), ONSRegressor()]
    for model, size in zip(models, (100, 30), strict=True):
        for a in range(0, 300, size):
            progressive_val_predict(model, X[a : a + size], y[a : a + size])
        assert model._stream_choice is not None  # still choosing (1,000 rows)
        assert model._target_moments[0] == 300.0
        assert model.target_offset_ == pytest.approx(np.mean(y), rel=1e-12)
    np.testing.assert_array_equal(models[0].coef_, models[1].coef_)
