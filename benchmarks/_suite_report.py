"""The suite's Markdown tables, its targets and its plot, from the results dict."""

import math

OURS = "sk_adaprox"
METRIC = {"binary": "auc", "multiclass": "accuracy", "regression": "r2"}
METRIC_LABEL = {"auc": "AUC", "accuracy": "accuracy", "r2": "R²"}

# (ours, the peer it is held against) for the throughput targets
VW_PAIRS = (
    ("AdaGrad MD", "VW C++ cache"),
    ("AdaGrad DA", "VW C++ cache"),
    ("FTRL", "VW C++ cache --ftrl"),
    ("FTRL", "VW C++ cache --ftrl alpha=beta=0.1"),
)
# Our systems in the time-to-target tables (suite.default_systems); the rest are peers.
OUR_DEFAULTS = (
    "AdaGrad defaults",
    "FTRL defaults",
    "AdaGrad defaults n_jobs=2",
    "FTRL defaults n_jobs=2",
    "ONS diag defaults",
    "Coin betting defaults",
)
RIVER_PAIRS = (
    ("AdaGrad MD", "River AdaGrad"),
    ("AdaGrad DA", "River AdaGrad"),
    ("FTRL", "River FTRL"),
)
# Scores this close are equal: VW computes in float32, sk_adaprox in float64.
AUC_TIE = 1e-4
RARE_SETS = ("rare 160k x 1M", "RCV1 subset", "20 NG comp vs rec")
QUICK_RARE_SETS = ("rare 16k x 50k",)


def rare_sets(mode):
    """The sets of the time-to-quality target in a run of ``mode``."""
    return QUICK_RARE_SETS if mode == "quick" else RARE_SETS


def _fmt(value, digits=4):
    if value is None:
        return "–"
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return str(value)
    return f"{value:.{digits}f}"


def _tasks(results):
    return {dataset["name"]: dataset["task"] for dataset in results["datasets"]}


def _by(rows, *keys):
    return {tuple(row[key] for key in keys): row for row in rows}


def targets(results):
    """Rows (target, dataset, measured, met) of the issue's targets."""
    tasks = _tasks(results)
    epoch = _by(results["throughput"], "dataset", "system")
    checks = []
    for name, task in tasks.items():
        if task == "regression":
            continue
        metric = METRIC[task]
        for ours, peer in VW_PAIRS:
            if (name, ours) in epoch and (name, peer) in epoch:
                a, b = epoch[name, ours], epoch[name, peer]
                ratio = a["nnz_per_second"] / b["nnz_per_second"]
                gain = a[metric] - b[metric]
                label = METRIC_LABEL[metric]
                checks.append(
                    (
                        f"{ours} / {peer} throughput ≥ 2 at ≥ its {label}",
                        name,
                        f"{ratio:.2f}×, {METRIC_LABEL[metric]} {gain:+.4f}",
                        ratio >= 2 and gain >= -AUC_TIE,
                    )
                )
        for ours, peer in RIVER_PAIRS:
            if (name, ours) in epoch and (name, peer) in epoch:
                ratio = (
                    epoch[name, ours]["nnz_per_second"]
                    / epoch[name, peer]["nnz_per_second"]
                )
                checks.append(
                    (
                        f"{ours} / {peer} throughput ≥ 20",
                        name,
                        f"{ratio:.0f}×",
                        ratio >= 20,
                    )
                )
    sgd = {grid["dataset"]: grid for grid in results["targets_sgd"]}
    reach = _by(results["time_to_target"], "dataset", "system")
    floors = {floor["dataset"]: floor for floor in results.get("floors", [])}
    for name in rare_sets(results["mode"]):
        if name not in sgd:
            continue
        sgd_seconds = sgd[name]["best"]["seconds"]
        for ours in ("AdaGrad defaults", "FTRL defaults"):
            row = reach.get((name, ours))
            if row is None:
                continue
            reached = row["reached"]
            measured = _reached_text(row, f"SGD {sgd_seconds:.3g} s")
            if name in floors:
                measured += f"; 16-candidate floor {floors[name]['seconds']:.3g} s"
            checks.append(
                (
                    f"{ours} reach SGD's best-of-grid sooner than SGD",
                    name,
                    measured,
                    bool(reached) and reached["seconds"] < sgd_seconds,
                )
            )
    checks += _two_core_checks(results, sgd, reach, floors)
    for name, task in tasks.items():
        if task == "regression" or name not in sgd:
            continue
        metric = METRIC[task]
        peers = [
            row[metric]
            for row in results["throughput"]
            if row["dataset"] == name and row["library"] != OURS
        ]
        peers += [
            row["best_score"]
            for row in results["time_to_target"]
            if row["dataset"] == name and row["system"] not in OUR_DEFAULTS
        ]
        peers.append(sgd[name]["target"])
        best_peer = max(peers)
        for row in results["user_defaults"]:
            if row["dataset"] != name:
                continue
            gap = row[metric] / best_peer - 1
            checks.append(
                (
                    f"{row['system']} within 1 % of the best peer",
                    name,
                    f"{row[metric]:.4f} vs {best_peer:.4f} ({100 * gap:+.2f} %)",
                    gap >= -0.01,
                )
            )
    return checks


