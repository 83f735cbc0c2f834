"""What ONS adds to the guarantees every estimator has: the matrix memory budget,
its matrices as fitted state, l1 (the diagonal's only), and divergence errors
checked against its reference.

The generic suites (input formats, partial_fit, pickling, ...) cover ONS through
``estimators.ALGORITHMS``; the update itself is checked in test_ons_vs_reference.py.
"""

import pickle
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from reference_ons import coef_and_intercept, initial_state, reference_ons

from sk_adaprox import ONSClassifier, ONSRegressor

MATRICES = ["full", "diag", "sketch"]


def _regression(n_samples=60, n_features=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    return X, X @ rng.normal(size=n_features) + 0.1 * rng.normal(size=n_samples)


# -- the memory budget -----------------------------------------------------------


@pytest.mark.parametrize("partial", [False, True])
def test_full_matrix_over_budget_is_refused_before_allocating(partial):
    X = sp.random(5, 20_000, density=1e-3, format="csr", random_state=0)
    y = np.arange(5.0)
    reg = ONSRegressor(normalize_y=False, matrix="full")  # A^-1 would be 3.2 GB
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"3\.2 GB.*matrix='diag'.*'sketch'"):
            reg.partial_fit(X, y) if partial else reg.fit(X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10e6
    assert not hasattr(reg, "n_features_in_") and not hasattr(reg, "t_")
    # Within a raised budget the same data trains; diag needs none.
    ONSRegressor(normalize_y=False, matrix="diag").fit(X, y)


def test_refused_refit_leaves_the_fitted_model_as_it_was():
    X, y = _regression()
    reg = ONSRegressor(normalize_y=False, matrix="full", max_matrix_bytes=1e5)
    reg.fit(X, y)
    coef, a_inv = reg.coef_.copy(), reg.A_inv_.copy()
    wide = np.hstack([X] * 30)  # 151^2 * 8 bytes > 1e5
    with pytest.raises(ValueError, match="max_matrix_bytes"):
        reg.fit(wide, y)
    assert reg.n_features_in_ == 5
    np.testing.assert_array_equal(reg.coef_, coef)
    np.testing.assert_array_equal(reg.A_inv_, a_inv)
    np.testing.assert_array_equal(reg.predict(X), X @ coef + reg.intercept_)


def test_sketch_budget_counts_its_rows():
    X, y = _regression(n_features=1000)
    with pytest.raises(ValueError, match="sketch"):
        ONSRegressor(
            normalize_y=False, matrix="sketch", sketch_size=50, max_matrix_bytes=5e5
        ).fit(X, y)


# -- matrix="auto" ----------------------------------------------------------------


@pytest.mark.parametrize(
    "n_features, n_classes, expected",
    [(180, 2, "full"), (181, 2, "diag"), (89, 4, "full"), (90, 4, "diag")],
)
def test_auto_keeps_the_full_matrix_while_it_takes_256_kib(
    n_features, n_classes, expected
):
    """(d + 1)^2 * 8 bytes * K outputs <= 256 KiB: d <= 180 for one output, d <= 89
    for four (one-vs-rest)."""
    X = sp.random(40, n_features, density=0.05, format="csr", random_state=1)
    y = np.arange(40) % n_classes
    auto = ONSClassifier(random_state=0).fit(X, y)
    assert auto.matrix == "auto" and auto.matrix_ == expected
    explicit = ONSClassifier(matrix=expected, random_state=0).fit(X, y)
    np.testing.assert_array_equal(auto.coef_, explicit.coef_)
    np.testing.assert_array_equal(auto.intercept_, explicit.intercept_)
    assert hasattr(auto, "A_inv_") == (expected == "full")


def test_auto_trains_wide_data_that_full_refuses():
    X = sp.random(50, 200_000, density=1e-4, format="csr", random_state=0)
    y = np.arange(50) % 2
    with pytest.raises(ValueError, match="max_matrix_bytes"):
        ONSClassifier(matrix="full").fit(X, y)
    clf = ONSClassifier().fit(X, y)
    assert clf.matrix_ == "diag"
    assert clf.sum_sq_grad_.shape == (1, 200_000)


def test_auto_decides_anew_when_a_refit_changes_the_width():
    X = sp.random(60, 400, density=0.05, format="csr", random_state=0)
    y = np.arange(60) % 2
    clf = ONSClassifier(random_state=0).fit(X[:, :50], y)
    assert clf.matrix_ == "full" and hasattr(clf, "A_inv_")
    clf.fit(X, y)
    assert clf.matrix_ == "diag" and not hasattr(clf, "A_inv_")
    np.testing.assert_array_equal(
        clf.coef_, ONSClassifier(matrix="diag", random_state=0).fit(X, y).coef_
    )
    clf.fit(X[:, :50], y)
    assert clf.matrix_ == "full" and not hasattr(clf, "sum_sq_grad_")
    np.testing.assert_array_equal(
        clf.A_inv_,
        ONSClassifier(matrix="full", random_state=0).fit(X[:, :50], y).A_inv_,
    )


def test_auto_respects_a_smaller_memory_budget():
    X, y = _regression(n_features=20)  # A^-1: 21^2 * 8 = 3528 bytes
    assert ONSRegressor(max_matrix_bytes=4000).fit(X, y).matrix_ == "full"
    assert ONSRegressor(max_matrix_bytes=3000).fit(X, y).matrix_ == "diag"


def test_auto_is_decided_once_and_streams_on():
    X, y = _regression()
    reg = ONSRegressor(normalize_y=False).partial_fit(X[:30], y[:30])
    assert reg.matrix_ == "full"
    literal = ONSRegressor(normalize_y=False, matrix="full")
    literal.partial_fit(X[:30], y[:30])
    # The same variant named explicitly continues the state; "auto" again too.
    reg.set_params(matrix="full").partial_fit(X[30:45], y[30:45])
    reg.set_params(matrix="auto").partial_fit(X[45:], y[45:])
    literal.partial_fit(X[30:45], y[30:45]).partial_fit(X[45:], y[45:])
    np.testing.assert_array_equal(reg.coef_, literal.coef_)
    np.testing.assert_array_equal(reg.A_inv_, literal.A_inv_)
    restored = pickle.loads(pickle.dumps(reg))
    assert restored.matrix_ == "full"
    # A model trained with "diag" on narrow data: "auto" would mean "full" here.
    diag = ONSRegressor(normalize_y=False, matrix="diag").partial_fit(X, y)
    diag.set_params(matrix="auto")
    with pytest.raises(ValueError, match=r"matrix='auto' \(here 'full'\).*'diag'"):
        diag.partial_fit(X, y)


def test_matrix_attribute_before_fit_is_missing():
    assert not hasattr(ONSClassifier(), "matrix_")


# -- matrices as fitted state ------------------------------------------------------


@pytest.mark.parametrize("matrix", MATRICES)
def test_only_the_variants_matrices_exist(matrix):
    X, y = _regression()
    reg = ONSRegressor(normalize_y=False, matrix=matrix, sketch_size=2).fit(X, y)
    present = {name for name in ("A_inv_", "S_", "H_") if hasattr(reg, name)}
    assert (
        present == {"full": {"A_inv_"}, "diag": set(), "sketch": {"S_", "H_"}}[matrix]
    )
    assert hasattr(reg, "sum_sq_grad_") == (matrix == "diag")


def test_changing_the_matrix_mid_stream_is_refused():
    X, y = _regression()
    reg = ONSRegressor(normalize_y=False, matrix="full").partial_fit(X[:30], y[:30])
    before = reg.coef_.copy(), reg.A_inv_.copy(), reg.t_
    for change in (dict(matrix="diag"), dict(matrix="sketch")):
        reg.set_params(**change)
        with pytest.raises(ValueError, match="cannot be continued.*warm_start=False"):
            reg.partial_fit(X[30:], y[30:])
        reg.set_params(matrix="full")
        np.testing.assert_array_equal(reg.coef_, before[0])
        np.testing.assert_array_equal(reg.A_inv_, before[1])
        assert reg.t_ == before[2]
    sketch = ONSRegressor(
        normalize_y=False, matrix="sketch", sketch_size=2
    ).partial_fit(X, y)
    sketch.set_params(sketch_size=3)
    with pytest.raises(ValueError, match="sketch_size=2"):
        sketch.partial_fit(X, y)
    # A new fit (no warm start) adopts the new matrix.
    reg.set_params(matrix="diag").fit(X, y)
    assert not hasattr(reg, "A_inv_") and hasattr(reg, "sum_sq_grad_")


@pytest.mark.parametrize("matrix", MATRICES)
def test_sparsify_drops_the_matrices_and_predicts_the_same(matrix):
    X, y = _regression()
    clf = ONSClassifier(matrix=matrix, sketch_size=2, random_state=0)
    clf.fit(X, y > 0)
    expected = clf.decision_function(X)
    size = len(pickle.dumps(clf))
    clf.sparsify()
    np.testing.assert_allclose(clf.decision_function(X), expected, rtol=1e-13)
    assert not any(hasattr(clf, n) for n in ("A_inv_", "S_", "H_", "sum_sq_grad_"))
    assert clf._training.array is None and clf._training.extras == {}
    if matrix != "diag":  # the diag state is no larger than CSR weights here
        assert len(pickle.dumps(clf)) < size
    with pytest.raises(ValueError, match="sparsified"):
        clf.partial_fit(X, y > 0)


def test_multiclass_keeps_one_matrix_per_class():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 4))
    y = np.repeat([0, 1, 2], 30)
    clf = ONSClassifier(max_iter=1, tol=None, shuffle=False).fit(X, y)
    assert clf.A_inv_.shape == (3, 5, 5)
    # Each class's A^-1 is that of its own one-vs-rest binary problem.
    for k in range(3):
        binary = ONSClassifier(max_iter=1, tol=None, shuffle=False)
        binary.fit(X, y == k)
        np.testing.assert_allclose(clf.A_inv_[k], binary.A_inv_[0], rtol=1e-10)
        np.testing.assert_allclose(clf.coef_[k], binary.coef_[0], rtol=1e-10)


