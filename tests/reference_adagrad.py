"""Slow, obviously-correct reference for diagonal AdaGrad (ALGORITHMS.md §1a, §1b).

This module is a test helper, not a test file.  It implements the equations of
``/work/shared/ALGORITHMS.md`` ("Common notation", the losses table, §1a composite
mirror descent and §1b regularized dual averaging) literally and NON-lazily: every
coordinate of every output is updated in every round, in float64, with no closed
forms for skipped rounds.  The fast (lazy, Numba) kernels are compared against it.

Nothing here imports ``sk_adaprox``.
"""

import math

import numpy as np

LOSSES = (
    "hinge",
    "log_loss",
    "squared_hinge",
    "modified_huber",
    "squared_error",
    "epsilon_insensitive",
    "huber",
    "multinomial",
)
UPDATES = ("mirror_descent", "dual_averaging")
STATE_KEYS = (
    "coef",
    "intercept",
    "sum_sq_grad",
    "intercept_sum_sq_grad",
    "sum_grad",
    "intercept_sum_grad",
)


# ---------------------------------------------------------------------------
# Losses: value l(p, y) and derivative d = dl/dp, one scalar at a time.
# ---------------------------------------------------------------------------


def _sigmoid(z):
    """1 / (1 + exp(-z)) without overflow."""
    if z >= 0.0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def loss_value(loss, p, y, epsilon=0.1):
    """l(p, y) of the losses table in ALGORITHMS.md ("multinomial" of one
    output: the logistic loss)."""
    p = float(p)
    y = float(y)
    if loss == "multinomial":
        loss = "log_loss"
    if loss == "hinge":
        return max(0.0, 1.0 - y * p)
    if loss == "log_loss":
        # log(1 + exp(-y p)), stable for any |p|.
        return float(np.logaddexp(0.0, -y * p))
    if loss == "squared_hinge":
        return max(0.0, 1.0 - y * p) ** 2
    if loss == "modified_huber":
        z = y * p
        if z >= 1.0:
            return 0.0
        if z >= -1.0:
            return (1.0 - z) ** 2
        return -4.0 * z
    if loss == "squared_error":
        return 0.5 * (p - y) ** 2
    if loss == "epsilon_insensitive":
        return max(0.0, abs(p - y) - epsilon)
    if loss == "huber":
        r = p - y
        if abs(r) <= epsilon:
            return 0.5 * r * r
        return epsilon * abs(r) - 0.5 * epsilon * epsilon
    raise ValueError(f"unknown loss {loss!r}")


def loss_derivative(loss, p, y, epsilon=0.1):
    """d = dl/dp (p, y) of the losses table in ALGORITHMS.md ("multinomial" of
    one output: the logistic loss)."""
    p = float(p)
    y = float(y)
    if loss == "multinomial":
        loss = "log_loss"
    if loss == "hinge":
        return -y if y * p < 1.0 else 0.0
    if loss == "log_loss":
        # -y / (1 + exp(y p)) = -y * sigmoid(-y p), stable for any |p|.
        return -y * _sigmoid(-y * p)
    if loss == "squared_hinge":
        return -2.0 * y * max(0.0, 1.0 - y * p)
    if loss == "modified_huber":
        z = y * p
        if z >= 1.0:
            return 0.0
        if z >= -1.0:
            return -2.0 * y * (1.0 - z)
        return -4.0 * y
    if loss == "squared_error":
        return p - y
    if loss == "epsilon_insensitive":
        r = p - y
        if abs(r) > epsilon:
            return 1.0 if r > 0.0 else -1.0
        return 0.0
    if loss == "huber":
        r = p - y
        return min(max(r, -epsilon), epsilon)
    raise ValueError(f"unknown loss {loss!r}")


