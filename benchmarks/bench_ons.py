"""Speed of the Online Newton Step estimators (issue 10), on one core.

Run: python benchmarks/bench_ons.py [--quick] [--repeats N] [--cpu N]
     [--parts full,diag,sketch]

Three parts, each timed in this one process (every contender warmed up first, so
compilation is excluded, then all contenders of a part timed in interleaved rounds,
each keeping its best time):

- **full**: per-row cost of ``ONSRegressor(matrix="full")`` (squared error, the
  default gamma and eps, read from the estimator; intercept fitted) for d = 100,
  1,000 and 3,000 on dense standardized rows (60,000, 1,800 and 60 rows: ours takes
  about 0.5 s or more on each). Every contender starts from a state
  already allocated (ours: a ``partial_fit`` of a few rows, which also compiles) and
  is timed on one more epoch of the rows, ``partial_fit`` for ours (validation
  included). Next to it, on the same rows with the same update:

  - NumPy, as one would write it: per row ``u = A_inv @ g``,
    ``A_inv -= np.outer(u, u) / (1 + g @ u)``, ``w -= (1/gamma) * A_inv @ g``;
  - the same with the step taken as ``u / (1 + g @ u)`` (one matrix-vector product
    fewer): the faster NumPy version, the one the target is stated against;
  - the floor: ``scipy.linalg.blas`` ``dsymv`` (u = A_inv g from one triangle) and
    ``dsyr`` (the rank-one update of that triangle, in place) per row, the least
    memory traffic of a matrix-vector product followed by a separate rank-one
    update; its Python call overhead (a few microseconds per row) matters only at
    small d.

- **diag**: one epoch (``fit``, ``max_iter=1, tol=None, shuffle=False``) of
  ``ONSClassifier(matrix="diag", l1=0)`` (log loss, otherwise the defaults: one
  model, where ``l1="auto"`` would run four candidates) on
  ``make_rare_features(160,000 + 40,000, 1,000,000, random_state=0)``, as
  ``bench_speed.py`` uses it (the last 40,000 rows give the test AUC), next to a
  minimal Numba diagonal-ONS loop written below (score and the running scale m,
  log-loss derivative, the row's curvature q = sum x^2 / (eps m + G), then per
  non-zero ``w -= g / (gamma (eps m + G) (1 + d^2 q)); G += g^2``, the intercept
  likewise: the estimator's rule, docs/ons.md; no validation or checks) on the
  same CSR arrays, its state allocated in the timing
  as ours is; and, as "info", the same loop with each feature's w and G side by
  side in one array (the estimators' layout).

- **sketch**: per-row time of ``ONSRegressor(matrix="sketch", sketch_size=m)`` for
  m in {5, 10, 20, 40} and d in {1,000, 4,000, 16,000} on dense standardized rows,
  timed in steady state (after a ``partial_fit`` that fills the sketch and shrinks
  it) on a number of rows that is a multiple of m (so every timing holds the same
  number of shrinks per row) chosen for about ``SKETCH_SECONDS`` per timing, the
  pool's rows reused when there are not enough. The cost model is O(m d) per row
  (the inserted row's border, the Woodbury step, the amortized shrink), plus O(d)
  (the dense input's conversion to CSR, scoring, the weight update): the script
  prints t / (m d) per cell, fits log t = c + alpha log m + beta log d and
  t = d (a + b m) by least squares over the twelve cells, and prints the latter's
  relative residuals.

``--quick`` shrinks everything (d = 50, 200, 400 for full; 16,000 + 4,000 rows x
100,000 features for diag; d = 500, 1,000, 2,000 for sketch): a smoke run of a few
seconds, too small for the targets to mean anything.

Targets (issue 10): ``full`` >= 3x faster than the (faster) NumPy version at
d = 1,000; ``diag`` >= 0.8x the minimal loop's throughput; ``sketch`` per-row time
growing no faster than linearly in m and in d: the exponents of a least-squares fit
of log t on log m and log d at most 1.1 (the fit of t = d (a + b m) and its
residuals are shown as "info"). The ratios to the BLAS floor are shown as "info".
"""

# The thread limits below must be in the environment before numpy and numba load,
# so the other imports follow them.
# ruff: noqa: E402

from _machine import limit_threads, peak_rss_gb, pin, print_machine

limit_threads()

import argparse
import gc
import math
import time
import warnings

import numba
import numpy as np
from _report import print_targets
from scipy.linalg.blas import dsymv, dsyr
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score

