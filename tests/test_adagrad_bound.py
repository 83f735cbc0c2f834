"""AdaGrad mirror descent with ``bound=B``: every coefficient kept in [-B, B]
by clipping after each step (ALGORITHMS.md §4: with delta=0, l1=l2=0 and
eta=B*sqrt(2), per-coordinate online gradient descent on the box)."""

import math

import numpy as np
import pytest
from problems import epoch_orders, sparse_problem
from reference_adagrad import reference_adagrad
from sklearn.utils._param_validation import InvalidParameterError

from sk_adaprox import AdaGradClassifier, AdaGradRegressor
from sk_adaprox.datasets import make_rare_features

RTOL = 1e-11


def literal_pc_ogd(X, y, bound, order):
    """Per-coordinate OGD on the box |w_i| <= B for the log loss, written out:
    step B*sqrt(2) / sqrt(sum of the coordinate's squared gradients), then the
    projection onto the box (clipping). No intercept."""
    w = np.zeros(X.shape[1])
    sum_sq = np.zeros(X.shape[1])
    for i in order:
        x = X[i]
        margin = y[i] * (w @ x)
        g = -y[i] / (1.0 + math.exp(margin)) * x
        sum_sq += g * g
        seen = sum_sq > 0.0
        w[seen] -= bound * math.sqrt(2.0) / np.sqrt(sum_sq[seen]) * g[seen]
        w = np.clip(w, -bound, bound)
    return w


@pytest.mark.parametrize("bound", [0.05, 0.5, 50.0])
def test_delta_0_and_eta_b_sqrt2_is_per_coordinate_ogd_on_the_box(bound):
    X = sparse_problem().toarray()
    y = np.where(np.random.default_rng(2).random(X.shape[0]) < 0.5, -1.0, 1.0)
    model = AdaGradClassifier(
        update="mirror_descent",
        eta=bound * math.sqrt(2.0),
        delta=0.0,
        l1=0.0,
        l2=0.0,
        bound=bound,
        fit_intercept=False,
        max_iter=3,
        tol=None,
        random_state=4,
    ).fit(X, y)
    order = epoch_orders(X.shape[0], 3, shuffle=True, random_state=4)
    expected = literal_pc_ogd(X, y, bound, order)
    np.testing.assert_allclose(model.coef_[0], expected, rtol=RTOL, atol=1e-14)
    # A coordinate's first step has length B*sqrt(2): the box binds.
    assert (np.abs(expected) == bound).any()


@pytest.mark.parametrize("regularization", [(0.0, 0.0), (0.02, 0.0), (0.02, 0.05)])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_bounded_mirror_descent_matches_the_reference(regularization, n_classes):
    X = sparse_problem()
    rng = np.random.default_rng(1)
    y = rng.integers(0, n_classes, X.shape[0])
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    l1, l2 = regularization
    params = dict(loss="hinge", eta=0.5, delta=0.1, l1=l1, l2=l2)
    model = AdaGradClassifier(
        **params,
        update="mirror_descent",
        bound=0.1,
        max_iter=3,
        tol=None,
        random_state=7,
    ).fit(X, y, sample_weight=sample_weight)
    n_outputs = 1 if n_classes == 2 else n_classes
    targets = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y.astype(float)
    expected, _ = reference_adagrad(
        X.toarray(),
        targets,
        sample_weight,
        n_outputs=n_outputs,
        update="mirror_descent",
        fit_intercept=True,
        order=epoch_orders(X.shape[0], 3, shuffle=True, random_state=7),
        bound=0.1,
        **params,
    )
    np.testing.assert_allclose(
        np.atleast_2d(model.coef_), expected["coef"], rtol=RTOL, atol=1e-14
    )
    np.testing.assert_allclose(model.intercept_, expected["intercept"], rtol=RTOL)
    assert np.abs(model.coef_).max() <= 0.1
    if l1 == 0.0:
        assert np.abs(model.coef_).max() == 0.1  # the box binds here
    assert np.abs(model.intercept_).max() > 0.1  # the intercept is free


@pytest.mark.parametrize("normalize_y", [True, False])
def test_regressor_partial_fit_chunks_stay_in_the_box(normalize_y):
    # The box holds the weights training learns: of the standardized target
    # where normalize_y is on (coef_ is then in the target's units).
    X = sparse_problem()
    y = np.asarray(X @ np.linspace(-3.0, 3.0, X.shape[1])).ravel()
    model = AdaGradRegressor(eta=1.0, bound=0.5, normalize_y=normalize_y)
    for chunk in np.array_split(np.arange(X.shape[0]), 4):
        model.partial_fit(X[chunk], y[chunk])
        scale = model.target_scale_ if normalize_y else 1.0
        assert np.abs(model.coef_).max() <= 0.5 * scale * (1 + 1e-15)
    np.testing.assert_allclose(np.abs(model.coef_).max(), 0.5 * scale, rtol=1e-15)


def test_a_shards_merge_is_projected_onto_the_box():
    # Both shards push the same coordinates to the face: the merge's summed
    # increments land outside the box unless projected.
    X, y = make_rare_features(4_000, 200, random_state=0)
    model = AdaGradClassifier(
        update="mirror_descent",
        eta=1.0,
        l1=0.0,
        bound=0.01,
        shards=2,
        n_jobs=2,
        random_state=0,
    ).fit(X, y)
    assert np.abs(model.coef_).max() == 0.01


def test_assigned_weights_and_a_smaller_bound_are_clipped():
    X = sparse_problem()
    y = np.arange(X.shape[0]) % 2
    model = AdaGradClassifier(
        update="mirror_descent", eta=0.1, l1=0.0, bound=0.2, max_iter=1, tol=None
    )
    model.fit(X, y, coef_init=np.full((1, X.shape[1]), 5.0))
    assert np.abs(model.coef_).max() <= 0.2
    model.set_params(bound=0.05).partial_fit(X[:2], y[:2])
    assert np.abs(model.coef_).max() <= 0.05


def test_auto_update_with_a_bound_tries_mirror_descent_alone():
    X, y = make_rare_features(2_000, 500, random_state=0)
    model = AdaGradClassifier(update="auto", eta="auto", l1=0.0, bound=1.0).fit(X, y)
    assert {each["update"] for each in model.candidate_params_} == {"mirror_descent"}
    assert model.chosen_params_["update"] == "mirror_descent"


@pytest.mark.parametrize("bound", [0.0, -1.0, "large"])
def test_bad_bounds_are_parameter_errors(bound):
    X = sparse_problem()
    y = np.arange(X.shape[0]) % 2
    with pytest.raises((InvalidParameterError, ValueError), match="bound"):
        AdaGradClassifier(update="mirror_descent", bound=bound).fit(X, y)


def test_a_bound_with_dual_averaging_says_which_update_has_one():
    X = sparse_problem()
    y = np.arange(X.shape[0]) % 2
    with pytest.raises(ValueError, match="update='mirror_descent'"):
        AdaGradClassifier(update="dual_averaging", bound=1.0).fit(X, y)


def test_a_bound_set_after_auto_chose_dual_averaging_is_refused():
    X, y = make_rare_features(2_000, 500, random_state=0)
    model = AdaGradClassifier(update="auto", eta=1.0, l1=1e-4, random_state=0)
    model.fit(X, y)
    assert model.chosen_params_["update"] == "dual_averaging"
    before = model.coef_.copy()
    with pytest.raises(ValueError, match="chosen by update='auto'"):
        model.set_params(bound=0.1).partial_fit(X[:10], y[:10])
    np.testing.assert_array_equal(model.set_params(bound=None).coef_, before)
