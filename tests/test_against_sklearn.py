"""Where AdaGrad computes what scikit-learn computes, the numbers must agree.

With a huge delta, H = delta + sqrt(G) is delta to within sqrt(G)/delta, so AdaGrad
mirror descent without regularisation is plain SGD with the constant rate eta/delta.
"""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import SGDClassifier, SGDRegressor

from sk_adaprox import AdaGradClassifier, AdaGradRegressor

DELTA = 1e12
RATE = 0.01


@pytest.mark.parametrize("loss", ["log_loss", "hinge", "modified_huber"])
def test_constant_rate_limit_equals_sgd_classifier(loss):
    X, y = make_classification(300, 10, random_state=0)
    sample_weight = np.random.default_rng(0).uniform(0.5, 2.0, 300)
    common = dict(loss=loss, shuffle=False, max_iter=3, tol=None)
    ours = AdaGradClassifier(eta=RATE * DELTA, delta=DELTA, **common)
    theirs = SGDClassifier(
        penalty=None, learning_rate="constant", eta0=RATE, random_state=0, **common
    )
    ours.fit(X, y, sample_weight=sample_weight)
    theirs.fit(X, y, sample_weight=sample_weight)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-7)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-7)


def test_constant_rate_limit_equals_sgd_regressor():
    X, y = make_regression(300, 10, noise=1.0, random_state=0)
    y /= y.std()
    common = dict(loss="squared_error", shuffle=False, max_iter=2, tol=None)
    ours = AdaGradRegressor(
        normalize_y=False, eta=RATE * DELTA, delta=DELTA, **common
    ).fit(X, y)
    theirs = SGDRegressor(
        penalty=None, learning_rate="constant", eta0=RATE, **common
    ).fit(X, y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-7)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-7)
