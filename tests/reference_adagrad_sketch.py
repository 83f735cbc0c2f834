"""A slow, literal sketched AdaGrad (Ada-FD: Wan & Zhang 2016): the full-matrix
rule of reference_adagrad_full.py with G replaced by S^T S, S a Frequent
Directions sketch of the gradients kept as an explicit matrix.

Per output and round, with g = s d x~ (x~ = [x, 1], 0 instead of 1 without an
intercept): if g is not zero, S gets g as a new row, after a shrink when S has
2m rows already (the SVD of S, numpy's; the top m right singular vectors kept,
each scaled by sqrt(sigma_i^2 - sigma_{m+1}^2)). Then H = delta I +
(S^T S)^{1/2} (``root_metric``: scipy's eigh of S^T S) and, without l1:

- mirror descent: w <- (H + eta l2 P)^{-1} (H w_t - eta g);
- dual averaging: w <- -eta (H + eta t l2 P)^{-1} u, u the sum of the gradients.

A round whose output has no gradient and no l2 leaves that output as it is.
Nothing here imports ``sk_adaprox``.
"""

import numpy as np
from reference_adagrad import checked_rows, row_loss_and_derivatives
from reference_adagrad_full import root_metric


def fd_shrink(S, m):
    """Frequent Directions' shrink of a 2m-row sketch to its top m directions."""
    _, sigma, right = np.linalg.svd(S, full_matrices=False)
    squared = sigma**2
    return np.sqrt(np.maximum(squared[:m] - squared[m], 0.0))[:, None] * right[:m]


def reference_sketched_adagrad(
    X,
    targets,
    row_weights,
    *,
    n_outputs,
    loss,
    update,
    eta,
    delta,
    l2,
    sketch_size,
    fit_intercept,
    epsilon=0.1,
):
    """Run sketched AdaGrad over the rows of ``X`` (dense) in order, from zero.

    Returns ``w`` (K, d + 1), the intercept last, and the sketches ``S`` (a list
    of K arrays of at most 2 * sketch_size rows)."""
    X, targets, row_weights, K = checked_rows(X, targets, row_weights, n_outputs)
    n, d = X.shape
    size = d + 1
    sketches = [np.zeros((0, size)) for _ in range(K)]
    w = np.zeros((K, size))
    u = np.zeros((K, size))
    P = np.diag(np.append(np.ones(d), 0.0))  # the regularised coordinates
    for t, i in enumerate(range(n), start=1):
        x = np.append(X[i], 1.0 if fit_intercept else 0.0)
        _, derivatives = row_loss_and_derivatives(loss, w @ x, targets[i], K, epsilon)
        for k in range(K):
            g = row_weights[i] * derivatives[k] * x
            if not g.any() and l2 == 0.0:
                continue
            if g.any():
                if sketches[k].shape[0] == 2 * sketch_size:
                    sketches[k] = fd_shrink(sketches[k], sketch_size)
                sketches[k] = np.vstack([sketches[k], g])
            u[k] += g
            H = root_metric(sketches[k].T @ sketches[k], delta)
            if update == "mirror_descent":
                w[k] = np.linalg.solve(H + eta * l2 * P, H @ w[k] - eta * g)
            else:
                w[k] = np.linalg.solve(H + eta * t * l2 * P, -eta * u[k])
    return w, sketches
