"""Training that blows up stops before the bad row, names it, and keeps finite state."""

import numpy as np
import pytest
import scipy.sparse as sp
from reference_adagrad import STATE_KEYS, reference_adagrad

from sk_adaprox import AdaGradClassifier, AdaGradRegressor

# Row 2 (the third) has a feature value so large that its score overflows.
X_OVERFLOWING_SCORE = sp.csr_matrix(
    np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1e300, 0.0, 0.0], [1.0, 0.0, 0.0]])
)


def _state(estimator):
    """The fitted state attributes the estimator has (dual averaging has two more)."""
    names = (f"{key}_" for key in STATE_KEYS)
    return {
        name: getattr(estimator, name) for name in names if hasattr(estimator, name)
    }


def _all_state_finite(estimator):
    state = _state(estimator)
    assert "coef_" in state and "sum_sq_grad_" in state
    return all(np.isfinite(value).all() for value in state.values())


@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
def test_nonfinite_score_stops_before_the_row(update):
    y = np.array([1.0, 2.0, 1.0, 0.5])
    # l1 alone keeps |w| near eta (l2 would shrink it) and exercises the lazy path.
    params = dict(loss="squared_error", update=update, eta=1e10, delta=0.0, l1=1e-3)
    params["l2"] = 0.0
    reg = AdaGradRegressor(**params, shuffle=False, max_iter=1, tol=None)
    with pytest.raises(ValueError, match=r"diverged at row 2 .*score.*smaller eta"):
        reg.fit(X_OVERFLOWING_SCORE, y)
    assert _all_state_finite(reg)
    assert reg.t_ == 2
    # The model is exactly the one trained on the rows before the failing row,
    # lazily-regularised features brought up to date once (not twice).
    expected, _ = reference_adagrad(
        X_OVERFLOWING_SCORE[:2].toarray(),
        y[:2],
        np.ones(2),
        n_outputs=1,
        fit_intercept=True,
        **params,
    )
    np.testing.assert_allclose(reg.coef_, expected["coef"][0], rtol=1e-12)
    np.testing.assert_allclose(reg.intercept_, expected["intercept"], rtol=1e-12)


@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
def test_nonfinite_update_is_not_applied(update):
    # y = 1e200: the score is 0 but the squared gradient overflows.
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 1e200])
    reg = AdaGradRegressor(update=update, shuffle=False, max_iter=1, tol=None)
    reg.fit(X[:2], y[:2])
    before = {name: np.copy(value) for name, value in _state(reg).items()}
    with pytest.raises(ValueError, match=r"diverged at row 0 .*update is not finite"):
        reg.partial_fit(X[2:], y[2:])
    assert _all_state_finite(reg)
    assert set(_state(reg)) == set(before)
    for name, value in _state(reg).items():
        np.testing.assert_array_equal(value, before[name])
    assert reg.t_ == 2


def test_classifier_divergence_names_the_row_of_a_shuffled_pass():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 2, 40)
    weights = np.ones(40)
    weights[23] = 1e300  # the gradient of row 23 overflows, whenever it is visited
    clf = AdaGradClassifier(loss="hinge", random_state=0, max_iter=3)
    with pytest.raises(ValueError, match=r"diverged at row 23 "):
        clf.fit(X * 1e10, y, sample_weight=weights)
    assert _all_state_finite(clf)


def test_unscaled_squared_error_with_huge_eta_raises_instead_of_nan():
    rng = np.random.default_rng(1)
    X = rng.normal(scale=1e150, size=(200, 5))
    y = X @ rng.normal(size=5)
    with pytest.raises(ValueError, match="scale the features"):
        AdaGradRegressor(eta=1e100, random_state=0).fit(X, y)


@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
def test_huge_but_finite_rows_are_checked_then_applied(update):
    # Gradients near 1e150 are beyond the cheap per-row bound, so each such row is
    # dry-run first; being finite, it must then be applied exactly as the reference.
    X = np.array([[1e150, 0.0], [0.0, 3.0], [2e150, 1.0], [0.0, 0.0]])
    y = np.array([1.0, 0.0, 1.0, 0.0])
    params = dict(loss="log_loss", update=update, eta=0.1, delta=0.1, l1=0.0, l2=1e-3)
    clf = AdaGradClassifier(**params, shuffle=False, max_iter=1, tol=None).fit(X, y)
    expected, _ = reference_adagrad(
        X,
        np.where(y == 1, 1.0, -1.0),
        np.ones(4),
        n_outputs=1,
        fit_intercept=True,
        **params,
    )
    np.testing.assert_allclose(clf.coef_, expected["coef"], rtol=1e-12)
    np.testing.assert_allclose(clf.sum_sq_grad_, expected["sum_sq_grad"], rtol=1e-12)
    assert clf.sum_sq_grad_[0, 0] > 1e299
