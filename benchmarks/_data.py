"""Loaders for the real datasets in ../shared/data (or $SK_ADAPROX_DATA_DIR)."""

import lzma
import os
import tarfile
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

DATA_DIR = Path(
    os.environ.get(
        "SK_ADAPROX_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"
    )
)


def _svmlight(name, **kwargs):
    with lzma.open(DATA_DIR / name, "rb") as handle:
        return load_svmlight_file(handle, **kwargs)


def rcv1_small():
    """RCV1 subset (tf-idf, binary): train 1,000 / test 500, 47,236 features."""
    X, y = _svmlight("rcv1_vw_small.train.svm.xz", n_features=47236)
    X_test, y_test = _svmlight("rcv1_vw_small.test.svm.xz", n_features=47236)
    return X, y, X_test, y_test


def reuters_moneyfx():
    """Reuters-21578 money-fx vs rest (tf-idf, binary, 6.9 % positive)."""
    X, y = _svmlight("reuters_moneyfx.trn.xz")
    X_test, y_test = _svmlight("reuters_moneyfx.tst.xz", n_features=X.shape[1])
    return X, y, X_test, y_test


def _news20_texts():
    """{split: (texts, groups)} of the 20 Newsgroups by-date archive."""
    texts = {"train": [], "test": []}
    labels = {"train": [], "test": []}
    with tarfile.open(DATA_DIR / "20news-bydate.tar.xz", "r:xz") as archive:
        for member in archive:
            if not member.isfile():
                continue
            split, group = member.name.split("/")[-3:-1]
            split = "train" if split.endswith("train") else "test"
            texts[split].append(archive.extractfile(member).read().decode("latin-1"))
            labels[split].append(group)
    return {split: (texts[split], np.array(labels[split])) for split in texts}


def news20(max_features=None):
    """20 Newsgroups by date, tf-idf of the training split's vocabulary, 20 classes."""
    splits = _news20_texts()
    vectorizer = TfidfVectorizer(max_features=max_features, sublinear_tf=True)
    X = vectorizer.fit_transform(splits["train"][0])
    X_test = vectorizer.transform(splits["test"][0])
    return X, splits["train"][1], X_test, splits["test"][1]


def news20_comp_vs_rec():
    """20 Newsgroups, all comp.* (label 1) against all rec.* (label 0) posts,
    tf-idf of the training split's vocabulary."""
    splits = _news20_texts()
    prepared = []
    for texts, groups in (splits["train"], splits["test"]):
        keep = np.char.startswith(groups, "comp.") | np.char.startswith(groups, "rec.")
        kept_texts = [text for text, k in zip(texts, keep, strict=True) if k]
        prepared.append((kept_texts, np.char.startswith(groups[keep], "comp.") * 1))
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    X = vectorizer.fit_transform(prepared[0][0])
    return X, prepared[0][1], vectorizer.transform(prepared[1][0]), prepared[1][1]


def sms_spam_tfidf():
    """The bundled SMS Spam Collection, tf-idf, stratified 75/25 split."""
    from sk_adaprox.datasets import load_sms_spam

    texts, y = load_sms_spam(return_X_y=True)
    texts_train, texts_test, y, y_test = train_test_split(
        texts, y, test_size=0.25, stratify=y, random_state=0
    )
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    return (
        vectorizer.fit_transform(texts_train),
        y,
        vectorizer.transform(texts_test),
        y_test,
    )


def a9a():
    """UCI Adult, LIBSVM's one-hot binarisation (sparse 0/1, 123 features)."""
    X, y = _svmlight("a9a.xz", n_features=123)
    X_test, y_test = _svmlight("a9a.t.xz", n_features=123)
    return X, y, X_test, y_test


def a9a_hashed(n_features=2**18):
    """a9a's one-hot columns hashed into ``n_features`` buckets, as click features
    are: each active column j becomes the string "f<j>" fed to a FeatureHasher."""
    from sklearn.feature_extraction import FeatureHasher

    hasher = FeatureHasher(
        n_features=n_features, input_type="string", alternate_sign=False
    )
    X, y, X_test, y_test = a9a()

    def hashed(matrix):
        rows = np.split(matrix.indices, matrix.indptr[1:-1])
        return hasher.transform([f"f{j}" for j in row] for row in rows)

    return hashed(X), y, hashed(X_test), y_test


