"""Slow, obviously-correct reference for FTRL-Proximal (ALGORITHMS.md §2).

This module is a test helper, not a test file.  It implements the equations of
``/work/shared/ALGORITHMS.md`` ("Common notation", the losses table and §2
FTRL-Proximal, McMahan et al. 2013, Algorithm 1) literally and NON-lazily: in every
round the weights of every coordinate of every output are recomputed from (z, n) with
the closed form, and every coordinate's (z, n) goes through the recursion (a
coordinate off the row's support has g = 0, hence sigma = 0, and keeps its z and n).
Everything is float64.  The fast (lazy, Numba) kernels are compared against it.

The losses, their derivatives and the one-vs-rest targets are shared with the AdaGrad
reference (``reference_adagrad``).

Nothing here imports ``sk_adaprox``.
"""

import math

import numpy as np
from reference_adagrad import (
    LOSSES,
    binary_targets,
    checked_rows,
    loss_derivative,
    loss_value,
    row_loss_and_derivatives,
)

__all__ = [
    "LOSSES",
    "STATE_KEYS",
    "binary_targets",
    "ftrl_weight",
    "loss_derivative",
    "loss_value",
    "reference_ftrl",
    "zero_state",
]

STATE_KEYS = ("coef", "intercept", "z", "n", "intercept_z", "intercept_n")


# ---------------------------------------------------------------------------
# The closed form w(z, n)
# ---------------------------------------------------------------------------


def ftrl_weight(z, n, alpha, beta, l1, l2):
    """The FTRL-Proximal weight of §2, elementwise.

    ::

        w = 0                                                if |z| <= l1
        w = -(z - sign(z) l1) / ((beta + sqrt(n)) / alpha + l2)   otherwise

    ``z`` and ``n`` are scalars or arrays of the same shape (broadcast); ``alpha``,
    ``beta``, ``l1``, ``l2`` are scalars.  Where the denominator is 0 (beta = 0,
    l2 = 0 and n = 0; with |z| > l1 this needs z != 0 with n == 0, i.e. an
    underflowed g**2 or a hand-made state) the weight is 0, never NaN or inf.

    Returns a float for scalar inputs, otherwise a new float64 array.
    """
    alpha, beta, l1, l2 = float(alpha), float(beta), float(l1), float(l2)
    if not alpha > 0.0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    if beta < 0.0 or l1 < 0.0 or l2 < 0.0:
        raise ValueError("beta, l1 and l2 must be >= 0")
    z_arr = np.asarray(z, dtype=np.float64)
    n_arr = np.asarray(n, dtype=np.float64)
    scalar = z_arr.ndim == 0 and n_arr.ndim == 0
    z_arr, n_arr = np.broadcast_arrays(z_arr, n_arr)
    if np.any(n_arr < 0.0):
        raise ValueError("n must be >= 0")

    denom = (beta + np.sqrt(n_arr)) / alpha + l2
    active = (np.abs(z_arr) > l1) & (denom != 0.0)
    w = np.zeros(z_arr.shape, dtype=np.float64)
    w[active] = -(z_arr[active] - np.sign(z_arr[active]) * l1) / denom[active]
    if scalar:
        return float(w)
    return w


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def zero_state(n_outputs, n_features):
    """The state before the first round: everything zero."""
    K, d = n_outputs, n_features
    return {
        "coef": np.zeros((K, d)),
        "intercept": np.zeros(K),
        "z": np.zeros((K, d)),
        "n": np.zeros((K, d)),
        "intercept_z": np.zeros(K),
        "intercept_n": np.zeros(K),
    }


def _copy_state(state, n_outputs, n_features):
    if state is None:
        return zero_state(n_outputs, n_features)
    shapes = {
        "coef": (n_outputs, n_features),
        "intercept": (n_outputs,),
        "z": (n_outputs, n_features),
        "n": (n_outputs, n_features),
        "intercept_z": (n_outputs,),
        "intercept_n": (n_outputs,),
    }
    new = {}
    for key in STATE_KEYS:
        arr = np.array(state[key], dtype=np.float64, copy=True)
        if arr.shape != shapes[key]:
            raise ValueError(
                f"state[{key!r}] has shape {arr.shape}, expected {shapes[key]}"
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"state[{key!r}] is not finite")
        new[key] = arr
    for key in ("n", "intercept_n"):
        if np.any(new[key] < 0.0):
            raise ValueError(f"state[{key!r}] must be >= 0")
    return new


# ---------------------------------------------------------------------------
# The reference
# ---------------------------------------------------------------------------


