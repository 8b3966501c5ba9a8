"""`cqlite materialize --cluster` over the data directories of a real 3-node
Cassandra 5.0 cluster whose replicas differ.

The cluster (live_cluster.py): 127.0.0.1 and 127.0.0.2 in data centre dc1
(racks r1, r2, 4 tokens each), 127.0.0.3 in dc2 (1 token), hints off. Seeded
random workloads (workloads.py) run at consistency ONE, each statement through
a random node that is up, with keyspaces of SimpleStrategy RF 2 and 3 and
NetworkTopologyStrategy {dc1: 2, dc2: 1}. A node is stopped for some phases
(and another one later), so the writes and deletes of those phases reach only
the other replicas. The Iceberg table of each workload, read by PyIceberg
and DuckDB, must equal `SELECT JSON *` at consistency ALL, with each key
once; and the replicas must really differ (one node's data alone gives
another answer for some table).

After incremental repair (`nodetool repair` of every keyspace on every
node), --repaired-only gives the same tables and leaves out one written after
the repair.

The same from copies of each node's `nodetool snapshot` folders (every
keyspace, system ones too, elsewhere, without the live directories).

Bad input: a node of another cluster; a node left out (the run names the ranges and the replicas they
lack, and commits nothing), unless --allow-missing-replicas; the same node
given twice; a table altered while one node was down, so that the nodes'
schemas differ (the last test: it changes the cluster).
"""
import json
import os
import pathlib
import random
import re
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import cqlite_binary
import iceberg_readers
import live_cluster
import table_compare
import workloads

SNAPSHOT = "cqlite-test"
SEED = int(os.environ.get("CQLITE_CLUSTER_SEED", "1405"))
WORKLOADS = int(os.environ.get("CQLITE_CLUSTER_WORKLOADS", "10"))
CATALOG_NAME = "cqlite"
# A keyspace dc2 holds none of: its node owns a token but replicates nothing of it, so the ranges it owns
# have their primary replica in dc1.
DC1_ONLY = "{'class': 'NetworkTopologyStrategy', 'dc1': 2}"
REPLICATIONS = (
    "{'class': 'SimpleStrategy', 'replication_factor': 2}",
    "{'class': 'NetworkTopologyStrategy', 'dc1': 2, 'dc2': 1}",
    "{'class': 'SimpleStrategy', 'replication_factor': 3}",
    DC1_ONLY,
)
# As test_materialize.py: the workloads' decimals fit decimal(38, 8); their times have nanoseconds.
MAPPING_FLAGS = ["--decimal-scale", "8", "--truncate-time"]
PLACEMENTS = [{"dc": "dc1", "rack": "r1", "num_tokens": 4}, {"dc": "dc1", "rack": "r2", "num_tokens": 4},
              {"dc": "dc2", "rack": "r1", "num_tokens": 1}]


def _steps(text):
    """(kind, text) of a workloads scenario: ("cql", statement), ("flush", ""), ("compact", "ks.t"),
    ("sleep", seconds), ("phase", n); other comments left out."""
    steps, pending = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and stripped.startswith("--"):
            words = stripped[2:].split()
            if words and words[0] in ("flush", "compact", "sleep", "phase"):
                steps.append((words[0], " ".join(words[1:])))
            continue
        if not stripped and not pending:
            continue
        pending.append(line)
        if stripped.endswith(";"):
            steps.append(("cql", "\n".join(pending).strip().rstrip(";")))
            pending = []
    assert not pending, pending
    return steps


def _for_the_cluster(statement, index):
    """The workload's CREATE statements with the cluster's replication, and tables keeping tombstones for
    10 days: a replica drops a tombstone past gc_grace_seconds from what it answers, so a read at ALL
    brings back the rows a replica that missed the delete still holds (Cassandra's zombies), while the
    fold lets the tombstone win (README, known differences)."""
    if statement.startswith("CREATE KEYSPACE"):
        head = statement.split(" WITH replication")[0]
        return f"{head} WITH replication = {REPLICATIONS[index % len(REPLICATIONS)]}"
    if statement.startswith("CREATE TABLE"):
        return re.sub(r"gc_grace_seconds = \d+", "gc_grace_seconds = 864000", statement)
    return statement


