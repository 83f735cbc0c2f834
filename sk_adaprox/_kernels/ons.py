"""Online Newton Step kernels (Hazan, Agarwal & Kale 2007; docs/ons.md).

Every output k is its own ONS problem over the d + 1 coordinates (features, then the
intercept, whose feature is 1 when fitted and 0 otherwise). A row of weight s with
loss derivative d has gradient ``g = s d x~`` (``c = s d`` is the kernels' scaled
derivative), and the round does

    A <- A + s h h^T (h = d x~);   w' = w - (1/gamma) A^{-1} g;
    w = argmin_{|w| <= D} |w - w'|_A

The weight enters A once, not squared (``g g^T = s^2 h h^T``): a row of weight s acts
on A as s rows would, so weighting a row up never shrinks its steps (docs/ons.md,
"Sample weights"). With s = 1 this is the paper's update.

Every variant learns in the units of the features divided by sqrt(m), m the
running weighted mean square of the non-zero feature values (:func:`scale_with_row`,
docs/ons.md, "The features' scale"), so that eps means the same whatever the
features' units; the intercept's feature stays 1. The diagonal's and the sketch's
steps on a loss of the residual follow the loss along their direction
(:mod:`.flow`). The three variants differ in how they keep A:

- ``full_pass``: A^{-1} itself, shape (K, d + 1, d + 1), by Sherman-Morrison.
- ``diag_pass``: A's diagonal, kept as ``eps m + G`` with G in the state's
  ``SUM_SQ_GRAD`` slot (so a change of eps needs no rewrite); a row's step uses
  that diagonal plus the row's own outer product (Sherman-Morrison). With
  ``l1`` > 0 the step is composite (docs/ons.md, "l1"): each coordinate then loses
  ``l1 sqrt(m) / (gamma A_ii)`` of its magnitude per round, lazily for idle
  coordinates (:mod:`.lazy`), at the m of its last update.
- ``sketch_pass``: a Frequent Directions sketch S (2m rows) with A = eps I + S^T S,
  applied through the Woodbury identity with H = (eps I + S S^T)^{-1}.

Weights are the state's ``WEIGHT`` slot in every variant, so scoring is shared.

A row is applied only when its update is known to be finite. Whatever A is, it
contains ``eps I + s h h^T``, so ``|A^{-1} g| <= sqrt(s) / (2 sqrt(eps))``: a step
moves the weights by at most ``sqrt(s) / (gamma sqrt(eps))``. With gradients below
``SAFE_GRADIENT`` (their squares do not overflow) and that bound below
``SAFE_WEIGHT``, every value of the round is finite; other rows get a dry run (diag)
or are computed into buffers before being written (full), and the sketch, whose
round rewrites the whole sketch, refuses them as not finite.
"""

import math

import numpy as np

from ._jit import jit
from .averaging import constant_settle_all, constant_settle_row
from .common import (
    APPLY,
    DRY_RUN,
    STATUS_NONFINITE_SCORE,
    STATUS_NONFINITE_UPDATE,
    STATUS_OK,
    WEIGHT,
    all_finite,
    copy_values,
    output_target,
    row_derivatives,
    row_is_safe,
)
from .flow import flow_multiplier, follows_flow
from .frequent_directions import fd_shrink, sketch_eigen
from .lazy import (
    IDLE_DECAY,
    LAST_ROUND,
    has_weights,
    md_begin_row,
    md_catch_up_all,
    md_idle_decay,
    md_settle_all,
    md_step,
    md_unmark_row,
)

SUM_SQ_GRAD = 1


# -- the features' scale -----------------------------------------------------------


@jit
def scale_with_row(sum_sq, count, weight, scale_sums):
    """The running scale m, the weighted mean of the squared non-zero feature
    values, once a row with ``count`` non-zero values whose squares sum to
    ``sum_sq`` is added (:func:`_scores_and_bounds` measures them): returns
    ``(sqrt(m), new sum, new weight)`` without writing ``scale_sums``
    (:func:`commit_scale` does, once the row is applied). ``scale_sums`` holds
    the weighted sum of squares and the sum of the weights; m is 1 while it
    holds nothing."""
    total = scale_sums[0]
    total_weight = scale_sums[1]
    if weight > 0.0:
        total += weight * sum_sq
        total_weight += weight * count
    return root_scale(total, total_weight), total, total_weight


@jit
def root_scale(total, total_weight):
    """sqrt(m) for these sums (1 before any non-zero value)."""
    if total > 0.0 and total_weight > 0.0:
        return math.sqrt(total / total_weight)
    return 1.0


@jit
def commit_scale(scale_sums, total, total_weight):
    scale_sums[0] = total
    scale_sums[1] = total_weight


@jit
def normalized_norm_sq(norm_sq, intercept_weight, root):
    """|(sqrt(m) w_features, b)|^2 from |w|^2 over every coordinate (intercept b
    included): the norm the ball of ``radius`` bounds."""
    b_sq = intercept_weight * intercept_weight
    return root * root * max(norm_sq - b_sq, 0.0) + b_sq


# -- the generalized projection ----------------------------------------------------


