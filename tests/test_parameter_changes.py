"""Parameters changed with set_params between calls: validated when they changed,
refused before any state changes when they cannot be used."""

import numpy as np
import pytest
from estimators import ALGORITHMS, make, state_of
from sklearn.utils._param_validation import InvalidParameterError

from sk_adaprox.datasets import make_rare_features


def _streaming(algorithm):
    X, y = make_rare_features(300, 200, random_state=0)
    model = make(algorithm, "binary", l1=0.01).partial_fit(
        X[:150], y[:150], classes=[0, 1]
    )
    return model, X[150:], y[150:]


def _snapshot(model):
    return model.t_, {name: value.copy() for name, value in state_of(model).items()}


def _assert_unchanged(model, snapshot):
    t, state = snapshot
    assert model.t_ == t
    for name, value in state_of(model).items():
        np.testing.assert_array_equal(value, state[name], err_msg=name)


@pytest.mark.parametrize(
    "change", [dict(l1=float("nan")), dict(l2=-1.0), dict(loss="bogus")]
)
@pytest.mark.parametrize("algorithm", list(ALGORITHMS))
def test_invalid_parameters_set_between_calls_are_rejected(algorithm, change):
    if not ALGORITHMS[algorithm].regularized and "loss" not in change:
        # No l1/l2 here: an invalid step parameter and damping instead.
        spec = ALGORITHMS[algorithm]
        name = next(iter(change))
        change = {spec.step_size if name == "l1" else spec.damping: change[name]}
    model, X, y = _streaming(algorithm)
    before = _snapshot(model)
    model.set_params(**change)
    with pytest.raises(InvalidParameterError, match=next(iter(change))):
        model.partial_fit(X, y)
    _assert_unchanged(model, before)


def test_parameters_that_make_the_weights_non_finite_are_refused():
    """With beta = 0 an FTRL weight is -alpha (z - sign(z) l1) / sqrt(n): a huge
    alpha overflows it. The new alpha is refused and the model is as it was."""
    X, y = make_rare_features(300, 200, random_state=0)
    model = make("ftrl", "binary", beta=0.0).partial_fit(X[:150], y[:150], [0, 1])
    before = _snapshot(model)
    model.set_params(alpha=1e308)
    with pytest.raises(ValueError, match="weights are not finite"):
        model.partial_fit(X[150:], y[150:])
    _assert_unchanged(model, before)
    model.set_params(alpha=0.1)
    model.partial_fit(X[150:], y[150:])
    assert model.t_ == 300 and np.isfinite(model.coef_).all()


def test_an_alpha_whose_reciprocal_overflows_is_refused_before_a_refit():
    X, y = make_rare_features(300, 200, random_state=0)
    model = make("ftrl", "binary").fit(X, y)
    before = _snapshot(model)
    model.set_params(alpha=1e-310)
    for call in (lambda: model.fit(X, y), lambda: model.partial_fit(X, y)):
        with pytest.raises(InvalidParameterError, match="alpha"):
            call()
        _assert_unchanged(model, before)
