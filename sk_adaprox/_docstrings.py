"""Docstring sections every sk_adaprox estimator shares, written once.

The estimators' ``__doc__`` are f-strings that splice these in, so a parameter that
means the same everywhere is described the same everywhere.
"""

TRAINING_PARAMETERS = """fit_intercept : bool, default=True
        Whether to learn an (unregularised) intercept with its own accumulator.
    max_iter : int, default=1000
        Maximum number of passes over the data in :meth:`fit`.
    tol : float or None, default=1e-3
        :meth:`fit` stops when the mean training loss of a pass (per row, and per
        class for one-vs-rest models; measured before each row's update) has not
        improved by ``tol`` for ``n_iter_no_change`` consecutive passes. ``None``
        disables it.
    n_iter_no_change : int, default=5
        Number of passes without improvement before stopping.
    shuffle : bool, default=True
        Whether :meth:`fit` visits the rows in a new random order each pass.
        :meth:`partial_fit` always keeps the order it is given.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffling.
    warm_start : bool, default=False
        If True, :meth:`fit` continues from the fitted state instead of starting
        over (same number of features and classes required).
    verbose : int, default=0
        If > 0, print one line per pass: rows, mean loss, non-zero weights, seconds."""

CLASS_WEIGHT = """class_weight : dict, "balanced" or None, default=None
        Weights per class, multiplying the sample weight of each row of that class.
        ``"balanced"`` uses ``n_samples / (n_classes * np.bincount(y))`` (fit only)."""

CLASSIFIER_COEF = """coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights. Like every state attribute below, a view into the model's one
        state array (each feature's weights and accumulators side by side):
        writing into it changes the model; copy it to keep a snapshot. After
        :meth:`sparsify`, a scipy CSR matrix of the same shape.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.
    classes_ : ndarray of shape (n_classes,)
        The class labels."""

REGRESSOR_COEF = """coef_ : ndarray of shape (n_features,)
        Weights. Like every state attribute below, a view into the model's one
        state array (each feature's weights and accumulators side by side):
        writing into it changes the model; copy it to keep a snapshot. After
        :meth:`sparsify`, a scipy CSR matrix of shape (1, n_features).
    intercept_ : ndarray of shape (1,)
        Intercept."""

FIT_ATTRIBUTES = """n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X has string column names.
    n_iter_ : int
        Number of passes run by the last call to fit (1 after partial_fit).
    t_ : int
        Number of rounds (rows) trained on so far, across all calls."""
