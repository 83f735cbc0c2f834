"""Slow, obviously-correct reference for the Online Newton Step (ALGORITHMS.md §3).

This module is a test helper, not a test file.  It implements the update of
``/work/shared/ALGORITHMS.md`` §3 as made precise by the ONS interface note (issue
10) literally, in float64, for ``matrix`` in {"full", "diag", "sketch"}:

- A itself, (d+1) x (d+1) per output, is kept explicitly, even for "diag" (a
  diagonal matrix) and "sketch" (A = eps I + S^T S, recomputed from S);
- A^{-1} g comes from ``np.linalg.solve`` on A every round: no Sherman-Morrison, no
  Woodbury;
- the Frequent Directions sketch S (2m rows) is shrunk with a full thin SVD of S;
- the generalized projection finds mu >= 0 with ||(A + mu I)^{-1} A w'|| = radius
  by ``scipy.optimize.brentq`` on explicit linear solves (no eigendecomposition);
- with ``l1`` ("diag" only) every round's step is composite in the norm of A,
  argmin_w g.w + gamma/2 |w - w_t|_A^2 + l1 sqrt(m) |w|_1 (features only), which
  for a diagonal A is the soft threshold of w' at l1 sqrt(m) / (gamma A_ii),
  applied to every feature every round (no lazy form), before the projection;
  for a diagonal A that order gives the exact minimiser over the ball (the KKT
  conditions of both terms scale each coordinate by A_ii / (A_ii + mu)). A
  feature that the row does not have keeps the threshold of the last row that
  had it (A_ii and m as they were then: docs/ons.md, "l1").

The features' scale (docs/ons.md, "The features' scale"): m is the running
weighted mean of the squared non-zero feature values, the row's own included
(1 before any), and N = diag(sqrt(m), ..., sqrt(m), 1) (the intercept last).
"full" and "sketch" keep A in normalized coordinates, A^ = eps I + sum h^ h^^T
with h^ = N^{-1} h at the round h came (the explicit ``A``); the model's matrix
is N A^ N. "diag" keeps the raw G (``A`` holds eps I + diag(G), A at m = 1) and
its matrix is diag(eps m + G_features, eps + G_intercept); a round's step takes
that diagonal before the round plus the round's h h^T, exactly. The step is
w' = w - u A^{-1} x~ with u = c / gamma (the linear step), or, for "diag" and
"sketch" with a loss of the residual, u from the loss's gradient flow for a
time s / gamma along that direction (``flow_multiplier``). The ball bounds the
normalized weights N w, in the norm of the normalized matrix.

Coordinates: x~ = [x, 1] with an intercept, [x, 0] without (length d + 1); index d
(the last) is the intercept.  The losses, their derivatives and the one-vs-rest
targets are shared with the AdaGrad reference (``reference_adagrad``).

Nothing here imports ``sk_adaprox``.
"""

import math

import numpy as np
from reference_adagrad import (
    binary_targets,
    checked_rows,
    loss_derivative,
    loss_value,
    row_loss_and_derivatives,
)
from scipy.optimize import brentq

__all__ = [
    "CLASSIFIER_LOSSES",
    "MATRICES",
    "REGRESSOR_LOSSES",
    "binary_targets",
    "coef_and_intercept",
    "fd_insert",
    "fd_shrink",
    "flow_multiplier",
    "generalized_projection",
    "initial_state",
    "loss_derivative",
    "loss_value",
    "reference_ons",
]

MATRICES = ("full", "diag", "sketch")
REGRESSOR_LOSSES = ("squared_error", "huber", "epsilon_insensitive")
CLASSIFIER_LOSSES = ("log_loss", "squared_hinge")
# The softmax loss of K > 1 outputs (reference_adagrad.row_loss_and_derivatives).
JOINT_LOSSES = ("multinomial",)


# ---------------------------------------------------------------------------
# The generalized projection onto the ball ||w|| <= radius in the norm of A
# ---------------------------------------------------------------------------


