"""Training on a Dask cluster: one model from the rows every worker holds.

:class:`DaskEstimator` wraps an sk_adaprox estimator whose algorithm has a
merge rule (AdaGrad, FTRL). ``fit`` takes Dask arrays or DataFrames: each
worker trains the model on the partitions it already holds, from the model
of the last round, and the client merges the workers' states with the rule
that merges ``shards`` on one machine (docs/training.md, "One model's rows in
shards"). A worker receives, and sends back, the state at the features its
rows touch only. The fitted model is an ordinary estimator
(:meth:`DaskEstimator.to_local`).

This module needs ``dask[array]`` and ``distributed`` (``pip install
'sk-adaprox[dask]'``); the rest of sk_adaprox never imports it.
"""

import numbers
import warnings
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

try:
    import dask
    import dask.array as da
    from distributed import futures_of, get_client, wait
except ImportError as error:  # pragma: no cover - the [dask] extra is missing
    raise ImportError(
        "sk_adaprox.dask needs dask[array] and distributed: "
        "pip install 'sk-adaprox[dask]'"
    ) from error
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import (
    check_array,
    check_is_fitted,
    column_or_1d,
)

from ._increments import added, shard_increments
from ._kernels.common import STATUS_OK
from ._kernels.shards import compact_rows
from ._regression import _moments, _standardized, _units_after
from ._shards import auto_sync_rows
from ._training import merge_plan
from ._validation import as_kernel_csr

__all__ = ["DaskEstimator", "read_svmlight", "transform_partitions"]


@dataclass
class _WorkerRows:
    """The rows of the partitions one worker holds, as one CSR matrix whose
    column indices number ``features`` (the columns they touch, in order of
    first appearance)."""

    X: sp.csr_matrix
    y: np.ndarray
    sample_weight: np.ndarray
    features: np.ndarray


@dataclass
class _RowsSummary:
    """What the client needs of a worker's rows before training: their labels
    and their count (classification), or the targets' moments (regression);
    their rows, non-zeros and summed weight."""

    labels: np.ndarray | None
    counts: np.ndarray | None
    moments: np.ndarray | None
    n_rows: int
    nonzeros: int
    weight: float


def _checked_partition(index, X, y, sample_weight, n_features, classification):
    """Partition ``index`` as CSR rows, targets and weights, checked as a local
    ``fit`` checks them; a ValueError names the partition."""
    try:
        X = check_array(
            X, accept_sparse="csr", dtype=[np.float64, np.float32], ensure_min_samples=0
        )
        if X.shape[1] != n_features:
            raise ValueError(
                f"X has {X.shape[1]} features, but the first partitions have "
                f"{n_features}."
            )
        y = column_or_1d(y)
        if not classification:
            y = check_array(y, ensure_2d=False, dtype=np.float64, ensure_min_samples=0)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows and y {y.shape[0]}.")
        weights = np.ones(X.shape[0])
        if sample_weight is not None:
            # A partition's weights may all be zero; the fit checks their sum.
            weights = check_array(
                sample_weight, ensure_2d=False, dtype=np.float64, ensure_min_samples=0
            ).ravel()
            if weights.shape[0] != X.shape[0]:
                raise ValueError(
                    f"sample_weight has {weights.shape[0]} rows and X {X.shape[0]}."
                )
            if (weights < 0).any():
                raise ValueError("Negative values in data passed to sample_weight")
    except ValueError as error:
        raise ValueError(f"Partition {index} of the data: {error}") from error
    return sp.csr_matrix(X), y, weights


def _worker_rows(n_features, classification, *parts):
    """``parts`` = (index, X, y, sample_weight or None) per partition, checked
    and joined."""
    checked = [_checked_partition(*part, n_features, classification) for part in parts]
    X = sp.vstack([X for X, _, _ in checked], format="csr")
    y = np.concatenate([y for _, y, _ in checked])
    weights = np.concatenate([w for _, _, w in checked])
    # The features numbered in order of first appearance, in O(non-zeros),
    # then in increasing order: each round gathers and merges the state at
    # them, and increasing rows are read and written several times faster.
    touched = np.empty(min(X.indices.shape[0], n_features), dtype=np.int64)
    local_indices = np.empty_like(X.indices)
    n_touched = compact_rows(
        X.indices,
        X.indptr,
        np.arange(X.shape[0]),
        np.full(n_features, -1, dtype=np.int64),
        local_indices,
        touched,
    )
    order = np.argsort(touched[:n_touched])
    rank = np.empty(n_touched, dtype=local_indices.dtype)
    rank[order] = np.arange(n_touched, dtype=local_indices.dtype)
    local = sp.csr_matrix(
        (X.data, rank[local_indices], X.indptr), shape=(X.shape[0], max(n_touched, 1))
    )
    return _WorkerRows(as_kernel_csr(local), y, weights, touched[order])


