"""The benchmark suite's adapters, measurements and target checks (benchmarks/).

The suite itself runs in ``.ci/run`` (``--quick``); these tests pin down what its
numbers mean on data small enough to check by hand. Peers that are not installed
(they come with ``pip install ".[bench]"``) are skipped, saying so.
"""

import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import SGDClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import _suite_report  # noqa: E402
import _systems  # noqa: E402
import suite  # noqa: E402

from sk_adaprox import AdaGradClassifier  # noqa: E402

# The benchmark suite's machinery (and its peers, where installed).
pytestmark = pytest.mark.slow


def _dataset(task, n_features=10, used=(0, 3, 7), seed=0):
    """A separable problem on the columns ``used`` of ``n_features`` (the others
    never appear), 600 training and 200 test rows, CSR."""
    rng = np.random.default_rng(seed)

    def draw(n):
        X = np.zeros((n, n_features))
        X[:, list(used)] = rng.normal(size=(n, len(used)))
        score = X[:, used[0]] - X[:, used[1]]
        if task == "binary":
            y = (score > 0).astype(int)
        elif task == "multiclass":
            y = np.argmax(X[:, list(used)], axis=1)
        else:
            y = 3 * score + 1
        return sp.csr_matrix(X), y

    X, y = draw(600)
    X_test, y_test = draw(200)
    classes = None if task == "regression" else np.unique(y)
    return suite.Dataset("tiny", task, X, y, X_test, y_test, classes)


def _trained(system, data, tmp_path, epochs=2):
    assert system.unavailable() is None
    assert system.unsupported(data) is None
    system.convert(data, str(tmp_path))
    system.new()
    for _ in range(epochs):
        system.epoch()
    return system


def _check_outputs(system, data):
    outputs = system.outputs()
    score = suite.quality(data, outputs)[suite.primary(data)]
    if data.task == "binary":
        assert outputs.shape == (200,)
        assert np.all((outputs >= 0) & (outputs <= 1))
        assert score > 0.95, system.name
    elif data.task == "multiclass":
        assert outputs.shape == (200, 3)
        assert score > 0.8, system.name
    else:
        assert outputs.shape == (200,)
        assert score > 0.5, system.name


PEERS = {
    "vowpalwabbit": lambda: [
        _systems.VowpalWabbit("VW Python", "python"),
        _systems.VowpalWabbit("VW C++ cache --ftrl", "cache", "--ftrl"),
    ],
    "river": lambda: [_systems.River("River AdaGrad", "adagrad")],
}


@pytest.mark.parametrize("task", ["binary", "multiclass", "regression"])
@pytest.mark.parametrize("module", sorted(PEERS))
def test_peer_adapters_learn_and_count_only_used_weights(module, task, tmp_path):
    pytest.importorskip(module, reason=f'{module} comes with pip install ".[bench]"')
    data = _dataset(task)
    for system in PEERS[module]():
        _trained(system, data, tmp_path, epochs=3)
        _check_outputs(system, data)
        # Only 3 of the 10 columns ever appear: a count of 10 (or VW's 2^18
        # table) would mean the adapter counts weights that were never trained.
        per_class = 3 if task == "multiclass" else 1
        count = system.nonzero_weights()
        assert 3 * per_class <= count <= 4 * per_class, (system.name, count)
        system.close()


def test_vw_cache_driver_epoch_k_is_a_run_of_k_passes(tmp_path):
    pytest.importorskip("vowpalwabbit", reason='comes with pip install ".[bench]"')
    data = _dataset("binary")
    cache = _systems.VowpalWabbit("VW C++ cache", "cache")
    assert cache.restarts
    _trained(cache, data, tmp_path, epochs=3)
    assert cache.passes == 3
    three_passes = cache.outputs()
    cache.new()
    cache.epoch()
    assert not np.allclose(cache.outputs(), three_passes)
    cache.close()


def test_datatable_adapter_multiclass_and_dense_limit(tmp_path):
    pytest.importorskip("datatable", reason='comes with pip install ".[bench]"')
    data = _dataset("multiclass")
    system = _trained(_systems.Datatable(), data, tmp_path)
    outputs = system.outputs()
    assert outputs.shape == (200, 3)
    np.testing.assert_allclose(outputs.sum(axis=1), 1, rtol=1e-5)
    wide = _dataset("binary", n_features=_systems.DENSE_WIDTH + 1)
    assert "one column per feature" in _systems.Datatable().unsupported(wide)


