"""One table, one schema, whichever command reads it (ResolveTableSchema in
src/cassandra/schema_source.h).

On examples/data (its tables declared by the keyspace's schema.cql) and on a
Cassandra 3.0 data directory of the shared fixture corpus (declared by its
system_schema tables), `cqlite select` prints, `cqlite dump` names, `cqlite
materialize` publishes and `cqlite watch` (whose runs read a staging folder
of links, not the data directory) publishes the same columns. A `cqlite
materialize` of the data directory into the warehouse the watcher wrote then
finds nothing to change: it resolves the schema the watcher published.

On a live Cassandra 5.0 node, `cqlite watch` says in one log line how a
table's schema changed since its previous run (a column added, one dropped,
a user type field added), read from the node's system_schema tables after
schema changes flushed over several generations (a column dropped and added
again, a table dropped), and `cqlite select` of the node's data directory
then shows exactly the table's columns.
"""
import json
import pathlib
import re
import shutil
import signal
import subprocess
import threading
import time

import pytest

import iceberg_readers
import live_node
from conftest import REPO, cqlite_binary

CATALOG_NAME = "cqlite"
PCASS = pathlib.Path("pcass-cassandra-3.0.29") / "cassandra3_data_want"


def _table_dirs(data_dir):
    """keyspace.table -> table directory, for the user keyspaces of a data directory."""
    tables = {}
    for ks in sorted(pathlib.Path(data_dir).iterdir()):
        if not ks.is_dir() or ks.name == "system" or ks.name.startswith("system_"):
            continue
        for t in sorted(ks.iterdir()):
            if t.is_dir() and re.fullmatch(r".+-[0-9a-f]{32}", t.name):
                tables[f"{ks.name}.{t.name.rsplit('-', 1)[0]}"] = t
    return tables


def _select_columns(cqlite, table_dir):
    """The column names of the first row `cqlite select` prints (SELECT JSON * names every column)."""
    out = cqlite("select", table_dir, "--limit", "1").stdout
    first = out.splitlines()[0]
    return set(json.loads(first))


def _dump_cells(cqlite, table_dir):
    """The names of the cells `cqlite dump` prints for the table's SSTables."""
    names = set()
    for line in cqlite("dump", table_dir).stdout.splitlines():
        m = re.match(r'\s*"name" : "(.*)",?$', line)
        if m:
            names.add(m.group(1))
    return names


def _published_columns(warehouse, key):
    """The top-level field names of the Iceberg table's current schema."""
    ns, table = key.split(".")
    location = iceberg_readers.metadata_location(warehouse / "catalog.db", CATALOG_NAME, ns, table)
    with open(iceberg_readers._local_path(location), encoding="utf-8") as f:
        metadata = json.load(f)
    return [field["name"] for field in iceberg_readers.current_schema(metadata)["fields"]]


