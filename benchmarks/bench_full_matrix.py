"""Full-matrix AdaGrad's cost per row against the width of the data, one core.

    python benchmarks/bench_full_matrix.py [--repeats 3] [--cpu N]

Dense standardised rows (n_features = 10, 50, 100 and 200; a regression with
correlated features), one epoch of ``AdaGradRegressor`` at fixed parameters:
``matrix="full"`` (mirror descent without and with ``l1``, dual averaging with
``l1``) against ``matrix="diag"``, with the floor of the full matrix's work: one
``numpy.linalg.eigh`` of an (n_features + 1)^2 matrix per row, the
eigendecomposition every row of the exact method computes (the rest of a row,
the root's product, a solve and the rank-one update of G, is O(d^3) and O(d^2)
beside it). Microseconds per row, best of ``--repeats``.
"""

# ruff: noqa: E402

from _machine import limit_threads, pin, print_machine

limit_threads()

import argparse
import warnings

import numpy as np
from _floors import best_time

from sk_adaprox import AdaGradRegressor
from sk_adaprox.exceptions import PoorFitWarning

# One epoch of a few hundred rows is timed, not judged.
warnings.filterwarnings("ignore", category=PoorFitWarning)

WIDTHS = (10, 50, 100, 200)
VARIANTS = {
    "diag, mirror descent": dict(matrix="diag", update="mirror_descent", l1=0.0),
    "full, mirror descent": dict(matrix="full", update="mirror_descent", l1=0.0),
    "full, mirror descent, l1": dict(matrix="full", update="mirror_descent", l1=1e-3),
    "full, dual averaging, l1": dict(matrix="full", update="dual_averaging", l1=1e-3),
}


def problem(n_samples, n_features, seed=0):
    rng = np.random.default_rng(seed)
    mixing = rng.normal(size=(n_features, n_features)) / np.sqrt(n_features)
    X = rng.normal(size=(n_samples, n_features)) @ mixing
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = X @ rng.normal(size=n_features) + rng.normal(size=n_samples)
    return X, y


def eigh_floor(n_rows, size, repeats):
    """Seconds of ``n_rows`` eigendecompositions of a (size x size) matrix."""
    rng = np.random.default_rng(1)
    A = rng.normal(size=(size, size))
    gram = A @ A.T

    def run():
        for _ in range(n_rows):
            np.linalg.eigh(gram)

    return best_time(run, repeats)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpu", type=int, default=0, help="the core to pin to")
    args = parser.parse_args()
    print_machine(pin(args.cpu))
    print("| n_features | " + " | ".join(VARIANTS) + " | floor: eigh per row |")
    print("|---|" + "---|" * (len(VARIANTS) + 1))
    for width in WIDTHS:
        n_rows = max(200, 200_000 // (width * width))
        X, y = problem(n_rows, width)
        cells = []
        for params in VARIANTS.values():
            model = AdaGradRegressor(
                eta=0.1, max_iter=1, tol=None, shuffle=False, **params
            )
            model.fit(X[:20], y[:20])  # compiles
            seconds = best_time(lambda m=model, X=X, y=y: m.fit(X, y), args.repeats)
            cells.append(f"{1e6 * seconds / n_rows:.1f}")
        floor = eigh_floor(n_rows, width + 1, args.repeats)
        cells.append(f"{1e6 * floor / n_rows:.1f}")
        print(f"| {width} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
