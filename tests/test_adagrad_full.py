"""Full-matrix AdaGrad (``matrix="full"``) against the literal reference
(tests/reference_adagrad_full.py: explicit G, its root by ``scipy.linalg.eigh``,
a generic solver for the l1 step), and what it refuses."""

import numpy as np
import pytest
import scipy.sparse as sp
from problems import epoch_orders
from reference_adagrad_full import (
    composite_minimizer,
    reference_full_adagrad,
    root_metric,
)

from sk_adaprox import AdaGradClassifier, AdaGradRegressor
from sk_adaprox._kernels import adagrad_full as _full

RTOL = 1e-8
REGULARIZATION = {
    "none": (0.0, 0.0),
    "l2": (0.0, 0.05),
    "l1": (0.02, 0.0),
    "l1+l2": (0.02, 0.05),
}


def _problem(n_samples=40, n_features=6, seed=0):
    """Correlated, unevenly scaled features, a third of them zero in each row."""
    rng = np.random.default_rng(seed)
    mixing = rng.normal(size=(n_features, n_features)) * np.logspace(0, 1, n_features)
    dense = rng.normal(size=(n_samples, n_features)) @ mixing / n_features
    dense[rng.random(dense.shape) < 0.33] = 0.0
    return sp.csr_matrix(dense)


def _reference_of(X, targets, weights, order, K, fit_intercept, params, **more):
    return reference_full_adagrad(
        X.toarray(),
        targets,
        weights,
        n_outputs=K,
        fit_intercept=fit_intercept,
        order=order,
        **params,
        **more,
    )


def _assert_weights(model, state, name=""):
    coef = np.atleast_2d(model.coef_)
    intercept = np.atleast_1d(model.intercept_)
    expected = state["w"]
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(
        coef, expected[:, :-1], rtol=RTOL, atol=RTOL * scale, err_msg=f"coef_ {name}"
    )
    np.testing.assert_allclose(
        intercept, expected[:, -1], rtol=RTOL, atol=RTOL * scale, err_msg=name
    )


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("regularization", list(REGULARIZATION))
@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_fit_matches_reference(
    n_classes, update, regularization, fit_intercept
):
    X = _problem()
    rng = np.random.default_rng(1)
    y = rng.integers(0, n_classes, X.shape[0])
    weights = rng.uniform(0.2, 2.0, X.shape[0])
    l1, l2 = REGULARIZATION[regularization]
    params = dict(loss="log_loss", update=update, eta=0.5, delta=0.1, l1=l1, l2=l2)
    model = AdaGradClassifier(
        matrix="full", fit_intercept=fit_intercept, max_iter=3, tol=None,
        random_state=7, **params,
    ).fit(X, y, sample_weight=weights)  # fmt: skip
    K = 1 if n_classes == 2 else n_classes
    targets = np.where(y == 1, 1.0, -1.0) if n_classes == 2 else y.astype(float)
    order = epoch_orders(X.shape[0], 3, shuffle=True, random_state=7)
    expected = _reference_of(X, targets, weights, order, K, fit_intercept, params)
    _assert_weights(model, expected)
    np.testing.assert_allclose(
        np.atleast_3d(model.grad_outer_sum_).reshape(expected["G"].shape),
        expected["G"],
        rtol=RTOL,
        atol=RTOL * np.abs(expected["G"]).max(),
    )
    if l1 > 0.0 and update == "dual_averaging":
        assert np.any(model.coef_ == 0.0)  # its l1 threshold gives exact zeros


@pytest.mark.parametrize("loss", ["squared_error", "huber"])
@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
def test_regressor_partial_fit_chunks_match_reference_after_every_call(loss, update):
    X = _problem(seed=3)
    rng = np.random.default_rng(4)
    y = X @ rng.normal(size=X.shape[1]) + 0.1 * rng.normal(size=X.shape[0])
    weights = rng.uniform(0.5, 1.5, X.shape[0])
    params = dict(loss=loss, update=update, eta=0.3, delta=0.05, l1=0.01, l2=0.02)
    model = AdaGradRegressor(matrix="full", normalize_y=False, epsilon=0.3, **params)
    state = None
    for start, stop in [(0, 1), (1, 8), (8, 25), (25, 40)]:
        model.partial_fit(
            X[start:stop], y[start:stop], sample_weight=weights[start:stop]
        )
        state = _reference_of(
            X[start:stop], y[start:stop], weights[start:stop], None, 1, True, params,
            epsilon=0.3, state=state,
        )  # fmt: skip
        _assert_weights(model, state, f"after row {stop}")


