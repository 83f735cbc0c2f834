"""Data-parallel training's quality against the number of shards (issue 27).

Run: python benchmarks/studies/shard_merging.py [--sets a,b] [--shards 2,4,...]
[--syncs none,1000,250] [--algorithms adagrad,ftrl] [--rules a,b] [--out file.json]

More shards than this machine has cores cannot be timed here, but their
quality can: ``shards=k`` trains the k shards one after the other (``n_jobs=1``)
and merges them exactly as k threads would, so the test ROC AUC of a model with
k shards is what k cores would give. For each set, algorithm, merge rule,
number of shards and sync interval (rows per shard between merges; "none":
once per pass) it prints one line and writes every AUC to ``--out`` (JSON),
which ``shard_merging_plot.py`` draws for docs/training.md.

Rules (the package's, and the alternatives it was chosen against):

- ``package``: the estimator's own ``_merge_shards``: the shards' mean
  increment taken ``min(k, 2)`` times (``sk_adaprox._merging``);
- ``mean``: iterative parameter mixing, every slot the plain mean of the
  shards' states (a shard that did not touch a feature counts with the
  starting value), the weights those give;
- ``vw``: Vowpal Wabbit's AllReduce averaging on the interval's increments:
  the weights averaged with weights each shard's squared-gradient increment,
  the accumulator's increment sum(dG_s^2) / sum(dG_s) (AdaGrad);
- ``delayed``: the shards' weight increments summed, each scaled by its step
  size over the merged one (G's increments summed): exact where the gradients
  do not change within the interval (AdaGrad mirror descent);
- ``compensated``: ``delayed`` with each shard's gradients corrected for the
  other shards' moves, g^2 standing for the curvature (AdaGrad mirror
  descent);
- ``summed``: the increments of the gradient statistics summed, the weights
  those sums give (FTRL's z and n; dual averaging's u and G);
- ``weighted``: each shard's weight increment weighted by its share of the G
  (n) increment, G's (n's) increments summed, the rest derived: a
  coordinate one shard moved takes its move, one every shard moved alike
  their mean move.
- ``rescaled`` (FTRL): z's and n's increments summed, the proximal part of
  z (the sum of sigma w) scaled to the merged n's growth of sqrt(n).

Sets: the rare 160k x 1M set (120,000 training rows), 20 Newsgroups comp vs
rec (tf-idf), a9a and ijcnn1 (standardised), and three dense regressions
(test R²; the regressors of the same algorithms): California housing,
Million Song and a synthetic one of 20 correlated features. Algorithms at
fixed parameters:
AdaGrad mirror descent (``adagrad``: eta 0.1), AdaGrad dual averaging
(``adagrad_da``: eta 0.1, l1 1e-5), FTRL (``ftrl``: alpha 0.1) and FTRL with
l1 (``ftrl_l1``: alpha 0.1, l1 1); ``max_iter`` passes (1 on the rare set, 5
elsewhere), shuffled with ``random_state=0``. Each line also gives the
model's non-zero weights.
"""

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

# The shared helpers (_data, ...) are in benchmarks/, one folder up.
# ruff: noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _data
import numpy as np
from _data import CLASSIFICATION_PANEL
from sklearn.metrics import r2_score, roc_auc_score

from sk_adaprox import (
    AdaGradClassifier,
    AdaGradRegressor,
    FTRLClassifier,
    FTRLRegressor,
)
from sk_adaprox._kernels.adagrad import SUM_GRAD, SUM_SQ_GRAD, da_weights_all
from sk_adaprox._kernels.common import WEIGHT
from sk_adaprox._kernels.ftrl import N, Z
from sk_adaprox._kernels.ftrl import weights_all as ftrl_weights_all

SETS = {
    "rare_160k": 1,
    "news_comp_rec": 5,
    "a9a": 5,
    "ijcnn1": 5,
    # Dense regressions (test R²): every shard fits every coordinate.
    "cal_housing": 5,
    "millionsong": 5,
    "synthetic_regression": 5,
}
REGRESSION_SETS = {
    "cal_housing": _data.cal_housing_standardized,
    "millionsong": _data.millionsong_standardized,
    "synthetic_regression": _data.synthetic_regression_standardized,
}


