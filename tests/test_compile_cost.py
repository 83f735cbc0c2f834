"""First-call compile cost: what the kernels leave out of their compiled code.

The tests compile every kernel of every estimator in one new process with an
empty cache and read Numba's compile events (a compile fires one; a cache load
does not).

**No slice-assignment error path.**
Assigning an array to a slice inside a Numba kernel (``out[i] = row`` for a 2-D
``out``, ``w[:] = v``, ``a[:, i] *= c``) compiles the formatted "cannot assign
slice of shape ..." message with it: 1.5-2 s of first-call compile per process and
array rank. The kernels copy with :func:`sk_adaprox._kernels.common.copy_values`
or loops instead; the test checks that the error path is never compiled. A slice
assignment compiled the same way shows that the check recognises the error path
under the installed Numba; where that Numba compiles no such path (0.60), there is
nothing to check and the test skips.

**No averaging code without ``average``.** The pass kernels' averaging branches
test ``avg_slot is not None``, which Numba prunes before typing when the model
passes None: a model that does not average compiles none of the settling and
averaging helpers (about a fifth of a pass kernel's compile time). The same
models fitted with ``average=True`` compile them, so the names the test looks
for are the ones in use.

**Each helper compiled once.** The row updates take their dry-run flag as a
NumPy boolean (:data:`sk_adaprox._kernels.common.DRY_RUN`, ``APPLY``) and
feature indices as int64, so that one fit compiles each of them once, not once
per literal flag value and index type.

**No l1 solver for a full matrix without l1.** Full-matrix AdaGrad's step
passes its l1 flag as None without l1, and Numba prunes the branch that calls
the l1 solvers (coordinate descent and feature-sign search): about a quarter
of the full matrix's first-call compile time.
"""

import json

import numba
import pytest
from new_process import run_python

# A new process compiles every kernel from an empty cache: a minute or more.
pytestmark = pytest.mark.slow

_COMPILE_EVERY_KERNEL = """
    import json
    import numba
    import numpy as np
    from numba.core import event
    from sk_adaprox import (
        AdaGradClassifier, CoinBettingClassifier, CoinBettingRegressor,
        FTRLClassifier, ONSClassifier, ONSRegressor,
    )

    def compiled_names(run, repeated=None):
        compiled = event.RecordingListener()
        event.register("numba:compile", compiled)
        run()
        event.unregister("numba:compile", compiled)
        ends = [record.data for _, record in compiled.buffer if record.is_end]
        if repeated is not None:
            repeated.extend(same_compiled_twice(ends))
        return sorted({data["dispatcher"].py_func.__qualname__ for data in ends})

    def same_compiled_twice(ends):
        # The package's functions compiled for two signatures that differ
        # only in a literal bool's value or a scalar's int32/int64.
        def loose(argument):
            text = str(argument)
            if text.startswith("Literal[bool]"):
                return "bool"
            return "int64" if text == "int32" else text

        seen, twice = set(), set()
        for data in ends:
            function = data["dispatcher"].py_func
            name = f"{function.__module__}.{function.__qualname__}"
            key = (name, tuple(loose(argument) for argument in data["args"]))
            # The prefetch hint is inlined into each loop (its overload's
            # inline="always"): typed per call site, it compiles no code apart.
            inlined = name.endswith("_prefetch_ahead_compiled.<locals>.implementation")
            if name.startswith("sk_adaprox") and key in seen and not inlined:
                twice.add(name)
            seen.add(key)
        return sorted(twice)

    MODELS = [
        AdaGradClassifier(),
        AdaGradClassifier(update="mirror_descent"),
        AdaGradClassifier(update="mirror_descent", eta=0.1, l1=1e-3),
        FTRLClassifier(),
        CoinBettingClassifier(),
        CoinBettingClassifier(update="cocob"),
        CoinBettingRegressor(),
        ONSClassifier(matrix="diag"),
        ONSClassifier(matrix="diag", l1=1e-3, radius=0.1),
        ONSRegressor(matrix="full", radius=0.1),
        ONSRegressor(matrix="sketch", sketch_size=2, radius=0.1),
        AdaGradClassifier(matrix="full", eta=0.1, l1=0.0),
    ]

    # One model per averaging helper the test names (the rest compile no
    # other helper with average=True, only their pass kernels again).
    CONTROLS = [
        MODELS[0], MODELS[1], MODELS[3], MODELS[4], MODELS[7],
    ]  # fmt: skip

    def fit_everything(models=MODELS, average=False):
        rng = np.random.default_rng(0)
        X = rng.normal(size=(40, 4))
        y = (X[:, 0] > 0).astype(int)
        for model in models:
            target = X[:, 0] if "Regressor" in type(model).__name__ else y
            model = model.set_params(average=average, warm_start=False)
            model.set_params(max_iter=2, tol=None).fit(X, target)
            # A new eps on a warm start shifts the stored matrices (full, sketch).
            model.set_params(warm_start=True)
            if "eps" in model.get_params():
                model.set_params(eps=model.eps * 2)
            model.fit(X, target)

    def one_slice_assignment():
        @numba.njit
        def assign_row(matrix, row):
            matrix[0] = row

        assign_row(np.zeros((2, 3)), np.ones(3))

    repeated = []
    print(json.dumps([compiled_names(fit_everything, repeated),
                      compiled_names(one_slice_assignment),
                      compiled_names(lambda: fit_everything(CONTROLS, True),
                                     repeated),
                      repeated]))
"""


