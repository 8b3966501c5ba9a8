"""One table, one schema, whichever command reads it (ResolveTableSchema in
src/cassandra/schema_source.h).

On examples/data (its tables declared by the keyspace's schema.cql) and on a
Cassandra 3.0 data directory of the shared fixture corpus (declared by its
system_schema tables), `cqlite select` prints, `cqlite dump` names, `cqlite
materialize` publishes and `cqlite watch` (whose runs read a staging folder
of links, not the data directory) publishes the same columns. A `cqlite
materialize` of the data directory into the warehouse the watcher wrote then
finds nothing to change: it resolves the schema the watcher published.
"""
import json
import pathlib
import re
import shutil
import signal
import subprocess
import time

import pytest

import iceberg_readers
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


def _watch_until_committed(data_dir, warehouse, keys):
    """Runs `cqlite watch` until every table of `keys` has committed, then stops it with SIGTERM."""
    proc = subprocess.Popen([str(cqlite_binary()), "watch", str(data_dir), "--warehouse", str(warehouse),
                             "--interval", "0.5", "--rescan", "0.5", "--no-inotify", "--threads", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    status_dir = warehouse / ".cqlite-watch" / "status"

    def committed(key):
        try:
            return json.loads((status_dir / f"{key}.json").read_text()).get("commits", 0) > 0
        except (OSError, ValueError):
            return False

    try:
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None and not all(committed(k) for k in keys):
            time.sleep(0.2)
        done = all(committed(k) for k in keys)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        log, _ = proc.communicate(timeout=120)
    assert done, f"the watcher did not commit every table:\n{log}"
    assert proc.returncode == 0, log
    return log


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
