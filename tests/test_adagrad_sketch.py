"""Sketched full-matrix AdaGrad (``matrix="sketch"``, Ada-FD): with at least as
many directions as the gradients' rank it is the full matrix, checked against
the literal reference (tests/reference_adagrad_full.py); with fewer, its G is
Frequent Directions' approximation, within that sketch's error bound; and what
it refuses."""

import numpy as np
import pytest
import scipy.sparse as sp
from problems import epoch_orders
from reference_adagrad_full import reference_full_adagrad
from test_adagrad_full import _assert_weights, _problem, _reference_of

from sk_adaprox import AdaGradClassifier, AdaGradRegressor
from sk_adaprox._kernels import adagrad_sketch as _sketch

# _problem has 6 features: with the intercept, gradients of rank 7 at most, so
# 7 directions keep the sketch exact (its shrinks drop a zero value).
EXACT = 7


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("l2", [0.0, 0.05])
@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_with_m_at_least_the_rank_it_is_the_full_matrix(
    n_classes, update, l2, fit_intercept
):
    X = _problem()
    rng = np.random.default_rng(1)
    y = rng.integers(0, n_classes, X.shape[0])
    weights = rng.uniform(0.2, 2.0, X.shape[0])
    params = dict(loss="log_loss", update=update, eta=0.5, delta=0.1, l1=0.0, l2=l2)
    model = AdaGradClassifier(
        matrix="sketch", sketch_size=EXACT, fit_intercept=fit_intercept,
        max_iter=3, tol=None, random_state=7, **params,
    ).fit(X, y, sample_weight=weights)  # fmt: skip
    K = 1 if n_classes == 2 else n_classes
    targets = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y.astype(float)
    order = epoch_orders(X.shape[0], 3, shuffle=True, random_state=7)
    expected = _reference_of(X, targets, weights, order, K, fit_intercept, params)
    _assert_weights(model, expected)
    # 120 rounds of 14-row sketches: it was shrunk, exactly, many times
    assert model._training.extras["sketch_rows"].max() <= 2 * EXACT


@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
def test_regressor_partial_fit_chunks_match_reference_after_every_call(update):
    X = _problem(seed=3)
    rng = np.random.default_rng(4)
    y = X @ rng.normal(size=X.shape[1]) + 0.1 * rng.normal(size=X.shape[0])
    weights = rng.uniform(0.5, 1.5, X.shape[0])
    params = dict(
        loss="squared_error", update=update, eta=0.3, delta=0.05, l1=0.0, l2=0.02
    )
    model = AdaGradRegressor(
        matrix="sketch", sketch_size=EXACT, normalize_y=False, **params
    )
    state = None
    for start, stop in [(0, 1), (1, 8), (8, 25), (25, 40)]:
        model.partial_fit(
            X[start:stop], y[start:stop], sample_weight=weights[start:stop]
        )
        state = _reference_of(
            X[start:stop], y[start:stop], weights[start:stop], None, 1, True, params,
            state=state,
        )  # fmt: skip
        _assert_weights(model, state, f"after row {stop}")


def test_a_small_sketch_keeps_frequent_directions_error_bound():
    # 40-dimensional gradients, a sketch of 5 directions: S^T S never exceeds
    # G, and misses it by at most |G|_F-norm-squared / m (Liberty 2013; the
    # trace of G, the sum of the gradients' squared norms, over m).
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 39)) * np.logspace(0, 1, 39)
    y = X @ rng.normal(size=39) + rng.normal(size=300)
    model = AdaGradRegressor(
        matrix="sketch", sketch_size=5, eta=0.1, normalize_y=False, max_iter=1,
        tol=None, shuffle=False,
    ).fit(X, y)  # fmt: skip
    reference = reference_full_adagrad(
        X, y, np.ones(300), n_outputs=1, loss="squared_error",
        update="dual_averaging", eta=0.1, delta=0.1, l1=0.0, l2=0.0,
        fit_intercept=True,
    )  # fmt: skip
    G = reference["G"][0]  # the same gradients: the rule does not matter here
    sketch = model._training.extras["sketch"][0]
    approximation = sketch.T @ sketch
    error = np.linalg.eigvalsh(G - approximation)
    assert error.min() > -1e-8 * np.trace(G)  # G - S^T S is PSD
    assert 0.0 < error.max() <= np.trace(G) / 5
    # the Gram matrix the kernel keeps is S S^T
    rows = model._training.extras["sketch_rows"][0]
    np.testing.assert_allclose(
        model._training.extras["sketch_gram"][0][:rows, :rows],
        sketch[:rows] @ sketch[:rows].T,
        rtol=1e-9,
        atol=1e-9 * np.trace(G),
    )


def test_it_learns_what_the_diagonal_cannot():
    # As the full matrix's test: two nearly collinear, very differently
    # scaled features; a sketch of 2 directions holds their whole G.
    rng = np.random.default_rng(0)
    z = rng.normal(size=(2000, 2))
    X = np.column_stack([z[:, 0], 30.0 * (z[:, 0] + 0.05 * z[:, 1])])
    truth = np.array([1.0, 0.2])
    y = X @ truth + 0.1 * rng.normal(size=2000)
    errors = {}
    for matrix in ("diag", "sketch"):
        model = AdaGradRegressor(
            matrix=matrix, sketch_size=3, eta=0.5, normalize_y=False, max_iter=1,
            tol=None, shuffle=False,
        ).fit(X, y)  # fmt: skip
        errors[matrix] = np.abs(model.coef_ - truth).sum()
    assert errors["sketch"] < 0.2 < 0.5 < errors["diag"]


