"""`cqlite materialize` read back by independent Iceberg readers.

Seeded workloads (workloads.py) run on a real Cassandra 5.0 node, which
records its `SELECT JSON *` answers. About half of them alter their table
between flushes (columns added of every kind, dropped, added again; key
columns and user type fields renamed; fields added; options changed); the
node describes the keyspace after each phase, and every run below is given
the schema the table had when the newest generation it is offered was
written (`--schema`), so the published table evolves with it. For each
workload the table's flushed generations are offered to `cqlite materialize`
one more at a time, as a node flushes them, each run committing into one
shared SQLite catalog:

  - after every run the table PyIceberg reads equals `cqlite select` over the
    same generations with the same schema (value for value, through DESIGN's
    type mapping); the
    runs fold with 2, 1 and 3 threads in turn (--threads);
  - after the last generation it equals the node's own answer, as does the
    table made from "incremental backups" (each run offered only the newest
    generation, with --fold-fan-in 2, so that from the third run on each run
    first merges the kept facts, merged facts included), and so does
    the table after a further run at the node's later query time (TTLs that
    ran out in between: the run commits their removal and nothing else);
  - the generations offered in runs of random lengths (seeded), each run with
    a random number of threads from 1 to 4, give the table one run over all
    generations with one thread gives;
  - NaN and infinite floats compare equal to null, since SELECT JSON prints
    them as null (cql_json.mask_non_finite);
  - finally DuckDB's iceberg extension and the Iceberg Java library read every
    table and must agree with the node too, and a run with nothing new commits
    nothing;
  - every table materialized again into a catalog on a PostgreSQL server
    (tests/postgres_server.sh) reads equal to the node through that catalog,
    by PyIceberg, DuckDB and the Iceberg Java library;
  - and so does every table materialized into an s3:// warehouse on a real
    S3-compatible server (moto's, conftest.py's s3), its generations in two
    runs so that the second reads the fold state back from the bucket, read
    by PyIceberg (S3 FileIO), DuckDB (httpfs) and Iceberg Java (S3FileIO);
  - and so does every table materialized through Apache Iceberg's own REST
    catalog server (conftest.py's rest_catalog), its generations in two runs
    so that the second commits through the server, read through that server
    by PyIceberg (RestCatalog), DuckDB (ATTACH of a REST catalog) and Iceberg
    Java (RESTCatalog);
  - and so does every table materialized through that REST catalog server
    into an s3:// warehouse on moto's server (conftest.py's
    rest_catalog_on_s3: the server reads and writes its metadata files in the
    bucket), read through the server by the same three readers, each reaching
    the bucket with its S3 support.

Environment: CQLITE_MATERIALIZE_SEED (default 7), CQLITE_MATERIALIZE_WORKLOADS
(default 40; scripts/materialize_parity.sh runs 400), CQLITE_MATERIALIZE_ONLY
(comma-separated workload indexes: just those, as they are in a run of
CQLITE_MATERIALIZE_WORKLOADS; a workload depends only on the seed and its
index).
"""
import json
import os
import pathlib
import random
import shutil
import sqlite3
import tempfile

import pytest

import iceberg_readers
import node_runs
import table_compare

SEED = int(os.environ.get("CQLITE_MATERIALIZE_SEED", "7"))
COUNT = int(os.environ.get("CQLITE_MATERIALIZE_WORKLOADS", "40"))
ONLY = [int(x) for x in os.environ.get("CQLITE_MATERIALIZE_ONLY", "").replace(" ", "").split(",") if x]
INDEXES = sorted(set(ONLY)) if ONLY else list(range(COUNT))
CATALOG_NAME = "cqlite"
# The workloads write decimals such as 1.5E-7 and 123456789012345678901234567890.12345, and times with
# nanoseconds: decimal(38, 8) holds both decimals exactly; times are truncated to microseconds.
MAPPING_FLAGS = ["--decimal-scale", "8", "--truncate-time"]
# The thread counts of the runs that offer one generation more each time, in turn.
THREAD_CYCLE = [2, 1, 3]


