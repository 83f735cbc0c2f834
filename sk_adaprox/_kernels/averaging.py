"""Iterate averaging (``average``): the served weights are the mean of the
iterates after each round, kept O(nnz) per row by lazy sums.

Two slots follow the rule's own: ``avg_slot`` holds a coordinate's sum of its
iterates over the averaged rounds up to its last settlement, and ``avg_slot + 1``
where that settlement stands. Averaging counts the rounds after ``a0`` (the rows
seen before averaging starts). Before a coordinate's weight changes at round t,
the pass kernel *settles* it: the rounds since its last settlement, up to t - 1,
are added with the weight it held through them (or, for rules whose idle weight
moves, the closed-form sum of that trajectory), so that at any round T its
average is ``(sum + the idle rounds since) / (T - a0)``.

This module holds the rule whose idle weight is constant (AdaGrad's mirror
descent without l1/l2, FTRL within a pass, cocob coin betting): the position is a
round and the idle sum is ``WEIGHT`` times the rounds. Dual averaging with l1
(``adagrad``) and the normalised coin rule (``coin``) have their own.
"""

import numpy as np

from ._jit import jit
from .common import WEIGHT
from .sparse import csr_scorer


@jit
def _idle_rounds(last, t, a0):
    """How many averaged rounds lie in (last, t]."""
    return max(t - max(last, a0), 0)


@jit
def constant_settle(state, j, avg_slot, t, a0):
    """Settle coordinate row j up to round t (all outputs)."""
    for k in range(state.shape[2]):
        rounds = _idle_rounds(state[j, avg_slot + 1, k], t, a0)
        state[j, avg_slot, k] += state[j, WEIGHT, k] * rounds
        state[j, avg_slot + 1, k] = t


@jit
def constant_settle_row(indices, start, end, state, avg_slot, t, a0, intercept):
    """Settle the row's features (and the intercept) up to round t."""
    for p in range(start, end):
        constant_settle(state, np.int64(indices[p]), avg_slot, t, a0)
    if intercept:
        constant_settle(state, state.shape[0] - 1, avg_slot, t, a0)


@jit
def constant_settle_all(state, avg_slot, t, a0):
    """Settle every coordinate up to round t (before every weight changes at
    once: new parameters, or FTRL's next pass): O(n_features)."""
    for j in range(state.shape[0]):
        constant_settle(state, j, avg_slot, t, a0)


@jit
def constant_averaged(state, j, k, avg_slot, t, a0):
    """Coordinate (j, k)'s mean iterate over the averaged rounds up to t > a0."""
    rounds = _idle_rounds(state[j, avg_slot + 1, k], t, a0)
    return (state[j, avg_slot, k] + state[j, WEIGHT, k] * rounds) / (t - a0)


@jit
def constant_averaged_all(state, avg_slot, t, a0, out):
    """``out[j, k]``: every coordinate's mean iterate (rows as in ``state``)."""
    for j in range(state.shape[0]):
        for k in range(state.shape[2]):
            out[j, k] = constant_averaged(state, j, k, avg_slot, t, a0)


@jit
def _constant_averaged_weight(state, j, k, arguments):
    avg_slot, t, a0 = arguments
    return constant_averaged(state, j, k, avg_slot, t, a0)


_constant_averaged_scores = csr_scorer(
    _constant_averaged_weight, _constant_averaged_weight
)


@jit
def constant_averaged_scores(data, indices, indptr, state, avg_slot, t, a0, out):
    """Scores of CSR rows with the mean iterates at round t."""
    arguments = (avg_slot, t, a0)
    _constant_averaged_scores(data, indices, indptr, state, arguments, out)
