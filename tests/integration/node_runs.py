"""Replays seeded workloads (workloads.py) on a real Cassandra 5.0 node
through tools/oracle, and gives access to what the node left: each
workload's flushed table directory and its recorded `SELECT JSON *` answers
(each with the node's query time). Used by the select parity and the
materialize tests.
"""
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time

import workloads


def work_base():
    """Where node output goes: CQLITE_PARITY_TMP, else /dev/shm when it has room."""
    explicit = os.environ.get("CQLITE_PARITY_TMP")
    if explicit:
        return pathlib.Path(explicit)
    shm = pathlib.Path("/dev/shm")
    try:
        st = os.statvfs(shm)
        if shm.is_dir() and os.access(shm, os.W_OK) and st.f_bavail * st.f_frsize > (2 << 30):
            return shm
    except OSError:
        pass
    return None


class NodeRun:
    """What the node produced for the workloads."""

    def __init__(self, root, described):
        self.root = root
        self.described = {d["index"]: d for d in described}
        self.chunks = []  # (indexes, returncode, seconds, output tail)

    def failed_chunk(self, index):
        for indexes, rc, _secs, tail in self.chunks:
            if index in indexes and rc != 0:
                return f"the node run for workloads {indexes[0]}..{indexes[-1]} failed (exit {rc}):\n{tail}"
        return None

    def keyspace_dir(self, index):
        return self.root / f"w{index}"

    def table_dir(self, index):
        d = self.described[index]
        dirs = sorted(self.keyspace_dir(index).glob(d["table"] + "-*"))
        return dirs[0] if len(dirs) == 1 else None

    def schemas(self, index):
        """{generation number: the keyspace's schema file as it was when the node wrote that generation}
        of the workload's table: the scenario's `-- describe` after each phase (ks/schema.N.cql, whose
        comment lines name each table's live generations) says when each generation was first seen;
        a workload never altered has its one schema.cql for every generation."""
        return schemas_by_generation(self.keyspace_dir(index), self.described[index]["table"])

    def selects(self, index):
        d = self.described[index]
        return [self.keyspace_dir(index) / f"{d['table']}.select{n}.jsonl"
                for n in range(1, len(d["select_offsets"]) + 1)]


def replay(oracle, seed, count, indexes, root, chunk):
    """Runs the workloads `indexes` of (seed, count) on the node, `chunk` per node run, under root.

    Returns a NodeRun whose chunks record each node run's exit status.
    """
    env = dict(os.environ)
    env["TMPDIR"] = str(root)  # the node's own work directory
    timeout = int(env.setdefault("ORACLE_GEN_TIMEOUT", str(max(600, 3 * chunk))))
    # Build the oracle first so that its build time does not count against a node run.
    subprocess.run(["bash", str(oracle), "build"], check=True, timeout=3600)

    _, described = workloads.make_workloads(seed, count, indexes)
    run = NodeRun(root / "out", described)
    for k in range(0, len(indexes), chunk):
        part = indexes[k:k + chunk]
        scenario, _ = workloads.make_workloads(seed, count, part)
        scenario_file = root / f"scenario-{k // chunk}.cql"
        scenario_file.write_text(scenario)
        out = root / f"chunk-{k // chunk}"
        t0 = time.monotonic()
        proc = subprocess.run(["bash", str(oracle), "generate", str(scenario_file), str(out), "--format", "oa"],
                              capture_output=True, text=True, env=env, timeout=timeout + 120)
        secs = time.monotonic() - t0
        # The node's messages without JVM warnings and stack frames: the
        # statement that failed and why.
        lines = [ln for ln in (proc.stdout + proc.stderr).splitlines()
                 if ln.strip() and not ln.startswith(("WARNING:", "\tat ", "\t... "))]
        if proc.returncode in (124, 137):
            lines.append(f"(timed out: ORACLE_GEN_TIMEOUT={timeout} s)")
        tail = "\n".join(lines[-15:])
        run.chunks.append((part, proc.returncode, secs, tail))
        print(f"node run {k // chunk}: workloads {part[0]}..{part[-1]}, exit {proc.returncode}, {secs:.1f} s")
        if out.is_dir():
            run.root.mkdir(exist_ok=True)
            for ks in out.iterdir():
                ks.rename(run.root / ks.name)
    return run


def schemas_by_generation(keyspace_dir, table):
    """{generation: schema file} from the `-- describe` files of a keyspace directory (see
    NodeRun.schemas); generations no describe file names (none at all when the table was never
    altered) map to the final schema.cql."""
    described = sorted(keyspace_dir.glob("schema.*.cql"), key=lambda p: int(p.name.split(".")[1]))
    out = {}
    prefix = f"-- generations of {table}:"
    for path in described:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith(prefix):
                for g in line[len(prefix):].split():
                    out.setdefault(int(g), path)
    final = keyspace_dir / "schema.cql"
    table_dir = next(iter(sorted(keyspace_dir.glob(table + "-*"))), None)
    if table_dir is not None:
        for data in table_dir.glob("*-Data.db"):
            out.setdefault(int(data.name.split("-")[1]), final)
    return out


def read_select(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    return header["now_in_seconds"], lines[1:]


def generated(oracle, text, name, what, ready):
    """The node's output for the scenario `text` (tools/oracle generate, format oa), cached under
    <cache>/oracle/generated/<name>-oa-<key of the text and the oracle's version>; `ready(out)` says
    whether a cached copy is complete. A node that fails is a test failure naming `what` it wrote."""
    import conftest
    import pytest

    version = subprocess.run(["bash", str(oracle), "version"], check=True, capture_output=True,
                             text=True).stdout.strip()
    key = hashlib.sha256((text + "\0" + version).encode()).hexdigest()[:16]
    out = conftest.CACHE / "oracle" / "generated" / f"{name}-oa-{key}"
    if ready(out):
        return out
    subprocess.run(["bash", str(oracle), "build"], check=True, timeout=3600)
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"cqlite-{name}-node-", dir=work_base()))
    try:
        scenario = work / "scenario.cql"
        scenario.write_text(text)
        env = dict(os.environ, TMPDIR=str(work))
        proc = subprocess.run(["bash", str(oracle), "generate", str(scenario), str(work / "out"), "--format", "oa"],
                              capture_output=True, text=True, env=env, timeout=900)
        if proc.returncode != 0:
            tail = [ln for ln in (proc.stdout + proc.stderr).splitlines()
                    if ln.strip() and not ln.startswith(("WARNING:", "\tat "))][-15:]
            pytest.fail(f"the Cassandra node could not write {what}:\n" + "\n".join(tail))
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = out.with_name(out.name + f".tmp{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(work / "out", staging)
        shutil.rmtree(out, ignore_errors=True)
        staging.rename(out)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)
