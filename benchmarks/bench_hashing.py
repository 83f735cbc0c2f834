"""Hashing click logs: HashingEncoder against scikit-learn's FeatureHasher (on
"column=value" strings and on dicts), OneHotEncoder and a vectorised pandas hash,
at 6 and 39 columns; then a Pipeline with FTRL against Vowpal Wabbit reading the
same rows as its own text format. One core.

Run: python benchmarks/bench_hashing.py [--quick] [--repeats N] [--cpu N]

Data: ``sk_adaprox.datasets.make_click_log`` (string columns with Zipf-like value
frequencies, float count columns with missing values; a stand-in for Criteo),
6 categorical columns (no counts) and 26 categorical + 13 count columns (Criteo's
shape), 2**24 hashed columns. Every contender starts from the same pandas
DataFrame (pandas' default string columns) and ends with a CSR matrix; each time
is the best of ``--repeats``. Contenders:

- HashingEncoder on the DataFrame, and on the same table as object columns,
  categorical columns, a polars DataFrame and a pyarrow Table (converted
  untimed);
- FeatureHasher(input_type="string") on lists of ``"column=value"`` strings per
  row, and input_type="dict" on ``{"column=value": 1, "count": x}`` per row,
  each timed with and without building its input from the DataFrame;
- OneHotEncoder(sparse_output=True, handle_unknown="ignore") on
  ``frame.astype(str)`` (counts and missing values as categories): transform
  only, the string conversion included (its fit, which learns the categories,
  is untimed);
- the vectorised pandas baseline: per column ``pandas.util.hash_array`` xor the
  column's hash, modulo n_features, into CSR with a fixed number of entries
  per row (missing values hashed, rows neither sorted nor merged).

End to end (200,000 training and 50,000 test rows, 6 columns, one pass):
``make_pipeline(HashingEncoder(...), FTRLClassifier(alpha=0.3, l1=1))`` for
one pass (``max_iter=1``), without and with crosses of the column pairs that
interact, against VW (``--loss_function logistic``, one namespace per column,
``-q`` for the same crosses) fed text lines made from the DataFrame: Python's
``Workspace.learn`` per line, and VW's own C++ parser (``run_parser``) reading a
text file. Times include turning the frame into what each learner reads; test
AUC, log loss and non-zero weights.

Targets (issue 32): HashingEncoder >= 3 M rows/s at 6 columns and >= 1 M rows/s
at 39 columns (the DataFrame of string columns).
"""

# ruff: noqa: E402

from _machine import limit_threads, pin, print_machine

limit_threads()

import argparse
import os
import re
import tempfile
import time
import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp
from _report import print_targets
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction import FeatureHasher
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from sk_adaprox import FTRLClassifier, HashingEncoder
from sk_adaprox.datasets import make_click_log

N_FEATURES = 2**24


def best_of(call, repeats):
    """(best seconds, last result) of ``repeats`` calls."""
    best, result = float("inf"), None
    for _ in range(repeats):
        started = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - started)
    return best, result


def string_rows(frame):
    """Per row, the list of ``"column=value"`` strings (missing values left out)."""
    columns = [
        [None if v is None or v != v else f"{name}={v}" for v in frame[name].tolist()]
        for name in frame.columns
    ]
    return [[s for s in row if s is not None] for row in zip(*columns, strict=True)]


def dict_rows(frame, numeric):
    """Per row, ``{"column=value": 1}`` for categories and ``{"column": x}`` for
    counts (missing values left out)."""
    rows = [{} for _ in range(len(frame))]
    for name in frame.columns:
        for row, value in zip(rows, frame[name].tolist(), strict=True):
            if value is None or value != value:
                continue
            if name in numeric:
                row[name] = value
            else:
                row[f"{name}={value}"] = 1
    return rows


def pandas_hash(frame):
    """The vectorised baseline: one ``pandas.util.hash_array`` per column."""
    n_rows, n_columns = frame.shape
    indices = np.empty((n_rows, n_columns), dtype=np.int64)
    for j, name in enumerate(frame.columns):
        column_hash = pd.util.hash_array(np.array([name], dtype=object))[0]
        hashes = pd.util.hash_array(frame[name].to_numpy())
        indices[:, j] = (hashes ^ column_hash) % np.uint64(N_FEATURES)
    indptr = np.arange(0, n_rows * n_columns + 1, n_columns)
    return sp.csr_matrix(
        (np.ones(n_rows * n_columns), indices.ravel(), indptr),
        shape=(n_rows, N_FEATURES),
    )


