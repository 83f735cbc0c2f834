"""Floors: the simplest code that does a system's work, timed in the same run.

The classifiers' defaults choose ``eta``/``alpha`` and ``l1`` among 16 candidate
settings in their first pass. However that choice is implemented, it cannot cost
less than one read of the data with all 16 candidates updated side by side:
:func:`fused_da_pass` is that loop, for AdaGrad's dual averaging (ALGORITHMS.md
§1b) with log loss on binary rows, without the intercept, the divergence guard or
anything else an estimator does. ``suite.py`` and ``studies/profile_defaults.py``
time it next to SGD, so a time-to-quality target below it is shown to be out of
reach of any implementation of the same choice.
"""

import math
import time

import numba
import numpy as np
from sklearn.metrics import roc_auc_score


@numba.njit(cache=True)
def fused_da_pass(data, indices, indptr, y, eta, l1, delta, sum_grad, sum_sq, losses):
    """One pass of every dual-averaging candidate c (``eta[c]``, ``l1[c]``) over
    the rows: scores, log loss and gradients of all candidates per row, the data
    read once. ``sum_grad``, ``sum_sq``: (n_features, C). ``losses[c]`` gets each
    candidate's progressive loss."""
    n_candidates = eta.shape[0]
    scores = np.empty(n_candidates)
    slopes = np.empty(n_candidates)
    for i in range(indptr.shape[0] - 1):
        t = i + 1
        scores[:] = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            j, x = indices[p], data[p]
            for c in range(n_candidates):
                u = sum_grad[j, c]
                magnitude = abs(u) - (t - 1) * l1[c]
                if magnitude > 0.0:
                    w = -math.copysign(
                        eta[c] * magnitude / (delta + math.sqrt(sum_sq[j, c])), u
                    )
                    scores[c] += w * x
        label = 1.0 if y[i] == 1 else -1.0
        for c in range(n_candidates):
            z = label * scores[c]
            if z > 0.0:
                e = math.exp(-z)
                losses[c] += math.log1p(e)
                slopes[c] = -label * e / (1.0 + e)
            else:
                e = math.exp(z)
                losses[c] += math.log1p(e) - z
                slopes[c] = -label / (1.0 + e)
        for p in range(indptr[i], indptr[i + 1]):
            j, x = indices[p], data[p]
            for c in range(n_candidates):
                g = slopes[c] * x
                sum_grad[j, c] += g
                sum_sq[j, c] += g * g


def best_time(call, repeats):
    """The shortest of ``repeats`` timed calls of ``call()``, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def fused_floor(data, candidates, repeats, delta=0.1):
    """Best-of-``repeats`` seconds of :func:`fused_da_pass` over ``data``'s
    (binary) training rows, the candidate of lowest progressive loss and its test
    AUC (the weights after the pass; no intercept)."""
    X = data.X
    eta = np.array([float(c["eta"]) for c in candidates])
    l1 = np.array([float(c["l1"]) for c in candidates])
    n = X.shape[1]

    def run():
        sum_grad = np.zeros((n, eta.size))
        sum_sq = np.zeros((n, eta.size))
        losses = np.zeros(eta.size)
        fused_da_pass(
            X.data,
            X.indices,
            X.indptr,
            data.y,
            eta,
            l1,
            delta,
            sum_grad,
            sum_sq,
            losses,
        )
        return sum_grad, sum_sq, losses

    run()  # compile
    seconds = best_time(run, repeats)
    sum_grad, sum_sq, losses = run()
    best = int(np.argmin(losses))
    t = X.shape[0]
    magnitude = np.maximum(np.abs(sum_grad[:, best]) - t * l1[best], 0)
    w = -np.sign(sum_grad[:, best]) * eta[best] * magnitude
    w /= delta + np.sqrt(sum_sq[:, best])
    auc = roc_auc_score(data.y_test, data.X_test @ w)
    return seconds, candidates[best], auc
