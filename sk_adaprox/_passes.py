"""The pass loop: ``fit``'s passes over its rows and a stream's one pass per call,
with the stopping rule (``tol``, ``n_iter_no_change``), early stopping on held-out
rows, divergence errors, verbose reports and the warning against a model worse
than one without features."""

import functools
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.utils import check_random_state

from ._kernels.common import STATUS_NONFINITE_SCORE, STATUS_OK, weighted_loss_sum
from ._losses import JOINT_LOSSES, LOSS_CODES, baseline_loss, loss_terms
from ._state import is_on_small_pages
from ._threads import n_threads, output_blocks, run_in_threads
from .exceptions import PoorFitWarning

# How far above the baseline's loss (relatively) the model's may be before fit
# warns: on data without signal a model's loss is about the baseline's, a little
# above it (1 % is an R^2 of -0.01 for squared error).
_BASELINE_MARGIN = 0.01


@dataclass
class _Progress:
    """The stopping rule's record of the passes: the best monitored loss, the
    passes since it improved by ``tol``, and with early stopping the held-out
    losses and a copy of the training state after the best pass."""

    tol: float | None
    n_iter_no_change: int
    best_loss: float = np.inf
    passes_without_improvement: int = 0
    converged: bool = False
    validation_losses: list = field(default_factory=list)
    best_validation_loss: float = np.inf
    best_pass: int | None = None
    best_state: object = None

    def record(self, monitored):
        """Count a pass's monitored loss; set ``converged`` when it has not
        improved by ``tol`` for ``n_iter_no_change`` passes."""
        if self.tol is None:
            return
        if monitored > self.best_loss - self.tol:
            self.passes_without_improvement += 1
        else:
            self.passes_without_improvement = 0
        self.best_loss = min(self.best_loss, monitored)
        self.converged = self.passes_without_improvement >= self.n_iter_no_change

    def record_validation(self, loss, n_pass, training):
        """Count a pass's held-out loss; keep a copy of ``training`` after the
        best pass."""
        self.validation_losses.append(loss)
        if loss < self.best_validation_loss:
            self.best_validation_loss, self.best_pass = loss, n_pass
            self.best_state = training.copy()


@dataclass
class _KeptBlocks:
    """A one-vs-rest model's blocks of outputs after a pass of ``fit`` trained
    them on threads and wrote them back, kept for the next pass to train on
    instead of copying them again. They hold the state's outputs (bar the
    feature slots of blocks after the first, which
    :meth:`._training.TrainingState.outputs` copies again) while the model's
    state is the same object, with the same array, at the round the pass left
    it at and with the same weight parameters (a pass trained elsewhere
    advances the round; parameters adopted between passes may rewrite the
    array)."""

    blocks: dict = field(default_factory=dict)
    training: object = None
    array: object = None
    t: int = -1
    parameters: tuple | None = None

    @classmethod
    def for_passes(cls, max_passes, validation, verbose):
        """An empty keeper for a call of several passes that nothing reads
        between them but the next pass (no early stopping, no ``verbose``), or
        None."""
        if max_passes > 1 and validation is None and not verbose:
            return cls()
        return None

    def of(self, training):
        """{(start, stop): block} kept for ``training`` as it is now, or {}
        (and the stale blocks dropped, so that they do not stay in memory
        beside the pass's new copies)."""
        if (
            training is self.training
            and training.array is self.array
            and training.t == self.t
            and training.parameters == self.parameters
        ):
            return self.blocks
        self.blocks = {}
        return {}

    def keep(self, blocks, training, t):
        """Keep ``blocks``, just written back into ``training``, which the pass
        leaves at round ``t``."""
        self.blocks, self.training, self.array = blocks, training, training.array
        self.t, self.parameters = t, training.parameters


