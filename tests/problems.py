"""Small problems that the reference comparisons of every algorithm share.

This module is a test helper, not a test file.
"""

import numpy as np
import scipy.sparse as sp


def sparse_problem(n_samples=50, n_features=30, seed=0):
    """Random sparse rows with the awkward cases the lazy kernels must get right.

    Rows 3 and 17 are empty; feature 0 appears only in rows 1 and 45 (unseen for 43
    rounds); the last feature never appears; values are exact in float32.
    """
    rng = np.random.default_rng(seed)
    dense = rng.normal(size=(n_samples, n_features)).round(3).astype(np.float32)
    dense *= rng.random((n_samples, n_features)) < 0.2
    dense[[3, 17]] = 0.0
    dense[:, 0] = 0.0
    dense[[1, 45], 0] = [1.5, -2.0]
    dense[:, -1] = 0.0
    return sp.csr_matrix(dense.astype(np.float64))


def epoch_orders(n_samples, n_epochs, shuffle, random_state):
    """The visiting order fit uses: a fresh permutation per pass when shuffling."""
    rng = np.random.RandomState(random_state)
    orders = [
        rng.permutation(n_samples) if shuffle else np.arange(n_samples)
        for _ in range(n_epochs)
    ]
    return np.concatenate(orders)
