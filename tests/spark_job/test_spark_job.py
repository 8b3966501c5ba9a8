"""spark/cqlite_spark.py: a cluster's tables materialized as a Spark job (issue 18).

Spark is PySpark 3.5 (tests/spark_job/requirements.txt) on a `local-cluster[2,1,1024]`
master: two executor JVMs of one core each, started by spark-submit's own JVM. The
SSTables are fleet.py's, written by a real Cassandra node, uploaded to S3Proxy
(s3proxy_server.py) laid out as a node's snapshot folder (s3://lake/<test>/node1/fleet/
<table>-<id>/ and fleet/schema.cql); the warehouse and the job directories are in the
same bucket, and the tables are published through Apache Iceberg's REST catalog
server (tests/integration/conftest.py's RestCatalogServer, its warehouse the bucket).
Each test has its own catalog server and prefix.

Expected rows are the node's `SELECT JSON *` after flush FIRST_JOB and after the
last, read back by PyIceberg and DuckDB (table_compare.check_readers), and a
single-process `cqlite materialize` of the same generations from a local copy. After
every job no file is left under a table's data/, metadata/ and cqlite/ that its
metadata and fold state do not name, and every file they name exists
(test_maintain.Table), and the job directory is gone.

  - test_jobs_publish_the_node_answers: a job over generations 1..FIRST_JOB (three
    ranges a table), then one over the later generations (one new snapshot a table,
    consuming only those generations, the same ranges), then one with nothing new
    (no snapshot).
  - test_an_executor_killed_mid_task: an executor JVM gets SIGKILL while a cqlite
    task of it runs; that cqlite dies with it, Spark runs the lost tasks again, and
    the job's table is the node's.
  - test_attempts_that_staged_and_failed: every range's first attempt stages its
    result and then fails (a wrapper of the binary), so each range is staged twice;
    the commit keeps one of each and removes the other's files.
  - test_a_driver_killed_around_its_commit[before|after]: spark-submit gets SIGKILL
    while `cqlite commit` is about to run (or has just run): every process of the job
    goes; the next job discards the job directory it left (removing its files, or only
    cleaning up when it had committed), and publishes the node's answer.
  - test_a_speculative_copy_wins: speculation on, on a standalone cluster whose two
    executors are on 127.0.0.2 and 127.0.0.3 (on a local-cluster master every executor
    is on one host, and Spark never runs a speculative copy of a task on a host where
    an attempt of it runs): one range's first attempt stages and hangs, a copy wins,
    the driver commits once the killed attempt has ended.
  - test_a_failed_job_leaves_nothing: a table's tasks fail every attempt: the job
    exits non-zero, commits nothing and leaves no file; the next job (the binary
    given as installed on the executors, --executor-cqlite) succeeds.

Environment: CQLITE_BIN (the binary), CQLITE_SPARK_JOB_KEEP=1 keeps each test's
directory (its job logs).
"""
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

import conftest
import fleet
import iceberg_readers
import node_runs
import s3proxy_server
import table_compare
from test_maintain import Table

DRIVER = conftest.REPO / "spark" / "cqlite_spark.py"
BUCKET = "lake"
CATALOG_NAME = "cqlite"
MASTER = "local-cluster[2,1,1024]"
SPARK_BIN = pathlib.Path(sys.executable).parent  # spark-submit and spark-class, installed with pyspark
JOB_TIMEOUT = 900


# ---------------------------------------------------------------------------
# The node's tables, the S3 store, a catalog server per test
# ---------------------------------------------------------------------------