def generalized_projection(A, w_prime, radius):
    """argmin_{||w|| <= radius} (w - w')^T A (w - w'), for symmetric positive
    definite A.

    Returns ``(w, mu)``.  If ||w'|| <= radius: ``(w'.copy(), 0.0)``.  Otherwise
    w = (A + mu I)^{-1} A w' with mu > 0 the root of
    f(mu) = ||(A + mu I)^{-1} A w'|| - radius, found by brentq on [0, mu_hi],
    each f evaluated with an explicit ``np.linalg.solve``.  mu_hi = 2 ||A w'|| /
    radius brackets the root: ||(A + mu I)^{-1}|| <= 1 / mu for A >= 0, so
    f(mu_hi) <= -radius / 2 < 0, while f(0) = ||w'|| - radius > 0.
    """
    A = np.asarray(A, dtype=np.float64)
    w_prime = np.asarray(w_prime, dtype=np.float64)
    radius = float(radius)
    if not radius > 0.0:
        raise ValueError(f"radius must be > 0, got {radius}")
    norm = float(np.linalg.norm(w_prime))
    if norm <= radius:
        return w_prime.copy(), 0.0
    Aw = A @ w_prime
    eye = np.eye(A.shape[0])

    def w_of(mu):
        if mu == 0.0:
            return w_prime
        return np.linalg.solve(A + mu * eye, Aw)

    def f(mu):
        return float(np.linalg.norm(w_of(mu))) - radius

    mu_hi = 2.0 * float(np.linalg.norm(Aw)) / radius
    mu = brentq(f, 0.0, mu_hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=2000)
    return w_of(mu), float(mu)


# ---------------------------------------------------------------------------
# The importance-invariant step of the losses of the residual
# ---------------------------------------------------------------------------


def flow_multiplier(loss, score, target, T, q, epsilon):
    """u such that w -= u v moves the score p = w.x by -u q along the gradient
    flow dp/dtau = -q l'(p) for tau in [0, T] (Karampatziakis & Langford 2011),
    for the losses of the residual r = p - y; T l'(p) (the linear step) for the
    others. Closed forms: squared error r(T) = r e^{-qT}; epsilon-insensitive
    |r| falls at rate 1 to epsilon; Huber |r| falls at rate epsilon to epsilon,
    then as squared error."""
    slope = loss_derivative(loss, score, target, epsilon)
    if loss not in REGRESSOR_LOSSES or slope == 0.0 or q <= 0.0:
        return T * slope
    r = score - target
    a = abs(r)
    if loss == "squared_error":
        end = a * math.exp(-q * T)
    elif loss == "epsilon_insensitive":
        end = max(a - q * T, epsilon)
    elif a <= epsilon:
        end = a * math.exp(-q * T)
    else:
        t_knee = (a - epsilon) / (q * epsilon)
        if T <= t_knee:
            end = a - q * epsilon * T
        else:
            end = epsilon * math.exp(-q * (T - t_knee))
    return math.copysign(a - end, r) / q


# ---------------------------------------------------------------------------
# Frequent Directions
# ---------------------------------------------------------------------------


def fd_shrink(S, m):
    """The Frequent Directions shrink of a full buffer S (2m rows).

    Thin SVD S = U diag(sigma) V^T, sigma descending and padded with zeros to 2m
    values; delta = sigma[m]**2; the first m rows become
    sqrt(max(sigma_i**2 - delta, 0)) V_i, the others 0.  Returns a new array.
    """
    S = np.asarray(S, dtype=np.float64)
    two_m, width = S.shape
    if two_m != 2 * m:
        raise ValueError("S must have 2m rows")
    _, sigma, Vt = np.linalg.svd(S, full_matrices=False)
    # Pad to 2m singular values / right vectors (width < 2m: the missing ones are 0).
    sig = np.zeros(two_m)
    sig[: sigma.shape[0]] = sigma
    V = np.zeros((two_m, width))
    V[: Vt.shape[0]] = Vt
    delta = sig[m] ** 2
    new = np.zeros_like(S)
    for i in range(m):
        new[i] = math.sqrt(max(sig[i] ** 2 - delta, 0.0)) * V[i]
    return new


