"""The decorator every kernel is compiled with, and the disk cache it uses.

Numba's own disk cache stamps a compiled function with a hash of the one file that
defines it. A kernel calling a helper from another file would then keep running the
helper's old code after the helper is edited. Here the stamp is a hash of *every*
source file of this package instead, so an edit to any kernel file invalidates every
cached kernel, and the kernels can live in one module per algorithm.
"""

import hashlib
import os
from pathlib import Path

import numba
from numba.core import caching

# Set SK_ADAPROX_NUMBA_CACHE=0 to never write compiled kernels to disk.
CACHE = os.environ.get("SK_ADAPROX_NUMBA_CACHE", "1") != "0"


def _kernel_sources_digest():
    """SHA-256 over the names and bytes of this package's ``.py`` files."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


KERNEL_SOURCES_DIGEST = _kernel_sources_digest()


def _stamped_with_kernel_sources(locator_class):
    """``locator_class`` (one of Numba's cache locators) with our source stamp."""
    return type(
        f"KernelSources{locator_class.__name__}",
        (locator_class,),
        {"get_source_stamp": lambda self: KERNEL_SOURCES_DIGEST},
    )


class _KernelCacheImpl(caching.CompileResultCacheImpl):
    # Numba's locators, in Numba's order of preference (NUMBA_CACHE_DIR, next to
    # the source, the user's cache folder, ...), each stamped with our digest.
    _locator_classes = [
        _stamped_with_kernel_sources(locator)
        for locator in caching.CompileResultCacheImpl._locator_classes
    ]


class _KernelFunctionCache(caching.FunctionCache):
    _impl_class = _KernelCacheImpl


def jit(function):
    """Compile ``function`` in nopython mode, cached on disk where that is possible.

    This is ``numba.njit(cache=True, error_model="numpy", nogil=True)`` with the
    cache keyed on :data:`KERNEL_SOURCES_DIGEST`. The GIL is released while a
    kernel runs, so models fitted in threads (joblib's threading backend) train in
    parallel; each call works on its own estimator's arrays. Where no cache
    location is writable (read-only site-packages and no usable ``HOME`` or
    ``NUMBA_CACHE_DIR``), or with ``SK_ADAPROX_NUMBA_CACHE=0``, the kernel compiles
    in every new process instead: importing sk_adaprox must work everywhere.
    """
    dispatcher = numba.njit(error_model="numpy", nogil=True)(function)
    if CACHE:
        try:
            # What Dispatcher.enable_caching() does, with our cache class.
            dispatcher._cache = _KernelFunctionCache(function)
        except RuntimeError:  # no locator found a writable cache directory
            pass
    return dispatcher
