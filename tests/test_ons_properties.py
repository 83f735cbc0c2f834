"""The Online Newton Step's properties (ALGORITHMS.md §3, issue 10) as tests on data
where they must show: logarithmic regret on an exp-concave stream, one pass as good
as the offline fit on real data, and a sketch smaller than the data's rank staying
close to the full matrix. Every estimator runs at its default gamma and eps
(benchmarks/studies/choose_defaults.py ons) unless a test says otherwise."""

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import r2_score, roc_auc_score

from sk_adaprox import ONSClassifier, ONSRegressor, progressive_val_predict

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import _data  # noqa: E402  (the benchmarks' loaders of ../shared/data)

ONE_PASS = dict(max_iter=1, tol=None)


# -- Regret: O(log T) on an exp-concave stream, O(sqrt T) for OGD ------------------

HORIZONS = np.array([1_000, 4_000, 16_000])
N_SEEDS = 8
N_FEATURES = 5
NOISE_VARIANCE = 1.0 / 3.0  # of uniform(-1, 1)


def _bounded_streams():
    """N_SEEDS streams of HORIZONS[-1] rows: x uniform on [-sqrt 3, sqrt 3]^5 (unit
    variance), y = x.w* + uniform(-1, 1) noise with w* uniform on [-1/2, 1/2]^5, so
    |y| <= 5.4 and the squared loss (p - y)^2 / 2 is exp-concave on any bounded set
    of weights."""
    streams = []
    for seed in range(N_SEEDS):
        rng = np.random.RandomState(seed)
        limit = np.sqrt(3.0)
        X = rng.uniform(-limit, limit, (HORIZONS[-1], N_FEATURES))
        w = rng.uniform(-0.5, 0.5, N_FEATURES)
        streams.append((X, X @ w + rng.uniform(-1.0, 1.0, HORIZONS[-1])))
    return streams


def _regret(predictions, X, y):
    """Regret at every horizon T: the learner's cumulative squared loss (p - y)^2 / 2
    with each row predicted before learning from it, minus that of the best fixed
    predictor (coef and intercept) in hindsight, least squares on rows 0..T-1."""
    losses = np.cumsum(0.5 * (predictions - y) ** 2)
    regret = []
    for T in HORIZONS:
        rows = np.c_[X[:T], np.ones(T)]
        best, *_ = np.linalg.lstsq(rows, y[:T], rcond=None)
        regret.append(losses[T - 1] - 0.5 * np.sum((rows @ best - y[:T]) ** 2))
    return np.array(regret)


def _mean_regret(predictions, streams):
    pairs = zip(predictions, streams, strict=True)
    return np.mean([_regret(p, X, y) for p, (X, y) in pairs], axis=0)


def _ogd_predictions(streams, steps):
    """Projection-free online gradient descent on the same loss and coordinates
    ([x, 1]), w_0 = 0, step ``steps[j, t]`` at round t for learner j; all learners
    and streams at once. Returns predictions of shape (n_learners, n_streams, T)."""
    X = np.stack([np.c_[X, np.ones(len(X))] for X, _ in streams])  # (S, T, d + 1)
    y = np.stack([y for _, y in streams])
    w = np.zeros((len(steps), len(streams), X.shape[2]))
    predictions = np.empty((len(steps), *y.shape))
    with np.errstate(over="ignore", invalid="ignore"):  # a step too large diverges
        for t in range(y.shape[1]):
            p = np.einsum("jsi,si->js", w, X[:, t])
            predictions[:, :, t] = p
            w -= (steps[:, t, None] * (p - y[:, t]))[:, :, None] * X[None, :, t]
    return predictions


def _growth_ratio(regret):
    """What regret gains over [4k, 16k] divided by what it gains over [1k, 4k]
    (each multiplies T by 4): 1 for a + b log T, whatever a (an onset time T0 in
    b log(T / T0) included), 2 for sqrt T, 4 for T."""
    first, second = np.diff(regret)
    assert first > 0, regret
    return second / first


