"""Hashing tables of categorical and numeric columns, with feature crosses, into
the sparse matrices the online learners take (docs/hashing.md)."""

from collections.abc import Mapping, Sequence
from numbers import Integral
from typing import Any, Self

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, DTypeLike, NDArray
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._column_keys import (
    KeyTarget,
    frozen,
    hash_bytes,
    hash_int_rows,
    write_column_keys,
)
from ._frames import float_values, is_arrow_table, is_pandas_frame, is_polars_frame
from ._frames import read_frame as _read_frame
from ._hash_plan import EDGES, LOG2, VALUE, HashPlan, check_numeric_dict
from ._kernels.hashing import fill_rows, log2_bins, value_column_rows

__all__ = ["HashingEncoder"]

_INT32_MAX = np.iinfo(np.int32).max


class HashingEncoder(TransformerMixin, BaseEstimator):
    r"""Hash the columns of a table, and crosses of them, into a sparse matrix.

    Every categorical value becomes one non-zero, 1 (or its column's weight), in
    column ``key mod n_features`` of its row, where ``key`` is a 32-bit
    MurmurHash3 of the column's name and the value; every cross of columns
    becomes one non-zero per combination of their values. The encoder learns
    nothing from the data (except quantile bin edges, ``numeric="quantile"``),
    so ``transform`` needs no ``fit``: batches of a stream, partitions of a
    Dask frame and batches hashed in other processes get the same columns.
    Values are hashed from the table's own buffers (Arrow strings, integers,
    floats, category codes) by compiled code; a column of Python objects is
    first numbered with ``pandas.factorize`` so that each distinct value is
    hashed once.

    The hash (identical on every platform, in every process and version):

    * ``h(b, s)`` is MurmurHash3_x86_32 of the bytes ``b`` with seed ``s``,
      an unsigned 32-bit integer, as :func:`sklearn.utils.murmurhash3_32`
      with ``positive=True`` computes it.
    * A column's seed is ``c = h(utf8(name), seed)``. Columns of a 2-D array
      are named ``"x0"``, ``"x1"``, ... and other names are converted by
      ``str``.
    * The key of a value in that column is ``h(bytes, c)`` with the bytes: the
      UTF-8 bytes of a string; the bytes themselves for bytes; the 8
      little-endian bytes of the int64 for an integer, a boolean (0 or 1), a
      date or time (its int64 count of units) and a float with an integral
      value (so ``3.0`` and ``3`` are one value); the 8 little-endian bytes of
      the float64 for any other float. A missing value (None, NaN, NaT,
      Arrow and pandas nulls) has the key ``h(b"\xff", c)`` (a byte no string
      or number hashes as); it is skipped unless ``missing="hash"``.
    * A numeric column read as its value has the key ``c`` and the value
      ``x``; binned, it is the integer bin number read as a category.
    * A cross of columns ``(a, b[, d])`` has the key ``h(le32(k_a) + le32(k_b)
      [+ le32(k_d)], seed)`` of its parts' keys ``k`` as 4 little-endian
      bytes each, in the cross's order, and the product of the parts'
      values; it is skipped when a part is skipped or its value is zero.
    * The entry goes to column ``key mod n_features``, with value negated when
      ``alternate_sign`` and the key's top bit (``key >= 2**31``) is set.
      Entries of one row that land in one column are summed.

    Parameters
    ----------
    n_features : int, default=1048576
        Number of output columns (``2**20``), at most ``2**32``. Out of ``k``
        distinct keys, a fraction of about ``1 - (1 - 1/n_features)**(k - 1)``
        share their column with another (:doc:`/hashing` has a table).
    numeric_columns : "auto" or list of str, default="auto"
        The columns read as numbers; all the others are categorical. "auto":
        the floating-point columns (a column of integers is categorical).
    numeric : {"value", "log2", "quantile"}, array-like or dict, default="value"
        How a numeric column is encoded. "value": one column with the value;
        "log2": the bin ``sign(x) * floor(log2(1 + |x|))``; "quantile": bins
        between ``n_bins`` quantiles of the column learnt by ``fit``; an
        increasing array of edges: the bin ``searchsorted(edges, x, "right")``
        of every numeric column; a dict from column name to edges: those
        columns binned so, the other numeric columns by value. A bin is a
        category of its column (an infinite value is the bin ±1025 with "log2").
    n_bins : int, default=16
        Number of quantile bins with ``numeric="quantile"``: ``n_bins - 1``
        edges, fewer where quantiles coincide.
    crosses : list of tuple or None, default=None
        Crosses of 2 or 3 columns, each named by its column or by a list of
        columns (a group, as Vowpal Wabbit's namespaces: ``(["a", "b"], "c")``
        crosses ``a`` and ``b`` each with ``c``). A group crossed with itself
        gives each pair of distinct columns once; a column named twice in one
        cross is an error.
    missing : {"skip", "hash"}, default="skip"
        "skip": a missing value adds nothing to its row; "hash": it is a value
        of its own, with the key above.
    column_weights : dict or None, default=None
        Weight of each named column's entries (1 for the others): the value of a
        category and the factor of a numeric value.
    alternate_sign : bool, default=False
        Negate the entries whose key has its top bit set, so that collisions
        cancel in expectation (scikit-learn's ``FeatureHasher`` does so by
        default). Off by default: with the L1 models of sk_adaprox a column's
        weight is then read as its values' own weight.
    seed : int, default=0
        Seed of every hash, in ``[0, 2**32)``: another seed gives other
        collisions.
    dtype : {np.float64, np.float32}, default=np.float64
        Type of the output's values.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns seen by ``fit`` (``fit`` is optional).
    feature_names_in_ : ndarray of shape (n_columns,)
        Column names seen by ``fit``, when X has string names.
    bin_edges_ : dict
        Quantile bin edges of each numeric column, with ``numeric="quantile"``.
    numeric_columns_ : list of str
        The columns ``fit`` read as numbers; ``transform`` reads them so
        whatever their dtype in its table. Without ``fit``, ``"auto"`` decides
        by each table's dtypes: a stream whose integer column gains a missing
        value (and becomes float in pandas) should ``fit`` first or list
        ``numeric_columns``.

    See Also
    --------
    explain_hashed_weights : Which values a linear model's largest weights stand
        for.

    Examples
    --------
    >>> import pandas as pd
    >>> from sk_adaprox import HashingEncoder
    >>> X = pd.DataFrame({"site": ["a", "b", "a"], "device": [1, 2, 2]})
    >>> encoder = HashingEncoder(n_features=2**10, crosses=[("site", "device")])
    >>> Xt = encoder.transform(X)
    >>> Xt.shape, Xt.nnz
    ((3, 1024), 9)
    >>> Xt[0].indices.tolist()
    [220, 255, 385]
    """

    _parameter_constraints: dict = {
        "n_features": [Interval(Integral, 1, 2**32, closed="both")],
        "numeric_columns": [StrOptions({"auto"}), list, tuple],
        "numeric": [StrOptions({"value", "log2", "quantile"}), "array-like", dict],
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "crosses": [list, tuple, None],
        "missing": [StrOptions({"skip", "hash"})],
        "column_weights": [dict, None],
        "alternate_sign": ["boolean"],
        "seed": [Interval(Integral, 0, 2**32 - 1, closed="both")],
        "dtype": "no_validation",
    }

    def __init__(
        self,
        n_features: int = 2**20,
        *,
        numeric_columns: str | Sequence[str] = "auto",
        numeric: str | ArrayLike | Mapping[str, ArrayLike] = "value",
        n_bins: int = 16,
        crosses: Sequence[Sequence[str | Sequence[str]]] | None = None,
        missing: str = "skip",
        column_weights: Mapping[str, float] | None = None,
        alternate_sign: bool = False,
        seed: int = 0,
        dtype: DTypeLike = np.float64,
    ) -> None:
        self.n_features = n_features
        self.numeric_columns = numeric_columns
        self.numeric = numeric
        self.n_bins = n_bins
        self.crosses = crosses
        self.missing = missing
        self.column_weights = column_weights
        self.alternate_sign = alternate_sign
        self.seed = seed
        self.dtype = dtype

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = self._learns_edges()
        tags.input_tags.sparse = False
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        tags.transformer_tags.preserves_dtype = []
        return tags

    def _learns_edges(self):
        return isinstance(self.numeric, str) and self.numeric == "quantile"

    def fit(self, X: Any, y: Any = None) -> Self:
        """Check the parameters against X's columns; learn quantile bin edges.

        Parameters
        ----------
        X : DataFrame, pyarrow Table or array-like of shape (n_samples, n_columns)
            The table.
        y : None
            Ignored.

        Returns
        -------
        self : HashingEncoder
            The encoder.
        """
        self._validate_params()
        self._check_dtype()
        frame = _read_frame(X)
        if frame.n_rows == 0:
            raise ValueError(
                f"Found array with 0 sample(s) (shape=(0, {len(frame.names)})) while "
                "a minimum of 1 is required by HashingEncoder."
            )
        validate_data(self, _as_validated(X), reset=True, skip_check_array=True)
        plan = HashPlan(self, frame)  # the edges are what fit learns
        check_numeric_dict(self.numeric, frame.names)
        # transform reads these columns as numbers whatever their dtype then
        # (a column of integers that acquires a missing value becomes float).
        self.numeric_columns_ = sorted(plan.numeric)
        if self._learns_edges():
            self.bin_edges_ = {
                name: _quantile_edges(
                    float_values(frame.column(name), name), self.n_bins
                )
                for name, mode in zip(frame.names, plan.modes, strict=True)
                if mode == EDGES
            }
        return self

    def transform(self, X: Any) -> sp.csr_matrix:
        """Hash the rows of X.

        Parameters
        ----------
        X : DataFrame, pyarrow Table or array-like of shape (n_samples, n_columns)
            A pandas or polars DataFrame, a pyarrow Table or a 2-D array whose
            columns hold strings, bytes, integers, booleans, floats, dates or
            categories.

        Returns
        -------
        X_hashed : scipy.sparse.csr_matrix of shape (n_samples, n_features)
            Canonical CSR (sorted column indices, no repeats) of ``dtype``
            values, with int32 index arrays where they fit.
        """
        self._validate_params()
        self._check_dtype()
        if self._learns_edges():
            check_is_fitted(self, "bin_edges_")
        _, plan, keys, present, values = self._keys_of(X)
        return self._csr(keys, present, values, plan)

    def _keys_of(self, X):
        """``(frame, plan, keys, present, values)`` of the table X."""
        frame = _read_frame(X)
        if hasattr(self, "n_features_in_"):
            validate_data(self, _as_validated(X), reset=False, skip_check_array=True)
        fitted = getattr(self, "numeric_columns_", None)
        plan = HashPlan(
            self,
            frame,
            getattr(self, "bin_edges_", None),
            None if fitted is None else set(fitted),
        )
        check_numeric_dict(self.numeric, frame.names)
        return frame, plan, *self._column_keys(frame, plan)

    def get_feature_names_out(self, input_features: Any = None) -> NDArray:
        """Names of the output columns: ``hash_0``, ``hash_1``, ...

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Ignored: the output columns do not depend on the input's names.

        Returns
        -------
        feature_names_out : ndarray of str objects of shape (n_features,)
            ``"hash_<column index>"``.
        """
        return np.array([f"hash_{j}" for j in range(self.n_features)], dtype=object)

    def _check_dtype(self):
        if np.dtype(self.dtype) not in (np.float32, np.float64):
            raise ValueError(
                f"dtype must be np.float32 or np.float64, got {self.dtype}."
            )

    def _column_keys(self, frame, plan):
        """The keys and presence of every column, ``(n_columns, n_rows)``, and the
        values of the columns read by value, ``(n_value_columns, n_rows)``."""
        n_rows, n_columns = frame.n_rows, len(frame.names)
        keys = np.empty((n_columns, n_rows), dtype=np.uint32)
        present = np.empty((n_columns, n_rows), dtype=np.bool_)
        n_values = sum(mode == VALUE for mode in plan.modes)
        values = np.empty((n_values, n_rows), dtype=np.float64)
        value_rows = plan.value_rows()
        skip = self.missing == "skip"
        for c, (name, mode) in enumerate(zip(frame.names, plan.modes, strict=True)):
            seed = self.column_seed(name)
            target = KeyTarget(keys[c], present[c], seed, skip)
            if mode == VALUE:
                _value_keys(frame.column(name), target, values[value_rows[c]], name)
            elif mode in (LOG2, EDGES):
                x = float_values(frame.column(name), name)
                bins = bin_numbers(x, plan.edges.get(name))
                hash_int_rows(bins, ~np.isnan(x), *target.arguments())
            else:
                write_column_keys(frame.column(name), target, name)
        return keys, present, values

    def column_seed(self, name):
        """The hash of a column's name, the seed of its values' hashes.

        Parameters
        ----------
        name : str
            The column's name.

        Returns
        -------
        seed : int
            ``MurmurHash3_x86_32(name.encode("utf-8"), seed)``, in ``[0, 2**32)``.
        """
        return hash_bytes(str(name).encode("utf-8", "surrogatepass"), self.seed)

    def _csr(self, keys, present, values, plan):
        n_rows = keys.shape[1]
        # Room for every present value and cross; zeros and repeats use less.
        room = int(np.count_nonzero(present)) + n_rows * plan.parts.shape[0]
        wide = self.n_features > _INT32_MAX + 1 or room > _INT32_MAX
        index_dtype = np.int64 if wide else np.int32
        indptr = np.empty(n_rows + 1, dtype=index_dtype)
        indices = np.empty(room, dtype=index_dtype)
        data = np.empty(room, dtype=self.dtype)
        nnz = fill_rows(
            keys,
            present,
            values,
            plan.value_rows(),
            plan.weights,
            plan.parts,
            self.seed,
            self.n_features,
            self.alternate_sign,
            indptr,
            indices,
            data,
        )
        indices, data = indices[:nnz], data[:nnz]
        if nnz < room // 2:  # let go of the room left over
            indices, data = indices.copy(), data.copy()
        X = sp.csr_matrix((data, indices, indptr), shape=(n_rows, self.n_features))
        X.has_sorted_indices = True
        X.has_canonical_format = True
        return X


