"""The dataset fetchers: loading from the data home, and downloading for real.

The download tests serve the files over HTTP from this machine (a real server
on a local port) and point the fetchers' addresses at it; everything else reads
a data home filled from the local copies of the data sets.
"""

import http.server
import lzma
import threading
import zipfile
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from data_home import SK_ADAPROX_FILES

from sk_adaprox import _fetchers
from sk_adaprox.datasets import fetch_a9a, fetch_elec2


@pytest.fixture(scope="module")
def local_home(shared_data, tmp_path_factory):
    """A data home holding sk_adaprox's files, copied from the local data sets."""
    home = tmp_path_factory.mktemp("data_home")
    (home / "sk_adaprox").mkdir()
    for name in SK_ADAPROX_FILES:
        (home / "sk_adaprox" / name).write_bytes((shared_data / name).read_bytes())
    return home


def test_a9a_from_the_data_home(local_home):
    train = fetch_a9a(data_home=local_home)
    X_test, y_test = fetch_a9a(subset="test", data_home=local_home, return_X_y=True)
    assert sp.isspmatrix_csr(train.data) and train.data.shape == (32_561, 123)
    assert X_test.shape == (16_281, 123) and X_test.dtype == np.float64
    assert set(np.unique(train.target)) == {-1, 1} and train.target.dtype == np.int64
    # Adult: 24.1 % earn more than $50,000; 14 indicators a row at most
    assert np.mean(train.target == 1) == pytest.approx(0.2408, abs=1e-4)
    assert np.diff(train.data.indptr).max() == 14
    assert set(np.unique(train.data.data)) == {1.0}
    assert "CC BY 4.0" in train.DESCR
    both = fetch_a9a(subset="all", data_home=local_home)
    assert (both.data[:32_561] != train.data).nnz == 0
    assert (both.data[32_561:] != X_test).nnz == 0
    np.testing.assert_array_equal(both.target, np.r_[train.target, y_test])


def test_elec2_from_the_data_home(local_home):
    elec2 = fetch_elec2(data_home=local_home)
    assert elec2.data.shape == (45_312, 8) and elec2.data.dtype == np.float64
    assert elec2.feature_names[:3] == ["date", "day", "period"]
    assert set(np.unique(elec2.target)) == {"UP", "DOWN"}
    assert np.mean(elec2.target == "UP") == pytest.approx(0.4245, abs=1e-4)
    assert set(np.unique(elec2.data[:, 1])) == set(range(1, 8))
    assert elec2.frame is None
    frame = fetch_elec2(data_home=local_home, as_frame=True)
    assert frame.frame.shape == (45_312, 9)
    np.testing.assert_array_equal(frame.data.to_numpy(), elec2.data)
    np.testing.assert_array_equal(frame.target.to_numpy(), elec2.target)
    X, y = fetch_elec2(data_home=local_home, return_X_y=True)
    np.testing.assert_array_equal(X, elec2.data)


def test_missing_file_without_download(tmp_path):
    with pytest.raises(OSError, match="a9a.xz not found and download_if_missing"):
        fetch_a9a(data_home=tmp_path, download_if_missing=False)
    with pytest.raises(OSError, match="electricity.csv.xz not found"):
        fetch_elec2(data_home=tmp_path, download_if_missing=False)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"subset": "validation"}, ValueError, "subset must be 'train', 'test'"),
        ({"n_retries": -1}, ValueError, "n_retries must be an int >= 0"),
        ({"delay": float("nan")}, ValueError, "delay must be a number >= 0"),
        ({"download_if_missing": "yes"}, TypeError, "download_if_missing must be"),
    ],
)
def test_bad_parameters(tmp_path, kwargs, error, match):
    with pytest.raises(error, match=match):
        fetch_a9a(data_home=tmp_path, **kwargs)


