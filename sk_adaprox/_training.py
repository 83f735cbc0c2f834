"""The training state of a model: everything it learns and needs to go on learning.

A model trains one :class:`TrainingState`; while it chooses its ``"auto"``
parameters it trains one per candidate setting (:mod:`._candidates`), and early
stopping keeps a copy of the best one. Copying, pickling and (for the parallel
work to come) merging a model's training mean doing so to this one object: no
attribute of the estimator besides it holds training state.
"""

from dataclasses import dataclass, field, fields, replace
from typing import NamedTuple

import numpy as np

from ._increments import places_in, union_of
from ._kernels.shards import compact_rows
from ._merging import ShardMerge


class MergeUndo(NamedTuple):
    """What :meth:`TrainingState.merge` replaced: the array's ``rows`` (None:
    the whole array), their values before (``array``) and the round ``t``
    before."""

    rows: np.ndarray
    array: np.ndarray
    t: int


class MergePlan(NamedTuple):
    """Where shards whose features are fixed (a Dask worker's rows, for a whole
    fit) meet in a merge, made once by :func:`merge_plan`: ``rows``, the
    state's rows the merge reads and writes (the union of the shards'
    features, increasing, then the intercept's), and ``positions``, per shard,
    the places of its state's rows in ``rows``."""

    rows: np.ndarray
    positions: list


def merge_plan(features, n_features):
    """The :class:`MergePlan` of shards at ``features`` (one increasing int array
    per shard) of a state of ``n_features`` features. O(shards x features)."""
    union = union_of(features)
    positions = [places_in(part, union) for part in features]
    return MergePlan(np.append(union, n_features), positions)


