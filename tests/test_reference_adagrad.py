"""Self-tests of the slow reference in reference_adagrad.py (ALGORITHMS.md §1a, §1b)."""

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from reference_adagrad import (
    LOSSES,
    STATE_KEYS,
    loss_derivative,
    loss_value,
    reference_adagrad,
)

UPDATES = ("mirror_descent", "dual_averaging")
CLASSIFICATION = ("hinge", "log_loss", "squared_hinge", "modified_huber")


def _run(X, y, w=None, **kw):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    params = dict(
        n_outputs=1,
        loss="hinge",
        eta=1.0,
        delta=0.0,
        l1=0.0,
        l2=0.0,
        fit_intercept=True,
        update="mirror_descent",
    )
    params.update(kw)
    return reference_adagrad(X, y, w, **params)


def _random_problem(seed, n=30, d=6, regression=False, n_classes=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.5] = 0.0  # sparse-ish rows
    X[3] = 0.0  # an empty row is still a round
    if n_classes is not None:
        y = rng.integers(0, n_classes, size=n).astype(float)
    elif regression:
        y = rng.normal(size=n) * 2.0
    else:
        y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    sw = rng.uniform(0.2, 2.0, size=n)
    sw[5] = 0.0  # a zero-weight row is still a round
    return X, y, sw


# --------------------------------------------------------------------------------------
# Hand-computed rounds
# --------------------------------------------------------------------------------------


def test_md_first_round_log_loss_from_zero():
    # p = 0, d = -y/2 = -0.5, s = 1.5 -> g = -0.75 * x = [-1.5, 0, 0.75], g_b = -0.75.
    X = [[2.0, 0.0, -1.0]]
    st, loss_sum = _run(
        X, [1.0], [1.5], loss="log_loss", eta=0.3, delta=0.1, l1=0.0, l2=0.0
    )
    g = np.array([-1.5, 0.0, 0.75])
    assert_allclose(st["sum_sq_grad"][0], [2.25, 0.0, 0.5625], rtol=1e-15)
    # w = -eta g / (delta + |g|) on the support, 0 elsewhere.
    expected = [0.3 * 1.5 / (0.1 + 1.5), 0.0, -0.3 * 0.75 / (0.1 + 0.75)]
    assert_allclose(st["coef"][0], expected, rtol=1e-14)
    assert_allclose(st["coef"][0], -0.3 * g / (0.1 + np.abs(g)), rtol=1e-14)
    assert_allclose(st["intercept"], [0.3 * 0.75 / (0.1 + 0.75)], rtol=1e-14)
    assert_allclose(st["intercept_sum_sq_grad"], [0.5625], rtol=1e-15)
    assert_array_equal(st["sum_grad"], 0.0)  # MD keeps no u
    assert_array_equal(st["intercept_sum_grad"], 0.0)
    assert loss_sum == pytest.approx(1.5 * math.log(2.0), rel=1e-15)


def test_md_first_round_with_l1_l2():
    # Same round, with l1/l2: w = sign(-g) max(eta|g| - eta l1, 0) / (H + eta l2).
    X = [[2.0, 0.0, -1.0]]
    st, _ = _run(X, [1.0], [1.5], loss="log_loss", eta=0.3, delta=0.1, l1=1.0, l2=2.0)
    expected = [
        (0.3 * 1.5 - 0.3 * 1.0) / (0.1 + 1.5 + 0.3 * 2.0),
        0.0,
        0.0,  # eta*|g| = 0.225 < eta*l1 = 0.3 -> clipped to 0
    ]
    assert_allclose(st["coef"][0], expected, rtol=1e-14, atol=0)
    # The intercept is never regularized.
    assert_allclose(st["intercept"], [0.3 * 0.75 / (0.1 + 0.75)], rtol=1e-14)


