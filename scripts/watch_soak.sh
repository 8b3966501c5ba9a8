#!/usr/bin/env bash
# The long variant of tests/integration/test_watch.py: a Cassandra node under
# write load for 3 minutes (CQLITE_WATCH_SECONDS), the watcher SIGKILLed at 10
# random moments and the node killed and started again once, then the same
# checks. Not part of scripts/test.sh (it takes about 6 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
export CQLITE_BIN="${CQLITE_BIN:-$PWD/build/src/cli/cqlite}"
export CQLITE_WATCH_SECONDS="${CQLITE_WATCH_SECONDS:-180}"
export CQLITE_WATCH_KILLS="${CQLITE_WATCH_KILLS:-10}"
export CQLITE_WATCH_NODE_RESTART="${CQLITE_WATCH_NODE_RESTART:-1}"
exec .venv/bin/python -m pytest tests/integration/test_watch.py -q -rs -s "$@"
