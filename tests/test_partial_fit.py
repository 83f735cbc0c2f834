"""partial_fit streams, warm starts and state handling of every estimator.

- ``partial_fit`` is one pass over the rows in their order: a stream of chunks equals
  one ``fit(max_iter=1, shuffle=False)`` on their concatenation;
- state (``t_`` and every accumulator) carries over, also through pickling;
- a rejected batch leaves a fitted model bit-for-bit unchanged and a rejected first
  call leaves the estimator unfitted;
- ``fit`` restarts (unless ``warm_start``), labels of any kind map back to themselves;
- FTRL: new parameters between calls rewrite every weight, and a batch leaves the
  features it does not touch exactly as they were.

Tests of the shared core run for every algorithm in ``estimators.ALGORITHMS``.
"""

import copy
import pickle
from functools import partial

import joblib
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from estimators import ALGORITHMS, make, state_of
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from sk_adaprox import AdaGradClassifier, AdaGradRegressor

UPDATES = ["mirror_descent", "dual_averaging"]
REGULARIZATION = {"none": (0.0, 0.0), "l1+l2": (0.01, 0.03)}
# AdaGrad's l1 and l2 weigh the mean loss, FTRL's the summed loss: scaled by about
# the length of the stream, they are as strong (and l1 zeroes some FTRL weights).
SUMMED_LOSS_SCALE = {name: 1.0 for name in ALGORITHMS} | {"ftrl": 40.0}
# Uneven chunks, a single row among them; boundaries of the 80-row problems.
CHUNK_BOUNDS = [0, 7, 8, 30, 55, 80]
# What each algorithm adds to the root of the summed squared gradients.
DAMPING = {name: spec.damping for name, spec in ALGORITHMS.items()}


# -- helpers ---------------------------------------------------------------------


def _sparse_X(n_samples=80, n_features=25, seed=0):
    """Random sparse CSR, values exact in float32, with an empty row and a feature
    that shows up only twice (so the lazy L1/L2 catch-up crosses chunk boundaries)."""
    rng = np.random.default_rng(seed)
    dense = rng.normal(size=(n_samples, n_features)).round(2)
    dense *= rng.random((n_samples, n_features)) < 0.3
    dense[4] = 0.0
    dense[:, 0] = 0.0
    dense[[2, 70], 0] = [1.25, -0.75]
    return sp.csr_matrix(dense)


def _classification(n_classes, seed=0):
    """Labels 0..n_classes-1 that depend on X (a noisy linear rule)."""
    X = _sparse_X(seed=seed)
    rng = np.random.default_rng(seed + 100)
    scores = X @ rng.normal(size=X.shape[1]) + 0.3 * rng.normal(size=X.shape[0])
    edges = np.quantile(scores, np.arange(1, n_classes) / n_classes)
    return X, np.searchsorted(edges, scores)


def _regression(seed=0):
    X = _sparse_X(seed=seed)
    rng = np.random.default_rng(seed + 200)
    y = X @ rng.normal(size=X.shape[1]) + 0.1 * rng.normal(size=X.shape[0]) + 0.3
    return X, y


def _chunks():
    return [
        slice(a, b) for a, b in zip(CHUNK_BOUNDS[:-1], CHUNK_BOUNDS[1:], strict=True)
    ]


def _damping(algorithm, value):
    return {DAMPING[algorithm]: value}


def _regularization(algorithm, name):
    l1, l2 = REGULARIZATION[name]
    scale = SUMMED_LOSS_SCALE[algorithm]
    return {"l1": scale * l1, "l2": scale * l2}


def _assert_same_model(actual, expected, rtol=1e-12):
    """Same ``t_`` and same state arrays (to ``rtol``; 0 means bit-for-bit)."""
    assert actual.t_ == expected.t_
    actual_state, expected_state = state_of(actual), state_of(expected)
    assert actual_state.keys() == expected_state.keys()
    for name, e in expected_state.items():
        a = actual_state[name]
        assert a.shape == e.shape, name
        if rtol == 0:
            assert np.array_equal(a, e), name
        else:
            scale = max(1.0, float(np.abs(e).max(initial=0.0)))
            np.testing.assert_allclose(a, e, rtol=rtol, atol=rtol * scale, err_msg=name)


def _snapshot(estimator):
    return copy.deepcopy(vars(estimator))


