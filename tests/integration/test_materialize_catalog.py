"""`cqlite materialize` shares its SQLite catalog file with other Iceberg writers.

PyIceberg (SqlCatalog) and the Iceberg Java library (JdbcCatalog) open the
catalog cqlite writes as is; tables PyIceberg commits into the same file are
left intact by cqlite's runs, and cqlite refuses to commit into a table it
did not create.
"""
import json
import pathlib
import sqlite3

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog

import cql_json
import iceberg_readers

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "data"
CATALOG_NAME = "cqlite"


def _catalog_rows(path):
    with sqlite3.connect(path) as db:
        return sorted(db.execute("SELECT * FROM iceberg_tables").fetchall())


@pytest.fixture()
def warehouse(tmp_path):
    return tmp_path / "warehouse"


def _pyiceberg(warehouse):
    warehouse.mkdir(parents=True, exist_ok=True)
    return SqlCatalog(CATALOG_NAME, uri=f"sqlite:///{warehouse / 'catalog.db'}", warehouse=warehouse.as_uri())


def test_pyiceberg_tables_in_the_same_catalog_are_left_intact(cqlite, warehouse):
    catalog = _pyiceberg(warehouse)
    catalog.create_namespace("analytics")
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": pa.array(["a", "b", "c"])})
    theirs = catalog.create_table("analytics.events", schema=data.schema)
    theirs.append(data)
    before = iceberg_readers.metadata_location(warehouse / "catalog.db", CATALOG_NAME, "analytics", "events")

    cqlite("materialize", EXAMPLES, "--warehouse", warehouse, "-q")

    after = iceberg_readers.metadata_location(warehouse / "catalog.db", CATALOG_NAME, "analytics", "events")
    assert after == before
    reloaded = _pyiceberg(warehouse).load_table("analytics.events")
    assert reloaded.scan().to_arrow().sort_by("id").to_pylist() == data.to_pylist()
    # And PyIceberg can still commit to its table after ours were added.
    reloaded.append(pa.table({"id": pa.array([4], pa.int64()), "name": pa.array(["d"])}))
    assert len(_pyiceberg(warehouse).load_table("analytics.events").scan().to_arrow()) == 4
    listing = iceberg_readers.list_pyiceberg(warehouse / "catalog.db", warehouse, CATALOG_NAME)
    assert ["analytics", "events"] in listing["tables"]
    assert ["shop", "orders"] in listing["tables"] and ["shop", "price_points"] in listing["tables"]
    assert iceberg_readers.list_java(warehouse / "catalog.db", warehouse, CATALOG_NAME) == listing


def test_a_table_cqlite_did_not_create_is_refused(cqlite, warehouse):
    catalog = _pyiceberg(warehouse)
    catalog.create_namespace("shop")
    data = pa.table({"id": pa.array([1], pa.int64())})
    catalog.create_table("shop.orders", schema=data.schema).append(data)
    before = _catalog_rows(warehouse / "catalog.db")

    proc = cqlite("materialize", EXAMPLES, "--warehouse", warehouse, check=False)

    assert proc.returncode != 0
    assert "shop.orders" in proc.stderr or "orders" in proc.stderr, proc.stderr
    after = _catalog_rows(warehouse / "catalog.db")
    changed = [row for row in after if row not in before]
    # Only the other table (price_points) may have been added.
    assert all(row[2] == "price_points" for row in changed), changed
    assert _pyiceberg(warehouse).load_table("shop.orders").scan().to_arrow().to_pylist() == [{"id": 1}]


def test_snapshot_history_and_summaries_as_pyiceberg_and_java_see_them(cqlite, warehouse):
    report = json.loads(cqlite("materialize", EXAMPLES, "--warehouse", warehouse, "--json").stdout)
    orders = next(t for t in report["tables"] if t["table"] == "orders")
    for read in (iceberg_readers.snapshots_pyiceberg, iceberg_readers.snapshots_java):
        history = read(warehouse / "catalog.db", warehouse, CATALOG_NAME, "shop", "orders")
        assert [s["snapshot_id"] for s in history] == [orders["snapshot_id"]]
        summary = history[0]["summary"]
        assert summary["total-records"] == str(orders["rows_total"])
        assert summary["cqlite.generations"].count("/") == 2 * orders["generations_consumed"]
        assert int(summary["cqlite.delta-horizon-micros"]) > 0
        assert pathlib.Path(summary["cqlite.fold-state"]).is_file()
    rows = iceberg_readers.read_pyiceberg(warehouse / "catalog.db", warehouse, CATALOG_NAME, "shop", "orders")
    location = iceberg_readers.metadata_location(warehouse / "catalog.db", CATALOG_NAME, "shop", "orders")
    schema = iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))
    table_dir = next(EXAMPLES.glob("shop/orders-*"))
    expected = cql_json.rows_from_select_json(
        cqlite("select", table_dir, "--now", orders["ttl_evaluated_at"]).stdout.splitlines(), schema)
    assert rows == expected


