"""MurmurHash3_x86_32 and the passes of :class:`sk_adaprox.HashingEncoder`: hashing
a column's values, row by row, into 32-bit keys, and building the CSR matrix of
the keys of every column and cross.

Hashes are computed in uint64 and kept below 2**32 by masking, so that every
product wraps exactly as the reference's 32-bit arithmetic does.

A column's pass writes ``keys[i]`` (the 32-bit hash of row i's value) and
``present[i]`` (False where a missing value is skipped) into its row of the
``(n_columns, n_rows)`` arrays of every column's keys and presence; the values of
the columns read by value are ``(n_value_columns, n_rows)``. The CSR passes read
them a block of rows at a time, turned row-major in a small buffer: reading one
row across tens of columns far apart in memory costs more than hashing it.
"""

import numpy as np

from ._jit import jit

_MASK = np.uint64(0xFFFFFFFF)
_C1 = np.uint64(0xCC9E2D51)
_C2 = np.uint64(0x1B873593)


@jit
def _rotl(x, r):
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & _MASK


@jit
def _mix(h, block):
    """One 4-byte block (as a little-endian uint32) into the running hash h."""
    k = (block * _C1) & _MASK
    k = _rotl(k, 15)
    k = (k * _C2) & _MASK
    h ^= k
    h = _rotl(h, 13)
    return (h * np.uint64(5) + np.uint64(0xE6546B64)) & _MASK


@jit
def _finish(h, length):
    """The final avalanche (fmix32) after xoring in the key's length in bytes."""
    h ^= np.uint64(length)
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & _MASK
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & _MASK
    h ^= h >> np.uint64(16)
    return h


@jit
def murmur3_int64(value, seed):
    """MurmurHash3_x86_32 of the 8 little-endian bytes of the int64 ``value``
    (two blocks, no tail), as an unsigned integer below 2**32."""
    bits = np.uint64(value)
    h = _mix(np.uint64(seed) & _MASK, bits & _MASK)
    h = _mix(h, bits >> np.uint64(32))
    return _finish(h, 8)


@jit
def hash_utf8_rows(data, words, offsets, valid, seed, missing_key, skip, keys, present):
    """MurmurHash3_x86_32 keys of Arrow-layout strings: row i is the bytes
    ``data[offsets[i]:offsets[i + 1]]``; ``valid`` is empty (no missing values)
    or one flag per row. ``words`` is ``data`` read as little-endian uint32 (or
    empty): a string starting at a multiple of 4 bytes reads its blocks from it.
    (Written in the loop: as a function of its own, called per row, the hash
    took twice the time.)"""
    check = valid.shape[0] > 0
    whole_words = words.shape[0] > 0
    for i in range(keys.shape[0]):
        if check and not valid[i]:
            keys[i] = missing_key
            present[i] = not skip
            continue
        start, end = offsets[i], offsets[i + 1]
        h = np.uint64(seed) & _MASK
        p = start
        if whole_words and (start & 3) == 0:
            while p + 4 <= end:
                h = _mix(h, np.uint64(words[p >> 2]))
                p += 4
        while p + 4 <= end:
            block = (
                np.uint64(data[p])
                | (np.uint64(data[p + 1]) << np.uint64(8))
                | (np.uint64(data[p + 2]) << np.uint64(16))
                | (np.uint64(data[p + 3]) << np.uint64(24))
            )
            h = _mix(h, block)
            p += 4
        remaining = end - p
        if remaining > 0:
            k = np.uint64(0)
            if remaining == 3:
                k ^= np.uint64(data[p + 2]) << np.uint64(16)
            if remaining >= 2:
                k ^= np.uint64(data[p + 1]) << np.uint64(8)
            k ^= np.uint64(data[p])
            k = (k * _C1) & _MASK
            k = _rotl(k, 15)
            k = (k * _C2) & _MASK
            h ^= k
        keys[i] = _finish(h, end - start)
        present[i] = True


@jit
def hash_int_rows(values, valid, seed, missing_key, skip, keys, present):
    """Keys of integers (as int64); ``valid`` is empty or one flag per row."""
    check = valid.shape[0] > 0
    for i in range(keys.shape[0]):
        if check and not valid[i]:
            keys[i] = missing_key
            present[i] = not skip
        else:
            keys[i] = murmur3_int64(np.int64(values[i]), seed)
            present[i] = True


