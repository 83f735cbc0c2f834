"""The ONS estimators against the literal reference of ALGORITHMS.md §3
(reference_ons.py: explicit A, linear solves, explicit Frequent Directions, the
projection by a root find on linear solves)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from problems import epoch_orders, run_one_pass, sparse_problem
from reference_ons import reference_ons
from scipy.optimize import brentq

from sk_adaprox import ONSClassifier, ONSRegressor
from sk_adaprox._kernels.common import STATUS_OK
from sk_adaprox._kernels.ons import project_sketch

RTOL = 1e-8
# The matrix variants, and the diagonal with l1 (composite steps, lazy weights).
MATRICES = ["full", "diag", "diag_l1", "sketch"]
# l1 zeroes 1 to 33 of the problems' weights, and keeps them small enough that the
# ball binds often only at half the radius.
L1 = 0.1
REGRESSOR_LOSSES = ["squared_error", "huber", "epsilon_insensitive"]
CLASSIFIER_LOSSES = ["log_loss", "squared_hinge"]
GAMMA, EPS, EPSILON = 0.5, 1.0, 0.25
SKETCH_SIZE = 4  # 2m = 8 rows: the 50-row problems shrink the sketch many times
RADIUS = (
    1.0  # under most unconstrained runs' |w| (normalized, up to 6); checked to bind
)
N_FEATURES = 20


def _params(matrix, radius, fit_intercept):
    """The parameters of a variant of MATRICES ("diag_l1": the diagonal with L1,
    and half the radius)."""
    with_l1 = matrix == "diag_l1"
    if with_l1 and radius is not None:
        radius = radius / 2.0
    return dict(
        matrix="diag" if with_l1 else matrix,
        gamma=GAMMA,
        eps=EPS,
        l1=L1 if with_l1 else 0.0,
        radius=radius,
        sketch_size=SKETCH_SIZE,
        fit_intercept=fit_intercept,
    )


def _reference(X, targets, row_weights, n_outputs, loss, params, **kw):
    return reference_ons(
        X.toarray() if hasattr(X, "toarray") else X,
        targets,
        row_weights,
        n_outputs=n_outputs,
        loss=loss,
        epsilon=EPSILON,
        **params,
        **kw,
    )


def _close(actual, expected, name, rtol=RTOL, scale=None):
    """Agreement to rtol relative to ``scale``, by default the array's largest
    entry (entries much smaller than it are compared absolutely at rtol times
    it)."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, (name, actual.shape, expected.shape)
    if scale is None:
        scale = float(np.abs(expected).max(initial=0.0))
    scale = max(1e-300, scale)
    np.testing.assert_allclose(
        actual, expected, rtol=rtol, atol=rtol * scale, err_msg=name
    )


def _row_signs(S_actual, S_expected):
    """+-1 per sketch row that best aligns the estimator's rows with the
    reference's (an SVD fixes each direction only up to its sign)."""
    dots = np.einsum("ij,ij->i", S_actual, S_expected)
    return np.where(dots < 0.0, -1.0, 1.0)


def _assert_same_weights(est, ref):
    """coef_ and intercept_ against the reference's w, relative to the largest
    |w_i| over both (w is one vector: the intercept is its last coordinate)."""
    K, D = ref["w"].shape
    scale = float(np.abs(ref["w"]).max())
    _close(np.reshape(est.coef_, (K, D - 1)), ref["w"][:, :-1], "coef_", scale=scale)
    _close(np.reshape(est.intercept_, (K,)), ref["w"][:, -1], "intercept_", scale=scale)


