"""The systems the benchmark suite (``suite.py``) compares, one adapter each.

An adapter holds one system at one setting on one dataset. The suite calls, in order:

- ``unavailable()``: None, or why the system cannot run here (not installed);
- ``unsupported(data)``: None, or why it cannot take this dataset;
- ``convert(data, workdir)``: turn the data into what the system reads (text files,
  a cache, dicts, a Frame). Untimed; the suite records how long it took;
- ``new()``: a fresh, untrained model;
- ``epoch()``: one pass over the training rows (timed);
- ``outputs()``: test outputs: P(class 1) for binary tasks, an (n, K) matrix of
  class probabilities for multiclass (classes 0..K-1), predictions for regression;
- ``nonzero_weights()``: how many weights of the model are not zero.

Datasets come with binary labels in {0, 1}, multiclass labels in 0..K-1 and float
regression targets, so that every adapter sees the same classes.
"""

import importlib.util
import math
import os
import re
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

# Widest X a dense (one column per feature) peer is given: datatable's Frame and
# River's learn_many take one column per feature.
DENSE_WIDTH = 1000


def _rows(X):
    """(indices, values) of each row of X, CSR or dense."""
    if sp.issparse(X):
        X = X.tocsr()
        for start, stop in zip(X.indptr[:-1], X.indptr[1:], strict=True):
            yield X.indices[start:stop], X.data[start:stop]
    else:
        for row in np.asarray(X):
            nonzero = np.flatnonzero(row)
            yield nonzero, row[nonzero]


def _missing(module):
    if importlib.util.find_spec(module) is None:
        return f"{module} is not installed (pip install '.[bench]')"
    return None


class System:
    """Base adapter: the name shown in the tables and what the system can take."""

    restarts = False  # True: epoch k retrains from scratch for k passes
    name = ""
    library = ""  # the distribution whose version is reported
    threads = "1"  # threads the system runs (the suite pins them to one core)
    cores = 1  # cores its epochs may use (the suite's core, and more if > 1)
    tasks = ("binary", "multiclass", "regression")

    def unavailable(self):
        return None

    def unsupported(self, data):
        if data.task not in self.tasks:
            return f"no {data.task} task"
        return None

    def convert(self, data, workdir):
        self.data = data

    def warm_up(self):
        """Do once, untimed, what the first epoch of a process does only once
        (compile kernels), so that time to target counts training alone."""

    def close(self):
        """Release what ``convert`` made (files are in the suite's workdir)."""


# -- sk_adaprox and scikit-learn -------------------------------------------------------


class Estimator(System):
    """A scikit-learn style estimator: ``make(data)`` builds it; each epoch is a
    ``fit`` of one pass (``warm_start`` after the first), or ``partial_fit`` in
    chunks of ``chunk`` rows when ``chunk`` is set."""

    def __init__(self, name, library, make, dense_only=False, chunk=None, cores=1):
        self.name, self.library = name, library
        self.make, self.dense_only, self.chunk = make, dense_only, chunk
        # cores > 1: the suite lets this system's epochs run on that many cores.
        self.cores = cores
        self.threads = str(cores)

    def unsupported(self, data):
        if self.dense_only and data.n_features > DENSE_WIDTH:
            return f"dense-matrix method; {data.n_features:,} features"
        return super().unsupported(data)

    def new(self):
        self.model = self.make(self.data)
        self.epochs = 0

    def warm_up(self):
        """Fit a fresh model on the first 200 rows: Numba compiles (or loads from
        its cache) the kernels of this model and input in the first call."""
        rows = slice(0, 200)
        model = self.make(self.data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if self.chunk is not None and self.data.task != "regression":
                model.partial_fit(
                    self.data.X[rows], self.data.y[rows], classes=self.data.classes
                )
            else:
                model.fit(self.data.X[rows], self.data.y[rows])

    def epoch(self):
        X, y = self.data.X, self.data.y
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if self.chunk is not None:
                classes = None if self.data.task == "regression" else self.data.classes
                for start in range(0, X.shape[0], self.chunk):
                    rows = slice(start, start + self.chunk)
                    if classes is None:
                        self.model.partial_fit(X[rows], y[rows])
                    else:
                        self.model.partial_fit(X[rows], y[rows], classes=classes)
            else:
                if self.epochs:
                    # Later epochs continue the model, each in a new row order.
                    params = self.model.get_params()
                    changes = {"warm_start": True}
                    if params.get("shuffle"):
                        changes["random_state"] = self.epochs
                    self.model.set_params(**changes)
                self.model.fit(X, y)
        self.epochs += 1

    def outputs(self):
        return _estimator_outputs(self.model, self.data)

    def nonzero_weights(self):
        return int(np.count_nonzero(self.model.coef_))


def _estimator_outputs(model, data):
    if data.task == "regression":
        return model.predict(data.X_test)
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(data.X_test)
    else:  # a loss without probabilities: scores through the logistic link
        scores = model.decision_function(data.X_test)
        if scores.ndim == 1:
            proba = np.column_stack([1 - _sigmoid(scores), _sigmoid(scores)])
        else:
            proba = _sigmoid(scores)
            proba /= proba.sum(axis=1, keepdims=True)
    return proba[:, 1] if data.task == "binary" else proba


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-np.clip(z, -500, 500)))


