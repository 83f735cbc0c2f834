"""A slow, literal full-matrix AdaGrad (Duchi, Hazan & Singer 2011, section 4):
explicit G = sum g g^T per output, H = delta I + G^{1/2} from ``scipy.linalg.eigh``,
and each round's composite problem solved by a generic solver.

Per output and round, with x~ = [x, 1] (0 instead of 1 without an intercept) and
g = s d x~:

- mirror descent: w <- argmin 1/2 (w - w_t)^T H (w - w_t) + eta g^T w
  + eta (l1 |w_F|_1 + l2/2 |w_F|^2);
- dual averaging: w <- argmin eta u^T w + eta t (l1 |w_F|_1 + l2/2 |w_F|^2)
  + 1/2 w^T H w, u the sum of the gradients;

w_F the features' weights (the intercept is never regularised). Both are
1/2 w^T Q w - b^T w + tau |w_F|_1; without l1 the reference solves Q w = b, with
l1 it minimises over w_F = p - n, p, n >= 0 with SLSQP (features scaled by
Q's diagonal), then solves the optimality conditions exactly on the support the
solver found and checks them everywhere.

Nothing here imports ``sk_adaprox``.
"""

import numpy as np
import scipy.linalg
from reference_adagrad import checked_rows, row_loss_and_derivatives
from scipy.optimize import minimize


def root_metric(G, delta):
    """delta I + G^{1/2}, the root from G's eigendecomposition; eigenvalues
    within rounding of zero (numpy's matrix_rank tolerance) are zero."""
    eigenvalues, vectors = scipy.linalg.eigh(G)
    noise = max(eigenvalues.max(), 0.0) * G.shape[0] * np.finfo(float).eps
    eigenvalues = np.where(eigenvalues > noise, eigenvalues, 0.0)
    root = vectors @ np.diag(np.sqrt(eigenvalues)) @ vectors.T
    return delta * np.eye(G.shape[0]) + root


def composite_minimizer(Q, b, tau):
    """argmin 1/2 w^T Q w - b^T w + tau |w[:-1]|_1 (the last coordinate free).

    SLSQP (sequential quadratic programming) over w = D^{-1/2} v (D =
    diag(Q), so that features of any scale are alike to it) with v_F = p - n,
    p, n >= 0; then the optimality
    conditions solved exactly on the support it found, and checked: every
    feature off the support has |b_i - (Q w)_i| <= tau, and the support's
    signs are those solved for (an AssertionError otherwise)."""
    if tau == 0.0:
        return np.linalg.solve(Q, b)
    D = Q.shape[0]
    F = D - 1
    scale = 1.0 / np.sqrt(np.diag(Q))
    Qs = Q * np.outer(scale, scale)
    bs = b * scale
    taus = tau * scale[:F]

    def split(v):
        return np.append(v[:F] - v[F : 2 * F], v[2 * F])

    def objective(v):
        w = split(v)
        residual = Qs @ w - bs
        value = 0.5 * w @ Qs @ w - bs @ w + taus @ (v[:F] + v[F : 2 * F])
        gradient = np.concatenate(
            [residual[:F] + taus, -residual[:F] + taus, residual[F:]]
        )
        return value, gradient

    bounds = [(0.0, None)] * (2 * F) + [(None, None)]
    result = minimize(
        objective,
        np.zeros(2 * F + 1),
        jac=True,
        method="SLSQP",
        bounds=bounds,
        options={"ftol": 1e-16, "maxiter": 5_000},
    )
    w = split(result.x) * scale
    w[:F][np.abs(w[:F]) < 1e-9 * (1.0 + np.abs(w).max())] = 0.0
    # The optimality conditions on the support S: Q_SS w_S = b_S - tau sign(w_S).
    support = np.append(np.flatnonzero(w[:F]), F)
    signs = np.append(np.sign(w[support[:-1]]), 0.0)
    w_exact = np.zeros(D)
    w_exact[support] = np.linalg.solve(
        Q[np.ix_(support, support)], b[support] - tau * signs
    )
    gradient = b - Q @ w_exact
    off = np.setdiff1d(np.arange(F), support)
    assert np.all(np.abs(gradient[off]) <= tau * (1.0 + 1e-9)), "not optimal"
    assert np.all(np.sign(w_exact[support[:-1]]) == signs[:-1]), "signs changed"
    return w_exact


def reference_full_adagrad(
    X,
    targets,
    row_weights,
    *,
    n_outputs,
    loss,
    update,
    eta,
    delta,
    l1,
    l2,
    fit_intercept,
    epsilon=0.1,
    order=None,
    state=None,
    t0=0,
):
    """Run full-matrix AdaGrad over ``X[order]`` (dense, one round per visit).

    Returns a state dict: ``w`` (K, d + 1), the intercept last; ``G`` (K, d + 1,
    d + 1); ``u`` (K, d + 1); and ``t``. ``state`` (not modified) continues a
    previous call.
    """
    X, targets, row_weights, K = checked_rows(X, targets, row_weights, n_outputs)
    n, d = X.shape
    D = d + 1
    if state is None:
        state = {
            "w": np.zeros((K, D)),
            "G": np.zeros((K, D, D)),
            "u": np.zeros((K, D)),
            "t": t0,
        }
    st = {key: np.array(value, dtype=float) for key, value in state.items()}
    t = int(state["t"])
    order = range(n) if order is None else [int(i) for i in order]
    P = np.diag(np.append(np.ones(d), 0.0))  # the regularised coordinates
    for i in order:
        t += 1
        x = np.append(X[i], 1.0 if fit_intercept else 0.0)
        s = row_weights[i]
        p = st["w"] @ x
        _, derivatives = row_loss_and_derivatives(loss, p, targets[i], K, epsilon)
        for k in range(K):
            g = s * derivatives[k] * x
            st["G"][k] += np.outer(g, g)
            st["u"][k] += g
            H = root_metric(st["G"][k], delta)
            if update == "mirror_descent":
                Q = H + eta * l2 * P
                b = H @ st["w"][k] - eta * g
                st["w"][k] = composite_minimizer(Q, b, eta * l1)
            else:
                Q = H + eta * t * l2 * P
                st["w"][k] = composite_minimizer(Q, -eta * st["u"][k], eta * t * l1)
    st["t"] = t
    return st
