"""
FTRL-Proximal: sparse models from L1
====================================

McMahan et al. (2013) built FTRL-Proximal for click prediction, where a model has
billions of candidate features and must be small enough to serve. Its L1 term
keeps a weight at exactly zero until the feature's accumulated gradient ``z``
exceeds ``l1`` in size, so rarely useful features never enter the model. This
example sweeps ``l1`` of :class:`~sk_adaprox.FTRLClassifier` in one pass over a
stream, as the paper trains, and shows how many weights survive and what that
costs in test ROC AUC; an offline L1-regularised
:class:`~sklearn.linear_model.LogisticRegression` is the reference for how good a
model of each size can be.

The data is the Adult census set in LIBSVM's one-hot encoding, a9a (Becker &
Kohavi, 1996, UCI Machine Learning Repository; Platt, 1998): 32,561 training and
16,281 test people, 123 binary indicators of age band, education, occupation and
so on, labelled by whether the person earns more than $50,000 a year. Like click
data, it is one-hot categories, and as a click model would, we add every pairwise
cross of the active indicators, most of them useless: 15,252 candidate features.
:func:`~sk_adaprox.datasets.fetch_a9a` downloads the two files (3.5 MB) from the
LIBSVM data sets page into scikit-learn's data home on the first run; the data is
under the CC BY 4.0 licence.
"""

# %%
# One-hot features and their crosses
# ----------------------------------
#
# Each row of a9a has 13 or 14 active indicators. The cross of indicators ``i < j``
# goes to column ``123 + 123 * i + j``: 91 crosses per row, each a conjunction
# such as "married and a professional".

import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from sk_adaprox import FTRLClassifier
from sk_adaprox.datasets import fetch_a9a

N_INDICATORS = 123


def with_pairwise_crosses(X):
    """X (binary CSR) followed by one column per pair of its active columns."""
    X = sp.csr_matrix(X)
    X.sort_indices()
    row_lengths = np.diff(X.indptr)
    rows, columns = [], []
    for length in np.unique(row_lengths):
        selected = np.flatnonzero(row_lengths == length)
        # the active columns of these rows, one row of the block per row of X
        starts = X.indptr[selected][:, None]
        active = X.indices[starts + np.arange(length)]
        first, second = np.triu_indices(length, k=1)
        crosses = N_INDICATORS + N_INDICATORS * active[:, first] + active[:, second]
        rows.append(np.repeat(selected, crosses.shape[1]))
        columns.append(crosses.ravel())
    rows, columns = np.concatenate(rows), np.concatenate(columns)
    n_columns = N_INDICATORS + N_INDICATORS**2
    crossed = sp.csr_matrix(
        (np.ones(len(rows)), (rows, columns)), shape=(X.shape[0], n_columns)
    )
    return sp.hstack([X, crossed[:, N_INDICATORS:]], format="csr")


X_train, y_train = fetch_a9a(subset="train", return_X_y=True)
X_test, y_test = fetch_a9a(subset="test", return_X_y=True)
X_train, X_test = with_pairwise_crosses(X_train), with_pairwise_crosses(X_test)
y_train, y_test = (y_train > 0).astype(int), (y_test > 0).astype(int)
n_seen = np.count_nonzero(np.diff(X_train.tocsc().indptr))
print(
    f"a9a with pairwise crosses: {X_train.shape[0]} training and "
    f"{X_test.shape[0]} test rows, "
    f"{X_train.shape[1]} columns of which {n_seen} occur in the training rows, "
    f"{X_train.nnz / X_train.shape[0]:.0f} non-zeros per row"
)

# %%
# One pass per ``l1``
# -------------------
#
# Each model makes one pass over the training rows in their order, with
# ``partial_fit``, as it would over a stream of impressions. FTRL's ``l1`` weighs
# the *summed* loss of the pass (as in the paper), so a useful range grows with
# the number of rows; here it spans 0 to 300. The learning rate is fixed at
# ``alpha=0.1`` so that only ``l1`` changes.

l1_grid = [0.0, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0]
ftrl_rows = []
for l1 in l1_grid:
    started = time.perf_counter()
    model = FTRLClassifier(alpha=0.1, l1=l1).partial_fit(
        X_train, y_train, classes=[0, 1]
    )
    ftrl_rows.append(
        {
            "l1": l1,
            "non-zero weights": np.count_nonzero(model.coef_),
            "test ROC AUC": roc_auc_score(y_test, model.decision_function(X_test)),
            "seconds": time.perf_counter() - started,
        }
    )
