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


def run_one_pass(estimator, X, targets, row_weights, order):
    """Start ``estimator`` on X's width with one output and run its kernel once over
    ``order`` with ±1 (or real) ``targets``, bypassing label encoding. Returns
    ``(loss_sum, rows_done, status)``; ``t_`` counts the rows done."""
    estimator._start_training(X.shape[1], 1)
    estimator._sync_parameters()
    result = estimator._run_pass(X, targets, row_weights, order, np.empty((0, 1)))
    estimator.t_ += int(result[1])
    return result


def assert_vars_equal(actual, expected):
    """Two ``vars()`` dicts hold the same names and bit-for-bit equal values."""
    assert sorted(actual) == sorted(expected)
    for name, value in expected.items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(actual[name], value), name
        else:
            assert actual[name] == value, name
