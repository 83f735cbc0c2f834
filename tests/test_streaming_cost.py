"""A partial_fit call costs its own non-zeros, never O(n_features).

The same 100-row batch is learned by a model 2**16 features wide and by one 2**24
wide (a 400 MB state for FTRL). Counted, not timed: the memory the call allocates
(tracemalloc, which sees NumPy's allocations) and the memory it touches (growth of
the resident set: the state is allocated zeroed and lazily mapped, so any sweep
over all features would make hundreds of MB resident).
"""

import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from estimators import make

NARROW = 2**16
WIDE = 2**24
_STATM = Path("/proc/self/statm")

# Every algorithm, with and without regularisation (lazy for AdaGrad).
CASES = {
    "ftrl": dict(l1=0.5, l2=0.1),
    "adagrad_md": dict(l1=1e-6, l2=1e-6),
    "adagrad_da": dict(l1=1e-6, l2=1e-6),
    "adagrad_md-unregularised": {},
    "adagrad_da-unregularised": {},
}


def _batch(n_features, seed):
    """100 rows of ~66 non-zeros; the columns fall below 2**16 so that the narrow
    and the wide model see the same rows."""
    rng = np.random.default_rng(seed)
    X = sp.random_array(
        (100, NARROW), density=66 / NARROW, format="csr", rng=rng, dtype=np.float64
    )
    X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(100, n_features))
    y = (X @ np.ones(n_features) > np.median(X @ np.ones(n_features))).astype(int)
    return X, y


def _resident_bytes():
    return int(_STATM.read_text().split()[1]) * 4096


def _streaming_cost(algorithm, kind, params, n_features):
    """Two partial_fit calls on a new model: (bytes the second call allocates at
    its peak, bytes made resident by both calls).

    The first call allocates the state zeroed, which maps it without touching it,
    so the resident growth over both calls counts the state that the calls touch.
    """
    batches = [_batch(n_features, seed) for seed in (0, 1)]
    if kind == "regressor":
        batches = [(X, y.astype(float)) for X, y in batches]
    model = make(algorithm.split("-")[0], kind, **params)
    extra = {"classes": [0, 1]} if kind != "regressor" else {}
    resident = _resident_bytes()
    model.partial_fit(*batches[0], **extra)
    tracemalloc.start()
    try:
        model.partial_fit(*batches[1])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, _resident_bytes() - resident


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the resident set in /proc"
)
@pytest.mark.parametrize("kind", ["binary", "regressor"])
@pytest.mark.parametrize("algorithm", list(CASES))
def test_partial_fit_cost_does_not_grow_with_n_features(algorithm, kind):
    params = CASES[algorithm]
    # The narrow run first: it also compiles, so that the wide run's resident
    # growth is the calls' own.
    narrow_peak, _ = _streaming_cost(algorithm, kind, params, NARROW)
    wide_peak, wide_resident = _streaming_cost(algorithm, kind, params, WIDE)
    # A sweep over the wide state would allocate or touch at least 2**24 * 8 bytes
    # (128 MB); the calls themselves need a few kB for their 13,200 non-zeros.
    assert wide_peak <= narrow_peak + 64 * 1024
    assert wide_resident < 32 * 2**20