def _as_validated(X):
    """X as scikit-learn's name and width checks read it: tables as they are,
    anything else as an array."""
    if is_pandas_frame(X) or is_polars_frame(X) or is_arrow_table(X):
        return X
    return np.asarray(X) if not hasattr(X, "shape") else X


def _value_keys(column, target, values, name):
    """Keys of a numeric column read by value (``c``, and the missing key where
    the value is NaN) into ``target``, its values (1 where missing) into
    ``values``."""
    x = frozen(float_values(column, name), np.float64)
    if value_column_rows(x, *target.arguments(), values):
        raise ValueError(f"Column {name!r} has infinite values.")


def bin_numbers(x, edges):
    """Integer bin numbers: log2 buckets (edges None) or searchsorted edges."""
    if edges is not None:
        bins = np.searchsorted(edges, x, side="right")
        return np.where(np.isnan(x), 0, bins).astype(np.int64)
    bins = np.empty(x.shape[0], dtype=np.int64)
    log2_bins(frozen(x, np.float64), bins)
    return bins


def _quantile_edges(x, n_bins):
    finite = x[np.isfinite(x)]
    if finite.shape[0] == 0:
        return np.zeros(1)
    edges = np.quantile(finite, np.linspace(0.0, 1.0, n_bins + 1)[1:-1])
    return np.unique(edges)
