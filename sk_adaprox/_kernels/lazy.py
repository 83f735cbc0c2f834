"""Composite mirror descent's proximal step, and its lazy form for idle coordinates.

A composite mirror-descent step moves a coordinate by its gradient step, then
applies the L1/L2 proximal step: |w| loses ``step * l1`` and is divided by
``1 + step * l2``. AdaGrad's mirror descent (Duchi et al. 2011, step eta/H) and
diagonal ONS with ``l1`` (docs/ons.md, step 1/(gamma A_ii)) share it. A row
leaves most coordinates idle (g = 0), where the step size does not change, so
their proximal steps are deferred: each feature records the round of its last
update and what one idle round does to it, and the skipped rounds are applied in
closed form when the feature is next touched, read or scored.

The bookkeeping takes two state slots after ``WEIGHT`` (0) and ``SUM_SQ_GRAD``
(1), in each feature's block so that a non-zero touches one block of memory.
"""

import math

import numpy as np

from ._jit import jit
from .averaging import constant_averaged, constant_settle
from .common import WEIGHT
from .sparse import csr_scorer, stored_weight

LAST_ROUND = 2  # the round of the feature's last update (output 0 holds it)
IDLE_DECAY = 3  # md_idle_decay of each output since then


@jit
def md_step(w, g, step, l1, l2):
    """One composite mirror-descent step for one coordinate, with ``step`` its step
    size after this round's gradient (AdaGrad's eta/H from the G that already
    includes g**2; diagonal ONS's 1 / (gamma (eps + G))).

    Written with v = w - step*g, which equals the paper's (H*w - eta*g)/H but
    cannot overflow through H*w; then w <- sign(v) max(|v| - step*l1, 0)/(1 + step*l2),
    which is the proximal step max(|v| - eta*l1/H, 0) * H/(H + eta*l2).
    """
    v = w - step * g
    if l1 == 0.0 and l2 == 0.0:
        return v
    magnitude = abs(v) - step * l1
    if magnitude <= 0.0:
        return 0.0
    return math.copysign(magnitude / (1.0 + step * l2), v)


# Below these arguments the Taylor series in _log1p and _expm1_of_negative are as
# good as libm: the first omitted term is under 1e-20 of the result, and rounding
# keeps them within 2 ulps of it (tests/test_adagrad_vs_reference.py).
_LOG1P_SERIES_LIMIT = 1e-4
_EXPM1_SERIES_LIMIT = 1.0 / 64.0


@jit
def _log1p(q):
    """log(1 + q) for q >= 0; below the limit a Taylor series (4x cheaper than libm)."""
    if q < _LOG1P_SERIES_LIMIT:
        return q * (1.0 - q * (1.0 / 2 - q * (1.0 / 3 - q * (1.0 / 4 - q * (1.0 / 5)))))
    return math.log1p(q)


@jit
def _expm1_of_negative(x):
    """exp(-x) - 1 for x >= 0; below the limit a Taylor series (4x cheaper than libm).

    -x + x**2/2! - ... + x**8/8!, summed in pairs (Estrin's scheme) so that the
    chain of dependent multiplications stays short.
    """
    if x < _EXPM1_SERIES_LIMIT:
        x2 = x * x
        low = (-1.0 + x * (1.0 / 2)) + x2 * (-1.0 / 6 + x * (1.0 / 24))
        high = (-1.0 / 120 + x * (1.0 / 720)) + x2 * (-1.0 / 5040 + x * (1.0 / 40320))
        return x * (low + (x2 * x2) * high)
    return math.expm1(-x)


@jit
def md_idle_decay(step, l1, l2):
    """What one gradient-free composite mirror-descent round does to a coordinate
    with this step size.

    With l2 > 0: -log r = log1p(step*l2), r the factor |w| + l1/l2 shrinks by per
    round. With l2 == 0: a = step*l1, the amount |w| loses per round. The lazy
    catch-up stores it when the step size changes, so it is computed once per
    update rather than once per catch-up.
    """
    if l2 == 0.0:
        return step * l1
    return _log1p(step * l2)


@jit
def has_weights(state, j):
    """Whether feature j has a non-zero weight (any output).

    Idle rounds leave a zero weight at zero (:func:`md_skip`, :func:`md_idle_sum`),
    and a feature's next step records its round and decay anew, so a feature
    whose weights are all 0 needs neither: the sweeps that record them for every
    feature (when training starts or its parameters change) skip it. A state
    that a few rows touched, out of millions of hashed features, then stays
    unwritten, and unallocated where its memory is (:func:`.._state.on_small_pages`).
    """
    for k in range(state.shape[2]):
        if state[j, WEIGHT, k] != 0.0:
            return True
    return False


