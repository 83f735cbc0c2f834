"""Iterate averaging (``average``): the served model is the mean of the iterates.

The oracle is the estimator itself without averaging, run one row at a time: after
every round its served weights (caught up where they are lazy) are the iterate of
that round, and their plain mean over the averaged rounds is what an averaging
model must serve. Every update rule is checked this way (its lazy sums of the
weights' idle trajectories: constant, dual averaging's l1 series and l2 digamma
sums, mirror descent's decays, the normalised coin rule's 1/N sums, ONS's
projections), through multi-pass ``fit`` (FTRL's per-pass l1 scaling included),
``partial_fit`` streams and parameter changes between calls."""

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from estimators import ALGORITHMS, make
from problems import epoch_orders, sparse_problem
from sklearn.base import clone
from sklearn.metrics import r2_score

from sk_adaprox import AdaGradClassifier, AdaGradRegressor, FTRLClassifier
from sk_adaprox._kernels import adagrad as adagrad_kernels
from sk_adaprox._kernels import lazy as lazy_kernels

RTOL = 1e-10
REGULARIZATION = {"none": {}, "l1": {"l1": 0.02}, "l2": {"l2": 0.05}}
REGULARIZATION["l1+l2"] = {**REGULARIZATION["l1"], **REGULARIZATION["l2"]}
# FTRL's l1 and l2 weigh the summed loss: larger values, as strong.
SUMMED = {"ftrl": 20.0}


def _problem(kind, seed=0):
    """X (CSR), y, the kernel targets and the number of outputs."""
    X = sp.csr_matrix(sparse_problem(seed=seed), dtype=np.float64)
    rng = np.random.default_rng(seed + 1)
    if kind == "regressor":
        y = X @ rng.normal(size=X.shape[1]) + 0.3 * rng.normal(size=X.shape[0])
        return X, y, y, 1
    n_classes = 2 if kind == "binary" else 3
    y = rng.integers(0, n_classes, X.shape[0])
    if n_classes == 2:
        return X, y, np.where(y == 1, 1.0, -1.0), 1
    return X, y, y.astype(float), n_classes


def _params(algorithm, regularization):
    scale = SUMMED.get(algorithm, 1.0)
    return {
        name: scale * value for name, value in REGULARIZATION[regularization].items()
    }


def _mean_of_iterates(
    estimator, X, targets, row_weights, orders, a0, n_outputs, initial=None
):
    """The oracle: ``estimator`` (unfitted, average=False) trained one row at a
    time over ``orders`` (one array per pass, pass p scaling FTRL's l1 by p as
    ``fit`` does), from the weights ``initial`` = (coef, intercept) if given;
    the mean of its served weights after the rounds > a0."""
    estimator._start_training(X.shape[1], n_outputs)
    if initial is not None:
        estimator._sync_parameters()
        estimator.coef_, estimator.intercept_ = initial
    total, rounds = 0.0, 0
    for n_pass, order in enumerate(orders, start=1):
        estimator._training.data_passes = n_pass - 1
        estimator._pass_starting(streaming=False)
        estimator._sync_parameters()
        for i in order:
            _, done, _ = estimator._run_pass(
                X, targets, row_weights, np.array([i]), np.empty((0, n_outputs))
            )
            assert done == 1
            estimator.t_ += 1
            if estimator.t_ > a0:
                total = total + estimator._served_weights()
                rounds += 1
    return total / rounds


def _oracle(averaging, X, targets, row_weights, orders, n_outputs):
    plain = clone(averaging).set_params(average=False)
    a0 = averaging._training.average_start
    return _mean_of_iterates(plain, X, targets, row_weights, orders, a0, n_outputs)


def _assert_close(actual, expected):
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=RTOL * scale)


CASES = [
    (algorithm, regularization)
    for algorithm, spec in ALGORITHMS.items()
    for regularization in (REGULARIZATION if spec.regularized else ["none"])
]


