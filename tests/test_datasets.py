"""Tests for sk_adaprox.datasets."""

import numpy as np
import pytest
import scipy.sparse as sp

from sk_adaprox.datasets import load_sms_spam, make_rare_features


def probabilities(n_features, c, a):
    i = np.arange(1, n_features + 1, dtype=float)
    return np.minimum(1.0, c * i**-a)


def assert_binomial(count, n, p, n_sigma=5.0):
    """Assert ``count`` is within ``n_sigma`` standard deviations of Bin(n, p)."""
    sd = np.sqrt(n * p * (1 - p))
    assert abs(count - n * p) <= n_sigma * sd + 1, (count, n * p, sd)


@pytest.fixture(scope="module")
def big():
    """50,000 rows x 20,000 features with the default frequency model."""
    return make_rare_features(50_000, 20_000, random_state=0, return_coef=True)


# ----------------------------------------------------------------- format
def test_csr_canonical_and_dtypes():
    X, y = make_rare_features(2_000, 3_000, random_state=0)
    assert isinstance(X, sp.csr_matrix)
    assert X.shape == (2_000, 3_000)
    assert X.dtype == np.float64
    assert X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
    assert np.all(X.data == 1.0)
    # Rebuild from the raw arrays so scipy recomputes the canonical flag
    # instead of trusting the one the generator set.
    rebuilt = sp.csr_matrix((X.data, X.indices, X.indptr), shape=X.shape)
    assert rebuilt.has_canonical_format
    # ... and check it by hand: strictly increasing column indices per row.
    row_start = np.zeros(X.indices.shape[0], dtype=bool)
    row_start[X.indptr[:-1][np.diff(X.indptr) > 0]] = True
    increasing = np.diff(X.indices.astype(np.int64)) > 0
    assert np.all(increasing | row_start[1:])
    assert X.indices.min() >= 0 and X.indices.max() < X.shape[1]
    assert y.shape == (2_000,) and y.dtype.kind == "i"


def test_return_coef_shapes():
    X, y, coef, intercept = make_rare_features(
        500, 1_000, informative_fraction=0.05, random_state=0, return_coef=True
    )
    assert coef.shape == (1, 1_000) and intercept.shape == (1,)
    assert np.count_nonzero(np.any(coef != 0, axis=0)) == 50
    _, _, coef, intercept = make_rare_features(
        500, 1_000, n_classes=4, random_state=0, return_coef=True
    )
    assert coef.shape == (4, 1_000) and intercept.shape == (4,)


# ------------------------------------------------------- frequency model
def test_feature_frequencies_match_power_law(big):
    X, *_ = big
    n, d = X.shape
    p = probabilities(d, 5.0, 1.0)
    counts = np.bincount(X.indices, minlength=d)
    # Always-present features, the largest p on the rejection-sampling path
    # (p = 5 / 21 ~ 0.24: repeated rows would be most frequent there), and
    # progressively rarer ones.
    for i in [1, 5, 6, 10, 20, 21, 22, 50, 200, 1_000, 5_000, 20_000]:
        assert_binomial(counts[i - 1], n, p[i - 1])
    assert np.all(counts[:5] == n)
    # Aggregated over bands of rare features the tolerance gets tight.
    for lo, hi in [(100, 1_000), (1_000, 5_000), (5_000, 20_000)]:
        expected = n * p[lo:hi]
        total = counts[lo:hi].sum()
        sd = np.sqrt(np.sum(expected * (1 - p[lo:hi])))
        assert abs(total - expected.sum()) <= 5 * sd
    # All features with enough occurrences: standardised counts are ~N(0, 1).
    ok = (n * p > 20) & (p < 1)
    z = (counts[ok] - n * p[ok]) / np.sqrt(n * p[ok] * (1 - p[ok]))
    assert abs(z.mean()) < 5 / np.sqrt(ok.sum())
    assert 0.9 < z.std() < 1.1


