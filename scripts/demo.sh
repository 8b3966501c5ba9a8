#!/usr/bin/env bash
# Sets everything up, builds cqlite, reads the example Cassandra data that
# ships with the repository, publishes it as Iceberg tables, and reads the
# tables back with PyIceberg.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
bin=build/src/cli/cqlite
echo
echo "\$ cqlite ls examples/data"
"$bin" ls examples/data
for table in $(find examples/data -mindepth 2 -maxdepth 2 -type d | sort); do
  echo
  echo "\$ cqlite select $table"
  "$bin" select "$table"
done

warehouse=build/demo-warehouse
rm -rf "$warehouse"
echo
echo "\$ cqlite materialize examples/data --warehouse $warehouse"
"$bin" materialize examples/data --warehouse "$warehouse"
echo
echo "\$ cqlite materialize examples/data --warehouse $warehouse   # again: nothing new"
"$bin" materialize examples/data --warehouse "$warehouse"

# Read back by an engine that knows nothing of Cassandra or cqlite.
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/integration/requirements.txt
for table in orders price_points; do
  echo
  echo "\$ python examples/read_table.py $warehouse shop $table   # PyIceberg"
  .venv/bin/python examples/read_table.py "$warehouse" shop "$table"
done
