"""A published table follows its Cassandra table through every schema change
Cassandra allows (src/materialize/schema_evolution.h), on a running Cassandra
5.0 node.

One table per catalog (SQLite, PostgreSQL, Apache Iceberg's REST catalog
server) and one published by `cqlite watch` goes through the same steps: rows
written, the table altered (columns added of every kind, user type fields
added and renamed, columns dropped, a dropped column added again, a primary
key column renamed, an option changed), more rows written, a flush, a run.
After each step:

  - PyIceberg, DuckDB and Iceberg Java read the table equal to the node's
    SELECT JSON *;
  - the Iceberg schema changed as the step says: fields keep their ids, new
    ones get ids never used before (a column added again after a drop
    too, so its values from before the drop stay hidden), last-column-id
    grows;
  - every earlier snapshot still reads (PyIceberg, time travel) as it did
    when it was current.
"""
import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time

import pytest

import iceberg_readers
import live_node
import table_compare

KS = "evolve"
CATALOG_NAME = "cqlite"


@pytest.fixture(scope="module")
def node(oracle):
    work = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-schema-evolution-"))
    n = live_node.LiveNode(oracle, work / "node").start()
    n.cql(f"CREATE KEYSPACE {KS} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}")
    n.flush_schema()
    yield n
    n.stop()
    shutil.rmtree(work, ignore_errors=True)


def _steps(t):
    """(name, schema statements, data statements, what the Iceberg schema gains and loses) for table `t`."""
    q = f"{KS}.{t}"
    address = f"{KS}.address_{t}"  # each table's own: the steps alter it
    insert = lambda k, c, v, n: f"INSERT INTO {q} (k, c, v, n) VALUES ({k}, {c}, '{v}', {n})"
    return [
        ("create", [f"CREATE TYPE {address} (street text, city text)", f"CREATE TABLE {q} (k int, c int, v text, n int, PRIMARY KEY (k, c)) "
                    "WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}"],
         [insert(k, c, f"v{k}.{c}", k * 10 + c) for k in range(4) for c in range(4)]
         # A row that exists by its v alone (no row marker): gone once v is dropped.
         + [f"UPDATE {q} SET v = 'only v' WHERE k = 9 AND c = 0"],
         {"added": ["k", "c", "v", "n"], "dropped": []}),
        ("add columns", [f"ALTER TABLE {q} ADD note text", f"ALTER TABLE {q} ADD s int static",
                         f"ALTER TABLE {q} ADD tags set<text>", f"ALTER TABLE {q} ADD home frozen<{address}>",
                         f"ALTER TABLE {q} ADD work {address}"],
         [f"UPDATE {q} SET note = 'hello', tags = {{'a', 'b'}} WHERE k = 0 AND c = 1",
          f"UPDATE {q} SET s = 7 WHERE k = 1",
          f"UPDATE {q} SET home = {{street: 'Main', city: 'Oslo'}} WHERE k = 2 AND c = 2",
          f"UPDATE {q} SET work = {{street: 'Side', city: 'Bergen'}} WHERE k = 3 AND c = 0",
          f"INSERT INTO {q} (k, c, v, n, note) VALUES (5, 0, 'new', 50, 'fresh')"],
         {"added": ["note", "s", "tags", "home", "work"], "dropped": []}),
        ("add a column, no write", [f"ALTER TABLE {q} ADD extra int"], [],
         {"added": ["extra"], "dropped": []}),
        ("user type fields", [f"ALTER TYPE {address} ADD zip int", f"ALTER TYPE {address} RENAME city TO town"],
         [f"UPDATE {q} SET home = {{street: 'High', town: 'Rome', zip: 10}} WHERE k = 0 AND c = 0",
          f"UPDATE {q} SET work.zip = 5020 WHERE k = 3 AND c = 0",
          f"UPDATE {q} SET extra = 1 WHERE k = 1 AND c = 1"],
         {"added": [], "dropped": []}),
        ("drop columns", [f"ALTER TABLE {q} DROP v", f"ALTER TABLE {q} DROP tags"],
         [f"UPDATE {q} SET n = 99 WHERE k = 0 AND c = 0"],
         {"added": [], "dropped": ["v", "tags"]}),
        ("add a dropped column again", [f"ALTER TABLE {q} ADD v text"],
         [f"UPDATE {q} SET v = 'again' WHERE k = 1 AND c = 2", f"INSERT INTO {q} (k, c, v) VALUES (6, 0, 'six')"],
         {"added": ["v"], "dropped": []}),
        ("rename a key column", [f"ALTER TABLE {q} RENAME c TO cc"],
         [f"INSERT INTO {q} (k, cc, n) VALUES (7, 1, 71)", f"DELETE FROM {q} WHERE k = 2 AND cc = 3"],
         {"added": [], "dropped": []}),
        ("change an option", [f"ALTER TABLE {q} WITH comment = 'altered'"],
         [f"UPDATE {q} SET note = 'later' WHERE k = 7 AND cc = 1"],
         {"added": [], "dropped": []}),
    ]


