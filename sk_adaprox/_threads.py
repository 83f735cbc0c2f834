"""Work split across threads for ``n_jobs``.

The compiled kernels release the GIL, so plain Python threads run them in
parallel; Numba's own threading layer is not used, so a model inside
``GridSearchCV(n_jobs=...)`` or joblib's ``Parallel`` starts no threads beyond
what joblib allows it (:func:`n_threads` asks joblib, as scikit-learn's
estimators do). Each task works on arrays of its own, or writes a part of an
output no other task writes, so the results do not depend on the number of
threads.
"""

import os
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
from joblib import effective_n_jobs

# A thread scores at least this many non-zeros of a batch (starting one costs
# about as much as scoring 20,000 non-zeros).
NONZEROS_PER_THREAD = 2**17

# Blocks of outputs trained apart are this many outputs wide, or a multiple
# (the last block excepted), where there are enough outputs: the kernels' loops
# over a feature's outputs then run in whole vectors of four doubles. A block of
# 10 of 20 outputs cost 80 % of all 20 in one pass, one of 12 or 8 about 60 %.
OUTPUTS_PER_VECTOR = 4


def n_threads(n_jobs, n_tasks):
    """The threads to run ``n_tasks`` independent tasks with, for scikit-learn's
    ``n_jobs`` (None: 1 unless a ``joblib.parallel_config`` says otherwise; -1:
    every core this process may run on; -2: all but one...), at most one per
    task and per core."""
    if n_tasks <= 1:
        return 1
    wanted = effective_n_jobs(n_jobs)
    return max(1, min(wanted, n_tasks, _usable_cores()))


def run_in_threads(tasks, threads):
    """Call every task (a function of no arguments) and return their results, in
    the order of ``tasks``, running up to ``threads`` of them at a time. The
    first task that raised (in that order) raises here, after every task has
    ended."""
    if threads <= 1 or len(tasks) <= 1:
        return [task() for task in tasks]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(task) for task in tasks]
    return [future.result() for future in futures]


def row_blocks(indptr, count):
    """Split the rows of a CSR ``indptr`` into up to ``count`` consecutive
    ranges ``(start, stop)`` of about equal non-zeros (each row at least
    counted once), none empty."""
    n_rows = indptr.shape[0] - 1
    count = max(1, min(count, n_rows))
    # Cumulative work per row: its non-zeros plus one (the intercept, the call).
    work = np.asarray(indptr[1:], dtype=np.int64) - indptr[0] + np.arange(1, n_rows + 1)
    targets = work[-1] * np.arange(1, count) / count
    cuts = np.searchsorted(work, targets, side="left") + 1
    edges = np.unique(np.concatenate(([0], cuts, [n_rows])))
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


class CSRRows(NamedTuple):
    """Rows of a CSR matrix as the scoring kernels read them: its arrays, with
    ``indptr`` a view of those rows' offsets (no copy)."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray


def csr_row_blocks(X, out, count):
    """Up to ``count`` blocks of CSR X's rows of about equal non-zeros, each as
    ``(rows, out_rows)``: the rows (:class:`CSRRows`) and their part of
    ``out`` (a view)."""
    return [
        (CSRRows(X.data, X.indices, X.indptr[start : stop + 1]), out[start:stop])
        for start, stop in row_blocks(X.indptr, count)
    ]


def output_blocks(n_outputs, count, multiple=OUTPUTS_PER_VECTOR):
    """Split ``n_outputs`` outputs into up to ``count`` consecutive ranges
    ``(start, stop)`` of about equal size, none empty. Where every range can
    have ``multiple`` outputs, each starts at the multiple of ``multiple``
    nearest to its equal share's start, so every range but the last is a
    whole number of ``multiple`` outputs wide, and each is within
    ``multiple`` outputs of an equal share."""
    count = max(1, min(count, n_outputs))
    unit = multiple if n_outputs >= count * multiple else 1
    shares = n_outputs * np.arange(count + 1) / count
    edges = (np.floor(shares / unit + 0.5) * unit).astype(int)
    edges[-1] = n_outputs
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def _usable_cores():
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
