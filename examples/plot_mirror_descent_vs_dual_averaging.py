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

The data is a binary problem of the 20 Newsgroups collection (Ken Lang, 1995),
loaded with :func:`sklearn.datasets.fetch_20newsgroups` (which downloads it into
scikit-learn's data home on the first run): the posts of the five ``comp.*``
groups against those of the four ``rec.*`` groups, as tf-idf vectors, with the
collection's train/test split by date. No licence is stated by the collection's
source; it is a standard research benchmark.
"""

# %%
# The data
# --------

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import fetch_20newsgroups
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import roc_auc_score

from sk_adaprox import AdaGradClassifier

COMP = ["comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware"]
COMP += ["comp.sys.mac.hardware", "comp.windows.x"]
REC = ["rec.autos", "rec.motorcycles", "rec.sport.baseball", "rec.sport.hockey"]
posts = {
    subset: fetch_20newsgroups(
        subset=subset, categories=COMP + REC, remove=("headers",)
    )
    for subset in ("train", "test")
}
vectorizer = TfidfVectorizer(sublinear_tf=True)
X_train = vectorizer.fit_transform(posts["train"].data)
X_test = vectorizer.transform(posts["test"].data)
y_train, y_test = (
    np.char.startswith(np.asarray(posts[subset].target_names), "comp.")[
        posts[subset].target
    ].astype(int)
    for subset in ("train", "test")
)
n_seen = X_train.shape[1]  # the vocabulary: every word occurs in training
print(
    f"20 Newsgroups, comp vs rec: {X_train.shape[0]} training and "
    f"{X_test.shape[0]} test posts, {n_seen} words"
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

l1_grid = np.geomspace(1e-6, 3e-3, 8)
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
fig.suptitle("AdaGradClassifier with L1 on 20 Newsgroups comp vs rec, eta = 0.1")
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
