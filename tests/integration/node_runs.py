"""Replays seeded workloads (workloads.py) on a real Cassandra 5.0 node
through tools/oracle, and gives access to what the node left: each
workload's flushed table directory and its recorded `SELECT JSON *` answers
(each with the node's query time). Used by the select parity and the
materialize tests.
"""
import json
import os
import pathlib
import subprocess
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


def read_select(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    return header["now_in_seconds"], lines[1:]


