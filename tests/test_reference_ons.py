"""Self-tests of the slow reference in reference_ons.py (ALGORITHMS.md §3 and the
ONS interface note of issue 10)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from reference_ons import (
    MATRICES,
    coef_and_intercept,
    fd_insert,
    fd_shrink,
    generalized_projection,
    initial_state,
    reference_ons,
)


def _run(X, y, sw=None, **kw):
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    sw = np.ones(len(y)) if sw is None else np.asarray(sw, dtype=float)
    params = dict(
        n_outputs=1,
        loss="squared_error",
        matrix="full",
        gamma=1.0,
        eps=1.0,
        fit_intercept=True,
    )
    params.update(kw)
    return reference_ons(X, y, sw, **params)


def _problem(seed, n=40, d=5, kind="regression", density=0.6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) > density] = 0.0
    X[3] = 0.0  # an empty row is still a round
    if kind == "regression":
        y = X @ rng.normal(size=d) + 0.5 + 0.2 * rng.normal(size=n)
    elif kind == "binary":
        y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    else:
        y = rng.integers(0, 3, size=n).astype(float)
    sw = rng.uniform(0.3, 2.0, size=n)
    sw[5] = 0.0  # a zero-weight row is still a round
    return X, y, sw


def _inv2(a):
    """The inverse of a 2x2 matrix of Fractions by its adjugate."""
    (p, q), (r, s) = a
    det = p * s - q * r
    return [[s / det, -q / det], [-r / det, p / det]]


def _assert_kkt(A, w_prime, w, mu, radius):
    """w is the A-norm projection of w' onto the ball: ||w|| = radius, mu > 0 and
    (A + mu I) w = A w'."""
    assert mu > 0.0
    assert np.linalg.norm(w) == pytest.approx(radius, rel=1e-12)
    lhs = (A + mu * np.eye(A.shape[0])) @ w
    rhs = A @ w_prime
    scale = np.abs(A).max() * max(1.0, np.abs(w_prime).max())
    assert_allclose(lhs, rhs, rtol=0, atol=1e-11 * scale)


# --------------------------------------------------------------------------------------
# Hand-computed rounds
# --------------------------------------------------------------------------------------


def test_two_full_rounds_by_hand():
    # gamma = 1, eps = 1, squared error, intercept; row 1: x = [1], y = 3 (|x| = 1
    # keeps the scale m at 1). w = 0, p = 0, loss 4.5, c = -3, g = [-3, -3].
    # A = I + g g^T; A g = (1 + 18) g, so A^{-1} g = g / 19 and w = [3/19, 3/19].
    st, loss1 = _run([[1.0]], [3.0])
    assert loss1 == 4.5
    assert_allclose(st["A"][0], [[10.0, 9.0], [9.0, 10.0]], rtol=1e-15)
    assert_allclose(st["w"][0], [3 / 19, 3 / 19], rtol=1e-14)
    coef, intercept = coef_and_intercept(st)
    assert_allclose(coef, [[3 / 19]], rtol=1e-14)
    assert_allclose(intercept, [3 / 19], rtol=1e-14)
    # gamma = 2 halves the step.
    st_half, _ = _run([[1.0]], [3.0], gamma=2.0)
    assert_allclose(st_half["w"][0], [1.5 / 19, 1.5 / 19], rtol=1e-14)

    # Row 2: x = [-1], y = 1.  x~ = [-1, 1], p = 0, c = -1, g = [1, -1].
    # A2 = A1 + g g^T, w2 = w1 - A2^{-1} g, in exact fractions.
    F = Fraction
    w1 = [F(3, 19), F(3, 19)]
    p = -w1[0] + w1[1]
    c = p - 1
    g = [-c, c]
    A2 = [
        [F(10) + g[0] * g[0], F(9) + g[0] * g[1]],
        [F(9) + g[1] * g[0], F(10) + g[1] * g[1]],
    ]
    inv = _inv2(A2)
    step = [inv[0][0] * g[0] + inv[0][1] * g[1], inv[1][0] * g[0] + inv[1][1] * g[1]]
    w2 = [float(w1[0] - step[0]), float(w1[1] - step[1])]
    st2, loss2 = _run([[1.0], [-1.0]], [3.0, 1.0])
    assert_allclose(st2["w"][0], w2, rtol=1e-13)
    assert_allclose(st2["A"][0], np.array(A2, dtype=float), rtol=1e-14)
    assert loss2 == pytest.approx(4.5 + 0.5 * float(c) ** 2, rel=1e-15)