def _summary(rows, classification):
    sizes = (rows.X.shape[0], rows.X.nnz, float(rows.sample_weight.sum()))
    if classification:
        labels, counts = np.unique(rows.y, return_counts=True)
        return _RowsSummary(labels, counts, None, *sizes)
    # The running moments a local fit computes over these rows, in their order.
    moments = _moments(rows.y, rows.sample_weight, True)
    return _RowsSummary(None, None, moments, *sizes)


def _features(rows):
    return rows.features


def _sent_slots(model, n_slots):
    """Of a state array's ``n_slots`` slots, those a shard sends over the
    network: all but those the algorithm derives from the others (FTRL's
    weights), which the receiver computes again (:func:`_with_derived_slots`);
    None for all of them."""
    derived = model._derived_slots()
    if not derived:
        return None
    return [slot for slot in range(n_slots) if slot not in derived]


def _with_derived_slots(model, shard, n_slots):
    """``shard``, whose array holds the :func:`_sent_slots` of ``n_slots``,
    with the derived slots computed again: the state as training left it."""
    if shard.array.shape[1] == n_slots:
        return shard
    rows, _, n_outputs = shard.array.shape
    array = np.empty((rows, n_slots, n_outputs))
    array[:, _sent_slots(model, n_slots)] = shard.array
    model._derive_slots(array, shard.parameters)
    return replace(shard, array=array)


def _train(template, shard, rows, rng, as_increments=False):
    """One pass of ``template``'s algorithm over a worker's rows, on
    ``shard`` (the model's state at the rows' features, its
    :func:`_sent_slots`): in a random order drawn from ``rng`` where the
    estimator shuffles, as ``fit`` draws it, else in the partitions' order.
    Returns the shard (its sent slots; with ``as_increments``, its
    :func:`~._increments.shard_increments` instead), the pass's loss sum,
    the rows done, the status and ``rng`` after the draw."""
    n_slots = shard.array.shape[1] + len(template._derived_slots())
    shard = _with_derived_slots(template, shard, n_slots)
    before = shard.copy() if as_increments else None
    if is_classifier(template):
        targets, row_weights = template._encode_labels(
            rows.y, rows.sample_weight, template.classes_, False
        )
    else:
        units = (template.target_offset_, template.target_scale_)
        targets, row_weights = _standardized(rows.y, units), rows.sample_weight
    n_rows = rows.X.shape[0]
    order = rng.permutation(n_rows) if template.shuffle else np.arange(n_rows)
    worker = template._for_training(shard)
    scores = np.empty((0, shard.array.shape[2]))
    loss_sum, rows_done, status = worker._run_pass(
        rows.X, targets, row_weights, order, scores
    )
    shard.t += int(rows_done)
    if as_increments:
        part = shard_increments(template, rows.features, before, shard)
        return part, float(loss_sum), int(rows_done), int(status), rng
    slots = _sent_slots(template, n_slots)
    if slots is not None:
        shard = replace(shard, array=np.ascontiguousarray(shard.array[:, slots]))
    return shard, float(loss_sum), int(rows_done), int(status), rng


def _outcome(result):
    """A :func:`_train` result without its state: ``(loss sum, rows done,
    status, rng)``."""
    return result[1:]


def _increments_of(result):
    return result[0]


def _tree_sum(client, futures):
    """The sum of the :func:`_train` results' increments (``as_increments``),
    added pairwise on the workers, level by level, in the groups' order."""
    level = [client.submit(_increments_of, future) for future in futures]
    while len(level) > 1:
        pairs = [
            client.submit(added, *level[i : i + 2]) for i in range(0, len(level) - 1, 2)
        ]
        level = pairs + level[len(pairs) * 2 :]
    return level[0].result()


def _raise_if_diverged(model, outcomes, n_round):
    if any(status != STATUS_OK for _, _, status, _ in outcomes):
        step = model._step_size_name
        raise ValueError(
            f"Training diverged on a worker in round {n_round}: a score or "
            f"update is not finite. Use a {model._smaller_steps} {step} (now "
            f"{getattr(model, step)!r}) or scale the features (StandardScaler, "
            "or MaxAbsScaler for sparse data)."
        )


