"""sk_adaprox against the libraries its users would pick instead, side by side.

Run (after ``pip install ".[bench]"``, which installs the peers):

    python benchmarks/suite.py --quick   # under a minute: small data, every system
    python benchmarks/suite.py --full --cpu 1 --publish docs/performance.md

Each run writes ``results.md`` (the tables), ``results.json`` (every number) and
``throughput_auc.png`` (throughput against test quality, one point per system and
dataset) to ``--out`` (default ``benchmarks/results/<quick|full>``); ``--publish``
also writes the tables into the docs page and, beside it, the plot and one plot
per dataset.
``--report results.json`` re-writes the tables of an earlier run.

Protocol
--------
- The process is pinned to one core (``--cpu``) and every library is asked for one
  thread (Vowpal Wabbit's C++ driver still runs its parser in a second thread, on
  the same core); the tables say how many threads each system ran.
- The training rows are shuffled once (seed 0; some files list them by class)
  and every system reads them in that order.
- Each system's input is converted first (VW text and cache files, River dicts,
  datatable Frames); the conversion is timed apart and not counted in training.
- Throughput: one epoch (a fresh model, one pass in row order), the best of
  ``--repeats`` rounds; the rounds interleave the systems, so that other work on
  the machine hurts them alike. A system whose epoch takes longer than ``--slow``
  seconds runs one round only. The test scores are the last round's model's.
- Peak memory: the rise of the process's peak resident set from before the
  model is made to the end of its epoch, in the last round (native allocations
  included; ``/proc/self/clear_refs`` resets the peak, and glibc's
  ``malloc_trim`` first returns freed pages, so that reused pages do not hide
  new memory). Memory a model reserves but never touches is not counted.
- sk_adaprox runs without regularisation at a fixed step here (AdaGrad ``eta=0.1``,
  FTRL ``alpha=0.1, beta=0.1``) so that the arithmetic is the peers'; their
  defaults, which choose parameters in the first pass, are measured by time to
  target. VW's ``--ftrl`` also runs at FTRL's settings: the same algorithm, so
  the same model, at VW's speed.
- Time to target (classification): the target is the best test quality of
  ``SGDClassifier(loss="log_loss")`` over alpha in {1e-7, ..., 1e-3} x penalty in
  {l2, l1}, each fitted to its ``tol`` (a ceiling picked on the test set). Each
  system then trains at its defaults epoch after epoch (up to ``--epochs``, or
  until it has spent ``--budget`` seconds training), scored after each epoch;
  reported: the first epoch whose test quality reaches the target, and the
  training seconds spent until then (kernels compiled beforehand, on 200
  rows: Numba compiles once per process). On the rare-feature sets, a floor
  for the defaults' first pass is timed too: a minimal loop that keeps their 16
  candidates side by side in one read of the data (``_floors.py``). SGD's own
  time is that of the best grid point's fit, which reaches the target by
  definition (and its epochs).
- Quality: test ROC AUC and log loss (binary), accuracy and log loss
  (multiclass), R^2 (regression).
"""

# ruff: noqa: E402
import sys
from pathlib import Path

# The helpers (_machine, _data, ...) are in this folder, wherever suite is run from.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _machine import cpu_model, limit_threads

if __name__ == "__main__":  # one thread per library (not when imported by tests)
    limit_threads()

import argparse
import contextlib
import ctypes
import datetime
import gc
import json
import math
import os
import platform
import re
import subprocess
import tempfile
import time
import warnings
from dataclasses import dataclass, field

import _data
import _suite_report
import numpy as np
import scipy.sparse as sp
from _floors import fused_floor
from _systems import Datatable, Estimator, River, VowpalWabbit, one_pass
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier, SGDRegressor
from sklearn.metrics import accuracy_score, log_loss, r2_score, roc_auc_score
from sklearn.model_selection import train_test_split

from sk_adaprox import (
    AdaGradClassifier,
    AdaGradRegressor,
    CoinBettingClassifier,
    CoinBettingRegressor,
    FTRLClassifier,
    FTRLRegressor,
    ONSClassifier,
    ONSRegressor,
)
from sk_adaprox.datasets import make_rare_features

# -- datasets --------------------------------------------------------------------------


