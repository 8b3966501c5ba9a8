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


def _is_struct(itype):
    return isinstance(itype, dict) and itype["type"] == "struct"


def _as_pyiceberg_reads(value, itype):
    """`value` as PyIceberg 0.12 returns it: a null list of structs, or a null map with struct values,
    comes back empty (apache/iceberg-python#3833, open; its own test_null_list_and_map asserts it).
    DuckDB and Iceberg Java read the same files as null."""
    if value is None:
        rebuilt = isinstance(itype, dict) and (
            (itype["type"] == "list" and _is_struct(itype["element"]))
            or (itype["type"] == "map" and (_is_struct(itype["value"]) or _is_struct(itype["key"]))))
        return [] if rebuilt else None
    if isinstance(itype, dict):
        if itype["type"] == "list":
            return [_as_pyiceberg_reads(e, itype["element"]) for e in value]
        if itype["type"] == "map":
            return [[k, _as_pyiceberg_reads(v, itype["value"])] for k, v in value]
        if itype["type"] == "struct":
            return {f["name"]: _as_pyiceberg_reads(value[f["name"]], f["type"]) for f in itype["fields"]}
    return value


def pyiceberg_view(rows, schema):
    struct = {"type": "struct", "fields": schema["fields"]}
    return iceberg_readers.sort_rows([_as_pyiceberg_reads(r, struct) for r in rows])


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
