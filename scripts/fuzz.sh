#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for the
# given number of seconds (default 60), two at a time, seeded from the real
# SSTables in ../shared when present. Prints executions and findings per target.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCQLITE_FUZZ=ON \
  -DCQLITE_BENCH=OFF >/dev/null
cmake --build build-fuzz
mkdir -p build-fuzz/corpus build-fuzz/findings
targets=$(find build-fuzz/fuzz -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x | sort)
run_one() {
  local bin=$1 name
  name=$(basename "$bin")
  mkdir -p "build-fuzz/corpus/$name" "build-fuzz/findings/$name"
  seeds="fuzz/seeds/$name"
  [ -d "$seeds" ] || seeds=""
  "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/findings/$name/" "build-fuzz/corpus/$name" $seeds \
    >"build-fuzz/$name.log" 2>&1 || true
  local execs crashes
  execs=$(grep -m1 'stat::number_of_executed_units' "build-fuzz/$name.log" | awk '{print $2}')
  crashes=$(find "build-fuzz/findings/$name" -type f | wc -l)
  echo "$name: ${execs:-0} executions in ${seconds}s, $crashes findings"
}
export -f run_one
export seconds
printf '%s\n' $targets | xargs -P 2 -I{} bash -c 'run_one {}'