def test_dual_averaging_weights_follow_a_change_of_parameters():
    X = _problem(seed=5)
    y = np.random.default_rng(6).integers(0, 2, X.shape[0])
    models = {
        matrix: AdaGradClassifier(
            matrix=matrix,
            sketch_size=EXACT,
            update="dual_averaging",
            eta=0.5,
            l1=0.0,
            l2=0.0,
        )  # fmt: skip
        for matrix in ("full", "sketch")
    }
    for model in models.values():
        model.partial_fit(X[:20], y[:20], classes=[0, 1])
        model.set_params(l2=0.02, eta=0.3)
        model.partial_fit(X[20:], y[20:])
    np.testing.assert_allclose(
        models["sketch"].coef_, models["full"].coef_, rtol=1e-8, atol=1e-10
    )


def test_assigned_weights_are_kept_by_dual_averaging():
    X = _problem(seed=8)
    y = np.random.default_rng(9).integers(0, 2, X.shape[0])
    model = AdaGradClassifier(
        matrix="sketch", sketch_size=3, update="dual_averaging", eta=0.5, l2=0.01
    )
    model.partial_fit(X, y, classes=[0, 1])
    wanted = np.linspace(-0.5, 0.5, X.shape[1])[np.newaxis, :]
    model.coef_ = wanted
    state = model._state_for_reading().copy()
    extras = model._training.extras
    arrays = (extras["sketch"], extras["sketch_gram"], extras["sketch_rows"])
    _sketch.sketch_da_weights_all(state, *arrays, model.t_, 0.5, 0.1, 0.01)
    np.testing.assert_allclose(state[:-1, 0, 0], wanted[0], rtol=1e-9, atol=1e-12)


def test_auto_tries_the_step_sizes_without_l1():
    X = _problem()
    y = np.arange(X.shape[0]) % 2
    model = AdaGradClassifier(matrix="sketch", sketch_size=3, random_state=0)
    model.fit(X, y)
    # the classifier's default rule (dual averaging) at 4 step sizes, no l1
    assert len(model.candidate_losses_) == 4
    assert {each["l1"] for each in model.candidate_params_} == {0.0}
    assert model.chosen_params_["l1"] == 0.0
    diagonal = AdaGradClassifier(random_state=0).fit(X, y)
    assert len(diagonal.candidate_losses_) == 16


def test_memory_guard_refuses_before_allocating():
    X = sp.random(10, 100_000, density=1e-4, format="csr", random_state=0)
    y = np.arange(10) % 3
    # 2 states x 3 outputs x (2 * 50 rows x 100,001 + 100^2) floats = 0.48 GB
    model = AdaGradClassifier(
        matrix="sketch", sketch_size=50, eta=0.3, max_matrix_bytes=4e8
    )
    with pytest.raises(ValueError, match="2 \\* sketch_size rows"):
        model.fit(X, y)
    assert not hasattr(model, "coef_")
    model.set_params(max_matrix_bytes=5e8).fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(l1=1e-4), "l1"),
        (dict(delta=0.0), "delta"),
        (dict(bound=1.0, update="mirror_descent"), "bound"),
        (dict(average=True), "average"),
        (dict(shards=2), "shards"),
        (dict(sketch_size=0), "sketch_size"),
    ],
)
def test_refuses_what_it_has_no_rule_for(params, match):
    X = _problem()
    y = np.arange(X.shape[0]) % 2
    with pytest.raises(ValueError, match=match):
        AdaGradClassifier(matrix="sketch", eta=0.3, **params).fit(X, y)


def test_a_change_of_sketch_size_is_refused_mid_training():
    X = _problem()
    y = np.arange(X.shape[0]) % 2
    model = AdaGradClassifier(matrix="sketch", sketch_size=3, eta=0.3).fit(X, y)
    model.set_params(sketch_size=4)
    with pytest.raises(ValueError, match="sketch_size=3"):
        model.partial_fit(X, y)
    model.set_params(sketch_size=3, matrix="full")
    with pytest.raises(ValueError, match="matrix='sketch'"):
        model.partial_fit(X, y)


def test_an_overflowing_gradient_stops_at_its_row_with_the_model_before_it():
    X = np.array([[1.0, 0.5], [0.3, -1.0], [1e200, 1e200], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 2.0, 0.0])
    model = AdaGradRegressor(matrix="sketch", normalize_y=False, eta=0.3)
    model.partial_fit(X[:2], y[:2])
    coef, intercept = model.coef_.copy(), model.intercept_.copy()
    sketch = model._training.extras["sketch"].copy()
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(X[2:], y[2:])
    assert model.t_ == 2
    np.testing.assert_array_equal(model.coef_, coef)
    np.testing.assert_array_equal(model.intercept_, intercept)
    np.testing.assert_array_equal(model._training.extras["sketch"], sketch)
