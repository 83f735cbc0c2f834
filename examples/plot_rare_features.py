"""
Rare features: per-coordinate learning rates against one global rate
====================================================================

AdaGrad gives every feature its own learning rate, which shrinks with the
gradients that feature has seen. Duchi, Hazan and Singer (2011) motivate this
with sparse data whose *rare* features are the informative ones: a single
global rate small enough for the frequent features barely moves the rare ones,
and one large enough for the rare features makes the frequent ones noisy. This
example shows the effect in one online pass over synthetic data drawn from that
model by :func:`sk_adaprox.datasets.make_rare_features`: test ROC AUC against
the number of training rows, and how much weight each learner gives to
informative features seen rarely or often.
"""

# %%
# The data
# --------
#
# 30,000 rows and 50,000 binary features; feature ``i`` occurs in a row with
# probability about ``5 / i``, so a few features occur in most rows and most of
# them in a handful. 5 % of the features are informative, spread evenly over
# the frequency octaves, and the rarer an informative feature, the larger its
# true weight (``return_coef=True`` returns those weights). The first 20,000
# rows are the stream we learn from, in one pass; the last 10,000 are the test
# set.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import roc_auc_score

from sk_adaprox import AdaGradClassifier
from sk_adaprox.datasets import make_rare_features

X, y, true_coef, _ = make_rare_features(
    30_000, 50_000, informative_fraction=0.05, random_state=0, return_coef=True
)
true_coef = true_coef.ravel()
X_train, y_train, X_test, y_test = X[:20_000], y[:20_000], X[20_000:], y[20_000:]
n_train = X_train.shape[0]
occurrences = np.diff(X_train.tocsc().indptr)  # training rows holding each feature
informative = true_coef != 0
print(
    f"{n_train} training rows, {X_test.shape[0]} test rows, {X.shape[1]} features, "
    f"{X_train.nnz / n_train:.1f} non-zeros per row"
)
print(
    f"{informative.sum()} informative features; median number of training rows "
    f"holding one: {np.median(occurrences[informative]):.0f}"
)

# %%
# Three learners, one pass each
# -----------------------------
#
# * **AdaGrad, per-coordinate rates**: ``AdaGradClassifier`` with
#   ``update="mirror_descent"`` and no regularisation, which is the paper's
#   diagonal AdaGrad: feature ``i`` steps by ``eta * g_i / (delta + sqrt(G_i))``.
# * **AdaGrad, one global rate**: the same algorithm written in a few NumPy
#   lines, except that a single accumulator ``G`` (the summed squared norm of
#   the whole gradient) sets one rate for every feature. It differs from the
#   first learner in that one respect only (with one accumulator per feature
#   instead, the loop below reproduces ``AdaGradClassifier`` to rounding).
# * **SGDClassifier**, the usual global-rate learner: log loss, no penalty,
#   either a constant rate or ``eta0 / sqrt(t)``.
#
# Each learner gets a grid of step sizes that brackets its optimum, and at
# every stream length we keep its best setting on the test set. That flatters
# every learner alike; the global-rate learners get more settings to choose
# from. All of them see the rows in the same order, once.

checkpoints = np.unique(np.geomspace(250, n_train, 12).astype(int))


def learning_curve(make_model):
    """Test ROC AUC after each checkpoint of one pass, learning by partial_fit."""
    model, aucs, start = make_model(), [], 0
    for stop in checkpoints:
        model.partial_fit(X_train[start:stop], y_train[start:stop], classes=[0, 1])
        aucs.append(roc_auc_score(y_test, model.decision_function(X_test)))
        start = stop
    return np.array(aucs), model.coef_.ravel()


def global_rate_adagrad(eta, delta=0.1):
    """AdaGrad with ONE accumulator for all coordinates; log loss, labels 0/1.

    Returns the test ROC AUC at each checkpoint and the final weights."""
    w, b, G = np.zeros(X_train.shape[1]), 0.0, 0.0
    signs = 2.0 * y_train - 1.0
    data, indices, indptr = X_train.data, X_train.indices, X_train.indptr
    aucs, checkpoint_set = [], set(checkpoints.tolist())
    for t in range(n_train):
        cols, x = indices[indptr[t] : indptr[t + 1]], data[indptr[t] : indptr[t + 1]]
        score = x @ w[cols] + b
        d = -signs[t] / (1.0 + np.exp(signs[t] * score))  # d(loss)/d(score)
        G += d * d * (x @ x + 1.0)  # squared norm of the gradient, intercept too
        step = eta * d / (delta + np.sqrt(G))
        w[cols] -= step * x
        b -= step
        if t + 1 in checkpoint_set:
            aucs.append(roc_auc_score(y_test, X_test @ w + b))
    return np.array(aucs), w


runs = {"per-coordinate": {}, "global AdaGrad": {}, "SGD": {}}
for eta in (0.03, 0.1, 0.3, 1.0):
    runs["per-coordinate"][f"eta={eta}"] = learning_curve(
        lambda eta=eta: AdaGradClassifier(
            update="mirror_descent", eta=eta, l1=0.0, random_state=0
        )
    )
for eta in (0.3, 1.0, 3.0, 10.0, 30.0):
    runs["global AdaGrad"][f"eta={eta}"] = global_rate_adagrad(eta)
for schedule in ("constant", "invscaling"):
    for eta0 in (0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0):
        runs["SGD"][f"{schedule}, eta0={eta0}"] = learning_curve(
            lambda schedule=schedule, eta0=eta0: SGDClassifier(
                loss="log_loss",
                penalty=None,
                learning_rate=schedule,
                eta0=eta0,
                power_t=0.5,
                random_state=0,
            )
        )

