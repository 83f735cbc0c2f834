"""Training on Dask (sk_adaprox.dask) on a real LocalCluster of worker
processes: the merge of the workers' shards, the "auto" choice, predictions as
Dask arrays, bad input, and a worker killed between rounds."""

import os
import signal
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone, is_classifier
from sklearn.metrics import roc_auc_score

da = pytest.importorskip("dask.array", reason="the [dask] extra is not installed")
distributed = pytest.importorskip("distributed", reason="distributed is not installed")
dask_delayed = pytest.importorskip("dask", reason="dask is not installed").delayed
# sk_adaprox.dask imports Dask: these imports follow the skips above (E402).

import sk_adaprox.dask as sk_adaprox_dask  # noqa: E402
from sk_adaprox import (  # noqa: E402
    AdaGradClassifier,
    CoinBettingClassifier,
    FTRLClassifier,
    FTRLRegressor,
)
from sk_adaprox._increments import added, shard_increments  # noqa: E402
from sk_adaprox.dask import (  # noqa: E402
    DaskEstimator,
    _row_order_generators,
    _sent_slots,
    _tree_sum,
    _with_derived_slots,
)
from sk_adaprox.datasets import make_rare_features  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.wait_for_workers(2)
        yield client


@pytest.fixture(scope="module")
def problem():
    X, y = make_rare_features(n_samples=6_000, n_features=3_000, random_state=0)
    return X[:4_000], y[:4_000], X[4_000:], y[4_000:]


def _dask(X, y, rows_per_chunk=1_000):
    return (
        da.from_array(X, chunks=(rows_per_chunk, X.shape[1]), asarray=False),
        da.from_array(y, chunks=rows_per_chunk),
    )


def _expected_round(estimator, X, y, fitted):
    """One round from a zero state, computed locally: each worker's partitions
    trained apart in the order its RandomState gives (from the estimator's
    random_state), to be merged by the estimator's rule."""
    groups = fitted.worker_partitions_
    rngs = _row_order_generators(estimator.random_state, len(groups))
    models = []
    for partitions, rng in zip(groups, rngs, strict=True):
        rows = np.concatenate(
            [np.arange(p * 1_000, (p + 1) * 1_000) for p in partitions]
        )
        order = rng.permutation(rows.shape[0])
        local = clone(estimator)
        local.partial_fit(X[rows][order], y[rows][order], classes=np.unique(y))
        models.append(local)
    return models


@pytest.mark.parametrize(
    "estimator",
    [
        AdaGradClassifier(update="mirror_descent", eta=0.3, l1=0.0, random_state=0),
        AdaGradClassifier(update="dual_averaging", eta=0.3, l1=0.0, random_state=0),
        FTRLClassifier(alpha=0.1, l1=0.0, random_state=0),
    ],
    ids=["adagrad-md", "adagrad-da", "ftrl"],
)
def test_one_round_is_the_merge_of_the_workers_passes(client, problem, estimator):
    X, y, _, _ = problem
    dX, dy = _dask(X, y)
    fitted = DaskEstimator(estimator, max_iter=1).fit(dX, dy)
    model = fitted.to_local()
    shards = _expected_round(estimator, X, y, fitted)
    assert sorted(sum(fitted.worker_partitions_, [])) == [0, 1, 2, 3]
    assert model.t_ == X.shape[0]
    if len(shards) == 1:
        np.testing.assert_array_equal(model.coef_, shards[0].coef_)
        return
    # Two shards from zero: their sums of gradients and squares add up.
    slot = "sum_sq_grad_" if isinstance(estimator, AdaGradClassifier) else "n_"
    np.testing.assert_allclose(
        getattr(model, slot),
        getattr(shards[0], slot) + getattr(shards[1], slot),
        rtol=1e-12,
        atol=1e-300,
    )
    # Features one worker alone touched keep that worker's weight.
    touched = [np.abs(getattr(s, slot)).ravel() > 0 for s in shards]
    only_first = touched[0] & ~touched[1]
    assert only_first.any()
    np.testing.assert_allclose(
        model.coef_.ravel()[only_first], shards[0].coef_.ravel()[only_first], rtol=1e-9
    )


