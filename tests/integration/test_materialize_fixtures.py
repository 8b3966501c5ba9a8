"""`cqlite materialize` of the shared fixtures, read back by PyIceberg, DuckDB
and Iceberg Java.

Every fixture table of fixture_cases.py is materialized into one SQLite
catalog (namespace `fixtures`, one Iceberg table per case). Where the
documentation gives every row, each reader must return exactly those rows;
where it gives only some properties, or none, each reader must return the
rows of `cqlite select` over the same fixture (which test_select_fixtures.py
holds to the documented properties). A table with a column type that has no
Iceberg form must be refused with nothing committed. A case that documents a
known cqlite bug (xfail there) is expected to fail here too. Fixtures that are
one SSTable among others in a folder are copied into a table directory of
their own first.

Skips with a message when ../shared is absent.
"""
import json
import pathlib
import re
import shutil
import sqlite3
import tempfile

import pytest

import fixture_cases
import iceberg_readers
import table_compare
from conftest import FIXTURES

CATALOG_NAME = "cqlite"
NAMESPACE = "fixtures"
CASES = fixture_cases.CASES
# Fixtures materialize must refuse, and the reason it gives.
REFUSED = {
    # system.batches: its clustering column has PartitionerDefinedOrder, a custom type.
    "sstable-tools/mb-1 system.batches": "type 'PartitionerDefinedOrder' has no Iceberg form",
}


def table_name(case):
    name = case.id if case.now is None else f"{case.id} at {case.now}"
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _table_dir(case, scratch):
    """The fixture as a table directory: itself, or a copy of its one SSTable's components."""
    path = fixture_cases.resolve(case.path)
    if path.is_dir():
        return path
    copy = scratch / table_name(case)
    copy.mkdir(parents=True)
    prefix = path.name[:-len("Data.db")]
    for component in path.parent.glob(prefix + "*"):
        shutil.copy(component, copy / component.name)
    return copy


def _schema_args(case, scratch):
    if isinstance(case.schema, pathlib.Path):
        return ["--schema", case.schema]
    if case.schema:
        schema_file = scratch / f"{table_name(case)}.cql"
        schema_file.write_text(case.schema + "\n")
        return ["--schema", schema_file]
    return []


class Materialized:
    def __init__(self, root):
        self.root = root
        self.warehouse = root / "warehouse"
        self.catalog = self.warehouse / "catalog.db"
        self.problems = {}   # table name -> [messages]
        self.expected = {}   # table name -> (rows, Iceberg schema JSON, where the rows come from)

    def problem(self, case, message):
        self.problems.setdefault(table_name(case), []).append(message)


def _committed(m, case):
    try:
        iceberg_readers.metadata_location(m.catalog, CATALOG_NAME, NAMESPACE, table_name(case))
        return True
    except (LookupError, sqlite3.OperationalError):
        return False


def _materialize_case(case, cqlite, m):
    scratch = m.root / "scratch"
    scratch.mkdir(exist_ok=True)
    source = _table_dir(case, scratch)
    schema_args = _schema_args(case, scratch)
    now_args = ["--now", case.now] if case.now is not None else []
    proc = cqlite("materialize", source, "--warehouse", m.warehouse, "--namespace", NAMESPACE,
                  "--table", table_name(case), "--json", *schema_args, *now_args, check=False, timeout=900)
    if case.id in REFUSED:
        if proc.returncode == 0 or REFUSED[case.id] not in proc.stderr:
            m.problem(case, f"expected a refusal ({REFUSED[case.id]}), got exit {proc.returncode}: "
                            f"{proc.stderr.strip()}")
        elif _committed(m, case):
            m.problem(case, "refused, but a table was committed")
        return
    if proc.returncode != 0:
        m.problem(case, f"cqlite materialize failed: {proc.stderr.strip()}")
        return
    location = iceberg_readers.metadata_location(m.catalog, CATALOG_NAME, NAMESPACE, table_name(case))
    schema = iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))
    if case.rows is not None:
        lines = [json.dumps(row) for row in case.rows]
        origin = "the documented rows"
    else:
        select = cqlite("select", source, *schema_args, *now_args, timeout=900)
        lines = select.stdout.splitlines()
        origin = "cqlite select"
    expected = table_compare.expected_rows(lines, schema)
    m.expected[table_name(case)] = (expected, schema, origin)
    actual = iceberg_readers.read_pyiceberg(m.catalog, m.warehouse, CATALOG_NAME, NAMESPACE, table_name(case))
    problem = table_compare.differs(table_compare.pyiceberg_view(expected, schema), actual, schema)
    if problem:
        m.problem(case, f"PyIceberg vs {origin}: {problem}")


@pytest.fixture(scope="module")
def materialized(fixtures_dir, cqlite):
    root = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-materialize-fixtures-"))
    m = Materialized(root)
    for case in CASES:
        _materialize_case(case, cqlite, m)
    tables = [(NAMESPACE, table_name(c)) for c in CASES if table_name(c) in m.expected]
    documented = sum(1 for c in CASES if not c.skip)
    if tables:
        for name, read_many in (("DuckDB", iceberg_readers.read_duckdb_many),
                                ("Iceberg Java", iceberg_readers.read_java_many)):
            results = read_many(m.catalog, m.warehouse, CATALOG_NAME, tables)
            for case in CASES:
                if table_name(case) not in m.expected:
                    continue
                expected, schema, origin = m.expected[table_name(case)]
                rows = results[(NAMESPACE, table_name(case))]
                problem = (f"the reader failed: {rows['error']}" if isinstance(rows, dict)
                           else table_compare.differs(expected, rows, schema))
                if problem:
                    m.problem(case, f"{name} vs {origin}: {problem}")
    print(f"materialize fixtures: {len(tables)} of {len(CASES)} fixture tables ({documented} with documented "
          f"content) materialized and read by three readers, {len(REFUSED)} refused as expected")
    yield m
    shutil.rmtree(root, ignore_errors=True)


def test_table_names_are_distinct():
    assert len({table_name(c) for c in CASES}) == len(CASES)


def _params():
    for c in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else []
        yield pytest.param(c, id=c.id if c.now is None else f"{c.id}@{c.now}", marks=marks)


@pytest.mark.parametrize("case", list(_params()))
def test_readers_return_the_documented_rows(case, materialized):
    problems = materialized.problems.get(table_name(case))
    if problems:
        pytest.fail(f"{case.id} ({case.path}):\n" + "\n".join(problems), pytrace=False)
