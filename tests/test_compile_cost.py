"""First-call compile cost: no kernel compiles NumPy's slice-assignment error path.

Assigning an array to a slice inside a Numba kernel (``out[i] = row`` for a 2-D
``out``, ``w[:] = v``) compiles the formatted "cannot assign slice of shape ..."
message with it, which cost about 2 s of every pass kernel's first compile. The
kernels copy with :func:`sk_adaprox._kernels.common.copy_values` instead. This
compiles every pass kernel in a new process with an empty cache and checks, with
Numba's compile events, that the error path is never compiled.
"""

import json

from new_process import run_python

_COMPILE_EVERY_PASS_KERNEL = """
    import json
    import numpy as np
    from numba.core import event
    from sk_adaprox import (
        AdaGradClassifier, CoinBettingClassifier, CoinBettingRegressor,
        FTRLClassifier, ONSClassifier, ONSRegressor,
    )

    compiled = event.RecordingListener()
    event.register("numba:compile", compiled)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    y = (X[:, 0] > 0).astype(int)
    for model in [
        AdaGradClassifier(),
        AdaGradClassifier(update="mirror_descent"),
        FTRLClassifier(),
        CoinBettingClassifier(),
        CoinBettingRegressor(),
        ONSClassifier(matrix="diag"),
        ONSRegressor(matrix="full", radius=0.1),
        ONSRegressor(matrix="sketch", sketch_size=2, radius=0.1),
    ]:
        target = X[:, 0] if "Regressor" in type(model).__name__ else y
        model.set_params(max_iter=2, tol=None).fit(X, target)
    names = sorted({
        record.data["dispatcher"].py_func.__qualname__
        for _, record in compiled.buffer
    })
    print(json.dumps(names))
"""


def test_no_kernel_compiles_the_slice_assignment_error_message(tmp_path):
    result = run_python(
        _COMPILE_EVERY_PASS_KERNEL,
        unset=("SK_ADAPROX_NUMBA_CACHE",),
        env={"NUMBA_CACHE_DIR": str(tmp_path)},
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    compiled = json.loads(result.stdout.splitlines()[-1])
    for kernel in ("da_candidates_pass", "md_pass", "ftrl_pass", "coin_pass"):
        assert kernel in compiled  # the events were recorded, from an empty cache
    for kernel in ("normalized_pass", "diag_pass", "full_pass", "sketch_pass"):
        assert kernel in compiled
    error_paths = [name for name in compiled if "raise_with_shape_context" in name]
    assert error_paths == []
