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
weights, finished by the exact solve on the support it found.

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

SUM_SQ_GRAD = 1
SUM_GRAD = 2  # dual averaging only

# Coordinate descent stops when no coordinate moves by more than a tolerance
# (relative to the weights' scale), or after this many sweeps; the exact solve on
# the support then removes what is left. A loose tolerance finds the support in
# few sweeps; where the solve on it fails its checks, a tight one runs on.
_CD_LOOSE = 1e-6
_CD_TIGHT = 1e-13
_CD_SWEEPS = 500
_EPSILON = np.finfo(np.float64).eps


@jit
def root_matrix(gram, delta):
    """H = delta I + G^{1/2}, G's root by its eigendecomposition. Eigenvalues
    within rounding of zero (below the largest times the size times the
    machine epsilon, numpy's matrix_rank tolerance) count as zero: the root
    would turn their rounding noise of 1e-16 into 1e-8."""
    eigenvalues, vectors = np.linalg.eigh(gram)
    size = eigenvalues.shape[0]
    noise = max(eigenvalues[size - 1], 0.0) * size * _EPSILON
    scaled = vectors.copy()
    for i in range(size):
        value = eigenvalues[i] if eigenvalues[i] > noise else 0.0
        root = delta + math.sqrt(value)
        for q in range(scaled.shape[0]):
            scaled[q, i] *= root
    return scaled @ vectors.T


@jit
def _soft_threshold(z, tau):
    if z > tau:
        return z - tau
    if z < -tau:
        return z + tau
    return 0.0


@jit
def _coordinate_descent(Q, b, tau, w, tolerance):
    """Minimise 1/2 w^T Q w - b^T w + tau |w[:-1]|_1 in place from ``w``."""
    size = w.shape[0]
    residual = b - Q @ w  # b - Q w, kept current
    for _ in range(_CD_SWEEPS):
        largest_move = 0.0
        largest_weight = 0.0
        for i in range(size):
            z = residual[i] + Q[i, i] * w[i]
            new = _soft_threshold(z, tau if i < size - 1 else 0.0) / Q[i, i]
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
def _solve_on_support(Q, b, tau, w):
    """Replace ``w`` by the exact solution of the optimality conditions on its
    support (the non-zero features and the intercept): Q_SS w_S = b_S -
    tau sign(w_S). Kept only where it has the same signs and the features off
    the support stay optimal at zero (|b_i - Q_iS w_S| <= tau); returns whether
    it was."""
    size = w.shape[0]
    support = np.empty(size, dtype=np.int64)
    n = 0
    for i in range(size):
        if w[i] != 0.0 or i == size - 1:
            support[n] = i
            n += 1
    support = support[:n]
    system = np.empty((n, n))
    right = np.empty(n)
    for a in range(n):
        i = support[a]
        right[a] = b[i] - (tau * math.copysign(1.0, w[i]) if i < size - 1 else 0.0)
        for c in range(n):
            system[a, c] = Q[i, support[c]]
    solved = np.linalg.solve(system, right)
    for a in range(n):
        i = support[a]
        if i < size - 1 and solved[a] * w[i] <= 0.0:
            return False
    for i in range(size - 1):
        if w[i] != 0.0:
            continue
        gradient = b[i]
        for a in range(n):
            gradient -= Q[i, support[a]] * solved[a]
        if abs(gradient) > tau * (1.0 + 1e-12):
            return False
    for a in range(n):
        w[support[a]] = solved[a]
    return True


@jit
def composite_solve(H, b, ridge, tau, w):
    """The minimiser of 1/2 w^T (H + ridge P) w - b^T w + tau |w[:-1]|_1, in
    ``w`` (which holds the starting point of the l1 solver)."""
    size = w.shape[0]
    Q = H.copy()
    for i in range(size - 1):
        Q[i, i] += ridge
    if tau == 0.0:
        solved = np.linalg.solve(Q, b)
        for i in range(size):
            w[i] = solved[i]
        return
    _coordinate_descent(Q, b, tau, w, _CD_LOOSE)
    if not _solve_on_support(Q, b, tau, w):
        _coordinate_descent(Q, b, tau, w, _CD_TIGHT)
        _solve_on_support(Q, b, tau, w)


