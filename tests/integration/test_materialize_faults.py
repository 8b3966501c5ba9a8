"""`cqlite materialize` under races and crashes.

A real Cassandra 5.0 node (tools/oracle) writes the table faults.events in
four flushed generations: inserts, overwrites, cell, row, range and partition
deletions. Every table below is compared with a serial run: one run per
generation, into a fresh warehouse, whose last state must equal
`cqlite select` over the same SSTables.

Races: two `cqlite materialize` processes start at once on the same source
and the same catalog (a SQLite file, and a PostgreSQL database), both from an
empty catalog or from one holding all but the last generation. Both must exit 0, the table must equal the serial run
(read by PyIceberg and DuckDB), the snapshots must form one chain, and the
losing writer's files must be gone. Over the rounds at least one run must
have lost the compare-and-swap and retried (`attempts` > 1).

Crashes: runs, first runs and later runs, are killed with SIGKILL after
delays spread over a whole run's duration. After each kill either the catalog
still points at the previous metadata (or has no table) and PyIceberg reads
the previous state exactly, or the kill came after the commit and the table
is the serial run's; either way the next normal run produces the serial
run's state. A crash at each file operation of a run, the power cut after
it and a failed write at each operation are covered in-process, by
src/materialize/materializer_crash_test.cc over the fault-injecting file
system of src/io/fault_injection_file_system.h.

`cqlite maintain` racing `cqlite materialize` (both at once on one table
whose last generation is new), and maintain killed with SIGKILL after delays
spread over its duration: the table always reads as the serial run's, a
normal maintain and a run afterwards finish it, and once orphans are
removed no file is left that no snapshot references. The same in-process,
at each file operation and against a run committing first in either order:
src/maintain/maintainer_test.cc.

The node's output is cached under ${CQLITE_CACHE:-~/.cache/cqlite}/oracle/,
keyed by the scenario text and the oracle version. The scenario also holds the
keyspaces `odd` and `oddempty` used by
test_materialize_bad_input.py.
"""
import json
import os
import pathlib
import random
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time

import pytest

import conftest
import cql_json
import iceberg_readers
import node_runs

CATALOG_NAME = "cqlite"
NOW = 1_900_000_000  # TTLs are evaluated at a fixed time: every run sees the same rows
GENERATIONS = 4
RACE_ROUNDS = int(os.environ.get("CQLITE_RACE_ROUNDS", "10"))
KILLS = int(os.environ.get("CQLITE_KILLS", "20"))


# ---------------------------------------------------------------------------
# The node's SSTables
# ---------------------------------------------------------------------------

def _events_statements():
    r = random.Random(11)
    out = ["CREATE TABLE faults.events (device int, seq int, kind text, amount bigint, tags set<text>, note text, "
           "PRIMARY KEY (device, seq)) WITH CLUSTERING ORDER BY (seq DESC);"]
    ts = 1_000_000
    for generation in range(GENERATIONS):
        for _ in range(700):
            ts += 1
            tags = ", ".join(f"'t{r.randrange(9)}'" for _ in range(r.randrange(3)))
            out.append(f"INSERT INTO faults.events (device, seq, kind, amount, tags, note) VALUES "
                       f"({r.randrange(60)}, {r.randrange(200)}, 'k{r.randrange(5)}', "
                       f"{r.randrange(-10**12, 10**12)}, {{{tags}}}, '{'n' * r.randrange(40)}') USING TIMESTAMP {ts};")
        if generation:
            for _ in range(40):
                ts += 1
                out.append(f"DELETE FROM faults.events USING TIMESTAMP {ts} "
                           f"WHERE device = {r.randrange(60)} AND seq = {r.randrange(200)};")
            ts += 1
            out.append(f"DELETE FROM faults.events USING TIMESTAMP {ts} "
                       f"WHERE device = {r.randrange(60)} AND seq > 50 AND seq < 90;")
            ts += 1
            out.append(f"DELETE FROM faults.events USING TIMESTAMP {ts} WHERE device = {r.randrange(60)};")
            for _ in range(30):
                ts += 1
                out.append(f"UPDATE faults.events USING TIMESTAMP {ts} SET note = null, amount = {r.randrange(100)} "
                           f"WHERE device = {r.randrange(60)} AND seq = {r.randrange(200)};")
        out.append("-- flush")
    return out


