"""Self-checks of the Iceberg readers in iceberg_readers.py.

A v2 table is written with PyIceberg into a SQLite catalog (rows appended from
pyarrow, then some deleted), and every reader must return exactly the rows
written out below, normalized as iceberg_readers documents.
"""
import datetime
import decimal
import shutil
import uuid

import pytest

import iceberg_readers as R

pa = pytest.importorskip("pyarrow")
pytest.importorskip("pyiceberg")

CATALOG = "cqlite"
NS = "ks"
TABLE = "all_types"

UTC = datetime.timezone.utc
D = decimal.Decimal

WRITTEN = [
    dict(id=1, name="alpha", l=9223372036854775807, b=True, f=1.5, d=0.1,
         dec=D("12345678901234567890.123456789012345678"), bin=b"\x00\x01\xff",
         u=uuid.UUID("00112233-4455-6677-8899-aabbccddeeff").bytes, dt=datetime.date(2024, 2, 29),
         t=datetime.time(23, 59, 59, 999999), ts=datetime.datetime(2024, 2, 29, 12, 0, 0, 123456, tzinfo=UTC),
         tags=["x", None, "z"], m={"b": 2, "a": 1, "c": None}, dur=dict(months=1, days=2, nanoseconds=3000000000)),
    dict(id=2, name="beta", l=-1, b=False, f=2.0, d=2.0, dec=D("2"), bin=b"\x02",
         u=uuid.UUID("22222222-2222-2222-2222-222222222222").bytes, dt=datetime.date(2000, 1, 1),
         t=datetime.time(2, 2, 2), ts=datetime.datetime(2000, 1, 1, tzinfo=UTC),
         tags=["two"], m={"two": 2}, dur=dict(months=2, days=2, nanoseconds=2)),
    dict(id=3, name="gamma ü 日本 \"q\"\\", l=None, b=None, f=None, d=None, dec=None, bin=None, u=None, dt=None,
         t=None, ts=None, tags=None, m=None, dur=None),
    dict(id=4, name="delta", l=0, b=False, f=float("nan"), d=float("-inf"), dec=D("-0.000000000000000001"), bin=b"",
         u=uuid.UUID("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF").bytes, dt=datetime.date(1969, 12, 31),
         t=datetime.time(0, 0), ts=datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
         tags=[], m={}, dur=dict(months=None, days=None, nanoseconds=None)),
    dict(id=5, name="epsilon", l=42, b=True, f=-0.1, d=1e300, dec=D("0"), bin=b"abc",
         u=uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11").bytes, dt=datetime.date(1, 1, 1),
         t=datetime.time(12, 30, 0, 5), ts=datetime.datetime(1970, 1, 1, tzinfo=UTC),
         tags=["only"], m={"k": -2147483648}, dur=dict(months=-1, days=0, nanoseconds=-1)),
    dict(id=5, name="epsilon2", l=-9223372036854775808, b=False, f=3.4028234663852886e38, d=-2.5,
         dec=D("-99999999999999999999.999999999999999999"), bin=b"\x10",
         u=uuid.UUID("12345678-1234-5678-1234-567812345678").bytes, dt=datetime.date(9999, 12, 31),
         t=datetime.time(1, 2, 3), ts=datetime.datetime(2262, 4, 11, 23, 47, 16, 854775, tzinfo=UTC),
         tags=["a", "b"], m={"z": 26, "": 0}, dur=dict(months=0, days=1, nanoseconds=0)),
]
APPENDED_LATER = [dict(id=6, name="zeta", l=6, tags=["six"], m={"six": 6})]

# The rows left after deleting id 2 and name "zeta", normalized and sorted by JSON dump.
EXPECTED = [
    {"id": 4, "name": "delta", "l": 0, "b": False, "f": "NaN", "d": "-Infinity",
     "dec": "-0.000000000000000001", "bin": "", "u": "ffffffff-ffff-ffff-ffff-ffffffffffff",
     "dt": "1969-12-31", "t": "00:00:00.000000", "ts": -1, "tags": [], "m": [],
     "dur": {"months": None, "days": None, "nanoseconds": None}},
    {"id": 5, "name": "epsilon2", "l": -9223372036854775808, "b": False, "f": 3.4028234663852886e38, "d": -2.5,
     "dec": "-99999999999999999999.999999999999999999", "bin": "10", "u": "12345678-1234-5678-1234-567812345678",
     "dt": "9999-12-31", "t": "01:02:03.000000", "ts": 9223372036854775, "tags": ["a", "b"],
     "m": [["", 0], ["z", 26]], "dur": {"months": 0, "days": 1, "nanoseconds": 0}},
    {"id": 3, "name": "gamma ü 日本 \"q\"\\", "l": None, "b": None, "f": None, "d": None, "dec": None, "bin": None,
     "u": None, "dt": None, "t": None, "ts": None, "tags": None, "m": None, "dur": None},
    {"id": 1, "name": "alpha", "l": 9223372036854775807, "b": True, "f": 1.5, "d": 0.1,
     "dec": "12345678901234567890.123456789012345678", "bin": "0001ff", "u": "00112233-4455-6677-8899-aabbccddeeff",
     "dt": "2024-02-29", "t": "23:59:59.999999", "ts": 1709208000123456, "tags": ["x", None, "z"],
     "m": [["a", 1], ["b", 2], ["c", None]], "dur": {"months": 1, "days": 2, "nanoseconds": 3000000000}},
    {"id": 5, "name": "epsilon", "l": 42, "b": True, "f": -0.10000000149011612, "d": 1e300,
     "dec": "0.000000000000000000", "bin": "616263", "u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
     "dt": "0001-01-01", "t": "12:30:00.000005", "ts": 0, "tags": ["only"], "m": [["k", -2147483648]],
     "dur": {"months": -1, "days": 0, "nanoseconds": -1}},
]


