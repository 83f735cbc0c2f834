"""Frequent Directions (Liberty 2013; Ghashami, Liberty, Phillips & Woodruff
2016): a sketch S of 2m rows whose S^T S approximates the sum of the outer
products of the rows written into it, shared by the sketched ONS (Luo, Agarwal,
Cesa-Bianchi & Langford 2016) and the sketched AdaGrad (Ada-FD: Wan & Zhang
2016).

Rows are written into the sketch's zero rows; when all 2m are used, ``fd_shrink``
keeps the top m directions, each with its squared singular value reduced by the
(m+1)-th, so S^T S never exceeds the exact sum and misses it by at most the sum
of the dropped values (if the rows span m dimensions or fewer, nothing).
"""

import math

import numpy as np

from ._jit import jit
from .common import copy_values


@jit
def eigen_descending(gram):
    """Eigenvalues (descending, clipped at 0) and eigenvectors of the symmetric
    ``gram`` (S S^T of a sketch). With S = U diag(sigma) V^T, S S^T =
    U diag(sigma^2) U^T: the sketch's SVD from its small Gram matrix, O(m^3),
    where LAPACK's SVD of the wide S is several times slower."""
    values, vectors = np.linalg.eigh(gram)  # ascending
    n = values.shape[0]
    descending = np.empty(n)
    ordered = np.empty((n, n))
    for i in range(n):
        descending[i] = max(values[n - 1 - i], 0.0)
        # Eigenvectors have no sign; fix it (largest entry positive) so that equal
        # inputs up to rounding give the same sketch rows, not rows of either sign.
        column = vectors[:, n - 1 - i]
        largest = 0
        for a in range(n):
            if abs(column[a]) > abs(column[largest]):
                largest = a
        sign = -1.0 if column[largest] < 0.0 else 1.0
        for a in range(n):
            ordered[a, i] = sign * column[a]
    return descending, ordered


@jit
def sketch_eigen(sketch):
    """``eigen_descending`` of S S^T, from the sketch itself (O(m^2 d))."""
    return eigen_descending(sketch @ sketch.T)


@jit
def fd_shrink(sketch, m):
    """Frequent Directions' shrink of a full 2m-row sketch, in place: keep the top
    m right singular directions with squared singular values reduced by the
    (m+1)-th one, and zero the other rows. Returns the kept rows' squared norms
    (S S^T is now their diagonal matrix) and F, (m, 2m), with new rows = F old
    rows (so a product S v of the old rows gives the new one as F (S v)).

    Row i of the new sketch is ``sqrt(max(1 - delta / sigma_i^2, 0)) U_i^T S``
    (= sqrt(sigma_i^2 - delta) V_i): a rotation of the old rows, scaled down, so
    S^T S loses exactly delta along each kept direction and everything along the
    others. If the rows span m dimensions or fewer, delta is 0 (up to rounding)
    and the sketch stays exact."""
    values, vectors = sketch_eigen(sketch)
    drop = values[m]
    factors = np.zeros((m, vectors.shape[0]))
    for q in range(m):
        if values[q] > 0.0:
            scale = math.sqrt(max(1.0 - drop / values[q], 0.0))
            for c in range(vectors.shape[0]):
                factors[q, c] = scale * vectors[c, q]
    kept_rows = factors @ sketch
    sketch[:] = 0.0
    for q in range(m):
        copy_values(kept_rows[q], sketch[q])
    kept = np.empty(m)
    for q in range(m):
        kept[q] = max(values[q] - drop, 0.0)
    return kept, factors