# Tables for test_materialize_bad_input.py: float and double key columns, a
# custom type (no Iceberg form), and the empty type in a keyspace of its own
# (its schema.cql spells the column's type `empty`).
_ODD_STATEMENTS = """
CREATE TABLE odd.readings (sensor text, at double, level float, note text, PRIMARY KEY (sensor, at));
CREATE TABLE odd.gauges (g float PRIMARY KEY, v int);
INSERT INTO odd.readings (sensor, at, level, note) VALUES ('a', 1.5, 0.25, 'first');
INSERT INTO odd.readings (sensor, at, level, note) VALUES ('a', -0.0, 1.0, 'negative zero');
INSERT INTO odd.readings (sensor, at, level, note) VALUES ('a', 1e300, -3.5, 'huge');
INSERT INTO odd.readings (sensor, at, level, note) VALUES ('b', -2.25, NaN, 'nan level');
INSERT INTO odd.readings (sensor, at, level, note) VALUES ('b', 3.0, Infinity, null);
INSERT INTO odd.gauges (g, v) VALUES (0.5, 1);
INSERT INTO odd.gauges (g, v) VALUES (-1.25, 2);
INSERT INTO odd.gauges (g, v) VALUES (3.4028235e38, 3);
-- flush
UPDATE odd.readings SET note = 'second' WHERE sensor = 'a' AND at = 1.5;
DELETE FROM odd.readings WHERE sensor = 'b' AND at = -2.25;
INSERT INTO odd.readings (sensor, at, level, note) VALUES ('c', 0.1, 2.0, 'c');
INSERT INTO odd.readings (sensor, at, level, note) VALUES ('c', -1e-300, 2.5, 'tiny');
UPDATE odd.gauges SET v = 20 WHERE g = -1.25;
DELETE FROM odd.gauges WHERE g = 0.5;
INSERT INTO odd.gauges (g, v) VALUES (1e-30, 4);
-- flush
-- select odd.readings
-- select odd.gauges
CREATE TABLE odd.custom (k int PRIMARY KEY, v 'org.apache.cassandra.db.marshal.DynamicCompositeType(s=>org.apache.cassandra.db.marshal.UTF8Type,i=>org.apache.cassandra.db.marshal.Int32Type)');
INSERT INTO odd.custom (k, v) VALUES (1, 0x8073000361626300);
CREATE TABLE oddempty.empties (k int PRIMARY KEY, v 'org.apache.cassandra.db.marshal.EmptyType');
INSERT INTO oddempty.empties (k) VALUES (1);
-- flush
""".strip().splitlines()


def scenario_text():
    keyspace = "CREATE KEYSPACE {} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}};"
    lines = [*(keyspace.format(ks) for ks in ("faults", "odd", "oddempty")), *_events_statements(), *_ODD_STATEMENTS]
    return "\n".join(lines) + "\n"


def generate_node_tables(oracle):
    """The node's output for scenario_text(): <dir>/<keyspace>/<table>-<id>/ and schema.cql; cached."""
    return node_runs.generated(oracle, scenario_text(), "materialize-faults", "the fault tests' tables",
                               lambda out: all((out / ks).is_dir() for ks in ("faults", "odd", "oddempty")))


def generations(table_dir):
    """SSTable component prefixes ("oa-3-big-") in generation order."""
    prefixes = {p.name[:-len("Data.db")] for p in table_dir.glob("*-Data.db")}
    return sorted(prefixes, key=lambda p: int(p.split("-")[1]))


def copy_source(node_dir, keyspace, table, dest_root, count):
    """dest_root/<keyspace>/<table>-<id>/ with the table's first `count` generations; returns that directory."""
    table_dir = next((node_dir / keyspace).glob(table + "-*"))
    dest = dest_root / keyspace / table_dir.name
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(node_dir / keyspace / "schema.cql", dest.parent / "schema.cql")
    for prefix in generations(table_dir)[:count]:
        for component in table_dir.glob(prefix + "*"):
            if not (dest / component.name).exists():
                shutil.copy(component, dest / component.name)
    return dest


