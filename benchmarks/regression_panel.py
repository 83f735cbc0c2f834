"""Regressors' defaults against SGDRegressor's alpha grid, raw targets (issue 13).

Run: python benchmarks/regression_panel.py [--sets a,b,...]

Every set has X standardised on its training split and the target as it comes
(dollars, years, rings, a rating in [0, 1], make_regression's std of ~200). Each
sk_adaprox regressor runs at its defaults; the reference is the best test R^2 of
``SGDRegressor`` over alpha in {1e-7 ... 1e-3} x penalty {l2, l1} (a ceiling,
picked on the test set). Target: within 0.01 of it, with no ConvergenceWarning.
"""

import argparse
import time
import warnings

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


def ours(n_features):
    models = {
        "AdaGradRegressor()": AdaGradRegressor(random_state=0),
        "FTRLRegressor()": FTRLRegressor(random_state=0),
        "ONSRegressor()": ONSRegressor(random_state=0),
        "ONSRegressor(matrix='diag')": ONSRegressor(matrix="diag", random_state=0),
        "CoinBettingRegressor()": CoinBettingRegressor(random_state=0),
        "CoinBettingRegressor(update='cocob')": CoinBettingRegressor(
            update="cocob", random_state=0
        ),
    }
    if n_features <= 2000:
        models["ONSRegressor(matrix='full')"] = ONSRegressor(
            matrix="full", random_state=0
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    args = parser.parse_args()
    print("| set | model | test R² | − SGD best | ConvergenceWarning | fit (s) |")
    print("|---|---|---|---|---|---|")
    for name in args.sets.split(","):
        X, y, X_test, y_test = SETS[name]()
        sgd = {}
        for penalty in ("l2", "l1"):
            for alpha in (1e-7, 1e-6, 1e-5, 1e-4, 1e-3):
                model = SGDRegressor(alpha=alpha, penalty=penalty, random_state=0)
                sgd[(penalty, alpha)] = fitted_score(model, X, y, X_test, y_test)[0]
        best = max(sgd, key=sgd.get)
        print(f"| {name} | SGDRegressor best {best} | {sgd[best]:.4f} | 0 | - | - |")
        default = fitted_score(SGDRegressor(random_state=0), X, y, X_test, y_test)
        print(
            f"| {name} | SGDRegressor() | {default[0]:.4f} | "
            f"{default[0] - sgd[best]:+.4f} | {default[1]} | {default[2]:.2f} |"
        )
        for label, model in ours(X.shape[1]).items():
            score, warned, seconds = fitted_score(model, X, y, X_test, y_test)
            print(
                f"| {name} | {label} | {score:.4f} | {score - sgd[best]:+.4f} | "
                f"{warned} | {seconds:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
