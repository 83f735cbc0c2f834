"""Loss names as users write them, the integer codes the kernels use, and the
loss of the best model without features."""

import numpy as np
from scipy.optimize import minimize_scalar

from ._kernels import common as _kernels

LOSS_CODES = {
    "hinge": _kernels.HINGE,
    "log_loss": _kernels.LOG_LOSS,
    "squared_hinge": _kernels.SQUARED_HINGE,
    "modified_huber": _kernels.MODIFIED_HUBER,
    "squared_error": _kernels.SQUARED_ERROR,
    "epsilon_insensitive": _kernels.EPSILON_INSENSITIVE,
    "huber": _kernels.HUBER,
    "multinomial": _kernels.MULTINOMIAL,
}

CLASSIFICATION_LOSSES = frozenset(
    {
        "hinge",
        "log_loss",
        "squared_hinge",
        "modified_huber",
        "squared_error",
        "multinomial",
    }
)
REGRESSION_LOSSES = frozenset({"squared_error", "huber", "epsilon_insensitive"})

# Losses whose scores map to class probabilities (as in SGDClassifier).
PROBABILISTIC_LOSSES = frozenset({"log_loss", "modified_huber", "multinomial"})

# Losses of all of a row's outputs at once: an output's gradient depends on the
# other outputs' scores, so the outputs cannot be trained apart.
JOINT_LOSSES = frozenset({"multinomial"})


def loss_terms(loss, n_outputs):
    """The terms of a row's loss that a mean loss is taken over: one per output
    (one-vs-rest), one for a joint loss of all outputs."""
    return 1 if loss in JOINT_LOSSES else n_outputs


def baseline_loss(loss, epsilon, targets, row_weights, n_outputs, fit_intercept):
    """The mean training loss (per unit of row weight and per output, as a pass
    reports it) of the best model without features: the best constant score per
    output when ``fit_intercept``, the score 0 otherwise.

    ``targets`` are the kernels' (±1 with one output, class indices with several,
    real values for regression). A classification output's loss depends on its
    targets only through the weighted fraction p of its positive rows, and the
    best constant has a closed form (log loss: its entropy at the score
    log(p / (1 - p)); hinge 2 min(p, 1 - p); squared hinge and modified Huber
    4 p (1 - p) at 2p - 1; squared error half that); regression losses are
    minimised numerically.
    """
    total_weight = float(row_weights.sum())
    if not total_weight > 0.0:
        return 0.0
    if loss in JOINT_LOSSES and n_outputs > 1:
        return _multinomial_constant_loss(
            targets, row_weights, n_outputs, fit_intercept
        )
    if loss == "multinomial":  # one output, two classes: the logistic loss
        loss = "log_loss"
    if not fit_intercept:
        zeros = np.zeros((targets.shape[0], n_outputs))
        total = _kernels.weighted_loss_sum(
            LOSS_CODES[loss], epsilon, targets, zeros, row_weights
        )
        return total / (total_weight * n_outputs)
    if loss in ("huber", "epsilon_insensitive"):
        return _best_constant_numerically(loss, epsilon, targets, row_weights)
    if n_outputs == 1 and loss == "squared_error":
        mean = np.average(targets, weights=row_weights)
        return 0.5 * float(np.average((targets - mean) ** 2, weights=row_weights))
    total = 0.0
    for k in range(n_outputs):
        positive = targets == (1.0 if n_outputs == 1 else k)
        p = float(row_weights[positive].sum()) / total_weight
        total += _binary_constant_loss(loss, p)
    return total / n_outputs


def _multinomial_constant_loss(targets, row_weights, n_outputs, fit_intercept):
    """The best constant scores' mean multinomial loss: the entropy of the
    weighted class frequencies (the scores their logarithms); log K for scores
    of 0."""
    if not fit_intercept:
        return float(np.log(n_outputs))
    weights = np.bincount(
        targets.astype(np.intp), weights=row_weights, minlength=n_outputs
    )
    frequencies = weights[weights > 0.0] / weights.sum()
    return float(-np.sum(frequencies * np.log(frequencies)))


def _binary_constant_loss(loss, p):
    """The best constant's mean loss on ±1 targets with a fraction p of +1."""
    if loss == "log_loss":
        return float(-sum(q * np.log(q) for q in (p, 1.0 - p) if q > 0.0))
    if loss == "hinge":
        return 2.0 * min(p, 1.0 - p)
    if loss in ("squared_hinge", "modified_huber"):
        return 4.0 * p * (1.0 - p)
    return 2.0 * p * (1.0 - p)  # squared_error


def _best_constant_numerically(loss, epsilon, targets, row_weights):
    """The least weighted mean loss of a constant score, by a bounded scalar
    search between the smallest and largest target (the loss is convex)."""
    code = LOSS_CODES[loss]
    total_weight = float(row_weights.sum())
    scores = np.empty((targets.shape[0], 1))

    def mean_loss(score):
        scores.fill(score)
        return _kernels.weighted_loss_sum(code, epsilon, targets, scores, row_weights)

    low, high = float(targets.min()), float(targets.max())
    if low == high:
        return mean_loss(low) / total_weight
    best = minimize_scalar(mean_loss, bounds=(low, high), method="bounded")
    return min(float(best.fun), mean_loss(low), mean_loss(high)) / total_weight