def _assert_vars_unchanged(estimator, before):
    """Every attribute as it was: same names, arrays equal in value, dtype, shape."""
    after = vars(estimator)
    assert sorted(after) == sorted(before)
    for name, old in before.items():
        new = after[name]
        if isinstance(old, np.ndarray):
            assert isinstance(new, np.ndarray), name
            assert new.dtype == old.dtype and new.shape == old.shape, name
            assert np.array_equal(new, old), name
        else:
            assert type(new) is type(old), name
            assert new == old, name


def _assert_unfitted(estimator):
    assert [name for name in vars(estimator) if name.endswith("_")] == []
    with pytest.raises(NotFittedError):
        check_is_fitted(estimator)


# -- a stream of chunks is one pass ----------------------------------------------


@pytest.mark.parametrize("regularization", list(REGULARIZATION))
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_chunks_equal_one_pass(n_classes, algorithm, regularization):
    X, y = _classification(n_classes)
    params = dict(
        step_size=0.4,
        **_regularization(algorithm, regularization),
        **_damping(algorithm, 0.05),
    )
    full = make(algorithm, "classifier", **params, max_iter=1, tol=None, shuffle=False)
    full.fit(X, y)
    # shuffle=True must not matter: partial_fit keeps the rows in their order.
    stream = make(algorithm, "classifier", **params, shuffle=True, random_state=0)
    classes = np.arange(n_classes)
    for i, rows in enumerate(_chunks()):
        stream.partial_fit(X[rows], y[rows], classes=classes if i == 0 else None)
        assert stream.t_ == rows.stop
        assert stream.n_iter_ == 1
    _assert_same_model(stream, full)
    np.testing.assert_array_equal(stream.classes_, full.classes_)
    np.testing.assert_array_equal(stream.predict(X), full.predict(X))
    assert stream.coef_.shape == (1 if n_classes == 2 else n_classes, X.shape[1])


@pytest.mark.parametrize("regularization", list(REGULARIZATION))
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_regressor_chunks_equal_one_pass(algorithm, regularization):
    X, y = _regression()
    params = dict(
        step_size=0.2,
        loss="huber",
        **_regularization(algorithm, regularization),
        **_damping(algorithm, 0.01),
    )
    full = make(algorithm, "regressor", **params, max_iter=1, tol=None, shuffle=False)
    full.fit(X, y)
    stream = make(algorithm, "regressor", **params)
    for rows in _chunks():
        stream.partial_fit(X[rows], y[rows])
    _assert_same_model(stream, full)
    assert stream.t_ == X.shape[0]
    assert stream.coef_.shape == (X.shape[1],) and stream.intercept_.shape == (1,)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_partial_fit_honours_sample_weight(algorithm):
    X, y = _classification(3)
    rng = np.random.default_rng(5)
    sample_weight = rng.uniform(0.1, 3.0, X.shape[0])
    sample_weight[[3, 40]] = 0.0
    params = dict(step_size=0.3, l1=0.01, l2=0.02)
    full = make(algorithm, "classifier", **params, max_iter=1, tol=None, shuffle=False)
    full.fit(X, y, sample_weight=sample_weight)
    stream = make(algorithm, "classifier", **params)
    for rows in _chunks():
        stream.partial_fit(
            X[rows], y[rows], classes=[0, 1, 2], sample_weight=sample_weight[rows]
        )
    _assert_same_model(stream, full)
    # The weights did something: an unweighted stream is a different model.
    unweighted = make(algorithm, "classifier", **params)
    for rows in _chunks():
        unweighted.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    assert not np.allclose(unweighted.coef_, stream.coef_)

    Xr, yr = _regression()
    full = make(algorithm, "regressor", **params, max_iter=1, tol=None, shuffle=False)
    full.fit(Xr, yr, sample_weight=sample_weight)
    stream = make(algorithm, "regressor", **params)
    for rows in _chunks():
        stream.partial_fit(Xr[rows], yr[rows], sample_weight=sample_weight[rows])
    _assert_same_model(stream, full)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_partial_fit_after_fit_continues(algorithm):
    X, y = _classification(3)
    params = dict(step_size=0.3, l1=0.005, l2=0.01, tol=None, shuffle=False)
    both = make(algorithm, "classifier", **params, max_iter=1).fit(X, y)
    first = make(algorithm, "classifier", **params, max_iter=1).fit(X[:50], y[:50])
    # No classes needed after fit; giving the same ones (any order) is accepted too.
    first.partial_fit(X[50:65], y[50:65])
    first.partial_fit(X[65:], y[65:], classes=[2, 0, 1])
    _assert_same_model(first, both)
    assert first.t_ == X.shape[0] and first.n_iter_ == 1

    # After a multi-pass fit, t_ keeps counting from the fit's last round.
    clf = make(algorithm, "classifier", **params, max_iter=3).fit(X, y)
    assert clf.t_ == 3 * X.shape[0] and clf.n_iter_ == 3
    clf.partial_fit(X[:10], y[:10])
    assert clf.t_ == 3 * X.shape[0] + 10 and clf.n_iter_ == 1

    Xr, yr = _regression()
    both = make(algorithm, "regressor", **params, max_iter=1).fit(Xr, yr)
    first = make(algorithm, "regressor", **params, max_iter=1).fit(Xr[:33], yr[:33])
    first.partial_fit(Xr[33:], yr[33:])
    _assert_same_model(first, both)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_partial_fit_requires_classes_on_first_call(algorithm):
    X, y = _classification(2)
    clf = make(algorithm, "classifier")
    with pytest.raises(ValueError, match="classes"):
        clf.partial_fit(X[:10], y[:10])
    _assert_unfitted(clf)
    with pytest.raises(ValueError, match="greater than one"):
        clf.partial_fit(X[:10], np.zeros(10), classes=[0])
    _assert_unfitted(clf)
    # Classes can be a superset of what the first batch shows.
    clf.partial_fit(X[:5], np.zeros(5, dtype=int), classes=[0, 1, 2])
    np.testing.assert_array_equal(clf.classes_, [0, 1, 2])
    assert clf.coef_.shape == (3, X.shape[1])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_later_classes_must_equal_classes_(algorithm):
    X, y = _classification(3)
    clf = make(algorithm, "classifier")
    clf.partial_fit(X[:20], y[:20], classes=[0, 1, 2])
    for wrong in ([0, 1], [0, 1, 2, 3], [0, 1, 5]):
        before = _snapshot(clf)
        with pytest.raises(ValueError, match="classes"):
            clf.partial_fit(X[20:30], y[20:30], classes=wrong)
        _assert_vars_unchanged(clf, before)
    clf.partial_fit(X[20:30], y[20:30], classes=np.array([1, 2, 0]))
    assert clf.t_ == 30


