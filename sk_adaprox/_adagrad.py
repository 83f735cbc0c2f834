"""AdaGrad estimators (Duchi, Hazan & Singer 2011; docs/adagrad.md)."""

import functools
import math
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from . import _adagrad_matrices as _matrices
from ._base import OnlineLinearModel
from ._classification import OnlineClassifierMixin
from ._docstrings import (
    AUTO_ATTRIBUTES,
    AUTO_NOTE,
    CLASS_WEIGHT,
    CLASSIFIER_COEF,
    FIT_ATTRIBUTES,
    NORMALIZE_Y,
    REGRESSOR_COEF,
    TRAINING_PARAMETERS,
)
from ._kernels import adagrad as _kernels
from ._kernels import lazy as _lazy
from ._kernels.common import WEIGHT
from ._losses import LOSS_CODES
from ._merging import MergeConversion
from ._proximal import LazyProximal
from ._regression import OnlineRegressorMixin
from ._state import StateSlot, raise_if_unrepresentable
from ._typing import RandomStateLike


class AdaGradParameters(NamedTuple):
    """The parameters an AdaGrad state is trained and read with."""

    update: str
    eta: float
    delta: float
    l1: float
    l2: float
    bound: float = math.inf
    matrix: str = "diag"
    sketch_size: int = 0  # 0 unless the matrix is the sketch

    def steps(self):
        """``(eta, delta, l1, l2)``, as the kernels take them."""
        return self.eta, self.delta, self.l1, self.l2


