"""`cqlite materialize` given input it must refuse, and a key it cannot make identifier fields of.

Each refused input (a column type without an Iceberg form, a catalog file
that is not a catalog, a warehouse that cannot be written, namespace or table
names with path separators, dots or quotes) must give a non-zero exit, one
line on stderr naming the problem, and commit nothing: an existing catalog
stays byte-for-byte the same and no file appears in its warehouse; with a
fresh warehouse, bad names create nothing at all.

A table whose key has float or double columns is materialized without
identifier fields (DESIGN D7), with a warning naming the column, and reads
back (PyIceberg, DuckDB) equal to `cqlite select` and to the node's own
SELECT JSON.

The tables come from a real Cassandra 5.0 node (see test_materialize_faults.py,
which generates and caches them).
"""
import json
import os
import pathlib
import shutil
import sqlite3

import pytest

import cql_json
import iceberg_readers
from test_materialize_faults import copy_source, generate_node_tables

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE_TABLE = next((REPO / "examples" / "data" / "shop").glob("orders-*"))
CATALOG_NAME = "cqlite"
NOW = 1_900_000_000


@pytest.fixture(scope="module")
def node_tables(oracle):
    return generate_node_tables(oracle)


@pytest.fixture(scope="module")
def sources(node_tables, tmp_path_factory):
    """Copies of the node's odd tables, each with its keyspace's schema.cql: name -> table directory."""
    root = tmp_path_factory.mktemp("odd-sources")
    return {
        "readings": copy_source(node_tables, "odd", "readings", root, 2),
        "gauges": copy_source(node_tables, "odd", "gauges", root, 2),
        "custom": copy_source(node_tables, "odd", "custom", root, 1),
        "empties": copy_source(node_tables, "oddempty", "empties", root, 1),
    }


def _tree(path):
    """Every file under path with its size (and the catalog's bytes): what a refused run must not change."""
    path = pathlib.Path(path)
    if not path.exists():
        return None
    return sorted((str(p.relative_to(path)), p.stat().st_size if p.is_file() else -1) for p in path.rglob("*"))


@pytest.fixture
def committed(cqlite, tmp_path):
    """A warehouse whose catalog holds one committed table (shop.orders of examples/data)."""
    warehouse = tmp_path / "warehouse"
    cqlite("materialize", EXAMPLE_TABLE, "--warehouse", warehouse, "--now", NOW, "-q")
    catalog = warehouse / "catalog.db"
    before = (catalog.read_bytes(), _tree(warehouse))

    def unchanged():
        assert catalog.read_bytes() == before[0], "the catalog file changed"
        assert _tree(warehouse) == before[1], "files appeared or changed in the warehouse"

    return warehouse, unchanged


def _refused(proc, *fragments):
    """A non-zero exit and one line on stderr holding every fragment."""
    assert proc.returncode != 0, f"exit 0 for input that must be refused:\n{proc.stdout}"
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got:\n{proc.stderr}"
    for fragment in fragments:
        assert fragment in lines[0], f"{fragment!r} missing from the error: {lines[0]}"
    return lines[0]


def _tables_in(catalog):
    if not pathlib.Path(catalog).exists():
        return []
    con = sqlite3.connect(f"file:{catalog}?mode=ro", uri=True)
    try:
        return con.execute("SELECT table_namespace, table_name FROM iceberg_tables").fetchall()
    finally:
        con.close()


# ---------------------------------------------------------------------------
# Column types without an Iceberg form
# ---------------------------------------------------------------------------

UNSUPPORTED = {
    # A custom type, from the keyspace's schema.cql as the node described it.
    "dynamic-composite": ("custom", None, ["column v of odd.custom", "DynamicCompositeType", "no Iceberg form"]),
    # The empty type given by its class name in a --schema file.
    "empty-by-class": ("empties", "CREATE TABLE oddempty.empties (k int PRIMARY KEY, "
                                  "v 'org.apache.cassandra.db.marshal.EmptyType');\n",
                       ["column v of oddempty.empties", "empty", "no Iceberg form"]),
    # The node's own schema.cql spells it `empty`, which no CQL type is.
    "empty-as-described": ("empties", None, ["schema.cql", "'empty'"]),
}


@pytest.mark.parametrize("case", sorted(UNSUPPORTED))
def test_a_column_type_without_an_iceberg_form_is_refused(case, sources, committed, cqlite, tmp_path):
    table, schema, fragments = UNSUPPORTED[case]
    extra = []
    if schema:
        (tmp_path / "schema.cql").write_text(schema)
        extra = ["--schema", tmp_path / "schema.cql"]
    warehouse, unchanged = committed
    proc = cqlite("materialize", sources[table], "--warehouse", warehouse, "--now", NOW, *extra, check=False)
    _refused(proc, *fragments)
    unchanged()
    # Into a fresh warehouse: no table is created.
    fresh = tmp_path / "fresh"
    proc = cqlite("materialize", sources[table], "--warehouse", fresh, "--now", NOW, *extra, check=False)
    _refused(proc, *fragments)
    assert _tables_in(fresh / "catalog.db") == []
    assert [p for p in fresh.rglob("*") if p.name != "catalog.db"] == []


