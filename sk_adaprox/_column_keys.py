"""The 32-bit keys of a categorical column, row by row: each value's MurmurHash3
with the column's own hash as the seed (the layouts are in
:class:`sk_adaprox.HashingEncoder`'s docstring).

Values the column keeps as bytes (Arrow strings) or numbers are hashed in place by
a compiled pass; values that are Python objects are first numbered
(``pandas.factorize``) so that each distinct value is hashed once.
"""

import numbers
import sys

import numpy as np

from ._kernels import hashing as _kernels
from ._kernels.hashing import murmur3_int64

# The key of a missing value hashes this byte: no UTF-8 string and no 8-byte
# number has this layout.
MISSING_BYTES = np.frombuffer(b"\xff", dtype=np.uint8)
_NO_FLAGS = np.empty(0, dtype=np.bool_)
_NO_WORDS = np.empty(0, dtype=np.uint32)


def frozen(array, dtype):
    """``array`` as a read-only C-contiguous array of ``dtype`` (a view where it
    already is one): every input reaches a kernel in one type, so each kernel
    compiles once whatever the column's buffers are."""
    array = np.ascontiguousarray(array, dtype=dtype)
    view = array.view()
    view.flags.writeable = False
    return view


def _words(data):
    """``data`` (uint8) read as little-endian uint32 words where that is a view
    (a little-endian machine, an address a multiple of 4), else empty."""
    if sys.byteorder != "little" or data.ctypes.data % 4:
        return _NO_WORDS
    return data[: data.shape[0] // 4 * 4].view(np.uint32)


def hash_utf8_rows(data, offsets, valid, *arguments):
    data = frozen(data, np.uint8)
    _kernels.hash_utf8_rows(
        data,
        frozen(_words(data), np.uint32),
        frozen(offsets, np.int64),
        frozen(valid, np.bool_),
        *arguments,
    )


def hash_int_rows(values, valid, *arguments):
    _kernels.hash_int_rows(
        frozen(values, np.int64), frozen(valid, np.bool_), *arguments
    )


def hash_float_rows(values, *arguments):
    values = frozen(values, np.float64)
    _kernels.hash_float_rows(values, values.view(np.int64), *arguments)


def gather_codes(codes, unique_keys, *arguments):
    _kernels.gather_codes(
        frozen(codes, np.int64), frozen(unique_keys, np.uint32), *arguments
    )


def hash_bytes(payload, seed):
    """MurmurHash3_x86_32 of ``payload`` (bytes) with ``seed``, as an int."""
    data = np.frombuffer(payload, dtype=np.uint8) if payload else MISSING_BYTES
    keys, present = np.empty(1, np.uint32), np.empty(1, np.bool_)
    offsets = np.array([0, len(payload)], dtype=np.int64)
    hash_utf8_rows(data, offsets, _NO_FLAGS, seed, 0, False, keys, present)
    return int(keys[0])


class KeyTarget:
    """Where a column's pass writes: its keys, its presence flags, its seed (the
    column's hash), the key of a missing value and whether those are skipped."""

    def __init__(self, keys, present, seed, skip_missing):
        self.keys, self.present = keys, present
        self.seed = seed
        self.missing_key = hash_bytes(MISSING_BYTES.tobytes(), seed)
        self.skip = skip_missing

    def rows(self, start, stop):
        """The same target restricted to rows ``start:stop``."""
        part = KeyTarget.__new__(KeyTarget)
        part.keys, part.present = self.keys[start:stop], self.present[start:stop]
        part.seed, part.missing_key, part.skip = self.seed, self.missing_key, self.skip
        return part

    def arguments(self):
        return self.seed, self.missing_key, self.skip, self.keys, self.present


def write_column_keys(column, target, name):
    """Write the keys of ``column`` (a 1-D NumPy array, a pandas Series or a
    pyarrow (Chunked)Array) into ``target``."""
    if isinstance(column, np.ndarray):
        _array_keys(column, target, name)
    elif type(column).__module__.split(".")[0] == "pyarrow":
        _arrow_keys(column, target, name)
    else:
        _pandas_keys(column, target, name)


def _array_keys(array, target, name):
    kind = array.dtype.kind
    if kind in "iub":
        values = array.astype(np.int64, copy=False)
        hash_int_rows(values, _NO_FLAGS, *target.arguments())
    elif kind == "f":
        values = array.astype(np.float64, copy=False)
        hash_float_rows(values, *target.arguments())
    elif kind in "Mm":
        values = array.view(np.int64)
        valid = ~np.isnat(array)
        hash_int_rows(values, valid, *target.arguments())
    elif not _arrow_keys_of_objects(array, target, name):
        try:
            codes, uniques = _factorize(array)
        except TypeError as error:  # unhashable values
            raise TypeError(
                f"Column {name!r} holds values that cannot be hashed ({error}); "
                "HashingEncoder hashes str, bytes, bool, integer and float values."
            ) from error
        unique_keys = unique_value_keys(uniques, target.seed, name)
        gather_codes(codes, unique_keys, *target.arguments()[1:])


def _arrow_keys_of_objects(array, target, name):
    """Hash Python objects through pyarrow's conversion when pyarrow is there and
    they are of one type it converts (str, bytes, numbers): a C++ loop, several
    times faster than numbering them. Returns whether it did."""
    try:
        import pyarrow as pa
    except ImportError:
        return False
    try:
        converted = pa.array(array, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):
        return False  # mixed types: numbered instead
    if pa.types.is_null(converted.type) or not (
        pa.types.is_string(converted.type)
        or pa.types.is_large_string(converted.type)
        or pa.types.is_binary(converted.type)
        or pa.types.is_large_binary(converted.type)
    ):
        return False
    _arrow_keys(converted, target, name)
    return True


def _factorize(values):
    """``(codes, uniques)``: codes -1 for None and NaN."""
    try:
        import pandas as pd
    except ImportError:
        return _factorize_without_pandas(values)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes, np.asarray(uniques, dtype=object)


def _factorize_without_pandas(values):
    numbers_of = {}
    codes = np.empty(values.shape[0], dtype=np.int64)
    for i, value in enumerate(values.tolist()):
        if value is None or (isinstance(value, float) and value != value):
            codes[i] = -1
        else:
            codes[i] = numbers_of.setdefault(value, len(numbers_of))
    return codes, np.array(list(numbers_of), dtype=object)


def unique_value_keys(uniques, seed, name):
    """Keys of distinct Python values (str, bytes, bool, int or float)."""
    if all(isinstance(value, str) for value in uniques):
        encoded = [value.encode("utf-8", "surrogatepass") for value in uniques]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        keys = np.empty(len(encoded), dtype=np.uint32)
        present = np.empty(len(encoded), dtype=np.bool_)
        hash_utf8_rows(data, offsets, _NO_FLAGS, seed, 0, False, keys, present)
        return keys
    return np.array([_value_key(value, seed, name) for value in uniques], np.uint32)


def _value_key(value, seed, name):
    if isinstance(value, str):
        return hash_bytes(value.encode("utf-8", "surrogatepass"), seed)
    if isinstance(value, bytes):
        return hash_bytes(value, seed)
    if isinstance(value, numbers.Integral):  # bool and NumPy integers included
        if not -(2**63) <= int(value) < 2**63:
            raise ValueError(f"Column {name!r}: integer {value} is outside int64.")
        return int(murmur3_int64(np.int64(int(value)), seed))
    if isinstance(value, numbers.Real):
        x = np.array([float(value)])
        keys, present = np.empty(1, np.uint32), np.empty(1, np.bool_)
        hash_float_rows(x, seed, 0, False, keys, present)
        return int(keys[0])
    raise TypeError(
        f"Column {name!r} holds a {type(value).__name__} ({value!r}); HashingEncoder "
        "hashes str, bytes, bool, integer and float values."
    )


def _pandas_keys(series, target, name):
    import pandas as pd

    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        categories = _unwrapped(series.cat.categories.to_series())
        _dictionary_keys(series.cat.codes.to_numpy(), categories, target, name)
    elif _arrow_backed(dtype):
        import pyarrow as pa

        _arrow_keys(pa.array(series.array), target, name)
    elif not isinstance(dtype, np.dtype) and dtype.kind in "iu":
        # Nullable integers exactly (as float64, IDs above 2**53 would round).
        values = series.to_numpy(dtype=np.int64, na_value=0)
        valid = ~series.isna().to_numpy()
        hash_int_rows(values, valid, *target.arguments())
    else:
        _array_keys(_unwrapped(series), target, name)


def _dictionary_keys(codes, dictionary, target, name):
    """Keys of dictionary-encoded values: each distinct value hashed once, then
    gathered by code (a negative code, or a code of a missing value, is
    missing)."""
    unique_keys = np.empty(len(dictionary), dtype=np.uint32)
    unique_present = np.empty(len(dictionary), dtype=np.bool_)
    write_column_keys(
        dictionary, KeyTarget(unique_keys, unique_present, target.seed, True), name
    )
    codes = np.asarray(codes, dtype=np.int64)
    if not unique_present.all():
        codes = np.where((codes >= 0) & unique_present[np.maximum(codes, 0)], codes, -1)
    gather_codes(codes, unique_keys, *target.arguments()[1:])


def _arrow_backed(dtype):
    import pandas as pd

    if isinstance(dtype, pd.StringDtype):
        return dtype.storage == "pyarrow"
    return type(dtype).__name__ == "ArrowDtype"


def _unwrapped(series):
    """A pandas Series as a NumPy array: numbers with NaN where missing for
    nullable numbers, objects otherwise."""
    dtype = series.dtype
    if isinstance(dtype, np.dtype):
        return series.to_numpy()
    if dtype.kind in "iub":  # nullable Int64, boolean: NaN where missing
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    if dtype.kind == "f":
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    return series.to_numpy(dtype=object, na_value=None)


def _arrow_keys(column, target, name):
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray):
        start = 0
        for chunk in column.chunks:
            _arrow_keys(chunk, target.rows(start, start + len(chunk)), name)
            start += len(chunk)
        return
    if pa.types.is_dictionary(column.type):
        codes = column.indices.fill_null(0)
        codes = codes.to_numpy(zero_copy_only=False).astype(np.int64)
        if column.null_count:
            codes[~column.is_valid().to_numpy(zero_copy_only=False)] = -1
        _dictionary_keys(codes, column.dictionary, target, name)
    else:
        _arrow_buffer_keys(column, target, name)