def test_a_multinomial_round_merges_the_workers_passes(client):
    # The multinomial loss couples a row's outputs, not the workers: a round is
    # still the merge of each worker's pass (FTRL: n summed, z's increments).
    X, y = make_rare_features(n_samples=4_000, n_features=2_000, n_classes=3,
                              random_state=1)  # fmt: skip
    estimator = FTRLClassifier(loss="multinomial", alpha=0.1, l1=0.0, random_state=0)
    fitted = DaskEstimator(estimator, max_iter=1).fit(*_dask(X, y))
    model = fitted.to_local()
    shards = _expected_round(estimator, X, y, fitted)
    assert model.coef_.shape == (3, X.shape[1])
    if len(shards) == 2:
        np.testing.assert_allclose(
            model.n_, shards[0].n_ + shards[1].n_, rtol=1e-12, atol=1e-300
        )
    else:
        np.testing.assert_array_equal(model.coef_, shards[0].coef_)
    probabilities = fitted.predict_proba(_dask(X[:500], y[:500], 250)[0]).compute()
    np.testing.assert_allclose(probabilities, model.predict_proba(X[:500]), rtol=1e-12)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)


def test_auto_defaults_are_chosen_over_every_worker(client, problem):
    X, y, X_test, y_test = problem
    dX, dy = _dask(X, y)
    fitted = DaskEstimator(AdaGradClassifier(random_state=0), max_iter=3).fit(dX, dy)
    model = fitted.to_local()
    assert model.chosen_params_ in fitted.candidate_params_
    assert len(fitted.candidate_losses_) == len(fitted.candidate_params_)
    best = fitted.candidate_params_[int(np.argmin(fitted.candidate_losses_))]
    assert model.chosen_params_ == best
    assert model.get_params()["eta"] == "auto"
    serial = AdaGradClassifier(max_iter=3, tol=None, random_state=0).fit(X, y)
    auc = roc_auc_score(y_test, model.decision_function(X_test))
    serial_auc = roc_auc_score(y_test, serial.decision_function(X_test))
    assert auc > serial_auc - 0.01


def test_predictions_are_lazy_dask_arrays_equal_to_the_local_model(client, problem):
    X, y, X_test, _ = problem
    dX, dy = _dask(X, y)
    fitted = DaskEstimator(FTRLClassifier(alpha=0.1), max_iter=2)
    fitted.fit(dX, dy)
    dX_test = da.from_array(X_test, chunks=(700, X.shape[1]), asarray=False)
    for method in ("predict", "predict_proba", "decision_function"):
        lazy = getattr(fitted, method)(dX_test)
        assert isinstance(lazy, da.Array)
        np.testing.assert_array_equal(
            lazy.compute(), getattr(fitted.to_local(), method)(X_test)
        )


def test_sparse_regression_with_sample_weight(client):
    # Sparse rows: the merge rule of two shards (their increments summed) is
    # sound where the workers' rows touch different features. Dense rows,
    # where every worker fits every coordinate, overshoot (docs/training.md).
    rng = np.random.default_rng(0)
    X = sp.random(6_000, 2_000, density=0.01, random_state=0, format="csr")
    X.data = rng.standard_normal(X.data.shape[0])
    y = 5.0 + X @ rng.normal(size=2_000) + 0.1 * rng.normal(size=6_000)
    weights = rng.uniform(0.5, 2.0, size=6_000)
    train = slice(0, 4_000)
    dX, dy = _dask(X[train], y[train])
    dw = da.from_array(weights[train], chunks=1_000)
    fitted = DaskEstimator(FTRLRegressor(random_state=0), max_iter=10)
    model = fitted.fit(dX, dy, dw).to_local()
    mean = np.average(y[train], weights=weights[train])
    assert model.target_offset_ == pytest.approx(mean, rel=1e-12)
    serial = FTRLRegressor(max_iter=10, tol=None).fit(
        X[train], y[train], sample_weight=weights[train]
    )
    test = slice(4_000, None)
    assert model.score(X[test], y[test]) > serial.score(X[test], y[test]) - 0.02


