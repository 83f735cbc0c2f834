"""How the default step sizes were chosen: one grid, the real datasets, one table.

Run: python benchmarks/studies/choose_defaults.py [adagrad|ftrl|ons [name parts,...]]
(needs ../shared/data)

For every dataset and every (step size, damping) on the algorithm's grid (AdaGrad:
eta x delta; FTRL: alpha x beta) it fits with all other parameters at their defaults
(random_state=0) and records the test score (ROC AUC for binary, accuracy for
multiclass, R^2 for regression) and the passes fit ran. A default is good when it is
within a small margin of each dataset's best setting, without tuning.

``ons`` (the Online Newton Step, gamma x eps) runs every ``matrix`` ("full", "diag",
"sketch") on standardised data, once for one pass (max_iter=1, tol=None) and once
fitted to convergence (max_iter=1000, tol=1e-3; skipped where one pass is 0.5
or more below the best, which no default can be), prints each dataset's offline
reference (Ridge / LogisticRegression) and the theory's gamma and eps
(ALGORITHMS.md §3), then the worst shortfall of every (gamma, eps) from the best
cell of each (dataset, matrix, run). All of it takes about 15 minutes on two cores;
``ons cal,a9a`` (parts of dataset names) runs only those.
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

# The shared helpers (_data, ...) are in benchmarks/, one folder up.
# ruff: noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _data
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import accuracy_score, r2_score, roc_auc_score

from sk_adaprox import (
    AdaGradClassifier,
    AdaGradRegressor,
    FTRLClassifier,
    FTRLRegressor,
    ONSClassifier,
    ONSRegressor,
)

GRIDS = {
    # estimators, (step name, values), (damping name, values)
    "adagrad": (
        (AdaGradClassifier, AdaGradRegressor),
        ("eta", [0.01, 0.03, 0.1, 0.3, 1.0, 3.0]),
        ("delta", [1e-8, 1e-6, 1e-3, 0.1, 1.0]),
    ),
    "ftrl": (
        (FTRLClassifier, FTRLRegressor),
        ("alpha", [0.01, 0.03, 0.1, 0.3, 1.0, 3.0]),
        ("beta", [1e-3, 0.1, 1.0, 10.0]),
    ),
}
DATASETS = {
    "rcv1 (tf-idf)": (_data.rcv1_small, "auc"),
    "reuters money-fx (tf-idf)": (_data.reuters_moneyfx, "auc"),
    "sms spam (tf-idf)": (_data.sms_spam_tfidf, "auc"),
    "a9a (one-hot)": (_data.a9a, "auc"),
    "a9a (hashed one-hot, 2^18)": (_data.a9a_hashed, "auc"),
    "agaricus (one-hot)": (_data.agaricus, "auc"),
    "ijcnn1 (standardised)": (_data.ijcnn1_standardized, "auc"),
    "cal housing (standardised)": (_data.cal_housing_standardized, "r2"),
    "abalone (standardised)": (_data.abalone_standardized, "r2"),
    "20 newsgroups (tf-idf)": (_data.news20, "accuracy"),
}


def score(metric, model, X_test, y_test):
    if metric == "auc":
        return roc_auc_score(y_test, model.decision_function(X_test))
    if metric == "accuracy":
        return accuracy_score(y_test, model.predict(X_test))
    return r2_score(y_test, model.predict(X_test))


def main(algorithm):
    (classifier, regressor), (step, steps), (damping, dampings) = GRIDS[algorithm]
    warnings.simplefilter("ignore", ConvergenceWarning)
    for name, (load, metric) in DATASETS.items():
        X, y, X_test, y_test = load()
        estimator = regressor if metric == "r2" else classifier
        print(f"\n{name}: {X.shape[0]} x {X.shape[1]}, test {metric}", flush=True)
        print(f"{step} \\ {damping} " + "".join(f"{d:>16g}" for d in dampings))
        for step_value in steps:
            cells = []
            for damping_value in dampings:
                params = {step: step_value, damping: damping_value}
                started = time.perf_counter()
                model = estimator(**params, random_state=0).fit(X, y)
                seconds = time.perf_counter() - started
                value = score(metric, model, X_test, y_test)
                cells.append(f"{value:.4f} ({model.n_iter_:>3}p{seconds:4.1f}s)")
            print(f"{step_value:<12g}" + "".join(f"{c:>16}" for c in cells), flush=True)


# -- Online Newton Step ------------------------------------------------------------

ONS_GAMMAS = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0]
ONS_EPSILONS = [0.01, 0.1, 1.0, 10.0, 30.0, 100.0, 300.0, 1000.0]
ONS_MATRICES = ["full", "diag", "sketch"]
ONS_RUNS = {
    "one pass": dict(max_iter=1, tol=None),
    "converged": dict(max_iter=1000, tol=1e-3),
}
ONS_DATASETS = {
    "cal housing (standardised)": (_data.cal_housing_standardized, "r2"),
    "million song (standardised)": (_data.millionsong_standardized, "r2"),
    "abalone (standardised)": (_data.abalone_standardized, "r2"),
    "synthetic regression (standardised)": (
        _data.synthetic_regression_standardized,
        "r2",
    ),
    "synthetic low-rank regression (d=100, standardised)": (
        _data.synthetic_low_rank_regression_standardized,
        "r2",
    ),
    "a9a (one-hot)": (_data.a9a, "auc"),
    "synthetic classification (standardised)": (
        _data.synthetic_classification_standardized,
        "auc",
    ),
}


def theory_gamma_eps(X, y, metric):
    """ALGORITHMS.md §3's gamma = min(1/(4 G D), alpha)/2 and eps = 1/(gamma D)^2
    for the ball of radius rho = ||offline solution (coef, intercept)|| (diameter
    D = 2 rho), G and alpha over the rows with |score| <= rho ||x~||."""
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    if metric == "r2":
        offline = Ridge().fit(X, y)
    else:
        offline = LogisticRegression(max_iter=1000).fit(X, y)
    rho = float(np.linalg.norm(np.r_[np.ravel(offline.coef_), offline.intercept_]))
    norms = np.sqrt(np.einsum("ij,ij->i", X, X) + 1.0)  # ||[x, 1]||
    if metric == "r2":  # l = (p - y)^2 / 2: |l'| = |p - y|, l''/l'^2 = 1/(p - y)^2
        residual = rho * norms + np.abs(y)
        G = float(np.max(residual * norms))
        alpha = float(1.0 / np.max(residual) ** 2)
    else:  # log loss: |l'| <= 1, l''/l'^2 = exp(y p) >= exp(-rho ||x~||)
        G = float(np.max(norms))
        alpha = float(np.exp(-rho * np.max(norms)))
    D = 2.0 * rho
    gamma = 0.5 * min(1.0 / (4.0 * G * D), alpha)
    return offline, rho, G, alpha, gamma, 1.0 / (gamma * D) ** 2


def main_ons(only=""):
    """Every dataset whose name contains one of the comma-separated ``only``."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    scores = {}  # (dataset, matrix, run) -> {(gamma, eps): score}
    for name, (load, metric) in ONS_DATASETS.items():
        if not any(part in name for part in only.split(",")):
            continue
        X, y, X_test, y_test = load()
        estimator = ONSRegressor if metric == "r2" else ONSClassifier
        offline, rho, G, alpha, gamma_th, eps_th = theory_gamma_eps(X, y, metric)
        reference = score(metric, offline, X_test, y_test)
        print(
            f"\n== {name}: {X.shape[0]} x {X.shape[1]}, test {metric}; offline "
            f"{type(offline).__name__} {reference:.4f}; theory: rho={rho:.3g} "
            f"G={G:.3g} alpha={alpha:.3g} -> gamma={gamma_th:.3g} eps={eps_th:.3g}",
            flush=True,
        )
        for matrix in ONS_MATRICES:
            for run, passes in ONS_RUNS.items():
                theory = []
                for radius in (None, rho):
                    model = estimator(
                        matrix=matrix,
                        gamma=gamma_th,
                        eps=eps_th,
                        radius=radius,
                        random_state=0,
                        **passes,
                    ).fit(X, y)
                    theory.append(f"{score(metric, model, X_test, y_test):.4f}")
                print(
                    f"\n{matrix}, {run}  (theory's gamma, eps: {theory[0]}; with "
                    f"radius=rho: {theory[1]})"
                )
                print("gamma \\ eps" + "".join(f"{e:>17g}" for e in ONS_EPSILONS))
                one_pass = scores.get((name, matrix, "one pass"))
                cells = scores[name, matrix, run] = {}
                for gamma in ONS_GAMMAS:
                    row = []
                    for eps in ONS_EPSILONS:
                        if (
                            one_pass
                            and one_pass[gamma, eps] < max(one_pass.values()) - 0.5
                        ):
                            # Hopeless in one pass, so no candidate default: its
                            # fit would mostly run all 1000 passes for nothing.
                            cells[gamma, eps] = -np.inf
                            row.append("(skipped)")
                            continue
                        model = estimator(
                            matrix=matrix,
                            gamma=gamma,
                            eps=eps,
                            random_state=0,
                            **passes,
                        )
                        started = time.perf_counter()
                        try:
                            model.fit(X, y)
                        except ValueError:  # the divergence guard
                            cells[gamma, eps] = -np.inf
                            row.append("diverged")
                            continue
                        seconds = time.perf_counter() - started
                        value = score(metric, model, X_test, y_test)
                        cells[gamma, eps] = value
                        row.append(
                            f"{max(value, -9.9999):.4f} ({model.n_iter_:>3}p"
                            f"{min(seconds, 99.9):4.1f}s)"
                        )
                    print(f"{gamma:<11g}" + "".join(f"{c:>17}" for c in row))
                print(flush=True)
    summarize_ons(scores)


