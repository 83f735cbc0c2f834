"""Training on Dask: a 2-worker LocalCluster against one local process, in one run.

    python benchmarks/bench_dask.py [--rows 2000000] [--features-log2 24]
        [--rounds 3] [--quick]

Data: ``make_rare_features(rows + rows / 10, 2**features_log2, random_state=0)``
(about 80 non-zeros a row at 2^24 features), the last tenth for the test AUC,
made on the client and persisted on the workers in 16 partitions before any
timing; the fits pass ``rebalance=True`` (where Dask put more than a worker's
share of the partitions on one, the first fit moves some, once). The model:
``AdaGradClassifier(update="mirror_descent", eta=0.1, l1=0)``, and FTRL at
``alpha=0.1``.

Timed, best of the runs:

- local: one epoch of ``fit(max_iter=1)`` in this process (one core);
- Dask, 2 workers (processes, one thread each): ``DaskEstimator.fit`` with
  ``--rounds`` rounds, each round timed (the state sent at each group's
  features, the workers' passes, the merge; the best is kept); the fixed cost
  of a fit (grouping the partitions, their features and summaries) is the
  rest;
- ``dask_ml.wrappers.Incremental`` over the same partitions (``partial_fit``
  block after block, one process at a time), one epoch, where dask-ml is
  installed;
- the floor of a data-parallel round on this cluster: each worker runs the
  minimal AdaGrad loop of bench_speed over its rows, on a state received from
  the client at the features its rows touch, and returns it; the client adds
  the two increments (NumPy). It moves the same bytes and trains the same
  rows, without validation, intercept, merge rule or checks.

Also printed: the bytes a round sends and receives (the state at each
group's features, both ways) and the test AUC of each model.
"""

# ruff: noqa: E402

from _machine import limit_threads, print_machine

limit_threads()

import argparse
import os
import time
import warnings

import dask.array as da
import numba
import numpy as np
from _report import print_targets
from bench_speed import minimal_adagrad_epoch
from distributed import Client, LocalCluster, wait
from sklearn.metrics import roc_auc_score

from sk_adaprox import AdaGradClassifier, FTRLClassifier
from sk_adaprox.dask import DaskEstimator, _sent_slots
from sk_adaprox.datasets import make_rare_features

minimal_epoch = numba.njit(nogil=True)(minimal_adagrad_epoch.py_func)

MODELS = {
    "AdaGrad": lambda: AdaGradClassifier(
        update="mirror_descent", eta=0.1, l1=0.0, random_state=0
    ),
    "FTRL": lambda: FTRLClassifier(alpha=0.1, l1=0.0, random_state=0),
}
PARTITIONS = 16


def local_epoch(make, X, y, repeats):
    """Best seconds of a one-epoch ``fit`` in this process, and the model."""
    best, model = np.inf, None
    for _ in range(repeats):
        model = make().set_params(max_iter=1, tol=None)
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
        best = min(best, time.perf_counter() - started)
    return best, model


class _TimedRounds(DaskEstimator):
    """DaskEstimator recording each round's seconds (the state sent, the
    workers' passes, the merge)."""

    def _round(self, *args):
        started = time.perf_counter()
        super()._round(*args)
        self.round_seconds_.append(time.perf_counter() - started)


def dask_fit(make, dX, dy, rounds, repeats):
    """``DaskEstimator.fit`` with ``rounds`` rounds: the best round's seconds,
    the best fixed cost of a fit (the rest: grouping the partitions, their
    features and summaries), and the fitted wrapper."""
    best_round, best_fixed, fitted = np.inf, np.inf, None
    for _ in range(repeats):
        fitted = _TimedRounds(make(), max_iter=rounds, rebalance=True)
        fitted.round_seconds_ = []
        started = time.perf_counter()
        fitted.fit(dX, dy)
        total = time.perf_counter() - started
        best_round = min(best_round, min(fitted.round_seconds_))
        best_fixed = min(best_fixed, total - sum(fitted.round_seconds_))
    return best_round, best_fixed, fitted


def groups(client, make, dX, dy):
    """The groups of rows a fit trains (one future per worker) and their
    features, as ``DaskEstimator.fit`` makes them."""
    from sk_adaprox.dask import _features

    wrapper = DaskEstimator(make(), rebalance=True)
    rows = wrapper._persisted_rows(client, dX, dy, None, dX.shape[1])
    features = client.gather([client.submit(_features, part) for part in rows])
    return rows, features


def round_bytes(fitted, features):
    """Bytes a round moves: each group's state at its features (the slots it
    sends, FTRL's weights left out), out and back."""
    model = fitted.to_local()
    slots = _sent_slots(model, model._state.shape[1])
    n_slots = model._state.shape[1] if slots is None else len(slots)
    per_feature = n_slots * model._state.shape[2] * 8
    touched = sum(f.shape[0] + 1 for f in features)
    return 2 * touched * per_feature, touched


