"""`cqlite materialize` runs that fold only the rows their new generations
touch (src/materialize/touched_rows.h), on the data of a running Cassandra
5.0 node.

Each round below writes rows (changed, unchanged, new, deleted), flushes and
materializes the table twice: into a warehouse whose runs may fold only the
touched rows, and into one where every run folds everything
(--fold-everything). After each round:

  - the first warehouse's run folded the new generations alone when every
    fact of theirs is newer than the kept ones and every row is written whole
    or deleted; it folded the touched rows from every kept generation in the
    rounds that write what the new facts cannot decide alone (an UPDATE of
    one column, writes and deletions with older timestamps, range and
    partition deletions of old rows); and it folded everything only where the
    touched rows would take the row index's update layer past its limit;
  - both runs write and delete the same number of rows, and both tables, as
    PyIceberg and DuckDB read them, equal the node's SELECT JSON *;
  - the update layer of the row index grows with the runs of touched rows and
    is folded into its base by every other run, among them one that would
    take it past its limit;
  - rows whose TTL runs out between two runs are found by the row index's
    expiries and deleted by a run with nothing new, of touched rows only;
  - a major compaction of every generation consumed, which purges nothing,
    changes no row: its run folds again the rows the vanished generations
    held, from the compaction's output.
"""
import json
import pathlib
import random
import shutil
import tempfile
import time

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

    # (what the round writes, which fold its run makes)
    alone, touched, everything_ = "new generations", "touched rows", "every generation"
    rounds = [("changes", alone), ("changes", alone), ("update", touched), ("changes", alone),
              ("older", touched), ("changes", alone), ("range", touched), ("old deletes", touched),
              ("partition", touched), ("everything", alone), ("many new", everything_), ("changes", alone),
              ("old range", touched), ("ttl", alone), ("expire", touched), ("compact", None)]
    ttl_written_at = None
    layer_sizes = []
    for number, (kind, want) in enumerate(rounds):
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
        elif kind == "old deletes":  # deletions older than some of the rows' cells, and a column update
            node.cql(f"DELETE FROM {KS}.{TABLE} USING TIMESTAMP 1000 WHERE k = 4 AND c = 5")
            node.cql(f"DELETE FROM {KS}.{TABLE} USING TIMESTAMP 1001 WHERE k = 2 AND c = 4")  # the "older" row
            node.cql(f"UPDATE {KS}.{TABLE} USING TIMESTAMP 999 SET v = 'older still' WHERE k = 5 AND c = 6")
            node.cql(f"DELETE tags FROM {KS}.{TABLE} WHERE k = 6 AND c = 7")
        elif kind == "partition":
            node.cql(f"DELETE FROM {KS}.{TABLE} WHERE k = 7")
            node.cql(f"DELETE FROM {KS}.{TABLE} USING TIMESTAMP 1002 WHERE k = 8")
            _insert(node, 7, 3, rng)  # written again after the deletion
        elif kind == "old range":  # a range deletion older than the rows it covers, but one
            node.cql(f"DELETE FROM {KS}.{TABLE} USING TIMESTAMP 1003 WHERE k = 9 AND c >= 10 AND c < 20")
            node.cql(f"DELETE FROM {KS}.{TABLE} WHERE k = 10 AND c >= 10 AND c <= 12")
            node.cql(f"INSERT INTO {KS}.{TABLE} (k, c, v) VALUES (10, 11, 'back') USING TIMESTAMP 1004")
        elif kind == "ttl":  # whole rows that expire in 30 s: the next round waits for them
            for c in range(10):
                node.cql(f"INSERT INTO {KS}.{TABLE} (k, c, v, n, tags, attrs) VALUES ({PARTITIONS + 30}, {c}, "
                         f"'short-lived', {c}, {{'t'}}, {{'a': 1}}) USING TTL 30")
            ttl_written_at = time.time()
        elif kind == "expire":  # nothing new: the rows whose TTL ran out go, found by the row index
            time.sleep(max(0.0, ttl_written_at + 32 - time.time()))
        elif kind == "compact":  # every generation consumed so far compacted into one, purging nothing
            generations = len(list(table_dir.glob("*-Data.db")))
            node.compact(KS, TABLE)
            for _ in range(10):  # the compacted SSTables go once no reader holds them
                if len(list(table_dir.glob("*-Data.db"))) == 1:
                    break
                time.sleep(1)
            assert generations > 1 and len(list(table_dir.glob("*-Data.db"))) == 1
        elif kind == "everything":  # every row written anew: the update layer holds them all
            for k in range(PARTITIONS):
                for c in range(ROWS):
                    _insert(node, k, c, rng)
        else:  # more new rows than the update layer has room for
            for k in range(PARTITIONS + 10, PARTITIONS + 24):
                for c in range(50):
                    _insert(node, k, c, rng)
        if kind != "compact":
            node.flush(KS, TABLE)
        report = _materialize(cqlite, table_dir, fast)
        everything = _materialize(cqlite, table_dir, full, "--fold-everything")
        if kind == "expire":
            assert report["rows_deleted"] == 10 and report["rows_written"] == 0, report
            assert report["read_kept_facts_because"] == "rows folded before have expired since", report
        if kind == "compact":
            # The rows the vanished generations held are folded again, from the compaction's output: a
            # run of touched rows, or of everything where they are more than the update layer takes.
            for r in (report, everything):
                assert "compacted away: the rows they held folded again" in r["message"], r
                assert r["generations_consumed"] == 1 and r["rows_written"] == r["rows_deleted"] == 0, r
            want = report["folded"]
            assert want in (touched, everything_), report
        assert report["folded"] == want, (number, kind, report)
        assert ("folded_everything_because" in report) == (want == everything_), report
        assert ("read_kept_facts_because" in report) == (want == touched), report
        assert everything["folded"] == "every generation" and "folded_everything_because" not in everything
        for key in ("rows_written", "rows_deleted", "rows_total"):
            assert report[key] == everything[key], (number, kind, key, report, everything)
        now, lines = node.select(KS, TABLE)
        assert _check_equal(fast, now, lines) == len(lines)
        assert _check_equal(full, now, lines) == len(lines)
        state = _fold_state(fast)
        layer_sizes.append(state.get("row-index-update-count", 0))
        assert bool(state.get("row-index-updates")) == (want != everything_), (number, kind, state)
        assert "row-index-updates" not in _fold_state(full)
    # The layer grew with each run of touched rows and was folded away by the
    # run that would have taken it past its limit.
    assert layer_sizes[0] > 0 and layer_sizes[1] > layer_sizes[0], layer_sizes
    assert all(later >= earlier for earlier, later in zip(layer_sizes[:10], layer_sizes[1:10])), layer_sizes
    assert layer_sizes[9] >= PARTITIONS * ROWS, layer_sizes
    assert layer_sizes[10] == 0 and layer_sizes[11] > 0, layer_sizes
