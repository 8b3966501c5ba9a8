"""`cqlite maintain` after fifty runs of a churning table.

A real Cassandra 5.0 node (tools/oracle) writes the table churn.composite
(workloads.py's "composite" shape: statics, clustering, ranges) in 51 flushed
generations: the first two load many partitions, each later one is a batch of
workloads.py's seeded statements (inserts, updates, static updates, cell, row,
range and partition deletions, timestamp ties, a few TTLs) over a few hot
partitions of both loads, so that rows are updated, deleted and inserted again
from one generation to the next. The node records its `SELECT JSON *` after
generation 50 and after generation 51. Its output is cached under
${CQLITE_CACHE:-~/.cache/cqlite}/oracle/generated/, keyed by the scenario text
and the oracle version.

`cqlite materialize` consumes generations 1 to 50 one run each: fifty
snapshots, a small data file and position delete files for other files in
most of them. Then `cqlite maintain --expire-older-than 0s --orphan-age 0s
--retain-last 3 --small-file-size S`, S above every churn run's data file and
below both loads' files (measured from the table), with a few orphans planted
beforehand (files no snapshot references under data/, metadata/ and cqlite/).
Afterwards:

  - the current snapshot's data files are those of the loads whose deleted
    share stays under --delete-threshold, each with at most one position
    delete file, deleting exactly what their delete files deleted before,
    plus what the rewrite wrote, of which at most one file is under S; the
    report counts them. Delete files are paired with data files by the
    manifests' referenced_data_file (read with fastavro): PyIceberg 0.12
    pairs them only by the file_path bounds, which our delete files do not
    carry, so its plan_files gives every data file every delete file;
  - the newest --retain-last snapshots of the current ancestry remain and no
    other (the replace snapshot and the last two runs'), their parents
    chaining; the report counts the others as expired;
  - nothing under the table's data/, metadata/ and cqlite/ is left that the
    current metadata (its snapshots' manifest lists, manifests, data and
    delete files, its metadata log) or a retained snapshot's fold state
    (cqlite.fold-state: facts, row index and its updates) does not name, and
    everything they name exists (the planted orphans are gone, and so are the
    SSTables a run that merged facts kept but no fold state names); the
    report's files_removed and orphans_removed count every file removed;
  - PyIceberg, DuckDB and Iceberg Java read the node's answer before and
    after; every retained snapshot before the current one reads (PyIceberg
    time travel) what it read before;
  - a second `cqlite maintain` (of the namespace) finds nothing to do and
    commits nothing, and `cqlite materialize` of generation 51, which
    changes every row the rewrite moved (a static column of each of their
    partitions), commits on top of the maintained table, deleting those rows
    where the rewritten row index says they are: all three readers then read
    the node's later answer.

The same fifty runs through Apache Iceberg's REST catalog server
(conftest.py's rest_catalog), and maintain through it (its expiry commits
remove-snapshots): the same snapshots remain, nothing unreferenced is left
but the checksum files the server's Hadoop file system writes beside its
metadata files during maintain's own commits (the next maintain removes
them, and nothing else), and the three readers read the node's answer
through the server.

The first 20 generations into an s3:// warehouse on moto's S3 server
(conftest.py's s3), and maintain there: the same snapshots remain, the
orphan sweep removes exactly the objects nothing names (the SSTables the run
that merged facts kept), nothing unreferenced is left, a second maintain
finds nothing to do, and the three readers read what `cqlite select` gives
for those generations.

Also: a table, a namespace or a catalog that is not there is a one-line
error (and no catalog is made), `cqlite maintain --help` exits 0, maintain
with its defaults over every table of a catalog just made expires nothing,
removes nothing and leaves the rows as they were, measured from a time far
ahead (--now in ISO-8601) with --retain-last 1 keeps the current snapshot
alone, and -q prints nothing when all went well.

Environment: CQLITE_MAINTAIN_SEED (default 5).
"""
import io
import json
import os
import pathlib
import random
import shutil
import subprocess
import tempfile
import types

import pytest

import conftest
import iceberg_readers
import node_runs
import table_compare
import workloads

SEED = int(os.environ.get("CQLITE_MAINTAIN_SEED", "5"))
KEYSPACE = "churn"
CATALOG_NAME = "cqlite"
GENERATIONS = 50          # materialized before maintain; one more after it
LOAD_A = 120              # partitions of generation 1: few of them churn, their file keeps its delete files
LOAD_B = 30               # partitions of generation 2: many of them churn, their file passes the threshold
HOT_A, HOT_B = 3, 12      # partitions of each load the later generations write to
STATEMENTS = 8            # statements of each later generation
RETAIN_LAST = 3
S3_GENERATIONS = 20       # an s3:// warehouse is slower: fewer runs, a merge of facts among them
DELETE_THRESHOLD = 0.2
REPORT_COUNTS = ("data_files_rewritten", "data_files_written", "delete_files_removed", "delete_files_written",
                 "snapshots_expired", "files_removed", "orphans_removed")


# ---------------------------------------------------------------------------
# The node's SSTables
# ---------------------------------------------------------------------------

