#!/usr/bin/env bash
# The slower tier, not part of scripts/test.sh or CI: Spark 3.5 with the
# Iceberg Spark runtime reads every table `cqlite materialize` writes, from
# examples/data and from seeded workloads replayed on a Cassandra node, and
# must agree with PyIceberg, DuckDB, Iceberg Java and the node.
#
#   scripts/spark_tier.sh [pytest args...]
#
# The first run builds the Spark reader with Maven (Spark, its Hadoop client
# and the Iceberg runtime: a few hundred MB) and caches it under
# ${CQLITE_CACHE:-~/.cache/cqlite}/iceberg-spark/; the Cassandra oracle and the
# DuckDB environment are cached likewise. Environment: see
# tests/spark_tier/test_spark_reads.py (CQLITE_SPARK_TIER_SEED, _WORKLOADS,
# _INDEXES).
set -euo pipefail
cd "$(dirname "$0")/.."

# CQLITE_BIN: a cqlite binary already built; otherwise setup.sh builds ./build.
# shellcheck source=tier_setup.sh
source scripts/tier_setup.sh
tier_setup tests/integration/requirements.txt

echo "== building the Spark reader (cached after the first run)"
bash tools/iceberg_readers/spark/spark_reader.sh build

echo "== spark tier"
.venv/bin/python -m pytest tests/spark_tier -q -rs "$@"
