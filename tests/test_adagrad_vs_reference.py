"""The compiled AdaGrad kernels, through the estimators, against the literal
non-lazy reference implementation of ALGORITHMS.md §1a/§1b (reference_adagrad.py)."""

import copy
import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from problems import assert_vars_equal, epoch_orders, run_one_pass, sparse_problem
from reference_adagrad import _dual_averaging_weights, reference_adagrad

from sk_adaprox import AdaGradClassifier, AdaGradRegressor
from sk_adaprox._kernels import adagrad as _kernels
from sk_adaprox._kernels import lazy as _lazy
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
REGULARIZATION = {"none": (0.0, 0.0), "l1": (0.02, 0.0), "l2": (0.0, 0.05)}
REGULARIZATION["l1+l2"] = (0.02, 0.05)


def _state_of(estimator, n_outputs):
    """The estimator's state in the reference's (K, d) layout."""
    coef = np.atleast_2d(estimator.coef_)
    state = {
        "coef": coef,
        "intercept": estimator.intercept_,
        "sum_sq_grad": np.atleast_2d(estimator.sum_sq_grad_),
        "intercept_sum_sq_grad": estimator.intercept_sum_sq_grad_,
    }
    if hasattr(estimator, "sum_grad_"):
        state["sum_grad"] = np.atleast_2d(estimator.sum_grad_)
        state["intercept_sum_grad"] = estimator.intercept_sum_grad_
    assert coef.shape[0] == n_outputs
    return state


def _assert_same_state(estimator, reference_state, n_outputs):
    for key, value in _state_of(estimator, n_outputs).items():
        expected = reference_state[key]
        scale = max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(
            value, expected, rtol=RTOL, atol=RTOL * scale, err_msg=key
        )


@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
@pytest.mark.parametrize("regularization", list(REGULARIZATION))
@pytest.mark.parametrize("loss", CLASSIFIER_LOSSES)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_matches_reference(loss, update, regularization, n_classes):
    X = sparse_problem()
    rng = np.random.default_rng(1)
    y = rng.integers(0, n_classes, X.shape[0])
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    sample_weight[5] = 0.0  # a zero-weight row is still a round
    l1, l2 = REGULARIZATION[regularization]
    params = dict(loss=loss, update=update, eta=0.3, delta=0.1, l1=l1, l2=l2)
    clf = AdaGradClassifier(
        **params, max_iter=3, tol=None, shuffle=True, random_state=7
    ).fit(X, y, sample_weight=sample_weight)

    n_outputs = 1 if n_classes == 2 else n_classes
    targets = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y.astype(float)
    order = epoch_orders(X.shape[0], 3, shuffle=True, random_state=7)
    expected, _ = reference_adagrad(
        X.toarray(),
        targets,
        sample_weight,
        n_outputs=n_outputs,
        fit_intercept=True,
        order=order,
        **params,
    )
    assert clf.t_ == order.shape[0]
    _assert_same_state(clf, expected, n_outputs)


@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
@pytest.mark.parametrize("regularization", list(REGULARIZATION))
@pytest.mark.parametrize("loss", REGRESSOR_LOSSES)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_regressor_matches_reference(loss, update, regularization, fit_intercept):
    X = sparse_problem(seed=2)
    rng = np.random.default_rng(3)
    y = X @ rng.normal(size=X.shape[1]) + 0.3 * rng.normal(size=X.shape[0]) + 0.5
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    l1, l2 = REGULARIZATION[regularization]
    params = dict(loss=loss, update=update, eta=0.2, delta=0.01, l1=l1, l2=l2)
    reg = AdaGradRegressor(
        normalize_y=False,
        **params,
        epsilon=0.25,
        fit_intercept=fit_intercept,
        max_iter=2,
        tol=None,
        shuffle=False,
    ).fit(X, y, sample_weight=sample_weight)
    expected, _ = reference_adagrad(
        X.toarray(),
        y,
        sample_weight,
        n_outputs=1,
        epsilon=0.25,
        fit_intercept=fit_intercept,
        order=epoch_orders(X.shape[0], 2, shuffle=False, random_state=None),
        **params,
    )
    _assert_same_state(reg, expected, 1)
    if not fit_intercept:
        assert reg.intercept_[0] == 0.0


