"""Independent readers ("oracles") for Iceberg tables kept in a JDBC-style catalog.

Each reader gets the same five arguments:

    catalog_file  the catalog (JDBC catalog schema V1: iceberg_tables,
                  iceberg_namespace_properties): its SQLite file, or a
                  postgresql://user:password@host:port/db URI (read with
                  psycopg2, PyIceberg's SqlCatalog on SQLAlchemy's
                  postgresql+psycopg2 dialect, and the PostgreSQL JDBC driver);
                  or an Iceberg REST catalog, rest:http://host:port[/path]
                  (read with PyIceberg's RestCatalog, DuckDB's ATTACH ...
                  (TYPE iceberg, ENDPOINT ...) and Iceberg Java's RESTCatalog;
                  an OAuth2 credential id:secret in CQLITE_REST_CREDENTIAL is
                  used by all three)
    warehouse     the warehouse directory (a path, or a file:// URI), or an
                  s3://bucket/prefix warehouse on an S3-compatible server whose
                  endpoint and credentials are in the environment as cqlite
                  takes them (CQLITE_S3_ENDPOINT, AWS_ACCESS_KEY_ID,
                  AWS_SECRET_ACCESS_KEY, AWS_REGION): PyIceberg reads it through
                  its S3 FileIO, DuckDB through httpfs with an S3 secret, and
                  Iceberg Java through Iceberg's S3FileIO; with a REST catalog
                  too (each reader then reaches the store with these settings of
                  its own: the tests' server hands out no S3 configuration)
    catalog_name  the catalog's name in that file (CQLite's default: "cqlite")
    ns            the namespace: "ks", "a.b", or a tuple of levels
    table         the table name

and returns the table's current rows as a list of JSON-able dicts (column name
-> value), normalized the same way for every reader and sorted, so that the
readers can be compared with each other and with expected rows written in a
test:

    read_pyiceberg  PyIceberg's SqlCatalog, load_table(...).scan().to_arrow()
    read_duckdb     DuckDB's iceberg extension, iceberg_scan('<metadata file>'),
                    the metadata location read from the catalog file with
                    sqlite3. Runs in its own virtual environment with a DuckDB
                    that matches the packaged extension: see
                    tools/iceberg_readers/duckdb-requirements.txt.
    read_java       the Iceberg Java library's JdbcCatalog and
                    IcebergGenerics.read(table), through
                    tools/iceberg_readers/iceberg_java.sh (built with Maven and
                    cached on first use)

Plus list_pyiceberg / list_java (namespaces and tables of a catalog) and
snapshots_pyiceberg / snapshots_java (the table's snapshots with summaries).

Normalization of values, by the column's Iceberg type:

    int, long            Python int
    boolean              bool
    float, double        Python float (a float widened exactly to a double);
                         NaN as the string "NaN", infinities as "Infinity" and
                         "-Infinity"
    decimal(P, S)        string in plain notation with exactly S digits after
                         the point: "-1.500", "0.000"
    string               str
    binary, fixed[N]     lowercase hex string
    uuid                 canonical lowercase string
    date                 ISO "YYYY-MM-DD"
    time                 "HH:MM:SS.ffffff" (always six fractional digits)
    timestamptz          int, microseconds since 1970-01-01T00:00:00Z
    timestamp            int, microseconds since 1970-01-01T00:00:00 (as if UTC)
    timestamp_ns(tz)     int, nanoseconds since the epoch
    list                 list
    map                  list of [key, value] pairs sorted by key
    struct               dict, field name -> value
    null                 None

Rows are sorted by their JSON dump (json.dumps(row, sort_keys=True)).

Listings are {"namespaces": [[level, ...], ...], "tables": [[level, ..., name], ...]},
both sorted. Snapshots are a list, in the metadata's order, of
{"snapshot_id", "parent_id", "sequence_number", "timestamp_ms", "operation",
 "manifest_list", "current", "summary"} where summary is the snapshot summary
without its "operation" entry.

This module imports only the standard library at load time: it is also run as a
script inside the DuckDB reader's own environment.
"""
import datetime
import decimal
import fcntl
import hashlib
import json
import math
import os
import pathlib
import shutil
import sqlite3
import subprocess
import sys
import urllib.parse
import uuid

