"""The fitted state: one array, public attributes as views, predictions read in place.

Everything a model learns is one ``(n_features + 1, n_slots, K)`` array; ``coef_``,
``intercept_`` and the accumulators are views of its slots in scikit-learn's shapes.
Every test runs for every algorithm in ``estimators.ALGORITHMS``.
"""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from estimators import ALGORITHMS, make, state_of
from sklearn.base import is_regressor
from sklearn.utils.extmath import safe_sparse_dot

# Each algorithm's state attributes shaped like coef_ and like intercept_, and the
# one that sums squared gradients (> 0 wherever a weight has moved).
STATE_SHAPES = {
    "adagrad_md": (["coef_", "sum_sq_grad_"], ["intercept_", "intercept_sum_sq_grad_"]),
    "adagrad_da": (
        ["coef_", "sum_sq_grad_", "sum_grad_"],
        ["intercept_", "intercept_sum_sq_grad_", "intercept_sum_grad_"],
    ),
    "ftrl": (["coef_", "z_", "n_"], ["intercept_", "intercept_z_", "intercept_n_"]),
    "ons_diag": (["coef_", "sum_sq_grad_"], ["intercept_", "intercept_sum_sq_grad_"]),
    "ons_diag_l1": (
        ["coef_", "sum_sq_grad_"],
        ["intercept_", "intercept_sum_sq_grad_"],
    ),
    "ons_full": (["coef_"], ["intercept_"]),
    "ons_sketch": (["coef_"], ["intercept_"]),
    "coin": (
        [
            "coef_",
            "sum_neg_grad_",
            "sum_abs_grad_",
            "reward_",
            "max_abs_x_",
            "max_abs_dloss_",
        ],
        [
            "intercept_",
            "intercept_sum_neg_grad_",
            "intercept_sum_abs_grad_",
            "intercept_reward_",
            "intercept_max_abs_x_",
            "intercept_max_abs_dloss_",
        ],
    ),
    "coin_cocob": (
        ["coef_", "sum_neg_grad_", "sum_abs_grad_", "max_abs_grad_", "reward_"],
        [
            "intercept_",
            "intercept_sum_neg_grad_",
            "intercept_sum_abs_grad_",
            "intercept_max_abs_grad_",
            "intercept_reward_",
        ],
    ),
}
SUM_SQ_GRAD = {
    "adagrad_md": "sum_sq_grad_",
    "adagrad_da": "sum_sq_grad_",
    "ftrl": "n_",
    "ons_diag": "sum_sq_grad_",
    "ons_diag_l1": "sum_sq_grad_",
    "coin": "sum_abs_grad_",
    "coin_cocob": "sum_abs_grad_",
}
# The ONS matrices that are not per-coordinate: their shape per output, for d
# features (d + 1 coordinates with the intercept's) and ALGORITHMS' sketch_size 3.
MATRIX_SHAPES = {
    "ons_full": {"A_inv_": lambda d: (d + 1, d + 1)},
    "ons_sketch": {"S_": lambda d: (6, d + 1), "H_": lambda d: (6, 6)},
}


def _problem(n_classes, n_samples=60, n_features=15, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n_samples, n_features, density=0.3, random_state=rng, format="csr")
    y = rng.integers(0, n_classes, n_samples) if n_classes else rng.normal(size=60)
    return X, y


def _fitted(kind, algorithm, **params):
    if kind == "regressor":
        X, y = _problem(None)
    else:
        X, y = _problem(2 if kind == "binary" else 4)
    model = make(algorithm, kind, max_iter=3, tol=None, **params)
    return model.fit(X, y), X


def _scores(model, X):
    if is_regressor(model):
        return model.predict(X)
    return model.decision_function(X)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