def _metadata(catalog, t):
    location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, KS, t)
    return json.loads(pathlib.Path(iceberg_readers._local_path(location)).read_text())


def _fields(schema):
    return {f["name"]: f["id"] for f in schema["fields"]}


def _snapshot_rows(catalog, warehouse, t, snapshot_id):
    tbl = iceberg_readers._pyiceberg_catalog(catalog, warehouse, CATALOG_NAME).load_table((KS, t))
    scan = tbl.scan(snapshot_id=snapshot_id)
    snapshot = tbl.metadata.snapshot_by_id(snapshot_id)
    schema = next(s for s in tbl.metadata.schemas if s.schema_id == snapshot.schema_id)
    return iceberg_readers.normalize_rows(scan.to_arrow().to_pylist(), json.loads(schema.model_dump_json()))


def _check_step(node, catalog, warehouse, t, step, history, before):
    """Checks the table after `step` against the node, the schema change it made, and every earlier snapshot."""
    name, _, _, change = step
    metadata = _metadata(catalog, t)
    schema = iceberg_readers.current_schema(metadata)
    now, lines = node.select(KS, t)
    expected, _ = table_compare.check_readers(catalog, warehouse, CATALOG_NAME, KS, t, lines, schema,
                                              f"the node after '{name}'")
    java = iceberg_readers.read_java(catalog, warehouse, CATALOG_NAME, KS, t)
    problem = table_compare.differs(expected, java, schema)
    assert problem is None, f"{t}: Iceberg Java vs the node after '{name}': {problem}"

    fields = _fields(schema)
    if before is not None:
        old_fields, old_last = before
        for column in change["added"]:
            assert column in fields and fields[column] > old_last, (name, column, fields, old_last)
        for column in change["dropped"]:
            assert column not in fields, (name, column, fields)
        for column, field_id in old_fields.items():
            if column in fields and column not in change["added"]:
                assert fields[column] == field_id, (name, column, fields, old_fields)
        if name == "rename a key column":
            assert fields["cc"] == old_fields["c"] and "c" not in fields, fields
        assert metadata["last-column-id"] >= max(fields.values())
        ids = [i for s in metadata["schemas"] for i in _all_ids(s["fields"])]
        assert metadata["last-column-id"] == max(ids)
    # Every earlier snapshot reads as it did.
    for snapshot_id, rows in history:
        assert _snapshot_rows(catalog, warehouse, t, snapshot_id) == rows, (name, snapshot_id)
    current = metadata["current-snapshot-id"]
    history.append((current, _snapshot_rows(catalog, warehouse, t, current)))
    return fields, metadata["last-column-id"], len(expected)


def _all_ids(fields):
    for f in fields:
        yield f["id"]
        yield from _nested_ids(f["type"])


def _nested_ids(itype):
    if not isinstance(itype, dict):
        return
    if itype["type"] == "struct":
        yield from _all_ids(itype["fields"])
    elif itype["type"] == "list":
        yield itype["element-id"]
        yield from _nested_ids(itype["element"])
    elif itype["type"] == "map":
        yield itype["key-id"]
        yield itype["value-id"]
        yield from _nested_ids(itype["key"])
        yield from _nested_ids(itype["value"])


def _apply(node, t, step):
    _, ddl, data, _ = step
    for statement in ddl:
        node.cql(statement)
    node.flush_schema()
    for statement in data:
        node.cql(statement)
    node.flush(KS, t)


def _materialize(cqlite, node, t, warehouse, catalog):
    extra = ["--catalog", catalog] if catalog != warehouse / "catalog.db" else []
    proc = cqlite("materialize", node.table_dir(KS, t), "--warehouse", warehouse, "--json", *extra, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)["tables"]
    assert len(report) == 1 and report[0]["committed"], report
    return report[0]


