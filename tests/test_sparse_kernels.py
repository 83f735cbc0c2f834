"""The input helpers over ``_kernels/sparse.py`` against scipy on random cases."""

import numpy as np
import pytest
import scipy.sparse as sp

from sk_adaprox._kernels.sparse import csr_has_duplicate_indices
from sk_adaprox._validation import dense_to_csr


def _brute_force_has_duplicates(X):
    return any(len(set(row)) < len(row) for row in np.split(X.indices, X.indptr[1:-1]))


def _random_csr(rng, n_rows, n_features, nnz_per_row, duplicates, unsorted):
    rows = []
    for _ in range(n_rows):
        length = rng.integers(0, nnz_per_row + 1)
        columns = rng.choice(n_features, size=length, replace=False)
        if duplicates and length >= 2 and rng.random() < 0.1:
            columns[-1] = columns[0]
        if not unsorted:
            columns = np.sort(columns)
        rows.append(columns)
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
    indices = np.concatenate(rows).astype(np.int32) if rows else np.zeros(0, np.int32)
    data = np.ones(indices.size)
    return sp.csr_matrix((data, indices, indptr), shape=(n_rows, n_features))


# (n_features, non-zeros a row): the first marks columns (the data is at least a
# quarter as large as the columns), the second sorts copies of unsorted rows.
@pytest.mark.parametrize("shape", [(50, 8), (100_000, 8)])
@pytest.mark.parametrize("unsorted", [False, True])
@pytest.mark.parametrize("duplicates", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_duplicate_check_agrees_with_brute_force(shape, unsorted, duplicates, seed):
    rng = np.random.default_rng(seed)
    n_features, nnz_per_row = shape
    X = _random_csr(rng, 200, n_features, nnz_per_row, duplicates, unsorted)
    expected = _brute_force_has_duplicates(X)
    for index_type in (np.int32, np.int64):
        got = csr_has_duplicate_indices(
            X.indices.astype(index_type), X.indptr.astype(index_type), n_features
        )
        assert got == expected
    # 200 rows with a 10 % chance each: these seeds do make some duplicates.
    assert expected == duplicates


def test_duplicate_check_finds_a_repeat_across_a_row_boundary_only_within_rows():
    # Column 3 ends row 0 and starts row 1: not a repeat. Row 2 repeats column 1.
    indices = np.array([0, 3, 3, 2, 1, 4, 1], dtype=np.int32)
    indptr = np.array([0, 2, 4, 7], dtype=np.int32)
    for n_features in (5, 10**6):  # marks, then sorting
        assert csr_has_duplicate_indices(indices, indptr, n_features)
        assert not csr_has_duplicate_indices(indices[:4], indptr[:3], n_features)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_dense_to_csr_matches_scipy(dtype, order):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 7)).astype(dtype)
    X[rng.random(X.shape) < 0.6] = 0
    X[3] = 0  # an empty row
    X = np.asarray(X, order=order)
    got, expected = dense_to_csr(X), sp.csr_matrix(X)
    assert got.dtype == dtype and got.shape == X.shape
    np.testing.assert_array_equal(got.indptr, expected.indptr)
    np.testing.assert_array_equal(got.indices, expected.indices)
    np.testing.assert_array_equal(got.data, expected.data)
    assert got.has_canonical_format
    assert got.indices.dtype == np.int32


def test_dense_to_csr_of_all_zeros_and_of_a_view():
    assert dense_to_csr(np.zeros((3, 4))).nnz == 0
    X = np.arange(24, dtype=float).reshape(4, 6)[:, ::2]  # a strided view
    np.testing.assert_array_equal(dense_to_csr(X).toarray(), X)