from sk_adaprox import ONSClassifier, ONSRegressor
from sk_adaprox.datasets import make_rare_features

# The peers use the estimators' default step parameter and damping.
GAMMA = ONSRegressor().get_params()["gamma"]
EPS = ONSRegressor().get_params()["eps"]
DIAG_GAMMA = ONSClassifier().get_params()["gamma"]
DIAG_EPS = ONSClassifier().get_params()["eps"]

FULL_SIZES = ((100, 60_000), (1_000, 1_800), (3_000, 60))  # (d, rows per timing)
QUICK_FULL_SIZES = ((50, 400), (200, 100), (400, 40))
SKETCH_MS = (5, 10, 20, 40)
SKETCH_DS = (1_000, 4_000, 16_000)
QUICK_SKETCH_DS = (500, 1_000, 2_000)
SKETCH_SECONDS = 0.3  # aimed-at length of one sketch timing
SKETCH_POOL_BYTES = 64e6  # rows generated per d (reused when a timing needs more)
TARGET_D = 1_000  # the full target's d


# ------------------------------------------------------------------------------------
# Helpers
# ------------------------------------------------------------------------------------


def interleaved_best(contenders, repeats):
    """Time each ``(key, run)`` in ``repeats`` interleaved rounds; best and all."""
    times = {key: [] for key, _ in contenders}
    for _ in range(repeats):
        for key, run in contenders:
            gc.collect()
            started = time.perf_counter()
            run()
            times[key].append(time.perf_counter() - started)
    return {key: min(values) for key, values in times.items()}, times


