"""sk_adaprox inside scikit-learn's tooling: Pipeline, GridSearchCV, joblib workers."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from sk_adaprox import AdaGradClassifier, FTRLClassifier
from sk_adaprox.datasets import load_sms_spam


@pytest.mark.slow  # n_jobs=2: joblib starts worker processes
@pytest.mark.parametrize(
    "estimator, grid",
    [
        (AdaGradClassifier(random_state=0), {"adagradclassifier__eta": [0.03, 0.3]}),
        (FTRLClassifier(random_state=0), {"ftrlclassifier__l1": [0.0, 1.0]}),
    ],
)
def test_hashing_pipeline_grid_search_in_two_processes(estimator, grid):
    texts, y = load_sms_spam(return_X_y=True)
    texts, y = texts[:2000], y[:2000]
    pipeline = make_pipeline(
        HashingVectorizer(n_features=2**20, alternate_sign=False), estimator
    )
    search = GridSearchCV(pipeline, grid, cv=3, scoring="roc_auc", n_jobs=2).fit(
        texts, y
    )
    assert search.best_score_ > 0.95
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    best = search.best_estimator_[-1]
    assert best.coef_.shape == (1, 2**20)
    assert search.predict(["WINNER!! Claim your free prize now, call 0800"]) == [1]
