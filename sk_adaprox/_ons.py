"""Online Newton Step estimators (Hazan, Agarwal & Kale 2007; docs/ons.md)."""

import functools
import math
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import ThreadpoolController

from ._base import OnlineLinearModel
from ._classification import OnlineClassifierMixin
from ._docstrings import (
    AUTO_ATTRIBUTES,
    CLASS_WEIGHT,
    CLASSIFIER_COEF,
    FIT_ATTRIBUTES,
    NORMALIZE_Y,
    REGRESSOR_COEF,
    TRAINING_PARAMETERS,
)
from ._kernels import lazy as _lazy
from ._kernels import ons as _kernels
from ._losses import LOSS_CODES
from ._proximal import LazyProximal
from ._regression import OnlineRegressorMixin
from ._state import StateSlot
from ._typing import RandomStateLike

# matrix="auto" keeps A^-1 while all outputs' matrices fit in this many bytes (up to
# 180 features for one output): A^-1 then stays in a core's L2 cache and a row costs
# a few microseconds. Wider data gets the diagonal (docs/ons.md, "matrix=").
AUTO_FULL_BYTES = 2**18


def _full_matrix_bytes(n_features, n_outputs):
    """Bytes of ``"full"``'s A^-1 for every output."""
    return 8 * n_outputs * (n_features + 1) ** 2


def _auto_matrix_for(n_features, n_outputs, max_matrix_bytes, l1):
    """What ``matrix="auto"`` keeps for data of this shape: ``"diag"`` for an
    ``l1`` set > 0, which only the diagonal applies."""
    if not isinstance(l1, str) and l1 > 0.0:
        return "diag"
    full_bytes = _full_matrix_bytes(n_features, n_outputs)
    return "full" if full_bytes <= min(AUTO_FULL_BYTES, max_matrix_bytes) else "diag"


@functools.cache
def _blas_threads():
    """The process's BLAS thread pools (found once: scanning takes milliseconds)."""
    return ThreadpoolController()


class ONSParameters(NamedTuple):
    """The parameters an ONS state is trained and read with (``radius`` inf for
    no ball, ``sketch_size`` 0 unless the matrix is the sketch)."""

    matrix: str
    sketch_size: int
    gamma: float
    eps: float
    radius: float
    l1: float


