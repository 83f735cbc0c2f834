"""The merge of data-parallel training: one state from the states of shards that
trained apart, on their own rows, from one common state.

The rule (docs/training.md, "One model's rows in shards"): each statistic of the
merged state is the common state's plus the shards' mean increment taken
``min(k, 2)`` times, for k shards. With two shards that is the sum of their
increments, the "delayed update": one model that saw every row, each with the
weights of its shard. With more, summing would move a coordinate that every
shard fits (an intercept, a feature in every row) k times as far as one shard
did, past its optimum and further at each merge; twice the mean increment
(parameter mixing with a step of 2) keeps the merged model between the shards'
and the sum's. Measured on four sets against the mean, the sum, and Vowpal
Wabbit's AllReduce weighting, it is
the only one that neither loses quality at two shards nor breaks down with
more shards and frequent merges.

Each algorithm combines the statistics its weights follow from (mirror
descent: the weights and G; dual averaging: u and G for two shards, the
weights, each shard's at its own round, for more; FTRL: z and n with l1, and
without l1, whose round is mirror descent's step, the weights and n) and
derives the rest. A weight every shard holds at
zero stays zero unless its statistics cross l1's threshold: there dual
averaging's u and G and FTRL's z and n are sums of the gradients alone and are
summed, as serial training would sum them.

A rule reads the shards' states at the features any of them touched, the
intercept included (:class:`ShardMerge`), and returns the merged state there;
features no shard touched keep their state. Everything a rule reads is the
common state, the sum of the shards' increments (and of their increments
once each state is brought to its own round by the algorithm's
``_merge_conversion``), their count and their rounds: sums, which a tree of
Dask workers adds up pairwise before the client applies the rule
(:meth:`ShardMerge.of_sums`). It is NumPy over those features
(and the algorithms' own compiled weight formulas over them), so a merge costs
O(shards x touched features), never O(n_features).
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ._kernels.shards import add_increments, add_whole_increment

# The mean increment is taken this many times at most (module docstring).
_MERGE_STEP = 2.0


class MergeConversion(NamedTuple):
    """What brings a state to its round before a merge sums increments:
    ``convert(array, t)`` in place (lazy weights caught up, say), and the
    ``slots`` it may change (the others keep their values)."""

    convert: Callable
    slots: tuple


@dataclass
class ShardMerge:
    """The states a merge reads, over the m features the shards touched.

    Attributes
    ----------
    base : ndarray of shape (m + 1, n_slots, n_outputs)
        The common state the shards started from, at those features; the
        intercept is the last row. Rules do not write it.
    shards : list of (positions, array) or None
        One entry per shard that trained: the rows of ``base`` it touched
        (``positions``, the intercept's included; a slice of every row where
        the shard copied the whole state) and its state there (``array``, row
        q for ``base`` row ``positions[q]``). None for a merge made by
        :meth:`of_sums`, which holds the shards' sums instead.
    rounds : ndarray of shape (n_shards,)
        The rows each shard trained.
    t0 : int
        The rounds of the common state.
    parameters : tuple
        The algorithm's weight parameters (its NamedTuple).
    """

    base: np.ndarray
    shards: list | None
    rounds: np.ndarray
    t0: int
    parameters: tuple
    _increments: np.ndarray | None = field(default=None, repr=False)
    _converted: np.ndarray | None = field(default=None, repr=False)

    @classmethod
    def of_sums(cls, base, increments, converted, rounds, t0, parameters):
        """The merge of shards given by their summed increments instead of
        their states: ``increments``, the sum over the shards of their state
        minus ``base`` (shaped like it), and ``converted``, the same sum at
        the conversion's slots once each state and the base are brought to
        their rounds by the :class:`MergeConversion` that :meth:`mapped`
        will be given (None if the rule converts nothing)."""
        return cls(base, None, rounds, t0, parameters, increments, converted)

    @property
    def t(self):
        """The rounds of the merged state: the common start plus every shard's."""
        return self.t0 + int(self.rounds.sum())

    def total(self, increment):
        """The sum over shards of ``increment(positions, array)`` (an array with
        a row per position), where each shard touched: shape of ``base`` rows.
        Needs the shards' states (not a merge made by :meth:`of_sums`)."""
        if self.shards is None:
            raise ValueError("A merge made of sums has no shards' states to total.")
        total = None
        for positions, array in self.shards:
            part = increment(positions, array)
            if total is None:
                total = np.zeros((self.base.shape[0],) + part.shape[1:])
            if isinstance(positions, slice):
                total[positions] += part
            else:  # each position once: a gather and a write, no np.add.at
                total[positions] = rows_at(total, positions) + part
        return total

    def combined(self):
        """Every slot ``base``'s plus the shards' mean increment taken
        ``min(k, 2)`` times, for k shards (a shard that did not touch a row
        adds nothing there): the sum of two shards' increments, twice the mean
        of more."""
        base = self.base
        step = self.step()
        if self.shards is not None and all(
            isinstance(positions, slice) for positions, _ in self.shards
        ):
            # Whole arrays, without index arrays; a row no shard changed gets
            # an increment of exactly 0 and keeps its value.
            merged = np.empty(base.shape, dtype=base.dtype)  # C order: flat views
            flat_base = np.ascontiguousarray(base).reshape(-1)
            last = len(self.shards) - 1
            for number, (_, array) in enumerate(self.shards):
                add_whole_increment(
                    merged.reshape(-1),
                    flat_base,
                    np.ascontiguousarray(array).reshape(-1),
                    number == 0,
                    number == last,
                    step,
                )
            return merged
        return base + self.increments() * step

    def increments(self):
        """The sum of the shards' increments over ``base``, every slot (a
        shard that did not touch a row adds nothing there); compiled, made
        once per merge."""
        if self._increments is None:
            total = np.zeros_like(self.base)
            for positions, array in self.shards:
                if isinstance(positions, slice):
                    total[positions] += array - self.base[positions]
                else:
                    add_increments(total, self.base, positions, array)
            self._increments = total
        return self._increments

    def step(self):
        """How many times the mean increment is taken: ``min(k, 2) / k`` of
        the sum of the shards' increments."""
        count = self.rounds.shape[0]
        return min(count, _MERGE_STEP) / count

    def summed(self, slot):
        """``slot`` of ``base`` plus every shard's increment of it (where
        weights stay at zero, dual averaging's u and FTRL's z are sums of
        gradients alone, and the shards' sums add up as serially)."""
        return self.base[:, slot] + self.increments()[:, slot]

    def mapped(self, conversion):
        """The merge with the :class:`MergeConversion` applied to a copy of
        ``base`` (at ``t0``) and of each shard's array (at ``t0`` plus its
        rounds): each state brought to its own round, as the mean needs them
        (lazy weights caught up, say)."""
        base = self.base.copy()
        conversion.convert(base, self.t0)
        if self.shards is None:  # the converted slots' sums came with the sums
            increments = self._increments.copy()
            increments[:, list(conversion.slots)] = self._converted
            return ShardMerge.of_sums(
                base, increments, None, self.rounds, self.t0, self.parameters
            )
        shards = []
        for (positions, array), rounds in zip(self.shards, self.rounds, strict=True):
            array = array.copy()
            conversion.convert(array, self.t0 + int(rounds))
            shards.append((positions, array))
        return ShardMerge(base, shards, self.rounds, self.t0, self.parameters)


def rows_at(array, positions):
    """``array[positions]`` for a slice or an index array (np.take: a few times
    faster than indexing for rows of a few values)."""
    if isinstance(positions, slice):
        return array[positions]
    return np.take(array, positions, axis=0)