class Node:
    """fleet.py's node output: per table its directory, its generations and the two SELECTs (now, lines)."""

    def __init__(self, out):
        self.keyspace_dir = out / fleet.KEYSPACE
        self.table_dirs = {t: next(self.keyspace_dir.glob(t + "-*")) for t in fleet.TABLES}
        self.generations = {t: fleet.generations(d) for t, d in self.table_dirs.items()}
        self.selects = {t: [node_runs.read_select(self.keyspace_dir / f"{t}.select{n}.jsonl") for n in (1, 2)]
                        for t in fleet.TABLES}
        # The time of fleet.events' SELECTs is the jobs' --now (fleet.devices has no TTL).
        self.now = [self.selects[fleet.TABLES[0]][n][0] for n in (0, 1)]

    def components(self, first, last):
        """(table, component file) of generations first..last (1-based) of every table."""
        for t, d in self.table_dirs.items():
            for prefix in self.generations[t][first - 1:last]:
                for component in sorted(d.glob(prefix + "*")):
                    yield t, component


@pytest.fixture(scope="module")
def node(oracle):
    n = Node(fleet.node_output(oracle))
    for t in fleet.TABLES:
        assert len(n.generations[t]) == fleet.GENERATIONS, (t, n.generations[t])
    return n


@pytest.fixture(scope="module")
def lake(tmp_path_factory):
    s3proxy_server.clean_environment()
    server = s3proxy_server.S3ProxyServer(tmp_path_factory.mktemp("s3proxy"), BUCKET)
    saved = {k: os.environ.get(k) for k in server.environment()}
    os.environ.update(server.environment())
    try:
        yield server
    finally:
        server.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Setup:
    """One test's place in the bucket (source, warehouse, job directories), its catalog server and its
    local directory (job logs, wrappers, the single-process run)."""

    def __init__(self, lake, node, root, name):
        self.lake, self.node, self.root = lake, node, pathlib.Path(root)
        self.prefix = name
        self.source = f"s3://{BUCKET}/{name}/node1"
        self.warehouse = f"s3://{BUCKET}/{name}/warehouse"
        self.stage_root = f"s3://{BUCKET}/{name}/stage"
        self.server = conftest.RestCatalogServer(self.root / "rest-server", warehouse=self.warehouse)
        self.catalog = self.server.address
        self.jobs = 0

    def upload(self, first, last):
        """Generations first..last of every table into the snapshot folder, and the keyspace's schema.cql."""
        ks = fleet.KEYSPACE
        self.lake.upload(self.node.keyspace_dir / "schema.cql", f"{self.prefix}/node1/{ks}/schema.cql")
        for t, component in self.node.components(first, last):
            self.lake.upload(component, f"{self.prefix}/node1/{ks}/{self.node.table_dirs[t].name}/{component.name}")

    def job_command(self, now, *extra, binary=None, master=MASTER, conf=()):
        return [str(SPARK_BIN / "spark-submit"), "--master", master,
                "--conf", "spark.ui.enabled=false", "--conf", "spark.task.maxFailures=4",
                "--conf", "spark.executor.memory=512m", *(a for c in conf for a in ("--conf", c)), str(DRIVER),
                "--cqlite", str(binary or conftest.cqlite_binary()), "--warehouse", self.warehouse,
                "--catalog", self.catalog, "--stage-root", self.stage_root, "--now", str(now), "--json",
                *map(str, extra), self.source]

    def start_job(self, now, *extra, **options):
        """spark-submit of the job, started; its stderr goes to job-<n>.log in the test's directory."""
        self.jobs += 1
        self.log = self.root / f"job-{self.jobs}.log"
        return subprocess.Popen(self.job_command(now, *extra, **options), stdout=subprocess.PIPE,
                                stderr=open(self.log, "w"), text=True, env=spark_environment(),
                                start_new_session=True)

    def run_job(self, now, *extra, **options):
        """Runs a job to its end; asserts it succeeded and returns its summary."""
        proc = self.start_job(now, *extra, **options)
        out, _ = proc.communicate(timeout=JOB_TIMEOUT)
        self.output = out  # the driver's own log lines and its summary
        assert proc.returncode == 0, (f"the job failed ({proc.returncode}); {self.log}:\n{log_tail(self.log)}\n"
                                      f"the driver:\n{out[-4000:]}")
        return summary_of(out)

    def table(self, name):
        return Table(self.catalog, fleet.KEYSPACE, name)

    def stage_keys(self):
        return [k for k in self.lake.keys(f"{self.prefix}/stage/") if not k.endswith("/")]

    def check_node(self, table, n, what):
        """PyIceberg and DuckDB read the node's SELECT after flush FIRST_JOB (n=0) or the last (n=1);
        returns DuckDB's rows and the table's schema."""
        schema = iceberg_readers.current_schema(self.table(table).metadata)
        _expected, duck = table_compare.check_readers(self.catalog, self.warehouse, CATALOG_NAME, fleet.KEYSPACE,
                                                      table, self.node.selects[table][n][1], schema, what)
        return duck, schema

    def check_files(self, table, what):
        """Nothing unreferenced under the table's data/, metadata/ and cqlite/, nothing named missing."""
        unreferenced, missing = self.table(table).unreferenced_and_missing()
        # S3Proxy's filesystem storage lists its directories as keys ending in "/": not files.
        unreferenced = [p for p in unreferenced if not p.endswith("/")]
        assert not missing, f"{table} {what}: files the table names are gone: {missing}"
        assert not unreferenced, f"{table} {what}: {len(unreferenced)} files nothing references: {unreferenced}"


