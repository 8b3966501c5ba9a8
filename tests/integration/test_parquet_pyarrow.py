"""Independent-reader checks of CQLite's Parquet writer.

`parquet_write_sample` (src/parquet/tools) writes sample files with known
contents; pyarrow (and DuckDB when installed) read them here. Every expected
value below is written out by hand from the sample's definition, not produced
by CQLite.
"""
import datetime
import decimal
import math
import os
import pathlib
import struct
import subprocess
import uuid

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

REPO = pathlib.Path(__file__).resolve().parents[2]
UTC = datetime.timezone.utc
D = decimal.Decimal


def sample_binary() -> pathlib.Path:
    explicit = os.environ.get("CQLITE_PARQUET_SAMPLE_BIN")
    if explicit:
        return pathlib.Path(explicit)
    return REPO / "build" / "src" / "parquet" / "parquet_write_sample"


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    binary = sample_binary()
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build the project first")
    out = tmp_path_factory.mktemp("parquet-samples")
    subprocess.run([str(binary), str(out)], check=True, capture_output=True, timeout=300)
    return out


ALL_TYPES_FILES = ["all_types_snappy", "all_types_zstd", "all_types_plain"]
UUID0 = uuid.UUID(bytes=bytes(range(16)))
UUID1 = uuid.UUID(bytes=b"\xff" * 16)

# (name, field id, arrow type, values of the 4 rows)
ALL_TYPES = [
    ("b", 1, pa.bool_(), [True, False, None, True]),
    ("i32", 2, pa.int32(), [1, -2147483648, 2147483647, 0]),
    ("i64", 3, pa.int64(), [-5000000000, 9223372036854775807, None, 0]),
    ("f", 4, pa.float32(), [1.5, math.nan, None, -0.0]),
    ("d", 5, pa.float64(), [-2.25, math.inf, None, 0.0]),
    ("s", 6, pa.string(), ["hello", "é", None, ""]),
    ("bin", 7, pa.binary(), [b"\x00\x01", b"", None, b"\xff"]),
    ("fixed", 8, pa.binary(3), [b"abc", b"xyz", None, b"\x00\x00\x00"]),
    ("uuid", 9, None, [UUID0, UUID1, None, UUID0]),
    ("dec", 10, pa.decimal128(38, 2), [D("123.45"), D("-0.01"), None, D("100000000000000000000000000000000000.00")]),
    ("dec64", 11, pa.decimal128(18, 3), [D("-1.500"), D("0.000"), None, D("999999999999999.999")]),
    ("date", 12, pa.date32(), [datetime.date(2022, 1, 8), datetime.date(1970, 1, 1), None, datetime.date(1, 1, 1)]),
    ("time", 13, pa.time64("us"), [datetime.time(1), datetime.time(0), None, datetime.time(23, 59, 59, 999999)]),
    ("ts", 14, pa.timestamp("us", tz="UTC"),
     [datetime.datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC), datetime.datetime(1970, 1, 1, tzinfo=UTC), None,
      datetime.datetime(1, 1, 1, tzinfo=UTC)]),
    ("ts_local", 15, pa.timestamp("us"),
     [datetime.datetime(2023, 11, 14, 22, 13, 20), datetime.datetime(1969, 12, 31, 23, 59, 59, 999999), None,
      datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)]),
    ("i8", 16, pa.int8(), [-128, 127, None, 0]),
    ("u16", 17, pa.uint16(), [65535, 0, None, 1]),
]

# name -> (min, max, null count); NaN is not part of float statistics, a zero
# minimum is -0.0 and byte strings compare unsigned.
ALL_TYPES_STATS = {
    "b": (False, True, 1),
    "i32": (-2147483648, 2147483647, 0),
    "i64": (-5000000000, 9223372036854775807, 1),
    "f": (-0.0, 1.5, 1),
    "d": (-2.25, math.inf, 1),
    "s": ("", "é", 1),
    "bin": (b"", b"\xff", 1),
    "fixed": (b"\x00\x00\x00", b"xyz", 1),
    "uuid": (bytes(range(16)), b"\xff" * 16, 1),
    "dec": (D("-0.01"), D("100000000000000000000000000000000000.00"), 1),
    "dec64": (D("-1.500"), D("999999999999999.999"), 1),
    "date": (datetime.date(1, 1, 1), datetime.date(2022, 1, 8), 1),
    "time": (datetime.time(0), datetime.time(23, 59, 59, 999999), 1),
    "ts": (datetime.datetime(1, 1, 1, tzinfo=UTC), datetime.datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC), 1),
    "ts_local": (datetime.datetime(1969, 12, 31, 23, 59, 59, 999999),
                 datetime.datetime(9999, 12, 31, 23, 59, 59, 999999), 1),
    "i8": (-128, 127, 1),
    "u16": (0, 65535, 1),
}


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b and type(a) is type(b) or (a is None and b is None)


