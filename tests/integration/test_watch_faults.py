"""`cqlite watch` when things go wrong, on a data directory a Cassandra 5.0
node wrote (copied, so that the node itself never reads the damaged files):

  - a generation whose Data.db is corrupt when it appears: the run fails with
    an error naming the file and the byte offset, the table is retried with
    backoff (at least two failures logged), the other table goes on and
    commits its new generation, and once the file is whole again the table
    commits and equals the node;
  - a second watcher on the same warehouse says which process holds the
    table and exits non-zero;
  - a warehouse on a full file system (a small tmpfs; needs root): the run
    fails with a clear error naming the file, commits nothing (the catalog's
    current metadata file stays), leaves no data file behind, and commits
    once there is room; a watcher started on the same file system mounted
    read-only (a read-only bind mount) says so and exits non-zero, committing
    nothing, and a watcher on the writable one then commits.
"""
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import pytest

import iceberg_readers
import live_node
import table_compare

KS = "faults"
CATALOG_NAME = "cqlite"


class Watch:
    def __init__(self, binary, data_dir, warehouse):
        self.lines = []
        self.proc = subprocess.Popen([str(binary), "watch", str(data_dir), "--warehouse", str(warehouse),
                                      "--interval", "1", "--rescan", "0.5", "--threads", "1"],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern, timeout=60, count=1):
        deadline = time.time() + timeout
        while time.time() < deadline:
            found = [ln for ln in self.lines if re.search(pattern, ln)]
            if len(found) >= count:
                return found
            if self.proc.poll() is not None and not found:
                break
            time.sleep(0.2)
        raise AssertionError(f"no log line matching {pattern!r} (x{count}):\n" + "\n".join(self.lines[-15:]))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            return self.proc.wait(timeout=60)
        return self.proc.returncode


@pytest.fixture(scope="module")
def source(oracle):
    """The node's data directory after two flushes of tables a and b, copied; and the node's answers."""
    root = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-watch-faults-"))
    node = live_node.LiveNode(oracle, root / "node").start()
    try:
        node.cql(f"CREATE KEYSPACE {KS} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}")
        for t in ("a", "b"):
            node.cql(f"CREATE TABLE {KS}.{t} (k int, c int, v text, PRIMARY KEY (k, c)) "
                     "WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}")
        node.flush_schema()
        answers = {}
        for step in (1, 2):
            for t in ("a", "b"):
                for k in range(200):
                    node.cql(f"INSERT INTO {KS}.{t} (k, c, v) VALUES ({k}, {step}, '{t} {k} {step} {'x' * 40}')")
                node.flush(KS, t)
                answers[(t, step)] = node.select(KS, t)
        data = node.data_dir()
        tables = {t: node.table_dir(KS, t) for t in ("a", "b")}
        yield {"root": root, "data": data, "tables": tables, "answers": answers}
    finally:
        node.stop()
        shutil.rmtree(root, ignore_errors=True)


def _live_copy(source, dest, with_second=False):
    """A data directory holding system_schema and the first generation (and the second) of each table."""
    shutil.copytree(source["data"] / "system_schema", dest / "system_schema")
    for t, d in source["tables"].items():
        target = dest / KS / d.name
        target.mkdir(parents=True)
        for f in d.glob("*-1-big-*" if not with_second else "*-big-*"):
            shutil.copy(f, target / f.name)
    return dest


def _add_second(source, dest, t, corrupt=False):
    """Copies generation 2 of table t in, its TOC.txt last (as Cassandra completes a generation)."""
    d = source["tables"][t]
    target = dest / KS / d.name
    files = sorted(d.glob("*-2-big-*"), key=lambda p: p.name.endswith("TOC.txt"))
    for f in files:
        shutil.copy(f, target / (f.name + ".part"))
        if corrupt and f.name.endswith("Data.db"):
            data = bytearray((target / (f.name + ".part")).read_bytes())
            for i in range(len(data) // 2, len(data) // 2 + 16):
                data[i] ^= 0x5A
            (target / (f.name + ".part")).write_bytes(bytes(data))
        os.rename(target / (f.name + ".part"), target / f.name)
    return next(target.glob("*-2-big-Data.db"))


def _status(warehouse, t):
    p = warehouse / ".cqlite-watch" / "status" / f"{KS}.{t}.json"
    return json.loads(p.read_text()) if p.exists() else None


def _equal_node(warehouse, t, answer):
    catalog = warehouse / "catalog.db"
    now, lines = answer
    location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, KS, t)
    schema = iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))
    expected = table_compare.expected_rows(lines, schema)
    actual = iceberg_readers.read_pyiceberg(catalog, warehouse, CATALOG_NAME, KS, t)
    return table_compare.differs(table_compare.pyiceberg_view(expected, schema), actual, schema)


