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
    checked_rows,
    row_loss_and_derivatives,
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
        p = full["coef"] @ x
        row_loss, derivatives = row_loss_and_derivatives(
            loss, p, targets[i], K, epsilon
        )
        loss_sum += s * row_loss
        for k in range(K):
            dk = derivatives[k]
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


# -- the normalised rule (update="normalized") -------------------------------------
#
# Written from the estimator's documented equations (the form of Vowpal Wabbit's
# --coin), literally and non-lazily: every round visits every coordinate of every
# output; a coordinate whose x is 0 keeps everything (its gradient is 0 and its
# largest |x| cannot grow). N is recomputed from the full list of row norms.

NORM_FLOOR = 1e-6


def normalized_bet(theta, G, R, scale, initial_wealth):
    """theta (initial_wealth + R) / (scale (scale + G)); 0 while scale is 0."""
    if scale == 0.0:
        return 0.0
    return theta * (initial_wealth + R) / (scale * (scale + G))


def normalized_zero_state(n_outputs, n_features):
    """Everything zero, the intercept as column d; ``norms`` lists (s, row norm)
    of the applied rows."""
    K, d = n_outputs, n_features
    state = {key: np.zeros((K, d + 1)) for key in ("theta", "G", "R", "M", "D")}
    state["norms"] = []
    return state


def mean_norm(norms):
    """N: the s-weighted mean of the listed row norms (floored), 1 with no weight."""
    total = sum(s for s, _ in norms)
    if total == 0.0:
        return 1.0
    return (sum(s * norm for s, norm in norms) + NORM_FLOOR) / total


def normalized_coef(state, initial_wealth):
    """The served weights: every bet under the stored M and D, over N. Returns
    ``(coef (K, d), intercept (K,))``."""
    K, d1 = state["theta"].shape
    N = mean_norm(state["norms"])
    coef = np.zeros((K, d1))
    for k in range(K):
        for j in range(d1):
            coef[k, j] = (
                normalized_bet(
                    state["theta"][k, j],
                    state["G"][k, j],
                    state["R"][k, j],
                    state["D"][k, j] * state["M"][k, j],
                    initial_wealth,
                )
                / N
            )
    return coef[:, :-1], coef[:, -1]


def reference_normalized_coin(
    X,
    targets,
    row_weights,
    *,
    n_outputs,
    loss,
    initial_wealth,
    fit_intercept,
    epsilon=0.1,
    order=None,
    state=None,
):
    """Run normalised coin betting over ``X[order]`` one round per visit.

    ``state`` (from an earlier call, not modified) continues training. Returns
    ``(state, loss_sum, scores)``: the state has keys theta, G, R, M (largest
    |x|), D (largest |s dl/dp|, floored at 1) of shape (K, d + 1), the intercept
    last, and ``norms``; ``loss_sum`` sums ``s * l(p, y)`` over rounds and
    outputs at the pre-update scores, which ``scores`` lists per round.
    """
    X, targets, row_weights, K = checked_rows(X, targets, row_weights, n_outputs)
    n, d = X.shape
    if state is None:
        state = normalized_zero_state(K, d)
    state = {
        key: (list(value) if key == "norms" else np.array(value, dtype=np.float64))
        for key, value in state.items()
    }
    order = range(n) if order is None else [int(i) for i in order]
    loss_sum = 0.0
    all_scores = []
    for i in order:
        x = np.append(X[i], 1.0 if fit_intercept else 0.0)
        s = row_weights[i]
        # Score with the served model (every bet over N, before this row); the
        # row's norm is measured against each largest |x|, this row's included.
        M_row = np.maximum(state["M"][0], np.abs(x))
        norm = sum((x[j] / M_row[j]) ** 2 for j in range(d + 1) if M_row[j] > 0)
        N = mean_norm(state["norms"])
        p = np.zeros(K)
        for k in range(K):
            for j in range(d + 1):
                scale = state["D"][k, j] * state["M"][k, j]
                p[k] += (
                    normalized_bet(
                        state["theta"][k, j],
                        state["G"][k, j],
                        state["R"][k, j],
                        scale,
                        initial_wealth,
                    )
                    * x[j]
                )
            p[k] /= N
        all_scores.append(p)
        row_loss, derivatives = row_loss_and_derivatives(
            loss, p, targets[i], K, epsilon
        )
        loss_sum += s * row_loss
        if s == 0.0:
            continue  # a row of weight 0 changes nothing
        state["norms"].append((s, norm))
        for k in range(K):
            sd = s * derivatives[k]
            for j in range(d + 1):
                if x[j] == 0.0:
                    continue
                state["M"][k, j] = max(state["M"][k, j], abs(x[j]))
                if abs(sd) > state["D"][k, j]:
                    state["D"][k, j] = max(abs(sd), 1.0)
                scale = state["D"][k, j] * state["M"][k, j]
                w = normalized_bet(
                    state["theta"][k, j],
                    state["G"][k, j],
                    state["R"][k, j],
                    scale,
                    initial_wealth,
                )
                g = sd * x[j]
                state["theta"][k, j] -= g
                state["G"][k, j] += abs(g)
                state["R"][k, j] -= g * w
    return state, float(loss_sum), np.array(all_scores)
