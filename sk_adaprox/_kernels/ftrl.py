"""FTRL-Proximal kernels (McMahan et al. 2013, Algorithm 1; docs/ftrl.md).

State slots (the middle axis of the state array): ``WEIGHT``, ``N`` (n, the sum of
squared gradients) and ``Z`` (z). A weight is a closed form of its own z and n, so the
kernel rewrites a coordinate's ``WEIGHT`` slot whenever it updates that coordinate's z
and n: the slot is always current, a coordinate that no row touches never changes,
and a pass costs O(its non-zeros) whatever ``l1`` and ``l2`` are.

The kernels take ``inverse_alpha`` = 1 / alpha, so that a non-zero's update
multiplies where McMahan et al.'s Algorithm 1 divides by alpha (two divisions fewer
per non-zero); the estimator refuses an alpha whose reciprocal overflows.
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

N = 1
Z = 2


@jit
def weight(z, n, inverse_alpha, beta, l1, l2):
    """w = -(z - sign(z) l1) / ((beta + sqrt(n)) / alpha + l2), and 0 where |z| <= l1.

    Also 0 where the denominator is 0 (beta = l2 = 0 and every g**2 underflowed).
    """
    if abs(z) <= l1:
        return 0.0
    denominator = (beta + math.sqrt(n)) * inverse_alpha + l2
    if denominator == 0.0:
        return 0.0
    return -(z - math.copysign(l1, z)) / denominator


@jit
def step(w, z, n, g, inverse_alpha, beta, l1, l2):
    """One round of McMahan et al.'s Algorithm 1 for one coordinate whose current
    weight is ``w``; returns the new ``(w, z, n)``."""
    new_n = n + g * g
    sigma = (math.sqrt(new_n) - math.sqrt(n)) * inverse_alpha
    new_z = z + g - sigma * w
    return weight(new_z, new_n, inverse_alpha, beta, l1, l2), new_z, new_n


@jit
def weights_all(state, inverse_alpha, beta, l1, l2):
    """Write every coordinate's closed-form weight of its (z, n) into ``WEIGHT``
    (the intercept with l1 = l2 = 0). O(n_features): only when the parameters
    change between passes."""
    n_features = state.shape[0] - 1
    for j in range(n_features + 1):
        l1_j = l1 if j < n_features else 0.0
        l2_j = l2 if j < n_features else 0.0
        for k in range(state.shape[2]):
            state[j, WEIGHT, k] = weight(
                state[j, Z, k], state[j, N, k], inverse_alpha, beta, l1_j, l2_j
            )


@jit
def z_from_weights(state, inverse_alpha, beta, l1, l2):
    """Make every coordinate's z give the weight in its ``WEIGHT`` slot (which was
    assigned): ``z = -sign(w) (|w| D + l1)`` with D the denominator of
    :func:`weight`, and z clipped into ``[-l1, l1]`` where w = 0. A coordinate
    whose weight already is its z's is left alone. Return how many non-zero
    weights cannot be represented (D = 0); those get their z's weight back."""
    n_features = state.shape[0] - 1
    unrepresentable = 0
    for j in range(n_features + 1):
        l1_j = l1 if j < n_features else 0.0
        l2_j = l2 if j < n_features else 0.0
        for k in range(state.shape[2]):
            w = state[j, WEIGHT, k]
            z = state[j, Z, k]
            n = state[j, N, k]
            if weight(z, n, inverse_alpha, beta, l1_j, l2_j) == w:
                continue
            if w == 0.0:
                state[j, Z, k] = max(-l1_j, min(l1_j, z))
                continue
            denominator = (beta + math.sqrt(n)) * inverse_alpha + l2_j
            if denominator == 0.0:
                unrepresentable += 1
                state[j, WEIGHT, k] = weight(z, n, inverse_alpha, beta, l1_j, l2_j)
                continue
            state[j, Z, k] = -math.copysign(abs(w) * denominator + l1_j, w)
    return unrepresentable