def test_the_features_scale_by_hand():
    # x = [2]: m = 4, so x~ normalized is [1, 1], the first round above: A (in
    # normalized coordinates) = I + g g^T with g = [-3, -3], normalized weights
    # [3/19, 3/19], and the feature's weight is its normalized one over sqrt(m).
    st, _ = _run([[2.0]], [3.0])
    assert_allclose(st["scale_sums"], [4.0, 1.0])
    assert_allclose(st["A"][0], [[10.0, 9.0], [9.0, 10.0]], rtol=1e-15)
    assert_allclose(st["w"][0], [3 / 38, 3 / 19], rtol=1e-14)
    # Every feature multiplied by a: the same scores, weights divided by a.
    X = np.array([[2.0, 0.0], [-1.0, 3.0], [0.5, 1.0]])
    y = np.array([3.0, 0.0, 1.0])
    for matrix in MATRICES:
        one, _ = _run(X, y, matrix=matrix, sketch_size=1)
        scaled, _ = _run(1e3 * X, y, matrix=matrix, sketch_size=1)
        assert_allclose(scaled["w"][0, :-1] * 1e3, one["w"][0, :-1], rtol=1e-12)
        assert_allclose(scaled["w"][0, -1], one["w"][0, -1], rtol=1e-12)
    # Row weights weigh the squares: m = (2 * 4 + 1 * 9) / 3.
    st, _ = _run([[2.0, 0.0], [0.0, 3.0]], [1.0, 1.0], [2.0, 1.0])
    assert_allclose(st["scale_sums"], [17.0, 3.0])


def test_first_diag_round_by_hand():
    # x = [2], y = 3: m = 4, the diagonal before the row D = diag(eps m, eps) =
    # diag(4, 1), h = c x~ = [-6, -3]. The step's matrix is D + h h^T: by
    # Sherman-Morrison its direction is v = D^{-1} x~ / (1 + h.D^{-1}h) =
    # [0.5, 1] / 19, along which the score moves by q = x~.v = 2/19. Squared error
    # follows the flow for T = 1/gamma = 1: the residual -3 becomes -3 e^{-q}, so
    # w = v 3 (1 - e^{-q}) / q = 1.5 (1 - e^{-2/19}) [0.5, 1]. The state's A keeps
    # eps + G: diag(1 + 36, 1 + 9).
    st, _ = _run([[2.0]], [3.0], matrix="diag")
    assert_array_equal(st["A"][0], np.diag([37.0, 10.0]))
    expected = 1.5 * (1.0 - math.exp(-2.0 / 19.0)) * np.array([0.5, 1.0])
    assert_allclose(st["w"][0], expected, rtol=1e-14)
    # gamma = 0.01: T = 100, T q = 10.5. The linear step would move the score by
    # 3 T q = 31.6, ten times past the target; the flow stops short of it.
    st, _ = _run([[2.0]], [3.0], matrix="diag", gamma=0.01)
    score = np.append(2.0, 1.0) @ st["w"][0]
    assert score == pytest.approx(3.0 * (1.0 - math.exp(-200.0 / 19.0)), rel=1e-12)
    assert score < 3.0


def test_first_round_log_loss_with_weight_by_hand():
    # log loss, y = +1, s = 2, x = [1, -2], gamma = 0.5, eps = 0.1, no intercept.
    # p = 0: loss 2 log 2, c = 2 * (-1/2) = -1, g = [-1, 2, 0] (intercept slot 0).
    # m = (1 + 4) / 2 = 2.5, and the weight is an importance weight: the model's
    # A = eps m I + s h h^T = 0.25 I + g g^T / 2 (the intercept's eps stays 0.1);
    # A g = (0.25 + 5/2) g, so A^{-1} g = g / 2.75 and w = -2 g / 2.75.
    st, loss_sum = _run(
        [[1.0, -2.0]],
        [1.0],
        [2.0],
        loss="log_loss",
        gamma=0.5,
        eps=0.1,
        fit_intercept=False,
    )
    assert loss_sum == pytest.approx(2 * math.log(2.0), rel=1e-15)
    assert_allclose(st["w"][0], [2 / 2.75, -4 / 2.75, 0.0], rtol=1e-14, atol=0)
    assert st["w"][0, 2] == 0.0
    assert st["A"][0, 2, 2] == 0.1


