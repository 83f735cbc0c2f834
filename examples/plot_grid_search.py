"""
Tuning AdaGrad's ``eta`` and ``l1`` with a grid search
======================================================

This example runs :class:`~sklearn.model_selection.GridSearchCV` over the two
parameters of :class:`~sk_adaprox.AdaGradClassifier` that matter most, the learning
rate ``eta`` and the L1 strength ``l1``, with the dual-averaging update fixed. It
plots the cross-validated ROC AUC of every pair, and compares the grid with what
``AdaGradClassifier()`` reaches at its defaults, which choose ``eta`` and ``l1``
inside their first pass over the data without any cross-validation.

The data is the SMS Spam Collection bundled with sk_adaprox (Almeida, Gómez Hidalgo
& Yamakami, 2011; UCI Machine Learning Repository; CC BY 4.0 licence): 5,574 text
messages, 13 % of them spam.
"""

# %%
# Tf-idf features of the messages
# -------------------------------
#
# We hold out a quarter of the messages as a final test set, and compute tf-idf
# features (with sublinear term frequencies) from the training messages' vocabulary.
# The search then cross-validates on the training messages only. For brevity the
# tf-idf weights are computed once, on all training messages, rather than inside
# each fold; putting the vectorizer in a :class:`~sklearn.pipeline.Pipeline` would
# avoid even that small leak, at twice the cost.

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from joblib import parallel_backend
from matplotlib.patches import Rectangle
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import (
    GridSearchCV,
    StratifiedKFold,
    cross_validate,
    train_test_split,
)

from sk_adaprox import AdaGradClassifier
from sk_adaprox.datasets import load_sms_spam

texts, is_spam = load_sms_spam(return_X_y=True)
texts_train, texts_test, y_train, y_test = train_test_split(
    texts, is_spam, test_size=0.25, stratify=is_spam, random_state=0
)
vectorizer = TfidfVectorizer(sublinear_tf=True)
X_train = vectorizer.fit_transform(texts_train)
X_test = vectorizer.transform(texts_test)
print(
    f"{X_train.shape[0]} training and {X_test.shape[0]} test messages, "
    f"{X_train.shape[1]} tf-idf features"
)

# %%
# The grid search
# ---------------
#
# ``eta`` scales every step: with AdaGrad a weight moves by at most about ``eta``
# per row. ``l1`` weighs the mean training loss, as ``alpha`` does in
# :class:`~sklearn.linear_model.SGDClassifier`; with dual averaging a word's weight
# stays exactly zero until its accumulated evidence outweighs ``l1``. Both grids are
# logarithmic. Each of the 35 pairs is fitted on 5 stratified folds, to ``tol``.
#
# The Numba kernels release the GIL, so joblib's threading backend trains two
# models at once on two cores without copying the data to worker processes.

etas = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0]
l1s = [0.0, 1e-6, 1e-5, 1e-4, 1e-3]
cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
search = GridSearchCV(
    AdaGradClassifier(update="dual_averaging", random_state=0),
    {"eta": etas, "l1": l1s},
    scoring="roc_auc",
    cv=cv,
)
with parallel_backend("threading", n_jobs=2):
    search.fit(X_train, y_train)

results = pd.DataFrame(search.cv_results_)
mean_auc = results.pivot_table(
    index="param_l1", columns="param_eta", values="mean_test_score"
)
print("mean cross-validated ROC AUC (rows: l1, columns: eta)")
print(mean_auc.to_string(float_format="{:.4f}".format))
print(f"\nbest: {search.best_params_}, mean CV ROC AUC {search.best_score_:.4f}")

# %%
# The defaults, on the same folds
# -------------------------------
#
# ``AdaGradClassifier()`` tries 16 pairs, ``eta`` in {0.03, 0.1, 0.3, 1} and
# ``l1`` in {0, 1e-6, 1e-5, 1e-4}, during its first pass. It keeps the pair whose
# predictions of each row, made before learning from it, had the lowest log loss,
# then continues with that pair alone. We cross-validate it on the same five folds.

defaults = cross_validate(
    AdaGradClassifier(random_state=0),
    X_train,
    y_train,
    scoring="roc_auc",
    cv=cv,
    return_estimator=True,
)
default_auc = defaults["test_score"].mean()
default_std = defaults["test_score"].std()
print(f"AdaGradClassifier(): mean CV ROC AUC {default_auc:.4f} (std {default_std:.4f})")
for fold, estimator in enumerate(defaults["estimator"]):
    print(f"  fold {fold}: chose {estimator.chosen_params_}")

