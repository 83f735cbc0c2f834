"""Progressive validation: each row predicted by the model before it learns from it.

An online model scores every row before its update, so the scores of a pass are
honest held-out predictions: the standard way to evaluate a stream (River's
``progressive_val_score``, Vowpal Wabbit's "average loss"). The kernels record those
scores as they go, so this costs about what ``partial_fit`` over the same rows costs.
"""

from collections.abc import Callable
from typing import Any

from ._base import OnlineLinearModel
from ._typing import ArrayLike, MatrixLike, NDArray

_METHODS = ("predict", "decision_function", "predict_proba", "predict_log_proba")


def progressive_val_predict(
    estimator: OnlineLinearModel,
    X: MatrixLike,
    y: ArrayLike,
    *,
    classes: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    method: str = "predict",
) -> NDArray:
    """Predict every row with the model as it was just before learning from it.

    The estimator learns from the rows exactly as ``estimator.partial_fit(X, y,
    classes=classes, sample_weight=sample_weight)`` would (one pass, in order); row
    i's prediction is the one ``getattr(estimator, method)`` would have returned for
    it after rows 0..i-1. Call it on successive batches of a stream to evaluate and
    train at once, by analogy with :func:`sklearn.model_selection.cross_val_predict`.

    Parameters
    ----------
    estimator : sk_adaprox estimator
        Any sk_adaprox classifier or regressor, fitted or not; it is trained in
        place.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows, in stream order.
    y : array-like of shape (n_samples,)
        Their targets.
    classes : array-like of shape (n_classes,), default=None
        Classifiers: every class of the stream, required when the estimator is not
        fitted yet (as for ``partial_fit``).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row in training.
    method : {"predict", "decision_function", "predict_proba", \
"predict_log_proba"}, default="predict"
        What to predict; the probability methods need a loss that has them.

    Returns
    -------
    ndarray of shape (n_samples,) or (n_samples, n_classes)
        The progressive predictions, shaped as ``getattr(estimator, method)``
        returns them.

    Examples
    --------
    >>> from sk_adaprox import FTRLClassifier, progressive_val_predict
    >>> from sk_adaprox.datasets import make_rare_features
    >>> X, y = make_rare_features(1000, 2000, random_state=0)
    >>> model = FTRLClassifier()
    >>> predicted = progressive_val_predict(model, X, y, classes=[0, 1])
    >>> predicted.shape, model.t_
    ((1000,), 1000)
    """
    if not isinstance(estimator, OnlineLinearModel):
        raise TypeError(
            f"progressive_val_predict needs an sk_adaprox estimator, got "
            f"{type(estimator).__name__}."
        )
    if method not in _METHODS or not hasattr(estimator, method):
        raise ValueError(
            f"method={method!r} is not available for {estimator!r}; use one of "
            f"{[name for name in _METHODS if hasattr(estimator, name)]}."
        )
    scores = estimator._learn_batch(X, y, classes, sample_weight, record_scores=True)
    return estimator._predictions_from_scores(scores, method)


def progressive_val_score(
    estimator: OnlineLinearModel,
    X: MatrixLike,
    y: ArrayLike,
    metric: Callable[..., Any],
    *,
    classes: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    method: str = "predict",
) -> Any:
    """Score a stream by progressive validation: ``metric(y, predictions)``.

    The predictions are :func:`progressive_val_predict`'s: each row predicted
    before the model learns from it. The estimator is trained on the rows.

    Parameters
    ----------
    estimator : sk_adaprox estimator
        Any sk_adaprox classifier or regressor, fitted or not; trained in place.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows, in stream order.
    y : array-like of shape (n_samples,)
        Their targets.
    metric : callable
        ``metric(y_true, y_pred) -> float``, for example
        :func:`sklearn.metrics.accuracy_score`, or
        :func:`sklearn.metrics.roc_auc_score` with
        ``method="decision_function"``.
    classes : array-like of shape (n_classes,), default=None
        Classifiers: every class of the stream (first call).
    sample_weight : array-like of shape (n_samples,), default=None
        Weight of each row in training.
    method : str, default="predict"
        The prediction passed to ``metric`` (see :func:`progressive_val_predict`).

    Returns
    -------
    float
        The metric of the progressive predictions.

    Examples
    --------
    >>> from sklearn.metrics import accuracy_score
    >>> from sk_adaprox import AdaGradClassifier, progressive_val_score
    >>> from sk_adaprox.datasets import make_rare_features
    >>> X, y = make_rare_features(1000, 2000, random_state=0)
    >>> score = progressive_val_score(
    ...     AdaGradClassifier(), X, y, accuracy_score, classes=[0, 1]
    ... )
    >>> bool(0.5 < score <= 1.0)
    True
    """
    predictions = progressive_val_predict(
        estimator, X, y, classes=classes, sample_weight=sample_weight, method=method
    )
    return metric(y, predictions)