@jit
def _row_vector(data, indices, start, end, intercept, x):
    """x~ of the row, dense, in ``x`` (zeros elsewhere)."""
    for p in range(start, end):
        x[indices[p]] += data[p]
    x[x.shape[0] - 1] = intercept


@jit
def _clear_row_vector(indices, start, end, x):
    for p in range(start, end):
        x[indices[p]] = 0.0
    x[x.shape[0] - 1] = 0.0


@jit
def _row_scores(data, indices, start, end, state, intercept, scores):
    last = state.shape[0] - 1
    for k in range(scores.shape[0]):
        scores[k] = intercept * state[last, WEIGHT, k]
    for p in range(start, end):
        j = indices[p]
        for k in range(scores.shape[0]):
            scores[k] += data[p] * state[j, WEIGHT, k]


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
):
    """One pass of full-matrix AdaGrad over the rows in ``order``: per row and
    output, G += g g^T, H = delta I + G^{1/2} by an eigendecomposition (O(d^3)),
    and the rule's composite step in H (module docstring). Every output's new
    weights and G are computed before any is stored: a row is applied whole or
    not at all. The first row is round ``t0 + 1``."""
    n_outputs = state.shape[2]
    size = state.shape[0]
    last = size - 1
    intercept = 1.0 if fit_intercept else 0.0
    regularized = l1 > 0.0 or l2 > 0.0
    record_scores = row_scores.shape[0] > 0
    scores = np.empty(n_outputs)
    scaled_dloss = np.empty(n_outputs)
    x = np.zeros(size)
    new_gram = np.empty((n_outputs, size, size))
    new_w = np.empty((n_outputs, size))
    b = np.empty(size)
    moves = np.zeros(n_outputs, dtype=np.bool_)
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        t = t0 + pos + 1
        start, end = indptr[i], indptr[i + 1]
        _row_scores(data, indices, start, end, state, intercept, scores)
        if record_scores:
            copy_values(scores, row_scores[pos])
        row_loss = row_derivatives(
            loss, epsilon, targets[i], scores, row_weights[i], scaled_dloss
        )
        if not (all_finite(scores) and all_finite(scaled_dloss)):
            status = STATUS_NONFINITE_SCORE
            break
        _row_vector(data, indices, start, end, intercept, x)
        finite = True
        for k in range(n_outputs):
            c = scaled_dloss[k]
            # Without a gradient, the weights move only by the regulariser
            # (mirror descent's proximal step; dual averaging's t).
            moves[k] = c != 0.0 or regularized
            if not moves[k]:
                continue
            _add_outer(gram[k], indices, start, end, x, c * c, new_gram[k])
            H = root_matrix(new_gram[k], delta)
            w = new_w[k]
            for q in range(size):
                w[q] = state[q, WEIGHT, k]
            if dual_averaging:
                for q in range(size):
                    b[q] = -eta * (state[q, SUM_GRAD, k] + c * x[q])
                composite_solve(H, b, eta * t * l2, eta * t * l1, w)
            else:
                Hw = H @ w
                for q in range(size):
                    b[q] = Hw[q] - eta * c * x[q]
                composite_solve(H, b, eta * l2, eta * l1, w)
            finite &= all_finite(w) and all_finite(H[last])
        if not finite:
            status = STATUS_NONFINITE_UPDATE
            _clear_row_vector(indices, start, end, x)
            break
        for k in range(n_outputs):
            if not moves[k]:
                continue
            c = scaled_dloss[k]
            for a in range(size):
                copy_values(new_gram[k, a], gram[k, a])
                state[a, WEIGHT, k] = new_w[k, a]
            for p in range(start, end + 1):
                j = indices[p] if p < end else last
                g = c * x[j]
                state[j, SUM_SQ_GRAD, k] += g * g
                if dual_averaging:
                    state[j, SUM_GRAD, k] += g
        _clear_row_vector(indices, start, end, x)
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status


@jit
def weights_all(state, gram, t, eta, delta, l1, l2, dual_averaging):
    """Every output's weights at round t, computed again from G (and u): after
    a change of the parameters (dual averaging's weights are a function of u,
    G and t; mirror descent's are kept as they are)."""
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
