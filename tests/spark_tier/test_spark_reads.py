"""The slower tier: Spark 3.5 with the Iceberg Spark runtime reads every table
`cqlite materialize` writes, and must see what the other readers see.

  - examples/data (shop.orders, shop.price_points) materialized into a fresh
    warehouse: Spark's rows equal DuckDB's and Iceberg Java's, and PyIceberg's
    (through PyIceberg's known reading of null lists of structs, as in
    test_materialize);
  - seeded workloads replayed on a real Cassandra node and materialized
    generation by generation exactly as test_materialize does (its helpers
    are reused): Spark's rows of each final table equal the node's own
    `SELECT JSON *` answer (NaN and infinities masked as test_materialize
    does), DuckDB's read and PyIceberg's read.

  - the same tables as Iceberg v3 tables (deletion vectors, row lineage;
    test_materialize.materialize_v3_tables): Spark's rows equal the node's;
  - the tier's tables after `cqlite maintain` (data files rewritten, every
    snapshot but the current one expired, orphans removed): Spark's rows
    equal the node's, and equal what Spark read before;
  - test_maintain's table of fifty runs, before and after its maintenance:
    Spark's rows equal the node's both times.

The Iceberg Spark runtime has no Spark type for Iceberg's `time` and refuses
to load a table with a time column ("Spark does not support time fields").
Such tables are not compared; a test checks that they are the only tables
Spark refuses, with that reason. Those same tables published again with
`--time-as long` (each time a long of nanoseconds since midnight, nested
ones too) are read by Spark, and must equal the node's answer to the
nanosecond.

Environment: CQLITE_SPARK_TIER_SEED (default 7), CQLITE_SPARK_TIER_WORKLOADS
(default 40: the workloads of test_materialize's default run),
CQLITE_SPARK_TIER_INDEXES (a comma-separated subset of those).
"""
import json
import os
import pathlib
import shutil
import tempfile

import pytest

import iceberg_readers
import node_runs
import table_compare
import test_materialize as tm
from test_maintain import KEYSPACE as CHURN_KEYSPACE, churned, maintained  # noqa: F401 (fixtures)
from spark_reader import build_spark, read_spark_many, refused_for_time, schema_has_time, table_had_time

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "data"
CATALOG_NAME = "cqlite"
SEED = int(os.environ.get("CQLITE_SPARK_TIER_SEED", "7"))
COUNT = int(os.environ.get("CQLITE_SPARK_TIER_WORKLOADS", "40"))
_indexes = os.environ.get("CQLITE_SPARK_TIER_INDEXES")
INDEXES = [int(i) for i in _indexes.split(",")] if _indexes else list(range(COUNT))

SUMMARY = {}


def _schema(catalog, ns, table):
    location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, ns, table)
    return iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))


def _first_difference(a, b):
    missing = [r for r in a if r not in b]
    extra = [r for r in b if r not in a]
    return f"{len(a)} rows vs {len(b)}; only in the first {json.dumps(missing[:3])}; only in Spark's {json.dumps(extra[:3])}"


def _compare(name, spark_rows, other_rows):
    return None if spark_rows == other_rows else f"{name} vs Spark: {_first_difference(other_rows, spark_rows)}"


@pytest.fixture(scope="session", autouse=True)
def spark_built():
    build_spark()


# ---------------------------------------------------------------------------
# examples/data
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def examples(cqlite):
    root = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-spark-examples-"))
    warehouse = root / "warehouse"
    proc = cqlite("materialize", EXAMPLES, "--warehouse", warehouse, "--json")
    report = json.loads(proc.stdout)
    catalog = warehouse / "catalog.db"
    tables = [tuple(t) for t in iceberg_readers.list_pyiceberg(catalog, warehouse, CATALOG_NAME)["tables"]]
    reads = {
        "Spark": read_spark_many(catalog, warehouse, CATALOG_NAME, tables),
        "DuckDB": iceberg_readers.read_duckdb_many(catalog, warehouse, CATALOG_NAME, tables),
        "Iceberg Java": iceberg_readers.read_java_many(catalog, warehouse, CATALOG_NAME, tables),
        "PyIceberg": {t: iceberg_readers.read_pyiceberg(catalog, warehouse, CATALOG_NAME, *t) for t in tables},
    }
    yield catalog, warehouse, tables, reads, report
    shutil.rmtree(root, ignore_errors=True)


def test_examples_are_the_two_shop_tables(examples):
    _catalog, _warehouse, tables, _reads, report = examples
    assert sorted(tables) == [("shop", "orders"), ("shop", "price_points")], (tables, report)


@pytest.mark.parametrize("table", ["orders", "price_points"])
def test_examples_spark_reads_what_the_others_read(examples, table):
    catalog, _warehouse, _tables, reads, _report = examples
    key = ("shop", table)
    spark = reads["Spark"][key]
    assert not isinstance(spark, dict), spark
    assert spark, "the example table is not empty"
    schema = _schema(catalog, *key)
    problems = [p for p in (
        _compare("DuckDB", spark, reads["DuckDB"][key]),
        _compare("Iceberg Java", spark, reads["Iceberg Java"][key]),
        _compare("PyIceberg", table_compare.pyiceberg_view(spark, schema), reads["PyIceberg"][key]),
    ) if p]
    SUMMARY.setdefault("examples", {})[f"shop.{table}"] = len(spark)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------