ftrl = pd.DataFrame(ftrl_rows)
print("FTRLClassifier(alpha=0.1), one pass")
print(ftrl.to_string(index=False, float_format="{:.4g}".format))

# %%
# The offline reference
# ---------------------
#
# :class:`~sklearn.linear_model.LogisticRegression` with an L1 penalty, solved to
# convergence by liblinear over all the training rows at once, for a range of its
# inverse strength ``C``. It sees the whole training set as many times as it
# needs, so at each model size it is about as good as a linear model can be.
# Its test AUC peaks near ``C = 0.1``; a larger ``C`` keeps more of the crosses
# and loses AUC (``C = 1``: about 1,300 weights, AUC 0.898, for three times the
# solver time of ``C = 0.3``), so the range stops at 0.3.

offline_rows = []
for C in [0.003, 0.01, 0.03, 0.1, 0.3]:
    started = time.perf_counter()
    offline = LogisticRegression(
        l1_ratio=1.0, C=C, solver="liblinear", max_iter=200, random_state=0
    ).fit(X_train, y_train)
    offline_rows.append(
        {
            "C": C,
            "non-zero weights": np.count_nonzero(offline.coef_),
            "test ROC AUC": roc_auc_score(y_test, offline.decision_function(X_test)),
            "seconds": time.perf_counter() - started,
        }
    )
offline = pd.DataFrame(offline_rows)
print("LogisticRegression(l1_ratio=1, solver='liblinear'), offline")
print(offline.to_string(index=False, float_format="{:.4g}".format))

# %%
# Size against quality
# --------------------
#
# Left: as ``l1`` grows, FTRL keeps fewer and fewer weights. On a9a its test AUC
# first *rises*, as L1 drops crosses that only fit noise, and falls only once
# a few hundred weights are left. Right: each model as a point of (number of
# weights, test AUC). One online pass comes within a few thousandths of the
# offline models of the same size: the sparsity comes from the algorithm
# itself, with no second, offline training run to prune the model.

fig, (ax_l1, ax_size) = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
positions = np.arange(len(l1_grid))
ax_l1.bar(positions, ftrl["non-zero weights"], color="tab:blue", alpha=0.6)
ax_l1.set_yscale("log")
ax_l1.set_xticks(positions, [f"{value:g}" for value in l1_grid])
ax_l1.set_xlabel("FTRLClassifier l1 (on the summed loss of the pass)")
ax_l1.set_ylabel("non-zero weights (bars, log scale)", color="tab:blue")
ax_l1.axhline(n_seen, color="tab:blue", lw=0.8, ls=":")
ax_l1.text(
    len(l1_grid) - 0.5,
    n_seen,
    f"{n_seen} columns seen\nin training",
    ha="right",
    va="top",
    fontsize=8,
    color="tab:blue",
)
ax_auc = ax_l1.twinx()
ax_auc.plot(positions, ftrl["test ROC AUC"], "o-", color="tab:red")
ax_auc.set_ylabel("test ROC AUC (line)", color="tab:red")
ax_l1.set_title("FTRL-Proximal, one pass: weights kept and test AUC")

ax_size.plot(
    ftrl["non-zero weights"],
    ftrl["test ROC AUC"],
    "o-",
    color="tab:red",
    label="FTRLClassifier, one online pass",
)
# Labels alternately below and above their points, so that neighbouring points'
# labels do not overlap.
points = zip(l1_grid, ftrl["non-zero weights"], ftrl["test ROC AUC"], strict=True)
for index, (l1, size, auc) in enumerate(points):
    ax_size.annotate(
        f"l1={l1:g}",
        (size, auc),
        textcoords="offset points",
        xytext=(0, -12 if index % 2 == 0 else 6),
        ha="center",
        fontsize=7,
        color="tab:red",
    )
ax_size.margins(x=0.12)
ax_size.plot(
    offline["non-zero weights"],
    offline["test ROC AUC"],
    "s--",
    color="0.3",
    label="LogisticRegression, L1, offline",
)
ax_size.set_xscale("log")
ax_size.set_xlabel("non-zero weights (log scale)")
ax_size.set_ylabel("test ROC AUC")
ax_size.set_title("model size against test AUC")
ax_size.grid(True, alpha=0.3)
ax_size.legend(loc="lower right")
fig.suptitle("a9a with pairwise crosses: sparsity from L1")
plt.show()
