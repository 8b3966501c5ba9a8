"""`cqlite materialize --time-as long|string`: CQL `time` columns published as
an Iceberg long of the nanoseconds since midnight, or as a string as SELECT
JSON prints a time, for engines without Iceberg times (Spark), on the data
of a running Cassandra 5.0 node.

A table with times at the top level (a clustering column, a static and a
regular column) and nested (in a list, a set, a map's keys and values, a
tuple, a user type and a list of user types), with nanosecond digits, is
published once as longs and once as strings:

  - the Iceberg schema holds no `time`, only long (or string) where the
    times are, and the table records the choice (cqlite.time-as);
  - PyIceberg and DuckDB read both tables equal to the node's SELECT JSON *,
    every nanosecond kept (no --truncate-time);
  - after more writes, a run without --time-as keeps each table's choice,
    and the tables still equal the node;
  - a run whose --time-as differs from the table's choice fails with one
    line naming the table, and commits nothing.
"""
import json
import pathlib
import shutil
import tempfile

import pytest

import iceberg_readers
import live_node
import table_compare

KS = "times"
TABLE = "shifts"
CATALOG_NAME = "cqlite"
MODES = ("long", "string")


@pytest.fixture(scope="module")
def node(oracle):
    work = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-time-as-"))
    n = live_node.LiveNode(oracle, work / "node").start()
    n.cql(f"CREATE KEYSPACE {KS} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}")
    n.cql(f"CREATE TYPE {KS}.slot (name text, starts time)")
    n.cql(f"CREATE TABLE {KS}.{TABLE} (site int, at time, opens time static, t time, tl list<time>, ts set<time>, "
          "tm map<time, time>, tup tuple<time, int>, slot frozen<slot>, slots list<frozen<slot>>, "
          "PRIMARY KEY (site, at)) WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}")
    n.flush_schema()
    n.work = work
    yield n
    n.stop()
    shutil.rmtree(work, ignore_errors=True)


def _warehouse(node, mode):
    return node.work / f"warehouse-{mode}"


def _materialize(cqlite, node, mode, *extra, check=True):
    warehouse = _warehouse(node, mode)
    proc = cqlite("materialize", node.table_dir(KS, TABLE), "--warehouse", warehouse, "--json", "--threads", "2",
                  *extra, check=False)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def _metadata(node, mode):
    warehouse = _warehouse(node, mode)
    location = iceberg_readers.metadata_location(warehouse / "catalog.db", CATALOG_NAME, KS, TABLE)
    return json.loads(pathlib.Path(location).read_text())


def _types(itype):
    """Every primitive type name in an Iceberg type (metadata JSON)."""
    if isinstance(itype, dict):
        kind = itype["type"]
        if kind == "list":
            return _types(itype["element"])
        if kind == "map":
            return _types(itype["key"]) | _types(itype["value"])
        return set().union(*(_types(f["type"]) for f in itype["fields"]))
    return {itype}


def _check_equal_to_node(node, mode):
    now, lines = node.select(KS, TABLE)
    warehouse = _warehouse(node, mode)
    metadata = _metadata(node, mode)
    schema = iceberg_readers.current_schema(metadata)
    fields = {f["name"]: f["type"] for f in schema["fields"]}
    assert "time" not in _types({"type": "struct", "fields": schema["fields"]}), schema
    assert fields["at"] == fields["opens"] == fields["t"] == mode, schema
    assert fields["tm"]["key"] == fields["tm"]["value"] == fields["tl"]["element"] == mode, schema
    assert [f["type"] for f in fields["slot"]["fields"]] == ["string", mode], schema
    assert metadata["properties"]["cqlite.time-as"] == mode, metadata["properties"]
    expected, _duck = table_compare.check_readers(warehouse / "catalog.db", warehouse, CATALOG_NAME, KS, TABLE,
                                                  lines, schema, f"the node's SELECT JSON at {now}")
    return expected


def _slot(name, starts):
    return f"{{name: '{name}', starts: '{starts}'}}"


def test_times_as_longs_and_strings_equal_the_node(node, cqlite):
    """The first writes, published with --time-as long and --time-as string."""
    rows = [
        (1, "08:12:54.123456789", "07:00:00", "00:00:00", "23:59:59.999999999"),
        (1, "00:00:00", None, "12:30:00.000001", "00:00:00.000000001"),
        (2, "23:59:59.999999999", "06:15:30.5", "08:12:54.123456789", "13:14:15.161718192"),
        (3, "12:00:00.000000500", None, None, None),
    ]
    for site, at, opens, t, other in rows:
        columns = "site, at, t, tl, ts, tm, tup, slot, slots"
        t_value = f"'{t}'" if t else "null"
        nested = (f"['{other}', '{at}', '{other}']", f"{{'{other}', '{at}'}}", f"{{'{at}': '{other}'}}",
                  f"('{other}', {site})", _slot("day", other), f"[{_slot('a', at)}, {_slot('b', other)}]") \
            if other else ("null",) * 6
        node.cql(f"INSERT INTO {KS}.{TABLE} ({columns}) VALUES ({site}, '{at}', {t_value}, {', '.join(nested)})")
        if opens:
            node.cql(f"UPDATE {KS}.{TABLE} SET opens = '{opens}' WHERE site = {site}")
    node.flush(KS, TABLE)
    for mode in MODES:
        _materialize(cqlite, node, mode, "--time-as", mode)
        expected = _check_equal_to_node(node, mode)
        assert len(expected) == len(rows)


def test_a_later_run_without_the_option_keeps_the_tables_choice(node, cqlite):
    """More writes (changed, added and deleted times, a deleted row), published by runs without --time-as."""
    node.cql(f"UPDATE {KS}.{TABLE} SET t = '01:02:03.040506070', ts = ts + {{'22:22:22.222222222'}}, "
             "tm['00:00:00.000000002'] = '00:00:00.000000003' WHERE site = 1 AND at = '00:00:00'")
    node.cql(f"UPDATE {KS}.{TABLE} SET tl = tl + ['05:05:05.000000005'], opens = '09:00:00.000000009' "
             "WHERE site = 3 AND at = '12:00:00.000000500'")
    node.cql(f"DELETE FROM {KS}.{TABLE} WHERE site = 2 AND at = '23:59:59.999999999'")
    node.cql(f"INSERT INTO {KS}.{TABLE} (site, at, tup) VALUES (4, '17:45:00.999999999', ('17:45:01', 4))")
    node.flush(KS, TABLE)
    for mode in MODES:
        proc = _materialize(cqlite, node, mode)
        assert json.loads(proc.stdout)["tables"][0]["committed"], proc.stdout
        _check_equal_to_node(node, mode)


def test_a_run_asking_for_another_mapping_is_refused(node, cqlite):
    """--time-as time (or string) on the table published as longs: one line naming the table, nothing committed."""
    before = _metadata(node, "long")["current-snapshot-id"]
    for other in ("time", "string"):
        proc = _materialize(cqlite, node, "long", "--time-as", other, "--truncate-time", check=False)
        assert proc.returncode != 0, proc.stdout
        errors = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(errors) == 1, proc.stderr
        assert f"{KS}.{TABLE}" in errors[0] and "published as long" in errors[0], errors[0]
        assert f"--time-as {other}" in errors[0], errors[0]
    assert _metadata(node, "long")["current-snapshot-id"] == before
    # Asking for what the table records is fine (nothing new: nothing committed).
    proc = _materialize(cqlite, node, "long", "--time-as", "long")
    assert not json.loads(proc.stdout)["tables"][0]["committed"], proc.stdout