def test_refuses_what_cannot_be_merged_and_bad_input(client, problem):
    X, y, _, _ = problem
    dX, dy = _dask(X, y)
    with pytest.raises(ValueError, match="cannot be trained on Dask"):
        DaskEstimator(CoinBettingClassifier()).fit(dX, dy)
    with pytest.raises(ValueError, match="average"):
        DaskEstimator(AdaGradClassifier(average=True)).fit(dX, dy)
    with pytest.raises(ValueError, match="max_iter"):
        DaskEstimator(AdaGradClassifier(), max_iter=0).fit(dX, dy)
    with pytest.raises(TypeError, match="Dask array or DataFrame"):
        DaskEstimator(AdaGradClassifier()).fit(X, dy)
    column_chunks = da.from_array(X.toarray(), chunks=(1_000, 1_000))
    with pytest.raises(ValueError, match="chunked along rows only"):
        DaskEstimator(AdaGradClassifier()).fit(column_chunks, dy)
    with pytest.raises(ValueError, match="same row partitions"):
        DaskEstimator(AdaGradClassifier()).fit(dX, da.from_array(y, chunks=2_000))


def test_divergence_raises_a_clear_error(client):
    X = sp.csr_matrix(np.full((400, 3), 1e200))
    y = np.tile([0, 1], 200)
    dX, dy = _dask(X, y, rows_per_chunk=100)
    with pytest.raises(ValueError, match="diverged on a worker"):
        DaskEstimator(AdaGradClassifier(eta=1e300, l1=0.0), max_iter=1).fit(dX, dy)


class _KillsAWorkerMidRound(DaskEstimator):
    """Kills the process of one worker (SIGKILL; its nanny starts a new one)
    once round 2's training tasks are submitted: Dask computes the lost rows
    and tasks again."""

    def _round_submitted(self, n_round, futures):
        if n_round == 2:
            client = distributed.get_client()
            pids = client.run(os.getpid)
            os.kill(pids[sorted(pids)[0]], signal.SIGKILL)


def _cluster(n_workers):
    return distributed.LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
    )


def test_a_worker_killed_mid_round_gives_the_model_of_no_fault(problem, monkeypatch):
    X, y, _, _ = problem
    estimator = FTRLClassifier(alpha=0.1, l1=0.0, random_state=0)
    with _cluster(2) as cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(2)
        dX, dy = client.persist(list(_dask(X, y)))
        fitted = _KillsAWorkerMidRound(estimator, max_iter=3).fit(dX, dy)
        # The model of no fault, with the partitions grouped as the faulty fit
        # grouped them: the model depends on the grouping, and on a loaded
        # machine a task may run (and copy its block) on the other worker, so
        # that a later fit could find the partitions held otherwise.
        client.wait_for_workers(2)
        groups = fitted.worker_partitions_

        def the_faulty_fits_groups(client, parts, rebalance):
            workers = sorted(client.scheduler_info()["workers"])
            return list(zip(workers, groups, strict=False))

        monkeypatch.setattr(sk_adaprox_dask, "_balanced_groups", the_faulty_fits_groups)
        expected = DaskEstimator(estimator, max_iter=3).fit(dX, dy)
    assert fitted.worker_partitions_ == expected.worker_partitions_
    assert len(fitted.worker_partitions_) == 2
    model = fitted.to_local()
    assert model.t_ == 3 * X.shape[0]
    np.testing.assert_array_equal(model.coef_, expected.to_local().coef_)
    np.testing.assert_array_equal(model.intercept_, expected.to_local().intercept_)


@pytest.mark.parametrize(
    "estimator",
    [
        AdaGradClassifier(eta=0.3, l1=1e-4, random_state=0),
        FTRLClassifier(alpha=0.1, l1=0.1, random_state=0),
        FTRLRegressor(alpha=0.1, random_state=0),
    ],
    ids=["adagrad", "ftrl", "ftrl-regressor"],
)
def test_one_worker_reproduces_local_training_bit_for_bit(problem, estimator):
    X, y, _, _ = problem
    if not is_classifier(estimator):
        y = X @ np.linspace(-1.0, 1.0, X.shape[1]) + 3.0
    with _cluster(1) as cluster, distributed.Client(cluster):
        fitted = DaskEstimator(estimator, max_iter=3).fit(*_dask(X, y))
    local = clone(estimator).set_params(max_iter=3, tol=None).fit(X, y)
    model = fitted.to_local()
    assert model.t_ == local.t_
    np.testing.assert_array_equal(model.coef_, local.coef_)
    np.testing.assert_array_equal(model.intercept_, local.intercept_)