@pytest.mark.parametrize("labels", [["ham", "spam", "eggs"], [-3, 10, 42]])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_arbitrary_labels_in_partial_fit(algorithm, labels, n_classes):
    X, codes = _classification(n_classes)
    labels = np.array(labels[:n_classes])
    sorted_labels = np.sort(labels)
    y = sorted_labels[codes]  # code k <-> k-th smallest label
    stream = make(algorithm, "classifier", step_size=0.5)
    reference = make(algorithm, "classifier", step_size=0.5)
    for i, rows in enumerate(_chunks()):
        stream.partial_fit(X[rows], y[rows], classes=labels if i == 0 else None)
        reference.partial_fit(
            X[rows], codes[rows], classes=np.arange(n_classes) if i == 0 else None
        )
    np.testing.assert_array_equal(stream.classes_, sorted_labels)
    _assert_same_model(stream, reference, rtol=0)
    predicted = stream.predict(X)
    np.testing.assert_array_equal(predicted, sorted_labels[reference.predict(X)])
    assert set(predicted) <= set(labels)
    # The model learned something: better than the majority class on its own data.
    assert stream.score(X, y) > np.bincount(codes).max() / codes.shape[0]
    # An unseen label is rejected and changes nothing.
    before = _snapshot(stream)
    bad = y[:6].copy().astype(object)
    bad[3] = "nope" if labels.dtype.kind == "U" else 11
    with pytest.raises(ValueError, match="not in classes_"):
        stream.partial_fit(X[:6], bad.astype(labels.dtype))
    _assert_vars_unchanged(stream, before)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_unseen_label_of_another_type_is_a_value_error(algorithm):
    X, y = _classification(2)
    clf = make(algorithm, "classifier")
    clf.partial_fit(X[:10], np.array(["a", "b"])[y[:10]], ["a", "b"])
    before = _snapshot(clf)
    with pytest.raises(ValueError):
        clf.partial_fit(X[10:14], np.array([0, 1, 0, 1]))
    _assert_vars_unchanged(clf, before)


