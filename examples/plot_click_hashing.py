"""
Click prediction on a hashed click log, with and without feature crosses
========================================================================

A click log is a table of categorical columns. This example trains
:class:`~sk_adaprox.FTRLClassifier` with L1 on such a table through
:class:`~sk_adaprox.HashingEncoder`, with and without crosses of the column
pairs that interact, and compares it with the same learner behind
scikit-learn's :class:`~sklearn.feature_extraction.FeatureHasher` (on
``"column=value"`` strings) and
:class:`~sklearn.preprocessing.OneHotEncoder`: rows per second from the
DataFrame to the trained model, test ROC AUC and log loss, and the number of
non-zero weights.

No public click log ships with sk_adaprox, so the table comes from
:func:`~sk_adaprox.datasets.make_click_log`, which draws one of Criteo's or
Avazu's shape: string columns of hexadecimal values with Zipf-like frequencies,
and clicks from a logistic model in which some pairs of columns interact.
"""

# %%
# The click log
# -------------
#
# Six categorical columns with 10 to 100,000 distinct values each (``C1`` to
# ``C6``), 2 % of the values missing, a click rate of 20 %. The clicks depend
# on each value and on the combination of values of three pairs of columns,
# which ``return_interactions=True`` names. We train on 150,000 rows in one
# online pass, as a click model would, and test on the next 50,000.

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction import FeatureHasher
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder

from sk_adaprox import FTRLClassifier, HashingEncoder, explain_hashed_weights
from sk_adaprox.datasets import make_click_log

X, y, pairs = make_click_log(
    200_000, n_numeric=0, random_state=0, return_interactions=True
)
X_train, y_train, X_test, y_test = X[:150_000], y[:150_000], X[150_000:], y[150_000:]
print(X.head(3))
print(f"interacting pairs: {pairs}; click rate {y.mean():.3f}")

# %%
# Four pipelines, one learner
# ---------------------------
#
# Every pipeline ends with the same FTRL-Proximal model, one pass over the
# rows in their order. ``HashingEncoder`` hashes each (column, value) into one
# of 2**20 columns, and with ``crosses`` each combination of the values of an
# interacting pair into one more. ``FeatureHasher`` hashes ``"column=value"``
# strings built from the frame, the way it is used on tables.
# ``OneHotEncoder`` learns the vocabulary of the training rows (an unseen test
# value gets no column).


def ftrl():
    return FTRLClassifier(alpha=0.3, l1=1.0, max_iter=1, tol=None, shuffle=False)


def column_value_strings(frame):
    """Per row, the list of "column=value" strings of its present values."""
    columns = [
        [f"{name}={v}" for v in frame[name].fillna("<missing>").tolist()]
        for name in frame.columns
    ]
    return list(zip(*columns, strict=True))


pipelines = {
    "HashingEncoder": make_pipeline(HashingEncoder(), ftrl()),
    "HashingEncoder + crosses": make_pipeline(HashingEncoder(crosses=pairs), ftrl()),
    "FeatureHasher": make_pipeline(
        FunctionTransformer(column_value_strings),
        FeatureHasher(2**20, input_type="string", alternate_sign=False),
        ftrl(),
    ),
    "OneHotEncoder": make_pipeline(
        FunctionTransformer(lambda frame: frame.fillna("<missing>")),
        OneHotEncoder(handle_unknown="ignore"),
        ftrl(),
    ),
}
# Compile the encoder's and FTRL's kernels before timing (cached on disk after).
make_pipeline(HashingEncoder(), ftrl()).fit(X_train[:5000], y_train[:5000])

results = {}
for name, pipeline in pipelines.items():
    started = time.perf_counter()
    pipeline.fit(X_train, y_train)
    seconds = time.perf_counter() - started
    proba = pipeline.predict_proba(X_test)[:, 1]
    results[name] = {
        "rows/s": len(X_train) / seconds,
        "AUC": roc_auc_score(y_test, proba),
        "log loss": log_loss(y_test, proba),
        "non-zero weights": int(np.count_nonzero(pipeline[-1].coef_)),
    }

print(f"{'pipeline':<26}{'rows/s':>10}{'AUC':>8}{'log loss':>10}{'weights':>10}")
for name, r in results.items():
    print(
        f"{name:<26}{r['rows/s']:>10,.0f}{r['AUC']:>8.4f}{r['log loss']:>10.4f}"
        f"{r['non-zero weights']:>10,}"
    )

# %%
# Without crosses, the three encoders give the same model up to collisions:
# AUC and log loss agree to a few thousandths, and the hashed ones need no
# vocabulary. Only the crosses let the linear model see the interactions, and
# they gain several points of AUC. The encoders differ most in speed: building
# a Python string per value and hashing it is what limits the FeatureHasher
# pipeline; HashingEncoder hashes the frame's own buffers.

fig, (speed, quality) = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
names = list(results)
colors = ["tab:blue", "tab:green", "tab:orange", "tab:gray"]
speed.barh(names, [results[n]["rows/s"] / 1e3 for n in names], color=colors)
speed.set_xlabel("training rows per second, from the DataFrame (thousands)")
speed.invert_yaxis()
quality.barh(names, [results[n]["AUC"] for n in names], color=colors)
quality.set_xlim(0.5, 1.0)
quality.set_xlabel("test ROC AUC")
quality.invert_yaxis()
quality.set_yticklabels([])
plt.show()

# %%
# What the largest weights stand for
# ----------------------------------
#
# A hashed column has no name, but the encoder can hash a sample of the table
# again and say which values and crosses land in the columns of the largest
# weights. With L1, most of them are crosses of the interacting pairs.

crossed = pipelines["HashingEncoder + crosses"]
for slot, weight, sources in explain_hashed_weights(
    crossed[0], crossed[-1], X_test.iloc[:20_000], n_top=8
):
    shown = ", ".join(f"{source} ({count})" for source, count in sources[:2])
    print(f"{weight:+.3f}  hash_{slot:<8} {shown}")
