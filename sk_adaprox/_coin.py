"""Coin-betting estimators: parameter-free per-coordinate learning (ALGORITHMS.md §5;
Orabona & Pál 2016, Orabona & Tommasi 2017)."""

from numbers import Real

from sklearn.base import RegressorMixin
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import Interval

from ._base import OnlineLinearModel
from ._classification import OnlineClassifierMixin
from ._docstrings import (
    CLASS_WEIGHT,
    CLASSIFIER_COEF,
    FIT_ATTRIBUTES,
    NORMALIZE_Y,
    REGRESSOR_COEF,
    TRAINING_PARAMETERS,
)
from ._kernels import coin as _kernels
from ._losses import LOSS_CODES
from ._regression import OnlineRegressorMixin
from ._state import StateSlot
from ._typing import RandomStateLike


class _CoinBetting:
    """Per-coordinate coin betting: its parameter, state slots and kernel calls.

    State slots (views shaped like ``coef_``, or ``intercept_`` for the
    ``intercept_*`` ones): ``sum_neg_grad_`` (theta), ``sum_abs_grad_`` (G),
    ``max_abs_grad_`` (L) and ``reward_`` (R); the weights (the bets) are a closed
    form of them, kept current in the ``WEIGHT`` slot by the kernel.
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="neither")],
    }
    _step_size_name = "alpha"
    _smaller_steps = "larger"  # a larger alpha bets more cautiously

    sum_neg_grad_ = StateSlot(_kernels.SUM_NEG_GRAD)
    intercept_sum_neg_grad_ = StateSlot(_kernels.SUM_NEG_GRAD, intercept=True)
    sum_abs_grad_ = StateSlot(_kernels.SUM_ABS_GRAD)
    intercept_sum_abs_grad_ = StateSlot(_kernels.SUM_ABS_GRAD, intercept=True)
    max_abs_grad_ = StateSlot(_kernels.MAX_ABS_GRAD)
    intercept_max_abs_grad_ = StateSlot(_kernels.MAX_ABS_GRAD, intercept=True)
    reward_ = StateSlot(_kernels.REWARD)
    intercept_reward_ = StateSlot(_kernels.REWARD, intercept=True)

    def _n_state_slots(self):
        return 5  # WEIGHT, SUM_NEG_GRAD, SUM_ABS_GRAD, MAX_ABS_GRAD, REWARD

    def _weight_parameters(self):
        return (float(self.alpha),)

    def _adopt_parameters(self, state, old, new):
        # A new state's bets are 0 under any alpha; otherwise every bet is
        # recomputed once under the new one.
        if old is not None:
            _kernels.weights_all(state, new[0])

    def _check_can_start_from_weights(self):
        raise ValueError(
            "coin betting cannot start from coef_init or intercept_init: its "
            "weights are bets, a function of the gradients and rewards so far, "
            "which start at zero."
        )

    def _run_pass(self, X, targets, row_weights, order, row_scores):
        (alpha,) = self._state_parameters
        return _kernels.coin_pass(
            X.data,
            X.indices,
            X.indptr,
            targets,
            row_weights,
            order,
            self._kernel_state(),
            row_scores,
            LOSS_CODES[self.loss],
            self._loss_epsilon(),
            alpha,
            bool(self.fit_intercept),
        )


_COIN_PARAMETERS = f"""alpha : float, default=100
        How cautiously a coordinate's bet grows, > 0: a bet is at most the
        coordinate's summed negative gradient over ``alpha`` times its largest
        gradient, until its summed ``|gradient|`` exceeds that. There is no learning
        rate: each coordinate bets a fraction of the reward it has won so far.
        100 is the value of the paper's experiments and of Vowpal Wabbit's
        ``--coin``.
    {TRAINING_PARAMETERS}"""

_COIN_ATTRIBUTES = f"""sum_neg_grad_ : ndarray, same shape as ``coef_``
        theta of each coordinate: minus the sum of its gradients.
    sum_abs_grad_ : ndarray, same shape as ``coef_``
        G: the sum of its absolute gradients.
    max_abs_grad_ : ndarray, same shape as ``coef_``
        L: its largest absolute gradient (0 until its first non-zero gradient).
    reward_ : ndarray, same shape as ``coef_``
        R: the reward its bets have won, >= 0.
    intercept_sum_neg_grad_, intercept_sum_abs_grad_, intercept_max_abs_grad_, \