@jit
def _projected_norm_sq(mu, a, a_offset, y, rest_a, rest_y_sq):
    """``|w(mu)|^2`` and its derivative in mu, where in A's eigenbasis
    ``w(mu)_i = a_i y_i / (a_i + mu)`` (a_i = a_offset + a[i], eigenvalues of A; y
    the coordinates of w'), plus one more eigenvalue ``rest_a`` shared by a subspace
    where w' has squared norm ``rest_y_sq`` (the sketch's complement)."""
    total = 0.0
    slope = 0.0
    for i in range(a.shape[0]):
        a_i = a_offset + a[i]
        shrunk = a_i * y[i] / (a_i + mu)
        total += shrunk * shrunk
        slope -= 2.0 * shrunk * shrunk / (a_i + mu)
    if rest_y_sq > 0.0:
        shrunk_sq = rest_y_sq * (rest_a / (rest_a + mu)) ** 2
        total += shrunk_sq
        slope -= 2.0 * shrunk_sq / (rest_a + mu)
    return total, slope


@jit
def projection_multiplier(a, a_offset, y, rest_a, rest_y_sq, radius):
    """The mu >= 0 with ``|(A + mu I)^{-1} A w'| = radius`` (docs/ons.md, "The
    projection"), for a w' outside the ball, in A's eigenbasis (see
    ``_projected_norm_sq``).

    |w(mu)| falls from |w'| at mu = 0 to 0; 1/|w(mu)| is close to linear in mu, so
    Newton's method on ``1/|w(mu)| - 1/radius`` converges in a few steps (Moré and
    Sorensen's secular equation); a bracket keeps it safe, with bisection as the
    fallback. Each step costs one sweep over the eigenvalues.
    """
    largest_a = rest_a if rest_y_sq > 0.0 else 0.0
    norm_sq = rest_y_sq
    for i in range(a.shape[0]):
        largest_a = max(largest_a, a_offset + a[i])
        norm_sq += y[i] * y[i]
    # a_i / (a_i + mu) <= largest_a / mu, so |w(high)| <= radius.
    low = 0.0
    high = largest_a * math.sqrt(norm_sq) / radius
    mu = 0.0
    for _ in range(200):
        total, slope = _projected_norm_sq(mu, a, a_offset, y, rest_a, rest_y_sq)
        norm = math.sqrt(total)
        if abs(norm - radius) <= 1e-13 * radius:
            return mu
        if norm > radius:
            low = mu
        else:
            high = mu
        # Newton on phi(mu) = 1/norm - 1/radius; phi' = -slope / (2 norm^3).
        candidate = -1.0
        if slope < 0.0 and norm > 0.0:
            phi = 1.0 / norm - 1.0 / radius
            candidate = mu - phi * (2.0 * total * norm) / (-slope)
        if not (low < candidate < high):
            candidate = 0.5 * (low + high)
        if candidate == mu or high - low <= 1e-15 * high:
            return candidate
        mu = candidate
    return mu


@jit
def project_full(a_inv, w, radius):
    """Replace ``w`` (a w' outside the ball) in place by its generalized projection
    ``(A + mu I)^{-1} A w'``; A's eigenvectors are A^{-1}'s, with inverse eigenvalues.
    O(d^3): one symmetric eigendecomposition."""
    eigenvalues, vectors = np.linalg.eigh(a_inv)
    n = w.shape[0]
    a = np.empty(n)
    for i in range(n):
        # A^{-1} is positive definite; guard against eigenvalues rounded to <= 0.
        a[i] = 1.0 / max(eigenvalues[i], 1e-300)
    y = vectors.T @ w
    mu = projection_multiplier(a, 0.0, y, 0.0, 0.0, radius)
    for i in range(n):
        y[i] *= a[i] / (a[i] + mu)
    copy_values(vectors @ y, w)


@jit
def project_sketch(sketch, eps, w, radius):
    """Replace ``w`` in place by its generalized projection under
    A = eps I + S^T S: along S's right singular vectors v_i the eigenvalues are
    a_i = eps + sigma_i^2, on their complement eps. With y_i = v_i . w' and
    rest = eps / (eps + mu), ``w = rest w' + sum_i (a_i / (a_i + mu) - rest) y_i v_i``.

    The SVD comes from the eigendecomposition of S S^T (``sketch_eigen``), O(m^2 d),
    and v_i = S^T u_i / sigma_i is applied through S's rows. That route squares the
    sketch's condition number: y_i = (u_i . S w') / sigma_i carries a relative
    error of about 1e-16 sigma_0^2 / sigma_i^2, and with w' along a direction of
    sigma_i^2 ~ 1e-11 sigma_0^2 the projection was 1e-5 off. Sketches whose
    smallest kept sigma_i^2 is below 1e-6 sigma_0^2 take LAPACK's SVD of S itself
    instead (tests/test_ons_vs_reference.py), several times slower per call."""
    values, vectors = sketch_eigen(sketch)
    kept = 0
    while kept < values.shape[0] and values[kept] > 1e-12 * values[0]:
        kept += 1  # smaller sigma: the complement, whose eigenvalue is ~ eps
    if kept > 0 and values[kept - 1] < 1e-6 * values[0]:
        _project_sketch_by_svd(sketch, eps, w, radius)
        return
    sketch_w = np.empty(sketch.shape[0])
    for a in range(sketch.shape[0]):
        total = 0.0
        for q in range(w.shape[0]):
            total += sketch[a, q] * w[q]
        sketch_w[a] = total
    projected = vectors.T @ sketch_w  # u_i . S w' = sigma_i y_i
    a = np.empty(kept)
    y = np.empty(kept)
    for i in range(kept):
        a[i] = eps + values[i]
        y[i] = projected[i] / math.sqrt(values[i])
    rest_factor, shifts = _projection_shifts(a, y, eps, w, radius)
    coefficients = np.zeros(values.shape[0])
    for i in range(kept):
        coefficients[i] = shifts[i] / math.sqrt(values[i])
    row_coefficients = vectors @ coefficients
    for q in range(w.shape[0]):
        w[q] *= rest_factor
    for a in range(sketch.shape[0]):
        c = row_coefficients[a]
        for q in range(w.shape[0]):
            w[q] += c * sketch[a, q]


