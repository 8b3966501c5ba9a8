"""`cqlite materialize` runs that fold only their new generations
(src/materialize/newer_facts.h), on the data of a running Cassandra 5.0 node.

When every fact a new generation holds is newer than every fact consumed
before, and each of its rows is written whole (an INSERT of every column) or
deleted, the run folds the new generations alone and looks their rows up in
the row index. Each round below writes such rows (changed, unchanged, new,
deleted), flushes and materializes the table twice: into a warehouse whose
runs may fold the new generations alone, and into one where every run folds
everything (--fold-everything). After each round:

  - the first warehouse's run folded the new generations alone, or, in the
    rounds that write what they cannot decide alone (an UPDATE of one column,
    a write with an older timestamp, a range deletion), it folded everything;
  - both runs write and delete the same number of rows, and both tables, as
    PyIceberg and DuckDB read them, equal the node's SELECT JSON *;
  - the update layer of the row index grows with the fast runs and is folded
    into its base by every other run, among them one that would take it past
    its limit.
"""
import json
import pathlib
import random
import shutil
import tempfile

import pytest

import iceberg_readers
import live_node
import table_compare

KS = "newer"
TABLE = "readings"
CATALOG_NAME = "cqlite"
PARTITIONS = 12
ROWS = 40  # per partition: 480 rows, an update layer of at most 1024 + 480 / 4 entries


@pytest.fixture(scope="module")
def node(oracle):
    work = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-newer-facts-"))
    n = live_node.LiveNode(oracle, work / "node").start()
    n.cql(f"CREATE KEYSPACE {KS} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}")
    n.cql(f"CREATE TABLE {KS}.{TABLE} (k int, c int, v text, n bigint, tags set<text>, attrs map<text, int>, "
          "PRIMARY KEY (k, c)) WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}")
    n.flush_schema()
    yield n
    n.stop()
    shutil.rmtree(work, ignore_errors=True)


def _materialize(cqlite, path, warehouse, *extra):
    proc = cqlite("materialize", path, "--warehouse", warehouse, "--json", "--threads", "2", *extra, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)["tables"]
    assert len(report) == 1 and report[0]["committed"], report
    return report[0]


def _fold_state(warehouse):
    location = iceberg_readers.metadata_location(warehouse / "catalog.db", CATALOG_NAME, KS, TABLE)
    metadata = json.loads(pathlib.Path(location).read_text())
    current = next(s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"])
    return json.loads(pathlib.Path(current["summary"]["cqlite.fold-state"]).read_text())


def _check_equal(warehouse, now, lines):
    catalog = warehouse / "catalog.db"
    location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, KS, TABLE)
    schema = iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))
    expected = table_compare.expected_rows(lines, schema)
    py = iceberg_readers.read_pyiceberg(catalog, warehouse, CATALOG_NAME, KS, TABLE)
    problem = table_compare.differs(table_compare.pyiceberg_view(expected, schema), py, schema)
    assert problem is None, f"{warehouse.name}: PyIceberg vs the node: {problem}"
    duck = iceberg_readers.read_duckdb(catalog, warehouse, CATALOG_NAME, KS, TABLE)
    problem = table_compare.differs(expected, duck, schema)
    assert problem is None, f"{warehouse.name}: DuckDB vs the node: {problem}"
    return len(expected)


def _insert(node, k, c, rng, values=None):
    """An INSERT of every column: random values, or `values` (v, n) with empty collections."""
    if values:
        (v, n), tags, attrs = values, "{}", "{}"
    else:
        v, n = f"v{rng.randrange(1000)}", rng.randrange(-10**12, 10**12)
        tags = "{" + ", ".join(f"'t{rng.randrange(5)}'" for _ in range(rng.randrange(0, 3))) + "}"
        attrs = "{" + ", ".join(f"'a{i}': {rng.randrange(100)}" for i in range(rng.randrange(0, 3))) + "}"
    node.cql(f"INSERT INTO {KS}.{TABLE} (k, c, v, n, tags, attrs) VALUES ({k}, {c}, '{v}', {n}, {tags}, {attrs})")