def _assert_same_state(est, ref, matrix, fit_intercept):
    """Compare an estimator's fitted attributes with a reference state."""
    K, D = ref["w"].shape
    d = D - 1
    _assert_same_weights(est, ref)
    if not fit_intercept:
        assert np.all(np.asarray(est.intercept_) == 0.0)
    if matrix == "full":
        A_inv = np.reshape(est.A_inv_, (K, D, D))
        for k in range(K):
            _close(A_inv[k], np.linalg.inv(ref["A"][k]), f"A_inv_[{k}]")
    elif matrix in ("diag", "diag_l1"):
        diag = np.array([np.diag(ref["A"][k]) for k in range(K)]) - EPS
        _close(np.reshape(est.sum_sq_grad_, (K, d)), diag[:, :d], "sum_sq_grad_")
        _close(
            np.reshape(est.intercept_sum_sq_grad_, (K,)),
            diag[:, d],
            "intercept_sum_sq_grad_",
        )
    else:
        m2 = 2 * SKETCH_SIZE
        S = np.reshape(est.S_, (K, m2, D))
        H = np.reshape(est.H_, (K, m2, m2))
        for k in range(K):
            S_ref = ref["S"][k]
            _close(S[k].T @ S[k], S_ref.T @ S_ref, f"S_^T S_[{k}]")
            # Unused rows are zero in both.
            assert np.all(S[k][ref["fill"][k] :] == 0.0), f"S_[{k}] unused rows"
            signs = _row_signs(S[k], S_ref)
            _close(
                signs[:, None] * H[k] * signs[None, :],
                np.linalg.inv(EPS * np.eye(m2) + S_ref @ S_ref.T),
                f"H_[{k}] (rows signed as the reference's)",
            )


def _check_reference_exercised(ref, radius, matrix, n_rounds):
    """The comparison is not vacuous: the ball binds on many rounds, the
    sketch has shrunk, and l1 has zeroed weights (which it keeps at zero)."""
    if matrix == "diag_l1":
        assert np.any(ref["w"][:, :-1] == 0.0), ref["w"]
    if radius is not None:
        assert np.all(ref["projections"] >= 10), ref["projections"]
    if matrix == "sketch":
        assert n_rounds > 2 * SKETCH_SIZE
        assert np.all(ref["shrinks"] >= 3), ref["shrinks"]


def _regression_problem(seed=2, dense=False):
    X = sparse_problem(n_features=N_FEATURES, seed=seed)
    rng = np.random.default_rng(seed + 1)
    y = X @ rng.normal(size=X.shape[1]) + 0.3 * rng.normal(size=X.shape[0]) + 0.5
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    sample_weight[5] = 0.0  # a zero-weight row is still a round
    return (X.toarray() if dense else X), y, sample_weight


def _classification_problem(n_classes, seed=0, dense=False):
    X = sparse_problem(n_features=N_FEATURES, seed=seed)
    rng = np.random.default_rng(seed + 1)
    y = rng.integers(0, n_classes, X.shape[0])
    sample_weight = rng.uniform(0.2, 2.0, X.shape[0])
    sample_weight[5] = 0.0
    if n_classes == 2:
        targets, n_outputs = np.where(y == 1, 1.0, -1.0), 1
    else:
        targets, n_outputs = y.astype(float), n_classes
    return (X.toarray() if dense else X), y, sample_weight, targets, n_outputs


# -- fit: shuffled passes, sample weights, every variant ---------------------------


@pytest.mark.parametrize("radius", [None, RADIUS])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("matrix", MATRICES)
@pytest.mark.parametrize("loss", REGRESSOR_LOSSES)
def test_regressor_matches_reference(loss, matrix, fit_intercept, radius):
    X, y, sample_weight = _regression_problem()
    params = _params(matrix, radius, fit_intercept)
    reg = ONSRegressor(
        normalize_y=False,
        loss=loss,
        epsilon=EPSILON,
        **params,
        max_iter=3,
        tol=None,
        shuffle=True,
        random_state=7,
    ).fit(X, y, sample_weight=sample_weight)
    order = epoch_orders(X.shape[0], 3, shuffle=True, random_state=7)
    expected, _ = _reference(X, y, sample_weight, 1, loss, params, order=order)
    _check_reference_exercised(expected, radius, matrix, order.shape[0])
    assert reg.t_ == order.shape[0]
    assert np.shape(reg.coef_) == (X.shape[1],)
    _assert_same_state(reg, expected, matrix, fit_intercept)