@jit
def _project_sketch_by_svd(sketch, eps, w, radius):
    """``project_sketch`` through the thin SVD of S, for nearly rank-deficient
    sketches."""
    _, sigma, directions = np.linalg.svd(sketch, full_matrices=False)
    kept = 0
    while kept < sigma.shape[0] and sigma[kept] > 1e-6 * sigma[0]:
        kept += 1
    a = np.empty(kept)
    y = np.empty(kept)
    for i in range(kept):
        a[i] = eps + sigma[i] * sigma[i]
        total = 0.0
        for q in range(w.shape[0]):
            total += directions[i, q] * w[q]
        y[i] = total
    rest_factor, shifts = _projection_shifts(a, y, eps, w, radius)
    for q in range(w.shape[0]):
        w[q] *= rest_factor
    for i in range(kept):
        for q in range(w.shape[0]):
            w[q] += shifts[i] * directions[i, q]


@jit
def _projection_shifts(a, y, eps, w, radius):
    """The projection's multiplier mu given w's coordinates y_i along the sketch's
    directions (eigenvalues a_i) and eps on their complement: returns
    ``(rest, shifts)``, rest = eps / (eps + mu) and shifts_i =
    (a_i / (a_i + mu) - rest) y_i, so that the projection is
    ``rest w' + sum_i shifts_i v_i``."""
    in_span_sq = 0.0
    for i in range(y.shape[0]):
        in_span_sq += y[i] * y[i]
    norm_sq = 0.0
    for q in range(w.shape[0]):
        norm_sq += w[q] * w[q]
    rest_sq = max(norm_sq - in_span_sq, 0.0)
    mu = projection_multiplier(a, 0.0, y, eps, rest_sq, radius)
    rest_factor = eps / (eps + mu)
    shifts = np.empty(y.shape[0])
    for i in range(y.shape[0]):
        shifts[i] = (a[i] / (a[i] + mu) - rest_factor) * y[i]
    return rest_factor, shifts


@jit
def project_diag(state, k, eps, root, radius):
    """Project output k's weights in place onto the ball of ``radius`` in the norm
    of the diagonal A, O(n_features). The ball is the normalized weights'
    (features times ``root`` = sqrt(m), the intercept as it is), where A's
    diagonal is eps + G / m for a feature and eps + G for the intercept: every
    coordinate is scaled by ``A_ii / (A_ii + mu)``. Returns the new squared norm
    of the weights (not normalized)."""
    size = state.shape[0]
    scale = root * root
    a = np.empty(size)
    y = np.empty(size)
    for j in range(size):
        a[j] = eps + state[j, SUM_SQ_GRAD, k] / (scale if j < size - 1 else 1.0)
        y[j] = state[j, WEIGHT, k] * (root if j < size - 1 else 1.0)
    mu = projection_multiplier(a, 0.0, y, 0.0, 0.0, radius)
    norm_sq = 0.0
    for j in range(size):
        w = a[j] * state[j, WEIGHT, k] / (a[j] + mu)
        state[j, WEIGHT, k] = w
        norm_sq += w * w
    return norm_sq


@jit
def squared_norms(state, out):
    """``out[k] = |w_k|^2`` over every coordinate, the intercept's included."""
    for k in range(state.shape[2]):
        total = 0.0
        for j in range(state.shape[0]):
            total += state[j, WEIGHT, k] ** 2
        out[k] = total


# -- the row skeleton's shared parts -----------------------------------------------


@jit
def _scores_and_bounds(data, indices, start, end, state, fit_intercept, scores):
    """Scores of one row with the current weights; return (max |x~|, max |w|) over
    the row's coordinates, and the sum of the squares and the number of the row's
    non-zero values (for :func:`scale_with_row`)."""
    intercept_row = state.shape[0] - 1
    max_abs_x = 1.0 if fit_intercept else 0.0
    max_abs_w = 0.0
    sum_sq = 0.0
    count = 0
    for k in range(scores.shape[0]):
        scores[k] = state[intercept_row, WEIGHT, k]
        max_abs_w = max(max_abs_w, abs(scores[k]))
    for p in range(start, end):
        j = indices[p]
        x = data[p]
        max_abs_x = max(max_abs_x, abs(x))
        sum_sq += x * x
        count += x != 0.0
        if scores.shape[0] == 1:  # the same without the output loop: faster
            w = state[j, WEIGHT, 0]
            scores[0] += w * x
            max_abs_w = max(max_abs_w, abs(w))
        else:
            for k in range(scores.shape[0]):
                w = state[j, WEIGHT, k]
                scores[k] += w * x
                max_abs_w = max(max_abs_w, abs(w))
    return max_abs_x, max_abs_w, sum_sq, count


# -- diagonal ----------------------------------------------------------------------


@jit
def diag_start_lazy(state, t, inverse_gamma, prior, l1):
    """Every feature is current at round ``t``; record what an idle round does to
    each coordinate under these parameters (:mod:`.lazy`): ``prior`` is eps * m,
    ``l1`` the features' threshold strength, l1 * sqrt(m). A feature whose
    weights are all 0 is skipped (:func:`~.lazy.has_weights`)."""
    for j in range(state.shape[0] - 1):
        if not has_weights(state, j):
            continue
        state[j, LAST_ROUND, 0] = t
        for k in range(state.shape[2]):
            # As the pass computes it (_diag_row_update), to the last bit.
            step = inverse_gamma * (1.0 / (prior + state[j, SUM_SQ_GRAD, k]))
            state[j, IDLE_DECAY, k] = md_idle_decay(step, l1, 0.0)


