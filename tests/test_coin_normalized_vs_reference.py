"""Normalised coin betting (``update="normalized"``, the classifier's default)
against its literal reference (``reference_normalized_coin`` in
tests/reference_coin.py), the reference against hand-computed rounds, and the
rule's properties.

The grid: every loss x fit_intercept x K in {1, 3} outputs x sparse/dense input x
sample and class weights over shuffled passes of ``fit``, and ``partial_fit``
chunks with a change of ``initial_wealth`` between calls; then random problems, the
pass loss, the recorded scores and the served weights."""

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from problems import epoch_orders, run_one_pass, sparse_problem
from reference_coin import (
    mean_norm,
    normalized_bet,
    normalized_coef,
    reference_normalized_coin,
)
from test_coin_vs_reference import (
    CLASSIFIER_LOSSES,
    REGRESSOR_LOSSES,
    _classification,
    _weights,
)

from sk_adaprox import CoinBettingClassifier, CoinBettingRegressor
from sk_adaprox._kernels import coin as coin_kernels
from sk_adaprox._kernels.common import STATUS_OK

RTOL = 1e-10


def _assert_matches(estimator, expected, initial_wealth):
    """The estimator's accumulators, N and served weights equal the reference's."""
    pairs = {
        "theta": ("sum_neg_grad_", "intercept_sum_neg_grad_"),
        "G": ("sum_abs_grad_", "intercept_sum_abs_grad_"),
        "R": ("reward_", "intercept_reward_"),
        "M": ("max_abs_x_", "intercept_max_abs_x_"),
        "D": ("max_abs_dloss_", "intercept_max_abs_dloss_"),
    }
    for key, (name, intercept_name) in pairs.items():
        actual = np.column_stack(
            [
                np.atleast_2d(getattr(estimator, name)),
                getattr(estimator, intercept_name),
            ]
        )
        scale = max(1.0, float(np.abs(expected[key]).max()))
        np.testing.assert_allclose(
            actual, expected[key], rtol=RTOL, atol=RTOL * scale, err_msg=key
        )
    assert estimator._mean_row_norm() == pytest.approx(
        mean_norm(expected["norms"]), rel=1e-12
    )
    coef, intercept = normalized_coef(expected, initial_wealth)
    scale = max(1.0, float(np.abs(coef).max()))
    np.testing.assert_allclose(
        np.atleast_2d(estimator.coef_), coef, rtol=RTOL, atol=RTOL * scale
    )
    np.testing.assert_allclose(
        estimator.intercept_, intercept, rtol=RTOL, atol=RTOL * scale
    )


# -- the reference itself --------------------------------------------------------


def test_hand_computed_rows_of_the_reference():
    # One output, log loss, initial wealth 4, intercept: x = (2, 0), y = +1, then
    # x = (0.5, 1), y = -1.
    X = np.array([[2.0, 0.0], [0.5, 1.0]])
    targets, weights = np.array([1.0, -1.0]), np.ones(2)
    run = {"n_outputs": 1, "loss": "log_loss", "initial_wealth": 4.0}
    state, loss_sum, scores = reference_normalized_coin(
        X, targets, weights, fit_intercept=True, order=[0], **run
    )
    # Round 1: every bet is 0, score 0, d = -1/2 (D becomes max(1/2, 1) = 1).
    # Row norm: (2/2)^2 + (1/1)^2 = 2. Feature 0: M = 2, scale 2, bet 0,
    # g = -1: theta = 1, G = 1, R = 0. Intercept: M = 1, g = -1/2.
    assert scores[0, 0] == 0.0 and loss_sum == pytest.approx(math.log(2.0))
    np.testing.assert_array_equal(state["M"], [[2.0, 0.0, 1.0]])
    np.testing.assert_array_equal(state["D"], [[1.0, 0.0, 1.0]])
    np.testing.assert_array_equal(state["theta"], [[1.0, 0.0, 0.5]])
    assert state["norms"] == [(1.0, 2.0)]
    # Served: feature 0's bet 1 * 4 / (2 * 3) = 2/3, intercept 0.5 * 4 / (1 * 1.5)
    # = 4/3, both over N = 2 + 1e-6.
    coef, intercept = normalized_coef(state, 4.0)
    N = 2.0 + 1e-6
    np.testing.assert_allclose(coef, [[2 / 3 / N, 0.0]])
    np.testing.assert_allclose(intercept, [4 / 3 / N])
    # Round 2 is scored by the served model: (0.5 * 2/3 + 0 + 4/3) / N (feature
    # 1 bets 0, no gradient yet). Its row norm is (0.5/2)^2 + 1 + 1 = 2.0625.
    state, _, scores = reference_normalized_coin(
        X, targets, weights, fit_intercept=True, order=[1], state=state, **run
    )
    p = 0.5 * coef[0, 0] + intercept[0]
    assert scores[0, 0] == pytest.approx((0.5 * 2 / 3 + 4 / 3) / N)
    assert scores[0, 0] == pytest.approx(p, rel=1e-15)
    assert state["norms"] == [(1.0, 2.0), (1.0, 2.0625)]
    d = 1.0 / (1.0 + math.exp(-p))  # y = -1: dl/dp = sigmoid(p)
    # Feature 0 plays bet 2/3 (scale 2): g = d / 2, R = -g * 2/3.
    assert state["R"][0, 0] == pytest.approx(-d / 2 * 2 / 3)
    assert state["theta"][0, 0] == pytest.approx(1.0 - d / 2)
    # Feature 1 plays bet 0: R stays 0, theta = -d.
    assert state["R"][0, 1] == 0.0 and state["theta"][0, 1] == pytest.approx(-d)


