"""Comparing a table's rows as Cassandra (or `cqlite select`) prints them with
the rows an Iceberg reader returns, through DESIGN's type mapping
(cql_json.py) and with the readers' known allowances."""
import json

import cql_json
import iceberg_readers


def expected_rows(lines, schema):
    """The node's (or cqlite select's) rows as the Iceberg table holds them: a partition with only
    static data is a result row with null clustering columns in Cassandra, and no row in the
    table (DESIGN D7); key columns are the schema's required fields."""
    keys = [f["name"] for f in schema["fields"] if f["required"]]
    rows = cql_json.rows_from_select_json(lines, schema)
    return [r for r in rows if all(r[k] is not None for k in keys)]


def pyiceberg_view(rows, schema):
    """`rows` as PyIceberg reads them (iceberg_readers.as_pyiceberg_reads)."""
    struct = {"type": "struct", "fields": schema["fields"]}
    return iceberg_readers.sort_rows([iceberg_readers.as_pyiceberg_reads(r, struct) for r in rows])


def differs(expected, actual, schema):
    """None when equal (NaN, infinities and nulls of floats alike: SELECT JSON prints all as null),
    else what differs."""
    expected, actual = cql_json.mask_rows(expected, schema), cql_json.mask_rows(actual, schema)
    return None if expected == actual else _diff(expected, actual)


def _diff(expected, actual):
    missing = [r for r in expected if r not in actual]
    extra = [r for r in actual if r not in expected]
    return (f"{len(expected)} rows expected, {len(actual)} read; missing {json.dumps(missing[:3])}; "
            f"unexpected {json.dumps(extra[:3])}")


def check_readers(catalog, warehouse, catalog_name, ns, table, lines, schema, what):
    """Asserts that PyIceberg and DuckDB both read the table equal to `lines` (SELECT JSON * output);
    returns the expected rows and DuckDB's."""
    expected = expected_rows(lines, schema)
    py = iceberg_readers.read_pyiceberg(catalog, warehouse, catalog_name, ns, table)
    problem = differs(pyiceberg_view(expected, schema), py, schema)
    assert problem is None, f"{ns}.{table}: PyIceberg vs {what}: {problem}"
    duck = iceberg_readers.read_duckdb(catalog, warehouse, catalog_name, ns, table)
    # A REST catalog's tables are read in one DuckDB process, which reports a table it fails on.
    assert not isinstance(duck, dict), f"{ns}.{table}: DuckDB failed: {duck.get('error')}"
    problem = differs(expected, duck, schema)
    assert problem is None, f"{ns}.{table}: DuckDB vs {what}: {problem}"
    return expected, duck