@pytest.fixture
def server(tmp_path):
    """An HTTP server on a local port serving the folder it returns."""
    folder = tmp_path / "published"
    folder.mkdir()
    handler = partial(QuietHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the folder; a file named "*.short" is announced whole (its
    Content-Length) but only its first half is sent, as a dropped connection."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        if not self.path.endswith(".short"):
            return super().do_GET()
        content = (Path(self.directory) / self.path.lstrip("/")).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content[: len(content) // 2])
        self.close_connection = True


def publish(shared_data, folder, base_url, monkeypatch):
    """Put the original files in ``folder`` and aim the fetchers at it."""
    for name in ("a9a", "a9a.t"):
        (folder / name).write_bytes(
            lzma.decompress((shared_data / f"{name}.xz").read_bytes())
        )
    with zipfile.ZipFile(folder / "electricity.zip", "w") as archive:
        csv = lzma.decompress((shared_data / "electricity.csv.xz").read_bytes())
        archive.writestr("electricity.csv", csv)
    monkeypatch.setattr(
        _fetchers,
        "_A9A",
        {
            part: replace(remote, url=base_url + remote.url.rsplit("/", 1)[1])
            for part, remote in _fetchers._A9A.items()
        },
    )
    monkeypatch.setattr(
        _fetchers, "_ELEC2", replace(_fetchers._ELEC2, url=base_url + "electricity.zip")
    )


def test_download_into_an_empty_data_home(shared_data, local_home, server, monkeypatch):
    folder, base_url = server
    publish(shared_data, folder, base_url, monkeypatch)
    home = folder.parent / "fresh_home"
    downloaded = fetch_a9a(subset="all", data_home=home)
    expected = fetch_a9a(subset="all", data_home=local_home)
    assert (downloaded.data != expected.data).nnz == 0
    np.testing.assert_array_equal(downloaded.target, expected.target)
    elec2 = fetch_elec2(data_home=home)
    np.testing.assert_array_equal(elec2.data, fetch_elec2(data_home=local_home).data)
    # the copies are kept compressed, byte for byte the published content
    for cached, published in [("a9a.xz", "a9a"), ("a9a.t.xz", "a9a.t")]:
        content = lzma.decompress((home / "sk_adaprox" / cached).read_bytes())
        assert content == (folder / published).read_bytes()
    assert sorted(p.name for p in (home / "sk_adaprox").iterdir()) == sorted(
        SK_ADAPROX_FILES
    )
    # a second call reads the copy: the server is not needed any more
    for name in ("a9a", "a9a.t", "electricity.zip"):
        (folder / name).unlink()
    assert fetch_a9a(data_home=home).data.shape == (32_561, 123)


def test_failed_downloads_leave_nothing_behind(shared_data, server, monkeypatch):
    folder, base_url = server
    publish(shared_data, folder, base_url, monkeypatch)
    home = Path(folder.parent / "home")
    cached = home / "sk_adaprox"
    published = (folder / "a9a").read_bytes()
    (folder / "a9a").unlink()
    with pytest.raises(OSError, match=r"Could not download .*/a9a: HTTP Error 404"):
        fetch_a9a(data_home=home, n_retries=1, delay=0)
    assert list(cached.iterdir()) == []
    # a file that is not the published one is refused before it is kept
    (folder / "a9a").write_text("-1 3:1 11:1\n+1 5:1\n")
    with pytest.raises(OSError, match="holds 2 rows, not 32561"):
        fetch_a9a(data_home=home, n_retries=0)
    lines = published.decode().splitlines(keepends=True)
    cut = "".join(lines[:-1]) + lines[-1][:20] + "\n"  # its last row cut short
    (folder / "a9a").write_text(cut)
    with pytest.raises(OSError, match="a row cut short"):
        fetch_a9a(data_home=home, n_retries=0)
    assert list(cached.iterdir()) == []
    # a dropped connection: half of the announced bytes
    (folder / "a9a.short").write_bytes(published)
    train = replace(_fetchers._A9A["train"], url=base_url + "a9a.short")
    monkeypatch.setitem(_fetchers._A9A, "train", train)
    with pytest.raises(OSError, match="the transfer ended after"):
        fetch_a9a(data_home=home, n_retries=2, delay=0)
    assert list(cached.iterdir()) == []
    # damaged archives, or one without the expected member
    (folder / "electricity.zip").write_bytes(b"not a zip file")
    with pytest.raises(OSError, match="archive is damaged"):
        fetch_elec2(data_home=home, n_retries=0)
    with zipfile.ZipFile(folder / "electricity.zip", "w") as archive:
        archive.writestr("other.csv", "a,b\n")
    with pytest.raises(OSError, match="has no file 'electricity.csv'"):
        fetch_elec2(data_home=home, n_retries=0)
    assert list(cached.iterdir()) == []
    # once the server has the published file again, the fetch succeeds
    (folder / "a9a").write_bytes(published)
    monkeypatch.setitem(_fetchers._A9A, "train", replace(train, url=base_url + "a9a"))
    assert fetch_a9a(data_home=home, n_retries=0).data.shape == (32_561, 123)
    assert [p.name for p in cached.iterdir()] == ["a9a.xz"]


def test_a_damaged_copy_in_the_data_home_is_named(local_home, tmp_path):
    home = tmp_path / "home"
    (home / "sk_adaprox").mkdir(parents=True)
    damaged = home / "sk_adaprox" / "a9a.xz"
    damaged.write_bytes(lzma.compress(b"-1 3:1 11:1\n"))
    with pytest.raises(OSError, match=r"a9a.xz holds 1 rows.*Delete it and fetch"):
        fetch_a9a(data_home=home)
    # numpy integers are integers
    assert fetch_a9a(data_home=local_home, n_retries=np.int64(0)).data.shape[0] > 0
