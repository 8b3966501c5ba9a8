"""A running Cassandra 5.0 node for tests that watch a live data directory
(tools/oracle `oracle.sh node`: loopback only, free ports, its data under a
work directory of the test's), driven line by line on its stdin: CQL
statements, flushes, compactions, `SELECT JSON *` at the node's clock and
`DESCRIBE KEYSPACE`. The test stops it (quit, or SIGKILL to simulate a crash)
and can start it again on the same work directory."""
import json
import os
import pathlib
import signal
import subprocess
import threading
import time

SCHEMA_TABLES = ("keyspaces", "tables", "columns", "types", "dropped_columns")


class NodeError(AssertionError):
    pass


class LiveNode:
    def __init__(self, oracle, workdir, heap="1g", options=()):
        """`options`: Node.java's placement options (a node of a cluster of several)."""
        self.oracle = oracle
        self.workdir = pathlib.Path(workdir)
        self.heap = heap
        self.options = list(options)
        self.proc = None
        self.lock = threading.Lock()
        self.stderr_path = self.workdir / "node.stderr"

    def start(self, timeout=240):
        self.workdir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, ORACLE_NODE_HEAP=self.heap)
        self.proc = subprocess.Popen(["bash", str(self.oracle), "node", str(self.workdir), *self.options], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=open(self.stderr_path, "ab"), text=True,
                                     env=env, bufsize=1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise NodeError(f"the node exited before it was ready: {self._stderr_tail()}")
            if line.startswith("ready "):
                return self
        raise NodeError("the node did not come up in time")

    def _stderr_tail(self):
        try:
            lines = [ln for ln in self.stderr_path.read_text(errors="replace").splitlines()
                     if ln.strip() and not ln.startswith(("WARNING:", "\tat "))]
            return "\n".join(lines[-10:])
        except OSError:
            return ""

    def command(self, line):
        """Runs one node command; returns its output lines, raises NodeError on `error ...`."""
        with self.lock:
            self.proc.stdin.write(line.replace("\n", " ") + "\n")
            self.proc.stdin.flush()
            out = []
            while True:
                reply = self.proc.stdout.readline()
                if not reply:
                    raise NodeError(f"the node went away during {line!r}: {self._stderr_tail()}")
                reply = reply.rstrip("\n")
                if reply == "ok":
                    return out
                if reply.startswith("error "):
                    raise NodeError(f"{line!r}: {reply[6:]}")
                out.append(reply)

    def cql(self, statement):
        return self.command("cql " + statement)

    def flush(self, ks, table):
        self.command(f"flush {ks} {table}")

    def flush_schema(self):
        """Flushes system_schema, as a node does for every schema change outside tests, so that the data
        directory holds its own schema."""
        for t in SCHEMA_TABLES:
            self.flush("system_schema", t)

    def compact(self, ks, table):
        self.command(f"compact {ks} {table}")

    def select(self, ks, table):
        """(now_in_seconds, [row JSON text]) of SELECT JSON * at the node's clock."""
        out = self.workdir / f"select-{ks}-{table}.jsonl"
        self.command(f"select {ks} {table} {out}")
        lines = out.read_text(encoding="utf-8").splitlines()
        return json.loads(lines[0])["now_in_seconds"], lines[1:]

    def describe(self, ks, path):
        self.command(f"describe {ks} {path}")
        return path

    def data_dir(self):
        return pathlib.Path(self.command("datadir")[0])

    def table_dir(self, ks, table):
        dirs = sorted((self.data_dir() / ks).glob(table + "-*"))
        assert len(dirs) == 1, dirs
        return dirs[0]

    def kill(self):
        """SIGKILL: what a crash leaves."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=60)
        self.proc = None

    def stop(self):
        if self.proc is None:
            return
        try:
            if self.proc.poll() is None:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()
        self.proc = None
