"""sk_adaprox: per-coordinate adaptive online learning for scikit-learn.

Estimators that fit, ``partial_fit`` and predict over sparse matrices with millions of
features, with Numba-compiled update kernels whose cost per row is proportional to the
row's non-zeros.
"""

from importlib.metadata import PackageNotFoundError, version

from ._adagrad import AdaGradClassifier, AdaGradRegressor
from ._coin import CoinBettingClassifier, CoinBettingRegressor
from ._ftrl import FTRLClassifier, FTRLRegressor
from ._hash_explain import explain_hashed_weights
from ._ons import ONSClassifier, ONSRegressor
from ._progressive import progressive_val_predict, progressive_val_score
from .hashing import HashingEncoder

try:
    __version__ = version("sk-adaprox")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+unknown"

__all__ = [
    "AdaGradClassifier",
    "AdaGradRegressor",
    "CoinBettingClassifier",
    "CoinBettingRegressor",
    "FTRLClassifier",
    "FTRLRegressor",
    "HashingEncoder",
    "ONSClassifier",
    "ONSRegressor",
    "__version__",
    "explain_hashed_weights",
    "progressive_val_predict",
    "progressive_val_score",
]
