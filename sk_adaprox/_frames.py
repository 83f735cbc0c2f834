"""The columns of a table, whatever holds it: a pandas or polars DataFrame, a
pyarrow Table or a 2-D array. A column is handed on as the library keeps it (a
NumPy array, a pandas Series or a pyarrow array), without converting its values
to Python objects.
"""

import numpy as np
import scipy.sparse as sp


def _module(obj):
    return type(obj).__module__.split(".")[0]


def is_pandas_frame(X):
    return _module(X) == "pandas" and hasattr(X, "columns") and hasattr(X, "iloc")


def is_polars_frame(X):
    return _module(X) == "polars" and hasattr(X, "columns") and hasattr(X, "schema")


def is_arrow_table(X):
    return _module(X) == "pyarrow" and hasattr(X, "column_names")


class Frame:
    """Column names (as str), row count and each column's data of a table."""

    def __init__(self, names, n_rows, columns):
        self.names = names
        self.n_rows = n_rows
        self._columns = columns

    def column(self, name):
        """The data of the column called ``name``: a 1-D NumPy array, a pandas
        Series or a pyarrow (Chunked)Array."""
        return self._columns[self.names.index(name)]


def read_frame(X):
    """The :class:`Frame` of ``X``; TypeError or ValueError for what is not a
    table of rows and named (or numbered) columns."""
    if sp.issparse(X):
        raise TypeError(
            "HashingEncoder takes a DataFrame, a pyarrow Table or a 2-D array; "
            "got a sparse matrix, which is already encoded."
        )
    if is_pandas_frame(X):
        names = [str(name) for name in X.columns]
        columns = [X.iloc[:, j] for j in range(X.shape[1])]
        frame = Frame(names, X.shape[0], columns)
    elif is_polars_frame(X):
        columns = [X.get_column(name).to_arrow() for name in X.columns]
        frame = Frame(list(X.columns), X.height, columns)
    elif is_arrow_table(X):
        columns = [X.column(j) for j in range(X.num_columns)]
        frame = Frame([str(name) for name in X.column_names], X.num_rows, columns)
    else:
        frame = _array_frame(X)
    if len(set(frame.names)) != len(frame.names):
        raise ValueError(f"Column names must be unique, got {frame.names}.")
    if not frame.names:
        raise ValueError(
            f"Found array with 0 feature(s) (shape=({frame.n_rows}, 0)) while a "
            "minimum of 1 is required by HashingEncoder."
        )
    return frame


def _array_frame(X):
    """A 2-D array's columns, named ``x0``, ``x1``, ... as scikit-learn names them."""
    try:
        array = np.asarray(X)
    except Exception as error:  # ragged lists and the like
        raise TypeError(
            f"Cannot read {type(X).__name__} as a table of rows and columns: {error}"
        ) from error
    if array.ndim != 2:
        raise ValueError(
            f"Expected a 2D array or a DataFrame, got an array of shape "
            f"{array.shape}. Reshape your data with array.reshape(-1, 1) for a "
            "single column or array.reshape(1, -1) for a single row."
        )
    if array.dtype.kind not in "biufcOUSMm":
        raise TypeError(f"Cannot hash an array of dtype {array.dtype}.")
    if array.dtype.kind == "c":
        raise ValueError("Complex data not supported: cannot hash complex values.")
    columns = [array[:, j] for j in range(array.shape[1])]
    return Frame([f"x{j}" for j in range(array.shape[1])], array.shape[0], columns)


def is_float_column(column):
    """Whether a column holds floating-point numbers (its values are numeric by
    default)."""
    dtype = getattr(column, "dtype", None)
    if dtype is None:  # pyarrow
        import pyarrow as pa

        return pa.types.is_floating(column.type) or pa.types.is_decimal(column.type)
    if isinstance(dtype, np.dtype):
        return dtype.kind == "f"
    kind = getattr(dtype, "kind", "")  # pandas extension dtypes
    return kind == "f" and "categor" not in str(dtype)


def float_values(column, name):
    """The column as a float64 array with NaN where a value is missing."""
    dtype = getattr(column, "dtype", None)
    try:
        if dtype is None:  # pyarrow
            import pyarrow as pa
            import pyarrow.compute as pc

            values = pc.cast(column, pa.float64())
            return np.asarray(values.to_numpy(zero_copy_only=False), dtype=np.float64)
        if isinstance(column, np.ndarray):
            if column.dtype.kind in "OUS":
                return np.array(
                    [np.nan if v is None else v for v in column], dtype=np.float64
                )
            return column.astype(np.float64)
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"Column {name!r} is declared numeric but its values are not numbers: "
            f"{error}"
        ) from error