def _merged_moments(moments):
    """The weighted moments ``[weight, mean, squared deviations]`` of rows
    split into parts (Chan, Golub & LeVeque's pairwise combination)."""
    total, mean, deviations = 0.0, 0.0, 0.0
    for weight, part_mean, part_deviations in moments:
        if weight <= 0:
            continue
        if total == 0:  # as it is: one part's moments are those of a local fit
            total, mean, deviations = weight, part_mean, part_deviations
            continue
        delta = part_mean - mean
        combined = total + weight
        mean += delta * weight / combined
        deviations += part_deviations + delta * delta * total * weight / combined
        total = combined
    return np.array([total, mean, deviations])


def _blocks(collection, name):
    """The row partitions of a Dask array or DataFrame (or None), as delayed
    objects, with the collection as a Dask array or DataFrame."""
    if collection is None:
        return None
    if isinstance(collection, da.Array):
        if collection.ndim == 2 and len(collection.chunks[1]) != 1:
            raise ValueError(
                f"{name} must be chunked along rows only (one chunk of columns); "
                f"got column chunks {collection.chunks[1]}. Rechunk it with "
                f"{name}.rechunk({{1: -1}})."
            )
        return list(collection.to_delayed().ravel())
    if hasattr(collection, "to_delayed") and hasattr(collection, "npartitions"):
        return list(collection.to_delayed())  # a Dask DataFrame or Series
    raise TypeError(
        f"{name} must be a Dask array or DataFrame, got {type(collection).__name__}."
    )


