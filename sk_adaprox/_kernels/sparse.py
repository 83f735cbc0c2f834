"""Kernels over CSR input that do not train: model scores and an index check."""

import numpy as np

from ._jit import jit
from .common import WEIGHT


@jit
def linear_scores(data, indices, indptr, state, out):
    """``out[i, k] = sum_j x_ij * w_jk + b_k``: the model's scores of CSR rows.

    Reads the ``WEIGHT`` slot in place (``X @ coef_.T`` in scipy would first copy the
    strided ``coef_``, an O(n_features) cost per call). Sums in CSR order and adds the
    intercept last, as scipy does, so both give the same floats.
    """
    n_outputs = state.shape[2]
    intercept_row = state.shape[0] - 1
    for i in range(indptr.shape[0] - 1):
        for k in range(n_outputs):
            out[i, k] = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            x = data[p]
            for k in range(n_outputs):
                out[i, k] += x * state[j, WEIGHT, k]
        for k in range(n_outputs):
            out[i, k] += state[intercept_row, WEIGHT, k]


@jit
def csr_has_duplicate_indices(indices, indptr):
    """True if some row of the CSR structure lists one column twice.

    Sorts a copy of each row's indices, so it costs O(nnz log(row length)) and
    memory for the longest row, never O(n_features).
    """
    longest = 0
    for i in range(indptr.shape[0] - 1):
        longest = max(longest, indptr[i + 1] - indptr[i])
    row = np.empty(longest, dtype=indices.dtype)
    for i in range(indptr.shape[0] - 1):
        length = indptr[i + 1] - indptr[i]
        if length < 2:
            continue
        row[:length] = indices[indptr[i] : indptr[i + 1]]
        row[:length].sort()
        for p in range(1, length):
            if row[p] == row[p - 1]:
                return True
    return False