class _ONS(LazyProximal):
    """The Online Newton Step: its parameters, state and kernel calls.

    The training state's ``extras``: ``"auto_matrix"``, what ``matrix="auto"``
    means for the shape training started with; ``"scale_sums"``, the sums of the
    running scale m (:func:`._kernels.ons.scale_with_row`), in whose units every
    variant learns (the features divided by sqrt(m)); and the variant's arrays.
    ``"diag"`` keeps A's diagonal in the state array (slot ``SUM_SQ_GRAD``, G,
    with A = eps m + G), and ``"squared_norms"``, each output's squared weight
    norm, for the projection. ``"full"`` keeps A^{-1} (in the normalized units)
    in ``"a_inv"``, shape (K, d + 1, d + 1); ``"sketch"`` its sketch ``"sketch"``
    (K, 2m, d + 1), H = (eps I + S S^T)^{-1} in ``"sketch_gram_inverse"`` (K, 2m,
    2m) and the sketch rows in use per output, ``"sketch_rows"``. The weights are
    the state's ``WEIGHT`` slot in all three. ``"diag"`` with ``l1`` > 0 also has
    the lazy bookkeeping slots of :mod:`._kernels.lazy`, and its weights lag
    behind ``t_`` until read.
    """

    _not_data_parallel = (
        "the Online Newton Step's steps are the inverse of a matrix of every "
        "past gradient (full, sketched or its diagonal) with a projection in "
        "that matrix's norm, and no rule merges shards' matrices and weights "
        "into a model that saw all their rows."
    )

    _parameter_constraints: dict = {
        "matrix": [StrOptions({"auto", "full", "diag", "sketch"})],
        # The kernels multiply by 1 / gamma, which must not overflow.
        "gamma": [Interval(Real, 1e-300, None, closed="left")],
        "eps": [Interval(Real, 0, None, closed="neither")],
        "radius": [Interval(Real, 0, None, closed="neither"), None],
        "sketch_size": [Interval(Integral, 1, None, closed="left")],
        "max_matrix_bytes": [Interval(Real, 0, None, closed="neither")],
        "l1": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
    }
    _auto_grids = {"l1": (0.0, 1e-6, 1e-5, 1e-4)}
    # matrix="auto" depends on the number of outputs, so candidates trained on
    # fewer classes could keep another matrix than the model: compare on all.
    _candidate_classes = 0
    _step_size_name = "gamma"
    _smaller_steps = "larger"  # the step is 1 / gamma
    _per_output_extras = (
        "a_inv",
        "sketch",
        "sketch_gram_inverse",
        "sketch_rows",
        "squared_norms",
    )

    sum_sq_grad_ = StateSlot(_kernels.SUM_SQ_GRAD, rule="diag")
    intercept_sum_sq_grad_ = StateSlot(
        _kernels.SUM_SQ_GRAD, intercept=True, rule="diag"
    )

    @property
    def A_inv_(self):
        """The inverse of A (``matrix="full"``); see the class's Attributes."""
        return self._matrix_view("a_inv", "full")

    @property
    def S_(self):
        """The Frequent Directions sketch (``matrix="sketch"``)."""
        return self._matrix_view("sketch", "sketch")

    @property
    def H_(self):
        """``inv(eps * I + S_ @ S_.T)`` (``matrix="sketch"``)."""
        return self._matrix_view("sketch_gram_inverse", "sketch")

    def _matrix_view(self, name, matrix):
        training = getattr(self, "_training", None)
        array = None if training is None else training.extras.get(name)
        if array is None or self._state_rule() != matrix:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute for {name!r}: it "
                f"exists after fitting with matrix={matrix!r}"
            )
        return array[0] if self._coef_shape(1, 1) == (1,) else array

    @property
    def feature_scale_(self):
        """The running scale m; see the class's Attributes."""
        self._check_fitted()
        if "scale_sums" not in self._training.extras:
            raise AttributeError(
                "feature_scale_ was dropped by sparsify(), which keeps only what "
                "prediction needs."
            )
        return self._root_scale() ** 2

    @property
    def matrix_(self):
        """The variant in use; see the class's Attributes."""
        self._check_fitted()
        return self._state_rule()

    def _training_started(self, n_features, n_outputs):
        # What "auto" means for this shape, kept should matrix become "auto" later.
        self._training.extras["auto_matrix"] = _auto_matrix_for(
            n_features, n_outputs, self.max_matrix_bytes, self.l1
        )

    def _n_state_slots(self, chosen=None):
        if self._matrix() != "diag":
            return 1  # WEIGHT
        # WEIGHT and SUM_SQ_GRAD, and with l1 the lazy bookkeeping.
        return 4 if self._l1(chosen) > 0.0 else 2

    def _state_rule(self):
        parameters = self._training.parameters
        return self._matrix() if parameters is None else parameters.matrix

    def _weight_parameters(self, chosen=None):
        matrix = self._matrix()
        return ONSParameters(
            matrix,
            int(self.sketch_size) if matrix == "sketch" else 0,
            float(self.gamma),
            float(self.eps),
            math.inf if self.radius is None else float(self.radius),
            self._l1(chosen),
        )

    def _check_parameters(self):
        if not self._is_initialized():
            return
        matrix, l1 = self._matrix(), self._l1()
        if l1 > 0.0 and matrix != "diag":
            advice = (
                "matrix='auto' chose it when training started; call fit (with "
                "warm_start=False) to train the diagonal with l1, or set l1=0."
                if self.matrix == "auto"
                else "Use matrix='diag' (or 'auto', which takes the diagonal when "
                "l1 > 0), or l1=0."
            )
            raise ValueError(
                f"l1={l1!r} needs matrix='diag': the full and sketched matrices "
                f"have no l1 step, and the model's matrix is {matrix!r}. {advice}"
            )

    def _l1(self, chosen=None):
        """``l1``, or the value chosen for ``"auto"``, which means 0 where the
        matrix is not the diagonal (or the state's is not: a change of matrix is
        refused when the state adopts it)."""
        matrices = (self._matrix(), self._state_rule())
        if isinstance(self.l1, str) and matrices != ("diag", "diag"):
            return 0.0
        return float(self._param("l1", chosen))

    def _candidates(self, n_features=None, n_outputs=None):
        # l1, the only parameter with "auto", is chosen for the diagonal only.
        if self._matrix(n_features, n_outputs) != "diag":
            return None
        return super()._candidates()

    def _outputs_split_supported(self):
        # The sketch's passes limit BLAS to one thread, a limit of the whole
        # process: concurrent passes would lift each other's. A projection onto
        # the ball (radius) settles and catches up every output's lazy l1 steps
        # and averages at once: the outputs are not independent there.
        return self._matrix() != "sketch" and self.radius is None

    def _lazy_strengths(self):
        parameters = self._training.parameters
        if parameters is None or parameters.l1 == 0.0:
            return None
        return parameters.l1, 0.0

    def _matrix(self, n_features=None, n_outputs=None):
        """The variant ``matrix`` asks for, "auto" resolved for data of this shape
        or, by default, for the shape training started with."""
        if self.matrix != "auto":
            return self.matrix
        if n_features is None:
            return self._training.extras["auto_matrix"]
        return _auto_matrix_for(n_features, n_outputs, self.max_matrix_bytes, self.l1)

    def _matrix_bytes(self, n_features, n_outputs, matrix):
        if matrix == "full":
            return _full_matrix_bytes(n_features, n_outputs)
        if matrix == "sketch":
            rows = 2 * self.sketch_size
            return 8 * n_outputs * rows * (n_features + 1 + rows)
        return 0

    def _check_state_size(self, n_features, n_outputs):
        matrix = self._matrix(n_features, n_outputs)
        needed = self._matrix_bytes(n_features, n_outputs, matrix)
        if needed > self.max_matrix_bytes:
            kept = (
                "A^-1, a (n_features + 1)^2 matrix"
                if matrix == "full"
                else "a sketch of 2 * sketch_size rows of n_features + 1"
            )
            raise ValueError(
                f"{type(self).__name__}(matrix={matrix!r}) keeps {kept} per "
                f"output: with n_features={n_features} and {n_outputs} output(s) "
                f"that is {needed / 1e9:.3g} GB, over max_matrix_bytes="
                f"{self.max_matrix_bytes:.3g}. Use matrix='diag' (memory and time "
                "per row proportional to the row's non-zeros) or matrix='sketch' "
                "(a smaller sketch_size), or raise max_matrix_bytes."
            )

    def _adopt_parameters(self, state, old, new):
        if old is None:
            self._new_matrices(new, state.shape[2], state.shape[0])
            return
        if (old.matrix, old.sketch_size) != (new.matrix, new.sketch_size):
            asked = f"{self.matrix!r}" + (
                f" (here {new.matrix!r})" if self.matrix == "auto" else ""
            )
            raise ValueError(
                f"matrix={asked}, sketch_size={self.sketch_size!r}, but the model "
                f"was trained with matrix={old.matrix!r}"
                + (f", sketch_size={old.sketch_size}" if old.matrix == "sketch" else "")
                + ", whose state cannot be continued. Call fit (with "
                "warm_start=False) to start over."
            )
        if new.matrix == "diag":
            self._adopt_diag_parameters(state, old, new)
        elif new.eps != old.eps:
            self._shift_eps(new, new.eps - old.eps)

    def _new_matrices(self, parameters, n_outputs, size):
        """A new state's arrays beside the state array, for these parameters."""
        extras = self._training.extras
        # The weighted sum of squared non-zero feature values and of their
        # weights: the running scale m (_kernels.ons.scale_with_row).
        extras["scale_sums"] = np.zeros(2)
        if parameters.matrix == "full":
            a_inv = extras["a_inv"] = np.zeros((n_outputs, size, size))
            diagonal = np.arange(size)
            a_inv[:, diagonal, diagonal] = 1.0 / parameters.eps
        elif parameters.matrix == "sketch":
            rows = 2 * parameters.sketch_size
            extras["sketch"] = np.zeros((n_outputs, rows, size))
            gram_inverse = extras["sketch_gram_inverse"] = np.zeros(
                (n_outputs, rows, rows)
            )
            diagonal = np.arange(rows)
            gram_inverse[:, diagonal, diagonal] = 1.0 / parameters.eps
            extras["sketch_rows"] = np.zeros(n_outputs, dtype=np.int64)
        else:
            # A new state's weights are 0: no lazy decay to record until
            # weights are assigned (coef_init, see _weights_assigned).
            extras["squared_norms"] = np.zeros(n_outputs)

    def _shift_eps(self, parameters, shift):
        """A of the full matrix or the sketch under eps moved by ``shift``."""
        training = self._training
        if parameters.matrix == "full":
            _kernels.full_shift_eps(training.writable("a_inv"), shift)
            return
        sketch = training.writable("sketch")
        gram_inverse = training.writable("sketch_gram_inverse")
        rows = training.extras["sketch_rows"]
        for k in range(sketch.shape[0]):
            _kernels.sketch_gram_inverse(
                sketch[k], int(rows[k]), parameters.eps, gram_inverse[k]
            )

    def _adopt_diag_parameters(self, state, old, new):
        # An idle round's shrink is l1 / (gamma (eps + G)): a change of any of
        # them (G's when an accumulator was assigned, old == new) finishes the
        # lazy rounds under the old values first.
        lazy_changed = (old.l1 > 0.0 or new.l1 > 0.0) and (
            old == new or (new.gamma, new.eps, new.l1) != (old.gamma, old.eps, old.l1)
        )
        if lazy_changed:
            if old.l1 > 0.0:
                _lazy.md_catch_up_all(state, self.t_, old.l1, 0.0)
            state = self._with_rule_slots(state, 4 if new.l1 > 0.0 else 2)
            if new.l1 > 0.0:
                self._start_lazy(state, new)
        if lazy_changed or new.radius != old.radius:
            norms = self._training.writable("squared_norms")
            _kernels.squared_norms(state, norms)

    def _weights_assigned(self):
        parameters = self._training.parameters
        if parameters.matrix == "diag" and parameters.l1 > 0.0:
            # The assigned weights are current at round t_ and decay from there on
            # (coef_init: from round 0); the others are brought to t_ first (an
            # intercept assignment caught up the intercept alone).
            self._start_lazy(self._state_for_reading(), parameters)
        # diag's running |w|^2 decides when to project: recompute it, O(n_features).
        if "squared_norms" in self._training.extras:
            norms = self._training.writable("squared_norms")
            _kernels.squared_norms(self._state, norms)

    def _start_lazy(self, state, parameters):
        """Record every feature's idle decay at round ``t_``, under the running
        scale as it is now (as the pass records it when a feature is updated)."""
        root = self._root_scale()
        _kernels.diag_start_lazy(
            state,
            self.t_,
            1.0 / parameters.gamma,
            parameters.eps * root**2,
            parameters.l1 * root,
        )

    def _root_scale(self):
        return _kernels.root_scale(*self._training.extras["scale_sums"])

    def _run_pass(self, X, targets, row_weights, order, row_scores):
        training = self._training
        parameters = training.parameters
        arguments = (
            X.data,
            X.indices,
            X.indptr,
            targets,
            row_weights,
            order,
            training.writable("array"),
        )
        after = (
            row_scores,
            LOSS_CODES[self.loss],
            self._loss_epsilon(),
            1.0 / parameters.gamma,
        )
        rounds = (bool(self.fit_intercept), training.t, *self._average_arguments())
        if parameters.matrix == "full":
            matrices = (training.writable("a_inv"), training.writable("scale_sums"))
            return _kernels.full_pass(
                *arguments, *matrices, *after, parameters.radius, *rounds
            )
        if parameters.matrix == "sketch":
            return self._sketch_pass(arguments, after, parameters, rounds)
        matrices = (
            training.writable("squared_norms"),
            training.writable("scale_sums"),
        )
        return _kernels.diag_pass(
            *arguments,
            *matrices,
            *after,
            parameters.eps,
            parameters.l1,
            parameters.radius,
            *rounds,
        )

    def _sketch_pass(self, arguments, after, parameters, rounds):
        training = self._training
        matrices = tuple(
            training.writable(name)
            for name in ("sketch", "sketch_gram_inverse", "sketch_rows", "scale_sums")
        )
        # The sketch's shrinks and projections call BLAS and LAPACK on products
        # with 2m rows, where threads cost more than they save; the limit is set
        # once per call, not per row (benchmarks/studies/NOTES.md, "Kernel layout").
        with _blas_threads().limit(limits=1, user_api="blas"):
            return _kernels.sketch_pass(
                *arguments,
                *matrices,
                *after,
                parameters.eps,
                parameters.radius,
                *rounds,
            )