def dense_regression(n_samples, n_features, seed):
    """Gaussian rows (already standardized: mean 0, variance 1 per feature) and a
    standardized linear target with noise (R^2 about 0.8)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features))
    signal = X @ (rng.standard_normal(n_features) / math.sqrt(n_features))
    y = signal + 0.5 * rng.standard_normal(n_samples)
    return X, (y - y.mean()) / y.std()


# ------------------------------------------------------------------------------------
# full: the NumPy versions and the BLAS floor. State: A^{-1} over the d + 1
# coordinates (intercept last, feature 1), w of length d + 1; squared error.
# ------------------------------------------------------------------------------------


def numpy_full_epoch(X_tilde, y, a_inv, w, inverse_gamma):
    """The literal version: A^{-1} g recomputed after the update."""
    for i in range(X_tilde.shape[0]):
        x = X_tilde[i]
        g = (w @ x - y[i]) * x
        u = a_inv @ g
        a_inv -= np.outer(u, u) / (1.0 + g @ u)
        w -= inverse_gamma * (a_inv @ g)


def numpy_full_epoch_su(X_tilde, y, a_inv, w, inverse_gamma):
    """The same with A_t^{-1} g = u / (1 + g^T u) (Sherman-Morrison): one
    matrix-vector product per row fewer."""
    for i in range(X_tilde.shape[0]):
        x = X_tilde[i]
        g = (w @ x - y[i]) * x
        u = a_inv @ g
        rho = 1.0 + g @ u
        a_inv -= np.outer(u, u) / rho
        w -= (inverse_gamma / rho) * u


def blas_full_epoch(X_tilde, y, a_inv_lower, w, inverse_gamma):
    """The floor: ``a_inv_lower`` (Fortran order) holds A^{-1} in its lower
    triangle; dsymv reads it, dsyr updates it in place."""
    for i in range(X_tilde.shape[0]):
        x = X_tilde[i]
        g = (w @ x - y[i]) * x
        u = dsymv(1.0, a_inv_lower, g, lower=1)
        rho = 1.0 + g @ u
        dsyr(-1.0 / rho, u, lower=1, a=a_inv_lower, overwrite_a=True)
        w -= (inverse_gamma / rho) * u


def check_full_peers():
    """The three peers and ONSRegressor(matrix="full") learn the same model."""
    X, y = dense_regression(200, 30, seed=1)
    X_tilde = np.hstack([X, np.ones((X.shape[0], 1))])
    d1 = X_tilde.shape[1]
    ours = ONSRegressor(matrix="full").partial_fit(X, y)
    expected = np.append(ours.coef_, ours.intercept_)
    for epoch in (numpy_full_epoch, numpy_full_epoch_su, blas_full_epoch):
        a_inv = np.asfortranarray(np.eye(d1) / EPS)
        w = np.zeros(d1)
        epoch(X_tilde, y, a_inv, w, 1.0 / GAMMA)
        error = np.max(np.abs(w - expected)) / np.max(np.abs(expected))
        if error > 1e-8:
            raise AssertionError(f"{epoch.__name__} differs from ours: {error:.1e}")
        a = np.tril(a_inv) + np.tril(a_inv, -1).T
        if not np.allclose(a, ours.A_inv_, rtol=1e-8, atol=1e-12):
            raise AssertionError(f"{epoch.__name__}: A^-1 differs from ours")


def time_full(d, n, repeats):
    """Per-row best times of the four contenders on n rows of width d, and all runs."""
    X, y = dense_regression(n, d, seed=d)
    X_tilde = np.hstack([X, np.ones((n, 1))])
    inverse_gamma = 1.0 / GAMMA
    model = ONSRegressor(matrix="full").partial_fit(X[:5], y[:5])  # compiles
    a_inv_numpy = np.eye(d + 1) / EPS
    a_inv_su = np.eye(d + 1) / EPS
    a_inv_blas = np.asfortranarray(np.eye(d + 1) / EPS)
    w_numpy, w_su, w_blas = np.zeros(d + 1), np.zeros(d + 1), np.zeros(d + 1)
    contenders = [
        ("ours", lambda: model.partial_fit(X, y)),
        (
            "numpy",
            lambda: numpy_full_epoch(X_tilde, y, a_inv_numpy, w_numpy, inverse_gamma),
        ),
        (
            "numpy_su",
            lambda: numpy_full_epoch_su(X_tilde, y, a_inv_su, w_su, inverse_gamma),
        ),
        (
            "blas",
            lambda: blas_full_epoch(X_tilde, y, a_inv_blas, w_blas, inverse_gamma),
        ),
    ]
    best, times = interleaved_best(contenders, repeats)
    return {key: value / n for key, value in best.items()}, times


def bench_full(sizes, repeats):
    print(
        f"\n== full: one more epoch from an allocated state, best of {repeats} "
        "interleaved rounds"
    )
    check_full_peers()
    print("  (checked first: the peers and ours learn the same w and A^-1)")
    header = (
        f"  {'d':>6} {'rows':>6}  {'ours':>10} {'NumPy':>10} {'NumPy u/rho':>12}"
        f" {'BLAS floor':>11}   NumPy/ours  NumPy u/rho/ours  floor/ours"
    )
    results = {}
    for d, n in sizes:
        per_row, times = time_full(d, n, repeats)
        results[d] = per_row
        if len(results) == 1:
            print(header + "   (per-row times)")
        print(
            f"  {d:>6,} {n:>6,}  {per_row['ours'] * 1e6:7.1f} us"
            f" {per_row['numpy'] * 1e6:7.1f} us {per_row['numpy_su'] * 1e6:9.1f} us"
            f" {per_row['blas'] * 1e6:8.1f} us"
            f"   {per_row['numpy'] / per_row['ours']:10.2f}"
            f"  {per_row['numpy_su'] / per_row['ours']:16.2f}"
            f"  {per_row['blas'] / per_row['ours']:10.2f}",
            flush=True,
        )
        spread = "; ".join(
            f"{key} " + ", ".join(f"{t:.3f}" for t in values)
            for key, values in times.items()
        )
        print(f"         all runs (s): {spread}")
        # Memory traffic of one row: ours reads A^{-1} (u) and reads and writes it
        # (the update); the floor does each on one triangle.
        bytes_ours = 3 * 8 * (d + 1) ** 2
        print(
            f"         A^-1 is {8 * (d + 1) ** 2 / 1e6:.1f} MB; ours moves >= "
            f"{bytes_ours / per_row['ours'] / 1e9:.1f} GB/s, the floor >= "
            f"{bytes_ours / 2 / per_row['blas'] / 1e9:.1f} GB/s"
        )
        gc.collect()
    return results


# ------------------------------------------------------------------------------------
# diag: the minimal diagonal-ONS loop
# ------------------------------------------------------------------------------------


@numba.njit(cache=True)
def minimal_diag_ons_epoch(data, indices, indptr, y, w, G, inverse_gamma, eps):
    """One epoch of diagonal ONS, log loss, in row order; ``y`` is +-1. The
    intercept is w[-1], G[-1] (feature 1). The estimator's rule (docs/ons.md): the
    prior eps m with m the running mean square of the non-zero values, and the
    step's matrix the diagonal before the row plus the row's outer product
    (Sherman-Morrison). No validation, checks or projection."""
    b = w.shape[0] - 1
    scale_sum = 0.0
    scale_count = 0.0
    for i in range(indptr.shape[0] - 1):
        start = indptr[i]
        end = indptr[i + 1]
        score = w[b]
        for p in range(start, end):
            x = data[p]
            score += w[indices[p]] * x
            scale_sum += x * x
            scale_count += 1.0
        prior = eps * (scale_sum / scale_count) if scale_count > 0.0 else eps
        z = y[i] * score
        if z > 0.0:  # d = dloss/dscore = -y / (1 + exp(y * score)), without overflow
            e = math.exp(-z)
            d = -y[i] * e / (1.0 + e)
        else:
            d = -y[i] / (1.0 + math.exp(z))
        q = 1.0 / (eps + G[b])
        for p in range(start, end):
            q += data[p] * data[p] / (prior + G[indices[p]])
        step = inverse_gamma * d / (1.0 + d * d * q)
        for p in range(start, end):
            j = indices[p]
            x = data[p]
            w[j] -= step * x / (prior + G[j])
            G[j] += d * d * x * x
        w[b] -= step / (eps + G[b])
        G[b] += d * d


def minimal_diag_fit(X, y):
    """Allocate the state and run one epoch (allocation is timed: ours pays it too)."""
    w = np.zeros(X.shape[1] + 1)
    G = np.zeros(X.shape[1] + 1)
    y_pm = np.where(y == 1, 1.0, -1.0)
    minimal_diag_ons_epoch(
        X.data, X.indices, X.indptr, y_pm, w, G, 1.0 / DIAG_GAMMA, DIAG_EPS
    )
    return w


@numba.njit(cache=True)
def minimal_diag_ons_block_epoch(data, indices, indptr, y, state, inverse_gamma, eps):
    """The same with feature j's w and G side by side in ``state[j]`` (the layout
    of the estimators' state array): one cache line per non-zero instead of two."""
    b = state.shape[0] - 1
    scale_sum = 0.0
    scale_count = 0.0
    for i in range(indptr.shape[0] - 1):
        start = indptr[i]
        end = indptr[i + 1]
        score = state[b, 0]
        for p in range(start, end):
            x = data[p]
            score += state[indices[p], 0] * x
            scale_sum += x * x
            scale_count += 1.0
        prior = eps * (scale_sum / scale_count) if scale_count > 0.0 else eps
        z = y[i] * score
        if z > 0.0:
            e = math.exp(-z)
            d = -y[i] * e / (1.0 + e)
        else:
            d = -y[i] / (1.0 + math.exp(z))
        q = 1.0 / (eps + state[b, 1])
        for p in range(start, end):
            q += data[p] * data[p] / (prior + state[indices[p], 1])
        step = inverse_gamma * d / (1.0 + d * d * q)
        for p in range(start, end):
            j = indices[p]
            x = data[p]
            state[j, 0] -= step * x / (prior + state[j, 1])
            state[j, 1] += d * d * x * x
        state[b, 0] -= step / (eps + state[b, 1])
        state[b, 1] += d * d


