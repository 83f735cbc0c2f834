"""The compiled FTRL kernel, through the estimators, against the literal non-lazy
reference implementation of ALGORITHMS.md §2 (reference_ftrl.py)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from problems import epoch_orders, run_one_pass, sparse_problem
from reference_ftrl import reference_ftrl

from sk_adaprox import AdaGradClassifier, FTRLClassifier, FTRLRegressor
from sk_adaprox._kernels import ftrl as ftrl_kernels
from sk_adaprox._kernels.common import STATUS_OK

RTOL = 1e-11
CLASSIFIER_LOSSES = [
    "hinge",
    "log_loss",
    "squared_hinge",
    "modified_huber",
    "squared_error",
]
REGRESSOR_LOSSES = ["squared_error", "huber", "epsilon_insensitive"]
REGULARIZATION = {"none": (0.0, 0.0), "l1": (0.3, 0.0), "l2": (0.0, 0.5)}
REGULARIZATION["l1+l2"] = (0.3, 0.5)


def _state_of(estimator):
    """The estimator's state in the reference's (K, d) layout."""
    return {
        "coef": np.atleast_2d(estimator.coef_),
        "intercept": estimator.intercept_,
        "z": np.atleast_2d(estimator.z_),
        "n": np.atleast_2d(estimator.n_),
        "intercept_z": estimator.intercept_z_,
        "intercept_n": estimator.intercept_n_,
    }


def _assert_same_state(estimator, reference_state, rtol=RTOL):
    for key, value in _state_of(estimator).items():
        expected = reference_state[key]
        scale = max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(
            value, expected, rtol=rtol, atol=rtol * scale, err_msg=key
        )


def reference_fit(X, targets, weights, *, n_passes, order, l1, l2, **params):
    """The reference run as ``fit`` runs FTRL: pass p with ``l1`` and ``l2`` times p
    (they weigh the loss summed over the training data, and after p passes z sums
    p passes of it). ``order`` is the concatenation of the passes' orders."""
    state = None
    for number, pass_order in enumerate(np.split(order, n_passes), start=1):
        state, _ = reference_ftrl(
            X,
            targets,
            weights,
            order=pass_order,
            state=state,
            l1=l1 * number,
            l2=l2 * number,
            **params,
        )
    return state


@pytest.mark.parametrize("regularization", list(REGULARIZATION))
@pytest.mark.parametrize("loss", CLASSIFIER_LOSSES)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_matches_reference(loss, regularization, n_classes):
    X = sparse_problem()
    rng = np.random.default_rng(1)
    y = rng.integers(0, n_classes, X.shape[0])
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    sample_weight[5] = 0.0  # a zero-weight row is still a round
    l1, l2 = REGULARIZATION[regularization]
    params = dict(loss=loss, alpha=0.3, beta=0.5, l1=l1, l2=l2)
    clf = FTRLClassifier(
        **params, max_iter=3, tol=None, shuffle=True, random_state=7
    ).fit(X, y, sample_weight=sample_weight)

    n_outputs = 1 if n_classes == 2 else n_classes
    targets = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y.astype(float)
    order = epoch_orders(X.shape[0], 3, shuffle=True, random_state=7)
    expected = reference_fit(
        X.toarray(),
        targets,
        sample_weight,
        n_passes=3,
        n_outputs=n_outputs,
        fit_intercept=True,
        order=order,
        **params,
    )
    assert clf.t_ == order.shape[0]
    _assert_same_state(clf, expected)


@pytest.mark.parametrize("regularization", list(REGULARIZATION))
@pytest.mark.parametrize("loss", REGRESSOR_LOSSES)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_regressor_matches_reference(loss, regularization, fit_intercept):
    X = sparse_problem(seed=2)
    rng = np.random.default_rng(3)
    y = X @ rng.normal(size=X.shape[1]) + 0.3 * rng.normal(size=X.shape[0]) + 0.5
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    l1, l2 = REGULARIZATION[regularization]
    params = dict(loss=loss, alpha=0.2, beta=0.1, l1=l1, l2=l2)
    reg = FTRLRegressor(
        normalize_y=False,
        **params,
        epsilon=0.25,
        fit_intercept=fit_intercept,
        max_iter=2,
        tol=None,
        shuffle=False,
    ).fit(X, y, sample_weight=sample_weight)
    expected = reference_fit(
        X.toarray(),
        y,
        sample_weight,
        n_passes=2,
        n_outputs=1,
        epsilon=0.25,
        fit_intercept=fit_intercept,
        order=epoch_orders(X.shape[0], 2, shuffle=False, random_state=None),
        **params,
    )
    _assert_same_state(reg, expected)
    if not fit_intercept:
        assert reg.intercept_[0] == 0.0
        assert reg.intercept_n_[0] == 0.0