# -- rejected batches ------------------------------------------------------------


def _bad_batches(kind, first_call=False):
    """(name, build(X, y) -> (X, y, kwargs)) for batches partial_fit must reject."""

    def with_value(value):
        def build(X, y):
            X = X.copy()
            X.data[3] = value
            return X, y, {}

        return build

    def dense_nan(X, y):
        X = X.toarray()
        X[1, 2] = np.nan
        return X, y, {}

    cases = [
        ("nan_in_X", with_value(np.nan)),
        ("inf_in_X", with_value(np.inf)),
        ("dense_nan_in_X", dense_nan),
        ("empty_X", lambda X, y: (X[:0], y[:0], {})),
        ("y_too_short", lambda X, y: (X, y[:-1], {})),
        (
            "sample_weight_shape",
            lambda X, y: (X, y, {"sample_weight": np.ones(X.shape[0] + 1)}),
        ),
        (
            "sample_weight_2d",
            lambda X, y: (X, y, {"sample_weight": np.ones((X.shape[0], 1))}),
        ),
        (
            "negative_sample_weight",
            lambda X, y: (X, y, {"sample_weight": np.r_[np.ones(X.shape[0] - 1), -1]}),
        ),
        (
            "nan_sample_weight",
            lambda X, y: (
                X,
                y,
                {"sample_weight": np.r_[np.nan, np.ones(X.shape[0] - 1)]},
            ),
        ),
    ]
    if not first_call:  # the first call sets the number of features
        cases += [
            ("too_few_features", lambda X, y: (X[:, :-1], y, {})),
            (
                "too_many_features",
                lambda X, y: (sp.hstack([X, X[:, :1]]).tocsr(), y, {}),
            ),
        ]
    if kind == "classifier":
        cases += [
            ("unseen_label", lambda X, y: (X, np.r_[y[:-1], 7], {})),
            ("classes_subset", lambda X, y: (X, y, {"classes": [0, 1]})),
            ("continuous_y", lambda X, y: (X, y + 0.5, {})),
        ]
        if not first_call:  # on a first call, a superset of y's labels is fine
            cases.append(
                ("classes_superset", lambda X, y: (X, y, {"classes": [0, 1, 2, 3]}))
            )
        else:
            cases.append(("classes_missing", lambda X, y: (X, y, {"classes": None})))
    else:
        cases += [
            ("nan_in_y", lambda X, y: (X, np.r_[np.nan, y[1:]], {})),
            ("inf_in_y", lambda X, y: (X, np.r_[y[:-1], np.inf], {})),
        ]
    return cases


