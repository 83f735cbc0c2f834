"""Coin-betting estimators: parameter-free per-coordinate learning (docs/coin.md;
Orabona & Pál 2016, Orabona & Tommasi 2017)."""

from numbers import Real
from typing import NamedTuple

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from ._base import OnlineLinearModel
from ._classification import OnlineClassifierMixin
from ._docstrings import (
    CLASS_WEIGHT,
    CLASSIFIER_COEF,
    FIT_ATTRIBUTES,
    NORMALIZE_Y,
    REGRESSOR_COEF,
    training_parameters,
)
from ._kernels import coin as _kernels
from ._losses import LOSS_CODES
from ._regression import OnlineRegressorMixin
from ._state import StateSlot
from ._typing import RandomStateLike


class CoinParameters(NamedTuple):
    """The parameters a coin-betting state is trained and read with."""

    update: str
    alpha: float
    initial_wealth: float


class _CoinBetting:
    """Per-coordinate coin betting: its parameters, state slots and kernel calls.

    State slots (views shaped like ``coef_``, or ``intercept_`` for the
    ``intercept_*`` ones): ``sum_neg_grad_`` (theta), ``sum_abs_grad_`` (G) and
    ``reward_`` (R) under both rules; ``max_abs_grad_`` (L) under
    ``update="cocob"``, whose kernel keeps the bets current in the ``WEIGHT``
    slot; ``max_abs_x_`` and ``max_abs_dloss_`` under ``update="normalized"``,
    whose served weights (bets over N, the running mean row norm, whose sums
    are the training state's ``extras["row_norms"]``) are computed when read.
    """

    _not_data_parallel = (
        "a coin-betting weight is a bet of the wealth won so far, which grows "
        "multiplicatively with every round's outcome, and no rule merges the "
        "wealth of shards that bet apart into a model that saw all their rows."
    )

    _parameter_constraints: dict = {
        "update": [StrOptions({"normalized", "cocob"})],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "initial_wealth": [Interval(Real, 0, None, closed="neither")],
    }

    sum_neg_grad_ = StateSlot(_kernels.SUM_NEG_GRAD)
    intercept_sum_neg_grad_ = StateSlot(_kernels.SUM_NEG_GRAD, intercept=True)
    sum_abs_grad_ = StateSlot(_kernels.SUM_ABS_GRAD)
    intercept_sum_abs_grad_ = StateSlot(_kernels.SUM_ABS_GRAD, intercept=True)
    reward_ = StateSlot(_kernels.REWARD)
    intercept_reward_ = StateSlot(_kernels.REWARD, intercept=True)
    max_abs_grad_ = StateSlot(_kernels.MAX_ABS_GRAD, rule="cocob")
    intercept_max_abs_grad_ = StateSlot(
        _kernels.MAX_ABS_GRAD, intercept=True, rule="cocob"
    )
    max_abs_x_ = StateSlot(_kernels.MAX_ABS_X, rule="normalized")
    intercept_max_abs_x_ = StateSlot(
        _kernels.MAX_ABS_X, intercept=True, rule="normalized"
    )
    max_abs_dloss_ = StateSlot(_kernels.MAX_ABS_DLOSS, rule="normalized")
    intercept_max_abs_dloss_ = StateSlot(
        _kernels.MAX_ABS_DLOSS, intercept=True, rule="normalized"
    )

    @property
    def _step_size_name(self):
        return "alpha" if self._state_rule() == "cocob" else "initial_wealth"

    @property
    def _smaller_steps(self):
        # A larger alpha bets more cautiously; a smaller initial wealth does.
        return "larger" if self._state_rule() == "cocob" else "smaller"

    def _state_rule(self):
        parameters = self._training.parameters
        return self.update if parameters is None else parameters.update

    def _n_state_slots(self, chosen=None):
        # cocob: WEIGHT, SUM_NEG_GRAD, SUM_ABS_GRAD, MAX_ABS_GRAD, REWARD; the
        # normalised rule: the same with MAX_ABS_X for MAX_ABS_GRAD, and
        # MAX_ABS_DLOSS.
        return 5 if self.update == "cocob" else 6

    def _training_started(self, n_features, n_outputs):
        # (sum of s * row norm, sum of s, sum of 1 / N over the averaged rounds)
        self._training.extras["row_norms"] = np.zeros(3)

    def _weight_parameters(self, chosen=None):
        return CoinParameters(
            self.update, float(self.alpha), float(self.initial_wealth)
        )

    def _weights_are_lazy(self):
        return self._state_rule() == "normalized"

    def _adopt_parameters(self, state, old, new):
        if old is not None and old.update != new.update:
            raise ValueError(
                f"update={new.update!r}, but the model was trained with the other "
                "update rule, whose state cannot be continued. Call fit (with "
                "warm_start=False) to start over."
            )
        # A new state's bets are 0 under any parameter. The normalised rule's
        # served weights are computed when read; cocob's are recomputed once.
        if old is not None and new.update == "cocob":
            _kernels.weights_all(state, new.alpha)

    def _mean_row_norm(self):
        return _kernels.mean_row_norm(self._training.extras["row_norms"])

    def _catch_up_weights(self, state):
        _kernels.normalized_weights_all(
            state, self._training.parameters.initial_wealth, self._mean_row_norm()
        )

    def _lazy_sparse_scores(self, X, state, out):
        initial_wealth = self._training.parameters.initial_wealth
        _kernels.normalized_scores(
            X.data,
            X.indices,
            X.indptr,
            state,
            initial_wealth,
            self._mean_row_norm(),
            out,
        )

    def _check_can_start_from_weights(self, n_features, n_outputs):
        raise ValueError(
            "coin betting cannot start from coef_init or intercept_init: its "
            "weights are bets, a function of the gradients and rewards so far, "
            "which start at zero."
        )

    def _run_pass(self, X, targets, row_weights, order, row_scores):
        training = self._training
        parameters = training.parameters
        rows = (X.data, X.indices, X.indptr, targets, row_weights, order)
        if parameters.update == "cocob":
            return _kernels.coin_pass(
                *rows,
                training.writable("array"),
                row_scores,
                LOSS_CODES[self.loss],
                self._loss_epsilon(),
                parameters.alpha,
                bool(self.fit_intercept),
                training.t,
                *self._average_arguments(),
            )
        return _kernels.normalized_pass(
            *rows,
            training.writable("array"),
            training.writable("row_norms"),
            row_scores,
            LOSS_CODES[self.loss],
            self._loss_epsilon(),
            parameters.initial_wealth,
            bool(self.fit_intercept),
            training.t,
            *self._average_arguments(),
        )

    # Averaging: the normalised rule's iterate is its bet over the round's N
    # (_kernels.coin's PREFIX); cocob's keeps the base's constant rule.

    def _settle_all(self, state, avg_slot, t, a0):
        if self._state_rule() == "cocob":
            return super()._settle_all(state, avg_slot, t, a0)
        _kernels.normalized_settle_all(
            state,
            self._training.writable("row_norms"),
            avg_slot,
            self._training.parameters.initial_wealth,
        )

    def _averaged_all(self, state, avg_slot, t, a0, out):
        if self._state_rule() == "cocob":
            return super()._averaged_all(state, avg_slot, t, a0, out)
        training = self._training
        _kernels.normalized_averaged_all(
            state,
            training.extras["row_norms"],
            avg_slot,
            training.parameters.initial_wealth,
            t - a0,
            out,
        )

    def _averaged_sparse_scores(self, X, state, avg_slot, t, a0, out):
        if self._state_rule() == "cocob":
            return super()._averaged_sparse_scores(X, state, avg_slot, t, a0, out)
        training = self._training
        _kernels.normalized_averaged_scores(
            X.data,
            X.indices,
            X.indptr,
            state,
            training.extras["row_norms"],
            avg_slot,
            training.parameters.initial_wealth,
            t - a0,
            out,
        )


