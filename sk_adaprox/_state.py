"""The fitted state of an online linear model: one array, public attributes as views.

A model with ``n_features`` features and K outputs keeps its per-coordinate state in
one C-contiguous float64 array of shape ``(n_features + 1, n_slots, K)``, the
``array`` of its :class:`~._training.TrainingState` (the estimator's ``_state``;
layout in the ``_kernels`` package docstring): a feature's weights and
accumulators sit side by side, so a row's update touches one block of memory per
non-zero. The last row is the intercept.

``coef_``, ``intercept_`` and the algorithm's accumulators (``sum_sq_grad_``, ...)
are :class:`StateSlot` attributes: views of one slot, in scikit-learn's shapes. They
are read-write (writing into them, or assigning an array of the same shape, changes
the model) and are not stored separately, so pickling stores the state once and a
loaded model keeps training where it stopped. Where an algorithm updates weights
lazily, reading any of them first brings every weight up to the current round.
Assigning an accumulator (``model.z_ = ...``) recomputes what depends on it, such as
FTRL's weights; writing into one in place does not. Weights that are computed when
read (the mean iterates of ``average``, a regressor's weights in the target's
units) are returned read-only, so that writing into them fails instead of changing
nothing; so is ``coef_`` where idle weights take their l1/l2 steps lazily (a weight
written in place would miss their record: assign the array). The intercept's
attributes read its row alone, O(n_outputs).

A regressor that learns a standardized target (``normalize_y``) serves ``coef_``
and ``intercept_`` in the target's units: computed from the weight slot when read
(the estimator's ``_weights_out``), and mapped back when assigned
(``_weights_in``).

``sparsify()`` replaces the state by the weights alone (``_served_coef``, a CSR
matrix, and ``_served_intercept``): ``coef_`` and ``intercept_`` then return those,
and the accumulators are gone.
"""

import mmap

import numpy as np

from ._kernels.common import WEIGHT

# States at least this large are put on small pages by ``on_small_pages`` (NumPy
# asks Linux for 2 MB pages from 4 MB on).
_SMALL_PAGES_FROM_BYTES = 4 * 2**20


def new_state(n_features, n_slots, n_outputs):
    """Zero state for ``n_features`` features, ``n_slots`` slots, ``n_outputs``."""
    return np.zeros((n_features + 1, n_slots, n_outputs))


def on_small_pages(state):
    """A zero array shaped like ``state`` (which must be all zeros) whose memory
    becomes resident only where it is written, 4 kB at a time.

    NumPy advises Linux to back arrays of 4 MB or more with 2 MB pages, which
    speeds up a pass that touches most of the state (fewer TLB misses: 15 % on
    a pass over 4M hashed features) but makes each first write to a page zero
    and commit 2 MB. A state that a few rows touch here and there, such as each
    of a stream's ``"auto"`` candidates over hashed features during its first
    rows, would then be resident whole: 16 candidates of 2**24 features took
    6 GB and 6 s to start. This maps private anonymous memory (zero until
    written) and advises against large pages where the platform allows it. Small
    states are returned as they are.
    """
    if state.nbytes < _SMALL_PAGES_FROM_BYTES:
        return state
    flags = getattr(mmap, "MAP_PRIVATE", 0) | getattr(mmap, "MAP_ANONYMOUS", 0)
    # Private: a read of an unwritten page maps the zero page, allocating nothing
    # (a shared anonymous map, Python's default, allocates on read too).
    memory = (
        mmap.mmap(-1, state.nbytes, flags=flags)
        if flags
        else mmap.mmap(-1, state.nbytes)
    )
    if hasattr(mmap, "MADV_NOHUGEPAGE"):
        memory.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(memory, dtype=state.dtype).reshape(state.shape)


def is_on_small_pages(state):
    """Whether ``state`` was made by :func:`on_small_pages`."""
    base = state.base
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)