_ONS_PARAMETERS = f"""matrix : {{"auto", "full", "diag", "sketch"}}, default="auto"
        How A, the sum of the gradients' outer products, is kept.
        ``"full"``: A^-1 exactly (Sherman-Morrison), O(n_features^2) memory and time
        per row; for up to a few thousand features. ``"diag"``: A's diagonal only,
        O(the row's non-zeros) per row on sparse data of any width, like AdaGrad
        without its square root. ``"sketch"``: a Frequent Directions sketch of
        ``sketch_size`` directions (Luo et al. 2016), O(sketch_size * n_features)
        per row; for dense or moderately sparse data with thousands to tens of
        thousands of features. ``"auto"``: ``"full"`` while the matrices of all
        outputs take at most 256 KiB (and ``max_matrix_bytes``), that is up to 180
        features for a binary or regression problem (a row then costs a few
        microseconds), and ``"diag"`` beyond; decided when training starts,
        from the data's width, and kept in ``matrix_``. On correlated features the
        full matrix learns more per pass; on independent or one-hot features the
        two reach the same scores (:doc:`/ons`).
    gamma : float, default=0.1
        Step parameter, > 0: the step is ``(1 / gamma) A^-1 g``, so a *larger*
        gamma takes smaller steps. With ``"diag"`` and ``"sketch"``, a loss of
        the residual takes the importance-invariant step along the same
        direction, which never carries a row's score past its target.
    eps : float, default=100.0
        A starts as ``eps * I`` in the units of the features' scale (``eps *
        feature_scale_`` on each feature, ``eps`` on the intercept), > 0, so the
        model does not depend on the units of the features. It bounds every
        step by ``sqrt(s) / (gamma * sqrt(eps))`` in those units (s the row's
        weight) and damps the first steps. The defaults ``gamma=0.1, eps=100``
        were chosen on standardized data (:doc:`/ons`, "Choosing the
        defaults").
    l1 : float or "auto", default="auto"
        L1 regularisation strength, >= 0, for ``matrix="diag"``: the step is then
        composite in the norm of A, and each round also takes
        ``l1 * sqrt(feature_scale_) / (gamma * A_ii)`` off every feature weight's
        magnitude (to zero, not past it; the intercept is not regularised): the
        penalty weighs the weights in the units of the features. Like ``alpha`` in
        SGDClassifier it weighs the *mean* training loss, and it makes the model
        sparse. ``"auto"`` tries 0, 1e-6, 1e-5 and 1e-4 in the first pass and
        keeps the one of lowest progressive loss (``chosen_params_``); with the
        full or sketched matrix, which have no l1 step, it means 0. An ``l1`` set
        > 0 makes ``matrix="auto"`` the diagonal.
    radius : float or None, default=None
        If set, the weights in the units of the features (``coef_`` times
        ``sqrt(feature_scale_)``, and the intercept) are kept in the ball of this
        radius by the generalized projection in the norm of A (:doc:`/ons`, "The
        projection"), whenever a step leaves it. It costs a 1-D root find: with
        ``"full"`` after one eigendecomposition of A^-1, O(n_features^3); with
        ``"diag"`` O(n_features) per projected row (rows whose step stays inside
        cost their non-zeros; with ``l1``, whose idle shrinks the running norm
        sees late, so may rows that only seem to leave the ball); with
        ``"sketch"`` one thin SVD of the sketch.
    sketch_size : int, default=20
        ``matrix="sketch"`` only: the m directions the sketch keeps (it holds up
        to 2m rows and shrinks back to m when full).
    max_matrix_bytes : float, default=2e9
        Memory budget of the matrices of ``"full"`` (8 (n_features + 1)^2 bytes
        per output) and ``"sketch"``: wider data is refused, before anything is
        allocated, with a ``ValueError`` that names the alternatives. With
        ``"auto"``, wider data gets ``"diag"``.
    {TRAINING_PARAMETERS}"""

