"""The estimator side of iterate averaging (``average``; the kernels' side is
:mod:`._kernels.averaging`): which rounds are averaged, the slots that hold the
sums, and the weights that predictions serve."""

import numpy as np

from ._kernels.common import WEIGHT


class Averaging:
    """:class:`~._base.OnlineLinearModel`'s averaging of the iterates: with
    ``average`` the mean of the weights after rounds a0 + 1, ..., t is served
    (``SGDClassifier``'s ``average``); the state keeps, in its last two slots,
    each coordinate's sum of iterates and the round that sum stands at."""

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
        start = self._training.average_start
        return False if start is None else (True if start == 0 else start + 1)

    def _is_averaging(self):
        training = getattr(self, "_training", None)
        return training is not None and training.average_start is not None

    def _n_average_slots(self):
        """The state's slots for averaging (:mod:`._kernels.averaging`): its last
        two, a coordinate's sum of iterates and where that sum stands."""
        return 2 if self._is_averaging() else 0

    def _average_arguments(self):
        """``(avg_slot, a0)`` for the pass kernels; ``avg_slot`` None turns it off
        (and keeps the averaging code out of the compiled kernel)."""
        training = self._training
        if training.average_start is None:
            return None, 0
        return training.array.shape[1] - 2, training.average_start

    def _averaged_rounds(self):
        """How many rounds the served average covers (0: none yet, serve the
        iterate)."""
        training = self._training
        if training.average_start is None:
            return 0
        return max(training.t - training.average_start, 0)

    def _settle_averages(self):
        """Bring every coordinate's sum of iterates up to round ``t_`` under the
        current parameters, before something changes every weight at once."""
        if self._is_averaging() and self._training.parameters is not None:
            avg_slot, a0 = self._average_arguments()
            self._settle_all(self._kernel_state(), avg_slot, self.t_, a0)

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
