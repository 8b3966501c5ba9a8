#!/usr/bin/env bash
# Sets everything up, builds cqlite, and reads the example table that ships
# with the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
bin=build/src/cli/cqlite
echo
echo "\$ cqlite ls examples/data"
"$bin" ls examples/data
first=$(find examples/data -name '*-Data.db' | sort | head -n 1)
echo
echo "\$ cqlite dump $first"
"$bin" dump "$first"
for table in $(find examples/data -mindepth 2 -maxdepth 2 -type d | sort); do
  echo
  echo "\$ cqlite select $table"
  "$bin" select "$table"
done
