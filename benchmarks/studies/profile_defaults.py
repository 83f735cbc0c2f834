"""Where the classifiers' default first pass spends its time (suite.py's misses).

    python benchmarks/studies/profile_defaults.py --cpu 1            # rare 160k x 1M
    python benchmarks/studies/profile_defaults.py --dataset "RCV1 subset"

The defaults choose ``eta``/``alpha`` and ``l1`` among 16 candidate settings in the
first pass of ``fit`` (``"auto"``). For binary problems the 16 run side by side in
one kernel (one read of the rows); multiclass models run them one after the other.
This script times, in one process on one core, best of ``--repeats``:

- ``SGDClassifier`` at the best point of its grid, fitted to ``tol`` (suite.py's
  time-to-target reference);
- one pass of a single candidate (the chosen setting, fixed);
- the default first pass (16 candidates), and how much of it ``cProfile`` puts in
  the candidates' kernels (``_side_by_side_pass`` or ``_run_pass``) and in their
  bookkeeping;
- the same first pass with the candidates one after the other (the path before
  the side-by-side kernels, and the one multiclass models take);
- 16 single-candidate passes back to back, timed the same way;
- a floor for choosing among the candidates in one pass: a minimal Numba loop
  that reads each row once and keeps all 16 dual-averaging candidates side by
  side (each feature's 16 (u, G) pairs contiguous; log loss, binary, no
  intercept, no divergence guard), and its test AUC for the candidate of lowest
  progressive loss.
"""

import argparse
import cProfile
import json
import os
import pstats
import sys
import warnings
from pathlib import Path

from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.metrics import roc_auc_score

# The shared helpers (suite, _floors, ...) are in benchmarks/, one folder up.
# ruff: noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import suite
from _floors import best_time, fused_floor

from sk_adaprox import AdaGradClassifier, FTRLClassifier


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="rare 160k x 1M")
    parser.add_argument("--cpu", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    warnings.simplefilter("ignore", ConvergenceWarning)
    data = suite.load_dataset(args.dataset, quick=False)
    # SGD's best grid point from the last full run of suite.py, else the grid.
    results = Path(__file__).resolve().parents[1] / "results" / "full" / "results.json"
    grids = json.loads(results.read_text())["targets_sgd"] if results.exists() else []
    grid = next((g for g in grids if g["dataset"] == args.dataset), None)
    grid = grid or suite.sgd_grid(data)
    best = grid["best"]
    sgd = SGDClassifier(
        loss="log_loss", alpha=best["alpha"], penalty=best["penalty"], random_state=0
    )
    sgd_seconds = best_time(lambda: sgd.fit(data.X, data.y), args.repeats)
    print(
        f"{args.dataset}: SGD best point ({best['penalty']}, alpha {best['alpha']:g}) "
        f"fit to tol: {sgd_seconds:.3f} s, {sgd.n_iter_} epochs, "
        f"target AUC {grid['target']:.4f}"
    )
    one_pass = {"max_iter": 1, "tol": None, "shuffle": False}
    for cls in (AdaGradClassifier, FTRLClassifier):
        default = cls(**one_pass)
        default.fit(data.X[:200], data.y[:200])  # compile the kernels
        default_seconds = best_time(lambda m=default: m.fit(data.X, data.y), 1)
        chosen = default.chosen_params_
        n_candidates = len(default.candidate_params_)
        single = cls(**one_pass, **chosen)
        single_seconds = best_time(lambda m=single: m.fit(data.X, data.y), 3)
        one_after_the_other = cls(**one_pass)
        # No kernel runs its candidates side by side: one after the other.
        one_after_the_other._side_by_side_supported = lambda parameters: False
        sequential_seconds = best_time(
            lambda m=one_after_the_other: m.fit(data.X, data.y), 1
        )
        floor = 0.0
        for params in default.candidate_params_:
            candidate = cls(**one_pass, **params)
            floor += best_time(lambda m=candidate: m.fit(data.X, data.y), 1)
        profile = cProfile.Profile()
        profile.runcall(cls(**one_pass).fit, data.X, data.y)
        stats = pstats.Stats(profile)
        in_passes = sum(
            row[3]  # cumulative time
            for func, row in stats.stats.items()
            if func[2] in ("_run_pass", "_side_by_side_pass")
        )
        total = sum(row[2] for row in stats.stats.values())
        auc = roc_auc_score(data.y_test, default.predict_proba(data.X_test)[:, 1])
        print(
            f"{cls.__name__}(): test AUC {auc:.4f} after the first pass; "
            f"first pass {default_seconds:.3f} s over "
            f"{n_candidates} candidates ({default_seconds / single_seconds:.1f}x one "
            f"pass of the chosen {chosen}: {single_seconds:.3f} s); one after the "
            f"other instead of side by side: {sequential_seconds:.3f} s; the "
            f"{n_candidates} candidates fitted one by one: {floor:.3f} s. cProfile: "
            f"{in_passes:.3f} of {total:.3f} s in the candidates' passes."
        )
        if cls is AdaGradClassifier:
            seconds, best, auc = fused_floor(data, default.candidate_params_, 3)
            print(
                f"minimal fused loop, {n_candidates} DA candidates, one read of the "
                f"data: {seconds:.3f} s; lowest progressive loss {best}, test AUC "
                f"{auc:.4f} (no intercept)"
            )


if __name__ == "__main__":
    main()