def _reached_text(row, against):
    """When a time-to-target row reached the target, against ``against``."""
    reached = row["reached"]
    if reached:
        return f"{reached['seconds']:.3g} s vs {against}"
    return f"never (best {row['best_score']:.4f} < {row['target']:.4f})"


def _two_core_checks(results, sgd, reach, floors):
    """The defaults with ``n_jobs=2`` on two cores reach SGD's best-of-grid: on
    the largest rare set no later than SGD's best point, elsewhere no later
    than the one-core 16-candidate floor (rows where both were measured)."""
    checks = []
    for name in rare_sets(results["mode"]):
        largest = name == rare_sets(results["mode"])[0]
        if name not in sgd or (not largest and name not in floors):
            continue
        bound, against = (
            (sgd[name]["best"]["seconds"], "SGD's best point")
            if largest
            else (floors[name]["seconds"], "the one-core 16-candidate floor")
        )
        for ours in ("AdaGrad defaults n_jobs=2", "FTRL defaults n_jobs=2"):
            row = reach.get((name, ours))
            if row is None:
                continue
            reached = row["reached"]
            measured = _reached_text(row, f"{bound:.3g} s")
            checks.append(
                (
                    f"{ours} reach SGD's best-of-grid within {against}'s time",
                    name,
                    measured,
                    bool(reached) and reached["seconds"] <= bound,
                )
            )
    return checks