def test_class_weight_multiplies_row_weight():
    X = sparse_problem()
    y = np.arange(X.shape[0]) % 3
    class_weight = {0: 0.5, 1: 2.0, 2: 1.0}
    sample_weight = np.linspace(0.5, 1.5, X.shape[0])
    params = dict(
        loss="log_loss", update="mirror_descent", eta=0.3, delta=1e-6, l1=0.01, l2=0.0
    )
    clf = AdaGradClassifier(
        **params, class_weight=class_weight, max_iter=1, tol=None, shuffle=False
    ).fit(X, y, sample_weight=sample_weight)
    row_weights = sample_weight * np.array([0.5, 2.0, 1.0])[y]
    expected, _ = reference_adagrad(
        X.toarray(),
        y.astype(float),
        row_weights,
        n_outputs=3,
        fit_intercept=True,
        **params,
    )
    _assert_same_state(clf, expected, 3)


@settings(max_examples=40, deadline=None)
@given(
    n_samples=st.integers(1, 25),
    n_features=st.integers(1, 12),
    density=st.floats(0.0, 1.0),
    eta=st.floats(1e-3, 3.0),
    delta=st.sampled_from([0.0, 1e-8, 0.5]),
    l1=st.sampled_from([0.0, 1e-3, 0.3]),
    l2=st.sampled_from([0.0, 1e-6, 0.7]),
    update=st.sampled_from(["mirror_descent", "dual_averaging"]),
    loss=st.sampled_from(CLASSIFIER_LOSSES),
    seed=st.integers(0, 2**16),
)
def test_random_problems_match_reference(
    n_samples, n_features, density, eta, delta, l1, l2, update, loss, seed
):
    """Random shapes, densities and hyper-parameters, delta = 0 included."""
    rng = np.random.default_rng(seed)
    dense = rng.normal(size=(n_samples, n_features))
    dense *= rng.random((n_samples, n_features)) < density
    targets = np.where(rng.random(n_samples) < 0.5, 1.0, -1.0)
    row_weights = rng.uniform(0.0, 2.0, n_samples)
    X = sp.csr_matrix(dense)
    params = dict(loss=loss, update=update, eta=eta, delta=delta, l1=l1, l2=l2)
    clf = AdaGradClassifier(**params, shuffle=False)
    # Drive the kernel with ±1 targets directly (no label encoding to get in the way).
    order = np.concatenate([np.arange(n_samples)] * 2)
    _, rows_done, status = run_one_pass(clf, X, targets, row_weights, order)
    assert (rows_done, status) == (order.shape[0], STATUS_OK)
    expected, _ = reference_adagrad(
        dense,
        targets,
        row_weights,
        n_outputs=1,
        fit_intercept=True,
        order=order,
        **params,
    )
    _assert_same_state(clf, expected, 1)


def test_pass_loss_is_the_weighted_pre_update_loss():
    X = sparse_problem()
    rng = np.random.default_rng(4)
    targets = np.where(rng.random(X.shape[0]) < 0.5, 1.0, -1.0)
    row_weights = rng.uniform(0.5, 1.5, X.shape[0])
    params = dict(
        loss="log_loss", update="mirror_descent", eta=0.5, delta=1e-6, l1=0.0, l2=0.01
    )
    clf = AdaGradClassifier(**params)
    order = np.arange(X.shape[0])
    loss_sum, _, _ = run_one_pass(clf, X, targets, row_weights, order)
    _, expected = reference_adagrad(
        X.toarray(), targets, row_weights, n_outputs=1, fit_intercept=True, **params
    )
    assert loss_sum == pytest.approx(expected, rel=1e-12)


# -- the lazy closed form on its own ---------------------------------------------


def _iterated_shrink(w, step, n_rounds, l1, l2):
    for _ in range(n_rounds):
        w = _lazy.md_step(w, 0.0, step, l1, l2)
    return w


