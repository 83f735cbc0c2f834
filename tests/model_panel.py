"""A fixed panel of small models, one per estimator, loss, update rule or matrix,
regularisation, averaging and way of training (fit, partial_fit, the defaults'
"auto" candidates), whose fitted arrays ``tests/data/model_panel.json`` records,
per model, by the SHA-256 of their names and bytes (dtype and shape included).

``tests/test_model_panel.py`` trains the panel again and checks every array bit
for bit: a change of the package's structure must leave the models exactly as
they were. After a change that is meant to change models, write the file anew
(and say why in the commit):

    python tests/model_panel.py

Bit for bit holds on one machine and one set of NumPy, SciPy and Numba versions
(LAPACK, which the sketch and the projections call, picks kernels by CPU): the file
records those, and the test runs only where they are the same.

This module is a test helper, not a test file.
"""

import hashlib
import json
import platform
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

# Run as a script too (python tests/model_panel.py records the panel): the test
# helpers beside it must be importable, so these imports follow the path entry.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from estimators import ALGORITHMS, make, state_of  # noqa: E402

from sk_adaprox import (  # noqa: E402
    AdaGradClassifier,
    AdaGradRegressor,
    CoinBettingClassifier,
    CoinBettingRegressor,
    FTRLClassifier,
    FTRLRegressor,
    ONSClassifier,
    ONSRegressor,
)

PANEL_FILE = Path(__file__).resolve().parent / "data" / "model_panel.json"

CLASSIFIER_LOSSES = (
    "log_loss",
    "hinge",
    "squared_hinge",
    "modified_huber",
    "squared_error",
)
REGRESSOR_LOSSES = ("squared_error", "huber", "epsilon_insensitive")
CHUNKS = ((0, 1), (1, 40), (40, 41), (41, 120))


def data():
    """120 rows x 15 features, half of them non-zero, standard normal values
    times 3 (so that ONS's scale is not 1); binary, 3-class and real targets
    (offset and scaled, so that normalize_y matters); 40 test rows."""
    rng = np.random.default_rng(12)
    X = sp.random(
        160,
        15,
        density=0.5,
        format="csr",
        random_state=rng,
        data_rvs=lambda n: 3.0 * rng.standard_normal(n),
    )
    scores = X @ rng.normal(size=15)
    y_binary = (scores + rng.normal(size=160) > 0).astype(int)
    y_classes = np.digitize(scores + rng.normal(size=160), [-2.0, 2.0])
    y_real = 50.0 + 10.0 * scores + rng.normal(size=160)
    weights = rng.uniform(0.5, 2.0, 160)
    return X[:120], X[120:], y_binary, y_classes, y_real, weights


def _configurations():
    """(name, make the estimator, kind, how to train) for the whole panel."""
    for algorithm in ALGORITHMS:
        for kind, losses in (
            ("binary", CLASSIFIER_LOSSES),
            ("multiclass", ("log_loss",)),
            ("regressor", REGRESSOR_LOSSES),
        ):
            for loss in losses:
                for mode in ("fit", "partial_fit"):
                    yield (
                        f"{algorithm}-{kind}-{loss}-{mode}",
                        lambda algorithm=algorithm, kind=kind, loss=loss: make(
                            algorithm, kind, loss=loss
                        ),
                        kind,
                        mode,
                    )
        variants = [{"average": True}, {"average": 30}]
        if ALGORITHMS[algorithm].regularized:
            variants += [
                {"l1": 1e-3},
                {"l2": 1e-2},
                {"l1": 1e-3, "l2": 1e-2},
                {"l1": 1e-3, "average": True},
            ]
        if algorithm.startswith("ons"):
            variants += [{"radius": 1.0}, {"radius": 1.0, "average": True}]
        variants.append({"early_stopping": True, "validation_fraction": 0.2})
        for params in variants:
            label = ",".join(f"{key}={value}" for key, value in params.items())
            for kind in ("binary", "multiclass", "regressor"):
                for mode in ("fit", "partial_fit"):
                    if "early_stopping" in params and mode == "partial_fit":
                        continue
                    yield (
                        f"{algorithm}-{kind}-{label}-{mode}",
                        lambda algorithm=algorithm, kind=kind, params=params: make(
                            algorithm, kind, **params
                        ),
                        kind,
                        mode,
                    )
    # Every estimator at its defaults: "auto" parameters chosen in the first pass
    # of fit, or kept as candidates by a stream of fewer than 1,000 rows.
    for estimator_class in (
        AdaGradClassifier,
        FTRLClassifier,
        ONSClassifier,
        CoinBettingClassifier,
    ):
        for kind in ("binary", "multiclass"):
            for mode in ("fit", "partial_fit"):
                yield (
                    f"{estimator_class.__name__}()-{kind}-{mode}",
                    estimator_class,
                    kind,
                    mode,
                )
    for estimator_class in (
        AdaGradRegressor,
        FTRLRegressor,
        ONSRegressor,
        CoinBettingRegressor,
    ):
        for mode in ("fit", "partial_fit"):
            yield (
                f"{estimator_class.__name__}()-regressor-{mode}",
                estimator_class,
                "regressor",
                mode,
            )