def _scenario():
    """The scenario text: the table, its 51 generations and the two selects."""
    rng = random.Random(f"cqlite-maintain/{SEED}")
    table = workloads.SHAPES["composite"](rng, KEYSPACE)
    builder = workloads.Builder(rng, table)
    # Clock timestamps (an explicit one in the past now and then, as in "clock" workloads), so that
    # every generation changes rows; few TTLs, all evaluated at the node's query time.
    builder.mode, builder.p_ts, builder.ts_base, builder.p_ttl = "clock", 0.1, workloads.PAST, 0.05
    c1 = ["-5", "10", "200"]
    c2 = ["'a'", "'apple'", "'b'"]
    builder.ck_domains = [c1, c2]
    load_a = [(str(p), "'a'") for p in range(LOAD_A)]
    load_b = [(str(1000 + p), "'b'") for p in range(LOAD_B)]
    builder.parts = sorted(rng.sample(load_a, HOT_A) + rng.sample(load_b, HOT_B))
    columns = table.pk + table.ck + table.statics + table.regulars
    names = ", ".join(c.name for c in columns)

    def load(parts):
        out = []
        for part in parts:
            for k1 in c1:
                for k2 in c2:
                    values = list(part) + [k1, k2] + [builder.value(c) for c in table.statics + table.regulars]
                    out.append(f"INSERT INTO {table.qualified} ({names}) VALUES ({', '.join(values)});")
        return out

    lines = [f"CREATE KEYSPACE {KEYSPACE} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}};",
             table.create()]
    batches = [load(load_a), load(load_b)] + [builder.statements(STATEMENTS) for _ in range(GENERATIONS - 1)]
    # The generation after maintain also changes a static column of every partition whose rows the
    # rewrite moved (the second load's, the hot ones): its run deletes each of those rows by the place
    # the rewritten row index gives.
    moved = sorted(set(load_b) | set(builder.parts))
    batches[-1] += [f"UPDATE {table.qualified} SET s2 = {900_000 + i} WHERE {builder.where(part)};"
                    for i, part in enumerate(moved)]
    for generation, batch in enumerate(batches, 1):
        lines += [f"-- generation {generation}", *batch, "-- flush"]
        if generation == GENERATIONS:
            lines.append(f"-- select {table.qualified}")
    lines.append(f"-- select {table.qualified}")
    return "\n".join(lines) + "\n", table.name


def _node_output(oracle):
    """The node's output for _scenario(): (<dir>/churn/<table>-<id>/ with schema.cql beside it, table name)."""
    text, table = _scenario()
    out = node_runs.generated(oracle, text, "maintain-churn", "the churning table",
                              lambda out: (out / KEYSPACE / f"{table}.select2.jsonl").exists())
    return out, table


def _generations(table_dir):
    """SSTable component prefixes ("oa-3-big-") in generation order."""
    prefixes = {p.name[:-len("Data.db")] for p in table_dir.glob("*-Data.db")}
    return sorted(prefixes, key=lambda p: int(p.split("-")[1]))


# ---------------------------------------------------------------------------
# What the table's metadata names, read from its files (fastavro, pyarrow)
# ---------------------------------------------------------------------------

_LIVE = (0, 1)  # manifest entry status EXISTING, ADDED (2 is DELETED)


def _read_bytes(location):
    """A file of the table, local or in an s3:// warehouse."""
    if iceberg_readers.is_s3(location):
        return iceberg_readers.read_s3_object(location)
    return pathlib.Path(location).read_bytes()


def _files_under(table_location):
    """Every file under the table's data/, metadata/ and cqlite/, named as the table's metadata names them."""
    if not iceberg_readers.is_s3(table_location):
        root = pathlib.Path(table_location)
        return {str(p) for sub in ("data", "metadata", "cqlite") for p in (root / sub).rglob("*") if p.is_file()}
    import boto3

    settings = iceberg_readers.s3_settings()
    client = boto3.client("s3", endpoint_url=settings["endpoint"] or None, region_name=settings["region"],
                          aws_access_key_id=settings["key_id"], aws_secret_access_key=settings["secret"])
    bucket, _, prefix = table_location[len("s3://"):].partition("/")
    out = set()
    for sub in ("data", "metadata", "cqlite"):
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=f"{prefix}/{sub}/"):
            out.update(f"s3://{bucket}/{o['Key']}" for o in page.get("Contents", []))
    return out


def _avro_records(location):
    import fastavro

    return list(fastavro.reader(io.BytesIO(_read_bytes(location))))


