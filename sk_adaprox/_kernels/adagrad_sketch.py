"""Sketched full-matrix AdaGrad (Ada-FD: Wan & Zhang 2016, "Efficient Adaptive
Online Learning via Frequent Directions"; docs/adagrad.md, "The sketched
matrix").

Per output, a Frequent Directions sketch S (``sketch``, 2m rows over
x~ = [x, 1]) of the gradients stands for G = sum g g^T, and H = delta I +
(S^T S)^{1/2}. The kernel keeps S S^T (``sketch_gram``) with it, so that every
product is with S alone: with S S^T = U diag(sigma^2) U^T, the right singular
vectors are V = S^T W, W = U diag(1/sigma) (directions with sigma^2 within
rounding of zero dropped), and

    H w = delta w + S^T (W diag(sigma) W^T) S w,
    (D + V diag(sigma) V^T)^{-1} b  by Woodbury:  D^{-1} b - D^{-1} V y,
        (diag(1/sigma) + V^T D^{-1} V) y = V^T D^{-1} b,
    V^T D^{-1} V = W^T (a S S^T + (c - a) s s^T) W,

for D diagonal (a = 1 / D_ii on the features, c on the intercept; s = S's
intercept column): O(m d) a row and output, not O(d^2) or O(d^3). The rules'
steps are the full matrix's without l1 (module ``adagrad_full``): mirror
descent's w = Q^{-1} (H w_t - eta g), dual averaging's w = -eta Q^{-1} u, with
Q = H + ridge P (P: the features, not the intercept).
"""

import math

import numpy as np

from ._jit import jit
from .adagrad_full import (
    SUM_GRAD,
    SUM_SQ_GRAD,
    clear_row_vector,
    output_scores,
    row_vector,
)
from .common import (
    STATUS_NONFINITE_SCORE,
    STATUS_NONFINITE_UPDATE,
    STATUS_OK,
    WEIGHT,
    all_finite,
    copy_values,
    row_derivatives,
)
from .frequent_directions import eigen_descending, fd_shrink

_EPSILON = np.finfo(np.float64).eps


@jit
def sketch_basis(sketch_gram, rows, size):
    """(sigma^2, W) of the sketch's first ``rows`` rows: the nonzero squared
    singular values (descending) and W = U diag(1/sigma), one column each.
    Values below the largest times ``size`` times the machine epsilon count as
    zero, as the full matrix's root counts G's (numpy's matrix_rank tolerance)."""
    if rows == 0:
        return np.empty(0), np.empty((0, 0))
    values, vectors = eigen_descending(np.ascontiguousarray(sketch_gram[:rows, :rows]))
    noise = values[0] * size * _EPSILON
    rank = 0
    while rank < rows and values[rank] > noise:
        rank += 1
    basis = np.empty((rows, rank))
    for j in range(rank):
        inverse_sigma = 1.0 / math.sqrt(values[j])
        for a in range(rows):
            basis[a, j] = vectors[a, j] * inverse_sigma
    return values[:rank].copy(), basis


@jit
def root_times(sketch, rows, values, basis, delta, w, out):
    """``out = H w = delta w + V diag(sigma) V^T w``."""
    if values.shape[0] == 0:
        for q in range(w.shape[0]):
            out[q] = delta * w[q]
        return
    coefficients = basis.T @ (sketch[:rows] @ w)  # V^T w
    for j in range(values.shape[0]):
        coefficients[j] *= math.sqrt(values[j])
    back = sketch[:rows].T @ (basis @ coefficients)
    for q in range(w.shape[0]):
        out[q] = delta * w[q] + back[q]


@jit
def solve(sketch, sketch_gram, rows, values, basis, delta, ridge, b, out):
    """``out = Q^{-1} b`` for Q = H + ridge P, by Woodbury (module docstring)."""
    size = b.shape[0]
    rank = values.shape[0]
    inverse_features = 1.0 / (delta + ridge)
    inverse_intercept = 1.0 / delta
    for q in range(size - 1):
        out[q] = b[q] * inverse_features
    out[size - 1] = b[size - 1] * inverse_intercept
    if rank == 0:
        return
    used = sketch[:rows]
    column = used[:, size - 1].copy()
    weighted_gram = inverse_features * sketch_gram[:rows, :rows]
    correction = inverse_intercept - inverse_features
    for a in range(rows):
        for c in range(rows):
            weighted_gram[a, c] += correction * column[a] * column[c]
    system = basis.T @ weighted_gram @ basis
    for j in range(rank):
        system[j, j] += 1.0 / math.sqrt(values[j])
    y = np.linalg.solve(system, basis.T @ (used @ out))
    back = used.T @ (basis @ y)
    for q in range(size - 1):
        out[q] -= inverse_features * back[q]
    out[size - 1] -= inverse_intercept * back[size - 1]


