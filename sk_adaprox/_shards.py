"""Data-parallel passes (``shards``): a pass's rows split into shards that train
apart, each on a copy of the state at the features its rows touch (or of the
whole state, where its rows have non-zeros enough to pay for it), merged by the
algorithm's rule every ``sync_rows`` rows per shard; or, with
``shards="hogwild"``, among threads that update one state at once
(docs/training.md, "One model's rows in shards")."""

import functools
import math
import queue
from dataclasses import dataclass

import numpy as np

from ._kernels.common import STATUS_OK
from ._kernels.shards import compact_rows
from ._threads import CSRRows, n_threads, run_in_threads


@dataclass
class _ShardResult:
    """A shard's interval: the features it touched (None: it copied the whole
    state), its state over them after training, its ``(loss_sum, rows_done,
    status)`` and its rows' scores."""

    features: np.ndarray | None
    state: object
    loss_sum: float
    rows_done: int
    status: int
    scores: np.ndarray


class ShardedPasses:
    """:class:`~._base.OnlineLinearModel`'s data-parallel passes."""

    # Why the algorithm has no merge rule (None: it has one, ``_merge_shards``).
    _not_data_parallel = None

    def _check_shards(self):
        """Refuse ``shards`` where the algorithm has no merge rule, or with
        ``average``."""
        if self.shards is None:
            return
        if self._not_data_parallel is not None:
            threads = (
                " (n_jobs still trains the outputs of a multiclass model in threads)"
                if self._outputs_split_supported()
                else ""
            )
            raise ValueError(
                f"shards={self.shards!r}, but {type(self).__name__} cannot train "
                f"in shards: {self._not_data_parallel} Use shards=None{threads}."
            )
        if self.average:
            raise ValueError(
                f"shards={self.shards!r} cannot be combined with "
                f"average={self.average!r}: the shards' sums of iterates have no "
                "merge rule. Set average=False or shards=None."
            )

    def _runs_in_shards(self, n_rows):
        """Whether this pass of ``n_rows`` rows runs in shards: ``shards`` is set
        and no ``"auto"`` choice is running (its candidates train serially);
        Hogwild on one thread is the serial pass."""
        if self.shards is None or self._choosing():
            return False
        return self.shards != "hogwild" or n_threads(self.n_jobs, n_rows) > 1

    def _run_pass_hogwild(self, X, targets, row_weights, order, row_scores):
        """One pass over the rows in ``order`` split among ``n_jobs`` threads
        that update the model's state at once, without locks (Hogwild, Recht
        et al. 2011): each runs the algorithm's pass over its part from the
        round the pass starts at. Not deterministic. Returns ``(loss_sum,
        status, failed_row)``; where a thread diverges, the model is restored
        to a copy taken before the pass."""
        threads = n_threads(self.n_jobs, order.shape[0])
        before = self._training.copy()
        self._training.writable("array")
        parts = np.array_split(np.arange(order.shape[0]), threads)
        scores = [
            np.empty((part.shape[0] if row_scores.shape[0] else 0, row_scores.shape[1]))
            for part in parts
        ]
        results = run_in_threads(
            [
                functools.partial(
                    self._run_pass, X, targets, row_weights, order[part], part_scores
                )
                for part, part_scores in zip(parts, scores, strict=True)
            ],
            threads,
        )
        for part, (_, rows_done, status) in zip(parts, results, strict=True):
            if status != STATUS_OK:
                self._training = before
                return 0.0, status, int(order[part[rows_done]])
        for part, part_scores in zip(parts, scores, strict=True):
            if part_scores.shape[0]:
                row_scores[part] = part_scores
        self._training.t += order.shape[0]
        return sum(result[0] for result in results), STATUS_OK, None

    def _run_pass_by_shards(self, X, targets, row_weights, order, row_scores):
        """One pass over the rows in ``order`` in ``shards`` consecutive parts,
        trained apart on ``n_jobs`` threads and merged every ``sync_rows`` rows
        per shard (or once, at the end). The model depends on ``shards`` and
        ``sync_rows``, not on the threads. Returns the pass's ``(loss_sum,
        status, failed_row)``: where a shard diverges, the pass's merges are
        undone (the model is as before the pass) and ``failed_row`` is the row
        (of X) that failed. ``shards="hogwild"``: :meth:`_run_pass_hogwild`."""
        if self.shards == "hogwild":
            return self._run_pass_hogwild(X, targets, row_weights, order, row_scores)
        positions = np.array_split(np.arange(order.shape[0]), self.shards)
        longest = max(part.shape[0] for part in positions)
        interval = _sync_interval(self.sync_rows, X, order, longest)
        threads = n_threads(self.n_jobs, self.shards)
        feature_maps = _FeatureMaps(self._state.shape[0] - 1)
        # The shards' rows are disjoint, so one array holds every row's indices
        # numbered within its shard.
        local_indices = np.empty_like(X.indices)
        train = functools.partial(
            self._shard_interval,
            X,
            CSRRows(X.data, local_indices, X.indptr),
            targets,
            row_weights,
            feature_maps,
            row_scores.shape[0] > 0,
        )
        loss_sum, undos = 0.0, []
        for start in range(0, longest, interval):
            picked = [part[start : start + interval] for part in positions]
            picked = [part for part in picked if part.shape[0]]
            parts = [order[part] for part in picked]
            # Lazily regularized weights catch up when merged: only the
            # touched features may be, so those shards copy them alone.
            whole = not self._weights_are_lazy() and _copy_whole_states(
                X, parts, self._state
            )
            results = run_in_threads(
                [functools.partial(train, whole, rows) for rows in parts], threads
            )
            for rows, result in zip(parts, results, strict=True):
                if result.status != STATUS_OK:
                    for undo in reversed(undos):
                        self._training.undo(undo)
                    return loss_sum, result.status, int(rows[result.rows_done])
            undo = self._merge_interval(results, feature_maps)
            # Undoing the merges up to the first that replaced the whole array
            # restores the state before the pass.
            if undo is not None and (not undos or undos[-1].rows is not None):
                undos.append(undo)
            for part, result in zip(picked, results, strict=True):
                loss_sum += result.loss_sum
                if result.scores.shape[0]:
                    row_scores[part] = result.scores
        return loss_sum, STATUS_OK, None

    def _merge_interval(self, results, feature_maps):
        """Merge the shards' states of an interval into the model's; returns
        the merge's undo record."""
        shards = [(result.features, result.state) for result in results]
        if all(features is None for features, _ in shards):
            return self._training.merge(shards, self._merge_shards)
        feature_map = feature_maps.take()
        undo = self._training.merge(shards, self._merge_shards, feature_map)
        feature_maps.give(feature_map)
        return undo

    def _shard_interval(
        self, X, X_local, targets, row_weights, feature_maps, scored, whole, rows
    ):
        """Train a copy of the model's state on the rows ``rows``: of the whole
        state (``whole``), or at their features, with ``X_local`` receiving
        their indices numbered within the copy."""
        if whole:
            features, X_shard = None, X
        else:
            features, X_shard = _compact(X, rows, feature_maps, X_local), X_local
        shard = self._training.gather(features)
        scores = np.empty((rows.shape[0] if scored else 0, self._state.shape[2]))
        worker = self._for_training(shard)
        loss_sum, rows_done, status = worker._run_pass(
            X_shard, targets, row_weights, rows, scores
        )
        shard.t += int(rows_done)
        return _ShardResult(features, shard, loss_sum, int(rows_done), status, scores)


