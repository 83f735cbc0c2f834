"""A partial_fit call costs its own non-zeros, never O(n_features).

The same 100-row batch is learned by a model 2**16 features wide and by one 2**24
wide (a 400 MB state for FTRL). Counted, not timed: the memory the call allocates
(tracemalloc, which sees NumPy's allocations) and the memory it touches (growth of
the resident set: the state is allocated zeroed and lazily mapped, so any sweep
over all features would make hundreds of MB resident).

A stream whose parameters are ``"auto"`` (the classifiers' defaults) keeps one state
per candidate for its first 1,000 rows. Hashed features spread a batch's non-zeros
over the whole width, so each candidate's state is touched here and there: it must
become resident only where it is written, page by page, not whole.
"""

import resource
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from estimators import make

from sk_adaprox import ONSClassifier, ONSRegressor

# 400 MB states, page-fault counts, and a new process of its own.
pytestmark = pytest.mark.slow

NARROW = 2**16
WIDE = 2**24
_STATM = Path("/proc/self/statm")

# Every algorithm with a diagonal state, with and without regularisation (lazy for
# AdaGrad's mirror descent and ONS's l1).
CASES = {
    "ftrl": dict(l1=0.5, l2=0.1),
    "adagrad_md": dict(l1=1e-6, l2=1e-6),
    "adagrad_da": dict(l1=1e-6, l2=1e-6),
    "adagrad_md-unregularised": {},
    "adagrad_da-unregularised": {},
    "ons_diag_l1": {},
    "coin": {},
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
    its peak, bytes made resident by both calls, page faults of the second call).

    The first call allocates the state zeroed, which maps it without touching it,
    so the resident growth over both calls counts the state that the calls write;
    reading untouched pages makes nothing resident but faults them in, so the
    minor page faults count a read-only sweep too.
    """
    batches = [_batch(n_features, seed) for seed in (0, 1)]
    if kind == "regressor":
        batches = [(X, y.astype(float)) for X, y in batches]
    model = make(algorithm.split("-")[0], kind, **params)
    extra = {"classes": [0, 1]} if kind != "regressor" else {}
    resident = _resident_bytes()
    model.partial_fit(*batches[0], **extra)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    tracemalloc.start()
    try:
        model.partial_fit(*batches[1])
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, _resident_bytes() - resident, faults


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the resident set in /proc"
)
@pytest.mark.parametrize("kind", ["binary", "regressor"])
@pytest.mark.parametrize("algorithm", list(CASES))
def test_partial_fit_cost_does_not_grow_with_n_features(algorithm, kind):
    params = CASES[algorithm]
    # The narrow run first: it also compiles, so that the wide run's resident
    # growth is the calls' own.
    narrow_peak, _, narrow_faults = _streaming_cost(algorithm, kind, params, NARROW)
    wide_peak, wide_resident, wide_faults = _streaming_cost(
        algorithm, kind, params, WIDE
    )
    # A sweep over the wide state would allocate or touch at least 2**24 * 8 bytes
    # (128 MB); the calls themselves need a few kB for their 13,200 non-zeros.
    assert wide_peak <= narrow_peak + 64 * 1024
    assert wide_resident < 32 * 2**20
    # Reading the whole wide state faults in at least 400 MB / 2 MB = 200 (huge)
    # pages; the second batch's rows fall on pages the first batch faulted in.
    assert wide_faults < narrow_faults + 100, (narrow_faults, wide_faults)


_FAULT_COUNT = r"""
import ctypes, json, resource, sys
import numpy as np, scipy.sparse as sp
sys.path.insert(0, sys.argv[1])
# No transparent huge pages: each 4 kB page read or written for the first time
# is one minor fault, so sweeping a 400 MB state costs about 100,000.
assert ctypes.CDLL(None).prctl(41, 1, 0, 0, 0) == 0  # PR_SET_THP_DISABLE
from estimators import make

from sk_adaprox import ONSClassifier, ONSRegressor
from test_streaming_cost import CASES, WIDE, _batch

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