@pytest.fixture()
def setup(lake, node, request):
    root = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-spark-job-"))
    # The test's name as a plain key prefix: readers take brackets in an s3:// path for a glob.
    s = Setup(lake, node, root, re.sub(r"[^a-z0-9]+", "-", request.node.name.replace("test_", "", 1)).strip("-"))
    try:
        yield s
    finally:
        s.server.stop()
        if os.environ.get("CQLITE_SPARK_JOB_KEEP") != "1":
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"kept {root}")


def spark_environment():
    import pyspark

    env = dict(os.environ)
    env.update(SPARK_HOME=str(pathlib.Path(pyspark.__file__).parent), PYSPARK_PYTHON=sys.executable,
               PYSPARK_DRIVER_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
    return env


def summary_of(stdout):
    """The job's summary: the last line of its stdout (which holds the driver's log lines too)."""
    lines = [ln for ln in stdout.splitlines() if ln.startswith("{")]
    assert lines, f"the job printed no summary:\n{stdout[-3000:]}"
    return json.loads(lines[-1])


def log_tail(path, lines=40):
    text = [ln for ln in pathlib.Path(path).read_text(errors="replace").splitlines()
            if " INFO " not in ln and not ln.startswith("\tat ")]
    return "\n".join(text[-lines:])


def generations_of(snapshot):
    """The SSTable generation numbers a snapshot's summary says it consumed (cqlite.generations)."""
    entries = snapshot["summary"].get("cqlite.generations", "")
    return sorted(int(m.group(1)) for m in re.finditer(r"/[a-z]{2}-(\d+)-big", entries))


def peak_rss_mib(summary):
    return max(r["peak_rss_kib"] for t in summary["tables"] for r in t["ranges"]) / 1024


# ---------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------

def processes():
    """{pid: (parent pid, argv)} of every process."""
    out = {}
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        out[int(entry.name)] = (ppid, [a.decode(errors="replace") for a in argv if a])
    return out


def descendants(pid, table=None):
    table = table or processes()
    children = {}
    for p, (ppid, _argv) in table.items():
        children.setdefault(ppid, []).append(p)
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def tasks_running(setup_, table=None):
    """The pids of the job's `cqlite materialize` processes."""
    table = table or processes()
    return [p for p, (_ppid, argv) in table.items()
            if "materialize" in argv and "--stage" in argv and any(a.startswith(setup_.stage_root) for a in argv)]


def executor_of(pid, table):
    """The executor JVM (CoarseGrainedExecutorBackend) among the ancestors of `pid`, or None."""
    while pid in table and pid > 1:
        pid = table[pid][0]
        if pid in table and any("CoarseGrainedExecutorBackend" in a for a in table[pid][1]):
            return pid
    return None


def wait_until_gone(pids, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [p for p in pids if pathlib.Path(f"/proc/{p}").exists() and not _zombie(p)]
        if not alive:
            return []
        time.sleep(0.2)
    return alive


def _zombie(pid):
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2] == "Z"


class TwoHostCluster:
    """A standalone Spark cluster: a master on 127.0.0.1 and a worker of one core on each of 127.0.0.2
    and 127.0.0.3, so that its two executors are on different hosts (Spark runs a speculative copy of a
    task only on a host where no attempt of it runs). Stopped by stop()."""

    def __init__(self, root):
        root.mkdir(parents=True)
        self.procs, self.logs = [], []
        port = s3proxy_server.free_port()
        self.master = f"spark://127.0.0.1:{port}"
        self._start(root / "master.log", "127.0.0.1", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                    "--port", str(port), "--webui-port", str(s3proxy_server.free_port()))
        for host in ("127.0.0.2", "127.0.0.3"):
            self._start(root / f"worker-{host}.log", host, "org.apache.spark.deploy.worker.Worker", "--host", host,
                        "--webui-port", str(s3proxy_server.free_port()), "--cores", "1", "--memory", "1g",
                        "--work-dir", str(root / f"work-{host}"), self.master)
        deadline = time.monotonic() + 120
        while (root / "master.log").read_text().count("Registering worker") < 2:
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.procs):
                self.stop()
                raise AssertionError("the standalone cluster did not start: " + (root / "master.log").read_text()[-3000:])
            time.sleep(0.5)

    def _start(self, log, host, main, *args):
        env = dict(spark_environment(), SPARK_LOCAL_IP=host)
        self.logs.append(open(log, "w"))
        self.procs.append(subprocess.Popen([str(SPARK_BIN / "spark-class"), main, *args], stdout=self.logs[-1],
                                           stderr=subprocess.STDOUT, env=env))

    def stop(self):
        from s3_server import stop_server

        for proc, log in reversed(list(zip(self.procs, self.logs))):
            stop_server(proc, log)