@pytest.mark.parametrize("update", ["mirror_descent", "dual_averaging"])
def test_a_pass_longer_than_the_refresh_interval_matches_reference(update):
    """The kernel updates G's eigendecomposition by rank-one changes and takes
    it afresh from G every _REFRESH_ROWS rows: a pass over more rows than that
    stays on the literal reference (a fresh eigendecomposition a row)."""
    n_samples = _full._REFRESH_ROWS + 300
    X = _problem(n_samples=n_samples, n_features=5, seed=8)
    rng = np.random.default_rng(9)
    y = X @ rng.normal(size=X.shape[1]) + 0.1 * rng.normal(size=n_samples)
    params = dict(loss="squared_error", update=update, eta=0.3, delta=0.05)
    params.update(l1=0.0, l2=0.01)
    model = AdaGradRegressor(
        matrix="full", normalize_y=False, max_iter=1, tol=None, shuffle=False,
        **params,
    ).fit(X, y)  # fmt: skip
    state = _reference_of(X, y, np.ones(n_samples), None, 1, True, params)
    _assert_weights(model, state)


def test_features_of_very_unequal_scales_match_reference():
    """A feature of scale 1e4 and one of 0.1 in separate rows: the small
    one's gradients are within rounding of G's largest eigenvalue, so each
    rank-one update deflates them away. Their sum is not negligible in the
    root: the kernel decomposes G afresh when it could be (a review's case;
    the weight was 432 against the reference's -5.5 without)."""
    rng = np.random.default_rng(0)
    n = 1000
    dense = np.zeros((n, 2))
    large = rng.random(n) < 0.5
    dense[large, 0] = rng.normal(size=large.sum()) * 1e4
    dense[~large, 1] = rng.normal(size=(~large).sum()) * 0.1
    y = dense @ [1e-4, 10.0] + 0.01 * rng.normal(size=n)
    params = dict(loss="squared_error", update="mirror_descent", eta=0.5)
    params.update(delta=1e-3, l1=0.0, l2=0.0)
    model = AdaGradRegressor(
        matrix="full", normalize_y=False, max_iter=1, tol=None, shuffle=False,
        fit_intercept=False, **params,
    ).fit(dense, y)  # fmt: skip
    X = sp.csr_matrix(dense)
    state = _reference_of(X, y, np.ones(n), None, 1, False, params)
    np.testing.assert_allclose(model.coef_, state["w"][0, :-1], rtol=1e-6)


def test_dual_averaging_weights_follow_a_change_of_parameters():
    X = _problem(seed=5)
    y = np.random.default_rng(6).integers(0, 2, X.shape[0])
    targets = np.where(y == 1, 1.0, -1.0)
    params = dict(loss="log_loss", update="dual_averaging", eta=0.5, delta=0.1)
    model = AdaGradClassifier(matrix="full", l1=0.0, l2=0.0, **params)
    model.partial_fit(X[:20], y[:20], classes=[0, 1])
    model.set_params(l1=0.03, l2=0.01)
    model.partial_fit(X[20:], y[20:])
    # Dual averaging's weights are a function of u, G and t: at the change
    # they are those of the first 20 rows' u and G under the new strengths,
    # and the reference continues from there.
    first = _reference_of(
        X[:20], targets[:20], np.ones(20), None, 1, True, dict(params, l1=0.0, l2=0.0)
    )
    H = root_metric(first["G"][0], 0.1)
    ridge = np.diag(np.append(np.full(X.shape[1], 0.5 * 20 * 0.01), 0.0))
    first["w"][0] = composite_minimizer(
        H + ridge, -0.5 * first["u"][0], 0.5 * 20 * 0.03
    )
    expected = _reference_of(
        X[20:], targets[20:], np.ones(20), None, 1, True,
        dict(params, l1=0.03, l2=0.01), state=first,
    )  # fmt: skip
    _assert_weights(model, expected)


def test_assigned_weights_are_kept_by_dual_averaging():
    X = _problem(seed=8)
    y = np.random.default_rng(9).integers(0, 2, X.shape[0])
    model = AdaGradClassifier(
        matrix="full", update="dual_averaging", eta=0.5, l1=0.01, l2=0.01
    )
    model.partial_fit(X, y, classes=[0, 1])
    wanted = np.linspace(-0.5, 0.5, X.shape[1])[np.newaxis, :]
    wanted[0, 2] = 0.0
    model.coef_ = wanted
    # u was set so that the weights of u, G and t are the assigned ones.
    state = model._state_for_reading().copy()
    parameters = model._training.parameters
    gram = model._training.extras["gram"]
    _full.da_weights_all(state, gram, model.t_, *parameters.steps())
    np.testing.assert_allclose(state[:-1, 0, 0], wanted[0], rtol=1e-9, atol=1e-12)


def test_the_solver_finds_the_generic_solvers_minimiser():
    rng = np.random.default_rng(10)
    A = rng.normal(size=(7, 7))
    H = A @ A.T + 0.1 * np.eye(7)
    b = rng.normal(size=7) * 3.0
    for tau in (0.0, 0.5, 2.0, 50.0):
        w = np.zeros(7)
        _full.composite_solve(H.copy(), b, 0.3, tau, w)
        Q = H + 0.3 * np.diag(np.append(np.ones(6), 0.0))
        np.testing.assert_allclose(
            w, composite_minimizer(Q, b, tau), rtol=1e-9, atol=1e-12
        )
        if tau == 50.0:
            assert np.all(w[:-1] == 0.0)  # every feature thresholded