def minimal_diag_block_fit(X, y):
    state = np.zeros((X.shape[1] + 1, 2))
    y_pm = np.where(y == 1, 1.0, -1.0)
    minimal_diag_ons_block_epoch(
        X.data, X.indices, X.indptr, y_pm, state, 1.0 / DIAG_GAMMA, DIAG_EPS
    )
    return state[:, 0].copy()


def one_diag_epoch():
    # l1=0: one model, the floor's work (the default l1="auto" runs four
    # candidates over the first pass; bench_candidates.py times that).
    return ONSClassifier(matrix="diag", l1=0.0, max_iter=1, tol=None, shuffle=False)


def bench_diag(n_train, n_test, n_features, repeats):
    started = time.perf_counter()
    X_all, y_all = make_rare_features(n_train + n_test, n_features, random_state=0)
    X, y, X_test, y_test = (
        X_all[:n_train],
        y_all[:n_train],
        X_all[n_train:],
        y_all[n_train:],
    )
    del X_all
    print(
        f"\n== diag: make_rare_features, train {X.shape[0]:,} x {X.shape[1]:,}, "
        f"{X.nnz:,} nnz ({X.nnz / X.shape[0]:.1f} per row), test {n_test:,} rows; "
        f"made in {time.perf_counter() - started:.1f} s; one epoch, best of "
        f"{repeats} interleaved rounds"
    )
    minimal_diag_fit(X[:2_000], y[:2_000])
    minimal_diag_block_fit(X[:2_000], y[:2_000])
    one_diag_epoch().fit(X[:2_000], y[:2_000])
    results = {}

    def run_minimal():
        results["minimal"] = minimal_diag_fit(X, y)

    def run_block():
        results["block"] = minimal_diag_block_fit(X, y)

    def run_ours():
        results["ours"] = one_diag_epoch().fit(X, y)

    best, times = interleaved_best(
        [("minimal", run_minimal), ("block", run_block), ("ours", run_ours)], repeats
    )
    # Every round learns the same models; score the last round's.
    auc = {
        "minimal": roc_auc_score(y_test, X_test @ results["minimal"][:-1]),
        "block": roc_auc_score(y_test, X_test @ results["block"][:-1]),
        "ours": roc_auc_score(y_test, results["ours"].decision_function(X_test)),
    }
    coef_gap = np.max(np.abs(results["minimal"][:-1] - results["ours"].coef_[0]))
    for key, label in (
        ("minimal", "minimal Numba diagonal-ONS loop (floor)"),
        ("block", "  the same, w and G side by side"),
        ("ours", 'ONSClassifier(matrix="diag", l1=0)'),
    ):
        runs = ", ".join(f"{t:.3f}" for t in times[key])
        print(
            f"  {label:<42} {best[key]:6.3f} s {X.nnz / best[key] / 1e6:6.1f} M nnz/s"
            f"  test AUC {auc[key]:.4f}  [{runs}]"
        )
    print(f"  largest |coef_ - minimal loop's w|: {coef_gap:.1e}")
    return best