class DaskEstimator(MetaEstimatorMixin, BaseEstimator):
    """Train an sk_adaprox estimator on a Dask cluster, where the data lives.

    Each round is one pass over the data: every worker trains the model, from
    the state of the last round, on the partitions it holds (in a random
    order), and the client merges the workers' states with the algorithm's
    merge rule (the rule of ``shards``: each statistic gets the workers' mean
    increment ``min(k, 2)`` times for ``k`` workers). A worker receives and
    returns the state at the features its rows touch, so a round's traffic is
    proportional to those, not to ``n_features``. The partitions do not move.

    Parameters set to ``"auto"`` are chosen first, as ``fit`` chooses them:
    each worker runs the candidates over its rows once, and the candidate of
    the lowest progressive loss summed over the workers is taken.

    Parameters
    ----------
    estimator : estimator object
        An sk_adaprox classifier or regressor whose algorithm can be merged
        (``AdaGradClassifier``, ``AdaGradRegressor``, ``FTRLClassifier``,
        ``FTRLRegressor``), without ``average``. Its ``max_iter``, ``tol``,
        ``early_stopping``, ``warm_start``, ``shards``, ``sync_rows`` and
        ``n_jobs`` are not used: each ``fit`` trains a new model for
        ``max_iter`` rounds of this wrapper (no ``partial_fit``).
    max_iter : int, default=5
        Rounds (passes over the data).
    client : distributed.Client, default=None
        The client to train through; None takes the current one
        (``distributed.get_client()``). A clone shares it; a pickled wrapper
        drops it.
    verbose : int, default=0
        Print each round's mean progressive loss.
    rebalance : bool, default=False
        Whether a worker holding more than its share of the data's bytes (with
        5 % to spare) passes partitions to the workers holding the fewest,
        once, when the fit starts. By default the data stays where it is: each
        worker trains the partitions it holds, and ``fit`` warns where that is
        unbalanced (a round lasts as long as its slowest worker).

    Attributes
    ----------
    estimator_ : estimator object
        The fitted estimator (also :meth:`to_local`).
    coef_ : ndarray
        The fitted estimator's ``coef_``.
    intercept_ : ndarray
        The fitted estimator's ``intercept_``.
    n_features_in_ : int
        The columns of X.
    classes_ : ndarray of shape (n_classes,)
        The classes (classifiers).
    n_iter_ : int
        Rounds run.
    round_losses_ : list of float
        Each round's mean progressive training loss over the rows.
    worker_partitions_ : list of list of int
        The partitions each worker trained on (workers by address).
    candidate_params_, candidate_losses_ : list of dict, ndarray
        Where parameters were ``"auto"``: the candidates and their progressive
        losses over every worker's rows (also on ``estimator_``, with
        ``chosen_params_``).

    Examples
    --------
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from sk_adaprox import FTRLClassifier
    >>> from sk_adaprox.dask import DaskEstimator
    >>> from sk_adaprox.datasets import make_rare_features
    >>> X, y = make_rare_features(n_samples=2_000, n_features=500, random_state=0)
    >>> cluster = LocalCluster(n_workers=1, processes=False, dashboard_address=None)
    >>> client = Client(cluster)
    >>> dX = da.from_array(X, chunks=(500, 500), asarray=False)
    >>> dy = da.from_array(y, chunks=500)
    >>> model = DaskEstimator(FTRLClassifier(random_state=0), max_iter=3)
    >>> model.fit(dX, dy).to_local().t_
    6000
    >>> model.predict(dX).chunks  # lazy, one block per block of dX
    ((500, 500, 500, 500),)
    >>> client.close(); cluster.close()
    """

    # From this many groups of partitions on, the workers add their increments
    # up in a tree (the client receives one sum); with fewer, each group's
    # state goes to the client, which merges them: a tree of two is one more
    # transfer for the same sum.
    _tree_from_groups = 3

    def __init__(
        self, estimator, *, max_iter=5, client=None, verbose=0, rebalance=False
    ):
        self.estimator = estimator
        self.max_iter = max_iter
        self.client = client
        self.verbose = verbose
        self.rebalance = rebalance

    def __sklearn_clone__(self):
        # scikit-learn's clone deep-copies parameters, and a Client cannot be
        # copied: the clone shares it (and gets a clone of the estimator).
        params = self.get_params(deep=False)
        params["estimator"] = clone(self.estimator)
        return type(self)(**params)

    def __getstate__(self):
        # A pickled wrapper (joblib.dump, say) leaves its client behind.
        state = dict(self.__dict__)
        state["client"] = None
        return state

    def fit(self, X, y, sample_weight=None):
        """Train on Dask collections X (rows chunked, one chunk of columns;
        blocks dense or scipy sparse; or a Dask DataFrame of numeric columns)
        and y (and ``sample_weight``) with the same row partitions.

        Returns
        -------
        self : object
            The fitted wrapper.
        """
        self._check_parameters()
        client = self.client or get_client()
        classification = is_classifier(self.estimator)
        n_features = len(X.columns) if hasattr(X, "columns") else int(X.shape[1])
        rows = self._persisted_rows(client, X, y, sample_weight, n_features)
        summaries = client.gather(
            [client.submit(_summary, part, classification) for part in rows]
        )
        if sum(summary.weight for summary in summaries) <= 0:
            raise ValueError(
                "Sample weights must contain at least one non-zero number."
            )
        _warn_if_dense(summaries, n_features)
        model = self._started_model(client, rows, summaries, n_features)
        if hasattr(X, "columns"):
            model.feature_names_in_ = self.feature_names_in_ = np.asarray(
                [str(column) for column in X.columns], dtype=object
            )
        features = client.gather([client.submit(_features, part) for part in rows])
        # The groups keep their rows: the client's merge plan is made once
        # (the tree needs none).
        tree = len(rows) >= self._tree_from_groups
        plan = None if tree else merge_plan(features, n_features)
        rngs = _row_order_generators(model.random_state, len(rows))
        self.round_losses_ = []
        for n_round in range(1, self.max_iter + 1):
            self._round(client, model, rows, (features, plan), rngs, n_round)
        model.n_iter_ = self.max_iter
        self.estimator_ = model
        self.n_features_in_ = n_features
        self.n_iter_ = self.max_iter
        if classification:
            self.classes_ = model.classes_
        return self

    def _check_parameters(self):
        if not isinstance(self.max_iter, numbers.Integral) or self.max_iter < 1:
            raise ValueError(f"max_iter must be an int >= 1, got {self.max_iter!r}.")
        reason = getattr(self.estimator, "_not_data_parallel", None)
        if not hasattr(self.estimator, "_merge_shards") or reason is not None:
            raise ValueError(
                f"{type(self.estimator).__name__} cannot be trained on Dask: "
                f"{reason or 'it is not an sk_adaprox estimator.'}"
            )
        if self.estimator.get_params().get("average"):
            raise ValueError(
                "average cannot be combined with training on Dask: the workers' "
                "sums of iterates have no merge rule. Set average=False."
            )

    def _persisted_rows(self, client, X, y, sample_weight, n_features):
        """One future per worker: the rows of the partitions it holds (with
        ``rebalance``, a worker holding more than its share of the bytes
        passes partitions to the others, once: :func:`_balanced_groups`),
        checked (bad input names its partition). The groups stay fixed for
        the fit: a worker lost mid-fit has its group computed again elsewhere,
        and the model is the one the fit would have given without the loss."""
        blocks = _blocks(X, "X")
        targets = _blocks(y, "y")
        weights = _blocks(sample_weight, "sample_weight") or [None] * len(blocks)
        if not (len(blocks) == len(targets) == len(weights)):
            raise ValueError(
                f"X, y and sample_weight must have the same row partitions; got "
                f"{len(blocks)}, {len(targets)} and {len(weights)} partitions."
            )
        # Each partition's tuple where its block of X is (else a cheap task
        # could run, and copy the block, anywhere).
        holders = _holders(client, X)
        parts = [
            client.compute(
                dask.delayed(tuple)([index, block, target, weight]),
                workers=holders.get(block.key),
                allow_other_workers=True,
            )
            for index, (block, target, weight) in enumerate(
                zip(blocks, targets, weights, strict=True)
            )
        ]
        wait(parts)
        held = _balanced_groups(client, parts, self.rebalance)
        self.worker_partitions_ = [indices for _, indices in held]
        classification = is_classifier(self.estimator)
        return [
            client.submit(
                _worker_rows,
                n_features,
                classification,
                *[parts[index] for index in indices],
                workers=[worker],
                allow_other_workers=True,
                pure=False,
            )
            for worker, indices in held
        ]

    def _started_model(self, client, rows, summaries, n_features):
        """A new model of ``estimator``'s parameters at round 0, its ``"auto"``
        values chosen over every worker's rows."""
        model = clone(self.estimator)
        model._validate_params()
        model.n_features_in_ = n_features
        if is_classifier(model):
            labels = np.unique(np.concatenate([s.labels for s in summaries]))
            if labels.shape[0] < 2:
                raise ValueError(
                    "The number of classes has to be greater than one; got "
                    f"{labels.shape[0]} class"
                )
            self._class_weight = _global_class_weight(model.class_weight, summaries)
            n_outputs = 1 if labels.shape[0] == 2 else labels.shape[0]
        else:
            n_outputs = 1
        chooses = model._candidates(n_features, n_outputs) is not None
        chosen = self._chosen(client, model, rows, summaries) if chooses else None
        model._check_state_size(n_features, n_outputs)
        model._start_training(n_features, n_outputs, chosen)
        if is_classifier(model):
            model.classes_ = labels
        else:
            moments = _merged_moments([s.moments for s in summaries])
            moments = moments if model.normalize_y else None
            model.target_offset_, model.target_scale_ = _units_after(moments)
            model._target_moments = moments
        if chosen is not None:
            model.chosen_params_ = dict(chosen)
            model.candidate_params_ = self.candidate_params_
            model.candidate_losses_ = self.candidate_losses_
        model._checked_parameters()
        return model

    def _chosen(self, client, model, rows, summaries):
        """The ``"auto"`` values: each worker fits the candidates over its rows
        for one pass; the candidate of the least progressive loss, summed over
        the workers (each weighted by its rows), wins. A classifier's
        candidates are compared on the workers whose rows hold every class,
        with the class weights of every worker's rows."""
        probe = clone(model).set_params(max_iter=1, tol=None, shards=None, n_jobs=None)
        probed = rows
        if is_classifier(model):
            probe.set_params(class_weight=self._class_weight)
            every = np.unique(np.concatenate([s.labels for s in summaries]))
            probed = [
                part
                for part, summary in zip(rows, summaries, strict=True)
                if summary.labels.shape[0] == every.shape[0]
            ]
            if not probed:
                raise ValueError(
                    "The parameters set to 'auto' are chosen on each worker's rows, "
                    "and no worker holds rows of every class. Set them (eta, l1, "
                    "alpha, ...) or spread the classes over the partitions."
                )
        fitted = client.gather(
            [client.submit(_probe_candidates, probe, part) for part in probed]
        )
        totals = sum(losses * weight for _, losses, weight in fitted)
        weight = sum(weight for *_, weight in fitted)
        self.candidate_params_ = fitted[0][0]
        self.candidate_losses_ = totals / weight if weight > 0 else totals
        return dict(self.candidate_params_[int(np.argmin(totals))])

    def _round(self, client, model, rows, placement, rngs, n_round):
        """One pass: every worker's rows trained apart, then merged (only once
        every worker has returned: the client never holds a partial merge).
        ``placement`` is ``(features, plan)``: each group's features
        (increasing) and their :class:`~._training.MergePlan`, None from
        ``_tree_from_groups`` groups on: then the workers add their increments
        up pairwise and the client merges one sum (:mod:`._increments`).
        Records the round's mean progressive loss."""
        features, plan = placement
        training = model._training
        model._pass_starting(False)
        model._sync_parameters()
        template = model._for_training(None)
        if is_classifier(model):  # "balanced" as every worker's rows give it
            template.class_weight = self._class_weight
        n_slots = training.array.shape[1]
        slots = _sent_slots(model, n_slots)
        tree = plan is None
        futures = [
            client.submit(_train, template, training.gather(f, slots), part, rng, tree)
            for part, f, rng in zip(rows, features, rngs, strict=True)
        ]
        self._round_submitted(n_round, futures)
        if tree:
            outcomes = client.gather([client.submit(_outcome, f) for f in futures])
        else:
            results = client.gather(futures)
            outcomes = [_outcome(result) for result in results]
        _raise_if_diverged(model, outcomes, n_round)
        if tree:
            training.merge_sums(_tree_sum(client, futures), model._merge_shards)
        else:
            shards = [
                (f, _with_derived_slots(model, shard, n_slots))
                for f, (shard, *_) in zip(features, results, strict=True)
            ]
            training.merge(shards, model._merge_shards, plan=plan)
        training.data_passes += 1
        rngs[:] = [rng for *_, rng in outcomes]
        n_rows = sum(rows_done for _, rows_done, _, _ in outcomes)
        loss = sum(loss for loss, _, _, _ in outcomes) / max(n_rows, 1)
        self.round_losses_.append(loss)
        if self.verbose:
            print(f"round {n_round}: mean progressive loss {loss:.6f}", flush=True)

    def _round_submitted(self, n_round, futures):
        """Called once a round's training tasks are submitted, before the
        client waits for them (the futures, one per worker)."""

    @property
    def coef_(self):
        return self.to_local().coef_

    @property
    def intercept_(self):
        return self.to_local().intercept_

    def to_local(self):
        """The fitted estimator, a plain sk_adaprox model that needs no Dask."""
        check_is_fitted(self, "estimator_")
        return self.estimator_

    def _blockwise(self, X, method):
        """``method`` of the fitted model on each block (or partition) of X,
        as a lazy Dask array."""
        check_is_fitted(self, "estimator_")
        model = self.estimator_
        width, dtype = None, np.float64
        if method in ("predict_proba", "predict_log_proba"):
            width = len(model.classes_)
        elif method == "decision_function" and model.coef_.ndim == 2:
            width = model.coef_.shape[0] if model.coef_.shape[0] > 1 else None
        elif method == "predict" and is_classifier(model):
            dtype = model.classes_.dtype
        meta = np.empty((0,) if width is None else (0, 0), dtype=dtype)
        if not isinstance(X, da.Array):  # a Dask DataFrame: by partition, lazily
            shape = (np.nan,) if width is None else (np.nan, width)
            return da.concatenate(
                [
                    da.from_delayed(
                        dask.delayed(_apply)(part, model, method),
                        shape=shape,
                        dtype=dtype,
                        meta=meta,
                    )
                    for part in _blocks(X, "X")
                ]
            )
        if width is None:
            return X.map_blocks(
                _apply, model, method, drop_axis=1, dtype=dtype, meta=meta
            )
        chunks = (X.chunks[0], (width,))
        return X.map_blocks(
            _apply, model, method, chunks=chunks, dtype=dtype, meta=meta
        )

    def predict(self, X):
        """Predictions of the rows of Dask array or DataFrame X, as a lazy Dask
        array."""
        return self._blockwise(X, "predict")

    def predict_proba(self, X):
        """Class probabilities (classifiers), as a lazy Dask array."""
        return self._blockwise(X, "predict_proba")

    def decision_function(self, X):
        """Scores (classifiers), as a lazy Dask array."""
        return self._blockwise(X, "decision_function")