@pytest.mark.parametrize("n_classes", [2, 3])
def test_chunked_partial_fit_matches_reference_after_every_call(n_classes):
    X = sparse_problem(seed=4)
    rng = np.random.default_rng(5)
    y = rng.integers(0, n_classes, X.shape[0])
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    params = dict(loss="log_loss", alpha=0.4, beta=1.0, l1=0.2, l2=0.1)
    clf = FTRLClassifier(**params)
    targets = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y.astype(float)
    n_outputs = 1 if n_classes == 2 else n_classes
    expected = None
    for start, stop in [(0, 1), (1, 13), (13, 14), (14, 40), (40, 50)]:
        rows = slice(start, stop)
        clf.partial_fit(
            X[rows],
            y[rows],
            classes=np.arange(n_classes),
            sample_weight=sample_weight[rows],
        )
        expected, _ = reference_ftrl(
            X[rows].toarray(),
            targets[rows],
            sample_weight[rows],
            n_outputs=n_outputs,
            fit_intercept=True,
            state=expected,
            **params,
        )
        _assert_same_state(clf, expected)


def test_class_weight_multiplies_row_weight():
    X = sparse_problem()
    y = np.arange(X.shape[0]) % 3
    class_weight = {0: 0.5, 1: 2.0, 2: 1.0}
    sample_weight = np.linspace(0.5, 1.5, X.shape[0])
    params = dict(loss="log_loss", alpha=0.3, beta=1e-6, l1=0.01, l2=0.0)
    clf = FTRLClassifier(
        **params, class_weight=class_weight, max_iter=1, tol=None, shuffle=False
    ).fit(X, y, sample_weight=sample_weight)
    row_weights = sample_weight * np.array([0.5, 2.0, 1.0])[y]
    expected, _ = reference_ftrl(
        X.toarray(),
        y.astype(float),
        row_weights,
        n_outputs=3,
        fit_intercept=True,
        **params,
    )
    _assert_same_state(clf, expected)


