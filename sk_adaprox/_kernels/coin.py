"""Coin-betting kernels: per-coordinate parameter-free learning (docs/coin.md;
Orabona & Pál 2016, Orabona & Tommasi 2017).

State slots (the middle axis of the state array): ``WEIGHT``, ``SUM_NEG_GRAD``
(theta, minus the sum of gradients), ``SUM_ABS_GRAD`` (G), ``MAX_ABS_GRAD`` (L,
0 until the coordinate's first non-zero gradient) and ``REWARD`` (R).
"""

import math

import numpy as np

from ._jit import jit
from .averaging import constant_settle_row
from .common import (
    APPLY,
    DRY_RUN,
    STATUS_NONFINITE_SCORE,
    STATUS_NONFINITE_UPDATE,
    STATUS_OK,
    WEIGHT,
    all_finite,
    copy_values,
    row_derivatives,
    row_is_safe,
)
from .prefetch import prefetch_ahead
from .sparse import csr_scorer

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
    """One round of the cocob rule (the per-coordinate bet of Orabona & Tommasi
    2017's COCOB-Backprop; docs/coin.md, "The cocob rule") for one coordinate
    whose current weight is ``w`` and gradient ``g``; returns the new
    ``(w, theta, G, L, R)``. A zero gradient changes nothing."""
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
    # Two loops, not a test of dry_run per output: the applying loop then has
    # no check in it (dry_run is a run-time flag, compiled once).
    if dry_run:
        finite = True
        for k in range(scaled_dloss.shape[0]):
            for value in _stepped(state, j, k, scaled_dloss[k] * x, alpha):
                finite &= math.isfinite(value)
        return finite
    for k in range(scaled_dloss.shape[0]):
        new = _stepped(state, j, k, scaled_dloss[k] * x, alpha)
        state[j, WEIGHT, k] = new[0]
        state[j, SUM_NEG_GRAD, k] = new[1]
        state[j, SUM_ABS_GRAD, k] = new[2]
        state[j, MAX_ABS_GRAD, k] = new[3]
        state[j, REWARD, k] = new[4]
    return True


@jit
def _stepped(state, j, k, g, alpha):
    """Output k of row j's values after the step on gradient ``g`` (:func:`step`)."""
    return step(
        state[j, WEIGHT, k],
        state[j, SUM_NEG_GRAD, k],
        state[j, SUM_ABS_GRAD, k],
        state[j, MAX_ABS_GRAD, k],
        state[j, REWARD, k],
        g,
        alpha,
    )


@jit
def _row_update(
    data, indices, start, end, scaled_dloss, state, alpha, intercept, dry_run
):
    """The row's coordinates (and the intercept, if ``intercept``) take their
    steps; with ``dry_run`` only compute. Return whether all are finite."""
    finite = True
    for p in range(start, end):
        finite &= _coordinate_update(
            state, np.int64(indices[p]), scaled_dloss, data[p], alpha, dry_run
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
    t0,
    avg_slot,
    a0,
):
    """One pass of per-coordinate coin betting over the rows in ``order``.

    ``WEIGHT`` holds each coordinate's current bet, so scores read it directly.
    If ``row_scores`` has rows, ``row_scores[pos]`` receives the scores of the row
    visited at ``pos``, before its update. With an ``avg_slot`` (not None) the iterates
    are averaged after round ``a0`` (:mod:`.averaging`); the first row of the
    pass is round ``t0 + 1``.
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
            if n_outputs > 1:
                prefetch_ahead(indices, p, end, state)
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
            copy_values(scores, row_scores[pos])
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
                DRY_RUN,
            )
            if not finite:
                status = STATUS_NONFINITE_UPDATE
                break
        if avg_slot is not None:
            constant_settle_row(
                indices, start, end, state, avg_slot, t0 + pos, a0, fit_intercept
            )
        _row_update(
            data,
            indices,
            start,
            end,
            scaled_dloss,
            state,
            alpha,
            fit_intercept,
            APPLY,
        )
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status


# -- the normalised rule ------------------------------------------------------------
#
# Slots: WEIGHT (the served weight, bet / N, written only when the estimator reads
# the weights), SUM_NEG_GRAD (theta), SUM_ABS_GRAD (G), REWARD (R, unclipped: the
# wealth is initial_wealth + R > 0), MAX_ABS_X (the largest |x| of the feature) and
# MAX_ABS_DLOSS (the largest |s dl/dp| of the output, floored at 1 once non-zero).
# N is the running weighted mean of the rows' normalised squared norms, carried in
# ``row_norms`` = (sum of s * norm, sum of s).

MAX_ABS_X = 3
MAX_ABS_DLOSS = 5

# Added to the sum of row norms (as Vowpal Wabbit does), so that N > 0.
NORM_FLOOR = 1e-6


@jit
def normalized_bet(theta, sum_abs, reward, scale, initial_wealth):
    """theta (initial_wealth + R) / (scale (scale + G)): the unnormalised bet; 0
    while the coordinate's scale is 0 (no gradient or no non-zero x yet)."""
    if scale == 0.0:
        return 0.0
    # Grouped so that no intermediate overflows: |theta| <= G.
    return theta / (scale + sum_abs) * ((initial_wealth + reward) / scale)