# Seeded workloads on a Cassandra node, materialized as test_materialize does
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def node(oracle):
    root = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-spark-node-", dir=node_runs.work_base()))
    print(f"spark tier: seed {SEED}, workloads {INDEXES[0]}..{INDEXES[-1]} of {COUNT} in {root}")
    yield node_runs.replay(oracle, SEED, COUNT, INDEXES, root, 250)
    shutil.rmtree(root, ignore_errors=True)


class Tier:
    def __init__(self, m):
        self.m = m
        self.reads = {}      # reader name -> {(ns, table): rows}
        self.spark_problems = {}


@pytest.fixture(scope="module")
def tier(node, cqlite):
    root = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-spark-materialize-"))
    m = tm.Materialized(root)
    for index in INDEXES:
        tm._materialize_workload(index, node, cqlite, m)
    t = Tier(m)
    tables = [(ns, table) for ns, table, _rows, _now, _schema in m.final.values()]
    if tables:
        t.reads["Spark"] = read_spark_many(m.catalog, m.warehouse, CATALOG_NAME, tables)
        t.reads["DuckDB"] = iceberg_readers.read_duckdb_many(m.catalog, m.warehouse, CATALOG_NAME, tables)
        t.reads["PyIceberg"] = {k: iceberg_readers.read_pyiceberg(m.catalog, m.warehouse, CATALOG_NAME, *k)
                                for k in tables}
    SUMMARY["workloads"] = {"seed": SEED, "count": COUNT, "indexes": len(INDEXES), "tables": len(tables),
                            "runs": m.runs}
    yield t
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("index", INDEXES, ids=lambda i: f"w{i}")
def test_spark_reads_the_node_answer(index, node, tier):
    m = tier.m
    d = node.described[index]
    where = f"w{index} ({d['shape']}, {d['mode']} timestamps), seed {SEED}"
    if index not in m.final:
        pytest.fail(f"{where}: not materialized: " + "\n".join(m.problems.get(index, ["no generations"])),
                    pytrace=False)
    ns, table, expected, now, schema = m.final[index]
    spark = tier.reads["Spark"][(ns, table)]
    stats = SUMMARY.setdefault("spark", {"compared": 0, "rows": 0, "time_tables": 0})
    if table_had_time(m.catalog, CATALOG_NAME, ns, table):
        stats["time_tables"] += 1
        assert refused_for_time(spark), spark
        pytest.skip(f"{where}: has a time column, which the Iceberg Spark runtime cannot read")
    if isinstance(spark, dict):
        pytest.fail(f"{where}: Spark failed: {spark['error']}", pytrace=False)
    problems = []
    node_problem = table_compare.differs(expected, spark, schema)
    if node_problem:
        problems.append(f"Spark vs the node's SELECT JSON at {now}: {node_problem}")
    duck = tier.reads["DuckDB"][(ns, table)]
    problems.append(f"DuckDB failed: {duck['error']}" if isinstance(duck, dict) else _compare("DuckDB", spark, duck))
    problems.append(_compare("PyIceberg", table_compare.pyiceberg_view(spark, schema), tier.reads["PyIceberg"][(ns, table)]))
    problems = [p for p in problems if p]
    stats["compared"] += 1
    stats["rows"] += len(spark)
    if problems:
        pytest.fail(f"{where}:\n" + "\n".join(problems), pytrace=False)


def _spark_problems(reads, final, how, tier_catalog):
    """The tables of `final` whose Spark rows differ from the node's answer (time tables left out)."""
    problems, compared = [], 0
    for index, (ns, table, expected, now, schema) in sorted(final.items()):
        if table_had_time(tier_catalog, CATALOG_NAME, ns, table):
            continue
        rows = reads.get((ns, table))
        if rows is None:
            continue
        compared += 1
        problem = (f"Spark failed: {rows['error']}" if isinstance(rows, dict)
                   else table_compare.differs(expected, rows, schema))
        if problem:
            problems.append(f"w{index}{how}: Spark vs the node's SELECT JSON at {now}: {problem}")
    return problems, compared


def test_spark_reads_v3_tables_with_deletion_vectors(tier, cqlite):
    m = tier.m
    warehouse = m.root / "warehouse-v3"
    tables, vectors, problems = tm.materialize_v3_tables(m, cqlite, warehouse)
    reads = read_spark_many(warehouse / "catalog.db", warehouse, CATALOG_NAME, tables)
    spark_problems, compared = _spark_problems(reads, m.final, " (v3)", m.catalog)
    SUMMARY["v3"] = {"tables": len(tables), "puffin_files": vectors, "spark_compared": compared}
    assert vectors > 0 and compared > 0
    assert not problems + spark_problems, "\n".join(problems + spark_problems)


