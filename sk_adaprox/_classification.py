"""Classification plumbing shared by every sk_adaprox classifier.

Labels become kernel targets here: with two classes one output and targets ±1
(``classes_[1]`` is the positive class); with K > 2 classes K outputs updated
in the same pass (one-vs-rest, or the multinomial loss of all K scores), and the
target is the class index.
"""

from typing import Self

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import _fit_context
from sklearn.utils import compute_class_weight
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets, unique_labels

from ._losses import CLASSIFICATION_LOSSES, PROBABILISTIC_LOSSES
from ._typing import ArrayLike, FloatArray, MatrixLike, NDArray
from ._validation import checked_batch, unchanged_on_error


def _check_proba(estimator):
    if estimator.loss not in PROBABILISTIC_LOSSES:
        raise AttributeError(
            f"probability estimates are not available for loss={estimator.loss!r}; "
            f"use one of {sorted(PROBABILISTIC_LOSSES)}"
        )
    return True


class OnlineClassifierMixin:
    """``fit``, ``partial_fit`` and probability estimates for online classifiers.

    Combine with ``LinearClassifierMixin`` (predict, score), an
    algorithm mixin and :class:`~sk_adaprox._base.OnlineLinearModel`.
    """

    _parameter_constraints: dict = {
        "loss": [StrOptions(set(CLASSIFICATION_LOSSES))],
        "class_weight": [dict, StrOptions({"balanced"}), None],
    }

    @staticmethod
    def _coef_shape(n_features, n_outputs):
        return (n_outputs, n_features)

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
            Target labels.
        coef_init : array-like of shape (n_classes, n_features), default=None
            The weights training starts from (instead of zeros), as SGD's
            ``coef_init``; with ``warm_start``, they replace the fitted ones.
            Where the weights are a function of accumulated gradients (FTRL's
            z, dual averaging's u), those are set to give these weights.
        intercept_init : array-like of shape (n_classes,), default=None
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
                X, y, sample_weight, reset=True, y_numeric=False
            )
            classes = self._checked_fit_classes(y, X.shape[1], keep_state)
            targets, row_weights = self._encode_labels(y, sample_weight, classes, False)
            plan = self._plan_passes(X, targets, row_weights, stratify=True)
            initial_weights = self._checked_initial_weights(
                coef_init, intercept_init, X.shape[1], _n_outputs(classes)
            )
        if not keep_state:
            self._start_training(X.shape[1], _n_outputs(classes))
            self.classes_ = classes
        self._fit_passes(X, targets, row_weights, plan, initial_weights)
        return self

    def _checked_fit_classes(self, y, n_features, keep_state):
        """``fit``'s classes: at least two, those of the fitted model where it
        goes on training it (``keep_state``), with a state that may be made."""
        check_classification_targets(y)
        classes = unique_labels(y)
        if classes.shape[0] < 2:
            raise ValueError(
                "The number of classes has to be greater than one; got "
                f"{classes.shape[0]} class"
            )
        if keep_state:
            if not np.array_equal(classes, self.classes_):
                raise ValueError(
                    f"warm_start=True, but y has classes {classes} and the fitted "
                    f"model {self.classes_}. Set warm_start=False to refit."
                )
            self._check_warm_start(n_features, _n_outputs(classes))
        else:
            self._check_state_size(n_features, _n_outputs(classes))
        return classes

    def partial_fit(
        self,
        X: MatrixLike,
        y: ArrayLike,
        classes: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None,
    ) -> Self:
        """Continue training with one pass over the given rows, in their order.

        Round counting (``t_``) and all accumulated state carry over from earlier
        calls to ``fit`` or ``partial_fit``. A batch that fails validation (including
        labels outside ``classes_``) leaves the model unchanged.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data.
        y : array-like of shape (n_samples,)
            Target labels of the batch; each must be one of ``classes``.
        classes : array-like of shape (n_classes,), default=None
            Every class the stream can contain. Required on the first call, optional
            later (if given it must equal ``classes_``).
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each row.

        Returns
        -------
        self : object
            The updated estimator.
        """
        self._learn_batch(X, y, classes, sample_weight, record_scores=False)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def _validated_batch(self, X, y, classes, sample_weight):
        """``(X, targets, row_weights)`` after full validation of the parameters and
        the batch; on the first call, also the start of training. A batch that fails
        leaves the estimator as it was."""
        first_call = not self._is_initialized()
        with unchanged_on_error(self):
            classes = self._partial_fit_classes(classes, first_call)
            X, y, sample_weight = self._validate_training_data(
                X, y, sample_weight, reset=first_call, y_numeric=False
            )
            check_classification_targets(y)
            targets, row_weights = self._encode_labels(y, sample_weight, classes, True)
            if first_call:
                self._check_state_size(X.shape[1], _n_outputs(classes))
        if first_call:
            self._start_training(X.shape[1], _n_outputs(classes))
            self.classes_ = classes
        return X, targets, row_weights

    def _streamed_batch(self, X, y, classes, sample_weight):
        """``(X, targets, row_weights)`` for a fitted model's batch that passes the
        checks of :mod:`sk_adaprox._validation`, or None for full validation."""
        if not self._is_initialized() or self.class_weight is not None:
            return None
        if classes is not None and not np.array_equal(classes, self.classes_):
            return None
        batch = checked_batch(self, X, y, sample_weight, classification=True)
        if batch is None:
            return None
        X, y, sample_weight = batch
        targets, row_weights = self._encode_labels(
            y, sample_weight, self.classes_, True
        )
        return X, targets, row_weights

    def _partial_fit_classes(self, classes, first_call):
        if first_call:
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit."
                )
            classes = unique_labels(classes)
            if classes.shape[0] < 2:
                raise ValueError(
                    "The number of classes has to be greater than one; got "
                    f"{classes.shape[0]} class"
                )
            return classes
        if classes is not None and not np.array_equal(
            unique_labels(classes), self.classes_
        ):
            raise ValueError(
                f"classes={classes!r} is not the same as on the first call to "
                f"partial_fit, which was {self.classes_!r}."
            )
        return self.classes_

    def _encode_labels(self, y, sample_weight, classes, partial):
        """Kernel targets and row weights (sample weight x class weight) for y."""
        codes = classes.searchsorted(y)
        known = classes.take(codes, mode="clip") == y
        if not known.all():
            unseen = np.unique(y[~known])
            raise ValueError(
                f"y contains labels {unseen.tolist()} that are not in classes_ "
                f"{classes.tolist()}."
            )
        if partial and isinstance(self.class_weight, str):
            raise ValueError(
                "class_weight='balanced' is not supported by partial_fit: the class "
                "frequencies of a stream are unknown. Compute weights once with "
                "sklearn.utils.compute_class_weight and pass them as a dict."
            )
        if self.class_weight is None:
            row_weights = sample_weight
        else:
            class_weights = compute_class_weight(
                self.class_weight, classes=classes, y=y
            )
            row_weights = sample_weight * class_weights[codes]
        if classes.shape[0] == 2:
            targets = codes * 2.0 - 1.0  # codes 0, 1 -> -1, +1
        else:
            targets = codes.astype(np.float64)
        return targets, row_weights

    def decision_function(self, X: MatrixLike) -> FloatArray:
        """Confidence scores: ``X @ coef_.T + intercept_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The score of the positive class ``classes_[1]`` for binary problems,
            otherwise one score per class.
        """
        self._check_fitted()
        return self._decision_from_scores(self._linear_scores(X))

    def predict(self, X: MatrixLike) -> NDArray:
        """Predict class labels: the class of the largest score (binary: the
        positive class ``classes_[1]`` where the score is > 0).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted class label of each row.
        """
        self._check_fitted()
        return self._labels_from_scores(self._linear_scores(X))

    def _predictions_from_scores(self, scores, method):
        if method == "predict":
            return self._labels_from_scores(scores)
        if method == "decision_function":
            return self._decision_from_scores(scores)
        probability = self._proba_from_scores(scores)
        if method == "predict_log_proba":
            with np.errstate(divide="ignore"):
                return np.log(probability)
        return probability

    @staticmethod
    def _decision_from_scores(scores):
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def _labels_from_scores(self, scores):
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(np.intp)]
        return self.classes_[scores.argmax(axis=1)]

    @available_if(_check_proba)
    def predict_proba(self, X: MatrixLike) -> FloatArray:
        """Probability estimates (``loss="log_loss"``, ``"multinomial"`` or
        ``"modified_huber"``).

        For ``multinomial`` the probabilities are the softmax of the classes'
        scores (with two classes, the logistic function of the one score). For
        ``log_loss`` the positive-class probability of each one-vs-rest output is
        the logistic function of its score; for ``modified_huber`` it is
        ``(clip(score, -1, 1) + 1) / 2``. With more than two classes the one-vs-rest
        probabilities are normalised to sum to one (uniform where all are zero).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probability of each class, columns ordered as ``classes_``.
        """
        self._check_fitted()
        return self._proba_from_scores(self._linear_scores(X))

    def _proba_from_scores(self, scores):
        decision = self._decision_from_scores(scores)
        if self.loss == "multinomial" and decision.ndim == 2:
            return softmax(decision, axis=1)
        if self.loss in ("log_loss", "multinomial"):
            # scikit-learn's _predict_proba_lr, on scores already computed.
            if decision.ndim == 1:
                both = np.empty((decision.shape[0], 2))
                probability = expit(decision, out=both[:, 1])
                np.subtract(1.0, probability, out=both[:, 0])
                return both
            probability = expit(decision)
            return probability / probability.sum(axis=1)[:, np.newaxis]
        positive = (np.clip(decision, -1.0, 1.0) + 1.0) / 2.0
        if positive.ndim == 1:
            return np.column_stack([1.0 - positive, positive])
        total = positive.sum(axis=1, keepdims=True)
        all_zero = total[:, 0] == 0.0
        positive[all_zero] = 1.0
        total[all_zero] = positive.shape[1]
        return positive / total

    @available_if(_check_proba)
    def predict_log_proba(self, X: MatrixLike) -> FloatArray:
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input data.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Log-probability of each class, columns ordered as ``classes_``.
        """
        self._check_fitted()
        return self._predictions_from_scores(
            self._linear_scores(X), "predict_log_proba"
        )


def _n_outputs(classes):
    return 1 if classes.shape[0] == 2 else classes.shape[0]