@jit
def stored_bet(state, j, k, initial_wealth):
    """Coordinate (j, k)'s bet under its stored largest |x| and loss derivative:
    the served weight times N."""
    return normalized_bet(
        state[j, SUM_NEG_GRAD, k],
        state[j, SUM_ABS_GRAD, k],
        state[j, REWARD, k],
        state[j, MAX_ABS_DLOSS, k] * state[j, MAX_ABS_X, k],
        initial_wealth,
    )


@jit
def mean_row_norm(row_norms):
    """N: the weighted mean of the normalised squared row norms so far; 1 before
    any row of positive weight."""
    if row_norms[1] > 0.0:
        return (row_norms[0] + NORM_FLOOR) / row_norms[1]
    return 1.0


@jit
def normalized_weights_all(state, initial_wealth, mean_norm):
    """Write every coordinate's served weight, its bet over ``mean_norm``, into
    ``WEIGHT``: O(n_features)."""
    for j in range(state.shape[0]):
        for k in range(state.shape[2]):
            state[j, WEIGHT, k] = stored_bet(state, j, k, initial_wealth) / mean_norm


@jit
def _served_bet(state, j, k, arguments):
    """Coordinate (j, k)'s served weight, its bet over the mean row norm, in the
    rounding of :func:`normalized_weights_all`."""
    initial_wealth, mean_norm = arguments
    return stored_bet(state, j, k, initial_wealth) / mean_norm


_normalized_scores = csr_scorer(_served_bet, _served_bet)


@jit
def normalized_scores(data, indices, indptr, state, initial_wealth, mean_norm, out):
    """Scores of CSR rows with the served weights (bet over ``mean_norm``)
    computed from the accumulators, in the rounding of the weights
    :func:`normalized_weights_all` writes (the state is not written)."""
    arguments = (initial_wealth, mean_norm)
    _normalized_scores(data, indices, indptr, state, arguments, out)


# Averaging the normalised rule: a coordinate's iterate is its bet over the N of
# the round, so its idle sum is the bet times the sum of 1/N over those rounds.
# ``row_norms[PREFIX]`` is that sum over the averaged rounds so far, and the
# position of a settlement (``avg_slot + 1``) is the prefix it was settled at.
PREFIX = 2


@jit
def _normalized_unsettled(state, j, k, row_norms, avg_slot, initial_wealth):
    """The sum of coordinate (j, k)'s iterates since its settlement: its bet
    times the sum of 1/N since."""
    idle_sum = row_norms[PREFIX] - state[j, avg_slot + 1, k]
    return stored_bet(state, j, k, initial_wealth) * idle_sum


@jit
def _normalized_settle(state, j, row_norms, avg_slot, initial_wealth):
    """Settle coordinate row j up to the last round (all outputs)."""
    for k in range(state.shape[2]):
        state[j, avg_slot, k] += _normalized_unsettled(
            state, j, k, row_norms, avg_slot, initial_wealth
        )
        state[j, avg_slot + 1, k] = row_norms[PREFIX]


@jit
def normalized_settle_row(
    indices, start, end, state, row_norms, avg_slot, initial_wealth, intercept
):
    """Settle the row's features (and the intercept) up to the last round."""
    for p in range(start, end):
        _normalized_settle(
            state, np.int64(indices[p]), row_norms, avg_slot, initial_wealth
        )
    if intercept:
        _normalized_settle(
            state, state.shape[0] - 1, row_norms, avg_slot, initial_wealth
        )