@pytest.mark.parametrize("average", [True, 37, 75])
@pytest.mark.parametrize("kind", ["binary", "multiclass", "regressor"])
@pytest.mark.parametrize("algorithm, regularization", CASES)
def test_fit_serves_the_mean_of_the_iterates(algorithm, regularization, kind, average):
    """Three passes of 50 rows: averaging from round 1, from within the first
    pass, and from within the second (FTRL's l1 scaling changes at rounds 50 and
    100, before and after averaging begins)."""
    X, y, targets, n_outputs = _problem(kind)
    row_weights = np.random.default_rng(2).uniform(0.5, 1.5, X.shape[0])
    row_weights[4] = 0.0
    estimator = make(
        algorithm,
        kind,
        average=average,
        max_iter=3,
        tol=None,
        random_state=5,
        **_params(algorithm, regularization),
    )
    estimator.fit(X, y, sample_weight=row_weights)
    orders = epoch_orders(X.shape[0], 3, shuffle=True, random_state=5).reshape(3, -1)
    expected = _oracle(estimator, X, targets, row_weights, orders, n_outputs)
    served = estimator._served_weights()
    _assert_close(served, expected)
    # coef_, intercept_ and every prediction path serve the same mean.
    coef = np.atleast_2d(estimator.coef_)
    np.testing.assert_array_equal(coef, np.atleast_2d(served[:-1].T.squeeze()))
    np.testing.assert_array_equal(estimator.intercept_, served[-1])
    scores = X @ served[:-1] + served[-1]
    _assert_close(estimator._linear_scores(X), scores)
    _assert_close(estimator._linear_scores(X.toarray()), scores)
    # The iterate goes on training; the average is not the iterate.
    assert not np.allclose(estimator._state[:, 0, :], served)


@pytest.mark.parametrize(
    "algorithm, params",
    [
        ("ons_diag", {"radius": 0.3}),
        ("ons_diag_l1", {"radius": 0.3}),
        ("ons_full", {"radius": 0.3}),
        ("ons_sketch", {"radius": 0.3}),
        ("coin", {"initial_wealth": 40.0}),
    ],
)
def test_projections_and_bold_bets_are_averaged_exactly(algorithm, params):
    """ONS's projection moves every weight at once (each coordinate is settled
    first); large bets make the normalised rule's 1/N sums matter."""
    X, y, targets, _ = _problem("binary", seed=3)
    row_weights = np.ones(X.shape[0])
    estimator = make(
        algorithm,
        "binary",
        average=True,
        max_iter=2,
        tol=None,
        random_state=1,
        step_size=10.0 if algorithm.startswith("ons") else None,
        **params,
    )
    estimator.fit(X, y)
    orders = epoch_orders(X.shape[0], 2, shuffle=True, random_state=1).reshape(2, -1)
    _assert_close(
        estimator._served_weights(),
        _oracle(estimator, X, targets, row_weights, orders, 1),
    )


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_a_stream_averages_across_calls_and_parameter_changes(algorithm):
    """partial_fit chunks continue the sums; a step-size change between calls
    settles every coordinate under the old step first."""
    X, y, targets, _ = _problem("binary", seed=4)
    spec = ALGORITHMS[algorithm]
    steps = {"eta": (0.1, 0.4), "alpha": (0.1, 0.4), "gamma": (0.1, 0.4)}
    steps["initial_wealth"] = (4.0, 1.0)
    first, second = steps[spec.step_size]
    params = {"l1": 0.01} if spec.regularized and spec.step_size == "eta" else {}
    stream = make(algorithm, "binary", average=3, step_size=first, **params)
    oracle = clone(stream).set_params(average=False)
    oracle._start_training(X.shape[1], 1)
    total, rounds = 0.0, 0
    for start, stop, step in [(0, 7, first), (7, 30, second), (30, 50, second)]:
        stream.set_params(**{spec.step_size: step})
        stream.partial_fit(X[start:stop], y[start:stop], classes=[0, 1])
        oracle.set_params(**{spec.step_size: step})
        for i in range(start, stop):
            oracle._sync_parameters()
            oracle._run_pass(X, targets, np.ones(50), np.array([i]), np.empty((0, 1)))
            oracle.t_ += 1
            if oracle.t_ > 2:
                total = total + oracle._served_weights()
                rounds += 1
        _assert_close(stream._served_weights(), total / rounds)


def test_averaging_starts_at_the_given_round():
    X, y, _, _ = _problem("binary")
    late = AdaGradClassifier(eta=0.1, l1=0.0, average=60, shuffle=False)
    plain = AdaGradClassifier(eta=0.1, l1=0.0, shuffle=False)
    late.partial_fit(X, y, classes=[0, 1])
    plain.partial_fit(X, y, classes=[0, 1])
    # 50 rounds: averaging (from round 60) has not begun, the iterate is served.
    np.testing.assert_array_equal(late.coef_, plain.coef_)
    late.partial_fit(X[:15], y[:15])
    plain.partial_fit(X[:15], y[:15])
    assert late._averaged_rounds() == 6  # rounds 60 to 65
    assert not np.allclose(late.coef_, plain.coef_)
    with pytest.raises(ValueError, match="averaging is set up when training starts"):
        late.set_params(average=True).partial_fit(X[:5], y[:5])