# ---------------------------------------------------------------------------
# Runs and what the catalog holds
# ---------------------------------------------------------------------------

def materialize_args(source, warehouse, table, catalog=None):
    """The command line of a run; `catalog`: another catalog than <warehouse>/catalog.db."""
    return [str(conftest.cqlite_binary()), "materialize", str(source), "--warehouse", str(warehouse),
            "--table", table, "--now", str(NOW), "--json", *(["--catalog", str(catalog)] if catalog else [])]


def run_materialize(source, warehouse, table, timeout=300, catalog=None):
    proc = subprocess.run(materialize_args(source, warehouse, table, catalog), capture_output=True, text=True,
                          timeout=timeout)
    report = json.loads(proc.stdout)["tables"][0] if proc.returncode == 0 else None
    return proc, report


def catalog_row(catalog, table, ns="faults"):
    if not pathlib.Path(catalog).exists():
        return None
    # Read-write, as every catalog client opens it: a process killed inside the catalog's commit
    # transaction leaves a hot rollback journal, which the next connection must roll back (a
    # read-only connection cannot, and fails with "attempt to write a readonly database").
    con = sqlite3.connect(f"file:{catalog}?mode=rw", uri=True)
    try:
        return con.execute("SELECT metadata_location, previous_metadata_location FROM iceberg_tables "
                           "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?",
                           (CATALOG_NAME, ns, table)).fetchone()
    finally:
        con.close()


def read_rows(warehouse, table, ns="faults", catalog=None):
    return iceberg_readers.read_pyiceberg(catalog or warehouse / "catalog.db", warehouse, CATALOG_NAME, ns, table)


def snapshot_chain(warehouse, table, ns="faults", catalog=None):
    """Problems with the current metadata's snapshots (empty if they form one chain ending at the current one),
    and the snapshots."""
    location = iceberg_readers.metadata_location(catalog or warehouse / "catalog.db", CATALOG_NAME, ns, table)
    metadata = json.loads(pathlib.Path(location).read_text())
    snapshots = metadata.get("snapshots", [])
    problems = []
    previous = None
    for s in snapshots:
        if s.get("parent-snapshot-id") != previous:
            problems.append(f"snapshot {s['snapshot-id']} has parent {s.get('parent-snapshot-id')}, "
                            f"expected {previous}")
        previous = s["snapshot-id"]
    if metadata.get("current-snapshot-id") != previous:
        problems.append(f"current snapshot {metadata.get('current-snapshot-id')} is not the last one {previous}")
    seqs = [s["sequence-number"] for s in snapshots]
    if seqs != list(range(1, len(seqs) + 1)):
        problems.append(f"sequence numbers {seqs}")
    return problems, snapshots


def unreferenced_files(warehouse, table, ns="faults", catalog=None):
    """Data and delete files under the table's data/ directory that no snapshot references."""
    catalog = iceberg_readers._pyiceberg_catalog(catalog or warehouse / "catalog.db", warehouse, CATALOG_NAME)
    tbl = catalog.load_table((ns, table))
    referenced = set()
    for snapshot in tbl.metadata.snapshots:
        for task in tbl.scan(snapshot_id=snapshot.snapshot_id).plan_files():
            referenced.add(iceberg_readers._local_path(task.file.file_path))
            for d in task.delete_files:
                referenced.add(iceberg_readers._local_path(d.file_path))
    on_disk = {str(p) for p in (warehouse / ns / table / "data").glob("*.parquet")}
    return sorted(on_disk - referenced)


@pytest.fixture(scope="module")
def node_tables(oracle):
    return generate_node_tables(oracle)


class Serial:
    """The serial run: one run per generation into a fresh warehouse; rows after each."""

    def __init__(self, root, node_tables):
        self.root = root
        self.node_tables = node_tables
        self.warehouse = root / "serial"
        self.rows = {}       # generations consumed -> PyIceberg rows
        self.snapshots = {}  # generations consumed -> snapshot count
        self.seconds = []    # each run's wall time


