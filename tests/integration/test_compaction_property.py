"""A property of `cqlite materialize` on a live data directory: however a
table's generations come (random flushes), are compacted away (random
compactions, with and without purging) and are cut into runs (random run
boundaries, each with a random number of threads), the Iceberg table equals
the one a single run over the final table directory gives, what `cqlite
select` prints, and what the node's own `SELECT JSON *` returns.

A real Cassandra 5.0 node (live_node.LiveNode) holds four tables of different
shapes: clustering with a set and a map, no clustering with a list and a
frozen map, two clustering columns (one descending) with static columns, and
counters. Seeded random steps write to them: INSERTs and partial UPDATEs
(collection elements added and removed), deletions of rows, columns,
collection elements, clustering ranges and partitions, writes and deletions
`USING TIMESTAMP` up to two minutes older than the table's newest write (a
coordinator with a skewed clock), and TTLs of 2 to 40 seconds that run out
while the test goes on; counters are incremented, and partitions whose
counters are deleted are never written again. Between some runs of a table
it is written "clean", as clients that write rows whole write: INSERTs of
every column and row deletions at the node's clock, without TTLs. Between steps, at random:

  - flushes of some tables;
  - compactions of some tables, of four kinds: `merge` (a major compaction
    with gc_grace_seconds as created, ten days: nothing is purged, and the
    table does not change), `purge` (ALTER TABLE ... WITH gc_grace_seconds
    = 0, a major compaction, then back to ten days: tombstones are purged
    with what they shadowed, among them tombstones no run ever consumed, and
    so are cells whose TTL ran out), `expire` (a wait for some TTLs to run
    out, then a major compaction that drops the expired cells, with
    gc_grace_seconds 0, or turns them into tombstones, with ten days) and
    `some` (the node's harness cannot compact chosen SSTables, so
    size-tiered compaction is turned on with a minimum SSTable size of one
    byte, triggered by a write and a flush, and turned off once it is done:
    SSTables of similar sizes are compacted together and the others left as
    they were; half the time with gc_grace_seconds 0, where a tombstone is
    purged only when no SSTable left out holds older data it shadows);
  - runs: for some tables, `cqlite materialize <table dir> --warehouse A
    --threads N --now T` (N from 1 to 3), where T is the node's clock of the
    SELECT JSON * it is compared with, so that TTLs are judged at the same
    second. Before a run the table is flushed (the node's answer includes its
    memtable). After each run PyIceberg and DuckDB must read A's table equal
    to the node's answer, and `cqlite select --now T` must print it.

At the end every table is run once more into A and once into a fresh
warehouse B, at one clock: both must equal the node and each other.

The test reports how many runs folded "new generations", "touched rows" and
"every generation" (the JSON report's `folded`), and asserts that a run
after compactions that purged nothing folded every generation only where the
report says why (`folded_everything_because`; a table with static columns,
for one). Every statement, flush, compaction and run is kept in a log
written next to the warehouses (its path is in a failure's message), from
which a failure can be replayed.

Settings (environment):
  CQLITE_COMPACTION_SEED    the seed (default 20261208);
  CQLITE_COMPACTION_STEPS   how many steps (default 36, about two minutes);
  CQLITE_COMPACTION_SLOW=1  the slower setting: 150 steps, more keys and
                            more writes per step (about ten minutes).
"""
import json
import os
import pathlib
import random
import shutil
import tempfile
import time

import pytest

import iceberg_readers
import live_node
import table_compare

KS = "compaction_property"
CATALOG_NAME = "cqlite"
SEED = int(os.environ.get("CQLITE_COMPACTION_SEED", "20261208"))
SLOW = os.environ.get("CQLITE_COMPACTION_SLOW", "") not in ("", "0")
STEPS = int(os.environ.get("CQLITE_COMPACTION_STEPS", "150" if SLOW else "36"))
KEYS = 14 if SLOW else 8  # partition keys in use at once
ROWS = 16 if SLOW else 10  # clustering values per partition
WRITES = (10, 60) if SLOW else (4, 24)  # statements per table and step
TEN_DAYS = 864000

