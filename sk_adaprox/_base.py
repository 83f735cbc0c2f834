"""The model every sk_adaprox estimator shares.

An estimator is assembled from an *algorithm* mixin (``_adagrad._AdaGrad``, ...,
whose hooks :class:`._algorithm.Algorithm` lists), a *task* mixin
(``_classification.OnlineClassifierMixin`` or ``_regression.OnlineRegressorMixin``:
labels to kernel targets, ``fit``, ``partial_fit``, predictions) and
:class:`OnlineLinearModel` below, itself made of rooms of one job each:

- :mod:`._passes`: the pass loop (shuffling, stopping, early stopping,
  divergence, verbose output);
- :mod:`._candidates`: the choice of ``"auto"`` parameters;
- :mod:`._averaged`: iterate averaging;
- this module: input validation, the training state's lifecycle
  (:class:`._training.TrainingState`), the parameters it is trained with, the
  linear scores predictions start from, and ``sparsify``.
"""

import copy
import functools
import operator
from numbers import Integral, Real
from typing import Self

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    validate_data,
)

from ._algorithm import Algorithm
from ._averaged import Averaging
from ._candidates import CandidateSearch
from ._kernels.common import WEIGHT
from ._kernels.sparse import linear_scores
from ._passes import PassLoop
from ._shards import ShardedPasses
from ._state import StateSlot, _is_sparsified, new_state
from ._threads import NONZEROS_PER_THREAD, csr_row_blocks, n_threads, run_in_threads
from ._training import TrainingState
from ._validation import as_kernel_csr, checked_X, dense_to_csr


