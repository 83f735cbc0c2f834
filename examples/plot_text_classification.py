"""
Text classification with hashed features and AdaGrad
====================================================

This example sorts newsgroup posts into their 20 groups in two steps:
a :class:`~sklearn.feature_extraction.text.HashingVectorizer`, which turns each text
into a sparse vector of word counts without learning a vocabulary, followed by
:class:`~sk_adaprox.AdaGradClassifier` at its defaults. It compares AdaGrad with
scikit-learn's :class:`~sklearn.linear_model.SGDClassifier` on the same hashed
texts, puts the two steps in a pipeline, and shows which groups AdaGrad confuses.

The data is the "bydate" version of the 20 Newsgroups collection (Ken Lang, 1995),
loaded with :func:`sklearn.datasets.fetch_20newsgroups`, which downloads it (14 MB)
into scikit-learn's data home on the first run. No licence is stated by its source;
the collection is a standard research benchmark.
"""

# %%
# Loading the posts
# -----------------
#
# The collection comes split by date into 11,314 training and 7,532 test posts.
# Each post starts with e-mail headers (sender, subject, organisation) that give
# the group away too easily, so we keep only the body: ``remove=("headers",)``
# drops everything before the first blank line.

import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import fetch_20newsgroups
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score
from sklearn.pipeline import Pipeline

from sk_adaprox import AdaGradClassifier

train = fetch_20newsgroups(subset="train", remove=("headers",))
test = fetch_20newsgroups(subset="test", remove=("headers",))
texts_train, texts_test = train.data, test.data
y_train = np.asarray(train.target_names)[train.target]
y_test = np.asarray(test.target_names)[test.target]

class_names = np.unique(y_train)
print(
    f"20 Newsgroups: {len(texts_train)} training and {len(texts_test)} test texts, "
    f"{len(class_names)} classes"
)

# %%
# Hashed words, then AdaGrad
# --------------------------
#
# :class:`~sklearn.feature_extraction.text.HashingVectorizer` maps every word to one
# of 2**18 columns by a hash. It needs no ``fit`` and no vocabulary, so the same
# pipeline could learn from a stream of texts with ``partial_fit``. Each row is
# normalised to unit length; ``alternate_sign=False`` keeps the counts positive.
# Being stateless, it hashes the texts once here for every classifier below.

vectorizer = HashingVectorizer(n_features=2**18, alternate_sign=False)
started = time.perf_counter()
X_train = vectorizer.transform(texts_train)
hash_seconds = time.perf_counter() - started
X_test = vectorizer.transform(texts_test)
print(f"hashing the training texts: {hash_seconds:.1f} s")

# %%
# :class:`~sk_adaprox.AdaGradClassifier` gives every column its own step size, so
# a word seen in a handful of posts still moves its weight as far as a common word
# does. At its defaults it tries 16 settings of ``eta`` and ``l1`` during the first
# pass over the data, keeps the one whose predictions of the rows it had not yet
# learned from were best, and trains on with that one alone. It is one-vs-rest:
# one linear model per group, all updated in the same pass.
#
# We compare it with two :class:`~sklearn.linear_model.SGDClassifier` models:
# SGD at its defaults (hinge loss, a linear SVM), and SGD with the same loss as
# AdaGrad (logistic) and a weaker penalty ``alpha=1e-5``. Fit times are the
# classifiers' alone, on the hashed texts.

models = {
    "AdaGradClassifier() (defaults)": AdaGradClassifier(random_state=0),
    "SGDClassifier() (defaults: hinge)": SGDClassifier(random_state=0),
    "SGDClassifier(log_loss, alpha=1e-5)": SGDClassifier(
        loss="log_loss", alpha=1e-5, random_state=0
    ),
}
rows = []
predictions = {}
for name, model in models.items():
    started = time.perf_counter()
    model.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - started
    predictions[name] = model.predict(X_test)
    rows.append(
        {
            "model": name,
            "test accuracy": accuracy_score(y_test, predictions[name]),
            "macro F1": f1_score(y_test, predictions[name], average="macro"),
            "passes": model.n_iter_,
            "fit time (s)": fit_seconds,
        }
    )
results = pd.DataFrame(rows).set_index("model")
print(results.to_string(float_format="{:.3f}".format))

# %%
# To classify new texts, put the two steps in one
# :class:`~sklearn.pipeline.Pipeline`: the vectorizer has nothing to learn, so the
# pipeline of it and the fitted classifier hashes and classifies raw text.

adagrad = models["AdaGradClassifier() (defaults)"]
pipeline = Pipeline([("hash", vectorizer), ("classifier", adagrad)])
print(pipeline.predict(["The new graphics card renders the scene twice as fast."]))

# %%
# The first AdaGrad fit of a session also compiles (or loads) its Numba kernels,
# which adds a few seconds to its fit time. The settings AdaGrad chose in its first
# pass:

print("chosen:", adagrad.chosen_params_)

# %%
# Which groups does AdaGrad confuse?
# ----------------------------------
#
# Each row of the confusion matrix below is one true group, normalised to 100 %:
# the diagonal is the share of that group's test posts classified correctly, and an
# off-diagonal cell the share sent to another group. Cells under 3 % are left
# blank. The largest confusions of the run:

adagrad_predictions = predictions["AdaGradClassifier() (defaults)"]
counts = confusion_matrix(y_test, adagrad_predictions, labels=class_names)
shares = 100 * counts / counts.sum(axis=1, keepdims=True)
off_diagonal = shares.copy()
np.fill_diagonal(off_diagonal, 0)
for flat in np.argsort(off_diagonal, axis=None)[::-1][:5]:
    true, predicted = np.unravel_index(flat, shares.shape)
    print(
        f"{shares[true, predicted]:4.1f} % of {class_names[true]} "
        f"predicted as {class_names[predicted]}"
    )

# %%
# Related groups attract each other: look for the blocks of colour among the
# ``comp.*`` groups, and between the religion and politics groups at the bottom.

fig, ax = plt.subplots(figsize=(9.5, 8.5), layout="constrained")
image = ax.imshow(shares, cmap="Blues", vmin=0, vmax=100)
for true in range(len(class_names)):
    for predicted in range(len(class_names)):
        value = shares[true, predicted]
        if value >= 3:
            ax.text(
                predicted,
                true,
                f"{value:.0f}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if value > 50 else "black",
            )
ticks = np.arange(len(class_names))
ax.set_xticks(ticks, class_names, rotation=90, fontsize=8)
ax.set_yticks(ticks, class_names, fontsize=8)
ax.set_xlabel("predicted group")
ax.set_ylabel("true group")
accuracy = results.loc["AdaGradClassifier() (defaults)", "test accuracy"]
ax.set_title(
    "20 Newsgroups, hashed words + AdaGradClassifier(): "
    f"test accuracy {100 * accuracy:.1f} %\n"
    "share of each true group's test texts per predicted group"
)
fig.colorbar(image, ax=ax, shrink=0.8, label="share of the true group's texts (%)")
plt.show()