@jit
def _row_update(
    data, indices, start, end, scaled_dloss, state, inverse_alpha, beta, l1, l2, dry_run
):
    """Apply round t's step to the row's features; with ``dry_run`` only compute it.
    Return whether every new value is finite."""
    finite = True
    for p in range(start, end):
        j = indices[p]
        x = data[p]
        for k in range(scaled_dloss.shape[0]):
            new_w, new_z, new_n = step(
                state[j, WEIGHT, k],
                state[j, Z, k],
                state[j, N, k],
                scaled_dloss[k] * x,
                inverse_alpha,
                beta,
                l1,
                l2,
            )
            if dry_run:
                finite &= (
                    math.isfinite(new_w)
                    and math.isfinite(new_z)
                    and math.isfinite(new_n)
                )
            else:
                state[j, WEIGHT, k] = new_w
                state[j, Z, k] = new_z
                state[j, N, k] = new_n
    return finite


@jit
def _intercept_update(scaled_dloss, intercept_state, inverse_alpha, beta, dry_run):
    """The intercept's step (``intercept_state`` is the state's last row): the same
    recursion with l1 = l2 = 0."""
    finite = True
    for k in range(scaled_dloss.shape[0]):
        new_b, new_z, new_n = step(
            intercept_state[WEIGHT, k],
            intercept_state[Z, k],
            intercept_state[N, k],
            scaled_dloss[k],
            inverse_alpha,
            beta,
            0.0,
            0.0,
        )
        if dry_run:
            finite &= (
                math.isfinite(new_b) and math.isfinite(new_z) and math.isfinite(new_n)
            )
        else:
            intercept_state[WEIGHT, k] = new_b
            intercept_state[Z, k] = new_z
            intercept_state[N, k] = new_n
    return finite


@jit
def _value_bound(
    scaled_dloss, max_abs_x, min_abs_x, max_abs_w, max_abs_z, inverse_alpha, beta
):
    """A bound on |sigma|, |z| and |w| of the row's coordinates in this round's step.

    With g the largest |gradient| of the row, sigma <= |g| / alpha, so
    |z'| <= |z| + |g| + sigma |w|; and n' >= g**2 for a coordinate whose gradient
    is non-zero, so |w'| <= alpha |z'| / (beta + |g|) with the smallest such |g|
    (coordinates with g == 0 keep their values). Infinite when that smallest
    gradient is 0 and beta == 0: such a row gets a dry run.
    """
    largest = 0.0
    smallest = math.inf
    for k in range(scaled_dloss.shape[0]):
        slope = abs(scaled_dloss[k])
        largest = max(largest, slope)
        if slope > 0.0:
            smallest = min(smallest, slope)
    sigma_bound = largest * max_abs_x * inverse_alpha
    z_bound = max_abs_z + largest * max_abs_x + sigma_bound * max_abs_w
    smallest_gradient = smallest * min_abs_x
    if beta + smallest_gradient == 0.0:
        return math.inf
    w_bound = z_bound / ((beta + smallest_gradient) * inverse_alpha)
    return max(sigma_bound, z_bound, w_bound)


