"""What an algorithm gives the shared estimator: the hooks, listed once.

An estimator is an algorithm mixin (``_adagrad._AdaGrad``, ``_ftrl._FTRL``,
``_ons._ONS``, ``_coin._CoinBetting``), a task mixin (classification or
regression) and :class:`~._base.OnlineLinearModel`. The model calls the hooks of
:class:`Algorithm` and nothing else of the algorithm's; ``REQUIRED`` names those a
new algorithm must write (``tests/test_algorithm_protocol.py`` checks that every
algorithm does), the others have defaults here that suit an algorithm whose
weights are its WEIGHT slot, kept current by its kernel.
"""

from ._kernels import averaging as _averaging

REQUIRED = (
    "_n_state_slots",
    "_weight_parameters",
    "_adopt_parameters",
    "_run_pass",
    "_step_size_name",
)


class Algorithm:
    """The hooks of an algorithm. Required (raise here):

    - ``_n_state_slots(chosen=None)``: the slots of the state array (see
      :mod:`._state`) under the current parameters (``chosen``: the values of the
      ``"auto"`` parameters, by default the training state's);
    - ``_weight_parameters(chosen=None)``: the algorithm's NamedTuple of the
      parameters its state is read and trained with; validation of their values
      belongs to ``_parameter_constraints`` and ``_check_parameters``;
    - ``_adopt_parameters(state, old, new)``: bring the state array from the
      parameters ``old`` to ``new`` at round ``t_`` (``old`` None: a new state);
    - ``_run_pass(X, targets, row_weights, order, row_scores)``: one compiled pass
      over the rows in ``order``; returns ``(loss_sum, rows_done, status)``;
    - ``_step_size_name``: the parameter to change when training diverges (and
      ``_smaller_steps``, which way: ``"smaller"``, or ``"larger"`` where the step
      is its inverse).

    Optional (the defaults below):

    - ``_state_rule()``: the update rule the state's slots belong to, where rules
      differ in slots (None);
    - ``_training_started(n_features, n_outputs)``: record what a new training
      state needs besides its array (the algorithm's ``extras``);
    - ``_check_parameters()``: raise ValueError for a combination of parameter
      values the constraints cannot express;
    - ``_check_state_size(n_features, n_outputs)``: refuse data whose state would
      be too large, before anything is allocated;
    - ``_check_can_start_from_weights(n_features, n_outputs)``: refuse
      ``coef_init``/``intercept_init`` (:class:`._candidates.CandidateSearch`
      refuses them where candidates would run; an override calls ``super()``);
    - ``_pass_starting(streaming)``: a pass of ``fit`` (or a stream's call) is
      about to run;
    - lazy weights: ``_weights_are_lazy()``, whether the WEIGHT slot may lag
      behind round ``t_``, and then ``_catch_up_weights(state)`` and
      ``_lazy_sparse_scores(X, state, out)`` (:class:`._proximal.LazyProximal`
      has them for lazy proximal steps), and ``_weights_are_lazily_regularized()``;
    - averaging, where an idle weight moves (the defaults keep it in place):
      ``_settle_all(state, avg_slot, t, a0)``,
      ``_averaged_all(state, avg_slot, t, a0, out)`` and
      ``_averaged_sparse_scores(X, state, avg_slot, t, a0, out)``
      (:mod:`._kernels.averaging`);
    - ``_weights_assigned()`` and ``_accumulators_assigned()``: ``coef_`` or an
      accumulator was assigned;
    - ``_side_by_side_supported(parameters)`` and ``_side_by_side_pass(...)``: a
      kernel that runs one-output candidates side by side (:mod:`._candidates`);
    - ``_drop_training_state()``: what :meth:`sparsify` drops besides the state;
    - one-vs-rest outputs trained in blocks on threads (``n_jobs``):
      ``_outputs_split_supported()``, ``_feature_slots()`` (the slots whose
      output 0 holds a value of the feature) and ``_per_output_extras`` (see
      :meth:`._training.TrainingState.outputs`);
    - data-parallel training (``shards``): ``_merge_shards(merge)``, the merge
      rule, which returns the merged state over a :class:`._merging.ShardMerge`,
      or ``_not_data_parallel``, a sentence saying why the algorithm has none;
      and ``_derived_slots()`` with ``_derive_slots(array, parameters)``, the
      slots that follow from the others (FTRL's weights), which a shard sent
      over the network leaves out and its receiver computes again; and
      ``_merge_conversion(parameters)``, the
      :class:`._merging.MergeConversion` that brings a shard's state to its
      own round before its increments are summed (lazy weights caught up),
      or None.
    """

    _smaller_steps = "smaller"

    def _n_state_slots(self, chosen=None):
        raise NotImplementedError

    def _weight_parameters(self, chosen=None):
        raise NotImplementedError

    def _adopt_parameters(self, state, old, new):
        raise NotImplementedError

    def _run_pass(self, X, targets, row_weights, order, row_scores):
        raise NotImplementedError

    def _state_rule(self):
        return None

    def _training_started(self, n_features, n_outputs):
        """A new training state of this shape has just been made."""

    def _check_parameters(self):
        """Raise ValueError for parameter values that cannot be combined."""

    def _check_state_size(self, n_features, n_outputs):
        """Raise ValueError if the state for this shape would be too large."""

    def _pass_starting(self, streaming):
        """A pass is about to run (``streaming``: a ``partial_fit`` call)."""

    def _weights_are_lazy(self):
        return False

    def _weights_are_lazily_regularized(self):
        return False

    def _catch_up_weights(self, state):
        raise NotImplementedError

    def _lazy_sparse_scores(self, X, state, out):
        raise NotImplementedError

    # Averaging, for weights that stay put while idle (FTRL, ONS, cocob,
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

    def _weights_assigned(self):
        """``coef_`` or ``intercept_`` was assigned."""

    def _accumulators_assigned(self):
        """An accumulator was assigned: recompute what depends on it (FTRL's
        weights, AdaGrad's decays...) by adopting the same parameters anew."""
        parameters = self._training.parameters
        if parameters is not None:
            self._adopt_parameters(self._kernel_state(), parameters, parameters)
            self._weights_adopted()

    def _side_by_side_supported(self, parameters):
        """Whether a kernel runs one-output candidates with these weight
        parameters side by side."""
        return False

    def _side_by_side_pass(
        self, X, targets, row_weights, order, state, parameters, results
    ):
        """One pass of the candidates with ``parameters`` side by side in
        ``state`` (candidate c owns output c); their ``(loss_sum, rows_done,
        status)`` go to ``results``' three arrays."""
        raise NotImplementedError

    def _drop_training_state(self):
        """Drop what only training needs, besides the state (sparsify)."""

    # One-vs-rest outputs trained apart, in threads (n_jobs).

    # The extras with one entry per output along their first axis.
    _per_output_extras = ()

    def _feature_slots(self):
        """The state slots whose output 0 holds a value of the feature, not of
        an output (none)."""
        return ()

    def _outputs_split_supported(self):
        """Whether blocks of outputs may train in threads of their own."""
        return True

    # Data-parallel training (shards); ._shards.ShardedPasses holds
    # _not_data_parallel's default.

    def _merge_shards(self, merge):
        """The merged state over ``merge`` (a :class:`._merging.ShardMerge`)."""
        raise NotImplementedError

    def _merge_conversion(self, parameters):
        """The :class:`._merging.MergeConversion` that the merge rule applies
        to each state (at its round t) before summing increments, or None
        (none)."""
        return None

    def _derived_slots(self):
        """The state slots that :meth:`_derive_slots` computes from the others,
        exactly as training leaves them (none)."""
        return ()

    def _derive_slots(self, array, parameters):
        """Write the :meth:`_derived_slots` of ``array`` (a state array trained
        with ``parameters``) from its other slots."""