@jit
def _diag_curvatures(data, indices, start, end, intercept, state, prior, eps, out):
    """``out[k] = x~^T D^{-1} x~`` for every output k, with D A's diagonal before
    the row: prior + G for a feature, eps + G for the intercept."""
    intercept_row = state.shape[0] - 1
    for k in range(out.shape[0]):
        out[k] = 0.0
        if intercept != 0.0:
            out[k] = 1.0 / (eps + state[intercept_row, SUM_SQ_GRAD, k])
    if out.shape[0] == 1:  # the same with the sum in a register: faster
        total = out[0]
        for p in range(start, end):
            total += (data[p] * data[p]) / (prior + state[indices[p], SUM_SQ_GRAD, 0])
        out[0] = total
        return
    for p in range(start, end):
        j = indices[p]
        x_sq = data[p] * data[p]
        for k in range(out.shape[0]):
            out[k] += x_sq / (prior + state[j, SUM_SQ_GRAD, k])


@jit
def _diag_row_update(
    data,
    indices,
    start,
    end,
    intercept,
    curvature,
    step,
    state,
    norms,
    inverse_gamma,
    prior,
    eps,
    l1,
    track_norms,
    dry_run,
):
    """Round t on the row's coordinates, for every output k: w -= step[k] x / D_jj,
    with D_jj = prior + G for a feature and eps + G for the intercept (G before
    the row; step[k] from :func:`_diag_steps`), then G += curvature[k] x^2
    (= g^2 / s); with ``l1`` (the features' threshold strength) the proximal step
    of the coordinate's step size 1 / (gamma A_jj), A_jj = D_jj + curvature[k] x^2
    (A's diagonal after the row), on the features, and the running squared norms
    if ``track_norms``. With ``dry_run`` only check that all are finite (the
    proximal step only shrinks)."""
    finite = True
    intercept_row = state.shape[0] - 1
    n_outputs = curvature.shape[0]
    if n_outputs == 1 and not dry_run and not track_norms and l1 == 0.0:
        # The same arithmetic without the output loop and the bookkeeping.
        curvature_0 = curvature[0]
        step_0 = step[0]
        for p in range(start, end):
            j = indices[p]
            x = data[p]
            sum_sq = state[j, SUM_SQ_GRAD, 0]
            state[j, WEIGHT, 0] -= step_0 * x / (prior + sum_sq)
            state[j, SUM_SQ_GRAD, 0] = sum_sq + curvature_0 * (x * x)
        if intercept != 0.0:
            sum_sq = state[intercept_row, SUM_SQ_GRAD, 0]
            state[intercept_row, WEIGHT, 0] -= step_0 / (eps + sum_sq)
            state[intercept_row, SUM_SQ_GRAD, 0] = sum_sq + curvature_0
        return True
    for p in range(start, end + 1):
        if p < end:
            j = indices[p]
            x = data[p]
            l1_j = l1
            offset = prior
        elif intercept != 0.0:
            j = intercept_row
            x = intercept
            l1_j = 0.0
            offset = eps
        else:
            break
        for k in range(n_outputs):
            old_sum_sq = state[j, SUM_SQ_GRAD, k]
            sum_sq = old_sum_sq + curvature[k] * (x * x)
            old_w = state[j, WEIGHT, k]
            new_w = old_w - step[k] * x / (offset + old_sum_sq)
            if l1_j > 0.0 and not dry_run:
                # md_step's proximal part alone (g = 0: the step is already in
                # its first argument) at the coordinate's step size 1 / (gamma
                # A_ii).
                coordinate_step = inverse_gamma * (1.0 / (offset + sum_sq))
                new_w = md_step(new_w, 0.0, coordinate_step, l1_j, 0.0)
                state[j, IDLE_DECAY, k] = md_idle_decay(coordinate_step, l1_j, 0.0)
            if dry_run:
                finite &= math.isfinite(sum_sq) and math.isfinite(new_w)
            else:
                state[j, SUM_SQ_GRAD, k] = sum_sq
                state[j, WEIGHT, k] = new_w
                if track_norms:
                    norms[k] += new_w * new_w - old_w * old_w
    return finite


@jit
def _diag_steps(
    loss,
    epsilon,
    target,
    scores,
    scaled_dloss,
    weight,
    inverse_gamma,
    curvature,
    row_curvatures,
    out,
):
    """``out[k]``: output k's step multiplier u, the update being w -= u D^{-1} x~.

    The step's matrix is D plus the row's own outer product, ``A = D + s h h^T``,
    as the full matrix and the sketch hold it (only earlier rows are reduced to
    the diagonal): by Sherman-Morrison ``A^{-1} g = D^{-1} g / (1 + s d^2 q)``
    with ``q = x~^T D^{-1} x~`` (``row_curvatures[k]``), which limits the step
    along x~ by the row's curvature. A loss of the residual then follows its flow
    along that direction (:mod:`.flow`), whose score moves by
    ``q / (1 + s d^2 q)`` per unit."""
    n_outputs = scores.shape[0]
    for k in range(n_outputs):
        if scaled_dloss[k] == 0.0:
            out[k] = 0.0
            continue
        shrink = 1.0 / (1.0 + curvature[k] * row_curvatures[k])
        if not follows_flow(loss):
            out[k] = inverse_gamma * scaled_dloss[k] * shrink
            continue
        out[k] = shrink * _output_flow(
            loss,
            epsilon,
            target,
            scores,
            scaled_dloss,
            k,
            weight,
            inverse_gamma,
            row_curvatures[k] * shrink,
        )


