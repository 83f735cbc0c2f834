"""Self-tests of the slow reference in reference_ftrl.py (ALGORITHMS.md §2)."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from reference_ftrl import (
    LOSSES,
    STATE_KEYS,
    ftrl_weight,
    loss_derivative,
    loss_value,
    reference_ftrl,
)

SQRT2 = math.sqrt(2.0)


def _run(X, y, w=None, **kw):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    params = dict(
        n_outputs=1,
        loss="hinge",
        alpha=1.0,
        beta=0.0,
        l1=0.0,
        l2=0.0,
        fit_intercept=True,
    )
    params.update(kw)
    return reference_ftrl(X, y, w, **params)


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


def _assert_same_state(a, b):
    for key in STATE_KEYS:
        assert_array_equal(a[key], b[key], err_msg=key)


def _lazy_scalar_ftrl(X, y, sw, *, alpha, beta, l1, l2, loss, epsilon=0.1):
    """An independent, lazy, scalar-math FTRL (one output, with intercept).

    Only the coordinates of the row's support are read and written, as in the
    paper's Algorithm 1; used to cross-check the non-lazy reference.
    """

    def w_of(zi, ni, a1, a2):
        if abs(zi) <= a1:
            return 0.0
        den = (beta + math.sqrt(ni)) / alpha + a2
        if den == 0.0:
            return 0.0
        return -(zi - math.copysign(a1, zi)) / den

    d = X.shape[1]
    z = [0.0] * d
    n = [0.0] * d
    zb = nb = 0.0
    total = 0.0
    for t in range(X.shape[0]):
        support = [i for i in range(d) if X[t, i] != 0.0]
        w = {i: w_of(z[i], n[i], l1, l2) for i in support}
        b = w_of(zb, nb, 0.0, 0.0)
        p = sum(w[i] * X[t, i] for i in support) + b
        total += sw[t] * loss_value(loss, p, y[t], epsilon)
        dt = loss_derivative(loss, p, y[t], epsilon)
        for i in support:
            g = sw[t] * dt * X[t, i]
            sigma = (math.sqrt(n[i] + g * g) - math.sqrt(n[i])) / alpha
            z[i] += g - sigma * w[i]
            n[i] += g * g
        gb = sw[t] * dt
        sigma_b = (math.sqrt(nb + gb * gb) - math.sqrt(nb)) / alpha
        zb += gb - sigma_b * b
        nb += gb * gb
    coef = [w_of(z[i], n[i], l1, l2) for i in range(d)]
    return np.array(z), np.array(n), np.array(coef), w_of(zb, nb, 0.0, 0.0), total


# --------------------------------------------------------------------------------------
# The closed form
# --------------------------------------------------------------------------------------


def test_ftrl_weight_by_hand():
    # alpha=0.5, beta=0.2, l1=0.3, l2=0.4
    # z=-1.5, n=2.25: -(-1.5 + 0.3) / ((0.2 + 1.5)/0.5 + 0.4) = 1.2/3.8
    assert ftrl_weight(-1.5, 2.25, 0.5, 0.2, 0.3, 0.4) == pytest.approx(
        1.2 / 3.8, rel=1e-15
    )
    # z=0.75, n=0.5625: -(0.75 - 0.3) / ((0.2 + 0.75)/0.5 + 0.4) = -0.45/2.3
    assert ftrl_weight(0.75, 0.5625, 0.5, 0.2, 0.3, 0.4) == pytest.approx(
        -0.45 / 2.3, rel=1e-15
    )
    # |z| <= l1 (including equality) -> exactly 0
    assert ftrl_weight(0.3, 4.0, 0.5, 0.2, 0.3, 0.4) == 0.0
    assert ftrl_weight(-0.3, 4.0, 0.5, 0.2, 0.3, 0.4) == 0.0
    assert ftrl_weight(0.1, 4.0, 0.5, 0.2, 0.3, 0.4) == 0.0
    assert isinstance(ftrl_weight(1.0, 1.0, 1.0, 0.0, 0.0, 0.0), float)


def test_ftrl_weight_elementwise_matches_scalar():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(3, 7)) * 2.0
    n = rng.uniform(0.0, 5.0, size=(3, 7))
    n[0, 0] = 0.0
    args = (0.7, 0.3, 0.5, 0.2)
    w = ftrl_weight(z, n, *args)
    assert w.shape == z.shape
    for idx in np.ndindex(z.shape):
        assert w[idx] == ftrl_weight(z[idx], n[idx], *args)
    assert np.any(w == 0.0) and np.any(w != 0.0)
    # The input arrays are not modified.
    z_copy, n_copy = z.copy(), n.copy()
    ftrl_weight(z, n, *args)
    assert_array_equal(z, z_copy)
    assert_array_equal(n, n_copy)


def test_ftrl_weight_never_nan_with_zero_denominator():
    # beta = l2 = n = 0 -> denominator 0: weight 0, no NaN/inf, no warning.
    z = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
    with np.errstate(all="raise"):
        w = ftrl_weight(z, np.zeros(5), 1.0, 0.0, 0.0, 0.0)
        w_l1 = ftrl_weight(z, np.zeros(5), 1.0, 0.0, 1.0, 0.0)
        w_scalar = ftrl_weight(3.0, 0.0, 0.5, 0.0, 0.0, 0.0)
    assert_array_equal(w, 0.0)
    assert_array_equal(w_l1, 0.0)
    assert w_scalar == 0.0
    assert not np.any(np.isnan(w))
    # but l2 > 0 or beta > 0 makes the same z give a finite nonzero weight
    assert ftrl_weight(2.0, 0.0, 1.0, 0.0, 0.0, 0.5) == pytest.approx(-4.0)
    assert ftrl_weight(2.0, 0.0, 1.0, 0.5, 0.0, 0.0) == pytest.approx(-4.0)


# --------------------------------------------------------------------------------------
# Hand-computed rounds
# --------------------------------------------------------------------------------------


def test_first_round_log_loss_by_hand():
    # alpha=0.5, beta=0.2, l1=0.3, l2=0.4; s = 1.5; x = [2, 0, -1, 0.25], y = +1.
    # Zero state -> all weights 0, p = 0: loss = log 2, d = -1/(1 + e^0) = -0.5.
    # g = s d x = -0.75 x = [-1.5, 0, 0.75, -0.1875]; g_b = -0.75.
    # n = 0 and w = 0 -> sigma*w = 0, so z = g and n = g^2.
    X = [[2.0, 0.0, -1.0, 0.25]]
    st, loss_sum = _run(
        X, [1.0], [1.5], loss="log_loss", alpha=0.5, beta=0.2, l1=0.3, l2=0.4
    )
    assert_allclose(st["z"][0], [-1.5, 0.0, 0.75, -0.1875], rtol=1e-15)
    assert_allclose(st["n"][0], [2.25, 0.0, 0.5625, 0.03515625], rtol=1e-15)
    assert_allclose(st["intercept_z"], [-0.75], rtol=1e-15)
    assert_allclose(st["intercept_n"], [0.5625], rtol=1e-15)
    # w0 = -(-1.5 + 0.3) / ((0.2 + 1.5)/0.5 + 0.4) = 1.2 / 3.8
    # w1: z = 0 -> 0
    # w2 = -(0.75 - 0.3) / ((0.2 + 0.75)/0.5 + 0.4) = -0.45 / 2.3
    # w3: |z| = 0.1875 <= l1 = 0.3 -> exactly 0
    assert_allclose(st["coef"][0], [1.2 / 3.8, 0.0, -0.45 / 2.3, 0.0], rtol=1e-14)
    assert st["coef"][0, 3] == 0.0
    # b = -(-0.75) / ((0.2 + 0.75)/0.5)  (no l1/l2 on the intercept) = 0.75 / 1.9
    assert_allclose(st["intercept"], [0.75 / 1.9], rtol=1e-14)
    assert loss_sum == pytest.approx(1.5 * math.log(2.0), rel=1e-15)


def test_two_rounds_hinge_by_hand():
    # alpha=1, beta=1, l1=0.1, l2=0.5, s = 1.
    # Round 1: x=[1,0], y=+1, p=0 -> loss 1, d=-1; g=[-1,0], g_b=-1.
    #   z=[-1,0], n=[1,0], z_b=-1, n_b=1.
    #   w0 = -(-1 + 0.1)/((1 + 1)/1 + 0.5) = 0.9/2.5 = 0.36, w1 = 0,
    #   b = 1/((1 + 1)/1) = 0.5.
    # Round 2: x=[1,1], y=-1, p = 0.36 + 0 + 0.5 = 0.86 -> yp = -0.86 < 1:
    #   loss 1.86, d = +1; g = [1, 1], g_b = 1.
    #   coord 0: sigma = (sqrt(2) - 1)/1, z0 = -1 + 1 - (sqrt2 - 1)*0.36 (w0 != 0!)
    #            n0 = 2
    #   coord 1: sigma = (1 - 0)/1, z1 = 0 + 1 - 1*0 = 1, n1 = 1
    #   intercept: sigma = sqrt2 - 1, z_b = -1 + 1 - (sqrt2 - 1)*0.5, n_b = 2.
    # Final weights:
    #   w0 = -(z0 + 0.1)/((1 + sqrt2) + 0.5)   (|z0| = 0.149 > 0.1)
    #   w1 = -(1 - 0.1)/((1 + 1) + 0.5) = -0.36
    #   b  = -z_b/(1 + sqrt2) = 0.5 (sqrt2 - 1)/(sqrt2 + 1) = 0.5 (3 - 2 sqrt2)
    X = [[1.0, 0.0], [1.0, 1.0]]
    st, loss_sum = _run(X, [1.0, -1.0], alpha=1.0, beta=1.0, l1=0.1, l2=0.5)
    z0 = -(SQRT2 - 1.0) * 0.36  # all sigma*w: without that term z0 would be 0
    assert_allclose(st["z"][0], [z0, 1.0], rtol=1e-14)
    assert_allclose(st["n"][0], [2.0, 1.0], rtol=1e-15)
    assert_allclose(st["intercept_z"], [-(SQRT2 - 1.0) * 0.5], rtol=1e-14)
    assert_allclose(st["intercept_n"], [2.0], rtol=1e-15)
    w0 = -(z0 + 0.1) / (1.0 + SQRT2 + 0.5)
    assert_allclose(st["coef"][0], [w0, -0.36], rtol=1e-13)
    assert_allclose(st["intercept"], [0.5 * (3.0 - 2.0 * SQRT2)], rtol=1e-13)
    assert loss_sum == pytest.approx(1.0 + 1.86, rel=1e-15)
    # After round 1 alone:
    st1, loss1 = _run(X[:1], [1.0], alpha=1.0, beta=1.0, l1=0.1, l2=0.5)
    assert_allclose(st1["coef"][0], [0.36, 0.0], rtol=1e-14)
    assert_allclose(st1["intercept"], [0.5], rtol=1e-15)
    assert loss1 == 1.0


def test_weight_returns_to_exact_zero():
    # alpha=1, beta=1, l1=0.5, l2=0, hinge, no intercept, x = [1].
    # Round 1: y=+1, p=0 -> d=-1, g=-1: z=-1, n=1; w = -(-1 + 0.5)/(1 + 1) = 0.25.
    # Round 2: y=-1, p=0.25 -> yp=-0.25 < 1, d=+1, g=+1:
    #   sigma = (sqrt2 - 1)/1; z = -1 + 1 - (sqrt2 - 1)*0.25 = -0.1036, n = 2.
    #   |z| = 0.1036 <= l1 = 0.5 -> w = 0.0 exactly.
    kw = dict(alpha=1.0, beta=1.0, l1=0.5, l2=0.0, fit_intercept=False)
    st1, _ = _run([[1.0]], [1.0], **kw)
    assert st1["coef"][0, 0] == pytest.approx(0.25, rel=1e-15)
    st2, loss_sum = _run([[1.0], [1.0]], [1.0, -1.0], **kw)
    assert_allclose(st2["z"][0], [-(SQRT2 - 1.0) * 0.25], rtol=1e-14)
    assert_allclose(st2["n"][0], [2.0], rtol=1e-15)
    assert st2["coef"][0, 0] == 0.0  # exactly, not just small
    assert loss_sum == pytest.approx(1.0 + 1.25, rel=1e-15)


def test_no_regularization_beta_zero_one_round():
    # l1 = l2 = 0, beta = 0, from zero: z = g, n = g^2, so
    #   w_i = -g_i / (|g_i| / alpha) = -alpha * sign(g_i)   on the support,
    #   w_i = 0                                               off it (n = 0).
    # squared error, y = 3, s = 2: p = 0, d = -3, g = -6 x; g_b = -6 -> b = +alpha.
    alpha = 0.7
    X = [[1.0, 0.0, -0.5, 1e-3]]
    with np.errstate(all="raise"):
        st, loss_sum = _run(X, [3.0], [2.0], loss="squared_error", alpha=alpha)
    g = np.array([-6.0, 0.0, 3.0, -6e-3])
    assert_allclose(st["z"][0], g, rtol=1e-15)
    assert_allclose(st["n"][0], g * g, rtol=1e-15)
    assert_allclose(st["coef"][0], [alpha, 0.0, -alpha, alpha], rtol=1e-15)
    assert_allclose(st["coef"][0], -alpha * np.sign(g), rtol=1e-15)
    assert st["coef"][0, 1] == 0.0
    assert_allclose(st["intercept"], [alpha], rtol=1e-15)
    assert loss_sum == pytest.approx(2.0 * 0.5 * 9.0, rel=1e-15)


# --------------------------------------------------------------------------------------
# Structural properties
# --------------------------------------------------------------------------------------


def test_empty_and_zero_weight_rows_change_nothing():
    X = np.array([[2.0, -1.0], [0.0, 0.0], [5.0, 3.0]])
    y = np.array([1.0, 1.0, -1.0])
    sw = np.array([1.0, 1.0, 0.0])  # row 1 is empty, row 2 has weight 0
    kw = dict(alpha=0.5, beta=0.1, l1=0.2, l2=0.3, loss="log_loss")

    # Without an intercept both void rounds leave the whole state identical.
    ref, loss_ref = _run(X, y, sw, order=[0], fit_intercept=False, **kw)
    st, loss_sum = _run(X, y, sw, order=[0, 1, 2], fit_intercept=False, **kw)
    _assert_same_state(st, ref)
    # The empty row is still scored (p = 0 without intercept) and adds s*log 2;
    # the zero-weight row adds 0.
    assert loss_sum == pytest.approx(loss_ref + math.log(2.0), rel=1e-15)

    # With an intercept the zero-weight row still changes nothing at all ...
    ref_b, loss_ref_b = _run(X, y, sw, order=[0], fit_intercept=True, **kw)
    st_b, loss_b = _run(X, y, sw, order=[0, 2], fit_intercept=True, **kw)
    _assert_same_state(st_b, ref_b)
    assert loss_b == loss_ref_b
    # ... and the empty row changes only the intercept (g_b = s d != 0).
    st_e, _ = _run(X, y, sw, order=[0, 1], fit_intercept=True, **kw)
    for key in ("coef", "z", "n"):
        assert_array_equal(st_e[key], ref_b[key], err_msg=key)
    assert st_e["intercept_n"][0] > ref_b["intercept_n"][0]


def test_no_intercept_keeps_intercept_and_accumulators_zero():
    X, y, sw = _random_problem(4)
    st, _ = _run(X, y, sw, alpha=0.5, beta=0.1, l1=0.05, fit_intercept=False)
    assert_array_equal(st["intercept"], 0.0)
    assert_array_equal(st["intercept_z"], 0.0)
    assert_array_equal(st["intercept_n"], 0.0)
    assert np.any(st["coef"] != 0.0)
    # while with an intercept they move
    st_b, _ = _run(X, y, sw, alpha=0.5, beta=0.1, l1=0.05, fit_intercept=True)
    assert st_b["intercept"][0] != 0.0 and st_b["intercept_n"][0] > 0.0
    # and a state with a nonzero intercept part is refused without an intercept
    with pytest.raises(ValueError):
        _run(X, y, sw, alpha=0.5, fit_intercept=False, state=st_b)


@pytest.mark.parametrize("loss", ["hinge", "log_loss", "squared_error"])
@pytest.mark.parametrize("K", [2, 3])
def test_multiclass_is_one_vs_rest(loss, K):
    X, c, sw = _random_problem(5, n_classes=K)
    kw = dict(loss=loss, alpha=0.3, beta=0.5, l1=0.05, l2=0.1)
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
    assert np.any(st["coef"] != 0.0)
    # the K outputs really differ
    assert not np.allclose(st["coef"][0], st["coef"][1])


@pytest.mark.parametrize(
    "loss,expected_loss_sum",
    [
        # alpha=1, beta=0, l1=l2=0, no intercept, x=[1], y=2 twice, s=[2, 0.5].
        # Round 1: p=0, r=-2, d<0 -> g<0 -> w = -alpha sign(g) = 1 (see
        # test_no_regularization_beta_zero_one_round). Round 2: p=1, r=-1.
        # squared_error: 2*(0.5*4) + 0.5*(0.5*1) = 4.25
        ("squared_error", 4.25),
        # huber (eps=0.5): 2*(0.5*2 - 0.125) + 0.5*(0.5*1 - 0.125) = 1.9375
        ("huber", 1.9375),
        # epsilon_insensitive (eps=0.5): 2*(2 - 0.5) + 0.5*(1 - 0.5) = 3.25
        ("epsilon_insensitive", 3.25),
    ],
)
def test_regression_losses_by_hand(loss, expected_loss_sum):
    st, loss_sum = _run(
        [[1.0], [1.0]],
        [2.0, 2.0],
        [2.0, 0.5],
        loss=loss,
        epsilon=0.5,
        fit_intercept=False,
    )
    assert loss_sum == pytest.approx(expected_loss_sum, rel=1e-15)
    st1, _ = _run([[1.0]], [2.0], [2.0], loss=loss, epsilon=0.5, fit_intercept=False)
    assert st1["coef"][0, 0] == pytest.approx(1.0, rel=1e-15)
    # and on a random regression problem everything stays finite and moves
    X, y, sw = _random_problem(6, regression=True)
    st, loss_sum = _run(
        X, y, sw, loss=loss, alpha=0.2, beta=1.0, l1=0.01, l2=0.1, epsilon=0.3
    )
    for key in STATE_KEYS:
        assert np.all(np.isfinite(st[key])), key
    assert np.any(st["coef"] != 0.0) and loss_sum > 0.0


@pytest.mark.parametrize(
    "loss,n_outputs",
    [("hinge", 1), ("log_loss", 3), ("modified_huber", 1), ("huber", 1)],
)
def test_continuing_with_state_equals_one_call(loss, n_outputs):
    regression = loss == "huber"
    X, y, sw = _random_problem(
        1, regression=regression, n_classes=n_outputs if n_outputs > 1 else None
    )
    rng = np.random.default_rng(2)
    order = np.concatenate([rng.permutation(len(y)), rng.permutation(len(y))])
    kw = dict(
        n_outputs=n_outputs,
        loss=loss,
        alpha=0.4,
        beta=0.5,
        l1=0.05,
        l2=0.02,
        fit_intercept=True,
        epsilon=0.3,
    )
    full, loss_full = reference_ftrl(X, y, sw, order=order, **kw)
    m = 37
    first, loss_a = reference_ftrl(X, y, sw, order=order[:m], **kw)
    first_copy = {k: v.copy() for k, v in first.items()}
    second, loss_b = reference_ftrl(X, y, sw, order=order[m:], state=first, t0=m, **kw)
    assert set(second) == set(STATE_KEYS)
    for key in STATE_KEYS:
        assert_allclose(second[key], full[key], rtol=1e-13, atol=1e-15, err_msg=key)
        assert_array_equal(first[key], first_copy[key])  # not mutated
        assert second[key] is not first[key]
    assert loss_a + loss_b == pytest.approx(loss_full, rel=1e-13)
    assert np.any(full["coef"] != 0.0)


def test_input_state_not_mutated_and_weights_recomputed():
    X, y, sw = _random_problem(7)
    kw = dict(alpha=0.5, beta=0.1, l1=0.05, l2=0.1)
    state, _ = _run(X, y, sw, **kw)
    # Spoil coef/intercept: only (z, n) matter, the weights are recomputed.
    state["coef"] = np.full_like(state["coef"], 123.0)
    state["intercept"] = np.full_like(state["intercept"], -7.0)
    state_copy = {k: v.copy() for k, v in state.items()}
    st, _ = _run(X[:1], y[:1], sw[:1], state=state, **kw)
    _assert_same_state(state, state_copy)
    for key in STATE_KEYS:
        assert st[key] is not state[key]
    assert_array_equal(st["coef"], ftrl_weight(st["z"], st["n"], 0.5, 0.1, 0.05, 0.1))
    assert_array_equal(
        st["intercept"],
        ftrl_weight(st["intercept_z"], st["intercept_n"], 0.5, 0.1, 0.0, 0.0),
    )
    # An empty order returns the recomputed weights of the given (z, n).
    st0, loss0 = _run(X, y, sw, order=[], state=state, **kw)
    assert loss0 == 0.0
    assert_array_equal(st0["z"], state["z"])
    assert_array_equal(
        st0["coef"], ftrl_weight(state["z"], state["n"], 0.5, 0.1, 0.05, 0.1)
    )


@pytest.mark.parametrize("loss", ["hinge", "log_loss", "squared_hinge", "huber"])
def test_matches_independent_lazy_scalar_loop(loss):
    # Non-lazy (every coordinate every round) == lazy (support only), since a
    # coordinate with g = 0 keeps its (z, n) and so its weight.
    X, y, sw = _random_problem(8, n=40, d=9, regression=loss == "huber")
    kw = dict(alpha=0.3, beta=0.7, l1=1.0, l2=0.2, loss=loss)
    st, loss_sum = _run(X, y, sw, epsilon=0.3, **kw)
    z, n, coef, b, total = _lazy_scalar_ftrl(X, y, sw, epsilon=0.3, **kw)
    assert_allclose(st["z"][0], z, rtol=1e-13, atol=1e-15)
    assert_allclose(st["n"][0], n, rtol=1e-13, atol=1e-15)
    assert_allclose(st["coef"][0], coef, rtol=1e-12, atol=1e-15)
    assert_allclose(st["intercept"], [b], rtol=1e-12, atol=1e-15)
    assert loss_sum == pytest.approx(total, rel=1e-13)
    # l1 bites: some coordinates with a gradient have weight exactly 0
    assert np.any((st["coef"][0] == 0.0) & (st["n"][0] > 0.0))
    assert np.any(st["coef"][0] != 0.0)


def test_sparse_input_equals_dense():
    X, y, sw = _random_problem(9)
    kw = dict(alpha=0.5, beta=0.2, l1=0.03, l2=0.1, loss="log_loss")
    dense, loss_d = _run(X, y, sw, **kw)
    sparse, loss_s = reference_ftrl(
        sp.csr_matrix(X), y, sw, n_outputs=1, fit_intercept=True, **kw
    )
    _assert_same_state(sparse, dense)
    assert loss_s == loss_d


@pytest.mark.parametrize("loss", LOSSES)
def test_one_round_at_zero_score_for_every_loss(loss):
    # From zero, x=[1], s=1, l1=l2=0: p = 0, g = d; with beta = 1:
    # w = -d / ((1 + |d|)/alpha), alpha = 1.
    y = 0.5 if loss in ("squared_error", "huber", "epsilon_insensitive") else -1.0
    d = loss_derivative(loss, 0.0, y, 0.1)
    st, loss_sum = _run([[1.0]], [y], loss=loss, beta=1.0, fit_intercept=False)
    assert loss_sum == pytest.approx(loss_value(loss, 0.0, y, 0.1), rel=1e-15)
    assert st["coef"][0, 0] == pytest.approx(-d / (1.0 + abs(d)), rel=1e-15)
    assert st["z"][0, 0] == d and st["n"][0, 0] == d * d


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], loss="nope")
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], alpha=0.0)
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], beta=-1.0)
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], l1=-0.1)
    with pytest.raises(ValueError):
        _run([[1.0]], [2.0], n_outputs=2)  # class index out of range
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], order=[1])  # row index out of range
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], state={k: np.zeros((1, 2)) for k in STATE_KEYS})
    bad_n = {
        k: np.zeros((1, 1)) if k in ("coef", "z", "n") else np.zeros(1)
        for k in STATE_KEYS
    }
    bad_n["n"][0, 0] = -1.0
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], state=bad_n)
    with pytest.raises(ValueError):
        ftrl_weight(1.0, 1.0, 0.0, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        ftrl_weight(1.0, -1.0, 1.0, 0.0, 0.0, 0.0)