@dataclass
class Dataset:
    name: str
    task: str  # "binary", "multiclass" or "regression"
    X: object
    y: np.ndarray
    X_test: object
    y_test: np.ndarray
    classes: np.ndarray = field(default=None)

    @property
    def n_features(self):
        return self.X.shape[1]

    @property
    def nnz(self):
        return self.X.nnz if sp.issparse(self.X) else int(np.count_nonzero(self.X))


def _rare(n_train, n_features):
    def load():
        X, y = make_rare_features(n_train + n_train // 4, n_features, random_state=0)
        return X[:n_train], y[:n_train], X[n_train:], y[n_train:]

    return load


def _subsample(X, y, n_rows, task):
    """At most ``n_rows`` rows of (X, y): a subsample, stratified for
    classification, random_state 0."""
    if X.shape[0] <= n_rows:
        return X, y
    stratify = None if task == "regression" else y
    X, _, y, _ = train_test_split(
        X, y, train_size=n_rows, stratify=stratify, random_state=0
    )
    return X, y


def _capped(loader, n_train, n_test, task):
    """``loader``'s data with at most ``n_train`` training and ``n_test`` test
    rows: the quick run's size."""

    def load():
        X, y, X_test, y_test = loader()
        X, y = _subsample(X, y, n_train, task)
        X_test, y_test = _subsample(X_test, y_test, n_test, task)
        return X, y, X_test, y_test

    return load


# name: (task, loader, in the quick run)
DATASETS = {
    "rare 16k x 50k": ("binary", _rare(16_000, 50_000), True),
    "rare 160k x 1M": ("binary", _rare(160_000, 1_000_000), False),
    "20 NG comp vs rec": ("binary", _data.news20_comp_vs_rec, False),
    "20 NG 20 classes": ("multiclass", _data.news20, False),
    "Reuters money-fx": ("binary", _data.reuters_moneyfx, False),
    "RCV1 subset": ("binary", _data.rcv1_small, False),
    "a9a": ("binary", _data.a9a, True),
    "w8a": ("binary", _data.w8a, False),
    "ijcnn1": ("binary", _data.ijcnn1_standardized, False),
    "California": ("regression", _data.cal_housing_standardized, True),
    "Million Song": ("regression", _data.millionsong_standardized, False),
    "scale-data": ("regression", _data.scaledata_tfidf, False),
}
# --quick cuts the real sets to this many training and test rows
QUICK_TRAIN_ROWS, QUICK_TEST_ROWS = 8_000, 4_000
RARE_SETS = ("rare 160k x 1M", "rare 16k x 50k", "RCV1 subset", "20 NG comp vs rec")


def load_dataset(name, quick):
    task, loader, _ = DATASETS[name]
    if quick and not name.startswith("rare"):
        loader = _capped(loader, QUICK_TRAIN_ROWS, QUICK_TEST_ROWS, task)
    X, y, X_test, y_test = loader()
    if sp.issparse(X):
        X, X_test = X.tocsr(), X_test.tocsr()
    # Some files list their rows by class (20 Newsgroups); one pass in that order
    # would learn one class, then the other. Every system reads the same shuffle.
    order = np.random.default_rng(0).permutation(X.shape[0])
    X, y = X[order], np.asarray(y)[order]
    classes = None
    if task != "regression":
        classes, y = np.unique(y, return_inverse=True)
        y_test = np.searchsorted(classes, y_test)
        classes = np.arange(classes.shape[0])
    else:
        y, y_test = y.astype(float), y_test.astype(float)
    return Dataset(name, task, X, y, X_test, y_test, classes)


# -- systems ---------------------------------------------------------------------------


VW_FTRL_SAME = "VW C++ cache --ftrl alpha=beta=0.1"


def throughput_systems():
    """The systems timed per epoch: ours unregularised at a fixed step, peers at
    their defaults."""

    def ours(classifier, regressor, **params):
        def make(data):
            cls = regressor if data.task == "regression" else classifier
            extra = {"normalize_y": False} if data.task == "regression" else {}
            return one_pass(cls(**params, **extra))

        return make

    def sgd(data):
        cls = SGDRegressor if data.task == "regression" else SGDClassifier
        loss = {} if data.task == "regression" else {"loss": "log_loss"}
        return one_pass(cls(**loss))

    def sgd_stream(data):
        cls = SGDRegressor if data.task == "regression" else SGDClassifier
        loss = {} if data.task == "regression" else {"loss": "log_loss"}
        return cls(**loss, max_iter=1, shuffle=False)

    adagrad = {"eta": 0.1, "l1": 0.0}
    return [
        Estimator(
            "AdaGrad MD",
            "sk_adaprox",
            ours(
                AdaGradClassifier,
                AdaGradRegressor,
                update="mirror_descent",
                **adagrad,
            ),
        ),
        Estimator(
            "AdaGrad DA",
            "sk_adaprox",
            ours(
                AdaGradClassifier,
                AdaGradRegressor,
                update="dual_averaging",
                **adagrad,
            ),
        ),
        Estimator(
            "FTRL",
            "sk_adaprox",
            ours(FTRLClassifier, FTRLRegressor, alpha=0.1, l1=0.0),
        ),
        Estimator(
            "ONS diag", "sk_adaprox", ours(ONSClassifier, ONSRegressor, matrix="diag")
        ),
        Estimator(
            "Coin betting",
            "sk_adaprox",
            ours(CoinBettingClassifier, CoinBettingRegressor),
        ),
        Estimator(
            "ONS full",
            "sk_adaprox",
            ours(ONSClassifier, ONSRegressor, matrix="full"),
            dense_only=True,
        ),
        Estimator("SGD fit", "scikit-learn", sgd),
        Estimator("SGD partial_fit", "scikit-learn", sgd_stream, chunk=1000),
        VowpalWabbit("VW Python", "python"),
        VowpalWabbit("VW Python --ftrl", "python", "--ftrl"),
        VowpalWabbit("VW C++ cache", "cache"),
        VowpalWabbit("VW C++ cache --ftrl", "cache", "--ftrl"),
        # FTRL's settings: the same algorithm, so the same model as ours.
        VowpalWabbit(VW_FTRL_SAME, "cache", "--ftrl --ftrl_alpha 0.1 --ftrl_beta 0.1"),
        River("River AdaGrad", "adagrad"),
        River("River FTRL", "ftrl"),
        River("River AdaGrad learn_many", "adagrad", many=True),
        Datatable(),
    ]


def default_systems():
    """The systems at the defaults a user gets, trained epoch after epoch."""

    def ours(classifier, **params):
        # One pass per epoch; "auto" parameters are chosen in the first.
        return lambda data: one_pass(classifier(random_state=0, **params))

    return [
        Estimator("AdaGrad defaults", "sk_adaprox", ours(AdaGradClassifier)),
        Estimator("FTRL defaults", "sk_adaprox", ours(FTRLClassifier)),
        # n_jobs=2 on two cores: the candidates of the first pass side by side in
        # two groups, multiclass outputs in two blocks (docs/training.md).
        Estimator(
            "AdaGrad defaults n_jobs=2",
            "sk_adaprox",
            ours(AdaGradClassifier, n_jobs=2),
            cores=2,
        ),
        Estimator(
            "FTRL defaults n_jobs=2",
            "sk_adaprox",
            ours(FTRLClassifier, n_jobs=2),
            cores=2,
        ),
        Estimator(
            "ONS diag defaults", "sk_adaprox", ours(ONSClassifier, matrix="diag")
        ),
        Estimator("Coin betting defaults", "sk_adaprox", ours(CoinBettingClassifier)),
        Estimator(
            "SGD defaults",
            "scikit-learn",
            lambda data: SGDClassifier(loss="log_loss", max_iter=1, random_state=0),
            chunk=10**9,  # partial_fit over all rows: one epoch per call
        ),
        VowpalWabbit("VW C++ cache", "cache"),
        VowpalWabbit("VW C++ cache --ftrl", "cache", "--ftrl"),
        River("River AdaGrad", "adagrad"),
        River("River FTRL", "ftrl"),
        Datatable(),
    ]


# -- measuring -------------------------------------------------------------------------


def _resident_kib(field_name):
    with open("/proc/self/status") as handle:
        return int(re.search(rf"{field_name}:\s+(\d+)", handle.read()).group(1))


def _reset_peak():
    """Make the peak resident set start again from the current one (Linux)."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def _release_free_memory():
    """Collect garbage and hand the allocator's free pages back to the OS (glibc's
    ``malloc_trim``), so that the next peak of the resident set counts new memory,
    not pages freed by an earlier run and reused."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def quality(data, outputs):
    """{metric: value} of test outputs."""
    if data.task == "regression":
        return {"r2": float(r2_score(data.y_test, outputs))}
    if data.task == "binary":
        p = np.clip(outputs, 1e-15, 1 - 1e-15)
        return {
            "auc": float(roc_auc_score(data.y_test, p)),
            "log_loss": float(log_loss(data.y_test, p, labels=[0, 1])),
            "accuracy": float(accuracy_score(data.y_test, p >= 0.5)),
        }
    proba = np.clip(outputs, 1e-15, None)
    proba = proba / proba.sum(axis=1, keepdims=True)
    return {
        "accuracy": float(accuracy_score(data.y_test, outputs.argmax(axis=1))),
        "log_loss": float(log_loss(data.y_test, proba, labels=data.classes)),
    }


