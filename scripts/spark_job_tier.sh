#!/usr/bin/env bash
# The spark job tier, not part of scripts/test.sh or CI: spark/cqlite_spark.py
# materializes a Cassandra node's tables as a Spark job on a local-cluster master
# (two executor JVMs), reading the SSTables from S3Proxy and publishing through
# Apache Iceberg's REST catalog server into the same bucket; the tables must
# equal the node's SELECT answers after jobs, an executor killed mid-task,
# attempts staged twice, a speculative copy that wins, a failed job and a driver
# killed around its commit (tests/spark_job/test_spark_job.py); and a job with
# --cluster over a live three-node cluster's data directories, equal to reads at
# ALL (tests/spark_job/test_spark_job_cluster.py).
#
#   scripts/spark_job_tier.sh [pytest args...]
#
# PySpark (the pinned 3.5 release, which carries Spark itself) is installed into
# .venv with the integration tests' packages (tests/spark_job/requirements.txt);
# S3Proxy, the REST catalog server and the Cassandra oracle are built and cached
# under ${CQLITE_CACHE:-~/.cache/cqlite} the first time. Java 17 runs Spark. The
# whole tier took 6 min 18 s on 2 cores (8 tests).
set -euo pipefail
cd "$(dirname "$0")/.."

# CQLITE_BIN: a cqlite binary already built; otherwise setup.sh builds ./build.
# shellcheck source=tier_setup.sh
source scripts/tier_setup.sh
tier_setup tests/spark_job/requirements.txt

echo "== spark job tier"
.venv/bin/python -m pytest tests/spark_job -q -rs "$@"