def test_md_two_rounds_hinge_by_hand():
    # eta=1, delta=0, l1=0.1, l2=0.5.
    # Round 1: x=[1,0], y=+1, p=0 -> d=-1, g=[-1,0]; H=[1,0].
    #   w0 = (1 - 0.1)/(1 + 0.5) = 0.6; w1 stays 0; b = 0 + 1/1 = 1; loss 1.
    # Round 2: x=[0,1], y=-1, p = 0 + b = 1 -> yp=-1 <1, d=+1, loss 2; g=[0,1]; H=[1,1].
    #   w0: pure shrink v = 0.6 -> (0.6 - 0.1)/1.5 = 1/3
    #   w1: v = -1 -> -(1 - 0.1)/1.5 = -0.6
    #   b = 1 - 1/sqrt(2)
    X = [[1.0, 0.0], [0.0, 1.0]]
    st, loss_sum = _run(X, [1.0, -1.0], eta=1.0, delta=0.0, l1=0.1, l2=0.5)
    assert_allclose(st["coef"][0], [1.0 / 3.0, -0.6], rtol=1e-14)
    assert_allclose(st["intercept"], [1.0 - 1.0 / math.sqrt(2.0)], rtol=1e-14)
    assert_allclose(st["sum_sq_grad"][0], [1.0, 1.0], rtol=1e-15)
    assert_allclose(st["intercept_sum_sq_grad"], [2.0], rtol=1e-15)
    assert loss_sum == pytest.approx(3.0, rel=1e-15)


def test_da_two_rounds_hinge_by_hand():
    # Same data, dual averaging.
    # Round 1 (t=1): u=[-1,0], G=[1,0]; w0 = 1*(1 - 0.1)/(1 + 0.5) = 0.6; w1 = 0;
    #   u_b = -1, b = 1; loss 1.
    # Round 2 (t=2): p = 0 + b = 1, y=-1 -> d=+1, loss 2; u=[-1,1], G=[1,1];
    #   w0 = (1 - 0.2)/(1 + 1) = 0.4; w1 = -0.4; u_b = 0 -> b = 0; Gb = 2.
    X = [[1.0, 0.0], [0.0, 1.0]]
    st, loss_sum = _run(
        X, [1.0, -1.0], eta=1.0, delta=0.0, l1=0.1, l2=0.5, update="dual_averaging"
    )
    assert_allclose(st["coef"][0], [0.4, -0.4], rtol=1e-14)
    assert_array_equal(st["intercept"], [0.0])
    assert_array_equal(st["sum_grad"][0], [-1.0, 1.0])
    assert_array_equal(st["intercept_sum_grad"], [0.0])
    assert_allclose(st["sum_sq_grad"][0], [1.0, 1.0], rtol=1e-15)
    assert_allclose(st["intercept_sum_sq_grad"], [2.0], rtol=1e-15)
    assert loss_sum == pytest.approx(3.0, rel=1e-15)


def test_da_after_one_round_by_hand():
    # DA round 1 with eta=0.5, delta=0.2, l1=0.3, l2=0.4, squared error, s=2:
    # p=0, y=3 -> d=-3, g = s d x = -6 x, x=[1, -0.5] -> g=[-6, 3], u=g, H = 0.2+|g|.
    # w = -sign(u) eta max(|u| - l1, 0) / (H + eta l2)
    X = [[1.0, -0.5]]
    st, loss_sum = _run(
        X,
        [3.0],
        [2.0],
        loss="squared_error",
        eta=0.5,
        delta=0.2,
        l1=0.3,
        l2=0.4,
        update="dual_averaging",
    )
    expected = [
        0.5 * (6.0 - 0.3) / (0.2 + 6.0 + 0.5 * 0.4),
        -0.5 * (3.0 - 0.3) / (0.2 + 3.0 + 0.5 * 0.4),
    ]
    assert_allclose(st["coef"][0], expected, rtol=1e-14)
    assert_allclose(st["intercept"], [0.5 * 6.0 / (0.2 + 6.0)], rtol=1e-14)
    assert loss_sum == pytest.approx(2.0 * 0.5 * 9.0, rel=1e-15)


# --------------------------------------------------------------------------------------
# Structural properties
# --------------------------------------------------------------------------------------


