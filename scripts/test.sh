#!/usr/bin/env bash
# Runs every test: unit tests in a normal build and under AddressSanitizer and
# UndefinedBehaviorSanitizer, then the integration tests that compare cqlite
# with Cassandra's own tools (fetched, pinned and cached on first use). Says
# how long each step took.
set -euo pipefail
cd "$(dirname "$0")/.."

# step NAME COMMAND...: runs one step of the tests and prints its duration.
step() {
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@"
  echo "== $name: $((SECONDS - start)) s"
}

unit_tests() { (cd build && ctest --output-on-failure -j2); }
sanitized_build() {
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCQLITE_SANITIZE=ON -DCQLITE_BENCH=OFF >/dev/null
  cmake --build build-asan
}
sanitized_unit_tests() {
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j2)
}
integration_tests() {
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/integration/requirements.txt
  CQLITE_BIN="$PWD/build/src/cli/cqlite" .venv/bin/python -m pytest tests/integration -q -rs "$@"
}

step "setup and build" scripts/setup.sh
step "unit tests" unit_tests
step "build under ASan and UBSan" sanitized_build
step "unit tests under ASan and UBSan" sanitized_unit_tests
step "integration tests" integration_tests "$@"