@dataclass(eq=False)
class TrainingState:
    """What a model has learnt and needs to continue learning.

    It pickles as the dataclass it is (its fields, nothing else), and so does the
    estimator that holds it. ``copy()`` gives an independent state: a candidate
    of the ``"auto"`` choice, or early stopping's snapshot of the best pass.

    Attributes
    ----------
    array : ndarray of shape (n_features + 1, n_slots, n_outputs) or None
        The per-coordinate state (:mod:`._state`): each feature's weights and
        accumulators side by side, the intercept last. None once
        :meth:`~._base.OnlineLinearModel.sparsify` has kept only the weights.
    t : int
        Rounds trained: the rows learnt from, over every call.
    parameters : tuple or None
        The algorithm's weight parameters (a NamedTuple of its module) the array
        was last trained or read with; None for a new array, which adopts the
        current ones before its first pass.
    weights_round : int
        The round the WEIGHT slot is current at, where an algorithm keeps its
        weights lazily (-1: not current at any round).
    data_passes : int
        Passes ``fit`` completed over its data (a stream's rows do not count).
    average_start : int or None
        The rounds left out before iterate averaging starts, or None without
        averaging (``average``).
    chosen : dict or None
        The values of the parameters set to ``"auto"`` this state trains with.
    extras : dict
        The algorithm's other state, by name, documented in its module: the
        arrays that are not per coordinate (ONS's matrices and scale, coin
        betting's row norms) and its counters (FTRL's pass multiplier).
    """

    array: np.ndarray | None
    t: int = 0
    parameters: tuple | None = None
    weights_round: int = 0
    data_passes: int = 0
    average_start: int | None = None
    chosen: dict | None = None
    extras: dict = field(default_factory=dict)

    def copy(self):
        """A copy whose arrays are copies: training either leaves the other as
        it was."""
        copied = {item.name: _copied(getattr(self, item.name)) for item in fields(self)}
        return replace(self, **copied)

    def __eq__(self, other):
        """Whether ``other`` holds the same state: every field equal, arrays in
        dtype, shape and value."""
        if not isinstance(other, TrainingState):
            return NotImplemented
        return all(
            _equal(getattr(self, item.name), getattr(other, item.name))
            for item in fields(self)
        )

    __hash__ = None

    def outputs(self, start, stop, feature_slots=(), per_output=(), reuse=None):
        """A copy of this state for the outputs ``start:stop`` alone, to train
        apart from the others (one-vs-rest outputs do not depend on each other).

        ``feature_slots`` are the slots whose output 0 holds a value of the
        feature rather than of an output (a lazy weight's last round, say): the
        copy holds it in its own output 0. ``per_output`` names the extras with
        one entry per output along their first axis; the others are copied
        whole. :meth:`put_outputs` writes the block back. ``reuse``: a block
        of the same outputs that :meth:`put_outputs` wrote back, with nothing
        trained since by it or by this state; its array is the copy (only its
        feature slots are copied again), which saves copying
        O(n_features * outputs).
        """
        if reuse is None:
            array = np.array(self.array[:, :, start:stop], order="C")
        else:
            if reuse.array.shape[2] != stop - start:
                raise ValueError("reuse holds other outputs than start:stop")
            array = reuse.array
        slots = list(feature_slots)
        if slots:
            array[:, slots, 0] = self.array[:, slots, 0]
        extras = {
            name: value[start:stop].copy() if name in per_output else _copied(value)
            for name, value in self.extras.items()
        }
        return replace(self, array=array, extras=extras, chosen=_copied(self.chosen))

    def put_outputs(self, start, block, feature_slots=(), per_output=()):
        """Write back ``block``, made by :meth:`outputs` from ``start`` and
        trained since: its outputs, its per-output extras and, from the block
        of output 0 only, the values of the features and the shared extras."""
        stop = start + block.array.shape[2]
        target = self.writable("array")[:, :, start:stop]
        slots = list(feature_slots)
        kept = target[:, slots, 0].copy() if slots and start > 0 else None
        target[...] = block.array
        if kept is not None:
            target[:, slots, 0] = kept
        for name, value in block.extras.items():
            if name in per_output:
                self.writable(name)[start:stop] = value
            elif start == 0:
                self.extras[name] = value

    def gather(self, features, slots=None):
        """A copy of this state at the features ``features`` (column numbers,
        each once) and the intercept, for a shard to train on its rows with
        their indices numbered as ``features`` (row q of the copy's array is
        feature ``features[q]``'s, the intercept is last). O(the features).
        ``features=None``: a copy of the whole state, for a shard whose rows
        touch about every feature (it trains on them as they are).
        ``slots``: only these slots of the array (all by default)."""
        if features is None:
            return self.copy()
        rows = np.append(features, self.array.shape[0] - 1)
        if slots is None:
            array = np.take(self.array, rows, axis=0)
        else:  # one copy of those rows' slots, not of the whole array's
            array = self.array[np.ix_(rows, slots)]
        return replace(
            self,
            array=array,
            extras=_copied(self.extras),
            chosen=_copied(self.chosen),
        )

    def merge(self, shards, rule, feature_map=None, plan=None):
        """Merge into this state the ``shards``, a list of ``(features, state)``:
        states made by :meth:`gather` from this one and trained since (their
        ``t`` counts their rows). ``rule(merge)`` is the algorithm's merge rule
        (:mod:`._merging`): it gets a :class:`~._merging.ShardMerge` over the
        features any shard touched and returns their merged state; the other
        features keep theirs, and ``t`` advances by every shard's rows. One
        shard's state is taken as it is.

        ``feature_map`` is an int array of ``n_features`` entries, all -1 (they
        are again on return); without it, one is made. O(shards x touched
        features), besides the map. ``plan``: the :class:`MergePlan` of these
        shards' features, made once for shards that keep them (then no map
        is used, and the rows are read and written in increasing order, which
        is faster). Returns the :class:`MergeUndo` that
        :meth:`undo` takes to put the state back as it was (None if no shard
        trained)."""
        trained = [(features, state) for features, state in shards if state.t > self.t]
        if not trained:
            return None
        if all(features is None for features, _ in trained):
            return self._merge_whole(trained, rule)
        n_features = self.array.shape[0] - 1
        if len(trained) == 1:
            features, state = trained[0]
            rows = np.append(features, n_features)
            undo = MergeUndo(rows, np.take(self.array, rows, axis=0), self.t)
            self.writable("array")[rows] = state.array
            self.t = state.t
            return undo
        if plan is None or len(trained) != len(shards):
            plan = _unplanned_merge(trained, n_features, feature_map)
        rows = plan.rows
        parts = [
            (positions, state.array)
            for positions, (_, state) in zip(plan.positions, trained, strict=True)
        ]
        merge = ShardMerge(
            base=np.take(self.array, rows, axis=0),
            shards=parts,
            rounds=np.array([state.t - self.t for _, state in trained]),
            t0=self.t,
            parameters=self.parameters,
        )
        return self._merged_at(rows, merge, rule)

    def merge_sums(self, summed, rule):
        """:meth:`merge` of shards given by their summed increments (a
        :class:`~._increments.SummedIncrements` over the features any of them
        touched, None: no shard trained): the same rule over the same sums,
        and one shard's state (up to rounding: the common state plus its
        increments) as it is. O(those features)."""
        if summed is None:
            return None
        rows = np.append(summed.features, self.array.shape[0] - 1)
        merge = ShardMerge.of_sums(
            np.take(self.array, rows, axis=0),
            summed.increments,
            summed.converted,
            summed.rounds,
            self.t,
            self.parameters,
        )
        if summed.rounds.shape[0] == 1:  # one shard trained: its state
            return self._merged_at(rows, merge, lambda one: one.base + one.increments())
        return self._merged_at(rows, merge, rule)

    def _merged_at(self, rows, merge, rule):
        """Write ``rule(merge)`` (a :class:`~._merging.ShardMerge` over the
        array's ``rows``) at ``rows`` and advance ``t`` by the shards' rounds;
        returns the :class:`MergeUndo`."""
        self.writable("array")[rows] = rule(merge)
        self.t = merge.t
        return MergeUndo(rows, merge.base, merge.t0)

    def _merge_whole(self, trained, rule):
        """:meth:`merge` of shards that copied the whole state (``features``
        None): the rule over every feature, whose result replaces the array
        (the undo keeps the array it replaced, not a copy)."""
        undo = MergeUndo(None, self.array, self.t)
        if len(trained) == 1:
            state = trained[0][1]
            self.array, self.t = state.array, state.t
            return undo
        merge = ShardMerge(
            base=self.array,
            shards=[(slice(None), state.array) for _, state in trained],
            rounds=np.array([state.t - self.t for _, state in trained]),
            t0=self.t,
            parameters=self.parameters,
        )
        self.array, self.t = rule(merge), merge.t
        return undo

    def undo(self, undo):
        """Put back the rows (or the whole array) and round a :meth:`merge`
        replaced (merges undone from the last)."""
        if undo.rows is None:
            self.array = undo.array
        else:
            self.writable("array")[undo.rows] = undo.array
        self.t = undo.t

    def writable(self, name):
        """The array ``array`` (``name="array"``) or ``extras[name]``, replaced by a
        writable C-contiguous copy first if it is not one (a read-only memory map
        from ``joblib.load(..., mmap_mode="r")``, say)."""
        array = self.array if name == "array" else self.extras[name]
        if array.flags.c_contiguous and array.flags.writeable:
            return array
        array = np.array(array, order="C")
        if name == "array":
            self.array = array
        else:
            self.extras[name] = array
        return array


