"""The kernels' loss values and derivatives against the reference table."""

import math

import numpy as np
import pytest
from reference_adagrad import (
    LOSSES,
    loss_derivative,
    loss_value,
    row_loss_and_derivatives,
)

from sk_adaprox._kernels import common as _kernels
from sk_adaprox._losses import LOSS_CODES

EPSILON = 0.3
# Scores on and around every kink (y p = ±1, |p - y| = epsilon) and far out.
CLASSIFICATION_SCORES = [-1000.0, -3.0, -1.0, -0.5, 0.0, 0.999, 1.0, 1.001, 2.0, 800.0]
REGRESSION_OFFSETS = [-50.0, -EPSILON, -0.1, 0.0, 0.1, EPSILON, 0.30001, 7.0]


def _cases(loss):
    if loss in ("squared_error", "huber", "epsilon_insensitive"):
        return [(1.7 + r, 1.7) for r in REGRESSION_OFFSETS] + [
            (p, y) for p in (-2.0, 0.5, 3.0) for y in (-1.0, 1.0)
        ]
    return [(p, y) for p in CLASSIFICATION_SCORES for y in (-1.0, 1.0)]


@pytest.mark.parametrize("loss", LOSSES)
def test_loss_and_derivative_match_reference(loss):
    for p, y in _cases(loss):
        value, slope = _kernels.loss_and_derivative(LOSS_CODES[loss], p, y, EPSILON)
        assert value == pytest.approx(loss_value(loss, p, y, EPSILON), rel=1e-13)
        assert slope == pytest.approx(loss_derivative(loss, p, y, EPSILON), rel=1e-13)


@pytest.mark.parametrize(
    "scores",
    [[0.3, -1.2, 2.0, 0.1], [0.0, 0.0, 0.0], [800.0, -800.0, 799.0], [-700.0, 5.0]],
)
def test_softmax_row_matches_reference(scores):
    scores = np.array(scores)
    weight = 0.7
    for label in range(scores.shape[0]):
        slopes = np.empty(scores.shape[0])
        value = _kernels.row_derivatives(
            LOSS_CODES["multinomial"], EPSILON, float(label), scores, weight, slopes
        )
        expected, derivatives = row_loss_and_derivatives(
            "multinomial", scores, label, scores.shape[0]
        )
        assert value == pytest.approx(expected, rel=1e-13, abs=1e-300)
        np.testing.assert_allclose(
            slopes, weight * derivatives, rtol=1e-13, atol=1e-300
        )


def test_log_loss_is_finite_for_huge_scores():
    code = LOSS_CODES["log_loss"]
    for p in (-1e6, -710.0, 710.0, 1e6, 1e300):
        for y in (-1.0, 1.0):
            value, slope = _kernels.loss_and_derivative(code, p, y, 0.0)
            assert math.isfinite(value) and math.isfinite(slope)
    # log(1 + exp(1000)) = 1000 + log1p(exp(-1000)) = 1000 exactly in float64.
    assert _kernels.loss_and_derivative(code, -1000.0, 1.0, 0.0) == (1000.0, -1.0)


def test_hinge_has_zero_gradient_exactly_at_the_margin():
    value, slope = _kernels.loss_and_derivative(LOSS_CODES["hinge"], 1.0, 1.0, 0.0)
    assert (value, slope) == (0.0, 0.0)
    assert (
        _kernels.loss_and_derivative(LOSS_CODES["hinge"], np.nextafter(1.0, 0), 1.0, 0)[
            1
        ]
        == -1.0
    )
