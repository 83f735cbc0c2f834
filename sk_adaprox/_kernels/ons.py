"""Online Newton Step kernels (Hazan, Agarwal & Kale 2007; ALGORITHMS.md §3).

Every output k is its own ONS problem over the d + 1 coordinates (features, then the
intercept, whose feature is 1 when fitted and 0 otherwise). A row of weight s with
loss derivative d has gradient ``g = s d x~`` (``c = s d`` is the kernels' scaled
derivative), and the round does

    A <- A + s h h^T (h = d x~);   w' = w - (1/gamma) A^{-1} g;
    w = argmin_{|w| <= D} |w - w'|_A

The weight enters A once, not squared (``g g^T = s^2 h h^T``): a row of weight s acts
on A as s rows would, so weighting a row up never shrinks its steps (docs/ons.md,
"Sample weights"). With s = 1 this is ALGORITHMS.md §3 exactly.

and the three variants differ in how they keep A:

- ``full_pass``: A^{-1} itself, shape (K, d + 1, d + 1), by Sherman-Morrison.
- ``diag_pass``: A's diagonal, kept as ``eps + G`` with G in the state's
  ``SUM_SQ_GRAD`` slot (so a change of eps needs no rewrite). With ``l1`` > 0 the
  step is composite (docs/ons.md, "l1"): each coordinate then loses
  ``l1 / (gamma A_ii)`` of its magnitude per round, lazily for idle coordinates
  (:mod:`.lazy`).
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
    md_begin_row,
    md_catch_up_all,
    md_idle_decay,
    md_settle_all,
    md_step,
    md_unmark_row,
)

SUM_SQ_GRAD = 1


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
    """The mu >= 0 with ``|(A + mu I)^{-1} A w'| = radius`` (ALGORITHMS.md §3), for a
    w' outside the ball, in A's eigenbasis (see ``_projected_norm_sq``).

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
def _sketch_eigen(sketch):
    """Eigenvalues (descending, clipped at 0) and eigenvectors of S S^T. With
    S = U diag(sigma) V^T, S S^T = U diag(sigma^2) U^T: the sketch's SVD from its
    small Gram matrix, O(m^2 d) in one matrix product plus O(m^3), where LAPACK's
    SVD of a wide matrix is several times slower. (The estimator runs sketch passes
    with one BLAS thread: for these small products, starting threads costs more
    than it saves, up to 7x per row on two busy cores.)"""
    values, vectors = np.linalg.eigh(sketch @ sketch.T)  # ascending
    n = values.shape[0]
    descending = np.empty(n)
    ordered = np.empty((n, n))
    for i in range(n):
        descending[i] = max(values[n - 1 - i], 0.0)
        # Eigenvectors have no sign; fix it (largest entry positive) so that equal
        # inputs up to rounding give the same sketch rows, not rows of either sign.
        column = vectors[:, n - 1 - i]
        largest = 0
        for a in range(n):
            if abs(column[a]) > abs(column[largest]):
                largest = a
        sign = -1.0 if column[largest] < 0.0 else 1.0
        for a in range(n):
            ordered[a, i] = sign * column[a]
    return descending, ordered


