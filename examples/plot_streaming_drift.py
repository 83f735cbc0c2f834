"""
Learning from a drifting stream with ``partial_fit``
====================================================

This example trains :class:`~sk_adaprox.AdaGradClassifier`,
:class:`~sk_adaprox.FTRLClassifier` and scikit-learn's
:class:`~sklearn.linear_model.SGDClassifier` on a stream whose concept drifts, one
batch at a time with ``partial_fit``, and evaluates them while they learn: every
prediction is made before the model has seen the row's label (progressive
validation, :func:`~sk_adaprox.progressive_val_predict`). A model trained once on
the start of the stream and then frozen shows how much the stream drifts.

The data is Elec2, the electricity market of New South Wales, Australia, from May
1996 to December 1998 (M. Harries, "SPLICE-2 Comparative Evaluation: Electricity
Pricing", University of New South Wales, 1999; the normalised version of Gama et
al., 2004), loaded with :func:`~sk_adaprox.datasets.fetch_elec2`, which downloads
it (3 MB) into scikit-learn's data home on the first run: 45,312 half-hour
periods, each labelled UP or DOWN by whether the price rose above its average of
the last 24 hours. No licence is stated by its source; it is a standard
benchmark of concept drift.
"""

# %%
# The stream
# ----------
#
# We keep the rows in their order: it is a time series, and the point is to learn
# it forwards. The features are the time of day (``period``), the day of the week
# (one column per day), and the demand and price in New South Wales and in the
# neighbouring state of Victoria, plus the planned transfer between them, all
# already scaled to [0, 1]. The ``date`` column is left out: a linear model would
# only extrapolate it. A batch is one day, 48 half-hours.

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.linear_model import SGDClassifier

from sk_adaprox import AdaGradClassifier, FTRLClassifier, progressive_val_predict
from sk_adaprox.datasets import fetch_elec2

BATCH = 48  # rows per partial_fit call: one day of half-hours

elec2 = fetch_elec2(as_frame=True).frame
print("columns:", list(elec2.columns))
numeric = ["period", "nswprice", "nswdemand", "vicprice", "vicdemand", "transfer"]
weekday = pd.get_dummies(elec2["day"], prefix="day", dtype=float)
X = np.hstack([elec2[numeric].to_numpy(), weekday.to_numpy()])
y = (elec2["class"] == "UP").to_numpy().astype(int)
unit, per_unit = "days", BATCH  # the x axis of the plot: rows / 48 = days

classes = np.array([0, 1])
print(
    f"Elec2: {X.shape[0]} rows, {X.shape[1]} features, "
    f"{100 * y.mean():.1f} % positive (UP)"
)

# %%
# Three learners, one loop
# ------------------------
#
# * :class:`~sk_adaprox.AdaGradClassifier` and :class:`~sk_adaprox.FTRLClassifier`
#   at their defaults. Each tries 16 settings of its step size and L1 strength on
#   the stream's first 1,000 rows, then keeps the setting whose predictions were
#   best and serves it alone. The choice is made at the first batch boundary after
#   1,000 rows, one more reason to feed a stream in batches: in a single call over
#   the whole stream, every prediction would come from the candidate served at its
#   start.
# * :class:`~sklearn.linear_model.SGDClassifier` with the same logistic loss and
#   its default ``"optimal"`` learning-rate schedule.
#
# For every day we first ask each model for its predictions of the whole day, with
# what it knew at midnight (the *day-ahead* predictions). Then it learns the day.
# For our models, :func:`~sk_adaprox.progressive_val_predict` does the learning and
# also returns, for every half-hour, the prediction made just before learning that
# row: the *row-by-row* progressive predictions, at the cost of ``partial_fit``
# alone. scikit-learn has no such helper, and a row-by-row ``predict`` and
# ``partial_fit`` loop over 45,000 rows takes far longer than this example may, so
# SGD is evaluated day-ahead only.

adaptive = {
    "AdaGradClassifier()": AdaGradClassifier(random_state=0),
    "FTRLClassifier()": FTRLClassifier(random_state=0),
}
sgd_name = "SGDClassifier(log_loss)"
sgd = SGDClassifier(loss="log_loss", random_state=0)

day_ahead = {name: np.full(y.shape, -1) for name in [*adaptive, sgd_name]}
row_by_row = {name: np.full(y.shape, -1) for name in adaptive}
for start in range(0, X.shape[0], BATCH):
    rows = slice(start, start + BATCH)
    X_batch, y_batch = X[rows], y[rows]
    for name, model in adaptive.items():
        if start > 0:  # an unfitted model cannot predict the very first batch
            day_ahead[name][rows] = model.predict(X_batch)
        row_by_row[name][rows] = progressive_val_predict(
            model, X_batch, y_batch, classes=classes
        )
    if start > 0:
        day_ahead[sgd_name][rows] = sgd.predict(X_batch)
    sgd.partial_fit(X_batch, y_batch, classes=classes)

for name, model in adaptive.items():
    print(f"{name} chose {model.chosen_params_}")

