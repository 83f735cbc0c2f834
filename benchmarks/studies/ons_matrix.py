"""ONS's full matrix against its diagonal at the defaults: what ``matrix="auto"``
chooses between.

Run: python benchmarks/studies/ons_matrix.py [--cpu N]

On the narrow sets of issue 13's panel (ijcnn1, agaricus, a9a, w8a) and on the
synthetic correlated and low-rank sets of ``choose_defaults.py``, fits
``ONSClassifier``/``ONSRegressor`` at their defaults with ``matrix="full"`` and
``matrix="diag"``, once for one pass and once to ``tol``, and prints the test AUC
(R² for the regressions) and the fit time (after a warm-up fit, so without
compilation). A second table gives the time per row of one ``ONSRegressor`` pass
over dense standard normal rows with either matrix, best of 3, at widths around
``"auto"``'s switch (180 features). docs/ons.md quotes both tables.
"""

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

# The shared helpers (_data, ...) are in benchmarks/, one folder up.
# ruff: noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from _data import (
    a9a,
    agaricus,
    ijcnn1_standardized,
    synthetic_classification_standardized,
    synthetic_low_rank_regression_standardized,
    synthetic_regression_standardized,
    w8a,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import r2_score, roc_auc_score

from sk_adaprox import ONSClassifier, ONSRegressor

SETS = {
    "ijcnn1": (ijcnn1_standardized, ONSClassifier),
    "agaricus": (agaricus, ONSClassifier),
    "a9a": (a9a, ONSClassifier),
    "w8a": (w8a, ONSClassifier),
    "synthetic classification, d = 20": (
        synthetic_classification_standardized,
        ONSClassifier,
    ),
    "synthetic regression, d = 20": (synthetic_regression_standardized, ONSRegressor),
    "synthetic low-rank regression, d = 100": (
        synthetic_low_rank_regression_standardized,
        ONSRegressor,
    ),
}


def score(model, X_test, y_test):
    if isinstance(model, ONSRegressor):
        return r2_score(y_test, model.predict(X_test))
    return roc_auc_score(y_test, model.decision_function(X_test))


def row_costs():
    rng = np.random.default_rng(0)
    print("\n| d | full, µs per row | diag, µs per row |\n|---|---|---|")
    for width, n_rows in (
        (20, 20_000),
        (100, 10_000),
        (180, 5_000),
        (300, 3_000),
        (1000, 300),
    ):
        X = rng.normal(size=(n_rows, width))
        y = X[:, 0]
        cells = []
        for matrix in ("full", "diag"):
            seconds = []
            for _ in range(3):
                model = ONSRegressor(matrix=matrix, max_iter=1, tol=None, shuffle=False)
                started = time.perf_counter()
                model.fit(X, y)
                seconds.append(time.perf_counter() - started)
            cells.append(f"{min(seconds) / n_rows * 1e6:.2f}")
        print(f"| {width} | {cells[0]} | {cells[1]} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu", type=int, help="pin the process to this core")
    args = parser.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    print("| data | d | matrix | one pass | to `tol` (passes) | fit to `tol` (s) |")
    print("|---|---|---|---|---|---|")
    for name, (load, estimator) in SETS.items():
        X, y, X_test, y_test = load()
        for matrix in ("full", "diag"):
            one_pass = estimator(matrix=matrix, max_iter=1, tol=None, random_state=0)
            one_pass.fit(X, y)  # also the warm-up: compiled before the timed fit
            model = estimator(matrix=matrix, random_state=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                started = time.perf_counter()
                model.fit(X, y)
                seconds = time.perf_counter() - started
            print(
                f"| {name} | {X.shape[1]} | {matrix} | "
                f"{score(one_pass, X_test, y_test):.4f} | "
                f"{score(model, X_test, y_test):.4f} ({model.n_iter_}) | "
                f"{seconds:.2f} |",
                flush=True,
            )
    row_costs()


if __name__ == "__main__":
    main()