class SnapshotFiles:
    """The manifests and live data and delete files of one snapshot, from its manifest list.

    data:    {path: {"records", "size", "snapshot_id"}} (snapshot_id: the snapshot that added the file)
    deletes: {path: {"records", "size", "referenced"}} (referenced: the manifest's referenced_data_file)
    """

    def __init__(self, snapshot):
        self.manifest_list = snapshot["manifest-list"]
        self.manifests = []
        self.data, self.deletes = {}, {}
        for m in _avro_records(self.manifest_list):
            self.manifests.append(m["manifest_path"])
            for e in _avro_records(m["manifest_path"]):
                if e["status"] not in _LIVE:
                    continue
                d = e["data_file"]
                entry = {"records": d["record_count"], "size": d["file_size_in_bytes"],
                         "snapshot_id": e["snapshot_id"] if e["snapshot_id"] is not None else m["added_snapshot_id"]}
                if d["content"] == 0:
                    self.data[d["file_path"]] = entry
                else:
                    entry["referenced"] = d.get("referenced_data_file")
                    entry["content"] = d["content"]
                    self.deletes[d["file_path"]] = entry

    def delete_files_of(self, data_file):
        return sorted(p for p, d in self.deletes.items() if d["referenced"] == data_file)

    def deleted_positions(self):
        """{data file: set of deleted positions}, read from the delete files; and the problems found
        (a delete file that is not a position delete file of exactly its referenced_data_file)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        deleted, problems = {}, []
        for path, d in sorted(self.deletes.items()):
            t = pq.read_table(pa.BufferReader(_read_bytes(path)), columns=["file_path", "pos"]).to_pydict()
            targets = set(t["file_path"])
            if d["content"] != 1 or d["referenced"] is None or targets - {d["referenced"]}:
                problems.append(f"{path}: content {d['content']}, referenced_data_file {d['referenced']}, "
                                f"deletes rows of {sorted(targets)}")
            for target, pos in zip(t["file_path"], t["pos"]):
                deleted.setdefault(target, set()).add(pos)
        return deleted, problems


class Table:
    """The table's current metadata file, parsed."""

    def __init__(self, catalog, namespace, table):
        self.location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, namespace, table)
        self.metadata = json.loads(_read_bytes(self.location))
        self.root = self.metadata["location"]  # the table's directory, or its s3:// prefix
        self.snapshots = {s["snapshot-id"]: s for s in self.metadata.get("snapshots", [])}
        self.current_id = self.metadata.get("current-snapshot-id")

    @property
    def current(self):
        return self.snapshots[self.current_id]

    def ancestry(self):
        """The current snapshot and its ancestors still in the metadata, newest first."""
        out, sid = [], self.current_id
        while sid in self.snapshots:
            out.append(self.snapshots[sid])
            sid = self.snapshots[sid].get("parent-snapshot-id")
        return out

    def files(self, snapshot=None):
        return SnapshotFiles(snapshot or self.current)

    def references(self):
        """(the files the metadata and its snapshots' fold states (or parts files and their parts' fold states)
        name, those of them that must exist)."""
        named = {self.location} | {m["metadata-file"] for m in self.metadata.get("metadata-log", [])}
        needed = {self.location}
        for s in self.snapshots.values():
            files = SnapshotFiles(s)
            needed |= {files.manifest_list, *files.manifests, *files.data, *files.deletes}
            summary = s.get("summary", {})
            states = [summary["cqlite.fold-state"]] if "cqlite.fold-state" in summary else []
            parts = summary.get("cqlite.fold-state-parts")
            if parts:  # a table published by token ranges: a fold state per part
                needed.add(parts)
                states += [p["fold-state"] for p in json.loads(_read_bytes(parts))["parts"]]
            for state in states:
                needed.add(state)
                j = json.loads(_read_bytes(state))
                for facts in j.get("facts", []):
                    needed |= set(facts["files"])
                needed |= set(j.get("row-index", [])) | set(j.get("row-index-updates", []))
        return named | needed, needed

    def unreferenced_and_missing(self):
        """Files under data/, metadata/ and cqlite/ that nothing names, and named files that are gone."""
        named, needed = self.references()
        on_disk = _files_under(self.root)
        return sorted(on_disk - named), sorted(needed - on_disk)


# ---------------------------------------------------------------------------
# Fifty runs, and maintain
# ---------------------------------------------------------------------------

def _read_pyiceberg(m, snapshot_id=None):
    """The rows PyIceberg reads of the table `m` names (its catalog, warehouse and table), now or at a snapshot."""
    catalog = iceberg_readers._pyiceberg_catalog(m.catalog, m.warehouse, CATALOG_NAME)
    tbl = catalog.load_table((KEYSPACE, m.table))
    schema = json.loads(tbl.schema().model_dump_json())
    scan = tbl.scan() if snapshot_id is None else tbl.scan(snapshot_id=snapshot_id)
    return iceberg_readers.normalize_rows(scan.to_arrow().to_pylist(), schema)


def _reader_problems(m, lines, what):
    """What PyIceberg, DuckDB and Iceberg Java read differently from `lines` (the node's SELECT JSON *)."""
    schema = iceberg_readers.current_schema(Table(m.catalog, KEYSPACE, m.table).metadata)
    expected = table_compare.expected_rows(lines, schema)
    problems = []
    problem = table_compare.differs(table_compare.pyiceberg_view(expected, schema), _read_pyiceberg(m), schema)
    if problem:
        problems.append(f"{what}: PyIceberg vs the node's SELECT JSON: {problem}")
    for name, read_many in (("DuckDB", iceberg_readers.read_duckdb_many),
                            ("Iceberg Java", iceberg_readers.read_java_many)):
        try:
            rows = read_many(m.catalog, m.warehouse, CATALOG_NAME, [(KEYSPACE, m.table)])[(KEYSPACE, m.table)]
        except (RuntimeError, subprocess.SubprocessError) as e:
            problems.append(f"{what}: {name} failed: {e}")
            continue
        problem = (f"the reader failed: {rows['error']}" if isinstance(rows, dict)
                   else table_compare.differs(expected, rows, schema))
        if problem:
            problems.append(f"{what}: {name} vs the node's SELECT JSON: {problem}")
    return problems


