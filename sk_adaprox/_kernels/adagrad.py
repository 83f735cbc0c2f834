"""AdaGrad kernels (Duchi, Hazan & Singer 2011; docs/adagrad.md).

State slots (the middle axis of the state array): ``WEIGHT``, ``SUM_SQ_GRAD`` (G),
and for dual averaging ``SUM_GRAD`` (u); mirror descent with l1 or l2 keeps its
lazy bookkeeping in the slots of :mod:`.lazy`, which holds its proximal step.
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
from .lazy import (
    IDLE_DECAY,
    LAST_ROUND,
    has_weights,
    last_positive,
    md_begin_row,
    md_idle_decay,
    md_step,
    md_unmark_row,
)
from .prefetch import prefetch_ahead
from .sparse import csr_scorer, stored_weight

SUM_SQ_GRAD = 1
SUM_GRAD = 2  # dual averaging only


@jit
def _adaptive_scale(delta, sum_sq):
    """H = delta + sqrt(G), AdaGrad's per-coordinate denominator (Duchi et al. 2011)."""
    return delta + math.sqrt(sum_sq)


# ------------------------------------------------------------------------------
# AdaGrad, composite mirror descent (Duchi et al. 2011; docs/adagrad.md)
#
# The two update rules have one pass kernel each, with the same row skeleton: one
# kernel with a rule flag runs the mirror-descent pass slower and compiles both
# rules' helpers on the first fit (benchmarks/studies/NOTES.md, "Kernel layout").
# ------------------------------------------------------------------------------


@jit
def step_size(sum_sq, eta, delta):
    """eta / H, a coordinate's step size in composite mirror descent (Duchi, Hazan
    & Singer 2011; docs/adagrad.md, "Two update rules"); 0 where H == 0 (delta == 0
    and no gradient yet, so there is nothing to move)."""
    h = _adaptive_scale(delta, sum_sq)
    if h == 0.0:
        return 0.0
    return eta / h


@jit
def clip_to_box(w, bound):
    """``w`` clipped into ``[-bound, bound]``: the Euclidean projection onto the
    box, one coordinate at a time (a NaN stays NaN, for the divergence checks)."""
    if w > bound:
        return bound
    if w < -bound:
        return -bound
    return w


@jit
def _clip_row(indices, start, end, state, bound):
    """The weights of the row's features clipped into the box."""
    for p in range(start, end):
        j = indices[p]
        for k in range(state.shape[2]):
            state[j, WEIGHT, k] = clip_to_box(state[j, WEIGHT, k], bound)


@jit
def clip_weights(state, bound):
    """Every feature's weight (not the intercept's) clipped into the box."""
    for j in range(state.shape[0] - 1):
        for k in range(state.shape[2]):
            state[j, WEIGHT, k] = clip_to_box(state[j, WEIGHT, k], bound)


@jit
def md_start_lazy(state, t, eta, delta, l1, l2):
    """Every feature is current at round ``t``; record each coordinate's idle decay.

    A feature whose weights are all 0 is skipped (:func:`~.lazy.has_weights`)."""
    n_features = state.shape[0] - 1
    for j in range(n_features):
        if not has_weights(state, j):
            continue
        state[j, LAST_ROUND, 0] = t
        for k in range(state.shape[2]):
            step = step_size(state[j, SUM_SQ_GRAD, k], eta, delta)
            state[j, IDLE_DECAY, k] = md_idle_decay(step, l1, l2)


