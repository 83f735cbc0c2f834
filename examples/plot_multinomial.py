"""
One-vs-rest or multinomial: calibrated probabilities for many classes
=====================================================================

A classifier of K classes can learn K independent yes/no problems (one-vs-rest,
``loss="log_loss"``, as :class:`~sklearn.linear_model.SGDClassifier` does) or one
model whose K scores give the class probabilities through a softmax, trained on
the multinomial log loss (``loss="multinomial"``, as
:class:`~sklearn.linear_model.LogisticRegression` fits). This example trains
:class:`~sk_adaprox.FTRLClassifier` both ways on the 20 Newsgroups posts and
compares their accuracy, their log loss and how well their probabilities are
calibrated: neither loss gives the better probabilities on every data set.

The data is the "bydate" version of the 20 Newsgroups collection (Ken Lang, 1995),
loaded with :func:`sklearn.datasets.fetch_20newsgroups`, which downloads it (14 MB)
into scikit-learn's data home on the first run. No licence is stated by its source;
the collection is a standard research benchmark.
"""

# %%
# Loading the posts
# -----------------
#
# Each post's e-mail headers give its group away too easily, so only the body
# (everything after the first blank line) is kept. The words are weighted by
# tf-idf, with the vocabulary of the training posts.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import fetch_20newsgroups
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import accuracy_score, log_loss

from sk_adaprox import FTRLClassifier

train = fetch_20newsgroups(subset="train", remove=("headers",))
test = fetch_20newsgroups(subset="test", remove=("headers",))
vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
X_train = vectorizer.fit_transform(train.data)
X_test = vectorizer.transform(test.data)
y_train = np.asarray(train.target_names)[train.target]
y_test = np.asarray(test.target_names)[test.target]
print(f"20 Newsgroups: {X_train.shape[0]} training rows, {X_test.shape[0]} test rows,")
print(f"{X_train.shape[1]} features, {np.unique(y_train).size} classes")

# %%
# Training both ways
# ------------------
#
# The two models differ by their loss alone; both choose their learning rate
# and L1 strength in their first pass (the defaults), each on its own loss.

models = {
    loss: FTRLClassifier(loss=loss, random_state=0).fit(X_train, y_train)
    for loss in ("log_loss", "multinomial")
}
names = {"log_loss": "one-vs-rest", "multinomial": "multinomial"}
probabilities = {loss: model.predict_proba(X_test) for loss, model in models.items()}
for loss, model in models.items():
    predicted = model.classes_[probabilities[loss].argmax(axis=1)]
    print(
        f"{names[loss]:>12}: accuracy {accuracy_score(y_test, predicted):.4f}, "
        f"log loss {log_loss(y_test, probabilities[loss]):.4f}"
    )

# %%
# One-vs-rest probabilities are K separate sigmoids, renormalised to sum to one:
# nothing in training made them a distribution over the classes, while the
# multinomial model was trained on exactly the probabilities it reports. Yet on
# 20 Newsgroups the one-vs-rest model has the lower log loss. That is a property
# of the data, not of online training: scikit-learn's
# :class:`~sklearn.linear_model.LogisticRegression`, at its best C for each
# way, gives the same order on these posts, and the opposite one on 3-class
# movie-review ratings (see :doc:`/multiclass`).
#
# Reliability
# -----------
#
# A model is calibrated when, of the rows it gives its top class a probability
# of about p, a fraction of about p are right. The diagram bins the test rows
# by that top probability and plots each bin's accuracy against its mean
# probability; the diagonal is perfect calibration, and the bars show how many
# rows fall in each bin.

bins = np.linspace(0.0, 1.0, 11)
fig, (curve, counts) = plt.subplots(
    2, 1, figsize=(6, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1]}
)
curve.plot([0, 1], [0, 1], color="grey", linestyle=":", label="perfect calibration")
for offset, (loss, proba) in zip((-0.02, 0.02), probabilities.items(), strict=True):
    confidence = proba.max(axis=1)
    correct = models[loss].classes_[proba.argmax(axis=1)] == y_test
    which = np.clip(np.digitize(confidence, bins) - 1, 0, len(bins) - 2)
    filled = np.bincount(which, minlength=len(bins) - 1) > 0
    mean_confidence = np.bincount(which, confidence, len(bins) - 1)[filled]
    accuracy = np.bincount(which, correct, len(bins) - 1)[filled]
    size = np.bincount(which, minlength=len(bins) - 1)[filled]
    curve.plot(mean_confidence / size, accuracy / size, marker="o", label=names[loss])
    counts.bar(bins[:-1][filled] + 0.05 + offset, size, width=0.04, label=names[loss])
curve.set_ylabel("accuracy of the rows in the bin")
curve.set_title("20 Newsgroups: top-class probability against accuracy")
curve.legend(loc="upper left")
counts.set_xlabel("probability of the predicted class")
counts.set_ylabel("test rows")
counts.set_yscale("log")
fig.tight_layout()
plt.show()

# %%
# Most rows sit in the last bin, where both models are right about as often as
# they say. Between those extremes the multinomial curve runs above the
# diagonal: its probabilities there are too low, it is right more often than it
# says, while the renormalised sigmoids follow the diagonal more closely. Which
# loss gives the better probabilities depends on the data: compare their log
# loss on held-out rows (:func:`~sk_adaprox.progressive_val_score` gives it on
# a stream) before choosing.
#
# With two classes there is nothing to choose: the multinomial loss of two
# scores is the logistic loss of their difference, and ``loss="multinomial"``
# trains the one-output model that ``loss="log_loss"`` trains, to the bit.
# docs/multiclass.md writes out the update and compares both losses with
# :class:`~sklearn.linear_model.LogisticRegression` and River's
# ``SoftmaxRegression`` on three sets.
