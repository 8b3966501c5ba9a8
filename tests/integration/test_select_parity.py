"""`cqlite select` against a real Cassandra 5.0 node's `SELECT JSON *`.

tests/integration/workloads.py turns a seed into randomized workloads (one
keyspace and table each, ten table shapes: inserts, updates and deletes of
every kind, collections, statics, counters, TTLs that run out during the run,
USING TIMESTAMP with deliberate ties, several flushed generations, some major
compactions). tools/oracle replays them on one node (a few nodes for large
counts) and records, for each table, the node's `SELECT JSON *` at a known
query time; then `cqlite select <table dir> --now <that time>` over the
flushed SSTables must print the same rows in the same order.

Environment:
  CQLITE_PARITY_SEED       seed (default 1; "random" picks one from the clock)
  CQLITE_PARITY_WORKLOADS  number of workloads (default 200)
  CQLITE_PARITY_ONLY       comma-separated workload indexes: just those (a
                           workload depends only on the seed and its index)
  CQLITE_PARITY_CHUNK      workloads per node run (default 250)
  CQLITE_PARITY_COMPARE    "ordered" (default): rows parsed as JSON, key order
                           of objects included (column order, map order);
                           "dict": parsed, key order ignored; "text": lines
                           must be identical
  CQLITE_PARITY_TMP        where the node and its output live (default
                           /dev/shm when usable: deleting thousands of files
                           is slow on some disks)
The seed is printed at the end of the run and in every failure message.
"""
import decimal
import difflib
import json
import os
import pathlib
import re
import shutil
import tempfile
import time

import pytest

import node_runs

DEFAULT_SEED = 1
COUNT = int(os.environ.get("CQLITE_PARITY_WORKLOADS", "200"))
CHUNK = int(os.environ.get("CQLITE_PARITY_CHUNK", "250"))
COMPARE = os.environ.get("CQLITE_PARITY_COMPARE", "ordered")
ONLY = [int(x) for x in os.environ.get("CQLITE_PARITY_ONLY", "").replace(" ", "").split(",") if x]
INDEXES = sorted(set(ONLY)) if ONLY else list(range(COUNT))


def _seed():
    raw = os.environ.get("CQLITE_PARITY_SEED", "").strip()
    if raw == "random":
        return int(time.time() * 1000) % 1_000_000_007
    return int(raw) if raw else DEFAULT_SEED


SEED = _seed()
# Filled in by the oracle fixture; conftest prints it at the end of the run.
SUMMARY = {}


def reproduce(index=None):
    only = f" CQLITE_PARITY_ONLY={index}" if index is not None else ""
    return (f"seed {SEED}; rerun with CQLITE_PARITY_SEED={SEED}{only} "
            f"pytest tests/integration/test_select_parity.py; scenario: "
            f"python3 tests/integration/workloads.py --seed {SEED}"
            + (f" --only {index}" if index is not None else f" --count {COUNT}"))


@pytest.fixture(scope="module")
def parity(oracle):
    base = node_runs.work_base()
    keep = base is not None and os.environ.get("CQLITE_PARITY_TMP") is not None
    root = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-parity-", dir=base))
    print(f"select parity: {reproduce()}; {len(INDEXES)} workloads in {root}")
    started = time.monotonic()
    run = node_runs.replay(oracle, SEED, COUNT, INDEXES, root, CHUNK)
    SUMMARY.update(seed=SEED, workloads=len(INDEXES), node_seconds=time.monotonic() - started,
                   runs=len(run.chunks))
    yield run
    if not keep:
        shutil.rmtree(root, ignore_errors=True)


def test_oracle_replayed_every_workload(parity):
    """The node replayed every workload and answered every select."""
    problems = [f"node run {i}: exit {rc}\n{tail}" for i, (_, rc, _s, tail) in enumerate(parity.chunks) if rc != 0]
    tables = sstables = rows = empty = selects = 0
    for index in INDEXES:
        if parity.table_dir(index) is None:
            problems.append(f"w{index}: no single table directory in {parity.keyspace_dir(index)}")
            continue
        tables += 1
        sstables += len(list(parity.table_dir(index).glob("*-Data.db")))
        for path in parity.selects(index):
            if not path.exists():
                problems.append(f"w{index}: {path.name} is missing")
                continue
            now, lines = node_runs.read_select(path)
            assert isinstance(now, int) and now > 1_600_000_000, f"{path}: bad now_in_seconds {now}"
            for line in lines:
                json.loads(line)
            selects += 1
            rows += len(lines)
            empty += not lines
    SUMMARY.update(tables=tables, sstables=sstables, selects=selects, rows=rows, empty_selects=empty)
    if problems:
        pytest.fail(f"{reproduce()}\n" + "\n".join(problems[:20]), pytrace=False)
    if selects >= 20:
        assert empty * 2 < selects, f"{reproduce()}: {empty} of {selects} selects returned no rows"


