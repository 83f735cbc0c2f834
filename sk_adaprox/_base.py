"""The driver every sk_adaprox estimator shares.

An estimator is assembled from three pieces:

- an *algorithm* mixin (``_adagrad._AdaGrad``, ``_ftrl._FTRL``) that names the
  slots of its per-coordinate state, says how its weights depend on its
  parameters, and runs one compiled pass over rows (see the class docstring);
- a *task* mixin (``_classification.OnlineClassifierMixin`` or
  ``_regression.OnlineRegressorMixin``) that turns labels into kernel targets and
  provides ``fit``, ``partial_fit`` and the prediction methods;
- :class:`OnlineLinearModel` below: input validation, the state array (``_state``),
  the pass loop (shuffling, round counting, early stopping, verbose output),
  divergence errors and the linear scores that predictions start from.
"""

import contextlib
import itertools
import operator
import time
import warnings
from numbers import Integral, Real
from typing import Self

import numpy as np
import scipy.sparse as sp
from sklearn import get_config
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    validate_data,
)

from ._kernels import averaging as _averaging
from ._kernels.common import (
    STATUS_NONFINITE_SCORE,
    STATUS_OK,
    WEIGHT,
    weighted_loss_sum,
)
from ._kernels.sparse import csr_has_duplicate_indices, linear_scores
from ._losses import LOSS_CODES, baseline_loss
from ._state import (
    StateSlot,
    _is_sparsified,
    is_on_small_pages,
    new_state,
    on_small_pages,
)
from ._validation import checked_X, dense_to_csr
from .exceptions import PoorFitWarning