# A shard copies the whole state where its rows have at least one non-zero per
# this many features: a copy and a merge over whole arrays cost a few ns per
# feature, renumbering and merging the touched features about 200 ns each
# (benchmarks/bench_parallel.py), so the copy is the cheaper up to here.
_FEATURES_PER_NONZERO_FOR_A_WHOLE_COPY = 32

# ... and where the shards' copies take at most this many bytes together.
_WHOLE_COPIES_BYTES = 2**29


# A merge costs about as much per feature it reads as training does per
# 20 non-zeros (benchmarks/bench_parallel.py: 200-400 ns against 10-20 ns);
# "auto" spends at most 5 % of the training on merges.
_MERGE_COST_IN_NONZEROS = 20
_MERGE_SHARE = 0.05


def _sync_interval(sync_rows, X, order, longest):
    """The rows each shard trains between merges: ``sync_rows`` where an int;
    the whole pass (``longest`` rows) for None; for ``"auto"`` the fewest rows
    whose non-zeros pay for a merge of every feature within ``_MERGE_SHARE``
    of the training (the pass where that takes more rows than a shard has).
    Decided by the data alone, so the model does not depend on the threads."""
    if sync_rows is None:
        return max(longest, 1)
    if sync_rows != "auto":
        return sync_rows
    nonzeros = int((X.indptr[order + 1] - X.indptr[order]).sum())
    return max(1, min(longest, auto_sync_rows(X.shape[1], nonzeros, order.shape[0])))


def auto_sync_rows(n_features, nonzeros, n_rows):
    """``sync_rows="auto"``'s rows between merges for rows of ``nonzeros``
    non-zeros in all over ``n_rows`` rows: the fewest whose non-zeros pay for
    a merge of every feature within ``_MERGE_SHARE`` of the training."""
    per_row = max(nonzeros / max(n_rows, 1), 1.0)
    return math.ceil(_MERGE_COST_IN_NONZEROS / _MERGE_SHARE * n_features / per_row)


def _copy_whole_states(X, parts, state):
    """Whether the shards of ``parts`` (their rows of CSR X) train on copies of
    the whole ``state`` and on their rows as they are, rather than each on
    the state at its rows' features, their indices renumbered: where every
    part's rows have non-zeros enough to pay for it and the copies fit in
    ``_WHOLE_COPIES_BYTES``. Decided by the data and ``shards`` alone."""
    if len(parts) * state.nbytes > _WHOLE_COPIES_BYTES:
        return False
    wanted = X.shape[1] / _FEATURES_PER_NONZERO_FOR_A_WHOLE_COPY
    return all((X.indptr[rows + 1] - X.indptr[rows]).sum() >= wanted for rows in parts)


def _compact(X, rows, feature_maps, X_local):
    """The features of CSR X's ``rows`` in order of first appearance, with the
    rows' indices numbered accordingly in ``X_local.indices``."""
    touched = np.empty(
        min(int((X.indptr[rows + 1] - X.indptr[rows]).sum()), X.shape[1]),
        dtype=np.int64,
    )
    feature_map = feature_maps.take()
    try:
        n_touched = compact_rows(
            X.indices, X.indptr, rows, feature_map, X_local.indices, touched
        )
    finally:
        feature_maps.give(feature_map)
    return touched[:n_touched]


class _FeatureMaps:
    """Feature maps (int arrays of ``n_features`` entries, all -1 between uses)
    for the threads that number features: made when first needed (a pass whose
    shards copy the whole state needs none), reused after."""

    def __init__(self, n_features):
        self.n_features = n_features
        self._free = queue.SimpleQueue()

    def take(self):
        """A map no other thread is using."""
        try:
            return self._free.get_nowait()
        except queue.Empty:
            return np.full(self.n_features, -1, dtype=np.int64)

    def give(self, feature_map):
        """Return a map taken, all -1 again."""
        self._free.put(feature_map)