def _train(estimator, kind, mode, X, y, weights):
    if mode == "fit":
        params = {"random_state": 0}
        if "max_iter" in estimator.get_params() and not estimator.early_stopping:
            params.update(max_iter=3, tol=None)
        estimator.set_params(**params)
        estimator.fit(X, y, sample_weight=weights)
        return estimator
    classes = None if kind == "regressor" else np.unique(y)
    for start, stop in CHUNKS:
        rows = slice(start, stop)
        if classes is None:
            estimator.partial_fit(X[rows], y[rows], sample_weight=weights[rows])
        else:
            estimator.partial_fit(
                X[rows], y[rows], classes=classes, sample_weight=weights[rows]
            )
    return estimator


def environment():
    """What bit-for-bit results depend on besides the package: the versions of
    NumPy, SciPy and Numba, Python's, and the CPU."""
    import numba
    import scipy

    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "numba": numba.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu": cpu,
    }


def panel_digests():
    """Per model of the panel, the SHA-256 of its arrays (:func:`panel_arrays`):
    their names, dtypes, shapes and bytes, in the order of their names."""
    hashes = {}
    for name, value in sorted(panel_arrays().items()):
        model, array_name = name.rsplit("/", 1)
        value = np.ascontiguousarray(value)
        header = f"{array_name}{value.dtype.str}{value.shape}".encode()
        hashes.setdefault(model, hashlib.sha256()).update(header + value.tobytes())
    return {model: digest.hexdigest() for model, digest in hashes.items()}


def panel_arrays():
    """Every configuration's fitted arrays, by "configuration/array" name."""
    X, X_test, y_binary, y_classes, y_real, weights = data()
    targets = {"binary": y_binary, "multiclass": y_classes, "regressor": y_real}
    arrays = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, build, kind, mode in _configurations():
            y = targets[kind][:120]
            model = _train(build(), kind, mode, X, y, weights[:120])
            arrays[f"{name}/t_"] = np.array([model.t_])
            try:
                state = state_of(model)
            except TypeError:  # the defaults: their rule is chosen, not named
                state = {"coef_": model.coef_, "intercept_": model.intercept_}
            for attribute, value in state.items():
                arrays[f"{name}/{attribute}"] = np.array(value)
            scores = (
                model.predict(X_test)
                if kind == "regressor"
                else model.decision_function(X_test)
            )
            arrays[f"{name}/scores"] = np.asarray(scores)
    return arrays


if __name__ == "__main__":
    PANEL_FILE.parent.mkdir(exist_ok=True)
    record = {"environment": environment(), "models": panel_digests()}
    PANEL_FILE.write_text(json.dumps(record, indent=0, sort_keys=True) + "\n")
    print(f"{len(record['models'])} model digests written to {PANEL_FILE}")
