"""coef_init / intercept_init in fit, and assigned weights that persist: where the
weights are a function of accumulated gradients (FTRL's z, dual averaging's u),
the accumulators are set to give them."""

import numpy as np
import pytest
from estimators import ALGORITHMS, make
from reference_adagrad import reference_adagrad, zero_state
from reference_ons import coef_and_intercept, initial_state, reference_ons
from sklearn.datasets import make_classification, make_regression

# A step size so small that a few passes hardly move the weights.
TINY_STEP = {"eta": 1e-9, "alpha": 1e-9, "gamma": 1e9, "initial_wealth": 1e-9}
# Algorithms whose weights are a function of accumulators alone: they refuse
# starting weights.
REFUSE = {
    "adagrad_da": "dual_averaging' cannot start",
    "coin": "coin betting cannot",
    "coin_cocob": "coin betting cannot",
}


def _data(kind):
    if kind == "regressor":
        X, y = make_regression(400, 6, noise=1.0, random_state=0)
        return X, y / np.std(y)
    n_classes = 3 if kind == "multiclass" else 2
    return make_classification(
        400, 6, n_informative=4, n_classes=n_classes, random_state=0
    )


@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_training_starts_from_the_initial_weights(algorithm, kind):
    X, y = _data(kind)
    if algorithm in REFUSE:
        with pytest.raises(ValueError, match=REFUSE[algorithm]):
            make(algorithm, kind).fit(X, y, intercept_init=np.zeros(3)[:1])
        return
    trained = make(algorithm, kind, random_state=0).fit(X, y)
    step = TINY_STEP[ALGORITHMS[algorithm].step_size]
    started = make(algorithm, kind, step_size=step, max_iter=2, tol=None)
    started.fit(X, y, coef_init=trained.coef_, intercept_init=trained.intercept_)
    np.testing.assert_allclose(started.coef_, trained.coef_, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(started.intercept_, trained.intercept_, atol=1e-7)
    # From zeros the same tiny steps leave a model that has learnt nothing.
    cold = make(algorithm, kind, step_size=step, max_iter=2, tol=None).fit(X, y)
    assert np.abs(cold.coef_).max() < 1e-3 * np.abs(trained.coef_).max()


@pytest.mark.parametrize("l1", [0.0, 1e-3])
@pytest.mark.parametrize(
    "algorithm", [name for name, spec in ALGORITHMS.items() if spec.regularized]
)
def test_assigned_weights_are_read_back_and_survive_an_update(algorithm, l1):
    X, y = _data("binary")
    model = make(algorithm, "binary", l1=l1, max_iter=3, tol=None, random_state=0)
    model.fit(X, y)
    rng = np.random.default_rng(0)
    coef = rng.normal(size=model.coef_.shape)
    coef[0, 1] = 0.0
    model.coef_ = coef
    model.intercept_ = np.array([0.7])
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-12)
    # A row of weight 1e-12 moves the weights by ~1e-12 at most (and by l1 times
    # a step below 1 for one round): they keep the assigned values, not the ones
    # their accumulators held before the assignment.
    model.partial_fit(X[:1], y[:1], sample_weight=[1e-12])
    np.testing.assert_allclose(model.coef_, coef, atol=l1 + 1e-9)
    np.testing.assert_allclose(model.intercept_, [0.7], atol=1e-9)


def test_bad_initial_weights_are_refused_and_change_nothing():
    X, y = _data("multiclass")
    model = make("ftrl", "multiclass", max_iter=2, tol=None).fit(X, y)
    coef = model.coef_.copy()
    with pytest.raises(ValueError, match=r"coef_init has shape \(6,\).*\(3, 6\)"):
        model.fit(X, y, coef_init=np.zeros(6))
    with pytest.raises(ValueError, match="intercept_init contains NaN"):
        model.fit(X, y, intercept_init=[0.0, np.nan, 0.0])
    np.testing.assert_array_equal(model.coef_, coef)
    binary = make("adagrad_md", "binary", max_iter=1, tol=None)
    binary.fit(*_data("binary"), coef_init=np.ones(6), intercept_init=0.5)
    assert binary.coef_.shape == (1, 6)