def _warn_if_dense(summaries, n_features):
    """Warn where local training in shards would merge more often than once
    per pass (``sync_rows="auto"``): rows dense enough that every worker
    fits every coordinate, which merges once per pass can overshoot."""
    if len(summaries) < 2:
        return
    rows = sum(summary.n_rows for summary in summaries)
    nonzeros = sum(summary.nonzeros for summary in summaries)
    if auto_sync_rows(n_features, nonzeros, rows) < min(s.n_rows for s in summaries):
        per_row = nonzeros / max(rows, 1)
        warnings.warn(
            f"The rows are dense ({per_row:.0f} non-zeros of {n_features} "
            "features): every worker fits every coordinate, and one merge per "
            "round (a pass) can overshoot them (docs/training.md, 'One model's "
            "rows in shards'). Check the model against a local fit on a sample, "
            "or train locally with shards and sync_rows='auto'.",
            UserWarning,
            stacklevel=3,
        )


def _holders(client, collection):
    """``{key: [worker]}`` for the blocks of ``collection`` held in the cluster's
    memory (persisted), one worker each; empty where none is."""
    futures = futures_of(collection)
    if not futures:
        return {}
    return {
        key: [sorted(workers)[0]]
        for key, workers in client.who_has(futures).items()
        if workers
    }