@jit
def project_sketch(sketch, eps, w, radius):
    """Replace ``w`` in place by its generalized projection under
    A = eps I + S^T S: along S's right singular vectors v_i the eigenvalues are
    a_i = eps + sigma_i^2, on their complement eps. With y_i = v_i . w' and
    rest = eps / (eps + mu), ``w = rest w' + sum_i (a_i / (a_i + mu) - rest) y_i v_i``.

    The SVD comes from the eigendecomposition of S S^T (``_sketch_eigen``), O(m^2 d),
    and v_i = S^T u_i / sigma_i is applied through S's rows. That route squares the
    sketch's condition number: y_i = (u_i . S w') / sigma_i carries a relative
    error of about 1e-16 sigma_0^2 / sigma_i^2, and with w' along a direction of
    sigma_i^2 ~ 1e-11 sigma_0^2 the projection was 1e-5 off. Sketches whose
    smallest kept sigma_i^2 is below 1e-6 sigma_0^2 take LAPACK's SVD of S itself
    instead (tests/test_ons_vs_reference.py), several times slower per call."""
    values, vectors = _sketch_eigen(sketch)
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
def project_diag(state, k, eps, radius):
    """Project output k's weights in place onto the ball in the norm of the diagonal
    A = eps + G: ``w_i = A_ii w'_i / (A_ii + mu)`` for every coordinate, O(n_features).
    Returns the new squared norm."""
    mu = projection_multiplier(
        state[:, SUM_SQ_GRAD, k], eps, state[:, WEIGHT, k], 0.0, 0.0, radius
    )
    norm_sq = 0.0
    for j in range(state.shape[0]):
        a_j = eps + state[j, SUM_SQ_GRAD, k]
        w = a_j * state[j, WEIGHT, k] / (a_j + mu)
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
    the row's coordinates."""
    intercept_row = state.shape[0] - 1
    max_abs_x = 1.0 if fit_intercept else 0.0
    max_abs_w = 0.0
    for k in range(scores.shape[0]):
        scores[k] = state[intercept_row, WEIGHT, k]
        max_abs_w = max(max_abs_w, abs(scores[k]))
    for p in range(start, end):
        j = indices[p]
        x = data[p]
        max_abs_x = max(max_abs_x, abs(x))
        if scores.shape[0] == 1:  # the same without the output loop: faster
            w = state[j, WEIGHT, 0]
            scores[0] += w * x
            max_abs_w = max(max_abs_w, abs(w))
        else:
            for k in range(scores.shape[0]):
                w = state[j, WEIGHT, k]
                scores[k] += w * x
                max_abs_w = max(max_abs_w, abs(w))
    return max_abs_x, max_abs_w


# -- diagonal ----------------------------------------------------------------------