REPO = pathlib.Path(__file__).resolve().parents[2]
READERS_DIR = REPO / "tools" / "iceberg_readers"
ICEBERG_JAVA = READERS_DIR / "iceberg_java.sh"
DUCKDB_REQUIREMENTS = READERS_DIR / "duckdb-requirements.txt"
CACHE = pathlib.Path(os.environ.get("CQLITE_CACHE", pathlib.Path.home() / ".cache" / "cqlite"))

_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_EPOCH_DATE = datetime.date(1970, 1, 1)


# ---------------------------------------------------------------------------
# Normalization
# ---------------------------------------------------------------------------

def _float(v):
    if isinstance(v, str):
        if v in ("NaN", "Infinity", "-Infinity"):
            return v
        v = float(v)
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def _decimal(v, scale):
    d = v if isinstance(v, decimal.Decimal) else decimal.Decimal(str(v))
    with decimal.localcontext() as ctx:
        ctx.prec = 200
        ctx.traps[decimal.Inexact] = True  # a value with more digits than the scale is an error
        d = d.quantize(decimal.Decimal(1).scaleb(-scale))
    return format(d, "f")


def _hex(v):
    if isinstance(v, str):
        return v.lower()
    return bytes(v).hex()


def _uuid(v):
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return str(uuid.UUID(bytes=bytes(v)))
    return str(uuid.UUID(str(v)))


def _date(v):
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        v = _EPOCH_DATE + datetime.timedelta(days=v)
    return v.isoformat()


def _time(v):
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        seconds, micros = divmod(v, 1_000_000)
        minutes, s = divmod(seconds, 60)
        h, m = divmod(minutes, 60)
        return f"{h:02d}:{m:02d}:{s:02d}.{micros:06d}"
    return f"{v.hour:02d}:{v.minute:02d}:{v.second:02d}.{v.microsecond:06d}"


def _epoch_micros(v):
    if isinstance(v, int):
        return v
    if v.tzinfo is None:
        v = v.replace(tzinfo=datetime.timezone.utc)
    return (v - _EPOCH_UTC) // datetime.timedelta(microseconds=1)


def _map_pairs(v):
    if isinstance(v, dict):
        return list(v.items())
    return [tuple(p) for p in v]


def _key_order(k):
    if isinstance(k, (dict, list)):
        return (1, json.dumps(k, sort_keys=True))
    if k is None:
        return (2, "")
    return (0, k)


def normalize(value, itype):
    """Normalizes one value of Iceberg type itype (the type as in metadata JSON).

    Accepts what pyarrow, DuckDB and the Java reader's JSON give for that type;
    an already normalized value comes back unchanged.
    """
    if value is None:
        return None
    if isinstance(itype, dict):
        kind = itype["type"]
        if kind == "list":
            return [normalize(e, itype["element"]) for e in value]
        if kind == "map":
            pairs = [[normalize(k, itype["key"]), normalize(v, itype["value"])] for k, v in _map_pairs(value)]
            pairs.sort(key=lambda p: _key_order(p[0]))
            return pairs
        if kind == "struct":
            return {f["name"]: normalize(value.get(f["name"]), f["type"]) for f in itype["fields"]}
        raise ValueError(f"unknown Iceberg type {itype!r}")
    if itype in ("int", "long"):
        return int(value)
    if itype == "boolean":
        return bool(value)
    if itype in ("float", "double"):
        return _float(value)
    if itype.startswith("decimal("):
        scale = int(itype[len("decimal("):-1].split(",")[1])
        return _decimal(value, scale)
    if itype == "string":
        return str(value)
    if itype == "binary" or itype.startswith("fixed["):
        return _hex(value)
    if itype == "uuid":
        return _uuid(value)
    if itype == "date":
        return _date(value)
    if itype == "time":
        return _time(value)
    if itype in ("timestamp", "timestamptz"):
        return _epoch_micros(value)
    if itype in ("timestamp_ns", "timestamptz_ns"):
        return value if isinstance(value, int) else _epoch_micros(value) * 1000
    raise ValueError(f"unsupported Iceberg type {itype!r}")


def normalize_rows(rows, schema):
    """Normalizes rows (dicts by column name) under schema (Iceberg schema JSON) and sorts them."""
    struct = {"type": "struct", "fields": schema["fields"]}
    return sort_rows([normalize(row, struct) for row in rows])


