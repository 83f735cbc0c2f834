"""fit's first pass with parameters set to "auto" runs the candidate settings side
by side in one kernel (dual-averaging AdaGrad and FTRL): one read of the data for
all of them. Each candidate must compute exactly what it computes alone, so the
choice and the model are those of the candidates run one after the other."""

import numpy as np
import pytest
import scipy.sparse as sp
from estimators import state_of

from sk_adaprox import (
    AdaGradClassifier,
    AdaGradRegressor,
    FTRLClassifier,
    FTRLRegressor,
)
from sk_adaprox._base import OnlineLinearModel
from sk_adaprox._kernels import adagrad as adagrad_kernels
from sk_adaprox._kernels import ftrl as ftrl_kernels
from sk_adaprox._kernels.common import (
    LOG_LOSS,
    STATUS_NONFINITE_SCORE,
    STATUS_NONFINITE_UPDATE,
    STATUS_OK,
)
from sk_adaprox._state import new_state
from sk_adaprox.datasets import make_rare_features

SIDE_BY_SIDE = {
    "adagrad": (AdaGradClassifier, dict(eta="auto", l1="auto")),
    "ftrl": (FTRLClassifier, dict(alpha="auto", l1="auto")),
    "adagrad-regressor": (
        AdaGradRegressor,
        dict(update="dual_averaging", eta="auto", l1="auto"),
    ),
    "ftrl-regressor": (FTRLRegressor, dict(alpha="auto", l1="auto")),
}


def _one_after_the_other(monkeypatch, estimator_class):
    """Make ``estimator_class`` run its candidates one after the other."""
    monkeypatch.setattr(
        estimator_class, "_side_by_side_supported", lambda self, parameters: False
    )


def _fit_both_ways(monkeypatch, estimator_class, params, X, y, **fit_params):
    side_by_side = estimator_class(**params).fit(X, y, **fit_params)
    with monkeypatch.context() as patch:
        _one_after_the_other(patch, estimator_class)
        alone = estimator_class(**params).fit(X, y, **fit_params)
    return side_by_side, alone


def _assert_same_models(side_by_side, alone):
    assert side_by_side.chosen_params_ == alone.chosen_params_
    assert side_by_side.candidate_params_ == alone.candidate_params_
    np.testing.assert_array_equal(
        side_by_side.candidate_losses_, alone.candidate_losses_
    )
    for attribute, value in state_of(alone).items():
        np.testing.assert_array_equal(getattr(side_by_side, attribute), value)
    assert (side_by_side.t_, side_by_side.n_iter_) == (alone.t_, alone.n_iter_)


def _options(name):
    if name.endswith("regressor"):
        return [{}, {"fit_intercept": False}, {"l2": 1e-3}, {"loss": "huber"}]
    return [
        {},
        {"fit_intercept": False},
        {"l2": 1e-3},
        {"class_weight": "balanced"},
        {"loss": "modified_huber", "early_stopping": True},
    ]


@pytest.mark.parametrize(
    "name,options",
    [(name, options) for name in SIDE_BY_SIDE for options in _options(name)],
)
def test_side_by_side_gives_the_models_of_one_after_the_other(
    monkeypatch, name, options
):
    estimator_class, auto = SIDE_BY_SIDE[name]
    X, y = make_rare_features(800, 3000, random_state=1)
    if name.endswith("regressor"):
        y = X @ np.random.default_rng(1).normal(size=X.shape[1]) + 5.0 * y
    weights = np.random.default_rng(0).uniform(0.2, 2.0, size=y.size)
    params = dict(**auto, **options, max_iter=3, tol=None, random_state=0)
    side_by_side, alone = _fit_both_ways(
        monkeypatch, estimator_class, params, X, y, sample_weight=weights
    )
    _assert_same_models(side_by_side, alone)


def test_one_vs_rest_models_run_their_candidates_one_after_the_other(monkeypatch):
    # With K outputs per candidate the side-by-side kernel was slower; the
    # multiclass path never calls it.
    def refuse(*args):
        raise AssertionError("side by side for a one-vs-rest model")

    monkeypatch.setattr(FTRLClassifier, "_side_by_side_pass", refuse)
    X, y = make_rare_features(300, 1000, random_state=5)
    FTRLClassifier(max_iter=1, tol=None).fit(X, y + (np.arange(y.size) % 3 == 0))
    with pytest.raises(AssertionError, match="side by side"):
        FTRLClassifier(max_iter=1, tol=None).fit(X, y)


@pytest.mark.parametrize("states_per_block", [1.5, 5.5])
@pytest.mark.parametrize("name", ["adagrad", "ftrl"])
def test_candidates_in_blocks_give_the_same_models(monkeypatch, name, states_per_block):
    # A budget of 1.5 (5.5) candidates' states: 16 blocks of 1 (4 blocks of 4).
    estimator_class, auto = SIDE_BY_SIDE[name]
    X, y = make_rare_features(500, 2000, random_state=2)
    params = dict(**auto, max_iter=2, tol=None, random_state=0)
    whole = estimator_class(**params).fit(X, y)
    budget = int(2001 * 3 * 8 * states_per_block)
    monkeypatch.setattr(OnlineLinearModel, "_side_by_side_bytes", budget)
    blocks = estimator_class(**params).fit(X, y)
    _assert_same_models(blocks, whole)


class _TwoSteps(AdaGradClassifier):
    """Two step sizes, the larger of which overflows the score of row 2 below."""

    _auto_grids = {"eta": (0.1, 10.0), "l1": (0.0, 1e-6)}