def fd_insert(S, fill, g, m):
    """Insert g into the sketch: shrink first if the buffer is full (fill == 2m),
    then S[fill] = g, fill += 1.  Returns ``(S_new, fill_new, shrunk)``; S is not
    modified."""
    S = np.array(S, dtype=np.float64, copy=True)
    fill = int(fill)
    shrunk = False
    if fill == 2 * m:
        S = fd_shrink(S, m)
        fill = m
        shrunk = True
    S[fill] = g
    return S, fill + 1, shrunk


# ---------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------


def initial_state(n_outputs, n_features, matrix, eps, sketch_size=None):
    """The state before the first round: w = 0, A = eps I (and an empty sketch).

    Keys: ``w`` (K, d+1), ``A`` (K, d+1, d+1), ``projections`` (K,) (rounds whose
    step left the ball), and for "sketch" ``S`` (K, 2m, d+1), ``fill`` (K,) and
    ``shrinks`` (K,).
    """
    if matrix not in MATRICES:
        raise ValueError(f"unknown matrix {matrix!r}")
    K, D = int(n_outputs), int(n_features) + 1
    st = {
        "w": np.zeros((K, D)),
        "A": np.array([float(eps) * np.eye(D) for _ in range(K)]).reshape(K, D, D),
        "projections": np.zeros(K, dtype=np.int64),
        # m's sums: the weighted sum of squared non-zero values, of their weights.
        "scale_sums": np.zeros(2),
        # "diag" with l1: each feature's threshold of its last row (K, d); NaN
        # until recorded (a call starts by recording the current one there).
        "thresholds": np.full((K, D - 1), np.nan),
    }
    if matrix == "sketch":
        m = int(sketch_size)
        st["S"] = np.zeros((K, 2 * m, D))
        st["fill"] = np.zeros(K, dtype=np.int64)
        st["shrinks"] = np.zeros(K, dtype=np.int64)
    return st


def _copy_state(state, K, d, matrix, eps, m):
    fresh = initial_state(K, d, matrix, eps, m)
    if state is None:
        return fresh
    new = {}
    for key, value in fresh.items():
        arr = np.array(state[key], dtype=value.dtype, copy=True)
        if arr.shape != value.shape:
            raise ValueError(
                f"state[{key!r}] has shape {arr.shape}, expected {value.shape}"
            )
        new[key] = arr
    return new


def coef_and_intercept(state):
    """``(coef (K, d), intercept (K,))`` of a state: w without / with only its last
    coordinate."""
    w = state["w"]
    return w[:, :-1].copy(), w[:, -1].copy()


# ---------------------------------------------------------------------------
# The reference
# ---------------------------------------------------------------------------