class Churned:
    def __init__(self, root, node_dir, table):
        self.root = root
        self.node_dir = node_dir
        self.table = table
        self.warehouse = root / "warehouse"
        self.catalog = self.warehouse / "catalog.db"
        self.node_table_dir = next((node_dir / KEYSPACE).glob(table + "-*"))
        self.source = root / "source" / KEYSPACE / self.node_table_dir.name
        self.generations = _generations(self.node_table_dir)
        self.selects = [node_runs.read_select(node_dir / KEYSPACE / f"{table}.select{n}.jsonl") for n in (1, 2)]

    def add_generation(self, step):
        for component in self.node_table_dir.glob(self.generations[step - 1] + "*"):
            shutil.copy(component, self.source / component.name)

    def materialize(self, cqlite, now, threads):
        proc = cqlite("materialize", self.source, "--warehouse", self.warehouse, "--now", now, "--threads", threads,
                      "--json", check=False)
        assert proc.returncode == 0, f"cqlite materialize failed ({proc.returncode}): {proc.stderr.strip()}"
        return json.loads(proc.stdout)["tables"][0]

    def maintain_args(self, small_file_size, target=None):
        return ["maintain", target or f"{KEYSPACE}.{self.table}", "--warehouse", self.warehouse, "--json",
                "--delete-threshold", DELETE_THRESHOLD, "--small-file-size", small_file_size,
                "--expire-older-than", "0s", "--orphan-age", "0s", "--retain-last", RETAIN_LAST]



@pytest.fixture(scope="module")
def churned(oracle, cqlite):
    """The table after fifty runs, one generation each, and what it held then."""
    node_dir, table = _node_output(oracle)
    root = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-maintain-"))
    m = Churned(root, node_dir, table)
    assert len(m.generations) == GENERATIONS + 1, f"the node left {len(m.generations)} generations"
    m.source.mkdir(parents=True)
    shutil.copy(node_dir / KEYSPACE / "schema.cql", m.source.parent / "schema.cql")
    now = m.selects[0][0]
    for step in range(1, GENERATIONS + 1):
        m.add_generation(step)
        # The loads in one file each; the churn in one or two.
        report = m.materialize(cqlite, now, 1 if step <= 2 else 1 + step % 2)
        assert report["committed"] and report["generations_consumed"] == 1, (step, report)
    t = Table(m.catalog, KEYSPACE, table)
    assert len(t.snapshots) == GENERATIONS and len(t.ancestry()) == GENERATIONS
    m.before = t
    m.before_files = files = t.files()
    m.before_deleted, problems = files.deleted_positions()
    assert not problems, "\n".join(problems)
    # The two loads' files, and the small files of the churn. The small-file size lies between.
    ancestry = list(reversed(t.ancestry()))
    loads = {p for p, d in files.data.items() if d["snapshot_id"] in (ancestry[0]["snapshot-id"],
                                                                      ancestry[1]["snapshot-id"])}
    small = {p: d["size"] for p, d in files.data.items() if p not in loads}
    load_a, load_b = (sorted(p for p in loads if files.data[p]["snapshot_id"] == ancestry[k]["snapshot-id"])
                      for k in (0, 1))
    assert len(load_a) == 1 and len(load_b) == 1, (load_a, load_b)
    m.small_kib = max(small.values()) // 1024 + 1
    m.small_file_size = m.small_kib * 1024
    assert len(small) >= GENERATIONS // 2 and m.small_file_size <= min(files.data[p]["size"] for p in loads), (
        f"the workload no longer separates the churn's files (largest {max(small.values())} bytes) from the "
        f"loads' ({sorted(files.data[p]['size'] for p in loads)}): {len(small)} small files")
    share = {p: len(m.before_deleted.get(p, ())) / d["records"] for p, d in files.data.items()}
    # What the rewrite must do with them: the first load's file keeps its rows and gets its delete files
    # merged, the second load's passes the threshold, every small file is rewritten.
    m.load_a, m.load_b, m.share = load_a[0], load_b[0], share
    assert share[m.load_a] < DELETE_THRESHOLD and len(files.delete_files_of(m.load_a)) >= 2, (
        share[m.load_a], files.delete_files_of(m.load_a))
    assert share[m.load_b] >= DELETE_THRESHOLD, share[m.load_b]
    m.kept = {p for p, d in files.data.items() if d["size"] >= m.small_file_size and share[p] < DELETE_THRESHOLD}
    m.rewritten = set(files.data) - m.kept
    print(f"maintain: {len(files.data)} data files, {len(files.deletes)} delete files after {GENERATIONS} runs; "
          f"loads {files.data[m.load_a]['size']} and {files.data[m.load_b]['size']} bytes, deleted shares "
          f"{share[m.load_a]:.3f} and {share[m.load_b]:.3f}; churn files up to {max(small.values())} bytes; "
          f"--small-file-size {m.small_kib}KiB")
    # What every reader reads, and what the snapshots that will be retained read.
    m.reads_before = _reader_problems(m, m.selects[0][1], f"after {GENERATIONS} runs")
    m.snapshot_reads = {s["snapshot-id"]: _read_pyiceberg(m, s["snapshot-id"]) for s in t.ancestry()[:RETAIN_LAST]}
    yield m
    shutil.rmtree(root, ignore_errors=True)


def _plant_orphans(t):
    """Files as a crashed writer leaves them, named like the table's own, referenced by nothing."""
    run = "00000000-0000-4000-8000-000000000000"
    root = pathlib.Path(t.root)
    files = t.files()
    state = json.loads(pathlib.Path(t.current["summary"]["cqlite.fold-state"]).read_text())
    facts = pathlib.Path(state["facts"][0]["files"][0])
    planted = {
        root / "data" / f"{run}-0.parquet": pathlib.Path(next(iter(files.data))),
        root / "data" / f"{run}-deletes-0-0.parquet": pathlib.Path(next(iter(files.deletes))),
        root / "metadata" / f"{run}-m0.avro": pathlib.Path(files.manifests[0]),
        root / "metadata" / f"snap-1-1-{run}.avro": pathlib.Path(files.manifest_list),
        root / "metadata" / f"99999-{run}.metadata.json": pathlib.Path(t.location),
        root / "cqlite" / f"state-{run}.json": pathlib.Path(t.current["summary"]["cqlite.fold-state"]),
        root / "cqlite" / f"rows-{run}-0-0.parquet": pathlib.Path(state["row-index"][0]),
        root / "cqlite" / "facts" / f"{run}-0" / facts.name: facts,
    }
    old = t.metadata["last-updated-ms"] / 1000 - 86400
    for path, like in planted.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(like, path)
        os.utime(path, (old, old))
    return sorted(str(p) for p in planted)