@pytest.mark.parametrize("n_rounds", [1, 2, 7, 300, 5000])
@pytest.mark.parametrize(
    "l1, l2",
    [(0.0, 1e-9), (0.0, 0.3), (1e-5, 0.0), (1e-5, 1e-7), (2e-4, 0.05), (0.0, 0.0)],
)
@pytest.mark.parametrize("w", [0.8, -1.3, 1e-7])
def test_lazy_skip_equals_iterated_steps(w, l1, l2, n_rounds):
    step = _kernels.step_size(2.5, 0.4, 1e-3)  # G, eta, delta
    idle_decay = _lazy.md_idle_decay(step, l1, l2)
    lazy = _lazy.md_skip(w, idle_decay, n_rounds, l1, l2)
    iterated = _iterated_shrink(w, step, n_rounds, l1, l2)
    assert lazy == pytest.approx(iterated, rel=1e-12, abs=1e-300)
    if lazy != 0.0:
        assert math.copysign(1.0, lazy) == math.copysign(1.0, w)


def test_lazy_skip_reaches_zero_and_stays():
    # a = step*l1 = 0.1 per round, |w| = 0.35: zero after 4 rounds, and then for good.
    for n_rounds in (4, 5, 100):
        assert _lazy.md_skip(0.35, 0.1, n_rounds, 1.0, 0.0) == 0.0
    assert _lazy.md_skip(0.35, 0.1, 3, 1.0, 0.0) == pytest.approx(0.05)


def _log_uniform(low, high, size, seed):
    rng = np.random.default_rng(seed)
    return np.exp(rng.uniform(np.log(low), np.log(high), size))


@pytest.mark.parametrize(
    "helper, reference, limit",
    [
        (_lazy._log1p, math.log1p, _lazy._LOG1P_SERIES_LIMIT),
        (
            _lazy._expm1_of_negative,
            lambda x: math.expm1(-x),
            _lazy._EXPM1_SERIES_LIMIT,
        ),
    ],
    ids=["log1p", "expm1_of_negative"],
)
def test_series_helpers_match_libm_within_two_ulps(helper, reference, limit):
    # The series side of the limit, the limit itself, and the libm side.
    arguments = np.concatenate(
        [
            _log_uniform(1e-300, limit, 20_000, seed=0),
            _log_uniform(limit / 2, limit, 5_000, seed=1),
            [0.0, np.nextafter(limit, 0.0), limit, 2 * limit, 3.0],
        ]
    )
    for x in arguments:
        expected = reference(x)
        assert abs(helper(x) - expected) <= 2 * 2.3e-16 * abs(expected), x


# -- lazy state across calls ------------------------------------------------------

CHUNKS = [(0, 1), (1, 13), (13, 14), (14, 40), (40, 50)]


def _reference_state(update, n_outputs, params, X, targets, weights, state, t0):
    return reference_adagrad(
        X.toarray(),
        targets,
        weights,
        n_outputs=n_outputs,
        fit_intercept=True,
        update=update,
        state=state,
        t0=t0,
        **params,
    )[0]


def _reference_scores(reference_state, X):
    return X.toarray() @ reference_state["coef"].T + reference_state["intercept"]


@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_lazy_state_matches_reference_after_every_call(update, n_classes):
    """Each partial_fit call leaves the lazy weights behind; predictions in between
    score the caught-up weights without changing the model, and the state read
    after each call equals the non-lazy reference."""
    X = sparse_problem(seed=12)
    X_test = sparse_problem(seed=13)[:20]
    rng = np.random.default_rng(12)
    y = rng.integers(0, n_classes, X.shape[0])
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    params = dict(loss="log_loss", eta=0.4, delta=0.1, l1=0.02, l2=0.05)
    clf = AdaGradClassifier(update=update, **params)
    targets = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y.astype(float)
    n_outputs = 1 if n_classes == 2 else n_classes
    expected = None
    for start, stop in CHUNKS:
        rows = slice(start, stop)
        clf.partial_fit(
            X[rows],
            y[rows],
            classes=np.arange(n_classes),
            sample_weight=sample_weight[rows],
        )
        expected = _reference_state(
            update,
            n_outputs,
            params,
            X[rows],
            targets[rows],
            sample_weight[rows],
            expected,
            start,
        )
        raw = copy.deepcopy(vars(clf))
        for scored in (X_test, X_test.toarray()):
            scores = np.atleast_2d(clf.decision_function(scored).T).T
            np.testing.assert_allclose(
                scores, _reference_scores(expected, X_test), rtol=1e-11, atol=1e-12
            )
        assert_vars_equal(vars(clf), raw)  # scoring wrote nothing
        _assert_same_state(clf, expected, n_outputs)


