"""Coin-betting kernels: per-coordinate parameter-free learning (ALGORITHMS.md §5;
Orabona & Pál 2016, Orabona & Tommasi 2017).

State slots (the middle axis of the state array): ``WEIGHT``, ``SUM_NEG_GRAD``
(theta, minus the sum of gradients), ``SUM_ABS_GRAD`` (G), ``MAX_ABS_GRAD`` (L,
0 until the coordinate's first non-zero gradient) and ``REWARD`` (R).
"""

import math

import numpy as np

from ._jit import jit
from .common import (
    STATUS_NONFINITE_SCORE,
    STATUS_NONFINITE_UPDATE,
    STATUS_OK,
    WEIGHT,
    all_finite,
    row_derivatives,
    row_is_safe,
)

SUM_NEG_GRAD = 1
SUM_ABS_GRAD = 2
MAX_ABS_GRAD = 3
REWARD = 4


@jit
def weight(theta, sum_abs, max_abs, reward, alpha):
    """w = theta / (L max(G + L, alpha L)) (L + R): the bet, a fraction of the
    wealth L + R; 0 for a coordinate that has seen no gradient (L = 0)."""
    if max_abs == 0.0:
        return 0.0
    # The same product, grouped so that no intermediate overflows: the fraction
    # bet is at most 1 in absolute value, the wealth ratio (L + R) / L >= 1.
    fraction = theta / max(sum_abs + max_abs, alpha * max_abs)
    return fraction * (1.0 + reward / max_abs)


@jit
def step(w, theta, sum_abs, max_abs, reward, g, alpha):
    """One §5 round for one coordinate whose current weight is ``w`` and gradient
    ``g``; returns the new ``(w, theta, G, L, R)``. A zero gradient changes
    nothing."""
    if g == 0.0:
        return w, theta, sum_abs, max_abs, reward
    max_abs = max(max_abs, abs(g))
    theta -= g
    sum_abs += abs(g)
    reward = max(reward - g * w, 0.0)
    return (
        weight(theta, sum_abs, max_abs, reward, alpha),
        theta,
        sum_abs,
        max_abs,
        reward,
    )


@jit
def weights_all(state, alpha):
    """Write every coordinate's weight under ``alpha`` into ``WEIGHT`` (when
    ``alpha`` changes between calls): O(n_features)."""
    for j in range(state.shape[0]):
        for k in range(state.shape[2]):
            state[j, WEIGHT, k] = weight(
                state[j, SUM_NEG_GRAD, k],
                state[j, SUM_ABS_GRAD, k],
                state[j, MAX_ABS_GRAD, k],
                state[j, REWARD, k],
                alpha,
            )


@jit
def _coordinate_update(state, j, scaled_dloss, x, alpha, dry_run):
    """Row j of the state (a feature, or the intercept with x = 1) takes its step
    for every output; with ``dry_run`` only compute. Return whether every new
    value is finite."""
    finite = True
    for k in range(scaled_dloss.shape[0]):
        new = step(
            state[j, WEIGHT, k],
            state[j, SUM_NEG_GRAD, k],
            state[j, SUM_ABS_GRAD, k],
            state[j, MAX_ABS_GRAD, k],
            state[j, REWARD, k],
            scaled_dloss[k] * x,
            alpha,
        )
        if dry_run:
            for value in new:
                finite &= math.isfinite(value)
        else:
            state[j, WEIGHT, k] = new[0]
            state[j, SUM_NEG_GRAD, k] = new[1]
            state[j, SUM_ABS_GRAD, k] = new[2]
            state[j, MAX_ABS_GRAD, k] = new[3]
            state[j, REWARD, k] = new[4]
    return finite


@jit
def _row_update(
    data, indices, start, end, scaled_dloss, state, alpha, intercept, dry_run
):
    """The row's coordinates (and the intercept, if ``intercept``) take their
    steps; with ``dry_run`` only compute. Return whether all are finite."""
    finite = True
    for p in range(start, end):
        finite &= _coordinate_update(
            state, indices[p], scaled_dloss, data[p], alpha, dry_run
        )
    if intercept:
        finite &= _coordinate_update(
            state, state.shape[0] - 1, scaled_dloss, 1.0, alpha, dry_run
        )
    return finite


@jit
def coin_pass(
    data,
    indices,
    indptr,
    targets,
    row_weights,
    order,
    state,
    row_scores,
    loss,
    epsilon,
    alpha,
    fit_intercept,
):
    """One pass of per-coordinate coin betting over the rows in ``order``.

    ``WEIGHT`` holds each coordinate's current bet, so scores read it directly.
    If ``row_scores`` has rows, ``row_scores[pos]`` receives the scores of the row
    visited at ``pos``, before its update.
    """
    n_outputs = state.shape[2]
    intercept_row = state.shape[0] - 1
    record_scores = row_scores.shape[0] > 0
    scores = np.empty(n_outputs)
    scaled_dloss = np.empty(n_outputs)
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        start = indptr[i]
        end = indptr[i + 1]
        # Score with the bets after round t - 1; note the bounds of the row.
        max_abs_x = 1.0 if fit_intercept else 0.0
        max_abs_w = 0.0
        max_state = 0.0
        for k in range(n_outputs):
            scores[k] = state[intercept_row, WEIGHT, k]
            if fit_intercept:
                max_abs_w = max(max_abs_w, abs(scores[k]))
                max_state = max(
                    max_state,
                    abs(state[intercept_row, SUM_NEG_GRAD, k]),
                    state[intercept_row, SUM_ABS_GRAD, k],
                    state[intercept_row, REWARD, k],
                )
        for p in range(start, end):
            j = indices[p]
            x = data[p]
            max_abs_x = max(max_abs_x, abs(x))
            for k in range(n_outputs):
                w = state[j, WEIGHT, k]
                scores[k] += w * x
                max_abs_w = max(max_abs_w, abs(w))
                max_state = max(
                    max_state, state[j, SUM_ABS_GRAD, k], state[j, REWARD, k]
                )
        if record_scores:
            row_scores[pos] = scores
        row_loss = row_derivatives(
            loss, epsilon, targets[i], scores, row_weights[i], scaled_dloss
        )
        if not (all_finite(scores) and all_finite(scaled_dloss)):
            status = STATUS_NONFINITE_SCORE
            break
        # |theta| <= G, and G, R and the wealth L + R grow by at most |g| (1 + |w|)
        # per round; a bet is at most (L + R) / L. Rows whose bound is large get
        # a dry run first.
        largest = 0.0
        for k in range(n_outputs):
            largest = max(largest, abs(scaled_dloss[k]))
        growth = largest * max_abs_x * (1.0 + max_abs_w)
        bound = max_state + growth
        if not row_is_safe(scaled_dloss, max_abs_x, bound * bound):
            finite = _row_update(
                data,
                indices,
                start,
                end,
                scaled_dloss,
                state,
                alpha,
                fit_intercept,
                True,
            )
            if not finite:
                status = STATUS_NONFINITE_UPDATE
                break
        _row_update(
            data,
            indices,
            start,
            end,
            scaled_dloss,
            state,
            alpha,
            fit_intercept,
            False,
        )
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status
