"""Training that blows up stops before the bad row, names it, and keeps finite state.

Every algorithm in ``estimators.ALGORITHMS``: the error names the algorithm's
step-size parameter (``eta``, ``alpha`` or ``gamma``), and the state kept is compared
with the algorithm's literal reference (``reference_adagrad`` or ``reference_ftrl``;
ONS's in ``test_ons_behaviour.py``).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from estimators import ALGORITHMS, make, state_of
from reference_adagrad import reference_adagrad
from reference_ftrl import reference_ftrl

# Row 2 (the third) has a feature value so large that its score overflows.
X_OVERFLOWING_SCORE = sp.csr_matrix(
    np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1e300, 0.0, 0.0], [1.0, 0.0, 0.0]])
)
# What each algorithm adds to the root of the summed squared gradients.
DAMPING = {name: spec.damping for name, spec in ALGORITHMS.items()}
# The algorithms whose updates square gradients and scale steps by a learning rate,
# which the overflow tests below provoke. Coin betting does neither (its bets are
# bounded by its wealth, and a larger alpha only makes them smaller); its own test
# overflows a gradient instead.
SQUARING = [name for name in ALGORITHMS if not name.startswith("coin")]
# The running sum of squared gradients (G of AdaGrad, n of FTRL).
SUM_SQ_GRAD = {"adagrad_md": "sum_sq_grad_", "adagrad_da": "sum_sq_grad_", "ftrl": "n_"}


def _params(algorithm, step_size, damping, **params):
    """Estimator parameters of ``algorithm``, by the names it uses."""
    params[ALGORITHMS[algorithm].step_size] = step_size
    params[DAMPING[algorithm]] = damping
    return params


def _reference(algorithm, X, targets, row_weights, **params):
    """The algorithm's literal reference on dense X (one output, with intercept):
    its state, with the estimator's attribute names."""
    reference = reference_ftrl if algorithm == "ftrl" else reference_adagrad
    state, _ = reference(
        X,
        targets,
        row_weights,
        n_outputs=1,
        fit_intercept=True,
        **ALGORITHMS[algorithm].params,
        **params,
    )
    return {f"{key}_": value for key, value in state.items()}


def _assert_state_is_reference(estimator, expected, rtol=1e-12):
    """Every state attribute of ``estimator`` equals the reference's (whose coef and
    accumulators have a leading axis of one output)."""
    for name, value in state_of(estimator).items():
        e = expected[name]
        np.testing.assert_allclose(
            value, e.reshape(value.shape), rtol=rtol, err_msg=name
        )


def _all_state_finite(estimator):
    """Whether every fitted state attribute (all of them exist) is finite."""
    state = state_of(estimator)
    assert "coef_" in state and len(state) >= 3
    return all(np.isfinite(value).all() for value in state.values())


# The tests of the first-order rules against their references; ONS has its own
# (tests/test_ons_behaviour.py), with its reference and its step parameter, gamma,
# whose steps shrink as it grows.
FIRST_ORDER = [name for name, spec in ALGORITHMS.items() if spec.regularized]


@pytest.mark.parametrize("algorithm", FIRST_ORDER)
def test_nonfinite_score_stops_before_the_row(algorithm):
    y = np.array([1.0, 2.0, 1.0, 0.5])
    # l1 alone keeps |w| near the step size (l2 would shrink it); for AdaGrad's
    # mirror descent it also exercises the lazy path.
    params = _params(algorithm, 1e10, 0.0, loss="squared_error", l1=1e-3, l2=0.0)
    reg = make(
        algorithm,
        "regressor",
        normalize_y=False,
        **params,
        shuffle=False,
        max_iter=1,
        tol=None,
    )
    step = ALGORITHMS[algorithm].step_size
    with pytest.raises(ValueError, match=rf"diverged at row 2 .*score.*smaller {step}"):
        reg.fit(X_OVERFLOWING_SCORE, y)
    assert _all_state_finite(reg)
    assert reg.t_ == 2
    # The model is exactly the one trained on the rows before the failing row,
    # lazily-regularised features brought up to date once (not twice).
    expected = _reference(
        algorithm, X_OVERFLOWING_SCORE[:2].toarray(), y[:2], np.ones(2), **params
    )
    np.testing.assert_allclose(reg.coef_, expected["coef_"][0], rtol=1e-12)
    np.testing.assert_allclose(reg.intercept_, expected["intercept_"], rtol=1e-12)
    _assert_state_is_reference(reg, expected)
    assert np.abs(reg.coef_).max() > 1e9  # the weights were large enough to overflow


@pytest.mark.parametrize("algorithm", SQUARING)
def test_nonfinite_update_is_not_applied(algorithm):
    # y = 1e200: the score is 0 but the squared gradient overflows.
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 1e200])
    reg = make(
        algorithm, "regressor", normalize_y=False, shuffle=False, max_iter=1, tol=None
    )
    reg.fit(X[:2], y[:2])
    before = {name: np.copy(value) for name, value in state_of(reg).items()}
    with pytest.raises(ValueError, match=r"diverged at row 0 .*update is not finite"):
        reg.partial_fit(X[2:], y[2:])
    assert _all_state_finite(reg)
    assert set(state_of(reg)) == set(before)
    for name, value in state_of(reg).items():
        np.testing.assert_array_equal(value, before[name])
    assert reg.t_ == 2


