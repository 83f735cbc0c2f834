"""
AdaGrad with L1: mirror descent against dual averaging
======================================================

``AdaGradClassifier`` offers the two update rules of Duchi, Hazan and Singer
(2011). Composite mirror descent (``update="mirror_descent"``) takes an
adaptive gradient step and then soft-thresholds the weights by the L1 penalty.
Regularized dual averaging (``update="dual_averaging"``) keeps the sum of all
past gradients and sets a weight to exactly zero until the feature's average
gradient exceeds ``l1``. This example sweeps ``l1`` and shows, for both rules,
the number of non-zero weights and the test ROC AUC: at the same ``l1`` dual
averaging keeps far fewer weights for about the same AUC.

The data is the RCV1-v2 news corpus (Lewis, Yang, Rose & Li, 2004, "RCV1: A
New Benchmark Collection for Text Categorization Research", JMLR 5) as tf-idf
vectors: the 1,000 training and 500 test documents, with binary labels, that
Vowpal Wabbit ships as test data (BSD-3 licence), read from the shared data
folder. Without it, the SMS Spam Collection bundled with sk_adaprox
(Almeida, Gómez Hidalgo & Yamakami, 2011; UCI Machine Learning Repository;
CC BY 4.0) is used instead, and the output says so.
"""

# %%
# The data
# --------

import lzma
import os
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from sk_adaprox import AdaGradClassifier
from sk_adaprox.datasets import load_sms_spam

DATA_DIR = Path(os.environ.get("SK_ADAPROX_DATA_DIR", "../../shared/data"))
train_path = DATA_DIR / "rcv1_vw_small.train.svm.xz"
test_path = DATA_DIR / "rcv1_vw_small.test.svm.xz"
if train_path.exists() and test_path.exists():
    with lzma.open(train_path, "rb") as f:
        X_train, y_train = load_svmlight_file(f, n_features=47_236)
    with lzma.open(test_path, "rb") as f:
        X_test, y_test = load_svmlight_file(f, n_features=47_236)
    data_name = "RCV1 subset"
else:
    print(
        f"The real data ({train_path}) was not found: using the SMS Spam "
        "Collection bundled with sk_adaprox instead (tf-idf, stratified 75/25 split)."
    )
    texts, is_spam = load_sms_spam(return_X_y=True)
    texts_train, texts_test, y_train, y_test = train_test_split(
        texts, is_spam, test_size=0.25, stratify=is_spam, random_state=0
    )
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    X_train = vectorizer.fit_transform(texts_train)
    X_test = vectorizer.transform(texts_test)
    data_name = "SMS spam"
n_seen = np.count_nonzero(np.diff(X_train.tocsc().indptr))
print(
    f"{data_name}: {X_train.shape[0]} training and {X_test.shape[0]} test rows, "
    f"{X_train.shape[1]} features of which {n_seen} occur in the training rows"
)

# %%
# Sweeping ``l1``
# ---------------
#
# Both rules share everything else: log loss, the same fixed ``eta=0.1``
# (rather than the default ``"auto"``, so that only the rule differs), and
# ``fit`` running passes in a fresh random order until the
# training loss stops improving by ``tol``. ``l1`` weighs the mean training
# loss, like ``alpha`` in ``SGDClassifier``. Without L1 every weight of a
# feature seen in training is non-zero under either rule.

l1_grid = np.geomspace(1e-6, 3e-3, 12)
rules = ("mirror_descent", "dual_averaging")
results = {rule: {"nonzero": [], "auc": [], "passes": []} for rule in rules}
baseline = {}
for rule in rules:
    model = AdaGradClassifier(update=rule, eta=0.1, l1=0.0, random_state=0)
    model.fit(X_train, y_train)
    baseline[rule] = roc_auc_score(y_test, model.decision_function(X_test))
    for l1 in l1_grid:
        model = AdaGradClassifier(update=rule, eta=0.1, l1=l1, random_state=0)
        model.fit(X_train, y_train)
        results[rule]["nonzero"].append(np.count_nonzero(model.coef_))
        results[rule]["auc"].append(
            roc_auc_score(y_test, model.decision_function(X_test))
        )
        results[rule]["passes"].append(model.n_iter_)

