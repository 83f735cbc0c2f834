"""Choosing the parameters set to ``"auto"`` inside the first pass.

A new model with ``"auto"`` parameters trains one :class:`~._training.TrainingState`
per candidate setting (the product of the grids) over the same rows in the same
order, and serves the candidate of lowest progressive loss: each row's loss
before the candidate learnt from it. ``fit`` chooses after its first pass; a
stream keeps every candidate (:class:`StreamChoice`) until it has seen
``_auto_stream_rows`` rows. Three ways to run the candidates, one way to record
the choice (:meth:`CandidateSearch._record_choice`):

- one after the other, each on its own state (every case);
- side by side in one state, one read of the data for all of them, where the
  algorithm has such a kernel (a one-output ``fit``);
- on the most frequent classes only, for a one-vs-rest ``fit`` with many classes:
  the chosen setting then trains every class.
"""

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from ._kernels.common import STATUS_OK
from ._losses import JOINT_LOSSES, loss_terms
from ._state import is_on_small_pages, new_state, on_small_pages
from ._threads import n_threads, run_in_threads


@dataclass(eq=False)
class StreamChoice:
    """A stream's candidates between calls, while it chooses.

    Attributes
    ----------
    states : list of TrainingState or None
        Each candidate's state, in the order of ``candidate_params_``; None for a
        candidate that diverged. The served one is the model's state.
    totals : ndarray
        Each candidate's summed progressive loss (inf once it diverged).
    weight : float
        The row weight (times outputs) the totals sum over.
    served : int
        The index of the served candidate.
    settings : tuple
        The served candidate's weight parameters as the last call left them: a
        change since then (``set_params``) ends the choice.
    """

    states: list
    totals: np.ndarray
    weight: float
    served: int
    settings: tuple