@jit
def ftrl_pass(
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
    inverse_alpha,
    beta,
    l1,
    l2,
    fit_intercept,
    t0,
    avg_slot,
    a0,
):
    """One pass of FTRL-Proximal over the rows in ``order``.

    ``state`` has the slots ``WEIGHT``, ``N`` and ``Z``; ``WEIGHT`` holds each
    coordinate's closed-form weight of its (z, n), so scores read it directly.
    If ``row_scores`` has rows, ``row_scores[pos]`` receives the scores of the row
    visited at ``pos``, before its update. With an ``avg_slot`` (not None) the iterates
    are averaged after round ``a0`` (:mod:`.averaging`); the first row of the
    pass is round ``t0 + 1``.
    """
    n_outputs = state.shape[2]
    intercept_state = state[state.shape[0] - 1]
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
        # Score with the weights after round t - 1; note the bounds of the row.
        max_abs_x = 0.0
        min_abs_x = math.inf
        max_abs_w = 0.0
        max_abs_z = 0.0
        for k in range(n_outputs):
            scores[k] = intercept_state[WEIGHT, k]
            if fit_intercept:
                max_abs_x = 1.0
                min_abs_x = 1.0
                max_abs_w = max(max_abs_w, abs(scores[k]))
                max_abs_z = max(max_abs_z, abs(intercept_state[Z, k]))
        for p in range(start, end):
            if n_outputs > 1:
                prefetch_ahead(indices, p, end, state)
            j = indices[p]
            x = data[p]
            if x != 0.0:
                max_abs_x = max(max_abs_x, abs(x))
                min_abs_x = min(min_abs_x, abs(x))
            for k in range(n_outputs):
                w = state[j, WEIGHT, k]
                scores[k] += w * x
                max_abs_w = max(max_abs_w, abs(w))
                max_abs_z = max(max_abs_z, abs(state[j, Z, k]))
        if record_scores:
            copy_values(scores, row_scores[pos])
        row_loss = row_derivatives(
            loss, epsilon, targets[i], scores, row_weights[i], scaled_dloss
        )
        if not (all_finite(scores) and all_finite(scaled_dloss)):
            status = STATUS_NONFINITE_SCORE
            break
        bound = _value_bound(
            scaled_dloss,
            max_abs_x,
            min_abs_x,
            max_abs_w,
            max_abs_z,
            inverse_alpha,
            beta,
        )
        if not row_is_safe(scaled_dloss, max_abs_x, bound):
            finite = _row_update(
                data,
                indices,
                start,
                end,
                scaled_dloss,
                state,
                inverse_alpha,
                beta,
                l1,
                l2,
                DRY_RUN,
            )
            if fit_intercept:
                finite &= _intercept_update(
                    scaled_dloss, intercept_state, inverse_alpha, beta, DRY_RUN
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
            inverse_alpha,
            beta,
            l1,
            l2,
            APPLY,
        )
        if fit_intercept:
            _intercept_update(scaled_dloss, intercept_state, inverse_alpha, beta, APPLY)
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status


@jit
def _candidate_step_is_finite(
    data,
    indices,
    start,
    end,
    g_row,
    state,
    c,
    inverse_alpha,
    beta,
    l1,
    l2,
    fit_intercept,
):
    """The dry run of :func:`ftrl_pass` for candidate ``c`` of
    :func:`ftrl_candidates_pass` (the checks of :func:`_row_update` and
    :func:`_intercept_update` with ``dry_run``); ``g_row`` is its s_t * dl/dp."""
    finite = True
    for p in range(start, end):
        j = indices[p]
        new_w, new_z, new_n = step(
            state[j, WEIGHT, c],
            state[j, Z, c],
            state[j, N, c],
            g_row * data[p],
            inverse_alpha,
            beta,
            l1,
            l2,
        )
        finite &= math.isfinite(new_w) and math.isfinite(new_z) and math.isfinite(new_n)
    if fit_intercept:
        intercept_state = state[state.shape[0] - 1]
        new_b, new_z, new_n = step(
            intercept_state[WEIGHT, c],
            intercept_state[Z, c],
            intercept_state[N, c],
            g_row,
            inverse_alpha,
            beta,
            0.0,
            0.0,
        )
        finite &= math.isfinite(new_b) and math.isfinite(new_z) and math.isfinite(new_n)
    return finite