SUMMARY = {}  # printed by conftest.pytest_terminal_summary, pass or fail

TABLES = {  # name: (columns, options)
    "wide": ("(k int, c int, v text, n bigint, tags set<text>, attrs map<text, int>, PRIMARY KEY (k, c))", ""),
    "plain": ("(k int PRIMARY KEY, v text, n int, l list<int>, f frozen<map<text, int>>)", ""),
    "statics": ("(k int, c1 int, c2 text, s text static, t int static, v int, PRIMARY KEY (k, c1, c2))",
                "CLUSTERING ORDER BY (c1 DESC, c2 ASC) AND "),
    "counts": ("(k int, c int, hits counter, misses counter, PRIMARY KEY (k, c))", ""),
}


class Log:
    """Every step the test takes, in order: what a failure is replayed from."""

    def __init__(self, path):
        self.path = path
        self.lines = []

    def add(self, line):
        self.lines.append(line)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


@pytest.fixture(scope="module")
def node(oracle):
    work = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-compaction-property-"))
    n = live_node.LiveNode(oracle, work / "node").start()
    n.cql(f"CREATE KEYSPACE {KS} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}")
    for name, (columns, options) in TABLES.items():
        n.cql(f"CREATE TABLE {KS}.{name} {columns} WITH {options}gc_grace_seconds = {TEN_DAYS} "
              "AND compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}")
    n.flush_schema()
    yield n
    n.stop()
    shutil.rmtree(work, ignore_errors=True)