@jit
def normalized_settle_all(state, row_norms, avg_slot, initial_wealth):
    """Settle every coordinate up to the last round: O(n_features)."""
    for j in range(state.shape[0]):
        _normalized_settle(state, j, row_norms, avg_slot, initial_wealth)


@jit
def _normalized_averaged(state, j, k, row_norms, avg_slot, initial_wealth, rounds):
    """Coordinate (j, k)'s mean iterate over ``rounds`` averaged rounds."""
    idle = _normalized_unsettled(state, j, k, row_norms, avg_slot, initial_wealth)
    return (state[j, avg_slot, k] + idle) / rounds


@jit
def normalized_averaged_all(state, row_norms, avg_slot, initial_wealth, rounds, out):
    """``out[j, k]``: every coordinate's mean iterate over ``rounds`` averaged
    rounds."""
    for j in range(state.shape[0]):
        for k in range(state.shape[2]):
            out[j, k] = _normalized_averaged(
                state, j, k, row_norms, avg_slot, initial_wealth, rounds
            )


@jit
def _normalized_averaged_weight(state, j, k, arguments):
    row_norms, avg_slot, initial_wealth, rounds = arguments
    return _normalized_averaged(
        state, j, k, row_norms, avg_slot, initial_wealth, rounds
    )


_normalized_averaged_scores = csr_scorer(
    _normalized_averaged_weight, _normalized_averaged_weight
)


@jit
def normalized_averaged_scores(
    data, indices, indptr, state, row_norms, avg_slot, initial_wealth, rounds, out
):
    """Scores of CSR rows with the mean iterates."""
    arguments = (row_norms, avg_slot, initial_wealth, rounds)
    _normalized_averaged_scores(data, indices, indptr, state, arguments, out)


@jit
def _normalized_coordinate_update(state, j, scaled_dloss, x, initial_wealth, dry_run):
    """Row j of the state (a feature, or the intercept with x = 1) takes its
    normalised-rule step for every output; with ``dry_run`` only compute. Return
    whether every new value, and the bet it leads to, is finite. An explicit
    zero changes nothing."""
    if x == 0.0:
        return True
    largest_x = max(state[j, MAX_ABS_X, 0], abs(x))
    # Two loops, as in _coordinate_update.
    if dry_run:
        finite = True
        for k in range(scaled_dloss.shape[0]):
            _, scale, theta, sum_abs, reward = _normalized_stepped(
                state, j, k, scaled_dloss[k], x, largest_x, initial_wealth
            )
            finite &= (
                math.isfinite(theta)
                and math.isfinite(sum_abs)
                and math.isfinite(reward)
                and math.isfinite(
                    normalized_bet(theta, sum_abs, reward, scale, initial_wealth)
                )
            )
        return finite
    for k in range(scaled_dloss.shape[0]):
        largest_dloss, _, theta, sum_abs, reward = _normalized_stepped(
            state, j, k, scaled_dloss[k], x, largest_x, initial_wealth
        )
        state[j, MAX_ABS_X, k] = largest_x
        state[j, MAX_ABS_DLOSS, k] = largest_dloss
        state[j, SUM_NEG_GRAD, k] = theta
        state[j, SUM_ABS_GRAD, k] = sum_abs
        state[j, REWARD, k] = reward
    return True


@jit
def _normalized_stepped(state, j, k, scaled_dloss, x, largest_x, initial_wealth):
    """Output k of row j's step: its largest |scaled derivative|, the scale and
    the new (theta, sum |g|, reward)."""
    largest_dloss = state[j, MAX_ABS_DLOSS, k]
    if abs(scaled_dloss) > largest_dloss:
        largest_dloss = max(abs(scaled_dloss), 1.0)
    scale = largest_dloss * largest_x
    theta = state[j, SUM_NEG_GRAD, k]
    sum_abs = state[j, SUM_ABS_GRAD, k]
    reward = state[j, REWARD, k]
    # The bet this round plays, under the scale that covers its gradient
    # (|g| <= scale keeps the wealth positive).
    bet = normalized_bet(theta, sum_abs, reward, scale, initial_wealth)
    g = scaled_dloss * x
    return largest_dloss, scale, theta - g, sum_abs + abs(g), reward - g * bet