intercept_reward_ : ndarray of shape (n_outputs,)
        The same for the intercept.
    {FIT_ATTRIBUTES}"""

_NOTES = """Per coordinate i, after computing its gradient g from the current
    weight w (Orabona & Tommasi 2017, per coordinate)::

        L ← max(L, |g|);  theta ← theta − g;  G ← G + |g|;  R ← max(R − g·w, 0)
        w ← theta / (L · max(G + L, alpha · L)) · (L + R)

    A coordinate whose gradient is 0 does not change, so a row costs its
    non-zeros. The intercept is one more coordinate with feature 1. A row's
    sample weight multiplies its gradient. ``coef_init`` is refused: the bets
    start at 0. Assigning ``coef_`` changes the bets until a coordinate's next
    update, which recomputes its bet from its accumulators."""

_REFERENCE = """F. Orabona, D. Pál. Coin Betting and Parameter-Free Online Learning.
    NeurIPS 2016. F. Orabona, T. Tommasi. Training Deep Networks without Learning
    Rates Through Coin Betting. NeurIPS 2017."""


class CoinBettingClassifier(
    OnlineClassifierMixin, LinearClassifierMixin, _CoinBetting, OnlineLinearModel
):
    __doc__ = f"""Linear classifier trained by per-coordinate coin betting: no learning
    rate to tune.

    Each feature bets a fraction of the "wealth" it has won so far on the sign of
    its summed negative gradient, so its step adapts to its own gradients
    without a learning rate. These are their own estimators, not an ``update=``
    option of AdaGrad: none of AdaGrad's ``eta``, ``delta`` or ``l1`` apply. The
    cost of a row is proportional to its non-zeros. Multiclass problems are
    one-vs-rest, all classes updated in one pass.

    Parameters
    ----------
    loss : {{"log_loss", "hinge", "squared_hinge", "modified_huber", \
"squared_error"}}, default="log_loss"
        Loss on the score. ``"log_loss"`` and ``"modified_huber"`` give
        :meth:`predict_proba`.
    {_COIN_PARAMETERS}
    {CLASS_WEIGHT}

    Attributes
    ----------
    {CLASSIFIER_COEF}
    {_COIN_ATTRIBUTES}

    See Also
    --------
    CoinBettingRegressor : The same algorithm for regression.
    AdaGradClassifier : Per-coordinate learning rates.

    Notes
    -----
    {_NOTES}

    References
    ----------
    {_REFERENCE}

    Examples
    --------
    >>> from sk_adaprox import CoinBettingClassifier
    >>> from sk_adaprox.datasets import make_rare_features
    >>> X, y = make_rare_features(2000, 5000, random_state=0)
    >>> clf = CoinBettingClassifier(max_iter=5, tol=None, random_state=0).fit(X, y)
    >>> clf.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints: dict = {
        **OnlineLinearModel._parameter_constraints,
        **_CoinBetting._parameter_constraints,
        **OnlineClassifierMixin._parameter_constraints,
    }

    def __init__(
        self,
        loss: str = "log_loss",
        *,
        alpha: float = 100.0,
        fit_intercept: bool = True,
        max_iter: int = 1000,
        tol: float | None = 1e-3,
        n_iter_no_change: int = 5,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        shuffle: bool = True,
        random_state: RandomStateLike = None,
        warm_start: bool = False,
        class_weight: dict | str | None = None,
        verbose: int = 0,
    ) -> None:
        self.loss = loss
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.verbose = verbose


class CoinBettingRegressor(
    OnlineRegressorMixin, RegressorMixin, _CoinBetting, OnlineLinearModel
):
    __doc__ = f"""Linear regressor trained by per-coordinate coin betting: no learning
    rate to tune.

    The cost of a row is proportional to its non-zeros. Features should be on a
    common scale; the target's scale and offset do not matter (``normalize_y``,
    which matters more here than for the other regressors: the bets' wealth is
    measured in the target's units).

    Parameters
    ----------
    loss : {{"squared_error", "huber", "epsilon_insensitive"}}, \
default="squared_error"
        Loss on the residual.
    epsilon : float, default=0.1
        Width of the ``"huber"`` quadratic zone and of the ``"epsilon_insensitive"``
        dead zone.
    {NORMALIZE_Y}
    {_COIN_PARAMETERS}

    Attributes
    ----------
    {REGRESSOR_COEF}
    {_COIN_ATTRIBUTES}

    See Also
    --------
    CoinBettingClassifier : The same algorithm for classification.
    AdaGradRegressor : Per-coordinate learning rates.

    Notes
    -----
    {_NOTES}

    References
    ----------
    {_REFERENCE}

    Examples
    --------
    >>> import numpy as np
    >>> from sk_adaprox import CoinBettingRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3))
    >>> y = X @ [1.0, -2.0, 0.5] + 0.01 * rng.normal(size=500)
    >>> reg = CoinBettingRegressor(random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.99)
    True
    """

    _parameter_constraints: dict = {
        **OnlineLinearModel._parameter_constraints,
        **_CoinBetting._parameter_constraints,
        **OnlineRegressorMixin._parameter_constraints,
    }

    def __init__(
        self,
        loss: str = "squared_error",
        *,
        epsilon: float = 0.1,
        normalize_y: bool = True,
        alpha: float = 100.0,
        fit_intercept: bool = True,
        max_iter: int = 1000,
        tol: float | None = 1e-3,
        n_iter_no_change: int = 5,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        shuffle: bool = True,
        random_state: RandomStateLike = None,
        warm_start: bool = False,
        verbose: int = 0,
    ) -> None:
        self.loss = loss
        self.epsilon = epsilon
        self.normalize_y = normalize_y
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