_ONS_ATTRIBUTES = f"""matrix_ : {{"full", "diag", "sketch"}}
        The variant in use: ``matrix``, with ``"auto"`` resolved.
    feature_scale_ : float
        m, the mean square of the non-zero feature values trained on, each
        weighted by its row's weight (1 before any): the model learns on the
        features divided by ``sqrt(m)``.
    A_inv_ : ndarray of shape (n_features + 1, n_features + 1) \
(regressor) or (n_outputs, n_features + 1, n_features + 1)
        ``matrix="full"``: the inverse of A, in the units of the features divided
        by ``sqrt(feature_scale_)``. Index ``n_features`` (the last) is the
        intercept's coordinate (inert, ``1 / eps`` on the diagonal, when
        ``fit_intercept=False``). A view of the model's matrix.
    sum_sq_grad_ : ndarray, same shape as ``coef_``
        ``matrix="diag"``: each feature's sum of squared gradients G; A's
        diagonal is ``eps * feature_scale_ + G`` (``eps + G`` for the
        intercept).
    intercept_sum_sq_grad_ : ndarray of shape (n_outputs,)
        ``matrix="diag"``: G of the intercept.
    S_ : ndarray of shape (2 * sketch_size, n_features + 1) (regressor) or \
(n_outputs, 2 * sketch_size, n_features + 1)
        ``matrix="sketch"``: the Frequent Directions sketch of the gradients in
        the units of the features divided by ``sqrt(feature_scale_)``; A is
        approximated by ``eps * I + S_.T @ S_`` in those units. Rows not in use
        are zero.
    H_ : ndarray of shape (2 * sketch_size, 2 * sketch_size) (regressor) or \
(n_outputs, 2 * sketch_size, 2 * sketch_size)
        ``matrix="sketch"``: ``inv(eps * I + S_ @ S_.T)``, through which the
        Woodbury identity applies A^-1.
    {AUTO_ATTRIBUTES}
    {FIT_ATTRIBUTES}"""

