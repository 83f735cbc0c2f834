"""Full-matrix and sketched AdaGrad's cost per row against the width of the data,
one core.

    python benchmarks/bench_full_matrix.py [--repeats 3] [--cpu N] [--wide-only]

Dense standardised rows (n_features = 10, 50, 100 and 200; a regression with
correlated features), one epoch of ``AdaGradRegressor`` at fixed parameters:
``matrix="full"`` (mirror descent without and with ``l1``, dual averaging with
``l1``) against ``matrix="diag"``. The full matrix's kernel updates G's
eigendecomposition by each row's rank-one change (LAPACK's secular equation
solver, then the eigenvectors' rotation) and solves in that basis. Beside it:
the rank-one update alone (``sk_adaprox._kernels.eigen_update.rank_one_update``
on a G of full rank, its worst case: no eigenpair deflates), and two floors:
one ``numpy.linalg.eigh`` of an (n_features + 1)^2 matrix per row (what a
fresh eigendecomposition a row costs, the method before the update) and one
product of two (n_features + 1)^2 matrices (the rotation of the
eigenvectors, which the update cannot avoid). The sketch (``matrix="sketch"``,
m = 20) and ONS's full matrix run on the same rows, and the literal reference
of the tests (tests/reference_adagrad_full.py: explicit G, scipy's eigh and a
dense solve a row, mirror descent without l1). Microseconds per row, best of
``--repeats``.

Then the wide case: sparse rows of 10,000 features (100 non-zeros each), one
epoch of 2,000 rows, seconds per 10,000 rows: the sketched AdaGrad (m = 20)
against ONS's sketch (m = 20) and diagonal AdaGrad, and the floor of the
sketched AdaGrad's work: per row, one eigendecomposition of the sketch's 40 x 40
Gram matrix (the root of S^T S changes with every row) and one product of the
40 x 10,001 sketch with a vector.
"""

# ruff: noqa: E402

from _machine import limit_threads, pin, print_machine

limit_threads()

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _floors import best_time

from sk_adaprox import AdaGradRegressor, ONSRegressor
from sk_adaprox._kernels.eigen_update import rank_one_update
from sk_adaprox.exceptions import PoorFitWarning

# The tests' literal reference, timed beside the kernels.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference_adagrad_full import reference_full_adagrad

# One epoch of a few hundred rows is timed, not judged.
warnings.filterwarnings("ignore", category=PoorFitWarning)

WIDTHS = (10, 50, 100, 200)
VARIANTS = {
    "diag, mirror descent": dict(matrix="diag", update="mirror_descent", l1=0.0),
    "full, mirror descent": dict(matrix="full", update="mirror_descent", l1=0.0),
    "full, mirror descent, l1": dict(matrix="full", update="mirror_descent", l1=1e-3),
    "full, dual averaging, l1": dict(matrix="full", update="dual_averaging", l1=1e-3),
    "sketch m=20, mirror descent": dict(
        matrix="sketch", sketch_size=20, update="mirror_descent", l1=0.0
    ),
}
WIDE_FEATURES, WIDE_NNZ, WIDE_ROWS, SKETCH = 10_000, 100, 2_000, 20


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


def sketch_floor(n_rows, size, repeats):
    """Seconds of ``n_rows`` rounds of the sketch's least work a row: one
    eigendecomposition of a (2m)^2 Gram matrix (its root needs one) and one
    product of the sketch's transpose with a vector (the step's O(m d))."""
    rng = np.random.default_rng(2)
    S = rng.normal(size=(2 * SKETCH, size))
    gram = S @ S.T
    c = rng.normal(size=2 * SKETCH)

    def run():
        for _ in range(n_rows):
            np.linalg.eigh(gram)
            S.T @ c

    return best_time(run, repeats)


def rank_one_seconds(n_rows, size, repeats):
    """Seconds of ``n_rows`` rank-one updates of the eigendecomposition of a
    G of full rank (every eigenvalue distinct: nothing deflates)."""
    rng = np.random.default_rng(4)
    A = rng.normal(size=(size, 3 * size))
    values, vectors = np.linalg.eigh(A @ A.T)
    z = vectors.T @ rng.normal(size=size)
    new_values, new_vectors = np.empty(size), np.empty((size, size))
    rank_one_update(values, vectors, z, new_values, new_vectors)  # compiles

    def run():
        for _ in range(n_rows):
            rank_one_update(values, vectors, z, new_values, new_vectors)

    return best_time(run, repeats)