@jit
def _md_row_update(
    data,
    indices,
    start,
    end,
    scaled_dloss,
    state,
    eta,
    delta,
    l1,
    l2,
    bound,
    dry_run,
):
    """Apply round t's composite mirror-descent step to the row's features, each
    weight then clipped into ``[-bound, bound]``; with ``dry_run`` only compute it.
    Return whether every new value is finite. With l1 or l2, also record each updated
    coordinate's idle decay for its lazy catch-up."""
    regularized = l1 > 0.0 or l2 > 0.0
    # The box is applied after the row's steps, in a loop of its own: a test
    # inside the steps' loop cost 4 % of a regularised pass without a bound.
    bounded = bound < np.inf and not dry_run
    if scaled_dloss.shape[0] == 1 and not dry_run and not regularized:
        # The same arithmetic without the class loop and the proximal step.
        for p in range(start, end):
            j = indices[p]
            g = scaled_dloss[0] * data[p]
            new_sum_sq = state[j, SUM_SQ_GRAD, 0] + g * g
            state[j, SUM_SQ_GRAD, 0] = new_sum_sq
            state[j, WEIGHT, 0] -= step_size(new_sum_sq, eta, delta) * g
        if bounded:
            _clip_row(indices, start, end, state, bound)
        return True
    finite = True
    for p in range(start, end):
        j = indices[p]
        x = data[p]
        for k in range(scaled_dloss.shape[0]):
            g = scaled_dloss[k] * x
            new_sum_sq = state[j, SUM_SQ_GRAD, k] + g * g
            step = step_size(new_sum_sq, eta, delta)
            new_w = md_step(state[j, WEIGHT, k], g, step, l1, l2)
            if dry_run:
                finite &= math.isfinite(new_w) and math.isfinite(new_sum_sq)
            else:
                state[j, SUM_SQ_GRAD, k] = new_sum_sq
                state[j, WEIGHT, k] = new_w
                if regularized:
                    state[j, IDLE_DECAY, k] = md_idle_decay(step, l1, l2)
    if bounded:
        _clip_row(indices, start, end, state, bound)
    return finite


@jit
def _md_intercept_update(scaled_dloss, intercept_state, eta, delta, dry_run):
    """The intercept's step (``intercept_state`` is the state's last row): its own
    accumulator, never regularised."""
    finite = True
    for k in range(scaled_dloss.shape[0]):
        g = scaled_dloss[k]
        new_sum_sq = intercept_state[SUM_SQ_GRAD, k] + g * g
        step = step_size(new_sum_sq, eta, delta)
        new_b = md_step(intercept_state[WEIGHT, k], g, step, 0.0, 0.0)
        if dry_run:
            finite &= math.isfinite(new_b) and math.isfinite(new_sum_sq)
        else:
            intercept_state[SUM_SQ_GRAD, k] = new_sum_sq
            intercept_state[WEIGHT, k] = new_b
    return finite