def _parse(line):
    if COMPARE == "dict":
        return json.loads(line, parse_float=decimal.Decimal)
    return json.loads(line, parse_float=decimal.Decimal, object_pairs_hook=list)


def _same(expected, actual):
    if COMPARE == "text":
        return expected == actual
    if len(expected) != len(actual):
        return False
    try:
        return all(_parse(a) == _parse(b) for a, b in zip(expected, actual))
    except ValueError:
        return False


@pytest.fixture(scope="module")
def missing_select(cqlite):
    """Why this cqlite cannot run `select`, or None."""
    # Without a `select` subcommand, `cqlite select --help` prints the
    # top-level help and still exits 0.
    proc = cqlite("select", "--help", check=False)
    if proc.returncode != 0 or not re.search(r"^Usage: \S+ select\b", proc.stdout, re.M):
        return (f"this cqlite has no `select` subcommand (`cqlite select --help` exited {proc.returncode}):\n"
                f"{(proc.stdout + proc.stderr).strip()[:600]}")
    return None


@pytest.mark.parametrize("index", INDEXES, ids=lambda i: f"w{i}")
def test_select_matches_cassandra(index, parity, cqlite, missing_select, tmp_path):
    d = parity.described[index]
    where = f"w{index} ({d['shape']}, {d['mode']} timestamps); {reproduce(index)}"
    if missing_select:
        pytest.fail(f"{where}\n{missing_select}", pytrace=False)
    failed = parity.failed_chunk(index)
    if failed:
        pytest.fail(f"{where}\n{failed}", pytrace=False)
    table_dir = parity.table_dir(index)
    assert table_dir is not None, f"{where}: the node left no table directory"
    # The same generations as envelope files: folding them must give the same rows.
    envelopes = tmp_path / "envelopes"
    envelopes.mkdir()
    export = cqlite("delta-export", table_dir, "-o", envelopes, check=False)
    assert export.returncode == 0, f"{where}: cqlite delta-export {table_dir} failed: {export.stderr.strip()}"
    envelope_files = sorted(str(p) for p in envelopes.glob("*.parquet"))
    # Compaction may leave no SSTable at all: an empty table, and nothing to export.
    has_sstables = any(table_dir.glob("*-Data.db"))
    assert bool(envelope_files) == has_sstables, (
        f"{where}: cqlite delta-export wrote {len(envelope_files)} envelope files for "
        f"{'some' if has_sstables else 'no'} SSTables")
    # In pieces of one row or marker, every row of a partition crosses a
    # piece boundary: the fold must give the same rows.
    sources = [("sstables", [table_dir]), ("sstables, in pieces of 1", [table_dir, "--piece-items", "1"])]
    if envelope_files:
        sources.append(("envelopes", ["--from-envelopes", *envelope_files]))
    mismatches = []
    for path in parity.selects(index):
        now, expected = node_runs.read_select(path)
        for source, args in sources:
            proc = cqlite("select", *args, "--now", now, check=False)
            if proc.returncode != 0:
                mismatches.append(f"{path.name}: cqlite select ({source}) --now {now} exited {proc.returncode}: "
                                  f"{proc.stderr.strip()[:2000]}")
                continue
            actual = proc.stdout.splitlines()
            if not _same(expected, actual):
                diff = list(difflib.unified_diff(expected, actual, "cassandra", f"cqlite ({source})", lineterm="",
                                                 n=1))
                mismatches.append(f"{path.name} (--now {now}, from {source}): {len(expected)} rows from Cassandra, "
                                  f"{len(actual)} from cqlite ({COMPARE} comparison)\n" + "\n".join(diff[:60]))
    if mismatches:
        pytest.fail(f"{where}\n" + "\n".join(mismatches), pytrace=False)