def test_a_weight_dual_averaging_cannot_give_is_refused():
    X, y = _data("binary")
    model = make("adagrad_da", "binary", delta=0.0, max_iter=1, tol=None)
    model.fit(X[:, :5], y)
    X[:, 5] = 0.0  # feature 5 never seen: G = 0, so with delta = 0 its w is 0
    model.fit(X, y)
    coef = model.coef_.copy()
    coef[0, 5] = 1.0
    with pytest.raises(ValueError, match="1 assigned non-zero weights.*delta = 0"):
        model.coef_ = coef
    assert model.coef_[0, 5] == 0.0


@pytest.mark.parametrize("algorithm", ["adagrad_md", "ons_diag_l1"])
def test_initial_weights_of_idle_features_take_their_l1_steps_from_round_0(algorithm):
    """Lazily regularised weights: a starting weight on a feature the rows never
    touch takes every round's proximal step, as the literal rule does (the state
    records their decay when the weights are assigned, not only where a row
    touches them)."""
    X, y = make_classification(60, 6, n_informative=3, random_state=0)
    X[:, 4:] = 0.0  # features 4 and 5 are idle in every round
    coef = np.array([[0.3, -0.2, 0.1, 0.0, 0.5, -0.4]])
    params = {"l1": 0.01, "eps": 1.0} if algorithm == "ons_diag_l1" else {"l1": 0.01}
    model = make(algorithm, "binary", max_iter=1, tol=None, shuffle=False, **params)
    model.fit(X, y, coef_init=coef, intercept_init=[0.2])
    if algorithm == "adagrad_md":
        state = zero_state(1, 6)
        state["coef"], state["intercept"] = coef.copy(), np.array([0.2])
        expected, _ = reference_adagrad(
            X,
            y.astype(float) * 2 - 1,
            np.ones(60),
            n_outputs=1,
            loss="log_loss",
            eta=0.1,
            delta=model.delta,
            l1=0.01,
            l2=0.0,
            fit_intercept=True,
            update="mirror_descent",
            state=state,
        )
        expected_coef = expected["coef"]
    else:
        state = initial_state(1, 6, "diag", 1.0)
        state["w"][0] = np.append(coef[0], 0.2)
        expected, _ = reference_ons(
            X,
            y.astype(float) * 2 - 1,
            np.ones(60),
            n_outputs=1,
            loss="log_loss",
            matrix="diag",
            gamma=model.gamma,
            eps=1.0,
            l1=0.01,
            state=state,
        )
        expected_coef = coef_and_intercept(expected)[0]
    # The idle weights shrank, by 60 rounds of l1 times their (constant) step.
    assert np.all(np.abs(expected_coef[0, 4:]) < np.abs(coef[0, 4:]))
    np.testing.assert_allclose(model.coef_, expected_coef, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("algorithm", ["adagrad_md", "adagrad_da", "ons_diag_l1"])
def test_assigning_the_intercept_keeps_the_pending_l1_steps_of_the_weights(algorithm):
    """Lazily regularised weights owe their idle rounds' steps until read; an
    intercept assignment (which reads the intercept alone) must not drop them."""
    X, y = make_classification(200, 8, n_informative=3, random_state=0)
    X[100:, 5:] = 0.0  # features 5-7 idle in the last 100 rounds
    models = [
        make(algorithm, "binary", l1=0.01, max_iter=1, tol=None, shuffle=False)
        for _ in range(2)
    ]
    for model in models:
        model.partial_fit(X, y, classes=[0, 1])
    caught_up = models[0].coef_.copy()  # read, so caught up, before the assignment
    for model in models:
        model.intercept_ = np.array([0.5])
    np.testing.assert_array_equal(models[0].coef_, caught_up)
    np.testing.assert_array_equal(models[1].coef_, models[0].coef_)


def test_an_assigned_intercept_of_weights_computed_when_read_is_kept():
    """Coin betting computes its served weights from its accumulators when they
    are read: an assigned intercept must be what the next read returns."""
    X, y = make_classification(200, 8, random_state=0)
    model = make("coin", "binary").partial_fit(X, y, classes=[0, 1])
    before, intercept = model.decision_function(X[:3]), model.intercept_.copy()
    model.intercept_ = np.array([5.0])
    np.testing.assert_array_equal(model.intercept_, [5.0])
    np.testing.assert_allclose(
        model.decision_function(X[:3]) - before, 5.0 - intercept[0], rtol=1e-12
    )
