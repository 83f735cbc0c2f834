"""Run a snippet of Python in a new interpreter, for tests that need a process of
their own (an empty Numba cache, a copy of the package, a broken cache locator)."""

import os
import subprocess
import sys
import textwrap


def run_python(code, *, unset=(), env=None, cwd=None, timeout=300):
    """Run ``code`` (dedented) with this interpreter; the environment is ours
    without the variables named in ``unset`` and with ``env`` added. Returns the
    ``subprocess.CompletedProcess`` with text output captured."""
    environment = {k: v for k, v in os.environ.items() if k not in unset}
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
        cwd=cwd,
    )