def _grows_like_log_t(regret):
    """Nearer log T's growth ratio (1) than sqrt T's (2), on a log scale."""
    return _growth_ratio(regret) < np.sqrt(2.0)


@pytest.mark.slow
def test_ons_regret_grows_like_log_t_and_ogd_like_sqrt_t():
    """8 streams of 16,000 rows; regret at T = 1k, 4k, 16k. Measured at gamma=0.1,
    eps=100: ONS 27.6, 44.8, 64.4 (growth ratio 1.13; 1.03 to 1.21 over 5 sets of
    8 seeds; slope 13.3 per unit of ln T against 15.3 predicted below). The best
    OGD c/sqrt(t) of the grid (c = 0.1): 9.1, 12.6, 19.2 (growth ratio 1.85, 1.82 to
    2.06). OGD at constant step 0.01: 16.3, 32.0, 93.8 (growth ratio 3.95).

    R(16k)/R(1k) is not the criterion: b log(T / T0) has it anywhere from 1.4 up,
    depending on the onset T0 (about eps / (gamma sigma^2) rows here, while A is
    still mostly eps I). At gamma=0.1 ONS's is 2.34 against the tuned OGD's 2.12,
    and the tuned OGD's regret stays below ONS's up to T ~ 1e6 (extrapolated)."""
    streams = _bounded_streams()
    gamma = ONSRegressor().gamma
    ons = _mean_regret(
        [
            progressive_val_predict(ONSRegressor(matrix="full"), X, y)
            for X, y in streams
        ],
        streams,
    )
    t = np.arange(1, HORIZONS[-1] + 1)
    constants = np.array([0.01, 0.03, 0.1, 0.3, 1.0])
    ogd_runs = _ogd_predictions(
        streams, np.r_[constants[:, None] / np.sqrt(t), np.full((1, t.size), 0.01)]
    )
    ogd = min(
        (_mean_regret(run, streams) for run in ogd_runs[:-1]),
        key=lambda regret: regret[-1],  # the best c in hindsight
    )
    constant_step = _mean_regret(ogd_runs[-1], streams)
    table = dict(ons=ons, ogd_sqrt=ogd, ogd_constant=constant_step)

    # ONS: regret linear in log T, with the slope the asymptotics predict. In the
    # steady state A_t ~ t sigma^2 E[x~ x~^T], so each ONS step is least squares'
    # Newton step times c = 1 / (gamma sigma^2); its excess loss at round t is then
    # (d + 1) sigma^2 c^2 / (2 (2c - 1) t), which sums to that times ln T.
    assert _grows_like_log_t(ons), table
    assert ons[-1] / ons[0] < 3.0, table  # below sqrt(16) = 4
    slope = np.polyfit(np.log(HORIZONS), ons, 1)[0]
    c = 1.0 / (gamma * NOISE_VARIANCE)
    predicted = (N_FEATURES + 1) * NOISE_VARIANCE * c**2 / (2 * (2 * c - 1))
    assert 0.5 * predicted < slope < 2.0 * predicted, (slope, predicted, table)

    # OGD with 1/sqrt(t) steps, even at its best constant, grows faster (like
    # sqrt T), and a constant step faster still (like T): the criterion above
    # rejects both.
    assert _growth_ratio(ogd) > 1.6, table
    assert _growth_ratio(ogd) > _growth_ratio(ons) + 0.4, table
    assert not _grows_like_log_t(ogd), table
    assert _growth_ratio(constant_step) > 3.0, table
    assert not _grows_like_log_t(constant_step), table


# -- Real data: one pass of "full" against the offline fit ---------------------------


@pytest.fixture
def _real_data(shared_data):
    _data.DATA_DIR = shared_data