class _AdaGrad(LazyProximal):
    """The AdaGrad algorithm: its parameters, state slots and kernel calls.

    State slots (views shaped like ``coef_``, or ``intercept_`` for the
    ``intercept_*`` ones): ``sum_sq_grad_`` (G, the running sum of squared
    gradients), and for dual averaging ``sum_grad_`` (u, the running sum of
    gradients).
    """

    _parameter_constraints: dict = {
        "l1": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "l2": [Interval(Real, 0, None, closed="left")],
        "update": [StrOptions({"mirror_descent", "dual_averaging", "auto"})],
        "eta": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "delta": [Interval(Real, 0, None, closed="left")],
        "bound": [None, Interval(Real, 0, None, closed="neither")],
        "matrix": [StrOptions({"diag", "full", "sketch"})],
        "sketch_size": [Interval(Integral, 1, None, closed="left")],
        "max_matrix_bytes": [Interval(Real, 0, None, closed="neither")],
    }
    _step_size_name = "eta"
    _auto_grids = {
        "update": ("mirror_descent", "dual_averaging"),
        "eta": (0.03, 0.1, 0.3, 1.0),
        "l1": (0.0, 1e-6, 1e-5, 1e-4),
    }

    sum_sq_grad_ = StateSlot(_kernels.SUM_SQ_GRAD)
    intercept_sum_sq_grad_ = StateSlot(_kernels.SUM_SQ_GRAD, intercept=True)
    sum_grad_ = StateSlot(_kernels.SUM_GRAD, rule="dual_averaging")

    @property
    def grad_outer_sum_(self):
        """G, the sum of the gradients' outer products (``matrix="full"``); see
        the class's Attributes."""
        training = getattr(self, "_training", None)
        gram = None if training is None else training.extras.get("gram")
        if gram is None:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute "
                "'grad_outer_sum_': it exists while a model fitted with "
                "matrix='full' keeps its training state (not after sparsify())"
            )
        return gram[0] if self._coef_shape(1, 1) == (1,) else gram

    intercept_sum_grad_ = StateSlot(
        _kernels.SUM_GRAD, intercept=True, rule="dual_averaging"
    )

    def _n_state_slots(self, chosen=None):
        # WEIGHT and SUM_SQ_GRAD; dual averaging adds SUM_GRAD, and mirror descent
        # with l1 or l2 its lazy bookkeeping (LAST_ROUND, IDLE_DECAY), which the
        # full and sketched matrices do not need (every weight is written every
        # round).
        if self._param("update", chosen) == "dual_averaging":
            return 3
        if self.matrix != "diag":
            return 2
        return 4 if self._param("l1", chosen) > 0 or self.l2 > 0 else 2

    def _state_rule(self):
        parameters = self._training.parameters
        return self._param("update") if parameters is None else parameters.update

    def _weight_parameters(self, chosen=None):
        return AdaGradParameters(
            self._param("update", chosen),
            float(self._param("eta", chosen)),
            float(self.delta),
            float(self._param("l1", chosen)),
            float(self.l2),
            math.inf if self.bound is None else float(self.bound),
            self.matrix,
            int(self.sketch_size) if self.matrix == "sketch" else 0,
        )

    def _check_parameters(self):
        super()._check_parameters()
        _refuse_a_bound_without_mirror_descent(self.bound, self.update)
        if self.matrix != "diag":
            _matrices.refuse_what_the_matrix_lacks(self)

    @property
    def _not_data_parallel(self):
        if self.matrix == "diag":
            return None
        return (
            f"{self.matrix}-matrix AdaGrad steps in the root of the sum of every "
            "past gradient's outer product, and no rule merges shards' matrices "
            "and weights into the model that saw all their rows."
        )

    def _check_state_size(self, n_features, n_outputs):
        if self.matrix == "diag":
            return
        # The "auto" candidates each keep their own matrices while they train,
        # and fit keeps one more state (the best pass's, or the chosen one's).
        states = len(self._candidates(n_features, n_outputs) or [None]) + 1
        needed = states * _matrices.matrix_bytes(
            self.matrix, self.sketch_size, n_features, n_outputs
        ) + _matrices.pass_bytes(self.matrix, n_features, n_outputs)
        if needed > self.max_matrix_bytes:
            kept = (
                "G, an (n_features + 1)^2 matrix,"
                if self.matrix == "full"
                else "a sketch of 2 * sketch_size rows of n_features + 1"
            )
            passing = (
                ", and a pass three more (the round's copy of G, G's "
                "eigenvectors and their round's copy)"
                if self.matrix == "full"
                else ""
            )
            raise ValueError(
                f"{type(self).__name__}(matrix={self.matrix!r}) keeps {kept} per "
                f'output, in each of {states} training states (the "auto" '
                f"candidates and one kept state){passing}: with "
                f"n_features={n_features} and {n_outputs} output(s) that is "
                f"{needed / 1e9:.3g} GB, over "
                f"max_matrix_bytes={self.max_matrix_bytes:.3g}. Use "
                "matrix='diag' (memory and time per row proportional to the "
                'row\'s non-zeros), set the "auto" parameters to values (one '
                "candidate), or raise max_matrix_bytes."
            )

    def _outputs_split_supported(self):
        # The matrices' outputs would need their matrices copied per block.
        return self.matrix == "diag"

    def _candidates(self, n_features=None, n_outputs=None):
        # With a bound, "auto" tries mirror descent alone (the rule that has
        # one); the sketch, mirror descent with l1 = 0 alone (its only step).
        candidates = super()._candidates(n_features, n_outputs)
        if candidates is None:
            return None
        if self.matrix == "sketch":
            candidates = [each for each in candidates if not each.get("l1", 0.0)]
        if self.bound is None and self.matrix != "sketch":
            return candidates
        return [each for each in candidates if each.get("update") != "dual_averaging"]

    def _weights_are_lazy(self):
        # Regularised dual averaging's weights are computed when read, too; the
        # full and sketched matrices' are written every round.
        parameters = self._training.parameters
        if parameters is None or parameters.matrix != "diag":
            return False
        return parameters.l1 > 0.0 or parameters.l2 > 0.0

    def _lazy_strengths(self):
        parameters = self._training.parameters
        if parameters is None or parameters.update == "dual_averaging":
            return None
        if parameters.matrix != "diag":
            return None
        if parameters.l1 == 0.0 and parameters.l2 == 0.0:
            return None
        return parameters.l1, parameters.l2

    def _adopt_parameters(self, state, old, new):
        if self._is_averaging() and new.l1 > 0.0 and 0.0 < new.l2 < 1e-6 * new.l1:
            # The closed-form sums of the idle weights subtract terms of size
            # l1 / l2: below this ratio they would lose more than 1e-10.
            raise ValueError(
                f"average={self.average!r} with l2={new.l2!r} below 1e-6 * l1 "
                f"(l1={new.l1!r}): the averaged weights cannot be kept accurately. "
                "Set l2=0 or a larger l2, or average=False."
            )
        if old is not None and old.update != new.update:
            raise ValueError(
                f"update={new.update!r}, but the model was trained with the other "
                "update rule, whose state cannot be continued. Call fit (with "
                "warm_start=False) to start over."
            )
        if new.matrix != "diag" or (old is not None and old.matrix != "diag"):
            self._adopt_matrix_parameters(state, old, new)
            return
        regularized = new.l1 > 0.0 or new.l2 > 0.0
        # Also where update="auto" chose dual averaging before the bound was set.
        _refuse_a_bound_without_mirror_descent(new.bound, new.update)
        if new.update == "dual_averaging":
            # Every weight, the intercept's included, is a function of u, G and t
            # under the parameters: rewrite them (regularised feature weights are
            # computed again when read).
            if old is not None:
                _kernels.da_weights_all(state, self.t_, *new.steps())
            return
        if old is None:
            return  # a new state: its slots fit the parameters it was made for
        if old.l1 > 0.0 or old.l2 > 0.0:
            # Finish the lazy rounds under the parameters they were run with.
            _lazy.md_catch_up_all(state, self.t_, old.l1, old.l2)
        if new.bound < old.bound:  # the weights of a wider box, projected
            _kernels.clip_weights(state, new.bound)
        # The lazy bookkeeping slots exist exactly when l1 or l2 is on.
        state = self._with_rule_slots(state, 4 if regularized else 2)
        if regularized:
            _kernels.md_start_lazy(state, self.t_, *new.steps())

    def _adopt_matrix_parameters(self, state, old, new):
        if old is None:
            extras = _matrices.new_extras(new, state.shape[2], state.shape[0])
            self._training.extras.update(extras)
            return
        if (old.matrix, old.sketch_size) != (new.matrix, new.sketch_size):
            raise ValueError(
                f"matrix={new.matrix!r} (sketch_size={self.sketch_size!r}), but "
                f"the model was trained with matrix={old.matrix!r}"
                + (f", sketch_size={old.sketch_size}" if old.sketch_size else "")
                + ", whose state cannot be continued. Call fit (with "
                "warm_start=False) to start over."
            )
        if new.update == "dual_averaging" and new != old:
            # The weights are a function of u, the matrix and t.
            _matrices.da_weights_all(self._training, state, self.t_, new)

    def _check_can_start_from_weights(self, n_features, n_outputs):
        super()._check_can_start_from_weights(n_features, n_outputs)
        if self.update == "dual_averaging":
            raise ValueError(
                "update='dual_averaging' cannot start from coef_init or "
                "intercept_init: its weights are a function of the gradient sum "
                "alone, so given starting weights would fade as gradients "
                "accumulate. Use update='mirror_descent' (or FTRL)."
            )

    def _weights_assigned(self):
        # Dual-averaging weights are a function of u: give each assigned weight
        # the u that yields it, or the assignment would be undone at the
        # coordinate's next update. Mirror descent keeps the weights themselves.
        parameters = self._training.parameters
        if parameters.matrix != "diag":
            if parameters.update == "dual_averaging":
                state = self._state_for_reading()
                _matrices.sum_grad_from_weights(
                    self._training, state, self.t_, parameters
                )
            return
        if parameters.update == "dual_averaging":
            failed = _kernels.da_sum_grad_from_weights(
                self._kernel_state(), self.t_, *parameters.steps()
            )
            raise_if_unrepresentable(failed, "delta = 0")
            return
        if math.isfinite(parameters.bound):  # assigned weights, into the box
            _kernels.clip_weights(self._state_for_reading(), parameters.bound)
        if parameters.l1 > 0.0 or parameters.l2 > 0.0:
            # The assigned weights are current at round t_ and take their lazy
            # proximal steps from there on (coef_init: from round 0); the others
            # are brought to t_ first (an intercept assignment caught up the
            # intercept alone).
            state = self._state_for_reading()
            _kernels.md_start_lazy(state, self.t_, *parameters.steps())

    def _catch_up_weights(self, state):
        parameters = self._training.parameters
        if parameters.matrix != "diag":
            return  # written every round
        if parameters.update == "dual_averaging":
            _kernels.da_weights_all(state, self.t_, *parameters.steps())
        else:
            super()._catch_up_weights(state)

    def _lazy_sparse_scores(self, X, state, out):
        parameters = self._training.parameters
        if parameters.update == "dual_averaging":
            rows = (X.data, X.indices, X.indptr, state, self.t_)
            _kernels.da_scores(*rows, *parameters.steps(), out)
        else:
            super()._lazy_sparse_scores(X, state, out)

    def _side_by_side_supported(self, parameters):
        # Diagonal dual averaging only: mirror descent has no side-by-side kernel
        # (its lazy l1/l2 catch-up would need one of its own).
        return all(
            each.update == "dual_averaging" and each.matrix == "diag"
            for each in parameters
        )

    def _side_by_side_pass(
        self, X, targets, row_weights, order, state, parameters, results
    ):
        _kernels.da_candidates_pass(
            X.data,
            X.indices,
            X.indptr,
            targets,
            row_weights,
            order,
            state,
            self.t_,
            LOSS_CODES[self.loss],
            self._loss_epsilon(),
            np.array([each.eta for each in parameters]),
            parameters[0].delta,
            np.array([each.l1 for each in parameters]),
            parameters[0].l2,
            bool(self.fit_intercept),
            *results,
        )

    def _run_pass(self, X, targets, row_weights, order, row_scores):
        training = self._training
        state = training.writable("array")
        parameters = training.parameters
        rows = (X.data, X.indices, X.indptr, targets, row_weights, order)
        hyper = (
            training.t,
            LOSS_CODES[self.loss],
            self._loss_epsilon(),
            *parameters.steps(),
            bool(self.fit_intercept),
        )
        if parameters.matrix != "diag":
            return _matrices.run_pass(
                training, rows, state, row_scores, hyper[1:3], bool(self.fit_intercept)
            )
        averaging = self._average_arguments()
        if parameters.update == "dual_averaging":
            return _kernels.da_pass(*rows, state, row_scores, *hyper, *averaging)
        return _kernels.md_pass(
            *rows, state, row_scores, *hyper, *averaging, parameters.bound
        )

    def _merge_shards(self, merge):
        # The rule of ._merging on the weights (each shard's at its own round)
        # and G.
        parameters = merge.parameters
        steps = parameters.steps()
        if parameters.update == "dual_averaging" and merge.step() == 1.0:
            # Two shards: u and G summed, the statistics the weights follow
            # from (the delayed update: every row's gradient, at its shard's
            # weights). With l1 this keeps the model of serial training more
            # closely than combining the weights (docs/training.md).
            merged = merge.combined()
            _kernels.da_weights_all(merged, merge.t, *steps)
            return merged
        if parameters.update == "dual_averaging":
            # More: twice the mean increment of u would lag behind l1's
            # threshold t * l1, which grows with every row: the weights, each
            # shard's at its round, are combined instead.
            merged = merge.mapped(self._merge_conversion(parameters)).combined()
            # The u that gives those weights at the merged round; where every
            # shard's weight is zero, u and G are the sums of the gradients and
            # their squares, as serially.
            zero = merged[:, WEIGHT] == 0.0
            _kernels.da_sum_grad_from_weights(merged, merge.t, *steps)
            for slot in (_kernels.SUM_SQ_GRAD, _kernels.SUM_GRAD):
                merged[:, slot][zero] = merge.summed(slot)[zero]
            _kernels.da_weights_all(merged, merge.t, *steps)
            return merged
        if parameters.l1 == 0.0 and parameters.l2 == 0.0:
            return _into_box(merge.combined(), parameters.bound)
        # The weights caught up to each shard's round (its l1/l2 steps), current
        # at the merged round, with the idle decay of the merged step sizes.
        merged = merge.mapped(self._merge_conversion(parameters)).combined()
        _into_box(merged, parameters.bound)
        _kernels.md_start_lazy(merged, merge.t, *steps)
        return merged

    def _merge_conversion(self, parameters):
        # Dual averaging's weights at each shard's round (a function of u, G
        # and t); mirror descent's caught up through its lazy l1/l2 steps.
        if parameters.update == "dual_averaging":
            convert = functools.partial(_da_weights_at, steps=parameters.steps())
            return MergeConversion(convert, (WEIGHT,))
        if parameters.l1 > 0.0 or parameters.l2 > 0.0:
            convert = functools.partial(
                _lazy.md_catch_up_all, l1=parameters.l1, l2=parameters.l2
            )
            return MergeConversion(convert, (WEIGHT, _lazy.LAST_ROUND))
        return None

    # Averaging: dual averaging's idle weight follows t; mirror descent's is
    # LazyProximal's (it decays with l1 or l2, else stays put).

    def _settle_all(self, state, avg_slot, t, a0):
        parameters = self._training.parameters
        if parameters.update == "dual_averaging":
            _kernels.da_settle_all(state, avg_slot, t, a0, *parameters.steps())
        else:
            super()._settle_all(state, avg_slot, t, a0)

    def _averaged_all(self, state, avg_slot, t, a0, out):
        parameters = self._training.parameters
        if parameters.update == "dual_averaging":
            _kernels.da_averaged_all(state, avg_slot, t, a0, *parameters.steps(), out)
        else:
            super()._averaged_all(state, avg_slot, t, a0, out)

    def _averaged_sparse_scores(self, X, state, avg_slot, t, a0, out):
        parameters = self._training.parameters
        if parameters.update == "dual_averaging":
            rows = (X.data, X.indices, X.indptr, state, avg_slot, t, a0)
            _kernels.da_averaged_scores(*rows, *parameters.steps(), out)
        else:
            super()._averaged_sparse_scores(X, state, avg_slot, t, a0, out)