def test_ftrl_overflowing_sigma_is_not_applied():
    """sigma = (sqrt(n + g**2) - sqrt(n)) / alpha overflows for a tiny alpha although
    g**2, n and the bound |sigma * w| <= |g| |w| / alpha are all finite: row 2's
    gradient of about 1e9 gives sigma ~ 1e9 / 1e-300 = inf, and z = z + g - sigma * w
    is -inf (sigma * w with w != 0, features 0, 1 and the intercept) or NaN (inf * 0,
    feature 2, never seen before). The row must be refused, not applied."""
    X = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    y = np.array([1.0, -1.0, 1e9, 0.5])
    params = dict(loss="squared_error", alpha=1e-300, beta=1.0, l1=0.0, l2=0.0)
    reg = make(
        "ftrl",
        "regressor",
        normalize_y=False,
        **params,
        shuffle=False,
        max_iter=1,
        tol=None,
    )
    with pytest.raises(
        ValueError, match=r"diverged at row 2 .*update is not finite.*alpha"
    ):
        reg.fit(X, y)
    assert _all_state_finite(reg)
    assert reg.t_ == 2
    _assert_state_is_reference(
        reg, _reference("ftrl", X[:2], y[:2], np.ones(2), **params)
    )
    # The same row, fed on its own after the first two, is refused the same way.
    reg = make(
        "ftrl",
        "regressor",
        normalize_y=False,
        **params,
        shuffle=False,
        max_iter=1,
        tol=None,
    )
    reg.fit(X[:2], y[:2])
    before = {name: np.copy(value) for name, value in state_of(reg).items()}
    with pytest.raises(ValueError, match=r"diverged at row 0 .*update is not finite"):
        reg.partial_fit(X[2:], y[2:])
    for name, value in state_of(reg).items():
        np.testing.assert_array_equal(value, before[name])
    assert reg.t_ == 2


@pytest.mark.parametrize("algorithm", SQUARING)
def test_classifier_divergence_names_the_row_of_a_shuffled_pass(algorithm):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 2, 40)
    X *= 1e3
    weights = np.ones(40)
    if ALGORITHMS[algorithm].regularized:
        weights[23] = 1e300  # the gradient of row 23 overflows, whenever it is visited
    else:
        # ONS's weight is an importance weight, whose step stays finite (at most
        # sqrt(s) / (gamma sqrt(eps))); a huge row overflows it instead.
        X[23] *= 1e300
    clf = make(algorithm, "classifier", loss="hinge", random_state=0, max_iter=3)
    with pytest.raises(ValueError, match=r"diverged at row 23 "):
        clf.fit(X, y, sample_weight=weights)
    assert _all_state_finite(clf)


@pytest.mark.parametrize("algorithm", SQUARING)
def test_unscaled_squared_error_with_huge_step_size_raises_instead_of_nan(algorithm):
    rng = np.random.default_rng(1)
    X = rng.normal(scale=1e150, size=(200, 5))
    y = X @ rng.normal(size=5)
    reg = make(
        algorithm, "regressor", normalize_y=False, step_size=1e100, random_state=0
    )
    with pytest.raises(ValueError, match="scale the features"):
        reg.fit(X, y)
    assert _all_state_finite(reg)


@pytest.mark.parametrize("algorithm", FIRST_ORDER)
def test_huge_but_finite_rows_are_checked_then_applied(algorithm):
    # Gradients near 1e150 are beyond the cheap per-row bound, so each such row is
    # dry-run first; being finite, it must then be applied exactly as the reference.
    X = np.array([[1e150, 0.0], [0.0, 3.0], [2e150, 1.0], [0.0, 0.0]])
    y = np.array([1.0, 0.0, 1.0, 0.0])
    params = _params(algorithm, 0.1, 0.1, loss="log_loss", l1=0.0, l2=1e-3)
    clf = make(algorithm, "classifier", **params, shuffle=False, max_iter=1, tol=None)
    clf.fit(X, y)
    expected = _reference(
        algorithm, X, np.where(y == 1, 1.0, -1.0), np.ones(4), **params
    )
    sum_sq_grad = SUM_SQ_GRAD[algorithm]
    np.testing.assert_allclose(clf.coef_, expected["coef_"], rtol=1e-12)
    np.testing.assert_allclose(
        getattr(clf, sum_sq_grad), expected[sum_sq_grad], rtol=1e-12
    )
    _assert_state_is_reference(clf, expected)
    assert getattr(clf, sum_sq_grad)[0, 0] > 1e299
    assert clf.t_ == 4


@pytest.mark.parametrize(
    "algorithm, advice",
    [("coin", "smaller initial_wealth"), ("coin_cocob", "larger alpha")],
)
def test_coin_overflowing_gradient_is_not_applied(algorithm, advice):
    # Row 2's gradient (residual ~1 times x = 1e300 ** 2) overflows to inf.
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1e300, 1e300]])
    y = np.array([1.0, -1.0, 1e300])
    reg = make(algorithm, "regressor", normalize_y=False, shuffle=False, max_iter=1)
    reg.set_params(tol=None).fit(X[:2], y[:2])
    before = {name: np.copy(value) for name, value in state_of(reg).items()}
    with pytest.raises(ValueError, match=rf"diverged at row 0 .*not finite.*{advice}"):
        reg.partial_fit(X[2:], y[2:])
    assert _all_state_finite(reg)
    for name, value in state_of(reg).items():
        np.testing.assert_array_equal(value, before[name])
    assert reg.t_ == 2