@jit
def _insert(sketch, sketch_gram, rows, x, c, indices, start, end):
    """Write g = c x~ into the zero row ``rows`` and border S S^T with it (its
    new column is S g); O(rows times the row's non-zeros). Returns |g|^2 (0:
    nothing was written)."""
    size = sketch.shape[1]
    last = size - 1
    g_sq = 0.0
    for p in range(start, end + 1):
        j = indices[p] if p < end else last
        g_sq += (c * x[j]) ** 2
    if g_sq == 0.0:
        return 0.0
    for q in range(rows):
        total = 0.0
        for p in range(start, end + 1):
            j = indices[p] if p < end else last
            total += sketch[q, j] * c * x[j]
        sketch_gram[q, rows] = total
        sketch_gram[rows, q] = total
    sketch_gram[rows, rows] = g_sq
    for p in range(start, end + 1):
        j = indices[p] if p < end else last
        sketch[rows, j] = c * x[j]
    return g_sq


@jit
def _remove(sketch, sketch_gram, rows):
    """Undo ``_insert`` of row ``rows``."""
    for j in range(sketch.shape[1]):
        sketch[rows, j] = 0.0
    for q in range(sketch_gram.shape[0]):
        sketch_gram[rows, q] = 0.0
        sketch_gram[q, rows] = 0.0


@jit
def _shrink_if_full(sketch, sketch_gram, sketch_rows, products, k, m):
    """Shrink output k's sketch when its 2m rows are used, and carry the
    products S v of the pass (``products[k]``) over to the new rows."""
    if sketch_rows[k] < 2 * m:
        return
    kept, factors = fd_shrink(sketch[k], m)
    sketch_gram[k] = 0.0
    for q in range(m):
        sketch_gram[k, q, q] = kept[q]
    carried = factors @ products[k]
    products[k] = 0.0
    for q in range(m):
        products[k, q] = carried[q]
    sketch_rows[k] = m


@jit
def _scaled_products(a, intercept_gap, column, product, last_value, out):
    """``out = S D^{-1} v`` from ``product`` = S v and v's intercept entry: D^{-1}
    is a I plus ``intercept_gap`` on the intercept (``column`` = S's intercept
    column)."""
    for q in range(out.shape[0]):
        out[q] = a * product[q] + intercept_gap * column[q] * last_value


@jit
def _gram_times(sketch_gram, rows, a, intercept_gap, column, v):
    """(S D^{-1} S^T) v = (a S S^T + gap s s^T) v, for S's first ``rows`` rows."""
    out = np.empty(rows)
    along = 0.0
    for q in range(rows):
        along += column[q] * v[q]
    for q in range(rows):
        total = 0.0
        for c in range(rows):
            total += sketch_gram[q, c] * v[c]
        out[q] = a * total + intercept_gap * column[q] * along
    return out


@jit
def _woodbury_coefficients(sketch_gram, rows, values, basis, a, gap, column, p):
    """W y, with y solving (diag(1/sigma) + W^T (S D^{-1} S^T) W) y = W^T p."""
    rank = values.shape[0]
    if rank == 0:
        return np.zeros(rows)
    weighted = np.empty((rows, rank))
    for j in range(rank):
        product = _gram_times(sketch_gram, rows, a, gap, column, basis[:, j])
        for q in range(rows):
            weighted[q, j] = product[q]
    system = basis.T @ weighted
    for j in range(rank):
        system[j, j] += 1.0 / math.sqrt(values[j])
    y = np.linalg.solve(system, basis.T @ p)
    return basis @ y