# ---------------------------------------------------------------------------
# Catalog files that are not catalogs
# ---------------------------------------------------------------------------

def _random_bytes(path):
    path.write_bytes(os.urandom(8192))


def _text(path):
    path.write_text("catalog_name,table_namespace\ncqlite,shop\n")


def _foreign_iceberg_tables(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE iceberg_tables (id INTEGER PRIMARY KEY, payload TEXT)")
    con.execute("INSERT INTO iceberg_tables VALUES (1, 'not a catalog row')")
    con.commit()
    con.close()


def _directory(path):
    path.mkdir()


NOT_CATALOGS = {
    "random-bytes": (_random_bytes, "is not a SQLite database"),
    "text": (_text, "is not a SQLite database"),
    "sqlite-with-another-iceberg-tables": (_foreign_iceberg_tables, "not an Iceberg catalog"),
    "directory": (_directory, "cannot open"),
}


@pytest.mark.parametrize("case", sorted(NOT_CATALOGS))
def test_a_catalog_file_that_is_not_a_catalog_is_refused(case, cqlite, tmp_path):
    make, message = NOT_CATALOGS[case]
    catalog = tmp_path / "catalog.db"
    make(catalog)
    before = catalog.read_bytes() if catalog.is_file() else None
    warehouse = tmp_path / "warehouse"
    proc = cqlite("materialize", EXAMPLE_TABLE, "--warehouse", warehouse, "--catalog", f"sqlite:{catalog}",
                  "--now", NOW, check=False)
    _refused(proc, str(catalog), message)
    if before is not None:
        assert catalog.read_bytes() == before, "the file changed"
    else:
        assert catalog.is_dir() and not any(catalog.iterdir())
    assert not warehouse.exists() or not any(warehouse.iterdir()), sorted(warehouse.rglob("*"))


def test_a_sqlite_file_with_other_tables_gains_the_catalog_tables_and_keeps_its_own(cqlite, tmp_path):
    """The catalog shares a SQLite file with other tables, as the JDBC catalog does (sql_catalog.h): they
    are left as they were."""
    catalog = tmp_path / "app.db"
    con = sqlite3.connect(catalog)
    con.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    con.executemany("INSERT INTO users VALUES (?, ?)", [(1, "ann"), (2, "bob")])
    con.commit()
    con.close()
    warehouse = tmp_path / "warehouse"
    cqlite("materialize", EXAMPLE_TABLE, "--warehouse", warehouse, "--catalog", catalog, "--now", NOW, "-q")
    con = sqlite3.connect(catalog)
    assert con.execute("SELECT * FROM users ORDER BY id").fetchall() == [(1, "ann"), (2, "bob")]
    con.close()
    rows = iceberg_readers.read_pyiceberg(catalog, warehouse, CATALOG_NAME, "shop", "orders")
    selected = cqlite("select", EXAMPLE_TABLE, "--now", NOW).stdout.splitlines()
    assert rows and len(rows) == len(selected)


# ---------------------------------------------------------------------------
# Warehouses that cannot be written
# ---------------------------------------------------------------------------

def test_a_warehouse_under_a_regular_file_is_refused(committed, cqlite, tmp_path):
    warehouse, unchanged = committed
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    target = blocker / "warehouse"
    proc = cqlite("materialize", EXAMPLE_TABLE, "--warehouse", target, "--catalog", warehouse / "catalog.db",
                  "--namespace", "elsewhere", "--now", NOW, check=False)
    _refused(proc, "cannot create the warehouse", str(target))
    unchanged()
    assert blocker.read_text() == "x"


def test_a_table_directory_that_cannot_be_created_is_refused(committed, cqlite):
    """<warehouse>/<namespace> is a regular file: the table's directories cannot be made."""
    warehouse, _ = committed
    (warehouse / "blocked").write_text("x")
    catalog = warehouse / "catalog.db"
    before = (catalog.read_bytes(), _tree(warehouse))
    proc = cqlite("materialize", EXAMPLE_TABLE, "--warehouse", warehouse, "--namespace", "blocked", "--now", NOW,
                  check=False)
    _refused(proc, str(warehouse / "blocked"), "nothing committed")
    assert catalog.read_bytes() == before[0]
    assert _tree(warehouse) == before[1]


def test_a_read_only_warehouse_is_refused(committed, cqlite):
    if os.geteuid() == 0:
        pytest.skip("SKIPPED: running as root, where directory permissions do not stop writes; "
                    "the unwritable warehouse is covered by the regular-file cases above")
    warehouse, unchanged = committed
    catalog = warehouse / "catalog.db"
    (warehouse / "shop").chmod(0o555)
    (warehouse / "shop" / "orders").chmod(0o555)
    try:
        proc = cqlite("materialize", EXAMPLE_TABLE, "--warehouse", warehouse, "--table", "orders2", "--now", NOW,
                      check=False)
        _refused(proc, str(warehouse / "shop" / "orders2"), "nothing committed")
    finally:
        (warehouse / "shop").chmod(0o755)
        (warehouse / "shop" / "orders").chmod(0o755)
    unchanged()
    assert catalog.exists()


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------

BAD_NAMES = [
    ("--namespace", "a/b", "'/'"),
    ("--namespace", "a.b", "'.'"),
    ("--namespace", "..", "'.'"),
    ("--namespace", "x'y", "'''"),
    ("--namespace", 'x"y', "'\"'"),
    ("--namespace", "a\\b", "'\\'"),
    ("--table", "x'y", "'''"),
    ("--table", "a/b", "'/'"),
    ("--table", "../up", "'.'"),
    ("--table", "a.b", "'.'"),
    ("--table", 'q"', "'\"'"),
]


@pytest.mark.parametrize("option,name,character", BAD_NAMES, ids=[f"{o[2:]}={n}" for o, n, _ in BAD_NAMES])
def test_a_bad_namespace_or_table_name_is_refused(option, name, character, committed, cqlite, tmp_path):
    warehouse, unchanged = committed
    proc = cqlite("materialize", EXAMPLE_TABLE, "--warehouse", warehouse, option, name, "--now", NOW, check=False)
    line = _refused(proc, name, character)
    assert ("namespace" if option == "--namespace" else "table name") in line
    unchanged()
    # Nothing at all is created for a fresh warehouse.
    fresh = tmp_path / "fresh"
    proc = cqlite("materialize", EXAMPLE_TABLE, "--warehouse", fresh, option, name, "--now", NOW, check=False)
    _refused(proc, name)
    assert not fresh.exists(), sorted(fresh.rglob("*"))


# ---------------------------------------------------------------------------
# Float and double keys
# ---------------------------------------------------------------------------

def _node_select(node_tables, table, n):
    lines = (node_tables / "odd" / f"{table}.select{n}.jsonl").read_text().splitlines()
    return lines[1:]


@pytest.mark.parametrize("table,column", [("readings", "at (double)"), ("gauges", "g (float)")])
def test_a_float_or_double_key_gives_a_table_without_identifier_fields(table, column, sources, node_tables, cqlite,
                                                                      tmp_path):
    warehouse = tmp_path / "warehouse"
    catalog = warehouse / "catalog.db"
    source_root = tmp_path / "source"
    # One generation at a time: the second run rewrites and deletes rows keyed by floating-point values.
    for count in (1, 2):
        source = copy_source(node_tables, "odd", table, source_root, count)
        proc = cqlite("materialize", source, "--warehouse", warehouse, "--now", NOW, "--json", check=False)
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)["tables"][0]
        assert report["committed"] and report["generations_consumed"] == 1, report
        assert column in report["warning"] and "identifier" in report["warning"], report
        warnings = [ln for ln in proc.stderr.splitlines() if "warning" in ln]
        assert len(warnings) == 1 and column in warnings[0], proc.stderr
        metadata = json.loads(pathlib.Path(report["metadata_location"]).read_text())
        schema = iceberg_readers.current_schema(metadata)
        assert not schema.get("identifier-field-ids"), schema
        expected = cql_json.mask_rows(
            cql_json.rows_from_select_json(cqlite("select", source, "--now", NOW).stdout.splitlines(), schema),
            schema)
        actual = iceberg_readers.read_pyiceberg(catalog, warehouse, CATALOG_NAME, "odd", table)
        assert cql_json.mask_rows(actual, schema) == expected, (actual, expected)
        if count == 1:
            assert report["rows_deleted"] == 0
        else:
            assert report["rows_deleted"] > 0, report  # an overwritten and a deleted row
    node_rows = cql_json.mask_rows(cql_json.rows_from_select_json(
        _node_select(node_tables, table, 1), schema), schema)
    assert expected == node_rows
    duck = iceberg_readers.read_duckdb(catalog, warehouse, CATALOG_NAME, "odd", table)
    assert cql_json.mask_rows(duck, schema) == expected