def w8a():
    """w8a (300 sparse binary features); the file has no test split, so 25 % is
    held out, stratified, with random_state 0."""
    X, y = _svmlight("w8a.xz", n_features=300)
    X, X_test, y, y_test = train_test_split(
        X, y, test_size=0.25, stratify=y, random_state=0
    )
    return X, y, X_test, y_test


def agaricus():
    """UCI Mushroom, one-hot (126 features), labels 0/1."""
    X, y = _svmlight("agaricus.txt.train.xz", n_features=126)
    X_test, y_test = _svmlight("agaricus.txt.test.xz", n_features=126)
    return X, y, X_test, y_test


def ijcnn1_standardized():
    """ijcnn1 (22 dense features), standardised on the training split."""
    X, y = _svmlight("ijcnn1.trn.xz", n_features=22)
    X_test, y_test = _svmlight("ijcnn1.tst.xz", n_features=22)
    scaler = StandardScaler().fit(X.toarray())
    return scaler.transform(X.toarray()), y, scaler.transform(X_test.toarray()), y_test


def _cal_housing():
    """California housing: 8 features, the house value in dollars."""
    with lzma.open(DATA_DIR / "cal_housing.data.xz", "rt") as handle:
        data = np.loadtxt(handle, delimiter=",")
    return data[:, :-1], data[:, -1]


def _millionsong():
    """Million Song (YearPredictionMSD) subset of 6,724 songs: 12 timbre averages,
    the year."""
    with lzma.open(DATA_DIR / "millionsong_cs190.txt.xz", "rt") as handle:
        data = np.loadtxt(handle, delimiter=",")
    return data[:, 1:], data[:, 0]


def _abalone():
    """UCI Abalone: 8 features, the rings."""
    X, y = _svmlight("abalone_scale.xz", n_features=8)
    return X.toarray(), y


def _standardized_x(X, y):
    """75/25 split, X standardised on the training split, y as it is."""
    X, X_test, y, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
    scaler = StandardScaler().fit(X)
    return scaler.transform(X), y, scaler.transform(X_test), y_test


def _standardized_regression(X, y):
    """75/25 split, X and y standardised on the training split."""
    X, y, X_test, y_test = _standardized_x(X, y)
    mean, scale = y.mean(), y.std()
    return X, (y - mean) / scale, X_test, (y_test - mean) / scale


def cal_housing_standardized():
    """California housing regression, X and y standardised on the training split."""
    return _standardized_regression(*_cal_housing())


def millionsong_standardized():
    """Million Song (YearPredictionMSD) subset of 6,724 songs: the year from 12
    timbre averages, X and y standardised on the training split."""
    return _standardized_regression(*_millionsong())


def abalone_standardized():
    """UCI Abalone regression (8 features), X and y standardised."""
    return _standardized_regression(*_abalone())


def synthetic_regression_standardized(n_samples=20_000, n_features=20, seed=0):
    """Correlated Gaussian features (AR(1) correlation 0.5), y = X w + noise at
    R^2 about 0.8; X and y standardised on the 75 % training split."""
    rng = np.random.RandomState(seed)
    correlation = 0.5 ** np.abs(np.subtract.outer(range(n_features), range(n_features)))
    X = rng.randn(n_samples, n_features) @ np.linalg.cholesky(correlation).T
    signal = X @ rng.randn(n_features)
    y = signal + 0.5 * signal.std() * rng.randn(n_samples) + 3.0
    return _standardized_regression(X * rng.uniform(0.5, 5.0, n_features), y)


def synthetic_low_rank_regression_standardized(
    n_samples=20_000, n_features=100, rank=10, seed=0
):
    """Low rank plus noise: X = Z B^T + 0.1 noise with Z of ``rank`` columns,
    y = Z v + noise (R^2 about 0.9); X and y standardised on the training split."""
    rng = np.random.RandomState(seed)
    Z = rng.randn(n_samples, rank)
    X = Z @ rng.randn(n_features, rank).T / np.sqrt(rank)
    X += 0.1 * rng.randn(n_samples, n_features)
    y = Z @ rng.randn(rank) / np.sqrt(rank) + 0.3 * rng.randn(n_samples)
    return _standardized_regression(X, y)