class OnlineLinearModel(BaseEstimator):
    """Base class of the online linear models: validation, bookkeeping, pass loop.

    Subclasses provide:

    - ``_n_state_slots()``, the number of slots of the state array (see
      :mod:`sk_adaprox._state`) under the current parameters;
    - ``_weight_parameters()``, the tuple of parameters the state is read and
      trained with, and ``_adopt_parameters(state, old, new)``, which brings the
      state from one such tuple to another at round ``t_`` (``old`` is None for a
      new state);
    - ``_weights_are_lazy()``: whether the ``WEIGHT`` slot may lag behind round
      ``t_`` (regularised AdaGrad, diagonal ONS with l1), and then
      ``_catch_up_weights(state)``, which makes it current, and
      ``_lazy_sparse_scores(X, state, out)``, which scores CSR rows with current
      weights without writing them (:class:`._proximal.LazyProximal` has them,
      and the averaging hooks below, for lazy proximal steps);
    - ``_run_pass(X, targets, row_weights, order, row_scores)``, which calls the
      algorithm's kernel on the state and returns its ``(loss_sum, rows_done,
      status)``;
    - ``_step_size_name``, the parameter a user should change when training
      diverges, and ``_smaller_steps``, which way (``"smaller"``, or ``"larger"``
      where the step is its inverse); and ``_coef_shape``;
    - where a weight can move while its coordinate is idle (other than by
      staying put), ``_settle_all``, ``_averaged_all`` and
      ``_averaged_sparse_scores`` for ``average`` (:mod:`._kernels.averaging`),
      and the pass kernel settles each coordinate before updating it;
    - optionally ``_check_state_size(n_features, n_outputs)``, which refuses data
      whose state would be too large before anything is allocated, and
      ``_drop_training_state()``, which :meth:`sparsify` calls.

    A call costs its own non-zeros: the state, lazy bookkeeping included, carries
    over between calls, and only reading a state attribute (``coef_``, ...), or
    changing a parameter of ``_weight_parameters`` between calls, visits every
    feature.
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
    }

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
        return _as_kernel_csr(X), y, sample_weight

    # -- state ----------------------------------------------------------------------

    def _is_initialized(self):
        return hasattr(self, "t_")

    def _check_fitted(self):
        """check_is_fitted, at the cost of one dict lookup when fitted."""
        if "t_" not in vars(self):
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

    _smaller_steps = "smaller"

    def _check_state_size(self, n_features, n_outputs):
        """Raise ValueError if the state for this shape would be too large; called
        while validating, before anything is allocated."""

    def _start_training(self, n_features, n_outputs, chosen=None):
        """Allocate fresh state and restart the round count; ``chosen`` gives the
        values of the parameters set to ``"auto"`` (see :meth:`_param`)."""
        for name in (
            "_served_coef",
            "_served_intercept",
            "_chosen",
            "chosen_params_",
            "candidate_params_",
            "candidate_losses_",
            "candidate_classes_",
            *_POOL_NAMES,
        ):
            vars(self).pop(name, None)
        if chosen is not None:
            self._chosen = chosen
        self.t_ = 0
        self._state_parameters = None  # the first pass adopts the parameters
        self._weights_round = 0
        self._data_passes = 0  # fit's completed passes over its data
        self._pass_multiplier = 1
        self._average_start = self._requested_average_start()
        n_slots = self._n_state_slots() + self._n_average_slots()
        self._state = new_state(n_features, n_slots, n_outputs)

    def _state_rule(self):
        """The update rule the state belongs to, for rules that differ in slots."""
        return None

    def _checked_parameters(self):
        """All parameter values, validated first if any changed since the values
        recorded in ``_validated_parameters``.

        scikit-learn validates them when ``fit`` starts or ``partial_fit`` first
        does; a stream's later calls skip that, so a ``set_params`` between calls
        is validated here, at the cost of one tuple comparison when nothing changed.
        """
        current = _parameter_values(self)
        if current != vars(self).get("_validated_parameters"):
            # Skipped inside scikit-learn's fit context, which has just validated
            # them, and where the user asked for it (skip_parameter_validation).
            if not get_config()["skip_parameter_validation"]:
                self._validate_params()
        return current

    def _sync_parameters(self):
        """Adopt parameters changed (set_params) since the state was last trained."""
        validated = self._checked_parameters()
        if self._requested_average_start() != vars(self).get("_average_start"):
            raise ValueError(
                f"average={self.average!r}, but the model was trained with "
                f"average={self._average_when_trained()!r}: averaging is set up "
                "when training starts. Set it back, or call fit (with "
                "warm_start=False) to start over."
            )
        new = self._weight_parameters()
        old = self._state_parameters
        if new == old:
            self._validated_parameters = validated
            return
        state = self._kernel_state()
        if old is None:  # a new state: all zeros, finite under any parameters
            self._adopt_parameters(state, old, new)
        else:
            self._settle_averages()  # every weight may change: settle under old
            state = self._state
            saved = state.copy()
            self._adopt_parameters(state, old, new)  # may replace self._state
            if not np.isfinite(self._state).all():
                self._state = saved
                raise ValueError(
                    f"{type(self).__name__}: under the parameters set since the last "
                    f"call {new}, the fitted state's weights are not finite. The model "
                    f"keeps its state and its earlier parameters {old}; set them back "
                    "or fit anew."
                )
        self._state_parameters = new
        self._validated_parameters = validated
        self._weights_adopted()

    def _accumulators_assigned(self):
        """An accumulator was assigned: recompute what depends on it (FTRL's
        weights, AdaGrad's decays...) by adopting the same parameters anew."""
        parameters = self._state_parameters
        if parameters is not None:
            self._adopt_parameters(self._kernel_state(), parameters, parameters)
            self._weights_adopted()

    def _weights_assigned(self):
        """``coef_`` or ``intercept_`` was assigned: update what is derived from the
        weights (nothing here; ONS's running norms)."""

    def _state_for_reading(self):
        """The state with every weight current: what the state attributes view.

        With lazy weights this catches every feature up to round ``t_`` in place,
        O(n_features), once per round count; the trained model is the same (up to
        rounding: the catch-up is the closed form of the same steps).
        """
        state = self._state
        if self._weights_behind():
            state = self._kernel_state()
            self._catch_up_weights(state)
            self._weights_round = self.t_
        return state

    def _intercept_for_reading(self):
        """The state's intercept row, shape (1, n_slots, n_outputs), with its weight
        current: :meth:`_state_for_reading` for the intercept alone, O(n_outputs).
        Every rule's catch-up takes a state's last row for the intercept, so it
        runs on the one-row slice; the features stay behind (``_weights_round``
        is kept)."""
        state = self._state
        if self._weights_behind():
            state = self._kernel_state()
            self._catch_up_weights(state[-1:])
        return state[-1:]

    def _weights_are_lazy(self):
        return False

    def _weights_are_lazily_regularized(self):
        """Whether idle weights take their proximal steps lazily, from a record
        of their last round (:mod:`._kernels.lazy`)."""
        return False

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
        self._state = resized
        return resized

    def _weights_behind(self):
        """Whether the WEIGHT slot may lag behind round ``t_`` (lazy weights not
        caught up since the last round)."""
        return self._weights_are_lazy() and self._weights_round != self.t_

    def _weights_adopted(self):
        """Record that the weights were just recomputed under new parameters:
        current unless they are lazy."""
        self._weights_round = -1 if self._weights_are_lazy() else self.t_

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
        self._run_passes(
            X,
            targets,
            row_weights,
            max_passes=1,
            rng=None,
            row_scores=scores,
            streaming=True,
        )
        return scores

    def _current_weights(self):
        """Every feature's weights at round ``t_``, without changing the model (a
        caught-up copy where weights are lazy): for reports, not for hot paths."""
        if not self._weights_behind():
            return self._state[:-1, WEIGHT, :]
        state = np.array(self._state, order="C")
        self._catch_up_weights(state)
        return state[:-1, WEIGHT, :]

    def _check_training_state(self):
        if "_state" not in vars(self):
            raise ValueError(
                f"This {type(self).__name__} was sparsified: sparsify() kept only "
                "the weights, not the state training continues from. Call fit "
                "(with warm_start=False) to train a new model."
            )

    def _kernel_state(self):
        """The state array, made writable C-contiguous float64 first if it is not
        (e.g. a read-only memory map from ``joblib.load(..., mmap_mode="r")``)."""
        self._check_training_state()
        return self._writable("_state")

    def _writable(self, name):
        """Fitted array ``name``, replaced by a writable C-contiguous copy first if
        it is not one (a read-only memory map, say)."""
        array = vars(self)[name]
        if not (array.flags.c_contiguous and array.flags.writeable):
            array = np.array(array, order="C")
            setattr(self, name, array)
        return array

    # -- iterate averaging (average) ---------------------------------------------------

    def _requested_average_start(self):
        """The rounds ``average`` leaves out before averaging starts (the
        averaged iterates are those after rounds ``a0 + 1``, ...), or None
        without averaging: True and 1 average from the first round, n > 1 from
        round n, as ``SGDClassifier``'s ``average``."""
        average = getattr(self, "average", False)
        if not average:
            return None
        return 0 if average is True else max(int(average) - 1, 0)

    def _average_when_trained(self):
        start = vars(self).get("_average_start")
        return False if start is None else (True if start == 0 else start + 1)

    def _is_averaging(self):
        return vars(self).get("_average_start") is not None

    def _n_average_slots(self):
        """The state's slots for averaging (:mod:`._kernels.averaging`): its last
        two, a coordinate's sum of iterates and where that sum stands."""
        return 2 if self._is_averaging() else 0

    def _average_arguments(self):
        """``(avg_slot, a0)`` for the pass kernels; ``avg_slot`` None turns it off
        (and keeps the averaging code out of the compiled kernel)."""
        if not self._is_averaging():
            return None, 0
        return self._state.shape[1] - 2, self._average_start

    def _averaged_rounds(self):
        """How many rounds the served average covers (0: none yet, serve the
        iterate)."""
        if not self._is_averaging():
            return 0
        return max(self.t_ - self._average_start, 0)

    def _settle_averages(self):
        """Bring every coordinate's sum of iterates up to round ``t_`` under the
        current parameters, before something changes every weight at once."""
        if self._is_averaging() and self._state_parameters is not None:
            avg_slot, a0 = self._average_arguments()
            self._settle_all(self._kernel_state(), avg_slot, self.t_, a0)

    # The rule whose idle weights are constant (FTRL, ONS, cocob coin betting,
    # unregularised mirror descent); AdaGrad and the normalised coin rule
    # override these three.

    def _settle_all(self, state, avg_slot, t, a0):
        """Settle every coordinate of ``state`` up to round t."""
        _averaging.constant_settle_all(state, avg_slot, t, a0)

    def _averaged_all(self, state, avg_slot, t, a0, out):
        """Write every coordinate's mean iterate at round t into ``out``."""
        _averaging.constant_averaged_all(state, avg_slot, t, a0, out)

    def _averaged_sparse_scores(self, X, state, avg_slot, t, a0, out):
        """Score CSR rows X with the mean iterates at round t."""
        _averaging.constant_averaged_scores(
            X.data, X.indices, X.indptr, state, avg_slot, t, a0, out
        )

    def _served_weights(self, intercept_only=False):
        """The weights predictions use, shape (n_features + 1, n_outputs), the
        intercept last: the mean iterate with ``average`` (once averaging has
        begun), else the current weights. With ``intercept_only``, the intercept's
        row alone, shape (1, n_outputs), in O(n_outputs)."""
        if self._averaged_rounds() == 0:
            if intercept_only:
                return np.array(self._intercept_for_reading()[:, WEIGHT, :])
            return np.array(self._state_for_reading()[:, WEIGHT, :])
        state = self._kernel_state()
        if intercept_only:
            # Every rule's averaging kernels take a state's last row for the
            # intercept: the one-row slice is the intercept alone.
            state = state[-1:]
        out = np.empty((state.shape[0], state.shape[2]))
        avg_slot, a0 = self._average_arguments()
        self._averaged_all(state, avg_slot, self.t_, a0, out)
        return out

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

    # -- the units the kernels learn in -----------------------------------------------

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
        state = self._state
        if self._averaged_rounds() > 0:
            if not sp.issparse(X):
                weights = self._served_weights()
                return X @ weights[:-1] + weights[-1]
            scores = np.empty((X.shape[0], state.shape[2]))
            avg_slot, a0 = self._average_arguments()
            self._averaged_sparse_scores(X, state, avg_slot, self.t_, a0, scores)
            return scores
        lazy = self._weights_behind()
        if lazy and not sp.issparse(X):
            X = dense_to_csr(X)  # score current weights without writing them
        if not sp.issparse(X):
            return X @ state[:-1, WEIGHT, :] + state[-1, WEIGHT, :]
        # Repeated columns need no summing here: each entry adds x * w.
        scores = np.empty((X.shape[0], state.shape[2]))
        if lazy:
            self._lazy_sparse_scores(X, state, scores)
        else:
            linear_scores(X.data, X.indices, X.indptr, state, scores)
        return scores

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
        self._drop_training_state()
        return self

    def _drop_training_state(self):
        """Delete what only training needs (sparsify)."""
        del self._state
        for name in _POOL_NAMES:
            vars(self).pop(name, None)

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
        coef = vars(self).get("_served_coef")
        if coef is not None and sp.issparse(coef):
            n_outputs, n_features = coef.shape
            shape = self._coef_shape(n_features, n_outputs)
            self._served_coef = coef.toarray().reshape(shape)
        return self

    # -- choosing parameters inside the first pass -----------------------------------

    # {parameter: candidate values} of the parameters that accept "auto".
    _auto_grids: dict = {}

    def _param(self, name):
        """Parameter ``name``, or the value chosen for it where it is ``"auto"``
        (the grid's first value before any choice)."""
        value = getattr(self, name)
        if isinstance(value, str) and value == "auto":
            chosen = vars(self).get("_chosen")
            if chosen and name in chosen:
                return chosen[name]
            if vars(self).get("t_", 0) > 0:
                raise ValueError(
                    f"{name}='auto' was set after training started; the choice is "
                    "made in a new model's first pass. Set a value, or call fit "
                    "(with warm_start=False) to choose anew."
                )
            return self._auto_grids[name][0]
        return value

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

    # A stream keeps every candidate until it has seen this many rows.
    _auto_stream_rows = 1000

    def _choosing(self):
        """Whether the next pass runs the candidates: a new model with parameters
        set to ``"auto"``, or a stream still in its first rows. A stream whose
        parameters were changed (``set_params``) since its candidates started
        stops choosing if the change reaches the weights' parameters (the
        grids, or a parameter the served candidate's state was adopted under):
        the served candidate goes on, under the values now set (the others are
        not brought to them: each would cost a sweep of its state)."""
        if "_candidate_pool" in vars(self):
            # The served candidate's parameters, as the last call left them (a
            # stream pickled before they were recorded: as they are now).
            settings = vars(self).get("_candidate_settings", self._state_parameters)
            if (
                self._candidates() == self.candidate_params_
                and settings == self._state_parameters
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
        for name in _POOL_NAMES:
            vars(self).pop(name, None)
        state = vars(self).get("_state")
        if state is not None and is_on_small_pages(state):
            self._state = np.array(state)

    def _training_attributes(self):
        """A candidate's private attributes, by reference: its own arrays, which
        only its own passes write. Not ``t_``: every candidate sees the same
        rows, and the caller counts them."""
        return {
            name: value
            for name, value in vars(self).items()
            if name.startswith("_")
            and name not in _POOL_NAMES
            and name not in self._model_attributes
        }

    # Private attributes of the model, not of a candidate: every candidate shares
    # them (a regressor's running target units).
    _model_attributes = ()

    def _run_candidates(self, X, targets, row_weights, order, row_scores, final):
        """A pass of every candidate setting over the same rows in the same order.

        Each candidate continues from its own state (a new one on the first
        pass), and adds the pass's progressive loss (each row's loss before the
        candidate learned from it) to its total. The candidate of lowest total
        is served. With ``final`` (``fit``'s first pass, or a stream's call that
        reaches ``_auto_stream_rows`` rows) the choice is made and the others
        are dropped; otherwise every candidate is kept for the next call. A
        candidate that diverges is out. ``row_scores`` receives the scores of
        the candidate served before this pass (the grid's first at the start;
        the new best's if that one diverged), so that progressive predictions
        never use the rows they predict. Returns
        the served candidate's ``(loss_sum, rows_done, status)``.
        """
        n_features, n_outputs = self._state.shape[0] - 1, self._state.shape[2]
        candidates = self._candidates()
        fresh = "_candidate_pool" not in vars(self)
        if final and fresh and row_scores.shape[0] == 0:
            result = self._run_candidates_side_by_side(
                X, targets, row_weights, order, candidates
            )
            if result is None:
                result = self._run_candidates_on_frequent_classes(
                    X, targets, row_weights, order, candidates
                )
            if result is not None:
                return result
        pool = vars(self).get("_candidate_pool") or [None] * len(candidates)
        # A copy: a model loaded with joblib's mmap_mode="r" has it read-only.
        totals = np.array(
            vars(self).get("_candidate_totals", np.zeros(len(candidates)))
        )
        served = vars(self).get("_served_candidate", 0)
        results, scores_of = {}, {}
        best = None
        for index, candidate in enumerate(candidates):
            if not np.isfinite(totals[index]):
                continue
            if pool[index] is None:
                self._start_training(n_features, n_outputs, chosen=candidate)
                if not final:
                    # Kept for later calls, one state per candidate, each touched
                    # only where the stream's first rows have non-zeros.
                    self._state = on_small_pages(self._state)
            else:
                vars(self).update(pool[index])
            self._sync_parameters()
            scores = scores_of[index] = row_scores.copy()
            loss_sum, rows_done, status = self._run_pass(
                X, targets, row_weights, order, scores
            )
            results[index] = (loss_sum, rows_done, status)
            pool[index] = None
            if status != STATUS_OK:
                totals[index] = np.inf
                continue
            totals[index] += loss_sum
            is_best = best is None or totals[index] < totals[best]
            if is_best or not final:
                pool[index] = self._training_attributes()
            if is_best:
                if final and best is not None:
                    pool[best] = None  # a final choice keeps only the best so far
                best = index
        if best is None:  # every candidate diverged: report the last one's row
            return results[max(results)]
        # The served candidate's scores, or the new best's if it diverged.
        served_ok = served in results and results[served][2] == STATUS_OK
        row_scores[...] = scores_of[served if served_ok else best]
        weight = float(row_weights[order].sum()) * n_outputs
        weight += vars(self).get("_candidate_weight", 0.0)
        vars(self).update(pool[best])
        self.chosen_params_ = dict(self._chosen)
        self.candidate_params_ = candidates
        self.candidate_losses_ = totals / weight if weight > 0 else totals.copy()
        if final:
            self._end_choice()
        else:
            self._candidate_settings = self._state_parameters
            self._candidate_pool = pool
            self._candidate_totals = totals
            self._candidate_weight = weight
            self._served_candidate = best
        return results[best]

    # A one-vs-rest model with more classes than this compares fit's candidates on
    # the most frequent ones (0: on every class); see
    # _run_candidates_on_frequent_classes.
    _candidate_classes = 4

    def _run_candidates_on_frequent_classes(
        self, X, targets, row_weights, order, candidates
    ):
        """:meth:`_run_candidates` for the final choice of a one-vs-rest model with
        more than ``_candidate_classes`` classes (``fit``'s first pass, or a
        stream's first call of ``_auto_stream_rows`` rows or more): every
        candidate trains the one-vs-rest problems of the ``_candidate_classes``
        classes with the most rows only (the rows of other classes are
        negatives for all of them), and the chosen one then trains every class
        over the same rows, from zero. A class's problem does not depend on the
        others', so each candidate's progressive loss on those classes is the
        one it has in a model of every class, and the model is the chosen
        setting's; the first pass costs ``_candidate_classes`` outputs per
        candidate plus one pass of the model, instead of every output per
        candidate. Returns None where that does not apply, where every
        candidate diverged, or where the chosen one diverges on another class:
        the caller then runs the candidates on every class, where a diverging
        candidate drops out (or every one did, and it is reported)."""
        n_features, n_outputs = self._state.shape[0] - 1, self._state.shape[2]
        compared = self._candidate_classes
        if compared == 0 or n_outputs <= compared:
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
        no_scores = np.empty((0, compared))
        totals = np.full(len(candidates), np.inf)
        best = None
        for index, candidate in enumerate(candidates):
            self._start_training(n_features, compared, chosen=candidate)
            self._sync_parameters()
            loss_sum, _, status = self._run_pass(
                X, compared_targets, row_weights, order, no_scores
            )
            if status != STATUS_OK:
                continue
            totals[index] = loss_sum
            if best is None or loss_sum < totals[best]:
                best = index
        if best is None:
            self._start_training(n_features, n_outputs)
            return None
        self._start_training(n_features, n_outputs, chosen=candidates[best])
        self._sync_parameters()
        result = self._run_pass(
            X, targets, row_weights, order, np.empty((0, n_outputs))
        )
        if result[2] != STATUS_OK:
            self._start_training(n_features, n_outputs)
            return None
        weight = float(row_weights[order].sum()) * compared
        self.chosen_params_ = dict(self._chosen)
        self.candidate_params_ = candidates
        self.candidate_losses_ = totals / weight if weight > 0 else totals.copy()
        self.candidate_classes_ = self.classes_[frequent]
        return result

    # Whether fit's first pass may run the candidates side by side (False: one
    # after the other, as before the side-by-side kernels; for comparisons).
    _candidates_side_by_side = True
    # At most this many bytes of candidate states side by side: more candidates
    # are run in blocks of as many as fit.
    _side_by_side_bytes = 2**28

    def _side_by_side_supported(self, parameters):
        """Whether the algorithm has a kernel that runs one-output candidates
        with these weight parameters (``_weight_parameters()`` of each) side by
        side."""
        return False

    def _side_by_side_pass(
        self, X, targets, row_weights, order, state, parameters, results
    ):
        """One pass of the candidates with ``parameters`` side by side in
        ``state`` (candidate c owns output c); their ``(loss_sum, rows_done,
        status)`` go to ``results``' three arrays."""
        raise NotImplementedError

    def _run_candidates_side_by_side(self, X, targets, row_weights, order, candidates):
        """:meth:`_run_candidates` for ``fit``'s first pass of a one-output model
        (binary classifier, regressor), by a kernel that runs the candidates side
        by side: one read of the data for all of them, or for each block of them
        when their states together would exceed ``_side_by_side_bytes``. Every
        candidate computes what it computes alone, so the choice and the model
        are the same. Returns None where the algorithm has no such kernel for
        these candidates, and for one-vs-rest models: with K outputs per
        candidate the side-by-side kernel measured slower than one candidate
        after the other (benchmarks/studies/NOTES.md)."""
        n_features = self._state.shape[0] - 1
        if (
            not self._candidates_side_by_side
            or self._state.shape[2] != 1
            or self._is_averaging()
        ):
            return None
        parameters, slots = [], set()
        chosen = vars(self).pop("_chosen", None)
        for candidate in candidates:  # each candidate's values, as _param sees them
            self._chosen = candidate
            parameters.append(self._weight_parameters())
            slots.add(self._n_state_slots())
        vars(self).pop("_chosen")
        if chosen is not None:
            self._chosen = chosen
        if len(slots) != 1 or not self._side_by_side_supported(parameters):
            return None
        (n_slots,) = slots
        bytes_each = (n_features + 1) * n_slots * 8
        fitting = max(1, min(len(candidates), self._side_by_side_bytes // bytes_each))
        n_blocks = -(-len(candidates) // fitting)
        block_size = -(-len(candidates) // n_blocks)
        totals = np.full(len(candidates), np.inf)
        results = []
        best = best_state = None
        for first in range(0, len(candidates), block_size):
            block = range(first, min(first + block_size, len(candidates)))
            state = new_state(n_features, n_slots, len(block))
            loss_sums, rows_done, statuses = outcome = (
                np.zeros(len(block)),
                np.zeros(len(block), dtype=np.int64),
                np.full(len(block), STATUS_OK, dtype=np.int64),
            )
            self._side_by_side_pass(
                X,
                targets,
                row_weights,
                order,
                state,
                [parameters[index] for index in block],
                outcome,
            )
            block_best = None
            for column, index in enumerate(block):
                results.append(
                    (
                        float(loss_sums[column]),
                        int(rows_done[column]),
                        int(statuses[column]),
                    )
                )
                if statuses[column] != STATUS_OK:
                    continue
                totals[index] = loss_sums[column]
                if best is None or totals[index] < totals[best]:
                    best, block_best = index, column
            if block_best is not None:
                best_state = np.ascontiguousarray(
                    state[:, :, block_best : block_best + 1]
                )
            del state  # before the next block's: at most one block at a time
        if best is None:  # every candidate diverged: report the last one's row
            return results[-1]
        self._start_training(n_features, 1, chosen=candidates[best])
        self._sync_parameters()
        self._state = best_state
        weight = float(row_weights[order].sum())
        self.chosen_params_ = dict(self._chosen)
        self.candidate_params_ = candidates
        self.candidate_losses_ = totals / weight if weight > 0 else totals.copy()
        return results[best]

    # -- the pass loop --------------------------------------------------------------

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

    def _check_can_start_from_weights(self, n_features, n_outputs):
        """Raise ValueError if this algorithm cannot start from given weights on
        data of this shape."""
        if self._candidates(n_features, n_outputs):
            raise ValueError(
                "coef_init and intercept_init cannot be combined with parameters "
                "set to 'auto': each candidate setting starts from zero weights."
            )

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
        weight_total = float(row_weights.sum()) * scores.shape[1]
        return loss_sum / weight_total if weight_total > 0 else 0.0

    def _training_snapshot(self):
        """Copies of everything training changes (:meth:`_training_attributes`
        and the round count), which ``vars(self).update`` puts back."""
        snapshot = {
            name: value.copy() if isinstance(value, np.ndarray) else value
            for name, value in self._training_attributes().items()
        }
        snapshot["t_"] = self.t_
        return snapshot

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
        of its binary problems. With ``row_scores`` (one pass), row i's scores
        before its update are written to ``row_scores[i]``. ``streaming`` marks a
        ``partial_fit`` call (see :meth:`_run_candidates`).
        """
        self._check_training_state()
        n_rows = X.shape[0] if rows is None else rows.shape[0]
        visited_weights = row_weights if rows is None else row_weights[rows]
        # The mean loss is monitored (tol over several passes, validation),
        # reported (verbose) or held against a model without features (fit); a
        # stream's one pass needs none of them, nor this sum.
        needs_mean = (
            bool(self.verbose)
            or (self.tol is not None and max_passes > 1)
            or not streaming
        )
        weight_total = (
            float(visited_weights.sum()) * self._state.shape[2] if needs_mean else 0.0
        )
        if row_scores is None:
            row_scores = np.empty((0, self._state.shape[2]))
        best_loss = best_validation_loss = np.inf
        validation_losses = []
        best_snapshot = best_pass = None
        passes_without_improvement = 0
        converged = False
        for n_pass in range(1, max_passes + 1):
            if rows is not None:
                order = rows if rng is None else rng.permutation(rows)
            elif rng is None:
                order = np.arange(n_rows)
            else:
                order = rng.permutation(n_rows)
            started = time.perf_counter()
            # Pass p of fit runs with multiplier p (what FTRL scales its summed-loss
            # regularisation by); a stream keeps the last one.
            passes = vars(self).get("_data_passes", 0)
            self._pass_multiplier = max(1, passes) if streaming else passes + 1
            self._sync_parameters()
            if self._choosing():
                final = (
                    not streaming or self.t_ + order.shape[0] >= self._auto_stream_rows
                )
                loss_sum, rows_done, status = self._run_candidates(
                    X, targets, row_weights, order, row_scores, final
                )
            else:
                loss_sum, rows_done, status = self._run_pass(
                    X, targets, row_weights, order, row_scores
                )
            self.t_ += int(rows_done)
            self.n_iter_ = n_pass
            if status != STATUS_OK:
                raise self._divergence_error(status, int(order[rows_done]), n_pass)
            if not streaming:
                self._data_passes = vars(self).get("_data_passes", 0) + 1
            monitored = mean_loss = loss_sum / weight_total if weight_total > 0 else 0.0
            report = ""
            if validation is not None:
                monitored = self._validation_loss(validation)
                validation_losses.append(monitored)
                report = f", validation loss {monitored:.6g}"
                if monitored < best_validation_loss:
                    best_validation_loss, best_pass = monitored, n_pass
                    best_snapshot = self._training_snapshot()
            if self.verbose:
                print(
                    f"-- Epoch {n_pass}: {n_rows} rows, average loss "
                    f"{mean_loss:.6g}{report}, "
                    f"{np.count_nonzero(self._current_weights())} non-zero "
                    f"weights, {time.perf_counter() - started:.3f} s",
                    flush=True,
                )
            if self.tol is not None:
                if monitored > best_loss - self.tol:
                    passes_without_improvement += 1
                else:
                    passes_without_improvement = 0
                best_loss = min(best_loss, monitored)
                if passes_without_improvement >= self.n_iter_no_change:
                    converged = True
                    break
        if validation is not None:
            self.validation_losses_ = np.asarray(validation_losses)
            if best_pass != self.n_iter_:
                vars(self).update(best_snapshot)
        if not streaming:
            training = (X, targets, row_weights)
            if rows is not None:
                training = (X[rows], targets[rows], visited_weights)
            self._warn_if_worse_than_baseline(mean_loss, training)
        if max_passes > 1 and self.tol is not None and not converged:
            warnings.warn(
                "Maximum number of passes (max_iter) reached before the "
                f"{'validation' if validation is not None else 'training'} loss "
                "stopped improving; consider increasing max_iter.",
                ConvergenceWarning,
                stacklevel=3,
            )

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

    def _divergence_error(self, status, row, n_pass):
        what = "score" if status == STATUS_NONFINITE_SCORE else "update"
        step = self._step_size_name
        return ValueError(
            f"Training diverged at row {row} of the data passed in (pass {n_pass}): "
            f"its {what} is not finite. The model keeps the finite state it had "
            f"before that row. Use a {self._smaller_steps} {step} (now "
            f"{getattr(self, step)!r}) or "
            "scale the features (StandardScaler, or MaxAbsScaler for sparse data)."
        )


# How far above the baseline's loss (relatively) the model's may be before fit
# warns: on data without signal a model's loss is about the baseline's, a little
# above it (1 % is an R^2 of -0.01 for squared error).
_BASELINE_MARGIN = 0.01


# What a stream choosing among "auto" candidates keeps between calls.
_POOL_NAMES = (
    "_candidate_pool",
    "_candidate_totals",
    "_candidate_weight",
    "_served_candidate",
    "_candidate_settings",
)


def _parameter_values(estimator):
    """The values of the estimator's parameters, in ``_parameter_constraints``'
    order: one C-level attribute getter per class, built on first use (a
    generator of ``getattr`` calls took 4 us of a one-row ``partial_fit``)."""
    cls = type(estimator)
    getter = cls.__dict__.get("_parameter_getter")
    if getter is None:
        names = tuple(cls._parameter_constraints)
        fetch = operator.attrgetter(*names)
        getter = fetch if len(names) > 1 else (lambda obj: (fetch(obj),))
        cls._parameter_getter = getter
    return getter(estimator)


def _raise_if_unrepresentable(count, condition):
    """Raise if ``count`` assigned weights could not be given accumulators."""
    if count:
        raise ValueError(
            f"{count} assigned non-zero weights cannot be represented where "
            f"{condition} and a coordinate has seen no gradient (its weight is "
            "then 0 by the update rule); those weights were left as they were. "
            "Use a positive damping parameter to assign any weight."
        )


def _as_kernel_csr(X):
    """CSR without repeated column indices in a row, copying only when it must."""
    if not sp.issparse(X):
        return dense_to_csr(X)
    if not X.has_canonical_format and csr_has_duplicate_indices(
        X.indices, X.indptr, X.shape[1]
    ):
        X = X.copy()
        X.sum_duplicates()
    return X


@contextlib.contextmanager
def unchanged_on_error(estimator):
    """Restore the estimator's attributes if the enclosed validation fails.

    Validating with ``reset=True`` (``fit``, first ``partial_fit``) sets or deletes
    ``n_features_in_`` and ``feature_names_in_`` before later checks can fail; a
    rejected call must leave a fitted model usable and an unfitted one unfitted.
    Validation only rebinds attributes, so restoring the old bindings suffices.
    """
    before = dict(vars(estimator))
    try:
        yield
    except BaseException:
        vars(estimator).clear()
        vars(estimator).update(before)
        raise