def test_state_attributes_have_sklearn_shapes(kind, algorithm):
    model, X = _fitted(kind, algorithm)
    n_features = X.shape[1]
    coef_shape = {
        "binary": (1, n_features),
        "multiclass": (4, n_features),
        "regressor": (n_features,),
    }[kind]
    n_outputs = 1 if kind != "multiclass" else 4
    names, intercept_names = STATE_SHAPES[algorithm]
    matrices = MATRIX_SHAPES.get(algorithm, {})
    assert sorted(state_of(model)) == sorted(names + intercept_names + list(matrices))
    for name, shape in matrices.items():
        expected = shape(n_features)
        if kind != "regressor":
            expected = (n_outputs, *expected)
        assert getattr(model, name).shape == expected, name
    # No other algorithm's state (e.g. no sum_grad_ for mirror descent).
    for other in ALGORITHMS.values():
        for name in set(other.state) - set(names + intercept_names + list(matrices)):
            assert not hasattr(model, name), name
    for name in names:
        value = getattr(model, name)
        assert value.shape == coef_shape and value.dtype == np.float64, name
    for name in intercept_names:
        assert getattr(model, name).shape == (n_outputs,), name
    if algorithm not in SUM_SQ_GRAD:
        return
    # Distinct slots: G > 0 where coef_ moved, and they are not the same numbers.
    sum_sq_grad = getattr(model, SUM_SQ_GRAD[algorithm])
    assert np.all(sum_sq_grad[model.coef_ != 0] > 0)
    assert not np.array_equal(model.coef_, sum_sq_grad)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
def test_writing_coef_changes_the_model(kind, algorithm):
    model, X = _fitted(kind, algorithm)
    new_coef = np.random.default_rng(1).normal(size=model.coef_.shape)
    model.coef_ = new_coef
    model.intercept_ = np.full(model.intercept_.shape, 0.5)
    np.testing.assert_array_equal(model.coef_, new_coef)
    expected = safe_sparse_dot(X, new_coef.T, dense_output=True) + 0.5
    np.testing.assert_allclose(_scores(model, X), expected.squeeze(), rtol=1e-12)
    if model._weights_are_lazy():
        # Weights computed from accumulators when read (coin betting's), or
        # whose idle l1 steps are applied lazily from a record: a weight written
        # in place would be lost or miss its record, so coef_ is read-only
        # (assign it, as above).
        with pytest.raises(ValueError, match="read-only"):
            model.coef_[...] = 0.0
        return
    # In-place writes reach the model too.
    model.coef_[...] = 0.0
    np.testing.assert_allclose(_scores(model, X), 0.5, rtol=0)


