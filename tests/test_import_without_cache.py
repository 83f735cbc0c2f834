"""``import sk_adaprox`` works where Numba has nowhere to write its cache."""

import pytest
from new_process import run_python

# Each test starts a new process that compiles a kernel without a cache.
pytestmark = pytest.mark.slow


def _run(code, env_extra=None):
    return run_python(code, unset=("NUMBA_CACHE_DIR",), env=env_extra)


def test_import_and_fit_with_no_cache_locator():
    # Emptying Numba's list of cache locators is what a read-only install with no
    # usable HOME looks like to it: cache=True then raises at decoration time.
    result = _run(
        """
        from numba.core import caching
        caching.CacheImpl._locator_classes = []
        import numba
        try:
            numba.njit(cache=True)(lambda x: x)
        except RuntimeError as error:
            print("numba refuses to cache:", error)
        else:
            raise SystemExit("the test setup did not disable caching")
        import numpy as np
        from sk_adaprox import AdaGradClassifier
        clf = AdaGradClassifier().fit(np.eye(4), [0, 1, 0, 1])
        print("fitted", clf.t_ > 0)
        """
    )
    assert result.returncode == 0, result.stderr
    assert "numba refuses to cache" in result.stdout
    assert "fitted True" in result.stdout


def test_cache_can_be_switched_off():
    result = _run(
        """
        from sk_adaprox._kernels import _jit, adagrad
        print(_jit.CACHE, adagrad.md_pass._cache.__class__.__name__)
        """,
        {"SK_ADAPROX_NUMBA_CACHE": "0"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "NullCache"]
