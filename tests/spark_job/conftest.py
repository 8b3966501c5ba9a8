"""The spark job tier: spark/cqlite_spark.py materializes a cluster's tables as a
Spark job. Slow (a Spark local cluster of two executor JVMs, S3Proxy, Iceberg's
REST catalog server, a Cassandra node), so it lives outside tests/integration,
which CI collects: run it with scripts/spark_job_tier.sh.

It reuses the integration tests' helpers (iceberg_readers, node_runs,
table_compare, test_maintain's Table) and fixtures (cqlite, oracle) from
tests/integration.
"""
import importlib.util
import pathlib
import sys

INTEGRATION = pathlib.Path(__file__).resolve().parents[1] / "integration"
if str(INTEGRATION) not in sys.path:
    sys.path.insert(0, str(INTEGRATION))

# tests/integration/conftest.py under another module name (this file is "conftest"
# too); its fixtures become this directory's by assignment.
_spec = importlib.util.spec_from_file_location("integration_conftest", INTEGRATION / "conftest.py")
_integration = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_integration)

cqlite = _integration.cqlite
oracle = _integration.oracle
# What the integration tests' modules take from `conftest`, which here is this file.
REPO = _integration.REPO
CACHE = _integration.CACHE
cqlite_binary = _integration.cqlite_binary
RestCatalogServer = _integration.RestCatalogServer
