"""Download public datasets once into scikit-learn's data home and load them.

Each file is kept xz-compressed under ``<data home>/sk_adaprox/`` (the data home
is :func:`sklearn.datasets.get_data_home`'s: ``~/scikit_learn_data`` unless
``$SCIKIT_LEARN_DATA`` or ``data_home`` says otherwise). A file already there is
used as it is, so a machine without internet can be given the files by copying
them into that folder.
"""

import lzma
import shutil
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.datasets import get_data_home, load_svmlight_file
from sklearn.utils import Bunch

from ._typing import NDArray

__all__ = ["fetch_a9a", "fetch_elec2"]

_FOLDER = "sk_adaprox"
_CHUNK = 1 << 20


@dataclass(frozen=True)
class RemoteFile:
    """One file of a dataset: where it is published and how it is kept.

    Attributes
    ----------
    url : str
        Address of the published file (or of the zip archive holding it).
    cached_name : str
        Name of the xz-compressed copy in ``<data home>/sk_adaprox/``.
    member : str or None
        Name of the file inside the zip archive at ``url``; None when ``url``
        is the file itself.
    """

    url: str
    cached_name: str
    member: str | None = None


_LIBSVM = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"
_A9A = {
    "train": RemoteFile(_LIBSVM + "a9a", "a9a.xz"),
    "test": RemoteFile(_LIBSVM + "a9a.t", "a9a.t.xz"),
}
_A9A_ROWS = {"train": 32_561, "test": 16_281}
_A9A_FEATURES = 123
_ELEC2 = RemoteFile(
    "https://maxhalford.github.io/files/datasets/electricity.zip",
    "electricity.csv.xz",
    member="electricity.csv",
)
_ELEC2_ROWS = 45_312
_ELEC2_FEATURES = (
    "date",
    "day",
    "period",
    "nswprice",
    "nswdemand",
    "vicprice",
    "vicdemand",
    "transfer",
)


def dataset_folder(data_home: str | Path | None) -> Path:
    """The folder of sk_adaprox's datasets inside scikit-learn's data home."""
    return Path(get_data_home(data_home=data_home)) / _FOLDER


def cached_file(
    remote: RemoteFile,
    data_home: str | Path | None,
    *,
    download_if_missing: bool,
    n_retries: int,
    delay: float,
) -> Path:
    """Path of the compressed local copy of ``remote``, downloading it if absent."""
    path = dataset_folder(data_home) / remote.cached_name
    if path.is_file():
        return path
    if not download_if_missing:
        raise OSError(f"{path} not found and download_if_missing is False.")
    path.parent.mkdir(parents=True, exist_ok=True)
    # Download and compress into a private folder beside the target, then move
    # the finished file into place: an interrupted run leaves no partial copy.
    with tempfile.TemporaryDirectory(dir=path.parent) as scratch:
        raw = _download(remote.url, Path(scratch) / "download", n_retries, delay)
        compressed = Path(scratch) / remote.cached_name
        with _open_content(raw, remote.member) as source:
            with lzma.open(compressed, "wb") as target:
                shutil.copyfileobj(source, target, _CHUNK)
        compressed.replace(path)
    return path


def _download(url: str, path: Path, n_retries: int, delay: float) -> Path:
    for attempt in range(n_retries + 1):
        try:
            with urllib.request.urlopen(url) as response, open(path, "wb") as out:
                shutil.copyfileobj(response, out, _CHUNK)
            return path
        except (urllib.error.URLError, OSError) as error:
            if attempt == n_retries:
                raise OSError(f"Could not download {url}: {error}") from error
            time.sleep(delay)
    raise AssertionError("unreachable")


def _open_content(raw: Path, member: str | None):
    if member is None:
        return open(raw, "rb")
    archive = zipfile.ZipFile(raw)
    try:
        return _ClosingMember(archive, archive.open(member))
    except KeyError as error:
        archive.close()
        raise OSError(f"The downloaded archive has no file {member!r}.") from error


class _ClosingMember:
    """A zip member opened for reading that closes its archive with it."""

    def __init__(self, archive, member):
        self._archive = archive
        self._member = member

    def __enter__(self):
        return self._member

    def __exit__(self, *exc_info):
        self._member.close()
        self._archive.close()