md, da = results["mirror_descent"], results["dual_averaging"]
print(
    f"l1 = 0: test ROC AUC {baseline['mirror_descent']:.4f} (mirror descent), "
    f"{baseline['dual_averaging']:.4f} (dual averaging)"
)
print("\nMD = mirror descent, DA = dual averaging")
print(f"{'':>9} {'non-zero weights':>26} {'test ROC AUC':>17} {'passes':>11}")
print(
    f"{'l1':>9} {'MD':>8} {'DA':>8} {'MD/DA':>8} {'MD':>8} {'DA':>8} "
    f"{'MD':>5} {'DA':>5}"
)
for i, l1 in enumerate(l1_grid):
    print(
        f"{l1:>9.2g} {md['nonzero'][i]:>8} {da['nonzero'][i]:>8} "
        f"{md['nonzero'][i] / da['nonzero'][i]:>8.1f} "
        f"{md['auc'][i]:>8.4f} {da['auc'][i]:>8.4f} "
        f"{md['passes'][i]:>5} {da['passes'][i]:>5}"
    )

# The sparsest mirror-descent model, against the best dual-averaging model that
# is no larger.
size = min(md["nonzero"])
md_auc = md["auc"][md["nonzero"].index(size)]
da_auc, da_size = max(
    (auc, n) for auc, n in zip(da["auc"], da["nonzero"], strict=True) if n <= size
)
print(
    f"\nAt most {size} weights: mirror descent reaches AUC {md_auc:.4f} "
    f"(its sparsest model), dual averaging {da_auc:.4f} with {da_size} weights."
)

# %%
# Why the rules differ
# --------------------
#
# Mirror descent soft-thresholds the *current* weight by ``eta * l1 / H_i``
# once a round (``H_i`` grows with the feature's squared gradients). A weight
# reaches exactly zero only when those small shrinks undo the last gradient
# step, and the next gradient of that feature moves it away again. Dual
# averaging sets ``w_i = 0`` whenever the accumulated gradient ``|u_i|`` is at
# most ``t * l1``, that is, whenever the feature's *average* gradient over all
# ``t`` rounds is below ``l1``: a feature needs consistent evidence, not one
# lucky step, to get a weight. This is the sparsity the regularized dual
# averaging of Xiao (2010) is known for, with AdaGrad's per-coordinate steps.
#
# The plot
# --------
#
# Left and middle: non-zero weights and test ROC AUC against ``l1`` (log
# axes for ``l1`` and the weight count; the dotted lines are ``l1 = 0``).
# Right: the same runs as a trade-off, test ROC AUC against the number of
# weights kept.

styles = {
    "mirror_descent": dict(color="tab:purple", marker="o", label="mirror descent"),
    "dual_averaging": dict(color="tab:green", marker="s", label="dual averaging"),
}
fig, (ax_nnz, ax_auc, ax_trade) = plt.subplots(
    1, 3, figsize=(15, 4.6), layout="constrained"
)
for rule in rules:
    ax_nnz.plot(l1_grid, results[rule]["nonzero"], **styles[rule])
    ax_auc.plot(l1_grid, results[rule]["auc"], **styles[rule])
    ax_trade.plot(results[rule]["nonzero"], results[rule]["auc"], **styles[rule])
    ax_auc.axhline(baseline[rule], color=styles[rule]["color"], ls=":", lw=1)
ax_nnz.axhline(n_seen, color="grey", ls=":", lw=1, label="l1 = 0 (features seen)")
ax_nnz.set_xscale("log")
ax_nnz.set_yscale("log")
ax_nnz.set_xlabel("l1")
ax_nnz.set_ylabel("non-zero weights")
ax_nnz.set_title("Model size")
ax_auc.set_xscale("log")
ax_auc.set_xlabel("l1")
ax_auc.set_ylabel("test ROC AUC")
ax_auc.set_title("Accuracy (dotted: l1 = 0)")
ax_trade.set_xscale("log")
ax_trade.set_xlabel("non-zero weights")
ax_trade.set_ylabel("test ROC AUC")
ax_trade.set_title("Accuracy for a given model size")
for ax, where in (
    (ax_nnz, "lower left"),
    (ax_auc, "lower left"),
    (ax_trade, "upper left"),
):
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc=where)
fig.suptitle(f"AdaGradClassifier with L1 on {data_name}, eta = 0.1")
plt.show()

# %%
# With a tiny ``l1`` the two rules keep about the same weights. As ``l1``
# grows, dual averaging drops weights much faster than mirror descent, by a
# factor that keeps growing (the MD/DA column), while the two AUC curves stay
# close until ``l1`` is so large that both models lose accuracy. Read the
# other way, on the right: for a model of a given size, dual averaging is the
# more accurate of the two, since mirror descent needs a much larger ``l1``,
# and loses more accuracy, to become as sparse. That is why
# ``AdaGradClassifier`` defaults to dual averaging; to choose ``l1`` itself,
# cross-validate it, or leave the default ``l1="auto"``, which picks it during
# the first pass.