@pytest.mark.parametrize("radius", [None, RADIUS])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("matrix", MATRICES)
@pytest.mark.parametrize("loss", CLASSIFIER_LOSSES)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_matches_reference(n_classes, loss, matrix, fit_intercept, radius):
    X, y, sample_weight, targets, n_outputs = _classification_problem(n_classes)
    params = _params(matrix, radius, fit_intercept)
    clf = ONSClassifier(
        loss=loss, **params, max_iter=3, tol=None, shuffle=True, random_state=11
    ).fit(X, y, sample_weight=sample_weight)
    order = epoch_orders(X.shape[0], 3, shuffle=True, random_state=11)
    expected, _ = _reference(
        X, targets, sample_weight, n_outputs, loss, params, order=order
    )
    _check_reference_exercised(expected, radius, matrix, order.shape[0])
    assert clf.t_ == order.shape[0]
    assert np.shape(clf.coef_) == (n_outputs, X.shape[1])
    _assert_same_state(clf, expected, matrix, fit_intercept)


# -- dense input ---------------------------------------------------------------


@pytest.mark.parametrize("radius", [None, RADIUS])
@pytest.mark.parametrize("matrix", MATRICES)
def test_dense_input_matches_reference(matrix, radius):
    X, y, sample_weight, targets, n_outputs = _classification_problem(
        3, seed=5, dense=True
    )
    params = _params(matrix, radius, True)
    clf = ONSClassifier(
        loss="log_loss", **params, max_iter=2, tol=None, shuffle=False
    ).fit(X, y, sample_weight=sample_weight)
    order = epoch_orders(X.shape[0], 2, shuffle=False, random_state=None)
    expected, _ = _reference(
        X, targets, sample_weight, n_outputs, "log_loss", params, order=order
    )
    _check_reference_exercised(expected, radius, matrix, order.shape[0])
    _assert_same_state(clf, expected, matrix, True)

    Xr, yr, swr = _regression_problem(seed=6, dense=True)
    reg = ONSRegressor(
        normalize_y=False,
        loss="huber",
        epsilon=EPSILON,
        **params,
        max_iter=2,
        tol=None,
        shuffle=False,
    ).fit(Xr, yr, sample_weight=swr)
    expected, _ = _reference(Xr, yr, swr, 1, "huber", params, order=order)
    _assert_same_state(reg, expected, matrix, True)


# -- partial_fit over chunks ---------------------------------------------------------


CHUNKS = [(0, 1), (1, 13), (13, 14), (14, 40), (40, 50)]


@pytest.mark.parametrize("radius", [None, RADIUS])
@pytest.mark.parametrize("matrix", MATRICES)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_partial_fit_chunks_match_reference_after_every_call(
    n_classes, matrix, radius
):
    X, y, sample_weight, targets, n_outputs = _classification_problem(n_classes, seed=8)
    params = _params(matrix, radius, True)
    clf = ONSClassifier(loss="log_loss", **params)
    expected = None
    for start, stop in CHUNKS:
        rows = slice(start, stop)
        clf.partial_fit(
            X[rows],
            y[rows],
            classes=np.arange(n_classes),
            sample_weight=sample_weight[rows],
        )
        expected, _ = _reference(
            X[rows],
            targets[rows],
            sample_weight[rows],
            n_outputs,
            "log_loss",
            params,
            state=expected,
        )
        assert clf.t_ == stop
        _assert_same_state(clf, expected, matrix, True)
    if matrix == "sketch":
        assert np.all(expected["shrinks"] >= 3)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("matrix", MATRICES)
def test_regressor_partial_fit_chunks_match_reference_after_every_call(
    matrix, fit_intercept
):
    X, y, sample_weight = _regression_problem(seed=9)
    params = _params(matrix, RADIUS, fit_intercept)
    reg = ONSRegressor(normalize_y=False, loss="squared_error", **params)
    expected = None
    for start, stop in CHUNKS:
        rows = slice(start, stop)
        reg.partial_fit(X[rows], y[rows], sample_weight=sample_weight[rows])
        expected, _ = _reference(
            X[rows],
            y[rows],
            sample_weight[rows],
            1,
            "squared_error",
            params,
            state=expected,
        )
        _assert_same_state(reg, expected, matrix, fit_intercept)
    _check_reference_exercised(expected, RADIUS, matrix, X.shape[0])