counts = {}
for name, params in CASES.items():
    for kind in ("binary", "regressor"):
        batches = [_batch(WIDE, seed) for seed in (0, 1)]
        if kind == "regressor":
            batches = [(X, y.astype(float)) for X, y in batches]
        extra = {"classes": [0, 1]} if kind != "regressor" else {}
        make(name.split("-")[0], kind, **params).partial_fit(*batches[0], **extra)
        model = make(name.split("-")[0], kind, **params)
        before = faults()
        model.partial_fit(*batches[0], **extra)
        model.partial_fit(*batches[1])
        counts[f"{name} {kind}"] = faults() - before
# The detector itself: a read-only sweep of a wide state that no call touched.
model = make("ftrl", "binary").partial_fit(*_batch(WIDE, 0), classes=[0, 1])
before = faults()
model.predict(_batch(WIDE, 1)[0])
float(model._state[:, 0, 0].sum())
counts["read-only sweep"] = faults() - before
print(json.dumps(counts))
"""


@pytest.fixture(scope="module")
def page_faults():
    """Minor page faults of two partial_fit calls on a new 2**24-wide model, per
    case, counted in a fresh process without transparent huge pages."""
    import json
    import subprocess

    result = subprocess.run(
        [sys.executable, "-c", _FAULT_COUNT, str(Path(__file__).parent)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0 and "PR_SET_THP_DISABLE" in result.stderr:
        pytest.skip("this kernel cannot disable transparent huge pages (prctl)")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="counts page faults with prctl"
)
@pytest.mark.parametrize("kind", ["binary", "regressor"])
@pytest.mark.parametrize("algorithm", list(CASES))
def test_partial_fit_reads_no_o_n_features_memory(algorithm, kind, page_faults):
    """Reading memory that no call wrote costs no resident memory, so it needs its
    own count: page faults. The calls fault in the pages of the features the rows
    touch (a few hundred); a sweep over the state faults in 100,000."""
    sweep = page_faults["read-only sweep"]
    assert sweep > 50_000, "the fault counter cannot see a sweep on this machine"
    assert page_faults[f"{algorithm} {kind}"] < sweep / 20


# The estimators whose defaults choose among candidates in a stream's first rows.
AUTO_DEFAULTS = {
    "AdaGradClassifier()": lambda: make("adagrad_da", "binary", eta="auto", l1="auto"),
    "FTRLClassifier()": lambda: make("ftrl", "binary", alpha="auto", l1="auto"),
    "ONSClassifier()": ONSClassifier,
    "ONSRegressor()": ONSRegressor,
}


def _hashed_batch(n_features, seed, n_rows=20, per_row=20):
    """Rows whose columns spread over the whole width, as hashed features do."""
    rng = np.random.default_rng(seed)
    indices = np.concatenate(
        [np.sort(rng.choice(n_features, per_row, replace=False)) for _ in range(n_rows)]
    )
    indptr = np.arange(0, n_rows * per_row + 1, per_row)
    X = sp.csr_matrix(
        (np.ones(indices.shape[0]), indices, indptr), shape=(n_rows, n_features)
    )
    return X, rng.integers(0, 2, n_rows)


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads the resident set in /proc"
)
@pytest.mark.parametrize("name", list(AUTO_DEFAULTS))
def test_a_stream_choosing_among_candidates_is_resident_where_written(name):
    n_features = 2**22
    batches = [_hashed_batch(n_features, seed) for seed in (0, 1)]
    # Compile on a narrow stream first, so that the growth below is the state's.
    warm = AUTO_DEFAULTS[name]()
    narrow = [(X[:, :1024], y) for X, y in (_hashed_batch(1024, 2),)]
    is_regressor = "Regressor" in name
    extra = {} if is_regressor else {"classes": [0, 1]}
    warm.partial_fit(*narrow[0], **extra)
    model = AUTO_DEFAULTS[name]()
    resident = _resident_bytes()
    for X, y in batches:
        model.partial_fit(X, y.astype(float) if is_regressor else y, **extra)
    grown = _resident_bytes() - resident
    n_candidates = len(model._stream_choice.states)
    assert n_candidates >= 4  # still choosing: every candidate is kept
    state_bytes = model._state.nbytes
    # 800 non-zeros touch at most 800 pages of 4 kB per candidate (13 MB for 16);
    # states resident whole would take n_candidates * state_bytes (0.4-1.6 GB).
    assert grown < 64 * 2**20, (grown, n_candidates, state_bytes)
