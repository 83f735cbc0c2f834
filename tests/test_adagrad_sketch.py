"""Sketched full-matrix AdaGrad (``matrix="sketch"``, Ada-FD): with at least as
many directions as the gradients' rank it is the full matrix, checked against
the literal reference (tests/reference_adagrad_full.py); with fewer, its G is
Frequent Directions' approximation, within that sketch's error bound; and what
it refuses."""

import numpy as np
import pytest
import scipy.sparse as sp
from problems import epoch_orders
from reference_adagrad_sketch import reference_sketched_adagrad
from test_adagrad_full import _assert_weights, _problem, _reference_of

from sk_adaprox import AdaGradClassifier, AdaGradRegressor

# _problem has 6 features: with the intercept, gradients of rank 7 at most, so
# 7 directions keep the sketch exact (its shrinks drop a zero value).
EXACT = 7


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("l2", [0.0, 0.05])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_with_m_at_least_the_rank_it_is_the_full_matrix(n_classes, l2, fit_intercept):
    X = _problem()
    rng = np.random.default_rng(1)
    y = rng.integers(0, n_classes, X.shape[0])
    weights = rng.uniform(0.2, 2.0, X.shape[0])
    params = dict(
        loss="log_loss", update="mirror_descent", eta=0.5, delta=0.1, l1=0.0, l2=l2
    )
    model = AdaGradClassifier(
        matrix="sketch", sketch_size=EXACT, fit_intercept=fit_intercept,
        max_iter=3, tol=None, random_state=7, **params,
    ).fit(X, y, sample_weight=weights)  # fmt: skip
    K = 1 if n_classes == 2 else n_classes
    targets = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y.astype(float)
    order = epoch_orders(X.shape[0], 3, shuffle=True, random_state=7)
    expected = _reference_of(X, targets, weights, order, K, fit_intercept, params)
    _assert_weights(model, expected)


@pytest.mark.parametrize("l2", [0.0, 0.02])
@pytest.mark.parametrize("sketch_size", [1, 2, 4])
def test_with_fewer_directions_it_is_the_literal_ada_fd(sketch_size, l2):
    # 12 features: a sketch of 1, 2 or 4 directions shrinks with loss
    # (sigma_{m+1} > 0), so this checks the shrink and the products the kernel
    # carries over it against the reference's explicit SVD.
    rng = np.random.default_rng(11)
    X = rng.normal(size=(120, 12)) * np.logspace(0, 0.5, 12)
    X[rng.random(X.shape) < 0.3] = 0.0
    y = X @ rng.normal(size=12) / 3 + 0.3 * rng.normal(size=120)
    params = dict(update="mirror_descent", eta=0.3, delta=0.1, l2=l2)
    model = AdaGradRegressor(
        matrix="sketch", sketch_size=sketch_size, normalize_y=False, max_iter=1,
        tol=None, shuffle=False, **params,
    ).fit(X, y)  # fmt: skip
    w, sketches = reference_sketched_adagrad(
        X, y, np.ones(120), n_outputs=1, loss="squared_error",
        sketch_size=sketch_size, fit_intercept=True, **params,
    )  # fmt: skip
    _assert_weights(model, {"w": w})
    sketch = model._training.extras["sketch"][0]
    rows = model._training.extras["sketch_rows"][0]
    assert rows == sketches[0].shape[0] and rows <= 2 * sketch_size
    # the same S^T S (rows agree up to a rotation within the sketch)
    np.testing.assert_allclose(
        sketch[:rows].T @ sketch[:rows], sketches[0].T @ sketches[0],
        rtol=1e-8, atol=1e-8 * np.abs(sketches[0]).max() ** 2,
    )  # fmt: skip


