"""Slow, obviously-correct reference for per-coordinate coin betting (ALGORITHMS.md
§5, Orabona & Pál 2016).

This module is a test helper, not a test file. It implements §5 literally and
non-lazily: every round, every coordinate of every output goes through the five
lines of §5 (a coordinate off the row's support has g = 0 and, as §5 says, does not
change). Everything is float64, in plain Python loops over dense rows. The losses
and one-vs-rest targets are shared with the AdaGrad reference.

Nothing here imports ``sk_adaprox``.
"""

import numpy as np
from reference_adagrad import (
    binary_targets,
    checked_rows,
    loss_derivative,
    loss_value,
)


def coin_round(w, theta, G, L, R, g, alpha):
    """§5's five lines for one coordinate with gradient g; g = 0 changes nothing."""
    if g == 0.0:
        return w, theta, G, L, R
    L = max(L, abs(g))
    theta = theta - g
    G = G + abs(g)
    R = max(R - g * w, 0.0)
    return bet(theta, G, L, R, alpha), theta, G, L, R


def bet(theta, G, L, R, alpha):
    """The bet of §5's last line; 0 for a coordinate with no gradient yet."""
    if L == 0.0:
        return 0.0
    return theta / (L * max(G + L, alpha * L)) * (L + R)


def rebet(state, alpha):
    """A copy of ``state`` with every bet recomputed under ``alpha`` (what a change
    of alpha between calls does)."""
    new = {key: np.array(value, dtype=np.float64) for key, value in state.items()}
    for prefix, weights in (("", "coef"), ("intercept_", "intercept")):
        shape = new[weights].shape
        flat = [
            bet(theta, g_sum, largest, reward, alpha)
            for theta, g_sum, largest, reward in zip(
                new[prefix + "theta"].ravel(),
                new[prefix + "G"].ravel(),
                new[prefix + "L"].ravel(),
                new[prefix + "R"].ravel(),
                strict=True,
            )
        ]
        new[weights] = np.array(flat).reshape(shape)
    return new


def zero_state(n_outputs, n_features):
    """Everything zero: L starts at 0 here and becomes |g| at the first non-zero
    gradient, the limit of §5's "tiny positive value"."""
    K, d = n_outputs, n_features
    return {
        "coef": np.zeros((K, d + 1)),  # the intercept is column d
        "theta": np.zeros((K, d + 1)),
        "G": np.zeros((K, d + 1)),
        "L": np.zeros((K, d + 1)),
        "R": np.zeros((K, d + 1)),
    }


def reference_coin(
    X,
    targets,
    row_weights,
    *,
    n_outputs,
    loss,
    alpha,
    fit_intercept,
    epsilon=0.1,
    order=None,
    state=None,
):
    """Run coin betting over ``X[order]`` one round per visit.

    ``targets`` holds y (one output) or the class index (K outputs, one-vs-rest);
    ``row_weights`` multiply the gradients. ``state`` (from an earlier call, not
    modified) continues training. Returns ``(state, loss_sum)`` where the state has
    keys coef (K, d), intercept (K,), theta, G, L, R (K, d) and intercept_theta, ...
    (K,), and ``loss_sum`` sums ``s * l(p, y)`` over rounds and outputs with
    pre-update scores.
    """
    X, targets, row_weights, K = checked_rows(X, targets, row_weights, n_outputs)
    n, d = X.shape
    if state is None:
        full = zero_state(K, d)
    else:
        full = {
            key: np.column_stack([state[key], state["intercept_" + key]])
            for key in ("theta", "G", "L", "R")
        }
        full["coef"] = np.column_stack([state["coef"], state["intercept"]])
    order = range(n) if order is None else [int(i) for i in order]
    loss_sum = 0.0
    for i in order:
        x = np.append(X[i], 1.0 if fit_intercept else 0.0)
        s = row_weights[i]
        ys = binary_targets(targets[i], K)
        p = full["coef"] @ x
        for k in range(K):
            loss_sum += s * loss_value(loss, p[k], ys[k], epsilon)
            dk = loss_derivative(loss, p[k], ys[k], epsilon)
            for j in range(d + 1):
                new = coin_round(
                    full["coef"][k, j],
                    full["theta"][k, j],
                    full["G"][k, j],
                    full["L"][k, j],
                    full["R"][k, j],
                    s * dk * x[j],
                    alpha,
                )
                for key, value in zip(
                    ("coef", "theta", "G", "L", "R"), new, strict=True
                ):
                    full[key][k, j] = value
    result = {}
    for key in ("coef", "theta", "G", "L", "R"):
        result[key] = full[key][:, :d]
        result["intercept" if key == "coef" else "intercept_" + key] = full[key][:, d]
    return result, float(loss_sum)
