"""A synthetic click log: categorical columns with Zipf-like value frequencies, a
few count columns, and clicks drawn from a logistic model with interactions."""

import numbers
from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from ._typing import NDArray, RandomStateLike

# Size of the table of interaction effects a pair of values is hashed into.
_EFFECTS = 2**16


def _check_int(value, name, minimum):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}.")
    return int(value)


def _check_fraction(value, name, high=1.0):
    if not isinstance(value, numbers.Real) or not 0.0 <= value <= high:
        raise ValueError(f"{name} must be a number in [0, {high}], got {value!r}.")
    return float(value)


def _splitmix64(x):
    """A bijective mix of uint64 integers (SplitMix64's finaliser)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _value_names(n_values, rng):
    """``n_values`` distinct 8-digit hexadecimal strings, as click logs have."""
    ids = np.unique(rng.randint(0, 2**32, size=2 * n_values + 16, dtype=np.uint64))
    ids = rng.permutation(ids)[:n_values]
    return np.array([f"{int(v):08x}" for v in ids], dtype=object)


def _zipf_ranks(n_samples, n_values, exponent, rng):
    """Ranks 0..n_values-1 drawn with probability proportional to
    ``(rank + 1) ** -exponent``."""
    cumulative = np.cumsum(np.arange(1, n_values + 1, dtype=np.float64) ** -exponent)
    draws = rng.random_sample(n_samples) * cumulative[-1]
    return np.minimum(np.searchsorted(cumulative, draws), n_values - 1)


def _intercept_for_rate(scores, rate):
    """The intercept b with mean(sigmoid(b + scores)) = rate, by bisection."""
    low, high = -30.0, 30.0
    for _ in range(60):
        middle = 0.5 * (low + high)
        mean = np.mean(1.0 / (1.0 + np.exp(-(middle + scores))))
        low, high = (middle, high) if mean < rate else (low, middle)
    return 0.5 * (low + high)


def make_click_log(
    n_samples: int = 100_000,
    *,
    n_categorical: int = 6,
    n_numeric: int = 2,
    n_values: int | None = None,
    zipf_exponent: float = 1.1,
    n_interactions: int = 3,
    interaction_scale: float = 1.0,
    click_rate: float = 0.2,
    missing_rate: float = 0.02,
    as_frame: bool = True,
    return_interactions: bool = False,
    random_state: RandomStateLike = None,
) -> tuple[Any, NDArray] | tuple[Any, NDArray, list]:
    r"""Generate a click log: categorical and count columns, and clicks.

    A stand-in for public click logs such as Criteo's or Avazu's (not shipped
    with the package), with their shape: categorical columns ``C1``, ``C2``,
    ... whose values are 8-digit hexadecimal strings with Zipf-like
    frequencies (value of rank r drawn with probability proportional to
    :math:`(r + 1)^{-s}`), and count columns ``I1``, ``I2``, ... (floats:
    rounded log-normal counts). Each column has a fraction ``missing_rate`` of
    missing values (None in the categorical columns, NaN in the counts).

    A row is clicked with probability :math:`\sigma(b + \sum_c u_c(v_c) +
    \sum_{(a, d)} g_{ad}(v_a, v_d) + \sum_j \beta_j \log(1 + x_j))`: a main
    effect :math:`u_c(v) \sim \mathcal{N}(0, 0.5^2)` per value, a pseudo-random
    effect :math:`g_{ad} \sim \mathcal{N}(0, \text{interaction\_scale}^2)` per
    pair of values of ``n_interactions`` pairs of columns (drawn at random), a
    weight :math:`\beta_j \sim \mathcal{N}(0, 0.3^2)` per count column, and the
    intercept :math:`b` that makes the mean click probability ``click_rate``.
    A missing value has no effect. A linear model of the columns alone cannot
    fit the interactions; one with crosses of the interacting pairs can.

    Parameters
    ----------
    n_samples : int, default=100_000
        Number of rows.
    n_categorical : int, default=6
        Number of categorical columns, at least 2 when ``n_interactions > 0``.
    n_numeric : int, default=2
        Number of count columns.
    n_values : int or None, default=None
        Number of distinct values of every categorical column; None spreads
        them geometrically from 10 (``C1``) to 100,000 (the last column).
    zipf_exponent : float, default=1.1
        The exponent s of the value frequencies, in ``[0, 10]``.
    n_interactions : int, default=3
        Number of pairs of categorical columns with an interaction effect, at
        most ``n_categorical * (n_categorical - 1) / 2``.
    interaction_scale : float, default=1.0
        Standard deviation of the interaction effects, in ``[0, 100]``.
    click_rate : float, default=0.2
        Mean click probability, in ``(0, 1)``.
    missing_rate : float, default=0.02
        Fraction of missing values in every column, in ``[0, 1]``.
    as_frame : bool, default=True
        Return X as a pandas DataFrame (string and float64 columns); otherwise
        as a 2-D object array.
    return_interactions : bool, default=False
        Also return the pairs of columns that interact.
    random_state : int, RandomState instance or None, default=None
        Seed or random number generator, see
        :func:`sklearn.utils.check_random_state`.

    Returns
    -------
    X : pandas.DataFrame or ndarray of shape (n_samples, n_categorical + n_numeric)
        The columns ``C1..``, then ``I1..``.
    y : ndarray of shape (n_samples,)
        1 for a click, 0 otherwise.
    interactions : list of tuple of str
        The interacting pairs of columns. Only returned if
        ``return_interactions`` is True.

    Examples
    --------
    >>> from sk_adaprox.datasets import make_click_log
    >>> X, y = make_click_log(1000, random_state=0)
    >>> list(X.columns)
    ['C1', 'C2', 'C3', 'C4', 'C5', 'C6', 'I1', 'I2']
    >>> round(float(y.mean()), 1)
    0.2
    """
    n_samples = _check_int(n_samples, "n_samples", 1)
    n_categorical = _check_int(n_categorical, "n_categorical", 1)
    n_numeric = _check_int(n_numeric, "n_numeric", 0)
    n_interactions = _check_int(n_interactions, "n_interactions", 0)
    n_pairs = n_categorical * (n_categorical - 1) // 2
    if n_interactions > n_pairs:
        raise ValueError(
            f"n_interactions must be <= {n_pairs} (the pairs of {n_categorical} "
            f"categorical columns), got {n_interactions}."
        )
    if n_values is None:
        cardinalities = np.geomspace(10, 100_000, n_categorical).round().astype(int)
    else:
        cardinalities = np.full(n_categorical, _check_int(n_values, "n_values", 1))
    zipf_exponent = _check_fraction(zipf_exponent, "zipf_exponent", 10.0)
    interaction_scale = _check_fraction(interaction_scale, "interaction_scale", 100.0)
    missing_rate = _check_fraction(missing_rate, "missing_rate")
    if not isinstance(click_rate, numbers.Real) or not 0.0 < click_rate < 1.0:
        raise ValueError(f"click_rate must be in (0, 1), got {click_rate!r}.")
    rng = check_random_state(random_state)

    names = [f"C{c + 1}" for c in range(n_categorical)]
    ranks = [_zipf_ranks(n_samples, n, zipf_exponent, rng) for n in cardinalities]
    missing = [rng.random_sample(n_samples) < missing_rate for _ in names]
    scores = np.zeros(n_samples)
    for rank, absent, n in zip(ranks, missing, cardinalities, strict=True):
        scores += np.where(absent, 0.0, 0.5 * rng.standard_normal(n)[rank])

    pair_list = [
        (a, d) for a in range(n_categorical) for d in range(a + 1, n_categorical)
    ]
    chosen = rng.permutation(len(pair_list))[:n_interactions]
    interactions = [pair_list[p] for p in sorted(chosen)]
    for salt, (a, d) in enumerate(interactions):
        effects = interaction_scale * rng.standard_normal(_EFFECTS)
        pair = ranks[a].astype(np.uint64) * np.uint64(cardinalities[d])
        pair += ranks[d].astype(np.uint64)
        slot = _splitmix64(pair + np.uint64(salt << 40)) % np.uint64(_EFFECTS)
        scores += np.where(missing[a] | missing[d], 0.0, effects[slot])

    counts = []
    for _ in range(n_numeric):
        count = np.floor(rng.lognormal(1.0, 1.5, n_samples))
        scores += 0.3 * rng.standard_normal() * np.log1p(count)
        count[rng.random_sample(n_samples) < missing_rate] = np.nan
        counts.append(count)
    y = rng.random_sample(n_samples) < 1.0 / (
        1.0 + np.exp(-(_intercept_for_rate(scores, click_rate) + scores))
    )

    columns = {}
    for name, rank, absent, n in zip(names, ranks, missing, cardinalities, strict=True):
        values = _value_names(n, rng)[rank]
        values[absent] = None
        columns[name] = values
    for j, count in enumerate(counts):
        columns[f"I{j + 1}"] = count
    X = _as_output(columns, as_frame)
    y = y.astype(np.int64)
    if return_interactions:
        return X, y, [(names[a], names[d]) for a, d in interactions]
    return X, y


def _as_output(columns, as_frame) -> NDArray:
    if as_frame:
        import pandas as pd

        return pd.DataFrame(columns)
    X = np.empty((len(next(iter(columns.values()))), len(columns)), dtype=object)
    for j, values in enumerate(columns.values()):
        X[:, j] = values
    return X
