"""``n_jobs``: real threads for the work whose result does not depend on them.

One-vs-rest outputs trained in blocks, the ``"auto"`` candidates of the first
pass run in groups, and large batches scored in blocks of rows, each on two real
threads (a spy records which thread ran each block), give the model and the
predictions of one thread to the bit. The losses of a pass are summed by blocks
of outputs, so they (and the candidates' losses) may differ in their last bits.
"""

import threading

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from joblib import parallel_config
from sklearn.model_selection import GridSearchCV
from sklearn.utils._param_validation import InvalidParameterError

from sk_adaprox import (
    AdaGradClassifier,
    CoinBettingClassifier,
    FTRLClassifier,
    FTRLRegressor,
    ONSClassifier,
    progressive_val_predict,
)
from sk_adaprox._candidates import CandidateSearch
from sk_adaprox._passes import PassLoop
from sk_adaprox._threads import n_threads, output_blocks, row_blocks
from sk_adaprox._training import TrainingState
from sk_adaprox.datasets import make_rare_features

pytestmark = pytest.mark.skipif(
    n_threads(2, 2) < 2, reason="this process may run on one core only"
)

MULTICLASS = {
    "adagrad_da": AdaGradClassifier(eta=0.3, l1=1e-4),
    "adagrad_md_l1l2": AdaGradClassifier(
        update="mirror_descent", eta=0.3, l1=1e-4, l2=1e-4
    ),
    "adagrad_md_average": AdaGradClassifier(
        update="mirror_descent", eta=0.3, l1=1e-4, average=10
    ),
    "ftrl": FTRLClassifier(alpha=0.3, l1=0.5),
    "ftrl_average": FTRLClassifier(alpha=0.3, l1=0.0, average=True),
    "ons_diag": ONSClassifier(matrix="diag"),
    "ons_diag_l1": ONSClassifier(matrix="diag", l1=1e-4),
    "ons_full": ONSClassifier(matrix="full"),
    "coin_normalized": CoinBettingClassifier(),
    "coin_cocob": CoinBettingClassifier(update="cocob"),
    "modified_huber": AdaGradClassifier(loss="modified_huber", eta=0.3, l1=0.0),
}


def _multiclass(n_samples=600, n_features=40, n_classes=5, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n_samples, n_features, density=0.2, random_state=seed, format="csr")
    truth = rng.normal(size=(n_features, n_classes))
    y = np.argmax(X @ truth + rng.normal(scale=0.3, size=(n_samples, n_classes)), 1)
    return X, y


def _spy_on_threads(monkeypatch, cls, name):
    """The worker threads that run ``cls.name`` (a spy around the real
    method). Each call in a worker thread waits for another at a barrier, so
    the two blocks of a split were running at the same time (one thread alone
    would time out there); calls in the test's own thread pass."""
    seen = set()
    original = getattr(cls, name)
    both_running = threading.Barrier(2, timeout=60)
    test_thread = threading.get_ident()

    def spy(self, *args, **kwargs):
        if threading.get_ident() != test_thread:
            seen.add(threading.get_ident())
            both_running.wait()
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, spy)
    return seen


@pytest.fixture
def block_threads(monkeypatch):
    """The threads that trained blocks of one-vs-rest outputs."""
    return _spy_on_threads(monkeypatch, PassLoop, "_output_block_pass")


@pytest.fixture
def group_threads(monkeypatch):
    """The threads that ran groups of candidates side by side."""
    return _spy_on_threads(monkeypatch, CandidateSearch, "_side_by_side_block")


@pytest.mark.parametrize("name", sorted(MULTICLASS))
def test_one_vs_rest_outputs_in_threads_give_one_threads_model(name, block_threads):
    X, y = _multiclass()
    base = MULTICLASS[name].set_params(max_iter=4, tol=None, random_state=0)
    one = base.__class__(**{**base.get_params(), "n_jobs": 1}).fit(X, y)
    two = base.__class__(**{**base.get_params(), "n_jobs": 2}).fit(X, y)
    assert len(block_threads) >= 2
    assert two._training == one._training
    np.testing.assert_array_equal(two.coef_, one.coef_)
    np.testing.assert_array_equal(two.predict_proba(X), one.predict_proba(X))


@pytest.mark.parametrize(
    ("name", "reused"),
    [("adagrad_md_l1l2", True), ("coin_cocob", True), ("ftrl", False)],
)
def test_later_passes_train_the_blocks_the_pass_before_wrote_back(
    name, reused, monkeypatch, block_threads
):
    """A fit's later passes train the blocks of outputs the pass before wrote
    back, instead of copying them again, and still give one thread's model.
    Mirror descent with l1 keeps a value per feature (a lazy weight's round) in
    its blocks; FTRL's l1 grows with the passes, which rewrites its weights
    between passes, so its blocks are copied again."""
    asked = []
    original = TrainingState.outputs

    def spy(self, *args, reuse=None, **kwargs):
        asked.append(reuse is not None)
        return original(self, *args, reuse=reuse, **kwargs)

    monkeypatch.setattr(TrainingState, "outputs", spy)
    X, y = _multiclass()
    base = MULTICLASS[name].set_params(max_iter=3, tol=None, random_state=0)
    one = base.__class__(**{**base.get_params(), "n_jobs": 1}).fit(X, y)
    two = base.__class__(**{**base.get_params(), "n_jobs": 2}).fit(X, y)
    assert len(block_threads) >= 2
    assert asked == [False, False] + [reused] * 4
    assert two._training == one._training