def markdown(results):
    env = results["environment"]
    protocol = results["protocol"]
    versions = ", ".join(
        f"{name} {version}" for name, version in env["versions"].items() if version
    )
    lines = [
        f"# Benchmark suite, {results['mode']} run, {env['date']}",
        "",
        f"- Machine: {env['machine']}; the run pinned to one core (core "
        f"{protocol['cpu']}); Python {env['python']}.",
        f"- Versions: {versions}.",
        f"- Epoch times: best of {protocol['repeats']} interleaved rounds (*: one "
        f"round, for an epoch over {protocol.get('slow_seconds', 10):g} s). Time to "
        f"target: at most {protocol['max_epochs']} epochs or "
        f"{protocol['budget_seconds']:g} s of training per system.",
        f"- Whole run: {results['seconds']:.0f} s.",
        "",
        "## One epoch: speed and quality",
        "",
        "sk_adaprox unregularised at a fixed step (AdaGrad `eta=0.1`, FTRL "
        "`alpha=0.1, beta=0.1`; ONS and coin betting at their defaults); peers at "
        "their defaults, and VW's `--ftrl` also at FTRL's settings. Conversion: "
        "seconds to turn the data into what the system reads (not in the epoch).",
    ]
    tasks = _tasks(results)
    for dataset in results["datasets"]:
        name, task = dataset["name"], dataset["task"]
        metric = METRIC[task]
        per_row = dataset["nnz"] / dataset["train_rows"]
        extra = "log loss" if task != "regression" else None
        lines += [
            "",
            f"### {name} ({task}; {dataset['train_rows']:,} × "
            f"{dataset['features']:,} train, {per_row:.1f} non-zeros a row; "
            f"{dataset['test_rows']:,} test rows)",
            "",
            f"| system | threads | s / epoch | M nnz / s | {METRIC_LABEL[metric]} | "
            + (f"{extra} | " if extra else "")
            + "non-zero weights | peak MiB | conversion s |",
            "|---|---|---|---|---|" + ("---|" if extra else "") + "---|---|---|",
        ]
        for row in results["throughput"]:
            if row["dataset"] != name:
                continue
            memory, repeats = row["peak_memory_mib"], protocol["repeats"]
            lines.append(
                f"| {row['system']} | {row['threads']} | {row['seconds_per_epoch']:.4f}"
                f"{'*' if row.get('rounds', repeats) < repeats else ''} "
                f"| {row['nnz_per_second'] / 1e6:.2f} | {_fmt(row[metric])} | "
                + (f"{_fmt(row['log_loss'])} | " if extra else "")
                + f"{row['nonzero_weights']:,} | "
                f"{'–' if memory is None else f'{memory:.1f}'} | "
                f"{row['conversion_seconds']:.2f} |"
            )
    if results["targets_sgd"]:
        lines += [
            "",
            "## Time to target",
            "",
            'The target is the best test score of `SGDClassifier(loss="log_loss")` '
            "over alpha in {1e-7, …, 1e-3} × penalty in {l2, l1}, fitted to its `tol` "
            "and picked on the test set. Each system trains at its defaults, epoch "
            "after epoch; the table gives the first epoch that reaches the target "
            "and the training seconds until then (VW's C++ driver: a new run of k "
            "passes). `fit()` rows: our classifiers fitted once at their defaults "
            "(to `tol`), as a user runs them.",
        ]
        for grid in results["targets_sgd"]:
            name = grid["dataset"]
            metric = METRIC[tasks[name]]
            best = grid["best"]
            lines += [
                "",
                f"### {name}: target {METRIC_LABEL[metric]} {grid['target']:.4f}",
                "",
                f"SGD's best point: penalty {best['penalty']}, "
                f"alpha {best['alpha']:g}, "
                f"{best['seconds']:.3f} s over {best['epochs']} epochs (the grid: "
                f"{grid['grid_seconds']:.2f} s).",
                "",
                "| system | reached at epoch | seconds | "
                f"best {METRIC_LABEL[metric]} |",
                "|---|---|---|---|",
            ]
            for row in results["time_to_target"]:
                if row["dataset"] != name:
                    continue
                reached = row["reached"]
                lines.append(
                    f"| {row['system']} | {reached['epoch'] if reached else 'never'} | "
                    f"{_fmt(reached['seconds'], 3) if reached else '–'} | "
                    f"{_fmt(row['best_score'])} |"
                )
            for floor in results.get("floors", []):
                if floor["dataset"] == name:
                    lines.append(
                        f"| floor: {floor['candidates']} candidates side by side, one "
                        f"read of the data | (1) | {floor['seconds']:.3f} | "
                        f"{_fmt(floor['score'])} |"
                    )
            for row in results["user_defaults"]:
                if row["dataset"] == name:
                    lines.append(
                        f"| `{row['system']}` fit() | ({row['epochs']} epochs) | "
                        f"{row['seconds']:.3f} | {_fmt(row[metric])} |"
                    )
    checks = targets(results)
    if checks:
        lines += [
            "",
            "## Targets",
            "",
            "| target | dataset | measured | met? |",
            "|---|---|---|---|",
        ]
        for label, name, measured, met in checks:
            lines.append(
                f"| {label} | {name} | {measured} | {'yes' if met else 'NO'} |"
            )
    if results["skipped"]:
        lines += ["", "## Skipped", ""]
        for row in results["skipped"]:
            lines.append(f"- {row['dataset']}, {row['system']}: {row['why']}")
    return "\n".join(lines) + "\n"