# ------------------------------------------------------------------------------------
# sketch
# ------------------------------------------------------------------------------------


def sketch_contender(X, y, m, seconds):
    """A warmed-up sketched model (its sketch filled and shrunk once) and a run of
    n rows, n a multiple of m chosen for about ``seconds``; (run, n)."""
    model = ONSRegressor(matrix="sketch", sketch_size=m)
    model.partial_fit(X[: 2 * m + 1], y[: 2 * m + 1])  # compiles, shrinks
    started = time.perf_counter()
    model.partial_fit(X[: 2 * m], y[: 2 * m])
    estimate = (time.perf_counter() - started) / (2 * m)
    n = m * max(2, math.ceil(seconds / estimate / m))
    chunk = X.shape[0] - X.shape[0] % m

    def run():
        done = 0
        while done < n:  # the pool's rows again if n is larger
            take = min(n - done, chunk)
            model.partial_fit(X[:take], y[:take])
            done += take

    return run, n


def bench_sketch(ds, ms, repeats, seconds):
    print(
        f"\n== sketch: per-row time in steady state, best of {repeats} interleaved "
        f"rounds (about {seconds:g} s per timing)"
    )
    per_row = {}
    rows_timed = {}
    for d in ds:
        pool = max(4 * max(ms), int(SKETCH_POOL_BYTES / (8 * d)))
        X, y = dense_regression(pool, d, seed=d)
        contenders = []
        for m in ms:
            run, rows_timed[m, d] = sketch_contender(X, y, m, seconds)
            contenders.append(((m, d), run))
        best, _ = interleaved_best(contenders, repeats)
        for m in ms:
            per_row[m, d] = best[m, d] / rows_timed[m, d]
        del X, y, contenders
        gc.collect()
        print(f"  d = {d:,} done", flush=True)

    # Growth: least squares log t = c + alpha log m + beta log d. O(m d) per row
    # means alpha <= 1 (below 1: the O(d) part, scoring and the input's
    # conversion, weighs on small m) and beta about 1.
    cells = [(m, d) for d in ds for m in ms]
    t = np.array([per_row[cell] for cell in cells])
    logs = np.array([[1.0, math.log(m), math.log(d)] for m, d in cells])
    (_, alpha, beta), *_ = np.linalg.lstsq(logs, np.log(t), rcond=None)
    # The cost model t = d (a + b m), fitted with relative residuals (rows / t).
    design = np.array([[d, m * d] for m, d in cells], dtype=float) / t[:, None]
    (a, b), *_ = np.linalg.lstsq(design, np.ones(len(cells)), rcond=None)
    residual = {(m, d): per_row[m, d] / (d * (a + b * m)) - 1.0 for m, d in cells}

    def table(title, value, fmt):
        print(f"\n  {title}")
        print("  " + f"{'m':>4}" + "".join(f"{f'd = {d:,}':>22}" for d in ds))
        for m in ms:
            print(f"  {m:>4}" + "".join(format(value(m, d), fmt) for d in ds))

    table(
        "per-row time (us) [rows timed]",
        lambda m, d: f"{per_row[m, d] * 1e6:12.1f} [{rows_timed[m, d]:>6,}]",
        ">22",
    )
    table("t / (m d) (ns)", lambda m, d: per_row[m, d] / (m * d) * 1e9, "22.3f")
    print(
        f"\n  least squares log t = c + {alpha:.3f} log m + {beta:.3f} log d;"
        f"\n  least squares t = d (a + b m): a = {a * 1e9:.2f} ns per coordinate, "
        f"b = {b * 1e9:.3f} ns per coordinate and sketch row"
    )
    table("t / (d (a + b m)) - 1 (%)", lambda m, d: residual[m, d] * 100, "22.1f")
    return per_row, residual, (a, b), (alpha, beta)


