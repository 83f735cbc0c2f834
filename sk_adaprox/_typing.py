"""Type aliases of the public API's annotations."""

from typing import TypeAlias

import numpy as np
import scipy.sparse as sp
from numpy.random import RandomState
from numpy.typing import ArrayLike, NDArray

#: X: a dense array-like or any scipy sparse matrix or array.
MatrixLike: TypeAlias = ArrayLike | sp.spmatrix | sp.sparray
#: A seed, a RandomState, or None for fresh entropy.
RandomStateLike: TypeAlias = int | RandomState | None
#: What ``predict`` and the scores return.
FloatArray: TypeAlias = NDArray[np.float64]

__all__ = ["ArrayLike", "FloatArray", "MatrixLike", "NDArray", "RandomStateLike"]
