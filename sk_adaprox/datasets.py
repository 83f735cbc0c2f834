"""Datasets: synthetic "rare features" and click-log generators and a bundled text
corpus.

* :func:`make_rare_features` draws large sparse binary classification problems
  from the sparse-data model of Duchi, Hazan and Singer (2011), in which rarely
  occurring features are the informative ones ("needles in a haystack").
* :func:`make_click_log` draws a click log (categorical and count columns,
  clicks from a logistic model with interactions), a stand-in for Criteo's or
  Avazu's logs;
* :func:`load_sms_spam` loads the SMS Spam Collection bundled with the package;
* :func:`fetch_a9a` and :func:`fetch_elec2` download two public data sets once
  into scikit-learn's data home and load them.
"""

import lzma
import numbers
from importlib import resources

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch, check_random_state

from ._click_log import make_click_log
from ._fetchers import fetch_a9a, fetch_elec2
from ._typing import FloatArray, NDArray, RandomStateLike

__all__ = [
    "make_rare_features",
    "make_click_log",
    "load_sms_spam",
    "fetch_a9a",
    "fetch_elec2",
]

# Features at least this frequent (p_i >= _DENSE_P) are drawn as Bernoulli
# indicators, a block of columns at a time: the work is proportional to their
# non-zeros.  All the others are sampled together, vectorised: a binomial
# count per feature, then that many distinct rows by rejection of repeats.
_DENSE_P = 0.25


def _check_int(value, name, minimum):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}.")
    return int(value)


