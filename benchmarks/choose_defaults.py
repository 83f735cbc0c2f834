"""How the default step sizes were chosen: one grid, the real datasets, one table.

Run: python benchmarks/choose_defaults.py [adagrad|ftrl]   (needs ../shared/data)

For every dataset and every (step size, damping) on the algorithm's grid (AdaGrad:
eta x delta; FTRL: alpha x beta) it fits with all other parameters at their defaults
(random_state=0) and records the test score (ROC AUC for binary, accuracy for
multiclass, R^2 for regression) and the passes fit ran. A default is good when it is
within a small margin of each dataset's best setting, without tuning.
"""

import sys
import time
import warnings

import _data
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score, r2_score, roc_auc_score

from sk_adaprox import (
    AdaGradClassifier,
    AdaGradRegressor,
    FTRLClassifier,
    FTRLRegressor,
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


if __name__ == "__main__":
    np.set_printoptions(precision=4)
    main(sys.argv[1] if len(sys.argv) > 1 else "adagrad")
