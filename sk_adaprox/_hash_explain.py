"""Which values of a table a linear model's largest weights on hashed columns
stand for."""

from collections import Counter
from typing import NamedTuple

import numpy as np

from ._frames import float_values
from ._hash_plan import CATEGORY, VALUE
from ._kernels.hashing import hash_cross_rows
from .hashing import bin_numbers


class HashedWeight(NamedTuple):
    """A hashed column, its weight and the values in a sample that land in it."""

    slot: int
    weight: float
    sources: list


def explain_hashed_weights(encoder, model, X, *, n_top=10, output=0):
    """List the (column, value) pairs that a model's largest weights stand for.

    Hashes the rows of ``X`` with ``encoder`` and, for each of the ``n_top``
    hashed columns of largest absolute weight in ``model``, counts the values
    and crosses of values of ``X`` that land in it. A column shared by several
    sources (a collision) lists them all; its weight is learnt from all of them.

    Parameters
    ----------
    encoder : HashingEncoder
        The encoder the model's input was hashed with (fitted, if it needs
        ``fit``).
    model : estimator or Pipeline
        A fitted linear model with ``coef_`` of ``encoder.n_features`` columns,
        or a Pipeline ending with one.
    X : DataFrame, pyarrow Table or array-like of shape (n_samples, n_columns)
        A sample of rows of the table the model was trained on.
    n_top : int, default=10
        Number of hashed columns to explain: those of largest absolute non-zero
        weight.
    output : int, default=0
        The row of ``coef_`` to read (the class, for one-vs-rest classifiers).

    Returns
    -------
    explained : list of HashedWeight
        ``(slot, weight, sources)`` named tuples by decreasing absolute weight:
        the hashed column, its weight, and ``[(source, count), ...]`` by
        decreasing count, a source being ``"column=value"``, ``"column"`` (a
        numeric value), ``"column bin b"`` or sources joined by ``" & "`` for a
        cross. With ``alternate_sign`` a source whose key has its top bit set
        enters the column negated.

    Examples
    --------
    >>> import pandas as pd
    >>> from sk_adaprox import FTRLClassifier, HashingEncoder, explain_hashed_weights
    >>> X = pd.DataFrame({"site": ["a", "b", "a", "c"] * 50, "hour": [1, 1, 2, 2] * 50})
    >>> y = (X["site"] == "a").astype(int)
    >>> encoder = HashingEncoder(n_features=2**12)
    >>> model = FTRLClassifier(l1=0.1).fit(encoder.transform(X), y)
    >>> top = explain_hashed_weights(encoder, model, X, n_top=1)
    >>> top[0].sources
    [('site=a', 100)]
    """
    coef = _coef_row(model, output, encoder.n_features)
    order = np.argsort(-np.abs(coef), kind="stable")[:n_top]
    top = order[coef[order] != 0]
    frame, plan, keys, present, _ = encoder._keys_of(X)
    found = {int(slot): Counter() for slot in top}
    labels = [_column_labels(frame, plan, c, name) for c, name in enumerate(plan.names)]
    sorted_top = np.sort(top)
    for c in range(len(plan.names)):
        _count(found, keys[c], present[c], sorted_top, encoder, labels[c])
    cross_keys = np.empty(keys.shape[1], dtype=np.uint32)
    cross_present = np.empty(keys.shape[1], dtype=np.bool_)
    for c in range(plan.parts.shape[0]):
        hash_cross_rows(
            keys, present, plan.parts, c, encoder.seed, cross_keys, cross_present
        )
        parts = [labels[q] for q in plan.parts[c] if q >= 0]
        _count(
            found,
            cross_keys,
            cross_present,
            sorted_top,
            encoder,
            lambda rows, parts=parts: _joined(parts, rows),
        )
    return [
        HashedWeight(int(slot), float(coef[slot]), found[int(slot)].most_common())
        for slot in top
    ]


def _coef_row(model, output, n_features):
    if hasattr(model, "steps"):
        model = model.steps[-1][1]
    coef = getattr(model, "coef_", None)
    if coef is None:
        raise TypeError(f"{type(model).__name__} has no coef_: fit a linear model.")
    coef = np.atleast_2d(
        np.asarray(coef.toarray() if hasattr(coef, "toarray") else coef)
    )
    if coef.shape[1] != n_features:
        raise ValueError(
            f"The model has {coef.shape[1]} features but the encoder hashes into "
            f"{n_features}: pass the encoder the model's input was made with."
        )
    return coef[output]


def _count(found, keys, present, sorted_top, encoder, labels):
    slots = (keys % np.uint64(encoder.n_features)).astype(np.int64)
    position = np.minimum(np.searchsorted(sorted_top, slots), len(sorted_top) - 1)
    rows = np.flatnonzero(present & (sorted_top[position] == slots))
    if rows.shape[0] == 0:
        return
    for slot, label in zip(slots[rows].tolist(), labels(rows), strict=True):
        found[slot][label] += 1


def _joined(parts, rows):
    return [
        " & ".join(labels) for labels in zip(*(p(rows) for p in parts), strict=True)
    ]


def _column_labels(frame, plan, c, name):
    """A function from row numbers to the labels of column c's values there."""
    mode = plan.modes[c]
    column = frame.column(name)
    if mode == CATEGORY:
        return lambda rows: [
            f"{name}={_shown(value)}" for value in _cells(column, rows)
        ]
    x = float_values(column, name)
    if mode == VALUE:
        return lambda rows: [
            f"{name}=<missing>" if np.isnan(x[i]) else name for i in rows
        ]
    bins = bin_numbers(x, plan.edges.get(name))
    return lambda rows: [
        f"{name}=<missing>" if np.isnan(x[i]) else f"{name} bin {bins[i]}" for i in rows
    ]


def _shown(value):
    if value is None or (isinstance(value, float) and value != value):
        return "<missing>"
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return str(value)


def _cells(column, rows):
    """Python values of a column at the given rows."""
    if isinstance(column, np.ndarray):
        return column[rows].tolist()
    if hasattr(column, "iloc"):
        return column.iloc[rows].tolist()
    return column.take(rows).to_pylist()