def field_id(field):
    return int(field.metadata[b"PARQUET:field_id"])


def read_metrics(path):
    rows = {}
    for line in path.read_text().splitlines():
        name, fid, count, nulls, nans, lower, upper = line.split("\t")
        rows[name] = (int(fid), int(count), int(nulls), int(nans),
                      None if lower == "-" else bytes.fromhex(lower), None if upper == "-" else bytes.fromhex(upper))
    return rows


@pytest.mark.parametrize("name", ALL_TYPES_FILES)
def test_all_types_values_and_schema(samples, name):
    table = pq.read_table(samples / f"{name}.parquet")
    assert table.num_rows == 4
    assert table.schema.names == [c[0] for c in ALL_TYPES]
    for column, fid, arrow_type, expected in ALL_TYPES:
        field = table.schema.field(column)
        assert field_id(field) == fid, column
        if arrow_type is not None:
            assert field.type == arrow_type, column
        assert field.nullable == (column != "i32"), column
        got = table.column(column).to_pylist()
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert same(g, e), f"{column}: {g!r} != {e!r}"
    assert table.schema.metadata[b"cqlite.sample"] == name.encode()


@pytest.mark.parametrize("name", ALL_TYPES_FILES)
def test_all_types_statistics_and_encodings(samples, name):
    metadata = pq.ParquetFile(samples / f"{name}.parquet").metadata
    assert metadata.created_by.startswith("cqlite")
    assert metadata.num_row_groups == 1
    group = metadata.row_group(0)
    codec = {"all_types_snappy": "SNAPPY", "all_types_zstd": "ZSTD", "all_types_plain": "UNCOMPRESSED"}[name]
    for i in range(group.num_columns):
        chunk = group.column(i)
        column = chunk.path_in_schema
        assert chunk.compression == codec
        assert chunk.num_values == 4
        stats = chunk.statistics
        want_min, want_max, want_nulls = ALL_TYPES_STATS[column]
        assert stats.has_min_max, column
        assert same(stats.min, want_min), f"{column} min {stats.min!r} != {want_min!r}"
        assert same(stats.max, want_max), f"{column} max {stats.max!r} != {want_max!r}"
        assert stats.null_count == want_nulls, column
        dictionary = name != "all_types_plain" and column != "b"
        assert chunk.has_dictionary_page == dictionary, column
        assert ("RLE_DICTIONARY" in chunk.encodings) == dictionary, column


def test_all_types_metrics_for_iceberg(samples):
    metrics = read_metrics(samples / "all_types_snappy.metrics.tsv")
    assert metrics["i32"] == (2, 4, 0, 0, struct.pack("<i", -2147483648), struct.pack("<i", 2147483647))
    assert metrics["i64"] == (3, 4, 1, 0, struct.pack("<q", -5000000000), struct.pack("<q", 2**63 - 1))
    assert metrics["f"] == (4, 4, 1, 1, struct.pack("<f", -0.0), struct.pack("<f", 1.5))
    assert metrics["d"] == (5, 4, 1, 0, struct.pack("<d", -2.25), struct.pack("<d", math.inf))
    assert metrics["s"] == (6, 4, 1, 0, b"", "é".encode())
    assert metrics["uuid"] == (9, 4, 1, 0, bytes(range(16)), b"\xff" * 16)
    assert metrics["date"] == (12, 4, 1, 0, struct.pack("<i", -719162), struct.pack("<i", 19000))
    assert metrics["b"] == (1, 4, 1, 0, b"\x00", b"\x01")


