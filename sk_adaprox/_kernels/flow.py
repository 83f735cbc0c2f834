"""The importance-invariant step: a row's loss followed along the step's direction.

A diagonal or sketched second-order learner moves the weights along a fixed
direction ``v = A^{-1} x~`` for a row; the score then moves by ``q = x~ . v`` per
unit of step. The linear step multiplies ``v`` by ``T dl/dp`` (T the step size
times the row's weight). Where A underestimates the curvature along x~ (a diagonal
that ignores how the row's features move together, a sketch that dropped their
direction), ``q`` is too large and that step carries the score past the minimum of
the row's own loss: for a loss of the residual, whose slope grows with it, the
next rows then overshoot the other way, further each time.

Karampatziakis & Langford, "Online importance weight aware updates" (UAI 2011),
take instead the limit of many infinitesimal steps along ``v``: the score follows
the gradient flow

    dp / dtau = -q l'(p),   tau from 0 to T,

which has a closed form for every loss of the residual. It moves the score the
same way as the linear step, by at most as much, never past the loss's minimum,
and a row of weight s moves it as s rows of weight 1 would. When ``T q`` is small
it is the linear step.

The margin losses of classification (log, hinge, squared hinge, modified Huber)
do not increase with the margin, so the linear step can only lower a row's loss;
they keep it (:func:`follows_flow`).

:func:`flow_multiplier` returns u with the update ``w -= u v`` (the score moves by
``-u q``); the linear step's u is ``T l'(p)``.
"""

import math

from ._jit import jit
from .common import EPSILON_INSENSITIVE, HUBER, SQUARED_ERROR


@jit
def follows_flow(loss):
    """Whether the loss is one of the residual (its minimum at a finite score),
    whose steps follow the flow."""
    return loss == SQUARED_ERROR or loss == HUBER or loss == EPSILON_INSENSITIVE


@jit
def _quadratic_gain(gap, duration):
    """How much ``gap`` (> 0) shrinks under d(gap)/dtau = -gap."""
    return -gap * math.expm1(-duration)


@jit
def flow_multiplier(loss, epsilon, target, score, slope, duration, curvature):
    """u of the importance-invariant step (see the module): the update ``w -= u v``
    moves the score from ``score`` along the gradient flow of the loss for a time
    ``duration`` (T, the step size times the row's weight) on a direction whose
    score moves by ``curvature`` (q > 0) per unit. ``slope`` is dl/dp at
    ``score``. Losses that do not follow the flow, and a ``curvature`` of 0, get
    the linear step T * slope."""
    if not follows_flow(loss) or slope == 0.0 or not curvature > 0.0:
        return duration * slope
    time = duration * curvature
    residual = score - target
    if loss == SQUARED_ERROR:
        return _quadratic_gain(residual, time) / curvature
    gap = abs(residual)
    if loss == EPSILON_INSENSITIVE:
        # |r| falls at rate 1 down to epsilon.
        gain = min(time, gap - epsilon)
    elif gap <= epsilon:  # Huber's quadratic zone
        gain = _quadratic_gain(gap, time)
    else:
        # Huber's linear zone: |r| falls at rate epsilon down to epsilon, then
        # as in the quadratic zone.
        linear_time = (gap - epsilon) / epsilon
        if time <= linear_time:
            gain = epsilon * time
        else:
            gain = (gap - epsilon) + _quadratic_gain(epsilon, time - linear_time)
    return math.copysign(gain, residual) / curvature
