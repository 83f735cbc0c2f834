"""HashingEncoder: the documented hash (against a literal implementation on
scikit-learn's MurmurHash3), every input type, missing values, crosses, the
output's format, bad input, and use before the estimators."""

import hashlib
import pickle
import struct

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from new_process import run_python
from reference_hashing import murmur, reference_transform
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils import murmurhash3_32

from sk_adaprox import FTRLClassifier, HashingEncoder, explain_hashed_weights
from sk_adaprox._column_keys import hash_bytes
from sk_adaprox._kernels import hashing as hashing_kernels
from sk_adaprox._kernels.hashing import murmur3_int64
from sk_adaprox.datasets import make_click_log

# pyarrow and polars are optional: their tables are tested where installed.
try:
    import pyarrow as pa
except ImportError:
    pa = None
try:
    import polars as pl
except ImportError:
    pl = None
needs_arrow = pytest.mark.skipif(pa is None, reason="pyarrow is not installed")

# A small table of every kind of value, with missing ones: as Python lists.
COLUMNS = {
    "site": ["a", "b", None, "a", "é✓", "", "b", "c"],
    "device": [1, 2, 2, -(2**40), 0, 7, 7, 1],
    "price": [0.5, float("nan"), 3.0, -2.25, 0.0, 1e9, 7.0, 0.5],
    "flag": [True, False, True, True, False, False, True, False],
}
NAMES = list(COLUMNS)
SMALL = [1, 2, 2, -3, 0, 7, 7, 1]  # devices for the narrow integer types
ROWS = [list(row) for row in zip(*COLUMNS.values(), strict=True)]


def pandas_frame():
    return pd.DataFrame(
        {
            "site": pd.array(COLUMNS["site"], dtype=object),
            "device": np.array(COLUMNS["device"], dtype=np.int64),
            "price": np.array(COLUMNS["price"]),
            "flag": np.array(COLUMNS["flag"]),
        }
    )


def assert_same_matrix(actual, expected):
    assert actual.shape == expected.shape
    difference = actual - expected
    assert difference.nnz == 0 or np.abs(difference.data).max() < 1e-9
    assert actual.has_canonical_format


# ------------------------------------------------------------------ the hash
@pytest.mark.parametrize("seed", [0, 1, 2**31 + 7, 2**32 - 1])
def test_murmur_of_bytes_is_sklearns(seed):
    rng = np.random.default_rng(seed % 1000)
    for length in list(range(0, 20)) + [63, 64, 1000]:
        payload = rng.integers(0, 256, length, dtype=np.uint8).tobytes()
        assert hash_bytes(payload, seed) == murmurhash3_32(
            payload, seed=seed, positive=True
        )


@pytest.mark.parametrize("seed", [0, 123456789, 2**32 - 1])
def test_murmur_of_int64_is_sklearns_on_its_8_bytes(seed):
    rng = np.random.default_rng(seed % 1000)
    values = [0, 1, -1, 2**63 - 1, -(2**63), *rng.integers(-(2**62), 2**62, 200)]
    for value in values:
        expected = murmurhash3_32(struct.pack("<q", int(value)), seed, positive=True)
        assert murmur3_int64(np.int64(value), seed) == expected


def test_the_docstring_example_is_the_documented_hash():
    X = pd.DataFrame({"site": ["a", "b", "a"], "device": [1, 2, 2]})
    column = murmur(b"site", 0)
    assert HashingEncoder(n_features=2**10).transform(X)[0, murmur(b"a", column) % 1024]


@pytest.mark.parametrize(
    "parameters",
    [
        {},
        {"n_features": 1000},  # not a power of two
        {"n_features": 7, "alternate_sign": True},  # collisions cancel
        {"missing": "hash", "seed": 2**32 - 1},
        {"column_weights": {"site": 2.0, "price": -0.5}},
        {"numeric": "log2", "missing": "hash"},
        {"numeric": [0.0, 1.0, 10.0]},
        {"numeric": {"price": [0.0, 5.0]}, "numeric_columns": ["price", "device"]},
        {"numeric_columns": []},  # floats as categories: 3.0 hashes as 3
    ],
)
def test_columns_are_the_literal_implementations(parameters):
    encoder = HashingEncoder(**{"n_features": 2**16, **parameters})
    numeric_columns = parameters.get("numeric_columns", ["price"])
    numeric = parameters.get("numeric", "value")
    modes = {
        name: numeric.get(name, "value") if isinstance(numeric, dict) else numeric
        for name in numeric_columns
    }
    expected = reference_transform(
        ROWS,
        NAMES,
        n_features=encoder.n_features,
        numeric=modes,
        missing=encoder.missing,
        column_weights=encoder.column_weights,
        alternate_sign=encoder.alternate_sign,
        seed=encoder.seed,
    )
    assert_same_matrix(encoder.transform(pandas_frame()), expected)