def _fitted(kind, algorithm, how):
    params = dict(l1=0.01, l2=0.01, max_iter=2, tol=None, random_state=0)
    est = make(algorithm, kind, **params)
    if kind == "classifier":
        X, y = _classification(3)
        extra = {"classes": [0, 1, 2]}
    else:
        X, y = _regression()
        extra = {}
    if how == "fit":
        est.fit(X[:60], y[:60])
    else:
        est.partial_fit(X[:30], y[:30], **extra)
        est.partial_fit(X[30:60], y[30:60])
    return est, X[60:], y[60:]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_rejected_batch_leaves_fitted_model_untouched(kind, algorithm):
    for how in ("fit", "partial_fit"):
        est, X, y = _fitted(kind, algorithm, how)
        for name, build in _bad_batches(kind):
            before = _snapshot(est)
            X_bad, y_bad, kwargs = build(X, y)
            with pytest.raises(ValueError):
                est.partial_fit(X_bad, y_bad, **kwargs)
            try:
                _assert_vars_unchanged(est, before)
            except AssertionError as error:
                raise AssertionError(f"{how} then rejected {name}: {error}") from None
        # Still a working model that continues as if nothing happened.
        clean, _, _ = _fitted(kind, algorithm, how)
        est.partial_fit(X, y)
        clean.partial_fit(X, y)
        _assert_vars_unchanged(est, _snapshot(clean))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_rejected_first_call_leaves_estimator_unfitted(kind, algorithm):
    make_est = partial(make, algorithm, kind)
    if kind == "classifier":
        X, y = _classification(3)
        extra = {"classes": [0, 1, 2]}
    else:
        X, y = _regression()
        extra = {}
    for name, build in _bad_batches(kind, first_call=True):
        est = make_est()
        X_bad, y_bad, kwargs = build(X, y)
        with pytest.raises(ValueError):
            est.partial_fit(X_bad, y_bad, **{**extra, **kwargs})
        try:
            _assert_unfitted(est)
        except AssertionError as error:
            raise AssertionError(f"rejected first {name}: {error}") from None
        # The same estimator then takes a good first batch like a fresh one.
        est.partial_fit(X, y, **extra)
        _assert_same_model(est, make_est().partial_fit(X, y, **extra), rtol=0)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_rejected_first_call_with_dataframe_sets_no_feature_names(algorithm):
    X, y = _classification(2)
    frame = pd.DataFrame(X.toarray(), columns=[f"f{j}" for j in range(X.shape[1])])
    clf = make(algorithm, "classifier")
    with pytest.raises(ValueError, match="not in classes_"):
        clf.partial_fit(frame, np.r_[y[:-1], 9], classes=[0, 1])
    _assert_unfitted(clf)
    assert not hasattr(clf, "feature_names_in_")
    reg = make(algorithm, "regressor")
    bad = frame.copy()
    bad.iloc[0, 0] = np.nan
    with pytest.raises(ValueError):
        reg.partial_fit(bad, y.astype(float))
    _assert_unfitted(reg)
    # A numpy batch after that must not be compared with the rejected names.
    reg.partial_fit(X.toarray(), y.astype(float))
    assert not hasattr(reg, "feature_names_in_")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_balanced_class_weight_rejected_by_partial_fit(algorithm):
    X, y = _classification(3)
    clf = make(algorithm, "classifier", class_weight="balanced")
    with pytest.raises(ValueError, match="balanced"):
        clf.partial_fit(X, y, classes=[0, 1, 2])
    _assert_unfitted(clf)
    clf.fit(X, y)  # fit supports it
    before = _snapshot(clf)
    with pytest.raises(ValueError, match="balanced"):
        clf.partial_fit(X, y)
    _assert_vars_unchanged(clf, before)
    # A dict class_weight works in partial_fit and multiplies the row weights.
    weights = {0: 2.0, 1: 0.5, 2: 1.0}
    by_dict = make(algorithm, "classifier", class_weight=weights)
    by_dict.partial_fit(X, y, [0, 1, 2])
    by_rows = make(algorithm, "classifier").partial_fit(
        X, y, [0, 1, 2], sample_weight=np.array([2.0, 0.5, 1.0])[y]
    )
    _assert_same_model(by_dict, by_rows, rtol=0)


@pytest.mark.parametrize("how", ["fit", "partial_fit"])
@pytest.mark.parametrize("first, other", [UPDATES, UPDATES[::-1]])
def test_changing_update_between_calls_is_rejected(first, other, how):
    X, y = _classification(2)
    for est, kwargs in (
        (AdaGradClassifier(update=first, eta=0.1, l1=0.01), {"classes": [0, 1]}),
        (AdaGradRegressor(update=first, l1=0.01), {}),
    ):
        target = y if kwargs else y.astype(float)
        if how == "fit":
            est.set_params(max_iter=1, tol=None).fit(X[:40], target[:40])
        else:
            est.partial_fit(X[:40], target[:40], **kwargs)
        before = _snapshot(est)
        est.set_params(update=other)
        with pytest.raises(ValueError, match="update"):
            est.partial_fit(X[40:], target[40:])
        est.set_params(update=first)
        _assert_vars_unchanged(est, before)
        # fit starts over and may change the rule.
        est.set_params(update=other, max_iter=1, tol=None).fit(X, target)
        assert hasattr(est, "sum_grad_") == (other == "dual_averaging")
        assert est.t_ == X.shape[0]


# -- pickling in the middle of a stream ------------------------------------------


def _roundtrip_pickle(est, tmp_path):
    return pickle.loads(pickle.dumps(est))


def _roundtrip_joblib(est, tmp_path):
    path = tmp_path / "model.joblib"
    joblib.dump(est, path)
    return joblib.load(path)


def _roundtrip_joblib_read_only(est, tmp_path):
    """The state comes back as a read-only memory map; training must go on."""
    # A new file each time: the previous model's arrays still map the old one.
    path = tmp_path / f"model{len(list(tmp_path.iterdir()))}.joblib"
    joblib.dump(est, path)
    loaded = joblib.load(path, mmap_mode="r")
    assert isinstance(loaded._state, np.memmap) and not loaded._state.flags.writeable
    return loaded