def wrapper(setup_, name, body):
    """A stand-in for the binary: a shell script that runs the real one as `body` says ($REAL is the
    binary, $MARKS a directory for the script's marks, $RANGE the task's --token-range)."""
    marks = setup_.root / f"{name}-marks"
    marks.mkdir()
    path = setup_.root / name
    path.write_text(f"""#!/bin/sh
REAL='{conftest.cqlite_binary()}'
MARKS='{marks}'
RANGE=
prev=
for a in "$@"; do [ "$prev" = --token-range ] && RANGE="$a"; prev="$a"; done
{body}
exec "$REAL" "$@"
""")
    path.chmod(0o755)
    return path, marks


# ---------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------

def test_jobs_publish_the_node_answers(setup, cqlite):
    s, node = setup, setup.node
    s.upload(1, fleet.FIRST_JOB)
    t0 = time.monotonic()
    first = s.run_job(node.now[0], "--ranges", 3)
    first_seconds = time.monotonic() - t0
    assert sorted(t["table"] for t in first["tables"]) == sorted(fleet.TABLES), first
    # The same generations, from a local copy, by one cqlite process into a warehouse of its own.
    single = s.root / "single"
    for t, component in node.components(1, fleet.FIRST_JOB):
        target = single / fleet.KEYSPACE / node.table_dirs[t].name
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(component, target / component.name)
    shutil.copy(node.keyspace_dir / "schema.cql", single / fleet.KEYSPACE / "schema.cql")
    cqlite("materialize", single, "--warehouse", s.root / "single-warehouse", "--now", node.now[0], "-q")
    ranges = {}
    for t in first["tables"]:
        name = t["table"]
        assert t["ranges_from"] == "bytes" and len(t["ranges"]) == 3, t
        assert t["commit"]["committed"] and t["commit"]["parts_staged"] == 3, t["commit"]
        ranges[name] = [r["range"] for r in t["ranges"]]
        duck, schema = s.check_node(name, 0, f"after the job over generations 1..{fleet.FIRST_JOB}")
        alone = iceberg_readers.read_duckdb(s.root / "single-warehouse" / "catalog.db", s.root / "single-warehouse",
                                            CATALOG_NAME, fleet.KEYSPACE, name)
        problem = table_compare.differs(alone, duck, schema)
        assert problem is None, f"{name}: the job vs a single cqlite materialize: {problem}"
        table = s.table(name)
        assert len(table.snapshots) == 1, f"{name}: {len(table.snapshots)} snapshots after the first job"
        assert generations_of(table.current) == list(range(1, fleet.FIRST_JOB + 1)), table.current["summary"]
        s.check_files(name, "after the first job")
    assert s.stage_keys() == [], "the job directory is still there"
    print(f"spark job: first job {first_seconds:.1f} s; task seconds "
          f"{[r['seconds'] for t in first['tables'] for r in t['ranges']]}; peak RSS of a task "
          f"{peak_rss_mib(first):.1f} MiB")

    # The later generations: one snapshot more per table, consuming only them, over the same ranges.
    before = {t: s.table(t) for t in fleet.TABLES}
    s.upload(fleet.FIRST_JOB + 1, fleet.GENERATIONS)
    t0 = time.monotonic()
    second = s.run_job(node.now[1])
    second_seconds = time.monotonic() - t0
    for t in second["tables"]:
        name = t["table"]
        assert t["ranges_from"] == "table parts" and [r["range"] for r in t["ranges"]] == ranges[name], (
            f"{name}: the second job's ranges {t['ranges']} ({t['ranges_from']}), the first's {ranges[name]}")
        s.check_node(name, 1, "after the second job")
        table = s.table(name)
        assert len(table.snapshots) == 2 and table.current.get("parent-snapshot-id") == before[name].current_id, (
            f"{name}: {len(table.snapshots)} snapshots, the current one's parent "
            f"{table.current.get('parent-snapshot-id')}, the first job's {before[name].current_id}")
        assert generations_of(table.current) == list(range(fleet.FIRST_JOB + 1, fleet.GENERATIONS + 1)), (
            table.current["summary"])
        s.check_files(name, "after the second job")
    assert s.stage_keys() == [], "the job directory is still there"

    # Nothing new: no snapshot.
    after = {t: s.table(t).location for t in fleet.TABLES}
    third = s.run_job(node.now[1])
    assert not any(t["commit"]["committed"] for t in third["tables"]), third["commit"]
    for name in fleet.TABLES:
        assert s.table(name).location == after[name], f"{name}: the job with nothing new committed"
        s.check_node(name, 1, "after the job with nothing new")
        s.check_files(name, "after the job with nothing new")
    print(f"spark job: second job {second_seconds:.1f} s, peak RSS of a task {peak_rss_mib(second):.1f} MiB; "
          f"third commit {json.dumps(third['commit'])}")


