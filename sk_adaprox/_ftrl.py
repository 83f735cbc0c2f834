"""FTRL-Proximal estimators (McMahan et al. 2013; docs/ftrl.md)."""

from numbers import Real
from typing import NamedTuple

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from ._base import OnlineLinearModel
from ._classification import OnlineClassifierMixin
from ._docstrings import (
    AUTO_ATTRIBUTES,
    AUTO_NOTE,
    CLASS_WEIGHT,
    CLASSIFIER_COEF,
    FIT_ATTRIBUTES,
    NORMALIZE_Y,
    REGRESSOR_COEF,
    TRAINING_PARAMETERS,
)
from ._kernels import ftrl as _kernels
from ._kernels.common import WEIGHT
from ._losses import LOSS_CODES
from ._regression import OnlineRegressorMixin
from ._state import StateSlot, raise_if_unrepresentable
from ._typing import RandomStateLike


class FTRLParameters(NamedTuple):
    """The parameters an FTRL state is trained and read with (``l1`` and ``l2``
    already scaled by the pass multiplier)."""

    alpha: float
    beta: float
    l1: float
    l2: float


class _FTRL:
    """The FTRL-Proximal algorithm: its parameters, state slots and kernel calls.

    State slots (views shaped like ``coef_``, or ``intercept_`` for the
    ``intercept_*`` ones): ``z_`` and ``n_`` of McMahan et al.; the weights are a
    closed form of them, kept current in the ``WEIGHT`` slot by the kernel. The
    training state's ``extras["pass_multiplier"]`` is p for pass p of ``fit``
    (a stream keeps the last one), which scales ``l1`` and ``l2``.
    """

    _parameter_constraints: dict = {
        "l1": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "l2": [Interval(Real, 0, None, closed="left")],
        # The kernels multiply by 1 / alpha, which must not overflow.
        "alpha": [Interval(Real, 1e-300, None, closed="left"), StrOptions({"auto"})],
        "beta": [Interval(Real, 0, None, closed="left")],
    }
    _step_size_name = "alpha"
    # l1 weighs the summed loss here: 0.1 to 10 is about 1e-5 to 1e-3 of AdaGrad's
    # at 10,000 rows.
    _auto_grids = {"alpha": (0.03, 0.1, 0.3, 1.0), "l1": (0.0, 0.1, 1.0, 10.0)}

    z_ = StateSlot(_kernels.Z)
    intercept_z_ = StateSlot(_kernels.Z, intercept=True)
    n_ = StateSlot(_kernels.N)
    intercept_n_ = StateSlot(_kernels.N, intercept=True)

    def _n_state_slots(self, chosen=None):
        return 3  # WEIGHT, N, Z

    def _training_started(self, n_features, n_outputs):
        self._training.extras["pass_multiplier"] = 1

    def _pass_starting(self, streaming):
        # l1 and l2 weigh the loss summed over the training data, and pass p of
        # fit has summed p passes into z: they are scaled by p (a stream keeps
        # the last).
        training = self._training
        passes = training.data_passes
        multiplier = max(1, passes) if streaming else passes + 1
        training.extras["pass_multiplier"] = multiplier

    def _weight_parameters(self, chosen=None):
        scale = float(self._training.extras["pass_multiplier"])
        return FTRLParameters(
            float(self._param("alpha", chosen)),
            float(self.beta),
            float(self._param("l1", chosen)) * scale,
            float(self.l2) * scale,
        )

    def _adopt_parameters(self, state, old, new):
        # A new state's weights are 0 under any parameters; otherwise every weight,
        # a closed form of its z and n, is rewritten once under the new ones.
        if old is not None:
            _kernels.weights_all(state, 1.0 / new.alpha, new.beta, new.l1, new.l2)

    def _weights_assigned(self):
        # Weights are a function of z: give each assigned weight the z that
        # yields it, or the assignment would be undone at the coordinate's next
        # update.
        parameters = self._training.parameters
        failed = _kernels.z_from_weights(
            self._kernel_state(),
            1.0 / parameters.alpha,
            parameters.beta,
            parameters.l1,
            parameters.l2,
        )
        raise_if_unrepresentable(failed, "beta = l2 = 0")

    def _side_by_side_supported(self, parameters):
        return True

    def _side_by_side_pass(
        self, X, targets, row_weights, order, state, parameters, results
    ):
        _kernels.ftrl_candidates_pass(
            X.data,
            X.indices,
            X.indptr,
            targets,
            row_weights,
            order,
            state,
            LOSS_CODES[self.loss],
            self._loss_epsilon(),
            np.array([1.0 / each.alpha for each in parameters]),
            parameters[0].beta,
            np.array([each.l1 for each in parameters]),
            parameters[0].l2,
            bool(self.fit_intercept),
            *results,
        )

    def _merge_shards(self, merge):
        # The rule of ._merging. Without l1, FTRL-Proximal's round is mirror
        # descent's step w - alpha g / (beta + sqrt(n)) (McMahan 2011, "Follow-
        # the-Regularized-Leader and Mirror Descent"; docs/ftrl.md): it combines
        # the weights and n, as AdaGrad's mirror descent does, and z is set to
        # give those weights. Combining z instead shrinks the sum of two
        # shards' moves of a new feature to (c1 w1 + c2 w2) / c, c = beta +
        # sqrt(n) (docs/training.md). With l1, z and n are combined, so that a
        # weight every shard holds at zero stays zero unless its summed z
        # crosses the threshold: there z and n are sums of the gradients alone.
        parameters = merge.parameters
        arguments = (
            1.0 / parameters.alpha,
            parameters.beta,
            parameters.l1,
            parameters.l2,
        )
        merged = merge.combined()
        if parameters.l1 == 0.0:
            _kernels.z_from_weights(merged, *arguments)
        elif merge.step() != 1.0:  # else the statistics are already summed
            zero = merged[:, WEIGHT] == 0.0
            for slot in (_kernels.N, _kernels.Z):
                merged[:, slot][zero] = merge.summed(slot)[zero]
        _kernels.weights_all(merged, *arguments)
        return merged

    def _derived_slots(self):
        return (WEIGHT,)

    def _derive_slots(self, array, parameters):
        # The kernels keep each weight at its closed form of its z and n.
        _kernels.weights_all(
            array, 1.0 / parameters.alpha, parameters.beta, parameters.l1, parameters.l2
        )

    def _run_pass(self, X, targets, row_weights, order, row_scores):
        training = self._training
        parameters = training.parameters
        return _kernels.ftrl_pass(
            X.data,
            X.indices,
            X.indptr,
            targets,
            row_weights,
            order,
            training.writable("array"),
            row_scores,
            LOSS_CODES[self.loss],
            self._loss_epsilon(),
            1.0 / parameters.alpha,
            parameters.beta,
            parameters.l1,
            parameters.l2,
            bool(self.fit_intercept),
            training.t,
            *self._average_arguments(),
        )


