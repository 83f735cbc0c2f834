"""The first pass of the defaults: candidates side by side against one after the other.

    python benchmarks/bench_candidates.py --cpu 1 [--sets rare_160k,a9a,...]

``AdaGradClassifier()`` and ``FTRLClassifier()`` choose among 16 candidate settings
in ``fit``'s first pass. For binary problems the candidates run side by side in one
kernel (``da_candidates_pass``, ``ftrl_candidates_pass``), reading each row once
for all of them; before, each candidate made its own pass. This script times
``fit(max_iter=1)`` both ways on the classification panel of
``studies/selection_study.py``, in one process, best of ``--repeats`` interleaved
runs, and checks that both ways choose the same setting.
"""

import argparse
import os
import time

import numpy as np
from _data import CLASSIFICATION_PANEL as SETS

from sk_adaprox import AdaGradClassifier, FTRLClassifier


def first_pass_seconds(estimator_class, X, y, side_by_side):
    """Seconds of one ``fit(max_iter=1)`` at the defaults, and the choice."""
    model = estimator_class(random_state=0, max_iter=1, tol=None)
    if not side_by_side:  # no kernel runs them side by side: one after the other
        model._side_by_side_supported = lambda parameters: False
    started = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - started, model.chosen_params_


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default=",".join(name for name in SETS))
    parser.add_argument("--cpu", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    if args.cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    print("| set | estimator | one after the other | side by side | speed-up |")
    print("|---|---|---|---|---|")
    for name in args.sets.split(","):
        X, y, _, _ = SETS[name]()
        if np.unique(y).size != 2:
            continue
        for estimator_class in (AdaGradClassifier, FTRLClassifier):
            every = max(1, X.shape[0] // 200)  # some rows of each class (sorted sets)
            first_pass_seconds(estimator_class, X[::every], y[::every], True)  # compile
            best = {True: np.inf, False: np.inf}
            choices = set()
            for _ in range(args.repeats):
                for side_by_side in (False, True):
                    seconds, chosen = first_pass_seconds(
                        estimator_class, X, y, side_by_side
                    )
                    best[side_by_side] = min(best[side_by_side], seconds)
                    choices.add(tuple(sorted(chosen.items())))
            assert len(choices) == 1, f"{name}: the two ways chose differently"
            print(
                f"| {name} | {estimator_class.__name__} | {best[False]:.3f} s | "
                f"{best[True]:.3f} s | {best[False] / best[True]:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