def test_an_executor_killed_mid_task(setup):
    s, node = setup, setup.node
    s.upload(1, fleet.GENERATIONS)
    proc = s.start_job(node.now[1], "--ranges", 12)
    killed = None
    try:
        deadline = time.monotonic() + JOB_TIMEOUT
        while killed is None and proc.poll() is None and time.monotonic() < deadline:
            table = processes()
            for task in tasks_running(s, table):
                executor = executor_of(task, table)
                if executor:
                    os.kill(executor, signal.SIGKILL)
                    killed = (executor, task)
                    break
            time.sleep(0.02)
        assert killed, "no cqlite task was seen running under an executor"
        # The task's cqlite dies with its Python worker, which dies with the executor.
        left = wait_until_gone([killed[1]], 10)
        assert not left, f"cqlite (pid {killed[1]}) still runs 10 s after its executor (pid {killed[0]}) was killed"
        out, _ = proc.communicate(timeout=JOB_TIMEOUT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, f"the job failed ({proc.returncode}) after an executor was lost:\n{log_tail(s.log)}"
    summary = summary_of(out)
    assert "Lost executor" in s.log.read_text(), f"Spark did not log the executor lost: {s.log}"
    for name in fleet.TABLES:
        s.check_node(name, 1, "after a job that lost an executor")
        s.check_files(name, "after a job that lost an executor")
        assert len(s.table(name).snapshots) == 1
    assert s.stage_keys() == []
    print(f"spark job: executor {killed[0]} killed while cqlite {killed[1]} ran; peak RSS of a task "
          f"{peak_rss_mib(summary):.1f} MiB")


def test_attempts_that_staged_and_failed(setup):
    s, node = setup, setup.node
    s.upload(1, fleet.GENERATIONS)
    # The first attempt of each range stages its result, then fails: each range is staged twice.
    binary, marks = wrapper(s, "cqlite-fails-once", """
if [ "$1" = materialize ] && mkdir "$MARKS/$(printf %s "$RANGE" | tr ':,' '__')" 2>/dev/null; then
    "$REAL" "$@" || exit $?
    echo "staged, and failing on purpose" >&2
    exit 3
fi""")
    summary = s.run_job(node.now[1], "--ranges", 2, binary=binary)
    attempts = [r["attempt"] for t in summary["tables"] for r in t["ranges"]]
    assert len(list(marks.iterdir())) == len(attempts) == 2 * len(fleet.TABLES), (list(marks.iterdir()), attempts)
    assert all(a >= 1 for a in attempts), f"a range succeeded at its first attempt: {attempts}"
    for t in summary["tables"]:
        assert t["commit"]["committed"] and t["commit"]["runs_discarded"] == len(t["ranges"]), t["commit"]
    for name in fleet.TABLES:
        s.check_node(name, 1, "after every range was staged twice")
        s.check_files(name, "after every range was staged twice")
        assert len(s.table(name).snapshots) == 1
    assert s.stage_keys() == []


def test_a_speculative_copy_wins(setup):
    """Speculation on, on a cluster whose executors are on two hosts: the first attempt of one range
    stages its result and then hangs, a speculative copy of it on the other executor stages again and
    succeeds, Spark kills the first; the commit keeps one result of the range and removes the other's
    files."""
    s, node = setup, setup.node
    s.upload(1, fleet.GENERATIONS)
    binary, marks = wrapper(s, "cqlite-slow-once", """
if [ "$1" = materialize ] && mkdir "$MARKS/slow" 2>/dev/null; then
    printf %s "$RANGE" >"$MARKS/slow/range"
    "$REAL" "$@" || exit $?
    exec sleep 600
fi""")
    cluster = TwoHostCluster(s.root / "cluster")
    try:
        t0 = time.monotonic()
        summary = s.run_job(node.now[1], "--ranges", 3, binary=binary, master=cluster.master, conf=(
            "spark.speculation=true", "spark.speculation.interval=200ms", "spark.speculation.quantile=0.5",
            "spark.speculation.multiplier=1.5", "spark.speculation.minTaskRuntime=2s"))
        seconds = time.monotonic() - t0
    finally:
        cluster.stop()
    slow = (marks / "slow" / "range").read_text()
    won = [(t, r) for t in summary["tables"] for r in t["ranges"] if r["range"] == slow and r["attempt"] >= 1]
    assert len(won) == 1, f"no speculative copy of range {slow} won: {summary['tables']}"
    table, _ = won[0]
    assert seconds < 300, f"the job took {seconds:.0f} s: it waited for the hanging attempt"
    assert table["commit"]["committed"] and table["commit"]["runs_discarded"] == 1, table["commit"]
    # The commit waited for the killed attempt to end.
    assert "task attempt(s) still running" in s.output, s.output[-3000:]
    hanging = [p for p, (_ppid, argv) in processes().items() if argv == ["sleep", "600"]]
    assert not hanging, f"the killed attempt's process still runs: {hanging}"
    for name in fleet.TABLES:
        s.check_node(name, 1, "after a speculative copy won")
        s.check_files(name, "after a speculative copy won")
    assert s.stage_keys() == []
    print(f"spark job: a speculative copy of {table['table']} range {slow} won; job {seconds:.1f} s")


def test_a_failed_job_leaves_nothing(setup):
    s, node = setup, setup.node
    s.upload(1, fleet.FIRST_JOB)
    s.run_job(node.now[0])
    before = {t: s.table(t).location for t in fleet.TABLES}
    s.upload(fleet.FIRST_JOB + 1, fleet.GENERATIONS)
    # Every attempt of fleet.devices stages its result and fails: the job fails once Spark gives up.
    binary, _marks = wrapper(s, "cqlite-devices-fail", """
if [ "$1" = materialize ]; then
    case "$*" in *fleet.devices*) "$REAL" "$@"; exit 3 ;; esac
fi""")
    proc = s.start_job(node.now[1], binary=binary)
    out, _ = proc.communicate(timeout=JOB_TIMEOUT)
    assert proc.returncode != 0, "the job succeeded though a table's task failed every attempt"
    assert "the job failed; discarding" in out, out[-3000:]
    assert s.stage_keys() == [], f"the failed job's directory is still there: {s.stage_keys()}"
    for name in fleet.TABLES:
        assert s.table(name).location == before[name], f"{name}: the failed job committed"
        s.check_node(name, 0, "after a failed job")
        s.check_files(name, "after a failed job")
    # This time with the binary as installed on every executor: none is shipped.
    s.run_job(node.now[1], "--executor-cqlite", conftest.cqlite_binary())
    for name in fleet.TABLES:
        s.check_node(name, 1, "after the job that followed a failed one")
        s.check_files(name, "after the job that followed a failed one")


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_driver_killed_around_its_commit(setup, when):
    s, node = setup, setup.node
    s.upload(1, fleet.GENERATIONS)
    commit = {"before": 'touch "$MARKS/commit"; exec sleep 600',
              "after": '"$REAL" "$@" || exit $?; touch "$MARKS/commit"; exec sleep 600'}[when]
    binary, marks = wrapper(s, f"cqlite-hangs-{when}-commit", f"""
if [ "$1" = commit ]; then
    case "$*" in *--discard*) ;; *) {commit} ;; esac
fi""")
    proc = s.start_job(node.now[1], "--ranges", 2, binary=binary)
    try:
        deadline = time.monotonic() + JOB_TIMEOUT
        while not (marks / "commit").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (marks / "commit").exists(), f"the driver never reached its commit:\n{log_tail(s.log)}"
        tree = descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)  # spark-submit's JVM: the driver
        proc.wait(timeout=60)
        # The Python driver and what it runs die with it; the executors leave once their driver is gone.
        left = wait_until_gone(tree, 60)
        assert not left, f"processes of the killed driver still run: {[(p, processes().get(p)) for p in left]}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    if when == "before":
        jobs = {k.split("/")[2] for k in s.stage_keys()}
        assert len(jobs) == 1, f"the killed driver's job directory: {s.stage_keys()}"
    committed = {}
    for name in fleet.TABLES:
        try:
            committed[name] = s.table(name).location
        except Exception:
            committed[name] = None
    if when == "before":
        assert committed == {t: None for t in fleet.TABLES}, f"a table was committed: {committed}"
    else:
        assert all(committed.values()), committed
        for name in fleet.TABLES:
            s.check_node(name, 1, "after a driver killed right after its commit")

    s.run_job(node.now[1])
    assert s.stage_keys() == [], f"the killed driver's job directory is still there: {s.stage_keys()}"
    for name in fleet.TABLES:
        s.check_node(name, 1, f"after the job that followed a driver killed {when} its commit")
        s.check_files(name, f"after the job that followed a driver killed {when} its commit")
        table = s.table(name)
        assert len(table.snapshots) == 1, f"{name}: {len(table.snapshots)} snapshots"
        if when == "after":
            assert table.location == committed[name], f"{name}: the job with nothing new committed"