@pytest.fixture(scope="module")
def maintained(churned, cqlite):
    m = churned
    m.planted = _plant_orphans(m.before)
    m.disk_before = _files_under(m.before.root)
    proc = cqlite(*m.maintain_args(f"{m.small_kib}KiB"), check=False)
    assert proc.returncode == 0, f"cqlite maintain failed ({proc.returncode}): {proc.stderr.strip()}"
    report = json.loads(proc.stdout)
    assert [(r["namespace"], r["table"]) for r in report["tables"]] == [(KEYSPACE, m.table)], report
    m.report = report["tables"][0]
    m.after = Table(m.catalog, KEYSPACE, m.table)
    m.after_files = m.after.files()
    m.disk_after = _files_under(m.after.root)
    print(f"maintain: {json.dumps(m.report)}")
    return m


# ---------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------

def test_the_churned_table_reads_as_the_node_before_maintain(churned):
    assert not churned.reads_before, "\n".join(churned.reads_before)


def test_rewrite_merges_small_files_and_delete_files(maintained):
    m = maintained
    before, after = m.before_files, m.after_files
    replace = m.after.current
    problems = []
    if replace["summary"].get("operation") != "replace":
        problems.append(f"the current snapshot's operation is {replace['summary'].get('operation')}, not replace")
    if replace.get("parent-snapshot-id") != m.before.current_id:
        problems.append(f"the current snapshot's parent is {replace.get('parent-snapshot-id')}, not the snapshot "
                        f"of the last run {m.before.current_id}")
    deleted, bad = after.deleted_positions()
    problems += bad
    for data_file in sorted(after.data):
        deletes = after.delete_files_of(data_file)
        if len(deletes) > 1:
            problems.append(f"{data_file} has {len(deletes)} position delete files: {deletes}")
    for path, d in sorted(after.deletes.items()):
        if d["referenced"] not in after.data:
            problems.append(f"delete file {path} is left for {d['referenced']}, which is no longer in the table")
    gone = m.kept - set(after.data)
    if gone:
        problems.append(f"data files that pass neither the size nor the delete threshold were rewritten: "
                        f"{sorted(gone)}")
    left = m.rewritten & set(after.data)
    if left:
        stayed = sorted((p, before.data[p]["size"], round(m.share[p], 3)) for p in left)
        problems.append(f"data files under {m.small_kib}KiB or with a deleted share of {DELETE_THRESHOLD} or more "
                        f"are still in the table (path, bytes, deleted share): {stayed}")
    for path in sorted(m.kept & set(after.data)):
        if deleted.get(path, set()) != m.before_deleted.get(path, set()):
            problems.append(f"{path}: its delete files now delete {len(deleted.get(path, ()))} positions, "
                            f"before {len(m.before_deleted.get(path, ()))}")
    small = sorted((d["size"], p) for p, d in after.data.items() if d["size"] < m.small_file_size)
    if len(small) > 1:
        problems.append(f"{len(small)} data files under {m.small_kib}KiB remain: {small}")
    written = set(after.data) - set(before.data)
    expected_report = {
        "data_files_rewritten": len(m.rewritten),
        "data_files_written": len(written),
        "delete_files_removed": len(set(before.deletes) - set(after.deletes)),
        "delete_files_written": len(set(after.deletes) - set(before.deletes)),
    }
    for key, value in expected_report.items():
        if m.report.get(key) != value:
            problems.append(f"the report says {key} {m.report.get(key)}, the table says {value}")
    live = sum(d["records"] for d in after.data.values()) - sum(len(p) for p in deleted.values())
    rows = len(m.snapshot_reads[m.before.current_id])
    if live != rows:
        problems.append(f"the data files hold {live} live rows, the table before maintain {rows}")
    summary = replace["summary"]
    for key, value in (("total-data-files", len(after.data)), ("total-delete-files", len(after.deletes)),
                       ("total-records", sum(d["records"] for d in after.data.values()))):
        if summary.get(key) != str(value):
            problems.append(f"the replace snapshot's summary says {key} {summary.get(key)}, its manifests {value}")
    print(f"maintain: {len(before.data)} data and {len(before.deletes)} delete files became {len(after.data)} and "
          f"{len(after.deletes)}")
    assert not problems, "\n".join(problems)


def test_expire_keeps_the_newest_snapshots_of_the_current_ancestry(maintained):
    m = maintained
    snapshots = m.after.snapshots
    expected = [s["snapshot-id"] for s in [m.after.current] + m.before.ancestry()[:RETAIN_LAST - 1]]
    assert m.after.current_id in snapshots
    assert sorted(snapshots) == sorted(expected), (
        f"{len(snapshots)} snapshots remain: {sorted(snapshots)}; expected the replace snapshot and the newest "
        f"{RETAIN_LAST - 1} before it: {expected}")
    assert [s["snapshot-id"] for s in m.after.ancestry()] == expected
    assert m.after.metadata["refs"]["main"]["snapshot-id"] == m.after.current_id
    assert m.report["snapshots_expired"] == GENERATIONS + 1 - RETAIN_LAST, m.report
    assert m.report["files_removed"] > 0, m.report