def test_spark_reads_the_tables_after_maintain(tier, cqlite):
    m = tier.m
    proc = cqlite("maintain", "--warehouse", m.warehouse, "--expire-older-than", "0s", "--retain-last", "1",
                  "--orphan-age", "0s", "--json")
    report = json.loads(proc.stdout)["tables"]
    tables = [(ns, table) for ns, table, _rows, _now, _schema in m.final.values()]
    reads = read_spark_many(m.catalog, m.warehouse, CATALOG_NAME, tables)
    problems, compared = _spark_problems(reads, m.final, " (maintained)", m.catalog)
    for key, rows in tier.reads["Spark"].items():
        if not isinstance(rows, dict) and reads[key] != rows:
            problems.append(f"{key}: Spark reads other rows after maintain than before")
    SUMMARY["maintained"] = {"tables": len(report), "rewritten": sum(r["data_files_rewritten"] for r in report),
                             "expired": sum(r["snapshots_expired"] for r in report), "spark_compared": compared}
    assert compared > 0 and sum(r["data_files_rewritten"] for r in report) > 0, report
    assert not problems, "\n".join(problems)


def _spark_reads_churned(m):
    key = (CHURN_KEYSPACE, m.table)
    rows = read_spark_many(m.catalog, m.warehouse, CATALOG_NAME, [key])[key]
    assert not isinstance(rows, dict), rows
    schema = _schema(m.catalog, *key)
    problem = table_compare.differs(table_compare.expected_rows(m.selects[0][1], schema), rows, schema)
    assert not problem, f"Spark vs the node's SELECT JSON: {problem}"
    return rows


def test_spark_reads_the_fifty_run_table_before_maintain(churned):
    churned.spark_before = _spark_reads_churned(churned)


def test_spark_reads_the_fifty_run_table_after_maintain(maintained):
    after = _spark_reads_churned(maintained)
    assert after == maintained.spark_before
    SUMMARY["fifty_runs"] = {"rows": len(after), "report": {k: maintained.report[k] for k in (
        "data_files_rewritten", "delete_files_removed", "snapshots_expired", "orphans_removed")}}


def test_spark_refuses_only_tables_with_time_columns(tier):
    refused, timed = set(), set()
    for ns, table, _rows, _now, _schema in tier.m.final.values():
        rows = tier.reads["Spark"][(ns, table)]
        if isinstance(rows, dict):
            assert refused_for_time(rows), (ns, table, rows)
            refused.add((ns, table))
        if table_had_time(tier.m.catalog, CATALOG_NAME, ns, table):
            timed.add((ns, table))
    assert refused == timed


def _node_answer(node, index, now):
    """The node's SELECT JSON lines for workload `index` at query time `now`."""
    for path in node.selects(index):
        at, lines = node_runs.read_select(path)
        if at == now:
            return lines
    raise AssertionError(f"w{index}: no SELECT JSON at {now}")


def test_spark_reads_the_time_tables_published_with_time_as_long(node, tier, cqlite):
    """The tier's tables with time columns, published again (all their generations in one run) with
    --time-as long into a warehouse of their own: Spark reads each, equal to the node's answer with
    every time as its nanoseconds since midnight."""
    m = tier.m
    warehouse = m.root / "warehouse-time-as-long"
    catalog = warehouse / "catalog.db"
    tables, expected, problems = [], {}, []
    for index, (ns, table, _rows, now, schema) in sorted(m.final.items()):
        if not table_had_time(m.catalog, CATALOG_NAME, ns, table):
            continue
        source = next((m.root / "source" / ns).glob(table + "-*"))
        proc, _report = tm._materialize(cqlite, source, warehouse, now, "--time-as", "long")
        if proc.returncode != 0:
            problems.append(f"w{index}: cqlite materialize --time-as long failed: {proc.stderr.strip()}")
            continue
        long_schema = _schema(catalog, ns, table)
        if schema_has_time(long_schema):
            problems.append(f"w{index}: --time-as long left a time field: {json.dumps(long_schema)}")
            continue
        tables.append((ns, table))
        expected[(ns, table)] = (index, now, long_schema,
                                 table_compare.expected_rows(_node_answer(node, index, now), long_schema))
    reads = read_spark_many(catalog, warehouse, CATALOG_NAME, tables) if tables else {}
    rows = 0
    for key, (index, now, long_schema, want) in sorted(expected.items()):
        got = reads[key]
        problem = (f"Spark failed: {got['error']}" if isinstance(got, dict)
                   else table_compare.differs(want, got, long_schema))
        if problem:
            problems.append(f"w{index} (--time-as long): Spark vs the node's SELECT JSON at {now}: {problem}")
        else:
            rows += len(got)
    SUMMARY["time_as_long"] = {"tables": len(tables), "rows": rows}
    print(f"spark tier: {len(tables)} tables with time columns published with --time-as long, {rows} rows "
          "read by Spark equal to the node's")
    assert tables, "no workload table has a time column"
    assert not problems, "\n".join(problems)


def pytest_terminal_summary_line():
    return json.dumps(SUMMARY, sort_keys=True)