def sort_rows(rows):
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


# ---------------------------------------------------------------------------
# Catalog access (sqlite3, or psycopg2 for a PostgreSQL catalog)
# ---------------------------------------------------------------------------

def is_postgres(catalog):
    return str(catalog).startswith(("postgresql://", "postgres://"))


def is_rest(catalog):
    return str(catalog).startswith("rest:")


def rest_uri(catalog):
    """The server's base URI of a rest:... catalog address."""
    return str(catalog)[len("rest:"):].split("?", 1)[0].rstrip("/")


def _rest_credential():
    return os.environ.get("CQLITE_REST_CREDENTIAL") or None


def _rest_get(catalog, path):
    """GET <base>/v1/<path> of a REST catalog (with a token when CQLITE_REST_CREDENTIAL is set) as JSON."""
    import urllib.request

    base = rest_uri(catalog)
    headers = {"Accept": "application/json"}
    credential = _rest_credential()
    if credential:
        client_id, _, secret = credential.rpartition(":")
        form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": client_id,
                                       "client_secret": secret, "scope": "catalog"}).encode()
        with urllib.request.urlopen(urllib.request.Request(f"{base}/v1/oauth/tokens", data=form)) as r:
            headers["Authorization"] = "Bearer " + json.load(r)["access_token"]
    with urllib.request.urlopen(urllib.request.Request(f"{base}/v1/{path}", headers=headers)) as r:
        return json.load(r)


def sqlalchemy_uri(catalog):
    """The catalog as PyIceberg's SqlCatalog (SQLAlchemy) names it."""
    if is_postgres(catalog):
        return "postgresql+psycopg2://" + str(catalog).split("://", 1)[1]
    return f"sqlite:///{os.path.abspath(catalog)}"


