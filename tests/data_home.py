"""Fill a scikit-learn data home from a local folder of the datasets, offline.

The examples load their data through fetchers (scikit-learn's
``fetch_20newsgroups`` and ``fetch_california_housing``, sk_adaprox's
``fetch_a9a`` and ``fetch_elec2``), which download a file only where it is not
in the data home yet. Tests and the documentation build have no internet: they
put into a data home what each fetcher's download would have left there, made
from the local copies, so that the fetchers' own loading code runs.

scikit-learn's two fetchers keep their own cache files: a zlib-compressed
pickle of ``load_files`` of the two 20 Newsgroups folders, and a joblib dump of
the California housing array with its columns reordered. They are written here
exactly as ``sklearn/datasets/_twenty_newsgroups.py`` and
``_california_housing.py`` write them after a download.
"""

import codecs
import lzma
import pickle
import shutil
import tarfile
import tempfile
from pathlib import Path

import joblib
import numpy as np
from sklearn.datasets import load_files

# name in the local folder -> name in <data home>/sk_adaprox/ (sk_adaprox's
# fetchers keep the files xz-compressed under the same names)
SK_ADAPROX_FILES = ("a9a.xz", "a9a.t.xz", "electricity.csv.xz")
NEWS_ARCHIVE = "20news-bydate.tar.xz"
HOUSING_FILE = "cal_housing.data.xz"
# fetch_california_housing's column order: the target (median house value)
# last, the median income first.
HOUSING_COLUMNS = [8, 7, 2, 3, 4, 5, 6, 1, 0]


def populate_data_home(source: Path, data_home: Path) -> list[str]:
    """Put into ``data_home`` every dataset of ``source`` the examples fetch.

    Files already in ``data_home`` are left as they are. Returns the names of
    the local files that were missing from ``source``.
    """
    source, data_home = Path(source), Path(data_home)
    folder = data_home / "sk_adaprox"
    folder.mkdir(parents=True, exist_ok=True)
    missing = []
    for name in SK_ADAPROX_FILES:
        if not (source / name).is_file():
            missing.append(name)
        elif not (folder / name).is_file():
            shutil.copyfile(source / name, folder / name)
    for name, writer, cache in [
        (NEWS_ARCHIVE, _write_news_cache, "20news-bydate_py3.pkz"),
        (HOUSING_FILE, _write_housing_cache, "cal_housing_py3.pkz"),
    ]:
        if not (source / name).is_file():
            missing.append(name)
        elif not (data_home / cache).is_file():
            writer(source / name, data_home / cache)
    return missing


def _write_news_cache(archive: Path, cache: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        with tarfile.open(archive, "r:xz") as tar:
            tar.extractall(scratch, filter="data")
        content = dict(
            train=load_files(Path(scratch) / "20news-bydate-train", encoding="latin1"),
            test=load_files(Path(scratch) / "20news-bydate-test", encoding="latin1"),
        )
    _atomic_write(cache, codecs.encode(pickle.dumps(content), "zlib_codec"))


def _write_housing_cache(data_file: Path, cache: Path) -> None:
    with lzma.open(data_file, "rt") as handle:
        housing = np.loadtxt(handle, delimiter=",")
    with tempfile.NamedTemporaryFile(dir=cache.parent, delete=False) as partial:
        joblib.dump(housing[:, HOUSING_COLUMNS], partial.name, compress=6)
    Path(partial.name).replace(cache)


def _atomic_write(path: Path, content: bytes) -> None:
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as partial:
        partial.write(content)
    Path(partial.name).replace(path)