def _ftrl_parameters(alpha, l1):
    """The parameter section of an FTRL estimator with these defaults."""
    alpha, l1 = (f'"{v}"' if isinstance(v, str) else v for v in (alpha, l1))
    return f"""alpha : float or "auto", default={alpha}
        Learning rate, > 0. A coordinate's weight is
        ``-(z - sign(z) * l1) / ((beta + sqrt(n)) / alpha + l2)``, so its step size is
        about ``alpha / sqrt(n)``: rarely seen features keep large steps.
        ``"auto"`` tries 0.03, 0.1, 0.3 and 1 (see below).
    beta : float, default=0.1
        Added to ``sqrt(n)``, >= 0; damps the first steps of each coordinate.
    l1 : float or "auto", default={l1}
        L1 regularisation strength, >= 0, on the *summed* training loss, as in the
        paper and in other FTRL implementations: a weight is exactly 0 while
        ``|z| <= l1``. The same ``alpha, beta, l1, l2`` and row order give the same
        weights here as there (where those implementations regularise the bias as
        a feature, compare with ``fit_intercept=False`` and a constant column).
        AdaGrad's ``l1`` weighs the *mean* loss instead: over t rounds, FTRL's
        ``l1`` acts roughly like AdaGrad's ``l1 / t``. The sum is over the
        training data: pass p of :meth:`fit` has summed p passes of gradients into
        z, so it applies ``p * l1`` (and ``p * l2``), and later
        :meth:`partial_fit` calls keep the last pass's factor. One pass, or a
        stream, is exactly the paper's FTRL. Without this, the regularisation of
        a fit that runs to ``tol`` would fade with every pass. ``"auto"`` tries
        0, 0.1, 1 and 10.
    l2 : float, default=0.0
        L2 regularisation strength, >= 0, on the summed training loss (adds
        ``l2`` to the denominator of every weight), scaled by passes like ``l1``.
    {TRAINING_PARAMETERS}"""