@pytest.mark.parametrize(
    "roundtrip", [_roundtrip_pickle, _roundtrip_joblib, _roundtrip_joblib_read_only]
)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
def test_pickling_mid_stream_changes_nothing(kind, algorithm, roundtrip, tmp_path):
    build = partial(make, algorithm, kind, l1=0.01, l2=0.02)
    if kind == "regressor":
        X, y = _regression()
        extra = {}
    else:
        X, y = _classification(2 if kind == "binary" else 3)
        extra = {"classes": np.unique(y)}
    plain, restored = build(), build()
    chunks = _chunks()
    for i, rows in enumerate(chunks):
        kwargs = extra if i == 0 else {}
        plain.partial_fit(X[rows], y[rows], **kwargs)
        restored.partial_fit(X[rows], y[rows], **kwargs)
        if i in (0, 2):
            restored = roundtrip(restored, tmp_path)
            _assert_vars_unchanged(restored, _snapshot(plain))
    _assert_vars_unchanged(restored, _snapshot(plain))
    np.testing.assert_array_equal(restored.predict(X), plain.predict(X))


# -- fit and warm_start ----------------------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_fit_twice_is_idempotent(algorithm):
    X, y = _classification(3)
    params = dict(l1=0.001, max_iter=4, tol=None, random_state=3)
    clf = make(algorithm, "classifier", **params)
    once = _snapshot(clf.fit(X, y))
    # Train on something else in between: the next fit must start from scratch.
    clf.partial_fit(X[:20], (y[:20] + 1) % 3)
    clf.fit(X, y)
    _assert_vars_unchanged(clf, once)
    _assert_vars_unchanged(make(algorithm, "classifier", **params).fit(X, y), once)

    Xr, yr = _regression()
    reg = make(algorithm, "regressor", **params)
    once = _snapshot(reg.fit(Xr, yr))
    reg.fit(Xr[:10], -yr[:10])
    reg.fit(Xr, yr)
    _assert_vars_unchanged(reg, once)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_warm_start_fit_continues(algorithm):
    X, y = _classification(3)
    params = dict(l1=0.01, l2=0.01, tol=None, shuffle=False)
    two_passes = make(algorithm, "classifier", **params, max_iter=2).fit(X, y)
    warm = make(algorithm, "classifier", **params, max_iter=1, warm_start=True)
    warm.fit(X, y)
    assert warm.t_ == X.shape[0]
    warm.fit(X, y)
    assert warm.t_ == 2 * X.shape[0] and warm.n_iter_ == 1
    _assert_same_model(warm, two_passes)
    # Without warm_start the second fit starts over.
    cold = make(algorithm, "classifier", **params, max_iter=1).fit(X, y).fit(X, y)
    assert cold.t_ == X.shape[0]

    Xr, yr = _regression()
    two_passes = make(algorithm, "regressor", **params, max_iter=2).fit(Xr, yr)
    warm = make(algorithm, "regressor", **params, max_iter=1, warm_start=True)
    warm.fit(Xr, yr).fit(Xr, yr)
    _assert_same_model(warm, two_passes)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_warm_start_with_other_classes_is_rejected(algorithm):
    X, y = _classification(3)
    clf = make(algorithm, "classifier", warm_start=True, max_iter=2, tol=None)
    clf.fit(X, y)
    before = _snapshot(clf)
    for other in (np.minimum(y, 1), np.where(y == 2, 5, y)):
        with pytest.raises(ValueError, match="warm_start"):
            clf.fit(X, other)
        _assert_vars_unchanged(clf, before)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_warm_start_with_other_n_features_is_rejected(kind, algorithm):
    """The ValueError must not leave a half-updated model behind: the fitted model
    keeps working on data of its own width."""
    X, y = _classification(2) if kind == "classifier" else _regression()
    est = make(algorithm, kind, warm_start=True, max_iter=2, tol=None).fit(X, y)
    before = _snapshot(est)
    with pytest.raises(ValueError, match="warm_start"):
        est.fit(X[:, :-3], y)
    assert est.n_features_in_ == X.shape[1]
    _assert_vars_unchanged(est, before)
    est.predict(X)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_rejected_refit_leaves_the_fitted_model_usable(algorithm):
    # Not a warm start: fit validates with reset=True (new n_features_in_) and only
    # then finds a single class; the old model must still predict on its own width.
    X, y = make_classification(60, 6, random_state=0)
    clf = make(algorithm, "classifier", random_state=0).fit(X, y)
    before = clf.predict(X)
    with pytest.raises(ValueError, match="got 1 class"):
        clf.fit(X[:, :4], np.zeros(60))
    assert clf.n_features_in_ == 6
    np.testing.assert_array_equal(clf.predict(X), before)