def _recording_rows(method, rows_seen):
    """``method`` (a hook taking a state first), recording the state's rows."""

    def recorded(state, *args):
        rows_seen.append(state.shape[0])
        return method(state, *args)

    return recorded


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
def test_intercept_attributes_are_read_without_a_sweep_of_the_features(
    kind, algorithm, average
):
    """Reading ``intercept_`` (or an ``intercept_*`` accumulator) computes or
    catches up the intercept's row alone: the same values as the whole state's
    last row, from a one-row slice (a model of 2**24 features would otherwise
    sweep them all on every read)."""
    params = {"normalize_y": True} if kind == "regressor" else {}
    model, _ = _fitted(kind, algorithm, average=average, **params)
    # A new round leaves lazy weights behind again.
    X, y = _problem(None if kind == "regressor" else 2 if kind == "binary" else 4)
    model.partial_fit(X[:3], y[:3])
    rows_seen = []
    # The hooks that catch weights up or average them, spied on this instance.
    spied = [
        name for name in ("_catch_up_weights", "_averaged_all") if hasattr(model, name)
    ]
    for name in spied:
        setattr(model, name, _recording_rows(getattr(model, name), rows_seen))
    names = STATE_SHAPES[algorithm][1]
    read = {name: np.array(getattr(model, name)) for name in names}
    assert all(rows == 1 for rows in rows_seen), rows_seen
    for name in spied:
        delattr(model, name)
    served = model._weights_out(model._served_weights()[-1], True)
    np.testing.assert_array_equal(read["intercept_"], served)
    state = model._state_for_reading()
    for name in names[1:]:
        slot = getattr(type(model), name).slot
        np.testing.assert_array_equal(read[name], state[-1, slot, :])
    # Computed when read (averaged, or in the target's units): read-only, so an
    # in-place write fails instead of changing nothing.
    if average or kind == "regressor":
        with pytest.raises(ValueError, match="read-only"):
            model.intercept_[...] = 0.0
        with pytest.raises(ValueError, match="read-only"):
            model.coef_[...] = 0.0


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_setting_state_of_the_wrong_shape_or_before_fit_is_an_error(algorithm):
    model, _ = _fitted("binary", algorithm)
    before = model.coef_.copy()
    with pytest.raises(ValueError, match=r"coef_ has shape \(1, 15\).*\(1, 14\)"):
        model.coef_ = np.zeros((1, 14))
    np.testing.assert_array_equal(model.coef_, before)
    with pytest.raises(AttributeError, match="fit the model before setting"):
        make(algorithm, "classifier").coef_ = before
    with pytest.raises(AttributeError, match="has no attribute 'coef_'"):
        _ = make(algorithm, "classifier").coef_


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
def test_sparse_scores_equal_scipy_and_dense(kind, dtype, algorithm):
    model, X = _fitted(kind, algorithm, l1=0.01)
    X = X.astype(dtype)
    coef = model.coef_.reshape(-1, X.shape[1])
    # Same floats as scipy (same summation order), and as the dense path.
    scipy_scores = (X @ coef.T + model.intercept_).squeeze()
    np.testing.assert_array_equal(_scores(model, X), scipy_scores)
    np.testing.assert_allclose(
        _scores(model, X.toarray()), scipy_scores, rtol=1e-12, atol=1e-12
    )
    np.testing.assert_array_equal(_scores(model, X.tocoo()), scipy_scores)
    X64 = X.copy()
    X64.indices = X64.indices.astype(np.int64)
    X64.indptr = X64.indptr.astype(np.int64)
    np.testing.assert_array_equal(_scores(model, X64), scipy_scores)


# Not full ONS: its A^-1 for a million features is refused (test_input_formats), and
# it scores with the same code as the other two ONS variants.
@pytest.mark.parametrize("algorithm", [a for a in ALGORITHMS if a != "ons_full"])
def test_sparse_prediction_does_not_copy_the_weights(algorithm):
    """One row against a million features: O(row), not O(n_features) memory."""
    n_features = 1_000_000
    X = sp.csr_matrix(
        (np.ones(4), np.array([3, 10, 500_000, 999_999]), np.array([0, 2, 4])),
        shape=(2, n_features),
    )
    model = make(algorithm, "classifier", loss="log_loss")
    model.partial_fit(X, [0, 1], classes=[0, 1])
    model.predict_proba(X[:1])  # compile before measuring
    tracemalloc.start()
    proba = model.predict_proba(X[:1])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # A copy of coef_ would be 8 MB.
    assert peak < 100_000
    expected = 1.0 / (1.0 + np.exp(-model.decision_function(X[:1])))
    np.testing.assert_allclose(proba[:, 1], expected, rtol=1e-15)


def test_assigning_ftrl_accumulators_recomputes_the_weights():
    """Merging two shards' z and n (here: their sums) by assignment gives the
    weights of the merged state, as the closed form of ALGORITHMS.md §2 says."""
    first, X = _fitted("binary", "ftrl", l1=5.0, random_state=0)
    second, _ = _fitted("binary", "ftrl", l1=5.0, random_state=5)
    z, n = first.z_ + second.z_, first.n_ + second.n_
    first.z_, first.n_ = z, n
    alpha, beta = first.alpha, first.beta
    # After 3 passes of fit, l1 and l2 apply 3 times over (they weigh the loss
    # summed over the data, which z holds 3 times).
    l1, l2 = 3 * first.l1, 3 * first.l2
    expected = np.where(
        np.abs(z) <= l1,
        0.0,
        -(z - np.sign(z) * l1) / ((beta + np.sqrt(n)) / alpha + l2),
    )
    assert 0 < np.count_nonzero(expected) < expected.size  # l1 zeroes some
    np.testing.assert_allclose(first.coef_, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        _scores(first, X), X @ expected.T.squeeze() + first.intercept_, rtol=1e-12
    )