def test_no_orphans_and_nothing_missing(maintained):
    m = maintained
    unreferenced, missing = m.after.unreferenced_and_missing()
    assert not missing, f"files the table still names are gone: {missing}"
    assert not unreferenced, f"{len(unreferenced)} files nothing references remain: {unreferenced}"
    assert not [p for p in m.planted if pathlib.Path(p).exists()]
    assert m.report["orphans_removed"] >= len(m.planted), m.report
    # Only expiry and the orphan sweep remove files: the report counts them all.
    removed = len(m.disk_before - m.disk_after)
    assert m.report["files_removed"] + m.report["orphans_removed"] == removed, (
        f"{removed} files were removed, the report says {m.report['files_removed']} by expiry and "
        f"{m.report['orphans_removed']} orphans")


def test_every_reader_reads_the_node_after_maintain(maintained):
    problems = _reader_problems(maintained, maintained.selects[0][1], "after maintain")
    assert not problems, "\n".join(problems)


def test_retained_snapshots_still_read_what_they_read(maintained):
    m = maintained
    older = [s["snapshot-id"] for s in m.after.ancestry()[1:]]
    assert older, "no snapshot before the current one was retained"
    for sid in older:
        assert _read_pyiceberg(m, sid) == m.snapshot_reads[sid], f"snapshot {sid} reads differently after maintain"
    assert _read_pyiceberg(m) == m.snapshot_reads[m.before.current_id], "the replace snapshot changed rows"


def test_maintain_again_finds_nothing_and_materialize_goes_on(maintained, cqlite):
    m = maintained
    # The whole namespace this time, the size in plain bytes.
    proc = cqlite(*m.maintain_args(str(m.small_file_size), KEYSPACE), check=False)
    assert proc.returncode == 0, f"the second cqlite maintain failed ({proc.returncode}): {proc.stderr.strip()}"
    report = json.loads(proc.stdout)
    assert [(r["namespace"], r["table"]) for r in report["tables"]] == [(KEYSPACE, m.table)], report
    again = report["tables"][0]
    counts = {k: again.get(k) for k in REPORT_COUNTS}
    assert all(v == 0 for v in counts.values()), f"the second maintain found something to do: {again}"
    assert Table(m.catalog, KEYSPACE, m.table).location == m.after.location, "the second maintain committed"
    # One generation more, on top of the maintained table and its fold state.
    m.add_generation(GENERATIONS + 1)
    now = m.selects[1][0]
    report = m.materialize(cqlite, now, 2)
    assert report["committed"] and report["generations_consumed"] == 1, report
    moved = sum(d["records"] for p, d in m.after_files.data.items() if p not in m.before_files.data)
    assert report["rows_deleted"] >= moved, f"{moved} rows moved by the rewrite, all changed since: {report}"
    print(f"maintain: the run of generation {GENERATIONS + 1} deleted {report['rows_deleted']} rows, "
          f"{moved} of them moved by the rewrite")
    t = Table(m.catalog, KEYSPACE, m.table)
    assert t.current.get("parent-snapshot-id") == m.after.current_id
    _unreferenced, missing = t.unreferenced_and_missing()
    assert not missing, f"files the table names are gone: {missing}"
    problems = _reader_problems(m, m.selects[1][1], f"generation {GENERATIONS + 1} after maintain")
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------
# Usage errors
# ---------------------------------------------------------------------------

def test_maintain_help(cqlite):
    proc = cqlite("maintain", "--help", check=False)
    assert proc.returncode == 0, proc.stderr
    for option in ("--delete-threshold", "--small-file-size", "--target-file-size", "--expire-older-than",
                   "--retain-last", "--orphan-age", "--json"):
        assert option in proc.stdout + proc.stderr, option


def _one_line_error(proc, *names):
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode != 0, f"exit 0: {proc.stdout}"
    assert len(lines) == 1 and all(n in lines[0] for n in names), proc.stderr


def test_maintain_of_a_missing_catalog_fails_and_makes_none(cqlite, tmp_path):
    warehouse = tmp_path / "warehouse"
    _one_line_error(cqlite("maintain", "--warehouse", warehouse, check=False), "catalog.db")
    _one_line_error(cqlite("maintain", "shop.orders", "--warehouse", warehouse, check=False), "catalog.db")
    elsewhere = tmp_path / "elsewhere.db"
    _one_line_error(cqlite("maintain", "--warehouse", warehouse, "--catalog", elsewhere, check=False),
                    "elsewhere.db")
    assert not (warehouse / "catalog.db").exists() and not elsewhere.exists()


@pytest.fixture()
def shop(cqlite, tmp_path):
    """A warehouse holding the example tables shop.orders and shop.price_points, just made."""
    warehouse = tmp_path / "warehouse"
    cqlite("materialize", conftest.REPO / "examples" / "data", "--warehouse", warehouse, "-q")
    return warehouse


def test_maintain_of_a_missing_table_or_namespace_fails(cqlite, shop):
    _one_line_error(cqlite("maintain", "shop.nosuch", "--warehouse", shop, check=False), "shop.nosuch")
    _one_line_error(cqlite("maintain", "nosuch", "--warehouse", shop, check=False), "nosuch")


