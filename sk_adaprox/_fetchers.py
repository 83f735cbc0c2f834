"""Download public datasets once into scikit-learn's data home and load them.

Each file is kept xz-compressed under ``<data home>/sk_adaprox/`` (the data home
is :func:`sklearn.datasets.get_data_home`'s: ``~/scikit_learn_data`` unless
``$SCIKIT_LEARN_DATA`` or ``data_home`` says otherwise). A file already there is
used as it is, so a machine without internet can be given the files by copying
them into that folder.
"""

import functools
import lzma
import numbers
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
_TIMEOUT = 60.0  # seconds without data before a download attempt fails


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


def load_cached(remote, data_home, load, *, download_if_missing, n_retries, delay):
    """``load(path)`` of the compressed local copy of ``remote``, downloading it
    first if absent. ``load`` raises :class:`OSError` on a file that is not the
    published one: a download it refuses is not kept (and is tried again up to
    ``n_retries`` times); a kept copy it refuses is named, to be deleted."""
    path = dataset_folder(data_home) / remote.cached_name
    if path.is_file():
        return load(path)
    if not download_if_missing:
        raise OSError(f"{path} not found and download_if_missing is False.")
    path.parent.mkdir(parents=True, exist_ok=True)
    for attempt in range(n_retries + 1):
        # Download, compress and check in a private folder beside the target,
        # then move the finished file into place: a failed or interrupted
        # download leaves nothing behind.
        with tempfile.TemporaryDirectory(dir=path.parent) as scratch:
            compressed = Path(scratch) / remote.cached_name
            try:
                _download_compressed(remote, Path(scratch), compressed)
                loaded = load(compressed)
            except OSError as error:
                if attempt == n_retries:
                    raise OSError(
                        f"Could not download {remote.url}: {error}"
                    ) from error
                time.sleep(delay)
                continue
            compressed.replace(path)
            return loaded
    raise AssertionError("unreachable")


def _download_compressed(remote, scratch, compressed):
    """Download ``remote`` into ``scratch`` and write its content, xz-compressed,
    to ``compressed``; OSError where the transfer or the archive is incomplete."""
    raw = scratch / "download"
    try:
        with urllib.request.urlopen(remote.url, timeout=_TIMEOUT) as response:
            expected = response.headers.get("Content-Length")
            with open(raw, "wb") as out:
                shutil.copyfileobj(response, out, _CHUNK)
    except urllib.error.HTTPError as error:  # "HTTP Error 404: Not Found"
        raise OSError(str(error)) from error
    except urllib.error.URLError as error:  # the network's reason inside
        raise OSError(str(error.reason)) from error
    received = raw.stat().st_size
    if expected is not None and received != int(expected):
        raise OSError(f"the transfer ended after {received} of {expected} bytes")
    try:
        with _open_content(raw, remote.member) as source:
            with lzma.open(compressed, "wb") as target:
                shutil.copyfileobj(source, target, _CHUNK)
    except (zipfile.BadZipFile, EOFError) as error:
        raise OSError(f"the downloaded archive is damaged ({error})") from error


def _open_content(raw: Path, member: str | None):
    if member is None:
        return open(raw, "rb")
    archive = zipfile.ZipFile(raw)
    try:
        return _ClosingMember(archive, archive.open(member))
    except KeyError as error:
        archive.close()
        raise OSError(f"the downloaded archive has no file {member!r}") from error


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


def _not_the_published_file(path, what):
    return OSError(
        f"{path} {what}: the file is incomplete or not the published one. "
        "Delete it and fetch again."
    )


def _check_fetch_parameters(download_if_missing, n_retries, delay):
    if not isinstance(download_if_missing, bool):
        raise TypeError(
            f"download_if_missing must be a bool, got {download_if_missing!r}."
        )
    integral = isinstance(n_retries, numbers.Integral)
    if not integral or isinstance(n_retries, bool) or n_retries < 0:
        raise ValueError(f"n_retries must be an int >= 0, got {n_retries!r}.")
    if not isinstance(delay, numbers.Real) or not delay >= 0:
        raise ValueError(f"delay must be a number >= 0, got {delay!r}.")


def _load_a9a(path, rows):
    """A part of a9a from its compressed file, checked: ``rows`` rows of 123
    binary features, each row's last line complete."""
    try:
        with lzma.open(path, "rb") as handle:
            X, y = load_svmlight_file(handle, n_features=_A9A_FEATURES)
    except (ValueError, EOFError, lzma.LZMAError) as error:
        raise _not_the_published_file(path, f"is not a9a's format ({error})") from error
    if X.shape[0] != rows:
        raise _not_the_published_file(path, f"holds {X.shape[0]} rows, not {rows}")
    # a row has one indicator per attribute that is not missing, 11 to 14: a
    # row with fewer was cut short
    if np.diff(X.indptr).min() < 11 or not np.isin(y, (-1.0, 1.0)).all():
        raise _not_the_published_file(path, "holds a row cut short")
    return X, y.astype(np.int64)


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
        X, y = load_cached(
            _A9A[part],
            data_home,
            functools.partial(_load_a9a, rows=_A9A_ROWS[part]),
            download_if_missing=download_if_missing,
            n_retries=n_retries,
            delay=delay,
        )
        matrices.append(X)
        targets.append(y)
    data = sparse.vstack(matrices, format="csr") if len(matrices) > 1 else matrices[0]
    target = np.concatenate(targets)
    if return_X_y:
        return data, target
    return Bunch(data=data, target=target, DESCR=_A9A_DESCR)


def _load_elec2(path):
    """Elec2's features and labels from its compressed CSV file, checked."""
    try:
        with lzma.open(path, "rt", encoding="ascii") as handle:
            header = handle.readline().strip().split(",")
            rows = [line.rstrip("\n").split(",") for line in handle if line.strip()]
    except (ValueError, EOFError, lzma.LZMAError) as error:
        raise _not_the_published_file(path, f"is not Elec2's CSV ({error})") from error
    if header != [*_ELEC2_FEATURES, "class"]:
        raise _not_the_published_file(path, f"does not have Elec2's columns {header}")
    if len(rows) != _ELEC2_ROWS:
        raise _not_the_published_file(
            path, f"holds {len(rows)} rows, not {_ELEC2_ROWS}"
        )
    width = len(header)
    if any(len(row) != width or row[-1] not in ("UP", "DOWN") for row in rows):
        raise _not_the_published_file(path, "holds a row cut short")
    try:
        features = np.array([row[:-1] for row in rows], dtype=np.float64)
    except ValueError as error:
        raise _not_the_published_file(
            path, f"holds a value that is not a number ({error})"
        ) from error
    return features, np.array([row[-1] for row in rows])


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
    features, target = load_cached(
        _ELEC2,
        data_home,
        _load_elec2,
        download_if_missing=download_if_missing,
        n_retries=n_retries,
        delay=delay,
    )
    names = list(_ELEC2_FEATURES)
    frame = None
    if as_frame:
        try:
            import pandas as pd
        except ImportError as error:
            raise ImportError("fetch_elec2(as_frame=True) needs pandas.") from error

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
