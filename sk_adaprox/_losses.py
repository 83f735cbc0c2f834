"""Loss names as users write them, and the integer codes the kernels use."""

from ._kernels import common as _kernels

LOSS_CODES = {
    "hinge": _kernels.HINGE,
    "log_loss": _kernels.LOG_LOSS,
    "squared_hinge": _kernels.SQUARED_HINGE,
    "modified_huber": _kernels.MODIFIED_HUBER,
    "squared_error": _kernels.SQUARED_ERROR,
    "epsilon_insensitive": _kernels.EPSILON_INSENSITIVE,
    "huber": _kernels.HUBER,
}

CLASSIFICATION_LOSSES = frozenset(
    {"hinge", "log_loss", "squared_hinge", "modified_huber", "squared_error"}
)
REGRESSION_LOSSES = frozenset({"squared_error", "huber", "epsilon_insensitive"})

# Losses whose scores map to class probabilities (as in SGDClassifier).
PROBABILISTIC_LOSSES = frozenset({"log_loss", "modified_huber"})
