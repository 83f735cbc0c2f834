"""Test-session setup.

- Numba compiles into a fresh cache directory for every session, so a stale on-disk
  cache can never hide an edit to a kernel; pytest-xdist's workers share it.
  Every session then pays the kernels' compile time once; for a quick loop,
  ``SK_ADAPROX_TEST_NUMBA_CACHE=<dir>`` keeps the compiled kernels in ``<dir>``
  (created if missing, never deleted) from one session to the next. That cache
  is keyed on a hash of every kernel source file (``sk_adaprox/_kernels/_jit.py``),
  so an edit to a kernel still recompiles it.
- Tests marked ``slow`` (new processes, compile cost, threads, benchmarks, real
  data, scikit-learn's common checks: registered in ``pyproject.toml``) run by
  default; ``python -m pytest -m "not slow"`` leaves them out.
- ``SCIPY_ARRAY_API=1`` (read by scipy at import) lets scikit-learn's
  ``check_array_api_input`` run instead of skipping.
- ``shared_data`` points at the real datasets in ``../shared/data`` (or
  ``$SK_ADAPROX_DATA_DIR``); tests that need them skip, saying why, where absent.
"""

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

_PERSISTENT_NUMBA_CACHE = os.environ.get("SK_ADAPROX_TEST_NUMBA_CACHE", "")
# The session's fresh folder, made by the main pytest process and inherited by
# pytest-xdist's workers, which compile into it together (Numba writes each
# cache file to a temporary name and renames it, so concurrent processes are
# safe) instead of each compiling every kernel again into a folder of its own.
_SESSION_CACHE_VARIABLE = "SK_ADAPROX_SESSION_NUMBA_CACHE"
_SESSION_CACHE = os.environ.get(_SESSION_CACHE_VARIABLE, "")
if _PERSISTENT_NUMBA_CACHE:
    _NUMBA_CACHE_DIR = str(Path(_PERSISTENT_NUMBA_CACHE).expanduser().resolve())
    os.makedirs(_NUMBA_CACHE_DIR, exist_ok=True)
elif _SESSION_CACHE and os.environ.get("PYTEST_XDIST_WORKER"):
    _NUMBA_CACHE_DIR = _SESSION_CACHE
else:
    _NUMBA_CACHE_DIR = tempfile.mkdtemp(prefix="sk_adaprox_numba_cache_")
    atexit.register(shutil.rmtree, _NUMBA_CACHE_DIR, ignore_errors=True)
    os.environ[_SESSION_CACHE_VARIABLE] = _NUMBA_CACHE_DIR
os.environ["NUMBA_CACHE_DIR"] = _NUMBA_CACHE_DIR
os.environ["SCIPY_ARRAY_API"] = "1"
if "numba" in sys.modules:  # a plugin imported numba first: make it re-read the env
    sys.modules["numba"].core.config.reload_config()

DATA_DIR = Path(
    os.environ.get(
        "SK_ADAPROX_DATA_DIR",
        Path(__file__).resolve().parents[2] / "shared" / "data",
    )
)


@pytest.fixture(scope="session")
def shared_data():
    """Directory of the real datasets; skip the test when it is not there."""
    if not (DATA_DIR / "MANIFEST.md").is_file():
        pytest.skip(
            f"real datasets not found at {DATA_DIR}; set SK_ADAPROX_DATA_DIR to the "
            "folder holding shared/data to run this test"
        )
    return DATA_DIR


def pytest_report_header(config):
    """Say which sk_adaprox the session tests: the source tree or an installed wheel."""
    import sk_adaprox

    where = Path(sk_adaprox.__file__).parent
    cache = (
        f"persistent ({_NUMBA_CACHE_DIR}, from SK_ADAPROX_TEST_NUMBA_CACHE)"
        if _PERSISTENT_NUMBA_CACHE
        else f"fresh for this session ({_NUMBA_CACHE_DIR})"
    )
    return [
        f"sk_adaprox {sk_adaprox.__version__} from {where}",
        f"numba kernel cache: {cache}",
    ]
