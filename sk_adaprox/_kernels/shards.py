"""Data-parallel training's bookkeeping: a shard's rows over the features they
touch, and the union of several shards' features.

Both number features in order of first appearance with a ``feature_map`` (an
int array of ``n_features`` entries, all -1 between calls: each call puts back
the entries it set), so their cost is O(the non-zeros or features visited),
never O(n_features), and no sort is needed.
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
def feature_union(features, feature_map, union, positions):
    """The union of the feature columns ``features`` (several shards' touched
    features, one after the other) in order of first appearance: ``union``
    receives it, ``positions[q]`` the place of ``features[q]`` in it. Returns
    the union's size."""
    n_union = 0
    for q in range(features.shape[0]):
        j = features[q]
        place = feature_map[j]
        if place < 0:
            place = n_union
            feature_map[j] = place
            union[place] = j
            n_union += 1
        positions[q] = place
    for q in range(n_union):
        feature_map[union[q]] = -1
    return n_union
