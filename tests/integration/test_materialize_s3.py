"""`cqlite materialize --warehouse s3://bucket/prefix` against a real S3-compatible server.

The server is moto's (s3_server.S3Server) on 127.0.0.1, checking every request's Signature V4. The
catalog is a SQLite file on this machine (the JDBC catalog schema); the warehouse, fold state included,
is in the bucket. cqlite is given CQLITE_S3_PART_SIZE=4096 so that every file above 4 KiB goes up as a
multipart upload. Tables are read back by PyIceberg (its S3 FileIO at the endpoint) and DuckDB (httpfs
with an S3 secret) and must equal `cqlite select` over the same SSTables.

Faults, from a TCP proxy between cqlite and the server (s3_server.S3Proxy): a connection dropped as a
part starts uploading (once: the part is sent again and the run completes; always: the run fails), the
server going away mid-run (connections refused from then on), and wrong credentials. In each case
nothing is visible half-written: no object but whole ones (an object appears only when its PUT or
CompleteMultipartUpload completes), the table at its previous snapshot, and the next run completes.

`cqlite watch --warehouse s3://... --state-dir D` publishes into the bucket too.
"""
import json
import os
import pathlib
import shutil
import signal
import sqlite3
import subprocess
import time

import pytest

import cql_json
import iceberg_readers
from conftest import cqlite_binary
from s3_server import BUCKET, S3Proxy

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "data"
CATALOG_NAME = "cqlite"
TABLES = ["orders", "price_points"]
LATER = "2040-01-01T00:00:00Z"
PREFIX = "warehouse"
WAREHOUSE = f"s3://{BUCKET}/{PREFIX}"
READERS = {"pyiceberg": iceberg_readers.read_pyiceberg, "duckdb": iceberg_readers.read_duckdb}


def _materialize(catalog, *extra, endpoint=None, cwd=None, env_changes=None):
    env = dict(os.environ)
    if endpoint:
        env["CQLITE_S3_ENDPOINT"] = endpoint
    env.update(env_changes or {})
    proc = subprocess.run([str(cqlite_binary()), "materialize", str(EXAMPLES), "--warehouse", WAREHOUSE,
                           "--catalog", str(catalog), "--json", *extra],
                          capture_output=True, text=True, timeout=600, env=env, cwd=cwd)
    return proc, (json.loads(proc.stdout) if proc.returncode == 0 else None)


def _check_reads(cqlite, catalog, table, now):
    location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, "shop", table)
    schema = iceberg_readers.current_schema(json.loads(iceberg_readers.read_s3_object(location)))
    table_dir = next(EXAMPLES.glob(f"shop/{table}-*"))
    expected = cql_json.rows_from_select_json(cqlite("select", table_dir, "--now", now).stdout.splitlines(), schema)
    assert expected, table
    for reader, read in READERS.items():
        rows = read(catalog, WAREHOUSE, CATALOG_NAME, "shop", table)
        assert cql_json.mask_rows(rows, schema) == cql_json.mask_rows(expected, schema), (table, reader)


def _snapshot_ids(catalog, table):
    return [s["snapshot_id"] for s in iceberg_readers.snapshots_pyiceberg(catalog, WAREHOUSE, CATALOG_NAME,
                                                                          "shop", table)]


def _tables_in_catalog(catalog):
    if not pathlib.Path(catalog).exists():
        return []
    with sqlite3.connect(catalog) as db:
        try:
            return sorted(r[0] for r in db.execute("SELECT table_name FROM iceberg_tables"))
        except sqlite3.OperationalError:  # not made yet
            return []


def _data_files(s3, catalog, table):
    """The files the table's current snapshot reads, and those under its data/ in the bucket."""
    tbl = iceberg_readers._pyiceberg_catalog(catalog, WAREHOUSE, CATALOG_NAME).load_table(("shop", table))
    listed = set()
    for task in tbl.scan().plan_files():
        listed.add(task.file.file_path)
        listed.update(d.file_path for d in task.delete_files)
    stored = {f"s3://{BUCKET}/{k}" for k in s3.keys(f"{PREFIX}/shop/{table}/data/")}
    return listed, stored