@jit
def _row_step(sketch, sketch_gram, rows, product, sg, x, c, w, u, step, out):
    """The rule's new weights of one output after the row (module docstring),
    with one product of S^T a vector (O(rows d)); ``product`` holds S w_t
    (mirror descent) or S u (dual averaging, u with the row's gradient) and is
    brought to S w_{t+1} for mirror descent. ``sg`` is S g."""
    eta, delta, ridge, dual_averaging = step
    size = w.shape[0]
    last = size - 1
    a = 1.0 / (delta + ridge)
    gap = 1.0 / delta - a
    column = np.ascontiguousarray(sketch[:rows, last])
    values, basis = sketch_basis(sketch_gram, rows, size)
    p = np.empty(rows)
    if dual_averaging:
        # w = -eta Q^{-1} u = D^{-1} (-eta u) - D^{-1} S^T W y
        _scaled_products(a, gap, column, product, u[last] + c * x[last], p)
        for q in range(rows):
            p[q] *= -eta
        beta = -_woodbury_coefficients(
            sketch_gram, rows, values, basis, a, gap, column, p
        )
    else:
        # b = delta w_t - eta g + S^T alpha, alpha = W diag(sigma) W^T S w_t;
        # w_{t+1} = D^{-1} (delta w_t - eta g + S^T (alpha - W y)).
        alpha = np.zeros(rows)
        if values.shape[0] > 0:
            along = basis.T @ product[:rows]
            for j in range(values.shape[0]):
                along[j] *= math.sqrt(values[j])
            alpha = basis @ along
        sw = np.empty(rows)
        sgd = np.empty(rows)
        _scaled_products(a, gap, column, product, w[last], sw)
        _scaled_products(a, gap, column, sg, c * x[last], sgd)
        moved = _gram_times(sketch_gram, rows, a, gap, column, alpha)
        for q in range(rows):
            p[q] = delta * sw[q] - eta * sgd[q] + moved[q]
        W_y = _woodbury_coefficients(
            sketch_gram, rows, values, basis, a, gap, column, p
        )
        beta = alpha - W_y
        moved = _gram_times(sketch_gram, rows, a, gap, column, beta)
        for q in range(rows):
            product[q] = delta * sw[q] - eta * sgd[q] + moved[q]
    back = sketch[:rows].T @ beta if rows > 0 else np.zeros(size)
    for q in range(size):
        inverse = 1.0 / delta if q == last else a
        if dual_averaging:
            out[q] = inverse * (-eta * (u[q] + c * x[q]) + back[q])
        else:
            out[q] = inverse * (delta * w[q] - eta * c * x[q] + back[q])