def test_full_matrix_learns_what_the_diagonal_cannot():
    # Two nearly collinear, very differently scaled features: the diagonal's
    # per-coordinate steps crawl along the long valley of the loss; the full
    # matrix's metric follows it, and one pass finds the true weights.
    rng = np.random.default_rng(0)
    z = rng.normal(size=(2000, 2))
    X = np.column_stack([z[:, 0], 30.0 * (z[:, 0] + 0.05 * z[:, 1])])
    truth = np.array([1.0, 0.2])
    y = X @ truth + 0.1 * rng.normal(size=2000)
    errors = {}
    for matrix in ("diag", "full"):
        model = AdaGradRegressor(
            matrix=matrix, eta=0.5, normalize_y=False, max_iter=1, tol=None,
            shuffle=False,
        ).fit(X, y)  # fmt: skip
        errors[matrix] = np.abs(model.coef_ - truth).sum()
    assert errors["full"] < 0.2 < 0.5 < errors["diag"]


def test_memory_guard_refuses_before_allocating():
    X = sp.random(10, 3000, density=0.01, format="csr", random_state=0)
    y = np.arange(10) % 3
    model = AdaGradClassifier(matrix="full", eta=0.3, l1=0.0, max_matrix_bytes=5e8)
    with pytest.raises(ValueError, match="max_matrix_bytes"):
        model.fit(X, y)  # (2 states + a pass's 3) x 3 outputs x 3001^2 floats = 1.1 GB
    assert not hasattr(model, "coef_")


def test_memory_guard_counts_the_auto_candidates():
    X = sp.random(30, 40, density=0.3, format="csr", random_state=0)
    y = np.arange(30) % 2
    matrix = 8 * 41**2  # one (d + 1)^2 matrix, one output
    # A state keeps G; a pass works with three more (the round's G, G's
    # eigenvectors and their round's copy).
    fixed = AdaGradClassifier(
        matrix="full", eta=0.3, l1=0.0, max_matrix_bytes=5.5 * matrix
    )
    fixed.fit(X, y)  # one candidate and one kept state, and a pass: 5 fit
    auto = AdaGradClassifier(matrix="full", max_matrix_bytes=5.5 * matrix)
    with pytest.raises(ValueError, match="17 training states"):
        auto.fit(X, y)  # 16 candidates, one kept state and a pass: 20 do not
    with pytest.raises(ValueError, match="max_matrix_bytes"):
        fixed.set_params(max_matrix_bytes=4.5 * matrix).fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(delta=0.0), "delta"),
        (dict(bound=1.0, update="mirror_descent"), "bound"),
        (dict(average=True), "average"),
        (dict(shards=2), "shards"),
    ],
)
def test_refuses_what_it_has_no_rule_for(params, match):
    X = _problem()
    y = np.arange(X.shape[0]) % 2
    with pytest.raises(ValueError, match=match):
        AdaGradClassifier(matrix="full", eta=0.3, l1=0.0, **params).fit(X, y)


def test_a_change_of_matrix_is_refused_mid_training():
    X = _problem()
    y = np.arange(X.shape[0]) % 2
    model = AdaGradClassifier(matrix="full", eta=0.3, l1=0.0).fit(X, y)
    model.set_params(matrix="diag")
    with pytest.raises(ValueError, match="matrix='full'"):
        model.partial_fit(X, y)


def test_l1_step_is_exact_on_an_ill_conditioned_matrix():
    # Nearly rank-4 features with scales 1 to 100: H is ill-conditioned in the
    # first rows, where coordinate descent alone crawls; feature-sign search
    # still ends at the minimiser the generic solver finds.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6, 4)) @ rng.normal(size=(4, 20))
    X = (X + 0.01 * rng.normal(size=X.shape)) * np.logspace(0, 2, 20)
    y = X @ rng.normal(size=20) / 100 + 0.1 * rng.normal(size=6)
    params = dict(
        loss="squared_error", update="mirror_descent", eta=0.1, delta=0.1,
        l1=0.01, l2=0.0,
    )  # fmt: skip
    model = AdaGradRegressor(matrix="full", normalize_y=False, **params)
    state = None
    for row in range(6):
        model.partial_fit(X[row : row + 1], y[row : row + 1])
        state = reference_full_adagrad(
            X[row : row + 1], y[row : row + 1], np.ones(1), n_outputs=1,
            fit_intercept=True, state=state, **params,
        )  # fmt: skip
        _assert_weights(model, state, f"after row {row + 1}")


def test_an_overflowing_gradient_stops_at_its_row_with_the_model_before_it():
    X = np.array([[1.0, 0.5], [0.3, -1.0], [1e200, 1e200], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 2.0, 0.0])
    model = AdaGradRegressor(matrix="full", normalize_y=False, eta=0.3)
    model.partial_fit(X[:2], y[:2])
    coef, intercept = model.coef_.copy(), model.intercept_.copy()
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(X[2:], y[2:])
    assert model.t_ == 2
    np.testing.assert_array_equal(model.coef_, coef)
    np.testing.assert_array_equal(model.intercept_, intercept)
