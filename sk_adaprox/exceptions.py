"""Warnings the estimators raise, besides scikit-learn's."""

__all__ = ["PoorFitWarning"]


class PoorFitWarning(UserWarning):
    """``fit`` ended with a model that predicts its training data worse than a
    model without features would.

    Raised when the model's mean loss on its training rows is above that of the
    intercept alone (of a score of 0 with ``fit_intercept=False``) by more than
    1 %: a model that learned anything beats it, so the steps were likely too
    large for the features' scale. The message names the parameter to change.
    (The last pass's mean loss is tested first; the model is scored on its
    training rows only where that is above the intercept's.)
    ``warnings.simplefilter("error", PoorFitWarning)`` turns it into an error.

    Examples
    --------
    >>> import warnings
    >>> from sklearn.datasets import make_regression
    >>> from sk_adaprox import AdaGradRegressor
    >>> from sk_adaprox.exceptions import PoorFitWarning
    >>> X, y = make_regression(1000, 20, noise=10.0, random_state=0)
    >>> model = AdaGradRegressor(
    ...     loss="epsilon_insensitive", eta=100.0, max_iter=20, random_state=0
    ... )
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     model = model.fit(X, y)
    >>> any(issubclass(w.category, PoorFitWarning) for w in caught)
    True
    """