NESTED_ROWS = [
    {"id": 1, "tags": ["a", None, "b"], "matrix": [[1, 2], [], None, [None]], "attrs": [("x", 1), ("y", None)],
     "point": {"x": 1.0, "y": 2.0, "labels": ["p"]},
     "people": [{"name": "ann", "phones": [("home", ["1", None]), ("work", None)]}, None]},
    {"id": 2, "tags": [], "matrix": [], "attrs": [], "point": {"x": -1.0, "y": None, "labels": []}, "people": []},
    {"id": 3, "tags": None, "matrix": None, "attrs": None, "point": None, "people": None},
    {"id": 4, "tags": [None], "matrix": [[None, 7]], "attrs": [("z", -5)],
     "point": {"x": 0.5, "y": None, "labels": None},
     "people": [{"name": "bob", "phones": None}, {"name": "cy", "phones": []}]},
]


def test_nested_values(samples):
    table = pq.read_table(samples / "nested.parquet")
    assert table.to_pylist() == NESTED_ROWS


def test_nested_schema_and_field_ids(samples):
    schema = pq.read_schema(samples / "nested.parquet")
    assert schema.field("id").type == pa.int32() and not schema.field("id").nullable
    tags = schema.field("tags")
    assert field_id(tags) == 2 and pa.types.is_list(tags.type)
    assert field_id(tags.type.value_field) == 3 and tags.type.value_type == pa.string()
    matrix = schema.field("matrix")
    assert field_id(matrix) == 4
    assert field_id(matrix.type.value_field) == 5
    assert field_id(matrix.type.value_type.value_field) == 6
    attrs = schema.field("attrs")
    assert pa.types.is_map(attrs.type) and field_id(attrs) == 7
    assert field_id(attrs.type.key_field) == 8 and field_id(attrs.type.item_field) == 9
    assert attrs.type.key_type == pa.string() and attrs.type.item_type == pa.int64()
    point = schema.field("point")
    assert pa.types.is_struct(point.type) and field_id(point) == 10
    assert [field_id(point.type.field(i)) for i in range(3)] == [11, 12, 13]
    assert not point.type.field("x").nullable and point.type.field("y").nullable
    labels = point.type.field("labels")
    assert field_id(labels.type.value_field) == 14 and not labels.type.value_field.nullable
    people = schema.field("people")
    assert field_id(people) == 15
    person = people.type.value_field
    assert field_id(person) == 16
    assert field_id(person.type.field("name")) == 17
    phones = person.type.field("phones")
    assert field_id(phones) == 18
    assert field_id(phones.type.key_field) == 19 and field_id(phones.type.item_field) == 20
    assert field_id(phones.type.item_type.value_field) == 21
    # The physical shape is the standard 3-level one.
    parquet_schema = pq.ParquetFile(samples / "nested.parquet").schema
    paths = [parquet_schema.column(i).path for i in range(len(parquet_schema))]
    assert paths == [
        "id", "tags.list.element", "matrix.list.element.list.element", "attrs.key_value.key",
        "attrs.key_value.value", "point.x", "point.y", "point.labels.list.element", "people.list.element.name",
        "people.list.element.phones.key_value.key", "people.list.element.phones.key_value.value.list.element",
    ]


def test_nested_statistics_and_metrics(samples):
    group = pq.ParquetFile(samples / "nested.parquet").metadata.row_group(0)
    by_path = {group.column(i).path_in_schema: group.column(i) for i in range(group.num_columns)}
    # Levels per leaf and nulls among them (null or empty ancestors count as nulls).
    expected = {
        "tags.list.element": (6, 4, "a", "b"),
        "matrix.list.element.list.element": (9, 6, 1, 7),
        "attrs.key_value.value": (5, 3, -5, 1),
        "point.labels.list.element": (4, 3, "p", "p"),
        "people.list.element.phones.key_value.key": (7, 5, "home", "work"),
    }
    metrics = read_metrics(samples / "nested.metrics.tsv")
    for path, (values, nulls, lo, hi) in expected.items():
        chunk = by_path[path]
        assert chunk.num_values == values, path
        assert chunk.statistics.null_count == nulls, path
        assert chunk.statistics.min == lo and chunk.statistics.max == hi, path
        assert metrics[path][1:3] == (values, nulls), path


def multi_expected(i):
    return {"n": i, "s": None if i % 7 == 0 else f"v{i % 2000}",
            "xs": None if i % 10 == 9 else [i + k for k in range(i % 3)]}


