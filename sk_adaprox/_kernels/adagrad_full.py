"""Full-matrix AdaGrad (Duchi, Hazan & Singer 2011, section 4; docs/adagrad.md,
"The full matrix").

Per output, ``gram`` holds G, the sum of the gradients' outer products over
x~ = [x, 1] (the intercept's coordinate last; 0 there without an intercept), and
H = delta I + G^{1/2}. Each round's weights solve the composite problem of the
update rule (mirror descent or dual averaging) in the metric H:

    minimize  1/2 w^T Q w - b^T w + tau |w_features|_1,

with, for mirror descent, Q = H + eta l2 P, b = H w_t - eta g, tau = eta l1, and,
for dual averaging after t rounds, Q = H + eta t l2 P, b = -eta u, tau = eta t l1
(P keeps the features, not the intercept, which is never regularised). Without
l1 the weights are Q^{-1} b; with l1, coordinate descent from the current
weights, finished by feature-sign search (exact).

The state keeps the weights (``WEIGHT``), G's diagonal (``SUM_SQ_GRAD``, as the
diagonal AdaGrad's accumulator) and, for dual averaging, u (``SUM_GRAD``).
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
    copy_values,
    row_derivatives,
)
from .eigen_update import (
    apply_root,
    noise_level,
    rank_one_update,
    root_diagonal,
    root_from_spectrum,
    solve_root,
)
from .lazy import md_step

SUM_SQ_GRAD = 1
SUM_GRAD = 2  # dual averaging only

# Coordinate descent, the l1 solver's warm start, stops when no coordinate moves
# by more than this (relative to the weights' scale), or after this many sweeps;
# feature-sign search then finds the exact minimiser from there.
_CD_LOOSE = 1e-6
_CD_SWEEPS = 500
# A pass decomposes G afresh every this many rows, so that the rank-one
# updates' rounding does not accumulate over a long pass (one O(d^3)
# decomposition per this many O(d K^2) updates).
_REFRESH_ROWS = 1024


@jit
def _positive_definite_solve(A, b):
    """The solution of A x = b for a symmetric positive definite A (every
    system here is H + ridge P or a principal block of it, with H >= delta I),
    by Cholesky's factorisation; A and b are not changed. A loop of its own:
    ``np.linalg.solve`` compiled NumPy's formatted shape-mismatch error with
    it, about a tenth of the full matrix's first-call compile."""
    n = b.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        total = A[j, j]
        for k in range(j):
            total -= L[j, k] * L[j, k]
        L[j, j] = math.sqrt(total)
        for i in range(j + 1, n):
            total = A[i, j]
            for k in range(j):
                total -= L[i, k] * L[j, k]
            L[i, j] = total / L[j, j]
    x = np.empty(n)
    for i in range(n):  # L y = b
        total = b[i]
        for k in range(i):
            total -= L[i, k] * x[k]
        x[i] = total / L[i, i]
    for i in range(n - 1, -1, -1):  # L^T x = y
        total = x[i]
        for k in range(i + 1, n):
            total -= L[k, i] * x[k]
        x[i] = total / L[i, i]
    return x


@jit
def root_matrix(gram, delta):
    """H = delta I + G^{1/2}, explicit, from a fresh eigendecomposition of G
    (eigenvalues within rounding of zero count as zero:
    ``eigen_update.root_diagonal``)."""
    eigenvalues, vectors = np.linalg.eigh(gram)
    roots = np.empty(eigenvalues.shape[0])
    root_diagonal(eigenvalues, delta, roots)
    return root_from_spectrum(roots, vectors)