def row_loss_and_derivatives(loss, p, target, n_outputs, epsilon=0.1):
    """A row's loss and the derivatives d_k = dl/dp_k of its K scores ``p``.

    One-vs-rest (every loss but "multinomial"): the sum of each output's binary
    loss at its +-1 target, and each output's own derivative. "multinomial" with
    K > 1: the softmax log loss -log(exp(p_y) / sum_j exp(p_j)) of the class
    index y = ``target``, whose derivatives are softmax(p)_k - [k == y]; with one
    output (two classes) it is the logistic loss of the +-1 target.
    """
    if loss == "multinomial" and n_outputs == 1:
        loss = "log_loss"
    if loss == "multinomial":
        label = int(target)
        largest = np.max(p)
        exponentials = np.exp(p - largest)  # the same softmax, without overflow
        probabilities = exponentials / np.sum(exponentials)
        derivatives = probabilities.copy()
        derivatives[label] -= 1.0
        # log(sum_j exp(p_j)) - p_y, the log-sum-exp shifted by the largest score.
        value = np.log(np.sum(exponentials)) + largest - p[label]
        return float(value), derivatives
    ys = binary_targets(target, n_outputs)
    values = [loss_value(loss, p[k], ys[k], epsilon) for k in range(n_outputs)]
    derivatives = [
        loss_derivative(loss, p[k], ys[k], epsilon) for k in range(n_outputs)
    ]
    return float(sum(values)), np.array(derivatives)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def zero_state(n_outputs, n_features):
    """The state before the first round: everything zero."""
    K, d = n_outputs, n_features
    return {
        "coef": np.zeros((K, d)),
        "intercept": np.zeros(K),
        "sum_sq_grad": np.zeros((K, d)),
        "intercept_sum_sq_grad": np.zeros(K),
        "sum_grad": np.zeros((K, d)),
        "intercept_sum_grad": np.zeros(K),
    }


def binary_targets(target, n_outputs):
    """The K binary targets of one row.

    n_outputs == 1: the target itself (+-1 or real).  n_outputs == K > 1: ``target``
    is a class index c and output k gets +1 if k == c else -1 (one-vs-rest).
    """
    if n_outputs == 1:
        return np.array([float(target)])
    c = int(target)
    ys = -np.ones(n_outputs)
    ys[c] = 1.0
    return ys


def _copy_state(state, n_outputs, n_features):
    if state is None:
        return zero_state(n_outputs, n_features)
    shapes = {
        "coef": (n_outputs, n_features),
        "intercept": (n_outputs,),
        "sum_sq_grad": (n_outputs, n_features),
        "intercept_sum_sq_grad": (n_outputs,),
        "sum_grad": (n_outputs, n_features),
        "intercept_sum_grad": (n_outputs,),
    }
    new = {}
    for key in STATE_KEYS:
        arr = np.array(state[key], dtype=np.float64, copy=True)
        if arr.shape != shapes[key]:
            raise ValueError(
                f"state[{key!r}] has shape {arr.shape}, expected {shapes[key]}"
            )
        new[key] = arr
    return new


def _mirror_descent_step(w, H, g, eta, l1, l2):
    """§1a for every coordinate.

    v = H w - eta g; w = sign(v) max(|v| - eta l1, 0) / (H + eta l2).

    Where H + eta*l2 == 0 (delta = 0, l2 = 0, G = 0) the coordinate is left unchanged.
    """
    v = H * w - eta * g
    denom = H + eta * l2
    shrunk = np.sign(v) * np.maximum(np.abs(v) - eta * l1, 0.0)
    new_w = w.copy()
    ok = denom != 0.0
    new_w[ok] = shrunk[ok] / denom[ok]
    return new_w


def _dual_averaging_weights(u, H, t, eta, l1, l2):
    """§1b: w = -sign(u) eta max(|u| - t l1, 0) / (H + eta t l2), w = 0 where u == 0.

    (Also 0 where the denominator is 0, which needs u != 0 with G == 0: reachable only
    if every g**2 underflowed.)
    """
    denom = H + eta * t * l2
    num = -np.sign(u) * eta * np.maximum(np.abs(u) - t * l1, 0.0)
    w = np.zeros_like(u)
    ok = (u != 0.0) & (denom != 0.0)
    w[ok] = num[ok] / denom[ok]
    return w


def checked_rows(X, targets, row_weights, n_outputs):
    """The rounds' inputs as float64 arrays, checked: ``(X, targets, row_weights,
    K)`` with X dense (n, d), targets and row weights (n,), K = n_outputs."""
    if hasattr(X, "toarray"):
        X = X.toarray()
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError("X must be 2-D")
    n, d = X.shape
    targets = np.asarray(targets, dtype=np.float64)
    row_weights = np.asarray(row_weights, dtype=np.float64)
    if targets.shape != (n,) or row_weights.shape != (n,):
        raise ValueError("targets and row_weights must have shape (n,)")
    K = int(n_outputs)
    if K < 1:
        raise ValueError("n_outputs must be >= 1")
    if K > 1:
        ok = (targets == np.round(targets)) & (targets >= 0) & (targets < K)
        if not np.all(ok):
            raise ValueError("with n_outputs > 1, targets must be class indices")
    return X, targets, row_weights, K