@jit
def _output_flow(
    loss, epsilon, target, scores, scaled_dloss, k, weight, inverse_gamma, curvature
):
    """:func:`~.flow.flow_multiplier` for output k of a row of weight ``weight``
    (> 0) with the scaled loss derivatives ``scaled_dloss`` (s dl/dp), for the
    step 1/gamma, along a direction of ``curvature``."""
    return flow_multiplier(
        loss,
        epsilon,
        output_target(target, k, scores.shape[0]),
        scores[k],
        scaled_dloss[k] / weight,
        inverse_gamma * weight,
        curvature,
    )


@jit
def diag_pass(
    data,
    indices,
    indptr,
    targets,
    row_weights,
    order,
    state,
    norms,
    scale_sums,
    row_scores,
    loss,
    epsilon,
    inverse_gamma,
    eps,
    l1,
    radius,
    fit_intercept,
    t0,
    avg_slot,
    a0,
):
    """One pass of diagonal ONS over the rows in ``order``: O(the row's non-zeros)
    per row, plus O(n_features) for each projection (only when ``radius`` is finite
    and a step leaves the ball). ``scale_sums`` is the running scale m
    (:func:`scale_with_row`): a feature's diagonal starts at eps * m, its l1
    threshold strength is l1 * sqrt(m), and the ball bounds the normalized
    weights (:func:`normalized_norm_sq`). Each step's matrix holds the row's own
    outer product exactly (:func:`_diag_steps`), and on a loss of the residual
    follows the flow (:mod:`.flow`). ``norms[k]`` is |w_k|^2, kept current by the
    row updates when ``radius`` is finite (it decides whether to project). With
    ``l1`` > 0 the state also has :mod:`.lazy`'s slots (:func:`diag_start_lazy`
    fills them) and
    idle features shrink lazily, each by the threshold of its last update;
    ``norms`` is then an upper bound, made exact (every feature caught up) before
    deciding to project. With an ``avg_slot`` (not None) the iterates are averaged
    after round ``a0`` (:mod:`.averaging`; a projection settles every coordinate
    first); the first row is round ``t0 + 1``."""
    n_outputs = state.shape[2]
    intercept_row = state.shape[0] - 1
    project = math.isfinite(radius)
    regularized = l1 > 0.0
    intercept = 1.0 if fit_intercept else 0.0
    record_scores = row_scores.shape[0] > 0
    scores = np.empty(n_outputs)
    scaled_dloss = np.empty(n_outputs)
    step = np.empty(n_outputs)
    curvature = np.empty(n_outputs)
    row_curvatures = np.empty(n_outputs)
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        t = t0 + pos + 1
        start = indptr[i]
        end = indptr[i + 1]
        if regularized:
            md_begin_row(indices, start, end, state, avg_slot, t, a0, l1, 0.0)
        max_abs_x, max_abs_w, sum_sq, count = _scores_and_bounds(
            data, indices, start, end, state, fit_intercept, scores
        )
        if record_scores:
            copy_values(scores, row_scores[pos])
        row_loss = row_derivatives(
            loss, epsilon, targets[i], scores, row_weights[i], scaled_dloss
        )
        if not (all_finite(scores) and all_finite(scaled_dloss)):
            status = STATUS_NONFINITE_SCORE
            break
        weight = row_weights[i]
        root, scale_total, scale_weight = scale_with_row(
            sum_sq, count, weight, scale_sums
        )
        if not math.isfinite(scale_total):  # squares beyond the largest float
            status = STATUS_NONFINITE_UPDATE
            break
        prior = eps * (root * root)
        for k in range(n_outputs):
            curvature[k] = (
                scaled_dloss[k] * (scaled_dloss[k] / weight) if weight else 0.0
            )
        _diag_curvatures(
            data, indices, start, end, intercept, state, prior, eps, row_curvatures
        )
        _diag_steps(
            loss,
            epsilon,
            targets[i],
            scores,
            scaled_dloss,
            weight,
            inverse_gamma,
            curvature,
            row_curvatures,
            step,
        )
        update = (
            data,
            indices,
            start,
            end,
            intercept,
            curvature,
            step,
            state,
            norms,
            inverse_gamma,
            prior,
            eps,
            l1 * root,
            project,
        )
        # Each coordinate moves by at most sqrt(s) / (2 gamma sqrt(A's offset))
        # (the flow's step is at most the linear one).
        bound = max_abs_w + inverse_gamma * math.sqrt(weight / min(prior, eps))
        if not row_is_safe(scaled_dloss, max_abs_x, bound):
            if not _diag_row_update(*update, DRY_RUN):
                status = STATUS_NONFINITE_UPDATE
                break
        commit_scale(scale_sums, scale_total, scale_weight)
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
        _diag_row_update(*update, APPLY)
        # Projected every round the weights are outside the ball: a row without
        # a gradient moves none, but the scale m can move them out of it.
        if project:
            for k in range(n_outputs):
                if not _outside(
                    norms[k], state[intercept_row, WEIGHT, k], root, radius
                ):
                    continue
                if regularized:
                    # Idle features have shrunk since norms last saw them.
                    if avg_slot is not None:
                        md_settle_all(state, avg_slot, t - 1, a0, l1, 0.0)
                    md_catch_up_all(state, t, l1, 0.0)
                    squared_norms(state, norms)
                    if not _outside(
                        norms[k], state[intercept_row, WEIGHT, k], root, radius
                    ):
                        continue
                elif avg_slot is not None:
                    constant_settle_all(state, avg_slot, t - 1, a0)
                norms[k] = project_diag(state, k, eps, root, radius)
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    if status != STATUS_OK and regularized:
        i = order[rows_done]
        md_unmark_row(indices, indptr[i], indptr[i + 1], state, t0 + rows_done + 1)
    return loss_sum, rows_done, status


