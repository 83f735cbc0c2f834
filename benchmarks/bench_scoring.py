"""Batch scoring: ``decision_function`` over many CSR rows, for every way a
model serves its weights, against a minimal compiled loop over the same rows.

Every served weight goes through one shared CSR loop
(``sk_adaprox._kernels.sparse.csr_scorer``): weights kept current in the state,
mirror descent's lazily regularised weights, dual averaging's closed form, coin
betting's bets and the mean iterates of ``average``. The floor is the simplest
code doing the stored-weight case's work: a loop written out by hand over the
rows and the model's state array (one output, the intercept added), called on
the validated arrays; the estimator's call adds its input checks (finite
values, repeated columns: O(nnz) each) and output handling. A loop over
``coef_`` copied into a plain array reads a third of the memory and is shown
for information. The paths that compute a weight when they read it do more per
non-zero than the floor; their ratios are information.

    python benchmarks/bench_scoring.py --cpu 1 [--quick]
"""

# ruff: noqa: E402

from _machine import limit_threads, pin, print_machine

limit_threads()

import argparse

import numba
import numpy as np
from _floors import best_time
from _report import print_targets
from bench_streaming import power_law_rows

from sk_adaprox import (
    AdaGradClassifier,
    CoinBettingClassifier,
    FTRLClassifier,
)

PATHS = {
    "stored (FTRL)": lambda: FTRLClassifier(alpha=0.1, l1=0.0),
    "lazy l1+l2 (md)": lambda: AdaGradClassifier(
        update="mirror_descent", eta=0.1, l1=1e-6, l2=1e-6
    ),
    "closed form (da l1)": lambda: AdaGradClassifier(eta=0.1, l1=1e-6),
    "bets (coin)": lambda: CoinBettingClassifier(),
    "mean iterates (FTRL)": lambda: FTRLClassifier(alpha=0.1, l1=0.0, average=True),
    "mean iterates (md l1)": lambda: AdaGradClassifier(
        update="mirror_descent", eta=0.1, l1=1e-6, average=True
    ),
}


@numba.njit(nogil=True)
def minimal_scores(data, indices, indptr, state, out):
    """``out[i] = sum_j x_ij state[j, 0, 0] + intercept``: the floor."""
    for i in range(indptr.shape[0] - 1):
        total = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            total += data[p] * state[indices[p], 0, 0]
        out[i] = total + state[state.shape[0] - 1, 0, 0]


@numba.njit(nogil=True)
def minimal_coef_scores(data, indices, indptr, coef, out):
    """``out[i] = sum_j x_ij coef[j]`` over a plain array of the weights."""
    for i in range(indptr.shape[0] - 1):
        total = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            total += data[p] * coef[indices[p]]
        out[i] = total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rows")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cpu", type=int, default=0, help="core to pin to")
    args = parser.parse_args()
    print_machine(pin(args.cpu))
    n_rows = 20_000 if args.quick else 200_000
    X, y = power_law_rows(n_rows, 2**20)
    train = slice(0, n_rows // 4)
    print(f"== Scoring {X.shape[0]:,} rows x {X.shape[1]:,} ({X.nnz:,} non-zeros)")
    seconds = {}
    for name, make in PATHS.items():
        model = make().fit(X[train], y[train])
        model.decision_function(X[:10])  # compiled before timing
        seconds[name] = best_time(lambda m=model: m.decision_function(X), args.repeats)
    stored = PATHS["stored (FTRL)"]().fit(X[train], y[train])
    state = stored._state  # the model's own array, read where it is
    coef = np.ascontiguousarray(stored.coef_[0])
    out = np.empty(X.shape[0])
    floors = {}
    for name, loop, weights in (
        ("minimal loop", minimal_scores, state),
        ("minimal loop, coef_", minimal_coef_scores, coef),
    ):
        loop(X.data, X.indices, X.indptr, weights, out)
        floors[name] = best_time(
            lambda f=loop, w=weights: f(X.data, X.indices, X.indptr, w, out),
            args.repeats,
        )
    floor = floors["minimal loop"]
    for name, value in {**floors, **seconds}.items():
        print(f"  {name:<22} {X.shape[0] / value / 1e6:6.2f} M rows/s")
    rows = [
        ("minimal loop / stored weights", floor / seconds["stored (FTRL)"], ">= 0.7"),
        (
            "  minimal loop, coef_ / stored",
            floors["minimal loop, coef_"] / seconds["stored (FTRL)"],
            "info",
        ),
    ]
    rows += [
        (f"  minimal loop / {name}", floor / value, "info")
        for name, value in seconds.items()
        if name != "stored (FTRL)"
    ]
    print_targets("Summary", rows)


if __name__ == "__main__":
    main()
