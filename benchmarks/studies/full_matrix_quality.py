"""One pass of full-matrix and sketched AdaGrad against the diagonal, on dense
correlated data, each at its own best step size.

Run: python benchmarks/studies/full_matrix_quality.py [--sets ...] [--rows N]

For each set, ``AdaGradRegressor``/``AdaGradClassifier`` with mirror descent,
no regularisation, ``matrix`` = "diag", "full" and "sketch" (``sketch_size``
20), at every ``eta`` of a grid, and GGT (Agarwal, Bullins, Chen, Hazan, Singh,
Zhang & Zhang, "Efficient Full-Matrix Adaptive Regularization", ICML 2019; the
alternative to a sketch: the metric of the last 20 gradients alone, here in
plain NumPy); one pass over the rows in their order, the progressive loss
(each row's loss before the model learns from it: squared error over the
target's variance for regression, so 1 is the mean's loss; log loss for
classification), and the best ``eta`` of each. Regression targets are
standardised once, up front, with the whole set's mean and deviation (so that
GGT, which has no ``normalize_y``, sees the same problem). The sets:

- ijcnn1 (22 features, not standardised; its first 20,000 training rows);
- a rotated, ill-conditioned synthetic regression: 50 Gaussian features with
  scales 1 to 1/100 along random orthogonal directions, a linear target and
  noise (20,000 rows);
- California housing (8 features as published, raw dollars and counts);
- Million Song's 6,724 songs (12 timbre averages, not standardised).

docs/adagrad.md quotes the table.
"""

import argparse
import sys
import time
from pathlib import Path

# The shared helpers (_data, ...) are in benchmarks/, one folder up.
# ruff: noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from _data import _cal_housing, _millionsong, _svmlight
from sklearn.metrics import log_loss, mean_squared_error

from sk_adaprox import AdaGradClassifier, AdaGradRegressor, progressive_val_predict

ETAS = (1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
MATRICES = ("diag", "full", "sketch", "GGT")
DELTA, WINDOW = 0.1, 20


def ijcnn1(rows):
    X, y = _svmlight("ijcnn1.trn.xz", n_features=22)
    return X.toarray()[:rows], (y[:rows] > 0).astype(int), "classification"


def rotated(rows, n_features=50, seed=0):
    rng = np.random.default_rng(seed)
    rotation, _ = np.linalg.qr(rng.normal(size=(n_features, n_features)))
    scales = np.logspace(0, -2, n_features)
    X = (rng.normal(size=(rows, n_features)) * scales) @ rotation
    y = X @ rng.normal(size=n_features) / scales.mean() + rng.normal(size=rows)
    return X, y, "regression"


def california(rows):
    X, y = _cal_housing()
    order = np.random.default_rng(0).permutation(len(y))[:rows]
    return X[order], y[order], "regression"


def millionsong(rows):
    X, y = _millionsong()
    return X[:rows], y[:rows], "regression"


SETS = {
    "ijcnn1": ("ijcnn1, raw", ijcnn1),
    "rotated": ("rotated synthetic, d = 50", rotated),
    "california": ("California housing, raw", california),
    "millionsong": ("Million Song, raw", millionsong),
}


def ggt_predictions(task, eta, X, y):
    """GGT's progressive predictions: w <- w - eta H^{-1} g with H = delta I +
    (W^T W)^{1/2}, W the last ``WINDOW`` gradients (over x~ = [x, 1])."""
    rows = np.hstack([X, np.ones((X.shape[0], 1))])
    w = np.zeros(rows.shape[1])
    window = np.zeros((0, rows.shape[1]))
    predictions = np.empty(X.shape[0])
    for i, x in enumerate(rows):
        score = x @ w
        if task == "classification":
            score = 0.5 * (1.0 + np.tanh(0.5 * score))  # the probability of 1
        predictions[i] = score
        g = (score - y[i]) * x  # squared error's and log loss's gradient
        window = np.vstack([window[1 - WINDOW :], g]) if WINDOW > 1 else g[None]
        values, vectors = np.linalg.eigh(window @ window.T)
        kept = values > values.max() * len(x) * np.finfo(float).eps
        directions = window.T @ vectors[:, kept] / np.sqrt(values[kept])
        along = directions.T @ g
        step = (g - directions @ along) / DELTA
        step += directions @ (along / (DELTA + np.sqrt(values[kept])))
        w -= eta * step
    return predictions


def progressive_loss(task, matrix, eta, X, y):
    if matrix == "GGT":
        predictions = ggt_predictions(task, eta, X, y)
        if task == "classification":
            return log_loss(y, np.clip(predictions, 1e-15, 1 - 1e-15), labels=[0, 1])
        return mean_squared_error(y, predictions) / np.var(y)
    common = dict(matrix=matrix, eta=eta, update="mirror_descent", l1=0.0)
    if matrix == "sketch":
        common["sketch_size"] = 20
    if task == "classification":
        model = AdaGradClassifier(**common)
        p = progressive_val_predict(
            model, X, y, classes=np.unique(y), method="predict_proba"
        )
        return log_loss(y, p, labels=[0, 1])
    model = AdaGradRegressor(normalize_y=False, **common)
    predictions = progressive_val_predict(model, X, y)
    return mean_squared_error(y, predictions) / np.var(y)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--rows", type=int, default=20_000)
    args = parser.parse_args()
    print("| set | rows × features | " + " | ".join(MATRICES) + " |")
    print("|---|---|" + "---|" * len(MATRICES))
    for key in args.sets.split(","):
        name, load = SETS[key]
        X, y, task = load(args.rows)
        if task == "regression":
            y = (y - y.mean()) / y.std()
        cells = []
        for matrix in MATRICES:
            started = time.perf_counter()
            with np.errstate(all="ignore"):
                losses = {}
                for eta in ETAS:
                    try:
                        losses[eta] = progressive_loss(task, matrix, eta, X, y)
                    except (ValueError, np.linalg.LinAlgError):  # diverged
                        losses[eta] = np.inf
                    if not np.isfinite(losses[eta]):
                        losses[eta] = np.inf
            best = min(losses, key=losses.get)
            seconds = time.perf_counter() - started
            cells.append(f"{losses[best]:.4f} (eta {best:g}; {seconds:.0f} s)")
        shape = f"{X.shape[0]:,} × {X.shape[1]}"
        print(f"| {name} | {shape} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