def test_reference_wealth_stays_positive():
    """|g| <= scale, so no round loses more than the whole wealth."""
    rng = np.random.default_rng(0)
    X = sp.random(200, 6, density=0.5, random_state=0, format="csr")
    X.data = rng.normal(size=X.data.shape) * 10
    targets = np.where(rng.random(200) < 0.5, 1.0, -1.0)
    state, _, _ = reference_normalized_coin(
        X,
        targets,
        rng.uniform(0.1, 5.0, 200),
        n_outputs=1,
        loss="squared_hinge",
        initial_wealth=0.5,
        fit_intercept=True,
        order=np.concatenate([np.arange(200)] * 3),
    )
    assert np.all(0.5 + state["R"] > 0.0)
    assert np.all(np.abs(state["theta"]) <= state["G"] + 1e-12)


# -- estimators against the reference --------------------------------------------


@pytest.mark.parametrize("weighting", ["sample", "class", "both"])
@pytest.mark.parametrize("sparse", [True, False])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("loss", CLASSIFIER_LOSSES)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_shuffled_fit_matches_reference(
    n_classes, loss, fit_intercept, sparse, weighting
):
    X, y, targets, n_outputs = _classification(n_classes, seed=0)
    sample_weight, class_weight, row_weights = _weights(weighting, y, seed=1)
    clf = CoinBettingClassifier(
        loss=loss,
        initial_wealth=2.0,
        fit_intercept=fit_intercept,
        class_weight=class_weight,
        max_iter=3,
        tol=None,
        random_state=7,
    ).fit(X if sparse else X.toarray(), y, sample_weight=sample_weight)
    order = epoch_orders(X.shape[0], 3, shuffle=True, random_state=7)
    expected, _, _ = reference_normalized_coin(
        X,
        targets,
        row_weights,
        n_outputs=n_outputs,
        loss=loss,
        initial_wealth=2.0,
        fit_intercept=fit_intercept,
        order=order,
    )
    assert clf.t_ == order.shape[0]
    _assert_matches(clf, expected, 2.0)
    if not fit_intercept:
        assert not np.any(clf.intercept_) and not np.any(clf.intercept_max_abs_x_)


@pytest.mark.parametrize("sparse", [True, False])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("loss", REGRESSOR_LOSSES)
def test_regressor_matches_reference(loss, fit_intercept, sparse):
    X = sparse_problem(seed=2)
    rng = np.random.default_rng(3)
    y = X @ rng.normal(size=X.shape[1]) + 0.3 * rng.normal(size=X.shape[0]) + 0.5
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    reg = CoinBettingRegressor(
        update="normalized",
        loss=loss,
        normalize_y=False,
        epsilon=0.25,
        fit_intercept=fit_intercept,
        max_iter=2,
        tol=None,
        random_state=3,
    ).fit(X if sparse else X.toarray(), y, sample_weight=sample_weight)
    expected, _, _ = reference_normalized_coin(
        X,
        y,
        sample_weight,
        n_outputs=1,
        loss=loss,
        initial_wealth=4.0,
        fit_intercept=fit_intercept,
        epsilon=0.25,
        order=epoch_orders(X.shape[0], 2, shuffle=True, random_state=3),
    )
    _assert_matches(reg, expected, 4.0)


