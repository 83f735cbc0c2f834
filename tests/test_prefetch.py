"""The kernels' prefetch hint: it compiles for every state the kernels pass it,
emits the processor's prefetch instruction, changes no value, and does nothing
where Numba's compiler is off (the kernels' results are checked against the
reference implementations elsewhere; these tests check the hint itself)."""

import platform

import numba
import numpy as np
import pytest
from new_process import run_python

from sk_adaprox._kernels.prefetch import AHEAD, prefetch_ahead


@numba.njit
def _score_with_prefetch(indices, state):
    total = 0.0
    end = indices.shape[0]
    for p in range(end):
        prefetch_ahead(indices, p, end, state)
        total += state[indices[p]].sum()
    return total


@pytest.mark.parametrize("shape", [(50, 3, 20), (50, 3, 1), (50, 9, 7), (50, 16)])
def test_the_hint_changes_no_value(shape):
    state = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    before = state.copy()
    # The last features included: their lines end at the array's last byte.
    indices = np.array([49, 0, 48, 3, 49, 7, 1, 49], dtype=np.int32)
    expected = sum(before[j].sum() for j in indices)
    assert _score_with_prefetch(indices, state) == expected
    np.testing.assert_array_equal(state, before)


def test_rows_shorter_than_the_distance_ahead_are_scored():
    state = np.ones((10, 2, 4))
    indices = np.arange(AHEAD - 1, dtype=np.int64)
    assert _score_with_prefetch(indices, state) == 8.0 * (AHEAD - 1)


@pytest.mark.skipif(
    platform.machine().lower() not in ("x86_64", "amd64"),
    reason="checks x86's prefetch instruction by name",
)
def test_the_compiled_loop_prefetches():
    state = np.ones((10, 3, 20))
    indices = np.arange(10, dtype=np.int64)
    _score_with_prefetch(indices, state)
    signature = _score_with_prefetch.signatures[-1]
    assembly = _score_with_prefetch.inspect_asm(signature)
    assert "prefetcht0" in assembly


def test_the_hint_is_a_no_op_without_the_compiler():
    # NUMBA_DISABLE_JIT=1 runs the kernels as Python: a multiclass pass and
    # the "auto" candidates side by side, the two places that call the hint.
    result = run_python(
        """
        import numpy as np
        from sk_adaprox import AdaGradClassifier, FTRLClassifier
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 3))
        three = rng.integers(0, 3, 40)
        FTRLClassifier(alpha=0.1, l1=0.0, max_iter=1).fit(X, three)
        AdaGradClassifier(max_iter=1).fit(X, three % 2)
        print("trained")
        """,
        env={"NUMBA_DISABLE_JIT": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "trained"
