"""The multinomial loss against one-vs-rest, LogisticRegression and River (issue 30).

Run: python benchmarks/studies/multinomial.py [--sets news20,scale3,scale4]
[--river-passes N]

For each set and each sk_adaprox classifier at its defaults (``random_state=0``),
fits ``loss="log_loss"`` (one-vs-rest) and ``loss="multinomial"`` and prints the
test accuracy, the test log loss and the fit's seconds; then scikit-learn's
``LogisticRegression`` at the best C of 0.1, 1, 10, 100 and 1,000 by test log
loss, one-vs-rest (liblinear, one model per class) and multinomial (lbfgs),
and River's ``SoftmaxRegression`` (its defaults)
over ``--river-passes`` passes of the training rows in order (one by
default, as a stream). docs/training.md quotes the table.

Sets: 20 Newsgroups (tf-idf of the training split, 20 classes) and the
Pang & Lee scale data's 3- and 4-class labels (tf-idf, 75/25 split).
"""

import argparse
import sys
import time
from pathlib import Path

# The shared helpers (_data, ...) are in benchmarks/, one folder up.
# ruff: noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from _data import news20, scaledata_tfidf
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, log_loss
from sklearn.multiclass import OneVsRestClassifier

from sk_adaprox import (
    AdaGradClassifier,
    CoinBettingClassifier,
    FTRLClassifier,
    ONSClassifier,
)

SETS = {
    "news20": ("20 Newsgroups (20 classes)", news20),
    "scale3": ("scale data, 3 classes", lambda: scaledata_tfidf("3class")),
    "scale4": ("scale data, 4 classes", lambda: scaledata_tfidf("4class")),
}
ESTIMATORS = (AdaGradClassifier, FTRLClassifier, CoinBettingClassifier, ONSClassifier)


def evaluate(model, X_test, y_test, seconds):
    probabilities = model.predict_proba(X_test)
    predicted = model.classes_[probabilities.argmax(axis=1)]
    return (
        accuracy_score(y_test, predicted),
        log_loss(y_test, probabilities, labels=model.classes_),
        seconds,
    )


def timed_fit(model, X, y):
    started = time.perf_counter()
    model.fit(X, y)
    return model, time.perf_counter() - started


def logistic_regression(X, y, X_test, y_test, one_vs_rest=False):
    """The best C's row (by test log loss) and that C: the multinomial fit, or
    one binary fit per class (liblinear) with their probabilities renormalised
    (``one_vs_rest``)."""
    best = None
    for C in (0.1, 1.0, 10.0, 100.0, 1000.0):
        model = LogisticRegression(C=C, max_iter=2000)
        if one_vs_rest:
            X.sort_indices()  # liblinear sorts a matrix's indices in place
            model = OneVsRestClassifier(LogisticRegression(C=C, solver="liblinear"))
        model, seconds = timed_fit(model, X, y)
        row = evaluate(model, X_test, y_test, seconds)
        if best is None or row[1] < best[0][1]:
            best = (row, C)
    return best


def river_softmax(X, y, X_test, y_test, passes):
    """River's SoftmaxRegression over the rows as dicts of their non-zeros."""
    from river.linear_model import SoftmaxRegression

    def rows(matrix):
        for i in range(matrix.shape[0]):
            start, end = matrix.indptr[i], matrix.indptr[i + 1]
            yield dict(
                zip(
                    matrix.indices[start:end].tolist(),
                    matrix.data[start:end],
                    strict=True,
                )
            )

    model = SoftmaxRegression()
    started = time.perf_counter()
    for _ in range(passes):
        for x, label in zip(rows(X), y, strict=True):
            model.learn_one(x, label)
    seconds = time.perf_counter() - started
    classes = np.unique(y)
    probabilities = np.array(
        [
            [p.get(c, 0.0) for c in classes]
            for p in map(model.predict_proba_one, rows(X_test))
        ]
    )
    probabilities = np.clip(probabilities, 1e-15, 1.0)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    return (
        accuracy_score(y_test, classes[probabilities.argmax(axis=1)]),
        log_loss(y_test, probabilities, labels=classes),
        seconds,
    )


def print_row(label, estimator, loss, row):
    accuracy, test_loss, seconds = row
    print(
        f"| {label} | {estimator} | {loss} | {accuracy:.4f} | {test_loss:.4f} "
        f"| {seconds:.1f} |",
        flush=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--river-passes", type=int, default=1)
    args = parser.parse_args()
    print("| set | estimator | loss | test accuracy | test log loss | fit (s) |")
    print("|---|---|---|---|---|---|")
    for name in args.sets.split(","):
        label, load = SETS[name]
        X, y, X_test, y_test = load()
        for estimator_class in ESTIMATORS:
            for loss in ("log_loss", "multinomial"):
                model, seconds = timed_fit(
                    estimator_class(loss=loss, random_state=0), X, y
                )
                shown = "one-vs-rest" if loss == "log_loss" else "multinomial"
                row = evaluate(model, X_test, y_test, seconds)
                print_row(label, f"`{estimator_class.__name__}()`", shown, row)
        for one_vs_rest, loss in ((True, "one-vs-rest"), (False, "multinomial")):
            row, C = logistic_regression(X, y, X_test, y_test, one_vs_rest)
            print_row(label, f"`LogisticRegression(C={C:g})`", loss, row)
        row = river_softmax(X, y, X_test, y_test, args.river_passes)
        passes = f", {args.river_passes} passes" if args.river_passes > 1 else ""
        print_row(label, f"River `SoftmaxRegression()`{passes}", "multinomial", row)


if __name__ == "__main__":
    main()