@jit
def md_skip(w, idle_decay, n_rounds, l1, l2):
    """Apply ``n_rounds`` gradient-free composite mirror-descent steps at once (the
    lazy closed form).

    With g = 0 one step is |w| <- r*(|w| - a), with a = step*l1 and
    r = 1/(1 + step*l2), clipped at 0. Unrolled over k steps:
    |w| <- r^k |w| - a*r*(1 - r^k)/(1 - r), and a*r/(1 - r) = l1/l2. ``idle_decay``
    is :func:`md_idle_decay` of the coordinate's step size; r^k and
    1 - r^k come from exp or expm1, whichever keeps both within an ulp or two.
    """
    if w == 0.0 or n_rounds <= 0:
        return w
    magnitude = abs(w)
    if l2 == 0.0:
        magnitude -= n_rounds * idle_decay
    else:
        minus_log_r_power_k = n_rounds * idle_decay
        if minus_log_r_power_k < 0.5:
            one_minus_r_power_k = -_expm1_of_negative(minus_log_r_power_k)
            r_power_k = 1.0 - one_minus_r_power_k
        else:
            r_power_k = math.exp(-minus_log_r_power_k)
            one_minus_r_power_k = 1.0 - r_power_k
        magnitude = r_power_k * magnitude - (l1 / l2) * one_minus_r_power_k
    if magnitude <= 0.0:
        return 0.0
    return math.copysign(magnitude, w)


@jit
def last_positive(zero, last):
    """The last round up to ``last`` (a round count) before ``zero``, the round
    where a decaying weight reaches 0: ``ceil(zero) - 1`` where it binds."""
    if zero < last + 1.0:
        return math.ceil(zero) - 1.0
    return last


@jit
def md_idle_sum(w, idle_decay, first, last, l1, l2):
    """The sum of :func:`md_skip` of ``w`` over k = ``first`` to ``last`` skipped
    rounds (k = 0 is ``w`` itself): an arithmetic series (l2 = 0) or a geometric
    one, each up to the round the weight reaches 0."""
    if last < first or w == 0.0:
        return 0.0
    magnitude = abs(w)
    if l2 == 0.0:
        if idle_decay > 0.0:
            last = last_positive(magnitude / idle_decay, last)
            if last < first:
                return 0.0
        rounds = last - first + 1.0
        total = rounds * magnitude - idle_decay * rounds * (first + last) / 2.0
    else:
        # |w_k| = r^k (|w| + l1/l2) - l1/l2 with r = exp(-idle_decay).
        floor = l1 / l2
        if floor > 0.0 and idle_decay > 0.0:
            last = last_positive(math.log1p(magnitude / floor) / idle_decay, last)
            if last < first:
                return 0.0
        rounds = last - first + 1.0
        if idle_decay == 0.0:
            geometric = rounds
        else:
            geometric = (
                math.exp(-first * idle_decay)
                * math.expm1(-rounds * idle_decay)
                / math.expm1(-idle_decay)
            )
        total = (magnitude + floor) * geometric - floor * rounds
    return math.copysign(max(total, 0.0), w)


@jit
def _md_unsettled(state, j, k, avg_slot, t, a0, l1, l2):
    """The sum of lazily regularised feature j's iterates (output k) over the
    averaged rounds since its settlement, up to t: its weight is ``WEIGHT`` at
    its ``LAST_ROUND`` and decays since."""
    last_round = state[j, LAST_ROUND, 0]
    first = max(state[j, avg_slot + 1, k], a0) + 1.0
    return md_idle_sum(
        state[j, WEIGHT, k],
        state[j, IDLE_DECAY, k],
        first - last_round,
        t - last_round,
        l1,
        l2,
    )


@jit
def _md_settle(state, j, avg_slot, t, a0, l1, l2):
    """Settle lazily regularised feature j up to round t (:mod:`.averaging`)."""
    for k in range(state.shape[2]):
        state[j, avg_slot, k] += _md_unsettled(state, j, k, avg_slot, t, a0, l1, l2)
        state[j, avg_slot + 1, k] = t


@jit
def md_settle_row(indices, start, end, state, avg_slot, t, a0, l1, l2, intercept):
    """Settle the row's features (lazily regularised) and the intercept up to t."""
    for p in range(start, end):
        _md_settle(state, np.int64(indices[p]), avg_slot, t, a0, l1, l2)
    if intercept:
        constant_settle(state, state.shape[0] - 1, avg_slot, t, a0)


@jit
def md_settle_all(state, avg_slot, t, a0, l1, l2):
    """Settle every coordinate up to round t: O(n_features)."""
    for j in range(state.shape[0] - 1):
        _md_settle(state, j, avg_slot, t, a0, l1, l2)
    constant_settle(state, state.shape[0] - 1, avg_slot, t, a0)