@pytest.fixture(scope="module")
def run(oracle, cqlite):
    """Runs the workloads on a fresh cluster; yields the tables, the answers at ALL and the data dirs."""
    work = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-cluster-"))
    cluster = live_cluster.LiveCluster(oracle, work, PLACEMENTS)
    try:
        cluster.start()
        # Without schema changes: a table altered while a replica is down leaves the nodes' schemas
        # different, which --cluster refuses (the last test here checks that).
        text, described = workloads.make_workloads(SEED, WORKLOADS, schema_changes=False)
        tables = [(w["keyspace"], w["table"]) for w in described]
        keyspace_index = {w["keyspace"]: w["index"] for w in described}
        steps = _steps(text)
        phases = max([int(t) for k, t in steps if k == "phase"] or [1])
        # Phases a node misses: the third node (dc2) for the first half, the first node for the last phase.
        down = {p: 2 for p in range(2, 2 + max(1, phases // 2))}
        down[phases] = 0
        rng = random.Random(SEED)
        schema_done = False
        for kind, arg in steps:
            if kind == "cql":
                if arg.startswith(("CREATE KEYSPACE", "CREATE TABLE", "CREATE TYPE")):
                    ks = arg.split()[2].split(".")[0]
                    cluster.nodes[0].command("cql-at ONE " + _for_the_cluster(arg, keyspace_index.get(ks, 0)))
                    continue
                if not schema_done:
                    cluster.wait_for_schema_agreement()
                    schema_done = True
                rng.choice(cluster.live()).command("cql-at ONE " + arg)
            elif kind == "phase":
                phase = int(arg)
                for i, node in enumerate(cluster.nodes):
                    if down.get(phase) == i and node.proc is not None:
                        node.stop()
                    elif down.get(phase) != i and node.proc is None:
                        node.start()
                        cluster.wait_for_schema_agreement()
            elif kind == "flush":
                for node in cluster.live():
                    for ks, table in tables:
                        node.flush(ks, table)
            elif kind == "compact":
                ks, table = arg.split(".")
                for node in cluster.live():
                    node.compact(ks, table)
            elif kind == "sleep":
                time.sleep(float(arg))
        for node in cluster.nodes:
            if node.proc is None:
                node.start()
        cluster.wait_for_schema_agreement()
        for node in cluster.nodes:
            for ks, table in tables:
                node.flush(ks, table)
        # What `nodetool snapshot` keeps of every keyspace (the system ones too), before read repair at ALL
        # writes anything.
        for node in cluster.nodes:
            node.command(f"snapshot {SNAPSHOT}")
        # Incremental repair of every keyspace on every node: afterwards all the workloads' data is repaired.
        # One session at a time: a session that starts while SSTables of its ranges are still pending an
        # earlier one's finalization fails its prepare phase.
        repair_start = time.monotonic()
        keyspaces = sorted({ks for ks, _ in tables})
        for node in cluster.nodes:
            for ks in keyspaces:
                print(f"{node.address}: repair {ks}: {node.command(f'repair {ks}')[-2:]}")
                for other in cluster.nodes:
                    other.command(f"no-pending-repair {ks} 300")
        repair_seconds = time.monotonic() - repair_start
        unrepaired = [f"{node.address} {ks}.{line}" for node in cluster.nodes for ks in keyspaces
                      for line in node.command(f"sstables {ks}") if line.split("\t")[2:] == ["0", "-"]]
        assert not unrepaired, "SSTables left unrepaired by incremental repair: " + "; ".join(unrepaired)
        # Every TTL the workloads give that could run out while the answers are taken (at most 60 s) has.
        time.sleep(max(0, 65 - repair_seconds))
        answers = {}
        for ks, table in tables:
            out = work / f"all-{ks}-{table}.jsonl"
            cluster.nodes[0].command(f"select-at ALL {ks} {table} {out}")
            lines = out.read_text(encoding="utf-8").splitlines()
            answers[(ks, table)] = (json.loads(lines[0])["now_in_seconds"], lines[1:])
        # A table written after the repair: unrepaired on every node.
        cluster.nodes[0].command("cql-at ALL CREATE KEYSPACE after_repair WITH replication = "
                                 "{'class': 'SimpleStrategy', 'replication_factor': 3}")
        cluster.nodes[0].command("cql-at ALL CREATE TABLE after_repair.t (k int PRIMARY KEY, v text)")
        cluster.wait_for_schema_agreement()
        for k in range(10):
            cluster.nodes[k % 3].command(f"cql-at ALL INSERT INTO after_repair.t (k, v) VALUES ({k}, 'v{k}')")
        for node in cluster.nodes:
            node.flush("after_repair", "t")
        rings = {}
        for ks, _ in tables:
            rings[ks] = work / f"describering-{ks}.txt"
            cluster.nodes[0].command(f"describering {ks} {rings[ks]}")
        cluster.stop()  # nothing compacts while cqlite reads
        # The snapshot folders copied elsewhere, as a backup keeps them: <keyspace>/<table>-<id>/snapshots/<tag>/.
        copies = []
        for i, data_dir in enumerate(cluster.data_dirs()):
            copy = work / "snapshot-copies" / f"node{i + 1}"
            for snapshot in data_dir.glob(f"*/*/snapshots/{SNAPSHOT}"):
                shutil.copytree(snapshot, copy / snapshot.relative_to(data_dir))
            copies.append(copy)
        replication = {ks: REPLICATIONS[index % len(REPLICATIONS)] for ks, index in keyspace_index.items()}
        yield {"tables": tables, "answers": answers, "rings": rings, "data_dirs": cluster.data_dirs(),
               "snapshot_copies": copies, "work": work, "cluster": cluster, "replication": replication}
    finally:
        cluster.stop()
        if os.environ.get("CQLITE_KEEP_CLUSTER"):
            print(f"kept {work} (CQLITE_KEEP_CLUSTER)")
        else:
            shutil.rmtree(work, ignore_errors=True)


def _materialize(cqlite, data_dirs, warehouse, now, *extra, check=True):
    proc = cqlite("materialize", "--cluster", *data_dirs, "--warehouse", warehouse, "--now", now, "--json",
                  "--threads", "2", *MAPPING_FLAGS, *extra, check=False)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def _schema(catalog, ks, table):
    location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, ks, table)
    return iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))


