"""Parameters set to "auto": a new model's first pass tries every candidate
setting over the same rows and keeps the one of lowest progressive loss."""

import pickle

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from estimators import state_of
from sklearn.datasets import make_classification
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from sk_adaprox import (
    AdaGradClassifier,
    AdaGradRegressor,
    FTRLClassifier,
    ONSClassifier,
    progressive_val_predict,
)
from sk_adaprox._kernels.common import STATUS_NONFINITE_UPDATE
from sk_adaprox._state import is_on_small_pages
from sk_adaprox.datasets import make_rare_features

# Each estimator with its parameters set to "auto", and fixed ones.
AUTO = {
    "adagrad": (AdaGradClassifier, dict(update="auto", eta="auto", l1="auto"), {}),
    "ftrl": (FTRLClassifier, dict(alpha="auto", l1="auto"), {}),
    "ons_diag": (ONSClassifier, dict(l1="auto"), dict(matrix="diag")),
}


def _problem(n_samples=600, n_features=2000, seed=0):
    return make_rare_features(n_samples, n_features, random_state=seed)


def _log_loss(y, scores, classes):
    signs = np.where(y == classes[1], 1.0, -1.0)
    return float(np.mean(np.logaddexp(0.0, -signs * scores)))


@pytest.mark.parametrize("name", AUTO)
def test_candidate_losses_are_each_settings_progressive_loss(name):
    estimator_class, auto, fixed = AUTO[name]
    X, y = _problem()
    model = estimator_class(**auto, **fixed, max_iter=1, tol=None, shuffle=False)
    model.fit(X, y)
    grid_size = np.prod([len(model._auto_grids[p]) for p in auto])
    assert len(model.candidate_params_) == grid_size == model.candidate_losses_.size
    for params, loss in zip(
        model.candidate_params_, model.candidate_losses_, strict=True
    ):
        alone = estimator_class(**params, **fixed)
        scores = progressive_val_predict(
            alone, X, y, classes=[0, 1], method="decision_function"
        )
        assert loss == pytest.approx(_log_loss(y, scores, [0, 1]), rel=1e-10)
    best = int(np.argmin(model.candidate_losses_))
    assert model.chosen_params_ == model.candidate_params_[best]


@pytest.mark.parametrize("n_classes", [4, 6])
@pytest.mark.parametrize("name", AUTO)
def test_many_classes_compare_the_candidates_on_the_most_frequent(name, n_classes):
    """Above four classes (AdaGrad, FTRL) each candidate trains the one-vs-rest
    problems of the four most frequent classes only: its loss is the progressive
    loss those outputs have in a model of every class, and the model is the
    chosen setting's. ONS compares on every class."""
    estimator_class, auto, fixed = AUTO[name]
    X, y = make_classification(
        600,
        30,
        n_informative=12,
        n_classes=n_classes,
        weights=[0.3, 0.1, 0.25, 0.15, 0.12, 0.08][:n_classes],
        random_state=0,
    )
    X = StandardScaler().fit_transform(X)
    common = dict(max_iter=3, tol=None, shuffle=False, **fixed)
    model = estimator_class(**auto, **common).fit(X, y)
    classes = np.arange(n_classes)
    if n_classes > model._candidate_classes > 0:
        counts = np.bincount(y)
        compared = np.sort(np.argsort(-counts, kind="stable")[:4])
        np.testing.assert_array_equal(model.candidate_classes_, compared)
        assert list(compared) == [0, 2, 3, 4]
    else:
        compared = classes
        assert not hasattr(model, "candidate_classes_")
    signs = np.where(y[:, None] == compared[None, :], 1.0, -1.0)
    for params, loss in zip(
        model.candidate_params_, model.candidate_losses_, strict=True
    ):
        alone = estimator_class(**params, **fixed)
        scores = progressive_val_predict(
            alone, X, y, classes=classes, method="decision_function"
        )
        expected = np.mean(np.logaddexp(0.0, -signs * scores[:, compared]))
        assert loss == pytest.approx(expected, rel=1e-10)
    best = int(np.argmin(model.candidate_losses_))
    assert model.chosen_params_ == model.candidate_params_[best]
    plain = estimator_class(**model.chosen_params_, **common).fit(X, y)
    for attribute, value in state_of(plain).items():
        np.testing.assert_array_equal(getattr(model, attribute), value)


