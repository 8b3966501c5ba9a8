#!/usr/bin/env bash
# The long tier of the materialize parity test: `cqlite materialize`, offered
# each seeded workload's generations one more at a time (about half of the
# tables altered between them: columns added, dropped and added again, key
# columns and user type fields renamed, fields added, options changed), must
# publish what `cqlite select` prints over the same generations with the same
# schema, and at the end what a real Cassandra 5.0 node's SELECT JSON returns
# (tests/integration/test_materialize.py, which CI runs on 40 workloads).
# Defaults: 400 workloads, seed 7.
#
# Usage: scripts/materialize_parity.sh [WORKLOADS] [SEED] [pytest options...]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/integration/requirements.txt
export CQLITE_MATERIALIZE_WORKLOADS="${1:-400}" CQLITE_MATERIALIZE_SEED="${2:-7}"
export CQLITE_BIN="${CQLITE_BIN:-$PWD/build/src/cli/cqlite}"
shift $(( $# < 2 ? $# : 2 ))
exec .venv/bin/python -m pytest tests/integration/test_materialize.py -q -rs "$@"
