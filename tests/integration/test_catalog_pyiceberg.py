"""Independent-reader checks of CQLite's Iceberg SQL catalog.

`catalog_tool` (src/catalog/tools) runs single SqlCatalog operations on a
catalog: a SQLite file, and a PostgreSQL database (tests/postgres_server.sh).
PyIceberg's SqlCatalog opens the same catalog both ways round: it must see
the namespaces and tables our code registered (and commit to them), and our
code must list, load and compare-and-swap tables PyIceberg created, leaving
PyIceberg's tables loadable with their data.
"""
import os
import pathlib
import subprocess
import threading

import pytest

import iceberg_readers
from conftest import cqlite_binary

pa = pytest.importorskip("pyarrow")
pytest.importorskip("sqlalchemy")
sql_catalog = pytest.importorskip("pyiceberg.catalog.sql")

CATALOG_NAME = "cqlite"
EXIT_CONFLICT = 3


def tool_binary() -> pathlib.Path:
    explicit = os.environ.get("CQLITE_CATALOG_TOOL_BIN")
    if explicit:
        return pathlib.Path(explicit)
    # <build>/src/cli/cqlite -> <build>/src/catalog/catalog_tool
    return cqlite_binary().resolve().parents[2] / "src" / "catalog" / "catalog_tool"


@pytest.fixture(scope="module")
def tool():
    binary = tool_binary()
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build the catalog_tool target first")

    def run(*args, expect=0):
        proc = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, timeout=120)
        if expect is not None and proc.returncode != expect:
            raise AssertionError(
                f"catalog_tool {' '.join(map(str, args))} exited {proc.returncode}, expected {expect}:\n"
                f"{proc.stdout}{proc.stderr}")
        return proc

    return run


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    """The catalog: a SQLite file's path, or a PostgreSQL database's URI."""
    if request.param == "postgresql":
        return request.getfixturevalue("postgres_catalog")
    return tmp_path / "catalog.db"


def open_pyiceberg(db, warehouse: pathlib.Path, name: str = CATALOG_NAME):
    warehouse.mkdir(parents=True, exist_ok=True)
    return sql_catalog.SqlCatalog(name, uri=iceberg_readers.sqlalchemy_uri(db), warehouse=f"file://{warehouse}")


def listing(tool, db):
    """`catalog_tool list` as (namespaces, {(namespace, table): location})."""
    namespaces, tables = [], {}
    for line in tool("list", db).stdout.splitlines():
        fields = line.split("\t")
        if fields[0] == "namespace":
            namespaces.append(fields[1])
        else:
            assert fields[0] == "table", line
            tables[(fields[1], fields[2])] = fields[3]
    return namespaces, tables


def table_row(db, namespace, table, catalog_name=CATALOG_NAME):
    rows = iceberg_readers.catalog_query(
        db, "SELECT metadata_location, previous_metadata_location, iceberg_type FROM iceberg_tables "
            "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?",
        (catalog_name, namespace, table))
    return tuple(rows[0]) if rows else None


SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])


def batch(ids):
    return pa.table({"id": pa.array(ids, pa.int64()), "name": [f"n{i}" for i in ids]}, schema=SCHEMA)


def read_ids(table):
    return sorted(table.scan().to_arrow().column("id").to_pylist())


def test_pyiceberg_reads_the_catalog_we_write(tool, db, tmp_path):
    tool("create-namespace", db, "ks")
    tool("create-namespace", db, "a.b", f"location=file://{tmp_path}/wh/a/b", "owner=cqlite")
    tool("create-namespace", db, "ks")  # idempotent

    # A real table's metadata, written by PyIceberg through a scratch catalog,
    # registered in our catalog by our code.
    scratch = open_pyiceberg(tmp_path / "scratch.db", tmp_path / "wh", name="scratch")
    scratch.create_namespace("ks")
    source = scratch.create_table("ks.events", schema=SCHEMA)
    source.append(batch([1, 2, 3]))
    source = scratch.load_table("ks.events")
    tool("create-table", db, "ks", "events", source.metadata_location)

    catalog = open_pyiceberg(db, tmp_path / "wh")
    assert sorted(catalog.list_namespaces()) == [("a",), ("ks",)]
    assert catalog.list_namespaces("a") == [("a", "b")]
    assert catalog.namespace_exists("a.b")
    assert catalog.load_namespace_properties("ks") == {"exists": "true"}
    assert catalog.load_namespace_properties("a.b") == {
        "exists": "true", "location": f"file://{tmp_path}/wh/a/b", "owner": "cqlite"}
    assert catalog.list_tables("ks") == [("ks", "events")]
    assert catalog.list_tables("a.b") == []

    events = catalog.load_table("ks.events")
    assert events.metadata_location == source.metadata_location
    assert read_ids(events) == [1, 2, 3]
    assert table_row(db, "ks", "events") == (source.metadata_location, None, "TABLE")

    # PyIceberg commits onto the row our code created, with the same compare-and-swap.
    registered = events.metadata_location
    events.append(batch([4]))
    assert table_row(db, "ks", "events")[1] == registered
    assert tool("load", db, "ks", "events").stdout.strip() == events.metadata_location
    assert read_ids(open_pyiceberg(db, tmp_path / "wh").load_table("ks.events")) == [1, 2, 3, 4]