def test_corrupt_generation_is_reported_and_retried_while_others_go_on(source, tmp_path):
    binary = pathlib.Path(os.environ.get("CQLITE_BIN") or "build/src/cli/cqlite").resolve()
    live = _live_copy(source, tmp_path / "data")
    warehouse = tmp_path / "warehouse"
    watch = Watch(binary, live, warehouse)
    try:
        watch.wait_for(r"faults\.a: committed snapshot")
        watch.wait_for(r"faults\.b: committed snapshot")
        # A second watcher on the same warehouse names the first and exits non-zero.
        second = subprocess.run([str(binary), "watch", str(live), "--warehouse", str(warehouse)],
                                capture_output=True, text=True, timeout=60)
        assert second.returncode != 0
        assert f"held by process {watch.proc.pid}" in second.stderr, second.stderr
        # So does a run of `cqlite materialize` by hand into the watched table, committing nothing.
        before = iceberg_readers.metadata_location(warehouse / "catalog.db", CATALOG_NAME, KS, "b")
        by_hand = subprocess.run([str(binary), "materialize", str(live / KS), "--warehouse", str(warehouse)],
                                 capture_output=True, text=True, timeout=120)
        assert by_hand.returncode != 0
        assert f"cqlite watch (process {watch.proc.pid}) keeps this table" in by_hand.stderr, by_hand.stderr
        assert iceberg_readers.metadata_location(warehouse / "catalog.db", CATALOG_NAME, KS, "b") == before

        data_file = _add_second(source, live, "a", corrupt=True)
        _add_second(source, live, "b")
        failures = watch.wait_for(r"faults\.a: run failed, nothing committed", count=2, timeout=60)
        assert str(data_file) in failures[0] and "offset" in failures[0], failures[0]
        watch.wait_for(r"faults\.b: committed snapshot .*1 generation\(s\) consumed of 2", timeout=60)
        assert _equal_node(warehouse, "b", source["answers"][("b", 2)]) is None
        assert _status(warehouse, "a")["failures"] >= 2
        # Still the first generation's table.
        assert _equal_node(warehouse, "a", source["answers"][("a", 1)]) is None

        shutil.copy(next(source["tables"]["a"].glob("*-2-big-Data.db")), data_file)
        watch.wait_for(r"faults\.a: committed snapshot .*1 generation\(s\) consumed of 2", timeout=120)
        assert _equal_node(warehouse, "a", source["answers"][("a", 2)]) is None
        assert _status(warehouse, "a")["last_error"] == ""
    finally:
        assert watch.stop() == 0, watch.lines[-5:]
    status = subprocess.run([str(binary), "watch", "--status", "--warehouse", str(warehouse)], capture_output=True,
                            text=True, timeout=60)
    assert status.returncode == 0, status.stderr
    assert "faults.a: not watched" in status.stdout and "failures: " in status.stdout, status.stdout


@pytest.fixture
def small_fs(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("SKIPPED: cannot mount a tmpfs here (needs root); the full and read-only cases need one")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_full_then_read_only_warehouse(source, tmp_path, small_fs):
    binary = pathlib.Path(os.environ.get("CQLITE_BIN") or "build/src/cli/cqlite").resolve()
    live = _live_copy(source, tmp_path / "data")
    warehouse = small_fs / "warehouse"
    watch = Watch(binary, live, warehouse)
    catalog = warehouse / "catalog.db"
    try:
        watch.wait_for(r"faults\.a: committed snapshot")
        watch.wait_for(r"faults\.b: committed snapshot")
        before = iceberg_readers.metadata_location(catalog, CATALOG_NAME, KS, "a")
        data_before = sorted(p.name for p in (warehouse / KS / "a" / "data").glob("*"))
        # Fill the file system, then offer a new generation (staged by copy: another file system).
        filler = small_fs / "filler"
        with open(filler, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"\1" * 4096)
            except OSError:
                pass
        _add_second(source, live, "a")
        failed = watch.wait_for(r"faults\.a: run failed, nothing committed", timeout=60)[0]
        assert "No space left on device" in failed and str(small_fs) in failed, failed
        assert iceberg_readers.metadata_location(catalog, CATALOG_NAME, KS, "a") == before
        assert sorted(p.name for p in (warehouse / KS / "a" / "data").glob("*")) == data_before
        filler.unlink()
        watch.wait_for(r"faults\.a: committed snapshot .*1 generation\(s\) consumed of 2", timeout=120)
        assert _equal_node(warehouse, "a", source["answers"][("a", 2)]) is None
        assert watch.stop() == 0
        # Read-only: the same warehouse through a read-only bind mount (the file system itself cannot turn
        # read-only while readers hold the catalog open). A watcher started on it says so and exits non-zero.
        before = iceberg_readers.metadata_location(catalog, CATALOG_NAME, KS, "b")
        read_only = tmp_path / "read-only"
        read_only.mkdir()
        for args in (["--bind", str(small_fs), str(read_only)], ["-o", "remount,bind,ro", str(read_only)]):
            done = subprocess.run(["mount", *args], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
        try:
            _add_second(source, live, "b")
            refused = subprocess.run([str(binary), "watch", str(live), "--warehouse", str(read_only / "warehouse"),
                                      "--interval", "1"], capture_output=True, text=True, timeout=60)
            assert refused.returncode != 0 and "Read-only file system" in refused.stderr, refused
            assert str(read_only / "warehouse") in refused.stderr, refused.stderr
            assert iceberg_readers.metadata_location(catalog, CATALOG_NAME, KS, "b") == before
        finally:
            subprocess.run(["umount", "-l", str(read_only)], capture_output=True)
        watch = Watch(binary, live, warehouse)
        watch.wait_for(r"faults\.b: committed snapshot .*1 generation\(s\) consumed of 2", timeout=120)
        assert _equal_node(warehouse, "b", source["answers"][("b", 2)]) is None
    finally:
        assert watch.stop() == 0, watch.lines[-5:]