@pytest.mark.parametrize("missing", ["skip", "hash"])
def test_crosses_are_the_literal_implementations(missing):
    crosses = [("site", "device"), ("device", "site", "flag"), ("price", "flag")]
    encoder = HashingEncoder(n_features=2**18, crosses=crosses, missing=missing)
    expected = reference_transform(
        ROWS,
        NAMES,
        n_features=2**18,
        numeric={"price": "value"},
        crosses=crosses,
        missing=missing,
    )
    assert_same_matrix(encoder.transform(pandas_frame()), expected)


def test_a_cross_is_order_sensitive_and_differs_from_its_parts():
    X = pandas_frame()
    ab = HashingEncoder(crosses=[("site", "device")]).transform(X)
    ba = HashingEncoder(crosses=[("device", "site")]).transform(X)
    plain = HashingEncoder().transform(X)
    assert (ab != ba).nnz > 0
    assert ((ab - plain) != 0).sum() == 7  # one cross per row with a site


def test_groups_expand_to_every_pair_of_distinct_columns():
    X = pandas_frame()
    grouped = HashingEncoder(crosses=[(["site", "device"], ["device", "flag"])])
    listed = HashingEncoder(
        crosses=[("site", "device"), ("site", "flag"), ("device", "flag")]
    )
    assert_same_matrix(grouped.transform(X), listed.transform(X))
    group = ["site", "device", "flag"]
    itself = HashingEncoder(crosses=[(group, group)])
    assert_same_matrix(itself.transform(X), listed.transform(X))


# ---------------------------------------------------------------- input types
def _tables():
    """The table of COLUMNS as every library and type that holds it here."""
    frame = pandas_frame()
    tables = {
        "pandas object": frame,
        "pandas str python": frame.astype({"site": "string[python]"}),
        "pandas category": frame.astype({"site": "category", "device": "category"}),
        "pandas nullable": frame.astype(
            {"device": "Int64", "flag": "boolean", "price": "Float64"}
        ),
        "pandas int32": frame.assign(device=np.array(SMALL, dtype=np.int32)),
        "pandas float32": frame.assign(price=frame["price"].astype(np.float32)),
        "pandas bytes": frame.assign(
            site=[None if s is None else s.encode() for s in COLUMNS["site"]]
        ),
    }
    if pa is not None:
        tables.update(_arrow_tables(frame))
    return tables


def _arrow_tables(frame):
    arrow = pa.table(
        {
            "site": pa.array(COLUMNS["site"], pa.string()),
            "device": pa.array(COLUMNS["device"], pa.int64()),
            "price": pa.array(COLUMNS["price"], pa.float64()),
            "flag": pa.array(COLUMNS["flag"], pa.bool_()),
        }
    )
    tables = {
        "pandas str pyarrow": frame.astype({"site": "string[pyarrow]"}),
        "pandas arrow dtypes": frame.astype(
            {"device": "int64[pyarrow]", "site": pd.ArrowDtype(pa.large_string())}
        ),
        "arrow": arrow,
        "arrow chunked": pa.Table.from_batches(arrow.to_batches(max_chunksize=3)),
        "arrow large_string": arrow.set_column(
            0, "site", arrow["site"].cast(pa.large_string())
        ),
        "arrow string_view": arrow.set_column(
            0, "site", arrow["site"].cast(pa.string_view())
        ),
        "arrow dictionary": arrow.set_column(
            0, "site", arrow["site"].dictionary_encode()
        ),
        "arrow int8": arrow.set_column(1, "device", pa.array(SMALL, pa.int8())),
    }
    if pl is not None:
        tables["polars"] = pl.from_arrow(arrow)
        tables["polars categorical"] = pl.from_arrow(arrow).with_columns(
            pl.col("site").cast(pl.Categorical)
        )
    return tables