_NOTES = """A round with gradient g (the loss derivative times the row, and 1 for
    the intercept) does ``A += g g^T``, ``w -= (1/gamma) A^-1 g``, then projects
    onto the ball if ``radius`` is set, in the units of the features divided by
    the root of their running mean square (``feature_scale_``): multiplying the
    features by a constant changes no prediction. With ``"diag"`` and
    ``"sketch"`` a loss of the residual follows its gradient flow along
    ``A^-1 x`` for the step's length instead (Karampatziakis & Langford 2011),
    which never carries a row's score past its target. For a loss that is
    alpha-exp-concave and G-Lipschitz on a ball of diameter D, the theory sets
    ``gamma = min(1 / (4 G D), alpha) / 2`` and ``eps = 1 / (gamma D)^2`` and
    bounds the regret by O((n_features / gamma) log T). Those values are tiny steps
    in practice (gamma ~ 1/(8 G D)); the defaults ``gamma=0.1, eps=100`` take
    Newton-like steps on standardized data instead (``eps * gamma^2 = 1``, the
    theory's relation for a ball of diameter 1), and the log T shape of the regret
    still holds where the loss is exp-concave around the iterates. A row's
    ``sample_weight`` s is an importance weight: it adds ``s h h^T`` to A (h the
    unweighted gradient), as s copies of the row would. Changing
    ``eps`` between :meth:`partial_fit` calls shifts A by the difference (O(d^3)
    for ``"full"``); ``gamma`` and ``radius`` apply from the next row on
    (:doc:`/ons`)."""