@jit
def _products_at_start(sketch, sketch_rows, state, slot):
    """S v of every output's sketch and state slot (the weights, or u)."""
    n_outputs, two_m = sketch.shape[0], sketch.shape[1]
    products = np.zeros((n_outputs, two_m))
    for k in range(n_outputs):
        rows = sketch_rows[k]
        for q in range(rows):
            total = 0.0
            for j in range(sketch.shape[2]):
                total += sketch[k, q, j] * state[j, slot, k]
            products[k, q] = total
    return products


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
    sketch_gram,
    sketch_rows,
    row_scores,
    loss,
    epsilon,
    eta,
    delta,
    l2,
    m,
    dual_averaging,
    fit_intercept,
    t0,
):
    """One pass of sketched AdaGrad over the rows in ``order``: per row and
    output, g = c x~ written into the sketch (shrunk first when its 2m rows are
    used) and the rule's step in H (module docstring). Every output's weights
    are computed before any is stored and a row whose step is not finite is
    taken out of the sketches again: a row is applied whole or not at all (a
    shrink before it stays; it is the one the row's insertion would repeat).
    The first row is round ``t0 + 1``."""
    n_outputs = state.shape[2]
    size = state.shape[0]
    last = size - 1
    intercept = 1.0 if fit_intercept else 0.0
    record_scores = row_scores.shape[0] > 0
    scores = np.empty(n_outputs)
    scaled_dloss = np.empty(n_outputs)
    x = np.zeros(size)
    new_w = np.empty((n_outputs, size))
    # S w (mirror descent) or S u (dual averaging), kept current through the
    # pass: a row's step then needs one product with S, not four.
    products = _products_at_start(
        sketch, sketch_rows, state, SUM_GRAD if dual_averaging else WEIGHT
    )
    new_products = products.copy()
    sg = np.zeros(sketch.shape[1])
    inserted = np.zeros(n_outputs, dtype=np.bool_)
    moves = np.zeros(n_outputs, dtype=np.bool_)
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        t = t0 + pos + 1
        start, end = indptr[i], indptr[i + 1]
        output_scores(data, indices, start, end, state, intercept, scores)
        if record_scores:
            copy_values(scores, row_scores[pos])
        row_loss = row_derivatives(
            loss, epsilon, targets[i], scores, row_weights[i], scaled_dloss
        )
        if not (all_finite(scores) and all_finite(scaled_dloss)):
            status = STATUS_NONFINITE_SCORE
            break
        row_vector(data, indices, start, end, intercept, x)
        ridge = eta * t * l2 if dual_averaging else eta * l2
        step = (eta, delta, ridge, dual_averaging)
        finite = True
        for k in range(n_outputs):
            c = scaled_dloss[k]
            moves[k] = c != 0.0 or l2 > 0.0
            inserted[k] = False
            if not moves[k]:
                continue
            if c != 0.0:
                _shrink_if_full(sketch, sketch_gram, sketch_rows, products, k, m)
            rows = sketch_rows[k]
            g_sq = _insert(sketch[k], sketch_gram[k], rows, x, c, indices, start, end)
            if not math.isfinite(g_sq):
                inserted[k] = True
                finite = False
                break
            inserted[k] = g_sq > 0.0
            used = rows + 1 if inserted[k] else rows
            for q in range(used):
                sg[q] = sketch_gram[k, q, rows] if inserted[k] else 0.0
                new_products[k, q] = products[k, q]
            w = state[:, WEIGHT, k]
            u = state[:, SUM_GRAD, k] if dual_averaging else w
            if inserted[k]:
                # the new row's product: g . w_t, or g . u with the row's g
                total = 0.0
                for p in range(start, end + 1):
                    j = indices[p] if p < end else last
                    total += c * x[j] * (u[j] + c * x[j] if dual_averaging else w[j])
                new_products[k, rows] = total
                if dual_averaging:
                    for q in range(rows):
                        new_products[k, q] += sg[q]
            _row_step(
                sketch[k], sketch_gram[k], used, new_products[k], sg, x, c, w, u,
                step, new_w[k],
            )  # fmt: skip
            finite &= all_finite(new_w[k]) and all_finite(new_products[k])
        if not finite:
            for k in range(n_outputs):
                if inserted[k]:
                    _remove(sketch[k], sketch_gram[k], sketch_rows[k])
            status = STATUS_NONFINITE_UPDATE
            clear_row_vector(indices, start, end, x)
            break
        for k in range(n_outputs):
            if not moves[k]:
                continue
            if inserted[k]:
                sketch_rows[k] += 1
            copy_values(new_products[k], products[k])
            c = scaled_dloss[k]
            for a in range(size):
                state[a, WEIGHT, k] = new_w[k, a]
            for p in range(start, end + 1):
                j = indices[p] if p < end else last
                g = c * x[j]
                state[j, SUM_SQ_GRAD, k] += g * g
                if dual_averaging:
                    state[j, SUM_GRAD, k] += g
        clear_row_vector(indices, start, end, x)
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status


@jit
def sketch_da_weights_all(state, sketch, sketch_gram, sketch_rows, t, eta, delta, l2):
    """Every output's dual-averaging weights at round t, computed again from u,
    the sketch and t (after a change of the parameters)."""
    size = state.shape[0]
    w = np.empty(size)
    b = np.empty(size)
    for k in range(state.shape[2]):
        rows = sketch_rows[k]
        values, basis = sketch_basis(sketch_gram[k], rows, size)
        for q in range(size):
            b[q] = -eta * state[q, SUM_GRAD, k]
        solve(sketch[k], sketch_gram[k], rows, values, basis, delta, eta * t * l2, b, w)
        for q in range(size):
            state[q, WEIGHT, k] = w[q]


@jit
def sketch_sum_grad_from_weights(
    state, sketch, sketch_gram, sketch_rows, t, eta, delta, l2
):
    """Dual averaging's u that gives the state's weights at round t (assigned
    weights): u = -(H + eta t l2 P) w / eta."""
    size = state.shape[0]
    w = np.empty(size)
    Hw = np.empty(size)
    for k in range(state.shape[2]):
        rows = sketch_rows[k]
        values, basis = sketch_basis(sketch_gram[k], rows, size)
        for q in range(size):
            w[q] = state[q, WEIGHT, k]
        root_times(sketch[k], rows, values, basis, delta, w, Hw)
        for q in range(size):
            ridge = eta * t * l2 if q < size - 1 else 0.0
            state[q, SUM_GRAD, k] = -(Hw[q] + ridge * w[q]) / eta
