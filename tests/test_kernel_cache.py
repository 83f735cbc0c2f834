"""The kernels' disk cache is keyed on every kernel source file.

Numba's own key is the one file defining a function, so a pass kernel in one module
would keep a stale copy of an edited helper from another module. These tests edit a
copy of the package and check that the cache notices.
"""

import json
import shutil
from pathlib import Path

import pytest
from new_process import run_python

import sk_adaprox

# Three new processes; two of them compile a kernel.
pytestmark = pytest.mark.slow

_FIT = """
    import json
    import numpy as np
    from sk_adaprox import AdaGradRegressor
    from sk_adaprox._kernels import adagrad
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    reg = AdaGradRegressor(max_iter=1, tol=None, shuffle=False).fit(X, [1.0, -1.0, 2.0])
    stats = adagrad.md_pass.stats
    hits, misses = sum(stats.cache_hits.values()), sum(stats.cache_misses.values())
    print(json.dumps([reg.coef_.tolist(), hits, misses]))
"""


def _fit_in_new_process(package_parent, cache_dir):
    result = run_python(
        _FIT,
        unset=("SK_ADAPROX_NUMBA_CACHE",),
        env={"PYTHONPATH": str(package_parent), "NUMBA_CACHE_DIR": str(cache_dir)},
        cwd=package_parent,
    )
    assert result.returncode == 0, result.stderr
    coef, cache_hits, cache_misses = json.loads(result.stdout.splitlines()[-1])
    return coef, cache_hits, cache_misses


def test_editing_a_shared_helper_invalidates_every_cached_kernel(tmp_path):
    source = Path(sk_adaprox.__file__).resolve().parent
    package = tmp_path / "src" / "sk_adaprox"
    shutil.copytree(source, package, ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"

    coef, hits, misses = _fit_in_new_process(package.parent, cache)
    assert (hits, misses) == (0, 1)
    again, hits, misses = _fit_in_new_process(package.parent, cache)
    assert again == coef
    assert (hits, misses) == (1, 0), "an unchanged package must load from the cache"

    # Double the squared-error derivative in common.py; md_pass lives in adagrad.py.
    common = package / "_kernels" / "common.py"
    text = common.read_text()
    original = "SQUARED_ERROR:\n        return 0.5 * r * r, r\n"
    assert text.count(original) == 1
    edit = "SQUARED_ERROR:\n        return 0.5 * r * r, 2.0 * r\n"
    common.write_text(text.replace(original, edit))

    edited, hits, misses = _fit_in_new_process(package.parent, cache)
    assert (hits, misses) == (0, 1), "the edit to common.py must force a recompile"
    assert edited != coef