_REFERENCES = """E. Hazan, A. Agarwal and S. Kale. Logarithmic regret algorithms for
    online convex optimization. Machine Learning 69, 2007.

    N. Karampatziakis and J. Langford. Online importance weight aware updates.
    UAI 2011.

    H. Luo, A. Agarwal, N. Cesa-Bianchi and J. Langford. Efficient second order
    online learning by sketching. NeurIPS 2016."""


class ONSClassifier(
    OnlineClassifierMixin, LinearClassifierMixin, _ONS, OnlineLinearModel
):
    __doc__ = f"""Linear classifier trained by the Online Newton Step: a second-order
    online learner whose steps follow the inverse of the accumulated gradient outer
    products, with logarithmic regret on exp-concave losses.

    Multiclass problems are one-vs-rest (or multinomial, ``loss="multinomial"``),
    every class with its own A, all updated in one pass.

    Parameters
    ----------
    loss : {{"log_loss", "squared_hinge", "squared_error", "hinge", \
"modified_huber", "multinomial"}}, default="log_loss"
        Loss on the score. The first three are exp-concave on a bounded domain,
        which the method's log T regret needs; ``"hinge"`` and
        ``"modified_huber"`` (linear where they are not flat) run the same update
        without that guarantee. With more than two classes every loss but
        ``"multinomial"`` trains one-vs-rest outputs; ``"multinomial"`` trains
        the classes' scores together on the multinomial (softmax) log loss, each
        class's matrix updated with its own gradient (with two classes it is
        ``"log_loss"``; :doc:`/multiclass`). ``"log_loss"``, ``"multinomial"``
        and ``"modified_huber"`` give :meth:`predict_proba`.
    {_ONS_PARAMETERS}
    {CLASS_WEIGHT}

    Attributes
    ----------
    {CLASSIFIER_COEF}
    {_ONS_ATTRIBUTES}

    See Also
    --------
    ONSRegressor : The same algorithm for regression.
    AdaGradClassifier : First-order per-coordinate rates, for very wide data.

    Notes
    -----
    {_NOTES}

    References
    ----------
    {_REFERENCES}

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sk_adaprox import ONSClassifier
    >>> X, y = make_classification(1000, 20, random_state=0)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = ONSClassifier(random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    _parameter_constraints: dict = {
        **OnlineLinearModel._parameter_constraints,
        **_ONS._parameter_constraints,
        **OnlineClassifierMixin._parameter_constraints,
    }

    def __init__(
        self,
        loss: str = "log_loss",
        *,
        matrix: str = "auto",
        gamma: float = 0.1,
        eps: float = 100.0,
        l1: float | str = "auto",
        radius: float | None = None,
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
        self.matrix = matrix
        self.gamma = gamma
        self.eps = eps
        self.l1 = l1
        self.radius = radius
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


class ONSRegressor(OnlineRegressorMixin, RegressorMixin, _ONS, OnlineLinearModel):
    __doc__ = f"""Linear regressor trained by the Online Newton Step, a second-order
    online learner with logarithmic regret on exp-concave losses (squared error on
    a bounded domain).

    One pass of ``matrix="full"`` is close to the offline least-squares fit on
    standardized data. Like any online method it wants features on a common
    scale; the target's scale and offset do not matter (``normalize_y``).

    Parameters
    ----------
    loss : {{"squared_error", "huber", "epsilon_insensitive"}}, \