def _balanced_groups(client, parts, rebalance):
    """``(worker, partition indices)`` for each worker that trains, sorted by
    first partition: each partition on a worker that holds it. With
    ``rebalance``, a worker keeps partitions while it has less than its share
    of the bytes (with 5 % to spare) and the others go, once, to the worker
    with the fewest bytes; without, a worker over its share is warned of."""
    holders = client.who_has(parts)
    sizes = client.nbytes([part.key for part in parts], summary=False)
    workers = sorted(client.scheduler_info()["workers"])
    share = 1.05 * sum(sizes.values()) / len(workers)
    load = dict.fromkeys(workers, 0)
    groups = {worker: [] for worker in workers}
    moved = []
    for index, part in enumerate(parts):
        holder = sorted(holders[part.key])[0]
        if holder in load and (
            not rebalance or load[holder] + sizes[part.key] <= share
        ):
            groups[holder].append(index)
            load[holder] += sizes[part.key]
        else:
            moved.append(index)
    for index in moved:
        worker = min(workers, key=lambda name: (load[name], name))
        groups[worker].append(index)
        load[worker] += sizes[parts[index].key]
    if not rebalance:
        _warn_if_unbalanced(groups, load, [sizes[part.key] for part in parts], share)
    held = [(worker, sorted(indices)) for worker, indices in groups.items() if indices]
    return sorted(held, key=lambda item: item[1][0])