def test_the_average_cannot_be_assigned_and_survives_pickle_and_sparsify():
    X, y, _, _ = _problem("multiclass")
    model = FTRLClassifier(alpha=0.3, l1=5.0, average=True, random_state=0).fit(X, y)
    with pytest.raises(AttributeError, match="mean of its iterates"):
        model.coef_ = np.zeros_like(model.coef_)
    scores = model.decision_function(X)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.decision_function(X), scores)
    np.testing.assert_allclose(
        restored.sparsify().decision_function(X), scores, rtol=1e-12
    )
    # Accumulators can still be assigned; the sums are settled first.
    model.z_ = model.z_ * 1.0
    np.testing.assert_allclose(model.decision_function(X), scores, rtol=1e-12)


def test_averaging_smooths_large_steps():
    """Polyak-Ruppert: at a step too large for the last iterate to settle, the
    mean of the iterates is close to the least-squares fit."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 10))
    y = X @ rng.normal(size=10) + rng.normal(size=2000)
    X_test = rng.normal(size=(2000, 10))
    y_test = X_test @ np.linalg.lstsq(X, y, rcond=None)[0]
    params = dict(eta=3.0, max_iter=5, tol=None, random_state=0, normalize_y=False)
    iterate = AdaGradRegressor(**params).fit(X, y)
    averaged = AdaGradRegressor(average=True, **params).fit(X, y)
    # Measured: R² against the least-squares predictions 0.979 (last iterate),
    # 0.99988 (mean of the iterates).
    assert r2_score(y_test, averaged.predict(X_test)) > 0.999
    assert r2_score(y_test, iterate.predict(X_test)) < 0.99


# -- the closed-form idle sums against plain sums ---------------------------------


@pytest.mark.parametrize("start", [0.3, 1.0, 9.5, 10.0, 123.4, 1e7])
@pytest.mark.parametrize("count", [0, 1, 5, 64, 65, 1000, 100_000])
def test_harmonic_sum_is_the_plain_sum(start, count):
    expected = math.fsum(1.0 / (start + i) for i in range(count))
    actual = adagrad_kernels._harmonic_sum(start, float(count))
    assert actual == pytest.approx(expected, rel=1e-13, abs=0.0)


@pytest.mark.parametrize("l1, l2", [(0.0, 0.0), (0.3, 0.0), (0.0, 0.2), (0.3, 0.2)])
@pytest.mark.parametrize("first, last", [(1, 1), (3, 70), (10, 5000), (200, 90_000)])
def test_dual_averaging_idle_sum_is_the_sum_of_its_weights(l1, l2, first, last):
    u, G, eta, delta = -2500.0, 40.0, 0.7, 0.1
    expected = math.fsum(
        adagrad_kernels.da_weight(u, G, t, eta, delta, l1, l2)
        for t in range(first, last + 1)
    )
    actual = adagrad_kernels.da_idle_sum(
        u, G, float(first), float(last), eta, delta, l1, l2
    )
    assert actual == pytest.approx(expected, rel=1e-11, abs=1e-13)


@pytest.mark.parametrize("l1, l2", [(0.0, 0.2), (0.3, 0.0), (0.3, 0.2), (1e-4, 1e-3)])
@pytest.mark.parametrize("first, last", [(0, 0), (0, 40), (7, 3000), (100, 60_000)])
def test_mirror_descent_idle_sum_is_the_sum_of_its_decays(l1, l2, first, last):
    w, step = -3.0, 0.02
    decay = lazy_kernels.md_idle_decay(step, l1, l2)
    expected = math.fsum(
        lazy_kernels.md_skip(w, decay, k, l1, l2) for k in range(first, last + 1)
    )
    actual = lazy_kernels.md_idle_sum(w, decay, float(first), float(last), l1, l2)
    assert actual == pytest.approx(expected, rel=1e-11, abs=1e-13)


# -- averaging with the rest of the estimator's options ----------------------------


def _stream_mean(plain, X, y, chunks, changes, a0, **fit_params):
    """Mean of ``plain``'s served weights after each round > a0, trained by
    ``partial_fit`` one row at a time over ``chunks`` with ``changes[i]``
    (set_params) applied before chunk i."""
    total, rounds = 0.0, 0
    for (start, stop), change in zip(chunks, changes, strict=True):
        plain.set_params(**change)
        for i in range(start, stop):
            plain.partial_fit(X[i : i + 1], y[i : i + 1], **fit_params)
            if plain.t_ > a0:
                total = total + plain._served_weights()
                rounds += 1
    return total / rounds


def test_mirror_descent_stream_switching_l1_and_l2_averages_exactly():
    """Switching l1/l2 on and off resizes mirror descent's state (its lazy
    bookkeeping slots come and go); the averaging slots move with it."""
    X, y, _, _ = _problem("binary", seed=6)
    chunks = [(0, 10), (10, 25), (25, 40), (40, 50)]
    changes = [{}, {"l1": 0.02, "l2": 0.05}, {"l1": 0.0, "l2": 0.0}, {"l2": 0.1}]
    params = dict(update="mirror_descent", eta=0.3, l1=0.0)
    stream = AdaGradClassifier(average=True, **params)
    for (start, stop), change in zip(chunks, changes, strict=True):
        stream.set_params(**change)
        stream.partial_fit(X[start:stop], y[start:stop], classes=[0, 1])
        _ = stream.coef_  # reading catches lazy weights up; the sums must not mind
    expected = _stream_mean(
        AdaGradClassifier(**params), X, y, chunks, changes, 0, classes=[0, 1]
    )
    _assert_close(stream._served_weights(), expected)


@pytest.mark.parametrize(
    "estimator",
    [
        AdaGradRegressor(update="mirror_descent", eta=0.2, l2=0.01, normalize_y=False),
        FTRLClassifier(alpha=0.3, l1=0.0),
    ],
    ids=["adagrad_md_l2", "ftrl"],
)
def test_averaging_from_given_weights(estimator):
    """coef_init and intercept_init start the iterates; the mean is over the
    iterates that follow."""
    kind = "regressor" if isinstance(estimator, AdaGradRegressor) else "binary"
    X, y, targets, _ = _problem(kind, seed=7)
    rng = np.random.default_rng(7)
    coef = rng.normal(size=X.shape[1] if kind == "regressor" else (1, X.shape[1]))
    intercept = rng.normal(size=1)
    averaged = clone(estimator).set_params(
        average=True, max_iter=2, tol=None, random_state=2
    )
    averaged.fit(X, y, coef_init=coef, intercept_init=intercept)
    orders = epoch_orders(X.shape[0], 2, shuffle=True, random_state=2).reshape(2, -1)
    expected = _mean_of_iterates(
        clone(estimator), X, targets, np.ones(50), orders, 0, 1, (coef, intercept)
    )
    _assert_close(averaged._served_weights(), expected)


def test_warm_start_and_early_stopping_keep_averaging():
    X, y, targets, _ = _problem("binary", seed=8)
    first = AdaGradClassifier(
        update="dual_averaging",
        eta=0.5,
        l1=0.01,
        average=True,
        max_iter=2,
        tol=None,
        random_state=3,
        warm_start=True,
    )
    first.fit(X, y).fit(X, y)  # four passes in all, the average over 200 rounds
    orders = np.concatenate(
        [
            epoch_orders(X.shape[0], 2, shuffle=True, random_state=3).reshape(2, -1)
            for _ in range(2)
        ]
    )
    _assert_close(
        first._served_weights(), _oracle(first, X, targets, np.ones(50), orders, 1)
    )
    with pytest.raises(ValueError, match="once averaging has begun"):
        first.set_params(update="mirror_descent").fit(
            X, y, coef_init=np.zeros((1, X.shape[1]))
        )
    # Early stopping keeps the pass of lowest validation loss, its sums with it.
    stopped = FTRLClassifier(
        alpha=1.0,
        l1=0.0,
        average=True,
        early_stopping=True,
        n_iter_no_change=3,
        random_state=0,
    ).fit(X, y)
    best = int(np.argmin(stopped.validation_losses_)) + 1
    assert stopped.t_ == best * 45  # 45 training rows a pass, 5 held out
    assert stopped._averaged_rounds() == stopped.t_


def test_average_refuses_an_l2_too_small_for_its_l1():
    X, y, _, _ = _problem("binary")
    model = AdaGradClassifier(eta=0.1, l1=0.01, l2=1e-10, average=True)
    with pytest.raises(ValueError, match="l2=1e-10 below 1e-6 \\* l1"):
        model.fit(X, y)
    AdaGradClassifier(eta=0.1, l1=0.01, l2=1e-10).fit(X, y)  # without average