@pytest.mark.parametrize("kind", sorted(_tables()))
def test_every_table_type_gives_the_literal_implementations_matrix(kind):
    table = _tables()[kind]
    rows = ROWS
    if kind in ("arrow int8", "pandas int32"):
        rows = [[r[0], small, *r[2:]] for r, small in zip(ROWS, SMALL, strict=True)]
    if kind == "pandas float32":  # the floats are float32's
        rows = [[*r[:2], float(np.float32(r[2])), r[3]] for r in ROWS]
    expected = reference_transform(
        rows, NAMES, n_features=2**16, numeric={"price": "value"}
    )
    actual = HashingEncoder(n_features=2**16).transform(table)
    assert_same_matrix(actual, expected)
    categorical = HashingEncoder(n_features=2**16, numeric_columns=[])
    expected = reference_transform(rows, NAMES, n_features=2**16)
    assert_same_matrix(categorical.transform(table), expected)


def test_each_column_kernel_compiles_once_whatever_the_buffers():
    # Inputs reach the kernels read-only, contiguous and of one dtype each.
    for table in _tables().values():
        HashingEncoder(numeric_columns=[]).transform(table)
    for kernel in (
        "hash_utf8_rows",
        "hash_int_rows",
        "hash_float_rows",
        "gather_codes",
    ):
        assert len(getattr(hashing_kernels, kernel).signatures) == 1, kernel


@pytest.mark.parametrize(
    "array",
    [
        np.array([["a", "x"], ["b", "y"], ["a", "y"]]),  # unicode
        np.array([["a", "x"], ["b", "y"], ["a", "y"]], dtype=object),
        np.array([[b"a", b"x"], [b"b", b"y"], [b"a", b"y"]]),  # bytes
    ],
)
def test_string_arrays_name_their_columns_x0_x1(array):
    rows = [["a", "x"], ["b", "y"], ["a", "y"]]
    expected = reference_transform(rows, ["x0", "x1"], n_features=2**12)
    assert_same_matrix(HashingEncoder(n_features=2**12).transform(array), expected)


