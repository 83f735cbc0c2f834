"""Input handling of every estimator (each algorithm in ``estimators.ALGORITHMS``).

- every sparse format, dense arrays (float64 and float32) and DataFrames give the
  same model;
- float32/float64 CSR with int32/int64 indices reaches the kernel without a copy
  (also with unsorted indices, and when read-only), and nothing is ever densified;
- repeated column indices within a row are summed on a copy; the caller's X, y and
  sample_weight are never written.
"""

import tracemalloc

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from estimators import ALGORITHMS, make, state_of

from sk_adaprox._kernels import adagrad, coin, ftrl, ons

PASS_KERNELS = [
    (adagrad, "md_pass"),
    (adagrad, "da_pass"),
    (ftrl, "ftrl_pass"),
    (ons, "full_pass"),
    (ons, "diag_pass"),
    (ons, "sketch_pass"),
    (coin, "coin_pass"),
    (coin, "normalized_pass"),
]
# AdaGrad's l1 and l2 weigh the mean loss, FTRL's the summed loss (of 40-120 rounds
# here): scaled by the 40 rows of a pass, they are about as strong.
_ADAGRAD_PARAMS = dict(step_size=0.3, delta=0.01, l1=0.005, l2=0.01, tol=None)
PARAMS = {
    "adagrad_md": _ADAGRAD_PARAMS,
    "adagrad_da": _ADAGRAD_PARAMS,
    "ftrl": dict(step_size=0.3, beta=0.01, l1=0.2, l2=0.4, tol=None),
    # A radius that the steps leave, so the projection is exercised too.
    **{
        name: dict(step_size=1.0, eps=0.5, radius=0.8, tol=None)
        for name in ALGORITHMS
        if name.startswith("ons")
    },
    "coin": dict(step_size=20.0, tol=None),  # bolder bets than the default
    "coin_cocob": dict(step_size=5.0, tol=None),  # alpha: bolder bets, too
}


# -- helpers ---------------------------------------------------------------------


