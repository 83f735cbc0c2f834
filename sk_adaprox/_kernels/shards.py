"""Data-parallel training's bookkeeping: a shard's rows over the features they
touch (and, as one row of every shard's features, the union of several shards'
features).

Features are numbered in order of first appearance with a ``feature_map`` (an
int array of ``n_features`` entries, all -1 between calls: each call puts back
the entries it set), so a call costs O(the non-zeros visited), never
O(n_features), and no sort is needed.
"""

from ._jit import jit


@jit
def compact_rows(indices, indptr, rows, feature_map, local_indices, touched):
    """Number the features of the CSR rows ``rows`` 0, 1, ... in order of first
    appearance: ``touched[q]`` receives feature number q's column, and
    ``local_indices[p]`` the number of ``indices[p]`` for every non-zero p of
    those rows (the other entries of ``local_indices`` are not written).
    Returns how many features the rows touch."""
    n_touched = 0
    for r in range(rows.shape[0]):
        i = rows[r]
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            number = feature_map[j]
            if number < 0:
                number = n_touched
                feature_map[j] = number
                touched[number] = j
                n_touched += 1
            local_indices[p] = number
    for q in range(n_touched):
        feature_map[touched[q]] = -1
    return n_touched


@jit
def add_increments(total, base, positions, array):
    """Add a shard's increments to ``total``: ``total[positions[q]] +=
    array[q] - base[positions[q]]`` for every row q of the shard's
    ``array`` (each position once), slot by slot and output by output."""
    for q in range(positions.shape[0]):
        row = positions[q]
        for s in range(array.shape[1]):
            for k in range(array.shape[2]):
                total[row, s, k] += array[q, s, k] - base[row, s, k]