def test_first_projected_round_by_hand():
    # x = [1], y = 10, no intercept, eps = 1, gamma = 1: c = -10, g = [-10, 0],
    # A = diag(101, 1), w' = [10/101, 0], ||w'|| ~ 0.099 > 0.05: w = [0.05, 0]
    # with mu from 101 (10/101) / (101 + mu) = 0.05: mu = 200 - 101 = 99.
    trace = []
    st, _ = _run([[1.0]], [10.0], fit_intercept=False, radius=0.05, trace=trace)
    assert_allclose(st["w"][0], [0.05, 0.0], rtol=1e-14, atol=0)
    assert trace[0]["mu"] == pytest.approx(99.0, rel=1e-12)
    assert_allclose(trace[0]["w_prime"], [10 / 101, 0.0], rtol=1e-14)
    assert st["projections"][0] == 1
    # A radius the step stays in: no projection.
    st_in, _ = _run([[1.0]], [10.0], fit_intercept=False, radius=0.1)
    assert_allclose(st_in["w"][0], [10 / 101, 0.0], rtol=1e-14)
    assert st_in["projections"][0] == 0


# --------------------------------------------------------------------------------------
# The generalized projection
# --------------------------------------------------------------------------------------


def test_projection_by_hand():
    # A = diag(1, 3), w' = [2, 2]: w(mu) = [2/(1 + mu), 6/(3 + mu)]; at mu = 1,
    # w = [1, 1.5], ||w||^2 = 3.25.
    w, mu = generalized_projection(np.diag([1.0, 3.0]), [2.0, 2.0], math.sqrt(3.25))
    assert mu == pytest.approx(1.0, rel=1e-12)
    assert_allclose(w, [1.0, 1.5], rtol=1e-12)
    # A = c I: the projection is the Euclidean one, w' scaled onto the sphere.
    wp = np.array([3.0, -4.0, 12.0])
    w, mu = generalized_projection(7.0 * np.eye(3), wp, 2.0)
    assert_allclose(w, 2.0 * wp / 13.0, rtol=1e-12)
    assert mu == pytest.approx(7.0 * (13.0 / 2.0 - 1.0), rel=1e-12)


def test_projection_inside_the_ball_is_the_identity():
    wp = np.array([0.3, -0.4])
    w, mu = generalized_projection(np.array([[2.0, 1.0], [1.0, 3.0]]), wp, 0.5)
    assert_array_equal(w, wp)
    assert mu == 0.0
    assert w is not wp


@pytest.mark.parametrize("seed", range(5))
def test_projection_satisfies_kkt_and_minimises(seed):
    rng = np.random.default_rng(seed)
    D = 6
    B = rng.normal(size=(D, D))
    A = B @ B.T + 1e-3 * np.eye(D)  # ill-conditioned on purpose
    wp = rng.normal(size=D) * 5.0
    radius = 0.3 * np.linalg.norm(wp)
    w, mu = generalized_projection(A, wp, radius)
    _assert_kkt(A, wp, w, mu, radius)

    # It minimises (w - w')^T A (w - w') over the ball: no feasible point does
    # better (random points on the sphere, the Euclidean projection, and small
    # feasible perturbations of w).
    def obj(v):
        return (v - wp) @ A @ (v - wp)

    best = obj(w)
    cands = rng.normal(size=(2000, D))
    cands *= radius / np.linalg.norm(cands, axis=1, keepdims=True)
    cands = np.vstack(
        [cands, radius * wp / np.linalg.norm(wp), w + 1e-3 * rng.normal(size=(200, D))]
    )
    cands /= np.maximum(1.0, np.linalg.norm(cands, axis=1, keepdims=True) / radius)
    assert all(obj(v) >= best * (1 - 1e-12) for v in cands)
    # Not the Euclidean projection in general (A is far from a multiple of I).
    assert obj(radius * wp / np.linalg.norm(wp)) > best * (1 + 1e-6)