def test_we_read_and_commit_to_a_catalog_pyiceberg_writes(tool, db, tmp_path):
    warehouse = tmp_path / "wh"
    catalog = open_pyiceberg(db, warehouse)
    catalog.create_namespace("ks")
    catalog.create_namespace("other.sub", {"comment": "made by pyiceberg"})
    table_a = catalog.create_table("ks.a", schema=SCHEMA)
    table_a.append(batch([1, 2]))
    loc_a1 = catalog.load_table("ks.a").metadata_location
    table_a = catalog.load_table("ks.a")
    table_a.append(batch([3]))
    loc_a2 = catalog.load_table("ks.a").metadata_location
    table_b = catalog.create_table("ks.b", schema=SCHEMA)
    table_b.append(batch([10, 20, 30]))
    loc_b = catalog.load_table("ks.b").metadata_location
    # Rows of another catalog name in the same catalog database.
    other = open_pyiceberg(db, warehouse, name="someone_else")
    other.create_namespace("ks")
    other.create_table("ks.a", schema=SCHEMA).append(batch([99]))
    other_row = table_row(db, "ks", "a", "someone_else")

    namespaces, tables = listing(tool, db)
    assert namespaces == ["ks", "other.sub"]
    assert tables == {("ks", "a"): loc_a2, ("ks", "b"): loc_b}
    assert tool("namespace-exists", db, "other").stdout.strip() == "true"
    assert tool("list-tables", db, "ks").stdout.split() == ["a", "b"]

    # Compare-and-swap table A back to its earlier metadata, then forward again.
    tool("commit", db, "ks", "a", loc_a2, loc_a1)
    assert table_row(db, "ks", "a") == (loc_a1, loc_a2, "TABLE")
    assert read_ids(open_pyiceberg(db, warehouse).load_table("ks.a")) == [1, 2]
    stale = tool("commit", db, "ks", "a", loc_a2, loc_a2, expect=EXIT_CONFLICT)
    assert loc_a1 in stale.stderr
    assert table_row(db, "ks", "a") == (loc_a1, loc_a2, "TABLE")
    tool("commit", db, "ks", "a", loc_a1, loc_a2)
    assert table_row(db, "ks", "a") == (loc_a2, loc_a1, "TABLE")
    tool("create-table", db, "ks", "b", loc_a1, expect=EXIT_CONFLICT)
    tool("commit", db, "ks", "missing", loc_a1, loc_a2, expect=EXIT_CONFLICT)

    # PyIceberg's tables are intact and it can keep committing after us.
    fresh = open_pyiceberg(db, warehouse)
    assert read_ids(fresh.load_table("ks.a")) == [1, 2, 3]
    assert read_ids(fresh.load_table("ks.b")) == [10, 20, 30]
    assert fresh.load_table("ks.b").metadata_location == loc_b
    fresh.load_table("ks.a").append(batch([4]))
    assert read_ids(open_pyiceberg(db, warehouse).load_table("ks.a")) == [1, 2, 3, 4]
    assert table_row(db, "ks", "a")[1] == loc_a2
    assert table_row(db, "ks", "a", "someone_else") == other_row
    assert read_ids(open_pyiceberg(db, warehouse, name="someone_else").load_table("ks.a")) == [99]


def test_racing_processes_have_one_winner_per_round(tool, db):
    tool("create-namespace", db, "ks")
    tool("create-table", db, "ks", "t", "loc-0")
    current = "loc-0"
    for round_number in range(1, 11):
        results = {}

        def commit(writer):
            results[writer] = tool("commit", db, "ks", "t", current, f"loc-{round_number}-{writer}", expect=None)

        threads = [threading.Thread(target=commit, args=(w,)) for w in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        codes = sorted(proc.returncode for proc in results.values())
        assert codes == [0, EXIT_CONFLICT, EXIT_CONFLICT], {w: (p.returncode, p.stderr) for w, p in results.items()}
        winner = next(w for w, proc in results.items() if proc.returncode == 0)
        assert table_row(db, "ks", "t")[:2] == (f"loc-{round_number}-{winner}", current)
        current = f"loc-{round_number}-{winner}"


def test_a_file_that_is_not_a_database_is_left_untouched(tool, tmp_path):
    path = tmp_path / "notes.txt"
    content = b"this is not a catalog\n" * 300
    path.write_bytes(content)
    proc = tool("list", path, expect=1)
    assert str(path) in proc.stderr
    assert path.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