@jit
def md_pass(
    data,
    indices,
    indptr,
    targets,
    row_weights,
    order,
    state,
    row_scores,
    t0,
    loss,
    epsilon,
    eta,
    delta,
    l1,
    l2,
    fit_intercept,
    avg_slot,
    a0,
    bound,
):
    """One pass of AdaGrad composite mirror descent over the rows in ``order``,
    every feature's weight kept in ``[-bound, bound]`` (``inf``: no bound; the
    intercept is never bounded).

    ``state`` has the slots ``WEIGHT`` and ``SUM_SQ_GRAD``. With l1 or l2 > 0,
    regularisation is lazy and the state also has ``LAST_ROUND`` (``[j,
    LAST_ROUND, 0]``: the last round whose step has been applied to feature j) and
    ``IDLE_DECAY`` (the coordinate's :func:`md_idle_decay` since then), which carry
    over between passes and calls (:func:`md_start_lazy` fills them). A feature's
    ``WEIGHT`` is its value at its last round; :func:`md_catch_up_all` or
    :func:`md_scores` give current values.
    If ``row_scores`` has rows, ``row_scores[pos]`` receives the scores of the row
    visited at ``pos``, before its update. With an ``avg_slot`` (not None) the iterates
    are averaged after round ``a0`` (:mod:`.averaging`, :func:`md_settle_row`).
    """
    n_outputs = state.shape[2]
    intercept_state = state[state.shape[0] - 1]
    regularized = l1 > 0.0 or l2 > 0.0
    record_scores = row_scores.shape[0] > 0
    scores = np.empty(n_outputs)
    scaled_dloss = np.empty(n_outputs)
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        t = t0 + pos + 1
        start = indptr[i]
        end = indptr[i + 1]
        # Score with the weights after round t - 1 (lazy shrink of the row's features).
        max_abs_x = 1.0 if fit_intercept else 0.0
        max_abs_w = 0.0
        for k in range(n_outputs):
            scores[k] = intercept_state[WEIGHT, k]
            max_abs_w = max(max_abs_w, abs(scores[k]))
        if regularized:
            md_begin_row(indices, start, end, state, avg_slot, t, a0, l1, l2)
        for p in range(start, end):
            j = indices[p]
            x = data[p]
            max_abs_x = max(max_abs_x, abs(x))
            if n_outputs == 1:
                w = state[j, WEIGHT, 0]
                scores[0] += w * x
                max_abs_w = max(max_abs_w, abs(w))
            else:
                prefetch_ahead(indices, p, end, state)
                for k in range(n_outputs):
                    w = state[j, WEIGHT, k]
                    scores[k] += w * x
                    max_abs_w = max(max_abs_w, abs(w))
        if record_scores:
            copy_values(scores, row_scores[pos])
        row_loss = row_derivatives(
            loss, epsilon, targets[i], scores, row_weights[i], scaled_dloss
        )
        if not (all_finite(scores) and all_finite(scaled_dloss)):
            status = STATUS_NONFINITE_SCORE
            break
        if not row_is_safe(scaled_dloss, max_abs_x, max_abs_w + eta):
            finite = _md_row_update(
                data,
                indices,
                start,
                end,
                scaled_dloss,
                state,
                eta,
                delta,
                l1,
                l2,
                bound,
                DRY_RUN,
            )
            if fit_intercept:
                finite &= _md_intercept_update(
                    scaled_dloss, intercept_state, eta, delta, DRY_RUN
                )
            if not finite:
                status = STATUS_NONFINITE_UPDATE
                break
        if avg_slot is not None:
            # The intercept, and unregularised features (constant when idle);
            # regularised features were settled before their catch-up.
            constant_settle_row(
                indices,
                start,
                start if regularized else end,
                state,
                avg_slot,
                t - 1,
                a0,
                fit_intercept,
            )
        _md_row_update(
            data,
            indices,
            start,
            end,
            scaled_dloss,
            state,
            eta,
            delta,
            l1,
            l2,
            bound,
            APPLY,
        )
        if fit_intercept:
            _md_intercept_update(scaled_dloss, intercept_state, eta, delta, APPLY)
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    if status != STATUS_OK and regularized:
        i = order[rows_done]
        md_unmark_row(indices, indptr[i], indptr[i + 1], state, t0 + rows_done + 1)
    return loss_sum, rows_done, status


# ------------------------------------------------------------------------------
# AdaGrad, regularized dual averaging (Duchi et al. 2011; docs/adagrad.md)
# ------------------------------------------------------------------------------


@jit
def da_weight(sum_grad, sum_sq, t, eta, delta, l1, l2):
    """w = -sign(u) * eta * max(|u| - t*l1, 0) / (H + eta*t*l2), 0 where u == 0.

    Also 0 where the denominator is 0 (delta = 0 and every g**2 underflowed).
    """
    if sum_grad == 0.0:
        return 0.0
    magnitude = abs(sum_grad) - t * l1
    if magnitude <= 0.0:
        return 0.0
    denominator = _adaptive_scale(delta, sum_sq) + eta * t * l2
    if denominator == 0.0:
        return 0.0
    return -math.copysign(eta * magnitude / denominator, sum_grad)


@jit
def da_weights_all(state, t, eta, delta, l1, l2):
    """Write the dual-averaging weights (Duchi et al.'s primal-dual update) after
    ``t`` rounds into every ``WEIGHT`` slot, the intercept's (never regularised)
    included."""
    n_features = state.shape[0] - 1
    for j in range(n_features + 1):
        l1_j = l1 if j < n_features else 0.0
        l2_j = l2 if j < n_features else 0.0
        for k in range(state.shape[2]):
            state[j, WEIGHT, k] = da_weight(
                state[j, SUM_GRAD, k],
                state[j, SUM_SQ_GRAD, k],
                t,
                eta,
                delta,
                l1_j,
                l2_j,
            )