def _coin_parameters(update, update_note="", tol="1e-3", tol_note=""):
    """The coin-betting parameters' section, with the estimator's defaults of
    ``update`` and ``tol``."""
    return f"""update : {{"normalized", "cocob"}}, default="{update}"
        The betting rule. ``"normalized"`` measures each coordinate's bets in
        units of its largest ``|x|`` and divides every score by N, the running
        mean over rows of ``sum_i (x_i / max|x_i|)**2`` (the form of Vowpal
        Wabbit's ``--coin``): rows with many features get proportionally smaller
        steps, which text needs. ``"cocob"`` is the per-coordinate COCOB of
        Orabona & Tommasi, with bets capped by ``alpha``.{update_note}
    alpha : float, default=100
        ``update="cocob"`` only: how cautiously a coordinate's bet grows, > 0. A
        bet is at most the coordinate's summed negative gradient over ``alpha``
        times its largest gradient, until its summed ``|gradient|`` exceeds
        that. 100 is the value of the paper's experiments.
    initial_wealth : float, default=4
        ``update="normalized"`` only: the wealth each coordinate starts betting
        with, in units of the loss, > 0. Larger values make the first bets
        larger. 4 is Vowpal Wabbit's value.
    {training_parameters(tol, tol_note)}"""


_COIN_ATTRIBUTES = f"""sum_neg_grad_ : ndarray, same shape as ``coef_``
        theta of each coordinate: minus the sum of its gradients.
    sum_abs_grad_ : ndarray, same shape as ``coef_``
        G: the sum of its absolute gradients.
    reward_ : ndarray, same shape as ``coef_``
        R: the reward its bets have won; >= 0 under ``"cocob"``, and above
        ``-initial_wealth`` under ``"normalized"``.
    max_abs_grad_ : ndarray, same shape as ``coef_``
        ``update="cocob"``: L, its largest absolute gradient (0 until its first
        non-zero gradient).
    max_abs_x_ : ndarray, same shape as ``coef_``
        ``update="normalized"``: the largest ``|x|`` of its feature.
    max_abs_dloss_ : ndarray, same shape as ``coef_``
        ``update="normalized"``: the largest ``|s dl/dp|`` of its output over the
        rows it was in, floored at 1 (0 until the first non-zero one).
    intercept_sum_neg_grad_, intercept_sum_abs_grad_, intercept_reward_, \
intercept_max_abs_grad_, intercept_max_abs_x_, intercept_max_abs_dloss_ : \
ndarray of shape (n_outputs,)
        The same for the intercept.
    {FIT_ATTRIBUTES}"""

