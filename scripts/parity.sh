#!/usr/bin/env bash
# The long tier of the select parity test: `cqlite select` against a real
# Cassandra 5.0 node's SELECT JSON on more seeded random workloads than CI runs
# (tests/integration/test_select_parity.py). Defaults: 1000 workloads, a seed
# taken from the clock (printed at the end and in every failure).
#
# Usage: scripts/parity.sh [WORKLOADS] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/integration/requirements.txt
CQLITE_PARITY_WORKLOADS="${1:-1000}" CQLITE_PARITY_SEED="${2:-random}" CQLITE_BIN="$PWD/build/src/cli/cqlite" \
  .venv/bin/python -m pytest tests/integration/test_select_parity.py -q -rs