def vw(merge):
    """Vowpal Wabbit's AllReduce weighting, on the interval's increments: the
    weights averaged with weights each shard's squared-gradient increment,
    the accumulator's increment sum(dG_s^2) / sum(dG_s)."""
    base = merge.base
    increments = _slot_increments(merge, SUM_SQ_GRAD)

    def weighted(positions, array):
        grown = array[:, SUM_SQ_GRAD] - base[positions, SUM_SQ_GRAD]
        return np.stack(
            [grown * (array[:, WEIGHT] - base[positions, WEIGHT]), grown * grown],
            axis=1,
        )

    sums = merge.total(weighted)
    merged = base.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        for slot, column in ((WEIGHT, 0), (SUM_SQ_GRAD, 1)):
            step = sums[:, column] / increments
            merged[:, slot] += np.where(np.isfinite(step), step, 0.0)
    return merged


def _slot_increments(merge, slot):
    base = merge.base
    return merge.total(lambda positions, array: array[:, slot] - base[positions, slot])


def _rescaled_moves(merge):
    """Mirror descent's delayed update: G's increments summed, each shard's
    weight increment scaled by its step size over the merged one. Returns the
    merged state with G summed, the summed moves and their G-increment-weighted
    sum, and the merged 1/step."""
    p = merge.parameters
    base = merge.base
    merged = base.copy()
    merged[:, SUM_SQ_GRAD] += _slot_increments(merge, SUM_SQ_GRAD)
    scale = p.delta + np.sqrt(merged[:, SUM_SQ_GRAD])

    def moves(positions, array):
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (p.delta + np.sqrt(array[:, SUM_SQ_GRAD])) / scale[positions]
        ratio[~np.isfinite(ratio)] = 0.0
        move = (array[:, WEIGHT] - base[positions, WEIGHT]) * ratio
        grown = array[:, SUM_SQ_GRAD] - base[positions, SUM_SQ_GRAD]
        return np.stack([move, grown * move], axis=1)

    return merged, merge.total(moves), scale


def delayed(merge):
    """The summed, step-rescaled moves: exact where the gradients do not
    change within the interval."""
    merged, sums, _ = _rescaled_moves(merge)
    merged[:, WEIGHT] += sums[:, 0]
    return merged


def compensated(merge):
    """The delayed update with each shard's gradients corrected for the other
    shards' moves (a delay compensation with g^2 as the curvature)."""
    merged, sums, scale = _rescaled_moves(merge)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = 0.5 * merge.parameters.eta / scale
    c[~np.isfinite(c)] = 0.0
    grown = merged[:, SUM_SQ_GRAD] - merge.base[:, SUM_SQ_GRAD]
    merged[:, WEIGHT] += (sums[:, 0] + c * sums[:, 1]) / (1.0 + c * grown)
    return merged


def summed_dual_averaging(merge):
    """Dual averaging's u and G increments summed, the weights of the sums."""
    merged = merge.base.copy()
    for slot in (SUM_SQ_GRAD, SUM_GRAD):
        merged[:, slot] += _slot_increments(merge, slot)
    da_weights_all(merged, merge.t, *merge.parameters.steps())
    return merged


def summed_ftrl(merge):
    """FTRL's z and n increments summed, the weights of the sums."""
    p = merge.parameters
    merged = merge.base.copy()
    for slot in (N, Z):
        merged[:, slot] += _slot_increments(merge, slot)
    ftrl_weights_all(merged, 1.0 / p.alpha, p.beta, p.l1, p.l2)
    return merged


