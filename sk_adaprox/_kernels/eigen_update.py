"""A symmetric matrix's eigendecomposition after a rank-one update, and the
solves of full-matrix AdaGrad in that basis (docs/adagrad.md, "The full
matrix").

G = V diag(values) V^T becomes G + g g^T = V (diag(values) + z z^T) V^T with
z = V^T g. The eigenvalues of diag(values) + z z^T are the roots of the secular
equation 1 + sum_i z_i^2 / (values_i - lambda) = 0, found by LAPACK's
``dlaed9`` (which calls ``dlaed4`` for each root and computes the eigenvectors
from a corrected z, so that they stay orthogonal: Gu & Eisenstat, "A stable
and efficient algorithm for the rank-one modification of the symmetric
eigenproblem", SIAM J. Matrix Anal. Appl. 15(4), 1994). Components of z within
rounding of zero, and pairs of eigenvalues within rounding of each other, are
deflated first, as LAPACK's divide-and-conquer does (Bunch, Nielsen &
Sorensen, "Rank-one modification of the symmetric eigenproblem", Numer. Math.
31, 1978). The new eigenvectors are V's columns times the K x K eigenvectors
of the secular problem: one matrix product, O(d K^2), against O(d^3) with a
larger constant for a fresh eigendecomposition.

``dlaed9`` is called through the address SciPy exports for Cython
(``scipy.linalg.cython_lapack``), registered under a symbol name so that the
compiled kernels stay in the disk cache. Without Numba's compiler
(``NUMBA_DISABLE_JIT=1``) the secular problem is solved by ``numpy.linalg.eigh``
instead.
"""

import ctypes
import math

import numpy as np
from llvmlite import binding
from numba import types
from numba.extending import overload
from scipy.linalg import cython_lapack

from ._jit import jit

_EPSILON = np.finfo(np.float64).eps
_SYMBOL = "sk_adaprox_dlaed9"


def _cython_lapack_address(name):
    """The address of LAPACK's ``name`` as SciPy exports it for Cython."""
    capsule = cython_lapack.__pyx_capi__[name]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(capsule, get_name(capsule))


binding.add_symbol(_SYMBOL, _cython_lapack_address("dlaed9"))
# Fortran's calling convention: every argument by address. K, KSTART, KSTOP, N,
# D, Q, LDQ, RHO, DLAMDA, W, S, LDS, INFO.
_dlaed9 = types.ExternalFunction(_SYMBOL, types.void(*([types.voidptr] * 13)))


def secular_solve(poles, w, rho, new_values, vectors):
    """The eigenvalues (``new_values``, ascending) and eigenvectors
    (``vectors[j]`` for ``new_values[j]``) of diag(poles) + rho w w^T, for
    ``poles`` strictly ascending, ``w`` of unit norm without a zero and
    ``rho`` > 0. Returns LAPACK's info (0: solved). Compiled: ``dlaed9``;
    here: ``numpy.linalg.eigh``."""
    values, columns = np.linalg.eigh(np.diag(poles) + rho * np.outer(w, w))
    new_values[:] = values
    vectors[:, :] = columns.T
    return 0


@overload(secular_solve)
def _secular_solve_compiled(poles, w, rho, new_values, vectors):
    def implementation(poles, w, rho, new_values, vectors):
        k = poles.shape[0]
        # K, KSTART, KSTOP, N, LDQ = LDS, INFO; RHO
        integers = np.empty(6, dtype=np.int32)
        integers[0] = k
        integers[1] = 1
        integers[2] = k
        integers[3] = k
        integers[4] = k
        integers[5] = 0
        scale = np.empty(1)
        scale[0] = rho
        poles_copy = poles.copy()  # dlaed9 may round the poles in place
        work = np.empty((k, k))
        # Fortran's S(i, j), the i-th entry of eigenvector j, is vectors[j, i].
        _dlaed9(
            integers[0:1].ctypes,
            integers[1:2].ctypes,
            integers[2:3].ctypes,
            integers[3:4].ctypes,
            new_values.ctypes,
            work.ctypes,
            integers[4:5].ctypes,
            scale.ctypes,
            poles_copy.ctypes,
            w.ctypes,
            vectors.ctypes,
            integers[4:5].ctypes,
            integers[5:6].ctypes,
        )
        return integers[5]

    return implementation