def _assert_each_key_once(ks, table, schema, rows):
    keys = [f["name"] for f in schema["fields"] if f["required"]]
    if keys:
        key_tuples = [json.dumps([r[k] for k in keys], sort_keys=True, default=str) for r in rows]
        assert len(key_tuples) == len(set(key_tuples)), f"{ks}.{table}: a key appears twice"


@pytest.mark.parametrize("source", ["data_dirs", "snapshot_copies"])
def test_cluster_table_equals_a_read_at_all(run, cqlite, tmp_path, source):
    """From the live data directories, and from copies of the nodes' `nodetool snapshot` folders."""
    warehouse = tmp_path / "warehouse"
    catalog = warehouse / "catalog.db"
    nows = {now for now, _ in run["answers"].values()}
    now = min(nows)
    report = json.loads(_materialize(cqlite, run[source], warehouse, now).stdout)
    committed = {(r["namespace"], r["table"]) for r in report["tables"] if r["committed"]}
    assert committed == set(run["tables"]) | ({("after_repair", "t")} if source == "data_dirs" else set()), report
    compared = 0
    for ks, table in run["tables"]:
        _, lines = run["answers"][(ks, table)]
        schema = _schema(catalog, ks, table)
        expected, duck = table_compare.check_readers(catalog, warehouse, CATALOG_NAME, ks, table, lines, schema,
                                                     "CONSISTENCY ALL")
        _assert_each_key_once(ks, table, schema, duck)
        compared += len(expected)
    assert compared > 0


def test_repaired_only_reads_what_repair_marked(run, cqlite, tmp_path):
    """After incremental repair of every keyspace on every node, --repaired-only gives every workload's
    table as CONSISTENCY ALL does, and leaves out the table written after the repair, saying so."""
    warehouse = tmp_path / "warehouse"
    catalog = warehouse / "catalog.db"
    now = min(now for now, _ in run["answers"].values())
    report = json.loads(_materialize(cqlite, run["data_dirs"], warehouse, now, "--repaired-only").stdout)
    by_table = {(r["namespace"], r["table"]): r for r in report["tables"]}
    after = by_table[("after_repair", "t")]
    assert after["rows_total"] == 0 and after["unrepaired_generations_left_out"] >= 3, after
    assert after["unrepaired_bytes_left_out"] > 0, after
    for ks, table in run["tables"]:
        assert by_table[(ks, table)]["committed"], by_table[(ks, table)]
        _, lines = run["answers"][(ks, table)]
        table_compare.check_readers(catalog, warehouse, CATALOG_NAME, ks, table, lines,
                                    _schema(catalog, ks, table), "CONSISTENCY ALL (--repaired-only)")
    # Without the flag the rows written after the repair are there.
    plain = json.loads(_materialize(cqlite, run["data_dirs"], tmp_path / "plain", now).stdout)
    assert {(r["namespace"], r["table"]): r for r in plain["tables"]}[("after_repair", "t")]["rows_total"] == 10