@pytest.mark.parametrize("matrix", MATRICES)
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_runs_with_radius_stay_in_the_ball_and_satisfy_kkt(matrix, fit_intercept):
    X, y, sw = _problem(1, n=40, d=4)
    radius = 0.8
    trace = []
    st, _ = _run(
        X,
        y,
        sw,
        matrix=matrix,
        sketch_size=2,
        radius=radius,
        fit_intercept=fit_intercept,
        gamma=0.5,
        eps=0.5,
        trace=trace,
    )
    projected = [r for r in trace if r["mu"] is not None]
    assert len(projected) >= 10
    assert st["projections"][0] == len(projected)
    for r in trace:  # the ball bounds the normalized weights
        assert np.linalg.norm(r["w_hat"]) <= radius * (1 + 1e-12)
        if r["mu"] is None:
            assert np.linalg.norm(r["w_prime_hat"]) <= radius
            assert_array_equal(r["w"], r["w_prime"])
        else:
            assert np.linalg.norm(r["w_prime_hat"]) > radius
            _assert_kkt(r["A"], r["w_prime_hat"], r["w_hat"], r["mu"], radius)
        if matrix == "diag":
            assert_array_equal(r["A"], np.diag(np.diag(r["A"])))
    if not fit_intercept:
        assert np.all(st["w"][:, -1] == 0.0)


# --------------------------------------------------------------------------------------
# Frequent Directions
# --------------------------------------------------------------------------------------


def test_fd_shrink_by_hand():
    # m = 1: sigma = [3, 1], delta = 1: first row +-sqrt(8) e0, second row 0.
    S = fd_shrink(np.array([[3.0, 0.0], [0.0, 1.0]]), 1)
    assert_allclose(S.T @ S, np.diag([8.0, 0.0]), atol=1e-14)
    assert_array_equal(S[1], 0.0)
    # m = 2, width 3: sigma = [3, 2, 1, 0], delta = sigma[2]^2 = 1:
    # rows sqrt(8) e1 and sqrt(3) e0, then zeros.
    S = fd_shrink(
        np.array([[2.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]),
        2,
    )
    assert_allclose(
        np.abs(S[:2]), [[0, math.sqrt(8), 0], [math.sqrt(3), 0, 0]], atol=1e-14
    )
    assert_array_equal(S[2:], 0.0)
    # m = 2, width 2 < 2m: only 2 singular values, padded with zeros; delta = 0 and
    # the shrink loses nothing.
    G = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 0.0], [0.0, 0.0]])
    S = fd_shrink(G, 2)
    assert_allclose(S.T @ S, G.T @ G, atol=1e-14)
    assert_array_equal(S[2:], 0.0)


def test_fd_insert_shrinks_only_when_full():
    m = 2
    S = np.zeros((4, 3))
    fill = 0
    rng = np.random.default_rng(0)
    gs = rng.normal(size=(6, 3))
    for j in range(4):
        S, fill, shrunk = fd_insert(S, fill, gs[j], m)
        assert not shrunk and fill == j + 1
    assert_array_equal(S, gs[:4])
    before = S.copy()
    S, fill, shrunk = fd_insert(S, fill, gs[4], m)
    assert shrunk and fill == m + 1
    expected = fd_shrink(before, m)
    expected[m] = gs[4]
    assert_array_equal(S, expected)
    assert_array_equal(S[m + 1 :], 0.0)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("radius", [None, 0.3])
def test_sketch_with_m_at_least_the_rank_equals_full(fit_intercept, radius):
    """Rows in a 2-dimensional subspace: the gradients c [x, 1] (or [x, 0]) span at
    most 3 (or 2) dimensions, so a sketch of m = 3 (or 2) is exact, though it shrinks
    many times, and the sketched run equals the full one."""
    rng = np.random.default_rng(7)
    n, d = 40, 6
    X = rng.normal(size=(n, 2)) @ rng.normal(size=(2, d))
    y = np.where(X @ rng.normal(size=d) + rng.normal(size=n) > 0, 1.0, -1.0)
    sw = rng.uniform(0.5, 1.5, n)
    m = 3 if fit_intercept else 2
    # The log loss: for a loss of the residual the sketch's step follows the
    # flow and the full matrix's is linear.
    common = dict(
        fit_intercept=fit_intercept, radius=radius, gamma=0.5, eps=0.3, loss="log_loss"
    )
    full, loss_full = _run(X, y, sw, matrix="full", **common)
    sk, loss_sk = _run(X, y, sw, matrix="sketch", sketch_size=m, **common)
    assert sk["shrinks"][0] >= 10
    assert_allclose(sk["A"], full["A"], rtol=1e-9, atol=1e-9 * np.abs(full["A"]).max())
    assert_allclose(sk["w"], full["w"], rtol=1e-8, atol=1e-10)
    assert loss_sk == pytest.approx(loss_full, rel=1e-9)
    if radius is not None:
        assert full["projections"][0] >= 5
    # One sketch row fewer is not exact: the runs differ.
    small, _ = _run(X, y, sw, matrix="sketch", sketch_size=m - 1, **common)
    assert not np.allclose(small["w"], full["w"], rtol=1e-3, atol=1e-6)