def test_missing_peer_is_skipped_with_the_install_command(monkeypatch):
    monkeypatch.setattr(_systems.importlib.util, "find_spec", lambda name: None)
    skipped = []
    ready = suite.prepare(
        [_systems.River("River FTRL", "ftrl")], _dataset("binary"), ".", skipped
    )
    assert ready == []
    assert skipped[0]["system"] == "River FTRL"
    assert "pip install '.[bench]'" in skipped[0]["why"]


def test_estimator_epochs_continue_the_model(tmp_path):
    data = _dataset("binary")
    system = _systems.Estimator(
        "AdaGrad",
        "sk_adaprox",
        lambda d: _systems.one_pass(AdaGradClassifier(eta=0.1, l1=0.0)),
    )
    _trained(system, data, tmp_path, epochs=1)
    after_one = system.model.coef_.copy()
    system.epoch()
    # The second epoch starts from the first's weights: a fresh model would
    # give exactly the first epoch's weights again.
    assert system.model.n_iter_ == 1 and system.epochs == 2
    assert not np.allclose(system.model.coef_, after_one)


def test_partial_fit_estimator_passes_every_row_once_per_epoch(tmp_path):
    data = _dataset("multiclass")
    sgd = _systems.Estimator(
        "SGD partial_fit",
        "scikit-learn",
        lambda d: SGDClassifier(loss="log_loss", max_iter=1, shuffle=False),
        chunk=250,
    )
    _trained(sgd, data, tmp_path, epochs=2)
    assert sgd.model.t_ == 2 * data.X.shape[0] + 1  # sklearn counts rows + 1
    _check_outputs(sgd, data)


def test_time_epochs_reports_every_measure(tmp_path):
    data = _dataset("binary")
    systems = suite.prepare(
        [
            _systems.Estimator(
                "AdaGrad",
                "sk_adaprox",
                lambda d: _systems.one_pass(AdaGradClassifier(eta=0.1, l1=0.0)),
            )
        ],
        data,
        str(tmp_path),
        [],
    )
    (row,) = suite.time_epochs(systems, data, repeats=2, slow=10.0)
    assert row["rounds"] == 2
    assert row["nnz_per_second"] == pytest.approx(data.nnz / row["seconds_per_epoch"])
    assert row["auc"] > 0.95 and 0 < row["log_loss"] < 0.7
    assert row["nonzero_weights"] == 3  # the columns that appear
    assert row["peak_memory_mib"] is None or row["peak_memory_mib"] >= 0


class _Scripted(_systems.System):
    """A system whose test AUC after epoch k is ``scores[k - 1]``."""

    library = "test"

    def __init__(self, name, scores, restarts=False):
        self.name, self.scores, self.restarts = name, scores, restarts

    def new(self):
        self.epochs = 0

    def epoch(self):
        self.epochs += 1

    def outputs(self):
        # Predictions whose AUC on the tiny test set is the scripted score:
        # a fraction of the labels flipped would do, but rank the truth with
        # noise instead and read back the achieved AUC.
        return self.data.outputs_for[self.scores[self.epochs - 1]]


def test_time_to_target_stops_at_the_first_epoch_reaching_it():
    data = _dataset("binary")
    y = data.y_test
    perfect = y.astype(float)
    half = np.where(np.arange(y.size) % 2 == 0, perfect, 1 - perfect)
    data.outputs_for = {1.0: perfect, 0.5: half}
    systems = [
        _Scripted("late", [0.5, 0.5, 1.0, 1.0]),
        _Scripted("never", [0.5, 0.5, 0.5, 0.5]),
    ]
    for system in systems:
        system.convert(data, ".")
    late, never = suite.time_to_target(systems, data, 0.9, max_epochs=4, budget=60)
    assert late["reached"]["epoch"] == 3 and len(late["curve"]) == 3
    assert late["best_score"] == 1.0
    assert never["reached"] is None and len(never["curve"]) == 4
    assert never["best_score"] == pytest.approx(0.5, abs=0.05)


def _results(throughput, mode="full", time_to_target=(), targets_sgd=(), defaults=()):
    return {
        "mode": mode,
        "datasets": [{"name": "d", "task": "binary"}],
        "throughput": [
            {
                "dataset": "d",
                "library": library,
                "system": system,
                "nnz_per_second": r,
                "auc": auc,
            }
            for system, library, r, auc in throughput
        ],
        "time_to_target": list(time_to_target),
        "targets_sgd": list(targets_sgd),
        "user_defaults": list(defaults),
    }