_CLASSIFIER_DEFAULTS_WHY = """The defaults (``alpha`` and ``l1`` chosen in the first
    pass, ``beta=0.1``) were chosen on a panel of ten classification sets
    (:doc:`/training`, "Why it works"): fitted to ``tol``, they
    come within 0.005 test AUC of the best of a tuned grid (FTRL's and
    SGDClassifier's, picked on the test set) on every set. The first pass trains
    all 16 candidates; set ``alpha`` and ``l1`` to skip the choice."""

_REGRESSOR_DEFAULTS_WHY = """The defaults ``alpha=0.1, beta=0.1`` were chosen on tf-idf
    text, one-hot and hashed one-hot, and standardised dense data (:doc:`/ftrl`,
    "Choosing the defaults"); with ``normalize_y`` they come within 0.01 R² of
    SGDRegressor's best ``alpha`` on a regression panel of five sets
    (California housing, Million Song, abalone, scale-data and
    ``make_regression``, each target in its own units)."""

_FTRL_ATTRIBUTES = f"""z_ : ndarray, same shape as ``coef_``
        z of each coordinate: its sum of gradients, corrected by ``sigma * w`` at
        every step (McMahan et al., Algorithm 1).
    n_ : ndarray, same shape as ``coef_``
        n of each coordinate: its sum of squared gradients. It says how much
        gradient a feature has seen; 0 for a feature no row has touched.
    intercept_z_ : ndarray of shape (n_outputs,)
        z of the intercept.
    intercept_n_ : ndarray of shape (n_outputs,)
        n of the intercept.
    {AUTO_ATTRIBUTES}
    {FIT_ATTRIBUTES}"""

_NOTES = """Each weight is a closed form of its own ``z_`` and ``n_``, so a round
    changes only the coordinates of the row's non-zeros, and training costs time in
    proportion to the non-zeros whatever ``l1`` and ``l2`` are. A weight whose
    ``|z|`` falls back under ``l1`` is exactly 0. Changing ``alpha``, ``beta``,
    ``l1`` or ``l2`` between :meth:`partial_fit` calls recomputes every weight from
    ``z_`` and ``n_`` once."""

_REFERENCE = """H. B. McMahan, G. Holt, D. Sculley et al. Ad Click Prediction: a View
    from the Trenches. KDD 2013."""


