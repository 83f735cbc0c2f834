"""Every gallery example runs as a user runs it: from a copy of ``examples/``
outside the repository, with its data fetched into scikit-learn's data home.

There is no internet here, so the data home is filled beforehand from the local
copies of the data sets (``data_home.populate_data_home``): the fetchers find
their files and do not download.
"""

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from data_home import populate_data_home

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))
REAL_DATA = ("fetch_", "load_sms_spam")


@pytest.fixture(scope="module")
def data_home(shared_data, tmp_path_factory):
    home = tmp_path_factory.mktemp("scikit_learn_data")
    missing = populate_data_home(shared_data, home)
    assert not missing, f"local data sets missing: {missing}"
    return home


@pytest.fixture(scope="module")
def examples_copy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("examples_copy") / "examples"
    shutil.copytree(EXAMPLES, folder)
    return folder


def test_the_gallery_has_examples():
    assert len(SCRIPTS) >= 10 and "quickstart.py" in SCRIPTS


@pytest.mark.parametrize("name", SCRIPTS)
def test_example_names_no_outside_path_and_its_data(name):
    source = (EXAMPLES / name).read_text()
    for outside in ("shared/", "SK_ADAPROX_DATA_DIR", "../"):
        assert outside not in source, f"{name} refers to {outside!r}"
    docstring = ast.get_docstring(ast.parse(source)) or ""
    if any(call in source for call in REAL_DATA):
        # the data is named with its source and its licence (or that none is stated)
        assert "licence" in docstring.lower() or name == "quickstart.py", name


@pytest.mark.parametrize("name", SCRIPTS)
def test_example_runs_outside_the_repository(name, data_home, examples_copy):
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("SK_ADAPROX_DATA_DIR", "PYTHONPATH")
    }
    environment.update(SCIKIT_LEARN_DATA=str(data_home), MPLBACKEND="Agg")
    before = sorted(p.relative_to(data_home) for p in data_home.rglob("*"))
    result = subprocess.run(
        [sys.executable, name],
        cwd=examples_copy,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    # nothing was downloaded, and no path of this machine is printed
    assert sorted(p.relative_to(data_home) for p in data_home.rglob("*")) == before
    for path in (data_home, EXAMPLES.parent, examples_copy):
        assert str(path) not in result.stdout + result.stderr