def summarize_ons(scores):
    """Worst shortfall of each (gamma, eps) from the best cell, over every
    (dataset, run) of one matrix and over everything; then where the estimators'
    own defaults fall short."""
    groups = {matrix: [] for matrix in ONS_MATRICES}
    for (_, matrix, _), cells in scores.items():
        best = max(cells.values())
        groups[matrix].append({key: best - value for key, value in cells.items()})
    groups["all three"] = [s for matrix in ONS_MATRICES for s in groups[matrix]]
    for group, shortfalls in groups.items():
        print(f"\nworst shortfall from the best, matrix {group} (all datasets, runs)")
        print("gamma \\ eps" + "".join(f"{e:>10g}" for e in ONS_EPSILONS))
        for gamma in ONS_GAMMAS:
            worst = [max(s[gamma, eps] for s in shortfalls) for eps in ONS_EPSILONS]
            print(f"{gamma:<11g}" + "".join(f"{min(w, 9.9999):>10.4f}" for w in worst))
    defaults = ONSRegressor().gamma, ONSRegressor().eps
    if defaults in next(iter(scores.values())):
        print(f"\nthe defaults gamma={defaults[0]:g}, eps={defaults[1]:g}:")
        for (name, matrix, run), cells in scores.items():
            value, best = cells[defaults], max(cells.values())
            print(f"  {name}, {matrix}, {run}: {value:.4f} (best {best:.4f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "algorithm", nargs="?", default="adagrad", choices=[*GRIDS, "ons"]
    )
    parser.add_argument(
        "only", nargs="?", default="", help="ons: parts of dataset names, a,b,..."
    )
    args = parser.parse_args()
    np.set_printoptions(precision=4)
    if args.algorithm == "ons":
        main_ons(args.only)
    else:
        main(args.algorithm)