class FTRLClassifier(
    OnlineClassifierMixin, LinearClassifierMixin, _FTRL, OnlineLinearModel
):
    __doc__ = f"""Linear classifier trained by FTRL-Proximal ("follow the regularised
    leader"), the per-coordinate learner of McMahan et al.'s click prediction paper.

    Each feature has its own learning rate, shrinking with the gradients it has
    seen, and L1 regularisation gives exactly sparse models. The cost of a row is
    proportional to its non-zeros. Multiclass problems are one-vs-rest (or
    multinomial, ``loss="multinomial"``), all classes updated in one pass.

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
    {_ftrl_parameters("auto", "auto")}
    {CLASS_WEIGHT}

    Attributes
    ----------
    {CLASSIFIER_COEF}
    {_FTRL_ATTRIBUTES}

    See Also
    --------
    FTRLRegressor : The same algorithm for regression.
    AdaGradClassifier : Per-coordinate rates with mirror descent or dual averaging.

    Notes
    -----
    {AUTO_NOTE}

    {_CLASSIFIER_DEFAULTS_WHY}

    {_NOTES}

    References
    ----------
    {_REFERENCE}

    Examples
    --------
    >>> from sk_adaprox import FTRLClassifier
    >>> from sk_adaprox.datasets import make_rare_features
    >>> X, y = make_rare_features(2000, 5000, random_state=0)
    >>> clf = FTRLClassifier(l1=1.0, random_state=0).fit(X, y)
    >>> clf.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints: dict = {
        **OnlineLinearModel._parameter_constraints,
        **_FTRL._parameter_constraints,
        **OnlineClassifierMixin._parameter_constraints,
    }

    def __init__(
        self,
        loss: str = "log_loss",
        *,
        alpha: float | str = "auto",
        beta: float = 0.1,
        l1: float | str = "auto",
        l2: float = 0.0,
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
        self.alpha = alpha
        self.beta = beta
        self.l1 = l1
        self.l2 = l2
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


class FTRLRegressor(OnlineRegressorMixin, RegressorMixin, _FTRL, OnlineLinearModel):
    __doc__ = f"""Linear regressor trained by FTRL-Proximal, per-coordinate learning
    rates with exactly sparse L1 models (McMahan et al. 2013).

    The cost of a row is proportional to its non-zeros. Like any gradient method it
    needs features on a common scale; the target's scale and offset do not matter
    (``normalize_y``).

    Parameters
    ----------
    loss : {{"squared_error", "huber", "epsilon_insensitive"}}, \
default="squared_error"
        Loss on the residual.
    epsilon : float, default=0.1
        Width of the ``"huber"`` quadratic zone and of the ``"epsilon_insensitive"``
        dead zone.
    {NORMALIZE_Y}
    {_ftrl_parameters(0.1, 0.0)}

    Attributes
    ----------
    {REGRESSOR_COEF}
    {_FTRL_ATTRIBUTES}

    See Also
    --------
    FTRLClassifier : The same algorithm for classification.
    AdaGradRegressor : Per-coordinate rates with mirror descent or dual averaging.

    Notes
    -----
    {AUTO_NOTE}

    {_REGRESSOR_DEFAULTS_WHY}

    {_NOTES}

    References
    ----------
    {_REFERENCE}

    Examples
    --------
    >>> import numpy as np
    >>> from sk_adaprox import FTRLRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3))
    >>> y = X @ [1.0, -2.0, 0.5] + 0.01 * rng.normal(size=500)
    >>> reg = FTRLRegressor(random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.99)
    True
    """

    _parameter_constraints: dict = {
        **OnlineLinearModel._parameter_constraints,
        **_FTRL._parameter_constraints,
        **OnlineRegressorMixin._parameter_constraints,
    }

    def __init__(
        self,
        loss: str = "squared_error",
        *,
        epsilon: float = 0.1,
        normalize_y: bool = True,
        alpha: float | str = 0.1,
        beta: float = 0.1,
        l1: float | str = 0.0,
        l2: float = 0.0,
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
        verbose: int = 0,
        n_jobs: int | None = None,
        shards: int | None = None,
        sync_rows: int | str | None = "auto",
    ) -> None:
        self.loss = loss
        self.epsilon = epsilon
        self.normalize_y = normalize_y
        self.alpha = alpha
        self.beta = beta
        self.l1 = l1
        self.l2 = l2
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