def test_runs_that_fold_only_their_new_generations_equal_the_node(node, cqlite, tmp_path):
    rng = random.Random(20261202)
    fast, full = tmp_path / "warehouse-fast", tmp_path / "warehouse-everything"
    table_dir = node.table_dir(KS, TABLE)
    for k in range(PARTITIONS):
        for c in range(ROWS):
            _insert(node, k, c, rng, ("same", k * 1000 + c) if c % 10 == 0 else None)
    node.flush(KS, TABLE)
    for warehouse in (fast, full):
        report = _materialize(cqlite, table_dir, warehouse)
        assert report["folded"] == "every generation", report
    now, lines = node.select(KS, TABLE)
    assert _check_equal(fast, now, lines) == PARTITIONS * ROWS

    # (what the round writes, whether the new generation decides its rows alone)
    rounds = [("changes", True), ("changes", True), ("update", False), ("changes", True),
              ("older", False), ("changes", True), ("range", False), ("everything", True),
              ("many new", False), ("changes", True)]
    layer_sizes = []
    for number, (kind, alone) in enumerate(rounds):
        if kind == "changes":
            for _ in range(30):  # changed, new or deleted rows
                k, c = rng.randrange(PARTITIONS + 2), rng.randrange(ROWS + 5)
                if rng.random() < 0.25:
                    node.cql(f"DELETE FROM {KS}.{TABLE} WHERE k = {k} AND c = {c}")
                else:
                    _insert(node, k, c, rng)
            for k in range(PARTITIONS):  # written again as they were: no row changes
                _insert(node, k, 0, rng, ("same", k * 1000))
        elif kind == "update":
            node.cql(f"UPDATE {KS}.{TABLE} SET v = 'updated' WHERE k = 1 AND c = 3")
        elif kind == "older":
            node.cql(f"INSERT INTO {KS}.{TABLE} (k, c, v, n, tags, attrs) VALUES (2, 4, 'old', 1, {{}}, {{}}) "
                     "USING TIMESTAMP 1000")
        elif kind == "range":
            node.cql(f"DELETE FROM {KS}.{TABLE} WHERE k = 3 AND c > 30")
        elif kind == "everything":  # every row written anew: the update layer holds them all
            for k in range(PARTITIONS):
                for c in range(ROWS):
                    _insert(node, k, c, rng)
        else:  # more new rows than the update layer has room for
            for k in range(PARTITIONS + 10, PARTITIONS + 24):
                for c in range(50):
                    _insert(node, k, c, rng)
        node.flush(KS, TABLE)
        report = _materialize(cqlite, table_dir, fast)
        everything = _materialize(cqlite, table_dir, full, "--fold-everything")
        want = "new generations" if alone else "every generation"
        assert report["folded"] == want, (number, kind, report)
        assert ("folded_everything_because" in report) == (not alone), report
        assert everything["folded"] == "every generation" and "folded_everything_because" not in everything
        for key in ("rows_written", "rows_deleted", "rows_total"):
            assert report[key] == everything[key], (number, kind, key, report, everything)
        now, lines = node.select(KS, TABLE)
        assert _check_equal(fast, now, lines) == len(lines)
        assert _check_equal(full, now, lines) == len(lines)
        state = _fold_state(fast)
        layer_sizes.append(state.get("row-index-update-count", 0))
        assert bool(state.get("row-index-updates")) == alone, (number, kind, state)
        assert "row-index-updates" not in _fold_state(full)
    # The layer grew with each fast run and was folded away by each full one.
    assert layer_sizes[0] > 0 and layer_sizes[1] > layer_sizes[0], layer_sizes
    assert layer_sizes[2] == 0 and layer_sizes[8] == 0, layer_sizes
    assert layer_sizes[7] >= PARTITIONS * ROWS, layer_sizes