@jit
def _ascending(values, places):
    """``places`` reordered so that ``values[places]`` ascends (insertion sort:
    the values come nearly sorted from the last update)."""
    for a in range(1, places.shape[0]):
        place = places[a]
        b = a - 1
        while b >= 0 and values[places[b]] > values[place]:
            places[b + 1] = places[b]
            b -= 1
        places[b + 1] = place


@jit
def _deflate(values, vectors, w, rho):
    """Deflation before the secular equation, in place: a component of ``w``
    within rounding of zero leaves its eigenpair as it is; of two eigenvalues
    within rounding of each other, a rotation of their eigenvectors puts the
    pair's part of ``w`` on one of them. Returns which eigenpairs the update
    still moves, and what it left out: sum(rho |w_j|) over the deflated
    components, which bounds their couplings (each within rounding, but they
    add up: the caller decomposes afresh when they reach the root's noise
    level)."""
    size = values.shape[0]
    order = np.arange(size)
    _ascending(values, order)
    largest = max(abs(values[order[size - 1]]), abs(values[order[0]]), rho)
    tolerance = 8.0 * _EPSILON * largest
    moved = np.zeros(size, dtype=np.bool_)
    dropped = 0.0
    previous = -1
    for position in range(size):
        j = order[position]
        if rho * abs(w[j]) <= tolerance:
            # The component's own term stays (G's trace, and an eigenvalue
            # near the root's noise level, are kept); its coupling to the
            # others, at most rho |w_j|, is left out.
            values[j] += rho * w[j] * w[j]
            dropped += rho * abs(w[j])
            continue
        if previous >= 0:
            p = previous
            tau = math.hypot(w[p], w[j])
            c = w[j] / tau
            s = w[p] / tau
            # The rotated pair's off-diagonal entry is c s (values_j - values_p).
            if abs((values[j] - values[p]) * c * s) <= tolerance:
                value_p, value_j = values[p], values[j]
                values[p] = c * c * value_p + s * s * value_j
                values[j] = s * s * value_p + c * c * value_j
                for r in range(size):
                    a = vectors[r, p]
                    b = vectors[r, j]
                    vectors[r, p] = c * a - s * b
                    vectors[r, j] = s * a + c * b
                w[p] = 0.0
                w[j] = tau
                moved[p] = False
        moved[j] = True
        previous = j
    return moved, dropped


@jit
def rank_one_update(values, vectors, z, new_values, new_vectors):
    """The eigendecomposition of V (diag(values) + z z^T) V^T, for V =
    ``vectors`` (orthonormal columns), into ``new_values`` and ``new_vectors``
    (column i for value i; the values in no particular order). Returns
    LAPACK's info (0, or the root that did not converge) and the mass the
    deflation left out (:func:`_deflate`)."""
    size = values.shape[0]
    rho = 0.0
    for i in range(size):
        rho += z[i] * z[i]
    for i in range(size):
        new_values[i] = values[i]
        for r in range(size):
            new_vectors[r, i] = vectors[r, i]
    if rho == 0.0:
        return 0, 0.0
    w = z / math.sqrt(rho)
    moved, dropped = _deflate(new_values, new_vectors, w, rho)
    count = 0
    for i in range(size):
        count += moved[i]
    if count == 0:
        return 0, dropped
    places = np.empty(count, dtype=np.int64)
    a = 0
    for i in range(size):
        if moved[i]:
            places[a] = i
            a += 1
    _ascending(new_values, places)
    poles = np.empty(count)
    part = np.empty(count)
    kept = 0.0  # the part of w's norm the deflation left
    for a in range(count):
        poles[a] = new_values[places[a]]
        part[a] = w[places[a]]
        kept += part[a] * part[a]
    norm = math.sqrt(kept)
    for a in range(count):
        part[a] /= norm
    roots = np.empty(count)
    secular_vectors = np.empty((count, count))
    info = secular_solve(poles, part, rho * kept, roots, secular_vectors)
    if info != 0:
        return info, dropped
    columns = np.empty((size, count))
    for a in range(count):
        for r in range(size):
            columns[r, a] = new_vectors[r, places[a]]
    rotated = columns @ secular_vectors.T
    for a in range(count):
        new_values[places[a]] = roots[a]
        for r in range(size):
            new_vectors[r, places[a]] = rotated[r, a]
    return 0, dropped


