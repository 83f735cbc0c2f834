"""A shard's part of a merge as sums of increments, which add up pairwise.

Every merge rule (:mod:`._merging`) reads the shards through sums: of their
increments over the common state, of the same increments once each state is
brought to its round by the algorithm's ``_merge_conversion``, and their
rounds. A shard can therefore hand in those sums alone
(:func:`shard_increments`), and any two such parts add up into one
(:func:`added`): Dask workers add them pairwise, in a tree, so that the
client receives one part over the union of the features instead of one per
worker. NumPy only; the features of a part are increasing.
"""

from dataclasses import dataclass

import numpy as np

from ._kernels.shards import sorted_positions, sorted_union


@dataclass
class SummedIncrements:
    """Shards' summed increments at the features any of them touched.

    Attributes
    ----------
    features : ndarray of shape (m,)
        The features, increasing (the intercept not among them).
    increments : ndarray of shape (m + 1, n_slots, n_outputs)
        The sum over the shards of their state minus the common state, the
        intercept's last; a shard adds nothing where it did not train.
    converted : ndarray of shape (m + 1, n_converted, n_outputs), or None
        The same sum at the slots the algorithm's ``_merge_conversion``
        changes, once each state, and the common state, is brought to its
        round by it; None where the algorithm has none.
    rounds : ndarray of shape (n_shards,)
        The rows each shard trained, in the order the parts were added.
    """

    features: np.ndarray
    increments: np.ndarray
    converted: np.ndarray | None
    rounds: np.ndarray


def shard_increments(model, features, before, after):
    """The part of one shard: its training state ``before`` and ``after`` it
    trained (both at ``features`` and the intercept, :class:`~._training.
    TrainingState`, ``t`` counting rounds), of ``model``'s algorithm. None if
    it trained no row (the merge leaves it out)."""
    rounds = after.t - before.t
    if rounds == 0:
        return None
    conversion = model._merge_conversion(before.parameters)
    converted = None
    if conversion is not None:
        base, trained = before.array.copy(), after.array.copy()
        conversion.convert(base, before.t)
        conversion.convert(trained, after.t)
        slots = list(conversion.slots)
        converted = trained[:, slots] - base[:, slots]
    increments = after.array - before.array
    return SummedIncrements(features, increments, converted, np.array([rounds]))


def added(first, second):
    """The part of the shards of ``first`` and of ``second`` together (either
    may be None: no shard). O(their features)."""
    if first is None or second is None:
        return second if first is None else first
    union = union_of([first.features, second.features])
    places = [places_in(part.features, union) for part in (first, second)]
    sums = []
    for name in ("increments", "converted"):
        if getattr(first, name) is None:
            sums.append(None)
            continue
        shape = getattr(first, name).shape[1:]
        total = np.zeros((union.shape[0] + 1,) + shape)
        for part, at in zip((first, second), places, strict=True):
            total[at] += getattr(part, name)  # each place once: no np.add.at
        sums.append(total)
    rounds = np.concatenate([first.rounds, second.rounds])
    return SummedIncrements(union, sums[0], sums[1], rounds)


def union_of(features):
    """The union of increasing int arrays, increasing. O(their lengths)."""
    union = np.asarray(features[0], dtype=np.int64)
    for part in features[1:]:
        merged = np.empty(union.shape[0] + part.shape[0], dtype=np.int64)
        union = merged[: sorted_union(union, part, merged)]
    return union


def places_in(features, union):
    """The rows of ``features`` (increasing, within ``union``), and of the
    intercept, last, in a state over ``union`` and the intercept."""
    places = np.empty(features.shape[0] + 1, dtype=np.int64)
    sorted_positions(features, union, places)
    places[-1] = union.shape[0]
    return places