def _unplanned_merge(trained, n_features, feature_map):
    """The :class:`MergePlan` of shards at any features, numbered in order of
    first appearance with ``feature_map`` (made if None)."""
    if feature_map is None:
        feature_map = np.full(n_features, -1, dtype=np.int64)
    # The union of the shards' features, as the features of one row.
    every = np.concatenate([features for features, _ in trained])
    union = np.empty(every.shape[0], dtype=np.int64)
    places = np.empty(every.shape[0], dtype=np.int64)
    one_row = (np.array([0, every.shape[0]]), np.zeros(1, dtype=np.int64))
    n_union = compact_rows(every, *one_row, feature_map, places, union)
    positions, start = [], 0
    for features, _ in trained:
        stop = start + features.shape[0]
        positions.append(np.append(places[start:stop], n_union))
        start = stop
    return MergePlan(np.append(union[:n_union], n_features), positions)


def _equal(value, other):
    if isinstance(value, np.ndarray) or isinstance(other, np.ndarray):
        return (
            isinstance(value, np.ndarray)
            and isinstance(other, np.ndarray)
            and value.dtype == other.dtype
            and value.shape == other.shape
            and np.array_equal(value, other)
        )
    if isinstance(value, dict) and isinstance(other, dict):
        return value.keys() == other.keys() and all(
            _equal(value[key], other[key]) for key in value
        )
    return type(value) is type(other) and value == other


def _copied(value):
    """A copy of a field's value: arrays copied, dicts copied one level down."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    return value
