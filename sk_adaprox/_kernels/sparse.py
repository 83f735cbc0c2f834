"""Kernels over CSR input that do not train: model scores (and the scoring loop
every rule's scores share), an index check, and the two passes that make a dense
array CSR."""

import numpy as np

from ._jit import jit
from .common import WEIGHT


def csr_scorer(feature_weight, intercept_weight):
    """The compiled kernel ``scores(data, indices, indptr, state, arguments, out)``
    that writes ``out[i, k] = sum_j x_ij * w_jk + b_k`` for the CSR rows, where a
    rule serves the weight w_jk as ``feature_weight(state, j, k, arguments)`` and
    the intercept b_k as ``intercept_weight(state, intercept_row, k, arguments)``
    (``arguments``: a tuple of what the rule needs, as its scorer's caller gives
    it). The weights are computed where they are read, the state is not written.

    It sums in CSR order and adds the intercept last, as scipy does, so that the
    scores of stored weights are scipy's floats. Numba compiles the two weight
    functions into the loop: every rule's scores share this loop and differ only
    in its weight functions. Each rule calls it from a kernel of plain
    arguments (a tuple costs more to pass in from Python: microseconds per call
    of a one-row ``predict``).
    """

    @jit
    def scores(data, indices, indptr, state, arguments, out):
        intercept_row = state.shape[0] - 1
        for i in range(indptr.shape[0] - 1):
            for k in range(state.shape[2]):
                out[i, k] = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                j = np.int64(indices[p])
                x = data[p]
                for k in range(state.shape[2]):
                    out[i, k] += x * feature_weight(state, j, k, arguments)
            for k in range(state.shape[2]):
                out[i, k] += intercept_weight(state, intercept_row, k, arguments)

    return scores


@jit
def stored_weight(state, j, k, arguments):
    """The ``WEIGHT`` slot of coordinate (j, k), for rules that keep it current."""
    return state[j, WEIGHT, k]


_stored_scores = csr_scorer(stored_weight, stored_weight)


@jit
def linear_scores(data, indices, indptr, state, out):
    """The model's scores of CSR rows with its stored weights. Reads the
    ``WEIGHT`` slot in place: ``X @ coef_.T`` in scipy would first copy the
    strided ``coef_``, an O(n_features) cost per call."""
    _stored_scores(data, indices, indptr, state, (), out)


@jit
def csr_has_duplicate_indices(indices, indptr, n_features):
    """True if some row of the CSR structure lists one column twice.

    A row whose indices increase has no repeat and costs one look at each. The
    others are checked with a mark per column (the last row that used it) when
    the data has at least a quarter as many non-zeros as columns, so that the
    marks cost no more than the data; otherwise a sorted copy of the row is
    scanned, in memory for the longest row. Either way O(nnz) time (times
    log(row length) when sorting), never O(n_features) beyond O(nnz).
    """
    n_rows = indptr.shape[0] - 1
    nnz = indptr[n_rows] - indptr[0]
    marks = np.empty(0, dtype=np.int64)
    if 4 * nnz >= n_features:
        marks = np.full(n_features, -1, dtype=np.int64)
    longest = 0
    for i in range(n_rows):
        longest = max(longest, indptr[i + 1] - indptr[i])
    row = np.empty(longest if marks.shape[0] == 0 else 0, dtype=indices.dtype)
    for i in range(n_rows):
        start, end = indptr[i], indptr[i + 1]
        increasing = True
        for p in range(start + 1, end):
            if indices[p] <= indices[p - 1]:
                increasing = False
                break
        if increasing:
            continue
        if marks.shape[0] > 0:
            for p in range(start, end):
                j = indices[p]
                if marks[j] == i:
                    return True
                marks[j] = i
            continue
        length = end - start
        for p in range(length):
            row[p] = indices[start + p]
        row[:length].sort()
        for p in range(1, length):
            if row[p] == row[p - 1]:
                return True
    return False


@jit
def count_row_nonzeros(X, counts):
    """``counts[i + 1]`` = the number of non-zeros of row i of the 2-D array X."""
    for i in range(X.shape[0]):
        count = 0
        for j in range(X.shape[1]):
            if X[i, j] != 0:
                count += 1
        counts[i + 1] = count


@jit
def fill_csr(X, indptr, data, indices):
    """Write the non-zeros of the 2-D array X, row by row in column order, into
    ``data`` and ``indices`` at the offsets ``indptr``."""
    for i in range(X.shape[0]):
        p = indptr[i]
        for j in range(X.shape[1]):
            value = X[i, j]
            if value != 0:
                data[p] = value
                indices[p] = j
                p += 1