def rotation_floor(n_rows, size, repeats):
    """Seconds of ``n_rows`` products of two (size x size) matrices."""
    rng = np.random.default_rng(3)
    vectors, rotation = rng.normal(size=(2, size, size))

    def run():
        for _ in range(n_rows):
            vectors @ rotation

    return best_time(run, repeats)


def reference_seconds(X, y, repeats):
    """Seconds of the tests' literal full-matrix reference over X's rows."""
    params = dict(loss="squared_error", update="mirror_descent", eta=0.1)
    params.update(delta=0.1, l1=0.0, l2=0.0, fit_intercept=True)

    def run():
        reference_full_adagrad(X, y, np.ones(len(y)), n_outputs=1, **params)

    return best_time(run, repeats)


def fit_seconds(model, X, y, repeats):
    model.fit(X[:20], y[:20])  # compiles
    return best_time(lambda: model.fit(X, y), repeats)


def narrow_table(repeats):
    ons = "ONS full"
    columns = [*VARIANTS, ons, "literal reference", "rank-one update alone"]
    columns += ["floor: eigh per row", "floor of a rank-one update: one product"]
    print("| n_features | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for width in WIDTHS:
        n_rows = max(200, 200_000 // (width * width))
        X, y = problem(n_rows, width)
        cells = []
        for params in VARIANTS.values():
            model = AdaGradRegressor(
                eta=0.1, max_iter=1, tol=None, shuffle=False, **params
            )
            cells.append(f"{1e6 * fit_seconds(model, X, y, repeats) / n_rows:.1f}")
        model = ONSRegressor(matrix="full", l1=0.0, max_iter=1, tol=None, shuffle=False)
        cells.append(f"{1e6 * fit_seconds(model, X, y, repeats) / n_rows:.1f}")
        cells.append(f"{1e6 * reference_seconds(X, y, repeats) / n_rows:.1f}")
        update = rank_one_seconds(n_rows, width + 1, repeats)
        cells.append(f"{1e6 * update / n_rows:.1f}")
        floor = eigh_floor(n_rows, width + 1, repeats)
        cells.append(f"{1e6 * floor / n_rows:.1f}")
        floor = rotation_floor(n_rows, width + 1, repeats)
        cells.append(f"{1e6 * floor / n_rows:.1f}")
        print(f"| {width} | " + " | ".join(cells) + " |", flush=True)


def wide_table(repeats):
    X = sp.random(
        WIDE_ROWS, WIDE_FEATURES, density=WIDE_NNZ / WIDE_FEATURES, format="csr",
        random_state=0, data_rvs=np.random.default_rng(0).standard_normal,
    )  # fmt: skip
    y = X @ np.random.default_rng(1).normal(size=WIDE_FEATURES)
    models = {
        "AdaGrad sketch, m=20": AdaGradRegressor(
            matrix="sketch", sketch_size=SKETCH, eta=0.1, update="mirror_descent"
        ),
        "ONS sketch, m=20": ONSRegressor(matrix="sketch", sketch_size=SKETCH, l1=0.0),
        "AdaGrad diagonal": AdaGradRegressor(eta=0.1, update="mirror_descent", l1=0.0),
    }
    per = 10_000 / WIDE_ROWS
    print(f"\n{WIDE_FEATURES:,} features, {WIDE_NNZ} non-zeros a row: seconds per "
          "10,000 rows")  # fmt: skip
    print("| system | seconds |\n|---|---|")
    for name, model in models.items():
        model.set_params(max_iter=1, tol=None, shuffle=False)
        print(f"| {name} | {per * fit_seconds(model, X, y, repeats):.2f} |", flush=True)
    floor = sketch_floor(WIDE_ROWS, WIDE_FEATURES + 1, repeats)
    print(
        f"| floor: one eigh of S S^T and one product with S a row | {per * floor:.2f} |"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpu", type=int, default=0, help="the core to pin to")
    parser.add_argument("--wide-only", action="store_true")
    args = parser.parse_args()
    print_machine(pin(args.cpu))
    if not args.wide_only:
        narrow_table(args.repeats)
    wide_table(args.repeats)


if __name__ == "__main__":
    main()