def _data_files_match_snapshots(s3, catalog, table):
    """The files under the table's data/ are those its current snapshot reads, and the other way round:
    a failed run leaves none of its own behind when the store can still be reached."""
    listed, stored = _data_files(s3, catalog, table)
    return listed == stored, sorted(listed ^ stored)


def test_tables_published_to_s3_are_read_by_pyiceberg_and_duckdb(cqlite, s3, tmp_path):
    catalog = tmp_path / "catalog.db"
    proxy = S3Proxy(s3.port)  # passes everything on, counting
    try:
        proc, report = _materialize(catalog, endpoint=proxy.endpoint, cwd=tmp_path)
    finally:
        proxy.stop()
    assert proc.returncode == 0, proc.stderr
    assert proxy.uploads_begun > 0, "no file went up as a multipart upload"
    assert not (tmp_path / "s3:").exists(), "an s3:// path was taken for a local one"
    assert sorted(t["table"] for t in report["tables"]) == TABLES
    for t in report["tables"]:
        assert t["committed"], t
        assert t["metadata_location"].startswith(f"{WAREHOUSE}/shop/{t['table']}/metadata/00000-"), t
        assert t["metadata_location"] == iceberg_readers.metadata_location(catalog, CATALOG_NAME, "shop", t["table"])
        _check_reads(cqlite, catalog, t["table"], t["ttl_evaluated_at"])
        keys = s3.keys(f"{PREFIX}/shop/{t['table']}/")
        # Data, metadata and the fold state, in the bucket.
        for part in ("/data/", "/metadata/", "/cqlite/state-", "/cqlite/facts/"):
            assert any(part in k for k in keys), (part, keys)
        metadata = json.loads(iceberg_readers.read_s3_object(t["metadata_location"]))
        assert metadata["location"] == f"{WAREHOUSE}/shop/{t['table']}", metadata["location"]
        same, difference = _data_files_match_snapshots(s3, catalog, t["table"])
        assert same, difference
    assert s3.open_uploads() == []

    # Nothing new: no commit.
    _proc, again = _materialize(catalog)
    assert again and not any(t["committed"] for t in again["tables"]), again
    # Later, rows have expired: a second snapshot, on top of the fold state read back from the bucket.
    _proc, later = _materialize(catalog, "--now", LATER)
    assert later, _proc.stderr
    for t in later["tables"]:
        assert t["committed"] and t["rows_deleted"] > 0 and t["generations_consumed"] == 0, t
        first = next(x for x in report["tables"] if x["table"] == t["table"])
        assert _snapshot_ids(catalog, t["table"]) == [first["snapshot_id"], t["snapshot_id"]]
        _check_reads(cqlite, catalog, t["table"], LATER)
    assert s3.open_uploads() == []


def test_a_connection_dropped_once_during_a_multipart_upload_is_retried(cqlite, s3, tmp_path):
    catalog = tmp_path / "catalog.db"
    proxy = S3Proxy(s3.port, drop_part=2, drop_times=1)
    try:
        proc, report = _materialize(catalog, "--threads", "1", endpoint=proxy.endpoint)
    finally:
        proxy.stop()
    assert proc.returncode == 0, proc.stderr
    assert proxy.drops == 1
    for t in report["tables"]:
        assert t["committed"], t
        _check_reads(cqlite, catalog, t["table"], t["ttl_evaluated_at"])
    assert s3.open_uploads() == []