class Writer:
    """Random statements for each table, at the node's clock or `USING TIMESTAMP` in its past."""

    def __init__(self, rng):
        self.rng = rng
        self.counter_keys = list(range(KEYS))  # partitions of `counts` still written
        self.next_counter_key = KEYS
        # Clean writes are whole rows and row deletions at the node's clock, without TTLs, as clients that
        # write rows whole make: new facts that decide their rows alone.
        self.clean = False

    def _using(self, ttl=True, timestamp=True):
        rng, parts = self.rng, []
        if ttl and not self.clean and rng.random() < 0.2:
            parts.append(f"TTL {rng.randrange(2, 41)}")
        if timestamp and not self.clean and rng.random() < 0.25:  # a coordinator whose clock is behind: older than the newest write
            parts.append(f"TIMESTAMP {int(time.time()) * 1_000_000 - rng.randrange(1, 121) * 1_000_000}")
        return " USING " + " AND ".join(parts) if parts else ""

    def _set(self):
        return "{" + ", ".join(sorted({f"'t{self.rng.randrange(6)}'" for _ in range(self.rng.randrange(0, 3))})) + "}"

    def _map(self):
        keys = sorted({self.rng.randrange(5) for _ in range(self.rng.randrange(0, 3))})
        return "{" + ", ".join(f"'a{i}': {self.rng.randrange(100)}" for i in keys) + "}"

    def _range(self, column, low, high):
        rng = self.rng
        a, b = sorted((rng.randrange(low, high), rng.randrange(low, high)))
        return rng.choice([f"{column} >= {a} AND {column} < {b + 1}", f"{column} > {a}", f"{column} <= {b}",
                           f"{column} > {a} AND {column} <= {b}"])

    def wide(self):
        rng, t = self.rng, f"{KS}.wide"
        k, c = rng.randrange(KEYS), rng.randrange(ROWS)
        where = f"WHERE k = {k} AND c = {c}"
        kind = rng.choices(["insert", "update", "collection", "delete row", "delete cells", "range", "partition"],
                           [30, 0, 0, 12, 0, 0, 0] if self.clean else [30, 20, 15, 12, 8, 8, 3])[0]
        if kind == "insert":
            return (f"INSERT INTO {t} (k, c, v, n, tags, attrs) VALUES ({k}, {c}, 'v{rng.randrange(50)}', "
                    f"{rng.randrange(-10**9, 10**9)}, {self._set()}, {self._map()}){self._using()}")
        if kind == "update":
            return f"UPDATE {t}{self._using()} SET v = 'u{rng.randrange(50)}' {where}"
        if kind == "collection":
            change = rng.choice([f"tags = tags + {{'t{rng.randrange(6)}'}}", f"tags = tags - {{'t{rng.randrange(6)}'}}",
                                 f"attrs['a{rng.randrange(5)}'] = {rng.randrange(100)}", f"attrs = {self._map()}",
                                 f"n = {rng.randrange(100)}, tags = {self._set()}"])
            return f"UPDATE {t}{self._using()} SET {change} {where}"
        if kind == "delete row":
            return f"DELETE FROM {t}{self._using(ttl=False)} {where}"
        if kind == "delete cells":
            cells = rng.choice(["v", "n, v", "tags", f"attrs['a{rng.randrange(5)}']", "attrs, tags"])
            return f"DELETE {cells} FROM {t}{self._using(ttl=False)} {where}"
        if kind == "range":
            return f"DELETE FROM {t}{self._using(ttl=False)} WHERE k = {k} AND {self._range('c', 0, ROWS)}"
        return f"DELETE FROM {t}{self._using(ttl=False)} WHERE k = {k}"

    def plain(self):
        rng, t = self.rng, f"{KS}.plain"
        k = rng.randrange(KEYS * 2)
        kind = rng.choices(["insert", "update", "list", "delete", "delete cells"],
                           [35, 0, 0, 12, 0] if self.clean else [35, 25, 15, 12, 13])[0]
        if kind == "insert":
            values = rng.choice([f"'p{rng.randrange(50)}', {rng.randrange(1000)}, [{rng.randrange(9)}], {self._map()}",
                                 f"'p{rng.randrange(50)}', null, null, null"])
            return f"INSERT INTO {t} (k, v, n, l, f) VALUES ({k}, {values}){self._using()}"
        if kind == "update":
            change = rng.choice([f"v = 'q{rng.randrange(50)}'", f"n = {rng.randrange(1000)}", f"f = {self._map()}"])
            return f"UPDATE {t}{self._using()} SET {change} WHERE k = {k}"
        if kind == "list":
            change = rng.choice([f"l = l + [{rng.randrange(9)}]", f"l = [{rng.randrange(9)}, {rng.randrange(9)}]",
                                 f"l = [{rng.randrange(9)}] + l"])
            return f"UPDATE {t}{self._using()} SET {change} WHERE k = {k}"
        if kind == "delete":
            return f"DELETE FROM {t}{self._using(ttl=False)} WHERE k = {k}"
        return f"DELETE {rng.choice(['v', 'l', 'n, f'])} FROM {t}{self._using(ttl=False)} WHERE k = {k}"

    def statics(self):
        rng, t = self.rng, f"{KS}.statics"
        k, c1, c2 = rng.randrange(KEYS), rng.randrange(ROWS // 2), rng.choice("abcd")
        kind = rng.choices(["insert", "insert row", "static", "delete row", "delete static", "range", "partition"],
                           [25, 25, 15, 12, 8, 10, 5])[0]
        if kind == "insert":
            return (f"INSERT INTO {t} (k, c1, c2, s, t, v) VALUES ({k}, {c1}, '{c2}', 's{rng.randrange(20)}', "
                    f"{rng.randrange(100)}, {rng.randrange(1000)}){self._using()}")
        if kind == "insert row":
            return f"INSERT INTO {t} (k, c1, c2, v) VALUES ({k}, {c1}, '{c2}', {rng.randrange(1000)}){self._using()}"
        if kind == "static":
            change = rng.choice([f"s = 's{rng.randrange(20)}'", f"t = {rng.randrange(100)}"])
            return f"UPDATE {t}{self._using()} SET {change} WHERE k = {k}"
        if kind == "delete row":
            return f"DELETE FROM {t}{self._using(ttl=False)} WHERE k = {k} AND c1 = {c1} AND c2 = '{c2}'"
        if kind == "delete static":
            return f"DELETE {rng.choice(['s', 't', 's, t'])} FROM {t}{self._using(ttl=False)} WHERE k = {k}"
        if kind == "range":
            bound = rng.choice([f"c1 = {c1}", self._range("c1", 0, ROWS // 2),
                                f"c1 = {c1} AND c2 {rng.choice(['>', '<=', '>='])} '{c2}'"])
            return f"DELETE FROM {t}{self._using(ttl=False)} WHERE k = {k} AND {bound}"
        return f"DELETE FROM {t}{self._using(ttl=False)} WHERE k = {k}"

    def counts(self):
        """Counters: no TTL and no USING TIMESTAMP; a deleted partition is never written again, whose
        counts Cassandra leaves undefined."""
        rng, t = self.rng, f"{KS}.counts"
        k = rng.choice(self.counter_keys)
        if rng.random() < 0.05:
            self.counter_keys.remove(k)
            self.counter_keys.append(self.next_counter_key)
            self.next_counter_key += 1
            return f"DELETE FROM {t} WHERE k = {k}"
        change = rng.choice([f"hits = hits + {rng.randrange(1, 9)}", f"misses = misses - {rng.randrange(1, 9)}",
                             f"hits = hits + 1, misses = misses + {rng.randrange(1, 5)}"])
        return f"UPDATE {t} SET {change} WHERE k = {k} AND c = {rng.randrange(ROWS // 2)}"


def _data_files(table_dir):
    return {p.name for p in table_dir.glob("*-Data.db")}


def _live_sstables(node, table):
    """The Data.db files the node reads the table from (its live SSTables)."""
    return {line.split("\t")[1] for line in node.command(f"sstables {KS}") if line.split("\t")[0] == table}


def _compact(node, log, table, table_dir):
    """A major compaction; returns once the directory holds exactly the SSTables the node reads (the
    compacted ones go once no reader holds them), so that a run sees the table as the node does."""
    before = _data_files(table_dir)
    node.compact(KS, table)
    deadline = time.monotonic() + 20
    while (after := _data_files(table_dir)) != (live := _live_sstables(node, table)) and time.monotonic() < deadline:
        time.sleep(0.5)
    log.add(f"-- {table}: {len(before)} SSTables compacted into {len(after - before)}; left {sorted(after)}")
    assert after == live, f"{table}: the directory holds {sorted(after)}, the node reads {sorted(live)}"


STCS_OFF = "{'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}"
# Every SSTable of these tests is small: a minimum size of one byte buckets them by size, so that
# only SSTables of similar sizes are compacted together.
STCS_ON = ("{'class': 'SizeTieredCompactionStrategy', 'enabled': 'true', 'min_threshold': 2, 'max_threshold': 3, "
           "'min_sstable_size': 1}")


def _quiet(node, table, table_dir, seconds=40):
    """Waits until no compaction runs on the table: the directory holds exactly the SSTables the node
    reads and no transaction log, three times in a row; returns its Data.db files."""
    deadline = time.monotonic() + seconds
    seen = []
    while time.monotonic() < deadline:
        files, live = _data_files(table_dir), _live_sstables(node, table)
        seen = seen + [files] if files == live and not any(table_dir.glob("*_txn_*.log")) else []
        if len(seen) >= 3 and seen[-1] == seen[-2] == seen[-3]:
            return files
        time.sleep(0.4)
    raise AssertionError(f"{table}: compactions still running after {seconds} s: {sorted(_data_files(table_dir))}")


def _compact_some(node, log, table, table_dir, trigger):
    """Compactions of some of the table's SSTables, chosen by the node: size-tiered compaction is turned
    on, `trigger` (a statement) written and flushed, which starts it, and it is turned off again once
    no compaction runs. Returns (SSTables compacted, SSTables left as they were)."""
    node.flush(KS, table)  # a schema change flushes the table, and not before it returns
    log.add(f"-- flush {table}")
    before = _data_files(table_dir)
    for statement in (f"ALTER TABLE {KS}.{table} WITH compaction = {STCS_ON}", trigger):
        log.add(statement)
        node.cql(statement)
    node.flush(KS, table)
    log.add(f"-- flush {table}")
    _quiet(node, table, table_dir)
    log.add(f"ALTER TABLE {KS}.{table} WITH compaction = {STCS_OFF}")
    node.cql(f"ALTER TABLE {KS}.{table} WITH compaction = {STCS_OFF}")
    after = _quiet(node, table, table_dir)
    log.add(f"-- {table}: size-tiered compactions took {sorted(before - after)}, left {sorted(before & after)}, "
            f"wrote {sorted(after - before)}")
    return len(before - after), len(before & after)


def _materialize(cqlite, table_dir, warehouse, now, threads):
    proc = cqlite("materialize", table_dir, "--warehouse", warehouse, "--now", now, "--threads", threads, "--json",
                  check=False)
    assert proc.returncode == 0, f"cqlite materialize {table_dir} failed:\n{proc.stderr}"
    report = json.loads(proc.stdout)["tables"]
    assert len(report) == 1, report
    return report[0]


def _schema(warehouse, table):
    location = iceberg_readers.metadata_location(warehouse / "catalog.db", CATALOG_NAME, KS, table)
    return iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))


