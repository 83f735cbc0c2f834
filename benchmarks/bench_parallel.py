"""Every core of one machine: ``n_jobs=2`` against ``n_jobs=1`` in one run.

    python benchmarks/bench_parallel.py [--repeats 3] [--quick]

Each workload is timed with one thread and with two, interleaved, best of
``--repeats``; the model of two threads is checked to equal the model of one to
the bit (the script stops if it does not). The workloads:

- 20 Newsgroups, 20 classes, fixed ``eta`` (no candidates), ``fit``: the
  one-vs-rest outputs trained in two blocks of ten;
- the defaults' first pass (16 candidates, ``fit(max_iter=1)``) on the rare
  160k x 1M set and on 20 Newsgroups comp vs rec (binary): the candidates side
  by side in two groups;
- ``decision_function`` on 200,000 rows of the rare set: rows in two blocks;
- a data-parallel epoch of AdaGrad mirror descent and FTRL at fixed
  parameters on the rare set and on 20 Newsgroups comp vs rec, on two threads
  against serial training on one, with the test ROC AUC of both models:
  ``shards=2`` merged once per pass, ``shards=2`` merged every sixth of the
  rows, and ``shards="hogwild"`` (two threads updating one state at once,
  lock-free, not deterministic);
- the cost of one merge of two shards (AdaGrad mirror descent and FTRL with
  l1, a state of 2**22 features) against the features they touched: a merge
  reads and writes only those.

Four floors, the simplest code doing each kind of work split the same way:

- rows: the simplest Numba loop (a dot product over the rows' non-zeros) over
  the rare set's rows, in two halves on two threads against one; what two
  threads of this machine give for independent work at all;
- outputs: bench_speed's minimal one-vs-rest AdaGrad epoch over 20 Newsgroups,
  20 outputs in one thread against two blocks of 10 outputs on two threads.
  Each block reads every row and touches the same features at random: the
  threads share the memory traffic of the rows, not just the arithmetic;
- candidates: the suite's floor of the defaults' first pass (``_floors.py``:
  the 16 candidates of ``AdaGradClassifier()`` side by side in one read of
  the data), in one thread against two groups of 8 on two threads, each group
  reading every row; on the rare set and on 20 Newsgroups comp vs rec;
- data-parallel epoch: bench_speed's minimal AdaGrad epoch over the rare set's
  rows (shuffled), in one thread against two threads, each over its half of
  the rows on a zero state of its own, the two states then summed: the
  simplest code doing a data-parallel epoch's work.

BLAS and Numba are held to one thread each, so the threads are the only
parallelism.
"""

# ruff: noqa: E402

from _machine import limit_threads, print_machine

limit_threads()

import argparse
import functools
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import scipy.sparse as sp
from _data import CLASSIFICATION_PANEL, news20
from _floors import best_time, fused_da_pass
from _report import print_targets
from bench_scoring import minimal_coef_scores
from bench_speed import minimal_adagrad_epoch, minimal_adagrad_epoch_ovr

# bench_speed's loops, compiled to release the GIL as the package's kernels do.
minimal_epoch_ovr = numba.njit(nogil=True)(minimal_adagrad_epoch_ovr.py_func)
minimal_epoch = numba.njit(nogil=True)(minimal_adagrad_epoch.py_func)
fused_pass = numba.njit(nogil=True)(fused_da_pass.py_func)

from sklearn.metrics import roc_auc_score

from sk_adaprox import AdaGradClassifier, FTRLClassifier

# Fixed parameters of the data-parallel epochs (no "auto" choice).
EPOCH_MODELS = {
    "AdaGrad": lambda: AdaGradClassifier(
        update="mirror_descent", eta=0.1, l1=0.0, max_iter=1, tol=None, random_state=0
    ),
    "FTRL": lambda: FTRLClassifier(
        alpha=0.1, l1=0.0, max_iter=1, tol=None, random_state=0
    ),
}


def paired(make, fit, repeats):
    """Seconds with ``n_jobs=1`` and with 2, interleaved; stops unless the two
    models are the same."""
    seconds = {1: np.inf, 2: np.inf}
    models = {}
    for _ in range(repeats):
        for n_jobs in (1, 2):
            model = make(n_jobs)
            started = time.perf_counter()
            fit(model)
            seconds[n_jobs] = min(seconds[n_jobs], time.perf_counter() - started)
            models[n_jobs] = model
    if models[1]._training != models[2]._training:
        raise SystemExit(f"two threads trained another model than one: {make(1)}")
    return seconds


def floor_seconds(X, repeats, rounds=20):
    """The minimal loop over X's rows ``rounds`` times, in one thread and split
    in two halves of rows on two threads."""
    weights = np.random.default_rng(0).normal(size=X.shape[1])
    out = np.zeros(X.shape[0])
    half = X.shape[0] // 2
    parts = [(0, half), (half, X.shape[0])]

    def part(start, stop):
        indptr = X.indptr[start : stop + 1]
        for _ in range(rounds):
            minimal_coef_scores(X.data, X.indices, indptr, weights, out[start:stop])

    part(0, 10)  # compile
    one = best_time(lambda: [part(*bounds) for bounds in parts], repeats)
    with ThreadPoolExecutor(2) as pool:
        two = best_time(
            lambda: list(pool.map(lambda bounds: part(*bounds), parts)), repeats
        )
    return {1: one, 2: two}