def test_a_multipart_upload_that_keeps_failing_fails_the_run_and_shows_nothing(cqlite, s3, tmp_path):
    catalog = tmp_path / "catalog.db"
    _proc, first = _materialize(catalog)
    assert first, _proc.stderr
    proxy = S3Proxy(s3.port, drop_part=2)
    try:
        # Parts of 1 KiB: the run's metadata and data files are multipart uploads too.
        proc, _report = _materialize(catalog, "--now", LATER, "--threads", "1", endpoint=proxy.endpoint,
                                     env_changes={"CQLITE_S3_PART_SIZE": "1024"})
    finally:
        proxy.stop()
    assert proc.returncode != 0
    assert proxy.drops >= 4  # the first try and the retries of one part, per failing file
    assert f"at {proxy.endpoint}" in proc.stderr, proc.stderr
    assert f"s3://{BUCKET}/{PREFIX}/shop/" in proc.stderr, proc.stderr
    assert s3.secret not in proc.stderr + proc.stdout
    # Aborted: no upload left open, no object of the run left, every table at its first snapshot.
    assert s3.open_uploads() == []
    for t in first["tables"]:
        assert _snapshot_ids(catalog, t["table"]) == [t["snapshot_id"]]
        same, difference = _data_files_match_snapshots(s3, catalog, t["table"])
        assert same, difference
        _check_reads(cqlite, catalog, t["table"], t["ttl_evaluated_at"])
    # The next run, straight to the server, completes.
    _proc, later = _materialize(catalog, "--now", LATER)
    assert later, _proc.stderr
    for t in later["tables"]:
        assert t["committed"], t
        _check_reads(cqlite, catalog, t["table"], LATER)


@pytest.mark.parametrize("fraction", [0.3, 0.7])
def test_the_s3_server_going_away_mid_run_leaves_nothing_half_visible(cqlite, s3, tmp_path, fraction):
    # How many requests a whole first run makes, into another prefix of the bucket and catalog.
    counter = S3Proxy(s3.port)
    try:
        env = dict(os.environ, CQLITE_S3_ENDPOINT=counter.endpoint)
        subprocess.run([str(cqlite_binary()), "materialize", str(EXAMPLES), "--warehouse",
                        f"s3://{BUCKET}/counting", "--catalog", str(tmp_path / "counting.db"), "--threads", "1"],
                       check=True, capture_output=True, env=env, timeout=600)
    finally:
        counter.stop()
    catalog = tmp_path / "catalog.db"
    proxy = S3Proxy(s3.port, stop_after=int(counter.requests * fraction))
    try:
        proc, _report = _materialize(catalog, "--threads", "1", endpoint=proxy.endpoint)
    finally:
        proxy.stop()
    assert proc.returncode != 0
    assert proxy.stopped
    assert f"at {proxy.endpoint}" in proc.stderr, proc.stderr
    assert s3.secret not in proc.stderr + proc.stdout
    # Whatever the run committed before the server went away reads whole; the rest is not in the catalog.
    committed = _tables_in_catalog(catalog)
    for table in committed:
        history = iceberg_readers.snapshots_pyiceberg(catalog, WAREHOUSE, CATALOG_NAME, "shop", table)
        assert len(history) == 1, history
        _check_reads(cqlite, catalog, table, history[0]["summary"]["cqlite.ttl-evaluated-at"])
    # Every object in the bucket is whole: each Parquet file opens (footer and magic in place).
    for key in s3.keys(f"{PREFIX}/"):
        if key.endswith(".parquet"):
            body = s3.client.get_object(Bucket=BUCKET, Key=key)["Body"].read()
            assert body[:4] == b"PAR1" and body[-4:] == b"PAR1", key
    # The next run, with the server back, completes every table.
    _proc, report = _materialize(catalog)
    assert report, _proc.stderr
    for t in report["tables"]:
        assert t["committed"] or t["table"] in committed, t
        _check_reads(cqlite, catalog, t["table"], t["ttl_evaluated_at"])
        # Every file the table reads is there; files the interrupted run wrote but could not remove (the
        # server was gone) may remain, never referenced, as after a crash.
        listed, stored = _data_files(s3, catalog, t["table"])
        assert listed <= stored, sorted(listed - stored)


