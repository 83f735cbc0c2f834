"""The running units of a regressor's stream (``normalize_y``): the weighted mean
and standard deviation of the targets up to each row."""

import math

from ._jit import jit


@jit
def running_units(y, weights, moments, offsets, scales):
    """Continue ``moments`` = [sum of weights, weighted mean, weighted sum of
    squared deviations] over the rows of ``y``, in place, and write the units after
    each row into ``offsets[i]`` and ``scales[i]`` (0 and 1 before any weight; a
    scale of 1 while the targets are constant).

    West's weighted update: the mean moves by each row's share of its distance to
    it, so a large offset costs no precision, and the result after a row does not
    depend on how the rows were cut into calls.
    """
    total, mean, deviations = moments[0], moments[1], moments[2]
    for i in range(y.shape[0]):
        weight = weights[i]
        if weight > 0.0:
            total += weight
            delta = y[i] - mean
            mean += delta * (weight / total)
            deviations += weight * delta * (y[i] - mean)
        offsets[i] = mean if total > 0.0 else 0.0
        scale = math.sqrt(max(deviations, 0.0) / total) if total > 0.0 else 1.0
        scales[i] = scale if (math.isfinite(scale) and scale > 0.0) else 1.0
    moments[0], moments[1], moments[2] = total, mean, deviations
