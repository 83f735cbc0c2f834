"""Coin betting's claim (ALGORITHMS.md §5): no learning rate, yet on sparse data
with rare informative features it reaches what tuned learners reach."""

from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from sk_adaprox import AdaGradClassifier, CoinBettingClassifier
from sk_adaprox.datasets import make_rare_features


def test_five_passes_without_tuning_match_a_tuned_learner_on_rare_features():
    X, y = make_rare_features(20000, 100000, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=0, stratify=y
    )

    def auc(model):
        model.fit(X_train, y_train)
        return roc_auc_score(y_test, model.decision_function(X_test))

    coin = auc(CoinBettingClassifier(max_iter=5, tol=None, random_state=0))
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
    # Measured: coin betting 0.918 (random_state 0-2: 0.916-0.918; a plain loop of
    # §5's lines: 0.919), AdaGrad at eta 0.1 without l1 0.846, AdaGrad's current
    # defaults 0.918, the best of SGDClassifier's log-loss grid 0.874.
    assert coin > 0.905, coin
    assert coin > fixed_rate + 0.05, (coin, fixed_rate)
    assert coin > tuned_in_pass - 0.015, (coin, tuned_in_pass)