_NOTES = """With ``update="normalized"``, per coordinate i of a row with sample
    weight s, from the loss derivative d at the score below::

        M ← max(M, |x_i|);  if |s d| > D: D ← max(|s d|, 1);  S = D M
        w = theta (initial_wealth + R) / (S (S + G))      # the bet played
        g = s d x_i;  theta ← theta − g;  G ← G + |g|;  R ← R − g w

    A row is scored by the served model, ``coef_`` and ``intercept_``: each
    coordinate's bet under its M and D so far, over N, the weighted mean over
    the rows so far of their normalised squared norms ``sum_i (x_i / M_i)**2``
    (M taken with the row's own ``|x_i|``). ``coef_`` is computed when read,
    O(n_features) once per call. Since ``|g| <= S``, the wealth
    ``initial_wealth + R`` stays positive. The rule is the form of Vowpal
    Wabbit's ``--coin``; VW scores a row with the bets under its own ``|x_i|``
    and N including it, which changed no test AUC of the panel by more than 0.0001.

    With ``update="cocob"`` (Orabona & Tommasi 2017, per coordinate)::

        L ← max(L, |g|);  theta ← theta − g;  G ← G + |g|;  R ← max(R − g·w, 0)
        w ← theta / (L · max(G + L, alpha · L)) · (L + R)

    Under both rules a row costs its non-zeros: a coordinate off the row keeps
    its bet (under ``"normalized"``, a coordinate of the row whose gradient is
    0 still takes the row's ``|x_i|`` into M, which can shrink its bet). The
    intercept is one more coordinate with feature 1. A row's sample weight
    multiplies its gradient, and a row of weight 0 changes nothing.
    ``coef_init`` is refused: the bets start at 0. Assigning ``coef_`` changes
    the predictions until the model trains again, which recomputes the bets
    from the accumulators."""

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
    default rule, ``update="normalized"``, measures bets in units of each
    feature's largest value and shrinks the scores of long rows; on text it is
    level with a tuned learner, where ``update="cocob"`` trails by about 0.01
    AUC. The cost of a row is proportional to its non-zeros. Multiclass
    problems are one-vs-rest (or multinomial, ``loss="multinomial"``), all
    classes updated in one pass.

    Parameters
    ----------
    loss : {{"log_loss", "hinge", "squared_hinge", "modified_huber", \
"squared_error", "multinomial"}}, default="log_loss"
        Loss on the score. With more than two classes every loss but
        ``"multinomial"`` trains one-vs-rest outputs; ``"multinomial"`` trains
        the classes' scores together on the multinomial (softmax) log loss
        (with two classes it is ``"log_loss"``; :doc:`/multiclass`).
        ``"log_loss"``, ``"multinomial"`` and ``"modified_huber"`` give
        :meth:`predict_proba`.
    {_coin_parameters("normalized")}
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
        update: str = "normalized",
        alpha: float = 100.0,
        initial_wealth: float = 4.0,
        fit_intercept: bool = True,
        max_iter: int = 1000,
        tol: float | None = 1e-3,
        n_iter_no_change: int = 5,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        shuffle: bool = True,
        random_state: RandomStateLike = None,
        warm_start: bool = False,
        average: bool | int = False,
        class_weight: dict | str | None = None,
        verbose: int = 0,
        n_jobs: int | None = None,
        shards: int | None = None,
        sync_rows: int | str | None = "auto",
    ) -> None:
        self.loss = loss
        self.update = update
        self.alpha = alpha
        self.initial_wealth = initial_wealth
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.average = average
        self.class_weight = class_weight
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.shards = shards
        self.sync_rows = sync_rows