def encoder_rates(frame, repeats, label):
    """Rows per second of every contender on ``frame``; prints a table."""
    numeric = {name for name in frame.columns if name.startswith("I")}
    n_rows = len(frame)
    encoder = HashingEncoder(n_features=N_FEATURES)
    encoder.transform(frame.iloc[:100])  # compile (or load) the kernels
    import polars as pl
    import pyarrow as pa

    as_objects = frame.astype({c: object for c in frame.columns if c not in numeric})
    tables = {
        "HashingEncoder (DataFrame, str columns)": frame,
        "HashingEncoder (object columns)": as_objects,
        "HashingEncoder (category columns)": frame.astype(
            {c: "category" for c in frame.columns if c not in numeric}
        ),
        "HashingEncoder (polars)": pl.from_pandas(frame),
        "HashingEncoder (pyarrow Table)": pa.Table.from_pandas(
            frame, preserve_index=False
        ),
    }
    seconds = {}
    for name, table in tables.items():
        seconds[name] = best_of(lambda t=table: encoder.transform(t), repeats)[0]
    strings = string_rows(frame)
    dicts = dict_rows(frame, numeric)
    hasher = FeatureHasher(N_FEATURES, input_type="string", alternate_sign=False)
    seconds["FeatureHasher strings (input built)"] = best_of(
        lambda: hasher.transform(strings), repeats
    )[0]
    seconds["FeatureHasher strings (from frame)"] = best_of(
        lambda: hasher.transform(string_rows(frame)), repeats
    )[0]
    dict_hasher = FeatureHasher(N_FEATURES, input_type="dict", alternate_sign=False)
    seconds["FeatureHasher dicts (input built)"] = best_of(
        lambda: dict_hasher.transform(dicts), repeats
    )[0]
    seconds["FeatureHasher dicts (from frame)"] = best_of(
        lambda: dict_hasher.transform(dict_rows(frame, numeric)), repeats
    )[0]
    one_hot = OneHotEncoder(handle_unknown="ignore", sparse_output=True)
    one_hot.fit(frame.astype(str))
    seconds["OneHotEncoder transform (of astype(str))"] = best_of(
        lambda: one_hot.transform(frame.astype(str)), repeats
    )[0]
    seconds["pandas hash_array per column"] = best_of(
        lambda: pandas_hash(frame), repeats
    )[0]
    ours = n_rows / seconds["HashingEncoder (DataFrame, str columns)"]
    print(f"\n== Encoders, {label}: {n_rows:,} rows, rows/s (best of {repeats})")
    print(f"| {'contender':<42} | {'M rows/s':>8} | {'ours / it':>9} |")
    print(f"|{'-' * 44}|{'-' * 10}|{'-' * 11}|")
    for name, time_taken in seconds.items():
        rate = n_rows / time_taken
        print(f"| {name:<42} | {rate / 1e6:8.3f} | {ours / rate:9.2f} |")
    return ours


def vw_lines(frame, labels, letters):
    """VW text: a namespace per categorical column (its letter), counts in ``n``."""
    columns = []
    for name in frame.columns:
        values = frame[name].tolist()
        if name.startswith("I"):
            columns.append([f"{name}:{v:g}" if v == v else "" for v in values])
        else:
            letter = letters[name]
            columns.append(
                [f"|{letter} {v}" if isinstance(v, str) else "" for v in values]
            )
    numeric = [
        c for c, name in zip(columns, frame.columns, strict=True) if name[0] == "I"
    ]
    categorical = [
        c for c, name in zip(columns, frame.columns, strict=True) if name[0] != "I"
    ]
    lines = []
    for i, label in enumerate(labels):
        counts = " ".join(c[i] for c in numeric if c[i])
        text = " ".join(c[i] for c in categorical if c[i])
        lines.append(f"{label} {text} |n {counts}" if counts else f"{label} {text}")
    return lines


def vowpal_wabbit(train, y_train, test, crosses, driver, workdir):
    """(seconds, test probabilities, non-zero weights) of one VW pass."""
    from vowpalwabbit import Workspace

    letters = {name: chr(ord("a") + j) for j, name in enumerate(train.columns)}
    quadratic = " ".join(f"-q {letters[a]}{letters[b]}" for a, b in crosses)
    readable = os.path.join(workdir, f"vw_{driver[0]}_{len(crosses)}.txt")
    args = (
        f"--quiet -b 24 --loss_function logistic --link logistic {quadratic} "
        f"--readable_model {readable}"
    )
    started = time.perf_counter()
    lines = vw_lines(train, np.where(y_train == 1, "1", "-1"), letters)
    if driver == "python":
        workspace = Workspace(args)
        for line in lines:
            workspace.learn(line)
    else:
        path = os.path.join(workdir, "train.vw")
        with open(path, "w") as handle:
            handle.write("\n".join(lines) + "\n")
        workspace = Workspace(f"{args} -d {path}")
        workspace.run_parser()
    seconds = time.perf_counter() - started
    test_lines = vw_lines(test, np.zeros(len(test), dtype=int), letters)
    proba = np.array([workspace.predict(line.split(" ", 1)[1]) for line in test_lines])
    workspace.finish()
    weight = re.compile(r"^\d+:(\S+)")
    with open(readable) as handle:
        nonzero = sum(
            1 for line in handle if (m := weight.match(line)) and float(m.group(1))
        )
    return seconds, proba, nonzero


