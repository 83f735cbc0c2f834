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
def csr_has_duplicate_indices(indices, indptr, n_features):
    """True if some row of the CSR structure lists one column twice."""
    last_row_seen = np.full(n_features, -1, dtype=np.int64)
    for i in range(indptr.shape[0] - 1):
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            if last_row_seen[j] == i:
                return True
            last_row_seen[j] = i
    return False
