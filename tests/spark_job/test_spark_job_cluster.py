"""spark/cqlite_spark.py --cluster: the data directories of test_cluster.py's live 3-node
Cassandra 5.0 cluster (its `run` fixture: replicas that differ, then incremental repair)
as one Spark job on the local-cluster master, three ranges per table, into a local
warehouse and SQLite catalog (the executors share this machine's file system). Every
workload's table, read by PyIceberg and DuckDB, must equal the cluster's `SELECT JSON *`
at consistency ALL with each key once, as `cqlite materialize --cluster` must
(test_cluster.test_cluster_table_equals_a_read_at_all), and no file is left that the
table does not name. A second job finds nothing new and commits nothing.
"""
import subprocess

import table_compare
import test_spark_job
from test_cluster import CATALOG_NAME, _assert_each_key_once, _schema, run  # noqa: F401 (run: the fixture)
from test_maintain import Table


def _job(root, data_dirs, now, log):
    warehouse, catalog = root / "warehouse", root / "warehouse" / "catalog.db"
    cmd = [str(test_spark_job.SPARK_BIN / "spark-submit"), "--master", test_spark_job.MASTER,
           "--conf", "spark.ui.enabled=false", "--conf", "spark.executor.memory=512m", str(test_spark_job.DRIVER),
           "--cqlite", str(test_spark_job.conftest.cqlite_binary()), "--warehouse", str(warehouse),
           "--catalog", str(catalog), "--stage-root", str(root / "stage"), "--now", str(now), "--ranges", "3",
           "--decimal-scale", "8", "--truncate-time", "--json", "--cluster", *map(str, data_dirs)]
    with open(log, "w") as err:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True,
                              env=test_spark_job.spark_environment(), timeout=test_spark_job.JOB_TIMEOUT)
    assert proc.returncode == 0, f"the job failed ({proc.returncode}):\n{test_spark_job.log_tail(log)}\n{proc.stdout[-4000:]}"
    return test_spark_job.summary_of(proc.stdout), warehouse, catalog


def test_a_cluster_as_one_job(run, tmp_path):
    now = min(now for now, _ in run["answers"].values())
    summary, warehouse, catalog = _job(tmp_path, run["data_dirs"], now, tmp_path / "job-1.log")
    committed = {(t["keyspace"], t["table"]) for t in summary["tables"] if t["commit"]["committed"]}
    assert set(run["tables"]) <= committed, summary["commit"]
    compared = 0
    for ks, table in run["tables"]:
        _, lines = run["answers"][(ks, table)]
        schema = _schema(catalog, ks, table)
        expected, duck = table_compare.check_readers(catalog, warehouse, CATALOG_NAME, ks, table, lines, schema,
                                                     "CONSISTENCY ALL, as a Spark job")
        _assert_each_key_once(ks, table, schema, duck)
        compared += len(expected)
        unreferenced, missing = Table(catalog, ks, table).unreferenced_and_missing()
        assert not unreferenced and not missing, (ks, table, unreferenced, missing)
    assert compared > 0
    assert not (tmp_path / "stage").exists() or not any((tmp_path / "stage").iterdir())
    again, _, _ = _job(tmp_path, run["data_dirs"], now, tmp_path / "job-2.log")
    assert not any(t["commit"]["committed"] for t in again["tables"]), again["commit"]
    print(f"spark job --cluster: {len(run['tables'])} tables, {compared} rows equal to the reads at ALL")