@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
@pytest.mark.parametrize(
    "change",
    [dict(l1=0.05), dict(l2=0.0, l1=0.0), dict(eta=0.2, delta=0.5), dict(l2=0.2)],
)
def test_parameters_changed_between_calls_apply_from_that_round_on(update, change):
    X = sparse_problem(seed=14)
    y = np.random.default_rng(14).integers(0, 2, X.shape[0])
    targets = np.where(y == 1, 1.0, -1.0)
    weights = np.ones(X.shape[0])
    before = dict(loss="log_loss", eta=0.4, delta=0.1, l1=0.02, l2=0.05)
    after = {**before, **change}
    clf = AdaGradClassifier(update=update, **before)
    clf.partial_fit(X[:25], y[:25], classes=[0, 1])
    clf.set_params(**change)
    clf.partial_fit(X[25:], y[25:])
    expected = _reference_state(
        update, 1, before, X[:25], targets[:25], weights[:25], None, 0
    )
    if update == "dual_averaging":
        # A dual-averaging weight is a function of u, G and t under the current
        # parameters (as an FTRL weight is of z and n): the first round after the
        # change already scores with the new ones. The reference scores with the
        # weights it stored, so it is handed them recomputed at round 25.
        scale = after["delta"] + np.sqrt(expected["sum_sq_grad"])
        expected["coef"] = _dual_averaging_weights(
            expected["sum_grad"], scale, 25, after["eta"], after["l1"], after["l2"]
        )
        intercept_scale = after["delta"] + np.sqrt(expected["intercept_sum_sq_grad"])
        expected["intercept"] = _dual_averaging_weights(
            expected["intercept_sum_grad"], intercept_scale, 25, after["eta"], 0.0, 0.0
        )
    expected = _reference_state(
        update, 1, after, X[25:], targets[25:], weights[25:], expected, 25
    )
    _assert_same_state(clf, expected, 1)


def test_training_continues_exactly_after_a_rejected_row():
    """A diverging row is not applied; the lazy bookkeeping of its features goes
    back to where it was, so the next call continues the reference exactly."""
    X = sparse_problem(seed=15).toarray()
    y = np.random.default_rng(15).normal(size=X.shape[0])
    bad = X.copy()[:1]
    bad[0, 1:4] = [1e200, 2.0, -1.0]
    params = dict(loss="squared_error", eta=0.3, delta=0.1, l1=0.01, l2=0.02)
    reg = AdaGradRegressor(normalize_y=False, **params).partial_fit(X[:20], y[:20])
    with pytest.raises(ValueError, match="diverged at row 0"):
        reg.partial_fit(bad, [1e200])
    reg.partial_fit(X[20:], y[20:])
    expected = reference_adagrad(
        X,
        y,
        np.ones(X.shape[0]),
        n_outputs=1,
        fit_intercept=True,
        update="mirror_descent",
        **params,
    )[0]
    assert reg.t_ == X.shape[0]
    _assert_same_state(reg, expected, 1)


def test_verbose_output_does_not_change_a_lazy_model(capsys):
    X = sparse_problem(seed=16)
    y = np.random.default_rng(16).integers(0, 2, X.shape[0])
    params = dict(l1=0.02, l2=0.05, eta=0.4)
    quiet, loud = AdaGradClassifier(**params), AdaGradClassifier(**params, verbose=1)
    for rows in (slice(0, 20), slice(20, 50)):
        quiet.partial_fit(X[rows], y[rows], classes=[0, 1])
        loud.partial_fit(X[rows], y[rows], classes=[0, 1])
    assert "non-zero weights" in capsys.readouterr().out
    # Apart from the parameter itself (and its record of validated parameters).
    differ = {"verbose": 1, "_validated_parameters": loud._validated_parameters}
    assert_vars_equal(vars(loud), {**vars(quiet), **differ})