def test_multi_page_multi_row_group(samples):
    pf = pq.ParquetFile(samples / "multi.parquet")
    metadata = pf.metadata
    assert metadata.num_rows == 30000
    assert metadata.num_row_groups == 3
    for g in range(3):
        group = metadata.row_group(g)
        assert group.num_rows == 10000
        n = group.column(0).statistics
        assert (n.min, n.max, n.null_count) == (g * 10000, g * 10000 + 9999, 0)
        s = group.column(1)
        assert s.compression == "ZSTD"
        # The dictionary outgrows its 4 KiB limit: dictionary pages first, then PLAIN.
        assert s.has_dictionary_page
        assert "RLE_DICTIONARY" in s.encodings and "PLAIN" in s.encodings
        assert s.statistics.null_count == sum(1 for i in range(g * 10000, (g + 1) * 10000) if i % 7 == 0)
    # Many pages: the column chunk is far bigger than one 8 KiB page.
    assert metadata.row_group(0).column(0).total_uncompressed_size > 8 * 8192
    rows = pf.read().to_pylist()
    assert len(rows) == 30000
    for i in (0, 1, 2, 9, 6999, 7000, 9999, 10000, 10001, 19999, 29999):
        assert rows[i] == multi_expected(i), i
    assert rows == [multi_expected(i) for i in range(30000)]


def test_duckdb_reads_the_samples(samples):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    nested = con.execute(
        "SELECT id, tags, matrix, attrs, point, people FROM read_parquet(?) ORDER BY id",
        [str(samples / "nested.parquet")]).fetchall()
    assert nested == [
        (1, ["a", None, "b"], [[1, 2], [], None, [None]], {"x": 1, "y": None}, {"x": 1.0, "y": 2.0, "labels": ["p"]},
         [{"name": "ann", "phones": {"home": ["1", None], "work": None}}, None]),
        (2, [], [], {}, {"x": -1.0, "y": None, "labels": []}, []),
        (3, None, None, None, None, None),
        (4, [None], [[None, 7]], {"z": -5}, {"x": 0.5, "y": None, "labels": None},
         [{"name": "bob", "phones": None}, {"name": "cy", "phones": {}}]),
    ]
    ids = con.execute("SELECT name, field_id FROM parquet_schema(?) WHERE field_id IS NOT NULL",
                      [str(samples / "nested.parquet")]).fetchall()
    assert [fid for _, fid in ids] == list(range(1, 22))
    for name in ALL_TYPES_FILES:
        rows = con.execute(
            "SELECT b, i32, i64, s, bin, dec, dec64, date, epoch_us(ts), i8, u16 FROM read_parquet(?)",
            [str(samples / f"{name}.parquet")]).fetchall()
        assert rows == [
            (True, 1, -5000000000, "hello", b"\x00\x01", D("123.45"), D("-1.500"), datetime.date(2022, 1, 8),
             1700000000000000, -128, 65535),
            (False, -2147483648, 9223372036854775807, "é", b"", D("-0.01"), D("0.000"), datetime.date(1970, 1, 1),
             0, 127, 0),
            (None, 2147483647, None, None, None, None, None, None, None, None, None),
            (True, 0, 0, "", b"\xff", D("100000000000000000000000000000000000.00"), D("999999999999999.999"),
             datetime.date(1, 1, 1), -62135596800000000, 0, 1),
        ], name
        types = con.execute("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(?))",
                            [str(samples / f"{name}.parquet")]).fetchall()
        assert types == [
            ("b", "BOOLEAN"), ("i32", "INTEGER"), ("i64", "BIGINT"), ("f", "FLOAT"), ("d", "DOUBLE"),
            ("s", "VARCHAR"), ("bin", "BLOB"), ("fixed", "BLOB"), ("uuid", "UUID"), ("dec", "DECIMAL(38,2)"),
            ("dec64", "DECIMAL(18,3)"), ("date", "DATE"), ("time", "TIME"), ("ts", "TIMESTAMP WITH TIME ZONE"),
            ("ts_local", "TIMESTAMP"), ("i8", "TINYINT"), ("u16", "USMALLINT"),
        ], name
        rest = con.execute("SELECT f, d, fixed, uuid, time, epoch_us(ts_local) FROM read_parquet(?)",
                           [str(samples / f"{name}.parquet")]).fetchall()
        expected = [
            (1.5, -2.25, b"abc", UUID0, datetime.time(1), 1700000000000000),
            (math.nan, math.inf, b"xyz", UUID1, datetime.time(0), -1),
            (None,) * 6,
            (-0.0, 0.0, b"\x00\x00\x00", UUID0, datetime.time(23, 59, 59, 999999), 253402300799999999),
        ]
        for got_row, want_row in zip(rest, expected, strict=True):
            for g, e in zip(got_row, want_row, strict=True):
                assert same(g, e), f"{name}: {g!r} != {e!r}"
    multi = con.execute("SELECT count(*), sum(n), count(s), sum(len(xs)) FROM read_parquet(?)",
                        [str(samples / "multi.parquet")]).fetchone()
    assert multi == (30000, sum(range(30000)), 30000 - len(range(0, 30000, 7)),
                     sum(i % 3 for i in range(30000) if i % 10 != 9))