_REGRESSOR_UPDATE_NOTE = """
        The regressor's default is ``"cocob"``, the classifier's ``"normalized"``.
        Over five seeds of the regression panel
        (:doc:`/coin`, "The regressor's defaults"), ``"cocob"`` stays within
        0.009 R² of a tuned ``SGDRegressor`` on every set, where
        ``"normalized"`` misses by up to 0.015 (abalone's correlated features)."""

_REGRESSOR_TOL_NOTE = """
        The regressor's default is 1e-4: on the regression panel, coin betting's
        loss still improved by less than 1e-3 a pass for many passes. On
        abalone 1e-3 stopped it after about 11 passes, at 0.5265 mean R² against
        0.5326 after 33 to 53 under 1e-4, 0.019 below a tuned ``SGDRegressor``
        on its worst seed."""

_REGRESSOR_PARAMETERS = _coin_parameters(
    "cocob",
    update_note=_REGRESSOR_UPDATE_NOTE,
    tol="1e-4",
    tol_note=_REGRESSOR_TOL_NOTE,
)


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
    {_REGRESSOR_PARAMETERS}

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
        update: str = "cocob",
        alpha: float = 100.0,
        initial_wealth: float = 4.0,
        fit_intercept: bool = True,
        max_iter: int = 1000,
        tol: float | None = 1e-4,
        n_iter_no_change: int = 5,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        shuffle: bool = True,
        random_state: RandomStateLike = None,
        warm_start: bool = False,
        average: bool | int = False,
        verbose: int = 0,
        n_jobs: int | None = None,
        shards: int | None = None,
        sync_rows: int | str | None = "auto",
    ) -> None:
        self.loss = loss
        self.epsilon = epsilon
        self.normalize_y = normalize_y
        self.update = update
        self.alpha = alpha
        self.initial_wealth = initial_wealth
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.average = average
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.shards = shards
        self.sync_rows = sync_rows