def one_pass(estimator):
    """``estimator`` set for single passes in row order (each epoch one fit)."""
    return estimator.set_params(max_iter=1, tol=None, shuffle=False)


# -- Vowpal Wabbit ---------------------------------------------------------------------


_VW_LINES = {}  # (id(X), labels) -> lines: the adapters of one dataset share them


def _vw_lines(X, labels):
    """VW text lines, one namespace ``f``, feature names the column indices (VW
    takes an all-digit name as the hash itself, so no two columns collide when
    2^bits >= n_features)."""
    key = (id(X), hash(tuple(labels)))
    if key in _VW_LINES and _VW_LINES[key][0] is X:
        return _VW_LINES[key][1]
    while len(_VW_LINES) >= 2:  # one dataset's train and test lines at a time
        del _VW_LINES[next(iter(_VW_LINES))]
    lines = []
    for label, (indices, values) in zip(labels, _rows(X), strict=True):
        features = " ".join(
            f"{j}:{v:.9g}" for j, v in zip(indices, values, strict=True)
        )
        lines.append(f"{label} |f {features}")
    _VW_LINES[key] = (X, lines)
    return lines


class VowpalWabbit(System):
    """Vowpal Wabbit through its ``vowpalwabbit`` wheel.

    ``driver="python"``: a ``Workspace`` fed pre-formatted text lines one at a time
    with ``learn`` (what a Python user writes); the formatting is the conversion.
    ``driver="cache"``: VW's own C++ driver (``Workspace(...).run_parser()``, the
    path of the ``vw`` binary, which the wheel does not ship) reading a binary cache
    file made in the conversion; its parser runs in a second thread.
    ``extra``: added arguments (``"--ftrl"``); otherwise VW's defaults (adaptive,
    normalized, invariant updates, learning rate 0.5).
    """

    library = "vowpalwabbit"

    def __init__(self, name, driver, extra=""):
        self.name, self.driver, self.extra = name, driver, extra
        self.threads = "2 (parser + learner)" if driver == "cache" else "1"
        # The C++ driver cannot continue a run: epoch k is a new run of k passes,
        # and its time is the whole run's.
        self.restarts = driver == "cache"

    def unavailable(self):
        return _missing("vowpalwabbit")

    def convert(self, data, workdir):
        super().convert(data, workdir)
        if data.task == "binary":
            train_labels = np.where(data.y == 1, "1", "-1")
            task_args = "--loss_function logistic --link logistic"
        elif data.task == "multiclass":
            train_labels = (data.y + 1).astype(str)  # VW's classes are 1..K
            n_classes = len(data.classes)
            task_args = f"--oaa {n_classes} --loss_function logistic --probabilities"
        else:
            train_labels = data.y.astype(str)
            task_args = ""
        bits = max(18, math.ceil(math.log2(data.n_features + 1)))
        self.readable = os.path.join(workdir, f"{id(self)}.readable")
        self.args = (
            f"--quiet -b {bits} {task_args} {self.extra} "
            f"--readable_model {self.readable}"
        )
        self.train_lines = _vw_lines(data.X, train_labels)
        self.test_lines = [
            line.split(" ", 1)[1]
            for line in _vw_lines(data.X_test, np.zeros(data.X_test.shape[0]))
        ]
        if self.driver == "cache":
            text = os.path.join(workdir, f"{id(self)}.vw")
            with open(text, "w") as handle:
                handle.write("\n".join(self.train_lines) + "\n")
            self.cache = os.path.join(workdir, f"{id(self)}.cache")
            making = _vw_workspace(f"{self.args} -d {text} --cache_file {self.cache}")
            making.run_parser()
            making.finish()
            os.remove(text)
            self.train_lines = None

    def new(self):
        self.close()
        self.passes = 0
        if self.driver == "python":
            self.workspace = _vw_workspace(self.args)

    def epoch(self):
        if self.driver == "python":
            learn = self.workspace.learn
            for line in self.train_lines:
                learn(line)
        else:
            # ``--holdout_off``: with several passes every row trains, as in ours.
            self.close()
            self.passes += 1
            passes = f"--passes {self.passes} --holdout_off" if self.passes > 1 else ""
            self.workspace = _vw_workspace(
                f"{self.args} --cache_file {self.cache} {passes}"
            )
            self.workspace.run_parser()

    def outputs(self):
        predict = self.workspace.predict
        return np.asarray([predict(line) for line in self.test_lines], dtype=float)

    def nonzero_weights(self):
        """Weights VW writes to its readable model (it skips zeros), on finish."""
        self.workspace.finish()
        self.workspace = None
        with open(self.readable) as handle:
            return sum(
                1
                for line in handle
                if (match := _VW_WEIGHT.match(line)) and float(match.group(1)) != 0
            )

    def close(self):
        if getattr(self, "workspace", None) is not None:
            self.workspace.finish()
            self.workspace = None


