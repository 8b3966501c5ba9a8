"""`cqlite materialize --catalog rest:...` against Apache Iceberg's own REST catalog server.

The server (conftest.py's rest_catalog: Iceberg's RESTCatalogAdapter and RESTCatalogServlet over a
JdbcCatalog, tools/iceberg_readers/iceberg_java.sh rest-server) runs on 127.0.0.1. Tables cqlite
publishes through it are read through the same server by PyIceberg (RestCatalog), DuckDB (ATTACH of a
REST catalog) and Iceberg Java (RESTCatalog), and equal `cqlite select` over the same SSTables.

Faults come from a small proxy on 127.0.0.1 between cqlite and the server that answers the first
commit of each table with a 500 (before or after passing it on), a 409, or a dropped connection, or
every commit with a 503; and from a server that wants OAuth2 client credentials given wrong ones. In
each case nothing is lost and nothing is half-visible: the table is at its previous snapshot or at the
run's, never twice, its data directory holds only files its snapshots name, and the next run completes.

`cqlite watch --catalog rest:...` publishes through the server as well.
"""
import http.server
import json
import pathlib
import shutil
import signal
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pyarrow as pa
import pytest

import cql_json
import iceberg_readers
from conftest import RestCatalogServer, cqlite_binary

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "data"
CATALOG_NAME = "cqlite"
TABLES = ["orders", "price_points"]
# A time at which a few of the examples' rows have expired: the run after the first commits deletes.
LATER = "2040-01-01T00:00:00Z"


def _materialize(cqlite, warehouse, catalog, *extra, check=True):
    proc = cqlite("materialize", EXAMPLES, "--warehouse", warehouse, "--catalog", catalog, "--json", *extra,
                  check=check)
    return proc, (json.loads(proc.stdout) if proc.returncode == 0 else None)


def _expected(cqlite, catalog, table, now):
    location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, "shop", table)
    schema = iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))
    table_dir = next(EXAMPLES.glob(f"shop/{table}-*"))
    rows = cql_json.rows_from_select_json(cqlite("select", table_dir, "--now", now).stdout.splitlines(), schema)
    return rows, schema


def _check_reads(cqlite, catalog, warehouse, table, now, readers=iceberg_readers.READERS):
    expected, schema = _expected(cqlite, catalog, table, now)
    assert expected, table
    read = iceberg_readers.read_all(catalog, warehouse, CATALOG_NAME, "shop", table, readers)
    for reader, rows in read.items():
        assert cql_json.mask_rows(rows, schema) == cql_json.mask_rows(expected, schema), (table, reader)
    return expected


def _data_files_match_snapshots(catalog, table):
    """Every Parquet file in the table's data/ directory is one its current snapshot reads (cqlite never
    removes a data file, and its delete files name their data file, so a file no scan reads is one a failed
    run left), and the other way round."""
    tbl = iceberg_readers._pyiceberg_catalog(catalog, None, CATALOG_NAME).load_table(("shop", table))
    listed = set()
    for task in tbl.scan().plan_files():
        listed.add(iceberg_readers._local_path(task.file.file_path))
        listed.update(iceberg_readers._local_path(d.file_path) for d in task.delete_files)
    on_disk = {str(p) for p in (pathlib.Path(iceberg_readers._local_path(tbl.location())) / "data").glob("*.parquet")}
    return listed == on_disk, sorted(on_disk ^ listed)