@jit
def _outside(norm_sq, intercept_weight, root, radius):
    """Whether weights of squared norm ``norm_sq`` leave the ball (normalized)."""
    return normalized_norm_sq(norm_sq, intercept_weight, root) > radius * radius


# -- full --------------------------------------------------------------------------


@jit
def full_pass(
    data,
    indices,
    indptr,
    targets,
    row_weights,
    order,
    state,
    a_inv,
    scale_sums,
    row_scores,
    loss,
    epsilon,
    inverse_gamma,
    radius,
    fit_intercept,
    t0,
    avg_slot,
    a0,
):
    """One pass of full-matrix ONS over the rows in ``order``; ``a_inv[k]`` is output
    k's A^{-1}, (d + 1) x (d + 1), the intercept last. With an ``avg_slot`` (not
    None) the iterates are averaged after round ``a0`` (:mod:`.averaging`: every weight
    moves each round, so every coordinate is settled, O(d) beside the O(d^2)
    update); the first row is round ``t0 + 1``.

    A is kept in normalized coordinates: x~ has the features divided by sqrt(m),
    m the running scale of ``scale_sums`` (:func:`scale_with_row`), and the
    intercept's 1; a step of the normalized weights is divided by sqrt(m) on the
    features, and the ball bounds the normalized weights. With m = 1 this is
    the paper's update.

    With u = A_{t-1}^{-1} x~ and rho = 1 + s d^2 x~^T u, Sherman-Morrison gives
    A_t^{-1} = A_{t-1}^{-1} - s d^2 u u^T / rho and A_t^{-1} g = c u / rho. u costs
    O(d (nnz + 1)) (A^{-1} is symmetric: its columns are its rows), the rank-one
    update O(d^2). The update is written as v v^T with v = sqrt(s d^2 / rho) u, so
    A^{-1} stays exactly symmetric.
    """
    n_outputs = state.shape[2]
    size = state.shape[0]
    intercept_row = size - 1
    project = math.isfinite(radius)
    intercept = 1.0 if fit_intercept else 0.0
    record_scores = row_scores.shape[0] > 0
    scores = np.empty(n_outputs)
    scaled_dloss = np.empty(n_outputs)
    v = np.empty((n_outputs, size))
    new_w = np.empty((n_outputs, size))
    normalized = np.empty(size)
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        start = indptr[i]
        end = indptr[i + 1]
        _, _, sum_sq, count = _scores_and_bounds(
            data, indices, start, end, state, fit_intercept, scores
        )
        if record_scores:
            copy_values(scores, row_scores[pos])
        row_loss = row_derivatives(
            loss, epsilon, targets[i], scores, row_weights[i], scaled_dloss
        )
        if not (all_finite(scores) and all_finite(scaled_dloss)):
            status = STATUS_NONFINITE_SCORE
            break
        root, scale_total, scale_weight = scale_with_row(
            sum_sq, count, row_weights[i], scale_sums
        )
        if not math.isfinite(scale_total):  # squares beyond the largest float
            status = STATUS_NONFINITE_UPDATE
            break
        inverse_root = 1.0 / root
        # A row whose x~ is 0 (no intercept, no non-zero value) has no gradient.
        empty = count == 0 and not fit_intercept
        # Every output's new values go to buffers first: a row is applied whole or
        # not at all.
        finite = True
        for k in range(n_outputs):
            c = scaled_dloss[k]
            if c == 0.0 or empty:
                continue
            matrix = a_inv[k]
            u = v[k]
            for q in range(size):
                u[q] = intercept * matrix[intercept_row, q]
            for p in range(start, end):
                x = data[p] * inverse_root
                row = matrix[indices[p]]
                for q in range(size):
                    u[q] += x * row[q]
            x_dot_u = intercept * u[intercept_row]
            for p in range(start, end):
                x_dot_u += (data[p] * inverse_root) * u[indices[p]]
            curvature = c * (c / row_weights[i])  # s d^2
            rho = 1.0 + curvature * x_dot_u
            step = inverse_gamma * c / rho
            scale = math.sqrt(curvature / rho)
            largest = 0.0
            for q in range(size):
                # The features' normalized step, divided by sqrt(m).
                feature_step = (
                    step * u[q] * (inverse_root if q < intercept_row else 1.0)
                )
                new_w[k, q] = state[q, WEIGHT, k] - feature_step
                u[q] *= scale  # u becomes v = sqrt(s d^2 / rho) u
                largest = max(largest, abs(u[q]))
            # rho <= 0 only where rounding has cost A^{-1} its positive
            # definiteness (gradients some 1e150 times eps): not a usable step.
            finite &= (
                math.isfinite(rho)
                and rho > 0.0
                and math.isfinite(largest * largest)
                and all_finite(new_w[k])
            )
        if not finite:
            status = STATUS_NONFINITE_UPDATE
            break
        commit_scale(scale_sums, scale_total, scale_weight)
        if avg_slot is not None:
            constant_settle_all(state, avg_slot, t0 + pos, a0)
        for k in range(n_outputs):
            learns = scaled_dloss[k] != 0.0 and not empty
            if not (learns or project):
                continue
            matrix = a_inv[k]
            w = new_w[k]
            if not learns:
                for q in range(size):
                    w[q] = state[q, WEIGHT, k]
            else:
                vk = v[k]
                for a in range(size):
                    va = vk[a]
                    row = matrix[a]
                    for b in range(size):
                        row[b] -= va * vk[b]
            # Projected every round the weights are outside the ball: a row
            # without a gradient moves none, but the scale m can move them out.
            if project and _normalize(w, root, normalized) > radius * radius:
                project_full(matrix, normalized, radius)
                _denormalize(normalized, root, w)
            for q in range(size):
                state[q, WEIGHT, k] = w[q]
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status