def test_targets_need_twice_vw_throughput_at_its_auc_and_20x_river():
    results = _results(
        [
            ("AdaGrad MD", "sk_adaprox", 20e6, 0.90),  # 2.0x, same AUC: met
            ("AdaGrad DA", "sk_adaprox", 19e6, 0.91),  # 1.9x: missed
            ("FTRL", "sk_adaprox", 50e6, 0.899),  # 5x, lower AUC: missed
            ("VW C++ cache", "vowpalwabbit", 10e6, 0.90),
            ("VW C++ cache --ftrl", "vowpalwabbit", 10e6, 0.90),
            ("River AdaGrad", "river", 1e6, 0.90),
        ]
    )
    checks = {
        (label.split(" /")[0], label.split("/ ")[1].split(" ")[0]): (m, met)
        for label, _, m, met in _suite_report.targets(results)
    }
    assert checks["AdaGrad MD", "VW"] == ("2.00×, AUC +0.0000", True)
    assert checks["AdaGrad DA", "VW"][1] is False
    assert checks["FTRL", "VW"] == ("5.00×, AUC -0.0010", False)
    assert checks["AdaGrad MD", "River"] == ("20×", True)
    assert checks["AdaGrad DA", "River"] == ("19×", False)


def test_targets_time_to_quality_and_defaults_within_one_percent():
    grid = {"dataset": "d", "target": 0.90, "best": {"seconds": 2.0}}
    reach = [
        {
            "dataset": "d",
            "system": "AdaGrad defaults",
            "target": 0.9,
            "reached": {"epoch": 1, "seconds": 1.5},
            "best_score": 0.92,
        },
        {
            "dataset": "d",
            "system": "FTRL defaults",
            "target": 0.9,
            "reached": None,
            "best_score": 0.89,
        },
        {
            "dataset": "d",
            "system": "VW C++ cache",
            "target": 0.9,
            "reached": None,
            "best_score": 0.95,
        },
    ]
    defaults = [
        {"dataset": "d", "system": "AdaGradClassifier()", "auc": 0.941},
        {"dataset": "d", "system": "FTRLClassifier()", "auc": 0.94},
    ]
    results = _results([], "quick", reach, [grid], defaults)
    results["datasets"] = [{"name": "rare 16k x 50k", "task": "binary"}]
    for rows in (reach, defaults, [grid]):
        for row in rows:
            row["dataset"] = "rare 16k x 50k"
    checks = {
        label: (measured, met)
        for label, _, measured, met in _suite_report.targets(results)
    }
    assert checks["AdaGrad defaults reach SGD's best-of-grid sooner than SGD"] == (
        "1.5 s vs SGD 2 s",
        True,
    )
    assert checks["FTRL defaults reach SGD's best-of-grid sooner than SGD"][1] is False
    # The best peer is VW's 0.95 (never reaching SGD's target is not the point).
    assert checks["AdaGradClassifier() within 1 % of the best peer"][1] is True
    assert checks["FTRLClassifier() within 1 % of the best peer"][1] is False


def _published_results():
    """A run of one binary set with two systems, one named with a VW option,
    SGD's grid, one time-to-target row, a classifier's fit() and a skip."""
    results = _results(
        [
            ("AdaGrad MD", "sk_adaprox", 2e7, 0.9),
            ("VW C++ cache --ftrl alpha=beta=0.1", "vowpalwabbit", 1e7, 0.9),
        ],
        time_to_target=[
            {
                "dataset": "d",
                "system": "VW C++ cache --ftrl",
                "target": 0.9,
                "reached": {"epoch": 2, "seconds": 0.5},
                "best_score": 0.91,
            }
        ],
        targets_sgd=[
            {
                "dataset": "d",
                "target": 0.9,
                "grid_seconds": 3.0,
                "best": {"penalty": "l2", "alpha": 1e-5, "seconds": 1.0, "epochs": 8},
            }
        ],
        defaults=[
            {
                "dataset": "d",
                "system": "FTRLClassifier()",
                "epochs": 7,
                "seconds": 0.25,
                "auc": 0.92,
            }
        ],
    )
    results.update(
        environment={
            "date": "2026-11-25",
            "machine": "m",
            "python": "3.11",
            "versions": {"sk_adaprox": "0.1"},
        },
        protocol={"repeats": 3, "max_epochs": 10, "budget_seconds": 60, "cpu": 1},
        seconds=1.0,
        skipped=[{"dataset": "d", "system": "ONS full", "why": "too wide"}],
    )
    results["datasets"][0].update(train_rows=10, test_rows=5, features=3, nnz=20)
    for row in results["throughput"]:
        row.update(
            threads="1",
            seconds_per_epoch=1e-6,
            log_loss=0.3,
            nonzero_weights=3,
            peak_memory_mib=None,
            conversion_seconds=0.0,
        )
    return results