class PassLoop:
    """:class:`~._base.OnlineLinearModel`'s passes over the data."""

    def _plan_passes(self, X, targets, row_weights, *, stratify):
        """The arguments of ``fit``'s :meth:`_run_passes`: up to ``max_iter``
        passes, shuffled if ``shuffle``, and with ``early_stopping`` over the rows
        left after holding out a validation set (stratified by target where
        ``stratify``). Called while validating: a split that cannot be made
        raises before the model changes."""
        random_state = check_random_state(self.random_state)
        rows = validation = None
        if self.early_stopping:
            rows, held_out = self._validation_split(targets, stratify, random_state)
            validation = (X[held_out], targets[held_out], row_weights[held_out])
        return {
            "max_passes": self.max_iter,
            "rng": random_state if self.shuffle else None,
            "rows": rows,
            "validation": validation,
        }

    def _validation_split(self, targets, stratify, random_state):
        """Sorted row indices ``(training, validation)`` for early stopping."""
        splitter = StratifiedShuffleSplit if stratify else ShuffleSplit
        split = splitter(
            n_splits=1, test_size=self.validation_fraction, random_state=random_state
        )
        try:
            training, validation = next(
                split.split(np.empty((targets.shape[0], 1)), targets)
            )
        except ValueError as error:
            raise ValueError(
                f"early_stopping=True, but validation_fraction="
                f"{self.validation_fraction} cannot split {targets.shape[0]} rows "
                f"into a training and a validation set: {error}"
            ) from error
        return np.sort(training), np.sort(validation)

    def _fit_passes(self, X, targets, row_weights, plan, initial_weights=(None, None)):
        """Run ``fit``'s passes as planned by :meth:`_plan_passes`, from the
        ``(coef_init, intercept_init)`` checked by :meth:`_checked_initial_weights`
        where given."""
        self.validation_losses_ = None
        coef_init, intercept_init = initial_weights
        if coef_init is not None or intercept_init is not None:
            self._sync_parameters()
            if coef_init is not None:
                self.coef_ = coef_init
            if intercept_init is not None:
                self.intercept_ = intercept_init
        self._run_passes(X, targets, row_weights, **plan)

    def _checked_initial_weights(
        self, coef_init, intercept_init, n_features, n_outputs
    ):
        """``fit``'s ``coef_init`` and ``intercept_init`` as float arrays of the
        shapes of ``coef_`` and ``intercept_`` (a flat array of the right size is
        accepted too, as SGD accepts it); ValueError naming the shapes otherwise."""
        if coef_init is not None or intercept_init is not None:
            self._check_can_start_from_weights(n_features, n_outputs)
            if self.warm_start and self._is_initialized() and self._averaged_rounds():
                raise ValueError(
                    f"coef_init and intercept_init cannot replace the weights of a "
                    f"model averaging its iterates (average={self.average!r}) once "
                    "averaging has begun. Set warm_start=False to start anew."
                )
        wanted = {
            "coef_init": (coef_init, self._coef_shape(n_features, n_outputs)),
            "intercept_init": (intercept_init, (n_outputs,)),
        }
        checked = []
        for name, (value, shape) in wanted.items():
            if value is not None:
                value = np.asarray(value, dtype=np.float64)
                if value.size != np.prod(shape) or (
                    value.ndim > 1 and value.shape != shape
                ):
                    raise ValueError(
                        f"{name} has shape {value.shape}; this data needs {shape}."
                    )
                if not np.isfinite(value).all():
                    raise ValueError(f"{name} contains NaN or infinity.")
                value = value.reshape(shape)
            checked.append(value)
        return tuple(checked)

    def _run_passes(
        self,
        X,
        targets,
        row_weights,
        *,
        max_passes,
        rng,
        row_scores=None,
        rows=None,
        validation=None,
        streaming=False,
    ):
        """Run up to ``max_passes`` passes over X; set ``n_iter_`` and advance ``t_``.

        With ``rng`` each pass visits the rows in a fresh random order, otherwise in
        the given order; ``rows`` (indices) restricts the passes to those rows.
        Passes stop early once the monitored loss has not improved by ``tol`` for
        ``n_iter_no_change`` passes. It is the mean training loss of the pass, or,
        with ``validation=(X, targets, row_weights)``, the mean loss on those
        held-out rows after the pass; the model then returns to its state after
        the pass of lowest validation loss, and ``validation_losses_`` records
        each pass's. A loss is the mean over rows (weighted) and over outputs, so
        that ``tol`` means the same for a 20-class one-vs-rest model as for each
        of its binary problems (the multinomial loss is one term per row). With
        ``row_scores`` (one pass), row i's scores before its update are written
        to ``row_scores[i]``. ``streaming`` marks a ``partial_fit`` call (see
        :meth:`_run_candidates`).
        """
        self._check_training_state()
        weight_total = self._loss_weight(row_weights, rows, streaming)
        if row_scores is None:
            row_scores = np.empty((0, self._state.shape[2]))
        progress = _Progress(self.tol, self.n_iter_no_change)
        kept = _KeptBlocks.for_passes(max_passes, validation, self.verbose)
        for n_pass in range(1, max_passes + 1):
            order = _pass_order(X.shape[0], rows, rng)
            started = time.perf_counter()
            loss_sum = self._one_pass(
                X, targets, row_weights, order, row_scores, streaming, n_pass, kept
            )
            mean_loss = loss_sum / weight_total if weight_total > 0 else 0.0
            monitored = mean_loss
            if validation is not None:
                monitored = self._validation_loss(validation)
                progress.record_validation(monitored, n_pass, self._training)
            if self.verbose:
                self._report_pass(
                    n_pass, order.shape[0], mean_loss, validation, monitored, started
                )
            progress.record(monitored)
            if progress.converged:
                break
        self._end_passes(progress, validation)
        if not streaming:
            self._warn_if_worse_than_baseline(
                mean_loss, _visited(X, targets, row_weights, rows)
            )
        if max_passes > 1 and self.tol is not None and not progress.converged:
            _warn_not_converged(validation is not None)

    def _stream_pass(self, X, targets, row_weights, row_scores=None):
        """A ``partial_fit`` call's one pass over its batch, in its order: the
        pass loop without its stopping rules, which one pass does not need (with
        ``verbose``, the loop itself, which reports the pass)."""
        if self.verbose:
            self._run_passes(
                X,
                targets,
                row_weights,
                max_passes=1,
                rng=None,
                row_scores=row_scores,
                streaming=True,
            )
            return
        if row_scores is None:
            row_scores = np.empty((0, self._state.shape[2]))
        order = np.arange(X.shape[0])
        self._one_pass(X, targets, row_weights, order, row_scores, True, 1)

    def _loss_weight(self, row_weights, rows, streaming):
        """The weight a pass's summed loss is divided by for its mean: the visited
        rows' weights times the outputs. The mean loss is monitored (``tol``,
        validation), reported (``verbose``) or held against a model without
        features (``fit``); a stream's one pass needs none of them (0)."""
        if streaming and not self.verbose:
            return 0.0
        visited_weights = row_weights if rows is None else row_weights[rows]
        return float(visited_weights.sum()) * loss_terms(
            self.loss, self._state.shape[2]
        )

    def _one_pass(
        self, X, targets, row_weights, order, row_scores, streaming, n_pass, kept=None
    ):
        """Pass ``n_pass`` over the rows in ``order``: the candidates' while the
        model is choosing, else the model's; advance ``t_`` and the passes done;
        raise on divergence. Returns the pass's summed loss. ``kept``: a
        :class:`_KeptBlocks` the passes of one call share, or None."""
        self._pass_starting(streaming)
        self._sync_parameters()
        failed_row = None
        if self._choosing():
            final = not streaming or self.t_ + order.shape[0] >= self._auto_stream_rows
            loss_sum, rows_done, status = self._run_candidates(
                X, targets, row_weights, order, row_scores, final
            )
        elif self._runs_in_shards(order.shape[0]):
            loss_sum, status, failed_row = self._run_pass_by_shards(
                X, targets, row_weights, order, row_scores
            )
            rows_done = 0  # the shards' pass has counted its rows
        else:
            loss_sum, rows_done, status = self._run_pass_by_outputs(
                X, targets, row_weights, order, row_scores, kept
            )
        training = self._training  # the served candidate's, where they ran
        training.t += int(rows_done)
        self.n_iter_ = n_pass
        if status != STATUS_OK:
            sharded = failed_row is not None
            if not sharded:
                failed_row = int(order[rows_done])
            raise self._divergence_error(status, failed_row, n_pass, sharded)
        if not streaming:
            training.data_passes += 1
        return loss_sum

    def _run_pass_by_outputs(
        self, X, targets, row_weights, order, row_scores, kept=None
    ):
        """:meth:`_run_pass`, with the outputs of a one-vs-rest model in blocks
        trained apart on ``n_jobs`` threads, each on a copy of its outputs'
        state (:meth:`._training.TrainingState.outputs`) written back after the
        pass. An output's training does not depend on the others', so the model
        is the one a single thread trains; the pass's summed loss is summed by
        blocks (its last bits may differ). Where a block diverges, the pass runs
        again in one thread from the state before it, to stop at the row and
        with the state one thread gives. The copies are kept in ``kept`` (a
        :class:`_KeptBlocks`) for the next pass, and taken from it."""
        threads = self._output_threads(X)
        if threads == 1:
            return self._run_pass(X, targets, row_weights, order, row_scores)
        training = self._training
        # Writable before the threads write their blocks back (a model loaded
        # with mmap_mode="r" has read-only arrays, replaced here by copies).
        training.writable("array")
        for name in self._per_output_extras:
            if name in training.extras:
                training.writable(name)
        split = {
            "feature_slots": self._feature_slots(),
            "per_output": self._per_output_extras,
        }
        blocks = output_blocks(self._state.shape[2], threads)
        reusable = {} if kept is None else kept.of(training)
        tasks = [
            functools.partial(
                self._output_block_pass,
                (start, stop),
                split,
                (X, targets, row_weights, order),
                row_scores.shape[0],
                reusable.get((start, stop)),
            )
            for start, stop in blocks
        ]
        outcomes = run_in_threads(tasks, threads)
        if any(result[2] != STATUS_OK for _, result, _ in outcomes):
            return self._run_pass(X, targets, row_weights, order, row_scores)
        trained = {
            bounds: block
            for bounds, (block, _, _) in zip(blocks, outcomes, strict=True)
        }
        writes = [
            functools.partial(training.put_outputs, start, block, **split)
            for (start, _), block in trained.items()
        ]
        run_in_threads(writes, threads)
        if kept is not None:
            kept.keep(trained, training, training.t + order.shape[0])
        for (start, stop), (_, _, scores) in zip(blocks, outcomes, strict=True):
            if scores.shape[0]:
                row_scores[:, start:stop] = scores
        loss_sum = sum(result[0] for _, result, _ in outcomes)
        return loss_sum, order.shape[0], STATUS_OK

    def _output_threads(self, X):
        """The threads to train blocks of outputs on over CSR rows X: 1 for one
        output, for an algorithm or a loss (multinomial) whose outputs must
        train together, and where
        copying the blocks, O(n_features * outputs), would cost more than the
        batch (fewer non-zeros than features) or would make a stream's
        candidates kept on small pages (._state.on_small_pages) resident."""
        state = self._state
        n_outputs = state.shape[2]
        if (
            n_outputs > 1
            and X.data.shape[0] >= state.shape[0]
            and not is_on_small_pages(state)
            and self._outputs_split_supported()
            and self.loss not in JOINT_LOSSES
        ):
            return n_threads(self.n_jobs, n_outputs)
        return 1

    def _output_block_pass(self, bounds, split, batch, n_scores, reuse=None):
        """Train outputs ``start:stop = bounds`` of the model alone over
        ``batch = (X, targets, row_weights, order)``, on a copy of their state
        (``reuse``'s array where given, see
        :meth:`._training.TrainingState.outputs`); returns the copy, the pass's
        ``(loss_sum, rows_done, status)`` and the rows' scores."""
        start, stop = bounds
        X, targets, row_weights, order = batch
        block = self._training.outputs(start, stop, **split, reuse=reuse)
        # A class outside the block is a negative row for each of its outputs;
        # a block of one output is a binary problem, its targets +1 and -1.
        in_block = (targets >= start) & (targets < stop)
        if stop - start == 1:
            block_targets = np.where(in_block, 1.0, -1.0)
        else:
            block_targets = np.where(in_block, targets - start, float(stop - start))
        scores = np.empty((n_scores, stop - start))
        worker = self._for_training(block)
        result = worker._run_pass(X, block_targets, row_weights, order, scores)
        return block, result, scores

    def _end_passes(self, progress, validation):
        """After early stopping's passes: record their held-out losses and go
        back to the state after the best one."""
        if validation is None:
            return
        self.validation_losses_ = np.asarray(progress.validation_losses)
        if progress.best_pass != self.n_iter_:
            self._training = progress.best_state

    def _report_pass(self, n_pass, n_rows, mean_loss, validation, monitored, started):
        report = "" if validation is None else f", validation loss {monitored:.6g}"
        print(
            f"-- Epoch {n_pass}: {n_rows} rows, average loss "
            f"{mean_loss:.6g}{report}, "
            f"{np.count_nonzero(self._current_weights())} non-zero "
            f"weights, {time.perf_counter() - started:.3f} s",
            flush=True,
        )

    def _validation_loss(self, validation):
        """Mean loss (per row, weighted, and per output) on the held-out rows."""
        X, targets, row_weights = validation
        scores = self._scores_of(X)
        loss_sum = weighted_loss_sum(
            LOSS_CODES[self.loss],
            self._loss_epsilon(),
            targets,
            scores,
            row_weights,
        )
        weight_total = float(row_weights.sum()) * loss_terms(self.loss, scores.shape[1])
        return loss_sum / weight_total if weight_total > 0 else 0.0

    def _warn_if_worse_than_baseline(self, pass_loss, training):
        """Warn (:class:`~.exceptions.PoorFitWarning`) when the model predicts its
        training rows ``(X, targets, row_weights)`` worse than the best model
        without features (the intercept alone).

        The last pass's mean loss ``pass_loss`` is the cheap test: each row was
        scored before the model learned from it, so it is usually above the
        model's own loss on the rows. Only where it is above the baseline's is the
        model scored on the rows, O(their non-zeros), to tell a pass that learned
        (a first pass over hard data) from a model that did not.
        """
        X, targets, row_weights = training
        baseline = baseline_loss(
            self.loss,
            self._loss_epsilon(),
            targets,
            row_weights,
            self._state.shape[2],
            bool(self.fit_intercept),
        )
        limit = baseline * (1.0 + _BASELINE_MARGIN)
        if not pass_loss > limit:
            return
        model_loss = self._validation_loss(training)
        if not model_loss > limit:
            return
        model = "the intercept alone" if self.fit_intercept else "a score of 0"
        warnings.warn(
            f"The model's mean training loss ({model_loss:.6g}) is above that of "
            f"{model} ({baseline:.6g}): it predicts the training data worse than a "
            "model without features. Its steps are likely too large for the "
            "features' scale: scale the features (StandardScaler, or MaxAbsScaler "
            f"for sparse data) or use a {self._smaller_steps} "
            f"{self._step_size_name} (now "
            f"{getattr(self, self._step_size_name)!r}).",
            PoorFitWarning,
            stacklevel=4,
        )

    def _divergence_error(self, status, row, n_pass, sharded=False):
        what = "score" if status == STATUS_NONFINITE_SCORE else "update"
        step = self._step_size_name
        kept = "this pass (its shards' merges undone)" if sharded else "that row"
        return ValueError(
            f"Training diverged at row {row} of the data passed in (pass {n_pass}): "
            f"its {what} is not finite. The model keeps the finite state it had "
            f"before {kept}. Use a {self._smaller_steps} {step} (now "
            f"{getattr(self, step)!r}) or "
            "scale the features (StandardScaler, or MaxAbsScaler for sparse data)."
        )


def _warn_not_converged(validating):
    """ConvergenceWarning for ``fit``'s caller: max_iter passes ran without the
    monitored loss settling."""
    warnings.warn(
        "Maximum number of passes (max_iter) reached before the "
        f"{'validation' if validating else 'training'} loss "
        "stopped improving; consider increasing max_iter.",
        ConvergenceWarning,
        stacklevel=4,
    )


def _visited(X, targets, row_weights, rows):
    """``(X, targets, row_weights)`` at the passes' ``rows`` (all: None)."""
    if rows is None:
        return X, targets, row_weights
    return X[rows], targets[rows], row_weights[rows]


def _pass_order(n_rows, rows, rng):
    """The rows a pass visits, in order: ``rows`` (or every row), shuffled by
    ``rng`` where given."""
    if rows is not None:
        return rows if rng is None else rng.permutation(rows)
    return np.arange(n_rows) if rng is None else rng.permutation(n_rows)