def delta_expected(k):
    if k == 0:
        n = -(2 ** 63)
    elif k == 1:
        n = 2 ** 63 - 1
    else:
        n = (1 if k % 2 else -1) * k * k
    if k % 5 == 0:
        i = None
    elif k % 7 == 3:
        i = -(2 ** 31)
    elif k % 7 == 4:
        i = 2 ** 31 - 1
    else:
        i = k * 1000 - 2000000
    s = None if k % 9 == 0 else f"sensor-{100000 + k // 3:07d}/{k % 4}"
    return {"n": n, "i": i, "s": s, "raw": bytes([k % 256]) * (k % 17)}


def test_delta_encodings(samples):
    """DELTA_BINARY_PACKED, DELTA_BYTE_ARRAY and DELTA_LENGTH_BYTE_ARRAY pages, as pyarrow and DuckDB read them."""
    pf = pq.ParquetFile(samples / "delta.parquet")
    metadata = pf.metadata
    assert (metadata.num_rows, metadata.num_row_groups) == (5000, 3)
    want = {"n": "DELTA_BINARY_PACKED", "i": "DELTA_BINARY_PACKED", "s": "DELTA_BYTE_ARRAY",
            "raw": "DELTA_LENGTH_BYTE_ARRAY"}
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for c in range(group.num_columns):
            column = group.column(c)
            assert want[column.path_in_schema] in column.encodings, (g, column.path_in_schema, column.encodings)
            assert not column.has_dictionary_page
            assert "RLE_DICTIONARY" not in column.encodings
    # Pages of 4 KiB of PLAIN values: several per chunk, so that each DELTA
    # stream begins again mid-column (writer_test checks the page counts).
    expected = [delta_expected(k) for k in range(5000)]
    assert pf.read().to_pylist() == expected
    s = metadata.row_group(1).column(2).statistics
    strings = [e["s"] for e in expected[2000:4000] if e["s"] is not None]
    assert (s.min, s.max, s.null_count) == (min(strings), max(strings), sum(e["s"] is None for e in expected[2000:4000]))
    duckdb = pytest.importorskip("duckdb")
    rows = duckdb.connect().execute("SELECT n, i, s, raw FROM read_parquet(?)",
                                    [str(samples / "delta.parquet")]).fetchall()
    assert rows == [(e["n"], e["i"], e["s"], e["raw"]) for e in expected]


SAMPLE_FILES = ALL_TYPES_FILES + ["nested", "multi", "delta"]


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_page_checksums_are_what_pyarrow_computes(samples, name, tmp_path):
    """Every page carries the CRC-32 of its bytes: pyarrow, checking them, reads the file, and
    refuses it once a byte of a page's data is changed."""
    path = samples / f"{name}.parquet"
    checked = pq.ParquetFile(path, page_checksum_verification=True).read()
    plain = pq.ParquetFile(path).read()
    # repr, not ==: NaN values are equal in it.
    assert (checked.num_rows, repr(checked.to_pylist())) == (plain.num_rows, repr(plain.to_pylist()))
    data = bytearray(path.read_bytes())
    first = pq.ParquetFile(path).metadata.row_group(0).column(0)
    start = first.dictionary_page_offset or first.data_page_offset
    # The last byte of the chunk's first page: past its header, inside its compressed bytes.
    data[start + first.total_compressed_size - 1] ^= 0x01 if first.total_compressed_size < 64 else 0
    # For bigger chunks, a byte in the middle of the chunk.
    if first.total_compressed_size >= 64:
        data[start + first.total_compressed_size // 2] ^= 0x01
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(data))
    with pytest.raises(OSError, match="(?i)crc|checksum"):
        pq.ParquetFile(bad, page_checksum_verification=True).read()