# ------------------------------------------------------------------------------------
# Main
# ------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    parser.add_argument("--repeats", type=int, default=None, help="timed rounds")
    parser.add_argument("--cpu", type=int, default=0, help="core to pin to")
    parser.add_argument(
        "--parts", default="full,diag,sketch", help="comma-separated subset"
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    repeats = args.repeats or (2 if args.quick else 5)
    pinned = pin(args.cpu)
    warnings.simplefilter("ignore", ConvergenceWarning)

    print_machine(pinned)
    print(
        f"  defaults: ONSRegressor gamma={GAMMA:g}, eps={EPS:g}; ONSClassifier "
        f"gamma={DIAG_GAMMA:g}, eps={DIAG_EPS:g}"
    )
    rows = []
    if "full" in parts:
        sizes = QUICK_FULL_SIZES if args.quick else FULL_SIZES
        full = bench_full(sizes, repeats)
        target_d = TARGET_D if TARGET_D in full else sizes[1][0]
        for d, t in full.items():
            label = f"full, d={d:,}"
            rows.append(
                (
                    f"{label}: NumPy (u/rho) / ours",
                    t["numpy_su"] / t["ours"],
                    ">= 3" if d == target_d else "info",
                )
            )
            rows.append(
                (f"{label}: NumPy (literal) / ours", t["numpy"] / t["ours"], "info")
            )
            rows.append((f"{label}: BLAS floor / ours", t["blas"] / t["ours"], "info"))
            rows.append((f"{label}: ours per row (ms)", t["ours"] * 1e3, "info"))
    if "diag" in parts:
        n_train, n_test, n_features = (
            (16_000, 4_000, 100_000) if args.quick else (160_000, 40_000, 1_000_000)
        )
        diag = bench_diag(n_train, n_test, n_features, repeats)
        rows.append(
            (
                "diag: minimal loop / ours (epoch time)",
                diag["minimal"] / diag["ours"],
                ">= 0.8",
            )
        )
        rows.append(
            (
                "diag: minimal loop, w and G side by side / ours",
                diag["block"] / diag["ours"],
                "info",
            )
        )
        rows.append(("diag: ours, one epoch (s)", diag["ours"], "info"))
    if "sketch" in parts:
        ds = QUICK_SKETCH_DS if args.quick else SKETCH_DS
        seconds = 0.03 if args.quick else SKETCH_SECONDS
        _, residual, (a, b), (alpha, beta) = bench_sketch(
            ds, SKETCH_MS, repeats, seconds
        )
        rows.append(("sketch: growth exponent in d (log-log fit)", beta, "<= 1.1"))
        rows.append(("sketch: growth exponent in m (log-log fit)", alpha, "<= 1.1"))
        rows.append(
            (
                "sketch: max |t / (d (a + b m)) - 1|",
                max(abs(r) for r in residual.values()),
                "info",
            )
        )
        rows.append(("sketch: a (ns per coordinate)", a * 1e9, "info"))
        rows.append(("sketch: b (ns per coordinate and m)", b * 1e9, "info"))
    print(f"\n  peak RSS: {peak_rss_gb():.2f} GB")
    print_targets("Summary (best-of-rounds times; ratios of those)", rows)
    if args.quick:
        print("\n(--quick: small sizes; the targets are for the full run.)")


if __name__ == "__main__":
    main()
