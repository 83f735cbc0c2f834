"""A multinomial epoch against a one-vs-rest epoch of the same estimator, one core.

    python benchmarks/bench_multinomial.py [--repeats 5] [--cpu N]

20 Newsgroups (tf-idf of the training split, 20 classes, 11,314 rows): one pass
(``max_iter=1``, ``tol=None``, no shuffle) of each classifier at fixed
parameters (no ``"auto"`` choice), ``loss="log_loss"`` (20 one-vs-rest outputs)
against ``loss="multinomial"`` (the softmax of the 20 scores). The two losses
are timed alternately, best of ``--repeats``; the first fit of each compiles
and is not timed. Both read each row once and update every output of every
non-zero; the multinomial adds a softmax of the row's scores.

Target (issue 30): a multinomial epoch within 1.3 times the one-vs-rest epoch.
"""

# ruff: noqa: E402

from _machine import limit_threads, pin, print_machine

limit_threads()

import argparse
import time

from _data import news20
from _report import print_targets

from sk_adaprox import (
    AdaGradClassifier,
    CoinBettingClassifier,
    FTRLClassifier,
    ONSClassifier,
)

ESTIMATORS = {
    "AdaGrad (dual averaging)": lambda loss: AdaGradClassifier(
        loss=loss, update="dual_averaging", eta=0.3, l1=1e-5
    ),
    "AdaGrad (mirror descent)": lambda loss: AdaGradClassifier(
        loss=loss, update="mirror_descent", eta=0.3, l1=0.0
    ),
    "FTRL": lambda loss: FTRLClassifier(loss=loss, alpha=0.3, l1=1.0),
    "coin betting": lambda loss: CoinBettingClassifier(loss=loss),
    "ONS (diag)": lambda loss: ONSClassifier(loss=loss, matrix="diag", l1=0.0),
}


def epoch_seconds(make, loss, X, y):
    model = make(loss).set_params(max_iter=1, tol=None, shuffle=False)
    started = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cpu", type=int, default=0, help="the core to pin to")
    args = parser.parse_args()
    print_machine(pin(args.cpu))
    X, y, _, _ = news20()
    rows = []
    for name, make in ESTIMATORS.items():
        best = {"log_loss": float("inf"), "multinomial": float("inf")}
        for loss in best:
            epoch_seconds(make, loss, X, y)  # compiles
        for _ in range(args.repeats):
            for loss in best:
                best[loss] = min(best[loss], epoch_seconds(make, loss, X, y))
        print(
            f"{name}: one-vs-rest {best['log_loss']:.3f} s, "
            f"multinomial {best['multinomial']:.3f} s",
            flush=True,
        )
        ratio = best["multinomial"] / best["log_loss"]
        rows.append((f"{name}: multinomial / one-vs-rest epoch", ratio, "<= 1.3"))
    print_targets("multinomial epoch, 20 Newsgroups, 20 classes", rows)


if __name__ == "__main__":
    main()