@pytest.mark.slow
@pytest.mark.usefixtures("_real_data")
@pytest.mark.parametrize(
    "load", [_data.cal_housing_standardized, _data.millionsong_standardized]
)
def test_one_pass_regressor_is_within_0_02_r2_of_ridge(load):
    """Standardised X and y, 25 % held out. Measured at gamma=0.1, eps=100:
    California housing 0.6261 against Ridge's 0.6271; Million Song 0.4352 against
    0.4385."""
    X, y, X_test, y_test = load()
    ons = ONSRegressor(matrix="full", random_state=0, **ONE_PASS)
    ons_r2 = r2_score(y_test, ons.fit(X, y).predict(X_test))
    ridge_r2 = r2_score(y_test, Ridge().fit(X, y).predict(X_test))
    assert ons_r2 > ridge_r2 - 0.02, (ons_r2, ridge_r2)


@pytest.mark.slow
@pytest.mark.usefixtures("_real_data")
def test_one_pass_classifier_is_within_0_01_auc_of_logistic_regression_on_a9a():
    """a9a as LIBSVM ships it (one-hot). Measured at gamma=0.1, eps=100: one pass
    0.9010 against LogisticRegression's 0.9022."""
    X, y, X_test, y_test = _data.a9a()
    ons = ONSClassifier(matrix="full", random_state=0, **ONE_PASS)
    ons_auc = roc_auc_score(y_test, ons.fit(X, y).decision_function(X_test))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        offline = LogisticRegression(max_iter=1000).fit(X, y)
    offline_auc = roc_auc_score(y_test, offline.decision_function(X_test))
    assert ons_auc > offline_auc - 0.01, (ons_auc, offline_auc)


# -- The sketch: fewer directions than the data's rank --------------------------------

SKETCH_SIZE = 4  # half the rank
SKETCH_EPS = 1000.0
SKETCH_R2_TOLERANCE = 0.05


def _low_rank_plus_noise(seed, n_train=4_000, n_test=2_000, n_features=40, rank=8):
    """X = Z B^T + 0.1 noise with Z of ``rank`` standard normal columns (40 features
    of variance about 1, squared row norm about 40; all but 8 directions of
    variance 0.01); y = Z v + 0.3 noise. The gradients (residual times [x, 1]) span
    all 41 coordinates, but 8 of them carry nearly all of their energy."""
    rng = np.random.RandomState(seed)
    n = n_train + n_test
    Z = rng.randn(n, rank)
    X = Z @ rng.randn(n_features, rank).T / np.sqrt(rank)
    X += 0.1 * rng.randn(n, n_features)
    y = Z @ rng.randn(rank) / np.sqrt(rank) + 0.3 * rng.randn(n)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sketch_smaller_than_the_rank_stays_close_to_full(seed):
    """One pass in order, sketch_size=4 against the data's rank 8: the sketched
    run's test R^2 is within SKETCH_R2_TOLERANCE = 0.05 of the full run's.

    In the directions the sketch drops, A is eps I and a step is a first-order
    step of size 1 / (gamma eps); with linear steps it is stable when gamma * eps
    is of the order of the squared row norm (40) or more, hence eps=1000 for both
    runs (gamma * eps = 100 at gamma=0.1). Measured, full R^2 minus sketch R^2
    over seeds 0..4: 0.004, 0.010, 0.0004, 0.002, 0.019. At the default eps=100
    (gamma * eps = 10) the same runs lose 0.05, 0.10, 0.04, 0.03, 0.03 (0.28 to
    0.64 with linear steps: the sketch's step on the squared error follows the
    flow)."""
    X, y, X_test, y_test = _low_rank_plus_noise(seed)
    common = dict(eps=SKETCH_EPS, shuffle=False, **ONE_PASS)
    full = ONSRegressor(matrix="full", **common).fit(X, y)
    sketch = ONSRegressor(matrix="sketch", sketch_size=SKETCH_SIZE, **common)
    sketch.fit(X, y)
    full_r2 = r2_score(y_test, full.predict(X_test))
    sketch_r2 = r2_score(y_test, sketch.predict(X_test))
    assert full_r2 > 0.9, full_r2
    assert sketch_r2 > full_r2 - SKETCH_R2_TOLERANCE, (sketch_r2, full_r2)
    # The sketch is really an approximation here, not the full run.
    assert not np.allclose(sketch.coef_, full.coef_, rtol=1e-4, atol=1e-4)
