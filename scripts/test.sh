#!/usr/bin/env bash
# Runs every test: unit tests in a normal build and under AddressSanitizer and
# UndefinedBehaviorSanitizer, then the integration tests that compare cqlite
# with Cassandra's own tools (fetched, pinned and cached on first use).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

echo "== unit tests"
(cd build && ctest --output-on-failure -j2)

echo "== unit tests under ASan and UBSan"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCQLITE_SANITIZE=ON -DCQLITE_BENCH=OFF >/dev/null
cmake --build build-asan
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j2)

echo "== integration tests"
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/integration/requirements.txt
CQLITE_BIN="$PWD/build/src/cli/cqlite" .venv/bin/python -m pytest tests/integration -q -rs "$@"
