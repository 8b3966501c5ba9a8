"""The Spark tier: Spark with the Iceberg runtime reads what `cqlite materialize`
writes. Slow (a Spark JVM, the Iceberg Spark runtime, a Cassandra node), so it
lives outside tests/integration, which CI collects: run it with
scripts/spark_tier.sh.

It reuses the integration tests' helpers (iceberg_readers, node_runs,
cql_json, test_materialize) and fixtures (cqlite, oracle) from
tests/integration.
"""
import pathlib
import sys

INTEGRATION = pathlib.Path(__file__).resolve().parents[1] / "integration"
if str(INTEGRATION) not in sys.path:
    sys.path.insert(0, str(INTEGRATION))

from tier_conftest import *  # noqa: E402,F401,F403  (the integration tests' fixtures and names)
