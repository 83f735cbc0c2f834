"""Kernels release the GIL: models trained in threads at once are the models
trained one at a time, and GridSearchCV runs on joblib's threading backend."""

import threading

import numpy as np
import pytest
from estimators import ALGORITHMS, make, state_of
from joblib import parallel_backend
from sklearn.model_selection import GridSearchCV

from sk_adaprox.datasets import make_rare_features

# Seconds per test: every algorithm fitted twice on wider data, in threads.
pytestmark = pytest.mark.slow


def _problem(seed):
    X, y = make_rare_features(600, 400, random_state=seed)
    rng = np.random.default_rng(seed)
    return X, y, X @ rng.normal(size=X.shape[1])


def _fit(estimator, kind, X, y_class, y_real):
    y = y_real if kind == "regressor" else y_class
    estimator.fit(X, y)
    estimator.partial_fit(X[:50], y[:50])
    return estimator


def _assert_threads_give_sequential_models(build, kind, problems):
    """Models from ``build()`` fitted in one thread each, all at once, equal the
    same models fitted one at a time."""
    sequential = [
        _fit(est, kind, *problem)
        for est, problem in zip(build(), problems, strict=True)
    ]
    concurrent = build()
    start = threading.Barrier(len(problems))
    errors = []

    def work(est, problem):
        try:
            start.wait()
            _fit(est, kind, *problem)
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)

    threads = [
        threading.Thread(target=work, args=pair)
        for pair in zip(concurrent, problems, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    for alone, together in zip(sequential, concurrent, strict=True):
        expected, got = state_of(alone), state_of(together)
        for name in expected:
            np.testing.assert_array_equal(got[name], expected[name], err_msg=name)
        assert together.t_ == alone.t_


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_concurrent_fits_equal_sequential_fits(algorithm, kind):
    problems = [_problem(seed) for seed in range(4)]

    def build():
        return [
            make(algorithm, kind, max_iter=3, tol=None, random_state=i, l1=1e-4)
            for i in range(len(problems))
        ]

    _assert_threads_give_sequential_models(build, kind, problems)


@pytest.mark.parametrize("algorithm", ["adagrad_da", "ftrl"])
def test_concurrent_default_fits_equal_sequential_fits(algorithm):
    # The defaults choose among candidates run side by side in one kernel.
    problems = [_problem(seed) for seed in range(4)]

    def build():
        return [
            make(
                algorithm,
                "classifier",
                step_size="auto",
                l1="auto",
                max_iter=3,
                tol=None,
                random_state=i,
            )
            for i in range(len(problems))
        ]

    _assert_threads_give_sequential_models(build, "classifier", problems)


def test_grid_search_on_threads_equals_one_job():
    X, y, _ = _problem(0)
    grid = {"eta": [0.03, 0.1, 0.3, 1.0], "l1": [0.0, 1e-4]}
    searches = []
    for n_jobs in (1, 2):
        search = GridSearchCV(
            make("adagrad_md", "classifier", max_iter=5, tol=None, random_state=0),
            grid,
            scoring="roc_auc",
            n_jobs=n_jobs,
        )
        with parallel_backend("threading", n_jobs=n_jobs):
            searches.append(search.fit(X, y))
    one, two = searches
    np.testing.assert_array_equal(
        one.cv_results_["mean_test_score"], two.cv_results_["mean_test_score"]
    )
    assert one.best_params_ == two.best_params_