@pytest.mark.parametrize(
    "estimator",
    [
        FTRLClassifier(alpha=0.3, l1=1.0, l2=0.5, max_iter=2, tol=None),
        AdaGradClassifier(eta=0.3, l1=0.01, max_iter=2, tol=None),
    ],
    ids=["ftrl", "adagrad"],
)
def test_a_shard_sent_without_derived_slots_is_restored_exactly(estimator):
    # FTRL's weights are a closed form of z and n: a shard travels without
    # them (a third less traffic) and is rebuilt to the bit; AdaGrad's slots
    # are all needed and all sent.
    X, y = make_rare_features(600, 300, n_classes=3, random_state=0)
    model = clone(estimator).fit(X, y)
    training = model._training
    n_slots = training.array.shape[1]
    features = np.arange(0, 300, 7)
    sent = training.gather(features, _sent_slots(model, n_slots))
    restored = _with_derived_slots(model, sent, n_slots)
    assert restored.array.shape[1] == n_slots
    assert np.array_equal(restored.array, training.gather(features).array)
    derived = len(model._derived_slots())
    assert sent.array.shape[1] == n_slots - derived
    assert derived == (1 if isinstance(model, FTRLClassifier) else 0)
    assert np.count_nonzero(restored.array[:, 0]) > 0


TREE_ESTIMATORS = [
    AdaGradClassifier(update="dual_averaging", eta=0.3, l1=1e-4, random_state=0),
    AdaGradClassifier(update="mirror_descent", eta=0.3, l1=1e-4, random_state=0),
    FTRLClassifier(alpha=0.3, l1=1.0, random_state=0),
]
TREE_IDS = ["adagrad-da-l1", "adagrad-md-l1", "ftrl-l1"]


@pytest.mark.parametrize("estimator", TREE_ESTIMATORS, ids=TREE_IDS)
def test_summed_increments_merge_as_the_shards_states_do(estimator):
    # Each shard's part is sums (raw and converted increments, rounds); parts
    # add up pairwise and the rule reads the sums: two shards give the merge
    # of their states to the bit, more the same sums in another order.
    X, y = make_rare_features(3_000, 400, random_state=1)
    model = clone(estimator).set_params(max_iter=1, tol=None).fit(X[:600], y[:600])
    training = model._training
    rng = np.random.default_rng(0)
    shards, parts = [], []
    for k in range(3):
        rows = np.arange(600 + 800 * k, 1_400 + 800 * k)
        features = np.unique(X[rows].indices)
        before = training.gather(features)
        local = sp.csr_matrix(X[rows][:, features])
        worker = model._for_training(before.copy())
        targets, weights = worker._encode_labels(
            y[rows], np.ones(rows.shape[0]), model.classes_, False
        )
        order = rng.permutation(rows.shape[0])
        worker._run_pass(local, targets, weights, order, np.empty((0, 1)))
        after = worker._training
        after.t += rows.shape[0]
        shards.append((features, after))
        parts.append(shard_increments(model, features, before, after))
    # One shard that trained: its state (the common state plus its increments).
    alone = training.copy()
    alone.merge_sums(parts[0], model._merge_shards)
    rows = np.append(shards[0][0], X.shape[1])
    np.testing.assert_allclose(
        alone.array[rows], shards[0][1].array, rtol=1e-15, atol=1e-15
    )
    assert alone.t == shards[0][1].t
    for count in (2, 3):
        by_states, by_sums = training.copy(), training.copy()
        by_states.merge(shards[:count], model._merge_shards)
        total = added(parts[0], parts[1])
        if count == 3:
            total = added(total, parts[2])
        by_sums.merge_sums(total, model._merge_shards)
        assert by_sums.t == by_states.t
        if count == 2:
            np.testing.assert_array_equal(by_sums.array, by_states.array)
        else:
            np.testing.assert_allclose(
                by_sums.array, by_states.array, rtol=1e-12, atol=1e-15
            )


