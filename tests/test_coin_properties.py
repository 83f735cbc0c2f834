"""Coin betting's claims: no learning rate, yet on sparse data with rare
informative features it reaches what tuned learners reach (ALGORITHMS.md §5), and
the normalised rule (the default) closes the cocob rule's gap on text."""

import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from sk_adaprox import AdaGradClassifier, CoinBettingClassifier
from sk_adaprox.datasets import load_sms_spam, make_rare_features


def _auc(model, X_train, y_train, X_test, y_test):
    model.fit(X_train, y_train)
    return roc_auc_score(y_test, model.decision_function(X_test))


@pytest.fixture(scope="module")
def rare_split():
    X, y = make_rare_features(20000, 100000, random_state=0)
    return train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)


@pytest.mark.slow
def test_five_passes_without_tuning_match_a_tuned_learner_on_rare_features(
    rare_split,
):
    X_train, X_test, y_train, y_test = rare_split

    def auc(model):
        return _auc(model, X_train, y_train, X_test, y_test)

    five_passes = {"max_iter": 5, "tol": None, "random_state": 0}
    normalized = auc(CoinBettingClassifier(**five_passes))
    cocob = auc(CoinBettingClassifier(update="cocob", **five_passes))
    # AdaGrad's defaults before issue 13 (a fixed eta, no l1): the untuned learner
    # issue 13 measured against.
    fixed_rate = auc(
        AdaGradClassifier(
            update="mirror_descent",
            eta=0.1,
            l1=0.0,
            max_iter=5,
            tol=None,
            random_state=0,
        )
    )
    # AdaGrad's current defaults choose eta and l1 in the first pass.
    tuned_in_pass = auc(AdaGradClassifier(random_state=0))
    # Measured: normalised 0.914, cocob 0.918 (random_state 0-2: 0.916-0.918; a
    # plain loop of §5's lines: 0.919), AdaGrad at eta 0.1 without l1 0.846,
    # AdaGrad's current defaults 0.918, the best of SGDClassifier's log-loss grid
    # 0.874.
    for coin in (normalized, cocob):
        assert coin > 0.905, coin
        assert coin > fixed_rate + 0.05, (coin, fixed_rate)
        assert coin > tuned_in_pass - 0.015, (coin, tuned_in_pass)


def test_the_normalized_rule_closes_the_text_gap():
    """On tf-idf text (the bundled SMS spam) the normalised rule is level with
    scikit-learn's SGD, where the cocob rule trails by about 0.01 AUC. (On SMS
    the bets' scale in units of each feature's largest value carries most of
    it; on RCV1 the division by the mean row norm does, which
    benchmarks/studies/coin_study.py measures.)"""
    texts, y = load_sms_spam(return_X_y=True)
    texts_train, texts_test, y_train, y_test = train_test_split(
        texts, y, test_size=0.25, stratify=y, random_state=0
    )
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    split = (
        vectorizer.fit_transform(texts_train),
        y_train,
        vectorizer.transform(texts_test),
        y_test,
    )
    normalized = _auc(CoinBettingClassifier(random_state=0), *split)
    cocob = _auc(CoinBettingClassifier(update="cocob", random_state=0), *split)
    sgd = _auc(SGDClassifier(random_state=0), *split)
    # Measured: normalised 0.9880, cocob 0.9778, SGDClassifier() 0.9881.
    assert normalized > cocob + 0.007, (normalized, cocob)
    assert normalized > sgd - 0.002, (normalized, sgd)
