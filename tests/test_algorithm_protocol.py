"""Every algorithm provides the hooks the shared model requires of it, and the
model's training state is one object that copies and pickles whole."""

import pickle

import numpy as np
import pytest
from estimators import ALGORITHMS

from sk_adaprox._algorithm import REQUIRED, Algorithm
from sk_adaprox._base import OnlineLinearModel
from sk_adaprox._training import TrainingState

# Every estimator class, once: the classifier and regressor of each algorithm.
ESTIMATORS = sorted(
    {cls for spec in ALGORITHMS.values() for cls in (spec.classifier, spec.regressor)},
    key=lambda cls: cls.__name__,
)


def _defining_class(cls, name):
    return next(klass for klass in cls.__mro__ if name in vars(klass))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("hook", REQUIRED)
def test_every_algorithm_provides_the_required_hooks(cls, hook):
    assert issubclass(cls, Algorithm) and issubclass(cls, OnlineLinearModel)
    owner = _defining_class(cls, hook)
    assert owner is not Algorithm, f"{cls.__name__} leaves {hook} to the protocol"
    assert owner not in OnlineLinearModel.__mro__, (cls.__name__, hook)


def test_a_required_hook_left_to_the_protocol_raises():
    protocol = Algorithm()
    calls = {
        "_n_state_slots": (),
        "_weight_parameters": (),
        "_adopt_parameters": (None, None, None),
        "_run_pass": (None, None, None, None, None),
    }
    assert set(calls) | {"_step_size_name"} == set(REQUIRED)
    for hook, arguments in calls.items():
        with pytest.raises(NotImplementedError):
            getattr(protocol, hook)(*arguments)
    assert not hasattr(protocol, "_step_size_name")


def test_the_protocol_lists_every_hook_it_defines():
    documented = Algorithm.__doc__
    hooks = [
        name
        for name in vars(Algorithm)
        if name.startswith("_") and not name.startswith("__")
    ]
    assert hooks
    for name in hooks:
        called = callable(getattr(Algorithm, name))
        assert f"``{name}{'(' if called else ''}" in documented, name
    for name in REQUIRED:
        assert f"``{name}" in documented, name


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_the_training_state_is_one_object_that_copies_and_pickles(cls):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y = X @ rng.normal(size=5) > 0 if "Classifier" in cls.__name__ else X[:, 0]
    model = cls(random_state=0, max_iter=2, tol=None).fit(X, y)
    training = model._training
    assert isinstance(training, TrainingState)
    assert training.t == model.t_ == 120 and training.data_passes == 2
    assert training.parameters is not None and hasattr(training.parameters, "_fields")
    state = [
        name
        for name in vars(model)
        if name.startswith("_")
        # The regressors' running target units belong to the model's data, shared
        # by its candidates, not to one training state.
        and name
        not in (
            "_training",
            "_stream_choice",
            "_validated_parameters",
            "_target_moments",
        )
    ]
    assert state == [], "training state held beside the TrainingState"
    copy = training.copy()
    assert copy == training and copy.array is not training.array
    for name, value in training.extras.items():
        if isinstance(value, np.ndarray):
            assert copy.extras[name] is not value, name
    copy.array[0, 0, 0] += 1.0
    assert copy != training
    assert pickle.loads(pickle.dumps(training)) == training
    before = model.decision_function(X) if hasattr(model, "classes_") else None
    model.partial_fit(X, y)
    assert model._training.t == 180
    assert copy.t == 120  # the copy did not train
    if before is not None:
        assert model.decision_function(X).shape == before.shape