def _parsed(lines):
    return [json.loads(line) for line in lines]


class Checker:
    """Runs and comparisons; every mismatch is a message naming the step and the replay log."""

    def __init__(self, node, cqlite, log):
        self.node, self.cqlite, self.log = node, cqlite, log

    def select(self, table, table_dir, now, node_lines):
        proc = self.cqlite("select", table_dir, "--now", now, check=False)
        assert proc.returncode == 0, f"cqlite select {table_dir} --now {now} failed:\n{proc.stderr}"
        mine = proc.stdout.splitlines()
        if _parsed(mine) != _parsed(node_lines):
            missing = [ln for ln in node_lines if ln not in mine]
            extra = [ln for ln in mine if ln not in node_lines]
            return (f"cqlite select --now {now} vs the node: {len(node_lines)} rows from the node, {len(mine)} "
                    f"from cqlite; missing {missing[:4]}; unexpected {extra[:4]}")
        return None

    def readers(self, warehouse, tables, selects):
        """Problems of PyIceberg's and DuckDB's reads of `tables` in `warehouse` against the node."""
        problems = []
        catalog = warehouse / "catalog.db"
        duck = iceberg_readers.read_duckdb_many(catalog, warehouse, CATALOG_NAME, [(KS, t) for t in tables])
        rows = {}
        for t in tables:
            _now, lines = selects[t]
            schema = _schema(warehouse, t)
            expected = table_compare.expected_rows(lines, schema)
            py = iceberg_readers.read_pyiceberg(catalog, warehouse, CATALOG_NAME, KS, t)
            problem = table_compare.differs(table_compare.pyiceberg_view(expected, schema), py, schema)
            if problem:
                problems.append(f"{t}: PyIceberg read of {warehouse.name} vs the node: {problem}")
            got = duck[(KS, t)]
            if isinstance(got, dict):
                problems.append(f"{t}: DuckDB failed on {warehouse.name}: {got.get('error')}")
            else:
                problem = table_compare.differs(expected, got, schema)
                if problem:
                    problems.append(f"{t}: DuckDB read of {warehouse.name} vs the node: {problem}")
            rows[t] = py
        return problems, rows