def test_multiclass_sample_weights_with_fewer_directions():
    # Three one-vs-rest outputs, each its own lossy sketch, sample weights.
    rng = np.random.default_rng(12)
    X = rng.normal(size=(90, 8))
    y = rng.integers(0, 3, 90)
    weights = rng.uniform(0.2, 2.0, 90)
    params = dict(update="mirror_descent", eta=0.3, delta=0.1, l2=0.01)
    model = AdaGradClassifier(
        matrix="sketch", sketch_size=2, l1=0.0, max_iter=1, tol=None,
        shuffle=False, **params,
    ).fit(X, y, sample_weight=weights)  # fmt: skip
    w, _ = reference_sketched_adagrad(
        X, y.astype(float), weights, n_outputs=3, loss="log_loss", sketch_size=2,
        fit_intercept=True, **params,
    )  # fmt: skip
    _assert_weights(model, {"w": w})


def test_regressor_partial_fit_chunks_match_reference_after_every_call():
    X = _problem(seed=3)
    rng = np.random.default_rng(4)
    y = X @ rng.normal(size=X.shape[1]) + 0.1 * rng.normal(size=X.shape[0])
    weights = rng.uniform(0.5, 1.5, X.shape[0])
    params = dict(
        loss="squared_error",
        update="mirror_descent",
        eta=0.3,
        delta=0.05,
        l1=0.0,
        l2=0.02,
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
    # G of the model's own gradients: its weights, hence its gradients, are
    # the literal reference's
    w, _ = reference_sketched_adagrad(
        X, y, np.ones(300), n_outputs=1, loss="squared_error",
        update="mirror_descent", eta=0.1, delta=0.1, l2=0.0, sketch_size=5,
        fit_intercept=True,
    )  # fmt: skip
    _assert_weights(model, {"w": w})
    G = _gradients_outer_sum(X, y, model)
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


def _gradients_outer_sum(X, y, model):
    """sum g g^T of a squared-error regressor's one pass over X in order, from
    the weights of a model trained again row by row."""
    again = AdaGradRegressor(**model.get_params())
    total = np.zeros((X.shape[1] + 1, X.shape[1] + 1))
    for i in range(X.shape[0]):
        if i == 0:
            prediction = 0.0
        else:
            prediction = float(again.predict(X[i : i + 1])[0])
        g = (prediction - y[i]) * np.append(X[i], 1.0)
        total += np.outer(g, g)
        again.partial_fit(X[i : i + 1], y[i : i + 1])
    return total


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


def test_a_change_of_parameters_continues_as_the_full_matrix():
    X = _problem(seed=5)
    y = np.random.default_rng(6).integers(0, 2, X.shape[0])
    models = {
        matrix: AdaGradClassifier(
            matrix=matrix,
            sketch_size=EXACT,
            update="mirror_descent",
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


def test_assigned_weights_continue_as_the_full_matrix():
    # Assigned weights, then more rows: as the full matrix (an independent
    # implementation of the same rule at m >= rank) continues from them.
    X = _problem(seed=8)
    y = np.random.default_rng(9).integers(0, 2, X.shape[0])
    wanted = np.linspace(-0.5, 0.5, X.shape[1])[np.newaxis, :]
    models = {}
    for matrix in ("full", "sketch"):
        model = AdaGradClassifier(
            matrix=matrix, sketch_size=EXACT, update="mirror_descent", eta=0.5,
            l1=0.0, l2=0.01,
        )  # fmt: skip
        model.partial_fit(X[:25], y[:25], classes=[0, 1])
        model.coef_ = wanted
        np.testing.assert_allclose(model.coef_, wanted, rtol=1e-9, atol=1e-12)
        models[matrix] = model.partial_fit(X[25:], y[25:])
    np.testing.assert_allclose(
        models["sketch"].coef_, models["full"].coef_, rtol=1e-8, atol=1e-10
    )


def test_auto_tries_the_step_sizes_without_l1():
    X = _problem()
    y = np.arange(X.shape[0]) % 2
    model = AdaGradClassifier(
        matrix="sketch", sketch_size=3, update="auto", random_state=0
    ).fit(X, y)
    # mirror descent at 4 step sizes, no l1
    assert len(model.candidate_losses_) == 4
    assert {each["l1"] for each in model.candidate_params_} == {0.0}
    assert {each["update"] for each in model.candidate_params_} == {"mirror_descent"}
    assert model.chosen_params_["l1"] == 0.0
    diagonal = AdaGradClassifier(random_state=0).fit(X, y)
    assert len(diagonal.candidate_losses_) == 16


def test_memory_guard_refuses_before_allocating():
    X = sp.random(10, 100_000, density=1e-4, format="csr", random_state=0)
    y = np.arange(10) % 3
    # 2 states x 3 outputs x (2 * 50 rows x 100,001 + 100^2) floats = 0.48 GB
    model = AdaGradClassifier(
        matrix="sketch", sketch_size=50, update="mirror_descent", eta=0.3,
        max_matrix_bytes=4e8,
    )  # fmt: skip
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
        (dict(update="dual_averaging"), "update='mirror_descent'"),
        (dict(average=True), "average"),
        (dict(shards=2), "shards"),
        (dict(sketch_size=0), "sketch_size"),
    ],
)
def test_refuses_what_it_has_no_rule_for(params, match):
    X = _problem()
    y = np.arange(X.shape[0]) % 2
    with pytest.raises(ValueError, match=match):
        model = AdaGradClassifier(matrix="sketch", update="mirror_descent", eta=0.3)
        model.set_params(**params).fit(X, y)


def test_a_change_of_sketch_size_is_refused_mid_training():
    X = _problem()
    y = np.arange(X.shape[0]) % 2
    model = AdaGradClassifier(
        matrix="sketch", sketch_size=3, update="mirror_descent", eta=0.3
    ).fit(X, y)
    model.set_params(sketch_size=4)
    with pytest.raises(ValueError, match="sketch_size=3"):
        model.partial_fit(X, y)
    model.set_params(sketch_size=3, matrix="full")
    with pytest.raises(ValueError, match="matrix='sketch'"):
        model.partial_fit(X, y)


@pytest.mark.parametrize("loss", ["log_loss", "multinomial"])
def test_an_overflowing_gradient_stops_at_its_row_with_the_model_before_it(loss):
    # Three outputs whose sketches of one direction are full (2 rows) when the
    # overflowing row comes: the first output shrinks, then the row is
    # refused; every output's sketch, Gram matrix and row count as before it.
    X = np.array([[1.0, 0.5], [0.3, -1.0], [1e200, 1e200], [1.0, 1.0]])
    y = np.array([0, 1, 2, 0])
    model = AdaGradClassifier(
        matrix="sketch", sketch_size=1, update="mirror_descent", eta=0.3,
        loss=loss, shuffle=False,
    )  # fmt: skip
    model.partial_fit(X[:2], y[:2], classes=[0, 1, 2])
    extras = model._training.extras
    assert list(extras["sketch_rows"]) == [2, 2, 2]
    coef, intercept = model.coef_.copy(), model.intercept_.copy()
    before = extras["sketch"].copy()
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(X[2:], y[2:])
    assert model.t_ == 2
    np.testing.assert_array_equal(model.coef_, coef)
    np.testing.assert_array_equal(model.intercept_, intercept)
    # A shrink before the refused row stays (the row's insertion would repeat
    # it); nothing of the row is left: each sketch spans what it spanned.
    for k in range(3):
        rows = extras["sketch_rows"][k]
        sketch = extras["sketch"][k]
        assert rows in (1, 2)
        assert np.linalg.matrix_rank(np.vstack([before[k], sketch])) == (
            np.linalg.matrix_rank(before[k])
        )
        np.testing.assert_allclose(
            extras["sketch_gram"][k][:rows, :rows], sketch[:rows] @ sketch[:rows].T,
            atol=1e-12,
        )  # fmt: skip
        assert not sketch[rows:].any() and not extras["sketch_gram"][k][rows:].any()
