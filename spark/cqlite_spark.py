"""Materialize a Cassandra cluster's tables into Iceberg tables as a Spark job.

    spark-submit [spark options] spark/cqlite_spark.py --cqlite BINARY --warehouse W --catalog C
        --stage-root DIR [--executor-cqlite PATH] [--cluster] [--tables ks.t,...]
        [--range-bytes B] [--ranges N] [--now T] [--json] [--catalog-name N]
        [--allow-missing-replicas] [--repaired-only] [--decimal-scale S] [--truncate-time]
        [--time-as time|long|string] SOURCE...

SOURCE is what `cqlite materialize` takes: a data directory, snapshot or backup
folder, local or s3://bucket/prefix; with --cluster, one data directory per
node. Every executor must reach the sources, the warehouse and --stage-root
(an s3:// prefix, or a file system they all mount); S3 credentials and
endpoint come from the AWS_* variables (spark.executorEnv.* for executors).

The job, one at a time per table (docs/spark.md):

 1. The driver discards the job directories under --stage-root that drivers
    killed before their commit left (`cqlite commit --staged OLD --discard`:
    their files go, unless that job did commit).
 2. It runs `cqlite plan`: the tables and, for each, token ranges of about
    --range-bytes of SSTables each, or the parts of a table already published
    by parts (a later job must split the ring the same way). It makes its job
    directory, <stage-root>/job-<uuid>, and fixes `now` once for every task
    and retry.
 3. One Spark task per (table, range) runs `cqlite materialize --token-range
    RANGE --stage JOBDIR`: it folds that range, writes its data and delete
    files into the warehouse and a staged result under JOBDIR, and commits
    nothing. The binary is shipped with the job (SparkContext.addFile) unless
    --executor-cqlite names one installed on every executor. It dies with its
    Python worker (PR_SET_PDEATHSIG), so a task Spark kills (a speculative
    loser, a lost executor) leaves no process behind; a non-zero exit fails
    the task with the binary's stderr, and Spark runs it again.
 4. Once no attempt of the job is running any more, the driver runs `cqlite
    commit --staged JOBDIR`: every staged range of a table in one snapshot,
    one attempt per range kept and the files of the others removed. Then it
    removes JOBDIR and prints a summary (with --json, as JSON on one line of
    stdout: spark-submit mixes the driver's stderr into its stdout). A job
    whose task failed every attempt, or whose commit failed (another job
    committed one of its parts meanwhile), is discarded and exits non-zero:
    run it again.

The Python driver dies with the spark-submit JVM that started it, and the
cqlite it runs with it: a driver killed before its commit leaves a job
directory for the next driver to discard, never a commit still to come.
"""
import argparse
import ctypes
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import uuid

from pyspark import SparkConf, SparkContext, SparkFiles, TaskContext

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
JOB_PREFIX = "job-"


def log(message):
    print(f"cqlite_spark: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Running the binary
# ---------------------------------------------------------------------------

def _die_with_parent(parent_pid):
    """A preexec_fn: the child gets SIGKILL when the process that started it exits, and exits at once if
    that process is already gone."""
    def preexec():
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            os._exit(127)
        if os.getppid() != parent_pid:
            os._exit(127)
    return preexec


def make_executable(path):
    """Files shipped by Spark or YARN (addFile, --files) may arrive without their execute bits."""
    mode = os.stat(path).st_mode
    if not mode & stat.S_IXUSR:
        os.chmod(path, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class Finished:
    """How a run of the binary ended: exit code, stdout, stderr, wall seconds and peak RSS (KiB)."""

    def __init__(self, returncode, stdout, stderr, seconds, peak_rss_kib):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr
        self.seconds, self.peak_rss_kib = seconds, peak_rss_kib


def high_water_rss_kib(pid):
    """The peak resident set of the process's own memory so far (VmHWM), 0 once it has exited."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_binary(args):
    """Runs `args` to completion as a child that dies with this process, and measures it. The peak RSS
    is the child's VmHWM, sampled every 20 ms until it exits: the rusage of a child forked from a
    Python worker counts the worker's own resident pages at the fork as well."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                preexec_fn=_die_with_parent(os.getpid()))
        peak = 0
        while proc.poll() is None:
            peak = max(peak, high_water_rss_kib(proc.pid))
            time.sleep(0.02)
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return Finished(proc.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                        seconds, peak)


def run_or_raise(args, what):
    done = run_binary(args)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {done.returncode}): {' '.join(map(str, args))}\n"
                           f"{done.stderr.strip()[-4000:]}")
    return done