# A weight line of a readable model: "index:weight" or "index[class]:weight", then
# (VW 9) the adaptive and normalised state.
_VW_WEIGHT = re.compile(r"^\d+(?:\[\d+\])?:(\S+)")


def _vw_workspace(args):
    from vowpalwabbit import Workspace

    return Workspace(args)


# -- River -----------------------------------------------------------------------------


class River(System):
    """River's ``LogisticRegression`` / ``LinearRegression`` (one-vs-rest for
    multiclass) with ``optimizer`` (``"adagrad"`` or ``"ftrl"``) at River's
    defaults, fed dicts ``{column: value}`` of a row's non-zeros with
    ``learn_one``, or, ``many=True``, pandas DataFrames of 1,000 rows with
    ``learn_many`` (dense sets, binary and regression: River has no
    ``learn_many`` for one-vs-rest)."""

    library = "river"

    def __init__(self, name, optimizer, many=False):
        self.name, self.optimizer, self.many = name, optimizer, many

    def unavailable(self):
        return _missing("river")

    def unsupported(self, data):
        if self.many and (data.n_features > DENSE_WIDTH or data.task == "multiclass"):
            return "learn_many takes a DataFrame (dense sets, no one-vs-rest)"
        return super().unsupported(data)

    def convert(self, data, workdir):
        super().convert(data, workdir)
        if self.many:
            import pandas as pd

            dense = data.X.toarray() if sp.issparse(data.X) else data.X
            self.frames = [
                (
                    pd.DataFrame(dense[start : start + 1000]),
                    pd.Series(data.y[start : start + 1000]),
                )
                for start in range(0, dense.shape[0], 1000)
            ]
            if data.task == "binary":
                self.frames = [(x, y.astype(bool)) for x, y in self.frames]
        else:
            self.train = [
                dict(zip(i.tolist(), v.tolist(), strict=True)) for i, v in _rows(data.X)
            ]
            self.targets = (
                data.y.astype(bool).tolist()
                if data.task == "binary"
                else data.y.tolist()
            )
        self.test = [
            dict(zip(i.tolist(), v.tolist(), strict=True))
            for i, v in _rows(data.X_test)
        ]

    def _optimizer(self):
        from river import optim

        return optim.AdaGrad() if self.optimizer == "adagrad" else optim.FTRLProximal()

    def new(self):
        from river import linear_model, multiclass

        if self.data.task == "regression":
            self.model = linear_model.LinearRegression(optimizer=self._optimizer())
        elif self.data.task == "binary":
            self.model = linear_model.LogisticRegression(optimizer=self._optimizer())
        else:
            self.model = multiclass.OneVsRestClassifier(
                linear_model.LogisticRegression(optimizer=self._optimizer())
            )

    def epoch(self):
        if self.many:
            for x, y in self.frames:
                self.model.learn_many(x, y)
        else:
            learn = self.model.learn_one
            for x, y in zip(self.train, self.targets, strict=True):
                learn(x, y)

    def outputs(self):
        if self.data.task == "regression":
            return np.array([self.model.predict_one(x) for x in self.test])
        if self.data.task == "binary":
            return np.array([self.model.predict_proba_one(x)[True] for x in self.test])
        classes = self.data.classes
        proba = np.zeros((len(self.test), len(classes)))
        for i, x in enumerate(self.test):
            for label, p in self.model.predict_proba_one(x).items():
                proba[i, label] = p
        return proba

    def nonzero_weights(self):
        models = (
            self.model.classifiers.values()
            if hasattr(self.model, "classifiers")
            else [self.model]
        )
        return sum(sum(1 for w in model.weights.values() if w != 0) for model in models)