@jit
def _normalized_row_update(
    data, indices, start, end, scaled_dloss, state, initial_wealth, intercept, dry_run
):
    """The row's coordinates (and the intercept, if ``intercept``) take their
    steps; with ``dry_run`` only compute. Return whether all are finite."""
    finite = True
    for p in range(start, end):
        finite &= _normalized_coordinate_update(
            state, np.int64(indices[p]), scaled_dloss, data[p], initial_wealth, dry_run
        )
    if intercept:
        finite &= _normalized_coordinate_update(
            state, state.shape[0] - 1, scaled_dloss, 1.0, initial_wealth, dry_run
        )
    return finite


@jit
def normalized_pass(
    data,
    indices,
    indptr,
    targets,
    row_weights,
    order,
    state,
    row_norms,
    row_scores,
    loss,
    epsilon,
    initial_wealth,
    fit_intercept,
    t0,
    avg_slot,
    a0,
):
    """One pass of normalised per-coordinate coin betting over the rows in
    ``order``; ``row_norms`` is updated in place with each applied row. With
    an ``avg_slot`` (not None) the iterates are averaged after round ``a0``
    (:func:`normalized_settle_row`); the first row is round ``t0 + 1``.

    A row is scored with the served weights before it (each bet over N), and
    its norm is measured against each feature's largest |x|, its own included.
    The bet each coordinate plays in the update is taken under the scale that
    covers the row's gradient. A row of weight 0 is scored and changes nothing.
    ``WEIGHT`` is not written: the estimator computes the served weights when
    it reads them.
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
        s = row_weights[i]
        # Score with the served weights (each bet over N, before this row), and
        # measure the row's norm against each feature's largest |x|, this one's
        # included.
        mean_norm = mean_row_norm(row_norms)
        for k in range(n_outputs):
            scores[k] = 0.0
        norm = 0.0
        max_abs_x = 0.0
        min_abs_x = math.inf
        max_state = 0.0
        for p in range(start, end + (1 if fit_intercept else 0)):
            if n_outputs > 1:
                prefetch_ahead(indices, p, end, state)
            j, x = (indices[p], data[p]) if p < end else (intercept_row, 1.0)
            largest_x = max(state[j, MAX_ABS_X, 0], abs(x))
            if largest_x > 0.0:
                norm += (x / largest_x) ** 2
            if x != 0.0:
                max_abs_x = max(max_abs_x, abs(x))
                min_abs_x = min(min_abs_x, abs(x))
            for k in range(n_outputs):
                bet = stored_bet(state, j, k, initial_wealth)
                scores[k] += x * (bet / mean_norm)
                max_state = max(
                    max_state,
                    state[j, SUM_ABS_GRAD, k],
                    initial_wealth + abs(state[j, REWARD, k]),
                )
        if record_scores:
            copy_values(scores, row_scores[pos])
        row_loss = row_derivatives(loss, epsilon, targets[i], scores, s, scaled_dloss)
        if not (all_finite(scores) and all_finite(scaled_dloss)):
            status = STATUS_NONFINITE_SCORE
            break
        t = t0 + pos + 1
        if avg_slot is not None:
            normalized_settle_row(
                indices,
                start,
                end,
                state,
                row_norms,
                avg_slot,
                initial_wealth,
                fit_intercept,
            )
        if s > 0.0:
            # G grows by |g|, the wealth at most doubles (|g| <= scale), and a
            # bet is at most the wealth over the coordinate's largest |x|. Rows
            # whose bound is large get a dry run first.
            largest = 0.0
            for k in range(n_outputs):
                largest = max(largest, abs(scaled_dloss[k]))
            bound = 2.0 * max_state + largest * max_abs_x
            if min_abs_x < math.inf:
                bound = max(bound, bound / min_abs_x)
            if not row_is_safe(scaled_dloss, max_abs_x, bound):
                finite = _normalized_row_update(
                    data,
                    indices,
                    start,
                    end,
                    scaled_dloss,
                    state,
                    initial_wealth,
                    fit_intercept,
                    DRY_RUN,
                )
                if not finite:
                    status = STATUS_NONFINITE_UPDATE
                    break
            _normalized_row_update(
                data,
                indices,
                start,
                end,
                scaled_dloss,
                state,
                initial_wealth,
                fit_intercept,
                APPLY,
            )
            row_norms[0] += s * norm
            row_norms[1] += s
        if avg_slot is not None:
            if t > a0:
                row_norms[PREFIX] += 1.0 / mean_row_norm(row_norms)
        loss_sum += s * row_loss
        rows_done += 1
    return loss_sum, rows_done, status