def primary(data):
    """The metric that ranks systems on ``data``."""
    return {"binary": "auc", "multiclass": "accuracy", "regression": "r2"}[data.task]


def prepare(systems, data, workdir, skipped):
    """Convert ``data`` for each system that can take it; the others go to
    ``skipped`` with the reason."""
    ready = []
    for system in systems:
        reason = system.unavailable() or system.unsupported(data)
        if reason:
            skipped.append({"dataset": data.name, "system": system.name, "why": reason})
            print(f"  skip {system.name}: {reason}", flush=True)
            continue
        started = time.perf_counter()
        system.convert(data, workdir)
        system.conversion_seconds = time.perf_counter() - started
        ready.append(system)
    return ready


def time_epochs(systems, data, repeats, slow):
    """Best-of-``repeats`` one-epoch time of each system, in interleaved rounds,
    and its peak memory in the last round it runs.

    A system whose epoch took more than ``slow`` seconds is not timed again: its
    first time stands (the variance of a long run is small next to its time)."""
    best = {system.name: math.inf for system in systems}
    rounds = {system.name: 0 for system in systems}
    memory = {}
    for round_index in range(repeats):
        # sk_adaprox's systems come first in the list; the first round runs them
        # last, so that the kernels --quick compiles in another process are ready.
        for system in systems if round_index else systems[::-1]:
            if best[system.name] > slow and rounds[system.name]:
                continue
            _release_free_memory()
            tracked = _reset_peak()
            before = _resident_kib("VmRSS") if tracked else 0
            system.new()
            started = time.perf_counter()
            system.epoch()
            elapsed = time.perf_counter() - started
            if tracked:
                memory[system.name] = (_resident_kib("VmHWM") - before) / 1024
            best[system.name] = min(best[system.name], elapsed)
            rounds[system.name] += 1
    rows = []
    for system in systems:
        seconds = best[system.name]
        row = {
            "dataset": data.name,
            "system": system.name,
            "library": system.library,
            "threads": system.threads,
            "seconds_per_epoch": seconds,
            "rounds": rounds[system.name],
            "nnz_per_second": data.nnz / seconds,
            "rows_per_second": data.X.shape[0] / seconds,
            "conversion_seconds": system.conversion_seconds,
            "peak_memory_mib": memory.get(system.name),
            **quality(data, system.outputs()),
            "nonzero_weights": system.nonzero_weights(),
        }
        rows.append(row)
        print(
            f"  {system.name:<26} {seconds:8.4f} s/epoch "
            f"{row['nnz_per_second'] / 1e6:8.2f} M nnz/s "
            f"{primary(data)} {row[primary(data)]:.4f}",
            flush=True,
        )
    return rows