# ---------------------------------------------------------------------------
# The stage root: a local (or mounted) directory, or an s3:// prefix
# ---------------------------------------------------------------------------

def is_s3(path):
    return path.startswith("s3://")


def join(root, name):
    return root.rstrip("/") + "/" + name


class StageRoot:
    """Lists, makes and removes job directories under --stage-root. An s3:// root is reached with boto3
    (the endpoint from AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, as boto3 itself reads them, or
    CQLITE_S3_ENDPOINT, as cqlite reads it)."""

    def __init__(self, root):
        self.root = root.rstrip("/")
        self.s3 = None
        if is_s3(self.root):
            import boto3

            endpoint = os.environ.get("CQLITE_S3_ENDPOINT") or None
            self.s3 = boto3.client("s3", endpoint_url=endpoint)
            self.bucket, _, prefix = self.root[len("s3://"):].partition("/")
            self.prefix = prefix + "/" if prefix else ""

    def jobs(self):
        """The job directories under the root, in name order."""
        if self.s3 is None:
            if not os.path.isdir(self.root):
                return []
            return sorted(join(self.root, n) for n in os.listdir(self.root) if n.startswith(JOB_PREFIX))
        names = set()
        pages = self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix + JOB_PREFIX,
                                                                  Delimiter="/")
        for page in pages:
            names.update(p["Prefix"][len(self.prefix):].rstrip("/") for p in page.get("CommonPrefixes", []))
        return sorted(join(self.root, n) for n in names)

    def make(self, job):
        if self.s3 is None:
            os.makedirs(job)  # on S3 a prefix exists once something is under it

    def remove(self, job):
        if self.s3 is None:
            shutil.rmtree(job, ignore_errors=True)
            return
        prefix = job[len(f"s3://{self.bucket}/"):].rstrip("/") + "/"
        # One DeleteObject per key: a job directory holds a few files per range, and some S3-compatible
        # stores take DeleteObjects only with checksum headers that others refuse.
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
            for o in page.get("Contents", []):
                self.s3.delete_object(Bucket=self.bucket, Key=o["Key"])