@pytest.mark.parametrize("sparse", [True, False])
@pytest.mark.parametrize("loss", ["log_loss", "modified_huber", "squared_error"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_partial_fit_chunks_and_wealth_changes_match_reference(n_classes, loss, sparse):
    X, y, targets, n_outputs = _classification(n_classes, seed=4)
    sample_weight, class_weight, row_weights = _weights("both", y, seed=5)
    clf = CoinBettingClassifier(loss=loss, class_weight=class_weight)
    data = X if sparse else X.toarray()
    state = None
    chunks = [(0, 1), (1, 7), (7, 30), (30, 31), (31, 50)]
    for number, (start, stop) in enumerate(chunks):
        rows = slice(start, stop)
        wealth = [4.0, 4.0, 1.0, 1.0, 30.0][number]  # set_params between calls
        clf.set_params(initial_wealth=wealth)
        clf.partial_fit(
            data[rows],
            y[rows],
            classes=np.arange(n_classes),
            sample_weight=sample_weight[rows],
        )
        state, _, _ = reference_normalized_coin(
            X[rows],
            targets[rows],
            row_weights[rows],
            n_outputs=n_outputs,
            loss=loss,
            initial_wealth=wealth,
            fit_intercept=True,
            state=state,
        )
        _assert_matches(clf, state, wealth)
    assert clf.t_ == X.shape[0]


@settings(max_examples=40, deadline=None)
@given(
    n_samples=st.integers(1, 25),
    n_features=st.integers(1, 12),
    density=st.floats(0.0, 1.0),
    initial_wealth=st.floats(0.01, 100.0),
    scale=st.sampled_from([1e-3, 1.0, 100.0]),
    # Not hinge: its derivative jumps at margin 1, where the kernel's grouping of
    # the bet and the literal product round differently (the grid covers hinge).
    loss=st.sampled_from([loss for loss in CLASSIFIER_LOSSES if loss != "hinge"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_problems_match_reference(
    n_samples, n_features, density, initial_wealth, scale, loss, seed
):
    """Random shapes, densities, scales, initial wealths and row weights (zeros
    among them), three passes in the same order."""
    rng = np.random.default_rng(seed)
    dense = scale * rng.normal(size=(n_samples, n_features))
    dense *= rng.random((n_samples, n_features)) < density
    targets = np.where(rng.random(n_samples) < 0.5, 1.0, -1.0)
    row_weights = rng.uniform(0.0, 2.0, n_samples)
    row_weights[rng.random(n_samples) < 0.2] = 0.0
    clf = CoinBettingClassifier(loss=loss, initial_wealth=initial_wealth)
    order = np.concatenate([np.arange(n_samples)] * 3)
    _, rows_done, status = run_one_pass(
        clf, sp.csr_matrix(dense), targets, row_weights, order
    )
    assert (rows_done, status) == (order.shape[0], STATUS_OK)
    expected, _, _ = reference_normalized_coin(
        dense,
        targets,
        row_weights,
        n_outputs=1,
        loss=loss,
        initial_wealth=initial_wealth,
        fit_intercept=True,
        order=order,
    )
    _assert_matches(clf, expected, initial_wealth)


def test_pass_loss_and_recorded_scores_are_the_reference_ones():
    """The pass loss is the weighted pre-update loss, and ``row_scores[pos]`` the
    K scores of the row visited at ``pos`` by the served model before it."""
    X, y, targets, _ = _classification(3, seed=8)
    row_weights = np.random.default_rng(8).uniform(0.5, 1.5, X.shape[0])
    clf = CoinBettingClassifier(loss="modified_huber", initial_wealth=3.0)
    clf._start_training(X.shape[1], 3)
    clf._sync_parameters()
    order = np.concatenate([np.random.default_rng(8).permutation(X.shape[0])] * 2)
    row_scores = np.full((order.shape[0], 3), np.nan)
    loss_sum, _, _ = clf._run_pass(X, targets, row_weights, order, row_scores)
    _, expected_loss, expected_scores = reference_normalized_coin(
        X,
        targets,
        row_weights,
        n_outputs=3,
        loss="modified_huber",
        initial_wealth=3.0,
        fit_intercept=True,
        order=order,
    )
    assert loss_sum == pytest.approx(expected_loss, rel=1e-12)
    np.testing.assert_allclose(row_scores, expected_scores, rtol=RTOL, atol=1e-14)


# -- the served weights and their bookkeeping --------------------------------------


def test_served_weights_are_the_bets_over_the_mean_row_norm():
    """coef_ divides every bet, untouched coordinates' included, by the current
    N: a call that moves N changes the weights of features it never saw."""
    X, y, _, _ = _classification(2, seed=9)
    clf = CoinBettingClassifier().partial_fit(X[:25], y[:25], classes=[0, 1])
    before, N_before = clf.coef_.copy(), clf._mean_row_norm()
    clf.partial_fit(X[25:], y[25:])
    untouched = np.setdiff1d(np.arange(X.shape[1]), X[25:].indices)
    assert untouched.size > 0 and clf._mean_row_norm() != N_before
    np.testing.assert_allclose(
        clf.coef_[:, untouched],
        before[:, untouched] * N_before / clf._mean_row_norm(),
        rtol=1e-12,
    )
    # Predictions are the served linear model, sparse or dense, and sparsify
    # keeps them.
    X_test = X[:10]
    expected = X_test @ clf.coef_.ravel() + clf.intercept_
    np.testing.assert_allclose(clf.decision_function(X_test), expected, rtol=1e-12)
    np.testing.assert_allclose(
        clf.decision_function(X_test.toarray()), expected, rtol=1e-12
    )
    np.testing.assert_allclose(
        pickle.loads(pickle.dumps(clf)).sparsify().decision_function(X_test),
        expected,
        rtol=1e-12,
    )


def test_a_row_of_weight_zero_changes_nothing():
    X, y, _, _ = _classification(2, seed=10)
    weights = np.ones(X.shape[0])
    weights[10:20] = 0.0
    with_zeros = CoinBettingClassifier(max_iter=2, tol=None, random_state=0)
    with_zeros.fit(X, y, sample_weight=weights)
    kept = np.r_[0:10, 20 : X.shape[0]]
    without = CoinBettingClassifier().partial_fit(X[kept], y[kept], classes=[0, 1])
    once = CoinBettingClassifier().partial_fit(
        X, y, classes=[0, 1], sample_weight=weights
    )
    np.testing.assert_array_equal(once.coef_, without.coef_)
    np.testing.assert_array_equal(
        once._training.extras["row_norms"], without._training.extras["row_norms"]
    )
    assert with_zeros.t_ == 2 * X.shape[0]


def test_kernel_bet_is_grouped_against_overflow():
    # theta = 3, G = 5, R = 1, scale 2, wealth 4: 3 * 5 / (2 * 7) = 15 / 14.
    assert coin_kernels.normalized_bet(3.0, 5.0, 1.0, 2.0, 4.0) == pytest.approx(
        15 / 14
    )
    assert coin_kernels.normalized_bet(3.0, 5.0, 1.0, 2.0, 4.0) == pytest.approx(
        normalized_bet(3.0, 5.0, 1.0, 2.0, 4.0), rel=1e-15
    )
    assert coin_kernels.normalized_bet(1.0, 1.0, 0.0, 0.0, 4.0) == 0.0
    big = 1e300
    assert math.isfinite(coin_kernels.normalized_bet(big, big, big, 1.0, 4.0))


def test_changing_the_rule_between_calls_is_refused():
    X, y, _, _ = _classification(2, seed=11)
    clf = CoinBettingClassifier().partial_fit(X, y, classes=[0, 1])
    coef = clf.coef_.copy()
    with pytest.raises(ValueError, match="other update rule"):
        clf.set_params(update="cocob").partial_fit(X, y)
    np.testing.assert_array_equal(clf.set_params(update="normalized").coef_, coef)
    assert not hasattr(clf, "max_abs_grad_")
    assert hasattr(CoinBettingClassifier(update="cocob").fit(X, y), "max_abs_grad_")