@pytest.mark.parametrize("l1", [0.0, 1e-3])
def test_diag_partial_fit_costs_the_rows_non_zeros(l1):
    """One row into a 2,000,000-feature diag model with a (inactive) radius: no
    allocation of the features' size; with l1 no sweep either: the idle
    features' shrink waits for their next row."""
    n_features = 2_000_000
    X = sp.csr_matrix(
        (np.ones(3), np.array([5, 70, 1_999_999]), np.array([0, 3])),
        shape=(1, n_features),
    )
    reg = ONSRegressor(normalize_y=False, matrix="diag", l1=l1, radius=1e6).partial_fit(
        X, [1.0]
    )
    reg.partial_fit(X, [1.0])  # compile the fast path
    tracemalloc.start()
    reg.partial_fit(X, [2.0])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 100_000  # a copy of the weights alone would be 16 MB
    assert reg.t_ == 3
    if l1 > 0.0:  # an idle feature was never caught up (LAST_ROUND, slot 2)
        assert reg._state[6, 2, 0] == 0.0 and reg._state[5, 2, 0] == 3.0


# -- l1 ------------------------------------------------------------------------


@pytest.mark.parametrize("matrix", ["full", "sketch"])
def test_l1_needs_the_diagonal(matrix):
    X, y = _regression()
    reg = ONSRegressor(normalize_y=False, matrix=matrix, l1=0.01, sketch_size=2)
    with pytest.raises(ValueError, match=rf"l1=0.01 needs matrix='diag'.*'{matrix}'"):
        reg.fit(X, y)
    # A stream that matrix="auto" started on the full matrix says so.
    stream = ONSRegressor(normalize_y=False).partial_fit(X, y)
    stream.set_params(l1=0.01)
    with pytest.raises(ValueError, match=r"'full'. matrix='auto' chose it.*fit"):
        stream.partial_fit(X, y)
    # "auto" takes the diagonal for an l1 set > 0, however narrow the data.
    auto = ONSRegressor(normalize_y=False, l1=0.01, random_state=0).fit(X, y)
    diag = ONSRegressor(normalize_y=False, matrix="diag", l1=0.01, random_state=0)
    assert auto.matrix_ == "diag"
    np.testing.assert_array_equal(auto.coef_, diag.fit(X, y).coef_)