def test_compression_level_is_a_table_property_and_zstd_only(cqlite, warehouse):
    rows = {}
    for level in ("1", "19"):
        target = warehouse / level
        cqlite("materialize", EXAMPLES, "--warehouse", target, "--compression-level", level, "-q")
        table = _pyiceberg(target).load_table("shop.orders")
        assert table.properties["write.parquet.compression-codec"] == "zstd"
        assert table.properties["write.parquet.compression-level"] == level
        files = [task.file.file_path for task in table.scan().plan_files()]
        assert files and all(pq.ParquetFile(f.removeprefix("file://")).metadata.row_group(0).column(0).compression
                             == "ZSTD" for f in files)
        rows[level] = sorted(table.scan().to_arrow().to_pylist(), key=repr)
    assert rows["1"] == rows["19"]
    proc = cqlite("materialize", EXAMPLES, "--warehouse", warehouse / "snappy", "--compression", "snappy",
                  "--compression-level", "1", check=False)
    assert proc.returncode != 0
    assert "--compression-level is for --compression zstd only" in proc.stderr
    assert not (warehouse / "snappy").exists()


def test_a_postgresql_catalog_is_shared_with_pyiceberg_and_iceberg_java(cqlite, warehouse, postgres_catalog):
    # PyIceberg makes a table of its own in the PostgreSQL catalog first.
    theirs_catalog = SqlCatalog(CATALOG_NAME, uri=iceberg_readers.sqlalchemy_uri(postgres_catalog),
                                warehouse=warehouse.as_uri())
    theirs_catalog.create_namespace("analytics")
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": pa.array(["a", "b", "c"])})
    theirs_catalog.create_table("analytics.events", schema=data.schema).append(data)
    before = iceberg_readers.metadata_location(postgres_catalog, CATALOG_NAME, "analytics", "events")

    report = json.loads(cqlite("materialize", EXAMPLES, "--warehouse", warehouse, "--catalog", postgres_catalog,
                               "--json").stdout)
    password = postgres_catalog.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]
    assert password not in json.dumps(report) and report["catalog"].startswith("postgresql://cqlite@127.0.0.1:")
    assert sorted(t["table"] for t in report["tables"]) == ["orders", "price_points"]
    assert all(t["committed"] for t in report["tables"]), report

    # Their table is untouched; ours are read alike by PyIceberg, Iceberg Java and DuckDB through the
    # PostgreSQL catalog, and equal `cqlite select` over the same SSTables.
    assert iceberg_readers.metadata_location(postgres_catalog, CATALOG_NAME, "analytics", "events") == before
    listing = iceberg_readers.list_pyiceberg(postgres_catalog, warehouse, CATALOG_NAME)
    assert listing["tables"] == [["analytics", "events"], ["shop", "orders"], ["shop", "price_points"]], listing
    assert iceberg_readers.list_java(postgres_catalog, warehouse, CATALOG_NAME) == listing
    for t in report["tables"]:
        location = iceberg_readers.metadata_location(postgres_catalog, CATALOG_NAME, "shop", t["table"])
        schema = iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))
        table_dir = next(EXAMPLES.glob(f"shop/{t['table']}-*"))
        expected = cql_json.rows_from_select_json(
            cqlite("select", table_dir, "--now", t["ttl_evaluated_at"]).stdout.splitlines(), schema)
        assert len(expected) == t["rows_total"] > 0
        read = iceberg_readers.read_all(postgres_catalog, warehouse, CATALOG_NAME, "shop", t["table"])
        for reader, rows in read.items():
            assert cql_json.mask_rows(rows, schema) == cql_json.mask_rows(expected, schema), (t["table"], reader)

    # A second run has nothing new and commits nothing.
    again = json.loads(cqlite("materialize", EXAMPLES, "--warehouse", warehouse, "--catalog", postgres_catalog,
                              "--json").stdout)
    assert not any(t["committed"] for t in again["tables"]), again
    assert iceberg_readers.snapshots_java(postgres_catalog, warehouse, CATALOG_NAME, "shop", "orders")[-1][
        "snapshot_id"] == next(t for t in report["tables"] if t["table"] == "orders")["snapshot_id"]


def test_a_wrong_postgresql_password_is_an_error_naming_the_server_only(cqlite, tmp_path, postgres_catalog):
    user, rest = postgres_catalog.split("://", 1)[1].split(":", 1)
    password, server = rest.split("@", 1)
    wrong = f"postgresql://{user}:not-{password}@{server}"
    warehouse = tmp_path / "warehouse"
    proc = cqlite("materialize", EXAMPLES, "--warehouse", warehouse, "--catalog", wrong, check=False)
    assert proc.returncode != 0
    assert f"postgresql://{user}@{server}" in proc.stderr, proc.stderr
    assert "password authentication failed" in proc.stderr, proc.stderr
    assert password not in proc.stderr + proc.stdout
    assert proc.stderr.count("\n") == 1, proc.stderr  # one line
    # Nothing was written: no table directory, and the catalog has no tables.
    assert not list(warehouse.glob("*/*")) if warehouse.exists() else True
    assert iceberg_readers.catalog_query(postgres_catalog, "SELECT to_regclass('iceberg_tables')::text") == [(None,)]