def _dense_problem(n_samples=40, n_features=12, seed=0):
    """Dense float64 X whose values are multiples of 1/8 (exact in float32), with an
    empty row; 3-class labels and a real target that both depend on X."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-16, 17, size=(n_samples, n_features)) / 8.0
    X *= rng.random((n_samples, n_features)) < 0.35
    X[5] = 0.0
    scores = X @ rng.normal(size=n_features)
    y_class = np.searchsorted(np.quantile(scores, [1 / 3, 2 / 3]), scores)
    y_real = scores + 0.1 * rng.normal(size=n_samples)
    return X, y_class, y_real


def _csr_with_index_dtype(X, index_dtype, container=sp.csr_matrix):
    X = container(X)
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    assert X.indices.dtype == index_dtype and X.indptr.dtype == index_dtype
    return X


def _frame(X):
    return pd.DataFrame(X, columns=[f"feature_{j}" for j in range(X.shape[1])])


FORMATS = {
    "ndarray": lambda X: X.copy(),
    "ndarray_fortran": lambda X: np.asfortranarray(X),
    "float32_ndarray": lambda X: X.astype(np.float32),
    "csr_matrix": sp.csr_matrix,
    "csc_matrix": sp.csc_matrix,
    "coo_matrix": sp.coo_matrix,
    "lil_matrix": sp.lil_matrix,
    "dok_matrix": sp.dok_matrix,
    "bsr_matrix": sp.bsr_matrix,
    "dia_matrix": sp.dia_matrix,
    "csr_array": sp.csr_array,
    "csc_array": sp.csc_array,
    "coo_array": sp.coo_array,
    "lil_array": sp.lil_array,
    "dok_array": sp.dok_array,
    "int64_csr_matrix": lambda X: _csr_with_index_dtype(X, np.int64),
    "int64_csr_array": lambda X: _csr_with_index_dtype(X, np.int64, sp.csr_array),
    "float32_csr_matrix": lambda X: sp.csr_matrix(X.astype(np.float32)),
    "float32_csc_matrix": lambda X: sp.csc_matrix(X.astype(np.float32)),
    "dataframe": _frame,
    "sparse_dataframe": lambda X: pd.DataFrame.sparse.from_spmatrix(
        sp.csr_matrix(X), columns=[f"feature_{j}" for j in range(X.shape[1])]
    ),
}


def _assert_same_model(actual, expected, rtol=1e-12):
    assert actual.t_ == expected.t_
    actual_state, expected_state = state_of(actual), state_of(expected)
    assert actual_state.keys() == expected_state.keys()
    for name, e in expected_state.items():
        scale = max(1.0, float(np.abs(e).max(initial=0.0)))
        np.testing.assert_allclose(
            actual_state[name], e, rtol=rtol, atol=rtol * scale, err_msg=name
        )


class _KernelSpy:
    """Wraps every pass kernel; records the (data, indices, indptr) they get."""

    def __init__(self, monkeypatch):
        self.calls = []
        for module, name in PASS_KERNELS:
            original = getattr(module, name)
            monkeypatch.setattr(module, name, self._wrap(original))

    def _wrap(self, original):
        def spy(data, indices, indptr, *rest):
            self.calls.append((data, indices, indptr))
            return original(data, indices, indptr, *rest)

        return spy

    def assert_all_calls_got(self, X, same=lambda a, b: a is b):
        assert self.calls, "the kernel was never called"
        for data, indices, indptr in self.calls:
            assert same(data, X.data), "data was copied"
            assert same(indices, X.indices), "indices were copied"
            assert same(indptr, X.indptr), "indptr was copied"


def _estimators(algorithm):
    """A classifier and a regressor of ``algorithm``, and the targets each takes."""
    return [
        (make(algorithm, "classifier", **PARAMS[algorithm]), "class"),
        (make(algorithm, "regressor", **PARAMS[algorithm]), "real"),
    ]


# -- every format gives the same model -------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_input_format_gives_the_same_model(fmt, method, algorithm):
    X, y_class, y_real = _dense_problem()
    X_in = FORMATS[fmt](X)
    reference_X = sp.csr_matrix(X)
    for est, target in _estimators(algorithm):
        y = y_class if target == "class" else y_real
        reference = est.__class__(**est.get_params())
        if method == "fit":
            est.set_params(max_iter=2, shuffle=True, random_state=0)
            reference.set_params(max_iter=2, shuffle=True, random_state=0)
            est.fit(X_in, y)
            reference.fit(reference_X, y)
        else:
            kwargs = {"classes": [0, 1, 2]} if target == "class" else {}
            for _ in range(2):
                est.partial_fit(X_in, y, **kwargs)
                reference.partial_fit(reference_X, y, **kwargs)
        _assert_same_model(est, reference)
        assert est.n_features_in_ == X.shape[1]
        if fmt.endswith("dataframe"):
            np.testing.assert_array_equal(est.feature_names_in_, X_in.columns)
        else:
            assert not hasattr(est, "feature_names_in_")
        np.testing.assert_allclose(
            est.predict(X_in), reference.predict(reference_X), rtol=1e-12
        )


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_dense_input_is_not_used_as_a_copy_of_the_csr_path(algorithm):
    """The formats test would pass vacuously if every format were ignored: check a
    different X really gives a different model."""
    X, y_class, _ = _dense_problem()
    params = dict(PARAMS[algorithm], max_iter=1, shuffle=False)
    a = make(algorithm, "classifier", **params).fit(X, y_class)
    b = make(algorithm, "classifier", **params).fit(X * 0.5, y_class)
    assert not np.allclose(a.coef_, b.coef_)


# -- no copies -------------------------------------------------------------------

NO_COPY_CASES = {
    "float64_int32": (np.float64, np.int32),
    "float64_int64": (np.float64, np.int64),
    "float32_int32": (np.float32, np.int32),
}


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("container", [sp.csr_matrix, sp.csr_array])
@pytest.mark.parametrize("case", list(NO_COPY_CASES))
def test_csr_reaches_the_kernel_without_a_copy(case, container, algorithm, monkeypatch):
    """Every pass kernel (AdaGrad's mirror descent and dual averaging, FTRL's)."""
    dtype, index_dtype = NO_COPY_CASES[case]
    X, y_class, y_real = _dense_problem()
    X = _csr_with_index_dtype(X.astype(dtype), index_dtype, container)
    assert X.dtype == dtype
    for est, target in _estimators(algorithm):
        y = y_class if target == "class" else y_real
        kwargs = {"classes": [0, 1, 2]} if target == "class" else {}
        spy = _KernelSpy(monkeypatch)
        est.set_params(max_iter=2).fit(X, y)
        est.partial_fit(X, y)
        assert len(spy.calls) == 3
        spy.assert_all_calls_got(X)
        fresh = est.__class__(**est.get_params()).partial_fit(X, y, **kwargs)
        assert fresh.t_ == X.shape[0]
        assert len(spy.calls) == 4
        spy.assert_all_calls_got(X)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_one_pass_is_one_kernel_call_on_the_callers_csr(algorithm, monkeypatch):
    X, y_class, y_real = _dense_problem()
    X = sp.csr_matrix(X)
    for est, target in _estimators(algorithm):
        spy = _KernelSpy(monkeypatch)
        est.set_params(max_iter=1).fit(X, y_class if target == "class" else y_real)
        assert len(spy.calls) == 1
        spy.assert_all_calls_got(X)


def _reverse_each_row(X):
    """The same CSR matrix with the column indices of every row in reverse order."""
    data, indices = X.data.copy(), X.indices.copy()
    for i in range(X.shape[0]):
        start, end = X.indptr[i], X.indptr[i + 1]
        data[start:end] = data[start:end][::-1]
        indices[start:end] = indices[start:end][::-1]
    return sp.csr_matrix((data, indices, X.indptr.copy()), shape=X.shape)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_unsorted_csr_is_not_copied(algorithm, monkeypatch):
    X, y_class, y_real = _dense_problem()
    sorted_X = sp.csr_matrix(X)
    X = _reverse_each_row(sorted_X)
    assert not X.has_sorted_indices
    data, indices, indptr = X.data.copy(), X.indices.copy(), X.indptr.copy()
    for est, target in _estimators(algorithm):
        y = y_class if target == "class" else y_real
        spy = _KernelSpy(monkeypatch)
        est.set_params(max_iter=2, shuffle=True, random_state=0).fit(X, y)
        spy.assert_all_calls_got(X)
        reference = est.__class__(**est.get_params()).fit(sorted_X, y)
        _assert_same_model(est, reference)
    # Not sorted in place either.
    np.testing.assert_array_equal(X.data, data)
    np.testing.assert_array_equal(X.indices, indices)
    np.testing.assert_array_equal(X.indptr, indptr)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("how", ["memmap", "writeable_false"])
def test_read_only_csr_trains_without_a_copy(how, algorithm, tmp_path, monkeypatch):
    X, y_class, y_real = _dense_problem()
    writable = sp.csr_matrix(X)
    arrays = {}
    for name in ("data", "indices", "indptr"):
        array = getattr(writable, name)
        if how == "memmap":
            path = tmp_path / f"{name}.bin"
            array.tofile(path)
            arrays[name] = np.memmap(
                path, dtype=array.dtype, mode="r", shape=array.shape
            )
        else:
            arrays[name] = array.copy()
            arrays[name].flags.writeable = False
    X_ro = sp.csr_matrix(
        (arrays["data"], arrays["indices"], arrays["indptr"]), shape=X.shape
    )
    for name in ("data", "indices", "indptr"):
        assert not getattr(X_ro, name).flags.writeable
        assert np.shares_memory(getattr(X_ro, name), arrays[name])
    for est, target in _estimators(algorithm):
        y = y_class if target == "class" else y_real
        kwargs = {"classes": [0, 1, 2]} if target == "class" else {}
        spy = _KernelSpy(monkeypatch)
        est.set_params(max_iter=2, shuffle=True, random_state=0).fit(X_ro, y)
        est.partial_fit(X_ro, y)
        spy.assert_all_calls_got(X_ro, same=np.shares_memory)
        reference = est.__class__(**est.get_params()).fit(writable, y)
        reference.partial_fit(writable, y)
        _assert_same_model(est, reference)
        fresh = est.__class__(**est.get_params()).partial_fit(X_ro, y, **kwargs)
        assert fresh.t_ == X.shape[0]
        est.predict(X_ro)


# -- repeated column indices -------------------------------------------------------


def _csr_with_duplicates(index_dtype=np.int32):
    """A 6 x 5 CSR whose rows 0, 2 and 5 list a column more than once."""
    data = np.array([0.5, 1.0, 0.25, -1.0, 2.0, 0.5, 0.5, 0.5, 1.5, -0.75, 1.0, 1.0])
    indices = np.array([3, 1, 3, 0, 4, 4, 4, 2, 1, 0, 2, 2], dtype=index_dtype)
    indptr = np.array([0, 3, 5, 8, 9, 10, 12], dtype=index_dtype)
    return sp.csr_matrix((data, indices, indptr), shape=(6, 5))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_duplicate_column_indices_are_summed_on_a_copy(algorithm, monkeypatch):
    X = _csr_with_duplicates()
    data, indices, indptr = X.data.copy(), X.indices.copy(), X.indptr.copy()
    summed = X.copy()
    summed.sum_duplicates()
    assert summed.nnz < X.nnz
    y_class = np.array([0, 1, 1, 0, 1, 0])
    y_real = np.array([0.5, -1.0, 2.0, 0.0, 1.0, -0.5])
    for est, target in _estimators(algorithm):
        y = y_class if target == "class" else y_real
        kwargs = {"classes": [0, 1]} if target == "class" else {}
        spy = _KernelSpy(monkeypatch)
        est.set_params(max_iter=3, shuffle=True, random_state=0).fit(X, y)
        est.partial_fit(X, y)
        reference = est.__class__(**est.get_params()).fit(summed, y)
        reference.partial_fit(summed, y)
        _assert_same_model(est, reference)
        stream = est.__class__(**est.get_params()).partial_fit(X, y, **kwargs)
        stream_reference = est.__class__(**est.get_params())
        stream_reference.partial_fit(summed, y, **kwargs)
        _assert_same_model(stream, stream_reference)
        # The kernel saw one entry per (row, column), in a matrix of its own.
        for data_seen, indices_seen, indptr_seen in spy.calls:
            assert not np.shares_memory(data_seen, X.data)
            assert not np.shares_memory(indices_seen, X.indices)
            rows = np.repeat(np.arange(X.shape[0]), np.diff(indptr_seen))
            pairs = rows * X.shape[1] + indices_seen
            assert np.unique(pairs).shape == pairs.shape
        # The user's matrix is as it was: still with its duplicates.
        np.testing.assert_array_equal(X.data, data)
        np.testing.assert_array_equal(X.indices, indices)
        np.testing.assert_array_equal(X.indptr, indptr)
        assert X.nnz == data.shape[0]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_duplicates_in_int64_csr_and_in_coo_are_summed(algorithm):
    X32 = _csr_with_duplicates()
    X64 = _csr_with_duplicates()
    X64.indices = X64.indices.astype(np.int64)
    X64.indptr = X64.indptr.astype(np.int64)
    rows = np.repeat(np.arange(X32.shape[0]), np.diff(X32.indptr))
    coo = sp.coo_matrix((X32.data, (rows, X32.indices)), shape=X32.shape)
    summed = X32.copy()
    summed.sum_duplicates()
    y = np.array([0, 1, 1, 0, 1, 0])
    params = dict(PARAMS[algorithm], max_iter=2, shuffle=False)
    reference = make(algorithm, "classifier", **params).fit(summed, y)
    for X in (X64, coo):
        _assert_same_model(make(algorithm, "classifier", **params).fit(X, y), reference)
    assert X64.nnz == X32.nnz and coo.nnz == X32.nnz  # left as they were


# -- the caller's arrays are never written -----------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize(
    "fmt", ["ndarray", "float32_ndarray", "csr_matrix", "csc_matrix"]
)
def test_user_arrays_are_not_modified(fmt, algorithm):
    X, y_class, y_real = _dense_problem()
    X_in = FORMATS[fmt](X)
    sample_weight = np.linspace(0.0, 2.0, X.shape[0])
    y_labels = np.array(["b", "a", "c"])[y_class]

    def snapshot():
        parts = [y_labels.copy(), y_real.copy(), sample_weight.copy()]
        if sp.issparse(X_in):
            parts += [X_in.data.copy(), X_in.indices.copy(), X_in.indptr.copy()]
        else:
            parts.append(X_in.copy())
        return parts

    def current():
        parts = [y_labels, y_real, sample_weight]
        if sp.issparse(X_in):
            parts += [X_in.data, X_in.indices, X_in.indptr]
        else:
            parts.append(X_in)
        return parts

    before = snapshot()
    for est, target in _estimators(algorithm):
        y = y_labels if target == "class" else y_real
        kwargs = {"classes": ["a", "b", "c"]} if target == "class" else {}
        est.set_params(max_iter=2).fit(X_in, y, sample_weight=sample_weight)
        est.partial_fit(X_in, y, sample_weight=sample_weight)
        est.__class__(**est.get_params()).partial_fit(
            X_in, y, sample_weight=sample_weight, **kwargs
        )
        est.predict(X_in)
    for old, new in zip(before, current(), strict=True):
        assert new.dtype == old.dtype
        np.testing.assert_array_equal(new, old)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_read_only_y_and_sample_weight_are_accepted(algorithm):
    X, y_class, y_real = _dense_problem()
    sample_weight = np.linspace(0.5, 2.0, X.shape[0])
    for array in (y_class, y_real, sample_weight):
        array.flags.writeable = False
    for est, target in _estimators(algorithm):
        y = y_class if target == "class" else y_real
        kwargs = {"classes": [0, 1, 2]} if target == "class" else {}
        est.set_params(max_iter=2).fit(X, y, sample_weight=sample_weight)
        est.partial_fit(X, y, sample_weight=sample_weight)
        est.__class__(**est.get_params()).partial_fit(
            X, y, sample_weight=sample_weight, **kwargs
        )


# -- nothing is ever densified -----------------------------------------------------


@pytest.mark.parametrize(
    "algorithm",
    [
        # The sketch takes seconds on a million features.
        pytest.param(name, marks=pytest.mark.slow) if name == "ons_sketch" else name
        for name in ALGORITHMS
    ],
)
def test_wide_sparse_input_is_never_densified(algorithm, monkeypatch):
    """1e6 features: dense copies of X would need 400 MB; the model itself ~40 MB."""

    def refuse(self, *args, **kwargs):
        raise AssertionError("a sparse matrix was densified")

    for cls in (sp.csr_matrix, sp.csr_array, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    n_samples, n_features = 50, 1_000_000
    rng = np.random.default_rng(0)
    nnz_per_row = 10
    indices = rng.choice(n_features, size=n_samples * nnz_per_row).astype(np.int32)
    data = rng.integers(1, 8, size=indices.shape[0]) / 4.0
    indptr = np.arange(0, indices.shape[0] + 1, nnz_per_row, dtype=np.int32)
    X = sp.csr_matrix((data, indices, indptr), shape=(n_samples, n_features))
    X.sum_duplicates()
    y_class = rng.integers(0, 2, n_samples)
    y_real = rng.normal(size=n_samples)
    if algorithm == "ons_full":
        # A^-1 of 1e6 features is 8 TB: refused before anything is allocated.
        for est, target in _estimators(algorithm):
            y = y_class if target == "class" else y_real
            with pytest.raises(ValueError, match="matrix='diag'.*matrix='sketch'"):
                est.fit(X, y)
            assert not hasattr(est, "n_features_in_")
        return
    # The sketch keeps 2 * sketch_size dense rows (48 MB here); its shrink works on
    # copies of them.
    sketch_bytes = 0
    if algorithm == "ons_sketch":
        sketch_bytes = 8 * 2 * ALGORITHMS[algorithm].params["sketch_size"] * n_features
    tracemalloc.start()
    try:
        for est, target in _estimators(algorithm):
            y = y_class if target == "class" else y_real
            if algorithm.startswith("ons"):
                # Memory is the point here; a projected sketch (an SVD per row of
                # 6 x 1e6) would only add time.
                est.set_params(radius=None)
            est.set_params(max_iter=2).fit(X, y)
            est.partial_fit(X.tocsc(), y)
            est.predict(X)
            est.score(X, y)
            if target == "class":
                est.decision_function(X)
                est.predict_proba(X)
            _, peak = tracemalloc.get_traced_memory()
            assert peak < 150e6 + 3 * sketch_bytes, f"peak {peak / 1e6:.0f} MB"
    finally:
        tracemalloc.stop()
