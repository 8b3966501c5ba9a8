"""`cqlite materialize` on the data directory of a running Cassandra 5.0 node,
in two cases that used to leave the Iceberg table different from what the
node returns:

  - rows deleted (or expired) and then compacted away with their tombstones
    (gc_grace_seconds = 0): the table directory is left with fewer
    generations, or none at all, and the table must then hold what the node's
    SELECT JSON * returns (nothing, for an empty directory), not the rows the
    fold state's facts remember;
  - a zero-byte value in a clustering column (`blobAsInt(0x)`), which the node
    returns as "": the run must not fail; the column becomes an optional
    field holding null for it (Iceberg identifier fields must be required, so
    the table then has none), in a table made with it and in a table that
    had identifier fields before.

Every table is read back with PyIceberg and DuckDB and compared with the
node's own answer.
"""
import json
import pathlib
import shutil
import tempfile
import time

import pytest

import cql_json
import iceberg_readers
import live_node
import table_compare

KS = "fidelity"
CATALOG_NAME = "cqlite"


@pytest.fixture(scope="module")
def node(oracle):
    work = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-live-fidelity-"))
    n = live_node.LiveNode(oracle, work / "node").start()
    n.cql(f"CREATE KEYSPACE {KS} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}")
    yield n
    n.stop()
    shutil.rmtree(work, ignore_errors=True)


def _schema(catalog, table):
    location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, KS, table)
    return iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))


def _metadata(catalog, table):
    return json.loads(pathlib.Path(iceberg_readers.metadata_location(catalog, CATALOG_NAME, KS, table)).read_text())