def end_to_end(n_train, n_test, repeats):
    """Pipeline with FTRL against VW, with and without crosses."""
    X, y, pairs = make_click_log(
        n_train + n_test, random_state=0, return_interactions=True
    )
    train, test = X.iloc[:n_train], X.iloc[n_train:]
    y_train, y_test = y[:n_train], y[n_train:]
    print(f"\n== End to end: {n_train:,} training rows, {n_test:,} test rows, one pass")
    print(f"   interacting pairs: {pairs}")
    print(
        f"| {'system':<38} | {'train rows/s':>12} | {'AUC':>6} | {'log loss':>8} "
        f"| {'non-zero weights':>16} |"
    )
    print(f"|{'-' * 40}|{'-' * 14}|{'-' * 8}|{'-' * 10}|{'-' * 18}|")
    results = {}
    for crosses in ([], pairs):
        tag = "crosses" if crosses else "no crosses"

        def fit(crosses=crosses):
            encoder = HashingEncoder(n_features=N_FEATURES, crosses=crosses or None)
            model = FTRLClassifier(
                alpha=0.3, l1=1.0, max_iter=1, tol=None, shuffle=False
            )
            return make_pipeline(encoder, model).fit(train, y_train)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # one pass
            fit()  # compile
            seconds, pipeline = best_of(fit, repeats)
        proba = pipeline.predict_proba(test)[:, 1]
        nonzero = int(np.count_nonzero(pipeline[-1].coef_))
        results[f"ftrl {tag}"] = (n_train / seconds, proba)
        _row(
            f"HashingEncoder + FTRL, {tag}",
            n_train / seconds,
            y_test,
            proba,
            nonzero,
        )
        with tempfile.TemporaryDirectory() as workdir:
            for driver in ("python", "text file"):
                seconds, proba, nonzero = vowpal_wabbit(
                    train, y_train, test, crosses, driver, workdir
                )
                results[f"vw {driver} {tag}"] = (n_train / seconds, proba)
                _row(f"VW {driver} {tag}", n_train / seconds, y_test, proba, nonzero)
    return results, y_test


def _row(name, rate, y_test, proba, nonzero):
    print(
        f"| {name:<38} | {rate:12,.0f} | {roc_auc_score(y_test, proba):6.4f} | "
        f"{log_loss(y_test, np.clip(proba, 1e-15, 1 - 1e-15)):8.4f} | {nonzero:16,} |"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rows")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpu", type=int, default=1, help="core to pin to")
    options = parser.parse_args()
    print_machine(pin(options.cpu))
    scale = 10 if options.quick else 1
    six, _ = make_click_log(1_000_000 // scale, n_numeric=0, random_state=0)
    criteo, _ = make_click_log(
        300_000 // scale, n_categorical=26, n_numeric=13, random_state=0
    )
    rate_6 = encoder_rates(six, options.repeats, "6 categorical columns")
    rate_39 = encoder_rates(criteo, options.repeats, "26 categorical + 13 counts")
    results, y_test = end_to_end(200_000 // scale, 50_000 // scale, options.repeats)
    rows = [
        ("HashingEncoder 6 columns, M rows/s", rate_6 / 1e6, ">= 3"),
        ("HashingEncoder 39 columns, M rows/s", rate_39 / 1e6, ">= 1"),
    ]
    for tag in ("no crosses", "crosses"):
        ours, proba = results[f"ftrl {tag}"]
        vw_rate, vw_proba = results[f"vw text file {tag}"]
        auc = roc_auc_score(y_test, proba) - roc_auc_score(y_test, vw_proba)
        rows.append((f"Pipeline / VW text file rows/s, {tag}", ours / vw_rate, "info"))
        rows.append((f"Pipeline - VW text file AUC, {tag}", auc, "info"))
    print_targets("Targets (issue 32)", rows)


if __name__ == "__main__":
    main()