@pytest.mark.parametrize("estimator", TREE_ESTIMATORS, ids=TREE_IDS)
def test_four_workers_add_their_increments_in_a_tree(problem, estimator, monkeypatch):
    X, y, X_test, y_test = problem
    sums = []

    def counted_tree_sum(client, futures):
        sums.append(len(futures))
        return _tree_sum(client, futures)

    monkeypatch.setattr("sk_adaprox.dask._tree_sum", counted_tree_sum)
    with _cluster(4) as cluster, distributed.Client(cluster) as client:
        client.wait_for_workers(4)
        dX, dy = client.persist(_dask(X, y, rows_per_chunk=500))
        distributed.wait([dX, dy])
        # A first fit balances the partitions over the workers (moving some);
        # the two compared fits then group them alike.
        DaskEstimator(estimator, max_iter=1, rebalance=True).fit(dX, dy)
        sums.clear()
        tree = DaskEstimator(estimator, max_iter=2, rebalance=True).fit(dX, dy)
        assert len(sums) == 2 and sums[0] == len(tree.worker_partitions_) >= 3
        on_client = DaskEstimator(estimator, max_iter=2, rebalance=True)
        on_client._tree_from_groups = 99
        on_client.fit(dX, dy)
        assert len(sums) == 2  # merged by the client
    assert tree.worker_partitions_ == on_client.worker_partitions_
    # The same sums, added in a tree instead of one after another.
    np.testing.assert_allclose(
        tree.to_local().coef_, on_client.to_local().coef_, rtol=1e-10, atol=1e-13
    )
    assert tree.to_local().t_ == on_client.to_local().t_ == 2 * X.shape[0]


def test_dataframe_input_and_bad_partitions_name_the_partition(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2_000, 5))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    frame = dd.from_pandas(pd.DataFrame(X, columns=list("abcde")), npartitions=4)
    labels = dd.from_pandas(pd.Series(y), npartitions=4)
    estimator = AdaGradClassifier(eta=0.3, l1=0.0, random_state=0)
    fitted = DaskEstimator(estimator, max_iter=3).fit(frame, labels)
    assert fitted.to_local().n_features_in_ == 5
    proba = fitted.predict_proba(frame).compute()
    np.testing.assert_allclose(proba, fitted.to_local().predict_proba(X), rtol=1e-12)
    assert roc_auc_score(y, proba[:, 1]) > 0.95

    X_nan = X.copy()
    X_nan[1_700, 2] = np.nan  # in partition 3 of 4 (rows 1,500-1,999)
    dX_nan = da.from_array(X_nan, chunks=(500, 5))
    dy = da.from_array(y, chunks=500)
    with pytest.raises(ValueError, match=r"Partition 3 of the data: .*NaN"):
        DaskEstimator(estimator).fit(dX_nan, dy)
    narrow = da.concatenate(
        [
            da.from_array(X[:1_000], chunks=(500, 5)),
            da.from_delayed(
                dask_delayed(lambda: X[1_000:, :4])(), shape=(1_000, 5), dtype=float
            ),
        ]
    )
    with pytest.raises(ValueError, match=r"Partition 2 of the data: X has 4 features"):
        DaskEstimator(estimator).fit(narrow, da.from_array(y, chunks=(500, 500, 1_000)))


def test_svmlight_files_are_read_where_the_blocks_are(client, tmp_path, problem):
    from sklearn.datasets import dump_svmlight_file

    from sk_adaprox.dask import read_svmlight

    X, y, _, _ = problem
    path = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    dX, dy = read_svmlight(str(path), X.shape[1], blocksize=20_000)
    assert dX.numblocks[0] > 3  # blocks of 20 kB, cut at line ends
    blocks = dX.compute()
    np.testing.assert_array_equal(blocks.toarray(), X.toarray())
    np.testing.assert_array_equal(dy.compute(), y)
    fitted = DaskEstimator(FTRLClassifier(random_state=0), max_iter=2).fit(dX, dy)
    assert fitted.to_local().t_ == 2 * X.shape[0]