@jit
def _coordinate_descent(Q, b, tau, w, tolerance):
    """Minimise 1/2 w^T Q w - b^T w + tau |w[:-1]|_1 in place from ``w``."""
    size = w.shape[0]
    residual = b - Q @ w  # b - Q w, kept current
    for _ in range(_CD_SWEEPS):
        largest_move = 0.0
        largest_weight = 0.0
        for i in range(size):
            # The coordinate's minimiser z / Q_ii, soft-thresholded by
            # tau / Q_ii: the proximal step of lazy.md_step at step 1 / Q_ii.
            z = residual[i] + Q[i, i] * w[i]
            step = 1.0 / Q[i, i]
            new = md_step(z * step, 0.0, step, tau if i < size - 1 else 0.0, 0.0)
            move = new - w[i]
            if move != 0.0:
                for q in range(size):
                    residual[q] -= move * Q[q, i]
                w[i] = new
            largest_move = max(largest_move, abs(move))
            largest_weight = max(largest_weight, abs(new))
        if largest_move <= tolerance * (1.0 + largest_weight):
            return


@jit
def _objective(Q, b, tau, w):
    size = w.shape[0]
    value = 0.0
    for i in range(size):
        row = 0.0
        for j in range(size):
            row += Q[i, j] * w[j]
        value += 0.5 * w[i] * row - b[i] * w[i]
        if i < size - 1:
            value += tau * abs(w[i])
    return value


@jit
def _solve_signed(Q, b, tau, signs, active):
    """The minimiser of the quadratic on the active coordinates with the
    features' signs fixed: Q_SS w_S = b_S - tau signs_S (zero elsewhere)."""
    size = signs.shape[0]
    support = np.flatnonzero(active)
    n = support.shape[0]
    system = np.empty((n, n))
    right = np.empty(n)
    for a in range(n):
        i = support[a]
        right[a] = b[i] - tau * signs[i]
        for c in range(n):
            system[a, c] = Q[i, support[c]]
    solved = _positive_definite_solve(system, right)
    out = np.zeros(size)
    for a in range(n):
        out[support[a]] = solved[a]
    return out


@jit
def _feature_sign_search(Q, b, tau, w):
    """The exact minimiser of 1/2 w^T Q w - b^T w + tau |w[:-1]|_1 (Q positive
    definite), from ``w``, by feature-sign search (Lee, Battle, Raina & Ng,
    "Efficient sparse coding algorithms", NIPS 2006): solve on the active
    coordinates with their signs fixed, move towards that solution as far as the
    objective falls (dropping a coordinate that reaches zero), and activate the
    zero feature that most violates its optimality condition |b_i - (Q w)_i| <=
    tau, until none does. Each step lowers the objective, so no sign pattern
    comes back and the search ends. Returns whether it ended within its steps."""
    size = w.shape[0]
    last = size - 1
    signs = np.zeros(size)
    active = np.zeros(size, dtype=np.bool_)
    active[last] = True  # the intercept: free, never thresholded
    for i in range(last):
        if w[i] != 0.0:
            active[i] = True
            signs[i] = math.copysign(1.0, w[i])
    for _ in range(20 * size + 20):
        target = _solve_signed(Q, b, tau, signs, active)
        # The segment from w to target: its end, or where a feature first
        # changes sign, whichever has the lower objective.
        best = target
        best_value = _objective(Q, b, tau, target)
        consistent = True
        for i in range(last):
            if active[i] and target[i] * signs[i] <= 0.0:
                consistent = False
                step = w[i] / (w[i] - target[i]) if w[i] != target[i] else 0.0
                point = w + step * (target - w)
                point[i] = 0.0
                value = _objective(Q, b, tau, point)
                if value < best_value:
                    best, best_value = point, value
        for i in range(size):
            w[i] = best[i]
        for i in range(last):
            if active[i] and w[i] == 0.0:
                active[i] = False
                signs[i] = 0.0
            elif active[i]:
                signs[i] = math.copysign(1.0, w[i])
        if not consistent:
            continue
        gradient = b - Q @ w
        worst, worst_excess = -1, tau * 1e-12
        for i in range(last):
            excess = abs(gradient[i]) - tau
            if not active[i] and excess > worst_excess:
                worst, worst_excess = i, excess
        if worst < 0:
            return True
        active[worst] = True
        signs[worst] = math.copysign(1.0, gradient[worst])
    return False