def output_floor_seconds(X, y, repeats):
    """bench_speed's minimal one-vs-rest epoch: every output in one thread, and
    the outputs in two blocks on two threads."""
    labels = np.unique(y, return_inverse=True)[1]
    n_outputs = int(labels.max()) + 1

    def epoch(start, stop):
        weights = np.zeros((X.shape[1], stop - start))
        squares = np.zeros_like(weights)
        in_block = (labels >= start) & (labels < stop)
        block_labels = np.where(in_block, labels - start, -1)
        minimal_epoch_ovr(
            X.data, X.indices, X.indptr, block_labels, weights, squares, 0.3, 0.1
        )

    epoch(0, 2)  # compile
    half = n_outputs // 2
    halves = [(0, half), (half, n_outputs)]
    one = best_time(lambda: epoch(0, n_outputs), repeats)
    with ThreadPoolExecutor(2) as pool:
        two = best_time(
            lambda: list(pool.map(lambda bounds: epoch(*bounds), halves)), repeats
        )
    return {1: one, 2: two}


def candidates_floor_seconds(X, y, repeats):
    """The suite's 16-candidate floor (the candidates of ``AdaGradClassifier()``
    side by side, one read of the rows) in one thread, and in two groups of 8
    candidates on two threads, each group reading every row."""
    labels = np.asarray(y)
    # 100 rows of each class (the sets' rows may come sorted by class).
    rows = np.concatenate([np.flatnonzero(labels == c)[:100] for c in (0, 1)])
    probe = AdaGradClassifier(max_iter=1, tol=None).fit(X[rows], labels[rows])
    eta = np.array([float(c["eta"]) for c in probe.candidate_params_])
    l1 = np.array([float(c["l1"]) for c in probe.candidate_params_])
    half = eta.size // 2
    groups = [slice(0, half), slice(half, eta.size)]

    def group(part, rows=X):
        sums = np.zeros((rows.shape[1], eta[part].size))
        squares = np.zeros_like(sums)
        losses = np.zeros(eta[part].size)
        fused_pass(
            rows.data, rows.indices, rows.indptr, labels, eta[part], l1[part],
            0.1, sums, squares, losses,
        )  # fmt: skip

    group(slice(0, eta.size), X[:10])  # compile
    one = best_time(lambda: group(slice(0, eta.size)), repeats)
    with ThreadPoolExecutor(2) as pool:
        two = best_time(lambda: list(pool.map(group, groups)), repeats)
    return {1: one, 2: two}


def sharded_epoch(make, data, repeats, **params):
    """Seconds of one epoch, serial on one thread (1) and with ``params``
    (``shards``, ...) on two threads (2), interleaved, best of ``repeats``;
    and each model's test AUC."""
    X, y, X_test, y_test = data
    seconds = {1: np.inf, 2: np.inf}
    auc = {}
    for _ in range(repeats):
        for n_jobs in (1, 2):
            model = make()
            if n_jobs == 2:
                model.set_params(n_jobs=2, **params)
            started = time.perf_counter()
            model.fit(X, y)
            seconds[n_jobs] = min(seconds[n_jobs], time.perf_counter() - started)
            auc[n_jobs] = roc_auc_score(y_test, model.decision_function(X_test))
    return seconds, auc


def data_parallel_floor_seconds(X, y, repeats):
    """The minimal epoch over X's rows in one thread, and in two halves on two
    threads with states of their own, summed after (the sum merge)."""
    order = np.random.default_rng(0).permutation(X.shape[0])
    X = X[order]
    signs = np.where(y[order] == 1, 1.0, -1.0)
    half = X.shape[0] // 2
    halves = [(X[:half], signs[:half]), (X[half:], signs[half:])]

    def epoch(rows, targets):
        weights, squares = np.zeros(X.shape[1]), np.zeros(X.shape[1])
        minimal_epoch(
            rows.data, rows.indices, rows.indptr, targets, weights, squares, 0.1, 0.1
        )
        return weights, squares

    def two_threads():
        with ThreadPoolExecutor(2) as pool:
            (w1, g1), (w2, g2) = pool.map(lambda part: epoch(*part), halves)
        return w1 + w2, g1 + g2

    epoch(X[:10], signs[:10])  # compile
    return {
        1: best_time(lambda: epoch(X, signs), repeats),
        2: best_time(two_threads, repeats),
    }