def _materialize(cqlite, path, warehouse, now, *extra):
    proc = cqlite("materialize", path, "--warehouse", warehouse, "--now", now, "--json", "--threads", "2", *extra,
                  check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _check_equal(node, cqlite, warehouse, table, now_lines=None):
    """The table as PyIceberg and DuckDB read it equals the node's SELECT JSON * (taken now)."""
    catalog = warehouse / "catalog.db"
    now, lines = now_lines or node.select(KS, table)
    schema = _schema(catalog, table)
    expected = table_compare.expected_rows(lines, schema)
    # Every row the node returns is in the table: none is left out as static-only.
    assert len(expected) == len(lines), (lines, schema)
    py = iceberg_readers.read_pyiceberg(catalog, warehouse, CATALOG_NAME, KS, table)
    problem = table_compare.differs(table_compare.pyiceberg_view(expected, schema), py, schema)
    assert problem is None, f"PyIceberg vs the node: {problem}"
    duck = iceberg_readers.read_duckdb(catalog, warehouse, CATALOG_NAME, KS, table)
    problem = table_compare.differs(expected, duck, schema)
    assert problem is None, f"DuckDB vs the node: {problem}"
    return expected


def _data_files(table_dir):
    return sorted(p.name for p in table_dir.glob("*-Data.db"))


def test_rows_deleted_or_expired_and_compacted_away_leave_the_table(node, cqlite, tmp_path):
    warehouse = tmp_path / "warehouse"
    tables = {"gone": "all rows deleted", "half": "half the rows deleted", "expired": "every row expired"}
    for t in tables:
        node.cql(f"CREATE TABLE {KS}.{t} (k int, c int, v text, PRIMARY KEY (k, c)) WITH gc_grace_seconds = 0 "
                 "AND compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}")
    node.flush_schema()
    for k in range(20):
        for c in range(3):
            node.cql(f"INSERT INTO {KS}.gone (k, c, v) VALUES ({k}, {c}, 'g{k}.{c}')")
            node.cql(f"INSERT INTO {KS}.half (k, c, v) VALUES ({k}, {c}, 'h{k}.{c}')")
            node.cql(f"INSERT INTO {KS}.expired (k, c, v) VALUES ({k}, {c}, 'e{k}.{c}') USING TTL 4")
        if k == 9:
            node.flush(KS, "expired")  # two generations, so that the major compaction runs
    for t in tables:
        node.flush(KS, t)
    data = node.data_dir()
    now = int(time.time())
    report = _materialize(cqlite, data, warehouse, now)
    assert {r["table"] for r in report["tables"] if r["committed"]} >= set(tables), report
    for t in ("gone", "half"):
        assert len(_check_equal(node, cqlite, warehouse, t)) == 60

    # Deletes, flushed, then compacted with the data they delete: gc_grace_seconds = 0 purges both.
    for k in range(20):
        node.cql(f"DELETE FROM {KS}.gone WHERE k = {k}")
        if k % 2:
            node.cql(f"DELETE FROM {KS}.half WHERE k = {k}")
    for t in ("gone", "half"):
        node.flush(KS, t)
    time.sleep(5)  # the TTLs of `expired` run out; the tombstones' deletion times pass
    for t in tables:
        node.compact(KS, t)
    # A compaction may keep an SSTable whose data is not purgeable yet (a busy machine): compact again.
    for _ in range(5):
        if not _data_files(node.table_dir(KS, "gone")) and not _data_files(node.table_dir(KS, "expired")):
            break
        time.sleep(2)
        for t in ("gone", "expired"):
            node.compact(KS, t)
    assert _data_files(node.table_dir(KS, "gone")) == [], "compaction left an SSTable in gone"
    assert _data_files(node.table_dir(KS, "expired")) == [], "compaction left an SSTable in expired"
    assert len(_data_files(node.table_dir(KS, "half"))) == 1

    # The whole data directory, then each table directory on its own: both must see it.
    report = _materialize(cqlite, data, warehouse, int(time.time()))
    by_table = {r["table"]: r for r in report["tables"]}
    for t in tables:
        assert t in by_table, f"{t} ({tables[t]}) was not materialized: {report}"
        assert by_table[t]["committed"], by_table[t]
    for t, rows in (("gone", 0), ("half", 30), ("expired", 0)):
        assert len(_check_equal(node, cqlite, warehouse, t)) == rows, tables[t]
    report = _materialize(cqlite, node.table_dir(KS, "gone"), warehouse, int(time.time()))
    assert not report["tables"][0]["committed"], report  # nothing new
    assert len(_check_equal(node, cqlite, warehouse, "gone")) == 0


def test_zero_byte_clustering_value(node, cqlite, tmp_path):
    warehouse = tmp_path / "warehouse"
    # `born`: has an empty clustering value from its first run; `later`: gets one after a run.
    for t in ("born", "later"):
        node.cql(f"CREATE TABLE {KS}.{t} (k int, c int, d uuid, v text, PRIMARY KEY (k, c, d))")
    node.flush_schema()
    for t in ("born", "later"):
        for k in range(5):
            node.cql(f"INSERT INTO {KS}.{t} (k, c, d, v) VALUES ({k}, 0, 6b7f0d3c-3c2e-4d55-9a33-2d0c1f4a0001, "
                     f"'zero {k}')")
            node.cql(f"INSERT INTO {KS}.{t} (k, c, d, v) VALUES ({k}, {k + 1}, "
                     f"6b7f0d3c-3c2e-4d55-9a33-2d0c1f4a0002, 'one {k}')")
    node.cql(f"INSERT INTO {KS}.born (k, c, d, v) VALUES (1, blobAsInt(0x), "
             "6b7f0d3c-3c2e-4d55-9a33-2d0c1f4a0001, 'empty c')")
    node.cql(f"INSERT INTO {KS}.born (k, c, d, v) VALUES (2, blobAsInt(0x), blobAsUuid(0x), 'empty c and d')")
    for t in ("born", "later"):
        node.flush(KS, t)
    catalog = warehouse / "catalog.db"
    _materialize(cqlite, node.table_dir(KS, "later"), warehouse, int(time.time()))
    schema = _schema(catalog, "later")
    assert all(f["required"] for f in schema["fields"] if f["name"] in ("k", "c", "d")), schema
    assert schema["identifier-field-ids"], schema

    node.cql(f"INSERT INTO {KS}.later (k, c, d, v) VALUES (3, blobAsInt(0x), "
             "6b7f0d3c-3c2e-4d55-9a33-2d0c1f4a0003, 'empty c later')")
    node.cql(f"UPDATE {KS}.later SET v = 'changed' WHERE k = 0 AND c = 1 AND d = 6b7f0d3c-3c2e-4d55-9a33-2d0c1f4a0002")
    node.flush(KS, "later")
    for t in ("born", "later"):
        report = _materialize(cqlite, node.table_dir(KS, t), warehouse, int(time.time()))
        assert report["tables"][0]["committed"], report
        assert "empty value" in report["tables"][0].get("warning", ""), report

        now, lines = node.select(KS, t)
        # The node returns the empty values as "".
        empties = [json.loads(ln) for ln in lines if json.loads(ln)["c"] == ""]
        assert len(empties) == (2 if t == "born" else 1), lines
        schema = _schema(catalog, t)
        fields = {f["name"]: f for f in schema["fields"]}
        assert not fields["c"]["required"] and fields["k"]["required"], schema
        assert not schema.get("identifier-field-ids"), schema
        expected = _check_equal(node, cqlite, warehouse, t, (now, lines))
        assert sum(1 for r in expected if r["c"] is None) == len(empties)

    # `later` evolved: its first schema (id 0) kept, the current one adds nothing but optional keys.
    metadata = _metadata(catalog, "later")
    assert [s["schema-id"] for s in metadata["schemas"]] == [0, 1], metadata["schemas"]
    assert metadata["current-schema-id"] == 1
    # A further run keeps the schema and commits nothing new.
    report = _materialize(cqlite, node.table_dir(KS, "later"), warehouse, int(time.time()))
    assert not report["tables"][0]["committed"], report
    assert _metadata(catalog, "later")["current-schema-id"] == 1