@jit
def da_sum_grad_from_weights(state, t, eta, delta, l1, l2):
    """Make every coordinate's u give the weight in its ``WEIGHT`` slot (which was
    assigned) after ``t`` rounds: ``u = -sign(w) (|w| (H + eta t l2) / eta + t l1)``,
    the inverse of :func:`da_weight`, and u clipped into ``[-t l1, t l1]`` where
    w = 0. A coordinate whose weight already is its u's is left alone. Return how
    many non-zero weights cannot be represented (a zero denominator); those get
    their u's weight back."""
    n_features = state.shape[0] - 1
    unrepresentable = 0
    for j in range(n_features + 1):
        l1_j = l1 if j < n_features else 0.0
        l2_j = l2 if j < n_features else 0.0
        for k in range(state.shape[2]):
            w = state[j, WEIGHT, k]
            u = state[j, SUM_GRAD, k]
            sum_sq = state[j, SUM_SQ_GRAD, k]
            if da_weight(u, sum_sq, t, eta, delta, l1_j, l2_j) == w:
                continue
            if w == 0.0:
                state[j, SUM_GRAD, k] = max(-t * l1_j, min(t * l1_j, u))
                continue
            denominator = _adaptive_scale(delta, sum_sq) + eta * t * l2_j
            if denominator == 0.0:
                unrepresentable += 1
                state[j, WEIGHT, k] = da_weight(u, sum_sq, t, eta, delta, l1_j, l2_j)
                continue
            magnitude = abs(w) * denominator / eta + t * l1_j
            state[j, SUM_GRAD, k] = -math.copysign(magnitude, w)
    return unrepresentable


@jit
def _harmonic_sum(start, count):
    """sum_{i < count} 1 / (start + i) for start > 0: directly while the terms
    are few or ``start`` small, then as a difference of digammas by their
    asymptotic series (with log1p, so that a short sum far out keeps its digits)."""
    total = 0.0
    while count > 0.0 and (start < 10.0 or count <= 64.0):
        total += 1.0 / start
        start += 1.0
        count -= 1.0
    if count <= 0.0:
        return total
    end = start + count
    # psi(end) - psi(start), psi(z) ~ log z - 1/(2z) - sum B_2n / (2n z^2n).
    total += math.log1p(count / start) - 0.5 * (1.0 / end - 1.0 / start)
    coefficients = (1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132)
    end_power = start_power = 1.0
    for c in coefficients:
        end_power /= end * end
        start_power /= start * start
        total -= c * (end_power - start_power)
    return total


@jit
def da_idle_sum(sum_grad, sum_sq, first, last, eta, delta, l1, l2):
    """The sum of the dual-averaging weight of a coordinate with fixed (u, G) over
    rounds ``first`` to ``last``: ``-sign(u) eta`` times the sum of
    ``(|u| - t l1) / (H + eta t l2)`` over the rounds where ``|u| - t l1 > 0``,
    an arithmetic series (l2 = 0) or a constant plus a harmonic one."""
    if last < first or sum_grad == 0.0:
        return 0.0
    scale = _adaptive_scale(delta, sum_sq)
    magnitude = abs(sum_grad)
    if l1 > 0.0:
        last = last_positive(magnitude / l1, last)  # |u| - t l1 > 0
        if last < first:
            return 0.0
    rounds = last - first + 1.0
    if l2 == 0.0:
        if scale == 0.0:
            return 0.0
        total = (rounds * magnitude - l1 * rounds * (first + last) / 2.0) / scale
    else:
        # (|u| - t l1) / (H + D t) = -l1 / D + (|u| + l1 H / D) / (D (H / D + t)).
        slope = eta * l2
        offset = scale / slope
        total = -(l1 / slope) * rounds + (magnitude + l1 * offset) / slope * (
            _harmonic_sum(offset + first, rounds)
        )
    return -math.copysign(eta * total, sum_grad)


