"""What every training kernel shares: loss codes, slots, status codes, the loss
derivatives of a row and the bound that decides when a row needs a dry run."""

import math

import numpy as np

from ._jit import jit

# Loss codes. _losses.py maps the estimators' loss names to these.
HINGE = 0
LOG_LOSS = 1
SQUARED_HINGE = 2
MODIFIED_HUBER = 3
SQUARED_ERROR = 4
EPSILON_INSENSITIVE = 5
HUBER = 6
# The multinomial (softmax) log loss: one loss of all K scores of a row. With one
# output (two classes) it is the logistic loss, LOG_LOSS.
MULTINOMIAL = 7

# Slot 0 of every algorithm's state array holds the weights; the algorithm modules
# name their other slots.
WEIGHT = 0

STATUS_OK = 0
STATUS_NONFINITE_SCORE = 1
STATUS_NONFINITE_UPDATE = 2

# The ``dry_run`` argument of the row updates: compute and check only, or apply.
# NumPy booleans, not Python's: Numba types a literal True or False as a type of
# its own, and compiled a helper once for each of the two. For the same reason
# the row helpers pass a feature's index as ``np.int64(indices[p])``: the
# intercept's row index is int64, a CSR matrix's indices usually int32.
DRY_RUN = np.bool_(True)
APPLY = np.bool_(False)


@jit
def loss_and_derivative(loss, p, y, epsilon):
    """Return ``(l(p, y), dl/dp)`` for the loss with integer code ``loss``
    (``MULTINOMIAL`` of one output: the logistic loss)."""
    if loss == LOG_LOSS or loss == MULTINOMIAL:
        z = y * p
        # Two branches so that exp never overflows, whatever |p|.
        if z > 0.0:
            e = math.exp(-z)
            return math.log1p(e), -y * e / (1.0 + e)
        e = math.exp(z)
        return math.log1p(e) - z, -y / (1.0 + e)
    if loss == HINGE:
        z = y * p
        if z < 1.0:
            return 1.0 - z, -y
        return 0.0, 0.0
    if loss == SQUARED_HINGE:
        margin = 1.0 - y * p
        if margin > 0.0:
            return margin * margin, -2.0 * y * margin
        return 0.0, 0.0
    if loss == MODIFIED_HUBER:
        z = y * p
        if z >= 1.0:
            return 0.0, 0.0
        if z >= -1.0:
            return (1.0 - z) * (1.0 - z), -2.0 * y * (1.0 - z)
        return -4.0 * z, -4.0 * y
    r = p - y
    if loss == SQUARED_ERROR:
        return 0.5 * r * r, r
    if loss == EPSILON_INSENSITIVE:
        excess = abs(r) - epsilon
        if excess > 0.0:
            return excess, math.copysign(1.0, r)
        return 0.0, 0.0
    # HUBER
    if abs(r) <= epsilon:
        return 0.5 * r * r, r
    return epsilon * abs(r) - 0.5 * epsilon * epsilon, math.copysign(epsilon, r)


@jit
def output_target(target, k, n_outputs):
    """Output k's target: the target itself for one output; one-vs-rest +-1 (the
    target is the class index) for several."""
    if n_outputs == 1:
        return target
    return 1.0 if k == int(target) else -1.0


@jit
def row_derivatives(loss, epsilon, target, scores, row_weight, out_scaled_dloss):
    """Fill ``out_scaled_dloss[k] = s_t * dl/dp`` for every output; return the row loss.

    The row loss is the sum over outputs of l(p_k, y_k) (one-vs-rest for K > 1),
    or, for ``MULTINOMIAL`` with K > 1, the multinomial log loss of the K scores.
    """
    n_outputs = scores.shape[0]
    row_loss = 0.0
    if n_outputs == 1:
        value, slope = loss_and_derivative(loss, scores[0], target, epsilon)
        out_scaled_dloss[0] = row_weight * slope
        return value
    if loss == MULTINOMIAL:
        return softmax_derivatives(int(target), scores, row_weight, out_scaled_dloss)
    for k in range(n_outputs):
        y_k = output_target(target, k, n_outputs)
        value, slope = loss_and_derivative(loss, scores[k], y_k, epsilon)
        out_scaled_dloss[k] = row_weight * slope
        row_loss += value
    return row_loss


@jit
def softmax_derivatives(label, scores, row_weight, out_scaled_dloss):
    """The multinomial log loss ``log(sum_k exp(p_k)) - p_label`` of the scores p,
    and ``out_scaled_dloss[k] = s_t * (softmax(p)_k - [k == label])``, its
    derivatives in the scores times the row weight. The largest score is
    subtracted before exponentiating, so no exp overflows; a non-finite score
    gives non-finite derivatives (the kernels' divergence check)."""
    n_outputs = scores.shape[0]
    largest = scores[0]
    for k in range(1, n_outputs):
        largest = max(largest, scores[k])
    total = 0.0
    for k in range(n_outputs):
        exponential = math.exp(scores[k] - largest)
        out_scaled_dloss[k] = exponential
        total += exponential
    for k in range(n_outputs):
        probability = out_scaled_dloss[k] / total
        if k == label:
            probability -= 1.0
        out_scaled_dloss[k] = row_weight * probability
    return math.log(total) + largest - scores[label]


@jit
def weighted_loss_sum(loss, epsilon, targets, scores, row_weights):
    """Sum over rows of ``row_weights[i]`` times row i's loss (summed over outputs)
    at ``scores[i]``: the held-out loss that early stopping monitors."""
    slopes = np.empty(scores.shape[1])
    total = 0.0
    for i in range(scores.shape[0]):
        total += row_weights[i] * row_derivatives(
            loss, epsilon, targets[i], scores[i], 1.0, slopes
        )
    return total


@jit
def copy_values(values, out):
    """``out[:] = values`` for 1-D arrays, element by element. Kernels copy arrays
    with this, and scale slices by loops, never by slice assignment (``a[i] =
    row``, ``a[:, i] *= c``): that compiles NumPy's formatted shape-mismatch error
    message, 1.5-2 s of first-call compile per process and array rank."""
    for i in range(out.shape[0]):
        out[i] = values[i]


@jit
def all_finite(values):
    for k in range(values.shape[0]):
        if not math.isfinite(values[k]):
            return False
    return True


# A row cannot produce a non-finite update when its largest gradient is below
# SAFE_GRADIENT (so g**2 < 1e290 is below half an ulp of the largest float and
# G + g**2 cannot overflow) and a bound on its weights after the update, which each
# algorithm derives from its rule, stays below SAFE_WEIGHT. Other rows get a dry run
# before being applied.
SAFE_GRADIENT = 1e145
SAFE_WEIGHT = 1e300


@jit
def row_is_safe(scaled_dloss, max_abs_x, weight_bound):
    largest = 0.0
    for k in range(scaled_dloss.shape[0]):
        largest = max(largest, abs(scaled_dloss[k]))
    return largest * max_abs_x < SAFE_GRADIENT and weight_bound < SAFE_WEIGHT