def reference_ons(
    X,
    targets,
    row_weights,
    *,
    n_outputs,
    loss,
    matrix,
    gamma,
    eps,
    radius=None,
    sketch_size=None,
    fit_intercept=True,
    epsilon=0.1,
    l1=0.0,
    order=None,
    state=None,
    trace=None,
):
    """Run the Online Newton Step literally.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Dense rows (a scipy sparse matrix is densified).
    targets : ndarray of shape (n,)
        n_outputs == 1: the target y itself (real, or +-1).  n_outputs == K > 1: a
        class index in 0..K-1, turned into K one-vs-rest +-1 targets.
    row_weights : ndarray of shape (n,)
        s_t (sample weight times class weight).
    n_outputs, loss, matrix, gamma, eps, radius, sketch_size, fit_intercept, epsilon
        As in the ONS interface note; ``sketch_size`` (m) only for "sketch".
    l1 : float
        The L1 strength of the composite step (docs/ons.md), "diag" only; a
        round without gradient still takes its proximal step.
    order : sequence of int, optional
        Rows visited, one round per visit (default ``range(n)``).
    state : dict, optional
        State from a previous call (not modified); None means ``initial_state``.
        It must come from a run with the same matrix, eps, sketch_size and
        fit_intercept.
    trace : list, optional
        If given, one dict per (round, output) that was updated (c != 0) is
        appended: ``row``, ``k``, ``c``, ``g``, ``h`` (A gained h h^T), ``h_hat``
        (N^{-1} h), ``A`` (the model's matrix after the update, in normalized
        coordinates), ``root`` (sqrt(m)), ``u`` (the step's multiplier),
        ``w_prime`` and ``w`` (and normalized, ``w_prime_hat`` and ``w_hat``),
        ``mu`` (None when the step stayed in the ball or there is no radius), and
        for "sketch" ``shrunk``.

    Returns
    -------
    state : dict
        New dict, see ``initial_state``.
    loss_sum : float
        Sum over rounds of s_t * sum_k l(p_k, y_k), with pre-update scores.
    """
    if loss not in REGRESSOR_LOSSES + CLASSIFIER_LOSSES + JOINT_LOSSES:
        raise ValueError(f"unknown loss {loss!r}")
    if matrix not in MATRICES:
        raise ValueError(f"unknown matrix {matrix!r}")
    gamma, eps, epsilon = float(gamma), float(eps), float(epsilon)
    if not (gamma > 0.0 and eps > 0.0):
        raise ValueError("gamma and eps must be > 0")
    l1 = float(l1)
    if l1 < 0.0 or (l1 > 0.0 and matrix != "diag"):
        raise ValueError("l1 must be >= 0, and 0 unless matrix is 'diag'")
    if radius is not None:
        radius = float(radius)
        if not radius > 0.0:
            raise ValueError("radius must be > 0")
    m = None
    if matrix == "sketch":
        m = int(sketch_size)
        if m < 1:
            raise ValueError("sketch_size must be >= 1")
    X, targets, row_weights, K = checked_rows(X, targets, row_weights, n_outputs)
    n, d = X.shape
    if order is None:
        order = range(n)
    order = [int(i) for i in order]
    if any(i < 0 or i >= n for i in order):
        raise ValueError("order holds a row index out of range")

    st = _copy_state(state, K, d, matrix, eps, m)
    W, A = st["w"], st["A"]
    if not fit_intercept and np.any(W[:, d] != 0.0):
        raise ValueError("fit_intercept=False with a state whose intercept != 0")
    D = d + 1

    if l1 > 0.0:
        # Features without a recorded threshold (never in a row, their weights
        # given) shrink at the one of the state the call starts from.
        total, total_weight = st["scale_sums"]
        scale = total / total_weight if total > 0.0 and total_weight > 0.0 else 1.0
        G = np.diagonal(A, axis1=1, axis2=2)[:, :d] - eps
        now = l1 * math.sqrt(scale) / (gamma * (eps * scale + G))
        unset = np.isnan(st["thresholds"])
        st["thresholds"][unset] = now[unset]

    loss_sum = 0.0
    for i in order:
        # 1. x~ = [x, 1] or [x, 0].
        x_t = np.append(X[i], 1.0 if fit_intercept else 0.0)
        s = row_weights[i]
        ys = binary_targets(targets[i], K)
        # 2. Every output's score before any update.
        p = np.array([W[k] @ x_t for k in range(K)])
        row_loss, derivatives = row_loss_and_derivatives(
            loss, p, targets[i], K, epsilon
        )
        loss_sum += s * row_loss
        # 3. The running scale m, with this row's non-zero features.
        nonzero = X[i][X[i] != 0.0]
        if s > 0.0:
            st["scale_sums"] += [s * float(np.sum(nonzero**2)), s * nonzero.size]
        total, total_weight = st["scale_sums"]
        scale = total / total_weight if total > 0.0 and total_weight > 0.0 else 1.0
        N = np.append(np.full(d, math.sqrt(scale)), 1.0)
        for k in range(K):
            # 4. c = s dl/dp, g = c x~; c == 0 leaves output k untouched.
            c = s * derivatives[k]
            learns = c != 0.0 and x_t.any()
            if not learns and l1 == 0.0 and radius is None:
                continue  # no gradient, nothing to shrink or project
            g = c * x_t
            # 5. The matrix, with the row's weight as an importance weight: a row
            # of weight s adds s (dl/dp x~)(dl/dp x~)^T = g g^T / s, as s rows would,
            # not g g^T (docs/ons.md, "Sample weights"). h h^T = g g^T / s; "full"
            # and "sketch" take it normalized, h^ = N^{-1} h.
            h = g / np.sqrt(s) if learns else np.zeros(D)
            h_hat = h / N
            shrunk = None
            if not learns:
                pass  # only l1's proximal step
            elif matrix == "full":
                A[k] = A[k] + np.outer(h_hat, h_hat)
            elif matrix == "diag":
                A[k] = A[k] + np.diag(h * h)
            else:
                st["S"][k], st["fill"][k], shrunk = fd_insert(
                    st["S"][k], st["fill"][k], h_hat, m
                )
                st["shrinks"][k] += shrunk
                A[k] = eps * np.eye(D) + st["S"][k].T @ st["S"][k]
            # The model's matrix, and the one in normalized coordinates. The
            # diagonal's: diag(eps m + G, eps + G_intercept) with this row's G; its
            # step's: the diagonal before the row plus the row's h h^T exactly.
            if matrix == "diag":
                G = np.diag(A[k]) - eps
                offsets = np.append(np.full(d, eps * scale), eps)
                model_A = np.diag(offsets + G)
                step_A = np.diag(offsets + G - h * h) + np.outer(h, h)
            else:
                model_A = step_A = N[:, None] * A[k] * N[None, :]
            A_hat = model_A / N[:, None] / N[None, :]
            # 6. The step along A^{-1} x~.
            direction = np.linalg.solve(step_A, x_t)
            T = s / gamma
            if matrix != "full" and learns and loss in REGRESSOR_LOSSES:
                u = flow_multiplier(loss, p[k], ys[k], T, x_t @ direction, epsilon)
            else:  # the linear step (flow_multiplier's T l'(p) for the others)
                u = c / gamma
            w_prime = W[k] - u * direction
            if l1 > 0.0:
                # The composite step's proximal part: soft thresholds of
                # l1 sqrt(m) / (gamma A_ii) on the features the row has, the
                # recorded ones on the others, none on the intercept.
                has = X[i] != 0.0
                st["thresholds"][k, has] = (
                    l1 * math.sqrt(scale) / (gamma * np.diag(model_A)[:d][has])
                )
                thresholds = np.append(st["thresholds"][k], 0.0)
                w_prime = np.sign(w_prime) * np.maximum(
                    np.abs(w_prime) - thresholds, 0.0
                )
            # 7. The generalized projection of the normalized weights, every
            # round they are outside the ball: a row without a gradient moves
            # none, but a change of the scale m can move them out of it.
            mu = None
            w_prime_hat = N * w_prime
            w_hat = w_prime_hat
            if radius is not None and np.linalg.norm(w_prime_hat) > radius:
                w_hat, mu = generalized_projection(A_hat, w_prime_hat, radius)
                st["projections"][k] += 1
            W[k] = w_prime if mu is None else w_hat / N
            if trace is not None:
                record = dict(
                    row=i,
                    k=k,
                    c=c,
                    g=g.copy(),
                    h=h.copy(),
                    h_hat=h_hat.copy(),
                    A=A_hat.copy(),
                    root=math.sqrt(scale),
                    u=u,
                    w_prime=w_prime.copy(),
                    w_prime_hat=w_prime_hat.copy(),
                    mu=mu,
                    w=W[k].copy(),
                    w_hat=w_hat.copy(),
                )
                if matrix == "sketch":
                    record["shrunk"] = shrunk
                trace.append(record)

    return st, float(loss_sum)