envelopes, best_weights = {}, {}
print(f"\n{'learner':<16} {'best setting after all rows':<30} {'test ROC AUC':>12}")
for learner, settings in runs.items():
    envelopes[learner] = np.max([aucs for aucs, _ in settings.values()], axis=0)
    best = max(settings, key=lambda name, s=settings: s[name][0][-1])
    best_weights[learner] = settings[best][1]
    print(f"{learner:<16} {best:<30} {settings[best][0][-1]:>12.4f}")

print("\ntest ROC AUC after n rows, each learner at its best setting for that n")
print(f"{'n':>6}" + "".join(f"{learner:>16}" for learner in envelopes))
for i, n in enumerate(checkpoints):
    print(f"{n:>6}" + "".join(f"{aucs[i]:>16.4f}" for aucs in envelopes.values()))

# %%
# Where the difference comes from
# -------------------------------
#
# Group the informative features into bands by the number of training rows
# that hold them (1, 2-3, 4-7, ...). In each band, fit the learned weights to
# the true ones by a line through the origin, and divide its slope by the
# slope of the learned score on the true score over all training rows (the
# model's overall scale; a logistic model's scale is arbitrary). A learner that
# weighted every band in proportion to the truth would sit at 1 everywhere.
# Rarely seen features cannot reach that from a few noisy labels, but a
# per-coordinate rate lets each one move a full step the first time it
# appears, whereas under a global rate they stay near zero.

band_edges = 2 ** np.arange(0, 13)  # 1, 2, 4, ..., 4096
band_edges[-1] = n_train + 1  # the last band holds every feature seen >= 2048 times
true_scores = X_train @ true_coef
true_scores -= true_scores.mean()
relative_weight = {}
for learner, w in best_weights.items():
    learned_scores = X_train @ w
    overall = (learned_scores - learned_scores.mean()) @ true_scores
    overall /= true_scores @ true_scores
    slopes = []
    for low, high in zip(band_edges[:-1], band_edges[1:], strict=True):
        band = informative & (occurrences >= low) & (occurrences < high)
        slopes.append(w[band] @ true_coef[band] / (true_coef[band] @ true_coef[band]))
    relative_weight[learner] = np.array(slopes) / overall

band_sizes = [
    np.count_nonzero(informative & (occurrences >= low) & (occurrences < high))
    for low, high in zip(band_edges[:-1], band_edges[1:], strict=True)
]
labels = [f"{low}-{2 * low - 1}" if low > 1 else "1" for low in band_edges[:-2]]
labels.append(f"{band_edges[-2]}+")
print("\nlearned / true weight, relative to the whole model, by band")
print(f"{'seen in rows':<13}{'informative':>12}" + "".join(f"{k:>16}" for k in runs))
for i, (label, size) in enumerate(zip(labels, band_sizes, strict=True)):
    cells = "".join(f"{ratios[i]:>16.3f}" for ratios in relative_weight.values())
    print(f"{label:<13}{size:>12}{cells}")
ratio = relative_weight["per-coordinate"][:3] / np.maximum(
    relative_weight["global AdaGrad"][:3], relative_weight["SGD"][:3]
)
print(
    "\nFeatures seen 1-7 times: per-coordinate rates give them "
    f"{ratio.min():.1f}-{ratio.max():.1f} times the relative weight of the better "
    "global-rate learner."
)

# %%
# The plot
# --------
#
# Left: test ROC AUC after ``n`` rows of one pass, each learner at its best
# step size for that ``n``. Right: the relative weight of each band of
# informative features after the whole pass (log scales).

styles = {
    "per-coordinate": dict(c="tab:blue", marker="o", label="AdaGrad, per-coordinate"),
    "global AdaGrad": dict(
        c="tab:orange", marker="s", label="AdaGrad, one global rate"
    ),
    "SGD": dict(c="tab:green", marker="^", label="SGDClassifier, global rate"),
}
fig, (ax_curve, ax_bands) = plt.subplots(1, 2, figsize=(12, 4.8), layout="constrained")
for learner, aucs in envelopes.items():
    ax_curve.plot(checkpoints, aucs, **styles[learner])
ax_curve.set_xscale("log")
ax_curve.set_xlabel("training rows seen (one pass)")
ax_curve.set_ylabel("test ROC AUC (best step size on the grid)")
ax_curve.set_title("Learning curve")
ax_curve.grid(True, which="both", alpha=0.3)
ax_curve.legend(loc="lower right")

band_centres = band_edges[:-1] * np.sqrt(2)  # geometric middle of each octave
for learner, ratios in relative_weight.items():
    ax_bands.plot(band_centres, ratios, **styles[learner])
ax_bands.axhline(1.0, color="grey", linestyle="--", linewidth=1)
ax_bands.annotate("in proportion to the true weights", (1.2, 1.15), color="grey")
ax_bands.set_xscale("log")
ax_bands.set_yscale("log")
ax_bands.set_xlabel("training rows holding the feature (band of informative features)")
ax_bands.set_ylabel("learned / true weight, relative to the whole model")
ax_bands.set_title("Weight given to informative features, by frequency")
ax_bands.grid(True, which="both", alpha=0.3)
ax_bands.legend(loc="lower right")
fig.suptitle(
    "make_rare_features(30,000 x 50,000): per-coordinate vs global learning rates"
)
plt.show()

# %%
# Per-coordinate rates lead at every stream length, and the weight panel shows
# why. The features seen fewer than 8 times, about a quarter of the
# informative ones (the band counts above), get several times more weight,
# relative to the model's scale, under AdaGrad than under either global rate,
# which spends its steps on the frequent features instead. With more passes
# the global rates catch up (see "More passes need regularisation" in the
# AdaGrad documentation).