def _arrow_buffer_keys(column, target, name):
    """Keys of an Arrow array of strings, bytes or numbers, from its buffers."""
    import pyarrow as pa

    kind = column.type
    valid = _NO_FLAGS
    if column.null_count:
        valid = column.is_valid().to_numpy(zero_copy_only=False)
    if pa.types.is_string_view(kind) or pa.types.is_binary_view(kind):
        column = column.cast(pa.large_binary())
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        column = column.cast(
            pa.binary() if pa.types.is_string(kind) else pa.large_binary()
        )
    kind = column.type
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        offset_type = np.int32 if pa.types.is_binary(kind) else np.int64
        buffers = column.buffers()
        offsets = np.frombuffer(buffers[1], dtype=offset_type)
        offsets = offsets[column.offset : column.offset + len(column) + 1]
        data = (
            np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] else MISSING_BYTES
        )
        hash_utf8_rows(data, offsets, valid, *target.arguments())
    elif pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        values = column.cast(pa.float64()).to_numpy(zero_copy_only=False)
        hash_float_rows(values, *target.arguments())
    elif pa.types.is_null(kind):
        hash_int_rows(
            np.zeros(len(column), np.int64),
            np.zeros(len(column), np.bool_),
            *target.arguments(),
        )
    else:  # integers, booleans, dates and times: their int64 value
        try:
            values = column.cast(pa.int64()).fill_null(0).to_numpy()
        except pa.ArrowException as error:
            raise TypeError(f"Column {name!r}: cannot hash {kind} values.") from error
        hash_int_rows(values, valid, *target.arguments())
