"""Tables and a plot of ``shard_merging.py``'s results (docs/training.md).

Run: python benchmarks/studies/shard_merging_plot.py results.json [--image out.png]

Prints one Markdown table per algorithm (a row per set, rule and sync
interval, a column per number of shards, the serial AUC beside) and draws the
test AUC against the number of shards, a panel per set and algorithm, a line
per rule and sync interval, the serial AUC dashed.
"""

import argparse
import json
from collections import defaultdict

import numpy as np

SHARDS = (2, 4, 8, 16, 32, 64)


def tables(results):
    """{algorithm: Markdown table}."""
    serial, rows = {}, defaultdict(dict)
    for name, algorithm, rule, shards, sync, auc, _ in results:
        if rule == "serial":
            serial[name, algorithm] = auc
        else:
            rows[algorithm, name, rule, sync][shards] = auc
    out = {}
    for algorithm in dict.fromkeys(key[0] for key in rows):
        lines = [
            "| set | rule | sync_rows | serial | "
            + " | ".join(f"k={k}" for k in SHARDS)
            + " |",
            "|---|---|---|---|" + "---|" * len(SHARDS),
        ]
        for (each, name, rule, sync), values in rows.items():
            if each != algorithm:
                continue
            cells = " | ".join(f"{values.get(k, float('nan')):.4f}" for k in SHARDS)
            lines.append(
                f"| {name} | {rule} | {sync or 'pass'} | "
                f"{serial[name, algorithm]:.4f} | {cells} |"
            )
        out[algorithm] = "\n".join(lines)
    return out


def plot(results, image):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = list(dict.fromkeys(row[0] for row in results))
    algorithms = list(dict.fromkeys(row[1] for row in results))
    rules = [r for r in dict.fromkeys(row[2] for row in results) if r != "serial"]
    syncs = list(dict.fromkeys(row[4] for row in results if row[2] != "serial"))
    figure, axes = plt.subplots(
        len(algorithms),
        len(sets),
        figsize=(4 * len(sets), 3 * len(algorithms)),
        squeeze=False,
    )
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colours = {rule: palette[i % len(palette)] for i, rule in enumerate(rules)}
    styles = {sync: ("-", "--", ":", "-.")[i % 4] for i, sync in enumerate(syncs)}
    for row, algorithm in enumerate(algorithms):
        for column, name in enumerate(sets):
            axis = axes[row][column]
            mine = [r for r in results if r[0] == name and r[1] == algorithm]
            for rule in rules:
                for sync in syncs:
                    points = np.array(
                        sorted(
                            (r[3], r[5]) for r in mine if r[2] == rule and r[4] == sync
                        )
                    )
                    if points.size:
                        axis.plot(
                            points[:, 0],
                            points[:, 1],
                            color=colours[rule],
                            linestyle=styles[sync],
                            marker=".",
                            label=f"{rule}, sync {sync or 'pass'}",
                        )
            for r in mine:
                if r[2] == "serial":
                    axis.axhline(r[5], color="black", linewidth=0.8, linestyle="--")
            axis.set_xscale("log", base=2)
            axis.set_title(f"{name}, {algorithm}", fontsize=9)
            axis.set_xlabel("shards")
            axis.set_ylabel("test ROC AUC")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    figure.savefig(image, dpi=80)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--image", default=None)
    options = parser.parse_args()
    with open(options.results) as handle:
        results = json.load(handle)
    for algorithm, table in tables(results).items():
        print(f"\n### {algorithm}\n\n{table}")
    if options.image:
        plot(results, options.image)


if __name__ == "__main__":
    main()