def test_maintain_of_every_table_with_the_defaults(cqlite, shop):
    """Tables just made: nothing expires, nothing is an orphan yet, the rows stay. Then from a time far
    ahead: only the current snapshot stays."""
    tables = [("shop", "orders"), ("shop", "price_points")]
    rows = {t: iceberg_readers.read_pyiceberg(shop / "catalog.db", shop, CATALOG_NAME, *t) for t in tables}
    proc = cqlite("maintain", "--warehouse", shop, "--json", check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)["tables"]
    assert sorted((r["namespace"], r["table"]) for r in report) == tables, report
    for r in report:
        assert r["snapshots_expired"] == 0 and r["orphans_removed"] == 0, r
    for t in tables:
        assert iceberg_readers.read_pyiceberg(shop / "catalog.db", shop, CATALOG_NAME, *t) == rows[t], t
    # Measured from a time far ahead (ISO-8601), every snapshot but the current one is older than the
    # default 7d and --retain-last 1 keeps only that one.
    proc = cqlite("maintain", "shop", "--warehouse", shop, "--now", "2100-01-01T00:00:00Z", "--retain-last", "1",
                  "--json", check=False)
    assert proc.returncode == 0, proc.stderr
    assert [r["snapshots_expired"] for r in json.loads(proc.stdout)["tables"]] == [1, 1], proc.stdout
    for t in tables:
        table = Table(shop / "catalog.db", *t)
        assert list(table.snapshots) == [table.current_id], table.snapshots
        assert table.unreferenced_and_missing() == ([], []), t
        assert iceberg_readers.read_pyiceberg(shop / "catalog.db", shop, CATALOG_NAME, *t) == rows[t], t


def test_maintain_through_a_rest_catalog(churned, cqlite, rest_catalog):
    """The same fifty runs committed through Apache Iceberg's REST catalog server (conftest.py's
    rest_catalog), then maintain, whose rewrite and expiry (remove-snapshots) the server commits: the
    rewrite, expiry and orphan sweep leave the table as through the SQLite catalog, and PyIceberg,
    DuckDB and Iceberg Java read it through the server equal to the node."""
    m = churned
    rest = types.SimpleNamespace(catalog=rest_catalog.address, warehouse=m.root / "warehouse-rest", table=m.table)
    source = m.root / "source-rest" / KEYSPACE / m.node_table_dir.name
    source.mkdir(parents=True)
    shutil.copy(m.node_dir / KEYSPACE / "schema.cql", source.parent / "schema.cql")
    for step in range(1, GENERATIONS + 1):
        for component in m.node_table_dir.glob(m.generations[step - 1] + "*"):
            shutil.copy(component, source / component.name)
        cqlite("materialize", source, "--warehouse", rest.warehouse, "--catalog", rest.catalog, "--now",
               m.selects[0][0], "--threads", 1 if step <= 2 else 1 + step % 2, "-q")
    before = Table(rest.catalog, KEYSPACE, m.table)
    assert len(before.snapshots) == GENERATIONS
    args = ["maintain", f"{KEYSPACE}.{m.table}", "--warehouse", rest.warehouse, "--catalog", rest.catalog, "--json",
            "--small-file-size", f"{m.small_kib}KiB", "--expire-older-than", "0s", "--orphan-age", "0s",
            "--retain-last", RETAIN_LAST]
    proc = cqlite(*args, check=False)
    assert proc.returncode == 0, f"cqlite maintain through the REST catalog failed: {proc.stderr.strip()}"
    report = json.loads(proc.stdout)["tables"][0]
    after = Table(rest.catalog, KEYSPACE, m.table)
    files = after.files()
    problems = []
    if after.current["summary"].get("operation") != "replace":
        problems.append(f"the current snapshot's operation is {after.current['summary'].get('operation')}")
    expected = [s["snapshot-id"] for s in [after.current] + before.ancestry()[:RETAIN_LAST - 1]]
    if sorted(after.snapshots) != sorted(expected):
        problems.append(f"snapshots {sorted(after.snapshots)} remain, expected {sorted(expected)}")
    if report["snapshots_expired"] != GENERATIONS + 1 - RETAIN_LAST:
        problems.append(f"the report says {report['snapshots_expired']} snapshots expired")
    for data_file in sorted(files.data):
        if len(files.delete_files_of(data_file)) > 1:
            problems.append(f"{data_file} has {len(files.delete_files_of(data_file))} position delete files")
    small = sorted(d["size"] for d in files.data.values() if d["size"] < m.small_file_size)
    if len(small) > 1:
        problems.append(f"{len(small)} data files under {m.small_kib}KiB remain: {small}")
    unreferenced, missing = after.unreferenced_and_missing()
    # The server writes its metadata files through Hadoop's local file system, which puts a checksum
    # file .<name>.crc beside each. Those of the maintain's own two commits are younger than its start,
    # and so than --orphan-age 0s: they stay until the next maintain.
    sidecars = {str(pathlib.Path(p).with_name(f".{pathlib.Path(p).name}.crc")) for p in after.references()[0]}
    left_by_server = [p for p in unreferenced if p in sidecars]
    unreferenced = [p for p in unreferenced if p not in sidecars]
    if unreferenced or missing:
        problems.append(f"unreferenced files {unreferenced}, missing files {missing}")
    problems += _reader_problems(rest, m.selects[0][1], "through the REST catalog after maintain")
    proc = cqlite(*args, check=False)
    again = json.loads(proc.stdout)["tables"][0] if proc.returncode == 0 else proc.stderr.strip()
    if proc.returncode != 0 or any(again.get(k) != (len(left_by_server) if k == "orphans_removed" else 0)
                                   for k in REPORT_COUNTS):
        problems.append(f"a second maintain through the REST catalog ({len(left_by_server)} checksum files of "
                        f"the server to remove): {again}")
    elif Table(rest.catalog, KEYSPACE, m.table).location != after.location:
        problems.append("the second maintain through the REST catalog committed")
    assert not problems, "\n".join(problems)