def _generations(table_dir):
    """SSTable component prefixes ("oa-3-big-") in generation order."""
    prefixes = {p.name[:-len("Data.db")] for p in table_dir.glob("*-Data.db")}
    return sorted(prefixes, key=lambda p: int(p.split("-")[1]))


class Materialized:
    def __init__(self, root):
        self.root = root
        self.warehouse = root / "warehouse"
        self.catalog = self.warehouse / "catalog.db"
        self.backup_warehouse = root / "warehouse-backups"
        self.random_warehouse = root / "warehouse-random-runs"
        self.single_warehouse = root / "warehouse-one-run"
        self.problems = {}      # workload index -> [messages]
        self.final = {}         # workload index -> (namespace, table, expected rows, now)
        self.schemas = {}       # namespace -> {generation prefix: the schema file it was written with}
        self.runs = 0

    def problem(self, index, message):
        self.problems.setdefault(index, []).append(message)

    def schema(self, namespace, prefixes):
        """The --schema option of a run offered the generations `prefixes`: the schema of the newest."""
        return ["--schema", str(self.schemas[namespace][max(prefixes, key=lambda p: int(p.split("-")[1]))])]


def _materialize(cqlite, path, warehouse, now, *extra):
    proc = cqlite("materialize", path, "--warehouse", warehouse, "--now", now, "--json", *MAPPING_FLAGS, *extra,
                  check=False)
    report = json.loads(proc.stdout) if proc.returncode == 0 else None
    return proc, report


def _schema(catalog, namespace, table):
    location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, namespace, table)
    return iceberg_readers.current_schema(json.loads(pathlib.Path(location).read_text()))