def _check_shape(name, path, n_rows, expected_rows):
    if n_rows != expected_rows:
        raise OSError(
            f"{path} holds {n_rows} rows of {name}, expected {expected_rows}: the "
            "file is incomplete or not the published one. Delete it and fetch again."
        )


def _check_fetch_parameters(download_if_missing, n_retries, delay):
    if not isinstance(download_if_missing, bool):
        raise TypeError(
            f"download_if_missing must be a bool, got {download_if_missing!r}."
        )
    if not isinstance(n_retries, int) or isinstance(n_retries, bool) or n_retries < 0:
        raise ValueError(f"n_retries must be an int >= 0, got {n_retries!r}.")
    if not isinstance(delay, int | float) or not delay >= 0:
        raise ValueError(f"delay must be a number >= 0, got {delay!r}.")


_A9A_DESCR = """\
a9a: UCI Adult, binarised by LIBSVM
-----------------------------------

Census income: does a person earn more than $50,000 a year? The 14 attributes
of the UCI Adult data set (B. Becker and R. Kohavi, 1996, "Adult", UCI Machine
Learning Repository, https://doi.org/10.24432/C5XW20, CC BY 4.0) turned into 123
binary indicators (continuous attributes in quantile bins, categorical ones one
column per value) by the LIBSVM project (C.-C. Chang and C.-J. Lin, "LIBSVM: a
library for support vector machines", ACM TIST 2, 2011), which publishes the
files at https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html.

Rows: 32,561 (train), 16,281 (test). Features: 123, sparse, all 0/1; 14
non-zeros a row. Labels: +1 (more than $50,000, 24 %) and -1.
"""


def fetch_a9a(
    *,
    subset: str = "train",
    data_home: str | Path | None = None,
    download_if_missing: bool = True,
    return_X_y: bool = False,
    n_retries: int = 3,
    delay: float = 1.0,
) -> Bunch | tuple[sparse.csr_matrix, NDArray]:
    """Load the a9a data set (UCI Adult as 123 binary features), downloading it once.

    The files are fetched from the LIBSVM data sets page on the first call and
    kept, xz-compressed, in ``<data home>/sk_adaprox/`` (``a9a.xz`` and
    ``a9a.t.xz``); later calls read that copy. The data is distributed under the
    CC BY 4.0 licence; ``DESCR`` gives the sources to cite.

    Parameters
    ----------
    subset : {"train", "test", "all"}, default="train"
        The 32,561 training rows, the 16,281 test rows, or both (training rows
        first).
    data_home : str or path-like, default=None
        scikit-learn's data home (see :func:`sklearn.datasets.get_data_home`).
    download_if_missing : bool, default=True
        If False, raise an :class:`OSError` instead of downloading a missing file.
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.
    n_retries : int, default=3
        Further attempts after a failed download.
    delay : float, default=1.0
        Seconds between attempts.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the attributes

        data : scipy.sparse.csr_matrix of shape (n_samples, 123)
            The binary indicators, float64.
        target : ndarray of shape (n_samples,)
            Labels, ``1`` (income above $50,000) or ``-1``, int64.
        DESCR : str
            Description of the data set, its sources and licence.

    (data, target) : tuple if ``return_X_y`` is True

    Examples
    --------
    >>> from sk_adaprox.datasets import fetch_a9a
    >>> X, y = fetch_a9a(subset="test", return_X_y=True)  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (16281, 123)
    """
    _check_fetch_parameters(download_if_missing, n_retries, delay)
    parts = {"train": ["train"], "test": ["test"], "all": ["train", "test"]}
    if subset not in parts:
        raise ValueError(f"subset must be 'train', 'test' or 'all', got {subset!r}.")
    matrices, targets = [], []
    for part in parts[subset]:
        path = cached_file(
            _A9A[part],
            data_home,
            download_if_missing=download_if_missing,
            n_retries=n_retries,
            delay=delay,
        )
        with lzma.open(path, "rb") as handle:
            X, y = load_svmlight_file(handle, n_features=_A9A_FEATURES)
        _check_shape("a9a", path, X.shape[0], _A9A_ROWS[part])
        matrices.append(X)
        targets.append(y.astype(np.int64))
    data = sparse.vstack(matrices, format="csr") if len(matrices) > 1 else matrices[0]
    target = np.concatenate(targets)
    if return_X_y:
        return data, target
    return Bunch(data=data, target=target, DESCR=_A9A_DESCR)