def fit_and_score(model, data):
    """Seconds to ``fit`` a classifier (to its ``tol``) and its test quality."""
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(data.X, data.y)
    seconds = time.perf_counter() - started
    proba = model.predict_proba(data.X_test)
    return seconds, quality(data, proba[:, 1] if data.task == "binary" else proba)


def sgd_grid(data):
    """SGD's grid, each point fitted to its tol: the best test quality (the
    target), its parameters, fit time and epochs."""
    metric = primary(data)
    points = []
    for penalty in ("l2", "l1"):
        for alpha in (1e-7, 1e-6, 1e-5, 1e-4, 1e-3):
            model = SGDClassifier(
                loss="log_loss", alpha=alpha, penalty=penalty, random_state=0
            )
            seconds, score = fit_and_score(model, data)
            points.append(
                {
                    "alpha": alpha,
                    "penalty": penalty,
                    "seconds": seconds,
                    "epochs": int(model.n_iter_),
                    "score": score[metric],
                }
            )
    best = max(points, key=lambda point: point["score"])
    return {
        "target": best["score"],
        "best": best,
        "grid_seconds": sum(point["seconds"] for point in points),
    }


@contextlib.contextmanager
def on_cores(system):
    """Let ``system`` run on its ``cores`` (the suite's core first, then the
    next ones) while inside; the threads it starts inherit the calling
    thread's affinity. No change for a one-core system."""
    if system.cores <= 1 or not hasattr(os, "sched_setaffinity"):
        yield
        return
    pinned = os.sched_getaffinity(0)
    first = min(pinned)
    every = sorted(os.sched_getaffinity(0) | set(range(os.cpu_count() or 1)))
    wanted = [first] + [cpu for cpu in every if cpu != first][: system.cores - 1]
    os.sched_setaffinity(0, set(wanted))
    try:
        yield
    finally:
        os.sched_setaffinity(0, pinned)


