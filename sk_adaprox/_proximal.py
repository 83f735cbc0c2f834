"""The estimator side of lazy proximal steps (:mod:`._kernels.lazy`): reading,
scoring and averaging weights whose idle rounds' l1/l2 steps are applied late.
Shared by AdaGrad's composite mirror descent and diagonal ONS with ``l1``."""

from ._kernels import lazy as _lazy


class LazyProximal:
    """:class:`~._base.OnlineLinearModel`'s hooks for lazily regularised weights.

    An algorithm's mixin derives from it (so it comes before
    ``OnlineLinearModel`` in an estimator's bases) and gives
    ``_lazy_strengths()``: the ``(l1, l2)`` its state was trained with where
    its weights take their proximal steps lazily, else None, where the base's
    rules (or the algorithm's own, called before ``super()``) apply.
    """

    def _lazy_strengths(self):
        raise NotImplementedError

    def _weights_are_lazy(self):
        return self._lazy_strengths() is not None or super()._weights_are_lazy()

    def _weights_are_lazily_regularized(self):
        return self._lazy_strengths() is not None

    def _feature_slots(self):
        # A lazily regularised feature's last round is kept in output 0.
        lazy = (_lazy.LAST_ROUND,) if self._lazy_strengths() is not None else ()
        return lazy + super()._feature_slots()

    def _catch_up_weights(self, state):
        l1, l2 = self._lazy_strengths()
        if self._is_averaging():
            # The sums follow each weight's decay from its last round: settle
            # them before the catch-up moves that round.
            avg_slot, a0 = self._average_arguments()
            _lazy.md_settle_all(state, avg_slot, self.t_, a0, l1, l2)
        _lazy.md_catch_up_all(state, self.t_, l1, l2)

    def _lazy_sparse_scores(self, X, state, out):
        l1, l2 = self._lazy_strengths()
        _lazy.md_scores(X.data, X.indices, X.indptr, state, self.t_, l1, l2, out)

    # Averaging: a lazily regularised weight decays while idle; otherwise it
    # stays put, the base's rule.

    def _settle_all(self, state, avg_slot, t, a0):
        strengths = self._lazy_strengths()
        if strengths is None:
            super()._settle_all(state, avg_slot, t, a0)
        else:
            _lazy.md_settle_all(state, avg_slot, t, a0, *strengths)

    def _averaged_all(self, state, avg_slot, t, a0, out):
        strengths = self._lazy_strengths()
        if strengths is None:
            super()._averaged_all(state, avg_slot, t, a0, out)
        else:
            _lazy.md_averaged_all(state, avg_slot, t, a0, *strengths, out)

    def _averaged_sparse_scores(self, X, state, avg_slot, t, a0, out):
        strengths = self._lazy_strengths()
        if strengths is None:
            super()._averaged_sparse_scores(X, state, avg_slot, t, a0, out)
        else:
            rows = (X.data, X.indices, X.indptr, state, avg_slot, t, a0)
            _lazy.md_averaged_scores(*rows, *strengths, out)