class Watch:
    """A `cqlite watch` process, its log lines collected as they come."""

    def __init__(self, data_dir, warehouse):
        self.warehouse = pathlib.Path(warehouse)
        self.lines = []
        self.proc = subprocess.Popen([str(cqlite_binary()), "watch", str(data_dir), "--warehouse", str(warehouse),
                                      "--interval", "0.5", "--rescan", "0.5", "--no-inotify", "--threads", "1"],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def log(self):
        return "\n".join(self.lines)

    def committed(self, key):
        try:
            status = self.warehouse / ".cqlite-watch" / "status" / f"{key}.json"
            return json.loads(status.read_text()).get("commits", 0) > 0
        except (OSError, ValueError):
            return False

    def wait_until(self, done, what, timeout=120):
        deadline = time.time() + timeout
        while time.time() < deadline and self.proc.poll() is None and not done():
            time.sleep(0.2)
        assert done(), f"{what}:\n{self.log()}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=120)
        self.reader.join(timeout=10)
        assert self.proc.returncode == 0, self.log()


def _watch_until_committed(data_dir, warehouse, keys):
    """Runs `cqlite watch` until every table of `keys` has committed, then stops it with SIGTERM."""
    watch = Watch(data_dir, warehouse)
    try:
        watch.wait_until(lambda: all(watch.committed(k) for k in keys), "the watcher did not commit every table")
    finally:
        watch.stop()
    return watch.log()


def _check_one_schema(cqlite, data_dir, tmp_path, expected=None):
    tables = _table_dirs(data_dir)
    assert tables
    materialized = tmp_path / "materialized"
    watched = tmp_path / "watched"
    cqlite("materialize", data_dir, "--warehouse", materialized)
    log = _watch_until_committed(data_dir, watched, sorted(tables))
    for key, table_dir in tables.items():
        published = _published_columns(materialized, key)
        assert _published_columns(watched, key) == published, f"{key}: watch and materialize differ\n{log}"
        assert _select_columns(cqlite, table_dir) == set(published), key
        assert _dump_cells(cqlite, table_dir) <= set(published), key
        if expected and key in expected:
            assert published[:len(expected[key])] == expected[key], key
    # The watcher's warehouse holds what a run over the data directory resolves.
    again = cqlite("materialize", data_dir, "--warehouse", watched, "--json")
    report = json.loads(again.stdout)
    assert all(not t.get("committed") for t in report["tables"]), again.stdout


def test_examples_keyspace_schema_cql(cqlite, tmp_path):
    data_dir = tmp_path / "data"
    shutil.copytree(REPO / "examples" / "data", data_dir)
    _check_one_schema(cqlite, data_dir, tmp_path, expected={
        "shop.orders": ["customer", "placed_at", "order_id"],
        "shop.price_points": ["sku", "store", "price"],
    })


def test_system_schema_of_the_data_directory(cqlite, fixtures_dir, tmp_path):
    source = fixtures_dir / PCASS
    if not source.is_dir():
        pytest.skip(f"SKIPPED: {source} is not in the shared fixtures")
    data_dir = tmp_path / "data"
    for ks in ("system_schema", "sina_test"):
        shutil.copytree(source / ks, data_dir / ks)
    # Key column names come from system_schema only (a header has none).
    _check_one_schema(cqlite, data_dir, tmp_path, expected={"sina_test.songs": ["title"], "sina_test.users": ["login"]})


def test_watch_logs_schema_changes_of_a_live_node(oracle, cqlite, tmp_path):
    node = live_node.LiveNode(oracle, tmp_path / "node").start()
    watch = None
    try:
        node.cql("CREATE KEYSPACE ev WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
        node.cql("CREATE TYPE ev.addr (street text)")
        node.cql("CREATE TABLE ev.t (k int, c int, v text, gone int, a frozen<addr>, PRIMARY KEY (k, c))")
        node.cql("CREATE TABLE ev.doomed (k int PRIMARY KEY, x int)")
        node.cql("INSERT INTO ev.t (k, c, v, gone, a) VALUES (1, 1, 'one', 1, {street: 'Main'})")
        node.flush("ev", "t")
        node.flush_schema()
        watch = Watch(node.data_dir(), tmp_path / "warehouse")
        watch.wait_until(lambda: watch.committed("ev.t"), "the watcher did not commit ev.t")

        # Each change in a generation of its own: v dropped, then added again.
        node.cql("ALTER TABLE ev.t DROP v")
        node.flush_schema()
        node.cql("ALTER TABLE ev.t ADD v text")
        node.cql("ALTER TABLE ev.t DROP gone")
        node.cql("ALTER TABLE ev.t ADD note text")
        node.cql("ALTER TYPE ev.addr ADD zip text")
        node.cql("DROP TABLE ev.doomed")
        node.flush_schema()
        node.cql("INSERT INTO ev.t (k, c, v, note) VALUES (2, 2, 'two', 'new')")
        node.flush("ev", "t")
        change = ("ev.t: schema changed: column note (text) added, column gone (int) dropped, "
                  "user type ev.addr: field zip (text) added")
        watch.wait_until(lambda: any(change in line for line in watch.lines), "no schema change logged")
        assert sum("schema changed" in line for line in watch.lines) == 1, watch.log()
    finally:
        if watch:
            watch.stop()
        data_dir = node.data_dir()
        node.stop()
    # The node's system_schema, folded over its generations, has the table's columns now.
    table_dir = next((data_dir / "ev").glob("t-*"))
    assert _select_columns(cqlite, table_dir) == {"k", "c", "v", "a", "note"}