@jit
def _normalize(w, root, normalized):
    """``normalized``: the weights with the features times ``root`` (sqrt(m)), the
    intercept as it is; returns their squared norm, which the ball bounds."""
    size = w.shape[0]
    norm_sq = 0.0
    for q in range(size):
        normalized[q] = w[q] * (root if q < size - 1 else 1.0)
        norm_sq += normalized[q] * normalized[q]
    return norm_sq


@jit
def _denormalize(normalized, root, w):
    size = w.shape[0]
    for q in range(size):
        w[q] = normalized[q] / (root if q < size - 1 else 1.0)


@jit
def full_shift_eps(a_inv, shift):
    """A^{-1} <- (A + shift I)^{-1} for every output (eps changed by ``shift``),
    through one eigendecomposition each: O(d^3)."""
    for k in range(a_inv.shape[0]):
        eigenvalues, vectors = np.linalg.eigh(a_inv[k])
        scaled = vectors.copy()
        for i in range(eigenvalues.shape[0]):
            inverse = 1.0 / (1.0 / max(eigenvalues[i], 1e-300) + shift)
            for q in range(scaled.shape[0]):
                scaled[q, i] *= inverse
        shifted = scaled @ vectors.T
        for q in range(shifted.shape[0]):
            copy_values(shifted[q], a_inv[k, q])


# -- sketch ------------------------------------------------------------------------


@jit
def sketch_shrink(sketch, gram_inverse, m, eps):
    """Frequent Directions' shrink of a full 2m-row sketch (``fd_shrink``), and
    H = (eps I + S S^T)^{-1}, now diagonal."""
    kept, _ = fd_shrink(sketch, m)
    gram_inverse[:] = 0.0
    for q in range(gram_inverse.shape[0]):
        gram_inverse[q, q] = 1.0 / (eps + (kept[q] if q < m else 0.0))


@jit
def sketch_gram_inverse(sketch, rows, eps, gram_inverse):
    """H = (eps I + S S^T)^{-1} computed afresh (rows at and after ``rows`` are zero,
    so their block is I / eps)."""
    gram_inverse[:] = 0.0
    for q in range(gram_inverse.shape[0]):
        gram_inverse[q, q] = 1.0 / eps
    if rows > 0:
        used = sketch[:rows]
        gram = used @ used.T
        for q in range(rows):
            gram[q, q] += eps
        inverse = np.linalg.inv(gram)
        for q in range(rows):
            copy_values(inverse[q], gram_inverse[q, :rows])


@jit
def _sketch_insert(
    data,
    indices,
    start,
    end,
    intercept,
    c,
    inverse_root,
    sketch,
    gram_inverse,
    r,
    eps,
    border,
    inverse_border,
):
    """Write h = c x~ (the features of x~ times ``inverse_root``) into the zero row
    r of the sketch and border H with it:
    b = S_{<r} g, s = eps + |g|^2 - b^T H b (the Schur complement), q = H b, then
    H <- [[H + q q^T / s, -q / s], [-q^T / s, 1 / s]]. O(r (nnz + r))."""
    intercept_column = sketch.shape[1] - 1
    c_features = c * inverse_root
    g_sq = (c * intercept) ** 2
    for p in range(start, end):
        g_sq += (c_features * data[p]) ** 2
    for q in range(r):
        row = sketch[q]
        total = c * intercept * row[intercept_column]
        for p in range(start, end):
            total += c_features * data[p] * row[indices[p]]
        border[q] = total
    schur = eps + g_sq
    for a in range(r):
        total = 0.0
        for b in range(r):
            total += gram_inverse[a, b] * border[b]
        inverse_border[a] = total
        schur -= border[a] * total
    for a in range(r):
        qa = inverse_border[a] / schur
        for b in range(r):
            gram_inverse[a, b] += qa * inverse_border[b]
        gram_inverse[a, r] = -qa
        gram_inverse[r, a] = -qa
    gram_inverse[r, r] = 1.0 / schur
    new_row = sketch[r]
    for p in range(start, end):
        new_row[indices[p]] = c_features * data[p]
    new_row[intercept_column] = c * intercept
    # S g: the border, and |g|^2 for the new row.
    border[r] = g_sq