def test_text_hashed_per_partition(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    from sklearn.feature_extraction.text import HashingVectorizer

    from sk_adaprox.dask import transform_partitions

    words = np.array(["spam offer", "win cash now", "meeting at noon", "lunch today"])
    texts = pd.Series(words[np.arange(400) % 4])
    frame = dd.from_pandas(texts, npartitions=4)
    labels = dd.from_pandas(pd.Series((np.arange(400) % 4 < 2).astype(int)), 4)
    hasher = HashingVectorizer(n_features=2**12)
    X = transform_partitions(frame, hasher)
    assert X.shape[1] == 2**12
    np.testing.assert_array_equal(
        X.compute().toarray(), hasher.transform(texts).toarray()
    )
    fitted = DaskEstimator(AdaGradClassifier(random_state=0), max_iter=2)
    fitted.fit(X, labels.to_dask_array())
    assert (fitted.predict(X).compute() == labels.compute().to_numpy()).all()


def test_the_plain_estimators_work_inside_dask_ml_wrappers(client, problem):
    wrappers = pytest.importorskip(
        "dask_ml.wrappers", reason="dask-ml is not installed (README's test command)"
    )
    X, y, X_test, _ = problem
    dX, dy = _dask(X, y)
    estimator = FTRLClassifier(alpha=0.1, random_state=0)
    incremental = wrappers.Incremental(clone(estimator), shuffle_blocks=False)
    incremental.fit(dX, dy, classes=np.array([0, 1]))
    # Incremental is partial_fit over the blocks, one after the other.
    local = clone(estimator)
    for start in range(0, X.shape[0], 1_000):
        rows = slice(start, start + 1_000)
        local.partial_fit(X[rows], y[rows], classes=np.array([0, 1]))
    np.testing.assert_array_equal(incremental.estimator_.coef_, local.coef_)
    post_fit = wrappers.ParallelPostFit(local)
    dX_test = da.from_array(X_test, chunks=(500, X.shape[1]), asarray=False)
    np.testing.assert_array_equal(
        post_fit.predict_proba(dX_test).compute(), local.predict_proba(X_test)
    )


def test_hashing_encoder_per_partition_gives_the_whole_frames_columns(client):
    dd = pytest.importorskip("dask.dataframe")
    from sk_adaprox import HashingEncoder
    from sk_adaprox.dask import transform_partitions
    from sk_adaprox.datasets import make_click_log

    frame, clicks = make_click_log(4_000, as_frame=True, random_state=0)
    encoder = HashingEncoder(
        n_features=2**14, crosses=[(frame.columns[0], frame.columns[1])]
    )
    X = transform_partitions(dd.from_pandas(frame, npartitions=4), encoder)
    whole = encoder.transform(frame)
    assert (X.compute() != whole).nnz == 0
    fitted = DaskEstimator(FTRLClassifier(random_state=0), max_iter=2)
    fitted.fit(X, da.from_array(np.asarray(clicks), chunks=(1_000,)))
    assert fitted.to_local().n_features_in_ == 2**14


def test_clone_shares_the_client_and_pickling_drops_it(client, problem):
    import pickle

    wrapper = DaskEstimator(FTRLClassifier(alpha=0.2), max_iter=2, client=client)
    copy = clone(wrapper)
    assert copy.client is client
    assert copy.estimator is not wrapper.estimator
    assert copy.estimator.get_params() == wrapper.estimator.get_params()
    X, y, X_test, _ = problem
    copy.fit(*_dask(X, y))
    restored = pickle.loads(pickle.dumps(copy))
    assert restored.client is None
    np.testing.assert_array_equal(
        restored.to_local().predict_proba(X_test), copy.to_local().predict_proba(X_test)
    )


def test_auto_choice_needs_a_worker_with_every_class_and_says_so(client):
    rng = np.random.default_rng(0)
    X = sp.random(2_000, 300, density=0.05, format="csr", random_state=0)
    y = np.repeat([0, 1], 1_000)  # partition 0 holds class 0, partition 1 class 1
    dX, dy = _dask(X, y)
    # rebalance: one partition a worker, wherever Dask computes them.
    fixed = FTRLClassifier(alpha=0.1, l1=0.0)
    fitted = DaskEstimator(fixed, max_iter=1, rebalance=True).fit(dX, dy)
    assert len(fitted.worker_partitions_) == 2  # nothing to choose: it trains
    with pytest.raises(ValueError, match="no worker holds rows of every class"):
        DaskEstimator(FTRLClassifier(), max_iter=1, rebalance=True).fit(dX, dy)
    shuffled = rng.permutation(2_000)
    chosen = DaskEstimator(FTRLClassifier(random_state=0), max_iter=1)
    chosen.fit(*_dask(X[shuffled], y[shuffled]))
    assert chosen.to_local().chosen_params_ in chosen.candidate_params_


def test_a_partition_of_zero_weights_is_data_and_all_zero_is_refused(client, problem):
    X, y, _, _ = problem
    weights = np.ones(X.shape[0])
    weights[:1_000] = 0.0  # partition 0
    dX, dy = _dask(X, y)
    estimator = FTRLClassifier(alpha=0.1, l1=0.0, random_state=0)
    fitted = DaskEstimator(estimator, max_iter=1)
    fitted.fit(dX, dy, da.from_array(weights, chunks=1_000))
    assert np.isfinite(fitted.to_local().coef_).all()
    with pytest.raises(ValueError, match="at least one non-zero"):
        DaskEstimator(estimator).fit(dX, dy, da.zeros(X.shape[0], chunks=1_000))
    weights[2_500] = -1.0  # in partition 2
    negative = da.from_array(weights, chunks=1_000)
    with pytest.raises(ValueError, match="Partition 2 of the data: Negative"):
        DaskEstimator(estimator).fit(dX, dy, negative)


def test_data_stays_where_it_is_unless_rebalance_is_asked(client, problem):
    X, y, _, _ = problem
    workers = sorted(client.scheduler_info()["workers"])
    # New keys (name=False): the problem's own, persisted by earlier tests,
    # would be reused where they are held.
    dX = da.from_array(X, chunks=(1_000, X.shape[1]), asarray=False, name=False)
    dy = da.from_array(y, chunks=1_000, name=False)
    dX, dy = client.persist([dX, dy], workers=workers[:1])  # all on one
    distributed.wait([dX, dy])
    holders = client.who_has(dX)
    assert set(holders.values()) == {(workers[0],)}
    with pytest.warns(UserWarning, match="rebalance=True"):
        fitted = DaskEstimator(FTRLClassifier(alpha=0.1), max_iter=1).fit(dX, dy)
    assert fitted.worker_partitions_ == [[0, 1, 2, 3]]
    assert client.who_has(dX) == holders  # no partition moved
    balanced = DaskEstimator(FTRLClassifier(alpha=0.1), max_iter=1, rebalance=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        balanced.fit(dX, dy)
    assert len(balanced.worker_partitions_) == 2


def test_dense_rows_on_several_workers_warn(client):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4_000, 10))
    y = X @ rng.normal(size=10)
    dX = da.from_array(X, chunks=(1_000, 10))
    with pytest.warns(UserWarning, match="every worker fits every coordinate"):
        DaskEstimator(FTRLRegressor(alpha=0.1), max_iter=1).fit(
            dX, da.from_array(y, chunks=1_000)
        )