# -- weights -------------------------------------------------------------------------


@pytest.mark.parametrize("matrix", MATRICES)
def test_class_weight_multiplies_row_weight(matrix):
    X, y, sample_weight, targets, n_outputs = _classification_problem(3, seed=12)
    class_weight = {0: 0.5, 1: 2.0, 2: 1.0}
    params = _params(matrix, RADIUS, True)
    clf = ONSClassifier(
        loss="squared_hinge",
        **params,
        class_weight=class_weight,
        max_iter=1,
        tol=None,
        shuffle=False,
    ).fit(X, y, sample_weight=sample_weight)
    row_weights = sample_weight * np.array([0.5, 2.0, 1.0])[y]
    expected, _ = _reference(X, targets, row_weights, 3, "squared_hinge", params)
    _assert_same_state(clf, expected, matrix, True)


@pytest.mark.parametrize("matrix", MATRICES)
def test_unit_sample_weight_is_no_sample_weight(matrix):
    X, y, _ = _regression_problem(seed=13)
    params = _params(matrix, RADIUS, True)
    reg = ONSRegressor(
        normalize_y=False, **params, max_iter=2, tol=None, random_state=0
    ).fit(X, y)
    order = epoch_orders(X.shape[0], 2, shuffle=True, random_state=0)
    expected, _ = _reference(
        X, y, np.ones(X.shape[0]), 1, "squared_error", params, order=order
    )
    _assert_same_state(reg, expected, matrix, True)


# -- predictions ---------------------------------------------------------------------


@pytest.mark.parametrize("matrix", MATRICES)
def test_decision_function_is_the_reference_score(matrix):
    X, y, sample_weight, targets, n_outputs = _classification_problem(3, seed=14)
    params = _params(matrix, RADIUS, True)
    clf = ONSClassifier(
        loss="log_loss", **params, max_iter=1, tol=None, shuffle=False
    ).fit(X, y, sample_weight=sample_weight)
    order = np.arange(X.shape[0])
    expected, _ = _reference(
        X, targets, sample_weight, n_outputs, "log_loss", params, order=order
    )
    Xt = np.hstack([X.toarray(), np.ones((X.shape[0], 1))])
    scores = Xt @ expected["w"].T
    _close(clf.decision_function(X), scores, "decision_function")


# -- a sketch at least as wide as the data -------------------------------------------


@pytest.mark.parametrize("sketch_size", [4, 6])
@pytest.mark.parametrize("radius", [None, 0.5])
def test_sketch_at_least_as_large_as_the_data_equals_full(sketch_size, radius):
    """d + 1 = 4 coordinates and m >= 4: the thin SVD of the 2m x 4 buffer has only
    4 singular values, so sigma[m] (0-based) does not exist and counts as 0: every
    shrink is exact and the sketched run equals the full one, though the buffer
    shrinks several times. (With the log loss: for a loss of the residual the
    sketch's step follows the flow, the full matrix's is linear.)"""
    rng = np.random.default_rng(21)
    X = rng.normal(size=(40, 3))
    y = (X @ np.array([1.0, -2.0, 0.5]) + 0.3 + rng.normal(size=40) > 0) * 1
    targets = np.where(y == 1, 1.0, -1.0)
    params = _params("sketch", radius, True)
    params["sketch_size"] = sketch_size
    clf = ONSClassifier(**params, max_iter=1, tol=None, shuffle=False).fit(X, y)
    expected, _ = _reference(X, targets, np.ones(40), 1, "log_loss", params)
    assert np.all(expected["shrinks"] >= 2)
    full, _ = _reference(
        X, targets, np.ones(40), 1, "log_loss", _params("full", radius, True)
    )
    if radius is not None:
        assert full["projections"][0] >= 10
    K, D = expected["w"].shape
    _close(np.reshape(clf.coef_, (1, 3)), full["w"][:, :3], "coef_ (against full)")
    _close(np.reshape(clf.intercept_, (1,)), full["w"][:, 3], "intercept_ (full)")
    S = np.reshape(clf.S_, (2 * sketch_size, D))
    _close(S.T @ S + EPS * np.eye(D), full["A"][0], "eps I + S_^T S_ (against A)")
    m2 = 2 * sketch_size
    S_ref = expected["S"][0]
    assert np.all(S[expected["fill"][0] :] == 0.0)
    _close(S.T @ S, S_ref.T @ S_ref, "S_^T S_")
    signs = _row_signs(S, S_ref)
    _close(
        signs[:, None] * np.reshape(clf.H_, (m2, m2)) * signs[None, :],
        np.linalg.inv(EPS * np.eye(m2) + S_ref @ S_ref.T),
        "H_",
    )


