"""Every classifier's defaults on issue 13's classification panel, next to
SGDClassifier's defaults and the best of its log-loss grid.

Run: python benchmarks/classifier_panel.py [--sets a,b,...] [--seeds 0,1,2,3,4]
[--models ONSClassifier(),...]

Test AUC of each sk_adaprox classifier at its defaults (fit to ``tol``), of
``SGDClassifier()`` and of the best of SGD's log-loss grid (alpha in {1e-7 ...
1e-3} x penalty {l2, l1}, picked on the test set). The per-estimator ceilings,
with each estimator's own grid, are in ``studies/selection_study.py``.

With several ``--seeds`` every model is fitted once per seed (``random_state``:
the order of the rows in each pass; the train/test split stays the data's), and
each cell is the mean over the seeds, the SGD best picked per seed; a second
table gives, per model and set, how many seeds it was below ``SGDClassifier()``
of the same seed and its worst difference from SGD's best.
"""

import argparse
import time
import warnings

import numpy as np
from _data import CLASSIFICATION_PANEL as SETS
from _data import int32_indices
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import roc_auc_score

from sk_adaprox import (
    AdaGradClassifier,
    CoinBettingClassifier,
    FTRLClassifier,
    ONSClassifier,
)


def classifiers(seed=0):
    return {
        "AdaGradClassifier()": AdaGradClassifier(random_state=seed),
        "FTRLClassifier()": FTRLClassifier(random_state=seed),
        "CoinBettingClassifier()": CoinBettingClassifier(random_state=seed),
        "ONSClassifier()": ONSClassifier(random_state=seed),
    }


def auc_and_seconds(model, X, y, X_test, y_test):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        started = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - started
    return roc_auc_score(y_test, model.decision_function(X_test)), seconds


def one_seed(name, seed, data, models=None):
    """Test AUCs of SGD's best of grid, SGDClassifier() and each classifier (or
    those labelled in ``models``), for one shuffling seed; and the fit seconds of
    all but the grid."""
    X, y, X_test, y_test = data
    sgd_data = (int32_indices(X), y, int32_indices(X_test), y_test)
    grid = [
        auc_and_seconds(
            SGDClassifier(
                loss="log_loss", alpha=alpha, penalty=penalty, random_state=seed
            ),
            *sgd_data,
        )[0]
        for penalty in ("l2", "l1")
        for alpha in (1e-7, 1e-6, 1e-5, 1e-4, 1e-3)
    ]
    aucs = {"SGD best of grid": max(grid)}
    seconds = {}
    aucs["SGDClassifier()"], seconds["SGDClassifier()"] = auc_and_seconds(
        SGDClassifier(random_state=seed), *sgd_data
    )
    for label, model in classifiers(seed).items():
        if models is None or label in models:
            aucs[label], seconds[label] = auc_and_seconds(model, *data)
    return aucs, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--seeds", default="0")
    parser.add_argument(
        "--models", default=None, help="only these, e.g. 'ONSClassifier()'"
    )
    args = parser.parse_args()
    seeds = [int(seed) for seed in args.seeds.split(",")]
    models = None if args.models is None else args.models.split(",")
    if len(seeds) == 1:
        print("| set | model | test AUC | − SGD best | − SGD() | fit (s) |")
        print("|---|---|---|---|---|---|")
    else:
        print(f"Mean test AUC over seeds {seeds}:\n")
        print("| set | model | test AUC | − SGD best | − SGD() |")
        print("|---|---|---|---|---|")
    misses = []
    for name in args.sets.split(","):
        data = SETS[name]()
        runs = [one_seed(name, seed, data, models) for seed in seeds]
        mean = {
            label: float(np.mean([aucs[label] for aucs, _ in runs]))
            for label in runs[0][0]
        }
        best, default = mean["SGD best of grid"], mean["SGDClassifier()"]
        for label, auc in mean.items():
            row = f"| {name} | {label} | {auc:.4f} | {auc - best:+.4f} | "
            row += f"{auc - default:+.4f} |"
            if len(seeds) == 1:
                row += f" {runs[0][1].get(label, float('nan')):.2f} |"
            print(row, flush=True)
            if label in ("SGD best of grid", "SGDClassifier()"):
                continue
            below_default = sum(
                aucs[label] < aucs["SGDClassifier()"] for aucs, _ in runs
            )
            worst = min(aucs[label] - aucs["SGD best of grid"] for aucs, _ in runs)
            misses.append((name, label, below_default, worst))
    if len(seeds) > 1:
        print(
            f"\nPer model and set, over the {len(seeds)} seeds: how many fell below"
            " SGDClassifier() of the same seed, and the worst difference from SGD's"
            " best of grid.\n"
        )
        print("| set | model | seeds below SGD() | worst − SGD best |")
        print("|---|---|---|---|")
        for name, label, below_default, worst in misses:
            print(f"| {name} | {label} | {below_default} | {worst:+.4f} |")


if __name__ == "__main__":
    main()