def test_md_pure_shrink_on_unseen_coordinate():
    rng = np.random.default_rng(0)
    d = 5
    w0 = np.array([[0.8, -0.3, 0.05, -2.0, 0.4]])
    G0 = rng.uniform(0.5, 3.0, size=(1, d))
    state = {
        "coef": w0.copy(),
        "intercept": np.array([0.1]),
        "sum_sq_grad": G0.copy(),
        "intercept_sum_sq_grad": np.array([1.0]),
        "sum_grad": np.zeros((1, d)),
        "intercept_sum_grad": np.zeros(1),
    }
    eta, delta, l1, l2 = 0.7, 0.3, 0.2, 0.9
    X = np.array([[1.5, 0.0, 0.0, 0.0, 0.0]])  # only coordinate 0 gets a gradient
    st, _ = _run(
        X,
        [-1.0],
        loss="log_loss",
        eta=eta,
        delta=delta,
        l1=l1,
        l2=l2,
        state=state,
        t0=7,
    )
    H = delta + np.sqrt(G0[0, 1:])
    w = w0[0, 1:]
    expected = (
        np.sign(w) * np.maximum(np.abs(w) - eta * l1 / H, 0.0) * H / (H + eta * l2)
    )
    assert_allclose(st["coef"][0, 1:], expected, rtol=1e-13, atol=1e-300)
    assert st["coef"][0, 2] == 0.0  # |0.05| < eta*l1/H: shrunk exactly to 0
    assert_array_equal(st["sum_sq_grad"][0, 1:], G0[0, 1:])
    # The input state is not mutated.
    assert_array_equal(state["coef"], w0)
    assert_array_equal(state["sum_sq_grad"], G0)
    assert st["coef"] is not state["coef"]


def test_md_zero_denominator_leaves_coordinate_unchanged():
    # delta = 0, l2 = 0 and G_i = 0 -> H_i + eta l2 == 0: coordinate unchanged, no NaN.
    with np.errstate(all="raise"):
        st, _ = _run([[1.0, 0.0]], [1.0], eta=1.0, delta=0.0, l1=0.5, l2=0.0)
    assert_allclose(st["coef"][0], [0.5, 0.0], rtol=1e-15)
    assert np.all(np.isfinite(st["coef"]))


@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize(
    "loss,n_outputs",
    [("hinge", 1), ("log_loss", 3), ("modified_huber", 1), ("huber", 1)],
)
def test_continuing_with_state_equals_one_call(update, loss, n_outputs):
    regression = loss == "huber"
    X, y, sw = _random_problem(
        1, regression=regression, n_classes=n_outputs if n_outputs > 1 else None
    )
    rng = np.random.default_rng(2)
    order = np.concatenate([rng.permutation(len(y)), rng.permutation(len(y))])
    kw = dict(
        n_outputs=n_outputs,
        loss=loss,
        eta=0.4,
        delta=0.1,
        l1=0.01,
        l2=0.02,
        fit_intercept=True,
        update=update,
        epsilon=0.3,
    )
    full, loss_full = reference_adagrad(X, y, sw, order=order, **kw)
    m = 37
    first, loss_a = reference_adagrad(X, y, sw, order=order[:m], **kw)
    first_copy = {k: v.copy() for k, v in first.items()}
    second, loss_b = reference_adagrad(
        X, y, sw, order=order[m:], state=first, t0=m, **kw
    )
    assert set(second) == set(STATE_KEYS)
    for key in STATE_KEYS:
        assert_allclose(second[key], full[key], rtol=1e-13, atol=1e-15, err_msg=key)
        assert_array_equal(first[key], first_copy[key])  # not mutated
    assert loss_a + loss_b == pytest.approx(loss_full, rel=1e-13)
    assert np.any(full["coef"] != 0.0)


def test_da_t0_matters():
    # Same state, larger t0 -> larger l1 threshold and l2 denominator.
    X = np.array([[1.0, 2.0]])
    a, _ = _run(X, [1.0], update="dual_averaging", l1=0.3, l2=0.1, t0=0)
    b, _ = _run(X, [1.0], update="dual_averaging", l1=0.3, l2=0.1, t0=2)
    # u = [-1, -2], G = u^2, eta = 1, delta = 0.
    assert_allclose(a["coef"][0], [0.7 / 1.1, 1.7 / 2.1], rtol=1e-14)
    assert_allclose(b["coef"][0], [0.1 / 1.3, 1.1 / 2.3], rtol=1e-14)


