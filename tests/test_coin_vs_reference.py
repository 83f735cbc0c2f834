"""Coin-betting estimators against the literal §5 reference (tests/reference_coin.py),
and the reference itself against hand-computed rounds."""

import math

import numpy as np
import pytest
from problems import epoch_orders, sparse_problem
from reference_coin import coin_round, rebet, reference_coin

from sk_adaprox import CoinBettingClassifier, CoinBettingRegressor

RTOL = 1e-10
CLASSIFIER_LOSSES = ["log_loss", "hinge", "squared_hinge", "modified_huber"]
REGRESSOR_LOSSES = ["squared_error", "huber", "epsilon_insensitive"]


def _state_of(estimator):
    return {
        "coef": np.atleast_2d(estimator.coef_),
        "intercept": estimator.intercept_,
        "theta": np.atleast_2d(estimator.sum_neg_grad_),
        "G": np.atleast_2d(estimator.sum_abs_grad_),
        "L": np.atleast_2d(estimator.max_abs_grad_),
        "R": np.atleast_2d(estimator.reward_),
        "intercept_theta": estimator.intercept_sum_neg_grad_,
        "intercept_G": estimator.intercept_sum_abs_grad_,
        "intercept_L": estimator.intercept_max_abs_grad_,
        "intercept_R": estimator.intercept_reward_,
    }


def _assert_same_state(estimator, expected):
    for key, value in _state_of(estimator).items():
        scale = max(1.0, float(np.abs(expected[key]).max()))
        np.testing.assert_allclose(
            value, expected[key], rtol=RTOL, atol=RTOL * scale, err_msg=key
        )


def test_hand_computed_rounds():
    # alpha = 2; gradients 0.5, then -1.0, then 0 (no change).
    w, theta, G, L, R = coin_round(0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 2.0)
    # L = 0.5, theta = -0.5, G = 0.5, R = max(0 - 0.5 * 0, 0) = 0,
    # w = -0.5 / (0.5 * max(1.0, 1.0)) * (0.5 + 0) = -0.5
    assert (L, theta, G, R) == (0.5, -0.5, 0.5, 0.0)
    assert w == pytest.approx(-0.5)
    w, theta, G, L, R = coin_round(w, theta, G, L, R, -1.0, 2.0)
    # L = 1, theta = 0.5, G = 1.5, R = max(0 - (-1)(-0.5), 0) = 0,
    # w = 0.5 / (1 * max(2.5, 2)) * (1 + 0) = 0.2
    assert (L, theta, G, R) == (1.0, 0.5, 1.5, 0.0)
    assert w == pytest.approx(0.2)
    w2, theta2, G2, L2, R2 = coin_round(w, theta, G, L, R, -1.0, 2.0)
    # R = max(0 - (-1)(0.2), 0) = 0.2; theta = 1.5; G = 2.5;
    # w = 1.5 / (1 * max(3.5, 2)) * 1.2
    assert R2 == pytest.approx(0.2)
    assert w2 == pytest.approx(1.5 / 3.5 * 1.2)
    assert coin_round(w2, theta2, G2, L2, R2, 0.0, 2.0) == (w2, theta2, G2, L2, R2)


def test_reference_bets_are_bounded_by_the_wealth():
    rng = np.random.default_rng(0)
    w = theta = G = L = R = 0.0
    for g in rng.normal(size=500) * rng.uniform(0.1, 3, 500):
        w, theta, G, L, R = coin_round(w, theta, G, L, R, g, 100.0)
        assert abs(theta) <= G + 1e-12 and R >= 0.0
        assert abs(w) <= (L + R) / L * (1 + 1e-12)
        assert math.isfinite(w)


@pytest.mark.parametrize("sparse", [True, False])
@pytest.mark.parametrize("loss", CLASSIFIER_LOSSES)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_matches_reference(loss, n_classes, sparse):
    X = sparse_problem()
    rng = np.random.default_rng(1)
    y = rng.integers(0, n_classes, X.shape[0])
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    sample_weight[5] = 0.0  # a zero-weight row is still a round
    clf = CoinBettingClassifier(
        loss=loss, alpha=20.0, max_iter=3, tol=None, shuffle=True, random_state=7
    ).fit(X if sparse else X.toarray(), y, sample_weight=sample_weight)
    n_outputs = 1 if n_classes == 2 else n_classes
    targets = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y.astype(float)
    order = epoch_orders(X.shape[0], 3, shuffle=True, random_state=7)
    expected, _ = reference_coin(
        X,
        targets,
        sample_weight,
        n_outputs=n_outputs,
        loss=loss,
        alpha=20.0,
        fit_intercept=True,
        order=order,
    )
    assert clf.t_ == order.shape[0]
    _assert_same_state(clf, expected)


@pytest.mark.parametrize("loss", REGRESSOR_LOSSES)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_regressor_matches_reference(loss, fit_intercept):
    X = sparse_problem(seed=2)
    rng = np.random.default_rng(3)
    y = X @ rng.normal(size=X.shape[1]) + 0.3 * rng.normal(size=X.shape[0]) + 0.5
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    reg = CoinBettingRegressor(
        loss=loss,
        normalize_y=False,
        epsilon=0.25,
        alpha=50.0,
        fit_intercept=fit_intercept,
        max_iter=2,
        tol=None,
        shuffle=False,
    ).fit(X, y, sample_weight=sample_weight)
    expected, _ = reference_coin(
        X,
        y,
        sample_weight,
        n_outputs=1,
        loss=loss,
        alpha=50.0,
        fit_intercept=fit_intercept,
        epsilon=0.25,
        order=np.tile(np.arange(X.shape[0]), 2),
    )
    _assert_same_state(reg, expected)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_partial_fit_chunks_and_alpha_changes_match_reference(n_classes):
    X = sparse_problem(seed=4)
    rng = np.random.default_rng(5)
    y = rng.integers(0, n_classes, X.shape[0])
    targets = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y.astype(float)
    n_outputs = 1 if n_classes == 2 else n_classes
    clf = CoinBettingClassifier(alpha=10.0)
    state = None
    chunks = [slice(0, 7), slice(7, 30), slice(30, 50)]
    for number, rows in enumerate(chunks):
        alpha = 10.0 if number < 2 else 3.0  # a set_params between calls
        clf.set_params(alpha=alpha)
        clf.partial_fit(X[rows], y[rows], classes=np.arange(n_classes))
        if state is not None:
            state = rebet(state, alpha)  # a new alpha recomputes every bet
        state, _ = reference_coin(
            X[rows],
            targets[rows],
            np.ones(rows.stop - rows.start),
            n_outputs=n_outputs,
            loss="log_loss",
            alpha=alpha,
            fit_intercept=True,
            state=state,
        )
        _assert_same_state(clf, state)
    assert clf.t_ == X.shape[0]
