#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for the
# given number of seconds (default 60), FUZZ_JOBS at a time (default 2).
#
# Seeds: when ../shared/cassandra-fixtures exists beside the repository, real
# SSTables and schema files from it are turned into seeds for every target at
# run time (scripts/fuzz_seeds.py, into build-fuzz/seeds/; never committed),
# together with the repository's own *.cql files and fuzz/seeds/<target>/.
# Dictionaries: fuzz/dict/<target>.dict when present.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# Prints, per target, executions, seconds run, coverage (edges and features),
# corpus size and findings (crash-, leak-, timeout-, oom- files in
# build-fuzz/findings/<target>/, copied to fuzz/regressions/<target>/, which
# the unit tests replay).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
jobs=${FUZZ_JOBS:-2}
CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCQLITE_FUZZ=ON \
  -DCQLITE_BENCH=OFF >/dev/null
cmake --build build-fuzz
mkdir -p build-fuzz/corpus build-fuzz/findings
rm -rf build-fuzz/seeds
mkdir -p build-fuzz/seeds
fixtures="$(cd .. && pwd)/shared/cassandra-fixtures"
if [ -d "$fixtures" ]; then
  python3 scripts/fuzz_seeds.py "$fixtures" build-fuzz/seeds
else
  echo "no $fixtures: running without real-file seeds"
fi
mkdir -p build-fuzz/seeds/fuzz_cql_schema
find examples tools -name '*.cql' -type f -exec cp {} build-fuzz/seeds/fuzz_cql_schema/ \; 2>/dev/null || true
# Files other programs write (pyarrow, DuckDB, fastavro, PyIceberg; pinned in
# tests/integration/requirements.txt) and cqlite's own, for the readers of
# such files.
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r tests/integration/requirements.txt
.venv/bin/python scripts/fuzz_file_seeds.py build-fuzz/seeds build/src/cli/cqlite
if [ $# -gt 0 ]; then
  targets=$(for t in "$@"; do echo "build-fuzz/fuzz/$t"; done)
else
  targets=$(find build-fuzz/fuzz -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x | sort)
fi
run_one() {
  local bin=$1 name
  name=$(basename "$bin")
  mkdir -p "build-fuzz/corpus/$name" "build-fuzz/findings/$name"
  local extra=()
  [ -d "fuzz/seeds/$name" ] && extra+=("fuzz/seeds/$name")
  [ -d "build-fuzz/seeds/$name" ] && extra+=("build-fuzz/seeds/$name")
  local dict=()
  [ -f "fuzz/dict/$name.dict" ] && dict=(-dict="fuzz/dict/$name.dict")
  # Schema files of 100 KiB make slow mutations; statements are short.
  local limits=()
  [ "$name" = fuzz_cql_schema ] && limits=(-max_len=8192)
  local start end
  start=$(date +%s)
  # -malloc_limit_mb: one allocation above it is a finding (an allocation
  # sized by a corrupt length field instead of the bytes available).
  "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=30 \
    -print_final_stats=1 "${dict[@]}" "${limits[@]}" -artifact_prefix="build-fuzz/findings/$name/" \
    "build-fuzz/corpus/$name" "${extra[@]}" >"build-fuzz/$name.log" 2>&1 || true
  end=$(date +%s)
  local execs findings corpus coverage features
  execs=$(grep -m1 'stat::number_of_executed_units' "build-fuzz/$name.log" | awk '{print $2}')
  # libFuzzer's last status line: "#N DONE cov: C ft: F corp: ..."
  coverage=$(grep -o 'cov: [0-9]*' "build-fuzz/$name.log" | tail -1 | awk '{print $2}')
  features=$(grep -o 'ft: [0-9]*' "build-fuzz/$name.log" | tail -1 | awk '{print $2}')
  findings=$(find "build-fuzz/findings/$name" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) | wc -l)
  corpus=$(find "build-fuzz/corpus/$name" -type f | wc -l)
  # Findings become regression inputs that the unit tests replay
  # (fuzz/CMakeLists.txt): each must be fixed before they pass again.
  if [ "$findings" -gt 0 ]; then
    mkdir -p "fuzz/regressions/$name"
    find "build-fuzz/findings/$name" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
      -o -name 'oom-*' \) -exec cp {} "fuzz/regressions/$name/" \;
  fi
  echo "$name: ${execs:-0} executions in $((end - start))s, coverage ${coverage:-0} edges, ${features:-0} features," \
    "corpus $corpus, $findings findings"
}
export -f run_one
export seconds
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one {}'