@jit
def _md_averaged_feature(state, j, k, arguments):
    """Feature j's mean iterate of output k over the averaged rounds up to
    t > a0, ``arguments=(avg_slot, t, a0, l1, l2)``."""
    avg_slot, t, a0, l1, l2 = arguments
    idle = _md_unsettled(state, j, k, avg_slot, t, a0, l1, l2)
    return (state[j, avg_slot, k] + idle) / (t - a0)


@jit
def _md_averaged_intercept(state, j, k, arguments):
    """The intercept's mean iterate (never regularised: constant while idle)."""
    avg_slot, t, a0, _, _ = arguments
    return constant_averaged(state, j, k, avg_slot, t, a0)


@jit
def md_averaged_all(state, avg_slot, t, a0, l1, l2, out):
    """``out[j, k]``: every coordinate's mean iterate up to round t > a0."""
    arguments = (avg_slot, t, a0, l1, l2)
    intercept_row = state.shape[0] - 1
    for j in range(intercept_row):
        for k in range(state.shape[2]):
            out[j, k] = _md_averaged_feature(state, j, k, arguments)
    for k in range(state.shape[2]):
        out[intercept_row, k] = _md_averaged_intercept(
            state, intercept_row, k, arguments
        )


_md_averaged_scores = csr_scorer(_md_averaged_feature, _md_averaged_intercept)


@jit
def md_averaged_scores(data, indices, indptr, state, avg_slot, t, a0, l1, l2, out):
    """Scores of CSR rows with the mean iterates at round t."""
    arguments = (avg_slot, t, a0, l1, l2)
    _md_averaged_scores(data, indices, indptr, state, arguments, out)


@jit
def md_catch_up_all(state, t, l1, l2):
    """Bring every weight up to round ``t`` (end of a pass: the weights are then
    exact). The intercept is never regularised, so never behind."""
    n_features = state.shape[0] - 1
    for j in range(n_features):
        skipped = t - state[j, LAST_ROUND, 0]
        if skipped > 0:
            for k in range(state.shape[2]):
                state[j, WEIGHT, k] = md_skip(
                    state[j, WEIGHT, k], state[j, IDLE_DECAY, k], skipped, l1, l2
                )
        state[j, LAST_ROUND, 0] = t


@jit
def md_catch_up_row(indices, start, end, state, t, l1, l2):
    """Bring the row's features up to round t - 1 and mark them as at round t.

    Round t's step follows; if the row is rejected instead, md_pass marks its
    features as at round t - 1 again. A loop of its own, apart from the scoring
    loop, and the inner loop of md_catch_up_all written again: both keep the
    passes faster than the shared alternatives did when measured.
    """
    for p in range(start, end):
        j = indices[p]
        skipped = t - 1 - state[j, LAST_ROUND, 0]
        if skipped > 0:
            for k in range(state.shape[2]):
                state[j, WEIGHT, k] = md_skip(
                    state[j, WEIGHT, k], state[j, IDLE_DECAY, k], skipped, l1, l2
                )
        state[j, LAST_ROUND, 0] = t


@jit
def md_begin_row(indices, start, end, state, avg_slot, t, a0, l1, l2):
    """Before round t's step on a row: settle its features' sums of iterates up to
    round t - 1 (with an ``avg_slot``, not None), then bring them to round t - 1
    and mark them as at round t (:func:`md_catch_up_row`)."""
    if avg_slot is not None:
        md_settle_row(indices, start, end, state, avg_slot, t - 1, a0, l1, l2, False)
    md_catch_up_row(indices, start, end, state, t, l1, l2)


@jit
def md_unmark_row(indices, start, end, state, t):
    """Undo :func:`md_begin_row`'s mark for a row rejected at round t: its features
    are at round t - 1, where they were caught up to (round t did not happen)."""
    for p in range(start, end):
        state[indices[p], LAST_ROUND, 0] = t - 1


@jit
def _caught_up_weight(state, j, k, arguments):
    """Feature j's weight brought from its last round to round t."""
    t, l1, l2 = arguments
    skipped = t - state[j, LAST_ROUND, 0]
    return md_skip(state[j, WEIGHT, k], state[j, IDLE_DECAY, k], skipped, l1, l2)


_md_scores = csr_scorer(_caught_up_weight, stored_weight)


@jit
def md_scores(data, indices, indptr, state, t, l1, l2, out):
    """Scores of CSR rows for mirror descent with lazy l1/l2: each weight is
    brought from its last round to round ``t`` on the fly (the state is not
    written), the scores of the caught-up model (the intercept is never
    behind)."""
    _md_scores(data, indices, indptr, state, (t, l1, l2), out)