def synthetic_classification_standardized(n_samples=20_000, n_features=20, seed=0):
    """Correlated Gaussian features, labels from a logistic model (Bayes AUC about
    0.9); X standardised on the 75 % training split."""
    rng = np.random.RandomState(seed)
    correlation = 0.5 ** np.abs(np.subtract.outer(range(n_features), range(n_features)))
    X = rng.randn(n_samples, n_features) @ np.linalg.cholesky(correlation).T
    w = rng.randn(n_features)
    scores = X @ (1.5 * w / np.std(X @ w)) - 1.0
    y = (rng.uniform(size=n_samples) < 1.0 / (1.0 + np.exp(-scores))).astype(int)
    return _standardized_x(X, y)


def cal_housing_raw_target():
    """California housing, X standardised, y raw (house value in dollars)."""
    return _standardized_x(*_cal_housing())


def millionsong_raw_target():
    """Million Song subset, X standardised, y raw (the year, about 1998 +- 10)."""
    return _standardized_x(*_millionsong())


def abalone_raw_target():
    """UCI Abalone, X standardised, y raw (rings)."""
    return _standardized_x(*_abalone())


def scaledata_tfidf(labels="rating"):
    """Pang & Lee scale data v1.0: each review's text (subj.*) against its
    rating in [0, 1] (``labels="rating"``) or its class of the 3- or 4-class
    labels (``"3class"``, ``"4class"``); tf-idf of the training split's
    vocabulary, 75/25 split."""
    wanted = "rating" if labels == "rating" else f"label.{labels}"
    texts, targets = {}, {}
    with tarfile.open(DATA_DIR / "scaledata.tar.xz", "r:xz") as archive:
        for member in archive:
            if not member.isfile():
                continue
            name = member.name.split("/")[-1]
            for kind, into in (("subj", texts), (wanted, targets)):
                if (
                    name.startswith(kind + ".")
                    and name.count(".") == kind.count(".") + 1
                ):
                    lines = archive.extractfile(member).read().decode("latin-1")
                    into[name[len(kind) + 1 :]] = lines.splitlines()
    documents = [line for author in sorted(texts) for line in texts[author]]
    cast = float if labels == "rating" else int
    y = np.array([cast(v) for author in sorted(texts) for v in targets[author]])
    train, test, y, y_test = train_test_split(
        documents, y, test_size=0.25, random_state=0
    )
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    return vectorizer.fit_transform(train), y, vectorizer.transform(test), y_test


def make_regression_raw_target():
    """sklearn's make_regression(20000, 50, noise=10): target std about 200."""
    from sklearn.datasets import make_regression

    X, y = make_regression(20000, 50, n_informative=20, noise=10.0, random_state=0)
    return _standardized_x(X, y)


def int32_indices(X):
    """X with int32 indices where it is sparse: SGDClassifier refuses int64."""
    if hasattr(X, "indices") and X.indices.dtype != np.int32:
        X = X.copy()
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    return X


def rare(n_samples, n_features):
    """A loader of ``make_rare_features(n_samples, n_features, random_state=0)``,
    25 % held out, stratified."""

    def load():
        from sk_adaprox.datasets import make_rare_features

        X, y = make_rare_features(n_samples, n_features, random_state=0)
        X, X_test, y, y_test = train_test_split(
            X, y, test_size=0.25, random_state=0, stratify=y
        )
        return X, y, X_test, y_test

    return load


# Issue 13's classification panel: name -> loader of (X, y, X_test, y_test).
CLASSIFICATION_PANEL = {
    "rare_20k": rare(20_000, 100_000),
    "rare_160k": rare(160_000, 1_000_000),
    "rcv1": rcv1_small,
    "reuters": reuters_moneyfx,
    "news_comp_rec": news20_comp_vs_rec,
    "sms": sms_spam_tfidf,
    "a9a": a9a,
    "w8a": w8a,
    "ijcnn1": ijcnn1_standardized,
    "agaricus": agaricus,
}