@jit
def composite_solve(Q, b, ridge, tau, w):
    """The minimiser of 1/2 w^T (H + ridge P) w - b^T w + tau |w[:-1]|_1, in
    ``w`` (which holds the starting point of the l1 solver). ``Q`` holds H and
    is overwritten (every caller builds H for this one solve)."""
    size = w.shape[0]
    for i in range(size - 1):
        Q[i, i] += ridge
    if tau == 0.0:
        solved = _positive_definite_solve(Q, b)
        for i in range(size):
            w[i] = solved[i]
        return
    # Coordinate descent finds the support quickly from the current weights;
    # feature-sign search makes the result exact.
    _coordinate_descent(Q, b, tau, w, _CD_LOOSE)
    _feature_sign_search(Q, b, tau, w)


@jit
def row_vector(data, indices, start, end, intercept, x):
    """x~ of the row, dense, in ``x`` (zeros elsewhere)."""
    for p in range(start, end):
        x[indices[p]] += data[p]
    x[x.shape[0] - 1] = intercept


@jit
def clear_row_vector(indices, start, end, x):
    for p in range(start, end):
        x[indices[p]] = 0.0
    x[x.shape[0] - 1] = 0.0


@jit
def output_scores(data, indices, start, end, state, intercept, scores):
    last = state.shape[0] - 1
    for k in range(scores.shape[0]):
        scores[k] = intercept * state[last, WEIGHT, k]
    for p in range(start, end):
        j = indices[p]
        for k in range(scores.shape[0]):
            scores[k] += data[p] * state[j, WEIGHT, k]


@jit
def begin_row(
    data, indices, start, end, state, intercept, target, row_weight, loss, epsilon,
    scores, scaled_dloss, recorded_scores, x,
):  # fmt: skip
    """A matrix pass's start of a row: every output's score (copied into
    ``recorded_scores``, the row's slice of the pass's record of scores: one
    row, or none when nothing is recorded), the scaled loss derivatives, and
    x~ dense in ``x``. Returns the row's loss and whether the scores and the
    derivatives are finite (if not, ``x`` is left as it was)."""
    output_scores(data, indices, start, end, state, intercept, scores)
    if recorded_scores.shape[0] > 0:
        copy_values(scores, recorded_scores[0])
    row_loss = row_derivatives(loss, epsilon, target, scores, row_weight, scaled_dloss)
    if not (all_finite(scores) and all_finite(scaled_dloss)):
        return row_loss, False
    row_vector(data, indices, start, end, intercept, x)
    return row_loss, True


@jit
def _add_outer(gram, indices, start, end, x, scale, out):
    """``out = gram + scale * x x^T`` (x non-zero on the row's features and the
    intercept only: O(d^2) to copy, O(nnz^2) to add)."""
    size = gram.shape[0]
    last = size - 1
    for a in range(size):
        for c in range(size):
            out[a, c] = gram[a, c]
    if scale == 0.0:
        return
    for p in range(start, end + 1):
        a = indices[p] if p < end else last
        xa = x[a]
        if xa == 0.0:
            continue
        for q in range(start, end + 1):
            c = indices[q] if q < end else last
            out[a, c] += scale * xa * x[c]


@jit
def _gradient_coordinates(vectors, indices, start, end, x, c, z):
    """``z = V^T g`` for the row's gradient g = c x~ (O(d) per non-zero)."""
    size = vectors.shape[0]
    last = size - 1
    for i in range(size):
        z[i] = 0.0
    for p in range(start, end + 1):
        j = indices[p] if p < end else last
        scale = c * x[j]
        if scale == 0.0:
            continue
        for i in range(size):
            z[i] += scale * vectors[j, i]


@jit
def _eigendecompose(gram, values, vectors):
    """``values`` and ``vectors`` (columns) of G, afresh."""
    fresh_values, fresh_vectors = np.linalg.eigh(gram)
    for i in range(values.shape[0]):
        values[i] = fresh_values[i]
        copy_values(fresh_vectors[i], vectors[i])