def test_maintain_quiet_prints_nothing_when_all_went_well(cqlite, shop):
    proc = cqlite("maintain", "--warehouse", shop, "-q", check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and proc.stderr == "", f"cqlite maintain -q printed:\n{proc.stdout}{proc.stderr}"


def test_maintain_in_an_s3_warehouse(churned, cqlite, s3):
    """The first generations, one run each, into an s3:// warehouse on moto's S3 server (conftest.py's s3;
    the catalog a SQLite file here), then maintain: the same rewrite and expiry, and the orphan sweep over
    the bucket's objects (two planted as a killed run would leave them). PyIceberg, DuckDB and Iceberg Java read what `cqlite select` gives for those generations."""
    import s3_server

    m = churned
    bucket = types.SimpleNamespace(catalog=m.root / "s3-catalog.db", warehouse=f"s3://{s3_server.BUCKET}/maintain",
                                   table=m.table)
    source = m.root / "source-s3" / KEYSPACE / m.node_table_dir.name
    source.mkdir(parents=True)
    shutil.copy(m.node_dir / KEYSPACE / "schema.cql", source.parent / "schema.cql")
    now = m.selects[0][0]
    for step in range(1, S3_GENERATIONS + 1):
        for component in m.node_table_dir.glob(m.generations[step - 1] + "*"):
            shutil.copy(component, source / component.name)
        cqlite("materialize", source, "--warehouse", bucket.warehouse, "--catalog", bucket.catalog, "--now", now,
               "--threads", 1 if step <= 2 else 1 + step % 2, "-q")
    # What runs killed before their commit leave in the bucket.
    prefix = f"maintain/{KEYSPACE}/{m.table}"
    for key in (f"{prefix}/data/killed-run-0.parquet", f"{prefix}/cqlite/facts/killed-run-0/nb-1-big-Data.db"):
        s3.client.put_object(Bucket=s3_server.BUCKET, Key=key, Body=b"left by a killed run")
    before = Table(bucket.catalog, KEYSPACE, m.table)
    orphans, missing = before.unreferenced_and_missing()
    assert len(before.snapshots) == S3_GENERATIONS and len(orphans) == 2 and not missing, \
        (len(before.snapshots), orphans)
    args = ["maintain", f"{KEYSPACE}.{m.table}", "--warehouse", bucket.warehouse, "--catalog", bucket.catalog,
            "--json", "--small-file-size", f"{m.small_kib}KiB", "--expire-older-than", "0s", "--orphan-age", "0s",
            "--retain-last", RETAIN_LAST]
    proc = cqlite(*args, check=False)
    assert proc.returncode == 0, (f"cqlite maintain in an s3:// warehouse failed ({proc.returncode}): "
                                  f"{proc.stderr.strip()}")
    report = json.loads(proc.stdout)["tables"][0]
    after = Table(bucket.catalog, KEYSPACE, m.table)
    files = after.files()
    problems = []
    if after.current["summary"].get("operation") != "replace":
        problems.append(f"the current snapshot's operation is {after.current['summary'].get('operation')}")
    expected = [s["snapshot-id"] for s in [after.current] + before.ancestry()[:RETAIN_LAST - 1]]
    if sorted(after.snapshots) != sorted(expected):
        problems.append(f"snapshots {sorted(after.snapshots)} remain, expected {sorted(expected)}")
    if report["snapshots_expired"] != S3_GENERATIONS + 1 - RETAIN_LAST or report["orphans_removed"] != len(orphans):
        problems.append(f"the report says {report['snapshots_expired']} snapshots expired and "
                        f"{report['orphans_removed']} orphans removed; there were {len(orphans)} orphans")
    for data_file in sorted(files.data):
        if len(files.delete_files_of(data_file)) > 1:
            problems.append(f"{data_file} has {len(files.delete_files_of(data_file))} position delete files")
    small = sorted(d["size"] for d in files.data.values() if d["size"] < m.small_file_size)
    if len(small) > 1:
        problems.append(f"{len(small)} data files under {m.small_kib}KiB remain: {small}")
    unreferenced, missing = after.unreferenced_and_missing()
    if unreferenced or missing:
        problems.append(f"unreferenced objects {unreferenced}, missing objects {missing}")
    lines = cqlite("select", source, "--now", now).stdout.splitlines()
    problems += _reader_problems(bucket, lines, f"in an s3:// warehouse after maintain (generations 1 to "
                                                f"{S3_GENERATIONS}, as cqlite select gives them)")
    proc = cqlite(*args, check=False)
    again = json.loads(proc.stdout)["tables"][0] if proc.returncode == 0 else proc.stderr.strip()
    if proc.returncode != 0 or any(again.get(k) != 0 for k in REPORT_COUNTS):
        problems.append(f"a second maintain in the s3:// warehouse: {again}")
    assert s3.open_uploads() == []
    assert not problems, "\n".join(problems)