@jit
def noise_level(values):
    """The eigenvalues within rounding of zero are those at or below this: the
    largest times the size times the machine epsilon (numpy's matrix_rank
    tolerance)."""
    largest = 0.0
    for i in range(values.shape[0]):
        largest = max(largest, values[i])
    return largest * values.shape[0] * _EPSILON


@jit
def root_diagonal(values, delta, roots):
    """``roots[i] = delta + sqrt(values[i])``: H = delta I + G^{1/2} in G's
    eigenbasis. Eigenvalues within rounding of zero (below the largest times
    the size times the machine epsilon, numpy's matrix_rank tolerance) count
    as zero: the root would turn their rounding noise into 1e-8."""
    noise = noise_level(values)
    for i in range(values.shape[0]):
        roots[i] = delta + (math.sqrt(values[i]) if values[i] > noise else 0.0)


@jit
def _in_basis(vectors, v):
    """V^T v."""
    size = vectors.shape[0]
    out = np.zeros(vectors.shape[1])
    for r in range(size):
        value = v[r]
        for i in range(vectors.shape[1]):
            out[i] += vectors[r, i] * value
    return out


@jit
def _from_basis(vectors, coordinates, out):
    """``out = V coordinates``."""
    for r in range(vectors.shape[0]):
        total = 0.0
        for i in range(vectors.shape[1]):
            total += vectors[r, i] * coordinates[i]
        out[r] = total


@jit
def apply_root(roots, vectors, w, out):
    """``out = H w`` for H = V diag(roots) V^T: O(d^2)."""
    coordinates = _in_basis(vectors, w)
    for i in range(roots.shape[0]):
        coordinates[i] *= roots[i]
    _from_basis(vectors, coordinates, out)


@jit
def solve_root(roots, vectors, b, ridge, out):
    """``out`` = the solution of (H + ridge P) w = b, H = V diag(roots) V^T and
    P the identity but on the last coordinate (the intercept, never
    regularised): H + ridge I is diagonal in V's basis, and P = I - e e^T is a
    rank-one change of it (Sherman-Morrison). O(d^2)."""
    size = roots.shape[0]
    coordinates = _in_basis(vectors, b)
    for i in range(size):
        coordinates[i] /= roots[i] + ridge
    solved = np.empty(size)
    _from_basis(vectors, coordinates, solved)
    if ridge != 0.0:
        # (A - ridge e e^T)^{-1} b = A^{-1} b + ridge A^{-1} e (e^T A^{-1} b)
        # / (1 - ridge e^T A^{-1} e), A = H + ridge I.
        last = size - 1
        column = np.empty(size)
        for i in range(size):
            column[i] = vectors[last, i] / (roots[i] + ridge)
        inverse_e = np.empty(size)
        _from_basis(vectors, column, inverse_e)
        # 1 - ridge e^T A^{-1} e, as sum_i V[last, i]^2 roots_i / (roots_i +
        # ridge) (the V row's squares sum to 1): no cancellation.
        denominator = 0.0
        for i in range(size):
            denominator += vectors[last, i] * column[i] * roots[i]
        factor = ridge * solved[last] / denominator
        for q in range(size):
            solved[q] += factor * inverse_e[q]
    for q in range(size):
        out[q] = solved[q]


@jit
def root_from_spectrum(roots, vectors):
    """H = V diag(roots) V^T, explicit (for the l1 solvers)."""
    scaled = vectors.copy()
    for i in range(roots.shape[0]):
        for q in range(scaled.shape[0]):
            scaled[q, i] *= roots[i]
    return scaled @ vectors.T