def _fold_state(catalog, namespace, table):
    """The fold state file the table's current snapshot names."""
    metadata = json.loads(pathlib.Path(iceberg_readers.metadata_location(catalog, CATALOG_NAME, namespace,
                                                                         table)).read_text())
    current = next(s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"])
    return json.loads(pathlib.Path(current["summary"]["cqlite.fold-state"]).read_text())


def _materialize_workload(index, node, cqlite, m):
    d = node.described[index]
    failed = node.failed_chunk(index)
    table_dir = node.table_dir(index)
    if failed or table_dir is None:
        m.problem(index, failed or "the node left no table directory")
        return
    selects = [node_runs.read_select(p) for p in node.selects(index)]
    now = selects[0][0]
    namespace, table = f"w{index}", d["table"]
    # The table directory as the node's flushes fill it: one generation more each time.
    source = m.root / "source" / namespace / table_dir.name
    source.mkdir(parents=True)
    shutil.copy(node.keyspace_dir(index) / "schema.cql", source.parent / "schema.cql")
    generations = _generations(table_dir)
    by_generation = node.schemas(index)
    m.schemas[namespace] = {prefix: by_generation[int(prefix.split("-")[1])] for prefix in generations}
    for step, prefix in enumerate(generations, 1):
        for component in table_dir.glob(prefix + "*"):
            shutil.copy(component, source / component.name)
        threads = THREAD_CYCLE[(index + step) % len(THREAD_CYCLE)]
        schema_option = m.schema(namespace, generations[:step])
        proc, report = _materialize(cqlite, source, m.warehouse, now, "--threads", threads, *schema_option)
        m.runs += 1
        if proc.returncode != 0:
            m.problem(index, f"generation {step}/{len(generations)} (--threads {threads}, "
                             f"{' '.join(schema_option)}): cqlite materialize failed: {proc.stderr.strip()}")
            return
        consumed = report["tables"][0]["generations_consumed"]
        if consumed != 1:
            m.problem(index, f"generation {step}: {consumed} generations consumed, expected 1")
        schema = _schema(m.catalog, namespace, table)
        expected = table_compare.expected_rows(
            cqlite("select", source, "--now", now, *schema_option).stdout.splitlines(), schema)
        actual = iceberg_readers.read_pyiceberg(m.catalog, m.warehouse, CATALOG_NAME, namespace, table)
        problem = table_compare.differs(table_compare.pyiceberg_view(expected, schema), actual, schema)
        if problem:
            m.problem(index, f"generation {step}/{len(generations)} ({' '.join(schema_option)}), PyIceberg vs "
                             f"cqlite select: {problem}")
    if not generations:
        return  # compaction left nothing: nothing was materialized
    schema = _schema(m.catalog, namespace, table)
    # An incremental backup folder holds only the newest flushes: each run sees one generation.
    backup = m.root / "backups" / namespace / table_dir.name
    backup.mkdir(parents=True)
    shutil.copy(node.keyspace_dir(index) / "schema.cql", backup.parent / "schema.cql")
    for step, prefix in enumerate(generations, 1):
        for old in backup.glob("*-*-*-*"):
            old.unlink()
        for component in table_dir.glob(prefix + "*"):
            shutil.copy(component, backup / component.name)
        proc, _report = _materialize(cqlite, backup, m.backup_warehouse, now, "--fold-fan-in", "2", "--threads", "2",
                                     *m.schema(namespace, generations[:step]))
        m.runs += 1
        if proc.returncode != 0:
            m.problem(index, f"backup {step}/{len(generations)}: cqlite materialize failed: {proc.stderr.strip()}")
            return
    state = _fold_state(m.backup_warehouse / "catalog.db", namespace, table)
    # Kept generations merged by the run that kept them are named by no fold state, and must be gone.
    metadata = json.loads(pathlib.Path(iceberg_readers.metadata_location(
        m.backup_warehouse / "catalog.db", CATALOG_NAME, namespace, table)).read_text())
    named = set()
    for snapshot in metadata["snapshots"]:
        old_state = json.loads(pathlib.Path(snapshot["summary"]["cqlite.fold-state"]).read_text())
        named.update(f for facts in old_state["facts"] for f in facts["files"])
    kept = {str(p) for p in (m.backup_warehouse / namespace / table / "cqlite" / "facts").rglob("*") if p.is_file()}
    if kept - named:
        m.problem(index, f"from incremental backups: {len(kept - named)} kept facts files no fold state names, "
                         f"e.g. {sorted(kept - named)[:2]}")
    held = sum(f["generations"] for f in state["facts"])
    if len(state["facts"]) > 2 or held != len(generations) or len(state["generations"]) != len(generations):
        m.problem(index, f"from incremental backups with --fold-fan-in 2: {len(state['facts'])} facts sets holding "
                         f"{held} generations, expected at most 2 holding {len(generations)}")
    expected_node = table_compare.expected_rows(selects[0][1], schema)
    actual = iceberg_readers.read_pyiceberg(m.catalog, m.warehouse, CATALOG_NAME, namespace, table)
    problem = table_compare.differs(table_compare.pyiceberg_view(expected_node, schema), actual, schema)
    if problem:
        m.problem(index, f"PyIceberg vs the node's SELECT JSON at {now}: {problem}")
    from_backups = iceberg_readers.read_pyiceberg(m.backup_warehouse / "catalog.db", m.backup_warehouse,
                                                  CATALOG_NAME, namespace, table)
    problem = table_compare.differs(table_compare.pyiceberg_view(expected_node, schema), from_backups, schema)
    if problem:
        m.problem(index, f"from incremental backups, PyIceberg vs the node's SELECT JSON at {now}: {problem}")
    _materialize_in_random_runs(index, cqlite, m, table_dir, generations, node.keyspace_dir(index), namespace,
                                table, now, schema)
    final = (namespace, table, expected_node, now, schema)
    # Later query times: nothing new to consume, only TTLs running out.
    for later_now, lines in selects[1:]:
        proc, report = _materialize(cqlite, source, m.warehouse, later_now, *m.schema(namespace, generations))
        m.runs += 1
        if proc.returncode != 0:
            m.problem(index, f"re-run at {later_now}: cqlite materialize failed: {proc.stderr.strip()}")
            return
        t = report["tables"][0]
        if t["generations_consumed"] != 0:
            m.problem(index, f"re-run at {later_now} consumed {t['generations_consumed']} generations again")
        expected_later = table_compare.expected_rows(lines, schema)
        if not t["committed"] and table_compare.differs(expected_node, expected_later, schema):
            m.problem(index, f"re-run at {later_now}: rows expired but nothing was committed")
        actual = iceberg_readers.read_pyiceberg(m.catalog, m.warehouse, CATALOG_NAME, namespace, table)
        problem = table_compare.differs(table_compare.pyiceberg_view(expected_later, schema), actual, schema)
        if problem:
            m.problem(index, f"PyIceberg vs the node's SELECT JSON at {later_now}: {problem}")
        final = (namespace, table, expected_later, later_now, schema)
    m.final[index] = final


def _materialize_in_random_runs(index, cqlite, m, table_dir, generations, keyspace_dir, namespace, table, now,
                                schema):
    """The generations offered in runs of random lengths with random thread counts, against one run over all."""
    rng = random.Random(SEED * 1000 + index)
    cuts = sorted(rng.sample(range(1, len(generations)), rng.randint(0, len(generations) - 1)))
    source = m.root / "random-runs" / namespace / table_dir.name
    source.mkdir(parents=True)
    shutil.copy(keyspace_dir / "schema.cql", source.parent / "schema.cql")
    plan = []
    for start, end in zip([0] + cuts, cuts + [len(generations)]):
        for prefix in generations[start:end]:
            for component in table_dir.glob(prefix + "*"):
                shutil.copy(component, source / component.name)
        threads = rng.randint(1, 4)
        plan.append(f"{end - start} generation(s) with --threads {threads}")
        proc, _report = _materialize(cqlite, source, m.random_warehouse, now, "--threads", threads,
                                     *m.schema(namespace, generations[:end]))
        m.runs += 1
        if proc.returncode != 0:
            m.problem(index, f"random runs ({', '.join(plan)}): cqlite materialize failed: {proc.stderr.strip()}")
            return
    proc, _report = _materialize(cqlite, source, m.single_warehouse, now, "--threads", "1",
                                 *m.schema(namespace, generations))
    m.runs += 1
    if proc.returncode != 0:
        m.problem(index, f"one run over all generations: cqlite materialize failed: {proc.stderr.strip()}")
        return
    one_run = iceberg_readers.read_pyiceberg(m.single_warehouse / "catalog.db", m.single_warehouse, CATALOG_NAME,
                                             namespace, table)
    in_runs = iceberg_readers.read_pyiceberg(m.random_warehouse / "catalog.db", m.random_warehouse, CATALOG_NAME,
                                             namespace, table)
    problem = table_compare.differs(one_run, in_runs, schema)
    if problem:
        m.problem(index, f"runs of {', '.join(plan)} vs one run over all generations: {problem}")


@pytest.fixture(scope="module")
def node(oracle):
    root = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-materialize-node-", dir=node_runs.work_base()))
    print(f"materialize: seed {SEED}, {COUNT} workloads in {root}")
    yield node_runs.replay(oracle, SEED, COUNT, INDEXES, root, 250)
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def materialized(node, cqlite):
    root = pathlib.Path(tempfile.mkdtemp(prefix="cqlite-materialize-"))
    m = Materialized(root)
    for index in INDEXES:
        _materialize_workload(index, node, cqlite, m)
    # Every other reader reads every table once, in one process each.
    tables = [(ns, t) for ns, t, _rows, _now, _schema in m.final.values()]
    if tables:
        for name, read_many in (("DuckDB", iceberg_readers.read_duckdb_many),
                                ("Iceberg Java", iceberg_readers.read_java_many)):
            results = read_many(m.catalog, m.warehouse, CATALOG_NAME, tables)
            for index, (ns, t, expected, now, schema) in m.final.items():
                rows = results[(ns, t)]
                problem = (f"the reader failed: {rows['error']}" if isinstance(rows, dict)
                           else table_compare.differs(expected, rows, schema))
                if problem:
                    m.problem(index, f"{name} vs the node's SELECT JSON at {now}: {problem}")
    altered = [d for d in node.described.values() if d["schema_changes"]]
    evolved = sum(len(set(schemas.values())) > 1 for schemas in m.schemas.values())
    print(f"materialize: {m.runs} runs over {len(INDEXES)} workloads ({len(altered)} altered by "
          f"{sum(d['schema_changes'] for d in altered)} schema changes; {evolved} tables given more than one "
          f"schema), {len(m.final)} tables read by three readers")
    yield m
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("index", INDEXES, ids=lambda i: f"w{i}")
def test_materialized_table_matches_cassandra(index, node, materialized):
    d = node.described[index]
    problems = materialized.problems.get(index)
    if problems:
        pytest.fail(f"w{index} ({d['shape']}, {d['mode']} timestamps, {d['schema_changes']} schema changes), "
                    f"seed {SEED}:\n" + "\n".join(problems),
                    pytrace=False)


def test_a_run_with_nothing_new_commits_nothing(node, materialized, cqlite):
    index = next(iter(materialized.final))
    ns, table, _expected, now, _schema = materialized.final[index]
    source = materialized.root / "source" / ns
    before = sqlite3.connect(materialized.catalog).execute(
        "SELECT metadata_location FROM iceberg_tables WHERE table_namespace = ? AND table_name = ?",
        (ns, table)).fetchone()
    proc, report = _materialize(cqlite, next(source.glob(table + "-*")), materialized.warehouse, now)
    assert proc.returncode == 0, proc.stderr
    t = report["tables"][0]
    assert not t["committed"] and t["generations_consumed"] == 0, t
    assert "nothing new" in t["message"], t
    after = sqlite3.connect(materialized.catalog).execute(
        "SELECT metadata_location FROM iceberg_tables WHERE table_namespace = ? AND table_name = ?",
        (ns, table)).fetchone()
    assert before == after


def _read_back_by_duckdb_and_java(catalog, warehouse, tables, final, how):
    """The problems DuckDB and Iceberg Java find reading `tables` through `catalog`, each compared with
    the node's final answer in `final`; and Iceberg Java must list exactly those tables."""
    problems = []
    for name, read_many in (("DuckDB", iceberg_readers.read_duckdb_many),
                            ("Iceberg Java", iceberg_readers.read_java_many)):
        results = read_many(catalog, warehouse, CATALOG_NAME, tables)
        for index, (ns, table, expected, now, schema) in sorted(final.items()):
            rows = results.get((ns, table))
            if rows is None:
                continue
            problem = (f"the reader failed: {rows['error']}" if isinstance(rows, dict)
                       else table_compare.differs(expected, rows, schema))
            if problem:
                problems.append(f"w{index}: {name}{how} vs the node's SELECT JSON at {now}: {problem}")
    listing = iceberg_readers.list_java(catalog, warehouse, CATALOG_NAME)
    assert sorted(list(t) for t in tables) == listing["tables"], listing
    return problems


def test_the_tables_through_a_postgresql_catalog_match_cassandra(node, materialized, cqlite, postgres_catalog):
    """Every workload's table, its generations in one run, into a catalog on a PostgreSQL server (the JDBC
    catalog schema), read through that catalog by PyIceberg, Iceberg Java and DuckDB."""
    warehouse = materialized.root / "warehouse-postgresql"
    problems = []
    tables = []
    for index, (ns, table, expected, now, schema) in sorted(materialized.final.items()):
        source = next((materialized.root / "source" / ns).glob(table + "-*"))
        proc, report = _materialize(cqlite, source, warehouse, now, "--catalog", postgres_catalog,
                                    *materialized.schema(ns, _generations(source)))
        if proc.returncode != 0:
            problems.append(f"w{index}: cqlite materialize failed: {proc.stderr.strip()}")
            continue
        tables.append((ns, table))
        actual = iceberg_readers.read_pyiceberg(postgres_catalog, warehouse, CATALOG_NAME, ns, table)
        problem = table_compare.differs(table_compare.pyiceberg_view(expected, schema), actual, schema)
        if problem:
            problems.append(f"w{index}: PyIceberg vs the node's SELECT JSON at {now}: {problem}")
    assert tables, "no workload left a table"
    problems += _read_back_by_duckdb_and_java(postgres_catalog, warehouse, tables, materialized.final, "")
    print(f"materialize: {len(tables)} tables through a PostgreSQL catalog read by three readers")
    assert not problems, "\n".join(problems)


def _materialize_in_two_runs(m, cqlite, name, warehouse, catalog, how):
    """Every workload's table materialized into `warehouse` through `catalog` in two runs: its first
    generations (half of them, at least one), then all of them, which reads the fold state the first left
    and commits over the table the first made. PyIceberg reads each table through `catalog`, which must
    equal the node's final answer. Returns (the tables made, the problems found)."""
    problems = []
    tables = []
    for index, (ns, table, expected, now, schema) in sorted(m.final.items()):
        full = next((m.root / "source" / ns).glob(table + "-*"))
        generations = _generations(full)
        partial = m.root / f"{name}-source" / ns / full.name
        partial.mkdir(parents=True)
        shutil.copy(full.parent / "schema.cql", partial.parent / "schema.cql")
        for prefix in generations[:max(1, len(generations) // 2)]:
            for component in full.glob(prefix + "*"):
                shutil.copy(component, partial / component.name)
        failed = None
        for source in (partial, full):
            proc, report = _materialize(cqlite, source, warehouse, now, "--catalog", catalog,
                                        *m.schema(ns, _generations(source)))
            if proc.returncode != 0:
                failed = f"w{index}: cqlite materialize of {source} failed: {proc.stderr.strip()}"
                break
            if iceberg_readers.is_rest(catalog) and report["catalog"] != catalog:
                failed = f"w{index}: the report names catalog {report['catalog']}"
                break
        if failed:
            problems.append(failed)
            continue
        tables.append((ns, table))
        actual = iceberg_readers.read_pyiceberg(catalog, warehouse, CATALOG_NAME, ns, table)
        problem = table_compare.differs(table_compare.pyiceberg_view(expected, schema), actual, schema)
        if problem:
            problems.append(f"w{index}: PyIceberg{how} vs the node's SELECT JSON at {now}: {problem}")
    assert tables, "no workload left a table"
    return tables, problems


def test_the_tables_through_a_rest_catalog_match_cassandra(node, materialized, cqlite, rest_catalog):
    """Every workload's table into a REST catalog server in two runs (_materialize_in_two_runs): the first
    registers the table with cqlite's metadata file, the second commits requirements and updates, whose
    metadata file the server writes; read through the server by PyIceberg, Iceberg Java and DuckDB."""
    warehouse = materialized.root / "warehouse-rest"
    tables, problems = _materialize_in_two_runs(materialized, cqlite, "rest", warehouse, rest_catalog.address,
                                                " (REST)")
    problems += _read_back_by_duckdb_and_java(rest_catalog.address, warehouse, tables, materialized.final, " (REST)")
    print(f"materialize: {len(tables)} tables through a REST catalog read by three readers")
    assert not problems, "\n".join(problems)


def test_the_tables_in_an_s3_warehouse_match_cassandra(node, materialized, cqlite, s3):
    """Every workload's table into an s3:// warehouse (the catalog a SQLite file on this machine) in two
    runs (_materialize_in_two_runs), the second reading the fold state and kept generations back from the
    bucket; read by PyIceberg (its S3 FileIO at the server's endpoint), DuckDB (httpfs) and Iceberg Java
    (Iceberg's S3FileIO)."""
    import s3_server

    warehouse = f"s3://{s3_server.BUCKET}/workloads"
    catalog = str(materialized.root / "s3-catalog.db")
    tables, problems = _materialize_in_two_runs(materialized, cqlite, "s3", warehouse, catalog, " (S3)")
    problems += _read_back_by_duckdb_and_java(catalog, warehouse, tables, materialized.final, " (S3)")
    assert s3.open_uploads() == []
    print(f"materialize: {len(tables)} tables in an S3 warehouse read by three readers")
    assert not problems, "\n".join(problems)


def test_the_tables_through_a_rest_catalog_in_an_s3_warehouse_match_cassandra(node, materialized, cqlite,
                                                                                rest_catalog_on_s3, s3):
    """Every workload's table through a REST catalog server into an s3:// warehouse on moto's S3 server,
    in two runs (_materialize_in_two_runs): the first writes its files to the bucket and registers the
    table (the server reads its metadata file from the bucket), the second reads the fold state back from
    the bucket and commits, the server writing the new metadata file there through Iceberg's S3FileIO.
    Read through the server by PyIceberg (RestCatalog, S3 FileIO), Iceberg Java (RESTCatalog, S3FileIO)
    and DuckDB (ATTACH of the REST catalog, its files through httpfs)."""
    import s3_server

    server = rest_catalog_on_s3
    tables, problems = _materialize_in_two_runs(materialized, cqlite, "rest-s3", server.warehouse, server.address,
                                                " (REST, S3)")
    bucket = f"s3://{s3_server.BUCKET}/"
    for ns, table in tables:
        # The second run's metadata file is the server's, written beside cqlite's in the table's location.
        location = iceberg_readers.metadata_location(server.address, CATALOG_NAME, ns, table)
        prefix = f"{server.warehouse}/{ns}/{table}/metadata/"
        if not location.startswith(prefix) or location[len(bucket):] not in s3.keys(prefix[len(bucket):]):
            problems.append(f"{ns}.{table}: the current metadata file {location} is not in the bucket under {prefix}")
    problems += _read_back_by_duckdb_and_java(server.address, server.warehouse, tables, materialized.final,
                                              " (REST, S3)")
    assert s3.open_uploads() == []
    print(f"materialize: {len(tables)} tables through a REST catalog in an S3 warehouse read by three readers")
    assert not problems, "\n".join(problems)


def materialize_v3_tables(m, cqlite, warehouse):
    """Every workload's table of `m` as an Iceberg v3 table in `warehouse` (--format-version 3), one run per
    generation, so that a data file's deletion vector is merged with the one it had run after run (and, in
    every other workload, the table is made v2 and upgraded in place halfway). PyIceberg reads each, which
    must equal the node's final answer. Returns (the tables made, the Puffin files written, the problems)."""
    catalog = warehouse / "catalog.db"
    problems = []
    tables = []
    vectors = 0
    for index, (ns, table, expected, now, schema) in sorted(m.final.items()):
        full = next((m.root / "source" / ns).glob(table + "-*"))
        generations = _generations(full)
        source = m.root / "v3-source" / ns / full.name
        source.mkdir(parents=True)
        shutil.copy(full.parent / "schema.cql", source.parent / "schema.cql")
        failed = None
        for step, prefix in enumerate(generations, 1):
            for component in full.glob(prefix + "*"):
                shutil.copy(component, source / component.name)
            version = "2" if index % 2 and step <= len(generations) // 2 else "3"
            proc, _report = _materialize(cqlite, source, warehouse, now, "--format-version", version,
                                         "--threads", str(1 + step % 2), *m.schema(ns, generations[:step]))
            if proc.returncode != 0:
                failed = f"w{index}: generation {step} (--format-version {version}): {proc.stderr.strip()}"
                break
        if failed:
            problems.append(failed)
            continue
        tables.append((ns, table))
        metadata = json.loads(pathlib.Path(iceberg_readers.metadata_location(catalog, CATALOG_NAME, ns,
                                                                             table)).read_text())
        if metadata["format-version"] != 3:
            problems.append(f"w{index}: format-version {metadata['format-version']}")
        vectors += sum(1 for f in warehouse.glob(f"{ns}/{table}/data/*.puffin"))
        actual = iceberg_readers.read_pyiceberg(catalog, warehouse, CATALOG_NAME, ns, table)
        problem = table_compare.differs(table_compare.pyiceberg_view(expected, schema), actual, schema)
        if problem:
            problems.append(f"w{index}: PyIceberg (v3) vs the node's SELECT JSON at {now}: {problem}")
    return tables, vectors, problems


def test_v3_tables_with_deletion_vectors_match_cassandra(node, materialized, cqlite):
    """The workloads' tables as v3 tables (materialize_v3_tables), read by Iceberg Java (its deletion vector
    reader), PyIceberg and DuckDB equal to the node's final answer."""
    warehouse = materialized.root / "warehouse-v3"
    tables, vectors, problems = materialize_v3_tables(materialized, cqlite, warehouse)
    assert tables, "no workload left a table"
    problems += _read_back_by_duckdb_and_java(warehouse / "catalog.db", warehouse, tables, materialized.final,
                                              " (v3)")
    problems += _java_checks_v3_files(warehouse, tables[:JAVA_V3_TABLES])
    print(f"materialize: {len(tables)} v3 tables ({vectors} Puffin files of deletion vectors) read by three readers")
    assert vectors > 0, "no run wrote a deletion vector"
    assert not problems, "\n".join(problems)


# Tables whose metadata and Puffin files Iceberg Java parses file by file (a JVM each).
JAVA_V3_TABLES = 6


def _java_checks_v3_files(warehouse, tables):
    """What Iceberg Java finds wrong parsing the current snapshots of `tables` (TableMetadataParser, its
    manifest readers) and reading each live deletion vector with its Puffin reader: every data file has
    row ids without overlap below next-row-id, at most one vector per data file, and each vector's blob
    is where its manifest entry says, for the data file it names, with as many positions as it counts."""
    problems = []
    catalog = warehouse / "catalog.db"
    puffin_reads = {}
    for ns, table in tables:
        location = iceberg_readers.metadata_location(catalog, CATALOG_NAME, ns, table)
        parsed = iceberg_readers._java("v3-read", location)[0]
        current = next(s for s in parsed["snapshots"] if s["snapshot_id"] == parsed["current_snapshot_id"])
        ids, vectors = [], {}
        for manifest in current["manifests"]:
            for f in manifest["files"]:
                if f["content"] == "DATA":
                    ids.append((f["first_row_id"], f["first_row_id"] + f["record_count"]))
                elif f["format"] == "PUFFIN":
                    vectors.setdefault(f["referenced_data_file"], []).append(f)
        ids.sort()
        if any(b[0] < a[1] for a, b in zip(ids, ids[1:])) or (ids and ids[-1][1] > parsed["next_row_id"]):
            problems.append(f"{ns}.{table}: row ids as Iceberg Java reads them overlap or pass next-row-id: {ids}")
        for data_file, entries in vectors.items():
            if len(entries) > 1:
                problems.append(f"{ns}.{table}: {len(entries)} live deletion vectors for {data_file}")
            for f in entries:
                if f["path"] not in puffin_reads:
                    puffin_reads[f["path"]] = iceberg_readers._java("dv-read", iceberg_readers._local_path(f["path"]))[0]
                blob = next((b for b in puffin_reads[f["path"]]["blobs"] if b["offset"] == f["content_offset"]), None)
                if blob is None or blob["length"] != f["content_size_in_bytes"] or \
                        blob["properties"]["referenced-data-file"] != data_file or \
                        blob["cardinality"] != f["record_count"]:
                    problems.append(f"{ns}.{table}: Iceberg Java's Puffin reader finds no blob for {data_file} as "
                                    f"the manifest names it ({f['path']} at {f['content_offset']}): {blob}")
    if not puffin_reads:
        problems.append(f"no live deletion vector in the first {len(tables)} v3 tables")
    return problems


def test_readers_list_the_tables_and_see_our_summaries(materialized):
    tables = sorted([ns, t] for ns, t, _rows, _now, _schema in materialized.final.values())
    for lister in (iceberg_readers.list_pyiceberg, iceberg_readers.list_java):
        listing = lister(materialized.catalog, materialized.warehouse, CATALOG_NAME)
        assert tables and all(t in listing["tables"] for t in tables), listing
    ns, table = tables[0]
    for snapshots in (iceberg_readers.snapshots_pyiceberg, iceberg_readers.snapshots_java):
        history = snapshots(materialized.catalog, materialized.warehouse, CATALOG_NAME, ns, table)
        assert history and history[-1]["current"], history
        for snapshot in history:
            summary = snapshot["summary"]
            for key in ("cqlite.generations", "cqlite.delta-horizon-micros", "cqlite.fold-state",
                        "cqlite.ttl-evaluated-at", "total-records", "total-data-files"):
                assert key in summary, (key, summary)
        parents = [s["parent_id"] for s in history[1:]]
        assert parents == [s["snapshot_id"] for s in history[:-1]], history
