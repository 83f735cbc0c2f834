"""A literal, row-by-row implementation of HashingEncoder's documented hash, on
scikit-learn's MurmurHash3 (``sklearn.utils.murmurhash3_32``): the encoder must
produce exactly its matrix."""

import math
import struct

import numpy as np
import scipy.sparse as sp
from sklearn.utils import murmurhash3_32


def murmur(payload, seed):
    return murmurhash3_32(payload, seed=seed, positive=True)


def is_missing(value):
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return type(value).__name__ in ("NAType", "NaTType")


def value_bytes(value):
    """The documented byte layout of a categorical value."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytes):
        return value
    if isinstance(value, bool | np.bool_ | int | np.integer):
        return struct.pack("<q", int(value))
    value = float(value)
    if value == math.floor(value) and abs(value) < 9.2e18:
        return struct.pack("<q", int(value))
    return struct.pack("<d", value)


def log2_bin(x):
    if math.isinf(x):
        return 1025 if x > 0 else -1025
    magnitude = math.floor(math.log2(1.0 + abs(x)))
    return magnitude if x >= 0 else -magnitude


def edges_bin(x, edges):
    return sum(1 for edge in edges if edge <= x)


def reference_transform(
    rows,
    names,
    *,
    n_features,
    numeric=None,
    crosses=(),
    missing="skip",
    column_weights=None,
    alternate_sign=False,
    seed=0,
):
    """CSR of ``rows`` (lists of Python values, one per column of ``names``).

    ``numeric``: {column: "value" | "log2" | edges}; ``crosses``: expanded tuples
    of column names."""
    numeric = numeric or {}
    column_weights = column_weights or {}
    matrix = sp.lil_matrix((len(rows), n_features))
    for i, row in enumerate(rows):
        keys, values = {}, {}
        for name, value in zip(names, row, strict=True):
            column_seed = murmur(name.encode("utf-8"), seed)
            weight = column_weights.get(name, 1.0)
            if is_missing(value):
                if missing == "hash":
                    keys[name] = murmur(b"\xff", column_seed)
                    values[name] = weight
                continue
            mode = numeric.get(name)
            if mode == "value":
                keys[name], values[name] = column_seed, weight * float(value)
                continue
            if mode == "log2":
                value = log2_bin(float(value))
            elif mode is not None:
                value = edges_bin(float(value), mode)
            keys[name] = murmur(value_bytes(value), column_seed)
            values[name] = weight
        entries = [(keys[name], values[name]) for name in keys]
        for cross in crosses:
            if all(name in keys for name in cross):
                payload = b"".join(struct.pack("<I", keys[name]) for name in cross)
                value = math.prod(values[name] for name in cross)
                entries.append((murmur(payload, seed), value))
        for key, value in entries:
            if value == 0:
                continue
            if alternate_sign and key >= 2**31:
                value = -value
            matrix[i, key % n_features] += value
    return matrix.tocsr()
