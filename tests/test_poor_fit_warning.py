"""fit warns when it ends with a model worse than one without features (issue 25):
the last pass's mean training loss above the best constant's, by more than 1 %."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning

from sk_adaprox import (
    AdaGradClassifier,
    AdaGradRegressor,
    CoinBettingClassifier,
    CoinBettingRegressor,
    FTRLClassifier,
    FTRLRegressor,
    ONSClassifier,
    ONSRegressor,
)
from sk_adaprox._kernels.common import weighted_loss_sum
from sk_adaprox._losses import LOSS_CODES, baseline_loss
from sk_adaprox.exceptions import PoorFitWarning

CLASSIFICATION = make_classification(1000, 20, n_informative=5, random_state=0)
REGRESSION = make_regression(1000, 20, noise=10.0, random_state=0)

# Steps far too large for the data, each estimator's: their fits end with a
# training loss above the intercept alone's (the regressors' R^2 from -0.3 to
# -2e6).
TOO_LARGE_STEPS = [
    (AdaGradClassifier(eta=100.0), CLASSIFICATION, "eta"),
    (FTRLClassifier(alpha=100.0), CLASSIFICATION, "alpha"),
    (ONSClassifier(gamma=1e-5), CLASSIFICATION, "gamma"),
    (CoinBettingClassifier(initial_wealth=1e6), CLASSIFICATION, "initial_wealth"),
    (AdaGradRegressor(loss="epsilon_insensitive", eta=100.0), REGRESSION, "eta"),
    (FTRLRegressor(loss="epsilon_insensitive", alpha=100.0), REGRESSION, "alpha"),
    (ONSRegressor(gamma=1e-3), REGRESSION, "gamma"),
    (
        CoinBettingRegressor(update="normalized", initial_wealth=1e6),
        REGRESSION,
        "initial_wealth",
    ),
]
DEFAULTS = [
    (model, CLASSIFICATION if "Classifier" in type(model).__name__ else REGRESSION)
    for model in (
        AdaGradClassifier(),
        FTRLClassifier(),
        ONSClassifier(),
        CoinBettingClassifier(),
        AdaGradRegressor(),
        FTRLRegressor(),
        ONSRegressor(),
        CoinBettingRegressor(),
    )
]


def _ids(cases):
    return [f"{type(case[0]).__name__}-{case[-1]}" for case in cases]


@pytest.mark.parametrize(
    ("model", "data", "step"), TOO_LARGE_STEPS, ids=_ids(TOO_LARGE_STEPS)
)
def test_a_model_worse_than_its_intercept_warns_first(model, data, step):
    model.set_params(random_state=0, max_iter=20)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(*data)
    categories = [w.category for w in caught]
    assert PoorFitWarning in categories
    message = str(caught[categories.index(PoorFitWarning)].message)
    assert "worse than a model without features" in message
    assert f"{step} (now {getattr(model, step)!r})" in message
    assert "scale the features" in message
    # Before any ConvergenceWarning about max_iter.
    if ConvergenceWarning in categories:
        assert categories.index(PoorFitWarning) < categories.index(ConvergenceWarning)


@pytest.mark.parametrize(
    ("model", "data"), DEFAULTS, ids=[type(model).__name__ for model, _ in DEFAULTS]
)
def test_no_warning_at_the_defaults_on_data_with_signal(model, data):
    model.set_params(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PoorFitWarning)
        model.fit(*data)


def test_partial_fit_does_not_warn():
    model = ONSRegressor(gamma=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PoorFitWarning)
        for _ in range(3):
            model.partial_fit(*REGRESSION)
    assert model.score(*REGRESSION) < 0.0  # the same bad steps as in fit


def _brute_force_baseline(loss, targets, weights, n_outputs, fit_intercept):
    """The least weighted mean loss over a grid of constant scores, refined by a
    finer grid around the best point of a coarse one."""

    def least(y, grid):
        losses = [
            weighted_loss_sum(
                LOSS_CODES[loss], 0.3, y, np.full((y.shape[0], 1), b), weights
            )
            for b in grid
        ]
        return grid[int(np.argmin(losses))], min(losses)

    total = 0.0
    for k in range(n_outputs):
        y = targets if n_outputs == 1 else np.where(targets == k, 1.0, -1.0)
        if not fit_intercept:
            total += least(y, np.zeros(1))[1]
            continue
        best, _ = least(y, np.linspace(-6.0, 6.0, 1201))
        total += least(y, np.linspace(best - 0.01, best + 0.01, 2001))[1]
    return total / (weights.sum() * n_outputs)


CLASSIFICATION_LOSSES = (
    "log_loss",
    "hinge",
    "squared_hinge",
    "modified_huber",
    "squared_error",
)


@pytest.mark.parametrize(
    ("loss", "n_outputs", "fit_intercept"),
    [
        *itertools.product(CLASSIFICATION_LOSSES, (1, 3), (True, False)),
        *itertools.product(
            ("squared_error", "huber", "epsilon_insensitive"), (0,), (True, False)
        ),
    ],
)
def test_baseline_loss_is_the_best_constant(loss, n_outputs, fit_intercept):
    rng = np.random.default_rng(4)
    weights = rng.uniform(0.2, 3.0, 300)
    if n_outputs == 0:  # regression
        n_outputs = 1
        targets = rng.normal(1.0, 2.0, 300)
    elif n_outputs == 1:
        targets = np.where(rng.random(300) < 0.3, 1.0, -1.0)
    else:
        targets = rng.integers(0, 3, 300).astype(float)
    expected = _brute_force_baseline(loss, targets, weights, n_outputs, fit_intercept)
    actual = baseline_loss(loss, 0.3, targets, weights, n_outputs, fit_intercept)
    assert actual == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_a_pass_loss_above_the_baseline_is_confirmed_on_the_model():
    """The last pass's loss is progressive: a first pass over hard data can end
    above the intercept's loss with a good model (one epoch of ONS on
    make_rare_features(160,000, 1,000,000): pass loss 0.77 against 0.69, test AUC
    0.87). The model is then scored on its training rows, and only its own loss
    above the baseline's warns."""
    X, y = CLASSIFICATION
    targets = np.where(y == 1, 1.0, -1.0)
    training = (sp.csr_matrix(X), targets, np.ones(X.shape[0]))
    good = ONSClassifier(random_state=0).fit(X, y)
    bad = ONSClassifier(gamma=1e-5, max_iter=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bad.fit(X, y)
    for model, warns in ((good, False), (bad, True)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model._warn_if_worse_than_baseline(10.0, training)  # a pass loss far above
        assert any(w.category is PoorFitWarning for w in caught) == warns