def _check_real(value, name, low, high, *, low_open=False):
    """Check that ``value`` is a real number in ``[low, high]`` (or ``(low, high]``)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ValueError(f"{name} must be a real number, got {value!r}.")
    value = float(value)
    too_low = value <= low if low_open else value < low
    if not np.isfinite(value) or too_low or value > high:
        bracket = "(" if low_open else "["
        raise ValueError(f"{name} must be in {bracket}{low}, {high}], got {value!r}.")
    return value


def _feature_probabilities(n_features, frequency_scale, frequency_decay):
    """Return ``p_i = min(1, frequency_scale * i ** -frequency_decay)``, i = 1..d."""
    i = np.arange(1, n_features + 1, dtype=np.float64)
    return np.minimum(1.0, frequency_scale * i ** (-frequency_decay))


def _sample_occurrences(n_samples, probabilities, rng):
    """Draw which rows each feature occurs in, independently with prob. p_i.

    Returns the sorted row-major keys ``row * n_features + feature`` of the
    non-zero entries (all distinct).  Frequent features are drawn directly as
    Bernoulli(p_i) indicators.  For each rare feature the number of rows is
    ``Binomial(n_samples, p_i)`` and the rows are a uniformly random subset of
    that size, which is the same distribution.
    """
    n_features = probabilities.shape[0]
    pieces = []
    dense = np.flatnonzero(probabilities >= _DENSE_P)
    block = max(1, 2**22 // n_samples)  # at most ~32 MB of uniforms at a time
    for start in range(0, dense.shape[0], block):
        columns = dense[start : start + block]
        uniform = rng.random_sample((n_samples, columns.shape[0]))
        rows, k = np.nonzero(uniform < probabilities[columns])
        pieces.append(rows.astype(np.int64) * n_features + columns[k])

    # Rare features, vectorised: draw rows with replacement, drop repeated
    # (row, feature) pairs and redraw the deficit until there is none left.
    # By symmetry each feature's distinct rows stay a uniformly random subset
    # of its current size at every step, so the final subsets are exactly
    # "without replacement".  Few rounds are needed since p_i < _DENSE_P.
    rare = np.flatnonzero(probabilities < _DENSE_P)
    counts = rng.binomial(n_samples, probabilities[rare])
    features = np.repeat(rare.astype(np.int64), counts)
    rows = rng.randint(0, n_samples, size=features.shape[0]).astype(np.int64)
    pieces.append(rows * n_features + features)
    keys = np.sort(np.concatenate(pieces))
    repeated = np.zeros(keys.shape[0], dtype=bool)
    repeated[1:] = keys[1:] == keys[:-1]
    deficit = keys[repeated] % n_features
    keys = keys[~repeated]
    while deficit.shape[0]:
        rows = rng.randint(0, n_samples, size=deficit.shape[0]).astype(np.int64)
        new = np.sort(rows * n_features + deficit)
        fresh = np.ones(new.shape[0], dtype=bool)
        fresh[1:] = new[1:] != new[:-1]
        position = np.searchsorted(keys, new)
        taken = position < keys.shape[0]
        taken[taken] = keys[position[taken]] == new[taken]
        fresh &= ~taken
        keys = np.insert(keys, position[fresh], new[fresh])
        deficit = new[~fresh] % n_features
    return keys


def make_rare_features(
    n_samples: int = 10_000,
    n_features: int = 100_000,
    *,
    frequency_scale: float = 5.0,
    frequency_decay: float = 1.0,
    n_classes: int = 2,
    informative_fraction: float = 0.01,
    label_noise: float = 0.05,
    random_state: RandomStateLike = None,
    return_coef: bool = False,
) -> tuple[sp.csr_matrix, NDArray] | tuple[sp.csr_matrix, NDArray, FloatArray]:
    r"""Generate a sparse classification problem whose rare features matter.

    This is the sparse random-data model used to motivate AdaGrad in Duchi,
    Hazan and Singer (2011): feature :math:`i` (1-based) occurs in each row
    independently with probability

    .. math:: p_i = \min(1, c\, i^{-a}),

    with :math:`c` = ``frequency_scale`` and :math:`a` = ``frequency_decay``,
    and takes the value 1.0 when it occurs (binary indicators, as produced by
    one-hot or hashed categorical data). The expected number of non-zeros per
    row is :math:`\sum_{i=1}^{d} p_i`; for :math:`a = 1`, integer :math:`c`
    and :math:`d \gg c` that is :math:`c\,(1 + H_d - H_c) \approx
    c\,(1 + \ln(d / c)) - 1/2`, with :math:`H_k` the harmonic numbers: 54.0
    for the defaults (``c = 5``, ``a = 1``, 100,000 features) and 65.5 with
    1,000,000 features. Rows may be empty (e.g. when ``frequency_scale < 1``);
    none is forced to contain a feature.

    The labels come from a sparse linear model with
    ``m = max(1, round(informative_fraction * n_features))`` informative
    features. Each informative feature gets, independently per class, a weight
    :math:`w_i \sim \mathcal{N}(0, 1 / p_i)`; the others get zero. Weights
    thus grow like :math:`p_i^{-1/2}` as features get rarer, which gives every
    informative feature the same expected share of the score variance,
    :math:`\mathbb{E}[w_i^2]\,\mathrm{Var}(x_i) = 1 - p_i`, however often it
    occurs. Equivalently, the true weights are isotropic once each feature is
    rescaled by its root mean square :math:`\sqrt{p_i}` -- the diagonal
    rescaling AdaGrad learns from its accumulated squared gradients -- whereas
    a single global learning rate moves the heavily weighted rare features too
    slowly, or the frequent ones too far.

    The informative features are drawn without replacement with probability
    proportional to :math:`1 / i` (successive sampling), i.e. log-uniformly in
    rank: every octave of ranks, hence of frequencies, holds about the same
    number of informative features and the same share of the signal. (A
    uniform draw would put almost all of the signal in features too rare to
    be seen more than once or twice in any realistic sample.) With small
    ``informative_fraction`` the most frequent features are informative and
    the rare informative features are the "needles".

    For ``n_classes == 2`` the clean label is whether the score
    :math:`x^\top w` exceeds its median over the sample (balanced classes, up
    to ties); for ``n_classes > 2`` it is the argmax of ``n_classes`` such
    scores, each centred by its median. Finally each label is, with
    probability ``label_noise``, replaced by a class drawn uniformly at random
    (possibly the same one).

    Parameters
    ----------
    n_samples : int, default=10_000
        Number of rows.
    n_features : int, default=100_000
        Number of features (columns), at most ``2**31 - 1``.
    frequency_scale : float, default=5.0
        The constant :math:`c > 0`. The first ``floor(c ** (1 / a))``
        features occur in every row.
    frequency_decay : float, default=1.0
        The exponent :math:`a \ge 0`. ``0`` gives every feature the same
        frequency ``min(1, c)``.
    n_classes : int, default=2
        Number of classes, at least 2.
    informative_fraction : float, default=0.01
        Fraction of the features, in ``(0, 1]``, that carry signal; they are
        drawn log-uniformly in rank (see above).
    label_noise : float, default=0.05
        Probability, in ``[0, 1]``, that a label is replaced by a uniformly
        random class; the Bayes error rate is then
        ``label_noise * (n_classes - 1) / n_classes``.
    random_state : int, RandomState instance or None, default=None
        Seed or random number generator, see
        :func:`sklearn.utils.check_random_state`. The same integer seed gives
        identical output.
    return_coef : bool, default=False
        If True, also return the coefficients and intercept of the true model.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Binary float64 matrix in canonical format (sorted indices, no
        duplicates), with int32 index arrays.
    y : ndarray of shape (n_samples,)
        Integer labels in ``0, ..., n_classes - 1``.
    coef : ndarray of shape (1, n_features) or (n_classes, n_features)
        The true weights (one row when ``n_classes == 2``). Only returned if
        ``return_coef`` is True.
    intercept : ndarray of shape (1,) or (n_classes,)
        Minus the median over the sample of each score ``X @ coef.T``, so
        that before label noise
        ``y == (X @ coef.T + intercept > 0).ravel()`` for two classes and
        ``y == np.argmax(X @ coef.T + intercept, axis=1)`` for more. Only
        returned if ``return_coef`` is True.

    References
    ----------
    J. Duchi, E. Hazan and Y. Singer, "Adaptive Subgradient Methods for Online
    Learning and Stochastic Optimization", JMLR 12, 2011 (Section 1.2).

    Examples
    --------
    >>> from sk_adaprox.datasets import make_rare_features
    >>> X, y = make_rare_features(1000, 5000, random_state=0)
    >>> X.shape, X.dtype, sorted(set(y.tolist()))
    ((1000, 5000), dtype('float64'), [0, 1])
    """
    n_samples = _check_int(n_samples, "n_samples", 1)
    n_features = _check_int(n_features, "n_features", 1)
    if n_features > np.iinfo(np.int32).max:
        raise ValueError(f"n_features must be < 2**31, got {n_features}.")
    if n_samples > np.iinfo(np.int64).max // n_features:
        raise ValueError("n_samples * n_features must be < 2**63.")
    frequency_scale = _check_real(
        frequency_scale, "frequency_scale", 0.0, np.inf, low_open=True
    )
    frequency_decay = _check_real(frequency_decay, "frequency_decay", 0.0, np.inf)
    n_classes = _check_int(n_classes, "n_classes", 2)
    informative_fraction = _check_real(
        informative_fraction, "informative_fraction", 0.0, 1.0, low_open=True
    )
    label_noise = _check_real(label_noise, "label_noise", 0.0, 1.0)
    rng = check_random_state(random_state)

    probabilities = _feature_probabilities(n_features, frequency_scale, frequency_decay)
    keys = _sample_occurrences(n_samples, probabilities, rng)
    rows = keys // n_features
    indices = (keys - rows * n_features).astype(np.int32)
    del keys
    indptr = np.zeros(n_samples + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_samples), out=indptr[1:])
    del rows
    if indptr[-1] <= np.iinfo(np.int32).max:
        indptr = indptr.astype(np.int32)
    else:  # too many non-zeros for int32 offsets: use int64 throughout
        indices = indices.astype(np.int64)
    data = np.ones(indices.shape[0], dtype=np.float64)
    X = sp.csr_matrix((data, indices, indptr), shape=(n_samples, n_features))
    X.has_sorted_indices = True  # true by construction (keys were sorted)

    n_informative = max(1, round(informative_fraction * n_features))
    # Successive sampling with weights 1 / i: keep the m smallest E_i * i, with
    # E_i ~ Exp(1) i.i.d. (Efraimidis & Spirakis, 2006).
    rank_keys = rng.standard_exponential(n_features) * np.arange(1, n_features + 1)
    informative = np.sort(np.argpartition(rank_keys, n_informative - 1)[:n_informative])
    n_scores = 1 if n_classes == 2 else n_classes
    coef = np.zeros((n_scores, n_features))
    coef[:, informative] = rng.standard_normal((n_scores, n_informative))
    coef[:, informative] /= np.sqrt(probabilities[informative])

    intercept = -np.median(X @ coef.T, axis=0)
    scores = X @ coef.T + intercept
    if n_classes == 2:
        y = (scores[:, 0] > 0).astype(np.int64)
    else:
        y = np.argmax(scores, axis=1).astype(np.int64)
    noisy = np.flatnonzero(rng.random_sample(n_samples) < label_noise)
    y[noisy] = rng.randint(0, n_classes, size=noisy.shape[0])

    if return_coef:
        return X, y, coef, intercept
    return X, y


_SMS_SPAM_DESCR = """\
.. _sms_spam_dataset:

SMS Spam Collection
-------------------

5,574 English SMS messages, each labelled ham (legitimate, 4,827) or spam
(747, i.e. 13.4%). The raw text is returned; vectorise it with, e.g.,
``sklearn.feature_extraction.text.HashingVectorizer``.

**Data Set Characteristics:**

:Number of Instances: 5574
:Number of Classes: 2 (0 = ham, 1 = spam)
:Features: raw text (unicode strings)
:Licence: Creative Commons Attribution 4.0 International (CC BY 4.0)

Source: T. A. Almeida and J. M. Gómez Hidalgo, SMS Spam Collection v.1, UCI
Machine Learning Repository,
https://archive.ics.uci.edu/dataset/228/sms+spam+collection. The bundled
file is the collection's ``SMSSpamCollection`` text file (one
``label<TAB>message`` line per message), xz-compressed.

Please cite:

T. A. Almeida, J. M. Gómez Hidalgo and A. Yamakami, "Contributions to the
Study of SMS Spam Filtering: New Collection and Results", Proceedings of the
2011 ACM Symposium on Document Engineering (DocEng'11), Mountain View, CA,
USA, 2011.
"""


def load_sms_spam(*, return_X_y: bool = False) -> Bunch | tuple[NDArray, NDArray]:
    """Load the SMS Spam Collection (binary text classification).

    The data set (5,574 messages: 4,827 ham, 747 spam) is bundled with the
    package, so no download is needed. It is distributed under the CC BY 4.0
    licence; see ``DESCR`` for the source and the reference to cite.

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the attributes

        data : list of str of length 5574
            The messages.
        target : ndarray of shape (5574,)
            Integer labels, 1 for spam and 0 for ham.
        target_names : ndarray of shape (2,)
            ``["ham", "spam"]``.
        DESCR : str
            Description of the data set, its source and licence.

    (data, target) : tuple if ``return_X_y`` is True
        The list of messages and the label array.

    Examples
    --------
    >>> from sk_adaprox.datasets import load_sms_spam
    >>> sms = load_sms_spam()
    >>> len(sms.data), int(sms.target.sum())
    (5574, 747)
    """
    source = resources.files("sk_adaprox") / "data" / "SMSSpamCollection.xz"
    with source.open("rb") as compressed, lzma.open(compressed) as f:
        # Split on "\n" only: str.splitlines would also break messages at the
        # stray C1 control characters (e.g. "\x85") some of them contain.
        lines = f.read().decode("utf-8").split("\n")
    labels, data = zip(*(line.split("\t", 1) for line in lines if line), strict=True)
    labels = np.asarray(labels)
    target_names = np.array(["ham", "spam"])
    if not np.isin(labels, target_names).all():
        raise ValueError(f"Unexpected labels in {source}: {set(labels.tolist())}.")
    target = (labels == "spam").astype(np.int64)
    data = list(data)
    if return_X_y:
        return data, target
    return Bunch(
        data=data, target=target, target_names=target_names, DESCR=_SMS_SPAM_DESCR
    )