@pytest.mark.parametrize("early_stopping", [False, True])
@pytest.mark.parametrize("name", AUTO)
def test_the_model_is_the_chosen_settings_model(name, early_stopping):
    estimator_class, auto, fixed = AUTO[name]
    X, y = _problem()
    common = dict(
        max_iter=6, tol=None, early_stopping=early_stopping, random_state=3, **fixed
    )
    model = estimator_class(**auto, **common).fit(X, y)
    plain = estimator_class(**model.chosen_params_, **common).fit(X, y)
    for attribute, value in state_of(plain).items():
        np.testing.assert_array_equal(getattr(model, attribute), value)
    assert (model.t_, model.n_iter_) == (plain.t_, plain.n_iter_)
    np.testing.assert_array_equal(model.predict_proba(X), plain.predict_proba(X))
    # Training goes on with the chosen setting, and a new fit chooses again.
    model.partial_fit(X[:50], y[:50])
    plain.partial_fit(X[:50], y[:50])
    np.testing.assert_array_equal(model.coef_, plain.coef_)
    refit = pickle.loads(pickle.dumps(model)).fit(X[::-1], y[::-1])
    assert refit.t_ <= X.shape[0] * common["max_iter"]


def test_a_stream_keeps_every_candidate_for_its_first_thousand_rows():
    X, y = _problem(n_samples=1400)
    stream = AdaGradClassifier(eta="auto", l1="auto")
    batches = [slice(0, 300), slice(300, 700), slice(700, 1100), slice(1100, 1400)]
    predicted = []
    served_before = None
    for number, rows in enumerate(batches):
        if number == 0:
            predicted.append(
                progressive_val_predict(
                    stream, X[rows], y[rows], classes=[0, 1], method="decision_function"
                )
            )
        else:
            served_before = dict(stream.chosen_params_)
            predicted.append(
                progressive_val_predict(
                    stream, X[rows], y[rows], method="decision_function"
                )
            )
        # Candidates are kept (and the choice may change) until 1,000 rows.
        assert (stream._stream_choice is not None) == (stream.t_ < 1000)
        if number == 1:
            # The second batch was predicted by the candidate served before it.
            plain = AdaGradClassifier(**served_before)
            plain.partial_fit(X[:300], y[:300], classes=[0, 1])
            expected = progressive_val_predict(
                plain, X[300:700], y[300:700], method="decision_function"
            )
            np.testing.assert_array_equal(predicted[1], expected)
    # The choice is the lowest progressive loss over the first 1,100 rows, and
    # the model is that candidate's, trained on every batch.
    chosen = stream.chosen_params_
    plain = AdaGradClassifier(**chosen)
    plain.partial_fit(X[:300], y[:300], classes=[0, 1])
    for rows in batches[1:]:
        plain.partial_fit(X[rows], y[rows])
    np.testing.assert_array_equal(stream.coef_, plain.coef_)
    losses = []
    for params in stream.candidate_params_:
        alone = AdaGradClassifier(**params)
        scores = progressive_val_predict(
            alone, X[:1100], y[:1100], classes=[0, 1], method="decision_function"
        )
        losses.append(_log_loss(y[:1100], scores, [0, 1]))
    np.testing.assert_allclose(stream.candidate_losses_, losses, rtol=1e-10)
    assert stream.candidate_params_[int(np.argmin(losses))] == chosen


class _DivergesAtLargeSteps(AdaGradRegressor):
    """Reports divergence at row 5 for eta >= 0.3, as a real overflow would."""

    def _run_pass(self, X, targets, row_weights, order, row_scores):
        if self._param("eta") >= 0.3:
            return 0.0, 5, STATUS_NONFINITE_UPDATE
        return super()._run_pass(X, targets, row_weights, order, row_scores)


def test_a_diverging_candidate_is_left_out():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    y = X @ np.ones(5)
    model = _DivergesAtLargeSteps(eta="auto", max_iter=2, tol=None).fit(X, y)
    losses = dict(
        zip(
            [c["eta"] for c in model.candidate_params_],
            model.candidate_losses_,
            strict=True,
        )
    )
    assert np.isinf(losses[0.3]) and np.isinf(losses[1.0])
    assert np.isfinite(losses[0.03]) and np.isfinite(losses[0.1])
    assert model.chosen_params_ == {"eta": 0.1}
    assert model.t_ == 400
    everything_diverges = _DivergesAtLargeSteps(eta="auto", shuffle=False)
    everything_diverges._auto_grids = {"eta": (0.3, 1.0)}
    with pytest.raises(ValueError, match="diverged at row 5 "):
        everything_diverges.fit(X, y)


