"""GridSearchCV on joblib's threading backend: 1 job against 2 (issue 13, "Also").

Run: python benchmarks/bench_threads.py [--repeats N]

The kernels release the GIL (``nogil=True``), so two threads fitting two models
run at once. The search: ``AdaGradClassifier`` over 8 settings (eta x l1), 3-fold,
on ``make_rare_features(20000, 100000)``; ``SGDClassifier`` over 8 alphas next to
it. Each figure is the best of ``--repeats`` wall-clock times; BLAS and Numba are
held to one thread so that the jobs are the only parallelism. Needs 2 free cores.
"""

# ruff: noqa: E402

from _machine import limit_threads

limit_threads()

import argparse
import time

from _report import print_targets
from joblib import parallel_backend
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import GridSearchCV

from sk_adaprox import AdaGradClassifier
from sk_adaprox.datasets import make_rare_features


def search_seconds(estimator, grid, X, y, n_jobs, repeats):
    best = float("inf")
    for _ in range(repeats):
        search = GridSearchCV(estimator, grid, cv=3, scoring="roc_auc", n_jobs=n_jobs)
        started = time.perf_counter()
        with parallel_backend("threading", n_jobs=n_jobs):
            search.fit(X, y)
        best = min(best, time.perf_counter() - started)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    X, y = make_rare_features(20000, 100000, random_state=0)
    contenders = {
        "AdaGradClassifier": (
            AdaGradClassifier(
                update="mirror_descent", max_iter=5, tol=None, random_state=0
            ),
            {"eta": [0.1, 0.3, 1.0, 3.0], "l1": [0.0, 1e-5]},
        ),
        "SGDClassifier": (
            SGDClassifier(loss="log_loss", max_iter=5, tol=None, random_state=0),
            {"alpha": [1e-7, 1e-6, 1e-5, 1e-4], "penalty": ["l2", "l1"]},
        ),
    }
    search_seconds(*contenders["AdaGradClassifier"], X, y, 1, 1)  # compile
    rows = []
    for name, (estimator, grid) in contenders.items():
        one = search_seconds(estimator, grid, X, y, 1, args.repeats)
        two = search_seconds(estimator, grid, X, y, 2, args.repeats)
        print(f"{name}: 1 job {one:.2f} s, 2 jobs {two:.2f} s")
        rows.append((f"{name} speed-up, 2 threads / 1", one / two, "info"))
    rows[0] = (rows[0][0], rows[0][1], ">= 1.5")
    print_targets("GridSearchCV on threads", rows)


if __name__ == "__main__":
    main()
