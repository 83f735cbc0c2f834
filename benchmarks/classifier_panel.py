"""Every classifier's defaults on issue 13's classification panel, next to
SGDClassifier's defaults and the best of its log-loss grid.

Run: python benchmarks/classifier_panel.py [--sets a,b,...]

Test AUC of each sk_adaprox classifier at its defaults (fit to ``tol``), of
``SGDClassifier()`` and of the best of SGD's log-loss grid (alpha in {1e-7 ...
1e-3} x penalty {l2, l1}, picked on the test set). The per-estimator ceilings,
with each estimator's own grid, are in ``selection_study.py``.
"""

import argparse
import time
import warnings

import numpy as np
from selection_study import SETS
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import roc_auc_score

from sk_adaprox import (
    AdaGradClassifier,
    CoinBettingClassifier,
    FTRLClassifier,
    ONSClassifier,
)


def classifiers():
    return {
        "AdaGradClassifier()": AdaGradClassifier(random_state=0),
        "FTRLClassifier()": FTRLClassifier(random_state=0),
        "CoinBettingClassifier()": CoinBettingClassifier(random_state=0),
        "ONSClassifier()": ONSClassifier(random_state=0),
    }


def auc_and_seconds(model, X, y, X_test, y_test):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        started = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - started
    return roc_auc_score(y_test, model.decision_function(X_test)), seconds


def _int32_indices(X):
    """X with int32 indices where it is sparse: SGDClassifier refuses int64."""
    if hasattr(X, "indices") and X.indices.dtype != np.int32:
        X = X.copy()
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    return X


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    args = parser.parse_args()
    print("| set | model | test AUC | − SGD best | − SGD() | fit (s) |")
    print("|---|---|---|---|---|---|")
    for name in args.sets.split(","):
        X, y, X_test, y_test = SETS[name]()
        sgd_data = (_int32_indices(X), y, _int32_indices(X_test), y_test)
        grid = [
            auc_and_seconds(
                SGDClassifier(
                    loss="log_loss", alpha=alpha, penalty=penalty, random_state=0
                ),
                *sgd_data,
            )[0]
            for penalty in ("l2", "l1")
            for alpha in (1e-7, 1e-6, 1e-5, 1e-4, 1e-3)
        ]
        best = max(grid)
        default, seconds = auc_and_seconds(SGDClassifier(random_state=0), *sgd_data)
        print(f"| {name} | SGD best of grid | {best:.4f} | 0 | - | - |")
        print(
            f"| {name} | SGDClassifier() | {default:.4f} | {default - best:+.4f} | 0 "
            f"| {seconds:.2f} |",
            flush=True,
        )
        for label, model in classifiers().items():
            auc, seconds = auc_and_seconds(model, X, y, X_test, y_test)
            print(
                f"| {name} | {label} | {auc:.4f} | {auc - best:+.4f} | "
                f"{auc - default:+.4f} | {seconds:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