def test_empty_and_zero_weight_rows_are_rounds():
    # DA: after 1 real round and 2 "void" rounds, t = 3 in the formula.
    X = np.array([[2.0], [0.0], [5.0]])
    y = np.array([1.0, 1.0, 1.0])
    sw = np.array([1.0, 1.0, 0.0])  # row 1 is empty, row 2 has weight 0
    st, loss_sum = _run(X, y, sw, update="dual_averaging", l1=0.25, l2=0.5)
    # u = -2, G = 4, H = 2, t = 3: w = 1 * (2 - 0.75) / (2 + 1.5)
    assert_allclose(st["coef"][0], [1.25 / 3.5], rtol=1e-14)
    # MD: the empty round still shrinks w.
    st1, _ = _run(X[:1], y[:1], l1=0.25, l2=0.5)
    st3, _ = _run(X, y, sw, l1=0.25, l2=0.5)
    # round 1: v = 2 -> w = 1.75/2.5 = 0.7; then two pure shrinks with H = 2.
    assert_allclose(st1["coef"][0], [0.7], rtol=1e-14)
    w = 0.7
    for _ in range(2):
        w = (2.0 * w - 0.25) / 2.5
    assert_allclose(st3["coef"][0], [w], rtol=1e-14)
    # loss: round 1 hinge at p = 0 -> 1; round 2 p = b = 1 -> 0; round 3 s = 0.
    assert loss_sum == pytest.approx(1.0, rel=1e-15)
    assert_allclose(st["intercept"], [1.0], rtol=1e-15)


def test_da_large_l1_gives_zero_weights():
    # hinge, s <= 1, |x| <= 1 -> |u_i| <= t, so l1 = 1.5 zeroes every weight.
    X, y, _ = _random_problem(3)
    X = np.clip(X, -1.0, 1.0)
    st, _ = _run(X, y, update="dual_averaging", eta=0.5, delta=0.1, l1=1.5, l2=0.0)
    assert_array_equal(st["coef"], 0.0)
    assert np.any(st["sum_grad"] != 0.0)
    # the intercept is not regularized
    assert st["intercept"][0] != 0.0
    # whereas a small l1 leaves nonzero weights
    st2, _ = _run(X, y, update="dual_averaging", eta=0.5, delta=0.1, l1=0.01)
    assert np.any(st2["coef"] != 0.0)


@pytest.mark.parametrize("update", UPDATES)
def test_no_intercept_keeps_intercept_and_accumulators_zero(update):
    X, y, sw = _random_problem(4)
    st, _ = _run(X, y, sw, update=update, delta=0.1, fit_intercept=False)
    assert_array_equal(st["intercept"], 0.0)
    assert_array_equal(st["intercept_sum_sq_grad"], 0.0)
    assert_array_equal(st["intercept_sum_grad"], 0.0)
    assert np.any(st["coef"] != 0.0)


@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize("loss", ["hinge", "log_loss", "squared_error"])
@pytest.mark.parametrize("K", [2, 3])
def test_multiclass_is_one_vs_rest(update, loss, K):
    X, c, sw = _random_problem(5, n_classes=K)
    kw = dict(loss=loss, eta=0.3, delta=0.1, l1=0.01, l2=0.05, update=update)
    st, loss_sum = _run(X, c, sw, n_outputs=K, **kw)
    total = 0.0
    for k in range(K):
        yk = np.where(c == k, 1.0, -1.0)
        sk, lk = _run(X, yk, sw, n_outputs=1, **kw)
        for key in STATE_KEYS:
            assert_allclose(st[key][k], sk[key][0], rtol=1e-13, atol=1e-15)
        total += lk
    assert loss_sum == pytest.approx(total, rel=1e-13)
    assert st["coef"].shape == (K, X.shape[1])


# --------------------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "loss,y,eps,expected_loss,expected_d",
    [
        ("hinge", 1.0, 0.1, 1.0, -1.0),
        ("hinge", -1.0, 0.1, 1.0, 1.0),
        ("log_loss", 1.0, 0.1, math.log(2.0), -0.5),
        ("log_loss", -1.0, 0.1, math.log(2.0), 0.5),
        ("squared_hinge", 1.0, 0.1, 1.0, -2.0),
        ("squared_hinge", -1.0, 0.1, 1.0, 2.0),
        ("modified_huber", 1.0, 0.1, 1.0, -2.0),
        ("modified_huber", -1.0, 0.1, 1.0, 2.0),
        ("squared_error", 1.5, 0.1, 1.125, -1.5),
        ("squared_error", -1.0, 0.1, 0.5, 1.0),
        ("epsilon_insensitive", 0.5, 0.1, 0.4, -1.0),
        ("epsilon_insensitive", -0.05, 0.1, 0.0, 0.0),
        ("huber", 0.05, 0.1, 0.00125, -0.05),
        ("huber", 2.0, 0.1, 0.2 - 0.005, -0.1),
        ("huber", -3.0, 1.0, 3.0 - 0.5, 1.0),
    ],
)
def test_loss_at_zero_score(loss, y, eps, expected_loss, expected_d):
    assert loss_value(loss, 0.0, y, eps) == pytest.approx(expected_loss, rel=1e-15)
    assert loss_derivative(loss, 0.0, y, eps) == pytest.approx(expected_d, rel=1e-15)
    # Through the reference: one round from zero weights scores p = 0.
    # x = [1], s = 1, no regularization, eta = 1, delta = 1: w = -d/(1 + |d|).
    st, loss_sum = _run([[1.0]], [y], [1.0], loss=loss, epsilon=eps, eta=1.0, delta=1.0)
    assert loss_sum == pytest.approx(expected_loss, rel=1e-15)
    assert st["coef"][0, 0] == pytest.approx(
        -expected_d / (1.0 + abs(expected_d)), rel=1e-15
    )


