"""The estimators under test, by algorithm: one place that names them all.

Tests that check what *every* sk_adaprox estimator guarantees (partial_fit streams,
input formats, state handling, divergence, ...) parametrize over ``ALGORITHMS`` and
build estimators with :func:`make`, so a new algorithm is covered by adding one
entry here. This module is a test helper, not a test file.
"""

from dataclasses import dataclass, field

from sk_adaprox import (
    AdaGradClassifier,
    AdaGradRegressor,
    CoinBettingClassifier,
    CoinBettingRegressor,
    FTRLClassifier,
    FTRLRegressor,
    ONSClassifier,
    ONSRegressor,
)


@dataclass(frozen=True)
class Algorithm:
    """One update rule: its estimator classes, the parameters that select the rule,
    its step-size parameter, the names of its fitted state attributes, the
    parameter that damps its first steps, and whether it has ``l1``/``l2``."""

    classifier: type
    regressor: type
    step_size: str
    state: tuple
    params: dict = field(default_factory=dict)
    damping: str = "delta"
    regularized: bool = True


ALGORITHMS = {
    "adagrad_md": Algorithm(
        AdaGradClassifier,
        AdaGradRegressor,
        "eta",
        ("coef_", "intercept_", "sum_sq_grad_", "intercept_sum_sq_grad_"),
        {"update": "mirror_descent"},
    ),
    "adagrad_da": Algorithm(
        AdaGradClassifier,
        AdaGradRegressor,
        "eta",
        (
            "coef_",
            "intercept_",
            "sum_sq_grad_",
            "intercept_sum_sq_grad_",
            "sum_grad_",
            "intercept_sum_grad_",
        ),
        {"update": "dual_averaging"},
    ),
    "ftrl": Algorithm(
        FTRLClassifier,
        FTRLRegressor,
        "alpha",
        ("coef_", "intercept_", "z_", "n_", "intercept_z_", "intercept_n_"),
        damping="beta",
    ),
    "ons_full": Algorithm(
        ONSClassifier,
        ONSRegressor,
        "gamma",
        ("coef_", "intercept_", "A_inv_"),
        {"matrix": "full"},
        damping="eps",
        regularized=False,
    ),
    "ons_diag": Algorithm(
        ONSClassifier,
        ONSRegressor,
        "gamma",
        ("coef_", "intercept_", "sum_sq_grad_", "intercept_sum_sq_grad_"),
        {"matrix": "diag", "l1": 0.0},
        damping="eps",
        regularized=False,
    ),
    # Diagonal ONS with l1: lazy weights, like regularised mirror descent.
    "ons_diag_l1": Algorithm(
        ONSClassifier,
        ONSRegressor,
        "gamma",
        ("coef_", "intercept_", "sum_sq_grad_", "intercept_sum_sq_grad_"),
        {"matrix": "diag", "l1": 0.01},
        damping="eps",
        regularized=False,
    ),
    "ons_sketch": Algorithm(
        ONSClassifier,
        ONSRegressor,
        "gamma",
        ("coef_", "intercept_", "S_", "H_"),
        {"matrix": "sketch", "sketch_size": 3},
        damping="eps",
        regularized=False,
    ),
    "coin": Algorithm(
        CoinBettingClassifier,
        CoinBettingRegressor,
        "initial_wealth",
        (
            "coef_",
            "intercept_",
            "sum_neg_grad_",
            "sum_abs_grad_",
            "reward_",
            "max_abs_x_",
            "max_abs_dloss_",
            "intercept_sum_neg_grad_",
            "intercept_sum_abs_grad_",
            "intercept_reward_",
            "intercept_max_abs_x_",
            "intercept_max_abs_dloss_",
        ),
        {"update": "normalized"},
        # No learning rate: the initial wealth is the rule's only parameter.
        damping="initial_wealth",
        regularized=False,
    ),
    "coin_cocob": Algorithm(
        CoinBettingClassifier,
        CoinBettingRegressor,
        "alpha",
        (
            "coef_",
            "intercept_",
            "sum_neg_grad_",
            "sum_abs_grad_",
            "max_abs_grad_",
            "reward_",
            "intercept_sum_neg_grad_",
            "intercept_sum_abs_grad_",
            "intercept_max_abs_grad_",
            "intercept_reward_",
        ),
        {"update": "cocob"},
        damping="alpha",  # no learning rate: alpha is its only parameter
        regularized=False,
    ),
}


def make(algorithm, kind, *, step_size=None, **params):
    """An estimator of ``algorithm`` (a key of ALGORITHMS) for ``kind``
    ("classifier"/"binary"/"multiclass" or "regressor"), with ``params`` and, if
    given, ``step_size`` as the algorithm's step-size parameter (eta, alpha or
    gamma). ``l1`` and ``l2`` are dropped for an algorithm without them (ONS, whose
    ``l1`` its entries fix): the
    tests that pass them check what every estimator guarantees, which holds with
    or without regularisation. Regressors learn the raw target unless
    ``normalize_y`` is passed: the shared suites compare the arithmetic of calls
    exactly (chunks against one pass, predictions against ``X @ coef_``), which a
    target scale measured on the first call would change; ``test_normalize_y.py``
    checks the default against training on the standardized target. AdaGrad
    and FTRL get a step size of 0.1 and ``l1=0`` unless given, for the same
    reason."""
    spec = ALGORITHMS[algorithm]
    if kind == "regressor":
        params.setdefault("normalize_y", False)
    if spec.classifier in (AdaGradClassifier, FTRLClassifier):
        # Fixed values, not the classifiers' "auto" defaults: the shared suites
        # check one update rule's arithmetic (test_auto_parameters.py checks the
        # choice).
        params.setdefault(spec.step_size, 0.1)
        params.setdefault("l1", 0.0)
    if not spec.regularized:
        params.pop("l1", None)
        params.pop("l2", None)
    estimator_class = spec.regressor if kind == "regressor" else spec.classifier
    if step_size is not None:
        params[spec.step_size] = step_size
    return estimator_class(**spec.params, **params)


def state_of(estimator):
    """The estimator's fitted state attributes by name (arrays, not copies)."""
    for spec in ALGORITHMS.values():
        # The parameters that select the rule (an l1 value keeps the state's).
        rule = {k: v for k, v in spec.params.items() if k != "l1"}
        if isinstance(estimator, spec.classifier | spec.regressor) and all(
            getattr(estimator, k) == v for k, v in rule.items()
        ):
            return {name: getattr(estimator, name) for name in spec.state}
    raise TypeError(f"no algorithm in ALGORITHMS matches {estimator!r}")