def catalog_query(catalog, sql, params=()):
    """The rows of one query on the catalog's database; `sql` takes its parameters as ?."""
    if is_postgres(catalog):
        import psycopg2

        con = psycopg2.connect(str(catalog))
        try:
            with con.cursor() as cur:
                cur.execute(sql.replace("?", "%s"), params)
                rows = cur.fetchall()
            con.commit()
            return rows
        finally:
            con.close()
    # Read-write, as catalog clients open it, so that a hot journal left by a killed writer is rolled back.
    con = sqlite3.connect(f"file:{catalog}?mode=rw", uri=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def _ns_tuple(ns):
    if isinstance(ns, str):
        return tuple(ns.split("."))
    return tuple(ns)


def _ns_string(ns):
    return ".".join(_ns_tuple(ns))


def _warehouse_uri(warehouse):
    warehouse = str(warehouse)
    return warehouse if "://" in warehouse else "file://" + os.path.abspath(warehouse)


def is_s3(location):
    return str(location).startswith("s3://")


def s3_settings():
    """The S3 endpoint, region and credentials cqlite takes from the environment."""
    return {
        "endpoint": os.environ.get("CQLITE_S3_ENDPOINT") or os.environ.get("AWS_ENDPOINT_URL", ""),
        "region": os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
        "key_id": os.environ.get("AWS_ACCESS_KEY_ID", ""),
        "secret": os.environ.get("AWS_SECRET_ACCESS_KEY", ""),
    }


def read_s3_object(location):
    """The bytes of an s3:// object, read with boto3 (the test environment's; moto depends on it)."""
    import boto3

    settings = s3_settings()
    client = boto3.client("s3", endpoint_url=settings["endpoint"] or None, region_name=settings["region"],
                          aws_access_key_id=settings["key_id"], aws_secret_access_key=settings["secret"])
    bucket, _, key = location[len("s3://"):].partition("/")
    return client.get_object(Bucket=bucket, Key=key)["Body"].read()


def _local_path(location):
    parsed = urllib.parse.urlparse(location)
    if parsed.scheme in ("", "file"):
        return urllib.parse.unquote(parsed.path) if parsed.scheme else location
    raise ValueError(f"not a local file location: {location}")


def metadata_location(catalog_file, catalog_name, ns, table):
    """The table's current metadata file, read from the catalog."""
    if is_rest(catalog_file):
        ns_path = "%1F".join(urllib.parse.quote(level, safe="") for level in _ns_tuple(ns))
        loaded = _rest_get(catalog_file, f"namespaces/{ns_path}/tables/{urllib.parse.quote(table, safe='')}")
        return loaded["metadata-location"]
    rows = catalog_query(catalog_file, "SELECT metadata_location FROM iceberg_tables "
                                       "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?",
                         (catalog_name, _ns_string(ns), table))
    if len(rows) != 1 or not rows[0][0]:
        raise LookupError(f"{catalog_file}: no table {_ns_string(ns)}.{table} in catalog {catalog_name!r}")
    return rows[0][0]


def current_schema(metadata):
    """The current schema (Iceberg schema JSON) of a parsed table metadata file."""
    sid = metadata.get("current-schema-id")
    for s in metadata.get("schemas", []):
        if s.get("schema-id") == sid:
            return s
    return metadata["schema"]


def _metadata_json(location, duckdb_connection=None):
    if is_s3(location):
        if duckdb_connection is not None:  # inside the DuckDB environment, which has no boto3
            return json.loads(duckdb_connection.execute("SELECT content FROM read_text(?)", [location]).fetchone()[0])
        return json.loads(read_s3_object(location))
    with open(_local_path(location), encoding="utf-8") as f:
        return json.load(f)


# ---------------------------------------------------------------------------
# PyIceberg
# ---------------------------------------------------------------------------

def _pyiceberg_catalog(catalog_file, warehouse, catalog_name):
    properties = {}
    if warehouse is not None and is_s3(warehouse):
        settings = s3_settings()
        properties = {"s3.region": settings["region"], "s3.access-key-id": settings["key_id"],
                      "s3.secret-access-key": settings["secret"]}
        if settings["endpoint"]:
            properties["s3.endpoint"] = settings["endpoint"]
    if is_rest(catalog_file):
        from pyiceberg.catalog.rest import RestCatalog

        properties["uri"] = rest_uri(catalog_file)
        if _rest_credential():
            properties["credential"] = _rest_credential()
        return RestCatalog(catalog_name, **properties)
    from pyiceberg.catalog.sql import SqlCatalog

    return SqlCatalog(
        catalog_name,
        uri=sqlalchemy_uri(catalog_file),
        warehouse=_warehouse_uri(warehouse),
        init_catalog_tables="false",
        **properties,
    )


def _is_struct(itype):
    return isinstance(itype, dict) and itype["type"] == "struct"


def as_pyiceberg_reads(value, itype):
    """`value` (normalized) as PyIceberg 0.12 reads a stored value of Iceberg type `itype`: a null list
    of structs, or a null map with struct keys or values, comes back empty (apache/iceberg-python#3833,
    open; its own test_null_list_and_map asserts it). DuckDB and Iceberg Java read the same files as
    null. (A field a data file lacks, such as a column added after the file was written, PyIceberg reads
    as null: pyiceberg_rows makes it what a stored null reads as.)"""
    if value is None:
        rebuilt = isinstance(itype, dict) and (
            (itype["type"] == "list" and _is_struct(itype["element"]))
            or (itype["type"] == "map" and (_is_struct(itype["value"]) or _is_struct(itype["key"]))))
        return [] if rebuilt else None
    if isinstance(itype, dict):
        if itype["type"] == "list":
            return [as_pyiceberg_reads(e, itype["element"]) for e in value]
        if itype["type"] == "map":
            return [[k, as_pyiceberg_reads(v, itype["value"])] for k, v in value]
        if itype["type"] == "struct":
            return {f["name"]: as_pyiceberg_reads(value[f["name"]], f["type"]) for f in itype["fields"]}
    return value


def pyiceberg_rows(arrow_rows, schema):
    """PyIceberg's rows (to_pylist) of a table of Iceberg `schema`, normalized, each null PyIceberg reads
    as empty when stored (as_pyiceberg_reads) empty whether stored or missing from the data file."""
    struct = {"type": "struct", "fields": schema["fields"]}
    return [as_pyiceberg_reads(row, struct) for row in normalize_rows(arrow_rows, schema)]


def read_pyiceberg(catalog_file, warehouse, catalog_name, ns, table):
    catalog = _pyiceberg_catalog(catalog_file, warehouse, catalog_name)
    tbl = catalog.load_table(_ns_tuple(ns) + (table,))
    import pyarrow

    schema = json.loads(tbl.schema().model_dump_json())
    scan = tbl.scan()
    try:
        rows = scan.to_arrow().to_pylist()
    except pyarrow.lib.ArrowNotImplementedError:
        # A scan without rows is made into pyarrow's empty table, which cannot hold a uuid inside a
        # list or map (ArrowNotImplementedError "extension"): read its record batches instead.
        rows = [row for batch in scan.to_arrow_batch_reader() for row in batch.to_pylist()]
    return pyiceberg_rows(rows, schema)


def list_pyiceberg(catalog_file, warehouse, catalog_name):
    catalog = _pyiceberg_catalog(catalog_file, warehouse, catalog_name)
    namespaces, tables = [], []
    todo = [tuple(n) for n in catalog.list_namespaces()]
    while todo:
        ns = todo.pop()
        namespaces.append(list(ns))
        tables.extend(list(t) for t in catalog.list_tables(ns))
        todo.extend(tuple(n) for n in catalog.list_namespaces(ns))
    return {"namespaces": sorted(namespaces), "tables": sorted(tables)}


def snapshots_pyiceberg(catalog_file, warehouse, catalog_name, ns, table):
    catalog = _pyiceberg_catalog(catalog_file, warehouse, catalog_name)
    tbl = catalog.load_table(_ns_tuple(ns) + (table,))
    current = tbl.metadata.current_snapshot_id
    out = []
    for s in tbl.metadata.snapshots:
        summary = dict(s.summary.additional_properties) if s.summary else {}
        summary.pop("operation", None)
        out.append({
            "snapshot_id": s.snapshot_id,
            "parent_id": s.parent_snapshot_id,
            "sequence_number": s.sequence_number,
            "timestamp_ms": s.timestamp_ms,
            "operation": s.summary.operation.value if s.summary else None,
            "manifest_list": s.manifest_list,
            "current": s.snapshot_id == current,
            "summary": summary,
        })
    return out


# ---------------------------------------------------------------------------
# Iceberg Java library
# ---------------------------------------------------------------------------

def _java(*args, timeout=1800):
    proc = subprocess.run(["bash", str(ICEBERG_JAVA), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"iceberg_java.sh {' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stderr}")
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def _java_base_args(catalog_file, warehouse, catalog_name):
    remote = is_postgres(catalog_file) or is_rest(catalog_file)
    catalog = str(catalog_file) if remote else os.path.abspath(catalog_file)
    return [catalog, _warehouse_uri(warehouse), catalog_name]


def read_java(catalog_file, warehouse, catalog_name, ns, table):
    rows = _java("read", *_java_base_args(catalog_file, warehouse, catalog_name), _ns_string(ns), table)
    # The Java reader writes normalized values already; maps still need sorting,
    # for which the schema is needed.
    schema = current_schema(_metadata_json(metadata_location(catalog_file, catalog_name, ns, table)))
    return normalize_rows(rows, schema)


def read_java_many(catalog_file, warehouse, catalog_name, tables):
    """{(ns, table): rows} for many tables of one catalog, read in one JVM."""
    args = []
    for ns, table in tables:
        args += [_ns_string(ns), table]
    lines = _java("read-many", *_java_base_args(catalog_file, warehouse, catalog_name), *args)
    out = {}
    for ns, table in tables:
        name = f"{_ns_string(ns)}.{table}"
        schema = current_schema(_metadata_json(metadata_location(catalog_file, catalog_name, ns, table)))
        out[(ns, table)] = normalize_rows([x["row"] for x in lines if x["table"] == name], schema)
    return out


def list_java(catalog_file, warehouse, catalog_name):
    lines = _java("list", *_java_base_args(catalog_file, warehouse, catalog_name))
    return {
        "namespaces": sorted(x["namespace"] for x in lines if "namespace" in x),
        "tables": sorted(x["table"] for x in lines if "table" in x),
    }


def snapshots_java(catalog_file, warehouse, catalog_name, ns, table):
    return _java("snapshots", *_java_base_args(catalog_file, warehouse, catalog_name), _ns_string(ns), table)


def build_java():
    """Builds the Java reader now if it is not cached yet (first build: Maven downloads)."""
    subprocess.run(["bash", str(ICEBERG_JAVA), "build"], check=True, timeout=1800)


# ---------------------------------------------------------------------------
# DuckDB
# ---------------------------------------------------------------------------

def duckdb_python():
    """The Python of the DuckDB reader's own environment, created on first use."""
    key = hashlib.sha256(DUCKDB_REQUIREMENTS.read_bytes()).hexdigest()[:16]
    root = CACHE / "iceberg-duckdb"
    env = root / key
    python = env / "bin" / "python"
    if (env / "ready").exists():
        return python
    root.mkdir(parents=True, exist_ok=True)
    with open(root / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (env / "ready").exists():
            shutil.rmtree(env, ignore_errors=True)
            # The environment is built in place (a venv cannot be moved) and
            # marked ready only when complete.
            subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
            subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            "-r", str(DUCKDB_REQUIREMENTS)], check=True, timeout=1800)
            (env / "ready").touch()
    return python


def read_duckdb(catalog_file, warehouse, catalog_name, ns, table):
    if is_rest(catalog_file):
        return read_duckdb_many(catalog_file, warehouse, catalog_name, [(ns, table)])[(ns, table)]
    location = metadata_location(catalog_file, catalog_name, ns, table)
    proc = subprocess.run([str(duckdb_python()), str(pathlib.Path(__file__).resolve()), "duckdb-read", location],
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"DuckDB reader failed ({proc.returncode}) on {location}:\n{proc.stderr}")
    return json.loads(proc.stdout)


def read_duckdb_many(catalog_file, warehouse, catalog_name, tables):
    """{(ns, table): rows} for many tables of one catalog, read in one DuckDB process.

    A REST catalog is attached (ATTACH '' AS ... (TYPE iceberg, ENDPOINT ...)) and each table read as
    catalog.ns.table; the others are read by iceberg_scan of their metadata file. Tables in an s3://
    warehouse are read through httpfs with an S3 secret for the store of the environment."""
    locations = [metadata_location(catalog_file, catalog_name, ns, table) for ns, table in tables]
    if is_rest(catalog_file):
        names = [f"{_ns_string(ns)}.{table}" for ns, table in tables]
        request = {"endpoint": rest_uri(catalog_file), "credential": _rest_credential(),
                   "tables": [[name, location] for name, location in zip(names, locations)]}
        proc = subprocess.run([str(duckdb_python()), str(pathlib.Path(__file__).resolve()), "duckdb-read-rest",
                               json.dumps(request)], capture_output=True, text=True, timeout=1800)
        if proc.returncode != 0:
            raise RuntimeError(f"DuckDB reader failed ({proc.returncode}):\n{proc.stderr}")
        results = json.loads(proc.stdout)
        return {key: results[name] for key, name in zip(tables, names)}
    proc = subprocess.run([str(duckdb_python()), str(pathlib.Path(__file__).resolve()), "duckdb-read", *locations],
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"DuckDB reader failed ({proc.returncode}):\n{proc.stderr}")
    results = json.loads(proc.stdout)
    if len(locations) == 1:
        results = {locations[0]: results}
    return {key: results[location] for key, location in zip(tables, locations)}


def _duckdb_extension(name):
    """Path of a packaged DuckDB extension (duckdb-extension-<name>) for this DuckDB."""
    import importlib

    import duckdb

    pkg = importlib.import_module(f"duckdb_extension_{name}")
    path = pathlib.Path(pkg.__file__).parent / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no {name} extension for DuckDB {duckdb.__version__}")
    return path


def _duckdb_read_main(*locations):
    """Runs inside the DuckDB environment: prints the normalized rows as JSON.

    One location: its rows. Several: {location: rows}.
    """
    import duckdb

    con = duckdb.connect(config={"autoinstall_known_extensions": "false"})
    # DuckDB's own extension repository is not reachable from here (INSTALL
    # iceberg fails to connect): load the extensions shipped in Python
    # packages, pinned in duckdb-requirements.txt. iceberg needs avro; S3
    # goes through httpfs, with a secret for the endpoint cqlite wrote to.
    s3 = any(is_s3(location) for location in locations)
    for name in ("httpfs", "avro", "iceberg") if s3 else ("avro", "iceberg"):
        con.execute(f"LOAD '{_duckdb_extension(name)}'")
    con.execute("SET TimeZone = 'UTC'")
    if s3:
        _duckdb_s3_secret(con)
    results = {}
    rows = None
    for location in locations:
        try:
            cur = con.execute("SELECT * FROM iceberg_scan(?)", [location if is_s3(location) else _local_path(location)])
            rows = cur.to_arrow_table().to_pylist()
            results[location] = normalize_rows(rows, current_schema(_metadata_json(location, con)))
        except Exception as e:  # reported per table, so one bad table does not hide the others
            if len(locations) == 1:
                raise
            results[location] = {"error": f"{type(e).__name__}: {e}", "rows": repr(rows)[:2000]}
    json.dump(results[locations[0]] if len(locations) == 1 else results, sys.stdout)


def _duckdb_s3_secret(con):
    """An S3 secret for the endpoint and credentials of the environment (path-style, as cqlite addresses
    a store at an endpoint of its own)."""
    settings = s3_settings()
    quote = lambda text: "'" + text.replace("'", "''") + "'"  # noqa: E731
    options = [f"KEY_ID {quote(settings['key_id'])}", f"SECRET {quote(settings['secret'])}",
               f"REGION {quote(settings['region'])}"]
    endpoint = settings["endpoint"]
    if endpoint:
        parsed = urllib.parse.urlparse(endpoint)
        options += [f"ENDPOINT {quote(parsed.netloc)}", "URL_STYLE 'path'",
                    f"USE_SSL {'true' if parsed.scheme == 'https' else 'false'}"]
    con.execute(f"CREATE SECRET cqlite_s3 (TYPE s3, {', '.join(options)})")


def _duckdb_read_rest_main(request_json):
    """Runs inside the DuckDB environment: attaches a REST catalog and prints {"ns.table": rows}.

    DuckDB's iceberg extension talks to a REST catalog through the httpfs extension (both pinned in
    duckdb-requirements.txt); the credential, if any, goes in an iceberg secret (OAuth2 client credentials).
    Tables in an s3:// warehouse are read through httpfs with an S3 secret (_duckdb_s3_secret): the
    server hands out no S3 configuration."""
    import duckdb

    request = json.loads(request_json)
    con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
    for name in ("httpfs", "avro", "iceberg"):
        con.execute(f"LOAD '{_duckdb_extension(name)}'")
    con.execute("SET TimeZone = 'UTC'")
    if any(is_s3(location) for _name, location in request["tables"]):
        _duckdb_s3_secret(con)
    if request["credential"]:
        client_id, _, secret = request["credential"].rpartition(":")
        con.execute("CREATE SECRET rest_secret (TYPE iceberg, CLIENT_ID ?, CLIENT_SECRET ?, OAUTH2_SERVER_URI ?)"
                    .replace("?", "'{}'").format(client_id.replace("'", "''"), secret.replace("'", "''"),
                                                 request["endpoint"] + "/v1/oauth/tokens"))
        con.execute(f"ATTACH '' AS rest_catalog (TYPE iceberg, ENDPOINT '{request['endpoint']}', "
                    "SECRET rest_secret)")
    else:
        con.execute(f"ATTACH '' AS rest_catalog (TYPE iceberg, ENDPOINT '{request['endpoint']}', "
                    "AUTHORIZATION_TYPE 'none')")
    results = {}
    for name, location in request["tables"]:
        rows = None
        try:
            ns, _, table = name.rpartition(".")
            quoted = ".".join('"' + part.replace('"', '""') + '"' for part in ("rest_catalog", ns, table))
            rows = con.execute(f"SELECT * FROM {quoted}").to_arrow_table().to_pylist()
            results[name] = normalize_rows(rows, current_schema(_metadata_json(location, con)))
        except Exception as e:  # reported per table, so one bad table does not hide the others
            results[name] = {"error": f"{type(e).__name__}: {e}", "rows": repr(rows)[:2000]}
    json.dump(results, sys.stdout)


# ---------------------------------------------------------------------------

READERS = {"pyiceberg": read_pyiceberg, "duckdb": read_duckdb, "java": read_java}


def read_all(catalog_file, warehouse, catalog_name, ns, table, readers=READERS):
    """{reader name: rows} for every reader."""
    return {name: read(catalog_file, warehouse, catalog_name, ns, table) for name, read in readers.items()}


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "duckdb-read":
        _duckdb_read_main(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "duckdb-read-rest":
        _duckdb_read_rest_main(sys.argv[2])
    else:
        sys.exit("usage: iceberg_readers.py duckdb-read <metadata location>...")