def test_an_object_column_of_mixed_types_hashes_each_by_its_own_layout():
    values = ["a", 1, 2.0, 2.5, True, None, b"a", np.int16(-7), float("nan"), "a"]
    array = np.array(values, dtype=object).reshape(-1, 1)
    expected = reference_transform([[v] for v in values], ["x0"], n_features=2**12)
    assert_same_matrix(HashingEncoder(n_features=2**12).transform(array), expected)
    # True is the integer 1: the same column
    Xt = HashingEncoder(n_features=2**12).transform(array)
    assert Xt[1].indices.tolist() == Xt[4].indices.tolist()


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.bool_])
def test_integer_arrays_hash_their_int64_values(dtype):
    array = np.array([[1, 0], [0, 1], [1, 1]], dtype=dtype)
    rows = array.astype(np.int64).tolist()
    expected = reference_transform(rows, ["x0", "x1"], n_features=2**12)
    assert_same_matrix(HashingEncoder(n_features=2**12).transform(array), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_arrays_are_values_by_default(dtype):
    array = np.array([[1.5, 0.0], [np.nan, 2.0]], dtype=dtype)
    Xt = HashingEncoder(n_features=2**12).transform(array)
    seeds = [murmur(b"x0", 0) % 2**12, murmur(b"x1", 0) % 2**12]
    assert Xt[0, seeds[0]] == 1.5 and Xt[1, seeds[1]] == 2.0
    assert Xt.nnz == 2  # a zero and a NaN add nothing


def test_dates_hash_as_their_int64_counts():
    days = np.array(["2024-01-01", "NaT", "2024-03-01"], dtype="datetime64[D]")
    X = pd.DataFrame({"day": days.astype("datetime64[s]")})
    counts = days.astype("datetime64[s]").astype(np.int64).tolist()
    rows = [[counts[0]], [None], [counts[2]]]
    expected = reference_transform(rows, ["day"], n_features=2**12)
    assert_same_matrix(HashingEncoder(n_features=2**12).transform(X), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_output_dtype_and_int32_indices(dtype):
    Xt = HashingEncoder(dtype=dtype).transform(pandas_frame())
    assert isinstance(Xt, sp.csr_matrix) and Xt.dtype == dtype
    assert Xt.indices.dtype == np.int32 and Xt.indptr.dtype == np.int32
    rebuilt = sp.csr_matrix((Xt.data, Xt.indices, Xt.indptr), shape=Xt.shape)
    assert rebuilt.has_canonical_format  # scipy's own check of the flag we set


def test_more_than_2_to_the_31_columns_take_int64_indices():
    Xt = HashingEncoder(n_features=2**32).transform(pandas_frame())
    assert Xt.indices.dtype == np.int64 and Xt.shape[1] == 2**32
    expected = reference_transform(
        ROWS, NAMES, n_features=2**32, numeric={"price": "value"}
    )
    assert sorted(Xt.indices.tolist()) == sorted(expected.indices.tolist())


# ------------------------------------------------------------ missing, edge cases
def test_missing_values_are_skipped_or_hashed():
    X = pd.DataFrame({"a": ["x", None, np.nan], "b": [1.0, np.nan, 2.0]})
    skipped = HashingEncoder().transform(X)
    assert np.diff(skipped.indptr).tolist() == [2, 0, 1]
    hashed = HashingEncoder(missing="hash").transform(X)
    assert np.diff(hashed.indptr).tolist() == [2, 2, 2]
    missing_a = murmur(b"\xff", murmur(b"a", 0)) % 2**20
    assert hashed[1, missing_a] == 1 and hashed[2, missing_a] == 1


@needs_arrow
def test_a_null_in_an_arrow_dictionary_is_a_missing_value():
    column = pa.DictionaryArray.from_arrays(
        pa.array([0, 1, None, 0], pa.int32()), pa.array(["a", None])
    )
    table = pa.table({"site": column})
    rows = [["a"], [None], [None], ["a"]]
    for missing in ("skip", "hash"):
        encoder = HashingEncoder(n_features=2**12, missing=missing)
        expected = reference_transform(
            rows, ["site"], n_features=2**12, missing=missing
        )
        assert_same_matrix(encoder.transform(table), expected)


def test_a_column_of_unique_values():
    values = [f"user{i}" for i in range(5000)]
    Xt = HashingEncoder(n_features=2**24).transform(pd.DataFrame({"id": values}))
    seed = murmur(b"id", 0)
    expected = [murmur(v.encode(), seed) % 2**24 for v in values]
    assert Xt.indices.tolist() == expected
    assert np.all(Xt.data == 1.0)


@pytest.mark.parametrize("n_features", [2**16, 2**18, 100_003])
def test_the_colliding_fraction_is_the_documented_one(n_features):
    # docs/hashing.md: of k distinct keys, 1 - (1 - 1/n)**(k - 1) share a column.
    k = 50_000
    values = pd.DataFrame({"id": np.arange(k)})
    columns = HashingEncoder(n_features=n_features).transform(values).indices
    counts = np.bincount(columns, minlength=n_features)
    colliding = np.sum(counts[counts > 1]) / k
    expected = 1 - (1 - 1 / n_features) ** (k - 1)
    assert abs(colliding - expected) < 0.01, (colliding, expected)


@pytest.mark.parametrize("library", ["pandas", "pyarrow"])
def test_an_empty_frame_gives_an_empty_matrix(library):
    if library == "pyarrow":
        pytest.importorskip("pyarrow")
        empty = pa.table(pandas_frame()).slice(0, 0)
    else:
        empty = pandas_frame().iloc[:0]
    Xt = HashingEncoder(crosses=[("site", "device")]).transform(empty)
    assert Xt.shape == (0, 2**20) and Xt.nnz == 0


def test_rows_hashed_in_batches_are_the_rows_hashed_at_once():
    X, _ = make_click_log(3000, random_state=0)
    encoder = HashingEncoder(crosses=[("C1", "C2")], missing="hash")
    batches = [encoder.transform(X.iloc[i : i + 700]) for i in range(0, 3000, 700)]
    assert_same_matrix(sp.vstack(batches).tocsr(), encoder.transform(X))


# ------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "parameters, error, message",
    [
        ({"crosses": [("site", "nope")]}, ValueError, "'nope', which X does not"),
        ({"crosses": [("site", "site")]}, ValueError, "combines a column with itself"),
        ({"crosses": [("site",)]}, ValueError, "2 or 3 column names"),
        ({"numeric_columns": ["nope"]}, ValueError, "numeric_columns names column"),
        ({"column_weights": {"nope": 1.0}}, ValueError, "column_weights names"),
        ({"numeric": {"nope": [1.0]}}, ValueError, "numeric names column 'nope'"),
        ({"numeric": [2.0, 1.0]}, ValueError, "must increase strictly"),
        ({"numeric_columns": ["site"]}, ValueError, "'site' is declared numeric"),
        ({"n_features": 0}, ValueError, "'n_features' parameter"),
        ({"n_features": -5}, ValueError, "'n_features' parameter"),
        ({"n_features": 2**32 + 1}, ValueError, "'n_features' parameter"),
        ({"seed": -1}, ValueError, "'seed' parameter"),
        ({"missing": "drop"}, ValueError, "'missing' parameter"),
        ({"dtype": np.int32}, ValueError, "dtype must be"),
    ],
)
def test_bad_parameters_say_what_is_wrong(parameters, error, message):
    with pytest.raises(error, match=message):
        HashingEncoder(**parameters).transform(pandas_frame())


def test_bad_input_says_what_is_wrong():
    encoder = HashingEncoder()
    with pytest.raises(TypeError, match="sparse matrix"):
        encoder.transform(sp.csr_matrix(np.eye(3)))
    with pytest.raises(ValueError, match="Expected a 2D array"):
        encoder.transform(np.array(["a", "b"]))
    with pytest.raises(TypeError, match="'a' holds values that cannot be hashed"):
        encoder.transform(pd.DataFrame({"a": [{"k": 1}, "x"]}))
    with pytest.raises(ValueError, match="infinite"):
        encoder.transform(pd.DataFrame({"a": [1.0, np.inf]}))
    with pytest.raises(ValueError, match="0 feature"):
        encoder.transform(np.empty((3, 0)))


def test_more_than_65535_entries_per_row_is_an_error():
    X = pd.DataFrame(np.zeros((1, 400), dtype=np.int64)).add_prefix("c")
    group = list(X.columns)
    with pytest.raises(ValueError, match="at most 65535"):
        HashingEncoder(crosses=[(group, group)]).transform(X)


def test_after_fit_the_columns_must_be_fits():
    encoder = HashingEncoder().fit(pandas_frame())
    with pytest.raises(ValueError, match="feature names"):
        encoder.transform(pandas_frame().rename(columns={"site": "place"}))


def test_quantile_bins_are_learnt_by_fit():
    X = pd.DataFrame({"x": np.arange(100.0)})
    encoder = HashingEncoder(numeric="quantile", n_bins=4)
    with pytest.raises(NotFittedError):
        encoder.transform(X)
    encoder.fit(X)
    np.testing.assert_allclose(encoder.bin_edges_["x"], [24.75, 49.5, 74.25])
    expected = reference_transform(
        [[x] for x in range(100)],
        ["x"],
        n_features=2**20,
        numeric={"x": encoder.bin_edges_["x"].tolist()},
    )
    assert_same_matrix(encoder.transform(X), expected)
    assert len(set(encoder.transform(X).indices.tolist())) == 4


def test_feature_names_out():
    names = HashingEncoder(n_features=8).get_feature_names_out()
    assert names.tolist() == [f"hash_{j}" for j in range(8)]


# -------------------------------------------------------- processes and tooling
def _digest(X):
    digest = hashlib.sha256()
    for array in (X.indptr, X.indices, X.data):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


@pytest.mark.slow  # a new interpreter
def test_another_process_hashes_a_batch_into_the_same_columns(tmp_path):
    X, _ = make_click_log(2000, random_state=1)
    encoder = HashingEncoder(crosses=[("C1", "C2", "C3")], missing="hash", seed=7)
    path = tmp_path / "batch.pkl"
    path.write_bytes(pickle.dumps((encoder, X)))
    result = run_python(
        f"""
        import hashlib, pickle
        import numpy as np
        encoder, X = pickle.loads(open({str(path)!r}, "rb").read())
        Xt = encoder.transform(X)
        digest = hashlib.sha256()
        for array in (Xt.indptr, Xt.indices, Xt.data):
            digest.update(np.ascontiguousarray(array).tobytes())
        print(digest.hexdigest())
        """,
        env={"PYTHONHASHSEED": "12345"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == _digest(encoder.transform(X))


def test_partitions_hashed_by_a_plain_function_are_the_frame_hashed():
    # What a Dask DataFrame's partitions get: a pickled copy of the same function.
    X, _ = make_click_log(1000, random_state=0)
    encoder = HashingEncoder(crosses=[("C1", "C4")])
    hash_partition = pickle.loads(pickle.dumps(encoder)).transform
    parts = [hash_partition(X.iloc[i : i + 250]) for i in range(0, 1000, 250)]
    assert_same_matrix(sp.vstack(parts).tocsr(), encoder.transform(X))


def test_pipeline_partial_fit_stream_and_grid_search():
    X, y, pairs = make_click_log(6000, random_state=0, return_interactions=True)
    pipeline = make_pipeline(HashingEncoder(), FTRLClassifier(l1=0.5))
    pipeline.fit(X[:4000], y[:4000])
    assert pipeline.predict_proba(X[4000:]).shape == (2000, 2)

    encoder, stream = HashingEncoder(), FTRLClassifier(l1=0.5)
    for start in range(0, 4000, 1000):  # the encoder needs no fit
        batch = slice(start, start + 1000)
        stream.partial_fit(encoder.transform(X[batch]), y[batch], classes=[0, 1])
    assert stream.coef_.shape == (1, 2**20)

    search = GridSearchCV(
        make_pipeline(HashingEncoder(), FTRLClassifier(l1=0.5)),
        {"hashingencoder__crosses": [None, pairs]},
        scoring="roc_auc",
        cv=3,
    ).fit(X, y)
    assert search.best_params_["hashingencoder__crosses"] == pairs


# ------------------------------------------------------------- explain weights
def test_explain_names_the_values_behind_the_largest_weights():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {
            "site": rng.choice(["a", "b", "c", "d"], 2000),
            "hour": rng.integers(0, 24, 2000),
        }
    )
    y = ((X["site"] == "c") & (X["hour"] == 5)).astype(int).to_numpy()
    encoder = HashingEncoder(n_features=2**18, crosses=[("site", "hour")])
    model = FTRLClassifier(l1=1.0, random_state=0).fit(encoder.transform(X), y)
    top = explain_hashed_weights(encoder, model, X, n_top=3)
    assert top[0].weight == model.coef_[0, top[0].slot] > 0
    assert top[0].sources[0][0] == "site=c & hour=5"
    assert top[0].sources[0][1] == int(y.sum())
    assert abs(top[0].weight) >= abs(top[1].weight) >= abs(top[2].weight)


def test_explain_checks_the_model_matches_the_encoder():
    model = FTRLClassifier().fit(sp.csr_matrix(np.eye(4)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="hashes into"):
        explain_hashed_weights(HashingEncoder(), model, pandas_frame())
    with pytest.raises(TypeError, match="no coef_"):
        explain_hashed_weights(HashingEncoder(), object(), pandas_frame())


def test_fit_fixes_which_columns_are_numbers_for_later_tables():
    import pandas as pd

    from sk_adaprox import HashingEncoder

    ints = pd.DataFrame({"device": [1, 2, 3], "price": [0.5, 1.5, 2.5]})
    with_missing = pd.DataFrame(
        {"device": [1.0, np.nan, 3.0], "price": [0.5, 1.5, 2.5]}
    )
    fitted = HashingEncoder(n_features=2**16).fit(ints)
    assert fitted.numeric_columns_ == ["price"]
    first, later = fitted.transform(ints), fitted.transform(with_missing)
    assert first[0].indices.tolist() == later[0].indices.tolist()
    assert later[1].nnz == first[1].nnz - 1  # the missing device is skipped
    # Without fit, "auto" reads the float column as a number.
    unfitted = HashingEncoder(n_features=2**16).transform(with_missing)
    assert unfitted[0].indices.tolist() != first[0].indices.tolist()
    # Quantile edges are learnt for the columns fit read as numbers, and a
    # later table is binned by them.
    quantiles = HashingEncoder(numeric="quantile", n_bins=2).fit(ints)
    assert list(quantiles.bin_edges_) == ["price"]
    assert quantiles.transform(with_missing).shape == (3, 2**20)


def test_nullable_integers_hash_exactly():
    import pandas as pd

    from sk_adaprox import HashingEncoder

    big = 2**53 + 1
    encoder = HashingEncoder(n_features=2**20)
    nullable = encoder.transform(pd.DataFrame({"id": pd.array([big, None], "Int64")}))
    plain = encoder.transform(pd.DataFrame({"id": np.array([big, 7], np.int64)}))
    assert nullable[0].indices.tolist() == plain[0].indices.tolist()
    assert nullable[1].nnz == 0