def test_features_occur_independently(big):
    X, *_ = big
    n = X.shape[0]
    X = X.tocsc()
    p = probabilities(X.shape[1], 5.0, 1.0)
    for i, j in [(6, 7), (10, 30), (21, 100)]:
        both = X[:, i - 1].multiply(X[:, j - 1]).nnz
        assert_binomial(both, n, p[i - 1] * p[j - 1])
    # A feature's rows are spread uniformly: same rate in both halves.
    rows = X[:, 9].indices
    assert_binomial(np.sum(rows < n // 2), rows.shape[0], 0.5)


@pytest.mark.parametrize(
    "c, a, d", [(5.0, 1.0, 20_000), (2.0, 1.5, 5_000), (0.3, 0.0, 200)]
)
def test_mean_nnz_per_row_is_sum_of_probabilities(c, a, d):
    n = 20_000
    X, _ = make_rare_features(
        n, d, frequency_scale=c, frequency_decay=a, random_state=1
    )
    p = probabilities(d, c, a)
    sd = np.sqrt(np.sum(p * (1 - p)) / n)
    assert abs(X.nnz / n - p.sum()) <= 5 * sd


def test_expected_nnz_per_row_documented_values():
    # sum_i min(1, 5 / i): 54.0 for 1e5 features and 65.5 for 1e6.
    assert probabilities(100_000, 5.0, 1.0).sum() == pytest.approx(54.03, abs=0.01)
    assert probabilities(1_000_000, 5.0, 1.0).sum() == pytest.approx(65.55, abs=0.01)


def test_empty_rows_are_allowed():
    n, d = 20_000, 1_000
    X, y = make_rare_features(n, d, frequency_scale=0.2, random_state=0)
    empty = np.mean(np.diff(X.indptr) == 0)
    expected = np.prod(1 - probabilities(d, 0.2, 1.0))
    assert empty > 0.1  # about exp(-0.2 * ln(1000)) = 0.25
    assert abs(empty - expected) <= 5 * np.sqrt(expected * (1 - expected) / n)
    assert set(np.unique(y)) <= {0, 1}


# ----------------------------------------------------------------- seeding
def test_same_seed_same_output():
    a = make_rare_features(3_000, 5_000, n_classes=3, random_state=42)
    b = make_rare_features(3_000, 5_000, n_classes=3, random_state=42)
    assert (a[0] != b[0]).nnz == 0
    np.testing.assert_array_equal(a[1], b[1])
    c = make_rare_features(
        3_000, 5_000, n_classes=3, random_state=np.random.RandomState(42)
    )
    assert (a[0] != c[0]).nnz == 0
    np.testing.assert_array_equal(a[1], c[1])


def test_different_seeds_differ():
    X0, y0 = make_rare_features(3_000, 5_000, random_state=0)
    X1, y1 = make_rare_features(3_000, 5_000, random_state=1)
    assert X0.shape == X1.shape
    assert (X0 != X1).nnz > 0
    assert np.any(y0 != y1)


# ------------------------------------------------------------------ labels
def test_binary_classes_are_balanced(big):
    _, y, *_ = big
    assert set(np.unique(y)) == {0, 1}
    # Exactly balanced before noise; noise keeps the mean at 1/2.
    assert abs(y.mean() - 0.5) <= 5 * np.sqrt(0.05 * 0.25 / y.shape[0]) + 1e-9


@pytest.mark.parametrize("n_classes", [3, 7])
def test_multiclass_labels_in_range_and_all_present(n_classes):
    _, y = make_rare_features(5_000, 5_000, n_classes=n_classes, random_state=0)
    assert y.min() == 0 and y.max() == n_classes - 1
    counts = np.bincount(y, minlength=n_classes)
    assert counts.shape == (n_classes,) and np.all(counts > 0)
    # Median-centred scores: no class is starved.
    assert counts.min() > 0.3 * 5_000 / n_classes


@pytest.mark.parametrize("n_classes", [2, 4])
def test_noiseless_labels_follow_the_coefficients(n_classes):
    X, y, coef, intercept = make_rare_features(
        5_000,
        5_000,
        n_classes=n_classes,
        label_noise=0.0,
        random_state=0,
        return_coef=True,
    )
    scores = X @ coef.T + intercept
    if n_classes == 2:
        expected = (scores > 0).ravel().astype(int)
    else:
        expected = np.argmax(scores, axis=1)
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("n_classes", [2, 5])
def test_label_noise_flips_expected_fraction(n_classes):
    n, noise = 20_000, 0.3
    kwargs = dict(n_classes=n_classes, random_state=3, return_coef=True)
    X0, y0, coef0, b0 = make_rare_features(n, 2_000, label_noise=0.0, **kwargs)
    X1, y1, coef1, b1 = make_rare_features(n, 2_000, label_noise=noise, **kwargs)
    # The noise is drawn last: same design matrix and model.
    assert (X0 != X1).nnz == 0
    np.testing.assert_array_equal(coef0, coef1)
    np.testing.assert_array_equal(b0, b1)
    # A label is resampled w.p. noise and then changes w.p. (k - 1) / k.
    assert_binomial(np.sum(y0 != y1), n, noise * (n_classes - 1) / n_classes)
    assert y1.min() >= 0 and y1.max() < n_classes


def test_full_label_noise_is_unrelated_to_x():
    _, y0 = make_rare_features(20_000, 2_000, label_noise=0.0, random_state=0)
    _, y1 = make_rare_features(20_000, 2_000, label_noise=1.0, random_state=0)
    assert_binomial(np.sum(y0 == y1), 20_000, 0.5)


def test_weights_grow_like_inverse_sqrt_frequency(big):
    X, _, coef, _ = big
    d = X.shape[1]
    p = probabilities(d, 5.0, 1.0)
    informative = np.flatnonzero(coef[0])
    assert informative.shape[0] == round(0.01 * d)
    # w_i * sqrt(p_i) ~ N(0, 1) for every informative feature ...
    standardised = coef[0, informative] * np.sqrt(p[informative])
    assert abs(np.mean(standardised**2) - 1) < 0.2
    # ... so the rarest informative features carry by far the largest weights.
    rare = informative[informative >= 1_000]
    frequent = informative[informative < 100]
    assert np.median(np.abs(coef[0, rare])) > 5 * np.median(np.abs(coef[0, frequent]))
    # Informative features are log-uniform in rank: the most frequent features
    # are (nearly) all informative, the octaves hold similar numbers.
    assert np.all(coef[0, :10] != 0)
    per_octave = np.histogram(informative + 1, bins=[256, 512, 1024, 2048, 4096])[0]
    assert per_octave.min() > 0.5 * per_octave.max()


# -------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_samples=0), "n_samples"),
        (dict(n_samples=10.5), "n_samples"),
        (dict(n_features=0), "n_features"),
        (dict(n_features=2**31), "n_features"),
        (dict(frequency_scale=0.0), "frequency_scale"),
        (dict(frequency_scale=np.inf), "frequency_scale"),
        (dict(frequency_decay=-1.0), "frequency_decay"),
        (dict(frequency_decay=np.nan), "frequency_decay"),
        (dict(n_classes=1), "n_classes"),
        (dict(n_classes=True), "n_classes"),
        (dict(informative_fraction=0.0), "informative_fraction"),
        (dict(informative_fraction=1.5), "informative_fraction"),
        (dict(label_noise=-0.1), "label_noise"),
        (dict(label_noise=1.1), "label_noise"),
        (dict(label_noise="0.1"), "label_noise"),
        (dict(random_state="seed"), "seed"),
    ],
)
def test_invalid_arguments(kwargs, match):
    params = dict(n_samples=10, n_features=10) | kwargs
    with pytest.raises(ValueError, match=match):
        make_rare_features(**params)