def test_a_job_per_node_on_its_primary_ranges_makes_the_table(run, cqlite, tmp_path):
    """After the repair, `--primary-range-only --repaired-only` run once per node, the three at once, into one
    warehouse: together the table a read at ALL gives, each key once; the jobs' commits go one on top of
    the other. The dc2 node is primary for nothing of a keyspace dc2 holds none of, and says so. A fourth
    job, with nothing new, commits nothing."""
    warehouse = tmp_path / "warehouse"
    catalog = warehouse / "catalog.db"
    now = min(now for now, _ in run["answers"].values())

    def job(data_dir):
        return subprocess.Popen([str(cqlite_binary()), "materialize", str(data_dir), "--primary-range-only",
                                 "--repaired-only", "--warehouse", str(warehouse), "--now", str(now), "--json",
                                 *MAPPING_FLAGS], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    jobs = [job(d) for d in run["data_dirs"]]
    reports, errs = [], []
    for data_dir, proc in zip(run["data_dirs"], jobs):
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{data_dir}: {err}"
        assert re.search(r"primary ranges of .*: \d+ token range\(s\)", err), err
        reports.append(json.loads(out))
        errs.append(err)
    assert DC1_ONLY in run["replication"].values(), "no workload has a keyspace dc2 holds none of"
    for ks, table in run["tables"]:
        parts = [r for report in reports for r in report["tables"] if (r["namespace"], r["table"]) == (ks, table)]
        if run["replication"][ks] == DC1_ONLY:
            assert len(parts) == 2, (ks, table, parts)  # the two dc1 nodes
            assert f"{ks}/{table}" in errs[2] and "primary replica for no token range" in errs[2], errs[2]
        else:
            assert len(parts) == 3, (ks, table, parts)
        assert all(p["part_of_ring"] for p in parts), parts
        # Tokens are placed at random: a node whose primary ranges hold none of a small table's partitions
        # has nothing to publish, and once another job made the table it commits nothing.
        for p in parts:
            assert p["committed"] or (p["rows_total"] == 0 and p["message"].startswith("nothing new")), p
        assert any(p["committed"] for p in parts), parts
        _, lines = run["answers"][(ks, table)]
        schema = _schema(catalog, ks, table)
        expected, duck = table_compare.check_readers(catalog, warehouse, CATALOG_NAME, ks, table, lines, schema,
                                                     "CONSISTENCY ALL (a job per node)")
        _assert_each_key_once(ks, table, schema, duck)
        assert sum(p["rows_total"] for p in parts) == len(expected), (ks, table, parts)
    again = job(run["data_dirs"][0])
    out, err = again.communicate(timeout=600)
    assert again.returncode == 0, err
    assert not any(r["committed"] for r in json.loads(out)["tables"]), out


def _describering(path):
    """[(start, end, [endpoint...])] of `nodetool describering`: each range (start, end]."""
    ranges = []
    for line in pathlib.Path(path).read_text().splitlines():
        m = re.match(r"TokenRange\(start_token:(-?\d+), end_token:(-?\d+), endpoints:\[([^\]]*)\]", line)
        assert m, line
        ranges.append((int(m.group(1)), int(m.group(2)), [e.strip() for e in m.group(3).split(",")]))
    return ranges


def _holding(ranges, token):
    for start, end, endpoints in ranges:
        inside = start < token <= end if start < end else (token > start or token <= end)
        if inside:
            return endpoints
    raise AssertionError(f"no range holds token {token}")


def test_ring_placement_equals_describering(run, cqlite):
    """`cqlite ring`, from the nodes' system tables alone, places every range's replicas where the
    cluster's own `nodetool describering` says they are."""
    checked = 0
    for ks, path in run["rings"].items():
        theirs = _describering(path)
        proc = cqlite("ring", *run["data_dirs"], "--keyspace", ks, "--json")
        ours = json.loads(proc.stdout)
        assert len(ours["nodes"]) == 3
        simple = "SimpleStrategy" in ours["replication"]
        for r in ours["ranges"]:
            for token in (int(r["first"]), int(r["last"])):
                expected = _holding(theirs, token)
                if simple:  # in ring order from the range's end, as SimpleStrategy walks
                    assert r["replicas"] == expected, (ks, r, expected)
                else:
                    assert sorted(r["replicas"]) == sorted(expected), (ks, r, expected)
                checked += 1
    assert checked > 0


def test_replicas_differ(run, cqlite):
    """Without this the test above would prove nothing about merging replicas."""
    differing = []
    for ks, table in run["tables"]:
        now, lines = run["answers"][(ks, table)]
        for data_dir in run["data_dirs"]:
            table_dirs = sorted((data_dir / ks).glob(table + "-*"))
            assert len(table_dirs) == 1, table_dirs
            proc = cqlite("select", table_dirs[0], "--now", now, check=False)
            assert proc.returncode == 0, proc.stderr
            if sorted(proc.stdout.splitlines()) != sorted(lines):
                differing.append((ks, table, data_dir.parent.name))
    assert differing, "every node alone gave the answer at ALL: the workload did not make replicas differ"


def test_a_node_left_out_is_named_and_nothing_is_committed(run, cqlite, tmp_path):
    warehouse = tmp_path / "warehouse"
    now = min(now for now, _ in run["answers"].values())
    proc = _materialize(cqlite, run["data_dirs"][:2], warehouse, now, check=False)
    assert proc.returncode != 0
    assert "token ranges lack replicas" in proc.stderr and "127.0.0.3" in proc.stderr, proc.stderr
    assert "--allow-missing-replicas" in proc.stderr
    assert not (warehouse / "catalog.db").exists() or not iceberg_readers.list_pyiceberg(
        warehouse / "catalog.db", warehouse, CATALOG_NAME)
    # With the flag, the replicas there are are folded (every range keeps one in dc1).
    proc = _materialize(cqlite, run["data_dirs"][:2], warehouse, now, "--allow-missing-replicas")
    assert all(r["committed"] for r in json.loads(proc.stdout)["tables"])


def test_the_same_node_twice_is_refused(run, cqlite, tmp_path):
    d = run["data_dirs"][0]
    proc = _materialize(cqlite, [d, d, run["data_dirs"][1]], tmp_path / "w", 1800000000, check=False)
    assert proc.returncode != 0
    assert "are the same node" in proc.stderr, proc.stderr


def test_two_clusters_are_refused(run, cqlite, fixtures_dir, tmp_path):
    """A node of another cluster (the fixtures' Cassandra 3.0.29 node, "Test Cluster") beside this one's."""
    other = fixtures_dir / "pcass-cassandra-3.0.29" / "cassandra3_data_want"
    warehouse = tmp_path / "w"
    proc = _materialize(cqlite, [*run["data_dirs"], other], warehouse, 1800000000, check=False)
    assert proc.returncode != 0
    assert f"{other} is of cluster 'Test Cluster' but" in proc.stderr, proc.stderr
    assert not (warehouse / "catalog.db").exists()


def test_a_table_whose_schema_differs_between_nodes_is_refused(run, cqlite, tmp_path):
    """A column added while the third node was down: that node's system_schema still has the old table. The
    run names the table, the node and the difference, commits nothing for that table and the rest as
    usual. Runs last, as it restarts two nodes and alters a table."""
    cluster = run["cluster"]
    for node in cluster.nodes[:2]:
        node.start()
    cluster.wait_for_schema_agreement()
    cluster.nodes[0].command("cql-at ONE ALTER TABLE after_repair.t ADD extra text")
    cluster.wait_for_schema_agreement()
    for node in cluster.nodes[:2]:
        node.flush_schema()
    cluster.stop()
    warehouse = tmp_path / "warehouse"
    now = min(now for now, _ in run["answers"].values())
    proc = _materialize(cqlite, run["data_dirs"], warehouse, now, check=False)
    assert proc.returncode != 0, proc.stdout
    refused = [line for line in proc.stderr.splitlines() if "differs" in line]
    assert len(refused) == 1, proc.stderr
    assert "after_repair.t" in refused[0] and "extra text" in refused[0], refused[0]
    assert "nothing committed" in refused[0], refused[0]
    committed = {(r["namespace"], r["table"]) for r in json.loads(proc.stdout)["tables"] if r["committed"]}
    assert committed == set(run["tables"]), committed
    listed = iceberg_readers.list_pyiceberg(warehouse / "catalog.db", warehouse, CATALOG_NAME)
    assert ["after_repair", "t"] not in listed["tables"] and list(run["tables"][0]) in listed["tables"], listed