class _Named:
    def __init__(self, name):
        self.name = name


# The 16-candidate floor of the defaults' first pass, as --systems names it.
FLOOR = _Named("floor")


def select(systems, patterns):
    """The systems whose name contains one of ``patterns`` (case-insensitive);
    all of them without patterns."""
    if not patterns:
        return systems
    return [s for s in systems if any(p.lower() in s.name.lower() for p in patterns)]


def time_to_target(systems, data, target, max_epochs, budget):
    """Epoch after epoch at each system's defaults: test quality after each, the
    training time spent, and the first epoch reaching ``target``."""
    metric = primary(data)
    rows = []
    for system in systems:
        with on_cores(system):
            system.warm_up()
        system.new()
        spent, curve, reached = 0.0, [], None
        for epoch in range(1, max_epochs + 1):
            gc.collect()
            with on_cores(system):
                started = time.perf_counter()
                system.epoch()
                elapsed = time.perf_counter() - started
            spent = elapsed if system.restarts else spent + elapsed
            score = quality(data, system.outputs())[metric]
            curve.append({"epoch": epoch, "seconds": spent, "score": score})
            if reached is None and score >= target:
                reached = {"epoch": epoch, "seconds": spent}
                break
            if spent > budget:
                break
        rows.append(
            {
                "dataset": data.name,
                "system": system.name,
                "target": target,
                "reached": reached,
                "best_score": max(point["score"] for point in curve),
                "curve": curve,
            }
        )
        status = (
            f"epoch {reached['epoch']}, {reached['seconds']:.3f} s"
            if reached
            else "never"
        )
        print(f"  {system.name:<26} target {target:.4f}: {status}", flush=True)
    return rows


def user_defaults(data, patterns=None):
    """Our classifiers as a user runs them: ``fit`` at the defaults (to ``tol``);
    with ``patterns``, only those whose name contains one."""
    rows = []
    for name, model in (
        ("AdaGradClassifier()", AdaGradClassifier(random_state=0)),
        ("FTRLClassifier()", FTRLClassifier(random_state=0)),
    ):
        if patterns and not any(p.lower() in name.lower() for p in patterns):
            continue
        seconds, score = fit_and_score(model, data)
        rows.append(
            {
                "dataset": data.name,
                "system": name,
                "seconds": seconds,
                "epochs": int(model.n_iter_),
                **score,
            }
        )
        print(f"  {name:<26} fit {seconds:.3f} s {score}", flush=True)
    return rows


def choice_floor(data, repeats):
    """The floor of the defaults' first pass on ``data``: all 16 candidates of
    ``AdaGradClassifier()`` in one minimal loop (``_floors.py``)."""
    probe = AdaGradClassifier(max_iter=1, tol=None).fit(data.X[:200], data.y[:200])
    seconds, best, auc = fused_floor(data, probe.candidate_params_, repeats)
    print(
        f"  {'floor: 16 candidates fused':<26} {seconds:.3f} s, chose {best}, "
        f"AUC {auc:.4f}",
        flush=True,
    )
    return {
        "dataset": data.name,
        "candidates": len(probe.candidate_params_),
        "seconds": seconds,
        "chosen": best,
        "score": auc,
    }