# -- H2O datatable ---------------------------------------------------------------------


class Datatable(System):
    """H2O datatable's ``Ftrl`` at its defaults (``alpha=0.005, beta=1,
    nbins=10**6``), one thread. It reads a Frame, one column per feature, and
    hashes every (column, value) pair into a bin with x = 1: each distinct value of
    a column is a category, zeros included. The conversion is X made dense and
    wrapped as a Frame, so only sets of at most ``DENSE_WIDTH`` features are run.
    """

    library = "datatable"

    def __init__(self, name="datatable Ftrl"):
        self.name = name

    def unavailable(self):
        return _missing("datatable")

    def unsupported(self, data):
        if data.n_features > DENSE_WIDTH:
            return (
                f"a Frame holds one column per feature ({data.n_features:,}); "
                "a dense copy would not fit"
            )
        return super().unsupported(data)

    def convert(self, data, workdir):
        import datatable as dt

        super().convert(data, workdir)
        dt.options.nthreads = 1

        def frame(X):
            dense = X.toarray() if sp.issparse(X) else np.asarray(X)
            return dt.Frame(dense, names=[f"x{j}" for j in range(dense.shape[1])])

        self.X, self.X_test = frame(data.X), frame(data.X_test)
        if data.task == "binary":
            self.y = dt.Frame(target=data.y.astype(bool))
        elif data.task == "multiclass":
            self.y = dt.Frame(target=data.y.astype(str))
        else:
            self.y = dt.Frame(target=data.y.astype(float))

    def new(self):
        from datatable.models import Ftrl

        self.model = Ftrl(nepochs=1)

    def epoch(self):
        # A second fit continues training from the model's state (an epoch more).
        self.model.fit(self.X, self.y)

    def outputs(self):
        predicted = self.model.predict(self.X_test)
        if self.data.task == "regression":
            return predicted.to_numpy()[:, 0]
        if self.data.task == "binary":
            return predicted["True"].to_numpy()[:, 0]
        columns = [str(label) for label in self.data.classes]
        return predicted[:, columns].to_numpy()

    def nonzero_weights(self):
        """Bins whose z is not zero (with lambda1 = 0 their weight is not zero)."""
        model = self.model.model.to_numpy()
        z = model[:, 0::2]  # columns z_<label>, n_<label> per label
        return int(np.count_nonzero(z))
