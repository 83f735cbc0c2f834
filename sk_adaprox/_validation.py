"""Input checks that cost microseconds, for the calls a stream makes.

A stream calls ``partial_fit`` and ``predict_proba`` on small batches, often one
row, where scikit-learn's generic ``validate_data`` (dataframe detection, dtype
negotiation, ``type_of_target``) costs far more than learning from the row. When
the input is already in a form the kernels take (CSR with float32/float64 values
and int32/int64 indices, or a NumPy array; a 1-D NumPy ``y``), the functions here
check what ``validate_data`` would and return the input as the kernels need it.
Whenever a check fails they return None and the caller runs the full validation,
which then raises scikit-learn's own error: the messages are the same by
construction. Also here: the conversion of any accepted X to the kernels' CSR,
and the guard that leaves an estimator as it was when validation rejects a call.
"""

import contextlib
import math

import numpy as np
import scipy.sparse as sp
from sklearn import get_config

from ._kernels.sparse import count_row_nonzeros, csr_has_duplicate_indices, fill_csr

_FLOATS = (np.dtype(np.float64), np.dtype(np.float32))
_INDICES = (np.dtype(np.int32), np.dtype(np.int64))


def _finite(values):
    """True if every value is finite, or if ``assume_finite`` is set. A finite sum
    proves it (NaN and inf propagate); an overflowing sum of finite values gives
    False, and the caller's full validation then accepts the input."""
    return math.isfinite(np.add.reduce(values)) or get_config()["assume_finite"]


def dense_to_csr(X):
    """The CSR matrix of the 2-D float array ``X`` (its non-zeros, in order, with
    X's dtype and int32 indices where they fit): ``scipy.sparse.csr_matrix(X)``
    without its COO detour, which costs several times a training pass."""
    n_rows, n_columns = X.shape
    counts = np.zeros(n_rows + 1, dtype=np.int64)
    count_row_nonzeros(X, counts)
    indptr = np.cumsum(counts)
    nnz = int(indptr[-1])
    index_type = np.int32 if max(nnz, n_columns) < 2**31 else np.int64
    data = np.empty(nnz, dtype=X.dtype)
    indices = np.empty(nnz, dtype=index_type)
    fill_csr(X, indptr, data, indices)
    csr = sp.csr_matrix(
        (data, indices, indptr.astype(index_type, copy=False)), shape=X.shape
    )
    csr.has_sorted_indices = True
    csr.has_canonical_format = True
    return csr


def checked_X(estimator, X):
    """X as the kernels take it (canonical CSR or a 2-D float array), or None.

    Only for an estimator already fitted on data without feature names, and for
    X of its width with at least one row.
    """
    if "feature_names_in_" in vars(estimator):
        return None
    n_features = vars(estimator).get("n_features_in_")
    if sp.issparse(X):
        if X.ndim != 2:  # a 1-D sparse array: validate_data says what is wrong
            return None
        if (
            X.format != "csr"
            or X.data.dtype not in _FLOATS
            or X.indices.dtype not in _INDICES
            or X.indptr.dtype not in _INDICES
            or not X.has_canonical_format
        ):
            return None
        values = X.data
    elif type(X) is np.ndarray:
        if X.ndim != 2 or X.dtype not in _FLOATS:
            return None
        values = X.ravel(order="K")
    else:
        return None
    if X.shape[1] != n_features or X.shape[0] < 1 or not _finite(values):
        return None
    return X


def checked_y(y, n_samples, *, classification):
    """y as a 1-D NumPy array of length ``n_samples``, or None.

    Regression targets must be finite numbers; class labels integers, booleans,
    strings or finite integral floats (what ``type_of_target`` calls binary or
    multiclass).
    """
    if type(y) is not np.ndarray or y.ndim != 1 or y.shape[0] != n_samples:
        return None
    kind = y.dtype.kind
    if classification and kind in "iubU":
        return y
    if kind == "f" and _finite(y) and (not classification or np.all(y == np.floor(y))):
        return y
    if not classification and kind in "iu":
        return y
    return None


def checked_batch(estimator, X, y, sample_weight, *, classification):
    """``(X, y, row_weights)`` of a fitted estimator's training batch that passes
    :func:`checked_X`, :func:`checked_y` and :func:`checked_sample_weight`, with X
    as kernel-ready CSR; or None."""
    X = checked_X(estimator, X)
    if X is None:
        return None
    y = checked_y(y, X.shape[0], classification=classification)
    sample_weight = checked_sample_weight(sample_weight, X.shape[0])
    if y is None or sample_weight is None:
        return None
    return X if sp.issparse(X) else dense_to_csr(X), y, sample_weight


def checked_sample_weight(sample_weight, n_samples):
    """Row weights as a float64 array (not the caller's), or None."""
    if sample_weight is None:
        return np.ones(n_samples)
    if (
        type(sample_weight) is not np.ndarray
        or sample_weight.ndim != 1
        or sample_weight.shape[0] != n_samples
        or sample_weight.dtype.kind != "f"
        or not _finite(sample_weight)
        or sample_weight.min() < 0
        or not sample_weight.any()  # scikit-learn refuses all-zero weights
    ):
        return None
    return sample_weight.astype(np.float64)  # a copy: kernels never see the caller's


def as_kernel_csr(X):
    """CSR without repeated column indices in a row, copying only when it must."""
    if not sp.issparse(X):
        return dense_to_csr(X)
    if not X.has_canonical_format and csr_has_duplicate_indices(
        X.indices, X.indptr, X.shape[1]
    ):
        X = X.copy()
        X.sum_duplicates()
    return X


@contextlib.contextmanager
def unchanged_on_error(estimator):
    """Restore the estimator's attributes if the enclosed validation fails.

    Validating with ``reset=True`` (``fit``, first ``partial_fit``) sets or deletes
    ``n_features_in_`` and ``feature_names_in_`` before later checks can fail; a
    rejected call must leave a fitted model usable and an unfitted one unfitted.
    Validation only rebinds attributes, so restoring the old bindings suffices.
    """
    # The one place that reads every attribute: whatever validation rebinds.
    before = dict(vars(estimator))
    try:
        yield
    except BaseException:
        vars(estimator).clear()
        vars(estimator).update(before)
        raise