@settings(max_examples=40, deadline=None)
@given(
    n_samples=st.integers(1, 25),
    n_features=st.integers(1, 12),
    density=st.floats(0.0, 1.0),
    alpha=st.floats(1e-3, 3.0),
    beta=st.sampled_from([0.0, 1e-8, 1.0]),
    l1=st.sampled_from([0.0, 1e-3, 0.3]),
    l2=st.sampled_from([0.0, 1e-6, 0.7]),
    loss=st.sampled_from(CLASSIFIER_LOSSES),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_problems_match_reference(
    n_samples, n_features, density, alpha, beta, l1, l2, loss, seed
):
    """Random shapes, densities and parameters, beta = 0 included, two passes."""
    rng = np.random.default_rng(seed)
    dense = rng.normal(size=(n_samples, n_features))
    dense *= rng.random((n_samples, n_features)) < density
    targets = np.where(rng.random(n_samples) < 0.5, 1.0, -1.0)
    row_weights = rng.uniform(0.0, 2.0, n_samples)
    X = sp.csr_matrix(dense)
    params = dict(loss=loss, alpha=alpha, beta=beta, l1=l1, l2=l2)
    clf = FTRLClassifier(**params, shuffle=False)
    # Drive the kernel with ±1 targets directly (no label encoding to get in the way).
    order = np.concatenate([np.arange(n_samples)] * 2)
    _, rows_done, status = run_one_pass(clf, X, targets, row_weights, order)
    assert (rows_done, status) == (order.shape[0], STATUS_OK)
    expected, _ = reference_ftrl(
        dense,
        targets,
        row_weights,
        n_outputs=1,
        fit_intercept=True,
        order=order,
        **params,
    )
    _assert_same_state(clf, expected)


def test_pass_loss_is_the_weighted_pre_update_loss():
    X = sparse_problem()
    rng = np.random.default_rng(4)
    targets = np.where(rng.random(X.shape[0]) < 0.5, 1.0, -1.0)
    row_weights = rng.uniform(0.5, 1.5, X.shape[0])
    params = dict(loss="log_loss", alpha=0.5, beta=1.0, l1=0.1, l2=0.01)
    clf = FTRLClassifier(**params)
    order = np.arange(X.shape[0])
    loss_sum, _, _ = run_one_pass(clf, X, targets, row_weights, order)
    _, expected = reference_ftrl(
        X.toarray(), targets, row_weights, n_outputs=1, fit_intercept=True, **params
    )
    assert loss_sum == pytest.approx(expected, rel=1e-12)


# -- properties of §2 -------------------------------------------------------------


def test_weight_falling_back_under_l1_is_exactly_zero_in_coef():
    """Feature 0 is pushed positive by two rows (|z| > l1, weight non-zero), then
    rows of the other label pull z back under l1: its weight is exactly 0, in
    coef_ and in the scores, though the feature is not touched again after."""
    l1 = 0.8
    X = sp.csr_matrix(
        np.array(
            [
                [1.0, 0.0],
                [1.0, 0.0],
                [1.0, 0.0],
                [0.0, 1.0],  # only feature 1 from here on
                [0.0, 1.0],
            ]
        )
    )
    y = np.array([1, 1, 0, 1, 0])
    clf = FTRLClassifier(alpha=1.0, beta=1.0, l1=l1, fit_intercept=False)
    clf.partial_fit(X[:2], y[:2], classes=[0, 1])
    assert abs(clf.z_[0, 0]) > l1 and clf.coef_[0, 0] != 0.0
    clf.partial_fit(X[2:], y[2:])
    assert 0.0 < abs(clf.z_[0, 0]) <= l1
    assert clf.n_[0, 0] > 0.0
    assert clf.coef_[0, 0] == 0.0
    assert clf.decision_function(sp.csr_matrix([[5.0, 0.0]]))[0] == 0.0


def test_untouched_coordinates_never_change():
    """A weight is a closed form of its own z and n: a round that does not touch a
    coordinate leaves it exactly as it was, whatever l1 and l2 (no lazy shrink)."""
    X = sparse_problem(seed=9)
    y = np.random.default_rng(9).integers(0, 2, X.shape[0])
    clf = FTRLClassifier(l1=0.1, l2=0.3).partial_fit(X[:25], y[:25], classes=[0, 1])
    before = {name: getattr(clf, name).copy() for name in ("coef_", "z_", "n_")}
    clf.partial_fit(X[25:], y[25:])
    untouched = np.setdiff1d(np.arange(X.shape[1]), X[25:].indices)
    assert untouched.size > 0
    for name, old in before.items():
        assert np.array_equal(getattr(clf, name)[:, untouched], old[:, untouched]), name


def test_weight_closed_form_by_hand():
    # z = 3, n = 16, alpha = 0.5 (the kernel takes 1 / alpha = 2), beta = 1, l1 = 1,
    # l2 = 2: w = -(3 - 1) / ((1 + 4) / 0.5 + 2) = -2 / 12.
    assert ftrl_kernels.weight(3.0, 16.0, 2.0, 1.0, 1.0, 2.0) == pytest.approx(-1 / 6)
    assert ftrl_kernels.weight(-3.0, 16.0, 2.0, 1.0, 1.0, 2.0) == pytest.approx(1 / 6)
    assert ftrl_kernels.weight(1.0, 16.0, 2.0, 1.0, 1.0, 2.0) == 0.0  # |z| <= l1
    # beta = l2 = 0 and n = 0 (every g**2 underflowed): 0, not inf or NaN.
    assert ftrl_kernels.weight(1e-200, 0.0, 2.0, 0.0, 0.0, 0.0) == 0.0


@pytest.mark.parametrize("loss", ["log_loss", "hinge", "squared_error"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_unregularised_ftrl_is_adagrad_mirror_descent(loss, n_classes):
    """Without l1/l2, FTRL-Proximal with (alpha, beta) takes AdaGrad's composite
    mirror-descent step with (eta, delta) = (alpha, beta): w_t = -alpha z_{t-1} /
    (beta + sqrt(n_{t-1})) and alpha sigma_t = sqrt(n_t) - sqrt(n_{t-1}) give
    w_{t+1} = w_t - alpha g_t / (beta + sqrt(n_t)). Two independent kernels agree."""
    X = sparse_problem(seed=11)
    y = np.random.default_rng(11).integers(0, n_classes, X.shape[0])
    common = dict(loss=loss, max_iter=3, tol=None, random_state=3)
    ftrl = FTRLClassifier(alpha=0.4, beta=0.2, l1=0.0, **common).fit(X, y)
    adagrad = AdaGradClassifier(
        update="mirror_descent", eta=0.4, delta=0.2, l1=0.0, **common
    ).fit(X, y)
    np.testing.assert_allclose(ftrl.coef_, adagrad.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ftrl.intercept_, adagrad.intercept_, rtol=1e-10)
    np.testing.assert_allclose(ftrl.n_, adagrad.sum_sq_grad_, rtol=1e-10)