def test_random_runs_and_compactions_equal_one_run_and_the_node(node, cqlite, tmp_path):
    started = time.monotonic()
    rng = random.Random(SEED)
    warehouse = tmp_path / "warehouse-a"
    log = Log(tmp_path / "steps.log")
    log.add(f"-- seed {SEED}, {STEPS} steps, slow {SLOW}")
    SUMMARY.update(seed=SEED, steps=STEPS, slow=SLOW, log=str(log.path))
    checker = Checker(node, cqlite, log)
    writer = Writer(rng)
    table_dirs = {t: node.table_dir(KS, t) for t in TABLES}
    folded = {"new generations": 0, "touched rows": 0, "every generation": 0, "nothing new": 0}
    compactions = {"merge": 0, "purge": 0, "expire": 0, "some": 0}
    purged_unconsumed = 0  # purge compactions over tombstones flushed since the table's last run
    partial = 0  # size-tiered compactions that left some SSTables as they were
    runs = 0
    unexplained = []  # runs after compactions that purged nothing which folded everything without a reason
    first_run = set()
    flushed_since_run = {t: False for t in TABLES}
    clean = {t: False for t in TABLES}  # whether the table is written clean until its next run
    compacted_since_run = {t: set() for t in TABLES}  # kinds of compaction since the table's last run
    problems = []

    def run(tables, into, threads_for):
        """Flushes, asks the node, runs and compares each of `tables`; returns {table: (now, lines)}."""
        nonlocal runs
        selects = {}
        for t in tables:
            node.flush(KS, t)
            now, lines = node.select(KS, t)
            selects[t] = (now, lines)
            threads = threads_for(t)
            report = _materialize(cqlite, table_dirs[t], into, now, threads)
            # A run with nothing new and nothing expired folds nothing (`folded`: "nothing"); one whose
            # fold changed no row commits nothing, and is counted with them.
            how = "nothing new" if report["folded"] == "nothing" or report["message"].startswith("nothing new") \
                else report["folded"]
            kinds = sorted(compacted_since_run[t]) if into == warehouse else []
            log.add(f"-- run {t} into {into.name} --now {now} --threads {threads}: {how}"
                    + (f" after compactions {kinds}" if kinds else "")
                    + (f" because {report['folded_everything_because']}" if "folded_everything_because" in report
                       else "")
                    + (f" (kept facts read: {report['read_kept_facts_because']})" if "read_kept_facts_because" in report
                       else "") + f"; written {report.get('rows_written')}, deleted {report.get('rows_deleted')}, "
                    f"total {report.get('rows_total')}; {sorted(_data_files(table_dirs[t]))}; {report['message']}")
            if into == warehouse:
                runs += 1
                folded[how] = folded.get(how, 0) + 1
                if (kinds and "purge" not in kinds and t in first_run and how == "every generation"
                        and "folded_everything_because" not in report):
                    unexplained.append(f"{t}: a run after compactions {kinds} folded every generation and says "
                                       f"not why: {report}")
                first_run.add(t)
                flushed_since_run[t] = False
                compacted_since_run[t] = set()
                clean[t] = rng.random() < 0.3
            problem = checker.select(t, table_dirs[t], now, lines)
            if problem:
                problems.append(f"{t}: {problem}")
        reader_problems, _rows = checker.readers(into, list(tables), selects)
        problems.extend(reader_problems)
        if problems:
            pytest.fail(f"seed {SEED}: after {len(log.lines)} steps (replay: {log.path}):\n" + "\n".join(problems)
                        + "\nlast steps:\n" + "\n".join(log.lines[-40:]), pytrace=False)
        return selects

    writers = {"wide": writer.wide, "plain": writer.plain, "statics": writer.statics, "counts": writer.counts}
    for step in range(STEPS):
        # Writes: some steps write nothing, so that a run may follow a compaction alone.
        for t, make in writers.items():
            writer.clean = clean[t]
            for _ in range(rng.randrange(*WRITES) if rng.random() < 0.85 else 0):
                statement = make()
                log.add(statement)
                node.cql(statement)
        for t in TABLES:
            if rng.random() < 0.5:
                node.flush(KS, t)
                log.add(f"-- flush {t}")
                flushed_since_run[t] = True
        if rng.random() < 0.3:
            kind = rng.choices(["merge", "purge", "expire", "some"], [3, 3, 2, 3])[0]
            chosen = [t for t in TABLES if rng.random() < 0.6] or [rng.choice(list(TABLES))]
            if kind == "expire":
                wait = rng.uniform(1, 6)
                log.add(f"-- sleep {wait:.1f}")
                time.sleep(wait)
            for t in chosen:
                compactions[kind] += 1
                # An expiry compaction purges the expired cells half the time, else turns them into tombstones.
                purge = kind == "purge" or (kind in ("expire", "some") and rng.random() < 0.5)
                if purge:
                    if flushed_since_run[t] and kind == "purge":
                        purged_unconsumed += 1
                    # A schema change flushes the table, and not before it returns: flush first.
                    node.flush(KS, t)
                    log.add(f"-- flush {t}")
                    time.sleep(1.0 if rng.random() < 0.5 else 0)  # tombstones of this second are not purgeable yet
                    node.cql(f"ALTER TABLE {KS}.{t} WITH gc_grace_seconds = 0")
                    log.add(f"ALTER TABLE {KS}.{t} WITH gc_grace_seconds = 0")
                if kind == "some":
                    writer.clean = clean[t]
                    taken, left = _compact_some(node, log, t, table_dirs[t], writers[t]())
                    partial += bool(taken and left)
                else:
                    log.add(f"-- compact {t} ({kind})")
                    _compact(node, log, t, table_dirs[t])
                if purge:
                    node.cql(f"ALTER TABLE {KS}.{t} WITH gc_grace_seconds = {TEN_DAYS}")
                    log.add(f"ALTER TABLE {KS}.{t} WITH gc_grace_seconds = {TEN_DAYS}")
                compacted_since_run[t].add("purge" if purge else kind)
        if rng.random() < 0.45:
            chosen = [t for t in TABLES if rng.random() < 0.7]
            if chosen:
                run(chosen, warehouse, lambda t: rng.randrange(1, 4))

    # Every table once more into A, then once into a fresh warehouse B at the same clocks.
    fresh = tmp_path / "warehouse-b"
    selects = run(list(TABLES), warehouse, lambda t: rng.randrange(1, 4))
    final = {}
    for t in TABLES:
        now, lines = selects[t]
        report = _materialize(cqlite, table_dirs[t], fresh, now, rng.randrange(1, 4))
        log.add(f"-- run {t} into {fresh.name} --now {now}: {report.get('folded')}, total {report.get('rows_total')}")
        final[t] = report
    reader_problems, rows_b = checker.readers(fresh, list(TABLES), selects)
    _problems_a, rows_a = checker.readers(warehouse, list(TABLES), selects)
    problems.extend(reader_problems)
    for t in TABLES:
        if rows_a[t] != rows_b[t]:
            problems.append(f"{t}: warehouse A ({len(rows_a[t])} rows) differs from one run over the final "
                            f"directory (B, {len(rows_b[t])} rows): {table_compare.differs(rows_b[t], rows_a[t], _schema(fresh, t))}")
    SUMMARY.update(runs=runs, folded=dict(folded), compactions=dict(compactions), purged_unconsumed=purged_unconsumed,
                   partial=partial,
                   rows={t: len(rows_b[t]) for t in TABLES}, seconds=time.monotonic() - started)
    assert not problems, (f"seed {SEED} (replay: {log.path}):\n" + "\n".join(problems)
                          + "\nlast steps:\n" + "\n".join(log.lines[-40:]))
    assert not unexplained, "\n".join(unexplained)
    # The seeds must exercise what the test is about.
    assert compactions["merge"] and compactions["purge"] and runs >= 4, SUMMARY