def _warn_if_unbalanced(groups, load, sizes, share):
    """Warn where a worker holds more than its ``share`` of the bytes and
    moving one of its partitions (``sizes`` by index) to the worker holding
    the fewest would shorten the rounds."""
    busiest = max(load, key=load.get)
    lightest = min(load, key=load.get)
    smallest = min((sizes[index] for index in groups[busiest]), default=0)
    if load[busiest] > share and load[lightest] + smallest < load[busiest]:
        warnings.warn(
            f"Worker {busiest} holds {load[busiest] / sum(sizes):.0%} of the "
            f"data's bytes ({len(groups[busiest])} of {len(sizes)} partitions) "
            f"among {len(load)} workers: a round lasts as long as its slowest "
            "worker. Pass rebalance=True to move partitions once when the fit "
            "starts, or call client.rebalance() on the persisted data.",
            UserWarning,
            stacklevel=5,
        )


def _row_order_generators(random_state, n_groups):
    """One RandomState per worker's rows: the estimator's own for one group (so
    that one worker draws the orders a local ``fit`` draws), else one seeded
    from it for each."""
    rng = check_random_state(random_state)
    if n_groups == 1:
        return [rng]
    seeds = rng.randint(np.iinfo(np.int32).max, size=n_groups)
    return [np.random.RandomState(int(seed)) for seed in seeds]


def _apply(block, model, method):
    return getattr(model, method)(block)


def _probe_candidates(probe, rows):
    """``fit`` of one pass of the candidates over a worker's rows: the
    candidates, their mean progressive losses and the rows' weight."""
    fitted = clone(probe)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted.fit(rows.X, rows.y, sample_weight=rows.sample_weight)
    losses = np.asarray(fitted.candidate_losses_, dtype=np.float64)
    return fitted.candidate_params_, losses, float(rows.sample_weight.sum())


def _global_class_weight(class_weight, summaries):
    """``class_weight="balanced"`` as the dict of every worker's rows: n /
    (n_classes * count of the class), as scikit-learn computes it."""
    if class_weight != "balanced":
        return class_weight
    counts = {}
    for summary in summaries:
        for label, count in zip(summary.labels, summary.counts, strict=True):
            counts[label] = counts.get(label, 0) + int(count)
    total = sum(counts.values())
    return {label: total / (len(counts) * count) for label, count in counts.items()}


