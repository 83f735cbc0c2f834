"""Can the progressive loss of one pass pick the step and l1? (issue 13)

Run: python benchmarks/studies/selection_study.py [--sets a,b,...] [--out FILE.json]

For every classification set of issue 13's panel and every setting of the grid
(update rule x eta x l1 for AdaGrad, alpha x l1 for FTRL, gamma x l1 for
diagonal ONS), this measures on the training rows in a fixed random
order:

- the progressive log loss of the first pass (each row scored before the model
  learns from it: an honest held-out estimate at no extra data);
- the test AUC after that one pass;
- the test AUC of ``fit`` with ``early_stopping=True`` (fresh model, up to 50
  passes, the best pass on 10 % held out kept);
- the test AUC of ``fit`` at the default ``tol`` (up to 1,000 passes);

and SGDClassifier's log-loss grid (alpha x penalty) and defaults, for the ceiling.

It then reports, per set, the test AUC of the setting with the lowest progressive
loss against the best of the grid (picked on the test set: a ceiling), which says
whether selection inside the pass can reach issue 13's target (within 0.005).
"""

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

# The shared helpers (_data, ...) are in benchmarks/, one folder up.
# ruff: noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from _data import CLASSIFICATION_PANEL as SETS
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import roc_auc_score

from sk_adaprox import (
    AdaGradClassifier,
    FTRLClassifier,
    ONSClassifier,
    progressive_val_predict,
)

# eta, alpha, or ONS's gamma (whose step is 1 / gamma).
ETAS = (0.03, 0.1, 0.3, 1.0)
# AdaGrad's and ONS's l1 weigh the mean loss, FTRL's the summed loss: their
# "auto" grids.
L1S = {
    "mirror_descent": (0.0, 1e-6, 1e-5, 1e-4),
    "dual_averaging": (0.0, 1e-6, 1e-5, 1e-4),
    "ftrl": (0.0, 0.1, 1.0, 10.0),
    "ons_diag": (0.0, 1e-6, 1e-5, 1e-4),
}


def model(rule, eta, l1, **params):
    if rule == "ftrl":
        return FTRLClassifier(alpha=eta, l1=l1, **params)
    if rule == "ons_diag":
        return ONSClassifier(matrix="diag", gamma=eta, l1=l1, **params)
    return AdaGradClassifier(update=rule, eta=eta, l1=l1, **params)


def log_loss_from_scores(y, scores, classes):
    signs = np.where(y == classes[1], 1.0, -1.0)
    return float(np.mean(np.logaddexp(0.0, -signs * scores)))


def study(name, rules):
    X, y, X_test, y_test = SETS[name]()
    classes = np.unique(y)
    order = np.random.default_rng(0).permutation(X.shape[0])
    X, y = X[order], y[order]
    rows = []
    for rule in rules:
        for eta in ETAS:
            for l1 in L1S[rule]:
                started = time.perf_counter()
                online = model(rule, eta, l1)
                scores = progressive_val_predict(
                    online, X, y, classes=classes, method="decision_function"
                )
                progressive = log_loss_from_scores(y, scores, classes)
                one_pass = roc_auc_score(y_test, online.decision_function(X_test))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    stopped = model(
                        rule, eta, l1, early_stopping=True, max_iter=50, random_state=0
                    ).fit(X, y)
                    early = roc_auc_score(y_test, stopped.decision_function(X_test))
                    converged = model(rule, eta, l1, random_state=0).fit(X, y)
                converged_auc = roc_auc_score(
                    y_test, converged.decision_function(X_test)
                )
                rows.append(
                    dict(
                        rule=rule,
                        eta=eta,
                        l1=l1,
                        progressive=progressive,
                        auc_one_pass=one_pass,
                        auc_early_stopping=early,
                        auc_converged=converged_auc,
                        passes=int(stopped.n_iter_),
                        passes_converged=int(converged.n_iter_),
                        seconds=time.perf_counter() - started,
                    )
                )
    for penalty in ("l2", "l1"):
        for alpha in (1e-7, 1e-6, 1e-5, 1e-4, 1e-3, None):
            if alpha is None and penalty == "l1":
                continue
            params = {} if alpha is None else dict(alpha=alpha, penalty=penalty)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                sgd = SGDClassifier(
                    loss="log_loss" if alpha is not None else "hinge",
                    random_state=0,
                    **params,
                ).fit(X, y)
            rows.append(
                dict(
                    rule="sgd" if alpha is not None else "sgd_default",
                    eta=None,
                    l1=alpha if penalty == "l1" else None,
                    l2=alpha if penalty == "l2" else None,
                    auc_converged=roc_auc_score(y_test, sgd.decision_function(X_test)),
                )
            )
    return rows


FAMILIES = {
    "AdaGrad": ("mirror_descent", "dual_averaging"),
    "FTRL": ("ftrl",),
    "ONS (diag)": ("ons_diag",),
}
WAYS = ("auc_one_pass", "auc_early_stopping", "auc_converged")


def summarize(name, rows):
    """Per estimator family: the ceiling (the best of its grid, fitted any of
    three ways, and of SGD's log-loss grid), SGDClassifier()'s AUC, and the
    setting of lowest first-pass progressive loss, fitted one pass / early
    stopping / to tol, as differences from the ceiling."""
    sgd = [r["auc_converged"] for r in rows if r["rule"] == "sgd"]
    sgd_default = next(r for r in rows if r["rule"] == "sgd_default")["auc_converged"]
    for family, rules in FAMILIES.items():
        ours = [r for r in rows if r["rule"] in rules]
        if not ours:
            continue
        ceiling = max([max(r[w] for w in WAYS) for r in ours] + sgd)
        chosen = min(ours, key=lambda r: r["progressive"])
        gaps = " / ".join(f"{chosen[w] - ceiling:+.4f}" for w in WAYS)
        print(
            f"{name:14s} {family:8s} ceiling {ceiling:.4f}, SGD() {sgd_default:.4f}"
            f" | chosen {chosen['rule']} {chosen['eta']} {chosen['l1']}: {gaps}"
            f" | to tol vs SGD() {chosen['auc_converged'] - sgd_default:+.4f}",
            flush=True,
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--rules", default=",".join(L1S))
    parser.add_argument("--out", default="selection_study.json")
    parser.add_argument(
        "--summarize", metavar="FILE.json", help="only summarize an earlier run"
    )
    args = parser.parse_args()
    if args.summarize:
        with open(args.summarize) as handle:
            for name, rows in json.load(handle).items():
                summarize(name, rows)
        return
    results = {}
    for name in args.sets.split(","):
        results[name] = study(name, args.rules.split(","))
        summarize(name, results[name])
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=1)


if __name__ == "__main__":
    main()