# -- the pass loss, random problems ------------------------------------------------


@pytest.mark.parametrize("radius", [None, RADIUS])
@pytest.mark.parametrize("matrix", MATRICES)
def test_pass_loss_is_the_weighted_pre_update_loss(matrix, radius):
    X, y, sample_weight, targets, _ = _classification_problem(2, seed=15)
    params = _params(matrix, radius, True)
    clf = ONSClassifier(loss="log_loss", **params)
    order = epoch_orders(X.shape[0], 2, shuffle=True, random_state=3)
    loss_sum, rows_done, status = run_one_pass(clf, X, targets, sample_weight, order)
    assert (rows_done, status) == (order.shape[0], STATUS_OK)
    expected, expected_loss = _reference(
        X, targets, sample_weight, 1, "log_loss", params, order=order
    )
    assert loss_sum == pytest.approx(expected_loss, rel=RTOL)
    _assert_same_state(clf, expected, matrix, True)


@settings(max_examples=30, deadline=None)
@given(
    n_samples=st.integers(1, 30),
    n_features=st.integers(1, 8),
    density=st.floats(0.0, 1.0),
    matrix=st.sampled_from(MATRICES),
    gamma=st.floats(0.1, 3.0),
    eps=st.floats(0.1, 10.0),
    radius=st.sampled_from([None, 0.3, 1.0]),
    l1=st.sampled_from([0.0, 0.01, 0.3]),
    sketch_size=st.integers(1, 5),
    fit_intercept=st.booleans(),
    loss=st.sampled_from(CLASSIFIER_LOSSES),
    seed=st.integers(0, 2**32 - 1),
)
# A nearly rank-deficient sketch (sigma_min / sigma_max ~ 2e-5 at round 21) that
# a projection through the eigenvalues of S S^T got 1e-7 wrong: now via S's SVD.
@example(
    n_samples=16,
    n_features=1,
    density=0.328125,
    matrix="sketch",
    gamma=0.314453125,
    eps=0.314453125,
    radius=1.0,
    l1=0.0,
    sketch_size=1,
    fit_intercept=True,
    loss="squared_hinge",
    seed=4245570,
)
def test_random_problems_match_reference(
    n_samples,
    n_features,
    density,
    matrix,
    gamma,
    eps,
    radius,
    l1,
    sketch_size,
    fit_intercept,
    loss,
    seed,
):
    """Random shapes, densities and parameters (the sketch wider or narrower than
    the data; l1 with the diagonal), two passes, through the kernel with +-1
    targets."""
    rng = np.random.default_rng(seed)
    dense = rng.normal(size=(n_samples, n_features))
    dense *= rng.random((n_samples, n_features)) < density
    targets = np.where(rng.random(n_samples) < 0.5, 1.0, -1.0)
    row_weights = rng.uniform(0.0, 2.0, n_samples)
    params = dict(
        matrix=matrix,
        gamma=gamma,
        eps=eps,
        l1=l1 if matrix in ("diag", "diag_l1") else 0.0,
        radius=radius,
        sketch_size=sketch_size,
        fit_intercept=fit_intercept,
    )
    params["matrix"] = "diag" if matrix == "diag_l1" else matrix
    clf = ONSClassifier(loss=loss, **params)
    order = np.concatenate([np.arange(n_samples)] * 2)
    loss_sum, rows_done, status = run_one_pass(
        clf, sp.csr_matrix(dense), targets, row_weights, order
    )
    assert (rows_done, status) == (order.shape[0], STATUS_OK)
    expected, expected_loss = reference_ons(
        dense, targets, row_weights, n_outputs=1, loss=loss, order=order, **params
    )
    assert loss_sum == pytest.approx(expected_loss, rel=RTOL, abs=1e-300)
    _assert_same_weights(clf, expected)
    if matrix == "full":
        _close(clf.A_inv_[0], np.linalg.inv(expected["A"][0]), "A_inv_")
    elif matrix == "sketch":
        S, S_ref = clf.S_[0], expected["S"][0]
        _close(S.T @ S, S_ref.T @ S_ref, "S_^T S_")
    else:
        # G enters the model as A = eps m + G: compared at the scale of eps at
        # least (a squared gradient of 1e-32, at a squared hinge's kink where
        # rounding decides whether the margin is 1, is not a difference).
        G = np.diag(expected["A"][0])[:-1] - eps
        _close(clf.sum_sq_grad_[0], G, "G", scale=max(eps, np.abs(G).max()))


