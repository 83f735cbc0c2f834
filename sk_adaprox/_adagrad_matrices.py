"""AdaGrad's full and sketched matrices: their training state, what they refuse,
and the kernel calls that read and write them.

``matrix="full"`` keeps G (``extras["gram"]``, one (d+1)^2 matrix per output);
``matrix="sketch"`` keeps a Frequent Directions sketch of 2m rows of d+1
columns (``extras["sketch"]``), its Gram matrix S S^T (``"sketch_gram"``) and
its number of rows in use (``"sketch_rows"``), per output.
"""

import numpy as np

from ._kernels import adagrad_full as _full
from ._kernels import adagrad_sketch as _sketch


def matrix_bytes(matrix, sketch_size, n_features, n_outputs):
    """Bytes of one training state's matrices, every output: G (full), or the
    sketch and its Gram matrix (sketch)."""
    size = n_features + 1
    if matrix == "full":
        return 8 * n_outputs * size**2
    rows = 2 * sketch_size
    return 8 * n_outputs * (rows * size + rows**2)


def pass_bytes(matrix, n_features, n_outputs):
    """Bytes a pass of the matrix's kernel allocates beside the state, every
    output: the round's copy of G, G's eigenvectors and the round's copy of
    those (full); nothing of the matrices' size (sketch)."""
    if matrix == "full":
        return 3 * 8 * n_outputs * (n_features + 1) ** 2
    return 0


def refuse_what_the_matrix_lacks(estimator):
    """The full and sketched matrices need delta > 0 (H invertible) and have no
    box and no averaging; the sketch has no l1 and no dual averaging either."""
    matrix = estimator.matrix
    unsupported = {
        "delta": estimator.delta == 0.0,
        "bound": estimator.bound is not None,
        "average": bool(estimator.average),
        "l1": matrix == "sketch"
        and not isinstance(estimator.l1, str)
        and estimator.l1 > 0.0,
        "update": matrix == "sketch" and estimator.update == "dual_averaging",
    }
    fixes = {"delta": "set delta > 0", "bound": "set bound=None"}
    fixes.update(average="set average=False", l1="set l1=0 (or 'auto')")
    fixes.update(update="set update='mirror_descent' (or 'auto')")
    for name, refused in unsupported.items():
        if not refused:
            continue
        if name == "delta":
            why = "H = delta I + G^(1/2) must be invertible"
        elif name == "l1":
            why = (
                "the sketch's step has no l1 term (its exact l1 step in H would "
                "cost O(d^2) a row, not O(sketch_size d))"
            )
        elif name == "update":
            why = (
                "dual averaging's weights keep every past gradient in their sum, "
                "while the sketch forgets the directions it shrinks away, so its "
                "weights grow without bound there"
            )
        else:
            why = f"the {matrix} matrix has no {name}"
        raise ValueError(
            f"matrix={matrix!r} with {name}={getattr(estimator, name)!r}: {why}; "
            f"{fixes[name]}, or use matrix='diag'."
        )


def new_extras(parameters, n_outputs, size):
    """The zero matrices of a new state trained with ``parameters``."""
    if parameters.matrix == "full":
        return {"gram": np.zeros((n_outputs, size, size))}
    rows = 2 * parameters.sketch_size
    return {
        "sketch": np.zeros((n_outputs, rows, size)),
        "sketch_gram": np.zeros((n_outputs, rows, rows)),
        "sketch_rows": np.zeros(n_outputs, dtype=np.int64),
    }


def _sketch_arrays(training):
    return tuple(training.writable(name) for name in _SKETCH_NAMES)


_SKETCH_NAMES = ("sketch", "sketch_gram", "sketch_rows")


def run_pass(training, rows, state, row_scores, loss_terms, fit_intercept):
    """One pass of the matrix's kernel; ``rows`` are (data, indices, indptr,
    targets, row_weights, order), ``loss_terms`` (loss code, epsilon)."""
    parameters = training.parameters
    dual_averaging = parameters.update == "dual_averaging"
    if parameters.matrix == "full":
        return _full.full_pass(
            *rows,
            state,
            training.writable("gram"),
            row_scores,
            *loss_terms,
            *parameters.steps(),
            dual_averaging,
            fit_intercept,
            training.t,
            True if parameters.l1 > 0.0 else None,
        )
    eta, delta, _, l2 = parameters.steps()
    return _sketch.sketch_pass(
        *rows,
        state,
        *_sketch_arrays(training),
        row_scores,
        *loss_terms,
        eta,
        delta,
        l2,
        parameters.sketch_size,
        fit_intercept,
    )


def da_weights_all(training, state, t, parameters):
    """Every output's dual-averaging weights at round t from u, G and the
    parameters (the full matrix; the sketch has no dual averaging)."""
    gram = training.writable("gram")
    _full.da_weights_all(state, gram, t, *parameters.steps())


def sum_grad_from_weights(training, state, t, parameters):
    """Dual averaging's u that gives the state's weights at round t (the full
    matrix)."""
    gram = training.extras["gram"]
    _full.sum_grad_from_weights(state, gram, t, *parameters.steps())
