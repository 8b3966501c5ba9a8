"""Shared fixtures for the integration tests.

These tests run the `cqlite` binary against real SSTables and compare what it
prints with what Cassandra's own tools print for the same files. The oracle
(tools/oracle/oracle.sh) fetches pinned Cassandra artifacts on first use and
caches them, so the first run is slow and later runs are not.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = pathlib.Path(os.environ.get("CQLITE_SHARED_DIR", REPO.parent / "shared"))
FIXTURES = SHARED / "cassandra-fixtures"
CACHE = pathlib.Path(os.environ.get("CQLITE_CACHE", pathlib.Path.home() / ".cache" / "cqlite"))


def cqlite_binary() -> pathlib.Path:
    explicit = os.environ.get("CQLITE_BIN")
    if explicit:
        return pathlib.Path(explicit)
    return REPO / "build" / "src" / "cli" / "cqlite"


@pytest.fixture(scope="session")
def cqlite():
    binary = cqlite_binary()
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build the project first (scripts/setup.sh)")

    def run(*args, check=True, timeout=600):
        proc = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"cqlite {' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stderr}")
        return proc

    return run


@pytest.fixture(scope="session")
def fixtures_dir():
    if not FIXTURES.is_dir():
        pytest.skip(f"SKIPPED: shared fixtures not found at {FIXTURES}; the fixture tests need ../shared")
    return FIXTURES


@pytest.fixture(scope="session")
def oracle():
    script = REPO / "tools" / "oracle" / "oracle.sh"
    if not script.exists():
        pytest.fail(f"{script} is missing")
    if shutil.which("java") is None or shutil.which("mvn") is None:
        pytest.fail("the Cassandra oracle needs java and mvn (scripts/setup.sh installs them)")
    return script


@pytest.fixture()
def postgres_catalog(tmp_path):
    """The URI of a database on a throwaway PostgreSQL server (tests/postgres_server.sh, Debian's
    postgresql package, which scripts/setup.sh installs), on 127.0.0.1; stopped after the test."""
    script = REPO / "tests" / "postgres_server.sh"
    state = tmp_path / "postgres.state"
    proc = subprocess.run(["bash", str(script), "start", str(state)], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.fail(f"{script} start failed ({proc.returncode}): {proc.stderr.strip()}")
    try:
        yield proc.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run(["bash", str(script), "stop", str(state)], capture_output=True, timeout=300)


class RestCatalogServer:
    """Apache Iceberg's REST catalog server (tools/iceberg_readers/iceberg_java.sh rest-server: Iceberg's
    RESTCatalogAdapter and RESTCatalogServlet over a JdbcCatalog in a SQLite file, on Jetty) on a free
    port of 127.0.0.1, started for a test and stopped after it. `credential` (id:secret) makes it want
    OAuth2 client credentials. `warehouse` is the server's warehouse (default: a directory under root);
    an s3:// one is reached with Iceberg's S3FileIO at the store the environment names (the s3 fixture's)."""

    def __init__(self, root, credential=None, warehouse=None):
        self.root = pathlib.Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        args = ["bash", str(REPO / "tools" / "iceberg_readers" / "iceberg_java.sh"), "rest-server", "0",
                str(warehouse or self.root / "server-warehouse"), str(self.root / "rest-catalog.db")]
        if credential:
            args += ["--credential", credential]
        self.log = open(self.root / "rest-server.log", "w")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()  # the first start builds the Java tools: minutes
        if not line.startswith("{"):
            self.stop()
            raise AssertionError(f"the REST catalog server did not start: {line!r}; see {self.root / 'rest-server.log'}: "
                                 + (self.root / "rest-server.log").read_text()[-3000:])
        self.uri = json.loads(line)["uri"]
        self.address = "rest:" + self.uri

    def stop(self):
        from s3_server import stop_server
        stop_server(self.proc, self.log)


@pytest.fixture()
def rest_catalog(tmp_path):
    """A REST catalog server (RestCatalogServer) for one test; its address is .address (rest:http://...)."""
    server = RestCatalogServer(tmp_path / "rest-server")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def rest_catalog_on_s3(tmp_path, s3):
    """A REST catalog server (RestCatalogServer) whose warehouse is s3://<s3_server.BUCKET>/rest on the s3
    fixture's server: it reads the metadata files of registered tables, and writes those of commits, in the
    bucket. Its warehouse is .warehouse."""
    from s3_server import BUCKET

    warehouse = f"s3://{BUCKET}/rest"
    server = RestCatalogServer(tmp_path / "rest-server", warehouse=warehouse)
    server.warehouse = warehouse
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def s3(tmp_path, monkeypatch):
    """A real S3-compatible server (moto's, s3_server.S3Server) on 127.0.0.1 for one test, with a bucket
    s3_server.BUCKET; its endpoint and credentials are put in the environment as cqlite and
    iceberg_readers take them, and CQLITE_S3_PART_SIZE=4096 so that files above 4 KiB go up in parts."""
    from s3_server import S3Server

    server = S3Server(tmp_path / "s3")
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_SESSION_TOKEN",
                 "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    for name, value in server.environment().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CQLITE_S3_PART_SIZE", "4096")
    try:
        yield server
    finally:
        server.stop()


def sstabledump_batch(oracle_script, data_files, out_dir):
    """Runs Cassandra's sstabledump over data_files in one JVM, now.

    Returns {input path: (status, output file)} from the oracle's manifest. Not
    cached: sstabledump's "expired" flags depend on the clock.
    """
    out_dir = pathlib.Path(out_dir)
    subprocess.run(["bash", str(oracle_script), "sstabledump-batch", str(out_dir), *map(str, data_files)],
                   check=False, stdout=subprocess.DEVNULL, timeout=3000)
    manifest = out_dir / "manifest.tsv"
    if not manifest.exists():
        raise AssertionError(f"the sstabledump oracle wrote no manifest in {out_dir}")
    results = {}
    for line in manifest.read_text().splitlines():
        status, _exit, _ms, input_path, output_file = line.split("\t")[:5]
        results[input_path] = (status, out_dir / output_file)
    return results


def sanitized(path) -> str:
    return str(path).strip("/").replace("/", "__")


def pytest_terminal_summary(terminalreporter):
    """Prints the seed and size of the select parity run and of the compaction property run, pass or fail."""
    compaction = getattr(sys.modules.get("test_compaction_property"), "SUMMARY", None)
    if compaction:
        terminalreporter.write_line(
            f"compaction property: seed {compaction['seed']}, {compaction['steps']} steps"
            + (f", {compaction['runs']} runs into A, folded {compaction['folded']}, compactions "
               f"{compaction['compactions']} ({compaction['purged_unconsumed']} purging tombstones no run had "
               f"consumed, {compaction['partial']} compacting only some SSTables), rows at the end {compaction['rows']}, {compaction['seconds']:.1f} s"
               if "runs" in compaction else ", did not finish")
            + f"; steps in {compaction['log']} (CQLITE_COMPACTION_SEED={compaction['seed']} reproduces it)")
    summary = getattr(sys.modules.get("test_select_parity"), "SUMMARY", None)
    if not summary:
        return
    line = (f"select parity: seed {summary['seed']}, {summary['workloads']} workloads, "
            f"{summary['runs']} node run(s) in {summary['node_seconds']:.1f} s")
    if "tables" in summary:
        line += (f"; {summary['tables']} tables, {summary['sstables']} sstables, {summary['selects']} selects, "
                 f"{summary['rows']} rows, {summary['empty_selects']} empty selects")
    terminalreporter.write_line(line + f" (CQLITE_PARITY_SEED={summary['seed']} reproduces it)")