default="squared_error"
        Loss on the residual. ``"squared_error"`` is exp-concave on a bounded
        domain; the other two are not, and ONS then has no log T guarantee.
    epsilon : float, default=0.1
        Width of the ``"huber"`` quadratic zone and of the ``"epsilon_insensitive"``
        dead zone (not A's initial scale, which is ``eps``).
    {NORMALIZE_Y}
    {_ONS_PARAMETERS}

    Attributes
    ----------
    {REGRESSOR_COEF}
    {_ONS_ATTRIBUTES}

    See Also
    --------
    ONSClassifier : The same algorithm for classification.
    AdaGradRegressor : First-order per-coordinate rates, for very wide data.

    Notes
    -----
    {_NOTES}

    References
    ----------
    {_REFERENCES}

    Examples
    --------
    >>> import numpy as np
    >>> from sk_adaprox import ONSRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3))
    >>> y = X @ [1.0, -2.0, 0.5] + 0.01 * rng.normal(size=500)
    >>> reg = ONSRegressor(max_iter=1, shuffle=False, tol=None).fit(X, y)
    >>> bool(reg.score(X, y) > 0.99)
    True
    """

    _parameter_constraints: dict = {
        **OnlineLinearModel._parameter_constraints,
        **_ONS._parameter_constraints,
        **OnlineRegressorMixin._parameter_constraints,
    }

    def __init__(
        self,
        loss: str = "squared_error",
        *,
        epsilon: float = 0.1,
        normalize_y: bool = True,
        matrix: str = "auto",
        gamma: float = 0.1,
        eps: float = 100.0,
        l1: float | str = "auto",
        radius: float | None = None,
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
        self.matrix = matrix
        self.gamma = gamma
        self.eps = eps
        self.l1 = l1
        self.radius = radius
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