def rescaled_ftrl(merge):
    """FTRL's z and n increments summed, with the part of z that comes from
    the proximal terms (z = sum g - sum sigma w, sigma = (sqrt(n_t) -
    sqrt(n_{t-1})) / alpha) scaled to the merged n's growth: each shard's
    sigma sums to its own sqrt(n) growth, and those add up to more than the
    merged sqrt(n) grows (sqrt is concave), which over-counts the proximal
    pull on a coordinate every shard touches. A shard's sum sigma w is taken
    as its sigma sum times the mean of its start and end weights."""
    p = merge.parameters
    base = merge.base
    merged = base.copy()
    for slot in (N, Z):
        merged[:, slot] += _slot_increments(merge, slot)

    def proximal(positions, array):
        start = base[positions]
        sigma = (np.sqrt(array[:, N]) - np.sqrt(start[:, N])) / p.alpha
        mean_weight = 0.5 * (array[:, WEIGHT] + start[:, WEIGHT])
        return np.stack([sigma, sigma * mean_weight], axis=1)

    sums = merge.total(proximal)
    merged_sigma = (np.sqrt(merged[:, N]) - np.sqrt(base[:, N])) / p.alpha
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(sums[:, 0] > 0, merged_sigma / sums[:, 0], 1.0)
    merged[:, Z] += (1.0 - share) * sums[:, 1]
    ftrl_weights_all(merged, 1.0 / p.alpha, p.beta, p.l1, p.l2)
    return merged


def _weighted_moves(merge, weight_slot, information_slot):
    """The merge with each shard's weight increment weighted by its share of
    the information slot's increment (G, n) and that slot's increments
    summed: a coordinate one shard moved takes that shard's move, one every
    shard moved alike takes their mean move. Other slots as ``combined``."""
    base = merge.base
    merged = merge.combined()
    grown = _slot_increments(merge, information_slot)

    def weighted(positions, array):
        shard_grown = array[:, information_slot] - base[positions, information_slot]
        move = array[:, weight_slot] - base[positions, weight_slot]
        return np.stack([shard_grown * move, move], axis=1)

    sums = merge.total(weighted)
    with np.errstate(divide="ignore", invalid="ignore"):
        moves = np.where(grown > 0, sums[:, 0] / grown, sums[:, 1] / len(merge.shards))
    merged[:, weight_slot] = base[:, weight_slot] + moves
    merged[:, information_slot] = base[:, information_slot] + grown
    return merged


def weighted_mirror_descent(merge):
    return _weighted_moves(merge, WEIGHT, SUM_SQ_GRAD)


def weighted_dual_averaging(merge):
    from sk_adaprox._kernels.adagrad import da_sum_grad_from_weights

    steps = merge.parameters.steps()
    mapped = merge.mapped(lambda state, t: da_weights_all(state, t, *steps))
    merged = _weighted_moves(mapped, WEIGHT, SUM_SQ_GRAD)
    zero = merged[:, WEIGHT] == 0.0
    da_sum_grad_from_weights(merged, merge.t, *steps)
    for slot in (SUM_SQ_GRAD, SUM_GRAD):
        merged[:, slot][zero] = merge.summed(slot)[zero]
    da_weights_all(merged, merge.t, *steps)
    return merged


def weighted_ftrl(merge):
    from sk_adaprox._kernels.ftrl import z_from_weights

    p = merge.parameters
    arguments = (1.0 / p.alpha, p.beta, p.l1, p.l2)
    merged = _weighted_moves(merge, WEIGHT, N)
    zero = merged[:, WEIGHT] == 0.0
    z_from_weights(merged, *arguments)
    for slot in (N, Z):
        merged[:, slot][zero] = merge.summed(slot)[zero]
    ftrl_weights_all(merged, *arguments)
    return merged


def _mean(merge):
    base = merge.base
    change = merge.total(lambda positions, array: array - base[positions])
    return base + change / len(merge.shards)


def mean_mirror_descent(merge):
    return _mean(merge)


def mean_dual_averaging(merge):
    merged = _mean(merge)
    da_weights_all(merged, merge.t, *merge.parameters.steps())
    return merged


def mean_ftrl(merge):
    p = merge.parameters
    merged = _mean(merge)
    ftrl_weights_all(merged, 1.0 / p.alpha, p.beta, p.l1, p.l2)
    return merged