# -- FTRL: parameters between calls, exact laziness -------------------------------


def _ftrl_weights(z, n, alpha, beta, l1, l2):
    """McMahan et al.'s closed form: w = 0 where |z| <= l1, else
    -(z - sign(z) l1) / ((beta + sqrt(n)) / alpha + l2)."""
    active = np.abs(z) > l1
    w = np.zeros_like(z)
    denominator = (beta + np.sqrt(n[active])) / alpha + l2
    w[active] = -(z[active] - np.sign(z[active]) * l1) / denominator
    return w


def _ftrl_stream_data(kind):
    """X, y and the first call's extra arguments for one of the three kinds."""
    if kind == "regressor":
        X, y = _regression()
        return X, y, {}
    X, y = _classification(2 if kind == "binary" else 3)
    return X, y, {"classes": np.unique(y)}


def _only_columns(X, columns, stored_zeros=False):
    """X with every column but ``columns`` emptied (or, with ``stored_zeros``,
    holding explicit zeros where X had values)."""
    keep = np.zeros(X.shape[1], dtype=bool)
    keep[columns] = True
    X = X.copy()
    X.data[~keep[X.indices]] = 0.0
    if not stored_zeros:
        X.eliminate_zeros()
    return X


FTRL_PARAMS = dict(alpha=0.3, beta=0.5, l1=0.2, l2=0.4)


@pytest.mark.parametrize(
    "changed, value", [("alpha", 0.05), ("beta", 0.0), ("l1", 1.0), ("l2", 3.0)]
)
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
def test_ftrl_new_parameters_rewrite_every_weight(kind, changed, value):
    X, y, extra = _ftrl_stream_data(kind)
    est = make("ftrl", kind, **FTRL_PARAMS)
    est.partial_fit(X[:50], y[:50], **extra)
    est.set_params(**{changed: value})
    new = {**FTRL_PARAMS, changed: value}
    # The second batch touches only the first half of the features.
    touched = np.arange(X.shape[1] // 2)
    est.partial_fit(_only_columns(X[50:], touched), y[50:])
    untouched = np.setdiff1d(np.arange(X.shape[1]), touched)

    z, n = est.z_, est.n_
    expected = _ftrl_weights(z, n, **new)
    # Not vacuous: on the untouched features the old parameters give other weights.
    old = _ftrl_weights(z, n, **FTRL_PARAMS)
    assert not np.array_equal(old[..., untouched], expected[..., untouched])
    np.testing.assert_allclose(est.coef_, expected, rtol=1e-12, atol=0)
    # The intercept: the same recursion without l1 and l2.
    expected_intercept = _ftrl_weights(
        est.intercept_z_, est.intercept_n_, new["alpha"], new["beta"], 0.0, 0.0
    )
    np.testing.assert_allclose(est.intercept_, expected_intercept, rtol=1e-12, atol=0)


@pytest.mark.parametrize("stored_zeros", [False, True])
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
def test_ftrl_batch_leaves_untouched_features_bit_for_bit(kind, stored_zeros):
    X, y, extra = _ftrl_stream_data(kind)
    est = make("ftrl", kind, **FTRL_PARAMS)
    est.partial_fit(X[:50], y[:50], **extra)
    before = {name: value.copy() for name, value in state_of(est).items()}
    touched = np.arange(0, X.shape[1], 3)
    untouched = np.setdiff1d(np.arange(X.shape[1]), touched)
    # Not vacuous: the first batch gave the untouched features non-zero weights.
    assert np.count_nonzero(before["coef_"][..., untouched]) > 0
    est.partial_fit(_only_columns(X[50:], touched, stored_zeros), y[50:])
    after = state_of(est)
    for name in ("coef_", "z_", "n_"):
        # The bits, not only the values (-0.0 is not 0.0 here).
        np.testing.assert_array_equal(
            after[name][..., untouched].view(np.uint64),
            before[name][..., untouched].view(np.uint64),
            err_msg=name,
        )
        assert not np.array_equal(after[name][..., touched], before[name][..., touched])