# ---------------------------------------------------------------------------
# The reference
# ---------------------------------------------------------------------------


def reference_adagrad(
    X,
    targets,
    row_weights,
    *,
    n_outputs,
    loss,
    eta,
    delta,
    l1,
    l2,
    fit_intercept,
    update,
    epsilon=0.1,
    order=None,
    state=None,
    t0=0,
    bound=None,
):
    """Run diagonal AdaGrad (§1a or §1b of ALGORITHMS.md) non-lazily.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Dense rows (a scipy sparse matrix is densified).
    targets : ndarray of shape (n,)
        n_outputs == 1: the target y itself.  n_outputs == K > 1: a class index in
        0..K-1, turned into K one-vs-rest +-1 targets.
    row_weights : ndarray of shape (n,)
        s_t >= 0 (sample weight times class weight).
    n_outputs, loss, eta, delta, l1, l2, fit_intercept, update, epsilon
        As in ALGORITHMS.md; ``update`` is "mirror_descent" or "dual_averaging".
    order : sequence of int, optional
        Rows visited, one round per visit (default ``range(n)``).
    state : dict, optional
        State from a previous call (not modified); None means all zeros.
    t0 : int
        Number of rounds done before this call.
    bound : float, optional
        Mirror descent only: after each step every coefficient is clipped into
        [-bound, bound] (the projection onto the box of ALGORITHMS.md §4; the
        intercept is not bounded).

    Returns
    -------
    state : dict
        New dict with keys coef (K, d), intercept (K,), sum_sq_grad (K, d),
        intercept_sum_sq_grad (K,), sum_grad (K, d), intercept_sum_grad (K,).
    loss_sum : float
        Sum over rounds of s_t * sum_k l(p_k, y_k), with pre-update scores.
    """
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}")
    if update not in UPDATES:
        raise ValueError(f"unknown update {update!r}")
    X, targets, row_weights, K = checked_rows(X, targets, row_weights, n_outputs)
    n, d = X.shape
    eta, delta, l1, l2 = float(eta), float(delta), float(l1), float(l2)
    epsilon = float(epsilon)
    if order is None:
        order = range(n)

    st = _copy_state(state, K, d)
    coef = st["coef"]
    intercept = st["intercept"]
    G = st["sum_sq_grad"]
    Gb = st["intercept_sum_sq_grad"]
    u = st["sum_grad"]
    ub = st["intercept_sum_grad"]

    loss_sum = 0.0
    t = int(t0)
    for i in order:
        t += 1  # this round's number; also "rounds done so far, including this one"
        x = X[i]
        s = row_weights[i]
        # Scores of all outputs with the weights BEFORE this round's update.
        p = np.array([coef[k] @ x + intercept[k] for k in range(K)])
        row_loss, derivatives = row_loss_and_derivatives(
            loss, p, targets[i], K, epsilon
        )
        loss_sum += s * row_loss

        for k in range(K):
            dk = derivatives[k]
            g = s * dk * x  # zero outside the row's support
            g_b = s * dk

            if update == "mirror_descent":
                G[k] += g * g
                H = delta + np.sqrt(G[k])
                coef[k] = _mirror_descent_step(coef[k], H, g, eta, l1, l2)
                if bound is not None:
                    coef[k] = np.clip(coef[k], -bound, bound)
                if fit_intercept:
                    Gb[k] += g_b * g_b
                    Hb = delta + math.sqrt(Gb[k])
                    if Hb != 0.0:
                        intercept[k] = intercept[k] - eta * g_b / Hb
            else:  # dual_averaging
                u[k] += g
                G[k] += g * g
                H = delta + np.sqrt(G[k])
                coef[k] = _dual_averaging_weights(u[k], H, t, eta, l1, l2)
                if fit_intercept:
                    ub[k] += g_b
                    Gb[k] += g_b * g_b
                    Hb = delta + math.sqrt(Gb[k])
                    if ub[k] != 0.0 and Hb != 0.0:
                        intercept[k] = -eta * ub[k] / Hb
                    else:
                        intercept[k] = 0.0

    return st, float(loss_sum)