# %%
# The search refits its best pair on all training messages; we fit the defaults on
# them too, and score both on the held-out test messages.

default_model = AdaGradClassifier(random_state=0).fit(X_train, y_train)
test_auc = {
    f"grid search's best {search.best_params_}": roc_auc_score(
        y_test, search.decision_function(X_test)
    ),
    f"AdaGradClassifier(), chose {default_model.chosen_params_}": roc_auc_score(
        y_test, default_model.decision_function(X_test)
    ),
}
for name, auc in test_auc.items():
    print(f"test ROC AUC {auc:.4f}  {name}")

# %%
# What ``l1`` buys: the number of words with a non-zero weight, for ``eta=1``
# fitted on all training messages.

for l1 in l1s:
    model = AdaGradClassifier(update="dual_averaging", eta=1.0, l1=l1, random_state=0)
    model.fit(X_train, y_train)
    print(f"l1 = {l1:<6g}: {np.count_nonzero(model.coef_):5d} non-zero weights")

# %%
# What the grid shows
# -------------------
#
# On the left, each cell is the mean ROC AUC over the five folds; the cell the
# search picked is outlined in red, and the pair the defaults chose in black. On
# the right, each line is one ``l1``; the dashed line is ``AdaGradClassifier()``
# and the grey band its mean ± one standard deviation across the folds.
#
# The strongest ``l1`` costs the most AUC: it keeps only a few dozen words (printed
# above), and on short messages the rarer words matter. Up to 1e-5 the rows are
# nearly identical, although 1e-5 already keeps only a fifth of the words. Along
# ``eta``, the AUC rises steeply up to 0.1 and then flattens. All of the flat top
# of the grid lies inside the defaults' grey band: the differences there are
# smaller than the spread across folds, so the pair the search picks is only
# nominally the best. The defaults land on that flat top without any
# cross-validation, and on the test messages (printed above) the two are as close.

fig, (ax_map, ax_lines) = plt.subplots(
    1, 2, figsize=(13, 5.2), layout="constrained", width_ratios=[1.15, 1]
)

image = ax_map.imshow(mean_auc.to_numpy(), cmap="viridis", vmin=0.96, vmax=1.0)
for i in range(len(l1s)):
    for j in range(len(etas)):
        value = mean_auc.iat[i, j]
        ax_map.text(
            j,
            i,
            f"{value:.4f}",
            ha="center",
            va="center",
            fontsize=8,
            color="black" if value > 0.985 else "white",
        )


def outline(ax, params, color, label):
    i, j = l1s.index(params["l1"]), etas.index(params["eta"])
    ax.add_patch(
        Rectangle(
            (j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=color, lw=2.5, label=label
        )
    )


outline(ax_map, search.best_params_, "red", "grid search's best")
outline(ax_map, default_model.chosen_params_, "black", "chosen by AdaGradClassifier()")
ax_map.set_xticks(range(len(etas)), [f"{eta:g}" for eta in etas])
ax_map.set_yticks(range(len(l1s)), [f"{l1:g}" for l1 in l1s])
ax_map.set_xlabel("eta (learning rate)")
ax_map.set_ylabel("l1 (L1 strength on the mean loss)")
ax_map.set_title("mean 5-fold CV ROC AUC, dual averaging")
ax_map.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncols=2, fontsize=9)
fig.colorbar(image, ax=ax_map, shrink=0.85, label="mean 5-fold CV ROC AUC")

colors = plt.cm.plasma(np.linspace(0, 0.85, len(l1s)))
for l1, color in zip(l1s, colors, strict=True):
    ax_lines.plot(etas, mean_auc.loc[l1], color=color, marker="o", label=f"l1 = {l1:g}")
ax_lines.axhspan(
    default_auc - default_std,
    default_auc + default_std,
    color="0.85",
    zorder=0,
    label="AdaGradClassifier(): ± 1 std across folds",
)
ax_lines.axhline(
    default_auc,
    color="black",
    linestyle="--",
    label=f"AdaGradClassifier(): {default_auc:.4f} ± {default_std:.4f}",
)
ax_lines.set_xscale("log")
ax_lines.set_xlabel("eta (learning rate, log scale)")
ax_lines.set_ylabel("mean 5-fold CV ROC AUC")
ax_lines.set_title("one line per l1; dashed: the defaults")
ax_lines.legend(loc="lower right", fontsize=9)
ax_lines.grid(True, alpha=0.3)
fig.suptitle("SMS Spam Collection: GridSearchCV over AdaGradClassifier's eta × l1")
plt.show()