def test_modified_huber_pieces():
    # z = y p: z >= 1 -> 0; -1 <= z < 1 -> (1-z)^2, d = -2y(1-z); z < -1 -> -4z, d = -4y
    assert loss_value("modified_huber", 2.0, 1.0) == 0.0
    assert loss_derivative("modified_huber", 2.0, 1.0) == 0.0
    assert loss_value("modified_huber", 0.5, -1.0) == pytest.approx(2.25)
    assert loss_derivative("modified_huber", 0.5, -1.0) == pytest.approx(3.0)
    assert loss_value("modified_huber", -3.0, 1.0) == pytest.approx(12.0)
    assert loss_derivative("modified_huber", -3.0, 1.0) == -4.0
    assert loss_derivative("modified_huber", 3.0, -1.0) == 4.0


def test_log_loss_is_stable_for_large_scores():
    # (underflow to 0 is harmless; overflow / invalid / divide are not)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        for p in (-1000.0, -701.0, 701.0, 1000.0):
            for y in (-1.0, 1.0):
                ell = loss_value("log_loss", p, y)
                d = loss_derivative("log_loss", p, y)
                assert np.isfinite(ell) and np.isfinite(d)
                if y * p > 0:
                    assert ell == pytest.approx(0.0, abs=1e-300)
                    assert d == pytest.approx(0.0, abs=1e-300)
                else:
                    assert ell == pytest.approx(abs(p), rel=1e-15)
                    assert d == pytest.approx(-y, rel=1e-15)


# Points well away from each loss's kinks (|margin| >= 0.05).
_DERIV_POINTS = {
    "hinge": [(0.3, 1.0), (-2.0, 1.0), (0.5, -1.0), (2.0, 1.0), (-1.7, -1.0)],
    "log_loss": [(0.3, 1.0), (-2.0, 1.0), (0.5, -1.0), (7.0, 1.0), (-4.0, -1.0)],
    # One output: the logistic loss (several: test_multinomial.py's own check).
    "multinomial": [(0.3, 1.0), (-2.0, 1.0), (0.5, -1.0)],
    "squared_hinge": [(0.3, 1.0), (-2.0, 1.0), (0.5, -1.0), (2.0, 1.0)],
    "modified_huber": [(0.3, 1.0), (-2.0, 1.0), (0.5, -1.0), (2.0, 1.0), (1.8, -1.0)],
    "squared_error": [(0.3, 1.0), (-2.0, 0.7), (4.0, -1.5)],
    "epsilon_insensitive": [(0.3, 1.0), (1.05, 1.0), (-2.0, 0.7), (4.0, -1.5)],
    "huber": [(0.3, 1.0), (1.05, 1.0), (-2.0, 0.7), (4.0, -1.5), (0.5, 0.45)],
}


@pytest.mark.parametrize("loss", LOSSES)
def test_derivative_matches_central_differences(loss):
    eps = 0.1
    h = 1e-6
    for p, y in _DERIV_POINTS[loss]:
        numeric = (
            loss_value(loss, p + h, y, eps) - loss_value(loss, p - h, y, eps)
        ) / (2 * h)
        analytic = loss_derivative(loss, p, y, eps)
        assert analytic == pytest.approx(numeric, rel=1e-6, abs=1e-7), (loss, p, y)


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], loss="nope")
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], update="nope")
    with pytest.raises(ValueError):
        _run([[1.0]], [2.0], n_outputs=2)  # class index out of range