class StateSlot:
    """A fitted attribute that is a view of one slot of the estimator's ``_state``.

    Parameters
    ----------
    slot : int
        Index on the state's slot axis (``_kernels.WEIGHT``, ...).
    intercept : bool, default=False
        View the intercept row, shape ``(n_outputs,)``; otherwise the feature rows,
        shaped like ``coef_`` (the estimator's ``_coef_shape``).
    rule : str or None, default=None
        The update rule (the estimator's ``_state_rule()``) whose state has this
        slot; None for a slot of every rule. Other rules may use the same index
        for something else.
    """

    def __init__(self, slot, *, intercept=False, rule=None):
        self.slot = slot
        self.intercept = intercept
        self.rule = rule

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, estimator, owner=None):
        if estimator is None:
            return self
        served = self._served(estimator)
        if served is not None:
            return served
        view = self._view(estimator)
        if view is None:
            if _is_sparsified(estimator):
                raise AttributeError(
                    f"{self.name} was dropped by sparsify(), which keeps only what "
                    "prediction needs."
                )
            raise AttributeError(
                f"{type(estimator).__name__!r} object has no attribute {self.name!r}"
            )
        if self.slot != WEIGHT:
            return view
        computed = estimator._averaged_rounds() > 0
        if computed:
            view = self._shaped(
                estimator,
                estimator._served_weights(intercept_only=self.intercept),
            )
        value = estimator._weights_out(view, self.intercept)
        if computed or value is not view:
            # Computed when read, not a view: writing into it would change
            # nothing, so it is read-only (assign the attribute instead).
            value.flags.writeable = False
        elif estimator._weights_are_lazy() and (
            not self.intercept or not estimator._weights_are_lazily_regularized()
        ):
            # Lazy weights: a weight written in place would be lost at the next
            # read (weights computed from accumulators) or miss the record of its
            # lazy l1/l2 steps; assigning the attribute keeps both right. (The
            # intercept of lazily regularised weights is stored, never lazy.)
            value = value.view()
            value.flags.writeable = False
        return value

    def __set__(self, estimator, value):
        if _is_sparsified(estimator):
            raise AttributeError(
                f"{self.name} cannot be set on a model that sparsify() reduced to "
                "its weights; fit a new model instead."
            )
        # An assignment ends a stream's choice among "auto" candidates: the
        # served one goes on with the assigned values.
        estimator._end_choice()
        # Every weight caught up, not the intercept's alone: what the assignment
        # leads to (accumulators set from the weights, decay records) reads them.
        view = self._view(estimator, whole=True)
        if view is None:
            raise AttributeError(
                f"{self.name} is a view of the fitted state; fit the model before "
                "setting it."
            )
        if self.slot == WEIGHT and estimator._averaged_rounds():
            raise AttributeError(
                f"{self.name} of a model with average={estimator.average!r} is the "
                "mean of its iterates, computed when read; it cannot be assigned "
                "once averaging has begun. Pass coef_init and intercept_init to a "
                "new fit, or set average=False."
            )
        value = np.asarray(value, dtype=np.float64)
        if value.shape != view.shape:
            raise ValueError(
                f"{self.name} has shape {view.shape}; cannot set it to an array of "
                f"shape {value.shape}. Refit to change the number of features or "
                "classes."
            )
        if self.slot == WEIGHT:
            value = estimator._weights_in(value, self.intercept)
        else:
            estimator._settle_averages()  # the weights may change with it
            view = self._view(estimator)
        view[...] = value
        if self.slot != WEIGHT:
            estimator._accumulators_assigned()
        else:
            estimator._weights_assigned()

    def _served(self, estimator):
        """The weights a sparsified model keeps, for the weight slot; else None."""
        if self.slot != WEIGHT or not _is_sparsified(estimator):
            return None
        name = "_served_intercept" if self.intercept else "_served_coef"
        return estimator._weights_out(getattr(estimator, name), self.intercept)

    def _view(self, estimator, whole=False):
        training = getattr(estimator, "_training", None)
        state = None if training is None else training.array
        if state is None or self.slot >= state.shape[1]:
            return None
        if self.rule is not None and estimator._state_rule() != self.rule:
            return None
        if whole:
            estimator._kernel_state()  # writable (a read-only memory map is copied)
        # Lazy weights are caught up first: a state attribute is never behind.
        # Reading the intercept's attributes catches up its row alone, O(n_outputs)
        # (unless ``whole``).
        if self.intercept and not whole:
            return estimator._intercept_for_reading()[0, self.slot, :]
        return self._shaped(estimator, estimator._state_for_reading()[:, self.slot, :])

    def _shaped(self, estimator, rows):
        """``rows`` (n_features + 1, n_outputs), the intercept last, as this
        attribute: the intercept row, or the feature rows in ``coef_``'s shape."""
        if self.intercept:
            return rows[-1]
        features = rows[:-1]
        n_features, n_outputs = features.shape
        if estimator._coef_shape(n_features, n_outputs) == (n_features,):
            return features[:, 0]
        return features.T


def _is_sparsified(estimator):
    return hasattr(estimator, "_served_coef")


def raise_if_unrepresentable(count, condition):
    """Raise if ``count`` assigned weights could not be given accumulators."""
    if count:
        raise ValueError(
            f"{count} assigned non-zero weights cannot be represented where "
            f"{condition} and a coordinate has seen no gradient (its weight is "
            "then 0 by the update rule); those weights were left as they were. "
            "Use a positive damping parameter to assign any weight."
        )