class CandidateSearch:
    """:class:`~._base.OnlineLinearModel`'s choice of ``"auto"`` parameters."""

    # {parameter: candidate values} of the parameters that accept "auto".
    _auto_grids: dict = {}
    # A stream keeps every candidate until it has seen this many rows.
    _auto_stream_rows = 1000
    # A one-vs-rest model with more classes than this compares fit's candidates
    # on the most frequent ones (0: on every class).
    _candidate_classes = 4
    # At most this many bytes of candidate states side by side (per thread):
    # more candidates are run in blocks of as many as fit.
    _side_by_side_bytes = 2**28

    def _param(self, name, chosen=None):
        """Parameter ``name``, or the value chosen for it where it is ``"auto"``:
        from ``chosen`` (a candidate's values), else from the training state's
        (the grid's first value before any choice)."""
        value = getattr(self, name)
        if not (isinstance(value, str) and value == "auto"):
            return value
        if chosen is None and self._is_initialized():
            chosen = self._training.chosen
        if chosen and name in chosen:
            return chosen[name]
        if self._is_initialized() and self.t_ > 0:
            raise ValueError(
                f"{name}='auto' was set after training started; the choice is "
                "made in a new model's first pass. Set a value, or call fit "
                "(with warm_start=False) to choose anew."
            )
        return self._auto_grids[name][0]

    def _candidates(self, n_features=None, n_outputs=None):
        """The settings a new model's first pass tries, as dicts: the product of
        the grids of the parameters set to ``"auto"``; None if there are none.
        An algorithm whose choices depend on the data's shape reads it from
        ``n_features`` and ``n_outputs``, by default the shape training started
        with."""
        names = [
            name
            for name in self._auto_grids
            if isinstance(getattr(self, name), str) and getattr(self, name) == "auto"
        ]
        if not names:
            return None
        grids = [self._auto_grids[name] for name in names]
        products = itertools.product(*grids)
        return [dict(zip(names, values, strict=True)) for values in products]

    def _check_can_start_from_weights(self, n_features, n_outputs):
        """Refuse ``coef_init``/``intercept_init`` where candidates would run."""
        if self._candidates(n_features, n_outputs):
            raise ValueError(
                "coef_init and intercept_init cannot be combined with parameters "
                "set to 'auto': each candidate setting starts from zero weights."
            )

    def _choosing(self):
        """Whether the next pass runs the candidates: a new model with parameters
        set to ``"auto"``, or a stream still in its first rows. A stream whose
        parameters were changed (``set_params``) since its candidates started
        stops choosing if the change reaches the weights' parameters (the
        grids, or a parameter the served candidate's state was adopted under):
        the served candidate goes on, under the values now set (the others are
        not brought to them: each would cost a sweep of its state)."""
        choice = self._stream_choice
        if choice is not None:
            if (
                self._candidates() == self.candidate_params_
                and choice.settings == self._training.parameters
            ):
                return True
            self._end_choice()
            return False
        return self.t_ == 0 and self._candidates() is not None

    def _end_choice(self):
        """End a stream's choice among its candidates, if there is one: the
        served candidate, the model's state, goes on alone, in the memory NumPy
        would give it (see :func:`._state.on_small_pages`: large pages speed up
        passes that touch most of the state)."""
        self._stream_choice = None
        training = getattr(self, "_training", None)
        if training is not None and training.array is not None:
            if is_on_small_pages(training.array):
                training.array = np.array(training.array)

    def _record_choice(self, candidates, totals, weight, classes=None):
        """The fitted attributes of a choice: the chosen values, the candidates,
        their mean progressive losses and, where they were compared on some
        classes only, those classes."""
        self.chosen_params_ = dict(self._training.chosen)
        self.candidate_params_ = candidates
        self.candidate_losses_ = totals / weight if weight > 0 else totals.copy()
        if classes is not None:
            self.candidate_classes_ = classes

    def _run_candidates(self, X, targets, row_weights, order, row_scores, final):
        """A pass of every candidate setting over the same rows in the same order.

        Each candidate continues from its own state (a new one on the first
        pass), at the model's round, and adds the pass's progressive loss to its
        total. The candidate of lowest total is served. With ``final``
        (``fit``'s first pass, or a stream's call that reaches
        ``_auto_stream_rows`` rows) the choice is made and the others are
        dropped; otherwise every candidate is kept for the next call. A candidate
        that diverges is out. ``row_scores`` receives the scores of the
        candidate served before this pass (the grid's first at the start; the
        new best's if that one diverged), so that progressive predictions never
        use the rows they predict. Returns the served candidate's
        ``(loss_sum, rows_done, status)``.
        """
        candidates = self._candidates()
        if final and self._stream_choice is None and row_scores.shape[0] == 0:
            result = self._run_candidates_side_by_side(
                X, targets, row_weights, order, candidates
            )
            if result is None:
                result = self._run_candidates_on_frequent_classes(
                    X, targets, row_weights, order, candidates
                )
            if result is not None:
                return result
        return self._run_candidates_in_turn(
            X, targets, row_weights, order, row_scores, final, candidates
        )

    def _run_candidates_in_turn(
        self, X, targets, row_weights, order, row_scores, final, candidates
    ):
        """:meth:`_run_candidates`, one candidate after the other."""
        n_outputs = self._state.shape[2]
        choice = self._stream_choice
        states = choice.states if choice else [None] * len(candidates)
        # A copy: a model loaded with joblib's mmap_mode="r" has it read-only.
        totals = np.array(choice.totals) if choice else np.zeros(len(candidates))
        served = choice.served if choice else 0
        t0 = self.t_  # every candidate has seen the same rows
        results, scores_of = {}, {}
        best = None
        for index, candidate in enumerate(candidates):
            if not np.isfinite(totals[index]):
                continue
            self._enter_candidate(states[index], candidate, t0, final)
            scores = scores_of[index] = row_scores.copy()
            results[index] = self._run_pass_by_outputs(
                X, targets, row_weights, order, scores
            )
            states[index] = None
            if results[index][2] != STATUS_OK:
                totals[index] = np.inf
                continue
            totals[index] += results[index][0]
            is_best = best is None or totals[index] < totals[best]
            if is_best or not final:
                states[index] = self._training
            if is_best:
                if final and best is not None:
                    states[best] = None  # a final choice keeps only the best so far
                best = index
        if best is None:  # every candidate diverged: report the last one's row
            return results[max(results)]
        # The served candidate's scores, or the new best's if it diverged.
        served_ok = served in results and results[served][2] == STATUS_OK
        row_scores[...] = scores_of[served if served_ok else best]
        weight = float(row_weights[order].sum()) * loss_terms(self.loss, n_outputs)
        weight += choice.weight if choice else 0.0
        self._training = states[best]
        self._record_choice(candidates, totals, weight)
        if final:
            self._end_choice()
        else:
            settings = self._training.parameters
            self._stream_choice = StreamChoice(states, totals, weight, best, settings)
        return results[best]

    def _enter_candidate(self, state, candidate, t0, final):
        """Make a candidate's state the model's, under its parameters: a new
        state (on small pages if it is kept for later calls: each is touched only
        where the stream's first rows have non-zeros), or its own at round
        ``t0``."""
        if state is None:
            n_features, n_outputs = self._state.shape[0] - 1, self._state.shape[2]
            self._start_training(n_features, n_outputs, chosen=candidate)
            if not final:
                self._training.array = on_small_pages(self._training.array)
        else:
            self._training = state
            self._training.t = t0
        self._sync_parameters()

    def _run_candidates_on_frequent_classes(
        self, X, targets, row_weights, order, candidates
    ):
        """:meth:`_run_candidates` for the final choice of a one-vs-rest model with
        more than ``_candidate_classes`` classes: every candidate trains the
        one-vs-rest problems of the ``_candidate_classes`` classes with the most
        rows only (the rows of other classes are negatives for all of them), and
        the chosen one then trains every class over the same rows, from zero. A
        class's problem does not depend on the others', so each candidate's
        progressive loss on those classes is the one it has in a model of every
        class, and the model is the chosen setting's. Returns None where that
        does not apply, where every candidate diverged, or where the chosen one
        diverges on another class: the caller then runs the candidates on every
        class."""
        n_features, n_outputs = self._state.shape[0] - 1, self._state.shape[2]
        compared = self._candidate_classes
        if compared == 0 or n_outputs <= compared or self.loss in JOINT_LOSSES:
            return None
        # Rows, not weights: under class_weight="balanced" every class weighs
        # the same.
        counts = np.bincount(targets[order].astype(np.intp), minlength=n_outputs)
        frequent = np.sort(np.argsort(-counts, kind="stable")[:compared])
        # A compared class's index among the compared; the others' rows are
        # negatives of every output (an index no output has).
        position = np.full(n_outputs, float(compared))
        position[frequent] = np.arange(compared)
        compared_targets = position[targets.astype(np.intp)]
        totals = self._totals_in_turn(
            X, compared_targets, row_weights, order, candidates, n_features, compared
        )
        best = int(np.argmin(totals)) if np.isfinite(totals).any() else None
        if best is not None:
            self._start_training(n_features, n_outputs, chosen=candidates[best])
            self._sync_parameters()
            no_scores = np.empty((0, n_outputs))
            result = self._run_pass_by_outputs(
                X, targets, row_weights, order, no_scores
            )
            if result[2] == STATUS_OK:
                weight = float(row_weights[order].sum()) * compared
                classes = self.classes_[frequent]
                self._record_choice(candidates, totals, weight, classes)
                return result
        self._start_training(n_features, n_outputs)
        return None

    def _totals_in_turn(
        self, X, targets, row_weights, order, candidates, n_features, n_outputs
    ):
        """Each candidate's progressive loss over one pass of a new state with
        ``n_outputs`` outputs (inf where it diverged)."""
        totals = np.full(len(candidates), np.inf)
        no_scores = np.empty((0, n_outputs))
        for index, candidate in enumerate(candidates):
            self._start_training(n_features, n_outputs, chosen=candidate)
            self._sync_parameters()
            loss_sum, _, status = self._run_pass_by_outputs(
                X, targets, row_weights, order, no_scores
            )
            if status == STATUS_OK:
                totals[index] = loss_sum
        return totals

    def _run_candidates_side_by_side(self, X, targets, row_weights, order, candidates):
        """:meth:`_run_candidates` for ``fit``'s first pass of a one-output model
        (binary classifier, regressor), by a kernel that runs the candidates side
        by side: one read of the data for all of them, or for each block of them
        when their states together would exceed ``_side_by_side_bytes``. Every
        candidate computes what it computes alone, so the choice and the model
        are the same. Returns None where the algorithm has no such kernel for
        these candidates, and for one-vs-rest models: with K outputs per
        candidate the side-by-side kernel measured slower than one candidate
        after the other."""
        if self._state.shape[2] != 1 or self._is_averaging():
            return None
        parameters = [self._weight_parameters(candidate) for candidate in candidates]
        slots = {self._n_state_slots(candidate) for candidate in candidates}
        if len(slots) != 1 or not self._side_by_side_supported(parameters):
            return None
        (n_slots,) = slots
        n_features = self._state.shape[0] - 1
        totals, results, best, best_state = self._side_by_side_blocks(
            X, targets, row_weights, order, parameters, n_features, n_slots
        )
        if best is None:  # every candidate diverged: report the last one's row
            return results[-1]
        self._start_training(n_features, 1, chosen=candidates[best])
        self._sync_parameters()
        self._training.array = best_state
        self._record_choice(candidates, totals, float(row_weights[order].sum()))
        return results[best]

    def _side_by_side_blocks(
        self, X, targets, row_weights, order, parameters, n_features, n_slots
    ):
        """Run the candidates side by side, in blocks that run on ``n_jobs``
        threads; returns their totals (inf where they diverged), their
        ``(loss_sum, rows_done, status)``, the best one's index (None if all
        diverged) and its state."""
        count = len(parameters)
        threads = n_threads(self.n_jobs, count)
        # At most _side_by_side_bytes of candidate states per thread at a time.
        bytes_each = (n_features + 1) * n_slots * 8
        fitting = max(1, min(count, self._side_by_side_bytes // bytes_each))
        n_blocks = max(threads, -(-count // fitting))
        block_size = -(-count // n_blocks)
        blocks = [
            range(first, min(first + block_size, count))
            for first in range(0, count, block_size)
        ]
        totals = np.full(count, np.inf)
        results, best, best_state = [], None, None
        # One block per thread at a time, each wave reduced to the best state
        # so far before the next starts; in the order of the candidates, as one
        # block would choose: the first of the lowest totals.
        for first in range(0, len(blocks), threads):
            wave = blocks[first : first + threads]
            tasks = [
                functools.partial(
                    self._side_by_side_block,
                    X,
                    targets,
                    row_weights,
                    order,
                    [parameters[index] for index in block],
                    n_features,
                    n_slots,
                )
                for block in wave
            ]
            outcomes = run_in_threads(tasks, threads)
            best, best_state = self._best_of_wave(
                wave, outcomes, totals, results, best, best_state
            )
        return totals, results, best, best_state

    @staticmethod
    def _best_of_wave(wave, outcomes, totals, results, best, best_state):
        """Record a wave's outcomes into ``totals`` and ``results``; return the
        best candidate so far and its state."""
        for block, (outcome, block_best, state) in zip(wave, outcomes, strict=True):
            results.extend(outcome)
            for column, index in enumerate(block):
                loss_sum, _, status = outcome[column]
                if status == STATUS_OK:
                    totals[index] = loss_sum
            if block_best is not None:
                index = block[block_best]
                if best is None or totals[index] < totals[best]:
                    best, best_state = index, state
        return best, best_state

    def _side_by_side_block(
        self, X, targets, row_weights, order, parameters, n_features, n_slots
    ):
        """One block of candidates side by side in a new state (one output
        each): their ``(loss_sum, rows_done, status)``, the column of the
        block's best (None if all diverged) and its state."""
        state = new_state(n_features, n_slots, len(parameters))
        loss_sums, rows_done, statuses = outcome = (
            np.zeros(len(parameters)),
            np.zeros(len(parameters), dtype=np.int64),
            np.full(len(parameters), STATUS_OK, dtype=np.int64),
        )
        self._side_by_side_pass(
            X, targets, row_weights, order, state, parameters, outcome
        )
        results = [
            (float(loss_sums[column]), int(rows_done[column]), int(statuses[column]))
            for column in range(len(parameters))
        ]
        best = None
        for column in range(len(parameters)):
            if statuses[column] == STATUS_OK and (
                best is None or loss_sums[column] < loss_sums[best]
            ):
                best = column
        if best is None:
            return results, None, None
        return results, best, np.ascontiguousarray(state[:, :, best : best + 1])