def _refuse_a_bound_without_mirror_descent(bound, update):
    if bound is not None and math.isfinite(bound) and update == "dual_averaging":
        raise ValueError(
            f"bound={bound!r} keeps mirror descent's weights in a box; "
            "update='dual_averaging' (set, or chosen by update='auto') has no "
            "bound. Set update='mirror_descent' (with 'auto', a bound set before "
            "the first fit makes it try mirror descent alone), or bound=None."
        )


def _da_weights_at(state, t, steps):
    _kernels.da_weights_all(state, t, *steps)


def _into_box(merged, bound):
    """``merged`` (a merge's rows of the state, the intercept's last) with the
    features' weights clipped into ``[-bound, bound]``: a merge adds the
    shards' moves, which may carry a weight out of the box."""
    if math.isfinite(bound):
        _kernels.clip_weights(merged, bound)
    return merged


def _adagrad_parameters(update, eta, l1):
    """The parameter section of an AdaGrad estimator with these defaults."""
    update, eta, l1 = (f'"{v}"' if isinstance(v, str) else v for v in (update, eta, l1))
    return f"""update : {{"mirror_descent", "dual_averaging", "auto"}}, \
default={update}
        ``"mirror_descent"`` is composite mirror descent (the weights move by an
        adaptive gradient step, then an L1/L2 proximal step). ``"dual_averaging"``
        keeps the sum of past gradients and derives the weights from it; with ``l1``
        it gives much sparser models. ``"auto"`` tries both (see below).
    eta : float or "auto", default={eta}
        Learning rate, > 0. A coordinate's step is ``eta * g / (delta + sqrt(G))``
        with G the sum of its squared gradients, so a coordinate moves by at most
        ``eta`` per round and rarely seen features keep large steps. ``"auto"``
        tries 0.03, 0.1, 0.3 and 1.
    delta : float, default=0.1
        Added to ``sqrt(G)``, >= 0; damps the first steps of each coordinate.
    l1 : float or "auto", default={l1}
        L1 regularisation strength, >= 0. It weighs the *mean* training loss, like
        ``alpha`` in SGDClassifier: each round applies ``l1 * |w|``. ``"auto"``
        tries 0, 1e-6, 1e-5 and 1e-4.
    l2 : float, default=0.0
        L2 regularisation strength, >= 0, applied as ``l2 / 2 * ||w||^2`` per round.
    matrix : {{"diag", "full", "sketch"}}, default="diag"
        ``"diag"``: each coordinate's own step, ``eta / (delta + sqrt(G_i))``,
        O(the row's non-zeros) per row on data of any width. ``"full"``: the
        paper's full-matrix AdaGrad, steps in the metric ``H = delta I +
        G^(1/2)`` with G the sum of the gradients' outer products (over the
        features and the intercept), which learns how features are correlated;
        O(n_features^3) per row and output (G's eigendecomposition, updated
        by each row's rank-one change: one product of two n_features^2
        matrices and the secular equation's roots), for up to a few hundred
        features (:doc:`/adagrad`). ``"sketch"``: the same steps
        with G replaced by a Frequent Directions sketch of the gradients
        (Ada-FD, Wan & Zhang 2016) of ``2 * sketch_size`` rows, O(sketch_size *
        n_features) per row and output, for thousands of features; mirror
        descent without ``l1`` only (``update="auto"`` and ``l1="auto"`` try
        ``eta`` alone). Both need ``delta > 0`` and have no ``bound``,
        ``average`` or ``shards``.
    sketch_size : int, default=20
        The number of directions m the sketch keeps (``matrix="sketch"``): it
        holds 2m rows and shrinks to m when they are used. With m at least the
        rank of the gradients seen, the sketch is exact and the steps are the
        full matrix's.
    max_matrix_bytes : float, default=2e9
        With ``matrix="full"`` or ``"sketch"``, refuse data whose matrices would
        take more bytes, before anything is allocated: one of ``(n_features +
        1)^2`` floats per output (full), or ``2 * sketch_size`` rows of
        ``n_features + 1`` floats and their ``(2 * sketch_size)^2`` Gram matrix
        (sketch), in each training state (every ``"auto"`` candidate's, which
        train in turn in the first pass, and one more), and, for the full
        matrix, three more per output that a pass works with (the round's
        copy of G, G's eigenvectors and their round's copy).
    bound : float, default=None
        Keep every coefficient in ``[-bound, bound]``, > 0: each mirror descent
        step is followed by clipping (the projection onto the box; the
        intercept is not bounded). With ``delta=0``, ``l1=l2=0`` and
        ``eta=bound * sqrt(2)`` this is per-coordinate online gradient descent
        on the box (:doc:`/adagrad`). Needs ``update="mirror_descent"`` (with
        ``"auto"``, only mirror descent is tried). Coefficients assigned or
        given as ``coef_init`` are clipped too. The box holds the weights in
        the units training uses: a regressor with ``normalize_y=True`` bounds
        the weights of the standardized target, so ``coef_`` (in the
        target's units) lies within ``bound * target_scale_``. With
        ``average``, ``coef_`` is the mean of iterates each in the box they
        were trained in (a smaller bound set later does not clip the mean).
    {TRAINING_PARAMETERS}"""