def test_wrong_credentials_are_an_error_naming_the_endpoint_and_no_secret(s3, tmp_path):
    catalog = tmp_path / "catalog.db"
    wrong_secret = "wrong-secret-0815"
    proc, _report = _materialize(catalog, env_changes={"AWS_SECRET_ACCESS_KEY": wrong_secret})
    assert proc.returncode != 0
    assert f"at {s3.endpoint}" in proc.stderr, proc.stderr
    assert f"s3://{BUCKET}/" in proc.stderr, proc.stderr
    assert "HTTP 403 SignatureDoesNotMatch" in proc.stderr, proc.stderr
    assert "credentials from the environment (AWS_ACCESS_KEY_ID)" in proc.stderr, proc.stderr
    for secret in (wrong_secret, s3.secret):
        assert secret not in proc.stderr + proc.stdout
    assert proc.stderr.count("\n") == 1, proc.stderr  # one line
    assert s3.keys() == [] and _tables_in_catalog(catalog) == []

    proc, _report = _materialize(catalog, env_changes={"AWS_ACCESS_KEY_ID": "AKIDNOSUCHKEY000"})
    assert proc.returncode != 0
    assert "HTTP 403 InvalidAccessKeyId" in proc.stderr, proc.stderr
    assert s3.secret not in proc.stderr + proc.stdout

    # No credentials at all: said before anything is sent.
    proc, _report = _materialize(catalog, env_changes={"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "",
                                                       "HOME": str(tmp_path),
                                                       "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none")})
    assert proc.returncode != 0
    assert "no S3 credentials" in proc.stderr, proc.stderr
    assert s3.keys() == []


def test_an_s3_warehouse_needs_a_catalog_and_watch_a_local_state_directory(s3, tmp_path):
    proc = subprocess.run([str(cqlite_binary()), "materialize", str(EXAMPLES), "--warehouse", WAREHOUSE],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "needs --catalog" in proc.stderr, proc.stderr
    proc = subprocess.run([str(cqlite_binary()), "watch", str(EXAMPLES), "--warehouse", WAREHOUSE, "--catalog",
                           str(tmp_path / "c.db")], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "needs --state-dir" in proc.stderr, proc.stderr
    assert s3.keys() == []


def test_watch_publishes_into_an_s3_warehouse(cqlite, s3, tmp_path):
    """`cqlite watch --warehouse s3://...` with its locks, staged links and status in a local --state-dir:
    it commits each table of a data directory into the bucket, and stops on SIGTERM."""
    data = tmp_path / "data"
    shutil.copytree(EXAMPLES, data)
    catalog = tmp_path / "catalog.db"
    state = tmp_path / "watch-state"
    watcher = subprocess.Popen([str(cqlite_binary()), "watch", str(data), "--warehouse", WAREHOUSE,
                                "--catalog", str(catalog), "--state-dir", str(state), "--interval", "1",
                                "--rescan", "1", "--schema", str(data / "shop" / "schema.cql")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and _tables_in_catalog(catalog) != TABLES:
            time.sleep(1)
    finally:
        watcher.send_signal(signal.SIGTERM)
        log, _ = watcher.communicate(timeout=60)
    assert watcher.returncode == 0, log
    assert _tables_in_catalog(catalog) == TABLES, log
    assert (state / "locks").is_dir() and (state / "status").is_dir(), log
    assert not any(k.startswith(f"{PREFIX}/.cqlite-watch") for k in s3.keys()), s3.keys()
    for table in TABLES:
        history = iceberg_readers.snapshots_pyiceberg(catalog, WAREHOUSE, CATALOG_NAME, "shop", table)
        assert len(history) == 1, history
        assert history[0]["manifest_list"].startswith(f"{WAREHOUSE}/shop/{table}/metadata/"), history
        _check_reads(cqlite, catalog, table, history[0]["summary"]["cqlite.ttl-evaluated-at"])
    status = subprocess.run([str(cqlite_binary()), "watch", "--status", "--warehouse", WAREHOUSE, "--state-dir",
                             str(state)], capture_output=True, text=True, timeout=60)
    assert status.returncode == 0 and "shop.orders: not watched" in status.stdout, status.stdout + status.stderr
