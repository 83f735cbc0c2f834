"""Choosing CoinBettingClassifier's defaults on issue 13's panel.

Run: python benchmarks/studies/coin_defaults.py [--sets a,b,...] [--out FILE.json]

Coin betting's grid is its rule and that rule's one parameter, each under three
epoch policies:

- ``update="cocob"`` with ``alpha`` in {10, 100, 1000};
- ``update="normalized"`` with ``initial_wealth`` in {1, 4, 16};
- fitted to ``tol``, with ``early_stopping=True``, or for 5 passes.

For each set it prints each setting's test AUC, the set's ceiling (the best of
that grid and of SGDClassifier's log-loss grid over alpha x {l2, l1}, picked on
the test set) and ``SGDClassifier()``'s AUC; then, per setting, the worst gap to
the ceiling over the sets and the worst difference from ``SGDClassifier()``.
"""

import argparse
import json
import sys
import warnings
from pathlib import Path

# The shared helpers (_data, ...) are in benchmarks/, one folder up.
# ruff: noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _data import CLASSIFICATION_PANEL as SETS
from _data import int32_indices
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import roc_auc_score

from sk_adaprox import CoinBettingClassifier

POLICIES = {
    "tol": {},
    "early stopping": {"early_stopping": True},
    "5 passes": {"max_iter": 5, "tol": None},
}
RULES = {
    "cocob": ("alpha", (10.0, 100.0, 1000.0)),
    "normalized": ("initial_wealth", (1.0, 4.0, 16.0)),
}
DEFAULT = "normalized, initial_wealth=4, tol"


def settings():
    """``{label: parameters}`` of every setting of the grid."""
    grid = {}
    for update, (name, values) in RULES.items():
        for value in values:
            for policy, params in POLICIES.items():
                label = f"{update}, {name}={value:g}, {policy}"
                grid[label] = {"update": update, name: value, **params}
    return grid


def sgd_aucs(X, y, X_test, y_test):
    """``(best of the log-loss grid, SGDClassifier())`` test AUCs."""
    X, X_test = int32_indices(X), int32_indices(X_test)

    def auc(**params):
        model = SGDClassifier(random_state=0, **params).fit(X, y)
        return roc_auc_score(y_test, model.decision_function(X_test))

    best = max(
        auc(loss="log_loss", alpha=alpha, penalty=penalty)
        for penalty in ("l2", "l1")
        for alpha in (1e-7, 1e-6, 1e-5, 1e-4, 1e-3)
    )
    return best, auc()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--out", help="write every AUC to this JSON file")
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    results = {}
    for name in args.sets.split(","):
        X, y, X_test, y_test = SETS[name]()
        sgd_best, sgd_default = sgd_aucs(X, y, X_test, y_test)
        aucs = {}
        for label, params in settings().items():
            model = CoinBettingClassifier(random_state=0, **params).fit(X, y)
            aucs[label] = roc_auc_score(y_test, model.decision_function(X_test))
        ceiling = max(sgd_best, *aucs.values())
        results[name] = {"sgd_best": sgd_best, "sgd_default": sgd_default, **aucs}
        print(
            f"{name}: ceiling {ceiling:.4f}, SGD() {sgd_default:.4f}, default "
            f"{aucs[DEFAULT]:.4f} ({aucs[DEFAULT] - ceiling:+.4f}); "
            + ", ".join(f"{label} {auc:.4f}" for label, auc in aucs.items()),
            flush=True,
        )
    print("\n| setting | worst gap to the ceiling | where | worst vs SGD() |")
    print("|---|---|---|---|")
    rows = []
    for label in settings():
        gaps = {
            name: row[label] - max(v for k, v in row.items() if k != "sgd_default")
            for name, row in results.items()
        }
        versus = min(row[label] - row["sgd_default"] for row in results.values())
        where = min(gaps, key=gaps.get)
        rows.append((gaps[where], label, where, versus))
    for gap, label, where, versus in sorted(rows, reverse=True):
        print(f"| {label} | {gap:+.4f} | {where} | {versus:+.4f} |")
    if args.out:
        with open(args.out, "w") as file:
            json.dump(results, file, indent=1)


if __name__ == "__main__":
    main()