_CLASSIFIER_DEFAULTS_WHY = """The defaults (dual averaging; ``eta`` and ``l1`` chosen in
    the first pass; ``delta=0.1``) were chosen on a panel of ten
    classification sets (:doc:`/training`, "Why it works"):
    fitted to ``tol``, they come within 0.005 test AUC of the best of a tuned
    grid (AdaGrad's and SGDClassifier's, picked on the test set) on every
    set. The first pass trains all 16 candidates; set ``eta`` and ``l1`` to
    skip the choice."""

_REGRESSOR_DEFAULTS_WHY = """The defaults ``eta=0.1, delta=0.1`` were chosen on tf-idf
    text, one-hot and standardised dense data (:doc:`/adagrad`, "Choosing the
    defaults"); with ``normalize_y`` they come within 0.01 R² of
    SGDRegressor's best ``alpha`` on a regression panel of five sets
    (California housing, Million Song, abalone, scale-data and
    ``make_regression``, each target in its own units)."""


_ADAGRAD_ATTRIBUTES = f"""intercept_sum_sq_grad_ : ndarray of shape (n_outputs,)
        Sum of squared intercept gradients.
    sum_grad_ : ndarray, same shape as ``coef_``
        Sum of gradients u of each coordinate (``update="dual_averaging"`` only).
    intercept_sum_grad_ : ndarray of shape (n_outputs,)
        Sum of intercept gradients (``update="dual_averaging"`` only).
    grad_outer_sum_ : ndarray of shape (n_features + 1, n_features + 1) or \
(n_outputs, n_features + 1, n_features + 1)
        G, the sum of the gradients' outer products over the features and the
        intercept (last), per output (``matrix="full"`` only).
    {AUTO_ATTRIBUTES}
    {FIT_ATTRIBUTES}"""