def read_svmlight(path, n_features, *, zero_based=False, blocksize="64MiB"):
    """Read libsvm/svmlight files into a row-chunked Dask array of CSR blocks
    and a Dask array of their targets, without loading them on the client:
    each block of ``blocksize`` bytes (cut at line ends) is parsed by
    :func:`sklearn.datasets.load_svmlight_file` where it is computed.

    Parameters
    ----------
    path : str or list of str
        A file, a glob pattern or a list of files (any location Dask reads).
    n_features : int
        The number of columns (a block cannot know the widest row of the
        others).
    zero_based : bool, default=False
        Whether column indices start at 0 (libsvm's own files start at 1). It
        cannot be guessed block by block.
    blocksize : int or str, default="64MiB"
        The bytes of a block.

    Returns
    -------
    X : dask.array.Array of shape (n_samples, n_features)
        CSR blocks (row counts unknown until computed).
    y : dask.array.Array of shape (n_samples,)
        The targets, with the same row chunks.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sk_adaprox.dask import read_svmlight
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "rows.svm").write_text("1 1:0.5 3:2\\n-1 2:1\\n1 3:1\\n")
    >>> X, y = read_svmlight(str(folder / "rows.svm"), n_features=3, blocksize=12)
    >>> X.compute().toarray()
    array([[0.5, 0. , 2. ],
           [0. , 1. , 0. ],
           [0. , 0. , 1. ]])
    >>> y.compute()
    array([ 1., -1.,  1.])
    """
    from dask.bytes import read_bytes

    _, blocks = read_bytes(path, delimiter=b"\n", blocksize=blocksize)
    parsed = [
        dask.delayed(_parse_svmlight)(block, n_features, zero_based)
        for file_blocks in blocks
        for block in file_blocks
    ]
    X = da.concatenate(
        [
            da.from_delayed(
                part[0],
                shape=(np.nan, n_features),
                dtype=np.float64,
                meta=sp.csr_matrix((0, n_features)),
            )
            for part in parsed
        ]
    )
    y = da.concatenate(
        [da.from_delayed(part[1], shape=(np.nan,), dtype=np.float64) for part in parsed]
    )
    return X, y


def _parse_svmlight(block, n_features, zero_based):
    from io import BytesIO

    from sklearn.datasets import load_svmlight_file

    if not block.strip():
        return sp.csr_matrix((0, n_features)), np.empty(0)
    X, y = load_svmlight_file(
        BytesIO(block), n_features=n_features, zero_based=zero_based
    )
    return X.tocsr(), y


def transform_partitions(frame, transformer, n_features=None):
    """A row-chunked Dask array of the sparse rows ``transformer`` makes of
    each partition of a Dask DataFrame (or Series), computed where the
    partition is: a hashing step (``HashingVectorizer``, ``FeatureHasher``,
    any stateless transformer) ahead of :class:`DaskEstimator`.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame or Series
        Read by ``dask.dataframe.read_csv``, ``read_parquet``, ...
    transformer : object with ``transform``, or callable
        Maps a pandas partition to a matrix of ``n_features`` columns.
    n_features : int, default=None
        The matrix's columns; None takes ``transformer.n_features``.

    Returns
    -------
    X : dask.array.Array of shape (n_samples, n_features)
        One block per partition, with the partitions' rows.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import pandas as pd
    >>> from sklearn.feature_extraction.text import HashingVectorizer
    >>> from sk_adaprox.dask import transform_partitions
    >>> texts = dd.from_pandas(pd.Series(["cheap offer", "lunch at noon"] * 4), 2)
    >>> X = transform_partitions(texts, HashingVectorizer(n_features=2**10))
    >>> X.compute().shape
    (8, 1024)
    """
    if n_features is None:
        n_features = getattr(transformer, "n_features", None)
    if n_features is None:
        raise ValueError(
            "n_features is required where the transformer has no n_features."
        )
    transform = getattr(transformer, "transform", transformer)
    return da.concatenate(
        [
            da.from_delayed(
                dask.delayed(_transformed_csr)(transform, part),
                shape=(np.nan, n_features),
                dtype=np.float64,
                meta=sp.csr_matrix((0, n_features)),
            )
            for part in frame.to_delayed()
        ]
    )


def _transformed_csr(transform, part):
    matrix = transform(part)
    return sp.csr_matrix(matrix) if sp.issparse(matrix) else np.asarray(matrix)
