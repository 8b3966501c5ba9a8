"""What the slower tiers beside tests/integration (tests/spark_tier, tests/spark_job)
take from the integration tests' conftest.py. Their own conftest.py does
`from tier_conftest import *`: the fixtures (cqlite, oracle) become theirs, and the
integration modules they import find the names they take from `conftest` (which
there is the tier's) as they do here.
"""
import importlib.util
import pathlib

# conftest.py under another module name: the tier's conftest is "conftest".
_spec = importlib.util.spec_from_file_location("integration_conftest",
                                               pathlib.Path(__file__).with_name("conftest.py"))
_integration = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_integration)

cqlite = _integration.cqlite
oracle = _integration.oracle
REPO = _integration.REPO
CACHE = _integration.CACHE
cqlite_binary = _integration.cqlite_binary
RestCatalogServer = _integration.RestCatalogServer

__all__ = ["cqlite", "oracle", "REPO", "CACHE", "cqlite_binary", "RestCatalogServer"]
