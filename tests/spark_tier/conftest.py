"""The Spark tier: Spark with the Iceberg runtime reads what `cqlite materialize`
writes. Slow (a Spark JVM, the Iceberg Spark runtime, a Cassandra node), so it
lives outside tests/integration, which CI collects: run it with
scripts/spark_tier.sh.

It reuses the integration tests' helpers (iceberg_readers, node_runs,
cql_json, test_materialize) and fixtures (cqlite, oracle) from
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
CACHE = _integration.CACHE
cqlite_binary = _integration.cqlite_binary


def pytest_terminal_summary(terminalreporter):
    """What the tier compared: tables and rows, pass or fail."""
    module = sys.modules.get("test_spark_reads")
    if module is not None and module.SUMMARY:
        terminalreporter.write_line("spark tier: " + module.pytest_terminal_summary_line())