# ---------------------------------------------------------------------------
# The job
# ---------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(prog="cqlite_spark.py", description=__doc__.split("\n\n")[0])
    p.add_argument("sources", nargs="+", metavar="SOURCE")
    p.add_argument("--cqlite", required=True, help="the cqlite binary on the driver, shipped to the executors")
    p.add_argument("--executor-cqlite", help="the cqlite binary installed on every executor (then none is shipped)")
    p.add_argument("--warehouse", required=True)
    p.add_argument("--catalog", required=True)
    p.add_argument("--stage-root", required=True, help="where job directories go (s3:// or a shared directory)")
    p.add_argument("--cluster", action="store_true", help="the sources are the data directories of a cluster's nodes")
    p.add_argument("--tables", help="ks.t,... (default: every table)")
    p.add_argument("--range-bytes", help="SSTable bytes per range of a table not yet published by parts")
    p.add_argument("--ranges", type=int, help="ranges per table not yet published by parts")
    p.add_argument("--now", help="TTLs are evaluated at this time (seconds or ISO-8601; default: the job's start)")
    p.add_argument("--catalog-name", help="as for cqlite materialize")
    p.add_argument("--allow-missing-replicas", action="store_true", help="as for cqlite materialize --cluster")
    p.add_argument("--repaired-only", action="store_true", help="as for cqlite materialize")
    p.add_argument("--decimal-scale", help="as for cqlite materialize")
    p.add_argument("--truncate-time", action="store_true", help="as for cqlite materialize")
    p.add_argument("--time-as", choices=["time", "long", "string"],
                   help="as for cqlite materialize (long or string for tables Spark reads)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    return p.parse_args(argv)


def absolute(path):
    """A local path as every executor must see it (absolute); an s3:// or other URI as it is."""
    return path if "://" in path else os.path.abspath(path)


def absolute_catalog(catalog):
    """--catalog with a SQLite file made absolute (`sqlite:F`, or a plain path)."""
    if catalog.startswith("sqlite:"):
        return "sqlite:" + absolute(catalog[len("sqlite:"):])
    return catalog if ":" in catalog else absolute(catalog)


def source_args(args):
    """The sources, as plan and materialize take them."""
    out = (["--cluster"] if args.cluster else []) + list(args.sources)
    return out + (["--allow-missing-replicas"] if args.allow_missing_replicas else [])


def catalog_args(args):
    out = ["--warehouse", args.warehouse, "--catalog", args.catalog]
    return out + (["--catalog-name", args.catalog_name] if args.catalog_name else [])


def fold_args(args):
    """The options of materialize alone."""
    out = ["--repaired-only"] if args.repaired_only else []
    out += ["--decimal-scale", args.decimal_scale] if args.decimal_scale else []
    out += ["--time-as", args.time_as] if args.time_as else []
    return out + (["--truncate-time"] if args.truncate_time else [])


def plan(args):
    cmd = [args.cqlite, "plan", *source_args(args), *catalog_args(args), "--json"]
    if args.tables:
        cmd += ["--tables", args.tables]
    if args.range_bytes:
        cmd += ["--range-bytes", args.range_bytes]
    if args.ranges:
        cmd += ["--ranges", str(args.ranges)]
    if args.repaired_only:
        cmd += ["--repaired-only"]  # the ranges are sized by what the tasks read
    return json.loads(run_or_raise(cmd, "cqlite plan").stdout)["tables"]


def discard(args, stage, job):
    """Removes the files of a job that will not be committed (unless it was, after all), then its directory."""
    run_or_raise([args.cqlite, "commit", "--staged", job, *catalog_args(args), "--discard"],
                 f"cqlite commit --discard of {job}")
    stage.remove(job)


def discard_stale_jobs(args, stage):
    """Job directories a driver left when it died before its commit (or before removing the directory
    after it): their files are removed, unless that job did commit."""
    for old in stage.jobs():
        log(f"discarding the job a driver left: {old}")
        discard(args, stage, old)


def task_function(args, job, now, shipped):
    """What each Spark task runs: one (table, range) of the job, staged under `job`."""
    base = [*source_args(args), *fold_args(args), "--stage", job, "--now", now, *catalog_args(args), "--threads", "1",
            "--json", "-q"]

    def materialize(task):
        table, token_range = task
        binary = args.executor_cqlite
        if shipped:
            binary = SparkFiles.get(shipped)
            make_executable(binary)
        cmd = [binary, "materialize", *base, "--tables", table, "--token-range", token_range]
        context = TaskContext.get()
        done = run_binary(cmd)
        if done.returncode != 0:
            raise RuntimeError(f"cqlite materialize of {table} range {token_range} failed (exit {done.returncode}, "
                               f"attempt {context.attemptNumber()}):\n{done.stderr.strip()[-4000:]}")
        return {"table": table, "range": token_range, "seconds": round(done.seconds, 3),
                "peak_rss_kib": done.peak_rss_kib, "attempt": context.attemptNumber(),
                "report": json.loads(done.stdout) if done.stdout.strip() else None}

    return materialize


def wait_for_attempts(sc, group):
    """Waits until no task of the job group runs: the attempts Spark kills once a task has succeeded
    elsewhere (speculation) end, and their binaries with them, before the commit looks at what they left."""
    tracker = sc.statusTracker()
    while True:
        running = 0
        for job_id in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(job_id)
            for stage_id in info.stageIds if info else ():
                stage = tracker.getStageInfo(stage_id)
                running += stage.numActiveTasks if stage else 0
        if running == 0:
            return
        log(f"waiting for {running} task attempt(s) still running")
        time.sleep(0.5)


def summarize(tables, results, commit, job, now):
    by_table = {}
    for r in results:
        by_table.setdefault(r["table"], []).append(r)
    committed = {f"{t.get('namespace')}.{t.get('table')}": t for t in commit.get("tables", [])}
    out = []
    for t in tables:
        name = f"{t['keyspace']}.{t['table']}"
        ranges = sorted(by_table.get(name, []), key=lambda r: t["ranges"].index(r["range"]))
        out.append({"keyspace": t["keyspace"], "table": t["table"], "data_bytes": t["data_bytes"],
                    "sstables": t["sstables"], "ranges_from": t["ranges_from"],
                    "ranges": [{k: r[k] for k in ("range", "seconds", "peak_rss_kib", "attempt", "report")}
                               for r in ranges],
                    "commit": committed.get(f"{t['namespace']}.{t['iceberg_table']}")})
    return {"job": job, "now": now, "tables": out, "commit": commit}


def print_summary(summary, as_json):
    if as_json:
        # One line: spark-submit passes the driver's stderr (the log) on through its stdout too.
        print(json.dumps(summary), flush=True)
        return
    for t in summary["tables"]:
        seconds = [r["seconds"] for r in t["ranges"]]
        print(f"{t['keyspace']}.{t['table']}: {len(seconds)} ranges ({t['ranges_from']}), {t['data_bytes']} bytes "
              f"in {t['sstables']} SSTables; task seconds {' '.join(f'{s:.1f}' for s in seconds)}; "
              f"commit: {json.dumps(t['commit'])}")


def main(argv):
    args = parse_args(argv)
    if "PYSPARK_GATEWAY_PORT" in os.environ:
        # Started by spark-submit's JVM: this process (and the cqlite it runs) dies with it, so that a
        # driver killed at any moment commits nothing later, behind the back of the next job.
        _die_with_parent(os.getppid())()
    args.cqlite = os.path.abspath(args.cqlite)
    make_executable(args.cqlite)
    args.sources = [absolute(s) for s in args.sources]
    args.warehouse, args.catalog = absolute(args.warehouse), absolute_catalog(args.catalog)
    stage = StageRoot(absolute(args.stage_root))
    discard_stale_jobs(args, stage)
    tables = plan(args)
    tasks = [(f"{t['keyspace']}.{t['table']}", r) for t in tables for r in t["ranges"]]
    log(f"{len(tables)} table(s), {len(tasks)} range(s)")
    if not tasks:
        return

    job = join(stage.root, f"{JOB_PREFIX}{uuid.uuid4()}")
    stage.make(job)
    now = args.now or str(int(time.time()))
    log(f"job {job}, now {now}")

    sc = SparkContext.getOrCreate(SparkConf().setAppName("cqlite materialize"))
    try:
        shipped = None
        if not args.executor_cqlite:
            sc.addFile(args.cqlite)
            shipped = os.path.basename(args.cqlite)
        group = os.path.basename(job)
        sc.setJobGroup(group, f"cqlite materialize: {len(tasks)} ranges")
        try:
            results = sc.parallelize(tasks, len(tasks)).map(task_function(args, job, now, shipped)).collect()
            wait_for_attempts(sc, group)
            log(f"{len(results)} range(s) staged; committing")
            done = run_or_raise([args.cqlite, "commit", "--staged", job, *catalog_args(args), "--json"],
                                "cqlite commit")
        except Exception:
            # A task failed every attempt, or the commit failed (another job committed a part this one
            # staged over since: run the job again). Nothing of this job is kept.
            wait_for_attempts(sc, group)
            log(f"the job failed; discarding {job}")
            discard(args, stage, job)
            raise
        stage.remove(job)
        print_summary(summarize(tables, results, json.loads(done.stdout), job, now), args.json)
    finally:
        sc.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