@jit
def _step(
    values, vectors, w, b, g, eta, delta, ridge, tau, dual_averaging, H_w, l1_solvers
):
    """The rule's composite step (module docstring) for H = delta I + G^{1/2}
    given by G's eigendecomposition, into ``w`` (which holds the weights before
    it): without l1, H's and (H + ridge P)'s solves in G's eigenbasis, O(d^2);
    with l1, the solvers on H formed explicitly. ``l1_solvers`` is True with
    l1, None without: Numba then leaves the l1 solvers out of the compiled code
    (a branch on an argument that is None is pruned before typing)."""
    size = w.shape[0]
    roots = np.empty(size)
    root_diagonal(values, delta, roots)
    if not dual_averaging:  # b = H w_t - eta g
        apply_root(roots, vectors, w, H_w)
        for q in range(size):
            b[q] = H_w[q] - eta * g[q]
    if l1_solvers is None or tau == 0.0:
        solve_root(roots, vectors, b, ridge, w)
    else:
        composite_solve(root_from_spectrum(roots, vectors), b, ridge, tau, w)


@jit
def full_pass(
    data,
    indices,
    indptr,
    targets,
    row_weights,
    order,
    state,
    gram,
    row_scores,
    loss,
    epsilon,
    eta,
    delta,
    l1,
    l2,
    dual_averaging,
    fit_intercept,
    t0,
    l1_solvers,
):
    """One pass of full-matrix AdaGrad over the rows in ``order``: per row and
    output, G += g g^T, its eigendecomposition updated by the rank-one change
    (``eigen_update``; afresh from G at the pass's start and every
    ``_REFRESH_ROWS`` rows, and where the deflation's left-out mass reaches
    the root's noise level), and the rule's composite step in H = delta I +
    G^{1/2} (module docstring). Every output's new weights, G and
    eigendecomposition are computed before any is stored: a row is applied
    whole or not at all. The first row is round ``t0 + 1``. ``l1_solvers``:
    True with l1, None without (which then compiles none of the l1 solvers)."""
    n_outputs = state.shape[2]
    size = state.shape[0]
    last = size - 1
    intercept = 1.0 if fit_intercept else 0.0
    regularized = l1 > 0.0 or l2 > 0.0
    record = 1 if row_scores.shape[0] > 0 else 0  # rows of row_scores per row
    scores = np.empty(n_outputs)
    scaled_dloss = np.empty(n_outputs)
    x = np.zeros(size)
    g = np.zeros(size)
    z = np.empty(size)
    H_w = np.empty(size)
    new_gram = np.empty((n_outputs, size, size))
    values = np.empty((n_outputs, size))
    vectors = np.empty((n_outputs, size, size))
    new_values = np.empty((n_outputs, size))
    new_vectors = np.empty((n_outputs, size, size))
    # Per output, the mass the updates' deflation left out since G was last
    # decomposed afresh, and the row's.
    drift = np.zeros(n_outputs)
    new_drift = np.zeros(n_outputs)
    new_w = np.empty((n_outputs, size))
    b = np.empty(size)
    moves = np.zeros(n_outputs, dtype=np.bool_)
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        if pos % _REFRESH_ROWS == 0:
            for k in range(n_outputs):
                _eigendecompose(gram[k], values[k], vectors[k])
                drift[k] = 0.0
        i = order[pos]
        t = t0 + pos + 1
        start, end = indptr[i], indptr[i + 1]
        row_loss, finite = begin_row(
            data, indices, start, end, state, intercept, targets[i], row_weights[i],
            loss, epsilon, scores, scaled_dloss, row_scores[pos : pos + record], x,
        )  # fmt: skip
        if not finite:
            status = STATUS_NONFINITE_SCORE
            break
        finite = True
        for k in range(n_outputs):
            c = scaled_dloss[k]
            # Without a gradient, the weights move only by the regulariser
            # (mirror descent's proximal step; dual averaging's t).
            moves[k] = c != 0.0 or regularized
            if not moves[k]:
                continue
            _add_outer(gram[k], indices, start, end, x, c * c, new_gram[k])
            # An overflowing gradient stops here, before the eigenproblem.
            if not all_finite(new_gram[k].ravel()):
                finite = False
                break
            _gradient_coordinates(vectors[k], indices, start, end, x, c, z)
            info, dropped = rank_one_update(
                values[k], vectors[k], z, new_values[k], new_vectors[k]
            )
            new_drift[k] = drift[k] + dropped
            # G afresh where a root did not converge, or where the left-out
            # mass could be told from zero in the root.
            if info != 0 or new_drift[k] > noise_level(new_values[k]):
                _eigendecompose(new_gram[k], new_values[k], new_vectors[k])
                new_drift[k] = 0.0
            w = new_w[k]
            for q in range(size):
                w[q] = state[q, WEIGHT, k]
                g[q] = c * x[q]
            if dual_averaging:
                for q in range(size):
                    b[q] = -eta * (state[q, SUM_GRAD, k] + g[q])
                ridge, tau = eta * t * l2, eta * t * l1
            else:
                ridge, tau = eta * l2, eta * l1
            _step(
                new_values[k], new_vectors[k], w, b, g, eta, delta, ridge, tau,
                dual_averaging, H_w, l1_solvers,
            )  # fmt: skip
            finite &= all_finite(w)
        if not finite:
            status = STATUS_NONFINITE_UPDATE
            clear_row_vector(indices, start, end, x)
            break
        for k in range(n_outputs):
            if not moves[k]:
                continue
            c = scaled_dloss[k]
            for a in range(size):
                copy_values(new_gram[k, a], gram[k, a])
                copy_values(new_vectors[k, a], vectors[k, a])
                state[a, WEIGHT, k] = new_w[k, a]
            copy_values(new_values[k], values[k])
            drift[k] = new_drift[k]
            for p in range(start, end + 1):
                j = indices[p] if p < end else last
                g_j = c * x[j]
                state[j, SUM_SQ_GRAD, k] += g_j * g_j
                if dual_averaging:
                    state[j, SUM_GRAD, k] += g_j
        clear_row_vector(indices, start, end, x)
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status