class OnlineLinearModel(
    CandidateSearch, PassLoop, ShardedPasses, Averaging, Algorithm, BaseEstimator
):
    """Base class of the online linear models.

    The model trains one :class:`~._training.TrainingState` (``_training``): its
    per-coordinate array (``_state``), the round count ``t_`` and everything else
    training continues from. A call costs its own non-zeros: the state, lazy
    bookkeeping included, carries over between calls, and only reading a state
    attribute (``coef_``, ...), or changing a parameter of the weight parameters
    between calls, visits every feature.
    """

    coef_ = StateSlot(WEIGHT)
    intercept_ = StateSlot(WEIGHT, intercept=True)

    _parameter_constraints: dict = {
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, None, None, closed="neither"), None],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "average": [Interval(Integral, 0, None, closed="left"), "boolean"],
        "verbose": ["verbose"],
        "n_jobs": [
            None,
            Interval(Integral, None, -1, closed="right"),
            Interval(Integral, 1, None, closed="left"),
        ],
        "shards": [
            None,
            Interval(Integral, 1, None, closed="left"),
            StrOptions({"hogwild"}),
        ],
        "sync_rows": [
            None,
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
        ],
    }

    # A stream's choice among "auto" candidates (._candidates.StreamChoice).
    _stream_choice = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # -- input ----------------------------------------------------------------------

    def _validate_training_data(self, X, y, sample_weight, *, reset, y_numeric):
        """Validate X, y and sample_weight; return X as kernel-ready CSR.

        float32/float64 CSR input with int32 or int64 indices is used as it is; other
        sparse formats and dense arrays are converted once. Row weights are always a
        fresh float64 array, so the caller's ``sample_weight`` is never written.
        """
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
            order="C",
            accept_large_sparse=True,
            y_numeric=y_numeric,
            reset=reset,
        )
        sample_weight = _check_sample_weight(
            sample_weight, X, dtype=np.float64, ensure_non_negative=True, copy=True
        )
        if not sample_weight.any():  # as scikit-learn >= 1.9 says; 1.8 accepted them
            raise ValueError(
                "Sample weights must contain at least one non-zero number."
            )
        return as_kernel_csr(X), y, sample_weight

    # -- the training state ---------------------------------------------------------

    @property
    def t_(self):
        """Rounds trained: the rows learnt from, over every call."""
        training = getattr(self, "_training", None)
        if training is None:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute 't_' (not fitted)"
            )
        return training.t

    @t_.setter
    def t_(self, value):
        self._training.t = value

    @property
    def _state(self):
        """The training state's per-coordinate array."""
        return self._training.array

    def _is_initialized(self):
        return getattr(self, "_training", None) is not None

    def _check_fitted(self):
        """check_is_fitted, at the cost of one attribute lookup when fitted."""
        if getattr(self, "_training", None) is None:
            check_is_fitted(self)

    def _check_warm_start(self, n_features, n_outputs):
        """Raise unless the fitted state can be continued on data of this shape."""
        self._check_training_state()
        expected = self._coef_shape(n_features, n_outputs)
        fitted = self._coef_shape(self._state.shape[0] - 1, self._state.shape[2])
        if fitted != expected:
            raise ValueError(
                f"warm_start=True, but the model was fitted with coef_ of shape "
                f"{fitted} and this data needs {expected} (different "
                "number of features or classes). Set warm_start=False to refit."
            )

    def _start_training(self, n_features, n_outputs, chosen=None):
        """A new training state, round 0; ``chosen`` gives the values of the
        parameters set to ``"auto"`` (see :meth:`_param`). Drops what the model
        served or chose before."""
        for name in (
            "_served_coef",
            "_served_intercept",
            "chosen_params_",
            "candidate_params_",
            "candidate_losses_",
            "candidate_classes_",
        ):
            if hasattr(self, name):
                delattr(self, name)
        self._stream_choice = None
        self._training = TrainingState(
            array=None, chosen=chosen, average_start=self._requested_average_start()
        )
        self._training_started(n_features, n_outputs)
        n_slots = self._n_state_slots() + self._n_average_slots()
        self._training.array = new_state(n_features, n_slots, n_outputs)

    def _for_training(self, training):
        """This estimator over another training state: a shallow copy whose hooks
        (``_run_pass``, ...) train ``training``, for a thread that trains a part
        of the model apart. The estimator itself is not changed."""
        worker = copy.copy(self)
        worker._training = training
        worker._stream_choice = None
        return worker

    def _check_training_state(self):
        training = getattr(self, "_training", None)
        if training is None or training.array is None:
            raise ValueError(
                f"This {type(self).__name__} was sparsified: sparsify() kept only "
                "the weights, not the state training continues from. Call fit "
                "(with warm_start=False) to train a new model."
            )

    def _kernel_state(self):
        """The state array, made writable C-contiguous float64 first if it is not
        (e.g. a read-only memory map from ``joblib.load(..., mmap_mode="r")``)."""
        self._check_training_state()
        return self._training.writable("array")

    def _with_rule_slots(self, state, n_rule_slots):
        """``state`` with ``n_rule_slots`` slots before the averaging slots (lazy
        bookkeeping that a parameter change turns on or off): its leading rule
        slots kept, new ones zero, the averaging slots kept last. A resized
        state becomes the model's."""
        averaging = self._n_average_slots()
        if state.shape[1] == n_rule_slots + averaging:
            return state
        kept = min(state.shape[1] - averaging, n_rule_slots)
        resized = np.zeros((state.shape[0], n_rule_slots + averaging, state.shape[2]))
        resized[:, :kept] = state[:, :kept]
        if averaging:
            resized[:, -averaging:] = state[:, -averaging:]
        self._training.array = resized
        return resized

    # -- the parameters the state is trained with -----------------------------------

    def _checked_parameters(self):
        """All parameter values, validated first if any changed since the values
        recorded in ``_validated_parameters``.

        scikit-learn validates them when ``fit`` starts or ``partial_fit`` first
        does; a stream's later calls skip that, so a ``set_params`` between calls
        is validated here, at the cost of one tuple comparison when nothing changed.
        """
        current = _parameter_values(self)
        if current != getattr(self, "_validated_parameters", None):
            # Skipped inside scikit-learn's fit context, which has just validated
            # them, and where the user asked for it (skip_parameter_validation).
            if not get_config()["skip_parameter_validation"]:
                self._validate_params()
            self._check_parameters()
            self._check_shards()
        return current

    def _sync_parameters(self):
        """Adopt parameters changed (set_params) since the state was last trained."""
        validated = self._checked_parameters()
        training = self._training
        if self._requested_average_start() != training.average_start:
            raise ValueError(
                f"average={self.average!r}, but the model was trained with "
                f"average={self._average_when_trained()!r}: averaging is set up "
                "when training starts. Set it back, or call fit (with "
                "warm_start=False) to start over."
            )
        new = self._weight_parameters()
        old = training.parameters
        if new == old:
            self._validated_parameters = validated
            return
        state = self._kernel_state()
        if old is None:  # a new state: all zeros, finite under any parameters
            self._adopt_parameters(state, old, new)
        else:
            self._adopt_changed_parameters(state, old, new)
        self._training.parameters = new
        self._validated_parameters = validated
        self._weights_adopted()

    def _adopt_changed_parameters(self, state, old, new):
        """Adopt ``new`` parameters into a trained state, or raise and keep it
        (and the ``old`` ones) where its weights would not be finite."""
        self._settle_averages()  # every weight may change: settle under old
        saved = self._state.copy()
        self._adopt_parameters(self._state, old, new)  # may replace the array
        if not np.isfinite(self._state).all():
            self._training.array = saved
            raise ValueError(
                f"{type(self).__name__}: under the parameters set since the last "
                f"call {new}, the fitted state's weights are not finite. The model "
                f"keeps its state and its earlier parameters {old}; set them back "
                "or fit anew."
            )

    # -- weights as they are read -------------------------------------------------

    def _state_for_reading(self):
        """The state with every weight current: what the state attributes view.

        With lazy weights this catches every feature up to round ``t_`` in place,
        O(n_features), once per round count; the trained model is the same (up to
        rounding: the catch-up is the closed form of the same steps).
        """
        training = self._training
        if self._weights_behind():
            self._catch_up_weights(self._kernel_state())
            training.weights_round = training.t
        return training.array

    def _intercept_for_reading(self):
        """The state's intercept row, shape (1, n_slots, n_outputs), with its weight
        current: :meth:`_state_for_reading` for the intercept alone, O(n_outputs).
        Every rule's catch-up takes a state's last row for the intercept, so it
        runs on the one-row slice; the features stay behind."""
        state = self._training.array
        if self._weights_behind():
            state = self._kernel_state()
            self._catch_up_weights(state[-1:])
        return state[-1:]

    def _weights_behind(self):
        """Whether the WEIGHT slot may lag behind round ``t_`` (lazy weights not
        caught up since the last round)."""
        training = self._training
        return self._weights_are_lazy() and training.weights_round != training.t

    def _weights_adopted(self):
        """Record that the weights were just recomputed under new parameters:
        current unless they are lazy."""
        training = self._training
        training.weights_round = -1 if self._weights_are_lazy() else training.t

    def _current_weights(self):
        """Every feature's weights at round ``t_``, without changing the model (a
        caught-up copy where weights are lazy): for reports, not for hot paths."""
        if not self._weights_behind():
            return self._state[:-1, WEIGHT, :]
        state = np.array(self._state, order="C")
        self._catch_up_weights(state)
        return state[:-1, WEIGHT, :]

    def _learn_batch(self, X, y, classes, sample_weight, *, record_scores):
        """partial_fit's work: one pass over a batch that passed the fast checks
        (``_streamed_batch``) or full validation (``_validated_batch``). With
        ``record_scores``, return each row's scores before the model learned from
        it, shape (n_samples, n_outputs)."""
        batch = self._streamed_batch(X, y, classes, sample_weight)
        if batch is None:
            batch = self._validated_batch(X, y, classes, sample_weight)
        X, targets, row_weights = batch
        self._check_training_state()
        scores = np.empty((X.shape[0], self._state.shape[2])) if record_scores else None
        self._stream_pass(X, targets, row_weights, scores)
        return scores

    # -- prediction -----------------------------------------------------------------

    def _linear_scores(self, X):
        """``X @ coef + intercept`` as an ``(n_samples, n_outputs)`` array.

        Sparse input is scored by a kernel that reads the weights where they are;
        scipy would first copy the strided ``coef_`` view, O(n_features) per call.
        """
        checked = checked_X(self, X)
        X = self._validated_X(X) if checked is None else checked
        if _is_sparsified(self):
            return self._output_scores(self._served_scores(X))
        return self._output_scores(self._scores_of(X))

    def _loss_epsilon(self):
        """The loss's ``epsilon`` (huber, epsilon_insensitive) in kernel units."""
        return float(getattr(self, "epsilon", 0.0))

    def _output_scores(self, scores):
        """Kernel scores in the units predictions are given in (identity here;
        regressors that learn a standardized target map them back)."""
        return scores

    def _weights_out(self, weights, intercept):
        """The ``WEIGHT`` slot (feature rows, or the intercept row) in the units
        ``coef_`` and ``intercept_`` are given in: the view itself here."""
        return weights

    def _weights_in(self, value, intercept):
        """Inverse of :meth:`_weights_out`: a value of ``coef_`` or
        ``intercept_`` in kernel units."""
        return value

    def _scores_of(self, X):
        """The model's scores of validated rows X (CSR or a dense array), with
        current weights, shape (n_samples, n_outputs)."""
        state = self._training.array
        averaged = self._averaged_rounds() > 0
        lazy = not averaged and self._weights_behind()
        if not sp.issparse(X):
            if averaged:
                weights = self._served_weights()
                return X @ weights[:-1] + weights[-1]
            if not lazy:
                return X @ state[:-1, WEIGHT, :] + state[-1, WEIGHT, :]
            X = dense_to_csr(X)  # score current weights without writing them
        # Repeated columns need no summing here: each entry adds x * w.
        scores = np.empty((X.shape[0], state.shape[2]))
        # (data's length: the non-zeros, or more; a stream's rows have few)
        blocks = X.data.shape[0] // NONZEROS_PER_THREAD
        threads = n_threads(self.n_jobs, blocks) if blocks > 1 else 1
        if threads == 1:
            self._sparse_scores(X, state, averaged, lazy, scores)
            return scores
        # In blocks of rows of about equal non-zeros, one per thread: every
        # row's scores are computed alone, the same for any split.
        tasks = [
            functools.partial(self._sparse_scores, rows, state, averaged, lazy, out)
            for rows, out in csr_row_blocks(X, scores, threads)
        ]
        run_in_threads(tasks, threads)
        return scores

    def _sparse_scores(self, X, state, averaged, lazy, out):
        """Write the scores of CSR rows X into ``out``: with the mean iterates,
        the caught-up lazy weights or the stored weights."""
        if averaged:
            avg_slot, a0 = self._average_arguments()
            self._averaged_sparse_scores(X, state, avg_slot, self.t_, a0, out)
        elif lazy:
            self._lazy_sparse_scores(X, state, out)
        else:
            linear_scores(X.data, X.indices, X.indptr, state, out)

    def _validated_X(self, X):
        return validate_data(
            self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False
        )

    def _served_scores(self, X):
        """Scores of a sparsified model, from its CSR (or densified) weights."""
        coef = self._served_coef
        n_outputs = self._served_intercept.shape[0]
        weights = coef.T if sp.issparse(coef) else coef.reshape(n_outputs, -1).T
        scores = safe_sparse_dot(X, weights, dense_output=True)
        return np.asarray(scores) + self._served_intercept

    # -- serving --------------------------------------------------------------------

    def sparsify(self) -> Self:
        """Keep only what prediction needs: ``coef_`` as a scipy CSR matrix.

        The training state (the accumulators, and the zero weights) is dropped, so
        the model and its pickle shrink to its non-zero weights and intercepts,
        which suits a model trained with ``l1`` and then stored and served.
        Predictions are unchanged. Training cannot continue from a sparsified
        model (``partial_fit`` and ``fit`` with ``warm_start=True`` raise
        ``ValueError``); ``fit`` without warm start trains a new one.

        Returns
        -------
        self : object
            The sparsified estimator.
        """
        check_is_fitted(self)
        if _is_sparsified(self):
            self._served_coef = sp.csr_matrix(self._served_coef)
            return self
        weights = self._served_weights()
        # Kept in the units the model learnt in, so that predictions are computed
        # as before, float for float; coef_ and intercept_ map them.
        self._served_coef = sp.csr_matrix(weights[:-1].T)  # (n_outputs, n_features)
        self._served_intercept = weights[-1].copy()
        # The round count stays (t_); the state training continues from goes.
        self._training.array = None
        self._training.extras = {}
        self._stream_choice = None
        self._drop_training_state()
        return self

    def densify(self) -> Self:
        """Turn a sparsified model's ``coef_`` back into a dense array.

        ``coef_`` gets scikit-learn's shape again; the training state that
        :meth:`sparsify` dropped does not come back. A model that was not
        sparsified is left as it is.

        Returns
        -------
        self : object
            The estimator.
        """
        check_is_fitted(self)
        coef = getattr(self, "_served_coef", None)
        if coef is not None and sp.issparse(coef):
            n_outputs, n_features = coef.shape
            shape = self._coef_shape(n_features, n_outputs)
            self._served_coef = coef.toarray().reshape(shape)
        return self


def _parameter_values(estimator):
    """The values of the estimator's parameters, in ``_parameter_constraints``'
    order: one C-level attribute getter per class, built on first use."""
    cls = type(estimator)
    getter = cls.__dict__.get("_parameter_getter")
    if getter is None:
        names = tuple(cls._parameter_constraints)
        fetch = operator.attrgetter(*names)
        getter = fetch if len(names) > 1 else (lambda obj: (fetch(obj),))
        cls._parameter_getter = getter
    return getter(estimator)
