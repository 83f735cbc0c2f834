"""Data-parallel training's bookkeeping: a shard's rows over the features they
touch (and, as one row of every shard's features, the union of several shards'
features).

Features are numbered in order of first appearance with a ``feature_map`` (an
int array of ``n_features`` entries, all -1 between calls: each call puts back
the entries it set), so a call costs O(the non-zeros visited), never
O(n_features), and no sort is needed. Shards whose features are fixed for a
whole fit (a Dask worker's rows) have them sorted once instead, and their union
and positions in it are made by linear merges (:func:`sorted_union`,
:func:`sorted_positions`).
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


@jit
def add_whole_increment(total, base, array, first, finish, step):
    """For every entry i of the flat arrays: ``total[i]`` becomes ``array[i] -
    base[i]`` (``first``) or ``total[i] + (array[i] - base[i])``; then, with
    ``finish``, ``total[i] * step + base[i]``. One pass per shard: a merge of
    whole states without NumPy's temporaries."""
    for i in range(total.shape[0]):
        increment = array[i] - base[i]
        value = increment if first else total[i] + increment
        total[i] = value * step + base[i] if finish else value


@jit
def sorted_union(a, b, out):
    """The union of the increasing arrays ``a`` and ``b`` (each without
    repeats), increasing, in ``out[:n]`` (``out`` at least as long as both);
    returns n. O(len(a) + len(b))."""
    p = q = n = 0
    while p < a.shape[0] or q < b.shape[0]:
        if q == b.shape[0] or (p < a.shape[0] and a[p] < b[q]):
            out[n] = a[p]
            p += 1
        elif p == a.shape[0] or b[q] < a[p]:
            out[n] = b[q]
            q += 1
        else:
            out[n] = a[p]
            p += 1
            q += 1
        n += 1
    return n


@jit
def sorted_positions(part, whole, out):
    """``out[q]`` = the position of ``part[q]`` in ``whole``, both increasing and
    every entry of ``part`` in ``whole``. O(len(whole))."""
    p = 0
    for q in range(part.shape[0]):
        while whole[p] != part[q]:
            p += 1
        out[q] = p