def test_tiny_problems():
    X, y = make_rare_features(1, 1, random_state=0)
    assert X.shape == (1, 1) and y.shape == (1,)
    X, y = make_rare_features(3, 2, informative_fraction=1.0, random_state=0)
    assert X.shape == (3, 2)


# ------------------------------------------------------------------ SMS Spam
def test_load_sms_spam():
    sms = load_sms_spam()
    assert len(sms.data) == 5_574 and sms.target.shape == (5_574,)
    assert all(isinstance(text, str) and text for text in sms.data)
    assert sms.target.dtype.kind == "i"
    assert set(np.unique(sms.target)) == {0, 1}
    assert int(sms.target.sum()) == 747
    assert list(sms.target_names) == ["ham", "spam"]
    assert sms.data[0].startswith("Go until jurong point")
    assert sms.target[2] == 1 and sms.data[2].startswith("Free entry")
    assert any("£" in text for text in sms.data)  # decoded as UTF-8
    for credit in ["Almeida", "Gómez Hidalgo", "Yamakami", "DocEng", "UCI", "CC BY"]:
        assert credit in sms.DESCR


def test_load_sms_spam_return_X_y():
    data, target = load_sms_spam(return_X_y=True)
    sms = load_sms_spam()
    assert data == sms.data
    np.testing.assert_array_equal(target, sms.target)
