"""make_click_log: its columns, value frequencies, click rate and interactions."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from sk_adaprox import FTRLClassifier, HashingEncoder
from sk_adaprox.datasets import make_click_log


def test_columns_types_and_reproducibility():
    X, y = make_click_log(5000, n_categorical=4, n_numeric=3, random_state=0)
    assert list(X.columns) == ["C1", "C2", "C3", "C4", "I1", "I2", "I3"]
    # Strings, whatever the dtype holding them (pandas 3's str, object before).
    columns = ["C1", "C2", "C3", "C4"]
    assert all(pd.api.types.infer_dtype(X[c], skipna=True) == "string" for c in columns)
    assert all(X[c].dtype == np.float64 for c in ["I1", "I2", "I3"])
    assert y.dtype == np.int64 and set(np.unique(y)) == {0, 1}
    again, y_again = make_click_log(5000, n_categorical=4, n_numeric=3, random_state=0)
    pd.testing.assert_frame_equal(X, again)
    np.testing.assert_array_equal(y, y_again)
    other, _ = make_click_log(5000, n_categorical=4, n_numeric=3, random_state=1)
    assert not X.equals(other)


def test_values_missing_rate_and_click_rate():
    X, y = make_click_log(
        40_000, n_values=1000, missing_rate=0.1, click_rate=0.3, random_state=0
    )
    assert abs(y.mean() - 0.3) < 0.01
    for column in X.columns:
        assert abs(X[column].isna().mean() - 0.1) < 0.01
    values = X["C1"].dropna()
    assert values.str.fullmatch(r"[0-9a-f]{8}").all()
    counts = values.value_counts().to_numpy()
    # Zipf with s = 1.1 over 1000 values: the top value has 1 / H(1000, 1.1).
    share = 1.0 / np.sum(np.arange(1, 1001) ** -1.1)
    assert abs(counts[0] / len(values) - share) < 0.01
    assert counts[0] > 5 * counts[9]


def test_as_array_and_default_cardinalities():
    X, _ = make_click_log(20_000, as_frame=False, random_state=0)
    assert X.shape == (20_000, 8) and X.dtype == object
    distinct = [len(set(X[:, c].tolist()) - {None}) for c in range(6)]
    assert distinct[0] == 10 and distinct == sorted(distinct)


@pytest.mark.slow  # fits two models on 60,000 rows
def test_crossing_the_interacting_pairs_improves_the_model():
    X, y, pairs = make_click_log(
        60_000, n_values=50, random_state=0, return_interactions=True
    )
    assert len(pairs) == 3 and all(a != b for a, b in pairs)
    train, test = slice(0, 45_000), slice(45_000, None)
    aucs = {}
    for name, crosses in (("plain", None), ("crossed", pairs)):
        encoder = HashingEncoder(crosses=crosses)
        model = FTRLClassifier(random_state=0).fit(
            encoder.transform(X[train]), y[train]
        )
        scores = model.decision_function(encoder.transform(X[test]))
        aucs[name] = roc_auc_score(y[test], scores)
    assert aucs["crossed"] > aucs["plain"] + 0.03, aucs


@pytest.mark.parametrize(
    "parameters, message",
    [
        ({"n_samples": 0}, "n_samples must be >= 1"),
        ({"n_interactions": 16}, "n_interactions must be <= 15"),
        ({"click_rate": 1.0}, "click_rate must be in"),
        ({"missing_rate": 1.5}, "missing_rate must be a number"),
    ],
)
def test_bad_parameters(parameters, message):
    with pytest.raises(ValueError, match=message):
        make_click_log(**{"n_samples": 10, **parameters})
