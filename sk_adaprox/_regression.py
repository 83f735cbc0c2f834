"""Regression plumbing shared by every sk_adaprox regressor (one output, real y)."""

from numbers import Real

from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ._base import unchanged_on_error
from ._losses import REGRESSION_LOSSES
from ._validation import checked_batch


class OnlineRegressorMixin:
    """``fit``, ``partial_fit`` and ``predict`` for online regressors.

    Combine with ``RegressorMixin``, an algorithm mixin and
    :class:`~sk_adaprox._base.OnlineLinearModel`. ``coef_`` has shape
    ``(n_features,)`` and ``intercept_`` shape ``(1,)``, as in SGDRegressor.
    """

    _parameter_constraints: dict = {
        "loss": [StrOptions(set(REGRESSION_LOSSES))],
        "epsilon": [Interval(Real, 0, None, closed="left")],
    }

    @staticmethod
    def _coef_shape(n_features, n_outputs):
        return (n_features,)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model with up to ``max_iter`` passes over the training data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data. CSR input (float32 or float64 values, int32 or int64
            indices) is used without a copy; other input is converted to CSR once.
        y : array-like of shape (n_samples,)
            Target values.
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
            else:
                self._check_state_size(X.shape[1], 1)
        if not keep_state:
            self._start_training(X.shape[1], 1)
        rng = check_random_state(self.random_state) if self.shuffle else None
        self._run_passes(
            X,
            y.astype(float, copy=True),
            sample_weight,
            max_passes=self.max_iter,
            rng=rng,
        )
        return self

    def partial_fit(self, X, y, sample_weight=None):
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
        return X, y.astype(float, copy=True), sample_weight

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
        return X, y.astype(float, copy=True), sample_weight

    @staticmethod
    def _predictions_from_scores(scores, method):
        return scores[:, 0]  # method is "predict", the one a regressor has

    def predict(self, X):
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
