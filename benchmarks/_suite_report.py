"""The suite's Markdown tables, its targets and its plot, from the results dict:
the full report of a run (``markdown``) and the section of the documentation's
performance page (``publish``), which share their tables."""

import math
import re
import textwrap
from pathlib import Path, PurePath

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
    """The targets of the issue the suite was written for, met or not.

    Parameters
    ----------
    results : dict
        The run's results, as ``suite.py`` writes them to ``results.json``.

    Returns
    -------
    list of tuple
        Rows (target, dataset, measured, met): throughput against VW and River,
        time to SGD's best-of-grid on the rare sets (one core, then two), and
        the classifiers' defaults against the best peer.
    """
    sgd = {grid["dataset"]: grid for grid in results["targets_sgd"]}
    reach = _by(results["time_to_target"], "dataset", "system")
    floors = {floor["dataset"]: floor for floor in results.get("floors", [])}
    return [
        *_throughput_checks(results),
        *_sooner_checks(results, sgd, reach, floors),
        *_two_core_checks(results, sgd, reach, floors),
        *_defaults_checks(results, sgd),
    ]


def _throughput_checks(results):
    """Ours at twice VW's throughput at no less quality, and 20 times River's."""
    epoch = _by(results["throughput"], "dataset", "system")
    checks = []
    for name, task in _tasks(results).items():
        if task == "regression":
            continue
        label = METRIC_LABEL[METRIC[task]]
        for ours, peer in VW_PAIRS:
            if (name, ours) in epoch and (name, peer) in epoch:
                a, b = epoch[name, ours], epoch[name, peer]
                ratio = a["nnz_per_second"] / b["nnz_per_second"]
                gain = a[METRIC[task]] - b[METRIC[task]]
                checks.append(
                    (
                        f"{ours} / {peer} throughput ≥ 2 at ≥ its {label}",
                        name,
                        f"{ratio:.2f}×, {label} {gain:+.4f}",
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
    return checks


def _sooner_checks(results, sgd, reach, floors):
    """The defaults on one core reach SGD's best-of-grid on the rare sets sooner
    than SGD's best point does."""
    checks = []
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
    return checks


def _defaults_checks(results, sgd):
    """The classifiers fitted at their defaults within 1 % of the best peer's
    score: any peer's epoch or time-to-target best, or SGD's best-of-grid."""
    checks = []
    for name, task in _tasks(results).items():
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


def _system(name):
    """``name`` with its command-line options in code literals, and a comma
    before what follows an option: ``VW C++ cache --ftrl alpha=beta=0.1`` gives
    ``VW C++ cache `--ftrl`, alpha=beta=0.1``."""
    words = []
    for word in name.split(" "):
        if word.startswith("--"):
            word = f"`{word}`"
        elif words and words[-1].startswith("`--"):
            words[-1] += ","
        words.append(word)
    return " ".join(words)


def _shape(dataset):
    """The size of a dataset: train rows × features, non-zeros a row, test rows."""
    per_row = dataset["nnz"] / dataset["train_rows"]
    return (
        f"{dataset['train_rows']:,} × {dataset['features']:,} train, "
        f"{per_row:.1f} non-zeros a row; {dataset['test_rows']:,} test rows"
    )


def _environment(results, core=True):
    """The run list's machine and versions lines (``core``: name the pinned core)."""
    env = results["environment"]
    pinned = f" (core {results['protocol']['cpu']})" if core else ""
    versions = ", ".join(
        f"{name} {version}" for name, version in env["versions"].items() if version
    )
    return [
        f"- Machine: {env['machine']}; the run pinned to one core{pinned}; "
        f"Python {env['python']}.",
        f"- Versions: {versions}.",
    ]


def _epoch_table(results, dataset):
    """The lines of a dataset's one-epoch table, one row per system."""
    name, task = dataset["name"], dataset["task"]
    metric = METRIC[task]
    extra = "log loss" if task != "regression" else None
    lines = [
        f"| system | threads | s / epoch | M nnz / s | {METRIC_LABEL[metric]} | "
        + (f"{extra} | " if extra else "")
        + "non-zero weights | peak MiB | conversion s |",
        "|---|---|---|---|---|" + ("---|" if extra else "") + "---|---|---|",
    ]
    repeats = results["protocol"]["repeats"]
    for row in results["throughput"]:
        if row["dataset"] != name:
            continue
        memory = row["peak_memory_mib"]
        lines.append(
            f"| {_system(row['system'])} | {row['threads']} | "
            f"{row['seconds_per_epoch']:.4f}"
            f"{'*' if row.get('rounds', repeats) < repeats else ''} "
            f"| {row['nnz_per_second'] / 1e6:.2f} | {_fmt(row[metric])} | "
            + (f"{_fmt(row['log_loss'])} | " if extra else "")
            + f"{row['nonzero_weights']:,} | "
            f"{'–' if memory is None else f'{memory:.1f}'} | "
            f"{row['conversion_seconds']:.2f} |"
        )
    return lines


def _sgd_point(grid):
    """The sentence on SGD's best point of its grid and the grid's time."""
    best = grid["best"]
    return (
        f"SGD's best point: penalty {best['penalty']}, alpha {best['alpha']:g}, "
        f"{best['seconds']:.3f} s over {best['epochs']} epochs (the grid: "
        f"{grid['grid_seconds']:.2f} s)."
    )


def _target_table(results, grid):
    """The lines of a dataset's time-to-target table: the systems trained epoch
    after epoch, then its 16-candidate floor and its ``fit()`` rows."""
    name = grid["dataset"]
    metric = METRIC[_tasks(results)[name]]
    lines = [
        f"| system | reached at epoch | seconds | best {METRIC_LABEL[metric]} |",
        "|---|---|---|---|",
    ]
    for row in results["time_to_target"]:
        if row["dataset"] == name:
            reached = row["reached"]
            lines.append(
                f"| {_system(row['system'])} | "
                f"{reached['epoch'] if reached else 'never'} | "
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
    return lines


def markdown(results):
    """The full report of a run, for the ``results.md`` beside its JSON.

    Parameters
    ----------
    results : dict
        The run's results, as ``suite.py`` writes them to ``results.json``.

    Returns
    -------
    str
        Markdown: the run list, every dataset's one-epoch table, then every
        time-to-target table, the targets met or missed and the systems skipped.
    """
    protocol = results["protocol"]
    lines = [
        f"# Benchmark suite, {results['mode']} run, {results['environment']['date']}",
        "",
        *_environment(results),
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
    for dataset in results["datasets"]:
        lines += [
            "",
            f"### {dataset['name']} ({dataset['task']}; {_shape(dataset)})",
            "",
            *_epoch_table(results, dataset),
        ]
    lines += _time_to_target_section(results)
    lines += _targets_section(results)
    if results["skipped"]:
        lines += ["", "## Skipped", ""]
        for row in results["skipped"]:
            lines.append(f"- {row['dataset']}, {row['system']}: {row['why']}")
    return "\n".join(lines) + "\n"


def _time_to_target_section(results):
    """The report's "Time to target" section: SGD's target, then a table per
    dataset (no lines when SGD's grid ran on none)."""
    if not results["targets_sgd"]:
        return []
    lines = [
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
    tasks = _tasks(results)
    for grid in results["targets_sgd"]:
        label = METRIC_LABEL[METRIC[tasks[grid["dataset"]]]]
        lines += [
            "",
            f"### {grid['dataset']}: target {label} {grid['target']:.4f}",
            "",
            _sgd_point(grid),
            "",
            *_target_table(results, grid),
        ]
    return lines


def _targets_section(results):
    """The report's "Targets" section: each target, met or not (no lines when
    the run measured none)."""
    checks = targets(results)
    if not checks:
        return []
    lines = [
        "",
        "## Targets",
        "",
        "| target | dataset | measured | met? |",
        "|---|---|---|---|",
    ]
    for label, name, measured, met in checks:
        lines.append(f"| {label} | {name} | {measured} | {'yes' if met else 'NO'} |")
    return lines


def _pyplot():
    """matplotlib's pyplot on the Agg backend (no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _styles(results):
    """The systems of the run's epoch timings, in their order, and each one's
    (marker, colour): the same in every figure of the run."""
    plt = _pyplot()
    systems = list(dict.fromkeys(row["system"] for row in results["throughput"]))
    markers = "osD^vP*Xh<>p8dH"
    colours = plt.get_cmap("tab20")
    style = {
        system: (markers[i % len(markers)], colours(i % 20))
        for i, system in enumerate(systems)
    }
    return systems, style


def plot(results, path):
    """Throughput against test quality: one panel per dataset, one point per system.

    Parameters
    ----------
    results : dict
        The run's results, as ``suite.py`` writes them to ``results.json``.
    path : str or os.PathLike
        Where to write the PNG; nothing is written when the run timed no epoch.
    """
    plt = _pyplot()
    datasets = results["datasets"]
    systems, style = _styles(results)
    if not datasets or not systems:  # --systems left no epoch timings
        return
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
        _panel(ax, results, dataset, style)
    for ax in axes.flat[len(datasets) :]:
        ax.axis("off")
    figure.legend(
        handles=_handles(results, systems, style),
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
    _place_notes(figure)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def dataset_image(name):
    """The file name of a dataset's figure: ``benchmark_<slug>.png``, the slug
    its name in lower case with each run of other characters than letters and
    digits as one ``_`` (``rare 16k x 50k`` gives ``benchmark_rare_16k_x_50k.png``)."""
    return f"benchmark_{re.sub(r'[^0-9a-z]+', '_', name.lower())}.png"


def plot_datasets(results, folder):
    """One figure per dataset, to be read at page width: its panel of
    :func:`plot` (the same markers and colours) with a legend of its systems
    on the right, 7.2 × 4.5 inches at 100 dpi (720 × 450 pixels).

    Parameters
    ----------
    results : dict
        The run's results, as ``suite.py`` writes them to ``results.json``.
    folder : str or os.PathLike
        Where to write the PNGs, named by :func:`dataset_image`.

    Returns
    -------
    list of pathlib.Path
        The files written: one per dataset with epoch timings.
    """
    plt = _pyplot()
    systems, style = _styles(results)
    paths = []
    for dataset in results["datasets"]:
        timed = {
            row["system"]
            for row in results["throughput"]
            if row["dataset"] == dataset["name"]
        }
        if not timed:
            continue
        figure, ax = plt.subplots(figsize=(7.2, 4.5), layout="constrained")
        _panel(ax, results, dataset, style, note_size=9)
        ax.legend(
            handles=_handles(results, [s for s in systems if s in timed], style),
            loc="center left",
            bbox_to_anchor=(1.02, 0.5),
            fontsize=9,
            frameon=False,
        )
        _place_notes(figure)
        path = Path(folder) / dataset_image(dataset["name"])
        figure.savefig(path, dpi=100)
        plt.close(figure)
        paths.append(path)
    return paths


def _handles(results, systems, style):
    """The legend's entries of ``systems``, in their ``style``; ours outlined."""
    plt = _pyplot()
    ours = _ours(results)
    return [
        plt.Line2D(
            [],
            [],
            marker=style[system][0],
            color=style[system][1],
            linestyle="",
            markeredgecolor="black" if system in ours else "none",
            markersize=8,
            label=system,
        )
        for system in systems
    ]


def _panel(ax, results, dataset, style, note_size=7):
    """A dataset's panel of the plot: one point per system, in its ``style``
    (marker, colour); ours outlined in black; the scores below the axis written
    over their points at ``note_size`` points (then :func:`_place_notes`)."""
    metric = METRIC[dataset["task"]]
    rows = [row for row in results["throughput"] if row["dataset"] == dataset["name"]]
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
                xytext=(0, 6),
                horizontalalignment="center",
                fontsize=note_size,
            )
    ax.set_ylim(bottom=floor)
    ax.set_xscale("log")
    ax.set_title(dataset["name"], fontsize=10)
    ax.set_xlabel("non-zeros per second (one core)")
    ax.set_ylabel(f"test {METRIC_LABEL[metric]} after one epoch")
    ax.grid(True, which="both", alpha=0.3)


def _place_notes(figure):
    """Move the scores written over the points on each panel's axis (see
    :func:`_panel`) into the panel where they would cross its side, and a line
    and a half up, with a line down to their point, where they would run into
    the score before them. Call it once the layout has placed the panels."""
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    points = 72 / figure.dpi  # a pixel in points
    for ax in figure.axes:
        frame = ax.get_window_extent(renderer)
        placed = []
        for note in sorted(ax.texts, key=lambda text: text.xy[0]):
            size = note.get_fontsize()
            for level in range(len(ax.texts)):
                note.xyann = (0, 6 + level * 1.5 * size)
                box = note.get_window_extent(renderer)
                inward = max(frame.x0 + 2 - box.x0, 0) + min(frame.x1 - 2 - box.x1, 0)
                if inward:
                    note.xyann = (inward * points, note.xyann[1])
                    box = note.get_window_extent(renderer)
                if not any(box.overlaps(other) for other in placed):
                    break
            placed.append(box)
            if level:
                note.remove()
                ax.annotate(
                    note.get_text(),
                    note.xy,
                    textcoords="offset points",
                    xytext=note.xyann,
                    horizontalalignment="center",
                    fontsize=size,
                    arrowprops={
                        "arrowstyle": "-",
                        "color": "0.4",
                        "lw": 0.6,
                        "shrinkB": 5,
                    },
                )


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

_COUNTS = (
    "Zero One Two Three Four Five Six Seven Eight Nine Ten Eleven Twelve Thirteen "
    "Fourteen Fifteen Sixteen Seventeen Eighteen Nineteen Twenty"
).split()


def _figure(results, image):
    """The MyST figure of the plot at ``image``: its caption, wrapped at 79
    characters, ends on a line of its own with a link to the full-size file."""
    count = len(results["datasets"])
    panels = _COUNTS[count] if count < len(_COUNTS) else str(count)
    panels += " panel" if count == 1 else " panels"
    caption = (
        "One epoch: throughput (non-zeros per second, one core, log scale) against "
        "test quality, one panel per dataset, one point per system; sk_adaprox "
        "outlined in black. Click the figure to open it at full size, or"
    )
    return [
        f"```{{figure}} {image}",
        ":width: 100%",
        f":alt: {panels}, one per dataset: test quality after one epoch against "
        "non-zeros per second, one point per system",
        "",
        *textwrap.wrap(caption, 79, break_long_words=False, break_on_hyphens=False),
        f"[download it]({image}).",
        "```",
    ]


def _dataset_figure(dataset, image):
    """The MyST figure of a dataset's plot, ``image`` (see :func:`plot_datasets`)."""
    name = dataset["name"]
    label = METRIC_LABEL[METRIC[dataset["task"]]]
    caption = (
        f"{name}: test {label} after one epoch against non-zeros per second (one "
        "core, log scale), one point per system; sk_adaprox outlined in black."
    )
    return [
        f"```{{figure}} {image}",
        ":width: 100%",
        f":alt: {name}: test {label} after one epoch against non-zeros per second, "
        "one point per system",
        "",
        *textwrap.wrap(caption, 79, break_long_words=False, break_on_hyphens=False),
        "```",
    ]


def page_section(results, image):
    """The run's section of the documentation's performance page.

    Parameters
    ----------
    results : dict
        The run's results, as ``suite.py`` writes them to ``results.json``.
    image : str or os.PathLike
        The plot's path, relative to the page; each dataset's figure of
        :func:`plot_datasets` lies beside it.

    Returns
    -------
    list of str
        The lines of the section: the plot as a figure, the run list, then per
        dataset a heading, its shape, its figure, its one-epoch table and, for
        the sets SGD's grid ran on, its time-to-target table. The targets and
        the systems skipped are left to the run's ``results.md``.
    """
    env = results["environment"]
    folder = PurePath(image).parent
    lines = [
        *_figure(results, PurePath(image).as_posix()),
        "",
        *_environment(results, core=False),
        f"- Run of {env['date']}, {results['seconds']:.0f} s in all.",
    ]
    grids = {grid["dataset"]: grid for grid in results["targets_sgd"]}
    timed = {row["dataset"] for row in results["throughput"]}
    for dataset in results["datasets"]:
        name, task = dataset["name"], dataset["task"]
        lines += ["", f"### {name}", "", f"{task.capitalize()}; {_shape(dataset)}."]
        if name in timed:  # plot_datasets drew its figure
            image = (folder / dataset_image(name)).as_posix()
            lines += ["", *_dataset_figure(dataset, image)]
        lines += [
            "",
            "**One epoch**",
            "",
            *_epoch_table(results, dataset),
        ]
        if name in grids:
            grid = grids[name]
            lines += [
                "",
                f"**Time to SGD's best {METRIC_LABEL[METRIC[task]]}, "
                f"{grid['target']:.4f}.** {_sgd_point(grid)}",
                "",
                *_target_table(results, grid),
            ]
    return lines


def publish(results, page, image):
    """Write a run into the documentation's performance page.

    Parameters
    ----------
    results : dict
        The run's results, as ``suite.py`` writes them to ``results.json``.
    page : pathlib.Path
        The Markdown page; what lies between its ``START`` and ``END`` markers
        is replaced by :func:`page_section`, the rest left as it was.
    image : str or os.PathLike
        The plot's path, relative to the page; each dataset's figure of
        :func:`plot_datasets` lies beside it.

    Raises
    ------
    ValueError
        If the page lacks either marker.
    """
    text = page.read_text()
    if START not in text or END not in text:
        raise ValueError(f"{page} has no '{START}' ... '{END}' markers")
    section = "\n".join([START, *page_section(results, image), END])
    before, rest = text.split(START, 1)
    after = rest.split(END, 1)[1]
    page.write_text(before + section + after)