class AdaGradClassifier(
    OnlineClassifierMixin, LinearClassifierMixin, _AdaGrad, OnlineLinearModel
):
    __doc__ = f"""Linear classifier trained by AdaGrad: per-coordinate learning rates.

    Each feature's step size shrinks with the gradients it has seen, so rare but
    predictive features keep large steps. Works on sparse data of any width: the cost
    of a row is proportional to its non-zeros, L1/L2 regularisation included.
    Multiclass problems are one-vs-rest (or multinomial, ``loss="multinomial"``),
    all classes updated in one pass.

    Parameters
    ----------
    loss : {{"log_loss", "hinge", "squared_hinge", "modified_huber", \
"squared_error", "multinomial"}}, default="log_loss"
        Loss on the score. With more than two classes every loss but
        ``"multinomial"`` trains one-vs-rest outputs; ``"multinomial"`` trains
        the classes' scores together on the multinomial (softmax) log loss
        (with two classes it is ``"log_loss"``; :doc:`/multiclass`).
        ``"log_loss"``, ``"multinomial"`` and ``"modified_huber"`` give
        :meth:`predict_proba`.
    {_adagrad_parameters("dual_averaging", "auto", "auto")}
    {CLASS_WEIGHT}

    Attributes
    ----------
    {CLASSIFIER_COEF}
    sum_sq_grad_ : ndarray, same shape as ``coef_``
        Sum of squared gradients G of each coordinate.
    {_ADAGRAD_ATTRIBUTES}

    See Also
    --------
    AdaGradRegressor : The same algorithm for regression.
    sklearn.linear_model.SGDClassifier : One global learning-rate schedule.

    Notes
    -----
    {AUTO_NOTE}

    {_CLASSIFIER_DEFAULTS_WHY}

    References
    ----------
    J. Duchi, E. Hazan, Y. Singer. Adaptive Subgradient Methods for Online Learning
    and Stochastic Optimization. JMLR 12, 2011.

    Examples
    --------
    >>> from sk_adaprox import AdaGradClassifier
    >>> from sk_adaprox.datasets import make_rare_features
    >>> X, y = make_rare_features(2000, 5000, random_state=0)
    >>> clf = AdaGradClassifier(random_state=0).fit(X, y)
    >>> clf.predict(X[:3]).shape
    (3,)
    """

    _parameter_constraints: dict = {
        **OnlineLinearModel._parameter_constraints,
        **_AdaGrad._parameter_constraints,
        **OnlineClassifierMixin._parameter_constraints,
    }

    def __init__(
        self,
        loss: str = "log_loss",
        *,
        update: str = "dual_averaging",
        eta: float | str = "auto",
        delta: float = 0.1,
        l1: float | str = "auto",
        l2: float = 0.0,
        bound: float | None = None,
        matrix: str = "diag",
        sketch_size: int = 20,
        max_matrix_bytes: float = 2e9,
        fit_intercept: bool = True,
        max_iter: int = 1000,
        tol: float | None = 1e-3,
        n_iter_no_change: int = 5,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        shuffle: bool = True,
        random_state: RandomStateLike = None,
        warm_start: bool = False,
        average: bool | int = False,
        class_weight: dict | str | None = None,
        verbose: int = 0,
        n_jobs: int | None = None,
        shards: int | None = None,
        sync_rows: int | str | None = "auto",
    ) -> None:
        self.loss = loss
        self.update = update
        self.eta = eta
        self.delta = delta
        self.l1 = l1
        self.l2 = l2
        self.bound = bound
        self.matrix = matrix
        self.sketch_size = sketch_size
        self.max_matrix_bytes = max_matrix_bytes
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.average = average
        self.class_weight = class_weight
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.shards = shards
        self.sync_rows = sync_rows