# %%
# A frozen model, to see the drift
# --------------------------------
#
# The same AdaGrad model, fitted (several passes) on the stream's first 8 × 7
# batches (its first eight weeks on Elec2), and then never updated again. If the
# stream did not drift, it would stay as good as the models that keep learning.

n_frozen = 8 * 7 * BATCH
frozen = AdaGradClassifier(random_state=0).fit(X[:n_frozen], y[:n_frozen])
frozen_predictions = np.full(y.shape, -1)
frozen_predictions[n_frozen:] = frozen.predict(X[n_frozen:])

# %%
# Accuracy over the whole stream
# ------------------------------
#
# Every model is scored on the rows after the first batch (after the first eight
# weeks for the frozen model, which was trained on them). Two simple baselines put
# the numbers in context: always predicting the stream's majority class, and
# repeating the previous row's label. The labels of successive half-hours agree so
# often that the second is hard to beat; our models do not see past labels, only
# the current prices and demands.

scored = slice(BATCH, None)
table = {}
for name in adaptive:
    table[name] = {
        "row by row": np.mean(row_by_row[name][scored] == y[scored]),
        "day ahead": np.mean(day_ahead[name][scored] == y[scored]),
    }
table[sgd_name] = {"day ahead": np.mean(day_ahead[sgd_name][scored] == y[scored])}
table["AdaGrad frozen after 8 weeks"] = {
    "day ahead": np.mean(frozen_predictions[n_frozen:] == y[n_frozen:])
}
table["majority class"] = {"row by row": max(y[scored].mean(), 1 - y[scored].mean())}
table["previous row's label"] = {"row by row": np.mean(y[BATCH:] == y[BATCH - 1 : -1])}
summary = pd.DataFrame(table).T[["row by row", "day ahead"]]
print("accuracy over the stream")
print(summary.to_string(float_format="{:.3f}".format, na_rep="-"))

# %%
# Accuracy as the stream goes
# ---------------------------
#
# Each curve is the accuracy over a sliding window of the last 30 batches (30 days
# on Elec2). The top panel compares the three learners on the same footing, each
# day predicted with the model as it stood at midnight, and adds the frozen model.
# The bottom panel shows, for our two models, how much better they do when each
# half-hour is predicted with everything up to the half-hour before: recent rows
# say a lot about the next one.
#
# The frozen model starts ahead of the others, fresh from several passes over
# the eight weeks just before, but within a few months it falls behind as the
# market changes, and for most of the stream it stays behind: the drift is
# real, and the models that keep learning follow it. All learners dip and
# recover together, when the market changes faster than any of them adapts.

window = 30 * BATCH


def rolling_accuracy(predictions):
    correct = pd.Series(np.where(predictions >= 0, predictions == y, np.nan))
    return correct.rolling(window, min_periods=window // 2).mean().to_numpy()


position = np.arange(len(y)) / per_unit
colors = {
    "AdaGradClassifier()": "tab:blue",
    "FTRLClassifier()": "tab:orange",
    sgd_name: "tab:green",
}
fig, (ax_day, ax_row) = plt.subplots(
    2, 1, figsize=(11, 8), sharex=True, sharey=True, layout="constrained"
)
for name, predictions in day_ahead.items():
    ax_day.plot(
        position,
        rolling_accuracy(predictions),
        color=colors[name],
        lw=1.2,
        label=f"{name}: {table[name]['day ahead']:.3f}",
    )
ax_day.plot(
    position,
    rolling_accuracy(frozen_predictions),
    color="black",
    lw=1.2,
    ls="--",
    label=(
        "AdaGrad frozen after 8 weeks: "
        f"{table['AdaGrad frozen after 8 weeks']['day ahead']:.3f}"
    ),
)
ax_day.axvline(
    n_frozen / per_unit,
    color="0.5",
    lw=0.8,
    ls=":",
    label="end of the frozen model's training",
)
ax_day.set_title(
    "day ahead: each batch predicted before learning it (accuracy over the "
    "whole stream in the legend)"
)
for name, predictions in row_by_row.items():
    ax_row.plot(
        position,
        rolling_accuracy(day_ahead[name]),
        color=colors[name],
        lw=0.8,
        alpha=0.45,
        label=f"{name}, day ahead",
    )
    ax_row.plot(
        position,
        rolling_accuracy(predictions),
        color=colors[name],
        lw=1.2,
        label=f"{name}, row by row: {table[name]['row by row']:.3f}",
    )
ax_row.set_title(
    "row by row: each row predicted before learning it (progressive_val_predict)"
)
ax_row.set_xlabel(f"position in the stream ({unit})")
for ax in (ax_day, ax_row):
    ax.set_ylabel(f"accuracy over the last {window // BATCH} batches")
    ax.grid(True, alpha=0.3)
    ax.set_ylim(0.35, 0.95)  # room for the legend below the curves
    ax.legend(loc="lower left", fontsize=9, ncols=2)
fig.suptitle(f"Elec2: learning with partial_fit, one batch of {BATCH} rows at a time")
plt.show()