@pytest.mark.parametrize("matrix", ["full", "diag"])
def test_rows_without_a_gradient_project_where_the_scale_moved_the_weights(matrix):
    """Random problems hypothesis found: a row without a gradient (a margin met,
    or no value and no intercept) after rows that changed the scale m; the
    weights m carried out of the ball are projected back there, as the
    reference does (the full matrix and the diagonal had differed)."""
    problem = dict(
        n_samples=11,
        n_features=1,
        density=0.5,
        gamma=1.0,
        eps=1.0,
        radius=0.3,
        l1=0.0,
        sketch_size=1,
        fit_intercept=False,
        loss="squared_hinge",
        seed=0,
    )
    test_random_problems_match_reference.hypothesis.inner_test(matrix=matrix, **problem)


# -- parameters changed between calls ------------------------------------------------


def _with_eps(state, old_eps, new_eps):
    """The reference state continued under a new eps: A = new_eps I + (what the
    gradients added), i.e. A + (new_eps - old_eps) I, the same for all three."""
    new = {key: value.copy() for key, value in state.items()}
    D = new["A"].shape[1]
    new["A"] = new["A"] + (new_eps - old_eps) * np.eye(D)
    return new


def _with_thresholds_now(state, params):
    """The reference state once new parameters are set: every feature's idle l1
    threshold is recomputed from them, the scale m and G as they are (the model
    records them anew then, not at each feature's next row)."""
    new = {key: value.copy() for key, value in state.items()}
    total, total_weight = new["scale_sums"]
    scale = total / total_weight if total > 0.0 and total_weight > 0.0 else 1.0
    G = np.diagonal(new["A"], axis1=1, axis2=2)[:, :-1] - params["eps"]
    new["thresholds"] = (
        params["l1"] * np.sqrt(scale) / (params["gamma"] * (params["eps"] * scale + G))
    )
    return new