@jit
def _da_unsettled(state, j, k, avg_slot, t, a0, eta, delta, l1, l2):
    """The sum of coordinate (j, k)'s iterates over the averaged rounds since its
    settlement, up to t: its (u, G) have not changed since."""
    first = max(state[j, avg_slot + 1, k], a0) + 1.0
    return da_idle_sum(
        state[j, SUM_GRAD, k], state[j, SUM_SQ_GRAD, k], first, t, eta, delta, l1, l2
    )


@jit
def _da_settle(state, j, avg_slot, t, a0, eta, delta, l1, l2):
    """Settle coordinate row j up to round t (:mod:`.averaging`)."""
    for k in range(state.shape[2]):
        unsettled = _da_unsettled(state, j, k, avg_slot, t, a0, eta, delta, l1, l2)
        state[j, avg_slot, k] += unsettled
        state[j, avg_slot + 1, k] = t


@jit
def da_settle_row(
    indices, start, end, state, avg_slot, t, a0, eta, delta, l1, l2, intercept
):
    """Settle the row's features (and the unregularised intercept) up to t."""
    for p in range(start, end):
        _da_settle(state, np.int64(indices[p]), avg_slot, t, a0, eta, delta, l1, l2)
    if intercept:
        _da_settle(state, state.shape[0] - 1, avg_slot, t, a0, eta, delta, 0.0, 0.0)


@jit
def da_settle_all(state, avg_slot, t, a0, eta, delta, l1, l2):
    """Settle every coordinate up to round t: O(n_features)."""
    for j in range(state.shape[0] - 1):
        _da_settle(state, j, avg_slot, t, a0, eta, delta, l1, l2)
    _da_settle(state, state.shape[0] - 1, avg_slot, t, a0, eta, delta, 0.0, 0.0)


@jit
def _da_averaged(state, j, k, avg_slot, t, a0, eta, delta, l1, l2):
    """Coordinate (j, k)'s mean iterate over the averaged rounds up to t > a0
    (the intercept with l1 = l2 = 0)."""
    idle = _da_unsettled(state, j, k, avg_slot, t, a0, eta, delta, l1, l2)
    return (state[j, avg_slot, k] + idle) / (t - a0)


@jit
def da_averaged_all(state, avg_slot, t, a0, eta, delta, l1, l2, out):
    """``out[j, k]``: every coordinate's mean iterate up to round t > a0."""
    intercept_row = state.shape[0] - 1
    for j in range(state.shape[0]):
        rate1, rate2 = (0.0, 0.0) if j == intercept_row else (l1, l2)
        for k in range(state.shape[2]):
            out[j, k] = _da_averaged(
                state, j, k, avg_slot, t, a0, eta, delta, rate1, rate2
            )


@jit
def _da_averaged_weight(state, j, k, arguments):
    avg_slot, t, a0, eta, delta, l1, l2 = arguments
    return _da_averaged(state, j, k, avg_slot, t, a0, eta, delta, l1, l2)


@jit
def _da_averaged_intercept(state, j, k, arguments):
    avg_slot, t, a0, eta, delta, _, _ = arguments
    return _da_averaged(state, j, k, avg_slot, t, a0, eta, delta, 0.0, 0.0)


_da_averaged_scores = csr_scorer(_da_averaged_weight, _da_averaged_intercept)


@jit
def da_averaged_scores(
    data, indices, indptr, state, avg_slot, t, a0, eta, delta, l1, l2, out
):
    """Scores of CSR rows with the mean iterates at round t (the intercept is
    never regularised)."""
    arguments = (avg_slot, t, a0, eta, delta, l1, l2)
    _da_averaged_scores(data, indices, indptr, state, arguments, out)