class _TwoStepsFTRL(FTRLClassifier):
    """The same for FTRL, whose first step also sets w close to alpha."""

    _auto_grids = {"alpha": (0.1, 10.0), "l1": (0.0, 1e-6)}


@pytest.mark.parametrize(
    "estimator_class,auto",
    [
        (_TwoSteps, dict(eta="auto", l1="auto")),
        (_TwoStepsFTRL, dict(alpha="auto", l1="auto")),
        (AdaGradClassifier, dict(eta="auto", l1="auto", loss="squared_hinge")),
    ],
    ids=["one-diverges", "one-diverges-ftrl", "all-diverge"],
)
def test_diverging_candidates_drop_out_as_they_do_alone(
    monkeypatch, estimator_class, auto
):
    # Row 1 sets w = eta on feature 0 (u = -g, sqrt(G) = |g| >> delta); row 2 then
    # scores eta * 1e308, infinite for eta = 10 only. With squared hinge and a
    # larger first value, row 1's squared gradient overflows for every candidate.
    X = np.zeros((6, 3))
    X[0, 0] = 1e160 if estimator_class is AdaGradClassifier else 1e150
    X[1, 0] = 1e308
    X[2:, 1:] = np.eye(4)[:, :2] + 1.0
    y = np.array([1, 1, 0, 1, 0, 1])
    params = dict(**auto, max_iter=1, tol=None, shuffle=False)
    if estimator_class is not AdaGradClassifier:
        side_by_side, alone = _fit_both_ways(monkeypatch, estimator_class, params, X, y)
        _assert_same_models(side_by_side, alone)
        assert np.isinf(side_by_side.candidate_losses_[2:]).all()
        assert np.isfinite(side_by_side.candidate_losses_[:2]).all()
        return
    with pytest.raises(ValueError, match="diverged at row 0 ") as side_by_side:
        estimator_class(**params).fit(X, y)
    with monkeypatch.context() as patch:
        _one_after_the_other(patch, estimator_class)
        with pytest.raises(ValueError, match="diverged at row 0 ") as alone:
            estimator_class(**params).fit(X, y)
    assert str(side_by_side.value) == str(alone.value)


def _kernel_problem():
    X, y = make_rare_features(300, 500, random_state=3)
    return X, np.where(y == 1, 1.0, -1.0), np.ones(y.size), np.arange(y.size)


def test_a_candidate_out_on_entry_is_left_alone_by_the_kernels():
    X, targets, row_weights, order = _kernel_problem()
    rows = (X.data, X.indices, X.indptr, targets, row_weights, order)
    etas, l1s = np.array([0.3, 1.0]), np.array([1e-4, 0.0])
    for kernel, arguments in [
        (
            adagrad_kernels.da_candidates_pass,
            lambda: (0, LOG_LOSS, 0.0, etas, 0.1, l1s, 0.0, True),
        ),
        (
            ftrl_kernels.ftrl_candidates_pass,
            lambda: (LOG_LOSS, 0.0, 1.0 / etas, 0.1, l1s, 0.0, True),
        ),
    ]:
        state = new_state(X.shape[1], 3, 2)
        state[:, :, 1] = 7.0  # candidate 1's state, which must stay as it is
        loss_sums = np.zeros(2)
        rows_done = np.zeros(2, dtype=np.int64)
        statuses = np.array([STATUS_OK, STATUS_NONFINITE_UPDATE])
        kernel(*rows, state, *arguments(), loss_sums, rows_done, statuses)
        assert (state[:, :, 1] == 7.0).all()
        assert rows_done.tolist() == [X.shape[0], 0] and loss_sums[1] == 0.0
        assert statuses.tolist() == [STATUS_OK, STATUS_NONFINITE_UPDATE]
        assert np.count_nonzero(state[:, :, 0]) > 0


def test_the_kernels_report_each_candidates_divergence():
    # One row with x = 1e100: candidate 0 has w = 1e300, so its score overflows;
    # candidate 1 (w = 0) learns from the row.
    X = sp.csr_matrix(np.array([[1e100]]))
    state = new_state(1, 3, 2)
    state[0, 0, :] = [1e300, 0.0]
    loss_sums, rows_done = np.zeros(2), np.zeros(2, dtype=np.int64)
    statuses = np.zeros(2, dtype=np.int64)
    ftrl_kernels.ftrl_candidates_pass(
        X.data,
        X.indices,
        X.indptr,
        np.array([1.0]),
        np.ones(1),
        np.arange(1),
        state,
        LOG_LOSS,
        0.0,
        np.array([1.0, 1.0]),
        0.1,
        np.zeros(2),
        0.0,
        False,
        loss_sums,
        rows_done,
        statuses,
    )
    assert statuses.tolist() == [STATUS_NONFINITE_SCORE, STATUS_OK]
    assert rows_done.tolist() == [0, 1]
    assert state[0, 0, 0] == 1e300 and state[0, 0, 1] != 0.0


def test_mirror_descent_and_streams_run_their_candidates_one_after_the_other():
    # No side-by-side kernel for mirror descent (or both rules): same results as
    # ever, and the pool of a stream is the per-candidate one.
    X, y = make_rare_features(400, 1000, random_state=4)
    model = AdaGradRegressor(eta="auto", max_iter=1, tol=None).fit(X, y)
    assert len(model.candidate_params_) == 4
    stream = FTRLClassifier().partial_fit(X[:100], y[:100], classes=[0, 1])
    assert len(stream._stream_choice.states) == 16