def test_the_compared_classes_are_those_with_the_most_rows():
    """By rows, not weights: under class_weight="balanced" every class weighs
    the same. Ties go to the first classes."""
    y = np.repeat([0, 1, 2, 3, 4, 5], [40, 10, 30, 20, 20, 5])
    X = np.random.default_rng(0).normal(size=(y.size, 5)) + y[:, None]
    for class_weight in (None, "balanced"):
        model = AdaGradClassifier(eta="auto", l1=0.0, class_weight=class_weight)
        model.fit(X, y)
        np.testing.assert_array_equal(model.candidate_classes_, [0, 2, 3, 4])


def test_a_choice_that_diverges_on_a_class_not_compared_is_made_on_every_class():
    """Six classes, hinge loss, one row of weight 1e300 (class 5, not among the
    four compared): only eta=1 survives it. The four compared classes prefer
    a setting that diverges on that row, so the choice is made again on every
    class, where the diverging settings drop out, as they did before classes
    were left out of the comparison."""
    rng = np.random.default_rng(7)
    y = rng.choice(6, size=300, p=[0.3, 0.25, 0.2, 0.15, 0.06, 0.04])
    X = rng.normal(size=(6, 8))[y] * 1.5 + rng.normal(size=(300, 8))
    sample_weight = np.ones(300)
    sample_weight[299 - int(rng.integers(0, 30))] = 1e300
    fixed = dict(loss="hinge", l1=0.0, shuffle=False, max_iter=1, tol=None)
    survivors = []
    for eta in AdaGradClassifier._auto_grids["eta"]:
        try:
            AdaGradClassifier(eta=eta, **fixed).fit(X, y, sample_weight=sample_weight)
            survivors.append(eta)
        except ValueError:
            pass
    assert survivors == [1.0]
    model = AdaGradClassifier(eta="auto", **fixed).fit(
        X, y, sample_weight=sample_weight
    )
    assert model.chosen_params_ == {"eta": 1.0}
    assert not hasattr(model, "candidate_classes_")
    assert np.isinf(model.candidate_losses_[:3]).all()
    every_class = AdaGradClassifier(eta="auto", **fixed)
    every_class._candidate_classes = 0
    every_class.fit(X, y, sample_weight=sample_weight)
    np.testing.assert_array_equal(model.coef_, every_class.coef_)


def test_auto_cannot_start_from_given_weights():
    X, y = _problem()
    with pytest.raises(ValueError, match="'auto'"):
        AdaGradClassifier(eta="auto").fit(X, y, coef_init=np.ones((1, X.shape[1])))


@pytest.mark.slow  # five fits on 15,000 x 100,000, three of them choosing parameters
def test_auto_finds_the_l1_that_rare_features_need():
    X, y = make_rare_features(20000, 100000, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=0, stratify=y
    )

    def auc(model):
        model.fit(X_train, y_train)
        return roc_auc_score(y_test, model.decision_function(X_test))

    former = auc(
        AdaGradClassifier(update="mirror_descent", eta=0.1, l1=0.0, random_state=0)
    )
    defaults = auc(AdaGradClassifier(random_state=0))
    everything = auc(
        AdaGradClassifier(update="auto", eta="auto", l1="auto", random_state=0)
    )
    # Measured: 0.833 for the former defaults (mirror descent, eta 0.1, no l1);
    # 0.918 for the defaults and for update="auto" too, both choosing dual
    # averaging with eta 0.3 and l1 1e-4 (the best of the grid, picked on the
    # test set, is 0.922).
    assert defaults > former + 0.05, (defaults, former)
    assert everything > former + 0.05, (everything, former)
    # Diagonal ONS (ONSClassifier()'s matrix on 100,000 features): 0.867
    # without l1, 0.922 with the l1 its first pass chooses (1e-4), which keeps
    # a third of the weights.
    ons = ONSClassifier(random_state=0)
    ons_without_l1 = ONSClassifier(l1=0.0, random_state=0)
    ons_auc, ons_without_l1_auc = auc(ons), auc(ons_without_l1)
    assert ons.matrix_ == "diag" and ons.chosen_params_ == {"l1": 1e-4}
    assert ons_auc > ons_without_l1_auc + 0.04, (ons_auc, ons_without_l1_auc)
    assert np.count_nonzero(ons.coef_) < 0.5 * np.count_nonzero(ons_without_l1.coef_)