@jit
def _da_row_update(
    data, indices, start, end, scaled_dloss, state, t, eta, delta, l1, l2, dry_run
):
    """Add round t's gradients to the row's features' u and G; keep the weights
    current when unregularised (regularised weights are written at the end of the
    pass). With ``dry_run`` only compute. Return whether every new value is finite."""
    regularized = l1 > 0.0 or l2 > 0.0
    finite = True
    for p in range(start, end):
        j = indices[p]
        x = data[p]
        for k in range(scaled_dloss.shape[0]):
            g = scaled_dloss[k] * x
            new_sum = state[j, SUM_GRAD, k] + g
            new_sum_sq = state[j, SUM_SQ_GRAD, k] + g * g
            if dry_run:
                # |w| only shrinks as t grows, so checking it now covers every later t.
                new_w = da_weight(new_sum, new_sum_sq, t, eta, delta, l1, l2)
                finite &= math.isfinite(new_w) and math.isfinite(new_sum_sq)
            else:
                state[j, SUM_GRAD, k] = new_sum
                state[j, SUM_SQ_GRAD, k] = new_sum_sq
                if not regularized:
                    state[j, WEIGHT, k] = da_weight(
                        new_sum, new_sum_sq, t, eta, delta, 0.0, 0.0
                    )
    return finite


@jit
def _da_intercept_update(scaled_dloss, intercept_state, t, eta, delta, dry_run):
    """The intercept's step (``intercept_state`` is the state's last row), never
    regularised."""
    finite = True
    for k in range(scaled_dloss.shape[0]):
        g = scaled_dloss[k]
        new_sum = intercept_state[SUM_GRAD, k] + g
        new_sum_sq = intercept_state[SUM_SQ_GRAD, k] + g * g
        new_b = da_weight(new_sum, new_sum_sq, t, eta, delta, 0.0, 0.0)
        if dry_run:
            finite &= math.isfinite(new_b) and math.isfinite(new_sum_sq)
        else:
            intercept_state[SUM_GRAD, k] = new_sum
            intercept_state[SUM_SQ_GRAD, k] = new_sum_sq
            intercept_state[WEIGHT, k] = new_b
    return finite


@jit
def da_pass(
    data,
    indices,
    indptr,
    targets,
    row_weights,
    order,
    state,
    row_scores,
    t0,
    loss,
    epsilon,
    eta,
    delta,
    l1,
    l2,
    fit_intercept,
    avg_slot,
    a0,
):
    """One pass of AdaGrad regularized dual averaging over the rows in ``order``.

    ``state`` has the slots ``WEIGHT``, ``SUM_SQ_GRAD`` and ``SUM_GRAD``. The weights
    are a function of (u, G, t). Without l1/l2 a weight changes only when its feature
    is touched, so it is kept current row by row; with l1 or l2 every weight moves
    with t, so the pass computes each weight when it reads it and leaves ``WEIGHT``
    alone (:func:`da_weights_all` or :func:`da_scores` give current values).
    ``row_scores`` as in :func:`md_pass`. With an ``avg_slot`` (not None) the
    iterates are averaged after round ``a0`` (:func:`da_settle_row`).
    """
    n_outputs = state.shape[2]
    intercept_state = state[state.shape[0] - 1]
    regularized = l1 > 0.0 or l2 > 0.0
    record_scores = row_scores.shape[0] > 0
    scores = np.empty(n_outputs)
    scaled_dloss = np.empty(n_outputs)
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        t = t0 + pos + 1
        start = indptr[i]
        end = indptr[i + 1]
        max_abs_x = 1.0 if fit_intercept else 0.0
        for k in range(n_outputs):
            scores[k] = intercept_state[WEIGHT, k]
        for p in range(start, end):
            if n_outputs > 1:
                prefetch_ahead(indices, p, end, state)
            j = indices[p]
            x = data[p]
            max_abs_x = max(max_abs_x, abs(x))
            for k in range(n_outputs):
                if regularized:
                    w = da_weight(
                        state[j, SUM_GRAD, k],
                        state[j, SUM_SQ_GRAD, k],
                        t - 1,
                        eta,
                        delta,
                        l1,
                        l2,
                    )
                else:
                    w = state[j, WEIGHT, k]
                scores[k] += w * x
        if record_scores:
            copy_values(scores, row_scores[pos])
        row_loss = row_derivatives(
            loss, epsilon, targets[i], scores, row_weights[i], scaled_dloss
        )
        if not (all_finite(scores) and all_finite(scaled_dloss)):
            status = STATUS_NONFINITE_SCORE
            break
        # |u| <= sqrt(t * G) (Cauchy-Schwarz), so |w| <= eta * sqrt(t).
        if not row_is_safe(scaled_dloss, max_abs_x, eta * math.sqrt(t)):
            finite = _da_row_update(
                data,
                indices,
                start,
                end,
                scaled_dloss,
                state,
                t,
                eta,
                delta,
                l1,
                l2,
                DRY_RUN,
            )
            if fit_intercept:
                finite &= _da_intercept_update(
                    scaled_dloss, intercept_state, t, eta, delta, DRY_RUN
                )
            if not finite:
                status = STATUS_NONFINITE_UPDATE
                break
        if avg_slot is not None:
            da_settle_row(
                indices,
                start,
                end,
                state,
                avg_slot,
                t - 1,
                a0,
                eta,
                delta,
                l1,
                l2,
                fit_intercept,
            )
        _da_row_update(
            data,
            indices,
            start,
            end,
            scaled_dloss,
            state,
            t,
            eta,
            delta,
            l1,
            l2,
            APPLY,
        )
        if fit_intercept:
            _da_intercept_update(scaled_dloss, intercept_state, t, eta, delta, APPLY)
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status