@jit
def hash_float_rows(values, bits, seed, missing_key, skip, keys, present):
    """Keys of float64 values read as categories (``bits``: their int64 view). NaN
    is missing; an integral value hashes as that int64, any other as the 8 bytes
    of its float64."""
    for i in range(keys.shape[0]):
        x = values[i]
        if np.isnan(x):
            keys[i] = missing_key
            present[i] = not skip
        elif x == np.floor(x) and -9.2e18 < x < 9.2e18:
            keys[i] = murmur3_int64(np.int64(x), seed)
            present[i] = True
        else:
            keys[i] = murmur3_int64(bits[i], seed)
            present[i] = True


@jit
def gather_codes(codes, unique_keys, missing_key, skip, keys, present):
    """Keys of dictionary-encoded values: row i has the key of value ``codes[i]``
    (``unique_keys[codes[i]]``), a negative code is missing."""
    for i in range(keys.shape[0]):
        code = codes[i]
        if code < 0:
            keys[i] = missing_key
            present[i] = not skip
        else:
            keys[i] = unique_keys[code]
            present[i] = True


@jit
def _cross_key(keys, parts, c, i, seed):
    """Key of cross c in row i: MurmurHash3 of its parts' keys, each as 4
    little-endian bytes, in the cross's order."""
    h = np.uint64(seed) & _MASK
    n_parts = 0
    for q in range(parts.shape[1]):
        column = parts[c, q]
        if column < 0:
            break
        h = _mix(h, np.uint64(keys[i, column]))
        n_parts += 1
    return _finish(h, 4 * n_parts)


@jit
def _entry_value(values, value_row, weights, column, i):
    v = value_row[column]
    if v < 0:
        return weights[column]
    return weights[column] * values[i, v]


@jit
def _cross_value(values, value_row, weights, present, parts, c, i):
    """Product of the parts' values in row i; 0 when a part is not present."""
    product = 1.0
    for q in range(parts.shape[1]):
        column = parts[c, q]
        if column < 0:
            break
        if not present[i, column]:
            return 0.0
        product *= _entry_value(values, value_row, weights, column, i)
    return product


_BLOCK = 256


@jit
def _load_block(keys, present, values, start, stop, block):
    """Rows ``start:stop`` of the column-major arrays, row-major, in ``block``
    (a tuple of three buffers of ``_BLOCK`` rows)."""
    block_keys, block_present, block_values = block
    for column in range(keys.shape[0]):
        for i in range(start, stop):
            block_keys[i - start, column] = keys[column, i]
            block_present[i - start, column] = present[column, i]
    for v in range(values.shape[0]):
        for i in range(start, stop):
            block_values[i - start, v] = values[v, i]


@jit
def _new_block(keys, values):
    return (
        np.empty((_BLOCK, keys.shape[0]), dtype=keys.dtype),
        np.empty((_BLOCK, keys.shape[0]), dtype=np.bool_),
        np.empty((_BLOCK, values.shape[0]), dtype=np.float64),
    )


_SHELL_GAPS = (701, 301, 132, 57, 23, 10, 4, 1)  # Ciura's


@jit
def _sorted(items, n, out):
    """``items[:n]`` (distinct) in increasing order, in ``out[:n]``. A short row
    is sorted by counting each item's rank: n**2 comparisons without branches,
    which beat insertion sort's moves up to rows of about 64 entries; a longer
    one by Shell sort (NumPy's sort would add a second of first-call compile)."""
    if n <= 64:
        for k in range(n):
            item = items[k]
            rank = 0
            for j in range(n):
                rank += items[j] < item
            out[rank] = item
        return
    for p in range(n):
        out[p] = items[p]
    for gap in _SHELL_GAPS:
        for p in range(gap, n):
            item = out[p]
            q = p
            while q >= gap and out[q - gap] > item:
                out[q] = out[q - gap]
                q -= gap
            out[q] = item


@jit
def _put_entry(key, value, n, mask, modulus, alternate_sign, entry_values, order):
    """Entry ``n`` of a row: its value (negated when ``alternate_sign`` and the
    key's top bit is set) and its sort key ``column << 16 | n``, the column
    being ``key mod n_features``: ``key & mask`` where ``mask`` is not 0 (a
    power of two), else ``key % modulus``. Returns ``n + 1``."""
    slot = key & mask if mask != np.uint64(0) else key % modulus
    if alternate_sign and (key & np.uint64(0x80000000)):
        value = -value
    entry_values[n] = value
    # Signed: a vector unit compares int64 in one instruction, uint64 in three.
    order[n] = (np.int64(slot) << 16) | n
    return n + 1


