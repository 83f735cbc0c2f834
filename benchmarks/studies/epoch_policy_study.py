"""Where issue 13's remaining gaps come from: the epoch policy, l2, the loss.

Run: python benchmarks/studies/epoch_policy_study.py [--sets a,b,...] [--part refit,...]

Experiments on the classification panel of ``selection_study.py``, each
printing test AUCs (benchmarks/studies/NOTES.md, "What the remaining gaps come
from"):

- ``refit``: every classifier at its defaults fitted to ``tol``; with
  ``early_stopping=True`` (the model of the pass of lowest held-out log loss);
  and refitted on all rows for that many passes (``max_iter=k, tol=None``), an
  early-stopping-then-refit policy that the estimators do not offer.
- ``l2``: ``AdaGradClassifier(l2=v)`` for v in {0, 1e-5, 1e-4}, otherwise at its
  defaults.
- ``passes``: the test AUC of AdaGrad's dual averaging (eta 1, l1 0, the default's
  choice on SMS), with and without ``l2=1e-4``, after 1 to 40 passes.
- ``wealth``: the first pass's progressive log loss of ``CoinBettingClassifier``
  for ``initial_wealth`` in {1, 4, 16, 64}: what a choice inside the pass, as
  AdaGrad's ``eta="auto"``, would go by (the test AUCs after fitting to ``tol``
  are in ``coin_defaults.py``'s table).
- ``losses``: AdaGrad and FTRL at their defaults but for ``loss``.
- ``sms_splits``: SMS spam over ten train/test splits, for ``SGDClassifier()``
  and variants of the defaults.
"""

import argparse
import sys
import warnings
from pathlib import Path

# The shared helpers (_data, ...) are in benchmarks/, one folder up.
# ruff: noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from _data import CLASSIFICATION_PANEL as SETS
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import log_loss, roc_auc_score
from sklearn.model_selection import train_test_split

from sk_adaprox import (
    AdaGradClassifier,
    CoinBettingClassifier,
    FTRLClassifier,
    ONSClassifier,
    progressive_val_predict,
)
from sk_adaprox.datasets import load_sms_spam

ESTIMATORS = {
    "AdaGrad": AdaGradClassifier,
    "FTRL": FTRLClassifier,
    "CoinBetting": CoinBettingClassifier,
    "ONS": ONSClassifier,
}


def auc(model, X_test, y_test):
    return roc_auc_score(y_test, model.decision_function(X_test))


def refit(name, X, y, X_test, y_test):
    for label, estimator in ESTIMATORS.items():
        to_tol = estimator(random_state=0).fit(X, y)
        stopped = estimator(random_state=0, early_stopping=True).fit(X, y)
        best_passes = int(np.argmin(stopped.validation_losses_)) + 1
        refitted = estimator(random_state=0, max_iter=best_passes, tol=None)
        refitted.fit(X, y)
        print(
            f"| {name} | {label}() | {auc(to_tol, X_test, y_test):.4f} "
            f"({to_tol.n_iter_}) | {auc(stopped, X_test, y_test):.4f} "
            f"({best_passes}) | {auc(refitted, X_test, y_test):.4f} |",
            flush=True,
        )


def l2(name, X, y, X_test, y_test):
    models = [AdaGradClassifier(l2=value, random_state=0) for value in (0, 1e-5, 1e-4)]
    cells = [f"{auc(model.fit(X, y), X_test, y_test):.4f}" for model in models]
    print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def passes(name, X, y, X_test, y_test):
    for n_passes in (1, 2, 3, 5, 8, 12, 20, 40):
        cells = [
            f"{auc(model.fit(X, y), X_test, y_test):.4f}"
            for model in (
                AdaGradClassifier(
                    update="dual_averaging",
                    eta=1.0,
                    l1=0.0,
                    l2=l2_value,
                    max_iter=n_passes,
                    tol=None,
                    random_state=0,
                )
                for l2_value in (0.0, 1e-4)
            )
        ]
        print(f"| {name} | {n_passes} | " + " | ".join(cells) + " |", flush=True)