class AdaGradRegressor(
    OnlineRegressorMixin, RegressorMixin, _AdaGrad, OnlineLinearModel
):
    __doc__ = f"""Linear regressor trained by AdaGrad: per-coordinate learning rates.

    Each feature's step size shrinks with the gradients it has seen, so rare features
    keep large steps. The cost of a row is proportional to its non-zeros. Like any
    gradient method it needs features on a common scale; the target's scale and
    offset do not matter (``normalize_y``).

    Parameters
    ----------
    loss : {{"squared_error", "huber", "epsilon_insensitive"}}, \
default="squared_error"
        Loss on the residual.
    epsilon : float, default=0.1
        Width of the ``"huber"`` quadratic zone and of the ``"epsilon_insensitive"``
        dead zone.
    {NORMALIZE_Y}
    {_adagrad_parameters("mirror_descent", 0.1, 0.0)}

    Attributes
    ----------
    {REGRESSOR_COEF}
    sum_sq_grad_ : ndarray of shape (n_features,)
        Sum of squared gradients G of each coordinate.
    {_ADAGRAD_ATTRIBUTES}

    See Also
    --------
    AdaGradClassifier : The same algorithm for classification.
    sklearn.linear_model.SGDRegressor : One global learning-rate schedule.

    Notes
    -----
    {AUTO_NOTE}

    {_REGRESSOR_DEFAULTS_WHY}

    Examples
    --------
    >>> import numpy as np
    >>> from sk_adaprox import AdaGradRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3))
    >>> y = X @ [1.0, -2.0, 0.5] + 0.01 * rng.normal(size=500)
    >>> reg = AdaGradRegressor(random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.99)
    True
    """

    _parameter_constraints: dict = {
        **OnlineLinearModel._parameter_constraints,
        **_AdaGrad._parameter_constraints,
        **OnlineRegressorMixin._parameter_constraints,
    }

    def __init__(
        self,
        loss: str = "squared_error",
        *,
        epsilon: float = 0.1,
        normalize_y: bool = True,
        update: str = "mirror_descent",
        eta: float | str = 0.1,
        delta: float = 0.1,
        l1: float | str = 0.0,
        l2: float = 0.0,
        bound: float | None = None,
        matrix: str = "diag",
        sketch_size: int = 20,
        max_matrix_bytes: float = 2e9,
        fit_intercept: bool = True,
        max_iter: int = 1000,
        tol: float | None = 1e-3,
        n_iter_no_change: int = 5,
        early_stopping: bool = False,
        validation_fraction: float = 0.1,
        shuffle: bool = True,
        random_state: RandomStateLike = None,
        warm_start: bool = False,
        average: bool | int = False,
        verbose: int = 0,
        n_jobs: int | None = None,
        shards: int | None = None,
        sync_rows: int | str | None = "auto",
    ) -> None:
        self.loss = loss
        self.epsilon = epsilon
        self.normalize_y = normalize_y
        self.update = update
        self.eta = eta
        self.delta = delta
        self.l1 = l1
        self.l2 = l2
        self.bound = bound
        self.matrix = matrix
        self.sketch_size = sketch_size
        self.max_matrix_bytes = max_matrix_bytes
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.average = average
        self.verbose = verbose
        self.n_jobs = n_jobs
        self.shards = shards
        self.sync_rows = sync_rows
