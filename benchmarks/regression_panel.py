"""Regressors' defaults against SGDRegressor's alpha grid, raw targets (issue 13).

Run: python benchmarks/regression_panel.py [--sets a,b,...] [--seeds 0,1,2,3,4]
[--models "CoinBettingRegressor()",...]

Every set has X standardised on its training split and the target as it comes
(dollars, years, rings, a rating in [0, 1], make_regression's std of ~200). Each
sk_adaprox regressor runs at its defaults; the reference is the best test R^2 of
``SGDRegressor`` over alpha in {1e-7 ... 1e-3} x penalty {l2, l1} (a ceiling,
picked on the test set). Target: within 0.01 of it, with no ConvergenceWarning.

With several ``--seeds`` every model, SGD's grid included, is fitted once per seed
(``random_state``: the order of the rows; the split stays the data's), and each
row gives a model's mean R^2, its worst difference from the SGD best of the same
seed, the seeds it was more than 0.01 below, and whether any seed warned.
"""

import argparse
import time
import warnings

import numpy as np
from _data import (
    abalone_raw_target,
    cal_housing_raw_target,
    make_regression_raw_target,
    millionsong_raw_target,
    scaledata_tfidf,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDRegressor

from sk_adaprox import (
    AdaGradRegressor,
    CoinBettingRegressor,
    FTRLRegressor,
    ONSRegressor,
)

SETS = {
    "california": cal_housing_raw_target,
    "millionsong": millionsong_raw_target,
    "abalone": abalone_raw_target,
    "scaledata": scaledata_tfidf,
    "make_regression": make_regression_raw_target,
}


def ours(n_features, seed=0):
    models = {
        "AdaGradRegressor()": AdaGradRegressor(random_state=seed),
        "FTRLRegressor()": FTRLRegressor(random_state=seed),
        "ONSRegressor()": ONSRegressor(random_state=seed),
        "ONSRegressor(matrix='diag')": ONSRegressor(matrix="diag", random_state=seed),
        "CoinBettingRegressor()": CoinBettingRegressor(random_state=seed),
        # CoinBettingRegressor's defaults before 2026-11-26.
        "former CoinBettingRegressor() (normalized; tol 1e-3)": CoinBettingRegressor(
            update="normalized", tol=1e-3, random_state=seed
        ),
    }
    if n_features <= 2000:
        models["ONSRegressor(matrix='full')"] = ONSRegressor(
            matrix="full", random_state=seed
        )
    return models


def fitted_score(model, X, y, X_test, y_test):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        started = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - started
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return model.score(X_test, y_test), warned, seconds


def sgd_grid_best(data, seed):
    """``(setting, (R^2, warned, seconds))`` of the best of SGDRegressor's alpha x
    penalty grid on the test set (the reference of issue 13's target)."""
    grid = {
        (penalty, alpha): fitted_score(
            SGDRegressor(alpha=alpha, penalty=penalty, random_state=seed), *data
        )
        for penalty in ("l2", "l1")
        for alpha in (1e-7, 1e-6, 1e-5, 1e-4, 1e-3)
    }
    best = max(grid, key=lambda key: grid[key][0])
    return best, grid[best]


def one_seed(data, seed, models=None):
    """(R^2, warned, seconds) of SGD's best of grid, SGDRegressor() and each of
    our regressors (or those labelled in ``models``), for one shuffling seed."""
    X = data[0]
    best, result = sgd_grid_best(data, seed)
    scores = {f"SGDRegressor best {best}": result}
    scores["SGDRegressor()"] = fitted_score(SGDRegressor(random_state=seed), *data)
    for label, model in ours(X.shape[1], seed).items():
        if models is None or label in models:
            scores[label] = fitted_score(model, *data)
    return scores


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--seeds", default="0")
    parser.add_argument(
        "--models", default=None, help="only these, e.g. 'CoinBettingRegressor()'"
    )
    args = parser.parse_args()
    seeds = [int(seed) for seed in args.seeds.split(",")]
    models = None if args.models is None else args.models.split(",")
    known = set(ours(10**6)) | set(ours(1))
    if models is not None and not set(models) <= known:
        parser.error(
            f"--models: unknown {sorted(set(models) - known)}; known: {sorted(known)}"
        )
    if len(seeds) == 1:
        print("| set | model | test R² | − SGD best | ConvergenceWarning | fit (s) |")
        print("|---|---|---|---|---|---|")
    else:
        print(f"Over seeds {seeds}:\n")
        print(
            "| set | model | mean R² | worst − SGD best | seeds below by > 0.01 "
            "| ConvergenceWarning |"
        )
        print("|---|---|---|---|---|---|")
    for name in args.sets.split(","):
        data = SETS[name]()
        runs = [one_seed(data, seed, models) for seed in seeds]
        best = [next(iter(scores.values()))[0] for scores in runs]
        for position, label in enumerate(runs[0]):
            if len(seeds) > 1 and position == 0:
                label = "SGDRegressor best of grid"
            cells = [list(scores.values())[position] for scores in runs]
            gaps = [score - top for (score, _, _), top in zip(cells, best, strict=True)]
            warned = any(cell[1] for cell in cells)
            if len(seeds) == 1:
                score, _, seconds = cells[0]
                print(
                    f"| {name} | {label} | {score:.4f} | {gaps[0]:+.4f} | "
                    f"{warned} | {seconds:.2f} |",
                    flush=True,
                )
            else:
                mean = np.mean([cell[0] for cell in cells])
                below = sum(gap < -0.01 for gap in gaps)
                print(
                    f"| {name} | {label} | {mean:.4f} | {min(gaps):+.4f} | "
                    f"{below}/{len(seeds)} | {warned} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