@jit
def da_weights_all(state, gram, t, eta, delta, l1, l2):
    """Every output's dual-averaging weights at round t, computed again from u,
    G and t: after a change of the parameters (mirror descent's weights are
    kept as they are)."""
    size = state.shape[0]
    w = np.empty(size)
    b = np.empty(size)
    for k in range(state.shape[2]):
        H = root_matrix(gram[k], delta)
        for q in range(size):
            w[q] = state[q, WEIGHT, k]
            b[q] = -eta * state[q, SUM_GRAD, k]
        composite_solve(H, b, eta * t * l2, eta * t * l1, w)
        for q in range(size):
            state[q, WEIGHT, k] = w[q]


@jit
def sum_grad_from_weights(state, gram, t, eta, delta, l1, l2):
    """Dual averaging's u that gives the state's weights at round t (assigned
    weights): from the optimality conditions Q w + eta u + tau s = 0, with s the
    features' signs (0 where a weight is 0, whose condition then holds)."""
    size = state.shape[0]
    w = np.empty(size)
    for k in range(state.shape[2]):
        H = root_matrix(gram[k], delta)
        for q in range(size):
            w[q] = state[q, WEIGHT, k]
        Qw = H @ w
        for q in range(size):
            ridge = eta * t * l2 if q < size - 1 else 0.0
            sign = 0.0
            if q < size - 1 and w[q] != 0.0:
                sign = math.copysign(1.0, w[q])
            value = Qw[q] + ridge * w[q] + eta * t * l1 * sign
            state[q, SUM_GRAD, k] = -value / eta