def losses(name, X, y, X_test, y_test):
    cells = [
        f"{auc(estimator(loss=loss, random_state=0).fit(X, y), X_test, y_test):.4f}"
        for estimator in (AdaGradClassifier, FTRLClassifier)
        for loss in ("log_loss", "hinge", "modified_huber")
    ]
    print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


SMS_MODELS = {
    "SGDClassifier()": lambda: SGDClassifier(random_state=0),
    'SGDClassifier(loss="log_loss")': lambda: SGDClassifier(
        loss="log_loss", random_state=0
    ),
    "AdaGradClassifier()": lambda: AdaGradClassifier(random_state=0),
    'AdaGradClassifier(loss="hinge")': lambda: AdaGradClassifier(
        loss="hinge", random_state=0
    ),
    "AdaGradClassifier(l2=1e-5)": lambda: AdaGradClassifier(l2=1e-5, random_state=0),
    "AdaGradClassifier(l2=1e-4)": lambda: AdaGradClassifier(l2=1e-4, random_state=0),
    "AdaGradClassifier(average=True)": lambda: AdaGradClassifier(
        average=True, random_state=0
    ),
    "AdaGradClassifier(max_iter=1)": lambda: AdaGradClassifier(
        max_iter=1, tol=None, random_state=0
    ),
    "FTRLClassifier()": lambda: FTRLClassifier(random_state=0),
}


def sms_splits():
    """SMS spam over ten stratified 75/25 splits (``random_state`` 0-9 of the
    split; the panel uses 0): whether a model's gap to ``SGDClassifier()`` is
    the split's or the model's."""
    texts, is_spam = load_sms_spam(return_X_y=True)
    aucs = []
    for split in range(10):
        train, test, y, y_test = train_test_split(
            texts, is_spam, test_size=0.25, stratify=is_spam, random_state=split
        )
        vectorizer = TfidfVectorizer(sublinear_tf=True)
        X, X_test = vectorizer.fit_transform(train), vectorizer.transform(test)
        aucs.append(
            [auc(make().fit(X, y), X_test, y_test) for make in SMS_MODELS.values()]
        )
    aucs = np.array(aucs)
    print("| model | split 0 | mean of 10 splits | splits >= SGDClassifier() |")
    print("|---|---|---|---|")
    for column, label in enumerate(SMS_MODELS):
        at_least = int((aucs[:, column] >= aucs[:, 0]).sum())
        print(
            f"| {label} | {aucs[0, column]:.4f} | {aucs[:, column].mean():.4f} "
            f"| {at_least}/10 |"
        )


def wealth(name, X, y, X_test, y_test):
    order = np.random.default_rng(0).permutation(X.shape[0])
    X, y = X[order], y[order]
    cells = []
    for initial_wealth in (1, 4, 16, 64):
        probabilities = progressive_val_predict(
            CoinBettingClassifier(initial_wealth=initial_wealth),
            X,
            y,
            classes=np.unique(y),
            method="predict_proba",
        )
        cells.append(f"{log_loss(y, probabilities):.4f}")
    print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


PARTS = {
    "refit": (
        refit,
        "| set | model | to `tol` (passes) | early stopping (best pass) | refit |",
    ),
    "l2": (l2, "| set | l2 = 0 | l2 = 1e-5 | l2 = 1e-4 |"),
    "passes": (passes, "| set | passes | l2 = 0 | l2 = 1e-4 |"),
    "wealth": (
        wealth,
        "| set | initial_wealth 1 | 4 | 16 | 64 |",
    ),
    "losses": (
        losses,
        "| set | AdaGrad log_loss | hinge | modified_huber "
        "| FTRL log_loss | hinge | modified_huber |",
    ),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sets", default=",".join(name for name in SETS if name != "rare_160k")
    )
    parser.add_argument("--part", default="refit,l2,passes,wealth,losses,sms_splits")
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    for part in args.part.split(","):
        if part == "sms_splits":
            print("\nsms_splits\n")
            sms_splits()
            continue
        run, header = PARTS[part]
        print(f"\n{part}\n\n{header}")
        print("|" + "---|" * header.count(" | ") + "---|")
        for name in args.sets.split(",") if part != "passes" else ["sms"]:
            run(name, *SETS[name]())


if __name__ == "__main__":
    main()