def make_schema():
    from pyiceberg.schema import Schema
    from pyiceberg.types import (BinaryType, BooleanType, DateType, DecimalType, DoubleType, FloatType,
                                 IntegerType, ListType, LongType, MapType, NestedField, StringType, StructType,
                                 TimestamptzType, TimeType, UUIDType)

    return Schema(
        NestedField(1, "id", IntegerType(), required=True),
        NestedField(2, "name", StringType(), required=True),
        NestedField(3, "l", LongType()),
        NestedField(4, "b", BooleanType()),
        NestedField(5, "f", FloatType()),
        NestedField(6, "d", DoubleType()),
        NestedField(7, "dec", DecimalType(38, 18)),
        NestedField(8, "bin", BinaryType()),
        NestedField(9, "u", UUIDType()),
        NestedField(10, "dt", DateType()),
        NestedField(11, "t", TimeType()),
        NestedField(12, "ts", TimestamptzType()),
        NestedField(13, "tags", ListType(14, StringType(), element_required=False)),
        NestedField(15, "m", MapType(16, StringType(), 17, IntegerType(), value_required=False)),
        NestedField(18, "dur", StructType(
            NestedField(19, "months", IntegerType()),
            NestedField(20, "days", IntegerType()),
            NestedField(21, "nanoseconds", LongType()))),
        identifier_field_ids=[1, 2],
    )


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """(catalog file, warehouse dir) holding ks.all_types and an empty namespace."""
    from pyiceberg.catalog.sql import SqlCatalog
    from pyiceberg.expressions import EqualTo, In

    root = tmp_path_factory.mktemp("iceberg")
    catalog_file = root / "catalog.db"
    warehouse = root / "warehouse"
    warehouse.mkdir()
    catalog = SqlCatalog(CATALOG, uri=f"sqlite:///{catalog_file}", warehouse=f"file://{warehouse}")
    catalog.create_namespace(NS)
    catalog.create_namespace("empty_ns")
    tbl = catalog.create_table((NS, TABLE), schema=make_schema(), properties={"format-version": "2"})
    arrow_schema = tbl.schema().as_arrow()
    tbl.append(pa.Table.from_pylist(WRITTEN, schema=arrow_schema))
    tbl.append(pa.Table.from_pylist(APPENDED_LATER, schema=arrow_schema))
    tbl.delete(EqualTo("id", 2))
    tbl.delete(In("name", ["zeta", "no such name"]))
    return catalog_file, warehouse


def test_expected_rows_are_sorted():
    assert EXPECTED == R.sort_rows(EXPECTED)


def test_pyiceberg_reads_the_rows(table):
    assert R.read_pyiceberg(*table, CATALOG, NS, TABLE) == EXPECTED


def test_duckdb_reads_the_rows(table):
    assert R.read_duckdb(*table, CATALOG, NS, TABLE) == EXPECTED


@pytest.fixture(scope="module")
def java():
    if shutil.which("java") is None or shutil.which("mvn") is None:
        pytest.fail("the Iceberg Java reader needs java and mvn")


def test_java_reads_the_rows(table, java):
    assert R.read_java(*table, CATALOG, NS, TABLE) == EXPECTED


def test_java_and_pyiceberg_list_the_catalog(table, java):
    expected = {"namespaces": [["empty_ns"], [NS]], "tables": [[NS, TABLE]]}
    assert R.list_pyiceberg(*table, CATALOG) == expected
    assert R.list_java(*table, CATALOG) == expected


def test_java_and_pyiceberg_agree_on_snapshots(table, java):
    py = R.snapshots_pyiceberg(*table, CATALOG, NS, TABLE)
    assert R.snapshots_java(*table, CATALOG, NS, TABLE) == py
    # Two appends, then the delete of id 2 rewrites the first file and the
    # delete of "zeta" drops the second one.
    assert [s["operation"] for s in py] == ["append", "append", "overwrite", "delete"]
    assert [s["summary"]["total-records"] for s in py] == ["6", "7", "6", "5"]
    assert [s["sequence_number"] for s in py] == [1, 2, 3, 4]
    assert [s["current"] for s in py] == [False, False, False, True]
    assert py[0]["parent_id"] is None
    assert all(s["parent_id"] == p["snapshot_id"] for p, s in zip(py, py[1:]))


def test_normalize_accepts_each_readers_forms():
    def t(itype, *values):
        got = {repr(v): R.normalize(v, itype) for v in values}
        assert len(set(map(repr, got.values()))) == 1, got
        return next(iter(got.values()))

    assert t("uuid", uuid.UUID("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"),
             uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11").bytes,
             "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11") == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
    assert t("decimal(10, 3)", D("1.5"), D("1.500"), "1.500", "1.5") == "1.500"
    assert t("date", datetime.date(1969, 12, 31), -1, "1969-12-31") == "1969-12-31"
    assert t("time", datetime.time(1, 2, 3, 4), 3723000004, "01:02:03.000004") == "01:02:03.000004"
    assert t("timestamptz", datetime.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC),
             datetime.datetime(1970, 1, 1, 1, 0, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=1))),
             1000000) == 1000000
    assert t("double", float("inf"), "Infinity") == "Infinity"
    assert t("binary", b"\xab", bytearray(b"\xab"), "AB") == "ab"
    m = {"type": "map", "key-id": 1, "key": "int", "value-id": 2, "value": "string", "value-required": False}
    assert t(m, {10: "x", 9: None}, [(9, None), (10, "x")], [[10, "x"], [9, None]]) == [[9, None], [10, "x"]]
    with pytest.raises(decimal.Inexact):
        R.normalize(D("1.2345"), "decimal(10, 3)")