@jit
def sketch_pass(
    data,
    indices,
    indptr,
    targets,
    row_weights,
    order,
    state,
    sketch,
    gram_inverse,
    sketch_rows,
    scale_sums,
    row_scores,
    loss,
    epsilon,
    inverse_gamma,
    eps,
    radius,
    fit_intercept,
    t0,
    avg_slot,
    a0,
):
    """One pass of sketched ONS (a Frequent Directions sketch, Luo et al. 2016) over
    the rows in ``order``. Output k's sketch is ``sketch[k]`` (2m rows, rows from
    ``sketch_rows[k]`` on zero) and ``gram_inverse[k]`` its H. With an ``avg_slot``
    (not None) the iterates are averaged after round ``a0``, every coordinate settled
    each round (:mod:`.averaging`); the first row is round ``t0 + 1``.

    A round inserts h = sqrt(s) d x~ as a sketch row (shrinking a full sketch
    first), so A_t = eps I + S^T S contains s h h^T, and steps along
    A_t^{-1} g = sqrt(s) (h - S^T H S h) / eps (Woodbury): O(m d) per row, plus an
    O(m^2 d) shrink every m rows. As for ``full_pass``, x~'s features are divided
    by sqrt(m) (the running scale of ``scale_sums``), the features' steps too, and
    the ball bounds the normalized weights. The step is importance-invariant
    (:mod:`.flow`): its length along A_t^{-1} x~ follows the row's loss.
    """
    n_outputs = state.shape[2]
    size = state.shape[0]
    two_m = sketch.shape[1]
    m = two_m // 2
    project = math.isfinite(radius)
    intercept = 1.0 if fit_intercept else 0.0
    record_scores = row_scores.shape[0] > 0
    scores = np.empty(n_outputs)
    scaled_dloss = np.empty(n_outputs)
    border = np.empty(two_m)
    inverse_border = np.empty(two_m)
    direction = np.empty(size)
    normalized = np.empty(size)
    step_bound = inverse_gamma / math.sqrt(eps)
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        start = indptr[i]
        end = indptr[i + 1]
        max_abs_x, max_abs_w, sum_sq, count = _scores_and_bounds(
            data, indices, start, end, state, fit_intercept, scores
        )
        if record_scores:
            copy_values(scores, row_scores[pos])
        row_loss = row_derivatives(
            loss, epsilon, targets[i], scores, row_weights[i], scaled_dloss
        )
        if not (all_finite(scores) and all_finite(scaled_dloss)):
            status = STATUS_NONFINITE_SCORE
            break
        weight = row_weights[i]
        root_weight = math.sqrt(weight)
        root, scale_total, scale_weight = scale_with_row(
            sum_sq, count, weight, scale_sums
        )
        if not math.isfinite(scale_total):  # squares beyond the largest float
            status = STATUS_NONFINITE_UPDATE
            break
        inverse_root = 1.0 / root
        # A normalized step is at most sqrt(s) / (2 gamma sqrt(eps)); a feature's
        # is that divided by sqrt(m).
        bound = max_abs_w + step_bound * root_weight * max(inverse_root, 1.0)
        if not row_is_safe(scaled_dloss, max_abs_x, bound):
            status = STATUS_NONFINITE_UPDATE
            break
        commit_scale(scale_sums, scale_total, scale_weight)
        # A row whose x~ is 0 (no intercept, no non-zero value) has no gradient: it
        # must not take a sketch row (and cause a shrink) for nothing.
        empty = not fit_intercept
        for p in range(start, end):
            if data[p] != 0.0:
                empty = False
        if avg_slot is not None:
            constant_settle_all(state, avg_slot, t0 + pos, a0)
        for k in range(n_outputs):
            if scaled_dloss[k] != 0.0 and not empty:
                # The sketch gets h = sqrt(s) d x~; the step is along g = sqrt(s) h.
                c = scaled_dloss[k] / root_weight
                if sketch_rows[k] == two_m:
                    sketch_shrink(sketch[k], gram_inverse[k], m, eps)
                    sketch_rows[k] = m
                r = sketch_rows[k]
                _sketch_insert(
                    data,
                    indices,
                    start,
                    end,
                    intercept,
                    c,
                    inverse_root,
                    sketch[k],
                    gram_inverse[k],
                    r,
                    eps,
                    border,
                    inverse_border,
                )
                r += 1
                sketch_rows[k] = r
                # A^{-1} h = (h - S^T H S h) / eps, and A^{-1} g = sqrt(s) A^{-1} h.
                h = inverse_border[:r]
                for a in range(r):
                    total = 0.0
                    for b in range(r):
                        total += gram_inverse[k, a, b] * border[b]
                    h[a] = total
                for q in range(size):
                    direction[q] = 0.0
                for a in range(r):
                    h_a = h[a]
                    row = sketch[k, a]
                    for q in range(size):
                        direction[q] -= h_a * row[q]
                for p in range(start, end):
                    direction[indices[p]] += c * (data[p] * inverse_root)
                direction[size - 1] += c * intercept
                if follows_flow(loss):
                    # direction = eps A^{-1} (c x~): its score change x~ . direction
                    # is eps c x~^T A^{-1} x~. The flow's multiplier u moves w by
                    # u A^{-1} x~ = u direction / (eps c).
                    x_dot_direction = intercept * direction[size - 1]
                    for p in range(start, end):
                        x_dot_direction += (data[p] * inverse_root) * direction[
                            indices[p]
                        ]
                    multiplier = _output_flow(
                        loss,
                        epsilon,
                        targets[i],
                        scores,
                        scaled_dloss,
                        k,
                        weight,
                        inverse_gamma,
                        x_dot_direction / (eps * c),
                    )
                    scale = multiplier / (eps * c)
                else:
                    scale = inverse_gamma * root_weight / eps
                w = state[:, WEIGHT, k]
                for q in range(size - 1):
                    w[q] -= scale * direction[q] * inverse_root
                w[size - 1] -= scale * direction[size - 1]
            # Projected every round the weights are outside the ball: a row
            # without a gradient moves none, but the scale m can move them out.
            w = state[:, WEIGHT, k]
            if project and _normalize(w, root, normalized) > radius * radius:
                project_sketch(sketch[k, : sketch_rows[k]], eps, normalized, radius)
                _denormalize(normalized, root, w)
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status