def reference_ftrl(
    X,
    targets,
    row_weights,
    *,
    n_outputs,
    loss,
    alpha,
    beta,
    l1,
    l2,
    fit_intercept,
    epsilon=0.1,
    order=None,
    state=None,
    t0=0,
):
    """Run FTRL-Proximal (§2 of ALGORITHMS.md) non-lazily.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Dense rows (a scipy sparse matrix is densified).
    targets : ndarray of shape (n,)
        n_outputs == 1: the target y itself.  n_outputs == K > 1: a class index in
        0..K-1, turned into K one-vs-rest +-1 targets.
    row_weights : ndarray of shape (n,)
        s_t (sample weight times class weight).
    n_outputs, loss, alpha, beta, l1, l2, fit_intercept, epsilon
        As in ALGORITHMS.md.  ``l1`` and ``l2`` weigh the *summed* (s_t-weighted)
        loss, as in the paper.  The intercept uses the same z/n recursion with
        l1 = l2 = 0.
    order : sequence of int, optional
        Rows visited, one round per visit (default ``range(n)``).
    state : dict, optional
        State from a previous call (not modified); None means all zeros.  Only its
        z, n, intercept_z and intercept_n matter: the weights are always recomputed
        from them (its coef and intercept are only checked for shape).  With
        ``fit_intercept=False`` its intercept_z and intercept_n must be 0.
    t0 : int
        Number of rounds done before this call.  Accepted for signature symmetry
        with ``reference_adagrad``; FTRL-Proximal does not depend on the round
        number, so it has no effect on the result.

    Returns
    -------
    state : dict
        New dict with keys coef (K, d), intercept (K,), z (K, d), n (K, d),
        intercept_z (K,), intercept_n (K,).  coef and intercept are the closed-form
        weights of the final (z, n) (the intercept with l1 = l2 = 0; 0 without
        intercept).
    loss_sum : float
        Sum over rounds of s_t * sum_k l(p_k, y_k), with pre-update scores.
    """
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}")
    X, targets, row_weights, K = checked_rows(X, targets, row_weights, n_outputs)
    n, d = X.shape
    alpha, beta, l1, l2 = float(alpha), float(beta), float(l1), float(l2)
    if not alpha > 0.0:
        raise ValueError(f"alpha must be > 0, got {alpha}")
    if beta < 0.0 or l1 < 0.0 or l2 < 0.0:
        raise ValueError("beta, l1 and l2 must be >= 0")
    epsilon = float(epsilon)
    if int(t0) != t0 or t0 < 0:
        raise ValueError("t0 must be a non-negative integer")
    if order is None:
        order = range(n)
    order = [int(i) for i in order]
    if any(i < 0 or i >= n for i in order):
        raise ValueError("order holds a row index out of range")

    st = _copy_state(state, K, d)
    z = st["z"]
    nn = st["n"]
    zb = st["intercept_z"]
    nb = st["intercept_n"]
    if not fit_intercept and (np.any(zb != 0.0) or np.any(nb != 0.0)):
        raise ValueError(
            "fit_intercept=False with a state whose intercept_z/intercept_n != 0"
        )

    def weights():
        """Closed-form weights of every coordinate of every output, from (z, n)."""
        W = np.array([ftrl_weight(z[k], nn[k], alpha, beta, l1, l2) for k in range(K)])
        if fit_intercept:
            b = np.array(
                [ftrl_weight(zb[k], nb[k], alpha, beta, 0.0, 0.0) for k in range(K)]
            )
        else:
            b = np.zeros(K)
        return W.reshape(K, d), b

    loss_sum = 0.0
    for i in order:
        x = X[i]
        s = row_weights[i]
        # Weights of ALL coordinates (non-lazy), then the scores of all outputs
        # with these pre-update weights.
        W, b = weights()
        p = np.array([W[k] @ x + b[k] for k in range(K)])
        row_loss, derivatives = row_loss_and_derivatives(
            loss, p, targets[i], K, epsilon
        )
        loss_sum += s * row_loss

        for k in range(K):
            dk = derivatives[k]

            # Every coordinate; g = 0 off the row's support, so sigma = 0 there and
            # z, n keep their values.
            g = s * dk * x
            sigma = (np.sqrt(nn[k] + g * g) - np.sqrt(nn[k])) / alpha
            z[k] = z[k] + g - sigma * W[k]
            nn[k] = nn[k] + g * g

            if fit_intercept:
                g_b = s * dk
                sigma_b = (math.sqrt(nb[k] + g_b * g_b) - math.sqrt(nb[k])) / alpha
                zb[k] = zb[k] + g_b - sigma_b * b[k]
                nb[k] = nb[k] + g_b * g_b

    W, b = weights()
    st["coef"] = W
    st["intercept"] = b
    return st, float(loss_sum)