def warm_kernels(names, quick):
    """Run sk_adaprox's systems of this run on 300 rows of each dataset, so that
    Numba compiles their kernels into its disk cache."""
    for name in names:
        if name.startswith("rare"):  # the same kernels as the whole set's
            task, _, _ = DATASETS[name]
            X, y, X_test, y_test = _rare(300, 50_000)()
            data = Dataset(name, task, X, y, X_test, y_test, np.arange(2))
        else:
            data = load_dataset(name, quick)
        rows, test_rows = slice(0, 300), slice(0, 50)
        tiny = Dataset(
            name,
            data.task,
            data.X[rows],
            data.y[rows],
            data.X_test[test_rows],
            data.y_test[test_rows],
            data.classes,
        )
        systems = throughput_systems()
        if data.task != "regression":
            systems += default_systems()
        for system in systems:
            if system.library != "sk_adaprox" or system.unsupported(tiny):
                continue
            system.convert(tiny, None)
            system.new()
            system.epoch()
            system.epoch()
            system.outputs()
        if data.task != "regression":
            user_defaults(tiny)
            if data.task == "binary" and name in _suite_report.rare_sets("quick"):
                choice_floor(tiny, 1)


def start_warming_kernels(names, quick, cpu):
    """A process on another core that compiles the kernels this run will call
    (:func:`warm_kernels`) while this one converts data and times the peers, so
    that a first run after installing is not mostly compilation; None on one
    core. The run does not wait for it: a kernel not cached yet when first
    called is compiled here, as without it."""
    others = sorted(set(range(os.cpu_count() or 1)) - {cpu})
    if not others or not hasattr(os, "sched_setaffinity"):
        return None
    command = [sys.executable, __file__, "--warm-kernels", "--cpu", str(others[0])]
    command += ["--quick" if quick else "--full", "--datasets", *names]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL)


