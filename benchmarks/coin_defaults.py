"""Choosing CoinBettingClassifier's defaults on issue 13's panel.

Run: python benchmarks/coin_defaults.py [--sets a,b,...]

Coin betting has one parameter, ``alpha``, and the epoch policy: ``alpha`` in
{10, 100, 1000} x {fit to ``tol``, ``early_stopping=True``, 5 passes}. For each set
the table gives each setting's test AUC minus the best of SGDClassifier's log-loss
grid (the set's ceiling here, as in ``classifier_panel.py``), and the last lines
the worst gap per setting over the sets.
"""

import argparse
import warnings

from classifier_panel import _int32_indices
from selection_study import SETS
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import roc_auc_score

from sk_adaprox import CoinBettingClassifier

POLICIES = {
    "tol": {},
    "early stopping": {"early_stopping": True},
    "5 passes": {"max_iter": 5, "tol": None},
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    args = parser.parse_args()
    worst = {}
    warnings.simplefilter("ignore", ConvergenceWarning)
    for name in args.sets.split(","):
        X, y, X_test, y_test = SETS[name]()
        X_sgd, X_test_sgd = _int32_indices(X), _int32_indices(X_test)
        best = max(
            roc_auc_score(
                y_test,
                SGDClassifier(
                    loss="log_loss", alpha=alpha, penalty=penalty, random_state=0
                )
                .fit(X_sgd, y)
                .decision_function(X_test_sgd),
            )
            for penalty in ("l2", "l1")
            for alpha in (1e-7, 1e-6, 1e-5, 1e-4, 1e-3)
        )
        cells = []
        for alpha in (10.0, 100.0, 1000.0):
            for policy, params in POLICIES.items():
                model = CoinBettingClassifier(alpha=alpha, random_state=0, **params)
                auc = roc_auc_score(y_test, model.fit(X, y).decision_function(X_test))
                key = (alpha, policy)
                worst[key] = min(worst.get(key, 0.0), auc - best)
                cells.append(f"{alpha:g}/{policy}: {auc - best:+.4f}")
        print(f"{name} (SGD best {best:.4f}): " + ", ".join(cells), flush=True)
    for (alpha, policy), gap in sorted(worst.items(), key=lambda item: -item[1]):
        print(f"worst gap, alpha {alpha:g}, {policy}: {gap:+.4f}")


if __name__ == "__main__":
    main()