RULES = {
    "adagrad": {
        "mean": mean_mirror_descent,
        "vw": vw,
        "delayed": delayed,
        "compensated": compensated,
        "weighted": weighted_mirror_descent,
    },
    "adagrad_da": {
        "mean": mean_dual_averaging,
        "summed": summed_dual_averaging,
        "weighted": weighted_dual_averaging,
    },
    "ftrl": {
        "mean": mean_ftrl,
        "summed": summed_ftrl,
        "weighted": weighted_ftrl,
        "rescaled": rescaled_ftrl,
    },
    "ftrl_l1": {
        "mean": mean_ftrl,
        "summed": summed_ftrl,
        "weighted": weighted_ftrl,
        "rescaled": rescaled_ftrl,
    },
}

PARAMETERS = {
    "adagrad": (AdaGradClassifier, {"eta": 0.1, "l1": 0.0, "update": "mirror_descent"}),
    "adagrad_da": (
        AdaGradClassifier,
        {"eta": 0.1, "l1": 1e-5, "update": "dual_averaging"},
    ),
    "ftrl": (FTRLClassifier, {"alpha": 0.1, "l1": 0.0}),
    "ftrl_l1": (FTRLClassifier, {"alpha": 0.1, "l1": 1.0}),
}


REGRESSORS = {AdaGradClassifier: AdaGradRegressor, FTRLClassifier: FTRLRegressor}


def model(algorithm, rule, shards, sync, passes, regression=False):
    base, parameters = PARAMETERS[algorithm]
    if regression:
        base = REGRESSORS[base]
    estimator = base(
        max_iter=passes,
        tol=None,
        random_state=0,
        shards=shards,
        sync_rows=sync,
        **parameters,
    )
    if rule != "package":
        estimator._merge_shards = RULES[algorithm][rule]
    return estimator


def evaluate(estimator, data):
    """Fit on the training rows; the test ROC AUC (NaN where training
    diverged) and the non-zero weights."""
    X, y, X_test, y_test = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            estimator.fit(X, y)
        except ValueError:  # diverged
            return float("nan"), 0
    regression = not hasattr(estimator, "decision_function")
    scores = (estimator.predict if regression else estimator.decision_function)(X_test)
    if not np.isfinite(scores).all():
        return float("nan"), 0
    metric = r2_score if regression else roc_auc_score
    return float(metric(y_test, scores)), int(np.count_nonzero(estimator.coef_))


def runs(options):
    """(set, algorithm, rule, shards, sync) of every fit, serial first."""
    for name in options.sets.split(","):
        for algorithm in options.algorithms.split(","):
            yield name, algorithm, "serial", None, None
            for rule in options.rules.split(","):
                if rule != "package" and rule not in RULES[algorithm]:
                    continue
                for sync in options.syncs.split(","):
                    sync = None if sync == "none" else int(sync)
                    for shards in map(int, options.shards.split(",")):
                        yield name, algorithm, rule, shards, sync


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--shards", default="2,4,8,16,32,64")
    parser.add_argument("--syncs", default="none,1000,250")
    parser.add_argument("--algorithms", default="adagrad,adagrad_da,ftrl,ftrl_l1")
    parser.add_argument("--rules", default="package,mean,vw,delayed,compensated,summed")
    parser.add_argument("--out", default=None)
    options = parser.parse_args()
    results, loaded = [], {}
    for name, algorithm, rule, shards, sync in runs(options):
        if name not in loaded:
            loader = REGRESSION_SETS.get(name) or CLASSIFICATION_PANEL[name]
            loaded = {name: loader()}
        started = time.perf_counter()
        estimator = model(
            algorithm,
            "package" if shards is None else rule,
            shards,
            sync,
            SETS[name],
            regression=name in REGRESSION_SETS,
        )
        value, nonzero = evaluate(estimator, loaded[name])
        print(
            f"{name} {algorithm} {rule} sync={sync} k={shards} score {value:.4f} "
            f"non-zero {nonzero} {time.perf_counter() - started:.1f} s",
            flush=True,
        )
        results.append([name, algorithm, rule, shards, sync, value, nonzero])
        if options.out:
            Path(options.out).write_text(json.dumps(results))


if __name__ == "__main__":
    main()