@pytest.fixture(scope="module")
def serial(node_tables, cqlite):
    root = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-faults-"))
    s = Serial(root, node_tables)
    for k in range(1, GENERATIONS + 1):
        source = copy_source(node_tables, "faults", "events", root / "serial-source", k)
        t0 = time.monotonic()
        proc, report = run_materialize(source, s.warehouse, "events")
        s.seconds.append(time.monotonic() - t0)
        assert proc.returncode == 0, proc.stderr
        assert report["committed"] and report["generations_consumed"] == 1, report
        s.rows[k] = read_rows(s.warehouse, "events")
        problems, snapshots = snapshot_chain(s.warehouse, "events")
        assert not problems, problems
        s.snapshots[k] = len(snapshots)
    # The serial run itself must be right: its table equals `cqlite select` over the same SSTables.
    location = iceberg_readers.metadata_location(s.warehouse / "catalog.db", CATALOG_NAME, "faults", "events")
    schema = iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))
    lines = cqlite("select", source, "--now", NOW).stdout.splitlines()
    expected = cql_json.mask_rows(cql_json.rows_from_select_json(lines, schema), schema)
    assert expected == cql_json.mask_rows(s.rows[GENERATIONS], schema), "the serial run differs from cqlite select"
    assert len({json.dumps(s.rows[k], sort_keys=True) for k in s.rows}) == GENERATIONS, \
        "every generation must change the table"
    print(f"serial run: {[len(s.rows[k]) for k in sorted(s.rows)]} rows after each generation; "
          f"runs took {', '.join(f'{t:.2f}' for t in s.seconds)} s")
    yield s
    shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------
# Races
# ---------------------------------------------------------------------------

