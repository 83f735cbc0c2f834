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
intercept column): O(m d) a row and output, not O(d^2) or O(d^3). The step
is the full matrix's mirror descent without l1 (module ``adagrad_full``):
w = Q^{-1} (H w_t - eta g), Q = H + eta l2 P (P: the features, not the
intercept). Dual averaging is not offered: its weights -eta Q^{-1} u keep
every past gradient in u, while the sketch forgets the directions its shrinks
drop, so H stays delta there and the weights grow without bound.
"""

import math

import numpy as np

from ._jit import jit
from .adagrad_full import (
    SUM_SQ_GRAD,
    begin_row,
    clear_row_vector,
)
from .common import (
    STATUS_NONFINITE_SCORE,
    STATUS_NONFINITE_UPDATE,
    STATUS_OK,
    WEIGHT,
    all_finite,
    copy_values,
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
def _squared_norm(x, c, indices, start, end):
    """|g|^2 of g = c x~ (the row's features and the intercept, last)."""
    last = x.shape[0] - 1
    g_sq = 0.0
    for p in range(start, end + 1):
        j = indices[p] if p < end else last
        g_sq += (c * x[j]) ** 2
    return g_sq


@jit
def _insert(sketch, sketch_gram, rows, x, c, g_sq, indices, start, end):
    """Write g = c x~ (|g|^2 = ``g_sq``) into the zero row ``rows`` and border
    S S^T with it (its new column is S g); O(rows times the row's non-zeros)."""
    last = sketch.shape[1] - 1
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
def _row_step(sketch, sketch_gram, rows, product, sg, x, c, w, eta, delta, ridge, out):
    """Mirror descent's new weights of one output after the row (module
    docstring), with one product of S^T a vector (O(rows d)): b = delta w_t -
    eta g + S^T alpha, alpha = W diag(sigma) W^T S w_t, and w_{t+1} = D^{-1}
    (delta w_t - eta g + S^T (alpha - W y)). ``product`` holds S w_t and is
    brought to S w_{t+1}; ``sg`` is S g."""
    size = w.shape[0]
    last = size - 1
    a = 1.0 / (delta + ridge)
    gap = 1.0 / delta - a
    column = np.ascontiguousarray(sketch[:rows, last])
    values, basis = sketch_basis(sketch_gram, rows, size)
    alpha = np.zeros(rows)
    if values.shape[0] > 0:
        along = basis.T @ product[:rows]
        for j in range(values.shape[0]):
            along[j] *= math.sqrt(values[j])
        alpha = basis @ along
    s_dinv_w = np.empty(rows)  # S D^{-1} w_t
    s_dinv_g = np.empty(rows)  # S D^{-1} g
    _scaled_products(a, gap, column, product, w[last], s_dinv_w)
    _scaled_products(a, gap, column, sg, c * x[last], s_dinv_g)
    moved = _gram_times(sketch_gram, rows, a, gap, column, alpha)
    p = np.empty(rows)  # S D^{-1} b
    for q in range(rows):
        p[q] = delta * s_dinv_w[q] - eta * s_dinv_g[q] + moved[q]
    beta = alpha - _woodbury_coefficients(
        sketch_gram, rows, values, basis, a, gap, column, p
    )
    moved = _gram_times(sketch_gram, rows, a, gap, column, beta)
    for q in range(rows):
        product[q] = delta * s_dinv_w[q] - eta * s_dinv_g[q] + moved[q]
    back = sketch[:rows].T @ beta if rows > 0 else np.zeros(size)
    for q in range(size):
        inverse = 1.0 / delta if q == last else a
        out[q] = inverse * (delta * w[q] - eta * c * x[q] + back[q])


@jit
def _products_at_start(sketch, sketch_rows, state):
    """S w of every output's sketch and weights."""
    n_outputs, two_m = sketch.shape[0], sketch.shape[1]
    products = np.zeros((n_outputs, two_m))
    for k in range(n_outputs):
        rows = sketch_rows[k]
        for q in range(rows):
            total = 0.0
            for j in range(sketch.shape[2]):
                total += sketch[k, q, j] * state[j, WEIGHT, k]
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
    fit_intercept,
):
    """One pass of sketched AdaGrad over the rows in ``order``: per row and
    output, g = c x~ written into the sketch (shrunk first when its 2m rows are
    used) and the rule's step in H (module docstring). Every output's weights
    are computed before any is stored and a row whose step is not finite is
    taken out of the sketches again: a row is applied whole or not at all (a
    shrink before it stays; it is the one the row's insertion would repeat)."""
    n_outputs = state.shape[2]
    size = state.shape[0]
    last = size - 1
    intercept = 1.0 if fit_intercept else 0.0
    record = 1 if row_scores.shape[0] > 0 else 0  # rows of row_scores per row
    scores = np.empty(n_outputs)
    scaled_dloss = np.empty(n_outputs)
    x = np.zeros(size)
    new_w = np.empty((n_outputs, size))
    # S w, kept current through the pass: a row's step then needs one product
    # with S, not four.
    products = _products_at_start(sketch, sketch_rows, state)
    new_products = products.copy()
    sg = np.zeros(sketch.shape[1])
    inserted = np.zeros(n_outputs, dtype=np.bool_)
    moves = np.zeros(n_outputs, dtype=np.bool_)
    loss_sum = 0.0
    status = STATUS_OK
    rows_done = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        start, end = indptr[i], indptr[i + 1]
        row_loss, finite = begin_row(
            data, indices, start, end, state, intercept, targets[i], row_weights[i],
            loss, epsilon, scores, scaled_dloss, row_scores[pos : pos + record], x,
        )  # fmt: skip
        if not finite:
            status = STATUS_NONFINITE_SCORE
            break
        ridge = eta * l2
        finite = True
        inserted[:] = False
        for k in range(n_outputs):
            c = scaled_dloss[k]
            moves[k] = c != 0.0 or l2 > 0.0
            if not moves[k]:
                continue
            g_sq = _squared_norm(x, c, indices, start, end)
            if not math.isfinite(g_sq):
                finite = False
                break
            if g_sq > 0.0:  # a row with a gradient takes a sketch row
                _shrink_if_full(sketch, sketch_gram, sketch_rows, products, k, m)
                rows = sketch_rows[k]
                _insert(
                    sketch[k], sketch_gram[k], rows, x, c, g_sq, indices, start, end
                )
                inserted[k] = True
            rows = sketch_rows[k]
            used = rows + 1 if inserted[k] else rows
            for q in range(used):
                sg[q] = sketch_gram[k, q, rows] if inserted[k] else 0.0
                new_products[k, q] = products[k, q]
            w = state[:, WEIGHT, k]
            if inserted[k]:  # the new row's product, g . w_t
                total = 0.0
                for p in range(start, end + 1):
                    j = indices[p] if p < end else last
                    total += c * x[j] * w[j]
                new_products[k, rows] = total
            _row_step(
                sketch[k], sketch_gram[k], used, new_products[k], sg, x, c, w,
                eta, delta, ridge, new_w[k],
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
        clear_row_vector(indices, start, end, x)
        loss_sum += row_weights[i] * row_loss
        rows_done += 1
    return loss_sum, rows_done, status