def _floor_task(rows, state):
    """The minimal loop over a group's rows (labels +-1) on ``state`` (weights,
    squares at its features): the state after the pass."""
    weights, squares = state
    labels = np.where(rows.y == 1, 1.0, -1.0)
    minimal_epoch(
        rows.X.data, rows.X.indices, rows.X.indptr, labels, weights, squares, 0.1, 1e-6
    )
    return weights, squares


def floor_round(client, rows, features, n_features, repeats):
    """Best seconds of the floor's round over the groups ``rows``."""
    weights, squares = np.zeros(n_features), np.zeros(n_features)

    def one_round():
        futures = [
            client.submit(_floor_task, part, (weights[f], squares[f]), pure=False)
            for part, f in zip(rows, features, strict=True)
        ]
        merged_w, merged_g = weights.copy(), squares.copy()
        for f, (w, g) in zip(features, client.gather(futures), strict=True):
            merged_w[f] += w - weights[f]
            merged_g[f] += g - squares[f]
        return merged_w, merged_g

    one_round()  # compiles the loop on the workers
    best = np.inf
    for _ in range(repeats):
        started = time.perf_counter()
        one_round()
        best = min(best, time.perf_counter() - started)
    return best


def incremental_epoch(make, dX, dy, repeats):
    """Best seconds of one epoch of dask-ml's Incremental (None without it)."""
    try:
        from dask_ml.wrappers import Incremental
    except ImportError:
        return None
    best = np.inf
    for _ in range(repeats):
        wrapper = Incremental(make())
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wrapper.fit(dX, dy, classes=np.array([0, 1]))
        best = min(best, time.perf_counter() - started)
    return best


def auc(model, X, y):
    return roc_auc_score(y, model.decision_function(X))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--features-log2", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="200,000 x 2^20")
    args = parser.parse_args()
    if args.quick:
        args.rows, args.features_log2 = 200_000, 20
    print_machine(sorted(os.sched_getaffinity(0)))
    n_features = 2**args.features_log2
    started = time.perf_counter()
    X_all, y_all = make_rare_features(
        args.rows + args.rows // 10, n_features, random_state=0
    )
    X, y = X_all[: args.rows], y_all[: args.rows]
    X_test, y_test = X_all[args.rows :], y_all[args.rows :]
    print(
        f"data: {X.shape[0]:,} x {n_features:,}, {X.nnz / X.shape[0]:.1f} non-zeros "
        f"a row, made in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    chunk = -(-X.shape[0] // PARTITIONS)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        dX = client.persist(da.from_array(X, chunks=(chunk, n_features), asarray=False))
        dy = client.persist(da.from_array(y, chunks=chunk))
        wait([dX, dy])
        results = {}
        for name, make in MODELS.items():
            local_seconds, local = local_epoch(make, X, y, args.repeats)
            per_round, fixed, fitted = dask_fit(make, dX, dy, args.rounds, args.repeats)
            rows, features = groups(client, make, dX, dy)
            moved, touched = round_bytes(fitted, features)
            one_round_model = DaskEstimator(make(), max_iter=1, rebalance=True)
            one_round_model.fit(dX, dy)
            results[name] = {
                "local epoch": local_seconds,
                "Dask round": per_round,
                "Dask fixed": fixed,
                "bytes a round": moved,
                "features touched": touched,
                "AUC local": auc(local, X_test, y_test),
                "AUC Dask": auc(one_round_model.to_local(), X_test, y_test),
                "Incremental epoch": incremental_epoch(make, dX, dy, 1),
            }
            if name == "AdaGrad":
                results[name]["floor round"] = floor_round(
                    client, rows, features, n_features, args.repeats
                )
            print(name, {k: v for k, v in results[name].items()}, flush=True)
    rows = []
    for name, result in results.items():
        speedup = result["local epoch"] / result["Dask round"]
        rows.append(
            (f"{name}: local epoch / Dask round (2 workers)", speedup, ">= 1.6")
        )
        if result["Incremental epoch"] is not None:
            rows.append(
                (
                    f"{name}: Incremental epoch / Dask round",
                    result["Incremental epoch"] / result["Dask round"],
                    ">= 1.0",
                )
            )
        if "floor round" in result:
            rows.append(
                (
                    f"{name}: local epoch / floor round (the floor's speed-up)",
                    result["local epoch"] / result["floor round"],
                    "info",
                )
            )
        rows.append(
            (f"{name}: Dask fixed cost of a fit, s", result["Dask fixed"], "info")
        )
        rows.append(
            (f"{name}: MB a round moves", result["bytes a round"] / 1e6, "info")
        )
        rows.append(
            (
                f"{name}: test AUC, Dask (1 round) - local",
                result["AUC Dask"] - result["AUC local"],
                "info",
            )
        )
    print_targets("Dask, 2 workers, against one process", rows)


if __name__ == "__main__":
    main()