def _race(sources, warehouse, table, catalog=None):
    """Starts one process per source at once; returns [(returncode, report or stderr)]."""
    procs = [subprocess.Popen(materialize_args(src, warehouse, table, catalog), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for src in sources]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        results.append((p.returncode, json.loads(out)["tables"][0] if p.returncode == 0 else err))
    return results


@pytest.mark.parametrize("catalog_kind", ["sqlite", "postgresql"])
def test_racing_materializers_both_finish_and_equal_a_serial_run(serial, node_tables, catalog_kind, request):
    # The writers share the warehouse and the catalog: its SQLite file, or a PostgreSQL database (a
    # JDBC catalog many machines can share), where the loser of the compare-and-swap is failed by the
    # server instead of waiting for a file lock.
    root = serial.root / f"race-{catalog_kind}"
    warehouse = root / "warehouse"
    catalog = request.getfixturevalue("postgres_catalog") if catalog_kind == "postgresql" else None
    attempts_seen = []
    problems = []
    tables = []
    rounds = 0

    def one_round(n, writers):
        # Even rounds race from an empty catalog over every generation; odd rounds race over the last
        # generation while the catalog holds all the others.
        table = f"events_r{n}"
        from_empty = n % 2 == 0
        sources = []
        for w in range(writers):
            src_root = root / f"src-{n}-{w}"
            if not from_empty and w == 0:
                prev = copy_source(node_tables, "faults", "events", src_root, GENERATIONS - 1)
                proc, _ = run_materialize(prev, warehouse, table, catalog=catalog)
                assert proc.returncode == 0, proc.stderr
            sources.append(copy_source(node_tables, "faults", "events", src_root, GENERATIONS))
        results = _race(sources, warehouse, table, catalog)
        label = f"round {n} ({writers} writers, {'from empty' if from_empty else 'from generation 3'})"
        for rc, report in results:
            if rc != 0:
                problems.append(f"{label}: a writer failed ({rc}): {report.strip()}")
                continue
            attempts_seen.append(report["attempts"])
        # Whoever comes second finds every generation consumed: exactly one writer commits.
        committed = [r for rc, r in results if rc == 0 and r["committed"]]
        if len(committed) != 1:
            problems.append(f"{label}: {len(committed)} writers committed, expected exactly one")
        chain, snapshots = snapshot_chain(warehouse, table, catalog=catalog)
        if chain:
            problems.append(f"{label}: snapshots do not form a chain: {chain}")
        if len(snapshots) != (1 if from_empty else 2):
            problems.append(f"{label}: {len(snapshots)} snapshots, expected {1 if from_empty else 2}")
        if read_rows(warehouse, table, catalog=catalog) != serial.rows[GENERATIONS]:
            problems.append(f"{label}: PyIceberg reads another table than the serial run's")
        orphans = unreferenced_files(warehouse, table, catalog=catalog)
        if orphans:
            problems.append(f"{label}: files no snapshot references: {orphans}")
        tables.append(("faults", table))

    for n in range(RACE_ROUNDS):
        one_round(n, 2)
        rounds += 1
    if not any(a > 1 for a in attempts_seen):
        # The two writers never overlapped (a slow start of one of them): race more writers at once.
        for n in range(RACE_ROUNDS, RACE_ROUNDS + 4):
            one_round(n, 4)
            rounds += 1
    duck = iceberg_readers.read_duckdb_many(catalog or warehouse / "catalog.db", warehouse, CATALOG_NAME, tables)
    for key, rows in duck.items():
        if rows != serial.rows[GENERATIONS]:
            problems.append(f"{key[1]}: DuckDB reads another table than the serial run's")
    retried = sum(a > 1 for a in attempts_seen)
    print(f"races ({catalog_kind} catalog): {rounds} rounds, {len(attempts_seen)} runs finished, {retried} retried after losing the "
          f"compare-and-swap (attempts {sorted(attempts_seen)})")
    assert not problems, "\n".join(problems)
    assert retried >= 1, f"no run lost a race in {rounds} rounds: attempts {attempts_seen}"


# ---------------------------------------------------------------------------
# Crashes
# ---------------------------------------------------------------------------

def _check_after_kill(warehouse, table, before_row, before_rows, label):
    """Problems with the catalog and the table after a killed run that must not have committed."""
    problems = []
    catalog = warehouse / "catalog.db"
    row = catalog_row(catalog, table)
    if before_row is None:
        if row is not None:
            problems.append(f"{label}: the table exists after a killed first run: {row}")
        return problems
    if row != before_row:
        problems.append(f"{label}: the catalog moved from {before_row} to {row}")
        return problems
    if read_rows(warehouse, table) != before_rows:
        problems.append(f"{label}: PyIceberg does not read the previous snapshot's rows")
    return problems


def _recover(serial, source, warehouse, table, label):
    """A normal run after a kill: must produce the serial run's state."""
    proc, report = run_materialize(source, warehouse, table)
    if proc.returncode != 0:
        return [f"{label}: the next run failed: {proc.stderr.strip()}"]
    problems = []
    if read_rows(warehouse, table) != serial.rows[GENERATIONS]:
        problems.append(f"{label}: after the next run PyIceberg reads another table than the serial run's")
    chain, snapshots = snapshot_chain(warehouse, table)
    if chain:
        problems.append(f"{label}: {chain}")
    return problems


def _setup_killed_table(serial, root, warehouse, table, first_run):
    """The table before the killed run: absent (first run) or holding generations 1..3."""
    sources = root / "sources"
    full = copy_source(serial.node_tables, "faults", "events", sources / "all", GENERATIONS)
    if not first_run:
        prev = copy_source(serial.node_tables, "faults", "events", sources / "prev", GENERATIONS - 1)
        proc, _ = run_materialize(prev, warehouse, table)
        assert proc.returncode == 0, proc.stderr
    catalog = warehouse / "catalog.db"
    before_row = catalog_row(catalog, table)
    before_rows = read_rows(warehouse, table) if before_row else None
    if not first_run:
        assert before_rows == serial.rows[GENERATIONS - 1]
    return full, before_row, before_rows


def test_a_run_killed_at_any_time_leaves_the_previous_or_the_next_snapshot(serial):
    root = serial.root / "crash-times"
    warehouse = root / "warehouse"
    # How long runs take here, first runs (every generation) and later runs (the last one) apart.
    durations = {True: [], False: []}
    for n in range(4):
        first_run = n % 2 == 0
        full, *_ = _setup_killed_table(serial, root, warehouse, f"events_timing{n}", first_run)
        t0 = time.monotonic()
        proc, _ = run_materialize(full, warehouse, f"events_timing{n}")
        durations[first_run].append(time.monotonic() - t0)
        assert proc.returncode == 0, proc.stderr
    # The shortest: a timing run slowed by other work on the machine must not push the kills past the end.
    span = {kind: min(d) for kind, d in durations.items()}
    problems = []
    outcomes = {"killed, table unchanged": 0, "killed after the commit": 0, "finished before the kill": 0}
    for i in range(KILLS):
        first_run = i % 2 == 0
        table = f"events_k{i}"
        full, before_row, before_rows = _setup_killed_table(serial, root, warehouse, table, first_run)
        delay = (i // 2 + 0.5) / (KILLS // 2) * span[first_run]
        proc = subprocess.Popen(materialize_args(full, warehouse, table), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=300)
        label = f"kill {i} after {delay * 1000:.0f} ms ({'first' if first_run else 'later'} run)"
        row = catalog_row(warehouse / "catalog.db", table)
        if proc.returncode == 0:
            outcomes["finished before the kill"] += 1
        elif proc.returncode != -signal.SIGKILL:
            problems.append(f"{label}: exit {proc.returncode}: {err.strip()}")
            continue
        elif row == before_row:
            outcomes["killed, table unchanged"] += 1
            problems += _check_after_kill(warehouse, table, before_row, before_rows, label)
        else:
            # Killed after the catalog update: the new snapshot must be complete.
            outcomes["killed after the commit"] += 1
            if read_rows(warehouse, table) != serial.rows[GENERATIONS]:
                problems.append(f"{label}: the committed table differs from the serial run's")
        problems += _recover(serial, full, warehouse, table, label)
    print(f"crash times: {KILLS} kills spread over {span[True] * 1000:.0f} ms (first runs) and "
          f"{span[False] * 1000:.0f} ms (later runs): {outcomes}")
    assert not problems, "\n".join(problems)
    assert outcomes["killed, table unchanged"] >= KILLS // 3, outcomes


# ---------------------------------------------------------------------------
# Maintenance racing runs, and killed
# ---------------------------------------------------------------------------

def maintain_args(warehouse, table, *extra):
    return [str(conftest.cqlite_binary()), "maintain", f"faults.{table}", "--warehouse", str(warehouse), "--json",
            "--expire-older-than", "0s", "--retain-last", "2", *extra]


def _kept_chain(warehouse, table):
    """Problems with the snapshots maintenance kept: a chain (its first one's parent expired) of rising
    sequence numbers ending at the current one."""
    location = iceberg_readers.metadata_location(warehouse / "catalog.db", CATALOG_NAME, "faults", table)
    metadata = json.loads(pathlib.Path(location).read_text())
    snapshots = metadata.get("snapshots", [])
    problems = []
    for before, after in zip(snapshots, snapshots[1:]):
        if after.get("parent-snapshot-id") != before["snapshot-id"] or \
                after["sequence-number"] <= before["sequence-number"]:
            problems.append(f"snapshot {after['snapshot-id']} does not follow {before['snapshot-id']}")
    if not snapshots or metadata.get("current-snapshot-id") != snapshots[-1]["snapshot-id"]:
        problems.append("the current snapshot is not the last one kept")
    return problems


def _finish_maintained(serial, source, warehouse, table, label):
    """A normal maintain (orphans too) and a run after it: the serial run's rows, nothing new to commit,
    one chain, no unreferenced file."""
    problems = []
    proc = subprocess.run(maintain_args(warehouse, table, "--orphan-age", "0s"), capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        return [f"{label}: the next maintain failed: {proc.stderr.strip()}"]
    if json.loads(proc.stdout)["tables"][0]["orphans_skipped"]:
        problems.append(f"{label}: the next maintain skipped the orphans with no run beside it")
    run, report = run_materialize(source, warehouse, table)
    if run.returncode != 0:
        return problems + [f"{label}: the run after maintain failed: {run.stderr.strip()}"]
    if report["committed"]:
        problems.append(f"{label}: the run after maintain committed: {report['message']}")
    if read_rows(warehouse, table) != serial.rows[GENERATIONS]:
        problems.append(f"{label}: PyIceberg reads another table than the serial run's")
    problems += [f"{label}: {p}" for p in _kept_chain(warehouse, table)]
    orphans = unreferenced_files(warehouse, table)
    if orphans:
        problems.append(f"{label}: files no snapshot references: {orphans}")
    return problems


def _one_run_per_generation(serial, root, warehouse, table, count):
    for k in range(1, count + 1):
        source = copy_source(serial.node_tables, "faults", "events", root / f"{table}-{k}", k)
        proc, _ = run_materialize(source, warehouse, table)
        assert proc.returncode == 0, proc.stderr
    return copy_source(serial.node_tables, "faults", "events", root / f"{table}-all", GENERATIONS)


def test_maintain_racing_a_run_loses_nothing(serial):
    root = serial.root / "maintain-race"
    warehouse = root / "warehouse"
    problems = []
    attempts = []
    for n in range(RACE_ROUNDS):
        table = f"events_mr{n}"
        full = _one_run_per_generation(serial, root, warehouse, table, GENERATIONS - 1)
        label = f"round {n}"
        procs = [subprocess.Popen(maintain_args(warehouse, table), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True),
                 subprocess.Popen(materialize_args(full, warehouse, table), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)]
        if n % 2:
            procs.reverse()  # the run starts first every other round
        for p in procs:
            out, err = p.communicate(timeout=300)
            if p.returncode != 0:
                problems.append(f"{label}: {p.args[1]} failed ({p.returncode}): {err.strip()}")
            elif p.args[1] == "materialize":
                attempts.append(json.loads(out)["tables"][0]["attempts"])
        if read_rows(warehouse, table) != serial.rows[GENERATIONS]:
            problems.append(f"{label}: PyIceberg reads another table than the serial run's right after the race")
        problems += _finish_maintained(serial, full, warehouse, table, label)
    print(f"maintain racing a run: {RACE_ROUNDS} rounds, run attempts {sorted(attempts)}")
    assert not problems, "\n".join(problems)


def test_maintain_killed_at_any_time_loses_nothing(serial):
    root = serial.root / "maintain-kills"
    warehouse = root / "warehouse"
    durations = []
    for n in range(3):
        table = f"events_mt{n}"
        _one_run_per_generation(serial, root, warehouse, table, GENERATIONS)
        t0 = time.monotonic()
        proc = subprocess.run(maintain_args(warehouse, table), capture_output=True, text=True, timeout=300)
        durations.append(time.monotonic() - t0)
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)["tables"][0]
        assert report["data_files_rewritten"] > 0 and report["snapshots_expired"] > 0, report
    span = min(durations)
    problems = []
    outcomes = {"killed before a commit": 0, "killed after a commit": 0, "finished before the kill": 0}
    for i in range(KILLS):
        table = f"events_mk{i}"
        full = _one_run_per_generation(serial, root, warehouse, table, GENERATIONS)
        before_row = catalog_row(warehouse / "catalog.db", table)
        delay = (i + 0.5) / KILLS * span
        proc = subprocess.Popen(maintain_args(warehouse, table), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=300)
        label = f"kill {i} after {delay * 1000:.0f} ms"
        if proc.returncode == 0:
            outcomes["finished before the kill"] += 1
        elif proc.returncode != -signal.SIGKILL:
            problems.append(f"{label}: exit {proc.returncode}: {err.strip()}")
            continue
        elif catalog_row(warehouse / "catalog.db", table) == before_row:
            outcomes["killed before a commit"] += 1
        else:
            outcomes["killed after a commit"] += 1
        if read_rows(warehouse, table) != serial.rows[GENERATIONS]:
            problems.append(f"{label}: PyIceberg reads another table than the serial run's after the kill")
        problems += _finish_maintained(serial, full, warehouse, table, label)
    print(f"maintain kills: {KILLS} kills spread over {span * 1000:.0f} ms: {outcomes}")
    assert not problems, "\n".join(problems)
    assert outcomes["killed before a commit"] >= 1, outcomes
