"""The rank-one update of an eigendecomposition (``_kernels.eigen_update``)
against NumPy's eigendecomposition of the explicit matrix, and the solves of
full-matrix AdaGrad in that eigenbasis against dense solves."""

import json

import numpy as np
import pytest
from new_process import run_python

from sk_adaprox._kernels import eigen_update as _eigen

EPSILON = np.finfo(np.float64).eps


def _gradients(kind, size, count, rng):
    """``count`` gradients of ``size`` coordinates: dense, sparse (a third of
    the coordinates and the intercept), along G's existing directions, tiny
    beside G, or repeating a few directions (G of low rank)."""
    if kind == "dense":
        return rng.normal(size=(count, size)) * rng.lognormal(0, 1, (count, 1))
    if kind == "sparse":
        gradients = rng.normal(size=(count, size)) * (rng.random((count, size)) < 0.3)
        gradients[:, -1] = rng.normal(size=count)
        return gradients
    if kind == "axes":  # each gradient along one coordinate: z has one entry
        gradients = np.zeros((count, size))
        gradients[np.arange(count), rng.integers(0, size, count)] = rng.normal(
            size=count
        )
        return gradients
    if kind == "tiny":  # large first rows, then rows at the rounding's scale
        gradients = rng.normal(size=(count, size))
        gradients[size:] *= 1e-9
        return gradients
    directions = rng.normal(size=(3, size))
    return rng.normal(size=(count, 3)) @ directions  # rank 3


def _updated(values, vectors, g):
    new_values, new_vectors = np.empty_like(values), np.empty_like(vectors)
    info, dropped = _eigen.rank_one_update(
        values, vectors, vectors.T @ g, new_values, new_vectors
    )
    assert info == 0 and dropped >= 0.0
    return new_values, new_vectors


@pytest.mark.parametrize("kind", ["dense", "sparse", "axes", "tiny", "low_rank"])
@pytest.mark.parametrize("size", [1, 2, 3, 12, 41])
def test_updates_keep_the_eigendecomposition_of_the_sum(kind, size):
    """From G = 0 (every eigenvalue equal: the first update deflates all but
    one), each update's V diag(values) V^T is G + g g^T to rounding, V stays
    orthonormal, and the eigenvalues are NumPy's of the explicit G."""
    rng = np.random.default_rng(size)
    values, vectors = np.zeros(size), np.eye(size)
    G = np.zeros((size, size))
    for g in _gradients(kind, size, 3 * size + 10, rng):
        G += np.outer(g, g)
        values, vectors = _updated(values, vectors, g)
        scale = np.abs(G).max()
        tolerance = 50 * size * EPSILON * scale
        np.testing.assert_allclose((vectors * values) @ vectors.T, G, atol=tolerance)
        np.testing.assert_allclose(vectors.T @ vectors, np.eye(size), atol=1e-12)
        np.testing.assert_allclose(
            np.sort(values), np.linalg.eigvalsh(G), atol=tolerance
        )


def test_a_zero_gradient_changes_nothing():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(5, 5))
    values, vectors = np.linalg.eigh(A @ A.T)
    new_values, new_vectors = _updated(values, vectors, np.zeros(5))
    np.testing.assert_array_equal(new_values, values)
    np.testing.assert_array_equal(new_vectors, vectors)


@pytest.mark.parametrize("ridge", [0.0, 0.3])
def test_the_solves_in_the_eigenbasis_are_the_dense_solves(ridge):
    """H w and (H + ridge P)^{-1} b, P the identity without the last
    coordinate (the intercept), against H formed and solved densely; and the
    roots count eigenvalues within rounding of zero as zero."""
    rng = np.random.default_rng(1)
    size = 9
    gradients = rng.normal(size=(4, size))  # G of rank 4: five zero eigenvalues
    values, vectors = np.linalg.eigh(gradients.T @ gradients)
    roots = np.empty(size)
    _eigen.root_diagonal(values, 0.1, roots)
    assert np.sum(roots == 0.1) == size - 4
    H = _eigen.root_from_spectrum(roots, vectors)
    w, b = rng.normal(size=(2, size))
    applied = np.empty(size)
    _eigen.apply_root(roots, vectors, w, applied)
    np.testing.assert_allclose(applied, H @ w, rtol=1e-12)
    P = np.eye(size)
    P[-1, -1] = 0.0
    solved = np.empty(size)
    _eigen.solve_root(roots, vectors, b, ridge, solved)
    np.testing.assert_allclose(solved, np.linalg.solve(H + ridge * P, b), rtol=1e-10)


def test_without_the_compiler_the_secular_problem_is_numpys():
    # NUMBA_DISABLE_JIT=1 runs the kernels as Python, where LAPACK's dlaed9
    # cannot be called: the full matrix's fit gives the compiled fit's model.
    code = """
        import json
        import numpy as np
        from sk_adaprox import AdaGradClassifier
        rng = np.random.default_rng(0)
        X = rng.normal(size=(50, 4)) * [1.0, 30.0, 1.0, 0.1]
        y = (X[:, 0] + X[:, 1] / 30 > 0).astype(int)
        model = AdaGradClassifier(matrix="full", eta=0.3, l1=0.0, l2=0.01,
                                  max_iter=2, random_state=0).fit(X, y)
        print(json.dumps([model.coef_.tolist(), model.intercept_.tolist()]))
        """
    interpreted = run_python(code, env={"NUMBA_DISABLE_JIT": "1"})
    compiled = run_python(code)
    assert interpreted.returncode == 0, interpreted.stderr
    assert compiled.returncode == 0, compiled.stderr
    for got, expected in zip(
        json.loads(interpreted.stdout), json.loads(compiled.stdout), strict=True
    ):
        np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_the_deflations_left_out_mass_is_reported():
    """Rows far below G's largest eigenvalue in a direction G has not seen
    deflate entirely: each is within rounding, but the update reports what it
    left out, rho w_j^2 summed, which the kernel adds up to decompose G afresh
    before it shows in the root."""
    rng = np.random.default_rng(3)
    basis, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    values = np.array([1e8, 0.0, 0.0])
    g = 3e-4 * basis[:, 1]
    new_values, new_vectors = np.empty(3), np.empty((3, 3))
    _, dropped = _eigen.rank_one_update(
        values, basis, basis.T @ g, new_values, new_vectors
    )
    # Its own term stays on its eigenvector; the coupling, rho |w_j|, is
    # reported (|w_j| = 1 here).
    np.testing.assert_allclose(new_values[1], g @ g, rtol=1e-12)
    np.testing.assert_allclose(dropped, g @ g, rtol=1e-12)
    assert dropped > _eigen.noise_level(new_values)