@pytest.mark.parametrize("matrix", ["auto", "full", "sketch"])
def test_l1_auto_is_no_l1_without_the_diagonal(matrix):
    """l1="auto" (the default) has no candidates where the matrix is not the
    diagonal ("auto" on 5 features is the full matrix): the model is l1=0's."""
    X, y = _regression()
    params = dict(normalize_y=False, matrix=matrix, sketch_size=2, random_state=0)
    model = ONSRegressor(**params).fit(X, y)
    plain = ONSRegressor(**params, l1=0.0).fit(X, y)
    assert model.matrix_ == ("full" if matrix == "auto" else matrix)
    assert not hasattr(model, "chosen_params_")
    np.testing.assert_array_equal(model.coef_, plain.coef_)
    # Given weights are allowed: there is nothing to choose.
    ONSRegressor(**params).fit(X, y, coef_init=np.ones(X.shape[1]))
    with pytest.raises(ValueError, match="'auto'"):
        ONSRegressor(normalize_y=False, matrix="diag").fit(
            X, y, coef_init=np.ones(X.shape[1])
        )


def test_given_weights_shrink_from_the_first_round():
    """coef_init with l1: a feature no row touches still loses
    l1 / (gamma eps) per round, as the reference's every-round proximal step
    does, though the lazy kernel never visits it until it is read."""
    rng = np.random.default_rng(3)
    X = np.zeros((40, 6))
    X[:, :3] = rng.normal(size=(40, 3))  # features 3-5 stay idle
    y = X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=40)
    coef_init = np.array([0.5, -0.5, 0.2, 0.9, -0.45, 0.015])
    params = dict(matrix="diag", gamma=0.5, eps=2.0, l1=0.01)
    reg = ONSRegressor(
        normalize_y=False, **params, max_iter=1, tol=None, shuffle=False
    ).fit(X, y, coef_init=coef_init, intercept_init=0.3)
    state = initial_state(1, 6, "diag", params["eps"])
    state["w"][0] = np.r_[coef_init, 0.3]
    expected, _ = reference_ons(
        X, y, np.ones(40), n_outputs=1, loss="squared_error", state=state, **params
    )
    coef, intercept = coef_and_intercept(expected)
    np.testing.assert_allclose(reg.coef_, coef[0], rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(reg.intercept_, intercept[0], rtol=1e-10)
    # |w| - 40 * 0.01 / (0.5 * 2): 0.9 -> 0.5, -0.45 -> -0.05, 0.015 -> 0.
    np.testing.assert_allclose(reg.coef_[3:], [0.5, -0.05, 0.0], atol=1e-12)


def test_assigned_sum_sq_grad_sets_the_idle_shrink():
    """Assigning G changes each idle round's l1 / (gamma (eps + G)): the lazy
    rounds after it shrink at the new rate, as the reference's every-round step
    with the assigned A does."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 6)) * (rng.random((60, 6)) < 0.3)
    y = X @ rng.normal(size=6) + 0.1 * rng.normal(size=60)
    params = dict(matrix="diag", gamma=0.5, eps=1.0, l1=0.02)
    reg = ONSRegressor(normalize_y=False, **params).partial_fit(X[:30], y[:30])
    expected, _ = reference_ons(
        X[:30], y[:30], np.ones(30), n_outputs=1, loss="squared_error", **params
    )
    reg.sum_sq_grad_ = np.full(6, 0.01)
    expected["A"][0][np.arange(6), np.arange(6)] = params["eps"] + 0.01
    # Every feature's idle shrink is recorded anew, at the scale m as it is.
    total, total_weight = expected["scale_sums"]
    scale = total / total_weight
    expected["thresholds"][:] = (
        params["l1"]
        * np.sqrt(scale)
        / (params["gamma"] * (params["eps"] * scale + 0.01))
    )
    reg.partial_fit(X[30:], y[30:])
    expected, _ = reference_ons(
        X[30:],
        y[30:],
        np.ones(30),
        n_outputs=1,
        loss="squared_error",
        state=expected,
        **params,
    )
    coef, intercept = coef_and_intercept(expected)
    np.testing.assert_allclose(reg.coef_, coef[0], rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(reg.intercept_, intercept[0], rtol=1e-10)


# -- divergence ------------------------------------------------------------------


@pytest.mark.parametrize("matrix", MATRICES)
def test_overflowing_row_stops_before_it(matrix):
    X = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1e300, 0.0, 0.0], [1.0, 0, 0]])
    y = np.array([1.0, 2.0, 1.0, 0.5])
    params = dict(matrix=matrix, gamma=1e-3, eps=1.0, l1=0.0, sketch_size=2)
    reg = ONSRegressor(normalize_y=False, **params, shuffle=False, max_iter=1, tol=None)
    with pytest.raises(ValueError, match=r"row 2 .*not finite.*larger gamma"):
        reg.fit(X, y)
    assert reg.t_ == 2
    state, _ = reference_ons(
        X[:2], y[:2], np.ones(2), n_outputs=1, loss="squared_error", **params
    )
    coef, intercept = coef_and_intercept(state)
    np.testing.assert_allclose(reg.coef_, coef[0], rtol=1e-10)
    np.testing.assert_allclose(reg.intercept_, intercept, rtol=1e-10)
    if matrix == "full":  # large steps, but finite (the others follow the flow)
        assert np.abs(reg.coef_).max() > 1.0


@pytest.mark.parametrize("matrix", MATRICES)
def test_nonfinite_update_is_not_applied(matrix):
    X, y = _regression()
    reg = ONSRegressor(normalize_y=False, matrix=matrix, sketch_size=2).fit(X, y)
    saved = pickle.dumps(reg)
    with pytest.raises(ValueError, match=r"row 1 .*update is not finite"):
        reg.partial_fit(X[:3], [0.0, 1e200, 0.0])  # the gradient squared overflows
    assert reg.t_ == pickle.loads(saved).t_ + 1
    # Only the first row was learned: the same as learning it alone.
    expected = pickle.loads(saved).partial_fit(X[:1], [0.0])
    np.testing.assert_array_equal(reg.coef_, expected.coef_)
    for name in ("A_inv_", "sum_sq_grad_", "S_", "H_"):
        if hasattr(reg, name):
            np.testing.assert_array_equal(getattr(reg, name), getattr(expected, name))


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_sketch_of_at_least_the_gradients_rank_equals_full(fit_intercept):
    """Rank-4 rows in 20 dimensions (5 with the intercept): a sketch of m = rank
    directions shrinks every m rows, 60 or more times here, and loses nothing, so
    the sketched run is the full one (ALGORITHMS.md §3, "sketch")."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4)) @ rng.normal(size=(4, 20))
    y = X @ rng.normal(size=20) + rng.normal(size=300) > 0
    # The log loss: for a loss of the residual the sketch's step follows the flow
    # and the full matrix's is linear.
    params = dict(max_iter=1, tol=None, shuffle=False, fit_intercept=fit_intercept)
    full = ONSClassifier(matrix="full", **params).fit(X, y)
    rank = 4 + int(fit_intercept)  # of the gradients c [x, 1] (or [x, 0])
    sketch = ONSClassifier(matrix="sketch", sketch_size=rank, **params).fit(X, y)
    scale = np.abs(full.coef_).max()
    np.testing.assert_allclose(sketch.coef_, full.coef_, rtol=1e-8, atol=1e-8 * scale)
    np.testing.assert_allclose(sketch.intercept_, full.intercept_, atol=1e-8 * scale)
    A = np.linalg.inv(full.A_inv_[0])
    S = sketch.S_[0]
    np.testing.assert_allclose(
        full.eps * np.eye(21) + S.T @ S, A, rtol=1e-8, atol=1e-8 * np.abs(A).max()
    )
    # One direction fewer than the rank, and the sketch is an approximation.
    smaller = ONSClassifier(matrix="sketch", sketch_size=rank - 1, **params)
    smaller.fit(X, y)
    assert not np.allclose(smaller.coef_, full.coef_, rtol=1e-3, atol=1e-3 * scale)


def test_assigning_coef_keeps_the_diag_projection_trigger_current():
    """diag tracks |w|^2 to know when a step leaves the ball; assigning weights
    from outside must not leave it stale (here: a model put far outside the ball
    is projected back by its next step)."""
    X, y = _regression()
    reg = ONSRegressor(normalize_y=False, matrix="diag", radius=1.0).partial_fit(
        X[:30], y[:30]
    )
    reg.coef_ = np.full(5, 10.0)
    reg.partial_fit(X[30:31], y[30:31])
    # The ball bounds the normalized weights (the features' times sqrt(m)).
    root = np.sqrt(reg.feature_scale_)
    norm = np.linalg.norm(np.r_[root * reg.coef_, reg.intercept_])
    assert norm == pytest.approx(1.0, rel=1e-9)
