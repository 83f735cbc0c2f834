"""Regression plumbing shared by every sk_adaprox regressor (one output, real y).

With ``normalize_y`` (the default) a regressor learns the standardized target
``(y - target_offset_) / target_scale_``, so that the steps of every algorithm, its
``tol`` and its default parameters mean the same whatever the target's units;
``coef_``, ``intercept_`` and the predictions are mapped back to the target's
units. ``fit`` measures the offset and scale on its rows and keeps them through
its passes. A ``partial_fit`` stream keeps the running weighted mean and
standard deviation of every target it has seen (``_target_moments``, from
``fit``'s rows on if it continues one): each row is standardized by those of the
rows up to it, before it is learned, so the units do not depend on how the
stream is cut into calls, and a row-at-a-time stream learns in the same units
as one of large batches. A row's progressive prediction uses the units of the
rows before it, never its own target.
"""

from numbers import Real
from typing import Self

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

from ._kernels.targets import running_units
from ._losses import REGRESSION_LOSSES
from ._typing import ArrayLike, FloatArray, MatrixLike
from ._validation import checked_batch, unchanged_on_error


class OnlineRegressorMixin:
    """``fit``, ``partial_fit`` and ``predict`` for online regressors.

    Combine with ``RegressorMixin``, an algorithm mixin and
    :class:`~sk_adaprox._base.OnlineLinearModel`. ``coef_`` has shape
    ``(n_features,)`` and ``intercept_`` shape ``(1,)``, as in SGDRegressor.
    """

    _parameter_constraints: dict = {
        "loss": [StrOptions(set(REGRESSION_LOSSES))],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "normalize_y": ["boolean"],
    }

    # The running target units belong to the model, not to its training state: a
    # stream's "auto" candidates see the same rows. A stream without them
    # (normalize_y=False) keeps its units; _learn_batch records the units before
    # each row where it records scores.
    _target_moments = None
    _recording_units = False
    _units_before_rows = None

    @staticmethod
    def _coef_shape(n_features, n_outputs):
        return (n_features,)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        coef_init: ArrayLike | None = None,
        intercept_init: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """Fit the model with up to ``max_iter`` passes over the training data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data. CSR input (float32 or float64 values, int32 or int64
            indices) is used without a copy; other input is converted to CSR once.
        y : array-like of shape (n_samples,)
            Target values.
        coef_init : array-like of shape (n_features,), default=None
            The weights training starts from (instead of zeros), as SGD's
            ``coef_init``; with ``warm_start``, they replace the fitted ones.
            Where the weights are a function of accumulated gradients (FTRL's
            z, dual averaging's u), those are set to give these weights.
        intercept_init : array-like of shape (1,), default=None
            The intercepts training starts from.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row; it multiplies the row's gradient.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        keep_state = self.warm_start and self._is_initialized()
        with unchanged_on_error(self):
            X, y, sample_weight = self._validate_training_data(
                X, y, sample_weight, reset=True, y_numeric=True
            )
            if keep_state:
                self._check_warm_start(X.shape[1], 1)
                units = self._target_units()
            else:
                self._check_state_size(X.shape[1], 1)
                moments = _moments(y, sample_weight, self.normalize_y)
                units = _units_after(moments)
            targets = _standardized(y, units)
            plan = self._plan_passes(X, targets, sample_weight, stratify=False)
            initial_weights = self._checked_initial_weights(
                coef_init, intercept_init, X.shape[1], 1
            )
        if not keep_state:
            self._start_training(X.shape[1], 1)
            self.target_offset_, self.target_scale_ = units
            self._target_moments = moments
        self._fit_passes(X, targets, sample_weight, plan, initial_weights)
        return self

    def partial_fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """Continue training with one pass over the given rows, in their order.

        Round counting (``t_``) and all accumulated state carry over from earlier
        calls to ``fit`` or ``partial_fit``. A batch that fails validation leaves the
        model unchanged.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Target values of the batch.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row.

        Returns
        -------
        self : object
            The updated estimator.
        """
        self._learn_batch(X, y, None, sample_weight, record_scores=False)
        return self

    def _learn_batch(self, X, y, classes, sample_weight, *, record_scores):
        # The batch's targets are standardized by the running units (see the
        # module docstring); recorded scores are mapped to the target's units
        # with the units before each row.
        saved = {
            name: getattr(self, name)
            for name in ("_target_moments", "target_offset_", "target_scale_")
            if hasattr(self, name)
        }
        self._recording_units = record_scores
        try:
            scores = super()._learn_batch(
                X, y, classes, sample_weight, record_scores=record_scores
            )
        except BaseException:
            # A rejected or diverging batch leaves the units as they were.
            for name, value in saved.items():
                setattr(self, name, value)
            raise
        finally:
            # Back to the class defaults: the recording lives for this call only.
            del self._recording_units
            units = self._units_before_rows
            if units is not None:
                del self._units_before_rows
        if scores is not None:
            if units is None:
                scores = self._output_scores(scores)
            else:
                offsets, scales = units
                scores = scores * scales[:, None] + offsets[:, None]
        return scores

    @_fit_context(prefer_skip_nested_validation=True)
    def _validated_batch(self, X, y, classes, sample_weight):
        """``(X, y, row_weights)`` after full validation of the parameters and the
        batch; on the first call, also the start of training. A batch that fails
        leaves the estimator as it was."""
        first_call = not self._is_initialized()
        with unchanged_on_error(self):
            X, y, sample_weight = self._validate_training_data(
                X, y, sample_weight, reset=first_call, y_numeric=True
            )
            if first_call:
                self._check_state_size(X.shape[1], 1)
        if first_call:
            self._start_training(X.shape[1], 1)
            self.target_offset_, self.target_scale_ = 0.0, 1.0
            self._target_moments = _moments(y[:0], sample_weight[:0], self.normalize_y)
        return X, self._streamed_targets(y, sample_weight), sample_weight

    def _streamed_batch(self, X, y, classes, sample_weight):
        """``(X, y, row_weights)`` for a fitted model's batch that passes the
        checks of :mod:`sk_adaprox._validation`, or None for full validation."""
        if classes is not None:
            raise ValueError("classes is for classifiers; a regressor takes None.")
        if not self._is_initialized():
            return None
        batch = checked_batch(self, X, y, sample_weight, classification=False)
        if batch is None:
            return None
        X, y, sample_weight = batch
        return X, self._streamed_targets(y, sample_weight), sample_weight

    # -- target units -------------------------------------------------------------

    def _streamed_targets(self, y, sample_weight):
        """A stream's kernel targets: each row standardized by the running units
        of the targets up to it, which become the model's units. A model without
        running moments (``normalize_y=False`` when the stream started) keeps
        its units."""
        moments = self._target_moments
        if moments is None:
            return _standardized(y, self._target_units())
        y = np.asarray(y, dtype=np.float64)
        offsets, scales, moments = _running_units(y, sample_weight, moments)
        if self._recording_units:
            self._units_before_rows = (
                np.concatenate(([self.target_offset_], offsets[:-1])),
                np.concatenate(([self.target_scale_], scales[:-1])),
            )
        self._target_moments = moments
        if y.shape[0]:
            self.target_offset_, self.target_scale_ = (
                float(offsets[-1]),
                float(scales[-1]),
            )
        return (y - offsets) / scales

    def _target_units(self):
        """The fitted ``(target_offset_, target_scale_)``; ``(0, 1)`` before
        they exist."""
        return getattr(self, "target_offset_", 0.0), getattr(self, "target_scale_", 1.0)

    def _loss_epsilon(self):
        return float(self.epsilon) / self._target_units()[1]

    def _output_scores(self, scores):
        offset, scale = self._target_units()
        if offset == 0.0 and scale == 1.0:
            return scores
        return scores * scale + offset

    def _weights_out(self, weights, intercept):
        offset, scale = self._target_units()
        if offset == 0.0 and scale == 1.0:
            return weights
        return weights * scale + offset if intercept else weights * scale

    def _weights_in(self, value, intercept):
        offset, scale = self._target_units()
        return (value - offset) / scale if intercept else value / scale

    def _predictions_from_scores(self, scores, method):
        # method is "predict", the one a regressor has; _learn_batch's recorded
        # scores are already in the target's units.
        return scores[:, 0]

    def predict(self, X: MatrixLike) -> FloatArray:
        """Predict with the linear model: ``X @ coef_ + intercept_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted values.
        """
        self._check_fitted()
        return self._linear_scores(X)[:, 0]


def _moments(y, sample_weight, normalize_y):
    """The running moments of a new model's targets after ``y``
    (:func:`._kernels.targets.running_units`); None without ``normalize_y`` (the
    stream then learns the raw target)."""
    if not normalize_y:
        return None
    _, _, moments = _running_units(y, sample_weight, np.zeros(3))
    return moments


def _units_after(moments):
    """``(offset, scale)`` after the targets of ``moments`` (their weighted mean
    and standard deviation, scale 1 while they are constant; ``(0, 1)`` before
    any weight), or ``(0, 1)`` for None (no ``normalize_y``)."""
    if moments is None:
        return 0.0, 1.0
    offsets, scales = np.empty(1), np.empty(1)
    # No new row: the units after the rows the moments hold.
    running_units(np.empty(1), np.zeros(1), np.array(moments), offsets, scales)
    return float(offsets[0]), float(scales[0])


def _running_units(y, sample_weight, moments):
    """``(offsets, scales, moments)``: the units after each row of ``y``,
    continuing ``moments`` (not modified), and the moments after the last row."""
    moments = np.array(moments, dtype=np.float64)
    offsets, scales = np.empty(y.shape[0]), np.empty(y.shape[0])
    running_units(
        np.asarray(y, dtype=np.float64),
        np.asarray(sample_weight, dtype=np.float64),
        moments,
        offsets,
        scales,
    )
    return offsets, scales, moments


def _standardized(y, units):
    """Kernel targets: ``(y - offset) / scale`` as a new float64 array (y itself,
    copied, for ``(0, 1)``)."""
    offset, scale = units
    return (np.asarray(y, dtype=np.float64) - offset) / scale