@pytest.mark.parametrize(
    "name", ["adagrad_md_l1l2", "ftrl", "ons_diag", "coin_normalized"]
)
def test_a_stream_in_threads_predicts_and_learns_as_one_thread(name, block_threads):
    X, y = _multiclass(n_samples=400)
    models = [MULTICLASS[name].__class__(**MULTICLASS[name].get_params()) for _ in "ab"]
    models[1].set_params(n_jobs=2)
    predictions = [[], []]
    for start in range(0, 400, 100):
        rows = slice(start, start + 100)
        for model, predicted in zip(models, predictions, strict=True):
            predicted.append(
                progressive_val_predict(
                    model,
                    X[rows],
                    y[rows],
                    classes=np.arange(5),
                    method="predict_proba",
                )
            )
    assert len(block_threads) >= 2
    np.testing.assert_array_equal(np.vstack(predictions[1]), np.vstack(predictions[0]))
    assert models[1]._training == models[0]._training


@pytest.mark.parametrize("name", ["ons_full", "adagrad_md_l1l2"])
def test_a_memory_mapped_model_trains_its_blocks_as_one_thread(
    name, tmp_path, block_threads
):
    X, y = _multiclass()
    fitted = MULTICLASS[name].__class__(**MULTICLASS[name].get_params())
    joblib.dump(fitted.fit(X[:300], y[:300]), tmp_path / "model.joblib")
    models = [joblib.load(tmp_path / "model.joblib", mmap_mode="r") for _ in "ab"]
    models[1].set_params(n_jobs=2)
    for model in models:
        model.partial_fit(X[300:], y[300:])
    assert len(block_threads) >= 2
    assert models[1]._training == models[0]._training


def test_outputs_that_a_pass_couples_or_a_small_batch_stay_in_one_thread(
    block_threads,
):
    X, y = _multiclass()
    # ONS's projection onto the ball settles every output's lazy l1 steps.
    coupled = ONSClassifier(
        matrix="diag", l1=1e-3, radius=0.3, max_iter=3, tol=None, random_state=0
    )
    one = coupled.set_params(n_jobs=1).fit(X, y)._training.copy()
    assert coupled.set_params(n_jobs=2).fit(X, y)._training == one
    assert not block_threads
    # A batch with fewer non-zeros than features: copying the blocks would cost
    # more than the batch (and a stream's call is O(its non-zeros)).
    wide = sp.hstack([X, sp.csr_matrix((X.shape[0], 5_000))]).tocsr()
    stream = FTRLClassifier(alpha=0.3, l1=0.0, n_jobs=2)
    stream.partial_fit(wide[:20], y[:20], classes=np.arange(5))
    assert not block_threads


def test_a_diverging_block_stops_where_one_thread_stops():
    X, y = _multiclass()
    X = X.tolil()
    X[100, 3] = 1e200  # row 100's scores overflow
    X = X.tocsr()
    errors, states = [], []
    for n_jobs in (1, 2):
        model = AdaGradClassifier(eta=1.0, l1=0.0, shuffle=False, n_jobs=n_jobs)
        with pytest.raises(ValueError, match="diverged at row 100") as error:
            model.fit(X, y)
        errors.append(str(error.value))
        states.append(model._training)
    assert errors[0] == errors[1]
    assert states[0] == states[1]


def test_a_rejected_batch_leaves_a_threaded_model_as_it_was():
    X, y = _multiclass()
    model = FTRLClassifier(alpha=0.3, l1=0.5, n_jobs=2).fit(X, y)
    before = model._training.copy()
    bad = X.copy()
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.partial_fit(bad, y)
    assert model._training == before


@pytest.mark.slow
def test_large_batches_are_scored_in_blocks_of_rows_as_one_thread():
    X, y = make_rare_features(20_000, 5_000, random_state=0)
    assert X.nnz >= 4 * 2**17  # enough non-zeros for two threads
    for model in (
        FTRLClassifier(average=True),
        AdaGradClassifier(update="mirror_descent", l1=1e-5),
        CoinBettingClassifier(),
        FTRLRegressor(),
    ):
        model.fit(X, y)
        one = model.set_params(n_jobs=1).predict(X)
        scores = model.decision_function(X) if hasattr(model, "classes_") else one
        model.set_params(n_jobs=2)
        np.testing.assert_array_equal(model.predict(X), one)
        if hasattr(model, "classes_"):
            np.testing.assert_array_equal(model.decision_function(X), scores)