def test_dataframe_names_and_lazy_predictions_of_string_labels(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(1_200, 3)), columns=["a", "b", "c"])
    labels = np.where(X["a"] > 0, "spam", "ham")
    frame = dd.from_pandas(X, npartitions=3)
    fitted = DaskEstimator(AdaGradClassifier(eta=0.3, l1=0.0), max_iter=2)
    fitted.fit(frame, dd.from_pandas(pd.Series(labels), npartitions=3))
    assert list(fitted.feature_names_in_) == ["a", "b", "c"]
    assert list(fitted.to_local().feature_names_in_) == ["a", "b", "c"]
    lazy = fitted.predict(frame)
    assert isinstance(lazy, da.Array) and np.isnan(lazy.shape[0])
    np.testing.assert_array_equal(lazy.compute(), fitted.to_local().predict(X))


def _auc(model, X, y):
    if len(model.classes_) == 2:
        return roc_auc_score(y, model.decision_function(X))
    return roc_auc_score(y, model.predict_proba(X), multi_class="ovr")


@pytest.mark.parametrize(
    "estimator",
    [AdaGradClassifier(random_state=0), FTRLClassifier(random_state=0)],
    ids=["adagrad", "ftrl"],
)
@pytest.mark.parametrize("name", ["news20_comp_vs_rec", "news20", "rare_20k"])
def test_two_workers_are_within_0_002_auc_of_local_training(
    client, name, estimator, request
):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import _data

    if name == "rare_20k":
        X, y, X_test, y_test = _data.CLASSIFICATION_PANEL["rare_20k"]()
    else:  # the real data of ../shared/data (skips where it is absent)
        _data.DATA_DIR = request.getfixturevalue("shared_data")
        X, y, X_test, y_test = getattr(_data, name)()
    X = X.tocsr()
    order = np.random.default_rng(0).permutation(X.shape[0])  # files list by class
    X, y = X[order], np.asarray(y)[order]
    chunk = -(-X.shape[0] // 8)
    dX = da.from_array(X, chunks=(chunk, X.shape[1]), asarray=False)
    dy = da.from_array(y, chunks=chunk)
    local = clone(estimator).set_params(max_iter=5, tol=None).fit(X, y)
    fitted = DaskEstimator(estimator, max_iter=5, rebalance=True).fit(dX, dy)
    assert len(fitted.worker_partitions_) == 2
    difference = _auc(fitted.to_local(), X_test, y_test) - _auc(local, X_test, y_test)
    assert difference > -0.002, difference
