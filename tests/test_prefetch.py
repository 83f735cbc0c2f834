"""The kernels' prefetch hint: it compiles for every state the kernels pass it,
emits the processor's prefetch instruction, reads nothing out of bounds and
changes no value (the kernels' results are checked against the reference
implementations elsewhere; these tests check the hint itself)."""

import platform

import numba
import numpy as np
import pytest

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