def test_a_stream_whose_other_parameters_change_goes_on_with_the_served_candidate():
    """Any set_params while a stream chooses ends the choice: only the served
    candidate is brought to the new values (each other one would cost a sweep
    of its state), and it continues in ordinary memory."""
    X, y = _problem(n_samples=600)
    # Wide enough (2**18 columns, most never used) for states on small pages.
    X = sp.hstack([sp.csr_matrix(X), sp.csr_matrix((600, 2**18))], format="csr")
    stream = AdaGradClassifier()
    stream.partial_fit(X[:300], y[:300], classes=[0, 1])
    assert is_on_small_pages(stream._state)
    served = dict(stream.chosen_params_)
    stream.set_params(delta=0.5)
    stream.partial_fit(X[300:], y[300:])
    assert stream._stream_choice is None
    assert not is_on_small_pages(stream._state)
    plain = AdaGradClassifier(**served)
    plain.partial_fit(X[:300], y[:300], classes=[0, 1])
    plain.set_params(delta=0.5).partial_fit(X[300:], y[300:])
    np.testing.assert_array_equal(stream.coef_, plain.coef_)


def test_a_stream_saved_while_choosing_continues_from_a_read_only_load(tmp_path):
    X, y = _problem(n_samples=600)
    stream = FTRLClassifier()
    stream.partial_fit(X[:300], y[:300], classes=[0, 1])
    joblib.dump(stream, tmp_path / "stream.joblib")
    loaded = joblib.load(tmp_path / "stream.joblib", mmap_mode="r")
    for model in (stream, loaded):
        model.partial_fit(X[300:], y[300:])
    np.testing.assert_array_equal(loaded.coef_, stream.coef_)


def test_auto_set_after_training_started_is_refused_and_changes_nothing():
    X, y = _problem()
    model = AdaGradClassifier(eta=0.3, l1=0.0, max_iter=2, tol=None).fit(X, y)
    coef = model.coef_.copy()
    model.set_params(eta="auto")
    with pytest.raises(ValueError, match="eta='auto' was set after training"):
        model.partial_fit(X[:10], y[:10])
    np.testing.assert_array_equal(model.coef_, coef)
    model.fit(X, y)  # a new fit chooses
    assert set(model.chosen_params_) == {"eta"}
    model.set_params(eta=0.1).fit(X, y)
    assert not hasattr(model, "chosen_params_")


def test_a_stream_whose_auto_parameters_change_goes_on_with_the_served_candidate():
    X, y = _problem(n_samples=600)
    stream = AdaGradClassifier(eta="auto", l1="auto")
    stream.partial_fit(X[:300], y[:300], classes=[0, 1])
    served = dict(stream.chosen_params_)
    stream.set_params(l1=1e-3)  # eta stays "auto": its served value goes on
    stream.partial_fit(X[300:], y[300:])
    assert stream._stream_choice is None
    plain = AdaGradClassifier(**served)
    plain.partial_fit(X[:300], y[:300], classes=[0, 1])
    plain.set_params(l1=1e-3).partial_fit(X[300:], y[300:])
    np.testing.assert_array_equal(stream.coef_, plain.coef_)


def test_an_assignment_ends_a_streams_choice_and_persists(tmp_path):
    """Assigning a state attribute while a stream chooses keeps the served
    candidate, with the assigned values, also after a joblib round trip (which
    does not keep the model's state and its pool entry as one array) and on a
    read-only load."""
    X, y = _problem(n_samples=600)
    for load in (None, "r"):
        stream = FTRLClassifier()
        stream.partial_fit(X[:200], y[:200], classes=[0, 1])
        joblib.dump(stream, tmp_path / "stream.joblib")
        loaded = joblib.load(tmp_path / "stream.joblib", mmap_mode=load)
        loaded.intercept_ = np.array([5.0])
        assert loaded._stream_choice is None
        loaded.partial_fit(X[200:201], y[200:201])
        assert loaded.intercept_[0] > 4.0