@pytest.mark.parametrize("read_between_calls", [True, False])
@pytest.mark.parametrize("matrix", MATRICES)
def test_parameter_changes_between_calls_match_reference(matrix, read_between_calls):
    """set_params(gamma, eps, radius, l1) between partial_fit calls: the next call
    continues with A = eps_new I + the gradients' part, the new step and the new
    ball (a smaller radius binds only from the next update on). Unread between
    calls, lazy weights finish their idle rounds under the old parameters."""
    X, y, sample_weight, targets, n_outputs = _classification_problem(3, seed=16)
    params = _params(matrix, None, True)
    clf = ONSClassifier(loss="log_loss", **params)
    changes = [
        {},
        {"eps": 0.3},
        {"gamma": 1.7, "radius": 1.5},
        {"eps": 4.0, "radius": None},
        {"radius": 0.8, "gamma": 0.2},
    ]
    if matrix == "diag_l1":  # l1 off, and on again at another strength
        changes[2]["l1"] = 0.0
        changes[3]["l1"] = 0.05
    expected = None
    for (start, stop), change in zip(CHUNKS, changes, strict=True):
        if expected is not None and "eps" in change:
            expected = _with_eps(expected, params["eps"], change["eps"])
        params.update(change)
        if expected is not None and {"gamma", "eps", "l1"} & set(change):
            expected = _with_thresholds_now(expected, params)
        clf.set_params(**change)
        rows = slice(start, stop)
        clf.partial_fit(
            X[rows], y[rows], classes=np.arange(3), sample_weight=sample_weight[rows]
        )
        expected, _ = reference_ons(
            X[rows].toarray(),
            targets[rows],
            sample_weight[rows],
            n_outputs=n_outputs,
            loss="log_loss",
            state=expected,
            **params,
        )
        if not read_between_calls and stop < X.shape[0]:
            continue
        _assert_same_weights(clf, expected)
        K = expected["w"].shape[0]
        if matrix == "full":
            _close(clf.A_inv_, np.linalg.inv(expected["A"]), "A_inv_")
        elif matrix in ("diag", "diag_l1"):
            diag = np.diagonal(expected["A"], axis1=1, axis2=2) - params["eps"]
            _close(clf.sum_sq_grad_, diag[:, :-1], "sum_sq_grad_")
        else:
            for k in range(K):
                S_ref = expected["S"][k]
                m2 = S_ref.shape[0]
                signs = _row_signs(clf.S_[k], S_ref)
                _close(
                    signs[:, None] * clf.H_[k] * signs[None, :],
                    np.linalg.inv(params["eps"] * np.eye(m2) + S_ref @ S_ref.T),
                    "H_",
                )
    assert np.all(expected["projections"] >= 3)


def _projection_in_known_directions(sigma, directions, eps, w_prime, radius):
    """The generalized projection under A = eps I + V^T diag(sigma^2) V, from the
    singular values and right vectors S was built from: no S^T S or S S^T is
    formed, so nothing squares the sketch's condition number."""
    y = directions @ w_prime
    rest = w_prime - directions.T @ y
    a = eps + sigma**2

    def excess(mu):
        in_span = np.sum((a * y / (a + mu)) ** 2)
        return np.sqrt(in_span + (rest @ rest) * (eps / (eps + mu)) ** 2) - radius

    high = 1.0
    while excess(high) > 0:
        high *= 2.0
    mu = brentq(excess, 0.0, high, xtol=1e-300, rtol=1e-15, maxiter=1000)
    return eps / (eps + mu) * rest + directions.T @ (a * y / (a + mu))


@pytest.mark.parametrize(
    "smallest_sq, eps_factor", [(1e-3, 1.0), (1e-7, 1.0), (6e-11, 0.3), (5e-12, 0.2)]
)
@pytest.mark.parametrize("seed", range(4))
def test_sketch_projection_of_nearly_rank_deficient_sketches(
    smallest_sq, eps_factor, seed
):
    """The kernel's projection for sketches whose smallest squared singular value
    falls to ``smallest_sq`` times the largest, with eps ``eps_factor`` times it and
    w' mostly along that weakest direction: through the eigenvalues of S S^T
    (which square the condition number) the last two lost up to 1e-5, so the
    kernel takes S's own SVD below 1e-6 (4e-11 here); the first stays on the
    eigenvalues."""
    rng = np.random.default_rng(seed)
    n_rows, width, radius = 4, 7, 1.0
    left, _ = np.linalg.qr(rng.normal(size=(n_rows, n_rows)))
    directions = np.linalg.qr(rng.normal(size=(width, n_rows)))[0].T
    sigma = 3.0 * np.sqrt(np.geomspace(1.0, smallest_sq, n_rows))
    eps = eps_factor * sigma[-1] ** 2
    w_prime = 3.0 * directions[-1] + 0.3 * rng.normal(size=width)
    w = w_prime.copy()
    project_sketch((left * sigma) @ directions, eps, w, radius)
    expected = _projection_in_known_directions(sigma, directions, eps, w_prime, radius)
    np.testing.assert_allclose(w, expected, rtol=0, atol=1e-9 * np.abs(w).max())
    assert np.linalg.norm(w) == pytest.approx(radius, rel=1e-12)