@pytest.mark.parametrize("catalog_kind", ["sqlite", "postgres", "rest"])
def test_materialize_follows_every_schema_change(node, cqlite, tmp_path, request, catalog_kind):
    t = f"t_{catalog_kind}"
    warehouse = tmp_path / "warehouse"
    catalog = {"sqlite": lambda: warehouse / "catalog.db",
               "postgres": lambda: request.getfixturevalue("postgres_catalog"),
               "rest": lambda: request.getfixturevalue("rest_catalog").address}[catalog_kind]()
    history, before = [], None
    for step in _steps(t):
        _apply(node, t, step)
        report = _materialize(cqlite, node, t, warehouse, catalog)
        name, _, _, change = step
        if before is not None:
            for column in change["added"]:
                assert any(f"column {column} " in c and "added" in c for c in report.get("schema_changes", [])), report
            for column in change["dropped"]:
                assert f"column {column} dropped" in report.get("schema_changes", []), report
            if change["dropped"]:
                assert report["folded"] == "every generation" and "dropped" in report["folded_everything_because"]
        if name == "change an option":
            assert "schema_changes" not in report, report
        fields, last, rows = _check_step(node, catalog, warehouse, t, step, history, before)
        before = (fields, last)
    assert rows == 18
    # Maintenance rewrites data files written with every schema the table had into its current one.
    extra = ["--catalog", catalog] if catalog_kind != "sqlite" else []
    proc = cqlite("maintain", f"{KS}.{t}", "--warehouse", warehouse, "--skip", "expire", "--skip", "orphans",
                  "--json", *extra, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tables"][0]["data_files_rewritten"] > 1, proc.stdout
    schema = iceberg_readers.current_schema(_metadata(catalog, t))
    _, lines = node.select(KS, t)
    expected, _ = table_compare.check_readers(catalog, warehouse, CATALOG_NAME, KS, t, lines, schema,
                                              "the node after maintenance")
    problem = table_compare.differs(expected, iceberg_readers.read_java(catalog, warehouse, CATALOG_NAME, KS, t),
                                    schema)
    assert problem is None, f"{t}: Iceberg Java vs the node after maintenance: {problem}"


def test_watch_follows_every_schema_change(node, cqlite, tmp_path):
    t = "t_watch"
    warehouse = tmp_path / "warehouse"
    catalog = warehouse / "catalog.db"
    binary = pathlib.Path(os.environ.get("CQLITE_BIN") or "build/src/cli/cqlite").resolve()
    steps = _steps(t)
    _apply(node, t, steps[0])  # the table exists before the watcher starts
    log = []
    proc = subprocess.Popen([str(binary), "watch", str(node.data_dir()), "--warehouse", str(warehouse), "--tables",
                             f"{KS}.{t}", "--interval", "0.5", "--rescan", "0.5", "--threads", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    threading.Thread(target=lambda: log.extend(line.rstrip("\n") for line in proc.stdout), daemon=True).start()
    try:
        history, before = [], None
        for k, step in enumerate(steps):
            if k > 0:
                _apply(node, t, step)
            if not step[2]:
                continue  # a change without a write makes no generation: the watcher has nothing to run
            _wait_for_node_state(node, catalog, warehouse, t, step[0], log)
            before = _check_step(node, catalog, warehouse, t, step, history, before)[:2]
        assert proc.poll() is None, log[-20:]
        assert not [line for line in log if "failed" in line.lower()], log
    finally:
        proc.terminate()
        proc.wait(timeout=120)


def _wait_for_node_state(node, catalog, warehouse, t, name, log, timeout=120):
    """Waits until PyIceberg reads what the node holds (the watcher committed the step's generation)."""
    deadline = time.monotonic() + timeout
    problem = "no table yet"
    while time.monotonic() < deadline:
        try:
            schema = iceberg_readers.current_schema(_metadata(catalog, t))
            _, lines = node.select(KS, t)
            expected = table_compare.expected_rows(lines, schema)
            py = iceberg_readers.read_pyiceberg(catalog, warehouse, CATALOG_NAME, KS, t)
            problem = table_compare.differs(table_compare.pyiceberg_view(expected, schema), py, schema)
            if problem is None:
                return
        except (LookupError, KeyError, OSError, sqlite3.Error) as e:
            problem = repr(e)
        time.sleep(0.5)
    raise AssertionError(f"the watcher did not publish '{name}' within {timeout} s: {problem}; log: {log[-10:]}")