def test_the_candidates_run_in_groups_on_threads_as_in_one(group_threads):
    X, y = make_rare_features(3_000, 2_000, random_state=1)
    for cls in (AdaGradClassifier, FTRLClassifier):
        group_threads.clear()
        one = cls(max_iter=3, tol=None, random_state=0, n_jobs=1).fit(X, y)
        assert not group_threads
        two = cls(max_iter=3, tol=None, random_state=0, n_jobs=2).fit(X, y)
        assert len(group_threads) >= 2
        assert two.chosen_params_ == one.chosen_params_
        np.testing.assert_array_equal(two.candidate_losses_, one.candidate_losses_)
        assert two._training == one._training


def test_candidates_beyond_the_memory_cap_run_in_waves_as_in_one(group_threads):
    X, y = make_rare_features(2_000, 1_000, random_state=2)
    models = [FTRLClassifier(max_iter=1, tol=None, random_state=0) for _ in "ab"]
    for model, n_jobs in zip(models, (1, 2), strict=True):
        # One candidate's state fits the cap: 16 blocks of one, in waves of two.
        model._side_by_side_bytes = (X.shape[1] + 1) * 3 * 8
        model.set_params(n_jobs=n_jobs).fit(X, y)
    assert len(group_threads) >= 2
    assert models[1].chosen_params_ == models[0].chosen_params_
    assert models[1]._training == models[0]._training


@pytest.mark.parametrize("n_classes", [3, 6])
def test_multiclass_candidates_train_their_outputs_in_threads_as_in_one(
    n_classes, block_threads
):
    # 3 classes: every candidate on every class; 6: on the 4 most frequent.
    X, y = _multiclass(n_classes=n_classes)
    for cls in (AdaGradClassifier, FTRLClassifier):
        one = cls(max_iter=2, tol=None, random_state=0, n_jobs=1).fit(X, y)
        two = cls(max_iter=2, tol=None, random_state=0, n_jobs=2).fit(X, y)
        assert two.chosen_params_ == one.chosen_params_
        # Summed by blocks of outputs: the same up to the last bits.
        np.testing.assert_allclose(
            two.candidate_losses_, one.candidate_losses_, rtol=1e-13
        )
        assert two._training == one._training
    assert len(block_threads) >= 2


@pytest.mark.parametrize("bad", [0, 1.5, "2"])
def test_a_bad_n_jobs_is_scikit_learns_parameter_error(bad):
    X, y = _multiclass(n_samples=50)
    with pytest.raises(InvalidParameterError, match="n_jobs"):
        FTRLClassifier(n_jobs=bad).fit(X, y)


def test_none_follows_joblibs_configuration(block_threads):
    X, y = _multiclass(n_samples=100)
    FTRLClassifier(alpha=0.3, l1=0.0, max_iter=1, tol=None).fit(X, y)
    assert not block_threads  # None: one thread
    with parallel_config(n_jobs=2):
        FTRLClassifier(alpha=0.3, l1=0.0, max_iter=1, tol=None).fit(X, y)
    assert len(block_threads) >= 2


@pytest.mark.slow
def test_inside_a_grid_search_in_threads():
    X, y = _multiclass(n_samples=300)
    search = GridSearchCV(
        FTRLClassifier(l1=0.0, n_jobs=2, max_iter=3, tol=None, random_state=0),
        {"alpha": [0.1, 0.3]},
        cv=2,
        n_jobs=2,
    ).fit(X, y)
    alone = FTRLClassifier(
        l1=0.0, max_iter=3, tol=None, random_state=0, **search.best_params_
    )
    np.testing.assert_array_equal(search.best_estimator_.coef_, alone.fit(X, y).coef_)


def test_blocks_cover_every_row_and_output_once():
    indptr = np.array([0, 5, 5, 6, 20, 21, 30])
    blocks = row_blocks(indptr, 3)
    assert blocks[0][0] == 0 and blocks[-1][1] == 6
    assert all(a < b for a, b in blocks)
    assert all(b == c for (_, b), (c, _) in zip(blocks, blocks[1:], strict=False))
    assert output_blocks(5, 2) == [(0, 2), (2, 5)] or output_blocks(5, 2) == [
        (0, 3),
        (3, 5),
    ]
    assert output_blocks(3, 8) == [(0, 1), (1, 2), (2, 3)]


@pytest.mark.parametrize("n_outputs", [8, 9, 20, 21, 40, 100])
@pytest.mark.parametrize("count", [2, 3, 8])
def test_output_blocks_start_on_whole_vectors_of_outputs(n_outputs, count):
    # A block of 10 of 20 outputs cost 80 % of all 20 (slots not on 32 bytes);
    # blocks start at multiples of 4 outputs where there are enough of them.
    blocks = output_blocks(n_outputs, count)
    assert blocks[0][0] == 0 and blocks[-1][1] == n_outputs
    assert all(b == c for (_, b), (c, _) in zip(blocks, blocks[1:], strict=False))
    if n_outputs >= 4 * count:
        assert len(blocks) == count
        assert all(start % 4 == 0 for start, _ in blocks)
        share = n_outputs / count
        assert all(abs(stop - start - share) <= 4 for start, stop in blocks)


def test_twenty_outputs_split_into_twelve_and_eight():
    assert output_blocks(20, 2) == [(0, 12), (12, 20)]