def plot(results, path):
    """Throughput against test quality: one panel per dataset, one point per system."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = results["datasets"]
    systems = list(dict.fromkeys(row["system"] for row in results["throughput"]))
    if not datasets or not systems:  # --systems left no epoch timings
        return
    markers = "osD^vP*Xh<>p8dH"
    colours = plt.get_cmap("tab20")
    style = {
        system: (markers[i % len(markers)], colours(i % 20))
        for i, system in enumerate(systems)
    }
    columns = min(3, len(datasets))
    rows = math.ceil(len(datasets) / columns)
    legend_rows = math.ceil(len(systems) / min(5, len(systems)))
    legend_inches, title_inches = 0.3 * legend_rows + 0.15, 0.5
    figure, axes = plt.subplots(
        rows,
        columns,
        figsize=(4.6 * columns, 3.6 * rows + legend_inches + title_inches),
        squeeze=False,
    )
    for ax, dataset in zip(axes.flat, datasets, strict=False):
        metric = METRIC[dataset["task"]]
        rows = [
            row for row in results["throughput"] if row["dataset"] == dataset["name"]
        ]
        floor = _axis_floor([row[metric] for row in rows])
        for row in rows:
            marker, colour = style[row["system"]]
            score = max(row[metric], floor)
            ax.scatter(
                row["nnz_per_second"],
                score,
                marker=marker,
                color=colour,
                s=60 if row["library"] == OURS else 40,
                edgecolors="black" if row["library"] == OURS else "none",
                label=row["system"],
                clip_on=False,
            )
            if row[metric] < floor:  # far below the others: drawn on the axis
                ax.annotate(
                    f"{row[metric]:.2f}",
                    (row["nnz_per_second"], score),
                    textcoords="offset points",
                    xytext=(6, 2),
                    fontsize=7,
                )
        ax.set_ylim(bottom=floor)
        ax.set_xscale("log")
        ax.set_title(dataset["name"], fontsize=10)
        ax.set_xlabel("non-zeros per second (one core)")
        ax.set_ylabel(f"test {METRIC_LABEL[metric]} after one epoch")
        ax.grid(True, which="both", alpha=0.3)
    for ax in axes.flat[len(datasets) :]:
        ax.axis("off")
    handles = [
        plt.Line2D(
            [],
            [],
            marker=style[system][0],
            color=style[system][1],
            linestyle="",
            markeredgecolor="black" if system in _ours(results) else "none",
            markersize=8,
            label=system,
        )
        for system in systems
    ]
    figure.legend(
        handles=handles,
        loc="lower center",
        ncol=min(5, len(systems)),
        fontsize=9,
        frameon=False,
    )
    figure.suptitle(
        f"One epoch: throughput against test quality ({results['environment']['date']},"
        " sk_adaprox outlined in black)",
        fontsize=11,
    )
    height = figure.get_figheight()
    figure.tight_layout(rect=(0, legend_inches / height, 1, 1 - title_inches / height))
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _axis_floor(scores):
    """The bottom of a panel's y axis: the lowest score, unless it lies more than
    four times the spread of the better half below the median (then such points
    sit on the axis with their value written beside them)."""
    ordered = sorted(scores)
    median, top = ordered[len(ordered) // 2], ordered[-1]
    spread = max(top - median, 1e-3)
    low = min(ordered)
    margin = 0.05 * (top - max(low, median - 4 * spread))
    return max(low, median - 4 * spread) - margin


def _ours(results):
    return {row["system"] for row in results["throughput"] if row["library"] == OURS}


START, END = "<!-- suite results: start -->", "<!-- suite results: end -->"


def publish(results, page, image):
    """Replace what lies between the START and END markers of the Markdown
    ``page`` with the run's tables (headings one level down) and the plot at
    ``image`` (a path relative to the page)."""
    text = page.read_text()
    if START not in text or END not in text:
        raise ValueError(f"{page} has no '{START}' ... '{END}' markers")
    body = markdown(results).splitlines()
    body = [f"#{line}" if line.startswith("#") else line for line in body]
    plot_line = (
        f"![One epoch: throughput against test quality, one point per system]({image})"
    )
    section = "\n".join([START, body[0], "", plot_line, *body[1:], END])
    before, rest = text.split(START, 1)
    after = rest.split(END, 1)[1]
    page.write_text(before + section + after)