@jit
def diag_start_lazy(state, t, inverse_gamma, eps, l1):
    """Every feature is current at round ``t``; record what an idle round does to
    each coordinate under these parameters (:mod:`.lazy`). A feature whose
    weights are all 0 is skipped (:func:`~.lazy.has_weights`)."""
    for j in range(state.shape[0] - 1):
        if not has_weights(state, j):
            continue
        state[j, LAST_ROUND, 0] = t
        for k in range(state.shape[2]):
            # As the pass computes it (_diag_row_update), to the last bit.
            step = inverse_gamma * (1.0 / (eps + state[j, SUM_SQ_GRAD, k]))
            state[j, IDLE_DECAY, k] = md_idle_decay(step, l1, 0.0)


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
    eps,
    l1,
    track_norms,
    dry_run,
):
    """Round t on the row's coordinates, for every output k:
    G += curvature[k] x^2 (= g^2 / s) and w -= step[k] x / (eps + G)
    (step[k] = s d / gamma), then with ``l1`` the proximal step of the
    coordinate's step size 1 / (gamma (eps + G)) on the features (not the
    intercept), and the running squared norms if ``track_norms``. With
    ``dry_run`` only check that all are finite (the proximal step only shrinks)."""
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
            sum_sq = state[j, SUM_SQ_GRAD, 0] + curvature_0 * (x * x)
            state[j, SUM_SQ_GRAD, 0] = sum_sq
            state[j, WEIGHT, 0] -= step_0 * x / (eps + sum_sq)
        if intercept != 0.0:
            sum_sq = state[intercept_row, SUM_SQ_GRAD, 0] + curvature_0
            state[intercept_row, SUM_SQ_GRAD, 0] = sum_sq
            state[intercept_row, WEIGHT, 0] -= step_0 / (eps + sum_sq)
        return True
    for p in range(start, end + 1):
        if p < end:
            j = indices[p]
            x = data[p]
            l1_j = l1
        elif intercept != 0.0:
            j = intercept_row
            x = intercept
            l1_j = 0.0
        else:
            break
        for k in range(n_outputs):
            sum_sq = state[j, SUM_SQ_GRAD, k] + curvature[k] * (x * x)
            old_w = state[j, WEIGHT, k]
            if l1_j > 0.0 and not dry_run:
                # The same gradient step, then md_step's proximal part alone
                # (g = 0: the step is already in its first argument) at the
                # coordinate's step size 1 / (gamma A_ii).
                inverse_a = 1.0 / (eps + sum_sq)
                coordinate_step = inverse_gamma * inverse_a
                new_w = md_step(
                    old_w - step[k] * x * inverse_a, 0.0, coordinate_step, l1_j, 0.0
                )
                state[j, IDLE_DECAY, k] = md_idle_decay(coordinate_step, l1_j, 0.0)
            else:
                new_w = old_w - step[k] * x / (eps + sum_sq)
            if dry_run:
                finite &= math.isfinite(sum_sq) and math.isfinite(new_w)
            else:
                state[j, SUM_SQ_GRAD, k] = sum_sq
                state[j, WEIGHT, k] = new_w
                if track_norms:
                    norms[k] += new_w * new_w - old_w * old_w
    return finite


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
    and a step leaves the ball). ``norms[k]`` is |w_k|^2, kept current by the row
    updates when ``radius`` is finite (it decides whether to project). With
    ``l1`` > 0 the state also has :mod:`.lazy`'s slots (:func:`diag_start_lazy`
    fills them) and idle features shrink lazily; ``norms`` is then an upper bound,
    made exact (every feature caught up) before deciding to project. With
    an ``avg_slot`` (not None) the iterates are averaged after round ``a0``
    (:mod:`.averaging`; a projection settles every coordinate first); the first
    row is round ``t0 + 1``."""
    n_outputs = state.shape[2]
    project = math.isfinite(radius)
    regularized = l1 > 0.0
    intercept = 1.0 if fit_intercept else 0.0
    record_scores = row_scores.shape[0] > 0
    scores = np.empty(n_outputs)
    scaled_dloss = np.empty(n_outputs)
    step_bound = inverse_gamma / math.sqrt(eps)
    step = np.empty(n_outputs)
    curvature = np.empty(n_outputs)
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
        max_abs_x, max_abs_w = _scores_and_bounds(
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
        for k in range(n_outputs):
            step[k] = inverse_gamma * scaled_dloss[k]
            curvature[k] = (
                scaled_dloss[k] * (scaled_dloss[k] / weight) if weight else 0.0
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
            eps,
            l1,
            project,
        )
        bound = max_abs_w + step_bound * math.sqrt(weight)
        if not row_is_safe(scaled_dloss, max_abs_x, bound):
            if not _diag_row_update(*update, True):
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
        _diag_row_update(*update, False)
        if project:
            for k in range(n_outputs):
                if scaled_dloss[k] != 0.0 and norms[k] > radius * radius:
                    if regularized:
                        # Idle features have shrunk since norms last saw them.
                        if avg_slot is not None:
                            md_settle_all(state, avg_slot, t - 1, a0, l1, 0.0)
                        md_catch_up_all(state, t, l1, 0.0)
                        squared_norms(state, norms)
                        if norms[k] <= radius * radius:
                            continue
                    elif avg_slot is not None:
                        constant_settle_all(state, avg_slot, t - 1, a0)
                    norms[k] = project_diag(state, k, eps, radius)
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    if status != STATUS_OK and regularized:
        i = order[rows_done]
        md_unmark_row(indices, indptr[i], indptr[i + 1], state, t0 + rows_done + 1)
    return loss_sum, rows_done, status


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
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        start = indptr[i]
        end = indptr[i + 1]
        _scores_and_bounds(data, indices, start, end, state, fit_intercept, scores)
        if record_scores:
            copy_values(scores, row_scores[pos])
        row_loss = row_derivatives(
            loss, epsilon, targets[i], scores, row_weights[i], scaled_dloss
        )
        if not (all_finite(scores) and all_finite(scaled_dloss)):
            status = STATUS_NONFINITE_SCORE
            break
        # Every output's new values go to buffers first: a row is applied whole or
        # not at all.
        finite = True
        for k in range(n_outputs):
            c = scaled_dloss[k]
            if c == 0.0:
                continue
            matrix = a_inv[k]
            u = v[k]
            for q in range(size):
                u[q] = intercept * matrix[intercept_row, q]
            for p in range(start, end):
                x = data[p]
                row = matrix[indices[p]]
                for q in range(size):
                    u[q] += x * row[q]
            x_dot_u = intercept * u[intercept_row]
            for p in range(start, end):
                x_dot_u += data[p] * u[indices[p]]
            curvature = c * (c / row_weights[i])  # s d^2
            rho = 1.0 + curvature * x_dot_u
            step = inverse_gamma * c / rho
            scale = math.sqrt(curvature / rho)
            largest = 0.0
            for q in range(size):
                new_w[k, q] = state[q, WEIGHT, k] - step * u[q]
                u[q] *= scale  # u becomes v = sqrt(s d^2 / rho) u
                largest = max(largest, abs(u[q]))
            finite &= (
                math.isfinite(rho)
                and math.isfinite(largest * largest)
                and all_finite(new_w[k])
            )
        if not finite:
            status = STATUS_NONFINITE_UPDATE
            break
        if avg_slot is not None:
            constant_settle_all(state, avg_slot, t0 + pos, a0)
        for k in range(n_outputs):
            if scaled_dloss[k] == 0.0:
                continue
            matrix = a_inv[k]
            vk = v[k]
            for a in range(size):
                va = vk[a]
                row = matrix[a]
                for b in range(size):
                    row[b] -= va * vk[b]
            w = new_w[k]
            if project:
                norm_sq = 0.0
                for q in range(size):
                    norm_sq += w[q] * w[q]
                if norm_sq > radius * radius:
                    project_full(matrix, w, radius)
            for q in range(size):
                state[q, WEIGHT, k] = w[q]
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status


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
    """Frequent Directions' shrink of a full 2m-row sketch: keep the top m right
    singular directions with squared singular values reduced by the (m+1)-th one,
    zero the other rows, and set H = (eps I + S S^T)^{-1}, now diagonal.

    Row i of the new sketch is ``sqrt(max(1 - delta / sigma_i^2, 0)) U_i^T S``
    (= sqrt(sigma_i^2 - delta) V_i): a rotation of the old rows, scaled down, so
    S^T S loses exactly delta along each kept direction and everything along the
    others. If the rows span m dimensions or fewer, delta is 0 (up to rounding)
    and the sketch stays exact."""
    values, vectors = _sketch_eigen(sketch)
    drop = values[m]
    factors = np.zeros((m, vectors.shape[0]))
    for q in range(m):
        if values[q] > 0.0:
            scale = math.sqrt(max(1.0 - drop / values[q], 0.0))
            for c in range(vectors.shape[0]):
                factors[q, c] = scale * vectors[c, q]
    kept_rows = factors @ sketch
    sketch[:] = 0.0
    for q in range(m):
        copy_values(kept_rows[q], sketch[q])
    gram_inverse[:] = 0.0
    for q in range(gram_inverse.shape[0]):
        kept = max(values[q] - drop, 0.0) if q < m else 0.0
        gram_inverse[q, q] = 1.0 / (eps + kept)


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
    sketch,
    gram_inverse,
    r,
    eps,
    border,
    inverse_border,
):
    """Write h = c x~ into the zero row r of the sketch and border H with it:
    b = S_{<r} g, s = eps + |g|^2 - b^T H b (the Schur complement), q = H b, then
    H <- [[H + q q^T / s, -q / s], [-q^T / s, 1 / s]]. O(r (nnz + r))."""
    intercept_column = sketch.shape[1] - 1
    g_sq = (c * intercept) ** 2
    for p in range(start, end):
        g_sq += (c * data[p]) ** 2
    for q in range(r):
        row = sketch[q]
        total = c * intercept * row[intercept_column]
        for p in range(start, end):
            total += c * data[p] * row[indices[p]]
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
        new_row[indices[p]] = c * data[p]
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
    O(m^2 d) shrink every m rows.
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
    step_bound = inverse_gamma / math.sqrt(eps)
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        start = indptr[i]
        end = indptr[i + 1]
        max_abs_x, max_abs_w = _scores_and_bounds(
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
        root_weight = math.sqrt(row_weights[i])
        bound = max_abs_w + step_bound * root_weight
        if not row_is_safe(scaled_dloss, max_abs_x, bound):
            status = STATUS_NONFINITE_UPDATE
            break
        # A row whose x~ is 0 (no intercept, no non-zero value) has no gradient: it
        # must not take a sketch row (and cause a shrink) for nothing.
        empty = not fit_intercept
        for p in range(start, end):
            if data[p] != 0.0:
                empty = False
        if avg_slot is not None:
            constant_settle_all(state, avg_slot, t0 + pos, a0)
        for k in range(n_outputs):
            if scaled_dloss[k] == 0.0 or empty:
                continue
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
                direction[indices[p]] += c * data[p]
            direction[size - 1] += c * intercept
            scale = inverse_gamma * root_weight / eps
            w = state[:, WEIGHT, k]
            norm_sq = 0.0
            for q in range(size):
                w[q] -= scale * direction[q]
                norm_sq += w[q] * w[q]
            if project and norm_sq > radius * radius:
                projected = w.copy()
                project_sketch(sketch[k, :r], eps, projected, radius)
                copy_values(projected, w)
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status