def environment():
    import importlib.metadata as metadata

    versions = {}
    for name in (
        "sk_adaprox",
        "scikit-learn",
        "numpy",
        "scipy",
        "numba",
        "vowpalwabbit",
        "river",
        "datatable",
    ):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "machine": f"{cpu_model()}, {os.cpu_count()} cores",
        "versions": versions,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--quick", action="store_true", help="small data, ~1 minute")
    mode.add_argument("--full", action="store_true", help="every dataset")
    mode.add_argument(
        "--report", type=Path, help="re-write the tables of a results.json, no run"
    )
    parser.add_argument("--out", type=Path, help="folder for the results")
    parser.add_argument("--repeats", type=int, help="rounds per epoch timing")
    parser.add_argument("--epochs", type=int, help="most epochs toward the target")
    parser.add_argument("--budget", type=float, help="seconds per system to target")
    parser.add_argument(
        "--slow",
        type=float,
        help="one round for epochs longer than this (default 0.5 s quick, 10 s full)",
    )
    parser.add_argument("--cpu", type=int, default=0, help="core to pin to")
    parser.add_argument("--datasets", nargs="*", help="only these datasets")
    parser.add_argument(
        "--systems",
        nargs="*",
        help="only the systems whose name contains one of these (SGD's grid, the "
        "target, always runs; 'floor' names the 16-candidate floor)",
    )
    parser.add_argument(
        "--publish", type=Path, help="also write the tables into this docs page"
    )
    parser.add_argument("--warm-kernels", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.warm_kernels:
        os.sched_setaffinity(0, {args.cpu})
        warm_kernels(args.datasets, args.quick)
        return
    if args.report:
        results = json.loads(args.report.read_text())
        write(results, args.out or args.report.parent, args.publish)
        return
    quick = args.quick
    repeats = args.repeats or (2 if quick else 3)
    max_epochs = args.epochs or (3 if quick else 10)
    budget = args.budget or (1.0 if quick else 60.0)
    slow = args.slow or (0.5 if quick else 10.0)
    out = args.out or Path(__file__).parent / "results" / ("quick" if quick else "full")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})

    names = args.datasets or [
        name for name, (_, _, in_quick) in DATASETS.items() if in_quick or not quick
    ]
    results = {
        "mode": "quick" if quick else "full",
        "environment": environment(),
        "protocol": {
            "repeats": repeats,
            "max_epochs": max_epochs,
            "budget_seconds": budget,
            "slow_seconds": slow,
            "cpu": args.cpu,
        },
        "datasets": [],
        "throughput": [],
        "targets_sgd": [],
        "time_to_target": [],
        "user_defaults": [],
        "floors": [],
        "skipped": [],
    }
    started = time.perf_counter()
    warming = start_warming_kernels(names, quick, args.cpu) if quick else None
    with tempfile.TemporaryDirectory() as workdir:
        for name in names:
            task, _, _ = DATASETS[name]
            try:
                data = load_dataset(name, quick)
            except FileNotFoundError as error:
                reason = f"data not found ({error.filename})"
                print(f"== {name}: skipped, {reason}", flush=True)
                results["skipped"].append(
                    {"dataset": name, "system": "*", "why": reason}
                )
                continue
            print(
                f"== {name}: {data.X.shape[0]:,} x {data.n_features:,} "
                f"({data.nnz / data.X.shape[0]:.1f} non-zeros a row), "
                f"{data.X_test.shape[0]:,} test rows",
                flush=True,
            )
            results["datasets"].append(
                {
                    "name": name,
                    "task": task,
                    "train_rows": data.X.shape[0],
                    "test_rows": data.X_test.shape[0],
                    "features": data.n_features,
                    "nnz": data.nnz,
                }
            )
            stage = time.perf_counter()
            systems = prepare(
                select(throughput_systems(), args.systems),
                data,
                workdir,
                results["skipped"],
            )
            print(f"  (conversions {time.perf_counter() - stage:.1f} s)", flush=True)
            stage = time.perf_counter()
            results["throughput"] += time_epochs(systems, data, repeats, slow)
            for system in systems:
                system.close()
            print(f"  (epochs {time.perf_counter() - stage:.1f} s)", flush=True)
            if task != "regression":
                stage = time.perf_counter()
                grid = sgd_grid(data)
                grid["dataset"] = name
                results["targets_sgd"].append(grid)
                print(
                    f"  SGD grid best {grid['target']:.4f} "
                    f"({grid['best']['penalty']}, alpha {grid['best']['alpha']:g}, "
                    f"{grid['best']['seconds']:.3f} s)",
                    flush=True,
                )
                systems = prepare(
                    select(default_systems(), args.systems), data, workdir, []
                )
                results["time_to_target"] += time_to_target(
                    systems, data, grid["target"], max_epochs, budget
                )
                for system in systems:
                    system.close()
                results["user_defaults"] += user_defaults(data, args.systems)
                floor_set = name in _suite_report.rare_sets(results["mode"])
                if floor_set and select([FLOOR], args.systems):
                    results["floors"].append(choice_floor(data, repeats))
                print(f"  (targets {time.perf_counter() - stage:.1f} s)", flush=True)
            del data
            gc.collect()
    if warming is not None:
        warming.kill()
        warming.wait()
    results["seconds"] = time.perf_counter() - started
    write(results, out, args.publish)


def write(results, out, page=None):
    """results.json, results.md and the plot in ``out``; with ``page``, also the
    tables into that Markdown page (between its ``results`` markers) and the plot
    and one plot per dataset into ``images/`` beside it."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1))
    markdown = _suite_report.markdown(results)
    (out / "results.md").write_text(markdown)
    _suite_report.plot(results, out / "throughput_auc.png")
    print(markdown)
    print(f"\nwrote {out}/results.md, results.json, throughput_auc.png")
    if page is not None:
        image = page.parent / "images" / "benchmark_throughput_auc.png"
        image.parent.mkdir(exist_ok=True)
        _suite_report.plot(results, image)
        _suite_report.plot_datasets(results, image.parent)
        _suite_report.publish(results, page, image.relative_to(page.parent))
        print(f"wrote the tables into {page}, the plots to {image.parent}")


if __name__ == "__main__":
    main()