def test_publish_replaces_only_the_marked_section(tmp_path):
    results = _published_results()
    page = tmp_path / "performance.md"
    start, end = _suite_report.START, _suite_report.END
    page.write_text(f"# Performance\n\nbefore\n{start}\nold\n{end}\nafter\n")
    for _ in range(2):  # publishing again replaces, never appends
        _suite_report.publish(results, page, "images/plot.png")
    text = page.read_text()
    assert text.startswith("# Performance\n\nbefore\n") and text.endswith("after\n")
    assert "old" not in text and text.count(_suite_report.START) == 1
    section = text.split(start)[1].split(end)[0]
    assert section.startswith("\n```{figure} images/plot.png\n:width: 100%\n")
    assert "[download it](images/plot.png)." in section
    assert "- Run of 2026-11-25, 1 s in all." in section
    assert "\n### d\n\nBinary; 10 × 3 train, 2.0 non-zeros a row; 5 test rows.\n" in (
        section
    )
    assert "**One epoch**" in section
    # The dataset's own figure, beside the plot, between its shape and its table.
    shape, figure = (
        section.split("\n### d\n\n")[1].split("**One epoch**")[0].split("\n\n", 1)
    )
    assert shape.startswith("Binary; ")
    assert figure.startswith("```{figure} images/benchmark_d.png\n:width: 100%\n")
    assert ":alt: d: test AUC after one epoch" in figure
    assert figure.endswith("sk_adaprox outlined in black.\n```\n\n")
    assert (
        "| AdaGrad MD | 1 | 0.0000 | 20.00 | 0.9000 | 0.3000 | 3 | – | 0.00 |"
        in section
    )
    # Command-line options in code literals, in both tables.
    assert "| VW C++ cache `--ftrl`, alpha=beta=0.1 | 1 |" in section
    assert "| VW C++ cache `--ftrl` | 2 | 0.500 | 0.9100 |" in section
    assert "**Time to SGD's best AUC, 0.9000.** SGD's best point: penalty l2" in section
    assert "| `FTRLClassifier()` fit() | (7 epochs) | 0.250 | 0.9200 |" in section
    # The targets and the skips belong to the run's results.md, not the page.
    assert "Targets" not in text and "Skipped" not in text and "ONS full" not in text
    report = _suite_report.markdown(results)
    assert "## Targets" in report and "- d, ONS full: too wide" in report
    page.write_text("# no markers\n")
    with pytest.raises(ValueError, match="markers"):
        _suite_report.publish(results, page, "images/plot.png")


def test_plot_datasets_draws_one_page_width_figure_per_dataset(tmp_path):
    results = _published_results()
    results["datasets"].append(dict(results["datasets"][0], name="No epoch: Set"))
    paths = _suite_report.plot_datasets(results, tmp_path)
    # A set without epoch timings has no figure (and the page shows none).
    assert paths == [tmp_path / "benchmark_d.png"]
    assert "benchmark_no_epoch_set.png" not in "\n".join(
        _suite_report.page_section(results, "images/plot.png")
    )
    header = paths[0].read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = (int.from_bytes(header[i : i + 4], "big") for i in (16, 20))
    assert (width, height) == (720, 450)
    assert _suite_report.dataset_image("rare 160k x 1M") == (
        "benchmark_rare_160k_x_1m.png"
    )


def test_place_notes_keeps_the_scores_on_the_axis_apart_and_inside():
    from matplotlib.text import Text

    plt = _suite_report._pyplot()
    figure, ax = plt.subplots(figsize=(4, 3))
    ax.set_xscale("log")
    ax.set_xlim(1e6, 1e8)
    for x in (1.02e6, 1.1e6, 1.2e6, 9.9e7):  # three close, one at the right side
        ax.annotate(
            "0.86",
            (x, 0.0),
            textcoords="offset points",
            xytext=(0, 6),
            horizontalalignment="center",
        )
    _suite_report._place_notes(figure)
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    # The scores' own boxes (an annotation's extent takes in its line).
    boxes = [Text.get_window_extent(note, renderer) for note in ax.texts]
    assert len(boxes) == 4
    assert all(frame.x0 < box.x0 and box.x1 < frame.x1 for box in boxes)
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    lifted = [note for note in ax.texts if note.arrow_patch is not None]
    assert lifted and all(note.xyann[1] > 6 for note in lifted)
    plt.close(figure)