@pytest.mark.parametrize("m", [1, 2, 3])
def test_sketch_is_frequent_directions_of_the_gradients(m):
    """A = eps I + S^T S every round; before the first shrink S^T S = sum g g^T
    exactly; after, 0 <= sum g g^T - S^T S <= ||G||_F^2 / (m + 1) I (the FD bound
    for delta = sigma_m^2), and the error is not zero."""
    X, y, sw = _problem(2, n=40, d=5, kind="binary")
    eps = 0.5
    trace = []
    kw = dict(loss="log_loss", eps=eps)
    st, _ = _run(X, y, sw, matrix="sketch", sketch_size=m, trace=trace, **kw)
    assert st["shrinks"][0] >= 3
    S = np.zeros((2 * m, 6))
    fill = 0
    G = []
    for r in trace:
        S, fill, shrunk = fd_insert(S, fill, r["h_hat"], m)
        assert shrunk == r["shrunk"]
        G.append(r["h_hat"])
        assert_allclose(r["A"], eps * np.eye(6) + S.T @ S, rtol=1e-13, atol=1e-13)
        Gm = np.array(G)
        err = Gm.T @ Gm - S.T @ S
        lam = np.linalg.eigvalsh(err)
        bound = (Gm**2).sum() / (m + 1)
        tol = 1e-10 * bound
        assert lam.min() >= -tol
        assert lam.max() <= bound + tol
        if len(G) <= 2 * m:
            assert_allclose(err, 0.0, atol=tol)
    assert lam.max() > 1e-3
    assert_array_equal(st["S"][0], S)
    assert st["fill"][0] == fill
    # The first 2m gradients fit in the buffer: up to then the run equals full.
    n_exact = trace.index(next(r for r in trace if r["shrunk"]))
    rows = sorted({r["row"] for r in trace[:n_exact]})
    last = max(rows) + 1
    full, _ = _run(X[:last], y[:last], sw[:last], **kw)
    sk, _ = _run(X[:last], y[:last], sw[:last], matrix="sketch", sketch_size=m, **kw)
    assert sk["shrinks"][0] == 0
    assert_allclose(sk["w"], full["w"], rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------------------
# diag against full
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("radius", [None, 0.5])
def test_diag_equals_full_on_rows_with_one_non_zero_without_intercept(radius):
    """With at most one non-zero per row and no intercept, every g g^T is diagonal,
    so the full A is the diagonal one and the two runs are the same."""
    rng = np.random.default_rng(3)
    n, d = 40, 5
    X = np.zeros((n, d))
    # Values of one magnitude keep the scale m constant (4), so that the full
    # matrix's normalization is the diagonal's; the log loss takes linear steps
    # in both (a loss of the residual would follow the flow in the diagonal).
    X[np.arange(n), rng.integers(0, d, n)] = rng.choice([-2.0, 2.0], n)
    X[7] = 0.0
    y = np.where(rng.normal(size=n) > 0, 1.0, -1.0)
    common = dict(
        fit_intercept=False, radius=radius, gamma=0.7, eps=0.2, loss="log_loss"
    )
    full, loss_full = _run(X, y, matrix="full", **common)
    diag, loss_diag = _run(X, y, matrix="diag", **common)
    # The diagonal keeps eps + G, the full matrix eps + G / m.
    assert_allclose(diag["A"] - 0.2 * np.eye(6), 4 * (full["A"] - 0.2 * np.eye(6)))
    assert_allclose(diag["w"], full["w"], rtol=1e-12, atol=1e-14)
    assert loss_diag == pytest.approx(loss_full, rel=1e-12)
    if radius is not None:
        assert full["projections"][0] >= 5
    # With the intercept the gradients [x, 1] are not axis-aligned: they differ.
    common["fit_intercept"] = True
    full, _ = _run(X, y, matrix="full", **common)
    diag, _ = _run(X, y, matrix="diag", **common)
    assert not np.allclose(diag["w"], full["w"], rtol=1e-3)


# --------------------------------------------------------------------------------------
# Rounds, outputs, calls
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("matrix", MATRICES)
def test_zero_derivative_rounds_change_nothing(matrix):
    """c = 0 (zero weight, or a residual inside the epsilon tube) leaves the output
    exactly as it was, sketch fill count included; the loss still counts."""
    X, y, sw = _problem(4, n=12, d=3)
    kw = dict(matrix=matrix, sketch_size=2, loss="epsilon_insensitive", epsilon=0.3)
    st, _ = _run(X[:10], y[:10], sw[:10], **kw)
    # Row A: weight 0.  Row B: target = its current prediction (inside the tube).
    x_b = X[10]
    y_b = st["w"][0] @ np.append(x_b, 1.0) + 0.1
    st2, loss2 = _run(
        np.vstack([X[11], x_b]), [y[11] + 5.0, y_b], [0.0, 3.0], state=st, **kw
    )
    for key in st:
        if key != "scale_sums":
            assert_array_equal(st2[key], st[key], err_msg=key)
    # The scale counts row B's values (weight 3), not row A's (weight 0).
    assert_allclose(
        st2["scale_sums"],
        st["scale_sums"] + [3 * np.sum(x_b**2), 3 * np.count_nonzero(x_b)],
    )
    assert loss2 == 0.0
    # Sanity: the same rows with weights do change the state.
    st3, loss3 = _run(
        np.vstack([X[11], x_b]), [y[11] + 5.0, y_b + 2.0], [1.0, 1.0], state=st, **kw
    )
    assert not np.array_equal(st3["w"], st["w"])
    assert loss3 > 0.0


@pytest.mark.parametrize("matrix", MATRICES)
def test_empty_row_without_intercept(matrix):
    """x = 0, no intercept: c != 0 but g = 0, so nothing changes, the sketch
    included: a zero gradient takes no sketch row (and causes no shrink)."""
    X, y, sw = _problem(5, n=10, d=3)
    kw = dict(matrix=matrix, sketch_size=3, fit_intercept=False)
    st, _ = _run(X, y, sw, **kw)
    if matrix == "sketch":  # fill the buffer, which a zero row would then shrink
        while st["fill"][0] < 6:
            st, _ = _run(X[:1] + 1.0, y[:1], state=st, **kw)
    st2, loss2 = _run(np.zeros((1, 3)), [4.0], state=st, **kw)
    assert loss2 == 8.0
    for key in st:
        assert_array_equal(st2[key], st[key], err_msg=key)


@pytest.mark.parametrize("matrix", MATRICES)
def test_no_intercept_keeps_the_intercept_coordinate_inert(matrix):
    X, y, sw = _problem(6, n=30, d=4)
    st, _ = _run(X, y, sw, matrix=matrix, sketch_size=2, fit_intercept=False, eps=0.4)
    assert np.all(st["w"][:, -1] == 0.0)
    assert np.all(st["A"][:, -1, -1] == 0.4)
    assert np.all(st["A"][:, -1, :-1] == 0.0)
    assert np.any(st["w"][:, :-1] != 0.0)
    with_b, _ = _run(X, y, sw, matrix=matrix, sketch_size=2, eps=0.4)
    assert with_b["w"][0, -1] != 0.0


@pytest.mark.parametrize("matrix", MATRICES)
@pytest.mark.parametrize("radius", [None, 0.6])
def test_calls_continue_from_the_returned_state(matrix, radius):
    X, y, sw = _problem(8, n=40, d=4, kind="multiclass")
    kw = dict(n_outputs=3, loss="log_loss", matrix=matrix, sketch_size=2, radius=radius)
    whole, loss_whole = _run(X, y, sw, **kw)
    st, total = None, 0.0
    for a, b in [(0, 1), (1, 9), (9, 10), (10, 33), (33, 40)]:
        st, part = _run(X[a:b], y[a:b], sw[a:b], state=st, **kw)
        total += part
    for key in whole:
        assert_allclose(st[key], whole[key], rtol=1e-13, atol=1e-15, err_msg=key)
    assert total == pytest.approx(loss_whole, rel=1e-13)
    # The state passed in is not modified.
    before = {key: value.copy() for key, value in st.items()}
    _run(X[:5], y[:5], sw[:5], state=st, **kw)
    for key in st:
        assert_array_equal(st[key], before[key])


def test_order_visits_rows_in_that_order():
    X, y, sw = _problem(9, n=20, d=3)
    order = np.random.default_rng(0).permutation(20)
    order = np.concatenate([order, order[:7]])
    a, loss_a = _run(X, y, sw, order=order, matrix="sketch", sketch_size=2)
    b, loss_b = _run(X[order], y[order], sw[order], matrix="sketch", sketch_size=2)
    for key in a:
        assert_array_equal(a[key], b[key])
    assert loss_a == loss_b


@pytest.mark.parametrize("matrix", MATRICES)
@pytest.mark.parametrize("loss", ["log_loss", "squared_hinge"])
def test_multiclass_outputs_are_independent_one_vs_rest_problems(matrix, loss):
    X, y, sw = _problem(10, n=30, d=4, kind="multiclass")
    kw = dict(loss=loss, matrix=matrix, sketch_size=2, radius=0.5, gamma=0.3)
    st, loss_all = _run(X, y, sw, n_outputs=3, **kw)
    total = 0.0
    for k in range(3):
        yk = np.where(y == k, 1.0, -1.0)
        one, part = _run(X, yk, sw, n_outputs=1, **kw)
        total += part
        for key in st:
            if key == "scale_sums":  # the rows', shared by the outputs
                assert_array_equal(st[key], one[key], err_msg=key)
            else:
                assert_array_equal(st[key][k], one[key][0], err_msg=key)
    assert loss_all == pytest.approx(total, rel=1e-13)
    assert np.all(st["projections"] > 0)


def test_loss_sum_uses_pre_update_scores():
    X, y, sw = _problem(11, n=15, d=3)
    trace = []
    st, loss_sum = _run(X, y, sw, loss="huber", epsilon=0.5, trace=trace)
    # Replay: the weights before each round are the previous record's w.
    w = np.zeros(4)
    expected = 0.0
    for i in range(15):
        r = y[i] - np.append(X[i], 1.0) @ w
        expected += sw[i] * (0.5 * r * r if abs(r) <= 0.5 else 0.5 * abs(r) - 0.125)
        rec = [t for t in trace if t["row"] == i]
        if rec:
            w = rec[0]["w"]
    assert loss_sum == pytest.approx(expected, rel=1e-13)
    assert_array_equal(w, st["w"][0])


def test_full_matrix_is_eps_plus_sum_of_outer_products():
    X, y, sw = _problem(12, n=30, d=4)
    trace = []
    st, _ = _run(X, y, sw, eps=0.25, radius=0.9, trace=trace)
    H = np.array([r["h_hat"] for r in trace])
    assert_allclose(st["A"][0], 0.25 * np.eye(5) + H.T @ H, rtol=1e-12)
    # h = g / sqrt(s): the row weight counts once in A, as repeated rows would.
    for r in trace:
        assert_allclose(r["h"] * np.sqrt(sw[r["row"]]), r["g"], rtol=1e-15)
    st_d, _ = _run(X, y, sw, eps=0.25, matrix="diag")
    assert np.all(np.diag(st_d["A"][0]) > 0.25)


def test_initial_state_and_bad_arguments():
    st = initial_state(2, 3, "sketch", 0.5, 4)
    assert st["w"].shape == (2, 4)
    assert_array_equal(st["A"][1], 0.5 * np.eye(4))
    assert st["S"].shape == (2, 8, 4)
    assert_array_equal(st["fill"], [0, 0])
    assert "S" not in initial_state(1, 3, "full", 1.0)
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], matrix="low_rank")
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], loss="hinge")
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], gamma=0.0)
    with pytest.raises(ValueError):
        _run([[1.0]], [1.0], state=initial_state(1, 2, "full", 1.0))
