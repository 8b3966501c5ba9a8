"""The spark job tier: spark/cqlite_spark.py materializes a cluster's tables as a
Spark job. Slow (a Spark local cluster of two executor JVMs, S3Proxy, Iceberg's
REST catalog server, a Cassandra node), so it lives outside tests/integration,
which CI collects: run it with scripts/spark_job_tier.sh.

It reuses the integration tests' helpers (iceberg_readers, node_runs,
table_compare, test_maintain's Table) and fixtures (cqlite, oracle) from
tests/integration.
"""
import pathlib
import sys

INTEGRATION = pathlib.Path(__file__).resolve().parents[1] / "integration"
if str(INTEGRATION) not in sys.path:
    sys.path.insert(0, str(INTEGRATION))

from tier_conftest import *  # noqa: E402,F401,F403  (the integration tests' fixtures and names)