@jit
def ftrl_candidates_pass(
    data,
    indices,
    indptr,
    targets,
    row_weights,
    order,
    state,
    loss,
    epsilon,
    inverse_alphas,
    beta,
    l1s,
    l2,
    fit_intercept,
    loss_sums,
    rows_done,
    statuses,
):
    """:func:`ftrl_pass` for several candidate settings of a one-output model
    (binary classification, regression) side by side: one read of the rows for
    all of them (``alpha="auto"``, ``l1="auto"``).

    Candidate c has ``inverse_alphas[c]`` and ``l1s[c]`` and owns output c of
    ``state``. Each candidate computes exactly what :func:`ftrl_pass` computes for
    it alone; its ``(loss_sum, rows_done, status)`` go to ``loss_sums[c]``,
    ``rows_done[c]`` and ``statuses[c]``. A candidate whose status is not
    ``STATUS_OK`` (on entry, or after a row that would make it non-finite) is
    skipped from then on, and its state stays as it was before that row.
    """
    n_candidates = l1s.shape[0]
    intercept_state = state[state.shape[0] - 1]
    # Row c holds candidate c's one output: the helpers get C-contiguous rows.
    scores = np.empty((n_candidates, 1))
    scaled_dloss = np.empty((n_candidates, 1))
    max_abs_w = np.empty(n_candidates)
    max_abs_z = np.empty(n_candidates)
    learns = np.zeros(n_candidates, dtype=np.bool_)
    for pos in range(order.shape[0]):
        i = order[pos]
        start = indptr[i]
        end = indptr[i + 1]
        # Score with the weights after round t - 1; note the bounds of the row.
        max_abs_x = 1.0 if fit_intercept else 0.0
        min_abs_x = 1.0 if fit_intercept else math.inf
        for c in range(n_candidates):
            scores[c, 0] = intercept_state[WEIGHT, c]
            max_abs_w[c] = abs(scores[c, 0]) if fit_intercept else 0.0
            max_abs_z[c] = abs(intercept_state[Z, c]) if fit_intercept else 0.0
        for p in range(start, end):
            if n_candidates > 1:
                prefetch_ahead(indices, p, end, state)
            j = indices[p]
            x = data[p]
            if x != 0.0:
                max_abs_x = max(max_abs_x, abs(x))
                min_abs_x = min(min_abs_x, abs(x))
            for c in range(n_candidates):
                if statuses[c] != STATUS_OK:
                    continue
                w = state[j, WEIGHT, c]
                scores[c, 0] += w * x
                max_abs_w[c] = max(max_abs_w[c], abs(w))
                max_abs_z[c] = max(max_abs_z[c], abs(state[j, Z, c]))
        for c in range(n_candidates):
            learns[c] = False
            if statuses[c] != STATUS_OK:
                continue
            row_loss = row_derivatives(
                loss, epsilon, targets[i], scores[c], row_weights[i], scaled_dloss[c]
            )
            if not (all_finite(scores[c]) and all_finite(scaled_dloss[c])):
                statuses[c] = STATUS_NONFINITE_SCORE
                continue
            bound = _value_bound(
                scaled_dloss[c],
                max_abs_x,
                min_abs_x,
                max_abs_w[c],
                max_abs_z[c],
                inverse_alphas[c],
                beta,
            )
            if not row_is_safe(
                scaled_dloss[c], max_abs_x, bound
            ) and not _candidate_step_is_finite(
                data,
                indices,
                start,
                end,
                scaled_dloss[c, 0],
                state,
                c,
                inverse_alphas[c],
                beta,
                l1s[c],
                l2,
                fit_intercept,
            ):
                statuses[c] = STATUS_NONFINITE_UPDATE
                continue
            learns[c] = True
            loss_sums[c] += row_weights[i] * row_loss
            rows_done[c] += 1
        # Round t's step of every candidate that learns from the row: the
        # arithmetic of _row_update and _intercept_update.
        for p in range(start, end):
            j = indices[p]
            x = data[p]
            for c in range(n_candidates):
                if not learns[c]:
                    continue
                new_w, new_z, new_n = step(
                    state[j, WEIGHT, c],
                    state[j, Z, c],
                    state[j, N, c],
                    scaled_dloss[c, 0] * x,
                    inverse_alphas[c],
                    beta,
                    l1s[c],
                    l2,
                )
                state[j, WEIGHT, c] = new_w
                state[j, Z, c] = new_z
                state[j, N, c] = new_n
        if fit_intercept:
            for c in range(n_candidates):
                if not learns[c]:
                    continue
                new_b, new_z, new_n = step(
                    intercept_state[WEIGHT, c],
                    intercept_state[Z, c],
                    intercept_state[N, c],
                    scaled_dloss[c, 0],
                    inverse_alphas[c],
                    beta,
                    0.0,
                    0.0,
                )
                intercept_state[WEIGHT, c] = new_b
                intercept_state[Z, c] = new_z
                intercept_state[N, c] = new_n