def merge_seconds(repeats, n_features=2**22):
    """{(model, touched per shard): seconds of one merge of two shards}."""
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(([1.0, 1.0], ([0, 1], [0, n_features - 1])), (2, n_features))
    seconds = {}
    for name, model in (
        ("AdaGrad", AdaGradClassifier(update="mirror_descent", eta=0.1, l1=0.0)),
        ("FTRL, l1", FTRLClassifier(alpha=0.1, l1=1.0)),
    ):
        training = model.fit(X, [0, 1])._training
        feature_map = np.full(n_features, -1, dtype=np.int64)
        for touched in (10**3, 10**4, 10**5, 10**6):
            shards = []
            for _ in range(2):
                features = rng.choice(n_features, touched, replace=False)
                shard = training.gather(features)
                shard.array += rng.uniform(0.0, 0.1, shard.array.shape)
                shard.t += 100
                shards.append((features, shard))

            seconds[name, touched] = best_time(
                functools.partial(
                    _merge_and_undo, training, shards, model._merge_shards, feature_map
                ),
                repeats,
            )
    return seconds


def _merge_and_undo(training, shards, rule, feature_map):
    training.undo(training.merge(shards, rule, feature_map))


def data_parallel(rare, binary, repeats):
    """The data-parallel rows: {name: ({1: s, 2: s}, {1: auc, 2: auc})}: two
    shards merged once per pass, two shards merged 3 times per pass (every
    sixth of the rows), and Hogwild."""
    rows = {}
    for set_name, data in (("rare", rare), ("20 NG binary", binary)):
        sync = data[0].shape[0] // 6
        ways = {
            "shards=2": {"shards": 2},
            f"shards=2, sync_rows={sync}": {"shards": 2, "sync_rows": sync},
            "hogwild": {"shards": "hogwild"},
        }
        for model_name, make in EPOCH_MODELS.items():
            for way, params in ways.items():
                rows[f"{way}, {model_name}, {set_name}"] = sharded_epoch(
                    make, data, repeats, **params
                )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="smaller data")
    args = parser.parse_args()
    print_machine(sorted(os.sched_getaffinity(0)))
    X20, y20, _, _ = news20(max_features=20_000 if args.quick else None)
    rare = CLASSIFICATION_PANEL["rare_20k" if args.quick else "rare_160k"]()
    binary = CLASSIFICATION_PANEL["news_comp_rec"]()
    results = {}
    results["floor, rows"] = floor_seconds(rare[0], args.repeats)
    results["floor, data-parallel epoch (rare)"] = data_parallel_floor_seconds(
        rare[0], rare[1], args.repeats
    )
    results["floor, outputs (20 NG epoch)"] = output_floor_seconds(
        X20, y20, args.repeats
    )
    for name, (X, y, _, _) in (("rare", rare), ("20 NG binary", binary)):
        results[f"floor, 16 candidates in 2 groups ({name})"] = (
            candidates_floor_seconds(X, y, args.repeats)
        )
    results["20 NG, 20 classes, fit"] = paired(
        lambda n: AdaGradClassifier(
            eta=0.3, l1=0.0, max_iter=5, tol=None, random_state=0, n_jobs=n
        ),
        lambda model: model.fit(X20, y20),
        args.repeats,
    )
    for name, (X, y, _, _) in (("rare", rare), ("20 NG binary", binary)):
        for cls in (AdaGradClassifier, FTRLClassifier):
            results[f"first pass, {cls.__name__}, {name}"] = paired(
                lambda n, c=cls: c(max_iter=1, tol=None, random_state=0, n_jobs=n),
                lambda model, X=X, y=y: model.fit(X, y),
                args.repeats,
            )
    X_test = rare[2]
    scorer = FTRLClassifier(l1=0.0).fit(rare[0], rare[1])
    results["decision_function, rare"] = {
        n: best_time(
            lambda n=n: scorer.set_params(n_jobs=n).decision_function(X_test),
            args.repeats,
        )
        for n in (1, 2)
    }
    epochs = data_parallel(rare, binary, args.repeats)
    merges = merge_seconds(args.repeats)
    print("\n== Seconds, one thread and two (best of the runs)")
    for name, seconds in results.items():
        print(f"  {name:<44} {seconds[1]:8.3f}  {seconds[2]:8.3f}")
    print("\n== Data-parallel epochs: seconds and test AUC, serial and two threads")
    for name, (seconds, auc) in epochs.items():
        print(
            f"  {name:<44} {seconds[1]:8.3f}  {seconds[2]:8.3f}   AUC "
            f"{auc[1]:.4f} -> {auc[2]:.4f} ({auc[2] - auc[1]:+.4f})"
        )
    print("\n== One merge of two shards (and its undo), by features each touched")
    for (name, touched), seconds in merges.items():
        per = seconds / (2 * touched) * 1e9
        print(
            f"  {name:<10} {touched:>9,} features  {seconds:8.4f} s  {per:6.1f} ns each"
        )
    rows = []
    for name, seconds in results.items():
        target = ">= 1.7" if "pass" in name or "fit" in name else "info"
        rows.append((f"{name}, 1 / 2 threads", _speedup(seconds), target))
    for name, (seconds, auc) in epochs.items():
        rows.append((f"{name}, serial / 2 threads", _speedup(seconds), ">= 1.8"))
        rows.append((f"{name}, test AUC - serial's", auc[2] - auc[1], ">= -0.002"))
    print_targets("Summary (speed-up of two threads)", rows)


def _speedup(seconds):
    return seconds[1] / seconds[2]


if __name__ == "__main__":
    main()
