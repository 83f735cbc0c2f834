"""``loss="multinomial"``: every classifier against the literal references with an
explicit softmax gradient (reference_adagrad.row_loss_and_derivatives), and the
behaviour around it: probabilities, the binary case, threads, candidates,
streams and the poor-fit warning."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from problems import epoch_orders, sparse_problem
from reference_adagrad import reference_adagrad, row_loss_and_derivatives
from reference_coin import normalized_coef, reference_normalized_coin
from reference_ftrl import reference_ftrl
from reference_ons import coef_and_intercept, reference_ons
from scipy.special import softmax
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

from sk_adaprox import (
    AdaGradClassifier,
    CoinBettingClassifier,
    FTRLClassifier,
    ONSClassifier,
)
from sk_adaprox.exceptions import PoorFitWarning

RTOL = 1e-8

# Each algorithm at fixed parameters: the estimator's keyword arguments, and a
# function running the reference over (X, targets, row_weights, order, K,
# fit_intercept) that returns (coef, intercept).


def _adagrad(update, l1):
    params = dict(update=update, eta=0.3, delta=0.1, l1=l1, l2=0.01)

    def reference(X, targets, weights, order, K, fit_intercept):
        state, _ = reference_adagrad(
            X, targets, weights, n_outputs=K, loss="multinomial",
            fit_intercept=fit_intercept, order=order, **params,
        )  # fmt: skip
        return state["coef"], state["intercept"]

    return AdaGradClassifier, params, reference


def _ftrl():
    params = dict(alpha=0.3, beta=0.5, l1=0.01, l2=0.02)

    def reference(X, targets, weights, order, K, fit_intercept):
        # fit's pass p weighs l1 and l2 by p (they weigh the loss summed over
        # the data, and z sums p passes of it; tests/test_ftrl_vs_reference.py).
        state = None
        passes = np.split(order, max(1, order.shape[0] // X.shape[0]))
        for number, pass_order in enumerate(passes, start=1):
            state, _ = reference_ftrl(
                X, targets, weights, n_outputs=K, loss="multinomial",
                fit_intercept=fit_intercept, order=pass_order, state=state,
                alpha=0.3, beta=0.5, l1=0.01 * number, l2=0.02 * number,
            )  # fmt: skip
        return state["coef"], state["intercept"]

    return FTRLClassifier, params, reference


def _coin():
    params = dict(initial_wealth=2.0)

    def reference(X, targets, weights, order, K, fit_intercept):
        state, _, _ = reference_normalized_coin(
            X, targets, weights, n_outputs=K, loss="multinomial",
            fit_intercept=fit_intercept, order=order, **params,
        )  # fmt: skip
        coef, intercept = normalized_coef(state, 2.0)
        return coef, intercept if fit_intercept else np.zeros_like(intercept)

    return CoinBettingClassifier, params, reference


def _ons(matrix, l1=0.0):
    params = dict(matrix=matrix, gamma=0.5, eps=2.0, l1=l1)
    if matrix == "sketch":
        params["sketch_size"] = 3

    def reference(X, targets, weights, order, K, fit_intercept):
        state, _ = reference_ons(
            X, targets, weights, n_outputs=K, loss="multinomial",
            fit_intercept=fit_intercept, order=order, **params,
        )  # fmt: skip
        return coef_and_intercept(state)

    return ONSClassifier, params, reference


ALGORITHMS = {
    "adagrad_md": lambda: _adagrad("mirror_descent", 0.01),
    "adagrad_da": lambda: _adagrad("dual_averaging", 0.01),
    "ftrl": _ftrl,
    "coin": _coin,
    "ons_diag": lambda: _ons("diag", l1=0.01),
    "ons_full": lambda: _ons("full"),
    "ons_sketch": lambda: _ons("sketch"),
}


def _problem(n_classes=4, seed=0):
    X = sparse_problem(n_samples=60, n_features=12, seed=seed)
    rng = np.random.default_rng(seed + 1)
    # Labels that depend on the features, so that the model learns something.
    scores = X @ rng.normal(size=(X.shape[1], n_classes)) * 3.0
    y = scores.argmax(axis=1)
    y[: n_classes * 2] = np.arange(n_classes * 2) % n_classes  # every class seen
    weights = rng.uniform(0.2, 2.0, X.shape[0])
    return X, y, weights


def _assert_close(actual, expected, name):
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(
        actual, expected, rtol=RTOL, atol=RTOL * scale, err_msg=name
    )


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_fit_matches_the_literal_softmax_reference(algorithm, fit_intercept):
    estimator_class, params, reference = ALGORITHMS[algorithm]()
    X, y, weights = _problem()
    model = estimator_class(
        loss="multinomial",
        fit_intercept=fit_intercept,
        max_iter=3,
        tol=None,
        random_state=7,
        **params,
    ).fit(X, y, sample_weight=weights)
    order = epoch_orders(X.shape[0], 3, shuffle=True, random_state=7)
    coef, intercept = reference(
        X.toarray(), y.astype(float), weights, order, 4, fit_intercept
    )
    assert model.t_ == order.shape[0]
    _assert_close(model.coef_, coef, "coef_")
    _assert_close(model.intercept_, intercept, "intercept_")


@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_partial_fit_chunks_match_the_reference_after_every_call(algorithm):
    estimator_class, params, reference = ALGORITHMS[algorithm]()
    X, y, weights = _problem(n_classes=3, seed=4)
    model = estimator_class(loss="multinomial", **params)
    for start, stop in [(0, 1), (1, 9), (9, 30), (30, 60)]:
        model.partial_fit(
            X[start:stop], y[start:stop], classes=[0, 1, 2],
            sample_weight=weights[start:stop],
        )  # fmt: skip
        coef, intercept = reference(
            X[:stop].toarray(), y[:stop].astype(float), weights[:stop],
            np.arange(stop), 3, True,
        )  # fmt: skip
        _assert_close(model.coef_, coef, f"coef_ after row {stop}")
        _assert_close(model.intercept_, intercept, f"intercept_ after row {stop}")


def test_reference_softmax_is_the_gradient_of_its_loss():
    # The reference's own check: derivatives by central differences.
    p = np.array([0.3, -1.2, 2.0, 0.1])
    value, derivatives = row_loss_and_derivatives("multinomial", p, 2.0, 4)
    assert value == pytest.approx(-np.log(softmax(p)[2]), rel=1e-14)
    for k in range(4):
        step = np.zeros(4)
        step[k] = 1e-6
        up, _ = row_loss_and_derivatives("multinomial", p + step, 2.0, 4)
        down, _ = row_loss_and_derivatives("multinomial", p - step, 2.0, 4)
        assert derivatives[k] == pytest.approx((up - down) / 2e-6, rel=1e-7)


def test_two_classes_are_the_logistic_loss_to_the_bit():
    X, y, weights = _problem(n_classes=2)
    for estimator_class, params, _ in (
        ALGORITHMS[name]() for name in ("adagrad_da", "ftrl", "coin", "ons_diag")
    ):
        fitted = [
            estimator_class(
                loss=loss, max_iter=3, tol=None, random_state=0, **params
            ).fit(X, y, sample_weight=weights)
            for loss in ("multinomial", "log_loss")
        ]
        assert fitted[0].coef_.shape == (1, X.shape[1])
        np.testing.assert_array_equal(fitted[0].coef_, fitted[1].coef_)
        np.testing.assert_array_equal(
            fitted[0].predict_proba(X), fitted[1].predict_proba(X)
        )


def test_predict_proba_is_the_softmax_of_the_scores():
    X, y, _ = _problem()
    model = AdaGradClassifier(loss="multinomial", random_state=0).fit(X, y)
    scores = model.decision_function(X)
    np.testing.assert_allclose(model.predict_proba(X), softmax(scores, axis=1))
    np.testing.assert_allclose(
        model.predict_log_proba(X), np.log(softmax(scores, axis=1))
    )
    np.testing.assert_array_equal(model.predict(X), model.classes_[scores.argmax(1)])


def test_softmax_of_huge_scores_does_not_overflow():
    # Scores of 1e3 overflow exp; the kernel subtracts the largest first.
    X = sp.csr_matrix(np.array([[1e3, 0.0], [0.0, 1e3], [1e3, 1e3]]))
    y = np.array([0, 1, 2])
    model = FTRLClassifier(loss="multinomial", alpha=1.0, l1=0.0, max_iter=2, tol=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        # Three rows cannot beat their class frequencies: a poor fit, not a NaN.
        warnings.simplefilter("ignore", PoorFitWarning)
        model.fit(X, y)
        probabilities = model.predict_proba(X)
    assert np.all(np.isfinite(model.coef_))
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)


def test_close_to_multinomial_logistic_regression_at_convergence():
    # Many passes of a small-step multinomial model approach the multinomial
    # maximum likelihood fit with the same (weak) L2 penalty.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = (X @ rng.normal(size=(5, 3)) + rng.gumbel(size=(300, 3))).argmax(axis=1)
    reference = LogisticRegression(C=1e4, max_iter=10_000).fit(X, y)
    model = AdaGradClassifier(
        loss="multinomial", update="mirror_descent", eta=0.05, l1=0.0,
        average=True, max_iter=300, tol=None, random_state=0,
    ).fit(X, y)  # fmt: skip
    ovr = AdaGradClassifier(
        loss="log_loss", update="mirror_descent", eta=0.05, l1=0.0,
        average=True, max_iter=300, tol=None, random_state=0,
    ).fit(X, y)  # fmt: skip
    best = log_loss(y, reference.predict_proba(X))
    multinomial = log_loss(y, model.predict_proba(X))
    one_vs_rest = log_loss(y, ovr.predict_proba(X))
    assert multinomial == pytest.approx(best, abs=2e-3)
    assert one_vs_rest > multinomial + 5e-3  # renormalised sigmoids fit worse


@pytest.mark.parametrize("algorithm", ["adagrad_da", "ftrl", "ons_diag"])
def test_two_threads_train_the_model_of_one(algorithm):
    # A joint loss keeps the outputs together: n_jobs splits no outputs (the
    # test fails if it does: the outputs' blocks would train apart).
    estimator_class, _, _ = ALGORITHMS[algorithm]()
    rng = np.random.default_rng(3)
    X = sp.random(3000, 400, density=0.05, format="csr", random_state=rng)
    y = rng.integers(0, 5, 3000)
    models = [
        estimator_class(loss="multinomial", random_state=0, n_jobs=n_jobs, max_iter=3)
        for n_jobs in (1, 2)
    ]
    for model in models:
        model.fit(X, y)
    np.testing.assert_array_equal(models[0].coef_, models[1].coef_)
    np.testing.assert_array_equal(models[0].intercept_, models[1].intercept_)


def test_auto_candidates_compare_the_multinomial_loss_of_every_class():
    # One-vs-rest candidates are compared on the 4 most frequent classes only;
    # a joint loss cannot be split by classes, so all 6 are trained.
    rng = np.random.default_rng(5)
    X = sp.random(600, 50, density=0.1, format="csr", random_state=rng)
    y = rng.integers(0, 6, 600)
    ovr = AdaGradClassifier(random_state=0, max_iter=1).fit(X, y)
    assert len(ovr.candidate_classes_) == 4
    model = AdaGradClassifier(loss="multinomial", random_state=0, max_iter=1).fit(X, y)
    assert not hasattr(model, "candidate_classes_")
    assert len(model.candidate_losses_) == 16
    # The losses are the mean multinomial loss per row (not per output): on
    # random labels the best candidate stays near log(6), the loss of scores 0.
    assert model.candidate_losses_.min() == pytest.approx(np.log(6), abs=0.02)


def test_poor_fit_warning_uses_the_multinomial_baseline():
    # Huge steps on large features: worse than the class frequencies alone.
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.normal(scale=1e3, size=(400, 20)))
    y = rng.integers(0, 3, 400)
    with pytest.warns(PoorFitWarning, match="intercept alone"):
        FTRLClassifier(loss="multinomial", alpha=1e3, l1=0.0, max_iter=2, tol=None).fit(
            X, y
        )
    # Learnable data at sane steps: no warning.
    X, y, _ = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PoorFitWarning)
        FTRLClassifier(loss="multinomial", random_state=0).fit(X, y)


def test_streams_and_class_weight():
    X, y, weights = _problem(n_classes=3, seed=2)
    model = FTRLClassifier(loss="multinomial", alpha=0.3, l1=0.0, class_weight={0: 3})
    model.partial_fit(X[:30], y[:30], classes=[0, 1, 2])
    with pytest.raises(ValueError, match="not in classes_"):
        model.partial_fit(X[30:], np.full(30, 7))
    model.partial_fit(X[30:], y[30:])
    # class_weight multiplies the rows' gradients, as sample_weight does.
    plain = FTRLClassifier(loss="multinomial", alpha=0.3, l1=0.0)
    row_weights = np.where(y == 0, 3.0, 1.0)
    plain.partial_fit(X[:30], y[:30], classes=[0, 1, 2], sample_weight=row_weights[:30])
    plain.partial_fit(X[30:], y[30:], sample_weight=row_weights[30:])
    np.testing.assert_allclose(model.coef_, plain.coef_, rtol=1e-12)


@pytest.mark.parametrize("algorithm", ["adagrad_md", "ftrl", "ons_full"])
def test_a_row_that_overflows_the_scores_raises_and_keeps_the_model(algorithm):
    # Row 2's score overflows: the error names it, and the state before it is
    # kept (the reference over rows 0 and 1). (Coin betting's bets are bounded
    # by its wealth: tests/test_divergence.py overflows its gradient instead.)
    estimator_class, params, reference = ALGORITHMS[algorithm]()
    X = sp.csr_matrix(
        np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1e300, 1e300, 0.0], [1, 0, 0]])
    )
    y = np.array([0, 1, 2, 1])
    model = estimator_class(loss="multinomial", **params)
    model.partial_fit(X[:2], y[:2], classes=[0, 1, 2])
    with pytest.raises(ValueError, match="diverged"):
        model.partial_fit(X[2:], y[2:])
    coef, intercept = reference(X[:2].toarray(), y[:2].astype(float), np.ones(2),
                                np.arange(2), 3, True)  # fmt: skip
    _assert_close(model.coef_, coef, "coef_")
    _assert_close(model.intercept_, intercept, "intercept_")


def test_works_with_early_stopping_average_sparsify_and_progressive_predictions():
    from sk_adaprox import progressive_val_predict

    rng = np.random.default_rng(1)
    X = sp.random(900, 80, density=0.1, format="csr", random_state=rng)
    y = (X @ rng.normal(size=(80, 3))).argmax(axis=1)
    model = FTRLClassifier(
        loss="multinomial", early_stopping=True, average=True, random_state=0
    ).fit(X, y)
    assert 1 <= model.n_iter_ < 1000 and len(model.validation_losses_) >= 1
    # The validation loss is the multinomial loss per row (log 3 at scores 0).
    assert min(model.validation_losses_) < np.log(3)
    probabilities = model.predict_proba(X)
    model.sparsify()
    np.testing.assert_allclose(model.predict_proba(X), probabilities, rtol=1e-12)
    progressive = progressive_val_predict(
        FTRLClassifier(loss="multinomial", alpha=0.3, l1=0.0), X, y,
        classes=[0, 1, 2], method="predict_proba",
    )  # fmt: skip
    assert progressive.shape == (900, 3)
    np.testing.assert_allclose(progressive[0], 1.0 / 3.0)  # no row seen yet
    np.testing.assert_allclose(progressive.sum(axis=1), 1.0)
    # Each row's probabilities come from the model before that row: a model
    # trained on the first 500 rows predicts row 500 as progressive does.
    first = FTRLClassifier(loss="multinomial", alpha=0.3, l1=0.0)
    first.partial_fit(X[:500], y[:500], classes=[0, 1, 2])
    np.testing.assert_allclose(progressive[500], first.predict_proba(X[500])[0])


def test_data_parallel_shards_train_a_multinomial_model():
    rng = np.random.default_rng(2)
    X = sp.random(4000, 200, density=0.05, format="csr", random_state=rng)
    y = (X @ rng.normal(size=(200, 4))).argmax(axis=1)
    X_test, y_test = X[3000:], y[3000:]
    X, y = X[:3000], y[:3000]
    losses = []
    for shards in (None, 2):
        model = AdaGradClassifier(
            loss="multinomial", eta=0.3, l1=0.0, shards=shards, max_iter=5,
            tol=None, random_state=0,
        ).fit(X, y)  # fmt: skip
        losses.append(log_loss(y_test, model.predict_proba(X_test)))
    assert losses[1] < np.log(4) - 0.1  # learned
    assert losses[1] == pytest.approx(losses[0], abs=0.03)


def test_two_classes_warn_of_a_poor_fit_as_the_logistic_loss_does():
    from sk_adaprox._losses import baseline_loss

    targets = np.array([1.0, -1.0, 1.0, -1.0])
    weights = np.ones(4)
    assert baseline_loss("multinomial", 0.1, targets, weights, 1, True) == (
        baseline_loss("log_loss", 0.1, targets, weights, 1, True)
    )
    assert baseline_loss("multinomial", 0.1, targets, weights, 1, True) == (
        pytest.approx(np.log(2))
    )