def _is_error_path(name):
    return "raise_with_shape_context" in name


def _is_averaging_code(name):
    return "settle" in name or "averaged" in name


def _is_l1_solver(name):
    return name in _FULL_MATRIX_L1_SOLVERS


# The full matrix's l1 solvers (sk_adaprox._kernels.adagrad_full).
_FULL_MATRIX_L1_SOLVERS = (
    "composite_solve",
    "_coordinate_descent",
    "_feature_sign_search",
    "_solve_signed",
)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """The names compiled by the models without averaging, by one slice
    assignment, and by one model per averaging helper with ``average=True``
    (each from the empty cache, in that order)."""
    result = run_python(
        _COMPILE_EVERY_KERNEL,
        unset=("SK_ADAPROX_NUMBA_CACHE",),
        env={"NUMBA_CACHE_DIR": str(tmp_path_factory.mktemp("numba_cache"))},
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_no_kernel_compiles_the_slice_assignment_error_message(compiled):
    kernels, control, _, _ = compiled
    if not any(_is_error_path(name) for name in control):
        pytest.skip(
            f"Numba {numba.__version__} compiles no formatted error with a slice "
            "assignment, so there is no compile time to check"
        )
    # Compiled from the empty cache (events fire on compiles, not cache loads):
    for kernel in (
        "da_candidates_pass",
        "md_pass",
        "ftrl_pass",
        "coin_pass",
        "normalized_pass",
        "diag_pass",
        "full_pass",
        "full_shift_eps",
        "sketch_pass",
        "sketch_gram_inverse",
    ):
        assert kernel in kernels
    assert [name for name in kernels if _is_error_path(name)] == []


def test_a_model_without_averaging_compiles_no_averaging_code(compiled):
    kernels, _, averaged, _ = compiled
    assert [name for name in kernels if _is_averaging_code(name)] == []
    # The averaged fits compile the helpers of every rule's averaging.
    for helper in (
        "constant_settle_row",
        "md_settle_row",
        "da_settle_row",
        "normalized_settle_row",
        "constant_settle_all",
        "md_settle_all",
    ):
        assert helper in averaged


def test_a_full_matrix_without_l1_compiles_no_l1_solver(compiled):
    from sk_adaprox._kernels import adagrad_full

    kernels, _, _, _ = compiled
    # The names are the module's (so a rename cannot pass unnoticed), and no
    # model of the list has a full matrix with l1.
    assert all(hasattr(adagrad_full, name) for name in _FULL_MATRIX_L1_SOLVERS)
    assert "_step" in kernels and "rank_one_update" in kernels
    assert [name for name in kernels if _is_l1_solver(name)] == []


def test_no_helper_compiles_once_per_flag_value_or_index_type(compiled):
    _, _, _, repeated = compiled
    # A literal True/False argument, or a feature index that is int32 for the
    # data's columns and int64 for the intercept, made Numba compile a row
    # update once per value or type (coin betting's coordinate update four
    # times: about 2 s of a 10 s first fit). Helpers that take arrays of
    # several ranks compile once per rank, which this does not count.
    assert repeated == []