class FaultProxy:
    """An HTTP proxy on 127.0.0.1 to a REST catalog server that faults table commits (POST
    .../namespaces/{ns}/tables/{table}), or with target="register" the registrations of new tables (POST
    .../namespaces/{ns}/register): the first of each table, or every one with `every`.

        500-before   answers 500 without passing the commit on
        500-after    passes it on, then answers 500 instead of the server's answer
        409          answers 409 CommitFailedException without passing it on
        drop-before  closes the connection without an answer, without passing it on
        503          answers 503 without passing it on
        None         passes everything on

    With tls=(certificate file, key file) it serves https.
    """

    def __init__(self, upstream, mode, every=False, target="commit", tls=None):
        self.upstream, self.mode, self.every = upstream, mode, every
        self.faulted = []  # paths of the commits faulted
        self.commits = []  # paths of every commit received
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _handle(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if target == "register":
                    is_commit = self.command == "POST" and self.path.endswith("/register")
                    key = f"{self.path} {json.loads(body)['name']}" if is_commit else None
                else:
                    is_commit = (self.command == "POST" and "/tables/" in self.path
                                 and not self.path.rstrip("/").endswith(("/metrics", "/rename")))
                    key = self.path
                fault = None
                if is_commit and proxy.mode:
                    proxy.commits.append(key)
                    if proxy.every or key not in proxy.faulted:
                        fault = proxy.mode
                        proxy.faulted.append(key)
                if fault == "drop-before":
                    self.close_connection = True
                    return
                if fault in ("500-before", "409", "503"):
                    code, kind = {"500-before": (500, "RuntimeException"), "409": (409, "CommitFailedException"),
                                  "503": (503, "ServiceUnavailableException")}[fault]
                    self._answer(code, json.dumps({"error": {"message": f"injected {fault}", "type": kind,
                                                             "code": code}}).encode())
                    return
                status, data, content_type = proxy._forward(self.command, self.path, dict(self.headers), body)
                if fault == "500-after":
                    self._answer(500, json.dumps({"error": {"message": "injected after the commit",
                                                            "type": "CommitStateUnknownException",
                                                            "code": 500}}).encode())
                    return
                self._answer(status, data, content_type)

            def _answer(self, status, data, content_type="application/json"):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_POST = do_HEAD = do_DELETE = _handle

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        scheme = "http"
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            scheme = "https"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.address = f"rest:{scheme}://127.0.0.1:{self.server.server_address[1]}"

    def _forward(self, method, path, headers, body):
        headers = {k: v for k, v in headers.items() if k.lower() not in ("host", "content-length", "connection")}
        request = urllib.request.Request(self.upstream + path, data=body if method in ("POST", "PUT") else None,
                                         headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.read(), response.headers.get("Content-Type", "application/json")
        except urllib.error.HTTPError as e:
            return e.code, e.read(), e.headers.get("Content-Type", "application/json")

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def warehouse(tmp_path):
    return tmp_path / "warehouse"


def test_a_rest_catalog_is_shared_with_pyiceberg_duckdb_and_iceberg_java(cqlite, warehouse, rest_catalog):
    catalog = rest_catalog.address
    # PyIceberg makes a table of its own through the server first.
    theirs = iceberg_readers._pyiceberg_catalog(catalog, None, CATALOG_NAME)
    theirs.create_namespace("analytics")
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": pa.array(["a", "b", "c"])})
    theirs.create_table("analytics.events", schema=data.schema).append(data)
    before = iceberg_readers.metadata_location(catalog, CATALOG_NAME, "analytics", "events")

    _proc, report = _materialize(cqlite, warehouse, catalog)
    assert report["catalog"] == catalog
    assert sorted(t["table"] for t in report["tables"]) == TABLES
    assert all(t["committed"] for t in report["tables"]), report
    assert iceberg_readers.metadata_location(catalog, CATALOG_NAME, "analytics", "events") == before
    listing = iceberg_readers.list_pyiceberg(catalog, warehouse, CATALOG_NAME)
    assert listing["tables"] == [["analytics", "events"], ["shop", "orders"], ["shop", "price_points"]], listing
    assert iceberg_readers.list_java(catalog, warehouse, CATALOG_NAME) == listing
    for t in report["tables"]:
        # A new table is registered with cqlite's own metadata file.
        assert t["metadata_location"] == iceberg_readers.metadata_location(catalog, CATALOG_NAME, "shop", t["table"])
        assert t["metadata_location"].startswith(str(warehouse / "shop" / t["table"] / "metadata" / "00000-"))
        expected = _check_reads(cqlite, catalog, warehouse, t["table"], t["ttl_evaluated_at"])
        assert len(expected) == t["rows_total"]

    # Nothing new: no commit.
    _proc, again = _materialize(cqlite, warehouse, catalog)
    assert not any(t["committed"] for t in again["tables"]), again

    # Later, rows have expired: a commit through the server, which writes the next metadata file.
    _proc, later = _materialize(cqlite, warehouse, catalog, "--now", LATER)
    for t in later["tables"]:
        assert t["committed"] and t["rows_deleted"] > 0, t
        location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, "shop", t["table"])
        assert location == t["metadata_location"] and "/00001-" in location, (location, t)
        _check_reads(cqlite, catalog, warehouse, t["table"], LATER)
        history = iceberg_readers.snapshots_java(catalog, warehouse, CATALOG_NAME, "shop", t["table"])
        first = next(x for x in report["tables"] if x["table"] == t["table"])
        assert [s["snapshot_id"] for s in history] == [first["snapshot_id"], t["snapshot_id"]]
        assert history[1]["parent_id"] == first["snapshot_id"] and history[1]["current"]
        assert history[1]["summary"]["cqlite.ttl-evaluated-at"] == str(t["ttl_evaluated_at"])
        assert history == iceberg_readers.snapshots_pyiceberg(catalog, warehouse, CATALOG_NAME, "shop", t["table"])
    # PyIceberg still commits to its own table; cqlite's next run reads the metadata the server wrote.
    theirs.load_table("analytics.events").append(pa.table({"id": pa.array([4], pa.int64()),
                                                            "name": pa.array(["d"])}))
    _proc, last = _materialize(cqlite, warehouse, catalog, "--now", LATER)
    assert not any(t["committed"] for t in last["tables"]), last


@pytest.mark.parametrize("mode", ["500-before", "500-after", "409", "drop-before"])
def test_a_faulted_commit_loses_nothing_and_shows_nothing_twice(cqlite, warehouse, rest_catalog, mode):
    catalog = rest_catalog.address
    _proc, first = _materialize(cqlite, warehouse, catalog)
    proxy = FaultProxy(rest_catalog.uri, mode)
    try:
        proc, report = _materialize(cqlite, warehouse, proxy.address, "--now", LATER, check=False)
    finally:
        proxy.stop()
    assert proc.returncode == 0, proc.stderr
    assert len(proxy.faulted) == 2, proxy.faulted  # one commit of each table
    for t in report["tables"]:
        assert t["committed"], t
        # A 409 is a lost race: the run starts again from the table as it is; the other faults are
        # resolved within the commit (sent again, or learned from the table).
        assert t["attempts"] == (2 if mode == "409" else 1), t
        old = next(x for x in first["tables"] if x["table"] == t["table"])
        history = iceberg_readers.snapshots_pyiceberg(catalog, warehouse, CATALOG_NAME, "shop", t["table"])
        assert [s["snapshot_id"] for s in history] == [old["snapshot_id"], t["snapshot_id"]], (mode, history)
        assert history[1]["parent_id"] == old["snapshot_id"]
        _check_reads(cqlite, catalog, warehouse, t["table"], LATER, {"pyiceberg": iceberg_readers.read_pyiceberg})
        same, difference = _data_files_match_snapshots(catalog, t["table"])
        assert same, (mode, difference)
    expected_sends = {"500-before": 4, "500-after": 2, "409": 4, "drop-before": 4}[mode]
    assert len(proxy.commits) == expected_sends, proxy.commits
    # The next run has nothing to do.
    _proc, again = _materialize(cqlite, warehouse, catalog, "--now", LATER)
    assert not any(t["committed"] for t in again["tables"]), again


@pytest.mark.parametrize("mode", ["500-after", "409", "drop-before"])
def test_a_faulted_register_of_a_new_table_loses_nothing(cqlite, warehouse, rest_catalog, mode):
    proxy = FaultProxy(rest_catalog.uri, mode, target="register")
    try:
        proc, report = _materialize(cqlite, warehouse, proxy.address, check=False)
    finally:
        proxy.stop()
    assert proc.returncode == 0, proc.stderr
    assert len(proxy.faulted) == 2, proxy.faulted
    catalog = rest_catalog.address
    for t in report["tables"]:
        assert t["committed"] and t["attempts"] == (2 if mode == "409" else 1), t
        history = iceberg_readers.snapshots_pyiceberg(catalog, warehouse, CATALOG_NAME, "shop", t["table"])
        assert [s["snapshot_id"] for s in history] == [t["snapshot_id"]], (mode, history)
        _check_reads(cqlite, catalog, warehouse, t["table"], t["ttl_evaluated_at"],
                     {"pyiceberg": iceberg_readers.read_pyiceberg})
        same, difference = _data_files_match_snapshots(catalog, t["table"])
        assert same, (mode, difference)
    _proc, again = _materialize(cqlite, warehouse, catalog)
    assert not any(t["committed"] for t in again["tables"]), again


def test_a_commit_whose_outcome_stays_unknown_keeps_the_table_and_the_next_run_completes(cqlite, warehouse,
                                                                                      rest_catalog):
    catalog = rest_catalog.address
    _proc, first = _materialize(cqlite, warehouse, catalog)
    proxy = FaultProxy(rest_catalog.uri, "503", every=True)
    try:
        proc, _report = _materialize(cqlite, warehouse, proxy.address, "--now", LATER, check=False)
    finally:
        proxy.stop()
    assert proc.returncode != 0
    assert "Commit outcome unknown" in proc.stderr and "run again to learn whether it committed" in proc.stderr, proc.stderr
    assert f"POST {proxy.address[len('rest:'):]}/v1/namespaces/shop/tables/" in proc.stderr, proc.stderr
    assert "ServiceUnavailableException: injected 503" in proc.stderr, proc.stderr
    assert "perhaps committed for" in proc.stderr and "nothing committed" not in proc.stderr, proc.stderr
    for t in first["tables"]:
        # Still at the first snapshot, reading as then.
        history = iceberg_readers.snapshots_pyiceberg(catalog, warehouse, CATALOG_NAME, "shop", t["table"])
        assert [s["snapshot_id"] for s in history] == [t["snapshot_id"]]
        _check_reads(cqlite, catalog, warehouse, t["table"], t["ttl_evaluated_at"],
                     {"pyiceberg": iceberg_readers.read_pyiceberg})
    # The next run, with the server answering, completes.
    _proc, report = _materialize(cqlite, warehouse, catalog, "--now", LATER)
    for t in report["tables"]:
        assert t["committed"] and t["attempts"] == 1, t
        _check_reads(cqlite, catalog, warehouse, t["table"], LATER)


def test_wrong_rest_credentials_are_an_error_naming_the_endpoint_and_no_secret(cqlite, warehouse, tmp_path,
                                                                             monkeypatch):
    server = RestCatalogServer(tmp_path / "rest-server", credential="cqlite-test:right-secret-4711")
    try:
        monkeypatch.setenv("CQLITE_REST_CREDENTIAL", "cqlite-test:wrong-secret-0815")
        proc, _report = _materialize(cqlite, warehouse, server.address, check=False)
        assert proc.returncode != 0
        assert f"POST {server.uri}/v1/oauth/tokens" in proc.stderr, proc.stderr
        assert "HTTP 401 (invalid_client: Credentials for the client are invalid)" in proc.stderr, proc.stderr
        assert "CQLITE_REST_CREDENTIAL" in proc.stderr, proc.stderr
        for secret in ("wrong-secret-0815", "right-secret-4711"):
            assert secret not in proc.stderr + proc.stdout
        assert proc.stderr.count("\n") == 1, proc.stderr  # one line
        assert not list(warehouse.glob("*/*")) if warehouse.exists() else True

        # No credential at all: the server's own refusal, naming the endpoint.
        monkeypatch.delenv("CQLITE_REST_CREDENTIAL")
        proc, _report = _materialize(cqlite, warehouse, server.address, check=False)
        assert proc.returncode != 0
        assert f"GET {server.uri}/v1/config" in proc.stderr and "HTTP 401" in proc.stderr, proc.stderr

        # The right credential: cqlite publishes, and every reader reads with the same credential.
        monkeypatch.setenv("CQLITE_REST_CREDENTIAL", "cqlite-test:right-secret-4711")
        _proc, report = _materialize(cqlite, warehouse, server.address)
        assert "right-secret-4711" not in json.dumps(report)
        for t in report["tables"]:
            assert t["committed"], t
            _check_reads(cqlite, server.address, warehouse, t["table"], t["ttl_evaluated_at"])
    finally:
        server.stop()


def test_watch_publishes_through_a_rest_catalog(cqlite, warehouse, tmp_path, rest_catalog):
    """`cqlite watch --catalog rest:...` opens the REST catalog too: it commits each table of a data
    directory through the server, and stops on SIGTERM."""
    data = tmp_path / "data"
    shutil.copytree(EXAMPLES, data)
    catalog = rest_catalog.address
    watcher = subprocess.Popen([str(cqlite_binary()), "watch", str(data), "--warehouse", str(warehouse),
                                "--catalog", catalog, "--interval", "1", "--rescan", "1",
                                "--schema", str(data / "shop" / "schema.cql")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        found = []
        while time.monotonic() < deadline and len(found) < len(TABLES):
            time.sleep(1)
            found = [t for t in TABLES if ["shop", t] in iceberg_readers.list_pyiceberg(catalog, warehouse,
                                                                                      CATALOG_NAME)["tables"]]
    finally:
        watcher.send_signal(signal.SIGTERM)
        log, _ = watcher.communicate(timeout=60)
    assert watcher.returncode == 0, log
    assert found == TABLES, log
    for table in TABLES:
        history = iceberg_readers.snapshots_pyiceberg(catalog, warehouse, CATALOG_NAME, "shop", table)
        assert len(history) == 1, history
        now = history[0]["summary"]["cqlite.ttl-evaluated-at"]
        _check_reads(cqlite, catalog, warehouse, table, now, {"pyiceberg": iceberg_readers.read_pyiceberg})


def test_two_writers_racing_through_the_server_make_one_table(tmp_path, rest_catalog):
    """Two `cqlite materialize` processes publish the same tables through the server at once, 3 rounds
    (a new table, then a later commit): one wins each table's register or commit, the other loses with a
    409, re-plans on the winner's snapshot and finds nothing left to do; every round leaves one new
    snapshot per table and no file of the loser."""
    catalog = rest_catalog.address
    warehouse = tmp_path / "warehouse"
    snapshots = {t: 0 for t in TABLES}
    lost_races = 0
    for round_now in (None, "2035-01-01T00:00:00Z", LATER):
        args = [str(cqlite_binary()), "materialize", str(EXAMPLES), "--warehouse", str(warehouse), "--catalog",
                catalog, "--json", "--threads", "1"]
        if round_now:
            args += ["--now", round_now]
        writers = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                   for _ in range(2)]
        outputs = [w.communicate(timeout=300) for w in writers]
        assert all(w.returncode == 0 for w in writers), [err for _out, err in outputs]
        reports = [json.loads(out) for out, _err in outputs]
        for table in TABLES:
            results = [next(t for t in r["tables"] if t["table"] == table) for r in reports]
            committed = [t for t in results if t["committed"]]
            lost_races += sum(t["attempts"] > 1 for t in results)
            history = iceberg_readers.snapshots_pyiceberg(catalog, warehouse, CATALOG_NAME, "shop", table)
            if committed:
                snapshots[table] += 1
                # One winner; the other commits nothing on top of it.
                assert len(committed) == 1, results
                assert history[-1]["snapshot_id"] == committed[0]["snapshot_id"], (history, results)
            assert len(history) == snapshots[table], (round_now, table, history, results)
            same, difference = _data_files_match_snapshots(catalog, table)
            assert same, (round_now, table, difference)
    assert snapshots["orders"] >= 2 and snapshots["price_points"] >= 2, snapshots
    print(f"two writers through a REST catalog: {lost_races} lost race(s) in 3 rounds of 2 tables")


def test_an_https_catalog_is_checked_against_the_system_or_the_given_certificate_authorities(
        cqlite, warehouse, tmp_path, rest_catalog, monkeypatch):
    if shutil.which("openssl") is None:
        pytest.skip("SKIPPED: no openssl command to make a test certificate with")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    proxy = FaultProxy(rest_catalog.uri, None, tls=(str(cert), str(key)))
    try:
        monkeypatch.delenv("CQLITE_REST_CA_FILE", raising=False)
        proc, _report = _materialize(cqlite, warehouse, proxy.address, check=False)
        assert proc.returncode != 0
        assert f"GET {proxy.address[len('rest:'):]}/v1/config: " in proc.stderr, proc.stderr
        assert "certificate" in proc.stderr, proc.stderr
        monkeypatch.setenv("CQLITE_REST_CA_FILE", str(cert))
        _proc, report = _materialize(cqlite, warehouse, proxy.address)
    finally:
        proxy.stop()
    assert report["catalog"] == proxy.address
    for t in report["tables"]:
        assert t["committed"], t
        _check_reads(cqlite, rest_catalog.address, warehouse, t["table"], t["ttl_evaluated_at"],
                     {"pyiceberg": iceberg_readers.read_pyiceberg})