_ELEC2_DESCR = """\
Elec2: the electricity market of New South Wales
------------------------------------------------

45,312 half-hour periods of the market of New South Wales, Australia, from
7 May 1996 to 5 December 1998 (M. Harries, "SPLICE-2 Comparative Evaluation:
Electricity Pricing", technical report, University of New South Wales, 1999),
in the normalised version of J. Gama, P. Medas, G. Castillo and P. Rodrigues,
"Learning with Drift Detection", SBIA 2004. Each period is labelled UP or DOWN
by whether the price is above its average over the last 24 hours. The rows are
in time order; the data is a standard benchmark of concept drift. No licence is
stated by its source; it is fetched from the copy that River's ``Elec2``
data set downloads.

Features (all scaled to [0, 1] except ``day``): date, day (1 to 7, the day of
the week), period (the half hour of the day), nswprice, nswdemand, vicprice,
vicdemand (price and demand in New South Wales and Victoria), transfer (the
planned transfer between the two states). Target: "UP" (42 %) or "DOWN".
"""


def fetch_elec2(
    *,
    data_home: str | Path | None = None,
    download_if_missing: bool = True,
    as_frame: bool = False,
    return_X_y: bool = False,
    n_retries: int = 3,
    delay: float = 1.0,
) -> Bunch | tuple:
    """Load the Elec2 electricity-pricing stream, downloading it once.

    The CSV file is fetched on the first call and kept, xz-compressed, in
    ``<data home>/sk_adaprox/electricity.csv.xz``; later calls read that copy.
    ``DESCR`` describes the columns and gives the sources to cite.

    Parameters
    ----------
    data_home : str or path-like, default=None
        scikit-learn's data home (see :func:`sklearn.datasets.get_data_home`).
    download_if_missing : bool, default=True
        If False, raise an :class:`OSError` instead of downloading a missing file.
    as_frame : bool, default=False
        If True, ``data`` is a pandas DataFrame, ``target`` a Series and
        ``frame`` both together (pandas must be installed).
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.
    n_retries : int, default=3
        Further attempts after a failed download.
    delay : float, default=1.0
        Seconds between attempts.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the attributes

        data : ndarray of shape (45312, 8) or DataFrame
            The features, float64, in time order.
        target : ndarray of shape (45312,) or Series
            ``"UP"`` or ``"DOWN"``.
        feature_names : list of str
            The columns of ``data``.
        target_names : list of str
            ``["DOWN", "UP"]``.
        frame : DataFrame or None
            ``data`` and ``target`` together when ``as_frame`` is True.
        DESCR : str
            Description of the data set and its sources.

    (data, target) : tuple if ``return_X_y`` is True

    Examples
    --------
    >>> from sk_adaprox.datasets import fetch_elec2
    >>> elec2 = fetch_elec2(as_frame=True)  # doctest: +SKIP
    >>> elec2.frame.shape  # doctest: +SKIP
    (45312, 9)
    """
    _check_fetch_parameters(download_if_missing, n_retries, delay)
    path = cached_file(
        _ELEC2,
        data_home,
        download_if_missing=download_if_missing,
        n_retries=n_retries,
        delay=delay,
    )
    with lzma.open(path, "rt", encoding="ascii") as handle:
        header = handle.readline().strip().split(",")
        rows = [line.rstrip("\n").split(",") for line in handle if line.strip()]
    if header != [*_ELEC2_FEATURES, "class"]:
        raise OSError(f"{path} does not have Elec2's columns: {header}.")
    _check_shape("Elec2", path, len(rows), _ELEC2_ROWS)
    features = np.array([row[:-1] for row in rows], dtype=np.float64)
    target = np.array([row[-1] for row in rows])
    names = list(_ELEC2_FEATURES)
    frame = None
    if as_frame:
        import pandas as pd

        frame = pd.DataFrame(features, columns=names)
        frame["class"] = pd.Series(target, dtype="category")
        features, target = frame[names], frame["class"]
    if return_X_y:
        return features, target
    return Bunch(
        data=features,
        target=target,
        feature_names=names,
        target_names=["DOWN", "UP"],
        frame=frame,
        DESCR=_ELEC2_DESCR,
    )