@jit
def fill_rows(
    keys,
    present,
    values,
    value_row,
    weights,
    parts,
    seed,
    n_features,
    alternate_sign,
    indptr,
    indices,
    data,
):
    """Write each row's entries (column ``key mod n_features``, value the entry's,
    negated when ``alternate_sign`` and the key's top bit is set) sorted by column
    with repeated columns summed, into ``indices`` and ``data`` (at least as long
    as the present values and crosses), and their offsets into ``indptr``;
    returns the number of entries. An entry of value zero is left out: a present
    column read by value 0, or a cross with a part skipped."""
    n_columns, n_rows = keys.shape
    n_entries = n_columns + parts.shape[0]
    modulus = np.uint64(n_features)
    # A power of two divides by masking (a 64-bit division costs ~40 cycles).
    power_of_two = n_features & (n_features - 1) == 0
    mask = modulus - np.uint64(1) if power_of_two else np.uint64(0)
    block = _new_block(keys, values)
    row_keys, row_present, row_values = block
    # A row's entries, sorted as (column << 16 | entry number): one array to sort.
    order = np.empty(n_entries, dtype=np.int64)
    ordered = np.empty(n_entries, dtype=np.int64)
    entry_values = np.empty(n_entries, dtype=np.float64)
    out = 0
    for i in range(n_rows):
        b = i % _BLOCK
        if b == 0:
            _load_block(keys, present, values, i, min(i + _BLOCK, n_rows), block)
        n = 0
        for column in range(n_columns):
            if not row_present[b, column]:
                continue
            value = _entry_value(row_values, value_row, weights, column, b)
            if value != 0.0:
                key = np.uint64(row_keys[b, column])
                n = _put_entry(
                    key, value, n, mask, modulus, alternate_sign, entry_values, order
                )
        for c in range(parts.shape[0]):
            value = _cross_value(
                row_values, value_row, weights, row_present, parts, c, b
            )
            if value != 0.0:
                key = _cross_key(row_keys, parts, c, b, seed)
                n = _put_entry(
                    key, value, n, mask, modulus, alternate_sign, entry_values, order
                )
        _sorted(order, n, ordered)
        indptr[i] = out
        last = 0
        for p in range(n):
            slot = ordered[p] >> 16
            value = entry_values[ordered[p] & 0xFFFF]
            if p > 0 and slot == last:
                data[out - 1] += value
            else:
                indices[out] = slot
                data[out] = value
                out += 1
            last = slot
    indptr[n_rows] = out
    return out


@jit
def hash_cross_rows(keys, present, parts, c, seed, cross_keys, cross_present):
    """Keys of cross c in every row, and whether all its parts are present."""
    block = _new_block(keys, np.empty((0, 0)))
    row_keys, row_present, _ = block
    n_rows = keys.shape[1]
    for i in range(n_rows):
        b = i % _BLOCK
        if b == 0:
            stop = min(i + _BLOCK, n_rows)
            _load_block(keys, present, np.empty((0, 0)), i, stop, block)
        cross_keys[i] = _cross_key(row_keys, parts, c, b, seed)
        everywhere = True
        for q in range(parts.shape[1]):
            column = parts[c, q]
            if column >= 0 and not row_present[b, column]:
                everywhere = False
        cross_present[i] = everywhere


@jit
def log2_bins(x, bins):
    """``bins[i] = sign(x) * floor(log2(1 + |x|))`` of ``x[i]``; ±1025 for an
    infinite value (past every finite float's bucket) and 0 for NaN."""
    for i in range(x.shape[0]):
        value = x[i]
        if np.isnan(value):
            bins[i] = 0
        elif np.isinf(value):
            bins[i] = 1025 if value > 0 else -1025
        else:
            magnitude = np.int64(np.floor(np.log2(1.0 + abs(value))))
            bins[i] = magnitude if value >= 0 else -magnitude


@jit
def value_column_rows(x, seed, missing_key, skip, keys, present, values):
    """A numeric column read by value: key ``seed`` (the column's hash) and
    value x; NaN is missing (its key, the value 1). Returns how many values are
    infinite."""
    infinite = 0
    for i in range(x.shape[0]):
        value = x[i]
        if np.isnan(value):
            keys[i] = missing_key
            present[i] = not skip
            values[i] = 1.0
        else:
            keys[i] = seed
            present[i] = True
            values[i] = value
            if np.isinf(value):
                infinite += 1
    return infinite