@jit
def _da_candidate_step_is_finite(
    data, indices, start, end, g_row, state, c, t, eta, delta, l1, l2, fit_intercept
):
    """The dry run of :func:`da_pass` for candidate ``c`` of
    :func:`da_candidates_pass` (the checks of :func:`_da_row_update` and
    :func:`_da_intercept_update` with ``dry_run``); ``g_row`` is its s_t * dl/dp."""
    finite = True
    for p in range(start, end):
        j = indices[p]
        g = g_row * data[p]
        new_sum = state[j, SUM_GRAD, c] + g
        new_sum_sq = state[j, SUM_SQ_GRAD, c] + g * g
        new_w = da_weight(new_sum, new_sum_sq, t, eta, delta, l1, l2)
        finite &= math.isfinite(new_w) and math.isfinite(new_sum_sq)
    if fit_intercept:
        intercept_state = state[state.shape[0] - 1]
        new_sum = intercept_state[SUM_GRAD, c] + g_row
        new_sum_sq = intercept_state[SUM_SQ_GRAD, c] + g_row * g_row
        new_b = da_weight(new_sum, new_sum_sq, t, eta, delta, 0.0, 0.0)
        finite &= math.isfinite(new_b) and math.isfinite(new_sum_sq)
    return finite


@jit
def da_candidates_pass(
    data,
    indices,
    indptr,
    targets,
    row_weights,
    order,
    state,
    t0,
    loss,
    epsilon,
    etas,
    delta,
    l1s,
    l2,
    fit_intercept,
    loss_sums,
    rows_done,
    statuses,
):
    """:func:`da_pass` for several candidate settings of a one-output model
    (binary classification, regression) side by side: one read of the rows for
    all of them (``eta="auto"``, ``l1="auto"``).

    Candidate c has ``etas[c]`` and ``l1s[c]`` and owns output c of ``state``, so
    a non-zero touches one block of memory for all candidates. Each candidate
    computes exactly what :func:`da_pass` computes for it alone: its
    ``(loss_sum, rows_done, status)`` go to ``loss_sums[c]``, ``rows_done[c]``
    and ``statuses[c]``. A candidate whose status is not ``STATUS_OK`` (on entry,
    or after a row that would make it non-finite) is skipped from then on, and
    its state stays as it was before that row.
    """
    n_candidates = etas.shape[0]
    intercept_state = state[state.shape[0] - 1]
    # Row c holds candidate c's one output: the helpers get C-contiguous rows.
    scores = np.empty((n_candidates, 1))
    scaled_dloss = np.empty((n_candidates, 1))
    learns = np.zeros(n_candidates, dtype=np.bool_)
    for pos in range(order.shape[0]):
        i = order[pos]
        t = t0 + pos + 1
        start = indptr[i]
        end = indptr[i + 1]
        max_abs_x = 1.0 if fit_intercept else 0.0
        for c in range(n_candidates):
            scores[c, 0] = intercept_state[WEIGHT, c]
        for p in range(start, end):
            if n_candidates > 1:
                prefetch_ahead(indices, p, end, state)
            j = indices[p]
            x = data[p]
            max_abs_x = max(max_abs_x, abs(x))
            for c in range(n_candidates):
                if statuses[c] != STATUS_OK:
                    continue
                if l1s[c] > 0.0 or l2 > 0.0:
                    w = da_weight(
                        state[j, SUM_GRAD, c],
                        state[j, SUM_SQ_GRAD, c],
                        t - 1,
                        etas[c],
                        delta,
                        l1s[c],
                        l2,
                    )
                else:
                    w = state[j, WEIGHT, c]
                scores[c, 0] += w * x
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
            if not row_is_safe(
                scaled_dloss[c], max_abs_x, etas[c] * math.sqrt(t)
            ) and not _da_candidate_step_is_finite(
                data,
                indices,
                start,
                end,
                scaled_dloss[c, 0],
                state,
                c,
                t,
                etas[c],
                delta,
                l1s[c],
                l2,
                fit_intercept,
            ):
                statuses[c] = STATUS_NONFINITE_UPDATE
                continue
            learns[c] = True
            loss_sums[c] += row_weights[i] * row_loss
            rows_done[c] += 1
        # Round t's update of every candidate that learns from the row: the
        # arithmetic of _da_row_update and _da_intercept_update.
        for p in range(start, end):
            j = indices[p]
            x = data[p]
            for c in range(n_candidates):
                if not learns[c]:
                    continue
                g = scaled_dloss[c, 0] * x
                new_sum = state[j, SUM_GRAD, c] + g
                new_sum_sq = state[j, SUM_SQ_GRAD, c] + g * g
                state[j, SUM_GRAD, c] = new_sum
                state[j, SUM_SQ_GRAD, c] = new_sum_sq
                if l1s[c] == 0.0 and l2 == 0.0:
                    state[j, WEIGHT, c] = da_weight(
                        new_sum, new_sum_sq, t, etas[c], delta, 0.0, 0.0
                    )
        if fit_intercept:
            for c in range(n_candidates):
                if not learns[c]:
                    continue
                g = scaled_dloss[c, 0]
                new_sum = intercept_state[SUM_GRAD, c] + g
                new_sum_sq = intercept_state[SUM_SQ_GRAD, c] + g * g
                intercept_state[SUM_GRAD, c] = new_sum
                intercept_state[SUM_SQ_GRAD, c] = new_sum_sq
                intercept_state[WEIGHT, c] = da_weight(
                    new_sum, new_sum_sq, t, etas[c], delta, 0.0, 0.0
                )


# ------------------------------------------------------------------------------
# Scores with lazy weights: the current values, computed without writing them
# ------------------------------------------------------------------------------


@jit
def _da_current_weight(state, j, k, arguments):
    """Feature j's weight: the closed form of its (u, G) after t rounds."""
    t, eta, delta, l1, l2 = arguments
    sum_grad, sum_sq_grad = state[j, SUM_GRAD, k], state[j, SUM_SQ_GRAD, k]
    return da_weight(sum_grad, sum_sq_grad, t, eta, delta, l1, l2)


_da_scores = csr_scorer(_da_current_weight, stored_weight)


@jit
def da_scores(data, indices, indptr, state, t, eta, delta, l1, l2, out):
    """Scores of CSR rows for regularised dual averaging: each weight the closed
    form of its (u, G) after ``t`` rounds."""
    _da_scores(data, indices, indptr, state, (t, eta, delta, l1, l2), out)
