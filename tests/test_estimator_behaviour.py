"""What fit does around the kernel: passes, early stopping, verbose, probabilities.

All of it is the shared core, so every test runs for every algorithm in
``estimators.ALGORITHMS``.
"""

import re
import warnings

import numpy as np
import pytest
from estimators import ALGORITHMS, make
from scipy.special import expit
from sklearn.datasets import make_blobs, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from sk_adaprox._kernels.common import STATUS_OK


def _blobs(n_classes=2, seed=0):
    X, y = make_blobs(300, n_features=5, centers=n_classes, random_state=seed)
    return StandardScaler().fit_transform(X), y


def _scripted_losses(monkeypatch, estimator_class, mean_losses):
    """Make every pass of ``estimator_class`` report the next of ``mean_losses``
    (rows have weight 1). The class's own attribute hides the ``_run_pass`` it
    inherits from its algorithm mixin, whichever that is."""
    script = iter(mean_losses)

    def fake_pass(self, X, targets, row_weights, order, row_scores):
        return next(script) * row_weights.sum(), order.shape[0], STATUS_OK

    monkeypatch.setattr(estimator_class, "_run_pass", fake_pass)


@pytest.mark.parametrize(
    "mean_losses, tol, n_iter_no_change, expected_passes",
    [
        # improvements of 0.5, then < tol three times: stop after pass 5
        ([1.0, 0.5, 0.4999, 0.4998, 0.4997, 0.1], 1e-3, 3, 5),
        # an improvement > tol resets the count
        ([1.0, 0.9995, 0.5, 0.4999, 0.4998, 0.4997, 0.4], 1e-3, 3, 6),
        # a worse pass counts as no improvement, and best loss is kept
        ([1.0, 2.0, 1.5, 0.9999, 0.3, 0.2], 1e-3, 3, 4),
        ([1.0, 0.5, 0.25, 0.125], None, 3, 4),  # tol=None: all max_iter passes
    ],
)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_early_stopping_rule(
    monkeypatch, algorithm, mean_losses, tol, n_iter_no_change, expected_passes
):
    _scripted_losses(monkeypatch, ALGORITHMS[algorithm].classifier, mean_losses)
    X, y = _blobs()
    clf = make(
        algorithm,
        "classifier",
        tol=tol,
        n_iter_no_change=n_iter_no_change,
        max_iter=len(mean_losses),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    assert clf.n_iter_ == expected_passes
    assert clf.t_ == expected_passes * X.shape[0]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_convergence_warning_only_when_max_iter_is_the_reason(algorithm):
    X, y = _blobs()
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        make(algorithm, "classifier", max_iter=2, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        make(algorithm, "classifier", max_iter=2, tol=None, random_state=0).fit(X, y)
        clf = make(algorithm, "classifier", random_state=0).fit(X, y)
        make(algorithm, "classifier").partial_fit(X, y, classes=[0, 1])
    assert 1 < clf.n_iter_ < 1000


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_verbose_prints_one_line_per_pass(algorithm, capsys):
    X, y = _blobs(3)
    params = dict(max_iter=4, tol=None, random_state=0)
    clf = make(algorithm, "classifier", verbose=1, **params).fit(X, y)
    lines = capsys.readouterr().out.strip().splitlines()
    pattern = (
        r"-- Epoch (\d+): 300 rows, average loss ([0-9.e+-]+), (\d+) non-zero "
        r"weights, [0-9.]+ s"
    )
    assert len(lines) == 4
    parsed = [re.fullmatch(pattern, line) for line in lines]
    assert all(parsed), lines
    assert [int(m.group(1)) for m in parsed] == [1, 2, 3, 4]
    assert int(parsed[-1].group(3)) == np.count_nonzero(clf.coef_)
    losses = [float(m.group(2)) for m in parsed]
    assert losses[-1] < losses[0]  # the progressive loss falls on easy blobs
    make(algorithm, "classifier", max_iter=2, tol=None).fit(X, y)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_t_and_n_iter_bookkeeping(algorithm):
    X, y = _blobs()
    clf = make(algorithm, "classifier", max_iter=3, tol=None, random_state=0)
    clf.fit(X, y)
    assert (clf.n_iter_, clf.t_) == (3, 900)
    clf.partial_fit(X[:10], y[:10])
    assert (clf.n_iter_, clf.t_) == (1, 910)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge", "squared_error"])
def test_no_probabilities_for_margin_losses(loss, algorithm):
    X, y = _blobs()
    clf = make(algorithm, "classifier", loss=loss, random_state=0).fit(X, y)
    assert not hasattr(clf, "predict_proba")
    assert not hasattr(clf, "predict_log_proba")
    with pytest.raises(AttributeError) as excinfo:
        clf.predict_proba(X)
    assert f"not available for loss='{loss}'" in str(excinfo.value.__cause__)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_log_loss_probabilities(algorithm):
    X, y = _blobs()
    clf = make(algorithm, "classifier", random_state=0).fit(X, y)
    assert clf.loss == "log_loss"  # the default of every classifier
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba[:, 1], expit(clf.decision_function(X)))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(clf.predict_log_proba(X), np.log(proba))

    X3, y3 = _blobs(4)
    clf3 = make(algorithm, "classifier", random_state=0).fit(X3, y3)
    proba3 = clf3.predict_proba(X3)
    one_vs_rest = expit(clf3.decision_function(X3))
    np.testing.assert_allclose(proba3, one_vs_rest / one_vs_rest.sum(1, keepdims=True))
    assert (clf3.classes_[proba3.argmax(1)] == clf3.predict(X3)).all()
    assert clf3.score(X3, y3) > 0.95


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_modified_huber_probabilities(algorithm):
    X, y = _blobs()
    clf = make(algorithm, "classifier", loss="modified_huber", random_state=0)
    clf.fit(X, y)
    expected = (np.clip(clf.decision_function(X), -1, 1) + 1) / 2
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], expected)
    X4, y4 = _blobs(4)
    clf4 = make(algorithm, "classifier", loss="modified_huber", random_state=0)
    proba = clf4.fit(X4, y4).predict_proba(X4)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (proba >= 0).all()


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_balanced_class_weight_equals_the_explicit_weights(algorithm):
    X, y = make_classification(400, 8, weights=[0.8, 0.2], random_state=0)
    balanced = make(algorithm, "classifier", class_weight="balanced", random_state=0)
    balanced.fit(X, y)
    counts = np.bincount(y)
    explicit = {c: len(y) / (2 * counts[c]) for c in (0, 1)}
    manual = make(algorithm, "classifier", class_weight=explicit, random_state=0)
    manual.fit(X, y)
    np.testing.assert_allclose(balanced.coef_, manual.coef_, rtol=1e-12)
    unweighted = make(algorithm, "classifier", random_state=0).fit(X, y)
    # Up-weighting the minority class predicts it more often.
    assert (balanced.predict(X) == 1).sum() > (unweighted.predict(X) == 1).sum()


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_regressor_fits_a_linear_model(algorithm):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 6))
    true_coef = np.array([1.0, -2.0, 0.0, 0.5, 0.0, 3.0])
    y = X @ true_coef + 0.7 + 0.01 * rng.normal(size=2000)
    # AdaGrad and FTRL at a step size suited to this target scale; ONS at its
    # defaults, chosen for standardized data.
    step_size = None if algorithm.startswith("ons") else 0.5
    reg = make(algorithm, "regressor", step_size=step_size, random_state=0).fit(X, y)
    np.testing.assert_allclose(reg.coef_, true_coef, atol=0.02)
    assert reg.intercept_[0] == pytest.approx(0.7, abs=0.02)
    assert reg.coef_.shape == (6,) and reg.intercept_.shape == (1,)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_reported_loss_is_the_mean_per_row_and_output(algorithm, monkeypatch, capsys):
    X, y = _blobs(3)
    loss_sums = []
    estimator_class = ALGORITHMS[algorithm].classifier
    original = estimator_class._run_pass

    def recording_pass(self, *args):
        result = original(self, *args)
        loss_sums.append(result[0])
        return result

    monkeypatch.setattr(estimator_class, "_run_pass", recording_pass)
    params = dict(verbose=1, max_iter=2, tol=None, random_state=0)
    make(algorithm, "classifier", **params).fit(X, y)
    assert len(loss_sums) == 2
    printed = re.findall(r"average loss ([0-9.e+-]+)", capsys.readouterr().out)
    expected = [loss_sum / (X.shape[0] * 3) for loss_sum in loss_sums]
    np.testing.assert_allclose([float(v) for v in printed], expected, rtol=1e-5)
