"""ONS at its defaults under every scaling of the features (issue 25).

Run: python benchmarks/studies/ons_scaling.py [--sets a,b,...]
[--matrices diag,sketch,auto] [--seeds N] [--reference]

Fits ``ONSRegressor``/``ONSClassifier`` at their defaults (``random_state=0``)
behind each scaling of the same features: multiplied by 0.01, 1 (unscaled), 10
and 1,000, ``StandardScaler(with_mean=False)`` and ``MaxAbsScaler``, for each
``matrix``, and prints one Markdown row per set and matrix: the test score
(R², or ROC AUC, the mean over classes one-vs-rest for 20 Newsgroups) under each
scaling, the worst gap to the best of them, and the warnings the fits raised
(C: ConvergenceWarning, W: a training loss above the best constant model's).
``--seeds N`` repeats each row with ``random_state`` 0 to N-1 (the order of the
rows). ``--reference`` adds, for the classification sets, scikit-learn's
``LogisticRegression`` (liblinear, one model per class) at the best of
C = 1, 10, 100 and 1,000 behind the unscaled features and the two per-column
scalings (a constant factor only moves the best C): what the scaling itself
costs a batch learner tuned on the test set.

Sets: a sparse regression and a sparse binary classification (20,000 x 5,000,
1 % dense, standard normal values; the regression's target is 1e4 + 500 x.w +
noise), 20 Newsgroups (tf-idf, 20 classes) and a9a (one-hot). The sketch keeps
2 * sketch_size rows of every feature per class: on 20 Newsgroups it runs on the
2,000 most frequent words (``news20_2k``), the other matrices on all 130,107.
docs/ons.md quotes the table.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

# The shared helpers (_data, ...) are in benchmarks/, one folder up.
# ruff: noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import scipy.sparse as sp
from _data import a9a, news20
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, MaxAbsScaler, StandardScaler

from sk_adaprox import ONSClassifier, ONSRegressor

SCALINGS = ("x0.01", "x1", "x10", "x1000", "standard", "maxabs")
REFERENCE_SCALINGS = ("x1", "standard", "maxabs")


def _scaling(name):
    if name == "standard":
        return StandardScaler(with_mean=False)
    if name == "maxabs":
        return MaxAbsScaler()
    factor = float(name[1:])
    return FunctionTransformer(lambda X: X * factor, accept_sparse=True)


def sparse_problem(task, seed=0):
    """20,000 x 5,000 rows, 1 % dense, standard normal values; 25 % held out."""
    rng = np.random.default_rng(seed)
    X = sp.random(
        20_000,
        5_000,
        density=0.01,
        format="csr",
        random_state=rng,
        data_rvs=rng.standard_normal,
    )
    scores = X @ rng.standard_normal(X.shape[1])
    if task == "regression":
        y = 1e4 + 500.0 * scores + 50.0 * rng.standard_normal(X.shape[0])
    else:
        y = (rng.random(X.shape[0]) < 1.0 / (1.0 + np.exp(-scores))).astype(int)
    X, X_test, y, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
    return X, y, X_test, y_test


SETS = {
    "sparse_regression": (lambda: sparse_problem("regression"), ONSRegressor),
    "sparse_classification": (lambda: sparse_problem("classification"), ONSClassifier),
    "news20": (news20, ONSClassifier),
    "news20_2k": (lambda: news20(max_features=2000), ONSClassifier),
    "a9a": (a9a, ONSClassifier),
}
# The matrices each set runs by default (the sketch of 130,107 words x 20 classes
# would take hours a fit).
DEFAULT_MATRICES = {
    "news20": ("diag", "auto"),
    "news20_2k": ("sketch",),
}


def score(model, X_test, y_test):
    if isinstance(model[-1], ONSRegressor):
        return r2_score(y_test, model.predict(X_test))
    scores = model.decision_function(X_test)
    if scores.ndim == 1:
        return roc_auc_score(y_test, scores)
    classes = model[-1].classes_
    return float(
        np.mean(
            [roc_auc_score(y_test == c, scores[:, k]) for k, c in enumerate(classes)]
        )
    )


def fit_one(estimator_class, matrix, scaling, data, seed=0):
    X, y, X_test, y_test = data
    model = make_pipeline(
        _scaling(scaling), estimator_class(matrix=matrix, random_state=seed)
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        started = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - started
    flags = "".join(
        sorted(
            {
                "C" if issubclass(w.category, ConvergenceWarning) else "W"
                for w in caught
                if issubclass(w.category, UserWarning)
            }
        )
    )
    return score(model, X_test, y_test), flags, seconds


def reference_one(scaling, data):
    """Test score of LogisticRegression at its best C behind ``scaling``."""
    X, y, X_test, y_test = data
    scaler = _scaling(scaling).fit(X)
    X, X_test = scaler.transform(X), scaler.transform(X_test)
    X.sort_indices()  # liblinear sorts a matrix's indices in place
    best = -np.inf
    for C in (1.0, 10.0, 100.0, 1000.0):
        model = OneVsRestClassifier(LogisticRegression(C=C, solver="liblinear"))
        best = max(best, score(make_pipeline(model.fit(X, y)), X_test, y_test))
    return best


def print_row(name, label, results):
    """One Markdown row of ``(value, flags, seconds)`` per scaling (value None:
    not measured, shown as "–")."""
    values = [value for value, _, _ in results if value is not None]
    cells = [
        "–" if value is None else f"{value:.4f}{' ' + flags if flags else ''}"
        for value, flags, _ in results
    ]
    seconds = max(s for _, _, s in results)
    print(
        f"| {name} | {label} | "
        + " | ".join(cells)
        + f" | {max(values) - min(values):.4f} | {seconds:.1f} |",
        flush=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--matrices", default=None)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--reference", action="store_true")
    args = parser.parse_args()
    print("| set | matrix | " + " | ".join(SCALINGS) + " | worst gap | fit (s) |")
    print("|---|---|" + "---|" * len(SCALINGS) + "---|---|")
    for name in args.sets.split(","):
        make_data, estimator_class = SETS[name]
        data = make_data()
        matrices = (
            args.matrices.split(",")
            if args.matrices
            else DEFAULT_MATRICES.get(name, ("diag", "sketch", "auto"))
        )
        for matrix in matrices:
            for seed in range(args.seeds):
                label = matrix if args.seeds == 1 else f"{matrix}, seed {seed}"
                results = [
                    fit_one(estimator_class, matrix, s, data, seed) for s in SCALINGS
                ]
                print_row(name, label, results)
        if args.reference and estimator_class is ONSClassifier:
            started = time.perf_counter()
            scores = [
                reference_one(s, data) if s in REFERENCE_SCALINGS else None
                for s in SCALINGS
            ]
            seconds = time.perf_counter() - started
            print_row(
                name,
                "LogisticRegression, best C",
                [(value, "", seconds) for value in scores],
            )


if __name__ == "__main__":
    main()
