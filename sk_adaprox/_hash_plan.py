"""What :class:`sk_adaprox.HashingEncoder` emits for a table's columns: how each
column is read (a category, a numeric value or a bin of one) and which columns
each cross combines, checked against the table's column names."""

import numbers
from itertools import product

import numpy as np

from ._frames import is_float_column

CATEGORY, VALUE, LOG2, EDGES = "category", "value", "log2", "edges"
# A row's entries are numbered in 16 bits while they are sorted.
MAX_ENTRIES = 2**16 - 1


class HashPlan:
    """The encoder's parameters resolved against one table's columns.

    Attributes
    ----------
    names : list of str
        The table's columns, in its order.
    modes : list of str
        Per column: ``"category"``, ``"value"``, ``"log2"`` or ``"edges"``.
    edges : dict
        Bin edges (a sorted float64 array) of each ``"edges"`` column.
    weights : ndarray of shape (n_columns,)
        Each column's weight.
    parts : ndarray of shape (n_crosses, 3)
        The column positions each cross combines, in order, -1 after the last.
    """

    def __init__(self, encoder, frame, fitted_edges=None, fitted_numeric=None):
        self.names = frame.names
        numeric = fitted_numeric
        if numeric is None:
            numeric = _numeric_columns(encoder.numeric_columns, frame)
        self.numeric = numeric
        self.modes, self.edges = [], {}
        for name in self.names:
            mode, edges = _numeric_mode(encoder.numeric, name, fitted_edges)
            self.modes.append(mode if name in numeric else CATEGORY)
            if name not in numeric:
                continue
            if mode == EDGES and edges is None and fitted_edges is not None:
                raise ValueError(
                    f"Column {name!r} is numeric here, but fit learned no quantile "
                    "edges for it (it was not numeric in the table fit saw). List "
                    "the numeric columns in numeric_columns."
                )
            if edges is not None:
                self.edges[name] = edges
        self.weights = _column_weights(encoder.column_weights, self.names)
        self.parts = _cross_parts(encoder.crosses, self.names)
        n_entries = len(self.names) + self.parts.shape[0]
        if n_entries > MAX_ENTRIES:
            raise ValueError(
                f"{len(self.names)} columns and {self.parts.shape[0]} crosses make "
                f"{n_entries} entries per row; HashingEncoder takes at most "
                f"{MAX_ENTRIES}."
            )

    def value_rows(self):
        """Row of each ``"value"`` column in the values array, -1 for the others."""
        rows = np.full(len(self.names), -1, dtype=np.int64)
        value_columns = [c for c, mode in enumerate(self.modes) if mode == VALUE]
        rows[value_columns] = np.arange(len(value_columns))
        return rows


def _check_names(requested, names, what):
    for name in requested:
        if not isinstance(name, str):
            raise TypeError(f"{what} must name columns by str, got {name!r}.")
        if name not in names:
            raise ValueError(
                f"{what} names column {name!r}, which X does not have; its columns "
                f"are {_shown(names)}."
            )


def _shown(names):
    return names if len(names) <= 12 else [*names[:12], "..."]


def _numeric_columns(numeric_columns, frame):
    if isinstance(numeric_columns, str):  # "auto", checked by the parameters
        return {name for name in frame.names if is_float_column(frame.column(name))}
    requested = list(numeric_columns)
    _check_names(requested, frame.names, "numeric_columns")
    return set(requested)


def _numeric_mode(numeric, name, fitted_edges):
    """``(mode, edges)`` of a numeric column."""
    if isinstance(numeric, str):
        if numeric == "quantile":
            return EDGES, (fitted_edges or {}).get(name)
        return {"value": VALUE, "log2": LOG2}[numeric], None
    if isinstance(numeric, dict):
        if name not in numeric:
            return VALUE, None
        return EDGES, checked_edges(numeric[name], name)
    return EDGES, checked_edges(numeric, name)


def checked_edges(edges, name):
    """Bin edges as a strictly increasing float64 array without NaN."""
    array = np.asarray(edges, dtype=np.float64)
    if array.ndim != 1 or array.shape[0] == 0:
        raise ValueError(
            f"Bin edges of column {name!r} must be a non-empty 1-D sequence, got "
            f"{edges!r}."
        )
    if np.isnan(array).any() or np.any(np.diff(array) <= 0):
        raise ValueError(
            f"Bin edges of column {name!r} must increase strictly, got {edges!r}."
        )
    return array


def check_numeric_dict(numeric, names):
    """The columns a dict of bin edges names must be columns of X."""
    if isinstance(numeric, dict):
        _check_names(list(numeric), names, "numeric")


def _column_weights(column_weights, names):
    weights = np.ones(len(names), dtype=np.float64)
    if column_weights is None:
        return weights
    _check_names(list(column_weights), names, "column_weights")
    for name, weight in column_weights.items():
        if not isinstance(weight, numbers.Real) or not np.isfinite(weight):
            raise ValueError(
                f"column_weights[{name!r}] must be a finite number, got {weight!r}."
            )
        weights[names.index(name)] = float(weight)
    return weights


def _cross_parts(crosses, names):
    """The column positions of every cross, groups expanded."""
    crossed, seen = [], set()
    for cross in crosses or ():
        if isinstance(cross, str) or not 2 <= len(cross) <= 3:
            raise ValueError(
                "Each cross must be a tuple of 2 or 3 column names (or lists of "
                f"names), got {cross!r}."
            )
        groups = [[part] if isinstance(part, str) else list(part) for part in cross]
        for group in groups:
            _check_names(group, names, "crosses")
        explicit = all(isinstance(part, str) for part in cross)
        if explicit and len(set(cross)) < len(cross):
            raise ValueError(
                f"The cross {cross!r} combines a column with itself; a cross "
                "combines distinct columns."
            )
        for combination in product(*groups):
            # A group crossed with itself gives each set of columns once.
            columns = frozenset(combination)
            if len(columns) == len(combination) and columns not in seen:
                seen.add(columns)
                crossed.append(combination)
    parts = np.full((len(crossed), 3), -1, dtype=np.int64)
    for c, combination in enumerate(crossed):
        parts[c, : len(combination)] = [names.index(name) for name in combination]
    return parts
