"""The machine a benchmark runs on: pinning to a core and the header it prints."""

import os
import platform
from datetime import date
from pathlib import Path

# One thread for Numba, OpenMP and the BLAS libraries: in the environment before
# numpy and numba load (see limit_threads), and in the subprocesses' environment.
THREAD_VARIABLES = {
    "NUMBA_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


def limit_threads():
    """One thread per library; call before numpy and numba are imported."""
    os.environ.update(THREAD_VARIABLES)


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, else what ``platform`` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def peak_rss_gb():
    """This process's peak resident memory in GB (NaN where it cannot be read)."""
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    except (ImportError, AttributeError):
        return float("nan")


def pin(cpu):
    """Pin this process, and the subprocesses it starts, to core ``cpu``.

    Returns the cores it may run on, or ``"not pinned"`` where the system cannot
    pin a process.
    """
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned"
    os.sched_setaffinity(0, {cpu})
    return sorted(os.sched_getaffinity(0))


def print_machine(pinned):
    """Print the ``== Machine`` header: date, CPU, cores, pinning, load and the
    versions of Python and the numerical libraries."""
    import numba
    import numpy as np
    import scipy
    import sklearn

    print(f"== Machine ({date.today().isoformat()})")
    print(
        f"  CPU: {cpu_model()}; {os.cpu_count()} logical cores; pinned to {pinned};"
        f" load average at start {os.getloadavg()[0]:.2f}"
    )
    print(
        f"  Python {platform.python_version()}, numpy {np.__version__}, scipy "
        f"{scipy.__version__}, scikit-learn {sklearn.__version__}, numba "
        f"{numba.__version__} (NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS})"
    )
